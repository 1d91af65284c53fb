"""Calling expanded code from real programs (issue 8): ``--abi``, ``--header``, ``--wrapper array``.

* GCC calls our variants: a plain scalar loop over ``__floorf``/``__logf`` (glibc 2.36), a double
  kernel and a uniform/linear kernel with stores, compiled with ``gcc -O3 -fopenmp-simd`` against
  our header, calls ``_ZGVbN4v_``/``_ZGVdN8v_``/``_ZGVeN16v_`` (``nm`` and ``objdump -d``), and every
  result equals the scalar function's bit for bit on edge and random inputs; the same on AArch64
  (``_ZGVnN4v_``, ``_ZGVnN2v_``) with ``aarch64-linux-gnu-gcc`` under ``qemu-aarch64``.
* Our prototypes are GCC's ABI: a caller built from our header's prototypes gets the same results
  from GCC's own ``declare simd`` clones as from ours (multi-register values, results returned in
  memory, vector and bit masks, half-gang variants).
* Masked variants, called directly with masks in the ABI's convention (written here independently
  of expand): inactive lanes make no call (the call log equals the scalar one of the active lanes),
  do not fault (division by zero, wild indices into a table ending at a guard page).
* ``NAME_array`` for every n in 0..67 under AddressSanitizer, arrays aligned, misaligned (with the
  bytes before them poisoned), ending at a ``PROT_NONE`` page or starting after one: no access
  outside the arrays, results bit-exact.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from daily import isas_once_daily
from hostrun import skip_run_unless_host

from expand.cli import main as expand_main
from mathlib.corpus import corpus

ROOT = Path(__file__).resolve().parent.parent
CORPUS = {f.name: f for f in corpus()}
X86 = {  # our ISA -> (gcc flags, ABI letter, vector bits, mask convention)
    "sse4.1": (["-msse4.1"], "b", 128, "vector"),
    "avx2": (["-mavx2"], "d", 256, "vector"),
    "avx512": (["-mavx512f", "-mavx512bw", "-mavx512dq", "-mavx512vl"], "e", 512, "bits"),
}
NEON = (["-static"], "n", 128, "vector")
CFLAGS = ["-O2", "-ffp-contract=off", "-Wall", "-Werror"]
N_RANDOM = 100_000

DK = "double dk(double x) { if (x < 0) return -x * 0.5; if (x > 1e300) return x - 1e300; return x * 3.0 + 1.0; }\n"
NOTE_H = "#include <stdint.h>\nvoid note(int site, uint64_t bits);\n"
MASKED = r"""#include "note.h"
float fx(float x) { if (x > 2.0f) { note(1, (uint64_t)(int)x); return x * 0.5f; } return -x; }
int idiv(int a, int b) { return a / b + a % b; }
#pragma omp declare simd uniform(tab)
float lut(const float *tab, int i) { return tab[i] * 2.0f; }
double dnote(double x) { note(2, (uint64_t)(int64_t)x); return x + 1.0; }
"""
GMIX = "double gmix(double x, float y) { if (y > 1.0f) return x * y; return x - (double)y; }\n"
# (Not `-x * x` in one branch and `x * x + c` in the other: aarch64 GCC 12 -O2 computes the second as
# `c - (-x * x)` when both are computed, which flips the sign of NaN results; `expand --verify` on
# NEON reports that function's NaN mismatches too.)
FSQ = "float fsq(float x) { if (x < 0.0f) return x * 0.5f - 1.0f; return x * x + 0.25f; }\n"


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=600, **kw)
    assert p.returncode == 0, f"{' '.join(map(str, cmd))}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    return p


def expand(src: Path, isa: str, out: Path, *args: str) -> tuple[Path, Path]:
    """Run the expand command line in-process; returns (C file, header)."""
    header = out.with_suffix(".h")
    rc = expand_main([str(src), "--isa", isa, "-o", str(out), "--header", str(header), *args])
    assert rc == 0, f"expand {src} --isa {isa} {' '.join(args)} failed with {rc}"
    return out, header


# ------------------------------------------------------------------ inputs


def f32_edges() -> list[int]:
    """±0, ±inf, NaNs (quiet, signalling, payloads), subnormals, and every exponent with mantissas
    0, 1, half and all ones (powers of two, their neighbours, halves), both signs."""
    out = [0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FA00000, 0xFFBFFFFF, 0x7FFFFFFF]
    for e in range(256):
        for m in (0, 1, 0x400000, 0x7FFFFF, 0x200000):
            for s in (0, 0x80000000):
                out.append(s | e << 23 | m)
    return out


def f64_edges() -> list[int]:
    out = [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001, 0x7FF4000000000000]
    for e in range(2048):
        for m in (0, 1, 1 << 51, (1 << 52) - 1):
            for s in (0, 1 << 63):
                out.append(s | e << 52 | m)
    return out


def c_array(name: str, ctype: str, values: list[int]) -> str:
    rows = [", ".join(f"{v:#x}u" if ctype == "uint32_t" else f"{v:#x}ull" for v in values[i:i + 8])
            for i in range(0, len(values), 8)]
    return f"static const {ctype} {name}[{len(values)}] = {{\n    " + ",\n    ".join(rows) + "\n};\n"


RANDOM_C = r"""
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
"""


# ------------------------------------------------------------------ the functions under test


@dataclass
class Func:
    """A scalar function, where its source is, and how the tests call it."""

    key: str
    name: str
    source: Path
    includes: list[Path] = field(default_factory=list)
    link: list[Path] = field(default_factory=list)
    kind: str = "f32"  # f32 / f64: unary; "blur": pixel_blur's (in, out, gain, x)
    abi: bool = True

    def iflags(self) -> list[str]:
        return [f"-I{d}" for d in self.includes]


def functions(tmp: Path) -> dict[str, Func]:
    dk = tmp / "dk.c"
    dk.write_text(DK)
    fl, lg = CORPUS["floorf"], CORPUS["logf"]
    return {
        "floorf": Func("floorf", fl.func, fl.source, fl.include_dirs, fl.link),
        "logf": Func("logf", lg.func, lg.source, lg.include_dirs, lg.link),
        "dk": Func("dk", "dk", dk, kind="f64"),
        "blur": Func("blur", "pixel_blur", ROOT / "mathlib/loops/pixel_blur.c", kind="blur"),
        "mot": Func("mot", "mot", ROOT / "mathlib/mot.c", kind="mot", abi=False),
    }


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("abi")


@pytest.fixture(scope="module")
def funcs(work: Path) -> dict[str, Func]:
    return functions(work)


def outputs(work: Path, f: Func, isa: str, *args: str) -> tuple[Path, Path]:
    """Our C file and header for ``f`` on ``isa`` (made once per argument list)."""
    tag = f"{f.key}_{isa.replace('.', '')}{''.join(a.strip('-')[0] for a in args)}"
    c = work / f"{tag}.c"
    if c.exists():
        return c, c.with_suffix(".h")
    return expand(f.source, isa, c, *args, *(a for d in f.includes for a in ("-I", str(d))))


def objects(work: Path, files: list[Path], flags: list[str], tag: str, cc: str = "gcc") -> list[Path]:
    objs = []
    for src in files:
        obj = work / f"{src.stem}_{tag}.o"
        if not obj.exists():
            run([cc, *CFLAGS, *flags, "-c", src, "-o", obj])
        objs.append(obj)
    return objs


def scalar_objects(work: Path, fs: list[Func], flags: list[str], tag: str, cc: str = "gcc") -> list[Path]:
    """The scalar functions (and what they link) compiled with ``flags``."""
    objs = []
    for f in fs:
        for src in [f.source, *f.link]:
            obj = work / f"scalar_{f.key}_{src.stem}_{tag}.o"
            if not obj.exists():
                run([cc, *CFLAGS, "-Wno-error", *f.iflags(), *flags, "-c", src, "-o", obj])
            objs.append(obj)
    return objs


# ------------------------------------------------------------------ GCC's loops call our variants


def loop_sources(fs: list[Func], headers: list[Path], n_extra: int) -> tuple[str, str]:
    """(loop.c: the user's loops, compiled against our headers; main.c: reference and comparison)."""
    loop = [f'#include "{h}"' for h in headers] + ["#include <stddef.h>", ""]
    main = ["#include <stdint.h>", "#include <stdio.h>", "#include <string.h>", "#include <stdlib.h>", RANDOM_C,
            c_array("E32", "uint32_t", f32_edges()), c_array("E64", "uint64_t", f64_edges())]
    body = ["int main(void)", "{", "    long bad = 0;"]
    for f in fs:
        if f.kind in ("f32", "f64"):
            t, e = ("float", "E32") if f.kind == "f32" else ("double", "E64")
            const = f.kind == "f64" or f.key == "floorf"
            pragma = "" if const else "    #pragma omp simd\n"  # not const/pure: GCC needs the loop's permission
            loop.append(f"void vloop_{f.key}({t} *restrict out, const {t} *restrict x, int n)\n{{\n{pragma}"
                        f"    for (int i = 0; i < n; i++)\n        out[i] = {f.name}(x[i]);\n}}\n")
            main.append(f"{t} {f.name}({t});\nvoid vloop_{f.key}({t} *restrict, const {t} *restrict, int);\n")
            body.append(f"""    {{
        int n = (int)(sizeof {e} / sizeof {e}[0]) + {n_extra};
        {t} *x = malloc(n * sizeof *x), *want = malloc(n * sizeof *x), *got = malloc(n * sizeof *x);
        for (int i = 0; i < n; i++) {{
            uint64_t b = i < (int)(sizeof {e} / sizeof {e}[0]) ? {e}[i] : rng();
            memcpy(&x[i], &b, sizeof x[i]);
        }}
        for (int i = 0; i < n; i++)
            want[i] = {f.name}(x[i]);
        vloop_{f.key}(got, x, n);
        long m = 0;
        for (int i = 0; i < n; i++)
            m += memcmp(&want[i], &got[i], sizeof got[i]) != 0;
        printf("{f.key}: %d inputs, %ld mismatches\\n", n, m);
        bad += m;
    }}""")
        else:  # pixel_blur: uniform in/out/gain, linear x, stores
            loop.append("void vloop_blur(const float *in, float *out, float gain, int n)\n{\n    #pragma omp simd\n"
                        "    for (int x = 1; x < n - 1; x++)\n        pixel_blur(in, out, gain, x);\n}\n")
            main.append("void pixel_blur(const float *in, float *out, float gain, int x);\n"
                        "void vloop_blur(const float *, float *, float, int);\n")
            body.append(f"""    {{
        int n = {n_extra} + 1000;
        float *in = malloc(n * sizeof *in), *want = malloc(n * sizeof *in), *got = malloc(n * sizeof *in);
        for (int i = 0; i < n; i++) {{
            uint32_t b = (uint32_t)rng() & 0x3fffffffu;  /* finite, no NaN */
            memcpy(&in[i], &b, 4);
            want[i] = got[i] = (float)i;
        }}
        for (int x = 1; x < n - 1; x++)
            pixel_blur(in, want, 0.75f, x);
        vloop_blur(in, got, 0.75f, n);
        long m = 0;
        for (int i = 0; i < n; i++)
            m += memcmp(&want[i], &got[i], 4) != 0;
        printf("blur: %d outputs, %ld mismatches\\n", n, m);
        bad += m;
    }}""")
    body += ["    return bad != 0;", "}"]
    return "\n".join(loop) + "\n", "\n".join(main + body) + "\n"


LOOP_CASES = {  # loop compiled for -> (variants GCC must call, by function)
    "sse4.1": {"floorf": ["_ZGVbN4v___floorf"], "logf": ["_ZGVbN4v___logf"], "dk": ["_ZGVbN2v_dk"],
               "blur": ["_ZGVbN4uuul_pixel_blur"]},
    "avx2": {"floorf": ["_ZGVdN8v___floorf", "_ZGVbN4v___floorf"], "logf": ["_ZGVdN8v___logf"],
             "dk": ["_ZGVdN4v_dk"], "blur": ["_ZGVdN8uuul_pixel_blur"]},
    "avx512": {"floorf": ["_ZGVeN16v___floorf"], "logf": ["_ZGVeN16v___logf"], "dk": ["_ZGVeN8v_dk"],
               "blur": ["_ZGVeN16uuul_pixel_blur"]},
}


@pytest.mark.parametrize("target", list(LOOP_CASES))
def test_gcc_loop_calls_our_variants(work: Path, funcs, target: str) -> None:
    """A scalar loop compiled with gcc -O3 -fopenmp-simd calls our variants (and the other ISAs'
    for its tail); all results equal the scalar function's."""
    fs = [funcs[k] for k in LOOP_CASES[target]]
    flags = X86[target][0]
    headers = [outputs(work, f, target, "--abi")[1] for f in fs]
    loop_c, main_c = loop_sources(fs, headers, N_RANDOM + 13)
    (work / f"loop_{target}.c").write_text(loop_c)
    (work / f"main_{target}.c").write_text(main_c)
    incs = sorted({i for f in fs for i in f.iflags()})
    loop_o = work / f"loop_{target}.o"
    run(["gcc", "-O3", "-fopenmp-simd", "-Wall", "-Werror", *flags, *incs, "-c", work / f"loop_{target}.c",
         "-o", loop_o])
    undefined = run(["nm", "-u", loop_o]).stdout
    ours = []
    for f in fs:
        for isa in X86:  # the variants of every ISA (GCC's tail calls a narrower one)
            ours += objects(work, [outputs(work, f, isa, "--abi")[0]], [*X86[isa][0], *f.iflags()], "obj")
    scalars = scalar_objects(work, fs, [], "plain")
    main_o = objects(work, [work / f"main_{target}.c"], ["-fno-tree-vectorize"], "obj")
    prog = work / f"loop_{target}"
    run(["gcc", main_o[0], loop_o, *ours, *scalars, "-lm", "-o", prog])
    disasm = run(["objdump", "-d", prog]).stdout
    for f in fs:
        for name in LOOP_CASES[target][f.key]:
            assert re.search(rf"\b{name}\b", undefined), f"loop.o does not reference {name}:\n{undefined}"
            assert re.search(rf"call\s+[0-9a-f]+ <{name}>", disasm), f"no call to {name} in the program"
    skip_run_unless_host(target)
    out = run([prog]).stdout
    assert len(re.findall(r", 0 mismatches", out)) == len(fs), out


def test_aarch64_loop_calls_our_variants(work: Path, funcs) -> None:
    """AArch64: aarch64-linux-gnu-gcc -O3 -fopenmp-simd calls _ZGVnN4v_ (float) and _ZGVnN2v_
    (double) of our NEON output; run statically linked under qemu-aarch64, bit-exact."""
    fs = [funcs["floorf"], funcs["dk"]]
    cc = "aarch64-linux-gnu-gcc"
    ours, headers = [], []
    for f in fs:
        c, h = expand(f.source, "neon", work / f"{f.key}_neon.c", "--abi",
                      *(a for d in f.includes for a in ("-I", str(d))))
        ours += objects(work, [c], f.iflags(), "a64", cc)
        headers.append(h)
    loop_c, main_c = loop_sources(fs, headers, 20_003)
    (work / "loop_a64.c").write_text(loop_c)
    (work / "main_a64.c").write_text(main_c)
    incs = sorted({i for f in fs for i in f.iflags()})
    loop_o = work / "loop_a64.o"
    run([cc, "-O3", "-fopenmp-simd", "-Wall", "-Werror", *incs, "-c", work / "loop_a64.c", "-o", loop_o])
    main_o = objects(work, [work / "main_a64.c"], ["-fno-tree-vectorize"], "a64", cc)
    prog = work / "loop_a64"
    run([cc, "-static", main_o[0], loop_o, *ours, *scalar_objects(work, fs, [], "a64", cc), "-lm", "-o", prog])
    disasm = run(["aarch64-linux-gnu-objdump", "-d", prog]).stdout
    for name in ("_ZGVnN4v___floorf", "_ZGVnN2v_dk"):
        assert re.search(rf"\bbl\s+[0-9a-f]+ <{name}>", disasm), f"no call to {name}"
    out = run(["qemu-aarch64", prog]).stdout
    assert len(re.findall(r" 0 mismatches", out)) == 2, out


# ------------------------------------------------------------------ our prototypes are GCC's ABI


def conformance_caller(header: Path, scalar_proto: str, params: list[tuple[str, str]], ret: str) -> str:
    """A C program calling every variant declared in ``header`` (parsed here) on edge-ish inputs and
    masks, checking active lanes against the scalar function, bit for bit."""
    protos = re.findall(r"^(\w+) (_ZGV(\w)([NM])(\d+)\w*)\((.*)\);$", header.read_text(), re.M)
    assert protos, header.read_text()
    lines = [f'#include "{header}"', "#include <stdio.h>", "#include <string.h>", RANDOM_C, scalar_proto + ";",
             "static long bad, calls;", "int main(void)", "{"]
    for rtype, name, _letter, nm, simdlen, plist in protos:
        s = int(simdlen)
        args = [a.rsplit(" ", 1) for a in plist.split(", ")]
        masks = [(t, n) for t, n in args if n.startswith("mask")]
        lines.append(f"    for (int round = 0; round < 200; round++) {{ /* {name} */")
        for pname, ptype in params:
            lines.append(f"        {ptype} {pname}_in[{s}];")
            lines.append(f"        for (int l = 0; l < {s}; l++) {{ uint64_t b = rng(); "
                         f"{pname}_in[l] = ({ptype})((int64_t)(b % 2001) - 1000) / 7; "
                         f"if (b >> 60 == 0) memcpy(&{pname}_in[l], &b, sizeof {pname}_in[l]); }}")
        lines.append(f"        int on[{s}];")
        lines.append(f"        for (int l = 0; l < {s}; l++) on[l] = {'1' if nm == 'N' else '(rng() & 3) != 0'};")
        call_args = []
        offsets = {p: 0 for p, _ in params}
        for i, (t, n) in enumerate(args):
            if n.startswith("mask"):
                j = masks.index((t, n))
                per = s // len(masks)
                if t == "unsigned int":
                    lines.append(f"        unsigned int a{i} = 0;")
                    lines.append(f"        for (int l = 0; l < {per}; l++) a{i} |= (unsigned)on[{j * per} + l] << l;")
                else:  # a vector of the characteristic type: a lane is on iff its bits are nonzero
                    lines.append(f"        {t} a{i}; unsigned char a{i}_b[sizeof a{i}];")
                    lines.append(f"        for (int l = 0; l < {per}; l++) memset(a{i}_b + l * (sizeof a{i} / {per}), "
                                 f"on[{j * per} + l] ? 0xff : 0, sizeof a{i} / {per});")
                    lines.append(f"        memcpy(&a{i}, a{i}_b, sizeof a{i});")
            else:
                p = re.sub(r"_\d+$", "", n)
                lines.append(f"        {t} a{i}; memcpy(&a{i}, (char *){p}_in + {offsets[p]} * sizeof {p}_in[0], "
                             "sizeof a" + str(i) + ");")
                lines.append(f"        _Static_assert(sizeof a{i} % sizeof {p}_in[0] == 0, \"lanes\");")
                offsets[p] = f"({offsets[p]} + sizeof a{i} / sizeof {p}_in[0])"
            call_args.append(f"a{i}")
        lines.append(f"        {rtype} r = {name}({', '.join(call_args)});")
        lines.append(f"        _Static_assert(sizeof r == {s} * sizeof({ret}), \"result size\");")
        lines.append(f"        {ret} got[{s}]; memcpy(got, &r, sizeof r); calls++;")
        lines.append(f"        for (int l = 0; l < {s}; l++) if (on[l]) {{")
        lines.append(f"            {ret} want = {scalar_proto.split('(')[0].split()[-1]}"
                     f"({', '.join(f'{p}_in[l]' for p, _ in params)});")
        lines.append(f"            if (memcmp(&want, &got[l], sizeof want) && bad++ < 5) printf(\"{name} %d\\n\", l);")
        lines.append("        }")
        lines.append("    }")
    lines += ['    printf("%ld calls, %ld mismatches\\n", calls, bad);', "    return bad != 0 || calls == 0;", "}"]
    return "\n".join(lines) + "\n"


CONFORMANCE = {  # name -> (isa, lanes, source, the variants our header must declare)
    "gmix_sse": ("sse4.1", 4, GMIX, ["_ZGVbN2vv_gmix", "_ZGVbM2vv_gmix", "_ZGVbN4vv_gmix", "_ZGVbM4vv_gmix"]),
    "gmix_avx2": ("avx2", 8, GMIX, ["_ZGVdN4vv_gmix", "_ZGVdM4vv_gmix", "_ZGVdN8vv_gmix", "_ZGVdM8vv_gmix",
                                    "_ZGVcN4vv_gmix", "_ZGVcM4vv_gmix"]),
    "iadd_avx2": ("avx2", 8, "int iadd(int a, long b) { return a + (int)(b >> 3); }\n",
                  ["_ZGVdN8vv_iadd", "_ZGVdM8vv_iadd", "_ZGVcN4vv_iadd", "_ZGVcM4vv_iadd"]),
    "gmix_avx512": ("avx512", 16, GMIX, ["_ZGVeN8vv_gmix", "_ZGVeM8vv_gmix", "_ZGVeN16vv_gmix", "_ZGVeM16vv_gmix"]),
    "fsq_sse8": ("sse4.1", 8, FSQ, ["_ZGVbN4v_fsq", "_ZGVbM4v_fsq", "_ZGVbN8v_fsq", "_ZGVbM8v_fsq"]),
    "fsq_avx512_32": ("avx512", 32, FSQ, ["_ZGVeN16v_fsq", "_ZGVeM16v_fsq", "_ZGVeN32v_fsq", "_ZGVeM32v_fsq"]),
    "fsq_neon": ("neon", 4, FSQ, ["_ZGVnN2v_fsq", "_ZGVnM2v_fsq", "_ZGVnN4v_fsq", "_ZGVnM4v_fsq"]),
    "dk_neon": ("neon", 4, DK, ["_ZGVnN1v_dk", "_ZGVnM1v_dk", "_ZGVnN2v_dk", "_ZGVnM2v_dk"]),
}


@pytest.mark.parametrize("case", list(CONFORMANCE))
def test_prototypes_match_gcc_clones(work: Path, case: str) -> None:
    """Calls through our header's prototypes give the scalar results both from GCC's own clones of
    the function (``#pragma omp declare simd`` definitions) and from our variants."""
    isa, lanes, text, names = CONFORMANCE[case]
    src = work / f"{case}.c"
    src.write_text(text)
    c, h = expand(src, isa, work / f"{case}_ours.c", "--abi", "--lanes", str(lanes))
    declared = re.findall(r"^\w+ (_ZGV\w+)\(", h.read_text(), re.M)
    assert declared == names
    proto = text.split(" {")[0]
    params = [(p.split()[-1], " ".join(p.split()[:-1])) for p in proto.split("(")[1].rstrip(")").split(", ")]
    caller = work / f"{case}_caller.c"
    caller.write_text(conformance_caller(h, proto, params, proto.split()[0]))
    neon = isa == "neon"
    cc, flags = ("aarch64-linux-gnu-gcc", ["-static"]) if neon else ("gcc", X86[isa][0])
    gcc_clones = work / f"{case}_gcc.c"  # GCC's clones: the default simdlen and ours
    extra = "" if neon else f"#pragma omp declare simd simdlen({lanes})\n"
    gcc_clones.write_text("#pragma omp declare simd\n" + extra + text)
    # The caller without -fopenmp-simd: its reference calls of the scalar function stay scalar.
    caller_o = objects(work, [caller], ["-Wno-unknown-pragmas", *flags], "caller", cc)[0]
    progs = []
    for tag, impl in (("gcc", [gcc_clones]), ("ours", [c, src])):
        prog = work / f"{case}_{tag}"
        run([cc, *CFLAGS, "-fopenmp-simd", *flags, caller_o, *impl, "-o", prog])
        progs.append(prog)
    nm = run(["nm", progs[0]] if not neon else ["aarch64-linux-gnu-nm", progs[0]]).stdout
    for name in names:
        assert re.search(rf" T {name}$", nm, re.M), f"GCC made no {name}"
    skip_run_unless_host(isa)
    for prog in progs:
        out = run((["qemu-aarch64"] if neon else []) + [str(prog)]).stdout
        assert re.search(r"\b\d+ calls, 0 mismatches", out), out


# ------------------------------------------------------------------ pointer parameters (glibc's sincosf)

#: in-out pointers under a branch: each lane reads its *c, writes *s and *c
SCX = """void scx(float x, float *s, float *c)
{
    float t = *c;
    if (x > 1.0f)
        *s = x * t;
    else
        *s = x + 0.5f;
    *c = t - x;
}
"""


def pointer_caller(header: Path) -> str:
    """Calls every variant of ``scx`` declared in ``header`` (parsed here): the ``v`` form with a vector of
    pointers to scattered elements, the ``l4`` form with a misaligned pointer to consecutive ones, under
    random masks; every element of both buffers equals what the scalar ``scx`` leaves from the same
    contents, on the active lanes' elements in lane order (the others untouched)."""
    protos = re.findall(r"^void (_ZGV\w([NM])(\d+)(\w+)_scx)\((.*)\);$", header.read_text(), re.M)
    assert protos, header.read_text()
    lines = [f'#include "{header}"', "#include <stdio.h>", "#include <string.h>", RANDOM_C,
             "void scx(float x, float *s, float *c);", "static long bad, calls;", "int main(void)", "{"]
    for name, nm, simdlen, codes, plist in protos:
        n = int(simdlen)
        args = [a.rsplit(" ", 1) for a in plist.split(", ")]
        masks = [(t, a) for t, a in args if a.startswith("mask")]
        lines += [f"    for (int round = 0; round < 300; round++) {{ /* {name} */",
                  f"        float x_in[{n}], sb[{2 * n + 2}], cb[{2 * n + 2}], sw[{2 * n + 2}], cw[{2 * n + 2}];",
                  *([] if codes.endswith("l4l4") else [f"        float *s_ptr[{n}], *c_ptr[{n}];"]),
                  f"        int on[{n}];",
                  f"        for (int l = 0; l < {n}; l++) {{ uint64_t b = rng(); x_in[l] = (float)((int64_t)(b % 801)"
                  " - 400) / 64; if (b >> 61 == 0) { uint32_t u = (uint32_t)(b >> 8); memcpy(&x_in[l], &u, 4); } }",
                  f"        for (int i = 0; i < {2 * n + 2}; i++) sb[i] = cb[i] = (float)(rng() % 1000) / 16 - 20;",
                  f"        for (int l = 0; l < {n}; l++) on[l] = {'1' if nm == 'N' else '(rng() & 3) != 0'};",
                  "        memcpy(sw, sb, sizeof sb); memcpy(cw, cb, sizeof cb);"]
        linear = codes.endswith("l4l4")
        if linear:  # lane l: element 1 + l (misaligned)
            lines += [f"        for (int l = 0; l < {n}; l++) if (on[l]) scx(x_in[l], &sw[1 + l], &cw[1 + l]);"]
        else:  # lane l: element 2n + 1 - 2l (backwards, every other one)
            lines += [f"        for (int l = 0; l < {n}; l++) {{ s_ptr[l] = &sb[{2 * n + 1} - 2 * l]; "
                      f"c_ptr[l] = &cb[{2 * n + 1} - 2 * l]; }}",
                      f"        for (int l = 0; l < {n}; l++) if (on[l]) scx(x_in[l], &sw[{2 * n + 1} - 2 * l], "
                      f"&cw[{2 * n + 1} - 2 * l]);"]
        call_args = []
        offsets = {"x": 0, "s": 0, "c": 0}
        for i, (t, a) in enumerate(args):
            if a.startswith("mask"):
                j, per = masks.index((t, a)), n // len(masks)
                if t == "unsigned int":
                    lines.append(f"        unsigned int a{i} = 0;")
                    lines.append(f"        for (int l = 0; l < {per}; l++) a{i} |= (unsigned)on[{j * per} + l] << l;")
                else:
                    lines.append(f"        {t} a{i}; unsigned char a{i}_b[sizeof a{i}];")
                    lines.append(f"        for (int l = 0; l < {per}; l++) memset(a{i}_b + l * (sizeof a{i} / {per}), "
                                 f"on[{j * per} + l] ? 0xff : 0, sizeof a{i} / {per});")
                    lines.append(f"        memcpy(&a{i}, a{i}_b, sizeof a{i});")
                call_args.append(f"a{i}")
            elif t == "float" and a in ("*s", "*c"):
                call_args.append(f"&{a[1]}b[1]")
            else:
                p = re.sub(r"_\d+$", "", a)
                src = {"x": "x_in", "s": "s_ptr", "c": "c_ptr"}[p]
                lines.append(f"        {t} a{i}; memcpy(&a{i}, (char *){src} + {offsets[p]} * sizeof {src}[0], "
                             f"sizeof a{i});")
                offsets[p] = f"({offsets[p]} + sizeof a{i} / sizeof {src}[0])"
                call_args.append(f"a{i}")
        lines += [f"        {name}({', '.join(call_args)}); calls++;",
                  "        if ((memcmp(sb, sw, sizeof sb) || memcmp(cb, cw, sizeof cb)) && bad++ < 5)",
                  f'            printf("{name} round %d\\n", round);',
                  "    }"]
    lines += ['    printf("%ld calls, %ld mismatches\\n", calls, bad);', "    return bad != 0 || calls == 0;", "}"]
    return "\n".join(lines) + "\n"


POINTER_CASES = {  # our ISA -> the variants our header must declare
    "sse4.1": ["_ZGVbN4vvv_scx", "_ZGVbM4vvv_scx", "_ZGVbN4vl4l4_scx", "_ZGVbM4vl4l4_scx"],
    "avx2": ["_ZGVdN8vvv_scx", "_ZGVdM8vvv_scx", "_ZGVcN8vvv_scx", "_ZGVcM8vvv_scx",
             "_ZGVdN8vl4l4_scx", "_ZGVdM8vl4l4_scx", "_ZGVcN8vl4l4_scx", "_ZGVcM8vl4l4_scx"],
    "avx512": ["_ZGVeN16vvv_scx", "_ZGVeM16vvv_scx", "_ZGVeN16vl4l4_scx", "_ZGVeM16vl4l4_scx"],
    # (GCC 12 makes no AArch64 clones of a function mixing pointer and float lanes; glibc's AArch64
    # libmvec has _ZGVnN4vl4l4_sincosf: the linear form only)
    "neon": ["_ZGVnN2vl4l4_scx", "_ZGVnM2vl4l4_scx", "_ZGVnN4vl4l4_scx", "_ZGVnM4vl4l4_scx"],
}


@pytest.mark.parametrize("isa", list(POINTER_CASES))
def test_pointer_parameters_match_gcc_clones(work: Path, isa: str) -> None:
    """A function with varying pointer parameters gets GCC's two forms of variants (a vector of pointers,
    and linear pointers); a caller built from our header's prototypes gets the scalar results from GCC's
    own clones and from ours (x86), and from ours on AArch64 (where GCC 12 makes none)."""
    src = work / "scx.c"
    src.write_text(SCX)
    tag = isa.replace(".", "")
    c, h = expand(src, isa, work / f"scx_{tag}.c", "--abi")
    assert re.findall(r"^\w+ (_ZGV\w+)\(", h.read_text(), re.M) == POINTER_CASES[isa]
    assert "#pragma omp declare simd linear(s, c)" in h.read_text()
    assert ("#pragma omp declare simd\n" in h.read_text()) == (isa != "neon")
    caller = work / f"scx_caller_{tag}.c"
    caller.write_text(pointer_caller(h))
    neon = isa == "neon"
    cc, flags = ("aarch64-linux-gnu-gcc", ["-static"]) if neon else ("gcc", X86[isa][0])
    caller_o = objects(work, [caller], ["-Wno-unknown-pragmas", *flags], "caller", cc)[0]
    impls = [("ours", [c, src])]
    if not neon:
        gcc_clones = work / "scx_gcc.c"
        gcc_clones.write_text("#pragma omp declare simd\n#pragma omp declare simd linear(s, c)\n" + SCX)
        impls.append(("gcc", [gcc_clones]))
    progs = []
    for name, impl in impls:
        prog = work / f"scx_{tag}_{name}"
        run([cc, *CFLAGS, "-fopenmp-simd", *flags, caller_o, *impl, "-o", prog])
        progs.append(prog)
    if not neon:
        nm = run(["nm", progs[1]]).stdout
        for v in POINTER_CASES[isa]:
            assert re.search(rf" T {v}$", nm, re.M), f"GCC made no {v}"
    skip_run_unless_host(isa)
    for prog in progs:
        out = run((["qemu-aarch64"] if neon else []) + [str(prog)]).stdout
        assert re.search(r"\b\d+ calls, 0 mismatches", out), out


# ------------------------------------------------------------------ masked variants


def masked_harness(letter: str, bits: int, mask: str, names: dict[str, str]) -> str:
    """Direct calls of the masked variants of MASKED's functions with ABI masks written here: the
    call log and active results equal the scalar ones; inactive lanes neither call nor fault."""
    sf, sd = bits // 32, bits // 64
    vf = f"typedef float vf __attribute__((vector_size({bits // 8})));\n" \
         f"typedef int32_t vi __attribute__((vector_size({bits // 8})));\n" \
         f"typedef double vd __attribute__((vector_size({bits // 8})));\n" \
         f"typedef int64_t vl __attribute__((vector_size({bits // 8})));\n"
    mf, md = ("unsigned int", "unsigned int") if mask == "bits" else ("vf", "vd")
    return rf"""#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
{vf}
{RANDOM_C}
float fx(float); int idiv(int, int); float lut(const float *, int); double dnote(double);
vf {names['fx']}(vf x, {mf} m);
vi {names['idiv']}(vi a, vi b, {'unsigned int' if mask == 'bits' else 'vi'} m);
vf {names['lut']}(const float *tab, vi i, {mf} m);
vd {names['dnote_n']}(vd x);
vd {names['dnote']}(vd x, {md} m);
static uint64_t log_[64][2];
static int nlog;
void note(int site, uint64_t b) {{ if (nlog < 64) {{ log_[nlog][0] = site; log_[nlog][1] = b; }} nlog++; }}
static long bad;
#define CHECK(c, what) do {{ if (!(c)) {{ if (bad++ < 10) printf("%s round %d\n", what, round); }} }} while (0)

/* The ABI's mask for lanes on[]: {mask}; nonzero patterns other than all ones count as on too. */
static {mf} mask_f(const int *on, int round)
{{
{"    unsigned int m = 0; for (int l = 0; l < " + str(sf) + "; l++) m |= (unsigned)(on[l] != 0) << l; return m;"
 if mask == "bits" else
 "    vf m; uint32_t b[" + str(sf) + "]; for (int l = 0; l < " + str(sf) + "; l++) "
 "b[l] = on[l] ? (round % 3 == 0 ? 0xffffffffu : round % 3 == 1 ? 1u : 0x80000000u) : 0; "
 "memcpy(&m, b, sizeof m); return m;"}
}}
static {md} mask_d(const int *on, int round)
{{
{"    unsigned int m = 0; for (int l = 0; l < " + str(sd) + "; l++) m |= (unsigned)(on[l] != 0) << l; return m;"
 if mask == "bits" else
 "    vd m; uint64_t b[" + str(sd) + "]; for (int l = 0; l < " + str(sd) + "; l++) "
 "b[l] = on[l] ? (round % 2 ? ~0ull : 1ull << 63) : 0; memcpy(&m, b, sizeof m); return m;"}
}}

int main(void)
{{
    long page = 4096;
    char *region = mmap(0, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    mprotect(region, page, PROT_NONE);
    mprotect(region + 2 * page, page, PROT_NONE);
    float *tab = (float *)(region + 2 * page) - 16;  /* 16 floats ending at a guard page */
    for (int i = 0; i < 16; i++) tab[i] = (float)i * 1.5f;
    for (int round = 0; round < 3000; round++) {{
        int on[{sf}];
        for (int l = 0; l < {sf}; l++) on[l] = round % 17 == 0 ? 0 : round % 13 == 0 ? 1 : (rng() & 1);
        /* fx: a per-lane call with side effects under a condition */
        float x[{sf}], want[{sf}], got[{sf}];
        uint64_t want_log[64][2]; int want_n;
        for (int l = 0; l < {sf}; l++) x[l] = (float)((int)(rng() % 1100) - 500) / 100.0f;
        nlog = 0;
        for (int l = 0; l < {sf}; l++) if (on[l]) want[l] = fx(x[l]);
        want_n = nlog; memcpy(want_log, log_, sizeof log_);
        nlog = 0;
        vf vx; memcpy(&vx, x, sizeof vx);
        vf r = {names['fx']}(vx, mask_f(on, round));
        memcpy(got, &r, sizeof got);
        CHECK(nlog == want_n && !memcmp(log_, want_log, sizeof(log_[0]) * (want_n < 64 ? want_n : 64)), "fx calls");
        for (int l = 0; l < {sf}; l++) if (on[l]) CHECK(!memcmp(&want[l], &got[l], 4), "fx value");
        /* idiv: inactive lanes divide by zero or INT_MIN by -1 */
        int32_t a[{sf}], b[{sf}], iw[{sf}], ig[{sf}];
        for (int l = 0; l < {sf}; l++) {{
            a[l] = (int32_t)rng(); b[l] = (int32_t)(rng() % 2001) - 1000;
            if (b[l] == 0 || b[l] == -1) b[l] = 7;
            if (!on[l]) {{ if (rng() & 1) b[l] = 0; else {{ a[l] = INT32_MIN; b[l] = -1; }} }}
        }}
        vi va, vb; memcpy(&va, a, sizeof va); memcpy(&vb, b, sizeof vb);
        {'unsigned int mi = mask_f(on, round);' if mask == 'bits' else
         'vf mf_ = mask_f(on, round); vi mi; memcpy(&mi, &mf_, sizeof mi);'}
        vi ri = {names['idiv']}(va, vb, mi);
        memcpy(ig, &ri, sizeof ig);
        for (int l = 0; l < {sf}; l++) if (on[l]) {{ iw[l] = idiv(a[l], b[l]); CHECK(iw[l] == ig[l], "idiv value"); }}
        /* lut: inactive lanes hold wild indices */
        int32_t idx[{sf}];
        for (int l = 0; l < {sf}; l++) idx[l] = on[l] ? (int32_t)(rng() % 16) : (rng() & 1 ? 1 << 30 : -(1 << 30));
        vi vidx; memcpy(&vidx, idx, sizeof vidx);
        vf rl = {names['lut']}(tab, vidx, mask_f(on, round));
        memcpy(got, &rl, sizeof got);
        for (int l = 0; l < {sf}; l++)
            if (on[l]) {{ float w = lut(tab, idx[l]); CHECK(!memcmp(&w, &got[l], 4), "lut"); }}
        /* dnote: the half-gang variants ({sd} of the core's lanes) call for their lanes only */
        double d[{sd}], dw[{sd}], dg[{sd}];
        for (int l = 0; l < {sd}; l++) d[l] = (double)((int)(rng() % 2001) - 1000);
        nlog = 0;
        for (int l = 0; l < {sd}; l++) if (on[l]) dw[l] = dnote(d[l]);
        want_n = nlog; memcpy(want_log, log_, sizeof log_);
        nlog = 0;
        vd vdx; memcpy(&vdx, d, sizeof vdx);
        vd rd = {names['dnote']}(vdx, mask_d(on, round));
        memcpy(dg, &rd, sizeof dg);
        CHECK(nlog == want_n && !memcmp(log_, want_log, sizeof(log_[0]) * (want_n < 64 ? want_n : 64)), "dnote calls");
        for (int l = 0; l < {sd}; l++) if (on[l]) CHECK(!memcmp(&dw[l], &dg[l], 8), "dnote value");
        nlog = 0;
        rd = {names['dnote_n']}(vdx);
        memcpy(dg, &rd, sizeof dg);
        CHECK(nlog == {sd}, "dnote unmasked half gang: one call per lane");
        for (int l = 0; l < {sd}; l++) CHECK(dg[l] == d[l] + 1.0, "dnote unmasked value");
    }}
    printf("%ld mismatches\n", bad);
    return bad != 0;
}}
"""


@pytest.mark.parametrize("target", [*X86, "neon"])
def test_masked_variants_inactive_lanes_do_nothing(work: Path, target: str) -> None:
    flags, letter, bits, mask = NEON if target == "neon" else X86[target]
    src = work / "masked.c"
    src.write_text(MASKED)
    (work / "note.h").write_text(NOTE_H)
    tag = target.replace(".", "")
    c, _ = expand(src, target, work / f"masked_{tag}.c", "--abi")
    sf, sd = bits // 32, bits // 64
    names = {"fx": f"_ZGV{letter}M{sf}v_fx", "idiv": f"_ZGV{letter}M{sf}vv_idiv", "lut": f"_ZGV{letter}M{sf}uv_lut",
             "dnote": f"_ZGV{letter}M{sd}v_dnote", "dnote_n": f"_ZGV{letter}N{sd}v_dnote"}
    harness = work / f"masked_main_{tag}.c"
    harness.write_text(masked_harness(letter, bits, mask, names))
    cc = "aarch64-linux-gnu-gcc" if target == "neon" else "gcc"
    prog = work / f"masked_{tag}"
    run([cc, *CFLAGS, "-Wno-unknown-pragmas", f"-I{work}", *flags, harness, c, src, "-o", prog])
    skip_run_unless_host(target)
    out = run((["qemu-aarch64"] if target == "neon" else []) + [str(prog)]).stdout
    assert out.strip() == "0 mismatches", out


# ------------------------------------------------------------------ array wrappers under ASan


ALLOC_C = r"""
#include <sanitizer/asan_interface.h>
#include <sys/mman.h>
enum { EXACT, MISALIGNED, PAGE_END, PAGE_START, NMODES };
static const char *mode_name[] = {"malloc", "misaligned", "page end", "page start"};
struct block { void *p; char *raw; size_t len; int mode; };
/* An array of `bytes` bytes: nothing around it is accessible (ASan redzones, poisoned bytes, or
   PROT_NONE pages); MISALIGNED starts `skew` bytes past an aligned address. */
static void *alloc_array(struct block *b, size_t bytes, int mode, size_t skew)
{
    b->mode = mode;
    if (mode == EXACT || mode == MISALIGNED) {
        size_t off = mode == MISALIGNED ? skew : 0;
        b->raw = malloc(bytes + off + (bytes + off == 0));
        ASAN_POISON_MEMORY_REGION(b->raw, off);
        b->len = off;
        return b->p = b->raw + off;
    }
    long page = 4096;
    b->len = ((bytes + page - 1) / page + 2) * page;
    b->raw = mmap(0, b->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    mprotect(b->raw, page, PROT_NONE);
    mprotect(b->raw + b->len - page, page, PROT_NONE);
    return b->p = mode == PAGE_START ? b->raw + page : b->raw + b->len - page - bytes;
}
static void free_array(struct block *b)
{
    if (b->mode == EXACT || b->mode == MISALIGNED) {
        ASAN_UNPOISON_MEMORY_REGION(b->raw, b->len);
        free(b->raw);
    } else {
        munmap(b->raw, b->len);
    }
}
"""


def wrapper_harness(fs: list[Func]) -> str:
    lines = ["#include <stdint.h>", "#include <stdio.h>", "#include <stdlib.h>", "#include <string.h>", ALLOC_C,
             RANDOM_C, c_array("E32", "uint32_t", f32_edges()), c_array("E64", "uint64_t", f64_edges()),
             "static long bad, checked;"]
    main = ["int main(void)", "{", "    for (size_t n = 0; n <= 67; n++)",
            "        for (int mode = 0; mode < NMODES; mode++) {"]
    for f in fs:
        if f.kind in ("f32", "f64"):
            t, e, skew = ("float", "E32", 4) if f.kind == "f32" else ("double", "E64", 8)
            lines.append(f"{t} {f.name}({t});\nvoid {f.name}_array({t} *result, const {t} *x, size_t n);")
            main.append(f"""            {{
                struct block bx, br;
                {t} *x = alloc_array(&bx, n * sizeof *x, mode, {skew});
                {t} *r = alloc_array(&br, n * sizeof *r, (mode + n) % NMODES, {skew});
                {t} want[68];
                for (size_t i = 0; i < n; i++) {{
                    uint64_t b = rng() & 1 ? {e}[rng() % (sizeof {e} / sizeof {e}[0])] : rng();
                    memcpy(&x[i], &b, sizeof x[i]);
                    want[i] = {f.name}(x[i]);
                }}
                {f.name}_array(r, x, n);
                for (size_t i = 0; i < n; i++, checked++)
                    if (memcmp(&want[i], &r[i], sizeof r[i]) && bad++ < 10)
                        printf("{f.key} n=%zu %s element %zu\\n", n, mode_name[mode], i);
                free_array(&bx);
                free_array(&br);
            }}""")
        elif f.kind == "mot":  # a varying pointer: each element's *y, read and written back
            lines.append("void mot(float x, float *y);\nvoid mot_array(const float *x, float *y, size_t n);")
            main.append("""            {
                struct block bx, by;
                float *x = alloc_array(&bx, n * sizeof *x, mode, 4);
                float *y = alloc_array(&by, n * sizeof *y, (mode + 1) % NMODES, 4);
                float want[68];
                for (size_t i = 0; i < n; i++) {
                    uint32_t b = rng() & 1 ? E32[rng() % (sizeof E32 / sizeof E32[0])] : (uint32_t)rng();
                    memcpy(&x[i], &b, 4);
                    y[i] = want[i] = (float)i - 0.5f;
                    mot(x[i], &want[i]);
                }
                mot_array(x, y, n);
                for (size_t i = 0; i < n; i++, checked++)
                    if (memcmp(&want[i], &y[i], 4) && bad++ < 10)
                        printf("mot n=%zu %s element %zu\\n", n, mode_name[mode], i);
                free_array(&bx);
                free_array(&by);
            }""")
        else:  # pixel_blur: no array parameter; in[x-1..x+1] and out[x] for x = 1..n
            lines.append("void pixel_blur(const float *in, float *out, float gain, int x);\n"
                         "void pixel_blur_array(const float *in, float *out, float gain, int x, size_t n);")
            main.append("""            {
                struct block bi, bo;
                float *in = alloc_array(&bi, (n + 2) * sizeof *in, mode, 4);
                float *out = alloc_array(&bo, (n + 2) * sizeof *out, (mode + 3) % NMODES, 4);
                float want[70];
                for (size_t i = 0; i < n + 2; i++) {
                    uint32_t b = (uint32_t)rng() & 0x3fffffffu;
                    memcpy(&in[i], &b, 4);
                    out[i] = want[i] = -1.0f;
                }
                for (size_t i = 1; i <= n; i++)
                    pixel_blur(in, want, 0.75f, (int)i);
                pixel_blur_array(in, out, 0.75f, 1, n);
                for (size_t i = 0; i < n + 2; i++, checked++)
                    if (memcmp(&want[i], &out[i], 4) && bad++ < 10)
                        printf("blur n=%zu %s element %zu\\n", n, mode_name[mode], i);
                free_array(&bi);
                free_array(&bo);
            }""")
    main += ["        }", '    printf("%ld checked, %ld mismatches\\n", checked, bad);', "    return bad != 0;", "}"]
    return "\n".join(lines + main) + "\n"


@pytest.mark.parametrize("target", isas_once_daily("test_array_wrapper_any_n_under_asan", list(X86)))
def test_array_wrapper_any_n_under_asan(work: Path, funcs, target: str) -> None:
    fs = [funcs[k] for k in ("floorf", "logf", "dk", "mot", "blur")]
    asan = ["-fsanitize=address", "-fno-omit-frame-pointer"]
    tag = f"asan_{target.replace('.', '')}"
    ours = []
    for f in fs:  # (mot's powf per active lane, as a call the masked tails must not make: not mathlib's libm)
        c, _ = outputs(work, f, target, *(["--abi"] if f.abi else []), "--wrapper", "array", "--vector-math", "none")
        ours += objects(work, [c], [*asan, *X86[target][0], *f.iflags()], tag)
    harness = work / f"wrap_{tag}.c"
    harness.write_text(wrapper_harness(fs))
    prog = work / f"wrap_{tag}"
    run(["gcc", *CFLAGS, *asan, harness, *ours, *scalar_objects(work, fs, asan, "asan"), "-lm", "-o", prog])
    skip_run_unless_host(target)
    p = subprocess.run([prog], capture_output=True, text=True, timeout=600,
                       env={"ASAN_OPTIONS": "detect_leaks=0:abort_on_error=0"})
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-5000:]
    checked = 4 * sum(n + 2 if f.kind == "blur" else n for n in range(68) for f in fs)  # 4 allocation modes
    assert p.stdout.strip() == f"{checked} checked, 0 mismatches", p.stdout


