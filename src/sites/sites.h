/*
 * sites.h - internals of src/sites shared by sources.c and table.c: the
 * concurrent string map, robots documents, sources, and the rs_sites handle.
 * Not part of the public interface.
 */
#ifndef RS_SITES_H
#define RS_SITES_H

#include "common/common.h"

#include <pthread.h>
#include <stdatomic.h>

/* ===== String map (table.c) =====
 *
 * Open addressing, power-of-two capacity, linear probing, grows at 70% load.
 * Readers (rs_map_find) take no lock: slots are published with release
 * stores and an outgrown slot array stays alive (chained on `prev`) until
 * rs_map_free, so a reader holding an old array still sees valid entries.
 * Entries are allocated from the map's arena: they never move, and
 * rs_map_free frees them in a few calls, not one by one.
 * Writers (rs_map_insert, rs_map_set) must be serialised by the caller.
 */
typedef struct rs_map_entry {
    uint64_t hash;
    void    *value;          /* written before publication; rs_map_set only while no reader runs */
    size_t   len;
    char     key[];          /* not NUL-terminated */
} rs_map_entry;

/* A slot holds an entry's address with, on 64-bit systems, 16 bits of its
 * hash in the address's unused top bits, so a probe passes other keys
 * without reading their entries (a cache miss each). 0: empty. Read it with
 * rs_map_slot_entry. */
typedef struct rs_map_slots {
    struct rs_map_slots *prev; /* the outgrown array, kept for readers */
    size_t mask;
    _Atomic(uintptr_t) slot[];
} rs_map_slots;

typedef struct {
    _Atomic(rs_map_slots *) cur;
    size_t count;
    rs_arena entries;        /* the entries (never moved; freed together by rs_map_free) */
} rs_map;

uint64_t      rs_map_hash(const char *key, size_t len);
/* The entry in slot @i of @s, or NULL. */
rs_map_entry *rs_map_slot_entry(const rs_map_slots *s, size_t i);
rs_status     rs_map_init(rs_map *m, size_t initial_cap);
void          rs_map_free(rs_map *m);
/* @return the entry for @key, or NULL. Lock-free. */
rs_map_entry *rs_map_find(const rs_map *m, uint64_t hash, const char *key, size_t len);
/* Adds @key (which must not be present). @return RS_OK or RS_ERR_NOMEM. */
rs_status     rs_map_insert(rs_map *m, uint64_t hash, const char *key, size_t len, void *value);
/* rs_map_insert that gives the new entry (its key lives as long as the map) in *@out. */
rs_status     rs_map_insert_entry(rs_map *m, uint64_t hash, const char *key, size_t len, void *value,
                                  rs_map_entry **out);

/* ===== Robots documents ===== */

/* A compiled matcher for one agent, cached on its document (a push-only list). */
typedef struct rs_agent_matcher {
    struct rs_agent_matcher *next;
    rs_matcher  *matcher;
    rs_semantics semantics;
    int          in_arena;   /* this record and its matcher are in the handle's matcher arena
                                (freed with it by rs_sites_release / rs_sites_free) */
    size_t       agent_len;
    char         agent[];
} rs_agent_matcher;

/* The matchers of the opened sources' documents (table.c): bump-allocated from
 * large chunks (madvised for huge pages), so that loading 100,000 sites takes a
 * few hundred page faults, not one per 4 KiB of matchers, and a kept site's
 * matcher sits next to its record. Freed whole by rs_sites_release (which
 * unloads every such document) and rs_sites_free. Not used by a streaming
 * handle, whose sources free their documents one WARC at a time. */
typedef struct rs_marena_chunk rs_marena_chunk;
typedef struct {
    pthread_mutex_t  lock;   /* loading threads allocate at once */
    rs_marena_chunk *chunks;
    rs_marena_chunk *spare;  /* chunks kept by rs_sites_recycle, filled again before new ones */
    char  *next, *end;       /* free bytes of the newest chunk */
    char  *mapped;           /* its pages are mapped (prefaulted) up to here */
    size_t chunk_size;       /* the next chunk's size (grows to MARENA_MAX_CHUNK) */
    size_t bytes;            /* held in chunks */
    int    lists;            /* rs_sites_use_lists: Google matchers made here start as rule lists */
} rs_marena;

