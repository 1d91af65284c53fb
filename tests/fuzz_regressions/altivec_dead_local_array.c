/* Found by expand-fuzz --isa altivec (seed 20261129, program 1370; minimized by expand-fuzz).
   expand-fuzz: isa altivec
   expand-fuzz: options linear=i

   Bug: the vector code did not compile: -Werror=unused-but-set-variable on a2. x's new value is
   dead, so dce dropped the read of a2, but kept a2's initializing stores: it dropped only dead
   assignments to variables. Fix: expand/passes/dce.py drops a store to a local array that only
   subscripts name (no pointer, address or call sees it) when no later statement reads the array. */
#include <stdint.h>
#include "fuzz_log.h"

float f(int i, unsigned x)
{
    unsigned short a2[8] = { 0 };
    x = ((0.0 == (double)a2[(i & 7)]) ? x : 0u);
    return 0.0f;
}
