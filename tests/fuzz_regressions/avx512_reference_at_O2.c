/* Found by expand-fuzz --isa avx512 (seed 20261130, program 1943; minimized by expand-fuzz).
   expand-fuzz: isa avx512

   Not a bug of expand: errno differed because the fuzzer's AVX-512 reference was compiled at -O0,
   which keeps the dead cosf call (EDOM for an infinity), where GCC at -O2 drops it (it takes cos to
   set no errno) and so does the vector code (expand/passes/dce.py, errno_hidden). Fixed in the
   fuzzer: the AVX-512 reference is at -O2 again (expand/check/fuzz.py), the GCC bug the -O0 worked
   around being turned off for every file by FUZZ_ISA_CFLAGS (avx512_unsigned_convert_cse.c). */
#include <stdint.h>
#include <math.h>
#include "fuzz_log.h"

int f(float y)
{
    y = cosf(y);
    return 0;
}
