/* aobench: ambient occlusion of one pixel, after ispc's aobench example (github.com/ispc/ispc,
   examples/cpu/aobench/ao_serial.cpp, BSD-3-Clause, Intel, itself based on Syoyo Fujita's
   aobench): its algorithm, written again in C for mathlib's kernel suite (mathlib/suite.py).
   C for C++: structs passed by pointer where the original passes references, vector helpers as
   functions. Changes: a random generator per pixel (xorshift32, seeded from the pixel's index)
   where the original calls drand48, whose one hidden state the pixels would share in another
   order once vectorized (ispc's own aobench keeps one generator per program instance); one
   channel (the original writes the same value to r, g and b). Per pixel: nsubsamples^2 primary
   rays against 3 spheres and a plane, and for each hit 64 occlusion rays in random directions
   (sqrtf, cosf, sinf); structs, nested loops. One call per pixel; a gang is consecutive pixels
   of one row. */

#include <math.h>

#include "aobench_scene.h"

static float dot(vec a, vec b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z;
}

static vec cross(vec a, vec b)
{
    vec r;
    r.x = a.y * b.z - a.z * b.y;
    r.y = a.z * b.x - a.x * b.z;
    r.z = a.x * b.y - a.y * b.x;
    return r;
}

static vec normalize(vec v)
{
    float inv = 1.0f / sqrtf(dot(v, v));
    v.x *= inv;
    v.y *= inv;
    v.z *= inv;
    return v;
}

static void ray_sphere_intersect(isect *is, const ray *r, const sphere *s)
{
    vec rs;
    rs.x = r->org.x - s->center.x;
    rs.y = r->org.y - s->center.y;
    rs.z = r->org.z - s->center.z;
    float b = dot(rs, r->dir);
    float c = dot(rs, rs) - s->radius * s->radius;
    float d = b * b - c;
    if (d > 0.0f) {
        float t = -b - sqrtf(d);
        if (t > 0.0f && t < is->t) {
            is->t = t;
            is->hit = 1;
            is->p.x = r->org.x + t * r->dir.x;
            is->p.y = r->org.y + t * r->dir.y;
            is->p.z = r->org.z + t * r->dir.z;
            is->n.x = is->p.x - s->center.x;
            is->n.y = is->p.y - s->center.y;
            is->n.z = is->p.z - s->center.z;
            is->n = normalize(is->n);
        }
    }
}

static void ray_plane_intersect(isect *is, const ray *r, const plane *pl)
{
    float d = -dot(pl->p, pl->n);
    float v = dot(r->dir, pl->n);
    if (fabsf(v) < 1.0e-17f)
        return;
    float t = -(dot(r->org, pl->n) + d) / v;
    if (t > 0.0f && t < is->t) {
        is->t = t;
        is->hit = 1;
        is->p.x = r->org.x + t * r->dir.x;
        is->p.y = r->org.y + t * r->dir.y;
        is->p.z = r->org.z + t * r->dir.z;
        is->n = pl->n;
    }
}

static void ortho_basis(vec basis[3], vec n)
{
    basis[2] = n;
    basis[1].x = 0.0f;
    basis[1].y = 0.0f;
    basis[1].z = 0.0f;
    if (n.x < 0.6f && n.x > -0.6f)
        basis[1].x = 1.0f;
    else if (n.y < 0.6f && n.y > -0.6f)
        basis[1].y = 1.0f;
    else if (n.z < 0.6f && n.z > -0.6f)
        basis[1].z = 1.0f;
    else
        basis[1].x = 1.0f;
    basis[0] = normalize(cross(basis[1], basis[2]));
    basis[1] = normalize(cross(basis[2], basis[0]));
}

/* the pixel's generator: xorshift32 (its state never 0), a float in [0, 1) from its top 24 bits */
static float rnd(unsigned int *state)
{
    unsigned int s = *state;
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    *state = s;
    return (float)(s >> 8) * (1.0f / 16777216.0f);
}

static float ambient_occlusion(const isect *is, unsigned int *rng)
{
    const float eps = 0.0001f;
    vec basis[3];
    ray r;
    float occlusion = 0.0f;
    ortho_basis(basis, is->n);
    r.org.x = is->p.x + eps * is->n.x;
    r.org.y = is->p.y + eps * is->n.y;
    r.org.z = is->p.z + eps * is->n.z;
    for (int j = 0; j < NAO_SAMPLES; j++) {
        for (int i = 0; i < NAO_SAMPLES; i++) {
            float theta = sqrtf(rnd(rng));
            float phi = AO_TWO_PI * rnd(rng);
            float x = cosf(phi) * theta;
            float y = sinf(phi) * theta;
            float z = sqrtf(1.0f - theta * theta);
            isect occ;
            r.dir.x = x * basis[0].x + y * basis[1].x + z * basis[2].x;
            r.dir.y = x * basis[0].y + y * basis[1].y + z * basis[2].y;
            r.dir.z = x * basis[0].z + y * basis[1].z + z * basis[2].z;
            occ.t = 1.0e+17f;
            occ.hit = 0;
            for (int s = 0; s < 3; s++)
                ray_sphere_intersect(&occ, &r, &AO_SPHERES[s]);
            ray_plane_intersect(&occ, &r, &AO_PLANE);
            if (occ.hit)
                occlusion += 1.0f;
        }
    }
    return (NAO_SAMPLES * NAO_SAMPLES - occlusion) / (float)(NAO_SAMPLES * NAO_SAMPLES);
}

#pragma omp declare simd uniform(w, h, nsubsamples, image, y) linear(x)
void aobench(int w, int h, int nsubsamples, float *image, int y, int x)
{
    float sum = 0.0f;
    unsigned int rng = ((unsigned int)(y * w + x) * 2654435761u) | 1u;
    for (int u = 0; u < nsubsamples; u++) {
        for (int v = 0; v < nsubsamples; v++) {
            float px = (x + (u / (float)nsubsamples) - (w / 2.0f)) / (w / 2.0f);
            float py = -(y + (v / (float)nsubsamples) - (h / 2.0f)) / (h / 2.0f);
            isect is;
            ray r;
            px *= (float)w / (float)h;
            r.org.x = 0.0f;
            r.org.y = 0.0f;
            r.org.z = 0.0f;
            r.dir.x = px;
            r.dir.y = py;
            r.dir.z = -1.0f;
            r.dir = normalize(r.dir);
            is.t = 1.0e+17f;
            is.hit = 0;
            for (int s = 0; s < 3; s++)
                ray_sphere_intersect(&is, &r, &AO_SPHERES[s]);
            ray_plane_intersect(&is, &r, &AO_PLANE);
            if (is.hit)
                sum += ambient_occlusion(&is, &rng);
        }
    }
    image[y * w + x] = sum / (float)(nsubsamples * nsubsamples);
}
