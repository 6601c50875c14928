/*
 * matcher.c - the rules that apply to one agent, compiled for many paths.
 *
 * Algorithm (SPEC 2.3-2.4). Every pattern is split at its first '*' into a
 * literal prefix and a wildcard tail; a final '$' is an end anchor. The
 * literal prefixes go into a radix trie. Matching a path walks the trie once,
 * comparing whole edge labels with memcmp; at each node reached, the rules
 * whose prefix ends there are candidates:
 *   - plain literal  ("/a/b"):   matches, priority = depth
 *   - anchored literal ("/a$"):  matches iff the path ends here
 *   - wildcard ("/a*b*c$"):      the tail is checked from here, greedily: each
 *     '*'-separated segment at its leftmost occurrence (find_substr), the last one
 *     at the very end when anchored. Greedy leftmost is exact for '*'-only
 *     globs, and costs O(path * pattern) at worst: no backtracking.
 * A candidate is only checked when it could beat the best rule of its type so
 * far (higher priority, or equal priority and an earlier line).
 *
 * The result equals the reference's: best allow and best disallow by
 * (priority desc, line asc); disallowed iff disallow > allow and > 0.
 *
 * Not here: parsing (robots/), group selection (rules/), URLs (url/).
 */
#include "rules/ruleset.h"

/* ===== Compiled layout ===== */

typedef struct {
    uint32_t line;
    int32_t  rule;             /* index in the rule table, -1 = empty slot */
} lit_slot;

enum { SLOT_ALLOW = 0, SLOT_DISALLOW = 1, SLOT_ANCH_ALLOW = 2, SLOT_ANCH_DISALLOW = 3 };

/*
 * A trie node is 32 bytes, two to a cache line, and holds what one walk step
 * needs: the child found by byte (their first bytes inline, or a bitmap for
 * many), then the child's label checked against its inline copy. The rules
 * ending at a node live in a separate term record, so the many nodes where
 * none end cost nothing for them. The children of a node are contiguous
 * (child k is first_child + k) in the order of their first bytes.
 */
#define INLINE_LABEL 6         /* label bytes after the first kept in the node */
#define KIDS_INLINE  8         /* more children than this use a bitmap */

typedef struct {
    uint32_t first_child;
    uint32_t label_off;        /* edge label into text (bytes after the parent's depth) */
    uint32_t label_len;
    uint32_t term;             /* byte offset in terms of the rules ending here, 0 = none */
    uint64_t kids;             /* <= KIDS_INLINE children: first byte of child k in bits 8k..8k+7
                                  (unused bytes repeat child 0's); else bytes 4-6 count the
                                  children in bitmap words 0, 0-1, 0-2: the bitmap (256 bits)
                                  is the 32-byte slot at first_child - 1 */
    uint16_t n_children;
    char     inl[INLINE_LABEL]; /* label bytes 1..INLINE_LABEL, zero-padded */
} trie_node;

/* The rules ending at a node: a term record, directly followed by its n_wild
 * wildcard rules (wild_rule), so that they share its cache lines. */
typedef struct {
    lit_slot lit[4];           /* first line of each literal kind ending here */
    uint32_t n_wild;           /* n_wild_allow allow rules, then the disallow rules,
                                  each by (priority desc, line asc) */
    uint32_t n_wild_allow;
} term_rec;                    /* 40 bytes: the wild_rules after it stay 8-aligned */

typedef struct {
    uint64_t needs;            /* byte_mask() of the tail's literal bytes */
    uint32_t prio;             /* canonical pattern length */
    uint32_t line;
    int32_t  rule;
    uint32_t tail_off;         /* pattern after its first '*', anchor removed */
    uint32_t tail_len;
    uint8_t  anchored;
} wild_rule;                   /* 32 bytes; the type is the node's range it is in */

_Static_assert(sizeof(trie_node) == 32, "a node is half a cache line (and a bitmap slot)");
_Static_assert(sizeof(term_rec) % 8 == 0 && sizeof(wild_rule) % 8 == 0, "wild_rules follow term_recs");

/*
 * A 64-bit summary of which bytes occur in a string (bit c & 63 for byte c).
 * A wildcard tail can only match a path whose summary has all the tail's
 * bits, which rejects most candidates without searching.
 */
#define BIT1(c) (1ull << ((c) & 63))
#define BIT4(c) BIT1(c), BIT1((c) + 1), BIT1((c) + 2), BIT1((c) + 3)
#define BIT16(c) BIT4(c), BIT4((c) + 4), BIT4((c) + 8), BIT4((c) + 12)
#define BIT64(c) BIT16(c), BIT16((c) + 16), BIT16((c) + 32), BIT16((c) + 48)
static const uint64_t BYTE_BIT[256] = { BIT64(0), BIT64(64), BIT64(128), BIT64(192) }; /* 1 << (c & 63) */

