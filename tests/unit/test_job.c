/*
 * test_job.c - the bulk job API (robotscan.h "Bulk jobs", src/job) through its
 * public calls, on a urls job: records identical and in input order whatever
 * the workers; the same records and statistics with a memory limit that
 * forces partitions (and evictions) as without one; spill files never seen in
 * the spill directory; the output callback equals the records callback
 * rendered; RS_JOB_ONLY and RS_JOB_NO_RECORDS; cancellation from a callback
 * (-j 1, -j 2, partitions); errors on the handle; and an allocation failure
 * at every allocation site of a small job (-j 1, -j 2, partitions), each run
 * either complete and correct or failed cleanly with a message.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robotscan.h"
#include "common/fixture.h"

void rs_alloc_fail_after(unsigned long n);     /* src/common: allocation failure injection */
unsigned long rs_alloc_fail_pending(void);

/* ===== Fixture: a directory of robots files and URL lists ===== */

#define NSITES 400

static char robots_dir[300], urls_path[300], small_path[300], spill_dir[300], alloc_path[300], alloc_part_path[300];

static void robots_body(int i, char *body, size_t cap)
{
    switch (i % 10) {
    case 0:
        snprintf(body, cap, "User-agent: Googlebot\nDisallow: /\n\nUser-agent: *\nAllow: /\n");
        break;
    case 1:
        snprintf(body, cap, "User-agent: *\nDisallow:\n");
        break;
    case 2:
        snprintf(body, cap, "User-agent: *\nDisallow: /*.pdf$\nDisallow: /p%d/\nAllow: /p%d/ok\n", i % 7, i % 7);
        break;
    default:
        snprintf(body, cap,
                 "# site %d\nUser-agent: Bingbot\nDisallow: /b\n\nUser-agent: *\nDisallow: /p%d\n"
                 "Allow: /p%d/ok\nDisallow: /s%d?\n",
                 i, i % 7, i % 7, i % 5);
    }
}

/* URL line @i of a list whose first @narrow lines use only the first @few sites. Some
 * lines are blank, comments, not URLs; some hosts no file knows; paths are long, so the
 * inputs span several 4 MiB blocks. */
static void url_line(FILE *f, unsigned i, unsigned narrow, unsigned few)
{
    if (i % 97 == 3) { fputc('\n', f); return; }
    if (i % 101 == 7) { fprintf(f, "# comment %u\n", i); return; }
    if (i % 211 == 11) { fputs("not a url\n", f); return; }   /* one "host" for the gate */
    const unsigned span = i < narrow ? few : NSITES + 20;   /* + hosts without a file */
    const unsigned site = (i * 2654435761u >> 7) % span;
    static const char pad[] = "/abcdefghijklmnopqrstuvwxyz0123456789-segment-of-a-long-path-abcdefghijklmnopqrstuvwxyz"
                              "/ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-segment-of-a-long-path-ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    const int padlen = (int)((i * 7919u) % (sizeof pad - 1));
    fprintf(f, "%s://%s%03u.example.com/%c%u%s%.*s%s\n", i % 9 == 0 ? "http" : "https", i % 13 == 0 ? "S" : "s",
            site, i % 4 == 0 ? 's' : 'p', i % 7, i % 5 == 0 ? "/ok" : "/x", padlen, pad,
            i % 11 == 0 ? ".pdf" : i % 6 == 0 ? "?q=1" : "");
}

static void write_urls(const char *path, unsigned n, unsigned narrow, unsigned few)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s", path);
    for (unsigned i = 0; i < n; i++) url_line(f, i, narrow, few);
    cr_assert_eq(fclose(f), 0);
}

#define NURLS 80000

static void make_fixture(void)
{
    fixture_mkdir("job");
    char body[512], name[64];
    for (int i = 0; i < NSITES; i++) {
        snprintf(name, sizeof name, "robots/s%03d.example.com.txt", i);
        robots_body(i, body, sizeof body);
        write_file(name, body);
    }
    snprintf(robots_dir, sizeof robots_dir, "%s/robots", tmpdir);
    snprintf(urls_path, sizeof urls_path, "%s/urls.txt", tmpdir);
    snprintf(small_path, sizeof small_path, "%s/small.txt", tmpdir);
    snprintf(spill_dir, sizeof spill_dir, "%s/spill", tmpdir);
    snprintf(alloc_path, sizeof alloc_path, "%s/alloc.txt", tmpdir);
    snprintf(alloc_part_path, sizeof alloc_part_path, "%s/alloc_part.txt", tmpdir);
    write_urls(urls_path, NURLS, NURLS / 2, 100);
    write_urls(small_path, 600, 0, 0);
    write_urls(alloc_path, 200, 200, 30);           /* 30 sites */
    write_urls(alloc_part_path, 300, 300, 170);     /* past the gate's 128 hosts at 1 MiB */
    char cmd[400];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", spill_dir);
    cr_assert_eq(system(cmd), 0);
}

static void drop_fixture(void) { remove_tmpdir(); }

/* ===== Collecting records ===== */

