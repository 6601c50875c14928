/* test_url.c - SPEC 2.3.14: the path the matcher sees. */
#include <criterion/criterion.h>
#include <string.h>

#include "robotscan.h"

static void expect_path(const char *url, const char *want)
{
    char scratch[256];
    const rs_str p = rs_url_path(url, strlen(url), scratch, sizeof scratch);
    cr_expect(p.len == strlen(want) && memcmp(p.ptr, want, p.len) == 0,
              "path of '%s' is '%.*s', want '%s'", url, (int)p.len, p.ptr, want);
}

Test(url, rfc9309_spec_examples)
{
    expect_path("http://a.com", "/");
    expect_path("a.com/x", "/x");
    expect_path("//a.com/x?y#z", "/x?y");
    expect_path("http://a.com?q", "/?q");
    expect_path("http://a.com#f/x", "/");
}

Test(url, rfc9309_scheme_only_before_path)
{
    expect_path("http://a.com/b://c", "/b://c");
    expect_path("a.com/x://y", "/x://y");
    expect_path("a.com?x://y", "/?x://y");
    expect_path("https://user:pw@a.com:8080/p;q?r", "/p;q?r");
}

Test(url, rfc9309_params_and_query_get_a_slash)
{
    expect_path("http://a.com;p", "/;p");
    expect_path("http://a.com?", "/?");
    expect_path("", "/");
    expect_path("/", "/");
    expect_path("/x/y", "/x/y");
}

Test(url, rfc9309_fragment_is_dropped)
{
    expect_path("http://a.com/x#", "/x");
    expect_path("http://a.com/x#y#z", "/x");
    expect_path("http://a.com/#", "/");
}

Test(url, compat_nul_ends_the_path)
{
    char scratch[32];
    const char url[] = "http://a.com/ab\0cd";
    const rs_str p = rs_url_path(url, sizeof url - 1, scratch, sizeof scratch);
    cr_expect_eq(p.len, 3);
    cr_expect(memcmp(p.ptr, "/ab", 3) == 0);
}

Test(url, compat_path_is_not_decoded)
{
    expect_path("http://a.com/%7Efoo/%2f", "/%7Efoo/%2f");
    expect_path("http://a.com/caf\xc3\xa9", "/caf\xc3\xa9");
}
