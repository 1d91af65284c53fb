/* Found by expand-fuzz --isa sse2 (seed 777, programs 13 and 27; minimized).
   expand-fuzz: isa sse2
   expand-fuzz: options lanes=x2

   Bug: a broadcast constant kept its source spelling whenever that spelling had the lane's value
   modulo 2^bits, so (unsigned char)(int64_t)(int8_t)0xffffUL became _exp_splat_u8(0xffffUL) and
   (int)3364242797432583530UL became _exp_splat_i32(3364242797432583530UL): passed to the helper's
   uint8_t / int32_t parameter, GCC's -Woverflow (an error under -Werror) rejects the output.
   Fixed in emit/printer.py (splat_const): a literal wider than the lane is spelled by its value. */
#include <stdint.h>
#include <math.h>
#include "fuzz_log.h"

int64_t f(int y)
{
    int v5 = y;
    unsigned char v6 = (unsigned char)v5;
    int v2 = y;
    if (y > 3)
        v2 = (int)3364242797432583530UL;
    v6 = (unsigned char)(int64_t)(int8_t)0xffffUL;
    return (int64_t)v6 + v2;
}
