/* Written by hand after the note of bd16ddf, not found by expand-fuzz (its shift counts were always
   masked, `x << (n & 31)`, before it tested them as here).
   expand-fuzz: isa rvv
   expand-fuzz: options uniform=y

   Bug: a uniform shift under a partial mask was printed as scalar C that runs whether or not a lane is
   on, then splatted and dropped by the select: `_exp_splat_u32((uint32_t)(y << n))` with n = 40, where
   the scalar code shifts only when `n < 32`. Undefined in C; clang-16 -O2 folded the function into
   `ret poison` (rvv, and the generic and sse2 outputs compiled by clang-16 for x86; GCC happened to
   give the select something it dropped). Fix: emit/printer.py (scalar: shift_counts_masked) masks the
   count of a uniform shift printed under a mask no lane may be on, `y << (n & 31)`, on every table. */
#include "fuzz_log.h"

unsigned f(unsigned x, unsigned y)
{
    int n = 40;
    unsigned r = 1u;
    if (x > 100u && n < 32)
        r = y << n;
    if (x < 7u)
        r = r + 2u;
    return r + x;
}
