/* Found by expand-fuzz --isa avx512 (seed 2026, program 2026-860), minimized, then reduced by hand.
   expand-fuzz: isa avx512

   Not a bug of expand: with -mavx512f and -frounding-math (FUZZ_CFLAGS), GCC 12 at -O2 compiles
   `(0.0f + (uint64_t)v5) != (float)h(v5, 100)` (v5 = -7: 2^64 against 2^32) as equal. AVX-512 has
   one instruction per unsigned-to-float conversion (vcvtusi2ssq, vcvtusi2ssl); -frounding-math
   keeps them unfolded, and RTL CSE/GCSE, which see the constant -7 with no mode, merge the two.
   The scalar reference skipped `return log_u32(7, 0u)` for every x >= 1; the vector code was right.
   Fixed in the fuzzer: the scalar reference was compiled at -O0 (for a while). Since the
   vector function keeps the uniform scalar condition, GCC miscompiled it there as well (CI run of
   2026-11-26, the first on a CPU with AVX-512): on AVX-512 every file is now compiled with
   -fno-rerun-cse-after-loop -fno-gcse (FUZZ_ISA_CFLAGS), the reference at -O2 again among them. */
#include <stdint.h>
#include <math.h>
#include "fuzz_log.h"

static unsigned h(int a, int site)
{
    return (unsigned)a + (unsigned)site * 0u;
}

unsigned f(float x)
{
    int v4 = (int)((x > (-2147483649.0f) && x < 2147483648.0f) ? x : 0);
    int v5 = (-7);
    int64_t v6 = 0L;
    if (0 >= v4) {
        return 0u;
    } else {
        if ((0.0f + (uint64_t)v5) != ((0u >= 0L) ? (float)h(v5, 100) : 0.0f)) {
            return log_u32(7, 0u);
        }
    }
    if (log_i32(8, v5) != ((v4 >> 1) == ((((double)x + (double)v6) > (int64_t)((uint64_t)9L - (uint64_t)v6)) ? (int)v6 : v4))) {
    }
    return ((((3795133591u << 15) + (unsigned)v4) + (unsigned)v5) + (unsigned)v6);
}
