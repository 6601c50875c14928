/*
 * bulk_urls.c - a bulk urls job on the stable API of librobotscan
 * (robotscan.h, "Bulk jobs"): two worker threads, a 64 MiB memory limit
 * (past it the input is partitioned by host into temporary files and merged
 * back in input order), the disallowed records of a URL list delivered as
 * fields to a callback, then the job's totals.
 *
 *   cc -o bulk_urls bulk_urls.c $(pkg-config --cflags --libs robotscan)
 *   ./bulk_urls ROBOTS URLS [AGENT]
 *
 * ROBOTS is a robots.txt file, a directory of HOST[.txt] files or a manifest
 * (as `robotscan urls --robots`); URLS a URL a line (plain, .zst or .gz; - for
 * stdin); AGENT a product token (default Googlebot). Prints the disallowed
 * records as TSV with a header row on stdout, exactly as
 * `robotscan urls --robots ROBOTS --agent AGENT --only disallowed --format tsv URLS`,
 * and the totals on stderr. Exit status: 0, 1 on a failed job, 2 on usage.
 */
#include <robotscan.h>

#include <stdio.h>
#include <string.h>

/* A field as TSV writes it: backslash, tab, CR and LF escaped. */
static void put_tsv(const rs_str *f, FILE *out)
{
    for (size_t i = 0; i < f->len; i++) {
        const char c = f->ptr[i];
        switch (c) {
        case '\\': fputs("\\\\", out); break;
        case '\t': fputs("\\t", out); break;
        case '\r': fputs("\\r", out); break;
        case '\n': fputs("\\n", out); break;
        default: fputc(c, out);
        }
    }
}

typedef struct {
    size_t n_columns;
    FILE *out;
} printer;

/* The records callback: @n records in input order, their fields valid until it returns. */
static int on_records(void *user, const rs_job_record *records, size_t n)
{
    const printer *p = user;
    for (size_t r = 0; r < n; r++) {
        for (size_t c = 0; c < p->n_columns; c++) {
            if (c) fputc('\t', p->out);
            put_tsv(&records[r].fields[c], p->out);
        }
        fputc('\n', p->out);
    }
    return ferror(p->out) ? 1 : 0;   /* nonzero stops the job */
}

/* Diagnostics (the end-of-job note on malformed lines) go to stderr. */
static void on_diag(void *user, const char *text, size_t n)
{
    (void)user;
    fwrite(text, 1, n, stderr);
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: %s ROBOTS URLS [AGENT]\n", argv[0]);
        return 2;
    }
    const char *agent = argc > 3 ? argv[3] : "Googlebot";
    uint64_t limit = 0;
    if (rs_parse_size("64M", &limit) != RS_OK) return 2;

    rs_job *job = rs_job_create(RS_JOB_URLS);
    if (job == NULL) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    printer p = { 0, stdout };
    rs_status st = rs_job_add_robots(job, argv[1]);
    if (st == RS_OK) st = rs_job_add_agent(job, agent);
    if (st == RS_OK) st = rs_job_set(job, RS_JOB_WORKERS, 2);
    if (st == RS_OK) st = rs_job_set(job, RS_JOB_MEMORY_LIMIT, (int64_t)limit);
    if (st == RS_OK) st = rs_job_set(job, RS_JOB_ONLY, 2);              /* disallowed records only */
    if (st == RS_OK) st = rs_job_set_records(job, on_records, &p);
    if (st == RS_OK) st = rs_job_set_diag(job, on_diag, NULL);
    if (st == RS_OK) {
        /* the header row, from the column names (this also loads the robots sources) */
        const char *const *columns = rs_job_columns(job, &p.n_columns);
        for (size_t c = 0; c < p.n_columns; c++) printf("%s%s", c ? "\t" : "", columns[c]);
        putchar('\n');
        st = rs_job_run(job, argv[2]);  /* a path, or "-" for stdin; may be called again */
    }
    if (st == RS_OK) st = rs_job_finish(job);  /* end-of-job note; totals final */
    if (st != RS_OK) {
        fprintf(stderr, "%s: %s (%s)\n", argv[0], rs_job_errmsg(job), rs_status_str(st));
        rs_job_free(job);
        return 1;
    }
    rs_job_totals t;
    rs_job_totals_get(job, &t);
    fprintf(stderr,
            "lines %llu, URLs %llu: allowed %llu, disallowed %llu; malformed %llu; "
            "partitions %u; %.3f s\n",
            (unsigned long long)t.lines, (unsigned long long)t.records, (unsigned long long)t.verdict[0],
            (unsigned long long)t.verdict[1], (unsigned long long)t.malformed, t.partitions, t.seconds);
    rs_job_free(job);
    return fflush(stdout) == 0 ? 0 : 1;
}
