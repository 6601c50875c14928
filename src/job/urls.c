/*
 * urls.c - the urls job (RS_JOB_URLS): a URL list against many sites'
 * robots.txt -> records in input order, counts and tallies.
 *
 * Pipeline (pipeline.c): the calling thread reads blocks of whole lines into
 * a ring of slots; workers decide each block with a scanner of their own
 * (src/scan: the decision) and turn its records into output, counters and
 * diagnostics; the calling thread hands finished slots to the job's io
 * strictly in input order. With one worker the calling thread does all of
 * it in turn. Past the memory budget the rest of the input runs in
 * partitions by host (partition.c).
 */
#include "job/job.h"
#include "common/common.h"
#include "sites/sites.h"

#include <assert.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#ifdef __GLIBC__
#  include <malloc.h>
#endif

static const char *const COLUMNS[] = { "url", "origin", "agent", "verdict", "line", "rule", "reason" };
#define N_COLUMNS 7

/* Counters per origin in the statistics tally. */
enum { OC_ALLOW, OC_DISALLOW, OC_COUNT };

/* ===== Per-block work ===== */

/* The first malformed line of the run (lowest line number of the first input that has one),
 * for the one-line note on stderr at the end; workers report under the lock. */
#define FIRST_BYTES 80
typedef struct {
    pthread_mutex_t lock;
    const char *name;         /* input name; NULL: none yet */
    uint64_t line_no;
    uint64_t oversized;       /* the line's length when it is too long, else 0 */
    size_t len;
    int truncated;
    char text[FIRST_BYTES];
} malformed_first;

typedef struct {
    rs_job *job;              /* settings and io */
    rs_format format;         /* of the records (RS_FORMAT_FIELDS: to the records callback) */
    int input_line, verbose, quiet, encode_urls;
    rs_semantics semantics;
    rs_sites *sites;
    const char *const *agents; /* in the order given */
    size_t agent_lens[JOB_MAX_AGENTS];
    int n_agents;
    const char *input_name;
    int missing;              /* 0 allow, 1 disallow, 2 skip */
    int only;                 /* -1 all, 0 allowed, 1 disallowed */
    int print[2];             /* records of allowed [0] and disallowed [1] URLs are output */
    int want_tallies;
    malformed_first *first;   /* shared by the workers (locked) */
    rs_str reasons[RS_REASON_COUNT]; /* rs_reason_str() of each reason, with its length */
    rs_str reasons_tsv[RS_REASON_COUNT]; /* the same as TSV values */
    char reasons_tsv_text[RS_REASON_COUNT][96];
    size_t rec_max_text, rec_max_entries; /* bounds of each worker's rec_cache */
    rs_byteset url_special;   /* TSV, CSV: the bytes that make a URL's value differ from it */
    int url_verbatim;         /* url_special is set: URLs without one are written as they are */
    spill_gate *gate;         /* past the memory budget: partitions (NULL: no budget) */
    pipeline *pl;             /* the run's pipeline (its header row) */
    /* the run */
    pipeline pipe;
    int pipe_inited;
    spill_gate gate_store;
    spill_config sc;
    spill_stats ss;
    pipeline_totals part;     /* of the partitioned part */
    int switched;             /* the rest of the job runs in partitions */
    malformed_first first_store;
} urls_job;

/*
 * Records rendered but for their URL. Every column of a urls record except
 * the URL is fixed by (site, agent, verdict, line, rule, reason): a worker
 * renders that part once (TSV field by field, CSV and JSONL by
 * rs_format_record with an empty URL in its place) and copies it after each
 * later URL with the same key, the URL written before it as it is or by
 * rs_format_value. Keys hold the scanner's site number, so the cache lives as
 * long as the scanner (rec_cache_clear when it goes); it is emptied when it
 * holds job->rec_max_entries keys or job->rec_max_text bytes.
 */
typedef struct {
    uint64_t k1, k2;          /* the key; k2 == 0: an empty slot */
    uint32_t off, len;        /* the rendering after the URL, in text */
} rec_entry;

typedef struct {
    uint32_t off, len;        /* in rec_cache.prefix_text; len 0: not rendered yet */
} rec_span;

typedef struct {
    rec_entry *tab;
    size_t cap, n;            /* cap: a power of two (0: none yet) */
    uint64_t gen;             /* counts clears and resizes (entries found before are stale) */
    rs_outbuf text;           /* the renderings, back to back */
    /* TSV: "\t" origin "\t" agent "\t" escaped, per (site, agent) (index site * agents +
     * agent), copied into each rendering of the site's keys */
    rec_span *prefix;
    size_t prefix_cap;
    rs_outbuf prefix_text;
} rec_cache;

#define REC_MIN_CAP     4096
#define REC_MAX_TEXT    ((size_t)24 << 20) /* at most 1/16 of --memory-limit */
#define REC_KEY_BYTES   96                 /* text per key, about, for the count of keys */

static void rec_cache_clear(rec_cache *c)
{
    if (c->tab) memset(c->tab, 0, c->cap * sizeof *c->tab);
    c->n = 0;
    c->gen++;
    c->text.len = 0;
    if (c->prefix) memset(c->prefix, 0, c->prefix_cap * sizeof *c->prefix);
    c->prefix_text.len = 0;
}

static void rec_cache_free(rec_cache *c)
{
    rs_free(c->tab);
    rs_outbuf_free(&c->text);
    rs_free(c->prefix);
    rs_outbuf_free(&c->prefix_text);
    memset(c, 0, sizeof *c);
}

static inline size_t rec_hash(uint64_t k1, uint64_t k2)
{
    uint64_t h = k1 * 0x9E3779B97F4A7C15ull ^ k2 * 0xC2B2AE3D27D4EB4Full;
    return (size_t)(h ^ h >> 29);
}

/* @bytes (zeroed when @zero): at 2 MiB and more aligned to 2 MiB, with transparent huge pages asked
 * for (the cache is probed at random over tens of MB: a TLB miss a probe on 4 KiB pages).
 * Freed with rs_free(). */
static void *rec_alloc(size_t bytes, int zero)
{
    const size_t huge = (size_t)2 << 20;
    if (bytes < huge) return zero ? rs_calloc(1, bytes) : rs_malloc(bytes);
    void *p = NULL;
    if (posix_memalign(&p, huge, bytes) != 0) return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, bytes & ~(huge - 1), MADV_HUGEPAGE); /* a hint: failure is harmless */
#endif
    if (zero) memset(p, 0, bytes);
    return p;
}

/* A table of @cap slots holding the entries of @c. */
static rs_status rec_cache_resize(rec_cache *c, size_t cap)
{
    rec_entry *t = rec_alloc(cap * sizeof *t, 1);
    if (t == NULL) return RS_ERR_NOMEM;
    for (size_t i = 0; i < c->cap; i++) {
        const rec_entry *e = &c->tab[i];
        if (e->k2 == 0) continue;
        size_t j = rec_hash(e->k1, e->k2) & (cap - 1);
        while (t[j].k2) j = (j + 1) & (cap - 1);
        t[j] = *e;
    }
    rs_free(c->tab);
    c->tab = t;
    c->cap = cap;
    c->gen++;
    return RS_OK;
}

/* What a worker keeps between blocks: its scanner and scratch, never shared. */
typedef struct {
    rs_scanner *sc;           /* created on the worker's first block */
    int summary_only;         /* sc keeps no verdicts: this worker only counts (--quiet) */
    uint32_t *tally_ix;       /* per scanner site: origin tally index + 1 (0 = not yet) */
    size_t tally_cap;
    rs_outbuf rule_text;
    const rs_matcher *rule_matcher; /* rule_text holds rule rule_index of this matcher */
    int32_t rule_index;
    rec_cache recs;           /* records rendered but for the URL (TSV, CSV, JSONL) */
    /* The block being processed, searched ahead for job->url_special: the bytes from
     * block_from to special hold none, and special is one when special_found. */
    const char *block_lo, *block_end, *block_from, *special;
    int special_found;
} worker_state;

static void worker_state_free(void *p)
{
    worker_state *w = p;
    if (w == NULL) return;
    rs_scanner_free(w->sc);
    rs_free(w->tally_ix);
    rs_outbuf_free(&w->rule_text);
    rec_cache_free(&w->recs);
    rs_free(w);
}

/* Keeps line @line_no of the current input as the first malformed example if it comes first. */
static void note_malformed(const urls_job *job, uint64_t line_no, const char *text, size_t len,
                           uint64_t oversized)
{
    malformed_first *f = job->first;
    pthread_mutex_lock(&f->lock);
    /* inputs run one after another: a note from an earlier input is never replaced */
    if (f->name == NULL || (f->name == job->input_name && line_no < f->line_no)) {
        f->name = job->input_name;
        f->line_no = line_no;
        f->oversized = oversized;
        f->truncated = len > FIRST_BYTES;
        f->len = f->truncated ? FIRST_BYTES : len;
        if (f->len) memcpy(f->text, text, f->len);
    }
    pthread_mutex_unlock(&f->lock);
}

