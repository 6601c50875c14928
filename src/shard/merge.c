/*
 * merge.c - rs_merge_records and rs_merge_stats (`robotscan merge`): puts the
 * outputs of shards (rs_shard_split, then urls/logs --input-line on each
 * shard) back into input order, or merges --stats JSON files into the
 * statistics of one run over all the input, following the convention of
 * docs/scale-out.md. JSON is read and written with jansson.
 *
 * Prints nothing: the result goes to the caller's FILE, an error to its
 * message buffer.
 */
#include "shard/shard.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ===== --records ===== */

typedef struct {
    rs_reader *r;
    const uint64_t *pos;      /* mmapped DIR/shard-K.pos */
    size_t npos, map_len;
    rs_outbuf rec;            /* the current record, input_line stripped */
    uint64_t key;             /* its input position */
    int live;
    const char *name;
} rec_src;

static int csv_open_quote(const char *p, size_t n, int in_quote)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] == '"') in_quote = !in_quote;
    return in_quote;
}

/* Reads the next record of @s (a header row when @header); 0 at the end, -1 on error (in @d). */
static int next_record(rec_src *s, rs_format fmt, int header, rs_shard_diag *d)
{
    rs_line ln;
    s->rec.len = 0;
    int q = 0;
    do {
        const rs_status st = rs_reader_next_line(s->r, &ln);
        if (st == RS_ERR_EOF) {
            if (s->rec.len) break;
            return 0;
        }
        if (st != RS_OK) {
            rs_shard_fail(d, st, "%s", rs_reader_errmsg(s->r));
            return -1;
        }
        if (ln.oversized) {
            rs_shard_fail(d, RS_ERR_CORRUPT, "%s:%llu: record too long", s->name, (unsigned long long)ln.number);
            return -1;
        }
        if (rs_outbuf_append(&s->rec, ln.text.ptr, ln.text.len) != RS_OK
            || rs_outbuf_append(&s->rec, "\n", 1) != RS_OK) {
            rs_shard_fail(d, RS_ERR_NOMEM, "out of memory");
            return -1;
        }
        if (fmt == RS_FORMAT_CSV) q = csv_open_quote(ln.text.ptr, ln.text.len, q);
    } while (q);
    char *p = s->rec.ptr;
    size_t skip;
    uint64_t line = 0;
    if (header) {
        const char *sep = memchr(p, fmt == RS_FORMAT_CSV ? ',' : '\t', s->rec.len);
        if (sep == NULL || strncmp(p, "input_line", 10) != 0) {
            rs_shard_fail(d, RS_ERR_CORRUPT, "%s: the header does not start with input_line (run with --input-line)",
                          s->name);
            return -1;
        }
        skip = (size_t)(sep + 1 - p);
    } else if (fmt == RS_FORMAT_JSONL) {
        static const char PFX[] = "{\"input_line\":";
        if (s->rec.len < sizeof PFX || memcmp(p, PFX, sizeof PFX - 1) != 0) goto bad;
        size_t i = sizeof PFX - 1;
        while (i < s->rec.len && p[i] >= '0' && p[i] <= '9') line = line * 10 + (uint64_t)(p[i++] - '0');
        if (i == sizeof PFX - 1 || i >= s->rec.len || p[i] != ',') goto bad;
        p[i] = '{';
        skip = i;
    } else {
        size_t i = 0;
        while (i < s->rec.len && p[i] >= '0' && p[i] <= '9') line = line * 10 + (uint64_t)(p[i++] - '0');
        if (i == 0 || i >= s->rec.len || p[i] != (fmt == RS_FORMAT_CSV ? ',' : '\t')) goto bad;
        skip = i + 1;
    }
    if (!header) {
        if (line == 0 || line > s->npos) {
            rs_shard_fail(d, RS_ERR_CORRUPT, "%s: input_line %llu is not a line of its shard (%zu lines)", s->name,
                          (unsigned long long)line, s->npos);
            return -1;
        }
        s->key = s->pos[line - 1];
    }
    memmove(s->rec.ptr, s->rec.ptr + skip, s->rec.len - skip);
    s->rec.len -= skip;
    return 1;
bad:
    rs_shard_fail(d, RS_ERR_CORRUPT, "%s: a record without an input_line column first (run with --input-line)",
                  s->name);
    return -1;
}

