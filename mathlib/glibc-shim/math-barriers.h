/* glibc-shim: floating-point ordering barriers (EXPAND mathlib shim).

   glibc implements these with empty inline asm so the compiler cannot move
   or fold the evaluation across fenv accesses.  Here they are plain
   expressions (no asm, so pycparser and a vectorizer can read them); the
   price is that e.g. powf's rounding-mode probe may be constant folded.  */

#ifndef _MATH_BARRIERS_H
#define _MATH_BARRIERS_H 1

#define math_opt_barrier(x) (x)
#define math_force_eval(x) ((void) (x))

#endif
