/* Found by expand-fuzz --isa sse2 (seed 20261130, program 767; minimized by expand-fuzz).
   expand-fuzz: isa sse2

   Bug: errno differed: the vector code called powf(0, -1) lane by lane, which sets ERANGE, where GCC
   (and Clang) compile powf(x, -1.0f) to 1.0f / x, even at -O0 and with errno: no call, no errno.
   Fix: expand/passes/fold.py turns pow(x, y) for y = -1, 0, 1, 2 and pow(1, y) into what they
   compile to (1 / x, 1, x, x * x, 1). */
#include <stdint.h>
#include <math.h>
#include "fuzz_log.h"

float f(int x)
{
    (void)x;
    union { float f; int32_t i; } u4;
    u4.f = powf(0.0f, (-1.0f));
    if (u4.f != u4.f) {
        u4.i = 0x7fc00000;
    }
    return 0.0f;
}
