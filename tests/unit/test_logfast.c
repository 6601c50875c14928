/*
 * test_logfast.c - the one-pass combined-format path of rs_logline_parse
 * (parse_combined_fast in src/log/logline.c, with its time cache) against the
 * item walk it must equal (rs_logline_parse_walk): every line of the shared
 * logs, hand-written odd lines, and random mutations of real lines (quotes,
 * backslashes, tabs, brackets, spaces, CR, truncation). Runs on every kernel
 * set under `make test-scalar` too (RS_SIMD).
 */
#include <criterion/criterion.h>

#include "robotscan.h"
#include "common/common.h"
#include "log/log_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef RS_SHARED_DIR
#define RS_SHARED_DIR "../shared"
#endif

static void same_slice(rs_str a, rs_str b, const char *what, const char *line)
{
    cr_assert_eq(a.len, b.len, "%s length differs on: %s", what, line);
    cr_assert(a.ptr == b.ptr, "%s position differs on: %s", what, line);
}

/* Parses @line both ways (the fast side through @tc) and wants the same record. */
static rs_logline_status both(const rs_logformat *f, rs_logtime_cache *tc, const char *line, size_t len)
{
    rs_logrec a, b;
    const rs_logline_status sa = rs_logline_parse_cached(f, tc, line, len, &a);
    const rs_logline_status sb = rs_logline_parse_walk(f, line, len, &b);
    char shown[600];
    snprintf(shown, sizeof shown, "[%.*s]", (int)RS_MIN(len, 500), line);
    cr_assert_eq(sa, sb, "status %d vs %d on: %s", sa, sb, shown);
    cr_assert_eq(a.flags, b.flags, "flags on: %s", shown);
    cr_assert_eq(a.error_offset, b.error_offset, "error offset on: %s", shown);
    cr_assert_eq(a.epoch, b.epoch, "epoch on: %s", shown);
    cr_assert_eq(a.status, b.status, "status code on: %s", shown);
    cr_assert_eq(a.bytes, b.bytes, "bytes on: %s", shown);
    same_slice(a.client, b.client, "client", shown);
    same_slice(a.user, b.user, "user", shown);
    same_slice(a.host, b.host, "host", shown);
    same_slice(a.port, b.port, "port", shown);
    same_slice(a.time, b.time, "time", shown);
    same_slice(a.request, b.request, "request", shown);
    same_slice(a.method, b.method, "method", shown);
    same_slice(a.target, b.target, "target", shown);
    same_slice(a.protocol, b.protocol, "protocol", shown);
    same_slice(a.referer, b.referer, "referer", shown);
    same_slice(a.user_agent, b.user_agent, "user agent", shown);
    same_slice(a.scheme, b.scheme, "scheme", shown);
    return sa;
}

static rs_logformat *combined(const char *spec)
{
    rs_logformat *f = NULL;
    cr_assert_eq(rs_logformat_create(spec, strlen(spec), NULL, 0, &f), RS_OK);
    return f;
}

/* Each line in an exact-size heap copy, so that a read past it shows under ASan. */
static rs_logline_status both_copy(const rs_logformat *f, rs_logtime_cache *tc, const char *line, size_t len)
{
    char *c = malloc(len ? len : 1);
    cr_assert_not_null(c);
    memcpy(c, line, len);
    const rs_logline_status st = both(f, tc, c, len);
    free(c);
    return st;
}

static const char *const ODD[] = {
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 12 \"-\" \"Googlebot/2.1\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 12 \"-\" \"Googlebot/2.1\" extra",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 12 \"-\" \"Googlebot/2.1\"x",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 12 \"-\" \"Googlebot/2.1\"\r",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 12 \"-\" \"a \\\"quoted\\\" ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 12 \"-\" \"a \"quoted\" ua\"",
    "1.2.3.4\t-\t-\t[17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4  -   - [17/May/2015:10:05:03 +0000]   \"GET / HTTP/1.1\"  200  12  \"-\"   \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"-\" 400 0 \"-\" \"-\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"\" 400 - \"-\" \"-\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET\" 400 - \"-\" \"-\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET /a b c HTTP/1.0\" 200 - \"-\" \"-\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"G\"T / HTTP/1.0\" 200 - \"-\" \"-\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 2000 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 20x 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" - - \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 1\"2 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:24:05:03 +0000] \"GET / HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:60:03 +0000] \"GET / HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:60 +0000] \"GET / HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:61 +0000] \"GET / HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:1x:05:03 +0000] \"GET / HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015 10:05:03 +0000] \"GET / HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +02:00] \"GET / HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 -0130] \"GET / HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [29/Feb/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/may/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000 \"GET / HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000]\"GET / HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - 17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\"200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 12\"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 12 \"-\"\"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 12 \"-\" x \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 12 \"-\" \"ua\" \"more\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 12 \"-\" \"ua",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 12 \"-\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 12",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200",
    "1.2.3.4 - -",
    "1.2.3.4",
    "\"\"\"\"\"\"",
    " 1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - us\"er [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET /] HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 12 \"-\" \"ua\" ",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 12 \"-\" \"ua\"\t",
    "2001:db8::1 - - [17/May/2015:10:05:03 +0000] \"GET http://x.example/a HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000 ] \"GET / HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +000]] \"GET / HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:5:03 +0000]] \"GET / HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +00:00] \"GET / HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [ 17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000]]] \"GET / HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1 \" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET /x  HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET  HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"get / http/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/2.0\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET /a HTTP/1.\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET /a XTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"G@T / HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET /a b HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"  GET / HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET /\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"/ HTTP/1.1\" 200 12 \"-\" \"ua\"",
    "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.10\" 200 12 \"-\" \"ua\"",
    "-",
    "   ",
    "\r",
    "",
};