typedef struct {
    char *p;
    size_t n, cap;
    size_t records, calls;
    uint64_t last_line;
    int out_of_order;
    size_t n_columns;
    int with_line;                  /* each row starts with its input_line */
    /* cancellation */
    rs_job *job;
    size_t cancel_after;            /* 0: never */
    int canceled;
    size_t after_cancel;            /* callbacks after rs_job_cancel */
    /* a nonzero return */
    size_t refuse_at;               /* 0: never; else the call that returns 1 */
    size_t after_refusal;
    /* the spill directory must stay empty */
    const char *watch_dir;
    size_t dir_entries_seen;
} sink;

static void put(sink *s, const void *p, size_t n)
{
    if (s->n + n > s->cap) {
        s->cap = (s->n + n) * 2 + 4096;
        s->p = realloc(s->p, s->cap);
        cr_assert_not_null(s->p);
    }
    memcpy(s->p + s->n, p, n);
    s->n += n;
}

static void sink_free(sink *s)
{
    free(s->p);
    memset(s, 0, sizeof *s);
}

static size_t dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

/* Common to both callbacks: counts calls; cancels, refuses, watches as asked. @return the
 * callback's result. */
static int on_call(sink *s)
{
    s->calls++;
    if (s->canceled) s->after_cancel++;
    if (s->refuse_at && s->calls > s->refuse_at) s->after_refusal++;
    if (s->watch_dir) s->dir_entries_seen += dir_entries(s->watch_dir);
    return s->refuse_at && s->calls == s->refuse_at;
}

static int on_records(void *user, const rs_job_record *recs, size_t n)
{
    sink *s = user;
    const int rc = on_call(s);
    char buf[RS_FORMAT_VALUE_BOUND(4096)];
    for (size_t i = 0; i < n; i++) {
        if (recs[i].input_line <= s->last_line) s->out_of_order++;
        s->last_line = recs[i].input_line;
        if (s->with_line) {
            const int k = snprintf(buf, sizeof buf, "%llu\t", (unsigned long long)recs[i].input_line);
            put(s, buf, (size_t)k);
        }
        for (size_t c = 0; c < s->n_columns; c++) {
            const rs_str f = recs[i].fields[c];
            cr_assert_leq(f.len, 4096);
            put(s, buf, rs_format_value(buf, sizeof buf, RS_FORMAT_TSV, f.ptr, f.len));
            put(s, c + 1 < s->n_columns ? "\t" : "\n", 1);
        }
    }
    s->records += n;
    if (s->cancel_after && !s->canceled && s->records >= s->cancel_after) {
        rs_job_cancel(s->job);
        s->canceled = 1;
    }
    return rc;
}

static int on_output(void *user, const void *bytes, size_t n)
{
    sink *s = user;
    const int rc = on_call(s);
    put(s, bytes, n);
    for (size_t i = 0; i < n; i++) s->records += ((const char *)bytes)[i] == '\n';
    if (s->cancel_after && !s->canceled && s->records >= s->cancel_after) {
        rs_job_cancel(s->job);
        s->canceled = 1;
    }
    return rc;
}

static void on_diag(void *user, const char *text, size_t n)
{
    put(user, text, n);
}

/* ===== Running a job ===== */

typedef struct {
    int workers;
    int64_t limit;              /* RS_JOB_MEMORY_LIMIT: 0 none */
    int only, no_records, output, header, verbose;
    const char *spill;          /* RS_JOB_SPILL_DIR */
    const char *input;          /* default urls_path */
    rs_sites *sites;            /* rs_job_use_sites instead of robots_dir */
    size_t cancel_after, refuse_at;
    const char *watch_dir;
} job_cfg;

typedef struct {
    rs_status run, finish;
    char errmsg[512];
    rs_job_totals totals;
    char *stats;                /* without "seconds" and the rate (malloc'd) */
    sink out, diag;
} job_result;

static void result_free(job_result *r)
{
    free(r->stats);
    sink_free(&r->out);
    sink_free(&r->diag);
}

static char *stats_stable(const char *json, size_t len)
{
    const char *cut = strstr(json, ",\"seconds\":");
    cr_assert_not_null(cut, "%.*s", (int)len, json);
    return strndup(json, (size_t)(cut - json));
}

