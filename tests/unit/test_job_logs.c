/*
 * test_job_logs.c - the logs job of the bulk job API (robotscan.h "Bulk jobs",
 * src/job/logs.c, the crawl-delay pass src/log/delay.c): records as fields
 * through the records callback, delivered by rs_job_finish (crawl-delay needs
 * the whole input) in input order; the same records and statistics with one
 * or two workers and under a 1 MiB memory limit (records and crawl-delay
 * entries spilled); the statistics JSON.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "robotscan.h"

#define UA_GB "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
#define UA_BING "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)"
#define UA_FF "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0"

static char robots_path[64];

static void write_robots(void)
{
    strcpy(robots_path, "/tmp/rs-test-job-logs-XXXXXX");
    const int fd = mkstemp(robots_path);
    cr_assert_geq(fd, 0);
    static const char body[] = "User-agent: *\nDisallow: /private/\nCrawl-delay: 10\n";
    cr_assert_eq(write(fd, body, sizeof body - 1), (ssize_t)(sizeof body - 1));
    close(fd);
}

static void remove_robots(void) { unlink(robots_path); }

/* Every record as "input_line|field|field|...\n". */
typedef struct {
    rs_outbuf text;
    size_t n, calls;
    size_t n_fields;
    uint64_t last_line;
    int out_of_order;
} collected;

static int on_records(void *user, const rs_job_record *r, size_t n)
{
    collected *c = user;
    c->calls++;
    for (size_t i = 0; i < n; i++) {
        char num[32];
        snprintf(num, sizeof num, "%llu", (unsigned long long)r[i].input_line);
        if (r[i].input_line <= c->last_line) c->out_of_order = 1;
        c->last_line = r[i].input_line;
        rs_outbuf_append(&c->text, num, strlen(num));
        for (size_t f = 0; f < c->n_fields; f++) {
            rs_outbuf_append(&c->text, "|", 1);
            rs_outbuf_append(&c->text, r[i].fields[f].ptr, r[i].fields[f].len);
        }
        rs_outbuf_append(&c->text, "\n", 1);
        c->n++;
    }
    return 0;
}

static rs_job *logs_job(collected *c, int workers, int64_t memory_limit)
{
    rs_job *job = rs_job_create(RS_JOB_LOGS);
    cr_assert_not_null(job);
    cr_assert_eq(rs_job_add_robots(job, robots_path), RS_OK, "%s", rs_job_errmsg(job));
    cr_assert_eq(rs_job_set_string(job, RS_JOB_HOST, "a.com"), RS_OK);
    cr_assert_eq(rs_job_set(job, RS_JOB_WORKERS, workers), RS_OK);
    cr_assert_eq(rs_job_set(job, RS_JOB_MEMORY_LIMIT, memory_limit), RS_OK);
    cr_assert_eq(rs_job_set_records(job, on_records, c), RS_OK);
    size_t n = 0;
    const char *const *cols = rs_job_columns(job, &n);
    cr_assert_eq(n, 13);
    cr_assert_str_eq(cols[0], "time");
    cr_assert_str_eq(cols[6], "url");
    cr_assert_str_eq(cols[12], "delay_violation");
    c->n_fields = n;
    return job;
}

static void line(rs_outbuf *b, int sec, const char *path, const char *ua)
{
    char l[512];
    const int n = snprintf(l, sizeof l, "1.2.3.4 - - [17/May/2015:%02d:%02d:%02d +0000] \"GET %s HTTP/1.1\" 200 5 \"-\" \"%s\"\n",
                           sec / 3600 % 24, sec / 60 % 60, sec % 60, path, ua);
    rs_outbuf_append(b, l, (size_t)n);
}

