/* Found by expand-fuzz --isa altivec (seed 20240601, programs 14, 17, 22, 56 and 196: the CI run;
   program 22 minimized).
   expand-fuzz: isa altivec

   Bug (under qemu-ppc64le 7.2): 'return: DIFFERS' for z = 6.9999999999999991 and the like. The
   vector code converts every lane, the ones the range check fails too (C leaves those undefined),
   and a NaN edge input in the register's first lane made qemu's xvcvdpuxds (vec_ctu of doubles)
   give 0 in the lane after it, an active one: the bug Highway works around in its PR #1919, which
   emit/altivec.py already avoided for the signed converts.

   Fix: emit/altivec.py, _unsigned_nan_safe(): NaN lanes are zeroed before vec_ctu, which gives them
   the 0 POWER hardware gives. */
#include <stdint.h>
#include "fuzz_log.h"

static const unsigned char T1[4][8] = { { 117, 0, 0, 95, 1, 141, 1, 252 }, { 1, 0, 255, 1, 0, 255, 1, 125 }, { 0, 1, 1, 0, 0, 0, 0, 149 }, { 255, 25, 255, 0, 255, 61, 0, 255 } };

double f(double z, int64_t x)
{
    (void)x;
    double v1 = z;
    int v3 = (int)T1[0][((int)(signed char)((v1 > (-1.0) && v1 < 18446744073709551616.0) ? (uint64_t)v1 : 0) & 7)];
    return (double)v3;
}
