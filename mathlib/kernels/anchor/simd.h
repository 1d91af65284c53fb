/* The anchors' instructions per x86 width (the .c files of mathlib/kernels/anchor): each operation an anchor
   uses, written out in the intrinsics of SSE4.1, AVX2 and AVX-512 as ispc compiles it for that
   target (ispc's sse4-i32x4, avx2-i32x8 and avx512skx-x16): masks are compare results (all-ones
   lanes; AVX-512: mask registers), a blend is blendv (AVX-512: a masked move), a table read with
   per-lane indices is a gather where the ISA has one (AVX2 vpgatherdd/vgatherdps, AVX-512 the
   zmm forms) and lane loads built into a register where it has none (SSE4.1: no store/reload of
   the index vector). With -DANCHOR_LANE_LOADS, AVX2 and AVX-512 take lane loads as SSE4.1 does
   (the benchmark's "anchor, lane loads" column: what a gather buys on the host). The anchor sources are written once against these names;
   the target's -m flags pick the section, so each width gets its own instructions.

   Calls of libm functions go to mathlib's vector libm (python -m mathlib.libm), the same
   bit-exact code expand's output calls: the anchors compare the code around the calls. */

#ifndef ANCHOR_SIMD_H
#define ANCHOR_SIMD_H

#include <stdint.h>
#include <immintrin.h>

/* a table word read through any pointer type (the float tables' lane loads go through the int path) */
typedef int32_t anchor_word __attribute__((may_alias));

#if defined(__AVX512F__)

#define VL 16
#define VLIBM(f) _Exp_##f##_avx512
typedef __m512 vf;
typedef __m512i vi;
typedef __mmask16 vm;

