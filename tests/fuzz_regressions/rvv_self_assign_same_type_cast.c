/* Found by expand-fuzz --isa rvv (seed 20261129, program 375; minimized by expand-fuzz).
   expand-fuzz: isa rvv

   Bug: the output does not compile with Clang's -Wall -Werror: 'a = (uint16_t)(unsigned short)(int)a;'
   printed as 'a = a;' (-Wself-assign). fold took the round trip '(unsigned short)(int)a' to 'a' but left
   the cast of 'a' to its own type, which the vector printer drops. Fix: expand/passes/fold.py drops an
   integer cast to its operand's own type. */
#include <stdint.h>
#include "fuzz_log.h"

static unsigned h(uint16_t a, int site)
{
    (void)site;
    if (((log_f32(site + 2, 0.0f) >= 0.0f) ? 0 : 0) < 0) {
        a = (uint16_t)(unsigned short)(int)a;
        for (int i1 = 0; i1 < ((int)(int16_t)a & 7); i1++) {
        }
    }
    return 0u;
}

int f(void)
{
    return (int)h(0, 100);
}
