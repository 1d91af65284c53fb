/* Found by expand-fuzz --isa avx2 (seed 2026, program 1531, minimized).
   expand-fuzz: isa avx2

   Bug: the uniform ?: became a plain `if (0) { cond = 0u / 0u; } else ...` in the vector code,
   and GCC 12 warns (-Werror=div-by-zero) about a division in an `if (0)` arm that it does not
   warn about in the unevaluated arm of `0 ? 0u / 0u : 0u` (the original program had
   `(v2 - v2) != 0 ? ~v2 / (v2 - v2) : ~v2`, which GCC folds the same way). Fixed: a uniform
   `if` that assigns one uniform variable on each side prints as `x = (c) ? a : b;`. */
#include <stdint.h>
#include <math.h>
#include "fuzz_log.h"

int f(void)
{
    unsigned v2 = 0u;
    v2 = (0u != 0 ? 0u / 0u : 0u);
    return (int)v2;
}
