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
#include <stdatomic.h>

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
    uint8_t  one_seg;          /* the tail has no '*' */
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
#define BB(i) BYTE_BIT[p[i]]
    if (n >= 8) {
        /* 8 bytes a step, the last step overlapping the one before (or-ing twice is harmless) */
        uint64_t m = 0;
        for (size_t i = 0;; i += 8) {
            if (i + 8 > n) i = n - 8;
            m |= BB(i) | BB(i + 1) | BB(i + 2) | BB(i + 3) | BB(i + 4) | BB(i + 5) | BB(i + 6) | BB(i + 7);
            if (i + 8 == n) return m;
        }
    }
    if (n >= 4) return BB(0) | BB(1) | BB(2) | BB(3) | BB(n - 4) | BB(n - 3) | BB(n - 2) | BB(n - 1);
    if (n >= 2) return BB(0) | BB(1) | BB(n - 2) | BB(n - 1);
    return n ? BB(0) : 0;
#undef BB
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

/* How rs_matcher_match decides (rs_matcher.kind). */
enum {
    KIND_GOOGLE,               /* the trie walk (SPEC 2.4) */
    KIND_GOOGLE_SLASH,         /* the same, where the root's one child has the label "/": the
                                  walk starts there */
    KIND_FIRST_MATCH,          /* the first matching rule in file order (SPEC 2.5) */
    KIND_GOOGLE_LIST,          /* Google's, every candidate tried in turn: built without a
                                  sort or a trie, for sites that decide few URLs (the trie
                                  comes later from it: rs_matcher_compiled) */
    KIND_ALLOW_ALL,
    KIND_DISALLOW_ALL
};

struct rs_matcher {
    uint8_t       kind;        /* KIND_*: one test picks the common walk */
    uint8_t       pad_[3];
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

/* A rule-list matcher's (KIND_GOOGLE_LIST) own fields, at terms_at: its trie once
 * built (rs_matcher_compiled; published once, then never changed), what sizes it.
 * Its nodes are cand[n_nodes]: rule k's at k (prefix_len NO_PREFIX when it cannot
 * match a path), then the derived index.htm ones, each after its rule's in rule order. */
typedef struct {
    _Atomic(rs_matcher *) trie;
    uint32_t n_wild;           /* wildcard candidates */
    uint32_t text_len;
} list_head;
#define M_LIST(m)    ((list_head *)(void *)((char *)(uintptr_t)(m) + (m)->terms_at))

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

/*
 * Compiling takes one scratch block and the matcher's one allocation; the
 * scratch is on the stack for most files. In order:
 *   1. the applicable rules are counted (their pattern bytes too), which
 *      sizes the scratch exactly;
 *   2. one pass copies the patterns into the text, fills the rule table and
 *      makes the candidates (every rule that can match, plus the index.htm
 *      retries, whose patterns go after the rules' ones);
 *   3. the candidates are sorted (sort_cands) on 8-byte keys of their literal
 *      prefixes, chunk by chunk;
 *   4. one pass over the sorted candidates builds the radix trie as a linked
 *      tree (build_tree): each candidate's common prefix with the previous
 *      one says where it leaves the path of the previous one, so no node
 *      searches its children;
 *   5. the tree's size gives the matcher's size exactly: it is allocated
 *      once, and one walk of the tree (lay_out) writes the nodes and term
 *      records in place, in the order the layout wants (each node's children
 *      contiguous, depth first).
 */

typedef struct {
    uint32_t off, len;         /* the pattern as matched (derived ones included), in the text */
    uint32_t prefix_len;       /* literal prefix length */
    uint32_t line;
    int32_t  rule;
    uint8_t  type;
    uint8_t  anchored;
    uint8_t  wildcard;
} cand;

/*
 * A candidate in the sort: 7 bytes of its prefix from the current chunk
 * [from, from + 7), big-endian and zero-padded, then in the low byte
 * min(prefix length + 1 - from, 9): 9 when the prefix goes on after the
 * chunk, else a prefix that ends sooner, with the same bytes, is smaller (it
 * is the other's prefix). Keys that differ order as the prefixes do: one
 * compare a pair. The first chunk starts at byte 1: every non-empty prefix
 * starts with '/' (can_match), so byte 0 tells nothing the length does not.
 */
typedef struct {
    uint64_t key;
    uint32_t idx;              /* the candidate */
    uint32_t pad;
} sort_item;

#define CHUNK 7u
#define KEY_MORE 9u            /* key & 0xff: the prefix goes on after the chunk */

/* The key of @c's prefix for the chunk at @from (the prefix has at least
 * from - 1 bytes); the text has 8 readable bytes after its end. */
static inline uint64_t sort_key(const cand *c, const char *text, uint32_t from)
{
    const uint32_t rest = c->prefix_len + 1 - from;
    if (rest <= 1) return rest;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t k = __builtin_bswap64(rs_load64(text + c->off + from));
#else
    uint64_t k = rs_load64(text + c->off + from);
#endif
    k &= rest > CHUNK ? ~0ull << 8 : ~(~0ull >> (8 * (rest - 1)));
    return k | (rest > CHUNK + 1 ? KEY_MORE : rest);
}

static void insertion_sort(sort_item *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        const sort_item v = a[i];
        size_t j = i;
        for (; j > 0 && v.key < a[j - 1].key; j--) a[j] = a[j - 1];
        a[j] = v;
    }
}

