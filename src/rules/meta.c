/*
 * meta.c - what a robots.txt says besides its rules: Sitemap: lines, the
 * Crawl-delay, Request-rate and Visit-time of the groups that apply to an
 * agent, and Yandex's Host: line.
 *
 * Everything is read from the ruleset the parser's events built (ruleset.c
 * keeps every unknown key with its group and every Sitemap: line), so there
 * is no second parse. Groups apply as they do for the rules (SPEC 2.2.13):
 * the groups naming the agent, else the `*` groups. Among the applying
 * groups' lines of a key, the first (file order) whose value reads wins;
 * one that does not read is skipped, as survey's crawl-delay does (SPEC 10).
 * Values of unknown keys are as the parser keeps them (canonical, SPEC 2.1.8).
 */
#include "rules/ruleset.h"

size_t rs_ruleset_sitemaps(const rs_ruleset *rs, rs_sitemap_entry *out, size_t cap)
{
    if (rs == NULL) return 0;
    for (uint32_t i = 0; i < rs->n_sitemaps && i < cap; i++) {
        out[i].url = rs_ruleset_str(rs, rs->sitemaps[i].value);
        out[i].line = rs->sitemaps[i].line;
    }
    return rs->n_sitemaps;
}

static int key_is(const rs_str k, const char *name)
{
    return rs_ieq(k.ptr, k.len, name, strlen(name));
}

int rs_ruleset_host(const rs_ruleset *rs, rs_str *value, uint32_t *line)
{
    if (rs == NULL) return 0;
    for (uint32_t i = 0; i < rs->n_extras; i++) {
        const rs_extra_record *e = &rs->extras[i];
        if (!key_is(rs_ruleset_str(rs, e->key), "host")) continue;
        const rs_str v = rs_ruleset_str(rs, e->value);
        if (v.len == 0) continue;
        if (value) *value = v;
        if (line) *line = e->line;
        return 1;
    }
    return 0;
}

/* ----- value readers: each returns 1 and fills its output when @v reads whole ----- */

static size_t skip_space(const rs_str v, size_t i)
{
    while (i < v.len && (v.ptr[i] == ' ' || v.ptr[i] == '\t')) i++;
    return i;
}

/* digits[.digits] or .digits -> *out; @return the index after it, or 0 when none. */
static size_t read_decimal(const rs_str v, size_t i, double *out)
{
    const size_t start = i;
    double x = 0;
    int digits = 0;
    while (i < v.len && v.ptr[i] >= '0' && v.ptr[i] <= '9') {
        x = x * 10 + (v.ptr[i++] - '0');
        digits++;
    }
    if (i < v.len && v.ptr[i] == '.') {
        size_t j = i + 1;
        double scale = 0.1;
        int frac = 0;
        while (j < v.len && v.ptr[j] >= '0' && v.ptr[j] <= '9') {
            x += (v.ptr[j++] - '0') * scale;
            scale /= 10;
            frac++;
        }
        if (frac || digits) i = j;
        digits += frac;
    }
    if (digits == 0) return 0;
    *out = x;
    return i > start ? i : 0;
}

/* HHMM or HH:MM -> minutes since 00:00; @return the index after it, or 0. */
static size_t read_clock(const rs_str v, size_t i, int32_t *minutes)
{
    int d[4], n = 0;
    while (n < 4 && i < v.len) {
        if (v.ptr[i] >= '0' && v.ptr[i] <= '9') d[n++] = v.ptr[i++] - '0';
        else if (n == 2 && v.ptr[i] == ':') i++;
        else break;
    }
    if (n != 4) return 0;
    const int h = d[0] * 10 + d[1], m = d[2] * 10 + d[3];
    if (h > 23 || m > 59) return 0;
    *minutes = h * 60 + m;
    return i;
}

/* "HHMM-HHMM" (spaces allowed around '-') from @i to the end of @v. */
static int read_window(const rs_str v, size_t i, int32_t *start, int32_t *end)
{
    i = read_clock(v, i, start);
    if (i == 0) return 0;
    i = skip_space(v, i);
    if (i >= v.len || v.ptr[i] != '-') return 0;
    i = read_clock(v, skip_space(v, i + 1), end);
    return i != 0 && skip_space(v, i) == v.len;
}

static int read_delay(const rs_str v, void *out)
{
    double d;
    const size_t i = read_decimal(v, 0, &d);
    if (i == 0 || i != v.len) return 0;
    *(double *)out = d;
    return 1;
}

