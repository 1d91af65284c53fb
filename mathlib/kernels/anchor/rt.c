/* The anchor of mathlib/kernels/rt.c: one gang of pixels (VL consecutive pixels of row y from x on)
   by hand, with the instructions of simd.h, as ispc compiles its rt example: the camera matrices are
   scalars and the ray a struct of vectors; the traversal is one loop that runs while any lane has
   nodes left, each lane at its own node (a vector of node numbers: the node's fields are gathers,
   SSE4.1: lane loads), its stack of node numbers an array of VL-lane rows indexed by the lane's
   stack pointer (pushes are scatters, AVX2 and SSE4.1: a store per lane; pops gathers); a leaf's
   triangles are tested under the mask of the lanes still inside it, each test's result blended. */

#include "simd.h"
#include "vvec.h"

#include "../rt_scene.h"

/* the tables as 32-bit words: a node is 8 (bounds, offset, then nprims and axis in the low bytes of
   the eighth), a triangle 10 (its vertices, then its id) */
#define NODE_WORDS 8
#define TRI_WORDS 10
#define NODES ((const float *)(const void *)RT_NODES)
#define NODE_INTS ((const anchor_word *)(const void *)RT_NODES)
#define TRIS ((const float *)(const void *)RT_TRIS)
#define TRI_INTS ((const anchor_word *)(const void *)RT_TRIS)

typedef struct {
    vvec org, dir, inv;
    vm neg[3];
    vf tmax;
    vi hit_id;
} vray;

/* one slab of the box test */
static inline void slab(vf lo, vf hi, vf org, vf inv, vf *t0, vf *t1)
{
    vf near = vf_mul(vf_sub(lo, org), inv), far = vf_mul(vf_sub(hi, org), inv);
    vm swap = vf_gt(near, far);
    *t0 = larger(vf_blend(near, far, swap), *t0);
    *t1 = smaller(vf_blend(far, near, swap), *t1);
}

/* the lanes whose ray meets the box of node (word index base = node * NODE_WORDS) */
static inline vm box_hit(vi base, const vray *r)
{
    vf t0 = vf_set1(0.0f), t1 = r->tmax;
    slab(vf_gather(NODES, base), vf_gather(NODES, vi_add(base, vi_set1(3))), r->org.x, r->inv.x, &t0, &t1);
    slab(vf_gather(NODES, vi_add(base, vi_set1(1))), vf_gather(NODES, vi_add(base, vi_set1(4))), r->org.y, r->inv.y,
         &t0, &t1);
    slab(vf_gather(NODES, vi_add(base, vi_set1(2))), vf_gather(NODES, vi_add(base, vi_set1(5))), r->org.z, r->inv.z,
         &t0, &t1);
    return vf_le(t0, t1);
}

static inline vvec vertex(vi base, int k)
{
    return vvec3(vf_gather(TRIS, vi_add(base, vi_set1(3 * k))), vf_gather(TRIS, vi_add(base, vi_set1(3 * k + 1))),
                 vf_gather(TRIS, vi_add(base, vi_set1(3 * k + 2))));
}

/* the triangles at tri in the lanes of on: a nearer hit shortens the ray and names the triangle */
static inline void tri_hit(vi tri, vm on, vray *r)
{
    vi base = vi_mul(tri, vi_set1(TRI_WORDS));
    vvec p0 = vertex(base, 0), e1 = vsub(vertex(base, 1), p0), e2 = vsub(vertex(base, 2), p0);
    vvec s1 = vcross(r->dir, e2);
    vf det = vdot(s1, e1);
    vm m = vm_andnot(on, vf_eq(det, vf_set1(0.0f)));
    vf inv_det = vf_div(vf_set1(1.0f), det);
    vvec d = vsub(r->org, p0);
    vf b1 = vf_mul(vdot(d, s1), inv_det);
    m = vm_andnot(m, vm_or(vf_lt(b1, vf_set1(0.0f)), vf_gt(b1, vf_set1(1.0f))));
    vvec s2 = vcross(d, e1);
    vf b2 = vf_mul(vdot(r->dir, s2), inv_det);
    m = vm_andnot(m, vm_or(vf_lt(b2, vf_set1(0.0f)), vf_gt(vf_add(b1, b2), vf_set1(1.0f))));
    vf t = vf_mul(vdot(e2, s2), inv_det);
    m = vm_andnot(m, vm_or(vf_lt(t, vf_set1(0.0f)), vf_gt(t, r->tmax)));
    r->tmax = vf_blend(r->tmax, t, m);
    r->hit_id = vi_blend(r->hit_id, vi_gather(TRI_INTS, vi_add(base, vi_set1(9))), m);
}

