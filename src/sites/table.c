/*
 * table.c - the ruleset table: canonical origin -> robots document -> one
 * compiled matcher per agent, cached for the life of the rs_sites handle.
 *
 * Does: the lock-free string map (XXH3, open addressing, linear probing,
 * growth at 70% load), rs_sites_create/free, rs_site_lookup.
 * Does not: parse origins (origin.c), index sources or read files
 * (sources.c), parse or match robots.txt (src/robots, src/rules, src/match).
 *
 * Concurrency. Every miss (new origin, first use of a robots file, first
 * use of an agent on a file) takes one mutex and re-checks, so each body is
 * read and parsed once and each (file, agent) compiled once. Hits take no
 * lock: the origin map's slots and each document's agent list are published
 * with release stores and read with acquire loads, and nothing reachable
 * from a published pointer is modified or freed before rs_sites_free. A
 * document's ruleset is stored before its first matcher is pushed, so a
 * reader that found the matcher also sees the ruleset.
 *
 * Memory: one map entry per distinct origin looked up, one ruleset per
 * robots file used, one matcher per (file, agent, semantics) used.
 */
#include "sites/sites.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

/* ===== String map ===== */

uint64_t rs_map_hash(const char *key, size_t len) { return XXH3_64bits(key, len); }

static rs_map_slots *slots_new(size_t cap)
{
    rs_map_slots *s = rs_malloc(sizeof *s + cap * sizeof s->slot[0]);
    if (s == NULL) return NULL;
    s->prev = NULL;
    s->mask = cap - 1;
    for (size_t i = 0; i < cap; i++) atomic_init(&s->slot[i], NULL);
    return s;
}

rs_status rs_map_init(rs_map *m, size_t initial_cap)
{
    size_t cap = 16;
    while (cap < initial_cap) cap *= 2;
    rs_map_slots *s = slots_new(cap);
    RS_RETURN_IF(s == NULL, RS_ERR_NOMEM);
    atomic_init(&m->cur, s);
    m->count = 0;
    return RS_OK;
}

void rs_map_free(rs_map *m)
{
    if (m == NULL) return;
    rs_map_slots *s = atomic_load_explicit(&m->cur, memory_order_relaxed);
    if (s == NULL) return;
    for (size_t i = 0; i <= s->mask; i++)
        rs_free(atomic_load_explicit(&s->slot[i], memory_order_relaxed));
    while (s) {
        rs_map_slots *prev = s->prev;
        rs_free(s);
        s = prev;
    }
    atomic_store_explicit(&m->cur, NULL, memory_order_relaxed);
    m->count = 0;
}

rs_map_entry *rs_map_find(const rs_map *m, uint64_t hash, const char *key, size_t len)
{
    /* The cast drops const only to satisfy atomic_load on older compilers. */
    rs_map_slots *s = atomic_load_explicit((_Atomic(rs_map_slots *) *)(uintptr_t)&m->cur,
                                           memory_order_acquire);
    for (size_t i = (size_t)hash & s->mask;; i = (i + 1) & s->mask) {
        rs_map_entry *e = atomic_load_explicit(&s->slot[i], memory_order_acquire);
        if (e == NULL) return NULL;
        if (e->hash == hash && e->len == len && memcmp(e->key, key, len) == 0) return e;
    }
}

static void place(rs_map_slots *s, rs_map_entry *e)
{
    size_t i = (size_t)e->hash & s->mask;
    while (atomic_load_explicit(&s->slot[i], memory_order_relaxed) != NULL) i = (i + 1) & s->mask;
    atomic_store_explicit(&s->slot[i], e, memory_order_release);
}

