/* Found by expand-fuzz --isa avx2 (seed 6, program 23; minimized).
   expand-fuzz: isa avx2
   expand-fuzz: loop-sites 1

   Bug (in verify, not in the vector code): 176,959 mismatches "calls: DIFFER" on right vector code.
   The call log gave each vector record of a site to the lane that had had the fewest records of that
   site so far: right when every lane still calling at a site calls in each round, wrong in an inner
   loop whose trip count differs per lane (lane 1 makes two calls per outer iteration, lane 3 one:
   lane 1's second call went to lane 3).

   Fix: expand/check/harness.c (the call log): the records are matched to each lane's scalar records
   in order; at the sites a loop reaches (verify(call_log_loose=...): expand-fuzz names them,
   'loop-sites') by site and value, with a search over the lanes that could have made a record. */
#include <stdint.h>
#include "fuzz_log.h"

unsigned f(unsigned x, double z, int y)
{
    for (int64_t i2 = 0; i2 < 7; i2++) {
        for (short i4 = 0; i4 < (y & 3); i4++) {
            log_f64(1, z);
        }
    }
    return x;
}
