/* Found by expand-fuzz (seed 7, programs 29, 61, 68 and many more; minimized).

   Bug: the vector code does not compile with -Wall -Werror:
     error: variable 'm_x_ne_0' set but not used [-Werror=unused-but-set-variable]

   Diagnosis: 'x = 0.0f' is a dead store to a parameter (x is not read afterwards). expand/dce.py
   does not sweep it (or the printer keeps it) and, because the statement carries the mask of its
   block, eliminate_dead() counts 'm_x_ne_0' as used. But the printer blends only where the old value
   can still be read, which here it cannot, so 'x = _mm_set1_ps(0.0f);' never reads the mask: the
   mask is computed and never used. Either dead stores to parameters should be swept like those to
   locals, or a statement's mask should count as used only when the printer will read it (a blend,
   a masked call, a masked store or division). */
#include <stdint.h>
#include "fuzz_log.h"

float f(float x)
{
    if (x != 0) {
        x = 0.0f;
    }
    return 0.0f;
}
