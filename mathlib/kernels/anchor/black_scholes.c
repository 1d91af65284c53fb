/* The anchor of mathlib/kernels/black_scholes.c: one gang of options (VL consecutive options from
   i on) by hand, with the instructions of simd.h, as ispc compiles its options example: straight
   vector code, the `if (x > 0)` of the cumulative normal a blend, and expf/logf calls of mathlib's
   vector libm (the functions expand's output calls), sqrtf the instruction. */

#include "simd.h"

static inline vf cnd(vf x)
{
    vf l = vf_abs(x);
    vf k = vf_div(vf_set1(1.0f), vf_add(vf_set1(1.0f), vf_mul(vf_set1(0.2316419f), l)));
    vf k2 = vf_mul(k, k);
    vf k3 = vf_mul(k2, k);
    vf k4 = vf_mul(k2, k2);
    vf k5 = vf_mul(k3, k2);
    vf w = vf_mul(vf_set1(0.31938153f), k);
    w = vf_sub(w, vf_mul(vf_set1(0.356563782f), k2));
    w = vf_add(w, vf_mul(vf_set1(1.781477937f), k3));
    w = vf_sub(w, vf_mul(vf_set1(1.821255978f), k4));
    w = vf_add(w, vf_mul(vf_set1(1.330274429f), k5));
    w = vf_mul(w, vf_mul(vf_set1(0.39894228040f), VLIBM(expf)(vf_mul(vf_mul(vf_neg(l), l), vf_set1(0.5f)))));
    return vf_blend(w, vf_sub(vf_set1(1.0f), w), vf_gt(x, vf_set1(0.0f)));
}

void anchor_black_scholes(const float *sa, const float *xa, const float *ta, const float *ra, const float *va,
                          float *result, int i)
{
    vf s = vf_load(&sa[i]), x = vf_load(&xa[i]), t = vf_load(&ta[i]), r = vf_load(&ra[i]), v = vf_load(&va[i]);
    vf sqrt_t = vf_sqrt(t);
    vf d1 = vf_div(vf_add(VLIBM(logf)(vf_div(s, x)), vf_mul(vf_add(r, vf_mul(vf_mul(v, v), vf_set1(0.5f))), t)),
                   vf_mul(v, sqrt_t));
    vf d2 = vf_sub(d1, vf_mul(v, sqrt_t));
    vf disc = VLIBM(expf)(vf_mul(vf_neg(r), t));
    vf_store(&result[i], vf_sub(vf_mul(s, cnd(d1)), vf_mul(vf_mul(x, disc), cnd(d2))));
}