rs_status rs_map_insert(rs_map *m, uint64_t hash, const char *key, size_t len, void *value)
{
    rs_map_slots *s = atomic_load_explicit(&m->cur, memory_order_relaxed);
    if ((m->count + 1) * 10 > (s->mask + 1) * 7) {
        rs_map_slots *g = slots_new((s->mask + 1) * 2);
        RS_RETURN_IF(g == NULL, RS_ERR_NOMEM);
        for (size_t i = 0; i <= s->mask; i++) {
            rs_map_entry *e = atomic_load_explicit(&s->slot[i], memory_order_relaxed);
            if (e) place(g, e);
        }
        g->prev = s;  /* readers may still be probing s */
        atomic_store_explicit(&m->cur, g, memory_order_release);
        s = g;
    }
    rs_map_entry *e = rs_malloc(sizeof *e + len);
    RS_RETURN_IF(e == NULL, RS_ERR_NOMEM);
    e->hash = hash;
    e->value = value;
    e->len = len;
    memcpy(e->key, key, len);
    place(s, e);
    m->count++;
    return RS_OK;
}

/* ===== Handle ===== */

const char *rs_reason_str(rs_reason r)
{
    switch (r) {
    case RS_REASON_MATCHED:     return "matched";
    case RS_REASON_NO_MATCH:    return "no-match";
    case RS_REASON_UNAVAILABLE: return "unavailable";
    case RS_REASON_UNREACHABLE: return "unreachable";
    case RS_REASON_NO_ROBOTS:   return "no-robots";
    }
    return "unknown";
}

rs_reason rs_site_reason(const rs_site_result *r, const rs_verdict *v)
{
    if (r->reason == RS_REASON_NO_MATCH || r->reason == RS_REASON_MATCHED)
        return (v != NULL && v->line > 0) ? RS_REASON_MATCHED : RS_REASON_NO_MATCH;
    return r->reason;
}

/* A handle without path sources; *out is set whenever it exists (see rs_sites_create). */
static rs_status sites_new(const rs_sites_options *opts, rs_sites **out)
{
    RS_RETURN_IF(out == NULL, RS_ERR_USAGE);
    *out = NULL;
    rs_sites *s = rs_calloc(1, sizeof *s);
    RS_RETURN_IF(s == NULL, RS_ERR_NOMEM);
    if (pthread_mutex_init(&s->lock, NULL) != 0) {
        rs_free(s);
        return RS_ERR_NOMEM;
    }
    *out = s;
    if (opts != NULL) s->opts = *opts;
    s->semantics = RS_SEMANTICS_GOOGLE;
    RS_FORWARD(rs_map_init(&s->origins, 1024));
    RS_FORWARD(rs_memory_source_init(&s->memory));
    RS_FORWARD(rs_matcher_create_constant(0, &s->allow_all));
    RS_FORWARD(rs_matcher_create_constant(1, &s->deny_all));
    return RS_OK;
}

rs_status rs_sites_create_empty(rs_sites **out) { return sites_new(NULL, out); }

rs_status rs_sites_create(const char *const *paths, size_t n, rs_sites **out)
{
    return rs_sites_create_opts(paths, n, NULL, out);
}

rs_status rs_sites_create_opts(const char *const *paths, size_t n, const rs_sites_options *opts,
                               rs_sites **out)
{
    RS_FORWARD(sites_new(opts, out));
    rs_sites *s = *out;
    if (n == 0 || paths == NULL) {
        rs_sites_seterr(s, "no robots source given");
        return RS_ERR_USAGE;
    }
    s->sources = rs_calloc(n, sizeof *s->sources);
    RS_RETURN_IF(s->sources == NULL, RS_ERR_NOMEM);
    s->stats.sources = n;
    for (size_t i = 0; i < n; i++) {
        s->nsources = i + 1; /* so that rs_sites_free closes a half-opened source */
        RS_FORWARD(rs_source_open(s, &s->sources[i], (uint32_t)i, paths[i]));
    }
    return RS_OK;
}

void rs_sites_free(rs_sites *s)
{
    if (s == NULL) return;
    for (size_t i = 0; i < s->nsources; i++) rs_source_close(&s->sources[i]);
    rs_free(s->sources);
    rs_source_close(&s->memory);
    rs_map_free(&s->origins);
    rs_matcher_free(s->allow_all);
    rs_matcher_free(s->deny_all);
    rs_free(s->loaded);
    pthread_mutex_destroy(&s->lock);
    rs_free(s);
}

