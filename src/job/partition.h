/*
 * partition.h - a urls job past its memory budget: a bulk run in partitions by
 * host, run by -j N workers with only some partitions' sites loaded at a
 * time, merged back into input order.
 */
#ifndef RS_JOB_PARTITION_H
#define RS_JOB_PARTITION_H

#include "job/pipeline.h"

#define SPILL_SITE_COST ((uint64_t)6 << 10)   /* bytes a host costs loaded (matchers, tables): 5.3-5.6 KB
                                                 measured at 100k sites with drop_rules (RSS less blocks;
                                                 bench/RESULTS.md), rounded up */
/* The hosts a run without partitions may load under @limit: three quarters of it,
 * as block_size_for (urls.c) keeps the blocks in flight under a quarter. */
#define SPILL_GATE_HOSTS(limit) ((limit) / 4 * 3 / SPILL_SITE_COST)
#define SPILL_MAX_JOBS 256

typedef struct {
    rs_job_io *io;                  /* where results and errors go */
    uint64_t memory_limit;          /* bytes; half of it for loaded sites (all workers') */
    int jobs;                       /* workers (-j) */
    const char *dir;                /* spill directory ($TMPDIR, else /tmp) */
    uint64_t known_sites;           /* sites the robots sources know (sizes the partitions) */
    int want_tallies;
    unsigned origin_counters;
    void *ctx;
    /* A fresh state for worker @worker (0: the calling thread); NULL: out of memory.
     * Called on the worker. */
    void *(*run_open)(void *ctx, int worker);
    void (*run_close)(void *ctx, void *state);
    /* Drops what a state keeps that refers to loaded sites (its scanner, caches). */
    void (*reset)(void *ctx, void *state);
    /* Frees every site loaded (no worker runs a partition meanwhile); with @reuse, the
     * memory they took stays for the next loads (rs_sites_recycle). */
    void (*release)(void *ctx, int reuse);
    /* Decides @block, whose line i is input line @line_nos[i]; after line i,
     * ends[2i] and ends[2i+1] hold res->out.len and res->diag.len. */
    rs_status (*process)(void *ctx, void *state, const rs_block *block, const uint64_t *line_nos,
                         pipeline_result *res, size_t *ends);
    /* Called once before the merged output (writes the header row). @return 0 or 2. */
    int (*header)(void *ctx);
    /* Counts (and reports) a line too long to be a URL. */
    void (*oversized)(void *ctx, pipeline_result *res, uint64_t line_no, uint64_t len);
} spill_config;

typedef struct {
    uint64_t memory_limit;          /* the budget, bytes */
    unsigned partitions;            /* spill partitions (files) */
    unsigned workers;               /* threads that ran them */
    unsigned evictions;             /* times the loaded sites were released */
    uint64_t switch_line;           /* the first line partitioned (1: from the start) */
    const char *switch_input;       /* its input; NULL: nothing was partitioned */
    double seconds[3];              /* wall time of split, run and merge */
    uint64_t spill_bytes;           /* bytes written to spill files */
    int stored;                     /* the spills were stored uncompressed */
} spill_stats;

/* Runs the rest of an input: @pending (may be NULL) then @r's blocks to its end (the
 * caller frees @r). Counts, tallies and byte counts are added to @tot.
 * @return 0 or 2 (the error on cfg->io). */
int spill_run(const spill_config *cfg, rs_reader *r, const rs_block *pending, pipeline_totals *tot,
              spill_stats *st);

/* The partition key of a URL line: a hash of its host, ASCII lower-cased. */
uint64_t spill_host_hash(const char *url, size_t len);

/*
 * The gate of an unpartitioned run: it counts the distinct hosts of the
 * blocks it admits, and refuses the first block whose hosts would take the
 * sites loaded past SPILL_GATE_HOSTS(@memory_limit) (and every block after it).
 */
typedef struct {
    uint64_t cap;                   /* distinct hosts that fit */
    void *set;
    int refused;
} spill_gate;

void spill_gate_init(spill_gate *g, uint64_t memory_limit);
/* @return 0: run @b as usual; 1: partition it and the rest of the input. */
int spill_gate_admit(spill_gate *g, const rs_block *b);
void spill_gate_free(spill_gate *g);

#endif /* RS_JOB_PARTITION_H */
