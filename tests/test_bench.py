"""Smoke test of the benchmark tool (python -m mathlib.bench --quick): it runs and writes its
outputs. It never looks at speed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from emit import runs_here
from mathlib import bench

REPO = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(not bench.host_isas(), reason="the benchmark needs an x86 host with SSE4.1")


@pytest.fixture(scope="module")
def quick(tmp_path_factory) -> Path:
    import matplotlib  # noqa: F401  (a test dependency: the chart must be drawn)
    out = tmp_path_factory.mktemp("bench")
    cache = tmp_path_factory.mktemp("cache")  # mathlib's vector libm (the expandm series) is built there
    p = subprocess.run([sys.executable, "-m", "mathlib.bench", "--quick", "--out", str(out)], cwd=REPO,
                       capture_output=True, text=True, timeout=600, env=dict(os.environ, EXPAND_CACHE_DIR=str(cache)))
    assert p.returncode == 0, p.stdout + p.stderr
    return out


@pytest.mark.slow
def test_quick_writes_table_json_png(quick: Path) -> None:
    for name in ("bench.md", "bench.json", "bench.png", "bench_rare.png"):
        assert (quick / name).is_file() and (quick / name).stat().st_size > 0, name
    assert (quick / "bench.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    md = (quick / "bench.md").read_text()
    assert "| function | scalar glibc | vector |" in md
    for fn in bench.QUICK_FUNCTIONS:
        assert f"| {fn} |" in md


@pytest.mark.slow
def test_quick_json_has_scalar_and_vector(quick: Path) -> None:
    data = json.loads((quick / "bench.json").read_text())
    assert {"meta", "results", "inputs", "slower_than_peers"} <= set(data)
    meta = data["meta"]
    for key in ("cpu", "gcc", "isas", "functions", "n", "rounds", "boscc", "series", "runtime_s"):
        assert key in meta, key
    assert meta["quick"] is True
    assert meta["functions"] == bench.QUICK_FUNCTIONS
    assert len(meta["isas"]) == 1 and meta["isas"][0] in bench.X86_ISAS
    (isa,) = meta["isas"]
    for fn in meta["functions"]:
        r = data["results"][isa][fn]
        assert "error" not in r, r.get("error")
        assert set(bench.SETS) <= set(r)
        for s in bench.SETS:
            for v in ("scalar", "vector", "gcc", "gcc_ntm") + (("BOSCC",) if meta["boscc"] else ()):
                d = r[s][v]
                assert d["ns_per_element"] > 0 and d["speedup"] > 0
                assert len(d["samples"]) == meta["rounds"]
                assert d["mismatches"] >= 0
            # our expansion computes exactly what the scalar original computes, and so does mathlib's libm
            assert r[s]["vector"]["mismatches"] == 0
            assert r[s]["expandm"]["mismatches"] == 0 and r[s]["expandm"]["ns_per_element"] > 0
        assert set(r["clone_calls"]) == {"gcc", "gcc_ntm"}
        if meta["boscc"]:  # auto against off and all, paired per round
            assert set(r["common"]["BOSCC"]["paired"]) == {"vector", "BOSCC_all"}
            assert all(x > 0 for x in r["common"]["BOSCC"]["paired"].values())
            assert set(r["same_code"]) <= {"BOSCC", "BOSCC_all"}
    if meta["boscc"]:
        assert "## BOSCC auto against off and all" in (quick / "bench.md").read_text()


def test_paired_speed_cancels_a_slow_spell() -> None:
    # the second half of the rounds ran on a machine twice as slow: both variants moved together
    auto = {"samples": [1.0, 1.0, 1.0, 2.0, 2.0, 2.0]}
    off = {"samples": [1.1, 1.1, 1.1, 2.2, 2.2, 2.2]}
    assert bench.paired_speed(auto, off) == pytest.approx(1.1)


def test_boscc_section_applies_the_acceptance_rule() -> None:
    def entry(pv: float, pa: float, same: str | None = None, all_same: str | None = None) -> dict:
        return {"common": {"BOSCC": {"paired": {"vector": pv, "BOSCC_all": pa}}},
                "same_code": {k: v for k, v in (("BOSCC", same), ("BOSCC_all", all_same)) if v}}
    data = {"meta": {"isas": ["avx2"], "functions": ["logf", "truncf", "chroma", "mot", "roundf", "floorf",
                                                     "finitef"]},
            "results": {"avx2": {"logf": entry(0.99, 1.2), "truncf": entry(0.99, 1.2), "chroma": entry(1.1, 0.96),
                                 "mot": entry(1.3, 1.0), "roundf": entry(0.95, 1.1, "vector"),
                                 "floorf": entry(0.99, 0.95, "vector"),
                                 "finitef": entry(0.95, 0.96, "vector", "vector")}}}
    rows = {line.split(" | ")[0][2:]: line for line in "".join(bench.boscc_section(data)).splitlines()
            if line.startswith("| ") and not line.startswith("| function")}
    assert rows["logf"].endswith("**slower** |")  # must not lose to off on logf
    assert rows["truncf"].endswith("ok |")  # 1% behind off is within 3% elsewhere
    assert rows["chroma"].endswith("**slower** |")  # 4% behind all
    assert rows["mot"].endswith("ok |")
    assert rows["roundf"].endswith("ok |")  # the same C as off: 5% is the machine's noise
    assert rows["floorf"].endswith("**slower** |")  # but all's different C is 5% faster
    assert rows["finitef"].endswith("ok |")  # off, auto and all print the same C


def test_inputs_are_the_same_for_every_variant_and_hit_rare_values() -> None:
    spec = bench.SPECS["logf"]
    a = bench.make_inputs(spec, ["f32"], 1024, seed=1)
    b = bench.make_inputs(spec, ["f32"], 1024, seed=1)
    assert a == b
    common, rare = a["common"][0], a["rare"][0]
    assert all(0 < x < 0x7F800000 for x in common)  # positive finite: (0, 1000]
    assert sum(x in spec.args[0].pool for x in rare) > 300


def test_sleef_and_libmvec_names() -> None:
    assert bench.sleef_name("logf", "sse4.1") == "Sleef_logf4_u10sse4"
    assert bench.sleef_name("floorf", "avx512") == "Sleef_floorf16_avx512f"
    assert bench.libmvec_name("powf", "avx2") == "_ZGVdN8vv_powf"
    assert bench.libmvec_name("logf", "avx512") == "_ZGVeN16v_logf"


def test_per_isa_facts_come_from_the_emit_tables() -> None:
    """bench.py has no table of its own keyed by ISA name and tests no ISA name: flags, lanes, vector
    types, libmvec's letters, SLEEF's suffixes and the instruction column's intrinsics are the tables'."""
    src = Path(bench.__file__).read_text()
    names = "|".join(re.escape(n) for n in bench.X86_ISAS)
    assert not re.findall(rf'"(?:{names})"\s*:', src), "a dict keyed by ISA name"
    assert not re.findall(rf'(?:==|!=|\bin)\s*\(?"(?:{names})"', src), "an ISA name test"


@pytest.mark.parametrize("isa_name", bench.X86_ISAS)
def test_instruction_helpers_compile_and_are_exact(tmp_path: Path, isa_name: str) -> None:
    """The instruction column's helpers, written with the table's intrinsics, compile with its flags and
    (where the host runs the ISA) give floorf/ceilf/truncf/roundf/fabsf/copysignf's results bit for bit."""
    isa = bench.get_isa(isa_name)
    fns = ("floorf", "ceilf", "truncf", "roundf", "fabsf", "copysignf")
    vals = [0.0, -0.0, 0.5, -0.5, 1.5, -2.5, 0.49999997, 2.5, -1e10, 8388609.0, 1e-40, float("inf"), -3.75,
            0.75, -0.25, 123.5]
    lanes = isa.lanes
    checks = []
    for fn in fns:
        args = "v, w" if fn == "copysignf" else "v"
        ref = f"{fn}(x[i], y[i])" if fn == "copysignf" else f"{fn}(x[i])"
        checks.append(f"    for (int g = 0; g < N; g += {lanes}) {{\n"
                      f"        {isa.vtype('f32')} v = {isa.loadu('f32', '&x[g]')}, w = {isa.loadu('f32', '&y[g]')};\n"
                      f"        (void)w;\n        {isa.storeu('f32', '&r[g]', f'instr_{fn}({args})')};\n    }}\n"
                      f"    for (int i = 0; i < N; i++) {{ float e = {ref}; if (memcmp(&e, &r[i], 4)) {{"
                      f' printf("{fn} %a\\n", (double)x[i]); bad++; }} }}\n')
    n = -(-len(vals) // lanes) * lanes
    xs = ", ".join(f"{v!r}f".replace("inf", "INFINITY").replace("INFINITYf", "INFINITY") for v in vals)
    text = ("#include <math.h>\n#include <stdio.h>\n#include <string.h>\n"
            + "".join(f"#include {h}\n" for h in isa.headers)
            + "".join(bench.instr_helper(fn, isa_name) for fn in fns)
            + f"#define N {n}\nstatic float x[N] = {{{xs}}}, y[N], r[N];\n"
            + "int main(void)\n{\n    int bad = 0;\n"
            + "    for (int i = 0; i < N; i++) y[i] = (i & 1) ? -1.0f : 1.0f;\n"
            + "".join(checks) + "    printf(\"%d bad\\n\", bad);\n    return bad != 0;\n}\n")
    (tmp_path / "i.c").write_text(text)
    p = subprocess.run(["gcc", "-O2", "-Wall", "-Werror", "-fno-builtin", *isa.cflags, "i.c", "-o", "i", "-lm"],
                       cwd=tmp_path, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr + text
    if not runs_here(isa_name):
        pytest.skip(f"{isa_name} does not run here (compiled only)")
    r = subprocess.run([str(tmp_path / "i")], capture_output=True, text=True)
    assert r.returncode == 0 and "0 bad" in r.stdout, r.stdout


# ------------------------------------------------------------------ every column calls what it names

WHERE_MAIN = """#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <immintrin.h>
extern __m256 _ZGVdN8v_logf(__m256);
extern __m256 _Exp_logf_avx2(__m256);
{where}int main(void)
{{
{entries}    volatile __m256 r = _Exp_logf_avx2(_mm256_set1_ps(2.0f)); /* the benchmark's expandm column */
    (void)r;
    return 0;
}}
"""


@pytest.mark.slow
def test_entry_check_stops_when_our_library_answers_for_libmvec(tmp_path: Path) -> None:
    """libexpandm.a defines libmvec's names too: linked as it is, the libmvec column would call our
    logf (what the benchmark once did). The run-time check refuses that program; the benchmark's copy
    of the library, with the _ZGV names made local, passes it."""
    from hostrun import skip_run_unless_host

    from mathlib import libm

    lib = libm.ensure(["avx2"], ["logf"], tmp_path / "expandm")
    archive = lib / "lib" / "x86_64" / "libexpandm.a"
    own = tmp_path / "libexpandm_own.a"
    subprocess.run(["objcopy", "--wildcard", "--localize-symbol=_ZGV*", archive, own], check=True)
    entries = {"libmvec": ("_ZGVdN8v_logf", "libmvec"), "expandm": ("_Exp_logf_avx2", "exe")}
    (tmp_path / "m.c").write_text(WHERE_MAIN.format(where=bench.WHERE_C, entries=bench.entries_code(entries)))
    progs = {}
    for tag, a in (("as_is", archive), ("own", own)):
        exe = tmp_path / f"m_{tag}"
        subprocess.run(["gcc", "-O2", "-mavx2", "-fPIE", "-pie", tmp_path / "m.c", a, "-lmvec", "-o", exe],
                       check=True)
        progs[tag] = exe
    skip_run_unless_host("avx2")
    for tag, exe in progs.items():
        prog = bench.Program("logf", "avx2", exe, [], entries=entries)
        out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
        if tag == "as_is":
            with pytest.raises(bench.WrongEntryPoint, match=r"libmvec column of logf \[avx2\] calls _ZGVdN8v_logf"):
                bench.check_entries(prog, exe, out)
        else:
            where = bench.check_entries(prog, exe, out)
            assert where["libmvec"].endswith("libmvec.so.1") and Path(where["expandm"]).resolve() == exe.resolve()


def test_instruction_check_wants_the_instruction_and_no_call() -> None:
    good = "0000000000001140 <bench_instr>:\n    1140:\tvroundps $0x9,(%rax),%ymm0\n    1146:\tret\n"
    bench.check_instruction("floorf", "avx2", good)
    with pytest.raises(bench.WrongEntryPoint, match="calls a function"):
        bench.check_instruction("floorf", "avx2", good.replace("vroundps $0x9,(%rax),%ymm0", "call 1000 <floorf>"))
    with pytest.raises(bench.WrongEntryPoint, match="no v"):
        bench.check_instruction("floorf", "avx2", good.replace("vroundps", "vaddps"))


# ------------------------------------------------------------------ the libm functions beside the corpus


def test_libm_functions_are_benchmarked_but_not_corpus_functions() -> None:
    from mathlib.corpus import corpus

    names = {f.name for f in corpus()}
    assert not names & set(bench.LIBM_FUNCTIONS)
    for fn in bench.LIBM_FUNCTIONS:
        assert fn in bench.SPECS and fn in bench.LIBMVEC and bench.SLEEF[fn][1] == "_u10"
    (f,) = bench.select(["expf"])
    assert isinstance(f, bench.LibmFunction) and f.func == "__expf"
    assert "-include" in f.src_flags and f.read_flags is not None  # glibc's own headers and flags
    assert [p.name for p in f.link] == ["e_exp2f_data.c", "math_errf.c"]
    assert [g.name for g in bench.select(None)][:16] == [g.name for g in corpus()] + ["expf", "sinf"]
    assert bench.libmvec_name("expf", "avx512") == "_ZGVeN16v_expf"
    assert bench.libmvec_name("sinf", "sse4.1") == "_ZGVbN4v_sinf"
    assert bench.sleef_name("cosf", "avx2") == "Sleef_cosf8_u10avx2"


def test_check_bounds() -> None:
    inf = float("inf")
    assert bench.check_bound("BOSCC", "expf") == (bench.EXACT, inf)
    assert bench.check_bound("expandm", "logf") == (bench.EXACT, inf)
    assert bench.check_bound("gcc", "logf") == (bench.REPORT, inf)
    assert bench.check_bound("libmvec", "powf") == (5, inf)  # 4 ULP (libmvec) + 1 (glibc's own)
    assert bench.check_bound("sleef", "logf") == (2, inf)
    assert bench.check_bound("sleef", "sinf") == (2, 1e28)  # SLEEF u10 sinf/cosf: 1 ULP only for |x| <= 1e28
    assert bench.check_bound("sleef", "floorf") == (bench.EXACT, inf)
    assert bench.check_bound("sleef", "scalbnf") == (bench.REPORT, inf)


CHECK_LOOPS = r"""
static uint32_t bits(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }
static float flt(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }
NOIPA static void bench_scalar(int n) { for (int i = 0; i < n; i++) bench_out[i] = bench_in0[i] * 0.5f; }
/* the same bits: passes EXACT */
NOIPA static void bench_BOSCC(int n) { for (int i = 0; i < n; i++) bench_out[i] = bench_in0[i] * 0.5f; }
/* one element one ULP off: fails EXACT, is not timed */
NOIPA static void bench_expandm(int n) { bench_scalar(n); bench_out[3] = flt(bits(bench_out[3]) + 1); }
/* 3 ULP off everywhere: within libmvec's 5 */
NOIPA static void bench_libmvec(int n) {
    bench_scalar(n);
    for (int i = 0; i < n; i++) bench_out[i] = flt(bits(bench_out[i]) + 3);
}
/* 1 ULP off in its domain, anything beyond: passes (the rest is counted as outside) */
NOIPA static void bench_sleef(int n) {
    bench_scalar(n);
    for (int i = 0; i < n; i++) bench_out[i] = fabsf(bench_in0[i]) > 1e28f ? 0.25f : flt(bits(bench_out[i]) + 1);
}
/* anything: reported only */
NOIPA static void bench_gcc(int n) { for (int i = 0; i < n; i++) bench_out[i] = 7.0f; }
"""


def test_columns_are_checked_before_they_are_timed(tmp_path: Path) -> None:
    """The benchmark program's own check (its C template): a column outside its bound prints a failed
    check line and no timing; NaN matches any NaN; elements outside a peer's domain are not checked."""
    vals = [1.0, -2.5, 3e5, 7.0, 1e30, -1e30, 0.125, float("nan")] * 2
    data = [bench.f2b(v) if v == v else bench.NAN for v in vals]
    args = [bench.Arg("x", "f32", False)]
    variants = ["scalar", "BOSCC", "expandm", "libmvec", "sleef", "gcc"]
    outs = [("bench_out", "f32")]
    text = ("#define _GNU_SOURCE\n#include <dlfcn.h>\n#include <math.h>\n#include <stdint.h>\n#include <stdio.h>\n"
            "#include <stdlib.h>\n#include <string.h>\n#include <time.h>\n"
            f"#define BENCH_N {len(data)}\n#define NOIPA __attribute__((noinline, noipa))\n"
            "float bench_in0[BENCH_N], bench_out[BENCH_N];\n"
            + bench.c_array("data_common_0", "f32", data) + bench.c_array("data_rare_0", "f32", data)
            + CHECK_LOOPS + bench._variant_table(variants, "sinf", args)
            + bench._MAIN_TEMPLATE.replace("@LOAD@", bench._load_code(args)).replace("@SAVE@", bench._save_code(outs))
            .replace("@CMP@", bench._cmp_code(outs)).replace("@NOUT@", "1").replace("@ENTRIES@", "")
            .replace("@WHERE@", bench.WHERE_C))
    (tmp_path / "m.c").write_text(text)
    subprocess.run(["gcc", "-O1", "-Wall", "-Werror", "-Wno-unused", "m.c", "-o", "m", "-lm"], cwd=tmp_path,
                   check=True)
    out = subprocess.run([str(tmp_path / "m"), "1", "0.01"], capture_output=True, text=True, check=True).stdout
    acc: dict = {s: {} for s in bench.SETS}
    bench._collect(acc, out)
    c = acc["checks"]["common"]
    assert c["BOSCC"] == {"bad": 0, "max_ulp": 0, "outside": 0, "bound": 0, "ok": True}
    assert c["expandm"]["bad"] == 1 and not c["expandm"]["ok"]
    assert c["libmvec"]["max_ulp"] == 3 and c["libmvec"]["ok"]  # the NaN lanes: NaN + 3 ULP is still a NaN
    assert c["sleef"]["max_ulp"] == 1 and c["sleef"]["outside"] == 4 and c["sleef"]["ok"]
    assert c["gcc"]["bound"] == bench.REPORT and c["gcc"]["max_ulp"] == 1 << 40 and c["gcc"]["ok"]
    assert set(acc["common"]) == {"scalar", "BOSCC", "libmvec", "sleef", "gcc"}  # expandm was not timed


# ------------------------------------------------------------------ instruction counts (mathlib/icount.py)


def test_icount_counts_exactly_the_marked_stretch(tmp_path: Path) -> None:
    from mathlib import icount

    (tmp_path / "p.c").write_text(
        "int main(void)\n{\n"
        '    __asm__ volatile("int3\\n\\tmov $100, %%ecx\\n1:\\n\\tdec %%ecx\\n\\tjnz 1b\\n\\tint3" ::: "ecx", "cc");\n'
        "    return 0;\n}\n")
    subprocess.run(["gcc", "-O1", "p.c", "-o", "p"], cwd=tmp_path, check=True)
    tracer = icount.build_tracer(tmp_path / "tracer")
    c = icount.count(tracer, [str(tmp_path / "p")], profile=True)
    assert c.instructions == 201  # mov, then 100 x (dec, jnz); the int3s excluded
    prof = icount.profile(c)
    assert prof["mnemonic"] == {"mov": 1, "dec": 100, "jne": 100}
    assert sum(prof["function"].values()) == 201 and all(k.startswith("p:main") for k in prof["function"])
