/* Found by expand-fuzz --isa avx2 (seed 8, program 6; reduced by hand).
   expand-fuzz: options vector-math=sleef

   Bug (in verify's harness): "'vfy_ulp_seen' defined but not used" [-Werror=unused-function] compiling
   the harness. A library call that SLEEF has (nextafterf) puts verify in ULP mode, whose helpers the
   harness uses for float results only; this function returns an int.

   Fix: expand/check/harness.c marks the ULP helpers unused. */
#include <stdint.h>
#include <math.h>
#include "fuzz_log.h"

int f(float x, float y)
{
    return nextafterf(x, y) > 1.5f ? log_i32(1, 1) : 0;
}