static void heap_down(rec_src **h, size_t n, size_t i)
{
    for (;;) {
        size_t m = i, l = 2 * i + 1, r = l + 1;
        if (l < n && h[l]->key < h[m]->key) m = l;
        if (r < n && h[r]->key < h[m]->key) m = r;
        if (m == i) return;
        rec_src *t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* Writes what @b holds to @out when it holds @threshold bytes or more. */
static int out_flush(rs_outbuf *b, FILE *out, size_t threshold, rs_shard_diag *d)
{
    if (b->len < threshold || b->len == 0) return 0;
    if (fwrite(b->ptr, 1, b->len, out) != b->len)
        return rs_shard_fail(d, RS_ERR_IO, "error writing output: %s", strerror(errno));
    b->len = 0;
    return 0;
}

/* DIR/shards.tsv: the shard count and the #Fields: lines shard copied (w3c-style logs). */
/* Reads DIR/shards.tsv: the shard count, the #Fields: copies, and (into @inputs,
 * a JSON array, when not NULL) the inputs the shards were split from. */
static int read_shards_tsv(const char *dir, unsigned *shards, unsigned long long *copies, json_t *inputs,
                           rs_shard_diag *d)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/shards.tsv", dir);
    FILE *f = fopen(p, "r");
    if (f == NULL) return rs_shard_fail(d, RS_ERR_IO, "%s: %s", p, strerror(errno));
    *shards = 0;
    *copies = 0;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "n\t%u", shards) == 1) continue;
        if (inputs && !strncmp(line, "input\t", 6)) {
            line[strcspn(line, "\n")] = '\0';
            json_array_append_new(inputs, json_string(line + 6));
            continue;
        }
        (void)sscanf(line, "header_copies\t%llu", copies);
    }
    fclose(f);
    return 0;
}

