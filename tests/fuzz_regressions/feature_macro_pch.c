/* Found by expand-fuzz --isa avx2 (seed 8, program 9; reduced by hand).

   expand-fuzz: options vector-math=none

   Bug (in verify's use of precompiled headers, not in the vector code): "implicit declaration of
   function 'nextupf'" compiling the harness. The program (and so the output) defines _GNU_SOURCE
   before including <math.h>; the precompiled standard headers forced in ahead of the vector file had
   already read <features.h> without it, so math.h declared no nextupf.

   Fix: expand/check/verify.py: no precompiled header where the vector file defines a feature-test macro. */
#define _GNU_SOURCE
#include <stdint.h>
#include <math.h>
#include "fuzz_log.h"

float f(float x)
{
    return nextupf(x) + roundevenf(x);
}
