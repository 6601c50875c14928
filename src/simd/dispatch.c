/*
 * dispatch.c - picks the byte-class kernel set once per process and routes
 * the rs_simd_* entry points through it.
 *
 * Choice, first match wins:
 *   1. compile time: -DRS_SIMD_FORCE=scalar|sse2|avx2
 *   2. run time: environment RS_SIMD=scalar|sse2|avx2 (a name the CPU cannot
 *      run, or an unknown name, is ignored and the best set is used)
 *   3. the best set the CPU supports (__builtin_cpu_supports): avx2 > sse2 > scalar
 * The choice is a pointer to one of the const tables below, published with an
 * atomic store; racing first calls compute the same answer, so no lock.
 * Internal kernels (simd.h: mask_url, for the scanner) are not in the public
 * rs_simd_kernels table: each set is that table followed by them
 * (kernel_set), so a table rs_simd_get gives leads to its set's internal
 * kernels (rs_simd_mask_url_of) and RS_SIMD selects them too.
 * Does not: pick per call site or per input size (the kernels handle short
 * ranges themselves).
 */
#include "simd/simd.h"

#include <stdlib.h>
#include <string.h>

/* A set: the public table, then the internal kernels (simd.h). */
typedef struct {
    rs_simd_kernels k;          /* first: a pointer to it is a pointer to the set */
    rs_mask_url_fn mask_url;
} kernel_set;

static const kernel_set k_scalar = {
    { "scalar", rs_find_newline_scalar, rs_count_newlines_scalar, rs_find_any_scalar, rs_find_substr_scalar,
      rs_mask_any_scalar },
    rs_mask_url_scalar,
};
#if RS_SIMD_X86
static const kernel_set k_sse2 = {
    { "sse2", rs_find_newline_sse2, rs_count_newlines_sse2, rs_find_any_sse2, rs_find_substr_sse2,
      rs_mask_any_sse2 },
    rs_mask_url_sse2,
};
static const kernel_set k_avx2 = {
    { "avx2", rs_find_newline_avx2, rs_count_newlines_avx2, rs_find_any_avx2, rs_find_substr_avx2,
      rs_mask_any_avx2 },
    rs_mask_url_avx2,
};
#endif

/* Every set compiled in, best last. */
static const rs_simd_kernels *const all_sets[] = {
    &k_scalar.k,
#if RS_SIMD_X86
    &k_sse2.k,
    &k_avx2.k,
#endif
};
#define N_SETS (sizeof all_sets / sizeof all_sets[0])

static int cpu_runs(const rs_simd_kernels *k)
{
#if RS_SIMD_X86
    if (k == &k_avx2.k) {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2");
    }
    if (k == &k_sse2.k) {
        __builtin_cpu_init();
        return __builtin_cpu_supports("sse2");
    }
#endif
    return k == &k_scalar.k;
}

const rs_simd_kernels *rs_simd_get(const char *name)
{
    if (name == NULL) return rs_simd_active();
    for (size_t i = 0; i < N_SETS; i++)
        if (strcmp(all_sets[i]->name, name) == 0) return cpu_runs(all_sets[i]) ? all_sets[i] : NULL;
    return NULL;
}

const char *rs_simd_impl_at(size_t i)
{
    return i < N_SETS ? all_sets[i]->name : NULL;
}

#define RS_STR2(x) #x
#define RS_STR(x) RS_STR2(x)

static const rs_simd_kernels *choose(void)
{
#ifdef RS_SIMD_FORCE
    const rs_simd_kernels *forced = rs_simd_get(RS_STR(RS_SIMD_FORCE));
    if (forced) return forced;
#endif
    const char *env = getenv("RS_SIMD");
    if (env && *env) {
        const rs_simd_kernels *k = rs_simd_get(env);
        if (k) return k;
    }
    for (size_t i = N_SETS; i-- > 0;)
        if (cpu_runs(all_sets[i])) return all_sets[i];
    return &k_scalar.k;
}

static const rs_simd_kernels *active_set;

const rs_simd_kernels *rs_simd_active(void)
{
    const rs_simd_kernels *k = __atomic_load_n(&active_set, __ATOMIC_ACQUIRE);
    if (RS_UNLIKELY(k == NULL)) {
        k = choose();
        __atomic_store_n(&active_set, k, __ATOMIC_RELEASE);
    }
    return k;
}

const char *rs_simd_impl_name(void) { return rs_simd_active()->name; }

size_t rs_simd_find_newline(const char *p, size_t n) { return rs_simd_active()->find_newline(p, n); }

size_t rs_simd_count_newlines(const char *p, size_t n) { return rs_simd_active()->count_newlines(p, n); }

size_t rs_simd_find_any(const char *p, size_t n, const rs_byteset *set)
{
    return rs_simd_active()->find_any(p, n, set);
}

size_t rs_simd_find_substr(const char *h, size_t n, const char *s, size_t m)
{
    return rs_simd_active()->find_substr(h, n, s, m);
}

size_t rs_simd_mask_any(const char *p, size_t n, const rs_byteset *set, uint64_t *bits)
{
    return rs_simd_active()->mask_any(p, n, set, bits);
}

rs_mask_url_fn rs_simd_mask_url_of(const rs_simd_kernels *k)
{
    return ((const kernel_set *)(const void *)k)->mask_url;
}

void rs_simd_mask_url(const char *p, size_t n, uint64_t *nl, uint64_t *delim, uint64_t *end)
{
    rs_simd_mask_url_of(rs_simd_active())(p, n, nl, delim, end);
}

rs_status rs_byteset_init(rs_byteset *set, const char *members, size_t n)
{
    RS_RETURN_IF(set == NULL || (members == NULL && n > 0), RS_ERR_USAGE);
    memset(set, 0, sizeof *set);
    for (size_t i = 0; i < n; i++) {
        const unsigned char c = (unsigned char)members[i];
        if (set->bits[c >> 6] >> (c & 63) & 1) continue;     /* duplicate */
        RS_RETURN_IF(set->count == RS_BYTESET_MAX, RS_ERR_LIMIT);
        set->bits[c >> 6] |= (uint64_t)1 << (c & 63);
        set->bytes[set->count++] = c;
    }
    return RS_OK;
}