Test(job_logs, records_and_crawl_delay_from_finish, .init = write_robots, .fini = remove_robots)
{
    rs_outbuf log = { 0 };
    line(&log, 36000, "/a", UA_GB);
    line(&log, 36005, "/robots.txt", UA_GB);
    line(&log, 36012, "/b", UA_GB);
    line(&log, 36013, "/page", UA_FF);          /* not a bot */
    line(&log, 36030, "/c", UA_GB);
    line(&log, 36032, "/robots.txt", UA_GB);
    line(&log, 36033, "/private/x", UA_BING);
    collected c = { 0 };
    rs_job *job = logs_job(&c, 1, 0);
    cr_assert_eq(rs_job_run_buffer(job, log.ptr, log.len, "mem.log"), RS_OK, "%s", rs_job_errmsg(job));
    cr_assert_eq(c.n, 0, "records wait for rs_job_finish (crawl-delay needs the whole input)");
    cr_assert_eq(rs_job_finish(job), RS_OK, "%s", rs_job_errmsg(job));
    const char *want =
        "1|2015-05-17T10:00:00Z|1.2.3.4|https://a.com|Googlebot|" UA_GB "|GET|https://a.com/a|200|allow|0||no-match|0\n"
        "2|2015-05-17T10:00:05Z|1.2.3.4|https://a.com|Googlebot|" UA_GB "|GET|https://a.com/robots.txt|200|allow|0||robots-txt|0\n"
        "3|2015-05-17T10:00:12Z|1.2.3.4|https://a.com|Googlebot|" UA_GB "|GET|https://a.com/b|200|allow|0||no-match|1\n"
        "5|2015-05-17T10:00:30Z|1.2.3.4|https://a.com|Googlebot|" UA_GB "|GET|https://a.com/c|200|allow|0||no-match|0\n"
        "6|2015-05-17T10:00:32Z|1.2.3.4|https://a.com|Googlebot|" UA_GB "|GET|https://a.com/robots.txt|200|allow|0||robots-txt|0\n"
        "7|2015-05-17T10:00:33Z|1.2.3.4|https://a.com|bingbot|" UA_BING "|GET|https://a.com/private/x|200|disallow|2|disallow: /private/|matched|0\n";
    cr_assert_eq(c.text.len, strlen(want), "got:\n%.*s", (int)c.text.len, c.text.ptr);
    cr_assert(memcmp(c.text.ptr, want, c.text.len) == 0, "got:\n%.*s", (int)c.text.len, c.text.ptr);
    rs_job_totals t;
    cr_assert_eq(rs_job_totals_get(job, &t), RS_OK);
    cr_assert_eq(t.lines, 7);
    cr_assert_eq(t.records, 6);
    cr_assert_eq(t.verdict[1], 1);
    cr_assert_eq(t.violations, 2, "one disallowed hit, one crawl-delay violation");
    rs_job_free(job);
    rs_outbuf_free(&c.text);
    rs_outbuf_free(&log);
}

/* Stats without the timing. */
static char *stats_of(rs_job *job)
{
    const char *js;
    size_t len;
    cr_assert_eq(rs_job_stats_json(job, &js, &len), RS_OK, "%s", rs_job_errmsg(job));
    json_error_t e;
    json_t *root = json_loadb(js, len, 0, &e);
    cr_assert_not_null(root, "stats JSON: %s", e.text);
    cr_assert_str_eq(json_string_value(json_object_get(root, "command")), "logs");
    cr_assert_eq(json_integer_value(json_object_get(root, "schema_version")), 2);
    cr_assert(json_is_array(json_object_get(root, "bots")));
    json_object_del(root, "seconds");
    char *s = json_dumps(root, JSON_SORT_KEYS);
    json_decref(root);
    return s;
}

/* About 3 MB of log (several 1 MiB blocks): three bots, one a line, hits of each every 6 s
 * and, every 50 lines, a second Googlebot hit in the same second (a crawl-delay violation);
 * every 7th line a disallowed path. */
static void big_log(rs_outbuf *log)
{
    static const char *const UA[] = { UA_GB, UA_BING, UA_FF };
    for (int i = 0; i < 24000; i++) {
        char path[64];
        snprintf(path, sizeof path, i % 7 ? "/pages/%d/index.html" : "/private/%d", i);
        line(log, 2 * i, path, UA[i % 3]);
        if (i % 50 == 0) line(log, 2 * i, "/again", UA_GB);
    }
}

static char *run_big(const rs_outbuf *log, int workers, int64_t limit, collected *c)
{
    rs_job *job = logs_job(c, workers, limit);
    cr_assert_eq(rs_job_run_buffer(job, log->ptr, log->len, "big.log"), RS_OK, "%s", rs_job_errmsg(job));
    cr_assert_eq(rs_job_finish(job), RS_OK, "%s", rs_job_errmsg(job));
    char *stats = stats_of(job);
    rs_job_free(job);
    return stats;
}