/* Maps DIR/shard-K.pos (the input position of each line of shard K) into @s. */
static int map_positions(rec_src *s, const char *dir, size_t k, rs_shard_diag *d)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/shard-%04zu.pos", dir, k);
    const int fd = open(p, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        rs_shard_fail(d, RS_ERR_IO, "%s: %s", p, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    s->npos = (size_t)st.st_size / 8;
    s->map_len = (size_t)st.st_size;
    int rc = 0;
    if (s->map_len) {
        void *m = mmap(NULL, s->map_len, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) rc = rs_shard_fail(d, RS_ERR_IO, "%s: %s", p, strerror(errno));
        else s->pos = m;
    }
    close(fd);
    return rc;
}

rs_status rs_merge_records(const char *dir, rs_format fmt, const char *const *outs, size_t n, FILE *out, char *err,
                           size_t err_cap)
{
    rs_shard_diag d = { err, err_cap, RS_OK, NULL, NULL };
    if (err && err_cap) err[0] = '\0';
    if (dir == NULL || outs == NULL || out == NULL || n == 0)
        return rs_shard_error(&d, RS_ERR_USAGE, "rs_merge_records: missing arguments");
    if (fmt != RS_FORMAT_TSV && fmt != RS_FORMAT_CSV && fmt != RS_FORMAT_JSONL)
        return rs_shard_error(&d, RS_ERR_USAGE, "merge --records takes tsv, csv or jsonl records");
    unsigned shards = 0;
    unsigned long long copies = 0;
    if (read_shards_tsv(dir, &shards, &copies, NULL, &d) != 0) return rs_shard_status(&d);
    if ((size_t)shards != n)
        return rs_shard_error(&d, RS_ERR_USAGE, "%s has %u shards but %zu outputs were given", dir, shards, n);
    rec_src *src = rs_calloc(n, sizeof *src);
    rec_src **heap = rs_calloc(n, sizeof *heap);
    rs_outbuf b = { 0 };
    int rc = src && heap ? 0 : rs_shard_fail(&d, RS_ERR_NOMEM, "out of memory");
    size_t nh = 0;
    int header_done = fmt == RS_FORMAT_JSONL;
    for (size_t k = 0; rc == 0 && k < n; k++) {
        rec_src *s = &src[k];
        s->name = outs[k];
        if ((rc = map_positions(s, dir, k, &d)) != 0) break;
        const rs_status ost = rs_reader_open(outs[k], NULL, &s->r);
        if (ost != RS_OK) {
            rc = rs_shard_fail(&d, ost, "%s", s->r ? rs_reader_errmsg(s->r) : outs[k]);
            break;
        }
        if (fmt != RS_FORMAT_JSONL) {
            const int got = next_record(s, fmt, 1, &d);
            if (got < 0) rc = -1;
            else if (got > 0 && !header_done) {
                header_done = 1;
                if (rs_outbuf_append(&b, s->rec.ptr, s->rec.len) != RS_OK)
                    rc = rs_shard_fail(&d, RS_ERR_NOMEM, "out of memory");
            }
        }
        if (rc == 0) {
            const int got = next_record(s, fmt, 0, &d);
            if (got < 0) rc = -1;
            else if (got) heap[nh++] = s;
        }
    }
    for (size_t i = nh; i-- > 0;) heap_down(heap, nh, i);
    while (rc == 0 && nh) {
        rec_src *s = heap[0];
        if (rs_outbuf_append(&b, s->rec.ptr, s->rec.len) != RS_OK) {
            rc = rs_shard_fail(&d, RS_ERR_NOMEM, "out of memory");
            break;
        }
        if ((rc = out_flush(&b, out, (size_t)1 << 20, &d)) != 0) break;
        const uint64_t prev = s->key;
        const int got = next_record(s, fmt, 0, &d);
        if (got < 0) rc = -1;
        else if (got == 0) heap[0] = heap[--nh];
        else if (s->key < prev) { /* equal: the records of one line (urls --agent A --agent B) */
            rc = rs_shard_fail(&d, RS_ERR_CORRUPT,
                               "%s: records are not in input order (run each shard without --memory-limit "
                               "reordering? position %llu after %llu)", s->name, (unsigned long long)s->key,
                               (unsigned long long)prev);
        }
        heap_down(heap, nh, 0);
    }
    /* what was merged before an error is written too, as the command always did */
    if (out_flush(&b, out, 0, &d) != 0) rc = -1;
    for (size_t k = 0; src && k < n; k++) {
        rs_reader_free(src[k].r);
        if (src[k].pos) munmap((void *)(uintptr_t)src[k].pos, src[k].map_len);
        rs_outbuf_free(&src[k].rec);
    }
    rs_free(src);
    rs_free(heap);
    rs_outbuf_free(&b);
    return rc == 0 ? RS_OK : rs_shard_status(&d);
}

/* ===== --stats ===== */

#define TOP_K 10 /* the length of top_* lists (cmd_logs.c write_stats) */

typedef enum { M_SUM, M_MIN, M_MAX, M_TIME, M_SAME } merge_rule;

static int has_suffix(const char *s, const char *suf)
{
    const size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

/* The convention of docs/scale-out.md, by key name: the library's (rs_stats_rule_of), which
 * is also what the writer of every command's --stats checks its names against. Rates are
 * summed here and recomputed at the end. */
static merge_rule rule_of(const char *key)
{
    switch (rs_stats_rule_of(key)) {
    case RS_STATS_SAME: return M_SAME;
    case RS_STATS_MIN: return M_MIN;
    case RS_STATS_MAX: return M_MAX;
    case RS_STATS_TIME: return M_TIME;
    default: return M_SUM;
    }
}

/* Fields that identify an element of a keyed list, besides its string fields. */
static int is_key_field(const char *k, const json_t *v)
{
    if (json_is_string(v)) return rule_of(k) == M_SUM || rule_of(k) == M_SAME;
    return !strcmp(k, "line") || !strcmp(k, "hour") || !strcmp(k, "port") || !strcmp(k, "status");
}

/* The identity of a list element: its key fields as NAME=VALUE, \x1f-separated. */
typedef struct {
    const char *name;
    const json_t *v;
} key_field;

static char *elem_key(const json_t *e)
{
    key_field f[16];
    size_t n = 0;
    const char *name;
    json_t *v;
    json_object_foreach((json_t *)(uintptr_t)e, name, v)
        if (n < 16 && is_key_field(name, v)) f[n++] = (key_field){ name, v };
    /* in the file's order (jansson keeps it): every writer writes its fields in one order,
     * and then the order of the keys is the library's (rs_tally_json_list: key bytes) */
    rs_buf b = { 0 }; /* becomes the key: 256 bytes first, keys are short */
    char num[64];
    rs_status st = RS_OK;
    for (size_t i = 0; i < n && st == RS_OK; i++) {
        st = rs_buf_append(&b, f[i].name, strlen(f[i].name));
        if (st == RS_OK) st = rs_buf_append(&b, "=", 1);
        if (st != RS_OK) break;
        if (json_is_string(f[i].v)) {
            st = rs_buf_append(&b, json_string_value(f[i].v), json_string_length(f[i].v));
        } else {
            snprintf(num, sizeof num, "%.17g", json_number_value(f[i].v));
            st = rs_buf_append(&b, num, strlen(num));
        }
        if (st == RS_OK) st = rs_buf_append(&b, "\x1f", 1);
    }
    if (st == RS_OK) st = rs_buf_append(&b, "", 1);
    if (st != RS_OK) {
        rs_buf_free(&b);
        return NULL;
    }
    return b.ptr;
}

static int merge_value(const char *key, json_t *into, json_t *from, json_t **out, char *err, size_t cap);

static int merge_object(json_t *into, json_t *from, char *err, size_t cap)
{
    const char *k;
    json_t *v;
    json_object_foreach(from, k, v) {
        json_t *have = json_object_get(into, k);
        if (have == NULL) {
            json_object_set(into, k, v);
            continue;
        }
        json_t *res = NULL;
        if (merge_value(k, have, v, &res, err, cap) != 0) return -1;
        if (res) json_object_set_new(into, k, res);
    }
    return 0;
}

static double num(const json_t *v) { return json_number_value(v); }

static json_t *number_like(const json_t *a, const json_t *b, double x)
{
    if (json_is_integer(a) && json_is_integer(b)) return json_integer((json_int_t)x);
    return json_real(x);
}

/* The value elements of a keyed list are sorted by (docs/scale-out.md). */
static double weight(const json_t *e)
{
    const json_t *w = json_object_get(e, "hits");
    if (w == NULL) w = json_object_get(e, "count");
    if (w) return num(w);
    double t = 0;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)(uintptr_t)e, k, v)
        if (json_is_number(v) && !is_key_field(k, v) && rule_of(k) == M_SUM) t += num(v);
    return t;
}

