/*
 * causes.c - checks a peer's answers against the reference verdicts and
 * names a likely cause for each disagreement.
 *
 * Causes, tried in this order, the first that explains the peer's answer wins:
 *   $                 the peer's answer is the verdict of the same rules with
 *                     `$` ignored (stripped) or taken as a literal character;
 *   wildcard          ... with `*` taken literally, or patterns cut at their `*`;
 *   group selection   ... of the `*` group alone, or of another group whose
 *                     token is a prefix of the agent or the other way round;
 *   index.htm         a rule or the path names index.htm(l) (the reference
 *                     lets `Allow: /x/index.htm` allow `/x/`);
 *   percent-encoding  the path or a rule holds a %-escape or a non-ASCII byte;
 *   line handling     the file has a BOM, bare CRs, NULs, a line over 16,663
 *                     bytes, more than 500 KiB, or a rule line without a colon;
 *   other             anything else (first-match precedence, say).
 * The variants re-evaluate the agent's compiled rules (rs_matcher_rule) with
 * the reference's longest-match algorithm (position sets, robots.cc Matches);
 * a query whose plain re-evaluation differs from the reference is only
 * classified by features. At most CLASSIFY_MAX disagreements of one run are
 * classified, and fewer when their rules are many (CLASSIFY_WORK); the rest
 * are counted under other as unclassified.
 */
#include "bench/bench.h"

#include <string.h>

#define CLASSIFY_MAX 20000
#define CLASSIFY_WORK 40000000u   /* rules re-evaluated, at most, per run (big files cost more) */

const char *const rs_bench_cause_names[BC_COUNT] = {
    "$", "wildcard", "percent-encoding", "group selection", "index.htm", "line handling", "other",
};

enum { D_NORMAL, D_STRIP, D_LITERAL };   /* how `$` reads */
enum { S_NORMAL, S_LITERAL, S_CUT };     /* how `*` reads */

/* robots.cc Matches over a position set, with the variants above. */
static int pmatch(const char *p, size_t pl, const char *s, size_t sl, int dmode, int smode, size_t *pos)
{
    size_t np = 1;
    pos[0] = 0;
    for (size_t i = 0; i < pl; i++) {
        const char c = p[i];
        if (c == '$' && i + 1 == pl && dmode != D_LITERAL) {
            if (dmode == D_STRIP) return 1;
            return pos[np - 1] == sl;
        }
        if (c == '*' && smode == S_CUT) return 1;
        if (c == '*' && smode == S_NORMAL) {
            np = sl - pos[0] + 1;
            for (size_t j = 1; j < np; j++) pos[j] = pos[j - 1] + 1;
            continue;
        }
        size_t nn = 0;
        for (size_t j = 0; j < np; j++)
            if (pos[j] < sl && s[pos[j]] == c) pos[nn++] = pos[j] + 1;
        np = nn;
        if (np == 0) return 0;
    }
    return 1;
}

/* Longest match wins, allow on a tie; no match allows. @return 1 = disallow. */
static int evaluate(const rs_matcher *m, const char *path, size_t pl, int dmode, int smode, size_t *pos)
{
    const size_t n = rs_matcher_rule_count(m);
    long best_allow = -1, best_dis = -1;
    for (size_t i = 0; i < n; i++) {
        rs_rule_info ri;
        if (rs_matcher_rule(m, (int32_t)i, &ri) != RS_OK) continue;
        if (!pmatch(ri.pattern.ptr, ri.pattern.len, path, pl, dmode, smode, pos)) continue;
        long *best = ri.type == RS_RULE_ALLOW ? &best_allow : &best_dis;
        if ((long)ri.pattern.len > *best) *best = (long)ri.pattern.len;
    }
    return best_dis > best_allow;
}

