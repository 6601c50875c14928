/*
 * fuzz_origin.c - origin extraction (rs_origin_parse, rs_host_canon in
 * src/sites) and the URL splitter (rs_url_split / rs_url_path_of).
 * Input: one URL, any bytes.
 * Checks: RS_OK for any bytes; on success every slice lies in dst, origin =
 * scheme "://" host [":" port], and canonicalisation is idempotent (the
 * origin parses to itself, the host canonicalises to itself); the one-scan
 * path (rs_url_split + rs_url_path_of) equals rs_url_path.
 */
#include "fuzz.h"

#include <string.h>

#include "robotscan.h"

static int inside(rs_str s, const char *dst, size_t cap)
{
    return s.len == 0 || (s.ptr >= dst && s.ptr + s.len <= dst + cap);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *url = (const char *)data;
    char dst[RS_ORIGIN_MAX], again[RS_ORIGIN_MAX], host[RS_ORIGIN_MAX];
    rs_origin o, o2;
    FUZZ_CHECK(rs_origin_parse(url, size, dst, sizeof dst, &o) == RS_OK);
    FUZZ_CHECK(rs_origin_error_str(o.error) != NULL);
    if (o.error == RS_ORIGIN_OK) {
        FUZZ_CHECK(inside(o.origin, dst, sizeof dst) && inside(o.scheme, dst, sizeof dst)
                   && inside(o.host, dst, sizeof dst));
        FUZZ_CHECK(o.origin.len > o.scheme.len + 3 && o.origin.ptr == o.scheme.ptr);
        FUZZ_CHECK(memcmp(o.origin.ptr + o.scheme.len, "://", 3) == 0);
        FUZZ_CHECK(o.host.len > 0 && o.host.ptr == o.origin.ptr + o.scheme.len + 3);
        const size_t rest = o.origin.len - o.scheme.len - 3 - o.host.len;
        FUZZ_CHECK(rest == 0 || o.host.ptr[o.host.len] == ':');
        FUZZ_CHECK(rs_origin_parse(o.origin.ptr, o.origin.len, again, sizeof again, &o2) == RS_OK);
        FUZZ_CHECK(o2.error == RS_ORIGIN_OK);
        FUZZ_CHECK(o2.origin.len == o.origin.len && memcmp(o2.origin.ptr, o.origin.ptr, o.origin.len) == 0);
        FUZZ_CHECK(o2.port == o.port);
        size_t hl = 0;
        FUZZ_CHECK(rs_host_canon(o.host.ptr, o.host.len, host, sizeof host, &hl) == RS_ORIGIN_OK);
        FUZZ_CHECK(hl == o.host.len && memcmp(host, o.host.ptr, hl) == 0);
    }

    char *s1 = malloc(size + 1), *s2 = malloc(size + 1);
    FUZZ_CHECK(s1 != NULL && s2 != NULL);
    const rs_url_parts parts = rs_url_split(url, size);
    FUZZ_CHECK(parts.authority <= parts.authority_end && parts.authority_end <= size);
    const rs_str a = rs_url_path(url, size, s1, size + 1);
    const rs_str b = rs_url_path_of(url, size, &parts, s2, size + 1);
    FUZZ_CHECK(a.len == b.len && memcmp(a.ptr, b.ptr, a.len) == 0);
    free(s1);
    free(s2);
    return 0;
}
