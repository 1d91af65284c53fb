"""errno and global variables written by the function: after the vector call they hold what the scalar
function, called on the active lanes in lane order, leaves (the last write of the highest lane that wrote
them), on every ISA; the verifier compares errno (expand/passes/global_writes.py, emit/printer.py,
expand/check/verify.py)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from daily import on_every_isa
from expand_case import check_source, expand_source

from emit import get_isa
from expand.check.verify import Param, verify
from expand.ir.diagnostics import ExpandError
from expand.ir.types import FLOAT

ROOT = Path(__file__).parent.parent

#: glibc's error helpers (math_errf.c) as a --link companion: each sets errno and returns its result
HELPERS = """#include <errno.h>
float __math_invalidf(float x) { errno = EDOM; return (x - x) / (x - x); }
float __math_divzerof(unsigned sign) { errno = ERANGE; return (sign ? -1.0f : 1.0f) / 0.0f; }
float __math_oflowf(unsigned sign) { errno = ERANGE; return (sign ? -0x1p97f : 0x1p97f) * 0x1p97f; }
"""

HELPER_DECLS = ("float __math_invalidf(float x);\nfloat __math_divzerof(unsigned sign);\n"
                "float __math_oflowf(unsigned sign);\n")

CASES: dict[str, tuple[str, str]] = {
    # errno = ERANGE under a varying condition
    "direct": ("#include <errno.h>\n"
               "float f(float x)\n"
               "{\n"
               "    if (x > 10.0f)\n"
               "        errno = ERANGE;\n"
               "    return x * 0.5f;\n"
               "}\n", ""),
    # logf's shape: lane 0 -> __math_invalidf (EDOM), lane 1 -> __math_divzerof (ERANGE): the scalar code
    # leaves the highest writing lane's errno, whatever the order of the call sites
    "two_call_sites": (HELPER_DECLS +
                       "float f(float x)\n"
                       "{\n"
                       "    if (x < -1.0f)\n"
                       "        return __math_invalidf(x);\n"
                       "    if (x > 1.0f)\n"
                       "        return __math_divzerof(x > 2.0f);\n"
                       "    return x;\n"
                       "}\n", HELPERS),
    # a direct write and a call in one function, the call in a loop whose trip count differs per lane
    "direct_and_call": ("#include <errno.h>\n" + HELPER_DECLS +
                        "float f(float x, int n)\n"
                        "{\n"
                        "    float r = x;\n"
                        "    if (x < 0.0f)\n"
                        "        errno = EDOM;\n"
                        "    for (int i = 0; i < (n & 3); i++)\n"
                        "        if (r > 1.0f)\n"
                        "            r = r * 0.5f + (__math_oflowf(i & 1) > 0.0f ? 0.25f : 0.0f);\n"
                        "    return r;\n"
                        "}\n", HELPERS),
    # a callee that saves and restores errno writes nothing: the lanes' other writes stand
    "save_restore": ("#include <errno.h>\n"
                     "float quiet(float x);\n"
                     "float f(float x)\n"
                     "{\n"
                     "    float r = quiet(x);\n"
                     "    if (x < 0.0f)\n"
                     "        errno = EDOM;\n"
                     "    return r + quiet(r);\n"
                     "}\n",
                     "#include <errno.h>\n"
                     "float quiet(float x) { int saved = errno; errno = ERANGE; x = x * 2.0f; errno = saved;"
                     " return x; }\n"),
    # glibc's spelling (sysdeps/.../s_nextafterf.c, e_hypotf.c)
    "set_errno": ("#include <errno.h>\n"
                  "#define __set_errno(val) (errno = (val))\n"
                  "float f(float x, float y)\n"
                  "{\n"
                  "    float r = x * y;\n"
                  "    if (r > 1e30f)\n"
                  "        __set_errno (ERANGE);\n"
                  "    else if (x < y)\n"
                  "        __set_errno (EDOM);\n"
                  "    return r;\n"
                  "}\n", ""),
    # sqrtf of a negative number sets EDOM in the scalar code (GCC calls sqrtf for it), in an arm of ?:
    # a sqrt that may set errno in lanes the scalar code does not run it in, beside per-lane calls
    "sqrt_edom_and_calls": (HELPER_DECLS + "#include <math.h>\n"
                            "float f(float x, float y)\n"
                            "{\n"
                            "    float r = y > 0.0f ? sqrtf(x) * y : -y;\n"
                            "    if (x > 1e30f)\n"
                            "        r = __math_oflowf(0);\n"
                            "    if (y < -1e30f)\n"
                            "        r = __math_invalidf(y);\n"
                            "    return r;\n"
                            "}\n", HELPERS),
    "sqrt_edom": ("#include <math.h>\n"
                  "float f(float x, float y)\n"
                  "{\n"
                  "    return y > 0.0f ? sqrtf(x) * y : -y;\n"
                  "}\n", ""),
    # sqrtf of integers converted to a signed type that wraps them (uint64_t -> int64_t, int64_t -> int,
    # uint32_t -> int, 200 -> signed char): negative in some lanes, so EDOM there (fuzz program 1130)
    "sqrt_of_wrapped_int": ("#include <stdint.h>\n#include <math.h>\n"
                            "float f(int16_t y, int64_t w, uint32_t u)\n"
                            "{\n"
                            "    int64_t p = (int64_t)((uint64_t)(int64_t)y * (uint64_t)w);\n"
                            "    float r = sqrtf((float)(int)p) + sqrtf((float)(int)u);\n"
                            "    return r + sqrtf((float)(signed char)(u & 0xffu));\n"
                            "}\n", ""),
    # sinf and tan set EDOM for an infinity (glibc), though GCC takes them to set no errno and would fold
    # the watch's read of errno after a lane's call: the calls go through a pointer GCC cannot see through
    "hidden_errno": ("#include <errno.h>\n#include <math.h>\n"
                     "float f(float x, float y)\n"
                     "{\n"
                     "    float r = x;\n"
                     "    if (x < 0.0f)\n"
                     "        errno = ERANGE;\n"
                     "    else if (sinf(y) > 0.5f || tan(y) < -1.0)\n"
                     "        r = -x;\n"
                     "    return r;\n"
                     "}\n", ""),
    # the same spelled as GCC's builtin, without <math.h> (the output declares cosf for its pointer)
    "hidden_errno_builtin": ("#include <errno.h>\n"
                             "float f(float x, float y)\n"
                             "{\n"
                             "    float r = x;\n"
                             "    if (x < 0.0f)\n"
                             "        errno = ERANGE;\n"
                             "    else if (__builtin_cosf(y) > 0.5f)\n"
                             "        r = -x;\n"
                             "    return r;\n"
                             "}\n", ""),
    # other globals: the highest writing lane's value, of a varying value
    "other_globals": ("int last_class;\n"
                      "float last_big;\n"
                      "float f(float x)\n"
                      "{\n"
                      "    if (x < 0.0f)\n"
                      "        last_class = -1;\n"
                      "    else if (x > 100.0f && x < 1e9f) {\n"
                      "        last_class = (int)x;\n"
                      "        last_big = x;\n"
                      "    }\n"
                      "    return x + 1.0f;\n"
                      "}\n", ""),
    # one call site of a libm function GCC takes to set no errno (glibc's sinf and sincosf set EDOM for an
    # infinity), called per lane: the lanes' calls go through a pointer GCC cannot see through, else GCC
    # folds a read of errno after the vector function (the verifier's, in the file that includes it)
    "errno_hidden_call": ("#include <math.h>\n"
                          "float f(float x)\n"
                          "{\n"
                          "    return sinf(x) * 0.5f;\n"
                          "}\n", ""),
    "errno_hidden_out_parameters": ("#define _GNU_SOURCE\n#include <math.h>\n"
                                    "float f(float x)\n"
                                    "{\n"
                                    "    float s, c;\n"
                                    "    sincosf(x, &s, &c);\n"
                                    "    return s * 2.0f + c;\n"
                                    "}\n", ""),
    # a thread-local one (the output declares it extern _Thread_local)
    "thread_local": ("_Thread_local int last_sign;\n"
                     "float f(float x)\n"
                     "{\n"
                     "    if (x < 0.0f)\n"
                     "        last_sign = -1;\n"
                     "    else if (x > 0.0f)\n"
                     "        last_sign = 1;\n"
                     "    return x;\n"
                     "}\n", ""),
}


@pytest.mark.parametrize("case,isa_name", on_every_isa(sorted(CASES)))
def test_errno_as_the_scalar_code_leaves_it(tmp_path: Path, case: str, isa_name: str) -> None:
    text, companion = CASES[case]
    check_source(tmp_path, case, text, isa_name, companion=companion)


@pytest.mark.parametrize("case", sorted(CASES))
def test_errno_with_the_clang_frontend(tmp_path: Path, case: str) -> None:
    text, companion = CASES[case]
    check_source(tmp_path, case, text, "sse4.1", companion=companion, frontend="clang")


def test_output_tracks_the_highest_lane(tmp_path: Path) -> None:
    """Two call sites: each lane's call runs between sentinels, and each call site's loop leaves errno as
    it found it unless a lane set it, then as the highest lane so far set it: errno is neither read at the
    entry nor written at the exit, so the path without per-lane calls never touches it."""
    _, _, res = expand_source(tmp_path, "two", CASES["two_call_sites"][0], "sse4.1")
    assert res.text.count("errno = -0x45585041;") == 2
    assert res.text.count("errno = errno_lane >= 0 ? errno_value : errno_before;") == 2
    reads = [ln.strip() for ln in res.text.splitlines() if re.search(r"= errno;", ln)]
    assert reads == ["int errno_before = errno;", "errno_value = errno;"] * 2, reads
    assert "errno_entry" not in res.text
    assert "#include <errno.h>" in res.text


def test_errno_read_at_the_entry_where_a_sqrt_may_set_it(tmp_path: Path) -> None:
    """A sqrt (a libm call per lane on some ISAs, inactive lanes included) beside per-lane calls: errno's
    value from the entry is put back at the exit where no lane set it (sqrt_edom_and_calls verifies it)."""
    _, _, res = expand_source(tmp_path, "sq", CASES["sqrt_edom_and_calls"][0], "generic")
    assert "int errno_entry = errno;" in res.text
    assert "errno = errno_lane >= 0 ? errno_value : errno_entry;" in res.text


def test_one_call_site_needs_no_tracking(tmp_path: Path) -> None:
    """One call site outside loops: its per-lane calls run in lane order, as the scalar calls do."""
    text = HELPER_DECLS + ("float f(float x)\n{\n    if (x < 0.0f)\n        return __math_invalidf(x);\n"
                           "    return x;\n}\n")
    _, _, res = expand_source(tmp_path, "one", text, "sse4.1")
    assert "errno" not in res.text
    check_source(tmp_path, "one", text, "sse4.1", companion=HELPERS)


def test_sqrt_of_what_cannot_be_negative_sets_no_errno(tmp_path: Path) -> None:
    text = ("#include <math.h>\nfloat f(float x, float y)\n{\n"
            "    return sqrtf(x * x + y * y) + sqrtf(x > 0.0f ? x : 0.0f);\n}\n")
    _, _, res = expand_source(tmp_path, "hyp", text, "sse4.1")
    assert "errno" not in res.text
    # integers converted to a type that holds every value they may have: a mask, a widening
    text = ("#include <stdint.h>\n#include <math.h>\nfloat f(int64_t w, uint16_t h, uint32_t u)\n{\n"
            "    return sqrtf((float)(int)(w & 0x7fffffff)) + sqrtf((float)(int)h) + sqrtf((float)(int64_t)u)\n"
            "        + sqrtf((float)(signed char)(u & 0x7fu));\n}\n")
    _, _, res = expand_source(tmp_path, "masked", text, "sse4.1")
    assert "errno" not in res.text


DIAGNOSED = {
    "reads_errno": ("#include <errno.h>\n#include <math.h>\n"
                    "float f(float x)\n{\n    float y = logf(x);\n    if (errno == ERANGE)\n        return 0.0f;\n"
                    "    return y;\n}\n", r":6:\d+: .*'f' reads errno, which it may also set"),
    "reads_errno_after_write": ("#include <errno.h>\n"
                                "int f(int x)\n{\n    if (x < 0)\n        errno = EDOM;\n    return errno;\n}\n",
                                r":6:\d+: .*'f' reads errno"),
    "reads_written_global": ("int g;\nint f(int x)\n{\n    g = x;\n    return g + 1;\n}\n",
                             r":5:\d+: .*reads global variable 'g', which it also assigns"),
    "static_global": ("static int g;\nint f(int x)\n{\n    g = x;\n    return x;\n}\n",
                      r":4:\d+: .*static global variable 'g'"),
    "call_may_write_global": ("int g;\nint h(int);\nint f(int x)\n{\n    g = x;\n    return h(x);\n}\n",
                              r":6:\d+: .*'h' is called once per lane and may assign global variable 'g'"),
}


@pytest.mark.parametrize("frontend", ["pycparser", "clang"])
@pytest.mark.parametrize("case", sorted(DIAGNOSED))
def test_what_simd_cannot_reproduce_is_a_diagnostic(tmp_path: Path, case: str, frontend: str) -> None:
    text, expected = DIAGNOSED[case]
    with pytest.raises(ExpandError) as exc:
        expand_source(tmp_path, case, text, "sse4.1", frontend=frontend)
    assert re.search(expected, exc.value.render()), exc.value.render()


def test_cli_diagnoses_an_errno_read(tmp_path: Path) -> None:
    src = tmp_path / "r.c"
    src.write_text(DIAGNOSED["reads_errno"][0])
    p = subprocess.run([sys.executable, "-m", "expand.cli", str(src), "--isa", "sse4.1"], capture_output=True,
                       text=True, cwd=ROOT)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert re.match(rf"{re.escape(str(src))}:6:\d+: error: 'f' reads errno", p.stderr), p.stderr


def test_an_errno_read_without_writes_is_uniform(tmp_path: Path) -> None:
    """Nothing in the function sets errno: every lane reads the value it had at the call."""
    check_source(tmp_path, "ro", "#include <errno.h>\nint f(int x)\n{\n    return x + errno;\n}\n", "sse4.1")


# --- the verifier catches a wrong errno: a hand-written vector function that sets errno call site by
# call site (the last site in program order wins), where the scalar code's highest writing lane wins

SCALAR = """#include <errno.h>
float f(float x)
{
    if (x < 0.0f)
        errno = EDOM;
    else if (x == 0.0f)
        errno = ERANGE;
    return x;
}
"""

WRONG_VECTOR = """#include <errno.h>
#include <smmintrin.h>
__m128 vf(__m128 x)
{
    if (_mm_movemask_ps(_mm_cmplt_ps(x, _mm_setzero_ps())))
        errno = EDOM;
    if (_mm_movemask_ps(_mm_cmpeq_ps(x, _mm_setzero_ps())))
        errno = ERANGE;
    return x;
}
"""


def test_verifier_reports_a_wrong_errno(tmp_path: Path) -> None:
    src = tmp_path / "f.c"
    src.write_text(SCALAR)
    rep = verify(scalar_sources=[src], scalar_name="f", vector_c=WRONG_VECTOR, vector_name="vf",
                 params=[Param("x", FLOAT)], ret=FLOAT, isa=get_isa("sse4.1"), n_random=2000)
    if rep.not_run is not None:
        pytest.skip(rep.summary)
    assert not rep.ok and rep.mismatches > 0, rep.summary
    assert rep.verdict == "mismatch"
    # a gang with a zero lane below a negative lane: the scalar code leaves EDOM, this vector code ERANGE
    assert "errno: DIFFERS scalar 33 (EDOM) vector 34 (ERANGE)" in rep.details, rep.details
    # the reported lane is the one whose scalar call wrote last, and the return values are the same
    assert re.search(r"input \d+ \(edge\) lane \d: x=0x[0-9a-f]+ \(-", rep.details), rep.details
    assert "return: same" in rep.details
    # the same vector function without errno comparison (errno=False) matches
    rep = verify(scalar_sources=[src], scalar_name="f", vector_c=WRONG_VECTOR, vector_name="vf",
                 params=[Param("x", FLOAT)], ret=FLOAT, isa=get_isa("sse4.1"), n_random=2000, errno=False)
    assert rep.ok, rep.summary


def test_verifier_reports_an_errno_the_scalar_code_leaves_alone(tmp_path: Path) -> None:
    src = tmp_path / "g.c"
    src.write_text("float g(float x) { return x; }\n")
    vec = "#include <errno.h>\n#include <smmintrin.h>\n__m128 vg(__m128 x) { errno = 0; return x; }\n"
    rep = verify(scalar_sources=[src], scalar_name="g", vector_c=vec, vector_name="vg",
                 params=[Param("x", FLOAT)], ret=FLOAT, isa=get_isa("sse4.1"), n_random=100)
    if rep.not_run is not None:
        pytest.skip(rep.summary)
    assert not rep.ok
    assert re.search(r"errno: DIFFERS scalar \d+ \(unchanged\) vector 0\n", rep.details + "\n"), rep.details


@pytest.mark.slow  # (builds the vector libm's logf)
def test_vector_libm_calls_with_other_errno_writes(tmp_path: Path) -> None:
    """logf through mathlib's vector libm (it leaves its highest writing lane's errno) next to a direct
    write: calls with one lane on find the lane (expand --verify builds the library on demand)."""
    src = tmp_path / "lv.c"
    src.write_text("#include <errno.h>\n#include <math.h>\n"
                   "float f(float x, float y)\n{\n    float r = y;\n    if (y < 0.0f)\n        errno = EDOM;\n"
                   "    else\n        r = logf(x) * y;\n    return r;\n}\n")
    out = tmp_path / "lv_out.c"
    p = subprocess.run([sys.executable, "-m", "expand.cli", str(src), "--isa", "sse4.1", "--random", "20000",
                        "--verify", "-o", str(out)], capture_output=True, text=True, cwd=ROOT)
    if p.returncode == 3:
        pytest.skip(p.stderr)
    assert p.returncode == 0, p.stdout + p.stderr
    text = out.read_text()
    assert "_Exp_logf_sse41_masked(lane_mask, " in text and "0 mismatches" in p.stdout
