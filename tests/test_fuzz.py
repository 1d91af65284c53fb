"""expand-fuzz: the generator, the call-log comparison, the minimizer, the CI fuzz run, and the
regression programs the fuzzer found (tests/fuzz_regressions/*.c, each must expand and verify)."""

from __future__ import annotations

import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from emit import get_isa
from expand.check import fuzz
from expand.check.fuzz import (
    FEATURES,
    FUZZ_LOG_C,
    GenOptions,
    If,
    Minimizer,
    Program,
    check_file,
    check_source,
    generate,
    program_seed,
    render,
    run_fuzz,
    walk_stmts,
    write_support,
)
from expand.check.verify import Param, verify
from expand.ir.types import INT
from expand.vecmath import EXPANDM_FUNCTIONS

ROOT = Path(__file__).parent.parent
REGRESSIONS = ROOT / "tests" / "fuzz_regressions"
#: The CI fuzz run (the README's): this seed, CI_COUNT programs per ISA.
CI_SEED = 20240601
CI_COUNT = 16
#: Programs CI_COUNT.. of the seed, in the deep run (python3 -m pytest -m deep -n 2): with the README run's,
#: programs 0-399 (the README run took 0-119, then 0-79, then 0-47, then 0-31, as its time grew; 0-15
#: since its 63 minutes on a Zen 3 host, 2026-11-28)
DEEP_COUNT = 384
GCC = ["gcc", "-O2", "-Wall", "-Werror", "-ffp-contract=off"]


# ----------------------------------------------------------------------------- the generator


def test_same_seed_same_program() -> None:
    for i in range(20):
        a = render(generate(program_seed(5, i)))
        b = render(generate(program_seed(5, i)))
        assert a == b
    texts = {render(generate(program_seed(5, i))) for i in range(20)}
    assert len(texts) == 20  # and different seeds give different programs


def test_same_seed_same_program_in_another_process() -> None:
    p = subprocess.run([sys.executable, "-m", "expand.check.fuzz", "--print", "--seed", "11", "--start", "3",
                        "--count", "2"], capture_output=True, text=True, cwd=ROOT, check=True)
    assert p.stdout == "".join(render(generate(program_seed(11, i))) + "\n" for i in (3, 4))


def test_programs_cover_the_features() -> None:
    text = "".join(render(generate(program_seed(1, i), GenOptions.without(list(FEATURES)))) for i in range(150))
    for needle in ("int64_t ", "uint64_t ", "unsigned ", "float ", "double ", "union {", "static ", " ? ",
                   " && ", " || ", "} else {", "log_i32(", "log_f64(", " << (", " >> (", " & 31)", " ^ ", "(~",
                   "!= 0 ? ", "(-2147483647 - 1)", "return ", "(int)((unsigned)", "< 2147483648.0f)",
                   "expect-error"):
        assert needle in text, needle
    for absent in ("for (", "while", "switch", "short", "_Bool", "[", "options", "#pragma"):
        assert absent not in text, absent
    full = "".join(render(generate(program_seed(1, i))) for i in range(150))
    for needle in (
            # narrow types and their promotions
            "char ", "signed char ", "unsigned char ", "short ", "unsigned short ", "_Bool ", "uint8_t ",
            "(_Bool)", "(int)((unsigned)(", "++;", "--",
            # control flow
            "for (int i", "for (unsigned char i", "-) {", "while (i", "do {", "} while (", "break;",
            "continue;", "switch (", "case ", "default:", "/* fall through */", "% 5u)",
            # memory: pointers (gang, uniform, consecutive, scatter), tables, local arrays
            "(*p)", "p[0]", "tab[(i + ", "tab[(i - ", "out[i]", "hist[", "static const ",
            "[4][8] = {", "] = { ", "& 127)]", "T1[",
            # the modes
            "options lanes=x2", "lanes=x4", "boscc=off", "boscc=all", " abi", "wrapper", "vector-math=none",
            "vector-math=sleef", "vector-math=libmvec", "frontend=clang", "#pragma omp declare simd uniform(",
            "linear(i)", "uniform=", "linear=i", "may-refuse shared-store",
            # libm beyond fabsf/sqrtf, guarded conversions, and shifts under tests of their counts
            "#include <math.h>", " ? (int)", " ? (unsigned char)", " >= 0 && ", "< 32) ? (", "< 64) ? (",
            "< 32) {", "& 127) < 64)",
            # records: tables of structs (array fields at constant and varying indexes), uniform pointers
            # to structs, local structs (nested, copied), the helper's struct parameter and result
            "static const struct T", "_rec { ", "].f", "].f0[((", "const struct tab_rec *", "struct out_rec *",
            "out[i].f", "tab[(i ", " = { { ", "struct { ", "struct h_rec p", "(struct h_rec){ ", ").f",
            "static struct h_rec h(", "_rec { ", "} a", "struct h_rec *p", "h((&s", "p->f"):
        assert needle in full, needle
    assert re.search(r"struct (s\d+)_rec \w+ = s\d+;", full)  # (a copy at its declaration)
    assert re.search(r"\n\s+s\d+ = (s\d+|h\()", full)  # (an assignment of a whole struct)
    called = set(re.findall(r"\b(\w+)\(", full))
    assert len({n for n, _, _ in fuzz.MATH_FUNCS} & called) >= 30


