/*
 * test_logline.c - access-log formats, line parsing and timestamps (src/log/logline.c),
 * every format through rs_logparser (logparse.c) and crawler IP ranges (ipranges.c).
 *
 * Real lines are copied from the logs in ../shared/data/logs; whole-file passes read
 * those files through RS_SHARED_DIR.
 */
#include <criterion/criterion.h>

#include "robotscan.h"
#include "common/common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static rs_logformat *fmt_of(const char *spec)
{
    rs_logformat *f = NULL;
    char err[128] = "";
    rs_status st = rs_logformat_create(spec, strlen(spec), err, sizeof err, &f);
    cr_assert_eq(st, RS_OK, "format %s: %s", spec, err);
    return f;
}

#define assert_str(slice, expect)                                                              \
    do {                                                                                       \
        const rs_str s_ = (slice);                                                             \
        const char *e_ = (expect);                                                             \
        cr_assert(s_.len == strlen(e_) && memcmp(s_.ptr, e_, s_.len) == 0,                      \
                  "%s: got '%.*s', want '%s'", #slice, (int)s_.len, s_.ptr ? s_.ptr : "", e_); \
    } while (0)

static rs_logline_status parse(const rs_logformat *f, const char *line, rs_logrec *r)
{
    return rs_logline_parse(f, line, strlen(line), r);
}

/* ===== Named formats on real lines ===== */

Test(logline, combined_real_line_elastic)
{
    rs_logformat *f = fmt_of("combined");
    const char *line =
        "83.149.9.216 - - [17/May/2015:10:05:03 +0000] \"GET /presentations/logstash-monitorama-2013/"
        "images/kibana-search.png HTTP/1.1\" 200 203023 \"http://semicomplete.com/presentations/"
        "logstash-monitorama-2013/\" \"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_9_1) AppleWebKit/537.36 "
        "(KHTML, like Gecko) Chrome/32.0.1700.77 Safari/537.36\"";
    rs_logrec r;
    cr_assert_eq(parse(f, line, &r), RS_LOGLINE_OK);
    assert_str(r.client, "83.149.9.216");
    assert_str(r.user, "");
    assert_str(r.host, "");
    assert_str(r.time, "17/May/2015:10:05:03 +0000");
    cr_assert(r.flags & RS_LOGREC_HAS_TIME);
    cr_assert_eq(r.epoch, 1431857103);  /* date -u -d '2015-05-17 10:05:03 +0000' +%s */
    assert_str(r.method, "GET");
    assert_str(r.target, "/presentations/logstash-monitorama-2013/images/kibana-search.png");
    assert_str(r.protocol, "HTTP/1.1");
    cr_assert_eq(r.status, 200);
    cr_assert_eq(r.bytes, 203023);
    assert_str(r.referer, "http://semicomplete.com/presentations/logstash-monitorama-2013/");
    assert_str(r.user_agent, "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_9_1) AppleWebKit/537.36 "
                             "(KHTML, like Gecko) Chrome/32.0.1700.77 Safari/537.36");
    cr_assert_eq(r.flags & (RS_LOGREC_EXTRA_FIELDS | RS_LOGREC_BAD_REQUEST), 0u);
    cr_assert_eq(rs_logformat_fields(f),
                 RS_LOGF_CLIENT | RS_LOGF_USER | RS_LOGF_TIME | RS_LOGF_REQUEST | RS_LOGF_STATUS |
                     RS_LOGF_BYTES | RS_LOGF_REFERER | RS_LOGF_USER_AGENT);
    rs_logformat_free(f);
}

Test(logline, combined_trailing_field_lnav)
{
    rs_logformat *f = fmt_of("combined");
    const char *line =
        "54.36.149.41 - - [22/Jan/2019:03:56:14 +0330] \"GET /filter/27|13%20%D9%85%DA%AF%D8%A7%D9%BE"
        "%DB%8C%DA%A9%D8%B3%D9%84,27|%DA%A9%D9%85%D8%AA%D8%B1%20%D8%A7%D8%B2%205%20%D9%85%DA%AF%D8%A7"
        "%D9%BE%DB%8C%DA%A9%D8%B3%D9%84,p53 HTTP/1.1\" 200 30577 \"-\" \"Mozilla/5.0 (compatible; "
        "AhrefsBot/6.1; +http://ahrefs.com/robot/)\" \"-\"";
    rs_logrec r;
    cr_assert_eq(parse(f, line, &r), RS_LOGLINE_OK);
    cr_assert(r.flags & RS_LOGREC_EXTRA_FIELDS);
    cr_assert_eq(r.epoch, 1548116774);  /* date -u -d '2019-01-22 03:56:14 +0330' +%s */
    assert_str(r.referer, "");          /* "-" */
    assert_str(r.user_agent, "Mozilla/5.0 (compatible; AhrefsBot/6.1; +http://ahrefs.com/robot/)");
    cr_assert_eq(r.bytes, 30577);
    cr_assert(r.target.len > 100 && r.target.ptr[0] == '/');
    rs_logformat_free(f);
}

Test(logline, combined_logparser_line_and_crlf)
{
    rs_logformat *f = fmt_of("COMBINED");   /* names are case-insensitive */
    const char *line = "23.95.237.180 - - [25/Oct/2015:04:11:27 +0100] \"POST /join_form HTTP/1.1\" 302 9093 "
                       "\"http://howto.basjes.nl/join_form\" \"Mozilla/5.0 (Windows NT 5.1; rv:35.0) "
                       "Gecko/20100101 Firefox/35.0\"\r";
    rs_logrec r;
    cr_assert_eq(parse(f, line, &r), RS_LOGLINE_OK);
    assert_str(r.method, "POST");
    cr_assert_eq(r.status, 302);
    cr_assert_eq(r.epoch, 1445742687);  /* date -u -d '2015-10-25 04:11:27 +0100' +%s */
    cr_assert_eq(r.user_agent.ptr[r.user_agent.len - 1], '0');
    rs_logformat_free(f);
}

Test(logline, common_format)
{
    rs_logformat *f = fmt_of("common");
    const char *line = "83.149.9.216 - frank [17/May/2015:10:05:43 +0000] \"GET /presentations/logstash-"
                       "monitorama-2013/images/kibana-dashboard3.png HTTP/1.1\" 200 171717";
    rs_logrec r;
    cr_assert_eq(parse(f, line, &r), RS_LOGLINE_OK);
    assert_str(r.user, "frank");
    cr_assert_eq(r.bytes, 171717);
    assert_str(r.user_agent, "");
    cr_assert_eq(rs_logformat_fields(f) & RS_LOGF_USER_AGENT, 0u);
    /* A combined line read as common: the referer and agent are extra fields. */
    const char *comb = "83.149.9.216 - - [17/May/2015:10:05:43 +0000] \"GET / HTTP/1.1\" 200 5 \"-\" \"curl/7.0\"";
    cr_assert_eq(parse(f, comb, &r), RS_LOGLINE_OK);
    cr_assert(r.flags & RS_LOGREC_EXTRA_FIELDS);
    rs_logformat_free(f);
}

Test(logline, vhost_combined)
{
    rs_logformat *f = fmt_of("vhost_combined");
    const char *line = "semicomplete.com:443 66.249.73.135 - - [17/May/2015:10:05:40 +0000] \"GET /blog/tags/ipv6 "
                       "HTTP/1.1\" 200 12251 \"-\" \"Mozilla/5.0 (compatible; Googlebot/2.1; "
                       "+http://www.google.com/bot.html)\"";
    rs_logrec r;
    cr_assert_eq(parse(f, line, &r), RS_LOGLINE_OK);
    assert_str(r.host, "semicomplete.com");
    assert_str(r.port, "443");
    assert_str(r.client, "66.249.73.135");
    assert_str(r.target, "/blog/tags/ipv6");
    cr_assert(rs_logformat_fields(f) & RS_LOGF_HOST);

    /* An IPv6 virtual host keeps its colons; the port is after the last one. */
    const char *v6 = "[2001:db8::1]:8080 2001:db8::42 - - [17/May/2015:10:05:40 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"x\"";
    cr_assert_eq(parse(f, v6, &r), RS_LOGLINE_OK);
    assert_str(r.host, "[2001:db8::1]");
    assert_str(r.port, "8080");
    assert_str(r.client, "2001:db8::42");

    /* A combined line (no %v:%p) is malformed under vhost_combined. */
    const char *comb = "66.249.73.135 - - [17/May/2015:10:05:40 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"x\"";
    cr_assert_neq(parse(f, comb, &r), RS_LOGLINE_OK);
    rs_logformat_free(f);
}

/* ===== nginx log_format strings ===== */

Test(logline, nginx_format_with_host_and_extras)
{
    rs_logformat *f = fmt_of("$host $remote_addr - $remote_user [$time_local] \"$request\" $status "
                             "$body_bytes_sent \"$http_referer\" \"$http_user_agent\" rt=$request_time");
    cr_assert_eq(rs_logformat_fields(f) & (RS_LOGF_HOST | RS_LOGF_PORT), RS_LOGF_HOST);
    const char *line = "shop.example.ir 2a01:4f8:c17:1::2 - - [22/Jan/2019:03:56:16 -0700] \"GET "
                       "/image/60844/productModel/200x200 HTTP/2.0\" 200 5667 \"https://www.zanbil.ir/m/filter/b113\" "
                       "\"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)\" rt=0.004";
    rs_logrec r;
    cr_assert_eq(parse(f, line, &r), RS_LOGLINE_OK);
    assert_str(r.host, "shop.example.ir");
    assert_str(r.client, "2a01:4f8:c17:1::2");
    cr_assert_eq(r.epoch, 1548154576);  /* date -u -d '2019-01-22 03:56:16 -0700' +%s */
    assert_str(r.protocol, "HTTP/2.0");
    assert_str(r.referer, "https://www.zanbil.ir/m/filter/b113");
    cr_assert_eq(r.flags & RS_LOGREC_EXTRA_FIELDS, 0u);
    rs_logformat_free(f);
}

Test(logline, nginx_braces_iso_time_and_split_request)
{
    rs_logformat *f = fmt_of("${remote_addr}|${time_iso8601}|${request_method}|${request_uri}|${status}|"
                             "${http_user_agent}");
    rs_logrec r;
    cr_assert_eq(parse(f, "10.0.0.1|2015-05-17T10:05:03+05:30|GET|/a?b=1|404|curl/8.0 (x)", &r), RS_LOGLINE_OK);
    cr_assert_eq(r.epoch, 1431837303);  /* date -u -d '2015-05-17 10:05:03 +0530' +%s */
    assert_str(r.method, "GET");
    assert_str(r.target, "/a?b=1");
    cr_assert_eq(r.status, 404);
    assert_str(r.user_agent, "curl/8.0");   /* an unquoted last field ends at whitespace */
    cr_assert(r.flags & RS_LOGREC_EXTRA_FIELDS);
    rs_logformat_free(f);

    f = fmt_of("$remote_addr $time_local $status");   /* no brackets: the time has a space */
    cr_assert_eq(parse(f, "10.0.0.1 17/May/2015:10:05:03 -0700 301", &r), RS_LOGLINE_OK);
    cr_assert_eq(r.epoch, 1431882303);
    cr_assert_eq(r.status, 301);
    rs_logformat_free(f);

    f = fmt_of("$msec $remote_addr \"$request\" $status");
    cr_assert_eq(parse(f, "1431857103.123 ::1 \"GET / HTTP/1.0\" 200", &r), RS_LOGLINE_OK);
    cr_assert_eq(r.epoch, 1431857103);
    assert_str(r.client, "::1");
    rs_logformat_free(f);
}

Test(logline, nginx_conf_quoted_format)
{
    /* As copied from nginx.conf: concatenated single-quoted strings, a final `;`. */
    const char *conf = "'$remote_addr - $remote_user [$time_local] '\n"
                       "                    '\"$request\" $status $body_bytes_sent '\n"
                       "                    '\"$http_referer\" \"$http_user_agent\" \\'$host\\'';";
    rs_logformat *f = fmt_of(conf);
    rs_logrec r;
    cr_assert_eq(parse(f, "10.1.1.1 - - [17/May/2015:10:05:03 +0000] \"GET /x HTTP/1.1\" 200 5 \"-\" "
                          "\"Mozilla/5.0 (compatible; bingbot/2.0)\" 'example.org'", &r), RS_LOGLINE_OK);
    assert_str(r.host, "example.org");
    assert_str(r.target, "/x");
    cr_assert(rs_logformat_fields(f) & RS_LOGF_HOST);
    rs_logformat_free(f);
    /* Not entirely quoted strings: used as written (the quote is literal text). */
    f = fmt_of("'$status' x");
    cr_assert_eq(parse(f, "'200' x", &r), RS_LOGLINE_OK);
    cr_assert_eq(r.status, 200);
    rs_logformat_free(f);
}

Test(logline, format_errors)
{
    rs_logformat *f = (rs_logformat *)1;
    char err[128];
    cr_assert_eq(rs_logformat_create("$remote_addr$status", 19, err, sizeof err, &f), RS_ERR_USAGE);
    cr_assert_null(f);
    cr_assert(strstr(err, "no text between") != NULL, "%s", err);
    cr_assert_eq(rs_logformat_create("just text", 9, err, sizeof err, &f), RS_ERR_USAGE);
    cr_assert_eq(rs_logformat_create("", 0, NULL, 0, &f), RS_ERR_USAGE);
    /* `$` not followed by a name is literal text. */
    f = fmt_of("$ $status $");
    rs_logrec r;
    cr_assert_eq(parse(f, "$ 204 $", &r), RS_LOGLINE_OK);
    cr_assert_eq(r.status, 204);
    rs_logformat_free(f);
    rs_logformat_free(NULL);
}

Test(logline, allocation_failure)
{
    rs_logformat *f = NULL;
    for (unsigned long n = 1; n <= 3; n++) {
        rs_alloc_fail_after(n);
        rs_status st = rs_logformat_create("combined", 8, NULL, 0, &f);
        rs_alloc_fail_after(0);
        cr_assert_eq(st, RS_ERR_NOMEM, "failing allocation %lu", n);
        cr_assert_null(f);
    }
}

/* ===== Real-world variation ===== */

Test(logline, escaped_and_stray_quotes)
{
    rs_logformat *f = fmt_of("combined");
    rs_logrec r;
    /* Apache escapes a quote in the agent as \" */
    const char *esc = "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" "
                      "\"Mozilla/5.0 \\\"quoted\\\" (compatible; Googlebot/2.1)\"";
    cr_assert_eq(parse(f, esc, &r), RS_LOGLINE_OK);
    assert_str(r.user_agent, "Mozilla/5.0 \\\"quoted\\\" (compatible; Googlebot/2.1)");
    /* An agent ending in a backslash: \\ is one escaped byte, then the quote closes. */
    const char *bs = "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"agent\\\\\"";
    cr_assert_eq(parse(f, bs, &r), RS_LOGLINE_OK);
    assert_str(r.user_agent, "agent\\\\");
    /* An unescaped quote inside the request (old servers) is skipped because
     * what follows it is not ` <status>`. */
    const char *stray = "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET /a\"b HTTP/1.1\" 200 1 \"-\" \"x\"";
    cr_assert_eq(parse(f, stray, &r), RS_LOGLINE_OK);
    assert_str(r.target, "/a\"b");
    cr_assert_eq(r.status, 200);
    rs_logformat_free(f);
}

Test(logline, dash_fields_and_odd_requests)
{
    rs_logformat *f = fmt_of("combined");
    rs_logrec r;
    cr_assert_eq(parse(f, "::ffff:10.0.0.1 - - [17/May/2015:10:05:03 +0000] \"-\" 408 - \"-\" \"-\"", &r),
                 RS_LOGLINE_OK);
    assert_str(r.client, "::ffff:10.0.0.1");
    cr_assert(r.flags & RS_LOGREC_BAD_REQUEST);
    assert_str(r.method, "");
    assert_str(r.target, "");
    cr_assert_eq(r.status, 408);
    cr_assert_eq(r.bytes, -1);
    assert_str(r.user_agent, "");
    /* A TLS handshake sent to a plain HTTP port, logged escaped by nginx. */
    cr_assert_eq(parse(f, "5.6.7.8 - - [17/May/2015:10:05:03 +0000] \"\\x16\\x03\\x01\\x00\\xA5\" 400 166 \"-\" \"-\"", &r),
                 RS_LOGLINE_OK);
    cr_assert(r.flags & RS_LOGREC_BAD_REQUEST);
    /* Raw binary bytes in the request (Apache without escaping). */
    const char bin[] = "5.6.7.8 - - [17/May/2015:10:05:03 +0000] \"\x16\x03\x01\x00\xa5\" 400 166 \"-\" \"-\"";
    cr_assert_eq(rs_logline_parse(f, bin, sizeof bin - 1, &r), RS_LOGLINE_OK);
    cr_assert(r.flags & RS_LOGREC_BAD_REQUEST);
    /* HTTP/0.9 style: no protocol. A target with a space keeps it. */
    cr_assert_eq(parse(f, "1.1.1.1 - - [17/May/2015:10:05:03 +0000] \"GET /x\" 200 1 \"-\" \"-\"", &r), RS_LOGLINE_OK);
    assert_str(r.target, "/x");
    assert_str(r.protocol, "");
    cr_assert_eq(parse(f, "1.1.1.1 - - [17/May/2015:10:05:03 +0000] \"GET /a b  HTTP/1.0\" 200 1 \"-\" \"-\"", &r),
                 RS_LOGLINE_OK);
    assert_str(r.target, "/a b");
    assert_str(r.protocol, "HTTP/1.0");
    /* Double spaces between fields are tolerated. */
    cr_assert_eq(parse(f, "1.1.1.1  -  - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.0\"  200 1 \"-\" \"-\"", &r),
                 RS_LOGLINE_OK);
    rs_logformat_free(f);
}

Test(logline, malformed_lines)
{
    rs_logformat *f = fmt_of("combined");
    rs_logrec r;
    const char *base = "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"ua\"";
    cr_assert_eq(parse(f, base, &r), RS_LOGLINE_OK);
    cr_assert_eq(parse(f, "", &r), RS_LOGLINE_EMPTY);
    cr_assert_eq(parse(f, " \t\r", &r), RS_LOGLINE_EMPTY);
    /* Missing fields at the end, cut at every byte: never OK short of the full line. */
    const size_t n = strlen(base);
    for (size_t cut = 1; cut < n; cut++) {
        rs_logline_status st = rs_logline_parse(f, base, cut, &r);
        cr_assert(st != RS_LOGLINE_OK && st != RS_LOGLINE_EMPTY, "cut at %zu gave %s", cut,
                  rs_logline_status_str(st));
        cr_assert_leq(r.error_offset, cut);
        cr_assert_eq(r.user_agent.len, 0u);
    }
    /* The real truncated line of elastic-apache_logs.log (line 8899). */
    cr_assert_eq(parse(f, "46.118.127.106 - - [20/May/2015:12:05:17 +0000] \"GET /scripts/grok-py-test/"
                          "configlib.py HTTP/1.1\" 200 235 \"-\" \"Mozilla/5.0 (compatible; Googlebot/2.1; "
                          "+http://www.google.com/bot.html", &r),
                 RS_LOGLINE_NOT_FIELD_END);
    cr_assert_eq(parse(f, "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" OK 1 \"-\" \"ua\"", &r),
                 RS_LOGLINE_BAD_STATUS);
    cr_assert_eq(parse(f, "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 1k \"-\" \"ua\"", &r),
                 RS_LOGLINE_BAD_STATUS);
    cr_assert_eq(parse(f, "1.2.3.4 - - [32/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"ua\"", &r),
                 RS_LOGLINE_BAD_TIME);
    cr_assert_eq(parse(f, "1.2.3.4 - - [17/May/2015:10:05:03] \"GET / HTTP/1.1\" 200 1 \"-\" \"ua\"", &r),
                 RS_LOGLINE_BAD_TIME);
    /* A line ending inside a quoted field right after a backslash. */
    cr_assert_eq(parse(f, "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"ua\\", &r),
                 RS_LOGLINE_NOT_FIELD_END);
    /* Text glued to the last quote is not an extra field. */
    cr_assert_neq(parse(f, "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"ua\"x", &r),
                  RS_LOGLINE_OK);
    /* A line in another format. */
    cr_assert_neq(parse(f, "2015-05-17 10:05:03 INFO something happened", &r), RS_LOGLINE_OK);
    rs_logformat_free(f);
}

Test(logline, garbage_never_crashes)
{
    rs_logformat *fmts[4] = {fmt_of("combined"), fmt_of("common"), fmt_of("vhost_combined"),
                             fmt_of("$host:$server_port \"$request\" [$time_iso8601] $msec \"$http_user_agent\"")};
    const size_t big = 1u << 20;
    char *buf = malloc(big);
    cr_assert_not_null(buf);
    rs_logrec r;
    /* 1 MiB lines: all one byte, all quotes, all backslashes. */
    const char fills[] = {'A', '"', '\\', ' ', '[', ':', '\0', '\xff'};
    for (size_t k = 0; k < sizeof fills; k++) {
        memset(buf, fills[k], big);
        for (int i = 0; i < 4; i++) {
            rs_logline_status st = rs_logline_parse(fmts[i], buf, big, &r);
            cr_assert(st != RS_LOGLINE_OK || fills[k] == ' ', "fill %d format %d", fills[k], i);
        }
    }
    /* A valid 1 MiB line: a huge user agent. */
    const char *head = "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"";
    size_t hl = strlen(head);
    memcpy(buf, head, hl);
    memset(buf + hl, 'x', big - hl - 1);
    buf[big - 1] = '"';
    cr_assert_eq(rs_logline_parse(fmts[0], buf, big, &r), RS_LOGLINE_OK);
    cr_assert_eq(r.user_agent.len, big - hl - 1);
    /* Random bytes and random mutations of a real line: any outcome, slices inside the line. */
    const char *real = "66.249.73.135 - - [17/May/2015:10:05:40 +0000] \"GET /blog/tags/ipv6 HTTP/1.1\" 200 "
                       "12251 \"-\" \"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)\"";
    const size_t rl = strlen(real);
    uint32_t seed = 12345;
    size_t ok = 0;
    for (int iter = 0; iter < 20000; iter++) {
        size_t len;
        if (iter & 1) {
            len = rl;
            memcpy(buf, real, rl);
            for (int m = 0; m < 1 + iter % 4; m++) {
                seed = seed * 1103515245u + 12345u;
                buf[(seed >> 8) % rl] = (char)(seed >> 24);
            }
        } else {
            seed = seed * 1103515245u + 12345u;
            len = (seed >> 16) % 300;
            for (size_t i = 0; i < len; i++) {
                seed = seed * 1103515245u + 12345u;
                buf[i] = (char)(seed >> 24);
            }
        }
        for (int i = 0; i < 4; i++) {
            if (rs_logline_parse(fmts[i], buf, len, &r) != RS_LOGLINE_OK) continue;
            ok++;
            const rs_str fields[] = {r.client, r.user, r.host, r.port, r.time, r.request, r.method,
                                     r.target, r.protocol, r.referer, r.user_agent};
            for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++)
                cr_assert(fields[k].len == 0 ||
                          (fields[k].ptr >= buf && fields[k].ptr + fields[k].len <= buf + len));
        }
    }
    cr_assert_gt(ok, 0u);   /* some mutations keep the line valid */
    free(buf);
    for (int i = 0; i < 4; i++) rs_logformat_free(fmts[i]);
}

/* ===== Timestamps ===== */

Test(logline, timestamps_with_offsets)
{
    /* Expected values: date -u -d 'YYYY-MM-DD hh:mm:ss +zzzz' +%s */
    static const struct { const char *s; int64_t epoch; } ok[] = {
        {"17/May/2015:10:05:03 +0000", 1431857103},
        {"17/May/2015:10:05:03 -0700", 1431882303},
        {"17/May/2015:10:05:03 +0530", 1431837303},
        {"22/Jan/2019:03:56:14 +0330", 1548116774},
        {"25/oct/2015:04:11:25 +0100", 1445742685},
        {"29/Feb/2000:23:59:59 +0000", 951868799},
        {"31/Dec/1969:23:59:59 +0000", -1},
        {"19/Jan/2038:03:14:08 +0000", 2147483648LL},
        {"01/Mar/2100:00:00:00 -1200", 4107585600LL},
        {"31/Dec/2016:23:59:60 +0000", 1483228800},   /* a leap second counts as the next second */
        {"2015-05-17T10:05:03+00:00", 1431857103},
        {"2015-05-17T10:05:03Z", 1431857103},
        {"2015-05-17T10:05:03.250-07:00", 1431882303},
        {"2015-05-17 10:05:03+05:30", 1431837303},
        {"1431857103.999", 1431857103},
        {"1431857103", 1431857103},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        int64_t e = 0;
        cr_assert(rs_log_parse_time(ok[i].s, strlen(ok[i].s), &e), "%s", ok[i].s);
        cr_assert_eq(e, ok[i].epoch, "%s: %lld", ok[i].s, (long long)e);
    }
    static const char *const bad[] = {
        "", "17/May/2015:10:05:03", "17/May/2015:10:05:03 0000", "17/Mai/2015:10:05:03 +0000",
        "29/Feb/2015:10:05:03 +0000", "29/Feb/1900:00:00:00 +0000", "17/May/2015:24:00:00 +0000",
        "17/May/2015:10:60:00 +0000", "17/May/2015:10:05:03 +2400", "7/May/2015:10:05:03 +0000",
        "17/May/2015:10:05:03 +0000x", "2015-13-01T00:00:00Z", "2015-05-17T10:05:03", "1431857103.",
        "abc", "-1",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t e = 0;
        cr_assert_not(rs_log_parse_time(bad[i], strlen(bad[i]), &e), "'%s' parsed", bad[i]);
    }
}

/* ===== Whole files ===== */

typedef struct {
    size_t ok, malformed, empty, extra, with_200, bad_request;
    size_t first_bad_line;
    int64_t min_epoch, max_epoch;
} file_counts;

static file_counts parse_file(const char *name, const char *format)
{
    char path[512];
    snprintf(path, sizeof path, "%s/data/logs/%s", RS_SHARED_DIR, name);
    FILE *fp = fopen(path, "rb");
    cr_assert_not_null(fp, "cannot open %s", path);
    rs_logformat *f = fmt_of(format);
    file_counts c = {0, 0, 0, 0, 0, 0, 0, INT64_MAX, INT64_MIN};
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, fp)) >= 0) {
        lineno++;
        size_t len = (size_t)n;
        if (len > 0 && line[len - 1] == '\n') len--;
        rs_logrec r;
        rs_logline_status st = rs_logline_parse(f, line, len, &r);
        if (st == RS_LOGLINE_EMPTY) { c.empty++; continue; }
        if (st != RS_LOGLINE_OK) {
            c.malformed++;
            if (c.first_bad_line == 0) c.first_bad_line = lineno;
            continue;
        }
        c.ok++;
        if (r.flags & RS_LOGREC_EXTRA_FIELDS) c.extra++;
        if (r.flags & RS_LOGREC_BAD_REQUEST) c.bad_request++;
        if (r.status == 200) c.with_200++;
        cr_assert(r.flags & RS_LOGREC_HAS_TIME);
        if (r.epoch < c.min_epoch) c.min_epoch = r.epoch;
        if (r.epoch > c.max_epoch) c.max_epoch = r.epoch;
    }
    free(line);
    fclose(fp);
    rs_logformat_free(f);
    return c;
}

