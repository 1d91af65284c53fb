/* What the scene programs of mathlib/kernels/scenes share: floats printed as C constants that read
   back as the same floats. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* f as a C float constant, in the fewest digits that read back as f */
static inline const char *fc(float f)
{
    static char bufs[16][32];
    static int next;
    char *b = bufs[next++ % 16];
    int found = 0;
    for (int decimals = 1; decimals <= 9 && !found; decimals++) {
        snprintf(b, 24, "%.*f", decimals, f);
        found = strtof(b, NULL) == f;
    }
    for (int digits = 1; digits <= 9 && !found; digits++) {
        snprintf(b, 24, "%.*g", digits, f);
        found = strtof(b, NULL) == f;
    }
    if (!strpbrk(b, ".e"))
        strcat(b, ".0");
    strcat(b, "f");
    return b;
}

/* `static const float name[4][4] = {...};` */
static inline void print_matrix(const char *name, double m[4][4])
{
    printf("static const float %s[4][4] = {\n", name);
    for (int i = 0; i < 4; i++)
        printf("    {%s, %s, %s, %s},\n", fc((float)m[i][0]), fc((float)m[i][1]), fc((float)m[i][2]), fc((float)m[i][3]));
    printf("};\n");
}

/* A pinhole camera as ispc's examples keep it: raster (w x h pixels, y down) to camera space (the image
   plane at z = 1 spans [-half, half] in x and y; pixel centres), and camera to world space (the
   columns: right, up, forward, position). */
static inline void camera_matrices(int w, int h, double half, const double right[3], const double up[3],
                                   const double fwd[3], const double pos[3], double r2c[4][4], double c2w[4][4])
{
    memset(r2c, 0, 16 * sizeof(double));
    memset(c2w, 0, 16 * sizeof(double));
    r2c[0][0] = 2.0 * half / w;
    r2c[0][3] = -half + half / w;
    r2c[1][1] = -2.0 * half / h;
    r2c[1][3] = half - half / h;
    r2c[2][3] = 1.0;
    r2c[3][3] = 1.0;
    for (int i = 0; i < 3; i++) {
        c2w[i][0] = right[i];
        c2w[i][1] = up[i];
        c2w[i][2] = fwd[i];
        c2w[i][3] = pos[i];
    }
    c2w[3][3] = 1.0;
}
