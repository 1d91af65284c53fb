/* glibc-shim: narrowing of excess precision (EXPAND mathlib shim).
   FLT_EVAL_METHOD is 0 on the targets we use (x86_64 SSE, AArch64,
   POWER), so no narrowing is needed.  */

#ifndef _MATH_NARROW_EVAL_H
#define _MATH_NARROW_EVAL_H 1

#define math_narrow_eval(x) (x)

#endif