static uint64_t byte_mask(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    uint64_t m0 = 0, m1 = 0;   /* two accumulators: half the dependency chain */
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        m0 |= BYTE_BIT[p[i]] | BYTE_BIT[p[i + 1]];
        m1 |= BYTE_BIT[p[i + 2]] | BYTE_BIT[p[i + 3]];
    }
    for (; i < n; i++) m0 |= BYTE_BIT[p[i]];
    return m0 | m1;
}

/* Set bits of @x (no popcnt instruction is assumed). */
static inline unsigned popcount64(uint64_t x)
{
    x -= (x >> 1) & 0x5555555555555555ull;
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (unsigned)((x * 0x0101010101010101ull) >> 56);
}

/* byte_mask() of a wildcard tail's literal bytes ('*' separators excluded). */
static uint64_t tail_mask(const char *s, size_t n)
{
    uint64_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] != '*') m |= 1ull << ((unsigned char)s[i] & 63);
    return m;
}

typedef struct {
    rs_rule_type type;
    uint32_t line;
    uint32_t pat_off, pat_len;
} rule_entry;

struct rs_matcher {
    int           constant;    /* -1: compiled rules; 0: allow all; 1: disallow all */
    rs_semantics  semantics;
    uint32_t      n_nodes;
    uint32_t      n_rules;
    /* The tables, as byte offsets from the header in the same allocation (48
     * bytes of header, where pointers took 96: the nodes start a line earlier). */
    uint32_t      nodes_at;    /* trie_node[n_nodes] */
    uint32_t      terms_at;    /* 8 bytes of padding (offset 0 = no term), then each term_rec
                                  with its wild_rules */
    uint32_t      text_at;     /* the rules' patterns, then the derived index.htm ones (edge
                                  labels and wildcard tails point into it) */
    uint32_t      rules_at;    /* rule_entry[n_rules]: every applicable rule, in file order */
    size_t        bytes;       /* the whole allocation (rs_matcher_memory) */
};

#define M_NODES(m)   ((const trie_node *)(const void *)((const char *)(m) + (m)->nodes_at))
#define M_TERM(m, n) ((const term_rec *)(const void *)((const char *)(m) + (m)->terms_at + (n)->term))
#define M_TEXT(m)    ((const char *)(m) + (m)->text_at)
#define M_RULES(m)   ((const rule_entry *)(const void *)((const char *)(m) + (m)->rules_at))

/* ===== Pattern helpers ===== */

/*
 * Leftmost occurrence of needle in haystack, or NULL: the find_substr kernel
 * (first- and last-byte vector compares, then verification; src/simd).
 * O(hn * nn) at worst.
 */
static const char *find_segment(const char *h, size_t hn, const char *n, size_t nn)
{
    const size_t i = rs_simd_find_substr(h, hn, n, nn);
    return nn == 0 || i < hn ? h + i : NULL;
}

/* Tail after a '*': segments at leftmost occurrences, last one anchored if asked. */
static int match_after_star(const char *path, size_t plen, size_t pos,
                            const char *tail, size_t tlen, int anchored)
{
    for (;;) {
        const char *star = memchr(tail, '*', tlen);
        const size_t seg = star ? (size_t)(star - tail) : tlen;
        if (star == NULL) {
            if (anchored)
                return plen - pos >= seg && memcmp(path + plen - seg, tail, seg) == 0;
            return seg == 0 || find_segment(path + pos, plen - pos, tail, seg) != NULL;
        }
        if (seg) {
            const char *f = find_segment(path + pos, plen - pos, tail, seg);
            if (f == NULL) return 0;
            pos = (size_t)(f - path) + seg;
        }
        tail = star + 1;
        tlen -= seg + 1;
    }
}

/* Whole-pattern match (SPEC 2.3.15), used by first-match semantics. */
static int pattern_matches(const char *path, size_t plen, const char *pat, size_t patlen)
{
    int anchored = patlen > 0 && pat[patlen - 1] == '$';
    if (anchored) patlen--;
    const char *star = patlen ? memchr(pat, '*', patlen) : NULL;
    const size_t lit = star ? (size_t)(star - pat) : patlen;
    if (plen < lit || memcmp(path, pat, lit) != 0) return 0;
    if (star == NULL) return !anchored || plen == lit;
    return match_after_star(path, plen, lit, star + 1, patlen - lit - 1, anchored);
}

/* ===== Compilation ===== */

