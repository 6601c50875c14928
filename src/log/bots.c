/*
 * bots.c - identifying crawlers from User-Agent strings.
 *
 * Does: merge the built-in known-crawler table (crawlers_table.c, generated
 * by scripts/gen-crawlers.py) with the product tokens one site's robots.txt
 * names into one read-only index; find the crawler's token in a User-Agent
 * string; say which token's robots.txt group a crawler follows (families,
 * e.g. Googlebot-Image -> Googlebot) and whether it ignores `*` groups.
 *
 * Does not: verify that a hit really comes from the crawler it claims to be
 * (reverse DNS, IP ranges), parse log lines (logline.c), or match rules.
 *
 * Index: tokens of 4 or more bytes are bucketed by a hash of their first
 * four bytes, lower-cased, shorter ones by their first two; each bucket lists
 * its tokens longest first. Identification visits each word start of the UA
 * once, looks up the two buckets of the bytes there and compares their tokens
 * (rarely more than a few) case-insensitively; the first token that also ends
 * a word there is the longest at that position.
 * No allocation per call.
 */
#include "common/common.h"
#include "log/bots.h"

#define NBUCKETS 4096u      /* tokens of 4+ bytes, keyed by their first 4 */
#define NSHORT   256u       /* tokens of 2-3 bytes, keyed by their first 2 */
#define MAX_FAMILY_DEPTH 8

typedef struct {
    const char *tok;
    uint32_t    len;
    int32_t     parent;   /* entry index, -1 for none */
    uint32_t    flags;    /* RS_BOT_* */
} entry;

struct rs_botid {
    entry    *e;
    size_t    n;
    int32_t  *group;      /* per entry: the entry whose group applies */
    uint32_t *bucket;     /* NBUCKETS + NSHORT + 1 offsets into ids */
    uint32_t *ids;        /* entry indexes, bucket by bucket, longest first */
    char     *strings;    /* copies of candidate tokens */
};

/* Bucket of a token or UA position @s with @len bytes available (>= 2):
 * long tokens hash their first 4 bytes, short ones their first 2. */
static inline unsigned bucket_long(const unsigned char *s)
{
    const uint32_t k = (uint32_t)rs_ascii_lower(s[0]) << 24 | (uint32_t)rs_ascii_lower(s[1]) << 16 |
                       (uint32_t)rs_ascii_lower(s[2]) << 8 | (uint32_t)rs_ascii_lower(s[3]);
    return (k * 2654435761u) >> 20;   /* top 12 bits: NBUCKETS == 4096 */
}

static inline unsigned bucket_short(const unsigned char *s)
{
    const uint32_t k = (uint32_t)rs_ascii_lower(s[0]) << 8 | (uint32_t)rs_ascii_lower(s[1]);
    return NBUCKETS + ((k * 2654435761u) >> 24);   /* NSHORT == 256 */
}

static unsigned bucket_of_token(const entry *e)
{
    const unsigned char *t = (const unsigned char *)e->tok;
    return e->len >= 4 ? bucket_long(t) : bucket_short(t);
}

/* Bytes that continue a word on the right: a token followed by one of them
 * is not a whole word there. */
static inline int is_word(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* Bytes that, before a position, make it no word start (also `.` and `/`:
 * a name inside a URL or a path is not a product token). */
static inline int blocks_start(unsigned char c) { return is_word(c) || c == '.' || c == '/'; }

static int ci_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    const size_t n = RS_MIN(alen, blen);
    for (size_t i = 0; i < n; i++) {
        const int ca = rs_ascii_lower((unsigned char)a[i]), cb = rs_ascii_lower((unsigned char)b[i]);
        if (ca != cb) return ca - cb;
    }
    return alen < blen ? -1 : alen > blen;
}

int rs_bot_token_is_generic(const char *token, size_t len)
{
    size_t lo = 0, hi = rs_crawlers_generic_count;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        const char *w = rs_crawlers_generic[mid];
        const int c = ci_cmp(token, len, w, strlen(w));
        if (c == 0) return 1;
        if (c < 0) hi = mid; else lo = mid + 1;
    }
    return 0;
}

const rs_crawler_info *rs_crawler_table(size_t *n)
{
    if (n != NULL) *n = rs_crawlers_builtin_count;
    return rs_crawlers_builtin;
}

