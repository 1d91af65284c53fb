/* Found by expand-fuzz --isa avx2 (seed 20261201, program 77; minimized by expand-fuzz).
   expand-fuzz: isa avx2

   Bug: the vector code did not compile: -Werror=unused-but-set-variable on staying20, then on
   active20. predication/exit_tests.py dropped the head test of a loop no lane leaves but by its
   uniform exit (an empty body under the mask of y != 0), keeping the copy staying = active and the
   loop mask's assignment, which nothing read any more. Fix: the copy goes (its reads read the loop
   mask), and a loop mask nothing reads loses its assignments (a uniform if in the loop, whose mask
   guards only a division in its condition, does not count: the mask has a lane on there). */
#include <stdint.h>
#include "fuzz_log.h"

int f(int y)
{
    if (y != 0) {
        for (int i7 = 0; i7 < 6; i7++) {
        }
    }
    return 0;
}
