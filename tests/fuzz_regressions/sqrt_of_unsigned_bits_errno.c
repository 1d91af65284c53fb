/* Found by expand-fuzz --isa sve (seed 20261127, program 489; also on neon and sse2; reduced by hand).
   expand-fuzz: isa sse2
   expand-fuzz: options vector-math=none

   Bug: errno DIFFERS (scalar EDOM, vector unchanged). u3.i = -(uint64_t)z puts the bits of -inf (z = 2^52)
   into the double u3.d, and sqrt(-inf) sets EDOM; expand took the double of an unsigned integer's bits
   as never negative (an unsigned integer is not, but its top bit is the sign of the double) and
   tracked no errno for the sqrt. Fix: expand/passes/global_writes.py never_negative: the bits of a
   signed integer that is never negative, or masked below the top bit. */
#include "fuzz_log.h"
#include <math.h>
#include <stdint.h>
uint64_t f(float z)
{
    union { double d; uint64_t i; } u3;
    u3.i = -(uint64_t)((z > (-1.0f) && z < 18446744073709551616.0f) ? z : 0);
    u3.d = sqrt(u3.d);
    if (u3.d != u3.d) {
        u3.i = 0x7ff8000000000000UL;
    }
    return u3.i;
}
