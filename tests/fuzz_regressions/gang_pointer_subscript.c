/* Found by expand-fuzz --isa avx2 (seed 6, program 5; minimized, then extended by hand).

   Bug: the vector code does not compile: "aggregate value used where a floating-point was expected".
   A pointer parameter that is neither uniform nor linear points to a gang (each lane's call gets its
   own element); '*p' reads and writes it as one, but 'p[0]', the same element, was taken as a uniform
   subscript of p and printed as the scalar p[0], a whole gang (and a store 'p[0] = x' as a store per
   lane into it).

   Fix: expand/passes/lower.py, gang_subscripts(): p[0] of such a parameter is *p (another index is a
   diagnostic: tests/diagnostics/gang_pointer_subscript.c). */
#include <stdint.h>
#include "fuzz_log.h"

float f(short *p, unsigned char *q, float x)
{
    q[0] = (unsigned char)(q[0] + 1);
    if (x > 0.5f)
        p[0] = (short)(p[0] ^ 5);
    return (float)p[0] + (float)*q;
}
