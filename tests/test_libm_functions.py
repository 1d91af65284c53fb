"""The vector libm's glibc functions of issue 18 (mathlib/libm.py ``GLIBC_FUNCTIONS``: expf, sinf, atan2f,
hypotf, erff, ...), compiled with glibc's own headers and flags (``realworld.glibc_flags``) and linked
with the companions ``nm`` finds:

* each, through its entry point in the library, equals its scalar glibc source (compiled by the verifier
  with the same flags, its companions as sources) bit for bit, errno included, on AVX2, SSE4.1, NEON and
  AltiVec (qemu): a sample by default, all of them with ``-m slow``;
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
from hostrun import assert_verified, skip_if_cli_not_run

from emit import get_isa
from expand import types as T
from expand import vecmath
from expand.cli import main as expand_main
from expand.verify import Param, verify
from mathlib import libm

NEW = [f for f in vecmath.EXPANDM_FUNCTIONS if f in libm.GLIBC_FUNCTIONS]
#: the functions the default run checks (``-m slow``: all of them): a table-driven one, one with a
#: per-lane error helper, two arguments, and two calling other glibc functions (log10f: __ieee754_logf;
#: coshf: __ieee754_expf and __expm1f, from the companions)
SAMPLE = ["expf", "log10f", "sinf", "atan2f", "coshf"]  # (in the library's order)
#: (sse2 and avx512 too for what GCC's vectorizer calls: the header declares a function declare simd for
#: an architecture only when every variant GCC may call there is built)
LOOPED = ["sinf", "expf", "atan2f"]
#: (and hypotf on NEON, whose glibc headers have long double arms in constant conditionals)
PLAN = {"x86_64/avx2": SAMPLE, "x86_64/sse4.1": SAMPLE, "aarch64/neon": [*SAMPLE, "hypotf"], "x86_64/sse2": LOOPED,
        "x86_64/avx512": LOOPED, "ppc64le/altivec": SAMPLE}
FULL = {**PLAN, "x86_64/avx2": NEW, "x86_64/sse4.1": NEW, "aarch64/neon": NEW, "ppc64le/altivec": NEW}
#: the ISAs each function is checked on (NEON and AltiVec under qemu)
CHECKED = ["avx2", "sse4.1", "neon", "altivec"]
QEMU = ("neon", "altivec")
SYMBOL = re.compile(r"_ZGV[bcden][NM]\d+[vul]+_\w+|_Exp_\w+|__expandm_\w+")
TYPES = {"f32": T.FLOAT, "i32": T.INT}


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


def _full(lib: Path) -> Path:
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
    decl = "".join(f"#include {h}\n" for h in isa.headers) + (
        f"extern {isa.vtype(meta['ret'])} {vname}({', '.join(isa.vtype(k) for _, _, k in meta['params'])});\n")
    kw = libm.reference(lib, isa.arch, libm.sources()[name])
    kw["link_files"] = [*kw["link_files"], lib / "lib" / isa.arch / "libexpandm.a"]
    rep = verify(**kw, vector_c=decl, vector_name=vname, params=[Param(n, TYPES[k]) for n, _, k in meta["params"]],
                 ret=TYPES[meta["ret"]], isa=isa, n_random=n_random)
    assert_verified(rep)
    assert rep.inputs > n_random


@pytest.mark.parametrize("isa_name", CHECKED)
@pytest.mark.parametrize("name", SAMPLE)
def test_sample_equals_the_glibc_source(lib: Path, isa_name: str, name: str) -> None:
    check(lib, isa_name, name, 5_000 if isa_name in QEMU else 20_000)


@pytest.mark.slow
@pytest.mark.parametrize("isa_name", CHECKED)
@pytest.mark.parametrize("name", [f for f in NEW if f not in SAMPLE])
def test_every_function_equals_the_glibc_source(lib: Path, isa_name: str, name: str) -> None:
    check(_full(lib), isa_name, name, 5_000 if isa_name in QEMU else 20_000)


# ------------------------------------------------------------------ what each architecture leaves out


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
