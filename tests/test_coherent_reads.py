"""A record read per lane inside a divergent loop (a BVH's nodes, a tree, a list) first tests whether every
lane on reads the same record: then one scalar load and a broadcast, else the loads per lane
(``FunctionPrinter.coherent_read``, ``Isa.same_index``); a local array read or
written at a per-lane index inside such a loop (a stack) tests the same, then loads or stores one row.
Both ways give every lane on the same element, so the output stays bit-exact whichever way a gang goes;
the cases below make gangs take both: lanes that start at one node and part, lanes that walk one list
for different numbers of steps (the lanes still on then agree under a partial mask), lanes that push
and pop at the same depth or one apart."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from daily import on_every_isa
from expand_case import check_source, expand_source
from test_struct_pointers import check

from emit import ISAS

TREE = """\
typedef struct { float split; float w; int left, right; unsigned char leaf; } bnode;
static const bnode TREE[7] = {
    {0.5f, 1.0f, 1, 2, 0}, {0.25f, 2.0f, 3, 4, 0}, {0.75f, 3.0f, 5, 6, 0},
    {0.0f, 4.0f, -1, -1, 1}, {0.0f, 5.0f, -1, -1, 1}, {0.0f, 6.0f, -1, -1, 1}, {0.0f, 7.0f, -1, -1, 1},
};
"""

CASES = {
    # lanes start at node 0 or 1 and part at each split (x < split: NaN goes right)
    "tree": TREE + """\
float f(float x, int key)
{
    int n = key & 1;
    float acc = 0.0f;
    while (n >= 0) {
        acc = acc * 0.5f + TREE[n].w;
        if (TREE[n].leaf)
            break;
        n = x < TREE[n].split ? TREE[n].left : TREE[n].right;
    }
    return acc;
}
""",
    # every lane walks the same list, each for its own number of steps: the lanes still on read the
    # same node under a mask that loses lanes as they finish
    "list": """\
typedef struct { int next; float v; short tag; } lnode;
static const lnode L[6] = {{1, 0.5f, 3}, {2, -1.25f, -7}, {3, 2.0f, 11}, {4, 0.125f, 0}, {5, 8.0f, 1}, {0, -3.0f, 2}};
float f(int start, int steps, float x)
{
    int n = start;
    float s = x;
    int t = 0;
    for (int i = 0; i < steps; i++) {
        s = s * 0.75f + L[n].v;
        t += L[n].tag;
        n = L[n].next;
    }
    return s + (float)t;
}
""",
    # a local stack with a per-lane stack pointer (the ray tracer's todo list): lanes that start at the same
    # depth push and pop the same rows while others have stopped; lanes that start one deeper do not
    "stack": """\
float f(float x, int depth, int key)
{
    int stack[16];
    int base = key & 1;
    int top = base;
    float acc = 0.0f;
    stack[0] = 5;
    for (int i = 0; i < depth; i++)
        stack[top++] = i * 3 + (x < (float)i);
    while (top > base)
        acc = acc * 0.5f + (float)stack[--top];
    return acc + (float)stack[0];
}
""",
}

#: (list: one start, always coherent)
BOUNDS = {"tree": {"key": (0, 1)}, "list": {"start": (0, 0), "steps": (0, 9)},
          "stack": {"depth": (0, 8), "key": (0, 1)}}


@pytest.mark.parametrize("case,isa_name", on_every_isa(sorted(CASES)))
def test_coherent_record_reads_stay_bit_exact(tmp_path: Path, case: str, isa_name: str) -> None:
    check_source(tmp_path, case, CASES[case], isa_name, functions=["f"], bounds=BOUNDS[case])


def test_only_record_reads_in_divergent_loops_test_their_lanes(tmp_path: Path) -> None:
    text = TREE + """\
