"""Local pointers (issue 18): into a file-scope table, chosen per lane (glibc's sinf: ``p =
&__sincosf_table[1]`` under a varying condition, read through inlined helpers); among the function's
pointer parameters, swapped per lane (glibc's sincosf_poly); and helpers' out-parameters bound to the
caller's pointer parameters. Every ISA; the output compiles with -Wall -Wextra -Werror and verifies."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from daily import on_every_isa
from expand_case import check_source, expand_source

TABLE = """typedef struct { double sign[4]; double c0, c1; } tab_t;
static const tab_t table[2] = {{{1, -1, 1, -1}, 0.5, 0.25}, {{-1, 1, -1, 1}, 2.0, 4.0}};
static double poly(double x, const tab_t *p, int n) { return (n & 1) ? x * p->c0 : x * p->c1 + p->sign[n & 3]; }
float f(float y, int n) {
    const tab_t *p = &table[0];
    double x = y;
    double s = p->sign[n & 3];
    if (n & 2)
        p = &table[1];
    return (float)poly(x * s, p, n);
}
"""

SWAP = """static void poly(double x, int n, float *sinp, float *cosp) {
    float *tmp = (n & 1 ? cosp : sinp);
    cosp = (n & 1 ? sinp : cosp);
    sinp = tmp;
    *sinp = (float)(x * 0.5);
    *cosp = (float)(x + 1.0);
}
void f(float y, int n, float *s, float *c) {
    if (y > 100.0f) { *s = y; *c = 1.0f; return; }
    poly((double)y, n, s, c);
}
"""

FORWARD = """static void put(float v, float *o) { *o = v * 2.0f; }
void f(float x, float *out) { if (x > 0.0f) put(x, out); else *out = -x; }
"""

#: a pointer into a table at a per-lane index read inside the index of a table address given to a
#: helper (the output read through a null placeholder pointer before: a crash, exit 0)
POINTER_IN_INDEX = """typedef struct { int first, count; } span;
static const span SPANS[4] = {{0, 2}, {2, 1}, {3, 3}, {6, 2}};
static const float VALUES[8] = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f, 8.0f};
static float get(const float *v) { return *v; }
float f(float y, int n)
{
    const span *s = &SPANS[n & 3];
    float sum = get(&VALUES[s->first]) * y;
    for (int i = 0; i < s->count; i++)
        sum += get(&VALUES[s->first + i]);
    return sum;
}
"""

CASES = {"table": TABLE, "swap": SWAP, "forward": FORWARD, "pointer_in_index": POINTER_IN_INDEX}


@pytest.mark.parametrize("name,isa_name", on_every_isa(CASES))
def test_pointer_locals(tmp_path: Path, name: str, isa_name: str) -> None:
    check_source(tmp_path, name, CASES[name], isa_name, bounds={"n": (-8, 8)} if "int n" in CASES[name] else None)


@pytest.mark.parametrize("name", list(CASES))
def test_pointer_locals_through_libclang(tmp_path: Path, name: str) -> None:
    check_source(tmp_path, name, CASES[name], "avx2", frontend="clang",
                 bounds={"n": (-8, 8)} if "int n" in CASES[name] else None)


def test_pointer_locals_declared_in_source_order(tmp_path: Path) -> None:
    """The lane's parameter numbers are declared in the order the function first assigns them (they
    came in a set's order, which changed from one run to the next: glibc's sincosf and sincos)."""
    _, _, res = expand_source(tmp_path, "swap", SWAP, "avx2")
    declared = re.findall(r"^ +__m256i (\w+_which);$", res.text, re.M)
    assigned = list(dict.fromkeys(re.findall(r"^ +(\w+_which) = ", res.text, re.M)))
    assert declared == assigned == ["sinp_which", "cosp_which", "tmp_which"], res.text
