/* Found by expand-fuzz --isa avx2 (seed 777, program 184; minimized).

   Bug (-Werror=bool-compare): isinff(...) == -1 (isinff is GCC's builtin, a comparison of the bits,
   0 or 1) printed as a comparison compared with -1, which GCC calls always false. expand/passes/fold.py
   folds a truth value compared with a constant other than 0 and 1. */
#include <stdint.h>
#include <math.h>
#include "fuzz_log.h"

float f(int8_t x)
{
    char t4 = 0;
    t4 = ((((isinff((float)0) != 0 && !(0 == (-2147483647 - 1) && isinff((float)0) == (-1))) ? 0 / isinff((float)0) : 0) <= 0) ? 0 : 0);
    t4 = ((x != 0) ? (char)(1 != 0 ? 0 / 1 : 0) : t4);
    return 0.0f;
}