/* Merge sort of a[0, n) by key, with tmp[0, n / 2 + 1) as room. */
static void merge_sort(sort_item *a, sort_item *tmp, size_t n)
{
    if (n <= 16) {
        insertion_sort(a, n);
        return;
    }
    const size_t h = n / 2;
    merge_sort(a, tmp, h);
    merge_sort(a + h, tmp, n - h);
    if (a[h - 1].key <= a[h].key) return;    /* already in order */
    /* Rules are often listed nearly sorted: the left items up to a[h] and the
     * right ones from a[h - 1] on are in place already (binary searches). */
    size_t lo = 0, hi = h - 1;               /* first left key > a[h].key */
    while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (a[mid].key > a[h].key) hi = mid;
        else lo = mid + 1;
    }
    const size_t i0 = lo;
    lo = h;
    hi = n;                                  /* first right key >= a[h - 1].key */
    while (lo < hi) {
        const size_t mid = (lo + hi) / 2;
        if (a[mid].key >= a[h - 1].key) hi = mid;
        else lo = mid + 1;
    }
    const size_t jn = lo;
    const size_t m = h - i0;
    memcpy(tmp, a + i0, m * sizeof *a);
    /* A sentinel above every key (a prefix key's low byte is at most
     * KEY_MORE, an equal-prefix run's key ends in a line number below
     * UINT32_MAX) ends the left run, so the loop tests one bound. */
    tmp[m].key = UINT64_MAX;
    size_t i = 0, j = h, k = i0;
    while (j < jn) a[k++] = a[j].key < tmp[i].key ? a[j++] : tmp[i++];
    while (i < m) a[k++] = tmp[i++];
}

/* Length of the common prefix of a[0, n) and b[0, n); 8 bytes after each are readable. */
static inline uint32_t common_prefix(const char *a, const char *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i += 8) {
        const uint64_t x = rs_load64(a + i) ^ rs_load64(b + i);
        if (x) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            const uint32_t d = i + (uint32_t)(__builtin_ctzll(x) >> 3);
#else
            const uint32_t d = i + (uint32_t)(__builtin_clzll(x) >> 3);
#endif
            return RS_MIN(d, n);
        }
    }
    return n;
}

/* Equal prefixes: the longer pattern (higher priority) first, then the earlier line. */
static inline int same_prefix_less(const cand *x, const cand *y)
{
    return x->len != y->len ? x->len > y->len : x->line < y->line;
}

/*
 * Sorts a[0, n), whose prefixes agree on their first @from bytes, by prefix
 * bytes (shorter first when one is the other's prefix), then pattern length
 * descending, then line. Keys hold one chunk; each run of equal keys is
 * either prefixes that go on (sorted again on the next chunk) or equal
 * prefixes (ordered by same_prefix_less).
 */
static void sort_cands(sort_item *a, sort_item *tmp, size_t n, const cand *c, const char *text,
                       uint32_t from)
{
    merge_sort(a, tmp, n);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && a[j].key == a[i].key) j++;
        if (j - i > 1) {
            if ((a[i].key & 0xff) == KEY_MORE) {
                /* the run's prefixes agree on more than the chunk: go on from where
                 * they first differ (or one ends), not chunk by chunk */
                const cand *c0 = &c[a[i].idx];
                uint32_t agree = c0->prefix_len - from;
                for (size_t k = i + 1; k < j && agree > CHUNK; k++) {
                    const cand *ck = &c[a[k].idx];
                    agree = common_prefix(text + c0->off + from, text + ck->off + from,
                                          RS_MIN(agree, ck->prefix_len - from));
                }
                for (size_t k = i; k < j; k++) a[k].key = sort_key(&c[a[k].idx], text, from + agree);
                sort_cands(a + i, tmp, j - i, c, text, from + agree);
            } else if (j - i > 16) {
                /* a long run of equal prefixes: merge sorted on (length desc,
                 * line) keys, which no later step reads */
                for (size_t k = i; k < j; k++) {
                    const cand *ck = &c[a[k].idx];
                    a[k].key = (uint64_t)(UINT32_MAX - ck->len) << 32 | ck->line;
                }
                merge_sort(a + i, tmp, j - i);
            } else {
                for (size_t k = i + 1; k < j; k++) {
                    const sort_item v = a[k];
                    size_t m = k;
                    for (; m > i && same_prefix_less(&c[v.idx], &c[a[m - 1].idx]); m--) a[m] = a[m - 1];
                    a[m] = v;
                }
            }
        }
        i = j;
    }
}

/* A node of the linked tree build_tree makes (index 0 is the root). */
typedef struct {
    uint32_t depth;            /* prefix bytes down to this node */
    uint32_t rep;              /* text offset of the first (sorted) prefix through it */
    uint32_t t_lo, t_n;        /* sorted candidates whose prefix ends here */
    uint32_t last;             /* last child, 0 = none */
    uint32_t prev;             /* previous sibling, 0 = none */
    uint32_t n_kids;
    uint32_t fin;              /* its index in the matcher's nodes (lay_out) */
} tree_node;

typedef struct {
    uint32_t n;                /* tree nodes */
    uint32_t n_bitmaps;        /* nodes with more than KIDS_INLINE children */
    uint32_t n_terms;          /* nodes where candidates end */
} tree_size;

static inline void add_kid(tree_node *t, uint32_t parent, uint32_t kid, tree_size *sz)
{
    t[kid].prev = t[parent].last;
    t[parent].last = kid;
    sz->n_bitmaps += ++t[parent].n_kids == KIDS_INLINE + 1;
}

/*
 * The radix trie of the sorted prefixes, in one pass: the stack is the path
 * to the previous candidate's node; the common prefix l with the previous
 * candidate says how far up to go, splitting the edge below when no node is
 * at depth l, and the candidate ends there or in a new leaf.
 */
static void build_tree(const sort_item *a, uint32_t n, const cand *c, const char *text,
                       tree_node *t, uint32_t *stack, tree_size *sz)
{
    memset(&t[0], 0, sizeof t[0]);
    sz->n = 1;
    sz->n_bitmaps = 0;
    sz->n_terms = 0;
    uint32_t sp = 1;
    stack[0] = 0;
    const cand *prev = NULL;
    for (uint32_t i = 0; i < n; i++) {
        const cand *x = &c[a[i].idx];
        const uint32_t l = prev ? common_prefix(text + prev->off, text + x->off,
                                                RS_MIN(prev->prefix_len, x->prefix_len)) : 0;
        prev = x;
        uint32_t below = 0;
        while (t[stack[sp - 1]].depth > l) below = stack[--sp];
        uint32_t top = stack[sp - 1];
        if (t[top].depth < l) {
            /* split the edge to @below (top's last child) at depth l */
            const uint32_t y = sz->n++;
            tree_node *ny = &t[y];
            memset(ny, 0, sizeof *ny);
            ny->depth = l;
            ny->rep = t[below].rep;
            ny->prev = t[below].prev;
            ny->last = below;
            ny->n_kids = 1;
            t[below].prev = 0;
            t[top].last = y;
            stack[sp++] = y;
            top = y;
        }
        if (x->prefix_len == l) {
            /* sorted order keeps the candidates ending at a node together */
            sz->n_terms += t[top].t_n == 0;
            if (t[top].t_n++ == 0) t[top].t_lo = i;
        } else {
            const uint32_t z = sz->n++;
            tree_node *nz = &t[z];
            memset(nz, 0, sizeof *nz);
            nz->depth = x->prefix_len;
            nz->rep = x->off;
            nz->t_lo = i;
            nz->t_n = 1;
            sz->n_terms++;
            add_kid(t, top, z, sz);
            stack[sp++] = z;
        }
    }
}

