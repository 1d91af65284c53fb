/* Found by expand-fuzz --isa altivec (seed 20261129, program 1527; minimized by expand-fuzz).
   expand-fuzz: isa altivec

   Not an expand bug: a wrong reference. qemu-ppc64le (7.2 and 10.0) rounds the scalar int64 -> float
   conversion xscvsxdsp twice, through double: for u4.i = INT64_MIN + 2^38 + 256 (the bits of the
   negative subnormal u4.d) the scalar f gave 0xdf000000, the vector code (xvcvsxdsp) the right
   0xdeffffff (POWER rounds once; so does x86). GCC picks xscvsxdsp for power8 when the integer sits
   in a vector register. Fix: --verify builds AltiVec's scalar reference for POWER7 (fcfids only),
   emit/altivec.py REFERENCE_CFLAGS. */
#include <stdint.h>
#include "fuzz_log.h"

float f(int y, float n)
{
    union { double d; int64_t i; } u4 = { 0 };
    u4.i = (int64_t)(uint64_t)((n > (-1.0f) && n < 18446744073709551616.0f) ? n : 0);
    u4.d *= log_f64(2, (double)y);
    if (u4.d != u4.d) {
        u4.i = 0x7ff8000000000000L;
    }
    log_f32(3, (1.0f * (uint64_t)u4.i));
    return ((float)u4.d + (float)u4.i);
}
