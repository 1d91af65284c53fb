/* binomial: the price of one American put on a 64-step binomial tree, after ispc's options
   example (github.com/ispc/ispc, examples/cpu/options/options_serial.cpp, binomial_put_serial,
   BSD-3-Clause, Intel; BINOMIAL_NUM 64 as in its options_defs.h): its algorithm, written again
   in C for mathlib's kernel suite (mathlib/suite.py). Each option fills a local array of 64
   nodes whose contents differ per lane (powf per node), then folds it back to the root
   (2,016 updates in two nested loops with uniform bounds). One call per option; a gang is
   consecutive options. */

#include <math.h>

#define BINOMIAL_NUM 64

#pragma omp declare simd uniform(sa, xa, ta, ra, va, result) linear(i)
void binomial(const float *sa, const float *xa, const float *ta, const float *ra, const float *va,
              float *result, int i)
{
    float nodes[BINOMIAL_NUM];
    float s = sa[i], x = xa[i], t = ta[i], r = ra[i], v = va[i];
    float dt = t / BINOMIAL_NUM;
    float u = expf(v * sqrtf(dt));
    float d = 1.0f / u;
    float disc = expf(r * dt);
    float pu = (disc - d) / (u - d);
    for (int j = 0; j < BINOMIAL_NUM; ++j) {
        float upow = powf(u, (float)(2 * j - BINOMIAL_NUM));
        float put = x - s * upow;
        nodes[j] = put > 0.0f ? put : 0.0f;
    }
    for (int j = BINOMIAL_NUM - 1; j >= 0; --j)
        for (int k = 0; k < j; ++k)
            nodes[k] = ((1.0f - pu) * nodes[k] + pu * nodes[k + 1]) / disc;
    result[i] = nodes[0];
}
