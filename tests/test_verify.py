"""Tests of expand/check/verify.py: hand-written SSE4.1 vector functions against scalar C, bit for bit."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

import expand.check.verify as verify_module
from expand.check.verify import HARNESS_TEMPLATE, Param, VerifyReport, _fill, edge_values, verify
from expand.ir.types import DOUBLE, FLOAT, INT, UCHAR, UINT, VOID, Pointer


class StandInSse41:
    """A tiny stand-in for the SSE4.1 ISA table (just what verify uses)."""

    def __init__(self) -> None:
        self.name = "sse4.1"
        self.lanes = 4
        self.cflags = ["-msse4.1"]
        self.headers = ["<smmintrin.h>"]
        self.cc = ["gcc"]
        self.run_prefix: list[str] = []
        self.reference_cflags: list[str] = []
        self.clang = False  # compiled by GCC (emit/isa.py Isa.clang)

    def vtype(self, k: str) -> str:
        return "__m128" if k == "f32" else "__m128i"

    def mtype(self, k: str) -> str:
        return self.vtype(k)

    def loadu(self, k: str, ptr: str) -> str:
        return f"_mm_loadu_ps({ptr})" if k == "f32" else f"_mm_loadu_si128((const __m128i *)({ptr}))"

    def storeu(self, k: str, ptr: str, v: str) -> str:
        return f"_mm_storeu_ps({ptr}, {v})" if k == "f32" else f"_mm_storeu_si128((__m128i *)({ptr}), {v})"


ISA = StandInSse41()
PRELUDE = "#include <stdint.h>\n#include <smmintrin.h>\n"
N_RANDOM = 20_000


def f32(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def run(tmp_path: Path, scalar_c: str, scalar_name: str, vector_c: str, vector_name: str,
        params: list[Param], ret=FLOAT, **kw) -> VerifyReport:
    src = tmp_path / f"{scalar_name}.c"
    src.write_text(PRELUDE + scalar_c)
    kw.setdefault("n_random", N_RANDOM)
    return verify(scalar_sources=[src], scalar_name=scalar_name, vector_c=PRELUDE + vector_c,
                  vector_name=vector_name, params=params, ret=ret, isa=ISA, **kw)


FABS_C = """
float my_fabsf(float x) {
    union { float f; uint32_t u; } v = { x };
    v.u &= 0x7fffffffu;
    return v.f;
}
"""
FABS_V = """
__m128 v_fabsf(__m128 x) {
    return _mm_and_ps(x, _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff)));
}
"""
# Wrong on -0 and on negative NaNs: x < 0 ? -x : x.
FABS_V_WRONG = """
__m128 v_fabsf(__m128 x) {
    __m128 neg = _mm_cmplt_ps(x, _mm_setzero_ps());
    return _mm_blendv_ps(x, _mm_xor_ps(x, _mm_set1_ps(-0.0f)), neg);
}
"""


def test_correct_unary_function_verifies(tmp_path: Path) -> None:
    r = run(tmp_path, FABS_C, "my_fabsf", FABS_V, "v_fabsf", [Param("x", FLOAT)])
    assert r.ok, r.details
    assert r.mismatches == 0
    assert r.random_inputs == N_RANDOM
    assert r.edge_inputs > 0 and r.edge_inputs % ISA.lanes == 0
    assert r.inputs == r.edge_inputs + r.random_inputs
    assert r.summary == (f"verify: my_fabsf vs v_fabsf [sse4.1, 4 lanes]: {r.inputs} inputs "
                         f"({r.edge_inputs} edge + {N_RANDOM} random), 0 mismatches")
    assert '#include "vector.c"' in r.harness_c


def test_wrong_on_negative_zero_and_nan_is_caught(tmp_path: Path) -> None:
    r = run(tmp_path, FABS_C, "my_fabsf", FABS_V_WRONG, "v_fabsf", [Param("x", FLOAT)])
    assert not r.ok
    assert r.mismatches > 0
    # Every edge entry is rotated through the 4 lanes: -0 alone fails once per lane.
    assert r.mismatches >= 4
    assert "x=0x80000000 (-0)" in r.details
    assert "scalar 0x00000000 (0) vector 0x80000000 (-0)" in r.details
    assert r.details.count("\n") < 40  # at most 10 mismatches printed
    assert "more mismatches" in r.details
    assert f"{r.mismatches} mismatches" in r.summary


COPYSIGN_C = """
float my_copysignf(float x, float y) {
    union { float f; uint32_t u; } a = { x }, b = { y };
    a.u = (a.u & 0x7fffffffu) | (b.u & 0x80000000u);
    return a.f;
}
"""
COPYSIGN_V = """
__m128 v_copysignf(__m128 x, __m128 y) {
    __m128 s = _mm_set1_ps(-0.0f);
    return _mm_or_ps(_mm_andnot_ps(s, x), _mm_and_ps(s, y));
}
"""
# Mixes up the lanes of y (lane rotation): only lane-position-aware inputs catch it.
COPYSIGN_V_SHUFFLED = """
__m128 v_copysignf(__m128 x, __m128 y) {
    __m128 s = _mm_set1_ps(-0.0f);
    y = _mm_shuffle_ps(y, y, _MM_SHUFFLE(2, 3, 1, 0));
    return _mm_or_ps(_mm_andnot_ps(s, x), _mm_and_ps(s, y));
}
"""


def test_two_parameter_function(tmp_path: Path) -> None:
    params = [Param("x", FLOAT), Param("y", FLOAT)]
    r = run(tmp_path, COPYSIGN_C, "my_copysignf", COPYSIGN_V, "v_copysignf", params)
    assert r.ok, r.details
    assert r.edge_inputs >= 200_000  # cross product of the two edge sets (capped)
    bad = run(tmp_path, COPYSIGN_C, "my_copysignf", COPYSIGN_V_SHUFFLED, "v_copysignf", params)
    assert not bad.ok and bad.mismatches > 0
    assert " x=0x" in bad.details and " y=0x" in bad.details


ISINF_C = """
int my_isinff(float x) {
    union { float f; int32_t i; } v = { x };
    int32_t t = v.i & 0x7fffffff;
    t ^= 0x7f800000;
    t |= -t;
    return ~(t >> 31) & (v.i >> 30);
}
"""
ISINF_V = """
__m128i v_isinff(__m128 x) {
    __m128i i = _mm_castps_si128(x);
    __m128i inf = _mm_cmpeq_epi32(_mm_and_si128(i, _mm_set1_epi32(0x7fffffff)), _mm_set1_epi32(0x7f800000));
    return _mm_and_si128(inf, _mm_srai_epi32(i, 30));
}
"""
ISINF_V_WRONG = """
__m128i v_isinff(__m128 x) {
    __m128i i = _mm_castps_si128(x);
    __m128i inf = _mm_cmpeq_epi32(_mm_and_si128(i, _mm_set1_epi32(0x7fffffff)), _mm_set1_epi32(0x7f800000));
    return _mm_and_si128(inf, _mm_set1_epi32(1));  /* forgets the sign: -inf gives 1 */
}
"""


def test_int_returning_function(tmp_path: Path) -> None:
    params = [Param("x", FLOAT)]
    r = run(tmp_path, ISINF_C, "my_isinff", ISINF_V, "v_isinff", params, ret=INT)
    assert r.ok, r.details
    bad = run(tmp_path, ISINF_C, "my_isinff", ISINF_V_WRONG, "v_isinff", params, ret=INT)
    assert not bad.ok
    assert bad.mismatches == 4  # -inf, once in each lane position; random inputs never hit it
    assert "x=0xff800000 (-inf)" in bad.details
    assert "scalar 0xffffffff (-1) vector 0x00000001 (1)" in bad.details


STORE_C = """
void my_store(float x, float *y) {
    if (x > 1.0f)
        *y = x;
}
"""
STORE_V = """
void v_store(__m128 x, __m128 *y) {
    __m128 m = _mm_cmpgt_ps(x, _mm_set1_ps(1.0f));
    _mm_storeu_ps((float *)y, _mm_blendv_ps(_mm_loadu_ps((const float *)y), x, m));
}
"""
STORE_V_WRONG = """
void v_store(__m128 x, __m128 *y) {
    __m128 m = _mm_cmpgt_ps(x, _mm_set1_ps(1.0f));
    _mm_storeu_ps((float *)y, _mm_and_ps(x, m));  /* writes every lane */
}
"""


def test_pointer_parameter(tmp_path: Path) -> None:
    params = [Param("x", FLOAT), Param("y", Pointer(FLOAT))]
    r = run(tmp_path, STORE_C, "my_store", STORE_V, "v_store", params, ret=VOID)
    assert r.ok, r.details
    bad = run(tmp_path, STORE_C, "my_store", STORE_V_WRONG, "v_store", params, ret=VOID)
    assert not bad.ok and bad.mismatches > 0
    assert "*y after: DIFFERS" in bad.details
    assert " *y=0x" in bad.details  # the pointee's value before the call is shown


ADD_C = """
int my_addsat(int a, unsigned b) {
    long s = (long)a + b;
    return s > 100000 ? 100000 : (int)s;
}
"""
ADD_V = """
__m128i v_addsat(__m128i a, __m128i b) {
    return _mm_min_epi32(_mm_add_epi32(a, b), _mm_set1_epi32(100000));
}
"""


def test_int_parameters_and_constants(tmp_path: Path) -> None:
    """Wraps past INT_MAX (a + b overflows in 32 bits): the edge set finds it."""
    params = [Param("a", INT), Param("b", UINT)]
    r = run(tmp_path, ADD_C, "my_addsat", ADD_V, "v_addsat", params, ret=INT, constants=[100000])
    assert not r.ok and r.mismatches > 0
    assert " a=0x" in r.details and " b=0x" in r.details
    assert "return: DIFFERS scalar 0x000186a0 (100000) vector 0x" in r.details


class StandInSse2Double(StandInSse41):
    """Two lanes of double in one __m128d."""

    def __init__(self) -> None:
        super().__init__()
        self.name, self.lanes, self.cflags = "sse2", 2, ["-msse2"]

    def vtype(self, k: str) -> str:
        return "__m128d"

    def loadu(self, k: str, ptr: str) -> str:
        return f"_mm_loadu_pd({ptr})"

    def storeu(self, k: str, ptr: str, v: str) -> str:
        return f"_mm_storeu_pd({ptr}, {v})"


FABS_D_C = """
double my_fabs(double x) {
    union { double f; uint64_t u; } v = { x };
    v.u &= 0x7fffffffffffffffull;
    return v.f;
}
"""
FABS_D_V = """
__m128d v_fabs(__m128d x) {
    return _mm_andnot_pd(_mm_set1_pd(-0.0), x);
}
"""


def test_double_two_lanes(tmp_path: Path) -> None:
    src = tmp_path / "my_fabs.c"
    src.write_text(PRELUDE + FABS_D_C)
    r = verify(scalar_sources=[src], scalar_name="my_fabs", vector_c=PRELUDE + FABS_D_V, vector_name="v_fabs",
               params=[Param("x", DOUBLE)], ret=DOUBLE, isa=StandInSse2Double(), n_random=N_RANDOM)
    assert r.ok, r.details
    assert r.edge_inputs == 2 * len(edge_values(DOUBLE)) and "[sse2, 2 lanes]" in r.summary


def test_compile_error_is_a_report(tmp_path: Path) -> None:
    r = run(tmp_path, FABS_C, "my_fabsf", "__m128 v_fabsf(__m128 x) { return x + ; }\n", "v_fabsf",
            [Param("x", FLOAT)])
    assert not r.ok and r.inputs == 0
    assert "failed" in r.summary
    assert "error" in r.details and "harness" in r.details
    # -Wall -Werror holds the generated code (the vector file and what the harness makes of it) ...
    r = run(tmp_path, FABS_C, "my_fabsf", FABS_V.replace("{", "{ int unused;", 1), "v_fabsf", [Param("x", FLOAT)])
    assert not r.ok and "unused" in r.details
    # ... not the user's own source, compiled as their project would (a warning there is theirs)
    r = run(tmp_path, "float my_fabsf(float x) { int unused; return __builtin_fabsf(x); }\n", "my_fabsf", FABS_V,
            "v_fabsf", [Param("x", FLOAT)])
    assert r.ok, r.details


def test_crash_is_a_report(tmp_path: Path) -> None:
    vec = "#include <stdlib.h>\n__m128 v_fabsf(__m128 x) { abort(); return x; }\n"
    r = run(tmp_path, FABS_C, "my_fabsf", vec, "v_fabsf", [Param("x", FLOAT)])
    assert not r.ok and "crashed" in r.summary


def test_keep_and_workdir(tmp_path: Path) -> None:
    wd = tmp_path / "work"
    r = run(tmp_path, FABS_C, "my_fabsf", FABS_V, "v_fabsf", [Param("x", FLOAT)], workdir=wd, n_random=10)
    assert r.ok and r.random_inputs == 12  # rounded up to whole gangs
    assert (wd / "harness.c").read_text() == r.harness_c
    assert (wd / "vector.c").exists()


def test_float_edge_set() -> None:
    e = edge_values(FLOAT, [0x4B000000, 23, 0.5])
    s = set(e)
    assert len(e) == len(s)
    assert {0, 0x80000000, 0x7F800000, 0xFF800000} <= s
    assert {0x7FC00000, 0xFFC00000, 0x7FA00000, 0xFFA00000} <= s  # quiet, signalling, negative NaNs
    assert {1, 0x007FFFFF, 0x00800000, 0x7F7FFFFF} <= s  # subnormal/normal extremes
    for k in range(-149, 128):
        b = f32(2.0**k)
        assert b in s and b | 0x80000000 in s
    assert {f32(1.0) - 1, f32(1.0) + 1, f32(2.0**23) - 1, f32(2.0**23) + 1} <= s
    # Constants: the bit pattern and its neighbours, and the value, with both signs.
    assert {0x4AFFFFFF, 0x4B000000, 0x4B000001, 0xCB000000} <= s
    assert {f32(22.0), f32(23.0), f32(24.0), f32(-23.0), 22, 23, 24} <= s


def test_double_and_int_edge_sets() -> None:
    d = set(edge_values(DOUBLE, [0x3FF00000]))
    assert {0, 1 << 63, 0x7FF8000000000000, 0x7FF4000000000000, 0xFFF8000000000000} <= d
    assert 0x3FF0000000000000 in d and 0x3FEFFFFF00000000 in d  # high-word compares
    i = edge_values(INT, [-1022, 1 << 40])
    assert {0, 1, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 0x80000001, 0x7FFFFFFE} <= set(i)
    assert {(-1023) & 0xFFFFFFFF, (-1022) & 0xFFFFFFFF, (-1021) & 0xFFFFFFFF} <= set(i)
    assert all(0 <= v <= 0xFFFFFFFF for v in i)
    assert edge_values(UCHAR, [300]) == edge_values(UCHAR)  # out-of-range constants are skipped
    with pytest.raises(TypeError):
        edge_values(VOID)


def test_harness_template_directives() -> None:
    """harness.c's syntax (verify._fill): //@if/else/endif nest, a ${NAME} line takes generated lines
    indented like it, ${NAME} elsewhere a value, //@ notes vanish; a bad directive is an error."""
    tpl = ("//@ a note\n"
           "int v = ${x};\n"
           "//@if a\n"
           "    //@if b\n"
           "    A_and_B;\n"
           "    //@else\n"
           "    A_not_B;\n"
           "    //@endif\n"
           "//@else\n"
           "not_A;\n"
           "//@endif\n"
           "{\n"
           "    ${lines}\n"
           "    ${none}\n"
           "}\n")
    got = _fill(tpl, {"x": 3}, {"a": True, "b": False}, {"lines": ["f();", "", "if (y)", "    g();"], "none": []})
    assert got == "int v = 3;\n    A_not_B;\n{\n    f();\n\n    if (y)\n        g();\n}\n"
    assert _fill(tpl, {"x": 3}, {"a": False, "b": True}, {"lines": [], "none": []}) == "int v = 3;\nnot_A;\n{\n}\n"
    with pytest.raises(ValueError, match="unknown directive"):
        _fill("//@iff a\n", {}, {}, {})
    with pytest.raises(ValueError, match="without its"):
        _fill("//@if a\n", {}, {"a": True}, {})
    with pytest.raises(KeyError):
        _fill("int v = ${y};\n", {}, {}, {})


def test_harness_template_is_package_data() -> None:
    """The harness template (and the fuzzer's C files) are found where the modules look, and an installed
    expand has them: pyproject.toml lists them as package data of expand.check."""
    assert HARNESS_TEMPLATE.is_file() and HARNESS_TEMPLATE.parent == Path(verify_module.__file__).resolve().parent
    pyproject = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    line = next(ln for ln in pyproject.splitlines() if ln.startswith('"expand.check" = '))
    for name in ("harness.c", "fuzz_log.c", "fuzz_log.h"):
        assert f'"{name}"' in line and (HARNESS_TEMPLATE.parent / name).is_file()
