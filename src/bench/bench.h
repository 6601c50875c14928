/*
 * bench.h - the matcher arena's internals (src/bench): workloads, peers,
 * results. The API is the "Matcher arena" block of robotscan.h.
 */
#ifndef RS_BENCH_H
#define RS_BENCH_H

#include "common/common.h"

/* ===== Workloads (workload.c) ===== */

typedef struct {
    char  *path;        /* relative to the workload folder: robots/NNNNN.txt */
    char  *body;        /* the bytes (for the reference and the causes) */
    size_t size;
} bw_file;

typedef struct {
    uint32_t file;      /* bw_file index */
    uint32_t q0, nq;    /* its queries: q[q0 .. q0 + nq) */
} bw_block;             /* one `robots` line and the queries after it */

typedef struct {
    char  *agent;
    char  *url;
    int8_t expect;      /* reference verdict: 1 = disallow */
} bw_query;

typedef struct {
    char     *name;
    char     *dir;      /* absolute folder of the files */
    int       temp;     /* dir is ours to remove */
    uint64_t  seed;
    bw_file  *files;  size_t n_files;
    bw_block *blocks; size_t n_blocks;
    bw_query *q;      size_t n_q;
} bw_workload;

/* Generates workload @name into @dir (created), then loads it into @w.
 * @return RS_OK, RS_ERR_USAGE (unknown name, no data), RS_ERR_IO, RS_ERR_NOMEM; detail in @err. */
rs_status rs_bw_generate(const char *name, const char *data_dir, uint64_t seed, uint64_t queries,
                         const char *dir, bw_workload *w, char *err, size_t err_cap);
/* Loads a saved workload folder (input.txt, expected.txt, robots/). */
rs_status rs_bw_load(const char *dir, bw_workload *w, char *err, size_t err_cap);
void rs_bw_free(bw_workload *w);
/* Removes a folder and what it holds (one level of subfolders), best effort. */
void rs_bw_remove_dir(const char *dir);

/* ===== Peers and results (peer.c, causes.c) ===== */

enum {
    BC_DOLLAR, BC_WILDCARD, BC_PERCENT, BC_GROUP, BC_INDEX, BC_LINES, BC_OTHER, BC_COUNT
};
extern const char *const rs_bench_cause_names[BC_COUNT];

typedef enum {
    BP_OK, BP_PARTIAL, BP_CRASHED, BP_TIMEOUT, BP_GARBAGE, BP_FAILED
} bp_status;

typedef struct {
    bp_status status;
    char      detail[512];       /* what happened, for a failure */
    uint64_t  answered, agreed;
    double    startup_s, parse_s, query_s;
    uint64_t  parse_blocks;      /* blocks timed for parsing */
    uint64_t  timed_queries;     /* queries timed for querying */
    uint64_t  peak_rss;          /* bytes; 0 when unknown */
    uint64_t  cause[BC_COUNT];
    char     *example[BC_COUNT]; /* one disagreement each (rs_malloc'd) */
    uint64_t  unclassified;      /* disagreements past the classification cap (counted in other) */
} bp_result;

/* Runs @command over @w; fills @r (the answers go in @answers: -1 none, 0 allow, 1 disallow). */
void rs_bp_run(const char *command, const bw_workload *w, double timeout, double seconds,
               int8_t *answers, bp_result *r);
/* robotscan in-process over @w (parse and query timed apart). */
void rs_bp_inprocess(const bw_workload *w, double seconds, int8_t *answers, bp_result *r);
/* Counts agreement and classifies each disagreement of @answers into r->cause. */
void rs_bp_check(const bw_workload *w, const int8_t *answers, bp_result *r);

double rs_bench_now(void);

/* ===== The handle (bench.c; report.c reads it) ===== */

#define RS_BENCH_MAX 32

typedef struct {
    char *name;
    char *command;     /* run by /bin/sh -c */
    int   inprocess;   /* robotscan in this process (command unused) */
} bpeer;

struct rs_bench {
    rs_bench_config cfg;
    char *data_dir;
    bw_workload workloads[RS_BENCH_MAX];
    size_t n_workloads;
    bpeer peers[RS_BENCH_MAX];
    size_t n_peers;
    bp_result *results;        /* [workload * n_peers + peer] after rs_bench_run */
    char *missing;             /* built-in peers that cannot run here: "name (package), ..." */
    const char *missing_name[RS_BENCH_MAX];   /* the same, one by one (static strings) */
    const char *missing_why[RS_BENCH_MAX];
    size_t n_missing;
    rs_bench_note_fn note;
    void *note_user;
    char err[1024];
};

const char *rs_bench_status_str(int st);

#endif /* RS_BENCH_H */
