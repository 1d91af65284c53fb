/* Written by hand after the note of bd16ddf, not found by expand-fuzz (its shift counts were always
   masked, `x << (n & 31)`, before it tested them as here).
   expand-fuzz: isa rvv
   expand-fuzz: options uniform=y

   Bug: the arms of a ?: whose test differs per lane are computed in every lane, and a uniform arm is
   scalar C with no mask around it: `_exp_splat_u32((uint32_t)(y << n))` with n = 40, where the scalar
   code shifts only when `x > 3u && n < 32`, which never holds. Undefined in C; clang-16 -O2 folded the
   function into garbage (rvv, and generic compiled by clang-16 for x86). Fix: emit/printer.py marks
   what a varying ?:, && or || computes beyond the scalar code (speculating) and masks the counts of the
   uniform shifts there, `y << (n & 31)`, on every table. */
#include "fuzz_log.h"

unsigned f(unsigned x, unsigned y)
{
    int n = 40;
    unsigned r = (x > 3u && n < 32) ? y << n : x;
    if (x < 7u)
        r = r + 2u;
    return r;
}
