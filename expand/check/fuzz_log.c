/* expand-fuzz: each call records (site, argument bits) with the verifier's vfy_log_record (expand's
   verify harness in call-log mode defines it; this weak stand-in lets the file link anywhere else)
   and returns a value that depends on both. */
#include <stdint.h>
#include <string.h>
#include "fuzz_log.h"

void vfy_log_record(int site, uint64_t bits);
__attribute__((weak)) void vfy_log_record(int site, uint64_t bits) { (void)site; (void)bits; }

int log_i32(int site, int v) { vfy_log_record(site, (uint32_t)v); return (int)((unsigned)v * 3u + (unsigned)site); }
unsigned log_u32(int site, unsigned v) { vfy_log_record(site, v); return (v ^ 0x9e3779b9u) + (unsigned)site; }
int64_t log_i64(int site, int64_t v) {
    vfy_log_record(site, (uint64_t)v);
    return (int64_t)((uint64_t)v * 5u + (uint64_t)site);
}
uint64_t log_u64(int site, uint64_t v) { vfy_log_record(site, v); return (v >> 1) + (uint64_t)site; }
/* NaNs are recorded as one NaN: C leaves their signs and payloads to the compiler (which operand's
   NaN an addition returns depends on how it orders the operands). */
float log_f32(int site, float v) {
    uint32_t b = 0x7fc00000u;
    if (v == v)
        memcpy(&b, &v, sizeof b);
    vfy_log_record(site, b);
    return v * 0.5f + (float)site;
}
double log_f64(int site, double v) {
    uint64_t b = 0x7ff8000000000000u;
    if (v == v)
        memcpy(&b, &v, sizeof b);
    vfy_log_record(site, b);
    return v - (double)site;
}
