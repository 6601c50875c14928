/*
 * test_logfastfmt.c - the fast paths of the JSON and W3C/CloudFront readers of
 * rs_logparser (src/log/logparse.c: a bitmap of each line's quotes and
 * backslashes, paths found by hash, subtrees no wanted path enters skipped,
 * lines read against the shape of an earlier line, memos of the last time)
 * against the plain walk they must equal (rs_logparser_set_walk): the shared
 * logs written in every JSON layout (nginx escape=json, Caddy, Cloudflare), as
 * W3C (IIS), CloudFront and ALB lines (the ALB template's item walk finds
 * field ends in one bitmap of the line),
 * hand-written odd lines, user key mappings, and random mutations of real
 * lines. Runs on every kernel set under `make test-scalar` too (RS_SIMD).
 */
#include <criterion/criterion.h>

#include "robotscan.h"
#include "common/common.h"
#include "log/log_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef RS_SHARED_DIR
#define RS_SHARED_DIR "../shared"
#endif

typedef struct {
    rs_logparser *fast, *walk;
} pair;

static pair pair_of(const char *spec, const char *const *fields, size_t n)
{
    pair p = { NULL, NULL };
    char err[256] = "";
    cr_assert_eq(rs_logparser_create(spec, strlen(spec), fields, n, err, sizeof err, &p.fast), RS_OK, "%s", err);
    cr_assert_eq(rs_logparser_create(spec, strlen(spec), fields, n, err, sizeof err, &p.walk), RS_OK, "%s", err);
    rs_logparser_set_walk(p.walk, 1);
    return p;
}

static void pair_free(pair p)
{
    rs_logparser_free(p.fast);
    rs_logparser_free(p.walk);
}

/* Equal text; a slice into the line at the same place on both sides. */
static void same_slice(rs_str a, rs_str b, const char *line, size_t len, const char *what, const char *shown)
{
    cr_assert_eq(a.len, b.len, "%s length %zu vs %zu on: %s", what, a.len, b.len, shown);
    if (a.len) cr_assert(memcmp(a.ptr, b.ptr, a.len) == 0, "%s text differs on: %s", what, shown);
    const int ia = a.ptr >= line && a.ptr <= line + len, ib = b.ptr >= line && b.ptr <= line + len;
    cr_assert_eq(ia, ib, "%s: one side points into the line, one not, on: %s", what, shown);
    if (ia && a.len) cr_assert(a.ptr == b.ptr, "%s position differs on: %s", what, shown);
}

static rs_logline_status both(pair p, const char *line, size_t len)
{
    rs_logrec a, b;
    const rs_logline_status sa = rs_logparser_parse(p.fast, line, len, &a);
    const rs_logline_status sb = rs_logparser_parse(p.walk, line, len, &b);
    char shown[600];
    snprintf(shown, sizeof shown, "[%.*s]", (int)RS_MIN(len, 500), line);
    cr_assert_eq(sa, sb, "status %d vs %d on: %s", sa, sb, shown);
    cr_assert_eq(a.flags, b.flags, "flags on: %s", shown);
    cr_assert_eq(a.error_offset, b.error_offset, "error offset on: %s", shown);
    cr_assert_eq(a.epoch, b.epoch, "epoch on: %s", shown);
    cr_assert_eq(a.status, b.status, "status code on: %s", shown);
    cr_assert_eq(a.bytes, b.bytes, "bytes on: %s", shown);
    same_slice(a.client, b.client, line, len, "client", shown);
    same_slice(a.user, b.user, line, len, "user", shown);
    same_slice(a.host, b.host, line, len, "host", shown);
    same_slice(a.port, b.port, line, len, "port", shown);
    same_slice(a.time, b.time, line, len, "time", shown);
    same_slice(a.request, b.request, line, len, "request", shown);
    same_slice(a.method, b.method, line, len, "method", shown);
    same_slice(a.target, b.target, line, len, "target", shown);
    same_slice(a.protocol, b.protocol, line, len, "protocol", shown);
    same_slice(a.referer, b.referer, line, len, "referer", shown);
    same_slice(a.user_agent, b.user_agent, line, len, "user agent", shown);
    same_slice(a.scheme, b.scheme, line, len, "scheme", shown);
    return sa;
}

/* Each line in an exact-size heap copy, so that a read past it shows under ASan. */
static rs_logline_status both_copy(pair p, const char *line, size_t len)
{
    char *c = malloc(len ? len : 1);
    cr_assert_not_null(c);
    memcpy(c, line, len);
    const rs_logline_status st = both(p, c, len);
    free(c);
    return st;
}

/* ===== lines in each layout, from the combined lines of the shared logs ===== */

static size_t put_esc(char *d, rs_str s)
{
    size_t n = 0;
    for (size_t i = 0; i < s.len; i++) {
        const unsigned char c = (unsigned char)s.ptr[i];
        if (c == '"' || c == '\\') { d[n++] = '\\'; d[n++] = (char)c; }
        else if (c < 0x20) n += (size_t)sprintf(d + n, "\\u%04x", c);
        else d[n++] = (char)c;
    }
    d[n] = '\0';
    return n;
}

