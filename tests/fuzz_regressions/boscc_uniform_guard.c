/* Found by expand-fuzz --isa avx2 (seed 3000, programs 21, 23, 68, 76, 77, 79; minimized).
   expand-fuzz: isa avx2

   Bug: on AVX2 (where BOSCC guards regions by default) the vector code does not compile:
     if ((!_mm256_testz_si256(m_1, _mm256_set1_epi32(-1)))) {
         x = _mm256_sub_epi32(_mm256_setzero_si256(), x);
     }
     error: 'm_1' undeclared (first use in this function)
   The same on AVX-512 (seed 4000: 5 of 100 programs, e.g. 'uint64_t v2 = 0UL; if (1) { v2 = ...; }')
   and with --boscc all on SSE4.1. Another shape: 'if (0L > 0.0) { } else { return (int64_t)x; }'
   ('m_not_0_gt_00' undeclared).

   Diagnosis: the condition is uniform (here the constant 1u != 0), and its mask is never declared
   or assigned (dead-code elimination drops it: the guarded assignment does not blend, so since
   "masks count as used only where printed" nothing reads m_1), but predication/boscc.py still wraps
   the region in a Guard that tests m_1. Either the Guard's mask must count as a use in
   expand/dce.py (declared and assigned), or a region whose condition is uniform should be guarded
   by the scalar condition itself (or not at all). */
#include <stdint.h>
#include "fuzz_log.h"

float f(unsigned x)
{
    float v1 = (float)x;
    if (1u != 0) {
        x = (-x);
    }
    return v1;
}
