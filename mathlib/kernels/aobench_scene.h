/* The types and the scene of mathlib/kernels/aobench.c (shared with its anchor,
   mathlib/kernels/anchor/aobench.c): aobench's scene (Syoyo Fujita's aobench, as ispc's
   examples/cpu/aobench has it): a ground plane and three spheres of radius 0.5; 8 x 8 occlusion
   rays per hit. */

#define NAO_SAMPLES 8
#define AO_TWO_PI 6.28318530718f

typedef struct { float x, y, z; } vec;
typedef struct { float t; vec p; vec n; int hit; } isect;
typedef struct { vec center; float radius; } sphere;
typedef struct { vec p; vec n; } plane;
typedef struct { vec org; vec dir; } ray;

static const plane AO_PLANE = {{0.0f, -0.5f, 0.0f}, {0.0f, 1.0f, 0.0f}};
static const sphere AO_SPHERES[3] = {
    {{-2.0f, 0.0f, -3.5f}, 0.5f}, {{-0.5f, 0.0f, -3.0f}, 0.5f}, {{1.0f, 0.0f, -2.2f}, 0.5f},
};