# Element types whose pointers C takes for other types than the lane kinds' stdint ones (plain char,
# _Bool, long long): the wrapper's loads and stores of them (NEON's and AltiVec's take typed pointers).
WRAPPER_TYPES = """_Bool f(_Bool b, long long q, char c, unsigned long long u, signed char s)
{
    return b ^ (q > c) ^ (u > (unsigned long long)s);
}
"""
WRAPPER_TYPES_MAIN = r"""#include <stddef.h>
#include <stdio.h>
_Bool f(_Bool b, long long q, char c, unsigned long long u, signed char s);
void f_array(_Bool *result, const _Bool *b, const long long *q, const char *c, const unsigned long long *u,
             const signed char *s, size_t n);
int main(void)
{
    static _Bool b[80], r[80];
    static long long q[80];
    static char c[80];
    static unsigned long long u[80];
    static signed char s[80];
    unsigned long long x = 88172645463325252ULL;
    long bad = 0;
    for (size_t n = 0; n <= 75; n++) {
        for (size_t i = 0; i < 80; i++) {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            b[i] = x & 1; q[i] = (long long)(x >> 8) % 300 - 150; c[i] = (char)(x >> 20);
            u[i] = x >> (x & 63); s[i] = (signed char)(x >> 30); r[i] = 0;
        }
        f_array(r, b, q, c, u, s, n);
        for (size_t i = 0; i < 80; i++)
            bad += r[i] != (i < n ? f(b[i], q[i], c[i], u[i], s[i]) : 0);
    }
    printf("%ld mismatches\n", bad);
    return bad != 0;
}
"""


