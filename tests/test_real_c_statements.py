"""Statements real libm code uses (glibc 2.36 flt-32/dbl-64): ``switch``, function-local ``static const``
tables and local arrays, each on every ISA: the output compiles with -Wall -Wextra -Werror and verifies
bit for bit against the scalar source; through libclang too; and what stays unsupported is a located
diagnostic (frontends/statements.py, expand/passes/local_arrays.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from daily import on_every_isa
from expand_case import check_source, expand_source

from expand.cli import main as expand_main


class Case:
    """A source, with what check_source needs beyond it."""

    def __init__(self, text: str, uniform: tuple[str, ...] = (), companion: str = "",
                 bounds: dict[str, tuple[int, int]] | None = None) -> None:
        self.text, self.uniform, self.companion, self.bounds = text, list(uniform), companion, bounds or {}


CASES: dict[str, Case] = {
    # --- switch
    # fallthrough, default in the middle (falling into the next case), a case range, return in a case
    "switch_fallthrough": Case("""
int f(int x)
{
    int y = 0;
    switch (x & 7) {
    case 0:
        y = 1;
    case 1:
        y += 2;
        break;
    default:
        y = 7;
    case 5:
        y *= 3;
        break;
    case 2 ... 3:
        return -x;
    }
    return y;
}
"""),
    # break inside a nested if of a case, a block with a declaration in a case, a nested switch,
    # a switch on a char (promoted), no default
    "switch_break_in_if": Case("""
float f(float x, int k)
{
    float r = 1.0f;
    switch (k & 3) {
    case 0:
        if (x > 2.0f)
            break;
        r = x * 0.5f;
        break;
    case 1: {
        float t = x * x;
        switch ((char)(k >> 2) & 1) {
        case 0: r = t; break;
        default: r = -t;
        }
        break;
    }
    case 3:
        r = x + 4.0f;
    }
    return r;
}
"""),
    # a switch in a loop: break leaves the switch, continue the loop; per-lane trip counts
    "switch_in_loop": Case("""
int f(int x, int n)
{
    int s = 0;
    for (int i = 0; i < n; i++) {
        switch ((x + i) & 3) {
        case 0:
            continue;
        case 1:
            if (s > 20)
                break;
            s += i;
            /* fall through */
        case 2:
            s += 2;
            break;
        default:
            s -= 1;
        }
        s++;
    }
    return s;
}
""", bounds={"n": (0, 12)}),
    # the value is uniform: an if/else chain that stays branches; a uniform loop around a switch
    "switch_uniform": Case("""
#pragma omp declare simd uniform(k)
float f(float x, int k)
{
    float y;
    switch (k) {
    case 0: y = x; break;
    case 1: y = x * 2.0f; break;
    case 2: case 3: y = x - 1.0f; break;
    default: y = -x; break;
    }
    for (int i = 0; i < 3; i++) {
        switch (i) {
        case 1: y += 1.0f; break;
        default: y *= 0.5f;
        }
    }
    return y;
}
""", bounds={"k": (-2, 6)}),
    # the same switch on a varying value: masks (glibc's e_lgammaf_r.c shape)
    "switch_varying": Case("""
float f(float x, int k)
{
    float y, z = 1.0f;
    switch (k & 7) {
    case 0: y = x; break;
    case 1:
    case 2: y = x * 2.0f; break;
    default: y = x - 3.0f; break;
    }
    switch (k & 7) {
    case 7: z *= (y + 6.0f);
    case 6: z *= (y + 5.0f);
    case 5: z *= (y + 4.0f);
    case 4: z *= (y + 3.0f);
    case 3: z *= (y + 2.0f);
        y += z;
        break;
    }
    return y;
}
"""),
    # the three switches that were the diagnostic corpus's (tests/diagnostics/)
    "switch_corpus": Case("""
int f(int x)
{
    switch (x) {
    case 1:
        return 2;
    }
    return 0;
}
int g(int x)
{
    int y = 0;
    switch (x & 3) {
    case 0:
        y = 1;
    case 1:
        y += 2;
        break;
    default:
        y = 7;
    }
    return y;
}
int h(int x)
{
    int s = 0;
    for (int i = 0; i < 4; i++) {
        switch (i) {
        case 2:
            s += x;
        }
    }
    return s;
}
"""),
    # --- function-local static const
    # glibc's s_rintf.c: a local static const table read with a varying index; two functions with a
    # local of the same name (file-scope names made unique); a local scalar; a static never written
    "static_const_table": Case("""
