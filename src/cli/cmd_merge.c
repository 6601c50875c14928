/*
 * cmd_merge.c - `robotscan merge`: puts the outputs of shards (robotscan
 * shard, then urls/logs --input-line on each shard) back into input order
 * (--records), or merges --stats JSON files into the statistics of one run
 * over all the input (--stats), following the convention of
 * docs/scale-out.md. JSON is read and written with jansson.
 */
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const char HELP[] =
    "Usage: robotscan merge --records --shards DIR [--format tsv|csv|jsonl] OUT_0 ... OUT_N-1\n"
    "       robotscan merge --stats [--shards DIR] A.json B.json ... > all.json\n"
    "--records: OUT_K is the output of shard K of DIR (robotscan shard) from `robotscan urls`\n"
    "or `robotscan logs` run with --input-line; the records are written to stdout in input\n"
    "order, without the input_line column: the output of one run over the whole input.\n"
    "--stats: merges the --stats files of runs over disjoint parts of an input (same\n"
    "command and schema_version): sums, minima, maxima and keyed lists as described in\n"
    "docs/scale-out.md. With --shards DIR (the stats of every shard of DIR, in any order),\n"
    "the #Fields: lines shard copied into W3C-style log shards are taken off lines and blank.\n";

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

/* Reads the next record of @s (a header row when @header); 0 at the end, -1 on error. */
static int next_record(rec_src *s, rs_format fmt, int header)
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
            cli_error("%s", rs_reader_errmsg(s->r));
            return -1;
        }
        if (ln.oversized) {
            cli_error("%s:%llu: record too long", s->name, (unsigned long long)ln.number);
            return -1;
        }
        if (rs_outbuf_append(&s->rec, ln.text.ptr, ln.text.len) != RS_OK
            || rs_outbuf_append(&s->rec, "\n", 1) != RS_OK) {
            cli_error("out of memory");
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
            cli_error("%s: the header does not start with input_line (run with --input-line)", s->name);
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
            cli_error("%s: input_line %llu is not a line of its shard (%zu lines)", s->name,
                      (unsigned long long)line, s->npos);
            return -1;
        }
        s->key = s->pos[line - 1];
    }
    memmove(s->rec.ptr, s->rec.ptr + skip, s->rec.len - skip);
    s->rec.len -= skip;
    return 1;
bad:
    cli_error("%s: a record without an input_line column first (run with --input-line)", s->name);
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

