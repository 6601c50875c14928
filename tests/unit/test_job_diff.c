/*
 * test_job_diff.c - the diff job (RS_JOB_DIFF, src/diff/run.c) through the
 * public job API: two sides of robots.txt bodies from memory
 * (rs_sites_create_empty + rs_sites_add_body), URLs from a buffer
 * (rs_job_run_buffer); flips as records in input order with two workers
 * over several blocks, the summary, the rule rows, two semantics of one
 * side, output bytes, log hits per (bot, URL), and the statistics JSON (jansson).
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robotscan.h"

static rs_sites *sites_of(const char *a_body, const char *b_body)
{
    rs_sites *s = NULL;
    cr_assert_eq(rs_sites_create_empty(&s), RS_OK);
    cr_assert_eq(rs_sites_add_body(s, "https://a.com", 13, 200, a_body, strlen(a_body)), RS_OK);
    cr_assert_eq(rs_sites_add_body(s, "https://b.com", 13, 200, b_body, strlen(b_body)), RS_OK);
    return s;
}

static const char OLD_A[] = "User-agent: *\nDisallow: /a\n";
static const char NEW_A[] = "User-agent: *\nDisallow: /b\nUser-agent: Googlebot\nDisallow: /g\n";
static const char B[] = "User-agent: *\nDisallow: /b\n";

/* Line i (1-based) of the input: a.com/a, a.com/b, a.com/c, a.com/g, b.com/b in turn, a blank
 * line every 1000th, "not a url" every 999th. */
static int line_kind(unsigned long i) { return i % 1000 == 0 ? -1 : i % 999 == 0 ? -2 : (int)(i % 5); }

static char *make_input(unsigned long n, size_t *size)
{
    static const char *const PATHS[5] = { "https://a.com/a/", "https://a.com/b/", "https://a.com/c/",
                                          "https://a.com/g/", "https://b.com/b/" };
    char *buf = malloc(n * 40 + 1);
    cr_assert_not_null(buf);
    size_t len = 0;
    for (unsigned long i = 1; i <= n; i++) {
        const int k = line_kind(i);
        if (k == -1) len += (size_t)sprintf(buf + len, "\n");
        else if (k == -2) len += (size_t)sprintf(buf + len, "not a url\n");
        else len += (size_t)sprintf(buf + len, "%s%lu\n", PATHS[k], i);
    }
    *size = len;
    return buf;
}

/* What a record callback saw. */
typedef struct {
    unsigned long records, rule_rows, out_of_order, bad;
    uint64_t last_line;
    char first_bad[256];
} seen;

static void note_bad(seen *s, const char *what, unsigned long long line)
{
    if (s->bad++ == 0) snprintf(s->first_bad, sizeof s->first_bad, "line %llu: %s", line, what);
}

static int field_is(rs_str f, const char *v) { return f.len == strlen(v) && memcmp(f.ptr, v, f.len) == 0; }

/* Every record: a flip of the input line it names, in input order. */
static int on_records(void *user, const rs_job_record *r, size_t n)
{
    seen *s = user;
    for (size_t i = 0; i < n; i++) {
        const rs_str *f = r[i].fields;
        if (r[i].input_line == 0) { /* a rule row */
            s->rule_rows++;
            continue;
        }
        s->records++;
        if (r[i].input_line < s->last_line) s->out_of_order++;
        s->last_line = r[i].input_line;
        const int k = line_kind((unsigned long)r[i].input_line);
        char url[64];
        static const char *const PATHS[5] = { "https://a.com/a/", "https://a.com/b/", "https://a.com/c/",
                                              "https://a.com/g/", "https://b.com/b/" };
        if (k < 0) { note_bad(s, "a record, not a URL", (unsigned long long)r[i].input_line); continue; }
        snprintf(url, sizeof url, "%s%llu", PATHS[k], (unsigned long long)r[i].input_line);
        if (!field_is(f[0], url)) note_bad(s, "another URL", (unsigned long long)r[i].input_line);
        if (!field_is(f[1], "https://a.com")) note_bad(s, "origin", (unsigned long long)r[i].input_line);
        /* a.com/a: newly allowed; a.com/b: newly disallowed; a.com/g: Googlebot only */
        const int googlebot = field_is(f[2], "Googlebot");
        const char *want_old = k == 0 ? "disallow" : "allow";
        const char *want_new = k == 0 ? "allow" : "disallow";
        if (k == 2 || k == 4 || (k == 3 && !googlebot) || (k == 1 && googlebot))
            note_bad(s, "not a flip", (unsigned long long)r[i].input_line);
        if (!field_is(f[3], want_old) || !field_is(f[6], want_new))
            note_bad(s, "verdicts", (unsigned long long)r[i].input_line);
        if (!field_is(f[9], "1")) note_bad(s, "hits", (unsigned long long)r[i].input_line);
    }
    return 0;
}

