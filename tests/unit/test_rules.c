/* test_rules.c - SPEC 2.2: groups and agents. */
#include "verdict_helper.h"

Test(rules, rfc9309_consecutive_user_agents_share_rules)
{
    const char *body = "User-agent: a\nUser-agent: b\nDisallow: /x\n";
    expect_verdict(body, "a", "http://e.com/x", 1, 3);
    expect_verdict(body, "b", "http://e.com/x", 1, 3);
    expect_verdict(body, "c", "http://e.com/x", 0, 0);
}

Test(rules, rfc9309_user_agent_after_rules_opens_group)
{
    const char *body = "User-agent: a\nDisallow: /x\nUser-agent: b\nDisallow: /y\n";
    expect_verdict(body, "a", "http://e.com/y", 0, 0);
    expect_verdict(body, "b", "http://e.com/x", 0, 0);
    expect_verdict(body, "b", "http://e.com/y", 1, 4);
}

Test(rules, rfc9309_sitemap_and_unknown_lines_do_not_split_groups)
{
    const char *body = "User-agent: a\nSitemap: http://e.com/s\nCrawl-delay: 3\nUser-agent: b\nDisallow: /x\n";
    expect_verdict(body, "a", "http://e.com/x", 1, 5);
    expect_verdict(body, "b", "http://e.com/x", 1, 5);
}

Test(rules, rfc9309_rules_before_first_user_agent_are_ignored)
{
    const char *body = "Disallow: /x\nUser-agent: *\nDisallow: /y\n";
    expect_verdict(body, "a", "http://e.com/x", 0, 0);
    expect_verdict(body, "a", "http://e.com/y", 1, 3);
}

Test(rules, rfc9309_global_agent_forms)
{
    expect_verdict("User-agent: *\nDisallow: /x\n", "a", "http://e.com/x", 1, 2);
    expect_verdict("User-agent: * any thing\nDisallow: /x\n", "a", "http://e.com/x", 1, 2);
    /* "*foo" is neither global nor a token: it names nobody. */
    expect_verdict("User-agent: *foo\nDisallow: /x\n", "a", "http://e.com/x", 0, 0);
    cr_expect(rs_agent_is_global("*", 1));
    cr_expect(rs_agent_is_global("*\tx", 3));
    cr_expect_not(rs_agent_is_global("*x", 2));
}

Test(rules, rfc9309_product_token_extraction)
{
    cr_expect_eq(rs_agent_token("Googlebot/2.1", 13), 9);
    cr_expect_eq(rs_agent_token("Foo Bot", 7), 3);
    cr_expect_eq(rs_agent_token("FooBot*", 7), 6);
    cr_expect_eq(rs_agent_token("Foo_Bar-Baz9", 12), 11);
    cr_expect_eq(rs_agent_token("*foo", 4), 0);
    expect_verdict("User-agent: Googlebot/2.1\nDisallow: /x\n", "googlebot", "http://e.com/x", 1, 2);
    expect_verdict("User-agent: Foo Bot\nDisallow: /x\n", "Foo", "http://e.com/x", 1, 2);
    expect_verdict("User-agent: Foo Bot\nDisallow: /x\n", "FooBot", "http://e.com/x", 0, 0);
}

Test(rules, rfc9309_agent_is_compared_case_insensitively)
{
    expect_verdict("User-agent: GoogleBot\nDisallow: /x\n", "GOOGLEBOT", "http://e.com/x", 1, 2);
}

Test(rules, rfc9309_agent_is_compared_as_given)
{
    /* A queried agent that is not a pure token is never named; globals apply. */
    const char *body = "User-agent: Googlebot\nDisallow: /g\nUser-agent: *\nDisallow: /s\n";
    expect_verdict(body, "Googlebot/2.1", "http://e.com/g", 0, 0);
    expect_verdict(body, "Googlebot/2.1", "http://e.com/s", 1, 4);
    expect_verdict(body, "Googlebot", "http://e.com/g", 1, 2);
    expect_verdict(body, "Googlebot", "http://e.com/s", 0, 0);
}

