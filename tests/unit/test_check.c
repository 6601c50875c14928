/*
 * test_check.c - the one-call and batch checks (src/check) and robots.txt
 * bodies given to rs_sites from memory (rs_sites_add_body).
 * Self-contained: every robots.txt is written here.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "robotscan.h"

static const char ROBOTS[] =
    "user-agent: FooBot\n"          /* 1 */
    "disallow: /private\n"          /* 2 */
    "allow: /private/ok$\n"         /* 3 */
    "\n"                            /* 4 */
    "user-agent: *\n"               /* 5 */
    "disallow: /wiki/Käyttäjä:\n"   /* 6 */
    "disallow: /search\n";          /* 7 */

static rs_check_result check(const char *agent, const char *url, unsigned flags, char *rule, size_t cap)
{
    rs_check_result r;
    cr_assert_eq(rs_check(ROBOTS, strlen(ROBOTS), agent, strlen(agent), url, strlen(url), flags, &r,
                          rule, cap), RS_OK);
    return r;
}

/* ===== rs_check ===== */

Test(check, one_call_verdict_line_rule)
{
    char rule[64];
    rs_check_result r = check("FooBot", "https://a.com/private/x", 0, rule, sizeof rule);
    cr_expect_eq(r.disallowed, 1);
    cr_expect_eq(r.line, 2);
    cr_expect_eq(r.rule_type, RS_RULE_DISALLOW);
    cr_expect_str_eq(rule, "/private");
    cr_expect_eq(r.rule_len, 8);

    r = check("foobot", "https://a.com/private/ok", 0, rule, sizeof rule);
    cr_expect_eq(r.disallowed, 0);
    cr_expect_eq(r.line, 3);
    cr_expect_eq(r.rule_type, RS_RULE_ALLOW);
    cr_expect_str_eq(rule, "/private/ok$");

    r = check("OtherBot", "https://a.com/search?q=1", 0, rule, sizeof rule);
    cr_expect_eq(r.disallowed, 1);
    cr_expect_eq(r.line, 7);

    r = check("OtherBot", "https://a.com/elsewhere", 0, rule, sizeof rule);
    cr_expect_eq(r.disallowed, 0);
    cr_expect_eq(r.line, 0);
    cr_expect_eq(r.rule_type, 0);
    cr_expect_eq(r.rule_len, 0);
    cr_expect_str_eq(rule, "");
}

Test(check, rule_is_cut_to_the_buffer)
{
    char rule[4];
    const rs_check_result r = check("FooBot", "/private", 0, rule, sizeof rule);
    cr_expect_eq(r.rule_len, 8);
    cr_expect_str_eq(rule, "/pr");
    /* No buffer at all is fine too. */
    const rs_check_result r2 = check("FooBot", "/private", 0, NULL, 0);
    cr_expect_eq(r2.line, 2);
}

Test(check, encode_flag_matches_raw_non_ascii)
{
    /* The pattern is canonicalised (%C3%A4); a raw URL only matches when encoded. */
    rs_check_result r = check("x", "https://fi.wikipedia.org/wiki/Käyttäjä:Foo", 0, NULL, 0);
    cr_expect_eq(r.disallowed, 0);
    r = check("x", "https://fi.wikipedia.org/wiki/Käyttäjä:Foo", RS_CHECK_ENCODE_URL, NULL, 0);
    cr_expect_eq(r.disallowed, 1);
    cr_expect_eq(r.line, 6);
    r = check("x", "https://fi.wikipedia.org/wiki/K%c3%a4ytt%c3%a4j%c3%a4:Foo", RS_CHECK_ENCODE_URL, NULL, 0);
    cr_expect_eq(r.disallowed, 1);
}

Test(check, empty_body_and_usage_errors)
{
    rs_check_result r;
    cr_expect_eq(rs_check(NULL, 0, "a", 1, "/x", 2, 0, &r, NULL, 0), RS_OK);
    cr_expect_eq(r.disallowed, 0);
    cr_expect_eq(rs_check(NULL, 3, "a", 1, "/x", 2, 0, &r, NULL, 0), RS_ERR_USAGE);
    cr_expect_eq(rs_check("", 0, "a", 1, "/x", 2, 0, NULL, NULL, 0), RS_ERR_USAGE);
    cr_expect_eq(rs_check("", 0, NULL, 1, "/x", 2, 0, &r, NULL, 0), RS_ERR_USAGE);
    cr_expect_eq(rs_check("", 0, "a", 1, "/x", 2, 0, &r, NULL, 5), RS_ERR_USAGE);
}