def test_records_have_a_stream_of_their_own() -> None:
    """A program that draws no record is the one the seed gave before records existed: the records'
    choices come from ``Gen.rec``, so the main stream (and the programs' shapes) stay."""
    same = 0
    for i in range(120):
        def gen(opts: GenOptions) -> tuple[fuzz.Gen, str]:
            g = fuzz.Gen(random.Random(f"records-{i}"), opts, f"records-{i}")
            return g, render(g.program())

        g, with_records = gen(GenOptions())
        if not (g.records or g.h_fields or g.structs or any(m.fields for m in g.mems)):
            assert "struct" not in with_records
            assert with_records == gen(GenOptions.without(["records"]))[1], i
            same += 1
    assert 40 < same < 100


def test_programs_call_every_math_function() -> None:
    """Every function of mathlib's vector libm (and the more of libm in MATH_FUNCS) is drawn: the
    generator's programs before the -Wextra filter (``quiet``), which only draws some again."""
    names = {n for n, _, _ in fuzz.MATH_FUNCS}
    assert {"logf", "powf", "atan2f", "ilogbf", "isnanf", "fmaf", "atan2", "fmod"} <= names
    assert set(EXPANDM_FUNCTIONS) - names <= {"sincosf"}  # (results through pointers: not generated)
    seen: set[str] = set()
    for i in range(3000):
        prog = fuzz.Gen(random.Random(f"math-{i}"), GenOptions(), f"math-{i}").program()
        seen |= names & set(re.findall(r"\b(\w+)\(", render(prog)))
        if seen == names:
            break
    assert seen == names, sorted(names - seen)


@pytest.mark.slow
def test_generated_programs_compile_warning_free(tmp_path: Path) -> None:
    """-Wall -Wextra -Werror, plain char signed and unsigned (NEON and AltiVec make it unsigned)."""
    write_support(tmp_path)
    names = []
    for i in range(120):
        opts = GenOptions() if i % 4 else GenOptions.without(list(FEATURES))
        name = f"p{i}.c"
        (tmp_path / name).write_text(render(generate(program_seed(3, i), opts)))
        names.append(name)
    for char in ("-fsigned-char", "-funsigned-char"):
        for chunk in (names[:60], names[60:], ["fuzz_log.c"]):
            p = subprocess.run([*GCC, "-Wextra", "-fopenmp-simd", char, "-c", *chunk], cwd=tmp_path,
                               capture_output=True, text=True)
            assert p.returncode == 0, p.stderr[:5000]


@pytest.mark.slow
def test_generated_programs_have_no_undefined_behaviour() -> None:
    """UBSan (with float-to-int overflow) on the scalar program in the verify harness, on its edge and
    random inputs, its arrays and shapes: no signed overflow, no bad shift, no division by zero or
    INT_MIN / -1, no out-of-range float conversion, no index out of bounds; and every program verifies."""
    for i in range(20):
        prog = generate(program_seed(12, i), GenOptions(diagnostics=0))
        prog.modes.lanes, prog.modes.vector_math = 1, "none"  # (UBSan needs the host's libm calls)
        out = check_source(render(prog), "sse4.1", n_random=500, sanitize=True)
        assert out.kind in ("ok", "refused"), f"{out.kind}: {out.summary}\n{out.details[:3000]}\n{render(prog)}"


