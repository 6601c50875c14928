/* test_match.c - SPEC 2.3-2.5: patterns, precedence, the reported line. */
#include "verdict_helper.h"
#include "common/common.h" /* rs_alloc_fail_after */

#define U(path) "http://example.com" path

static void expect_pattern(const char *pattern, const char *path, int matches)
{
    char body[256];
    snprintf(body, sizeof body, "User-agent: *\nDisallow: %s\n", pattern);
    char url[256];
    snprintf(url, sizeof url, "http://example.com%s", path);
    const rs_verdict v = verdict_of(body, "x", url);
    cr_expect_eq(v.disallowed, matches, "pattern '%s' vs path '%s': got %d", pattern, path, v.disallowed);
}

Test(match, rfc9309_prefix_examples)
{
    static const char *const YES[] = { "/fish", "/fish.html", "/fish/salmon.html", "/fishheads",
                                       "/fishheads/yummy.html", "/fish.php?id=anything" };
    static const char *const NO[] = { "/Fish.asp", "/catfish", "/?id=fish", "/desert/fish" };
    for (size_t i = 0; i < 6; i++) expect_pattern("/fish", YES[i], 1);
    for (size_t i = 0; i < 4; i++) expect_pattern("/fish", NO[i], 0);
    expect_pattern("/fish*", "/fishheads", 1);
    expect_pattern("/fish/", "/fish/", 1);
    expect_pattern("/fish/", "/fish/?id=anything", 1);
    expect_pattern("/fish/", "/fish", 0);
    expect_pattern("/fish/", "/fish.html", 0);
}

Test(match, rfc9309_wildcard_and_anchor_examples)
{
    expect_pattern("/*.php", "/index.php", 1);
    expect_pattern("/*.php", "/folder/filename.php?parameters", 1);
    expect_pattern("/*.php", "/windows.PHP", 0);
    expect_pattern("/*.php$", "/filename.php", 1);
    expect_pattern("/*.php$", "/folder/filename.php", 1);
    expect_pattern("/*.php$", "/filename.php?parameters", 0);
    expect_pattern("/*.php$", "/filename.php/", 0);
    expect_pattern("/*.php$", "/filename.php5", 0);
    expect_pattern("/fish*.php", "/fish.php", 1);
    expect_pattern("/fish*.php", "/fishheads/catfish.php?parameters", 1);
    expect_pattern("/fish*.php", "/Fish.PHP", 0);
}

Test(match, rfc9309_dollar_inside_is_literal)
{
    expect_pattern("/a$b", "/a$b", 1);
    expect_pattern("/a$b", "/ab", 0);
    expect_pattern("/a$$", "/a$", 1);
    expect_pattern("/a$$", "/a$x", 0);
    expect_pattern("/a*$", "/a/anything", 1);
}

Test(match, rfc9309_pattern_must_start_with_slash_or_star)
{
    expect_pattern("fish/", "/fish/", 0);
    expect_pattern("*fish", "/catfish", 1);
    expect_pattern("$", "/", 0);
}

Test(match, rfc9309_empty_pattern_matches_everything_with_priority_zero)
{
    /* Matches, but priority 0 never disallows; it is still the reported line. */
    expect_verdict("User-agent: *\nDisallow:\n", "x", U("/a"), 0, 2);
    expect_verdict("User-agent: *\nAllow:\nDisallow:\n", "x", U("/a"), 0, 2);
}

Test(match, rfc9309_case_sensitive_bytes)
{
    expect_pattern("/%E4", "/%E4x", 1);
    expect_pattern("/%e4", "/%E4x", 1);   /* the pattern is canonicalized ... */
    expect_pattern("/%E4", "/%e4x", 0);   /* ... the path is not (see --encode-urls) */
}

Test(match, rfc9309_longest_match_wins)
{
    expect_verdict("User-agent: *\nAllow: /p\nDisallow: /\n", "x", U("/page"), 0, 2);
    expect_verdict("User-agent: *\nAllow: /folder\nDisallow: /folder\n", "x", U("/folder/page"), 0, 2);
    expect_verdict("User-agent: *\nAllow: /page\nDisallow: /*.htm\n", "x", U("/page.htm"), 1, 3);
    expect_verdict("User-agent: *\nAllow: /$\nDisallow: /\n", "x", U("/"), 0, 2);
    expect_verdict("User-agent: *\nAllow: /$\nDisallow: /\n", "x", U("/page.htm"), 1, 3);
}