Test(job_logs, same_records_with_workers_and_memory_limit, .init = write_robots, .fini = remove_robots, .timeout = 120)
{
    rs_outbuf log = { 0 };
    big_log(&log);
    cr_assert_gt(log.len, (size_t)3 << 20);
    collected base = { 0 };
    char *base_stats = run_big(&log, 1, 0, &base);
    cr_assert_eq(base.out_of_order, 0);
    cr_assert_gt(base.n, 16000);
    cr_assert_gt(base.calls, 0);
    /* the crawl-delay violations are there: the second Googlebot hit of each pair */
    size_t dv = 0;
    for (size_t at = 0; at < base.text.len;) {
        const char *nl = memchr(base.text.ptr + at, '\n', base.text.len - at);
        if (nl[-1] == '1' && nl[-2] == '|') dv++;
        at = (size_t)(nl - base.text.ptr) + 1;
    }
    cr_assert_geq(dv, 480, "crawl-delay violations: %zu", dv);
    static const struct { int workers; int64_t limit; } RUNS[] = { { 2, 0 }, { 1, 1 << 20 }, { 2, 1 << 20 } };
    for (size_t r = 0; r < sizeof RUNS / sizeof RUNS[0]; r++) {
        collected c = { 0 };
        char *stats = run_big(&log, RUNS[r].workers, RUNS[r].limit, &c);
        cr_assert_eq(c.out_of_order, 0, "input order with %d workers", RUNS[r].workers);
        cr_assert_eq(c.n, base.n);
        cr_assert(c.text.len == base.text.len && memcmp(c.text.ptr, base.text.ptr, c.text.len) == 0,
                  "records differ with %d workers, memory limit %lld", RUNS[r].workers, (long long)RUNS[r].limit);
        cr_assert_str_eq(stats, base_stats, "statistics differ with %d workers, memory limit %lld",
                         RUNS[r].workers, (long long)RUNS[r].limit);
        free(stats);
        rs_outbuf_free(&c.text);
    }
    free(base_stats);
    rs_outbuf_free(&base.text);
    rs_outbuf_free(&log);
}

Test(job_logs, only_violations_and_no_records, .init = write_robots, .fini = remove_robots)
{
    rs_outbuf log = { 0 };
    line(&log, 36000, "/a", UA_GB);
    line(&log, 36002, "/b", UA_GB);
    line(&log, 36030, "/private/c", UA_GB);
    line(&log, 36060, "/d", UA_GB);
    collected c = { 0 };
    rs_job *job = logs_job(&c, 1, 0);
    rs_job_free(job);   /* started by rs_job_columns, never run */
    job = logs_job(&c, 1, 0);
    cr_assert_eq(rs_job_set(job, RS_JOB_ONLY, 1), RS_ERR_USAGE, "rs_job_columns started the job: settings are taken");
    rs_job_free(job);
    job = rs_job_create(RS_JOB_LOGS);
    cr_assert_eq(rs_job_add_robots(job, robots_path), RS_OK);
    cr_assert_eq(rs_job_set_string(job, RS_JOB_HOST, "a.com"), RS_OK);
    cr_assert_eq(rs_job_set(job, RS_JOB_ONLY, 1), RS_OK);
    cr_assert_eq(rs_job_set_records(job, on_records, &c), RS_OK);
    c.n_fields = 13;
    cr_assert_eq(rs_job_run_buffer(job, log.ptr, log.len, NULL), RS_OK, "%s", rs_job_errmsg(job));
    cr_assert_eq(rs_job_finish(job), RS_OK, "%s", rs_job_errmsg(job));
    cr_assert_eq(c.n, 2, "the delay violation and the disallowed hit:\n%.*s", (int)c.text.len, c.text.ptr);
    rs_job_free(job);
    rs_outbuf_free(&c.text);

    collected q = { 0 };
    job = rs_job_create(RS_JOB_LOGS);
    cr_assert_eq(rs_job_add_robots(job, robots_path), RS_OK);
    cr_assert_eq(rs_job_set_string(job, RS_JOB_HOST, "a.com"), RS_OK);
    cr_assert_eq(rs_job_set(job, RS_JOB_NO_RECORDS, 1), RS_OK);
    cr_assert_eq(rs_job_set_records(job, on_records, &q), RS_OK);
    cr_assert_eq(rs_job_run_buffer(job, log.ptr, log.len, NULL), RS_OK, "%s", rs_job_errmsg(job));
    cr_assert_eq(rs_job_finish(job), RS_OK, "%s", rs_job_errmsg(job));
    cr_assert_eq(q.n, 0);
    rs_job_totals t;
    rs_job_totals_get(job, &t);
    cr_assert_eq(t.records, 4);
    cr_assert_eq(t.violations, 2);
    rs_job_free(job);
    rs_outbuf_free(&log);
}

