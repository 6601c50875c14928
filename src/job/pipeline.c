/*
 * pipeline.c - reader -> workers -> ordered writer (see pipeline.h).
 *
 * A ring of slots, each with its own block buffer and result. The calling
 * thread fills free slots from the reader (head), workers take filled slots
 * in order (take) and mark them done, and the calling thread writes done
 * slots strictly in order (tail): tail <= take <= head <= tail + n_slots.
 */
#include "job/pipeline.h"
#include "common/common.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BLOCK_SIZE ((size_t)1 << 20)

enum { SLOT_FREE, SLOT_FILLED, SLOT_DONE };

typedef struct {
    rs_blockbuf *buf;
    rs_block block;
    pipeline_result res;
    int state;
} slot;

typedef struct {
    void *state;
    rs_tally *origins, *rules;
    void *user;
} worker_ctx;

struct pipeline_impl {
    pipeline_config cfg;
    slot *slots;
    unsigned n_slots;
    worker_ctx *workers;            /* cfg.jobs of them; [0] is the caller's with -j 1 */
    pthread_t *threads;
    int n_threads;
    pthread_mutex_t mu;
    pthread_cond_t work, done;
    uint64_t head, take, tail;
    int stop;
    pipeline_totals totals;
    int merged;
    int header_written;
    int stream_failed;              /* a pipeline_flush write failed */
    double last_progress;
    double started;
};

/* ===== Results ===== */

void pipeline_diag(pipeline_result *res, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n > sizeof line - 2) n = (int)sizeof line - 2;
    line[n++] = '\n';
    rs_outbuf_append(&res->diag, line, (size_t)n);
}

void pipeline_fail(pipeline_result *res, rs_status st, const char *fmt, ...)
{
    if (res->status != RS_OK) return;
    res->status = st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->errmsg, sizeof res->errmsg, fmt, ap);
    va_end(ap);
}

static int write_header(pipeline_impl *p)
{
    if (p->header_written || !p->cfg.write_header) return 0;
    p->header_written = 1;
    return rs_format_header(&p->cfg.io->out, p->cfg.format, p->cfg.columns, p->cfg.n_columns) == RS_OK ? 0 : 2;
}

void pipeline_flush(pipeline_result *res)
{
    pipeline_impl *p = res->stream;
    if (p == NULL || res->diag.len || res->status != RS_OK || res->out.len == 0) return;
    if (write_header(p) != 0 || rs_io_write(p->cfg.io, res->out.ptr, res->out.len) != 0) {
        p->stream_failed = 1;
        res->stream = NULL;
        return;
    }
    res->out.len = 0;
}

static void result_reset(pipeline_result *res, const worker_ctx *w)
{
    res->out.len = 0;
    res->diag.len = 0;
    res->aux.len = 0;
    memset(&res->counts, 0, sizeof res->counts);
    res->status = RS_OK;
    res->errmsg[0] = '\0';
    res->origins = w->origins;
    res->rules = w->rules;
    res->user = w->user;
    res->stream = NULL;
}

static void run_slot(pipeline_impl *p, slot *s, worker_ctx *w)
{
    result_reset(&s->res, w);
    /* -j 1: this block is the next to write (the ring has one slot) */
    if (p->n_threads == 0 && p->cfg.in_order == NULL && !p->stream_failed) s->res.stream = p;
    const rs_status st = p->cfg.process(p->cfg.ctx, w->state, &s->block, &s->res);
    if (st != RS_OK && s->res.status == RS_OK)
        pipeline_fail(&s->res, st, "%s", rs_status_str(st));
}

typedef struct {
    pipeline_impl *p;
    worker_ctx *w;
} thread_arg;

static void *thread_main(void *arg)
{
    thread_arg a = *(thread_arg *)arg;
    rs_free(arg);
    pipeline_impl *p = a.p;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (!p->stop && p->take == p->head) pthread_cond_wait(&p->work, &p->mu);
        if (p->take == p->head) { /* stopping and nothing left */
            pthread_mutex_unlock(&p->mu);
            return NULL;
        }
        slot *s = &p->slots[p->take++ % p->n_slots];
        pthread_mutex_unlock(&p->mu);
        run_slot(p, s, a.w);
        pthread_mutex_lock(&p->mu);
        s->state = SLOT_DONE;
        pthread_cond_broadcast(&p->done);
        pthread_mutex_unlock(&p->mu);
    }
}

/* ===== Setup ===== */

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

