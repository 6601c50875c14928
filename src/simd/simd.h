/*
 * simd.h - internal prototypes of the byte-class kernels, one set per
 * instruction set. Callers outside src/simd use the dispatching entry points
 * and rs_simd_get() declared in robotscan.h instead.
 *
 * Contract shared by every kernel: it reads only p[0 .. n) (no over-read,
 * so callers need not pad), n may be 0, and p may be NULL only when n == 0
 * (find_substr: the same for its needle s[0 .. m)).
 */
#ifndef RS_SIMD_H
#define RS_SIMD_H

#include "common/common.h"

size_t rs_find_newline_scalar(const char *p, size_t n);
size_t rs_count_newlines_scalar(const char *p, size_t n);
size_t rs_find_any_scalar(const char *p, size_t n, const rs_byteset *set);
size_t rs_find_substr_scalar(const char *h, size_t n, const char *s, size_t m);
size_t rs_mask_any_scalar(const char *p, size_t n, const rs_byteset *set, uint64_t *bits);

#if defined(__x86_64__)
#  define RS_SIMD_X86 1
size_t rs_find_newline_sse2(const char *p, size_t n);
size_t rs_count_newlines_sse2(const char *p, size_t n);
size_t rs_find_any_sse2(const char *p, size_t n, const rs_byteset *set);
size_t rs_find_substr_sse2(const char *h, size_t n, const char *s, size_t m);
size_t rs_mask_any_sse2(const char *p, size_t n, const rs_byteset *set, uint64_t *bits);

size_t rs_find_newline_avx2(const char *p, size_t n);
size_t rs_count_newlines_avx2(const char *p, size_t n);
size_t rs_find_any_avx2(const char *p, size_t n, const rs_byteset *set);
size_t rs_find_substr_avx2(const char *h, size_t n, const char *s, size_t m);
size_t rs_mask_any_avx2(const char *p, size_t n, const rs_byteset *set, uint64_t *bits);
#else
#  define RS_SIMD_X86 0
#endif

#endif /* RS_SIMD_H */
