/* Found by expand-fuzz --isa rvv (seed 20261127, programs 43, 74, 115; 70 and 179 never ended; reduced
   by hand).
   expand-fuzz: isa rvv

   Bug: the generic table converted float lanes to integers with __builtin_convertvector in every lane,
   the scalar code's range test (`(v > -1.0f && v < 256.0f) ? (unsigned)v : 0u`) a select after it. Out
   of range a conversion is undefined in C, and Clang makes poison of it, which the and/or of a select
   does not stop: the divisor below is poison in every lane, the division undefined, and Clang 16 at -O1
   folds the whole function into `ret poison` (garbage on riscv64 and on x86 alike; a loop whose trip
   count was such a value never ended). GCC gives the hardware's value and the select drops it. Fix:
   emit/generic.py converts only in-range lanes (_exp_cvt_f32_u32: the others convert 0.0 and then get
   a value of the table's choosing, saturated on RVV). */
#include <stdint.h>
#include "fuzz_log.h"

unsigned f(unsigned x)
{
    float v = -9.41249271e+11f;
    unsigned r = 3u;
    if (x > 100u) {
        r = x % (1u + ((v > -1.0f && v < 256.0f) ? (unsigned)v : 0u));
    }
    v = (float)x;
    return r + (unsigned)((v > -1.0f && v < 4294967296.0f) ? v : 0);
}
