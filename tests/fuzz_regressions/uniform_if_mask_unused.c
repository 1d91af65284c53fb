/* Found by expand-fuzz --isa sse4.1 (seed 20240601, program 156: the CI run; reduced by hand).

   Bug: the vector code does not compile with -Wall -Werror:
     error: variable 'm_x_lt_y' set but not used [-Werror=unused-but-set-variable]

   Diagnosis: 'if (u < 16.5f)' is uniform, so it stays a branch (a UniformIf) inside the varying
   'if (x < y)', and keeps that block's mask m_x_lt_y. The dead store to x under it needs no blend,
   so the printer reads the mask nowhere; but eliminate_dead() counted the mask of every statement
   that is not an assignment as used, the UniformIf's included, and kept its computation.

   Fix: expand/passes/dce.py, _needs_mask(): a UniformIf needs its mask only for an integer division
   in its condition (the one place the printer reads it). */
#include <stdint.h>
#include "fuzz_log.h"

int f(int x, int y)
{
    float u = 0;
    if (x < y) {
        if (u < 16.5f) {
            x = (int)u;
        }
    }
    return y;
}
