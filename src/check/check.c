/*
 * check.c - one-call and batch checks over the stable API: a body in memory
 * (rs_check), whole URLs against a compiled matcher (rs_matcher_check_url,
 * rs_matcher_check_urls) and against many sites (rs_sites_check_urls).
 *
 * Does: URL -> path (rs_url_path), optional percent-encoding, match; for
 * sites, origin -> lookup, reusing the previous lookup while the origin
 * repeats. Does not: parse, compile, cache (src/rules, src/match, src/sites).
 * These are the entry points bindings use (python/robotscan), so each does
 * its work in one call, never per-URL allocation for ordinary URLs.
 */
#include "common/common.h"

/* URLs up to this length are checked with stack scratch; longer ones allocate. */
#define STACK_URL 4096
/* Scratch one URL of @len needs: the path copy (len + 1), then its encoding (3 * len + 3). */
#define SCRATCH_FOR(len) (4 * (len) + 8)

static void match_url(const rs_matcher *m, const char *url, size_t len, unsigned flags,
                      char *scratch, rs_verdict *out)
{
    rs_str path = rs_url_path(url, len, scratch, len + 1);
    if (flags & RS_CHECK_ENCODE_URL) {
        char *enc = scratch + len + 1;
        path.len = rs_url_encode_path(path.ptr, path.len, enc, 3 * len + 3);
        path.ptr = enc;
    }
    rs_matcher_match(m, path.ptr, path.len, out);
}

/* Scratch for URLs of up to @len bytes: @stack when it is big enough, else grown on the heap. */
static char *scratch_for(size_t len, char *stack, char **heap, size_t *heap_cap)
{
    if (SCRATCH_FOR(len) <= SCRATCH_FOR(STACK_URL)) return stack;
    if (*heap_cap < SCRATCH_FOR(len)) {
        rs_free(*heap);
        *heap_cap = 0;
        *heap = rs_malloc(SCRATCH_FOR(len));
        if (*heap == NULL) return NULL;
        *heap_cap = SCRATCH_FOR(len);
    }
    return *heap;
}

rs_status rs_matcher_check_url(const rs_matcher *m, const char *url, size_t url_len, unsigned flags,
                               rs_verdict *out)
{
    RS_RETURN_IF(m == NULL || out == NULL || (url == NULL && url_len > 0), RS_ERR_USAGE);
    char stack[SCRATCH_FOR(STACK_URL)];
    char *heap = NULL;
    size_t heap_cap = 0;
    char *scratch = scratch_for(url_len, stack, &heap, &heap_cap);
    RS_RETURN_IF(scratch == NULL, RS_ERR_NOMEM);
    match_url(m, url ? url : "", url_len, flags, scratch, out);
    rs_free(heap);
    return RS_OK;
}

/* Checks the layout of a batch: ends never decrease. */
static int ends_ok(const size_t *ends, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (ends[i] < ends[i - 1]) return 0;
    return 1;
}

rs_status rs_matcher_check_urls(const rs_matcher *m, const char *urls, const size_t *ends, size_t n,
                                unsigned flags, int8_t *disallowed, uint32_t *lines)
{
    if (n == 0) return RS_OK;
    RS_RETURN_IF(m == NULL || ends == NULL || disallowed == NULL || (urls == NULL && ends[n - 1] > 0) ||
                 !ends_ok(ends, n), RS_ERR_USAGE);
    char stack[SCRATCH_FOR(STACK_URL)];
    char *heap = NULL;
    size_t heap_cap = 0;
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        const size_t len = ends[i] - start;
        char *scratch = scratch_for(len, stack, &heap, &heap_cap);
        if (scratch == NULL) return RS_ERR_NOMEM;
        rs_verdict v;
        match_url(m, len ? urls + start : "", len, flags, scratch, &v);
        disallowed[i] = (int8_t)v.disallowed;
        if (lines) lines[i] = v.line;
        start = ends[i];
    }
    rs_free(heap);
    return RS_OK;
}

