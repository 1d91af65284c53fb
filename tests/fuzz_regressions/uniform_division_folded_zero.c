/* Found by expand-fuzz --isa avx2 (seed 20261126, program 820; minimized).
   expand-fuzz: isa avx2

   Bug: a uniform integer division under a partial mask runs only when some lane is on
   (any(m) ? a % d : 0), and a divisor that is a constant expression was also guarded
   (any(m) ? d : 1), but (int)((unsigned)i1 - (unsigned)i1) reads a variable: GCC folded it to 0
   and failed -Wdiv-by-zero (an error under -Werror) though no lane runs the division.
   Fixed in emit/printer.py (_divisor_tested): every such divisor but a nonzero literal is guarded. */
#include <stdint.h>
#include "fuzz_log.h"

static int h(int a, int site)
{
    (void)a;
    (void)site;
    for (int i1 = 0; i1 < 0; i1++) {
        if (0 == (((int)((unsigned)i1 - (unsigned)i1) != 0 && !(0 == (-2147483647 - 1) && (int)((unsigned)i1 - (unsigned)i1) == (-1))) ? 0 % (int)((unsigned)i1 - (unsigned)i1) : 0)) {
            return 0;
        }
    }
    return 0;
}

int f(void)
{
    return h(0, 100);
    return 0;
}
