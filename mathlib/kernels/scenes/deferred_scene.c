/* Writes mathlib/kernels/deferred_scene.h, the scene of mathlib/kernels/deferred.c (ours, for
   mathlib's kernel suite): a G-buffer of 32 x 32 pixels and a list of point lights, as the
   geometry pass and the tile culling of ispc's deferred shading example leave them for the
   shading pass. The G-buffer is ray cast here, in view space (x right, y up, z forward, the
   camera at the origin), from a floor, a back wall and four spheres, each with its albedo and
   specular amount and power; per pixel it holds the depth buffer's z (DX-style projection: view z
   = proj_43 / (z - proj_33)), the normal in two halfs (spheremap: enc = n.xy / sqrt(8 - 8 n.z) +
   0.5), the specular amount and power in halfs, the albedo in three bytes. The lights: 64 of
   them, placed by a fixed linear congruential sequence around the view, each with a
   colour and an attenuation that begins and ends at two distances; the tile's list holds those
   whose sphere of influence meets the bounding box of the G-buffer's surface points.

       cc -o /tmp/deferred_scene mathlib/kernels/scenes/deferred_scene.c -lm && /tmp/deferred_scene > mathlib/kernels/deferred_scene.h

   Deterministic: no libm call but sqrt (correctly rounded), halfs rounded to nearest by integer
   arithmetic, every float is printed so that it reads back as the same float. */

#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "scene_print.h"

#define GB_W 32
#define GB_H 32
#define NLIGHTS 64
#define NEAR 0.5
#define FAR 50.0

typedef struct { double c[3], r, albedo[3], spec_amount, spec_power; } sphere;
static const sphere SPHERES[4] = {
    {{-2.2, -0.6, 6.0}, 0.9, {0.85, 0.25, 0.2}, 0.9, 48.0},
    {{0.4, -0.3, 7.5}, 1.2, {0.3, 0.75, 0.35}, 0.4, 16.0},
    {{2.6, -0.8, 5.2}, 0.7, {0.25, 0.35, 0.9}, 0.7, 96.0},
    {{0.9, 1.3, 9.5}, 1.0, {0.9, 0.85, 0.6}, 0.2, 8.0},
};
static const double FLOOR_Y = -1.5, WALL_Z = 12.0;
static const double PROJ_11 = 1.3, PROJ_22 = 1.3;

static float zbuf[GB_W * GB_H];
static uint16_t nx_enc[GB_W * GB_H], ny_enc[GB_W * GB_H], spec_amount[GB_W * GB_H], spec_power[GB_W * GB_H];
static uint8_t albedo[3][GB_W * GB_H];

/* the half nearest to a normal, positive float f (2^-14 <= f < 65504) */
static uint16_t half_of(double f)
{
    if (f < 0x1p-14)
        f = 0x1p-14;
    int e = 0;
    double m = frexp(f, &e); /* f = m 2^e, m in [0.5, 1): exact */
    double scaled = ldexp(m, 11); /* 11 significant bits */
    uint32_t q = (uint32_t)floor(scaled + 0.5);
    if (q == 2048) {
        q = 1024;
        e++;
    }
    return (uint16_t)(((e - 1 + 15) << 10) | (q - 1024));
}

static uint8_t unorm8(double f)
{
    return (uint8_t)floor(f * 255.0 + 0.5);
}

static uint32_t lcg_state = 12345u;

static double lcg_unit(void)
{
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return (lcg_state >> 8) * 0x1p-24;
}

