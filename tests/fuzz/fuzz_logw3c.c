/*
 * fuzz_logw3c.c - fuzzes the W3C extended / CloudFront reader and format
 * detection (src/log/logparse.c: `#Fields:` lines that change mid-input,
 * quoted values, %XX and `+` decoding; rs_log_detect, `auto`).
 *
 * Input: byte 0 picks the format (0 w3c, 1 cloudfront, 2 auto, 3 an
 * ALB/Apache template); the rest is lines, all parsed by one parser in
 * order, after rs_log_detect/rs_logparser_detect ran over the whole text.
 * Slices of OK records are read byte by byte (ASan checks their bounds).
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
    static const char *const specs[] = {"w3c", "cloudfront", "auto", "alb"};
    const char *spec = specs[data[0] % 4];
    rs_logparser *p = NULL;
    if (rs_logparser_create(spec, strlen(spec), NULL, 0, NULL, 0, &p) != RS_OK) abort();
    const char *in = (const char *)data + 1;
    size_t len = size - 1;
    char *text = malloc(len ? len : 1);
    FUZZ_CHECK(text != NULL);
    memcpy(text, in, len);
    (void)rs_log_detect(text, len);
    (void)rs_logparser_detect(p, text, len);
    size_t pos = 0;
    while (pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        const size_t ll = nl ? (size_t)(nl - text) - pos : len - pos;
        char *line = malloc(ll ? ll : 1);
        FUZZ_CHECK(line != NULL);
        memcpy(line, text + pos, ll);
        rs_logrec r;
        if (rs_logparser_parse(p, line, ll, &r) == RS_LOGLINE_OK) {
            const rs_str all[] = {r.client, r.user, r.host, r.port, r.time, r.request, r.method,
                                  r.target, r.protocol, r.referer, r.user_agent, r.scheme};
            for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) touch(all[i]);
        }
        free(line);
        pos += ll + 1;
    }
    free(text);
    rs_logparser_free(p);
    return 0;
}
