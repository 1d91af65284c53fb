/* glibc-shim: quiet/signaling NaN convention (EXPAND mathlib shim).
   IEEE 754-2008 convention, as on x86, AArch64, POWER: the high-order
   mantissa bit set means quiet NaN.  */

#ifndef NAN_HIGH_ORDER_BIT_H
#define NAN_HIGH_ORDER_BIT_H 1

#define HIGH_ORDER_BIT_IS_SET_FOR_SNAN 0

#endif