Test(match, rfc9309_priority_counts_wildcards)
{
    // "/*.htm" is 6 bytes, "/page" 5: the wildcard rule is longer.
    expect_verdict("User-agent: *\nDisallow: /*.htm\nAllow: /page\n", "x", U("/page.htm"), 1, 2);
    expect_verdict("User-agent: *\nDisallow: /a**\nAllow: /a/b\n", "x", U("/a/b"), 0, 3);
}

Test(match, rfc9309_ties_go_to_allow_and_first_line)
{
    expect_verdict("User-agent: *\nDisallow: /x\nAllow: /x\n", "x", U("/x"), 0, 3);
    expect_verdict("User-agent: *\nAllow: /a\nAllow: /a\nDisallow: /\n", "x", U("/a"), 0, 2);
    expect_verdict("User-agent: *\nDisallow: /a\nDisallow: /a\n", "x", U("/a"), 1, 2);
    expect_verdict("User-agent: *\nDisallow: /a*\nDisallow: /ab\n", "x", U("/abc"), 1, 2);
}

Test(match, rfc9309_reported_line_rules)
{
    /* No match at all: line 0. */
    expect_verdict("User-agent: *\nDisallow: /x\n", "x", U("/y"), 0, 0);
    /* An allow only. */
    expect_verdict("User-agent: *\nAllow: /y\n", "x", U("/y"), 0, 2);
    /* An empty Disallow names its line for an allowed URL. */
    expect_verdict("User-agent: *\nDisallow:\nAllow: /q\n", "x", U("/y"), 0, 2);
    expect_verdict("User-agent: *\nDisallow:\nAllow: /q\n", "x", U("/q"), 0, 3);
}

Test(match, rfc9309_index_html_allows_directory)
{
    const char *body = "User-agent: *\nDisallow: /\nAllow: /dir/index.html\n";
    expect_verdict(body, "x", U("/dir/"), 0, 3);
    expect_verdict(body, "x", U("/dir/index.html"), 0, 3);
    expect_verdict(body, "x", U("/dir/x"), 1, 2);
    expect_verdict(body, "x", U("/dir"), 1, 2);
    expect_verdict("User-agent: *\nDisallow: /\nAllow: /index.htm\n", "x", U("/"), 0, 3);
    /* Only for allow rules. */
    expect_verdict("User-agent: *\nDisallow: /d/index.html\n", "x", U("/d/"), 0, 0);
    /* The retry's priority is that of the short pattern: "/dir/$" (6) loses to a 7-byte disallow. */
    expect_verdict("User-agent: *\nDisallow: /dir/*$\nAllow: /dir/index.html\n", "x", U("/dir/"), 1, 2);
}

Test(match, rfc9309_worst_case_is_bounded)
{
    /* "/" + 300 x "*a" + "b" against a 100 KB path of 'a': backtracking would never end. */
    const size_t plen = 100 * 1024;
    char *body = malloc(1024);
    char *url = malloc(plen + 32);
    size_t k = (size_t)sprintf(body, "User-agent: *\nDisallow: /");
    for (int i = 0; i < 300; i++) { body[k++] = '*'; body[k++] = 'a'; }
    strcpy(body + k, "b\nAllow: /*a$\n");
    strcpy(url, "http://e.com/");
    memset(url + 13, 'a', plen);
    url[13 + plen] = '\0';
    expect_verdict(body, "x", url, 0, 3);
    url[13 + plen - 1] = 'b';
    expect_verdict(body, "x", url, 1, 2);
    free(body);
    free(url);
}