unsigned pipeline_slots(int jobs)
{
    return jobs <= 1 ? 1 : (unsigned)(2 * jobs + 2);
}

int pipeline_init(pipeline *pl, const pipeline_config *cfg)
{
    pipeline_impl *p = rs_calloc(1, sizeof *p);
    pl->impl = p;
    if (p == NULL) goto nomem;
    p->cfg = *cfg;
    if (p->cfg.jobs < 1) p->cfg.jobs = 1;
    const int jobs = p->cfg.jobs;
    p->n_slots = pipeline_slots(jobs);
    p->slots = rs_calloc(p->n_slots, sizeof(slot));
    p->workers = rs_calloc((size_t)jobs, sizeof(worker_ctx));
    if (p->slots == NULL || p->workers == NULL) goto nomem;
    for (int i = 0; i < jobs; i++) {
        worker_ctx *w = &p->workers[i];
        if (cfg->state_new && (w->state = cfg->state_new()) == NULL) goto nomem;
        if (cfg->user_new && (w->user = cfg->user_new()) == NULL) goto nomem;
        if (cfg->tally_counters_origin
            && (rs_tally_create(cfg->tally_counters_origin, &w->origins) != RS_OK
                || rs_tally_create(1, &w->rules) != RS_OK))
            goto nomem;
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    if (jobs > 1) {
        p->threads = rs_calloc((size_t)jobs, sizeof(pthread_t));
        if (p->threads == NULL) goto nomem;
        for (int i = 0; i < jobs; i++) {
            thread_arg *a = rs_malloc(sizeof *a);
            if (a == NULL) goto nomem;
            a->p = p;
            a->w = &p->workers[i];
            if (pthread_create(&p->threads[i], NULL, thread_main, a) != 0) {
                rs_free(a);
                rs_io_error(p->cfg.io, RS_ERR_NOMEM, "cannot start worker threads");
                return 2;
            }
            p->n_threads++;
        }
    }
    p->started = now_seconds();
    return 0;
nomem:
    rs_io_error(cfg->io, RS_ERR_NOMEM, "out of memory");
    return 2;
}

/* ===== Running ===== */

#define TAIL_BLOCK_MIN ((size_t)1 << 20)

/*
 * With threads, the block size for the next read near the end of the input
 * ("guided" scheduling): a quarter of what is left per thread, down to
 * TAIL_BLOCK_MIN, so the last blocks are small and the threads finish within
 * one of them of each other, not one full block apart. What is left is known
 * for a regular file (scaled by the ratio so far when compressed); 0 (the
 * size at open) when it is not.
 */
static size_t next_block_size(const pipeline_impl *p, const rs_reader *r)
{
    rs_reader_stats st;
    rs_reader_stats_get(r, &st);
    if (p->n_threads < 2 || st.file_size == 0 || st.bytes_in >= st.file_size) return 0;
    uint64_t left = st.file_size - st.bytes_in;
    if (st.compression != RS_COMPRESSION_NONE) {
        if (st.bytes_in == 0) return 0;    /* no ratio yet */
        left = (uint64_t)((double)left * st.bytes_out / st.bytes_in);
    }
    const uint64_t share = left / (4 * (uint64_t)p->n_threads);
    return share < TAIL_BLOCK_MIN ? TAIL_BLOCK_MIN : (size_t)share;   /* past the size at open: that */
}


static void progress(pipeline_impl *p, const rs_reader *r, int final)
{
    rs_job_io *io = p->cfg.io;
    if (!io->want_progress || io->progress == NULL) return;
    const double t = now_seconds();
    if (!final && t - p->last_progress < 0.5) return;
    p->last_progress = t;
    rs_reader_stats st;
    rs_reader_stats_get(r, &st);
    io->progress(io->ctx, p->totals.counts.lines, st.bytes_in, st.file_size, t - p->started, final);
}

void pipeline_counts_add(pipeline_counts *to, const pipeline_counts *c)
{
    to->lines += c->lines;
    to->blank += c->blank;
    to->urls += c->urls;
    to->malformed += c->malformed;
    to->skipped += c->skipped;
    for (int i = 0; i < 2; i++) to->verdict[i] += c->verdict[i];
    for (int i = 0; i < RS_REASON_COUNT; i++) to->reason[i] += c->reason[i];
    for (int i = 0; i < 8; i++) to->extra[i] += c->extra[i];
}

/* Output of a slot at least this large is written without a copy into the io buffer; smaller
 * outputs gather there until it holds as much. */
#define OUT_DIRECT ((size_t)1 << 18)

/* Writes one finished slot. @return 0, or -1 on a fatal result or write error. */
static int emit(pipeline_impl *p, slot *s)
{
    pipeline_result *res = &s->res;
    res->stream = NULL;
    if (p->stream_failed) return -1; /* reported by pipeline_flush */
    rs_io_diag(p->cfg.io, res->diag.ptr, res->diag.len);
    if (res->status != RS_OK) {
        rs_io_error(p->cfg.io, res->status, "%s", res->errmsg);
        return -1;
    }
    pipeline_counts_add(&p->totals.counts, &res->counts);
    if (p->cfg.in_order) {
        const rs_status st = p->cfg.in_order(p->cfg.ctx, res);
        if (st != RS_OK) {
            rs_io_error(p->cfg.io, st, "%s", res->errmsg[0] ? res->errmsg : rs_status_str(st));
            return -1;
        }
    }
    if (res->out.len >= OUT_DIRECT) {         /* a block's worth: written from where it is */
        if (rs_io_write(p->cfg.io, res->out.ptr, res->out.len) != 0) return -1;
    } else if (res->out.len) {
        if (rs_outbuf_append(&p->cfg.io->out, res->out.ptr, res->out.len) != RS_OK) {
            rs_io_error(p->cfg.io, RS_ERR_NOMEM, "out of memory");
            return -1;
        }
        if (rs_io_flush(p->cfg.io, OUT_DIRECT) != 0) return -1;
    }
    return 0;
}

static int ensure_buffers(pipeline_impl *p, const rs_reader *r)
{
    for (unsigned i = 0; i < p->n_slots; i++)
        if (p->slots[i].buf == NULL && rs_blockbuf_create(r, &p->slots[i].buf) != RS_OK) return -1;
    return 0;
}

int pipeline_write_header(pipeline *pl)
{
    return write_header(pl->impl);
}

int pipeline_run(pipeline *pl, const char *path)
{
    const job_input in = { strcmp(path, "-") ? path : NULL, -1, NULL };
    return pipeline_run_input(pl, &in, NULL, NULL);
}

int pipeline_run_input(pipeline *pl, const job_input *in, rs_reader **rest, rs_block *pending)
{
    pipeline_impl *p = pl->impl;
    /* tallies merged before this run are merged again after it */
    rs_tally_free(p->totals.origins);
    rs_tally_free(p->totals.rules);
    p->totals.origins = p->totals.rules = NULL;
    p->merged = 0;
    rs_reader *r = NULL;
    if (rs_io_open_input(p->cfg.io, in, p->cfg.block_size ? p->cfg.block_size : BLOCK_SIZE, &r) != RS_OK)
        return 2;
    if (ensure_buffers(p, r) != 0) {
        rs_io_error(p->cfg.io, RS_ERR_NOMEM, "out of memory");
        rs_reader_free(r);
        return 2;
    }
    /* with an admit hook the header waits for the first records: a run stopped before
     * them leaves it to the caller (pipeline_write_header) */
    if (!p->cfg.admit && pipeline_write_header(pl) != 0) {
        rs_reader_free(r);
        return 2;
    }
    int failed = 0, eof = 0, stopped = 0;
    rs_status read_status = RS_OK;
    while (!failed) {
        /* Fill free slots. */
        if (!eof && rs_io_canceled(p->cfg.io)) failed = eof = 1;
        while (!eof && p->head - p->tail < p->n_slots) {
            slot *s = &p->slots[p->head % p->n_slots];
            rs_reader_set_block_size(r, next_block_size(p, r));
            const rs_status st = rs_reader_next_block_into(r, s->buf, &s->block);
            if (st != RS_OK) {
                eof = 1;
                if (st != RS_ERR_EOF) read_status = st;
                break;
            }
            if (p->cfg.admit && rest && p->cfg.admit(p->cfg.ctx, &s->block) != 0) {
                stopped = eof = 1;  /* this block and the rest of the input are the caller's */
                *pending = s->block;
                break;
            }
            if (p->n_threads == 0) {
                run_slot(p, s, &p->workers[0]);
                s->state = SLOT_DONE;
                p->head++;
                p->take++;
                break; /* write it before reading on */
            }
            pthread_mutex_lock(&p->mu);
            s->state = SLOT_FILLED;
            p->head++;
            pthread_cond_signal(&p->work);
            pthread_mutex_unlock(&p->mu);
        }
        if (p->tail == p->head) break;
        /* Write the oldest slot once it is done. */
        slot *s = &p->slots[p->tail % p->n_slots];
        pthread_mutex_lock(&p->mu);
        while (s->state != SLOT_DONE) pthread_cond_wait(&p->done, &p->mu);
        pthread_mutex_unlock(&p->mu);
        if (pipeline_write_header(pl) != 0 || emit(p, s) != 0) failed = 1;
        s->state = SLOT_FREE;
        p->tail++;
        progress(p, r, 0);
    }
    /* After a failure, let in-flight slots finish and drop them. */
    while (p->tail != p->head) {
        slot *s = &p->slots[p->tail % p->n_slots];
        pthread_mutex_lock(&p->mu);
        while (s->state != SLOT_DONE) pthread_cond_wait(&p->done, &p->mu);
        pthread_mutex_unlock(&p->mu);
        s->state = SLOT_FREE;
        p->tail++;
    }
    if (stopped && !failed) {
        *rest = r;
        return 3;
    }
    if (pipeline_write_header(pl) != 0) failed = 1;
    rs_reader_stats rst;
    rs_reader_stats_get(r, &rst);
    p->totals.bytes_in += rst.bytes_in;
    p->totals.bytes_out += rst.bytes_out;
    progress(p, r, 1);
    p->totals.input_failed = 0;
    if (!failed && read_status != RS_OK) {
        rs_io_flush(p->cfg.io, 0); /* records before the damage go out first */
        rs_io_error(p->cfg.io, read_status, "%s", rs_reader_errmsg(r));
        failed = 1;
        p->totals.input_failed = 1;
    }
    rs_reader_free(r);
    return failed ? 2 : 0;
}

const pipeline_totals *pipeline_totals_get(pipeline *pl)
{
    pipeline_impl *p = pl->impl;
    if (!p->merged && p->cfg.tally_counters_origin) {
        /* out of memory: no tallies (NULL), and the next call tries again */
        rs_tally *o = NULL, *r = NULL;
        int ok = rs_tally_create(p->cfg.tally_counters_origin, &o) == RS_OK && rs_tally_create(1, &r) == RS_OK;
        for (int i = 0; ok && i < p->cfg.jobs; i++)
            ok = rs_tally_merge(o, p->workers[i].origins) == RS_OK && rs_tally_merge(r, p->workers[i].rules) == RS_OK;
        if (ok) {
            p->totals.origins = o;
            p->totals.rules = r;
            p->merged = 1;
        } else {
            rs_tally_free(o);
            rs_tally_free(r);
        }
    }
    return &p->totals;
}

void **pipeline_users(pipeline *pl, int *n)
{
    pipeline_impl *p = pl->impl;
    static void *users[256];
    *n = p->cfg.jobs;
    for (int i = 0; i < p->cfg.jobs && i < 256; i++) users[i] = p->workers[i].user;
    return users;
}

void pipeline_free(pipeline *pl)
{
    pipeline_impl *p = pl->impl;
    if (p == NULL) return;
    if (p->n_threads) {
        pthread_mutex_lock(&p->mu);
        p->stop = 1;
        pthread_cond_broadcast(&p->work);
        pthread_mutex_unlock(&p->mu);
        for (int i = 0; i < p->n_threads; i++) pthread_join(p->threads[i], NULL);
    }
    for (unsigned i = 0; p->slots && i < p->n_slots; i++) {
        rs_blockbuf_free(p->slots[i].buf);
        rs_outbuf_free(&p->slots[i].res.out);
        rs_outbuf_free(&p->slots[i].res.diag);
        rs_outbuf_free(&p->slots[i].res.scratch_key);
        rs_outbuf_free(&p->slots[i].res.aux);
    }
    for (int i = 0; p->workers && i < p->cfg.jobs; i++) {
        if (p->cfg.state_free) p->cfg.state_free(p->workers[i].state);
        if (p->cfg.user_free) p->cfg.user_free(p->workers[i].user);
        rs_tally_free(p->workers[i].origins);
        rs_tally_free(p->workers[i].rules);
    }
    rs_tally_free(p->totals.origins);
    rs_tally_free(p->totals.rules);
    rs_free(p->threads);
    rs_free(p->slots);
    rs_free(p->workers);
    rs_free(p);
    pl->impl = NULL;
}
