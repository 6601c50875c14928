/*
 * delay.c - the crawl-delay pass (delay.h).
 *
 * Each hit bound by a delay is an entry (key, hit number, epoch). The pass
 * orders every key's entries by (epoch, hit number), a total order, and
 * flags an entry that comes less than the key's delay after the one before
 * it (SPEC 4: /robots.txt fetches count in the spacing, are never flagged).
 * Entries past the budget are sorted into runs on temporary files, and the
 * pass merges the runs and what is still in memory. It does not decide
 * which hits are bound, nor print anything.
 */
#include "log/delay.h"
#include "scan/spill.h"

#include <math.h>
#include <stdio.h>

typedef struct {
    uint32_t key;           /* index in the keys tally */
    uint32_t rec;           /* the hit's number */
    int64_t  epoch;
    uint32_t flags;         /* F_* */
} delay_entry;

enum { F_ROBOTS = 1, F_DISALLOWED = 2 };

struct rs_delay {
    char *dir;              /* for spill files */
    rs_tally *keys;         /* "bot\torigin" -> [delay in ms] */
    uint64_t *key_viol;     /* per key, after rs_delay_run */
    delay_entry *e;
    size_t n, cap;
    rs_spill **runs;        /* sorted runs */
    size_t n_runs;
};

rs_status rs_delay_create(const char *spill_dir, rs_delay **out)
{
    *out = NULL;
    rs_delay *d = rs_calloc(1, sizeof *d);
    RS_RETURN_IF(d == NULL, RS_ERR_NOMEM);
    if ((spill_dir && (d->dir = rs_strdup(spill_dir)) == NULL) || rs_tally_create(1, &d->keys) != RS_OK) {
        rs_delay_free(d);
        return RS_ERR_NOMEM;
    }
    *out = d;
    return RS_OK;
}

void rs_delay_free(rs_delay *d)
{
    if (d == NULL) return;
    for (size_t r = 0; r < d->n_runs; r++) rs_spill_close(d->runs[r]);
    rs_free(d->runs);
    rs_free(d->e);
    rs_free(d->key_viol);
    rs_tally_free(d->keys);
    rs_free(d->dir);
    rs_free(d);
}

rs_status rs_delay_add(rs_delay *d, const char *key, size_t key_len, double delay, uint32_t rec, int64_t epoch,
                       int robots, int disallowed)
{
    uint32_t ki;
    RS_FORWARD(rs_tally_find(d->keys, key, key_len, &ki));
    rs_tally_counters(d->keys, ki)[0] = (uint64_t)llround(delay * 1000.0);
    if (d->n == d->cap) {
        const size_t cap = d->cap ? d->cap * 2 : 4096;
        delay_entry *e = rs_realloc(d->e, cap * sizeof *e);
        RS_RETURN_IF(e == NULL, RS_ERR_NOMEM);
        d->e = e;
        d->cap = cap;
    }
    d->e[d->n++] = (delay_entry){ ki, rec, epoch, (robots ? F_ROBOTS : 0u) | (disallowed ? F_DISALLOWED : 0u) };
    return RS_OK;
}

uint64_t rs_delay_memory(const rs_delay *d) { return (uint64_t)d->n * sizeof *d->e; }

uint32_t rs_delay_keys(const rs_delay *d) { return rs_tally_size(d->keys); }

rs_str rs_delay_key(const rs_delay *d, uint32_t i) { return rs_tally_key(d->keys, i); }

uint64_t rs_delay_key_violations(const rs_delay *d, uint32_t i) { return d->key_viol ? d->key_viol[i] : 0; }

/* ===== Sorting ===== */

static inline int delay_less(const delay_entry *x, const delay_entry *y)
{
    return x->epoch != y->epoch ? x->epoch < y->epoch : x->rec < y->rec;
}

static int delay_cmp(const void *a, const void *b)
{
    const delay_entry *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    if (x->epoch != y->epoch) return x->epoch < y->epoch ? -1 : 1;
    return x->rec < y->rec ? -1 : x->rec > y->rec;
}

/*
 * Sorts one key's entries by (epoch, rec): a natural merge sort (logs are
 * runs of ascending times, e.g. one per rotated file), merging neighbouring
 * runs pairwise, back and forth between @d and @tmp, until one is left.
 */
static void sort_runs(delay_entry *d, size_t n, delay_entry *tmp)
{
    delay_entry *src = d, *dst = tmp;
    for (;;) {
        size_t a = 0, runs = 0;
        while (a < n) {
            size_t m = a + 1;
            while (m < n && !delay_less(&src[m], &src[m - 1])) m++;
            runs++;
            if (m == n) {                     /* a last run without a partner */
                memcpy(dst + a, src + a, (n - a) * sizeof *d);
                break;
            }
            size_t b = m + 1;
            while (b < n && !delay_less(&src[b], &src[b - 1])) b++;
            size_t i = a, j = m, o = a;
            while (i < m && j < b) dst[o++] = delay_less(&src[j], &src[i]) ? src[j++] : src[i++];
            while (i < m) dst[o++] = src[i++];
            while (j < b) dst[o++] = src[j++];
            a = b;
        }
        delay_entry *t = src;
        src = dst;
        dst = t;
        if (runs <= 1) break;
    }
    if (src != d) memcpy(d, src, n * sizeof *d);
}

/*
 * Sorts entries by (key, epoch, rec), a total order (rec is unique), as
 * qsort with delay_cmp would: a stable counting sort by key (keys are dense
 * indexes), then each key's entries by a natural merge sort (sort_runs),
 * which costs one pass when they are in order.
 */
