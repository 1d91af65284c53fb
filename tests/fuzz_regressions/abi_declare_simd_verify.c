/* Found by expand-fuzz --isa avx2 (seed 6, program 6; minimized, then reduced by hand).
   expand-fuzz: options abi

   Bug: 'expand --abi --verify' of a function declared '#pragma omp declare simd' never verified:
   "multiple definition of `_ZGVbM4uvv_f'" at link time. verify compiled the scalar source with
   -fopenmp-simd (to accept the pragma), with which GCC makes vector clones of the function under
   the names that the output's ABI entry points have.

   Fix: expand/check/verify.py compiles the scalar sources without -fopenmp-simd (the pragma is then an
   unknown one, not warned about): no clones, the scalar function alone. */
#include <stdint.h>
#include "fuzz_log.h"

#pragma omp declare simd uniform(n)
float f(short n, int z, float x)
{
    log_i32(1, z);
    return x * (float)n + (float)z;
}
