/* rt: one primary ray per pixel through a bounding volume hierarchy, after ispc's rt example
   (github.com/ispc/ispc, examples/cpu/rt/rt_serial.cpp, BSD-3-Clause, Intel): its algorithm
   written again in C for mathlib's kernel suite (mathlib/suite.py). Per pixel: a camera ray from
   the raster position through two 4x4 matrices; then the traversal of a flattened BVH (a box slab
   test per node, the near child first and the far one on a local stack of node numbers indexed by
   a per-pixel stack pointer, a ray-triangle test per triangle of a leaf, which shortens the ray);
   the output is the hit distance (tmax: 1e30 when nothing is hit) and the id of the triangle hit
   (0 when none). Our scene (rt_scene.h, written by scenes/rt_scene.c): a closed room with the
   camera and two boxes in it, 36 triangles, 39 nodes; the original reads a Cornell box or Sponza
   from files. Changes: C for
   C++ (structs by pointer where the original passes references, the float3 operators as
   functions: vec3.h), int where the original has unsigned. One call per pixel; a gang is
   consecutive pixels of one row. */

#include "rt_scene.h"
#include "vec3.h"

typedef struct {
    vec3 org, dir, inv;
    int neg[3];
    float tmin, tmax;
    int hit_id;
} rt_ray;

/* the camera ray through raster position (px, py), with what the box tests use */
static void primary_ray(float px, float py, rt_ray *r)
{
    camera_ray(RT_RASTER_TO_CAMERA, RT_CAMERA_TO_WORLD, px, py, &r->org, &r->dir);
    r->inv.x = 1.0f / r->dir.x;
    r->inv.y = 1.0f / r->dir.y;
    r->inv.z = 1.0f / r->dir.z;
    r->neg[0] = r->inv.x < 0.0f ? 1 : 0;
    r->neg[1] = r->inv.y < 0.0f ? 1 : 0;
    r->neg[2] = r->inv.z < 0.0f ? 1 : 0;
    r->tmin = 0.0f;
    r->tmax = 1e30f;
    r->hit_id = 0;
}

/* does the ray's [tmin, tmax] meet the box? (slabs: the entry and exit distances per axis) */
static int box_hit(const float b[2][3], const rt_ray *r)
{
    float t0 = r->tmin, t1 = r->tmax;
    vec3 lo = vmul(vsub(vec3_of(b[0][0], b[0][1], b[0][2]), r->org), r->inv);
    vec3 hi = vmul(vsub(vec3_of(b[1][0], b[1][1], b[1][2]), r->org), r->inv);
    slab(lo.x, hi.x, &t0, &t1);
    slab(lo.y, hi.y, &t0, &t1);
    slab(lo.z, hi.z, &t0, &t1);
    return t0 <= t1;
}

/* the ray against a triangle (barycentric coordinates from two cross products); a hit nearer
   than tmax shortens the ray and names the triangle */
static int tri_hit(const rt_tri *tri, rt_ray *r)
{
    vec3 p0 = vec3_of(tri->p[0][0], tri->p[0][1], tri->p[0][2]);
    vec3 p1 = vec3_of(tri->p[1][0], tri->p[1][1], tri->p[1][2]);
    vec3 p2 = vec3_of(tri->p[2][0], tri->p[2][1], tri->p[2][2]);
    vec3 e1 = vsub(p1, p0);
    vec3 e2 = vsub(p2, p0);
    vec3 s1 = vcross(r->dir, e2);
    float det = vdot(s1, e1);
    if (det == 0.0f)
        return 0;
    float inv_det = 1.0f / det;
    vec3 d = vsub(r->org, p0);
    float b1 = vdot(d, s1) * inv_det;
    if (b1 < 0.0f || b1 > 1.0f)
        return 0;
    vec3 s2 = vcross(d, e1);
    float b2 = vdot(r->dir, s2) * inv_det;
    if (b2 < 0.0f || b1 + b2 > 1.0f)
        return 0;
    float t = vdot(e2, s2) * inv_det;
    if (t < r->tmin || t > r->tmax)
        return 0;
    r->tmax = t;
    r->hit_id = tri->id;
    return 1;
}

/* the nearest hit of the ray in the scene: 1 if there is one (r->tmax and r->hit_id say which) */
static int bvh_trace(rt_ray *r)
{
    rt_ray ray = *r;
    int hit = 0;
    int stack[64];
    int top = 0, node_num = 0;
    for (;;) {
        const rt_node *node = &RT_NODES[node_num];
        if (box_hit(node->bounds, &ray)) {
            int nprims = node->nprims;
            if (nprims > 0) {
                int first = node->offset;
                for (int i = 0; i < nprims; i++)
                    if (tri_hit(&RT_TRIS[first + i], &ray))
                        hit = 1;
                if (top == 0)
                    break;
                node_num = stack[--top];
            } else if (r->neg[node->axis]) {
                /* the ray runs towards -axis: the second child first */
                stack[top++] = node_num + 1;
                node_num = node->offset;
            } else {
                stack[top++] = node->offset;
                node_num = node_num + 1;
            }
        } else {
            if (top == 0)
                break;
            node_num = stack[--top];
        }
    }
    r->tmax = ray.tmax;
    r->hit_id = ray.hit_id;
    return hit;
}

#pragma omp declare simd uniform(w, h, depth, ids, y) linear(x)
void rt(int w, int h, float *depth, int *ids, int y, int x)
{
    /* the camera's raster is RT_BASE_W x RT_BASE_H pixels; a frame of w x h samples it */
    float sx = (float)RT_BASE_W / (float)w;
    float sy = (float)RT_BASE_H / (float)h;
    rt_ray r;
    primary_ray(x * sx, y * sy, &r);
    int hit = bvh_trace(&r);
    depth[y * w + x] = r.tmax;
    ids[y * w + x] = hit ? r.hit_id : 0;
}