typedef struct {
    uint32_t off, len;         /* the pattern as matched (derived ones included) */
    uint32_t prefix_len;       /* literal prefix length */
    uint32_t line;
    int32_t  rule;
    uint8_t  type;
    uint8_t  anchored;
    uint8_t  wildcard;
    uint64_t key;              /* first 8 prefix bytes, big-endian, zero-padded (sort_cands) */
} cand;

typedef struct {
    const char *text;
    cand *c;
    uint32_t n;
    rs_buf nodes, terms;
    rs_status status;
} trie_builder;


/* Orders candidates by prefix bytes, then longer (higher priority) first, then line. */
static int cand_cmp(const cand *x, const cand *y, const char *sort_text)
{
    const size_t n = RS_MIN(x->prefix_len, y->prefix_len);
    const int c = n ? memcmp(sort_text + x->off, sort_text + y->off, n) : 0; /* text is NULL when all are empty */
    if (c) return c;
    if (x->prefix_len != y->prefix_len) return x->prefix_len < y->prefix_len ? -1 : 1;
    if (x->len != y->len) return x->len > y->len ? -1 : 1;   /* higher priority first */
    return x->line < y->line ? -1 : (x->line > y->line);
}

/* cand_cmp(x, y) < 0, deciding most pairs by their keys: keys that differ
 * order as the prefixes do (a zero pad sorts a shorter prefix first, as
 * memcmp and the length test do); equal keys fall back to the bytes. */
static inline int cand_less(const cand *x, const cand *y, const char *text)
{
    if (x->key != y->key) return x->key < y->key;
    return cand_cmp(x, y, text) < 0;
}

static void insertion_sort(cand *c, size_t n, const char *text)
{
    for (size_t i = 1; i < n; i++) {
        const cand v = c[i];
        size_t j = i;
        for (; j > 0 && cand_less(&v, &c[j - 1], text); j--) c[j] = c[j - 1];
        c[j] = v;
    }
}

/* Merge sort of c[0, n) with tmp[0, n) as room: the compare is inline (qsort_r's
 * indirect call and memcmp per pair were a third of compiling a large file). */
static void merge_sort(cand *c, cand *tmp, size_t n, const char *text)
{
    if (n <= 16) {
        insertion_sort(c, n, text);
        return;
    }
    const size_t h = n / 2;
    merge_sort(c, tmp, h, text);
    merge_sort(c + h, tmp, n - h, text);
    if (!cand_less(&c[h], &c[h - 1], text)) return;    /* already in order */
    memcpy(tmp, c, h * sizeof *c);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) c[k++] = cand_less(&c[j], &tmp[i], text) ? c[j++] : tmp[i++];
    while (i < h) c[k++] = tmp[i++];
}

static rs_status sort_cands(cand *c, size_t n, const char *text)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t k = 0;
        const size_t m = RS_MIN(c[i].prefix_len, 8u);
        for (size_t b = 0; b < 8; b++)
            k = k << 8 | (b < m ? (unsigned char)text[c[i].off + b] : 0u);
        c[i].key = k;
    }
    if (n <= 16) {
        insertion_sort(c, n, text);
        return RS_OK;
    }
    cand *tmp = rs_malloc((n / 2 + 1) * sizeof *tmp);
    RS_RETURN_IF(tmp == NULL, RS_ERR_NOMEM);
    merge_sort(c, tmp, n, text);
    rs_free(tmp);
    return RS_OK;
}

static uint32_t new_node(trie_builder *tb, uint32_t label_off, uint32_t label_len)
{
    trie_node n;
    memset(&n, 0, sizeof n);
    n.label_off = label_off;
    n.label_len = label_len;
    for (uint32_t j = 0; j < INLINE_LABEL && j + 1 < label_len; j++) n.inl[j] = tb->text[label_off + 1 + j];
    if (tb->status == RS_OK) tb->status = rs_buf_append(&tb->nodes, &n, sizeof n);
    return (uint32_t)(tb->nodes.len / sizeof n) - 1;
}

static trie_node *node_at(trie_builder *tb, uint32_t i)
{
    return (trie_node *)(void *)tb->nodes.ptr + i;
}

/*
 * Builds the node for candidates [lo, hi), all sharing their first @depth
 * prefix bytes, whose prefixes are sorted. Candidates with prefix_len ==
 * depth attach here (a term record); the rest are grouped by their next byte
 * into children, created together (contiguous) before any is built.
 */
