/* The anchor of mathlib/kernels/binomial.c: one gang of options (VL consecutive options from i on)
   by hand, with the instructions of simd.h, as ispc compiles the binomial put of its options
   example: the 64 nodes are an array of vectors on the stack (one register-wide slot per node),
   both loops scalar counters (uniform bounds), the max a blend, expf/powf calls of mathlib's
   vector libm (the functions expand's output calls). */

#include "simd.h"

#define BINOMIAL_NUM 64

void anchor_binomial(const float *sa, const float *xa, const float *ta, const float *ra, const float *va,
                     float *result, int i)
{
    vf nodes[BINOMIAL_NUM];
    vf s = vf_load(&sa[i]), x = vf_load(&xa[i]), t = vf_load(&ta[i]), r = vf_load(&ra[i]), v = vf_load(&va[i]);
    vf dt = vf_div(t, vf_set1((float)BINOMIAL_NUM));
    vf u = VLIBM(expf)(vf_mul(v, vf_sqrt(dt)));
    vf d = vf_div(vf_set1(1.0f), u);
    vf disc = VLIBM(expf)(vf_mul(r, dt));
    vf pu = vf_div(vf_sub(disc, d), vf_sub(u, d));
    vf qu = vf_sub(vf_set1(1.0f), pu);
    vf zero = vf_set1(0.0f);
    for (int j = 0; j < BINOMIAL_NUM; ++j) {
        vf upow = VLIBM(powf)(u, vf_set1((float)(2 * j - BINOMIAL_NUM)));
        vf put = vf_sub(x, vf_mul(s, upow));
        nodes[j] = vf_blend(zero, put, vf_gt(put, zero));
    }
    for (int j = BINOMIAL_NUM - 1; j >= 0; --j)
        for (int k = 0; k < j; ++k)
            nodes[k] = vf_div(vf_add(vf_mul(qu, nodes[k]), vf_mul(pu, nodes[k + 1])), disc);
    vf_store(&result[i], nodes[0]);
}
