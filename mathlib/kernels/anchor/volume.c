/* The anchor of mathlib/kernels/volume.c: one gang of pixels (VL consecutive pixels of row y from
   x on) by hand, with the instructions of simd.h, as ispc compiles its volume_rendering example:
   the camera matrices, the box and the light are scalars; each march (the ray's, and the one
   towards the light inside it) is a loop that runs while any lane is still marching, with a mask
   of the lanes that are (ispc's varying `while`), the sums blended under it and the positions
   stepped in every lane; the 8 voxel reads of a density are gathers (SSE4.1: lane loads) at
   clamped indices; expf and powf are mathlib's vector functions. */

#include <math.h>

#include "simd.h"
#include "vvec.h"

#include "../volume_scene.h"

static inline vf lerp(vf t, vf a, vf b)
{
    return vf_add(vf_mul(vf_sub(vf_set1(1.0f), t), a), vf_mul(t, b));
}

/* one slab: narrows [t0, t1] to where lo <= org + t dir <= hi on this axis */
static inline void slab(vf lo, vf hi, vf org, vf dir, vf *t0, vf *t1)
{
    vf near = vf_div(vf_sub(lo, org), dir), far = vf_div(vf_sub(hi, org), dir);
    vm swap = vf_gt(near, far);
    vf n = vf_blend(near, far, swap), f = vf_blend(far, near, swap);
    *t0 = larger(n, *t0);
    *t1 = smaller(f, *t1);
}

/* the lanes whose ray meets the box, and where it enters and leaves it */
static inline vm box_span(vvec org, vvec dir, float t_in_bound, vf *t_in, vf *t_out)
{
    vf t0 = vf_set1(t_in_bound), t1 = vf_set1(1e30f);
    slab(vf_set1(VOL_BOX[0][0]), vf_set1(VOL_BOX[1][0]), org.x, dir.x, &t0, &t1);
    slab(vf_set1(VOL_BOX[0][1]), vf_set1(VOL_BOX[1][1]), org.y, dir.y, &t0, &t1);
    slab(vf_set1(VOL_BOX[0][2]), vf_set1(VOL_BOX[1][2]), org.z, dir.z, &t0, &t1);
    *t_in = t0;
    *t_out = t1;
    return vf_le(t0, t1);
}

/* the grid coordinate of p on one axis, its voxel index (truncated) and the fraction past it */
static inline vf grid(vf p, int axis, vi *i)
{
    float lo = VOL_BOX[0][axis], extent = VOL_BOX[1][axis] - lo;
    vf g = vf_sub(vf_mul(vf_div(vf_sub(p, vf_set1(lo)), vf_set1(extent)), vf_set1((float)VOL_N)), vf_set1(0.5f));
    *i = vi_from_vf(g);
    return vf_sub(g, vf_from_vi(*i));
}

static inline vi clamp_index(vi v)
{
    return vi_min(vi_max(v, vi_set1(0)), vi_set1(VOL_N - 1));
}

static inline vf voxel(vi x, vi y, vi z)
{
    vi idx = vi_add(vi_mul(vi_add(vi_mul(clamp_index(z), vi_set1(VOL_N)), clamp_index(y)), vi_set1(VOL_N)),
                    clamp_index(x));
    return vf_gather(VOL_DENSITY, idx);
}

static inline vf density(vvec p)
{
    vm in = vm_and(vm_and(vm_and(vf_le(vf_set1(VOL_BOX[0][0]), p.x), vf_le(p.x, vf_set1(VOL_BOX[1][0]))),
                          vm_and(vf_le(vf_set1(VOL_BOX[0][1]), p.y), vf_le(p.y, vf_set1(VOL_BOX[1][1])))),
                   vm_and(vf_le(vf_set1(VOL_BOX[0][2]), p.z), vf_le(p.z, vf_set1(VOL_BOX[1][2]))));
    if (!vm_any(in))
        return vf_set1(0.0f);
    vi ix, iy, iz;
    vf fx = grid(p.x, 0, &ix), fy = grid(p.y, 1, &iy), fz = grid(p.z, 2, &iz);
    vi one = vi_set1(1), ix1 = vi_add(ix, one), iy1 = vi_add(iy, one), iz1 = vi_add(iz, one);
    vf d00 = lerp(fx, voxel(ix, iy, iz), voxel(ix1, iy, iz));
    vf d10 = lerp(fx, voxel(ix, iy1, iz), voxel(ix1, iy1, iz));
    vf d01 = lerp(fx, voxel(ix, iy, iz1), voxel(ix1, iy, iz1));
    vf d11 = lerp(fx, voxel(ix, iy1, iz1), voxel(ix1, iy1, iz1));
    return vf_blend(vf_set1(0.0f), lerp(fz, lerp(fy, d00, d10), lerp(fy, d01, d11)), in);
}