/*
 * Independent counts, from ../shared/data/logs:
 *   wc -l FILE                                         -> lines
 *   awk -F'"' 'NF!=7' elastic-apache_logs.log          -> 1 line (8899: its agent has no closing quote)
 *   awk -F'"' 'NF==7' elastic-apache_logs.log | awk '$9==200' | wc -l   -> 9125
 *   awk -F'"' '{print NF}' lnav-shop-access.log | sort -u              -> 9 (a trailing "-" field on every line)
 *   awk '$9==200' lnav-shop-access.log | wc -l                         -> 938
 *   awk '$9==200' logparser-hackers-access.log | wc -l                 -> 2846
 *   earliest/latest: awk '{print $4}' FILE | sort | sed -n '1p;$p' (one month per file),
 *   converted with date -u -d ... +%s
 */
Test(logline, whole_file_elastic)
{
    file_counts c = parse_file("elastic-apache_logs.log", "combined");
    cr_assert_eq(c.ok, 9999);
    cr_assert_eq(c.malformed, 1);
    cr_assert_eq(c.first_bad_line, 8899);
    cr_assert_eq(c.extra, 0);
    cr_assert_eq(c.with_200, 9125);
    cr_assert_eq(c.bad_request, 0);
    cr_assert_eq(c.min_epoch, 1431857100);  /* 17/May/2015:10:05:00 +0000 (the lines are not sorted) */
    cr_assert_eq(c.max_epoch, 1432155959);  /* 20/May/2015:21:05:59 +0000 */
}

