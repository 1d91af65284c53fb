/* Found by expand-fuzz --isa rvv (program 129 of a helper's run on branch shiftfix; reduced by hand).
   expand-fuzz: isa rvv

   Bug: the output does not compile with Clang's -Wall -Werror: 'x = (int)(unsigned)x;' printed as
   'x = x;' (-Wself-assign): the vector printer drops casts that do not change a vector's bits, and
   dce drops only an assignment that is x = x in the IR. Fix: expand/passes/fold.py folds an integer
   round trip through as many bits or more ('(int)(unsigned)x' is x); dce then drops the statement. */
#include <stdint.h>
#include "fuzz_log.h"

int f(int x, int y)
{
    x = (int)(unsigned)x;
    if (y > 3) {
        x = (int)(long)x + (int)(unsigned char)y;
        y = (int)(unsigned)y;
    }
    return x + y;
}
