"""The vector libm's glibc functions of issue 18 (mathlib/libm.py ``GLIBC_FUNCTIONS``: expf, sinf, atan2f,
hypotf, erff, ...), compiled with glibc's own headers and flags (``source_tree.glibc_flags``) and linked
with the companions ``nm`` finds:

* each, through its entry point in the library, equals its scalar glibc source (compiled by the verifier
  with the same flags, its companions as sources) bit for bit, errno included, on AVX2, SSE4.1, NEON and
  AltiVec (qemu): a sample, then all of them (the library rebuilt in full). The library takes minutes to
  build: the tests of it are ``slow``; the daily loop builds one function for one ISA
  (``test_a_library_of_one_function``);
* what the library leaves out of an architecture (expand's diagnostic, or glibc's flags do not compile
  the file there) is what ``expand.vecmath.EXPANDM_UNAVAILABLE`` says, with the diagnostic in the
  manifest, and ``--vector-math=expand`` does not call it there;
* the archives define only the library's three kinds of names (glibc's public aliases of a companion,
  ``expf`` in the e_expf.c that coshf calls, made local), the scalar archive one public name per
  function;
* expanded user code calls them (no per-lane call) and verifies; GCC's vectorizer calls the ``_ZGV``
  variants the header declares.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hostrun import assert_verified, skip_if_cli_not_run, skip_run_unless_host

from emit import get_isa
from expand import vecmath
from expand.check.verify import Param, verify
from expand.cli import main as expand_main
from expand.ir import types as T
from mathlib import libm

NEW = [f for f in vecmath.EXPANDM_FUNCTIONS if f in libm.GLIBC_FUNCTIONS]
#: the functions checked first (then all of them): a table-driven one, one with a
#: per-lane error helper, two arguments, and two calling other glibc functions (log10f: __ieee754_logf;
#: coshf: __ieee754_expf and __expm1f, from the companions)
SAMPLE = ["expf", "log10f", "sinf", "atan2f", "coshf"]  # (in the library's order)
#: (sse2 and avx512 too for what GCC's vectorizer calls: the header declares a function declare simd for
#: an architecture only when every variant GCC may call there is built)
LOOPED = ["sinf", "expf", "atan2f"]
#: (and hypotf on NEON, whose glibc headers have long double arms in constant conditionals)
#: (and sincosf, whose pointers the vector function ABI passes two ways, on every ISA with variants)
PLAN = {"x86_64/avx2": [*SAMPLE, "sincosf"], "x86_64/sse4.1": [*SAMPLE, "sincosf"],
        "aarch64/neon": [*SAMPLE, "sincosf", "hypotf"], "x86_64/sse2": [*LOOPED, "sincosf"],
        "x86_64/avx512": [*LOOPED, "sincosf"], "ppc64le/altivec": [*SAMPLE, "sincosf"]}
FULL = {**PLAN, "x86_64/avx2": NEW, "x86_64/sse4.1": NEW, "aarch64/neon": NEW, "ppc64le/altivec": NEW}
#: the ISAs each function is checked on (NEON and AltiVec under qemu); the SVE and RVV tables (qemu) in the
#: deep run (tests/conftest.py DEEP_CASES), each into a library of its own (``_full``)
CHECKED = ["avx2", "sse4.1", "neon", "altivec"]
SCALABLE = ["sve128", "sve", "sve512", "rvv", "rvv256"]
QEMU = ("neon", "altivec", *SCALABLE)
SYMBOL = re.compile(r"_ZGV[bcden][NM]\d+(?:v|u|l\d*)+_\w+|_Exp_\w+|__expandm_\w+")
TYPES = {"f32": T.FLOAT, "i32": T.INT, "f32*": T.Pointer(T.FLOAT), "void": T.VOID}


def run(cmd: list, **kw) -> subprocess.CompletedProcess:
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=600, **kw)
    assert p.returncode == 0, f"$ {' '.join(map(str, cmd))}\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    return p


@pytest.fixture(scope="session")
def lib(tmp_path_factory) -> Path:
    need = [t for t in ("gcc", "aarch64-linux-gnu-gcc", "qemu-aarch64", "powerpc64le-linux-gnu-gcc", "qemu-ppc64le")
            if shutil.which(t) is None]
    assert not need, f"needs {need} (see tests/setup-and-run.sh)"
    # (one directory for every xdist worker: libm.build locks it and builds what is missing)
    base = tmp_path_factory.getbasetemp()  # (an xdist worker's is popen-gwN inside the session's own)
    return libm.build((base.parent if base.name.startswith("popen-gw") else base) / "expandm-functions", PLAN)


def _full(lib: Path, isa_name: str = "avx2") -> Path:
    """The library with every function (FULL), or for a SCALABLE table every function for it alone."""
    if isa_name in SCALABLE:
        isa = get_isa(isa_name)
        return libm.build(lib.parent / f"expandm-functions-{isa_name}", {f"{isa.arch}/{isa_name}": NEW})
    return libm.build(lib, FULL)


def check(lib: Path, isa_name: str, name: str, n_random: int) -> None:
    """``name`` through ``_Exp_<name>_<isa>`` in the library equals its scalar source (the verifier)."""
    isa = get_isa(isa_name)
    meta_path = lib / "obj" / isa.arch / isa_name / f"{name}.json"
    if name in vecmath.EXPANDM_UNAVAILABLE.get(isa.arch, ()):
        assert not meta_path.exists() and (lib / "obj" / isa.arch / isa_name / f"{name}.missing").exists()
        pytest.skip(f"not in the library on {isa.arch}: {json.loads((lib / 'expandm.json').read_text())['missing']}"
                    f"[{isa.arch}/{isa_name}][{name}]")
    meta = json.loads(meta_path.read_text())
    vname = vecmath.expandm_symbol(name, isa)
    out = isa.emission()  # (the types and the load/store helpers the harness calls, as expand's outputs have them)
    for k in {meta["ret"], *(k for _, _, k in meta["params"])} - {"void"}:
        out.vtype(k.rstrip("*"))
        out.loadu(k.rstrip("*"), "p")
        out.storeu(k.rstrip("*"), "p", "v")
    decl = "".join(f"#include {h}\n" for h in ["<stdint.h>", *isa.headers]) + out.prelude() + (
        f"extern {libm.entry_type(isa, meta['ret'])} {vname}"
        f"({', '.join(libm.entry_type(isa, k) for _, _, k in meta['params'])});\n")
    kw = libm.reference(lib, isa.arch, libm.sources()[name])
    kw["link_files"] = [*kw["link_files"], lib / "lib" / isa.arch / "libexpandm.a"]
    rep = verify(**kw, vector_c=decl, vector_name=vname, params=[Param(n, TYPES[k]) for n, _, k in meta["params"]],
                 ret=TYPES[meta["ret"]], isa=isa, n_random=n_random)
    assert_verified(rep)
    assert rep.inputs > n_random


@pytest.mark.slow
@pytest.mark.parametrize("isa_name", CHECKED)
@pytest.mark.parametrize("name", SAMPLE)
def test_sample_equals_the_glibc_source(lib: Path, isa_name: str, name: str) -> None:
    check(lib, isa_name, name, 5_000 if isa_name in QEMU else 20_000)


@pytest.mark.slow
@pytest.mark.parametrize("isa_name", [*CHECKED, *SCALABLE])
@pytest.mark.parametrize("name", [f for f in NEW if f not in SAMPLE])
def test_every_function_equals_the_glibc_source(lib: Path, isa_name: str, name: str) -> None:
    check(_full(lib, isa_name), isa_name, name, 5_000 if isa_name in QEMU else 20_000)


@pytest.mark.slow
@pytest.mark.parametrize("isa_name", SCALABLE)
@pytest.mark.parametrize("name", SAMPLE)
def test_sample_equals_the_glibc_source_scalable(lib: Path, isa_name: str, name: str) -> None:
    check(_full(lib, isa_name), isa_name, name, 5_000)


# ------------------------------------------------------------------ what each architecture leaves out


@pytest.mark.slow
def test_left_out_where_expand_cannot_take_glibcs_headers(lib: Path) -> None:
    manifest = json.loads((lib / "expandm.json").read_text())
    # (at least the plan's: the slow tests build every function into the same directory)
    assert set(SAMPLE) <= set(manifest["units"]["x86_64/avx2"]["functions"])
    assert "x86_64/avx2" not in manifest["missing"]
    # (AArch64's glibc headers: __MATH_TG's long double arm in a constant conditional, never read)
    assert "aarch64/neon" not in manifest["missing"]
    assert {*SAMPLE, "hypotf"} <= set(manifest["units"]["aarch64/neon"]["functions"])
    # (POWER: include/time.h's static inline helpers, which no function calls, are never read)
    assert set(manifest["missing"].get("ppc64le/altivec", {})) <= vecmath.EXPANDM_UNAVAILABLE["ppc64le"]
    assert set(SAMPLE) <= set(manifest["units"]["ppc64le/altivec"]["functions"])
    # --vector-math=expand without a library directory asks the table: no call of what is not there
    vm = vecmath.VectorMath(["expand"])
    assert vm.lookup(get_isa("neon"), "sinf", "f32", ["f32"]) is not None
    assert vm.lookup(get_isa("neon"), "atanf", "f32", ["f32"]) is not None
    assert vm.lookup(get_isa("altivec"), "atanf", "f32", ["f32"]) is not None
    assert vm.lookup(get_isa("altivec"), "nearbyintf", "f32", ["f32"]) is None
    assert vm.lookup(get_isa("avx2"), "atanf", "f32", ["f32"]) is not None


@pytest.mark.slow
@pytest.mark.parametrize("isa_name", CHECKED)
def test_sincosf_equals_the_glibc_source(lib: Path, isa_name: str) -> None:
    """``_Exp_sincosf_<isa>(x, &s, &c)``: its outputs are gangs (EXPAND's convention)."""
    check(lib, isa_name, "sincosf", 5_000 if isa_name in QEMU else 20_000)


#: glibc's libmvec signatures of sincosf's variants (sysdeps/x86_64/fpu/svml_s_sincosf*_core*.S: the
#: pointers of ``vvv`` in 64-bit lanes, as many vectors of the family's integer width as they fill;
#: ``vl4l4``: one pointer to the lanes' consecutive elements), written here from glibc, not from expand:
#: ISA -> (compiler flags, [(name, simdlen, float vector bytes, pointer vector bytes or 0 for l4l4,
#: mask: "" | "vector" | "bits")])
SINCOSF_VARIANTS = {
    "sse4.1": (["-msse4.1"], [("_ZGVbN4vvv_sincosf", 4, 16, 16, ""), ("_ZGVbN4vl4l4_sincosf", 4, 16, 0, ""),
                              ("_ZGVbM4vl4l4_sincosf", 4, 16, 0, "vector"),
                              ("_ZGVbM4vvv_sincosf", 4, 16, 16, "vector")]),
    "avx2": (["-mavx2"], [("_ZGVdN8vvv_sincosf", 8, 32, 32, ""), ("_ZGVdN8vl4l4_sincosf", 8, 32, 0, ""),
                          ("_ZGVcN8vvv_sincosf", 8, 32, 16, ""), ("_ZGVcN8vl4l4_sincosf", 8, 32, 0, ""),
                          ("_ZGVdM8vvv_sincosf", 8, 32, 32, "vector")]),
    "avx512": (["-mavx512f", "-mavx512bw", "-mavx512dq", "-mavx512vl"],
               [("_ZGVeN16vvv_sincosf", 16, 64, 64, ""), ("_ZGVeN16vl4l4_sincosf", 16, 64, 0, ""),
                ("_ZGVeM16vl4l4_sincosf", 16, 64, 0, "bits")]),
    "neon": ([], [("_ZGVnN4vl4l4_sincosf", 4, 16, 0, ""), ("_ZGVnN2vl4l4_sincosf", 2, 8, 0, ""),
                  ("_ZGVnM4vl4l4_sincosf", 4, 16, 0, "vector")]),
}


def sincosf_harness(variants: list[tuple[str, int, int, int, str]]) -> str:
    """Each variant on f32 edge patterns and random ones, lanes writing to scattered (``vvv``) or
    consecutive, misaligned (``vl4l4``) elements, under random masks: the buffers equal what the scalar
    ``sincosf`` (glibc's source, libexpandm_scalar.a) leaves on the active lanes' elements."""
    out = ["#include <stdint.h>", "#include <stdio.h>", "#include <string.h>",
           "void sincosf(float, float *, float *);", "static uint64_t st = 0x9E3779B97F4A7C15ull;",
           "static uint32_t rnd(void) { uint64_t z = (st += 0x9E3779B97F4A7C15ull); z = (z ^ (z >> 30)) * "
           "0xBF58476D1CE4E5B9ull; z = (z ^ (z >> 27)) * 0x94D049BB133111EBull; return (uint32_t)(z ^ (z >> 31)); }",
           "static uint32_t input(long i) { if (i < 256 * 8) { static const uint32_t m[4] = {0, 1, 0x400000, 0x7fffff};"
           " return (uint32_t)(i & 1) << 31 | (uint32_t)(i >> 3) << 23 | m[(i >> 1) & 3]; }"
           " uint32_t r = rnd(); return i & 1 ? r : (r & 0x807fffffu) | (uint32_t)(100 + r % 60) << 23; }"]
    for name, n, fb, pb, mask in variants:
        out.append(f"typedef float {name}_vf __attribute__((vector_size({fb})));")
        if pb:
            out.append(f"typedef uint64_t {name}_vp __attribute__((vector_size({pb})));")
        ptrs = ", ".join([f"{name}_vp"] * (2 * n * 8 // pb)) if pb else "float *, float *"
        m = {"": "", "vector": f", {name}_vf", "bits": ", unsigned int"}[mask]
        out.append(f"void {name}({name}_vf, {ptrs}{m});")
    out += ["int main(void)", "{", "    long bad = 0, calls = 0;"]
    for name, n, fb, pb, mask in variants:
        size = 2 * n + 2
        out += [f"    for (long i = 0; i < 40000; i += {n}) {{ /* {name} */",
                f"        float x[{n}], sb[{size}], cb[{size}], sw[{size}], cw[{size}]; int on[{n}];",
                f"        for (int l = 0; l < {n}; l++) {{ uint32_t b = input(i + l); memcpy(&x[l], &b, 4); "
                f"on[l] = {'(rnd() & 3) != 0' if mask else '1'}; }}",
                f"        for (int k = 0; k < {size}; k++) sb[k] = cb[k] = sw[k] = cw[k] = (float)k - 0.5f;",
                f"        {name}_vf vx; memcpy(&vx, x, sizeof vx);"]
        at = "1 + l" if not pb else f"{size - 1} - 2 * l"
        out.append(f"        for (int l = 0; l < {n}; l++) if (on[l]) sincosf(x[l], &sw[{at}], &cw[{at}]);")
        if pb:
            per = pb // 8
            out.append(f"        float *sp[{n}], *cp[{n}];")
            out.append(f"        for (int l = 0; l < {n}; l++) {{ sp[l] = &sb[{at}]; cp[l] = &cb[{at}]; }}")
            args = []
            for arr in ("sp", "cp"):
                for j in range(n // per):
                    out.append(f"        {name}_vp {arr}{j}; memcpy(&{arr}{j}, {arr} + {j * per}, sizeof {arr}{j});")
                    args.append(f"{arr}{j}")
        else:
            args = ["sb + 1", "cb + 1"]
        if mask == "vector":
            out.append(f"        {name}_vf vm; uint32_t mb[{n}]; for (int l = 0; l < {n}; l++) mb[l] = on[l] ? "
                       "0xffffffffu : 0; memcpy(&vm, mb, sizeof vm);")
            args.append("vm")
        elif mask == "bits":
            out.append(f"        unsigned int vm = 0; for (int l = 0; l < {n}; l++) vm |= (unsigned)on[l] << l;")
            args.append("vm")
        out += [f"        {name}(vx, {', '.join(args)}); calls++;",
                "        if ((memcmp(sb, sw, sizeof sb) || memcmp(cb, cw, sizeof cb)) && bad++ < 5)",
                f'            printf("{name}: inputs %ld..\\n", i);',
                "    }"]
    out += ['    printf("%ld calls, %ld mismatches\\n", calls, bad);', "    return bad != 0;", "}"]
    return "\n".join(out) + "\n"


@pytest.mark.slow
@pytest.mark.parametrize("isa_name", list(SINCOSF_VARIANTS))
def test_sincosf_abi_variants_equal_glibcs_scalar_sincosf(lib: Path, tmp_path: Path, isa_name: str) -> None:
    """glibc libmvec's sincosf variants (vectors of pointers, linear pointers), by libmvec's signatures, give
    what glibc's scalar sincosf source gives, lane by lane, inactive lanes' elements untouched."""
    isa = get_isa(isa_name)
    flags, variants = SINCOSF_VARIANTS[isa_name]
    src = tmp_path / "sincosf_abi.c"
    src.write_text(sincosf_harness(variants))
    arch = isa.arch
    prog = tmp_path / "sincosf_abi"
    run([*isa.cc, "-O2", "-Wall", "-Werror", "-fno-builtin", *flags, src, lib / "lib" / arch / "libexpandm_scalar.a",
         lib / "lib" / arch / "libexpandm.a", "-lm", *(["-static"] if arch == "aarch64" else []), "-o", prog])
    skip_run_unless_host(isa_name)
    out = run([*(["qemu-aarch64"] if arch == "aarch64" else []), prog]).stdout
    assert re.fullmatch(r"\d+ calls, 0 mismatches\n", out), out


SINCOSF_LOOP = r"""#include "expandm.h"
void loop(float *restrict s, float *restrict c, const float *restrict x, int n)
{
#pragma omp simd
    for (int i = 0; i < n; i++)
        sincosf(x[i], &s[i], &c[i]);
}
void loop_ptrs(float **restrict sp, float **restrict cp, const float *restrict x, int n)
{
#pragma omp simd
    for (int i = 0; i < n; i++)
        sincosf(x[i], sp[i], cp[i]);
}
"""


@pytest.mark.slow
def test_gcc_vectorizer_calls_the_sincosf_variants(lib: Path, tmp_path: Path) -> None:
    """GCC 12 calls both forms from ``#pragma omp simd`` loops where sincosf is no builtin (as a builtin it
    keeps the scalar call)."""
    (tmp_path / "loop.c").write_text(SINCOSF_LOOP)
    run(["gcc", "-O3", "-fopenmp-simd", "-fno-builtin-sincosf", "-mavx2", "-Wall", "-Werror",
         f"-I{lib / 'include'}", "-c", "loop.c", "-o", "loop.o"], cwd=tmp_path)
    dis = run(["objdump", "-dr", "loop.o"], cwd=tmp_path).stdout
    for v in ("_ZGVdN8vl4l4_sincosf", "_ZGVdN8vvv_sincosf"):
        assert v in dis, v


@pytest.mark.slow
def test_hypotf_on_neon(lib: Path) -> None:
    """hypotf's glibc source reads long double declarations on AArch64; the library has it there."""
    check(lib, "neon", "hypotf", 5_000)


@pytest.mark.slow
def test_left_out_on_every_architecture(lib: Path) -> None:
    full = _full(lib)
    manifest = json.loads((full / "expandm.json").read_text())
    assert not [u for u in manifest["missing"] if u.startswith("x86_64/")], manifest["missing"]
    assert all(manifest["units"][u]["functions"] == NEW for u in ("x86_64/avx2", "x86_64/sse4.1"))
    neon = manifest["missing"].get("aarch64/neon", {})
    assert set(neon) == vecmath.EXPANDM_UNAVAILABLE["aarch64"], neon
    assert all("long double" in why or "__builtin_fabsl" in why for why in neon.values()), neon
    ppc = manifest["missing"]["ppc64le/altivec"]
    assert set(ppc) == vecmath.EXPANDM_UNAVAILABLE["ppc64le"], ppc
    assert all("does not compile with glibc's flags" in why for why in ppc.values()), ppc
    assert manifest["units"]["ppc64le/altivec"]["functions"] == [f for f in NEW if f not in ppc]


# ------------------------------------------------------------------ names and the header


@pytest.mark.slow
def test_archives_define_only_their_own_names(lib: Path) -> None:
    for arch in ("x86_64", "aarch64", "ppc64le"):
        nm = libm.tool(libm.arch_cc(arch), "nm")
        vec = run([nm, "-g", "--defined-only", "-P", lib / "lib" / arch / "libexpandm.a"]).stdout
        names = {ln.split()[0] for ln in vec.splitlines() if ln.strip() and not ln.endswith(":")}
        assert all(SYMBOL.fullmatch(n) for n in names), sorted(n for n in names if not SYMBOL.fullmatch(n))
        # coshf calls glibc's __ieee754_expf (e_expf.c, a companion): renamed, its public aliases local
        assert {"__expandm_ieee754_expf", "__expandm_expf", "__expandm_sincosf_table"} <= names
        undef = set(run([nm, "-u", lib / "lib" / arch / "libexpandm.a"]).stdout.split())
        assert not [u for u in undef if u.startswith(("__ieee754_", "__math_", "__expf", "__exp2f", "__sincosf"))]
        scalar = run([nm, "-g", "--defined-only", "-P", lib / "lib" / arch / "libexpandm_scalar.a"]).stdout
        have = {ln.split()[0] for ln in scalar.splitlines() if ln.strip() and not ln.endswith(":")}
        built = json.loads((lib / "expandm.json").read_text())["units"]
        assert have == {f for u, d in built.items() if u.startswith(arch) for f in d["functions"]}
    x86 = run(["nm", "-g", "--defined-only", "-P", lib / "lib/x86_64/libexpandm.a"]).stdout
    for name in ("_ZGVdN8v_sinf", "_ZGVbN4v_sinf", "_ZGVdN8vv_atan2f", "_ZGVeN16v_expf", "_Exp_coshf_avx2_masked",
                 "_Exp_log10f_sse41"):
        assert re.search(rf"^{name} [TiI] ", x86, re.M), name


@pytest.mark.slow
def test_header_declares_the_new_functions(lib: Path, tmp_path: Path) -> None:
    h = (lib / "include" / "expandm.h").read_text()
    # GCC takes expf to set errno: EXPANDM_ERRNO_CONST; sinf's vector code calls __math_invalidf: the same
    both = r"#if \(defined\(__x86_64__\)\) \|\| \(defined\(__aarch64__\)\)\n#pragma omp declare simd\n#endif\n"
    assert re.search(both + r"EXPANDM_ERRNO_CONST float expf\(float x\);", h)
    assert re.search(both + r"EXPANDM_ERRNO_CONST float sinf\(float y\);", h)
    # atan2f: GCC takes it to set errno; atanf is not in every x86 unit built here: no declare simd
    assert re.search(both + r"EXPANDM_ERRNO_CONST float atan2f\(float y, float x\);", h)
    units = json.loads((lib / "expandm.json").read_text())["units"]
    # (atanf's declaration depends on which units the session built: the slow tests build all of them)
    assert "float rintf(float x);" not in h  # (GCC inlines it)
    assert "float32x4_t _ZGVnN4v_sinf(float32x4_t y);" in h
    assert ("_ZGVnN4v_atanf" in h) == ("atanf" in units["aarch64/neon"]["functions"])
    src = tmp_path / "h.c"
    src.write_text('#include <math.h>\n#include "expandm.h"\nfloat f(float x) { return sinf(x) + atan2f(x, x); }\n')
    for cc in (["gcc", "-mavx2"], ["aarch64-linux-gnu-gcc"], ["powerpc64le-linux-gnu-gcc", "-mcpu=power8"]):
        run([*cc, "-O2", "-fopenmp-simd", "-Wall", "-Werror", f"-I{lib / 'include'}", "-c", src, "-o",
             tmp_path / "h.o"])


LOOP = r"""#include <math.h>
#include "expandm.h"
void loop(float *restrict y, const float *restrict x, int n)
{
    for (int i = 0; i < n; i++)
        y[i] = sinf(x[i]) + expf(x[i]) * atan2f(x[i], 2.0f);
}
"""


@pytest.mark.slow
def test_gcc_vectorizer_calls_the_variants(lib: Path, tmp_path: Path) -> None:
    (tmp_path / "loop.c").write_text(LOOP)
    run(["gcc", "-O3", "-fopenmp-simd", "-mavx2", f"-I{lib / 'include'}", "-c", "loop.c", "-o", "loop.o"], cwd=tmp_path)
    dis = run(["objdump", "-dr", "loop.o"], cwd=tmp_path).stdout
    for v in ("_ZGVdN8v_sinf", "_ZGVdN8v_expf", "_ZGVdN8vv_atan2f"):
        assert v in dis, v


# ------------------------------------------------------------------ --vector-math=expand in user code

KERNEL = r"""#include <math.h>
float polar(float x, float y)
{
    float r = sqrtf(x * x + y * y), a = atan2f(y, x);
    if (r > 1.0f)
        return expf(-r) * coshf(a) + log10f(r);
    return sinf(a) * r;
}
"""


@pytest.mark.slow
@pytest.mark.parametrize("isa_name", CHECKED)
def test_user_code_calls_them(lib: Path, tmp_path: Path, isa_name: str, capsys) -> None:
    src = tmp_path / "polar.c"
    src.write_text(KERNEL)
    out = tmp_path / "polar_out.c"
    rc = expand_main([str(src), "--isa", isa_name, "--vector-math-lib", str(lib), "-o", str(out), "--verify",
                      "--random", "5000" if isa_name in QEMU else "30000"])
    cap = capsys.readouterr()
    code = re.sub(r"/\*.*?\*/", "", out.read_text(), flags=re.S)
    tag = vecmath.isa_tag(get_isa(isa_name))
    for f in SAMPLE:
        assert f"_Exp_{f}_{tag}" in code, f
    # (sqrtf: an instruction; a loop from the highest lane down finds which one set errno, if one did)
    assert "for (int lane = 0;" not in code
    skip_if_cli_not_run(rc, cap.err)
    assert rc == 0 and re.search(r": \d+ inputs .*, 0 mismatches$", cap.out.strip()), cap.out + cap.err


def test_a_library_of_one_function(tmp_path: Path) -> None:
    """The daily loop's smoke test of the vector libm (the session's library, every unit the tests use,
    is built by the slow tests): a library of one glibc function for one ISA builds, defines only its
    own names, and the function through it equals its glibc source."""
    lib = libm.build(tmp_path / "expandm", {"x86_64/sse4.1": ["expf"]})
    vec = run(["nm", "-g", "--defined-only", "-P", lib / "lib" / "x86_64" / "libexpandm.a"]).stdout
    names = {ln.split()[0] for ln in vec.splitlines() if ln.strip() and not ln.endswith(":")}
    assert "_Exp_expf_sse41" in names and all(SYMBOL.fullmatch(n) for n in names), sorted(names)
    check(lib, "sse4.1", "expf", 2_000)
