/*
 * partition.c - a urls job when the sites of an input do not fit the memory
 * budget (RS_JOB_MEMORY_LIMIT, default 1 GiB): the input is partitioned by a
 * hash of each URL's host into temporary spill files (src/scan/spill.c:
 * anonymous, so removed whatever ends the process; zstd-compressed), the partitions are run
 * by -j N workers over the job's robots sources with only some partitions'
 * sites loaded at a time, each partition's output goes to a spill file of
 * its own, and the outputs are merged back into input order by line number:
 * the records and diagnostics are the same as without a limit.
 *
 * 1. split (N threads, each compressing its pieces into zstd frames): lines -> P partition
 *    spills (line number, bytes); P is a power of two from 16 to 256, enough
 *    for the sites the robots sources know to fit half the budget / N about
 *    twice per partition; blank and comment lines are only counted; distinct
 *    hosts estimated per partition;
 * 2. run (N workers): each takes the next partition not yet run; when the
 *    hosts of the partitions run since the last eviction and of this one
 *    would not fit half the budget (SPILL_SITE_COST a host), it waits until
 *    no partition runs and evicts: every loaded matcher freed, every
 *    worker's scanner dropped before its next partition. A partition with
 *    more hosts than the budget holds runs alone, in blocks cut where its
 *    distinct hosts would pass it, evicting between them, so it completes
 *    under the budget too. Output per line -> the partition's output spill;
 * 3. merge (calling thread): the output spills by line number -> the job's
 *    records and diagnostics (io.h).
 */
#include "job/partition.h"
#include "common/common.h"
#include "scan/spill.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <time.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#define NPART_MIN 16
#define NPART_MAX 256
/* Text per block in a run: a sixteenth of the budget over the workers, 1 to 32 MiB. A
 * partition's URLs of one site come in one block when the partition fits it (one cold
 * fetch of the site's matcher for all of them, its trie built when they are many): at
 * 1M sites, 40 URLs a site, -j 2, a partition is ~30 MiB, and 32 MiB blocks took ~15%
 * less CPU than 1 MiB ones. Each line costs about twice its text again in the run's
 * arrays (line numbers, ends, the scanner's entries), so the blocks in flight stay
 * under about a quarter of the budget. */
#define RUN_BLOCK_MIN ((size_t)1 << 20)
#define RUN_BLOCK_MAX ((size_t)32 << 20)
#define OVERSIZED_MARK UINT32_MAX

/* ===== Distinct keys (a set of 64-bit hashes) ===== */

typedef struct {
    uint64_t *h;
    size_t mask, n;
} hset;

/* @return 1 when @h was added, 0 when it was there, -1 out of memory. */
static int hset_add(hset *s, uint64_t h)
{
    if (h == 0) h = 1;
    if (s->h == NULL || (s->n + 1) * 2 > s->mask + 1) {
        const size_t cap = s->h ? (s->mask + 1) * 2 : 1024;
        uint64_t *n = rs_calloc(cap, sizeof *n);
        if (n == NULL) return -1;
        for (size_t i = 0; s->h && i <= s->mask; i++) {
            if (!s->h[i]) continue;
            size_t j = (size_t)s->h[i] & (cap - 1);
            while (n[j]) j = (j + 1) & (cap - 1);
            n[j] = s->h[i];
        }
        rs_free(s->h);
        s->h = n;
        s->mask = cap - 1;
    }
    size_t j = (size_t)h & s->mask;
    while (s->h[j]) {
        if (s->h[j] == h) return 0;
        j = (j + 1) & s->mask;
    }
    s->h[j] = h;
    s->n++;
    return 1;
}

static void hset_clear(hset *s)
{
    if (s->h) memset(s->h, 0, (s->mask + 1) * sizeof *s->h);
    s->n = 0;
}

/* ===== Helpers ===== */

static int is_skippable(const char *p, size_t n)
{
    if (n > 0 && p[0] != ' ' && p[0] != '\t' && p[0] != '\r' && p[0] != '#') return 0;
    size_t i = 0;
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r')) i++;
    return i == n || p[i] == '#';
}