static rs_job *diff_job(rs_sites *old_s, rs_sites *new_s, int workers)
{
    rs_job *job = rs_job_create(RS_JOB_DIFF);
    cr_assert_not_null(job);
    cr_assert_eq(rs_job_use_sites(job, old_s), RS_OK);
    if (new_s) cr_assert_eq(rs_job_use_sites_new(job, new_s), RS_OK, "%s", rs_job_errmsg(job));
    cr_assert_eq(rs_job_add_agent(job, "*"), RS_OK);
    cr_assert_eq(rs_job_add_agent(job, "Googlebot"), RS_OK);
    cr_assert_eq(rs_job_set(job, RS_JOB_WORKERS, workers), RS_OK);
    return job;
}

Test(job_diff, flips_as_records_in_input_order_two_workers)
{
    rs_sites *old_s = sites_of(OLD_A, B), *new_s = sites_of(NEW_A, B);
    const unsigned long n = 400000;         /* about 10 MB: several blocks in flight */
    size_t size;
    char *input = make_input(n, &size);
    rs_job *job = diff_job(old_s, new_s, 2);
    seen s;
    memset(&s, 0, sizeof s);
    cr_assert_eq(rs_job_set_records(job, on_records, &s), RS_OK);
    size_t nc;
    const char *const *cols = rs_job_columns(job, &nc);
    cr_assert_eq(nc, 10);
    cr_assert_str_eq(cols[0], "url");
    cr_assert_str_eq(cols[9], "hits");
    cr_assert_eq(rs_job_run_buffer(job, input, size, "urls"), RS_OK, "%s", rs_job_errmsg(job));
    cr_assert_eq(rs_job_finish(job), RS_OK, "%s", rs_job_errmsg(job));
    cr_assert_eq(s.bad, 0, "%lu bad records, first: %s", s.bad, s.first_bad);
    cr_assert_eq(s.out_of_order, 0);
    cr_assert_eq(s.rule_rows, 0);

    /* expected counts, from the input's pattern */
    uint64_t urls = 0, malformed = 0, blank = 0, nd = 0, na = 0;
    for (unsigned long i = 1; i <= n; i++) {
        const int k = line_kind(i);
        if (k == -1) { blank++; continue; }
        if (k == -2) { malformed++; continue; }
        urls++;
        if (k == 0) na += 2;                 /* both agents */
        if (k == 1) nd += 1;                 /* '*' (Googlebot has a group of its own now) */
        if (k == 3) nd += 1;                 /* Googlebot */
    }
    cr_assert_eq(s.records, nd + na);
    rs_job_totals t;
    cr_assert_eq(rs_job_totals_get(job, &t), RS_OK);
    cr_assert_eq(t.lines, n);
    cr_assert_eq(t.blank, blank);
    cr_assert_eq(t.malformed, malformed);
    cr_assert_eq(t.records, 2 * urls, "pairs compared");

    rs_job_diff_summary sum;
    cr_assert_eq(rs_job_diff_summary_get(job, &sum), RS_OK);
    cr_assert_eq(sum.total[RS_DIFF_COMPARED], 2 * urls);
    cr_assert_eq(sum.total[RS_DIFF_NEWLY_DISALLOWED], nd);
    cr_assert_eq(sum.total[RS_DIFF_NEWLY_ALLOWED], na);
    cr_assert_eq(sum.n_agents, 2);
    cr_assert(sum.agents[0].agent.len == 1 && sum.agents[0].agent.ptr[0] == '*', "agents in the order given");
    cr_assert_eq(sum.n_pairs, 4, "(a.com, b.com) x 2 agents");
    cr_assert(sum.pairs[0].origin.len == 13 && !memcmp(sum.pairs[0].origin.ptr, "https://a.com", 13),
              "most flips first");

    const char *json;
    size_t len;
    cr_assert_eq(rs_job_stats_json(job, &json, &len), RS_OK);
    json_error_t err;
    json_t *root = json_loadb(json, len, 0, &err);
    cr_assert_not_null(root, "stats JSON: %s", err.text);
    cr_assert_str_eq(json_string_value(json_object_get(root, "command")), "diff");
    cr_assert_eq(json_integer_value(json_object_get(root, "lines")), (json_int_t)n);
    json_t *total = json_object_get(root, "total");
    cr_assert_eq(json_integer_value(json_object_get(total, "compared")), (json_int_t)(2 * urls));
    cr_assert_eq(json_integer_value(json_object_get(total, "newly_disallowed")), (json_int_t)nd);
    cr_assert_eq(json_integer_value(json_object_get(total, "newly_allowed")), (json_int_t)na);
    cr_assert_eq(json_array_size(json_object_get(root, "agents")), 2);
    cr_assert_eq(json_array_size(json_object_get(root, "origins")), 4);
    cr_assert_str_eq(json_string_value(json_array_get(json_object_get(root, "inputs"), 0)), "urls");
    json_decref(root);

    rs_job_free(job);
    rs_sites_free(old_s);
    rs_sites_free(new_s);
    free(input);
}

