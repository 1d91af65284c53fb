"""Tests of parameter shapes in expand/check/verify.py (uniform and linear parameters, uniform arrays).

Hand-written SSE4.1 vector functions following the vector function ABI: uniform and linear
parameters are plain scalars (a linear one holds lane 0's value), uniform pointers plain pointers.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_verify import ISA, N_RANDOM, run

from expand.check.verify import OFFSET, Param, edge_values
from expand.ir.types import FLOAT, INT, UCHAR, UINT, VOID, Pointer

ROW = Param("row", Pointer(FLOAT, const=True), "uniform")
X = Param("x", INT, "linear")

BLUR_C = """
float blur(const float *row, int x) {
    return (row[x - 1] + row[x] + row[x + 1]) * (1.0f / 3);
}
"""
BLUR_V = """
__m128 v_blur(const float *row, int x) {
    __m128 a = _mm_loadu_ps(row + x - 1), b = _mm_loadu_ps(row + x), c = _mm_loadu_ps(row + x + 1);
    return _mm_mul_ps(_mm_add_ps(_mm_add_ps(a, b), c), _mm_set1_ps(1.0f / 3));
}
"""
# Forgets the lane offsets of x: every lane reads lane 0's neighbourhood.
BLUR_V_NOT_LINEAR = """
__m128 v_blur(const float *row, int x) {
    __m128 a = _mm_set1_ps(row[x - 1]), b = _mm_set1_ps(row[x]), c = _mm_set1_ps(row[x + 1]);
    return _mm_mul_ps(_mm_add_ps(_mm_add_ps(a, b), c), _mm_set1_ps(1.0f / 3));
}
"""


def test_box_blur_uniform_row_linear_x(tmp_path: Path) -> None:
    r = run(tmp_path, BLUR_C, "blur", BLUR_V, "v_blur", [ROW, X])
    assert r.ok, r.details
    assert r.mismatches == 0
    assert r.edge_inputs == 0 and r.inputs == r.random_inputs == N_RANDOM  # no edge values for linear x
    assert "PROT_NONE" in r.harness_c and "mprotect" in r.harness_c
    bad = run(tmp_path, BLUR_C, "blur", BLUR_V_NOT_LINEAR, "v_blur", [ROW, X])
    assert not bad.ok
    assert N_RANDOM // 2 < bad.mismatches <= 3 * N_RANDOM // 4  # lanes 1..3 (unless both give NaN, ...)
    # Gang 0 is called with x = OFFSET; lane 1's scalar call sees OFFSET + 1.
    assert f"input 1 (random) lane 1: x=0x{OFFSET + 1:08x} ({OFFSET + 1})" in bad.details
    assert "return: DIFFERS" in bad.details


BRIGHTEN_C = """
void brighten(const float *in, float *out, int x, float gain) {
    out[x] = in[x] * gain;
}
"""
BRIGHTEN_V = """
void v_brighten(const float *in, float *out, int x, float gain) {
    _mm_storeu_ps(out + x, _mm_mul_ps(_mm_loadu_ps(in + x), _mm_set1_ps(gain)));
}
"""
# Also writes the element after the gang's last one (out[x + 4]), as a 5-wide loop would.
BRIGHTEN_V_TOO_FAR = """
void v_brighten(const float *in, float *out, int x, float gain) {
    _mm_storeu_ps(out + x, _mm_mul_ps(_mm_loadu_ps(in + x), _mm_set1_ps(gain)));
    out[x + 4] = in[x + 4] * gain;
}
"""
# Stores at out + x + 1: every element lands one place too far.
BRIGHTEN_V_SHIFTED = """
void v_brighten(const float *in, float *out, int x, float gain) {
    _mm_storeu_ps(out + x + 1, _mm_mul_ps(_mm_loadu_ps(in + x), _mm_set1_ps(gain)));
}
"""
BRIGHTEN_PARAMS = [Param("in", Pointer(FLOAT, const=True), "uniform"), Param("out", Pointer(FLOAT), "uniform"),
                   X, Param("gain", FLOAT, "uniform")]


def test_brighten_with_uniform_gain(tmp_path: Path) -> None:
    r = run(tmp_path, BRIGHTEN_C, "brighten", BRIGHTEN_V, "v_brighten", BRIGHTEN_PARAMS, ret=VOID)
    assert r.ok, r.details
    # One gain per gang: each edge value of float is one gang.
    assert r.edge_inputs == ISA.lanes * len(edge_values(FLOAT))
    assert r.random_inputs == N_RANDOM


def test_write_one_element_too_far_is_caught(tmp_path: Path) -> None:
    r = run(tmp_path, BRIGHTEN_C, "brighten", BRIGHTEN_V_TOO_FAR, "v_brighten", BRIGHTEN_PARAMS, ret=VOID)
    assert not r.ok
    # The next gang rewrites out[x + 4] correctly; the last gang's stray write stays.
    assert r.mismatches == 1
    last = OFFSET + r.inputs
    assert f"array out index {last} after all calls: DIFFERS scalar 0x" in r.details
    shifted = run(tmp_path, BRIGHTEN_C, "brighten", BRIGHTEN_V_SHIFTED, "v_brighten", BRIGHTEN_PARAMS, ret=VOID)
    assert not shifted.ok and shifted.mismatches > 0
    assert f"array out index {OFFSET} after all calls: DIFFERS" in shifted.details
    assert "more mismatches" in shifted.details


CLAMP_C = """
int clamp_below(int x, int n) {
    return x < n ? x : n;
}
"""
CLAMP_V = """
__m128i v_clamp_below(__m128i x, int n) {
    return _mm_min_epi32(x, _mm_set1_epi32(n));
}
"""
CLAMP_V_UNSIGNED = """
__m128i v_clamp_below(__m128i x, int n) {
    return _mm_min_epu32(x, _mm_set1_epi32(n));
}
"""


def test_uniform_int_n(tmp_path: Path) -> None:
    params = [Param("x", INT), Param("n", INT, "uniform")]
    r = run(tmp_path, CLAMP_C, "clamp_below", CLAMP_V, "v_clamp_below", params, ret=INT)
    assert r.ok, r.details
    # Every uniform edge value of n meets every varying edge value of x in every lane position.
    n_int = len(edge_values(INT))
    assert r.edge_inputs == n_int * (-(-n_int // ISA.lanes) * ISA.lanes) * ISA.lanes
    bad = run(tmp_path, CLAMP_C, "clamp_below", CLAMP_V_UNSIGNED, "v_clamp_below", params, ret=INT)
    assert not bad.ok and bad.mismatches > 0
    assert " x=0x" in bad.details and " n=0x" in bad.details


HASH_C = """
void hash_step(unsigned *h, unsigned v) {
    *h = *h * 31u + v;
}
"""
# The scalar calls of a gang run in lane order, so the hash takes lane 0 first.
HASH_V = """
void v_hash_step(unsigned *h, __m128i v) {
    unsigned t[4];
    _mm_storeu_si128((__m128i *)t, v);
    for (int l = 0; l < 4; l++)
        *h = *h * 31u + t[l];
}
"""
HASH_V_REVERSED = """
void v_hash_step(unsigned *h, __m128i v) {
    unsigned t[4];
    _mm_storeu_si128((__m128i *)t, v);
    for (int l = 3; l >= 0; l--)
        *h = *h * 31u + t[l];
}
"""


def test_writes_through_uniform_pointer_in_lane_order(tmp_path: Path) -> None:
    params = [Param("h", Pointer(UINT), "uniform"), Param("v", UINT)]
    r = run(tmp_path, HASH_C, "hash_step", HASH_V, "v_hash_step", params, ret=VOID)
    assert r.ok, r.details
    bad = run(tmp_path, HASH_C, "hash_step", HASH_V_REVERSED, "v_hash_step", params, ret=VOID)
    assert not bad.ok and bad.mismatches == 1
    assert "array h index 0 after all calls: DIFFERS" in bad.details


# Reads the array's last element at the last input: row[x + OFFSET] with x up to OFFSET + inputs - 1.
AHEAD_C = f"""
float ahead(const float *row, int x) {{
    return row[x + {OFFSET}];
}}
"""
AHEAD_V = f"""
__m128 v_ahead(const float *row, int x) {{
    return _mm_loadu_ps(row + x + {OFFSET});
}}
"""
# Same values, but a lookahead load reads one element past the gang's last one (the asm keeps the
# compiler from dropping or narrowing the load).
AHEAD_V_OVERREAD = f"""
__m128 v_ahead(const float *row, int x) {{
    __m128 a = _mm_loadu_ps(row + x + {OFFSET}), next = _mm_loadu_ps(row + x + {OFFSET} + 1);
    __asm__ volatile("" :: "x"(next));
    return a;
}}
"""
def test_load_past_the_end_traps(tmp_path: Path) -> None:
    params = [ROW, X]
    r = run(tmp_path, AHEAD_C, "ahead", AHEAD_V, "v_ahead", params)
    assert r.ok, r.details
    bad = run(tmp_path, AHEAD_C, "ahead", AHEAD_V_OVERREAD, "v_ahead", params)
    assert not bad.ok
    assert "crashed (killed by signal 11 (SIGSEGV))" in bad.summary
    last = N_RANDOM // ISA.lanes - 1
    assert f"signal 11 in the vector call (inputs {4 * last}..{4 * last + 3})" in bad.details


def test_stray_store_before_the_array_traps(tmp_path: Path) -> None:
    vec = f"""
