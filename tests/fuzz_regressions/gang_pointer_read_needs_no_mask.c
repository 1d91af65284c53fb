/* Found by expand-fuzz --isa avx2 (seed 777, program 138; minimized).

   Bug (-Werror=unused-but-set-variable): the assignment under the if is printed without a blend (x is
   dead after it) and its read of the gang pointer p is a whole load whatever the mask, but dead-code
   elimination took *p for a read that may fault and kept the if's mask, which nothing then read.
   A read through a pointer parameter to a gang needs no mask (expand/ir/nodes.py may_fault_read). */
#include <stdint.h>
#include "fuzz_log.h"

int64_t f(int8_t x, unsigned *p)
{
    short v3 = (short)(int)((unsigned)(char)(0 + (unsigned short)x) << 1);
    if ((((double)p[0] + (double)v3) > (-16.5)) && (((double)p[0] + (double)v3) < 16.5)) {
        x = (int8_t)((double)p[0] + (double)v3);
    }
    return 0L;
}
