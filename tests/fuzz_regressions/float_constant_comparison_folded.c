/* Found by expand-fuzz --isa sse2 (seed 20261130, program 1370; minimized by expand-fuzz).
   expand-fuzz: isa sse2

   Bug: the vector code did not compile with -frounding-math: -Werror=bool-compare. GCC saw
   (int)(char)(1.0f > -1.0f && 1.0f < 128.0f ? 1.0f : 0) > 1 as a truth value compared with 1 (42 in the
   program as generated). Fix: expand/passes/fold.py folds comparisons of floating constants (exact in
   every rounding mode) and the in-range conversion of one to an integer: the test is 1, the value 1. */
#include <stdint.h>
#include "fuzz_log.h"

int64_t f(unsigned z)
{
    z = (0u | (((char)((1.0f > (-1.0f) && 1.0f < 128.0f) ? 1.0f : 0) > 1) ? 0 : 1));
    log_i64(1, (int64_t)z);
    return 0L;
}
