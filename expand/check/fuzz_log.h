/* expand-fuzz: calls with a side effect (defined in fuzz_log.c, not expandable). */
#ifndef FUZZ_LOG_H
#define FUZZ_LOG_H
#include <stdint.h>
int log_i32(int site, int v);
unsigned log_u32(int site, unsigned v);
int64_t log_i64(int site, int64_t v);
uint64_t log_u64(int site, uint64_t v);
float log_f32(int site, float v);
double log_f64(int site, double v);
#endif
