/* test_robots.c - SPEC 2.1: reading the file (parser events and their effect). */
#include "verdict_helper.h"

typedef struct {
    rs_robots_line lines[16];
    char values[16][64];
    int n;
} recorder;

static void record(void *ctx, const rs_robots_line *ev)
{
    recorder *r = ctx;
    if (r->n >= 16) return;
    r->lines[r->n] = *ev;
    const size_t n = ev->value.len < 63 ? ev->value.len : 63;
    memcpy(r->values[r->n], ev->value.ptr, n);
    r->values[r->n][n] = '\0';
    r->n++;
}

#define PARSE(lit) parse((lit), sizeof(lit) - 1)

static recorder parse(const char *body, size_t len)
{
    recorder r;
    memset(&r, 0, sizeof r);
    cr_assert_eq(rs_robots_parse(body, len, record, &r, NULL), RS_OK);
    return r;
}

Test(robots, rfc9309_bom_is_skipped)
{
    expect_verdict("\xEF\xBB\xBFUser-agent: *\nDisallow: /x\n", "a", "http://e.com/x", 1, 2);
}

Test(robots, compat_partial_bom_is_skipped)
{
    expect_verdict("\xEF\xBBUser-agent: *\nDisallow: /x\n", "a", "http://e.com/x", 1, 2);
    expect_verdict("\xEFUser-agent: *\nDisallow: /x\n", "a", "http://e.com/x", 1, 2);
}

Test(robots, compat_only_one_bom_is_skipped)
{
    /* The second BOM is part of the first key, which is then unknown. */
    expect_verdict("\xEF\xBB\xBF\xEF\xBB\xBFUser-agent: *\nDisallow: /x\n", "a", "http://e.com/x", 0, 0);
}

Test(robots, rfc9309_line_ends_lf_cr_crlf)
{
    const char *body = "User-agent: *\r\nDisallow: /a\rDisallow: /b\n\nDisallow: /c";
    expect_verdict(body, "a", "http://e.com/a", 1, 2);
    expect_verdict(body, "a", "http://e.com/b", 1, 3);
    expect_verdict(body, "a", "http://e.com/c", 1, 5);
}

Test(robots, rfc9309_lf_cr_is_two_line_ends)
{
    /* LF then CR is not one line end: an empty line sits between. */
    expect_verdict("User-agent: *\n\rDisallow: /a\n", "a", "http://e.com/a", 1, 3);
}

Test(robots, rfc9309_long_line_keeps_16663_bytes)
{
    /* "Disallow: " + pattern: 10 + 16653 kept bytes -> pattern "/" + 16652 'a'. */
    const size_t n = 20000;
    char *body = malloc(64 + n);
    char *url = malloc(64 + n);
    int k = sprintf(body, "User-agent: *\nDisallow: /");
    memset(body + k, 'a', n);
    strcpy(body + k + n, "b\n");
    strcpy(url, "http://e.com/");
    memset(url + 13, 'a', 16652);
    url[13 + 16652] = '\0';
    expect_verdict(body, "x", url, 1, 2);        /* the kept pattern itself */
    url[13 + 16651] = '\0';
    expect_verdict(body, "x", url, 0, 0);        /* one byte short of it */
    free(body);
    free(url);
}

Test(robots, rfc9309_long_line_flagged)
{
    char body[17000];
    memset(body, 'a', sizeof body);
    memcpy(body, "Disallow: /", 11);
    recorder r = parse(body, sizeof body);
    cr_assert_eq(r.n, 1);
    cr_expect(r.lines[0].flags & RS_LINE_TOO_LONG);
    cr_expect_eq(r.lines[0].raw.len, RS_ROBOTS_MAX_LINE);
}

Test(robots, rfc9309_content_past_500kib_is_ignored)
{
    const size_t filler = 600000;
    char *body = malloc(filler + 100);
    size_t k = (size_t)sprintf(body, "User-agent: *\n");
    memset(body + k, '#', filler);
    body[k + filler - 1] = '\n';
    k += filler;
    k += (size_t)sprintf(body + k, "Disallow: /x\n");
    rs_ruleset *rs;
    rs_matcher *m;
    cr_assert_eq(rs_ruleset_parse(body, k, &rs), RS_OK);
    cr_assert_eq(rs_matcher_create(rs, "a", 1, RS_SEMANTICS_GOOGLE, &m), RS_OK);
    rs_verdict v;
    rs_matcher_match(m, "/x", 2, &v);
    cr_expect_eq(v.disallowed, 0);
    rs_robots_info info;
    recorder r;
    memset(&r, 0, sizeof r);
    rs_robots_parse(body, k, record, &r, &info);
    cr_expect(info.truncated);
    cr_expect_eq(info.bytes_read, RS_ROBOTS_MAX_BODY);
    cr_expect_eq(info.truncated_line, 2);
    rs_matcher_free(m);
    rs_ruleset_free(rs);
    free(body);
}

Test(robots, rfc9309_nul_ends_line_content)
{
    const char body[] = "User-agent: *\nDisallow: /a\0bc\nDisallow: /z\n";
    const rs_verdict v = verdict_sem(body, sizeof body - 1, "x", "http://e.com/a", RS_SEMANTICS_GOOGLE);
    cr_expect_eq(v.disallowed, 1);
    cr_expect_eq(v.line, 2);
    recorder r = parse(body, sizeof body - 1);
    cr_assert_eq(r.n, 3);
    cr_expect_str_eq(r.values[1], "/a");
    cr_expect(r.lines[1].flags & RS_LINE_HAS_NUL);
}

