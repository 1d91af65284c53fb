"""Uniform pointers to structs and to arrays of structs as parameters (issue 25), end to end.

Every case runs on all 7 ISAs: expanded, compiled with -Wall -Wextra -Werror and verified bit for bit
as ``expand --verify`` verifies it (expand/check/verify.py): the pointed-to memory filled member by
member with edge and random values, the index parameters drawn from the array's indexes, a pointer
reached only at constant offsets moved one element per gang, the arrays compared after all calls
(stores through the pointers included). Then what the output looks like (one index per statement, a
named read per field, a scalar load and a broadcast for a uniform index, gathers with the struct's
stride with ``--gathers on``), ``--remarks``, the verifier's own inputs, and the diagnostics.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from daily import on_every_isa
from expand_case import STRICT
from hostrun import assert_verified, skip_if_cli_not_run, skip_run_unless_host

from emit import ISAS, get_isa
from expand.analysis.pointer_params import fixed_pointers, index_params
from expand.check.verify import ARRAY_NAN, OFFSET, Param, Unverifiable, shaped_inputs, trip_bounds, verify
from expand.cli import main as expand_main
from expand.driver import Result, expand_module
from expand.ir.diagnostics import ExpandError
from expand.ir.types import FLOAT, INT, Pointer, Record
from frontends.clang_frontend import read_file_any

ALL = list(ISAS)
NATIVE = {"avx2": "_mm256", "avx512": "_mm512"}


def expand_text(tmp_path: Path, name: str, text: str, isa_name: str, gathers: bool | None = None):
    """(source path, isa, Result): ``text`` expanded for ``isa_name`` (shapes from its pragmas)."""
    src = tmp_path / f"{name}.c"
    src.write_text(text)
    isa = get_isa(isa_name)
    mod = read_file_any(str(src), text, cc=isa.preprocessor)
    return src, isa, expand_module(mod, isa, gathers=gathers)


def check(tmp_path: Path, name: str, text: str, isa_name: str, gathers: bool | None = None,
          n_random: int = 3000) -> Result:
    """Expand, compile the output with STRICT, verify every function as ``expand --verify`` does."""
    src, isa, res = expand_text(tmp_path, name, text, isa_name, gathers)
    out = tmp_path / f"{name}_out.c"
    out.write_text(res.text)
    cmd = [*isa.cc, *STRICT, *isa.cflags, "-c", str(out), "-o", str(tmp_path / f"{name}_out.o")]
    p = subprocess.run(cmd, capture_output=True, text=True)
    assert p.returncode == 0, f"{' '.join(cmd)}\n{p.stderr}\n{res.text}"
    for e in res.functions:
        bounds, _, moving = shaped_inputs(e, {}, n_random)
        rep = verify(scalar_sources=[src], scalar_name=e.scalar_name, vector_c=res.text, vector_name=e.vector_name,
                     params=[Param(q.name, q.type, q.shape or "varying") for q in e.params], ret=e.ret, isa=isa,
                     constants=e.constants, n_random=n_random, bounds=bounds, moving=moving)
        assert_verified(rep, res.text)
    return res


def body_of(text: str, fn: str) -> str:
    """The definition of vector function ``fn`` in an output."""
    start = re.search(rf"^\S.*\b{re.escape(fn)}\(", text, re.M)
    assert start, f"no {fn} in\n{text}"
    return text[start.start():text.find("\n}\n", start.start()) + 3]


# --------------------------------------------------------------------------------------------------
# The cases

S_DEF = "typedef struct { float a, b; int n; } S;\n"

CASES = {
    # an array of structs read at a varying index; one struct (moved along its array by --verify); a
    # uniform index (a scalar load and a broadcast); a struct passed by value
    "reads": S_DEF + """
#pragma omp declare simd uniform(s)
float aos(const S *s, int i, float x) { return x * s[i].a + s[i].b; }

#pragma omp declare simd uniform(s)
float one(const S *s, float x) { return x * s->a + (*s).b - (float)s[0].n; }

#pragma omp declare simd uniform(s, j)
float at_uniform(const S *s, int j, float x) { return x * s[j].a + (float)s[j + 1].n; }

typedef struct { float k; int m; } K;
#pragma omp declare simd uniform(c)
float by_value(K c, float x) { return c.m > 0 ? x * c.k : x - c.k; }
""",
    # reads under masks: inactive lanes touch no memory (the index there is anything)
    "masked": S_DEF + """
