/*
 * stats_json.c - mergeable statistics (docs/scale-out.md): the one writer of
 * every bulk command's --stats JSON. A command fills its counters and tallies
 * and hands them to this writer, which only offers what `robotscan merge
 * --stats` can combine exactly: counts (summed), labels (equal in every part,
 * or the identity of a list element), minima/maxima, timings, and keyed
 * tallies as lists of objects in a fixed order (total of the counters
 * descending, then key bytes; or key bytes). The merge rule of a value
 * follows from its name (rs_stats_rule, shared with src/shard/merge.c); a value
 * written under a name whose rule does not fit is refused (RS_ERR_USAGE),
 * so a command cannot write, say, an average under a summed name.
 */
#include "robotscan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ===== Merge rules by name ===== */

static int has_suffix(const char *s, const char *suf)
{
    const size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

rs_stats_rule rs_stats_rule_of(const char *name)
{
    static const char *const SAME[] = { "command", "kind", "schema_version", "agent", "agents",
                                        "semantics", "missing", "scheme", "log_format", "format",
                                        "version", NULL };
    for (int i = 0; SAME[i]; i++)
        if (!strcmp(name, SAME[i])) return RS_STATS_SAME;
    if (!strncmp(name, "first_", 6) || has_suffix(name, "_min")) return RS_STATS_MIN;
    if (!strncmp(name, "last_", 5) || has_suffix(name, "_max")) return RS_STATS_MAX;
    if (!strcmp(name, "seconds") || has_suffix(name, "_seconds")) return RS_STATS_TIME;
    if (has_suffix(name, "_per_second")) return RS_STATS_RATE;
    return RS_STATS_SUM;
}

/* ===== Tallies as keyed lists ===== */

typedef struct {
    rs_str key;
    uint64_t total;
    uint32_t index;
} entry;

static int key_cmp(const entry *a, const entry *b)
{
    const int c = memcmp(a->key.ptr, b->key.ptr, a->key.len < b->key.len ? a->key.len : b->key.len);
    if (c != 0) return c;
    return a->key.len < b->key.len ? -1 : a->key.len > b->key.len;
}

static int entry_cmp(const void *pa, const void *pb)
{
    const entry *a = pa, *b = pb;
    if (a->total != b->total) return a->total > b->total ? -1 : 1;
    return key_cmp(a, b);
}

static int entry_key_cmp(const void *pa, const void *pb) { return key_cmp(pa, pb); }

#define PUT(s) do { const char *s_ = (s); RS_TRY_(rs_outbuf_append(out, s_, strlen(s_))); } while (0)
#define RS_TRY_(e) do { const rs_status st_ = (e); if (st_ != RS_OK) { free(es); return st_; } } while (0)

static rs_status tally_list(rs_outbuf *out, const rs_tally *t, const char *const *key_names, size_t n_keys,
                            const char *const *counter_names, size_t n_counters, const rs_stats_tally_opts *opts)
{
    if (out == NULL || t == NULL || n_keys == 0 || n_keys > 16) return RS_ERR_USAGE;
    const rs_str prefix = opts ? opts->prefix : (rs_str){ NULL, 0 };
    const size_t limit = opts && opts->limit ? opts->limit : (size_t)-1;
    const uint32_t n = rs_tally_size(t);
    entry *es = malloc((n ? n : 1) * sizeof *es);
    if (es == NULL) return RS_ERR_NOMEM;
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        rs_str k = rs_tally_key(t, i);
        if (prefix.len) {
            /* only keys whose first field is @prefix; the field is not written */
            if (k.len <= prefix.len || memcmp(k.ptr, prefix.ptr, prefix.len) != 0 || k.ptr[prefix.len] != '\t')
                continue;
            k.ptr += prefix.len + 1;
            k.len -= prefix.len + 1;
        }
        const uint64_t *v = rs_tally_counters_const(t, i);
        es[m].key = k;
        es[m].total = 0;
        for (size_t c = 0; c < n_counters; c++) es[m].total += v[c];
        es[m].index = i;
        m++;
    }
    qsort(es, m, sizeof *es, opts && opts->by_key ? entry_key_cmp : entry_cmp);
    PUT("[");
    size_t written = 0;
    char num[48];
    for (uint32_t i = 0; i < m && written < limit; i++) {
        /* the key's fields, tab-separated (the last takes the rest); a key with too few fields is skipped */
        const char *p = es[i].key.ptr, *end = p + es[i].key.len;
        const char *f[16];
        size_t fl[16];
        size_t nf = 0;
        while (nf < n_keys) {
            const char *tab = nf + 1 < n_keys ? memchr(p, '\t', (size_t)(end - p)) : NULL;
            if (nf + 1 < n_keys && tab == NULL) break;
            f[nf] = p;
            fl[nf] = tab ? (size_t)(tab - p) : (size_t)(end - p);
            nf++;
            if (tab) p = tab + 1;
        }
        if (nf != n_keys) continue;
        PUT(written ? ",{" : "{");
        written++;
        for (size_t k = 0; k < n_keys; k++) {
            const char *name = key_names[k];
            const int number = name[0] == '#';
            if (number) name++;
            PUT(k ? ",\"" : "\"");
            PUT(name);
            PUT("\":");
            if (number) RS_TRY_(rs_outbuf_append(out, f[k], fl[k]));
            else RS_TRY_(rs_outbuf_json_string(out, f[k], fl[k]));
        }
        const uint64_t *v = rs_tally_counters_const(t, es[i].index);
        for (size_t c = 0; c < n_counters; c++) {
            snprintf(num, sizeof num, ",\"%s\":%llu", counter_names[c], (unsigned long long)v[c]);
            PUT(num);
        }
        PUT("}");
    }
    PUT("]");
    free(es);
    return RS_OK;
}

