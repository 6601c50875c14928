/*
 * newline_avx2.c - byte-class kernels on 32-byte AVX2 vectors. The algorithm
 * (with pseudocode) is in kernels_impl.h, shared with the SSE2 build:
 *
 *   find_newline:   per 64 bytes: 2 x (load, cmpeq '\n'), OR, movemask;
 *                   first hit = chunk + ctz(64-bit mask); overlapping tail load
 *   count_newlines: per 32 bytes: acc -= cmpeq; every 255 steps vpsadbw-sum acc
 *   find_any:       per 32 bytes: OR of cmpeq against each set member;
 *                   4..31 bytes: 16-byte vectors of two overlapping halves
 *   find_substr:    per 32 starts: cmpeq first byte & cmpeq last byte, verify hits
 *
 * Reads nothing outside p[0 .. n). Compiled with -mavx2 (Makefile) and only
 * called after dispatch.c saw AVX2 on the CPU; empty on other architectures.
 */
#include "simd/simd.h"

#if RS_SIMD_X86
#include <immintrin.h>

typedef __m256i V;
#define V_W 32
#define v_load(p)   _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define v_set1(c)   _mm256_set1_epi8(c)
#define v_eq(a, b)  _mm256_cmpeq_epi8((a), (b))
#define v_or(a, b)  _mm256_or_si256((a), (b))
#define v_and(a, b) _mm256_and_si256((a), (b))
#define v_sub(a, b) _mm256_sub_epi8((a), (b))
#define v_zero()    _mm256_setzero_si256()
#define v_mask(a)   ((uint32_t)_mm256_movemask_epi8(a))
static inline uint64_t v_hsum(V a)
{
    const __m256i s = _mm256_sad_epu8(a, _mm256_setzero_si256());
    return (uint64_t)_mm256_extract_epi64(s, 0) + (uint64_t)_mm256_extract_epi64(s, 1)
         + (uint64_t)_mm256_extract_epi64(s, 2) + (uint64_t)_mm256_extract_epi64(s, 3);
}
#define KERNEL(name) name##_avx2

#include "simd/kernels_impl.h"
#endif
