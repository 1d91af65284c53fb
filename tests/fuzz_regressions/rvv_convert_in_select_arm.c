/* Written by hand while closing the shift hole of bd16ddf's note (its conversion fix left this one open),
   not found by expand-fuzz.
   expand-fuzz: isa rvv

   Bug: the arms of a ?: whose test differs per lane are computed in every lane, and a uniform arm is
   scalar C with no mask around it: `_exp_splat_i32((int32_t)(int)d)` with d = 1e30, where the scalar code
   converts only when `x > 3 && d < 100.0`, which never holds. A conversion out of range is undefined in
   C; Clang makes poison of it, and clang-16 -O2 folded the function into garbage (every input wrong on
   rvv, and in the generic output compiled by clang-16 for x86). bd16ddf's guard (run only if some lane
   is on) covers a conversion under a mask, not this: no mask says which lanes take the arm. Fix:
   emit/printer.py (speculated, arm_mask) runs it only if some lane takes the arm, whose mask it names:
   `arm = <x > 3 && d < 100.0>; ... (_exp_mask_any(arm) ? (int)d : 0)`. */
#include "fuzz_log.h"

int f(int x)
{
    double d = 1e30;
    int r = (x > 3 && d < 100.0) ? (int)d : x;
    if (x < 7)
        r = r + 2;
    return r;
}