static int rules_have(const rs_matcher *m, const char *needle)
{
    const size_t n = rs_matcher_rule_count(m), nl = strlen(needle);
    for (size_t i = 0; i < n; i++) {
        rs_rule_info ri;
        if (rs_matcher_rule(m, (int32_t)i, &ri) != RS_OK) continue;
        if (ri.pattern.len >= nl && memmem(ri.pattern.ptr, ri.pattern.len, needle, nl)) return 1;
    }
    return 0;
}

static int rules_have_byte_class(const rs_matcher *m)
{
    const size_t n = rs_matcher_rule_count(m);
    for (size_t i = 0; i < n; i++) {
        rs_rule_info ri;
        if (rs_matcher_rule(m, (int32_t)i, &ri) != RS_OK) continue;
        for (size_t k = 0; k < ri.pattern.len; k++)
            if (ri.pattern.ptr[k] == '%' || (unsigned char)ri.pattern.ptr[k] >= 0x80) return 1;
    }
    return 0;
}

static int odd_lines(const bw_file *f)
{
    const char *b = f->body;
    const size_t n = f->size;
    if (n >= 1 && (unsigned char)b[0] == 0xEF) return 1;
    if (n > 512000) return 1;
    size_t line_start = 0;
    for (size_t i = 0; i < n; i++) {
        if (b[i] == '\0') return 1;
        if (b[i] == '\r' && (i + 1 == n || b[i + 1] != '\n')) return 1;
        if (b[i] == '\n' || b[i] == '\r') {
            const char *l = b + line_start;
            const size_t len = i - line_start;
            if (len > 16663) return 1;
            /* a rule line without its colon: "Disallow /x" */
            if ((rs_istarts(l, len, "disallow ") || rs_istarts(l, len, "allow ") ||
                 rs_istarts(l, len, "user-agent ")) && memchr(l, ':', len) == NULL)
                return 1;
            line_start = i + 1;
        }
    }
    return n - line_start > 16663;
}

static int has_byte_class(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] == '%' || (unsigned char)s[i] >= 0x80) return 1;
    return 0;
}

static int verdict_for(const rs_ruleset *rs, const char *agent, size_t alen, const char *url)
{
    rs_matcher *m = NULL;
    rs_verdict v = { 0, 0, -1 };
    if (rs_matcher_create(rs, agent, alen, RS_SEMANTICS_GOOGLE, &m) == RS_OK)
        rs_matcher_check_url(m, url, strlen(url), 0, &v);
    rs_matcher_free(m);
    return v.disallowed;
}

/* Group selection: the `*` group's verdict, or a related token's (prefix either way). */
static int group_explains(const rs_ruleset *rs, const bw_query *q, int peer)
{
    if (verdict_for(rs, "robotscan-bench-nobody", 22, q->url) == peer) return 1;
    rs_str tok[64];
    size_t nt = rs_ruleset_tokens(rs, tok, 64);
    if (nt > 64) nt = 64;
    const size_t al = strlen(q->agent);
    for (size_t i = 0; i < nt; i++) {
        const size_t l = RS_MIN(tok[i].len, al);
        if (tok[i].len == al || l == 0 || !rs_ieq(tok[i].ptr, l, q->agent, l)) continue;
        if (verdict_for(rs, tok[i].ptr, tok[i].len, q->url) == peer) return 1;
    }
    return 0;
}

