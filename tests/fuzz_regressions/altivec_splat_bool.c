/* Found by expand-fuzz --isa altivec (seed 20261129, program 325; reduced by hand).
   expand-fuzz: isa altivec
   expand-fuzz: options uniform=n

   Bug: powerpc64le-linux-gnu-gcc 12.2 crashes (internal compiler error in gimplify_expr) on
   vec_splats((int)(uint8_t)((_Bool)u4)): a conversion to _Bool is a comparison with 0, which the
   splat of altivec_splat_expression.c already passes through a helper, but the table took
   '(_Bool)u4' for a plain cast of a name.
   Fix: emit/altivec.py _splat_reg splats anything with a _Bool conversion as a helper's parameter. */
#include <stdint.h>
#include "fuzz_log.h"

int f(int x, int n)
{
    double d = (double)n * 0.5;
    _Bool y = (_Bool)d;
    if (x > 3) {
        y = (_Bool)(x & 1);
    }
    return x + (int)y;
}