static int write_file(void *user, const void *p, size_t n)
{
    return fwrite(p, 1, n, user) == n ? 0 : -1;
}

Test(job_diff, one_and_two_workers_give_the_same_bytes)
{
    rs_sites *old_s = sites_of(OLD_A, B), *new_s = sites_of(NEW_A, B);
    size_t size;
    char *input = make_input(300000, &size);
    char *out[2] = { NULL, NULL };
    size_t out_len[2] = { 0, 0 };
    for (int w = 0; w < 2; w++) {
        FILE *f = open_memstream(&out[w], &out_len[w]);
        rs_job *job = diff_job(old_s, new_s, w + 1);
        cr_assert_eq(rs_job_set(job, RS_JOB_FORMAT, RS_FORMAT_JSONL), RS_OK);
        cr_assert_eq(rs_job_set_output(job, write_file, f), RS_OK);
        cr_assert_eq(rs_job_run_buffer(job, input, size, NULL), RS_OK, "%s", rs_job_errmsg(job));
        cr_assert_eq(rs_job_finish(job), RS_OK);
        rs_job_free(job);
        fclose(f);
    }
    cr_assert_gt(out_len[0], 1000);
    cr_assert_eq(out_len[0], out_len[1]);
    cr_assert(memcmp(out[0], out[1], out_len[0]) == 0, "-j 1 and -j 2 differ");
    cr_assert(strncmp(out[0], "{\"url\":\"https://a.com/b/1\"", 26) == 0, "%.60s", out[0]);
    free(out[0]);
    free(out[1]);
    rs_sites_free(old_s);
    rs_sites_free(new_s);
    free(input);
}

static int collect_text(void *user, const void *p, size_t n)
{
    char *buf = user;
    strncat(buf, p, n < 4095 - strlen(buf) ? n : 4095 - strlen(buf));
    return 0;
}

Test(job_diff, tsv_records_and_rule_rows)
{
    rs_sites *old_s = sites_of(OLD_A, B), *new_s = sites_of(NEW_A, B);
    rs_job *job = rs_job_create(RS_JOB_DIFF);
    cr_assert_eq(rs_job_use_sites(job, old_s), RS_OK);
    cr_assert_eq(rs_job_use_sites_new(job, new_s), RS_OK);
    cr_assert_eq(rs_job_add_agent(job, "Googlebot"), RS_OK);
    cr_assert_eq(rs_job_set(job, RS_JOB_DIFF_RULES, 1), RS_OK);
    cr_assert_eq(rs_job_set(job, RS_JOB_FORMAT, RS_FORMAT_TSV), RS_OK);
    static char text[4096];
    text[0] = '\0';
    cr_assert_eq(rs_job_set_output(job, collect_text, text), RS_OK);
    const char in[] = "https://a.com/a\nhttps://a.com/g\nhttps://b.com/b\n";
    cr_assert_eq(rs_job_run_buffer(job, in, strlen(in), NULL), RS_OK, "%s", rs_job_errmsg(job));
    cr_assert_eq(rs_job_finish(job), RS_OK, "%s", rs_job_errmsg(job));
    cr_assert_str_eq(text,
        "url\torigin\tagent\told_verdict\told_line\told_rule\tnew_verdict\tnew_line\tnew_rule\thits\n"
        "https://a.com/a\thttps://a.com\tGooglebot\tdisallow\t2\tdisallow: /a\tallow\t0\t\t1\n"
        "https://a.com/g\thttps://a.com\tGooglebot\tallow\t0\t\tdisallow\t4\tdisallow: /g\t1\n"
        "\n"
        "origin\tagent\tchange\trule\told_line\tnew_line\tprobe\told_verdict\tnew_verdict\n"
        "https://a.com\tGooglebot\tremoved\tdisallow: /a\t2\t0\t/a\tdisallow\tallow\n"
        "https://a.com\tGooglebot\tadded\tdisallow: /g\t0\t4\t/g\tallow\tdisallow\n");
    rs_job_free(job);

    /* the same as records: the rule rows come with input line 0 */
    job = rs_job_create(RS_JOB_DIFF);
    cr_assert_eq(rs_job_use_sites(job, old_s), RS_OK);
    cr_assert_eq(rs_job_use_sites_new(job, new_s), RS_OK);
    cr_assert_eq(rs_job_add_agent(job, "Googlebot"), RS_OK);
    cr_assert_eq(rs_job_set(job, RS_JOB_DIFF_RULES, 1), RS_OK);
    seen s;
    memset(&s, 0, sizeof s);
    cr_assert_eq(rs_job_set_records(job, on_records, &s), RS_OK);
    cr_assert_eq(rs_job_run_buffer(job, in, strlen(in), NULL), RS_OK);
    cr_assert_eq(rs_job_finish(job), RS_OK);
    cr_assert_eq(s.records, 2);
    cr_assert_eq(s.rule_rows, 2);
    rs_job_free(job);
    rs_sites_free(old_s);
    rs_sites_free(new_s);
}

