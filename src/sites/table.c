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
 * use of an agent on a file) takes one mutex to resolve the origin and
 * again to publish; a body read by path is read, parsed and compiled between
 * the two without it, so threads load different sites at once (a thread
 * missing a file another one is loading waits for it). Hits take no lock:
 * the origin map's slots and each document's agent list are published
 * with release stores and read with acquire loads, and nothing reachable
 * from a published pointer is modified or freed before rs_sites_free. A
 * document's ruleset is stored before its first matcher is pushed, so a
 * reader that found the matcher also sees the ruleset.
 *
 * Memory: one map entry per distinct origin looked up, one ruleset per
 * robots file used (none with rs_sites_options.drop_rules), one matcher per
 * (file, agent, semantics) used. Map entries and source documents (with
 * their paths) come from arenas, freed in bulk with their map or source;
 * the matchers of opened sources from the matcher arena (rs_marena, freed
 * whole by rs_sites_release); rulesets, and the matchers of bodies from
 * memory or of a streaming handle, are malloc'd one by one.
 */
#include "sites/sites.h"
#include "rules/ruleset.h"
#include <sys/mman.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

/* ===== String map ===== */

uint64_t rs_map_hash(const char *key, size_t len) { return XXH3_64bits(key, len); }

/* Slots: the entry's address, its hash's top 16 bits above bit 48 where
 * addresses leave them free (tag 0: none, the entry is read to compare). */
#if UINTPTR_MAX > 0xFFFFFFFFu
#  define TAG_SHIFT 48
#  define ADDR_MASK ((((uintptr_t)1) << TAG_SHIFT) - 1)
static inline uintptr_t slot_tag(uint64_t hash) { return (uintptr_t)(hash >> TAG_SHIFT) | 1; }
static inline uintptr_t slot_of(const rs_map_entry *e)
{
    const uintptr_t a = (uintptr_t)e;
    return (a & ~ADDR_MASK) ? a : a | slot_tag(e->hash) << TAG_SHIFT;
}
static inline rs_map_entry *slot_entry(uintptr_t v) { return (rs_map_entry *)(v & ADDR_MASK); }
static inline int slot_may_hold(uintptr_t v, uintptr_t tag)
{
    const uintptr_t t = v >> TAG_SHIFT;
    return t == 0 || t == tag;
}
#else
static inline uintptr_t slot_tag(uint64_t hash) { (void)hash; return 0; }
static inline uintptr_t slot_of(const rs_map_entry *e) { return (uintptr_t)e; }
static inline rs_map_entry *slot_entry(uintptr_t v) { return (rs_map_entry *)v; }
static inline int slot_may_hold(uintptr_t v, uintptr_t tag) { (void)v; (void)tag; return 1; }
#endif

rs_map_entry *rs_map_slot_entry(const rs_map_slots *s, size_t i)
{
    /* The cast drops const only to satisfy atomic_load on older compilers. */
    return slot_entry(atomic_load_explicit((_Atomic(uintptr_t) *)(uintptr_t)&s->slot[i], memory_order_acquire));
}

_Static_assert(sizeof(_Atomic(uintptr_t)) == sizeof(uintptr_t), "slots are plain words (zeroed by calloc)");

static rs_map_slots *slots_new(size_t cap)
{
    /* Zeroed by calloc: an empty slot is 0, and a lock-free atomic uintptr_t has
     * uintptr_t's representation (a large array comes zeroed from the system:
     * no pass over it). */
    rs_map_slots *s = rs_calloc(1, sizeof *s + cap * sizeof s->slot[0]);
    if (s == NULL) return NULL;
    s->mask = cap - 1;
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
    memset(&m->entries, 0, sizeof m->entries);
    return RS_OK;
}

void rs_map_free(rs_map *m)
{
    if (m == NULL) return;
    rs_map_slots *s = atomic_load_explicit(&m->cur, memory_order_relaxed);
    if (s == NULL) return;
    rs_arena_free(&m->entries);
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
    const uintptr_t tag = slot_tag(hash);
    for (size_t i = (size_t)hash & s->mask;; i = (i + 1) & s->mask) {
        const uintptr_t v = atomic_load_explicit(&s->slot[i], memory_order_acquire);
        if (v == 0) return NULL;
        if (!slot_may_hold(v, tag)) continue;
        rs_map_entry *e = slot_entry(v);
        if (e->hash == hash && e->len == len && memcmp(e->key, key, len) == 0) return e;
    }
}

