"""Divergent loops test for their last lane where lanes leave, not at the head of each iteration
(predication/exit_tests.py, issue 19: mandelbrot on AVX2 reached 0.85 of its ispc-style anchor with a
head test and a ``staying`` mask computed each iteration).

Each loop shape is checked for the shape of its output on AVX2 and verified bit for bit on all 7 ISAs:
a loop every lane enters, one entered under a mask (the test moves into a guard around the loop),
one inside another loop, values blended after the leaving point and read after the loop, a loop
with nothing to do where lanes leave (gcd: the guard is the test alone), one no lane leaves but by a
uniform exit, two and three places where lanes leave (each leaving guard tests for the last lane).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from expand_case import check_source, expand_source
from hostrun import assert_verified

from emit import ISAS, get_isa
from expand.check.verify import Param, verify
from expand.driver import expand_module
from frontends.pycparser_frontend import read_file

ALL = list(ISAS)
KERNELS_DIR = Path(__file__).parent.parent / "mathlib" / "kernels"

KERNELS = {
    # entered under a varying mask: the loop sits in `if (any(active))`
    "halvings_if_big": ("int halvings_if_big(float x)\n"
                        "{\n"
                        "    int n = -1;\n"
                        "    if (x > 2.0f) {\n"
                        "        n = 0;\n"
                        "        while (n < 200 && x > 1.0f) {\n"
                        "            x = x * 0.5f;\n"
                        "            n++;\n"
                        "        }\n"
                        "    }\n"
                        "    return n;\n"
                        "}\n"),
    # inside another loop: the inner loop's counter and live-out start again at each entry
    "nested_leave": ("float nested_leave(float x)\n"
                     "{\n"
                     "    float acc = 0.0f;\n"
                     "    for (int i = 0; i < 8; i++) {\n"
                     "        float y = x + (float)i;\n"
                     "        int k;\n"
                     "        for (k = 0; k < 64; k++) {\n"
                     "            if (y * y > 1000.0f)\n"
                     "                break;\n"
                     "            y = y * 1.5f + 0.25f;\n"
                     "        }\n"
                     "        acc += y + (float)k;\n"
                     "    }\n"
                     "    return acc;\n"
                     "}\n"),
    # y and last blend after the leaving point and are read after the loop
    "newton_last": ("float newton_last(float a)\n"
                    "{\n"
                    "    float y = a;\n"
                    "    float last = 0.0f;\n"
                    "    for (int i = 0; i < 30; i++) {\n"
                    "        float next = 0.5f * (y + a / y);\n"
                    "        if (next == y)\n"
                    "            break;\n"
                    "        last = y;\n"
                    "        y = next;\n"
                    "    }\n"
                    "    return y + last;\n"
                    "}\n"),
    # nothing to do where lanes leave: the guard is the test alone
    "gcd": ("unsigned gcd(unsigned a, unsigned b)\n"
            "{\n"
            "    while (b != 0) {\n"
            "        unsigned t = a % b;\n"
            "        a = b;\n"
            "        b = t;\n"
            "    }\n"
            "    return a;\n"
            "}\n"),
    # no lane leaves but by the uniform exit (the loop is masked by the early return)
    "octaves": ("static float term(float x, float s)\n"
                "{\n"
                "    if (x > 50.0f)\n"
                "        return s;\n"
                "    return x * s / (1.0f + x * x * s);\n"
                "}\n"
                "float octaves(float x)\n"
                "{\n"
                "    if (!(x < 100.0f))\n"
                "        return 0.0f;\n"
                "    float sum = 0.0f, scale = 1.0f;\n"
                "    for (int o = 0; o < 4; o++) {\n"
                "        sum += term(x, scale);\n"
                "        scale *= 2.0f;\n"
                "    }\n"
                "    return sum;\n"
                "}\n"),
    # two places where lanes leave: each one's guard takes its lanes off and tests for the last
    "two_leaves": ("int two_leaves(int v)\n"
                   "{\n"
                   "    int k;\n"
                   "    for (k = 0; k < 100; k++) {\n"
                   "        if ((v & 255) == 42)\n"
                   "            break;\n"
                   "        v = v * 3 + 1;\n"
                   "        if (v > 100000 || v < -100000)\n"
                   "            break;\n"
                   "        v = v % 1000;\n"
                   "    }\n"
                   "    return v + k;\n"
                   "}\n"),
    # two in a loop inside another (what the leaving skips is set again before the next entry)
    "two_leaves_nested": ("int two_leaves_nested(int v)\n"
                          "{\n"
                          "    int total = 0;\n"
                          "    for (int r = 0; r < 3; r++) {\n"
                          "        int w = v + r;\n"
                          "        int k;\n"
                          "        for (k = 0; k < 100; k++) {\n"
                          "            if ((w & 255) == 42)\n"
                          "                break;\n"
                          "            w = w * 3 + 1;\n"
                          "            if (w > 100000 || w < -100000)\n"
                          "                break;\n"
                          "            w = w % 1000;\n"
                          "        }\n"
                          "        total += w + k;\n"
                          "    }\n"
                          "    return total;\n"
                          "}\n"),
    # three, each setting a value for after the loop where it leaves (a blend outside any guard, after the
    # staying mask: the leaving cannot end the iteration there, so the loop keeps its head test)
    "three_leaves_nested": ("float three_leaves_nested(float x, int n)\n"
                            "{\n"
                            "    float total = 0.0f;\n"
                            "    for (int r = 0; r < 3; r++) {\n"
                            "        float a = x + (float)r, why = 0.0f;\n"
                            "        for (int i = 0; i < (n & 31); i++) {\n"
                            "            a = a * 1.5f - 0.25f;\n"
                            "            if (a > 1000.0f) { why = 1.0f; break; }\n"
                            "            a = a - (float)i;\n"
                            "            if (a < -1000.0f) { why = 2.0f; break; }\n"
                            "            if (a == 7.0f) { why = 3.0f; break; }\n"
                            "        }\n"
                            "        total += a * why;\n"
                            "    }\n"
                            "    return total;\n"
                            "}\n"),
}

SINKS = ["halvings_if_big", "nested_leave", "newton_last", "gcd", "octaves", "two_leaves", "two_leaves_nested"]


def body(text: str, name: str) -> str:
    return text[text.index(f"_Exp_{name}("):]


@pytest.mark.parametrize("isa", ALL)
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_loop_shape_verifies(tmp_path: Path, isa: str, name: str) -> None:
    check_source(tmp_path, name, KERNELS[name], isa, functions=[name])


@pytest.mark.parametrize("name", SINKS)
def test_no_head_test(tmp_path: Path, name: str) -> None:
    _, _, res = expand_source(tmp_path, name, KERNELS[name], "avx2", functions=[name])
    b = body(res.text, name)
    assert "for (;;) {" in b and "while (" not in b.replace("/* while", ""), b


def test_the_test_is_in_the_leaving_guard(tmp_path: Path) -> None:
    """mandelbrot as ispc compiles it: the leaving lanes' guard updates the mask and leaves when none
    is left; no staying mask, no head test (every lane enters: no guard around the loop)."""
    _, _, res = expand_source(tmp_path, "mandelbrot", (KERNELS_DIR / "mandelbrot.c").read_text(), "avx2")
    b = body(res.text, "mandelbrot")
    guard = re.search(r"if \(\(!_mm256_testz_si256\((leaving\d+), _mm256_set1_epi32\(-1\)\)\)\) \{\n"
                      r"(.*\n)*?\s*(active\d+) = _mm256_andnot_si256\(\1, \3\);\n"
                      r"\s*if \(_mm256_testz_si256\(\3, _mm256_set1_epi32\(-1\)\)\)\n\s*break;\n", b)
    assert guard, b
    assert "staying15" not in b and "while (" not in b
    assert b.index("for (;;) {") > b.index(f"{guard.group(3)} = _mm256_set1_epi32(-1);")


def test_masked_entry_is_guarded(tmp_path: Path) -> None:
    """With BOSCC on, the guard of the ``if`` already found a lane on: the loop starts at once; with BOSCC
    off, ``if (any(active))`` around the loop does (a loop no lane enters does not run)."""
    b = body(expand_source(tmp_path, "halvings_if_big", KERNELS["halvings_if_big"], "avx2")[2].text,
             "halvings_if_big")
    assert re.search(r"if \(\(!_mm256_testz_si256\((\w+), [^\n]*\n(.*\n)*?\s*(active\d+) = \1;\n\s*for \(;;\)", b), b
    src = tmp_path / "h.c"
    src.write_text(KERNELS["halvings_if_big"])
    res = expand_module(read_file(str(src), src.read_text()), get_isa("avx2"), boscc="off")
    assert re.search(r"(active\d+) = (\w+);\n(\s*)if \(\(!_mm256_testz_si256\(\1, _mm256_set1_epi32\(-1\)\)\)\) \{\n"
                     r"\3    for \(;;\) \{", res.text), res.text


def test_each_leaving_point_tests_for_the_last_lane(tmp_path: Path) -> None:
    """Two places where lanes leave: each guard takes its leaving lanes off ``active`` and leaves the loop
    when none is left; no staying masks."""
    _, _, res = expand_source(tmp_path, "two_leaves", KERNELS["two_leaves"], "avx2")
    b = body(res.text, "two_leaves")
    assert len(re.findall(r"(active\d+) = _mm256_andnot_si256\((leaving\d+), \1\);\n\s*"
                          r"if \(_mm256_testz_si256\(\1, _mm256_set1_epi32\(-1\)\)\)\n\s*break;", b)) == 2, b
    assert not re.search(r"staying\d+ = _mm256_andnot", b), b


def test_a_blend_after_the_staying_mask_keeps_the_head_test(tmp_path: Path) -> None:
    _, _, res = expand_source(tmp_path, "three", KERNELS["three_leaves_nested"], "avx2")
    assert "while ((!_mm256_testz_si256(active" in body(res.text, "three_leaves_nested")


@pytest.mark.parametrize("isa", ["sse4.1", "neon", "avx512"])
@pytest.mark.parametrize("name", ["halvings_if_big", "nested_leave", "newton_last"])
def test_shapes_verify_without_boscc(tmp_path: Path, isa: str, name: str) -> None:
    """BOSCC off: the guards around loops entered under a mask are the pass's own."""
    src = tmp_path / f"{name}.c"
    src.write_text(KERNELS[name])
    isa_t = get_isa(isa)
    res = expand_module(read_file(str(src), src.read_text()), isa_t, boscc="off")
    (e,) = res.functions
    rep = verify(scalar_sources=[src], scalar_name=name, vector_c=res.text, vector_name=e.vector_name,
                 params=[Param(p.name, p.type, p.shape or "varying") for p in e.params], ret=e.ret, isa=isa_t,
                 constants=e.constants, n_random=3000)
    assert_verified(rep, res.text)


@pytest.mark.parametrize("isa", ["sse4.1", "avx2", "avx512"])
def test_mandelbrot_kernel_verifies_in_every_boscc_mode(tmp_path: Path, isa: str) -> None:
    src = tmp_path / "mandelbrot.c"
    src.write_text((KERNELS_DIR / "mandelbrot.c").read_text())
    isa_t = get_isa(isa)
    for mode in ("off", "auto", "all"):
        res = expand_module(read_file(str(src), src.read_text()), isa_t, boscc=mode)
        assert mode == "all" or "for (;;) {" in res.text  # (all: the leaving point sits in nested guards)
        (e,) = res.functions
        rep = verify(scalar_sources=[src], scalar_name="mandelbrot", vector_c=res.text, vector_name=e.vector_name,
                     params=[Param(p.name, p.type, p.shape or "varying") for p in e.params], ret=e.ret, isa=isa_t,
                     constants=e.constants, n_random=2000,
                     bounds={"width": (0, 8), "j": (0, 7), "max_iterations": (-16, 256)})
        assert_verified(rep, res.text)
