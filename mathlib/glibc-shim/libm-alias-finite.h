/* glibc-shim: __*_finite alias macro (EXPAND mathlib shim).
   The alias is dropped.  */

#ifndef _LIBM_ALIAS_FINITE_H
#define _LIBM_ALIAS_FINITE_H 1

#include <libc-symbols.h>

#define libm_alias_finite(from, to)

#endif