#pragma omp declare simd uniform(s)
float masked(const S *s, int i, float x)
{
    float r = x;
    if (i > 3 && x < 100.0f)
        r = s[i].a * s[i].b;
    else if (x > 0.0f)
        r = (float)s[i & 7].n;
    return r;
}
""",
    # stores to fields at a varying index, under masks, several fields of one element, nested members
    "stores": S_DEF + """
#pragma omp declare simd uniform(s)
void set_a(S *s, int i, float x) { s[i].a = x; }

#pragma omp declare simd uniform(s)
void set_masked(S *s, int i, float x) { if (x > 0) s[i].b = x * 2; }

#pragma omp declare simd uniform(s)
void set_fields(S *s, int i, float x) { s[i].a = x; s[i].b = -x; if (x > 1) s[i].n = 3; }

typedef struct { float x, y; } V2;
typedef struct { V2 p, q; int id; } Seg;
#pragma omp declare simd uniform(g, out)
void set_nested(Seg *g, const S *out, int i, float x)
{
    g[i].p.x = x * out[i].a;
    g[i].p.y = -x;
    g[i].q.x = x + out[i].b;
    g[i & 7].id = i;
}

#pragma omp declare simd uniform(s)
void set_one(S *s, float x) { s->n = 5; s[1].a = 2.5f; (void)x; }
""",
    # array members, nested structs, a union, doubles and narrow members (ispc's BVH node)
    "members": """#include <stdint.h>
typedef struct { float bounds[2][3]; uint32_t offset; uint8_t nPrimitives; uint8_t splitAxis; uint16_t pad; } Node;
typedef struct { float p[3][3]; } Tri;
struct In { struct { float x, y; } pos; double w; int64_t big; };
typedef union { float f; uint32_t u; } FU;

#pragma omp declare simd uniform(nodes)
float bounds(const Node *nodes, int i, float x) { return x * nodes[i].bounds[1][2] + (float)nodes[i].offset; }

#pragma omp declare simd uniform(tris)
float corner(const Tri *tris, int j, int k, float x) { return tris[j].p[0][1] + tris[j].p[k][2] * x; }

#pragma omp declare simd uniform(in)
double nested(const struct In *in, int i) { return in[i].pos.y * in[i].w + (double)(in[i].big >> 40); }

#pragma omp declare simd uniform(t)
uint32_t punned(const FU *t, int i) { return t[i].u >> 3; }

#pragma omp declare simd uniform(nodes)
int narrow(const Node *nodes, int i) { return nodes[i].nPrimitives * 3 + nodes[i].splitAxis - nodes[i].pad; }
""",
    # local pointers into the array (references made pointers: const Node &n = nodes[i])
    "pointer_locals": S_DEF + """
#pragma omp declare simd uniform(s)
float via_local(const S *s, int i, float x) { const S *t = &s[i + 1]; return x * t->a + t[1].b + s->a; }

#pragma omp declare simd uniform(s)
float chosen(const S *s, int i, float x) { const S *t = s; if (x > 0) t = &s[i]; return t->a * x; }
""",
    # a struct of arrays, ispc's deferred shading's InputDataArrays: reads and a store through its pointers
    "soa": """#include <stdint.h>
typedef struct { float *zBuffer; uint16_t *normalEncoded_x; uint8_t *albedo_x; const float *lightPositionView_x; } In;

#pragma omp declare simd uniform(inputData)
float shade(const In *inputData, int gBufferOffset, int light, float x)
{
    float z = inputData->zBuffer[gBufferOffset];
    float n = (float)inputData->normalEncoded_x[gBufferOffset] * (1.0f / 65535.0f);
    float a = (float)inputData->albedo_x[gBufferOffset & 255];
    return (z * n + a) * x + inputData->lightPositionView_x[light & 31];
}

typedef struct { float *out; int n; } Out;
#pragma omp declare simd uniform(o)
void put(const Out *o, int i, float x) { if (x < 4.0f) o->out[i] = x * 2.0f; }
""",
    # a BVH walk after ispc's ray tracer (examples/cpu/rt/rt_serial.cpp): per lane a node index, the
    # node's bounds, its triangles' corners at an index read from the node, an inlined helper
    "bvh": """#include <stdint.h>
