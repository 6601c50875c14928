/*
 * bulk.c - what the bulk commands (urls, logs) share around the pipeline:
 * opening the robots sources, the pipeline settings that come from the
 * options, and running every input in turn.
 */
#include "cli/pipeline.h"

#include <string.h>
#include <unistd.h>

int cli_sites_open(const struct cli_opts *o, rs_sites **out) { return cli_sites_open_opts(o, NULL, out); }

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

void cli_pipeline_defaults(const struct cli_opts *o, pipeline_config *cfg)
{
    cfg->jobs = o->jobs;
    cfg->progress = o->progress < 0 ? isatty(STDERR_FILENO) : o->progress;
    cfg->write_header = !o->quiet;
    cfg->format = o->format;
}

int cli_run_inputs(pipeline *p, const struct cli_opts *o, const char **input_name)
{
    static char *const STDIN_ONLY[] = { "-" };
    char *const *inputs = o->n_args ? o->args : STDIN_ONLY;
    const int n = o->n_args ? o->n_args : 1;
    if (o->n_args == 0 && isatty(STDIN_FILENO))
        return cli_usage_error(o->command, "no input FILE given and stdin is a terminal: name a "
                                           "file, or pipe one in (- reads stdin)");
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        *input_name = strcmp(inputs[i], "-") ? inputs[i] : "(stdin)";
        rc = pipeline_run(p, inputs[i]);
    }
    return rc;
}
