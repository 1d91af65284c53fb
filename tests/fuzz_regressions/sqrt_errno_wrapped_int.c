/* Found by expand-fuzz --isa avx2 (seed 20261126, program 1130; reduced by hand).
   expand-fuzz: isa avx2
   expand-fuzz: options lanes=x4 boscc=all frontend=clang

   Bug: errno DIFFERS (scalar EDOM, vector unchanged) in the lanes where (int)v3 is negative: the
   vector code had no errno tracking for __builtin_sqrtf((float)(int)v3) at all (neither BOSCC nor the
   32 lanes had a part in it). expand/passes/global_writes.py decides which sqrt arguments can never be
   negative (no errno to track); its integer test took any integer conversion of a non-negative value as
   non-negative, so (int64_t)(uint64_t product) and then (int)v3 counted as never negative, though a
   conversion to a signed type that cannot hold every value wraps (uint64_t -> int64_t, int64_t -> int).

   Fix: _nonneg_int takes a conversion to a signed integer type as non-negative only when the value fits:
   a signed source no wider and non-negative, or a value known to be in [0, 2**(bits - 1)) (_below: a
   constant, an unsigned type that narrow, a mask with one). */
#include <stdint.h>
#include <math.h>
#include "fuzz_log.h"

int64_t f(int16_t y, int64_t w)
{
    int64_t v3 = (int64_t)((uint64_t)(int64_t)y * (uint64_t)w);
    float x = __builtin_sqrtf((float)(int)v3);
    return v3 + (int64_t)(x > 1.0f);
}
