/*
 * test_differential.c - the library (parser + ruleset + trie matcher + URL
 * path) against the naive oracle in tests/common/naive_robots.c.
 *
 * 1. Every google-semantics conformance folder: the oracle must reproduce
 *    the reference's answers (so the oracle itself is trustworthy), and the
 *    library must agree with the oracle, verdict and line.
 * 2. Every real robots.txt in ../shared/data/robots: paths generated from
 *    each file's own patterns (wildcards filled with random bytes, suffixes,
 *    truncations, anchors dropped), for several agents, compared the same way.
 * 3. Hostile and edge-case inputs the generators rarely reach.
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/naive_robots.h"
#include "robotscan.h"
#include "rules/ruleset.h"

/* ===== Helpers ===== */

static char *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (len == cap) buf = realloc(buf, cap *= 2);
        cr_assert_not_null(buf);
        const size_t n = fread(buf + len, 1, cap - len, f);
        if (n == 0) break;
        len += n;
    }
    fclose(f);
    *size = len;
    return buf;
}

/* The library's answer for one URL: what `robotscan check` does. */
static void lib_check_url(const rs_matcher *m, const char *url, size_t len, rs_verdict *v)
{
    char *scratch = malloc(len + 1);
    cr_assert_not_null(scratch);
    const rs_str path = rs_url_path(url, len, scratch, len + 1);
    rs_matcher_match(m, path.ptr, path.len, v);
    if (v->rule >= 0) {
        rs_rule_info info;
        cr_assert_eq(rs_matcher_rule(m, v->rule, &info), RS_OK);
        cr_expect_eq(info.line, v->line, "rule index and reported line disagree");
    }
    free(scratch);
}

/* Each compiled matcher's twins: the rule-list matcher of the same rules
 * (rs_matcher_create_ex) and the trie built from that list (rs_matcher_compiled),
 * which must answer as the trie does, verdict, line and rule. */
static rs_matcher *twin_list;
static const rs_matcher *twin_trie;
static int twins_same;          /* twin_trie is twin_list (too many rules for a list) */

static void *twin_alloc(void *ctx, size_t size)
{
    (void)ctx;
    return malloc(size);
}

static rs_matcher *compile(const char *body, size_t size, const char *agent)
{
    rs_ruleset *rs = NULL;
    rs_matcher *m = NULL;
    cr_assert_eq(rs_ruleset_parse(body, size, &rs), RS_OK);
    cr_assert_eq(rs_matcher_create(rs, agent, strlen(agent), RS_SEMANTICS_GOOGLE, &m), RS_OK);
    cr_assert_eq(rs_matcher_create_ex(rs, agent, strlen(agent), RS_SEMANTICS_GOOGLE, 1, twin_alloc, NULL,
                                      &twin_list), RS_OK);
    /* a list unless its candidates (at most 2 a rule) could pass RS_MATCHER_LIST_MAX */
    if (rs_matcher_rule_count(m) <= RS_MATCHER_LIST_MAX / 2) cr_assert(rs_matcher_is_list(twin_list));
    if (rs_matcher_is_list(twin_list)) {
        cr_assert_eq(rs_matcher_compiled(twin_list, twin_alloc, NULL, &twin_trie), RS_OK);
        cr_assert(!rs_matcher_is_list(twin_trie));
        const rs_matcher *again = NULL;
        cr_assert_eq(rs_matcher_compiled(twin_list, twin_alloc, NULL, &again), RS_OK);
        cr_assert_eq(again, twin_trie, "the trie of a list is built once");
    } else {
        cr_assert_eq(rs_matcher_compiled(twin_list, twin_alloc, NULL, &twin_trie), RS_OK);
        cr_assert_eq(twin_trie, twin_list, "a trie is its own compiled form");
        twins_same = 1;
    }
    /* the list's rule table (its candidates) and its trie's give every rule as the trie does */
    const rs_matcher *twins[2] = { twin_list, twin_trie };
    for (int t = 0; t < 2; t++) {
        cr_assert_eq(rs_matcher_rule_count(twins[t]), rs_matcher_rule_count(m));
        for (size_t k = 0; k < rs_matcher_rule_count(m); k++) {
            rs_rule_info a, b;
            cr_assert_eq(rs_matcher_rule(m, (int32_t)k, &a), RS_OK);
            cr_assert_eq(rs_matcher_rule(twins[t], (int32_t)k, &b), RS_OK);
            cr_assert(a.type == b.type && a.line == b.line && a.pattern.len == b.pattern.len
                      && memcmp(a.pattern.ptr, b.pattern.ptr, a.pattern.len) == 0,
                      "rule %zu of the %s differs from the trie's", k, t ? "trie of the list" : "list");
        }
    }
    rs_ruleset_free(rs);
    return m;
}

