/* Found by expand-fuzz (seed 7, program 98: the harness died of SIGILL; reduced by hand).

   Bug: a guarded division whose operands are uniform is executed even where the guard is false,
   here always: the vector code computes 'cond = _mm_set1_epi32((int32_t)(1000 / d));' with d == 0
   before blending, which is undefined behaviour; gcc -O2 compiles the whole vector function to a
   trap (ud2, SIGILL) and at best it is a SIGFPE.

   Diagnosis: lowering turns the ?: (whose arm may fault) into if/else, and if-conversion runs both
   arms; for a varying divisor emit/printer.py substitutes a safe divisor under the block mask
   (select(cur_mask, b, 1)), but a uniform division is printed as plain scalar C by
   FunctionPrinter.scalar() with no such guard. A uniform '/' or '%' executed under a varying mask
   needs a safe divisor too (e.g. 'd != 0 ? d : 1', and INT_MIN / -1 avoided), or to be computed
   only when some lane is active. */
#include <stdint.h>
#include "fuzz_log.h"

int f(int x)
{
    int d = 0;
    return x > 0 ? x : (d != 0 ? 1000 / d : 1000);
}