enum layout { L_NGINX, L_CADDY, L_CLOUDFLARE, L_W3C, L_CLOUDFRONT, L_ALB, L_COUNT };

static const char W3C_FIELDS[] = "#Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip "
                                 "cs-version cs(User-Agent) cs(Referer) cs-host sc-status sc-substatus "
                                 "sc-win32-status sc-bytes time-taken";
static const char CLOUDFRONT_FIELDS[] =
    "#Fields: date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status cs(Referer) "
    "cs(User-Agent) cs-uri-query cs(Cookie) x-edge-result-type x-edge-request-id x-host-header cs-protocol cs-bytes "
    "time-taken x-forwarded-for ssl-protocol ssl-cipher x-edge-response-result-type cs-protocol-version fle-status "
    "fle-encrypted-fields c-port time-to-first-byte x-edge-detailed-result-type sc-content-type sc-content-len "
    "sc-range-start sc-range-end";

/* @s with spaces as @space ("+" or "%20"), '-' when empty. */
static void put_w3c(char *d, rs_str s, const char *space)
{
    size_t n = 0;
    if (s.len == 0) d[n++] = '-';
    for (size_t i = 0; i < s.len; i++) {
        if (s.ptr[i] == ' ' || s.ptr[i] == '\t') n += (size_t)sprintf(d + n, "%s", space);
        else d[n++] = s.ptr[i];
    }
    d[n] = '\0';
}

/* @r as a line of @layout into @out (>= 8 x the line): its length. */
static size_t write_line(enum layout layout, const rs_logrec *r, char *out)
{
    char ip[1024], req[8192], m[256], t[8192], ref[8192], ua[8192], proto[256];
    put_esc(ip, r->client);
    put_esc(req, r->request);
    put_esc(m, r->method);
    put_esc(t, r->target);
    put_esc(ref, r->referer);
    put_esc(ua, r->user_agent);
    put_esc(proto, r->protocol);
    const long long ep = (long long)r->epoch;
    if (layout == L_ALB) {
        const time_t tt = (time_t)r->epoch;
        struct tm tm;
        gmtime_r(&tt, &tm);
        char when[64];
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S.000000Z", &tm);
        return (size_t)sprintf(out, "https %s app/my-loadbalancer/50dc6c495c0c9188 %.*s:1025 10.0.0.1:80 0.000 0.001 "
                               "0.000 %d %d 34 %lld \"%.*s https://semicomplete.com:443%.*s %.*s\" \"%.*s\" "
                               "ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 arn:aws:elasticloadbalancing:us-east-2:1:targetgroup/t/7 "
                               "\"Root=1-58337262-36d228ad5d99923122bbe354\" \"semicomplete.com\" \"-\" 1 %s \"forward\" "
                               "\"-\" \"-\" \"10.0.0.1:80\" \"%d\" \"-\" \"-\" TID_1234abcd",
                               when, (int)r->client.len, r->client.ptr, r->status, r->status, (long long)r->bytes,
                               (int)r->method.len, r->method.ptr, (int)r->target.len, r->target.ptr,
                               (int)r->protocol.len, r->protocol.ptr, (int)r->user_agent.len, r->user_agent.ptr, when,
                               r->status);
    }
    if (layout == L_W3C || layout == L_CLOUDFRONT) {
        const char *sp = layout == L_W3C ? "+" : "%20";
        put_w3c(ip, r->client, sp);
        put_w3c(m, r->method, sp);
        put_w3c(t, r->target, sp);
        put_w3c(ref, r->referer, sp);
        put_w3c(ua, r->user_agent, sp);
        put_w3c(proto, r->protocol, sp);
        const time_t tt = (time_t)r->epoch;
        struct tm tm;
        gmtime_r(&tt, &tm);
        char date[32], clock[32];
        strftime(date, sizeof date, "%Y-%m-%d", &tm);
        strftime(clock, sizeof clock, "%H:%M:%S", &tm);
        if (layout == L_W3C)
            return (size_t)sprintf(out, "%s %s 10.0.0.5 %s %s - 443 - %s %s %s %s semicomplete.com %d 0 0 %lld 15",
                                   date, clock, m, t, ip, proto, ua, ref, r->status, (long long)r->bytes);
        return (size_t)sprintf(out, "%s\t%s\tSFO5-C1\t%lld\t%s\t%s\td111111abcdef8.cloudfront.net\t%s\t%d\t%s\t%s\t-\t-\t"
                               "Hit\tSOX4xw==\tsemicomplete.com\thttps\t0\t0.001\t-\tTLSv1.3\tTLS_AES_128_GCM_SHA256\t"
                               "Hit\t%s\t-\t-\t4242\t0.001\tHit\ttext/html\t-\t-\t-",
                               date, clock, (long long)r->bytes, ip, m, t, r->status, ref, ua, proto);
    }
    switch (layout) {
    case L_NGINX:
        return (size_t)sprintf(out, "{\"time_local\":\"%.*s\",\"remote_addr\":\"%s\",\"remote_user\":\"\","
                               "\"host\":\"semicomplete.com\",\"scheme\":\"https\",\"request\":\"%s\",\"status\":\"%d\","
                               "\"body_bytes_sent\":\"%lld\",\"http_referer\":\"%s\",\"http_user_agent\":\"%s\"}",
                               (int)r->time.len, r->time.ptr, ip, req, r->status, (long long)r->bytes, ref, ua);
    case L_CADDY:
        return (size_t)sprintf(out, "{\"level\":\"info\",\"ts\":%lld.000001,\"logger\":\"http.log.access.log0\","
                               "\"msg\":\"handled request\",\"request\":{\"remote_ip\":\"%s\",\"remote_port\":\"41342\","
                               "\"client_ip\":\"%s\",\"proto\":\"%s\",\"method\":\"%s\",\"host\":\"semicomplete.com\","
                               "\"uri\":\"%s\",\"headers\":{\"User-Agent\":[\"%s\"],\"Accept\":[\"*/*\"],"
                               "\"Referer\":[\"%s\"]},\"tls\":{\"resumed\":false,\"version\":772}},\"bytes_read\":0,"
                               "\"user_id\":\"\",\"duration\":0.000929675,\"size\":%lld,\"status\":%d,"
                               "\"resp_headers\":{\"Server\":[\"Caddy\"]}}",
                               ep, ip, ip, proto, m, t, ua, ref, (long long)r->bytes, r->status);
    default:
        return (size_t)sprintf(out, "{\"ClientIP\":\"%s\",\"ClientRequestHost\":\"semicomplete.com\","
                               "\"ClientRequestMethod\":\"%s\",\"ClientRequestURI\":\"%s\",\"ClientRequestScheme\":\"https\","
                               "\"ClientRequestProtocol\":\"%s\",\"ClientRequestReferer\":\"%s\","
                               "\"ClientRequestUserAgent\":\"%s\",\"EdgeStartTimestamp\":%lld123456789,"
                               "\"EdgeResponseStatus\":%d,\"EdgeResponseBytes\":%lld,\"RayID\":\"7d2b4b9c8e1f0a01\"}",
                               ip, m, t, proto, ref, ua, ep, r->status, (long long)r->bytes);
    }
}