int main(void)
{
    const double proj_33 = FAR / (FAR - NEAR), proj_43 = -NEAR * FAR / (FAR - NEAR);
    double lo[3] = {1e30, 1e30, 1e30}, hi[3] = {-1e30, -1e30, -1e30};
    for (int y = 0; y < GB_H; y++)
        for (int x = 0; x < GB_W; x++) {
            int o = y * GB_W + x;
            double sx = (0.5 + x) * 2.0 / GB_W - 1.0, sy = -((0.5 + y) * 2.0 / GB_H - 1.0);
            double d[3] = {sx / PROJ_11, sy / PROJ_22, 1.0}; /* view z = t */
            double t = WALL_Z, n[3] = {0.0, 0.0, -1.0}, alb[3] = {0.7, 0.7, 0.72}, sa = 0.1, sp = 4.0;
            if (d[1] < 0.0 && FLOOR_Y / d[1] < t) {
                t = FLOOR_Y / d[1];
                n[0] = 0.0, n[1] = 1.0, n[2] = 0.0;
                int check = ((int)floor(t * d[0]) + (int)floor(t)) & 1; /* a checkerboard floor */
                alb[0] = alb[1] = alb[2] = check ? 0.8 : 0.45;
                sa = 0.3, sp = 24.0;
            }
            for (int s = 0; s < 4; s++) {
                const sphere *S = &SPHERES[s];
                double b = d[0] * S->c[0] + d[1] * S->c[1] + d[2] * S->c[2];
                double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                double cc = S->c[0] * S->c[0] + S->c[1] * S->c[1] + S->c[2] * S->c[2] - S->r * S->r;
                double disc = b * b - dd * cc;
                if (disc <= 0.0)
                    continue;
                double th = (b - sqrt(disc)) / dd;
                if (th <= 0.0 || th >= t)
                    continue;
                t = th;
                for (int a = 0; a < 3; a++) {
                    n[a] = (t * d[a] - S->c[a]) / S->r;
                    alb[a] = S->albedo[a];
                }
                sa = S->spec_amount, sp = S->spec_power;
            }
            double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            for (int a = 0; a < 3; a++) {
                n[a] /= len;
                double p = t * d[a];
                if (p < lo[a]) lo[a] = p;
                if (p > hi[a]) hi[a] = p;
            }
            zbuf[o] = (float)(proj_33 + proj_43 / t);
            double k = sqrt(8.0 - 8.0 * n[2]);
            nx_enc[o] = half_of(n[0] / k + 0.5);
            ny_enc[o] = half_of(n[1] / k + 0.5);
            spec_amount[o] = half_of(sa);
            spec_power[o] = half_of(sp);
            for (int a = 0; a < 3; a++)
                albedo[a][o] = unorm8(alb[a]);
        }

    float lpos[NLIGHTS][3], lbegin[NLIGHTS], lend[NLIGHTS], lcolor[NLIGHTS][3];
    int tile[NLIGHTS], ntile = 0;
    for (int i = 0; i < NLIGHTS; i++) {
        lpos[i][0] = (float)(-10.0 + 20.0 * lcg_unit());
        lpos[i][1] = (float)(-1.3 + 4.0 * lcg_unit());
        lpos[i][2] = (float)(1.0 + 17.0 * lcg_unit());
        lend[i] = (float)(2.0 + 3.0 * lcg_unit());
        lbegin[i] = (float)(lend[i] * (0.1 + 0.3 * lcg_unit()));
        for (int a = 0; a < 3; a++)
            lcolor[i][a] = (float)(0.15 + 0.6 * lcg_unit());
        double d2 = 0.0;
        for (int a = 0; a < 3; a++) {
            double c = lpos[i][a] < lo[a] ? lo[a] : lpos[i][a] > hi[a] ? hi[a] : lpos[i][a];
            d2 += (lpos[i][a] - c) * (lpos[i][a] - c);
        }
        if (d2 < (double)lend[i] * lend[i])
            tile[ntile++] = i;
    }

    printf("/* The scene of mathlib/kernels/deferred.c (shared with its anchor, mathlib/kernels/anchor/deferred.c),\n"
           "   written by mathlib/kernels/scenes/deferred_scene.c (do not edit): the camera's projection,\n"
           "   a G-buffer of DF_GB_W x DF_GB_H pixels (one array per attribute: the depth buffer's z; the\n"
           "   normal, spheremap-encoded, and the specular amount and power as halfs; the albedo as bytes),\n"
           "   DF_NLIGHTS point lights (view-space position, attenuation begin and end, colour) and the\n"
           "   list of the lights that reach the G-buffer's tile. */\n\n");
    printf("#define DF_GB_W %d\n#define DF_GB_H %d\n#define DF_NLIGHTS %d\n#define DF_TILE_NLIGHTS %d\n\n", GB_W, GB_H,
           NLIGHTS, ntile);
    printf("#define DF_PROJ_11 %s\n#define DF_PROJ_22 %s\n#define DF_PROJ_33 %s\n#define DF_PROJ_43 %s\n\n",
           fc((float)PROJ_11), fc((float)PROJ_22), fc((float)proj_33), fc((float)proj_43));
    printf("static const float DF_ZBUFFER[DF_GB_W * DF_GB_H] = {\n");
    for (int o = 0; o < GB_W * GB_H; o++)
        printf("%s%s,%s", o % 8 ? " " : "    ", fc(zbuf[o]), o % 8 == 7 ? "\n" : "");
    const char *hnames[4] = {"DF_NORMAL_X", "DF_NORMAL_Y", "DF_SPECULAR_AMOUNT", "DF_SPECULAR_POWER"};
    const uint16_t *hs[4] = {nx_enc, ny_enc, spec_amount, spec_power};
    for (int k = 0; k < 4; k++) {
        printf("};\nstatic const unsigned short %s[DF_GB_W * DF_GB_H] = {\n", hnames[k]);
        for (int o = 0; o < GB_W * GB_H; o++)
            printf("%s%5u,%s", o % 16 ? " " : "    ", hs[k][o], o % 16 == 15 ? "\n" : "");
    }
    const char *anames[3] = {"DF_ALBEDO_R", "DF_ALBEDO_G", "DF_ALBEDO_B"};
    for (int k = 0; k < 3; k++) {
        printf("};\nstatic const unsigned char %s[DF_GB_W * DF_GB_H] = {\n", anames[k]);
        for (int o = 0; o < GB_W * GB_H; o++)
            printf("%s%3u,%s", o % 16 ? " " : "    ", albedo[k][o], o % 16 == 15 ? "\n" : "");
    }
    printf("};\n\n");
    const char *lnames[8] = {"DF_LIGHT_X", "DF_LIGHT_Y", "DF_LIGHT_Z", "DF_LIGHT_BEGIN", "DF_LIGHT_END",
                             "DF_LIGHT_R", "DF_LIGHT_G", "DF_LIGHT_B"};
    for (int k = 0; k < 8; k++) {
        printf("static const float %s[DF_NLIGHTS] = {\n", lnames[k]);
        for (int i = 0; i < NLIGHTS; i++) {
            float v = k < 3 ? lpos[i][k] : k == 3 ? lbegin[i] : k == 4 ? lend[i] : lcolor[i][k - 5];
            printf("%s%s,%s", i % 8 ? " " : "    ", fc(v), i % 8 == 7 ? "\n" : "");
        }
        printf("};\n");
    }
    printf("static const int DF_TILE_LIGHTS[DF_TILE_NLIGHTS] = {\n");
    for (int i = 0; i < ntile; i++)
        printf("%s%d,%s", i % 16 ? " " : "    ", tile[i], i % 16 == 15 || i == ntile - 1 ? "\n" : "");
    printf("};\n");
    return 0;
}