Test(job_diff, two_semantics_of_one_side)
{
    /* google: the longest match wins (allow /a/b); first-match: the first rule (disallow /a) */
    rs_sites *s = sites_of("User-agent: *\nDisallow: /a\nAllow: /a/b\n", B);
    rs_job *job = rs_job_create(RS_JOB_DIFF);
    cr_assert_eq(rs_job_use_sites(job, s), RS_OK);
    cr_assert_eq(rs_job_set(job, RS_JOB_SEMANTICS, RS_SEMANTICS_GOOGLE), RS_OK);
    cr_assert_eq(rs_job_set(job, RS_JOB_SEMANTICS_NEW, RS_SEMANTICS_FIRST_MATCH), RS_OK);
    static char text[4096];
    text[0] = '\0';
    cr_assert_eq(rs_job_set(job, RS_JOB_HEADER, 0), RS_OK);
    cr_assert_eq(rs_job_set_output(job, collect_text, text), RS_OK);
    const char in[] = "https://a.com/a/b\nhttps://a.com/c\n";
    cr_assert_eq(rs_job_run_buffer(job, in, strlen(in), NULL), RS_OK, "%s", rs_job_errmsg(job));
    cr_assert_eq(rs_job_finish(job), RS_OK);
    cr_assert_str_eq(text,
        "https://a.com/a/b\thttps://a.com\t*\tallow\t3\tallow: /a/b\tdisallow\t2\tdisallow: /a\t1\n"
        "https://a.com/a/b\thttps://a.com\tGooglebot\tallow\t3\tallow: /a/b\tdisallow\t2\tdisallow: /a\t1\n"
        "https://a.com/a/b\thttps://a.com\tbingbot\tallow\t3\tallow: /a/b\tdisallow\t2\tdisallow: /a\t1\n",
        "the default agents: '*', Googlebot, bingbot");
    rs_job_diff_summary sum;
    cr_assert_eq(rs_job_diff_summary_get(job, &sum), RS_OK);
    cr_assert_eq(sum.total[RS_DIFF_COMPARED], 6);
    cr_assert_eq(sum.total[RS_DIFF_NEWLY_DISALLOWED], 3);
    rs_job_free(job);
    rs_sites_free(s);
}

Test(job_diff, any_number_of_agents_and_misuse)
{
    rs_sites *old_s = sites_of(OLD_A, B), *new_s = sites_of(NEW_A, B);
    rs_job *job = rs_job_create(RS_JOB_DIFF);
    cr_assert_eq(rs_job_use_sites(job, old_s), RS_OK);
    cr_assert_eq(rs_job_use_sites_new(job, new_s), RS_OK);
    char name[32];
    for (int i = 0; i < 1000; i++) {
        snprintf(name, sizeof name, "Bot%d", i);
        cr_assert_eq(rs_job_add_agent(job, name), RS_OK, "%s", rs_job_errmsg(job));
    }
    cr_assert_eq(rs_job_add_robots_new(job, "x"), RS_ERR_USAGE, "the new side has the caller's sites");
    cr_assert_eq(rs_job_diff_summary_get(job, &(rs_job_diff_summary){ 0 }), RS_ERR_USAGE, "not finished");
    const char in[] = "https://a.com/a\n";
    cr_assert_eq(rs_job_run_buffer(job, in, strlen(in), NULL), RS_OK, "%s", rs_job_errmsg(job));
    cr_assert_eq(rs_job_finish(job), RS_OK);
    rs_job_diff_summary sum;
    cr_assert_eq(rs_job_diff_summary_get(job, &sum), RS_OK);
    cr_assert_eq(sum.n_agents, 1000);
    cr_assert_eq(sum.total[RS_DIFF_NEWLY_ALLOWED], 1000);
    rs_job_free(job);

    /* a urls job keeps its limit; a new side is a diff job's only */
    job = rs_job_create(RS_JOB_URLS);
    cr_assert_eq(rs_job_use_sites_new(job, new_s), RS_ERR_USAGE);
    for (int i = 0; i < 256; i++) {
        snprintf(name, sizeof name, "Bot%d", i);
        cr_assert_eq(rs_job_add_agent(job, name), RS_OK);
    }
    cr_assert_eq(rs_job_add_agent(job, "one more"), RS_ERR_LIMIT);
    rs_job_free(job);
    rs_sites_free(old_s);
    rs_sites_free(new_s);
}

