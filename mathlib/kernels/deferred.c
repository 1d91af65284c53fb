/* deferred: the shading pass of deferred shading for one pixel, after ispc's deferred example
   (github.com/ispc/ispc, examples/cpu/deferred, the per-pixel body of ShadeTile in kernels.ispc
   and dynamic_c.cpp, BSD-3-Clause, Intel): its algorithm written again in C for mathlib's kernel
   suite (mathlib/suite.py). Per pixel: the view-space position from the depth buffer and the
   screen position, the normal decoded from two halfs (spheremap), the specular amount and power
   (halfs) and the albedo (bytes) from the G-buffer; then a loop over the tile's lights (point
   lights): those nearer than their attenuation's end and in front of the surface add their
   colour times the albedo times a linear falloff, the cosine and a Blinn-Phong highlight
   (powf); finally the sum is clamped to [0, 1], gamma-corrected (powf) and stored as 8-bit
   values. Our scene (deferred_scene.h, written by scenes/deferred_scene.c): a G-buffer of 32 x 32
   pixels ray cast from a floor, a wall and four spheres, 64 lights of which 56 reach the tile;
   the original reads a G-buffer and 1024 lights from a file and culls lights per tile first
   (not part of this kernel). Changes: C for C++ (normalize3's references as pointers, std::min
   and std::max as functions), a frame larger than the G-buffer repeats it, the 8-bit outputs in
   ints. One call per pixel; a gang is consecutive pixels of one row. */

#include <math.h>

#include "deferred_scene.h"

static float dot3(float x, float y, float z, float a, float b, float c)
{
    return x * a + y * b + z * c;
}

static void normalize3(float x, float y, float z, float *ox, float *oy, float *oz)
{
    float n = 1.0f / sqrtf(x * x + y * y + z * z);
    *ox = x * n;
    *oy = y * n;
    *oz = z * n;
}

/* the larger and the smaller of a and b, as std::max and std::min compare them */
static float larger(float a, float b)
{
    return a < b ? b : a;
}

static float smaller(float a, float b)
{
    return b < a ? b : a;
}

static float unorm8_to_float(unsigned char u)
{
    return (float)u * (1.0f / 255.0f);
}

/* a half's bits as a float (sign, exponent rebiased, mantissa; no zeros, subnormals or infinities) */
static float half_to_float(unsigned short h)
{
    unsigned int hs = h & 0x8000u;
    unsigned int he = h & 0x7c00u;
    unsigned int hm = h & 0x03ffu;
    unsigned int xs = hs << 16;
    int xes = (int)(he >> 10) - 15 + 127;
    unsigned int xe = (unsigned int)(xes << 23);
    unsigned int xm = hm << 13;
    union { unsigned int u; float f; } bits;
    bits.u = xs | xe | xm;
    return bits.f;
}

#pragma omp declare simd uniform(w, fb_r, fb_g, fb_b, y) linear(x)
void deferred(int w, int *fb_r, int *fb_g, int *fb_b, int y, int x)
{
    /* the frame repeats the G-buffer */
    int gx = x & (DF_GB_W - 1), gy = y & (DF_GB_H - 1);
    int g = gy * DF_GB_W + gx;
    float two_over_w = 2.0f / DF_GB_W, two_over_h = 2.0f / DF_GB_H;
    float screen_x = (0.5f + (float)gx) * two_over_w - 1.0f;
    float screen_y = -(((0.5f + gy) * two_over_h) - 1.0f);

    /* the surface's view-space position from the depth buffer, and the (negative) view vector */
    float z = DF_ZBUFFER[g];
    float pos_z = DF_PROJ_43 / (z - DF_PROJ_33);
    float pos_x = screen_x * pos_z / DF_PROJ_11;
    float pos_y = screen_y * pos_z / DF_PROJ_22;
    float vneg_x, vneg_y, vneg_z;
    normalize3(pos_x, pos_y, pos_z, &vneg_x, &vneg_y, &vneg_z);

    /* the normal, spheremap-decoded */
    float enc_x = half_to_float(DF_NORMAL_X[g]);
    float enc_y = half_to_float(DF_NORMAL_Y[g]);
    float f = (enc_x - enc_x * enc_x) + (enc_y - enc_y * enc_y);
    float m = sqrtf(4.0f * f - 1.0f);
    float n_x = m * (4.0f * enc_x - 2.0f);
    float n_y = m * (4.0f * enc_y - 2.0f);
    float n_z = 3.0f - 8.0f * f;

    float spec_amount = half_to_float(DF_SPECULAR_AMOUNT[g]);
    float spec_power = half_to_float(DF_SPECULAR_POWER[g]);
    float albedo_r = unorm8_to_float(DF_ALBEDO_R[g]);
    float albedo_g = unorm8_to_float(DF_ALBEDO_G[g]);
    float albedo_b = unorm8_to_float(DF_ALBEDO_B[g]);

    float lit_r = 0.0f, lit_g = 0.0f, lit_b = 0.0f;
    for (int t = 0; t < DF_TILE_NLIGHTS; t++) {
        int li = DF_TILE_LIGHTS[t];
        float l_end = DF_LIGHT_END[li];
        float l_x = DF_LIGHT_X[li] - pos_x;
        float l_y = DF_LIGHT_Y[li] - pos_y;
        float l_z = DF_LIGHT_Z[li] - pos_z;
        float dist2 = dot3(l_x, l_y, l_z, l_x, l_y, l_z);
        if (dist2 < l_end * l_end) {
            float dist = sqrtf(dist2);
            float rcp = 1.0f / dist;
            l_x *= rcp;
            l_y *= rcp;
            l_z *= rcp;
            float n_dot_l = dot3(n_x, n_y, n_z, l_x, l_y, l_z);
            if (n_dot_l > 0.0f) {
                /* linear falloff from the attenuation's begin to its end */
                float range = l_end - DF_LIGHT_BEGIN[li];
                float falloff = l_end - dist;
                float atten = smaller(falloff / range, 1.0f);
                float h_x = l_x - vneg_x;
                float h_y = l_y - vneg_y;
                float h_z = l_z - vneg_z;
                normalize3(h_x, h_y, h_z, &h_x, &h_y, &h_z);
                float n_dot_h = larger(dot3(n_x, n_y, n_z, h_x, h_y, h_z), 0.0f);
                float spec = powf(n_dot_h, spec_power);
                float spec_norm = (spec_power + 2.0f) * (1.0f / 8.0f);
                float k = atten * n_dot_l * (1.0f + spec_amount * spec_norm * spec);
                lit_r += albedo_r * DF_LIGHT_R[li] * k;
                lit_g += albedo_g * DF_LIGHT_G[li] * k;
                lit_b += albedo_b * DF_LIGHT_B[li] * k;
            }
        }
    }

    const float gamma = 1.0f / 2.2f;
    lit_r = powf(smaller(larger(lit_r, 0.0f), 1.0f), gamma);
    lit_g = powf(smaller(larger(lit_g, 0.0f), 1.0f), gamma);
    lit_b = powf(smaller(larger(lit_b, 0.0f), 1.0f), gamma);
    fb_r[y * w + x] = (unsigned char)(lit_r * 255.0f);
    fb_g[y * w + x] = (unsigned char)(lit_g * 255.0f);
    fb_b[y * w + x] = (unsigned char)(lit_b * 255.0f);
}