static void release(rs_matcher *m)
{
    rs_matcher_free(m);
    if (!twins_same) free((void *)(uintptr_t)twin_trie);
    twins_same = 0;
    free(twin_list);
    twin_trie = NULL;
    twin_list = NULL;
}

static int shown;

static void show_bytes(const char *what, const char *s, size_t n)
{
    fprintf(stderr, "  %s: \"", what);
    for (size_t i = 0; i < n && i < 300; i++) {
        const unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"') fputc(c, stderr);
        else fprintf(stderr, "\\x%02x", c);
    }
    fprintf(stderr, "%s\"\n", n > 300 ? "..." : "");
}

/* @return 1 when the library and the oracle agree on @url; reports the first few disagreements. */
static int compare_url(const char *name, const char *body, size_t size, const rs_matcher *m,
                       const char *agent, const char *url, size_t url_len)
{
    naive_verdict nv;
    rs_verdict lv;
    naive_robots_check_url(body, size, agent, strlen(agent), url, url_len, &nv);
    lib_check_url(m, url, url_len, &lv);
    for (int k = 0; k < 2; k++) {
        rs_verdict tv;
        lib_check_url(k ? twin_trie : twin_list, url, url_len, &tv);
        if (tv.disallowed != lv.disallowed || tv.line != lv.line || tv.rule != lv.rule) {
            if (shown++ < 10) {
                fprintf(stderr, "differential: %s agent %s: trie %d/%u/%d, %s %d/%u/%d\n", name, agent,
                        lv.disallowed, lv.line, lv.rule, k ? "trie of the list" : "list", tv.disallowed,
                        tv.line, tv.rule);
                show_bytes("url", url, url_len);
            }
            return 0;
        }
    }
    if (nv.disallowed == lv.disallowed && nv.line == lv.line) return 1;
    if (shown++ < 10) {
        fprintf(stderr, "differential: %s agent %s: naive %s/%u, library %s/%u\n", name, agent,
                nv.disallowed ? "disallow" : "allow", nv.line, lv.disallowed ? "disallow" : "allow",
                lv.line);
        show_bytes("url", url, url_len);
    }
    return 0;
}

/* ===== 1. Conformance folders ===== */

static void run_conformance(const char *folder)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/conformance/%s/cases.tsv", RS_SHARED_DIR, folder);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    char *row = NULL;
    size_t cap = 0;
    ssize_t n;
    char cur_case[256] = "", cur_agent[1024] = "";
    char *body = NULL;
    size_t body_size = 0;
    rs_matcher *m = NULL;
    unsigned total = 0, naive_ok = 0, agree = 0;
    shown = 0;
    while ((n = getline(&row, &cap, f)) > 0) {
        if (row[n - 1] == '\n') row[--n] = '\0';
        char *fields[5];
        char *p = row;
        for (int k = 0; k < 5; k++) {
            fields[k] = p;
            char *tab = strchr(p, '\t');
            if (k < 4) {
                cr_assert_not_null(tab, "bad row in %s", path);
                *tab = '\0';
                p = tab + 1;
            }
        }
        if (strcmp(fields[0], cur_case) != 0 || strcmp(fields[1], cur_agent) != 0) {
            if (strcmp(fields[0], cur_case) != 0) {
                free(body);
                char bpath[4096];
                snprintf(bpath, sizeof bpath, "%s/conformance/%s/%s.txt", RS_SHARED_DIR, folder,
                         fields[0]);
                body = read_all(bpath, &body_size);
                cr_assert_not_null(body, "cannot read %s", bpath);
            }
            snprintf(cur_case, sizeof cur_case, "%s", fields[0]);
            snprintf(cur_agent, sizeof cur_agent, "%s", fields[1]);
            release(m);
            m = compile(body, body_size, cur_agent);
        }
        const char *url = fields[2];
        const int want_dis = strcmp(fields[3], "disallow") == 0;
        const unsigned want_line = (unsigned)strtoul(fields[4], NULL, 10);
        naive_verdict nv;
        naive_robots_check_url(body, body_size, cur_agent, strlen(cur_agent), url, strlen(url), &nv);
        total++;
        if (nv.disallowed == want_dis && nv.line == want_line) naive_ok++;
        else if (shown++ < 10)
            fprintf(stderr, "oracle wrong: %s/%s agent %s url %s: want %s/%u got %s/%u\n", folder,
                    cur_case, cur_agent, url, fields[3], want_line,
                    nv.disallowed ? "disallow" : "allow", nv.line);
        char name[300];
        snprintf(name, sizeof name, "%s/%s", folder, cur_case);
        agree += (unsigned)compare_url(name, body, body_size, m, cur_agent, url, strlen(url));
    }
    release(m);
    free(body);
    free(row);
    fclose(f);
    cr_log_info("%s: %u cases, oracle right on %u, library agrees on %u", folder, total, naive_ok, agree);
    cr_expect_gt(total, 0u);
    cr_expect_eq(naive_ok, total, "%s: the oracle disagrees with the reference on %u of %u", folder,
                 total - naive_ok, total);
    cr_expect_eq(agree, total, "%s: library and oracle disagree on %u of %u", folder, total - agree,
                 total);
}

