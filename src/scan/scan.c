/*
 * scan.c - the bulk path of the library: blocks of URL lines -> verdict
 * records in input order, with a cost per URL that does not grow with the
 * number of sites (robotscan.h, "Bulk scanning").
 *
 * Per block, in passes over arrays (no pointer chasing across the block),
 * each pass a function of its own:
 *  1. lines (pass_lines): one SIMD pass over the block (mask_url, simd.h)
 *     makes three bitmaps of it: its '\n' bytes (the lines), its '/', '?',
 *     ';', '#' bytes (where an authority ends) and its '#' and NUL bytes
 *     (where a path ends). Each line is classified (blank, oversized, URL)
 *     and every URL split once: "http://" and "https://" ones from the
 *     bitmaps (a count-trailing-zeros each for the authority's end and the
 *     path's), others by rs_url_split (split_other); the path the matcher
 *     will see is found here too. Its raw origin key is the bytes up to and
 *     including the delimiter after the authority, hashed (key_hash);
 *  2. resolve (pass_resolve): raw key -> scanner-local site through an
 *     open-addressing table private to the scanner, slots prefetched a few
 *     URLs ahead. A key seen for the first time is parsed (rs_origin_parse)
 *     and looked up in the shared rs_sites once (resolve_new); malformed
 *     origins are remembered too. Each site's URLs are counted here and its
 *     group made at its first URL of the block;
 *  3. group (pass_group): a counting sort of the URLs by local site number
 *     on pass 2's counts, each URL's text position and path copied in;
 *  4. match (pass_match): each site's URLs back to back with its matcher
 *     hot, the next sites' records and matchers prefetched; verdicts are
 *     written at their input positions, so input order needs no second
 *     sort; the block's summary (rs_scan_summarize) is counted as they are
 *     written (a one-agent scanner's groups, decide_group: into counts of
 *     the pass, added to the summary at its end).
 * Lines whose origin may depend on bytes past the raw key (leading
 * whitespace or a BOM) and very long keys are decided on their own, in
 * pass 2 (resolve_new), without caching.
 *
 * Also here: rs_site_check, the one-URL form of the same decision.
 */
#include "sites/sites.h"
#include "rules/ruleset.h"
#include "simd/simd.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define XXH_INLINE_ALL
#include <xxhash.h>

#define KEY_MAX 256             /* longest raw key cached */
#define PREFETCH_AHEAD 12       /* URLs ahead in the resolve pass */

/* ===== Scanner ===== */

/* What a site gives one agent. */
typedef struct {
    const rs_matcher *matcher;  /* NULL: no-robots */
    uint32_t reason;            /* rs_site_result.reason */
} agent_site;

/* An origin key known to the scanner (or a line decided alone, this block
 * only); key and origin bytes follow ag[]. Keyed ones start a cache line:
 * pass 4 reads id and ag[0] from the first. */
typedef struct lsite {
    uint64_t hash;
    uint32_t id;                /* local site number; UINT32_MAX for a line decided alone */
    uint32_t key_len;
    uint32_t origin_len;
    uint32_t work;              /* rules tried so far while its matchers are rule lists
                                   (URLs x list_rules, saturating) */
    uint32_t list_rules;        /* the most rules of its rule-list matchers */
    uint8_t  error;             /* rs_origin_error: != OK for a malformed origin */
    uint8_t  lists;             /* some agent's matcher is a rule list (rs_sites_use_lists) */
    const char *key;
    const char *origin;
    agent_site ag[];
} lsite;

/* A table slot: one cache line holding what a lookup needs (the key's
 * first SLOT_KEY bytes, the site's number and error), so that finding a
 * known key touches its slot only, not the site record. */
#define SLOT_KEY 41
typedef struct {
    uint64_t hash;
    lsite   *site;              /* NULL: empty */
    uint32_t id;                /* site->id */
    uint16_t key_len;           /* site->key_len (<= KEY_MAX) */
    uint8_t  error;             /* site->error */
    char     key[SLOT_KEY];     /* site->key[0, min(key_len, SLOT_KEY)) */
} slot;
_Static_assert(sizeof(slot) == 64, "a slot is one cache line");

/* One line of the block (16 bytes: the block's arrays stay in cache). */
typedef struct {
    uint32_t off, len;          /* the text in the block; OVERSIZED: the length, low/high */
    uint32_t site;              /* local site number, ALONE | index into alone[], or NONE */
    uint8_t  kind;              /* rs_scan_kind */
    uint8_t  error;             /* MALFORMED: rs_origin_error */
    uint16_t pad;
} ent;

#define ALONE 0x80000000u
#define NONE  UINT32_MAX

/* One verdict (line x agent). Written from a copy of the matcher's on the
 * stack: a verdict's line is rarely in cache, and reading back what the
 * matcher wrote there waits for it (measured: 12% slower). */
typedef struct {
    uint32_t line;
    int32_t  rule;
    uint8_t  disallowed, reason, kind;
    uint8_t  pad;
} verdict;

/* A URL line between the passes: what matching it needs without touching its entry. */
typedef struct {
    uint64_t hash;              /* of the raw key (pass 1) */
    uint32_t idx;               /* line index */
    uint32_t key;               /* raw key length (0: decided alone); after pass 2 the local
                                   site number, or NONE */
    uint32_t off, len;          /* the text in the block */
    uint32_t poff, plen;        /* the path the matcher sees (path_of) */
} urlkey;

/* A URL line in group order (pass 4). */
typedef struct {
    uint32_t idx, off, len, poff, plen;     /* off to plen: as in urlkey */
} grouped;
_Static_assert(offsetof(urlkey, plen) - offsetof(urlkey, off) == 12 && offsetof(grouped, plen) - offsetof(grouped, off) == 12,
               "pass 3 copies off, len, poff, plen at once");

#define FRAG_FIRST 0x80000000u  /* blocks are smaller */

/*
 * A URL's path as rs_url_path_of gives it, found once in pass 1: plen ==
 * PATH_ROOT for "/"; else url[poff, poff + plen), with a '/' in front when
 * poff has PATH_SLASH (a path starting with '?' or ';').
 */
#define PATH_ROOT  UINT32_MAX
#define PATH_SLASH 0x80000000u

static const rs_byteset PATH_END_SET = { { (1ull << '#') | 1ull, 0, 0, 0 }, { '#', '\0' }, 2 };

/* rs_url_path_of(url, len, parts) in the (poff, plen) form. */
static inline void path_slow(const char *url, size_t len, const rs_url_parts *parts, uint32_t *poff,
                             uint32_t *plen)
{
    const size_t ps = parts->authority_end;
    if (ps == len || parts->fragment_first) {
        *poff = 0;
        *plen = PATH_ROOT;
        return;
    }
    *plen = (uint32_t)rs_simd_find_any(url + ps, len - ps, &PATH_END_SET);
    *poff = (uint32_t)ps | (url[ps] == '/' ? 0 : PATH_SLASH);
}

struct rs_scanner {
    rs_sites *sites;
    char **agents;
    size_t *agent_lens;
    size_t n_agents;
    rs_semantics semantics;
    rs_scan_missing missing;
    int encode_urls;
    int summary_only;           /* rs_scan_config.summary_only: pass 4 may skip the verdicts */