/* One robots.txt outcome: a file of a directory, a manifest line, a single file. */
typedef struct {
    rs_reason  outcome;      /* RS_REASON_NO_MATCH (rules apply), UNAVAILABLE or UNREACHABLE */
    uint32_t   http_status;
    uint32_t   source;       /* index of the source that owns it */
    char      *path;         /* NUL-terminated, NULL when there is no file; in the source's arena */
    size_t     name_off;     /* directory entries: offset of the entry name in path */
    rs_ruleset *ruleset;     /* set under the lock, before any matcher is pushed */
    int         loaded;      /* ruleset parsed (only read under the lock) */
    int         loading;     /* a thread reads and compiles it outside the lock (under the lock) */
    _Atomic(rs_agent_matcher *) agents;
    const char *key;         /* the source's index key ("*" for a single file); not owned */
    size_t      key_len;
    void       *capture;     /* WARC sources: the capture whose body applies (warc_source.c) */
    uint32_t    flags;       /* RS_DOC_* */
} rs_doc;

#define RS_DOC_HTML 0x1u     /* the body looks like an HTML page (lint html-content) */
#define RS_DOC_REGULAR 0x2u  /* path was a regular file when indexed: read with no fstat */

/* ===== Sources (sources.c) ===== */

typedef enum { RS_SOURCE_FILE, RS_SOURCE_DIR, RS_SOURCE_MANIFEST, RS_SOURCE_WARC,
               RS_SOURCE_KIND_MEMORY } rs_source_kind;

struct rs_warc_index;        /* warc_source.c */
struct rs_warc;              /* src/warc */

typedef struct {
    rs_source_kind kind;
    char    *path;
    rs_map   index;          /* DIR: "host" / "host:port" -> doc; MANIFEST: origin -> doc */
    rs_doc **docs;           /* owned; the documents themselves are in @arena */
    size_t   ndocs, capdocs;
    rs_arena arena;          /* the documents and their paths: never moved, freed together */
    struct rs_warc_index *warc; /* WARC: captures, the open file (warc_source.c) */
    int      dirfd;          /* DIR: the directory, open (has_dirfd) for openat of its files */
    int      has_dirfd;
} rs_source;

struct rs_sites {
    pthread_mutex_t lock;    /* serialises every miss: resolve and publish (table.c) */
    pthread_cond_t  loaded;  /* a document's loading ended (rs_doc.loading) */
    rs_semantics semantics;
    rs_source   *sources;
    size_t       nsources;
    rs_source    memory;     /* bodies from rs_sites_add_body: origin -> doc; checked first */
    rs_map       origins;    /* canonical origin -> rs_doc* (NULL value: no robots) */
    rs_matcher  *allow_all;
    rs_matcher  *deny_all;
    rs_sites_stats stats;    /* updated under the lock */
    char errmsg[1024];
    rs_sites_options opts;   /* rs_sites_create_opts */
    rs_sites_warc_stats wstats;
    rs_doc     **held;       /* source documents given matchers since the last rs_sites_release
                                (under the lock); held_all: the list is incomplete (no memory) */
    size_t       n_held, cap_held;
    int          held_all;
    rs_marena    marena;     /* matchers of opened sources (not with opts.stream) */
    rs_site_digest_fn digest;/* during rs_sites_each_digest: run on bodies as WARC sources are indexed */
    void        *digest_ctx;
};

/*
 * From now on, Google-semantics matchers of opened sources (in the matcher
 * arena) are made as rule lists (rs_matcher_create_ex): a fraction of a trie's
 * cost to build, for sites that decide few URLs. A caller that finds a site
 * deciding many asks for its trie with rs_sites_compiled (src/scan does).
 */
void rs_sites_use_lists(rs_sites *s, int on);

/*
 * rs_sites_release, but the matcher arena's chunks stay mapped and are filled
 * again by the next loads (a partitioned run loads as much after each
 * eviction): no page of them is cleared, faulted in and unmapped again. At
 * 1M sites, 13 loads of ~400 MB: those were ~5% of the job's samples.
 * rs_sites_release and rs_sites_free free them.
 */
rs_status rs_sites_recycle(rs_sites *s);

/* rs_matcher_compiled of a matcher of @s: the trie of a rule list, built once in
 * the matcher arena; any thread. */
rs_status rs_sites_compiled(rs_sites *s, const rs_matcher *m, const rs_matcher **out);

/* Initialises s->memory, the empty source rs_sites_add_body fills. */
rs_status rs_memory_source_init(rs_source *src);

/* Opens and indexes one source (no body is read). Sets s->errmsg on failure. */
rs_status rs_source_open(rs_sites *s, rs_source *src, uint32_t index, const char *path);
void      rs_source_close(rs_source *src);
/* Frees every document's ruleset and matchers (rs_sites_release); the index stays. */
void      rs_source_unload(rs_source *src);
/* Frees a document's matchers and ruleset; its place in the index stays (rs_sites_release). */
void      rs_doc_unload(rs_doc *d);

