/* 2. A plain loop: with gen/tonemap_avx2.h (#pragma omp declare simd) and gcc -O3 -fopenmp-simd
   -mavx2, GCC calls _ZGVdN8v_tonemap for 8 elements at a time and _ZGVbN4v_tonemap (the SSE4.1
   output) for the tail. */
#include <stdlib.h>
#include "gen/tonemap_avx2.h"

void tonemap_loop(float *restrict y, const float *restrict x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = tonemap(x[i]);
}
