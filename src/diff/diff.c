/*
 * diff.c - what changes between two sides (two robots.txt versions, or two
 * semantics of one): flip classification, mergeable diff counters, and the
 * rule-level diff of two matchers for one agent (robotscan.h, "Diff").
 *
 * It decides nothing itself: verdicts come from the scan layer (both sides
 * scanned over the same block) and from the matchers' own rule tables and
 * rs_matcher_match. It knows no files, origins or output formats.
 *
 * Rule diff: each side's rules (rs_matcher_rule, file order) are sorted by
 * (type, pattern, line) and reduced to one entry per (type, pattern) at its
 * first line; a merge walk of the two sorted lists yields the removed, added
 * and common rules; each rule's probe path is decided by both matchers, and
 * a common rule whose probe gets two different verdicts is changed in effect.
 */
#include "common/common.h"

rs_flip rs_diff_flip(int old_disallowed, int new_disallowed)
{
    if (!old_disallowed == !new_disallowed) return RS_FLIP_UNCHANGED;
    return new_disallowed ? RS_FLIP_NEWLY_DISALLOWED : RS_FLIP_NEWLY_ALLOWED;
}

const char *rs_flip_str(rs_flip f)
{
    switch (f) {
    case RS_FLIP_NEWLY_DISALLOWED: return "newly-disallowed";
    case RS_FLIP_NEWLY_ALLOWED: return "newly-allowed";
    default: return "unchanged";
    }
}

rs_flip rs_diff_count(uint64_t *c, int old_disallowed, int new_disallowed, uint64_t hits)
{
    static const int COUNT[RS_FLIP_COUNT] = {
        RS_DIFF_UNCHANGED, RS_DIFF_NEWLY_DISALLOWED, RS_DIFF_NEWLY_ALLOWED
    };
    const rs_flip f = rs_diff_flip(old_disallowed, new_disallowed);
    c[RS_DIFF_COMPARED]++;
    c[COUNT[f]]++;
    c[RS_DIFF_HITS] += hits;
    c[COUNT[f] - RS_DIFF_NEWLY_DISALLOWED + RS_DIFF_HITS_NEWLY_DISALLOWED] += hits;
    return f;
}

const char *rs_rule_change_str(rs_rule_change_kind k)
{
    switch (k) {
    case RS_RULE_ADDED: return "added";
    case RS_RULE_REMOVED: return "removed";
    default: return "changed-effect";
    }
}

/* ===== Rule diff ===== */

typedef struct {
    rs_rule_type type;
    uint32_t line;
    int32_t index;         /* in the matcher's rule table (file order) */
    rs_str pattern;
} side_rule;

static int rule_key_cmp(const side_rule *a, const side_rule *b)
{
    if (a->type != b->type) return a->type < b->type ? -1 : 1;
    const size_t n = RS_MIN(a->pattern.len, b->pattern.len);
    const int c = n ? memcmp(a->pattern.ptr, b->pattern.ptr, n) : 0;
    if (c) return c;
    return a->pattern.len < b->pattern.len ? -1 : a->pattern.len > b->pattern.len;
}

static int rule_sort_cmp(const void *pa, const void *pb)
{
    const side_rule *a = pa, *b = pb;
    const int c = rule_key_cmp(a, b);
    if (c) return c;
    return a->index < b->index ? -1 : a->index > b->index;
}

static int index_cmp(const void *pa, const void *pb)
{
    const side_rule *a = pa, *b = pb;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* A rule on both sides. */
typedef struct {
    side_rule nw, old;
} rule_pair;

static int pair_cmp(const void *pa, const void *pb)
{
    const rule_pair *a = pa, *b = pb;
    return a->nw.index < b->nw.index ? -1 : a->nw.index > b->nw.index;
}

/* One side's rules sorted by key, one per key (its first line). */
static rs_status side_rules(const rs_matcher *m, side_rule **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    const size_t n = m ? rs_matcher_rule_count(m) : 0;
    if (n == 0) return RS_OK;
    side_rule *r = rs_malloc(n * sizeof *r);
    RS_RETURN_IF(r == NULL, RS_ERR_NOMEM);
    for (size_t i = 0; i < n; i++) {
        rs_rule_info info;
        rs_matcher_rule(m, (int32_t)i, &info);
        r[i].type = info.type;
        r[i].line = info.line;
        r[i].index = (int32_t)i;
        r[i].pattern = info.pattern;
    }
    qsort(r, n, sizeof *r, rule_sort_cmp);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || rule_key_cmp(&r[k - 1], &r[i]) != 0) r[k++] = r[i];
    *out = r;
    *n_out = k;
    return RS_OK;
}

