/*
 * path.c - the part of a URL the matcher sees (SPEC 2.3.14), exactly as the
 * reference's GetPathParamsQuery: no decoding, no re-encoding, no
 * validation. Origins (scheme, host, port) are src/sites' job.
 */
#include "common/common.h"

/* Byte sets as rs_byteset_init builds them, constant so threads can share them. */
#define BIT(c) (1ull << ((c) & 63))
static const rs_byteset PATH_START = { /* '/', '?', ';' */
    { BIT('/') | BIT('?') | BIT(';'), 0, 0, 0 }, { '/', '?', ';' }, 3,
};
static const rs_byteset AUTHORITY_END = { /* '/', '?', ';', '#' */
    { BIT('/') | BIT('?') | BIT(';') | BIT('#'), 0, 0, 0 }, { '/', '?', ';', '#' }, 4,
};
static const rs_byteset PATH_END = {   /* '#' or the NUL of a C string */
    { BIT('#') | BIT('\0'), 0, 0, 0 }, { '#', '\0' }, 2,
};

/* First '/', '?' or ';' in s[from, n), or n. */
static size_t find_path_start(const char *s, size_t n, size_t from)
{
    return from + rs_simd_find_any(s + from, n - from, &PATH_START);
}

rs_url_parts rs_url_split(const char *url, size_t len)
{
    rs_url_parts parts;
    size_t authority;
    int hash_in_scheme = 0;  /* a '#' in the scheme part: a fragment before the path, as in the reference */
    if (len >= 8 && memcmp(url, "https://", 8) == 0) {
        authority = 8;                   /* the usual case: what the general path finds */
    } else if (len >= 7 && memcmp(url, "http://", 7) == 0) {
        authority = 7;
    } else {
        const size_t start = (len >= 2 && url[0] == '/' && url[1] == '/') ? 2 : 0;
        /* "://" is a scheme's end only when it starts before the first '/', '?' or ';'
         * after start: then its '/' IS that first one, so only one place can hold it. */
        const size_t p = find_path_start(url, len, start);
        authority = p > start && p + 2 <= len && url[p - 1] == ':' && url[p] == '/' && url[p + 1] == '/'
                    ? p + 2 : start;
        hash_in_scheme = authority > start && memchr(url + start, '#', authority - start) != NULL;
    }
    parts.authority = authority;
    parts.authority_end = authority + rs_simd_find_any(url + authority, len - authority, &AUTHORITY_END);
    parts.fragment_first = hash_in_scheme || (parts.authority_end < len && url[parts.authority_end] == '#');
    return parts;
}

rs_str rs_url_path_of(const char *url, size_t len, const rs_url_parts *parts, char *scratch,
                      size_t scratch_cap)
{
    static const char ROOT[] = "/";
    rs_str out = { ROOT, 1 };
    const size_t path_start = parts->authority_end;
    if (path_start == len || parts->fragment_first) return out;

    /* The path ends at '#'; the reference hands it on as a C string, so a NUL ends it too. */
    const size_t path_len = rs_simd_find_any(url + path_start, len - path_start, &PATH_END);
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

rs_str rs_url_path(const char *url, size_t len, char *scratch, size_t scratch_cap)
{
    const rs_url_parts parts = rs_url_split(url, len);
    return rs_url_path_of(url, len, &parts, scratch, scratch_cap);
}

size_t rs_url_encode_path(const char *src, size_t src_size, char *dst, size_t dst_cap)
{
    return rs_canonicalize(src, src_size, dst, dst_cap);
}
