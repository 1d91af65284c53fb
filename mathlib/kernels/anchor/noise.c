/* The anchor of mathlib/kernels/noise.c: one gang of pixels (VL consecutive pixels of row j from
   i on) by hand, with the instructions of simd.h, as ispc compiles its noise example: the octave
   loop is a scalar loop (uniform trip count, lambda and o scalars), every read of the permutation
   and gradient tables with per-lane indices is one gather (SSE4.1: lane loads), no masks, and
   everything inlined into the one function. */

#include "simd.h"

#include "../noise_tables.h"

static inline __attribute__((always_inline)) vf fade(vf t)
{
    vf t3 = vf_mul(vf_mul(t, t), t);
    vf t4 = vf_mul(t3, t);
    return vf_add(vf_sub(vf_mul(vf_mul(vf_set1(6.0f), t4), t), vf_mul(vf_set1(15.0f), t4)),
                  vf_mul(vf_set1(10.0f), t3));
}

static inline __attribute__((always_inline)) vf lerp(vf t, vf a, vf b)
{
    return vf_add(vf_mul(vf_sub(vf_set1(1.0f), t), a), vf_mul(t, b));
}

/* the gradient of hash h (0..255) dotted with (dx, dy, dz): three gathers from NOISE_GRAD */
static inline __attribute__((always_inline)) vf grad(vi h, vf dx, vf dy, vf dz)
{
    vi h3 = vi_and(h, vi_set1(15));
    const float *g = &NOISE_GRAD[0][0];
    h3 = vi_add(vi_add(h3, h3), h3);
    vf gx = vf_gather(g, h3), gy = vf_gather(g + 1, h3), gz = vf_gather(g + 2, h3);
    return vf_add(vf_add(vf_mul(gx, dx), vf_mul(gy, dy)), vf_mul(gz, dz));
}

static inline __attribute__((always_inline)) vi perm(vi x)
{
    return vi_gather(NOISE_PERM, x);
}

/* The 8 corners share their first hashes (PERM[ix], PERM[ix + 1], then 4, then 8): 14 gathers of
   the permutation per call, as the scalar code's loads come out once GCC has inlined its grad
   calls (and as LLVM's CSE leaves ispc's gathers); 24 of the gradient table. */
static inline __attribute__((always_inline)) vf perlin(vf x, vf y, vf z)
{
    vi ix = vi_from_vf(vf_floor(x)), iy = vi_from_vf(vf_floor(y)), iz = vi_from_vf(vf_floor(z));
    vf dx = vf_sub(x, vf_from_vi(ix)), dy = vf_sub(y, vf_from_vi(iy)), dz = vf_sub(z, vf_from_vi(iz));
    vf dx1 = vf_sub(dx, vf_set1(1.0f)), dy1 = vf_sub(dy, vf_set1(1.0f)), dz1 = vf_sub(dz, vf_set1(1.0f));
    vi mask = vi_set1(NOISE_PERM_SIZE - 1), one = vi_set1(1);
    ix = vi_and(ix, mask);
    iy = vi_and(iy, mask);
    iz = vi_and(iz, mask);
    vi iy1 = vi_add(iy, one), iz1 = vi_add(iz, one);
    vi a = perm(ix), b = perm(vi_add(ix, one));
    vi aa = perm(vi_add(a, iy)), ab = perm(vi_add(a, iy1)), ba = perm(vi_add(b, iy)), bb = perm(vi_add(b, iy1));
    vf w000 = grad(perm(vi_add(aa, iz)), dx, dy, dz);
    vf w100 = grad(perm(vi_add(ba, iz)), dx1, dy, dz);
    vf w010 = grad(perm(vi_add(ab, iz)), dx, dy1, dz);
    vf w110 = grad(perm(vi_add(bb, iz)), dx1, dy1, dz);
    vf w001 = grad(perm(vi_add(aa, iz1)), dx, dy, dz1);
    vf w101 = grad(perm(vi_add(ba, iz1)), dx1, dy, dz1);
    vf w011 = grad(perm(vi_add(ab, iz1)), dx, dy1, dz1);
    vf w111 = grad(perm(vi_add(bb, iz1)), dx1, dy1, dz1);
    vf wx = fade(dx), wy = fade(dy), wz = fade(dz);
    vf x00 = lerp(wx, w000, w100), x10 = lerp(wx, w010, w110);
    vf x01 = lerp(wx, w001, w101), x11 = lerp(wx, w011, w111);
    return lerp(wz, lerp(wy, x00, x10), lerp(wy, x01, x11));
}

void anchor_noise(float x0, float y0, float dx, float dy, int width, float *output, int j, int i)
{
    vf x = vf_add(vf_set1(x0), vf_mul(vf_lanes_from(i), vf_set1(dx)));
    vf y = vf_set1(y0 + j * dy), z = vf_set1(0.6f);
    vf sum = vf_set1(0.0f);
    float lambda = 1.0f, o = 1.0f;
    for (int k = 0; k < 8; ++k) {
        vf l = vf_set1(lambda);
        sum = vf_add(sum, vf_abs(vf_mul(vf_set1(o), perlin(vf_mul(l, x), vf_mul(l, y), vf_mul(l, z)))));
        lambda *= 1.99f;
        o *= 0.6f;
    }
    vf_store(&output[j * width + i], vf_mul(sum, vf_set1(0.5f)));
}