static const char *const JSON_ODD[] = {
    "{}", "{", "}", "[]", "{\"a\":1}", "{\"host\":\"x\"", "{\"host\":\"x\",}", "{\"host\":\"x\"} x",
    "{\"\":{\"host\":\"h\",\"uri\":\"/a\"}}", "{\"request\":{\"\":{\"uri\":\"/x\"}}}",
    "{\"request\":{\"uri\":\"/a\",\"headers\":{\"User-Agent\":[\"bot/1\",\"b\"],\"Referer\":[]}}}",
    "{\"request.uri\":\"/a\",\"request\":{\"uri\":\"/b\"}}", "{\"request\":{\"uri\":\"/b\"},\"request.uri\":\"/a\"}",
    "{\"request\":[{\"uri\":\"/a\"}],\"uri\":\"/c\"}", "{\"request\":\"GET /x HTTP/1.1\",\"uri\":\"/y\"}",
    "{\"x\":{\"y\":{\"z\":{\"host\":\"a\"}}},\"host\":\"b\",\"uri\":\"/\"}",
    "{\"uri\":\"/a\\\"b\\\\c\\u0041\\ud83d\\ude00\\ud800\"}", "{\"uri\":\"/a\\x\"}", "{\"uri\":\"/a\\u00g0\"}",
    "{\"uri\":\"/a\\", "{\"uri\":\"/a\\\"", "{\"ur\\u0069\":\"/k\"}", "{\"uri\":\"/a\",\"status\":\"20x\"}",
    "{\"uri\":\"/a\",\"status\":2000}", "{\"uri\":\"/a\",\"status\":200,\"ts\":1431857103.5}",
    "{\"uri\":\"/a\",\"ts\":\"2015-05-17T10:05:03Z\"}", "{\"uri\":\"/a\",\"ts\":true,\"size\":null}",
    "{\"uri\":\"/a\",\"ts\":tru}", "{\"uri\":\"/a\",\"size\":-}", "{\"uri\":\"-\",\"host\":\"-\"}",
    " \t{ \"uri\" : \"/a\" , \"host\" :\"h\" } \r", "{\"uri\":\"/a\"}\r",
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
    "{\"a\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}",
    "{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":"
    "{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":{\"a\":"
    "{\"a\":1}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}}",
    "{\"ClientRequestURI\":\"/a\",\"EdgeStartTimestamp\":\"2015-05-17T10:05:03Z\",\"EdgeResponseStatus\":200}",
    "{\"ClientRequestURI\":\"/a\",\"EdgeStartTimestamp\":1431857103123,\"ClientIP\":\"1.2.3.4\"}",
    "{\"a\":\"\\\\\\\\\\\"\",\"uri\":\"/q\"}", "{\"a\":\"\\\\\",\"uri\":\"/q\\\\\"}",
    "", "   ", "\r", "x", "\"", "\\",
};

static void odd_lines(pair p)
{
    for (int round = 0; round < 2; round++)
        for (size_t i = 0; i < sizeof JSON_ODD / sizeof JSON_ODD[0]; i++)
            both_copy(p, JSON_ODD[i], strlen(JSON_ODD[i]));
}

Test(logfastfmt, json_odd_lines_equal_the_walk)
{
    pair p = pair_of("json", NULL, 0);
    odd_lines(p);
    pair_free(p);
    p = pair_of("cloudflare", NULL, 0);
    odd_lines(p);
    pair_free(p);
    /* user keys: nested, with dots, empty-key paths, two fields on one key */
    const char *const fields[] = { "url=a.b.c", "host=x.y", "client=request", "user_agent=x.y", "status=a.b",
                                   "referer=.host", "time=a..b", "method=request.method" };
    p = pair_of("json", fields, sizeof fields / sizeof fields[0]);
    odd_lines(p);
    static const char *const more[] = {
        "{\"a\":{\"b\":{\"c\":\"/x\"},\"b.c\":\"/y\"},\"x\":{\"y\":\"Bot/1\"}}",
        "{\"a.b\":{\"c\":\"/x\"},\"a\":{\"b\":200}}", "{\"\":{\"host\":\"r\"},\"a\":{\"\":{\"b\":\"1431857103\"}}}",
        "{\"request\":\"1.2.3.4\",\"a\":{\"b\":{\"c\":[\"/z\"]}}}", "{\"request\":{\"method\":\"GET\"}}",
    };
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++) both_copy(p, more[i], strlen(more[i]));
    pair_free(p);
    /* the fast reader's (node, key) table: keys alike in their first and last
     * 8 bytes, a path reached through every split of its dots, deep arrays */
    const char *const deep[] = { "url=aaaaaaaaXaaaaaaaa", "host=aaaaaaaaYaaaaaaaa.q.r", "user_agent=a.b.c.d.e",
                                 "status=a.b", "client=x..y" };
    p = pair_of("json", deep, sizeof deep / sizeof deep[0]);
    static const char *const lines[] = {
        "{\"aaaaaaaaZaaaaaaaa\":\"/no\",\"aaaaaaaaXaaaaaaaa\":\"/yes\",\"aaaaaaaaYaaaaaaaa\":{\"q.r\":\"h1\"}}",
        "{\"aaaaaaaaYaaaaaaaa.q\":{\"r\":\"h2\"},\"aaaaaaaaYaaaaaaaa\":{\"q\":{\"r\":\"h3\"}}}",
        "{\"a\":{\"b.c\":{\"d\":{\"e\":\"Bot/1\"}}},\"a.b\":{\"c.d.e\":\"Bot/2\"},\"a.b.c.d.e\":\"Bot/3\"}",
        "{\"a\":{\"b\":[[200],[404]],\"b.c.d\":{\"e\":[\"Bot/4\",\"Bot/5\"]}}}",
        "{\"a\":{\"b\":[{\"c\":{\"d\":{\"e\":\"in an array\"}}}]},\"x\":{\"\":{\"y\":\"1.2.3.4\"}}}",
        "{\"x.\":{\"y\":\"5.6.7.8\"},\"\":{\"\":{\"a\":{\"b\":\"301\"}}},\"a\":{\"b\":{\"x\":1}}}",
        "{\"a\":{\"b\":\"2\\u0030\\u0030\"},\"a\\u002eb\":\"500\",\"aaaaaaaaXaaaaaaa\":\"/short\"}",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) both_copy(p, lines[i], strlen(lines[i]));
    pair_free(p);
}

