/* Found by expand-fuzz --isa altivec (seed 5000: 8 of 60 programs; minimized).
   expand-fuzz: isa altivec

   Bug: powerpc64le-linux-gnu-gcc 12.2 crashes (internal compiler error in gimplify_expr) on
   vec_splats of any expression with a comparison or ?:, here
   vec_splats((float)(0u >= (unsigned int)((int)v2) ? 0.0f : 0.0f)).
   Fix: emit/altivec.py splat() passes anything but a plain name or literal through a helper
   function, so vec_splats only ever sees a parameter. */
#include <stdint.h>
#include "fuzz_log.h"

float f(void)
{
    unsigned v2 = 0u;
    return ((0u >= (int)v2) ? 0.0f : 0.0f);
    return 0.0f;
}
