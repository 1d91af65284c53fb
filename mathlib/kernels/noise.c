/* noise: Perlin-noise turbulence of one pixel, after ispc's noise example (github.com/ispc/ispc,
   examples/cpu/noise/noise_serial.cpp, BSD-3-Clause, Intel): its algorithm (8 octaves of
   improved Perlin noise, trilinear blend of 8 corner gradients with the quintic fade),
   written again in C for mathlib's kernel suite (mathlib/suite.py). Two changes: the gradient
   is read from a table (NOISE_GRAD, indexed by the hash) where ispc's example selects +-dx,
   +-dy, +-dz from the hash's bits, and the permutation is ours (noise_tables.h). Every corner
   reads the permutation table three times and the gradient table three times with indices
   that differ per lane: 48 table reads per octave, where AVX2 and AVX-512 have gathers.
   The octave loop has a uniform trip count and calls an inlined helper. One call per pixel;
   a gang is consecutive pixels of one row. */

#include <math.h>

#include "noise_tables.h"

static float fade(float t)
{
    float t3 = t * t * t;
    float t4 = t3 * t;
    return 6.0f * t4 * t - 15.0f * t4 + 10.0f * t3;
}

static float lerp(float t, float a, float b)
{
    return (1.0f - t) * a + t * b;
}

static float grad(int x, int y, int z, float dx, float dy, float dz)
{
    int h = NOISE_PERM[NOISE_PERM[NOISE_PERM[x] + y] + z] & 15;
    return NOISE_GRAD[h][0] * dx + NOISE_GRAD[h][1] * dy + NOISE_GRAD[h][2] * dz;
}

static float perlin(float x, float y, float z)
{
    int ix = (int)floorf(x), iy = (int)floorf(y), iz = (int)floorf(z);
    float dx = x - ix, dy = y - iy, dz = z - iz;
    ix &= NOISE_PERM_SIZE - 1;
    iy &= NOISE_PERM_SIZE - 1;
    iz &= NOISE_PERM_SIZE - 1;
    float w000 = grad(ix, iy, iz, dx, dy, dz);
    float w100 = grad(ix + 1, iy, iz, dx - 1, dy, dz);
    float w010 = grad(ix, iy + 1, iz, dx, dy - 1, dz);
    float w110 = grad(ix + 1, iy + 1, iz, dx - 1, dy - 1, dz);
    float w001 = grad(ix, iy, iz + 1, dx, dy, dz - 1);
    float w101 = grad(ix + 1, iy, iz + 1, dx - 1, dy, dz - 1);
    float w011 = grad(ix, iy + 1, iz + 1, dx, dy - 1, dz - 1);
    float w111 = grad(ix + 1, iy + 1, iz + 1, dx - 1, dy - 1, dz - 1);
    float wx = fade(dx), wy = fade(dy), wz = fade(dz);
    float x00 = lerp(wx, w000, w100);
    float x10 = lerp(wx, w010, w110);
    float x01 = lerp(wx, w001, w101);
    float x11 = lerp(wx, w011, w111);
    float y0 = lerp(wy, x00, x10);
    float y1 = lerp(wy, x01, x11);
    return lerp(wz, y0, y1);
}

static float turbulence(float x, float y, float z, int octaves)
{
    float sum = 0.0f, lambda = 1.0f, o = 1.0f;
    for (int k = 0; k < octaves; ++k) {
        sum += fabsf(o * perlin(lambda * x, lambda * y, lambda * z));
        lambda *= 1.99f;
        o *= 0.6f;
    }
    return sum * 0.5f;
}

#pragma omp declare simd uniform(x0, y0, dx, dy, width, output, j) linear(i)
void noise(float x0, float y0, float dx, float dy, int width, float *output, int j, int i)
{
    float x = x0 + i * dx;
    float y = y0 + j * dy;
    output[j * width + i] = turbulence(x, y, 0.6f, 8);
}