static int classify(const bw_file *f, const rs_ruleset *rs, const rs_matcher *m, const bw_query *q, int peer,
                    size_t *pos, char *path_buf, size_t path_cap)
{
    const rs_str path = rs_url_path(q->url, strlen(q->url), path_buf, path_cap);
    const size_t pl = path.len;
    const int modelled = evaluate(m, path.ptr, pl, D_NORMAL, S_NORMAL, pos) == q->expect;
    if (modelled && rules_have(m, "$") &&
        (evaluate(m, path.ptr, pl, D_STRIP, S_NORMAL, pos) == peer ||
         evaluate(m, path.ptr, pl, D_LITERAL, S_NORMAL, pos) == peer))
        return BC_DOLLAR;
    if (modelled && rules_have(m, "*") &&
        (evaluate(m, path.ptr, pl, D_NORMAL, S_LITERAL, pos) == peer ||
         evaluate(m, path.ptr, pl, D_NORMAL, S_CUT, pos) == peer))
        return BC_WILDCARD;
    if (group_explains(rs, q, peer)) return BC_GROUP;
    if (rules_have(m, "index.htm") || memmem(path.ptr, pl, "index.htm", 9)) return BC_INDEX;
    if (has_byte_class(q->url, strlen(q->url)) || rules_have_byte_class(m)) return BC_PERCENT;
    if (odd_lines(f)) return BC_LINES;
    return BC_OTHER;
}

static char *example(const bw_workload *w, const bw_file *f, const rs_matcher *m, const bw_query *q, int peer)
{
    rs_verdict v = { 0, 0, -1 };
    rs_matcher_check_url(m, q->url, strlen(q->url), 0, &v);
    rs_rule_info ri = { 0, 0, { "", 0 } };
    char rule[200] = "no rule matches";
    if (v.rule >= 0 && rs_matcher_rule(m, v.rule, &ri) == RS_OK)
        snprintf(rule, sizeof rule, "line %u: %s: %.*s", ri.line, ri.type == RS_RULE_ALLOW ? "allow" : "disallow",
                 (int)RS_MIN(ri.pattern.len, 120), ri.pattern.ptr);
    char buf[1024];
    snprintf(buf, sizeof buf, "%s, agent %s, %.300s: reference %s (%s), peer %s", f->path, q->agent, q->url,
             q->expect ? "disallow" : "allow", rule, peer ? "disallow" : "allow");
    (void)w;
    return rs_strdup(buf);
}

void rs_bp_check(const bw_workload *w, const int8_t *answers, bp_result *r)
{
    r->agreed = 0;
    uint64_t classified = 0, work = 0;
    size_t pos_cap = 8192;
    size_t *pos = rs_malloc(pos_cap * sizeof *pos);
    char *path_buf = rs_malloc(8192);
    for (size_t bi = 0; bi < w->n_blocks; bi++) {
        const bw_block *b = &w->blocks[bi];
        const bw_file *f = &w->files[b->file];
        rs_ruleset *rs = NULL;
        for (uint32_t i = 0; i < b->nq; i++) {
            const bw_query *q = &w->q[b->q0 + i];
            const int a = answers[b->q0 + i];
            if (a < 0) continue;
            if (a == q->expect) { r->agreed++; continue; }
            if (classified >= CLASSIFY_MAX || work >= CLASSIFY_WORK || pos == NULL || path_buf == NULL) {
                r->cause[BC_OTHER]++;
                r->unclassified++;
                continue;
            }
            classified++;
            if (rs == NULL && rs_ruleset_parse(f->body, f->size, &rs) != RS_OK) rs = NULL;
            rs_matcher *m = NULL;
            if (rs == NULL || rs_matcher_create(rs, q->agent, strlen(q->agent), RS_SEMANTICS_GOOGLE, &m) != RS_OK) {
                r->cause[BC_OTHER]++;
                continue;
            }
            work += rs_matcher_rule_count(m) + 1;
            const size_t need = strlen(q->url) + 2;
            if (need > pos_cap) {
                size_t *np = rs_realloc(pos, need * sizeof *pos);
                if (np) { pos = np; pos_cap = need; }
            }
            const int c = need <= pos_cap ? classify(f, rs, m, q, a, pos, path_buf, 8192) : BC_OTHER;
            r->cause[c]++;
            if (r->example[c] == NULL) r->example[c] = example(w, f, m, q, a);
            rs_matcher_free(m);
        }
        rs_ruleset_free(rs);
    }
    rs_free(pos);
    rs_free(path_buf);
}