@pytest.mark.parametrize("target", ["sse2", "sse4.1", "avx2", "avx512", "neon", "altivec", "generic"])
def test_array_wrapper_element_types(tmp_path: Path, target: str) -> None:
    """NAME_array over _Bool, long long, plain char, unsigned long long and signed char arrays compiles
    with -Wall -Wextra -Werror (NEON's typed loads said 'pointer targets differ in signedness' for char
    and 'incompatible pointer type' for _Bool: expand-fuzz) and gives f of every element, for any n."""
    from emit import get_isa
    isa = get_isa(target)
    src = tmp_path / "wt.c"
    src.write_text(WRAPPER_TYPES)
    out = tmp_path / "wt_out.c"
    assert expand_main([str(src), "--isa", target, "--wrapper", "array", "-o", str(out)]) == 0
    (tmp_path / "main.c").write_text(WRAPPER_TYPES_MAIN)
    prog = tmp_path / "wt"
    run([*isa.cc, *CFLAGS, "-Wextra", *isa.cflags, out, src, tmp_path / "main.c", "-o", prog])
    skip_run_unless_host(target)
    assert run([*isa.run_prefix, prog]).stdout.strip() == "0 mismatches"


# ------------------------------------------------------------------ usage


def test_abi_usage_errors(work: Path, capsys) -> None:
    """--abi where GCC has no vector function ABI is a usage error; a gang pointer is a diagnostic."""
    src = work / "fsq_usage.c"
    src.write_text(FSQ)
    assert expand_main([str(src), "--isa", "altivec", "--abi", "-o", str(work / "x.c")]) == 2
    assert "no vector function ABI for altivec" in capsys.readouterr().err
    assert expand_main([str(src), "--isa", "sse4.1", "--header", str(work / "x.h"), "-o", str(work / "x.c")]) == 2
    assert expand_main([str(ROOT / "mathlib/mot.c"), "--isa", "sse4.1", "--abi", "-o", str(work / "x.c")]) == 0
    assert "_ZGVbN4vv_mot(__m128 x, __m128i y_0, __m128i y_1)" in (work / "x.c").read_text()  # (a gang pointer)
    rec = work / "rec.c"
    rec.write_text("struct pt { float a, b; };\nvoid f(float x, struct pt *p) { p->a = x; }\n")
    assert expand_main([str(rec), "--isa", "sse4.1", "--abi", "-o", str(work / "x.c")]) == 1
    capsys.readouterr()
    assert expand_main([str(ROOT / "mathlib/chroma.c"), "--isa", "sse4.1", "--abi", "--uniform",
                        "bred,bgreen,bblue", "-o", str(work / "x.c")]) == 1
    assert "one place every lane shares ('bred', a uniform pointer)" in capsys.readouterr().err
    bytes_src = work / "bytes.c"
    bytes_src.write_text("unsigned char f(unsigned char a, unsigned char b) { return a > b ? a : b; }\n")
    assert expand_main([str(bytes_src), "--isa", "sse4.1", "--abi", "-o", str(work / "x.c")]) == 1
    assert "8-bit" in capsys.readouterr().err


