/* The anchor of mathlib/kernels/stencil.c: one gang of points (VL consecutive points of row (z, y)
   from x on) by hand, with the instructions of simd.h, as ispc compiles its stencil example:
   26 unaligned vector loads, the coefficients broadcast, one vector store, no masks. */

#include "simd.h"

/* a[c + d] + a[c - d] + a[c + d * nx] + a[c - d * nx] + a[c + d * nxy] + a[c - d * nxy], added left to right */
static inline vf ring(const float *a, int c, int d, int nx, int nxy)
{
    vf r = vf_add(vf_load(&a[c + d]), vf_load(&a[c - d]));
    r = vf_add(r, vf_load(&a[c + d * nx]));
    r = vf_add(r, vf_load(&a[c - d * nx]));
    r = vf_add(r, vf_load(&a[c + d * nxy]));
    return vf_add(r, vf_load(&a[c - d * nxy]));
}

void anchor_stencil(int nx, int ny, const float *coef, const float *vsq, const float *a_in, float *a_out, int z,
                    int y, int x)
{
    int nxy = nx * ny;
    int c = z * nxy + y * nx + x;
    vf div = vf_mul(vf_set1(coef[0]), vf_load(&a_in[c]));
    for (int k = 1; k <= 3; k++)
        div = vf_add(div, vf_mul(vf_set1(coef[k]), ring(a_in, c, k, nx, nxy)));
    vf next = vf_sub(vf_mul(vf_set1(2.0f), vf_load(&a_in[c])), vf_load(&a_out[c]));
    vf_store(&a_out[c], vf_add(next, vf_mul(vf_load(&vsq[c]), div)));
}