static void run_job(const job_cfg *c, job_result *r)
{
    memset(r, 0, sizeof *r);
    rs_job *job = rs_job_create(RS_JOB_URLS);
    cr_assert_not_null(job);
    if (c->sites) cr_assert_eq(rs_job_use_sites(job, c->sites), RS_OK);
    else cr_assert_eq(rs_job_add_robots(job, robots_dir), RS_OK);
    cr_assert_eq(rs_job_add_agent(job, "Googlebot"), RS_OK);
    cr_assert_eq(rs_job_set(job, RS_JOB_WORKERS, c->workers ? c->workers : 1), RS_OK);
    cr_assert_eq(rs_job_set(job, RS_JOB_MEMORY_LIMIT, c->limit), RS_OK, "%s", rs_job_errmsg(job));
    cr_assert_eq(rs_job_set(job, RS_JOB_ONLY, c->only), RS_OK);
    cr_assert_eq(rs_job_set(job, RS_JOB_NO_RECORDS, c->no_records), RS_OK);
    cr_assert_eq(rs_job_set(job, RS_JOB_VERBOSE, c->verbose), RS_OK);
    cr_assert_eq(rs_job_set(job, RS_JOB_HEADER, c->header), RS_OK);
    if (c->spill) cr_assert_eq(rs_job_set_string(job, RS_JOB_SPILL_DIR, c->spill), RS_OK);
    r->out.job = job;
    r->out.cancel_after = c->cancel_after;
    r->out.refuse_at = c->refuse_at;
    r->out.watch_dir = c->watch_dir;
    if (c->output) {
        cr_assert_eq(rs_job_set(job, RS_JOB_FORMAT, RS_FORMAT_TSV), RS_OK);
        cr_assert_eq(rs_job_set_output(job, on_output, &r->out), RS_OK);
    } else {
        cr_assert_eq(rs_job_set_records(job, on_records, &r->out), RS_OK);
    }
    cr_assert_eq(rs_job_set_diag(job, on_diag, &r->diag), RS_OK);
    const char *const *cols = rs_job_columns(job, &r->out.n_columns);
    cr_assert_eq(r->out.n_columns, 7);
    cr_assert_str_eq(cols[0], "url");
    cr_assert_str_eq(cols[6], "reason");
    r->run = rs_job_run(job, c->input ? c->input : urls_path);
    snprintf(r->errmsg, sizeof r->errmsg, "%s", rs_job_errmsg(job));
    if (r->run == RS_OK) {
        r->finish = rs_job_finish(job);
        cr_assert_eq(r->finish, RS_OK, "%s", rs_job_errmsg(job));
        const char *json;
        size_t len;
        cr_assert_eq(rs_job_stats_json(job, &json, &len), RS_OK, "%s", rs_job_errmsg(job));
        r->stats = stats_stable(json, len);
    }
    cr_assert_eq(rs_job_totals_get(job, &r->totals), RS_OK);
    rs_job_free(job);
    r->out.job = NULL;
}

static void assert_same_bytes(const sink *a, const sink *b, const char *what)
{
    const size_t n = a->n < b->n ? a->n : b->n;
    size_t i = 0;
    while (i < n && a->p[i] == b->p[i]) i++;
    if (i == n && a->n == b->n) return;
    const size_t from = i > 60 ? i - 60 : 0;
    cr_assert_fail("%s: %zu bytes vs %zu, first difference at byte %zu:\n...%.120s\nvs\n...%.120s", what, a->n, b->n,
                   i, a->p + from, b->p + from);
}

/* ===== Order, workers, partitions ===== */

Test(job, records_in_input_order_whatever_the_workers, .init = make_fixture, .fini = drop_fixture, .timeout = 240)
{
    job_result r[3];
    const int workers[3] = { 1, 2, 4 };
    for (int k = 0; k < 3; k++) {
        const job_cfg c = { .workers = workers[k], .limit = 0 };
        run_job(&c, &r[k]);
        cr_assert_eq(r[k].run, RS_OK, "-j %d: %s", workers[k], r[k].errmsg);
        cr_assert_eq(r[k].out.out_of_order, 0, "-j %d", workers[k]);
        cr_assert_eq(r[k].totals.partitions, 0);
        cr_assert_eq(r[k].out.records, r[k].totals.records);
    }
    cr_assert_gt(r[0].totals.records, NURLS * 9 / 10);
    cr_assert_gt(r[0].totals.malformed, 100);
    cr_assert_gt(r[0].totals.blank, 1000);
    cr_assert_gt(r[0].totals.verdict[0], 1000);
    cr_assert_gt(r[0].totals.verdict[1], 1000);
    cr_assert_gt(r[0].totals.reason[RS_REASON_NO_ROBOTS], 100);
    cr_assert_gt(r[0].totals.bytes_in, (uint64_t)8 << 20, "the input spans several blocks: %llu bytes", (unsigned long long)r[0].totals.bytes_in);
    cr_assert_gt(r[0].out.calls, 2, "records come in several calls");
    for (int k = 1; k < 3; k++) {
        assert_same_bytes(&r[0].out, &r[k].out, "records");
        cr_assert_str_eq(r[0].stats, r[k].stats);
        cr_assert_eq(r[0].totals.lines, r[k].totals.lines);
    }
    for (int k = 0; k < 3; k++) result_free(&r[k]);
}

