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

/*
 * mask_url (internal, not in rs_simd_kernels): the bitmaps of the scanner's
 * pass 1 in one pass over p[0, n): words [0, (n + 63) / 64) of @nl ('\n'),
 * @delim ('/', '?', ';', '#': where an authority ends) and @end ('#', NUL:
 * where a path ends); bits past n are 0.
 */
typedef void (*rs_mask_url_fn)(const char *p, size_t n, uint64_t *nl, uint64_t *delim, uint64_t *end);
void rs_mask_url_scalar(const char *p, size_t n, uint64_t *nl, uint64_t *delim, uint64_t *end);
/* The mask_url of kernel set @k (a table rs_simd_get or rs_simd_active gave). */
rs_mask_url_fn rs_simd_mask_url_of(const rs_simd_kernels *k);
/* mask_url of the active set. */
void rs_simd_mask_url(const char *p, size_t n, uint64_t *nl, uint64_t *delim, uint64_t *end);

#if defined(__x86_64__)
#  define RS_SIMD_X86 1
size_t rs_find_newline_sse2(const char *p, size_t n);
size_t rs_count_newlines_sse2(const char *p, size_t n);
size_t rs_find_any_sse2(const char *p, size_t n, const rs_byteset *set);
size_t rs_find_substr_sse2(const char *h, size_t n, const char *s, size_t m);
size_t rs_mask_any_sse2(const char *p, size_t n, const rs_byteset *set, uint64_t *bits);
void rs_mask_url_sse2(const char *p, size_t n, uint64_t *nl, uint64_t *delim, uint64_t *end);

size_t rs_find_newline_avx2(const char *p, size_t n);
size_t rs_count_newlines_avx2(const char *p, size_t n);
size_t rs_find_any_avx2(const char *p, size_t n, const rs_byteset *set);
size_t rs_find_substr_avx2(const char *h, size_t n, const char *s, size_t m);
size_t rs_mask_any_avx2(const char *p, size_t n, const rs_byteset *set, uint64_t *bits);
void rs_mask_url_avx2(const char *p, size_t n, uint64_t *nl, uint64_t *delim, uint64_t *end);
#else
#  define RS_SIMD_X86 0
#endif

#endif /* RS_SIMD_H */