def test_modes_round_trip_and_fall_back() -> None:
    m = fuzz.Modes(lanes=2, boscc="off", abi=True, wrapper=True, vector_math="sleef", frontend="clang",
                   uniform=["n", "tab"], linear=["i"])
    text = f"/* expand-fuzz: options {m.text()} */"
    assert fuzz.Modes.parse(text) == m and fuzz.Modes.parse("int f(int x);") == fuzz.Modes()
    s = fuzz.setting(m, "avx2")
    assert (s.lanes, s.boscc, s.abi, s.wrapper, s.vector_math) == (16, "off", True, "array", "sleef")
    assert s.shapes == {"n": "uniform", "tab": "uniform", "i": "linear"}
    assert "--uniform n,tab --linear i" in s.command("avx2", "p.c")
    s = fuzz.setting(m, "altivec")  # no ABI there, SLEEF only on the host: the defaults
    assert (s.lanes, s.abi, s.vector_math) == (8, False, "expand")
    m.lanes = 4  # (AVX-512 gangs have 16 or 32 lanes: 4x falls back to 2x there)
    assert [fuzz.setting(m, isa).lanes for isa in ("sse4.1", "avx2", "avx512", "altivec")] == [16, 32, 32, 16]
    m.lanes = 2
    m.pragma = True  # shapes from the program's #pragma omp declare simd
    assert "uniform=" not in m.text() and fuzz.setting(m, "neon").shapes == {}
    with pytest.raises(ValueError):
        fuzz.Modes.parse("/* expand-fuzz: options bogus */")


def test_minimizer_keeps_indexes_and_trip_counts_in_range() -> None:
    """An index or a trip count is replaced by 0 only, or edited inside its mask; a range check and the
    conversion it guards are edited whole."""
    progs = [generate(program_seed(21, i)) for i in range(60)]
    prog = next(p for p in progs if "[(i + " in render(p) or "[(i - " in render(p))
    m = Minimizer(prog, lambda p: True, max_tests=0)
    for owner, attr, _, e, bounded in m.exprs(prog):
        if isinstance(owner, fuzz.Elem) or (isinstance(owner, fuzz.Loop) and attr == "bound"):
            assert bounded
            assert all(isinstance(r, fuzz.Lit) and r.text == "0" for r in m.replacements(prog, e, bounded))
        if isinstance(owner, fuzz.Op) and owner.atomic:
            raise AssertionError(f"inside a range check: {fuzz.expr_text(owner)}")
    guarded = next(p for p in progs if any(isinstance(s, fuzz.GuardedIf) for s in walk_stmts(p.f.body)))
    g = next(s for s in walk_stmts(guarded.f.body) if isinstance(s, fuzz.GuardedIf))
    m = Minimizer(guarded, lambda p: True, max_tests=0)
    assert all(owner is not g for owner, *_ in m.exprs(guarded))
    idx = m.removable(guarded).index(g)
    edits = [render(q) for q in m.statement_edits(guarded)]
    assert render(m.edit_stmt(guarded, idx, "drop")) in edits
    assert render(m.edit_stmt(guarded, idx, "then")) not in edits


GUARDED = """#include <stdint.h>
#include "fuzz_log.h"

int f(float x, double y, int z)
{
    int r = z;
    if (x > -2147483649.0f && x < 2147483648.0f)
        r = (int)x;
    unsigned u = (y > -1.0 && y < 4294967296.0) ? (unsigned)y : 7u;
    short s = 0;
    if ((x > -100.5f) && (x < 100.5f))
        s = (short)x;
    int64_t w = (y > -9223372036854775808.0 && y < 9223372036854775808.0) ? (int64_t)y : 0;
    unsigned char c = (x > -1.0f && x < 256.0f) ? (unsigned char)x : 0;
    unsigned v = 0;
    float fy = (float)y;  /* (tested as a float: y just below 2^32 rounds to 2^32f) */
    if (fy < 4294967296.0f && fy > -1.0f)
        v = (unsigned)fy;
    uint64_t q = (y > -1.0 && y < 18446744073709551616.0) ? (uint64_t)y : 0;
    uint64_t p = (x > -1.0f && x < 18446744073709551616.0f) ? (uint64_t)x : 3;
    return r ^ (int)u ^ s ^ (int)w ^ c ^ (int)v ^ (int)q ^ (int)(q >> 32) ^ (int)(p >> 7);
}
"""