Test(rules, rfc9309_specific_groups_merge)
{
    const char *body = "User-agent: a\nDisallow: /x\nUser-agent: *\nDisallow: /y\nUser-agent: a\nDisallow: /z\n";
    expect_verdict(body, "a", "http://e.com/x", 1, 2);
    expect_verdict(body, "a", "http://e.com/z", 1, 6);
    expect_verdict(body, "a", "http://e.com/y", 0, 0);
}

Test(rules, rfc9309_global_groups_merge)
{
    const char *body = "User-agent: *\nDisallow: /x\nUser-agent: b\nDisallow: /y\nUser-agent: *\nDisallow: /z\n";
    expect_verdict(body, "a", "http://e.com/x", 1, 2);
    expect_verdict(body, "a", "http://e.com/z", 1, 6);
    expect_verdict(body, "a", "http://e.com/y", 0, 0);
}

Test(rules, rfc9309_named_group_without_rules_allows_all)
{
    const char *body = "User-agent: a\n\nUser-agent: *\nDisallow: /\n";
    /* "a" is named by a group whose rules are those of the * group that follows
     * (no rule between them), so it shares them. */
    expect_verdict(body, "a", "http://e.com/x", 1, 4);
    const char *body2 = "User-agent: *\nDisallow: /\nUser-agent: a\n";
    expect_verdict(body2, "a", "http://e.com/x", 0, 0);
    expect_verdict(body2, "b", "http://e.com/x", 1, 2);
}

Test(rules, rfc9309_no_group_allows_all)
{
    expect_verdict("", "a", "http://e.com/x", 0, 0);
    expect_verdict("Disallow: /\n", "a", "http://e.com/x", 0, 0);
    expect_verdict("User-agent: b\nDisallow: /\n", "a", "http://e.com/x", 0, 0);
}

Test(rules, compat_group_with_star_and_specific_agent)
{
    const char *body = "User-agent: *\nUser-agent: a\nDisallow: /x\nUser-agent: a\nAllow: /x\n";
    expect_verdict(body, "a", "http://e.com/x", 0, 5);
    expect_verdict(body, "b", "http://e.com/x", 1, 3);
}

Test(rules, compat_names_agent_and_crawl_delay)
{
    const char *body = "User-agent: a\nCrawl-delay: 5\nDisallow: /\nUser-agent: *\ncrawl-delay: 9\nCrawl-delay: 1\n";
    rs_ruleset *rs;
    cr_assert_eq(rs_ruleset_parse(body, strlen(body), &rs), RS_OK);
    cr_expect(rs_ruleset_names_agent(rs, "A", 1));
    cr_expect_not(rs_ruleset_names_agent(rs, "b", 1));
    rs_str v;
    cr_assert(rs_ruleset_group_value(rs, "a", 1, "crawl-delay", &v));
    cr_expect(v.len == 1 && v.ptr[0] == '5');
    cr_assert(rs_ruleset_group_value(rs, "b", 1, "Crawl-Delay", &v));
    cr_expect(v.len == 1 && v.ptr[0] == '9', "first value of the group");
    cr_expect_not(rs_ruleset_group_value(rs, "b", 1, "host", &v));
    rs_ruleset_free(rs);
}

Test(rules, compat_tokens_lists_named_agents_once)
{
    const char *body = "User-agent: *\nUser-agent: Googlebot/2.1\nDisallow: /\nUser-agent: googlebot\n"
                       "User-agent: Bing Bot\nUser-agent: *x\nAllow: /\n";
    rs_ruleset *rs;
    cr_assert_eq(rs_ruleset_parse(body, strlen(body), &rs), RS_OK);
    rs_str t[4];
    cr_assert_eq(rs_ruleset_tokens(rs, t, 4), 2);
    cr_expect(t[0].len == 9 && memcmp(t[0].ptr, "Googlebot", 9) == 0);
    cr_expect(t[1].len == 4 && memcmp(t[1].ptr, "Bing", 4) == 0);
    cr_expect_eq(rs_ruleset_tokens(rs, t, 1), 2, "count beyond cap");
    rs_ruleset_free(rs);
}
