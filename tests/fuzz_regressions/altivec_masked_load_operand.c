/* Found by expand-fuzz --isa altivec (seed 20261129, program 467; minimized by expand-fuzz, then its
   select's arms made to differ, 0u : 0u -> 1u : 0u, which fold now takes for one value).
   expand-fuzz: isa altivec
   expand-fuzz: options uniform=out linear=i

   Bug: powerpc GCC 12.2 crashed (ICE in gimplify_expr) on the vector code. A read of out[i] under a
   mask, with i consecutive, was printed as a ?: of vectors, `(on == 0xfu ? vec_xl(0, &out[idx]) :
   _exp_build1_f32(...))`, inside an overloaded builtin's operands (vec_mul). Fix: emit/printer.py's
   gather names that read once per statement (`__vector float out_at = ...;`), as per-lane reads are. */
#include <stdint.h>
#include "fuzz_log.h"

unsigned f(int i, float *out)
{
    return (((i != 0) && ((0.0f * out[i]) <= 0.0f)) ? 1u : 0u);
    return 0u;
}