static void sort_delays(delay_entry *d, size_t n)
{
    if (n < 2) return;
    uint32_t maxk = 0;
    for (size_t i = 0; i < n; i++)
        if (d[i].key > maxk) maxk = d[i].key;
    size_t *start = maxk < n ? rs_calloc((size_t)maxk + 2, sizeof *start) : NULL;
    delay_entry *tmp = start ? rs_malloc(n * sizeof *tmp) : NULL;
    if (tmp == NULL) {
        rs_free(start);
        qsort(d, n, sizeof *d, delay_cmp);
        return;
    }
    for (size_t i = 0; i < n; i++) start[d[i].key + 1]++;
    for (size_t k = 0; k <= maxk; k++) start[k + 1] += start[k];
    for (size_t i = 0; i < n; i++) tmp[start[d[i].key]++] = d[i];   /* start[k] ends at run k's end */
    memcpy(d, tmp, n * sizeof *d);
    size_t a = 0;
    for (size_t k = 0; k <= maxk; k++) {
        const size_t b = start[k];
        size_t i = a + 1;
        while (i < b && !delay_less(&d[i], &d[i - 1])) i++;
        if (i < b) sort_runs(d + a, b - a, tmp + a);
        a = b;
    }
    rs_free(tmp);
    rs_free(start);
}

rs_status rs_delay_spill(rs_delay *d, char *err, size_t err_cap)
{
    rs_spill **r = rs_realloc(d->runs, (d->n_runs + 1) * sizeof *r);
    RS_RETURN_IF(r == NULL, RS_ERR_NOMEM);
    d->runs = r;
    sort_delays(d->e, d->n);
    RS_FORWARD(rs_spill_open(d->dir, &r[d->n_runs], err, err_cap));
    rs_spill *s = r[d->n_runs++];
    RS_FORWARD(rs_spill_write(s, d->e, d->n * sizeof *d->e, err, err_cap));
    RS_FORWARD(rs_spill_rewind(s, err, err_cap));
    d->n = 0;
    return RS_OK;
}

/* ===== The pass ===== */

/* One pass over every key's entries in (key, epoch, rec) order. */
typedef struct {
    delay_entry prev;
    int have_prev;
    uint64_t allowed_violations;
} delay_scan;

static void delay_step(const rs_delay *d, delay_scan *sc, const delay_entry *cur, uint8_t *v)
{
    if (sc->have_prev && sc->prev.key == cur->key) {
        const uint64_t delay_ms = rs_tally_counters_const(d->keys, cur->key)[0];
        /* SPEC 4: /robots.txt fetches count in the spacing, are never flagged. */
        if (!(cur->flags & F_ROBOTS) && (uint64_t)(cur->epoch - sc->prev.epoch) * 1000 < delay_ms) {
            v[cur->rec] = 1;
            d->key_viol[cur->key]++;
            if (!(cur->flags & F_DISALLOWED)) sc->allowed_violations++;
        }
    }
    sc->prev = *cur;
    sc->have_prev = 1;
}

/* Reads the next entry of run @s into @e. @return 1, 0 at its end, -1 on error (*st). */
static int run_next(rs_spill *s, delay_entry *e, rs_status *st)
{
    const rs_status r = rs_spill_read(s, e, sizeof *e);
    if (r == RS_OK) return 1;
    if (r == RS_ERR_EOF) return 0;
    *st = r;
    return -1;
}

rs_status rs_delay_run(rs_delay *d, uint8_t *v, size_t n_records, uint64_t *allowed_violations)
{
    (void)n_records;
    *allowed_violations = 0;
    rs_free(d->key_viol);
    d->key_viol = rs_calloc((size_t)rs_tally_size(d->keys) + 1, sizeof *d->key_viol);
    RS_RETURN_IF(d->key_viol == NULL, RS_ERR_NOMEM);
    sort_delays(d->e, d->n);
    delay_scan sc;
    memset(&sc, 0, sizeof sc);
    if (d->n_runs == 0) {
        for (size_t i = 0; i < d->n; i++) {
            assert(d->e[i].rec < n_records);
            delay_step(d, &sc, &d->e[i], v);
        }
        *allowed_violations = sc.allowed_violations;
        return RS_OK;
    }
    /* k-way merge: the runs' heads and the entries still in memory */
    const size_t k = d->n_runs;
    delay_entry *head = rs_malloc(k * sizeof *head);
    int *live = rs_calloc(k, sizeof *live);
    if (head == NULL || live == NULL) {
        rs_free(head);
        rs_free(live);
        return RS_ERR_NOMEM;
    }
    rs_status st = RS_OK;
    int failed = 0;
    for (size_t r = 0; r < k; r++) {
        const int got = run_next(d->runs[r], &head[r], &st);
        live[r] = got == 1;
        failed |= got < 0;
    }
    size_t mem = 0;
    while (!failed) {
        size_t best = SIZE_MAX;
        for (size_t r = 0; r < k; r++)
            if (live[r] && (best == SIZE_MAX || delay_cmp(&head[r], &head[best]) < 0)) best = r;
        const int take_mem = mem < d->n && (best == SIZE_MAX || delay_cmp(&d->e[mem], &head[best]) < 0);
        if (take_mem) {
            delay_step(d, &sc, &d->e[mem++], v);
            continue;
        }
        if (best == SIZE_MAX) break;
        if (head[best].rec >= n_records) {   /* not an entry this pass wrote */
            st = RS_ERR_CORRUPT;
            break;
        }
        delay_step(d, &sc, &head[best], v);
        const int got = run_next(d->runs[best], &head[best], &st);
        live[best] = got == 1;
        failed |= got < 0;
    }
    rs_free(head);
    rs_free(live);
    *allowed_violations = sc.allowed_violations;
    return st;
}
