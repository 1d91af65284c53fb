/* Found by expand-fuzz --isa neon (seed 900, program 3; minimized, then reduced by hand).
   expand-fuzz: isa neon

   Bug: on NEON the vector code does not compile with -Wall -Werror:
     vshlq_u32(x, vdupq_n_s32(-((unsigned long)1)));
     error: overflow in conversion from 'long unsigned int' to 'int32_t' changes value from
     '18446744073709551615' to '-1' [-Werror=overflow]
   (the uniform shift count '1UL & 31' is folded to '(unsigned long)1').

   Diagnosis: emit/neon.py, Neon.shift() with a uniform count: a right shift is a vshlq by the
   negated count, and by() negates the count in its own type, here unsigned long, before the
   implicit conversion to int32_t/int64_t. Convert first, then negate: -(int32_t)(c)
   (-(int64_t)(c) for 64-bit lanes). The other ISAs take the count as it is. */
#include <stdint.h>
#include "fuzz_log.h"

unsigned f(unsigned x)
{
    return x >> (1UL & 31);
}
