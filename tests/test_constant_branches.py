"""Constant arguments of inlined helpers and the branches they decide (expand/passes/inline.py,
expand/passes/constant_branches.py): glibc's ``sinf_poly (x, s, p, 0)`` tests ``(n & 1) == 0``; with
``n`` the constant 0 the test folds and the arm no lane takes is gone from the output (it was an
always-false mask, ``((1) ? m : 0)``, with its statements and BOSCC tests). Verified on all 7 ISAs.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from expand_case import check_source, expand_source

from emit import ISAS

ALL = list(ISAS)

CASES = {
    # the helper's branch on a constant argument: only the arm taken stays
    "poly_even": ("static float poly(float x, int n)\n"
                  "{\n"
                  "    if ((n & 1) == 0)\n"
                  "        return x * x + 0.5f;\n"
                  "    return x * x * x - 0.25f;\n"
                  "}\n"
                  "float poly_even(float x)\n"
                  "{\n"
                  "    return poly(x, 0) + poly(x, 3);\n"
                  "}\n"),
    # the helper assigns its parameter: a local, as before (no constant in its place)
    "assigned": ("static int steps(int x, int n)\n"
                 "{\n"
                 "    while (n > 0 && x > 1) {\n"
                 "        x = x / 2;\n"
                 "        n = n - 1;\n"
                 "    }\n"
                 "    return x + n;\n"
                 "}\n"
                 "int assigned(int x)\n"
                 "{\n"
                 "    return steps(x, 5);\n"
                 "}\n"),
    # a constant if in the function itself, and one whose dead arm holds a label a goto enters
    "own_constant": ("int own_constant(int x)\n"
                     "{\n"
                     "    int r = x;\n"
                     "    if (1 + 1 == 2)\n"
                     "        r = r * 3;\n"
                     "    else\n"
                     "        r = r - 100;\n"
                     "    if (x > 5)\n"
                     "        goto inside;\n"
                     "    if (0) {\n"
                     "inside:\n"
                     "        r = r + 1;\n"
                     "    }\n"
                     "    return r;\n"
                     "}\n"),
}


@pytest.mark.parametrize("isa", ALL)
@pytest.mark.parametrize("name", sorted(CASES))
def test_verifies(tmp_path: Path, isa: str, name: str) -> None:
    check_source(tmp_path, name, CASES[name], isa, functions=[name])


def test_dead_arm_is_gone(tmp_path: Path) -> None:
    _, _, res = expand_source(tmp_path, "poly_even", CASES["poly_even"], "avx2", functions=["poly_even"])
    b = res.text[res.text.index("_Exp_poly_even("):]
    assert "((1) ?" not in b and "((0) ?" not in b, b
    assert b.count("0.5f") == 1 and b.count("0.25f") == 1, b  # (each call keeps only its own arm)
    assert "testz" not in b and "blendv" not in b, b  # (no mask left: straight-line code)


def test_own_constant_if_and_labelled_arm(tmp_path: Path) -> None:
    _, _, res = expand_source(tmp_path, "own_constant", CASES["own_constant"], "sse4.1", functions=["own_constant"])
    b = res.text[res.text.index("_Exp_own_constant("):]
    assert "100" not in b  # (the else arm no lane takes)
    assert "_mm_set1_epi32((int32_t)(1))" in b or "(int32_t)(1)" in b  # (r + 1 under the label stays)
