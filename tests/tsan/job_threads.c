/*
 * job_threads.c - the bulk job API with worker threads, for the ThreadSanitizer
 * build (make tsan; Criterion's forking runner cannot start under TSan, so the
 * job unit tests' threaded cases are driven here through the public API):
 * urls (plain, partitioned under a 1 MiB limit, canceled from the callback),
 * logs (spilling under 1 MiB) and diff, each with 2 workers, each equal to the
 * same job with 1 worker.
 * Usage: job_threads ROBOTS_DIR URLS_FILE LOG_FILE LOG_HOST OTHER_ROBOTS_DIR
 */
#include "robotscan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    unsigned long long hash, n;
    unsigned long long cancel_at;   /* 0: never */
    rs_job *job;
} sink;

static int on_records(void *user, const rs_job_record *r, size_t n)
{
    sink *s = user;
    for (size_t i = 0; i < n; i++) {
        s->hash = s->hash * 1099511628211ULL ^ r[i].input_line;
        const rs_str *f = r[i].fields;
        for (size_t k = 0; k < 3; k++)
            for (size_t b = 0; b < f[k].len; b++) s->hash = (s->hash ^ (unsigned char)f[k].ptr[b]) * 1099511628211ULL;
        if (++s->n == s->cancel_at) {
            rs_job_cancel(s->job);      /* the rest of this batch is not looked at */
            return 0;
        }
    }
    return 0;
}

static int failures;

static void check(int ok, const char *what)
{
    printf("%s: %s\n", ok ? "ok" : "FAIL", what);
    if (!ok) failures++;
}

/* Runs one job; @return its status (the sink has its records). */
static rs_status run(rs_job_kind kind, int workers, long long limit, const char *robots, const char *robots_new,
                     const char *host, const char *input, sink *s)
{
    rs_job *job = rs_job_create(kind);
    if (job == NULL) return RS_ERR_NOMEM;
    s->job = job;
    rs_status st = rs_job_add_robots(job, robots);
    if (st == RS_OK && robots_new) st = rs_job_add_robots_new(job, robots_new);
    if (st == RS_OK && kind != RS_JOB_LOGS) st = rs_job_add_agent(job, "Googlebot");
    if (st == RS_OK && kind == RS_JOB_URLS) st = rs_job_add_agent(job, "GPTBot");
    if (st == RS_OK && host) st = rs_job_set_string(job, RS_JOB_HOST, host);
    if (st == RS_OK) st = rs_job_set(job, RS_JOB_WORKERS, workers);
    if (st == RS_OK && kind != RS_JOB_DIFF) st = rs_job_set(job, RS_JOB_MEMORY_LIMIT, limit);
    if (st == RS_OK) st = rs_job_set_records(job, on_records, s);
    if (st == RS_OK) st = rs_job_run(job, input);
    if (st == RS_OK) st = rs_job_finish(job);
    if (st != RS_OK && st != RS_ERR_CANCELED) fprintf(stderr, "job: %s\n", rs_job_errmsg(job));
    rs_job_free(job);
    return st;
}

static void same(rs_job_kind kind, long long limit, const char *robots, const char *robots_new, const char *host,
                 const char *input, const char *what)
{
    sink one = { 0 }, two = { 0 };
    const rs_status a = run(kind, 1, limit, robots, robots_new, host, input, &one);
    const rs_status b = run(kind, 2, limit, robots, robots_new, host, input, &two);
    char msg[256];
    snprintf(msg, sizeof msg, "%s: 2 workers = 1 (%llu records)", what, one.n);
    check(a == RS_OK && b == RS_OK && one.n > 0 && one.n == two.n && one.hash == two.hash, msg);
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: job_threads ROBOTS_DIR URLS_FILE LOG_FILE LOG_HOST OTHER_ROBOTS_DIR\n");
        return 2;
    }
    const char *robots = argv[1], *urls = argv[2], *log = argv[3], *host = argv[4], *other = argv[5];
    same(RS_JOB_URLS, 0, robots, NULL, NULL, urls, "urls");
    same(RS_JOB_URLS, 1 << 20, robots, NULL, NULL, urls, "urls, 1 MiB limit (partitions)");
    same(RS_JOB_LOGS, 1 << 20, robots, NULL, host, log, "logs, 1 MiB limit (spill)");
    same(RS_JOB_DIFF, 0, robots, other, NULL, urls, "diff");
    sink c = { .cancel_at = 1000 };
    const rs_status st = run(RS_JOB_URLS, 2, 1 << 20, robots, NULL, NULL, urls, &c);
    check(st == RS_ERR_CANCELED && c.n == 1000,
          "urls, 2 workers, canceled from the callback after 1,000 records: no record after it");
    printf("job_threads: %d failure(s)\n", failures);
    return failures ? 1 : 0;
}