@pytest.mark.parametrize("isa", ["sse2", "sse4.1", "avx2", "avx512", "neon", "altivec", "generic"])
def test_guarded_conversions_on_every_isa(isa: str) -> None:
    """float -> int conversions under the program's own range checks: the vector code converts every
    lane, NaN, infinite and out-of-range ones too (the edge inputs), and keeps the active ones. On
    AltiVec under qemu 7.2 a NaN lane of a vector conversion used to turn the lanes after it into the
    minimum int, or 0 for unsigned 64-bit ones (emit/altivec.py's NaN-safe conversions)."""
    out = check_source(GUARDED, isa, n_random=3000)
    if out.kind == "not-run":
        pytest.skip(out.summary)
    assert out.kind == "ok", f"{out.kind}: {out.summary}\n{out.details[:4000]}"


# ----------------------------------------------------------------------------- the call log

LOG_PRELUDE = """#include <stdint.h>
#include <smmintrin.h>
#include "fuzz_log.h"
"""
LOG_SCALAR = LOG_PRELUDE + """int g(int x) {
    int r = log_i32(1, x);
    if (x > 0)
        r += log_i32(2, x + 1);
    return r;
}
"""

# Per active lane, lanes in order, site by site: what expand generates.
LOG_VECTOR_RIGHT = """
__m128i v_g(__m128i x) {
    int32_t xs[4], r[4], r2[4];
    _mm_storeu_si128((__m128i *)xs, x);
    for (int l = 0; l < 4; l++) r[l] = log_i32(1, xs[l]);
    unsigned on = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpgt_epi32(x, _mm_setzero_si128())));
    for (int l = 0; l < 4; l++) if (on >> l & 1) r2[l] = log_i32(2, xs[l] + 1); else r2[l] = 0;
    return _mm_add_epi32(_mm_loadu_si128((__m128i *)r), _mm_loadu_si128((__m128i *)r2));
}
"""
# The two call sites swapped: the same calls, but site 2 before site 1 for the lanes that make both.
LOG_VECTOR_SWAPPED = LOG_VECTOR_RIGHT.replace(
    "    for (int l = 0; l < 4; l++) r[l] = log_i32(1, xs[l]);\n", "").replace(
    "else r2[l] = 0;\n", "else r2[l] = 0;\n    for (int l = 0; l < 4; l++) r[l] = log_i32(1, xs[l]);\n")
# Lanes in reverse order at site 1.
LOG_VECTOR_REVERSED = LOG_VECTOR_RIGHT.replace("for (int l = 0; l < 4; l++) r[l]", "for (int l = 3; l >= 0; l--) r[l]")
# Site 2 called for every lane, active or not (the results are still blended correctly).
LOG_VECTOR_INACTIVE = LOG_VECTOR_RIGHT.replace(
    "if (on >> l & 1) r2[l] = log_i32(2, xs[l] + 1); else r2[l] = 0;",
    "{ int32_t t = log_i32(2, xs[l] + 1); r2[l] = (on >> l & 1) ? t : 0; }")


class _StandInSse41:
    name, lanes, cflags, cc, run_prefix, reference_cflags, clang = "sse4.1", 4, ["-msse4.1"], ["gcc"], [], [], False

    def vtype(self, k: str) -> str:
        return "__m128i"

    def mtype(self, k: str) -> str:
        return "__m128i"

    def loadu(self, k: str, ptr: str) -> str:
        return f"_mm_loadu_si128((const __m128i *)({ptr}))"

    def storeu(self, k: str, ptr: str, v: str) -> str:
        return f"_mm_storeu_si128((__m128i *)({ptr}), {v})"


def _log_verify(tmp_path: Path, vector: str, scalar: str = LOG_SCALAR, call_log: bool = True, **kw):
    """``g`` of ``scalar`` against ``v_g`` of ``vector`` (SSE4.1, x an int), in call-log mode by default."""
    write_support(tmp_path)
    src = tmp_path / "g.c"
    src.write_text(scalar)
    return verify(scalar_sources=[src], scalar_name="g", vector_c=LOG_PRELUDE + vector, vector_name="v_g",
                  params=[Param("x", INT)], ret=INT, isa=_StandInSse41(), link_files=[tmp_path / "fuzz_log.c"],
                  n_random=2000, call_log=call_log, **kw)


def test_call_log_accepts_per_lane_calls(tmp_path: Path) -> None:
    rep = _log_verify(tmp_path, LOG_VECTOR_RIGHT)
    assert rep.ok and rep.mismatches == 0, rep.details


@pytest.mark.parametrize("vector", [LOG_VECTOR_SWAPPED, LOG_VECTOR_REVERSED, LOG_VECTOR_INACTIVE],
                         ids=["sites-swapped", "lanes-reversed", "inactive-lanes-call"])
