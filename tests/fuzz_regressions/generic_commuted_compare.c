/* Found by expand-fuzz --isa generic (seed 20240601, program 79).
   expand-fuzz: isa generic

   Bug: the generic output did not compile with -Wall -Werror: GCC takes the vector comparison
   (v1 * x) < (x * v1) for a self-comparison (-Wtautological-compare); the scalar code does not warn.

   Fix: emit/generic.py turns that one warning off in its output (the comparison is what the source says).
*/
/* expand-fuzz program 20240601-79 */
#include <stdint.h>
#include "fuzz_log.h"

static int h(int64_t a, int site)
{
    double hv = (((double)a * (int)a) + (-1.0));
    if ((log_u64(site + 1, (uint64_t)a) > a) && (hv > (double)0x2a1e90a11c4f3e0fL)) {
        if (((1e-30f + (float)a) * (-(-8.14920285e+11f))) != (((float)hv / (float)a) / (float)hv)) {
            log_i32(site + 2, ((((int)a != 0 && !((int)((hv > (-2147483649.0) && hv < 2147483648.0) ? hv : 0) == (-2147483647 - 1) && (int)a == (-1))) ? (int)((hv > (-2147483649.0) && hv < 2147483648.0) ? hv : 0) % (int)a : (int)((hv > (-2147483649.0) && hv < 2147483648.0) ? hv : 0)) >> ((-(unsigned)((hv > (-1.0) && hv < 4294967296.0) ? hv : 0)) & 31)));
        } else {
            return (((int)((unsigned)(int)a - (unsigned)(int)a) | ((int)a >> ((int)((hv > (-2147483649.0) && hv < 2147483648.0) ? hv : 0) & 31))) & (int)((unsigned)(int)((hv > (-2147483649.0) && hv < 2147483648.0) ? hv : 0) << (35184372088832UL & 31)));
            a = (int64_t)((uint64_t)(int64_t)((uint64_t)0 - (uint64_t)((int)a & a)) + (uint64_t)(int64_t)((hv > (-9223372036854775808.0) && hv < 9223372036854775808.0) ? hv : 0));
        }
        a |= log_i64(site + 3, (int64_t)((uint64_t)0 - (uint64_t)a));
        a = ((int)((hv > (-2147483649.0) && hv < 2147483648.0) ? hv : 0) | (a & (~a)));
    }
    a &= (((((~(uint64_t)((hv > (-1.0) && hv < 18446744073709551616.0) ? hv : 0)) != (3.5f / 340.525394f)) ? 0x1724a7b7030341a1L : a) != 0 && !((a & a) == (-9223372036854775807L - 1) && (((~(uint64_t)((hv > (-1.0) && hv < 18446744073709551616.0) ? hv : 0)) != (3.5f / 340.525394f)) ? 0x1724a7b7030341a1L : a) == (-1L))) ? (a & a) / (((~(uint64_t)((hv > (-1.0) && hv < 18446744073709551616.0) ? hv : 0)) != (3.5f / 340.525394f)) ? 0x1724a7b7030341a1L : a) : (a & a));
    log_i64(site + 4, (~14L));
    return ((!(log_u64(site + 5, 511UL) <= ((uint64_t)((hv > (-1.0) && hv < 18446744073709551616.0) ? hv : 0) >> ((uint64_t)((hv > (-1.0) && hv < 18446744073709551616.0) ? hv : 0) & 63)))) ? (int)((unsigned)0 - (unsigned)(int)((hv > (-2147483649.0) && hv < 2147483648.0) ? hv : 0)) : (int)a);
}

