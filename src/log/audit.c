/*
 * audit.c - the per-hit decision of `robotscan logs` and `diff --logs`
 * (rs_log_auditor): a parsed log line -> the origin of its site -> the
 * crawler its User-Agent names (or, with published ranges and no user agent,
 * its client IP), verified against the ranges -> the URL and path -> the
 * verdict of the robots.txt group the crawler follows, the deciding rule and
 * the crawl-delay that binds the hit.
 *
 * Does not: parse lines (logparse.c), count, filter by agent, keep hits for
 * the crawl-delay pass, or render records (the commands do). One auditor per
 * thread; many share one rs_sites.
 *
 * Logs repeat a few sites, a few hundred user agents and a handful of group
 * agents endlessly, so an auditor remembers: the origin of the last line's
 * host, port and scheme; the bot identifier per ruleset; what each user agent
 * was identified as (2-way cache keyed by XXH3 and checked byte for byte, the
 * last one first); the site lookup per group agent of the current origin; the
 * crawl-delay per (ruleset, group agent). Every memo is exact: a hit is the
 * answer the full computation would give. No allocation per line once the
 * buffers have grown to the longest URL.
 */
#include "common/common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#define XXH_INLINE_ALL
#include <xxhash.h>

typedef struct {
    const rs_ruleset *rs;
    rs_botid *botid;
} botid_entry;

#define UA_CACHE_SLOTS 2048        /* pairs of slots (2-way): a few hundred agents fit */
#define UA_CACHE_MAX 240
typedef struct {
    uint64_t hash;
    uint16_t len;          /* 0 = empty slot */
    uint8_t  is_bot;
    rs_bot   bot;
    char     ua[UA_CACHE_MAX];
} ua_slot;

#define SITE_MEMO 8
#define DELAY_MEMO 16

struct rs_log_auditor {
    rs_log_audit_config cfg;
    size_t host_len;
    /* the origin of the last line */
    char last_scheme[8];
    size_t last_scheme_len;
    char last_key[RS_ORIGIN_MAX + 16];    /* scheme + host + port of the last line */
    size_t last_key_len;
    char last_host[256], last_port[8];    /* raw fields of the last line (fast path) */
    size_t last_host_len, last_port_len;
    rs_origin last_origin;                /* slices into last_origin_buf */
    char last_origin_buf[RS_ORIGIN_MAX];
    int last_origin_ok;
    int last_fixed;                       /* last origin: cfg.host, the line had no host, port, scheme */
    /* the current origin's ruleset and identifier */
    int base_ready;
    rs_botid *botid;
    botid_entry *botids;
    size_t n_botids;
    ua_slot *ua_cache;                    /* for botid; NULL until first use */
    const rs_botid *ua_cache_for;
    const ua_slot *ua_last;
    struct { const char *group; size_t len; rs_site_result site; } sites[SITE_MEMO];
    size_t n_sites;
    struct { const rs_ruleset *rs; const char *agent; size_t len; double delay; } delays[DELAY_MEMO];
    const rs_ruleset *delay_rs;           /* the last crawl-delay read */
    char delay_agent[64];
    double delay;
    /* per-hit buffers */
    char *url, *rule, *scratch;
    size_t url_cap, rule_cap, scratch_cap;
};

rs_status rs_log_auditor_create(const rs_log_audit_config *cfg, rs_log_auditor **out)
{
    RS_RETURN_IF(cfg == NULL || out == NULL || cfg->sites == NULL, RS_ERR_USAGE);
    *out = NULL;
    rs_log_auditor *a = rs_calloc(1, sizeof *a);
    RS_RETURN_IF(a == NULL, RS_ERR_NOMEM);
    a->cfg = *cfg;
    if (a->cfg.scheme == NULL) a->cfg.scheme = "https";
    a->host_len = cfg->host ? strlen(cfg->host) : 0;
    *out = a;
    return RS_OK;
}

void rs_log_auditor_free(rs_log_auditor *a)
{
    if (a == NULL) return;
    for (size_t i = 0; i < a->n_botids; i++) rs_botid_free(a->botids[i].botid);
    rs_free(a->botids);
    rs_free(a->ua_cache);
    rs_free(a->url);
    rs_free(a->rule);
    rs_free(a->scratch);
    rs_free(a);
}

/* Grows *buf to hold @need bytes. */
static rs_status reserve(char **buf, size_t *cap, size_t need)
{
    if (*cap >= need) return RS_OK;
    const size_t n = need + 64;
    char *p = rs_realloc(*buf, n);
    RS_RETURN_IF(p == NULL, RS_ERR_NOMEM);
    *buf = p;
    *cap = n;
    return RS_OK;
}