/* A wild_rule for candidate @c at @w. */
static inline void put_wild(wild_rule *w, const cand *c, const char *text)
{
    memset(w, 0, sizeof *w);
    w->prio = c->len;
    w->line = c->line;
    w->rule = c->rule;
    w->anchored = c->anchored;
    w->tail_off = c->off + c->prefix_len + 1;
    w->tail_len = c->len - c->prefix_len - 1 - c->anchored;
    w->needs = tail_mask(text + w->tail_off, w->tail_len);
    w->one_seg = w->tail_len == 0 || memchr(text + w->tail_off, '*', w->tail_len) == NULL;
}

static inline int lit_slot_of(const cand *c)
{
    return (c->type == RS_RULE_ALLOW ? SLOT_ALLOW : SLOT_DISALLOW) + (c->anchored ? 2 : 0);
}

/* The term record of candidates a[lo, lo + n) at @dst (8-aligned), its
 * wild_rules after it; @return its bytes. */
static size_t write_term(char *dst, const sort_item *a, uint32_t lo, uint32_t n, const cand *cands,
                         const char *text)
{
    term_rec *t = (term_rec *)(void *)dst;
    for (int k = 0; k < 4; k++) {
        t->lit[k].line = 0;
        t->lit[k].rule = -1;
    }
    t->n_wild = 0;
    t->n_wild_allow = 0;
    wild_rule *w = (wild_rule *)(void *)(dst + sizeof *t);
    if (n == 1) {              /* most nodes: one rule ends there */
        const cand *c = &cands[a[lo].idx];
        if (c->wildcard) {
            put_wild(w, c, text);
            t->n_wild = 1;
            t->n_wild_allow = c->type == RS_RULE_ALLOW;
            return sizeof *t + sizeof *w;
        }
        lit_slot *s = &t->lit[lit_slot_of(c)];
        s->line = c->line;
        s->rule = c->rule;
        return sizeof *t;
    }
    /* Wildcard rules: allow ones, then disallow ones, each in candidate order
     * (priority desc, line asc), which lets matching stop early. */
    for (int pass = 0; pass < 2; pass++) {
        const uint8_t type = pass == 0 ? RS_RULE_ALLOW : RS_RULE_DISALLOW;
        for (uint32_t j = lo; j < lo + n; j++) {
            const cand *c = &cands[a[j].idx];
            if (!c->wildcard || c->type != type) continue;
            put_wild(w++, c, text);
            t->n_wild++;
            t->n_wild_allow += pass == 0;
        }
    }
    for (uint32_t j = lo; j < lo + n; j++) {
        const cand *c = &cands[a[j].idx];
        if (!c->wildcard) {
            lit_slot *s = &t->lit[lit_slot_of(c)];
            if (s->rule < 0 || c->line < s->line) {
                s->line = c->line;
                s->rule = c->rule;
            }
        }
    }
    return sizeof *t + t->n_wild * sizeof(wild_rule);
}

static inline void init_node(trie_node *n, const char *text, uint32_t label_off, uint32_t label_len)
{
    memset(n, 0, sizeof *n);
    n->label_off = label_off;
    n->label_len = label_len;
    const uint32_t k = label_len > INLINE_LABEL ? INLINE_LABEL : label_len ? label_len - 1 : 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* label bytes 1..k in one load (8 readable bytes follow the text), the rest zeros */
    if (k) {
        const uint64_t v = rs_load64(text + label_off + 1) & (~0ull >> (64 - 8 * k));
        memcpy(n->inl, &v, INLINE_LABEL);
    }
#else
    for (uint32_t j = 0; j < k; j++) n->inl[j] = text[label_off + 1 + j];
#endif
}

/*
 * Writes the tree as the matcher's nodes and term records, depth first (the
 * stack holds nodes whose slot is made, to be filled): a node's term record,
 * then its children's slots, contiguous in byte order, with the bitmap slot
 * before them when there are many.
 */
