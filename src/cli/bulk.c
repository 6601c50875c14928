/*
 * bulk.c - what the bulk commands (urls, logs, diff) share around the
 * library's bulk jobs: opening the robots sources, the job's records on
 * stdout and its diagnostics and progress on stderr, every input in turn.
 */
#include "cli/bulk.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ===== Progress on stderr ===== */

static void job_progress(void *user, const rs_job_progress *pr)
{
    (void)user;
    const uint64_t lines = pr->lines, bytes_in = pr->bytes_in, file_size = pr->file_size;
    const double seconds = pr->seconds;
    const int final = pr->final;
    const double rate = seconds > 0 ? (double)lines / seconds : 0;
    char eta[48] = "";
    if (file_size && bytes_in && bytes_in < file_size && seconds > 0)
        snprintf(eta, sizeof eta, ", ETA %.0f s", (double)(file_size - bytes_in) / ((double)bytes_in / seconds));
    fprintf(stderr, "\rrobotscan: %llu lines, %.1f MB read, %.2f M lines/s%s   %s", (unsigned long long)lines,
            (double)bytes_in / 1e6, rate / 1e6, eta, final ? "\n" : "");
    fflush(stderr);
}

#define RS_FORWARD_CLI(e) do { const rs_status st_ = (e); if (st_ != RS_OK) return st_; } while (0)


/* Sanitizer builds free everything, so that the library's teardown stays under test. */
#if defined(__SANITIZE_ADDRESS__)
#define FREE_AT_EXIT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#define FREE_AT_EXIT 1
#endif
#endif
#ifndef FREE_AT_EXIT
#define FREE_AT_EXIT 0
#endif

/*
 * The command is done with @sites and the process exits next. Freeing every
 * loaded site one by one took 0.10-0.15 s of a 100,000-site `urls` run, on
 * one thread after the workers were done (bench/RESULTS.md), and the exit
 * frees it all at once; so a normal build leaves them to it, reachable from
 * here (a leak checker sees no leak). Sites kept past a few are freed.
 */
void cli_sites_close(rs_sites *sites)
{
    static rs_sites *kept[4];
    if (sites == NULL) return;
    if (!FREE_AT_EXIT)
        for (size_t i = 0; i < sizeof kept / sizeof *kept; i++)
            if (kept[i] == NULL) {
                kept[i] = sites;
                return;
            }
    rs_sites_free(sites);
}

void cli_job_close(rs_job *job)
{
    static rs_job *kept[2];
    if (job == NULL) return;
    if (!FREE_AT_EXIT)
        for (size_t i = 0; i < sizeof kept / sizeof *kept; i++)
            if (kept[i] == NULL) {
                kept[i] = job;
                return;
            }
    rs_job_free(job);
}

int cli_sites_open_opts(const struct cli_opts *o, const rs_sites_options *so, rs_sites **out)
{
    rs_sites *sites = NULL;
    const rs_status st = rs_sites_create_opts(o->robots, (size_t)o->n_robots, so, &sites);
    if (st != RS_OK) {
        cli_error("%s", sites ? rs_sites_errmsg(sites) : rs_status_str(st));
        rs_sites_free(sites);
        *out = NULL;
        return 2;
    }
    rs_sites_set_semantics(sites, o->semantics);
    *out = sites;
    return 0;
}

/* ===== Bulk jobs of the library (robotscan.h) ===== */

static int job_write_failed;

static int job_output(void *user, const void *p, size_t n)
{
    (void)user;
    if (cli_out_write(p, n) == 0) return 0;
    job_write_failed = 1;   /* reported by cli_out_write */
    return -1;
}

static void job_diag(void *user, const char *p, size_t n)
{
    (void)user;
    fwrite(p, 1, n, stderr);
}


rs_status cli_job_io(rs_job *job, const struct cli_opts *o)
{
    RS_FORWARD_CLI(rs_job_set_output(job, job_output, NULL));
    RS_FORWARD_CLI(rs_job_set_diag(job, job_diag, NULL));
    const int progress = o->progress < 0 ? isatty(STDERR_FILENO) : o->progress;
    if (progress) RS_FORWARD_CLI(rs_job_set_progress(job, job_progress, NULL));
    return RS_OK;
}

rs_status cli_job_common(rs_job *job, const struct cli_opts *o)
{
    RS_FORWARD_CLI(rs_job_set(job, RS_JOB_WORKERS, o->jobs));
    RS_FORWARD_CLI(rs_job_set(job, RS_JOB_FORMAT, o->format));
    RS_FORWARD_CLI(rs_job_set(job, RS_JOB_INPUT_LINE, o->input_line));
    RS_FORWARD_CLI(rs_job_set(job, RS_JOB_VERBOSE, o->verbose));
    RS_FORWARD_CLI(rs_job_set(job, RS_JOB_NO_RECORDS, o->quiet));
    RS_FORWARD_CLI(rs_job_set(job, RS_JOB_TALLIES, o->stats_path != NULL));
    return cli_job_io(job, o);
}

int cli_job_error(rs_job *job)
{
    if (!job_write_failed) cli_error("%s", rs_job_errmsg(job));
    return 2;
}

int cli_job_run_inputs(rs_job *job, const struct cli_opts *o)
{
    if (o->n_args == 0 && isatty(STDIN_FILENO))
        return cli_usage_error(o->command, "no input FILE given and stdin is a terminal: name a "
                                           "file, or pipe one in (- reads stdin)");
    if (o->n_args == 0) return rs_job_run(job, NULL) == RS_OK ? 0 : cli_job_error(job);
    for (int i = 0; i < o->n_args; i++)
        if (rs_job_run(job, o->args[i]) != RS_OK) return cli_job_error(job);
    return 0;
}

int cli_job_stats(rs_job *job, const char *path)
{
    const char *json;
    size_t len;
    if (rs_job_stats_json(job, &json, &len) != RS_OK) {
        cli_error("%s", rs_job_errmsg(job));
        return -1;
    }
    return cli_write_file(path, json, len, "statistics");
}
