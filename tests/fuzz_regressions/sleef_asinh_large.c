/* Found by expand-fuzz --isa sse2 (seed 20261130, program 1363; minimized by expand-fuzz).
   expand-fuzz: isa sse2
   expand-fuzz: options vector-math=sleef

   Bug: --vector-math sleef: SLEEF 3.5's asinhf is infinite beyond 1.84e19 (asinhf(2e19) is 45.1), as
   its documentation says: its 1.0-ULP bound holds only below; acosh and the double ones (1.34e154)
   alike. Fix: expand/vecmath.py takes asinh and acosh from SLEEF no more (per-lane libm calls, or
   another library of the list). */
#include <stdint.h>
#include <math.h>
#include "fuzz_log.h"

float f(float x)
{
    return asinhf(x);
}