static void build(trie_builder *tb, uint32_t node, uint32_t lo, uint32_t hi, uint32_t depth)
{
    if (tb->status != RS_OK) return; /* @node may not exist */
    uint32_t i = lo;
    while (i < hi && tb->c[i].prefix_len == depth) i++;
    if (i > lo) {
        term_rec t;
        memset(&t, 0, sizeof t);
        for (int k = 0; k < 4; k++) t.lit[k].rule = -1;
        const size_t at = tb->terms.len;   /* t goes here, its wildcard rules after it */
        tb->status = rs_buf_append(&tb->terms, &t, sizeof t);
        if (tb->status != RS_OK) return;
        /* Wildcard rules: allow ones, then disallow ones, each in candidate order
         * (priority desc, line asc; cand_cmp), which lets matching stop early. */
        for (int pass = 0; pass < 2; pass++) {
            const uint8_t type = pass == 0 ? RS_RULE_ALLOW : RS_RULE_DISALLOW;
            for (uint32_t j = lo; j < i; j++) {
                const cand *c = &tb->c[j];
                if (!c->wildcard || c->type != type) continue;
                wild_rule w;
                memset(&w, 0, sizeof w);
                w.prio = c->len;
                w.line = c->line;
                w.rule = c->rule;
                w.anchored = c->anchored;
                w.tail_off = c->off + c->prefix_len + 1;
                w.tail_len = c->len - c->prefix_len - 1 - c->anchored;
                w.needs = tail_mask(tb->text + w.tail_off, w.tail_len);
                tb->status = rs_buf_append(&tb->terms, &w, sizeof w);
                if (tb->status != RS_OK) return;
                t.n_wild++;
                t.n_wild_allow += pass == 0;
            }
        }
        for (uint32_t j = lo; j < i; j++) {
            const cand *c = &tb->c[j];
            if (!c->wildcard) {
                const int slot = (c->type == RS_RULE_ALLOW ? SLOT_ALLOW : SLOT_DISALLOW)
                                 + (c->anchored ? 2 : 0);
                lit_slot *s = &t.lit[slot];
                if (s->rule < 0 || c->line < s->line) {
                    s->line = c->line;
                    s->rule = c->rule;
                }
            }
        }
        memcpy(tb->terms.ptr + at, &t, sizeof t);
        node_at(tb, node)->term = (uint32_t)at;
    }
    if (i == hi) return;

    /* Children: runs of equal next byte, created contiguously in byte order
     * (there is at least one: i < hi). Many children: their bitmap takes the
     * node slot before the first, to share its cache line. */
    uint32_t n_children = 0;
    for (uint32_t j = i; j < hi; n_children++) {
        const char b = tb->text[tb->c[j].off + depth];
        while (j < hi && tb->text[tb->c[j].off + depth] == b) j++;
    }
    uint32_t bitmap_slot = 0;
    if (n_children > KIDS_INLINE) {
        bitmap_slot = new_node(tb, 0, 0);
        if (tb->status != RS_OK) return;
    }
    const uint32_t first_child = (uint32_t)(tb->nodes.len / sizeof(trie_node));
    uint64_t bits[4] = { 0, 0, 0, 0 }, kids = 0;
    n_children = 0;
    for (uint32_t j = i; j < hi; n_children++) {
        const uint32_t g_lo = j;
        const unsigned char b = (unsigned char)tb->text[tb->c[j].off + depth];
        while (j < hi && (unsigned char)tb->text[tb->c[j].off + depth] == b) j++;
        /* Longest common prefix of the run = that of its first and last (sorted). */
        const cand *first = &tb->c[g_lo], *last = &tb->c[j - 1];
        uint32_t lcp = depth + 1;
        const uint32_t lim = RS_MIN(first->prefix_len, last->prefix_len);
        while (lcp < lim && tb->text[first->off + lcp] == tb->text[last->off + lcp]) lcp++;
        new_node(tb, first->off + depth, lcp - depth);
        if (tb->status != RS_OK) return;
        bits[b >> 6] |= 1ull << (b & 63);
        if (n_children < KIDS_INLINE) kids |= (uint64_t)b << (8 * n_children);
    }
    /* unused kid bytes repeat the first one: a lookup needs no mask (see find_child) */
    for (uint32_t k = n_children; k < KIDS_INLINE; k++) kids |= (kids & 0xff) << (8 * k);
    if (n_children > KIDS_INLINE) {
        memcpy(node_at(tb, bitmap_slot), bits, sizeof bits);
        const uint64_t c1 = (uint64_t)popcount64(bits[0]);
        const uint64_t c2 = c1 + (uint64_t)popcount64(bits[1]);
        const uint64_t c3 = c2 + (uint64_t)popcount64(bits[2]);
        /* counts before words 1, 2, 3: at most 192, one byte each */
        kids = c1 << 32 | c2 << 40 | c3 << 48;
    }
    trie_node *n = node_at(tb, node);
    n->first_child = first_child;
    n->n_children = (uint16_t)n_children;
    n->kids = kids;

    for (uint32_t k = 0; i < hi; k++) {
        const uint32_t g_lo = i;
        const char b = tb->text[tb->c[i].off + depth];
        while (i < hi && tb->text[tb->c[i].off + depth] == b) i++;
        build(tb, first_child + k, g_lo, i, depth + node_at(tb, first_child + k)->label_len);
    }
}