def test_call_log_catches_wrong_calls(tmp_path: Path, vector: str) -> None:
    rep = _log_verify(tmp_path, vector)
    assert not rep.ok and rep.mismatches > 0, rep.summary
    assert "calls: DIFFER" in rep.details
    assert "return: same" in rep.details  # the returned values are right: only the log tells


LOOP_SCALAR = LOG_PRELUDE + """int g(int x) {
    int r = 0;
    for (int i = 0; i < 3; i++)
        if ((x >> i) & 1)
            r += log_i32(1, x + i);
    return r;
}
"""
# What expand generates: per iteration, the active lanes in order. Lane 0 may call in iterations 1 and 2
# and lane 1 in iteration 0: the records are not in rounds of all lanes that call at the site.
LOOP_VECTOR_RIGHT = """
__m128i v_g(__m128i x) {
    int32_t xs[4], r[4] = {0};
    _mm_storeu_si128((__m128i *)xs, x);
    for (int i = 0; i < 3; i++)
        for (int l = 0; l < 4; l++)
            if ((xs[l] >> i) & 1) r[l] += log_i32(1, xs[l] + i);
    return _mm_loadu_si128((__m128i *)r);
}
"""
# Each lane's calls in its own order still: iteration 2 before iteration 1 in every lane.
LOOP_VECTOR_WRONG = LOOP_VECTOR_RIGHT.replace("for (int i = 0; i < 3; i++)", "for (int i = 0; i < 3; i++) {\n"
                                              "        int k = i == 1 ? 2 : i == 2 ? 1 : 0;").replace(
    "r[l] += log_i32(1, xs[l] + i);", "r[l] += log_i32(1, xs[l] + k);\n    }").replace("(xs[l] >> i)", "(xs[l] >> k)")


@pytest.mark.parametrize("loose", [True, False], ids=["loop-site", "as-without-loops"])
def test_call_log_in_loops(tmp_path: Path, loose: bool) -> None:
    """Calls in a loop, where lanes call in different iterations: attributed by value at the sites
    named loose (expand-fuzz names the sites in loops), in lane rounds elsewhere, which misattributes."""
    def run(vector: str):
        return _log_verify(tmp_path, vector, LOOP_SCALAR, call_log_loose=[1] if loose else [])

    rep = run(LOOP_VECTOR_RIGHT)
    assert rep.ok == loose, rep.details
    if not loose:
        assert "calls: DIFFER" in rep.details and "return: same" in rep.details
    rep = run(LOOP_VECTOR_WRONG)
    assert not rep.ok and "calls: DIFFER" in rep.details, rep.summary


TAGGED_SCALAR = LOG_PRELUDE + """int g(int x) {
    int r = 0;
    for (int i = 0; i < (x & 3); i++)
        for (int j = 0; j < ((x >> (2 + i)) & 3); j++)
            r += log_i32(1 + 1024 * i + 16384 * j, 7);
    return r;
}
"""
# The lanes in lockstep: each (i, j) round calls for the lanes still in both loops, in lane order. Every
# call has the same value: without the iteration in the site, lane order within rounds is all there is.
TAGGED_RIGHT = """
__m128i v_g(__m128i x) {
    int32_t xs[4], r[4] = {0};
    _mm_storeu_si128((__m128i *)xs, x);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int l = 0; l < 4; l++)
                if (i < (xs[l] & 3) && j < ((xs[l] >> (2 + i)) & 3))
                    r[l] += log_i32(1 + 1024 * i + 16384 * j, 7);
    return _mm_loadu_si128((__m128i *)r);
}
"""
# Each lane makes its calls, but its inner iterations in reverse order.
TAGGED_WRONG = TAGGED_RIGHT.replace("log_i32(1 + 1024 * i + 16384 * j, 7)",
                                    "log_i32(1 + 1024 * i + 16384 * (((xs[l] >> (2 + i)) & 3) - 1 - j), 7)")


def test_call_log_with_iteration_sites(tmp_path: Path) -> None:
    """expand-fuzz's calls in loops name their iteration in their site (``tag_sites``): the call log gives
    the vector code's calls to the lanes in lane order, with no search, and tells a wrong order."""
    def run(vector: str):
        return _log_verify(tmp_path, vector, TAGGED_SCALAR)

    rep = run(TAGGED_RIGHT)
    assert rep.ok, rep.details
    rep = run(TAGGED_WRONG)
    assert not rep.ok and "calls: DIFFER" in rep.details and "return: same" in rep.details, rep.summary