/* The bot identifier for a site's ruleset (NULL: built-in table only), cached. */
static rs_status botid_for(rs_log_auditor *a, const rs_ruleset *rs, rs_botid **out)
{
    for (size_t i = 0; i < a->n_botids; i++)
        if (a->botids[i].rs == rs) { *out = a->botids[i].botid; return RS_OK; }
    rs_str stack[256];
    rs_str *cands = stack;
    size_t n = rs ? rs_ruleset_tokens(rs, stack, 256) : 0;
    if (n > 256) {
        cands = rs_malloc(n * sizeof *cands);
        RS_RETURN_IF(cands == NULL, RS_ERR_NOMEM);
        rs_ruleset_tokens(rs, cands, n);
    }
    rs_botid *b = NULL;
    rs_status st = rs_botid_create(cands, n, &b);
    if (cands != stack) rs_free(cands);
    RS_FORWARD(st);
    botid_entry *e = rs_realloc(a->botids, (a->n_botids + 1) * sizeof *e);
    if (e == NULL) {
        rs_botid_free(b);
        return RS_ERR_NOMEM;
    }
    a->botids = e;
    e[a->n_botids].rs = rs;
    e[a->n_botids].botid = b;
    a->n_botids++;
    *out = b;
    return RS_OK;
}

/* rs_bot_identify through the auditor's cache. */
static int identify(rs_log_auditor *a, const char *ua, size_t len, rs_bot *bot)
{
    if (len == 0 || len > UA_CACHE_MAX) return rs_bot_identify(a->botid, ua, len, bot);
    if (a->ua_cache == NULL) {
        a->ua_cache = rs_calloc(UA_CACHE_SLOTS, sizeof *a->ua_cache);
        if (a->ua_cache == NULL) return rs_bot_identify(a->botid, ua, len, bot);
    }
    if (a->ua_cache_for != a->botid) {
        for (size_t i = 0; i < UA_CACHE_SLOTS; i++) a->ua_cache[i].len = 0;
        a->ua_cache_for = a->botid;
        a->ua_last = NULL;
    }
    /* Lines of one client come in runs: the last user agent again, no hash. */
    const ua_slot *l = a->ua_last;
    if (l != NULL && l->len == len && memcmp(l->ua, ua, len) == 0) {
        if (l->is_bot) *bot = l->bot;
        return l->is_bot;
    }
    const uint64_t h = XXH3_64bits(ua, len);
    ua_slot *s = &a->ua_cache[h & (UA_CACHE_SLOTS - 2)];
    for (int way = 0; way < 2; way++)
        if (s[way].len == len && s[way].hash == h && memcmp(s[way].ua, ua, len) == 0) {
            a->ua_last = &s[way];
            if (s[way].is_bot) *bot = s[way].bot;
            return s[way].is_bot;
        }
    if (s[0].len) s[1] = s[0];    /* the older one goes */
    a->ua_last = s;
    const int is_bot = rs_bot_identify(a->botid, ua, len, bot);
    s->hash = h;
    s->len = (uint16_t)len;
    s->is_bot = (uint8_t)is_bot;
    if (is_bot) s->bot = *bot;
    memcpy(s->ua, ua, len);
    return is_bot;
}

/* Finds the origin of the line's site; 0 when it has none. */
static int line_origin(rs_log_auditor *a, const rs_logrec *rec)
{
    /* cfg.host and lines without a host, port or scheme (combined): one origin. */
    const rs_str lscheme = a->cfg.line_scheme ? rec->scheme : (rs_str){ "", 0 };
    const int fixed = rec->host.len == 0 && rec->port.len == 0 && lscheme.len == 0;
    if (fixed && a->last_fixed) return a->last_origin_ok;
    rs_str host = rec->host;
    if (host.len == 0) host = (rs_str){ a->cfg.host, a->host_len };
    if (host.len == 0) return 0;
    rs_str port = rec->port;
    const rs_str rscheme = lscheme.len < sizeof a->last_scheme ? lscheme : (rs_str){ "", 0 };
    /* Most logs are of one site: skip everything when host and port repeat. */
    if (a->last_key_len && host.len == a->last_host_len && port.len == a->last_port_len
        && rscheme.len == a->last_scheme_len && memcmp(rscheme.ptr, a->last_scheme, rscheme.len) == 0
        && memcmp(host.ptr, a->last_host, host.len) == 0 && memcmp(port.ptr, a->last_port, port.len) == 0)
        return a->last_origin_ok;
    memcpy(a->last_scheme, rscheme.ptr, rscheme.len);
    a->last_scheme_len = rscheme.len;
    if (host.len <= sizeof a->last_host && port.len <= sizeof a->last_port) {
        memcpy(a->last_host, host.ptr, host.len);
        memcpy(a->last_port, port.ptr, port.len);
        a->last_host_len = host.len;
        a->last_port_len = port.len;
    } else {
        a->last_host_len = (size_t)-1; /* never equal: no fast path */
    }
    /* the rule `robotscan shard --logs` follows too (site_origin.c) */
    char key[RS_ORIGIN_MAX + 16];
    const size_t n = rs_log_origin_key(a->cfg.scheme, rscheme, host, port, key, sizeof key);
    if (n == 0) return 0;
    a->last_fixed = 0;
    if (n == a->last_key_len && memcmp(key, a->last_key, n) == 0) {
        a->last_fixed = fixed;
        return a->last_origin_ok;
    }
    memcpy(a->last_key, key, n);
    a->last_key_len = n;
    a->last_origin_ok = 0;
    a->base_ready = 0;
    a->n_sites = 0;
    a->last_fixed = fixed;
    if (rs_origin_parse(key, n, a->last_origin_buf, sizeof a->last_origin_buf, &a->last_origin) != RS_OK
        || a->last_origin.error != RS_ORIGIN_OK)
        return 0;
    a->last_origin_ok = 1;
    return 1;
}

