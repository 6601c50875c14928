/*
 * test_audit.c - the per-hit decision of logs and diff --logs
 * (rs_log_auditor, src/log/audit.c): site, bot, verification, URL, path,
 * group, verdict, rule, reason, crawl-delay; memos give the same answers.
 */
#include <criterion/criterion.h>

#include "robotscan.h"

#include <stdio.h>
#include <string.h>

static const char ROBOTS[] =
    "User-agent: *\nDisallow: /private/\nCrawl-delay: 2\n\n"
    "User-agent: Googlebot\nDisallow: /g/\nAllow: /g/ok\nCrawl-delay: 5\n";

static rs_sites *sites(void)
{
    rs_sites *s = NULL;
    cr_assert_eq(rs_sites_create_empty(&s), RS_OK);
    cr_assert_eq(rs_sites_add_body(s, "https://a.example", 17, 200, ROBOTS, sizeof ROBOTS - 1), RS_OK,
                 "%s", rs_sites_errmsg(s));
    return s;
}

static rs_logformat *fmt;

static rs_logrec parse(const char *line)
{
    if (fmt == NULL) cr_assert_eq(rs_logformat_create("combined", 8, NULL, 0, &fmt), RS_OK);
    rs_logrec r;
    cr_assert_eq(rs_logline_parse(fmt, line, strlen(line), &r), RS_LOGLINE_OK, "%s", line);
    return r;
}

#define LINE(ua, target) "66.249.66.1 - - [17/May/2015:10:05:03 +0000] \"GET " target " HTTP/1.1\" 200 1 \"-\" \"" ua "\""

Test(audit, bot_group_verdict_rule_and_delay)
{
    rs_sites *s = sites();
    const rs_log_audit_config cfg = { s, "a.example", "https", NULL, 1 };
    rs_log_auditor *a = NULL;
    cr_assert_eq(rs_log_auditor_create(&cfg, &a), RS_OK);
    for (int round = 0; round < 3; round++) {      /* later rounds come from the memos */
        rs_logrec r = parse(LINE("Mozilla/5.0 (compatible; Googlebot/2.1)", "/g/x?q=1"));
        rs_log_hit h;
        cr_assert_eq(rs_log_audit_bot(a, &r, &h), RS_OK);
        cr_assert_eq(h.kind, RS_LOGHIT_BOT);
        cr_assert_eq(h.verified, RS_VERIFIED_UNKNOWN);
        cr_assert(h.bot.token.len == 9 && memcmp(h.bot.token.ptr, "Googlebot", 9) == 0);
        cr_assert_eq(rs_log_audit_decide(a, &r, &h), RS_OK);
        cr_assert(h.url.len == 25 && memcmp(h.url.ptr, "https://a.example/g/x?q=1", 25) == 0, "%.*s",
                  (int)h.url.len, h.url.ptr);
        cr_assert(h.group.len == 9 && memcmp(h.group.ptr, "Googlebot", 9) == 0);
        cr_assert(h.bound && !h.robots_fetch);
        cr_assert_eq(h.verdict.disallowed, 1);
        cr_assert_str_eq(h.reason, "matched");
        cr_assert(h.rule.len == 13 && memcmp(h.rule.ptr, "disallow: /g/", 13) == 0, "%.*s", (int)h.rule.len,
                  h.rule.ptr);
        cr_assert_float_eq(h.delay, 5.0, 1e-9);

        r = parse(LINE("Mozilla/5.0 (compatible; Googlebot/2.1)", "/g/ok"));
        cr_assert_eq(rs_log_audit_bot(a, &r, &h), RS_OK);
        cr_assert_eq(rs_log_audit_decide(a, &r, &h), RS_OK);
        cr_assert_eq(h.verdict.disallowed, 0);

        r = parse(LINE("Mozilla/5.0 (compatible; bingbot/2.0)", "/private/a"));
        cr_assert_eq(rs_log_audit_bot(a, &r, &h), RS_OK);
        cr_assert_eq(h.kind, RS_LOGHIT_BOT);
        cr_assert_eq(rs_log_audit_decide(a, &r, &h), RS_OK);
        cr_assert_eq(h.verdict.disallowed, 1, "bingbot follows *");
        cr_assert_float_eq(h.delay, 2.0, 1e-9);

        r = parse(LINE("Mozilla/5.0 (compatible; bingbot/2.0)", "/robots.txt"));
        cr_assert_eq(rs_log_audit_bot(a, &r, &h), RS_OK);
        cr_assert_eq(rs_log_audit_decide(a, &r, &h), RS_OK);
        cr_assert(h.robots_fetch);
        cr_assert_eq(h.verdict.disallowed, 0);
        cr_assert_str_eq(h.reason, "robots-txt");

        r = parse(LINE("Mozilla/5.0 (X11; Linux x86_64) Firefox/99.0", "/private/a"));
        cr_assert_eq(rs_log_audit_bot(a, &r, &h), RS_OK);
        cr_assert_eq(h.kind, RS_LOGHIT_NOT_BOT);
        cr_assert_not_null(h.origin);
    }
    rs_log_auditor_free(a);
    rs_sites_free(s);
}

Test(audit, no_site_and_ranges)
{
    rs_sites *s = sites();
    rs_log_auditor *a = NULL;
    const rs_log_audit_config none = { s, NULL, "https", NULL, 1 };
    cr_assert_eq(rs_log_auditor_create(&none, &a), RS_OK);
    rs_logrec r = parse(LINE("Googlebot/2.1", "/"));
    rs_log_hit h;
    cr_assert_eq(rs_log_audit_bot(a, &r, &h), RS_OK);
    cr_assert_eq(h.kind, RS_LOGHIT_NO_SITE, "no host in the line, none configured");
    rs_log_auditor_free(a);

    rs_ipranges *ranges = NULL;
    cr_assert_eq(rs_ipranges_create(&ranges), RS_OK);
    const char list[] = "66.249.64.0/19\n";
    cr_assert_eq(rs_ipranges_add(ranges, "Googlebot", list, sizeof list - 1, NULL, 0, NULL), RS_OK);
    const rs_log_audit_config cfg = { s, "a.example", "https", ranges, 1 };
    cr_assert_eq(rs_log_auditor_create(&cfg, &a), RS_OK);
    cr_assert_eq(rs_log_audit_bot(a, &r, &h), RS_OK);
    cr_assert_eq(h.kind, RS_LOGHIT_BOT);
    cr_assert_eq(h.verified, RS_VERIFIED_YES);
    rs_logrec spoof = parse("10.0.0.1 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"Googlebot/2.1\"");
    cr_assert_eq(rs_log_audit_bot(a, &spoof, &h), RS_OK);
    cr_assert_eq(h.verified, RS_VERIFIED_NO);
    rs_logrec by_ip = parse("66.249.66.1 - - [17/May/2015:10:05:03 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"\"");
    cr_assert_eq(rs_log_audit_bot(a, &by_ip, &h), RS_OK);
    cr_assert_eq(h.kind, RS_LOGHIT_BOT);
    cr_assert(h.by_ip && h.verified == RS_VERIFIED_YES);
    rs_log_auditor_free(a);
    rs_ipranges_free(ranges);
    rs_sites_free(s);
    rs_logformat_free(fmt);
    fmt = NULL;
}
