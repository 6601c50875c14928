/*
 * test_lint.c - rs_lint: one planted body per code (code, line, severity),
 * conflicting rules across merged and '*' groups, HTML detection, clean
 * samples without warnings, the whole real corpus, and rs_lint_agent's
 * effective rules checked against the matcher.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robotscan.h"

typedef struct {
    uint32_t line;
    rs_lint_code code;
    rs_lint_severity severity;
    char msg[1100];
} got_finding;

typedef struct {
    got_finding f[512];
    size_t n;
    size_t dropped;
} got;

static got G;

static void collect(void *ctx, const rs_lint_finding *f)
{
    got *g = ctx;
    cr_assert_eq(f->severity, rs_lint_code_severity(f->code));
    cr_assert_str_eq(f->code_name, rs_lint_code_name(f->code));
    cr_assert(f->message.len > 0 && memchr(f->message.ptr, '\n', f->message.len) == NULL);
    if (g->n == sizeof g->f / sizeof g->f[0]) { g->dropped++; return; }
    got_finding *o = &g->f[g->n++];
    o->line = f->line;
    o->code = f->code;
    o->severity = f->severity;
    snprintf(o->msg, sizeof o->msg, "%.*s", (int)f->message.len, f->message.ptr);
}

static const got *lint_n(const char *body, size_t size, const rs_lint_options *opt)
{
    memset(&G, 0, sizeof G);
    cr_assert_eq(rs_lint(body, size, opt, collect, &G), RS_OK);
    /* Delivered in line order. */
    for (size_t i = 1; i < G.n; i++) cr_assert(G.f[i - 1].line <= G.f[i].line);
    return &G;
}

static const got *lint(const char *body) { return lint_n(body, strlen(body), NULL); }

static size_t count(const got *g, rs_lint_code code)
{
    size_t n = 0;
    for (size_t i = 0; i < g->n; i++) n += g->f[i].code == code;
    return n;
}

static void dump(const got *g)
{
    for (size_t i = 0; i < g->n; i++)
        fprintf(stderr, "  %u %s: %s\n", g->f[i].line, rs_lint_code_name(g->f[i].code), g->f[i].msg);
}

/* The finding of @code at @line (exactly one), with its expected severity. */
static const got_finding *expect(const got *g, rs_lint_code code, uint32_t line, rs_lint_severity sev)
{
    const got_finding *hit = NULL;
    for (size_t i = 0; i < g->n; i++) {
        if (g->f[i].code != code || g->f[i].line != line) continue;
        cr_assert_null(hit, "two %s findings at line %u", rs_lint_code_name(code), line);
        hit = &g->f[i];
    }
    if (hit == NULL) dump(g);
    cr_assert_not_null(hit, "no %s finding at line %u (%zu findings)", rs_lint_code_name(code), line, g->n);
    cr_assert_eq(hit->severity, sev);
    return hit;
}

static void expect_msg(const got_finding *f, const char *part)
{
    cr_assert(strstr(f->msg, part) != NULL, "message \"%s\" lacks \"%s\"", f->msg, part);
}

/* ===== Codes ===== */

Test(lint, code_names_are_stable)
{
    cr_assert_str_eq(rs_lint_code_name(RS_LINT_TYPO_KEY), "typo-key");
    cr_assert_str_eq(rs_lint_code_name(RS_LINT_NO_GROUPS), "no-groups");
    cr_assert_str_eq(rs_lint_code_name(RS_LINT_HTML_CONTENT), "html-content");
    cr_assert_null(rs_lint_code_name(RS_LINT_CODE_COUNT));
    for (int c = 0; c < RS_LINT_CODE_COUNT; c++) cr_assert_not_null(rs_lint_code_name((rs_lint_code)c));
    cr_assert_str_eq(rs_lint_severity_name(RS_LINT_WARNING), "warning");
    cr_assert_eq(rs_lint_code_severity(RS_LINT_FILE_TOO_LARGE), RS_LINT_ERROR);
    cr_assert_eq(rs_lint_code_severity(RS_LINT_UNKNOWN_KEY), RS_LINT_INFO);
}

Test(lint, typo_key)
{
    static const struct { const char *body; const char *as; } CASES[] = {
        { "User-agent: *\nDisalow: /x\n", "read as disallow" },
        { "User-agent: *\nDissallow: /x\n", "read as disallow" },
        { "User-agent: *\nDissalow: /x\n", "read as disallow" },
        { "User-agent: *\nDiasllow: /x\n", "read as disallow" },
        { "User-agent: *\nDisallaw: /x\n", "read as disallow" },
        { "Allow: /\nUseragent: *\n", "read as user-agent" },
        { "Allow: /\nuser agent: *\n", "read as user-agent" },
        { "User-agent: *\nSite-map: https://a.com/s.xml\n", "read as sitemap" },
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        const got *g = lint(CASES[i].body);
        const got_finding *f = expect(g, RS_LINT_TYPO_KEY, 2, RS_LINT_WARNING);
        expect_msg(f, CASES[i].as);
        expect_msg(f, "(accepted typo)");
        cr_assert_eq(count(g, RS_LINT_TYPO_KEY), 1);
    }
    const got_finding *f = expect(lint("User-agent: *\nDisalow: /x\n"), RS_LINT_TYPO_KEY, 2, RS_LINT_WARNING);
    cr_assert_str_eq(f->msg, "\"Disalow\" read as disallow (accepted typo)");
    /* Correct keys and plain prefix forms are not typos. */
    cr_assert_eq(count(lint("User-agent: *\nDisallow: /x\nAllowed: /y\nSitemap: https://a.com/s\n"),
                       RS_LINT_TYPO_KEY), 0);
}

