/* Found by expand-fuzz (seed 100, program 28: a log call made for lanes whose condition was false;
   minimized to 'if ((-(double)x) == x) log_f64(4, 0.0);', then reduced by hand).

   Bug: on SSE2 and SSE4.1, '-x == x' is true in every lane (it should be only for x = +-0): the
   vector code is right as C, but gcc 12.2 miscompiles it at -O1 and above. The negation is
   _mm_xor_ps(x, _mm_set1_ps(-0.0f)) and gcc folds '(a ^ m) == a' into 'm == 0' although the ==
   is a floating-point comparison (cmpeqps): -0.0f == 0.0f, so all lanes compare equal. An opaque
   mask (asm barrier) does not help; AVX2, AVX-512, NEON, AltiVec and generic are not affected.

   Diagnosis: emit/sse41.py (and emit/sse2.py), Isa.unop('-', f32/f64): negate without a bitwise
   xor that gcc can pair with the comparison, e.g. flip the sign bit with an integer add,
   _mm_castsi128_ps(_mm_add_epi32(_mm_castps_si128(x), _mm_set1_epi32((int)0x80000000u)))
   (_mm_add_epi64 with 0x8000000000000000 for f64), which is bit-exact for zeros and NaNs too. */
#include <stdint.h>
#include "fuzz_log.h"

int f(float x)
{
    return -x == x;
}
