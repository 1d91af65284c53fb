/* Writes mathlib/kernels/volume_scene.h, the scene of mathlib/kernels/volume.c (ours, for mathlib's
   kernel suite): a box of participating medium, [-1, 1] x [0, 2] x [-1, 1], whose density is a grid
   of 16^3 voxels (a faint haze with a little grain, and three dense blobs), a point light inside
   the box, and a camera inside it too, so that every ray, on the raster or off it (--verify's
   pixels), marches through the medium.

       cc -o /tmp/volume_scene mathlib/kernels/scenes/volume_scene.c -lm && /tmp/volume_scene > mathlib/kernels/volume_scene.h

   Deterministic: no libm call but sqrt (correctly rounded), densities are multiples of 1/256 (the
   grain from an integer hash), every float is printed so that it reads back as the same float. */

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "scene_print.h"

#define N 16
#define BASE_W 256
#define BASE_H 256

/* a blob: centre (in the unit cube of the grid), radius, peak density */
static const double BLOBS[3][5] = {
    {0.30, 0.35, 0.55, 0.26, 0.8},
    {0.70, 0.45, 0.45, 0.30, 0.6},
    {0.50, 0.75, 0.70, 0.22, 1.0},
};

static uint32_t hash3(int i, int j, int k)
{
    uint32_t h = (uint32_t)(i * 73856093) ^ (uint32_t)(j * 19349663) ^ (uint32_t)(k * 83492791);
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    return h;
}

static void normalize(double v[3])
{
    double n = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int i = 0; i < 3; i++)
        v[i] /= n;
}

int main(void)
{
    /* the camera: at (0.15, 0.9, -0.9), looking at (0, 1.1, 0.6); up is +y */
    double pos[3] = {0.15, 0.9, -0.9}, fwd[3] = {0.0 - 0.15, 1.1 - 0.9, 0.6 + 0.9};
    normalize(fwd);
    double right[3] = {fwd[2], 0.0, -fwd[0]}; /* (0, 1, 0) x fwd */
    normalize(right);
    double up[3] = {fwd[1] * right[2] - fwd[2] * right[1], fwd[2] * right[0] - fwd[0] * right[2],
                    fwd[0] * right[1] - fwd[1] * right[0]}; /* fwd x right */
    double r2c[4][4], c2w[4][4];
    camera_matrices(BASE_W, BASE_H, 0.8, right, up, fwd, pos, r2c, c2w);

    printf("/* The scene of mathlib/kernels/volume.c (shared with its anchor, mathlib/kernels/anchor/volume.c),\n"
           "   written by mathlib/kernels/scenes/volume_scene.c (do not edit): the box of medium\n"
           "   (VOL_BOX: its lower and upper corners), its density on a grid of VOL_N^3 voxels (x fastest),\n"
           "   the light's position, and the camera, inside the box: raster (VOL_BASE_W x VOL_BASE_H) to\n"
           "   camera space and camera to world space. */\n\n");
    printf("#define VOL_N %d\n#define VOL_BASE_W %d\n#define VOL_BASE_H %d\n\n", N, BASE_W, BASE_H);
    printf("static const float VOL_BOX[2][3] = {{-1.0f, 0.0f, -1.0f}, {1.0f, 2.0f, 1.0f}};\n");
    printf("static const float VOL_LIGHT[3] = {0.7f, 1.8f, 0.5f};\n\n");
    print_matrix("VOL_RASTER_TO_CAMERA", r2c);
    print_matrix("VOL_CAMERA_TO_WORLD", c2w);
    printf("\nstatic const float VOL_DENSITY[VOL_N * VOL_N * VOL_N] = {\n");
    for (int k = 0; k < N; k++)
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++) {
                double u[3] = {(i + 0.5) / N, (j + 0.5) / N, (k + 0.5) / N};
                double d = 0.01 + 0.02 * (hash3(i, j, k) >> 24) / 256.0;
                for (int b = 0; b < 3; b++) {
                    double r2 = 0.0;
                    for (int a = 0; a < 3; a++)
                        r2 += (u[a] - BLOBS[b][a]) * (u[a] - BLOBS[b][a]);
                    double f = 1.0 - r2 / (BLOBS[b][3] * BLOBS[b][3]);
                    if (f > 0.0)
                        d += BLOBS[b][4] * f * f;
                }
                printf("%s%s,%s", i % 8 ? " " : "    ", fc((float)(floor(d * 256.0 + 0.5) / 256.0)),
                       i % 8 == 7 ? "\n" : "");
            }
    printf("};\n");
    return 0;
}
