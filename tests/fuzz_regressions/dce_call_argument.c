/* Found by expand-fuzz (seed 7, program 82, minimized, then reduced by hand).

   Bug: the call's argument is lost. The scalar code calls log_f64(1, 1.0); the vector code calls
   log_f64(1, 0.0) for every lane: 'double b = 1.0;' is dropped and b is declared as
   '_Exp_f64x4 b = _exp_splat_f64(0);'.

   Diagnosis: expand/dce.py, eliminate_dead(): "a variable read only by its own updates is dead"
   subtracts the statement's own target from what it reads, also for 'b = log_f64(1, b)', a call
   that is kept for its side effects whatever happens to b. Since b is not read after the call,
   b counts as unused and the store 'b = 1.0' is swept; the call then reads an uninitialized b
   (the printer initializes it to 0). The arguments of a kept call must stay live. (The same
   happens when a helper that reassigns its parameter, 'b = log_f64(site, b)', is inlined.) */
#include <stdint.h>
#include "fuzz_log.h"

double f(double x)
{
    double b = 1.0;
    b = log_f64(1, b);
    return x;
}
