/* The types and the scene of mathlib/kernels/aobench.c (shared with its anchor,
   mathlib/kernels/anchor/aobench.c): aobench's scene (Syoyo Fujita's aobench, as ispc's
   examples/cpu/aobench has it): a ground plane and three spheres of radius 0.5. The occlusion
   rays take fixed directions instead of drand48's: 8 x 8 samples of the hemisphere, theta from
   sqrt((j + 0.5) / 8) and phi = 2 pi (i + 0.5) / 8, whose cosines and sines are AO_COS_PHI and
   AO_SIN_PHI. */

#define NAO_SAMPLES 8

typedef struct { float x, y, z; } vec;
typedef struct { float t; vec p; vec n; int hit; } isect;
typedef struct { vec center; float radius; } sphere;
typedef struct { vec p; vec n; } plane;
typedef struct { vec org; vec dir; } ray;

static const plane AO_PLANE = {{0.0f, -0.5f, 0.0f}, {0.0f, 1.0f, 0.0f}};
static const sphere AO_SPHERES[3] = {
    {{-2.0f, 0.0f, -3.5f}, 0.5f}, {{-0.5f, 0.0f, -3.0f}, 0.5f}, {{1.0f, 0.0f, -2.2f}, 0.5f},
};
static const float AO_COS_PHI[NAO_SAMPLES] = {
    0.92387953f, 0.38268343f, -0.38268343f, -0.92387953f, -0.92387953f, -0.38268343f, 0.38268343f, 0.92387953f,
};
static const float AO_SIN_PHI[NAO_SAMPLES] = {
    0.38268343f, 0.92387953f, 0.92387953f, 0.38268343f, -0.38268343f, -0.92387953f, -0.92387953f, -0.38268343f,
};