Test(lint, missing_colon)
{
    const got *g = lint("User-agent: *\nDisallow /x\n");
    const got_finding *f = expect(g, RS_LINT_MISSING_COLON, 2, RS_LINT_WARNING);
    cr_assert_str_eq(f->msg, "\"Disallow /x\" has no colon; read as disallow: /x");
    cr_assert_eq(g->n, 1);
    f = expect(lint("User agent Googlebot\nUser-agent Googlebot\nDisallow /\n"), RS_LINT_MISSING_COLON, 2,
               RS_LINT_WARNING);
    expect_msg(f, "read as user-agent: Googlebot");
    /* Three words: not read at all. */
    g = lint("User-agent: *\nDisallow /x /y\n");
    cr_assert_eq(count(g, RS_LINT_MISSING_COLON), 0);
    expect(g, RS_LINT_IGNORED_LINE, 2, RS_LINT_WARNING);
}

Test(lint, line_too_long)
{
    const size_t n = RS_ROBOTS_MAX_LINE + 500;
    char *body = malloc(n + 64);
    size_t len = (size_t)sprintf(body, "User-agent: *\nDisallow: /");
    memset(body + len, 'a', n);
    len += n;
    len += (size_t)sprintf(body + len, "\nDisallow: /b\n");
    const got *g = lint_n(body, len, NULL);
    expect(g, RS_LINT_LINE_TOO_LONG, 2, RS_LINT_WARNING);
    cr_assert_eq(count(g, RS_LINT_LINE_TOO_LONG), 1);
    free(body);
    /* Exactly at the limit: kept whole. */
    body = malloc(RS_ROBOTS_MAX_LINE + 64);
    len = (size_t)sprintf(body, "User-agent: *\n");
    const size_t start = len;
    len += (size_t)sprintf(body + len, "Disallow: /");
    memset(body + len, 'a', RS_ROBOTS_MAX_LINE - (len - start));
    len = start + RS_ROBOTS_MAX_LINE;
    cr_assert_eq(count(lint_n(body, len, NULL), RS_LINT_LINE_TOO_LONG), 0);
    free(body);
}

Test(lint, rule_outside_group)
{
    const got *g = lint("Disallow: /a\nAllow: /b\nUser-agent: *\nDisallow: /c\n");
    const got_finding *f = expect(g, RS_LINT_RULE_OUTSIDE_GROUP, 1, RS_LINT_WARNING);
    cr_assert_str_eq(f->msg, "\"disallow: /a\" comes before any user-agent line: ignored");
    expect(g, RS_LINT_RULE_OUTSIDE_GROUP, 2, RS_LINT_WARNING);
    cr_assert_eq(count(g, RS_LINT_RULE_OUTSIDE_GROUP), 2);
    /* Sitemap and unknown keys before the first group are fine. */
    g = lint("Sitemap: https://a.com/s.xml\nUser-agent: *\nDisallow: /c\n");
    cr_assert_eq(g->n, 0);
}

Test(lint, unknown_key)
{
    const got *g = lint("User-agent: *\nDisallow: /a\nCrawl-delay: 10\nHost: example.com\nFoo: bar\n");
    expect_msg(expect(g, RS_LINT_UNKNOWN_KEY, 3, RS_LINT_INFO), "Google ignores it");
    expect_msg(expect(g, RS_LINT_UNKNOWN_KEY, 4, RS_LINT_INFO), "Yandex");
    expect_msg(expect(g, RS_LINT_UNKNOWN_KEY, 5, RS_LINT_INFO), "unknown key \"Foo\"");
    expect_msg(expect(lint("User-agent: *\nNoindex: /a\n"), RS_LINT_UNKNOWN_KEY, 2, RS_LINT_INFO),
               "noindex");
}

Test(lint, misspelled_key)
{
    const got *g = lint("User-agent: *\nDisallw: /a\nUser_agent: b\nSitemp: https://a.com/s\n");
    expect_msg(expect(g, RS_LINT_MISSPELLED_KEY, 2, RS_LINT_WARNING), "did you mean disallow?");
    expect_msg(expect(g, RS_LINT_MISSPELLED_KEY, 3, RS_LINT_WARNING), "did you mean user-agent?");
    expect_msg(expect(g, RS_LINT_MISSPELLED_KEY, 4, RS_LINT_WARNING), "did you mean sitemap?");
    cr_assert_eq(count(g, RS_LINT_UNKNOWN_KEY), 0);
    /* Far from every real key: plain unknown. */
    g = lint("User-agent: *\nfollow: /a\nhost: a.com\n");
    cr_assert_eq(count(g, RS_LINT_MISSPELLED_KEY), 0);
    cr_assert_eq(count(g, RS_LINT_UNKNOWN_KEY), 2);
}

Test(lint, pattern_never_matches)
{
    const got *g = lint("User-agent: *\nDisallow: fish/\nAllow: http://a.com/x/y\nDisallow: /ok\n"
                        "Disallow: *ok\nDisallow:\nAllow: $\n");
    const got_finding *f = expect(g, RS_LINT_PATTERN_NEVER_MATCHES, 2, RS_LINT_WARNING);
    expect_msg(f, "pattern \"fish/\" does not start with '/' or '*': it never matches");
    expect_msg(f, "\"/fish/\"");
    expect_msg(expect(g, RS_LINT_PATTERN_NEVER_MATCHES, 3, RS_LINT_WARNING), "\"/x/y\"");
    expect(g, RS_LINT_PATTERN_NEVER_MATCHES, 7, RS_LINT_WARNING);
    cr_assert_eq(count(g, RS_LINT_PATTERN_NEVER_MATCHES), 3);
}

