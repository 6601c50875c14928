/* test_url.c - SPEC 2.3.14: the path the matcher sees. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "robotscan.h"

static void expect_path(const char *url, const char *want)
{
    char scratch[256];
    const rs_str p = rs_url_path(url, strlen(url), scratch, sizeof scratch);
    cr_expect(p.len == strlen(want) && memcmp(p.ptr, want, p.len) == 0,
              "path of '%s' is '%.*s', want '%s'", url, (int)p.len, p.ptr, want);
}

Test(url, rfc9309_spec_examples)
{
    expect_path("http://a.com", "/");
    expect_path("a.com/x", "/x");
    expect_path("//a.com/x?y#z", "/x?y");
    expect_path("http://a.com?q", "/?q");
    expect_path("http://a.com#f/x", "/");
}

Test(url, rfc9309_scheme_only_before_path)
{
    expect_path("http://a.com/b://c", "/b://c");
    expect_path("a.com/x://y", "/x://y");
    expect_path("a.com?x://y", "/?x://y");
    expect_path("https://user:pw@a.com:8080/p;q?r", "/p;q?r");
}

Test(url, rfc9309_params_and_query_get_a_slash)
{
    expect_path("http://a.com;p", "/;p");
    expect_path("http://a.com?", "/?");
    expect_path("", "/");
    expect_path("/", "/");
    expect_path("/x/y", "/x/y");
}

Test(url, rfc9309_fragment_is_dropped)
{
    expect_path("http://a.com/x#", "/x");
    expect_path("http://a.com/x#y#z", "/x");
    expect_path("http://a.com/#", "/");
}

Test(url, compat_nul_ends_the_path)
{
    char scratch[32];
    const char url[] = "http://a.com/ab\0cd";
    const rs_str p = rs_url_path(url, sizeof url - 1, scratch, sizeof scratch);
    cr_expect_eq(p.len, 3);
    cr_expect(memcmp(p.ptr, "/ab", 3) == 0);
}

Test(url, compat_path_is_not_decoded)
{
    expect_path("http://a.com/%7Efoo/%2f", "/%7Efoo/%2f");
    expect_path("http://a.com/caf\xc3\xa9", "/caf\xc3\xa9");
}

Test(url, compat_path_end_set_matches_byteset_init)
{
    /* rs_url_path's constant byte set must equal what rs_byteset_init builds. */
    rs_byteset a;
    cr_assert_eq(rs_byteset_init(&a, "#", 2), RS_OK);
    char scratch[64];
    const char url[] = "http://a.com/x\0y#z";
    const rs_str p = rs_url_path(url, sizeof url - 1, scratch, sizeof scratch);
    cr_expect_eq(p.len, 2);
    cr_expect_eq(rs_simd_find_any("/x#", 3, &a), 2);
    cr_expect_eq(a.count, 2);
    cr_expect_eq(a.bits[0], (1ull << 35) | 1ull);
}

Test(url, compat_long_urls_all_kernels_agree)
{
    /* Paths longer than a vector, '#' and NUL at every position: rs_url_path (the active
     * kernel set), and the path-end search of every kernel set this CPU runs. */
    char url[200], scratch[256];
    rs_byteset path_end;
    cr_assert_eq(rs_byteset_init(&path_end, "#", 2), RS_OK);
    size_t sets = 0;
    for (size_t i = 0; rs_simd_impl_at(i); i++) {
        const rs_simd_kernels *k = rs_simd_get(rs_simd_impl_at(i));
        if (k == NULL) {
            fprintf(stderr, "SKIP: url::compat_long_urls_all_kernels_agree: kernel set %s: this CPU cannot run it\n",
                    rs_simd_impl_at(i));
            continue;
        }
        sets++;
        memcpy(url, "http://a.com/", 13);
        for (size_t end = 13; end < sizeof url; end++) {
            memset(url + 13, 'p', sizeof url - 13);
            for (int which = 0; which < 2; which++) {
                url[end] = which ? '#' : '\0';
                cr_expect_eq(k->find_any(url + 12, sizeof url - 12, &path_end), end - 12,
                             "%s: end %zu which %d", k->name, end, which);
                const rs_str p = rs_url_path(url, sizeof url, scratch, sizeof scratch);
                cr_expect_eq(p.len, end == 13 ? 1 : end - 12, "end %zu which %d", end, which);
            }
        }
    }
    cr_expect_geq(sets, 1);
}

