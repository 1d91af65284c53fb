"""mathlib's vector libm and calls of libm functions in user code (issue 10, second part).

* The library (``mathlib.libm``) builds for every ISA (here the parts the tests use, once per
  session): every global symbol is ``_ZGV*``, ``_Exp_*`` or ``__expandm_*`` (glibc's tables and
  error helpers renamed, so nothing clashes with libm.a); its header compiles for every target.
* Each function of the library, called through its AVX2 entry point, equals the scalar glibc source
  bit for bit (the verifier, edge + random inputs).
* GCC calls it like libmvec: a plain loop over ``logf`` compiled with ``gcc -O3 -fopenmp-simd -mavx2``
  against ``expandm.h`` calls ``_ZGVdN8v_logf`` (and ``_ZGVbN4v_logf`` for the tail: the ifunc
  dispatcher), and its results equal glibc's ``logf`` source compiled here, bit for bit.
* ``--vector-math=expand`` (the default): our shading kernel (``powf``, ``sqrtf``, ``floorf``,
  if/else) expands with no per-lane call on any ISA and verifies bit-exact on all seven (NEON and
  AltiVec under qemu); wider gangs call the library once per register.
* ``libmvec``/``sleef``: the output calls their functions and ``--verify`` checks them in ULP mode;
  the ULP distance itself against hand-computed cases.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hostrun import assert_verified, skip_if_cli_not_run, skip_run_unless_host

from emit import ISAS, get_isa
from emit.generic import Generic
from expand import vecmath
from expand.check.verify import _ULP_CODE, Param, verify
from expand.cli import main as expand_main
from expand.driver import expand_module
from expand.ir import types as T
from frontends.pycparser_frontend import read_file
from mathlib import libm

ROOT = Path(__file__).resolve().parent.parent
SHADE = ROOT / "mathlib" / "kernels" / "shade.c"
QEMU_ISAS = ("neon", "altivec")
#: the library's first 14 functions (issue 10); tests/test_libm_functions.py checks the others
ISSUE10 = [f for f in vecmath.EXPANDM_FUNCTIONS if f not in libm.GLIBC_FUNCTIONS]
#: the parts of the library the tests use: "<arch>/<isa>" -> functions
PLAN = {
    **{f"x86_64/{i}": ["logf", "powf"] for i in ("sse2", "sse4.1", "avx512")},
    "x86_64/avx2": ISSUE10,
    "x86_64/generic": ["powf", "floorf", "sqrtf"],
    "aarch64/neon": ["powf"],
    "aarch64/sve": ["powf"],
    "ppc64le/altivec": ["powf"],
    **({"riscv64/rvv": ["powf", "floorf", "sqrtf"]} if shutil.which("clang-16") else {}),  # (else test_rvv.py skips)
}
SYMBOL = re.compile(r"_ZGV[bcden][NM]\d+[vul]+_\w+|_Exp_\w+|__expandm_\w+")


def missing_tools() -> list[str]:
    need = ["gcc", "aarch64-linux-gnu-gcc", "powerpc64le-linux-gnu-gcc", "qemu-aarch64", "qemu-ppc64le"]
    return [t for t in need if shutil.which(t) is None]


def run(cmd: list, **kw) -> subprocess.CompletedProcess:
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=600, **kw)
    assert p.returncode == 0, f"$ {' '.join(map(str, cmd))}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    return p


@pytest.fixture(scope="session")
def lib(tmp_path_factory) -> Path:
    assert not missing_tools(), f"needs {missing_tools()} (see tests/setup-and-run.sh)"
    return libm.build(tmp_path_factory.mktemp("expandm"), PLAN)


# ------------------------------------------------------------------ the library


@pytest.mark.slow
def test_archives_define_only_their_own_names(lib: Path) -> None:
    for arch in ("x86_64", "aarch64", "ppc64le"):
        nm = libm.tool(libm.arch_cc(arch), "nm")
        vec = run([nm, "-g", "--defined-only", "-P", lib / "lib" / arch / "libexpandm.a"]).stdout
        names = {ln.split()[0] for ln in vec.splitlines() if ln.strip() and not ln.endswith(":")}
        assert names and all(SYMBOL.fullmatch(n) for n in names), sorted(n for n in names if not SYMBOL.fullmatch(n))
        assert "__expandm_powf_log2_data" in names and "__expandm_math_oflowf" in names
        tag = {"aarch64": "neon", "ppc64le": "altivec"}.get(arch, "avx2")
        assert f"_Exp_powf_{tag}_masked" in names
        undef = run([nm, "-u", lib / "lib" / arch / "libexpandm.a"]).stdout.split()
        assert not [u for u in undef if u.startswith("__math_") or u.endswith("_data") and "expandm" not in u]
        scalar = run([nm, "-g", "--defined-only", "-P", lib / "lib" / arch / "libexpandm_scalar.a"]).stdout
        have = {ln.split()[0] for ln in scalar.splitlines() if ln.strip() and not ln.endswith(":")}
        assert have == {f for u, fs in PLAN.items() if u.startswith(arch) for f in fs}
    x86 = run(["nm", "-g", "--defined-only", "-P", lib / "lib/x86_64/libexpandm.a"]).stdout
    for name in ("_ZGVbN4v_logf", "_ZGVbM4v_logf", "_ZGVdN8v_logf", "_ZGVcN8v_logf", "_ZGVeN16v_logf",
                 "_ZGVdN8vv_powf", "_Exp_logf_sse2", "_Exp_logf_sse41_masked", "_Exp_floorf_generic"):
        assert re.search(rf"^{name} [TiI] ", x86, re.M), name
    manifest = json.loads((lib / "expandm.json").read_text())
    assert manifest["units"]["x86_64/avx2"]["functions"] == ISSUE10
    assert manifest["archives"]["aarch64"]["renamed"]["__powf_log2_data"] == "__expandm_powf_log2_data"
    assert libm.ensure(["avx2"], ["logf"], out=lib) == lib  # already there: nothing to build


def test_second_directory_takes_the_units_from_the_store(tmp_path: Path, monkeypatch) -> None:
    """A unit (and glibc's scan of its architecture) built into one directory is copied, not built
    again, into the next one built for the same code: the archives are the same bytes; with
    EXPAND_LIBM_STORE=off a build expands and compiles everything itself."""
    monkeypatch.setenv("EXPAND_CACHE_DIR", str(tmp_path / "cache"))
    plan = {"x86_64/avx2": ["expf", "sqrtf"]}
    first = libm.build(tmp_path / "first", plan)
    st = libm.store()
    assert st is not None and st.parent == tmp_path / "cache"
    for rel in ("obj/x86_64/glibc-scan.json", "obj/x86_64/avx2/expf.o", "obj/x86_64/avx2/expf.json",
                "src/x86_64/avx2/expf.c", "obj/x86_64/scalar/expf.o", "obj/x86_64/avx2/sqrtf.o"):
        assert (st / rel).is_file(), rel

    def no_expand(*a, **kw):
        raise AssertionError("expanded again")

    monkeypatch.setattr(libm, "expand_module", no_expand)
    monkeypatch.setattr(libm.source_tree, "scan", no_expand)
    second = libm.build(tmp_path / "second", plan)
    for name in ("libexpandm.a", "libexpandm_scalar.a"):
        assert (first / "lib/x86_64" / name).read_bytes() == (second / "lib/x86_64" / name).read_bytes(), name
    assert json.loads((first / "expandm.json").read_text())["units"] == \
        json.loads((second / "expandm.json").read_text())["units"]
    monkeypatch.setenv("EXPAND_LIBM_STORE", "off")
    assert libm.store() is None
    with pytest.raises(AssertionError, match="expanded again"):
        libm.build(tmp_path / "third", plan)


def test_older_code_versions_leave_the_cache(tmp_path: Path, monkeypatch) -> None:
    """The store of another code version goes once it is neither among the 3 most recently used nor used
    in the last 2 days; other kinds of directories (the library directories, verify's headers) stay."""
    import os
    import time

    from expand import cache
    root = tmp_path / "cache"
    monkeypatch.setenv("EXPAND_CACHE_DIR", str(root))
    monkeypatch.setattr(cache, "_USED", set())
    now = time.time()
    ages = {"a1": 30, "a2": 20, "a3": 10, "a4": 5, "a5": 1, "a6": 0.5}  # days since last use
    for key, days in ages.items():
        for kind in ("expandm-units", "expandm"):
            d = root / f"{kind}-{key}"
            (d / "obj").mkdir(parents=True)
            os.utime(d, (now - days * 86400, now - days * 86400))
    (root / "verify-pch-0123").mkdir()
    st = libm.store()
    assert st is not None and st.is_dir() is False and st.parent == root
    left = sorted(d.name for d in root.iterdir())
    # units: a6, a5 (used in the last 2 days) and a4 (3 newest) stay; a1-a3 go; nothing else is touched
    assert left == sorted(["expandm-units-a4", "expandm-units-a5", "expandm-units-a6", "verify-pch-0123",
                           *(f"expandm-{k}" for k in ages)]), left
    assert libm.store() == st  # once per process
    gone = cache.prune("expandm", root / "expandm-ffff")
    assert sorted(d.name for d in gone) == ["expandm-a1", "expandm-a2", "expandm-a3"]


@pytest.mark.slow
@pytest.mark.parametrize("target", ["sse2", "avx2", "avx512", "avx1", "aarch64", "ppc64le"])
def test_header_compiles_for_every_target(lib: Path, tmp_path: Path, target: str) -> None:
    flags = {"sse2": ["gcc"], "avx2": ["gcc", "-mavx2"], "avx512": ["gcc", "-mavx512f"], "avx1": ["gcc", "-mavx"],
             "aarch64": ["aarch64-linux-gnu-gcc"], "ppc64le": ["powerpc64le-linux-gnu-gcc", "-mvsx"]}[target]
    src = tmp_path / "h.c"
    src.write_text('#include <math.h>\n#include "expandm.h"\nfloat f(float x) { return logf(x) + powf(x, x); }\n')
    p = subprocess.run([*flags, "-O2", "-fopenmp-simd", "-Wall", "-Werror", f"-I{lib / 'include'}", "-c", src,
                        "-o", tmp_path / "h.o"], capture_output=True, text=True)
    if target == "avx1":  # GCC would call the 'c' variants, which are AVX2 code
        assert p.returncode != 0 and "EXPAND_ALLOW_AVX1" in p.stderr
    else:
        assert p.returncode == 0, p.stderr


@pytest.mark.slow
def test_header_declares_what_gcc_should_call(lib: Path) -> None:
    h = (lib / "include" / "expandm.h").read_text()
    # const as under -fno-math-errno, unless EXPANDM_MATH_ERRNO (test_gcc_loop_calls_our_logf_bit_exact)
    assert re.search(r"#pragma omp declare simd\n#endif\nEXPANDM_ERRNO_CONST float logf\(float x\);", h)
    assert "float floorf(float x);" not in h  # GCC's own vroundps is faster: no declare simd
    assert "__m256 _ZGVdN8v_logf(__m256 x);" in h and "__m512 _Exp_powf_avx512_masked(__mmask16 _exp_mask" in h
    assert "float32x4_t _ZGVnN4vv_powf(float32x4_t x, float32x4_t y);" in h
    assert "__vector float _Exp_powf_altivec(__vector float x, __vector float y);" in h


@pytest.mark.slow
@pytest.mark.parametrize("name", ISSUE10)
def test_every_function_through_the_library_equals_its_source(lib: Path, name: str) -> None:
    isa = get_isa("avx2")
    meta = json.loads((lib / "obj" / "x86_64" / "avx2" / f"{name}.json").read_text())
    types = {"f32": T.FLOAT, "i32": T.INT}
    params = [Param(n, types[k]) for n, _, k in meta["params"]]
    vname = vecmath.expandm_symbol(name, isa)
    decl = (f"#include <immintrin.h>\nextern {isa.vtype(meta['ret'])} {vname}("
            f"{', '.join(isa.vtype(k) for _, _, k in meta['params'])});\n")
    kw = libm.reference(lib, "x86_64", libm.sources()[name])
    kw["link_files"] = [*kw["link_files"], lib / "lib/x86_64/libexpandm.a"]
    rep = verify(**kw, vector_c=decl, vector_name=vname, params=params, ret=types[meta["ret"]], isa=isa,
                 n_random=20_000)
    assert_verified(rep)


# ------------------------------------------------------------------ GCC's vectorizer calls it


LOOPS = r"""#include <math.h>
#include "expandm.h"
void loop_plain(float *restrict y, const float *restrict x, int n)
{
    for (int i = 0; i < n; i++)
        y[i] = logf(x[i]);
}
void loop_simd(float *restrict y, const float *restrict x, int n)
{
#pragma omp simd
    for (int i = 0; i < n; i++)
        y[i] = logf(x[i]);
}
"""

MAIN = r"""#include <stdint.h>
#include <stdio.h>
#include <string.h>
float ref_logf(float);
void loop_plain(float *restrict y, const float *restrict x, int n);
void loop_simd(float *restrict y, const float *restrict x, int n);
static uint64_t s = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void) { uint64_t z = (s += 0x9E3779B97F4A7C15ull); z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
                            z = (z ^ (z >> 27)) * 0x94D049BB133111EBull; return (uint32_t)(z ^ (z >> 31)); }
#define N 4101  /* 512 gangs of 8, then 4 for _ZGVbN4v_logf and 1 scalar */
static float x[N], y[N];
int main(void)
{
    long bad = 0, total = 0;
    for (int round = 0; round < 120; round++) {
        for (int i = 0; i < N; i++) {
            uint32_t b = round < 20 ? (uint32_t)(round * N + i) * 0x000FFFF1u : rnd();  /* edges: every exponent */
            static const uint32_t e[12] = {0, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7fa00000u,
                                           1, 0x807fffffu, 0x3f800000u, 0xbf800000u, 0x3f7fffffu, 0x3f800001u};
            if (round == 0 && i < 12)
                b = e[i];
            memcpy(&x[i], &b, 4);
        }
        for (int v = 0; v < 2; v++) {
            (v ? loop_simd : loop_plain)(y, x, N);
            for (int i = 0; i < N; i++) {
                float r = ref_logf(x[i]);
                uint32_t a, c;
                memcpy(&a, &r, 4);
                memcpy(&c, &y[i], 4);
                total++;
                if (a != c && bad++ < 5) printf("x=%08x ref %08x loop %08x\n", (unsigned)(round * N + i), a, c);
            }
        }
    }
    printf("%ld of %ld differ\n", bad, total);
    return bad != 0;
}
"""


@pytest.mark.slow
def test_gcc_loop_calls_our_logf_bit_exact(lib: Path, tmp_path: Path) -> None:
    (tmp_path / "loops.c").write_text(LOOPS)
    (tmp_path / "main.c").write_text(MAIN)
    def calls(flags: list[str], obj: str) -> dict[str, str]:
        run(["gcc", "-O3", "-fopenmp-simd", "-mavx2", "-Wall", *flags, f"-I{lib / 'include'}", "-c", "loops.c",
             "-o", obj], cwd=tmp_path)
        dis = run(["objdump", "-dr", obj], cwd=tmp_path).stdout
        bodies = {}
        for fn in ("loop_plain", "loop_simd"):
            body = dis[dis.index(f"<{fn}>:"):]
            bodies[fn] = body[:body.find("\n\n")]
        return bodies

    # the literal command: the header declares logf const (as -fno-math-errno would), so both loops call it
    for flags in ([], ["-fno-math-errno"]):
        for fn, body in calls(flags, f"loops{len(flags)}.o").items():
            assert "_ZGVdN8v_logf" in body and "_ZGVbN4v_logf" in body, (flags, fn, body[-2000:])
    # EXPANDM_MATH_ERRNO keeps math.h's contract: logf may set errno, only the #pragma omp simd loop calls
    kept = calls(["-DEXPANDM_MATH_ERRNO"], "kept.o")
    assert "_ZGVdN8v_logf" in kept["loop_simd"] and "_ZGVdN8v_logf" not in kept["loop_plain"]
    assert "_ZGVdN8v_logf" in calls(["-DEXPANDM_MATH_ERRNO", "-fno-math-errno"], "kept1.o")["loop_plain"]
    # the reference: glibc's logf source, compiled here on its own (its internal names renamed apart)
    flt32 = libm.glibc_flt32_dir()
    ren = ["-D__logf=ref_logf", "-D__logf_data=ref_logf_data", *[f"-D__math_{n}f=ref_{n}f" for n in
                                                                 ("oflow", "uflow", "may_uflow", "divzero", "invalid")]]
    objs = []
    for src in ("e_logf.c", "e_logf_data.c", "math_errf.c"):
        objs.append(tmp_path / f"ref_{src}.o")
        run(["gcc", "-O2", "-ffp-contract=off", f"-I{libm.shim_dir()}", f"-I{flt32}", *ren, "-c", flt32 / src, "-o",
             objs[-1]])
    run(["gcc", "-O2", "-c", "main.c", "-o", "main.o"], cwd=tmp_path)
    run(["gcc", "main.o", "loops0.o", *objs, lib / "lib/x86_64/libexpandm_scalar.a", lib / "lib/x86_64/libexpandm.a",
         "-lm", "-o", "t"], cwd=tmp_path)
    p = run([tmp_path / "t"])
    assert "0 of 984240 differ" in p.stdout, p.stdout


# ------------------------------------------------------------------ --vector-math=expand in user code


def _code(text: str) -> str:
    """The C text without comments (the scalar source lines heading each group)."""
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


@pytest.mark.slow
@pytest.mark.parametrize("isa_name", list(ISAS))
def test_shade_kernel_no_per_lane_call_and_bit_exact(lib: Path, tmp_path: Path, isa_name: str, capsys) -> None:
    isa = get_isa(isa_name)
    vm = vecmath.VectorMath(["expand"], lib)
    res = expand_module(read_file(str(SHADE), SHADE.read_text(), cc=isa.preprocessor), isa, vector_math=vm)
    code = _code(res.text)
    assert "for (int lane" not in code and "_lanes" not in code
    assert not re.search(r"\b(powf|sqrtf|floorf|__builtin_\w+)\s*\(", code), code
    tag = vecmath.isa_tag(isa)
    assert f"_Exp_powf_{tag}_masked(" in code  # under the if: inactive lanes compute nothing
    called = {n for (_, n) in vm.used}
    # (generic and rvv, the generic table's C, have no floor or sqrt but the library's)
    assert called == ({"powf", "floorf", "sqrtf"} if isinstance(isa, Generic) else {"powf"})
    out = tmp_path / "shade.c"
    n = "20000" if isa_name in QEMU_ISAS else "60000"
    rc = expand_main([str(SHADE), "--isa", isa_name, "--vector-math-lib", str(lib), "-o", str(out), "--verify",
                      "--random", n])
    cap = capsys.readouterr()
    skip_if_cli_not_run(rc, cap.err)
    text = cap.out
    assert rc == 0 and re.search(r": \d+ inputs .*, 0 mismatches$", text.strip()), text


@pytest.mark.slow
@pytest.mark.parametrize("isa_name,lanes", [("avx2", 16), ("sse4.1", 8), ("neon", 8), ("generic", 8)])
def test_wider_gangs_call_once_per_register(lib: Path, tmp_path: Path, isa_name: str, lanes: int, capsys) -> None:
    isa = get_isa(isa_name, lanes)
    res = expand_module(read_file(str(SHADE), SHADE.read_text(), cc=isa.preprocessor), isa,
                        vector_math=vecmath.VectorMath(["expand"], lib))
    code = _code(res.text)
    if isa_name == "generic":  # one vector type per gang: a gang of 8 has no library call of 4 (per lane)
        assert "for (int lane" in code and "_Exp_powf_generic" not in code
    else:
        tag = vecmath.isa_tag(isa)
        assert re.search(rf"_Exp_powf_{tag}_masked\(a0\.v\[1\], a1\.v\[1\], a2\.v\[1\]\)", code), code
        assert "for (int lane" not in code
    rc = expand_main([str(SHADE), "--isa", isa_name, "--lanes", str(lanes), "--vector-math-lib", str(lib), "--verify",
                      "--random", "10000", "-o", str(tmp_path / "w.c")])
    text = capsys.readouterr().out
    assert rc == 0 and "0 mismatches" in text, text


@pytest.mark.slow
def test_none_and_own_functions_stay_per_lane(lib: Path, tmp_path: Path, capsys) -> None:
    src = tmp_path / "own.c"
    src.write_text("#include <math.h>\nfloat powf(float x, float y) { return x * y; }\n"
                   "float k(float x) { return powf(x, 2.0f) + logf(x); }\n")
    out = tmp_path / "own_out.c"
    assert expand_main([str(src), "--isa", "avx2", "--functions", "k", "--vector-math-lib", str(lib), "-o",
                        str(out)]) == 0
    code = _code(out.read_text())
    assert "_Exp_logf_avx2(" in code and "_Exp_powf" not in code  # the file's own powf is not libm's
    assert expand_main([str(SHADE), "--isa", "avx2", "--vector-math", "none", "-o", str(out)]) == 0
    assert "for (int lane" in out.read_text() and "_Exp_powf" not in out.read_text()
    assert expand_main([str(SHADE), "--isa", "avx2", "--vector-math", "bogus", "-o", str(out)]) == 2
    assert expand_main([str(SHADE), "--vector-math-lib", str(tmp_path), "-o", str(out)]) == 2  # no library there
    capsys.readouterr()


# ------------------------------------------------------------------ libmvec and SLEEF: ULP mode

# (Only operations that keep a ULP bound: a sum of two results can cancel, and the difference of the
# sum can then be any number of ULP.)
PEERS = r"""#include <math.h>
float k(float x) { if (x > 1.0f) return logf(x) * 0.5f; return powf(x, 3.5f); }
float s(float x) { return sinf(x); }
"""


@pytest.mark.parametrize("mode,isa_name,names", [
    ("libmvec", "avx2", ["_ZGVdN8v_logf(", "_ZGVdN8vv_powf(", "_ZGVdN8v_sinf("]),
    ("libmvec", "sse4.1", ["_ZGVbN4v_logf(", "_ZGVbN4vv_powf("]),
    ("sleef", "avx512", ["Sleef_logf16_u10avx512f(", "Sleef_powf16_u10avx512f(", "Sleef_sinf16_u10avx512f("]),
    ("sleef", "sse2", ["Sleef_logf4_u10sse2(", "Sleef_powf4_u10sse2("]),
    # (ours where the library has the function, SLEEF for the rest: fdimf, exact in SLEEF, so bound 0)
    ("expand,sleef", "avx2", ["_Exp_logf_avx2_masked(", "_Exp_powf_avx2_masked(", "Sleef_fdimf8_avx2("]),
])
@pytest.mark.slow
def test_libmvec_and_sleef_verify_in_ulp_mode(lib: Path, tmp_path: Path, mode: str, isa_name: str, names: list[str],
                                              capsys) -> None:
    src = tmp_path / "peers.c"
    src.write_text(PEERS.replace("sinf(x)", "fdimf(x, 0.5f)") if mode == "expand,sleef" else PEERS)
    out = tmp_path / "peers_out.c"
    rc = expand_main([str(src), "--isa", isa_name, "--vector-math", mode, "--vector-math-lib", str(lib), "-o",
                      str(out), "--verify", "--random", "30000"])
    cap = capsys.readouterr()
    text = cap.out
    code = _code(out.read_text())
    for n in names:
        assert n in code, n
    # no per-lane call (k's two mathlib calls may set errno: when one did, a loop from the highest lane
    # down calls it again with one lane on, to find which: expand/passes/global_writes.py)
    assert "for (int lane = 0;" not in code
    skip_if_cli_not_run(rc, cap.err)
    bound = 5 if mode == "libmvec" else 0 if mode == "expand,sleef" else 2
    lines = [ln for ln in text.splitlines() if ln.startswith("verify:")]
    want = rf", 0 mismatches, largest difference [0-{bound}] ULP \(bound {bound}\)$"
    assert len(lines) == 2 and all(re.search(want, ln) for ln in lines), text
    assert rc == 0


def test_ulp_mode_catches_what_the_bound_excludes(tmp_path: Path) -> None:
    src = tmp_path / "one.c"
    src.write_text("#include <math.h>\nfloat k(float x) { return logf(x); }\n")
    isa = get_isa("avx2")
    vm = vecmath.VectorMath(["libmvec"])
    res = expand_module(read_file(str(src), src.read_text()), isa, vector_math=vm)
    needs = vm.link(isa)
    assert needs.libs == ["mvec"] and needs.ulp_bound == 5 and not needs.link_files
    (e,) = res.functions
    kw = dict(scalar_sources=[src], scalar_name="k", vector_c=res.text, vector_name=e.vector_name,
              params=[Param("x", T.FLOAT)], ret=T.FLOAT, isa=isa, libs=("mvec", "m"), n_random=20_000)
    rep = verify(**kw, ulp_bound=5)
    assert rep.ok and rep.max_ulp is not None and 1 <= rep.max_ulp <= 5, rep.summary
    strict = verify(**kw, ulp_bound=0)
    assert not strict.ok and strict.mismatches > 0 and "by 1 ULP" in strict.details, strict.summary
    exact = verify(**kw)  # bit for bit: those differences and any of NaN payloads
    assert exact.mismatches >= strict.mismatches


ULP_CASES = r"""#include <stdint.h>
#include <stdio.h>
%s
int main(void)
{
    struct { int size; uint64_t a, b, want; } c[] = {
        {4, 0x3f800000, 0x3f800001, 1}, {4, 0x3f800001, 0x3f800000, 1}, {4, 0x3f800000, 0x3f7fffff, 1},
        {4, 0x00000000, 0x80000000, 1}, {4, 0x00000001, 0x80000001, 2}, {4, 0x7fc00000, 0xffa00001, 0},
        {4, 0x7fc00000, 0x3f800000, UINT64_MAX}, {4, 0x7f800000, 0x7f800000, 0},
        {4, 0x7f800000, 0x7f7fffff, UINT64_MAX}, {4, 0x7f800000, 0xff800000, UINT64_MAX},
        {4, 0x40000000, 0x3f800000, 0x800000}, {4, 0xbf800000, 0xbf800003, 3},
        {8, 0x3ff0000000000000, 0x3ff0000000000002, 2}, {8, 0x8000000000000000, 0x0000000000000000, 1},
        {8, 0x7ff8000000000000, 0x7ff0000000000001, 0}, {8, 0x7ff0000000000000, 0x3ff0000000000000, UINT64_MAX},
        {8, 0x0000000000000002, 0x8000000000000001, 3},
    };
    int bad = 0;
    for (unsigned i = 0; i < sizeof c / sizeof c[0]; i++)
        if (vfy_ulp(c[i].size, c[i].a, c[i].b) != c[i].want) { printf("case %%u\n", i); bad++; }
    (void)vfy_ulp_seen;
    printf("%%d bad\n", bad);
    return bad;
}
"""


def test_ulp_distance(tmp_path: Path) -> None:
    (tmp_path / "u.c").write_text(ULP_CASES % _ULP_CODE)
    run(["gcc", "-O2", "-Wall", "-Werror", "u.c", "-o", "u"], cwd=tmp_path)
    assert "0 bad" in run([tmp_path / "u"]).stdout


def test_peer_names_exist() -> None:
    """The libmvec and SLEEF names the tables give are the libraries' own (nm, sleef.h)."""
    mvec = run(["nm", "-D", "--defined-only", "/lib/x86_64-linux-gnu/libmvec.so.1"]).stdout
    have = {re.sub(r"@.*", "", ln.split()[-1]) for ln in mvec.splitlines() if ln.strip()}
    for name in vecmath.LIBMVEC_FUNCTIONS:
        k = "f32" if name.endswith("f") and name[:-1] in vecmath.LIBMVEC_FUNCTIONS else "f64"
        for isa_name in ("sse2", "avx2", "avx512"):
            f = vecmath.VectorMath(["libmvec"]).lookup(get_isa(isa_name), name, k, vecmath.LIBM[name][1])
            assert f is not None and f.symbol in have, (name, isa_name)
    sleef_h = Path("/usr/include/x86_64-linux-gnu/sleef.h").read_text()
    for base in vecmath.SLEEF_FUNCTIONS:
        for name, k in ((base + "f", "f32"), (base, "f64")):
            for isa_name in ("sse2", "sse4.1", "avx2", "avx512"):
                f = vecmath.VectorMath(["sleef"]).lookup(get_isa(isa_name), name, k, vecmath.LIBM[name][1])
                assert f is not None and re.search(rf"\b{f.symbol}\(", sleef_h), (name, isa_name)


def test_glibc_ulp_table_is_glibcs() -> None:
    """vecmath.GLIBC_ULP (the scalar reference's own error, part of the ULP mode's bound) is what glibc's
    libm-test-ulps files list for x86_64, aarch64 and POWER: every entry above 1 ULP, round to nearest."""
    from mathlib.corpus import glibc_flt32_dir
    from mathlib.source_tree import ensure_glibc_tree, glibc_root

    tree = ensure_glibc_tree(glibc_root(glibc_flt32_dir()))
    names = set(vecmath.LIBMVEC_FUNCTIONS) | {n + s for n in vecmath.SLEEF_FUNCTIONS for s in ("", "f")}
    listed: dict[str, int] = {}
    for arch in ("x86_64/fpu", "aarch64", "powerpc/fpu"):
        text = (tree / "sysdeps" / arch / "libm-test-ulps").read_text()
        for m in re.finditer(r'Function: "(\w+)":\n((?:\w+: \d+\n)+)', text):
            for line in m.group(2).splitlines():
                t, v = line.split(": ")
                name = m.group(1) + ("f" if t == "float" else "")
                if t in ("float", "double") and name in names:
                    listed[name] = max(listed.get(name, 0), int(v))
    assert {n: v for n, v in listed.items() if v > 1} == vecmath.GLIBC_ULP
    assert listed["cbrt"] == 4 and vecmath.verify_bound(1.0, "cbrt") == 5  # SLEEF u10 against glibc's cbrt
    assert vecmath.verify_bound(1.0, "logf") == 2 and vecmath.verify_bound(0.0, "cbrt") == 0


@pytest.mark.slow
def test_libm_command_line(lib: Path, tmp_path: Path) -> None:
    p = run([sys.executable, "-m", "mathlib.libm", "--out", lib, "--arch", "x86_64", "--isa", "generic", "--functions",
             "floorf"], cwd=ROOT)
    assert "include/expandm.h" in p.stdout and (lib / "lib/x86_64/libexpandm.a").is_file()
    bad = subprocess.run([sys.executable, "-m", "mathlib.libm", "--out", tmp_path, "--functions", "lgammaf"], cwd=ROOT,
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "not in the library" in bad.stderr


# ------------------------------------------------------------------ libexpandm.a and glibc's libmvec

WHOSE = """#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <immintrin.h>
extern __m256 _ZGVdN8v_logf(__m256);
extern __m256 _Exp_logf_avx2(__m256);
int main(void)
{
    Dl_info d;
#ifdef ALSO_EXP
    volatile __m256 r = _Exp_logf_avx2(_mm256_set1_ps(2.0f));
    (void)r;
#endif
    printf("%s\\n", dladdr((void *)&_ZGVdN8v_logf, &d) && d.dli_fname ? d.dli_fname : "?");
    return 0;
}
"""


@pytest.mark.slow
def test_link_order_decides_whose_libmvec_names_a_program_calls(lib: Path, tmp_path: Path) -> None:
    """libexpandm.a defines libmvec's names (_ZGVdN8v_logf), so linked before -lmvec it replaces glibc's
    functions silently; -lmvec first keeps glibc's, unless the program also calls the same function's
    _Exp_ entry point (that pulls in the object defining both). README says so."""
    src = tmp_path / "whose.c"
    src.write_text(WHOSE)
    archive = lib / "lib" / "x86_64" / "libexpandm.a"
    cases = {"ours_first": ([archive, "-lmvec"], []), "mvec_first": (["-lmvec", archive], []),
             "mvec_first_and_exp": (["-lmvec", archive], ["-DALSO_EXP"])}
    exes = {}
    for tag, (order, defs) in cases.items():
        exe = tmp_path / tag
        run(["gcc", "-O2", "-mavx2", "-fPIE", "-pie", *defs, src, *order, "-o", exe])
        exes[tag] = exe
    skip_run_unless_host("avx2")
    where = {tag: run([exe]).stdout.strip() for tag, exe in exes.items()}
    assert Path(where["ours_first"]).name == "ours_first", where
    assert Path(where["mvec_first"]).name == "libmvec.so.1", where
    assert Path(where["mvec_first_and_exp"]).name == "mvec_first_and_exp", where