Test(job_logs, settings_the_format_needs, .init = write_robots, .fini = remove_robots)
{
    rs_job *job = rs_job_create(RS_JOB_LOGS);
    cr_assert_eq(rs_job_add_robots(job, robots_path), RS_OK);
    /* combined logs do not name the site: the host is needed */
    cr_assert_eq(rs_job_run_buffer(job, "x\n", 2, NULL), RS_ERR_USAGE);
    cr_assert(strstr(rs_job_errmsg(job), "site") != NULL, "%s", rs_job_errmsg(job));
    rs_job_free(job);
    job = rs_job_create(RS_JOB_LOGS);
    cr_assert_eq(rs_job_add_robots(job, robots_path), RS_OK);
    cr_assert_eq(rs_job_set_string(job, RS_JOB_HOST, "a.com"), RS_OK);
    cr_assert_eq(rs_job_set_string(job, RS_JOB_VERIFY, "/nonexistent/mystery.json"), RS_OK);
    cr_assert_eq(rs_job_run_buffer(job, "x\n", 2, NULL), RS_ERR_USAGE);
    cr_assert(strstr(rs_job_errmsg(job), "TOKEN=FILE") != NULL, "%s", rs_job_errmsg(job));
    rs_job_free(job);
}

void rs_alloc_fail_after(unsigned long n);   /* src/common: allocation failure injection */

/* Every allocation of a job's life failing in turn: an error status, never a crash or a leak
 * (under ASan), and the records delivered are whole. */
Test(job_logs, allocation_failures, .init = write_robots, .fini = remove_robots, .timeout = 120)
{
    rs_outbuf log = { 0 };
    line(&log, 36000, "/a", UA_GB);
    line(&log, 36002, "/b", UA_GB);
    line(&log, 36030, "/private/c", UA_BING);
    line(&log, 36031, "/robots.txt", UA_GB);
    int succeeded = 0;
    for (unsigned long n = 1; n < 400 && succeeded < 3; n++) {
        collected c = { .n_fields = 13 };
        rs_alloc_fail_after(n);
        rs_job *job = rs_job_create(RS_JOB_LOGS);
        rs_status st = job ? RS_OK : RS_ERR_NOMEM;
        if (st == RS_OK) st = rs_job_add_robots(job, robots_path);
        if (st == RS_OK) st = rs_job_set_string(job, RS_JOB_HOST, "a.com");
        if (st == RS_OK) st = rs_job_set(job, RS_JOB_MEMORY_LIMIT, 1 << 20);
        if (st == RS_OK) st = rs_job_set_records(job, on_records, &c);
        if (st == RS_OK) st = rs_job_run_buffer(job, log.ptr, log.len, "mem.log");
        if (st == RS_OK) st = rs_job_finish(job);
        const char *js;
        size_t len;
        if (st == RS_OK) st = rs_job_stats_json(job, &js, &len);
        rs_alloc_fail_after(0);
        if (st == RS_OK) {
            cr_assert_eq(c.n, 4, "after %lu allocations: %zu records", n, c.n);
            succeeded++;
        } else {
            cr_assert(c.n == 0 || c.n == 4, "after %lu allocations: %zu records", n, c.n);
        }
        rs_job_free(job);
        rs_outbuf_free(&c.text);
    }
    cr_assert_eq(succeeded, 3, "the sweep reached the end of the job's allocations");
    rs_outbuf_free(&log);
}