#undef PUT
#undef RS_TRY_

rs_status rs_tally_json_list(rs_outbuf *out, const rs_tally *t, const char *const *key_names, size_t n_keys,
                             const char *const *counter_names, size_t n_counters)
{
    return tally_list(out, t, key_names, n_keys, counter_names, n_counters, NULL);
}

/* ===== The writer ===== */

#define MAX_DEPTH 62

static void put(rs_stats_writer *w, const char *s, size_t n)
{
    if (w->status == RS_OK) w->status = rs_outbuf_append(w->out, s, n);
}

static void puts_(rs_stats_writer *w, const char *s) { put(w, s, strlen(s)); }

/* The separator and `"name":` of the next value; @name NULL in a list. */
static int key_n(rs_stats_writer *w, const char *name, size_t len)
{
    if (w->status != RS_OK) return -1;
    if (w->depth == 0 || (name == NULL) != ((w->in_list >> w->depth) & 1)) {
        w->status = RS_ERR_USAGE; /* a name inside a list, or none inside an object */
        return -1;
    }
    if ((w->written >> w->depth) & 1) put(w, ",", 1);
    w->written |= (uint64_t)1 << w->depth;
    if (name) {
        if (w->status == RS_OK) w->status = rs_outbuf_json_string(w->out, name, len);
        put(w, ":", 1);
    }
    return w->status == RS_OK ? 0 : -1;
}

static int key(rs_stats_writer *w, const char *name) { return key_n(w, name, name ? strlen(name) : 0); }

static int named(rs_stats_writer *w, const char *name, int ok)
{
    if (!ok && w->status == RS_OK) w->status = RS_ERR_USAGE;
    return key(w, name);
}

static void open_n(rs_stats_writer *w, const char *name, size_t len, int list)
{
    if (key_n(w, name, len) != 0) return;
    if (w->depth + 1 > MAX_DEPTH) {
        w->status = RS_ERR_LIMIT;
        return;
    }
    w->depth++;
    w->written &= ~((uint64_t)1 << w->depth);
    if (list) w->in_list |= (uint64_t)1 << w->depth;
    else w->in_list &= ~((uint64_t)1 << w->depth);
    put(w, list ? "[" : "{", 1);
}

