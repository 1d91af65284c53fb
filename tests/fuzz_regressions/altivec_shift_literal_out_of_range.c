/* Found by expand-fuzz --isa altivec (seed 20261129, program 498; minimized by expand-fuzz).
   expand-fuzz: isa altivec
   expand-fuzz: options uniform=out linear=i

   Bug: the vector code does not compile: vec_sl(x, vec_splats(240360702021331223u)), "invalid parameter
   combination" (the literal is an unsigned long long, the lanes 32-bit). The shift in h is never reached
   (its count test fails), but the table printed the inlined constant count as it was.
   Fix: emit/altivec.py takes a literal count modulo the lane width, as vec_sl/vec_sr/vec_sra take any count. */
#include <stdint.h>
#include <math.h>
#include "fuzz_log.h"

static const int64_t T1[8] = { 6L, 12L, 2L, 8L, (-3L), (-0x75a88593de82c841L), 6843691636397244300L, 0L };

static unsigned h(int64_t a, int64_t b, int site)
{
    (void)site;
    return ((a >= 0 && a < 32) ? (((unsigned)T1[0] != 0 ? (unsigned)T1[(b & 7)] % (unsigned)T1[0] : (unsigned)T1[(b & 7)]) << a) : 0u);
}

uint16_t f(int64_t *out, char y, int i)
{
    int t7 = 0;
    if (y != 0) {
        t7 = (int)h(0x355eec8f5f1e917L, 0L, 200);
    }
    out[i] = (t7 | 0L);
    return 0;
}
