/* Found by expand-fuzz --isa sse2 (seed 20261126, program 143; reduced by hand).
   expand-fuzz: isa sse2
   expand-fuzz: options vector-math=none

   Bug: the vector code did not compile with -Wall -Werror ("division by zero"). 'h' is inlined
   under the varying 'x > 1.0f', so its 'a' (assigned there) and the test on it are if-converted; the
   copy propagation after if-conversion then puts 0.1f in place of 'a'. The uniform division under
   the mask was printed 'any(m) ? 100 / (int)((uint8_t)0.1f) : 0': GCC folds the divisor to 0 and
   warns, although no lane is on there (the scalar test excluded the zero).

   Fix: emit/printer.py, FunctionPrinter.scalar(): under a partial mask, a uniform integer division
   whose divisor reads no variable (but constant globals) divides by 'any(m) ? divisor : 1'. */
#include <stdint.h>

static int h(float a)
{
    return (uint8_t)a != 0 ? 100 / (uint8_t)a : 7;
}

int f(float x)
{
    if (x > 1.0f)
        return h(0.1f);
    return 0;
}