static void open_(rs_stats_writer *w, const char *name, int list)
{
    open_n(w, name, name ? strlen(name) : 0, list);
}

void rs_stats_begin(rs_stats_writer *w, rs_outbuf *out, const char *command, unsigned schema_version)
{
    memset(w, 0, sizeof *w);
    w->out = out;
    w->depth = 1;
    put(w, "{", 1);
    rs_stats_label(w, "command", command, strlen(command));
    rs_stats_count(w, "schema_version", schema_version);
}

void rs_stats_count(rs_stats_writer *w, const char *name, uint64_t v)
{
    if (named(w, name, name == NULL || rs_stats_rule_of(name) == RS_STATS_SUM
                       || !strcmp(name, "schema_version")) != 0)
        return;
    char num[24];
    snprintf(num, sizeof num, "%llu", (unsigned long long)v);
    puts_(w, num);
}

void rs_stats_label(rs_stats_writer *w, const char *name, const char *s, size_t len)
{
    const rs_stats_rule r = name ? rs_stats_rule_of(name) : RS_STATS_SAME;
    if (named(w, name, r == RS_STATS_SAME || r == RS_STATS_SUM) != 0) return;
    w->status = rs_outbuf_json_string(w->out, s, len);
}

void rs_stats_labels(rs_stats_writer *w, const char *name, const char *const *v, size_t n)
{
    open_(w, name, 1);
    for (size_t i = 0; i < n; i++) rs_stats_label(w, NULL, v[i], strlen(v[i]));
    rs_stats_end(w);
}

void rs_stats_bound(rs_stats_writer *w, const char *name, const char *value)
{
    const rs_stats_rule r = name ? rs_stats_rule_of(name) : RS_STATS_SUM;
    if (named(w, name, r == RS_STATS_MIN || r == RS_STATS_MAX) != 0) return;
    if (value == NULL) puts_(w, "null");
    else w->status = rs_outbuf_json_string(w->out, value, strlen(value));
}

void rs_stats_seconds(rs_stats_writer *w, const char *name, double seconds)
{
    if (named(w, name, name && rs_stats_rule_of(name) == RS_STATS_TIME) != 0) return;
    char num[48];
    snprintf(num, sizeof num, "%.6f", seconds);
    puts_(w, num);
}

void rs_stats_rate(rs_stats_writer *w, const char *name, double per_second)
{
    if (named(w, name, name && rs_stats_rule_of(name) == RS_STATS_RATE) != 0) return;
    char num[48];
    snprintf(num, sizeof num, "%.0f", per_second);
    puts_(w, num);
}

void rs_stats_object(rs_stats_writer *w, const char *name) { open_(w, name, 0); }

void rs_stats_object_n(rs_stats_writer *w, const char *name, size_t len) { open_n(w, name, len, 0); }

void rs_stats_list(rs_stats_writer *w, const char *name) { open_(w, name, 1); }

void rs_stats_end(rs_stats_writer *w)
{
    if (w->status != RS_OK) return;
    if (w->depth <= 1) {
        w->status = RS_ERR_USAGE;
        return;
    }
    put(w, (w->in_list >> w->depth) & 1 ? "]" : "}", 1);
    w->depth--;
}

void rs_stats_tally(rs_stats_writer *w, const char *name, const rs_tally *t, const char *const *key_names,
                    size_t n_keys, const char *const *counter_names, size_t n_counters,
                    const rs_stats_tally_opts *opts)
{
    for (size_t c = 0; c < n_counters && w->status == RS_OK; c++)
        if (rs_stats_rule_of(counter_names[c]) != RS_STATS_SUM) w->status = RS_ERR_USAGE;
    if (key(w, name) != 0) return;
    w->status = tally_list(w->out, t, key_names, n_keys, counter_names, n_counters, opts);
}

rs_status rs_stats_finish(rs_stats_writer *w)
{
    if (w->status == RS_OK && w->depth != 1) w->status = RS_ERR_USAGE; /* an object or list left open */
    put(w, "}\n", 2);
    w->depth = 0;
    return w->status;
}