/* the fraction of light that crosses the medium from the light to p, in the lanes of on */
static inline vf transmittance(vvec light, vvec p, vm on, float sigma_t)
{
    vvec dir = vsub(light, p);
    vf t_in, t_out;
    vm marching = vm_and(on, box_span(p, dir, -1e30f, &t_in, &t_out));
    vf tau = vf_set1(0.0f);
    if (vm_any(marching)) {
        t_in = larger(t_in, vf_set1(0.0f));
        vf len = vf_sqrt(vdot(dir, dir));
        const float step = 0.2f;
        vf dt = vf_div(vf_set1(step), len);
        vf t = t_in;
        vvec q = vadd(p, vscale(dir, t_in));
        vvec dq = vscale(dir, dt);
        for (;;) {
            marching = vm_and(marching, vf_lt(t, t_out));
            if (!vm_any(marching))
                break;
            tau = vf_blend(tau, vf_add(tau, vf_mul(vf_set1(step * sigma_t), density(q))), marching);
            q = vadd(q, dq);
            t = vf_add(t, dt);
        }
    }
    /* a lane that misses the box: 1 = expf(-0) */
    return VLIBM(expf)(vf_neg(tau));
}

void anchor_volume(int w, int h, float *image, int y, int x)
{
    vvec org, dir;
    camera_rays(VOL_RASTER_TO_CAMERA, VOL_CAMERA_TO_WORLD, VOL_BASE_W, VOL_BASE_H, w, h, y, x, &org, &dir);

    vvec light = vsplat(VOL_LIGHT[0], VOL_LIGHT[1], VOL_LIGHT[2]);
    const float emission = 0.25f, sigma_a = 10.0f, sigma_s = 10.0f, step = 0.025f, intensity = 40.0f;
    vf t_in, t_out;
    vm marching = box_span(org, dir, -1e30f, &t_in, &t_out);
    vm hit = marching;
    vf radiance = vf_set1(0.0f);
    if (vm_any(marching)) {
        t_in = larger(t_in, vf_set1(0.0f));
        vf tau = vf_set1(0.0f);
        vf len = vf_sqrt(vdot(dir, dir));
        vf dt = vf_div(vf_set1(step), len);
        vf t = t_in;
        vvec p = vadd(org, vscale(dir, t_in));
        vvec dp = vscale(dir, dt);
        for (;;) {
            marching = vm_and(marching, vf_lt(t, t_out));
            if (!vm_any(marching))
                break;
            vf d = density(p);
            vf atten = VLIBM(expf)(vf_neg(tau));
            marching = vm_andnot(marching, vf_lt(atten, vf_set1(0.005f)));
            if (!vm_any(marching))
                break;
            vvec to_light = vsub(light, p);
            vf li = vf_mul(vf_div(vf_set1(intensity), vdot(to_light, to_light)),
                           transmittance(light, p, marching, sigma_a + sigma_s));
            vf scattered = vf_mul(vf_mul(vf_mul(vf_mul(vf_set1(step), atten), d), vf_set1(sigma_s)),
                                  vf_add(li, vf_set1(emission)));
            radiance = vf_blend(radiance, vf_add(radiance, scattered), marching);
            tau = vf_blend(tau, vf_add(tau, vf_mul(vf_set1(step * (sigma_a + sigma_s)), d)), marching);
            p = vadd(p, dp);
            t = vf_add(t, dt);
        }
    }
    vf gamma = VLIBM(powf)(radiance, vf_set1(1.0f / 2.2f));
    vf_store(&image[y * w + x], vf_blend(vf_set1(0.0f), gamma, hit));
}
