/* Writes mathlib/kernels/rt_scene.h, the scene of mathlib/kernels/rt.c (ours, for mathlib's kernel
   suite): a closed room (6 walls: 12 triangles) with the camera inside and two boxes standing in
   it (a short one and a tall one, each turned about the vertical axis: 12 triangles each), a
   bounding volume hierarchy over the 36 triangles (median split of the centroids along their
   widest axis, at most 2 triangles per leaf, flattened depth first: a node's first child follows
   it, its second child is at `offset`), and the camera's matrices.

       cc -o /tmp/rt_scene mathlib/kernels/scenes/rt_scene.c -lm && /tmp/rt_scene > mathlib/kernels/rt_scene.h

   Deterministic: no libm call but sqrt (correctly rounded), the rotations have exact rational
   cosines and sines (3-4-5 and 7-24-25 triangles), every float is printed so that it reads back as
   the same float. */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "scene_print.h"

#define MAX_TRIS 64
#define MAX_NODES 128
#define LEAF_MAX 2
#define BASE_W 256
#define BASE_H 256

typedef struct { double x, y, z; } dvec;
typedef struct { float p[3][3]; int id; } gtri;
typedef struct { float lo[3], hi[3]; int offset, nprims, axis; } gnode;

static gtri tris[MAX_TRIS];
static int ntris;
static gnode nodes[MAX_NODES];
static int nnodes;
static gtri ordered[MAX_TRIS];
static int nordered;

static void add_tri(dvec a, dvec b, dvec c)
{
    dvec v[3] = {a, b, c};
    for (int k = 0; k < 3; k++) {
        tris[ntris].p[k][0] = (float)v[k].x;
        tris[ntris].p[k][1] = (float)v[k].y;
        tris[ntris].p[k][2] = (float)v[k].z;
    }
    tris[ntris].id = ntris + 1;
    ntris++;
}

/* the quad a b c d (in order around it) as two triangles */
static void add_quad(dvec a, dvec b, dvec c, dvec d)
{
    add_tri(a, b, c);
    add_tri(a, c, d);
}

static dvec dv(double x, double y, double z)
{
    dvec r = {x, y, z};
    return r;
}

/* a box of size (sx, sy, sz) standing on the floor at (cx, cz), turned about y by (cos, sin) */
static void add_box(double cx, double cz, double sx, double sy, double sz, double c, double s)
{
    dvec q[8];
    for (int k = 0; k < 8; k++) {
        double x = (k & 1 ? 0.5 : -0.5) * sx, y = (k & 2 ? sy : 0.0), z = (k & 4 ? 0.5 : -0.5) * sz;
        q[k] = dv(cx + c * x - s * z, y, cz + s * x + c * z);
    }
    add_quad(q[0], q[1], q[3], q[2]); /* z- */
    add_quad(q[4], q[6], q[7], q[5]); /* z+ */
    add_quad(q[0], q[2], q[6], q[4]); /* x- */
    add_quad(q[1], q[5], q[7], q[3]); /* x+ */
    add_quad(q[2], q[3], q[7], q[6]); /* top */
    add_quad(q[0], q[4], q[5], q[1]); /* bottom */
}

static float centroid(const gtri *t, int axis)
{
    return (t->p[0][axis] + t->p[1][axis] + t->p[2][axis]) / 3.0f;
}

static int sort_axis;

static int by_centroid(const void *a, const void *b)
{
    float ca = centroid(a, sort_axis), cb = centroid(b, sort_axis);
    if (ca != cb)
        return ca < cb ? -1 : 1;
    return ((const gtri *)a)->id - ((const gtri *)b)->id; /* a total order: the same tree with any qsort */
}

/* the node of tris[first, first + n): its index in nodes */
static int build(int first, int n)
{
    int me = nnodes++;
    gnode *nd = &nodes[me];
    float clo[3], chi[3];
    for (int a = 0; a < 3; a++) {
        nd->lo[a] = clo[a] = INFINITY;
        nd->hi[a] = chi[a] = -INFINITY;
    }
    for (int i = first; i < first + n; i++)
        for (int a = 0; a < 3; a++) {
            for (int k = 0; k < 3; k++) {
                if (tris[i].p[k][a] < nd->lo[a]) nd->lo[a] = tris[i].p[k][a];
                if (tris[i].p[k][a] > nd->hi[a]) nd->hi[a] = tris[i].p[k][a];
            }
            float c = centroid(&tris[i], a);
            if (c < clo[a]) clo[a] = c;
            if (c > chi[a]) chi[a] = c;
        }
    if (n <= LEAF_MAX) {
        nd->offset = nordered;
        nd->nprims = n;
        nd->axis = 0;
        for (int i = first; i < first + n; i++)
            ordered[nordered++] = tris[i];
        return me;
    }
    int axis = 0;
    for (int a = 1; a < 3; a++)
        if (chi[a] - clo[a] > chi[axis] - clo[axis])
            axis = a;
    sort_axis = axis;
    qsort(&tris[first], n, sizeof tris[0], by_centroid);
    int half = n / 2;
    nodes[me].nprims = 0;
    nodes[me].axis = axis;
    build(first, half);
    int second = build(first + half, n - half);
    nodes[me].offset = second;
    return me;
}

