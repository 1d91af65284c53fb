/* Found by expand-fuzz --isa sse2 (seed 20261130, program 476; minimized by expand-fuzz, then
   given back the select it came from, as GCC rejects the scalar v3 > v3 too).
   expand-fuzz: isa sse2

   Bug: the vector code did not compile: -Werror=tautological-compare on (v3 > v3) (in the program as
   generated: v3 > (c ? v3 : v3), once fold made c ? x : x x). Fix: expand/passes/fold.py folds an
   integer comparison of an expression with itself (no calls, nothing volatile) to 0 or 1. */
#include <stdint.h>
#include "fuzz_log.h"

unsigned f(int y)
{
    int64_t v3 = 0L;
    double v4 = 0.0;
    v4 = ((v3 > ((y != 0) ? v3 : v3)) ? 0.0 : 1.0);
    return (unsigned)((v4 > (-1.0) && v4 < 4294967296.0) ? v4 : 0);
}