uint64_t spill_host_hash(const char *u, size_t len)
{
    size_t i = 0;
    while (i < len && ((unsigned char)u[i] <= 0x20 || (unsigned char)u[i] >= 0x80)) i++;
    u += i;
    len -= i;
    const rs_url_parts parts = rs_url_split(u, len);
    size_t a = parts.authority, e = parts.authority_end;
    if (a < e) {
        /* the host: after any userinfo, before any port (not inside an IPv6 literal) */
        for (size_t k = e; k > a; k--)
            if (u[k - 1] == '@') { a = k; break; }
        int bracket = 0;
        for (size_t k = a; k < e; k++) {
            if (u[k] == '[') bracket = 1;
            else if (u[k] == ']') bracket = 0;
            else if (u[k] == ':' && !bracket) { e = k; break; }
        }
    } else {
        a = 0;  /* no authority: the bytes up to where it would end */
    }
    char low[256];
    size_t n = e - a;
    if (n > sizeof low) n = sizeof low;
    for (size_t j = 0; j < n; j++) {
        const char c = u[a + j];
        low[j] = (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
    }
    return XXH3_64bits(low, n);
}

/* ===== Distinct keys per partition, estimated (HyperLogLog, 1,024 registers: ~3%) ===== */

#define HLL_BITS 10
#define HLL_M (1u << HLL_BITS)

typedef struct {
    uint8_t reg[HLL_M];
    uint64_t n;                 /* the estimate, once counted */
} hll;

static inline void hll_add(hll *c, uint64_t h)
{
    const uint32_t i = (uint32_t)h & (HLL_M - 1);
    /* the rank over bits 10..55: not the register index, not the partition number (top 8) */
    const uint64_t w = (((h >> HLL_BITS) & ((1ull << 46) - 1)) << 18) | (1ull << 17);
    const uint8_t r = (uint8_t)(__builtin_clzll(w) + 1);
    if (r > c->reg[i]) c->reg[i] = r;
}

static uint64_t hll_count(const hll *c)
{
    double sum = 0;
    unsigned zeros = 0;
    for (unsigned i = 0; i < HLL_M; i++) {
        sum += 1.0 / (double)(1ull << c->reg[i]);
        zeros += c->reg[i] == 0;
    }
    const double m = HLL_M, alpha = 0.7213 / (1 + 1.079 / m);
    double e = alpha * m * m / sum;
    if (e <= 2.5 * m && zeros) e = m * log(m / zeros);   /* small counts: linear counting */
    return (uint64_t)(e * 1.05 + 0.5);                   /* on the safe side of the error */
}

typedef struct {
    int np, shift;              /* partitions; a hash's partition is h >> shift */
    int stored;                 /* spills stored as written, not compressed (spill_stored) */
    rs_spill *in[NPART_MAX], *out[NPART_MAX];
    hll keys[NPART_MAX];
    _Atomic uint64_t bytes;     /* bytes written to spill files */
} spill_set;

static void set_free(spill_set *s)
{
    for (int p = 0; p < NPART_MAX; p++) {
        rs_spill_close(s->in[p]);
        rs_spill_close(s->out[p]);
    }
}

/* Writes the output of lines [0, n) of a run block (ends: see spill_config) to @out. */
static rs_status spill_outputs(rs_spill *out, const pipeline_result *res, const uint64_t *line_nos,
                               const size_t *ends, size_t n, char *err, size_t err_cap)
{
    size_t o0 = 0, d0 = 0;
    for (size_t i = 0; i < n; i++) {
        const size_t o1 = ends[2 * i], d1 = ends[2 * i + 1];
        if (o1 != o0 || d1 != d0) {
            const uint32_t ol = (uint32_t)(o1 - o0), dl = (uint32_t)(d1 - d0);
            char head[16];
            memcpy(head, &line_nos[i], 8);
            memcpy(head + 8, &ol, 4);
            memcpy(head + 12, &dl, 4);
            RS_FORWARD(rs_spill_write(out, head, 16, err, err_cap));
            if (ol) RS_FORWARD(rs_spill_write(out, res->out.ptr + o0, ol, err, err_cap));
            if (dl) RS_FORWARD(rs_spill_write(out, res->diag.ptr + d0, dl, err, err_cap));
        }
        o0 = o1;
        d0 = d1;
    }
    return RS_OK;
}

/* ===== Run ===== */

/* What the workers share: the partitions, the robots sources (one rs_sites, which loads
 * sites from several threads at once) and what is loaded in it. Evicting frees every site
 * loaded, so it waits until no worker runs a partition (a barrier); a partition with more
 * hosts than the budget holds runs alone, evicting inside it. */
typedef struct {
    const spill_config *cfg;
    spill_set *s;
    uint64_t cap;               /* host keys the budget holds loaded */
    size_t block;               /* text per block in a run */
    _Atomic int next;           /* the next partition to run */
    _Atomic int stop;           /* a worker failed */
    pthread_mutex_t mu;         /* all below; totals, the first error */
    pthread_cond_t cv;          /* a partition ended, or an eviction did */
    uint64_t held;              /* host keys of the partitions run since the last eviction */
    int active;                 /* workers running a partition */
    int pending;                /* a worker waits to evict: no partition starts */
    int exclusive;              /* a partition runs alone */
    unsigned epoch;             /* evictions so far: a worker's scanner is of one epoch */
    pipeline_totals *tot;
    int rc;
} run_shared;

/* Records the run's first failure on the io (later ones only stop it). */
static void run_fail(run_shared *sh, const char *diag, size_t diag_len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void run_fail(run_shared *sh, const char *diag, size_t diag_len, const char *fmt, ...)
{
    pthread_mutex_lock(&sh->mu);
    if (sh->rc == 0) {
        char msg[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        rs_io_diag(sh->cfg->io, diag, diag_len);
        rs_io_error(sh->cfg->io, RS_ERR_IO, "%s", msg);
        sh->rc = 2;
    }
    atomic_store(&sh->stop, 1);
    pthread_cond_broadcast(&sh->cv);
    pthread_mutex_unlock(&sh->mu);
}

/* A worker's scratch for running partitions. */
typedef struct {
    void *state;
    pipeline_result res;
    rs_outbuf text;
    uint64_t *nos;
    size_t *ends;
    size_t cap;
    hset loaded;                /* per-line mode: host keys loaded since the last eviction */
    unsigned epoch;             /* the eviction epoch of its scanner */
} worker;

/* Frees every loaded site. Under sh->mu, with no other worker running a partition. */
static void evict_locked(run_shared *sh, worker *w)
{
    if (w) {
        sh->cfg->reset(sh->cfg->ctx, w->state);
        hset_clear(&w->loaded);
        w->epoch = sh->epoch + 1;
    }
    sh->cfg->release(sh->cfg->ctx, 1);
    sh->epoch++;
    sh->held = 0;
}

/* Inside a partition run alone (sh->exclusive). */
static void evict(run_shared *sh, worker *w)
{
    pthread_mutex_lock(&sh->mu);
    evict_locked(sh, w);
    pthread_mutex_unlock(&sh->mu);
}

/*
 * Runs partition @p: its lines in blocks through cfg->process, outputs to
 * s->out[p]. With @per_line, blocks end where one more distinct host key
 * would pass the worker's share, and the worker evicts after each of them.
 * @return 0, or 2 after run_fail.
 */
static int run_partition(run_shared *sh, worker *w, int p, int per_line)
{
    const spill_config *cfg = sh->cfg;
    spill_set *s = sh->s;
    pipeline_result *res = &w->res;
    char err[512] = "";
    rs_status st = rs_spill_rewind(s->in[p], err, sizeof err);
    atomic_fetch_add(&s->bytes, rs_spill_bytes(s->in[p]));
    if (st == RS_OK) st = rs_spill_open_ex(cfg->dir, s->stored, &s->out[p], err, sizeof err);
    if (st != RS_OK) {
        run_fail(sh, NULL, 0, "%s", err[0] ? err : rs_status_str(st));
        return 2;
    }
    rs_outbuf *text = &w->text;
    int rc = 0, done = 0;
    while (!done && rc == 0 && !atomic_load_explicit(&sh->stop, memory_order_relaxed)) {
        /* fill a block */
        text->len = 0;
        size_t n = 0;
        uint64_t over_no = 0, over_len = 0;
        int over = 0, full = 0;
        while (text->len < sh->block && !full) {
            char head[12];
            st = rs_spill_read(s->in[p], head, 12);
            if (st == RS_ERR_EOF) { done = 1; break; }
            if (st != RS_OK) goto bad_read;
            uint64_t no;
            uint32_t len;
            memcpy(&no, head, 8);
            memcpy(&len, head + 8, 4);
            if (len == OVERSIZED_MARK) {
                if (rs_spill_read(s->in[p], &over_len, 8) != RS_OK) goto bad_read;
                over_no = no;
                over = 1;
                break;
            }
            if (n == w->cap) {
                w->cap = w->cap ? w->cap * 2 : 4096;
                uint64_t *a = rs_realloc(w->nos, w->cap * sizeof *a);
                if (a) w->nos = a;
                size_t *b = rs_realloc(w->ends, 2 * w->cap * sizeof *b);
                if (b) w->ends = b;
                if (a == NULL || b == NULL) goto nomem;
            }
            const size_t at = text->len;
            if (text->cap < at + len + 1 + 64) {  /* the line, its newline, 64 readable bytes */
                const size_t c = at + len + 65 + sh->block / 8 > sh->block + sh->block / 8
                                     ? at + len + 65 + sh->block / 8 : sh->block + sh->block / 8;
                char *g = rs_realloc(text->ptr, c);
                if (g == NULL) goto nomem;
                text->ptr = g;
                text->cap = c;
            }
            if (len && rs_spill_read(s->in[p], text->ptr + at, len) != RS_OK) goto bad_read;
            text->ptr[at + len] = '\n';
            text->len = at + len + 1;
            w->nos[n++] = no;
            if (per_line) {
                const int added = hset_add(&w->loaded, spill_host_hash(text->ptr + at, len));
                if (added < 0) goto nomem;
                if (added && w->loaded.n >= sh->cap) full = 1;  /* the share is reached: run, evict */
            }
        }
        if (n) {
            rs_block b;
            memset(&b, 0, sizeof b);
            b.ptr = text->ptr;
            b.len = text->len;
            b.first_line = 1;
            b.lines = n;
            res->out.len = res->diag.len = 0;
            st = cfg->process(cfg->ctx, w->state, &b, w->nos, res, w->ends);
            if (st != RS_OK || res->status != RS_OK) {
                run_fail(sh, res->diag.ptr, res->diag.len, "%s",
                         res->errmsg[0] ? res->errmsg : rs_status_str(st));
                rc = 2;
                break;
            }
            st = spill_outputs(s->out[p], res, w->nos, w->ends, n, err, sizeof err);
            res->out.len = res->diag.len = 0;
            if (st != RS_OK) { run_fail(sh, NULL, 0, "%s", err); rc = 2; break; }
            if (full) evict(sh, w);
        }
        if (over) {
            res->out.len = res->diag.len = 0;
            cfg->oversized(cfg->ctx, res, over_no, over_len);
            size_t e[2] = { res->out.len, res->diag.len };
            st = spill_outputs(s->out[p], res, &over_no, e, 1, err, sizeof err);
            res->out.len = res->diag.len = 0;
            if (st != RS_OK) { run_fail(sh, NULL, 0, "%s", err); rc = 2; break; }
        }
    }
    goto out;
nomem:
    run_fail(sh, NULL, 0, "out of memory");
    rc = 2;
    goto out;
bad_read:
    run_fail(sh, NULL, 0, "cannot read back a spill file in %s", cfg->dir);
    rc = 2;
out:
    rs_spill_close(s->in[p]);
    s->in[p] = NULL;
    return rc;
}

typedef struct {
    run_shared *sh;
    int index;
} worker_arg;

/* One worker: partitions from the shared counter until none is left. */
static void *run_worker(void *arg)
{
    run_shared *sh = ((worker_arg *)arg)->sh;
    const int index = ((worker_arg *)arg)->index;
    const spill_config *cfg = sh->cfg;
    worker w;
    memset(&w, 0, sizeof w);
    w.state = cfg->run_open(cfg->ctx, index);
    if (w.state == NULL) {
        run_fail(sh, NULL, 0, "cannot open the robots sources for worker %d", index + 1);
        return NULL;
    }
    int rc = 0;
    if (cfg->want_tallies && (rs_tally_create(cfg->origin_counters, &w.res.origins) != RS_OK
                              || rs_tally_create(1, &w.res.rules) != RS_OK)) {
        run_fail(sh, NULL, 0, "out of memory");
        rc = 2;
    }
    while (rc == 0 && !atomic_load(&sh->stop)) {
        if (__atomic_load_n(&cfg->io->canceled, __ATOMIC_RELAXED)) {
            run_fail(sh, NULL, 0, "canceled");
            break;
        }
        const int p = atomic_fetch_add(&sh->next, 1);
        if (p >= sh->s->np) break;
        const uint64_t k = sh->s->keys[p].n;
        const int alone = k > sh->cap;  /* more hosts than the budget holds: evicting inside it */
        int go = 0;
        pthread_mutex_lock(&sh->mu);
        while (!atomic_load(&sh->stop)) {
            if (!sh->pending && !sh->exclusive && !alone && (sh->held == 0 || sh->held + k <= sh->cap)) {
                sh->held += k;
                sh->active++;
                go = 1;
                break;
            }
            sh->pending = 1;    /* no partition starts until the eviction */
            if (sh->active == 0 && !sh->exclusive) {
                if (sh->held) evict_locked(sh, NULL);
                sh->pending = 0;
                pthread_cond_broadcast(&sh->cv);
                if (alone) {
                    sh->exclusive = 1;
                    sh->active++;
                    go = 1;
                    break;
                }
                continue;
            }
            pthread_cond_wait(&sh->cv, &sh->mu);
        }
        const unsigned epoch = sh->epoch;
        pthread_mutex_unlock(&sh->mu);
        if (!go) break;
        if (w.epoch != epoch) {         /* its scanner refers to evicted sites */
            cfg->reset(cfg->ctx, w.state);
            w.epoch = epoch;
        }
        rc = run_partition(sh, &w, p, alone);
        pthread_mutex_lock(&sh->mu);
        sh->active--;
        if (alone) {
            evict_locked(sh, &w);
            sh->exclusive = 0;
        }
        pthread_cond_broadcast(&sh->cv);
        pthread_mutex_unlock(&sh->mu);
    }
    cfg->run_close(cfg->ctx, w.state);
    if (rc == 0 && !atomic_load(&sh->stop)) {
        pthread_mutex_lock(&sh->mu);
        pipeline_totals *tot = sh->tot;
        pipeline_counts_add(&tot->counts, &w.res.counts);
        if (cfg->want_tallies) {
            if (tot->origins == NULL) {
                tot->origins = w.res.origins;
                tot->rules = w.res.rules;
                w.res.origins = w.res.rules = NULL;
            } else if (rs_tally_merge(tot->origins, w.res.origins) != RS_OK
                       || rs_tally_merge(tot->rules, w.res.rules) != RS_OK) {
                pthread_mutex_unlock(&sh->mu);
                run_fail(sh, NULL, 0, "out of memory");
                pthread_mutex_lock(&sh->mu);
            }
        }
        pthread_mutex_unlock(&sh->mu);
    }
    rs_tally_free(w.res.origins);
    rs_tally_free(w.res.rules);
    rs_outbuf_free(&w.res.out);
    rs_outbuf_free(&w.res.diag);
    rs_outbuf_free(&w.res.scratch_key);
    rs_outbuf_free(&w.res.aux);
    rs_outbuf_free(&w.text);
    rs_free(w.nos);
    rs_free(w.ends);
    rs_free(w.loaded.h);
    return NULL;
}

/* Runs every partition with cfg->jobs workers (the calling thread is the first). @return 0 or 2. */
static int run_all(const spill_config *cfg, spill_set *s, pipeline_totals *tot, spill_stats *stats)
{
    run_shared sh;
    memset(&sh, 0, sizeof sh);
    sh.cfg = cfg;
    sh.s = s;
    sh.tot = tot;
    int jobs = cfg->jobs < 1 ? 1 : cfg->jobs;
    if (jobs > s->np) jobs = s->np;
    sh.cap = cfg->memory_limit / 2 / SPILL_SITE_COST;
    if (sh.cap < 1) sh.cap = 1;
    const uint64_t block = cfg->memory_limit / 16 / (uint64_t)jobs;
    sh.block = block < RUN_BLOCK_MIN ? RUN_BLOCK_MIN : block > RUN_BLOCK_MAX ? RUN_BLOCK_MAX : (size_t)block;
    atomic_init(&sh.next, 0);
    atomic_init(&sh.stop, 0);
    pthread_mutex_init(&sh.mu, NULL);
    pthread_cond_init(&sh.cv, NULL);
    pthread_t th[SPILL_MAX_JOBS];
    worker_arg args[SPILL_MAX_JOBS];
    int started = 0;
    for (int i = 1; i < jobs && i < SPILL_MAX_JOBS; i++) {
        args[i].sh = &sh;
        args[i].index = i;
        if (pthread_create(&th[i], NULL, run_worker, &args[i]) != 0) break;
        started = i;
    }
    args[0].sh = &sh;
    args[0].index = 0;
    run_worker(&args[0]);
    for (int i = 1; i <= started; i++) pthread_join(th[i], NULL);
    cfg->release(cfg->ctx, 0);
    pthread_cond_destroy(&sh.cv);
    pthread_mutex_destroy(&sh.mu);
    stats->workers = (unsigned)(started + 1);
    stats->evictions += sh.epoch;
    return sh.rc;
}

/* ===== Merge ===== */

typedef struct {
    uint64_t no;
    uint32_t ol, dl;
    int live;
} head_rec;

static int next_head(rs_spill *s, head_rec *h)
{
    char b[16];
    const rs_status st = rs_spill_read(s, b, 16);
    if (st == RS_ERR_EOF) { h->live = 0; return 0; }
    if (st != RS_OK) return -1;
    memcpy(&h->no, b, 8);
    memcpy(&h->ol, b + 8, 4);
    memcpy(&h->dl, b + 12, 4);
    h->live = 1;
    return 0;
}

static int merge(const spill_config *cfg, spill_set *s)
{
    head_rec h[NPART_MAX];
    const int np = s->np;
    for (int p = 0; p < np; p++) {
        char err[512] = "";
        if (rs_spill_rewind(s->out[p], err, sizeof err) != RS_OK) {
            rs_io_error(cfg->io, RS_ERR_IO, "%s", err[0] ? err : "out of memory");
            return 2;
        }
        s->bytes += rs_spill_bytes(s->out[p]);
        if (next_head(s->out[p], &h[p]) != 0) goto bad;
    }
    rs_outbuf diag = { 0 };
    for (;;) {
        int best = -1;
        for (int p = 0; p < np; p++)
            if (h[p].live && (best < 0 || h[p].no < h[best].no)) best = p;
        if (best < 0) break;
        rs_outbuf *o = &cfg->io->out;
        if (h[best].ol) {
            char tmp[4096];
            uint32_t left = h[best].ol;
            while (left) {
                const uint32_t c = left < sizeof tmp ? left : (uint32_t)sizeof tmp;
                if (rs_spill_read(s->out[best], tmp, c) != RS_OK || rs_outbuf_append(o, tmp, c) != RS_OK)
                    goto bad_d;
                left -= c;
            }
        }
        if (h[best].dl) {
            diag.len = 0;
            char tmp[4096];
            uint32_t left = h[best].dl;
            while (left) {
                const uint32_t c = left < sizeof tmp ? left : (uint32_t)sizeof tmp;
                if (rs_spill_read(s->out[best], tmp, c) != RS_OK || rs_outbuf_append(&diag, tmp, c) != RS_OK)
                    goto bad_d;
                left -= c;
            }
            if (rs_io_flush(cfg->io, 0) != 0) goto bad_w;   /* as the pipeline: records, then its diagnostics */
            rs_io_diag(cfg->io, diag.ptr, diag.len);
        }
        if (rs_io_flush(cfg->io, 1 << 18) != 0) goto bad_w;
        if (next_head(s->out[best], &h[best]) != 0) goto bad_d;
    }
    rs_outbuf_free(&diag);
    return 0;
bad_w:
    rs_outbuf_free(&diag);
    return 2;                   /* the write failure is on the io */
bad_d:
    rs_outbuf_free(&diag);
bad:
    rs_io_error(cfg->io, RS_ERR_IO, "cannot read back a spill file in %s", cfg->dir);
    return 2;
}

/* ===== Split, run, merge ===== */

static double seconds_between(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/*
 * The split. Its threads each take the reader's next block (under a lock, into a
 * block buffer of their own), stage the block's lines per partition and, in the order
 * the blocks were taken (a ticket), append the staged bytes to the partitions' spills,
 * so every spill holds its lines in input order while the lines are read, hashed and
 * staged on every thread: with -j N, N threads split. A zstd spill's pieces are
 * compressed by the thread that staged them, before it waits for its ticket, each
 * into a frame of its own (rs_spill_frame): the ticket's holder only appends bytes.
 */
struct splitter;

/* One splitting thread: its block buffer, a block's lines staged per partition, its
 * estimates (merged into the set's at the end) and counts. */
typedef struct {
    struct splitter *sp;
    rs_blockbuf *buf;
    rs_outbuf stage[NPART_MAX];
    void *framer;               /* zstd spills: compresses the staged pieces */
    rs_buf framed;              /* zstd spills: the block's frames, partition by partition */
    size_t frame_end[NPART_MAX]; /* where each partition's frame ends in framed */
    hll *keys;                  /* NPART_MAX */
    pipeline_counts counts;
    pthread_t th;
} split_worker;

typedef struct splitter {
    spill_set *s;
    const spill_config *cfg;
    rs_reader *r;
    pthread_mutex_t rmu;        /* the reader */
    pthread_mutex_t mu;         /* the tickets and the first failure */
    pthread_cond_t cv;          /* a block's lines reached the spills, or a failure */
    uint64_t taken, written;    /* blocks taken from the reader; of them, appended to the spills */
    int failed;
    rs_status st, rst;          /* the first failure; the reader's status at the end */
    char err[512];
} splitter;

static void split_fail(splitter *sp, rs_status st, const char *err)
{
    pthread_mutex_lock(&sp->mu);
    if (!sp->failed) {
        __atomic_store_n(&sp->failed, 1, __ATOMIC_RELAXED);   /* read unlocked by split_main */
        sp->st = st;
        snprintf(sp->err, sizeof sp->err, "%s", err && err[0] ? err : rs_status_str(st));
    }
    pthread_cond_broadcast(&sp->cv);
    pthread_mutex_unlock(&sp->mu);
}

/* zstd spills: compresses what @w staged for each partition into a frame (before
 * the ticket: on every splitting thread at once). */
static rs_status frame_block(split_worker *w, char *err, size_t err_cap)
{
    w->framed.len = 0;
    for (int p = 0; p < w->sp->s->np; p++) {
        rs_outbuf *b = &w->stage[p];
        if (b->len) RS_FORWARD(rs_spill_frame(w->framer, b->ptr, b->len, &w->framed, err, err_cap));
        b->len = 0;
        w->frame_end[p] = w->framed.len;
    }
    return RS_OK;
}

/* Appends what @w staged (or framed) to the spills (the caller holds the block's ticket). */
static rs_status commit_block(splitter *sp, split_worker *w, char *err, size_t err_cap)
{
    for (int p = 0; p < sp->s->np; p++) {
        if (!sp->s->stored) {
            const size_t from = p ? w->frame_end[p - 1] : 0;
            if (w->frame_end[p] > from)
                RS_FORWARD(rs_spill_write_frame(sp->s->in[p], w->framed.ptr + from, w->frame_end[p] - from,
                                                err, err_cap));
            continue;
        }
        rs_outbuf *b = &w->stage[p];
        if (b->len == 0) continue;
        const rs_status st = rs_spill_write(sp->s->in[p], b->ptr, b->len, err, err_cap);
        b->len = 0;
        RS_FORWARD(st);
    }
    return RS_OK;
}

static rs_status stage(rs_outbuf *o, const void *a, size_t na, const void *b, size_t nb)
{
    RS_FORWARD(rs_outbuf_append(o, a, na));
    return nb ? rs_outbuf_append(o, b, nb) : RS_OK;
}

/* Stages line @ln of the input for its partition. @return RS_OK or RS_ERR_NOMEM. */
static rs_status split_line(split_worker *w, const rs_line *ln)
{
    const spill_set *s = w->sp->s;
    if (ln->oversized) {
        char rec[20];
        const uint32_t mark = OVERSIZED_MARK;
        memcpy(rec, &ln->number, 8);
        memcpy(rec + 8, &mark, 4);
        memcpy(rec + 12, &ln->oversized, 8);
        return stage(&w->stage[0], rec, 20, NULL, 0);
    }
    if (is_skippable(ln->text.ptr, ln->text.len)) {
        w->counts.lines++;
        w->counts.blank++;
        return RS_OK;
    }
    const uint64_t h = spill_host_hash(ln->text.ptr, ln->text.len);
    const int p = (int)(h >> s->shift);
    hll_add(&w->keys[p], h);
    char rec[12];
    const uint32_t len = (uint32_t)ln->text.len;
    memcpy(rec, &ln->number, 8);
    memcpy(rec + 8, &len, 4);
    return stage(&w->stage[p], rec, 12, ln->text.ptr, len);
}

static rs_status split_block(split_worker *w, const rs_block *b)
{
    rs_lines it;
    rs_line ln;
    rs_lines_init(&it, b);
    while (rs_line_next(&it, &ln)) RS_FORWARD(split_line(w, &ln));
    return RS_OK;
}

/* Stages @b's lines, then frames them for zstd spills (no ticket needed). */
static rs_status prepare_block(split_worker *w, const rs_block *b, char *err, size_t err_cap)
{
    RS_FORWARD(split_block(w, b));
    return w->sp->s->stored ? RS_OK : frame_block(w, err, err_cap);
}

/* A splitting thread: blocks from the reader until its end or a failure. */
static void *split_main(void *arg)
{
    split_worker *w = arg;
    splitter *sp = w->sp;
    char err[512] = "";
    for (;;) {
        if (__atomic_load_n(&sp->failed, __ATOMIC_RELAXED)) break;
        if (__atomic_load_n(&sp->cfg->io->canceled, __ATOMIC_RELAXED)) {
            split_fail(sp, RS_ERR_CANCELED, "canceled");
            break;
        }
        rs_block b;
        pthread_mutex_lock(&sp->rmu);
        const rs_status rst = rs_reader_next_block_into(sp->r, w->buf, &b);
        pthread_mutex_lock(&sp->mu);
        const uint64_t ticket = sp->taken;
        if (rst == RS_OK) sp->taken++;
        else sp->rst = rst;     /* sticky: every thread sees it next */
        pthread_mutex_unlock(&sp->mu);
        pthread_mutex_unlock(&sp->rmu);
        if (rst != RS_OK) break;
        rs_status st = prepare_block(w, &b, err, sizeof err);
        pthread_mutex_lock(&sp->mu);
        while (sp->written != ticket && !sp->failed) pthread_cond_wait(&sp->cv, &sp->mu);
        const int failed = sp->failed;
        pthread_mutex_unlock(&sp->mu);
        if (failed) break;
        if (st == RS_OK) st = commit_block(sp, w, err, sizeof err);
        if (st != RS_OK) {
            split_fail(sp, st, err);
            break;
        }
        pthread_mutex_lock(&sp->mu);
        sp->written++;
        pthread_cond_broadcast(&sp->cv);
        pthread_mutex_unlock(&sp->mu);
    }
    return NULL;
}

static void split_worker_free(split_worker *w)
{
    for (int p = 0; p < NPART_MAX; p++) rs_outbuf_free(&w->stage[p]);
    rs_buf_free(&w->framed);
    rs_spill_framer_free(w->framer);
    rs_free(w->keys);
    rs_blockbuf_free(w->buf);
}

/*
 * Splits @pending (may be NULL) then the rest of @r into the spills of @s, with
 * @jobs threads (the calling thread is one), adding its blank lines to @counts and
 * its hosts to s->keys. @return RS_OK; the reader's failure in *rst (RS_ERR_EOF: none).
 */
static rs_status split_all(const spill_config *cfg, spill_set *s, rs_reader *r, const rs_block *pending,
                           int jobs, pipeline_counts *counts, rs_status *rst, char *err, size_t err_cap)
{
    splitter sp;
    memset(&sp, 0, sizeof sp);
    sp.s = s;
    sp.cfg = cfg;
    sp.r = r;
    sp.rst = RS_ERR_EOF;
    pthread_mutex_init(&sp.rmu, NULL);
    pthread_mutex_init(&sp.mu, NULL);
    pthread_cond_init(&sp.cv, NULL);
    const int nw = jobs < SPILL_MAX_JOBS ? jobs : SPILL_MAX_JOBS;
    split_worker *w = rs_calloc((size_t)nw, sizeof *w);
    rs_status st = w ? RS_OK : RS_ERR_NOMEM;
    int made = 0;
    for (; st == RS_OK && made < nw; made++) {
        w[made].sp = &sp;
        w[made].keys = rs_calloc(NPART_MAX, sizeof *w[made].keys);
        if (w[made].keys == NULL || rs_blockbuf_create(r, &w[made].buf) != RS_OK) st = RS_ERR_NOMEM;
        if (st == RS_OK && !s->stored && (w[made].framer = rs_spill_framer()) == NULL) st = RS_ERR_NOMEM;
    }
    /* the refused block first (no other thread runs yet), then the rest of the input */
    if (st == RS_OK && pending) {
        st = prepare_block(&w[0], pending, err, err_cap);
        if (st == RS_OK) st = commit_block(&sp, &w[0], err, err_cap);
    }
    int started = 1;
    if (st == RS_OK) {
        for (; started < nw; started++)
            if (pthread_create(&w[started].th, NULL, split_main, &w[started]) != 0) break;
        split_main(&w[0]);
        for (int i = 1; i < started; i++) pthread_join(w[i].th, NULL);
        if (sp.failed) {
            st = sp.st;
            snprintf(err, err_cap, "%s", sp.err);
        }
    }
    for (int i = 0; w && i < made; i++) {
        for (int p = 0; w[i].keys && p < s->np; p++)
            for (unsigned k = 0; k < HLL_M; k++)
                if (w[i].keys[p].reg[k] > s->keys[p].reg[k]) s->keys[p].reg[k] = w[i].keys[p].reg[k];
        pipeline_counts_add(counts, &w[i].counts);
        split_worker_free(&w[i]);
    }
    rs_free(w);
    *rst = sp.rst;
    pthread_cond_destroy(&sp.cv);
    pthread_mutex_destroy(&sp.mu);
    pthread_mutex_destroy(&sp.rmu);
    return st;
}

/*
 * Whether the spills are stored uncompressed: only when RS_SPILL=stored asks
 * (benchmarks and tests). SPEC 7 spills zstd-compressed; with the split's
 * frames compressed on every thread, zstd -5 costs the 1M-site job ~5 of its
 * ~36 CPU-seconds and writes 1.5 GB where stored spills write 2.4 GB
 * (bench/RESULTS.md).
 */
static int spill_stored(void)
{
    const char *env = getenv("RS_SPILL");
    return env != NULL && strcmp(env, "stored") == 0;
}

int spill_run(const spill_config *cfg, rs_reader *r, const rs_block *pending, pipeline_totals *tot,
              spill_stats *stats)
{
    spill_set s;
    memset(&s, 0, sizeof s);
    atomic_init(&s.bytes, 0);
    char err[512] = "";
    /* enough partitions for the sites the sources know to fit a worker's share about twice */
    const uint64_t jobs = cfg->jobs < 1 ? 1 : (uint64_t)cfg->jobs;
    const uint64_t share = cfg->memory_limit / 2 / jobs;
    s.np = NPART_MIN;
    s.shift = 60;
    while (s.np < NPART_MAX && 2 * cfg->known_sites * SPILL_SITE_COST > (uint64_t)s.np * share) {
        s.np *= 2;
        s.shift--;
    }
    const int np = s.np;
    s.stored = spill_stored();
    stats->stored = s.stored;
    for (int p = 0; p < np; p++) {
        if (rs_spill_open_ex(cfg->dir, s.stored, &s.in[p], err, sizeof err) != RS_OK) {
            rs_io_error(cfg->io, RS_ERR_IO, "%s", err[0] ? err : "out of memory");
            set_free(&s);
            return 2;
        }
    }

    /* 1. split */
    pipeline_counts counts;
    memset(&counts, 0, sizeof counts);
    rs_status rst = RS_ERR_EOF;
    int input_failed = 0;
    struct timespec t_split;
    clock_gettime(CLOCK_MONOTONIC, &t_split);
    const rs_status st = split_all(cfg, &s, r, pending, (int)jobs, &counts, &rst, err, sizeof err);
    if (st == RS_OK && rst != RS_ERR_EOF) input_failed = 1;
    rs_reader_stats rs;
    rs_reader_stats_get(r, &rs);
    tot->bytes_in += rs.bytes_in;
    tot->bytes_out += rs.bytes_out;
    if (st != RS_OK) {
        rs_io_error(cfg->io, RS_ERR_IO, "%s", err[0] ? err : "out of memory");
        set_free(&s);
        return 2;
    }
    pipeline_counts_add(&tot->counts, &counts);
    for (int p = 0; p < np; p++) s.keys[p].n = hll_count(&s.keys[p]);

    /* 2. run, 3. merge */
    stats->partitions += (unsigned)np;
    struct timespec t_run, t_merge, t_end;
    clock_gettime(CLOCK_MONOTONIC, &t_run);
    int rc = run_all(cfg, &s, tot, stats);
    clock_gettime(CLOCK_MONOTONIC, &t_merge);
    if (rc == 0 && cfg->header) rc = cfg->header(cfg->ctx);
    if (rc == 0) rc = merge(cfg, &s);
    clock_gettime(CLOCK_MONOTONIC, &t_end);
    stats->seconds[0] += seconds_between(&t_split, &t_run);
    stats->seconds[1] += seconds_between(&t_run, &t_merge);
    stats->seconds[2] += seconds_between(&t_merge, &t_end);
    stats->spill_bytes += atomic_load(&s.bytes);
    if (rc == 0 && input_failed) {
        rs_io_flush(cfg->io, 0);
        rs_io_error(cfg->io, RS_ERR_CORRUPT, "%s", rs_reader_errmsg(r));
        tot->input_failed = 1;
        rc = 2;
    }
    set_free(&s);
    return rc;
}

/* ===== The gate of an unpartitioned run ===== */

void spill_gate_init(spill_gate *g, uint64_t memory_limit)
{
    memset(g, 0, sizeof *g);
    g->cap = SPILL_GATE_HOSTS(memory_limit);
    if (g->cap < 1) g->cap = 1;
}

int spill_gate_admit(spill_gate *g, const rs_block *b)
{
    if (g->refused) return 1;
    hset *set = g->set;
    if (set == NULL && (set = g->set = rs_calloc(1, sizeof *set)) == NULL) return g->refused = 1;
    /* the block's hosts are counted before it runs: a refused block loads nothing */
    rs_lines it;
    rs_line ln;
    rs_lines_init(&it, b);
    while (rs_line_next(&it, &ln)) {
        if (ln.oversized || is_skippable(ln.text.ptr, ln.text.len)) continue;
        if (hset_add(set, spill_host_hash(ln.text.ptr, ln.text.len)) < 0 || set->n > g->cap) {
            g->refused = 1;
            return 1;
        }
    }
    return 0;
}

void spill_gate_free(spill_gate *g)
{
    hset *set = g->set;
    if (set) rs_free(set->h);
    rs_free(set);
    g->set = NULL;
}