static rs_status add_cand(rs_buf *cands, uint32_t off, const char *pat, size_t len,
                          uint32_t line, int32_t rule, rs_rule_type type)
{
    cand c;
    memset(&c, 0, sizeof c);
    c.off = off;               /* @pat, in the matcher's text */
    c.len = (uint32_t)len;
    c.line = line;
    c.rule = rule;
    c.type = (uint8_t)type;
    c.anchored = len > 0 && pat[len - 1] == '$';
    const char *star = len ? memchr(pat, '*', len) : NULL; /* pat may be NULL when empty */
    c.wildcard = star != NULL;
    c.prefix_len = star ? (uint32_t)(star - pat) : (uint32_t)(len - c.anchored);
    return rs_buf_append(cands, &c, sizeof c);
}

/* A pattern that starts with neither '/' nor '*' cannot match a path. */
static int can_match(const char *pat, size_t len)
{
    return len == 0 || pat[0] == '/' || pat[0] == '*';
}

/* The reference retries a non-matching "/dir/index.htm*" allow as "/dir/$" (SPEC 2.4.20). */
static size_t index_htm_cut(const char *pat, size_t len)
{
    const char *slash = NULL;
    for (size_t i = len; i > 0; i--)
        if (pat[i - 1] == '/') { slash = pat + i - 1; break; }
    if (slash == NULL) return 0;
    const size_t rest = len - (size_t)(slash - pat);
    if (rest < 10 || memcmp(slash, "/index.htm", 10) != 0) return 0;
    return (size_t)(slash - pat) + 1;
}

void rs_matcher_free(rs_matcher *m)
{
    rs_free(m);   /* one allocation: the header and every table (see pack()) */
}

size_t rs_matcher_memory(const rs_matcher *m)
{
    return m ? m->bytes : 0;
}

void rs_matcher_prefetch(const rs_matcher *m, size_t max_bytes)
{
    /* The header is hot (the caller fetched it); the tables follow it. */
    const size_t n = RS_MIN(m->bytes, max_bytes);
    for (size_t i = 128; i < n; i += 64) __builtin_prefetch((const char *)m + i);
}

/* Appends @n bytes of @src at the 8-aligned offset *off of @dst; @return that offset. */
static uint32_t put(char *dst, size_t *off, const void *src, size_t n)
{
    const size_t at = *off;
    if (n) memcpy(dst + at, src, n);
    *off += (n + 7) & ~(size_t)7;
    return (uint32_t)at;
}

#define ALIGN8(n) (((n) + 7) & ~(size_t)7)

/*
 * Packs the builder's tables into ONE allocation behind the header, exactly
 * sized: a matcher is a few contiguous cache lines (no slack from buffer
 * growth, one TLB entry for small ones) and frees with one call. What a walk
 * reads comes first (the nodes 32-aligned, so each sits in one cache line),
 * the rule table and the patterns as written (output, first-match) last.
 */
static rs_status pack(const rs_matcher *h, const rs_buf *nodes, const rs_buf *terms, const rs_buf *rules, const rs_buf *text, rs_matcher **out)
{
    const size_t head = ALIGN8(sizeof(rs_matcher));
    /* up to 24 bytes of padding (malloc aligns to 8 at least) put the nodes on 32 */
    const size_t total = head + 24 + ALIGN8(nodes->len) + ALIGN8(terms->len)
        + ALIGN8(text->len + 1) + ALIGN8(rules->len);
    char *b = rs_malloc(total);
    RS_RETURN_IF(b == NULL, RS_ERR_NOMEM);
    rs_matcher *m = (rs_matcher *)(void *)b;
    *m = *h;
    size_t off = head;
    off += (32 - ((uintptr_t)(b + off) & 31)) & 31;
    m->nodes_at = put(b, &off, nodes->ptr, nodes->len);
    m->terms_at = put(b, &off, terms->ptr, terms->len);
    m->text_at = (uint32_t)off;
    if (text->len) memcpy(b + off, text->ptr, text->len);
    b[off + text->len] = '\0';
    off += ALIGN8(text->len + 1);
    m->rules_at = put(b, &off, rules->ptr, rules->len);
    m->bytes = total;
    *out = m;
    return RS_OK;
}

