/* Found by expand-fuzz --isa avx2 (seed 8, program 15; minimized).
   expand-fuzz: isa avx2
   expand-fuzz: options uniform=n

   Bug: the vector code does not compile with -Wall -Werror: "bitwise comparison always evaluates to
   false" [-Wtautological-compare]. A switch on 'n & 3' with a 'case 5' is legal C that gcc does not
   warn about; expand turns the switch into comparisons, and '((int)n & 3) == 5' is one gcc warns
   about.

   Fix: expand/passes/fold.py: '(y & C) == c' and '(y | C) == c' that the bits of C and c decide are
   folded (to 0 for ==, 1 for !=).
   expand-fuzz: loop-sites 1 */
#include <stdint.h>
#include "fuzz_log.h"

uint64_t f(unsigned n, int x)
{
    switch ((int)n & 3) {
    case 5:
    case 6: {
        for (unsigned i4 = 0; i4 < (unsigned)x; i4++) {
            log_i32(1, x);
        }
        break;
    }
    }
    switch (x | 4) {
    case 1: x++; break;
    case 12: x--;
    }
    return (uint64_t)x;
}
