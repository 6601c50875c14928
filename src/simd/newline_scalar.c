/*
 * newline_scalar.c - the reference byte-class kernels: one byte at a time,
 * obviously correct. Every vector kernel is tested against these.
 *
 *   find_newline(p, n):   for i in 0..n: if p[i] == '\n': return i
 *                         return n
 *   count_newlines(p, n): return #{ i < n : p[i] == '\n' }
 *   find_any(p, n, set):  for i in 0..n: if p[i] in set: return i
 *                         return n
 *   find_substr(h, n, s, m): for i in 0..n-m: if h[i, i+m) == s: return i
 *                         return n (an empty s is found at 0)
 *   mask_any(p, n, set, bits): bits[0 .. (n+63)/64) = 0
 *                         for i in 0..n: if p[i] in set: set bit i % 64 of bits[i / 64]
 *                         return the number of bits set
 *   mask_url(p, n, nl, delim, end): words [0 .. (n+63)/64) of three bitmaps,
 *                         bit i % 64 of word i / 64 set when p[i] is:
 *                         nl: '\n';  delim: '/', '?', ';' or '#';  end: '#' or NUL
 */
#include "simd/simd.h"

size_t rs_find_newline_scalar(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] == '\n') return i;
    return n;
}

size_t rs_count_newlines_scalar(const char *p, size_t n)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        count += p[i] == '\n';
    return count;
}

size_t rs_find_any_scalar(const char *p, size_t n, const rs_byteset *set)
{
    for (size_t i = 0; i < n; i++) {
        const unsigned char c = (unsigned char)p[i];
        if (set->bits[c >> 6] >> (c & 63) & 1) return i;
    }
    return n;
}

size_t rs_find_substr_scalar(const char *h, size_t n, const char *s, size_t m)
{
    if (m == 0) return 0;
    for (size_t i = 0; i + m <= n; i++)
        if (h[i] == s[0] && memcmp(h + i, s, m) == 0) return i;
    return n;
}

size_t rs_mask_any_scalar(const char *p, size_t n, const rs_byteset *set, uint64_t *bits)
{
    size_t count = 0;
    for (size_t k = 0; k < (n + 63) / 64; k++) bits[k] = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned char c = (unsigned char)p[i];
        if (set->bits[c >> 6] >> (c & 63) & 1) {
            bits[i / 64] |= (uint64_t)1 << (i % 64);
            count++;
        }
    }
    return count;
}

void rs_mask_url_scalar(const char *p, size_t n, uint64_t *nl, uint64_t *delim, uint64_t *end)
{
    for (size_t k = 0; k < (n + 63) / 64; k++) nl[k] = delim[k] = end[k] = 0;
    for (size_t i = 0; i < n; i++) {
        const char c = p[i];
        const uint64_t bit = (uint64_t)1 << (i % 64);
        if (c == '\n') nl[i / 64] |= bit;
        if (c == '/' || c == '?' || c == ';' || c == '#') delim[i / 64] |= bit;
        if (c == '#' || c == '\0') end[i / 64] |= bit;
    }
}