/* The first document of any source that knows @o (NULL: none). Under the lock. */
rs_doc   *rs_sources_resolve(rs_sites *s, const rs_origin *o);
/* Its two halves: the bodies from memory (changed by rs_sites_add_body: under
 * the lock), and the sources opened with the handle, whose indexes do not
 * change after (but for a streamed WARC source, inside rs_sites_each, in its
 * thread): no lock needed. */
rs_doc   *rs_sources_resolve_memory(rs_sites *s, const rs_origin *o);
rs_doc   *rs_sources_resolve_opened(rs_sites *s, const rs_origin *o);

/* Reads at most RS_ROBOTS_MAX_BODY bytes of @path into a new buffer. Sets s->errmsg (@s may be NULL). */
rs_status rs_read_body(rs_sites *s, const char *path, char **body, size_t *size);
/* rs_read_body that counts nothing: *compressed says whether the file was gzip or zstd. */
rs_status rs_read_body_ex(rs_sites *s, const char *path, char **body, size_t *size, int *compressed);
/* rs_read_body_ex of a document of @src (a file, directory or manifest source): a
 * directory's files are opened relative to the directory (openat). */
rs_status rs_read_doc_body(rs_sites *s, const rs_source *src, const rs_doc *d, char **body,
                           size_t *size, int *compressed);
/* rs_read_doc_body into @buf (@cap bytes, reused by the caller) when the body fits:
 * *body is then @buf, else a new buffer the caller frees (*body != buf). */
rs_status rs_read_doc_body_buf(rs_sites *s, const rs_source *src, const rs_doc *d, char *buf,
                               size_t cap, char **body, size_t *size, int *compressed);

/* rs_site_lookup of n agents at once with the semantics given (src/scan):
 * one read and parse of the body serves every agent that misses. */
rs_status rs_site_lookup_agents(rs_sites *s, const rs_origin *origin, const char *const *agents,
                                const size_t *lens, size_t n, rs_semantics sem, rs_site_result *out);

/* rs_site_lookup with the semantics given, not the handle's (src/scan). */
rs_status rs_site_lookup_sem(rs_sites *s, const rs_origin *origin, const char *agent,
                             size_t agent_len, rs_semantics sem, rs_site_result *out);

/* Adds a document to @src (sources.c). @path (NULL: none) must be allocated from
 * src->arena: it lives and is freed with the source. */
rs_doc   *rs_source_add_doc(rs_source *src, uint32_t source, rs_reason outcome, uint32_t status, char *path);

/* The body of a document with rules (any kind of source): at most RS_ROBOTS_MAX_BODY
 * bytes, decompressed when the file is gzip or zstd. Sets s->errmsg. */
rs_status rs_doc_body(rs_sites *s, const rs_doc *d, char **body, size_t *size);

/* ===== WARC sources (warc_source.c) ===== */

/* Indexes an open WARC file (@w is owned by the source from now on). */
rs_status rs_warc_source_index(rs_sites *s, rs_source *src, uint32_t index, struct rs_warc *w);
rs_status rs_warc_source_body(rs_sites *s, const rs_source *src, const rs_doc *d, char **body, size_t *size);
void      rs_warc_source_free(struct rs_warc_index *x);
/* Releases a WARC source's index, documents and file (streaming mode, each.c). */
void      rs_source_release(rs_source *src);
/* The digest kept for a WARC document's capture (s->digest made it while indexing).
 * @return 1 and sets the OUT parameters, or 0: none (read the body). */
int       rs_warc_source_digest(const rs_doc *d, const void **digest, size_t *len, int *html);
/* The damage a defer_errors index stopped at (RS_OK when none). */
rs_status rs_warc_source_deferred(const rs_source *src);
/* For `robotscan shard` (splitting a WARC by site): the capture key ("origin/path") of a
 * URI, as indexing makes it (0: not an http(s) URL), and the capture key a 3xx Location
 * of the capture @key resolves to (malloc'd; NULL when none), as indexing resolves it. */
int   rs_warc_capture_key(const char *uri, size_t len, char *key, size_t cap, size_t *key_len, size_t *origin_len);
char *rs_warc_location_key(const char *key, size_t key_len, size_t origin_len, rs_str location);

/* Formats s->errmsg. */
void rs_sites_seterr(rs_sites *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* RS_SITES_H */