/* Log hits: one record per (bot, URL) with its hits, at rs_job_finish, naming its first hit's line. */
typedef struct {
    char text[2048];
    unsigned long n;
} hit_rows;

static int on_hit_records(void *user, const rs_job_record *r, size_t n)
{
    hit_rows *h = user;
    for (size_t i = 0; i < n; i++, h->n++) {
        char row[256];
        const rs_str *f = r[i].fields;
        snprintf(row, sizeof row, "%llu %.*s %.*s %.*s>%.*s %.*s\n", (unsigned long long)r[i].input_line,
                 (int)f[2].len, f[2].ptr, (int)f[0].len, f[0].ptr, (int)f[3].len, f[3].ptr, (int)f[6].len, f[6].ptr,
                 (int)f[9].len, f[9].ptr);
        strncat(h->text, row, sizeof h->text - strlen(h->text) - 1);
    }
    return 0;
}

Test(job_diff, log_hits_per_bot_and_url)
{
    rs_sites *old_s = sites_of(OLD_A, B), *new_s = sites_of(NEW_A, B);
    rs_job *job = rs_job_create(RS_JOB_DIFF);
    cr_assert_eq(rs_job_use_sites(job, old_s), RS_OK);
    cr_assert_eq(rs_job_use_sites_new(job, new_s), RS_OK);
    cr_assert_eq(rs_job_set(job, RS_JOB_DIFF_LOGS, 1), RS_OK);
    cr_assert_eq(rs_job_set(job, RS_JOB_WORKERS, 2), RS_OK);
    cr_assert_eq(rs_job_set_string(job, RS_JOB_HOST, "a.com"), RS_OK);
    hit_rows h;
    memset(&h, 0, sizeof h);
    cr_assert_eq(rs_job_set_records(job, on_hit_records, &h), RS_OK);
#define HIT(path, ua) "1.2.3.4 - - [10/Oct/2023:13:55:36 +0000] \"GET " path " HTTP/1.1\" 200 10 \"-\" \"" ua "\"\n"
    static const char G[] = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
    static const char BING[] = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)";
    char logs[4096];
    snprintf(logs, sizeof logs, HIT("/a/1", "%s") HIT("/g/1", "%s") HIT("/a/1", "%s") HIT("/b/1", "%s")
             HIT("/c", "Mozilla/5.0 (Windows NT 10.0)") HIT("/b/1", "%s"), G, G, G, BING, BING);
#undef HIT
    cr_assert_eq(rs_job_run_buffer(job, logs, strlen(logs), "access.log"), RS_OK, "%s", rs_job_errmsg(job));
    cr_assert_eq(h.n, 0, "log records come at rs_job_finish");
    cr_assert_eq(rs_job_finish(job), RS_OK, "%s", rs_job_errmsg(job));
    cr_assert_str_eq(h.text,
                     "1 Googlebot https://a.com/a/1 disallow>allow 2\n"
                     "2 Googlebot https://a.com/g/1 allow>disallow 1\n"
                     "4 bingbot https://a.com/b/1 allow>disallow 2\n");
    rs_job_diff_summary sum;
    cr_assert_eq(rs_job_diff_summary_get(job, &sum), RS_OK);
    cr_assert_eq(sum.total[RS_DIFF_HITS], 5);
    cr_assert_eq(sum.non_bot, 1);
    cr_assert_eq(sum.n_agents, 2);
    cr_assert(sum.agents[0].agent.len == 9 && !memcmp(sum.agents[0].agent.ptr, "Googlebot", 9), "most hits first");
    rs_job_free(job);
    rs_sites_free(old_s);
    rs_sites_free(new_s);
}
