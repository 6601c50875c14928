/*
 * urls_spill.c - `urls --memory-limit SIZE`: when the sites of an input may
 * not fit in memory, the input is partitioned by a hash of each URL's origin
 * into temporary zstd spill files (src/scan/spill.c: anonymous, so removed
 * whatever ends the process), the partitions are run in groups whose sites
 * fit the budget (each group opens the robots sources afresh and frees them
 * after), each partition's output goes to a spill file of its own, and the
 * outputs are merged back into input order by line number: the bytes on
 * stdout and stderr are the same as without a limit.
 *
 * 1. split: lines -> P partition spills (line number, bytes); P is a power of
 *    two from 16 to 256, enough for the sites the robots sources know to fit
 *    half the budget in P runs; blank and comment lines are only counted;
 *    distinct origin keys counted per partition;
 * 2. run: consecutive partitions while (distinct keys x SITE_COST) fits half
 *    the budget (at least one partition per run), blocks of their lines
 *    through the command's process(), output per line -> output spills;
 * 3. merge: the output spills by line number -> stdout / stderr.
 */
#include "cli/urls_spill.h"
#include "scan/spill.h"

#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#define NPART_MIN 16
#define NPART_MAX 256
#define SITE_COST ((uint64_t)12 << 10)  /* bytes a site costs loaded (ruleset + matcher + tables) */
#define RUN_BLOCK ((size_t)1 << 20)     /* text per block in a run */
#define OVERSIZED_MARK UINT32_MAX

/* ===== Distinct keys per partition (a set of 64-bit hashes) ===== */

typedef struct {
    uint64_t *h;
    size_t mask, n;
} hset;