rs_status rs_check(const void *body, size_t body_size, const char *agent, size_t agent_len,
                   const char *url, size_t url_len, unsigned flags, rs_check_result *out,
                   char *rule, size_t rule_cap)
{
    RS_RETURN_IF(out == NULL || (body == NULL && body_size > 0) || (agent == NULL && agent_len > 0) ||
                 (url == NULL && url_len > 0) || (rule == NULL && rule_cap > 0), RS_ERR_USAGE);
    memset(out, 0, sizeof *out);
    if (rule_cap) rule[0] = '\0';
    rs_ruleset *rs = NULL;
    rs_matcher *m = NULL;
    rs_status st = rs_ruleset_parse(body ? body : "", body_size, &rs);
    if (st != RS_OK) goto out;
    st = rs_matcher_create(rs, agent ? agent : "", agent_len, RS_SEMANTICS_GOOGLE, &m);
    if (st != RS_OK) goto out;
    rs_verdict v;
    st = rs_matcher_check_url(m, url, url_len, flags, &v);
    if (st != RS_OK) goto out;
    out->disallowed = v.disallowed;
    out->line = v.line;
    rs_rule_info info;
    if (v.rule >= 0 && rs_matcher_rule(m, v.rule, &info) == RS_OK) {
        out->rule_type = info.type;
        out->rule_len = info.pattern.len;
        if (rule_cap) {
            const size_t k = RS_MIN(info.pattern.len, rule_cap - 1);
            memcpy(rule, info.pattern.ptr, k);
            rule[k] = '\0';
        }
    }
out:
    rs_matcher_free(m);
    rs_ruleset_free(rs);
    return st;
}

rs_status rs_sites_check_urls(rs_sites *s, const char *agent, size_t agent_len, const char *urls,
                              const size_t *ends, size_t n, unsigned flags, int8_t *disallowed,
                              uint32_t *lines, uint8_t *reasons)
{
    if (n == 0) return RS_OK;
    RS_RETURN_IF(s == NULL || ends == NULL || disallowed == NULL || (agent == NULL && agent_len > 0) ||
                 (urls == NULL && ends[n - 1] > 0) || !ends_ok(ends, n), RS_ERR_USAGE);
    char stack[SCRATCH_FOR(STACK_URL)];
    char *heap = NULL;
    size_t heap_cap = 0;
    char odst[RS_ORIGIN_MAX];
    char prev[RS_ORIGIN_MAX];      /* the previous URL's origin, to skip repeated lookups */
    size_t prev_len = 0;
    int have_prev = 0;
    rs_site_result site;
    memset(&site, 0, sizeof site);
    rs_status st = RS_OK;
    size_t start = 0;
    for (size_t i = 0; i < n; i++) {
        const size_t len = ends[i] - start;
        const char *url = len ? urls + start : "";
        start = ends[i];
        rs_origin o;
        st = rs_origin_parse(url, len, odst, sizeof odst, &o);
        if (st != RS_OK) goto out;
        int8_t d;
        uint32_t line = 0;
        rs_reason reason;
        if (o.error != RS_ORIGIN_OK) {
            d = RS_VERDICT_MALFORMED;
            reason = RS_REASON_NO_ROBOTS;
        } else {
            if (!have_prev || o.origin.len != prev_len || memcmp(o.origin.ptr, prev, prev_len) != 0) {
                st = rs_site_lookup(s, &o, agent ? agent : "", agent_len, &site);
                if (st != RS_OK) goto out;
                memcpy(prev, o.origin.ptr, o.origin.len);
                prev_len = o.origin.len;
                have_prev = 1;
            }
            if (site.matcher == NULL) {
                d = RS_VERDICT_NO_ROBOTS;
                reason = RS_REASON_NO_ROBOTS;
            } else {
                char *scratch = scratch_for(len, stack, &heap, &heap_cap);
                if (scratch == NULL) { st = RS_ERR_NOMEM; goto out; }
                rs_verdict v;
                match_url(site.matcher, url, len, flags, scratch, &v);
                d = (int8_t)v.disallowed;
                line = v.line;
                reason = rs_site_reason(&site, &v);
            }
        }
        disallowed[i] = d;
        if (lines) lines[i] = line;
        if (reasons) reasons[i] = (uint8_t)reason;
    }
out:
    rs_free(heap);
    return st;
}