int main(void)
{
    const double R = 10.0;
    add_quad(dv(0, 0, 0), dv(R, 0, 0), dv(R, 0, R), dv(0, 0, R)); /* floor */
    add_quad(dv(0, R, 0), dv(0, R, R), dv(R, R, R), dv(R, R, 0)); /* ceiling */
    add_quad(dv(0, 0, R), dv(R, 0, R), dv(R, R, R), dv(0, R, R)); /* back */
    add_quad(dv(0, 0, 0), dv(0, 0, R), dv(0, R, R), dv(0, R, 0)); /* left */
    add_quad(dv(R, 0, 0), dv(R, R, 0), dv(R, R, R), dv(R, 0, R)); /* right */
    add_quad(dv(0, 0, 0), dv(0, R, 0), dv(R, R, 0), dv(R, 0, 0)); /* front, behind the camera */
    add_box(3.2, 4.0, 3.0, 3.0, 3.0, 0.8, 0.6);                   /* the short box */
    add_box(6.6, 6.8, 3.0, 6.0, 3.0, 0.96, -0.28);                /* the tall box */
    build(0, ntris);

    /* the camera: inside the room at (5, 5.5, 0.5), looking towards +z tilted down by asin(0.15); the
       image plane at distance 1 spans [-0.75, 0.75] in x and y. Any ray from inside a closed room
       hits something: so do the rays of pixels outside the raster (--verify's) */
    const double sin_t = 0.15, cos_t = sqrt(1.0 - sin_t * sin_t);
    const double right[3] = {1.0, 0.0, 0.0}, up[3] = {0.0, cos_t, sin_t}, fwd[3] = {0.0, -sin_t, cos_t};
    const double pos[3] = {5.0, 5.5, 0.5};
    double r2c[4][4], c2w[4][4];
    camera_matrices(BASE_W, BASE_H, 0.75, right, up, fwd, pos, r2c, c2w);

    printf("/* The scene of mathlib/kernels/rt.c (shared with its anchor, mathlib/kernels/anchor/rt.c),\n"
           "   written by mathlib/kernels/scenes/rt_scene.c (do not edit): a closed room, the camera\n"
           "   and two boxes in it, %d triangles, a bounding volume hierarchy of %d nodes over them\n"
           "   (a node's first child follows it, its second child is at `offset`; a leaf has nprims > 0\n"
           "   triangles from RT_TRIS[offset]), and the camera: raster (RT_BASE_W x RT_BASE_H) to\n"
           "   camera space and camera to world space. */\n\n", ntris, nnodes);
    printf("#define RT_BASE_W %d\n#define RT_BASE_H %d\n#define RT_NODES_N %d\n#define RT_TRIS_N %d\n\n", BASE_W,
           BASE_H, nnodes, ntris);
    printf("typedef struct {\n    float bounds[2][3];\n    int offset;\n    unsigned char nprims, axis;\n"
           "    unsigned short pad; /* 32 bytes */\n} rt_node;\n");
    printf("typedef struct { float p[3][3]; int id; } rt_tri;\n\n");
    print_matrix("RT_RASTER_TO_CAMERA", r2c);
    print_matrix("RT_CAMERA_TO_WORLD", c2w);
    printf("\nstatic const rt_node RT_NODES[RT_NODES_N] = {\n");
    for (int i = 0; i < nnodes; i++) {
        const gnode *n = &nodes[i];
        printf("    {{{%s, %s, %s}, {%s, %s, %s}}, %d, %d, %d, 0},\n", fc(n->lo[0]), fc(n->lo[1]), fc(n->lo[2]),
               fc(n->hi[0]), fc(n->hi[1]), fc(n->hi[2]), n->offset, n->nprims, n->axis);
    }
    printf("};\n\nstatic const rt_tri RT_TRIS[RT_TRIS_N] = {\n");
    for (int i = 0; i < nordered; i++) {
        const float (*p)[3] = ordered[i].p;
        printf("    {{{%s, %s, %s}, {%s, %s, %s}, {%s, %s, %s}}, %d},\n", fc(p[0][0]), fc(p[0][1]), fc(p[0][2]),
               fc(p[1][0]), fc(p[1][1]), fc(p[1][2]), fc(p[2][0]), fc(p[2][1]), fc(p[2][2]), ordered[i].id);
    }
    printf("};\n");
    return 0;
}