static inline vf vf_set1(float a) { return _mm512_set1_ps(a); }
static inline vf vf_load(const float *p) { return _mm512_loadu_ps(p); }
static inline void vf_store(float *p, vf a) { _mm512_storeu_ps(p, a); }
static inline vf vf_add(vf a, vf b) { return _mm512_add_ps(a, b); }
static inline vf vf_sub(vf a, vf b) { return _mm512_sub_ps(a, b); }
static inline vf vf_mul(vf a, vf b) { return _mm512_mul_ps(a, b); }
static inline vf vf_div(vf a, vf b) { return _mm512_div_ps(a, b); }
static inline vf vf_sqrt(vf a) { return _mm512_sqrt_ps(a); }
static inline vf vf_floor(vf a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
static inline vf vf_abs(vf a) { return _mm512_castsi512_ps(_mm512_andnot_si512(_mm512_set1_epi32(INT32_MIN), _mm512_castps_si512(a))); }
static inline vf vf_neg(vf a) { return _mm512_castsi512_ps(_mm512_xor_si512(_mm512_set1_epi32(INT32_MIN), _mm512_castps_si512(a))); }
static inline vm vf_gt(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ); }
static inline vm vf_lt(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
/* b where m is on, else a */
static inline vf vf_blend(vf a, vf b, vm m) { return _mm512_mask_mov_ps(a, m, b); }
static inline vi vi_set1(int a) { return _mm512_set1_epi32(a); }
static inline vi vi_iota(void) { return _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15); }
static inline void vi_store(int *p, vi a) { _mm512_storeu_si512(p, a); }
static inline vi vi_add(vi a, vi b) { return _mm512_add_epi32(a, b); }
static inline vi vi_and(vi a, vi b) { return _mm512_and_si512(a, b); }
static inline vi vi_or(vi a, vi b) { return _mm512_or_si512(a, b); }
static inline vi vi_xor(vi a, vi b) { return _mm512_xor_si512(a, b); }
static inline vi vi_mul(vi a, vi b) { return _mm512_mullo_epi32(a, b); }
static inline vi vi_blend(vi a, vi b, vm m) { return _mm512_mask_mov_epi32(a, m, b); }
#ifndef ANCHOR_LANE_LOADS
static inline vi vi_gather(const int *t, vi idx) { return _mm512_i32gather_epi32(idx, t, 4); }
static inline vf vf_gather(const float *t, vi idx) { return _mm512_i32gather_ps(idx, t, 4); }
#else
/* (-DANCHOR_LANE_LOADS: lane loads instead of the gathers, each index taken out of the register) */
static inline vi vi_gather(const anchor_word *t, vi idx)
{
    __m128i a = _mm512_castsi512_si128(idx), b = _mm512_extracti32x4_epi32(idx, 1), c = _mm512_extracti32x4_epi32(idx, 2),
            d = _mm512_extracti32x4_epi32(idx, 3);
    return _mm512_setr_epi32(t[_mm_cvtsi128_si32(a)], t[_mm_extract_epi32(a, 1)], t[_mm_extract_epi32(a, 2)],
                             t[_mm_extract_epi32(a, 3)], t[_mm_cvtsi128_si32(b)], t[_mm_extract_epi32(b, 1)],
                             t[_mm_extract_epi32(b, 2)], t[_mm_extract_epi32(b, 3)], t[_mm_cvtsi128_si32(c)],
                             t[_mm_extract_epi32(c, 1)], t[_mm_extract_epi32(c, 2)], t[_mm_extract_epi32(c, 3)],
                             t[_mm_cvtsi128_si32(d)], t[_mm_extract_epi32(d, 1)], t[_mm_extract_epi32(d, 2)],
                             t[_mm_extract_epi32(d, 3)]);
}
static inline vf vf_gather(const float *t, vi idx)
{
    return _mm512_castsi512_ps(vi_gather((const anchor_word *)(const void *)t, idx));
}
#endif
static inline vf vf_from_vi(vi a) { return _mm512_cvtepi32_ps(a); }
static inline vi vi_from_vf(vf a) { return _mm512_cvttps_epi32(a); }
static inline vm vm_and(vm a, vm b) { return (vm)(a & b); }
static inline vm vm_or(vm a, vm b) { return (vm)(a | b); }
/* a and not b */
static inline vm vm_andnot(vm a, vm b) { return (vm)(a & ~b); }
static inline vm vm_all(void) { return (vm)0xffff; }
static inline vm vm_none(void) { return (vm)0; }
static inline int vm_any(vm a) { return a != 0; }
/* (the ray tracer, volume rendering and deferred shading) */
static inline vm vf_le(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ); }
static inline vm vf_eq(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
static inline vi vi_load(const int *p) { return _mm512_loadu_si512(p); }
/* VL consecutive unsigned shorts or bytes, zero-extended */
static inline vi vi_load_u16(const unsigned short *p) { return _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p)); }
static inline vi vi_load_u8(const unsigned char *p) { return _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)p)); }
static inline vi vi_sub(vi a, vi b) { return _mm512_sub_epi32(a, b); }
static inline vi vi_slli(vi a, int n) { return _mm512_slli_epi32(a, n); }
static inline vi vi_srli(vi a, int n) { return _mm512_srli_epi32(a, n); }
static inline vi vi_min(vi a, vi b) { return _mm512_min_epi32(a, b); }
static inline vi vi_max(vi a, vi b) { return _mm512_max_epi32(a, b); }
static inline vm vi_gt(vi a, vi b) { return _mm512_cmpgt_epi32_mask(a, b); }
static inline vm vi_eq(vi a, vi b) { return _mm512_cmpeq_epi32_mask(a, b); }
static inline vf vf_from_bits(vi a) { return _mm512_castsi512_ps(a); }
static inline vm vm_not(vm a) { return (vm)~a; }
static inline unsigned vm_bits(vm a) { return a; }
/* t[idx] = v in the lanes of m (a scatter) */
static inline void vi_scatter(int *t, vi idx, vi v, vm m) { _mm512_mask_i32scatter_epi32(t, m, idx, v, 4); }

#elif defined(__AVX2__)

#define VL 8
#define VLIBM(f) _Exp_##f##_avx2
typedef __m256 vf;
typedef __m256i vi;
typedef __m256 vm;

