"""Struct locals (issue 25): one variable per member once helpers are inlined (expand/passes/struct_fields.py),
as ispc's varying structs are a struct of vectors. Helpers' struct parameters and results, pointers to the
caller's structs, nested structs, brace initializers, copies from file-scope structs and tables, and local
arrays of structs read at constant indexes; on every ISA the output compiles with -Wall -Wextra -Werror and
verifies bit for bit against the scalar function."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from daily import on_every_isa
from expand_case import check_source, expand_source

from expand.ir.diagnostics import ExpandError

HEAD = """#include <math.h>
typedef struct { float x, y, z; } vec;
typedef struct { vec org; vec dir; } ray;
typedef struct { float t; vec p; vec n; int hit; } isect;
typedef struct { vec center; float radius; } sphere;
static float dot(vec a, vec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static vec sub(vec a, vec b) { vec r = {a.x - b.x, a.y - b.y, a.z - b.z}; return r; }
static vec scale(vec v, float k) { v.x *= k; v.y *= k; v.z *= k; return v; }
"""

#: a ray against a sphere, as aobench's ray_sphere_intersect: pointers to the caller's structs, a
#: sphere from a table at a varying index, nested members written under a condition
SPHERE = HEAD + """static const sphere SPHERES[4] = {{{0.0f, 0.0f, -3.0f}, 0.5f}, {{1.0f, 0.0f, -2.0f}, 1.0f},
                                  {{-1.0f, 0.5f, -4.0f}, 0.25f}, {{0.0f, -1.0f, -2.5f}, 2.0f}};
static void hit_sphere(isect *is, const ray *r, const sphere *s)
{
    vec rs = sub(r->org, s->center);
    float b = dot(rs, r->dir);
    float c = dot(rs, rs) - s->radius * s->radius;
    float d = b * b - c;
    if (d > 0.0f) {
        float t = -b - sqrtf(d);
        if (t > 0.0f && t < is->t) {
            is->t = t;
            is->hit = 1;
            is->p = r->org;
            is->p.x += r->dir.x * t;
            is->p.y += r->dir.y * t;
            is->p.z += r->dir.z * t;
            is->n = scale(sub(is->p, s->center), 1.0f / s->radius);
        }
    }
}
float f(float px, float py, int k)
{
    ray r = {{0.0f, 0.0f, 0.0f}, {px, py, -1.0f}};
    isect is;
    sphere s = SPHERES[k & 3];
    is.t = 1.0e17f;
    is.hit = 0;
    hit_sphere(&is, &r, &s);
    hit_sphere(&is, &r, &SPHERES[(k + 1) & 3]);
    return is.hit ? is.n.x + is.n.y * 2.0f + is.p.z : -1.0f;
}
"""

#: aobench's ortho_basis: a local array of structs passed to a helper, read and written at constants
BASIS = HEAD + """static vec cross(vec a, vec b)
{
    vec r;
    r.x = a.y * b.z - a.z * b.y;
    r.y = a.z * b.x - a.x * b.z;
    r.z = a.x * b.y - a.y * b.x;
    return r;
}
static void ortho_basis(vec *basis, vec n)
{
    basis[2] = n;
    basis[1].x = 0.0f;
    basis[1].y = 0.0f;
    basis[1].z = 0.0f;
    if (n.x < 0.6f && n.x > -0.6f)
        basis[1].x = 1.0f;
    else
        basis[1].y = 1.0f;
    basis[0] = cross(basis[1], basis[2]);
    basis[1] = cross(basis[2], basis[0]);
}
float f(float x, float y, float z)
{
    vec b[3];
    vec n = {x, y, z};
    ortho_basis(b, n);
    return dot(b[0], b[1]) + b[1].z - b[0].y * 0.5f;
}
"""

#: a struct declared in a loop (initialized each iteration), copied whole, members of int and double type
LOOP = """typedef struct { int n; double sum; } acc_t;
typedef struct { acc_t a; acc_t b; } pair_t;
double f(double x, int m)
{
    pair_t p = {{0, 0.0}, {1, 1.0}};
    for (int i = 0; i < m; i++) {
        acc_t step = {-1};
        if (x > i)
            step.n = i;
        step.sum += x * i;
        p.a.n += step.n;
        p.a.sum += step.sum;
        if (p.a.sum > 10.0)
            p.b = p.a;
    }
    return p.a.sum + p.b.sum * p.b.n - p.a.n;
}
"""

#: glibc's include/time.h: a helper returning a struct, one member read (refused before struct locals)
TS64 = """#include <stdint.h>
struct ts64 { int64_t tv_sec; int64_t tv_nsec; };
static inline struct ts64 to_ts64(int64_t s, int64_t us)
{
    struct ts64 ts;
    ts.tv_sec = s;
    ts.tv_nsec = us * 1000;
    return ts;
}
float f(float x) { return (float)to_ts64((int64_t)x, 3).tv_nsec + (float)to_ts64(2, (int64_t)x).tv_sec; }
"""

#: a copy from a file-scope struct the file declares and another file defines
GLOBAL = """struct s { int a; int b; };
extern const struct s g;
int f(int x)
{
    struct s v = g;
    if (x > v.b)
        v.a = x;
    return v.a + x;
}
"""

#: a helper given ``&G[j]`` and ``&j``: it may change ``j``, so its pointer keeps the element it was given
WRITTEN = """static const float G[8] = {1.5f, -2.0f, 3.25f, 0.5f, 8.0f, -1.0f, 0.25f, 4.0f};
static float h(const float *p, int *k) { *k = *k + 1; return p[0] + p[*k & 1]; }
float f(float x, int i) { int j = i & 3; float r = h(&G[j], &j); return r * x + (float)j; }
"""

#: aobench's loop over the spheres: ``&SPHERES[s]`` at the scalar counter ``s`` under a mask
SPHERES_LOOP = SPHERE.replace("""    hit_sphere(&is, &r, &s);
    hit_sphere(&is, &r, &SPHERES[(k + 1) & 3]);""", """    if (s.radius > px)
        for (int j = 0; j < 4; j++)
            hit_sphere(&is, &r, &SPHERES[j]);""")

#: a helper's ``const S *`` parameter given an element at a varying index: a local ``const`` pointer
#: (-Werror=discarded-qualifiers before); a static const struct whose initializer names a static table
CONST_POINTER = """typedef struct { const float *w; float bias; } layer;
static const int K[4] = {3, 0, 2, 1};
static const float W[8] = {0.5f, -1.0f, 2.0f, 0.25f, -0.5f, 1.5f, 3.0f, -2.0f};
static const layer L = {W, 0.125f};
static float dist2(const float *s, float a) { float dx = a - s[0]; return dx * dx - s[1] * s[1]; }
float f(const float *balls, float a, int i)
{
    float acc = L.bias + L.w[i & 7];
    for (int s = 0; s < 3; ++s)
        acc += dist2(&balls[K[s]], a) + dist2(&balls[(i + s) & 3], a);
    return acc;
}
"""

#: ispc's float3 is 16-byte aligned; a packed struct: a struct split into its members has no layout
ALIGNED = """typedef struct { float x, y, z; } __attribute__((aligned(16))) float3;
typedef struct __attribute__((packed)) { char tag; double w; } packed_t;
static float3 add3(float3 a, float3 b) { float3 r = {a.x + b.x, a.y + b.y, a.z + b.z}; return r; }
double f(float x, double y)
{
    float3 o = {x, 2.0f * x, 0.5f};
    float3 d = add3(o, o);
    packed_t p = {1, y};
    if (x > 1.0f)
        p.w = d.y + p.tag;
    return p.w + d.x * o.z;
}
"""

#: the ray tracer's ray: an array member, written at constants and read at an index that differs
#: per lane (``r->dirIsNeg[node->splitAxis]``), and an element written at such an index
ARRAY_MEMBER = """typedef struct { float x, y, z; } float3;
typedef struct { float3 origin, dir; unsigned int dirIsNeg[3]; float w[2][2]; float maxt; } Ray;
static const int AXIS[4] = {2, 0, 1, 2};
static void make(Ray *ray, float x, float y)
{
    ray->dir.x = x; ray->dir.y = y; ray->dir.z = -1.0f;
    ray->origin = ray->dir;
    ray->dirIsNeg[0] = (ray->dir.x < 0) ? 1 : 0;
    ray->dirIsNeg[1] = (ray->dir.y < 0) ? 1 : 0;
    ray->dirIsNeg[2] = 1;
    ray->w[0][0] = x; ray->w[0][1] = y; ray->w[1][0] = 0.5f; ray->w[1][1] = 2.0f;
    ray->maxt = 1e30f;
}
float f(float x, float y, int k)
{
    Ray ray;
    make(&ray, x, y);
    Ray copy = ray;
    int axis = AXIS[k & 3];
    if (copy.dirIsNeg[axis])
        copy.maxt = copy.w[axis & 1][(k >> 2) & 1];
    copy.w[k & 1][1] = y * 3.0f;
    copy.dirIsNeg[(k + 1) % 3] = 7;
    return copy.maxt + copy.w[0][1] + copy.w[1][1]
           + (float)(copy.dirIsNeg[0] + 2 * copy.dirIsNeg[1] + 4 * copy.dirIsNeg[2]);
}
"""

#: the ray tracer's helpers: Cross(&ray->dir, ...) inlined into a helper that got &ray (a local
#: pointer to a member of the caller's struct), a brace initializer calling helpers, an array member
#: given to a helper (BBoxIntersect(node->bounds, ...)) through a pointer into a table at a varying index
NESTED = """typedef struct { float x, y, z; } float3;
typedef struct { float3 origin, dir; float maxt; } Ray;
typedef struct { float bounds[2][3]; int offset; int n; } Node;
static const Node NODES[4] = {{{{0, 0, 0}, {1, 1, 1}}, 1, 2}, {{{-1, 0, 0}, {0.5f, 1, 2}}, 2, 0},
                              {{{-2, -2, -2}, {2, 2, 2}}, 3, 1}, {{{0.25f, 0, 0}, {3, 1, 1}}, 0, 4}};
static float3 make(float a) { float3 r = {a, a * 0.5f, 1.0f}; return r; }
static float dot(const float3 *a, const float3 *b) { return a->x * b->x + a->y * b->y + a->z * b->z; }
static int hit(Ray *ray, float3 e)
{
    float d = dot(&ray->dir, &e);
    if (d > 0.0f && d < ray->maxt) { ray->maxt = d; return 1; }
    return 0;
}
static int box(const float b[2][3], const Ray *ray) { return ray->dir.x >= b[0][0] && ray->dir.x <= b[1][0]; }
float f(float x, float y, int start)
{
    Ray ray = {.origin = make(y), .dir = make(x), .maxt = 1e30f};
    float3 e = {1.0f, y, x};
    int h = hit(&ray, e);
    int k = start & 3;
    float acc = 0.0f;
    for (int i = 0; i < 3; i++) {
        const Node *node = &NODES[k];
        if (box(node->bounds, &ray))
            acc += node->bounds[1][2] + (float)node->n;
        k = node->offset & 3;
    }
    return (h ? ray.maxt : -1.0f) + acc + ray.origin.y;
}
"""

#: copies whose value reads what the copy writes: C reads the whole value (and evaluates an index of
#: either side) once, before it writes (each was miscompiled when the members were copied in order)
SELF_COPIES = """typedef struct { float x; int n; float y; } rec;
typedef struct { float x; float y; } v2;
typedef struct { float x; float y; union { int i; float f; } u; } r3;
static const rec TAB[4] = {{1.0f, 2, 10.0f}, {2.0f, 3, 20.0f}, {3.0f, 0, 30.0f}, {4.0f, 1, 40.0f}};
float f(float a, float b, int k)
{
    rec s = {a, k & 3, 1.0f};
    s = TAB[s.n];
    v2 v = {a, b};
    v = (v2){v.y, v.x + 1.0f};
    r3 w = {a, b, {1}};
    w = (r3){w.y, w.x + 1.0f, {w.u.i + 2}};
    return s.x + s.y + (float)s.n + v.x * 3.0f + v.y + w.x * 5.0f + w.y + w.u.f;
}
"""

#: the same through a uniform pointer: the element a member of the struct itself picks
SELF_INDEX_MEMORY = """typedef struct { float x; int n; float y; } rec;
float f(float a, int k, const rec *p, int i)
{
    rec s = {a, k & 3, 1.0f};
    s = p[s.n + i];
    return s.x + s.y + (float)s.n;
}
"""

CASES = {"sphere": SPHERE, "basis": BASIS, "loop": LOOP, "ts64": TS64, "global": GLOBAL, "written": WRITTEN,
         "spheres_loop": SPHERES_LOOP, "const_pointer": CONST_POINTER, "aligned": ALIGNED,
         "array_member": ARRAY_MEMBER, "nested": NESTED, "self_copies": SELF_COPIES,
         "self_index_memory": SELF_INDEX_MEMORY}
UNIFORM = {"const_pointer": ["balls"], "self_index_memory": ["p"]}
BOUNDS = {"sphere": {"k": (-8, 8)}, "loop": {"m": (-2, 12)}, "written": {"i": (-8, 8)}, "spheres_loop": {"k": (-8, 8)},
          "const_pointer": {"i": (-64, 64)}, "array_member": {"k": (-16, 16)}, "nested": {"start": (-8, 8)},
          "self_index_memory": {"k": (0, 64), "i": (0, 64)}}
COMPANION = {"global": "struct s { int a; int b; };\nconst struct s g = {7, -3};\n"}


@pytest.mark.parametrize("name,isa_name", on_every_isa(CASES))
def test_struct_locals_verify(tmp_path: Path, name: str, isa_name: str) -> None:
    # (nan_bits False: where two NaNs meet, which payload comes out is not fixed: README, verify)
    check_source(tmp_path, name, CASES[name], isa_name, bounds=BOUNDS.get(name), companion=COMPANION.get(name, ""),
                 uniform=UNIFORM.get(name, ()), nan_bits=False)


@pytest.mark.parametrize("name", ["sphere", "basis"])
def test_struct_locals_through_libclang(tmp_path: Path, name: str) -> None:
    check_source(tmp_path, name, CASES[name], "avx2", frontend="clang", bounds=BOUNDS.get(name), nan_bits=False)


def test_members_are_variables_named_after_them(tmp_path: Path) -> None:
    """A varying struct is one vector per member, named by its path (``r_dir_x``), not words of bits;
    a member the same in every lane stays a scalar (``r_org_x = 0.0f``); a declaration's zero stores that
    the next statements overwrite are gone."""
    _, _, res = expand_source(tmp_path, "sphere", SPHERE, "avx2")
    body = res.text[res.text.index("_Exp_f("):]
    for name in ("r_dir_x", "r_dir_y", "is_t", "is_hit", "is_n_y", "s_radius", "s_center_x"):
        assert re.search(rf"\b__m256i? {name};", body), name
    for name in ("r_org_x", "r_dir_z"):
        assert re.search(rf"\bfloat {name};", body), name
    assert "_w0" not in body and "_w1" not in body
    _, _, res = expand_source(tmp_path, "array_member", ARRAY_MEMBER, "avx2")
    body = res.text[res.text.index("_Exp_f("):]
    for name in ("copy_dirIsNeg_2", "copy_w_1_0", "copy_maxt"):  # (copy.w[1][0] is the same in every lane)
        assert re.search(rf"\b(__m256i?|float) {name};", body), name
    assert not re.search(r"\bis_t = _mm256_set1_ps\(0\.0f\);", body)  # (isect is; then is.t = 1.0e17f)


def test_a_table_element_given_to_a_helper_is_read_at_the_callers_index(tmp_path: Path) -> None:
    """``hit_sphere(..., &SPHERES[j])`` in a loop whose counter is a scalar: the helper's ``s->radius``
    is ``SPHERES[j].radius``, one scalar read, not a read per lane."""
    _, _, res = expand_source(tmp_path, "spheres_loop", SPHERES_LOOP, "avx2")
    body = res.text[res.text.index("_Exp_f("):]
    assert "SPHERES[j].radius * SPHERES[j].radius" in body and "_mm256_set1_ps(SPHERES[j].center.x)" in body, body
    # (``s.radius`` of ``sphere s = SPHERES[k & 3]``, whose index differs per lane: the four spheres' floats in
    # registers, emit/avx2.py small_table)
    assert "_mm256_extract_epi32(" not in body and "_exp_small_table_f32_13(" in res.text, body


def _refused(tmp_path: Path, text: str) -> ExpandError:
    with pytest.raises(ExpandError) as info:
        expand_source(tmp_path, "refused", text, "sse4.1")
    return info.value


def test_struct_passed_to_an_external_function_is_refused(tmp_path: Path) -> None:
    text = HEAD + "extern float h(vec);\nfloat f(float x)\n{\n    vec v = {x, x, x};\n    return h(v);\n}\n"
    err = _refused(tmp_path, text)
    assert "local struct or union is used here as a value" in err.message, err.render()


def test_padded_struct_copied_to_memory_keeps_its_bytes(tmp_path: Path) -> None:
    """A struct with padding copied to memory is not split (C's copy writes the padding too): it is
    left to the words of bits (expand/passes/records.py), whose diagnostics are unchanged."""
    text = "typedef struct { char c; float v; } P;\nP G;\nfloat f(float x)\n{\n    P p = {1, x};\n" \
           "    G = p;\n    return p.v;\n}\n"
    err = _refused(tmp_path, text)
    assert "memory" in err.message or "store" in err.message, err.render()


def test_a_static_variable_another_function_writes_is_refused(tmp_path: Path) -> None:
    """The output is another file: a copy of a static variable that the input's functions write would
    not see their writes (it used to be copied silently)."""
    text = "static float scale = 2.0f;\nvoid set_scale(float s) { scale = s; }\n" \
           "float f(float x) { return x * scale; }\n"
    src = tmp_path / "refused.c"
    src.write_text(text)
    from emit import get_isa
    from expand.driver import expand_module
    from frontends.clang_frontend import read_file_any
    isa = get_isa("avx2")
    with pytest.raises(ExpandError) as info:
        expand_module(read_file_any(str(src), text, cc=isa.cc), isa, functions=["f"])
    err = info.value
    assert str(err.coord).endswith("refused.c:1:14") and "'scale' is not const and set_scale assigns it" in err.message