Test(logline, whole_file_lnav)
{
    file_counts c = parse_file("lnav-shop-access.log", "combined");
    cr_assert_eq(c.ok, 1000);
    cr_assert_eq(c.malformed, 0);
    cr_assert_eq(c.extra, 1000);
    cr_assert_eq(c.with_200, 938);
    cr_assert_eq(c.min_epoch, 1548116774);  /* 22/Jan/2019:03:56:14 +0330 */
    cr_assert_eq(c.max_epoch, 1548116951);  /* 22/Jan/2019:03:59:11 +0330 */
    /* As common, the referer, agent and trailing field are all extra. */
    c = parse_file("lnav-shop-access.log", "common");
    cr_assert_eq(c.ok, 1000);
    cr_assert_eq(c.extra, 1000);
}

Test(logline, whole_file_logparser)
{
    file_counts c = parse_file("logparser-hackers-access.log", "combined");
    cr_assert_eq(c.ok, 3456);
    cr_assert_eq(c.malformed, 0);
    cr_assert_eq(c.with_200, 2846);
    /* The same file is not vhost_combined: every line is malformed, none dropped. */
    c = parse_file("logparser-hackers-access.log", "vhost_combined");
    cr_assert_eq(c.ok + c.malformed, 3456);
    cr_assert_eq(c.ok, 0);
}

