/*
 * stats_json.c - mergeable statistics written from tallies (docs/scale-out.md):
 * a tally as a JSON list of objects, one per key, in a fixed order (total of
 * the counters descending, then key bytes), so every command writes its keyed
 * tallies the same way and `robotscan merge --stats` can re-sort a merged list
 * the same way.
 */
#include "robotscan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    rs_str key;
    uint64_t total;
    uint32_t index;
} entry;

static int entry_cmp(const void *pa, const void *pb)
{
    const entry *a = pa, *b = pb;
    if (a->total != b->total) return a->total > b->total ? -1 : 1;
    const int c = memcmp(a->key.ptr, b->key.ptr, a->key.len < b->key.len ? a->key.len : b->key.len);
    if (c != 0) return c;
    return a->key.len < b->key.len ? -1 : a->key.len > b->key.len;
}

#define PUT(s) do { const char *s_ = (s); RS_TRY_(rs_outbuf_append(out, s_, strlen(s_))); } while (0)
#define RS_TRY_(e) do { const rs_status st_ = (e); if (st_ != RS_OK) { free(es); return st_; } } while (0)

rs_status rs_tally_json_list(rs_outbuf *out, const rs_tally *t, const char *const *key_names, size_t n_keys,
                             const char *const *counter_names, size_t n_counters)
{
    if (out == NULL || t == NULL || n_keys == 0) return RS_ERR_USAGE;
    const uint32_t n = rs_tally_size(t);
    entry *es = malloc((n ? n : 1) * sizeof *es);
    if (es == NULL) return RS_ERR_NOMEM;
    for (uint32_t i = 0; i < n; i++) {
        const uint64_t *v = rs_tally_counters_const(t, i);
        es[i].key = rs_tally_key(t, i);
        es[i].total = 0;
        for (size_t c = 0; c < n_counters; c++) es[i].total += v[c];
        es[i].index = i;
    }
    qsort(es, n, sizeof *es, entry_cmp);
    PUT("[");
    int first = 1;
    char num[48];
    for (uint32_t i = 0; i < n; i++) {
        /* the key's fields, tab-separated; a key with too few fields is skipped */
        const char *p = es[i].key.ptr, *end = p + es[i].key.len;
        const char *f[16];
        size_t fl[16];
        size_t nf = 0;
        while (nf < n_keys && nf < 16) {
            const char *tab = nf + 1 < n_keys ? memchr(p, '\t', (size_t)(end - p)) : NULL;
            if (nf + 1 < n_keys && tab == NULL) break;
            f[nf] = p;
            fl[nf] = tab ? (size_t)(tab - p) : (size_t)(end - p);
            nf++;
            if (tab) p = tab + 1;
        }
        if (nf != n_keys) continue;
        PUT(first ? "{" : ",{");
        first = 0;
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
