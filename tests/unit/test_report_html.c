/*
 * test_report_html.c - rs_report_html: the page's frame and safety (doctype,
 * lang, title, CSP, no script, escaping), exact numbers, strict reading
 * (each refusal with its message), empty runs, and out-of-memory at every
 * allocation of the renderer.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "robotscan.h"

void rs_alloc_fail_after(unsigned long n);   /* src/common: allocation failure injection */

static const char LOGS[] =
    "{\"command\":\"logs\",\"lines\":12,\"bot_hits\":5,\"violations\":2,\"seconds\":0.1,"
    "\"bots\":[{\"agent\":\"Bad<Bot>&\",\"hits\":4,\"violations\":2,\"delay_violations\":1,"
    "\"distinct_violated_paths\":2,\"robots_txt_fetches\":1,\"first_robots_txt_fetch\":\"2020-01-01T00:00:00Z\","
    "\"last_robots_txt_fetch\":\"2020-01-01T00:00:00Z\",\"top_rules\":[{\"origin\":\"https://x.example\",\"line\":7,"
    "\"rule\":\"disallow: /\\\"q\\\"\",\"count\":2}]},{\"agent\":\"Googlebot\",\"hits\":1,\"violations\":0,"
    "\"delay_violations\":0,\"distinct_violated_paths\":0,\"robots_txt_fetches\":0,\"first_robots_txt_fetch\":null,"
    "\"last_robots_txt_fetch\":null,\"top_rules\":[]}],"
    "\"hours\":[{\"agent\":\"Bad<Bot>&\",\"hour\":\"2020-01-01T00\",\"hits\":4,\"violations\":2},"
    "{\"agent\":\"Googlebot\",\"hour\":\"2020-01-01T03\",\"hits\":1,\"violations\":0}]}";

/* Renders @json; @return the status, the page in *page (caller frees), the error in err. */
static rs_status render(const char *json, const char *title, rs_outbuf *page, char *err, size_t cap)
{
    const rs_report_input in = { "t.json", json, strlen(json), NULL, NULL };
    memset(page, 0, sizeof *page);
    return rs_report_html(&in, 1, title, page, err, cap);
}

static int has(const rs_outbuf *b, const char *s) { return memmem(b->ptr, b->len, s, strlen(s)) != NULL; }

Test(report_html, frame_and_safety)
{
    rs_outbuf p;
    char err[256];
    cr_assert_eq(render(LOGS, "Audit <of> \"x\" & y", &p, err, sizeof err), RS_OK, "%s", err);
    cr_assert(p.len > 1000);
    cr_assert(memcmp(p.ptr, "<!DOCTYPE html>\n<html lang=\"en\">", 31) == 0);
    cr_assert(has(&p, "<title>Audit &lt;of&gt; &quot;x&quot; &amp; y</title>"));
    cr_assert(has(&p, "default-src 'none'"));
    cr_assert(!has(&p, "<script"));
    cr_assert(has(&p, "<th scope=\"row\">Bad&lt;Bot&gt;&amp;</th>"));
    cr_assert(!has(&p, "Bad<Bot>"));
    cr_assert(has(&p, "disallow: /&quot;q&quot;"));
    cr_assert(has(&p, "@media print"));
    cr_assert(has(&p, "role=\"img\""));
    rs_outbuf_free(&p);
}