Test(match, compat_many_rules_share_prefixes)
{
    /* Radix-trie splits: rules that end inside, at and past each other's labels. */
    const char *body = "User-agent: *\nDisallow: /abc\nAllow: /abcdef\nDisallow: /abd\nAllow: /ab\n"
                       "Disallow: /abcdefg$\nDisallow: /abc*z\n";
    expect_verdict(body, "x", U("/ab"), 0, 5);
    expect_verdict(body, "x", U("/abc"), 1, 2);
    expect_verdict(body, "x", U("/abcde"), 1, 2);
    expect_verdict(body, "x", U("/abcdef"), 0, 3);
    expect_verdict(body, "x", U("/abcdefg"), 1, 6);
    expect_verdict(body, "x", U("/abcdefgh"), 0, 3);
    expect_verdict(body, "x", U("/abcdefghz"), 0, 3);
    expect_verdict(body, "x", U("/abcdefghijz"), 0, 3); /* "/abc*z" (6) < "/abcdef" (7) */
    expect_verdict(body, "x", U("/abcXz"), 1, 7);
    expect_verdict(body, "x", U("/abdx"), 1, 4);
}

Test(match, compat_rule_info_names_the_deciding_rule)
{
    const char *body = "User-agent: *\nDisallow: /private*\nAllow: /private/ok\n";
    rs_ruleset *rs;
    rs_matcher *m;
    cr_assert_eq(rs_ruleset_parse(body, strlen(body), &rs), RS_OK);
    cr_assert_eq(rs_matcher_create(rs, "x", 1, RS_SEMANTICS_GOOGLE, &m), RS_OK);
    rs_ruleset_free(rs);
    cr_expect_eq(rs_matcher_rule_count(m), 2);
    rs_verdict v;
    rs_matcher_match(m, "/private/x", 10, &v);
    rs_rule_info info;
    cr_assert_eq(rs_matcher_rule(m, v.rule, &info), RS_OK);
    cr_expect_eq(info.type, RS_RULE_DISALLOW);
    cr_expect_eq(info.line, 2);
    cr_expect(info.pattern.len == 9 && memcmp(info.pattern.ptr, "/private*", 9) == 0);
    rs_matcher_match(m, "/public", 7, &v);
    cr_expect_eq(v.rule, -1);
    cr_expect_eq(rs_matcher_rule(m, -1, &info), RS_ERR_USAGE);
    cr_expect_eq(rs_matcher_rule(m, 2, &info), RS_ERR_USAGE);
    for (int32_t r = -1; r <= 3; r++) rs_matcher_prefetch_rule(m, r);   /* a hint, any index */
    for (int32_t r = -1; r <= 3; r++) rs_matcher_prefetch_pattern(m, r);
    rs_matcher_free(m);
}

Test(match, compat_constant_matchers)
{
    rs_matcher *m;
    rs_verdict v;
    cr_assert_eq(rs_matcher_create_constant(1, &m), RS_OK);
    rs_matcher_match(m, "/", 1, &v);
    cr_expect(v.disallowed && v.line == 0 && v.rule == -1);
    rs_matcher_free(m);
    cr_assert_eq(rs_matcher_create_constant(0, &m), RS_OK);
    rs_matcher_match(m, "/", 1, &v);
    cr_expect(!v.disallowed && v.line == 0);
    rs_matcher_free(m);
    rs_matcher_free(NULL);
}

Test(match, compat_allocation_failure_is_reported)
{
    const char *body = "User-agent: *\nDisallow: /a*b\nAllow: /c\n";
    for (unsigned long n = 1; n < 40; n++) {
        rs_ruleset *rs = NULL;
        rs_matcher *m = NULL;
        rs_alloc_fail_after(n);
        rs_status st = rs_ruleset_parse(body, strlen(body), &rs);
        if (st == RS_OK) st = rs_matcher_create(rs, "x", 1, RS_SEMANTICS_GOOGLE, &m);
        rs_alloc_fail_after(0);
        cr_expect(st == RS_OK || st == RS_ERR_NOMEM);
        if (st == RS_OK) {
            rs_verdict v;
            rs_matcher_match(m, "/a/b", 4, &v);
            cr_expect_eq(v.disallowed, 1);
        }
        rs_matcher_free(m);
        rs_ruleset_free(rs);
    }
}

static rs_verdict first_match(const char *body, const char *url)
{
    return verdict_sem(body, strlen(body), "SomeBot", url, RS_SEMANTICS_FIRST_MATCH);
}