static int hset_add(hset *s, uint64_t h)
{
    if (h == 0) h = 1;
    if (s->h == NULL || (s->n + 1) * 2 > s->mask + 1) {
        const size_t cap = s->h ? (s->mask + 1) * 2 : 1024;
        uint64_t *n = calloc(cap, sizeof *n);
        if (n == NULL) return -1;
        for (size_t i = 0; s->h && i <= s->mask; i++) {
            if (!s->h[i]) continue;
            size_t j = (size_t)s->h[i] & (cap - 1);
            while (n[j]) j = (j + 1) & (cap - 1);
            n[j] = s->h[i];
        }
        free(s->h);
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
    return 0;
}

/* ===== Helpers ===== */

static int is_skippable(const char *p, size_t n)
{
    if (n > 0 && p[0] != ' ' && p[0] != '\t' && p[0] != '\r' && p[0] != '#') return 0;
    size_t i = 0;
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r')) i++;
    return i == n || p[i] == '#';
}

/* The partition key of a URL: its bytes up to the end of the authority, ASCII lower-cased. */
static uint64_t origin_hash(const char *u, size_t len)
{
    size_t i = 0;
    while (i < len && ((unsigned char)u[i] <= 0x20 || (unsigned char)u[i] >= 0x80)) i++;
    const rs_url_parts parts = rs_url_split(u + i, len - i);
    size_t k = parts.authority_end;
    char low[256];
    if (k > sizeof low) k = sizeof low;
    for (size_t j = 0; j < k; j++) {
        const char c = u[i + j];
        low[j] = (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
    }
    return XXH3_64bits(low, k);
}

typedef struct {
    int np, shift;              /* partitions; a hash's partition is h >> shift */
    rs_spill *in[NPART_MAX], *out[NPART_MAX];
    hset keys[NPART_MAX];
    uint64_t bytes;             /* compressed bytes written to spill files */
    char err[512];
} spill_set;

static void set_free(spill_set *s)
{
    for (int p = 0; p < NPART_MAX; p++) {
        rs_spill_close(s->in[p]);
        rs_spill_close(s->out[p]);
        free(s->keys[p].h);
    }
}

static void add_counts(pipeline_counts *to, const pipeline_counts *c)
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

/* Runs partition @p: its lines in blocks through cfg->process, outputs to s->out[p]. */
static int run_partition(const spill_config *cfg, void *state, spill_set *s, int p, pipeline_result *res)
{
    rs_status st = rs_spill_rewind(s->in[p], s->err, sizeof s->err);
    s->bytes += rs_spill_bytes(s->in[p]);
    if (st == RS_OK) st = rs_spill_open(cfg->dir, &s->out[p], s->err, sizeof s->err);
    if (st != RS_OK) {
        cli_error("%s", s->err[0] ? s->err : rs_status_str(st));
        return 2;
    }
    rs_outbuf text = { 0 };
    uint64_t *nos = NULL;
    size_t *ends = NULL;
    size_t cap = 0, n = 0;
    int rc = 0, done = 0;
    while (!done && rc == 0) {
        /* fill a block */
        text.len = 0;
        n = 0;
        uint64_t over_no = 0, over_len = 0;
        int over = 0;
        while (text.len < RUN_BLOCK) {
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
            if (n == cap) {
                cap = cap ? cap * 2 : 4096;
                uint64_t *a = realloc(nos, cap * sizeof *a);
                if (a) nos = a;
                size_t *b = realloc(ends, 2 * cap * sizeof *b);
                if (b) ends = b;
                if (a == NULL || b == NULL) { cli_error("out of memory"); rc = 2; goto out; }
            }
            const size_t at = text.len;
            if (text.cap < at + len + 1 + 64) {  /* the line, its newline, 64 readable bytes */
                const size_t c = (at + len + 65) * 2 > RUN_BLOCK * 2 ? (at + len + 65) * 2 : RUN_BLOCK * 2;
                char *g = realloc(text.ptr, c);
                if (g == NULL) { cli_error("out of memory"); rc = 2; goto out; }
                text.ptr = g;
                text.cap = c;
            }
            if (len && rs_spill_read(s->in[p], text.ptr + at, len) != RS_OK) goto bad_read;
            text.ptr[at + len] = '\n';
            text.len = at + len + 1;
            nos[n++] = no;
        }
        if (n) {
            rs_block b;
            memset(&b, 0, sizeof b);
            b.ptr = text.ptr;
            b.len = text.len;
            b.first_line = 1;
            b.lines = n;
            res->out.len = res->diag.len = 0;
            st = cfg->process(cfg->ctx, state, &b, nos, res, ends);
            if (st != RS_OK || res->status != RS_OK) {
                if (res->diag.len) fwrite(res->diag.ptr, 1, res->diag.len, stderr);
                cli_error("%s", res->errmsg[0] ? res->errmsg : rs_status_str(st));
                rc = 2;
                goto out;
            }
            st = spill_outputs(s->out[p], res, nos, ends, n, s->err, sizeof s->err);
            res->out.len = res->diag.len = 0;
            if (st != RS_OK) { cli_error("%s", s->err); rc = 2; goto out; }
        }
        if (over) {
            res->out.len = res->diag.len = 0;
            cfg->oversized(cfg->ctx, res, over_no, over_len);
            size_t e[2] = { res->out.len, res->diag.len };
            st = spill_outputs(s->out[p], res, &over_no, e, 1, s->err, sizeof s->err);
            res->out.len = res->diag.len = 0;
            if (st != RS_OK) { cli_error("%s", s->err); rc = 2; goto out; }
        }
    }
    goto out;
bad_read:
    cli_error("cannot read back a spill file in %s", cfg->dir);
    rc = 2;
out:
    rs_outbuf_free(&text);
    free(nos);
    free(ends);
    rs_spill_close(s->in[p]);
    s->in[p] = NULL;
    return rc;
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
        if (rs_spill_rewind(s->out[p], s->err, sizeof s->err) != RS_OK) {
            cli_error("%s", s->err);
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
        rs_outbuf *o = cli_out();
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
            if (cli_out_flush(0) != 0) goto bad_d;   /* as the pipeline: records, then its diagnostics */
            fwrite(diag.ptr, 1, diag.len, stderr);
        }
        if (cli_out_flush(1 << 18) != 0) goto bad_d;
        if (next_head(s->out[best], &h[best]) != 0) goto bad_d;
    }
    rs_outbuf_free(&diag);
    return 0;
bad_d:
    rs_outbuf_free(&diag);
bad:
    cli_error("cannot read back a spill file in %s", cfg->dir);
    return 2;
}

/* ===== Split, run, merge ===== */

int spill_run(const spill_config *cfg, const char *path, const char *input_name, pipeline_totals *tot,
              spill_stats *stats)
{
    static int header_written;
    (void)input_name;
    spill_set s;
    memset(&s, 0, sizeof s);
    /* enough partitions for the sites the sources know (2 origins each: http, https) */
    const uint64_t budget = cfg->memory_limit / 2;
    s.np = NPART_MIN;
    s.shift = 60;
    while (s.np < NPART_MAX && 2 * cfg->known_sites * SITE_COST > (uint64_t)s.np * budget) {
        s.np *= 2;
        s.shift--;
    }
    const int np = s.np;
    for (int p = 0; p < np; p++) {
        if (rs_spill_open(cfg->dir, &s.in[p], s.err, sizeof s.err) != RS_OK) {
            cli_error("%s", s.err[0] ? s.err : "out of memory");
            set_free(&s);
            return 2;
        }
    }
    rs_reader_opts ro;
    memset(&ro, 0, sizeof ro);
    rs_reader *r = NULL;
    rs_status st = rs_reader_open(strcmp(path, "-") ? path : NULL, &ro, &r);
    if (st != RS_OK) {
        cli_error("%s", r ? rs_reader_errmsg(r) : rs_status_str(st));
        rs_reader_free(r);
        set_free(&s);
        return 2;
    }
    if (!header_written && cfg->write_header) {
        header_written = 1;
        if (rs_format_header(cli_out(), cfg->format, cfg->columns, cfg->n_columns) != RS_OK) {
            rs_reader_free(r);
            set_free(&s);
            return 2;
        }
    }

    /* 1. split */
    pipeline_counts counts;
    memset(&counts, 0, sizeof counts);
    rs_block b;
    int rc = 0, input_failed = 0;
    while ((st = rs_reader_next_block(r, &b)) == RS_OK && rc == 0) {
        rs_lines it;
        rs_line ln;
        rs_lines_init(&it, &b);
        while (rs_line_next(&it, &ln) && rc == 0) {
            if (ln.oversized) {
                char rec[20];
                const uint32_t mark = OVERSIZED_MARK;
                memcpy(rec, &ln.number, 8);
                memcpy(rec + 8, &mark, 4);
                memcpy(rec + 12, &ln.oversized, 8);
                if (rs_spill_write(s.in[0], rec, 20, s.err, sizeof s.err) != RS_OK) rc = 2;
                continue;
            }
            if (is_skippable(ln.text.ptr, ln.text.len)) {
                counts.lines++;
                counts.blank++;
                continue;
            }
            const uint64_t h = origin_hash(ln.text.ptr, ln.text.len);
            const int p = (int)(h >> s.shift);
            if (hset_add(&s.keys[p], h) != 0) { s.err[0] = '\0'; rc = 2; break; }
            char rec[12];
            const uint32_t len = (uint32_t)ln.text.len;
            memcpy(rec, &ln.number, 8);
            memcpy(rec + 8, &len, 4);
            if (rs_spill_write(s.in[p], rec, 12, s.err, sizeof s.err) != RS_OK
                || rs_spill_write(s.in[p], ln.text.ptr, len, s.err, sizeof s.err) != RS_OK)
                rc = 2;
        }
    }
    if (rc == 0 && st != RS_ERR_EOF) input_failed = 1;
    rs_reader_stats rst;
    rs_reader_stats_get(r, &rst);
    tot->bytes_in += rst.bytes_in;
    tot->bytes_out += rst.bytes_out;
    if (rc) {
        cli_error("%s", s.err[0] ? s.err : "out of memory");
        rs_reader_free(r);
        set_free(&s);
        return 2;
    }
    add_counts(&tot->counts, &counts);


    /* 2. runs of partitions whose sites fit half the budget */
    int p = 0;
    stats->partitions = np;
    while (p < np && rc == 0) {
        int q = p + 1;
        uint64_t need = (uint64_t)s.keys[p].n * SITE_COST;
        while (q < np && need + (uint64_t)s.keys[q].n * SITE_COST <= budget) {
            need += (uint64_t)s.keys[q].n * SITE_COST;
            q++;
        }
        stats->runs++;
        void *state = cfg->run_open(cfg->ctx);
        if (state == NULL) { rc = 2; break; }
        pipeline_result res;
        memset(&res, 0, sizeof res);
        if (cfg->want_tallies && (rs_tally_create(cfg->origin_counters, &res.origins) != RS_OK
                                  || rs_tally_create(1, &res.rules) != RS_OK)) {
            cli_error("out of memory");
            rc = 2;
        }
        for (int k = p; k < q && rc == 0; k++) rc = run_partition(cfg, state, &s, k, &res);
        cfg->run_close(cfg->ctx, state);
        if (rc == 0) {
            add_counts(&tot->counts, &res.counts);
            if (cfg->want_tallies) {
                if (tot->origins == NULL) {
                    tot->origins = res.origins;
                    tot->rules = res.rules;
                    res.origins = res.rules = NULL;
                } else if (rs_tally_merge(tot->origins, res.origins) != RS_OK
                           || rs_tally_merge(tot->rules, res.rules) != RS_OK) {
                    cli_error("out of memory");
                    rc = 2;
                }
            }
        }
        rs_tally_free(res.origins);
        rs_tally_free(res.rules);
        rs_outbuf_free(&res.out);
        rs_outbuf_free(&res.diag);
        rs_outbuf_free(&res.scratch_key);
        rs_outbuf_free(&res.aux);
        p = q;
    }

    /* 3. merge */
    if (rc == 0) rc = merge(cfg, &s);
    stats->spill_bytes += s.bytes;
    if (rc == 0 && input_failed) {
        cli_out_flush(0);
        cli_error("%s", rs_reader_errmsg(r));
        tot->input_failed = 1;
        rc = 2;
    }
    rs_reader_free(r);
    set_free(&s);
    return rc;
}