static void lay_out(tree_node *t, const sort_item *a, const cand *cands, const char *text,
                    uint32_t *stack, trie_node *nodes, char *terms)
{
    size_t term_at = 8;        /* 8 bytes of zeros: term 0 = none */
    memset(terms, 0, 8);
    uint32_t next = 1;
    init_node(&nodes[0], text, 0, 0);
    t[0].fin = 0;
    uint32_t sp = 0;
    stack[sp++] = 0;
    while (sp) {
        const tree_node *p = &t[stack[--sp]];
        trie_node *n = &nodes[p->fin];
        if (p->t_n) {
            n->term = (uint32_t)term_at;
            term_at += write_term(terms + term_at, a, p->t_lo, p->t_n, cands, text);
        }
        const uint32_t nk = p->n_kids;
        if (nk == 0) continue;
        uint32_t bitmap_slot = 0;
        if (nk > KIDS_INLINE) bitmap_slot = next++;
        const uint32_t first = next;
        next += nk;
        uint64_t bits[4] = { 0, 0, 0, 0 }, kids = 0;
        /* the children from the last: pushed so that the first comes off first */
        uint32_t k = nk;
        for (uint32_t ch = p->last; ch; ch = t[ch].prev) {
            tree_node *q = &t[ch];
            q->fin = first + --k;
            init_node(&nodes[q->fin], text, q->rep + p->depth, q->depth - p->depth);
            const unsigned char b = (unsigned char)text[q->rep + p->depth];
            bits[b >> 6] |= 1ull << (b & 63);
            if (k < KIDS_INLINE) kids |= (uint64_t)b << (8 * k);
            stack[sp++] = ch;
        }
        if (nk > KIDS_INLINE) {
            memcpy(&nodes[bitmap_slot], bits, sizeof bits);
            const uint64_t c1 = (uint64_t)popcount64(bits[0]);
            const uint64_t c2 = c1 + (uint64_t)popcount64(bits[1]);
            const uint64_t c3 = c2 + (uint64_t)popcount64(bits[2]);
            /* counts before words 1, 2, 3: at most 192, one byte each */
            kids = c1 << 32 | c2 << 40 | c3 << 48;
        } else if (nk < KIDS_INLINE) {
            /* unused kid bytes repeat the first one: a lookup needs no mask (see find_child) */
            kids |= ((kids & 0xff) * 0x0101010101010101ull) & (~0ull << (8 * nk));
        }
        n->first_child = first;
        n->n_children = (uint16_t)nk;
        n->kids = kids;
    }
}