/* The one-line note at the end of a job with malformed lines (whatever the output options). */
static void report_malformed(rs_job_io *io, const malformed_first *f, uint64_t count)
{
    if (count == 0 || f->name == NULL) return;
    rs_outbuf o = { 0 };
    char head[512];
    int n = snprintf(head, sizeof head, "robotscan urls: %llu malformed line%s skipped (first: %s:%llu: ",
                     (unsigned long long)count, count == 1 ? "" : "s", f->name, (unsigned long long)f->line_no);
    rs_outbuf_append(&o, head, n > 0 ? (size_t)n : 0);
    if (f->oversized) {
        n = snprintf(head, sizeof head, "line of %llu bytes is too long for a URL)\n", (unsigned long long)f->oversized);
        rs_outbuf_append(&o, head, (size_t)n);
    } else {
        rs_outbuf_append(&o, "\"", 1);
        for (size_t i = 0; i < f->len; i++) {
            const unsigned char c = (unsigned char)f->text[i];
            char esc[8];
            if (c == '"' || c == '\\') n = snprintf(esc, sizeof esc, "\\%c", c);
            else if (c < 0x20 || c == 0x7f) n = snprintf(esc, sizeof esc, "\\x%02x", c);
            else n = snprintf(esc, sizeof esc, "%c", c);
            rs_outbuf_append(&o, esc, (size_t)n);
        }
        n = snprintf(head, sizeof head, "\"%s)\n", f->truncated ? "..." : "");
        rs_outbuf_append(&o, head, (size_t)n);
    }
    rs_io_diag(io, o.ptr, o.len);
    rs_outbuf_free(&o);
}

static void *worker_state_new(void)
{
    return rs_calloc(1, sizeof(worker_state));
}

/* Formats "allow: /x" / "disallow: /x" for rule @rule of @m into w->rule_text (kept for the
 * next URL) and *@out ("" without a rule). @return RS_OK or RS_ERR_NOMEM. */
static rs_status rule_string(worker_state *w, const rs_matcher *m, int32_t rule, rs_str *out)
{
    out->ptr = "";
    out->len = 0;
    if (m == NULL || rule < 0) return RS_OK;
    if (m == w->rule_matcher && rule == w->rule_index) {
        out->ptr = w->rule_text.ptr;
        out->len = w->rule_text.len;
        return RS_OK;
    }
    rs_rule_info info;
    w->rule_matcher = NULL;
    if (rs_matcher_rule(m, rule, &info) != RS_OK) return RS_OK;
    const size_t need = rs_rule_text(&info, NULL, 0) + 1;
    w->rule_text.len = 0;
    if (rs_outbuf_reserve(&w->rule_text, need) != RS_OK) return RS_ERR_NOMEM; /* not an empty rule: the record would be wrong */
    w->rule_text.len = rs_rule_text(&info, w->rule_text.ptr, need);
    w->rule_matcher = m;
    w->rule_index = rule;
    out->ptr = w->rule_text.ptr;
    out->len = w->rule_text.len;
    return RS_OK;
}

/* The origin tally entry of record @r (cached per scanner site). */
static rs_status origin_tally(worker_state *w, pipeline_result *res, const rs_scan_record *r, uint32_t *ix)
{
    if (r->site != UINT32_MAX && r->site < w->tally_cap && w->tally_ix[r->site]) {
        *ix = w->tally_ix[r->site] - 1;
        return RS_OK;
    }
    RS_FORWARD(rs_tally_find(res->origins, r->origin.ptr, r->origin.len, ix));
    if (r->site == UINT32_MAX) return RS_OK;
    if (r->site >= w->tally_cap) {
        size_t cap = w->tally_cap ? w->tally_cap : 1024;
        while (cap <= r->site) cap *= 2;
        uint32_t *t = rs_realloc(w->tally_ix, cap * sizeof *t);
        if (t == NULL) return RS_ERR_NOMEM;
        memset(t + w->tally_cap, 0, (cap - w->tally_cap) * sizeof *t);
        w->tally_ix = t;
        w->tally_cap = cap;
    }
    w->tally_ix[r->site] = *ix + 1;
    return RS_OK;
}

/* The bytes before the URL in a record of @fmt (the rest follows its value). */
static size_t rec_head(rs_format fmt, const char **head)
{
    static const char JSON_HEAD[] = "{\"url\":"; /* COLUMNS[0] */
    *head = JSON_HEAD;
    return fmt == RS_FORMAT_JSONL ? sizeof JSON_HEAD - 1 : 0;
}

/* The TSV columns origin and agent of @r (with the tabs around them), rendered once per
 * (site, agent) into c->prefix_text. */
static rs_status rec_prefix(const urls_job *job, rec_cache *c, const rs_scan_record *r, rs_str agent,
                            rec_span *out)
{
    const size_t ix = (size_t)r->site * (size_t)job->n_agents + r->agent;
    if (ix < c->prefix_cap && c->prefix[ix].len) {
        *out = c->prefix[ix];
        return RS_OK;
    }
    if (ix >= c->prefix_cap) {
        size_t cap = c->prefix_cap ? c->prefix_cap : 1024;
        while (cap <= ix) cap *= 2;
        rec_span *t = rs_realloc(c->prefix, cap * sizeof *t);
        if (t == NULL) return RS_ERR_NOMEM;
        memset(t + c->prefix_cap, 0, (cap - c->prefix_cap) * sizeof *t);
        c->prefix = t;
        c->prefix_cap = cap;
    }
    rs_outbuf *t = &c->prefix_text;
    RS_FORWARD(rs_outbuf_reserve(t, RS_FORMAT_VALUE_BOUND(r->origin.len) + RS_FORMAT_VALUE_BOUND(agent.len) + 3));
    char *const start = t->ptr + t->len, *d = start;
    *d++ = '\t';
    d += rs_format_value(d, RS_FORMAT_VALUE_BOUND(r->origin.len), RS_FORMAT_TSV, r->origin.ptr, r->origin.len);
    *d++ = '\t';
    d += rs_format_value(d, RS_FORMAT_VALUE_BOUND(agent.len), RS_FORMAT_TSV, agent.ptr, agent.len);
    *d++ = '\t';
    out->off = (uint32_t)t->len;
    out->len = (uint32_t)(d - start);
    t->len += out->len;
    c->prefix[ix] = *out;
    return RS_OK;
}

/* rec_render for TSV, field by field (the same bytes as rs_format_record's, cheaper: a
 * key seen first costs this once). */
static rs_status rec_render_tsv(const urls_job *job, rec_cache *c, const rs_scan_record *r, rs_str agent,
                                rs_str rule, rec_entry *e)
{
    rs_outbuf *t = &c->text;
    rec_span pre;
    RS_FORWARD(rec_prefix(job, c, r, agent, &pre));
    const rs_str reason = job->reasons_tsv[r->reason];
    const size_t need = pre.len + RS_FORMAT_VALUE_BOUND(rule.len) + reason.len + 32;
    RS_FORWARD(rs_outbuf_reserve(t, need));
    char *const start = t->ptr + t->len, *d = start;
    memcpy(d, c->prefix_text.ptr + pre.off, pre.len);
    d += pre.len;
    memcpy(d, r->disallowed ? "disallow\t" : "allow\t", r->disallowed ? 9 : 6);
    d += r->disallowed ? 9 : 6;
    d += rs_format_uint(d, r->line);
    *d++ = '\t';
    d += rs_format_value(d, RS_FORMAT_VALUE_BOUND(rule.len), RS_FORMAT_TSV, rule.ptr, rule.len);
    *d++ = '\t';
    memcpy(d, reason.ptr, reason.len);
    d += reason.len;
    *d++ = '\n';
    e->off = (uint32_t)t->len;
    e->len = (uint32_t)(d - start);
    t->len += e->len;
    return RS_OK;
}

/* Renders the record of @r for an empty URL and keeps what follows the URL in @e. */
static rs_status rec_render(const urls_job *job, worker_state *w, const rs_scan_record *r, rs_str agent,
                            rec_entry *e)
{
    rec_cache *c = &w->recs;
    rs_str rule;
    RS_FORWARD(rule_string(w, r->matcher, r->rule, &rule));
    if (job->format == RS_FORMAT_TSV) return rec_render_tsv(job, c, r, agent, rule, e);
    const rs_str empty = { "", 0 };
    const rs_field fields[N_COLUMNS] = {
        { empty, 0, 0 },
        { r->origin, 0, 0 },
        { agent, 0, 0 },
        { { r->disallowed ? "disallow" : "allow", r->disallowed ? 8u : 5u }, 0, 0 },
        { { NULL, 0 }, r->line, 1 },
        { rule, 0, 0 },
        { job->reasons[r->reason], 0, 0 },
    };
    const char *head;
    const size_t skip = rec_head(job->format, &head);
    char empty_value[2];
    const size_t skip_value = rs_format_value(empty_value, sizeof empty_value, job->format, "", 0);
    const size_t start = c->text.len;
    RS_FORWARD(rs_format_record(&c->text, job->format, COLUMNS, fields, N_COLUMNS));
    assert(c->text.len - start >= skip + skip_value && !memcmp(c->text.ptr + start, head, skip));
    const size_t len = c->text.len - start - skip - skip_value;
    memmove(c->text.ptr + start, c->text.ptr + start + skip + skip_value, len);
    c->text.len = start + len;
    e->off = (uint32_t)start;
    e->len = (uint32_t)len;
    return RS_OK;
}