/* Index of the built-in row spelled @tok (case-insensitively), or -1; the
 * generator writes the rows sorted by their lower-cased token. */
static int32_t find_builtin(const char *tok, size_t len)
{
    size_t lo = 0, hi = rs_crawlers_builtin_count;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        const char *t = rs_crawlers_builtin[mid].token;
        const int c = ci_cmp(tok, len, t, strlen(t));
        if (c == 0) return (int32_t)mid;
        if (c < 0) hi = mid; else lo = mid + 1;
    }
    return -1;
}

int rs_crawler_kind_of(const char *tok, size_t len)
{
    const int32_t i = find_builtin(tok, len);
    return i < 0 ? -1 : rs_crawlers_builtin_kind[i];
}

/* Orders one bucket longest first, then by entry index (buckets are small). */
static void sort_bucket(uint32_t *ids, size_t n, const entry *e)
{
    for (size_t i = 1; i < n; i++) {
        const uint32_t x = ids[i];
        size_t j = i;
        while (j > 0 && (e[ids[j - 1]].len < e[x].len || (e[ids[j - 1]].len == e[x].len && ids[j - 1] > x))) {
            ids[j] = ids[j - 1];
            j--;
        }
        ids[j] = x;
    }
}

rs_status rs_botid_create(const rs_str *candidates, size_t n, rs_botid **out)
{
    RS_RETURN_IF(out == NULL || (candidates == NULL && n > 0), RS_ERR_USAGE);
    *out = NULL;
    rs_status st = RS_OK;
    rs_botid *b = rs_calloc(1, sizeof *b);
    RS_RETURN_IF(b == NULL, RS_ERR_NOMEM);

    size_t total = rs_crawlers_builtin_count + n, strbytes = 0;
    for (size_t i = 0; i < n; i++) strbytes += candidates[i].len;
    b->e = rs_calloc(total, sizeof *b->e);
    b->group = rs_calloc(total, sizeof *b->group);
    b->bucket = rs_calloc(NBUCKETS + NSHORT + 1, sizeof *b->bucket);
    b->ids = rs_calloc(total, sizeof *b->ids);
    b->strings = rs_malloc(strbytes);
    if (!b->e || !b->group || !b->bucket || !b->ids || !b->strings) { st = RS_ERR_NOMEM; goto out; }

    size_t m = 0;
    for (size_t i = 0; i < rs_crawlers_builtin_count; i++) {
        const rs_crawler_info *c = &rs_crawlers_builtin[i];
        b->e[m++] = (entry){c->token, (uint32_t)strlen(c->token), -1, RS_BOT_BUILTIN | c->flags};
    }
    for (size_t i = 0; i < rs_crawlers_builtin_count; i++) {
        const char *p = rs_crawlers_builtin[i].parent;
        if (p != NULL) b->e[i].parent = find_builtin(p, strlen(p));
    }
    /* Candidates: mark the built-in row, or add a row spelled as robots.txt does. */
    size_t sp = 0;
    for (size_t i = 0; i < n; i++) {
        const rs_str c = candidates[i];
        if (c.len < 2 || c.len > UINT32_MAX || memchr(c.ptr, '*', c.len) != NULL ||
            rs_bot_token_is_generic(c.ptr, c.len))
            continue;
        int32_t k = find_builtin(c.ptr, c.len);
        for (size_t j = rs_crawlers_builtin_count; k < 0 && j < m; j++)  /* repeated candidate */
            if (rs_ieq(b->e[j].tok, b->e[j].len, c.ptr, c.len)) k = (int32_t)j;
        if (k >= 0) {
            b->e[k].flags |= RS_BOT_NAMED;
            continue;
        }
        memcpy(b->strings + sp, c.ptr, c.len);
        b->e[m++] = (entry){b->strings + sp, (uint32_t)c.len, -1, RS_BOT_NAMED};
        sp += c.len;
    }
    b->n = m;

    /* The group each entry follows: itself if named, else the nearest named
     * ancestor, else itself (then `*` applies unless it ignores `*`). */
    for (size_t i = 0; i < m; i++) {
        int32_t g = (int32_t)i;
        if (!(b->e[i].flags & RS_BOT_NAMED)) {
            int32_t p = b->e[i].parent;
            for (int depth = 0; p >= 0 && depth < MAX_FAMILY_DEPTH; depth++, p = b->e[p].parent) {
                if (b->e[p].flags & RS_BOT_NAMED) { g = p; break; }
            }
        }
        b->group[i] = g;
    }

    /* Buckets (counting sort), each ordered longest first. */
    for (size_t i = 0; i < m; i++) {
        if (b->e[i].len < 2) continue;
        b->bucket[bucket_of_token(&b->e[i]) + 1]++;
    }
    for (unsigned k = 0; k < NBUCKETS + NSHORT; k++) b->bucket[k + 1] += b->bucket[k];
    {
        uint32_t *fill = rs_calloc(NBUCKETS + NSHORT, sizeof *fill);
        if (fill == NULL) { st = RS_ERR_NOMEM; goto out; }
        for (size_t i = 0; i < m; i++) {
            if (b->e[i].len < 2) continue;
            const unsigned k = bucket_of_token(&b->e[i]);
            b->ids[b->bucket[k] + fill[k]++] = (uint32_t)i;
        }
        rs_free(fill);
    }
    for (unsigned k = 0; k < NBUCKETS + NSHORT; k++)
        sort_bucket(b->ids + b->bucket[k], b->bucket[k + 1] - b->bucket[k], b->e);
out:
    if (st != RS_OK) {
        rs_botid_free(b);
        return st;
    }
    *out = b;
    return RS_OK;
}

