/*
 * fuzz_logjson.c - fuzzes the JSON log reader (src/log/logparse.c: json and
 * cloudflare formats, --field dotted paths).
 *
 * Input: byte 0 picks the format (even: json, odd: cloudflare) and, with bit
 * 1 set, adds --field mappings with dotted paths; the rest is lines, each
 * parsed in turn by one parser. Every record's slices must lie inside the line
 * or the parser's scratch (checked by reading each byte, for ASan); a line
 * that is OK must have a status within 0..999.
 */
#include "fuzz.h"
#include "robotscan.h"

#include <string.h>

static unsigned sink;

static void touch(rs_str s)
{
    for (size_t i = 0; i < s.len; i++) sink += (unsigned char)s.ptr[i];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    const char *const fields[] = {"time=a.b.c", "url=r.u", "user_agent=h.User-Agent", "host=x", "status=s"};
    const int cloudflare = data[0] & 1;
    rs_logparser *p = NULL;
    if (rs_logparser_create(cloudflare ? "cloudflare" : "json", cloudflare ? 10 : 4, fields, (data[0] & 2) ? 5 : 0,
                            NULL, 0, &p) != RS_OK)
        abort();
    const char *in = (const char *)data + 1;
    size_t len = size - 1;
    while (len > 0) {
        const char *nl = memchr(in, '\n', len);
        const size_t ll = nl ? (size_t)(nl - in) : len;
        char *line = malloc(ll ? ll : 1);   /* exact size: ASan sees over-reads */
        FUZZ_CHECK(line != NULL);
        memcpy(line, in, ll);
        rs_logrec r;
        const rs_logline_status st = rs_logparser_parse(p, line, ll, &r);
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
    return 0;
}
