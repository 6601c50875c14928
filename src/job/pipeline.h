/*
 * pipeline.h - the streaming engine of the bulk commands: reader blocks ->
 * worker threads -> results written strictly in input order.
 *
 * Records, diagnostics, progress and errors go to the job's io (io.h);
 * nothing here prints. A command supplies process(): one block of whole lines in, formatted
 * records, diagnostics and counters out (into a pipeline_result). Each
 * worker thread has its own state (caches, scratch) and its own tallies,
 * merged at the end, so nothing on the hot path takes a lock.
 */
#ifndef RS_JOB_PIPELINE_H
#define RS_JOB_PIPELINE_H

#include "job/io.h"

typedef struct {
    uint64_t lines;        /* lines read, oversized ones included */
    uint64_t blank;        /* blank and comment lines */
    uint64_t urls;         /* records decided */
    uint64_t malformed;    /* lines that are not records */
    uint64_t skipped;      /* records skipped on purpose (--missing skip, filters) */
    uint64_t verdict[2];   /* [0] allow, [1] disallow */
    uint64_t reason[RS_REASON_COUNT];
    uint64_t extra[8];     /* command-specific counters */
} pipeline_counts;

/* Adds @c's counts to @to's. */
void pipeline_counts_add(pipeline_counts *to, const pipeline_counts *c);

typedef struct {
    rs_outbuf out;         /* records, for stdout */
    rs_outbuf diag;        /* lines for stderr (--verbose) */
    rs_outbuf scratch_key; /* free for process() */
    rs_outbuf aux;         /* command-specific per-block data for in_order() */
    pipeline_counts counts;
    rs_tally *origins;     /* this worker's tallies (NULL when not wanted) */
    rs_tally *rules;
    void *user;            /* this worker's command-specific accumulator */
    rs_status status;      /* a fatal failure: stops the run */
    char errmsg[512];
    /* Non-NULL while process() runs on the calling thread (-j 1) for the block that is
     * next to write, with no in_order hook: pipeline_flush may then write the block's
     * records before it ends. Set by the pipeline only. */
    struct pipeline_impl *stream;
} pipeline_result;

typedef struct {
    rs_job_io *io;                  /* where results and errors go */
    int jobs;                       /* worker threads; 1 = all on the calling thread */
    rs_status (*process)(void *ctx, void *state, const rs_block *block, pipeline_result *res);
    void *ctx;
    void *(*state_new)(void);       /* per-worker state (may be NULL) */
    void (*state_free)(void *state);
    unsigned tally_counters_origin; /* counters per origin; 0 = no tallies */
    void *(*user_new)(void);        /* per-worker accumulator (may be NULL) */
    void (*user_free)(void *user);
    /* Called on the main thread for each finished block, in input order, before
     * its records are written; it may take them (consume res->out). */
    rs_status (*in_order)(void *ctx, pipeline_result *res);
    /* Optional, on the calling thread, for each block read before any worker sees it:
     * nonzero stops the run before this block (pipeline_run_input). */
    int (*admit)(void *ctx, const rs_block *block);
    size_t block_size;              /* input block bytes; 0 = the default (1 MiB) */
    int write_header;
    rs_format format;
    const char *const *columns;
    size_t n_columns;
} pipeline_config;

typedef struct {
    pipeline_counts counts;
    rs_tally *origins;              /* merged tallies (NULL when not wanted) */
    rs_tally *rules;
    uint64_t bytes_in, bytes_out;
    int input_failed;               /* the last run ended at a read/decompression error */
} pipeline_totals;

typedef struct pipeline_impl pipeline_impl;
typedef struct {
    pipeline_impl *impl;
} pipeline;

/* Blocks in flight with @jobs workers (one per slot of the ring). */
unsigned pipeline_slots(int jobs);
/* @return 0, or 2 with the error on cfg->io. */
int pipeline_init(pipeline *p, const pipeline_config *cfg);
/* Runs one input ("-" = stdin) to its end. @return 0, or 2 with the error on the io
 * (every record before the failure has been written). */
int pipeline_run(pipeline *p, const char *path);
/* As pipeline_run over @in, but when cfg->admit refuses a block (and @rest is not NULL):
 * every block before it is written, and 3 is returned with the open reader in *rest (the
 * caller frees it) and the refused block in *pending (valid until the next pipeline
 * call). Byte counts of a stopped input are then the caller's (rs_reader_stats_get). */
int pipeline_run_input(pipeline *p, const job_input *in, rs_reader **rest, rs_block *pending);
/* Writes the header row once (when configured). @return 0 or 2. */
int pipeline_write_header(pipeline *p);
/* Totals over every input so far; tallies merged on first call after a run (NULL when
 * that ran out of memory). */
const pipeline_totals *pipeline_totals_get(pipeline *p);
/* The accumulators of each worker (for commands that post-process): count in *n. */
void **pipeline_users(pipeline *p, int *n);
void pipeline_free(pipeline *p);

/* From process(): a diagnostic line for stderr, written in input order. */
void pipeline_diag(pipeline_result *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* From process(): writes the records in res->out so far and empties it, when res->stream
 * is set and the block has no diagnostics yet; else does nothing. Writing a large block's
 * output in pieces of a few hundred KiB keeps the buffer in cache. A block's diagnostics
 * otherwise reach stderr before its records: a command that may add some after a piece
 * went out changes that order (urls.c does not call it with RS_JOB_VERBOSE). A write error
 * is reported here and fails the run when the block ends (later pieces are not written). */
void pipeline_flush(pipeline_result *res);
/* From process(): a fatal failure with its message. */
void pipeline_fail(pipeline_result *res, rs_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* RS_JOB_PIPELINE_H */