Test(logfastfmt, json_layouts_of_the_shared_logs_and_mutations_equal_the_walk)
{
    const char *const names[] = { "elastic-apache_logs.log", "lnav-shop-access.log", "logparser-hackers-access.log" };
    static const char edits[] = "\"\\{}[],: x0.-\tu\r%+";
    rs_logparser *comb = NULL;
    cr_assert_eq(rs_logparser_create("combined", 8, NULL, 0, NULL, 0, &comb), RS_OK);
    pair ps[L_COUNT] = { pair_of("json", NULL, 0), pair_of("json", NULL, 0), pair_of("cloudflare", NULL, 0),
                         pair_of("w3c", NULL, 0), pair_of("cloudfront", NULL, 0), pair_of("alb", NULL, 0) };
    both(ps[L_W3C], W3C_FIELDS, strlen(W3C_FIELDS));
    both(ps[L_CLOUDFRONT], CLOUDFRONT_FIELDS, strlen(CLOUDFRONT_FIELDS));
    unsigned seed = 2525;
    size_t lines = 0, ok = 0, mutated = 0;
    char *out = malloc(1 << 16), *buf = malloc(1 << 16);
    cr_assert(out && buf);
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        char path[512];
        snprintf(path, sizeof path, "%s/data/logs/%s", RS_SHARED_DIR, names[k]);
        FILE *fp = fopen(path, "rb");
        cr_assert_not_null(fp, "cannot open %s", path);
        char *line = NULL;
        size_t cap = 0;
        ssize_t n;
        while ((n = getline(&line, &cap, fp)) >= 0) {
            size_t len = (size_t)n;
            if (len > 0 && line[len - 1] == '\n') len--;
            if (len > 4000) continue;
            rs_logrec r;
            if (rs_logparser_parse(comb, line, len, &r) != RS_LOGLINE_OK) continue;
            for (int l = 0; l < L_COUNT; l++) {
                const size_t olen = write_line((enum layout)l, &r, out);
                lines++;
                ok += both_copy(ps[l], out, olen) == RS_LOGLINE_OK;
                for (int m = 0; m < 2; m++) {         /* two edited copies of each line */
                    memcpy(buf, out, olen);
                    size_t blen = olen;
                    const int nedits = 1 + rand_r(&seed) % 2;
                    for (int e = 0; e < nedits; e++) {
                        const size_t at = (size_t)rand_r(&seed) % blen;
                        const char c = edits[(size_t)rand_r(&seed) % (sizeof edits - 1)];
                        switch (rand_r(&seed) % 4) {
                        case 0: buf[at] = c; break;                                   /* replace */
                        case 1: memmove(buf + at + 1, buf + at, blen - at); buf[at] = c; blen++; break;
                        case 2: if (blen > 1) { memmove(buf + at, buf + at + 1, blen - at - 1); blen--; } break;
                        default: blen = at + 1; break;                                /* truncate */
                        }
                    }
                    both_copy(ps[l], buf, blen);
                    mutated++;
                }
            }
        }
        free(line);
        fclose(fp);
    }
    free(out);
    free(buf);
    for (int l = 0; l < L_COUNT; l++) pair_free(ps[l]);
    rs_logparser_free(comb);
    cr_assert_geq(lines, 80000, "wrote %zu lines", lines);
    cr_assert_geq(ok, 78000, "parsed %zu lines", ok);
    cr_assert_geq(mutated, 160000);
}

