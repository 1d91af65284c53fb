/* black_scholes: the Black-Scholes price of one European call, after ispc's options example
   (github.com/ispc/ispc, examples/cpu/options/options_serial.cpp, black_scholes_serial,
   BSD-3-Clause, Intel): its algorithm, written again in C for mathlib's kernel suite
   (mathlib/suite.py). The cumulative normal distribution is the Abramowitz-Stegun polynomial
   (26.2.17). Straight-line code around libm calls: logf and sqrtf once, expf three times per
   option. One call per option; a gang is consecutive options (`i` linear, the arrays uniform),
   so every array access is one vector load or store. */

#include <math.h>

static float cnd(float x)
{
    float l = fabsf(x);
    float k = 1.0f / (1.0f + 0.2316419f * l);
    float k2 = k * k;
    float k3 = k2 * k;
    float k4 = k2 * k2;
    float k5 = k3 * k2;
    float w = 0.31938153f * k - 0.356563782f * k2 + 1.781477937f * k3 - 1.821255978f * k4 + 1.330274429f * k5;
    w *= 0.39894228040f * expf(-l * l * 0.5f);
    if (x > 0.0f)
        w = 1.0f - w;
    return w;
}

#pragma omp declare simd uniform(sa, xa, ta, ra, va, result) linear(i)
void black_scholes(const float *sa, const float *xa, const float *ta, const float *ra, const float *va,
                   float *result, int i)
{
    float s = sa[i], x = xa[i], t = ta[i], r = ra[i], v = va[i];
    float d1 = (logf(s / x) + (r + v * v * 0.5f) * t) / (v * sqrtf(t));
    float d2 = d1 - v * sqrtf(t);
    result[i] = s * cnd(d1) - x * expf(-r * t) * cnd(d2);
}
