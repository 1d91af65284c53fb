/* Found by expand-fuzz --isa sve (seed 20261127, program 48; also on neon and sse2; minimized).
   expand-fuzz: isa sse2

   Not a bug of the output: errno DIFFERS (scalar unchanged, vector ERANGE) for y = -8.5e37. y is dead,
   so the value of exp10f(y) is; GCC at -O2 (its conditional dead call elimination, tree-call-cdce)
   calls exp10f only when y is above its overflow bound, so the scalar reference never saw the ERANGE
   glibc sets for an underflow; the vector code calls exp10f as the C abstract machine does. verify
   compiles the scalar reference with -fno-tree-builtin-call-dce now (expand/check/verify.py). */
#define _GNU_SOURCE
#include <stdint.h>
#include <math.h>
#include "fuzz_log.h"

int64_t f(float y)
{
    int v1 = 0;
    y = (exp10f(y) + 0.0f);
    v1 = ((y != 0) ? 0 : 0);
    return (int64_t)v1;
}