/* Frees a document's matchers and ruleset (rs_sites_release); its place in the index stays. */
static void doc_unload(rs_doc *d)
{
    rs_agent_matcher *a = atomic_load_explicit(&d->agents, memory_order_relaxed);
    while (a) {
        rs_agent_matcher *next = a->next;
        rs_matcher_free(a->matcher);
        rs_free(a);
        a = next;
    }
    atomic_store_explicit(&d->agents, NULL, memory_order_relaxed);
    rs_ruleset_free(d->ruleset);
    d->ruleset = NULL;
    d->loaded = 0;
}

/* Only the documents parsed since the last release are visited (s->loaded): a release
 * costs what was loaded, not the size of the sources' indexes. */
rs_status rs_sites_release(rs_sites *s)
{
    RS_RETURN_IF(s == NULL, RS_ERR_USAGE);
    for (size_t i = 0; i < s->n_loaded; i++) doc_unload(s->loaded[i]);
    s->n_loaded = 0;
    rs_map_free(&s->origins);
    return rs_map_init(&s->origins, 1024);
}

void rs_sites_get_warc_stats(const rs_sites *s, rs_sites_warc_stats *out) { *out = s->wstats; }

const char *rs_sites_errmsg(const rs_sites *s) { return s ? s->errmsg : "out of memory"; }

void rs_sites_set_semantics(rs_sites *s, rs_semantics semantics) { s->semantics = semantics; }

const rs_matcher *rs_sites_constant_matcher(const rs_sites *s, int disallow_all)
{
    return disallow_all ? s->deny_all : s->allow_all;
}

void rs_sites_get_stats(const rs_sites *s, rs_sites_stats *out)
{
    *out = s->stats;
    out->origins = s->origins.count;
}

/* ===== Lookup ===== */

static const rs_agent_matcher *find_agent(const rs_doc *d, const char *agent, size_t agent_len,
                                          rs_semantics sem)
{
    const rs_agent_matcher *a = atomic_load_explicit(
        (_Atomic(rs_agent_matcher *) *)(uintptr_t)&d->agents, memory_order_acquire);
    for (; a; a = a->next)
        if (a->agent_len == agent_len && a->semantics == sem && memcmp(a->agent, agent, agent_len) == 0)
            return a;
    return NULL;
}

/* Fills @out for @d once its matcher for the agent is known (or constant). */
static void fill(const rs_sites *s, const rs_doc *d, const rs_agent_matcher *a, rs_site_result *out)
{
    out->reason = d->outcome;
    out->robots_path = d->path;
    out->http_status = d->http_status;
    out->source = d->source;
    switch (d->outcome) {
    case RS_REASON_UNAVAILABLE: out->matcher = s->allow_all; out->ruleset = NULL; break;
    case RS_REASON_UNREACHABLE: out->matcher = s->deny_all; out->ruleset = NULL; break;
    default: out->matcher = a->matcher; out->ruleset = d->ruleset; break;
    }
}

static void fill_none(rs_site_result *out)
{
    memset(out, 0, sizeof *out);
    out->reason = RS_REASON_NO_ROBOTS;
}