/* The key of record @r in the cache (k2 is never 0), from the record's words as they lie:
 * k1 = site, agent (< 256), then kind, disallowed and reason; k2 = line, rule (>= -1, its
 * sign bit flipped: never 0). */
_Static_assert(offsetof(rs_scan_record, agent) == offsetof(rs_scan_record, site) + 4
                   && offsetof(rs_scan_record, rule) == offsetof(rs_scan_record, line) + 4
                   && offsetof(rs_scan_record, disallowed) == offsetof(rs_scan_record, kind) + 1
                   && offsetof(rs_scan_record, reason) == offsetof(rs_scan_record, kind) + 2
                   && offsetof(rs_scan_record, error) == offsetof(rs_scan_record, kind) + 3,
               "rec_key reads rs_scan_record by words");
_Static_assert(JOB_MAX_AGENTS <= 256, "rec_key keeps the agent in 8 bits");
static inline void rec_key(const rs_scan_record *r, uint64_t *k1, uint64_t *k2)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t site_agent, line_rule;
    uint32_t kinds;
    memcpy(&site_agent, &r->site, 8);
    memcpy(&line_rule, &r->line, 8);
    memcpy(&kinds, &r->kind, 4);
    *k1 = site_agent ^ (uint64_t)kinds << 40; /* error, the top byte, drops out */
    *k2 = line_rule ^ (uint64_t)1 << 63;
#else
    *k1 = (uint64_t)r->site | (uint64_t)r->agent << 32 | (uint64_t)r->kind << 40
          | (uint64_t)r->disallowed << 48 | (uint64_t)r->reason << 56;
    *k2 = ((uint64_t)r->line | (uint64_t)(uint32_t)r->rule << 32) ^ (uint64_t)1 << 63;
#endif
}

/*
 * A record fetched ahead of its turn (the cache is probed in input order, its table and
 * texts spread over tens of MB): when fetched, its key's first table slot is prefetched
 * (ahead_fetch); once that is in, the table is probed and the entry's text prefetched
 * (ahead_probe), the entry kept for emit_cached while the table is unchanged (gen).
 */
typedef struct {
    rs_scan_record rec;
    uint64_t k1, k2, hash;
    const rec_entry *e;       /* NULL: not cached (yet), or not probed */
    uint64_t gen;             /* rec_cache.gen when e was found */
    int cacheable;
} ahead_rec;

static inline void ahead_fetch(const rs_scanner *sc, const rec_cache *c, size_t i, ahead_rec *a)
{
    rs_scan_get(sc, i, 0, &a->rec);
    a->e = NULL;
    a->cacheable = a->rec.kind == RS_SCAN_URL && a->rec.site != UINT32_MAX;
    if (!a->cacheable) return;
    rec_key(&a->rec, &a->k1, &a->k2);
    a->hash = rec_hash(a->k1, a->k2);
    if (c->cap) __builtin_prefetch(&c->tab[a->hash & (c->cap - 1)]);
}

static inline void ahead_probe(const rec_cache *c, ahead_rec *a)
{
    if (!a->cacheable || c->cap == 0) return;
    for (size_t i = a->hash & (c->cap - 1);; i = (i + 1) & (c->cap - 1)) {
        const rec_entry *e = &c->tab[i];
        if (e->k1 == a->k1 && e->k2 == a->k2) {
            const char *t = c->text.ptr + e->off;
            __builtin_prefetch(t);
            __builtin_prefetch(t + e->len - 1);
            a->e = e;
            a->gen = c->gen;
            return;
        }
        if (e->k2 == 0) return;
    }
}

/* The cache entry of record @r (rendered if new); NULL when out of memory. */
static const rec_entry *rec_find(const urls_job *job, worker_state *w, const rs_scan_record *r, rs_str agent)
{
    rec_cache *c = &w->recs;
    uint64_t k1, k2;
    rec_key(r, &k1, &k2);
    if (c->cap) {
        for (size_t i = rec_hash(k1, k2) & (c->cap - 1);; i = (i + 1) & (c->cap - 1)) {
            const rec_entry *e = &c->tab[i];
            if (e->k1 == k1 && e->k2 == k2) return e;
            if (e->k2 == 0) break;
        }
    }
    if (c->text.ptr == NULL) { /* the texts' whole room at once, on huge pages */
        const size_t cap = job->rec_max_text + ((size_t)64 << 10);
        c->text.ptr = rec_alloc(cap, 0);
        if (c->text.ptr == NULL) return NULL;
        c->text.cap = cap;
    }
    /* a new key: room for it first (the table at most half full), then its rendering */
    if (c->n >= job->rec_max_entries || c->text.len + c->prefix_text.len >= job->rec_max_text)
        rec_cache_clear(c);
    if (c->cap == 0 || 2 * (c->n + 1) > c->cap) {
        if (rec_cache_resize(c, c->cap ? 2 * c->cap : REC_MIN_CAP) != RS_OK) return NULL;
    }
    size_t i = rec_hash(k1, k2) & (c->cap - 1);
    while (c->tab[i].k2) i = (i + 1) & (c->cap - 1);
    rec_entry e;
    if (rec_render(job, w, r, agent, &e) != RS_OK) return NULL;
    e.k1 = k1;
    e.k2 = k2;
    c->tab[i] = e;
    c->n++;
    return &c->tab[i];
}

/* Bytes of the block searched ahead at a time for url_verbatim: the URLs copied after the
 * search find them in cache (a search to the block's end read tens of MB at once). */
#define SPECIAL_WINDOW ((size_t)64 << 10)

/*
 * Nonzero when @url is written as it is (no byte of job->url_special in it).
 * URLs are slices of the block, met in input order: the block is searched
 * ahead (rs_simd_find_any, SPECIAL_WINDOW at a time) rather than each URL
 * apart, and a URL ending before the next special byte is known clean.
 */
static inline int url_verbatim(const urls_job *job, worker_state *w, rs_str url)
{
    if (!job->url_verbatim) return 0;
    const char *const end = url.ptr + url.len;
    assert(url.ptr >= w->block_lo && end <= w->block_end); /* rs_scan_record.url */
    /* searched from an earlier point, or not as far as the URL's end: again */
    if (url.ptr < w->block_from || w->special < url.ptr || (w->special < end && !w->special_found)) {
        size_t lim = (size_t)(w->block_end - url.ptr);
        if (lim > SPECIAL_WINDOW && url.len < SPECIAL_WINDOW) lim = SPECIAL_WINDOW;
        const size_t off = rs_simd_find_any(url.ptr, lim, &job->url_special);
        w->block_from = url.ptr;
        w->special = url.ptr + off;
        w->special_found = off < lim;
    }
    return w->special >= end;
}

/* Record @r in TSV, CSV or JSONL: the URL, then its cached rest. */
static rs_status emit_cached(const urls_job *job, worker_state *w, pipeline_result *res,
                             const rs_scan_record *r, rs_str agent, const ahead_rec *a)
{
    const rec_entry *e = a && a->e && a->gen == w->recs.gen ? a->e : rec_find(job, w, r, agent);
    if (e == NULL) return RS_ERR_NOMEM;
    const char *head;
    const size_t head_len = rec_head(job->format, &head);
    const size_t bound = RS_FORMAT_VALUE_BOUND(r->url.len);
    rs_outbuf *out = &res->out;
    const size_t need = head_len + bound + e->len;
    if (out->cap - out->len < need) RS_FORWARD(rs_outbuf_reserve(out, need));
    char *d = out->ptr + out->len;
    if (head_len) {
        memcpy(d, head, head_len);
        d += head_len;
    }
    if (url_verbatim(job, w, r->url)) {
        memcpy(d, r->url.ptr, r->url.len);
        d += r->url.len;
    } else {
        d += rs_format_value(d, bound, job->format, r->url.ptr, r->url.len);
    }
    const char *src = w->recs.text.ptr + e->off;
    memcpy(d, src, e->len);
    out->len = (size_t)(d + e->len - out->ptr);
    return RS_OK;
}

