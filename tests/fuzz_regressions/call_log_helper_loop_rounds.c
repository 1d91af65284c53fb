/* Found by expand-fuzz --isa avx2 (seed 20261126, program 558; minimized).
   expand-fuzz: isa avx2

   Not a bug of the output: the call log's loop rounds again (call_log_loop_rounds.c), in the helper.
   Its loop's call has the site 'site + 3 + 262144 * i2', which loop_sites_of did not read as a
   tagged site, so site 103 (h is called with site 100) was not loose: lanes whose i2 starts apart
   call one site in different rounds of the vector loop, and the records went to the wrong lanes
   ("calls: DIFFER", the same values in another lane). loop_sites_of now adds, for each tagged site
   of the helper, the helper's call sites plus its offset (expand/check/fuzz.py _helper_call_sites). */
#include <stdint.h>
#include <math.h>
#include "fuzz_log.h"

static float h(uint64_t a, int site)
{
    (void)site;
    int hv = (0 | (short)a);
    for (int i2 = ((int)(int64_t)a & 7); i2 > 0; i2--) {
        uint16_t t3 = (uint16_t)log_i32(site + 3 + 262144 * i2, (int)(uint16_t)(int64_t)hv);
        a = (uint64_t)t3;
    }
    return 0.0f;
}

int64_t f(uint64_t *p)
{
    float v7 = 0.0f;
    v7 = h((*p), 100);
    return (int64_t)((v7 > (-9223372036854775808.0f) && v7 < 9223372036854775808.0f) ? v7 : 0);
}
