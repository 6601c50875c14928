/*
 * path.c - the part of a URL the matcher sees (SPEC 2.3.14), exactly as the
 * reference's GetPathParamsQuery: no decoding, no re-encoding, no
 * validation. Origins (scheme, host, port) are src/sites' job.
 */
#include "common/common.h"

/* First '/', '?' or ';' in s[from, n), or n. */
static size_t find_path_start(const char *s, size_t n, size_t from)
{
    for (size_t i = from; i < n; i++)
        if (s[i] == '/' || s[i] == '?' || s[i] == ';') return i;
    return n;
}

static size_t find_scheme_end(const char *s, size_t n, size_t from)
{
    for (size_t i = from; i + 3 <= n; i++)
        if (s[i] == ':' && s[i + 1] == '/' && s[i + 2] == '/') return i;
    return n;
}

rs_str rs_url_path(const char *url, size_t len, char *scratch, size_t scratch_cap)
{
    static const char ROOT[] = "/";
    rs_str out = { ROOT, 1 };
    const size_t start = (len >= 2 && url[0] == '/' && url[1] == '/') ? 2 : 0;
    const size_t early_path = find_path_start(url, len, start);
    size_t authority = find_scheme_end(url, len, start);
    if (early_path < authority || authority == len) authority = start;
    else authority += 3;

    const size_t path_start = find_path_start(url, len, authority);
    if (path_start == len) return out;
    const char *hash = memchr(url + start, '#', len - start);
    const size_t hash_pos = hash ? (size_t)(hash - url) : len;
    if (hash_pos < path_start) return out;

    /* The reference hands the path on as a C string: a NUL ends it. */
    size_t path_len = hash_pos - path_start;
    const char *nul = memchr(url + path_start, '\0', path_len);
    if (nul) path_len = (size_t)(nul - (url + path_start));

    if (url[path_start] == '/') {
        out.ptr = url + path_start;
        out.len = path_len;
        return out;
    }
    /* A path starting with '?' or ';' gets a '/' in front. */
    assert(scratch_cap >= path_len + 1);
    (void)scratch_cap;
    scratch[0] = '/';
    memcpy(scratch + 1, url + path_start, path_len);
    out.ptr = scratch;
    out.len = path_len + 1;
    return out;
}