/* ===== rs_logparser: formats from their documentation ===== */

static rs_logparser *parser_of(const char *spec, const char *const *fields, size_t n)
{
    rs_logparser *p = NULL;
    char err[256] = "";
    rs_status st = rs_logparser_create(spec, strlen(spec), fields, n, err, sizeof err, &p);
    cr_assert_eq(st, RS_OK, "parser %s: %s", spec, err);
    return p;
}

static rs_logline_status pparse(rs_logparser *p, const char *line, rs_logrec *r)
{
    return rs_logparser_parse(p, line, strlen(line), r);
}

Test(logparser, apache_logformat_strings)
{
    const char *line = "127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] \"GET /apache_pb.gif HTTP/1.0\" 200 2326 "
                       "\"http://www.example.com/start.html\" \"Mozilla/4.08 [en] (Win98; I ;Nav)\"";
    rs_logparser *p = parser_of("%h %l %u %t \"%r\" %>s %b \"%{Referer}i\" \"%{User-agent}i\"", NULL, 0);
    cr_assert_str_eq(rs_logparser_name(p), "apache");
    rs_logrec r;
    cr_assert_eq(pparse(p, line, &r), RS_LOGLINE_OK);
    assert_str(r.client, "127.0.0.1");
    assert_str(r.user, "frank");
    assert_str(r.target, "/apache_pb.gif");
    assert_str(r.user_agent, "Mozilla/4.08 [en] (Win98; I ;Nav)");
    cr_assert_eq(r.epoch, 971211336);   /* 2000-10-10T20:55:36Z */
    rs_logparser_free(p);
    /* as written in httpd.conf, with its quotes and \" */
    p = parser_of("\"%v:%p %h %l %u %t \\\"%r\\\" %>s %O\"", NULL, 0);
    cr_assert_eq(pparse(p, "www.example.com:443 127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200 5", &r),
                 RS_LOGLINE_OK);
    assert_str(r.host, "www.example.com");
    assert_str(r.port, "443");
    rs_logparser_free(p);
    rs_logparser *bad = NULL;
    cr_assert_eq(rs_logparser_create("%h %{%d/%m}t", 12, NULL, 0, NULL, 0, &bad), RS_ERR_USAGE);
    cr_assert_eq(rs_logparser_create("%h %", 4, NULL, 0, NULL, 0, &bad), RS_ERR_USAGE);
}

