/* Found by expand-fuzz --isa sse2 (seed 20261130, program 229; minimized by expand-fuzz).
   expand-fuzz: isa sse2

   Bug: the vector code did not compile: -Werror=overflow on a guarded (unsigned short)((float)(-3L)),
   which fold left as it was (it folded only a literal's conversion). Fix: expand/passes/fold.py
   evaluates floating constant expressions that are exact in every rounding mode (float_value): a
   conversion of one to an integer type is its integral part, or 0 where C leaves it undefined. */
#include <stdint.h>
#include <math.h>
#include "fuzz_log.h"

unsigned f(void)
{
    unsigned short v1 = 0;
    switch (0) {
    default: {
        if (((float)(-3L) > (-1.0f)) && ((float)(-3L) < 65536.0f)) {
            v1 = (unsigned short)(float)(-3L);
        }
    }
    /* fall through */
    case 5: {
    }
    }
    return (unsigned)v1;
}
