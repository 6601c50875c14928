/*
 * bulk.h - what the bulk commands (urls, logs, diff) share around the
 * library's bulk jobs: the robots sources, the job's results on
 * stdout/stderr, every input in turn.
 */
#ifndef RS_CLI_BULK_H
#define RS_CLI_BULK_H

#include "cli/cli.h"

/* Opens --robots sources with @so (NULL: the defaults) and --semantics. @return 0, or 2
 * after an error message. */
int cli_sites_open_opts(const struct cli_opts *o, const rs_sites_options *so, rs_sites **out);
/* Ends a command's use of @sites when the process exits next (see bulk.c). */
void cli_sites_close(rs_sites *sites);
/* Ends a command's use of a job whose sites it owns, when the process exits next: as
 * cli_sites_close, a normal build leaves the job's memory (and its idle -j worker
 * threads, blocked on the job's condition variable) to the exit; sanitizer builds free it. */
void cli_job_close(rs_job *job);
/* Bulk jobs of the library: records to stdout (through cli_out), diagnostics to stderr,
 * progress per --progress. */
rs_status cli_job_io(rs_job *job, const struct cli_opts *o);
/* The settings urls and logs share: -j, --format, --input-line, --verbose, --quiet, --stats
 * (tallies), then cli_job_io. */
rs_status cli_job_common(rs_job *job, const struct cli_opts *o);
/* Runs every input (stdin when none). @return 0, or 2 after the error (later inputs are
 * not read). */
int cli_job_run_inputs(rs_job *job, const struct cli_opts *o);
/* Prints the job's error (unless it was a write error, already reported). @return 2. */
int cli_job_error(rs_job *job);
/* Writes the job's statistics to @path. @return 0, or -1 after a message. */
int cli_job_stats(rs_job *job, const char *path);

#endif /* RS_CLI_BULK_H */
