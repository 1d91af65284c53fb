/* Found by expand-fuzz --isa sse4.1 (seed 20261126, program 1418), reduced by hand.
   expand-fuzz: isa sse4.1

   Bug: z is dead, but the division's call of round runs once per lane (no vector round of a
   double on SSE4.1 here) and is kept for what a libm call may leave in errno; it was printed as
   `round(arg0_lanes[lane]);`, which GCC (taking round as having no effect) rejects under
   -Werror=unused-value. Fixed in emit/printer.py: a libm call whose value nothing reads is
   printed as `(void)round(...)`. */
#include <stdint.h>
#include <math.h>
#include "fuzz_log.h"

int f(double z, uint64_t x)
{
    z = (z * z) / round((double)x);
    return (int)(x >> 3);
}