typedef struct {
    json_t *e;
    char *key;
    double w;
} keyed;

static int keyed_cmp(const void *pa, const void *pb)
{
    const keyed *a = pa, *b = pb;
    if (a->w != b->w) return a->w > b->w ? -1 : 1;
    return strcmp(a->key, b->key);
}

static int merge_list(const char *name, json_t *into, json_t *from, json_t **out, char *err, size_t cap)
{
    const size_t na = json_array_size(into), nb = json_array_size(from);
    int objects = 1;
    for (size_t i = 0; i < na + nb; i++)
        if (!json_is_object(json_array_get(i < na ? into : from, i < na ? i : i - na))) objects = 0;
    json_t *res = json_array();
    if (!objects) {
        /* lists of values (inputs, ...): concatenated, each value once */
        for (size_t i = 0; i < na + nb; i++) {
            json_t *v = json_array_get(i < na ? into : from, i < na ? i : i - na);
            int dup = 0;
            for (size_t j = 0; j < json_array_size(res) && !dup; j++) dup = json_equal(json_array_get(res, j), v);
            if (!dup) json_array_append(res, v);
        }
        *out = res;
        return 0;
    }
    keyed *ks = rs_calloc(na + nb + 1, sizeof *ks);
    json_t *index = json_object(); /* element key -> its place in ks */
    size_t n = 0;
    int rc = ks && index ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < na + nb; i++) {
        json_t *e = json_array_get(i < na ? into : from, i < na ? i : i - na);
        char *k = elem_key(e);
        if (k == NULL) {
            rc = -1;
            break;
        }
        const json_t *at = json_object_get(index, k);
        const size_t j = at ? (size_t)json_integer_value(at) : n;
        if (j == n) {
            json_object_set_new(index, k, json_integer((json_int_t)n));
            ks[n].e = json_incref(e); /* merged in place: the files' trees are dropped after */
            ks[n].key = k;
            n++;
        } else {
            rs_free(k);
            rc = merge_object(ks[j].e, e, err, cap);
        }
    }
    for (size_t i = 0; i < n; i++) ks[i].w = weight(ks[i].e);
    if (rc == 0 && strcmp(name, "hours") != 0) qsort(ks, n, sizeof *ks, keyed_cmp);
    else if (rc == 0) {
        /* hours: by hour, then agent */
        for (size_t i = 0; i < n; i++) ks[i].w = 0;
        qsort(ks, n, sizeof *ks, keyed_cmp);
    }
    size_t keep = n;
    if (!strncmp(name, "top_", 4)) {
        /* a top-k list stays a top-k list of TOP_K (what the commands write) */
        if (keep > TOP_K) keep = TOP_K;
    }
    for (size_t i = 0; i < n; i++) {
        if (i < keep && rc == 0) json_array_append(res, ks[i].e);
        json_decref(ks[i].e);
        rs_free(ks[i].key);
    }
    rs_free(ks);
    json_decref(index);
    if (rc) {
        json_decref(res);
        return -1;
    }
    *out = res;
    return 0;
}