static inline void make_cand(cand *c, uint32_t off, const char *pat, size_t len,
                             uint32_t line, int32_t rule, rs_rule_type type)
{
    c->off = off;              /* @pat, in the matcher's text */
    c->len = (uint32_t)len;
    c->line = line;
    c->rule = rule;
    c->type = (uint8_t)type;
    c->anchored = len > 0 && pat[len - 1] == '$';
    const char *star = len ? memchr(pat, '*', len) : NULL;
    c->wildcard = star != NULL;
    c->prefix_len = star ? (uint32_t)(star - pat) : (uint32_t)(len - c->anchored);
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
    rs_free(m);   /* one allocation: the header and every table */
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

#define ALIGN8(n) (((n) + 7) & ~(size_t)7)

rs_status rs_matcher_create_constant(int disallow_all, rs_matcher **out)
{
    RS_RETURN_IF(out == NULL, RS_ERR_USAGE);
    rs_matcher *m = rs_calloc(1, sizeof *m);
    RS_RETURN_IF(m == NULL, RS_ERR_NOMEM);
    m->kind = disallow_all ? KIND_DISALLOW_ALL : KIND_ALLOW_ALL;
    m->bytes = sizeof *m;
    *out = m;
    return RS_OK;
}

/* Carves @n bytes, 8-aligned, off the scratch block at *at. */
static inline void *carve(char *base, size_t *at, size_t n)
{
    void *p = base + *at;
    *at += ALIGN8(n);
    return p;
}

#define SCRATCH_STACK 8192     /* most files compile without a scratch allocation */

static void *malloc_alloc(void *ctx, size_t size)
{
    (void)ctx;
    return rs_malloc(size);
}

rs_status rs_matcher_create(const rs_ruleset *rs, const char *agent, size_t agent_len,
                            rs_semantics semantics, rs_matcher **out)
{
    return rs_matcher_create_alloc(rs, agent, agent_len, semantics, malloc_alloc, NULL, out);
}

/* The applicable rules of a matcher in the making (steps 1-2), or of a rule-list
 * matcher (KIND_GOOGLE_LIST), which keeps them as they are: what the trie is built from. */
typedef struct {
    const rule_entry *rules;
    uint32_t n_rules;
    const char *text;          /* 8 readable bytes after text_len */
    size_t text_len;
    const cand *cands;         /* NULL for first-match */
    uint32_t n_cands, n_wild;
} rule_list;

/* A list candidate's prefix_len when its rule cannot match a path: longer than any path. */
#define NO_PREFIX UINT32_MAX

/* Whether @c is its rule's own candidate (not the index.htm one derived from it,
 * whose pattern lies after the rules' patterns). */
static inline int is_rule_cand(const rule_list *l, const cand *c)
{
    const rule_entry *r = &l->rules[c->rule];
    return c->off == r->pat_off && c->len == r->pat_len;
}

/* The trie matcher (Google semantics) or the first-match one of @l (steps 3-5). */
static rs_status build_trie(const rule_list *l, int google, void *(*alloc)(void *ctx, size_t size),
                            void *alloc_ctx, rs_matcher **out)
{
    const uint32_t nc = google ? l->n_cands : 0;
    const size_t max_tree = 2 * (size_t)nc + 1;
    const size_t scratch_bytes = google ? ALIGN8(nc * sizeof(sort_item)) + ALIGN8((nc / 2 + 1) * sizeof(sort_item))
                                              + ALIGN8(max_tree * sizeof(tree_node)) + ALIGN8(max_tree * sizeof(uint32_t))
                                        : 0;
    _Alignas(16) char scratch_stack[SCRATCH_STACK];
    char *scratch = scratch_stack;
    if (scratch_bytes > sizeof scratch_stack) {
        scratch = rs_malloc(scratch_bytes);
        RS_RETURN_IF(scratch == NULL, RS_ERR_NOMEM);
    }
    const char *text = l->text;
    const cand *cands = l->cands;

    rs_matcher h;
    memset(&h, 0, sizeof h);
    h.kind = google ? KIND_GOOGLE : KIND_FIRST_MATCH;
    h.n_rules = l->n_rules;

    size_t nodes_len = 0, terms_len = 0, at = 0;
    sort_item *items = NULL;
    tree_node *tree = NULL;
    uint32_t *stack = NULL;
    if (google) {
        /* 3. Sort. */
        items = carve(scratch, &at, nc * sizeof(sort_item));
        sort_item *tmp = carve(scratch, &at, (nc / 2 + 1) * sizeof(sort_item));
        tree = carve(scratch, &at, max_tree * sizeof(tree_node));
        stack = carve(scratch, &at, max_tree * sizeof(uint32_t));
        for (uint32_t i = 0; i < nc; i++) {
            items[i].key = sort_key(&cands[i], text, 1);
            items[i].idx = i;
            items[i].pad = 0;
        }
        sort_cands(items, tmp, nc, cands, text, 1);
        /* 4. The tree, and from it the exact sizes. */
        tree_size sz;
        build_tree(items, nc, cands, text, tree, stack, &sz);
        h.n_nodes = sz.n + sz.n_bitmaps;
        nodes_len = (size_t)h.n_nodes * sizeof(trie_node);
        terms_len = 8 + (size_t)sz.n_terms * sizeof(term_rec) + (size_t)l->n_wild * sizeof(wild_rule);
    }

    /* 5. The matcher: the header, then what a walk reads (the nodes
     * 32-aligned, so each sits in one cache line: up to 24 bytes of padding,
     * as malloc aligns to 8 at least), the rule table and the patterns as
     * written (output, first-match) last. One allocation, exactly sized. */
    const size_t rules_len = l->n_rules * sizeof(rule_entry);
    const size_t head = ALIGN8(sizeof(rs_matcher));
    const size_t total = head + 24 + ALIGN8(nodes_len) + ALIGN8(terms_len)
        + ALIGN8(l->text_len + 1) + ALIGN8(rules_len);
    rs_status st = RS_OK;
    char *b = alloc(alloc_ctx, total);
    if (b == NULL) {
        st = RS_ERR_NOMEM;
    } else {
        size_t off = head;
        off += (32 - ((uintptr_t)(b + off) & 31)) & 31;
        memset(b + head, 0, off - head);
        h.nodes_at = (uint32_t)off;
        off += ALIGN8(nodes_len);
        h.terms_at = (uint32_t)off;
        off += ALIGN8(terms_len);
        h.text_at = (uint32_t)off;
        memcpy(b + off, text, l->text_len);
        memset(b + off + l->text_len, 0, ALIGN8(l->text_len + 1) - l->text_len);
        off += ALIGN8(l->text_len + 1);
        h.rules_at = (uint32_t)off;
        if (rules_len) memcpy(b + off, l->rules, rules_len);
        off += ALIGN8(rules_len);
        memset(b + off, 0, total - off);
        h.bytes = total;
        if (google) {
            const trie_node *nodes = (trie_node *)(void *)(b + h.nodes_at);
            lay_out(tree, items, cands, text, stack, (trie_node *)(void *)(b + h.nodes_at),
                    b + h.terms_at);
            if (nodes[0].n_children == 1 && nodes[0].first_child == 1 &&
                (nodes[0].kids & 0xff) == '/' && nodes[1].label_len == 1)
                h.kind = KIND_GOOGLE_SLASH;
        }
        memcpy(b, &h, sizeof h);
        *out = (rs_matcher *)(void *)b;
    }
    if (scratch != scratch_stack) rs_free(scratch);
    return st;
}

/*
 * The rule-list matcher of @l: the header, its own fields (list_head), one
 * candidate a rule (in rule order, so that rule k's is the k-th: it serves as the
 * rule table too), the derived candidates, then the text: no sort, no trie, and
 * about 24 bytes a rule besides its pattern (matchers of every site a job meets
 * are kept, and fresh memory costs more than the walk's few extra loads).
 */
static rs_status build_list(const rule_list *l, void *(*alloc)(void *ctx, size_t size), void *alloc_ctx,
                            rs_matcher **out)
{
    uint32_t n_derived = 0;
    for (uint32_t i = 0; i < l->n_cands; i++) n_derived += !is_rule_cand(l, &l->cands[i]);
    const size_t n = (size_t)l->n_rules + n_derived;
    const size_t head = ALIGN8(sizeof(rs_matcher));
    const size_t cands_len = n * sizeof(cand);
    const size_t total = head + ALIGN8(sizeof(list_head)) + ALIGN8(cands_len) + ALIGN8(l->text_len + 8);
    char *b = alloc(alloc_ctx, total);
    RS_RETURN_IF(b == NULL, RS_ERR_NOMEM);
    rs_matcher h;
    memset(&h, 0, sizeof h);
    h.kind = KIND_GOOGLE_LIST;
    h.n_rules = l->n_rules;
    h.n_nodes = (uint32_t)n;
    size_t off = head;
    h.terms_at = (uint32_t)off;
    list_head *lh = (list_head *)(void *)(b + off);
    atomic_init(&lh->trie, NULL);
    lh->n_wild = l->n_wild;
    lh->text_len = (uint32_t)l->text_len;
    off += ALIGN8(sizeof *lh);
    h.nodes_at = (uint32_t)off;
    cand *lc = (cand *)(void *)(b + off);
    for (uint32_t k = 0; k < l->n_rules; k++) {     /* no candidate yet: cannot match */
        const rule_entry *r = &l->rules[k];
        lc[k] = (cand){ r->pat_off, r->pat_len, NO_PREFIX, r->line, (int32_t)k, (uint8_t)r->type, 0, 0 };
    }
    for (uint32_t i = 0, d = l->n_rules; i < l->n_cands; i++) {
        const cand *c = &l->cands[i];
        lc[is_rule_cand(l, c) ? (uint32_t)c->rule : d++] = *c;
    }
    off += ALIGN8(cands_len);
    h.text_at = (uint32_t)off;
    memcpy(b + off, l->text, l->text_len);
    memset(b + off + l->text_len, 0, ALIGN8(l->text_len + 8) - l->text_len);
    h.rules_at = 0;            /* the candidates are the rule table */
    h.bytes = total;
    memcpy(b, &h, sizeof h);
    *out = (rs_matcher *)(void *)b;
    return RS_OK;
}

rs_status rs_matcher_create_alloc(const rs_ruleset *rs, const char *agent, size_t agent_len,
                                  rs_semantics semantics, void *(*alloc)(void *ctx, size_t size),
                                  void *alloc_ctx, rs_matcher **out)
{
    return rs_matcher_create_ex(rs, agent, agent_len, semantics, 0, alloc, alloc_ctx, out);
}

rs_status rs_matcher_create_ex(const rs_ruleset *rs, const char *agent, size_t agent_len,
                               rs_semantics semantics, int list, void *(*alloc)(void *ctx, size_t size),
                               void *alloc_ctx, rs_matcher **out)
{
    RS_RETURN_IF(rs == NULL || out == NULL || (agent == NULL && agent_len), RS_ERR_USAGE);
    RS_RETURN_IF(semantics != RS_SEMANTICS_GOOGLE && semantics != RS_SEMANTICS_FIRST_MATCH,
                 RS_ERR_USAGE);
    *out = NULL;
    const int google = semantics == RS_SEMANTICS_GOOGLE;

    /* 1. The applicable rules and their pattern bytes. */
    uint8_t sel_stack[256];
    uint8_t *selected = sel_stack;
    if (rs->n_groups > sizeof sel_stack) {
        selected = rs_malloc(rs->n_groups);
        RS_RETURN_IF(selected == NULL, RS_ERR_NOMEM);
    }
    if (rs->n_groups) rs_ruleset_select(rs, agent, agent_len, selected);
    uint32_t n_app = 0;
    size_t pat_bytes = 0;
    for (uint32_t i = 0; i < rs->n_rules; i++) {
        const rs_rule_record *r = &rs->rules[i];
        if (!selected[r->group]) continue;
        n_app++;
        pat_bytes += r->pattern.len;
    }

    /* The scratch: rule table, text (the derived patterns are shorter than
     * their rules': at most pat_bytes more) with 8 readable bytes after it,
     * candidates. */
    const size_t max_cands = google ? 2 * (size_t)n_app : 0;
    const size_t text_cap = 2 * pat_bytes + 8;
    const size_t scratch_bytes = ALIGN8(n_app * sizeof(rule_entry)) + ALIGN8(text_cap)
        + (google ? ALIGN8(max_cands * sizeof(cand)) : 0);
    _Alignas(16) char scratch_stack[SCRATCH_STACK];
    char *scratch = scratch_stack;
    if (scratch_bytes > sizeof scratch_stack) {
        scratch = rs_malloc(scratch_bytes);
        if (scratch == NULL) {
            if (selected != sel_stack) rs_free(selected);
            return RS_ERR_NOMEM;
        }
    }
    size_t at = 0;
    rule_entry *rules = carve(scratch, &at, n_app * sizeof(rule_entry));
    char *text = carve(scratch, &at, text_cap);
    cand *cands = google ? carve(scratch, &at, max_cands * sizeof(cand)) : NULL;

    /* 2. Rule table, text and candidates: every rule that can match, plus the
     * index.htm retries, whose patterns go after the rules' ones. */
    size_t text_len = 0, derived = pat_bytes;
    uint32_t nc = 0, n_wild = 0;
    /* The patterns of a group's rules lie end to end in the ruleset's text:
     * they are copied in runs, rs->text[run_from, run_to) a memcpy. */
    size_t run_from = 0, run_to = 0;
    for (uint32_t i = 0, k = 0; i < rs->n_rules; i++) {
        const rs_rule_record *r = &rs->rules[i];
        if (!selected[r->group]) continue;
        const char *pat = rs->text + r->pattern.off;
        const size_t len = r->pattern.len;
        const uint32_t off = (uint32_t)text_len;
        rule_entry *e = &rules[k];
        e->type = r->type;
        e->line = r->line;
        e->pat_off = off;
        e->pat_len = (uint32_t)len;
        if (r->pattern.off != run_to) {
            if (run_to > run_from) memcpy(text + off - (run_to - run_from), rs->text + run_from, run_to - run_from);
            run_from = run_to = r->pattern.off;
        }
        run_to += len;
        text_len += len;
        if (google) {
            if (can_match(pat, len)) {
                make_cand(&cands[nc], off, pat, len, r->line, (int32_t)k, r->type);
                n_wild += cands[nc++].wildcard;
            }
            const size_t cut = r->type == RS_RULE_ALLOW ? index_htm_cut(pat, len) : 0;
            if (cut && can_match(pat, cut)) {
                /* Tried by the reference only when the original does not match;
                 * the original is longer, so adding it always gives the same best.
                 * The cut pattern and its '$' go after the rules' patterns. */
                char *d = text + derived;
                memcpy(d, pat, cut);
                d[cut] = '$';
                make_cand(&cands[nc], (uint32_t)derived, d, cut + 1, r->line, (int32_t)k, RS_RULE_ALLOW);
                n_wild += cands[nc++].wildcard;
                derived += cut + 1;
            }
        }
        k++;
    }
    if (run_to > run_from) memcpy(text + text_len - (run_to - run_from), rs->text + run_from, run_to - run_from);
    text_len = derived;        /* == pat_bytes without derived patterns */
    memset(text + text_len, 0, 8);

    const rule_list l = { rules, n_app, text, text_len, cands, nc, n_wild };
    const rs_status st = google && list && nc <= RS_MATCHER_LIST_MAX ? build_list(&l, alloc, alloc_ctx, out)
                                        : build_trie(&l, google, alloc, alloc_ctx, out);
    if (scratch != scratch_stack) rs_free(scratch);
    if (selected != sel_stack) rs_free(selected);
    return st;
}

int rs_matcher_is_list(const rs_matcher *m)
{
    return m->kind == KIND_GOOGLE_LIST;
}

const rs_matcher *rs_matcher_built(const rs_matcher *m)
{
    if (m->kind != KIND_GOOGLE_LIST) return m;
    return atomic_load_explicit(&M_LIST(m)->trie, memory_order_acquire);
}

rs_status rs_matcher_compiled(const rs_matcher *m, void *(*alloc)(void *ctx, size_t size), void *alloc_ctx,
                              const rs_matcher **out)
{
    *out = m;
    if (m->kind != KIND_GOOGLE_LIST) return RS_OK;
    list_head *lh = M_LIST(m);
    rs_matcher *t = atomic_load_explicit(&lh->trie, memory_order_acquire);
    if (t == NULL) {
        /* the rule table, and the candidates in the order the trie was built from
         * before (each rule's, then the one derived from it) */
        const cand *lc = (const cand *)(const void *)M_NODES(m);
        const uint32_t nr = m->n_rules, n = m->n_nodes;
        char *scratch = rs_malloc(ALIGN8((size_t)nr * sizeof(rule_entry)) + (size_t)n * sizeof(cand) + 8);
        RS_RETURN_IF(scratch == NULL, RS_ERR_NOMEM);
        rule_entry *rules = (rule_entry *)(void *)scratch;
        cand *cands = (cand *)(void *)(scratch + ALIGN8((size_t)nr * sizeof(rule_entry)));
        uint32_t nc = 0;
        for (uint32_t k = 0, d = nr; k < nr; k++) {
            rules[k] = (rule_entry){ (rs_rule_type)lc[k].type, lc[k].line, lc[k].off, lc[k].len };
            if (lc[k].prefix_len != NO_PREFIX) cands[nc++] = lc[k];
            while (d < n && lc[d].rule == (int32_t)k) cands[nc++] = lc[d++];
        }
        const rule_list l = { rules, nr, M_TEXT(m), lh->text_len, cands, nc, lh->n_wild };
        const rs_status st = build_trie(&l, 1, alloc, alloc_ctx, &t);
        rs_free(scratch);
        RS_FORWARD(st);
        rs_matcher *none = NULL;
        /* another thread's trie may be there first: this one is then left to its allocator */
        if (!atomic_compare_exchange_strong_explicit(&lh->trie, &none, t, memory_order_acq_rel,
                                                     memory_order_acquire))
            t = none;
    }
    *out = t;
    return RS_OK;
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

/* The verdict of the best allow (best[0]) and disallow (best[1]): disallowed iff
 * the disallow has the higher priority and is not empty (SPEC 2.4). */
static inline void decide_best(const best_match best[2], rs_verdict *out)
{
    const best_match *a = &best[0], *d = &best[1];
    out->disallowed = d->prio > a->prio && d->prio > 0;
    const best_match *r = d->prio > a->prio ? d : a;
    out->line = r->line;
    out->rule = r->rule;
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
    if (n == 1) return c == (unsigned char)node->kids ? (int64_t)node->first_child : -1;
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
/* Whether @w's tail matches the path from @depth. */
static inline __attribute__((always_inline)) int tail_matches(const wild_rule *w, const char *path, size_t plen,
                                                  size_t depth, const char *text)
{
    const char *tail = text + w->tail_off;
    const size_t tlen = w->tail_len;
    if (!w->one_seg) return match_after_star(path, plen, depth, tail, tlen, w->anchored);
    if (w->anchored) return plen - depth >= tlen && rs_short_eq(path + plen - tlen, tail, tlen);
    return find_segment(path + depth, plen - depth, tail, tlen) != NULL;
}

static inline __attribute__((always_inline)) void wild_scan(const wild_rule *w, uint32_t n, best_match *b, const char *path, size_t plen,
                             size_t depth, const char *text, path_bytes *pb)
{
    if (n == 0 || !beats((int32_t)w->prio, w->line, b)) return;
    if (!pb->known) {
        pb->mask = byte_mask(path + depth, plen - depth);
        pb->known = 1;
    }
    const uint64_t miss = ~pb->mask;
    const wild_rule *const end = w + n;
    if (b->prio < 0) {
        /* none of this type matched yet: every rule beats that, only the needs are tested */
        for (; w < end; w++) {
            if (!(w->needs & miss) && tail_matches(w, path, plen, depth, text)) break;
        }
        if (w == end) return;
    } else {
        for (;;) {
            if (!(w->needs & miss) && tail_matches(w, path, plen, depth, text)) break;
            if (++w == end || !beats((int32_t)w->prio, w->line, b)) return;
        }
    }
    b->prio = (int32_t)w->prio;
    b->line = w->line;
    b->rule = w->rule;
}

/* The rules ending at @node (it has some), reached at @depth. */
static inline __attribute__((always_inline)) void visit_term(const rs_matcher *m, const trie_node *node,
                                                             best_match *best, const char *path,
                                                             size_t plen, size_t depth, path_bytes *pb)
{
    const term_rec *t = M_TERM(m, node);
    consider(&best[0], (int32_t)depth, &t->lit[SLOT_ALLOW]);
    consider(&best[1], (int32_t)depth, &t->lit[SLOT_DISALLOW]);
    if (depth == plen) {
        consider(&best[0], (int32_t)depth + 1, &t->lit[SLOT_ANCH_ALLOW]);
        consider(&best[1], (int32_t)depth + 1, &t->lit[SLOT_ANCH_DISALLOW]);
    }
    if (t->n_wild) {
        const wild_rule *w = (const wild_rule *)(const void *)(t + 1);
        wild_scan(w, t->n_wild_allow, &best[0], path, plen, depth, M_TEXT(m), pb);
        wild_scan(w + t->n_wild_allow, t->n_wild - t->n_wild_allow, &best[1], path, plen,
                  depth, M_TEXT(m), pb);
    }
}

static inline __attribute__((always_inline)) void match_google(const rs_matcher *m, const char *path,
                                                               size_t plen, rs_verdict *out,
                                                               unsigned kind)
{
    best_match best[2] = { { -1, 0, -1 }, { -1, 0, -1 } }; /* [0] allow, [1] disallow */
    const trie_node *node = M_NODES(m);
    size_t depth = 0;
    path_bytes pb = { 0, 0 };
    if (kind == KIND_GOOGLE_SLASH) {
        /* most files: the root's rules (empty or '*' patterns) if any, then
         * node 1, its only child, for the '/' every path starts with */
        if (node->term) visit_term(m, node, best, path, plen, 0, &pb);
        if (plen == 0 || path[0] != '/') goto done;
        node++;
        depth = 1;
    }
    for (;;) {
        if (node->term) visit_term(m, node, best, path, plen, depth, &pb);
        if (depth == plen || node->n_children == 0) break;
        const int64_t c = find_child(m, node, (unsigned char)path[depth]);
        if (c < 0) break;
        const trie_node *child = M_NODES(m) + c;
        /* An edge label is never empty and its first byte is the one find_child
         * matched; the next INLINE_LABEL bytes are in the node. */
        const size_t rest = child->label_len - 1;
        if (rest) {            /* most labels are one byte (a branch), the rest at most INLINE_LABEL */
            if (plen - depth <= rest) break;
            if (!(rest <= INLINE_LABEL ? rs_short_eq(path + depth + 1, child->inl, rest)
                                       : rs_short_eq(path + depth + 1, M_TEXT(m) + child->label_off + 1, rest)))
                break;
        }
        depth += rest + 1;
        node = child;
    }
done:;
    decide_best(best, out);
}

/*
 * Google semantics without the trie: every candidate of the list (make_cand's, in
 * file order) whose literal prefix starts the path and which could beat the best
 * of its type is checked whole. The same candidates and the same order of
 * (priority desc, line asc) as the walk give the same verdict, line and rule.
 */
static __attribute__((noinline)) void match_list(const rs_matcher *m, const char *path, size_t plen, rs_verdict *out)
{
    best_match best[2] = { { -1, 0, -1 }, { -1, 0, -1 } }; /* [0] allow, [1] disallow */
    const cand *const cands = (const cand *)(const void *)M_NODES(m);
    uint64_t path_mask = 0;   /* byte_mask() of the whole path, once a tail needs it */
    int path_known = 0;
    const uint32_t n = m->n_nodes;
    const char *text = M_TEXT(m);
    /* the path's first 8 bytes against each candidate's, in one compare (bytes past
     * a prefix masked off): most candidates end there */
    uint64_t head = 0;   /* zeros past a short path: a longer prefix is refused below */
    memcpy(&head, path, plen < 8 ? plen : 8);
    for (uint32_t i = 0; i < n; i++) {
        const cand *c = &cands[i];
        const uint32_t pl = c->prefix_len;     /* NO_PREFIX: all 8 compared, then refused */
        uint64_t mask = pl >= 8 ? ~0ull : (1ull << (8 * pl)) - 1;
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
        mask = __builtin_bswap64(mask);
#endif
        if (RS_LIKELY(((head ^ rs_load64(text + c->off)) & mask) != 0)) continue;
        if (pl > plen || (pl > 8 && !rs_short_eq(path + 8, text + c->off + 8, pl - 8))) continue;
        best_match *b = &best[c->type != RS_RULE_ALLOW];
        if (!beats((int32_t)c->len, c->line, b)) continue;
        if (c->wildcard) {
            const char *tail = text + c->off + pl + 1;
            const size_t tail_len = c->len - pl - 1 - c->anchored;
            /* the tail's bytes must all be in the path (the trie's 'needs' test) */
            if (!path_known) {
                path_mask = byte_mask(path, plen);
                path_known = 1;
            }
            if (tail_mask(tail, tail_len) & ~path_mask) continue;
            if (!match_after_star(path, plen, pl, tail, tail_len, c->anchored)) continue;
        } else if (c->anchored && plen != pl) {
            continue;
        }
        b->prio = (int32_t)c->len;
        b->line = c->line;
        b->rule = c->rule;
    }
    decide_best(best, out);
}

/* The older tradition (SPEC 2.5): the first rule in file order that matches decides. */
static __attribute__((noinline)) void match_first(const rs_matcher *m, const char *path, size_t plen, rs_verdict *out)
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
    const unsigned kind = m->kind;
    if (kind <= KIND_GOOGLE_SLASH) {
        match_google(m, path, path_len, out, kind);
    } else if (kind == KIND_FIRST_MATCH) {
        match_first(m, path, path_len, out);
    } else if (kind == KIND_GOOGLE_LIST) {
        match_list(m, path, path_len, out);
    } else {
        out->disallowed = kind == KIND_DISALLOW_ALL;
        out->line = 0;
        out->rule = -1;
    }
}

size_t rs_matcher_rule_count(const rs_matcher *m)
{
    return m->n_rules;
}

/* Rule @k's type, line and pattern (in M_TEXT): a list's candidates are its rule table. */
static inline rule_entry rule_at(const rs_matcher *m, uint32_t k)
{
    if (m->kind != KIND_GOOGLE_LIST) return M_RULES(m)[k];
    const cand *c = &((const cand *)(const void *)M_NODES(m))[k];
    return (rule_entry){ (rs_rule_type)c->type, c->line, c->off, c->len };
}

void rs_matcher_prefetch_rule(const rs_matcher *m, int32_t rule)
{
    if (rule < 0 || (uint32_t)rule >= m->n_rules) return;
    if (m->kind == KIND_GOOGLE_LIST)
        __builtin_prefetch(&((const cand *)(const void *)M_NODES(m))[rule]);
    else
        __builtin_prefetch(&M_RULES(m)[rule]);
}

void rs_matcher_prefetch_pattern(const rs_matcher *m, int32_t rule)
{
    if (rule < 0 || (uint32_t)rule >= m->n_rules) return;
    __builtin_prefetch(M_TEXT(m) + rule_at(m, (uint32_t)rule).pat_off);
}

rs_status rs_matcher_rule(const rs_matcher *m, int32_t rule, rs_rule_info *out)
{
    RS_RETURN_IF(rule < 0 || (uint32_t)rule >= m->n_rules, RS_ERR_USAGE);
    const rule_entry r = rule_at(m, (uint32_t)rule);
    out->type = r.type;
    out->line = r.line;
    out->pattern.ptr = M_TEXT(m) + r.pat_off;
    out->pattern.len = r.pat_len;
    return RS_OK;
}

size_t rs_rule_text(const rs_rule_info *rule, char *dst, size_t cap)
{
    const char *kind = rule->type == RS_RULE_ALLOW ? "allow: " : "disallow: ";
    const size_t klen = strlen(kind), len = klen + rule->pattern.len;
    if (cap == 0) return len;
    const size_t k = klen < cap - 1 ? klen : cap - 1;
    memcpy(dst, kind, k);
    const size_t p = rule->pattern.len < cap - 1 - k ? rule->pattern.len : cap - 1 - k;
    if (p) memcpy(dst + k, rule->pattern.ptr, p);
    dst[k + p] = '\0';
    return len;
}
