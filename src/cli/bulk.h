/*
 * bulk.h - what the bulk commands (urls, logs, diff) share around the
 * library's pipeline: the robots sources, the pipeline settings that come
 * from the options, the job's results on stdout/stderr, every input in turn.
 */
#ifndef RS_CLI_BULK_H
#define RS_CLI_BULK_H

#include "cli/cli.h"
#include "job/pipeline.h"

/* Opens --robots sources with --semantics. @return 0, or 2 after an error message. */
int cli_sites_open(const struct cli_opts *o, rs_sites **out);
/* cli_sites_open with rs_sites_options (NULL: the defaults). */
int cli_sites_open_opts(const struct cli_opts *o, const rs_sites_options *so, rs_sites **out);
/* Ends a command's use of @sites when the process exits next (see bulk.c). */
void cli_sites_close(rs_sites *sites);
/* The io the bulk commands' jobs write to: records to stdout, diagnostics and progress to stderr. */
rs_job_io *cli_io(void);
/* After a run: writes the records still buffered and prints the job's error, if any.
 * @return @rc, or 2 when there was an error. */
int cli_io_end(int rc);
/* Fills io, jobs, progress, header and format of @cfg from the options. */
void cli_pipeline_defaults(const struct cli_opts *o, pipeline_config *cfg);
/* Runs every input (stdin when none), setting *input_name for messages, then cli_io_end.
 * @return 0, or 2 once one fails (later inputs are not read). */
int cli_run_inputs(pipeline *p, const struct cli_opts *o, const char **input_name);

/* Bulk jobs of the library: records to stdout (through cli_out), diagnostics to stderr,
 * progress per --progress. */
rs_status cli_job_io(rs_job *job, const struct cli_opts *o);
/* Runs every input (stdin when none). @return 0, or 2 after the error (later inputs are
 * not read). */
int cli_job_run_inputs(rs_job *job, const struct cli_opts *o);
/* Prints the job's error (unless it was a write error, already reported). @return 2. */
int cli_job_error(rs_job *job);
/* Writes the job's statistics to @path. @return 0, or -1 after a message. */
int cli_job_stats(rs_job *job, const char *path);

#endif /* RS_CLI_BULK_H */
