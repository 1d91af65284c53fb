"""Names carried from statement to statement (``FunctionPrinter.carried``): the index gang of a read per lane
(and a coherent read's first lane and same-index test) is declared once for a run of plain statements
that read at the same index under the same mask, and declared again after a statement assigns a variable
the index reads, after a call, and after a statement with a body (a guard, a branch, a loop)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from daily import on_every_isa
from expand_case import check_source, expand_source

SOURCE = """\
typedef struct { float a, b; int n; } rec;
static const rec R[9] = {{0.5f, 1.5f, 3}, {-2.0f, 0.25f, 1}, {3.0f, -1.0f, 4}, {0.125f, 8.0f, 1}, {5.0f, 9.0f, 5},
                         {-0.0f, 2.0f, 9}, {2.5f, 6.0f, 2}, {7.0f, 0.75f, 6}, {1.0f, 1.0f, 0}};
float g(float v);
float f(int i, float x)
{
    float s = R[i & 7].a;
    float t = R[i & 7].b;
    float w = s * x + t;
    i = i + R[i & 7].n;
    float u = R[i & 7].a;
    if (x > 0.0f)
        u += R[i & 7].b;
    float c = g(u);
    float d = R[i & 7].b;
    return w + u + c * d;
}
"""
COMPANION = "float g(float v) { return v * 0.5f + 1.0f; }\n"


@pytest.mark.parametrize("case,isa_name", on_every_isa(["carried"]))
def test_carried_index_names_stay_bit_exact(tmp_path: Path, case: str, isa_name: str) -> None:
    check_source(tmp_path, case, SOURCE, isa_name, functions=["f"], companion=COMPANION)


def test_an_index_is_named_once_per_run_of_statements(tmp_path: Path) -> None:
    _, _, res = expand_source(tmp_path, "carried", SOURCE, "sse4.1", functions=["f"])
    out = res.text
    body = out[out.index("_Exp_f("):]
    decls = re.findall(r"__m128i (R_idx\w*) = ", body)
    # s, t and the read in i = i + R[i & 7].n share one; after i changes, u; under x > 0 its own;
    # after the call, d
    assert len(decls) == 4, body
    first = decls[0]
    assert len(re.findall(rf"\b{first}\b", body)) >= 4, body  # (declared once, read by s, t and i's read)