Test(differential, conformance_reference_differential, .timeout = 1800) { run_conformance("reference-differential"); }
Test(differential, conformance_google_spec_correctness) { run_conformance("google-spec-test-correctness"); }
Test(differential, conformance_google_spec_stress, .timeout = 1800) { run_conformance("google-spec-test-stress"); }
Test(differential, conformance_google_unittests) { run_conformance("google-unittests"); }
Test(differential, conformance_seed_examples) { run_conformance("seed-examples"); }

/* ===== 2. Real robots.txt files with generated paths ===== */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % n);
}

#define MAX_PATS 4096
typedef struct {
    char *pats[MAX_PATS];
    size_t lens[MAX_PATS];
    size_t n;
    char agent[64];       /* first product token named in the file */
} collected;

static void collect(void *ctx, const rs_robots_line *ev)
{
    collected *c = ctx;
    if (ev->directive == RS_DIRECTIVE_USER_AGENT && c->agent[0] == '\0') {
        const size_t t = rs_agent_token(ev->value.ptr, ev->value.len);
        if (t > 0 && t < sizeof c->agent) {
            memcpy(c->agent, ev->value.ptr, t);
            c->agent[t] = '\0';
        }
    } else if ((ev->directive == RS_DIRECTIVE_ALLOW || ev->directive == RS_DIRECTIVE_DISALLOW)
               && c->n < MAX_PATS) {
        c->pats[c->n] = malloc(ev->value.len + 1);
        cr_assert_not_null(c->pats[c->n]);
        memcpy(c->pats[c->n], ev->value.ptr, ev->value.len);
        c->lens[c->n++] = ev->value.len;
    }
}

/* A path aimed at @pat: wildcards filled, anchor kept or dropped, suffix, truncation. */
static size_t aim(const char *pat, size_t len, char *out, size_t cap)
{
    static const char FILL[] = "/a.x-?=;%2F_b\xc3\xa9$*";
    size_t j = 0;
    if (len == 0 || (pat[0] != '/' && pat[0] != '*')) out[j++] = '/';
    const int mode = (int)rnd(6);
    for (size_t i = 0; i < len && j + 8 < cap; i++) {
        if (pat[i] == '*') {
            for (uint32_t k = rnd(4); k > 0; k--) out[j++] = FILL[rnd(sizeof FILL - 1)];
        } else if (pat[i] == '$' && i + 1 == len) {
            if (mode == 1) out[j++] = 'z';  /* breaks the anchor */
        } else {
            out[j++] = pat[i];
        }
    }
    if (mode == 2 && j + 8 < cap) { memcpy(out + j, ".html", 5); j += 5; }
    if (mode == 3 && j + 8 < cap) { memcpy(out + j, "/?q=1", 5); j += 5; }
    if (mode == 4 && j > 1) j = 1 + rnd((uint32_t)j);  /* truncated */
    if (mode == 5 && j > 2) out[1 + rnd((uint32_t)j - 1)] ^= 0x20; /* case flipped */
    return j;
}