/* %XX and '+' decoding (W3C user agents and referers, CloudFront's): the fast
 * decode (8 bytes a step between escapes, the last agent memoised) against
 * the byte loop of the walk, on values of every length up to 40 made of
 * escapes, hex digits and others, each line twice. */
Test(logfastfmt, url_decoded_values_equal_the_walk)
{
    static const char alphabet[] = "%%%++0aFfgZ /-";
    pair w3c = pair_of("w3c", NULL, 0), cf = pair_of("cloudfront", NULL, 0);
    const char *const fields[] = { "#Fields: date time c-ip cs-method cs-uri-stem sc-status cs(User-Agent) cs(Referer)" };
    both(w3c, fields[0], strlen(fields[0]));
    both(cf, fields[0], strlen(fields[0]));
    unsigned seed = 99;
    char ua[64], line[256];
    for (int round = 0; round < 20000; round++) {
        const size_t n = 1 + (size_t)round % 40;
        for (size_t i = 0; i < n; i++) ua[i] = alphabet[(size_t)rand_r(&seed) % (sizeof alphabet - 1)];
        ua[n] = '\0';
        for (int k = 0; k < 2; k++) {
            const int len = snprintf(line, sizeof line, "2015-05-17%c10:05:03%c1.2.3.4%cGET%c/a%c200%c%s%c%s",
                                     k ? '\t' : ' ', k ? '\t' : ' ', k ? '\t' : ' ', k ? '\t' : ' ',
                                     k ? '\t' : ' ', k ? '\t' : ' ', ua, k ? '\t' : ' ', ua);
            both_copy(k ? cf : w3c, line, (size_t)len);
            both_copy(k ? cf : w3c, line, (size_t)len);   /* again: the fast reader's memo of the agent */
        }
    }
    pair_free(w3c);
    pair_free(cf);
}

/* W3C, CloudFront and ALB times: the fast readers keep the epoch of the last
 * date and read only the clock of a line of that date; the walks parse each
 * whole. Dates that repeat, change and are invalid, clocks at and past their
 * limits, ALB fractions and zones, in a shuffled order. */