Test(logparser, cloudfront_reference_line)
{
    rs_logparser *p = parser_of("cloudfront", NULL, 0);
    cr_assert(rs_logparser_stateful(p));
    rs_logrec r;
    /* The documentation's field order, tab-separated, user agent %-encoded. */
    const char *line = "2019-12-04\t21:02:31\tLAX1\t392\t192.0.2.100\tGET\td111111abcdef8.cloudfront.net\t/index.html\t200\t-\t"
                       "Mozilla/5.0%20(Windows%20NT%2010.0;%20Win64;%20x64)\t-\t-\tHit\tSOX4xwn4XV6Q==\td111111abcdef8.cloudfront.net\t"
                       "https\t23\t0.001\t-\tTLSv1.2\tECDHE-RSA-AES128-GCM-SHA256\tHit\tHTTP/2.0\t-\t-\t11040\t0.001\tHit\t"
                       "text/html\t78\t-\t-";
    cr_assert_eq(pparse(p, line, &r), RS_LOGLINE_OK);
    assert_str(r.client, "192.0.2.100");
    assert_str(r.user_agent, "Mozilla/5.0 (Windows NT 10.0; Win64; x64)");
    assert_str(r.host, "d111111abcdef8.cloudfront.net");
    assert_str(r.scheme, "https");
    assert_str(r.target, "/index.html");
    cr_assert_eq(r.status, 200);
    cr_assert_eq(r.epoch, 1575493351);
    /* truncated: fewer values than fields */
    cr_assert_eq(pparse(p, "2019-12-04\t21:02:31\tLAX1", &r), RS_LOGLINE_BAD_LAYOUT);
    rs_logparser_free(p);
}

