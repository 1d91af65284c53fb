/* Found by expand-fuzz (seed 7, programs 35 and 45, and many more; minimized).

   Bug: the vector code does not compile with -Wall -Werror:
     error: variable 'log_i32_r' set but not used [-Werror=unused-but-set-variable]

   Diagnosis: expand/dce.py keeps an assignment whose value is a call to a non-expandable function
   (for the call's side effects) even when its target is dead, here the temporary that lowering made
   for the call in the condition, whose comparison (and mask) was dropped as dead since the if is
   empty. The printer then declares, fills and never reads 'log_i32_r'. A kept call whose result is
   dead should become an ExprStmt (no target, no result vector). The same with
   'int t = log_i32(1, x); t = t;' (t read only by itself). */
#include <stdint.h>
#include "fuzz_log.h"

int f(int x)
{
    if (log_i32(1, x) > 0) {
    }
    return x;
}
