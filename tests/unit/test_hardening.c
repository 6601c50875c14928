/*
 * test_hardening.c - regression tests for the bugs found by fuzzing and the
 * sanitizers (docs/hardening.md). Several only fail under `make sanitize`
 * (UBSan: NULL + 0, NULL passed to memcpy/qsort); the assertions that can be
 * checked in a plain build are.
 */
#include <criterion/criterion.h>

#include <string.h>

#include "robotscan.h"

static void check_slices(void *ctx, const rs_robots_line *ev)
{
    int *n = ctx;
    (*n)++;
    /* Empty slices still point somewhere: callers memcpy them. */
    cr_expect_not_null(ev->key.ptr, "line %u: key.ptr is NULL", ev->line);
    cr_expect_not_null(ev->value.ptr, "line %u: value.ptr is NULL", ev->line);
}

Test(hardening, robots_event_slices_never_null)
{
    static const char body[] = "no colon here at all\n: empty key\ndisallow:\nuser-agent:\n#c\nfoo bar\n";
    int n = 0;
    cr_assert_eq(rs_robots_parse(body, sizeof body - 1, check_slices, &n, NULL), RS_OK);
    cr_expect_eq(n, 5);
}

/* Found by fuzz_robots_match under UBSan: matchers with no wildcard rules or
 * no text at all did pointer arithmetic on NULL. */
Test(hardening, empty_and_rule_less_rulesets)
{
    static const char *const bodies[] = {
        "", "user-agent: *\n", "user-agent: *\ndisallow:\n", "user-agent: *\nallow:\ndisallow:\n",
        "disallow: /outside-any-group\n", "user-agent:\ndisallow: /x\n",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        rs_ruleset *rs = NULL;
        rs_matcher *m = NULL;
        cr_assert_eq(rs_ruleset_parse(bodies[i], strlen(bodies[i]), &rs), RS_OK);
        cr_assert_eq(rs_matcher_create(rs, "FooBot", 6, RS_SEMANTICS_GOOGLE, &m), RS_OK);
        rs_ruleset_free(rs);
        rs_verdict v;
        rs_matcher_match(m, "/x", 2, &v);
        cr_expect_eq(v.disallowed, 0, "body %zu", i);
        rs_matcher_free(m);
    }
    /* An empty body given as NULL. */
    rs_ruleset *rs = NULL;
    rs_matcher *m = NULL;
    cr_assert_eq(rs_ruleset_parse(NULL, 0, &rs), RS_OK);
    cr_assert_eq(rs_matcher_create(rs, "", 0, RS_SEMANTICS_GOOGLE, &m), RS_OK);
    rs_verdict v;
    rs_matcher_match(m, "/", 1, &v);
    cr_expect_eq(v.disallowed, 0);
    cr_expect_eq(v.line, 0u);
    rs_ruleset_free(rs);
    rs_matcher_free(m);
}

/* Found by make sanitize: rs_origin_parse(NULL, 0) did NULL + 0. */
Test(hardening, origin_of_null_and_blank)
{
    char dst[RS_ORIGIN_MAX];
    rs_origin o;
    cr_assert_eq(rs_origin_parse(NULL, 0, dst, sizeof dst, &o), RS_OK);
    cr_expect_eq(o.error, RS_ORIGIN_NO_HOST);
    cr_assert_eq(rs_origin_parse(" \t\r", 3, dst, sizeof dst, &o), RS_OK);
    cr_expect_eq(o.error, RS_ORIGIN_NO_HOST);
    cr_assert_eq(rs_origin_parse("\xEF\xBB\xBF", 3, dst, sizeof dst, &o), RS_OK);
    cr_expect_eq(o.error, RS_ORIGIN_NO_HOST);
}

/* The SPEC's choice where it differs from the reference: an empty product
 * token names nobody, not even an empty queried agent. */
Test(hardening, empty_agent_is_not_named_by_empty_token)
{
    static const char body[] = "user-agent:\ndisallow: /\nuser-agent: *\nallow: /\n";
    rs_ruleset *rs = NULL;
    rs_matcher *m = NULL;
    cr_assert_eq(rs_ruleset_parse(body, sizeof body - 1, &rs), RS_OK);
    cr_expect_eq(rs_ruleset_names_agent(rs, "", 0), 0);
    cr_assert_eq(rs_matcher_create(rs, "", 0, RS_SEMANTICS_GOOGLE, &m), RS_OK);
    rs_verdict v;
    rs_matcher_match(m, "/x", 2, &v);
    cr_expect_eq(v.disallowed, 0);
    cr_expect_eq(v.line, 4u);
    rs_ruleset_free(rs);
    rs_matcher_free(m);
}
