"""A select whose arms are its comparison's operands (``a < b ? a : b``, a clamp, std::max written out)
as the ISA's min or max instruction where that instruction computes exactly the select
(``Isa.minmax``): integers held in 32-bit lanes on every ISA with such an instruction, floats on x86
only (minps/maxps give the second operand for a NaN and for equal operands, as the select's false arm
does; NEON's and POWER's take a NaN otherwise), 64-bit integers on AVX-512."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from daily import on_every_isa
from expand_case import check_source, expand_source

#: Every arrangement of a select on its own comparison: both orders of the arms, <, >, <=, >=, constants
#: (-0.0 and +0.0 among them) and uniform operands; each must stay bit-exact (NaN bits included).
CASES = {
    "float_minmax": ("float f(float a, float b, float c)\n{\n"
                     "    float lo = a < b ? a : b;\n"
                     "    float hi = a > b ? a : b;\n"
                     "    float mx = a < b ? b : a;\n"
                     "    float mn = b < a ? b : a;\n"
                     "    float z = c > -0.0f ? c : -0.0f;\n"
                     "    float w = 0.0f < c ? 0.0f : c;\n"
                     "    float le = a <= b ? a : b;\n"
                     "    float ge = a >= b ? b : a;\n"
                     "    return lo * 1.5f + hi * 0.25f - mx * 3.0f + mn + z * 0.125f - w + le * 0.5f + ge;\n}\n"),
    "int_clamp": ("#include <stdint.h>\n"
                  "static int clampi(int v, int lo, int hi)\n"
                  "{\n    int m = v < lo ? lo : v;\n    return hi < m ? hi : m;\n}\n"
                  "int f(int x, uint32_t u, int16_t s, uint8_t c)\n{\n"
                  "    int r = clampi(x, -7, 300);\n"
                  "    uint32_t v = u <= 0x80000000u ? u : 0x80000000u;\n"
                  "    uint32_t w = u >= 5u ? u : 5u;\n"
                  "    int16_t t = s > -3 ? s : -3;\n"
                  "    uint8_t d = c < 200 ? c : 200;\n"
                  "    return r ^ (int)(v >> 1) ^ (int)w ^ t ^ d;\n}\n"),
    "int64_and_double": ("#include <stdint.h>\n"
                         "double f(double a, double b, int64_t i, int64_t j, uint64_t u)\n{\n"
                         "    double m = a > b ? a : b;\n"
                         "    int64_t k = i < j ? i : j;\n"
                         "    uint64_t v = u > 77u ? u : 77u;\n"
                         "    return m + (double)k + (double)v;\n}\n"),
    "uniform_bound": ("float f(float x, float lim)\n{\n    return x > lim ? lim : x;\n}\n"),
    # MAX/MIN macros on expressions (a product, a negation, a conversion); one on a table read (lowered to
    # branches, as a read that may fault in one arm is) and one whose operand calls a function with an
    # effect stay a compare and a select (the scalar code calls it twice)
    "macros": ("#define MAX(a, b) ((a) > (b) ? (a) : (b))\n#define MIN(a, b) ((a) < (b) ? (a) : (b))\n"
               "static const float T[4] = {0.5f, -0.0f, 2.0f, -3.0f};\n"
               "int calls;\n"
               "float g(float v) { calls++; return v * 0.5f; }\n"
               "float f(float x, float y, int i)\n{\n"
               "    float a = MAX(x * y, y - 1.0f);\n"
               "    float e = MAX(x, T[i & 3]);\n"
               "    float b = MIN(-x, (float)(i >> 2));\n"
               "    int c = MAX(i * 3 - 7, (i ^ 5) + 1);\n"
               "    float d = MAX(g(x), y);\n"
               "    return a + b * 0.25f + (float)c + d - e;\n}\n"),
}


@pytest.mark.parametrize("case,isa_name", on_every_isa(sorted(CASES)))
def test_minmax_selects_stay_bit_exact(tmp_path: Path, case: str, isa_name: str) -> None:
    uniform = ["lim"] if case == "uniform_bound" else []
    check_source(tmp_path, case, CASES[case], isa_name, uniform=uniform, nan_bits=True,
                 functions=["f"], bounds={"i": (-100000, 100000)} if case == "macros" else None)


def _count(text: str, pattern: str) -> int:
    return len(re.findall(pattern, text))


def test_x86_uses_min_and_max_instructions(tmp_path: Path) -> None:
    _, _, res = expand_source(tmp_path, "fl", CASES["float_minmax"], "avx2")
    # the six strict selects; <= and >= on floats stay a compare and a blend (ties and NaNs differ)
    assert _count(res.text, r"_mm256_m(in|ax)_ps\(") == 6, res.text
    assert _count(res.text, r"_mm256_cmp_ps\(") == 2
    assert "_mm256_max_ps(b, a)" in res.text  # a < b ? b : a is b > a ? b : a
    _, _, res = expand_source(tmp_path, "in", CASES["int_clamp"], "sse4.1")
    assert _count(res.text, r"_mm_m(in|ax)_ep[iu]32\(") == 6, res.text
    assert "_mm_min_epu32(" in res.text and "_mm_max_epu32(" in res.text
    _, _, res = expand_source(tmp_path, "i64", CASES["int64_and_double"], "avx512")
    assert "_mm512_max_pd(" in res.text and "_mm512_min_epi64(" in res.text and "_mm512_max_epu64(" in res.text
    _, _, res = expand_source(tmp_path, "i64", CASES["int64_and_double"], "avx2")  # no 64-bit integer min
    assert "_mm256_max_pd(" in res.text
    assert _count(res.text, r"_mm256_m(in|ax)_ep[iu]64\(") == 0


def test_macros_on_expressions(tmp_path: Path) -> None:
    _, _, res = expand_source(tmp_path, "mac", CASES["macros"], "avx2", functions=["f"])
    body = res.text[res.text.index("_Exp_f("):]
    assert _count(body, r"_mm256_max_ps\(") == 1 and _count(body, r"_mm256_min_ps\(") == 1, body
    assert _count(body, r"_mm256_max_epi32\(") == 1, body
    assert _count(body, r"_mm256_blendv_ps\(") >= 2  # MAX(x, T[i & 3]); MAX(g(x), y): g's two calls


def test_other_isas_keep_float_selects(tmp_path: Path) -> None:
    """NEON and POWER: integer min/max, float selects kept; SSE2: float min/max only."""
    for isa_name, imin, fmin in (("neon", r"vm(in|ax)q_[su]32\(", r"vm(in|ax)(nm)?q_f32\("),
                                 ("altivec", r"vec_m(in|ax)\(", None),
                                 ("sse2", r"_mm_m(in|ax)_ep", r"_mm_m(in|ax)_ps\(")):
        _, _, res = expand_source(tmp_path, f"in_{isa_name}", CASES["int_clamp"], isa_name)
        # (POWER: not the two u32 ones, its vectors of 32-bit lanes are signed)
        assert _count(res.text, imin) == {"sse2": 0, "altivec": 4}.get(isa_name, 6), (isa_name, res.text)
        _, _, res = expand_source(tmp_path, f"fl_{isa_name}", CASES["float_minmax"], isa_name)
        if isa_name == "sse2":
            assert _count(res.text, fmin) == 6
        elif isa_name == "neon":
            assert _count(res.text, fmin) == 0
        else:
            assert "vec_min" not in res.text and "vec_max" not in res.text
