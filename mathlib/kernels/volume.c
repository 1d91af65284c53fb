/* volume: ray marching through a box of participating medium, after ispc's volume_rendering example
   (github.com/ispc/ispc, examples/cpu/volume_rendering/volume_serial.cpp, BSD-3-Clause, Intel):
   its algorithm written again in C for mathlib's kernel suite (mathlib/suite.py). Per pixel: a
   camera ray from the raster position through two 4x4 matrices, clipped to the box (slabs); then
   steps of 0.025 along it, each reading the density (trilinear between 8 voxels of a grid, their
   indices clamped to it), stopping once the transmittance so far falls under 0.005, and adding
   the light the step scatters towards the camera: the light's intensity over the squared
   distance, times the transmittance towards the light, itself a march in steps of 0.2 from the
   point to the light (a nested loop); finally a gamma of 1/2.2 (powf). Our scene
   (volume_scene.h, written by scenes/volume_scene.c): 16^3 voxels of haze and three blobs, the
   light and the camera inside the box; the original reads a 3D density file and looks at the
   box from outside. Changes: C for C++ (the float3 operators as functions: vec3.h, structs by
   pointer where the original passes references), the grid's size a constant. One call per pixel; a gang
   is consecutive pixels of one row. */

#include <math.h>

#include "volume_scene.h"
#include "vec3.h"

typedef struct { vec3 org, dir; } vol_ray;

static int clampi(int v, int lo, int hi)
{
    int m = v < lo ? lo : v;
    return hi < m ? hi : m;
}

static float lerp(float t, float a, float b)
{
    return (1.0f - t) * a + t * b;
}

/* the ray's parameters where it enters and leaves the box lo..hi (slabs); 0 if it misses */
static int box_span(const vol_ray *r, vec3 lo, vec3 hi, float *t_in, float *t_out)
{
    float t0 = -1e30f, t1 = 1e30f;
    vec3 near = vdiv(vsub(lo, r->org), r->dir);
    vec3 far = vdiv(vsub(hi, r->org), r->dir);
    slab(near.x, far.x, &t0, &t1);
    slab(near.y, far.y, &t0, &t1);
    slab(near.z, far.z, &t0, &t1);
    if (t0 <= t1) {
        *t_in = t0;
        *t_out = t1;
        return 1;
    }
    return 0;
}

static int inside(vec3 p, vec3 lo, vec3 hi)
{
    return p.x >= lo.x && p.x <= hi.x && p.y >= lo.y && p.y <= hi.y && p.z >= lo.z && p.z <= hi.z;
}

/* the density of voxel (x, y, z), the indices clamped to the grid */
static float voxel(int x, int y, int z)
{
    x = clampi(x, 0, VOL_N - 1);
    y = clampi(y, 0, VOL_N - 1);
    z = clampi(z, 0, VOL_N - 1);
    return VOL_DENSITY[(z * VOL_N + y) * VOL_N + x];
}

/* the density at p: 0 outside the box, else trilinear between the 8 voxels around p */
static float density(vec3 p, vec3 lo, vec3 hi)
{
    if (!inside(p, lo, hi))
        return 0.0f;
    float gx = (p.x - lo.x) / (hi.x - lo.x) * VOL_N - 0.5f;
    float gy = (p.y - lo.y) / (hi.y - lo.y) * VOL_N - 0.5f;
    float gz = (p.z - lo.z) / (hi.z - lo.z) * VOL_N - 0.5f;
    int ix = (int)gx, iy = (int)gy, iz = (int)gz;
    float fx = gx - ix, fy = gy - iy, fz = gz - iz;
    float d00 = lerp(fx, voxel(ix, iy, iz), voxel(ix + 1, iy, iz));
    float d10 = lerp(fx, voxel(ix, iy + 1, iz), voxel(ix + 1, iy + 1, iz));
    float d01 = lerp(fx, voxel(ix, iy, iz + 1), voxel(ix + 1, iy, iz + 1));
    float d11 = lerp(fx, voxel(ix, iy + 1, iz + 1), voxel(ix + 1, iy + 1, iz + 1));
    float d0 = lerp(fy, d00, d10);
    float d1 = lerp(fy, d01, d11);
    return lerp(fz, d0, d1);
}

/* the fraction of light that crosses the medium from p0 to p1 (steps of 0.2 from p1) */
static float transmittance(vec3 p0, vec3 p1, vec3 lo, vec3 hi, float sigma_t)
{
    float t_in, t_out;
    vol_ray r;
    r.org = p1;
    r.dir = vsub(p0, p1);
    if (!box_span(&r, lo, hi, &t_in, &t_out))
        return 1.0f;
    t_in = larger(t_in, 0.0f);
    float tau = 0.0f;
    float len = sqrtf(r.dir.x * r.dir.x + r.dir.y * r.dir.y + r.dir.z * r.dir.z);
    float step = 0.2f;
    float dt = step / len;
    float t = t_in;
    vec3 p = vadd(r.org, vscale(r.dir, t_in));
    vec3 dp = vscale(r.dir, dt);
    while (t < t_out) {
        tau += step * sigma_t * density(p, lo, hi);
        p = vadd(p, dp);
        t += dt;
    }
    return expf(-tau);
}

static float dist2(vec3 a, vec3 b)
{
    vec3 d = vsub(a, b);
    return d.x * d.x + d.y * d.y + d.z * d.z;
}

/* the light that reaches the camera along r */
static float march(const vol_ray *r)
{
    float t_in, t_out;
    vec3 lo = vec3_of(VOL_BOX[0][0], VOL_BOX[0][1], VOL_BOX[0][2]);
    vec3 hi = vec3_of(VOL_BOX[1][0], VOL_BOX[1][1], VOL_BOX[1][2]);
    vec3 light = vec3_of(VOL_LIGHT[0], VOL_LIGHT[1], VOL_LIGHT[2]);
    if (!box_span(r, lo, hi, &t_in, &t_out))
        return 0.0f;
    t_in = larger(t_in, 0.0f);
    const float emission = 0.25f, sigma_a = 10.0f, sigma_s = 10.0f, step = 0.025f, intensity = 40.0f;
    float tau = 0.0f, radiance = 0.0f;
    float len = sqrtf(r->dir.x * r->dir.x + r->dir.y * r->dir.y + r->dir.z * r->dir.z);
    float dt = step / len;
    float t = t_in;
    vec3 p = vadd(r->org, vscale(r->dir, t_in));
    vec3 dp = vscale(r->dir, dt);
    while (t < t_out) {
        float d = density(p, lo, hi);
        float atten = expf(-tau);
        if (atten < 0.005f)
            break;
        float li = intensity / dist2(light, p) * transmittance(light, p, lo, hi, sigma_a + sigma_s);
        radiance += step * atten * d * sigma_s * (li + emission);
        tau += step * (sigma_a + sigma_s) * d;
        p = vadd(p, dp);
        t += dt;
    }
    return powf(radiance, 1.0f / 2.2f);
}

#pragma omp declare simd uniform(w, h, image, y) linear(x)
void volume(int w, int h, float *image, int y, int x)
{
    /* the camera's raster is VOL_BASE_W x VOL_BASE_H pixels; a frame of w x h samples it */
    float sx = (float)VOL_BASE_W / (float)w;
    float sy = (float)VOL_BASE_H / (float)h;
    vol_ray r;
    camera_ray(VOL_RASTER_TO_CAMERA, VOL_CAMERA_TO_WORLD, x * sx, y * sy, &r.org, &r.dir);
    image[y * w + x] = march(&r);
}