Test(logparser, w3c_fields_change_mid_file)
{
    rs_logparser *p = parser_of("w3c", NULL, 0);
    rs_logrec r;
    cr_assert_eq(pparse(p, "2019-12-04 21:02:31 GET /a", &r), RS_LOGLINE_NO_FIELDS);
    cr_assert_eq(pparse(p, "#Software: Microsoft Internet Information Services 10.0", &r), RS_LOGLINE_DIRECTIVE);
    cr_assert_eq(pparse(p, "#Fields: date time cs-method cs-uri-stem cs-uri-query c-ip cs(User-Agent) sc-status", &r),
                 RS_LOGLINE_DIRECTIVE);
    cr_assert_eq(pparse(p, "2019-12-04 21:02:31 GET /a x=1 ::1 Mozilla/5.0+(compatible;+bingbot/2.0) 200", &r), RS_LOGLINE_OK);
    assert_str(r.target, "/a?x=1");
    assert_str(r.client, "::1");
    assert_str(r.user_agent, "Mozilla/5.0 (compatible; bingbot/2.0)");
    cr_assert_eq(pparse(p, "#Fields: c-ip time date sc-status", &r), RS_LOGLINE_DIRECTIVE);
    cr_assert_eq(pparse(p, "10.0.0.1 00:00:01 2020-01-01 404", &r), RS_LOGLINE_OK);
    cr_assert_eq(r.epoch, 1577836801);
    cr_assert_eq(r.status, 404);
    cr_assert_eq(pparse(p, "10.0.0.1 00:00:01 2020-13-01 404", &r), RS_LOGLINE_BAD_TIME);
    cr_assert_eq(pparse(p, "10.0.0.1 00:00:01", &r), RS_LOGLINE_BAD_LAYOUT);
    rs_logparser_free(p);
}