void anchor_rt(int w, int h, float *depth, int *ids, int y, int x)
{
    vray r;
    camera_rays(RT_RASTER_TO_CAMERA, RT_CAMERA_TO_WORLD, RT_BASE_W, RT_BASE_H, w, h, y, x, &r.org, &r.dir);
    vf one = vf_set1(1.0f), zero = vf_set1(0.0f);
    r.inv = vvec3(vf_div(one, r.dir.x), vf_div(one, r.dir.y), vf_div(one, r.dir.z));
    r.neg[0] = vf_lt(r.inv.x, zero);
    r.neg[1] = vf_lt(r.inv.y, zero);
    r.neg[2] = vf_lt(r.inv.z, zero);
    r.tmax = vf_set1(1e30f);
    r.hit_id = vi_set1(0);

    int stack[64 * VL]; /* row k: the k-th entry of every lane's stack */
    const vi lane = vi_iota(), rows = vi_set1(VL), vone = vi_set1(1), izero = vi_set1(0);
    vi node = izero, top = izero;
    vm active = vm_all();
    while (vm_any(active)) {
        vi base = vi_mul(node, vi_set1(NODE_WORDS));
        vm inside = vm_and(active, box_hit(base, &r));
        vi word = vi_gather(NODE_INTS, vi_add(base, vi_set1(7)));
        vi nprims = vi_and(word, vi_set1(0xff));
        vm leaf = vm_and(inside, vi_gt(nprims, izero));
        vm inner = vm_andnot(inside, leaf);
        vi offset = vi_gather(NODE_INTS, vi_add(base, vi_set1(6)));
        if (vm_any(leaf)) {
            vi i = izero;
            for (vm on = vm_and(leaf, vi_gt(nprims, i)); vm_any(on); on = vm_and(on, vi_gt(nprims, i))) {
                tri_hit(vi_add(offset, i), on, &r);
                i = vi_add(i, vone);
            }
        }
        if (vm_any(inner)) {
            /* the ray runs towards -axis: the second child first, the first one on the stack */
            vi axis = vi_and(vi_srli(word, 8), vi_set1(0xff));
            vm neg = vm_or(vm_or(vm_and(vi_eq(axis, izero), r.neg[0]), vm_and(vi_eq(axis, vone), r.neg[1])),
                           vm_and(vi_eq(axis, vi_set1(2)), r.neg[2]));
            vi next = vi_add(node, vone);
            vi_scatter(stack, vi_add(vi_mul(top, rows), lane), vi_blend(offset, next, neg), inner);
            node = vi_blend(node, vi_blend(next, offset, neg), inner);
            top = vi_blend(top, vi_add(top, vone), inner);
        }
        /* a leaf done or a box missed: the next node from the stack, or the lane is done */
        vm pop = vm_andnot(active, inner);
        vm done = vm_and(pop, vi_eq(top, izero));
        active = vm_andnot(active, done);
        pop = vm_andnot(pop, done);
        if (vm_any(pop)) {
            top = vi_blend(top, vi_sub(top, vone), pop);
            vi idx = vi_blend(izero, vi_add(vi_mul(top, rows), lane), pop);
            node = vi_blend(node, vi_gather(stack, idx), pop);
        }
    }
    vf_store(&depth[y * w + x], r.tmax);
    vi_store(&ids[y * w + x], r.hit_id);
}