static void place(rs_map_slots *s, rs_map_entry *e)
{
    size_t i = (size_t)e->hash & s->mask;
    while (atomic_load_explicit(&s->slot[i], memory_order_relaxed) != 0) i = (i + 1) & s->mask;
    atomic_store_explicit(&s->slot[i], slot_of(e), memory_order_release);
}

rs_status rs_map_insert(rs_map *m, uint64_t hash, const char *key, size_t len, void *value)
{
    return rs_map_insert_entry(m, hash, key, len, value, NULL);
}

rs_status rs_map_insert_entry(rs_map *m, uint64_t hash, const char *key, size_t len, void *value,
                              rs_map_entry **out)
{
    rs_map_slots *s = atomic_load_explicit(&m->cur, memory_order_relaxed);
    if ((m->count + 1) * 10 > (s->mask + 1) * 7) {
        rs_map_slots *g = slots_new((s->mask + 1) * 2);
        RS_RETURN_IF(g == NULL, RS_ERR_NOMEM);
        for (size_t i = 0; i <= s->mask; i++) {
            rs_map_entry *e = slot_entry(atomic_load_explicit(&s->slot[i], memory_order_relaxed));
            if (e) place(g, e);
        }
        g->prev = s;  /* readers may still be probing s */
        atomic_store_explicit(&m->cur, g, memory_order_release);
        s = g;
    }
    rs_map_entry *e = rs_arena_alloc(&m->entries, sizeof *e + len);
    RS_RETURN_IF(e == NULL, RS_ERR_NOMEM);
    e->hash = hash;
    e->value = value;
    e->len = len;
    memcpy(e->key, key, len);
    place(s, e);
    m->count++;
    if (out != NULL) *out = e;
    return RS_OK;
}

/*
 * A lock held for well under a microsecond at a time, by threads that each
 * take it twice a site they load: one that spins a little before it sleeps
 * (glibc's adaptive mutex). A plain one put the waiting worker to sleep
 * ~6,000 times in a -j 2 load of 100,000 sites, each a wake-up on a VM.
 */
static int mutex_init_short(pthread_mutex_t *m)
{
#if defined(__GLIBC__) && defined(PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP)
    pthread_mutexattr_t at;
    if (pthread_mutexattr_init(&at) != 0) return -1;
    pthread_mutexattr_settype(&at, PTHREAD_MUTEX_ADAPTIVE_NP);
    const int r = pthread_mutex_init(m, &at);
    pthread_mutexattr_destroy(&at);
    return r;
#else
    return pthread_mutex_init(m, NULL);
#endif
}

/* ===== Matcher arena ===== */

struct rs_marena_chunk {
    rs_marena_chunk *next;
    size_t size;             /* of the whole block */
    int own;                 /* one large matcher's, not filled by others (not kept spare) */
};

#define MARENA_FIRST_CHUNK ((size_t)256 << 10)
#define MARENA_MAX_CHUNK   ((size_t)32 << 20)
#define MARENA_ALIGN       ((uintptr_t)64)  /* a matcher's header, then its nodes, start cache lines */

static void marena_init(rs_marena *a)
{
    memset(a, 0, sizeof *a);
    (void)mutex_init_short(&a->lock);
}

static void free_chunks(rs_marena_chunk *c)
{
    for (rs_marena_chunk *next; c != NULL; c = next) {
        next = c->next;
        rs_free(c);
    }
}

/* Frees every chunk; the arena is empty and usable. Only while no lookup runs. */
static void marena_clear(rs_marena *a)
{
    free_chunks(a->chunks);
    free_chunks(a->spare);
    a->chunks = a->spare = NULL;
    a->next = a->end = a->mapped = NULL;
    a->chunk_size = 0;
    a->bytes = 0;
}

