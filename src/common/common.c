/*
 * common.c - allocation with failure injection, status names, version,
 * growable buffers.
 */
#include "common/common.h"

#include <stdint.h>
#if defined(__linux__)
#  include <sys/mman.h>
#endif

static unsigned long fail_countdown; /* 0 = never fail; atomic: worker threads allocate too */

void rs_alloc_fail_after(unsigned long n) { __atomic_store_n(&fail_countdown, n, __ATOMIC_RELAXED); }

unsigned long rs_alloc_fail_pending(void) { return __atomic_load_n(&fail_countdown, __ATOMIC_RELAXED); }

static int should_fail(void)
{
    unsigned long n = __atomic_load_n(&fail_countdown, __ATOMIC_RELAXED);
    while (n != 0)  /* exactly one allocation fails, whichever thread makes it */
        if (__atomic_compare_exchange_n(&fail_countdown, &n, n - 1, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return n == 1;
    return 0;
}

void *rs_malloc(size_t size) { return should_fail() ? NULL : malloc(size ? size : 1); }
void *rs_calloc(size_t n, size_t size) { return should_fail() ? NULL : calloc(n ? n : 1, size ? size : 1); }
void *rs_realloc(void *p, size_t size) { return should_fail() ? NULL : realloc(p, size ? size : 1); }
void  rs_free(void *p) { free(p); }

char *rs_strdup(const char *s)
{
    const size_t n = strlen(s) + 1;
    char *d = rs_malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

void rs_advise_huge(void *p, size_t size)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (p == NULL || size < 2 * huge) return;
    const uintptr_t from = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    const uintptr_t to = ((uintptr_t)p + size) & ~(huge - 1);
    if (to > from) (void)madvise((void *)from, to - from, MADV_HUGEPAGE);
#else
    (void)p;
    (void)size;
#endif
}

unsigned rs_version_number(void) { return RS_VERSION_NUMBER; }
const char *rs_version_string(void) { return RS_VERSION_STRING; }

const char *rs_status_str(rs_status st)
{
    switch (st) {
    case RS_OK:          return "ok";
    case RS_ERR_NOMEM:   return "out of memory";
    case RS_ERR_IO:      return "I/O error";
    case RS_ERR_CORRUPT: return "corrupt input";
    case RS_ERR_USAGE:   return "misuse of the API";
    case RS_ERR_LIMIT:   return "input exceeds a limit";
    case RS_ERR_EOF:     return "end of input";
    case RS_ERR_CANCELED: return "canceled";
    }
    return "unknown status";
}

rs_status rs_buf_reserve(rs_buf *b, size_t extra)
{
    if (b->cap - b->len >= extra) return RS_OK;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < extra) {
        RS_RETURN_IF(cap > ((size_t)-1) / 2, RS_ERR_NOMEM);
        cap *= 2;
    }
    char *p = rs_realloc(b->ptr, cap);
    RS_RETURN_IF(p == NULL, RS_ERR_NOMEM);
    b->ptr = p;
    b->cap = cap;
    return RS_OK;
}

rs_status rs_buf_append_slow(rs_buf *b, const void *src, size_t size)
{
    RS_FORWARD(rs_buf_reserve(b, size));
    if (size) memcpy(b->ptr + b->len, src, size);
    b->len += size;
    return RS_OK;
}

void rs_buf_free(rs_buf *b)
{
    rs_free(b->ptr);
    b->ptr = NULL;
    b->len = b->cap = 0;
}

/* ===== Arena ===== */

struct rs_arena_chunk {
    rs_arena_chunk *next;    /* the previous chunk */
    _Alignas(16) char data[];
};

#define ARENA_FIRST_CHUNK ((size_t)4 << 10)

void *rs_arena_alloc_slow(rs_arena *a, size_t size, size_t align)
{
    if (size > RS_ARENA_MAX_CHUNK / 4) {
        /* A large record gets a chunk of its own, behind the one being filled. */
        RS_RETURN_IF(size > SIZE_MAX - sizeof(rs_arena_chunk) - align, NULL);
        rs_arena_chunk *c = rs_malloc(sizeof *c + size + align);
        if (c == NULL) return NULL;
        char *p = (char *)(((uintptr_t)c->data + (align - 1)) & ~(uintptr_t)(align - 1));
        if (a->head != NULL) {
            c->next = a->head->next;
            a->head->next = c;
        } else {
            c->next = NULL;
            a->head = c;
            a->next = a->end = p + size;
        }
        return p;
    }
    size_t cap = a->chunk_size ? a->chunk_size : ARENA_FIRST_CHUNK;
    while (cap - sizeof(rs_arena_chunk) < size + align) cap *= 2;
    rs_arena_chunk *c = rs_malloc(cap);
    if (c == NULL) return NULL;
    c->next = a->head;
    a->head = c;
    a->end = (char *)c + cap;
    a->chunk_size = RS_MIN(cap * 2, RS_ARENA_MAX_CHUNK);
    char *p = (char *)(((uintptr_t)c->data + (align - 1)) & ~(uintptr_t)(align - 1));
    a->next = p + size;
    return p;
}

char *rs_arena_strndup(rs_arena *a, const char *s, size_t len)
{
    char *p = rs_arena_alloc_aligned(a, len + 1, 1);
    if (p == NULL) return NULL;
    if (len) memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

void rs_arena_reset(rs_arena *a)
{
    rs_arena_chunk *c = a->head;
    if (c == NULL) return;
    rs_arena_chunk *rest = c->next;
    c->next = NULL;
    a->next = c->data;      /* end stays: the head chunk's end */
    while (rest != NULL) {
        rs_arena_chunk *next = rest->next;
        rs_free(rest);
        rest = next;
    }
}

void rs_arena_free(rs_arena *a)
{
    rs_arena_chunk *c = a->head;
    while (c != NULL) {
        rs_arena_chunk *next = c->next;
        rs_free(c);
        c = next;
    }
    memset(a, 0, sizeof *a);
}
