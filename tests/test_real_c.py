"""Constructs real libm code uses (issue 18 section 2), each on every ISA: the output compiles with
-Wall -Wextra -Werror and verifies bit for bit against the scalar source."""

from __future__ import annotations

from pathlib import Path

import pytest
from daily import on_every_isa
from expand_case import check_source

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
    # a volatile local that makes a value round to its type (newlib's common/sf_rint.c): an ordinary local
    "volatile_rounding": """static const float TWO23[2] = {8.3886080000e+06f, -8.3886080000e+06f};
float f(float x) {
    volatile float w;
    int sx = x < 0.0f;
    if (!(x > -8388608.0f && x < 8388608.0f))
        return x;
    w = TWO23[sx] + x;
    return w - TWO23[sx];
}
""",
    # nan("") and nanf(""), as newlib's fdlibm wrappers (w_acos.c: return nan("");) write them: GCC's
    # constants (glibc's nan gives the same quiet NaN)
    "nan_calls": """#include <math.h>
float f(float x) {
    if (x > 1.0f || x < -1.0f)
        return nanf("");
    return x * 0.5f;
}
double g(double x) {
    if (fabs(x) > 1.0)
        return nan("");
    return nan("0x7") + x > 0.0 ? x : -x;
}
""",
    # the BSD functions (no macro): GCC compiles them as its builtins, so isinff(-inf) is 1, where
    # glibc's isinff returns -1 (found by expand-fuzz, seed 20261126, program 367 on sse2)
    "classify_functions": """#include <math.h>
int f(float x, double y) {
    return isinff(x) * 1000 + (isinf)(y) * 100 + isnanf(x) * 10 + finite(y) + finitef(x) * 3;
}
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
    # side effects inside expressions: chained assignment, assignment in a condition, ++/-- as values,
    # the comma operator, updates in loop conditions, GNU statement expressions (once diagnostics)
    "side_effects": """int f(int k, int n) {
    int a, b, c = 0, y;
    a = b = k * 2;
    if ((y = k) > 2) a += y;
    if (++c > 0 && n > 3) a += c;
    int s = 0, t = (c++, c + a);
    while (n-- > 0) s += n;
    for (int i = 0, j = 10; i < j; i++, j--) s += i * j;
    int u = k++ * 2;
    s += ({ int v = k; v + 1; });
    return s + t + a + b + c + u + k;
}
""",
    # glibc's math_opt_barrier and math_force_eval (sysdeps/generic/math-barriers.h): typeof, statement
    # expressions, empty asm statements; the barriers vanish (only FP exceptions depended on them)
    "barriers": """float f(float x) {
    float y = ({ __typeof (x) __x = (x * 3.0f); __asm ("" : "+m" (__x)); __x; });
    ({ __typeof (y) __w = (y); __asm __volatile__ ("" : : "m" (__w)); });
    int same = __builtin_types_compatible_p (__typeof (y), float) + __builtin_types_compatible_p (int, float);
    return y + (float)same;
}
""",
    # out-parameters of inlined static helpers pointing to the caller's variables (glibc's
    # reduce_fast(x, p, &n), ispc's normalize3(&x, &y, &z)): the helper's stores are assignments
    "out_parameters": """static void normalize3(float *x, float *y, float *z) {
    float n = *x * *x + *y * *y + *z * *z;
    if (n > 0.0f) { float r = 1.0f / __builtin_sqrtf(n); *x *= r; y[0] *= r; *z = *z * r; }
}
static int helper(float v, int *k) { *k = (int)(v * 3.0f); return *k & 1; }
float f(float x, float y, float z) {
    int n = 0;
    int odd = helper(x, &n);
    normalize3(&x, &y, &z);
    return x + y * 2.0f + z * 3.0f + (float)n + (float)odd;
}
""",
    # float -> int under the program's own range check: inactive lanes convert NaN and huge values
    # (qemu 7.2 makes every lane of a POWER conversion with a NaN lane the minimum integer)
    "guarded_conversions": """int f(float x, double y) {
    int r = 0;
    if (x == x && x > -2e9f && x < 2e9f) r = (int)x;
    if (y > -9e18 && y < 9e18) r += (int)((long long)y & 0xff);
    return r;
}
""",
    # GCC's bit builtins (glibc's s_logbf: __builtin_clz), as integer operations and exact conversions
    "bit_builtins": """#include <stdint.h>
int f(uint32_t x, uint64_t y) {
    int r = __builtin_popcount(x) + __builtin_popcountll(y) * 3;
    if (x != 0) r += __builtin_clz(x) * 5 + __builtin_ctz(x) * 7;
    if (y != 0) r += __builtin_clzll(y) * 11 + __builtin_ctzll(y) * 13;
    return r + (int)(__builtin_bswap32(x) >> 7) + (int)(__builtin_bswap64(y) >> 40)
           + __builtin_bswap16((uint16_t)x);
}
""",
}

#: x86's math-barriers.h (sysdeps/x86/fpu): registers tied by constraints the other targets lack
X86_BARRIERS = """float f(float x) {
    float y = ({
        __typeof (x) __x;
        if (sizeof (x) <= sizeof (double) || __builtin_types_compatible_p (__typeof (x), _Float128))
            __asm ("" : "=x" (__x) : "0" (x));
        else
            __asm ("" : "=t" (__x) : "0" (x));
        __x;
    });
    do {
        if (sizeof (y) <= sizeof (double) || __builtin_types_compatible_p (__typeof (y), _Float128))
            __asm __volatile ("" : : "x" (y));
        else
            __asm __volatile ("" : : "f" (y));
    } while (0);
    return y * 2.0f;
}
"""

#: What the libclang frontend does not read (it says so; --frontend auto then uses pycparser)
PYCPARSER_ONLY = {"generic"}
CASES["generic"] = """float f(float x) {
    return _Generic((x), float: x * 2.0f, double: 1.0f, default: 3.0f) + (float)_Generic(1, int: 4, default: 5);
}
"""


@pytest.mark.parametrize("name,isa_name", on_every_isa(CASES))
def test_idiom_compiles_strictly_and_verifies(tmp_path: Path, name: str, isa_name: str) -> None:
    check_source(tmp_path, name, CASES[name], isa_name, bounds={"n": (-5, 40)} if name == "side_effects" else None)


@pytest.mark.parametrize("name", [n for n in CASES if n not in PYCPARSER_ONLY])
def test_idiom_through_libclang(tmp_path: Path, name: str) -> None:
    check_source(tmp_path, name, CASES[name], "avx2", frontend="clang",
                 bounds={"n": (-5, 40)} if name == "side_effects" else None)


@pytest.mark.parametrize("frontend", ["pycparser", "clang"])
@pytest.mark.parametrize("isa_name", ["sse2", "sse4.1", "avx2", "avx512"])
def test_x86_barriers(tmp_path: Path, isa_name: str, frontend: str) -> None:
    check_source(tmp_path, "x86_barriers", X86_BARRIERS.replace("_Float128", "double"), isa_name, frontend=frontend)


@pytest.mark.parametrize("frontend", ["pycparser", "clang"])
def test_volatile_local_is_an_ordinary_one_and_the_header_says_so(tmp_path: Path, frontend: str) -> None:
    from expand_case import expand_source
    _, _, res = expand_source(tmp_path, "v", CASES["volatile_rounding"], "avx2", frontend=frontend)
    assert "Assumes (f): the volatile local 'w' (" in res.text and "is an ordinary variable: the output keeps" \
        in " ".join(res.text.split())
    assert "volatile" not in res.text.split("*/", 1)[1]
