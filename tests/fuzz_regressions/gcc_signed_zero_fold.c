/* Found by expand-fuzz --isa avx2 (seed 2026, program 1165; also generate('u479')), reduced by hand.
   expand-fuzz: isa avx2

   Not a bug of expand: GCC 12 folds `fabs(0.0) + -(double)x` and `(z - z) - (double)x` to
   `-(double)x` (x unsigned, even at -O0), which is -0.0 for x = 0 where IEEE arithmetic gives
   +0.0. The scalar reference was wrong and the fuzzer reported a mismatch. Fixed in the fuzzer:
   every file of a fuzz check is compiled with -frounding-math (FUZZ_CFLAGS), under which GCC keeps
   additions of zero. The vector code is right either way. */
#include <stdint.h>
#include <math.h>
#include "fuzz_log.h"

double f(unsigned x, unsigned z)
{
    double a = fabs(0.0) + (-(double)x);
    double b = ((double)z - (double)z) - (double)x;
    log_f64(1, a);
    return b;
}
