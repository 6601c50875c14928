/*
 * cmd_logs.c - `robotscan logs`: access logs + robots sources -> which bot
 * hits broke robots.txt, and which came faster than the crawl-delay.
 *
 * Workers parse lines, identify the crawler from the User-Agent (built-in
 * table + the tokens the site's robots.txt names), match the hit with the
 * rules of the group that crawler follows, count per bot, and format the
 * record without its last column. The main thread keeps records in input
 * order; crawl-delay needs every hit of a (bot, origin) in time order, which
 * merged logs do not give, so delay violations are decided after the whole
 * input is read, and records are written then. Memory grows with the
 * number of bot hits (not of log lines).
 */
#include "cli/cli.h"
#include "cli/pipeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

static const char HELP[] =
    "Usage: robotscan logs --robots PATH [--robots PATH...] [OPTIONS] [FILE...]\n"
    "\n"
    "Reads access logs (plain, .zst or .gz, detected from the content; stdin when no\n"
    "FILE or FILE is -), finds the hits of crawlers, and reports which ones broke the\n"
    "site's robots.txt (disallowed URL) or its Crawl-delay (came sooner than the delay\n"
    "after the same bot's previous hit on the same site).\n"
    "\n"
    "Options:\n"
    "  --robots PATH        robots.txt file, directory of HOST[.txt] files, or manifest .tsv\n"
    "  --host HOST          the site, for logs whose lines do not name it\n"
    "  --scheme S           scheme of the site (default https; vhost logs: port 443 -> https,\n"
    "                       other ports -> http)\n"
    "  --log-format F       combined (default), common, vhost_combined, or an nginx\n"
    "                       log_format string such as '$remote_addr - [$time_local] \"$request\" ...'\n"
    "  --agent TOKEN        audit only this crawler (repeatable)\n"
    "  --format FMT         text, tsv, csv or jsonl (default: text on a terminal, else tsv)\n"
    "  --only violations    print only disallowed or crawl-delay-violating hits\n"
    "  --quiet              print only the per-bot summary\n"
    "  --stats FILE.json    per bot: hits, violations, distinct violated paths, top rules,\n"
    "                       crawl-delay violations, robots.txt fetches; per hour counts\n"
    "  --semantics S        google (default) or first-match\n"
    "  -j, --jobs N         worker threads (default 1)\n"
    "  --verbose            report malformed lines with their line numbers\n"
    "  --html FILE          also write the statistics as an HTML page (see robotscan report)\n"
    "  --progress, --no-progress\n"
    "  --fail-on-violation  exit 1 when any hit is a violation\n"
    "\n"
    "Columns: time, client, origin, agent, user_agent, method, url, status, verdict, line,\n"
    "         rule, reason, delay_violation\n"
    "Hits on /robots.txt itself are never violations (reason robots-txt).\n"
    "Exit status: 0 ok; 1 with --fail-on-violation when a violation was found; 2 usage or I/O error.\n";

static const char *const ACCEPTED[] = {
    "--robots", "--host", "--scheme", "--log-format", "--agent", "--format", "--only", "--quiet",
    "--stats", "--semantics", "-j", "--jobs", "--verbose", "--progress", "--no-progress",
    "--fail-on-violation", "--help", NULL,
};

static const char *const COLUMNS[] = {
    "time", "client", "origin", "agent", "user_agent", "method", "url", "status",
    "verdict", "line", "rule", "reason", "delay_violation",
};
#define N_COLUMNS 13

/* Per-bot counters (the bots tally). */
enum { B_HITS, B_DISALLOWED, B_ROBOTS_FETCHES, B_FIRST_FETCH, B_LAST_FETCH, B_COUNT };
/* Per (bot, hour) counters. */
enum { H_HITS, H_DISALLOWED, H_COUNT };
/* pipeline_counts.extra[] */
enum { X_NON_BOT, X_FILTERED, X_ROBOTS_FETCHES };

/* One bot hit of a block, for the in-order pass. */
typedef struct {
    uint32_t rec_end;      /* end of its record in res->out */
    uint32_t key_len;      /* "bot\torigin" follows the struct in aux, padded to 8 */
    int64_t  epoch;
    double   delay;        /* crawl-delay that binds it, 0 = none */
    uint8_t  disallowed;
    uint8_t  has_time;
    uint8_t  pad[6];
} pending_hit;

typedef struct {
    rs_tally *bots, *paths, *rules, *hours;
} logs_acc;

typedef struct {
    const struct cli_opts *opts;
    rs_sites *sites;
    const rs_logformat *fmt;
    const char *host;
    const char *scheme;
    const char *input_name;
    int only_violations;
    /* in-order state (main thread) */
    rs_outbuf records;     /* all bot-hit records, without the last column */
    uint32_t *rec_end;     /* end offset of each record */
    uint8_t *rec_disallowed;
    size_t n_records, cap_records;
    rs_tally *delay_keys;  /* "bot\torigin" -> [delay in ms] */
    struct delay_entry { uint32_t key; uint32_t rec; int64_t epoch; } *delays;
    size_t n_delays, cap_delays;
} logs_job;

/* ===== Worker state ===== */

typedef struct {
    const rs_ruleset *rs;
    rs_botid *botid;
} botid_entry;

/*
 * Logs repeat a few hundred user agents endlessly: remember what each was
 * identified as. Direct-mapped, keyed by hash and verified by the bytes, so
 * a hit is exact; cleared when the identifier (site) changes.
 */
#define UA_CACHE_SLOTS 1024
#define UA_CACHE_MAX 240
typedef struct {
    uint64_t hash;
    uint16_t len;          /* 0 = empty slot */
    uint8_t  is_bot;
    rs_bot   bot;
    char     ua[UA_CACHE_MAX];
} ua_slot;