def test_header_promises_const_pure_or_nothing(work: Path, funcs) -> None:
    """const for floorf (arguments only), nothing for logf (calls __math_*), pixel_blur (stores)."""
    heads = {k: outputs(work, funcs[k], "avx2", "--abi")[1].read_text() for k in ("floorf", "logf", "blur", "dk")}
    assert "__attribute__((const)) float __floorf(float x);" in heads["floorf"]
    assert re.search(r"^float __logf\(float x\);", heads["logf"], re.M)
    assert "#pragma omp declare simd uniform(in, out, gain) linear(x)\nvoid pixel_blur(" in heads["blur"]
    assert "__attribute__((const)) double dk(double x);" in heads["dk"]
    src = work / "pure.c"
    src.write_text("#pragma omp declare simd uniform(t)\n"
                   "float rd(const float *t, int i) { return t[i & 15] + 1.0f; }\n")
    _, h = expand(src, "sse4.1", work / "pure_sse.c", "--abi")
    assert "__attribute__((pure)) float rd(const float *t, int i);" in h.read_text()


def test_returned_expression_is_not_under_the_last_mask(work: Path) -> None:
    """Found with the masked variants: the returned expression was printed under the mask of the
    statement before it, so a division in it got divisor 1 in the lanes outside that mask (wrong
    results in the plain function; SIGFPE-prone in a masked one)."""
    (work / "note.h").write_text(NOTE_H)
    (work / "note.c").write_text('#include "note.h"\nvoid note(int site, uint64_t bits) { (void)site; (void)bits; }\n')
    src = work / "ret_div.c"
    src.write_text('#include "note.h"\n'
                   "int f(int a, int b, int c) { if (c > 0) note(1, 0); return a / ((b & 0xff) + 1); }\n")
    assert expand_main([str(src), "--isa", "sse4.1", "-I", str(work), "--verify", "--link", str(work / "note.c"),
                        "--random", "2000", "-o", str(work / "ret_div_sse.c")]) == 0