#include <stdint.h>
float rint_like(float x)
{
    static const float
    TWO23[2] = {
        8.3886080000e+06, /* 0x4b000000 */
        -8.3886080000e+06, /* 0xcb000000 */
    };
    int32_t i0, j0, sx;
    float w, t;
    __builtin_memcpy(&i0, &x, 4);
    sx = (i0 >> 31) & 1;
    j0 = ((i0 >> 23) & 0xff) - 0x7f;
    if (j0 < 23) {
        if (j0 < 0) {
            w = TWO23[sx] + x;
            t = w - TWO23[sx];
            __builtin_memcpy(&i0, &t, 4);
            i0 = (i0 & 0x7fffffff) | (sx << 31);
            __builtin_memcpy(&t, &i0, 4);
            return t;
        }
    } else {
        if (j0 == 0x80)
            return x + x;
        return x;
    }
    w = TWO23[sx] + x;
    return w - TWO23[sx];
}
float scale(float x, int i)
{
    static const float TWO23[2] = {0.5f, 4.0f};
    static const double half = 0.5;
    static float never_written[3] = {1.0f, 2.0f, 3.0f};
    return (float)((double)(x * TWO23[i & 1]) * half) + never_written[(i >> 1) & 1];
}
"""),
    # a local static table in an inlined static helper
    "static_in_helper": Case("""
static inline double poly(double x, int n)
{
    static const double c[4] = {1.0, 0.5, 0.25, 0.125};
    double s = 0.0;
    for (int i = 0; i < 4; i++)
        if (i <= n)
            s = s * x + c[i];
    return s;
}
double f(double x, int n) { return poly(x, n & 3) + poly(x * 0.5, 2); }
"""),
    # --- local arrays
    # constant indexes only (glibc's s_tanf.c: y[2] filled through a helper's pointer parameter):
    # one variable per element; an initializer list and a partial one (the rest zero)
    "array_constant_index": Case("""
static inline int reduce(float x, float *y)
{
    double dx = (double)x * 0.25;
    int n = (int)(x > 1.0f);
    y[0] = (float)dx;
    y[1] = (float)(dx - y[0]);
    return n;
}
float f(float x)
{
    float y[2], z = 0.0f;
    int n = reduce(x, y);
    int a[4] = {1, 2};
    if (n)
        z = y[0] * 2.0f;
    else
        a[3] = (int)(x > 0.0f);
    return z + y[1] + (float)(a[0] + a[1] + a[2] + a[3]);
}
"""),
    # varying index: read, written under a mask (inactive lanes keep their elements), an unsized
    # initializer; a uniform index in loops (ispc's binomial V[64] shape); a const local table
    "array_varying_index": Case("""
float f(float x, int i)
{
    float t[] = {1.0f, 2.0f, 3.0f, 4.0f};
    t[2] = x;
    if (x > 0.5f)
        t[i & 3] = -x;
    if (x < -1.0f)
        t[(i + 1) & 3] = t[i & 3] * 2.0f;
    return t[(i + 1) & 3] + t[i & 3] + t[0];
}
float g(float x, int i)
{
    float V[8];
    for (int j = 0; j < 8; j++)
        V[j] = x * (float)j;
    for (int j = 0; j < i; j++)
        V[j & 7] = V[(j + 1) & 7] + 1.0f;
    for (int j = 0; j < 4; j++)
        if (x > (float)j)
            V[j] = V[j + 4] - x;
    return V[i & 7] + V[1];
}
double h(double x, int i)
{
    const double c[3] = {0.5, 1.5, 2.5};
    return x * c[i % 3];
}
""", bounds={"i": (0, 20)}),
    # the array (or &a[i]) passed to a per-lane call: each lane's elements, copied out and back
    "array_to_call": Case("""
extern int fill(float *y, float x);
extern int bump(int *p);
float f(float x)
{
    float y[3] = {0.0f};
    int n = 0;
    if (x > 0.0f)
        n = fill(y, x);
    return y[0] + y[1] * (float)n + y[2];
}
int g(int x)
{
    int a[4] = {x, x + 1, x + 2, x + 3};
    int r = bump(&a[x & 3]);
    r += bump(&a[1]);
    return r + a[0] + a[1] + a[2] + a[3];
}
""", companion="""
int fill(float *y, float x) { y[0] = x; y[1] = x * 2.0f; y[2] += 1.0f; return (int)(x > 3.0f); }
int bump(int *p) { *p = (int)((unsigned)*p + 5u); return *p & 0xff; }
"""),
    # --- labels and gotos (found by tests/test_dominators.py's random programs)
    # a label of the function named as single-exit normalization names its exit: a return before it
    # jumped to the user's label (exit 0, wrong values)
    "label_named_done": Case("""