typedef struct {
    char origin_buf[RS_ORIGIN_MAX];
    char last_key[RS_ORIGIN_MAX + 16];   /* scheme + host + port of the last line */
    size_t last_key_len;
    char last_host[256], last_port[8];   /* raw fields of the last line (fast path) */
    size_t last_host_len, last_port_len;
    rs_origin last_origin;               /* slices into last_origin_buf */
    char last_origin_buf[RS_ORIGIN_MAX];
    int last_origin_ok;
    int base_ready;                      /* base and botid are for the last origin */
    rs_site_result base;                 /* lookup for the empty agent: the ruleset */
    rs_botid *botid;                     /* for base.ruleset */
    botid_entry *botids;                 /* cache: ruleset -> identifier */
    ua_slot *ua_cache;                   /* for botid; NULL until first use */
    const rs_botid *ua_cache_for;
    size_t n_botids;
    const rs_ruleset *delay_rs;          /* cache of the last crawl-delay lookup */
    char delay_agent[64];
    double delay;
    rs_outbuf url, rule, key;
    char *scratch;
    size_t scratch_cap;
} logs_worker;

static void *worker_new(void) { return calloc(1, sizeof(logs_worker)); }

static void worker_free(void *p)
{
    logs_worker *w = p;
    if (w == NULL) return;
    for (size_t i = 0; i < w->n_botids; i++) rs_botid_free(w->botids[i].botid);
    free(w->botids);
    free(w->ua_cache);
    rs_outbuf_free(&w->url);
    rs_outbuf_free(&w->rule);
    rs_outbuf_free(&w->key);
    free(w->scratch);
    free(w);
}

static void *acc_new(void)
{
    logs_acc *a = calloc(1, sizeof *a);
    if (a == NULL) return NULL;
    if (rs_tally_create(B_COUNT, &a->bots) != RS_OK || rs_tally_create(1, &a->paths) != RS_OK
        || rs_tally_create(1, &a->rules) != RS_OK || rs_tally_create(H_COUNT, &a->hours) != RS_OK) {
        rs_tally_free(a->bots);
        rs_tally_free(a->paths);
        rs_tally_free(a->rules);
        free(a);
        return NULL;
    }
    return a;
}

static void acc_free(void *p)
{
    logs_acc *a = p;
    if (a == NULL) return;
    rs_tally_free(a->bots);
    rs_tally_free(a->paths);
    rs_tally_free(a->rules);
    rs_tally_free(a->hours);
    free(a);
}

/* The bot identifier for a site's ruleset (NULL: built-in table only), cached. */
static rs_status botid_for(logs_worker *w, const rs_ruleset *rs, rs_botid **out)
{
    for (size_t i = 0; i < w->n_botids; i++)
        if (w->botids[i].rs == rs) { *out = w->botids[i].botid; return RS_OK; }
    rs_str stack[256];
    rs_str *cands = stack;
    size_t n = rs ? rs_ruleset_tokens(rs, stack, 256) : 0;
    if (n > 256) {
        cands = malloc(n * sizeof *cands);
        if (cands == NULL) return RS_ERR_NOMEM;
        rs_ruleset_tokens(rs, cands, n);
    }
    rs_botid *b = NULL;
    rs_status st = rs_botid_create(cands, n, &b);
    if (cands != stack) free(cands);
    CLI_TRY(st);
    botid_entry *e = realloc(w->botids, (w->n_botids + 1) * sizeof *e);
    if (e == NULL) {
        rs_botid_free(b);
        return RS_ERR_NOMEM;
    }
    w->botids = e;
    e[w->n_botids].rs = rs;
    e[w->n_botids].botid = b;
    w->n_botids++;
    *out = b;
    return RS_OK;
}

/* Crawl-delay (seconds) of the groups @agent follows in @rs; 0 when none. */
static double crawl_delay(logs_worker *w, const rs_ruleset *rs, rs_str agent)
{
    if (rs == NULL) return 0;
    if (rs == w->delay_rs && agent.len < sizeof w->delay_agent && strlen(w->delay_agent) == agent.len
        && memcmp(w->delay_agent, agent.ptr, agent.len) == 0)
        return w->delay;
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
    w->delay_rs = rs;
    if (agent.len < sizeof w->delay_agent) {
        memcpy(w->delay_agent, agent.ptr, agent.len);
        w->delay_agent[agent.len] = '\0';
    } else {
        w->delay_rs = NULL;
    }
    w->delay = d;
    return d;
}

/* rs_bot_identify through the worker's cache. */
static int identify(logs_worker *w, const char *ua, size_t len, rs_bot *bot)
{
    if (len == 0 || len > UA_CACHE_MAX) return rs_bot_identify(w->botid, ua, len, bot);
    if (w->ua_cache == NULL) {
        w->ua_cache = calloc(UA_CACHE_SLOTS, sizeof *w->ua_cache);
        if (w->ua_cache == NULL) return rs_bot_identify(w->botid, ua, len, bot);
    }
    if (w->ua_cache_for != w->botid) {
        for (size_t i = 0; i < UA_CACHE_SLOTS; i++) w->ua_cache[i].len = 0;
        w->ua_cache_for = w->botid;
    }
    const uint64_t h = XXH3_64bits(ua, len);
    ua_slot *s = &w->ua_cache[h & (UA_CACHE_SLOTS - 1)];
    if (s->len == len && s->hash == h && memcmp(s->ua, ua, len) == 0) {
        if (s->is_bot) *bot = s->bot;
        return s->is_bot;
    }
    const int is_bot = rs_bot_identify(w->botid, ua, len, bot);
    s->hash = h;
    s->len = (uint16_t)len;
    s->is_bot = (uint8_t)is_bot;
    if (is_bot) s->bot = *bot;
    memcpy(s->ua, ua, len);
    return is_bot;
}