static int merge_value(const char *key, json_t *into, json_t *from, json_t **out, char *err, size_t cap)
{
    const merge_rule r = rule_of(key);
    *out = NULL;
    /* objects and lists of objects merge by structure whatever their name (survey's
     * "agents" map, diff's "agents" list); a label or a list of labels must be equal */
    if (json_is_object(into) && json_is_object(from)) return merge_object(into, from, err, cap);
    const int object_lists = json_is_array(into) && json_is_array(from)
        && json_is_object(json_array_get(json_array_size(into) ? into : from, 0));
    if (r == M_SAME && !object_lists) {
        if (!json_equal(into, from)) {
            char *a = json_dumps(into, JSON_ENCODE_ANY | JSON_COMPACT), *b = json_dumps(from, JSON_ENCODE_ANY | JSON_COMPACT);
            snprintf(err, cap, "mismatched \"%s\": %s and %s", key, a ? a : "?", b ? b : "?");
            free(a); /* jansson's */
            free(b);
            return -1;
        }
        return 0;
    }
    if (json_is_null(into) || json_is_null(from)) {
        if (json_is_null(into)) *out = json_incref(from);
        return 0;
    }
    if (json_is_object(into) && json_is_object(from)) return merge_object(into, from, err, cap);
    if (json_is_array(into) && json_is_array(from)) return merge_list(key, into, from, out, err, cap);
    if (json_is_number(into) && json_is_number(from)) {
        const double a = num(into), b = num(from);
        double x = a + b;
        if (r == M_MIN) x = a < b ? a : b;
        else if (r == M_MAX || r == M_TIME) x = a > b ? a : b; /* wall time of parallel runs */
        if (json_is_integer(into) && json_is_integer(from) && r == M_SUM) {
            *out = json_integer(json_integer_value(into) + json_integer_value(from));
            return 0;
        }
        *out = number_like(into, from, x);
        return 0;
    }
    if (json_is_string(into) && json_is_string(from)) {
        const int c = strcmp(json_string_value(into), json_string_value(from));
        if (r == M_MIN || r == M_MAX) {
            if ((r == M_MIN && c > 0) || (r == M_MAX && c < 0)) *out = json_incref(from);
            return 0;
        }
        if (c == 0) return 0;
    }
    snprintf(err, cap, "\"%s\" cannot be merged: values of different kinds or unequal strings", key);
    return -1;
}

/* Takes @copies header lines off a count of the merged statistics (they were counted
 * once per copy by the shards' runs, as every header line is by one run). */
static int take_off(json_t *all, const char *key, unsigned long long copies, rs_shard_diag *d)
{
    json_t *v = json_object_get(all, key);
    if (v == NULL || !json_is_integer(v) || (unsigned long long)json_integer_value(v) < copies)
        return rs_shard_fail(d, RS_ERR_CORRUPT,
                             "merge --stats --shards: \"%s\" cannot hold the %llu #Fields: lines shard copied", key,
                             copies);
    json_object_set_new(all, key, json_integer(json_integer_value(v) - (json_int_t)copies));
    return 0;
}