Test(logfastfmt, w3c_times_equal_the_walk)
{
    static const char *const dates[] = { "2015-05-17", "2016-02-29", "2015-02-29", "2015-13-01", "2015-5-17",
                                         "1970-01-01", "2015-05-18" };
    static const char *const clocks[] = { "10:05:03", "00:00:00", "23:59:59", "23:59:60", "23:59:61", "24:00:00",
                                          "10:60:00", "10:5:03", "1a:00:00", "10-05-03", "10:05:03Z",
                                          "10:05:03.5", "10:05:0", "10:05:03+01:00" };
    pair w3c = pair_of("w3c", NULL, 0), cf = pair_of("cloudfront", NULL, 0), alb = pair_of("alb", NULL, 0);
    const char *const fields = "#Fields: date time c-ip cs-method cs-uri-stem sc-status cs(User-Agent)";
    both(w3c, fields, strlen(fields));
    both(cf, fields, strlen(fields));
    unsigned seed = 7;
    char line[256];
    const size_t nd = sizeof dates / sizeof dates[0], nc = sizeof clocks / sizeof clocks[0];
    for (int round = 0; round < 4000; round++) {
        const char *d = dates[(size_t)rand_r(&seed) % (round % 3 ? 2 : nd)];   /* mostly a repeated date */
        const char *c = clocks[(size_t)rand_r(&seed) % (round % 2 ? 3 : nc)];
        for (int k = 0; k < 2; k++) {
            const char sep = k ? '\t' : ' ';
            const int len = snprintf(line, sizeof line, "%s%c%s%c1.2.3.4%cGET%c/a%c200%cBot/1", d, sep, c, sep,
                                     sep, sep, sep, sep);
            both_copy(k ? cf : w3c, line, (size_t)len);
        }
        /* ALB: the clock of a cached date, then the fraction and zone checked */
        static const char *const tails[] = { ".000000Z", "Z", ".5z", ".Z", "0Z", ".12x4Z", "+00:00", ".1" };
        const int len = snprintf(line, sizeof line, "https %sT%s%s app/lb/1 1.2.3.4:1025 10.0.0.1:80 0.000 0.001 "
                                 "0.000 200 200 34 2326 \"GET /a HTTP/1.1\" \"Bot/1\"", d, c,
                                 tails[(size_t)rand_r(&seed) % (round % 2 ? 1 : sizeof tails / sizeof tails[0])]);
        both_copy(alb, line, (size_t)len);
    }
    pair_free(w3c);
    pair_free(cf);
    pair_free(alb);
}

/* ===== JSON shapes (json_replay) and times (json_time) ===== */

/* Each line edited at every byte (a byte replaced or inserted from @edits,
 * or the byte deleted), each edit read right after @base, then @base again:
 * the fast reader keeps the last accepted line of each quote count as a
 * shape and reads a line with as many quotes against it first, so edits are
 * read against the base's shape and the base against an edit's. Runs of 1-4
 * backslashes and an escaped quote go in near each 64-byte word edge of the
 * quote bitmap. */
static void shape_edits(pair p, const char *base, const char *edits)
{
    const size_t n = strlen(base), ne = strlen(edits);
    char *buf = malloc(n + 8);
    cr_assert_not_null(buf);
    both_copy(p, base, n);
    for (size_t at = 0; at < n; at++) {
        for (size_t e = 0; e <= ne; e++) {
            for (int op = 0; op < 2; op++) {
                size_t m = n;
                memcpy(buf, base, n);
                if (e == ne) {                                  /* delete */
                    if (op) continue;
                    memmove(buf + at, buf + at + 1, n - at - 1);
                    m--;
                } else if (op == 0) {
                    buf[at] = edits[e];
                } else {
                    memmove(buf + at + 1, buf + at, n - at);
                    buf[at] = edits[e];
                    m++;
                }
                both_copy(p, buf, m);
                both_copy(p, base, n);
            }
        }
    }
    static const char *const runs[] = { "\\", "\\\\", "\\\\\\", "\\\\\\\\", "\\\"", "\\\\\\\"" };
    for (size_t edge = 64; edge < n + 64; edge += 64)
        for (size_t at = edge >= 5 ? edge - 5 : 0; at < edge + 5 && at < n; at++)
            for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
                const size_t rl = strlen(runs[r]);
                memcpy(buf, base, at);
                memcpy(buf + at, runs[r], rl);
                memcpy(buf + at + rl, base + at, n - at);
                both_copy(p, buf, n + rl);
                both_copy(p, base, n);
                memcpy(buf, base, n);                           /* in place: the quote count kept */
                memcpy(buf + at, runs[r], RS_MIN(rl, n - at));
                both_copy(p, buf, n);
                both_copy(p, base, n);
            }
    free(buf);
}

