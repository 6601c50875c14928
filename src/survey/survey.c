/*
 * survey.c - what one robots.txt says to many crawlers (SPEC 10): the class
 * (blocked / partial / open), which group applies (named / star / none), the
 * group's crawl-delay; and whether a Sitemap value is an absolute URL.
 *
 * One parse serves every agent: agents that no group names all get the `*`
 * groups, so their answer is computed once per file.
 */
#include "rules/ruleset.h"

#include <stdio.h>

const char *rs_survey_class_str(rs_survey_class c)
{
    switch (c) {
    case RS_CLASS_BLOCKED:     return "blocked";
    case RS_CLASS_PARTIAL:     return "partial";
    case RS_CLASS_OPEN:        return "open";
    case RS_CLASS_UNAVAILABLE: return "unavailable";
    case RS_CLASS_UNREACHABLE: return "unreachable";
    }
    return "unknown";
}

const char *rs_survey_group_str(rs_survey_group g)
{
    switch (g) {
    case RS_GROUP_NAMED: return "named";
    case RS_GROUP_STAR:  return "star";
    case RS_GROUP_NONE:  return "none";
    }
    return "unknown";
}

/* A pattern that starts with neither '/' nor '*' (or is empty) matches no path. */
static int can_match(rs_str p) { return p.len > 0 && (p.ptr[0] == '/' || p.ptr[0] == '*'); }

/*
 * Does a pattern match every path (every path starts with '/')? Without a
 * final '$': only '*'s and at most one '/', which no literal precedes. With
 * one: the same, and the last byte before the '$' is a '*'.
 */
static int matches_all(rs_str p)
{
    size_t n = p.len;
    int anchored = 0;
    if (n > 0 && p.ptr[n - 1] == '$') { anchored = 1; n--; }
    if (n == 0) return 0;
    int slash = 0;
    for (size_t i = 0; i < n; i++) {
        if (p.ptr[i] == '*') continue;
        if (p.ptr[i] == '/' && !slash) { slash = 1; continue; }
        return 0;
    }
    return !anchored || p.ptr[n - 1] == '*';
}

/* The cut of the reference's "/dir/index.htm*" retry (SPEC 2.4.20), or 0. */
static size_t index_htm_cut(rs_str p)
{
    for (size_t i = p.len; i > 0; i--) {
        if (p.ptr[i - 1] != '/') continue;
        const size_t rest = p.len - (i - 1);
        return rest >= 10 && memcmp(p.ptr + i - 1, "/index.htm", 10) == 0 ? i : 0;
    }
    return 0;
}

static rs_survey_class classify(const rs_ruleset *rs, const uint8_t *selected)
{
    size_t best_all = 0, best_allow = 0;
    int any_disallow = 0;
    for (uint32_t i = 0; i < rs->n_rules; i++) {
        const rs_rule_record *r = &rs->rules[i];
        if (!selected[r->group]) continue;
        const rs_str p = rs_ruleset_str(rs, r->pattern);
        if (!can_match(p)) continue;
        if (r->type == RS_RULE_DISALLOW) {
            any_disallow = 1;
            if (matches_all(p) && p.len > best_all) best_all = p.len;
        } else {
            if (p.len > best_allow) best_allow = p.len;
            const size_t cut = index_htm_cut(p);   /* "/dir/$": shorter, counted all the same */
            if (cut && cut + 1 > best_allow) best_allow = cut + 1;
        }
    }
    if (!any_disallow) return RS_CLASS_OPEN;
    if (best_all > 0 && best_allow < best_all) return RS_CLASS_BLOCKED;
    return RS_CLASS_PARTIAL;
}

/* A decimal number: digits with an optional fraction ("10", "0.5", "2.", ".5"). */
static int is_decimal(rs_str v)
{
    size_t i = 0, int_digits = 0, frac_digits = 0;
    while (i < v.len && v.ptr[i] >= '0' && v.ptr[i] <= '9') { i++; int_digits++; }
    if (i < v.len && v.ptr[i] == '.') {
        i++;
        while (i < v.len && v.ptr[i] >= '0' && v.ptr[i] <= '9') { i++; frac_digits++; }
    }
    return i == v.len && (int_digits > 0 || frac_digits > 0);
}