/* Empties the arena, keeping its shared chunks as spares (their pages stay mapped). */
static void marena_recycle(rs_marena *a)
{
    for (rs_marena_chunk *c = a->chunks, *next; c != NULL; c = next) {
        next = c->next;
        if (c->own) {
            a->bytes -= c->size;
            rs_free(c);
        } else {
            c->next = a->spare;
            a->spare = c;
        }
    }
    a->chunks = NULL;
    a->next = a->end = a->mapped = NULL;
}

static char *chunk_data(rs_marena_chunk *c)
{
    return (char *)(((uintptr_t)(c + 1) + MARENA_ALIGN - 1) & ~(MARENA_ALIGN - 1));
}

/*
 * Maps pages in one call (MADV_POPULATE_WRITE, Linux 5.14), not one page
 * fault a 4 KiB page as matchers are written. Huge pages (MADV_HUGEPAGE) were
 * measured slower on these virtual machines: clearing fresh 2 MiB pages cost
 * 10x what the faults of 4 KiB ones did (bench/RESULTS.md, 2026-11-27c).
 */
static void prefault(void *p, size_t size)
{
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
    const uintptr_t page = 4096;
    const uintptr_t from = ((uintptr_t)p + page - 1) & ~(page - 1);
    const uintptr_t to = ((uintptr_t)p + size) & ~(page - 1);
    if (to > from) (void)madvise((void *)from, to - from, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)size;
#endif
}

/* A new chunk's pages are mapped this far ahead of the allocations, a window
 * at a time, by the thread whose allocation comes near the mapped end, outside
 * the lock: the other loading threads go on allocating meanwhile (mapping a
 * whole 32 MiB chunk under the lock made -j 2 loading wait on it). */
#define MARENA_WINDOW ((size_t)1 << 20)

/* The newest chunk becomes @c, @size bytes of it taken: *@p. Under a->lock. */
static void marena_use(rs_marena *a, rs_marena_chunk *c, size_t size, char **p)
{
    c->next = a->chunks;
    a->chunks = c;
    *p = chunk_data(c);
    a->next = *p + size;
    a->end = (char *)c + c->size;
}

/* @size bytes, MARENA_ALIGN-aligned, or NULL (no memory). Any thread. */
static void *marena_alloc(void *ctx, size_t size)
{
    rs_marena *a = ctx;
    RS_RETURN_IF(size > SIZE_MAX / 2, NULL);
    size = (size + MARENA_ALIGN - 1) & ~(size_t)(MARENA_ALIGN - 1);
    pthread_mutex_lock(&a->lock);
    char *p = a->next;
    if (RS_LIKELY(p != NULL && (size_t)(a->end - p) >= size)) {
        a->next = p + size;
        goto window;
    }
    p = NULL;
    const size_t cap = a->chunk_size ? a->chunk_size : MARENA_FIRST_CHUNK;
    const int own = size > cap / 4;         /* a large matcher: a block of its own */
    while (!own && a->spare != NULL) {      /* a kept chunk, its pages mapped already */
        rs_marena_chunk *c = a->spare;
        a->spare = c->next;
        if ((size_t)((char *)c + c->size - chunk_data(c)) < size) {   /* too small for it: dropped */
            a->bytes -= c->size;
            rs_free(c);
            continue;
        }
        marena_use(a, c, size, &p);
        a->mapped = a->end;
        goto window;
    }
    const size_t bytes = own ? sizeof(rs_marena_chunk) + MARENA_ALIGN + size : cap;
    rs_marena_chunk *c = rs_malloc(bytes);  /* large: mapped, not yet faulted */
    if (c == NULL) goto window;
    c->size = bytes;
    c->own = own;
    a->bytes += bytes;
    if (own) {                              /* not the newest: nothing else goes in it */
        c->next = a->chunks;
        a->chunks = c;
        p = chunk_data(c);
    } else {
        marena_use(a, c, size, &p);
        a->mapped = (char *)c;
        a->chunk_size = RS_MIN(cap * 2, MARENA_MAX_CHUNK);
    }
window:;
    char *from = NULL, *to = NULL;
    if (a->mapped < a->end && (a->mapped <= a->next || (size_t)(a->mapped - a->next) < MARENA_WINDOW / 2)) {
        from = a->mapped > a->next ? a->mapped : a->next;   /* behind next: being written already */
        to = (size_t)(a->end - from) > MARENA_WINDOW ? from + MARENA_WINDOW : a->end;
        a->mapped = to;
    }
    pthread_mutex_unlock(&a->lock);
    /* pages another thread writes before this maps them fault one by one: the same memory */
    if (from != NULL) prefault(from, (size_t)(to - from));
    return p;
}

