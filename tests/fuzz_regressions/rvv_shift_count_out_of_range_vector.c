/* Written by hand after the note of bd16ddf (Clang makes poison of what C leaves undefined, and the vector
   code computes in lanes the scalar code does not), not found by expand-fuzz (its shift counts were
   always masked, `x << (n & 31)`, before it tested them as here).
   expand-fuzz: isa rvv

   Bug: the vector code shifts every lane, inactive ones too, and the generic table printed the shift as
   C's operator on a vector: `(_Exp_v4u32)y << n` with n = 40, under a mask no lane is on (the test
   `n < 32` fails). A shift by the width or more (or by a negative count) is undefined in C, and Clang
   makes poison of it, which the and/or of the select does not stop: clang-16 -O2 folded the function
   into `ret poison` (every input wrong on rvv, and in the generic output compiled by clang-16 for x86).
   Fix: emit/generic.py (shift_count) masks a count not known to be in range, `y << (n & 31)`, the same
   value wherever the scalar code's shift was defined (emit/printer.py count_in_range decides). (The
   second if keeps Clang from inlining the select helper early, which hid the poison.) */
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
