/*
 * newline_sse2.c - byte-class kernels on 16-byte SSE2 vectors. The algorithm
 * (with pseudocode) is in kernels_impl.h, shared with the AVX2 build:
 *
 *   find_newline:   per 64 bytes: 4 x (load, cmpeq '\n'), OR, movemask;
 *                   first hit = chunk + ctz(64-bit mask); overlapping tail load
 *   count_newlines: per 16 bytes: acc -= cmpeq; every 255 steps psadbw-sum acc
 *   find_any:       per 16 bytes: OR of cmpeq against each set member;
 *                   4..31 bytes: vectors of two overlapping halves
 *   find_substr:    per 16 starts: cmpeq first byte & cmpeq last byte, verify hits
 *
 * Reads nothing outside p[0 .. n). Compiled with -msse2 (Makefile); empty on
 * other architectures.
 */
#include "simd/simd.h"

#if RS_SIMD_X86
#include <emmintrin.h>

typedef __m128i V;
#define V_W 16
#define v_load(p)   _mm_loadu_si128((const __m128i *)(const void *)(p))
#define v_set1(c)   _mm_set1_epi8(c)
#define v_eq(a, b)  _mm_cmpeq_epi8((a), (b))
#define v_or(a, b)  _mm_or_si128((a), (b))
#define v_and(a, b) _mm_and_si128((a), (b))
#define v_sub(a, b) _mm_sub_epi8((a), (b))
#define v_zero()    _mm_setzero_si128()
#define v_mask(a)   ((uint32_t)_mm_movemask_epi8(a))
static inline uint64_t v_hsum(V a)
{
    const __m128i s = _mm_sad_epu8(a, _mm_setzero_si128());
    return (uint64_t)_mm_cvtsi128_si64(s) + (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(s, s));
}
#define KERNEL(name) name##_sse2

#include "simd/kernels_impl.h"
#endif