Test(url, compat_path_start_set_matches_byteset_init)
{
    rs_byteset a;
    cr_assert_eq(rs_byteset_init(&a, "/?;", 3), RS_OK);
    cr_expect_eq(a.bits[0], (1ull << '/') | (1ull << '?') | (1ull << ';'));
    cr_expect_eq(a.bits[1] | a.bits[2] | a.bits[3], 0);
    cr_expect_eq(a.count, 3);
    cr_expect(memcmp(a.bytes, "/?;", 3) == 0);
}

/* The reference's GetPathParamsQuery, ported literally (std::string -> bytes). */
static size_t ref_find_first_of(const char *s, size_t n, size_t from, const char *set)
{
    for (size_t i = from; i < n; i++)
        for (const char *c = set; *c; c++)
            if (s[i] == *c) return i;
    return (size_t)-1;
}

static size_t ref_find(const char *s, size_t n, size_t from, const char *needle)
{
    const size_t m = strlen(needle);
    for (size_t i = from; i + m <= n; i++)
        if (memcmp(s + i, needle, m) == 0) return i;
    return (size_t)-1;
}

static void ref_path(const char *url, size_t n, char *out, size_t *out_len)
{
    const size_t npos = (size_t)-1;
    size_t search_start = (n >= 2 && url[0] == '/' && url[1] == '/') ? 2 : 0;
    size_t early_path = ref_find_first_of(url, n, search_start, "/?;");
    size_t protocol_end = ref_find(url, n, search_start, "://");
    if (early_path < protocol_end) protocol_end = npos;
    protocol_end = protocol_end == npos ? search_start : protocol_end + 3;
    size_t path_start = ref_find_first_of(url, n, protocol_end, "/?;");
    size_t len = 0;
    if (path_start != npos) {
        size_t hash_pos = ref_find(url, n, search_start, "#");
        if (hash_pos < path_start) { out[0] = '/'; *out_len = 1; return; }
        size_t path_end = hash_pos == npos ? n : hash_pos;
        if (url[path_start] != '/') out[len++] = '/';
        memcpy(out + len, url + path_start, path_end - path_start);
        len += path_end - path_start;
    } else {
        out[len++] = '/';
    }
    /* path.c_str(): a NUL ends it. */
    const char *nul = memchr(out, '\0', len);
    *out_len = nul ? (size_t)(nul - out) : len;
}

Test(url, compat_random_urls_match_reference_port)
{
    static const char ALPHA[] = "/?;#:a.\0%xh";
    unsigned seed = 12345;
    char url[80], scratch[96], want[96];
    for (int iter = 0; iter < 200000; iter++) {
        seed = seed * 1103515245u + 12345u;
        const size_t n = (seed >> 16) % 70;
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            url[i] = ALPHA[(seed >> 16) % (sizeof ALPHA - 1)];
        }
        if (iter % 3 == 0 && n > 8) memcpy(url, "http://", 7);
        if (iter % 3 == 1 && n > 8) memcpy(url, iter % 2 ? "https://" : "https:/?", 8); /* fast path + near miss */
        if (iter % 7 == 2 && n > 8) memcpy(url, "//https:", 8);
        size_t want_len;
        ref_path(url, n, want, &want_len);
        const rs_str got = rs_url_path(url, n, scratch, sizeof scratch);
        cr_assert(got.len == want_len && memcmp(got.ptr, want, want_len) == 0,
                  "url '%.*s' (%zu bytes): got '%.*s', want '%.*s'", (int)n, url, n, (int)got.len,
                  got.ptr, (int)want_len, want);
    }
}