Test(differential, real_robots_files, .timeout = 1800)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/data/robots", RS_SHARED_DIR);
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "cannot open %s", dir);
    struct dirent *e;
    unsigned files = 0, queries = 0, agree = 0;
    shown = 0;
    char url[8192];
    while ((e = readdir(d)) != NULL) {
        const size_t nl = strlen(e->d_name);
        if (nl < 5 || strcmp(e->d_name + nl - 4, ".txt") != 0) continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t size;
        char *body = read_all(path, &size);
        cr_assert_not_null(body, "cannot read %s", path);
        collected c;
        memset(&c, 0, sizeof c);
        cr_assert_eq(rs_robots_parse(body, size, collect, &c, NULL), RS_OK);
        const char *agents[3] = { "Googlebot", "RobotscanTestBot", c.agent[0] ? c.agent : "bingbot" };
        /* Budget the naive oracle: it re-parses the whole file per query. */
        const unsigned per_agent = size > 100000 ? 4 : size > 20000 ? 12 : 30;
        for (int a = 0; a < 3; a++) {
            rs_matcher *m = compile(body, size, agents[a]);
            for (unsigned q = 0; q < per_agent; q++) {
                size_t ul = 0;
                if (q & 1) { memcpy(url, "http://example.com", 18); ul = 18; }
                if (c.n) {
                    const size_t k = rnd((uint32_t)c.n);
                    ul += aim(c.pats[k], c.lens[k], url + ul, sizeof url - ul);
                } else {
                    url[ul++] = '/';
                }
                queries++;
                agree += (unsigned)compare_url(e->d_name, body, size, m, agents[a], url, ul);
            }
            release(m);
        }
        for (size_t k = 0; k < c.n; k++) free(c.pats[k]);
        free(body);
        files++;
    }
    closedir(d);
    cr_log_info("real robots: %u files, %u queries, %u agree", files, queries, agree);
    cr_expect_gt(files, 3000u);
    cr_expect_eq(agree, queries, "library and oracle disagree on %u of %u queries", queries - agree,
                 queries);
}

/* ===== 3. Edge cases ===== */

typedef struct {
    const char *body;
    size_t body_len;      /* 0: strlen */
    const char *agent;
    const char *url;
    size_t url_len;       /* 0: strlen */
} edge;

Test(differential, edge_cases)
{
    static const edge CASES[] = {
        { "user-agent: *\ndisallow: /a*a*a*a*a*a*b\n", 0, "x", "/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 0 },
        { "user-agent: *\ndisallow: /*$\nallow: /$\n", 0, "x", "/", 0 },
        { "user-agent: *\ndisallow: /a$b$\n", 0, "x", "/a$b", 0 },
        { "user-agent: *\ndisallow: $\n", 0, "x", "/", 0 },
        { "user-agent: *\ndisallow: *\nallow: /*$\n", 0, "x", "/x", 0 },
        { "user-agent: *\nallow: /a/index.html\ndisallow: /a/\n", 0, "x", "/a/", 0 },
        { "user-agent: *\nallow: /index.htm*\ndisallow: /\n", 0, "x", "/", 0 },
        { "user-agent: *\nallow: /a/index.htm\ndisallow: /a/$\n", 0, "x", "/a/", 0 },
        { "user-agent: *\ndisallow: /\x00x\nallow: /\n", 37, "x", "/a", 0 },
        { "user-agent: *\ndisallow: /a\n", 0, "x", "/b\0/a", 5 },
        { "user-agent: *\ndisallow: /%2f\n", 0, "x", "/%2F", 0 },
        { "user-agent: *\ndisallow: /%2F\n", 0, "x", "/%2f", 0 },
        { "user-agent: *\ndisallow: /\xc3\xa9\n", 0, "x", "/%C3%A9", 0 },
        { "\xef\xbb\xef\xbb\xbfuser-agent: *\ndisallow: /\n", 0, "x", "/", 0 },
        { "\xef\xbbuser-agent: *\ndisallow: /\n", 0, "x", "/", 0 },
        { "user-agent: *\r\rdisallow: /\r\n\r\nallow: /x\n", 0, "x", "/x", 0 },
        { "user-agent: a\nuser-agent: b\ndisallow: /\nuser-agent: *\nallow: /\n", 0, "b", "/", 0 },
        { "user-agent: a\ndisallow: /\nuser-agent: b\nsitemap: x\nallow: /x\n", 0, "a", "/x", 0 },
        { "disallow: /\nuser-agent: *\n", 0, "x", "/", 0 },
        { "user-agent: * foo\ndisallow: /\n", 0, "x", "/", 0 },
        { "user-agent: *foo\ndisallow: /\n", 0, "x", "/", 0 },
        { "user-agent: foo\n\ndisallow: /\n", 0, "FOO", "/", 0 },
        { "user agent foo\ndisallow /x\n", 0, "foo", "/x", 0 },
        { "user-agent: *\ndisallow: /x y\n", 0, "x", "/x", 0 },
        { "user-agent: *\ndisallow /x y\n", 0, "x", "/x", 0 },
        { "user-agent: *\n:disallow /x\n", 0, "x", "/x", 0 },
        { "user-agent: *\ndisallow:\n", 0, "x", "/", 0 },
        { "user-agent: *\ndisallow: /\n", 0, "x", "http://a.com", 0 },
        { "user-agent: *\ndisallow: /\n", 0, "x", "http://a.com#f/x", 0 },
        { "user-agent: *\ndisallow: /?\n", 0, "x", "http://a.com?q", 0 },
        { "user-agent: *\ndisallow: /;\n", 0, "x", "a.com;p", 0 },
        { "user-agent: *\ndisallow: /x\n", 0, "x", "//a.com/x", 0 },
        { "user-agent: *\ndisallow: /a\n", 0, "x", "/a://b/c", 0 },
        { "user-agent: *\ndisallow: /c\n", 0, "x", "a://b/c", 0 },
        { "user-agent: *\ndisallow: /c\n", 0, "x", "///c", 0 },
    };
    shown = 0;
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        const edge *c = &CASES[i];
        const size_t bl = c->body_len ? c->body_len : strlen(c->body);
        const size_t ul = c->url_len ? c->url_len : strlen(c->url);
        rs_matcher *m = compile(c->body, bl, c->agent);
        char name[32];
        snprintf(name, sizeof name, "edge case %zu", i);
        cr_expect(compare_url(name, c->body, bl, m, c->agent, c->url, ul), "%s", name);
        release(m);
    }
}

