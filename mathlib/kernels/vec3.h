/* What mathlib/kernels/rt.c and volume.c share (ispc's rt and volume_rendering examples each have
   their own copy): three-float vectors with the operators of their float3 as functions, std::max
   and std::min as they compare, one axis of the slab test of a box, and the pinhole camera's ray
   (generateRay): the raster position (px, py) through the raster-to-camera and camera-to-world
   matrices of a scene. */

#ifndef KERNELS_VEC3_H
#define KERNELS_VEC3_H

typedef struct { float x, y, z; } vec3;

static inline vec3 vec3_of(float x, float y, float z)
{
    vec3 v;
    v.x = x;
    v.y = y;
    v.z = z;
    return v;
}

static inline vec3 vadd(vec3 a, vec3 b)
{
    return vec3_of(a.x + b.x, a.y + b.y, a.z + b.z);
}

static inline vec3 vsub(vec3 a, vec3 b)
{
    return vec3_of(a.x - b.x, a.y - b.y, a.z - b.z);
}

static inline vec3 vmul(vec3 a, vec3 b)
{
    return vec3_of(a.x * b.x, a.y * b.y, a.z * b.z);
}

static inline vec3 vdiv(vec3 a, vec3 b)
{
    return vec3_of(a.x / b.x, a.y / b.y, a.z / b.z);
}

static inline vec3 vscale(vec3 a, float s)
{
    return vec3_of(a.x * s, a.y * s, a.z * s);
}

static inline vec3 vcross(vec3 a, vec3 b)
{
    return vec3_of(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}

static inline float vdot(vec3 a, vec3 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

/* the larger and the smaller of a and b, as std::max and std::min compare them */
static inline float larger(float a, float b)
{
    return a < b ? b : a;
}

static inline float smaller(float a, float b)
{
    return b < a ? b : a;
}

/* one axis of a slab test: near and far, the ray's parameters at the box's two planes on this axis
   (in either order), narrow [*t0, *t1] */
static inline void slab(float near, float far, float *t0, float *t1)
{
    if (near > far) {
        float s = near;
        near = far;
        far = s;
    }
    *t0 = larger(near, *t0);
    *t1 = smaller(far, *t1);
}

/* the camera ray through raster position (px, py): its origin and (unnormalized) direction */
static inline void camera_ray(const float rc[4][4], const float cw[4][4], float px, float py, vec3 *org, vec3 *dir)
{
    float cx = rc[0][0] * px + rc[0][1] * py + rc[0][3];
    float cy = rc[1][0] * px + rc[1][1] * py + rc[1][3];
    float cz = rc[2][3];
    float cwt = rc[3][3];
    cx /= cwt;
    cy /= cwt;
    cz /= cwt;
    dir->x = cw[0][0] * cx + cw[0][1] * cy + cw[0][2] * cz;
    dir->y = cw[1][0] * cx + cw[1][1] * cy + cw[1][2] * cz;
    dir->z = cw[2][0] * cx + cw[2][1] * cy + cw[2][2] * cz;
    org->x = cw[0][3] / cw[3][3];
    org->y = cw[1][3] / cw[3][3];
    org->z = cw[2][3] / cw[3][3];
}

#endif