rs_status rs_log_audit_bot(rs_log_auditor *a, const rs_logrec *rec, rs_log_hit *hit)
{
    RS_RETURN_IF(a == NULL || rec == NULL || hit == NULL, RS_ERR_USAGE);
    hit->kind = RS_LOGHIT_NO_SITE;
    hit->verified = RS_VERIFIED_UNKNOWN;
    hit->by_ip = 0;
    hit->origin = NULL;
    if (!line_origin(a, rec)) return RS_OK;
    hit->origin = &a->last_origin;
    hit->kind = RS_LOGHIT_NOT_BOT;
    /* The site's ruleset gives the candidate tokens of the bot identifier. */
    if (!a->base_ready) {
        rs_site_result base;
        RS_FORWARD(rs_site_lookup(a->cfg.sites, &a->last_origin, "", 0, &base));
        RS_FORWARD(botid_for(a, base.ruleset, &a->botid));
        a->base_ready = 1;
    }
    const rs_ipranges *ranges = a->cfg.ranges;
    if (rec->user_agent.len == 0 && ranges != NULL) {
        /* No user agent (common format): the published ranges say whose IP it is. */
        rs_str owner;
        if (!rs_ipranges_owner(ranges, rec->client.ptr, rec->client.len, &owner)
            || !identify(a, owner.ptr, owner.len, &hit->bot))
            return RS_OK;
        hit->by_ip = 1;
        hit->verified = RS_VERIFIED_YES;
    } else if (!identify(a, rec->user_agent.ptr, rec->user_agent.len, &hit->bot)) {
        return RS_OK;
    } else if (ranges != NULL) {
        const int c = rs_ipranges_check(ranges, hit->bot.token.ptr, hit->bot.token.len, rec->client.ptr,
                                        rec->client.len);
        hit->verified = c > 0 ? RS_VERIFIED_YES : c == 0 ? RS_VERIFIED_NO : RS_VERIFIED_UNKNOWN;
    }
    hit->kind = RS_LOGHIT_BOT;
    return RS_OK;
}

rs_status rs_log_audit_url(rs_log_auditor *a, const rs_logrec *rec, rs_log_hit *hit)
{
    RS_RETURN_IF(a == NULL || rec == NULL || hit == NULL || hit->kind != RS_LOGHIT_BOT, RS_ERR_USAGE);
    const rs_origin *origin = &a->last_origin;
    /* The URL: the request target, absolute already or under the origin. */
    const rs_str t = rec->target;
    const int absolute = t.len >= 7 && (strncasecmp(t.ptr, "http://", 7) == 0
                                        || (t.len >= 8 && strncasecmp(t.ptr, "https://", 8) == 0));
    const size_t head = absolute ? 0 : origin->origin.len;
    RS_FORWARD(reserve(&a->url, &a->url_cap, head + t.len + 1));
    if (head) memcpy(a->url, origin->origin.ptr, head);
    if (t.len) memcpy(a->url + head, t.ptr, t.len);
    const size_t url_len = head + t.len;
    hit->url = (rs_str){ a->url, url_len };
    RS_FORWARD(reserve(&a->scratch, &a->scratch_cap, url_len + 2));
    hit->path = rs_url_path(a->url, url_len, a->scratch, a->scratch_cap);
    hit->robots_fetch = hit->path.len >= 11 && memcmp(hit->path.ptr, "/robots.txt", 11) == 0
                        && (hit->path.len == 11 || hit->path.ptr[11] == '?');
    /* The group the crawler follows; some crawlers ignore '*' groups. */
    hit->group = rs_bot_group_agent(a->botid, &hit->bot);
    hit->bound = !((hit->bot.flags & RS_BOT_IGNORES_STAR) && !(hit->bot.flags & RS_BOT_GROUP_NAMED));
    return RS_OK;
}

