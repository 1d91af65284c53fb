/* Found by expand-fuzz --isa avx512 (seed 20261126, program 1651, 32 lanes; as generated, with
   lanes=x4 here so that it runs on AVX2 hosts: 32 lanes too).
   expand-fuzz: isa avx2
   expand-fuzz: options lanes=x4 boscc=off frontend=clang

   Not a bug of the output: with 32 lanes, many lanes call h's log_f32(site + 1, -1.5e30f) at tagged
   sites with one value, and verify's call-log search (which lane each vector record belongs to) tried
   the lanes from lane 0 for every record; it ran out of its step budget (a valid attribution existed,
   found by an exhaustive search offline) and reported 'calls: DIFFER'. The search now tries first the
   lane after the previous record's when that record has the same site modulo the tag step (the vector
   code calls a site's lanes in increasing order within one round) and finds it at once
   (expand/check/harness.c vfy_log_first). */
#include <stdint.h>
#include "fuzz_log.h"

static uint16_t h(int a, double b, int site)
{
    (void)site;
    double hv = b;
    log_f32(site + 1, (-1.5e30f));
    hv = b;
    if ((80 >= (unsigned)a) && (b > (((b > (-1.0) && b < 4294967296.0) ? (unsigned)b : 0) >> 4))) {
        if (((b > (-1.0) && b < 4294967296.0) ? (unsigned)b : 0) != 90) {
            return (uint16_t)(int64_t)a;
        }
        if ((((a ^ a) != a) || ((((int64_t)((uint64_t)(int64_t)((b > (-9223372036854775808.0) && b < 9223372036854775808.0) ? b : 0) << (((hv > (-129.0) && hv < 128.0) ? (signed char)hv : 0) & 63)) <= ((char)((b > (-1.0) && b < 128.0) ? b : 0) ^ (int64_t)a)) ? 6 : (int)((b > (-2147483649.0) && b < 2147483648.0) ? b : 0)) < (a ^ a))) || ((((double)a / hv) >= (int)((unsigned)a << 5)) || ((1 - (float)hv) != (int64_t)((b > (-9223372036854775808.0) && b < 9223372036854775808.0) ? b : 0)))) {
            return (uint16_t)(int64_t)((b > (-9223372036854775808.0) && b < 9223372036854775808.0) ? b : 0);
        }
        if ((b > (-2147483649.0)) && (b < 2147483648.0)) {
            a = (int)b;
        } else {
            a = (int)((hv > (-2147483649.0) && hv < 2147483648.0) ? hv : 0);
        }
    } else {
        hv = (double)a;
        if (((~(unsigned)((b > (-1.0) && b < 4294967296.0) ? b : 0)) * ((unsigned)((b > (-1.0) && b < 4294967296.0) ? b : 0) * 96605377u)) <= ((unsigned)a + a)) {
            return (uint16_t)((((float)hv + (float)a) > (-1.0f) && ((float)hv + (float)a) < 65536.0f) ? ((float)hv + (float)a) : 0);
        }
    }
    return (uint16_t)((b > (-1.0) && b < 65536.0) ? b : 0);
}

float f(int x, unsigned y, int z)
{
    int64_t v1 = (int64_t)y;
    for (int64_t i2 = ((int)(15u + (unsigned)v1) & 7); i2 > 0; i2--) {
        v1 = (134217728L >> ((uint8_t)(y - 781188232u) & 63));
        switch ((unsigned)(uint16_t)(uint64_t)z % 5u) {
        case 3: {
            int64_t t3 = (~(int64_t)((uint64_t)(v1 >> ((int8_t)z & 63)) - (uint64_t)v1));
            z = (((((~v1) >= 62) ? (int)y : x) != 0 && !((int)t3 == (-2147483647 - 1) && (((~v1) >= 62) ? (int)y : x) == (-1))) ? (int)t3 / (((~v1) >= 62) ? (int)y : x) : (int)t3);
            y = (y != 0 ? y % y : y);
            y = (~y);
            break;
        }
        default: {
            y |= (unsigned)h((-0x47c6d00b), (double)x, 100 + 1024 * (int)i2);
            log_f32(1 + 1024 * (int)i2, 255.0f);
            break;
        }
        case 5:
        case 1: {
            break;
            x = ((x != 0 && !((int)((unsigned)z * (unsigned)z) == (-2147483647 - 1) && x == (-1))) ? (int)((unsigned)z * (unsigned)z) % x : (int)((unsigned)z * (unsigned)z));
            y = (~(~(y * z)));
            break;
        }
        case 7:
        case 0: {
            for (unsigned i4 = 0; i4 < (unsigned)((int)(int64_t)((uint64_t)i2 - (uint64_t)v1) & 3); i4++) {
                y = 31u;
                x |= (((int)((unsigned)x << ((int16_t)y & 31)) != 0 && !(((int)v1 >> ((uint16_t)z & 31)) == (-2147483647 - 1) && (int)((unsigned)x << ((int16_t)y & 31)) == (-1))) ? ((int)v1 >> ((uint16_t)z & 31)) / (int)((unsigned)x << ((int16_t)y & 31)) : ((int)v1 >> ((uint16_t)z & 31)));
            }
        }
        }
        z = (((((uint64_t)y * (uint64_t)i2) - (uint64_t)0x3fffffL) < (uint64_t)x) ? (int)((unsigned)0 - (unsigned)log_i32(2 + 1024 * (int)i2, z)) : (int)((unsigned)0 - (unsigned)(-(-6737))));
    }
    log_u64(3, (~((uint64_t)y ^ (uint64_t)v1)));
    return ((v1 + (float)v1) + (float)v1);
}