Test(lint, dollar_not_at_end)
{
    const got *g = lint("User-agent: *\nDisallow: /a$b\nDisallow: /*.php$\nDisallow: /x$$\n");
    const got_finding *f = expect(g, RS_LINT_DOLLAR_NOT_AT_END, 2, RS_LINT_WARNING);
    expect_msg(f, "literal '$'");
    expect(g, RS_LINT_DOLLAR_NOT_AT_END, 4, RS_LINT_WARNING);
    cr_assert_eq(count(g, RS_LINT_DOLLAR_NOT_AT_END), 2);
}

Test(lint, conflicting_rules_one_group)
{
    const got *g = lint("User-agent: *\nAllow: /x\nDisallow: /x\nDisallow: /y\nAllow: /y/\n");
    const got_finding *f = expect(g, RS_LINT_CONFLICTING_RULES, 3, RS_LINT_WARNING);
    expect_msg(f, "allowed by line 2");
    expect_msg(f, "this disallow has no effect");
    cr_assert_eq(count(g, RS_LINT_CONFLICTING_RULES), 1);
    /* Disallow first: reported at the allow, the later line. */
    g = lint("User-agent: Foo\nDisallow: /x\nAllow: /x\n");
    expect_msg(expect(g, RS_LINT_CONFLICTING_RULES, 3, RS_LINT_WARNING), "line 2 has no effect");
    /* The same canonical pattern in different spellings. */
    g = lint("User-agent: Foo\nDisallow: /%7e\nAllow: /%7E\n");
    expect(g, RS_LINT_CONFLICTING_RULES, 3, RS_LINT_WARNING);
    /* Empty patterns mean nothing either way. */
    cr_assert_eq(count(lint("User-agent: Foo\nDisallow:\nAllow:\n"), RS_LINT_CONFLICTING_RULES), 0);
}

Test(lint, conflicting_rules_across_groups)
{
    /* Merged groups naming the same token (case-insensitive). */
    const got *g = lint("User-agent: googlebot\nDisallow: /x\n\nUser-agent: bingbot\nAllow: /x\n\n"
                        "User-agent: Googlebot\nAllow: /x\n");
    expect_msg(expect(g, RS_LINT_CONFLICTING_RULES, 8, RS_LINT_WARNING), "for user-agent googlebot");
    cr_assert_eq(count(g, RS_LINT_CONFLICTING_RULES), 1, "bingbot shares nothing with googlebot");
    /* Two '*' groups are merged too. */
    g = lint("User-agent: *\nDisallow: /x\n\nUser-agent: *\nAllow: /x\n");
    expect_msg(expect(g, RS_LINT_CONFLICTING_RULES, 5, RS_LINT_WARNING), "for user-agent *");
    /* A '*' group and a group naming Foo never apply to the same agent. */
    g = lint("User-agent: *\nDisallow: /x\n\nUser-agent: Foo\nAllow: /x\n");
    cr_assert_eq(count(g, RS_LINT_CONFLICTING_RULES), 0);
    /* ... unless a group names both. */
    g = lint("User-agent: *\nUser-agent: Foo\nDisallow: /x\n\nUser-agent: Foo\nAllow: /x\n");
    expect_msg(expect(g, RS_LINT_CONFLICTING_RULES, 6, RS_LINT_WARNING), "for user-agent Foo");
    g = lint("User-agent: Bar\nUser-agent: *\nDisallow: /x\n\nUser-agent: *\nAllow: /x\n");
    expect_msg(expect(g, RS_LINT_CONFLICTING_RULES, 6, RS_LINT_WARNING), "for user-agent *");
    /* A group naming nobody applies to nobody. */
    g = lint("User-agent: *foo\nDisallow: /x\nAllow: /x\n");
    cr_assert_eq(count(g, RS_LINT_CONFLICTING_RULES), 0);
    /* Rules outside any group do not count. */
    g = lint("Allow: /x\nUser-agent: *\nDisallow: /x\n");
    cr_assert_eq(count(g, RS_LINT_CONFLICTING_RULES), 0);
    /* Each later line once, naming the earliest opposite line. */
    g = lint("User-agent: a\nAllow: /x\n\nUser-agent: a\nAllow: /x\n\nUser-agent: a\nDisallow: /x\n"
             "Disallow: /x\n");
    expect_msg(expect(g, RS_LINT_CONFLICTING_RULES, 8, RS_LINT_WARNING), "line 2");
    expect_msg(expect(g, RS_LINT_CONFLICTING_RULES, 9, RS_LINT_WARNING), "line 2");
    cr_assert_eq(count(g, RS_LINT_CONFLICTING_RULES), 2);
}

Test(lint, conflicting_rules_many)
{
    /* Enough messages to move the text arena while conflicts are reported (was a
     * use-after-free found by fuzzing); every conflict is still found. */
    char *body = malloc(1 << 16);
    size_t len = 0;
    for (int i = 0; i < 300; i++)
        len += (size_t)sprintf(body + len, "User-agent: bot%c%c\nDisallow: /p%d/some/longer/path\n"
                               "Allow: /p%d/some/longer/path\n", 'a' + i % 26, 'a' + i / 26, i, i);
    const got *g = lint_n(body, len, NULL);
    cr_assert_eq(count(g, RS_LINT_CONFLICTING_RULES), 300);
    for (int i = 0; i < 300; i++) {
        char want[64];
        snprintf(want, sizeof want, "\"/p%d/some/longer/path\" is also disallowed by line %d", i, 3 * i + 2);
        expect_msg(expect(g, RS_LINT_CONFLICTING_RULES, (uint32_t)(3 * i + 3), RS_LINT_WARNING), want);
    }
    free(body);
}

