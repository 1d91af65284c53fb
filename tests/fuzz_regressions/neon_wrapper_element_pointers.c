/* Found by expand-fuzz --isa neon (seed 20240601, programs 59, 88, 106 and 146: the CI run, on AltiVec
   too; reduced by hand).
   expand-fuzz: isa neon
   expand-fuzz: options wrapper

   Bug: the vector code does not compile with -Wall -Werror: f_array passed 'c + i' (const char *) to
   _exp_load4_u8(const uint8_t *) ('pointer targets differ in signedness': plain char is unsigned on
   AArch64, and a type of its own) and 'b + i' (const _Bool *) to the same load ('incompatible pointer
   type'); long long arrays met the same with int64_t's loads. x86's narrow loads take void pointers.

   Fix: expand/abi.py, _wrapper(): an element pointer whose type C does not take for the lane kind's
   stdint type is cast to it (tests/test_abi.py::test_array_wrapper_element_types runs such a wrapper). */
#include <stdint.h>
#include "fuzz_log.h"

int f(char c, _Bool b, long long q)
{
    return c + b + (int)(q & 7);
}