static int merge_records(const char *dir, rs_format fmt, char **outs, int n)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/shards.tsv", dir);
    FILE *f = fopen(p, "r");
    if (f == NULL) {
        cli_error("%s: %s", p, strerror(errno));
        return 2;
    }
    unsigned shards = 0;
    char line[4096];
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "n\t%u", &shards) == 1) break;
    fclose(f);
    if ((int)shards != n) {
        cli_error("%s has %u shards but %d outputs were given", dir, shards, n);
        return 2;
    }
    rec_src *src = calloc((size_t)n, sizeof *src);
    rec_src **heap = calloc((size_t)n, sizeof *heap);
    int rc = src && heap ? 0 : -1;
    size_t nh = 0;
    int header_done = fmt == RS_FORMAT_JSONL;
    for (int k = 0; rc == 0 && k < n; k++) {
        rec_src *s = &src[k];
        s->name = outs[k];
        snprintf(p, sizeof p, "%s/shard-%04d.pos", dir, k);
        const int fd = open(p, O_RDONLY);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0) {
            cli_error("%s: %s", p, strerror(errno));
            if (fd >= 0) close(fd);
            rc = -1;
            break;
        }
        s->npos = (size_t)st.st_size / 8;
        s->map_len = (size_t)st.st_size;
        if (s->map_len) {
            void *m = mmap(NULL, s->map_len, PROT_READ, MAP_PRIVATE, fd, 0);
            if (m == MAP_FAILED) {
                cli_error("%s: %s", p, strerror(errno));
                rc = -1;
            } else {
                s->pos = m;
            }
        }
        close(fd);
        if (rc) break;
        if (rs_reader_open(outs[k], NULL, &s->r) != RS_OK) {
            cli_error("%s", s->r ? rs_reader_errmsg(s->r) : outs[k]);
            rc = -1;
            break;
        }
        if (fmt != RS_FORMAT_JSONL) {
            const int got = next_record(s, fmt, 1);
            if (got < 0) rc = -1;
            else if (got > 0 && !header_done) {
                header_done = 1;
                if (rs_outbuf_append(cli_out(), s->rec.ptr, s->rec.len) != RS_OK) rc = -1;
            }
        }
        if (rc == 0) {
            const int got = next_record(s, fmt, 0);
            if (got < 0) rc = -1;
            else if (got) heap[nh++] = s;
        }
    }
    for (size_t i = nh; i-- > 0;) heap_down(heap, nh, i);
    while (rc == 0 && nh) {
        rec_src *s = heap[0];
        if (rs_outbuf_append(cli_out(), s->rec.ptr, s->rec.len) != RS_OK || cli_out_flush(1 << 20) != 0) {
            rc = -1;
            break;
        }
        const uint64_t prev = s->key;
        const int got = next_record(s, fmt, 0);
        if (got < 0) rc = -1;
        else if (got == 0) heap[0] = heap[--nh];
        else if (s->key < prev) { /* equal: the records of one line (urls --agent A --agent B) */
            cli_error("%s: records are not in input order (run each shard without --memory-limit "
                      "reordering? position %llu after %llu)", s->name, (unsigned long long)s->key,
                      (unsigned long long)prev);
            rc = -1;
        }
        heap_down(heap, nh, 0);
    }
    for (int k = 0; src && k < n; k++) {
        rs_reader_free(src[k].r);
        if (src[k].pos) munmap((void *)(uintptr_t)src[k].pos, src[k].map_len);
        rs_outbuf_free(&src[k].rec);
    }
    free(src);
    free(heap);
    if (cli_out_finish() != 0) rc = -1;
    return rc ? 2 : 0;
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
    static rs_outbuf b; /* reused: rs_outbuf reserves kilobytes, keys are short */
    b.len = 0;
    char num[64];
    rs_status st = RS_OK;
    for (size_t i = 0; i < n && st == RS_OK; i++) {
        st = rs_outbuf_append(&b, f[i].name, strlen(f[i].name));
        if (st == RS_OK) st = rs_outbuf_append(&b, "=", 1);
        if (st != RS_OK) break;
        if (json_is_string(f[i].v)) {
            st = rs_outbuf_append(&b, json_string_value(f[i].v), json_string_length(f[i].v));
        } else {
            snprintf(num, sizeof num, "%.17g", json_number_value(f[i].v));
            st = rs_outbuf_append(&b, num, strlen(num));
        }
        if (st == RS_OK) st = rs_outbuf_append(&b, "\x1f", 1);
    }
    if (st != RS_OK) return NULL;
    char *k = malloc(b.len + 1);
    if (k == NULL) return NULL;
    memcpy(k, b.ptr, b.len);
    k[b.len] = '\0';
    return k;
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
    keyed *ks = calloc(na + nb + 1, sizeof *ks);
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
            free(k);
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
        free(ks[i].key);
    }
    free(ks);
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
            free(a);
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

/* DIR/shards.tsv: the shard count and the #Fields: lines shard copied (w3c-style logs). */
static int read_shards_tsv(const char *dir, unsigned *shards, unsigned long long *copies)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/shards.tsv", dir);
    FILE *f = fopen(p, "r");
    if (f == NULL) {
        cli_error("%s: %s", p, strerror(errno));
        return -1;
    }
    *shards = 0;
    *copies = 0;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "n\t%u", shards) == 1) continue;
        (void)sscanf(line, "header_copies\t%llu", copies);
    }
    fclose(f);
    return 0;
}

/* Takes @copies header lines off a count of the merged statistics (they were counted
 * once per copy by the shards' runs, as every header line is by one run). */
static int take_off(json_t *all, const char *key, unsigned long long copies)
{
    json_t *v = json_object_get(all, key);
    if (v == NULL || !json_is_integer(v) || (unsigned long long)json_integer_value(v) < copies) {
        cli_error("merge --stats --shards: \"%s\" cannot hold the %llu #Fields: lines shard copied", key, copies);
        return -1;
    }
    json_object_set_new(all, key, json_integer(json_integer_value(v) - (json_int_t)copies));
    return 0;
}

