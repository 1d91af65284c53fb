"""Local arrays of structs at indexes that are not constants (expand/passes/struct_arrays.py): one local
array per scalar member, a structure of arrays (``cell q[4]`` -> ``q_c_x``, ``q_w``, ``q_n``), as ispc lays
out a varying array of structs. Nested structs, member arrays at varying indexes, whole elements copied
from and to local structs, other elements, a helper's result, a file-scope table and memory behind a
uniform pointer, a per-lane stack of structs; on every ISA the output compiles with -Wall -Wextra
-Werror and verifies bit for bit against the scalar function. A use the split cannot express (the
address of an element given to a call) is refused at the array's declaration."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from daily import on_every_isa
from expand_case import check_source, expand_source

from expand.ir.diagnostics import ExpandError

CELLS = """typedef struct { float x, y, z; } vec;
typedef struct { vec c; float w[3]; int n; } cell;
static const cell TAB[4] = {{{1.0f, 2.0f, 3.0f}, {4.0f, 5.0f, 6.0f}, 7},
                            {{-1.0f, 0.5f, 2.5f}, {0.0f, -2.0f, 1.0f}, -3},
                            {{0.25f, 8.0f, -4.0f}, {1.5f, 2.5f, 3.5f}, 11},
                            {{9.0f, -9.0f, 0.0f}, {-0.5f, 0.75f, 2.0f}, 0}};
static cell make(float x, int k)
{
    cell r = {{x, 1.0f, 2.0f}, {x, -x, 0.5f}, k};
    return r;
}
float f(float x, int k, int m)
{
    cell q[4] = {{{1.0f, 2.0f, 3.0f}, {0.0f, 1.0f, 2.0f}, 1}};
    vec v = {x, 2.0f * x, -x};
    for (int i = 0; i < (m & 7); i++) {
        int j = (k + i) & 3;
        q[j].c.x += x * (float)i;
        q[j].w[(unsigned)(k + i) % 3u] -= q[(j + 1) & 3].c.y;
        q[i & 3].n += q[j].n;
        if (q[j].c.y > x)
            q[(j + 1) & 3] = q[j];
    }
    q[k & 3].c = v;
    q[(k >> 2) & 3] = make(x, k);
    cell s = q[m & 3];
    q[(m >> 2) & 3] = TAB[k & 3];
    return s.c.x + s.w[2] + (float)s.n + q[k & 3].c.z + q[(m + 1) & 3].w[(unsigned)m % 3u] + (float)q[m & 3].n;
}
"""

#: a per-lane stack of structs (the ray tracer's todo list kept as records): pushes and pops at a stack
#: pointer that differs per lane, whole entries popped into a local and pushed back
STACK = """typedef struct { int node; float t; } entry;
float f(float x, int start)
{
    entry stack[8];
    int sp = 0;
    stack[sp].node = start & 7;
    stack[sp].t = x;
    sp++;
    float acc = 0.0f;
    while (sp > 0) {
        sp--;
        entry e = stack[sp];
        acc += e.t * (float)e.node;
        if (e.node > 1 && sp < 6) {
            stack[sp].node = e.node - 1;
            stack[sp].t = e.t * 0.5f;
            sp++;
            stack[sp] = e;
            stack[sp].node = e.node - 2;
            sp++;
        }
    }
    return acc;
}
"""

#: elements copied from and to memory behind a uniform pointer (at the linear index: each lane its own)
MEMORY = """typedef struct { float a; int b[2]; } rec;
void f(rec *p, int i, float x, int k)
{
    rec q[4] = {{x, {k, 1}}, {2.0f * x, {-k, 2}}, {x + 1.0f, {3, k}}, {-x, {4, 5}}};
    q[(k >> 1) & 3] = p[i];
    q[k & 3].b[(k >> 3) & 1] += 7;
    p[i] = q[(k >> 2) & 3];
}
"""

#: copies whose value or target reads what the copy writes: the index read once, before the copy
SELF = """typedef struct { int n; float x; } cell;
float f(float a, int k)
{
    cell q[4] = {{1, a}, {2, 2.0f * a}, {3, a + 1.0f}, {0, -a}};
    int i = k & 3;
    q[i] = q[q[i].n & 3];
    cell s = q[(k >> 2) & 3];
    s = q[s.n & 3];
    q[(k >> 4) & 3] = (cell){q[(k >> 4) & 3].n + 1, q[(k >> 4) & 3].x * 2.0f};
    return s.x + (float)s.n + q[i].x + (float)q[i].n + q[(k >> 4) & 3].x;
}
"""

CASES = {"cells": CELLS, "stack": STACK, "memory": MEMORY, "self": SELF}
BOUNDS = {"cells": {"k": (-64, 64), "m": (-64, 64)}, "stack": {"start": (-16, 16)}, "memory": {"k": (-64, 64)},
          "self": {"k": (-256, 256)}}


@pytest.mark.parametrize("name,isa_name", on_every_isa(CASES))
def test_arrays_of_structs_verify(tmp_path: Path, name: str, isa_name: str) -> None:
    text = "#pragma omp declare simd uniform(p) linear(i)\n" + CASES[name] if name == "memory" else CASES[name]
    check_source(tmp_path, name, text, isa_name, bounds=BOUNDS[name], nan_bits=False)


def test_one_local_array_per_member(tmp_path: Path) -> None:
    """``cell q[4]`` is ``q_c_x[4]``, ..., ``q_w[12]`` (the member array's three elements per cell) and
    ``q_n[4]``, each a row of lanes per element; no struct array and no words of bits are left."""
    _, _, res = expand_source(tmp_path, "cells", CELLS, "avx2")
    body = res.text[res.text.index("_Exp_f("):]
    for name, n in (("q_c_x", 4), ("q_c_y", 4), ("q_c_z", 4), ("q_w", 12), ("q_n", 4)):
        assert re.search(rf"\b(float|int32_t) {name}\[{n}\]\[8\] = ", body), name
    code = re.sub(r"/\*.*?\*/", "", body)  # (the scalar source lines above the statements name q[...])
    assert not re.search(r"\bq\[", code) and not re.search(r"\bq_w[0-9]", code)


def test_struct_arrays_through_libclang(tmp_path: Path) -> None:
    check_source(tmp_path, "stack", STACK, "avx2", frontend="clang", bounds=BOUNDS["stack"], nan_bits=False)


def test_an_element_s_address_given_to_a_call_is_refused(tmp_path: Path) -> None:
    text = "typedef struct { float x, y; } vec;\nextern float h(const vec *);\nfloat f(float x, int i)\n{\n" \
           "    vec v[2] = {{x, 1.0f}, {3.0f, x}};\n    v[i & 1].y += 1.0f;\n    return h(&v[i & 1]);\n}\n"
    with pytest.raises(ExpandError) as info:
        expand_source(tmp_path, "refused", text, "sse4.1")
    err = info.value
    assert re.search(r"refused\.c:5:\d+$", str(err.coord)) and "local array 'v' of structs" in err.message \
        and "used whole" in err.message, err.render()
