/* Found by expand-fuzz --isa avx2 (seed 20261126, program 1128; reduced by hand).
   expand-fuzz: isa avx2
   expand-fuzz: options lanes=x2

   Bug: the vector code did not compile with -Wall -Wextra -Werror: "comparison is always true due to
   limited range of data type [-Werror=type-limits]". a5 is a local array whose elements differ per
   lane, read at a uniform index under a mask (x > 1.0); emit/printer.py (array_row) guards such an
   index, which lanes that failed a bounds test may leave anything in, as
   a5[(unsigned long)(i) < 16u ? (i) : 0]. Here i is (int)(int8_t)v1 & 15 with v1 a _Bool: GCC narrows
   it to v1's type, 0 or 1, and sees the test is always true.

   Fix: array_row prints no guard for an index that is always in bounds (index_bound below the array's
   length; index_bound now knows a _Bool is at most 1). The guard's result was that index anyway: the
   code computes the same. */
#include <stdint.h>
#include "fuzz_log.h"

int64_t f(double x, int n)
{
    _Bool v1 = 0;
    unsigned short a5[16] = { 0 };
    a5[n & 15] = (unsigned short)n;
    int64_t r = 0;
    if (x > 1.0)
        r = a5[(int)(int8_t)v1 & 15];
    return r;
}