void v_brighten(const float *in, float *out, int x, float gain) {{
    _mm_storeu_ps(out + x, _mm_mul_ps(_mm_loadu_ps(in + x), _mm_set1_ps(gain)));
    if (x == {OFFSET}) _mm_storeu_ps(out - 1024, _mm_setzero_ps());  /* 4 KiB before element 0 */
}}
"""
    r = run(tmp_path, BRIGHTEN_C, "brighten", vec, "v_brighten", BRIGHTEN_PARAMS, ret=VOID)
    assert not r.ok and "crashed" in r.summary and "SIGSEGV" in r.summary
    assert "in the vector call (inputs 0..3)" in r.details


def test_uniform_uchar_row_and_linear_x(tmp_path: Path) -> None:
    scalar = """
int diff(const unsigned char *row, int x) {
    return row[x + 1] - row[x];
}
"""
    vec = """
__m128i v_diff(const unsigned char *row, int x) {
    __m128i a = _mm_cvtepu8_epi32(_mm_loadu_si32(row + x));
    __m128i b = _mm_cvtepu8_epi32(_mm_loadu_si32(row + x + 1));
    return _mm_sub_epi32(b, a);
}
"""
    params = [Param("row", Pointer(UCHAR, const=True), "uniform"), X]
    r = run(tmp_path, scalar, "diff", vec, "v_diff", params, ret=INT, n_random=1000)
    assert r.ok, r.details


def test_shape_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="shape"):
        run(tmp_path, BLUR_C, "blur", BLUR_V, "v_blur", [ROW, Param("x", INT, "strided")])
    with pytest.raises(TypeError, match="linear"):
        run(tmp_path, BLUR_C, "blur", BLUR_V, "v_blur", [ROW, Param("x", FLOAT, "linear")])
    with pytest.raises(TypeError, match="linear"):
        run(tmp_path, BLUR_C, "blur", BLUR_V, "v_blur", [Param("row", Pointer(FLOAT), "linear"), X])


def test_default_shape_is_varying() -> None:
    assert Param("x", FLOAT).shape == "varying"