Test(logparser, alb_entry)
{
    rs_logparser *p = parser_of("alb", NULL, 0);
    cr_assert(rs_logparser_fields(p) & RS_LOGF_HOST);
    rs_logrec r;
    const char *line = "http 2018-07-02T22:23:00.186641Z app/my-loadbalancer/50dc6c495c0c9188 192.168.131.39:2817 "
                       "10.0.0.1:80 0.000 0.001 0.000 200 200 34 366 \"GET http://www.example.com:80/a?b HTTP/1.1\" "
                       "\"curl/7.46.0\" - - arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067 "
                       "\"Root=1-58337262-36d228ad5d99923122bbe354\" \"-\" \"-\" 0 2018-07-02T22:22:48.364000Z \"forward\" \"-\" \"-\" "
                       "\"10.0.0.1:80\" \"200\" \"-\" \"-\"";
    cr_assert_eq(pparse(p, line, &r), RS_LOGLINE_OK);
    assert_str(r.client, "192.168.131.39");
    assert_str(r.scheme, "http");
    assert_str(r.host, "www.example.com");
    assert_str(r.port, "80");
    assert_str(r.target, "/a?b");
    assert_str(r.user_agent, "curl/7.46.0");
    cr_assert_eq(r.epoch, 1530570180);
    cr_assert_neq(pparse(p, "http 2018-07-02T22:23:00.186641Z app/my-loadbalancer/50dc6c495c0c9188 192.168.131.39:2817 "
                            "10.0.0.1:80 0.000 0.001 0.000 200 200 34 366 \"GET http://www.exa", &r), RS_LOGLINE_OK);
    rs_logparser_free(p);
}