Test(report_html, numbers_exact)
{
    rs_outbuf p;
    char err[256];
    cr_assert_eq(render(LOGS, NULL, &p, err, sizeof err), RS_OK, "%s", err);
    /* The bot's row: hits, violations, delay, paths, fetches in the table. */
    cr_assert(has(&p, "<th scope=\"row\">Bad&lt;Bot&gt;&amp;</th><td class=\"n\">4</td><td class=\"n\">2</td>"
                      "<td class=\"n\">1</td><td class=\"n\">2</td><td class=\"n\">1</td>"));
    cr_assert(has(&p, "<title>Bad&lt;Bot&gt;&amp;: hits 4, violations 2</title>"));
    cr_assert(has(&p, "<th scope=\"row\">seconds</th><td class=\"n\">0.1</td>"));   /* shortest form */
    cr_assert(has(&p, "<th scope=\"row\">Googlebot</th><td>2020-01-01T03</td><td class=\"n\">1</td>"));
    /* the default title names the site (from the rules' origins) and the period */
    cr_assert(has(&p, "<title>Crawler audit of x.example, 2020-01-01</title>"));
    /* the run's internals last, folded */
    const char *run = memmem(p.ptr, p.len, "<details class=\"run\">", 21), *bots = memmem(p.ptr, p.len, "Every bot", 9);
    cr_assert(run != NULL && bots != NULL && run > bots);
    rs_outbuf_free(&p);
}

Test(report_html, refusals)
{
    static const struct { const char *json, *msg; } BAD[] = {
        { "", "t.json: empty file" },
        { "{\"command\":\"logs\",\"lines\":1", "t.json: not valid JSON (truncated or damaged?)" },
        { "[]", "not a robotscan statistics file" },
        { "{\"lines\":1}", "no \"command\" field" },
        { "{\"command\":7}", "no \"command\" field" },
        { "{\"command\":\"check\"}", "unknown command \"check\"" },
        { "{\"command\":\"survey\",\"schema_version\":3,\"agents\":[]}", "schema_version 3 is not supported" },
        { "{\"command\":\"survey\",\"schema_version\":0,\"agents\":[]}", "schema_version 0 is not supported" },
        { "{\"command\":\"survey\",\"schema_version\":1.0,\"agents\":[]}", "\"schema_version\" is not an integer" },
        { "{\"command\":\"survey\",\"command\":\"diff\",\"agents\":[]}", "duplicate object key" },
        { "{\"command\":\"survey\"}", "\"agents\" is missing" },
        { "{\"command\":\"survey\",\"agents\":\"x\"}", "\"agents\" is not an array" },
        { "{\"command\":\"survey\",\"agents\":[1]}", "agents[0] is not an object" },
        { "{\"command\":\"survey\",\"agents\":{\"GPTBot\":3}}", "agents: \"GPTBot\" is not an object" },
        { "{\"command\":\"survey\",\"agents\":{\"GPTBot\":{\"blocked\":1}}}", "agents[0]: \"partial\" is missing" },
        { "{\"command\":\"survey\",\"agents\":[{\"agent\":\"x\",\"blocked\":1,\"partial\":1,\"open\":1,"
          "\"unavailable\":1,\"unreachable\":-1}]}", "agents[0]: \"unreachable\" is not a non-negative integer" },
        { "{\"command\":\"diff\",\"agents\":[{\"agent\":\"x\",\"newly_disallowed\":1,\"newly_allowed\":1,"
          "\"unchanged\":1,\"compared\":1.5}]}", "agents[0]: \"compared\" is not a non-negative integer" },
        { "{\"command\":\"urls\",\"urls\":1,\"verdicts\":{\"allow\":1,\"disallow\":0},\"reasons\":{},"
          "\"origins\":[],\"rules\":[{\"origin\":\"o\",\"line\":\"3\",\"rule\":\"r\",\"count\":1}]}",
          "rules[0]: \"line\" is not a non-negative integer" },
        { "{\"command\":\"logs\",\"lines\":1,\"bots\":[{\"agent\":\"a\",\"hits\":9223372036854775808}]}",
          "not valid JSON" },
        { "{\"command\":\"logs\",\"lines\":1,\"bots\":[{\"agent\":\"a\",\"hits\":1,\"violations\":0,"
          "\"delay_violations\":0,\"distinct_violated_paths\":0,\"robots_txt_fetches\":0}],"
          "\"hours\":[{\"agent\":\"a\",\"hour\":\"2020-01-01 00\",\"hits\":1,\"violations\":0}]}",
          "hours[0]: \"hour\" is not a UTC hour" },
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        rs_outbuf p;
        char err[256];
        cr_assert_eq(render(BAD[i].json, NULL, &p, err, sizeof err), RS_ERR_CORRUPT, "case %zu", i);
        cr_assert(strstr(err, BAD[i].msg) != NULL, "case %zu: '%s' lacks '%s'", i, err, BAD[i].msg);
        cr_assert(strncmp(err, "t.json: ", 8) == 0, "case %zu: %s", i, err);
        rs_outbuf_free(&p);
    }
    rs_outbuf p = { 0 };
    cr_assert_eq(rs_report_html(NULL, 0, NULL, &p, NULL, 0), RS_ERR_USAGE);
}