    slot *slots;                /* 64-byte aligned in slots_mem */
    void *slots_mem;
    size_t mask;
    lsite **site;               /* by local number */
    size_t n_sites, cap_sites;
    uint32_t *cnt;              /* per local site: counts, then group cursors (0 between blocks) */
    size_t cap_cnt;
    rs_arena perm;              /* lsites */
    rs_arena block;             /* lines decided alone (this block only) */
    lsite **alone;
    size_t n_alone, cap_alone;

    /* the current block */
    const char *base;
    uint64_t first_line;
    ent *ent;
    size_t n_ent, cap_ent;
    verdict *ver;
    size_t cap_ver;
    urlkey *uk;
    size_t cap_uk;
    grouped *order;
    uint32_t *touched, *gstart;
    const lsite **gsite;        /* per group: its site (pass 3), read ahead in pass 4 */
    size_t cap_order;
    char *scratch;
    size_t scratch_cap;
    uint64_t *bits;             /* the block's bitmaps (mask_url): newlines, delimiters, path ends */
    size_t cap_bits;
    char origin_buf[RS_ORIGIN_MAX];

    rs_scan_summary sum;        /* the current block's totals, counted as its records are made */
    rs_scan_stats stats;
    char errmsg[1024];
};

const char *rs_scanner_errmsg(const rs_scanner *sc) { return sc ? sc->errmsg : "out of memory"; }

void rs_scanner_stats(const rs_scanner *sc, rs_scan_stats *out)
{
    *out = sc->stats;
    out->sites = sc->n_sites;
}

/* @n zeroed slots, 64-byte aligned; *mem is what to free. */
static slot *slots_alloc(size_t n, void **mem)
{
    /* Zeroed by writing, not calloc: fresh pages calloc leaves untouched are
     * read (probed) before written, so each would fault twice (the zero page,
     * then a copy on write that flushes the other threads' TLBs). */
    *mem = rs_malloc((n + 1) * sizeof(slot));
    if (*mem == NULL) return NULL;
    memset(*mem, 0, (n + 1) * sizeof(slot));
    return (slot *)(((uintptr_t)*mem + 63) & ~(uintptr_t)63);
}

void rs_scanner_free(rs_scanner *sc)
{
    if (sc == NULL) return;
    for (size_t i = 0; i < sc->n_agents; i++) rs_free(sc->agents[i]);
    rs_free(sc->agents);
    rs_free(sc->agent_lens);
    rs_free(sc->slots_mem);
    rs_free(sc->site);
    rs_free(sc->cnt);
    rs_arena_free(&sc->perm);
    rs_arena_free(&sc->block);
    rs_free(sc->alone);
    rs_free(sc->ent);
    rs_free(sc->ver);
    rs_free(sc->uk);
    rs_free(sc->order);
    rs_free(sc->touched);
    rs_free(sc->gstart);
    rs_free(sc->gsite);
    rs_free(sc->scratch);
    rs_free(sc->bits);
    rs_free(sc);
}

rs_status rs_scanner_create(const rs_scan_config *cfg, rs_scanner **out)
{
    RS_RETURN_IF(out == NULL, RS_ERR_USAGE);
    *out = NULL;
    RS_RETURN_IF(cfg == NULL || cfg->sites == NULL || cfg->n_agents == 0 || cfg->agents == NULL,
                 RS_ERR_USAGE);
    RS_RETURN_IF(cfg->semantics != RS_SEMANTICS_GOOGLE && cfg->semantics != RS_SEMANTICS_FIRST_MATCH,
                 RS_ERR_USAGE);
    RS_RETURN_IF(cfg->missing > RS_SCAN_MISSING_SKIP, RS_ERR_USAGE);
    rs_scanner *sc = rs_calloc(1, sizeof *sc);
    RS_RETURN_IF(sc == NULL, RS_ERR_NOMEM);
    sc->sites = cfg->sites;
    sc->semantics = cfg->semantics;
    sc->missing = cfg->missing;
    sc->encode_urls = cfg->encode_urls != 0;
    sc->summary_only = cfg->summary_only != 0;
    sc->agents = rs_calloc(cfg->n_agents, sizeof *sc->agents);
    sc->agent_lens = rs_calloc(cfg->n_agents, sizeof *sc->agent_lens);
    sc->mask = 1023;
    sc->slots = slots_alloc(sc->mask + 1, &sc->slots_mem);
    if (sc->agents == NULL || sc->agent_lens == NULL || sc->slots == NULL) goto nomem;
    sc->n_agents = cfg->n_agents;
    for (size_t i = 0; i < cfg->n_agents; i++) {
        if (cfg->agents[i] == NULL) {
            rs_scanner_free(sc);
            return RS_ERR_USAGE;
        }
        const size_t n = cfg->agent_lens ? cfg->agent_lens[i] : strlen(cfg->agents[i]);
        sc->agents[i] = rs_malloc(n + 1);
        if (sc->agents[i] == NULL) goto nomem;
        memcpy(sc->agents[i], cfg->agents[i], n);
        sc->agents[i][n] = '\0';
        sc->agent_lens[i] = n;
    }
    *out = sc;
    return RS_OK;
nomem:
    rs_scanner_free(sc);
    return RS_ERR_NOMEM;
}

/* ===== Helpers ===== */

static rs_status grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (*cap >= need) return RS_OK;
    size_t c = *cap ? *cap : 1024;
    while (c < need) c *= 2;
    void *n = rs_realloc(*p, c * elem);
    RS_RETURN_IF(n == NULL, RS_ERR_NOMEM);
    rs_advise_huge(n, c * elem);    /* the per-line arrays of large blocks */
    *p = n;
    *cap = c;
    return RS_OK;
}

#ifdef __SSE2__
static inline __m128i ld128(const char *p) { return _mm_loadu_si128((const __m128i *)(const void *)p); }
#endif

#ifdef __SSE2__
/* a[0, n) == b[0, n) for 16 <= n <= 48: 16-byte words, the last overlapping. */
static inline __attribute__((always_inline)) int same_16_48(const char *a, const char *b, size_t n)
{
    __m128i e = _mm_cmpeq_epi8(ld128(a), ld128(b));
    e = _mm_and_si128(e, _mm_cmpeq_epi8(ld128(a + n - 16), ld128(b + n - 16)));
    if (n > 32) e = _mm_and_si128(e, _mm_cmpeq_epi8(ld128(a + 16), ld128(b + 16)));
    return _mm_movemask_epi8(e) == 0xFFFF;
}
#endif

/* a[0, n) == b[0, n) for raw keys (usually 15-40 bytes): 16- or 8-byte
 * words, the last ones overlapping, straight-line code for keys of 8 to 48
 * bytes. */
