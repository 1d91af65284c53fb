/* Found by expand-fuzz --isa avx2 (seed 20261146, program 137; minimized by expand-fuzz).
   expand-fuzz: isa avx2 sse4.1 neon

   Bug: wrong values, silently. A struct assigned a compound literal whose members read the struct
   itself (s5 = (struct s5_rec){ (char)v3, ..., (float)s5.f0 + ... }) was copied member by member in
   order, so the last member read s5.f0 after the copy had already written it; C reads the whole
   value first. expand/passes/struct_fields.py (copy_in_order) now reads such a member into a
   temporary before the first write (records.py the same for words of bits, struct_arrays.py for
   arrays of structs; an index that reads what the copy writes, s = TAB[s.n], is computed first). */
#include <stdint.h>
#include <math.h>
#include "fuzz_log.h"

int64_t f(int8_t x)
{
    unsigned v1 = 0u;
    int64_t v3 = 0L;
    char v4 = 0;
    struct s5_rec { char f0; signed char f1; struct { int64_t f0; double f1; } f2; float f3; } s5 = { (char)((((unsigned)x * (unsigned)x) > (v3 & v3)) | x), (signed char)((uint16_t)((unsigned short)v4 + v4) * (unsigned char)(((double)v3 > (-1.0) && (double)v3 < 256.0) ? (double)v3 : 0)), { (int64_t)((255.0 > (-9223372036854775808.0) && 255.0 < 9223372036854775808.0) ? 255.0 : 0), (double)v1 }, (-0.00197450052f) };
    short i6 = 1;
    uint64_t t7 = 0UL;
    s5 = (struct s5_rec){ (char)v3, (signed char)(((s5.f3 / s5.f3) > (int16_t)t7) & (-128)), { (((t7 & 127) < 64) ? (s5.f2.f0 >> (t7 & 127)) : s5.f2.f0), ((double)i6 - s5.f2.f1) }, ((float)s5.f0 + (float)v1) };
    return (int64_t)((s5.f3 > (-9223372036854775808.0f) && s5.f3 < 9223372036854775808.0f) ? s5.f3 : 0);
}
