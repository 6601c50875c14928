/*
 * fuzz_lint.c - robots.txt lint (rs_lint, rs_lint_agent in src/lint).
 *
 * Input: as fuzz_robots_match, "AGENT\nURL\nURL...\n\nBODY" (without a "\n\n"
 * the whole input is the body, agent FooBot, a few fixed URLs).
 * Checks: findings are well-formed (known code, its severity and name, line
 * within the file, one-line message, ordered by line); and the agent view is
 * differential against the naive oracle: taking its rules in precedence
 * order, the first that matches a URL's path must give the oracle's verdict.
 */
#include "fuzz.h"

#include <string.h>

#include "common/naive_robots.h"
#include "robotscan.h"


typedef struct {
    uint32_t last_line;
    uint32_t max_line;
} lint_state;

static void on_finding(void *ctx, const rs_lint_finding *f)
{
    lint_state *s = ctx;
    FUZZ_CHECK((unsigned)f->code < RS_LINT_CODE_COUNT);
    FUZZ_CHECK(f->code_name != NULL && strcmp(f->code_name, rs_lint_code_name(f->code)) == 0);
    FUZZ_CHECK(f->severity == rs_lint_code_severity(f->code));
    FUZZ_CHECK(f->line >= s->last_line && f->line <= s->max_line);
    s->last_line = f->line;
    FUZZ_CHECK(f->message.len > 0 && memchr(f->message.ptr, '\n', f->message.len) == NULL);
}

/* The view's verdict for @path: the first matching rule decides. */
static int view_disallows(const rs_lint_agent_view *v, const char *path, size_t plen)
{
    for (size_t i = 0; i < v->n_rules; i++) {
        const rs_lint_rule *r = &v->rules[i];
        if (r->never_matches) continue;
        if (!naive_pattern_matches(path, plen, r->pattern.ptr, r->pattern.len)) continue;
        return r->type == RS_RULE_DISALLOW && r->pattern.len > 0;
    }
    return 0;
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

    lint_state st = { 0, 0 };
    /* Lines as the parser numbers them: count line ends (CRLF once), +1. */
    uint32_t lines = 1;
    const size_t cut = body_len < RS_ROBOTS_MAX_BODY ? body_len : RS_ROBOTS_MAX_BODY;
    for (size_t i = 0; i < cut; i++)
        if (body[i] == '\n' || (body[i] == '\r' && !(i + 1 < cut && body[i + 1] == '\n'))) lines++;
    st.max_line = lines;
    FUZZ_CHECK(rs_lint(body, body_len, NULL, on_finding, &st) == RS_OK);

    rs_lint_agent_view *view = NULL;
    FUZZ_CHECK(rs_lint_agent(body, body_len, agent, agent_len, &view) == RS_OK);
    for (size_t i = 1; i < view->n_groups; i++) FUZZ_CHECK(view->group_lines[i - 1] < view->group_lines[i]);
    for (size_t i = 0; i < n_urls; i++) {
        char *path = malloc(url_lens[i] + 2);
        FUZZ_CHECK(path != NULL);
        const size_t plen = naive_url_path(urls[i], url_lens[i], path);
        naive_verdict nv;
        naive_robots_check_path(body, body_len, agent, agent_len, path, plen, &nv);
        if (view_disallows(view, path, plen) != nv.disallowed) {
            fprintf(stderr, "lint view %s, naive %s/%u\n", nv.disallowed ? "allow" : "disallow",
                    nv.disallowed ? "disallow" : "allow", (unsigned)nv.line);
            fuzz_fail("lint agent view and naive oracle disagree", __FILE__, __LINE__);
        }
        free(path);
    }
    rs_lint_agent_free(view);
    return 0;
}
