/*
 * fuzz_logjson.c - fuzzes the JSON log reader (src/log/logparse.c: json and
 * cloudflare formats, --field dotted paths).
 *
 * Input: byte 0 picks the format (even: json, odd: cloudflare) and, with bit
 * 1 set, adds --field mappings with dotted paths; the rest is lines, each
 * parsed in turn by one parser. Every record's slices must lie inside the line
 * or the parser's scratch (checked by reading each byte, for ASan); a line
 * that is OK must have a status within 0..999. A second parser reads the same
 * lines by the plain walk (rs_logparser_set_walk): status, error offset,
 * flags, numbers and every slice's text must be the same (the fast reader's
 * shapes carry over from line to line, so a line is checked after the ones
 * before it in the input).
 */
#include "fuzz.h"
#include "robotscan.h"
#include "log/log_internal.h"

#include <string.h>

static unsigned sink;

static void touch(rs_str s)
{
    for (size_t i = 0; i < s.len; i++) sink += (unsigned char)s.ptr[i];
}

static int same(rs_str a, rs_str b)
{
    return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    const char *const fields[] = {"time=a.b.c", "url=r.u", "user_agent=h.User-Agent", "host=x", "status=s"};
    const int cloudflare = data[0] & 1;
    rs_logparser *p = NULL, *walk = NULL;
    if (rs_logparser_create(cloudflare ? "cloudflare" : "json", cloudflare ? 10 : 4, fields, (data[0] & 2) ? 5 : 0,
                            NULL, 0, &p) != RS_OK ||
        rs_logparser_create(cloudflare ? "cloudflare" : "json", cloudflare ? 10 : 4, fields, (data[0] & 2) ? 5 : 0,
                            NULL, 0, &walk) != RS_OK)
        abort();
    rs_logparser_set_walk(walk, 1);
    const char *in = (const char *)data + 1;
    size_t len = size - 1;
    while (len > 0) {
        const char *nl = memchr(in, '\n', len);
        const size_t ll = nl ? (size_t)(nl - in) : len;
        char *line = malloc(ll ? ll : 1);   /* exact size: ASan sees over-reads */
        FUZZ_CHECK(line != NULL);
        memcpy(line, in, ll);
        rs_logrec r, w;
        const rs_logline_status st = rs_logparser_parse(p, line, ll, &r);
        const rs_logline_status sw = rs_logparser_parse(walk, line, ll, &w);
        FUZZ_CHECK(st == sw && r.error_offset == w.error_offset && r.flags == w.flags && r.epoch == w.epoch &&
                   r.status == w.status && r.bytes == w.bytes);
        FUZZ_CHECK(same(r.client, w.client) && same(r.user, w.user) && same(r.host, w.host) && same(r.port, w.port) &&
                   same(r.time, w.time) && same(r.request, w.request) && same(r.method, w.method) &&
                   same(r.target, w.target) && same(r.protocol, w.protocol) && same(r.referer, w.referer) &&
                   same(r.user_agent, w.user_agent) && same(r.scheme, w.scheme));
        if (st == RS_LOGLINE_OK) {
            const rs_str all[] = {r.client, r.user, r.host, r.port, r.time, r.request, r.method,
                                  r.target, r.protocol, r.referer, r.user_agent, r.scheme};
            for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) touch(all[i]);
            FUZZ_CHECK(r.status >= 0 && r.status <= 999);
        } else {
            FUZZ_CHECK(r.user_agent.len == 0 && r.target.len == 0);
        }
        free(line);
        if (nl == NULL) break;
        len -= ll + 1;
        in = nl + 1;
    }
    rs_logparser_free(p);
    rs_logparser_free(walk);
    return 0;
}