static inline __attribute__((always_inline)) int same_key(const char *a, const char *b, size_t n)
{
#ifdef __SSE2__
    if (RS_LIKELY(n - 16 <= 32)) return same_16_48(a, b, n);
#endif
    if (RS_LIKELY(n - 8 <= 40)) {
        uint64_t d = (rs_load64(a) ^ rs_load64(b)) | (rs_load64(a + n - 8) ^ rs_load64(b + n - 8));
        if (n > 16) d |= (rs_load64(a + 8) ^ rs_load64(b + 8)) | (rs_load64(a + n - 16) ^ rs_load64(b + n - 16));
        if (n > 32) d |= (rs_load64(a + 16) ^ rs_load64(b + 16)) | (rs_load64(a + 24) ^ rs_load64(b + 24));
        return d == 0;
    }
    if (n < 8) return memcmp(a, b, n) == 0;
    uint64_t diff = 0;
    for (size_t i = 0; i + 8 < n; i += 8) diff |= rs_load64(a + i) ^ rs_load64(b + i);
    return (diff | (rs_load64(a + n - 8) ^ rs_load64(b + n - 8))) == 0;
}

/* The 128-bit product of a and b, its halves xored (as XXH3 and wyhash mix). */
static inline uint64_t mul_fold(uint64_t a, uint64_t b)
{
    const __uint128_t p = (__uint128_t)a * b;
    return (uint64_t)p ^ (uint64_t)(p >> 64);
}

static inline uint64_t rotl64(uint64_t x, unsigned r) { return x << r | x >> (64 - r); }

/*
 * The hash of a raw key, never 0 (its top bit is set: an empty slot's hash
 * is 0, so a slot whose hash equals a key's is taken). Keys of 16 to 48
 * bytes (nearly all) take the words same_key compares, folded into two (xor,
 * the middle ones rotated) and mixed by one 128-bit product (as XXH3 and
 * wyhash mix; the table uses the low bits, which the fold of its halves
 * spreads); keys of 8 to 15 bytes their two words; others XXH3. Only the
 * table's spread depends on it: a key is found by same_key, never by its
 * hash alone.
 */
static inline uint64_t key_hash(const char *p, size_t n)
{
    uint64_t h;
    if (RS_LIKELY(n - 16 <= 32)) {
        uint64_t a = rs_load64(p) ^ rs_load64(p + n - 16) ^ n, b = rs_load64(p + 8) ^ rs_load64(p + n - 8);
        if (n > 32) {
            a ^= rotl64(rs_load64(p + 16), 23);
            b ^= rotl64(rs_load64(p + 24), 41);
        }
        h = mul_fold(a ^ 0xbe4ba423396cfeb8ull, b ^ 0x1cad21f72c81017cull);
    } else if (n - 8 < 8) {
        h = mul_fold(rs_load64(p) ^ 0xdb979083e96dd4deull, rs_load64(p + n - 8) ^ n ^ 0x1f67b3b7a4a44072ull);
    } else {
        h = XXH3_64bits(p, n);
    }
    return h | 1ull << 63;
}

static inline int is_skippable(const char *p, size_t n)
{
    if (RS_LIKELY(n > 0 && p[0] != ' ' && p[0] != '\t' && p[0] != '\r' && p[0] != '#')) return 0;
    size_t i = 0;
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r')) i++;
    return i == n || p[i] == '#';
}

/* The path the matcher sees for url[0, len) (path_of's poff, plen), built
 * in @scratch (4 * len + 8 bytes) when it needs a '/' in front or @encode. */
static inline rs_str path_in(char *scratch, int encode, const char *url, size_t len, uint32_t poff, uint32_t plen)
{
    rs_str path;
    if (plen == PATH_ROOT) {
        path.ptr = "/";
        path.len = 1;
    } else if (poff & PATH_SLASH) {
        scratch[0] = '/';
        memcpy(scratch + 1, url + (poff & ~PATH_SLASH), plen);
        path.ptr = scratch;
        path.len = plen + 1;
    } else {
        path.ptr = url + poff;
        path.len = plen;
    }
    if (encode) {
        char *enc = scratch + len + 2;
        path.len = rs_url_encode_path(path.ptr, path.len, enc, 3 * len + 3);
        path.ptr = enc;
    }
    return path;
}

/* The verdict of url[0, len) under @m (NULL: no-robots) with the site's reason,
 * counted into the block's summary. */
static inline void decide(rs_scanner *sc, verdict *v, const char *url, size_t len,
                          uint32_t poff, uint32_t plen, const rs_matcher *m, uint32_t site_reason)
{
    if (m == NULL) { /* no-robots */
        v->kind = sc->missing == RS_SCAN_MISSING_SKIP ? RS_SCAN_SKIPPED : RS_SCAN_URL;
        v->disallowed = sc->missing == RS_SCAN_MISSING_DISALLOW;
        v->reason = RS_REASON_NO_ROBOTS;
        v->line = 0;
        v->rule = -1;
        if (sc->missing == RS_SCAN_MISSING_SKIP) {
            sc->sum.skipped++;
        } else {
            sc->sum.verdict[v->disallowed]++;
            sc->sum.reason[RS_REASON_NO_ROBOTS]++;
        }
        return;
    }
    const rs_str path = path_in(sc->scratch, sc->encode_urls, url, len, poff, plen);
    rs_verdict r;
    rs_matcher_match(m, path.ptr, path.len, &r);
    v->kind = RS_SCAN_URL;
    v->disallowed = (uint8_t)r.disallowed;
    v->line = r.line;
    v->rule = r.rule;
    if (site_reason == RS_REASON_NO_MATCH || site_reason == RS_REASON_MATCHED)
        v->reason = r.line > 0 ? RS_REASON_MATCHED : RS_REASON_NO_MATCH;
    else
        v->reason = (uint8_t)site_reason;
    sc->sum.verdict[v->disallowed]++;
    sc->sum.reason[v->reason]++;
}

/* Parses @url's origin into @o and looks it up for every agent into @ag. */
static rs_status resolve_slow(rs_scanner *sc, const char *url, size_t len, rs_origin *o,
                              agent_site *ag)
{
    const rs_status st = rs_origin_parse(url, len, sc->origin_buf, sizeof sc->origin_buf, o);
    if (st != RS_OK) {
        snprintf(sc->errmsg, sizeof sc->errmsg, "origin parsing: %s", rs_status_str(st));
        return st;
    }
    sc->stats.site_misses++;
    if (o->error != RS_ORIGIN_OK) return RS_OK;
    rs_site_result one[16];
    rs_site_result *r = sc->n_agents <= 16 ? one : rs_malloc(sc->n_agents * sizeof *r);
    RS_RETURN_IF(r == NULL, RS_ERR_NOMEM);
    const rs_status s2 = rs_site_lookup_agents(sc->sites, o, (const char *const *)sc->agents,
                                               sc->agent_lens, sc->n_agents, sc->semantics, r);
    if (s2 != RS_OK)
        snprintf(sc->errmsg, sizeof sc->errmsg, "%s", rs_sites_errmsg(sc->sites));
    for (size_t a = 0; s2 == RS_OK && a < sc->n_agents; a++) {
        ag[a].matcher = r[a].matcher;
        ag[a].reason = r[a].reason;
    }
    if (r != one) rs_free(r);
    return s2;
}

