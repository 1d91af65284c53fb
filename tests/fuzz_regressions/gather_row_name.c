/* Found by expand-fuzz --isa avx2 (seed 6, program 15; minimized, then reduced by hand).

   Bug: the vector code does not compile: "expected identifier or '(' before numeric constant". A gather
   from a row of a two-dimensional table, T1[row][j] with j varying, declares its index vector under a
   name made from the text of the row, cut at its last '.': the '.' of the literal 0.0 in the row's
   index gave "__m256i 0) + 0)) & 3]_idx = ...".

   Fix: emit/printer.py: the index vector is named after the table (or the last member) the access
   reads, taken from the IR, not from text. */
#include <stdint.h>
#include "fuzz_log.h"

static const signed char T1[4][8] = { { -126, 1, 0, 127, 1, 127, -128, -76 }, { -128, 0, 0, 127, -8, 93, 1, -78 },
                                      { 1, -128, -128, -105, -128, 1, 49, -82 }, { -128, 1, 127, -128, 0, 124, 127, -128 } };

int f(float y, int x)
{
    return T1[((0.0 == 0.0) + x) & 3][((y > -1.0f && y < 128.0f) ? (int)y : 0) & 7];
}
