/* Found by expand-fuzz --isa avx2 (seed 6, program 14; minimized, then reduced by hand).

   Bug: a traceback (KeyError: 'out:done') in if-conversion: a 'return' after a 'continue' in a loop
   body is never reached. The loop's exits are collected from the gotos its body spells (the return
   became 'goto done'), but the body's own CFG keeps reachable blocks only, so it has no 'out:done'
   exit mask to give that edge.

   Fix: predication/ifconvert.py, IfConverter.loop(): an exit the body never reaches is an edge that
   is never taken (an all-false mask).
   expand-fuzz: loop-sites 1
   (site 1 is called in a loop: its calls are matched to lanes by value, verify(call_log_loose=...);
   without the line the call log misattributes them and reports right vector code as 'calls: DIFFER') */
#include <stdint.h>
#include "fuzz_log.h"

int f(int x)
{
    for (int i = 0; i < (x & 7); i++) {
        log_i32(1, i);
        continue;
        return 1;
    }
    return log_i32(2, x);
}