static inline vf vf_set1(float a) { return _mm256_set1_ps(a); }
static inline vf vf_load(const float *p) { return _mm256_loadu_ps(p); }
static inline void vf_store(float *p, vf a) { _mm256_storeu_ps(p, a); }
static inline vf vf_add(vf a, vf b) { return _mm256_add_ps(a, b); }
static inline vf vf_sub(vf a, vf b) { return _mm256_sub_ps(a, b); }
static inline vf vf_mul(vf a, vf b) { return _mm256_mul_ps(a, b); }
static inline vf vf_div(vf a, vf b) { return _mm256_div_ps(a, b); }
static inline vf vf_sqrt(vf a) { return _mm256_sqrt_ps(a); }
static inline vf vf_floor(vf a) { return _mm256_round_ps(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
static inline vf vf_abs(vf a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
static inline vf vf_neg(vf a) { return _mm256_xor_ps(_mm256_set1_ps(-0.0f), a); }
static inline vm vf_gt(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
static inline vm vf_lt(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
static inline vf vf_blend(vf a, vf b, vm m) { return _mm256_blendv_ps(a, b, m); }
static inline vi vi_set1(int a) { return _mm256_set1_epi32(a); }
static inline vi vi_iota(void) { return _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7); }
static inline void vi_store(int *p, vi a) { _mm256_storeu_si256((__m256i *)p, a); }
static inline vi vi_add(vi a, vi b) { return _mm256_add_epi32(a, b); }
static inline vi vi_and(vi a, vi b) { return _mm256_and_si256(a, b); }
static inline vi vi_or(vi a, vi b) { return _mm256_or_si256(a, b); }
static inline vi vi_xor(vi a, vi b) { return _mm256_xor_si256(a, b); }
static inline vi vi_mul(vi a, vi b) { return _mm256_mullo_epi32(a, b); }
static inline vi vi_blend(vi a, vi b, vm m) { return _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), m)); }
#ifndef ANCHOR_LANE_LOADS
static inline vi vi_gather(const int *t, vi idx) { return _mm256_i32gather_epi32(t, idx, 4); }
static inline vf vf_gather(const float *t, vi idx) { return _mm256_i32gather_ps(t, idx, 4); }
#else
static inline vi vi_gather(const anchor_word *t, vi idx)
{
    __m128i a = _mm256_castsi256_si128(idx), b = _mm256_extracti128_si256(idx, 1);
    return _mm256_setr_epi32(t[_mm_cvtsi128_si32(a)], t[_mm_extract_epi32(a, 1)], t[_mm_extract_epi32(a, 2)],
                             t[_mm_extract_epi32(a, 3)], t[_mm_cvtsi128_si32(b)], t[_mm_extract_epi32(b, 1)],
                             t[_mm_extract_epi32(b, 2)], t[_mm_extract_epi32(b, 3)]);
}
static inline vf vf_gather(const float *t, vi idx)
{
    return _mm256_castsi256_ps(vi_gather((const anchor_word *)(const void *)t, idx));
}
#endif
static inline vf vf_from_vi(vi a) { return _mm256_cvtepi32_ps(a); }
static inline vi vi_from_vf(vf a) { return _mm256_cvttps_epi32(a); }
static inline vm vm_and(vm a, vm b) { return _mm256_and_ps(a, b); }
static inline vm vm_or(vm a, vm b) { return _mm256_or_ps(a, b); }
static inline vm vm_andnot(vm a, vm b) { return _mm256_andnot_ps(b, a); }
static inline vm vm_all(void) { return _mm256_castsi256_ps(_mm256_set1_epi32(-1)); }
static inline vm vm_none(void) { return _mm256_setzero_ps(); }
static inline int vm_any(vm a) { return _mm256_movemask_ps(a) != 0; }
static inline vm vf_le(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_LE_OQ); }
static inline vm vf_eq(vf a, vf b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
static inline vi vi_load(const int *p) { return _mm256_loadu_si256((const __m256i *)p); }
static inline vi vi_load_u16(const unsigned short *p) { return _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p)); }
static inline vi vi_load_u8(const unsigned char *p) { return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p)); }
static inline vi vi_sub(vi a, vi b) { return _mm256_sub_epi32(a, b); }
static inline vi vi_slli(vi a, int n) { return _mm256_slli_epi32(a, n); }
static inline vi vi_srli(vi a, int n) { return _mm256_srli_epi32(a, n); }
static inline vi vi_min(vi a, vi b) { return _mm256_min_epi32(a, b); }
static inline vi vi_max(vi a, vi b) { return _mm256_max_epi32(a, b); }
static inline vm vi_gt(vi a, vi b) { return _mm256_castsi256_ps(_mm256_cmpgt_epi32(a, b)); }
static inline vm vi_eq(vi a, vi b) { return _mm256_castsi256_ps(_mm256_cmpeq_epi32(a, b)); }
static inline vf vf_from_bits(vi a) { return _mm256_castsi256_ps(a); }
static inline vm vm_not(vm a) { return _mm256_xor_ps(a, vm_all()); }
static inline unsigned vm_bits(vm a) { return (unsigned)_mm256_movemask_ps(a); }

