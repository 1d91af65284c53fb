/* Found by expand-fuzz --isa altivec (seed 3200: 13 of 60 programs; minimized, then reduced by hand).
   expand-fuzz: isa altivec

   Bug: on AltiVec the vector code crashes the compiler (powerpc64le-linux-gnu-gcc 12.2,
   -mcpu=power8):
     m_d_gt_2 = vec_cmpne(vec_splats((int)((d > 2) != 0)), vec_splats(0));
     internal compiler error: in gimplify_expr, at gimplify.cc:15905
   GCC's bug, but every if or ?: whose condition is uniform triggers it. gcc ICEs on vec_splats of
   any expression that contains a comparison ('(int)-(c != 0)', 'c != 0 ? -1 : 0' too, with
   vec_cmpeq/vec_cmpne or a cast to vector bool int); vec_splats of a plain variable is fine.

   Diagnosis: emit/printer.py FunctionPrinter.mask() turns a uniform condition into
   isa.int_to_mask('i32', isa.splat('i32', '(cond) != 0')); the AltiVec table (emit/altivec.py)
   should not splat the truth value of a comparison: evaluate it into a scalar temporary first
   ('int c = (d > 2) != 0;' then vec_cmpne(vec_splats(c), vec_splats(0))), or select between
   vec_splats(-1) and vec_splats(0) with a scalar if. */
#include <stdint.h>
#include "fuzz_log.h"

int f(int x)
{
    int d = 3;
    if (d > 2)
        x = x + 1;
    return x;
}