/* The oracle's own pattern matcher on the specification's examples. */
Test(differential, naive_pattern_spec_examples)
{
    cr_expect(naive_pattern_matches("/fish.html", 10, "/fish", 5));
    cr_expect(!naive_pattern_matches("/Fish.asp", 9, "/fish", 5));
    cr_expect(naive_pattern_matches("/folder/filename.php", 20, "/*.php$", 7));
    cr_expect(!naive_pattern_matches("/filename.php5", 14, "/*.php$", 7));
    cr_expect(!naive_pattern_matches("/filename.php?x", 15, "/*.php$", 7));
    cr_expect(naive_pattern_matches("/a$b", 4, "/a$b", 4));
    cr_expect(naive_pattern_matches("/x", 2, "", 0));
    cr_expect(!naive_pattern_matches("/x", 2, "x", 1));
}

/* Hostile wildcards: both answer, and the library quickly. */
Test(differential, hostile_wildcards, .timeout = 20)
{
    char pat[1024] = "/";
    size_t pl = 1;
    for (int i = 0; i < 300; i++) { pat[pl++] = '*'; pat[pl++] = 'a'; }
    pat[pl++] = 'b';
    char body[2048];
    const int bl = snprintf(body, sizeof body, "user-agent: *\ndisallow: %.*s\nallow: /\n", (int)pl, pat);
    const size_t plen = 100000;
    char *path = malloc(plen);
    cr_assert_not_null(path);
    path[0] = '/';
    memset(path + 1, 'a', plen - 1);
    rs_matcher *m = compile(body, (size_t)bl, "x");
    rs_verdict v;
    rs_matcher_match(m, path, plen, &v);
    cr_expect_eq(v.disallowed, 0);
    cr_expect_eq(v.line, 3u);
    path[plen - 1] = 'b';
    rs_matcher_match(m, path, plen, &v);
    cr_expect_eq(v.disallowed, 1);
    cr_expect_eq(v.line, 2u);
    /* The oracle on a shorter path (it is O(path * pattern)). */
    naive_verdict nv;
    naive_robots_check_path(body, (size_t)bl, "x", 1, path + plen - 2000, 2000, &nv);
    rs_matcher_match(m, path + plen - 2000, 2000, &v);
    cr_expect_eq(nv.disallowed, v.disallowed, "no leading '/'");
    cr_expect_eq(nv.line, v.line, "no leading '/'");
    path[plen - 2000] = '/';
    naive_robots_check_path(body, (size_t)bl, "x", 1, path + plen - 2000, 2000, &nv);
    rs_matcher_match(m, path + plen - 2000, 2000, &v);
    cr_expect_eq(nv.disallowed, v.disallowed);
    cr_expect_eq(nv.line, v.line);
    release(m);
    free(path);
}