rs_status rs_matcher_create_constant(int disallow_all, rs_matcher **out)
{
    RS_RETURN_IF(out == NULL, RS_ERR_USAGE);
    rs_matcher *m = rs_calloc(1, sizeof *m);
    RS_RETURN_IF(m == NULL, RS_ERR_NOMEM);
    m->constant = disallow_all ? 1 : 0;
    m->bytes = sizeof *m;
    *out = m;
    return RS_OK;
}

rs_status rs_matcher_create(const rs_ruleset *rs, const char *agent, size_t agent_len,
                            rs_semantics semantics, rs_matcher **out)
{
    RS_RETURN_IF(rs == NULL || out == NULL || (agent == NULL && agent_len), RS_ERR_USAGE);
    RS_RETURN_IF(semantics != RS_SEMANTICS_GOOGLE && semantics != RS_SEMANTICS_FIRST_MATCH,
                 RS_ERR_USAGE);
    *out = NULL;
    rs_status st = RS_OK;
    rs_buf rules = { 0 }, text = { 0 }, cands = { 0 };
    trie_builder tb;
    memset(&tb, 0, sizeof tb);
    uint8_t *selected = NULL;
    rs_matcher *m = rs_calloc(1, sizeof *m);
    if (m == NULL) return RS_ERR_NOMEM;
    m->constant = -1;
    m->semantics = semantics;

    /* Never NULL texts: empty patterns are offsets into them (NULL + 0 is UB). */
    if ((st = rs_buf_reserve(&text, 1)) != RS_OK) goto out;

    if (rs->n_groups) {
        selected = rs_malloc(rs->n_groups);
        if (selected == NULL) { st = RS_ERR_NOMEM; goto out; }
        rs_ruleset_select(rs, agent, agent_len, selected);
    }

    /* The applicable rules in file order: the rule table for output. */
    for (uint32_t i = 0; i < rs->n_rules; i++) {
        const rs_rule_record *r = &rs->rules[i];
        if (!selected[r->group]) continue;
        const rs_str pat = rs_ruleset_str(rs, r->pattern);
        rule_entry e = { r->type, r->line, (uint32_t)text.len, (uint32_t)pat.len };
        if ((st = rs_buf_append(&text, pat.ptr, pat.len)) != RS_OK) goto out;
        if ((st = rs_buf_append(&rules, &e, sizeof e)) != RS_OK) goto out;
    }
    m->n_rules = (uint32_t)(rules.len / sizeof(rule_entry));

    if (semantics == RS_SEMANTICS_GOOGLE) {
        /* Candidates: every rule that can match, plus the index.htm retries. */
        const rule_entry *re = (const rule_entry *)(void *)rules.ptr;
        for (uint32_t i = 0; i < m->n_rules && st == RS_OK; i++) {
            const char *pat = text.ptr + re[i].pat_off;
            const size_t len = re[i].pat_len;
            if (can_match(pat, len))
                st = add_cand(&cands, re[i].pat_off, pat, len, re[i].line, (int32_t)i, re[i].type);
            const size_t cut = re[i].type == RS_RULE_ALLOW ? index_htm_cut(pat, len) : 0;
            if (st == RS_OK && cut && can_match(pat, cut)) {
                /* Tried by the reference only when the original does not match;
                 * the original is longer, so adding it always gives the same best.
                 * The cut pattern and its '$' go after the rules' patterns. */
                const uint32_t at = (uint32_t)text.len;
                st = rs_buf_reserve(&text, cut + 1);
                if (st == RS_OK) {
                    memcpy(text.ptr + at, text.ptr + re[i].pat_off, cut); /* text may have moved */
                    text.ptr[at + cut] = '$';
                    text.len += cut + 1;
                    st = add_cand(&cands, at, text.ptr + at, cut, re[i].line, (int32_t)i, RS_RULE_ALLOW);
                }
                if (st == RS_OK) {
                    cand *c = (cand *)(void *)(cands.ptr + cands.len) - 1;
                    c->len++;
                    c->anchored = 1;
                }
            }
        }
        tb.text = text.ptr;
        tb.c = (cand *)(void *)cands.ptr;
        tb.n = (uint32_t)(cands.len / sizeof(cand));
        if (st == RS_OK && tb.n) st = sort_cands(tb.c, tb.n, tb.text);
        /* A radix trie of n strings has at most 2n + 1 nodes, a ninth of them with
         * bitmaps (9 children or more): one allocation. */
        const size_t max_nodes = 2 * (size_t)tb.n + 1 + (2 * (size_t)tb.n + 1) / 9; /* + bitmap slots */
        if (st == RS_OK) st = rs_buf_reserve(&tb.nodes, max_nodes * sizeof(trie_node));
        if (st == RS_OK) st = rs_buf_append(&tb.terms, "\0\0\0\0\0\0\0", 8); /* term 0 = none */
        if (st == RS_OK) {
            const uint32_t root = new_node(&tb, 0, 0);
            build(&tb, root, 0, tb.n, 0);
            st = tb.status;
        }
    }

out:
    rs_free(selected);
    rs_free(cands.ptr);
    if (st == RS_OK) {
        m->n_nodes = (uint32_t)(tb.nodes.len / sizeof(trie_node));
        st = pack(m, &tb.nodes, &tb.terms, &rules, &text, out);
    }
    /* the builder's buffers and header: pack() copied what it keeps into one allocation */
    rs_buf_free(&rules);
    rs_buf_free(&text);
    rs_buf_free(&tb.nodes);
    rs_buf_free(&tb.terms);
    rs_free(m);
    return st;
}

