/*
 * fuzz_robots_match.c - robots.txt parse + compile + match, differential.
 *
 * Input: "AGENT\nURL\nURL...\n\nBODY" (at most 32 URLs; without a "\n\n" the
 * whole input is the body, queried as FooBot for a few fixed URLs). For each
 * URL the library (rs_ruleset_parse, rs_matcher_create, rs_url_path,
 * rs_matcher_match) must give the verdict and line of the naive oracle
 * (tests/common/naive_robots.c); any disagreement aborts. The first-match
 * matcher, rule lookups and group values run too, for crashes only. The
 * rule-list matcher of the same rules (rs_matcher_create_ex) and the trie built
 * from it (rs_matcher_compiled) must give the trie's verdict, line and rule.
 */
#include "fuzz.h"

#include <string.h>

#include "common/naive_robots.h"
#include "robotscan.h"
#include "rules/ruleset.h"


static void *list_alloc(void *ctx, size_t size)
{
    (void)ctx;
    return malloc(size);
}

static void check_url(const rs_matcher *m, const rs_matcher *fm, const rs_matcher *const twins[2],
                      const uint8_t *body,
                      size_t body_len, const char *agent, size_t agent_len, const char *url,
                      size_t url_len)
{
    char *scratch = malloc(url_len + 1);
    FUZZ_CHECK(scratch != NULL);
    const rs_str path = rs_url_path(url, url_len, scratch, url_len + 1);
    FUZZ_CHECK(path.len >= 1 && path.ptr[0] == '/');
    rs_verdict v;
    rs_matcher_match(m, path.ptr, path.len, &v);
    if (v.rule >= 0) {
        rs_rule_info info;
        FUZZ_CHECK(rs_matcher_rule(m, v.rule, &info) == RS_OK);
        FUZZ_CHECK(info.line == v.line);
    }
    naive_verdict nv;
    naive_robots_check_url(body, body_len, agent, agent_len, url, url_len, &nv);
    if (nv.disallowed != v.disallowed || nv.line != v.line) {
        fprintf(stderr, "library %s/%u, naive %s/%u\n", v.disallowed ? "disallow" : "allow", v.line,
                nv.disallowed ? "disallow" : "allow", nv.line);
        fuzz_fail("library and naive oracle disagree", __FILE__, __LINE__);
    }
    for (int k = 0; k < 2; k++) {
        rs_verdict tv;
        rs_matcher_match(twins[k], path.ptr, path.len, &tv);
        if (tv.disallowed != v.disallowed || tv.line != v.line || tv.rule != v.rule) {
            fprintf(stderr, "trie %d/%u/%d, %s %d/%u/%d\n", v.disallowed, v.line, v.rule,
                    k ? "trie of the list" : "list", tv.disallowed, tv.line, tv.rule);
            fuzz_fail("rule list and trie disagree", __FILE__, __LINE__);
        }
    }
    rs_verdict fv;
    rs_matcher_match(fm, path.ptr, path.len, &fv);
    FUZZ_CHECK(fv.rule < 0 || (size_t)fv.rule < rs_matcher_rule_count(fm));
    free(scratch);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_robots_input in;
    fuzz_split_robots_input(data, size, &in);
    const char *const agent = in.agent;
    const size_t agent_len = in.agent_len;
    const char *const *urls = in.urls;
    const size_t *url_lens = in.url_lens;
    const size_t n_urls = in.n_urls;
    const uint8_t *const body = in.body;
    const size_t body_len = in.body_len;

    rs_ruleset *rs = NULL;
    rs_matcher *m = NULL, *fm = NULL;
    FUZZ_CHECK(rs_ruleset_parse(body, body_len, &rs) == RS_OK);
    FUZZ_CHECK(rs_matcher_create(rs, agent, agent_len, RS_SEMANTICS_GOOGLE, &m) == RS_OK);
    FUZZ_CHECK(rs_matcher_create(rs, agent, agent_len, RS_SEMANTICS_FIRST_MATCH, &fm) == RS_OK);
    rs_matcher *list = NULL;
    const rs_matcher *twins[2];
    FUZZ_CHECK(rs_matcher_create_ex(rs, agent, agent_len, RS_SEMANTICS_GOOGLE, 1, list_alloc, NULL, &list) == RS_OK);
    twins[0] = list;
    FUZZ_CHECK(rs_matcher_compiled(list, list_alloc, NULL, &twins[1]) == RS_OK);
    rs_str delay;
    (void)rs_ruleset_group_value(rs, agent, agent_len, "crawl-delay", &delay);
    (void)rs_ruleset_names_agent(rs, agent, agent_len);
    {   /* the metadata readers (src/rules/meta.c): slices must lie inside the ruleset's text */
        rs_sitemap_entry sm[4];
        const size_t n_sm = rs_ruleset_sitemaps(rs, sm, 4);
        FUZZ_CHECK(n_sm == rs_ruleset_sitemap_count(rs));
        for (size_t i = 0; i < n_sm && i < 4; i++) FUZZ_CHECK(sm[i].line > 0 && sm[i].url.len <= body_len);
        rs_str host;
        if (rs_ruleset_host(rs, &host, NULL)) FUZZ_CHECK(host.len > 0 && host.len <= 3 * body_len);
        double d;
        if (rs_ruleset_crawl_delay(rs, agent, agent_len, &d, NULL)) FUZZ_CHECK(d >= 0);
        rs_request_rate rr;
        if (rs_ruleset_request_rate(rs, agent, agent_len, &rr))
            FUZZ_CHECK(rr.seconds >= 0 && rr.start < 1440 && rr.end < 1440 && (rr.start < 0) == (rr.end < 0));
        rs_visit_time vt;
        if (rs_ruleset_visit_time(rs, agent, agent_len, &vt))
            FUZZ_CHECK(vt.start >= 0 && vt.start < 1440 && vt.end >= 0 && vt.end < 1440);
    }
    rs_ruleset_free(rs); /* matchers must not reference it */

    const size_t n_rules = rs_matcher_rule_count(m);
    for (size_t i = 0; i < n_rules; i++) {
        rs_rule_info info;
        FUZZ_CHECK(rs_matcher_rule(m, (int32_t)i, &info) == RS_OK);
        FUZZ_CHECK(info.line >= 1);
    }
    for (size_t i = 0; i < n_urls; i++)
        check_url(m, fm, twins, body, body_len, agent, agent_len, urls[i], url_lens[i]);
    if (twins[1] != list) free((void *)(uintptr_t)twins[1]);
    free(list);
    rs_matcher_free(m);
    rs_matcher_free(fm);
    return 0;
}