static int merge_stats(char **files, int n, const char *dir)
{
    json_t *all = NULL;
    int rc = 0;
    unsigned shards = 0;
    unsigned long long copies = 0;
    if (dir) {
        if (read_shards_tsv(dir, &shards, &copies) != 0) return 2;
        if ((int)shards != n) {
            cli_error("%s has %u shards but %d statistics files were given", dir, shards, n);
            return 2;
        }
    }
    for (int i = 0; i < n && rc == 0; i++) {
        json_error_t je;
        json_t *j = json_load_file(files[i], 0, &je);
        if (j == NULL || !json_is_object(j)) {
            cli_error("%s:%d: %s", files[i], je.line, j ? "not a JSON object" : je.text);
            json_decref(j);
            rc = -1;
            break;
        }
        if (json_object_get(j, "command") == NULL || json_object_get(j, "schema_version") == NULL) {
            cli_error("%s: no \"command\" or \"schema_version\": not mergeable statistics", files[i]);
            json_decref(j);
            rc = -1;
            break;
        }
        if (all == NULL) {
            all = j;
            continue;
        }
        char err[512];
        if (merge_object(all, j, err, sizeof err) != 0) {
            cli_error("%s: %s", files[i], err);
            rc = -1;
        }
        json_decref(j);
    }
    if (rc == 0 && all && copies && (take_off(all, "lines", copies) != 0 || take_off(all, "blank", copies) != 0))
        rc = -1;
    if (rc == 0 && all) {
        /* rates follow the sums: count / seconds is recomputed where both are known */
        const json_t *secs = json_object_get(all, "seconds");
        const char *k;
        json_t *v;
        void *tmp;
        json_object_foreach_safe(all, tmp, k, v) {
            if (!has_suffix(k, "_per_second") || secs == NULL) continue;
            char base[128];
            snprintf(base, sizeof base, "%.*s", (int)(strlen(k) - strlen("_per_second")), k);
            const json_t *c = json_object_get(all, base);
            if (c && num(secs) > 0) json_object_set_new(all, k, json_real((double)(json_int_t)(num(c) / num(secs))));
        }
        char *s = json_dumps(all, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
        if (s == NULL || rs_outbuf_append(cli_out(), s, strlen(s)) != RS_OK
            || rs_outbuf_append(cli_out(), "\n", 1) != RS_OK)
            rc = -1;
        free(s);
    }
    json_decref(all);
    if (cli_out_finish() != 0) rc = -1;
    return rc ? 2 : 0;
}

/* ===== Command ===== */

int cmd_merge(int argc, char **argv)
{
    int records = 0, stats = 0;
    const char *dir = NULL, *format = "tsv";
    char **files = calloc((size_t)argc + 1, sizeof *files);
    int n = 0;
    if (files == NULL) return 2;
    int rc = -1;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(HELP, stdout);
            rc = 0;
            goto done;
        } else if (!strcmp(a, "--records")) records = 1;
        else if (!strcmp(a, "--stats")) stats = 1;
        else if ((!strcmp(a, "--shards") || !strcmp(a, "--format")) && i + 1 < argc) {
            if (a[2] == 's') dir = argv[++i];
            else format = argv[++i];
        } else if (a[0] == '-' && a[1] != '\0') {
            rc = cli_usage_error("merge", "unknown option %s", a);
            goto done;
        } else files[n++] = argv[i];
    }
    if (records + stats != 1) {
        rc = cli_usage_error("merge", "give --records or --stats");
        goto done;
    }
    if (n == 0) {
        rc = cli_usage_error("merge", "no files to merge");
        goto done;
    }
    if (stats) {
        rc = merge_stats(files, n, dir);
        goto done;
    }
    rs_format fmt;
    if (rs_format_parse(format, &fmt) != 0 || fmt == RS_FORMAT_TEXT) {
        rc = cli_usage_error("merge", "--format takes tsv, csv or jsonl, not '%s'", format);
        goto done;
    }
    if (dir == NULL) {
        rc = cli_usage_error("merge", "--records needs --shards DIR (the robotscan shard output)");
        goto done;
    }
    rc = merge_records(dir, fmt, files, n);
done:
    free(files);
    return rc < 0 ? 2 : rc;
}