Test(match, first_match_order_decides)
{
    rs_verdict v = first_match("User-agent: *\nAllow: /*?$\nDisallow: /*?\n", U("/page?"));
    cr_expect(!v.disallowed && v.line == 2);
    v = first_match("User-agent: *\nDisallow: /\nAllow: /a\n", U("/a"));
    cr_expect(v.disallowed && v.line == 2);
}

Test(match, first_match_relative_patterns_match_anywhere)
{
    rs_verdict v = first_match("User-agent: *\nDisallow: html$\n", U("/tmpa.html"));
    cr_expect(v.disallowed && v.line == 2);
    v = first_match("User-agent: *\nDisallow: htm$\n", U("/a.html"));
    cr_expect(!v.disallowed && v.line == 0);
}

Test(match, first_match_empty_disallow_matches_nothing)
{
    rs_verdict v = first_match("User-agent: *\nDisallow:\n", U("/x"));
    cr_expect(!v.disallowed && v.line == 0);
}

/* ===== Randomized: the compiled matcher vs a literal reading of SPEC 2.3-2.4 ===== */

/* The reference's position-set match of a pattern against a prefix of the path. */
static int naive_matches(const char *path, size_t plen, const char *pat, size_t patlen)
{
    size_t pos[128], n = 1, next[128];
    pos[0] = 0;
    for (size_t i = 0; i < patlen; i++) {
        if (pat[i] == '$' && i + 1 == patlen) return pos[n - 1] == plen;
        if (pat[i] == '*') {
            const size_t from = pos[0];
            n = 0;
            for (size_t p = from; p <= plen; p++) pos[n++] = p;
            continue;
        }
        size_t k = 0;
        for (size_t j = 0; j < n; j++)
            if (pos[j] < plen && path[pos[j]] == pat[i]) next[k++] = pos[j] + 1;
        if (k == 0) return 0;
        memcpy(pos, next, k * sizeof pos[0]);
        n = k;
    }
    return 1;
}

typedef struct { int allow; char pat[48]; } rnd_rule;

/* SPEC 2.4.17-20: best allow and best disallow by (priority desc, line asc). */
static void naive_verdict(const rnd_rule *r, size_t n, const char *path, size_t plen, int *dis, unsigned *line)
{
    int ba = -1, bd = -1;
    unsigned la = 0, ld = 0;
    for (size_t i = 0; i < n; i++) {
        const char *p = r[i].pat;
        size_t len = strlen(p);
        int prio = -1;
        if ((len == 0 || p[0] == '/' || p[0] == '*') && naive_matches(path, plen, p, len)) prio = (int)len;
        if (prio < 0 && r[i].allow) {               /* the index.htm retry */
            const char *slash = NULL;
            for (size_t k = len; k > 0; k--) if (p[k - 1] == '/') { slash = p + k - 1; break; }
            if (slash && len - (size_t)(slash - p) >= 10 && memcmp(slash, "/index.htm", 10) == 0) {
                char cut[64];
                const size_t c = (size_t)(slash - p) + 1;
                memcpy(cut, p, c);
                cut[c] = '$';
                if (naive_matches(path, plen, cut, c + 1)) prio = (int)c + 1;
            }
        }
        const unsigned ln = (unsigned)i + 2;        /* line 1 is the user-agent line */
        if (r[i].allow && prio > ba) { ba = prio; la = ln; }
        if (!r[i].allow && prio > bd) { bd = prio; ld = ln; }
    }
    *dis = bd > ba && bd > 0;
    *line = bd > ba ? ld : la;
}

/* The Googlebot matcher (Google semantics) of the robots.txt body[0, len). */
static rs_matcher *googlebot_matcher(const char *body, size_t len)
{
    rs_ruleset *rs = NULL;
    rs_matcher *m = NULL;
    cr_assert_eq(rs_ruleset_parse(body, len, &rs), RS_OK);
    cr_assert_eq(rs_matcher_create(rs, "Googlebot", 9, RS_SEMANTICS_GOOGLE, &m), RS_OK);
    rs_ruleset_free(rs);
    return m;
}