/* Crawl-delay (seconds) of the groups @agent follows in @rs; 0 when none. */
static double crawl_delay_read(rs_log_auditor *a, const rs_ruleset *rs, rs_str agent)
{
    if (rs == a->delay_rs && agent.len < sizeof a->delay_agent && strlen(a->delay_agent) == agent.len
        && memcmp(a->delay_agent, agent.ptr, agent.len) == 0)
        return a->delay;
    double d = 0;
    rs_str v;
    if (rs_ruleset_group_value(rs, agent.ptr, agent.len, "crawl-delay", &v) && v.len < 32) {
        char tmp[32];
        memcpy(tmp, v.ptr, v.len);
        tmp[v.len] = '\0';
        char *end;
        d = strtod(tmp, &end);
        if (end == tmp || *end != '\0' || !(d > 0) || !isfinite(d)) d = 0; /* non-numeric: ignored */
    }
    a->delay_rs = rs;
    if (agent.len < sizeof a->delay_agent) {
        memcpy(a->delay_agent, agent.ptr, agent.len);
        a->delay_agent[agent.len] = '\0';
    } else {
        a->delay_rs = NULL;
    }
    a->delay = d;
    return d;
}

/* crawl_delay_read, remembered per (ruleset, group agent bytes of the identifier). */
static double crawl_delay(rs_log_auditor *a, const rs_ruleset *rs, rs_str agent)
{
    if (rs == NULL) return 0;
    const size_t slot = ((uintptr_t)agent.ptr >> 3 ^ (uintptr_t)rs >> 4) & (DELAY_MEMO - 1);
    if (a->delays[slot].rs == rs && a->delays[slot].agent == agent.ptr && a->delays[slot].len == agent.len)
        return a->delays[slot].delay;
    const double d = crawl_delay_read(a, rs, agent);
    a->delays[slot].rs = rs;
    a->delays[slot].agent = agent.ptr;
    a->delays[slot].len = agent.len;
    a->delays[slot].delay = d;
    return d;
}

/* rs_site_lookup for the current origin and @group, remembered per origin. */
static rs_status site_for_group(rs_log_auditor *a, rs_str group, rs_site_result *site)
{
    for (size_t i = 0; i < a->n_sites; i++)
        if (a->sites[i].group == group.ptr && a->sites[i].len == group.len) {
            *site = a->sites[i].site;
            return RS_OK;
        }
    RS_FORWARD(rs_site_lookup(a->cfg.sites, &a->last_origin, group.ptr, group.len, site));
    const size_t slot = a->n_sites < SITE_MEMO ? a->n_sites++ : (size_t)(group.len & (SITE_MEMO - 1));
    a->sites[slot].group = group.ptr;
    a->sites[slot].len = group.len;
    a->sites[slot].site = *site;
    return RS_OK;
}

rs_status rs_log_audit_decide(rs_log_auditor *a, const rs_logrec *rec, rs_log_hit *hit)
{
    RS_FORWARD(rs_log_audit_url(a, rec, hit));
    hit->verdict = (rs_verdict){ 0, 0, -1 };
    hit->matcher = NULL;
    hit->delay = 0;
    hit->rule = (rs_str){ "", 0 };
    memset(&hit->site, 0, sizeof hit->site);
    if (!hit->bound) {
        hit->reason = hit->robots_fetch ? "robots-txt" : "no-match";
        return RS_OK;
    }
    RS_FORWARD(site_for_group(a, hit->group, &hit->site));
    if (hit->robots_fetch) {
        hit->reason = "robots-txt";   /* never a violation; counts in the crawl-delay spacing */
    } else {
        hit->matcher = hit->site.matcher;
        if (hit->matcher) rs_matcher_match(hit->matcher, hit->path.ptr, hit->path.len, &hit->verdict);
        hit->reason = rs_reason_str(rs_site_reason(&hit->site, hit->matcher ? &hit->verdict : NULL));
    }
    hit->delay = crawl_delay(a, hit->site.ruleset, hit->group);
    rs_rule_info info;
    if (hit->matcher && hit->verdict.rule >= 0 && rs_matcher_rule(hit->matcher, hit->verdict.rule, &info) == RS_OK) {
        const size_t len = rs_rule_text(&info, NULL, 0);
        RS_FORWARD(reserve(&a->rule, &a->rule_cap, len + 1));
        hit->rule = (rs_str){ a->rule, rs_rule_text(&info, a->rule, len + 1) };
    }
    return RS_OK;
}