static const char CADDY_LINE[] =
    "{\"level\":\"info\",\"ts\":1431857103.000001,\"logger\":\"http.log.access.log0\",\"msg\":\"handled request\","
    "\"request\":{\"remote_ip\":\"83.149.9.216\",\"remote_port\":\"41342\",\"client_ip\":\"83.149.9.216\","
    "\"proto\":\"HTTP/1.1\",\"method\":\"GET\",\"host\":\"semicomplete.com\",\"uri\":\"/presentations/kibana.png\","
    "\"headers\":{\"User-Agent\":[\"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_9_1) Chrome/32.0.1700.77\"],"
    "\"Accept\":[\"*/*\"],\"Referer\":[\"http://semicomplete.com/a/\"]},\"tls\":{\"resumed\":false,\"version\":772}},"
    "\"bytes_read\":0,\"user_id\":\"\",\"duration\":0.000929675,\"size\":203023,\"status\":200,"
    "\"resp_headers\":{\"Server\":[\"Caddy\"]}}";
static const char CLOUDFLARE_LINE[] =
    "{\"ClientIP\":\"83.149.9.216\",\"ClientRequestHost\":\"semicomplete.com\",\"ClientRequestMethod\":\"GET\","
    "\"ClientRequestURI\":\"/presentations/kibana.png\",\"ClientRequestScheme\":\"https\","
    "\"ClientRequestProtocol\":\"HTTP/1.1\",\"ClientRequestReferer\":\"http://semicomplete.com/a/\","
    "\"ClientRequestUserAgent\":\"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_9_1) Chrome/32.0.1700.77\","
    "\"EdgeStartTimestamp\":1431857103123456789,\"EdgeEndTimestamp\":1431857103123456789,"
    "\"EdgeResponseStatus\":200,\"EdgeResponseBytes\":203023,\"RayID\":\"7d2b4b9c8e1f0a01\"}";
static const char NGINX_LINE[] =
    "{\"time_iso8601\":\"2015-05-17T10:05:03+00:00\",\"remote_addr\":\"83.149.9.216\",\"remote_user\":\"\","
    "\"host\":\"semicomplete.com\",\"scheme\":\"https\",\"request\":\"GET /presentations/kibana.png HTTP/1.1\","
    "\"status\":\"200\",\"body_bytes_sent\":\"203023\",\"http_referer\":\"http://semicomplete.com/a/\","
    "\"http_user_agent\":\"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_9_1) Chrome/32.0.1700.77\"}";
/* whitespace, literals and numbers between strings, unwanted values with
 * braces and nested arrays and objects, a wanted path under an array */
static const char ODD_LINE[] =
    " { \"uri\" : \"/a{b}[c]\" ,\"x\":\"{[}]:,\", \"status\":\t200 ,\"t\":true,\"n\":null,"
    "\"skip\":{\"a\":[{\"b\":\"}\"},[1,[2]],{}],\"c\":[]},\"request\":[{\"uri\":\"/no\"},\"x\"],"
    "\"ts\":-1.5e3 , \"host\":\"h:8080\",\"size\":12 }";

/* keys given twice: the first value of equal prio wins (the shape decides
 * the winners once, from the order of the offers) */
static const char DUP_LINE[] =
    "{\"uri\":\"/a\",\"host\":\"h1\",\"ts\":1431857103,\"uri\":\"/b\",\"host\":\"h2\",\"status\":200,"
    "\"ts\":\"2015-05-17T10:05:03Z\",\"status\":404,\"request\":{\"uri\":\"/c\"},\"url\":\"/d\"}";

Test(logfastfmt, json_shapes_replayed_equal_the_walk)
{
    static const char edits[] = "\"\\{}[],: x0.-e\tZtn";
    pair p = pair_of("json", NULL, 0);
    shape_edits(p, CADDY_LINE, edits);
    shape_edits(p, NGINX_LINE, edits);
    shape_edits(p, ODD_LINE, edits);
    shape_edits(p, DUP_LINE, edits);
    pair_free(p);
    p = pair_of("cloudflare", NULL, 0);
    shape_edits(p, CLOUDFLARE_LINE, edits);
    pair_free(p);
    /* user paths into nested objects and arrays, keys of other lengths */
    const char *const fields[] = { "url=request.uri", "user_agent=request.headers.User-Agent", "status=status",
                                   "host=request.host", "time=ts" };
    p = pair_of("json", fields, sizeof fields / sizeof fields[0]);
    shape_edits(p, CADDY_LINE, "\"\\:,x0");
    pair_free(p);
    /* lines of several shapes in turn (quote counts in the same slot and not),
     * each read many times */
    p = pair_of("json", NULL, 0);
    const char *const mixed[] = { CADDY_LINE, NGINX_LINE, ODD_LINE, "{\"uri\":\"/a\"}", "{\"uri\":\"/a\",\"x\":1}",
                                  "{\"x\":1,\"uri\":\"/a\"}", "{\"uri\":\"/a\",\"a\":\"\",\"b\":\"\",\"c\":\"\",\"d\":\"\"}",
                                  "{\"uri\":\"/a\",\"a\":\"\",\"b\":\"\",\"c\":\"\",\"d\":1}",
                                  "{\"uri\":\"/a\",\"a\":[\"\",\"\"],\"b\":{\"c\":\"\",\"d\":\"\"}}" };
    unsigned seed = 25;
    for (int round = 0; round < 3000; round++) {
        const char *l = mixed[(size_t)rand_r(&seed) % (sizeof mixed / sizeof mixed[0])];
        both_copy(p, l, strlen(l));
    }
    /* a key that changes from line to line (shapes never used: the slot's
     * back-off), now and then the line it came from and a wanted key there */
    char line[sizeof CADDY_LINE + 16];
    for (int round = 0; round < 5000; round++) {
        const int k = rand_r(&seed) % 100, what = round % 7;
        const char *name = what == 0 ? "msg" : what == 1 ? "uri" : NULL;
        char key[8];
        snprintf(key, sizeof key, "m%02d", k);
        const char *at = strstr(CADDY_LINE, "\"msg\"");
        const size_t pre = (size_t)(at - CADDY_LINE) + 1;
        const int len = snprintf(line, sizeof line, "%.*s%s%s", (int)pre, CADDY_LINE, name ? name : key, at + 4);
        both_copy(p, line, (size_t)len);
    }
    pair_free(p);
}