/* The verdict of @path under @m; NULL (no rules) allows everything. */
static void decide(const rs_matcher *m, const char *path, size_t len, rs_verdict *v)
{
    if (m == NULL) {
        v->disallowed = 0;
        v->line = 0;
        v->rule = -1;
        return;
    }
    rs_matcher_match(m, path, len, v);
}

/* Fills c->probe (in @buf, >= pattern length + 2 bytes) and both verdicts. */
static void probe(const rs_matcher *old_m, const rs_matcher *new_m, rs_rule_change *c, char *buf)
{
    size_t n = 0;
    const rs_str p = c->pattern;
    if (p.len == 0 || p.ptr[0] != '/') buf[n++] = '/';
    for (size_t i = 0; i < p.len; i++) {
        if (p.ptr[i] == '*') continue;
        if (p.ptr[i] == '$' && i + 1 == p.len) break;
        buf[n++] = p.ptr[i];
    }
    c->probe.ptr = buf;
    c->probe.len = n;
    decide(old_m, buf, n, &c->old_verdict);
    decide(new_m, buf, n, &c->new_verdict);
}

rs_status rs_diff_rules(const rs_matcher *old_m, const rs_matcher *new_m,
                        rs_rule_change_callback cb, void *ctx)
{
    RS_RETURN_IF(cb == NULL, RS_ERR_USAGE);
    side_rule *o = NULL, *nw = NULL, *only_old = NULL, *only_new = NULL;
    rule_pair *both = NULL;
    size_t no = 0, nn = 0, n_oo = 0, n_on = 0, n_both = 0, longest = 0;
    char *buf = NULL;
    rs_status st = side_rules(old_m, &o, &no);
    if (st == RS_OK) st = side_rules(new_m, &nw, &nn);
    if (st != RS_OK) goto out;
    only_old = rs_malloc((no + 1) * sizeof *only_old);
    only_new = rs_malloc((nn + 1) * sizeof *only_new);
    both = rs_malloc((nn + 1) * sizeof *both);
    if (only_old == NULL || only_new == NULL || both == NULL) { st = RS_ERR_NOMEM; goto out; }
    size_t i = 0, j = 0;
    while (i < no || j < nn) {
        const int c = i == no ? 1 : j == nn ? -1 : rule_key_cmp(&o[i], &nw[j]);
        if (c < 0) {
            only_old[n_oo++] = o[i++];
        } else if (c > 0) {
            only_new[n_on++] = nw[j++];
        } else {
            both[n_both].nw = nw[j++];
            both[n_both].old = o[i++];
            n_both++;
        }
    }
    for (size_t k = 0; k < no; k++) longest = RS_MAX(longest, o[k].pattern.len);
    for (size_t k = 0; k < nn; k++) longest = RS_MAX(longest, nw[k].pattern.len);
    buf = rs_malloc(longest + 2);
    if (buf == NULL) { st = RS_ERR_NOMEM; goto out; }
    qsort(only_old, n_oo, sizeof *only_old, index_cmp);
    qsort(only_new, n_on, sizeof *only_new, index_cmp);

    rs_rule_change c;
    for (size_t k = 0; k < n_oo; k++) {
        memset(&c, 0, sizeof c);
        c.change = RS_RULE_REMOVED;
        c.type = only_old[k].type;
        c.pattern = only_old[k].pattern;
        c.old_line = only_old[k].line;
        probe(old_m, new_m, &c, buf);
        cb(ctx, &c);
    }
    for (size_t k = 0; k < n_on; k++) {
        memset(&c, 0, sizeof c);
        c.change = RS_RULE_ADDED;
        c.type = only_new[k].type;
        c.pattern = only_new[k].pattern;
        c.new_line = only_new[k].line;
        probe(old_m, new_m, &c, buf);
        cb(ctx, &c);
    }
    qsort(both, n_both, sizeof *both, pair_cmp);   /* common rules in new file order */
    for (size_t k = 0; k < n_both; k++) {
        memset(&c, 0, sizeof c);
        c.change = RS_RULE_CHANGED_EFFECT;
        c.type = both[k].nw.type;
        c.pattern = both[k].nw.pattern;
        c.new_line = both[k].nw.line;
        c.old_line = both[k].old.line;
        probe(old_m, new_m, &c, buf);
        if (!c.old_verdict.disallowed != !c.new_verdict.disallowed) cb(ctx, &c);
    }
out:
    rs_free(o);
    rs_free(nw);
    rs_free(only_old);
    rs_free(only_new);
    rs_free(both);
    rs_free(buf);
    return st;
}