/* Formats the record of decided URL @r (@a: its cache entry when fetched ahead, or NULL). */
static rs_status emit_out(const urls_job *job, worker_state *w, pipeline_result *res, const rs_scan_record *r,
                          const ahead_rec *a)
{
    const rs_str agent = { job->agents[r->agent], job->agent_lens[r->agent] };
    const rs_str reason_s = job->reasons[r->reason];
    if (job->format == RS_FORMAT_TEXT) {
        rs_str rule;
        RS_FORWARD(rule_string(w, r->matcher, r->rule, &rule));
        char tail[64];
        RS_FORWARD(rs_outbuf_append(&res->out, r->disallowed ? "DISALLOWED  " : "allowed     ", 12));
        if (job->n_agents > 1) { /* which agent, when there are several */
            RS_FORWARD(rs_outbuf_append(&res->out, agent.ptr, agent.len));
            RS_FORWARD(rs_outbuf_append(&res->out, "  ", 2));
        }
        RS_FORWARD(rs_outbuf_append(&res->out, r->url.ptr, r->url.len));
        if (r->line) {
            snprintf(tail, sizeof tail, "  (line %u: ", r->line);
            RS_FORWARD(rs_outbuf_append(&res->out, tail, strlen(tail)));
            RS_FORWARD(rs_outbuf_append(&res->out, rule.ptr, rule.len));
            RS_FORWARD(rs_outbuf_append(&res->out, ")", 1));
        }
        snprintf(tail, sizeof tail, "  [%s]\n", reason_s.ptr);
        return rs_outbuf_append(&res->out, tail, strlen(tail));
    }
    const size_t start = res->out.len;
    if (r->site != UINT32_MAX && job->format != RS_FORMAT_FIELDS) {
        RS_FORWARD(emit_cached(job, w, res, r, agent, a));
        return job->input_line ? rs_format_input_line(&res->out, start, job->format, r->line_no) : RS_OK;
    }
    rs_str rule;
    RS_FORWARD(rule_string(w, r->matcher, r->rule, &rule));
    const rs_field fields[N_COLUMNS] = {
        { r->url, 0, 0 },
        { r->origin, 0, 0 },
        { agent, 0, 0 },
        { { r->disallowed ? "disallow" : "allow", r->disallowed ? 8u : 5u }, 0, 0 },
        { { NULL, 0 }, r->line, 1 },
        { rule, 0, 0 },
        { reason_s, 0, 0 },
    };
    RS_FORWARD(rs_format_record(&res->out, job->format, COLUMNS, fields, N_COLUMNS));
    return job->input_line ? rs_format_input_line(&res->out, start, job->format, r->line_no) : RS_OK;
}

/* Counts, tallies and formats one decided URL (@a: its cache entry when fetched ahead, or NULL). */
static rs_status emit(const urls_job *job, worker_state *w, pipeline_result *res, const rs_scan_record *r,
                      const ahead_rec *a)
{
    res->counts.urls++;
    res->counts.verdict[r->disallowed]++;
    res->counts.reason[r->reason]++;

    if (job->want_tallies) {
        uint32_t oix;
        RS_FORWARD(origin_tally(w, res, r, &oix));
        rs_tally_counters(res->origins, oix)[r->disallowed ? OC_DISALLOW : OC_ALLOW]++;
        if (r->rule >= 0) {
            /* key: origin, TAB, rule text */
            rs_str rule;
            RS_FORWARD(rule_string(w, r->matcher, r->rule, &rule));
            char key[RS_ORIGIN_MAX + 64];
            const int n = snprintf(key, sizeof key, "%.*s\t%u\t", (int)r->origin.len,
                                   r->origin.ptr, r->line);
            uint32_t ix;
            rs_outbuf *k = &res->scratch_key;
            k->len = 0;
            RS_FORWARD(rs_outbuf_append(k, key, (size_t)n));
            RS_FORWARD(rs_outbuf_append(k, rule.ptr, rule.len));
            RS_FORWARD(rs_tally_find(res->rules, k->ptr, k->len, &ix));
            rs_tally_counters(res->rules, ix)[0]++;
        }
    }

    if (!job->print[r->disallowed]) return RS_OK;
    return emit_out(job, w, res, r, a);
}

/* Counts and reports line @i of the scanner's block, which is not a URL (malformed or
 * oversized); @line_nos as for process_lines. */
static rs_status not_a_url(const urls_job *job, worker_state *w, pipeline_result *res, size_t i,
                           const uint64_t *line_nos)
{
    rs_scan_record rec;
    rs_scan_get(w->sc, i, 0, &rec);
    if (line_nos) rec.line_no = line_nos[i];
    const rs_scan_record *r = &rec;
    res->counts.malformed++;
    if (r->kind == RS_SCAN_OVERSIZED) {
        note_malformed(job, r->line_no, NULL, 0, r->oversized);
        if (job->verbose)
            pipeline_diag(res, "%s:%llu: line of %llu bytes is too long for a URL, skipped",
                          job->input_name, (unsigned long long)r->line_no,
                          (unsigned long long)r->oversized);
        return RS_OK;
    }
    note_malformed(job, r->line_no, r->url.ptr, r->url.len, 0);
    if (job->verbose)
        pipeline_diag(res, "%s:%llu: malformed URL (%s), skipped", job->input_name,
                      (unsigned long long)r->line_no, rs_origin_error_str((rs_origin_error)r->error));
    return RS_OK;
}

/* Output bytes written at a time while a block is decided (pipeline_flush). */
#define STREAM_PIECE ((size_t)256 << 10)
/* Lines between fetching a record's cache entry and using it (a power of two). */
#define AHEAD 16
/* A key the cache lacks is rendered from its site record (and TSV prefix span), prefetched when
 * the probe (AHEAD / 2 lines ahead) misses; from its matcher's header, prefetched READY_AHEAD
 * lines ahead; from its rule's entry, RULE_AHEAD lines ahead; and from its pattern text and
 * prefix text, TEXT_AHEAD lines ahead: one miss at a time, none waited for. */
#define READY_AHEAD 6
#define RULE_AHEAD 3
#define TEXT_AHEAD 1

/*
 * A line fetched ahead by the TSV/CSV loop (process_fast): what its record's output needs.
 * For a record to write (FAST_EMIT), slot is its key's first table slot (prefetched), and
 * once probed, e its cache entry (NULL: not cached yet). Both hold while the table is
 * unchanged: process_fast redoes them when a new key clears or resizes it (rec_cache.gen).
 */
enum { FAST_SKIP, FAST_EMIT, FAST_OTHER };
typedef struct {
    rs_scan_record rec;       /* the line's record (agent 0), for rendering a new key */
    uint8_t what;             /* FAST_SKIP: a URL whose verdict is not printed; FAST_OTHER: a line
                                 for the general code (not a URL, or a URL decided alone) */
    uint8_t whole;            /* rec is the whole record (rs_scan_get), site record included */
    uint64_t k1, k2;
    const rec_entry *slot, *e;
} __attribute__((aligned(64))) fast_rec; /* 128 bytes: ring indexes by a shift */

/* process_fast's copies of what it reads for every record (locals, so that the record bytes
 * it stores, which may alias anything, do not make it read them again); refreshed after
 * each call that may change them. */
typedef struct {
    const rec_entry *tab, *end; /* w->recs: tab, tab + cap, cap - 1, text.ptr, prefix, prefix_cap,
                                   prefix_text.ptr */
    size_t mask;
    const char *text;
    const rec_span *prefix;
    size_t prefix_cap;
    const char *prefix_text;
    const char *from, *special; /* w->block_from, w->special (url_verbatim) */
    char *d, *lim;            /* res->out: where the next record goes; how far records go
                                 without a check (fast_limit) */
} fast_state;

/* The record of line @i without its site record (rs_scan_get_brief: a hit of the cache
 * needs only the site number); a line for the general code gets the whole record. */
static inline __attribute__((always_inline)) void fast_fetch(const rs_scanner *sc, const fast_state *f,
                                                             const uint8_t what[2], size_t i, fast_rec *a)
{
    rs_scan_get_brief(sc, i, 0, &a->rec);
    a->whole = 0;
    if (a->rec.kind != RS_SCAN_URL || a->rec.site == UINT32_MAX) {
        rs_scan_get(sc, i, 0, &a->rec);
        a->whole = 1;
        a->what = FAST_OTHER;
        return;
    }
    a->what = what[a->rec.disallowed];
    rec_key(&a->rec, &a->k1, &a->k2);
    a->slot = &f->tab[rec_hash(a->k1, a->k2) & f->mask];
    __builtin_prefetch(a->slot);
}

/* Probes the cache for line @i's key; a key not there will be rendered from the line's
 * site record, which starts coming in now. */
