/* Found by expand-fuzz --isa avx2 (seed 8, program 6; reduced by hand).
   expand-fuzz: options vector-math=sleef

   Bug: with --vector-math sleef, remainderf and fmodf became calls of SLEEF 3.5's, which expand/vecmath.py
   listed as exact (verified with a bound of 0 ULP); they are NaN where |x / y| is large
   (remainderf(-6916907.24f, -9.62964972e-35f): SLEEF NaN, libm -0.0; fmodf(0x1.f2126cp+125,
   0x1.52ed48p-90) too), so a program branching on the result took the other branch.

   Fix: expand/vecmath.py: fmod and remainder are not among SLEEF's functions (calls per lane, exact). */
#include <stdint.h>
#include <math.h>
#include "fuzz_log.h"

float f(float x, float z)
{
    float r = remainderf(x, z);
    if (r > fmodf(-6916907.24f, z))
        return (float)log_i32(1, 1);
    return fmodf(x, z) + r;
}