/* Rates follow the sums: count / seconds is recomputed where both are known. */
static void recompute_rates(json_t *all)
{
    const json_t *secs = json_object_get(all, "seconds");
    const char *k;
    json_t *v;
    void *tmp;
    json_object_foreach_safe(all, tmp, k, v) {
        if (!has_suffix(k, "_per_second") || secs == NULL) continue;
        char base[128];
        snprintf(base, sizeof base, "%.*s", (int)(strlen(k) - strlen("_per_second")), k);
        const json_t *c = json_object_get(all, base);
        /* as the runs wrote it: a whole number stays one */
        if (c == NULL || num(secs) <= 0) continue;
        const double rate = (double)(json_int_t)(num(c) / num(secs));
        json_object_set_new(all, k, json_is_integer(v) ? json_integer((json_int_t)rate) : json_real(rate));
    }
}

rs_status rs_merge_stats(const char *const *files, size_t n, const char *dir, FILE *out, char *err, size_t err_cap)
{
    rs_shard_diag d = { err, err_cap, RS_OK, NULL, NULL };
    if (err && err_cap) err[0] = '\0';
    if (files == NULL || out == NULL || n == 0)
        return rs_shard_error(&d, RS_ERR_USAGE, "rs_merge_stats: missing arguments");
    json_t *all = NULL;
    int rc = 0;
    unsigned shards = 0;
    unsigned long long copies = 0;
    json_t *split_inputs = NULL;
    if (dir) {
        split_inputs = json_array();
        if (split_inputs == NULL) return rs_shard_error(&d, RS_ERR_NOMEM, "out of memory");
        if (read_shards_tsv(dir, &shards, &copies, split_inputs, &d) != 0) {
            json_decref(split_inputs);
            return rs_shard_status(&d);
        }
        if ((size_t)shards != n) {
            json_decref(split_inputs);
            return rs_shard_error(&d, RS_ERR_USAGE, "%s has %u shards but %zu statistics files were given", dir,
                                 shards, n);
        }
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        json_error_t je;
        json_t *j = json_load_file(files[i], 0, &je);
        if (j == NULL || !json_is_object(j)) {
            rc = rs_shard_fail(&d, RS_ERR_CORRUPT, "%s:%d: %s", files[i], je.line, j ? "not a JSON object" : je.text);
            json_decref(j);
            break;
        }
        if (json_object_get(j, "command") == NULL || json_object_get(j, "schema_version") == NULL) {
            rc = rs_shard_fail(&d, RS_ERR_CORRUPT, "%s: no \"command\" or \"schema_version\": not mergeable statistics",
                               files[i]);
            json_decref(j);
            break;
        }
        if (all == NULL) {
            all = j;
            continue;
        }
        char merr[512];
        if (merge_object(all, j, merr, sizeof merr) != 0)
            rc = rs_shard_fail(&d, RS_ERR_CORRUPT, "%s: %s", files[i], merr);
        json_decref(j);
    }
    if (rc == 0 && all && copies)
        rc = take_off(all, "lines", copies, &d) != 0 || take_off(all, "blank", copies, &d) != 0;
    /* the shards' runs read DIR/shard-K.zst: one run over the input read what shard split */
    if (rc == 0 && all && json_array_size(split_inputs) && json_is_array(json_object_get(all, "inputs")))
        json_object_set(all, "inputs", split_inputs);
    json_decref(split_inputs);
    if (rc == 0 && all) {
        recompute_rates(all);
        char *s = json_dumps(all, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
        if (s == NULL) rc = rs_shard_fail(&d, RS_ERR_NOMEM, "out of memory");
        else if (fputs(s, out) == EOF || fputc('\n', out) == EOF)
            rc = rs_shard_fail(&d, RS_ERR_IO, "error writing output: %s", strerror(errno));
        free(s); /* jansson's */
    }
    json_decref(all);
    return rc == 0 ? RS_OK : rs_shard_status(&d);
}