static const float W[7] = {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f};
float f(float x, int key)
{
    int n = key & 1;
    float acc = TREE[key & 3].w;
    while (n >= 0) {
        acc = acc * 0.5f + W[n];
        if (TREE[n].leaf)
            break;
        n = x < TREE[n].split ? TREE[n].left : TREE[n].right;
    }
    return acc;
}
"""
    for isa_name, test in (("avx2", r"_mm256_testc_si256\(_mm256_cmpeq_epi32\("),
                           ("avx512", r"_mm512_mask_cmpneq_epi32_mask\("),
                           ("sse4.1", r"_mm_testz_si128\(_mm_andnot_si128\(_mm_cmpeq_epi32\(")):
        _, _, res = expand_source(tmp_path, f"sel_{isa_name.replace('.', '_')}", text, isa_name, functions=["f"])
        out = res.text
        # in the loop: TREE[n].leaf, .split, .left, .right (W[n], a plain table, and TREE[key & 3].w before
        # the loop keep their loads per lane)
        reads = re.findall(r"\w+_same \? ", out)
        # (AVX-512 reads the float and int fields of this small table by permutes: only .leaf is left)
        assert len(reads) == (1 if isa_name == "avx512" else 4), out
        assert re.search(r"TREE_idx\w*_same = \(?" + test, out), out
        assert not re.search(r"\w+ = \(\w+_same \? \w+\(W\[", out), out
        # the broadcast reads the record at the first lane's index
        assert re.search(r"TREE\[[^\]]*TREE_idx\w*_first", out), out


#: The same walk through a uniform pointer parameter (ispc's `const uniform LinearBVHNode nodes[]`): the
#: verifier fills the records; the child indexes are masked into the array
POINTER = """\
typedef struct { float split; float w; int left, right; } bnode;
#pragma omp declare simd uniform(t)
float f(const bnode *t, float x, int steps)
{
    int n = 0;
    float acc = 0.0f;
    for (int i = 0; i < steps; i++) {
        acc = acc * 0.5f + t[n].w;
        n = (x < t[n].split ? t[n].left : t[n].right) & 7;
    }
    return acc;
}
"""


@pytest.mark.parametrize("isa_name", ISAS)
def test_coherent_reads_through_a_uniform_pointer(tmp_path: Path, isa_name: str) -> None:
    res = check(tmp_path, "ptr", POINTER, isa_name)
    if isa_name == "avx2":
        # under a mask the broadcast read also needs some lane on: lane 0's index is then an index a lane
        # on reads (the pointer's element 0 need not exist)
        assert re.search(r"int t_idx\w*_same = _mm256_testc_si256\(.*\) && on\w* != 0;", res.text), res.text


def test_a_stack_in_a_loop_is_read_and_written_by_rows(tmp_path: Path) -> None:
    _, _, res = expand_source(tmp_path, "stack", CASES["stack"], "avx2", functions=["f"])
    out = res.text
    # the push: a masked row store when the lanes on agree, else a store per lane on; the pop: a row load
    assert re.search(r"if \(stack_idx\w*_same\)\n\s+_mm256_storeu_si256\(\(__m256i \*\)\(stack\[", out), out
    assert re.search(r"\(stack_idx\w*_same \? _mm256_loadu_si256\(\(const __m256i \*\)\(stack\[", out), out
    assert "stack[idx[lane]][lane] = lanes[lane];" in out


def test_remarks_say_when_a_read_or_store_goes_by_rows(tmp_path: Path, capsys) -> None:
    from expand.cli import main as expand_main
    for case in ("tree", "stack"):
        src = tmp_path / f"{case}.c"
        src.write_text(CASES[case])
        assert expand_main([str(src), "--isa", "avx2", "--remarks", "-o", str(tmp_path / "o.c")]) == 0
        err = capsys.readouterr().err
        if case == "tree":
            assert re.search(r"remark: read of field 'split' of 'TREE\[\w+\]' at an index that differs per lane: "
                             r"one load and a broadcast when every lane on reads the same record, else 8 scalar "
                             r"loads and inserts \[per-lane-load\]", err), err
        else:
            assert "read of local array 'stack' at an index that differs per lane: one row when every lane on " \
                   "reads the same row, else 8 scalar loads and inserts [per-lane-load]" in err, err
            assert "store to local array 'stack' at an index that differs per lane: one row store when every lane " \
                   "on writes the same row, else one scalar store per lane [per-lane-store]" in err, err
