/* Found by expand-fuzz --isa avx2 (seed 20261131, program 114; minimized by expand-fuzz).
   expand-fuzz: isa avx2 sse4.1 neon

   Bug: the vector code did not compile ('T1_idx' undeclared). A uniform ?: whose arms both read
   T1[i & 7] at a varying index became a uniform if/else; the index named in the then arm was carried
   (FunctionPrinter.carried: an index gang declared once for a run of plain statements) into the else
   arm, where it is not declared. Fix: no name is carried into a block or out of it. */
/* expand-fuzz: options linear=i */
#include <stdint.h>
#include <math.h>
#include "fuzz_log.h"

static const short T1[8] = { 32718, 1, 32767, (-5074), (-32768), (-15081), 7154, (-32768) };

float f(int i)
{
    int v1 = 0;
    unsigned v2 = (unsigned)(signed char)((char)v1 != 0 ? (0 != (uint16_t)T1[(i & 7)]) / (char)v1 : (0 != (uint16_t)T1[(i & 7)]));
    return (float)v2;
}
