/* Found by expand-fuzz --isa sse2 (seed 20261126, program 49; reduced by hand).
   expand-fuzz: isa sse2

   Bug: the vector code does not compile with -Wall -Werror:
     error: variable 'm_x_gt_5' set but not used [-Werror=unused-but-set-variable]
   (in the program: 'm_not_T1_times_v1_eq_cond', the mask of 'y |= ... (signed char)a4[1] ...'
   after a 'break' in a switch case).

   Diagnosis: 'y += T1[1]' runs under the mask of 'x > 5u', but y is assigned again before any read,
   so if-conversion gives it no blend (predication/ifconvert.py, the ordinary rule). expand/passes/dce.py
   (_needs_mask) still kept the mask for it: any Index in the value counted as a read the printer guards
   with the mask, but a constant index into an array object (T1[1], a4[1]) is read whatever the mask
   (emit/printer.py guards only reads that may fault). The mask was computed and never read.

   Fix: one rule for both, expand/ir/nodes.py may_fault_read (the printer's former _reads_memory): DCE
   keeps a statement's mask for a division or a read that may fault, not for a constant index into an
   array object (for a uniform if's condition too, which the printer guards the same way). */
#include <stdint.h>
#include "fuzz_log.h"

static const unsigned T1[4] = { 10u, 6u, 0xffffu, 4095u };

unsigned f(unsigned x, unsigned y)
{
    if (x > 5u)
        y += T1[1];
    y = x;
    return y;
}