static rs_status table_grow(rs_scanner *sc)
{
    const size_t cap = (sc->mask + 1) * 2;
    void *mem;
    slot *n = slots_alloc(cap, &mem);
    RS_RETURN_IF(n == NULL, RS_ERR_NOMEM);
    for (size_t i = 0; i <= sc->mask; i++) {
        if (sc->slots[i].site == NULL) continue;
        size_t j = (size_t)sc->slots[i].hash & (cap - 1);
        while (n[j].site) j = (j + 1) & (cap - 1);
        n[j] = sc->slots[i];
    }
    rs_free(sc->slots_mem);
    sc->slots_mem = mem;
    sc->slots = n;
    sc->mask = cap - 1;
    return RS_OK;
}

/*
 * Resolves url[0, len) into a new lsite in @ar: keyed (key > 0: raw key
 * url[0, key), hash @h, entered in the table) or alone (key == 0).
 */
static rs_status new_site(rs_scanner *sc, rs_arena *ar, const char *url, size_t len, size_t key,
                          uint64_t h, lsite **out)
{
    rs_origin o;
    agent_site ag[16];
    agent_site *agp = sc->n_agents <= 16 ? ag : rs_malloc(sc->n_agents * sizeof *agp);
    RS_RETURN_IF(agp == NULL, RS_ERR_NOMEM);
    rs_status st = resolve_slow(sc, url, len, &o, agp);
    if (st != RS_OK) goto out;
    const size_t olen = o.error == RS_ORIGIN_OK ? o.origin.len : 0;
    const size_t size = sizeof(lsite) + sc->n_agents * sizeof(agent_site) + key + olen;
    /* a keyed site's record starts a cache line: its first line holds its header */
    lsite *s = key ? rs_arena_alloc_aligned(ar, size, 64) : rs_arena_alloc(ar, size);
    if (s == NULL) { st = RS_ERR_NOMEM; goto out; }
    char *p = (char *)(s->ag + sc->n_agents);
    if (key) memcpy(p, url, key);
    if (olen) memcpy(p + key, o.origin.ptr, olen);
    s->hash = h;
    s->id = NONE;
    s->key_len = (uint32_t)key;
    s->origin_len = (uint32_t)olen;
    s->error = (uint8_t)o.error;
    s->key = p;
    s->origin = p + key;
    s->work = 0;
    s->list_rules = 0;
    s->lists = 0;
    for (size_t a = 0; a < sc->n_agents; a++) {
        const rs_matcher *m = o.error == RS_ORIGIN_OK ? agp[a].matcher : NULL;
        if (m != NULL && rs_matcher_is_list(m)) {
            const rs_matcher *t = rs_matcher_built(m);   /* another scanner's trie */
            if (t != NULL) {
                m = t;
            } else {
                s->lists = 1;
                s->list_rules = RS_MAX(s->list_rules, (uint32_t)RS_MIN(rs_matcher_rule_count(m), UINT32_MAX));
            }
        }
        s->ag[a].matcher = m;
        s->ag[a].reason = o.error == RS_ORIGIN_OK ? agp[a].reason : 0;
    }
    *out = s;
    if (key == 0) goto out;
    if ((st = grow((void **)&sc->site, &sc->cap_sites, sc->n_sites + 1, sizeof *sc->site)) != RS_OK)
        goto out;
    if (sc->cap_cnt < sc->cap_sites) {   /* one zeroed counter per local site */
        uint32_t *c = rs_realloc(sc->cnt, sc->cap_sites * sizeof *c);
        if (c == NULL) { st = RS_ERR_NOMEM; goto out; }
        memset(c + sc->cap_cnt, 0, (sc->cap_sites - sc->cap_cnt) * sizeof *c);
        sc->cnt = c;
        sc->cap_cnt = sc->cap_sites;
    }
    if ((sc->n_sites + 1) * 2 > sc->mask + 1 && (st = table_grow(sc)) != RS_OK) goto out;
    s->id = (uint32_t)sc->n_sites;
    sc->site[sc->n_sites++] = s;
    size_t j = (size_t)h & sc->mask;
    while (sc->slots[j].site) j = (j + 1) & sc->mask;
    slot *t = &sc->slots[j];
    t->hash = h;
    t->site = s;
    t->id = s->id;
    t->key_len = (uint16_t)key;
    t->error = s->error;
    memcpy(t->key, url, key < SLOT_KEY ? key : SLOT_KEY);
out:
    if (agp != ag) rs_free(agp);
    return st;
}

/* ===== The block's bitmaps =====
 *
 * Pass 1 works from three bitmaps of the block made in one pass over it by
 * the mask_url kernel (simd.h; 64 bytes a word): its '\n' bytes (the lines:
 * rs_line_next's lines, a line costing a count-trailing-zeros), its '/',
 * '?', ';' and '#' bytes (rs_url_split's AUTHORITY_END: where an authority
 * ends; its search steps over NULs, which are not in it) and its '#' and NUL
 * bytes (where rs_url_path_of's path ends). */

static const uint64_t HTTPS = 0x2f2f3a7370747468ull;   /* "https://" little-endian */
static const uint64_t HTTP = 0x002f2f3a70747468ull;    /* "http://" */

/* The index of the lowest set bit of x != 0 (unsigned: no sign extension). */
static inline size_t ctz64(uint64_t x) { return (unsigned)__builtin_ctzll(x); }

/* next_bit past its first 64 bits: word by word. */
static size_t next_bit_far(const uint64_t *bits, size_t from, size_t to)
{
    if (from >= to) return to;
    size_t w = from >> 6;
    uint64_t m = bits[w] & (~0ull << (from & 63));
    while (m == 0) {
        if ((++w << 6) >= to) return to;
        m = bits[w];
    }
    const size_t p = (w << 6) + ctz64(m);
    return p < to ? p : to;
}

/* The first set bit of @bits in [from, to), or @to (from <= to; the words up
 * to (to >> 6) + 1 exist). At least 57 bits from @from at once, from one
 * unaligned load (little-endian: the bitmap's bytes are in bit order) or two
 * words: a URL's next delimiter is nearly always among them. */
static inline size_t next_bit(const uint64_t *bits, size_t from, size_t to)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t m;
    memcpy(&m, (const char *)bits + (from >> 3), 8);
    m >>= from & 7;
    enum { SEEN = 57 };
#else
    const size_t w = from >> 6;
    const unsigned r = (unsigned)(from & 63);
    const uint64_t m = bits[w] >> r | (bits[w + 1] << 1) << (63 - r);
    enum { SEEN = 64 };
#endif
    if (RS_LIKELY(m != 0)) {
        const size_t p = from + ctz64(m);
        return p < to ? p : to;
    }
    return from + SEEN >= to ? to : next_bit_far(bits, from + SEEN, to);
}

/* ===== Blocks ===== */

/* Each pass is a function of its own: its loop keeps the arrays it walks in
 * registers (a store through one of them cannot change them). */

static rs_status grow_lines(rs_scanner *sc, size_t need)
{
    RS_FORWARD(grow((void **)&sc->ent, &sc->cap_ent, need, sizeof *sc->ent));
    return grow((void **)&sc->uk, &sc->cap_uk, need, sizeof *sc->uk);
}

