/* Found by expand-fuzz --isa avx2 (seed 20261203, program 69; minimized by expand-fuzz); the same on
   avx512 since its small tables (14f5392).
   expand-fuzz: isa avx2 avx512

   Bug: the vector code did not compile: -Werror=unused-but-set-variable on m_not_1_le_cond. The read of
   T1 at an index that differs per lane, under that mask, is a small table (emit/avx2.py, avx512.py:
   the table in registers, permutes), which did not read the mask; dead code elimination had kept the
   mask for the read (a read that may fault is computed under its mask). Fix: the small-table read
   takes index 0 in inactive lanes, as a read per lane does. */
/* expand-fuzz: options boscc=off */
#include <stdint.h>
#include <math.h>
#include "fuzz_log.h"

static const unsigned T1[8] = { 0u, 3056300315u, 656813087u, 0x7fffffffu, 0x85126a33u, 2u, 2147483647u, 8u };

static int64_t h(uint64_t a, int site)
{
    (void)site;
    if (1L <= ((a < 32) ? (T1[((int)(unsigned short)((4294967296.0 > (-1.0) && 4294967296.0 < 65536.0) ? 4294967296.0 : 0) & 7)] << a) : 0u)) {
        a = 0UL;
    } else {
        return (int64_t)T1[((int)(unsigned char)(uint8_t)a & 7)];
    }
    return 0L;
}

unsigned short f(void)
{
    if ((int)h(0UL, 100) == 0) {
        log_i64(1, 0L);
    }
    return 0;
}