static int agent_wanted(const struct cli_opts *o, rs_str token)
{
    if (o->n_agents == 0) return 1;
    for (int i = 0; i < o->n_agents; i++)
        if (strlen(o->agents[i]) == token.len && strncasecmp(o->agents[i], token.ptr, token.len) == 0)
            return 1;
    return 0;
}

static int is_robots_txt(rs_str path)
{
    return path.len >= 11 && memcmp(path.ptr, "/robots.txt", 11) == 0
           && (path.len == 11 || path.ptr[11] == '?');
}

/* UTC "YYYY-MM-DDTHH" (@full = 0) or "YYYY-MM-DDTHH:MM:SSZ". */
static void format_time(char *dst, size_t cap, int64_t epoch, int full)
{
    const time_t t = (time_t)epoch;
    struct tm tm;
    gmtime_r(&t, &tm);
    if (full) strftime(dst, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
    else strftime(dst, cap, "%Y-%m-%dT%H", &tm);
}

/* ===== One line ===== */

/* Finds the origin of the line's site; 0 when it has none (counted by the caller). */
static int line_origin(const logs_job *job, logs_worker *w, const rs_logrec *rec)
{
    rs_str host = rec->host;
    if (host.len == 0) host = (rs_str){ job->host, job->host ? strlen(job->host) : 0 };
    if (host.len == 0) return 0;
    rs_str port = rec->port;
    /* Most logs are of one site: skip everything when host and port repeat. */
    if (w->last_key_len && host.len == w->last_host_len && port.len == w->last_port_len
        && memcmp(host.ptr, w->last_host, host.len) == 0 && memcmp(port.ptr, w->last_port, port.len) == 0)
        return w->last_origin_ok;
    if (host.len <= sizeof w->last_host && port.len <= sizeof w->last_port) {
        memcpy(w->last_host, host.ptr, host.len);
        memcpy(w->last_port, port.ptr, port.len);
        w->last_host_len = host.len;
        w->last_port_len = port.len;
    } else {
        w->last_host_len = (size_t)-1; /* never equal: no fast path */
    }
    const char *scheme = job->scheme;
    if (port.len == 3 && memcmp(port.ptr, "443", 3) == 0) scheme = "https";
    else if (port.len) scheme = "http";
    char key[RS_ORIGIN_MAX + 16];
    const int n = snprintf(key, sizeof key, "%s://%.*s%s%.*s", scheme, (int)host.len, host.ptr,
                           port.len ? ":" : "", (int)port.len, port.ptr);
    if (n < 0 || (size_t)n >= sizeof key) return 0;
    if ((size_t)n == w->last_key_len && memcmp(key, w->last_key, (size_t)n) == 0) return w->last_origin_ok;
    memcpy(w->last_key, key, (size_t)n);
    w->last_key_len = (size_t)n;
    w->last_origin_ok = 0;
    w->base_ready = 0;
    if (rs_origin_parse(key, (size_t)n, w->last_origin_buf, sizeof w->last_origin_buf, &w->last_origin) != RS_OK
        || w->last_origin.error != RS_ORIGIN_OK)
        return 0;
    w->last_origin_ok = 1;
    return 1;
}

static rs_status one_hit(logs_job *job, logs_worker *w, pipeline_result *res, const rs_logrec *rec,
                         uint64_t line_no)
{
    logs_acc *acc = res->user;
    if (!line_origin(job, w, rec)) {
        res->counts.malformed++;
        if (job->opts->verbose)
            pipeline_diag(res, "%s:%llu: no valid site for this line (host '%.*s'), skipped",
                          job->input_name, (unsigned long long)line_no, (int)rec->host.len, rec->host.ptr);
        return RS_OK;
    }
    const rs_origin *origin = &w->last_origin;
    /* The site's ruleset gives the candidate tokens of the bot identifier. */
    if (!w->base_ready) {
        rs_site_result base;
        rs_status st = rs_site_lookup(job->sites, origin, "", 0, &base);
        if (st != RS_OK) {
            pipeline_fail(res, st, "%s", rs_sites_errmsg(job->sites));
            return st;
        }
        w->base = base;
        CLI_TRY(botid_for(w, base.ruleset, &w->botid));
        w->base_ready = 1;
    }
    rs_bot bot;
    if (!identify(w, rec->user_agent.ptr, rec->user_agent.len, &bot)) {
        res->counts.extra[X_NON_BOT]++;
        return RS_OK;
    }
    if (!agent_wanted(job->opts, bot.token)) {
        res->counts.extra[X_FILTERED]++;
        return RS_OK;
    }

    /* The URL: the request target, absolute already or under the origin. */
    w->url.len = 0;
    const rs_str t = rec->target;
    if (!(t.len >= 7 && (strncasecmp(t.ptr, "http://", 7) == 0
                         || (t.len >= 8 && strncasecmp(t.ptr, "https://", 8) == 0))))
        CLI_TRY(rs_outbuf_append(&w->url, origin->origin.ptr, origin->origin.len));
    CLI_TRY(rs_outbuf_append(&w->url, t.ptr, t.len));
    const char *url = w->url.ptr;
    const size_t url_len = w->url.len;
    if (w->scratch_cap < url_len + 2) {
        char *p = realloc(w->scratch, url_len + 64);
        if (p == NULL) return RS_ERR_NOMEM;
        w->scratch = p;
        w->scratch_cap = url_len + 64;
    }
    const rs_str path = rs_url_path(url, url_len, w->scratch, w->scratch_cap);

    /* The group the crawler follows; some crawlers ignore '*' groups. */
    const rs_str group = rs_bot_group_agent(w->botid, &bot);
    const int bound = !((bot.flags & RS_BOT_IGNORES_STAR) && !(bot.flags & RS_BOT_GROUP_NAMED));
    rs_verdict v = { 0, 0, -1 };
    const char *reason;
    const rs_matcher *matcher = NULL;
    double delay = 0;
    const int robots_fetch = is_robots_txt(path);
    if (robots_fetch) {
        reason = "robots-txt";
    } else if (!bound) {
        reason = "no-match";
    } else {
        rs_site_result site;
        rs_status st = rs_site_lookup(job->sites, origin, group.ptr, group.len, &site);
        if (st != RS_OK) {
            pipeline_fail(res, st, "%s", rs_sites_errmsg(job->sites));
            return st;
        }
        matcher = site.matcher;
        if (matcher) rs_matcher_match(matcher, path.ptr, path.len, &v);
        reason = rs_reason_str(rs_site_reason(&site, matcher ? &v : NULL));
        delay = crawl_delay(w, site.ruleset, group);
    }
    const int has_time = (rec->flags & RS_LOGREC_HAS_TIME) != 0;

    /* Counters. */
    res->counts.urls++;
    res->counts.verdict[v.disallowed]++;
    uint32_t ix;
    CLI_TRY(rs_tally_find(acc->bots, bot.token.ptr, bot.token.len, &ix));
    uint64_t *bc = rs_tally_counters(acc->bots, ix);
    bc[B_HITS]++;
    bc[B_DISALLOWED] += (uint64_t)v.disallowed;
    if (robots_fetch) {
        res->counts.extra[X_ROBOTS_FETCHES]++;
        bc[B_ROBOTS_FETCHES]++;
        if (has_time) {
            const uint64_t e = (uint64_t)rec->epoch + 1; /* 0 = none */
            if (bc[B_FIRST_FETCH] == 0 || e < bc[B_FIRST_FETCH]) bc[B_FIRST_FETCH] = e;
            if (e > bc[B_LAST_FETCH]) bc[B_LAST_FETCH] = e;
        }
    }
    rs_outbuf *k = &w->key;
    if (has_time) {
        char hour[32];
        format_time(hour, sizeof hour, rec->epoch, 0);
        k->len = 0;
        CLI_TRY(rs_outbuf_append(k, bot.token.ptr, bot.token.len));
        CLI_TRY(rs_outbuf_append(k, "\t", 1));
        CLI_TRY(rs_outbuf_append(k, hour, strlen(hour)));
        CLI_TRY(rs_tally_find(acc->hours, k->ptr, k->len, &ix));
        rs_tally_counters(acc->hours, ix)[H_HITS]++;
        rs_tally_counters(acc->hours, ix)[H_DISALLOWED] += (uint64_t)v.disallowed;
    }
    rs_str rule = { "", 0 };
    rs_rule_info info;
    if (matcher && v.rule >= 0 && rs_matcher_rule(matcher, v.rule, &info) == RS_OK) {
        w->rule.len = 0;
        const char *kind = info.type == RS_RULE_ALLOW ? "allow: " : "disallow: ";
        CLI_TRY(rs_outbuf_append(&w->rule, kind, strlen(kind)));
        CLI_TRY(rs_outbuf_append(&w->rule, info.pattern.ptr, info.pattern.len));
        rule.ptr = w->rule.ptr;
        rule.len = w->rule.len;
    }
    if (v.disallowed) {
        k->len = 0;
        CLI_TRY(rs_outbuf_append(k, bot.token.ptr, bot.token.len));
        CLI_TRY(rs_outbuf_append(k, "\t", 1));
        CLI_TRY(rs_outbuf_append(k, path.ptr, path.len));
        CLI_TRY(rs_tally_find(acc->paths, k->ptr, k->len, &ix));
        rs_tally_counters(acc->paths, ix)[0]++;
        char num[32];
        snprintf(num, sizeof num, "\t%u\t", v.line);
        k->len = 0;
        CLI_TRY(rs_outbuf_append(k, bot.token.ptr, bot.token.len));
        CLI_TRY(rs_outbuf_append(k, "\t", 1));
        CLI_TRY(rs_outbuf_append(k, origin->origin.ptr, origin->origin.len));
        CLI_TRY(rs_outbuf_append(k, num, strlen(num)));
        CLI_TRY(rs_outbuf_append(k, rule.ptr, rule.len));
        CLI_TRY(rs_tally_find(acc->rules, k->ptr, k->len, &ix));
        rs_tally_counters(acc->rules, ix)[0]++;
    }

    /* The record, without its last column (decided after the whole input). */
    if (!job->opts->quiet) {
        if (job->opts->format == RS_FORMAT_TEXT) {
            char head[160];
            snprintf(head, sizeof head, "%s  %.*s  %.*s  ", v.disallowed ? "DISALLOWED" : "allowed   ",
                     (int)bot.token.len, bot.token.ptr, (int)rec->time.len, rec->time.ptr);
            CLI_TRY(rs_outbuf_append(&res->out, head, strlen(head)));
            CLI_TRY(rs_outbuf_append(&res->out, url, url_len));
            if (v.line) {
                snprintf(head, sizeof head, "  (line %u: ", v.line);
                CLI_TRY(rs_outbuf_append(&res->out, head, strlen(head)));
                CLI_TRY(rs_outbuf_append(&res->out, rule.ptr, rule.len));
                CLI_TRY(rs_outbuf_append(&res->out, ")", 1));
            }
            snprintf(head, sizeof head, "  [%s]", reason);
            CLI_TRY(rs_outbuf_append(&res->out, head, strlen(head)));
        } else {
            const rs_field f[N_COLUMNS - 1] = {
                { rec->time, 0, 0 },
                { rec->client, 0, 0 },
                { origin->origin, 0, 0 },
                { bot.token, 0, 0 },
                { rec->user_agent, 0, 0 },
                { rec->method, 0, 0 },
                { { url, url_len }, 0, 0 },
                { { NULL, 0 }, (uint64_t)rec->status, 1 },
                { { v.disallowed ? "disallow" : "allow", v.disallowed ? 8u : 5u }, 0, 0 },
                { { NULL, 0 }, v.line, 1 },
                { rule, 0, 0 },
                { { reason, strlen(reason) }, 0, 0 },
            };
            CLI_TRY(rs_format_record(&res->out, job->opts->format, COLUMNS, f, N_COLUMNS - 1));
            res->out.len--;                                        /* the newline */
            if (job->opts->format == RS_FORMAT_JSONL) res->out.len--; /* the '}' */
        }
    }
    pending_hit h;
    memset(&h, 0, sizeof h);
    h.rec_end = (uint32_t)res->out.len;
    h.epoch = rec->epoch;
    h.has_time = (uint8_t)has_time;
    h.disallowed = (uint8_t)v.disallowed;
    h.delay = bound ? delay : 0;
    k->len = 0;
    if (h.delay > 0) {
        CLI_TRY(rs_outbuf_append(k, bot.token.ptr, bot.token.len));
        CLI_TRY(rs_outbuf_append(k, "\t", 1));
        CLI_TRY(rs_outbuf_append(k, origin->origin.ptr, origin->origin.len));
    }
    h.key_len = (uint32_t)k->len;
    CLI_TRY(rs_outbuf_append(&res->aux, &h, sizeof h));
    if (k->len) {
        static const char zeros[8] = { 0 };
        CLI_TRY(rs_outbuf_append(&res->aux, k->ptr, k->len));
        CLI_TRY(rs_outbuf_append(&res->aux, zeros, (8 - k->len % 8) % 8));
    }
    return RS_OK;
}

static rs_status process_block(void *ctx, void *state, const rs_block *block, pipeline_result *res)
{
    logs_job *job = ctx;
    logs_worker *w = state;
    rs_lines it;
    rs_line ln;
    rs_lines_init(&it, block);
    while (rs_line_next(&it, &ln)) {
        res->counts.lines++;
        if (ln.oversized) {
            res->counts.malformed++;
            if (job->opts->verbose)
                pipeline_diag(res, "%s:%llu: line of %llu bytes is too long, skipped", job->input_name,
                              (unsigned long long)ln.number, (unsigned long long)ln.oversized);
            continue;
        }
        rs_logrec rec;
        const rs_logline_status st = rs_logline_parse(job->fmt, ln.text.ptr, ln.text.len, &rec);
        if (st == RS_LOGLINE_EMPTY) {
            res->counts.blank++;
            continue;
        }
        if (st != RS_LOGLINE_OK) {
            res->counts.malformed++;
            if (job->opts->verbose)
                pipeline_diag(res, "%s:%llu: malformed log line (%s at byte %zu), skipped", job->input_name,
                              (unsigned long long)ln.number, rs_logline_status_str(st), rec.error_offset);
            continue;
        }
        CLI_TRY(one_hit(job, w, res, &rec, ln.number));
    }
    return RS_OK;
}

/* ===== In order: keep records, collect crawl-delay candidates ===== */

static rs_status keep_block(void *ctx, pipeline_result *res)
{
    logs_job *job = ctx;
    size_t pos = 0, rec_start = 0;
    while (pos < res->aux.len) {
        pending_hit h;
        memcpy(&h, res->aux.ptr + pos, sizeof h);
        const char *key = res->aux.ptr + pos + sizeof h;
        pos += sizeof h + h.key_len + (8 - h.key_len % 8) % 8;
        if (job->n_records == job->cap_records) {
            const size_t cap = job->cap_records ? job->cap_records * 2 : 4096;
            uint32_t *e = realloc(job->rec_end, cap * sizeof *e);
            if (e == NULL) return RS_ERR_NOMEM;
            job->rec_end = e;
            uint8_t *d = realloc(job->rec_disallowed, cap);
            if (d == NULL) return RS_ERR_NOMEM;
            job->rec_disallowed = d;
            job->cap_records = cap;
        }
        if (h.rec_end > rec_start) /* nothing rendered under --quiet: out.ptr may be NULL */
            CLI_TRY(rs_outbuf_append(&job->records, res->out.ptr + rec_start, h.rec_end - rec_start));
        if (job->records.len > UINT32_MAX) {
            pipeline_fail(res, RS_ERR_LIMIT, "more than 4 GiB of bot-hit records; use --quiet or --only");
            return RS_ERR_LIMIT;
        }
        rec_start = h.rec_end;
        job->rec_end[job->n_records] = (uint32_t)job->records.len;
        job->rec_disallowed[job->n_records] = h.disallowed;
        if (h.key_len && h.has_time) {
            uint32_t ki;
            CLI_TRY(rs_tally_find(job->delay_keys, key, h.key_len, &ki));
            rs_tally_counters(job->delay_keys, ki)[0] = (uint64_t)llround(h.delay * 1000.0);
            if (job->n_delays == job->cap_delays) {
                const size_t cap = job->cap_delays ? job->cap_delays * 2 : 4096;
                struct delay_entry *d = realloc(job->delays, cap * sizeof *d);
                if (d == NULL) return RS_ERR_NOMEM;
                job->delays = d;
                job->cap_delays = cap;
            }
            job->delays[job->n_delays].key = ki;
            job->delays[job->n_delays].rec = (uint32_t)job->n_records;
            job->delays[job->n_delays].epoch = h.epoch;
            job->n_delays++;
        }
        job->n_records++;
    }
    res->out.len = 0; /* written at the end */
    return RS_OK;
}

static int delay_cmp(const void *a, const void *b)
{
    const struct delay_entry *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    if (x->epoch != y->epoch) return x->epoch < y->epoch ? -1 : 1;
    return x->rec < y->rec ? -1 : x->rec > y->rec;
}

/* Marks the hits that came sooner than the delay after the previous one. */
static uint8_t *delay_violations(logs_job *job)
{
    uint8_t *v = calloc(job->n_records ? job->n_records : 1, 1);
    if (v == NULL) return NULL;
    if (job->n_delays) qsort(job->delays, job->n_delays, sizeof *job->delays, delay_cmp); /* delays may be NULL */
    for (size_t i = 1; i < job->n_delays; i++) {
        const struct delay_entry *prev = &job->delays[i - 1], *cur = &job->delays[i];
        if (prev->key != cur->key) continue;
        const uint64_t delay_ms = rs_tally_counters_const(job->delay_keys, cur->key)[0];
        if ((uint64_t)(cur->epoch - prev->epoch) * 1000 < delay_ms) v[cur->rec] = 1;
    }
    return v;
}

/* ===== Output and summary ===== */

typedef struct {
    rs_str bot;
    const uint64_t *c;
    uint64_t delay_violations;
    uint64_t paths;
} bot_row;

static int bot_row_cmp(const void *a, const void *b)
{
    const bot_row *x = a, *y = b;
    if (x->c[B_HITS] != y->c[B_HITS]) return x->c[B_HITS] > y->c[B_HITS] ? -1 : 1;
    const size_t n = x->bot.len < y->bot.len ? x->bot.len : y->bot.len;
    const int c = memcmp(x->bot.ptr, y->bot.ptr, n);
    return c ? c : (x->bot.len > y->bot.len) - (x->bot.len < y->bot.len);
}

static int key_has_bot(rs_str key, rs_str bot)
{
    return key.len > bot.len && key.ptr[bot.len] == '\t' && memcmp(key.ptr, bot.ptr, bot.len) == 0;
}

static void put(rs_outbuf *b, const char *s) { rs_outbuf_append(b, s, strlen(s)); }

static void fetch_time(char *dst, size_t cap, uint64_t stored)
{
    if (stored == 0) snprintf(dst, cap, "-");
    else format_time(dst, cap, (int64_t)stored - 1, 1);
}

static void summary(rs_outbuf *o, const bot_row *rows, size_t n, const pipeline_counts *c)
{
    char line[512];
    snprintf(line, sizeof line,
             "lines %llu: bot hits %llu, non-bot hits %llu, other bots %llu, malformed %llu, blank %llu\n",
             (unsigned long long)c->lines, (unsigned long long)c->urls,
             (unsigned long long)c->extra[X_NON_BOT], (unsigned long long)c->extra[X_FILTERED],
             (unsigned long long)c->malformed, (unsigned long long)c->blank);
    put(o, line);
    snprintf(line, sizeof line, "%-24s %9s %10s %11s %8s %9s  %s\n", "agent", "hits", "disallowed",
             "crawl-delay", "paths", "robots.txt", "first robots.txt fetch");
    put(o, line);
    for (size_t i = 0; i < n; i++) {
        char first[40];
        fetch_time(first, sizeof first, rows[i].c[B_FIRST_FETCH]);
        snprintf(line, sizeof line, "%-24.*s %9llu %10llu %11llu %8llu %9llu  %s\n", (int)rows[i].bot.len,
                 rows[i].bot.ptr, (unsigned long long)rows[i].c[B_HITS],
                 (unsigned long long)rows[i].c[B_DISALLOWED], (unsigned long long)rows[i].delay_violations,
                 (unsigned long long)rows[i].paths, (unsigned long long)rows[i].c[B_ROBOTS_FETCHES], first);
        put(o, line);
    }
}

static int write_stats(const char *path, const bot_row *rows, size_t n, const logs_acc *acc,
                       const pipeline_counts *c, double seconds)
{
    rs_outbuf b = { 0 };
    char tmp[512];
    snprintf(tmp, sizeof tmp,
             "{\"command\":\"logs\",\"lines\":%llu,\"bot_hits\":%llu,\"non_bot_hits\":%llu,"
             "\"other_bot_hits\":%llu,\"malformed\":%llu,\"blank\":%llu,\"violations\":%llu,\"bots\":[",
             (unsigned long long)c->lines, (unsigned long long)c->urls, (unsigned long long)c->extra[X_NON_BOT],
             (unsigned long long)c->extra[X_FILTERED], (unsigned long long)c->malformed,
             (unsigned long long)c->blank, (unsigned long long)c->verdict[1]);
    put(&b, tmp);
    for (size_t i = 0; i < n; i++) {
        put(&b, i ? ",{\"agent\":" : "{\"agent\":");
        rs_outbuf_json_string(&b, rows[i].bot.ptr, rows[i].bot.len);
        char first[40], last[40];
        fetch_time(first, sizeof first, rows[i].c[B_FIRST_FETCH]);
        fetch_time(last, sizeof last, rows[i].c[B_LAST_FETCH]);
        snprintf(tmp, sizeof tmp,
                 ",\"hits\":%llu,\"violations\":%llu,\"delay_violations\":%llu,\"distinct_violated_paths\":%llu,"
                 "\"robots_txt_fetches\":%llu,\"first_robots_txt_fetch\":%s%s%s,\"last_robots_txt_fetch\":%s%s%s,"
                 "\"top_rules\":[",
                 (unsigned long long)rows[i].c[B_HITS], (unsigned long long)rows[i].c[B_DISALLOWED],
                 (unsigned long long)rows[i].delay_violations, (unsigned long long)rows[i].paths,
                 (unsigned long long)rows[i].c[B_ROBOTS_FETCHES], rows[i].c[B_FIRST_FETCH] ? "\"" : "",
                 rows[i].c[B_FIRST_FETCH] ? first : "null", rows[i].c[B_FIRST_FETCH] ? "\"" : "",
                 rows[i].c[B_LAST_FETCH] ? "\"" : "", rows[i].c[B_LAST_FETCH] ? last : "null",
                 rows[i].c[B_LAST_FETCH] ? "\"" : "");
        put(&b, tmp);
        /* Top 10 violated rules of this bot: key "bot\torigin\tline\trule". */
        uint32_t top[10];
        size_t ntop = 0;
        for (uint32_t r = 0; r < rs_tally_size(acc->rules); r++) {
            if (!key_has_bot(rs_tally_key(acc->rules, r), rows[i].bot)) continue;
            const uint64_t cnt = rs_tally_counters_const(acc->rules, r)[0];
            size_t at = ntop < 10 ? ntop++ : 10;
            while (at > 0 && rs_tally_counters_const(acc->rules, top[at - 1])[0] < cnt) {
                if (at < 10) top[at] = top[at - 1];
                at--;
            }
            if (at < 10) top[at] = r;
        }
        for (size_t t = 0; t < ntop; t++) {
            const rs_str k = rs_tally_key(acc->rules, top[t]);
            const char *f1 = k.ptr + rows[i].bot.len + 1;
            const char *end = k.ptr + k.len;
            const char *f2 = memchr(f1, '\t', (size_t)(end - f1));
            const char *f3 = f2 ? memchr(f2 + 1, '\t', (size_t)(end - f2 - 1)) : NULL;
            if (f3 == NULL) continue;
            put(&b, t ? ",{\"origin\":" : "{\"origin\":");
            rs_outbuf_json_string(&b, f1, (size_t)(f2 - f1));
            snprintf(tmp, sizeof tmp, ",\"line\":%.*s,\"rule\":", (int)(f3 - f2 - 1), f2 + 1);
            put(&b, tmp);
            rs_outbuf_json_string(&b, f3 + 1, (size_t)(end - f3 - 1));
            snprintf(tmp, sizeof tmp, ",\"count\":%llu}",
                     (unsigned long long)rs_tally_counters_const(acc->rules, top[t])[0]);
            put(&b, tmp);
        }
        put(&b, "]}");
    }
    put(&b, "],\"hours\":[");
    for (uint32_t h = 0; h < rs_tally_size(acc->hours); h++) {
        const rs_str k = rs_tally_key(acc->hours, h);
        const char *tab = memchr(k.ptr, '\t', k.len);
        if (tab == NULL) continue;
        put(&b, h ? ",{\"agent\":" : "{\"agent\":");
        rs_outbuf_json_string(&b, k.ptr, (size_t)(tab - k.ptr));
        put(&b, ",\"hour\":");
        rs_outbuf_json_string(&b, tab + 1, (size_t)(k.ptr + k.len - tab - 1));
        const uint64_t *hc = rs_tally_counters_const(acc->hours, h);
        snprintf(tmp, sizeof tmp, ",\"hits\":%llu,\"violations\":%llu}", (unsigned long long)hc[H_HITS],
                 (unsigned long long)hc[H_DISALLOWED]);
        put(&b, tmp);
    }
    snprintf(tmp, sizeof tmp, "],\"seconds\":%.6f,\"lines_per_second\":%.0f}\n", seconds,
             seconds > 0 ? (double)c->lines / seconds : 0.0);
    put(&b, tmp);
    const int rc = cli_write_file(path, b.ptr, b.len, "statistics");
    rs_outbuf_free(&b);
    return rc;
}

/* Merges the workers' accumulators into the first one (min/max for fetch times). */
static rs_status merge_accs(void **users, int n)
{
    logs_acc *to = users[0];
    for (int i = 1; i < n; i++) {
        const logs_acc *from = users[i];
        for (uint32_t k = 0; k < rs_tally_size(from->bots); k++) {
            const rs_str key = rs_tally_key(from->bots, k);
            uint32_t j;
            CLI_TRY(rs_tally_find(to->bots, key.ptr, key.len, &j));
            uint64_t *d = rs_tally_counters(to->bots, j);
            const uint64_t *s = rs_tally_counters_const(from->bots, k);
            d[B_HITS] += s[B_HITS];
            d[B_DISALLOWED] += s[B_DISALLOWED];
            d[B_ROBOTS_FETCHES] += s[B_ROBOTS_FETCHES];
            if (s[B_FIRST_FETCH] && (d[B_FIRST_FETCH] == 0 || s[B_FIRST_FETCH] < d[B_FIRST_FETCH]))
                d[B_FIRST_FETCH] = s[B_FIRST_FETCH];
            if (s[B_LAST_FETCH] > d[B_LAST_FETCH]) d[B_LAST_FETCH] = s[B_LAST_FETCH];
        }
        CLI_TRY(rs_tally_merge(to->paths, from->paths));
        CLI_TRY(rs_tally_merge(to->rules, from->rules));
        CLI_TRY(rs_tally_merge(to->hours, from->hours));
    }
    return RS_OK;
}

/* Writes every record in input order with its delay_violation column. */
static int write_records(const logs_job *job, const uint8_t *violation)
{
    rs_outbuf *out = cli_out();
    uint32_t start = 0;
    for (size_t i = 0; i < job->n_records; i++) {
        const uint32_t end = job->rec_end[i];
        const int dv = violation[i];
        if (!job->only_violations || dv || job->rec_disallowed[i]) {
            if (rs_outbuf_append(out, job->records.ptr + start, end - start) != RS_OK) return -1;
            const char *tail;
            switch (job->opts->format) {
            case RS_FORMAT_TSV: tail = dv ? "\t1\n" : "\t0\n"; break;
            case RS_FORMAT_CSV: tail = dv ? ",1\n" : ",0\n"; break;
            case RS_FORMAT_JSONL: tail = dv ? ",\"delay_violation\":1}\n" : ",\"delay_violation\":0}\n"; break;
            default: tail = dv ? "  [crawl-delay violation]\n" : "\n"; break;
            }
            if (rs_outbuf_append(out, tail, strlen(tail)) != RS_OK) return -1;
            if (cli_out_flush(1 << 18) != 0) return -1;
        }
        start = end;
    }
    return 0;
}

/* ===== Command ===== */

int cmd_logs(int argc, char **argv)
{
    struct cli_opts o;
    int rc = cli_parse("logs", ACCEPTED, argc, argv, &o);
    if (rc) return rc;
    if (o.help) {
        fputs(HELP, stdout);
        return 0;
    }
    if (o.n_robots < 1) return cli_usage_error("logs", "needs at least one --robots PATH");
    logs_job job;
    memset(&job, 0, sizeof job);
    job.opts = &o;
    job.host = o.host;
    job.scheme = o.scheme ? o.scheme : "https";
    if (strcmp(job.scheme, "http") && strcmp(job.scheme, "https"))
        return cli_usage_error("logs", "--scheme takes http or https, not '%s'", job.scheme);
    if (o.only) {
        if (strcmp(o.only, "violations")) return cli_usage_error("logs", "--only takes violations, not '%s'", o.only);
        job.only_violations = 1;
    }
    const char *spec = o.log_format ? o.log_format : "combined";
    char err[256] = "";
    rs_logformat *fmt = NULL;
    if (rs_logformat_create(spec, strlen(spec), err, sizeof err, &fmt) != RS_OK)
        return cli_usage_error("logs", "bad --log-format: %s", err[0] ? err : "cannot compile");
    if (!(rs_logformat_fields(fmt) & RS_LOGF_HOST) && o.host == NULL) {
        rs_logformat_free(fmt);
        return cli_usage_error("logs", "this log format does not name the site: give --host HOST");
    }
    if (!(rs_logformat_fields(fmt) & RS_LOGF_USER_AGENT)) {
        rs_logformat_free(fmt);
        return cli_usage_error("logs", "this log format has no user agent ($http_user_agent): bots cannot be found");
    }
    job.fmt = fmt;
    rs_sites *sites = NULL;
    if (cli_sites_open(&o, &sites) != 0) {
        rs_logformat_free(fmt);
        return 2;
    }
    job.sites = sites;
    if (rs_tally_create(1, &job.delay_keys) != RS_OK) {
        cli_error("out of memory");
        return 2;
    }

    pipeline p;
    pipeline_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cli_pipeline_defaults(&o, &cfg);
    cfg.process = process_block;
    cfg.ctx = &job;
    cfg.state_new = worker_new;
    cfg.state_free = worker_free;
    cfg.user_new = acc_new;
    cfg.user_free = acc_free;
    cfg.in_order = keep_block;
    cfg.columns = COLUMNS;
    cfg.n_columns = N_COLUMNS;

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rc = pipeline_init(&p, &cfg);
    const int inited = rc == 0;
    if (rc == 0) rc = cli_run_inputs(&p, &o, &job.input_name);
    /* A damaged input (error already printed): report the hits read before
     * the damage, then exit 2 (SPEC 7). */
    const int input_failed = inited && rc != 0 && pipeline_totals_get(&p)->input_failed;
    if (input_failed) rc = 0;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const double seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

    uint8_t *violation = NULL;
    bot_row *rows = NULL;
    size_t n_rows = 0;
    uint64_t any_violation = 0;
    const pipeline_totals *tot = pipeline_totals_get(&p);
    int n_users = 0;
    void **users = pipeline_users(&p, &n_users);
    if (rc == 0 && (violation = delay_violations(&job)) == NULL) rc = 2;
    if (rc == 0 && merge_accs(users, n_users) != RS_OK) rc = 2;
    if (rc == 0) {
        const logs_acc *acc = users[0];
        n_rows = rs_tally_size(acc->bots);
        rows = calloc(n_rows ? n_rows : 1, sizeof *rows);
        if (rows == NULL) rc = 2;
        for (size_t i = 0; rc == 0 && i < n_rows; i++) {
            rows[i].bot = rs_tally_key(acc->bots, (uint32_t)i);
            rows[i].c = rs_tally_counters_const(acc->bots, (uint32_t)i);
            for (uint32_t k = 0; k < rs_tally_size(acc->paths); k++)
                rows[i].paths += key_has_bot(rs_tally_key(acc->paths, k), rows[i].bot);
        }
        /* Delay violations per bot: the delay keys are "bot\torigin". */
        for (size_t r = 0; rc == 0 && r < job.n_delays; r++) {
            const struct delay_entry *d = &job.delays[r];
            if (!violation[d->rec]) continue;
            const rs_str k = rs_tally_key(job.delay_keys, d->key);
            for (size_t i = 0; i < n_rows; i++)
                if (key_has_bot(k, rows[i].bot)) { rows[i].delay_violations++; break; }
        }
        if (rows) qsort(rows, n_rows, sizeof *rows, bot_row_cmp);
        for (size_t i = 0; i < job.n_records; i++) any_violation |= violation[i] | job.rec_disallowed[i];
        if (!o.quiet && write_records(&job, violation) != 0) rc = 2;
        if (rc == 0 && (o.quiet || o.format == RS_FORMAT_TEXT)) {
            if (!o.quiet) put(cli_out(), "\n");
            summary(cli_out(), rows, n_rows, &tot->counts);
            if (cli_out_flush(0) != 0) rc = 2;
        }
        if (rc == 0 && o.stats_path && write_stats(o.stats_path, rows, n_rows, acc, &tot->counts, seconds) != 0)
            rc = 2;
        if (rc == 0 && cli_write_html(&o) != 0) rc = 2;
    }
    if (o.verbose) {
        fprintf(stderr, "robotscan: %llu lines in %.3f s (%.0f lines/s)\n", (unsigned long long)tot->counts.lines,
                seconds, seconds > 0 ? (double)tot->counts.lines / seconds : 0.0);
    }
    free(rows);
    free(violation);
    pipeline_free(&p);
    rs_sites_free(sites);
    rs_logformat_free(fmt);
    rs_outbuf_free(&job.records);
    free(job.rec_end);
    free(job.rec_disallowed);
    free(job.delays);
    rs_tally_free(job.delay_keys);
    if (cli_out_finish() != 0) rc = 2;
    if (rc || input_failed) return 2;
    return o.fail_on && any_violation ? 1 : 0;
}