#elif defined(__SSE4_1__)

#define VL 4
#define VLIBM(f) _Exp_##f##_sse41
typedef __m128 vf;
typedef __m128i vi;
typedef __m128 vm;

static inline vf vf_set1(float a) { return _mm_set1_ps(a); }
static inline vf vf_load(const float *p) { return _mm_loadu_ps(p); }
static inline void vf_store(float *p, vf a) { _mm_storeu_ps(p, a); }
static inline vf vf_add(vf a, vf b) { return _mm_add_ps(a, b); }
static inline vf vf_sub(vf a, vf b) { return _mm_sub_ps(a, b); }
static inline vf vf_mul(vf a, vf b) { return _mm_mul_ps(a, b); }
static inline vf vf_div(vf a, vf b) { return _mm_div_ps(a, b); }
static inline vf vf_sqrt(vf a) { return _mm_sqrt_ps(a); }
static inline vf vf_floor(vf a) { return _mm_round_ps(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
static inline vf vf_abs(vf a) { return _mm_andnot_ps(_mm_set1_ps(-0.0f), a); }
static inline vf vf_neg(vf a) { return _mm_xor_ps(_mm_set1_ps(-0.0f), a); }
static inline vm vf_gt(vf a, vf b) { return _mm_cmpgt_ps(a, b); }
static inline vm vf_lt(vf a, vf b) { return _mm_cmplt_ps(a, b); }
static inline vf vf_blend(vf a, vf b, vm m) { return _mm_blendv_ps(a, b, m); }
static inline vi vi_set1(int a) { return _mm_set1_epi32(a); }
static inline vi vi_iota(void) { return _mm_setr_epi32(0, 1, 2, 3); }
static inline void vi_store(int *p, vi a) { _mm_storeu_si128((__m128i *)p, a); }
static inline vi vi_add(vi a, vi b) { return _mm_add_epi32(a, b); }
static inline vi vi_and(vi a, vi b) { return _mm_and_si128(a, b); }
static inline vi vi_or(vi a, vi b) { return _mm_or_si128(a, b); }
static inline vi vi_xor(vi a, vi b) { return _mm_xor_si128(a, b); }
static inline vi vi_mul(vi a, vi b) { return _mm_mullo_epi32(a, b); }
static inline vi vi_blend(vi a, vi b, vm m) { return _mm_castps_si128(_mm_blendv_ps(_mm_castsi128_ps(a), _mm_castsi128_ps(b), m)); }
/* no gather: each lane's index taken out of the register, its element loaded, the four built
   into a register (GCC: movd and unpacks, where pinsrd/insertps from memory chain every lane's
   insert on the one before: 25% slower on noise here) */
static inline vi vi_gather(const anchor_word *t, vi idx)
{
    return _mm_setr_epi32(t[_mm_cvtsi128_si32(idx)], t[_mm_extract_epi32(idx, 1)], t[_mm_extract_epi32(idx, 2)],
                          t[_mm_extract_epi32(idx, 3)]);
}
static inline vf vf_gather(const float *t, vi idx)
{
    return _mm_castsi128_ps(vi_gather((const anchor_word *)(const void *)t, idx));
}
static inline vf vf_from_vi(vi a) { return _mm_cvtepi32_ps(a); }
static inline vi vi_from_vf(vf a) { return _mm_cvttps_epi32(a); }
static inline vm vm_and(vm a, vm b) { return _mm_and_ps(a, b); }
static inline vm vm_or(vm a, vm b) { return _mm_or_ps(a, b); }
static inline vm vm_andnot(vm a, vm b) { return _mm_andnot_ps(b, a); }
static inline vm vm_all(void) { return _mm_castsi128_ps(_mm_set1_epi32(-1)); }
static inline vm vm_none(void) { return _mm_setzero_ps(); }
static inline int vm_any(vm a) { return _mm_movemask_ps(a) != 0; }
static inline vm vf_le(vf a, vf b) { return _mm_cmple_ps(a, b); }
static inline vm vf_eq(vf a, vf b) { return _mm_cmpeq_ps(a, b); }
static inline vi vi_load(const int *p) { return _mm_loadu_si128((const __m128i *)p); }
static inline vi vi_load_u16(const unsigned short *p) { return _mm_cvtepu16_epi32(_mm_loadl_epi64((const __m128i *)p)); }
static inline vi vi_load_u8(const unsigned char *p)
{
    int32_t w;
    __builtin_memcpy(&w, p, 4);
    return _mm_cvtepu8_epi32(_mm_cvtsi32_si128(w));
}
static inline vi vi_sub(vi a, vi b) { return _mm_sub_epi32(a, b); }
static inline vi vi_slli(vi a, int n) { return _mm_slli_epi32(a, n); }
static inline vi vi_srli(vi a, int n) { return _mm_srli_epi32(a, n); }
static inline vi vi_min(vi a, vi b) { return _mm_min_epi32(a, b); }
static inline vi vi_max(vi a, vi b) { return _mm_max_epi32(a, b); }
static inline vm vi_gt(vi a, vi b) { return _mm_castsi128_ps(_mm_cmpgt_epi32(a, b)); }
static inline vm vi_eq(vi a, vi b) { return _mm_castsi128_ps(_mm_cmpeq_epi32(a, b)); }
static inline vf vf_from_bits(vi a) { return _mm_castsi128_ps(a); }
static inline vm vm_not(vm a) { return _mm_xor_ps(a, vm_all()); }
static inline unsigned vm_bits(vm a) { return (unsigned)_mm_movemask_ps(a); }

#else
#error "the anchors are written for SSE4.1, AVX2 and AVX-512 (compile with -msse4.1, -mavx2 or -mavx512f)"
#endif

#ifndef __AVX512F__
/* t[idx] = v in the lanes of m: no scatter instruction, a store per lane */
static inline void vi_scatter(int *t, vi idx, vi v, vm m)
{
    int ix[VL], vv[VL];
    unsigned on = vm_bits(m);
    vi_store(ix, idx);
    vi_store(vv, v);
    for (int l = 0; l < VL; l++)
        if (on >> l & 1)
            t[ix[l]] = vv[l];
}
#endif

/* i + 0, i + 1, ...: the linear index of each lane, as floats */
static inline vf vf_lanes_from(int i) { return vf_from_vi(vi_add(vi_set1(i), vi_iota())); }

extern vf VLIBM(expf)(vf);
extern vf VLIBM(logf)(vf);
extern vf VLIBM(powf)(vf, vf);
extern vf VLIBM(sinf)(vf);
extern vf VLIBM(cosf)(vf);

#endif
