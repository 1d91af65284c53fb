/* Found by expand-fuzz --isa avx2 (seed 20261202, program 173; minimized by expand-fuzz).
   expand-fuzz: isa avx2

   Bug: wrong results (silently). An early return in a divergent loop under a condition that is
   uniform once the loop counter is a scalar (predication/counters.py): the scalar-exit rewrite took
   its `if (!(1 < i8)) { retval = 1u; goto done; }` for the loop's plain `break` test, so every lane
   left as if by a break, without `retval = 1u`, and ran the code after the loop (the log_u32 call,
   retval = v5). Fix: only an exit block with nothing to do whose edge is the loop's `break` is
   rewritten so. */
#include <stdint.h>
#include "fuzz_log.h"

unsigned f(void)
{
    unsigned v5 = 0u;
    int64_t i8 = 0;
    do {
        i8++;
        if (!(1 < (int64_t)(uint8_t)i8)) {
            return 1u;
        }
    } while (i8 < 0);
    v5 = ((0L >= log_u32(12, 0u)) ? 0u : 0u);
    return v5;
}
