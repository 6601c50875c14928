/*
 * site_origin.c - the site of an access-log line: the one rule that `robotscan
 * logs` (rs_log_auditor, audit.c) and `robotscan shard --logs`
 * (src/shard/split.c) both follow, so that a hit is judged against the site
 * whose shard it was put in.
 *
 * The scheme: the line's own scheme field when it says http or https (any
 * case); otherwise https for port 443, http for any other port; otherwise the
 * configured scheme (--scheme, https by default). The key is then
 * "SCHEME://HOST[:PORT]", which rs_origin_parse makes canonical (IDNA, case,
 * default port).
 *
 * Does not: choose the host (the line's, else --host: the callers do, as both
 * keep a memo of the last line's raw fields around this) or cache anything.
 */
#include "common/common.h"

#include <stdio.h>
#include <strings.h>

size_t rs_log_origin_key(const char *default_scheme, rs_str line_scheme, rs_str host, rs_str port, char *key,
                         size_t cap)
{
    const char *scheme = default_scheme ? default_scheme : "https";
    if (port.len == 3 && memcmp(port.ptr, "443", 3) == 0) scheme = "https";
    else if (port.len) scheme = "http";
    if (line_scheme.len == 5 && strncasecmp(line_scheme.ptr, "https", 5) == 0) scheme = "https";
    else if (line_scheme.len == 4 && strncasecmp(line_scheme.ptr, "http", 4) == 0) scheme = "http";
    const int n = snprintf(key, cap, "%s://%.*s%s%.*s", scheme, (int)host.len, host.ptr, port.len ? ":" : "",
                           (int)port.len, port.ptr);
    if (n < 0 || (size_t)n >= cap) return 0;
    return (size_t)n;
}

int rs_log_origin(const char *default_scheme, rs_str line_scheme, rs_str host, rs_str port, char *buf,
                  size_t buf_cap, rs_origin *out)
{
    char key[RS_ORIGIN_MAX + 16];
    const size_t n = rs_log_origin_key(default_scheme, line_scheme, host, port, key, sizeof key);
    if (n == 0) return 0;
    return rs_origin_parse(key, n, buf, buf_cap, out) == RS_OK && out->error == RS_ORIGIN_OK;
}