void rs_botid_free(rs_botid *b)
{
    if (b == NULL) return;
    rs_free(b->e);
    rs_free(b->group);
    rs_free(b->bucket);
    rs_free(b->ids);
    rs_free(b->strings);
    rs_free(b);
}

size_t rs_botid_count(const rs_botid *b) { return b->n; }

static inline int prefix_ieq(const char *s, const char *tok, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (rs_ascii_lower((unsigned char)s[i]) != rs_ascii_lower((unsigned char)tok[i])) return 0;
    return 1;
}

/* Scans one bucket at UA position @i for tokens longer than *exact_len. */
static inline void scan_bucket(const rs_botid *b, unsigned k, const unsigned char *u, size_t ua_len, size_t i,
                               int64_t *exact, uint32_t *exact_len, int64_t *pre, uint32_t *pre_len)
{
    const size_t left = ua_len - i;
    for (uint32_t j = b->bucket[k]; j < b->bucket[k + 1]; j++) {
        const entry *e = &b->e[b->ids[j]];
        if (e->len <= *exact_len) break;              /* longest first: nothing better here */
        if (e->len > left || !prefix_ieq((const char *)u + i, e->tok, e->len)) continue;
        const size_t after = i + e->len;
        if (after == ua_len || !is_word(u[after])) {
            *exact = b->ids[j];
            *exact_len = e->len;
            return;
        }
        if ((u[after] == '-' || u[after] == '_') && e->len > *pre_len) {
            *pre = b->ids[j];
            *pre_len = e->len;
        }
    }
}

int rs_bot_identify(const rs_botid *b, const char *ua, size_t ua_len, rs_bot *bot)
{
    int64_t exact = -1, pre = -1;
    uint32_t exact_len = 0, pre_len = 0;
    const unsigned char *u = (const unsigned char *)ua;
    for (size_t i = 0; i + 1 < ua_len; i++) {
        if (i > 0 && blocks_start(u[i - 1])) continue;
        /* Long tokens first: each is longer than any short one. */
        if (i + 3 < ua_len)
            scan_bucket(b, bucket_long(u + i), u, ua_len, i, &exact, &exact_len, &pre, &pre_len);
        scan_bucket(b, bucket_short(u + i), u, ua_len, i, &exact, &exact_len, &pre, &pre_len);
    }
    const int64_t found = exact >= 0 ? exact : pre;
    if (found < 0) return 0;
    const entry *e = &b->e[found];
    bot->token = (rs_str){e->tok, e->len};
    bot->id = (uint32_t)found;
    bot->flags = e->flags | (b->e[b->group[found]].flags & RS_BOT_NAMED ? RS_BOT_GROUP_NAMED : 0u);
    return 1;
}

rs_str rs_bot_group_agent(const rs_botid *b, const rs_bot *bot)
{
    assert(bot->id < b->n);
    const entry *e = &b->e[b->group[bot->id]];
    return (rs_str){e->tok, e->len};
}