/* The matcher's verdict for path[0, pl) equals the naive reference's (round and body name the case). */
static void expect_naive(const rs_matcher *m, const rnd_rule *rules, size_t n, const char *path, size_t pl,
                         int round, const char *body)
{
    rs_verdict v;
    rs_matcher_match(m, path, pl, &v);
    int dis;
    unsigned line;
    naive_verdict(rules, n, path, pl, &dis, &line);
    cr_assert(v.disallowed == dis && v.line == line,
              "path '%.*s': got disallowed=%d line %u, want %d line %u (round %d); rules:\n%s",
              (int)pl, path, v.disallowed, v.line, dis, line, round, body);
}

Test(match, compat_random_rules_match_naive_reference)
{
    /* a narrow alphabet (deep tries, long labels); a wide one, so that nodes get
     * many children (child bitmaps); a mixed one whose children span bitmap words
     * 0 and 1 (digits and punctuation, letters), with longer patterns */
    static const char NARROW[] = "//ab*$a", WIDE[] = "/abcdefghijklmnopqrstu*$",
                      MIXED[] = "/0123456789-._~!+,;=:@aAzZ*$";
    unsigned seed = 4242;
    char body[8192], path[40];
    rnd_rule rules[60];
    for (int round = 0; round < 3000; round++) {
        const int kind = round % 3;
        const char *const alpha = kind == 0 ? NARROW : kind == 1 ? WIDE : MIXED;
        const size_t na = strlen(alpha);
        const size_t n = 1 + (size_t)rand_r(&seed) % (kind == 0 ? 24 : 60);
        size_t at = (size_t)snprintf(body, sizeof body, "User-agent: *\n");
        for (size_t i = 0; i < n; i++) {
            rnd_rule *r = &rules[i];
            r->allow = rand_r(&seed) % 2;
            const size_t len = (size_t)rand_r(&seed) % (kind == 0 ? 9 : kind == 1 ? 5 : 16);
            for (size_t k = 0; k < len; k++) r->pat[k] = alpha[(size_t)rand_r(&seed) % na];
            r->pat[len] = '\0';
            if (len && rand_r(&seed) % 3) r->pat[0] = rand_r(&seed) % 4 ? '/' : '*';
            if (rand_r(&seed) % 17 == 0) strcpy(r->pat, rand_r(&seed) % 2 ? "/a/index.html" : "/*/index.htm");
            if (i && rand_r(&seed) % 5 == 0) strcpy(r->pat, rules[rand_r(&seed) % i].pat); /* duplicates */
            at += (size_t)snprintf(body + at, sizeof body - at, "%s: %s\n", r->allow ? "Allow" : "Disallow", r->pat);
        }
        rs_matcher *m = googlebot_matcher(body, at);
        for (int q = 0; q < 40; q++) {
            const size_t plen = 1 + (size_t)rand_r(&seed) % (kind == 2 ? 20 : 12);
            path[0] = '/';
            for (size_t k = 1; k < plen; k++) path[k] = alpha[(size_t)rand_r(&seed) % na];
            if (q == 0) { strcpy(path, "/a/"); }
            const size_t pl = q == 0 ? 3 : plen;
            expect_naive(m, rules, n, path, pl, round, body);
        }
        rs_matcher_free(m);
    }
}