/* ===== Matching ===== */

typedef struct {
    int32_t  prio;             /* -1 = no match */
    uint32_t line;
    int32_t  rule;
} best_match;

static inline int beats(int32_t prio, uint32_t line, const best_match *b)
{
    return prio > b->prio || (prio == b->prio && line < b->line);
}

static inline void consider(best_match *b, int32_t prio, const lit_slot *s)
{
    if (s->rule >= 0 && beats(prio, s->line, b)) {
        b->prio = prio;
        b->line = s->line;
        b->rule = s->rule;
    }
}

/* Index of the child of @node whose label starts with @c, or -1; @node has children. */
static inline int64_t find_child(const rs_matcher *m, const trie_node *node, unsigned char c)
{
    const uint32_t n = node->n_children;
    if (n <= KIDS_INLINE) {
        /* the zero bytes of kids ^ c...c: the lowest flagged one is exact (a
         * borrow only flags bytes above a zero byte); the unused bytes repeat
         * child 0's, so they match only when child 0 does, and lower */
        const uint64_t ones = 0x0101010101010101ull;
        const uint64_t x = node->kids ^ (ones * c);
        const uint64_t z = (x - ones) & ~x & (ones << 7);
        if (z == 0) return -1;
        return (int64_t)(node->first_child + (uint32_t)(__builtin_ctzll(z) >> 3));
    }
    const uint64_t *bits = (const uint64_t *)(const void *)(M_NODES(m) + node->first_child - 1);
    const unsigned w = c >> 6;
    const uint64_t word = bits[w], below = (1ull << (c & 63)) - 1;
    if (!(word >> (c & 63) & 1)) return -1;
    const uint32_t before = w ? (uint32_t)(node->kids >> (24 + 8 * w)) & 0xff : 0;
    return (int64_t)(node->first_child + before + popcount64(word & below));
}

/* a[0, n) == b[0, n): overlapping word compares below 17 bytes (labels are short), no loop. */
static inline int label_matches(const char *a, const char *b, size_t n)
{
    if (n > 16) return memcmp(a, b, n) == 0;
    if (n >= 8) {
        uint64_t a0, a1, b0, b1;
        memcpy(&a0, a, 8);
        memcpy(&b0, b, 8);
        memcpy(&a1, a + n - 8, 8);
        memcpy(&b1, b + n - 8, 8);
        return ((a0 ^ b0) | (a1 ^ b1)) == 0;
    }
    if (n >= 4) {
        uint32_t a0, a1, b0, b1;
        memcpy(&a0, a, 4);
        memcpy(&b0, b, 4);
        memcpy(&a1, a + n - 4, 4);
        memcpy(&b1, b + n - 4, 4);
        return ((a0 ^ b0) | (a1 ^ b1)) == 0;
    }
    if (n >= 2) {
        uint16_t a0, a1, b0, b1;
        memcpy(&a0, a, 2);
        memcpy(&b0, b, 2);
        memcpy(&a1, a + n - 2, 2);
        memcpy(&b1, b + n - 2, 2);
        return ((a0 ^ b0) | (a1 ^ b1)) == 0;
    }
    return n == 0 || a[0] == b[0];
}

/* byte_mask() of the path from where it was first needed, computed then:
 * tails checked deeper only search a part of that. */
typedef struct {
    uint64_t mask;
    int known;
} path_bytes;

/*
 * The wildcard rules of one type at one node, against the best rule of that
 * type so far. They come by (priority desc, line asc), so once one cannot
 * beat the best, none after it can; and once one matches, it is the best of
 * the rest: both end the scan.
 */
static inline __attribute__((always_inline)) void wild_scan(const wild_rule *w, uint32_t n, best_match *b, const char *path, size_t plen,
                             size_t depth, const char *text, path_bytes *pb)
{
    for (const wild_rule *const end = w + n; w < end; w++) {
        if (!beats((int32_t)w->prio, w->line, b)) return;
        if (!pb->known) {
            pb->mask = byte_mask(path + depth, plen - depth);
            pb->known = 1;
        }
        if (w->needs & ~pb->mask) continue; /* a byte it needs is not in the path */
        if (match_after_star(path, plen, depth, text + w->tail_off, w->tail_len, w->anchored)) {
            b->prio = (int32_t)w->prio;
            b->line = w->line;
            b->rule = w->rule;
            return;
        }
    }
}

