/* The anchor of mathlib/kernels/deferred.c: one gang of pixels (VL consecutive pixels of row y from
   x on) by hand, with the instructions of simd.h, as ispc compiles the shading loop of its deferred
   example: the G-buffer reads are vector loads (ispc's are: its index is linear in the pixel; here
   when the gang does not wrap around the G-buffer's row, else gathers), the halfs and bytes widened
   in registers; the light loop is a scalar loop over the tile's list whose light data are scalars,
   each `if` a mask that skips the rest of the light when no lane is on, the sums blended; powf is
   mathlib's vector powf. */

#include <math.h>

#include "simd.h"
#include "vvec.h"

#include "../deferred_scene.h"

static inline vf dot3(vf x, vf y, vf z, vf a, vf b, vf c)
{
    return vf_add(vf_add(vf_mul(x, a), vf_mul(y, b)), vf_mul(z, c));
}

static inline vf half_to_float(vi h)
{
    vi xs = vi_slli(vi_and(h, vi_set1(0x8000)), 16);
    vi xes = vi_add(vi_srli(vi_and(h, vi_set1(0x7c00)), 10), vi_set1(127 - 15));
    vi xm = vi_slli(vi_and(h, vi_set1(0x03ff)), 13);
    return vf_from_bits(vi_or(vi_or(xs, vi_slli(xes, 23)), xm));
}

static inline vf unorm8_to_float(vi u)
{
    return vf_mul(vf_from_vi(u), vf_set1(1.0f / 255.0f));
}

/* VL elements of a G-buffer array from g0 on, or at g one lane at a time (the gang wraps around the row) */
#define GB_LOAD(kind, table, g0, g, contiguous) ((contiguous) ? vi_load_##kind(&(table)[g0]) : gb_lanes((table), (g)))
#define gb_lanes(table, g)                                                                                  \
    ({                                                                                                     \
        int ix_[VL], out_[VL];                                                                             \
        vi_store(ix_, (g));                                                                                \
        for (int l_ = 0; l_ < VL; l_++)                                                                    \
            out_[l_] = (table)[ix_[l_]];                                                                   \
        vi_load(out_);                                                                                     \
    })

