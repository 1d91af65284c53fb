/* The anchor of mathlib/kernels/aobench.c: one gang of pixels (VL consecutive pixels of row y from
   x on) by hand, with the instructions of simd.h, as ispc compiles its aobench example: the
   structs hold one vector per field (a struct of vectors: ispc's varying structs), every loop
   (subsamples, occlusion samples, spheres) is a scalar loop with uniform bounds, the scene is
   scalars, each lane keeps its pixel's generator (a vector of xorshift32 states, as ispc's aobench
   keeps one RNGState per program instance) and calls mathlib's vector cosf and sinf, an `if` on a
   varying condition is a mask that guards the blends of what it assigns, and the occlusion of a
   gang is computed only if one of its lanes hit. */

#include <math.h>

#include "simd.h"

#include "../aobench_scene.h"

typedef struct { vf x, y, z; } vvec;
typedef struct { vf t; vvec p; vvec n; vm hit; } visect;

static inline vf vdot(vvec a, vvec b)
{
    return vf_add(vf_add(vf_mul(a.x, b.x), vf_mul(a.y, b.y)), vf_mul(a.z, b.z));
}

static inline vvec vcross(vvec a, vvec b)
{
    vvec r = {vf_sub(vf_mul(a.y, b.z), vf_mul(a.z, b.y)), vf_sub(vf_mul(a.z, b.x), vf_mul(a.x, b.z)),
              vf_sub(vf_mul(a.x, b.y), vf_mul(a.y, b.x))};
    return r;
}

static inline vvec vnormalize(vvec v)
{
    vf inv = vf_div(vf_set1(1.0f), vf_sqrt(vdot(v, v)));
    vvec r = {vf_mul(v.x, inv), vf_mul(v.y, inv), vf_mul(v.z, inv)};
    return r;
}

static inline vvec vsplat(vec a)
{
    vvec r = {vf_set1(a.x), vf_set1(a.y), vf_set1(a.z)};
    return r;
}

static inline vvec vblend(vvec a, vvec b, vm m)
{
    vvec r = {vf_blend(a.x, b.x, m), vf_blend(a.y, b.y, m), vf_blend(a.z, b.z, m)};
    return r;
}

/* org + t dir */
static inline vvec vpoint(vvec org, vf t, vvec dir)
{
    vvec r = {vf_add(org.x, vf_mul(t, dir.x)), vf_add(org.y, vf_mul(t, dir.y)), vf_add(org.z, vf_mul(t, dir.z))};
    return r;
}

static inline void ray_sphere_intersect(visect *is, vvec org, vvec dir, const sphere *s)
{
    vvec c = vsplat(s->center);
    vvec rs = {vf_sub(org.x, c.x), vf_sub(org.y, c.y), vf_sub(org.z, c.z)};
    vf b = vdot(rs, dir);
    vf cc = vf_sub(vdot(rs, rs), vf_set1(s->radius * s->radius));
    vf d = vf_sub(vf_mul(b, b), cc);
    vm inside = vf_gt(d, vf_set1(0.0f));
    if (!vm_any(inside))
        return;
    vf t = vf_sub(vf_neg(b), vf_sqrt(d));
    vm m = vm_and(inside, vm_and(vf_gt(t, vf_set1(0.0f)), vf_lt(t, is->t)));
    if (!vm_any(m))
        return;
    vvec p = vpoint(org, t, dir);
    vvec n = vnormalize((vvec){vf_sub(p.x, c.x), vf_sub(p.y, c.y), vf_sub(p.z, c.z)});
    is->t = vf_blend(is->t, t, m);
    is->hit = vm_or(is->hit, m);
    is->p = vblend(is->p, p, m);
    is->n = vblend(is->n, n, m);
}

static inline void ray_plane_intersect(visect *is, vvec org, vvec dir, const plane *pl)
{
    float d = -(pl->p.x * pl->n.x + pl->p.y * pl->n.y + pl->p.z * pl->n.z);
    vvec n = vsplat(pl->n);
    vf v = vdot(dir, n);
    vm facing = vm_andnot(vm_all(), vf_lt(vf_abs(v), vf_set1(1.0e-17f)));
    vf t = vf_div(vf_neg(vf_add(vdot(org, n), vf_set1(d))), v);
    vm m = vm_and(facing, vm_and(vf_gt(t, vf_set1(0.0f)), vf_lt(t, is->t)));
    if (!vm_any(m))
        return;
    is->t = vf_blend(is->t, t, m);
    is->hit = vm_or(is->hit, m);
    is->p = vblend(is->p, vpoint(org, t, dir), m);
    is->n = vblend(is->n, n, m);
}

static inline void trace(visect *is, vvec org, vvec dir)
{
    is->t = vf_set1(1.0e+17f);
    is->hit = vm_none();
    for (int s = 0; s < 3; s++)
        ray_sphere_intersect(is, org, dir, &AO_SPHERES[s]);
    ray_plane_intersect(is, org, dir, &AO_PLANE);
}