Test(match, compat_long_shared_prefixes_match_naive_reference)
{
    /* Compilation sorts the patterns on 7-byte chunks and builds the trie from
     * the sorted order: prefixes sharing 0..30 bytes (ending before, at and
     * after chunk boundaries), equal prefixes with different lengths and lines,
     * and files of 400 rules (the compiler's scratch outgrows its stack block). */
    static const char BASE[] = "/catalog/product/view/id/123/x"; /* 30 bytes */
    static const char TAIL[] = "ab/*$.";
    unsigned seed = 777;
    static char body[32768];
    char path[64];
    static rnd_rule rules[400];
    for (int round = 0; round < 60; round++) {
        const size_t n = round % 3 == 0 ? 400 : 1 + (size_t)rand_r(&seed) % 40;
        size_t at = (size_t)snprintf(body, sizeof body, "User-agent: *\n");
        for (size_t i = 0; i < n; i++) {
            rnd_rule *r = &rules[i];
            r->allow = rand_r(&seed) % 2;
            const size_t keep = 1 + (size_t)rand_r(&seed) % 30;
            memcpy(r->pat, BASE, keep);
            const size_t extra = (size_t)rand_r(&seed) % 6;
            for (size_t k = 0; k < extra; k++) r->pat[keep + k] = TAIL[(size_t)rand_r(&seed) % 6];
            r->pat[keep + extra] = '\0';
            if (i && rand_r(&seed) % 6 == 0) strcpy(r->pat, rules[rand_r(&seed) % i].pat); /* duplicates */
            at += (size_t)snprintf(body + at, sizeof body - at, "%s: %s\n", r->allow ? "Allow" : "Disallow", r->pat);
        }
        cr_assert(at < sizeof body - 1);
        rs_matcher *m = googlebot_matcher(body, at);
        for (int q = 0; q < 60; q++) {
            const size_t keep = 1 + (size_t)rand_r(&seed) % 30;
            const size_t extra = (size_t)rand_r(&seed) % 8;
            memcpy(path, BASE, keep);
            for (size_t k = 0; k < extra; k++) path[keep + k] = "ab/.$"[(size_t)rand_r(&seed) % 5];
            const size_t pl = keep + extra;
            expect_naive(m, rules, n, path, pl, round, body);
        }
        rs_matcher_free(m);
    }
}

Test(match, compat_any_first_byte_and_empty_paths_match_naive_reference)
{
    /* rs_matcher_match takes any bytes: paths that are empty or do not start
     * with '/' (the walk usually starts at the root's "/" child, see
     * KIND_GOOGLE_SLASH in matcher.c), against files with and without rules at
     * the root (empty and '*' patterns) and whose root child is or is not "/" */
    static const char ALPHA[] = "/ab*$";
    unsigned seed = 9090;
    char body[4096], path[16];
    rnd_rule rules[24];
    for (int round = 0; round < 2000; round++) {
        const size_t n = 1 + (size_t)rand_r(&seed) % 24;
        size_t at = (size_t)snprintf(body, sizeof body, "User-agent: *\n");
        for (size_t i = 0; i < n; i++) {
            rnd_rule *r = &rules[i];
            r->allow = rand_r(&seed) % 2;
            const size_t len = (size_t)rand_r(&seed) % 7;
            for (size_t k = 0; k < len; k++) r->pat[k] = ALPHA[(size_t)rand_r(&seed) % 5];
            r->pat[len] = '\0';
            if (len && rand_r(&seed) % 2) r->pat[0] = round % 2 ? '/' : '*';
            if (round % 4 == 1 && len > 1) r->pat[1] = 'a'; /* every rule under "/a" */
            at += (size_t)snprintf(body + at, sizeof body - at, "%s: %s\n", r->allow ? "Allow" : "Disallow", r->pat);
        }
        rs_matcher *m = googlebot_matcher(body, at);
        for (int q = 0; q < 30; q++) {
            const size_t pl = (size_t)rand_r(&seed) % 7;
            for (size_t k = 0; k < pl; k++) path[k] = "/ab*$"[(size_t)rand_r(&seed) % 5];
            expect_naive(m, rules, n, path, pl, round, body);
        }
        rs_matcher_free(m);
    }
}

/* rs_short_eq (trie labels, log keys) against memcmp: every length to 40, a
 * difference at every position, and the equal case. */
Test(match, short_eq_is_memcmp)
{
    char a[48], b[48];
    for (size_t n = 0; n <= 40; n++) {
        for (size_t i = 0; i < n; i++) a[i] = b[i] = (char)('a' + (i * 7) % 26);
        cr_assert(rs_short_eq(a, b, n), "equal, n %zu", n);
        for (size_t d = 0; d < n; d++) {
            b[d] ^= 0x20;
            cr_assert_eq(rs_short_eq(a, b, n), memcmp(a, b, n) == 0, "n %zu, differs at %zu", n, d);
            b[d] ^= 0x20;
        }
    }
}
