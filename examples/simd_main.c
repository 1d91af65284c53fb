/* Runs simd_loop.c's loop (compiled separately, with -fopenmp-simd) and checks it. */
#include <stdlib.h>
#include "common.h"

void tonemap_loop(float *restrict y, const float *restrict x, size_t n);

int main(void)
{
    enum { N = (1 << 20) + 13 };
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    fill(x, N);
    tonemap_loop(y, x, N);
    return report("simd loop", x, y, N);
}