static inline __attribute__((always_inline)) void fast_probe(const rs_scanner *sc, const fast_state *f,
                                                             size_t i, fast_rec *a)
{
    if (a->what != FAST_EMIT) return;
    const rec_entry *e = a->slot;
    while (e->k1 != a->k1 || e->k2 != a->k2) {
        if (e->k2 == 0) {
            a->e = NULL;
            rs_scan_prefetch_site(sc, i);
            if (a->rec.site < f->prefix_cap) __builtin_prefetch(&f->prefix[a->rec.site]);
            return;
        }
        if (++e == f->end) e = f->tab;
    }
    const char *t = f->text + e->off;
    __builtin_prefetch(t);
    __builtin_prefetch(t + e->len - 1);
    a->e = e;
}

/* Nonzero for a line whose key the cache lacked when probed: it will be rendered. */
static inline int fast_renders(const fast_rec *a) { return a->what == FAST_EMIT && a->e == NULL; }

/* Nonzero when the rendering names a rule of a matcher (its entry and pattern are read). */
static inline int fast_has_rule(const fast_rec *a) { return a->rec.matcher != NULL && a->rec.rule >= 0; }

/* Line @i, to be rendered (its site record prefetched by the probe): the whole record, and
 * its matcher's header on the way. */
static inline void fast_ready(const rs_scanner *sc, size_t i, fast_rec *a)
{
    if (!fast_renders(a) || a->whole) return;
    rs_scan_get(sc, i, 0, &a->rec);
    a->whole = 1;
    if (fast_has_rule(a)) __builtin_prefetch(a->rec.matcher);
}

/* The same line's rule entry, once the header is in. */
static inline void fast_rule(const fast_rec *a)
{
    if (fast_renders(a) && a->whole && fast_has_rule(a)) rs_matcher_prefetch_rule(a->rec.matcher, a->rec.rule);
}

/* The same line's pattern text, once the rule entry is in, and its site's TSV prefix text
 * (its span was prefetched by the probe; with one agent a span's index is the site's). */
static inline void fast_text(const fast_state *f, const fast_rec *a)
{
    if (!fast_renders(a) || !a->whole) return;
    if (fast_has_rule(a)) rs_matcher_prefetch_pattern(a->rec.matcher, a->rec.rule);
    if (a->rec.site < f->prefix_cap && f->prefix[a->rec.site].len)
        __builtin_prefetch(f->prefix_text + f->prefix[a->rec.site].off);
}

/* memcpy for the short texts of a record (a URL, a cached rest): up to 128 bytes by two
 * overlapping moves of a fixed size, inline; the common lengths tested first. */
static inline void copy_text(char *d, const char *s, size_t n)
{
    if (n - 33 < 32) {
        memcpy(d, s, 32);
        memcpy(d + n - 32, s + n - 32, 32);
    } else if (n - 65 < 64) {
        memcpy(d, s, 64);
        memcpy(d + n - 64, s + n - 64, 64);
    } else if (n - 17 < 16) {
        memcpy(d, s, 16);
        memcpy(d + n - 16, s + n - 16, 16);
    } else if (n - 8 < 9) {
        memcpy(d, s, 8);
        memcpy(d + n - 8, s + n - 8, 8);
    } else {
        memcpy(d, s, n);
    }
}

static void fast_state_cache(fast_state *f, const rec_cache *c)
{
    f->tab = c->tab;
    f->end = c->tab + c->cap;
    f->mask = c->cap - 1;
    f->text = c->text.ptr;
    f->prefix = c->prefix;
    f->prefix_cap = c->prefix_cap;
    f->prefix_text = c->prefix_text.ptr;
}

/* The room process_fast writes records in without a check: res->out's room, and with
 * @stream no further than STREAM_PIECE (then flushed) unless @need bytes need more. */
static void fast_state_out(fast_state *f, const rs_outbuf *out, int stream, size_t need)
{
    size_t limit = stream && out->cap > STREAM_PIECE ? STREAM_PIECE : out->cap;
    if (limit < out->len + need) limit = out->len + need;
    f->d = out->ptr + out->len;
    f->lim = out->ptr + limit;
}

/* Room for a record of @need bytes past f->lim: flushes (@stream), reserves. */
static rs_status fast_room(pipeline_result *res, int stream, size_t need, fast_state *f)
{
    rs_outbuf *const out = &res->out;
    out->len = (size_t)(f->d - out->ptr);
    if (stream && out->len >= STREAM_PIECE) pipeline_flush(res);
    if (out->cap - out->len < need) RS_FORWARD(rs_outbuf_reserve(out, need));
    fast_state_out(f, out, stream, need);
    return RS_OK;
}

/* The cache entry of line @i, a key not found ahead: found or rendered. When that changed the
 * table (gen), the slots of the lines fetched ahead (to @n_fetched) are found again, and the
 * entries of those probed (to @n_probed) probed again. */
static const rec_entry *fast_find(const urls_job *job, worker_state *w, size_t i, fast_rec *ring,
                                  size_t n_probed, size_t n_fetched, fast_state *f)
{
    rec_cache *const c = &w->recs;
    const uint64_t gen = c->gen;
    const rs_str agent = { job->agents[0], job->agent_lens[0] };
    if (!ring[i % AHEAD].whole) {       /* a rendering needs the origin and matcher */
        rs_scan_get(w->sc, i, 0, &ring[i % AHEAD].rec);
        ring[i % AHEAD].whole = 1;
    }
    const rec_entry *e = rec_find(job, w, &ring[i % AHEAD].rec, agent);
    fast_state_cache(f, c);
    if (e == NULL || c->gen == gen) return e;
    for (size_t j = i + 1; j < n_fetched; j++) {
        fast_rec *a = &ring[j % AHEAD];
        if (a->what == FAST_OTHER) continue;
        a->slot = &f->tab[rec_hash(a->k1, a->k2) & f->mask];
        if (j < n_probed) fast_probe(w->sc, f, j, a);
    }
    return e;
}

/* Line @i in process_fast (@rec: its record) when it is not a URL of a site (the general code). */
static rs_status fast_other(const urls_job *job, worker_state *w, pipeline_result *res, size_t i,
                            const rs_scan_record *rec)
{
    if (rec->kind == RS_SCAN_URL) return job->print[rec->disallowed] ? emit_out(job, w, res, rec, NULL) : RS_OK;
    if (rec->kind == RS_SCAN_MALFORMED || rec->kind == RS_SCAN_OVERSIZED) return not_a_url(job, w, res, i, NULL);
    return RS_OK; /* blank, skipped: counted */
}

/* Line @i of process_fast (@a its ring entry): its record, if any; entries of the ring are
 * probed to @n_probed and fetched to @n_fetched. */
static inline __attribute__((always_inline)) rs_status fast_line(const urls_job *job, worker_state *w,
                                                                 pipeline_result *res, int stream, size_t i,
                                                                 fast_rec *ring, size_t n_probed,
                                                                 size_t n_fetched, fast_state *f)
{
    const fast_rec *const a = &ring[i % AHEAD];
    if (__builtin_expect(a->what != FAST_EMIT, 0)) {
        if (a->what == FAST_SKIP) return RS_OK;
        res->out.len = (size_t)(f->d - res->out.ptr);
        const rs_status st = fast_other(job, w, res, i, &a->rec);
        fast_state_out(f, &res->out, stream, 0);
        return st;
    }
    const rec_entry *e = a->e;
    if (e == NULL && (e = fast_find(job, w, i, ring, n_probed, n_fetched, f)) == NULL) return RS_ERR_NOMEM;
    const rs_str url = a->rec.url;
    const size_t bound = RS_FORMAT_VALUE_BOUND(url.len);
    const size_t need = bound + e->len;
    if ((size_t)(f->lim - f->d) < need) RS_FORWARD(fast_room(res, stream, need, f));
    char *d = f->d;
    /* url_verbatim, its common case first: the URL ends before the special byte found (the
     * search starts at a URL, and URLs come in block order: none starts before f->from) */
    int verbatim = url.ptr + url.len <= f->special;
    if (!verbatim) {
        verbatim = url_verbatim(job, w, url);
        f->from = w->block_from;
        f->special = w->special;
    }
    if (verbatim) {
        copy_text(d, url.ptr, url.len);
        d += url.len;
    } else {
        d += rs_format_value(d, bound, job->format, url.ptr, url.len);
    }
    copy_text(d, f->text + e->off, e->len);
    f->d = d + e->len;
    return RS_OK;
}

/*
 * process_lines for TSV and CSV with one agent, no tallies and no per-line bookkeeping
 * (line_nos, ends, --input-line): the block's counts come from rs_scan_summarize, and
 * each URL's record is its URL (as it is when url_verbatim) and its cached rest, fetched
 * and probed ahead as in process_lines; other lines go through the general code.
 */
/* Adds the scanner's block totals (blank lines, URLs, skips, verdicts, reasons) to
 * res->counts, for the loops that do not count record by record. @return the totals. */
