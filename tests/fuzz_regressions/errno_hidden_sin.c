/* Found by expand-fuzz --isa sse2 (seed 20261126, program 25; reduced by hand).
   expand-fuzz: isa sse2
   expand-fuzz: options uniform=n

   Bug: errno DIFFERS (scalar EDOM, vector unchanged) at n = +-inf: the vector code lost the EDOM of
   sin((double)n). The function tracks errno (two call sites may set it), so each lane's call of sin
   is watched: errno = UNSET; r = sin(x); if (errno != UNSET) ... GCC (12, every target, -O2)
   declares sin, cos, tan, atan, tanh, asinh, cbrt and erf (and their f forms) as setting no errno
   (C lets them: builtins.def gives them no errno attribute) and folds the read after the call to
   UNSET; glibc's sin, cos and tan set EDOM for an infinity all the same. The watch saw no lane
   write errno, and the vector function ended by restoring errno's value at entry over the EDOM.

   Fix: emit/printer.py (watched_callee) calls such a function, where a lane's errno is watched,
   through a constant volatile pointer to it (static double (*const volatile _exp_sin_errno)(double)
   = sin;), which GCC cannot see through (expand/ir/libc.py errno_hidden lists them). */
#include <stdint.h>
#include <math.h>
#include "fuzz_log.h"

uint64_t f(float n, int x)
{
    double v = sin((double)n);
    x = log_i32(1, x);
    return (uint64_t)(v > 0.5) + (uint64_t)x;
}
