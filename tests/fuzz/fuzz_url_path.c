/*
 * fuzz_url_path.c - URL -> path (rs_url_path) and path canonicalization
 * (rs_canonicalize, i.e. --encode-urls), each against the naive oracle.
 * Input: one URL, any bytes.
 */
#include "fuzz.h"

#include <string.h>

#include "common/naive_robots.h"
#include "robotscan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *url = (const char *)data;
    char *scratch = malloc(size + 1);
    char *want = malloc(size + 2);
    FUZZ_CHECK(scratch != NULL && want != NULL);
    const rs_str path = rs_url_path(url, size, scratch, size + 1);
    const size_t want_len = naive_url_path(url, size, want);
    FUZZ_CHECK(path.len >= 1 && path.ptr[0] == '/');
    FUZZ_CHECK((path.ptr >= url && path.ptr + path.len <= url + size)
               || (path.ptr >= scratch && path.ptr + path.len <= scratch + size + 1)
               || (path.len == 1 && path.ptr[0] == '/'));
    FUZZ_CHECK(path.len == want_len && memcmp(path.ptr, want, want_len) == 0);

    char *enc = malloc(3 * size + 1);
    char *enc_want = malloc(3 * size + 1);
    FUZZ_CHECK(enc != NULL && enc_want != NULL);
    const size_t n = rs_canonicalize(url, size, enc, 3 * size);
    const size_t n_want = naive_canonicalize(url, size, enc_want);
    FUZZ_CHECK(n == n_want && memcmp(enc, enc_want, n) == 0);
    free(enc);
    free(enc_want);
    free(scratch);
    free(want);
    return 0;
}