/* aobench.c's rnd for each lane's generator */
static inline vf vrnd(vi *state)
{
    vi s = *state;
    s = vi_xor(s, vi_slli(s, 13));
    s = vi_xor(s, vi_srli(s, 17));
    s = vi_xor(s, vi_slli(s, 5));
    *state = s;
    return vf_mul(vf_from_vi(vi_srli(s, 8)), vf_set1(1.0f / 16777216.0f));
}

static inline vf ambient_occlusion(const visect *is, vi *rng)
{
    const vf eps = vf_set1(0.0001f), zero = vf_set1(0.0f), one = vf_set1(1.0f);
    vvec b0, b1, b2 = is->n;
    vf nx = is->n.x, ny = is->n.y, nz = is->n.z;
    /* the first of x, y, z whose |n| < 0.6 gets 1 (x when none does) */
    vm cx = vm_and(vf_lt(nx, vf_set1(0.6f)), vf_gt(nx, vf_set1(-0.6f)));
    vm cy = vm_andnot(vm_and(vf_lt(ny, vf_set1(0.6f)), vf_gt(ny, vf_set1(-0.6f))), cx);
    vm cz = vm_andnot(vm_andnot(vm_and(vf_lt(nz, vf_set1(0.6f)), vf_gt(nz, vf_set1(-0.6f))), cx), cy);
    vm cnone = vm_andnot(vm_andnot(vm_andnot(vm_all(), cx), cy), cz);
    b1.x = vf_blend(zero, one, vm_or(cx, cnone));
    b1.y = vf_blend(zero, one, cy);
    b1.z = vf_blend(zero, one, cz);
    b0 = vnormalize(vcross(b1, b2));
    b1 = vnormalize(vcross(b2, b0));
    vvec org = {vf_add(is->p.x, vf_mul(eps, nx)), vf_add(is->p.y, vf_mul(eps, ny)), vf_add(is->p.z, vf_mul(eps, nz))};
    vf occlusion = zero;
    for (int j = 0; j < NAO_SAMPLES; j++) {
        for (int i = 0; i < NAO_SAMPLES; i++) {
            vf theta = vf_sqrt(vrnd(rng));
            vf phi = vf_mul(vf_set1(AO_TWO_PI), vrnd(rng));
            vf x = vf_mul(VLIBM(cosf)(phi), theta), y = vf_mul(VLIBM(sinf)(phi), theta);
            vf z = vf_sqrt(vf_sub(one, vf_mul(theta, theta)));
            vvec dir = {vf_add(vf_add(vf_mul(x, b0.x), vf_mul(y, b1.x)), vf_mul(z, b2.x)),
                        vf_add(vf_add(vf_mul(x, b0.y), vf_mul(y, b1.y)), vf_mul(z, b2.y)),
                        vf_add(vf_add(vf_mul(x, b0.z), vf_mul(y, b1.z)), vf_mul(z, b2.z))};
            visect occ;
            trace(&occ, org, dir);
            occlusion = vf_blend(occlusion, vf_add(occlusion, one), occ.hit);
        }
    }
    return vf_div(vf_sub(vf_set1((float)(NAO_SAMPLES * NAO_SAMPLES)), occlusion),
                  vf_set1((float)(NAO_SAMPLES * NAO_SAMPLES)));
}

void anchor_aobench(int w, int h, int nsubsamples, float *image, int y, int x)
{
    vf sum = vf_set1(0.0f);
    vf xs = vf_lanes_from(x);
    vi rng = vi_or(vi_mul(vi_add(vi_set1(y * w + x), vi_iota()), vi_set1((int)2654435761u)), vi_set1(1));
    for (int u = 0; u < nsubsamples; u++) {
        for (int v = 0; v < nsubsamples; v++) {
            vf px = vf_div(vf_sub(vf_add(xs, vf_set1(u / (float)nsubsamples)), vf_set1(w / 2.0f)), vf_set1(w / 2.0f));
            float py = -(y + (v / (float)nsubsamples) - (h / 2.0f)) / (h / 2.0f);
            px = vf_mul(px, vf_set1((float)w / (float)h));
            vvec org = {vf_set1(0.0f), vf_set1(0.0f), vf_set1(0.0f)};
            vvec dir = vnormalize((vvec){px, vf_set1(py), vf_set1(-1.0f)});
            visect is;
            is.p = org;
            is.n = org;
            trace(&is, org, dir);
            if (vm_any(is.hit)) {
                vi drawn = rng;  /* (the lanes that hit move their generator on) */
                sum = vf_blend(sum, vf_add(sum, ambient_occlusion(&is, &drawn)), is.hit);
                rng = vi_blend(rng, drawn, is.hit);
            }
        }
    }
    vf_store(&image[y * w + x], vf_div(sum, vf_set1((float)(nsubsamples * nsubsamples))));
}
