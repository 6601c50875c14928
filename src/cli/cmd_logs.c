/*
 * cmd_logs.c - `robotscan logs`: access logs + robots sources -> which bot
 * hits broke robots.txt, and which came faster than the crawl-delay.
 *
 * Workers parse lines and hand each to the library's auditor
 * (src/log/audit.c: site, crawler from the User-Agent or the ranges, URL,
 * verdict of the group it follows, crawl-delay); this file keeps the options,
 * the --agent filter, the counters and the output: it counts per bot and
 * formats the record without its last column. The main thread keeps records in input
 * order; crawl-delay needs every hit of a (bot, origin) in time order, which
 * merged logs do not give, so delay violations are decided after the whole
 * input is read, and records are written then. Past --memory-limit / 4,
 * records and sorted runs of crawl-delay entries spill to temporary zstd
 * files (spill.c), merged back at the end: memory stays bounded whatever
 * the number of bot hits (about 1 byte per hit remains, the violation flags).
 */
#include "cli/cli.h"
#include "cli/bulk.h"
#include "cli/spill.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static const char HELP[] =
    "Usage: robotscan logs --robots PATH [--robots PATH...] [OPTIONS] [FILE...]\n"
    "\n"
    "Reads access logs (plain, .zst or .gz, detected from the content; stdin when no\n"
    "FILE or FILE is -), finds the hits of crawlers, and reports which ones broke the\n"
    "site's robots.txt (disallowed URL) or its Crawl-delay (came sooner than the delay\n"
    "after the same bot's previous hit on the same site, /robots.txt fetches included).\n"
    "\n"
    "Options:\n"
    "  --robots PATH        robots.txt file, directory of HOST[.txt] files, or manifest .tsv\n"
    "  --host HOST          the site, for logs whose lines do not name it: a host\n"
    "                       (example.com, example.com:8080) or an origin (https://example.com)\n"
    "  --scheme S           scheme of the site (default https; vhost logs: port 443 -> https,\n"
    "                       other ports -> http)\n"
    "  --log-format F       combined (default), common, vhost_combined, cloudfront, w3c (IIS,\n"
    "                       columns from #Fields: lines), alb, json, cloudflare, auto (picked\n"
    "                       from the first lines), an nginx log_format string\n"
    "                       ('$remote_addr - [$time_local] \"$request\" ...') or an Apache\n"
    "                       LogFormat string ('%h %l %u %t \"%r\" %>s %b \"%{User-Agent}i\"')\n"
    "  --field NAME=KEY     json: read NAME (time, client, host, port, scheme, method, url,\n"
    "                       request, protocol, status, bytes, referer, user_agent) from KEY, a\n"
    "                       dotted path into nested objects (repeatable); the defaults read\n"
    "                       Caddy and nginx escape=json logs\n"
    "  --verify [TOKEN=]FILE  published crawler IP ranges (repeatable): Google's googlebot.json,\n"
    "                       special-crawlers.json, user-triggered-fetchers.json, or a CIDR list\n"
    "                       for TOKEN; adds the verified column (yes/no/unknown), counts spoofed\n"
    "                       hits apart, and attributes hits without a user agent by client IP\n"
    "  --agent TOKEN        audit only this crawler (repeatable)\n"
    "  --format FMT         text, tsv, csv or jsonl (default: text on a terminal, else tsv)\n"
    "  --only violations    print only disallowed or crawl-delay-violating hits\n"
    "  --quiet              print only the per-bot summary (in the --format given, else text)\n"
    "  --stats FILE.json    per bot: hits, violations, distinct violated paths, top rules,\n"
    "                       crawl-delay violations, robots.txt fetches, verified/spoofed hits;\n"
    "                       per hour and per day counts; schema_version 2 (mergeable counts)\n"
    "  --semantics S        google (default) or first-match\n"
    "  -j, --jobs N         worker threads (default 1; w3c, cloudfront and auto read with 1)\n"
    "  --memory-limit SIZE  memory budget (default 1G): past a quarter of it, bot-hit records\n"
    "                       and crawl-delay entries spill to temporary zstd files in $TMPDIR\n"
    "                       (removed at exit); the output is the same\n"
    "  --verbose            report malformed lines with their line numbers (without it, their\n"
    "                       count is in the summary, or one line on stderr when the output has none)\n"
    "  --html FILE          also write the statistics as an HTML page (see robotscan report)\n"
    "  --progress, --no-progress\n"
    "  --fail-on-violation  exit 1 when any hit is a violation\n"
    "  --input-line         an input_line column first (for robotscan merge --records)\n"
    "\n"
    "Columns: time (ISO 8601 UTC), client, origin, agent, user_agent, method, url, status,\n"
    "         verdict, line, rule, reason, delay_violation, verified (with --verify)\n"
    "Hits on /robots.txt itself are never violations (reason robots-txt).\n"
    "When most of the first lines of a log do not parse, nothing is reported: exit 2 with\n"
    "the format that would read them.\n"
    "Exit status: 0 ok; 1 with --fail-on-violation when a violation was found; 2 usage or I/O\n"
    "error, or a log in another format.\n";

static const char *const ACCEPTED[] = {
    "--robots", "--host", "--scheme", "--log-format", "--field", "--verify", "--agent", "--format", "--only", "--quiet",
    "--stats", "--semantics", "-j", "--jobs", "--verbose", "--progress", "--no-progress", "--memory-limit",
    "--fail-on-violation", "--input-line", "--help", NULL,
};

static const char *const COLUMNS[] = {
    "time", "client", "origin", "agent", "user_agent", "method", "url", "status",
    "verdict", "line", "rule", "reason", "delay_violation", "verified",
};
/* Rendered per hit: the first N_RENDERED; delay_violation (and verified, with
 * --verify) are appended once the whole input is read. */
#define N_RENDERED 12

/* Per-bot counters (the bots tally). */
enum { B_HITS, B_DISALLOWED, B_ROBOTS_FETCHES, B_FIRST_FETCH, B_LAST_FETCH, B_VERIFIED, B_UNKNOWN,
       B_SPOOFED, B_SPOOFED_DISALLOWED, B_COUNT };
/* Per (bot, hour) and (bot, day) counters. */
enum { H_HITS, H_DISALLOWED, H_SPOOFED, H_COUNT };
/* pipeline_counts.extra[] */
enum { X_NON_BOT, X_FILTERED, X_ROBOTS_FETCHES, X_FIRST_OK, X_FIRST_BAD, X_SPOOFED, X_BY_IP };
/* Lines at the head of each input that decide whether the format fits. */
#define FIRST_LINES 50
#define SAMPLE_MAX 65536
/* pending_hit.verified / rec_verified */
enum { V_UNKNOWN, V_YES, V_NO };
static const char *const VERIFIED_STR[] = { "unknown", "yes", "no" };

/* One bot hit of a block, for the in-order pass. */
typedef struct {
    uint32_t rec_end;      /* end of its record in res->out */
    uint32_t key_len;      /* "bot\torigin" follows the struct in aux, padded to 8 */
    int64_t  epoch;
    double   delay;        /* crawl-delay that binds it, 0 = none */
    uint8_t  disallowed;
    uint8_t  has_time;
    uint8_t  verified;     /* V_* */
    uint8_t  robots;       /* a /robots.txt fetch: in the spacing, never flagged */
    uint8_t  pad[4];
} pending_hit;

typedef struct {
    rs_tally *bots, *paths, *rules, *hours, *days;
    rs_outbuf sample;      /* the first lines of each input (format hint) */
} logs_acc;