static rs_scan_summary add_block_counts(const rs_scanner *sc, pipeline_result *res)
{
    rs_scan_summary sum;
    rs_scan_summarize(sc, &sum);
    res->counts.blank += sum.blank;
    res->counts.urls += sum.urls;
    res->counts.skipped += sum.skipped;
    for (int v = 0; v < 2; v++) res->counts.verdict[v] += sum.verdict[v];
    for (int k = 0; k < RS_REASON_COUNT; k++) res->counts.reason[k] += sum.reason[k];
    return sum;
}

static rs_status process_fast(const urls_job *job, worker_state *w, pipeline_result *res, size_t n)
{
    add_block_counts(w->sc, res);
    rec_cache *const c = &w->recs;
    if (c->cap == 0) RS_FORWARD(rec_cache_resize(c, REC_MIN_CAP));
    const int stream = res->stream != NULL && !job->verbose;
    const uint8_t what[2] = { job->print[0] ? FAST_EMIT : FAST_SKIP, job->print[1] ? FAST_EMIT : FAST_SKIP };
    const rs_scanner *const sc = w->sc;
    fast_state f;
    fast_state_cache(&f, c);
    if (res->out.ptr == NULL) RS_FORWARD(rs_outbuf_reserve(&res->out, 4096)); /* f's pointers need one */
    fast_state_out(&f, &res->out, stream, 0);
    f.from = w->block_from;
    f.special = w->special;
    fast_rec ring[AHEAD];
    for (size_t j = 0; j < AHEAD - 1 && j < n; j++) fast_fetch(sc, &f, what, j, &ring[j]);
    for (size_t j = 0; j < AHEAD / 2 && j < n; j++) fast_probe(sc, &f, j, &ring[j]);
    /* lines with one to fetch AHEAD - 1 lines on, then the rest */
    const size_t n_ahead = n >= AHEAD - 1 ? n - (AHEAD - 1) : 0;
    size_t i = 0;
    rs_status st = RS_OK;
    for (; i < n_ahead; i++) {
        fast_fetch(sc, &f, what, i + AHEAD - 1, &ring[(i + AHEAD - 1) % AHEAD]);
        fast_probe(sc, &f, i + AHEAD / 2, &ring[(i + AHEAD / 2) % AHEAD]);
        fast_ready(sc, i + READY_AHEAD, &ring[(i + READY_AHEAD) % AHEAD]);
        fast_rule(&ring[(i + RULE_AHEAD) % AHEAD]);
        fast_text(&f, &ring[(i + TEXT_AHEAD) % AHEAD]);
        st = fast_line(job, w, res, stream, i, ring, i + AHEAD / 2 + 1, i + AHEAD, &f);
        if (st != RS_OK) goto done;
    }
    for (; i < n; i++) {
        if (i + AHEAD / 2 < n) fast_probe(sc, &f, i + AHEAD / 2, &ring[(i + AHEAD / 2) % AHEAD]);
        st = fast_line(job, w, res, stream, i, ring, i + AHEAD / 2 + 1 < n ? i + AHEAD / 2 + 1 : n, n, &f);
        if (st != RS_OK) goto done;
    }
done:
    res->out.len = (size_t)(f.d - res->out.ptr);
    return st;
}

/*
 * Decides @block: its line i is input line @line_nos[i] (NULL: numbered by
 * the block). With @ends (partitioned runs), after line i ends[2i] and
 * ends[2i+1] hold the lengths of res->out and res->diag.
 */
static rs_status process_lines(void *ctx, void *state, const rs_block *block, const uint64_t *line_nos,
                               pipeline_result *res, size_t *ends)
{
    const urls_job *job = ctx;
    worker_state *w = state;
    /* Only counts: the block's summary, and the records of the lines to report (in a
     * partition run too: its ends then change only at those lines). A worker state serves
     * one kind of call (the main pipeline's, or a partition run's). */
    const int counts_only = job->quiet && !job->want_tallies;
    if (w->sc == NULL) {
        rs_scan_config cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.sites = job->sites;
        cfg.agents = job->agents;
        cfg.agent_lens = job->agent_lens;
        cfg.n_agents = (size_t)job->n_agents;
        cfg.semantics = job->semantics;
        cfg.missing = (rs_scan_missing)job->missing;
        cfg.encode_urls = job->encode_urls;
        cfg.summary_only = counts_only;
        RS_FORWARD(rs_scanner_create(&cfg, &w->sc));
        w->summary_only = counts_only;
    }
    if (w->summary_only != counts_only) {
        pipeline_fail(res, RS_ERR_USAGE, "internal error: a counting worker given a block to print");
        return RS_ERR_USAGE;
    }
    size_t n;
    const rs_status st = rs_scan_block(w->sc, block, &n);
    if (st != RS_OK) {
        pipeline_fail(res, st, "%s", rs_scanner_errmsg(w->sc));
        return st;
    }
    res->counts.lines += n;
    w->block_lo = w->block_from = w->special = block->ptr;
    w->special_found = 0;
    w->block_end = block->ptr + block->len;
    if (counts_only) {
        const rs_scan_summary sum = add_block_counts(w->sc, res);
        if (sum.malformed + sum.oversized == 0) {
            for (size_t i = 0; ends && i < n; i++) {
                ends[2 * i] = res->out.len;
                ends[2 * i + 1] = res->diag.len;
            }
            return RS_OK;
        }
        for (size_t i = 0; i < n; i++) {
            const rs_scan_kind kind = rs_scan_line_kind(w->sc, i);
            if (kind == RS_SCAN_MALFORMED || kind == RS_SCAN_OVERSIZED)
                RS_FORWARD(not_a_url(job, w, res, i, line_nos));
            if (ends) {
                ends[2 * i] = res->out.len;
                ends[2 * i + 1] = res->diag.len;
            }
        }
        return RS_OK;
    }
    if (job->url_verbatim && job->n_agents == 1 && !job->want_tallies && line_nos == NULL && ends == NULL
        && !job->input_line && (job->print[0] || job->print[1]))
        return process_fast(job, w, res, n);
    /* -j 1: the records go out in pieces while the block is decided, so the output buffer
     * stays in cache (a block's output is tens of MB); not with --verbose, whose notes on
     * stderr come before the block's records */
    const int stream = res->stream != NULL && !job->verbose;
    /* Records of the cache formats are fetched AHEAD - 1 lines early (agent 0), their
     * cache entries probed AHEAD / 2 lines early (ahead_rec). */
    const int ahead = job->format != RS_FORMAT_TEXT && job->format != RS_FORMAT_FIELDS
                      && (job->print[0] || job->print[1]);
    ahead_rec ring[AHEAD], here;
    if (ahead)
        for (size_t j = 0; j < AHEAD - 1 && j < n; j++) ahead_fetch(w->sc, &w->recs, j, &ring[j]);
    for (size_t i = 0; i < n; i++) {
        if (stream && res->out.len >= STREAM_PIECE) pipeline_flush(res);
        ahead_rec *a = &here;       /* line i: ring[i % AHEAD], else here.rec */
        if (ahead) {
            /* the slot of line i - 1 takes line i + AHEAD - 1 */
            if (i + AHEAD - 1 < n) ahead_fetch(w->sc, &w->recs, i + AHEAD - 1, &ring[(i + AHEAD - 1) % AHEAD]);
            if (i + AHEAD / 2 < n) ahead_probe(&w->recs, &ring[(i + AHEAD / 2) % AHEAD]);
            a = &ring[i % AHEAD];
        } else {
            rs_scan_get(w->sc, i, 0, &here.rec);
            here.e = NULL;
        }
        rs_scan_record *const r = &a->rec;
        if (line_nos) r->line_no = line_nos[i];
        if (ends && i) {
            ends[2 * i - 2] = res->out.len;
            ends[2 * i - 1] = res->diag.len;
        }
        switch (r->kind) {
        case RS_SCAN_URL:
        case RS_SCAN_SKIPPED:
            /* one record per agent, in the order the agents were given */
            for (int ag = 0; ag < job->n_agents; ag++) {
                if (ag) {
                    rs_scan_get(w->sc, i, (size_t)ag, r);
                    if (line_nos) r->line_no = line_nos[i];
                }
                if (r->kind == RS_SCAN_URL) RS_FORWARD(emit(job, w, res, r, ag ? NULL : a));
                else res->counts.skipped++;
            }
            break;
        case RS_SCAN_BLANK:
            res->counts.blank++;
            break;
        default: /* RS_SCAN_OVERSIZED, RS_SCAN_MALFORMED */
            RS_FORWARD(not_a_url(job, w, res, i, line_nos));
            break;
        }
    }
    if (ends && n) {
        ends[2 * n - 2] = res->out.len;
        ends[2 * n - 1] = res->diag.len;
    }
    return RS_OK;
}

static rs_status process_block(void *ctx, void *state, const rs_block *block, pipeline_result *res)
{
    return process_lines(ctx, state, block, NULL, res, NULL);
}

/* ===== Partitioned runs (past the memory budget, partition.c) ===== */

#define DEFAULT_MEMORY_LIMIT ((uint64_t)1 << 30)

