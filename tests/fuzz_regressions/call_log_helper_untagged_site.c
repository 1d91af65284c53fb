/* Found by expand-fuzz --isa neon (seed 20261126, program 1651; minimized; also on sse2 and avx2).
   expand-fuzz: isa sse2

   Not a bug of the output: the helper's call log_f32(site + 1, ...) runs at site 101 + 1024 * i2 when
   f calls it in a loop with a tagged site, and lanes whose counters start apart reach one such site
   in different rounds. Verify's call log took only the helper's tagged sites (site + K + N * i) as
   loose, so it gave those records to the wrong lanes and reported a different call order. Every
   site + K of the helper is loose at each of its call sites now (expand/check/fuzz.py loop_sites_of). */
#include <stdint.h>
#include "fuzz_log.h"

static uint16_t h(int a, double b, int site)
{
    (void)a;
    (void)b;
    (void)site;
    log_f32(site + 1, 0.0f);
    return 0;
}

float f(int x, unsigned y, int z)
{
    for (int64_t i2 = (x & 7); i2 > 0; i2--) {
        y = (unsigned)h(0, 0.0, 100 + 1024 * (int)i2);
        z = ((((uint64_t)y - (uint64_t)0x3fffffL) < (uint64_t)x) ? log_i32(2 + 1024 * (int)i2, z) : 0);
    }
    return 0.0f;
}