void rs_sites_use_lists(rs_sites *s, int on)
{
    if (s) s->marena.lists = on;
}

rs_status rs_sites_compiled(rs_sites *s, const rs_matcher *m, const rs_matcher **out)
{
    return rs_matcher_compiled(m, marena_alloc, &s->marena, out);
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
    if (mutex_init_short(&s->lock) != 0) {
        rs_free(s);
        return RS_ERR_NOMEM;
    }
    if (pthread_cond_init(&s->loaded, NULL) != 0) {
        pthread_mutex_destroy(&s->lock);
        rs_free(s);
        return RS_ERR_NOMEM;
    }
    marena_init(&s->marena);
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
    marena_clear(&s->marena);
    pthread_mutex_destroy(&s->marena.lock);
    pthread_cond_destroy(&s->loaded);
    rs_free(s->held);
    pthread_mutex_destroy(&s->lock);
    rs_free(s);
}

static rs_status release(rs_sites *s, int recycle);

rs_status rs_sites_release(rs_sites *s)
{
    RS_RETURN_IF(s == NULL, RS_ERR_USAGE);
    return release(s, 0);
}

rs_status rs_sites_recycle(rs_sites *s)
{
    RS_RETURN_IF(s == NULL, RS_ERR_USAGE);
    return release(s, 1);
}

/* Visits only the documents given matchers since the last release (s->held), so a
 * release costs what was loaded, not the size of the sources' indexes. */
