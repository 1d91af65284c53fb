/* Found by expand-fuzz --isa avx2 (seed 6, program 1; minimized).
   expand-fuzz: isa avx2
   expand-fuzz: options uniform=tab linear=i

   Bug: the vector code does not compile with -Wall -Werror: "unused variable 'tab_idx'". The argument
   of a call made once per lane is a gather (tab[i & 127]); emit/printer.py first tried the call as a
   vector math library call, printing its arguments (the gather's index vector, declared on a line of
   its own), then found no library function 'log_u64' and printed the call per lane, arguments again.

   Fix: FunctionPrinter.vector_math_call() asks the library before printing the arguments, and takes
   back what it printed when the library has no vector call for the gang after all. */
#include <stdint.h>
#include "fuzz_log.h"

float f(const unsigned *tab, int i)
{
    uint64_t v3 = log_u64(1, (uint64_t)tab[(i & 127)]);
    return (float)v3;
}