/* The same over bodies given from memory (rs_sites_create_empty + rs_sites_add_body). */
Test(job, records_in_input_order_over_sites_from_memory, .init = make_fixture, .fini = drop_fixture, .timeout = 240)
{
    rs_sites *mem = NULL;
    cr_assert_eq(rs_sites_create_empty(&mem), RS_OK);
    char body[512], url[64];
    for (int i = 0; i < NSITES; i++) {
        snprintf(url, sizeof url, "https://s%03d.example.com", i);
        robots_body(i, body, sizeof body);
        cr_assert_eq(rs_sites_add_body(mem, url, strlen(url), i % 50 == 49 ? 503 : 200, body, strlen(body)), RS_OK);
        snprintf(url, sizeof url, "http://s%03d.example.com", i);
        cr_assert_eq(rs_sites_add_body(mem, url, strlen(url), i % 40 == 39 ? 404 : 200, body, strlen(body)), RS_OK);
    }
    job_result r[3];
    const int workers[3] = { 1, 2, 4 };
    for (int k = 0; k < 3; k++) {
        const job_cfg c = { .workers = workers[k], .sites = mem, .limit = 64 << 20 };
        run_job(&c, &r[k]);
        cr_assert_eq(r[k].run, RS_OK, "-j %d: %s", workers[k], r[k].errmsg);
        cr_assert_eq(r[k].out.out_of_order, 0, "-j %d", workers[k]);
        if (k) {
            assert_same_bytes(&r[0].out, &r[k].out, "records");
            cr_assert_str_eq(r[0].stats, r[k].stats);
        }
    }
    cr_assert_gt(r[0].totals.reason[RS_REASON_UNREACHABLE], 10);
    cr_assert_gt(r[0].totals.reason[RS_REASON_UNAVAILABLE], 10);
    for (int k = 0; k < 3; k++) result_free(&r[k]);
    rs_sites_free(mem);
}

static const char *evictions_note(const sink *diag)
{
    const char *p = diag->p ? memmem(diag->p, diag->n, "evictions", 9) : NULL;
    return p;
}

Test(job, partitions_give_the_same_records_and_statistics, .init = make_fixture, .fini = drop_fixture, .timeout = 300)
{
    job_result ref, part[2];
    const job_cfg c0 = { .workers = 1, .limit = 0, .verbose = 1 };
    run_job(&c0, &ref);
    cr_assert_eq(ref.run, RS_OK, "%s", ref.errmsg);
    cr_assert_eq(ref.totals.partitions, 0);
    for (int k = 0; k < 2; k++) {
        /* 1 MiB: the gate holds 128 hosts, the partitions ~85 loaded at once: the second
         * half of the input (400 hosts) is partitioned, with evictions */
        const job_cfg c = { .workers = k + 1, .limit = 1 << 20, .verbose = 1, .spill = spill_dir };
        run_job(&c, &part[k]);
        cr_assert_eq(part[k].run, RS_OK, "-j %d: %s", k + 1, part[k].errmsg);
        cr_assert_gt(part[k].totals.partitions, 0, "-j %d", k + 1);
        cr_assert_eq(part[k].out.out_of_order, 0);
        assert_same_bytes(&ref.out, &part[k].out, "records");
        cr_assert_str_eq(ref.stats, part[k].stats);
        cr_assert_eq(ref.totals.lines, part[k].totals.lines);
        cr_assert_eq(ref.totals.records, part[k].totals.records);
        cr_assert_eq(ref.totals.malformed, part[k].totals.malformed);
        /* "memory limit ... partitioned from FILE:LINE on: P partitions, W workers, E evictions" */
        const char *ev = evictions_note(&part[k].diag);
        cr_assert_not_null(ev, "no partition note: %.*s", (int)part[k].diag.n, part[k].diag.p);
        const char *line = ev;
        while (line > part[k].diag.p && line[-1] != '\n') line--;
        cr_assert_not_null(strstr(line, "partitioned from"), "%.200s", line);
        const char *num = ev - 1;
        while (num > line && num[-1] >= '0' && num[-1] <= '9') num--;
        cr_assert_gt(atoi(num), 0, "no eviction: %.200s", line);
        cr_assert_eq(dir_entries(spill_dir), 0, "spill files left in %s", spill_dir);
    }
    /* the partitions began past the first block (the first half holds 100 hosts) */
    cr_assert_null(strstr(part[0].diag.p, ":1 on:"), "%.*s", (int)part[0].diag.n, part[0].diag.p);
    result_free(&ref);
    for (int k = 0; k < 2; k++) result_free(&part[k]);
}

Test(job, spill_files_never_appear_in_the_spill_directory, .init = make_fixture, .fini = drop_fixture, .timeout = 240)
{
    for (int w = 1; w <= 2; w++) {
        job_result r;
        const job_cfg c = { .workers = w, .limit = 1 << 20, .spill = spill_dir, .watch_dir = spill_dir };
        run_job(&c, &r);
        cr_assert_eq(r.run, RS_OK, "%s", r.errmsg);
        cr_assert_gt(r.totals.partitions, 0);
        cr_assert_gt(r.out.calls, 2);
        cr_assert_eq(r.out.dir_entries_seen, 0, "-j %d: files seen in %s during the job", w, spill_dir);
        cr_assert_eq(dir_entries(spill_dir), 0, "-j %d: files left in %s", w, spill_dir);
        result_free(&r);
    }
}

Test(job, a_spill_directory_that_does_not_exist_fails_the_run, .init = make_fixture, .fini = drop_fixture, .timeout = 120)
{
    char bad[400];
    snprintf(bad, sizeof bad, "%s/no/such/dir", tmpdir);
    job_result r;
    const job_cfg c = { .workers = 2, .limit = 1 << 20, .spill = bad };
    run_job(&c, &r);
    cr_assert_neq(r.run, RS_OK);
    cr_assert_neq(r.errmsg[0], '\0');
    cr_assert_eq(r.out.out_of_order, 0);
    result_free(&r);
}

