/* Found by expand-fuzz --isa avx2 (seed 777, program 63; as generated).
   expand-fuzz: isa avx2

   Bug: errno DIFFERS (scalar unchanged, vector EDOM) at y = +-inf, and for every lane of a gang with
   such a lane. y's new value is dead, so GCC (-O2), which takes sin to set no errno (expand/ir/libc.py
   errno_hidden), drops the call of sin from the scalar code; the vector code kept it, each lane's call
   through the pointer that shows glibc's EDOM. The dead-code pass kept it too: it took a variable as
   used wherever anything read it, and y is read by the call's own argument (y = h() - sin(y)).

   Fix: expand/passes/dce.py finds dead assignments by backward liveness (through uniform ifs and
   masked loops) and drops a call whose value is dead when GCC would (an errno_hidden libm function
   with arguments that call nothing). */
#include <stdint.h>
#include <math.h>
#include "fuzz_log.h"

static float h(int64_t a, int site)
{
    (void)a;
    (void)site;
    return log_f32(site + 2, 0.0f);
}

int64_t f(double y)
{
    y = ((double)h(0L, 200) - sin(y));
    return 0L;
}
