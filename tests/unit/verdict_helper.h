/* verdict_helper.h - tests: compile a body for an agent and decide one URL. */
#ifndef RS_TEST_VERDICT_HELPER_H
#define RS_TEST_VERDICT_HELPER_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "robotscan.h"

static inline rs_verdict verdict_sem(const char *body, size_t body_len, const char *agent,
                                     const char *url, rs_semantics sem)
{
    rs_ruleset *rs = NULL;
    rs_matcher *m = NULL;
    cr_assert_eq(rs_ruleset_parse(body, body_len, &rs), RS_OK);
    cr_assert_eq(rs_matcher_create(rs, agent, strlen(agent), sem, &m), RS_OK);
    rs_ruleset_free(rs);
    const size_t ulen = strlen(url);
    char *scratch = malloc(ulen + 2);
    const rs_str path = rs_url_path(url, ulen, scratch, ulen + 2);
    rs_verdict v;
    rs_matcher_match(m, path.ptr, path.len, &v);
    free(scratch);
    rs_matcher_free(m);
    return v;
}

static inline rs_verdict verdict_of(const char *body, const char *agent, const char *url)
{
    return verdict_sem(body, strlen(body), agent, url, RS_SEMANTICS_GOOGLE);
}

/* Expect a verdict (1 = disallowed) and a reported line. */
#define expect_verdict(body, agent, url, disallowed_, line_) do {                        \
        const rs_verdict v_ = verdict_of((body), (agent), (url));                        \
        cr_expect_eq(v_.disallowed, (disallowed_), "%s for %s: disallowed=%d, want %d",   \
                     (url), (agent), v_.disallowed, (disallowed_));                       \
        cr_expect_eq(v_.line, (unsigned)(line_), "%s for %s: line %u, want %u",           \
                     (url), (agent), v_.line, (unsigned)(line_));                         \
    } while (0)

#endif