Test(report_html, survey_both_shapes)
{
    static const char *const SHAPES[] = {
        "{\"command\":\"survey\",\"agents\":{\"GPTBot\":{\"blocked\":5,\"partial\":4,\"open\":3,"
        "\"unavailable\":2,\"unreachable\":1,\"named\":6,\"star\":9,\"none\":0,\"crawl_delay\":7}}}",
        "{\"command\":\"survey\",\"agents\":[{\"agent\":\"GPTBot\",\"blocked\":5,\"partial\":4,\"open\":3,"
        "\"unavailable\":2,\"unreachable\":1,\"named\":6,\"star\":9,\"none\":0,\"crawl_delay\":7}]}",
    };
    for (size_t i = 0; i < 2; i++) {
        rs_outbuf p;
        char err[256];
        cr_assert_eq(render(SHAPES[i], NULL, &p, err, sizeof err), RS_OK, "case %zu: %s", i, err);
        cr_assert(has(&p, "<th scope=\"row\">GPTBot</th><td class=\"n\">5</td><td class=\"n\">4</td>"
                          "<td class=\"n\">3</td><td class=\"n\">2</td><td class=\"n\">1</td><td class=\"n\">6</td>"
                          "<td class=\"n\">9</td><td class=\"n\">0</td><td class=\"n\">7</td><td class=\"n\">33.3%</td>"),
                  "case %zu", i);
        cr_assert(has(&p, "5 + 4 + 3 + 2 + 1 = 15"), "case %zu", i);
        rs_outbuf_free(&p);
    }
}

Test(report_html, empty_runs)
{
    static const char *const EMPTY[] = {
        "{\"command\":\"logs\",\"lines\":0,\"bots\":[],\"hours\":[]}",
        ("{\"command\":\"urls\",\"urls\":0,\"verdicts\":{\"allow\":0,\"disallow\":0},\"reasons\":{},"
         "\"origins\":[],\"rules\":[]}"),
        "{\"command\":\"survey\",\"agents\":[]}",
        "{\"command\":\"survey\",\"agents\":{}}",
        "{\"command\":\"diff\",\"agents\":[]}",
    };
    for (size_t i = 0; i < sizeof EMPTY / sizeof EMPTY[0]; i++) {
        rs_outbuf p;
        char err[256];
        cr_assert_eq(render(EMPTY[i], NULL, &p, err, sizeof err), RS_OK, "case %zu: %s", i, err);
        cr_assert(has(&p, "Nothing to show"), "case %zu", i);
        rs_outbuf_free(&p);
    }
}

Test(report_html, out_of_memory_everywhere)
{
    int ok = 0;
    for (unsigned long k = 1; k < 400 && !ok; k++) {
        rs_outbuf p;
        char err[256];
        rs_alloc_fail_after(k);
        const rs_status st = render(LOGS, NULL, &p, err, sizeof err);
        rs_alloc_fail_after(0);
        cr_assert(st == RS_OK || st == RS_ERR_NOMEM, "k=%lu: %d %s", k, (int)st, err);
        ok = st == RS_OK;
        rs_outbuf_free(&p);
    }
    cr_assert(ok, "never succeeded");
}
