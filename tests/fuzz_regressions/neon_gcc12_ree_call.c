/* Found by expand-fuzz --isa neon (seed 2026, program 104; minimized).
   expand-fuzz: isa neon

   Bug: lane 1 of the per-lane call log_f64(2, (double)y) got 0.0 instead of y on AArch64.
   Not ours: GCC 12.2's redundant-extension-elimination pass (REE) hoisted the `sxtl v8.2d` of
   (double)y above the earlier calls to log_f32. AAPCS64 keeps only the low 64 bits of v8-v15
   across a call; log_f32 writes s8, so lane 1 (the upper half) came back zero. -fno-ree, -O1 or
   -fno-inline all make it go away.

   Fix: emit/neon.py starts every NEON output with `#pragma GCC optimize ("no-ree")` (GCC only).
*/
#include <stdint.h>
#include "fuzz_log.h"

int f(double x, int y)
{
    double v1 = (0.0 - (unsigned)y);
    double v2 = 0.0;
    log_f32(1, 0.0f);
    if (x != 0) {
        return y;
    } else {
        v2 = log_f64(2, (double)y);
    }
    return (int)((unsigned)0 << (((unsigned)((v1 > (-1.0) && v1 < 4294967296.0) ? v1 : 0) != 0 ? (unsigned)((v2 > (-1.0) && v2 < 4294967296.0) ? v2 : 0) / (unsigned)((v1 > (-1.0) && v1 < 4294967296.0) ? v1 : 0) : (unsigned)((v2 > (-1.0) && v2 < 4294967296.0) ? v2 : 0)) & 31));
    return 0;
}