/*
 * Pass 1's lines other than "http://" and "https://" URLs: -1 for a line to
 * skip (blank, a comment), else rs_url_split's authority end (*ae), the path
 * (path_slow) and whether the origin depends on the raw key's bytes only
 * (rs_origin_parse skips leading whitespace and a BOM, so such a line's
 * origin may depend on bytes past its key: decided alone).
 */
static __attribute__((noinline)) int split_other(const char *u, size_t len, size_t *ae, uint32_t *poff,
                                                 uint32_t *plen)
{
    if (is_skippable(u, len)) return -1;
    const rs_url_parts parts = rs_url_split(u, len);
    *ae = parts.authority_end;
    path_slow(u, len, &parts, poff, plen);
    const unsigned char c0 = (unsigned char)u[0];
    return c0 > 0x20 && c0 != 0xEF;
}

/* Pass 1: the block's lines into sc->ent (a URL line's entry is written by
 * pass 2 from its urlkey), each URL split once into sc->uk, its raw key
 * hashed. */
static __attribute__((noinline)) rs_status pass_lines(rs_scanner *sc, const rs_block *block, size_t *n_out,
                                                      size_t *nurl_out, size_t *maxlen_out)
{
    const char *const base = block->ptr;
    const size_t blen = block->len, nw = (blen + 63) / 64;
    const size_t max_line = block->max_line ? block->max_line : RS_READER_DEFAULT_MAX_LINE;
    const uint64_t lines = block->oversized ? 1 : block->lines;
    RS_FORWARD(grow_lines(sc, lines + 1));
    /* each bitmap has two zero words past the block: next_bit reads one ahead */
    RS_FORWARD(grow((void **)&sc->bits, &sc->cap_bits, 3 * (nw + 2), sizeof *sc->bits));
    uint64_t *const nlb = sc->bits, *const dlb = nlb + nw + 2, *const peb = dlb + nw + 2;
    rs_simd_mask_url(base, blen, nlb, dlb, peb);
    nlb[nw] = nlb[nw + 1] = dlb[nw] = dlb[nw + 1] = peb[nw] = peb[nw + 1] = 0;
    /* a block not ending in '\n': its last line ends at a newline bit at blen */
    if (blen > 0 && base[blen - 1] != '\n') nlb[blen >> 6] |= 1ull << (blen & 63);
    ent *ents = sc->ent;
    urlkey *uks = sc->uk;
    size_t cap = sc->cap_ent;   /* <= sc->cap_uk */
    size_t n = 0, nurl = 0, maxlen = 0, blank = 0, oversized = 0;
    size_t pos = 0, w = 0;      /* the next line's start; the newline word */
    uint64_t cur = nlb[0];      /* newlines of word w not yet used */
    while (pos < blen) {
        while (cur == 0) cur = nlb[++w];    /* a bit at or before blen is left */
        const size_t stop = w * 64 + ctz64(cur);
        cur &= cur - 1;
        const size_t at = pos;
        size_t len = stop - at;
        pos = stop + 1;
        if (RS_UNLIKELY(n == cap)) {         /* more lines than the block said: never expected */
            RS_FORWARD(grow_lines(sc, n + 1));
            ents = sc->ent;
            uks = sc->uk;
            cap = sc->cap_ent;
        }
        n++;                    /* line n - 1; a URL line's entry is written by pass 2 */
        if (RS_UNLIKELY(len > max_line)) {
            ents[n - 1] = (ent){ .off = (uint32_t)len, .len = (uint32_t)((uint64_t)len >> 32), .site = NONE,
                        .kind = RS_SCAN_OVERSIZED };
            oversized++;
            continue;
        }
        if (len > 0 && base[stop - 1] == '\r') len--;
        const char *u = base + at;
        size_t ae;              /* authority end (rs_url_split) */
        uint32_t poff, plen;
        int keyable;            /* the origin depends on the raw key's bytes only */
        const uint64_t w0 = len >= 8 ? rs_load64(u) : 0;
        const size_t a = (w0 == HTTPS) ? 8 : (w0 & 0x00ffffffffffffffull) == HTTP ? 7 : 0;
        if (RS_LIKELY(a)) {
            /* rs_url_split and rs_url_path_of from the block's bitmaps */
            const size_t end = at + len;
            const size_t p = next_bit(dlb, at + a, end);
            ae = p - at;
            if (p == end || base[p] == '#') {
                poff = 0;
                plen = PATH_ROOT;
            } else {            /* base[p] is '/', '?' or ';': not a path end */
                poff = (uint32_t)ae | (base[p] == '/' ? 0 : PATH_SLASH);
                plen = (uint32_t)(next_bit(peb, p, end) - p);
            }
            keyable = 1;
        } else {
            keyable = split_other(u, len, &ae, &poff, &plen);
            if (keyable < 0) {
                ents[n - 1] = (ent){ .off = (uint32_t)at, .len = (uint32_t)len, .site = NONE, .kind = RS_SCAN_BLANK };
                blank++;
                continue;
            }
        }
        const size_t key = ae < len ? ae + 1 : len;
        const int keyed = keyable && key <= KEY_MAX;
        urlkey *k = &uks[nurl++];
        k->hash = keyed ? key_hash(u, key) : 0;
        k->idx = (uint32_t)(n - 1);
        k->key = keyed ? (uint32_t)key : 0;
        k->off = (uint32_t)at;
        k->len = (uint32_t)len;
        k->poff = poff;
        k->plen = plen;
        maxlen |= len;          /* at least the longest URL, under twice it */
    }
    if (block->oversized) {     /* the block's pending oversized record: its last line */
        if (n == cap) RS_FORWARD(grow_lines(sc, n + 1));
        sc->ent[n++] = (ent){ .off = (uint32_t)block->oversized, .len = (uint32_t)(block->oversized >> 32),
                              .site = NONE, .kind = RS_SCAN_OVERSIZED };
        oversized++;
    }
    sc->sum.blank += blank;
    sc->sum.oversized += oversized;
    *n_out = n;
    *nurl_out = nurl;
    *maxlen_out = maxlen;
    return RS_OK;
}

/* Pass 2 failed: the group counters it raised back to 0 (0 between blocks). */
static rs_status undo_counts(rs_scanner *sc, size_t nt, rs_status st)
{
    for (size_t g = 0; g < nt; g++) sc->cnt[sc->touched[g]] = 0;
    return st;
}

/*
 * Pass 2's URL whose key is not in the table: a new keyed site (*out), or a
 * line decided alone (*out NULL: decided here when its origin is good, else
 * marked malformed and counted in *malformed).
 */
