/*
 * test_diff.c - the diff module (src/diff): flip classification, the
 * mergeable counters, and the rule-level diff (added, removed, changed in
 * effect, probe paths, order, duplicates, NULL sides).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "robotscan.h"

static rs_matcher *compile(const char *body, const char *agent, rs_semantics sem)
{
    rs_ruleset *rs = NULL;
    cr_assert_eq(rs_ruleset_parse(body, strlen(body), &rs), RS_OK);
    rs_matcher *m = NULL;
    cr_assert_eq(rs_matcher_create(rs, agent, strlen(agent), sem, &m), RS_OK);
    rs_ruleset_free(rs);
    return m;
}

/* The changes as lines "change type pattern old_line new_line probe old new". */
typedef struct {
    char text[4096];
    size_t n;
} changes;

static void collect(void *ctx, const rs_rule_change *c)
{
    changes *out = ctx;
    char line[512];
    snprintf(line, sizeof line, "%s %s %.*s %u %u %.*s %s %s\n", rs_rule_change_str(c->change),
             c->type == RS_RULE_ALLOW ? "allow" : "disallow", (int)c->pattern.len, c->pattern.ptr,
             c->old_line, c->new_line, (int)c->probe.len, c->probe.ptr,
             c->old_verdict.disallowed ? "disallow" : "allow", c->new_verdict.disallowed ? "disallow" : "allow");
    strncat(out->text, line, sizeof out->text - strlen(out->text) - 1);
    out->n++;
}

static void rule_diff(const rs_matcher *a, const rs_matcher *b, changes *out)
{
    memset(out, 0, sizeof *out);
    cr_assert_eq(rs_diff_rules(a, b, collect, out), RS_OK);
}

Test(diff, flip_classification)
{
    cr_assert_eq(rs_diff_flip(0, 0), RS_FLIP_UNCHANGED);
    cr_assert_eq(rs_diff_flip(1, 1), RS_FLIP_UNCHANGED);
    cr_assert_eq(rs_diff_flip(0, 1), RS_FLIP_NEWLY_DISALLOWED);
    cr_assert_eq(rs_diff_flip(1, 0), RS_FLIP_NEWLY_ALLOWED);
    cr_assert_eq(rs_diff_flip(0, 2), RS_FLIP_NEWLY_DISALLOWED, "any non-zero is disallowed");
    cr_assert_str_eq(rs_flip_str(RS_FLIP_NEWLY_ALLOWED), "newly-allowed");
}

Test(diff, counters_are_sums)
{
    uint64_t c[RS_DIFF_COUNTERS] = { 0 };
    cr_assert_eq(rs_diff_count(c, 0, 1, 3), RS_FLIP_NEWLY_DISALLOWED);
    cr_assert_eq(rs_diff_count(c, 1, 0, 1), RS_FLIP_NEWLY_ALLOWED);
    cr_assert_eq(rs_diff_count(c, 1, 1, 5), RS_FLIP_UNCHANGED);
    const uint64_t want[RS_DIFF_COUNTERS] = { 3, 1, 1, 1, 9, 3, 1, 5 };
    for (int i = 0; i < RS_DIFF_COUNTERS; i++) cr_assert_eq(c[i], want[i], "counter %d: %llu", i, (unsigned long long)c[i]);
}

Test(diff, rules_added_removed_in_file_order)
{
    rs_matcher *a = compile("User-agent: *\nDisallow: /z\nDisallow: /a\nAllow: /keep\n", "x", RS_SEMANTICS_GOOGLE);
    rs_matcher *b = compile("User-agent: *\nAllow: /keep\nDisallow: /new2\nDisallow: /new1\n", "x", RS_SEMANTICS_GOOGLE);
    changes ch;
    rule_diff(a, b, &ch);
    cr_assert_str_eq(ch.text,
                     "removed disallow /z 2 0 /z disallow allow\n"
                     "removed disallow /a 3 0 /a disallow allow\n"
                     "added disallow /new2 0 3 /new2 allow disallow\n"
                     "added disallow /new1 0 4 /new1 allow disallow\n");
    rs_matcher_free(a);
    rs_matcher_free(b);
}