unsigned f(uint64_t x)
{
    uint64_t v1 = (x != 0 ? (x >> (x & 63)) % x : (x >> (x & 63)));
    float v2 = ((float)x * log_f32(1, 2.0f));
    log_i32(2, ((int)((unsigned)(int)v1 << ((int64_t)v1 & 31)) ^ ((int)((v2 > (-2147483649.0f) && v2 < 2147483648.0f) ? v2 : 0) >> (x & 31))));
    log_f32(3, v2);
    x = v1;
    v1 = 7856183314245100410UL;
    v1 = x;
    if (((((v2 * v2) < (v2 + v2)) ? 3552912012u : (unsigned)x) - ((double)x - (double)v1)) > (((double)v1 * (double)v2) * (-0.00015496740510209005))) {
        for (int i3 = 0; i3 < (((int)((v2 > (-2147483649.0f) && v2 < 2147483648.0f) ? v2 : 0) >> 17) & 7); i3++) {
            v1 = (uint64_t)(((v2 - 8388608.0f) > (-1.0f) && (v2 - 8388608.0f) < 18446744073709551616.0f) ? (v2 - 8388608.0f) : 0);
            v2 = ((65535.5f * v2) - (v2 + v2));
        }
        x |= (((int)x <= (int)((v2 > (-2147483649.0f) && v2 < 2147483648.0f) ? v2 : 0)) ? (x ^ x) : (uint64_t)(int)((v2 > (-2147483649.0f) && v2 < 2147483648.0f) ? v2 : 0));
        if ((int)v1 > ((((-35927.9257f) / 65535.5f) != (v2 - v2)) ? ((int)((v2 > (-2147483649.0f) && v2 < 2147483648.0f) ? v2 : 0) ^ 7) : ((int)v1 | 8192))) {
            float t4 = (((int64_t)((v2 > (-9223372036854775808.0f) && v2 < 9223372036854775808.0f) ? v2 : 0) < log_f64(4, (double)(int)v1)) ? v2 : (-(1083.47223f - 1)));
            if (((x * t4) <= (t4 / v2)) || ((((double)t4 / (-227136541102.30185)) <= (double)v1) || ((2147483648.0 + (double)t4) != ((-0.0) / (double)x)))) {
                t4 = (float)(int)(((-(double)x) > (-2147483649.0) && (-(double)x) < 2147483648.0) ? (-(double)x) : 0);
                log_i32(5, (int)((unsigned)0 - (unsigned)(int)((unsigned)(int)v1 + (unsigned)(int)((t4 > (-2147483649.0f) && t4 < 2147483648.0f) ? t4 : 0))));
                return (unsigned)v1;
            }
            v2 = (((x + v2) - (t4 - (float)v1)) + (float)h(((int64_t)x >> (3L & 63)), 100));
        } else {
            unsigned t5 = ((unsigned)((v2 > (-1.0f) && v2 < 4294967296.0f) ? v2 : 0) | (((v2 - (-2.03962919e+10f)) <= ((int)x * v2)) ? ((unsigned)x >> ((int64_t)((v2 > (-9223372036854775808.0f) && v2 < 9223372036854775808.0f) ? v2 : 0) & 31)) : (unsigned)((v2 > (-1.0f) && v2 < 4294967296.0f) ? v2 : 0)));
            v1 = x;
            v1 = log_u64(6, 0xee52d5c25d7200f2UL);
            return (t5 * log_i32(7, (int)((v2 > (-2147483649.0f) && v2 < 2147483648.0f) ? v2 : 0)));
        }
    } else {
        x = log_u64(8, (((uint64_t)((v2 > (-1.0f) && v2 < 18446744073709551616.0f) ? v2 : 0) ^ 0x646ff718cc648affUL) ^ (unsigned)v1));
        if (!(!((x | v1) > (x & x)))) {
            v1 = ((x * x) << (x & 63));
        }
        v1 += ((uint64_t)h((int64_t)((v2 > (-9223372036854775808.0f) && v2 < 9223372036854775808.0f) ? v2 : 0), 200) & v1);
        if (((int64_t)((uint64_t)(int64_t)v1 * (uint64_t)(int64_t)x) < (int64_t)((uint64_t)(int64_t)x * (uint64_t)(int64_t)v1)) && (!((unsigned)((v2 > (-1.0f) && v2 < 4294967296.0f) ? v2 : 0) < ((unsigned)((v2 > (-1.0f) && v2 < 4294967296.0f) ? v2 : 0) * (int)v1)))) {
            v2 = v2;
            if ((-((double)v2 + (double)v1)) <= (double)v2) {
                return (unsigned)v1;
            }
        }
    }
    if (((6u + (int)((v2 > (-2147483649.0f) && v2 < 2147483648.0f) ? v2 : 0)) >> 16) < (unsigned)x) {
        v2 = ((float)log_i32(9, (int)x) + ((float)x + (v2 - v2)));
        log_u32(10, ((unsigned)x != 0 ? (unsigned)(((double)x > (-1.0) && (double)x < 4294967296.0) ? (double)x : 0) % (unsigned)x : (unsigned)(((double)x > (-1.0) && (double)x < 4294967296.0) ? (double)x : 0)));
    }
    v2 = ((-v2) / (((1.0f * 2147483647) != ((unsigned)x & (int64_t)v1)) ? v2 : 0.416808938f));
    return ((((unsigned)x * 10u) + (unsigned)v1) + (unsigned)((v2 > (-1.0f) && v2 < 4294967296.0f) ? v2 : 0));
}

