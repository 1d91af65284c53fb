/* Found by expand-fuzz --isa avx2 (seed 20261126, program 648), reduced by hand.
   expand-fuzz: isa avx2
   expand-fuzz: options uniform=n

   Bug: a uniform condition in a mask is a scalar test, (cond ? mask : 0), printed by the IR's C
   printer with minimal parentheses: ((n != 3) != (n + 1)) came out as n != 3 != n + 1, which is
   the same C but GCC's -Wparentheses (an error under -Werror) asks for parentheses around a
   comparison inside a comparison. Fixed in expand/ir/cprint.py (_needs_parens). */
#include "fuzz_log.h"

int f(int x, int n)
{
    int r = 0;
    if (x > 0) {
        if (((n != 3) != (n + 1)) && x < 100)
            r = 1;
    }
    return r;
}