Test(robots, rfc9309_comments_and_whitespace)
{
    recorder r = PARSE("  User-agent :  Foo  # the bot\n\t# only a comment\nDisallow:\t/a b #x\n");
    cr_assert_eq(r.n, 2);
    cr_expect_eq(r.lines[0].directive, RS_DIRECTIVE_USER_AGENT);
    cr_expect_str_eq(r.values[0], "Foo");
    cr_expect_eq(r.lines[1].line, 3);
    cr_expect_str_eq(r.values[1], "/a b");
}

Test(robots, rfc9309_missing_colon_two_words)
{
    recorder r = PARSE("Disallow /x\nDisallow /x /y\nDisallow\t \t/z\n");
    cr_assert_eq(r.n, 3);
    cr_expect_eq(r.lines[0].directive, RS_DIRECTIVE_DISALLOW);
    cr_expect(r.lines[0].flags & RS_LINE_MISSING_COLON);
    cr_expect_str_eq(r.values[0], "/x");
    cr_expect_eq(r.lines[1].directive, RS_DIRECTIVE_NONE); /* three words: ignored */
    cr_expect_eq(r.lines[2].directive, RS_DIRECTIVE_DISALLOW);
    cr_expect_str_eq(r.values[2], "/z");
    expect_verdict("User-agent *\nDisallow /x\n", "a", "http://e.com/x", 1, 2);
}

Test(robots, rfc9309_empty_key_is_ignored)
{
    recorder r = PARSE(": /x\n");
    cr_assert_eq(r.n, 1);
    cr_expect_eq(r.lines[0].directive, RS_DIRECTIVE_NONE);
    cr_expect(r.lines[0].flags & RS_LINE_EMPTY_KEY);
}

Test(robots, rfc9309_keys_match_by_prefix_case_insensitively)
{
    expect_verdict("USER-AGENTS: *\nAllowed: /x\nDISALLOW: /\n", "a", "http://e.com/x", 0, 2);
    expect_verdict("user-agent: *\ndisallowance: /y\n", "a", "http://e.com/y", 1, 2);
}

Test(robots, rfc9309_accepted_typos)
{
    static const char *const TYPOS[] = { "dissallow", "dissalow", "disalow", "diasllow", "disallaw" };
    for (size_t i = 0; i < 5; i++) {
        char body[96];
        snprintf(body, sizeof body, "useragent: *\n%s: /t\n", TYPOS[i]);
        expect_verdict(body, "a", "http://e.com/t", 1, 2);
        recorder r = parse(body, strlen(body));
        cr_expect(r.lines[1].flags & RS_LINE_TYPO_KEY, "%s flagged as typo", TYPOS[i]);
    }
    expect_verdict("user agent: *\ndisallow: /t\n", "a", "http://e.com/t", 1, 2);
    recorder r = PARSE("Site-map: http://e.com/s.xml\nSitemap: x\n");
    cr_expect_eq(r.lines[0].directive, RS_DIRECTIVE_SITEMAP);
    cr_expect(r.lines[0].flags & RS_LINE_TYPO_KEY);
    cr_expect_eq(r.lines[1].directive, RS_DIRECTIVE_SITEMAP);
    cr_expect_not(r.lines[1].flags & RS_LINE_TYPO_KEY);
}

Test(robots, rfc9309_unknown_keys_are_reported_not_matched)
{
    recorder r = PARSE("Crawl-delay: 10\nHost: e.com\n");
    cr_assert_eq(r.n, 2);
    cr_expect_eq(r.lines[0].directive, RS_DIRECTIVE_UNKNOWN);
    cr_expect_eq(r.lines[0].key.len, 11);
    cr_expect_str_eq(r.values[0], "10");
}

Test(robots, rfc9309_patterns_are_canonicalized)
{
    recorder r = PARSE("Disallow: /a%2fb%c3\xC3\xA9%zz\nUser-agent: B\xC3\xA9t\n");
    cr_assert_eq(r.n, 2);
    cr_expect_str_eq(r.values[0], "/a%2Fb%C3%C3%A9%zz");
    cr_expect_str_eq(r.values[1], "B\xC3\xA9t"); /* user-agent values unchanged */
}

Test(robots, rfc9309_canonicalize_function)
{
    char dst[64];
    size_t n = rs_canonicalize("/%aa%Ab%g1%", 11, dst, sizeof dst);
    cr_expect_eq(n, 11);
    cr_expect(memcmp(dst, "/%AA%AB%g1%", 11) == 0);
    n = rs_canonicalize("\x80\xff", 2, dst, sizeof dst);
    cr_expect_eq(n, 6);
    cr_expect(memcmp(dst, "%80%FF", 6) == 0);
}

Test(robots, compat_line_numbers_count_empty_lines)
{
    recorder r = PARSE("\n\n\nUser-agent: x\n");
    cr_assert_eq(r.n, 1);
    cr_expect_eq(r.lines[0].line, 4);
}