Test(lint, conflicting_rules_is_what_the_matcher_does)
{
    /* The reported disallow really has no effect: allow wins for that agent. */
    const char *body = "User-agent: googlebot\nDisallow: /x\n\nUser-agent: Googlebot\nAllow: /x\n";
    rs_ruleset *rs;
    rs_matcher *m;
    cr_assert_eq(rs_ruleset_parse(body, strlen(body), &rs), RS_OK);
    cr_assert_eq(rs_matcher_create(rs, "Googlebot", 9, RS_SEMANTICS_GOOGLE, &m), RS_OK);
    rs_verdict v;
    rs_matcher_match(m, "/x/y", 4, &v);
    cr_assert_eq(v.disallowed, 0);
    cr_assert_eq(v.line, 5);
    rs_matcher_free(m);
    rs_ruleset_free(rs);
    expect(lint(body), RS_LINT_CONFLICTING_RULES, 5, RS_LINT_WARNING);
}

Test(lint, user_agent_not_token)
{
    const got *g = lint("User-agent: Googlebot/2.1\nUser-agent: Foo Bot\nUser-agent: Bar*\n"
                        "User-agent: Baz\nUser-agent: *\nDisallow: /\n");
    cr_assert_str_eq(expect(g, RS_LINT_USER_AGENT_NOT_TOKEN, 1, RS_LINT_INFO)->msg,
                     "\"Googlebot/2.1\" is read as the token \"Googlebot\"");
    expect_msg(expect(g, RS_LINT_USER_AGENT_NOT_TOKEN, 2, RS_LINT_INFO), "the token \"Foo\"");
    expect_msg(expect(g, RS_LINT_USER_AGENT_NOT_TOKEN, 3, RS_LINT_INFO), "the token \"Bar\"");
    cr_assert_eq(g->n, 3);
}

Test(lint, empty_user_agent)
{
    const got *g = lint("User-agent:\nUser-agent: *foo\nUser-agent: 008\nDisallow: /\n");
    expect_msg(expect(g, RS_LINT_EMPTY_USER_AGENT, 1, RS_LINT_WARNING), "names no crawler");
    expect_msg(expect(g, RS_LINT_EMPTY_USER_AGENT, 2, RS_LINT_WARNING), "\"*foo\"");
    expect(g, RS_LINT_EMPTY_USER_AGENT, 3, RS_LINT_WARNING);
    cr_assert_eq(count(g, RS_LINT_NO_GROUPS), 0);
    /* "* anything" is global, not empty. */
    cr_assert_eq(lint("User-agent: * (all)\nDisallow: /\n")->n, 0);
}

Test(lint, sitemap_not_absolute)
{
    const got *g = lint("User-agent: *\nDisallow: /a\nSitemap: /sitemap.xml\nSitemap: http:///s.xml\n"
                        "Sitemap: https://a.com/s.xml\nSitemap: ftp://a.com/s.xml\nSitemap:\n");
    expect_msg(expect(g, RS_LINT_SITEMAP_NOT_ABSOLUTE, 3, RS_LINT_WARNING), "not an absolute URL");
    expect(g, RS_LINT_SITEMAP_NOT_ABSOLUTE, 4, RS_LINT_WARNING);
    expect(g, RS_LINT_SITEMAP_NOT_ABSOLUTE, 7, RS_LINT_WARNING);
    cr_assert_eq(count(g, RS_LINT_SITEMAP_NOT_ABSOLUTE), 3);
}

Test(lint, file_too_large)
{
    /* Line 1 is 14 bytes, then 100-byte lines: byte 511,999 (the last read)
     * is in line 2 + (511999 - 14) / 100 = 5121. */
    const size_t size = RS_ROBOTS_MAX_BODY + 5000;
    char *body = malloc(size);
    size_t len = (size_t)sprintf(body, "User-agent: *\n");
    cr_assert_eq(len, 14);
    while (len + 100 <= size) {
        memcpy(body + len, "Disallow: /", 11);
        memset(body + len + 11, 'a', 88);
        body[len + 99] = '\n';
        len += 100;
    }
    const got *g = lint_n(body, len, NULL);
    const got_finding *f = expect(g, RS_LINT_FILE_TOO_LARGE, 5121, RS_LINT_ERROR);
    expect_msg(f, "512,000 bytes");
    cr_assert_eq(g->n, 1);
    /* Exactly at the limit, and one byte more. */
    cr_assert_eq(lint_n(body, RS_ROBOTS_MAX_BODY, NULL)->n, 0);
    expect(lint_n(body, RS_ROBOTS_MAX_BODY + 1, NULL), RS_LINT_FILE_TOO_LARGE, 5121, RS_LINT_ERROR);
    free(body);
}

Test(lint, bom)
{
    const char full[] = "\xEF\xBB\xBFUser-agent: *\nDisallow: /\n";
    const got *g = lint(full);
    expect_msg(expect(g, RS_LINT_BOM, 1, RS_LINT_INFO), "byte-order mark");
    cr_assert_eq(g->n, 1);
    g = lint("\xEF\xBBUser-agent: *\nDisallow: /\n");
    expect_msg(expect(g, RS_LINT_BOM, 1, RS_LINT_INFO), "partial");
    cr_assert_eq(g->n, 1);
}