int f(int a, int b)
{
    int x = a;
    for (int i = 0; i < (b & 15); i++) {
        x = x * 3 + i;
        if (x > 40)
            return x;
    }
    if (b > 100)
        goto done;
    x = x + 1;
done:
    return x - b;
}
"""),
    # a goto out of a loop that no path reaches (after a return): a traceback (KeyError) before
    "unreachable_goto_out_of_loop": Case("""
int f(int a, int b)
{
    int x = a;
    for (int i = 0; i < (b & 15); i++) {
        x = x * 3 + i;
        if (x > 40) {
            return x;
            goto out;
        }
    }
    x = x + 1;
out:
    return x - b;
}
"""),
    # a local array whose only read is dead: its stores go too (GCC's -Wunused-but-set-variable on
    # the output, expand-fuzz altivec 20261129-1370), a live one beside it stays
    "dead_local_array": Case("""
float f(int i, float x)
{
    unsigned short a2[8] = { 0 };
    float b[4] = { 0 };
    b[i & 3] = x;
    x = (0.0 == (double)a2[(i & 7)]) ? x : 0.0f;
    return b[(i + 1) & 3];
}
"""),
    # the local array of the diagnostic corpus: a varying index written
    "array_corpus": Case("""
int f(int x)
{
    int a[4] = {1, 2, 3, 4};
    a[x & 3] = 5;
    return a[0];
}
"""),
}


@pytest.mark.parametrize("name,isa_name", on_every_isa(CASES))
def test_statement_compiles_strictly_and_verifies(tmp_path: Path, name: str, isa_name: str) -> None:
    c = CASES[name]
    check_source(tmp_path, name, c.text, isa_name, uniform=c.uniform, companion=c.companion, bounds=c.bounds)


@pytest.mark.parametrize("name", list(CASES))
def test_statement_through_libclang(tmp_path: Path, name: str) -> None:
    c = CASES[name]
    check_source(tmp_path, name, c.text, "avx2", uniform=c.uniform, companion=c.companion, bounds=c.bounds,
                 frontend="clang")


def test_header_helper_with_a_local_static(tmp_path: Path) -> None:
    """A static inline helper of the user's header with a local static table: the output defines the
    table (nothing else does: the helper's own is out of reach)."""
    (tmp_path / "helper.h").write_text("static inline float scale(float x, int i)\n"
                                       "{\n    static const float k[2] = {0.5f, 2.0f};\n    return x * k[i & 1];\n}\n")
    check_source(tmp_path, "uses_helper", '#include "helper.h"\nfloat f(float x, int i) { return scale(x, i); }\n',
                 "sse4.1")


# ------------------------------------------------------------------ what the output looks like


def _body(text: str, name: str) -> str:
    return text[text.index(f"{name}("):]


def test_uniform_switch_stays_branches(tmp_path: Path) -> None:
    _, _, res = expand_source(tmp_path, "u", CASES["switch_uniform"].text, "sse4.1")
    body = _body(res.text, "_Exp_f")
    assert "if (k == 0) {" in body and "if (k == 1) {" in body, body
    assert "for (;;)" in body  # the loop around the switch on i stays a scalar loop
    assert "_mm_cmpeq_epi32" not in body, body  # no mask compares k


def test_varying_switch_is_masks(tmp_path: Path) -> None:
    _, _, res = expand_source(tmp_path, "v", CASES["switch_varying"].text, "sse4.1")
    body = _body(res.text, "_Exp_f")
    assert "_mm_cmpeq_epi32" in body and "if (" not in body.split("return")[0], body


def test_local_static_is_copied_under_unique_names(tmp_path: Path) -> None:
    _, _, res = expand_source(tmp_path, "s", CASES["static_const_table"].text, "sse4.1")
    text = res.text
    assert "static const float TWO23[2] = {(float)8.3886080000e+06, (float)(-8.3886080000e+06)};" in text, text
    assert re.search(r"static const float scale_TWO23\[2\] = \{0\.5f, 4\.0f\};", text), text
    assert "static const double half = 0.5;" in text and "static float never_written[3]" in text, text
    assert "scale_TWO23[" in _body(text, "_Exp_scale")


def test_array_forms(tmp_path: Path) -> None:
    _, _, res = expand_source(tmp_path, "a", CASES["array_constant_index"].text, "sse4.1")
    body = _body(res.text, "_Exp_f")
    assert "__m128 y_0;" in body and "__m128 y_1;" in body and "int a_0;" in body, body
    assert not re.search(r"^ +(float|int32_t|int) \w+\[", body, re.M), body  # no array left
    _, _, res = expand_source(tmp_path, "b", CASES["array_varying_index"].text, "sse4.1")
    assert "float t[4][4] = {{0}};" in _body(res.text, "_Exp_f")  # a row of lanes per element
    assert "_mm_storeu_ps(V[j], " in _body(res.text, "_Exp_g")  # a uniform index: one row
    assert "double c[3] = {0};" in _body(res.text, "_Exp_h")  # the same in every lane: a plain array


# ------------------------------------------------------------------ what stays a diagnostic

REFUSED = {
    "duffs_device": ("int f(int x)\n{\n    int n = (x & 7) + 1, s = 0;\n    switch (x & 3) {\n"
                     "    case 0: do { s += 1;\n    case 1: s += 2; n = n - 1;\n    } while (n > 0);\n    }\n"
                     "    return s;\n}\n",
                     r"6:5: error: a 'case' label inside a loop in the 'switch' \(Duff's device\) is not supported"),
    "duplicate_case": ("int f(int x)\n{\n    switch (x) {\n    case 1: return 1;\n    case 0 ... 2: return 2;\n"
                       "    }\n    return 0;\n}\n", r"5:5: error: duplicate case value '1'"),
    "two_defaults": ("int f(int x)\n{\n    switch (x) {\n    default: return 1;\n    default: return 2;\n    }\n}\n",
                     r"5:5: error: multiple default labels in one switch"),
    "float_switch": ("int f(float x)\n{\n    switch (x) {\n    default: return 1;\n    }\n}\n",
                     r"3:13: error: the controlling expression of a 'switch' has type 'float'"),
    "static_written": ("int f(int x)\n{\n    static int calls;\n    calls = calls + 1;\n    return x + calls;\n}\n",
                       r"4:5: error: local 'static' variable 'calls' is written: every call shares it"),
    "static_table_written": ("float f(float x, int i)\n{\n    static float t[2] = {1.0f, 2.0f};\n"
                             "    t[i & 1] = x;\n    return t[0];\n}\n",
                             r"4:5: error: local 'static' variable 't' is written"),
    "array_2d": ("float f(float x)\n{\n    float a[2][2] = {{x, x}, {x, x}};\n    return a[1][0];\n}\n",
                 r"3:11: error: local array 'a' of arrays is not supported"),
    "array_of_pointers": ("int f(int x)\n{\n    int a = x, b = x + 1;\n    int *ptrs[2] = {&a, &b};\n"
                          "    return *ptrs[x & 1];\n}\n",
                          r"4:10: error: local array 'ptrs' of 'int \*' is not supported"),
    "array_as_pointer": ("int f(int x)\n{\n    int a[2] = {x, x + 1};\n    int *p = a;\n    int *q = p;\n"
                         "    return q[x & 1];\n}\n",
                         r"5:\d+: error: local array 'a' is used as a pointer here"),
    "pointer_reassigned": ("float f(float x)\n{\n    float a[4] = {x, x, x, x};\n    float *p = a;\n"
                           "    if (x > 1.0f)\n        p = &a[2];\n    return p[1];\n}\n",
                           r"6:9: error: pointer 'p' to local array 'a' is assigned more than once"),
    "index_out_of_bounds": ("float f(float x)\n{\n    float a[2] = {x, x};\n    return a[2];\n}\n",
                            r"4:5: error: index 2 is outside local array 'a' of 2 elements"),
}


@pytest.mark.parametrize("frontend", ["pycparser", "clang"])
@pytest.mark.parametrize("name", list(REFUSED))
def test_refused_with_a_located_diagnostic(tmp_path: Path, name: str, frontend: str, capsys) -> None:
    text, want = REFUSED[name]
    src = tmp_path / f"{name}.c"
    src.write_text(text)
    out = tmp_path / "out.c"
    rc = expand_main([str(src), "--isa", "sse4.1", "--frontend", frontend, "-o", str(out)])
    err = capsys.readouterr().err
    if frontend == "clang" and name in ("duplicate_case", "two_defaults", "float_switch"):
        want = r"\d+:\d+: error: "  # (libclang reports these C errors itself, in its words)
    elif frontend == "clang":
        want = re.sub(r"^(\d+):\d+", r"\1:\\d+", want)  # (declarations: clang's column is the declarator's)
    assert rc == 1 and re.search(rf"^{re.escape(str(src))}:{want}", err, re.M), err
    assert "Traceback" not in err and not out.exists()
    assert src.read_text() == text
