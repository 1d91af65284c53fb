/* Found by expand-fuzz --isa altivec (seed 20261129, program 1169; minimized by expand-fuzz on sse2).
   expand-fuzz: isa sse2

   Bug (of the check, on every GCC table): errno differed, ERANGE in the scalar code and unchanged in
   the vector code, for y very negative. exp's value is dead; the vector code calls it for errno alone,
   '(void)exp(y_lanes[lane])', and GCC at -O2 keeps such a call only where the argument may overflow.
   verify built the scalar reference with -fno-tree-builtin-call-dce (the call runs, as in C) and the
   vector file without it. Fix: expand/check/verify.py builds both with it.
   (dead_exp10f_underflow_errno.c is the same on the scalar side.) */
#include <stdint.h>
#include <math.h>
#include "fuzz_log.h"

int16_t f(double y, double z)
{
    double v3 = z;
    z = exp(y);
    return ((v3 > (-32769.0) && v3 < 32768.0) ? (int16_t)v3 : 0);
}