/* N/S[unit][ window]: N digits, S decimal, unit s m h d (any case; s when none). */
static int read_rate(const rs_str v, void *out)
{
    rs_request_rate *r = out;
    size_t i = 0;
    uint64_t n = 0;
    while (i < v.len && v.ptr[i] >= '0' && v.ptr[i] <= '9' && n <= UINT32_MAX)
        n = n * 10 + (uint64_t)(v.ptr[i++] - '0');
    if (i == 0 || n > UINT32_MAX) return 0;
    i = skip_space(v, i);
    if (i >= v.len || v.ptr[i] != '/') return 0;
    double s;
    i = read_decimal(v, skip_space(v, i + 1), &s);
    if (i == 0) return 0;
    if (i < v.len) {
        switch (v.ptr[i] | 0x20) {
        case 's': i++; break;
        case 'm': s *= 60; i++; break;
        case 'h': s *= 3600; i++; break;
        case 'd': s *= 86400; i++; break;
        default: break;
        }
    }
    r->start = r->end = -1;
    const size_t w = skip_space(v, i);
    if (w < v.len) {
        if (w == i || !read_window(v, w, &r->start, &r->end)) return 0;
    }
    r->requests = (uint32_t)n;
    r->seconds = s;
    return 1;
}

static int read_visit(const rs_str v, void *out)
{
    rs_visit_time *t = out;
    return read_window(v, 0, &t->start, &t->end);
}

/* The first line of the applying groups whose key is one of @keys and whose
 * value @read accepts. @return 1 (and *@line, *@value) or 0. */
static int group_lookup(const rs_ruleset *rs, const char *agent, size_t agent_len,
                        const char *const *keys, int (*read)(rs_str, void *), void *out,
                        uint32_t *line, rs_str *value)
{
    if (rs == NULL || rs->n_groups == 0 || (agent == NULL && agent_len)) return 0;
    if (agent == NULL) agent = "";
    uint8_t stack[256];
    uint8_t *selected = rs->n_groups <= sizeof stack ? stack : rs_malloc(rs->n_groups);
    if (selected == NULL) return 0;
    rs_ruleset_select(rs, agent, agent_len, selected);
    int found = 0;
    for (uint32_t i = 0; i < rs->n_extras && !found; i++) {
        const rs_extra_record *e = &rs->extras[i];
        if (e->group == UINT32_MAX || !selected[e->group]) continue;
        const rs_str k = rs_ruleset_str(rs, e->key);
        int hit = 0;
        for (const char *const *key = keys; *key && !hit; key++) hit = key_is(k, *key);
        if (!hit) continue;
        const rs_str v = rs_ruleset_str(rs, e->value);
        if (!read(v, out)) continue;
        *line = e->line;
        *value = v;
        found = 1;
    }
    if (selected != stack) rs_free(selected);
    return found;
}

static const char *const crawl_delay_keys[] = { "crawl-delay", NULL };
static const char *const request_rate_keys[] = { "request-rate", "request rate", NULL };
static const char *const visit_time_keys[] = { "visit-time", "visit time", NULL };

int rs_ruleset_crawl_delay(const rs_ruleset *rs, const char *agent, size_t agent_len,
                           double *seconds, uint32_t *line)
{
    double d = 0;
    uint32_t ln = 0;
    rs_str v;
    if (!group_lookup(rs, agent, agent_len, crawl_delay_keys, read_delay, &d, &ln, &v)) return 0;
    if (seconds) *seconds = d;
    if (line) *line = ln;
    return 1;
}

int rs_ruleset_request_rate(const rs_ruleset *rs, const char *agent, size_t agent_len,
                            rs_request_rate *out)
{
    rs_request_rate r;
    memset(&r, 0, sizeof r);
    if (!group_lookup(rs, agent, agent_len, request_rate_keys, read_rate, &r, &r.line, &r.value))
        return 0;
    if (out) *out = r;
    return 1;
}

int rs_ruleset_visit_time(const rs_ruleset *rs, const char *agent, size_t agent_len,
                          rs_visit_time *out)
{
    rs_visit_time t;
    memset(&t, 0, sizeof t);
    if (!group_lookup(rs, agent, agent_len, visit_time_keys, read_visit, &t, &t.line, &t.value))
        return 0;
    if (out) *out = t;
    return 1;
}
