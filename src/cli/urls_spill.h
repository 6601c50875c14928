/*
 * urls_spill.h - `urls --memory-limit`: a bulk run in partitions by origin,
 * each with only its own sites loaded, merged back into input order.
 */
#ifndef RS_CLI_URLS_SPILL_H
#define RS_CLI_URLS_SPILL_H

#include "cli/pipeline.h"

typedef struct {
    uint64_t memory_limit;          /* bytes */
    const char *dir;                /* spill directory ($TMPDIR, else /tmp) */
    uint64_t known_sites;           /* sites the robots sources know (sizes the partitions) */
    int want_tallies;
    unsigned origin_counters;
    int write_header;
    rs_format format;
    const char *const *columns;
    size_t n_columns;
    void *ctx;
    /* A fresh state with the robots sources opened (NULL: failed, message printed). */
    void *(*run_open)(void *ctx);
    void (*run_close)(void *ctx, void *state);
    /* Decides @block, whose line i is input line @line_nos[i]; after line i,
     * ends[2i] and ends[2i+1] hold res->out.len and res->diag.len. */
    rs_status (*process)(void *ctx, void *state, const rs_block *block, const uint64_t *line_nos,
                         pipeline_result *res, size_t *ends);
    /* Counts (and reports) a line too long to be a URL. */
    void (*oversized)(void *ctx, pipeline_result *res, uint64_t line_no, uint64_t len);
} spill_config;

typedef struct {
    uint64_t memory_limit;          /* the budget, bytes */
    unsigned partitions;            /* spill partitions (files) */
    unsigned runs;                  /* groups of partitions run with one set of sites */
    uint64_t spill_bytes;           /* compressed bytes written to spill files */
} spill_stats;

/* Runs one input (a path, or "-" for stdin). @return 0 or 2 (message printed). */
int spill_run(const spill_config *cfg, const char *path, const char *input_name,
              pipeline_totals *tot, spill_stats *st);

#endif /* RS_CLI_URLS_SPILL_H */
