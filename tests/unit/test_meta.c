/* test_meta.c - the "Robots.txt metadata" API (src/rules/meta.c): sitemaps, host,
 * crawl-delay, request-rate, visit-time of the groups that apply to an agent. */
#include <criterion/criterion.h>
#include <string.h>

#include "robotscan.h"

static rs_ruleset *parse(const char *body)
{
    rs_ruleset *rs = NULL;
    cr_assert_eq(rs_ruleset_parse(body, strlen(body), &rs), RS_OK);
    return rs;
}

static int str_is(rs_str s, const char *want)
{
    return s.len == strlen(want) && memcmp(s.ptr, want, s.len) == 0;
}

Test(meta, sitemaps_in_file_order_as_written)
{
    rs_ruleset *rs = parse("Sitemap: https://a.com/1.xml\nUser-agent: *\nDisallow: /\n"
                           "site-map:  https://a.com/%2f?x \nSitemap: https://a.com/1.xml\n");
    rs_sitemap_entry e[4];
    cr_assert_eq(rs_ruleset_sitemaps(rs, NULL, 0), 3);
    cr_assert_eq(rs_ruleset_sitemaps(rs, e, 2), 3);      /* fills 2, tells 3 */
    cr_assert_eq(rs_ruleset_sitemaps(rs, e, 4), 3);
    cr_expect(str_is(e[0].url, "https://a.com/1.xml") && e[0].line == 1);
    cr_expect(str_is(e[1].url, "https://a.com/%2f?x") && e[1].line == 4);  /* not canonicalized */
    cr_expect(str_is(e[2].url, "https://a.com/1.xml") && e[2].line == 5);
    cr_expect_eq(rs_ruleset_sitemap_count(rs), 3);
    rs_ruleset_free(rs);
    cr_expect_eq(rs_ruleset_sitemaps(NULL, e, 4), 0);
}

Test(meta, host_first_non_empty_line_anywhere)
{
    rs_ruleset *rs = parse("User-agent: *\nHost:\nDisallow: /\nHost: a.example\nhost b.example\n");
    rs_str v;
    uint32_t line = 0;
    cr_assert(rs_ruleset_host(rs, &v, &line));
    cr_expect(str_is(v, "a.example"));
    cr_expect_eq(line, 4);
    rs_ruleset_free(rs);
    rs = parse("User-agent: *\nDisallow: /\n");
    cr_expect_not(rs_ruleset_host(rs, &v, NULL));
    rs_ruleset_free(rs);
}

Test(meta, crawl_delay_first_decimal_of_applying_groups)
{
    rs_ruleset *rs = parse("Crawl-delay: 9\nUser-agent: a\nCrawl-delay: soon\nCrawl-delay: 2.5\n"
                           "Disallow: /\nUser-agent: *\nCrawl-delay: -1\nCrawl-delay: .5\n");
    double d = 0;
    uint32_t line = 0;
    cr_assert(rs_ruleset_crawl_delay(rs, "A", 1, &d, &line));
    cr_expect(d == 2.5 && line == 4);
    cr_assert(rs_ruleset_crawl_delay(rs, "other", 5, &d, &line));
    cr_expect(d == 0.5 && line == 8);
    rs_ruleset_free(rs);
}

Test(meta, request_rate_forms)
{
    static const struct { const char *value; int ok; uint32_t n; double s; int32_t start, end; } cases[] = {
        { "1/5", 1, 1, 5, -1, -1 },
        { "10/1m", 1, 10, 60, -1, -1 },
        { "1/0.5H", 1, 1, 1800, -1, -1 },
        { "2/1d", 1, 2, 86400, -1, -1 },
        { "1 / 10s 0600-0845", 1, 1, 10, 360, 525 },
        { "3/20 22:00 - 06:00", 1, 3, 20, 1320, 360 },
        { "x/5", 0, 0, 0, 0, 0 },
        { "1/5x", 0, 0, 0, 0, 0 },
        { "1/5s0600-0700", 0, 0, 0, 0, 0 },
        { "1/5 2400-0100", 0, 0, 0, 0, 0 },
        { "99999999999/1", 0, 0, 0, 0, 0 },
        { "1/", 0, 0, 0, 0, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char body[128];
        snprintf(body, sizeof body, "User-agent: *\nRequest-rate: %s\n", cases[i].value);
        rs_ruleset *rs = parse(body);
        rs_request_rate r;
        const int ok = rs_ruleset_request_rate(rs, "bot", 3, &r);
        cr_expect_eq(ok, cases[i].ok, "%s", cases[i].value);
        if (ok && cases[i].ok) {
            cr_expect(r.requests == cases[i].n && r.seconds == cases[i].s, "%s", cases[i].value);
            cr_expect(r.start == cases[i].start && r.end == cases[i].end, "%s", cases[i].value);
            cr_expect_eq(r.line, 2);
        }
        rs_ruleset_free(rs);
    }
}

Test(meta, visit_time_named_group_wins)
{
    rs_ruleset *rs = parse("User-agent: *\nDisallow: /a\nVisit-time: 0100-0200\n"
                           "User-agent: Yandex\nDisallow: /b\nVisit-time: 0600\nVisit time: 06:00-08:45\n");
    rs_visit_time t;
    cr_assert(rs_ruleset_visit_time(rs, "yandex", 6, &t));
    cr_expect(t.start == 360 && t.end == 525 && t.line == 7);
    cr_assert(rs_ruleset_visit_time(rs, "other", 5, &t));
    cr_expect(t.start == 60 && t.end == 120 && t.line == 3);
    rs_ruleset_free(rs);
    rs = parse("");
    cr_expect_not(rs_ruleset_visit_time(rs, "x", 1, &t));
    cr_expect_not(rs_ruleset_request_rate(rs, "x", 1, NULL));
    rs_ruleset_free(rs);
}
