/*
 * test_stats_writer.c - the mergeable-statistics writer (src/report/stats_json.c):
 * a whole document as the commands write it, keyed lists by key and by count with
 * a prefix and a limit, and the names it refuses (a value whose name would make
 * `robotscan merge --stats` combine it the wrong way).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "robotscan.h"

static rs_tally *tally_of(const char *const *keys, const uint64_t *counts, int n)
{
    rs_tally *t = NULL;
    cr_assert_eq(rs_tally_create(1, &t), RS_OK);
    for (int i = 0; i < n; i++) {
        uint32_t ix;
        cr_assert_eq(rs_tally_find(t, keys[i], strlen(keys[i]), &ix), RS_OK);
        rs_tally_counters(t, ix)[0] = counts[i];
    }
    return t;
}

Test(stats_writer, document)
{
    static const char *const keys[] = { "bot1\thttps://a\t3\tdisallow: /x", "bot1\thttps://b\t1\tdisallow: /",
                                        "bot2\thttps://a\t4\tdisallow: /y", "bot1\thttps://c\t2\tdisallow: /z" };
    static const uint64_t counts[] = { 5, 7, 9, 5 };
    rs_tally *t = tally_of(keys, counts, 4);
    rs_outbuf b = { 0 };
    rs_stats_writer w;
    rs_stats_begin(&w, &b, "logs", 2);
    rs_stats_label(&w, "log_format", "combined", 8);
    rs_stats_count(&w, "lines", 12);
    static const char *const inputs[] = { "a.log", "b\"c.log" };
    rs_stats_labels(&w, "inputs", inputs, 2);
    rs_stats_list(&w, "bots");
    rs_stats_object(&w, NULL);
    rs_stats_label(&w, "agent", "bot1", 4);
    rs_stats_bound(&w, "first_robots_txt_fetch", NULL);
    rs_stats_bound(&w, "last_robots_txt_fetch", "2015-05-17T10:05:03Z");
    static const char *const key_names[] = { "origin", "#line", "rule" }, *const counter_names[] = { "count" };
    const rs_stats_tally_opts top = { 0, { "bot1", 4 }, 2 };
    rs_stats_tally(&w, "top_rules", t, key_names, 3, counter_names, 1, &top);
    rs_stats_end(&w);
    rs_stats_end(&w);
    rs_stats_object(&w, "agents");
    rs_stats_object_n(&w, "Googlebot-x", 9);
    rs_stats_count(&w, "open", 3);
    rs_stats_end(&w);
    rs_stats_end(&w);
    rs_stats_seconds(&w, "seconds", 1.5);
    rs_stats_rate(&w, "lines_per_second", 8.0);
    cr_assert_eq(rs_stats_finish(&w), RS_OK);
    cr_assert_eq(rs_outbuf_append(&b, "", 1), RS_OK);
    cr_expect_str_eq(b.ptr,
                     "{\"command\":\"logs\",\"schema_version\":2,\"log_format\":\"combined\",\"lines\":12,"
                     "\"inputs\":[\"a.log\",\"b\\\"c.log\"],\"bots\":[{\"agent\":\"bot1\","
                     "\"first_robots_txt_fetch\":null,\"last_robots_txt_fetch\":\"2015-05-17T10:05:03Z\","
                     "\"top_rules\":[{\"origin\":\"https://b\",\"line\":1,\"rule\":\"disallow: /\",\"count\":7},"
                     "{\"origin\":\"https://a\",\"line\":3,\"rule\":\"disallow: /x\",\"count\":5}]}],"
                     "\"agents\":{\"Googlebot\":{\"open\":3}},\"seconds\":1.500000,\"lines_per_second\":8}\n");
    rs_outbuf_free(&b);
    rs_tally_free(t);
}

Test(stats_writer, by_key)
{
    static const char *const keys[] = { "b\t02", "a\t01", "b\t01" };
    static const uint64_t counts[] = { 1, 2, 3 };
    rs_tally *t = tally_of(keys, counts, 3);
    rs_outbuf b = { 0 };
    rs_stats_writer w;
    rs_stats_begin(&w, &b, "x", 1);
    static const char *const key_names[] = { "agent", "hour" }, *const counter_names[] = { "hits" };
    const rs_stats_tally_opts by_key = { 1, { NULL, 0 }, 0 };
    rs_stats_tally(&w, "hours", t, key_names, 2, counter_names, 1, &by_key);
    cr_assert_eq(rs_stats_finish(&w), RS_OK);
    cr_assert_eq(rs_outbuf_append(&b, "", 1), RS_OK);
    cr_expect_str_eq(b.ptr, "{\"command\":\"x\",\"schema_version\":1,\"hours\":[{\"agent\":\"a\",\"hour\":\"01\","
                            "\"hits\":2},{\"agent\":\"b\",\"hour\":\"01\",\"hits\":3},{\"agent\":\"b\",\"hour\":\"02\","
                            "\"hits\":1}]}\n");
    rs_outbuf_free(&b);
    rs_tally_free(t);
}

/* Each writes one value that merge would combine wrongly, or breaks the nesting. */
static void misfit(int which)
{
    rs_outbuf b = { 0 };
    rs_stats_writer w;
    rs_stats_begin(&w, &b, "x", 1);
    switch (which) {
    case 0: rs_stats_count(&w, "first_seen", 1); break;          /* a minimum, not a sum */
    case 1: rs_stats_count(&w, "seconds", 1); break;             /* a timing */
    case 2: rs_stats_bound(&w, "hits", "2020"); break;           /* a sum, not a bound */
    case 3: rs_stats_seconds(&w, "average_hits", 1.0); break;    /* a float under a summed name */
    case 4: rs_stats_rate(&w, "ratio", 0.5); break;              /* idem */
    case 5: rs_stats_label(&w, "last_agent", "a", 1); break;     /* a label under a max name */
    case 6: rs_stats_list(&w, "l"); rs_stats_count(&w, "n", 1); break; /* a name inside a list */
    case 7: rs_stats_count(&w, NULL, 1); break;                  /* no name inside an object */
    case 8: rs_stats_end(&w); break;                             /* closes the document */
    case 9: rs_stats_object(&w, "open"); break;                  /* left open */
    default: {
        static const char *const k[] = { "k" }, *const c[] = { "p95_ms_max" };
        rs_tally *t = tally_of((const char *const[]){ "a" }, (const uint64_t[]){ 1 }, 1);
        rs_stats_tally(&w, "list", t, k, 1, c, 1, NULL);         /* a counter under a max name */
        rs_tally_free(t);
    }
    }
    cr_expect_eq(rs_stats_finish(&w), RS_ERR_USAGE, "misfit %d accepted", which);
    rs_outbuf_free(&b);
}

Test(stats_writer, refuses_unmergeable_names)
{
    for (int i = 0; i <= 10; i++) misfit(i);
}

Test(stats_writer, rules_by_name)
{
    cr_expect_eq(rs_stats_rule_of("hits"), RS_STATS_SUM);
    cr_expect_eq(rs_stats_rule_of("first_robots_txt_fetch"), RS_STATS_MIN);
    cr_expect_eq(rs_stats_rule_of("delay_max"), RS_STATS_MAX);
    cr_expect_eq(rs_stats_rule_of("seconds"), RS_STATS_TIME);
    cr_expect_eq(rs_stats_rule_of("urls_per_second"), RS_STATS_RATE);
    cr_expect_eq(rs_stats_rule_of("schema_version"), RS_STATS_SAME);
    cr_expect_eq(rs_stats_rule_of("agents"), RS_STATS_SAME);
}
