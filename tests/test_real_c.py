"""Constructs real libm code uses (issue 18 section 2), each on every ISA: the output compiles with
-Wall -Wextra -Werror and verifies bit for bit against the scalar source."""

from __future__ import annotations

from pathlib import Path

import pytest
from expand_case import check_source

from emit import ISAS

CASES: dict[str, str] = {
    # <math.h> classification and <float.h>/<math.h> constants as the system headers define them
    # (GCC builtins after preprocessing: __builtin_isnan, __builtin_isinf_sign, __builtin_inff, ...)
    "classify_float": """#include <math.h>
#include <float.h>
float f(float x) {
    if (isnan(x)) return 1.0f;
    if (isinf(x)) return 2.0f * (float)isinf(x);
    if (!isfinite(x)) return 3.0f;
    if (isnormal(x)) return 4.0f;
    if (signbit(x)) return 5.0f;
    return FLT_MAX + (float)fpclassify(x);
}
int s(float x) { return signbit(x); }
""",
    "classify_double": """#include <math.h>
#include <float.h>
double f(double x) {
    if (isnan(x)) return 1.0;
    if (isinf(x)) return (double)isinf(x) * 2.0;
    if (!isfinite(x)) return 3.0;
    if (isnormal(x)) return 4.0 + (double)(signbit(x) != 0);
    if (signbit(x)) return 5.0;
    return DBL_MAX + (double)fpclassify(x);
}
int s(double x) { return signbit(x); }
""",
    "compare_macros": """#include <math.h>
int g(double x, float y) {
    return isgreater(x, y) + 2 * isgreaterequal(x, y) + 4 * isless(x, y) + 8 * islessequal(x, y)
           + 16 * islessgreater(x, y) + 32 * isunordered(x, y);
}
""",
    "constants": """#include <math.h>
#include <float.h>
float h(float x) {
    if (x > FLT_MAX) return HUGE_VALF;
    if (x < -FLT_MAX) return -INFINITY;
    if (x != x) return NAN;
    return x * FLT_EPSILON + FLT_MIN;
}
double d(double x) { return x < DBL_MIN ? HUGE_VAL : x - DBL_MAX; }
""",
}


@pytest.mark.parametrize("isa_name", list(ISAS))
@pytest.mark.parametrize("name", list(CASES))
def test_idiom_compiles_strictly_and_verifies(tmp_path: Path, name: str, isa_name: str) -> None:
    check_source(tmp_path, name, CASES[name], isa_name)


@pytest.mark.parametrize("name", list(CASES))
def test_idiom_through_libclang(tmp_path: Path, name: str) -> None:
    check_source(tmp_path, name, CASES[name], "avx2", frontend="clang")