Test(logfast, odd_lines_equal_the_item_walk)
{
    const char *const specs[] = {
        "combined",
        ("$remote_addr - $remote_user [$time_local] \"$request\" $status $body_bytes_sent \"$http_referer\" "
         "\"$http_user_agent\""),
        "%h %l %u %t \"%r\" %>s %b \"%{Referer}i\" \"%{User-Agent}i\"",
    };
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        rs_logformat *f = combined(specs[s]);
        rs_logtime_cache tc = { 0 };
        size_t ok = 0;
        for (int round = 0; round < 2; round++)     /* the second round reads times from the cache */
            for (size_t i = 0; i < sizeof ODD / sizeof ODD[0]; i++)
                ok += both_copy(f, &tc, ODD[i], strlen(ODD[i])) == RS_LOGLINE_OK;
        cr_assert_geq(ok, 20, "the odd lines include well-formed ones (%zu)", ok);
        rs_logformat_free(f);
    }
}

/* The cache must not carry a date or zone over to a line that has another. */
Test(logfast, time_cache_follows_date_and_zone)
{
    rs_logformat *f = combined("combined");
    rs_logtime_cache tc = { 0 };
    const char *const times[] = {
        "17/May/2015:10:05:03 +0000", "17/May/2015:10:05:04 +0000", "17/May/2015:23:59:59 +0000",
        "18/May/2015:00:00:00 +0000", "18/May/2015:00:00:00 +0200", "18/May/2015:00:00:00 -0200",
        "18/Jun/2015:00:00:00 -0200", "18/Jun/2016:00:00:00 -0200", "18/Jun/2016:24:00:00 -0200",
        "18/Jun/2016:00:00:00 -0200", "31/Dec/1999:23:59:60 +0000", "01/Jan/2000:00:00:00 +0000",
        /* bad clocks after a good time of the same date and zone (read from the cache) */
        "01/Jan/2000:1/:00:00 +0000", "01/Jan/2000:10;00:00 +0000", "01/Jan/2000:10:00:0\xb5 +0000",
        "01/Jan/2000:10:00:9: +0000", "01/Jan/2000:99:00:00 +0000", "01/Jan/2000:: 0:00:00 +0000",
        "01/Jan/2000:0\x7f:00:00 +0000", "01/Jan/2000:00:00:00 +0000", "01/Jan/2000:09:59:59 +0000",
    };
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
        char line[256];
        const int n = snprintf(line, sizeof line, "1.2.3.4 - - [%s] \"GET / HTTP/1.1\" 200 1 \"-\" \"ua\"", times[i]);
        both(f, &tc, line, (size_t)n);
    }
    rs_logformat_free(f);
}

/* Every line of the shared logs, then random edits of them. */
Test(logfast, shared_logs_and_mutations_equal_the_item_walk)
{
    const char *const names[] = { "elastic-apache_logs.log", "lnav-shop-access.log", "logparser-hackers-access.log" };
    static const char edits[] = "\"\\\t []-\r:/ x0";
    rs_logformat *f = combined("combined");
    unsigned seed = 4242;
    size_t lines = 0, ok = 0, mutated = 0;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        char path[512];
        snprintf(path, sizeof path, "%s/data/logs/%s", RS_SHARED_DIR, names[k]);
        FILE *fp = fopen(path, "rb");
        cr_assert_not_null(fp, "cannot open %s", path);
        rs_logtime_cache tc = { 0 };
        char *line = NULL, buf[8192];
        size_t cap = 0;
        ssize_t n;
        while ((n = getline(&line, &cap, fp)) >= 0) {
            size_t len = (size_t)n;
            if (len > 0 && line[len - 1] == '\n') len--;
            lines++;
            ok += both_copy(f, &tc, line, len) == RS_LOGLINE_OK;
            if (len == 0 || len >= sizeof buf - 8) continue;
            for (int m = 0; m < 3; m++) {         /* three edited copies of each line */
                memcpy(buf, line, len);
                size_t blen = len;
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
                both_copy(f, &tc, buf, blen);
                mutated++;
            }
        }
        free(line);
        fclose(fp);
    }
    rs_logformat_free(f);
    cr_assert_geq(lines, 14000, "read %zu lines", lines);
    cr_assert_geq(ok, 13000, "parsed %zu lines", ok);
    cr_assert_geq(mutated, 40000);
}