Test(lint, invalid_utf8)
{
    const got *g = lint("User-agent: *\nDisallow: /caf\xE9/\xE9\nDisallow: /caf\xC3\xA9\n"
                        "# caf\xE9 in a comment\nUser-agent: b\xFF\n");
    const got_finding *f = expect(g, RS_LINT_INVALID_UTF8, 2, RS_LINT_WARNING);
    expect_msg(f, "0xE9");
    expect_msg(f, "%E9");
    expect(g, RS_LINT_INVALID_UTF8, 5, RS_LINT_WARNING);
    cr_assert_eq(count(g, RS_LINT_INVALID_UTF8), 2, "once per line; valid UTF-8 and comments are fine");
    /* Overlong and surrogate forms are not UTF-8. */
    expect(lint("User-agent: *\nDisallow: /\xC0\xAF\n"), RS_LINT_INVALID_UTF8, 2, RS_LINT_WARNING);
    expect(lint("User-agent: *\nDisallow: /\xED\xA0\x80\n"), RS_LINT_INVALID_UTF8, 2, RS_LINT_WARNING);
    cr_assert_eq(count(lint("User-agent: *\nDisallow: /\xF0\x9F\x98\x80\n"), RS_LINT_INVALID_UTF8), 0);
}

Test(lint, html_content)
{
    const got *g = lint("<!DOCTYPE html>\n<html>\n<head><title>404 Not Found</title></head>\n"
                        "<body>\n<h1>Not Found: sorry</h1>\n<p>The page does not exist</p>\n</body>\n</html>\n");
    const got_finding *f = expect(g, RS_LINT_HTML_CONTENT, 1, RS_LINT_ERROR);
    expect_msg(f, "HTML page");
    /* The page's lines are not reported one by one. */
    cr_assert_eq(count(g, RS_LINT_IGNORED_LINE) + count(g, RS_LINT_UNKNOWN_KEY)
                 + count(g, RS_LINT_MISSING_COLON), 0);
    expect(g, RS_LINT_NO_GROUPS, 0, RS_LINT_WARNING);
    /* Junk first, then a minified page: two markers on line 3. */
    g = lint("Warning: cannot connect\n\n<HTML><BODY>Error 500</BODY></HTML>\n");
    expect(g, RS_LINT_HTML_CONTENT, 3, RS_LINT_ERROR);
    /* Not HTML: comment-like tags, a single mention, tags in '#' comments. */
    cr_assert_eq(count(lint("<!-- cached: 2019 -->\nUser-agent: *\nDisallow: /\n"), RS_LINT_HTML_CONTENT), 0);
    cr_assert_eq(count(lint("User-agent: *\nDisallow: /<html>\nDisallow: /<header>\n"), RS_LINT_HTML_CONTENT), 0);
    cr_assert_eq(count(lint("# <html><body>\nUser-agent: *\nDisallow: /\n"), RS_LINT_HTML_CONTENT), 0);
    cr_assert_eq(count(lint("User-agent: *\nDisallow: /<html\nDisallow: /<body\n"), RS_LINT_HTML_CONTENT), 1,
                 "two distinct markers anywhere in the content");
}

Test(lint, no_groups)
{
    const got *g = lint("Disallow: /x\nSitemap: https://a.com/s.xml\n");
    expect_msg(expect(g, RS_LINT_NO_GROUPS, 0, RS_LINT_WARNING), "every URL is allowed");
    expect(lint(""), RS_LINT_NO_GROUPS, 0, RS_LINT_WARNING);
    cr_assert_eq(count(lint("User-agent: *\n"), RS_LINT_NO_GROUPS), 0);
}

Test(lint, empty_group)
{
    /* The last group has only a crawl-delay: SemrushBot and Yandex escape the '*' rules. */
    const got *g = lint("User-agent: *\nDisallow: /search\n\nUser-agent: SemrushBot\nCrawl-delay: 5\n"
                        "User-agent: Yandex\nUser-agent: semrushbot\n");
    const got_finding *f = expect(g, RS_LINT_EMPTY_GROUP, 4, RS_LINT_WARNING);
    cr_assert_str_eq(f->msg, "no allow or disallow line follows: SemrushBot, Yandex get no rules and may "
                             "fetch everything (instead of getting the '*' rules)");
    cr_assert_eq(count(g, RS_LINT_EMPTY_GROUP), 1);
    /* What the matcher does: allowed, although '*' disallows /search. */
    const char *body = "User-agent: *\nDisallow: /search\n\nUser-agent: Yandex\n";
    rs_ruleset *rs;
    rs_matcher *m;
    cr_assert_eq(rs_ruleset_parse(body, strlen(body), &rs), RS_OK);
    cr_assert_eq(rs_matcher_create(rs, "Yandex", 6, RS_SEMANTICS_GOOGLE, &m), RS_OK);
    rs_verdict v;
    rs_matcher_match(m, "/search", 7, &v);
    cr_assert_eq(v.disallowed, 0);
    rs_matcher_free(m);
    rs_ruleset_free(rs);
    expect(lint(body), RS_LINT_EMPTY_GROUP, 4, RS_LINT_WARNING);
    /* No consequence, no finding: token named earlier too, no earlier '*' group,
     * an empty '*' group, a last group with an empty disallow, a group naming nobody. */
    cr_assert_eq(count(lint("User-agent: *\nDisallow: /x\nUser-agent: Foo\nDisallow: /y\nUser-agent: foo\n"),
                       RS_LINT_EMPTY_GROUP), 0);
    cr_assert_eq(count(lint("User-agent: Bar\nDisallow: /x\nUser-agent: Foo\n"), RS_LINT_EMPTY_GROUP), 0);
    cr_assert_eq(count(lint("User-agent: Bar\nDisallow: /x\nUser-agent: *\n"), RS_LINT_EMPTY_GROUP), 0);
    cr_assert_eq(count(lint("User-agent: *\nDisallow: /x\nUser-agent: Foo\nDisallow:\n"), RS_LINT_EMPTY_GROUP), 0);
    cr_assert_eq(count(lint("User-agent: *\nDisallow: /x\nUser-agent: 42\n"), RS_LINT_EMPTY_GROUP), 0);
    /* Only the last group can be empty: consecutive user-agent lines share the next rules. */
    cr_assert_eq(count(lint("User-agent: *\nDisallow: /x\nUser-agent: Foo\nCrawl-delay: 1\n"
                            "User-agent: Bar\nDisallow: /y\n"), RS_LINT_EMPTY_GROUP), 0);
    g = lint("User-agent: *\nDisallow: /x\nUser-agent: a\nUser-agent: b\nUser-agent: c\nUser-agent: d\n"
             "User-agent: e\n");
    expect_msg(expect(g, RS_LINT_EMPTY_GROUP, 3, RS_LINT_WARNING), "a, b, c and 2 more get no rules");
}

