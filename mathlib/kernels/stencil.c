/* stencil: one point of an 8th-order (25-point) 3D wave-equation step, after ispc's stencil
   example (github.com/ispc/ispc, examples/cpu/stencil/stencil_serial.cpp, stencil_step,
   BSD-3-Clause, Intel): its algorithm, written again in C for mathlib's kernel suite
   (mathlib/suite.py). Reads 25 neighbours of `a_in` (offsets +-1, +-2, +-3 along x, y and z) and
   the point of `a_out` it then overwrites: a_out = 2 a_in - a_out + vsq * (weighted sum). One call
   per point; a gang is consecutive points of one x row (`x` linear, `z`, `y` and the grids
   uniform), so every access is one (unaligned) vector load or store. */

#pragma omp declare simd uniform(nx, ny, coef, vsq, a_in, a_out, z, y) linear(x)
void stencil(int nx, int ny, const float *coef, const float *vsq, const float *a_in, float *a_out, int z, int y,
             int x)
{
    int nxy = nx * ny;
    int c = z * nxy + y * nx + x;
    float div = coef[0] * a_in[c]
                + coef[1] * (a_in[c + 1] + a_in[c - 1] + a_in[c + nx] + a_in[c - nx] + a_in[c + nxy] + a_in[c - nxy])
                + coef[2] * (a_in[c + 2] + a_in[c - 2] + a_in[c + 2 * nx] + a_in[c - 2 * nx] + a_in[c + 2 * nxy]
                             + a_in[c - 2 * nxy])
                + coef[3] * (a_in[c + 3] + a_in[c - 3] + a_in[c + 3 * nx] + a_in[c - 3 * nx] + a_in[c + 3 * nxy]
                             + a_in[c - 3 * nxy]);
    a_out[c] = 2.0f * a_in[c] - a_out[c] + vsq[c] * div;
}
