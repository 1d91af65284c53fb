/* Found by expand-fuzz --isa rvv (seed 20261127, program 108; minimized by expand-fuzz).
   expand-fuzz: isa rvv

   Bug: a uniform conversion of a double to int under an if whose test no lane passes (the value,
   200561141380.8, is out of range, which is why the test fails) was printed as scalar C that runs
   anyway, splatted and then dropped by the select. Out of range the conversion is undefined in C:
   Clang 16 at -O1 folded the function into `ret poison` (garbage on riscv64, and in the sse2 and
   generic outputs compiled by Clang for x86). Fix: emit/printer.py runs a uniform float-to-int
   conversion under a partial mask only if some lane is on (as it does uniform divisions). */
#include <stdint.h>
#include "fuzz_log.h"

static const int T1[32] = { 0, 0x163847e0, 12, 1357175219, 9, 255, (-1), 2147483647, (-2147483647 - 1), 7, 4096, (-5), (-1), (-1871694496), 1, (-4), 7, 3, (-6), 127, 9, 8388608, 256, 2047, (-2), 5, (-1), (-1), 2072512956, (-1272240102), 0, 7 };

float f(void)
{
    union { float f; int32_t i; } u5 = { 0 };
    if (((((double)T1[((int)65535 & 31)] > (2147483648.0 + (-0.0037818568564106855))) ? (-8745863811.1339874) : 200561141380.80444) > (-2147483649.0)) && ((((double)T1[((int)65535 & 31)] > (2147483648.0 + (-0.0037818568564106855))) ? (-8745863811.1339874) : 200561141380.80444) < 2147483648.0)) {
        u5.i = (int)(((double)T1[((int)65535 & 31)] > (2147483648.0 + (-0.0037818568564106855))) ? (-8745863811.1339874) : 200561141380.80444);
    }
    return (1.0f + u5.f);
}