Test(diff, moved_line_is_not_a_change)
{
    rs_matcher *a = compile("User-agent: *\nDisallow: /a\n", "x", RS_SEMANTICS_GOOGLE);
    rs_matcher *b = compile("# moved\n\nUser-agent: *\nDisallow: /a\nDisallow: /a\n", "x", RS_SEMANTICS_GOOGLE);
    changes ch;
    rule_diff(a, b, &ch);
    cr_assert_eq(ch.n, 0, "%s", ch.text);
    rs_matcher_free(a);
    rs_matcher_free(b);
}

Test(diff, changed_in_effect_by_an_override)
{
    /* /a/b was allowed by its own rule; the new Disallow: /a/b* (longer) overrides it */
    rs_matcher *a = compile("User-agent: *\nDisallow: /a\nAllow: /a/b\n", "x", RS_SEMANTICS_GOOGLE);
    rs_matcher *b = compile("User-agent: *\nDisallow: /a\nAllow: /a/b\nDisallow: /a/b*\n", "x", RS_SEMANTICS_GOOGLE);
    changes ch;
    rule_diff(a, b, &ch);
    cr_assert_str_eq(ch.text,
                     "added disallow /a/b* 0 4 /a/b allow disallow\n"
                     "changed-effect allow /a/b 3 3 /a/b allow disallow\n");
    rs_matcher_free(a);
    rs_matcher_free(b);
}

Test(diff, changed_in_effect_by_semantics)
{
    const char *body = "User-agent: *\nDisallow: /a\nAllow: /a/b\nDisallow: /*.gif$\n";
    rs_matcher *g = compile(body, "x", RS_SEMANTICS_GOOGLE);
    rs_matcher *f = compile(body, "x", RS_SEMANTICS_FIRST_MATCH);
    changes ch;
    rule_diff(g, f, &ch);
    /* google: longest match allows /a/b; first-match: Disallow: /a comes first */
    cr_assert_str_eq(ch.text, "changed-effect allow /a/b 3 3 /a/b allow disallow\n");
    rs_matcher_free(g);
    rs_matcher_free(f);
}

Test(diff, probe_paths)
{
    rs_matcher *a = compile("User-agent: *\n", "x", RS_SEMANTICS_GOOGLE);
    rs_matcher *b = compile("User-agent: *\nDisallow: /x*y$\nDisallow: *.php\nDisallow:\nAllow: html$\n", "x",
                            RS_SEMANTICS_GOOGLE);
    changes ch;
    rule_diff(a, b, &ch);
    cr_assert_str_eq(ch.text,
                     "added disallow /x*y$ 0 2 /xy allow disallow\n"
                     "added disallow *.php 0 3 /.php allow disallow\n"
                     "added disallow  0 4 / allow allow\n"
                     "added allow html$ 0 5 /html allow allow\n");
    rs_matcher_free(a);
    rs_matcher_free(b);
}

Test(diff, null_side_has_no_rules)
{
    rs_matcher *b = compile("User-agent: *\nDisallow: /p\n", "x", RS_SEMANTICS_GOOGLE);
    changes ch;
    rule_diff(NULL, b, &ch);
    cr_assert_str_eq(ch.text, "added disallow /p 0 2 /p allow disallow\n");
    rule_diff(b, NULL, &ch);
    cr_assert_str_eq(ch.text, "removed disallow /p 2 0 /p disallow allow\n");
    rule_diff(NULL, NULL, &ch);
    cr_assert_eq(ch.n, 0);
    rs_matcher_free(b);
}

Test(diff, agent_specific_groups)
{
    const char *before = "User-agent: *\nDisallow: /s\n";
    const char *after = "User-agent: *\nDisallow: /s\n\nUser-agent: Googlebot\nDisallow: /g\n";
    rs_matcher *a = compile(before, "Googlebot", RS_SEMANTICS_GOOGLE);
    rs_matcher *b = compile(after, "Googlebot", RS_SEMANTICS_GOOGLE);
    changes ch;
    rule_diff(a, b, &ch);
    cr_assert_str_eq(ch.text, "removed disallow /s 2 0 /s disallow allow\nadded disallow /g 0 5 /g allow disallow\n");
    rs_matcher_free(a);
    rs_matcher_free(b);
    a = compile(before, "bingbot", RS_SEMANTICS_GOOGLE);
    b = compile(after, "bingbot", RS_SEMANTICS_GOOGLE);
    rule_diff(a, b, &ch);
    cr_assert_eq(ch.n, 0, "%s", ch.text);
    rs_matcher_free(a);
    rs_matcher_free(b);
}