typedef struct {
    const struct cli_opts *opts;
    rs_sites *sites;
    const char *spec;      /* --log-format */
    const rs_ipranges *ranges;  /* --verify; NULL when none */
    const char *host;
    const char *scheme;
    const char *input_name;
    int only_violations;
    /* in-order state (main thread) */
    rs_outbuf records;     /* all bot-hit records, without the last column */
    uint32_t *rec_end;     /* end offset of each record in memory (index - rec_base) */
    uint8_t *rec_disallowed;
    uint8_t *rec_verified;
    size_t n_records;      /* all bot hits so far (spilled ones included) */
    size_t rec_base;       /* index of the first record still in memory */
    size_t cap_records;
    int any_disallowed;
    rs_tally *delay_keys;  /* "bot\torigin" -> [delay in ms] */
    struct delay_entry { uint32_t key; uint32_t rec; int64_t epoch; uint32_t robots; } *delays;
    size_t n_delays, cap_delays;
    /* --memory-limit (SPEC 7): past a quarter of it, records and sorted runs of
     * crawl-delay entries go to temporary zstd files. */
    uint64_t memory_limit;
    spill_file rec_spill;  /* records: {u32 len, u8 disallowed, u8 verified} + bytes */
    int rec_spilled;
    spill_file *runs;      /* sorted delay_entry runs */
    size_t n_runs;
    int spill_failed;
} logs_job;

/* ===== Worker state ===== */

typedef struct {
    rs_logparser *parser;                /* this worker's (formats have state) */
    rs_log_auditor *auditor;             /* the per-hit decision (src/log/audit.c) */
    int64_t time_epoch;                  /* cache of the last formatted time */
    char time_iso[32];
    /* tally indexes of the last keys, by bot token bytes (fixed per bot) */
    struct bot_memo { const rs_tally *t; const char *tok; size_t len; uint32_t ix; } bot_ix[32];
    struct period_memo { const rs_tally *t; const char *tok; size_t len; int64_t hour; uint32_t ih, id; } period_ix[64];
    rs_outbuf key;
} logs_worker;

static void *worker_new(void) { return calloc(1, sizeof(logs_worker)); }

static void worker_free(void *p)
{
    logs_worker *w = p;
    if (w == NULL) return;
    rs_logparser_free(w->parser);
    rs_log_auditor_free(w->auditor);
    rs_outbuf_free(&w->key);
    free(w);
}