def test_generated_calls_in_loops_name_their_iteration() -> None:
    """Every call with a site inside loops carries the counters of all the loops around it."""
    checked = 0
    for i in range(60):
        prog = generate(program_seed(4, i))
        render(prog)  # (sets the tags)
        for fn, first in ((prog.f, 0), (prog.helper, fuzz.LOOP_DIGITS["f"])):
            if fn is None:
                continue

            def walk(stmts, loops, first=first):
                nonlocal checked
                for st in stmts:
                    for e in fuzz.stmt_exprs(st):
                        for n in fuzz.walk_expr(e):
                            if isinstance(n, fuzz.Call) and n.site is not None:
                                want = [f" + {fuzz.SITE_STEP * 16 ** (first + j)} * " for j in range(len(loops))]
                                assert all(w in n.tag for w in want) and n.tag.count("*") == len(loops), n.tag
                                assert all(re.search(rf"\b{lp.var}\b", n.tag) for lp in loops), n.tag
                                checked += bool(loops)
                    for lst in fuzz.child_lists(st):
                        walk(lst, [*loops, st] if isinstance(st, fuzz.Loop) else loops)

            walk(fn.body, [])
    assert checked > 20


LONG_SCALAR = LOG_PRELUDE + """unsigned g(int x) {
    unsigned r = 0;
    for (int i = 0; i < 500; i++)
        r += (unsigned)log_i32(1, (int)(((unsigned)x + i) & 3));
    return r;
}
"""
LONG_RIGHT = """
__m128i v_g(__m128i x) {
    int32_t xs[4];
    uint32_t r[4] = {0};
    _mm_storeu_si128((__m128i *)xs, x);
    for (int i = 0; i < 500; i++)
        for (int l = 0; l < 4; l++)
            r[l] += (uint32_t)log_i32(1, (int)(((uint32_t)xs[l] + i) & 3));
    return _mm_loadu_si128((__m128i *)r);
}
"""
# Lane 2's last call has another value: no attribution can give every lane its own calls.
LONG_WRONG = LONG_RIGHT.replace("(uint32_t)xs[l] + i)", "(uint32_t)xs[l] + i + (i == 499 && l == 2))")


def test_call_log_long_gangs_that_differ(tmp_path: Path) -> None:
    """2,000 records a gang at a loop site with four values, one of them wrong in lane 2: every gang is a
    mismatch in lane 2 only, told within the harness's time (the attribution search spent its budget of
    20 million steps on each such gang, and the fallback counted records quadratically: 97 s for these
    2,512 inputs before both went linear; now the search stops at once where the lanes' calls and the
    vector calls are not the same multiset)."""
    rep = _log_verify(tmp_path, LONG_RIGHT, LONG_SCALAR, call_log_loose=[1])
    assert rep.ok, rep.details
    rep = _log_verify(tmp_path, LONG_WRONG, LONG_SCALAR, call_log_loose=[1], timeout=60)
    assert rep.verdict == "mismatch" and rep.mismatches == 628, rep.summary
    assert "calls: DIFFER" in rep.details and "return: DIFFER" in rep.details
    assert set(re.findall(r"lane (\d+):", rep.details)) == {"2"}, rep.details[:2000]


def test_call_log_off_ignores_calls(tmp_path: Path) -> None:
    rep = _log_verify(tmp_path, LOG_VECTOR_SWAPPED, call_log=False)
    assert rep.ok, rep.details  # without call_log, fuzz_log.c's weak recorder links and nothing is compared


def test_expanded_calls_are_compared(tmp_path: Path) -> None:
    text = ('#include "fuzz_log.h"\nint f(int x) { if (x > 3) log_i32(1, x); '
            'int r = x > 7 && log_i32(2, x) > 0; log_u32(3, (unsigned)x); return r; }\n')
    out = check_source(text, "sse4.1", n_random=500)
    assert out.kind == "ok", out.summary + "\n" + out.details
    # The same program whose vector code calls log_i32 for every lane fails: swap the vector side in.
    wrong = text.replace("if (x > 3) log_i32(1, x);", "log_i32(1, x);")
    src = tmp_path / "w.c"
    write_support(tmp_path)
    src.write_text(text)
    from emit import get_isa
    from expand.driver import expand_module
    from frontends.pycparser_frontend import read_file
    isa = get_isa("sse4.1")
    res = expand_module(read_file(str(tmp_path / "x.c"), wrong), isa, functions=["f"])
    e = res.functions[0]
    rep = verify(scalar_sources=[src], scalar_name="f", vector_c=res.text, vector_name=e.vector_name,
                 params=[Param(p.name, p.type) for p in e.params], ret=e.ret, isa=isa,
                 link_files=[tmp_path / "fuzz_log.c"], n_random=500, call_log=True)
    assert not rep.ok and "calls: DIFFER" in rep.details