Test(check, url_encode_path_is_a_function)
{
    size_t (*fn)(const char *, size_t, char *, size_t) = rs_url_encode_path;
    char out[64];
    const size_t n = fn("/ä%2f", 6, out, sizeof out);
    cr_expect_eq(n, 10);
    cr_expect(memcmp(out, "/%C3%A4%2F", 10) == 0);
}

/* ===== Matcher batch ===== */

static rs_matcher *compile(const char *agent)
{
    rs_ruleset *rs;
    rs_matcher *m;
    cr_assert_eq(rs_ruleset_parse(ROBOTS, strlen(ROBOTS), &rs), RS_OK);
    cr_assert_eq(rs_matcher_create(rs, agent, strlen(agent), RS_SEMANTICS_GOOGLE, &m), RS_OK);
    rs_ruleset_free(rs);
    return m;
}

Test(check, batch_agrees_with_single_calls)
{
    rs_matcher *m = compile("FooBot");
    /* Includes an empty URL, a '?'-path, a fragment and one longer than the stack scratch. */
    static char longurl[10000];
    memcpy(longurl, "http://a.com/private", 20);
    memset(longurl + 20, 'x', sizeof longurl - 21);
    const char *urls[] = { "http://a.com/private/ok", "", "http://a.com?x", "/private#frag",
                           "http://a.com/#/private", longurl, "http://a.com/private/ok2" };
    const size_t n = sizeof urls / sizeof urls[0];
    char *joined = malloc(20000);
    size_t ends[16], pos = 0;
    for (size_t i = 0; i < n; i++) {
        memcpy(joined + pos, urls[i], strlen(urls[i]));
        pos += strlen(urls[i]);
        ends[i] = pos;
    }
    int8_t dis[16];
    uint32_t lines[16];
    cr_assert_eq(rs_matcher_check_urls(m, joined, ends, n, 0, dis, lines), RS_OK);
    for (size_t i = 0; i < n; i++) {
        rs_verdict v;
        cr_assert_eq(rs_matcher_check_url(m, urls[i], strlen(urls[i]), 0, &v), RS_OK);
        cr_expect_eq(dis[i], v.disallowed, "url %zu", i);
        cr_expect_eq(lines[i], v.line, "url %zu", i);
    }
    cr_expect_eq(dis[0], 0);
    cr_expect_eq(dis[3], 1);
    cr_expect_eq(dis[4], 0);
    cr_expect_eq(dis[5], 1);
    cr_expect_eq(dis[6], 1);
    /* lines may be NULL; decreasing ends are refused; n == 0 is a no-op. */
    cr_expect_eq(rs_matcher_check_urls(m, joined, ends, n, 0, dis, NULL), RS_OK);
    size_t bad[2] = { 5, 3 };
    cr_expect_eq(rs_matcher_check_urls(m, joined, bad, 2, 0, dis, NULL), RS_ERR_USAGE);
    cr_expect_eq(rs_matcher_check_urls(m, NULL, NULL, 0, 0, NULL, NULL), RS_OK);
    free(joined);
    rs_matcher_free(m);
}

/* ===== Sites: bodies from memory ===== */

static void batch(rs_sites *s, const char *agent, const char *const *urls, size_t n, int8_t *dis,
                  uint32_t *lines, uint8_t *reasons)
{
    char buf[4096];
    size_t ends[32], pos = 0;
    for (size_t i = 0; i < n; i++) {
        memcpy(buf + pos, urls[i], strlen(urls[i]));
        pos += strlen(urls[i]);
        ends[i] = pos;
    }
    cr_assert_eq(rs_sites_check_urls(s, agent, strlen(agent), buf, ends, n, 0, dis, lines, reasons), RS_OK);
}