LOOP_KERNELS = {  # mathlib/loops/*.c: varying trip counts, exits and loops under the tail's entry mask
    "fmodf_bits": ("float", [("x", "float"), ("y", "float")]),
    "gcd": ("unsigned", [("a", "unsigned"), ("b", "unsigned")]),
    "mandelbrot": ("int", [("cr", "float"), ("ci", "float")]),
    "nested": ("int", [("n", "int")]),
    "newton_sqrt": ("float", [("a", "float")]),
    "two_exits": ("int", [("start", "int"), ("step", "int")]),
}


@pytest.mark.parametrize("target", isas_once_daily("test_array_wrapper_loop_kernels", ["sse4.1", "avx512"]))
def test_array_wrapper_loop_kernels(work: Path, target: str) -> None:
    """The wrappers of the loop kernels for every n in 0..67 (the tail runs the masked core, whose
    loops start from the entry mask), bit-exact against the scalar functions."""
    tag = target.replace(".", "")
    lines = ["#include <stdint.h>", "#include <stdio.h>", "#include <stdlib.h>", "#include <string.h>", RANDOM_C,
             c_array("E32", "uint32_t", f32_edges()), "static long bad, checked;"]
    body = ["int main(void)", "{", "    for (size_t n = 0; n <= 67; n++) {"]
    srcs = []
    for name, (ret, params) in LOOP_KERNELS.items():
        src = ROOT / "mathlib/loops" / f"{name}.c"
        c, _ = expand(src, target, work / f"{name}_{tag}_w.c", "--abi", "--wrapper", "array")
        srcs += [c, src]
        lines.append(f"{ret} {name}({', '.join(f'{t} {p}' for p, t in params)});")
        lines.append(f"void {name}_array({ret} *, {', '.join(f'const {t} *' for p, t in params)}, size_t);")
        body.append("        {")
        for p, t in params:
            body.append(f"            {t} in_{p}[68];")
            body.append(f"            for (size_t i = 0; i < n; i++) {{ uint32_t b = rng() & 1 ? E32[rng() % "
                        f"(sizeof E32 / sizeof E32[0])] : (uint32_t)rng(); memcpy(&in_{p}[i], &b, 4); }}")
        body.append(f"            {ret} want[68], got[68];")
        args = ", ".join(f"in_{p}[i]" for p, _ in params)
        body.append(f"            for (size_t i = 0; i < n; i++) want[i] = {name}({args});")
        body.append(f"            {name}_array(got, {', '.join(f'in_{p}' for p, _ in params)}, n);")
        body.append("            for (size_t i = 0; i < n; i++, checked++)")
        body.append(f"                if (memcmp(&want[i], &got[i], sizeof got[i]) && bad++ < 10) "
                    f"printf(\"{name} n=%zu element %zu\\n\", n, i);")
        body.append("        }")
    body += ["    }", '    printf("%ld checked, %ld mismatches\\n", checked, bad);', "    return bad != 0;", "}"]
    harness = work / f"loops_w_{tag}.c"
    harness.write_text("\n".join(lines + body) + "\n")
    prog = work / f"loops_w_{tag}"
    run(["gcc", *CFLAGS, "-Wno-unknown-pragmas", *X86[target][0], harness, *srcs, "-lm", "-o", prog])
    skip_run_unless_host(target)
    out = run([prog]).stdout
    assert out.strip() == f"{len(LOOP_KERNELS) * sum(range(68))} checked, 0 mismatches", out


