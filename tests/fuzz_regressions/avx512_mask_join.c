/* Found by expand-fuzz --isa avx512 (seed 2026, program 146, minimized; also seed 20240601 program 35).
   expand-fuzz: isa avx512

   Bug: GCC 12 crashed on the AVX-512 output (internal compiler error: in simplify_subreg, during
   RTL pass split1). Everything folds to constants, and the two 8-lane masks of the double compares
   were joined as (__mmask16)((__mmask16)m0 | (__mmask16)m1 << 8).

   Fix: emit/avx512.py joins per-register masks with _mm512_kunpackb/_mm512_kunpackw.
*/
/* expand-fuzz program 2026-146 */
#include <stdint.h>
#include "fuzz_log.h"

static unsigned h(unsigned a, int site)
{
    a = (((((double)a == 0) ? 0.0f : 1.0f) <= 0.0f) ? 0u : 0xeea98678u);
    return ((a << (0x20000000u & 31)) & (a | a));
}

float f(unsigned x, float y, unsigned z)
{
    union { double d; int64_t i; } u4 = { 0 };
    if ((0u != 0) || (0UL == h(1u, 100))) {
        u4.i = 1L;
    }
    return (float)u4.d;
}