void anchor_deferred(int w, int *fb_r, int *fb_g, int *fb_b, int y, int x)
{
    int gy = y & (DF_GB_H - 1), gx0 = x & (DF_GB_W - 1);
    int contiguous = gx0 + VL <= DF_GB_W;
    vi gx = vi_and(vi_add(vi_set1(x), vi_iota()), vi_set1(DF_GB_W - 1));
    int g0 = gy * DF_GB_W + gx0;
    vi g = vi_add(vi_set1(gy * DF_GB_W), gx);
    float two_over_w = 2.0f / DF_GB_W, two_over_h = 2.0f / DF_GB_H;
    vf screen_x = vf_sub(vf_mul(vf_add(vf_set1(0.5f), vf_from_vi(gx)), vf_set1(two_over_w)), vf_set1(1.0f));
    float screen_y = -(((0.5f + gy) * two_over_h) - 1.0f);

    vf z = contiguous ? vf_load(&DF_ZBUFFER[g0]) : vf_gather(DF_ZBUFFER, g);
    vf pos_z = vf_div(vf_set1(DF_PROJ_43), vf_sub(z, vf_set1(DF_PROJ_33)));
    vf pos_x = vf_div(vf_mul(screen_x, pos_z), vf_set1(DF_PROJ_11));
    vf pos_y = vf_div(vf_mul(vf_set1(screen_y), pos_z), vf_set1(DF_PROJ_22));
    vf inv = vf_div(vf_set1(1.0f), vf_sqrt(dot3(pos_x, pos_y, pos_z, pos_x, pos_y, pos_z)));
    vf vneg_x = vf_mul(pos_x, inv), vneg_y = vf_mul(pos_y, inv), vneg_z = vf_mul(pos_z, inv);

    vf enc_x = half_to_float(GB_LOAD(u16, DF_NORMAL_X, g0, g, contiguous));
    vf enc_y = half_to_float(GB_LOAD(u16, DF_NORMAL_Y, g0, g, contiguous));
    vf f = vf_add(vf_sub(enc_x, vf_mul(enc_x, enc_x)), vf_sub(enc_y, vf_mul(enc_y, enc_y)));
    vf m = vf_sqrt(vf_sub(vf_mul(vf_set1(4.0f), f), vf_set1(1.0f)));
    vf n_x = vf_mul(m, vf_sub(vf_mul(vf_set1(4.0f), enc_x), vf_set1(2.0f)));
    vf n_y = vf_mul(m, vf_sub(vf_mul(vf_set1(4.0f), enc_y), vf_set1(2.0f)));
    vf n_z = vf_sub(vf_set1(3.0f), vf_mul(vf_set1(8.0f), f));

    vf spec_amount = half_to_float(GB_LOAD(u16, DF_SPECULAR_AMOUNT, g0, g, contiguous));
    vf spec_power = half_to_float(GB_LOAD(u16, DF_SPECULAR_POWER, g0, g, contiguous));
    vf albedo_r = unorm8_to_float(GB_LOAD(u8, DF_ALBEDO_R, g0, g, contiguous));
    vf albedo_g = unorm8_to_float(GB_LOAD(u8, DF_ALBEDO_G, g0, g, contiguous));
    vf albedo_b = unorm8_to_float(GB_LOAD(u8, DF_ALBEDO_B, g0, g, contiguous));
    /* (spec_power + 2) / 8 does not depend on the light */
    vf spec_norm = vf_mul(vf_add(spec_power, vf_set1(2.0f)), vf_set1(1.0f / 8.0f));

    const vf zero = vf_set1(0.0f), one = vf_set1(1.0f);
    vf lit_r = zero, lit_g = zero, lit_b = zero;
    for (int t = 0; t < DF_TILE_NLIGHTS; t++) {
        int li = DF_TILE_LIGHTS[t];
        float l_end = DF_LIGHT_END[li];
        vf l_x = vf_sub(vf_set1(DF_LIGHT_X[li]), pos_x);
        vf l_y = vf_sub(vf_set1(DF_LIGHT_Y[li]), pos_y);
        vf l_z = vf_sub(vf_set1(DF_LIGHT_Z[li]), pos_z);
        vf dist2 = dot3(l_x, l_y, l_z, l_x, l_y, l_z);
        vm near = vf_lt(dist2, vf_set1(l_end * l_end));
        if (!vm_any(near))
            continue;
        vf dist = vf_sqrt(dist2);
        vf rcp = vf_div(one, dist);
        l_x = vf_mul(l_x, rcp);
        l_y = vf_mul(l_y, rcp);
        l_z = vf_mul(l_z, rcp);
        vf n_dot_l = dot3(n_x, n_y, n_z, l_x, l_y, l_z);
        vm lit = vm_and(near, vf_gt(n_dot_l, zero));
        if (!vm_any(lit))
            continue;
        float range = l_end - DF_LIGHT_BEGIN[li];
        vf atten = smaller(vf_div(vf_sub(vf_set1(l_end), dist), vf_set1(range)), one);
        vf h_x = vf_sub(l_x, vneg_x), h_y = vf_sub(l_y, vneg_y), h_z = vf_sub(l_z, vneg_z);
        vf h_inv = vf_div(one, vf_sqrt(dot3(h_x, h_y, h_z, h_x, h_y, h_z)));
        h_x = vf_mul(h_x, h_inv);
        h_y = vf_mul(h_y, h_inv);
        h_z = vf_mul(h_z, h_inv);
        vf n_dot_h = larger(dot3(n_x, n_y, n_z, h_x, h_y, h_z), zero);
        vf spec = VLIBM(powf)(n_dot_h, spec_power);
        vf k = vf_mul(vf_mul(atten, n_dot_l), vf_add(one, vf_mul(vf_mul(spec_amount, spec_norm), spec)));
        lit_r = vf_blend(lit_r, vf_add(lit_r, vf_mul(vf_mul(albedo_r, vf_set1(DF_LIGHT_R[li])), k)), lit);
        lit_g = vf_blend(lit_g, vf_add(lit_g, vf_mul(vf_mul(albedo_g, vf_set1(DF_LIGHT_G[li])), k)), lit);
        lit_b = vf_blend(lit_b, vf_add(lit_b, vf_mul(vf_mul(albedo_b, vf_set1(DF_LIGHT_B[li])), k)), lit);
    }

    const vf gamma = vf_set1(1.0f / 2.2f), scale = vf_set1(255.0f);
    lit_r = VLIBM(powf)(smaller(larger(lit_r, zero), one), gamma);
    lit_g = VLIBM(powf)(smaller(larger(lit_g, zero), one), gamma);
    lit_b = VLIBM(powf)(smaller(larger(lit_b, zero), one), gamma);
    vi_store(&fb_r[y * w + x], vi_from_vf(vf_mul(lit_r, scale)));
    vi_store(&fb_g[y * w + x], vi_from_vf(vf_mul(lit_g, scale)));
    vi_store(&fb_b[y * w + x], vi_from_vf(vf_mul(lit_b, scale)));
}