Test(lint, ignored_line_and_nul_byte)
{
    const char body[] = "User-agent: *\nthis is not a rule\n: /x\nDisallow: /a\0/b\n";
    const got *g = lint_n(body, sizeof body - 1, NULL);
    expect_msg(expect(g, RS_LINT_IGNORED_LINE, 2, RS_LINT_WARNING), "\"this is not a rule\"");
    expect_msg(expect(g, RS_LINT_IGNORED_LINE, 3, RS_LINT_WARNING), "empty key");
    expect_msg(expect(g, RS_LINT_NUL_BYTE, 4, RS_LINT_WARNING), "column 13");
    cr_assert_eq(g->n, 3);
}

Test(lint, line_numbers_follow_the_parser)
{
    /* CR, LF and CRLF line ends; empty lines count. */
    const got *g = lint("User-agent: *\r\n\r\nDisalow: /a\rDisalow: /b\n\nDisalow: /c");
    expect(g, RS_LINT_TYPO_KEY, 3, RS_LINT_WARNING);
    expect(g, RS_LINT_TYPO_KEY, 4, RS_LINT_WARNING);
    expect(g, RS_LINT_TYPO_KEY, 6, RS_LINT_WARNING);
}

Test(lint, options_ignore)
{
    const char *body = "Disalow: /x\nCrawl-delay: 4\n";
    rs_lint_options opt = { (1u << RS_LINT_UNKNOWN_KEY) | (1u << RS_LINT_NO_GROUPS) };
    const got *g = lint_n(body, strlen(body), &opt);
    cr_assert_eq(count(g, RS_LINT_UNKNOWN_KEY) + count(g, RS_LINT_NO_GROUPS), 0);
    expect(g, RS_LINT_TYPO_KEY, 1, RS_LINT_WARNING);
    expect(g, RS_LINT_RULE_OUTSIDE_GROUP, 1, RS_LINT_WARNING);
    cr_assert_eq(rs_lint(NULL, 3, NULL, collect, &G), RS_ERR_USAGE);
}

/* ===== Clean samples ===== */

