/* Found by expand-fuzz --isa rvv (seed 20261127, program 5; reduced by hand).
   expand-fuzz: isa rvv

   Bug: the output does not compile with Clang's -Wall -Werror: 'u7 = u7;' (explicitly assigning a
   variable to itself, -Wself-assign), copied from the source as a vector statement. GCC's -Wall has no
   such warning. Fix: expand/passes/dce.py drops an assignment of a variable to itself. */
#include <stdint.h>
#include "fuzz_log.h"

double f(double x, int n)
{
    double u7 = x;
    u7 = u7;
    if (n > 3) {
        u7 = u7 * 2.0;
    }
    return u7;
}