/* JSON time strings: the fast reader keeps the day of the last ISO 8601 one
 * and reads only the clock of a string alike but for it; the walk parses
 * each whole. Clocks at and past their limits, dates and zones that change,
 * fractions, other layouts, in a shuffled order. */
Test(logfastfmt, json_times_equal_the_walk)
{
    static const char *const times[] = {
        "2015-05-17T10:05:03+00:00", "2015-05-17T10:05:04+00:00", "2015-05-17T00:00:00+00:00",
        "2015-05-17T23:59:59+00:00", "2015-05-17T23:59:60+00:00", "2015-05-17T23:59:61+00:00",
        "2015-05-17T24:00:00+00:00", "2015-05-17T10:60:00+00:00", "2015-05-17T1a:05:03+00:00",
        "2015-05-17T10-05:03+00:00", "2015-05-17T10:05:03+02:00", "2015-05-17T10:05:03-0130",
        "2015-05-17T10:05:03.123Z", "2015-05-17T10:05:04.123Z", "2015-05-17T10:05:04.Z", "2015-05-17 10:05:04Z", "2015-05-17 10:05:04+00:00",
        "2015-05-18T10:05:03+00:00", "2015-02-29T10:05:03+00:00", "2016-02-29T10:05:03+00:00",
        "2015-05-17T10:05:03", "2015-05-17T10:05:03+00:0x", "2015-05-17T10:05:03+00:00 ", "17/May/2015:10:05:03 +0000",
        "12/4-2015T10:05:03+00:00", "1431857103.5", "1431857103", "2015-05-17T10:05:03Zx",
    };
    pair p = pair_of("json", NULL, 0);
    unsigned seed = 3;
    char line[256];
    const size_t nt = sizeof times / sizeof times[0];
    for (int round = 0; round < 6000; round++) {
        const char *t = times[(size_t)rand_r(&seed) % (round % 3 ? 5 : nt)];   /* mostly one day */
        const int len = snprintf(line, sizeof line, "{\"time_iso8601\":\"%s\",\"request\":\"GET /a HTTP/1.1\","
                                 "\"host\":\"h\",\"http_user_agent\":\"Bot/1\"}", t);
        both_copy(p, line, (size_t)len);
    }
    pair_free(p);
    /* Cloudflare's integer times (16-19 digits read 8 at a time), around the
     * limits: more digits, a byte not a digit at each place, 2^63 and past */
    p = pair_of("cloudflare", NULL, 0);
    static const char *const nums[] = {
        "1431857103123456789", "143185710312345678", "14318571031234567", "1431857103123456", "143185710312345",
        "14318571031234567890", "0000000000000000000", "0000000000000001", "8999999999999999999",
        "9223372036854775807", "9999999999999999999", "1431857103.123456789", "1431857103123456789e0",
        "-1431857103123456789", "1431857103123456789.5",
    };
    static const char bad[] = ":/0a9.e-+ ";
    for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) {
        char num[32];
        const size_t nl = strlen(nums[k]);
        for (size_t at = 0; at <= nl; at++)
            for (size_t b = 0; b < sizeof bad - 1; b++) {
                memcpy(num, nums[k], nl + 1);
                if (at < nl) num[at] = bad[b];
                else if (b) break;
                const int len = snprintf(line, sizeof line, "{\"ClientRequestURI\":\"/a\",\"EdgeStartTimestamp\":%s,"
                                         "\"ClientRequestUserAgent\":\"Bot/1\"}", num);
                both_copy(p, line, (size_t)len);
                const int len2 = snprintf(line, sizeof line, "{\"ClientRequestURI\":\"/a\",\"EdgeStartTimestamp\":\"%s\"}",
                                          num);
                both_copy(p, line, (size_t)len2);
            }
    }
    pair_free(p);
}