/* The miss path, under the lock: resolve the origin, load the body, compile. */
static rs_status lookup_locked(rs_sites *s, const rs_origin *o, uint64_t h, const char *agent,
                               size_t agent_len, rs_semantics sem, rs_site_result *out)
{
    rs_map_entry *e = rs_map_find(&s->origins, h, o->origin.ptr, o->origin.len);
    if (e == NULL) {
        rs_doc *d = rs_sources_resolve(s, o);
        RS_FORWARD(rs_map_insert(&s->origins, h, o->origin.ptr, o->origin.len, d));
        e = rs_map_find(&s->origins, h, o->origin.ptr, o->origin.len);
    }
    rs_doc *d = e->value;
    if (d == NULL) { fill_none(out); return RS_OK; }
    if (d->outcome != RS_REASON_NO_MATCH) { fill(s, d, NULL, out); return RS_OK; }

    const rs_agent_matcher *a = find_agent(d, agent, agent_len, sem);
    if (a == NULL) {
        if (!d->loaded) {
            char *body = NULL;
            size_t size = 0;
            RS_FORWARD(rs_doc_body(s, d, &body, &size));
            const rs_status st = rs_ruleset_parse(body, size, &d->ruleset);
            rs_free(body);
            if (st != RS_OK) {
                rs_sites_seterr(s, "%s: cannot parse robots file: %s", d->path, rs_status_str(st));
                return st;
            }
            if (s->n_loaded == s->cap_loaded) {   /* for rs_sites_release */
                const size_t cap = s->cap_loaded ? 2 * s->cap_loaded : 1024;
                rs_doc **l = rs_realloc(s->loaded, cap * sizeof *l);
                if (l == NULL) {
                    rs_ruleset_free(d->ruleset);
                    d->ruleset = NULL;
                    return RS_ERR_NOMEM;
                }
                s->loaded = l;
                s->cap_loaded = cap;
            }
            s->loaded[s->n_loaded++] = d;
            d->loaded = 1;
            s->stats.bodies_parsed++;
        }
        rs_agent_matcher *n = rs_malloc(sizeof *n + agent_len);
        RS_RETURN_IF(n == NULL, RS_ERR_NOMEM);
        const rs_status st = rs_matcher_create(d->ruleset, agent, agent_len, sem, &n->matcher);
        if (st != RS_OK) {
            rs_free(n);
            rs_sites_seterr(s, "%s: cannot compile robots file for agent '%.*s': %s",
                            d->path ? d->path : "(from memory)",
                            (int)RS_MIN(agent_len, 100), agent, rs_status_str(st));
            return st;
        }
        n->semantics = sem;
        n->agent_len = agent_len;
        if (agent_len) memcpy(n->agent, agent, agent_len);
        n->next = atomic_load_explicit(&d->agents, memory_order_relaxed);
        atomic_store_explicit(&d->agents, n, memory_order_release);
        s->stats.matchers++;
        a = n;
    }
    fill(s, d, a, out);
    return RS_OK;
}

rs_status rs_site_lookup(rs_sites *s, const rs_origin *o, const char *agent, size_t agent_len,
                         rs_site_result *out)
{
    RS_RETURN_IF(s == NULL, RS_ERR_USAGE);
    return rs_site_lookup_sem(s, o, agent, agent_len, s->semantics, out);
}

rs_status rs_site_lookup_sem(rs_sites *s, const rs_origin *o, const char *agent, size_t agent_len,
                             rs_semantics sem, rs_site_result *out)
{
    RS_RETURN_IF(s == NULL || o == NULL || out == NULL || o->error != RS_ORIGIN_OK ||
                 o->origin.len == 0 || (agent == NULL && agent_len > 0), RS_ERR_USAGE);
    const uint64_t h = rs_map_hash(o->origin.ptr, o->origin.len);
    const rs_map_entry *e = rs_map_find(&s->origins, h, o->origin.ptr, o->origin.len);
    if (RS_LIKELY(e != NULL)) {
        const rs_doc *d = e->value;
        if (d == NULL) { fill_none(out); return RS_OK; }
        if (d->outcome != RS_REASON_NO_MATCH) { fill(s, d, NULL, out); return RS_OK; }
        const rs_agent_matcher *a = find_agent(d, agent, agent_len, sem);
        if (RS_LIKELY(a != NULL)) { fill(s, d, a, out); return RS_OK; }
    }
    pthread_mutex_lock(&s->lock);
    const rs_status st = lookup_locked(s, o, h, agent, agent_len, sem, out);
    pthread_mutex_unlock(&s->lock);
    return st;
}