/* ===== Output forms ===== */

Test(job, output_callback_equals_records_rendered, .init = make_fixture, .fini = drop_fixture, .timeout = 240)
{
    for (int part = 0; part < 2; part++) {
        job_result rec, out, nohead;
        const int64_t limit = part ? 1 << 20 : 0;
        const job_cfg cr = { .workers = 2, .limit = limit };
        const job_cfg co = { .workers = 2, .limit = limit, .output = 1, .header = 1 };
        const job_cfg cn = { .workers = 1, .limit = limit, .output = 1, .header = 0 };
        run_job(&cr, &rec);
        run_job(&co, &out);
        run_job(&cn, &nohead);
        cr_assert_eq(rec.run, RS_OK, "%s", rec.errmsg);
        cr_assert_eq(out.run, RS_OK, "%s", out.errmsg);
        cr_assert_eq(nohead.run, RS_OK, "%s", nohead.errmsg);
        static const char header[] = "url\torigin\tagent\tverdict\tline\trule\treason\n";
        cr_assert_geq(out.out.n, strlen(header));
        cr_assert_eq(memcmp(out.out.p, header, strlen(header)), 0, "%.100s", out.out.p);
        sink with_header = { 0 };
        put(&with_header, header, strlen(header));
        put(&with_header, rec.out.p, rec.out.n);
        assert_same_bytes(&with_header, &out.out, "output vs records");
        assert_same_bytes(&rec.out, &nohead.out, "output without header vs records");
        cr_assert_str_eq(rec.stats, out.stats);
        sink_free(&with_header);
        result_free(&rec);
        result_free(&out);
        result_free(&nohead);
    }
}

static size_t count_lines_with(const sink *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = s->p, *end = s->p + s->n; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (memmem(p, (size_t)(nl - p), needle, strlen(needle))) n++;
        p = nl + 1;
    }
    return n;
}

Test(job, only_and_no_records, .init = make_fixture, .fini = drop_fixture, .timeout = 240)
{
    job_result all, allowed, disallowed, quiet, quiet_out;
    run_job(&(job_cfg){ .workers = 2 }, &all);
    run_job(&(job_cfg){ .workers = 2, .only = 1 }, &allowed);
    run_job(&(job_cfg){ .workers = 1, .only = 2, .limit = 1 << 20 }, &disallowed);
    run_job(&(job_cfg){ .workers = 2, .no_records = 1 }, &quiet);
    run_job(&(job_cfg){ .workers = 1, .no_records = 1, .output = 1, .header = 1 }, &quiet_out);
    cr_assert_eq(all.run | allowed.run | disallowed.run | quiet.run | quiet_out.run, RS_OK);
    cr_assert_eq(allowed.out.records, all.totals.verdict[0]);
    cr_assert_eq(disallowed.out.records, all.totals.verdict[1]);
    cr_assert_eq(count_lines_with(&allowed.out, "\tallow\t"), allowed.out.records);
    cr_assert_eq(count_lines_with(&disallowed.out, "\tdisallow\t"), disallowed.out.records);
    cr_assert_eq(count_lines_with(&all.out, "\tdisallow\t"), disallowed.out.records);
    cr_assert_eq(allowed.out.out_of_order + disallowed.out.out_of_order, 0);
    cr_assert_eq(quiet.out.records, 0);
    cr_assert_eq(quiet.out.calls, 0);
    cr_assert_eq(quiet_out.out.n, 0, "no header either: %.80s", quiet_out.out.p);
    /* totals and statistics count every URL whatever is delivered */
    const job_result *same[4] = { &allowed, &disallowed, &quiet, &quiet_out };
    for (int k = 0; k < 4; k++) {
        cr_assert_eq(same[k]->totals.records, all.totals.records, "%d", k);
        cr_assert_eq(same[k]->totals.verdict[1], all.totals.verdict[1], "%d", k);
        cr_assert_eq(same[k]->totals.lines, all.totals.lines, "%d", k);
        cr_assert_str_eq(same[k]->stats, all.stats, "%d", k);
    }
    result_free(&all);
    result_free(&allowed);
    result_free(&disallowed);
    result_free(&quiet);
    result_free(&quiet_out);
}

/* ===== Cancellation ===== */

static void canceled_after(int workers, int64_t limit, int output)
{
    job_result r;
    const job_cfg c = { .workers = workers, .limit = limit, .cancel_after = 1000, .output = output };
    run_job(&c, &r);
    cr_assert_eq(r.run, RS_ERR_CANCELED, "-j %d limit %lld: %s (%s)", workers, (long long)limit,
                 rs_status_str(r.run), r.errmsg);
    cr_assert_not_null(strstr(r.errmsg, "cancel"), "%s", r.errmsg);
    cr_assert(r.out.canceled);
    cr_assert_eq(r.out.after_cancel, 0, "-j %d limit %lld: %zu calls after rs_job_cancel", workers,
                 (long long)limit, r.out.after_cancel);
    cr_assert_lt(r.out.records, NURLS / 2);
    cr_assert_eq(r.out.out_of_order, 0);
    result_free(&r);
}