static void *spill_run_open(void *ctx, int worker)
{
    (void)ctx;
    (void)worker;
    return worker_state_new();
}

/* Drops the scanner and the caches that refer to loaded matchers. */
static void spill_reset(void *ctx, void *state)
{
    (void)ctx;
    worker_state *w = state;
    rs_scanner_free(w->sc);
    w->sc = NULL;
    if (w->tally_ix) memset(w->tally_ix, 0, w->tally_cap * sizeof *w->tally_ix);
    w->rule_matcher = NULL;
    rec_cache_clear(&w->recs); /* its keys are the scanner's site numbers */
}

static void spill_release(void *ctx, int reuse)
{
    const urls_job *job = ctx;
    if (reuse) rs_sites_recycle(job->sites);
    else rs_sites_release(job->sites);
}

static void spill_run_close(void *ctx, void *state)
{
    (void)ctx;
    worker_state_free(state);
}

static void spill_oversized(void *ctx, pipeline_result *res, uint64_t line_no, uint64_t len)
{
    const urls_job *job = ctx;
    res->counts.lines++;
    res->counts.malformed++;
    note_malformed(job, line_no, NULL, 0, len);
    if (job->verbose)
        pipeline_diag(res, "%s:%llu: line of %llu bytes is too long for a URL, skipped", job->input_name,
                      (unsigned long long)line_no, (unsigned long long)len);
}

static int spill_header(void *ctx)
{
    const urls_job *job = ctx;
    return pipeline_write_header(job->pl) == 0 ? 0 : 2;
}

static void spill_configure(urls_job *job, uint64_t limit, spill_config *sc)
{
    memset(sc, 0, sizeof *sc);
    sc->io = &job->job->io;
    sc->memory_limit = limit;
    sc->jobs = job->job->workers;
    sc->dir = job_spill_dir(job->job);
    rs_sites_stats sst;
    rs_sites_get_stats(job->sites, &sst);
    sc->known_sites = sst.dir_entries + sst.manifest_lines + 1;
    sc->want_tallies = job->want_tallies;
    sc->origin_counters = OC_COUNT;
    sc->ctx = job;
    sc->run_open = spill_run_open;
    sc->run_close = spill_run_close;
    sc->reset = spill_reset;
    sc->release = spill_release;
    sc->process = process_lines;
    sc->oversized = spill_oversized;
    sc->header = spill_header;
}

static int admit_block(void *ctx, const rs_block *block)
{
    const urls_job *job = ctx;
    return spill_gate_admit(job->gate, block);
}


/* ===== Totals ===== */

static void free_totals(pipeline_totals *all);

/* The pipeline's totals with the partitioned part's added (tallies merged into new ones:
 * free_totals). */
static rs_status all_totals(urls_job *job, pipeline_totals *all)
{
    memset(all, 0, sizeof *all);
    if (!job->pipe_inited) return RS_OK;
    const pipeline_totals *t = pipeline_totals_get(&job->pipe);
    *all = *t;
    all->origins = all->rules = NULL;
    pipeline_counts_add(&all->counts, &job->part.counts);
    all->bytes_in += job->part.bytes_in;
    all->bytes_out += job->part.bytes_out;
    if (!job->want_tallies) return RS_OK;
    if (t->origins == NULL /* the pipeline's merge ran out of memory */
        || rs_tally_create(OC_COUNT, &all->origins) != RS_OK || rs_tally_create(1, &all->rules) != RS_OK
        || rs_tally_merge(all->origins, t->origins) != RS_OK || rs_tally_merge(all->rules, t->rules) != RS_OK
        || (job->part.origins && (rs_tally_merge(all->origins, job->part.origins) != RS_OK
                                  || rs_tally_merge(all->rules, job->part.rules) != RS_OK))) {
        free_totals(all);
        return RS_ERR_NOMEM;
    }
    return RS_OK;
}

static void free_totals(pipeline_totals *all)
{
    rs_tally_free(all->origins);
    rs_tally_free(all->rules);
    all->origins = all->rules = NULL;
}

static void urls_totals(rs_job *jb, rs_job_totals *out)
{
    urls_job *job = jb->impl;
    if (job == NULL || !job->pipe_inited) return;
    const pipeline_totals *t = pipeline_totals_get(&job->pipe);
    pipeline_counts c = t->counts;
    pipeline_counts_add(&c, &job->part.counts);
    out->lines = c.lines;
    out->blank = c.blank;
    out->records = c.urls;
    out->malformed = c.malformed;
    out->skipped = c.skipped;
    out->verdict[0] = c.verdict[0];
    out->verdict[1] = c.verdict[1];
    memcpy(out->reason, c.reason, sizeof out->reason);
    out->bytes_in = t->bytes_in + job->part.bytes_in;
    out->bytes_out = t->bytes_out + job->part.bytes_out;
    out->partitions = job->ss.partitions;
}

/* Written by the library's mergeable-statistics writer (rs_stats_*): keyed lists in a fixed
 * order (most counted first, then key bytes), so the JSON does not depend on the number of
 * threads or on the worker of a block. */
static rs_status urls_stats(rs_job *jb, rs_outbuf *out)
{
    urls_job *job = jb->impl;
    pipeline_totals all;
    RS_FORWARD(all_totals(job, &all));
    const pipeline_totals *t = &all;
    const double seconds = jb->seconds;
    rs_outbuf b = { 0 };
    const pipeline_counts *c = &t->counts;
    rs_stats_writer w;
    rs_stats_begin(&w, &b, "urls", 2);
    rs_stats_label(&w, "agent", jb->agents[0], strlen(jb->agents[0]));
    rs_stats_labels(&w, "agents", (const char *const *)jb->agents, jb->n_agents);
    rs_stats_labels(&w, "inputs", (const char *const *)jb->inputs, jb->n_inputs);
    rs_stats_count(&w, "lines", c->lines);
    rs_stats_count(&w, "urls", c->urls);
    rs_stats_count(&w, "blank", c->blank);
    rs_stats_count(&w, "malformed", c->malformed);
    rs_stats_count(&w, "skipped", c->skipped);
    rs_stats_object(&w, "verdicts");
    rs_stats_count(&w, "allow", c->verdict[0]);
    rs_stats_count(&w, "disallow", c->verdict[1]);
    rs_stats_end(&w);
    rs_stats_object(&w, "reasons");
    for (int r = 0; r < RS_REASON_COUNT; r++) rs_stats_count(&w, rs_reason_str((rs_reason)r), c->reason[r]);
    rs_stats_end(&w);
    static const char *const ORIGIN_KEY[] = { "origin" }, *const ORIGIN_COUNTERS[] = { "allow", "disallow" };
    static const char *const RULE_KEY[] = { "origin", "#line", "rule" }, *const RULE_COUNTERS[] = { "count" };
    rs_stats_tally(&w, "origins", t->origins, ORIGIN_KEY, 1, ORIGIN_COUNTERS, OC_COUNT, NULL);
    rs_stats_tally(&w, "rules", t->rules, RULE_KEY, 3, RULE_COUNTERS, 1, NULL);
    rs_stats_count(&w, "bytes_in", t->bytes_in);
    rs_stats_count(&w, "bytes_out", t->bytes_out);
    rs_stats_seconds(&w, "seconds", seconds);
    rs_stats_rate(&w, "urls_per_second", seconds > 0 ? (double)c->urls / seconds : 0.0);
    const rs_status st = rs_stats_finish(&w);
    free_totals(&all);
    if (st != RS_OK) {
        rs_outbuf_free(&b);
        return st;
    }
    *out = b;
    return RS_OK;
}


/* ===== The job ===== */

#define DEFAULT_MEMORY_LIMIT ((uint64_t)1 << 30)

/*
 * Input block bytes. The scanner groups a block's URLs by site, so the more URLs of a
 * site a block holds, the fewer times its matcher is fetched cold: blocks grow with the
 * sites the sources know, from 4 MiB up to 64 MiB, so that the blocks being decided at
 * once (one a worker) hold ~4 KiB a site together (85 URLs of each at -j 1). Larger
 * blocks at -j 2 only add memory that is new to the process (its first touch is what
 * costs: measured at 4,000 sites, 8 MiB blocks instead of 16 run as fast in 120 MB
 * instead of 200). What a block costs in flight bounds them: every pipeline slot holds
 * a block and its output (about 3x the input for records, nothing for --quiet), and
 * each worker's scanner about 2x a block in arrays; all of it stays under a quarter of
 * the memory budget (256 MiB with no budget). A gated run (its sites may not fit the
 * budget) keeps GATED_BLOCK: the gate switches to partitions at block granularity.
 */
#define GATED_BLOCK ((size_t)4 << 20)

