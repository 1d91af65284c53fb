/* Found by expand-fuzz --isa rvv (seed 20261128, program 64; minimized by expand-fuzz): its new guarded
   shifts, run against expand before the fix (with it, 3 of 150 programs mismatched and one hung).
   expand-fuzz: isa rvv

   Bug: the count of `v1 >> v2` is tested by the program (`v2 < 32 ? ... : v1`), but the vector code
   shifts every lane and selects after: `(v1 >> v2)` with v2 = 0x9de4e9d4 in every lane (v2 is varying:
   it is assigned from v1 below). A shift by the width or more is undefined in C; Clang makes poison of
   it, which the and/or of the select does not stop, and clang-16 -O2 gave garbage (every input wrong on
   rvv; the generic output compiled by clang-16 for x86 happened to verify). Fix: emit/generic.py (shift_count) masks a count not known to be in range,
   `(v1 >> (v2 & 31))`. */
#include <stdint.h>
#include "fuzz_log.h"

uint64_t f(void)
{
    int v1 = 1;
    unsigned v2 = 0x9de4e9d4u;
    v1 = log_i32(1, ((v2 < 32) ? (v1 >> v2) : v1));
    v2 = (v1 + 0u);
    return (uint64_t)v2;
}
