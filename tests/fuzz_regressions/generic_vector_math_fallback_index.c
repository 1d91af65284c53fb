/* Found by expand-fuzz --isa generic (seed 20261126, program 800, 8 lanes; reduced by hand).
   expand-fuzz: isa generic
   expand-fuzz: options lanes=x2

   Bug: the output does not compile ('a3_idx' undeclared). The argument of fmaf reads a local array at
   a varying index, which the printer names once per statement (a3_idx, declared before it). It first
   tried the vector math library, which has no 8-lane generic fmaf: it dropped the lines printed for
   the arguments, the declaration among them, but kept the name, so the per-lane call used a3_idx
   undeclared. Fix: emit/printer.py vector_math_call forgets the names it drops with their lines. */
#include <math.h>
#include <stdint.h>
#include "fuzz_log.h"

float f(float x, int v)
{
    unsigned a3[16] = { 0 };
    float r = x;
    if (x > 1.0f) {
        uint16_t t8 = (uint16_t)v;
        r = roundf(fmaf(1.04e10f, sinhf((float)t8), ((float)a3[v & 15] + x)));
    }
    return r;
}