static __attribute__((noinline)) rs_status resolve_new(rs_scanner *sc, urlkey *k, size_t *malformed, lsite **out)
{
    const size_t na = sc->n_agents;
    const char *u = sc->base + k->off;
    ent *e = &sc->ent[k->idx];
    lsite *s;
    *out = NULL;
    if (k->key) {
        RS_FORWARD(new_site(sc, &sc->perm, u, k->len, k->key, k->hash, &s));
        *out = s;
        return RS_OK;
    }
    /* decided alone: parsed each time, kept for this block only */
    RS_FORWARD(new_site(sc, &sc->block, u, k->len, 0, 0, &s));
    k->key = NONE;
    if (s->error != RS_ORIGIN_OK) {
        e->kind = RS_SCAN_MALFORMED;
        e->error = s->error;
        ++*malformed;
        return RS_OK;
    }
    RS_FORWARD(grow((void **)&sc->alone, &sc->cap_alone, sc->n_alone + 1, sizeof *sc->alone));
    e->site = ALONE | (uint32_t)sc->n_alone;
    sc->alone[sc->n_alone++] = s;
    for (size_t a = 0; a < na; a++)
        decide(sc, &sc->ver[k->idx * na + a], u, k->len, k->poff, k->plen, s->ag[a].matcher, s->ag[a].reason);
    return RS_OK;
}

/* The slot of raw key u[0, key) (key > 0, hash @hash), or NULL. */
static inline const slot *find_slot(const slot *slots, size_t mask, uint64_t hash, uint32_t key, const char *u)
{
    for (size_t i = (size_t)hash & mask;; i = (i + 1) & mask) {
        const slot *t = &slots[i];
        if (t->hash == hash) {  /* taken: a key's hash is never 0 */
            if (t->key_len != key) continue;
#ifdef __SSE2__
            if (RS_LIKELY(key - 16 <= SLOT_KEY - 16)) {     /* most keys: one range check */
                if (same_16_48(t->key, u, key)) return t;
                continue;
            }
#endif
            if (same_key(key <= SLOT_KEY ? t->key : t->site->key, u, key)) return t;
        } else if (t->site == NULL) {
            return NULL;
        }
    }
}

/* Pass 2: raw key -> local site (table slots prefetched ahead; a run of one
 * origin finds its slot in cache); each site's URLs counted for pass 3, its
 * group made (gsite, touched) at its first URL. */
static __attribute__((noinline)) rs_status pass_resolve(rs_scanner *sc, size_t nurl, size_t *nt_out,
                                                        size_t *malformed_out)
{
    const char *const base = sc->base;
    urlkey *const uks = sc->uk, *const uend = uks + nurl;
    ent *const ents = sc->ent;
    const lsite **const gsite = sc->gsite;
    uint32_t *const touched = sc->touched;
    const slot *slots = sc->slots;  /* these three change only in resolve_new */
    size_t mask = sc->mask;
    uint32_t *cnt = sc->cnt;
    size_t n_malformed = 0, nt = 0;
    for (urlkey *k = uks; k < uend; k++) {
        __builtin_prefetch(&slots[(size_t)k[PREFETCH_AHEAD].hash & mask]);
        ent *e = &ents[k->idx];
        e->off = k->off;
        e->len = k->len;
        e->site = NONE;
        e->kind = RS_SCAN_URL;
        e->error = 0;
        const char *u = base + k->off;
        const uint32_t key = k->key;
        const slot *t = key ? find_slot(slots, mask, k->hash, key, u) : NULL;
        const lsite *s;
        uint32_t id, err;       /* from the slot: the site record is not read */
        if (RS_LIKELY(t != NULL)) {
            s = t->site;
            id = t->id;
            err = t->error;
        } else {
            lsite *ns;
            const rs_status st = resolve_new(sc, k, &n_malformed, &ns);
            if (st != RS_OK) return undo_counts(sc, nt, st);
            slots = sc->slots;
            mask = sc->mask;
            cnt = sc->cnt;
            if (ns == NULL) continue;   /* decided alone */
            s = ns;
            id = ns->id;
            err = ns->error;
        }
        if (RS_UNLIKELY(err != RS_ORIGIN_OK)) {
            e->kind = RS_SCAN_MALFORMED;
            e->error = (uint8_t)err;
            k->key = NONE;
            n_malformed++;
            continue;
        }
        e->site = k->key = id;
        if (cnt[id]++ == 0) {
            gsite[nt] = s;
            touched[nt++] = id;
        }
    }
    *nt_out = nt;
    *malformed_out = n_malformed;
    return RS_OK;
}

/* Pass 3: the URL lines grouped by local site (a counting sort on pass 2's
 * counts, groups in first-seen order): sc->order, group g at gstart[g]. */
static __attribute__((noinline)) void pass_group(rs_scanner *sc, size_t nurl, size_t nt)
{
    uint32_t *const cnt = sc->cnt;
    const uint32_t *const touched = sc->touched;
    uint32_t *const gstart = sc->gstart;
    const urlkey *const uks = sc->uk;
    grouped *const order = sc->order;
    uint32_t off = 0;
    for (size_t g = 0; g < nt; g++) {
        const uint32_t id = touched[g];
        gstart[g] = off;
        const uint32_t c = cnt[id];
        cnt[id] = off;
        off += c;
    }
    gstart[nt] = off;
    for (uint32_t k = off; k < off + 4; k++) order[k].off = 0;   /* read ahead by pass 4 */
    for (size_t j = 0; j < nurl; j++) {
        const urlkey *k = &uks[j];
        if (k->key == NONE) continue;
        grouped *o = &order[cnt[k->key]++];
        o->idx = k->idx;
        memcpy(&o->off, &k->off, 4 * sizeof o->off);   /* off, len, poff, plen */
    }
}

/* The counts of pass 4's one-agent groups, added to the summary at its end. */
typedef struct {
    uint64_t verdict[2];
    uint64_t reason[RS_REASON_COUNT];
} group_counts;

/* decide() for the URLs o[0, end - o) of one site, under matcher @m (not
 * NULL) for the one agent of a scanner that does not encode paths; counted
 * into @c, and the verdicts stored unless @store is 0 (a summary-only
 * scanner: the stores, scattered over the block's lines, are most of what
 * this loop costs beside the matcher). The next URLs' text prefetched 4
 * ahead. Few values live across the matcher call: the counts are in
 * memory, both reasons in one word. */
static inline __attribute__((always_inline)) void
decide_group(rs_scanner *sc, const grouped *o, const grouped *const end, const rs_matcher *m,
             uint32_t site_reason, group_counts *c, const int store)
{
    const char *const base = sc->base;
    verdict *const ver = sc->ver;
    const int by_line = site_reason == RS_REASON_NO_MATCH || site_reason == RS_REASON_MATCHED;
    /* the reason of a verdict with a line (low byte), without one (next byte) */
    const uint32_t reasons = by_line ? RS_REASON_MATCHED | RS_REASON_NO_MATCH << 8 : site_reason | site_reason << 8;
    for (; o < end; o++) {
        const char *nx = base + o[4].off;   /* maybe the next group's */
        __builtin_prefetch(nx);
        __builtin_prefetch(nx + 63);
        const char *url = base + o->off;
        rs_str path;
        if (RS_LIKELY(!(o->poff & PATH_SLASH) && o->plen != PATH_ROOT)) {
            path.ptr = url + o->poff;
            path.len = o->plen;
        } else {
            path = path_in(sc->scratch, 0, url, o->len, o->poff, o->plen);
        }
        rs_verdict r;
        rs_matcher_match(m, path.ptr, path.len, &r);
        const uint8_t reason = (uint8_t)(reasons >> (r.line > 0 ? 0 : 8));
        if (store) {
            verdict *v = &ver[o->idx];
            v->line = r.line;
            v->rule = r.rule;
            v->disallowed = (uint8_t)r.disallowed;
            v->reason = reason;
            v->kind = RS_SCAN_URL;
        }
        c->verdict[r.disallowed != 0]++;
        c->reason[reason]++;
    }
}

