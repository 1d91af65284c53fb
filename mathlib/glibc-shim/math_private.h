/* glibc-shim: minimal stand-in for glibc's internal math_private.h.

   Part of EXPAND's mathlib shim (not glibc code).  Provides the float word
   access macros written as in glibc (a union typedef and do { } while (0))
   plus the symbol macros from libc-symbols.h.  */

#ifndef _MATH_PRIVATE_H_
#define _MATH_PRIVATE_H_ 1

#include <libc-symbols.h>
#include <math.h>
#include <stdint.h>
#include <nan-high-order-bit.h>

/* A union which permits us to convert between a float and a 32 bit
   int.  */

typedef union
{
  float value;
  uint32_t word;
} ieee_float_shape_type;

/* Get a 32 bit int from a float.  */
#ifndef GET_FLOAT_WORD
# define GET_FLOAT_WORD(i,d)					\
do {								\
  ieee_float_shape_type gf_u;					\
  gf_u.value = (d);						\
  (i) = gf_u.word;						\
} while (0)
#endif

/* Set a float from a 32 bit int.  */
#ifndef SET_FLOAT_WORD
# define SET_FLOAT_WORD(d,i)					\
do {								\
  ieee_float_shape_type sf_u;					\
  sf_u.word = (i);						\
  (d) = sf_u.value;						\
} while (0)
#endif

/* glibc gets issignaling from <math.h> with _GNU_SOURCE, where it calls
   libm's __issignalingf.  Without _GNU_SOURCE (e.g. gcc -std=c11) math.h
   has no issignaling, so provide a float-only inline version under a
   shim-private name (float is the only type in flt-32).  */
#ifndef issignaling
static inline int
__shim_issignalingf (float x)
{
  uint32_t xi;
  GET_FLOAT_WORD (xi, x);
#if HIGH_ORDER_BIT_IS_SET_FOR_SNAN
  return (xi & 0x7fc00000) == 0x7fc00000;
#else
  xi ^= 0x00400000;
  return (xi & 0x7fffffff) > 0x7fc00000;
#endif
}
# define issignaling(x) __shim_issignalingf (x)
#endif

#endif /* math_private.h */