Test(logparser, json_caddy_nginx_escapes)
{
    rs_logparser *p = parser_of("json", NULL, 0);
    rs_logrec r;
    cr_assert_eq(pparse(p, "{\"level\":\"info\",\"ts\":1646861401.5241024,\"request\":{\"remote_ip\":\"127.0.0.1\","
                           "\"client_ip\":\"10.1.1.1\",\"method\":\"GET\",\"host\":\"localhost:8080\",\"uri\":\"/x?y=1\","
                           "\"headers\":{\"User-Agent\":[\"curl/7.82.0\",\"second\"],\"X\":[{\"a\":[1,2]}]}},"
                           "\"size\":10900,\"status\":200}", &r), RS_LOGLINE_OK);
    assert_str(r.client, "10.1.1.1");   /* client_ip before remote_ip */
    assert_str(r.host, "localhost");
    assert_str(r.port, "8080");
    assert_str(r.target, "/x?y=1");
    assert_str(r.user_agent, "curl/7.82.0");
    cr_assert_eq(r.status, 200);
    cr_assert_eq(r.bytes, 10900);
    cr_assert_eq(r.epoch, 1646861401);
    /* nginx escape=json: \" \\ \/ \uXXXX (a surrogate pair too) decoded */
    cr_assert_eq(pparse(p, "{\"time_iso8601\":\"2022-03-09T22:30:11+01:00\",\"remote_addr\":\"::1\",\"request\":"
                           "\"GET /\\u00e9\\ud83d\\ude00?q=\\\"\\\\\\/ HTTP/1.1\",\"status\":\"304\","
                           "\"http_user_agent\":\"Mozilla\\/5.0\"}", &r), RS_LOGLINE_OK);
    assert_str(r.target, "/\xc3\xa9\xf0\x9f\x98\x80?q=\"\\/");
    assert_str(r.method, "GET");
    assert_str(r.protocol, "HTTP/1.1");
    assert_str(r.user_agent, "Mozilla/5.0");
    cr_assert_eq(r.epoch, 1646861411);   /* 21:30:11Z */
    cr_assert_eq(r.status, 304);
    /* malformed */
    static const char *const bad[] = {
        "{", "{\"a\":}", "{\"a\":1,}", "[1]", "{\"a\":\"\\x\"}", "{\"a\":\"\\u12\"}", "{\"a\":1} x", "{\"a\" 1}",
        "{\"a\":tru}",
        "{\"a\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_eq(pparse(p, bad[i], &r), RS_LOGLINE_BAD_JSON, "%s", bad[i]);
    cr_assert_eq(pparse(p, "  ", &r), RS_LOGLINE_EMPTY);
    /* a time without a zone is not guessed */
    cr_assert_eq(pparse(p, "{\"time\":\"2022-03-09T22:30:11\",\"uri\":\"/\"}", &r), RS_LOGLINE_BAD_TIME);
    rs_logparser_free(p);
}

Test(logparser, json_fields_and_cloudflare)
{
    const char *const f[] = {"time=meta.when", "url=req.path", "user_agent=req.ua", "host=site"};
    rs_logparser *p = parser_of("json", f, 4);
    rs_logrec r;
    cr_assert_eq(pparse(p, "{\"site\":\"a.example\",\"meta\":{\"when\":1700000000123},\"req\":{\"path\":\"/p\",\"ua\":\"Googlebot\"}}", &r),
                 RS_LOGLINE_OK);
    cr_assert_eq(r.epoch, 1700000000);   /* milliseconds */
    assert_str(r.host, "a.example");
    assert_str(r.target, "/p");
    assert_str(r.user_agent, "Googlebot");
    rs_logparser_free(p);
    rs_logparser *bad = NULL;
    const char *const wrong[] = {"colour=x"};
    cr_assert_eq(rs_logparser_create("json", 4, wrong, 1, NULL, 0, &bad), RS_ERR_USAGE);
    cr_assert_eq(rs_logparser_create("combined", 8, f, 1, NULL, 0, &bad), RS_ERR_USAGE);
    p = parser_of("cloudflare", NULL, 0);
    cr_assert_eq(pparse(p, "{\"ClientIP\":\"89.160.20.156\",\"ClientRequestHost\":\"example.com\",\"ClientRequestMethod\":\"GET\","
                           "\"ClientRequestURI\":\"/s?x\",\"ClientRequestScheme\":\"https\",\"EdgeResponseStatus\":403,"
                           "\"EdgeStartTimestamp\":1625754264684000000,\"ClientRequestUserAgent\":\"Mozilla/5.0\"}", &r),
                 RS_LOGLINE_OK);
    cr_assert_eq(r.epoch, 1625754264);   /* nanoseconds */
    assert_str(r.scheme, "https");
    assert_str(r.target, "/s?x");
    cr_assert_eq(r.status, 403);
    rs_logparser_free(p);
}

Test(logparser, detect)
{
    cr_assert_str_eq(rs_log_detect("#Version: 1.0\n#Fields: date time x-edge-location sc-bytes\n", 56), "cloudfront");
    const char *w = "#Fields: date time c-ip\n2019-01-01 00:00:00 ::1\n";
    cr_assert_str_eq(rs_log_detect(w, strlen(w)), "w3c");
    const char *j = "{\"a\":1}\n{\"b\":2}\n";
    cr_assert_str_eq(rs_log_detect(j, strlen(j)), "json");
    const char *cf = "{\"ClientRequestHost\":\"a\"}\n";
    cr_assert_str_eq(rs_log_detect(cf, strlen(cf)), "cloudflare");
    const char *c = "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 5 \"-\" \"x\"\n";
    cr_assert_str_eq(rs_log_detect(c, strlen(c)), "combined");
    const char *v = "a.com:80 1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 5 \"-\" \"x\"\n";
    cr_assert_str_eq(rs_log_detect(v, strlen(v)), "vhost_combined");
    const char *cm = "1.2.3.4 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 5\n";
    cr_assert_str_eq(rs_log_detect(cm, strlen(cm)), "common");
    cr_assert_null(rs_log_detect("hello\nworld\n", 12));
    cr_assert_null(rs_log_detect("", 0));
    /* auto settles on the first block */
    rs_logparser *p = parser_of("auto", NULL, 0);
    rs_logrec r;
    cr_assert_eq(pparse(p, j, &r), RS_LOGLINE_BAD_LAYOUT);
    cr_assert(rs_logparser_detect(p, c, strlen(c)));
    cr_assert_str_eq(rs_logparser_name(p), "combined");
    cr_assert_eq(rs_logparser_parse(p, c, strlen(c) - 1, &r), RS_LOGLINE_OK);
    rs_logparser_free(p);
}

/* ===== rs_ipranges ===== */

Test(ipranges, google_json_and_cidr_lists)
{
    rs_ipranges *r = NULL;
    cr_assert_eq(rs_ipranges_create(&r), RS_OK);
    const char *g = "{\"creationTime\":\"x\",\"prefixes\":[{\"ipv6Prefix\":\"2001:4860:4801:10::/64\"},"
                    "{\"ipv4Prefix\":\"66.249.64.0/27\"},{\"ipv4Prefix\":\"66.249.64.32/27\"}]}";
    size_t n = 0;
    cr_assert_eq(rs_ipranges_add(r, "Googlebot,Googlebot-Image", g, strlen(g), NULL, 0, &n), RS_OK);
    cr_assert_eq(n, 3);
    const char *l = "# list\n192.0.2.0/24\n\n198.51.100.7\n2001:db8::/32 # doc\n";
    cr_assert_eq(rs_ipranges_add(r, "bingbot", l, strlen(l), NULL, 0, &n), RS_OK);
    cr_assert_eq(n, 3);
#define CHECK(tok, ip, want) cr_assert_eq(rs_ipranges_check(r, tok, strlen(tok), ip, strlen(ip)), want, "%s %s", tok, ip)
    CHECK("Googlebot", "66.249.64.0", 1);
    CHECK("googlebot-image", "66.249.64.63", 1);   /* merged adjacent /27s */
    CHECK("Googlebot", "66.249.64.64", 0);
    CHECK("Googlebot", "66.249.63.255", 0);
    CHECK("Googlebot", "2001:4860:4801:10::1", 1);
    CHECK("Googlebot", "[2001:4860:4801:10:ffff:ffff:ffff:ffff]", 1);
    CHECK("Googlebot", "2001:4860:4801:11::", 0);
    CHECK("Googlebot", "not-an-ip", 0);
    CHECK("Googlebot", "::ffff:66.249.64.1", 1);  /* IPv4-mapped is the same address */
    CHECK("bingbot", "198.51.100.7", 1);
    CHECK("bingbot", "198.51.100.8", 0);
    CHECK("bingbot", "2001:db8:ffff::1", 1);
    CHECK("YandexBot", "66.249.64.1", -1);
#undef CHECK
    rs_str owner;
    cr_assert(rs_ipranges_owner(r, "66.249.64.5", 11, &owner));
    assert_str(owner, "Googlebot");
    cr_assert_not(rs_ipranges_owner(r, "10.0.0.1", 8, &owner));
    char err[128] = "";
    cr_assert_eq(rs_ipranges_add(r, "x", "10.0.0.0/33\n", 12, err, sizeof err, NULL), RS_ERR_CORRUPT);
    cr_assert(strstr(err, "line 1") != NULL, "%s", err);
    cr_assert_eq(rs_ipranges_add(r, "x", "{\"prefixes\":[]}", 15, NULL, 0, NULL), RS_ERR_CORRUPT);
    cr_assert_eq(rs_ipranges_add(r, "x", "0.0.0.0/0\n::/0\n", 15, NULL, 0, NULL), RS_OK);
    cr_assert_eq(rs_ipranges_check(r, "x", 1, "255.255.255.255", 15), 1);
    cr_assert_eq(rs_ipranges_check(r, "x", 1, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 39), 1);
    rs_ipranges_free(r);
}