static rs_status release(rs_sites *s, int recycle)
{
    if (s->held_all) {
        for (size_t i = 0; i < s->nsources; i++) rs_source_unload(&s->sources[i]);
    } else {
        for (size_t i = 0; i < s->n_held; i++) rs_doc_unload(s->held[i]);
    }
    s->n_held = 0;
    s->held_all = 0;
    /* every matcher in it belonged to a document unloaded here */
    if (recycle) marena_recycle(&s->marena);
    else marena_clear(&s->marena);
    rs_map_slots *keep = atomic_load_explicit(&s->origins.cur, memory_order_relaxed);
    rs_map_slots *fresh = slots_new(1024);
    if (fresh == NULL) {
        /* out of memory: the largest array, emptied, stays (the handle remains usable) */
        for (rs_map_slots *older = keep->prev, *prev; older; older = prev) {
            prev = older->prev;
            rs_free(older);
        }
        keep->prev = NULL;
        memset((void *)(uintptr_t)keep->slot, 0, (keep->mask + 1) * sizeof keep->slot[0]);
        rs_arena_free(&s->origins.entries);
        memset(&s->origins.entries, 0, sizeof s->origins.entries);
        s->origins.count = 0;
        return RS_OK;
    }
    rs_map_free(&s->origins);
    atomic_init(&s->origins.cur, fresh);
    memset(&s->origins.entries, 0, sizeof s->origins.entries);
    return RS_OK;
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

/* The origin's document, resolved through the sources on first sight (under the lock). */
/* The document of origin @o (hash @h), cached in s->origins: @opened is what
 * the opened sources give for it (rs_sources_resolve_opened, looked up before
 * the lock: their indexes are fixed), which a body from memory overrides. */
static rs_status resolve_locked(rs_sites *s, const rs_origin *o, uint64_t h, rs_doc *opened, rs_doc **out)
{
    const rs_map_entry *e = rs_map_find(&s->origins, h, o->origin.ptr, o->origin.len);
    if (e != NULL) {
        *out = e->value;
        return RS_OK;
    }
    rs_doc *mem = rs_sources_resolve_memory(s, o);
    rs_doc *d = mem != NULL ? mem : opened;
    RS_FORWARD(rs_map_insert(&s->origins, h, o->origin.ptr, o->origin.len, d));
    *out = d;
    return RS_OK;
}

/* Bodies up to this size are read into a buffer on the loading thread's
 * stack (99% of real robots.txt files are smaller). */
#define BODY_STACK ((size_t)32 << 10)

/* A body read by path (file, directory, manifest) can be read and parsed by
 * any thread without the lock; WARC captures share a file position. */
static int readable_unlocked(const rs_sites *s, const rs_doc *d)
{
    return d->source < s->nsources && s->sources[d->source].kind != RS_SOURCE_WARC;
}

/* Parses @d's body into *out (a new ruleset). Sets s->errmsg: call under the lock. */
static rs_status parse_doc(rs_sites *s, const rs_doc *d, rs_ruleset **out)
{
    char *body = NULL;
    size_t size = 0;
    RS_FORWARD(rs_doc_body(s, d, &body, &size));
    const rs_status st = rs_ruleset_parse(body, size, out);
    rs_free(body);
    if (st != RS_OK)
        rs_sites_seterr(s, "%s: cannot parse robots file: %s", d->path, rs_status_str(st));
    return st;
}

/* Compiles @d's matcher for one agent into *out: in the matcher arena of @sa
 * (NULL: malloc'd, freed one by one). */
static rs_status compile(rs_sites *s, rs_marena *sa, const rs_doc *d, const rs_ruleset *rs,
                         const char *agent, size_t agent_len, rs_semantics sem, rs_agent_matcher **out)
{
    rs_agent_matcher *n = sa ? marena_alloc(sa, sizeof *n + agent_len) : rs_malloc(sizeof *n + agent_len);
    RS_RETURN_IF(n == NULL, RS_ERR_NOMEM);
    n->in_arena = sa != NULL;
    const int list = sa != NULL && sa->lists && sem == RS_SEMANTICS_GOOGLE;
    const rs_status st = sa ? rs_matcher_create_ex(rs, agent, agent_len, sem, list, marena_alloc, sa, &n->matcher)
                            : rs_matcher_create(rs, agent, agent_len, sem, &n->matcher);
    if (st != RS_OK) {
        if (sa == NULL) rs_free(n);
        if (s != NULL)
            rs_sites_seterr(s, "%s: cannot compile robots file for agent '%.*s': %s",
                            d->path ? d->path : "(from memory)",
                            (int)RS_MIN(agent_len, 100), agent, rs_status_str(st));
        return st;
    }
    n->semantics = sem;
    n->agent_len = agent_len;
    if (agent_len) memcpy(n->agent, agent, agent_len);
    *out = n;
    return RS_OK;
}

static void free_agent_matcher(rs_agent_matcher *a)
{
    if (a == NULL || a->in_arena) return;   /* an arena's: freed with it */
    rs_matcher_free(a->matcher);
    rs_free(a);
}

/* Lists @d, a source document given its first matcher, for rs_sites_release. Under the lock. */
static void hold(rs_sites *s, rs_doc *d)
{
    if (s->n_held == s->cap_held) {
        const size_t cap = s->cap_held ? 2 * s->cap_held : 1024;
        rs_doc **l = rs_realloc(s->held, cap * sizeof *l);
        if (l == NULL) {        /* the release walks every source instead */
            s->held_all = 1;
            return;
        }
        s->held = l;
        s->cap_held = cap;
    }
    s->held[s->n_held++] = d;
}

/* Pushes @n onto @d's list unless the agent is there already (then frees it). Under the lock. */
static const rs_agent_matcher *publish(rs_sites *s, rs_doc *d, rs_agent_matcher *n)
{
    const rs_agent_matcher *a = find_agent(d, n->agent, n->agent_len, n->semantics);
    if (a != NULL) {            /* another thread compiled it meanwhile */
        free_agent_matcher(n);
        return a;
    }
    n->next = atomic_load_explicit(&d->agents, memory_order_relaxed);
    atomic_store_explicit(&d->agents, n, memory_order_release);
    s->stats.matchers++;
    if (n->next == NULL && d->source < s->nsources) hold(s, d);
    return n;
}

/*
 * Publishes what a miss made for @d, under the lock: @own (a ruleset parsed
 * for it, or NULL) is kept as the document's unless drop_rules is set or
 * another thread's came first, and stored before any matcher is pushed (a
 * reader that finds the matcher then sees the ruleset); mk[i] (or NULL: the
 * agent was there) is pushed and out[i] filled. Takes ownership of @own and mk[].
 */
static rs_status finish_locked(rs_sites *s, rs_doc *d, rs_ruleset *own, rs_agent_matcher **mk,
                               const char *const *agents, const size_t *lens, size_t n,
                               rs_semantics sem, rs_site_result *out)
{
    if (own != NULL) {
        s->stats.bodies_parsed++;
        if (!d->loaded && !s->opts.drop_rules) {
            d->ruleset = own;
            d->loaded = 1;
            own = NULL;
        }
    }
    rs_status st = RS_OK;
    for (size_t i = 0; i < n; i++) {
        const rs_agent_matcher *a = mk[i] ? publish(s, d, mk[i]) : find_agent(d, agents[i], lens[i], sem);
        mk[i] = NULL;
        if (a == NULL) { st = RS_ERR_USAGE; continue; }  /* never: compiled or found */
        fill(s, d, a, &out[i]);
    }
    rs_ruleset_free(own);
    return st;
}

/* The agents of @agents missing on @d: compiled into mk[] from @rs. @s NULL: no error message. */
static rs_status compile_missing(rs_sites *s, rs_marena *sa, const rs_doc *d, const rs_ruleset *rs,
                                 const char *const *agents, const size_t *lens, size_t n,
                                 rs_semantics sem, rs_agent_matcher **mk)
{
    for (size_t i = 0; i < n; i++)
        if (find_agent(d, agents[i], lens[i], sem) == NULL)
            RS_FORWARD(compile(s, sa, d, rs, agents[i], lens[i], sem, &mk[i]));
    return RS_OK;
}

/* The arena for @d's matchers: the handle's for an opened source's document
 * (rs_sites_release unloads them all), none for a body from memory (kept
 * across releases) or on a streaming handle (its sources free their
 * documents one WARC at a time). */
static rs_marena *arena_for(rs_sites *s, const rs_doc *d)
{
    return d->source < s->nsources && !s->opts.stream ? &s->marena : NULL;
}

static int any_missing(const rs_doc *d, const char *const *agents, const size_t *lens, size_t n,
                       rs_semantics sem)
{
    for (size_t i = 0; i < n; i++)
        if (find_agent(d, agents[i], lens[i], sem) == NULL) return 1;
    return 0;
}

/*
 * Lookups of several agents at one origin: one body read and parse serves
 * every agent that misses. A body read by path is read, parsed and compiled
 * outside the lock, so threads load different sites at once; the lock only
 * resolves the origin and publishes (a thread that misses a document another
 * is loading waits for it, so each is read once). A failure there retries
 * under the lock, which reports it (rs_sites_errmsg); WARC captures are read
 * under the lock.
 */
rs_status rs_site_lookup_agents(rs_sites *s, const rs_origin *o, const char *const *agents,
                                const size_t *lens, size_t n, rs_semantics sem, rs_site_result *out)
{
    RS_RETURN_IF(s == NULL || o == NULL || out == NULL || o->error != RS_ORIGIN_OK ||
                 o->origin.len == 0 || (n > 0 && (agents == NULL || lens == NULL)), RS_ERR_USAGE);
    for (size_t i = 0; i < n; i++) RS_RETURN_IF(agents[i] == NULL && lens[i] > 0, RS_ERR_USAGE);
    const uint64_t h = rs_map_hash(o->origin.ptr, o->origin.len);
    const rs_map_entry *e = rs_map_find(&s->origins, h, o->origin.ptr, o->origin.len);
    if (RS_LIKELY(e != NULL)) {
        const rs_doc *d = e->value;
        size_t i = 0;
        for (; i < n; i++) {
            if (d == NULL) { fill_none(&out[i]); continue; }
            if (d->outcome != RS_REASON_NO_MATCH) { fill(s, d, NULL, &out[i]); continue; }
            const rs_agent_matcher *a = find_agent(d, agents[i], lens[i], sem);
            if (a == NULL) break;
            fill(s, d, a, &out[i]);
        }
        if (RS_LIKELY(i == n)) return RS_OK;
    }

    /* A new origin's document in the opened sources, found outside the lock
     * (most of a miss's lookups: two threads loading sites rarely wait) */
    rs_doc *const opened = e == NULL ? rs_sources_resolve_opened(s, o) : NULL;
    rs_agent_matcher *made[16] = { 0 };
    rs_agent_matcher **mk = n <= 16 ? made : rs_calloc(n, sizeof *mk);
    RS_RETURN_IF(mk == NULL, RS_ERR_NOMEM);
    rs_ruleset *rs = NULL;
    pthread_mutex_lock(&s->lock);
    rs_doc *d = NULL;
    rs_status st = resolve_locked(s, o, h, opened, &d);
    while (st == RS_OK && d != NULL && d->loading)   /* another thread loads it: wait, then re-check */
        pthread_cond_wait(&s->loaded, &s->lock);
    int unlocked = st == RS_OK && d != NULL && d->outcome == RS_REASON_NO_MATCH && !d->loaded
                   && readable_unlocked(s, d) && any_missing(d, agents, lens, n, sem);
    if (unlocked) {
        d->loading = 1;
        pthread_mutex_unlock(&s->lock);
        /* Documents live until rs_sites_free or rs_sites_release (never while
         * lookups run) and d->path does not change after indexing. */
        char *body = NULL;
        size_t size = 0;
        int compressed = 0;
        char buf[BODY_STACK];   /* most files: read here, parsed, dropped (no allocation) */
        unlocked = rs_read_doc_body_buf(NULL, &s->sources[d->source], d, buf, sizeof buf, &body, &size,
                                        &compressed) == RS_OK
                   && rs_ruleset_parse(body, size, &rs) == RS_OK
                   && compile_missing(NULL, arena_for(s, d), d, rs, agents, lens, n, sem, mk) == RS_OK;
        if (body != buf) rs_free(body);
        pthread_mutex_lock(&s->lock);
        d->loading = 0;
        pthread_cond_broadcast(&s->loaded);
        if (unlocked) {
            if (compressed) s->wstats.compressed_files++;
            st = finish_locked(s, d, rs, mk, agents, lens, n, sem, out);
            rs = NULL;
        }
    }
    if (st == RS_OK && !unlocked) {
        for (size_t i = 0; i < n; i++) { free_agent_matcher(mk[i]); mk[i] = NULL; }
        rs_ruleset_free(rs);
        rs = NULL;
        if (d == NULL) {
            for (size_t i = 0; i < n; i++) fill_none(&out[i]);
        } else if (d->outcome != RS_REASON_NO_MATCH) {
            for (size_t i = 0; i < n; i++) fill(s, d, NULL, &out[i]);
        } else {
            if (!d->loaded && any_missing(d, agents, lens, n, sem) && (st = parse_doc(s, d, &rs)) != RS_OK)
                rs = NULL;
            if (st == RS_OK)
                st = compile_missing(s, arena_for(s, d), d, rs ? rs : d->ruleset, agents, lens, n, sem, mk);
            if (st == RS_OK) {
                st = finish_locked(s, d, rs, mk, agents, lens, n, sem, out);
                rs = NULL;
            }
        }
    }
    pthread_mutex_unlock(&s->lock);
    rs_ruleset_free(rs);
    for (size_t i = 0; i < n; i++) free_agent_matcher(mk[i]);
    if (mk != made) rs_free(mk);
    return st;
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
    const char *const agents[1] = { agent };
    const size_t lens[1] = { agent_len };
    return rs_site_lookup_agents(s, o, agents, lens, 1, sem, out);
}
