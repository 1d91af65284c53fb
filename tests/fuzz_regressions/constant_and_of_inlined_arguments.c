/* Found by expand-fuzz --isa sve (seed 20261129, program 415; reduced by hand).
   expand-fuzz: isa sve

   Bug: the vector code does not compile with -Wall -Wextra -Werror, for two reasons, both after the
   helper is inlined with constant arguments:
   - 'b >= 0 && b < 64 ? t1 << b : 0' with b = -1681667529114695919 became '0 && 1 ? t1 << b : 0':
     fold took '&&' and '||' for never constant, so the dead arm stayed and the table's shift helper
     got the count as an int (-Werror=overflow);
   - '(_Bool)(float)a > (_Bool)b' with b constant became '(int)(_Bool)(float)a > 1', always false
     (-Werror=bool-compare): fold's range of a _Bool was that of an 8-bit integer.
   Fix: expand/passes/fold.py folds '&&' and '||' whose left operand decides, or whose both operands are
   constant (C's short circuit), and gives a _Bool the range 0..1. */
#include <stdint.h>
#include "fuzz_log.h"

static int64_t h(int a, int64_t b)
{
    int t1 = a + 1;
    if (!((_Bool)(float)a > (_Bool)b)) {
        return (b >= 0 && b < 64) ? (int64_t)((uint64_t)(int64_t)t1 << b) : 0L;
    }
    if (b < 0 || a > 100) {
        t1 = t1 * 3;
    }
    return log_i64(1, (int64_t)t1 + b);
}

int64_t f(int x)
{
    return h(x, -1681667529114695919L) + h(x, 5L);
}