Test(job, cancel_from_the_records_callback, .init = make_fixture, .fini = drop_fixture, .timeout = 120)
{
    canceled_after(1, 0, 0);
}

Test(job, cancel_with_two_workers, .init = make_fixture, .fini = drop_fixture, .timeout = 120)
{
    canceled_after(2, 0, 0);
    canceled_after(2, 0, 1);
}

Test(job, cancel_under_partitions, .init = make_fixture, .fini = drop_fixture, .timeout = 120)
{
    canceled_after(1, 1 << 20, 0);
    canceled_after(2, 1 << 20, 0);
    cr_assert_eq(dir_entries(spill_dir), 0);
}

/* A job canceled before its run stops at once, delivers nothing and frees cleanly. */
Test(job, cancel_before_the_run, .init = make_fixture, .fini = drop_fixture)
{
    rs_job *job = rs_job_create(RS_JOB_URLS);
    sink s = { 0 };
    cr_assert_eq(rs_job_add_robots(job, robots_dir), RS_OK);
    cr_assert_eq(rs_job_add_agent(job, "Googlebot"), RS_OK);
    cr_assert_eq(rs_job_set(job, RS_JOB_WORKERS, 2), RS_OK);
    cr_assert_eq(rs_job_set_records(job, on_records, &s), RS_OK);
    rs_job_columns(job, &s.n_columns);
    rs_job_cancel(job);
    cr_assert_eq(rs_job_run(job, urls_path), RS_ERR_CANCELED);
    cr_assert_str_eq(rs_job_errmsg(job), "canceled");
    cr_assert_eq(rs_job_run(job, small_path), RS_ERR_CANCELED, "a canceled job stays canceled");
    cr_assert_eq(s.records, 0);
    rs_job_free(job);
    sink_free(&s);
}

/* ===== Errors on the handle ===== */

Test(job, a_bad_robots_path_is_named)
{
    rs_job *job = rs_job_create(RS_JOB_URLS);
    cr_assert_not_null(job);
    cr_assert_str_eq(rs_job_errmsg(job), "");
    cr_assert_eq(rs_job_add_robots(job, "/nonexistent/robots-dir-xyz"), RS_OK);
    cr_assert_eq(rs_job_add_agent(job, "Googlebot"), RS_OK);
    const rs_status st = rs_job_run_buffer(job, "https://a.com/x\n", 16, "mem");
    cr_assert_neq(st, RS_OK);
    cr_assert_not_null(strstr(rs_job_errmsg(job), "/nonexistent/robots-dir-xyz"), "%s", rs_job_errmsg(job));
    rs_job_free(job);
}

Test(job, a_bad_robots_path_fails_columns_then_the_run)
{
    rs_job *job = rs_job_create(RS_JOB_URLS);
    cr_assert_eq(rs_job_add_robots(job, "/nonexistent/robots-dir-xyz"), RS_OK);
    cr_assert_eq(rs_job_add_agent(job, "Googlebot"), RS_OK);
    size_t n = 99;
    rs_job_columns(job, &n);
    cr_assert_not_null(strstr(rs_job_errmsg(job), "/nonexistent/robots-dir-xyz"), "%s", rs_job_errmsg(job));
    cr_assert_neq(rs_job_run_buffer(job, "https://a.com/x\n", 16, "mem"), RS_OK);
    cr_assert_not_null(strstr(rs_job_errmsg(job), "/nonexistent/robots-dir-xyz"), "%s", rs_job_errmsg(job));
    cr_assert_neq(rs_job_run_buffer(job, "https://a.com/x\n", 16, "mem"), RS_OK, "again");
    rs_job_free(job);
}

Test(job, a_bad_input_path_is_named, .init = make_fixture, .fini = drop_fixture)
{
    rs_job *job = rs_job_create(RS_JOB_URLS);
    cr_assert_eq(rs_job_add_robots(job, robots_dir), RS_OK);
    cr_assert_eq(rs_job_add_agent(job, "Googlebot"), RS_OK);
    cr_assert_eq(rs_job_run(job, "/nonexistent/urls-xyz.txt"), RS_ERR_IO);
    cr_assert_not_null(strstr(rs_job_errmsg(job), "/nonexistent/urls-xyz.txt"), "%s", rs_job_errmsg(job));
    /* a later run still works */
    cr_assert_eq(rs_job_run(job, small_path), RS_OK, "%s", rs_job_errmsg(job));
    cr_assert_str_eq(rs_job_errmsg(job), "");
    rs_job_free(job);
}

Test(job, no_agent_is_a_usage_error)
{
    rs_job *job = rs_job_create(RS_JOB_URLS);
    cr_assert_eq(rs_job_run_buffer(job, "https://a.com/x\n", 16, "mem"), RS_ERR_USAGE);
    cr_assert_not_null(strstr(rs_job_errmsg(job), "agent"), "%s", rs_job_errmsg(job));
    rs_job_free(job);
}

