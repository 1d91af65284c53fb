/* Found by expand-fuzz --isa avx512 (seed 2026, program 146; minimized).
   expand-fuzz: isa avx512

   Bug: GCC 12 crashed compiling the AVX-512 output (internal compiler error: in simplify_subreg,
   at simplify-rtx.cc:7351, during RTL pass split1). Everything here folds to constants, and the
   constant `u4.i = 1L` read as a double was printed as a union-punned compound literal
   `((union { int64_t from; double to; }){ 1L }.to)`, splatted and blended under a constant
   __mmask16: GCC's splitter chokes on it.

   Fix: expand/cprint.py prints a constant reinterpreted as a float as an exact hex float literal
   (0x0.0000000000001p-1022) and a float constant reinterpreted as an integer as that integer; NaN
   bit patterns keep the union.
*/
#include <stdint.h>
#include "fuzz_log.h"

static unsigned h(unsigned a, int site)
{
    a = (a != 0 ? (((((double)a == 0) ? 0.0f : 1.0f) <= 0.0f) ? a : 0xeea98678u) % a : (((((double)a == 0) ? 0.0f : 1.0f) <= 0.0f) ? a : 0xeea98678u));
    return ((a << (0x20000000u & 31)) & (a | a));
}

float f(unsigned x, float y, unsigned z)
{
    union { double d; int64_t i; } u4 = { 0 };
    if (0UL == h(1u, 100)) {
        u4.i = 1L;
    }
    return (float)u4.d;
}