def test_examples_build_and_run(tmp_path: Path) -> None:
    """examples/: make check builds the three programs, runs them (0 differences) and lists the
    variants the plain loop calls."""
    ex = tmp_path / "examples"
    shutil.copytree(ROOT / "examples", ex, ignore=shutil.ignore_patterns("gen", "direct", "simd_loop", "array"))
    out = run(["make", "-s", "-C", ex, "check", f"EXPAND=PYTHONPATH={ROOT} {sys.executable} -m expand.cli"]).stdout
    assert len(re.findall(r", 0 (values )?differ from the scalar tonemap", out)) == 4, out
    assert "_ZGVdN8v_tonemap" in out and "_ZGVbN4v_tonemap" in out, out


def test_generated_names_do_not_clash_with_parameters(work: Path) -> None:
    """Parameters named like the wrappers' locals (r, on, i, l, n, result, mask) still compile."""
    src = work / "clash.c"
    src.write_text("#pragma omp declare simd linear(i)\n"
                   "float clash(float r, float on, int i, double l, int n, float result, float mask)\n"
                   "{ return r * on + (float)i + (float)l + (float)n + result * mask; }\n")
    for isa in X86:
        c, h = expand(src, isa, work / f"clash_{isa.replace('.', '')}.c", "--abi", "--wrapper", "array")
        run(["gcc", *CFLAGS, *X86[isa][0], "-c", c, "-o", work / "clash.o"])
        run(["gcc", *CFLAGS, *X86[isa][0], "-fopenmp-simd", "-x", "c", "-c", h, "-o", work / "clash_h.o"])