Test(job, settings_after_the_first_run_are_refused, .init = make_fixture, .fini = drop_fixture)
{
    rs_job *job = rs_job_create(RS_JOB_URLS);
    cr_assert_eq(rs_job_add_robots(job, robots_dir), RS_OK);
    cr_assert_eq(rs_job_add_agent(job, "Googlebot"), RS_OK);
    cr_assert_eq(rs_job_set(job, RS_JOB_WORKERS, 0), RS_ERR_USAGE);
    cr_assert_eq(rs_job_set(job, RS_JOB_MEMORY_LIMIT, 1000), RS_ERR_USAGE);
    cr_assert_neq(rs_job_errmsg(job)[0], '\0');
    const char *json;
    size_t len;
    cr_assert_eq(rs_job_stats_json(job, &json, &len), RS_ERR_USAGE, "statistics before finish");
    cr_assert_eq(rs_job_run(job, small_path), RS_OK, "%s", rs_job_errmsg(job));
    cr_assert_eq(rs_job_set(job, RS_JOB_WORKERS, 2), RS_ERR_USAGE);
    cr_assert_not_null(strstr(rs_job_errmsg(job), "before the first run"), "%s", rs_job_errmsg(job));
    cr_assert_eq(rs_job_set(job, RS_JOB_ONLY, 1), RS_ERR_USAGE);
    cr_assert_eq(rs_job_set_string(job, RS_JOB_SPILL_DIR, "/tmp"), RS_ERR_USAGE);
    cr_assert_eq(rs_job_add_robots(job, robots_dir), RS_ERR_USAGE);
    cr_assert_eq(rs_job_add_agent(job, "Bingbot"), RS_ERR_USAGE);
    cr_assert_eq(rs_job_set_records(job, on_records, NULL), RS_ERR_USAGE);
    cr_assert_eq(rs_job_set_output(job, on_output, NULL), RS_ERR_USAGE);
    /* a second input is fine; after finish no more runs */
    cr_assert_eq(rs_job_run(job, small_path), RS_OK, "%s", rs_job_errmsg(job));
    cr_assert_eq(rs_job_finish(job), RS_OK);
    rs_job_totals t;
    cr_assert_eq(rs_job_totals_get(job, &t), RS_OK);
    cr_assert_eq(t.lines, 1200);
    cr_assert_eq(rs_job_run(job, small_path), RS_ERR_USAGE);
    cr_assert_eq(rs_job_stats_json(job, &json, &len), RS_OK);
    rs_job_free(job);
}

/* Totals read between two runs change nothing: the statistics of two inputs are those of
 * a job that did not look in between (the tallies are merged again after each run). */
Test(job, totals_between_runs_keep_the_statistics, .init = make_fixture, .fini = drop_fixture, .timeout = 120)
{
    char *stats[2];
    for (int look = 0; look < 2; look++) {
        rs_job *job = rs_job_create(RS_JOB_URLS);
        cr_assert_eq(rs_job_add_robots(job, robots_dir), RS_OK);
        cr_assert_eq(rs_job_add_agent(job, "Googlebot"), RS_OK);
        cr_assert_eq(rs_job_set(job, RS_JOB_WORKERS, 2), RS_OK);
        cr_assert_eq(rs_job_set(job, RS_JOB_NO_RECORDS, 1), RS_OK);
        cr_assert_eq(rs_job_run(job, alloc_path), RS_OK, "%s", rs_job_errmsg(job));
        rs_job_totals t;
        if (look) {
            cr_assert_eq(rs_job_totals_get(job, &t), RS_OK);
            cr_assert_eq(t.lines, 200);
        }
        cr_assert_eq(rs_job_run(job, small_path), RS_OK, "%s", rs_job_errmsg(job));
        cr_assert_eq(rs_job_finish(job), RS_OK);
        cr_assert_eq(rs_job_totals_get(job, &t), RS_OK);
        cr_assert_eq(t.lines, 800);
        const char *json;
        size_t len;
        cr_assert_eq(rs_job_stats_json(job, &json, &len), RS_OK);
        stats[look] = stats_stable(json, len);
        rs_job_free(job);
    }
    cr_assert_str_eq(stats[1], stats[0]);
    cr_assert_not_null(strstr(stats[0], "s399.example.com"), "the second input's origins are tallied");
    free(stats[0]);
    free(stats[1]);
}

static void refused(int workers, int64_t limit, int output)
{
    job_result r;
    const job_cfg c = { .workers = workers, .limit = limit, .refuse_at = 2, .output = output };
    run_job(&c, &r);
    cr_assert_neq(r.run, RS_OK, "-j %d limit %lld output %d", workers, (long long)limit, output);
    cr_assert_not_null(strstr(r.errmsg, "callback"), "%s", r.errmsg);
    cr_assert_eq(r.out.calls, 2, "-j %d limit %lld output %d: %zu calls", workers, (long long)limit, output,
                 r.out.calls);
    cr_assert_eq(r.out.after_refusal, 0);
    result_free(&r);
}

Test(job, a_nonzero_return_from_the_callback_stops_the_job, .init = make_fixture, .fini = drop_fixture, .timeout = 200)
{
    refused(1, 0, 0);
    refused(1, 0, 1);
    refused(2, 0, 0);
    refused(2, 0, 1);
    refused(1, 1 << 20, 1);
    refused(2, 1 << 20, 0);
    cr_assert_eq(dir_entries(spill_dir), 0);
}