static char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while ((n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    *size = len;
    return buf;
}

Test(lint, clean_samples_have_no_warning)
{
    static const char *const FILES[] = {
        "tests/lint/clean-basic.txt", "tests/lint/clean-multi.txt", "tests/lint/clean-crlf.txt",
    };
    for (size_t i = 0; i < sizeof FILES / sizeof FILES[0]; i++) {
        size_t size;
        char *body = slurp(FILES[i], &size);
        cr_assert_not_null(body, "cannot read %s", FILES[i]);
        const got *g = lint_n(body, size, NULL);
        for (size_t k = 0; k < g->n; k++)
            cr_assert_eq(g->f[k].severity, RS_LINT_INFO, "%s:%u: %s", FILES[i], g->f[k].line, g->f[k].msg);
        free(body);
    }
    /* The project's own samples in data/. */
    static const char *const DATA[] = {
        "data/example-robots.txt", "data/robots/shop.example.com.txt", "data/robots/news.example.org.txt",
    };
    for (size_t i = 0; i < sizeof DATA / sizeof DATA[0]; i++) {
        size_t size;
        char *body = slurp(DATA[i], &size);
        cr_assert_not_null(body, "cannot read %s", DATA[i]);
        const got *g = lint_n(body, size, NULL);
        for (size_t k = 0; k < g->n; k++)
            cr_assert_eq(g->f[k].severity, RS_LINT_INFO, "%s:%u: %s", DATA[i], g->f[k].line, g->f[k].msg);
        free(body);
    }
}

/* ===== --agent: effective rules ===== */

Test(lint, agent_view_specific)
{
    const char *body = "User-agent: *\nDisallow: /\n\n"
                       "User-agent: Googlebot\nDisallow: /private\nAllow: /private/press\n\n"
                       "User-agent: bingbot\nDisallow: /b\n\n"
                       "User-agent: googlebot\nAllow: /p\nDisallow: /*.pdf$\nAllow: /dir/index.html\n"
                       "Disallow: fish\nDisallow:\n";
    rs_lint_agent_view *v;
    cr_assert_eq(rs_lint_agent(body, strlen(body), "Googlebot", 9, &v), RS_OK);
    cr_assert_eq(v->specific, 1);
    cr_assert_eq(v->n_groups, 2);
    cr_assert_eq(v->group_lines[0], 4);
    cr_assert_eq(v->group_lines[1], 11);
    static const struct { rs_rule_type t; uint32_t line; const char *pat; int derived, never; } WANT[] = {
        { RS_RULE_ALLOW, 14, "/dir/index.html", 0, 0 },
        { RS_RULE_ALLOW, 6, "/private/press", 0, 0 },
        { RS_RULE_DISALLOW, 5, "/private", 0, 0 },
        { RS_RULE_DISALLOW, 13, "/*.pdf$", 0, 0 },
        { RS_RULE_ALLOW, 14, "/dir/$", 1, 0 },
        { RS_RULE_DISALLOW, 15, "fish", 0, 1 },
        { RS_RULE_ALLOW, 12, "/p", 0, 0 },
        { RS_RULE_DISALLOW, 16, "", 0, 0 },
    };
    cr_assert_eq(v->n_rules, sizeof WANT / sizeof WANT[0]);
    for (size_t i = 0; i < v->n_rules; i++) {
        const rs_lint_rule *r = &v->rules[i];
        cr_assert_eq(r->type, WANT[i].t, "rule %zu", i);
        cr_assert_eq(r->line, WANT[i].line, "rule %zu", i);
        cr_assert_eq(r->pattern.len, strlen(WANT[i].pat), "rule %zu", i);
        cr_assert(memcmp(r->pattern.ptr, WANT[i].pat, r->pattern.len) == 0, "rule %zu", i);
        cr_assert_eq(r->priority, r->pattern.len);
        cr_assert_eq(r->derived, WANT[i].derived);
        cr_assert_eq(r->never_matches, WANT[i].never);
    }
    rs_lint_agent_free(v);
}

Test(lint, agent_view_global_and_none)
{
    const char *body = "User-agent: *\nDisallow: /a\n\nUser-agent: Foo\nDisallow: /f\n\n"
                       "User-agent: *\nAllow: /a/b\n";
    rs_lint_agent_view *v;
    cr_assert_eq(rs_lint_agent(body, strlen(body), "Other", 5, &v), RS_OK);
    cr_assert_eq(v->specific, 0);
    cr_assert_eq(v->n_groups, 2);
    cr_assert_eq(v->group_lines[0], 1);
    cr_assert_eq(v->group_lines[1], 7);
    cr_assert_eq(v->n_rules, 2);
    cr_assert_eq(v->rules[0].line, 8);
    cr_assert_eq(v->rules[1].line, 2);
    rs_lint_agent_free(v);
    /* Not a token: compared whole, so only '*' applies (SPEC 2.2.12). */
    cr_assert_eq(rs_lint_agent(body, strlen(body), "Foo/1.0", 7, &v), RS_OK);
    cr_assert_eq(v->specific, 0);
    rs_lint_agent_free(v);
    const char *none = "User-agent: Foo\nDisallow: /f\n";
    cr_assert_eq(rs_lint_agent(none, strlen(none), "Bar", 3, &v), RS_OK);
    cr_assert_eq(v->specific, 0);
    cr_assert_eq(v->n_groups, 0);
    cr_assert_eq(v->n_rules, 0);
    rs_lint_agent_free(v);
    /* Named by a group without rules: everything allowed, '*' ignored. */
    const char *empty = "User-agent: *\nDisallow: /\n\nUser-agent: Foo\n";
    cr_assert_eq(rs_lint_agent(empty, strlen(empty), "foo", 3, &v), RS_OK);
    cr_assert_eq(v->specific, 1);
    cr_assert_eq(v->n_groups, 1);
    cr_assert_eq(v->group_lines[0], 4);
    cr_assert_eq(v->n_rules, 0);
    rs_lint_agent_free(v);
    rs_lint_agent_free(NULL);
}

/* A plain backtracking glob for short test paths (the matcher's independent twin). */
static int glob(const char *p, size_t pn, const char *s, size_t sn)
{
    if (pn == 0) return 1;                           /* prefix match */
    if (pn == 1 && p[0] == '$') return sn == 0;
    if (p[0] == '*') {
        for (size_t k = 0; k <= sn; k++)
            if (glob(p + 1, pn - 1, s + k, sn - k)) return 1;
        return 0;
    }
    return sn > 0 && p[0] == s[0] && glob(p + 1, pn - 1, s + 1, sn - 1);
}

/* "The first rule that matches decides" must give the matcher's verdict. */
static void check_precedence(const char *body, size_t size, const char *agent)
{
    rs_lint_agent_view *v;
    rs_ruleset *rs;
    rs_matcher *m;
    cr_assert_eq(rs_lint_agent(body, size, agent, strlen(agent), &v), RS_OK);
    cr_assert_eq(rs_ruleset_parse(body, size, &rs), RS_OK);
    cr_assert_eq(rs_matcher_create(rs, agent, strlen(agent), RS_SEMANTICS_GOOGLE, &m), RS_OK);
    size_t originals = 0;
    for (size_t i = 0; i < v->n_rules; i++) originals += !v->rules[i].derived;
    cr_assert_eq(originals, rs_matcher_rule_count(m), "%s: same rules as the matcher", agent);
    /* Paths: each pattern with '*' -> "x", '$' dropped, plus a suffix. */
    static const char *const SUFFIX[] = { "", "x", "/", ".pdf", "?q=1" };
    char path[512];
    for (size_t i = 0; i < v->n_rules; i++) {
        const rs_str pat = v->rules[i].pattern;
        if (pat.len > 200) continue;
        for (size_t s = 0; s < sizeof SUFFIX / sizeof SUFFIX[0]; s++) {
            size_t n = 0;
            if (pat.len == 0 || pat.ptr[0] != '/') path[n++] = '/';
            for (size_t k = 0; k < pat.len; k++) {
                if (pat.ptr[k] == '*') path[n++] = 'x';
                else if (pat.ptr[k] != '$') path[n++] = pat.ptr[k];
            }
            n += (size_t)sprintf(path + n, "%s", SUFFIX[s]);
            rs_verdict want;
            rs_matcher_match(m, path, n, &want);
            int disallowed = 0;
            for (size_t k = 0; k < v->n_rules; k++) {
                const rs_lint_rule *r = &v->rules[k];
                if (r->never_matches || !glob(r->pattern.ptr, r->pattern.len, path, n)) continue;
                disallowed = r->type == RS_RULE_DISALLOW && r->priority > 0;
                break;
            }
            cr_assert_eq(disallowed, want.disallowed, "%s: path %.*s", agent, (int)n, path);
        }
    }
    rs_matcher_free(m);
    rs_ruleset_free(rs);
    rs_lint_agent_free(v);
}

Test(lint, agent_view_precedence_matches_the_matcher)
{
    const char *body = "User-agent: *\nAllow: /p\nDisallow: /\nAllow: /$\nDisallow: /*.htm\n"
                       "Allow: /page\nAllow: /dir/index.html\nDisallow: /dir/\nDisallow:\n";
    check_precedence(body, strlen(body), "Googlebot");
    static const char *const FILES[] = {
        "www.squarespace.com.txt", "www.ratemyprofessors.com.txt", "en.wikipedia.org.txt",
        "www.nytimes.com.txt", "github.com.txt",
    };
    for (size_t i = 0; i < sizeof FILES / sizeof FILES[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/data/robots/%s", RS_SHARED_DIR, FILES[i]);
        size_t size;
        char *b = slurp(path, &size);
        cr_assert_not_null(b, "cannot read %s", path);
        check_precedence(b, size, "Googlebot");
        check_precedence(b, size, "bingbot");
        check_precedence(b, size, "SomeOtherBot");
        free(b);
    }
}

/* ===== The real corpus ===== */

typedef struct {
    size_t by_code[RS_LINT_CODE_COUNT];
    uint32_t max_line;
    int line0_other;    /* a line-0 finding that is not no-groups */
} corpus_count;

static void count_finding(void *ctx, const rs_lint_finding *f)
{
    corpus_count *c = ctx;
    cr_assert((unsigned)f->code < RS_LINT_CODE_COUNT);
    cr_assert_eq(f->severity, rs_lint_code_severity(f->code));
    c->by_code[f->code]++;
    if (f->line > c->max_line) c->max_line = f->line;
    if (f->line == 0 && f->code != RS_LINT_NO_GROUPS) c->line0_other = 1;
}

static void count_user_agents(void *ctx, const rs_robots_line *line)
{
    *(uint32_t *)ctx += line->directive == RS_DIRECTIVE_USER_AGENT;
}

Test(lint, whole_corpus, .timeout = 1200)
{
    char dirpath[512];
    snprintf(dirpath, sizeof dirpath, "%s/data/robots", RS_SHARED_DIR);
    DIR *d = opendir(dirpath);
    cr_assert_not_null(d, "cannot open %s", dirpath);
    size_t total[RS_LINT_CODE_COUNT] = { 0 };
    size_t files = 0, files_with_warning = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const size_t nl = strlen(e->d_name);
        if (nl < 5 || strcmp(e->d_name + nl - 4, ".txt") != 0) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dirpath, e->d_name);
        size_t size;
        char *body = slurp(path, &size);
        cr_assert_not_null(body, "%s", path);
        corpus_count c;
        memset(&c, 0, sizeof c);
        cr_assert_eq(rs_lint(body, size, NULL, count_finding, &c), RS_OK, "%s", path);
        rs_robots_info info;
        uint32_t ua_lines = 0;
        cr_assert_eq(rs_robots_parse(body, size, count_user_agents, &ua_lines, &info), RS_OK);
        /* Impossible findings. */
        cr_assert(c.max_line <= info.lines, "%s: finding past the last line", path);
        cr_assert_eq(c.line0_other, 0, "%s", path);
        cr_assert_eq(c.by_code[RS_LINT_FILE_TOO_LARGE], size > RS_ROBOTS_MAX_BODY, "%s", path);
        cr_assert_eq(c.by_code[RS_LINT_BOM], size > 0 && (unsigned char)body[0] == 0xEF, "%s", path);
        cr_assert_eq(c.by_code[RS_LINT_NO_GROUPS], ua_lines == 0, "%s", path);
        size_t warnings = 0;
        for (int k = 0; k < RS_LINT_CODE_COUNT; k++) {
            total[k] += c.by_code[k];
            if (rs_lint_code_severity((rs_lint_code)k) != RS_LINT_INFO) warnings += c.by_code[k];
        }
        files_with_warning += warnings > 0;
        /* The agent view of a common crawler never fails either. */
        rs_lint_agent_view *v;
        cr_assert_eq(rs_lint_agent(body, size, "Googlebot", 9, &v), RS_OK, "%s", path);
        rs_lint_agent_free(v);
        free(body);
        files++;
    }
    closedir(d);
    fprintf(stderr, "lint over %zu files of %s (%zu with a warning or error):\n", files, dirpath,
            files_with_warning);
    for (int k = 0; k < RS_LINT_CODE_COUNT; k++)
        fprintf(stderr, "  %-22s %6zu\n", rs_lint_code_name((rs_lint_code)k), total[k]);
    cr_assert(files > 3000);
    cr_assert(total[RS_LINT_UNKNOWN_KEY] > 100, "crawl-delay and host are common");
    cr_assert(total[RS_LINT_USER_AGENT_NOT_TOKEN] > 0);
    cr_assert(total[RS_LINT_BOM] > 0, "the corpus has files with a BOM");
    cr_assert(total[RS_LINT_FILE_TOO_LARGE] > 0, "the corpus has a file over 500 KiB");
    cr_assert(total[RS_LINT_INVALID_UTF8] > 0, "the corpus has bytes that are not UTF-8");
    cr_assert_eq(total[RS_LINT_HTML_CONTENT], 0, "no page of the corpus is HTML");
    cr_assert(files_with_warning < files / 2, "most real files lint without a warning");
}