def test_fuzz_log_c_records_one_nan() -> None:
    assert "0x7fc00000u" in FUZZ_LOG_C and "0x7ff8000000000000u" in FUZZ_LOG_C


# ----------------------------------------------------------------------------- outcomes


def test_planted_diagnostic_is_expected() -> None:
    prog = next(p for p in (generate(program_seed(2, i)) for i in range(300)) if p.expect_error)
    out = check_source(render(prog), "sse4.1")
    assert out.kind == "ok" and "diagnosed as expected" in out.summary, out.summary
    # a program that promises a diagnostic and expands cleanly is a failure
    out = check_source('/* expand-fuzz: expect-error switch */\n#include "fuzz_log.h"\nint f(int x) { return x; }\n',
                       "sse4.1")
    assert out.kind == "missing-diagnostic"
    # and an unplanned diagnostic is one too
    out = check_source('#include "fuzz_log.h"\nint f(int x) { static int n; n = x; return n; }\n', "sse4.1")
    assert out.kind == "diagnostic" and "static" in out.summary


def test_signatures() -> None:
    o = fuzz.Outcome("mismatch", "", "input 1 (edge) lane 1: x=0\n  return: DIFFERS scalar 1 vector 2\n"
                     "  calls: DIFFER scalar [1:0x1 2:0x2] vector [1:0x1]\n")
    assert o.signature() == ("mismatch", "call-count,return")
    o = fuzz.Outcome("crash", "KeyError: 'x_3'")
    assert o.signature() == fuzz.Outcome("crash", "KeyError: 'y_12'").signature()


# ----------------------------------------------------------------------------- the minimizer


def _count_stmts(p: Program) -> int:
    """Statements in the rendered program (dead stores are not rendered)."""
    return sum(line.rstrip().endswith((";", "{")) for line in render(p).splitlines()[4:])


def test_minimizer_shrinks_a_planted_failure() -> None:
    # The planted "bug": any program with a guarded unsigned division inside an if fails.
    def has_bug(p: Program) -> bool:
        for s in walk_stmts(p.f.body):
            if isinstance(s, If) and any(re.search(r"!= 0 \? .* / ", render_stmt)
                                         for render_stmt in _texts(s.then)):
                return True
        return False

    prog = next(p for p in (generate(program_seed(9, i)) for i in range(200)) if has_bug(p))
    before = render(prog)
    m = Minimizer(prog, has_bug, max_tests=5000, max_seconds=120)
    small = m.run()
    after = render(small)
    assert has_bug(small)
    assert _count_stmts(small) <= 4, after  # f's header, if, the division, return
    assert len(after) < len(before) / 3, after
    assert after.count("\n") < 16, after
    assert render(prog) == before  # the original is left alone


def _texts(stmts) -> list[str]:
    from expand.check.fuzz import render_stmts
    out: list[str] = []
    render_stmts(stmts, set(), "", out)
    return out


def test_minimize_keeps_the_failure() -> None:
    """minimize() end to end on a failure found without compiling: an unplanned diagnostic (in a
    program with local structs, one copied from the other)."""
    prog = generate(program_seed(4, 0))
    assert "struct s" in render(prog)
    assert not prog.expect_error
    prog.f.body.insert(1, fuzz.Raw(["static int calls = 0;", "calls = calls + 1;"], keep=True))
    out = check_source(render(prog), "sse4.1")
    assert out.kind == "diagnostic" and "static" in out.summary
    small, tests = fuzz.minimize(prog, out, "sse4.1", max_tests=300)
    assert 0 < tests <= 300
    again = check_source(render(small), "sse4.1")
    assert again.signature() == out.signature()
    assert render(small).count("\n") < render(prog).count("\n") / 2, render(small)


# ----------------------------------------------------------------------------- the CI fuzz run


FUZZ_ISAS = ["sse2", "sse4.1", "avx2", "avx512", "neon", "altivec", "generic"]


