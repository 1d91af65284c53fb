/* Found by expand-fuzz --isa avx2 (seed 777, program 123; minimized).

   Bug (-Werror=tautological-compare): the inlined helper's result ((T1[15] & 1) << 1) compared with
   1 by its caller is a comparison GCC knows is always false ("bitwise comparison always evaluates to
   false"): a left shift leaves its low bits 0. expand/passes/fold.py folds it (as it did y & C and y | C). */
/* expand-fuzz: may-refuse shared-store */
#include <stdint.h>
#include <math.h>
#include "fuzz_log.h"

static const unsigned short T1[32] = { 0, 0, 0, 1, 0, 41617, 65535, 699, 26639, 61577, 14762, 0, 1, 11485, 52062, 4550, 1, 1, 12231, 0, 0, 0, 65535, 0, 36674, 0, 0, 1, 65535, 65535, 35995, 65535 };

static uint64_t h(unsigned a, double b, int site)
{
    (void)a;
    (void)b;
    (void)site;
    return (((uint64_t)T1[15] & 1UL) << 1);
}

int f(float x)
{
    x = (((unsigned)h(0u, 0.0, 200) == 1) ? asinhf(0.0f) : x);
    return 0;
}
