/* Found by expand-fuzz --isa altivec (seed 20261129, program 1630; minimized by expand-fuzz).
   expand-fuzz: isa altivec

   Bug: powerpc GCC 12.2 miscompiles vec_cmpeq(x, vec_sel(x, x, m)) for float x: it compares a
   vector of zeros with itself, so a NaN lane compares equal and log_u32 saw 1 where the scalar code
   gives 0. The select came from the source's `c ? (float)x : (float)x`. Fix: expand/passes/fold.py
   folds `c ? e : e` to `e` (a test without calls: no errno to keep). */
#include <stdint.h>
#include <math.h>
#include "fuzz_log.h"

int f(unsigned y, double x)
{
    log_u32(5, (((float)x == ((y != 0) ? (float)x : (float)x)) ? 1u : 0u));
    return 0;
}
