/* 1. Direct call: the expanded function takes and returns AVX2 vectors (8 lanes). */
#include <immintrin.h>
#include <stdlib.h>
#include "common.h"

__m256 _Exp_tonemap(__m256 x);   /* gen/tonemap_direct.c (expand tonemap.c --isa avx2) */

int main(void)
{
    enum { N = 1 << 20 };        /* a multiple of 8: no tail to handle here */
    float *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    fill(x, N);
    for (size_t i = 0; i < N; i += 8)
        _mm256_storeu_ps(&y[i], _Exp_tonemap(_mm256_loadu_ps(&x[i])));
    return report("direct", x, y, N);
}
