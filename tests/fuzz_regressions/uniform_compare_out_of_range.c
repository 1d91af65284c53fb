/* Found by expand-fuzz --isa sse2 (seed 20240601, programs 29 and 180: the CI run), reduced by hand.
   expand-fuzz: isa sse2
   expand-fuzz: options uniform=n

   Bug: inlining h with the constant -128 and propagating its result left the uniform comparison
   (int64_t)(unsigned char)n < (int64_t)(uint64_t)(int8_t)-128 in the output, which is always false;
   GCC's -Wextra says so (-Wtype-limits, an error under -Werror). Fixed in expand/passes/fold.py
   (fold_range_compare, also applied by copyprop's substitution). */
#include <stdint.h>
#include "fuzz_log.h"

static uint64_t h(int8_t a)
{
    return (uint64_t)a;
}

unsigned f(unsigned z, int64_t n)
{
    unsigned r = z;
    if (z > 7u)
        r = ((unsigned char)(int)n < (int64_t)h(-128)) ? 52u : z + 1u;
    if ((int64_t)(unsigned short)n != -1)
        r = r ^ 3u;
    return r;
}
