/* Found by expand-fuzz --isa sse2 (seed 20240601, program 120: the CI run), reduced by hand.
   expand-fuzz: isa sse2

   Bug: inlining h with a constant count made its test '(b < 64)' the constant 0, but the ?: kept both
   arms, and the vector code computed the arm C never evaluates: a shift by 0x9e2f06f0f07f8737, which
   SSE2's 64-bit shift helper takes as an int (GCC -Woverflow, an error under -Werror). Fixed in
   expand/passes/fold.py: a ?: whose test is a constant is the arm it picks. */
#include <stdint.h>
#include "fuzz_log.h"

static uint64_t h(uint64_t a, uint64_t b)
{
    return (b < 64) ? (a << b) : 0UL;
}

uint64_t f(uint64_t x, double d)
{
    uint64_t r = x;
    if (d > 0.5)
        r = h(x, 0x9e2f06f0f07f8737UL) + 1u;
    return r;
}