static void *acc_new(void)
{
    logs_acc *a = calloc(1, sizeof *a);
    if (a == NULL) return NULL;
    if (rs_tally_create(B_COUNT, &a->bots) != RS_OK || rs_tally_create(1, &a->paths) != RS_OK
        || rs_tally_create(1, &a->rules) != RS_OK || rs_tally_create(H_COUNT, &a->hours) != RS_OK
        || rs_tally_create(H_COUNT, &a->days) != RS_OK) {
        rs_tally_free(a->bots);
        rs_tally_free(a->paths);
        rs_tally_free(a->rules);
        rs_tally_free(a->hours);
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
    rs_tally_free(a->days);
    rs_outbuf_free(&a->sample);
    free(a);
}

static int agent_wanted(const struct cli_opts *o, rs_str token)
{
    if (o->n_agents == 0) return 1;
    for (int i = 0; i < o->n_agents; i++)
        if (strlen(o->agents[i]) == token.len && strncasecmp(o->agents[i], token.ptr, token.len) == 0)
            return 1;
    return 0;
}

/* UTC "YYYY-MM-DDTHH" (@full = 0), "YYYY-MM-DDTHH:MM:SSZ" (1) or "YYYY-MM-DD" (2).
 * Civil date from days since 1970 (H. Hinnant's algorithm): no gmtime/strftime
 * per hit. Years outside 0..9999 print as "-". */
static void format_time(char *dst, size_t cap, int64_t epoch, int full)
{
    int64_t days = epoch / 86400, secs = epoch % 86400;
    if (secs < 0) { secs += 86400; days--; }
    const int64_t z = days + 719468;
    const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const int64_t doe = z - era * 146097;
    const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const int64_t mp = (5 * doy + 2) / 153;
    const int d = (int)(doy - (153 * mp + 2) / 5 + 1);
    const int m = (int)(mp < 10 ? mp + 3 : mp - 9);
    const int64_t y = yoe + era * 400 + (m <= 2);
    if (y < 0 || y > 9999 || cap < 21) {
        snprintf(dst, cap, "-");
        return;
    }
    const int hh = (int)(secs / 3600), mi = (int)(secs / 60 % 60), ss = (int)(secs % 60);
    char *o = dst;
    o[0] = (char)('0' + y / 1000); o[1] = (char)('0' + y / 100 % 10); o[2] = (char)('0' + y / 10 % 10);
    o[3] = (char)('0' + y % 10); o[4] = '-'; o[5] = (char)('0' + m / 10); o[6] = (char)('0' + m % 10);
    o[7] = '-'; o[8] = (char)('0' + d / 10); o[9] = (char)('0' + d % 10);
    if (full == 2) { o[10] = '\0'; return; }
    o[10] = 'T'; o[11] = (char)('0' + hh / 10); o[12] = (char)('0' + hh % 10);
    if (full == 0) { o[13] = '\0'; return; }
    o[13] = ':'; o[14] = (char)('0' + mi / 10); o[15] = (char)('0' + mi % 10); o[16] = ':';
    o[17] = (char)('0' + ss / 10); o[18] = (char)('0' + ss % 10); o[19] = 'Z'; o[20] = '\0';
}

/* ===== One line ===== */

/* An auditor error: the sites' message for a lookup that failed. */
static rs_status audit_fail(const logs_job *job, pipeline_result *res, rs_status st)
{
    if (st != RS_ERR_NOMEM) pipeline_fail(res, st, "%s", rs_sites_errmsg(job->sites));
    return st;
}

static rs_status one_hit(logs_job *job, logs_worker *w, pipeline_result *res, const rs_logrec *rec,
                         uint64_t line_no)
{
    logs_acc *acc = res->user;
    if (w->auditor == NULL) {
        const rs_log_audit_config cfg = { job->sites, job->host, job->scheme, job->ranges, 1 };
        CLI_TRY(rs_log_auditor_create(&cfg, &w->auditor));
    }
    rs_log_hit hit;
    rs_status st = rs_log_audit_bot(w->auditor, rec, &hit);
    if (st != RS_OK) return audit_fail(job, res, st);
    if (hit.kind == RS_LOGHIT_NO_SITE) {
        res->counts.malformed++;
        if (job->opts->verbose)
            pipeline_diag(res, "%s:%llu: no valid site for this line (host '%.*s'), skipped",
                          job->input_name, (unsigned long long)line_no, (int)rec->host.len, rec->host.ptr);
        return RS_OK;
    }
    if (hit.kind == RS_LOGHIT_NOT_BOT) {
        res->counts.extra[X_NON_BOT]++;
        return RS_OK;
    }
    if (hit.by_ip) res->counts.extra[X_BY_IP]++;
    const rs_bot bot = hit.bot;
    const int verified = hit.verified;   /* V_* == RS_VERIFIED_* */
    const int spoofed = verified == V_NO;
    if (!agent_wanted(job->opts, bot.token)) {
        res->counts.extra[X_FILTERED]++;
        return RS_OK;
    }
    if ((st = rs_log_audit_decide(w->auditor, rec, &hit)) != RS_OK) return audit_fail(job, res, st);
    const rs_origin *origin = hit.origin;
    const char *url = hit.url.ptr;
    const size_t url_len = hit.url.len;
    const rs_str path = hit.path;
    const int bound = hit.bound;
    const rs_verdict v = hit.verdict;
    const char *reason = hit.reason;
    const double delay = hit.delay;
    const int robots_fetch = hit.robots_fetch;
    const int has_time = (rec->flags & RS_LOGREC_HAS_TIME) != 0;

    /* Counters. A spoofed hit (claims a bot, comes from outside its ranges)
     * is counted apart: not among the real bot's violations. */
    res->counts.urls++;
    uint32_t ix;
    {
        struct bot_memo *m = &w->bot_ix[((uintptr_t)bot.token.ptr >> 3) & 31];
        if (m->t == acc->bots && m->tok == bot.token.ptr && m->len == bot.token.len && m->ix < rs_tally_size(acc->bots)) {
            ix = m->ix;
        } else {
            CLI_TRY(rs_tally_find(acc->bots, bot.token.ptr, bot.token.len, &ix));
            *m = (struct bot_memo){ acc->bots, bot.token.ptr, bot.token.len, ix };
        }
    }
    uint64_t *bc = rs_tally_counters(acc->bots, ix);
    bc[B_HITS]++;
    if (spoofed) {
        res->counts.extra[X_SPOOFED]++;
        bc[B_SPOOFED]++;
        bc[B_SPOOFED_DISALLOWED] += (uint64_t)v.disallowed;
    } else {
        res->counts.verdict[v.disallowed]++;
        bc[B_DISALLOWED] += (uint64_t)v.disallowed;
        bc[verified == V_YES ? B_VERIFIED : B_UNKNOWN]++;
    }
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
    const char *time_col = "";
    if (has_time) {
        if (w->time_iso[0] == '\0' || w->time_epoch != rec->epoch) {
            format_time(w->time_iso, sizeof w->time_iso, rec->epoch, 1);
            w->time_epoch = rec->epoch;
        }
        time_col = w->time_iso;
        /* the hour's and day's keys of this bot, remembered (years 1970..9999) */
        const int64_t hour = rec->epoch >= 0 && rec->epoch < INT64_C(253402300800) ? rec->epoch / 3600 : -1;
        struct period_memo *m = &w->period_ix[((uint64_t)hour * 31 + ((uintptr_t)bot.token.ptr >> 3)) & 63];
        const int memo = hour >= 0 && m->t == acc->hours && m->hour == hour && m->tok == bot.token.ptr
                         && m->len == bot.token.len && m->ih < rs_tally_size(acc->hours)
                         && m->id < rs_tally_size(acc->days);
        uint32_t pix[2] = { memo ? m->ih : 0, memo ? m->id : 0 };
        for (int per = 0; per < 2; per++) {   /* hour, day: "YYYY-MM-DDTHH" and its first 10 bytes */
            rs_tally *tl = per ? acc->days : acc->hours;
            if (!memo) {
                k->len = 0;
                CLI_TRY(rs_outbuf_append(k, bot.token.ptr, bot.token.len));
                CLI_TRY(rs_outbuf_append(k, "\t", 1));
                CLI_TRY(rs_outbuf_append(k, time_col, per ? 10 : 13));
                CLI_TRY(rs_tally_find(tl, k->ptr, k->len, &pix[per]));
            }
            uint64_t *hc = rs_tally_counters(tl, pix[per]);
            hc[H_HITS]++;
            if (spoofed) hc[H_SPOOFED]++;
            else hc[H_DISALLOWED] += (uint64_t)v.disallowed;
        }
        if (!memo && hour >= 0)
            *m = (struct period_memo){ acc->hours, bot.token.ptr, bot.token.len, hour, pix[0], pix[1] };
    }
    const rs_str rule = hit.rule;
    if (v.disallowed && !spoofed) {
        k->len = 0;
        CLI_TRY(rs_outbuf_append(k, bot.token.ptr, bot.token.len));
        CLI_TRY(rs_outbuf_append(k, "\t", 1));
        /* per origin, so that shards by site sum exactly (docs/scale-out.md) */
        CLI_TRY(rs_outbuf_append(k, origin->origin.ptr, origin->origin.len));
        CLI_TRY(rs_outbuf_append(k, path.ptr, path.len));
        CLI_TRY(rs_tally_find(acc->paths, k->ptr, k->len, &ix));
        rs_tally_counters(acc->paths, ix)[0]++;
        char num[32];
        size_t nl = sizeof num;
        num[--nl] = '\0';
        num[--nl] = '\t';
        unsigned line = v.line;
        do num[--nl] = (char)('0' + line % 10); while ((line /= 10) != 0);
        num[--nl] = '\t';
        memmove(num, num + nl, sizeof num - nl);
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
            snprintf(head, sizeof head, "%s  %.*s  %s  ", v.disallowed ? "DISALLOWED" : "allowed   ",
                     (int)bot.token.len, bot.token.ptr, time_col);
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
            const rs_field f[N_RENDERED] = {
                { { time_col, strlen(time_col) }, 0, 0 },
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
            const size_t start = res->out.len;
            CLI_TRY(rs_format_record(&res->out, job->opts->format, COLUMNS, f, N_RENDERED));
            if (job->opts->input_line) CLI_TRY(rs_format_input_line(&res->out, start, job->opts->format, line_no));
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
    h.verified = (uint8_t)verified;
    h.robots = (uint8_t)robots_fetch;
    h.delay = bound && !spoofed ? delay : 0;
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
    logs_acc *acc = res->user;
    if (w->parser == NULL) {
        char err[256] = "";
        const rs_status st = rs_logparser_create(job->spec, strlen(job->spec), job->opts->fields,
                                                 (size_t)job->opts->n_fields, err, sizeof err, &w->parser);
        if (st != RS_OK) {
            pipeline_fail(res, st, "bad --log-format: %s", err);
            return st;
        }
    }
    /* auto: the first block of lines settles the format. */
    if (block->len) (void)rs_logparser_detect(w->parser, block->ptr, block->len);
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
        const rs_logline_status st = rs_logparser_parse(w->parser, ln.text.ptr, ln.text.len, &rec);
        if (st == RS_LOGLINE_EMPTY || st == RS_LOGLINE_DIRECTIVE) {
            res->counts.blank++;
            continue;
        }
        if (ln.number <= FIRST_LINES) {
            res->counts.extra[st == RS_LOGLINE_OK ? X_FIRST_OK : X_FIRST_BAD]++;
            if (acc->sample.len + ln.text.len < SAMPLE_MAX) {
                CLI_TRY(rs_outbuf_append(&acc->sample, ln.text.ptr, ln.text.len));
                CLI_TRY(rs_outbuf_append(&acc->sample, "\n", 1));
            }
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

static int delay_cmp(const void *a, const void *b);

static inline int delay_less(const struct delay_entry *x, const struct delay_entry *y)
{
    return x->epoch != y->epoch ? x->epoch < y->epoch : x->rec < y->rec;
}

/*
 * Sorts one key's entries by (epoch, rec): a natural merge sort (logs are
 * runs of ascending times, e.g. one per rotated file), merging neighbouring
 * runs pairwise, back and forth between @d and @tmp, until one is left.
 */
static void sort_runs(struct delay_entry *d, size_t n, struct delay_entry *tmp)
{
    struct delay_entry *src = d, *dst = tmp;
    for (;;) {
        size_t a = 0, runs = 0;
        while (a < n) {
            size_t m = a + 1;
            while (m < n && !delay_less(&src[m], &src[m - 1])) m++;
            runs++;
            if (m == n) {                     /* a last run without a partner */
                memcpy(dst + a, src + a, (n - a) * sizeof *d);
                break;
            }
            size_t b = m + 1;
            while (b < n && !delay_less(&src[b], &src[b - 1])) b++;
            size_t i = a, j = m, o = a;
            while (i < m && j < b) dst[o++] = delay_less(&src[j], &src[i]) ? src[j++] : src[i++];
            while (i < m) dst[o++] = src[i++];
            while (j < b) dst[o++] = src[j++];
            a = b;
        }
        struct delay_entry *t = src;
        src = dst;
        dst = t;
        if (runs <= 1) break;
    }
    if (src != d) memcpy(d, src, n * sizeof *d);
}

/*
 * Sorts crawl-delay entries by (key, epoch, rec), a total order (rec is
 * unique), as qsort with delay_cmp would: a stable counting sort by key
 * (keys are dense "bot\torigin" indexes), then each key's entries by a
 * natural merge sort (sort_runs), which costs one pass when they are in order.
 */
static void sort_delays(struct delay_entry *d, size_t n)
{
    if (n < 2) return;
    uint32_t maxk = 0;
    for (size_t i = 0; i < n; i++)
        if (d[i].key > maxk) maxk = d[i].key;
    size_t *start = maxk < n ? calloc((size_t)maxk + 2, sizeof *start) : NULL;
    struct delay_entry *tmp = start ? malloc(n * sizeof *tmp) : NULL;
    if (tmp == NULL) {
        free(start);
        qsort(d, n, sizeof *d, delay_cmp);
        return;
    }
    for (size_t i = 0; i < n; i++) start[d[i].key + 1]++;
    for (size_t k = 0; k <= maxk; k++) start[k + 1] += start[k];
    for (size_t i = 0; i < n; i++) tmp[start[d[i].key]++] = d[i];   /* start[k] ends at run k's end */
    memcpy(d, tmp, n * sizeof *d);
    size_t a = 0;
    for (size_t k = 0; k <= maxk; k++) {
        const size_t b = start[k];
        size_t i = a + 1;
        while (i < b && !delay_less(&d[i], &d[i - 1])) i++;
        if (i < b) sort_runs(d + a, b - a, tmp + a);
        a = b;
    }
    free(tmp);
    free(start);
}

/* Moves the records in memory to the records spill file. @return 0 or -1. */
static int spill_records(logs_job *job)
{
    if (!job->rec_spilled) {
        if (spill_open(&job->rec_spill) != 0) return -1;
        job->rec_spilled = 1;
    }
    const size_t n = job->n_records - job->rec_base;
    uint32_t start = 0;
    for (size_t i = 0; i < n; i++) {
        const uint32_t len = job->rec_end[i] - start;
        unsigned char hdr[8] = { 0 };
        memcpy(hdr, &len, 4);
        hdr[4] = job->rec_disallowed[i];
        hdr[5] = job->rec_verified[i];
        if (spill_write(&job->rec_spill, hdr, sizeof hdr) != 0
            || spill_write(&job->rec_spill, job->records.ptr + start, len) != 0)
            return -1;
        start = job->rec_end[i];
    }
    job->records.len = 0;
    job->rec_base = job->n_records;
    return 0;
}

/* Sorts the crawl-delay entries in memory and writes them as one run. */
static int spill_run(logs_job *job)
{
    spill_file *r = realloc(job->runs, (job->n_runs + 1) * sizeof *r);
    if (r == NULL) return -1;
    job->runs = r;
    sort_delays(job->delays, job->n_delays);
    if (spill_open(&r[job->n_runs]) != 0) return -1;
    job->n_runs++;
    if (spill_write(&r[job->n_runs - 1], job->delays, job->n_delays * sizeof *job->delays) != 0
        || spill_finish(&r[job->n_runs - 1]) != 0)
        return -1;
    job->n_delays = 0;
    return 0;
}

static int spill_over_budget(logs_job *job)
{
    const uint64_t quarter = job->memory_limit / 4;
    const uint64_t recs = job->records.len + (uint64_t)(job->n_records - job->rec_base) * 6;
    /* Records in memory also stay under 2 GiB: their offsets are 32-bit. */
    if ((recs > quarter || job->records.len > ((uint64_t)1 << 31)) && spill_records(job) != 0) return -1;
    if ((uint64_t)job->n_delays * sizeof *job->delays > quarter && spill_run(job) != 0) return -1;
    return 0;
}

static rs_status keep_block(void *ctx, pipeline_result *res)
{
    logs_job *job = ctx;
    size_t pos = 0, rec_start = 0;
    while (pos < res->aux.len) {
        pending_hit h;
        memcpy(&h, res->aux.ptr + pos, sizeof h);
        const char *key = res->aux.ptr + pos + sizeof h;
        pos += sizeof h + h.key_len + (8 - h.key_len % 8) % 8;
        const size_t mi = job->n_records - job->rec_base;   /* index in memory */
        if (mi == job->cap_records) {
            const size_t cap = job->cap_records ? job->cap_records * 2 : 4096;
            uint32_t *e = realloc(job->rec_end, cap * sizeof *e);
            if (e == NULL) return RS_ERR_NOMEM;
            job->rec_end = e;
            uint8_t *d = realloc(job->rec_disallowed, cap);
            if (d == NULL) return RS_ERR_NOMEM;
            job->rec_disallowed = d;
            d = realloc(job->rec_verified, cap);
            if (d == NULL) return RS_ERR_NOMEM;
            job->rec_verified = d;
            job->cap_records = cap;
        }
        if (h.rec_end > rec_start) /* nothing rendered under --quiet: out.ptr may be NULL */
            CLI_TRY(rs_outbuf_append(&job->records, res->out.ptr + rec_start, h.rec_end - rec_start));
        if (job->records.len > UINT32_MAX) {
            pipeline_fail(res, RS_ERR_LIMIT, "more than 4 GiB of bot-hit records; use --quiet or --only");
            return RS_ERR_LIMIT;
        }
        rec_start = h.rec_end;
        job->rec_end[mi] = (uint32_t)job->records.len;
        job->rec_disallowed[mi] = h.disallowed;
        job->rec_verified[mi] = h.verified;
        job->any_disallowed |= h.disallowed;
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
            job->delays[job->n_delays].robots = h.robots;
            job->n_delays++;
        }
        job->n_records++;
    }
    res->out.len = 0; /* written at the end */
    if (spill_over_budget(job) != 0) {
        pipeline_fail(res, RS_ERR_IO, "cannot write a temporary file for --memory-limit: %s", strerror(errno));
        return RS_ERR_IO;
    }
    return RS_OK;
}

static int delay_cmp(const void *a, const void *b)
{
    const struct delay_entry *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    if (x->epoch != y->epoch) return x->epoch < y->epoch ? -1 : 1;
    return x->rec < y->rec ? -1 : x->rec > y->rec;
}

/* One pass over every (bot, origin)'s entries in (key, epoch, input) order. */
typedef struct {
    struct delay_entry prev;
    int have_prev;
} delay_scan;

static void delay_step(const logs_job *job, delay_scan *sc, const struct delay_entry *cur, uint8_t *v,
                       uint64_t *key_viol)
{
    if (sc->have_prev && sc->prev.key == cur->key) {
        const uint64_t delay_ms = rs_tally_counters_const(job->delay_keys, cur->key)[0];
        /* SPEC 4: /robots.txt fetches count in the spacing, are never flagged. */
        if (!cur->robots && (uint64_t)(cur->epoch - sc->prev.epoch) * 1000 < delay_ms) {
            v[cur->rec] = 1;
            key_viol[cur->key]++;
        }
    }
    sc->prev = *cur;
    sc->have_prev = 1;
}

/* Marks the hits that came sooner than the delay after the previous one;
 * counts them per delay key in @key_viol. Spilled runs are merged. */
static uint8_t *delay_violations(logs_job *job, uint64_t *key_viol)
{
    uint8_t *v = calloc(job->n_records ? job->n_records : 1, 1);
    if (v == NULL) return NULL;
    sort_delays(job->delays, job->n_delays); /* delays may be NULL */
    delay_scan sc = { { 0, 0, 0, 0 }, 0 };
    if (job->n_runs == 0) {
        for (size_t i = 0; i < job->n_delays; i++) delay_step(job, &sc, &job->delays[i], v, key_viol);
        return v;
    }
    /* k-way merge: the runs' heads and the entries still in memory */
    const size_t k = job->n_runs;
    struct delay_entry *head = malloc((k ? k : 1) * sizeof *head);
    int *live = calloc(k ? k : 1, sizeof *live);
    if (head == NULL || live == NULL) { free(head); free(live); free(v); return NULL; }
    int failed = 0;
    for (size_t r = 0; r < k; r++) {
        const int got = spill_read(&job->runs[r], &head[r], sizeof head[r]);
        live[r] = got == 1;
        failed |= got < 0;
    }
    size_t mem = 0;
    while (!failed) {
        size_t best = SIZE_MAX;
        for (size_t r = 0; r < k; r++)
            if (live[r] && (best == SIZE_MAX || delay_cmp(&head[r], &head[best]) < 0)) best = r;
        const int take_mem = mem < job->n_delays && (best == SIZE_MAX || delay_cmp(&job->delays[mem], &head[best]) < 0);
        if (take_mem) {
            delay_step(job, &sc, &job->delays[mem++], v, key_viol);
            continue;
        }
        if (best == SIZE_MAX) break;
        delay_step(job, &sc, &head[best], v, key_viol);
        const int got = spill_read(&job->runs[best], &head[best], sizeof head[best]);
        live[best] = got == 1;
        failed |= got < 0;
    }
    free(head);
    free(live);
    if (failed) {
        free(v);
        return NULL;
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

/* The per-bot summary: a text table, or rows in the --format given. */
static void summary(rs_outbuf *o, rs_format format, const bot_row *rows, size_t n, const pipeline_counts *c,
                    int verify)
{
    char line[768];
    if (format == RS_FORMAT_TEXT) {
        snprintf(line, sizeof line,
                 "lines %llu: bot hits %llu, non-bot hits %llu, other bots %llu, malformed %llu, blank %llu%s",
                 (unsigned long long)c->lines, (unsigned long long)c->urls,
                 (unsigned long long)c->extra[X_NON_BOT], (unsigned long long)c->extra[X_FILTERED],
                 (unsigned long long)c->malformed, (unsigned long long)c->blank, verify ? "" : "\n");
        put(o, line);
        if (verify) {
            snprintf(line, sizeof line, ", spoofed %llu, by client IP %llu\n",
                     (unsigned long long)c->extra[X_SPOOFED], (unsigned long long)c->extra[X_BY_IP]);
            put(o, line);
        }
        snprintf(line, sizeof line, "%-24s %9s %10s %11s %8s %9s  %-22s%s\n", "agent", "hits", "disallowed",
                 "crawl-delay", "paths", "robots.txt", "first robots.txt fetch",
                 verify ? "  verified  spoofed  spoofed-disallowed" : "");
        put(o, line);
    } else if (format == RS_FORMAT_JSONL) {
        snprintf(line, sizeof line,
                 "{\"lines\":%llu,\"bot_hits\":%llu,\"non_bot_hits\":%llu,\"other_bot_hits\":%llu,"
                 "\"malformed\":%llu,\"blank\":%llu,\"spoofed\":%llu}\n",
                 (unsigned long long)c->lines, (unsigned long long)c->urls,
                 (unsigned long long)c->extra[X_NON_BOT], (unsigned long long)c->extra[X_FILTERED],
                 (unsigned long long)c->malformed, (unsigned long long)c->blank,
                 (unsigned long long)c->extra[X_SPOOFED]);
        put(o, line);
    } else {
        const char *sep = format == RS_FORMAT_CSV ? "," : "\t";
        snprintf(line, sizeof line, "agent%shits%sdisallowed%sdelay_violations%sdistinct_violated_paths%s"
                 "robots_txt_fetches%sfirst_robots_txt_fetch%sverified%sunverified%sspoofed%sspoofed_disallowed\n",
                 sep, sep, sep, sep, sep, sep, sep, sep, sep, sep);
        put(o, line);
    }
    for (size_t i = 0; i < n; i++) {
        char first[40];
        const uint64_t *bc = rows[i].c;
        fetch_time(first, sizeof first, bc[B_FIRST_FETCH]);
        if (format == RS_FORMAT_JSONL) {   /* a JSON string, or null */
            char q[44];
            snprintf(q, sizeof q, bc[B_FIRST_FETCH] ? "\"%s\"" : "null", first);
            memcpy(first, q, strlen(q) + 1 < sizeof first ? strlen(q) + 1 : sizeof first);
            first[sizeof first - 1] = '\0';
        }
        if (format == RS_FORMAT_TEXT) {
            snprintf(line, sizeof line, "%-24.*s %9llu %10llu %11llu %8llu %9llu  %-22s", (int)rows[i].bot.len,
                     rows[i].bot.ptr, (unsigned long long)bc[B_HITS], (unsigned long long)bc[B_DISALLOWED],
                     (unsigned long long)rows[i].delay_violations, (unsigned long long)rows[i].paths,
                     (unsigned long long)bc[B_ROBOTS_FETCHES], first);
            put(o, line);
            if (verify) {
                snprintf(line, sizeof line, "  %8llu %8llu %19llu", (unsigned long long)bc[B_VERIFIED],
                         (unsigned long long)bc[B_SPOOFED], (unsigned long long)bc[B_SPOOFED_DISALLOWED]);
                put(o, line);
            }
            /* no trailing blanks */
            while (o->len && o->ptr[o->len - 1] == ' ') o->len--;
            put(o, "\n");
            continue;
        }
        if (format == RS_FORMAT_JSONL) {
            put(o, "{\"agent\":");
            rs_outbuf_json_string(o, rows[i].bot.ptr, rows[i].bot.len);
        } else {
            rs_outbuf_append(o, rows[i].bot.ptr, rows[i].bot.len);   /* tokens have no separators */
        }
#define ROW_ARGS (unsigned long long)bc[B_HITS], (unsigned long long)bc[B_DISALLOWED], \
                 (unsigned long long)rows[i].delay_violations, (unsigned long long)rows[i].paths, \
                 (unsigned long long)bc[B_ROBOTS_FETCHES], first, (unsigned long long)bc[B_VERIFIED], \
                 (unsigned long long)bc[B_UNKNOWN], (unsigned long long)bc[B_SPOOFED], \
                 (unsigned long long)bc[B_SPOOFED_DISALLOWED]
        if (format == RS_FORMAT_JSONL)
            snprintf(line, sizeof line,
                     ",\"hits\":%llu,\"disallowed\":%llu,\"delay_violations\":%llu,\"distinct_violated_paths\":%llu,"
                     "\"robots_txt_fetches\":%llu,\"first_robots_txt_fetch\":%s,\"verified\":%llu,"
                     "\"unverified\":%llu,\"spoofed\":%llu,\"spoofed_disallowed\":%llu}\n", ROW_ARGS);
        else if (format == RS_FORMAT_CSV)
            snprintf(line, sizeof line, ",%llu,%llu,%llu,%llu,%llu,%s,%llu,%llu,%llu,%llu\n", ROW_ARGS);
        else
            snprintf(line, sizeof line, "\t%llu\t%llu\t%llu\t%llu\t%llu\t%s\t%llu\t%llu\t%llu\t%llu\n", ROW_ARGS);
#undef ROW_ARGS
        put(o, line);
    }
}

/* Stats JSON (SPEC 12), by the library's mergeable-statistics writer (rs_stats_*):
 * schema_version 2; only sums, counts, min/max, keyed tallies and per-hour/day
 * histograms (tallies in key order or by count, so nothing depends on how -j N
 * split the work), so the stats of shards merge exactly. */
static int write_stats(const char *path, const bot_row *rows, size_t n, const logs_acc *acc,
                       const pipeline_counts *c, double seconds, const char *format_name)
{
    rs_outbuf b = { 0 };
    rs_stats_writer w;
    rs_stats_begin(&w, &b, "logs", 2);
    rs_stats_label(&w, "log_format", format_name, strlen(format_name));
    rs_stats_count(&w, "lines", c->lines);
    rs_stats_count(&w, "bot_hits", c->urls);
    rs_stats_count(&w, "non_bot_hits", c->extra[X_NON_BOT]);
    rs_stats_count(&w, "other_bot_hits", c->extra[X_FILTERED]);
    rs_stats_count(&w, "malformed", c->malformed);
    rs_stats_count(&w, "blank", c->blank);
    rs_stats_count(&w, "violations", c->verdict[1]);
    rs_stats_count(&w, "spoofed_hits", c->extra[X_SPOOFED]);
    rs_stats_count(&w, "hits_attributed_by_ip", c->extra[X_BY_IP]);
    rs_stats_list(&w, "bots");
    static const char *const RULE_KEY[] = { "origin", "#line", "rule" }, *const RULE_COUNTERS[] = { "count" };
    for (size_t i = 0; i < n; i++) {
        const uint64_t *bc = rows[i].c;
        char first[40], last[40];
        fetch_time(first, sizeof first, bc[B_FIRST_FETCH]);
        fetch_time(last, sizeof last, bc[B_LAST_FETCH]);
        rs_stats_object(&w, NULL);
        rs_stats_label(&w, "agent", rows[i].bot.ptr, rows[i].bot.len);
        rs_stats_count(&w, "hits", bc[B_HITS]);
        rs_stats_count(&w, "violations", bc[B_DISALLOWED]);
        rs_stats_count(&w, "delay_violations", rows[i].delay_violations);
        rs_stats_count(&w, "distinct_violated_paths", rows[i].paths);
        rs_stats_count(&w, "robots_txt_fetches", bc[B_ROBOTS_FETCHES]);
        rs_stats_bound(&w, "first_robots_txt_fetch", bc[B_FIRST_FETCH] ? first : NULL);
        rs_stats_bound(&w, "last_robots_txt_fetch", bc[B_LAST_FETCH] ? last : NULL);
        rs_stats_count(&w, "verified", bc[B_VERIFIED]);
        rs_stats_count(&w, "unverified", bc[B_UNKNOWN]);
        rs_stats_count(&w, "spoofed", bc[B_SPOOFED]);
        rs_stats_count(&w, "spoofed_violations", bc[B_SPOOFED_DISALLOWED]);
        /* the 10 most violated rules of this bot: keys "bot\torigin\tline\trule" */
        const rs_stats_tally_opts top = { 0, rows[i].bot, 10 };
        rs_stats_tally(&w, "top_rules", acc->rules, RULE_KEY, 3, RULE_COUNTERS, 1, &top);
        rs_stats_end(&w);
    }
    rs_stats_end(&w);
    static const char *const HOUR_KEY[] = { "agent", "hour" }, *const DAY_KEY[] = { "agent", "day" };
    static const char *const PERIOD_COUNTERS[] = { "hits", "violations", "spoofed" };
    const rs_stats_tally_opts by_key = { 1, { NULL, 0 }, 0 };
    rs_stats_tally(&w, "hours", acc->hours, HOUR_KEY, 2, PERIOD_COUNTERS, 3, &by_key);
    rs_stats_tally(&w, "days", acc->days, DAY_KEY, 2, PERIOD_COUNTERS, 3, &by_key);
    rs_stats_seconds(&w, "seconds", seconds);
    const rs_status st = rs_stats_finish(&w);
    const int rc = st == RS_OK ? cli_write_file(path, b.ptr, b.len, "statistics") : -1;
    if (st != RS_OK) cli_error("statistics: %s", rs_status_str(st));
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
            for (int c = 0; c < B_COUNT; c++)
                if (c != B_FIRST_FETCH && c != B_LAST_FETCH) d[c] += s[c];
            if (s[B_FIRST_FETCH] && (d[B_FIRST_FETCH] == 0 || s[B_FIRST_FETCH] < d[B_FIRST_FETCH]))
                d[B_FIRST_FETCH] = s[B_FIRST_FETCH];
            if (s[B_LAST_FETCH] > d[B_LAST_FETCH]) d[B_LAST_FETCH] = s[B_LAST_FETCH];
        }
        CLI_TRY(rs_tally_merge(to->paths, from->paths));
        CLI_TRY(rs_tally_merge(to->rules, from->rules));
        CLI_TRY(rs_tally_merge(to->hours, from->hours));
        CLI_TRY(rs_tally_merge(to->days, from->days));
        if (to->sample.len + from->sample.len < 4 * SAMPLE_MAX)
            CLI_TRY(rs_outbuf_append(&to->sample, from->sample.ptr, from->sample.len));
    }
    return RS_OK;
}

/* One record with its delay_violation (and verified) column. */
static int write_one(const logs_job *job, const char *rec, size_t len, int dv, int disallowed, int verified)
{
    if (job->only_violations && !dv && !disallowed) return 0;
    rs_outbuf *out = cli_out();
    if (rs_outbuf_append(out, rec, len) != RS_OK) return -1;
    char tail[96];
    const char *vs = VERIFIED_STR[verified % 3];
    const int verify = job->ranges != NULL;
    switch (job->opts->format) {
    case RS_FORMAT_TSV:
        if (verify) snprintf(tail, sizeof tail, "\t%d\t%s\n", dv, vs);
        else snprintf(tail, sizeof tail, "\t%d\n", dv);
        break;
    case RS_FORMAT_CSV:
        if (verify) snprintf(tail, sizeof tail, ",%d,%s\n", dv, vs);
        else snprintf(tail, sizeof tail, ",%d\n", dv);
        break;
    case RS_FORMAT_JSONL:
        if (verify) snprintf(tail, sizeof tail, ",\"delay_violation\":%d,\"verified\":\"%s\"}\n", dv, vs);
        else snprintf(tail, sizeof tail, ",\"delay_violation\":%d}\n", dv);
        break;
    default:
        snprintf(tail, sizeof tail, "%s%s\n", dv ? "  [crawl-delay violation]" : "",
                 verified == V_NO ? "  [spoofed: not from its published IP ranges]" : "");
        break;
    }
    if (rs_outbuf_append(out, tail, strlen(tail)) != RS_OK) return -1;
    return cli_out_flush(1 << 18);
}

/* Writes every record in input order: the spilled ones, then those in memory. */
static int write_records(logs_job *job, const uint8_t *violation)
{
    size_t i = 0;
    if (job->rec_spilled) {
        if (spill_finish(&job->rec_spill) != 0) return -1;
        char *buf = NULL;
        size_t cap = 0;
        for (; i < job->rec_base; i++) {
            unsigned char hdr[8];
            uint32_t len;
            if (spill_read(&job->rec_spill, hdr, sizeof hdr) != 1) { free(buf); return -1; }
            memcpy(&len, hdr, 4);
            if (len > cap) {
                char *nb = realloc(buf, len);
                if (nb == NULL) { free(buf); return -1; }
                buf = nb;
                cap = len;
            }
            if (len && spill_read(&job->rec_spill, buf, len) != 1) { free(buf); return -1; }
            if (write_one(job, buf, len, violation[i], hdr[4], hdr[5]) != 0) { free(buf); return -1; }
        }
        free(buf);
    }
    uint32_t start = 0;
    for (; i < job->n_records; i++) {
        const size_t mi = i - job->rec_base;
        const uint32_t end = job->rec_end[mi];
        if (write_one(job, job->records.ptr + start, end - start, violation[i], job->rec_disallowed[mi],
                      job->rec_verified[mi]) != 0)
            return -1;
        start = end;
    }
    return 0;
}

/* ===== Options ===== */

/*
 * --host: a host (`example.com`, `example.com:8080`, `[2001:db8::1]:8443`)
 * or an origin (`https://example.com`, a final `/` allowed). Writes the
 * host[:port] to @host and the origin's scheme (or NULL) to *scheme.
 * @return 0, or -1 when @v is neither.
 */
static int parse_host_option(const char *v, char *host, size_t cap, const char **scheme)
{
    *scheme = NULL;
    const char *p = v;
    if (strncasecmp(p, "https://", 8) == 0) { *scheme = "https"; p += 8; }
    else if (strncasecmp(p, "http://", 7) == 0) { *scheme = "http"; p += 7; }
    else if (strstr(p, "://") != NULL) return -1;
    size_t n = strlen(p);
    if (*scheme && n && p[n - 1] == '/') n--;
    if (n == 0 || n >= cap) return -1;
    size_t i = 0;
    if (p[0] == '[') {
        const char *close = memchr(p, ']', n);
        if (close == NULL || close == p + 1) return -1;
        for (const char *q = p + 1; q < close; q++)
            if (!(strchr("0123456789abcdefABCDEF:.", *q) && *q)) return -1;
        i = (size_t)(close - p) + 1;
    } else {
        for (; i < n && p[i] != ':'; i++) {
            const unsigned char c = (unsigned char)p[i];
            if (!(c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                  || c == '-' || c == '.' || c == '_'))
                return -1;
        }
        if (i == 0 || p[0] == '.' || p[0] == '-') return -1;
    }
    if (i < n) {   /* :port */
        if (p[i] != ':' || i + 1 == n || n - i - 1 > 5) return -1;
        long port = 0;
        for (size_t k = i + 1; k < n; k++) {
            if (p[k] < '0' || p[k] > '9') return -1;
            port = port * 10 + (p[k] - '0');
        }
        if (port < 1 || port > 65535) return -1;
    }
    memcpy(host, p, n);
    host[n] = '\0';
    return 0;
}

/* Which crawler tokens each of Google's published range files covers
 * (developers.google.com/search/docs/crawling-indexing/verifying-googlebot). */
static const struct {
    const char *file;
    const char *tokens;
} GOOGLE_RANGE_FILES[] = {
    {"googlebot.json", "Googlebot,Googlebot-Image,Googlebot-News,Googlebot-Video,Googlebot-Mobile,"
                       "Storebot-Google,Google-InspectionTool,GoogleOther,GoogleOther-Image,GoogleOther-Video,"
                       "Google-CloudVertexBot,Google-Extended"},
    {"special-crawlers.json", "AdsBot-Google,AdsBot-Google-Mobile,AdsBot-Google-Mobile-Apps,Mediapartners-Google,"
                              "APIs-Google,Google-Safety"},
    {"user-triggered-fetchers.json", "FeedFetcher-Google,GoogleProducer,Google-Read-Aloud,Google-Site-Verification,"
                                     "Google-Favicon,Google Favicon,GoogleMessages"},
    {"user-triggered-fetchers-google.json", "Google-NotebookLM,Google-Pinpoint,GoogleAgent-Mariner,"
                                            "GoogleAgent-URLContext,Google-Agent"},
};

static int load_ranges(const struct cli_opts *o, rs_ipranges **out)
{
    *out = NULL;
    if (o->n_verify == 0) return 0;
    if (rs_ipranges_create(out) != RS_OK) {
        cli_error("out of memory");
        return 2;
    }
    for (int i = 0; i < o->n_verify; i++) {
        const char *arg = o->verify[i], *path = arg, *tokens = NULL;
        char tokbuf[256];
        const char *eq = strchr(arg, '=');
        if (eq != NULL && memchr(arg, '/', (size_t)(eq - arg)) == NULL && eq > arg) {
            if ((size_t)(eq - arg) >= sizeof tokbuf) return cli_usage_error("logs", "--verify: token list too long");
            memcpy(tokbuf, arg, (size_t)(eq - arg));
            tokbuf[eq - arg] = '\0';
            tokens = tokbuf;
            path = eq + 1;
        } else {
            const char *base = strrchr(path, '/');
            base = base ? base + 1 : path;
            for (size_t k = 0; k < sizeof GOOGLE_RANGE_FILES / sizeof GOOGLE_RANGE_FILES[0]; k++)
                if (strcmp(base, GOOGLE_RANGE_FILES[k].file) == 0) tokens = GOOGLE_RANGE_FILES[k].tokens;
            if (tokens == NULL)
                return cli_usage_error("logs", "--verify %s: whose ranges are these? Name the crawler: "
                                       "--verify TOKEN=FILE (Google's googlebot.json, special-crawlers.json and "
                                       "user-triggered-fetchers.json are known by name)", path);
        }
        char *data = NULL;
        size_t size = 0;
        int truncated = 0;
        if (cli_read_file(path, 64u << 20, &data, &size, &truncated) != 0) return 2;
        char err[160] = "";
        const rs_status st = truncated ? RS_ERR_LIMIT : rs_ipranges_add(*out, tokens, data, size, err, sizeof err, NULL);
        free(data);
        if (st != RS_OK)
            return cli_usage_error("logs", "--verify %s: %s", path, st == RS_ERR_LIMIT ? "file over 64 MiB" : err);
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
    job.scheme = o.scheme ? o.scheme : "https";
    if (strcmp(job.scheme, "http") && strcmp(job.scheme, "https"))
        return cli_usage_error("logs", "--scheme takes http or https, not '%s'", job.scheme);
    char host_buf[RS_ORIGIN_MAX];
    if (o.host) {
        const char *hs;
        if (parse_host_option(o.host, host_buf, sizeof host_buf, &hs) != 0)
            return cli_usage_error("logs", "--host takes a host (example.com, example.com:8080) or an origin "
                                   "(https://example.com), not '%s'", o.host);
        if (hs && o.scheme && strcmp(hs, o.scheme))
            return cli_usage_error("logs", "--host %s and --scheme %s disagree", o.host, o.scheme);
        if (hs) job.scheme = hs;
        job.host = host_buf;
    }
    job.memory_limit = (uint64_t)1 << 30;
    if (o.memory_limit && spill_parse_size(o.memory_limit, &job.memory_limit) != 0)
        return cli_usage_error("logs", "--memory-limit takes a size of at least 1M (64M, 1G, ...), not '%s'",
                               o.memory_limit);
    if (o.only) {
        if (strcmp(o.only, "violations")) return cli_usage_error("logs", "--only takes violations, not '%s'", o.only);
        job.only_violations = 1;
    }
    job.spec = o.log_format ? o.log_format : "combined";
    char err[256] = "";
    rs_logparser *probe = NULL;
    if (rs_logparser_create(job.spec, strlen(job.spec), o.fields, (size_t)o.n_fields, err, sizeof err, &probe) != RS_OK)
        return cli_usage_error("logs", "bad --log-format: %s", err[0] ? err : "cannot compile");
    const unsigned fields = rs_logparser_fields(probe);
    const int stateful = rs_logparser_stateful(probe);
    rs_logparser_free(probe);
    if (!(fields & RS_LOGF_HOST) && job.host == NULL)
        return cli_usage_error("logs", "this log format does not name the site: give --host HOST");
    rs_ipranges *ranges = NULL;
    if ((rc = load_ranges(&o, &ranges)) != 0) {
        rs_ipranges_free(ranges);
        return rc;
    }
    job.ranges = ranges;
    if (!(fields & RS_LOGF_USER_AGENT) && ranges == NULL) {
        return cli_usage_error("logs", "this log format has no user agent: its hits can only be attributed to "
                               "crawlers by client IP, with published ranges (--verify googlebot.json, "
                               "--verify TOKEN=CIDR-LIST)");
    }
    rs_sites *sites = NULL;
    if (cli_sites_open(&o, &sites) != 0) {
        rs_ipranges_free(ranges);
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
    /* W3C `#Fields:` lines and `auto` detection are read in file order. */
    if (stateful) cfg.jobs = 1;
    cfg.process = process_block;
    cfg.ctx = &job;
    cfg.state_new = worker_new;
    cfg.state_free = worker_free;
    cfg.user_new = acc_new;
    cfg.user_free = acc_free;
    cfg.in_order = keep_block;
    const size_t n_columns = ranges ? N_RENDERED + 2 : N_RENDERED + 1;
    cfg.columns = o.input_line ? cli_input_line_columns(COLUMNS, n_columns) : COLUMNS;
    cfg.n_columns = n_columns + (o.input_line ? 1 : 0);

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
    uint64_t *key_viol = NULL;
    if (rc == 0) {
        key_viol = calloc(rs_tally_size(job.delay_keys) + 1, sizeof *key_viol);
        if (key_viol == NULL || (violation = delay_violations(&job, key_viol)) == NULL) {
            cli_error("crawl-delay pass failed (out of memory or a temporary file could not be read)");
            rc = 2;
        }
    }
    if (rc == 0 && merge_accs(users, n_users) != RS_OK) rc = 2;
    /* SPEC 7: a log in another format is flagged, not read as "nothing parsed". */
    if (rc == 0) {
        const uint64_t ok = tot->counts.extra[X_FIRST_OK], bad = tot->counts.extra[X_FIRST_BAD];
        if (bad > 0 && bad * 2 > ok + bad) {
            const logs_acc *acc = users[0];
            const char *would = rs_log_detect(acc->sample.ptr ? acc->sample.ptr : "", acc->sample.len);
            cli_error("%llu of the first %llu lines do not parse as --log-format %s%s%s%s", (unsigned long long)bad,
                      (unsigned long long)(ok + bad), o.log_format ? "'" : "", job.spec, o.log_format ? "'" : "",
                      o.log_format ? "" : " (the default)");
            if (would != NULL && strcmp(would, job.spec) != 0)
                fprintf(stderr, "hint: they read as '%s': try --log-format %s (or --log-format auto)\n", would, would);
            else
                fprintf(stderr, "hint: no known format reads them; give the server's log_format/LogFormat string "
                                "with --log-format\n");
            rc = 2;
        }
    }
    if (rc == 0 && tot->counts.lines == 0) cli_warn("no log lines in the input");
    /* --quiet: the summary alone, in the --format asked for (text when none was). */
    const rs_format sum_fmt = o.quiet && o.format_given ? o.format : RS_FORMAT_TEXT;
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
        for (uint32_t key = 0; rc == 0 && key < rs_tally_size(job.delay_keys); key++) {
            if (key_viol[key] == 0) continue;
            const rs_str k = rs_tally_key(job.delay_keys, key);
            for (size_t i = 0; i < n_rows; i++)
                if (key_has_bot(k, rows[i].bot)) { rows[i].delay_violations += key_viol[key]; break; }
        }
        if (rows) qsort(rows, n_rows, sizeof *rows, bot_row_cmp);
        any_violation = (uint64_t)job.any_disallowed;
        for (size_t i = 0; i < job.n_records; i++) any_violation |= violation[i];
        if (!o.quiet && write_records(&job, violation) != 0) rc = 2;
        if (rc == 0 && (o.quiet || o.format == RS_FORMAT_TEXT)) {
            if (!o.quiet) put(cli_out(), "\n");
            summary(cli_out(), sum_fmt, rows, n_rows, &tot->counts, ranges != NULL);
            if (cli_out_flush(0) != 0) rc = 2;
        }
        const char *fmt_name = job.spec;
        rs_logparser *named = NULL;
        if (rs_logparser_create(job.spec, strlen(job.spec), o.fields, (size_t)o.n_fields, NULL, 0, &named) == RS_OK)
            fmt_name = rs_logparser_name(named);
        char fname[32];
        snprintf(fname, sizeof fname, "%s", fmt_name);
        rs_logparser_free(named);
        if (rc == 0 && o.stats_path
            && write_stats(o.stats_path, rows, n_rows, acc, &tot->counts, seconds, fname) != 0)
            rc = 2;
        if (rc == 0 && cli_write_html(&o) != 0) rc = 2;
    }
    /* Malformed lines are never silent: the text and jsonl summaries count them; otherwise
     * (records only, or a tsv/csv summary of bot rows alone) a note at the end, as urls gives. */
    const int counted = (o.quiet || o.format == RS_FORMAT_TEXT) && (sum_fmt == RS_FORMAT_TEXT || sum_fmt == RS_FORMAT_JSONL);
    if (rc == 0 && tot->counts.malformed && !o.verbose && !counted)
        fprintf(stderr, "robotscan logs: %llu malformed line%s skipped (--verbose names them)\n",
                (unsigned long long)tot->counts.malformed, tot->counts.malformed == 1 ? "" : "s");
    if (o.verbose) {
        fprintf(stderr, "robotscan: %llu lines in %.3f s (%.0f lines/s)\n", (unsigned long long)tot->counts.lines,
                seconds, seconds > 0 ? (double)tot->counts.lines / seconds : 0.0);
    }
    free(rows);
    free(violation);
    free(key_viol);
    if (job.rec_spilled) spill_close(&job.rec_spill);
    for (size_t r = 0; r < job.n_runs; r++) spill_close(&job.runs[r]);
    free(job.runs);
    pipeline_free(&p);
    cli_sites_close(sites);
    rs_ipranges_free(ranges);
    rs_outbuf_free(&job.records);
    free(job.rec_end);
    free(job.rec_disallowed);
    free(job.rec_verified);
    free(job.delays);
    rs_tally_free(job.delay_keys);
    if (cli_out_finish() != 0) rc = 2;
    if (rc || input_failed) return 2;
    return o.fail_on && any_violation ? 1 : 0;
}
