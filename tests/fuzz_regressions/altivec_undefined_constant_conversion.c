/* Found by expand-fuzz --isa altivec (seed 20261129, program 814; minimized by expand-fuzz).
   expand-fuzz: isa altivec
   expand-fuzz: options lanes=x2 uniform=tab linear=i

   Bug: the vector code did not compile: -Werror=overflow on `_exp_mask_any(staying12) ? (unsigned
   short)(-1.0) : 0`, the guarded conversion of a constant no lane reaches (the inlined h's branch
   under a false test). Converting -1.0 to unsigned short is undefined in C wherever it runs. Fix:
   expand/passes/fold.py folds a floating constant's undefined conversion to an integer type to 0. */
#include <stdint.h>
#include <math.h>
#include "fuzz_log.h"

static double h(unsigned short a, double b, int site)
{
    (void)b;
    (void)site;
    unsigned short hv = (unsigned short)(int)a;
    for (unsigned i1 = 0; i1 < (unsigned)((int)(unsigned char)(int)hv & 7); i1++) {
        if (((-1.0) > (-1.0)) && ((-1.0) < 30000.0)) {
            hv = (unsigned short)(-1.0);
        }
    }
    return 0.0;
}

unsigned f(int i, const unsigned *tab)
{
    double v2 = 0.0;
    v2 = h((unsigned short)tab[(i - 34)], 0.0, 100);
    return (unsigned)((v2 > (-1.0) && v2 < 4294967296.0) ? v2 : 0);
}
