/*
 * tally.c - string keys -> fixed arrays of uint64 counters.
 *
 * Open addressing with linear probing over a power-of-two table of entry
 * indexes; keys live in one text buffer, counters in one array. Entries are
 * only appended, so an index stays valid for the tally's life.
 */
#include "common/common.h"

#include <xxhash.h>

typedef struct {
    uint64_t hash;
    uint32_t key_off, key_len;
} entry;

struct rs_tally {
    unsigned  counters;     /* per entry */
    uint32_t *slots;        /* entry index + 1; 0 = empty */
    uint32_t  mask;
    entry    *entries;
    uint32_t  n, cap;
    uint64_t *values;       /* n * counters */
    rs_buf    keys;
};

rs_status rs_tally_create(unsigned counters, rs_tally **out)
{
    RS_RETURN_IF(counters == 0 || counters > 64 || out == NULL, RS_ERR_USAGE);
    rs_tally *t = rs_calloc(1, sizeof *t);
    RS_RETURN_IF(t == NULL, RS_ERR_NOMEM);
    t->counters = counters;
    t->mask = 63;
    t->slots = rs_calloc(64, sizeof(uint32_t));
    if (t->slots == NULL) {
        rs_free(t);
        return RS_ERR_NOMEM;
    }
    *out = t;
    return RS_OK;
}

void rs_tally_free(rs_tally *t)
{
    if (t == NULL) return;
    rs_free(t->slots);
    rs_free(t->entries);
    rs_free(t->values);
    rs_buf_free(&t->keys);
    rs_free(t);
}

static rs_status grow_slots(rs_tally *t)
{
    const uint32_t size = (t->mask + 1) * 2;
    uint32_t *slots = rs_calloc(size, sizeof(uint32_t));
    RS_RETURN_IF(slots == NULL, RS_ERR_NOMEM);
    for (uint32_t i = 0; i < t->n; i++) {
        uint32_t s = (uint32_t)t->entries[i].hash & (size - 1);
        while (slots[s]) s = (s + 1) & (size - 1);
        slots[s] = i + 1;
    }
    rs_free(t->slots);
    t->slots = slots;
    t->mask = size - 1;
    return RS_OK;
}

static rs_status grow_entries(rs_tally *t)
{
    const uint32_t cap = t->cap ? t->cap * 2 : 64;
    entry *e = rs_realloc(t->entries, cap * sizeof(entry));
    RS_RETURN_IF(e == NULL, RS_ERR_NOMEM);
    t->entries = e;
    uint64_t *v = rs_realloc(t->values, (size_t)cap * t->counters * sizeof(uint64_t));
    RS_RETURN_IF(v == NULL, RS_ERR_NOMEM);
    t->values = v;
    t->cap = cap;
    return RS_OK;
}

rs_status rs_tally_find(rs_tally *t, const char *key, size_t len, uint32_t *index)
{
    const uint64_t h = XXH3_64bits(key, len);
    uint32_t s = (uint32_t)h & t->mask;
    for (; t->slots[s]; s = (s + 1) & t->mask) {
        const entry *e = &t->entries[t->slots[s] - 1];
        if (e->hash == h && e->key_len == len && memcmp(t->keys.ptr + e->key_off, key, len) == 0) {
            *index = t->slots[s] - 1;
            return RS_OK;
        }
    }
    RS_RETURN_IF(len > UINT32_MAX || t->keys.len + len > UINT32_MAX, RS_ERR_LIMIT);
    if (t->n == t->cap) RS_FORWARD(grow_entries(t));
    const uint32_t off = (uint32_t)t->keys.len;
    RS_FORWARD(rs_buf_append(&t->keys, key, len));
    entry *e = &t->entries[t->n];
    e->hash = h;
    e->key_off = off;
    e->key_len = (uint32_t)len;
    memset(t->values + (size_t)t->n * t->counters, 0, t->counters * sizeof(uint64_t));
    t->slots[s] = t->n + 1;
    *index = t->n++;
    if ((uint64_t)t->n * 10 > (uint64_t)(t->mask + 1) * 7) RS_FORWARD(grow_slots(t));
    return RS_OK;
}

uint64_t *rs_tally_counters(rs_tally *t, uint32_t index)
{
    assert(index < t->n);
    return t->values + (size_t)index * t->counters;
}

const uint64_t *rs_tally_counters_const(const rs_tally *t, uint32_t index)
{
    assert(index < t->n);
    return t->values + (size_t)index * t->counters;
}

uint32_t rs_tally_size(const rs_tally *t) { return t->n; }

rs_str rs_tally_key(const rs_tally *t, uint32_t index)
{
    rs_str s = { t->keys.ptr + t->entries[index].key_off, t->entries[index].key_len };
    return s;
}

rs_status rs_tally_merge(rs_tally *dst, const rs_tally *src)
{
    RS_RETURN_IF(dst->counters != src->counters, RS_ERR_USAGE);
    for (uint32_t i = 0; i < src->n; i++) {
        const rs_str k = rs_tally_key(src, i);
        uint32_t j;
        RS_FORWARD(rs_tally_find(dst, k.ptr, k.len, &j));
        uint64_t *d = rs_tally_counters(dst, j);
        const uint64_t *s = rs_tally_counters_const(src, i);
        for (unsigned c = 0; c < dst->counters; c++) d[c] += s[c];
    }
    return RS_OK;
}
