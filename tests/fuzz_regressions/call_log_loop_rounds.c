/* Found by expand-fuzz --isa sse2 (seed 20261126, program 299; minimized).
   expand-fuzz: isa sse2
   expand-fuzz: options boscc=off uniform=n

   Not a bug of the output: verify's call log gave a record of a tagged site (8 + 1024 * i7, the loop
   counter in the site) to the lowest lane whose next record had that site. Lane 0 (i7 from 4) and
   lane 3 (i7 from 3) both call site 3080, lane 3 in the first round of the vector loop and lane 0 in
   the second: lane 3's record went to lane 0, and both lanes "differed". Tagged sites are now loose
   (matched by site and value, expand/check/fuzz.py loop_sites_of). */
#include <stdint.h>
#include <math.h>
#include "fuzz_log.h"

uint64_t f(int64_t y, short n, short x, uint64_t z)
{
    (void)y;
    (void)n;
    signed char v2 = 1;
    double v3 = (double)z;
    float v4 = (float)v3;
    int v5 = ((v4 > (-2147483649.0f) && v4 < 2147483648.0f) ? (int)v4 : 0);
    for (unsigned char i7 = ((int)(unsigned)v5 & 7); i7 > 0; i7--) {
        v2 = (signed char)(0 + (int16_t)log_i32(8 + 1024 * (int)i7, (int)(int16_t)(1 * x)));
    }
    return (z + (uint64_t)v2);
}
