/* Found by expand-fuzz --isa avx2 (seed 6, programs 33 and 34; minimized).

   Bug: the vector code does not compile with -Wall -Wextra -Werror: "unused parameter 'z'"
   [-Wunused-parameter]. The scalar function says '(void)z;' (or uses a parameter only where the
   vector code needs no value of it); the statement is dropped, and so is the only use.

   Fix: emit/printer.py, FunctionPrinter.function(): '(void)p;' for each parameter the vector code
   does not mention. */
#include <stdint.h>
#include "fuzz_log.h"

int64_t f(int16_t z, int x)
{
    (void)z;
    return (int64_t)log_i32(1, x);
}
