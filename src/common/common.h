/*
 * common.h - internal helpers shared by every module: allocation, error
 * propagation, debug logging. Not part of the public interface.
 */
#ifndef RS_COMMON_H
#define RS_COMMON_H

#include "robotscan.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Readable bytes guaranteed past the end of input buffers (vector over-reads). */
#define RS_PADDING 64

/* All allocation goes through these so failure can be injected in tests. */
void *rs_malloc(size_t size);
void *rs_calloc(size_t n, size_t size);
void *rs_realloc(void *p, size_t size);
void  rs_free(void *p);
/* A copy of @s (rs_free), or NULL. */
char *rs_strdup(const char *s);
/* Tests: make the n-th allocation from now fail (0 disables). */
void  rs_alloc_fail_after(unsigned long n);
/* Tests: allocations left before the injected failure (0: it happened, or none is set). */
unsigned long rs_alloc_fail_pending(void);
/* Asks for huge pages under the whole 2 MiB pages of a buffer of @size bytes at @p
 * not yet written (input blocks, per-line arrays): a first write faults a 2 MiB page
 * in once instead of 512 4 KiB ones. A hint: nothing happens where the system has
 * none; buffers under 4 MiB are left alone. */
void  rs_advise_huge(void *p, size_t size);

#define RS_RETURN_IF(cond, code) do { if (cond) return (code); } while (0)
#define RS_FORWARD(expr) do { rs_status rs_fwd_ = (expr); if (rs_fwd_ != RS_OK) return rs_fwd_; } while (0)

#ifdef RS_DEBUG
#  include <stdio.h>
#  define RS_DEBUGLOG(level, ...) do { if ((level) <= RS_DEBUG) { fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)
#else
#  define RS_DEBUGLOG(level, ...) do { } while (0)
#endif

#define RS_LIKELY(x)   __builtin_expect(!!(x), 1)
#define RS_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define RS_MIN(a, b) ((a) < (b) ? (a) : (b))
#define RS_MAX(a, b) ((a) > (b) ? (a) : (b))

static inline int rs_ascii_lower(int c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }

/* 8 bytes at @p, unaligned: in memory order (rs_load64), or with the byte at
 * @p lowest on any host (rs_load64le, for SWAR byte positions). */
static inline uint64_t rs_load64(const char *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
    return x;
}

static inline uint64_t rs_load64le(const char *p)
{
    uint64_t x = rs_load64(p);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    return x;
}

/*
 * a[0, n) == b[0, n) for the short strings of hot loops (trie labels, log
 * keys): two overlapping words of the size below n, no loop under 17 bytes
 * and no call (a tail loop's varying counts mispredict, and memcmp is a
 * call); longer, 8 bytes a step, then the last 8 overlapping.
 */
static inline int rs_short_eq(const char *a, const char *b, size_t n)
{
    if (n >= 8) {
        uint64_t a0, b0;
        for (size_t i = 0; i + 16 < n; i += 8) {
            memcpy(&a0, a + i, 8);
            memcpy(&b0, b + i, 8);
            if (a0 != b0) return 0;
        }
        uint64_t a1, b1;
        const size_t k = n > 16 ? n - 16 : 0;     /* the last 16 (or all n), as two words */
        memcpy(&a0, a + k, 8);
        memcpy(&b0, b + k, 8);
        memcpy(&a1, a + n - 8, 8);
        memcpy(&b1, b + n - 8, 8);
        return ((a0 ^ b0) | (a1 ^ b1)) == 0;
    }
    if (n >= 4) {
        uint32_t a0, a1, b0, b1;
        memcpy(&a0, a, 4);
        memcpy(&b0, b, 4);
        memcpy(&a1, a + n - 4, 4);
        memcpy(&b1, b + n - 4, 4);
        return ((a0 ^ b0) | (a1 ^ b1)) == 0;
    }
    if (n >= 2) {
        uint16_t a0, a1, b0, b1;
        memcpy(&a0, a, 2);
        memcpy(&b0, b, 2);
        memcpy(&a1, a + n - 2, 2);
        memcpy(&b1, b + n - 2, 2);
        return ((a0 ^ b0) | (a1 ^ b1)) == 0;
    }
    return n == 0 || a[0] == b[0];
}

/* ASCII case-insensitive equality of two slices. */
static inline int rs_ieq(const char *a, size_t alen, const char *b, size_t blen)
{
    if (alen != blen) return 0;
    for (size_t i = 0; i < alen; i++)
        if (rs_ascii_lower((unsigned char)a[i]) != rs_ascii_lower((unsigned char)b[i])) return 0;
    return 1;
}

/* ASCII case-insensitive "does s start with prefix". */
static inline int rs_istarts(const char *s, size_t len, const char *prefix)
{
    size_t plen = strlen(prefix);
    return len >= plen && rs_ieq(s, plen, prefix, plen);
}

/* A growable byte buffer for cold paths (compilation, reports). */
typedef struct {
    char  *ptr;
    size_t len;
    size_t cap;
} rs_buf;

rs_status rs_buf_reserve(rs_buf *b, size_t extra);
rs_status rs_buf_append_slow(rs_buf *b, const void *src, size_t size);

/* Inline while there is room: compilation appends many small pieces. */
static inline rs_status rs_buf_append(rs_buf *b, const void *src, size_t size)
{
    if (RS_LIKELY(b->cap - b->len >= size && size)) {
        memcpy(b->ptr + b->len, src, size);
        b->len += size;
        return RS_OK;
    }
    return rs_buf_append_slow(b, src, size);
}
void      rs_buf_free(rs_buf *b);

/* A chunked bump allocator for records that live as long as their owner (map
 * entries, documents, paths): allocated one after another in chunks that are
 * never moved or reallocated (addresses stay valid while other threads read
 * them) and freed all at once. Not thread-safe: callers serialise allocation.
 * Zero-initialised ({0}) is an empty arena. */
typedef struct rs_arena_chunk rs_arena_chunk;
typedef struct {
    rs_arena_chunk *head;    /* the chunk being filled (then older ones) */
    char  *next;             /* free bytes of head: [next, end) */
    char  *end;
    size_t chunk_size;       /* the size of the next chunk (grows to RS_ARENA_MAX_CHUNK) */
} rs_arena;

#define RS_ARENA_MAX_CHUNK ((size_t)64 << 10)

void *rs_arena_alloc_slow(rs_arena *a, size_t size, size_t align);

/* @size bytes aligned to @align (a power of two, at most 64), uninitialised. NULL: no memory. */
static inline void *rs_arena_alloc_aligned(rs_arena *a, size_t size, size_t align)
{
    const uintptr_t p = ((uintptr_t)a->next + (align - 1)) & ~(uintptr_t)(align - 1);
    if (RS_LIKELY(a->next != NULL && p <= (uintptr_t)a->end && (uintptr_t)a->end - p >= size)) {
        a->next = (char *)p + size;
        return (void *)p;
    }
    return rs_arena_alloc_slow(a, size, align);
}

/* Aligned for any record of pointers and 64-bit integers. */
static inline void *rs_arena_alloc(rs_arena *a, size_t size) { return rs_arena_alloc_aligned(a, size, 8); }

/* A NUL-terminated copy of @len bytes of @s. */
char *rs_arena_strndup(rs_arena *a, const char *s, size_t len);
/* Empties the arena but keeps its newest chunk for what comes next (per-block records). */
void  rs_arena_reset(rs_arena *a);
/* Frees every chunk; the arena is empty (reusable) afterwards. */
void  rs_arena_free(rs_arena *a);

#endif /* RS_COMMON_H */
