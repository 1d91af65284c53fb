/* sqrtf for mathlib's vector libm (ours, not glibc code): the correctly rounded square root
   (round to nearest) computed digit by digit on the float's bits, with IEEE 754's special cases as
   the instruction gives them: sqrt(+-0) = +-0, sqrt(+inf) = +inf, a NaN comes back quieted, and a
   negative number or -inf gives the invalid operation's NaN and sets errno to EDOM, as glibc's sqrtf
   does. Built as `sqrtf` (-Dexpandm_sqrtf=sqrtf). */

#include <errno.h>
#include <stdint.h>

typedef union {
    float f;
    uint32_t u;
} expandm_sqrtf_bits;

float expandm_sqrtf(float x)
{
    expandm_sqrtf_bits v;
    v.f = x;
    uint32_t ix = v.u;
    if ((ix & 0x7f800000u) == 0x7f800000u) { /* NaN: quieted; +inf: +inf; -inf: invalid */
        if (ix == 0xff800000u)
            errno = EDOM;
        return x * x + x;
    }
    if ((ix & 0x7fffffffu) == 0) /* +-0 */
        return x;
    if (ix >> 31) { /* negative: invalid */
        errno = EDOM;
        return (x - x) / (x - x);
    }
    int32_t e = (int32_t)(ix >> 23);
    uint32_t m = ix & 0x007fffffu;
    if (e == 0) { /* subnormal: shift the leading one up to bit 23 */
        e = 1;
        if (m < 0x00000100u) {
            m <<= 16;
            e -= 16;
        }
        if (m < 0x00010000u) {
            m <<= 8;
            e -= 8;
        }
        if (m < 0x00100000u) {
            m <<= 4;
            e -= 4;
        }
        if (m < 0x00400000u) {
            m <<= 2;
            e -= 2;
        }
        if (m < 0x00800000u) {
            m <<= 1;
            e -= 1;
        }
    } else {
        m |= 0x00800000u;
    }
    /* x = m * 2^(k - 23) with m in [2^23, 2^24); make k even */
    int32_t k = e - 127;
    if (k & 1) {
        m <<= 1;
        k -= 1;
    }
    /* 25 bits of sqrt(m * 2^-23) (24 of the result and a rounding bit), one per step: q is the root
       so far, s twice it, rem the remainder, all scaled so that they fit in 32 bits */
    uint32_t rem = m << 1;
    uint32_t q = 0;
    uint32_t s = 0;
    for (int i = 0; i < 25; i++) {
        uint32_t bit = 0x01000000u >> i;
        uint32_t t = s + bit;
        if (t <= rem) {
            s = t + bit;
            rem -= t;
            q += bit;
        }
        rem <<= 1;
    }
    /* round to nearest: an exact half cannot happen, so a rounding bit with any remainder rounds up */
    if (rem != 0)
        q += q & 1;
    v.u = (q >> 1) + 0x3f000000u + ((uint32_t)(k / 2) << 23);
    return v.f;
}