static rs_str crawl_delay(const rs_ruleset *rs, const uint8_t *selected)
{
    for (uint32_t i = 0; i < rs->n_extras; i++) {
        const rs_extra_record *e = &rs->extras[i];
        if (e->group == UINT32_MAX || !selected[e->group]) continue;
        const rs_str k = rs_ruleset_str(rs, e->key);
        if (!rs_ieq(k.ptr, k.len, "crawl-delay", 11)) continue;
        const rs_str v = rs_ruleset_str(rs, e->value);
        if (is_decimal(v)) return v;
    }
    rs_str none = { "", 0 };
    return none;
}

/* A bit of the 1024-bit filter of user-agent names: a name's length, first and last letter (any case). */
static unsigned name_bit(const char *p, size_t len)
{
    return (unsigned)(len * 131 + (size_t)rs_ascii_lower((unsigned char)p[0]) * 7 +
                      (size_t)rs_ascii_lower((unsigned char)p[len - 1])) & 1023;
}

rs_status rs_survey_classify(const rs_ruleset *rs, const rs_str *agents, size_t n, rs_survey_result *out)
{
    RS_RETURN_IF(rs == NULL || (n && (agents == NULL || out == NULL)), RS_ERR_USAGE);
    uint8_t stack[256];
    uint8_t *sel = rs->n_groups <= sizeof stack ? stack : rs_malloc(rs->n_groups);
    RS_RETURN_IF(sel == NULL, RS_ERR_NOMEM);
    int star_done = 0;
    rs_survey_result star;
    memset(&star, 0, sizeof star);
    /* Most agents are named by no group (a file names a handful of the ~160 default
     * agents): the filter of the file's names skips rs_ruleset_select for them. */
    uint64_t names[16], lens = 0;   /* lens: bit L for a name of L bytes (L < 64), bit 63 for longer */
    memset(names, 0, sizeof names);
    for (uint32_t i = 0; i < rs->n_agents; i++) {
        const rs_str tok = rs_ruleset_str(rs, rs->agents[i].token);
        if (rs->agents[i].global || tok.len == 0) continue;
        const unsigned b = name_bit(tok.ptr, tok.len);
        names[b >> 6] |= (uint64_t)1 << (b & 63);
        lens |= (uint64_t)1 << RS_MIN(tok.len, 63);
    }
    for (size_t a = 0; a < n; a++) {
        const size_t al = agents[a].len;
        const int maybe = al && (lens >> RS_MIN(al, 63) & 1);
        const unsigned b = maybe ? name_bit(agents[a].ptr, al) : 0;
        if (maybe && (names[b >> 6] >> (b & 63) & 1) &&
            rs_ruleset_select(rs, agents[a].ptr, agents[a].len, sel)) {
            out[a].group = RS_GROUP_NAMED;
            out[a].cls = classify(rs, sel);
            out[a].crawl_delay = crawl_delay(rs, sel);
            continue;
        }
        if (!star_done) {
            /* No group names the agent: the '*' groups (an agent named by nobody). */
            memset(sel, 0, rs->n_groups);
            int any = 0;
            for (uint32_t i = 0; i < rs->n_agents; i++)
                if (rs->agents[i].global) { sel[rs->agents[i].group] = 1; any = 1; }
            star.group = any ? RS_GROUP_STAR : RS_GROUP_NONE;
            star.cls = any ? classify(rs, sel) : RS_CLASS_OPEN;
            star.crawl_delay = any ? crawl_delay(rs, sel) : (rs_str){ "", 0 };
            star_done = 1;
        }
        out[a] = star;
    }
    if (sel != stack) rs_free(sel);
    return RS_OK;
}

int rs_sitemap_is_valid(const char *url, size_t len)
{
    size_t skip;
    if (rs_istarts(url, len, "http://")) skip = 7;
    else if (rs_istarts(url, len, "https://")) skip = 8;
    else return 0;
    if (len == skip || url[skip] == '/') return 0;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)url[i] <= ' ' || url[i] == 0x7f) return 0;
    /* The authority: no userinfo; a port, if any, of 1 to 5 digits. */
    size_t end = skip;
    while (end < len && url[end] != '/' && url[end] != '?' && url[end] != '#') end++;
    if (memchr(url + skip, '@', end - skip) != NULL) return 0;
    const char *colon = memchr(url + skip, ':', end - skip);
    if (colon != NULL) {
        const size_t digits = (size_t)(url + end - colon - 1);
        if (digits == 0 || digits > 5) return 0;
        for (const char *p = colon + 1; p < url + end; p++)
            if (*p < '0' || *p > '9') return 0;
    }
    char dst[RS_ORIGIN_MAX];
    rs_origin o;
    return rs_origin_parse(url, len, dst, sizeof dst, &o) == RS_OK && o.error == RS_ORIGIN_OK;
}