/*
 * When a site's rule lists give way to tries. A list costs a walk of every rule
 * a URL (most refused on their first 8 bytes); a trie costs ~3.5 us to build and
 * then a walk of the few nodes the path passes. Cold (a site met once a block,
 * most of a large frontier) both walks wait on memory and a trie rarely pays for
 * itself; hot (a site's URLs back to back) a list walk of 40 rules costs ~0.1 us
 * more than the trie's. So a site turns to its tries when a block brings it
 * LIST_GROUP URLs at once, or when the rules its lists have tried reach
 * LIST_WORK (a file of hundreds of rules gets there in a few URLs), counted from
 * its second group on: a site's first group, fewer than LIST_GROUP URLs, walks the
 * list whatever its length (a 19,000-rule file: ~20 us a URL against ~5 ms and
 * 2.2 MB for its trie, which a site met once never repays). Measured at
 * 100,000 sites in random order, CPU against tries only: 1 URL a site 0.82x, 10
 * 0.86x, 40 1.02x, 120 1.05x (bench/RESULTS.md, 2026-11-27g). The trie is built
 * once in the sites' arena, for every scanner; without memory for it the list
 * goes on deciding (the same verdicts).
 */
#define LIST_GROUP 32
#define LIST_WORK  8192

static __attribute__((noinline)) void promote(rs_scanner *sc, lsite *s, uint32_t urls)
{
    const int first = s->work == 0;
    const uint64_t work = (uint64_t)s->work + (uint64_t)urls * s->list_rules;
    s->work = (uint32_t)RS_MIN(work, UINT32_MAX);
    const int now = urls >= LIST_GROUP || (!first && work >= LIST_WORK);
    int lists = 0;
    for (size_t a = 0; a < sc->n_agents; a++) {
        const rs_matcher *m = s->ag[a].matcher, *t;
        if (m == NULL || !rs_matcher_is_list(m)) continue;
        if ((t = rs_matcher_built(m)) != NULL)   /* another scanner built it: take it */
            s->ag[a].matcher = t;
        else if (now && rs_sites_compiled(sc->sites, m, &t) == RS_OK)
            s->ag[a].matcher = t;
        else
            lists = 1;
    }
    /* without memory for a trie: the list goes on, tried again at the next group */
    s->lists = (uint8_t)lists;
}

/* Pass 4: each site's URLs back to back. Ahead, without a chain of
 * dependent misses: the site record 8 groups ahead, its matchers' header
 * and root node 4 ahead, their tables 2 ahead (as much as the group's URLs
 * are worth: a lone URL walks a few lines, not the whole matcher). */
static __attribute__((noinline)) void pass_match(rs_scanner *sc, size_t nt)
{
    const size_t na = sc->n_agents;
    const char *const base = sc->base;
    lsite *const *const gsite = (lsite *const *)(uintptr_t)sc->gsite;
    const uint32_t *const gstart = sc->gstart;
    const grouped *const order = sc->order;
    const int one = na == 1 && !sc->encode_urls;    /* decide_group's case */
    group_counts c;
    memset(&c, 0, sizeof c);
    for (size_t g = 0; g < nt; g++) {
        const lsite *s = gsite[g];
        if (g + 8 < nt) {       /* ag[] may start in the record's second line */
            __builtin_prefetch(gsite[g + 8]);
            __builtin_prefetch((const char *)gsite[g + 8] + 64);
        }
        if (g + 4 < nt) {
            const lsite *nx = gsite[g + 4];
            for (size_t a = 0; a < na; a++)
                if (nx->ag[a].matcher) {
                    __builtin_prefetch(nx->ag[a].matcher);
                    __builtin_prefetch((const char *)nx->ag[a].matcher + 64);
                }
        }
        if (g + 2 < nt) {
            const lsite *nx = gsite[g + 2];
            const uint32_t urls = gstart[g + 3] - gstart[g + 2];
            for (size_t a = 0; a < na; a++)
                if (nx->ag[a].matcher) rs_matcher_prefetch(nx->ag[a].matcher, urls >= 4 ? 4096 : 512 * urls);
        }
        sc->cnt[s->id] = 0;
        const uint32_t end = gstart[g + 1];
        if (RS_UNLIKELY(s->lists)) promote(sc, gsite[g], end - gstart[g]);
        if (one && s->ag[0].matcher != NULL) {  /* the usual case, without the agents loop */
            if (sc->summary_only)
                decide_group(sc, order + gstart[g], order + end, s->ag[0].matcher, s->ag[0].reason, &c, 0);
            else
                decide_group(sc, order + gstart[g], order + end, s->ag[0].matcher, s->ag[0].reason, &c, 1);
            continue;
        }
        for (uint32_t k = gstart[g]; k < end; k++) {
            const grouped *o = &order[k];
            if (k + 4 < end) {
                const char *nx = base + order[k + 4].off;
                __builtin_prefetch(nx);
                __builtin_prefetch(nx + 63);
            }
            const char *u = base + o->off;
            for (size_t a = 0; a < na; a++)
                decide(sc, &sc->ver[(size_t)o->idx * na + a], u, o->len, o->poff, o->plen, s->ag[a].matcher,
                       s->ag[a].reason);
        }
    }
    for (int v = 0; v < 2; v++) sc->sum.verdict[v] += c.verdict[v];
    for (int r = 0; r < RS_REASON_COUNT; r++) sc->sum.reason[r] += c.reason[r];
}