typedef struct { float bounds[2][3]; uint32_t offset; uint8_t nPrimitives; uint8_t splitAxis; uint16_t pad; } Node;
typedef struct { float p[3][4]; int id; } Tri;

static int box_test(const Node *node, float ox, float oy, float invx, float invy, float tmax)
{
    float t0 = 0.0f, t1 = tmax;
    float tn = (node->bounds[0][0] - ox) * invx, tf = (node->bounds[1][0] - ox) * invx;
    if (tn > tf) { float t = tn; tn = tf; tf = t; }
    t0 = tn > t0 ? tn : t0;
    t1 = tf < t1 ? tf : t1;
    tn = (node->bounds[0][1] - oy) * invy;
    tf = (node->bounds[1][1] - oy) * invy;
    if (tn > tf) { float t = tn; tn = tf; tf = t; }
    t0 = tn > t0 ? tn : t0;
    t1 = tf < t1 ? tf : t1;
    return t0 <= t1;
}

#pragma omp declare simd uniform(nodes, tris)
float trace(const Node *nodes, const Tri *tris, float ox, float oy, float dx, float dy)
{
    float invx = 1.0f / dx, invy = 1.0f / dy;
    float hit = -1.0f;
    int k = 0;
    for (int step = 0; step < 6; step++) {
        const Node *node = &nodes[k];
        if (box_test(node, ox, oy, invx, invy, 1e30f)) {
            if (node->nPrimitives > 0) {
                const Tri *tri = &tris[node->offset & 63];
                float d = tri->p[node->splitAxis % 3][1] - oy;
                if (d > hit)
                    hit = d;
                k = (k + 1) & 31;
            } else {
                k = (int)(node->offset & 31);
            }
        } else {
            k = (k + 2) & 31;
        }
    }
    return hit;
}
""",
}


@pytest.mark.parametrize("case, isa", on_every_isa(sorted(CASES)))
def test_case(tmp_path: Path, case: str, isa: str) -> None:
    check(tmp_path, case, CASES[case], isa)


@pytest.mark.parametrize("case, isa", on_every_isa(sorted(CASES), ["avx2", "avx512"]))
def test_case_with_gathers(tmp_path: Path, case: str, isa: str) -> None:
    check(tmp_path, f"{case}_g", CASES[case], isa, gathers=True)


# --------------------------------------------------------------------------------------------------
# What the output looks like


@pytest.mark.parametrize("isa", ALL)
def test_one_index_and_a_named_read_per_field(tmp_path: Path, isa: str) -> None:
    """``x * s[i].a + s[i].b`` (gathers off): the index's lanes stored once, one named read per field,
    no lane extraction; a uniform index: one scalar load and a broadcast, no per-lane read."""
    _, _, res = expand_text(tmp_path, "reads", CASES["reads"], isa)
    aos = body_of(res.text, "_Exp_aos")
    assert aos.count("int32_t s_idx[") == 1 and "s_idx_2" not in aos, aos
    (a,) = [line for line in aos.splitlines() if " s_a = " in line]
    assert "s[s_idx[0]].a" in a and f"s[s_idx[{get_isa(isa).lanes - 1}]].a" in a, aos
    (b,) = [line for line in aos.splitlines() if " s_b = " in line]
    assert "s[s_idx[0]].b" in b, aos
    assert "_extract_" not in aos and "vgetq_lane" not in aos and "vec_extract" not in aos, aos
    assert re.search(r"return .*\bs_a\b.*\bs_b\b", aos), aos
    uni = body_of(res.text, "_Exp_at_uniform")
    assert uni.count("s[j].a") == 1 and uni.count("s[j + 1].n") == 1 and "_idx" not in uni, uni


@pytest.mark.parametrize("isa", ["avx2", "avx512"])
def test_gathers_per_field_with_the_struct_stride(tmp_path: Path, isa: str) -> None:
    """``--gathers on``: one gather per field from the field's address in element 0, the index scaled by
    the struct's size in floats (12 bytes: 3), 64-bit offsets (an index * 3 may not fit 32 bits for a
    pointer of unknown size), computed once for both fields; the masked form under a mask."""
    _, _, res = expand_text(tmp_path, "reads", CASES["reads"], isa, gathers=True)
    aos = body_of(res.text, "_Exp_aos")
    assert aos.count("s_off = ") == 1 and "_exp_mul_i64(_exp_cvt_i32_i64(i), _exp_splat_i64(3))" in aos, aos
    assert "_exp_gather_f32_i64_x4(&s[0].a, s_off)" in aos and "_exp_gather_f32_i64_x4(&s[0].b, s_off)" in aos
    assert f"{NATIVE[isa]}_i64gather_ps(" in res.text
    _, _, res = expand_text(tmp_path, "masked", CASES["masked"], isa, gathers=True)
    masked = body_of(res.text, "_Exp_masked")
    assert "_exp_gather_f32_i64_x4_masked(&s[0].a, s_off, " in masked, masked
    assert f"{NATIVE[isa]}_mask_i64gather_ps(" in res.text
    _, _, res = expand_text(tmp_path, "members", CASES["members"], isa, gathers=True)
    assert "&nodes[0].bounds[1][2]" in body_of(res.text, "_Exp_bounds")
    _, _, res = expand_text(tmp_path, "reads_off", CASES["reads"], isa, gathers=False)
    assert "gather" not in body_of(res.text, "_Exp_aos")


@pytest.mark.parametrize("isa", ALL)
def test_masked_reads_touch_only_active_lanes(tmp_path: Path, isa: str) -> None:
    """Per lane under a mask, each lane's read only when the lane is on (the pointer's element 0 need not
    exist); verified with indexes from the whole int range in the lanes that fail the test."""
    src, isa_t, res = expand_text(tmp_path, "masked", CASES["masked"], isa)
    body = body_of(res.text, "_Exp_masked")
    if isa not in NATIVE:
        assert re.search(r"\(on(_\d+)? >> 0 & 1\) \? s\[s_idx(_\d+)?\[0\]\]\.a : 0", body), body
    (e,) = res.functions
    rep = verify(scalar_sources=[src], scalar_name="masked", vector_c=res.text, vector_name=e.vector_name,
                 params=[Param(q.name, q.type, q.shape or "varying") for q in e.params], ret=e.ret, isa=isa_t,
                 n_random=3000, bounds={"i": (-2**31, 3)}, constants=e.constants)
    assert_verified(rep, res.text)


def test_stores_per_lane_in_lane_order(tmp_path: Path) -> None:
    _, _, res = expand_text(tmp_path, "stores", CASES["stores"], "avx2")
    body = body_of(res.text, "_Exp_set_masked")
    assert "if (on >> lane & 1)" in body and "s[idx[lane]].b = lanes[lane];" in body, body
    assert "s->n = 5;" in body_of(res.text, "_Exp_set_one") and "s[1].a = 2.5f;" in res.text
    nested = body_of(res.text, "_Exp_set_nested")
    for member in ("p.x", "p.y", "q.x", "id"):
        assert re.search(rf"g\[idx(_\d+)?\[lane\]\]\.{re.escape(member)} = lanes(_\d+)?\[lane\];", nested), nested


def test_remarks_name_the_field(tmp_path: Path, capsys) -> None:
    src = tmp_path / "r.c"
    src.write_text(CASES["reads"] + CASES["stores"].removeprefix(S_DEF))
    for isa, gathers, kind in (("sse4.1", "off", "per-lane-load"), ("avx2", "on", "gather")):
        rc = expand_main([str(src), "--isa", isa, "--gathers", gathers, "--remarks", "-o", str(tmp_path / "o.c")])
        assert rc == 0
        err = capsys.readouterr().err
        assert re.search(rf"r\.c:\d+:\d+: remark: read of field 'a' of 's\[i\]' at an index that differs per lane: "
                         rf".*\[{kind}\]", err), err
        assert "read of field 'b' of 's[i]'" in err
        if kind == "gather":
            assert "a gather instruction, elements 12 bytes apart [gather]" in err
        else:
            assert "8 scalar loads" not in err and "4 scalar loads and inserts [per-lane-load]" in err
        assert re.search(r"remark: store to field 'b' of 's\[i\]' at an index that differs per lane: one scalar "
                         r"store per active lane \[per-lane-store\]", err), err
        assert "at_uniform" not in err and "s[j]" not in err  # (a uniform index: no remark)


# --------------------------------------------------------------------------------------------------
# The verifier's inputs


def test_index_params_and_fixed_pointers(tmp_path: Path) -> None:
    text = CASES["members"] + CASES["reads"]
    src = tmp_path / "m.c"
    src.write_text(text)
    mod = read_file_any(str(src), text, cc=get_isa("sse2").preprocessor)
    for name in ("corner", "aos", "one", "at_uniform"):
        for p in mod.functions[name].params:
            p.shape = "uniform" if isinstance(p.type, Pointer) or name == "at_uniform" and p.name == "j" else ""
    assert index_params(mod.functions["corner"]) == {"j": None, "k": 3}
    assert fixed_pointers(mod.functions["corner"]) == {}
    assert index_params(mod.functions["aos"]) == {"i": None}
    assert index_params(mod.functions["one"]) == {} and fixed_pointers(mod.functions["one"]) == {"s": 0}
    assert fixed_pointers(mod.functions["at_uniform"]) == {}
    bounds, notes = trip_bounds([Param("j", INT), Param("k", INT), Param("n", INT, "uniform")], ["k", "n"], {},
                                {"j": None, "k": 3, "n": None}, 1000)
    assert bounds == {"j": (0, 999), "k": (0, 2), "n": (0, 256)}
    assert notes[1] == ("k: drawn from 0..2 (it bounds a loop's trip count and it indexes an array of 3 through a "
                        "uniform pointer; --range k=LO:HI to change)")
    assert trip_bounds([Param("j", INT)], [], {}, {"j": None}, 10)[0] == {"j": (0, OFFSET - 1)}


#: a vector function that reads s[i].b adding +0.0f in lane 0 (-0 becomes +0)
GET_B = S_DEF + "#pragma omp declare simd uniform(s)\nfloat get_b(const S *s, int i) { return s[i].b; }\n"
GET_ONE = S_DEF + "#pragma omp declare simd uniform(s)\nfloat get_one(const S *s, float x) { return s->b * x; }\n"


def test_the_members_take_their_edge_values(tmp_path: Path) -> None:
    """A wrong vector function that differs only where a member is -0 is caught: through an array at a
    varying index, and through a pointer to one struct (which --verify moves along its array, showing the
    members of each input's element). The edge values of an array's floats hold one NaN."""
    isa = get_isa("sse4.1")
    for text, name, edit in ((GET_B, "get_b", ("s[s_idx[0]].b", "s[s_idx[0]].b + 0.0f")),
                             (GET_ONE, "get_one", ("_mm_set1_ps(s->b)", "_mm_set1_ps(s->b + 0.0f)"))):
        src, _, res = expand_text(tmp_path, name, text, "sse4.1")
        assert edit[0] in res.text, res.text
        (e,) = res.functions
        bounds, _, moving = shaped_inputs(e, {}, 20000)
        assert moving == (["s"] if name == "get_one" else [])
        kw = dict(scalar_sources=[src], scalar_name=name, vector_name=e.vector_name, ret=e.ret, isa=isa,
                  params=[Param(q.name, q.type, q.shape or "varying") for q in e.params], n_random=20000,
                  bounds=bounds, moving=moving)
        assert_verified(verify(vector_c=res.text, **kw), res.text)
        bad = verify(vector_c=res.text.replace(*edit), **kw)
        if bad.not_run is None:
            assert not bad.ok and bad.mismatches > 0, bad.summary
            assert "scalar 0x80000000 (-0) vector 0x00000000 (0)" in bad.details
            if name == "get_one":
                assert re.search(r" s->b=0x80000000 \(-0\)", bad.details), bad.details
        edges = re.search(r"vfy_aedge0_float\[\] = \{(.*?)\};", bad.harness_c, re.S)
        assert edges and f"0x{ARRAY_NAN[32]:x}ULL" in edges.group(1) and "0x7fa00000ULL" not in edges.group(1)


def test_the_lead_s_command(tmp_path: Path, capsys) -> None:
    """The issue's example on the command line: exit 0, 0 mismatches, the index's range said."""
    src = tmp_path / "f.c"
    src.write_text(S_DEF + "float f(const S *s, int i, float x) { return x * s[i].a + s[i].b; }\n")
    rc = expand_main([str(src), "--isa", "avx2", "--uniform", "s", "--verify", "--random", "5000",
                      "-o", str(tmp_path / "o.c")])
    out = capsys.readouterr()
    skip_if_cli_not_run(rc, out.err)
    assert rc == 0, out.out + out.err
    assert ", 0 mismatches" in out.out
    assert "i: drawn from 0..4999 (it indexes memory through a uniform pointer; --range i=LO:HI to change)" in out.out


# --------------------------------------------------------------------------------------------------
# Diagnostics


@pytest.mark.parametrize("body, message", [
    ("void f(S *s, int j, float x) { s[j].n = (int)x; }", "one place every lane shares ('s', a uniform pointer)"),
    ("void f(S *s, int j, float x) { if (x > 0) s[j].a = 1; }", "one place every lane shares ('s', a uniform pointer)"),
    ("void f(S *s, int i, float x) { s[i].a = x; s[i + 1].a = x; }", "a second store to memory that every lane"),
    ("void f(S *s, int i, float x) { s[i].a = x; s[i].b = s[i ^ 1].a; }", "that the function also reads"),
    ("void f(S *s, S *t, int i, float x) { s[i].a = x; t[i].b = x; }", "a second store to memory that every lane"),
    ("void f(S *s, int i, float x) { for (int k = 0; k < 2; k++) s[i + k].a = x; }", "inside a loop"),
])
def test_stores_whose_lane_order_would_show(tmp_path: Path, body: str, message: str) -> None:
    uniform = "uniform(s, t)" if "S *t" in body else "uniform(s, j)" if "int j" in body else "uniform(s)"
    with pytest.raises(ExpandError) as info:
        expand_text(tmp_path, "d", f"{S_DEF}#pragma omp declare simd {uniform}\n{body}\n", "avx2")
    assert message in str(info.value) and info.value.coord.line == 3


def test_a_varying_struct_pointer_says_to_declare_it_uniform(tmp_path: Path) -> None:
    with pytest.raises(ExpandError) as info:
        expand_text(tmp_path, "v", S_DEF + "float f(const S *s, int i) { return s[i].a; }\n", "avx2")
    assert "declare 's' uniform" in info.value.hint


@pytest.mark.parametrize("decl, message", [
    ("typedef struct { void *p; float a; } P;\nfloat f(const P *s, int i) { return s[i].a; }",
     "member 'p' points to 'void', which the harness cannot fill with values"),
    ("typedef struct { float **p; float a; } P;\nfloat f(const P *s, int i) { return s[i].a; }",
     "member 'p' points to 'float *', which the harness cannot fill with values"),
    ("typedef struct { int n; float d[]; } P;\nfloat f(const P *s, int i) { return s->d[i & 3]; }",
     "an array of unknown length (member 'd') cannot be filled"),
])
def test_what_the_verifier_cannot_fill_is_a_diagnostic(tmp_path: Path, capsys, decl: str, message: str) -> None:
    src = tmp_path / "p.c"
    src.write_text(decl + "\n")
    out = tmp_path / "o.c"
    assert expand_main([str(src), "--isa", "sse2", "--uniform", "s", "--verify", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert re.search(rf"p\.c:2:\d+: error: --verify cannot check 'f': parameter s \(P \*\): {re.escape(message)}",
                     err), err
    assert "Traceback" not in err and not out.exists()
    with pytest.raises(Unverifiable):
        verify(scalar_sources=[src], scalar_name="f", vector_c="", vector_name="g", ret=FLOAT, isa=get_isa("sse2"),
               params=[Param("s", Pointer(Record(None, False, [("p", Pointer(Pointer(FLOAT)))], "P")), "uniform")])


# --------------------------------------------------------------------------------------------------
# Calling it: the vector function ABI's header and variants with a uniform struct pointer

ABI_SRC = """struct S { float a, b; int n; };
#pragma omp declare simd uniform(s)
float f(const struct S *s, int i, float x) { return x * s[i].a + s[i].b; }
"""
ABI_LOOP = """#include "f.h"
struct S { float a, b; int n; };
void vec_loop(const struct S *s, const int *idx, const float *x, float *out, int n)
{
#pragma omp simd
    for (int k = 0; k < n; k++)
        out[k] = f(s, idx[k], x[k]);
}
"""
ABI_MAIN = """#include <stdio.h>
#include <string.h>
struct S { float a, b; int n; };
float f(const struct S *s, int i, float x);
void vec_loop(const struct S *s, const int *idx, const float *x, float *out, int n);
int main(void)
{
    static struct S s[64];
    static int idx[1003];
    static float x[1003], out[1003];
    unsigned r = 12345;
    for (int k = 0; k < 64; k++) { s[k].a = (float)k * 0.75f - 9.0f; s[k].b = 1.0f / (float)(k + 1); s[k].n = k; }
    s[5].a = -0.0f; s[6].b = -0.0f;
    for (int k = 0; k < 1003; k++) {
        r = r * 1103515245u + 12345u;
        idx[k] = (int)(r >> 16) % 64;
        x[k] = (float)(r % 1000) - 500.0f;
    }
    vec_loop(s, idx, x, out, 1003);
    int bad = 0;
    for (int k = 0; k < 1003; k++) { float want = f(s, idx[k], x[k]); bad += memcmp(&want, &out[k], 4) != 0; }
    printf("%d mismatches\\n", bad);
    return bad != 0;
}
"""


def test_gcc_loop_calls_the_variant_with_a_struct_pointer(tmp_path: Path) -> None:
    """``--abi --header``: the header declares ``struct S;`` (the caller defines it after including it), GCC's
    ``#pragma omp simd`` loop calls ``_ZGVdN8uvv_f`` with the uniform pointer (and the SSE variant for its
    tail), and every result is the scalar function's."""
    src = tmp_path / "f.c"
    src.write_text(ABI_SRC)
    out, hdr = tmp_path / "f_avx2.c", tmp_path / "f.h"
    assert expand_main([str(src), "--isa", "avx2", "--abi", "--header", str(hdr), "-o", str(out)]) == 0
    assert "struct S;" in hdr.read_text()
    tail = tmp_path / "f_sse41.c"  # (GCC's tail calls the SSE variant)
    assert expand_main([str(src), "--isa", "sse4.1", "--abi", "-o", str(tail)]) == 0
    (tmp_path / "loop.c").write_text(ABI_LOOP)
    (tmp_path / "main.c").write_text(ABI_MAIN)

    def cc(*args: str | Path) -> str:
        p = subprocess.run(["gcc", *map(str, args)], capture_output=True, text=True, cwd=tmp_path)
        assert p.returncode == 0, p.stderr
        return p.stdout

    cc("-O3", "-fopenmp-simd", "-mavx2", "-mfma", "-Wall", "-Werror", "-c", "loop.c", "-o", "loop.o")
    cc("-O2", "-mavx2", "-mfma", *STRICT, "-c", out, "-o", "vec.o")
    cc("-O2", "-msse4.1", *STRICT, "-c", tail, "-o", "tail.o")
    cc("-O2", "-c", src, "-o", "scalar.o")
    cc("-O2", "-fno-tree-vectorize", "-c", "main.c", "-o", "main.o")
    cc("main.o", "loop.o", "vec.o", "tail.o", "scalar.o", "-o", "prog")
    calls = subprocess.run(["objdump", "-d", str(tmp_path / "prog")], capture_output=True, text=True).stdout
    assert re.search(r"call\s+[0-9a-f]+ <_ZGVdN8uvv_f>", calls)
    skip_run_unless_host("avx2")
    run = subprocess.run([str(tmp_path / "prog")], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.strip() == "0 mismatches", run.stdout + run.stderr


def test_a_store_through_a_pointer_member_is_compared(tmp_path: Path) -> None:
    """The array a pointer member points to is compared after the calls: a wrong store shows as
    ``array o->out index N``."""
    src, isa, res = expand_text(tmp_path, "soa", CASES["soa"], "sse4.1")
    e = next(f for f in res.functions if f.scalar_name == "put")
    bounds, _, moving = shaped_inputs(e, {}, 3000)
    kw = dict(scalar_sources=[src], scalar_name="put", vector_name=e.vector_name, ret=e.ret, isa=isa,
              params=[Param(q.name, q.type, q.shape or "varying") for q in e.params], n_random=3000,
              bounds=bounds, moving=moving, constants=e.constants)
    assert "o->out[idx[lane]] = lanes[lane];" in res.text
    assert_verified(verify(vector_c=res.text, **kw), res.text)
    bad = verify(vector_c=res.text.replace("o->out[idx[lane]] = lanes[lane];", "o->out[idx[lane]] = -lanes[lane];"),
                 **kw)
    if bad.not_run is None:
        assert not bad.ok and re.search(r"array o->out index \d+ after all calls: DIFFERS", bad.details), bad.details
