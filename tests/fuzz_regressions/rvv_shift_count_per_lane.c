/* Written by hand after the note of bd16ddf, not found by expand-fuzz (its shift counts were always
   masked, `x << (n & 31)`, before it tested them as here).
   expand-fuzz: isa rvv

   Per-lane counts that are in range only where the program's own test lets the shift run: inactive
   lanes hold counts of 64 and more, or negative ones (undefined for C's shift operators, which the
   generic table prints for vectors). Clang 16 did not exploit these here (the output verified before
   the fix too); tests/test_rvv.py checks that the output masks each such count into the lane width
   (emit/generic.py shift_count: `(n & 31)`, `& 63`) and that it verifies. */
#include <stdint.h>
#include "fuzz_log.h"

int64_t f(int x, unsigned y, int64_t z)
{
    int n = (x & 255) - 100;
    unsigned r = 1u;
    if (n >= 0 && n < 32)
        r = y << n;
    int s = (n >= 0 && n < 32) ? (int)y >> n : -1;
    int64_t k = (int64_t)n * 3;
    int64_t w = (k >= 0 && k < 64) ? (int64_t)((uint64_t)z << k) ^ (z >> k) : z;
    return (int64_t)((uint64_t)r + (uint64_t)(int64_t)s + (uint64_t)w);
}
