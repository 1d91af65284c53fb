/* What the anchors of mathlib/kernels/rt.c, volume.c and deferred.c share (as their kernels share
   mathlib/kernels/vec3.h): a three-float vector of a gang as three vectors (ispc's varying float3),
   its operators, std::max and std::min as they compare, and the camera ray of a gang of pixels. */

#ifndef ANCHOR_VVEC_H
#define ANCHOR_VVEC_H

#include "simd.h"

typedef struct { vf x, y, z; } vvec;

static inline vvec vvec3(vf x, vf y, vf z)
{
    vvec v = {x, y, z};
    return v;
}

static inline vvec vsplat(float x, float y, float z) { return vvec3(vf_set1(x), vf_set1(y), vf_set1(z)); }
static inline vvec vadd(vvec a, vvec b) { return vvec3(vf_add(a.x, b.x), vf_add(a.y, b.y), vf_add(a.z, b.z)); }
static inline vvec vsub(vvec a, vvec b) { return vvec3(vf_sub(a.x, b.x), vf_sub(a.y, b.y), vf_sub(a.z, b.z)); }
static inline vvec vscale(vvec a, vf s) { return vvec3(vf_mul(a.x, s), vf_mul(a.y, s), vf_mul(a.z, s)); }

static inline vvec vcross(vvec a, vvec b)
{
    return vvec3(vf_sub(vf_mul(a.y, b.z), vf_mul(a.z, b.y)), vf_sub(vf_mul(a.z, b.x), vf_mul(a.x, b.z)),
                 vf_sub(vf_mul(a.x, b.y), vf_mul(a.y, b.x)));
}

static inline vf vdot(vvec a, vvec b)
{
    return vf_add(vf_add(vf_mul(a.x, b.x), vf_mul(a.y, b.y)), vf_mul(a.z, b.z));
}

/* a < b ? b : a, and b < a ? b : a, lane by lane */
static inline vf larger(vf a, vf b) { return vf_blend(a, b, vf_lt(a, b)); }
static inline vf smaller(vf a, vf b) { return vf_blend(a, b, vf_lt(b, a)); }

/* the camera rays of pixels x, x + 1, ... of row y in a frame of w x h that samples a raster of
   base_w x base_h: the raster's y, the camera's z and w and the origin are the same in every lane */
static inline void camera_rays(const float rc[4][4], const float cw[4][4], int base_w, int base_h, int w, int h,
                               int y, int x, vvec *org, vvec *dir)
{
    float sx = (float)base_w / (float)w, sy = (float)base_h / (float)h;
    vf px = vf_mul(vf_lanes_from(x), vf_set1(sx));
    float py = y * sy;
    float cwt = rc[3][3];
    vf cx = vf_div(vf_add(vf_add(vf_mul(vf_set1(rc[0][0]), px), vf_set1(rc[0][1] * py)), vf_set1(rc[0][3])),
                   vf_set1(cwt));
    vf cy = vf_div(vf_add(vf_add(vf_mul(vf_set1(rc[1][0]), px), vf_set1(rc[1][1] * py)), vf_set1(rc[1][3])),
                   vf_set1(cwt));
    float cz = rc[2][3] / cwt;
    *dir = vvec3(vf_add(vf_add(vf_mul(vf_set1(cw[0][0]), cx), vf_mul(vf_set1(cw[0][1]), cy)), vf_set1(cw[0][2] * cz)),
                 vf_add(vf_add(vf_mul(vf_set1(cw[1][0]), cx), vf_mul(vf_set1(cw[1][1]), cy)), vf_set1(cw[1][2] * cz)),
                 vf_add(vf_add(vf_mul(vf_set1(cw[2][0]), cx), vf_mul(vf_set1(cw[2][1]), cy)), vf_set1(cw[2][2] * cz)));
    *org = vsplat(cw[0][3] / cw[3][3], cw[1][3] / cw[3][3], cw[2][3] / cw[3][3]);
}

#endif