/* ===== Allocation failures ===== */

/* One small job with an allocation failure injected after @fail allocations (0: none),
 * two agents, a robots directory of the job's own, TSV output and statistics into @out.
 * @return its status (RS_ERR_NOMEM when rs_job_create failed). */
static rs_status small_job(unsigned long fail, int workers, int64_t limit, const char *input, sink *out, char *errmsg,
                           size_t cap, unsigned *partitions)
{
    memset(out, 0, sizeof *out);
    errmsg[0] = '\0';
    rs_alloc_fail_after(fail);
    rs_job *job = rs_job_create(RS_JOB_URLS);
    rs_status st = job ? RS_OK : RS_ERR_NOMEM;
    if (st == RS_OK) st = rs_job_add_robots(job, robots_dir);
    if (st == RS_OK) st = rs_job_add_agent(job, "Googlebot");
    if (st == RS_OK) st = rs_job_add_agent(job, "Bingbot");
    if (st == RS_OK) st = rs_job_set(job, RS_JOB_WORKERS, workers);
    if (st == RS_OK) st = rs_job_set(job, RS_JOB_MEMORY_LIMIT, limit);
    if (st == RS_OK) st = rs_job_set_string(job, RS_JOB_SPILL_DIR, spill_dir);
    if (st == RS_OK) st = rs_job_set(job, RS_JOB_FORMAT, RS_FORMAT_TSV);
    if (st == RS_OK) st = rs_job_set_output(job, on_output, out);
    if (st == RS_OK) {
        /* starts the engine: a failure here is on the handle, and the run tries again */
        size_t n_columns;
        rs_job_columns(job, &n_columns);
        if (n_columns != 7) cr_assert_neq(rs_job_errmsg(job)[0], '\0', "failure %lu: columns without a message", fail);
        st = rs_job_run(job, input);
    }
    if (st == RS_OK) st = rs_job_finish(job);
    const char *json;
    size_t len;
    if (st == RS_OK) {
        st = rs_job_stats_json(job, &json, &len);
        if (st == RS_OK) {
            char *s = stats_stable(json, len);
            put(out, "\n", 1);
            put(out, s, strlen(s));
            free(s);
        }
    }
    rs_job_totals t;
    if (job) rs_job_totals_get(job, &t);
    *partitions = job ? t.partitions : 0;
    snprintf(errmsg, cap, "%s", job ? rs_job_errmsg(job) : "rs_job_create: NULL");
    rs_job_free(job);
    return st;
}

static void every_allocation_fails_cleanly(int workers, int64_t limit)
{
    sink ref;
    char err[512];
    unsigned parts;
    const char *input = limit ? alloc_part_path : alloc_path;
    cr_assert_eq(small_job(0, workers, limit, input, &ref, err, sizeof err, &parts), RS_OK, "%s", err);
    rs_alloc_fail_after(0);
    cr_assert_eq(parts > 0, limit > 0, "partitions: %u", parts);
    unsigned long n;
    unsigned failed = 0;
    for (n = 1; n < 200000; n++) {
        sink out;
        const rs_status st = small_job(n, workers, limit, input, &out, err, sizeof err, &parts);
        const unsigned long pending = rs_alloc_fail_pending();
        rs_alloc_fail_after(0);
        if (st == RS_OK) {
            char what[64];
            snprintf(what, sizeof what, "failure %lu, a run that succeeded", n);
            assert_same_bytes(&ref, &out, what);
        } else {
            failed++;
            cr_assert(st == RS_ERR_NOMEM || st == RS_ERR_IO || st == RS_ERR_LIMIT || st == RS_ERR_CORRUPT,
                      "-j %d limit %lld, failure %lu: %s (%s)", workers, (long long)limit, n, rs_status_str(st), err);
            cr_assert_neq(err[0], '\0', "-j %d limit %lld, failure %lu: no message", workers, (long long)limit, n);
        }
        sink_free(&out);
        cr_assert_eq(dir_entries(spill_dir), 0);
        if (pending) {              /* the job made fewer than n allocations */
            cr_assert_eq(st, RS_OK, "%s", err);
            break;
        }
    }
    cr_assert_gt(n, 20, "the job allocates");
    cr_assert_gt(failed, 10);
    cr_log_info("-j %d limit %lld: %lu allocations, %u failed runs", workers, (long long)limit, n - 1, failed);
    sink_free(&ref);
}

Test(job, every_allocation_fails_cleanly_j1, .init = make_fixture, .fini = drop_fixture, .timeout = 600)
{
    every_allocation_fails_cleanly(1, 0);
}

Test(job, every_allocation_fails_cleanly_j2, .init = make_fixture, .fini = drop_fixture, .timeout = 600)
{
    every_allocation_fails_cleanly(2, 0);
}

Test(job, every_allocation_fails_cleanly_partitioned, .init = make_fixture, .fini = drop_fixture, .timeout = 600)
{
    every_allocation_fails_cleanly(2, 1 << 20);
}