static size_t block_size_for(uint64_t known_sites, int workers, int quiet, uint64_t limit)
{
    const size_t min = (size_t)4 << 20, max = (size_t)64 << 20;
    const uint64_t jobs = workers > 1 ? (uint64_t)workers : 1;
    const uint64_t per_block = (uint64_t)pipeline_slots(workers) * (quiet ? 1 : 4) + 2 * jobs;
    const uint64_t in_flight = limit ? limit / 4 : (uint64_t)256 << 20;
    uint64_t want = known_sites * 4096 / jobs;
    if (want > in_flight / per_block) want = in_flight / per_block;
    return want < min ? min : want > max ? max : (size_t)want;
}


static rs_status urls_start(rs_job *jb)
{
    if (jb->n_agents < 1) {
        rs_io_error(&jb->io, RS_ERR_USAGE, "a urls job needs at least one agent");
        return RS_ERR_USAGE;
    }
    urls_job *job = rs_calloc(1, sizeof *job);
    if (job == NULL) return RS_ERR_NOMEM;
    jb->impl = job;
    job->job = jb;
    job_set_columns(jb, COLUMNS, N_COLUMNS);
    if (jb->sites == NULL) {
        /* urls reports verdicts only: matchers are all a loaded site needs to keep. */
        const rs_sites_options so = { .drop_rules = 1 };
        rs_sites *sites = NULL;
        const rs_status st = rs_sites_create_opts((const char *const *)jb->robots, jb->n_robots, &so, &sites);
        if (st != RS_OK) {
            rs_io_error(&jb->io, st, "%s", sites ? rs_sites_errmsg(sites) : rs_status_str(st));
            rs_sites_free(sites);
            return st;
        }
        jb->sites = sites;
        jb->own_sites = 1;
    }
    /* most sites of a frontier decide a few URLs: their matchers start as rule lists
     * (the same answers for a fraction of the build), and the scanner turns a site to
     * its trie once it decides many */
    rs_sites_use_lists(jb->sites, 1);
    rs_sites_set_semantics(jb->sites, jb->semantics);
    const int quiet = jb->no_records;
    job->format = jb->format;
    job->input_line = jb->input_line || jb->format == RS_FORMAT_FIELDS; /* records carry their line */
    job->verbose = jb->verbose;
    job->quiet = quiet;
    job->encode_urls = jb->encode_urls;
    job->semantics = jb->semantics;
    job->only = jb->only - 1;
    for (int v = 0; v < 2; v++) job->print[v] = !quiet && (job->only < 0 || job->only == v);
    job->missing = (int)jb->missing;
    job->sites = jb->sites;
    job->agents = (const char *const *)jb->agents;
    job->n_agents = (int)jb->n_agents;
    for (size_t a = 0; a < jb->n_agents; a++) job->agent_lens[a] = strlen(jb->agents[a]);
    job->want_tallies = jb->tallies;
    job->input_name = "(stdin)";
    pthread_mutex_init(&job->first_store.lock, NULL);
    job->first = &job->first_store;
    if (job->format == RS_FORMAT_TSV || job->format == RS_FORMAT_CSV) { /* URLs hold no '\n' */
        const char *special = job->format == RS_FORMAT_TSV ? "\\\t\r" : ",\"\r";
        job->url_verbatim = rs_byteset_init(&job->url_special, special, strlen(special)) == RS_OK;
    }
    for (int r = 0; r < RS_REASON_COUNT; r++) {
        job->reasons[r].ptr = rs_reason_str((rs_reason)r);
        job->reasons[r].len = strlen(job->reasons[r].ptr);
        if (RS_FORMAT_VALUE_BOUND(job->reasons[r].len) > sizeof job->reasons_tsv_text[r]) {
            rs_io_error(&jb->io, RS_ERR_USAGE, "internal error: reason '%s' too long", job->reasons[r].ptr);
            return RS_ERR_USAGE;
        }
        job->reasons_tsv[r].ptr = job->reasons_tsv_text[r];
        job->reasons_tsv[r].len = rs_format_value(job->reasons_tsv_text[r], sizeof job->reasons_tsv_text[r],
                                                  RS_FORMAT_TSV, job->reasons[r].ptr, job->reasons[r].len);
    }

    /* The memory budget: the sites the sources know may not fit it, so a gate watches the
     * hosts of the input and the run goes on in partitions once they would not. */
    const int unlimited = jb->memory_limit == 0;
    const uint64_t limit = unlimited ? DEFAULT_MEMORY_LIMIT : jb->memory_limit;
    spill_configure(job, limit, &job->sc);
    job->ss.memory_limit = limit;
    spill_gate_init(&job->gate_store, limit);
    job->rec_max_text = unlimited || limit / 16 > REC_MAX_TEXT ? REC_MAX_TEXT : limit / 16;
    job->rec_max_entries = job->rec_max_text / REC_KEY_BYTES;
    if (!unlimited && job->sc.known_sites > SPILL_GATE_HOSTS(limit)) job->gate = &job->gate_store;

    pipeline_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.io = &jb->io;
    cfg.jobs = jb->workers;
    cfg.write_header = !quiet && jb->header;
    cfg.format = job->format;
    cfg.process = process_block;
    cfg.block_size = job->gate ? GATED_BLOCK : block_size_for(job->sc.known_sites, jb->workers, quiet, unlimited ? 0 : limit);
    cfg.ctx = job;
    cfg.state_new = worker_state_new;
    cfg.state_free = worker_state_free;
    cfg.tally_counters_origin = OC_COUNT;
    cfg.columns = jb->columns;
    cfg.n_columns = jb->n_columns;
    if (job->gate) cfg.admit = admit_block;
    job->pl = &job->pipe;
    if (pipeline_init(&job->pipe, &cfg) != 0) {
        pipeline_free(&job->pipe);
        return RS_ERR_NOMEM;
    }
    job->pipe_inited = 1;
    return RS_OK;
}

/*
 * One input: through the pipeline while the gate (when there is one) admits its blocks,
 * then, from the first block it refuses to the end of the job's last input, in partitions.
 */
static rs_status urls_run(rs_job *jb, const job_input *in)
{
    urls_job *job = jb->impl;
    job->input_name = in->name;
    if (job->switched) {
        rs_reader *r = NULL;
        if (rs_io_open_input(&jb->io, in, 0, &r) != RS_OK) return RS_ERR_IO;
        const int rc = spill_run(&job->sc, r, NULL, &job->part, &job->ss);
        rs_reader_free(r);
        return rc ? RS_ERR_IO : RS_OK;
    }
    rs_reader *rest = NULL;
    rs_block pending;
    int rc = pipeline_run_input(&job->pipe, in, job->gate ? &rest : NULL, &pending);
    if (rc != 3) return rc ? RS_ERR_IO : RS_OK;
    /* The sites would not fit: what the pipeline loaded goes (its scanners are not
     * used again), and this input from the refused block on runs in partitions. */
    job->switched = 1;
    job->ss.switch_line = pending.first_line;
    job->ss.switch_input = job->input_name;
    rs_sites_release(job->sites);
#ifdef __GLIBC__
    /* what it freed sits in the pipeline threads' malloc arenas, which the partitions'
     * workers do not use: give it back (1M sites, -j 2: 1.13 GB RSS without) */
    malloc_trim(0);
#endif
    rc = spill_run(&job->sc, rest, &pending, &job->part, &job->ss);
    rs_reader_free(rest);
    return rc ? RS_ERR_IO : RS_OK;
}

static rs_status urls_finish(rs_job *jb)
{
    urls_job *job = jb->impl;
    if (job == NULL) return RS_OK;
    const spill_stats *ss = &job->ss;
    if (ss->switch_input && job->verbose)
        rs_io_diagf(&jb->io, "memory limit %llu bytes: partitioned from %s:%llu on: %u partitions, %u workers, "
                    "%u evictions, %llu bytes spilled (%s); split %.2f s, run %.2f s, merge %.2f s\n",
                    (unsigned long long)ss->memory_limit, ss->switch_input, (unsigned long long)ss->switch_line,
                    ss->partitions, ss->workers, ss->evictions, (unsigned long long)ss->spill_bytes,
                    ss->stored ? "stored" : "zstd",
                    ss->seconds[0], ss->seconds[1], ss->seconds[2]);
    if (rs_io_flush(&jb->io, 0) != 0) return RS_ERR_IO;
    rs_job_totals t;
    urls_totals(jb, &t);
    report_malformed(&jb->io, job->first, t.malformed);
    return RS_OK;
}

static void urls_free(rs_job *jb)
{
    urls_job *job = jb->impl;
    if (job == NULL) return;
    if (job->pipe_inited) pipeline_free(&job->pipe);
    spill_gate_free(&job->gate_store);
    free_totals(&job->part);
    if (job->first) pthread_mutex_destroy(&job->first_store.lock);
    rs_free(job);
    jb->impl = NULL;
}

const rs_job_ops rs_job_urls_ops = {
    .start = urls_start,
    .run = urls_run,
    .finish = urls_finish,
    .totals = urls_totals,
    .stats = urls_stats,
    .free = urls_free,
};
