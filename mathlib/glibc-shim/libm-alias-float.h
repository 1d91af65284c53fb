/* glibc-shim: float libm alias macros (EXPAND mathlib shim).
   Aliases are dropped: only the internal name (__floorf, ...) is defined.  */

#ifndef _LIBM_ALIAS_FLOAT_H
#define _LIBM_ALIAS_FLOAT_H 1

#include <libc-symbols.h>

#define libm_alias_float_other_r(from, to, r)
#define libm_alias_float_other(from, to)
#define libm_alias_float_r(from, to, r)
#define libm_alias_float(from, to)

#endif