Test(check, sites_from_memory)
{
    rs_sites *s;
    cr_assert_eq(rs_sites_create_empty(&s), RS_OK);
    cr_assert_eq(rs_sites_add_body(s, "https://a.com/robots.txt", 24, 200, ROBOTS, strlen(ROBOTS)), RS_OK);
    cr_assert_eq(rs_sites_add_body(s, "http://gone.com", 15, 404, NULL, 0), RS_OK);
    cr_assert_eq(rs_sites_add_body(s, "http://down.com/x", 17, 503, NULL, 0), RS_OK);
    cr_assert_eq(rs_sites_add_body(s, "http://fail.com", 15, 0, "ignored", 7), RS_OK);

    const char *urls[] = { "https://A.COM:443/private", "https://a.com/private/ok", "http://a.com/private",
                           "http://gone.com/x", "http://down.com/", "http://fail.com/a",
                           "http:///nohost", "https://a.com/search" };
    int8_t dis[8];
    uint32_t lines[8];
    uint8_t reasons[8];
    batch(s, "FooBot", urls, 8, dis, lines, reasons);
    cr_expect_eq(dis[0], 1); cr_expect_eq(lines[0], 2); cr_expect_eq(reasons[0], RS_REASON_MATCHED);
    cr_expect_eq(dis[1], 0); cr_expect_eq(lines[1], 3); cr_expect_eq(reasons[1], RS_REASON_MATCHED);
    cr_expect_eq(dis[2], RS_VERDICT_NO_ROBOTS);  /* http://a.com is another origin */
    cr_expect_eq(reasons[2], RS_REASON_NO_ROBOTS);
    cr_expect_eq(dis[3], 0); cr_expect_eq(reasons[3], RS_REASON_UNAVAILABLE);
    cr_expect_eq(dis[4], 1); cr_expect_eq(reasons[4], RS_REASON_UNREACHABLE);
    cr_expect_eq(dis[5], 1); cr_expect_eq(reasons[5], RS_REASON_UNREACHABLE);
    cr_expect_eq(dis[6], RS_VERDICT_MALFORMED);
    cr_expect_eq(dis[7], 0); cr_expect_eq(reasons[7], RS_REASON_NO_MATCH);  /* FooBot group only */

    /* A lookup sees what was added, with source RS_SOURCE_MEMORY and no path. */
    char dst[RS_ORIGIN_MAX];
    rs_origin o;
    cr_assert_eq(rs_origin_parse("https://a.com/", 14, dst, sizeof dst, &o), RS_OK);
    rs_site_result r;
    cr_assert_eq(rs_site_lookup(s, &o, "FooBot", 6, &r), RS_OK);
    cr_expect_eq(r.source, RS_SOURCE_MEMORY);
    cr_expect_null(r.robots_path);
    cr_expect_eq(r.http_status, 200);
    cr_expect_not_null(r.ruleset);

    /* Replacing a body (and filling a cached no-robots origin) takes effect at once. */
    cr_assert_eq(rs_sites_add_body(s, "https://a.com", 13, 200, "user-agent: *\ndisallow: /\n", 26), RS_OK);
    cr_assert_eq(rs_sites_add_body(s, "http://a.com", 12, 200, "user-agent: *\ndisallow: /p\n", 27), RS_OK);
    batch(s, "FooBot", urls, 3, dis, lines, reasons);
    cr_expect_eq(dis[0], 1); cr_expect_eq(lines[0], 2);
    cr_expect_eq(dis[1], 1); cr_expect_eq(lines[1], 2);
    cr_expect_eq(dis[2], 1); cr_expect_eq(lines[2], 2);
    rs_sites_stats st;
    rs_sites_get_stats(s, &st);
    cr_expect_eq(st.bodies_parsed, 3);

    /* Misuse. */
    cr_expect_eq(rs_sites_add_body(s, "/no/origin", 10, 200, "", 0), RS_ERR_USAGE);
    cr_expect_str_neq(rs_sites_errmsg(s), "");
    cr_expect_eq(rs_sites_add_body(s, "http://a.com", 12, 199, "", 0), RS_ERR_USAGE);
    cr_expect_eq(rs_sites_add_body(s, "http://a.com", 12, 200, NULL, 3), RS_ERR_USAGE);
    rs_sites_free(s);
}

Test(check, memory_bodies_take_precedence_over_files)
{
    char dir[] = "/tmp/rs_check_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/robots.txt", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("user-agent: *\ndisallow: /\n", f);
    fclose(f);
    const char *paths[] = { path };
    rs_sites *s;
    cr_assert_eq(rs_sites_create(paths, 1, &s), RS_OK);
    const char *urls[] = { "https://a.com/x", "https://b.com/x" };
    int8_t dis[2];
    batch(s, "bot", urls, 2, dis, NULL, NULL);
    cr_expect_eq(dis[0], 1);
    cr_expect_eq(dis[1], 1);
    cr_assert_eq(rs_sites_add_body(s, "https://b.com", 13, 200, "", 0), RS_OK);
    batch(s, "bot", urls, 2, dis, NULL, NULL);
    cr_expect_eq(dis[0], 1);
    cr_expect_eq(dis[1], 0);
    rs_sites_free(s);
    unlink(path);
    rmdir(dir);
}