static void match_google(const rs_matcher *m, const char *path, size_t plen, rs_verdict *out)
{
    best_match best[2] = { { -1, 0, -1 }, { -1, 0, -1 } }; /* [0] allow, [1] disallow */
    const trie_node *node = M_NODES(m);
    size_t depth = 0;
    path_bytes pb = { 0, 0 };
    for (;;) {
        if (node->term) {
            const term_rec *t = M_TERM(m, node);
            consider(&best[0], (int32_t)depth, &t->lit[SLOT_ALLOW]);
            consider(&best[1], (int32_t)depth, &t->lit[SLOT_DISALLOW]);
            if (depth == plen) {
                consider(&best[0], (int32_t)depth + 1, &t->lit[SLOT_ANCH_ALLOW]);
                consider(&best[1], (int32_t)depth + 1, &t->lit[SLOT_ANCH_DISALLOW]);
            }
            if (t->n_wild) {
                const wild_rule *w = (const wild_rule *)(const void *)(t + 1);
                wild_scan(w, t->n_wild_allow, &best[0], path, plen, depth, M_TEXT(m), &pb);
                wild_scan(w + t->n_wild_allow, t->n_wild - t->n_wild_allow, &best[1], path, plen,
                          depth, M_TEXT(m), &pb);
            }
        }
        if (depth == plen || node->n_children == 0) break;
        const int64_t c = find_child(m, node, (unsigned char)path[depth]);
        if (c < 0) break;
        const trie_node *child = M_NODES(m) + c;
        /* An edge label is never empty and its first byte is the one find_child
         * matched; the next INLINE_LABEL bytes are in the node. */
        const size_t rest = child->label_len - 1;
        if (plen - depth <= rest) break;
        if (!(rest <= INLINE_LABEL ? label_matches(path + depth + 1, child->inl, rest)
                                   : label_matches(path + depth + 1, M_TEXT(m) + child->label_off + 1, rest)))
            break;
        depth += child->label_len;
        node = child;
    }
    const best_match *a = &best[0], *d = &best[1];
    out->disallowed = d->prio > a->prio && d->prio > 0;
    const best_match *r = d->prio > a->prio ? d : a;
    out->line = r->line;
    out->rule = r->rule;
}

/* The older tradition (SPEC 2.5): the first rule in file order that matches decides. */
static void match_first(const rs_matcher *m, const char *path, size_t plen, rs_verdict *out)
{
    out->disallowed = 0;
    out->line = 0;
    out->rule = -1;
    for (uint32_t i = 0; i < m->n_rules; i++) {
        const rule_entry *r = &M_RULES(m)[i];
        const char *pat = M_TEXT(m) + r->pat_off;
        size_t len = r->pat_len;
        if (len == 0) continue; /* an empty rule matches nothing */
        int hit;
        if (pat[0] == '/' || pat[0] == '*') {
            hit = pattern_matches(path, plen, pat, len);
        } else {
            /* A relative pattern matches anywhere in the path. */
            const int anchored = pat[len - 1] == '$';
            hit = match_after_star(path, plen, 0, pat, len - (size_t)anchored, anchored);
        }
        if (hit) {
            out->disallowed = r->type == RS_RULE_DISALLOW;
            out->line = r->line;
            out->rule = (int32_t)i;
            return;
        }
    }
}

void rs_matcher_match(const rs_matcher *m, const char *path, size_t path_len, rs_verdict *out)
{
    if (m->constant >= 0) {
        out->disallowed = m->constant;
        out->line = 0;
        out->rule = -1;
    } else if (m->semantics == RS_SEMANTICS_GOOGLE) {
        match_google(m, path, path_len, out);
    } else {
        match_first(m, path, path_len, out);
    }
}

size_t rs_matcher_rule_count(const rs_matcher *m)
{
    return m->n_rules;
}

rs_status rs_matcher_rule(const rs_matcher *m, int32_t rule, rs_rule_info *out)
{
    RS_RETURN_IF(rule < 0 || (uint32_t)rule >= m->n_rules, RS_ERR_USAGE);
    const rule_entry *r = &M_RULES(m)[rule];
    out->type = r->type;
    out->line = r->line;
    out->pattern.ptr = M_TEXT(m) + r->pat_off;
    out->pattern.len = r->pat_len;
    return RS_OK;
}
