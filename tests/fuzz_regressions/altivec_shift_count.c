/* Found by expand-fuzz --isa altivec (seed 20240601, program 43).
   expand-fuzz: isa altivec
   expand-fuzz: loop-sites 5,7,10

   Bug: powerpc GCC 12 crashed (internal compiler error in gimplify_expr) on the uniform shift count
   vec_sl(v2, vec_splats((unsigned int)((int64_t)(c > -9.2e18 && c < 9.2e18 ? c : 0) & 31))).

   Fix: emit/altivec.py splats a shift count that is an expression as a helper parameter.
*/
/* expand-fuzz program 20240601-43 */
#include <stdint.h>
#include "fuzz_log.h"

static int h(uint64_t a, float b, int site)
{
    int hv = (int)a;
    log_i64(site + 1, (int64_t)hv);
    return ((hv != 0 && !(hv == (-2147483647 - 1) && hv == (-1))) ? hv % hv : hv);
}

unsigned f(unsigned x, float y, double z)
{
    uint64_t v1 = ((int)((y > (-2147483649.0f) && y < 2147483648.0f) ? y : 0) - (uint64_t)(int)((z > (-2147483649.0) && z < 2147483648.0) ? z : 0));
    unsigned v2 = 0x3ffffu;
    float v3 = ((y * (-0.75f)) * ((float)v2 * (float)v2));
    if (((v1 != log_u64(1, 0x25d0acc4a538539bUL)) || ((y - y) < ((-6.58072547e+11f) * 0.000496811057f))) && (!((int)v1 >= (int)((unsigned)0 - (unsigned)(int)x)))) {
        float t4 = (-265.044825f);
        log_i64(2, (int64_t)((z > (-9223372036854775808.0) && z < 9223372036854775808.0) ? z : 0));
        if (z < (2711639365771571452UL * ((int)v1 & 14321050620555534012UL))) {
            z = (z / z);
        } else {
            int64_t t5 = (int64_t)((uint64_t)(int64_t)(unsigned)h(v1, 1e-30f, 100) * (uint64_t)(int64_t)((y > (-9223372036854775808.0f) && y < 9223372036854775808.0f) ? y : 0));
            t5 = 17592186044416L;
            t5 = (t5 & t5);
        }
        if (!(((int)((unsigned)(int)((t4 > (-2147483649.0f) && t4 < 2147483648.0f) ? t4 : 0) + (unsigned)4096) > (~(int)x)) || ((v2 != 0 ? v2 % v2 : v2) < (v2 | (int)((v3 > (-2147483649.0f) && v3 < 2147483648.0f) ? v3 : 0))))) {
            int64_t t6 = (int64_t)((z > (-9223372036854775808.0) && z < 9223372036854775808.0) ? z : 0);
            if (!(((-x) <= (-y)) || (log_i32(3, (int)t6) < (int)((unsigned)0 - (unsigned)(int)t6)))) {
                log_f64(4, (((double)x - z) - (((t6 & 9) < (t4 + v3)) ? z : z)));
            }
            if ((t4 - (t4 + t4)) >= (-(-0.273819741f))) {
                for (int i7 = 0; i7 < ((~(int)((v3 > (-2147483649.0f) && v3 < 2147483648.0f) ? v3 : 0)) & 7); i7++) {
                    log_i32(5, (int)((unsigned)0 - (unsigned)i7));
                    v2 = (v2 << ((int64_t)(((-0.030205646328434317) > (-9223372036854775808.0) && (-0.030205646328434317) < 9223372036854775808.0) ? (-0.030205646328434317) : 0) & 31));
                    y = ((float)v2 * (v2 + 2726574559u));
                }
                if (y > (-t4)) {
                    return (((-x) ^ ((unsigned)((z > (-1.0) && z < 4294967296.0) ? z : 0) ^ 0x4000000u)) * ((int)((unsigned)(int)v2 + (unsigned)(int)x) ^ 255u));
                }
                t6 = (int64_t)(((z / 1e10) > (-9223372036854775808.0) && (z / 1e10) < 9223372036854775808.0) ? (z / 1e10) : 0);
                return ((~((int)((z > (-2147483649.0) && z < 2147483648.0) ? z : 0) | 32)) ^ ((unsigned)(int)v2 >> ((t6 ^ t6) & 31)));
            } else {
                return (v2 >> ((unsigned)h((((v1 * (int)x) != ((uint64_t)((t4 > (-1.0f) && t4 < 18446744073709551616.0f) ? t4 : 0) ^ v1)) ? v1 : v1), (v3 / v3), 200) & 31));
                log_i32(6, (int)((unsigned)((int)((v3 > (-2147483649.0f) && v3 < 2147483648.0f) ? v3 : 0) | (int)((t4 > (-2147483649.0f) && t4 < 2147483648.0f) ? t4 : 0)) << (t6 & 31)));
            }
            for (int i8 = 0; i8 < (0x2000000 & 7); i8++) {
                t6 = ((((unsigned)((v3 > (-1.0f) && v3 < 4294967296.0f) ? v3 : 0) >> (v1 & 31)) == ((unsigned)v1 - i8)) ? (int64_t)((uint64_t)t6 - (uint64_t)68719476736L) : (t6 & t6));
                v3 = (-(((x & (unsigned)((t4 > (-1.0f) && t4 < 4294967296.0f) ? t4 : 0)) < (v2 - v2)) ? y : v3));
                log_f32(7, ((16UL >= 2147483648.0) ? t4 : t4));
            }
            y = (-(((-744377.533f) - v3) * (t4 / 41.7578926f)));
        } else {
            if (!((int64_t)5u < (int64_t)((z > (-9223372036854775808.0) && z < 9223372036854775808.0) ? z : 0))) {
                log_u32(8, (unsigned)((t4 > (-1.0f) && t4 < 4294967296.0f) ? t4 : 0));
                log_f32(9, (y + 1e-30f));
                for (int i9 = 0; i9 < ((int)((unsigned)(-2) + (unsigned)(int)v2) & 7); i9++) {
                    x = (unsigned)(int)((unsigned)(int)((t4 > (-2147483649.0f) && t4 < 2147483648.0f) ? t4 : 0) + (unsigned)2115269568);
                    log_u64(10, (uint64_t)(((-2.81029506e-05f) > (-1.0f) && (-2.81029506e-05f) < 18446744073709551616.0f) ? (-2.81029506e-05f) : 0));
                    y = ((float)v2 - (x - t4));
                }
                v3 = (v3 / t4);
            } else {
                v2 -= (unsigned)h((v1 ^ 2UL), y, 300);
            }
        }
        return x;
    } else {
        v3 = ((float)(int64_t)((z > (-9223372036854775808.0) && z < 9223372036854775808.0) ? z : 0) - (y / ((x < (((((y * (int)v2) < (int64_t)v1) ? x : (unsigned)v1) < (-v2)) ? (int64_t)v2 : (int64_t)v1)) ? v3 : (float)z)));
        v2 ^= (unsigned)h(((((int64_t)((z > (-9223372036854775808.0) && z < 9223372036854775808.0) ? z : 0) >> 20) != (72057594037927935L >> 33)) ? v1 : v1), ((y >= v3) ? y : y), 400);
    }
    log_u64(11, ((v1 ^ (uint64_t)((y > (-1.0f) && y < 18446744073709551616.0f) ? y : 0)) * v1));
    z = (log_f64(12, (z / 2147483648.0)) + (-z));
    z += (-1350.0235063905493);
    y += (((log_u32(13, x) > (11u | (int)v2)) && ((1UL ^ v1) > (v1 ^ (uint64_t)v2))) ? ((v3 > (((uint64_t)(int64_t)v1 != (v1 != 0 ? v1 / v1 : v1)) ? (int64_t)v1 : (int64_t)v1)) ? (float)v2 : (-194060.421f)) : (3 * v3));
    if (((y / 6.35611768e+11f) < 0.247640718f) && (!((-2147483904.0) == ((((int64_t)((y > (-9223372036854775808.0f) && y < 9223372036854775808.0f) ? y : 0) ^ (-7449504092802848416L)) < (int64_t)v1) ? z : z)))) {
        return (((~15u) ^ (int)v1) << 28);
    }
    return (((v2 + (unsigned)v1) + v2) + (unsigned)((v3 > (-1.0f) && v3 < 4294967296.0f) ? v3 : 0));
}