@pytest.mark.slow
@pytest.mark.parametrize("isa", FUZZ_ISAS)
def test_ci_fuzz_run(tmp_path: Path, isa: str) -> None:
    """The CI fuzz run: CI_COUNT programs (loops included) per ISA, every one must expand and verify
    (returns and calls), or be refused where a refusal was planted."""
    _fuzz_run(tmp_path, isa, 0, CI_COUNT)


@pytest.mark.slow
@pytest.mark.deep
@pytest.mark.parametrize("isa", FUZZ_ISAS)
def test_deep_fuzz_run(tmp_path: Path, isa: str) -> None:
    """The deep run's programs after the CI run's (DEEP_COUNT more per ISA, same seed)."""
    _fuzz_run(tmp_path, isa, CI_COUNT, DEEP_COUNT)


def _fuzz_run(tmp_path: Path, isa: str, start: int, count: int) -> None:
    lines: list[str] = []
    rep = run_fuzz(count=count, start=start, isa=isa, seed=CI_SEED, out=tmp_path / "failures", jobs=2,
                   minimize_failures=False, log=lines.append)
    print(rep.line())
    readme = (tmp_path / "failures" / "README").read_text() if rep.failures else ""
    assert rep.programs == count
    assert rep.mismatches == 0 and rep.crashes == 0, "\n".join([rep.line(), *lines, readme])
    if rep.not_run:  # every program expanded, compiled and linked; this host cannot run them
        pytest.skip(rep.line())


@pytest.mark.slow
def test_command_line(tmp_path: Path) -> None:
    from emit import ISAS
    out = tmp_path / "out"
    p = subprocess.run([sys.executable, "-m", "expand.check.fuzz", "--count", "3", "--seed", "2", "--isa", "sse4.1",
                        "--out", str(out), "--no-minimize"], capture_output=True, text=True, cwd=ROOT)
    m = re.search(r"^expand-fuzz: 3 programs, (\d+) mismatches, (\d+) crashes \(\d+ tracebacks, \d+ -Werror\), "
                  r"\d+ refused, \d+ planted diagnostics, [\d.]+ s$", p.stdout, re.M)
    assert m, p.stdout + p.stderr
    failed = int(m.group(1)) + int(m.group(2))
    assert p.returncode == (1 if failed else 0)
    if failed:
        assert "Reproduce: expand-fuzz --replay" in (out / "README").read_text()
    for name in ISAS:  # every ISA the registry knows is accepted
        assert fuzz.main(["--isa", name, "--count", "0", "--out", str(out)]) == 0


# ----------------------------------------------------------------------------- regressions


REGRESSION_FILES = sorted(REGRESSIONS.glob("*.c")) if REGRESSIONS.exists() else []


def _regression_isas(path: Path) -> list[str]:
    """The ISAs a regression file names (``expand-fuzz: isa avx2 avx512``: found there), else SSE4.1."""
    m = re.search(r"expand-fuzz: isa ([\w.]+(?: [\w.]+)*)", path.read_text())
    return m.group(1).split() if m else ["sse4.1"]


@pytest.mark.parametrize("path,isa_name", [
    pytest.param(p, i, id=p.stem if len(_regression_isas(p)) == 1 else f"{p.stem}-{i}")
    for p in REGRESSION_FILES if not p.name.startswith("fuzz_log") for i in _regression_isas(p)])
def test_fuzz_regression(path: Path, isa_name: str) -> None:
    if shutil.which(get_isa(isa_name).cc[0]) is None:
        pytest.skip(f"{get_isa(isa_name).cc[0]} is not installed, which compiles {isa_name} code")
    out = check_file(path, isa_name, n_random=2000)
    if out.kind == "not-run":
        pytest.skip(out.summary)
    assert out.kind == "ok", f"{path.name}: {out.kind}: {out.summary}\n{out.details[:6000]}"


def test_regression_files_are_self_contained() -> None:
    assert (REGRESSIONS / "fuzz_log.h").read_text() == fuzz.FUZZ_LOG_H
    assert (REGRESSIONS / "fuzz_log.c").read_text() == fuzz.FUZZ_LOG_C
    for path in REGRESSION_FILES:
        if path.name.startswith("fuzz_log"):
            continue
        text = path.read_text()
        # (or written by hand for what the fuzzer could not generate then, saying so)
        assert text.startswith("/*") and ("Found by expand-fuzz" in text or text.startswith("/* Written by hand")), path
        p = subprocess.run([*GCC, "-fopenmp-simd", "-c", path.name, "-o", "/dev/null"], cwd=REGRESSIONS,
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stderr