rs_status rs_scan_block(rs_scanner *sc, const rs_block *block, size_t *n_lines)
{
    RS_RETURN_IF(sc == NULL || block == NULL || n_lines == NULL, RS_ERR_USAGE);
    *n_lines = 0;
    sc->n_ent = 0;
    sc->errmsg[0] = '\0';
    rs_arena_reset(&sc->block);
    sc->n_alone = 0;
    if (block->len >= (size_t)FRAG_FIRST) {
        snprintf(sc->errmsg, sizeof sc->errmsg, "a block of %zu bytes is too large to scan", block->len);
        return RS_ERR_LIMIT;
    }
    const size_t na = sc->n_agents;
    memset(&sc->sum, 0, sizeof sc->sum);
    sc->base = block->ptr;
    sc->first_line = block->first_line;

    size_t n, nurl, maxlen;
    RS_FORWARD(pass_lines(sc, block, &n, &nurl, &maxlen));
    sc->n_ent = n;
    /* PREFETCH_AHEAD entries past the last URL: pass 2 reads ahead without a bound check */
    RS_FORWARD(grow((void **)&sc->uk, &sc->cap_uk, nurl + PREFETCH_AHEAD, sizeof *sc->uk));
    for (size_t j = nurl; j < nurl + PREFETCH_AHEAD; j++) sc->uk[j].hash = 0;
    RS_FORWARD(grow((void **)&sc->ver, &sc->cap_ver, n * na + 1, sizeof *sc->ver));
    RS_FORWARD(grow((void **)&sc->scratch, &sc->scratch_cap, 4 * maxlen + 8, 1));
    if (sc->cap_order < nurl + 5) {
        size_t cap = 0;
        void *o = NULL;
        RS_FORWARD(grow(&o, &cap, nurl + 5, sizeof *sc->order));
        rs_free(sc->order);
        sc->order = o;
        rs_free(sc->touched);
        rs_free(sc->gstart);
        rs_free(sc->gsite);
        sc->touched = rs_malloc(cap * sizeof *sc->touched);
        sc->gstart = rs_malloc((cap + 1) * sizeof *sc->gstart);
        sc->gsite = rs_malloc(cap * sizeof *sc->gsite);
        sc->cap_order = sc->touched && sc->gstart && sc->gsite ? cap : 0;
        RS_RETURN_IF(sc->cap_order == 0, RS_ERR_NOMEM);
    }
    size_t nt, n_malformed;
    RS_FORWARD(pass_resolve(sc, nurl, &nt, &n_malformed));
    pass_group(sc, nurl, nt);
    pass_match(sc, nt);

    sc->stats.groups += nt;
    sc->stats.blocks++;
    sc->stats.urls += nurl - n_malformed;
    sc->sum.lines = n;
    sc->sum.malformed = n_malformed;
    sc->sum.urls = sc->sum.verdict[0] + sc->sum.verdict[1];
    *n_lines = n;
    return RS_OK;
}

/* The verdict of line @i for @agent into @r. */
static inline void put_verdict(const rs_scanner *sc, size_t i, size_t agent, rs_scan_record *r)
{
    const verdict *v = &sc->ver[i * sc->n_agents + agent];
    r->kind = v->kind;
    r->line = v->line;
    r->rule = v->rule;
    r->disallowed = v->disallowed;
    r->reason = v->reason;
}

void rs_scan_get(const rs_scanner *sc, size_t i, size_t agent, rs_scan_record *r)
{
    const ent *e = &sc->ent[i];
    memset(r, 0, sizeof *r);
    r->line_no = sc->first_line + i;
    r->kind = e->kind;
    r->agent = (uint32_t)agent;
    r->rule = -1;
    r->site = NONE;
    r->origin.ptr = "";
    if (e->kind == RS_SCAN_OVERSIZED) {
        r->url.ptr = "";
        r->oversized = (uint64_t)e->off | (uint64_t)e->len << 32;
        return;
    }
    r->url.ptr = sc->base + e->off;
    r->url.len = e->len;
    if (e->kind == RS_SCAN_MALFORMED) {
        r->error = e->error;
        return;
    }
    if (e->kind != RS_SCAN_URL) return;
    const lsite *s = (e->site & ALONE) ? sc->alone[e->site & ~ALONE] : sc->site[e->site];
    r->site = s->id;
    r->origin.ptr = s->origin;
    r->origin.len = s->origin_len;
    r->matcher = s->ag[agent].matcher;
    if (sc->summary_only) return;   /* no verdict kept */
    put_verdict(sc, i, agent, r);
}

void rs_scan_get_brief(const rs_scanner *sc, size_t i, size_t agent, rs_scan_record *r)
{
    const ent *e = &sc->ent[i];
    if (RS_UNLIKELY(e->kind != RS_SCAN_URL || (e->site & ALONE) || sc->summary_only)) {
        rs_scan_get(sc, i, agent, r);
        r->origin.ptr = "";
        r->origin.len = 0;
        r->matcher = NULL;      /* a line decided alone keeps site NONE, as rs_scan_get gives it */
        return;
    }
    memset(r, 0, sizeof *r);
    r->line_no = sc->first_line + i;
    r->agent = (uint32_t)agent;
    r->url.ptr = sc->base + e->off;
    r->url.len = e->len;
    r->site = e->site;          /* the local number, as the site record's id */
    __builtin_prefetch(&sc->site[e->site]);     /* for rs_scan_prefetch_site, if it comes */
    r->origin.ptr = "";
    put_verdict(sc, i, agent, r);
}

void rs_scan_prefetch_site(const rs_scanner *sc, size_t i)
{
    const uint32_t s = sc->ent[i].site;
    if (s == NONE) return;
    const lsite *p = (s & ALONE) ? sc->alone[s & ~ALONE] : sc->site[s];
    __builtin_prefetch(p);
    __builtin_prefetch((const char *)p + 64);   /* ag[] may start in the second line */
}

rs_scan_kind rs_scan_line_kind(const rs_scanner *sc, size_t i) { return (rs_scan_kind)sc->ent[i].kind; }

/* Counted by rs_scan_block as it made the records (decide, and the kinds of lines). */
void rs_scan_summarize(const rs_scanner *sc, rs_scan_summary *out) { *out = sc->sum; }

/* ===== One URL ===== */

rs_status rs_site_check(rs_sites *s, const char *url, size_t url_len, const char *agent,
                        size_t agent_len, rs_semantics semantics, int encode_url, rs_site_verdict *out)
{
    RS_RETURN_IF(s == NULL || out == NULL || (url == NULL && url_len) || (agent == NULL && agent_len),
                 RS_ERR_USAGE);
    memset(out, 0, sizeof *out);
    out->verdict.rule = -1;
    rs_origin o;
    char buf[RS_ORIGIN_MAX];
    RS_FORWARD(rs_origin_parse(url ? url : "", url_len, buf, sizeof buf, &o));
    if (o.error != RS_ORIGIN_OK) {
        out->malformed = 1;
        out->error = o.error;
        return RS_OK;
    }
    memcpy(out->origin, o.origin.ptr, o.origin.len);
    out->origin[o.origin.len] = '\0';
    rs_site_result r;
    RS_FORWARD(rs_site_lookup_sem(s, &o, agent ? agent : "", agent_len, semantics, &r));
    if (r.matcher == NULL) {
        out->reason = RS_REASON_NO_ROBOTS;
        return RS_OK;
    }
    char small[1024];
    const size_t need = 4 * url_len + 8;
    char *scratch = need <= sizeof small ? small : rs_malloc(need);
    RS_RETURN_IF(scratch == NULL, RS_ERR_NOMEM);
    const rs_url_parts parts = rs_url_split(url, url_len);
    rs_str path = rs_url_path_of(url, url_len, &parts, scratch, need);
    if (encode_url) {
        char *enc = scratch + url_len + 2;
        path.len = rs_url_encode_path(path.ptr, path.len, enc, 3 * url_len + 3);
        path.ptr = enc;
    }
    rs_matcher_match(r.matcher, path.ptr, path.len, &out->verdict);
    if (scratch != small) rs_free(scratch);
    out->reason = rs_site_reason(&r, &out->verdict);
    if (out->verdict.rule >= 0) rs_matcher_rule(r.matcher, out->verdict.rule, &out->rule);
    return RS_OK;
}
