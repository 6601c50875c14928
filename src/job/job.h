/*
 * job.h - the bulk job handle's inside (internal): the settings a user gives
 * (robotscan.h, "Bulk jobs"), the io the engine writes to, and the table of
 * what each kind of job does (urls.c, logs.c).
 */
#ifndef RS_JOB_JOB_H
#define RS_JOB_JOB_H

#include "job/partition.h"

typedef struct rs_job_ops {
    /* Before the first run: the kind's engine from the job's settings. */
    rs_status (*start)(rs_job *job);
    /* One input to its end. */
    rs_status (*run)(rs_job *job, const job_input *in);
    /* After the last run: end-of-job passes and notes. */
    rs_status (*finish)(rs_job *job);
    void (*totals)(rs_job *job, rs_job_totals *out);
    rs_status (*stats)(rs_job *job, rs_outbuf *json);
    void (*free)(rs_job *job);
    /* Optional: 1 when the last run ended at a damaged input (rs_job_input_failed). */
    int (*input_failed)(const rs_job *job);
} rs_job_ops;

#define JOB_MAX_AGENTS 256          /* urls and logs jobs; a diff job takes any number */
#define JOB_MAX_LIST   256
#define JOB_DEFAULT_MEMORY_LIMIT ((uint64_t)1 << 30)

struct rs_job {
    rs_job_kind kind;
    const rs_job_ops *ops;
    void *impl;                     /* the kind's engine (urls.c, logs.c) */
    int started, finished;
    /* settings */
    int workers;
    uint64_t memory_limit;          /* 0: none */
    rs_semantics semantics;
    int semantics_new;              /* diff: the new side's rs_semantics; -1: as semantics */
    int diff_all, diff_rules, diff_logs;
    rs_missing missing;
    int encode_urls, only, header, input_line, verbose, no_records, tallies;
    rs_format format;               /* RS_FORMAT_FIELDS with a records callback */
    char *spill_dir, *log_format, *host, *scheme;
    char *fields[JOB_MAX_LIST];
    size_t n_fields;
    char *verify[JOB_MAX_LIST];
    size_t n_verify;
    char *robots[JOB_MAX_LIST];
    size_t n_robots;
    rs_sites *sites;                /* the user's (rs_job_use_sites) or the job's own */
    int own_sites;
    char *robots_new[JOB_MAX_LIST]; /* diff: the new side's (rs_job_add_robots_new) */
    size_t n_robots_new;
    rs_sites *sites_new;            /* diff: the user's (rs_job_use_sites_new) or the job's own */
    int own_sites_new;
    char **agents;                  /* n_agents of them, room for cap_agents */
    size_t n_agents, cap_agents;
    char *inputs[JOB_MAX_LIST];     /* the paths run, for the statistics */
    size_t n_inputs;
    char **names;                   /* every input's name in messages */
    size_t n_names;
    /* callbacks */
    rs_job_output_fn output;
    rs_job_records_fn records;
    void *output_user;
    rs_job_diag_fn diag;
    void *diag_user;
    rs_job_progress_fn progress;
    void *progress_user;
    /* running */
    rs_job_io io;
    const char *columns[34];        /* with input_line first when asked */
    size_t n_columns;
    rs_job_record *recs;            /* records being delivered (records callback) */
    rs_str *rec_fields;
    size_t recs_cap, rec_fields_cap;
    double t_start, seconds;
    rs_outbuf stats;
    char errmsg[512];
};

extern const rs_job_ops rs_job_urls_ops;
extern const rs_job_ops rs_job_logs_ops;
extern const rs_job_ops rs_job_diff_ops;

/* Sets the column names of the kind's records (input_line first when asked). */
void job_set_columns(rs_job *job, const char *const *names, size_t n);
/* The spill directory: RS_JOB_SPILL_DIR, else $TMPDIR, else /tmp. */
const char *job_spill_dir(const rs_job *job);
double job_now(void);

#endif /* RS_JOB_JOB_H */
