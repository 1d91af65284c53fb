/* Found by expand-fuzz --isa sse2 (seed 2026, program 136; also sse4.1), reduced by hand.
   expand-fuzz: isa sse2

   Bug: SSE2/SSE4.1 have no per-lane left shift; x << n is x * 2^n with 2^n built as a float and
   truncated by _mm_cvttps_epi32. For n = 31 that is out of int range: the instruction gives
   INT32_MIN (right), but GCC 12 folds a constant one to INT32_MAX, so when GCC knows the count
   (v1 = -1 here, before the branch that makes v1 vary; the log call keeps x) x << 31 came out
   as x * 0x7fffffff.
   Fixed in emit/sse41.py (_exp_pow2_epi32): 31 goes in as 30 and that product is doubled. */
#include <stdint.h>
#include "fuzz_log.h"

int f(int x, int y)
{
    int v1 = -1;
    x = (int)((unsigned)x << ((unsigned)v1 & 31));
    log_i32(1, x);
    if (y > 0)
        v1 = y;
    return x + v1;
}
