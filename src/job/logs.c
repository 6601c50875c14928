/*
 * logs.c - the logs job (RS_JOB_LOGS): access logs + robots sources -> which
 * bot hits broke robots.txt, and which came faster than the crawl-delay.
 *
 * Workers parse lines and hand each to the auditor (src/log/audit.c: site,
 * crawler from the User-Agent or the ranges, URL, verdict of the group it
 * follows, crawl-delay); this file keeps the agent filter, the counters per
 * bot, hour and day, and the records: each formatted without its last
 * column. The calling thread keeps records in input order (keep_block);
 * crawl-delay needs every hit of a (bot, origin) in time order, which merged
 * logs do not give, so delay violations are decided by rs_job_finish once the
 * whole input is read (src/log/delay.c), and the records are delivered then.
 * Past a quarter of RS_JOB_MEMORY_LIMIT, records and sorted runs of
 * crawl-delay entries spill to temporary zstd files (src/scan/spill.c),
 * merged back at the end: memory stays bounded whatever the number of bot
 * hits (about 1 byte per hit remains, the violation flags).
 */
#include "job/job.h"
#include "common/common.h"
#include "log/delay.h"
#include "scan/spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const COLUMNS[] = {
    "time", "client", "origin", "agent", "user_agent", "method", "url", "status",
    "verdict", "line", "rule", "reason", "delay_violation", "verified",
};
/* Rendered per hit: the first N_RENDERED; delay_violation (and verified, with
 * ranges) are appended once the whole input is read. */
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
/* A ranges file's largest size. */
#define RANGES_MAX ((size_t)64 << 20)
/* pending_hit.verified / rec_verified */
enum { V_UNKNOWN = RS_VERIFIED_UNKNOWN, V_YES = RS_VERIFIED_YES, V_NO = RS_VERIFIED_NO };
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
    rs_job *job;
    rs_sites *sites;
    const char *spec;      /* RS_JOB_LOG_FORMAT */
    char format_name[32];  /* as the statistics name it */
    rs_ipranges *ranges;   /* RS_JOB_VERIFY; NULL when none */
    const char *host;
    const char *scheme;
    const char *input_name;
    rs_format format;
    int only_violations, quiet, verbose, input_line;
    int tallies;           /* the rules, hours and days of the statistics (RS_JOB_TALLIES) */
    pipeline pipe;
    int pipe_inited;
    /* in-order state (calling thread) */
    rs_outbuf records;     /* all bot-hit records, without the last column */
    uint32_t *rec_end;     /* end offset of each record in memory (index - rec_base) */
    uint8_t *rec_disallowed;
    uint8_t *rec_verified;
    size_t n_records;      /* all bot hits so far (spilled ones included) */
    size_t rec_base;       /* index of the first record still in memory */
    size_t cap_records;
    uint64_t n_disallowed; /* records with a disallowed verdict (spoofed ones too) */
    rs_delay *delay;       /* the crawl-delay pass */
    /* the memory limit (SPEC 7): past a quarter of it, records and sorted runs of
     * crawl-delay entries go to temporary zstd files */
    uint64_t budget;
    rs_spill *rec_spill;   /* records: {u32 len, u8 disallowed, u8 verified} + bytes */
    /* rs_job_finish */
    uint8_t *violation;    /* per record: came sooner than its crawl-delay */
    uint64_t violations;   /* records disallowed or violating the crawl-delay */
    rs_job_logs_bot *bots;
    rs_job_logs_summary sum;
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

static void *worker_new(void) { return rs_calloc(1, sizeof(logs_worker)); }

static void worker_free(void *p)
{
    logs_worker *w = p;
    if (w == NULL) return;
    rs_logparser_free(w->parser);
    rs_log_auditor_free(w->auditor);
    rs_outbuf_free(&w->key);
    rs_free(w);
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
    rs_free(a);
}

static void *acc_new(void)
{
    logs_acc *a = rs_calloc(1, sizeof *a);
    if (a == NULL) return NULL;
    if (rs_tally_create(B_COUNT, &a->bots) != RS_OK || rs_tally_create(1, &a->paths) != RS_OK
        || rs_tally_create(1, &a->rules) != RS_OK || rs_tally_create(H_COUNT, &a->hours) != RS_OK
        || rs_tally_create(H_COUNT, &a->days) != RS_OK) {
        acc_free(a);
        return NULL;
    }
    return a;
}

static int agent_wanted(const rs_job *jb, rs_str token)
{
    if (jb->n_agents == 0) return 1;
    for (size_t i = 0; i < jb->n_agents; i++)
        if (strlen(jb->agents[i]) == token.len && strncasecmp(jb->agents[i], token.ptr, token.len) == 0)
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
        RS_FORWARD(rs_log_auditor_create(&cfg, &w->auditor));
    }
    rs_log_hit hit;
    rs_status st = rs_log_audit_bot(w->auditor, rec, &hit);
    if (st != RS_OK) return audit_fail(job, res, st);
    if (hit.kind == RS_LOGHIT_NO_SITE) {
        res->counts.malformed++;
        if (job->verbose)
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
    const int verified = hit.verified;   /* V_* */
    const int spoofed = verified == V_NO;
    if (!agent_wanted(job->job, bot.token)) {
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
    if (strcmp(reason, "no-robots") == 0) res->counts.reason[RS_REASON_NO_ROBOTS]++; /* not judged */
    uint32_t ix;
    {
        struct bot_memo *m = &w->bot_ix[((uintptr_t)bot.token.ptr >> 3) & 31];
        if (m->t == acc->bots && m->tok == bot.token.ptr && m->len == bot.token.len && m->ix < rs_tally_size(acc->bots)) {
            ix = m->ix;
        } else {
            RS_FORWARD(rs_tally_find(acc->bots, bot.token.ptr, bot.token.len, &ix));
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
    }
    if (has_time && job->tallies) {
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
                RS_FORWARD(rs_outbuf_append(k, bot.token.ptr, bot.token.len));
                RS_FORWARD(rs_outbuf_append(k, "\t", 1));
                RS_FORWARD(rs_outbuf_append(k, time_col, per ? 10 : 13));
                RS_FORWARD(rs_tally_find(tl, k->ptr, k->len, &pix[per]));
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
        RS_FORWARD(rs_outbuf_append(k, bot.token.ptr, bot.token.len));
        RS_FORWARD(rs_outbuf_append(k, "\t", 1));
        /* per origin, so that shards by site sum exactly (docs/scale-out.md) */
        RS_FORWARD(rs_outbuf_append(k, origin->origin.ptr, origin->origin.len));
        RS_FORWARD(rs_outbuf_append(k, path.ptr, path.len));
        RS_FORWARD(rs_tally_find(acc->paths, k->ptr, k->len, &ix));
        rs_tally_counters(acc->paths, ix)[0]++;
    }
    if (v.disallowed && !spoofed && job->tallies) {
        char num[32];
        size_t nl = sizeof num;
        num[--nl] = '\0';
        num[--nl] = '\t';
        unsigned line = v.line;
        do num[--nl] = (char)('0' + line % 10); while ((line /= 10) != 0);
        num[--nl] = '\t';
        memmove(num, num + nl, sizeof num - nl);
        k->len = 0;
        RS_FORWARD(rs_outbuf_append(k, bot.token.ptr, bot.token.len));
        RS_FORWARD(rs_outbuf_append(k, "\t", 1));
        RS_FORWARD(rs_outbuf_append(k, origin->origin.ptr, origin->origin.len));
        RS_FORWARD(rs_outbuf_append(k, num, strlen(num)));
        RS_FORWARD(rs_outbuf_append(k, rule.ptr, rule.len));
        RS_FORWARD(rs_tally_find(acc->rules, k->ptr, k->len, &ix));
        rs_tally_counters(acc->rules, ix)[0]++;
    }

    /* The record, without its last column (decided after the whole input). */
    if (!job->quiet) {
        if (job->format == RS_FORMAT_TEXT) {
            char head[160];
            snprintf(head, sizeof head, "%s  %.*s  %s  ", v.disallowed ? "DISALLOWED" : "allowed   ",
                     (int)bot.token.len, bot.token.ptr, time_col);
            RS_FORWARD(rs_outbuf_append(&res->out, head, strlen(head)));
            RS_FORWARD(rs_outbuf_append(&res->out, url, url_len));
            if (v.line) {
                snprintf(head, sizeof head, "  (line %u: ", v.line);
                RS_FORWARD(rs_outbuf_append(&res->out, head, strlen(head)));
                RS_FORWARD(rs_outbuf_append(&res->out, rule.ptr, rule.len));
                RS_FORWARD(rs_outbuf_append(&res->out, ")", 1));
            }
            snprintf(head, sizeof head, "  [%s]", reason);
            RS_FORWARD(rs_outbuf_append(&res->out, head, strlen(head)));
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
            RS_FORWARD(rs_format_record(&res->out, job->format, COLUMNS, f, N_RENDERED));
            if (job->input_line) RS_FORWARD(rs_format_input_line(&res->out, start, job->format, line_no));
            if (job->format != RS_FORMAT_FIELDS) {
                res->out.len--;                                        /* the newline */
                if (job->format == RS_FORMAT_JSONL) res->out.len--;    /* the '}' */
            }
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
        RS_FORWARD(rs_outbuf_append(k, bot.token.ptr, bot.token.len));
        RS_FORWARD(rs_outbuf_append(k, "\t", 1));
        RS_FORWARD(rs_outbuf_append(k, origin->origin.ptr, origin->origin.len));
    }
    h.key_len = (uint32_t)k->len;
    RS_FORWARD(rs_outbuf_append(&res->aux, &h, sizeof h));
    if (k->len) {
        static const char zeros[8] = { 0 };
        RS_FORWARD(rs_outbuf_append(&res->aux, k->ptr, k->len));
        RS_FORWARD(rs_outbuf_append(&res->aux, zeros, (8 - k->len % 8) % 8));
    }
    return RS_OK;
}

static rs_status process_block(void *ctx, void *state, const rs_block *block, pipeline_result *res)
{
    logs_job *job = ctx;
    logs_worker *w = state;
    logs_acc *acc = res->user;
    const rs_job *jb = job->job;
    if (w->parser == NULL) {
        char err[256] = "";
        const rs_status st = rs_logparser_create(job->spec, strlen(job->spec), (const char *const *)jb->fields,
                                                 jb->n_fields, err, sizeof err, &w->parser);
        if (st != RS_OK) {
            pipeline_fail(res, st, "bad log format: %s", err);
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
            if (job->verbose)
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
                RS_FORWARD(rs_outbuf_append(&acc->sample, ln.text.ptr, ln.text.len));
                RS_FORWARD(rs_outbuf_append(&acc->sample, "\n", 1));
            }
        }
        if (st != RS_LOGLINE_OK) {
            res->counts.malformed++;
            if (job->verbose)
                pipeline_diag(res, "%s:%llu: malformed log line (%s at byte %zu), skipped", job->input_name,
                              (unsigned long long)ln.number, rs_logline_status_str(st), rec.error_offset);
            continue;
        }
        RS_FORWARD(one_hit(job, w, res, &rec, ln.number));
    }
    return RS_OK;
}

/* ===== In order: keep records, collect crawl-delay candidates ===== */

/* Moves the records in memory to the records spill file. */
static rs_status spill_records(logs_job *job, char *err, size_t err_cap)
{
    if (job->rec_spill == NULL) RS_FORWARD(rs_spill_open(job_spill_dir(job->job), &job->rec_spill, err, err_cap));
    const size_t n = job->n_records - job->rec_base;
    uint32_t start = 0;
    for (size_t i = 0; i < n; i++) {
        const uint32_t len = job->rec_end[i] - start;
        unsigned char hdr[8] = { 0 };
        memcpy(hdr, &len, 4);
        hdr[4] = job->rec_disallowed[i];
        hdr[5] = job->rec_verified[i];
        RS_FORWARD(rs_spill_write(job->rec_spill, hdr, sizeof hdr, err, err_cap));
        RS_FORWARD(rs_spill_write(job->rec_spill, job->records.ptr + start, len, err, err_cap));
        start = job->rec_end[i];
    }
    job->records.len = 0;
    job->rec_base = job->n_records;
    return RS_OK;
}

static rs_status spill_over_budget(logs_job *job, char *err, size_t err_cap)
{
    const uint64_t recs = job->records.len + (uint64_t)(job->n_records - job->rec_base) * 6;
    /* Records in memory also stay under 2 GiB: their offsets are 32-bit. */
    if (recs > job->budget || job->records.len > ((uint64_t)1 << 31)) RS_FORWARD(spill_records(job, err, err_cap));
    if (rs_delay_memory(job->delay) > job->budget) RS_FORWARD(rs_delay_spill(job->delay, err, err_cap));
    return RS_OK;
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
            uint32_t *e = rs_realloc(job->rec_end, cap * sizeof *e);
            RS_RETURN_IF(e == NULL, RS_ERR_NOMEM);
            job->rec_end = e;
            uint8_t *d = rs_realloc(job->rec_disallowed, cap);
            RS_RETURN_IF(d == NULL, RS_ERR_NOMEM);
            job->rec_disallowed = d;
            d = rs_realloc(job->rec_verified, cap);
            RS_RETURN_IF(d == NULL, RS_ERR_NOMEM);
            job->rec_verified = d;
            job->cap_records = cap;
        }
        if (h.rec_end > rec_start) /* nothing rendered without records: out.ptr may be NULL */
            RS_FORWARD(rs_outbuf_append(&job->records, res->out.ptr + rec_start, h.rec_end - rec_start));
        if (job->records.len > UINT32_MAX) {
            pipeline_fail(res, RS_ERR_LIMIT, "more than 4 GiB of bot-hit records; use --quiet or --only");
            return RS_ERR_LIMIT;
        }
        rec_start = h.rec_end;
        job->rec_end[mi] = (uint32_t)job->records.len;
        job->rec_disallowed[mi] = h.disallowed;
        job->rec_verified[mi] = h.verified;
        job->n_disallowed += h.disallowed;
        if (h.key_len && h.has_time)
            RS_FORWARD(rs_delay_add(job->delay, key, h.key_len, h.delay, (uint32_t)job->n_records, h.epoch, h.robots,
                                    h.disallowed));
        job->n_records++;
    }
    res->out.len = 0; /* delivered by rs_job_finish */
    char err[320] = "";
    const rs_status st = spill_over_budget(job, err, sizeof err);
    if (st != RS_OK) {
        pipeline_fail(res, st, "cannot write a temporary file for --memory-limit: %s", err[0] ? err : rs_status_str(st));
        return st;
    }
    return RS_OK;
}

/* ===== Records, at the end ===== */

/* One record with its delay_violation (and verified) column. @return 0 or -1 (error on the io). */
static int write_one(logs_job *job, const char *rec, size_t len, int dv, int disallowed, int verified)
{
    if (job->only_violations && !dv && !disallowed) return 0;
    rs_job_io *io = &job->job->io;
    const size_t start = io->out.len;
    char tail[96];
    size_t tail_len;
    const char *vs = VERIFIED_STR[verified % 3];
    const int verify = job->ranges != NULL;
    switch ((int)job->format) {
    case RS_FORMAT_TSV:
        tail_len = (size_t)(verify ? snprintf(tail, sizeof tail, "\t%d\t%s\n", dv, vs) : snprintf(tail, sizeof tail, "\t%d\n", dv));
        break;
    case RS_FORMAT_CSV:
        tail_len = (size_t)(verify ? snprintf(tail, sizeof tail, ",%d,%s\n", dv, vs) : snprintf(tail, sizeof tail, ",%d\n", dv));
        break;
    case RS_FORMAT_JSONL:
        tail_len = (size_t)(verify ? snprintf(tail, sizeof tail, ",\"delay_violation\":%d,\"verified\":\"%s\"}\n", dv, vs)
                                   : snprintf(tail, sizeof tail, ",\"delay_violation\":%d}\n", dv));
        break;
    case RS_FORMAT_FIELDS: {    /* one or two more fields: u32 length, bytes */
        const uint32_t one = 1, vlen = (uint32_t)strlen(vs);
        memcpy(tail, &one, 4);
        tail[4] = dv ? '1' : '0';
        tail_len = 5;
        if (verify) {
            memcpy(tail + tail_len, &vlen, 4);
            memcpy(tail + tail_len + 4, vs, vlen);
            tail_len += 4 + vlen;
        }
        break;
    }
    default:
        tail_len = (size_t)snprintf(tail, sizeof tail, "%s%s\n", dv ? "  [crawl-delay violation]" : "",
                                    verified == V_NO ? "  [spoofed: not from its published IP ranges]" : "");
        break;
    }
    if (rs_outbuf_append(&io->out, rec, len) != RS_OK || rs_outbuf_append(&io->out, tail, tail_len) != RS_OK) {
        rs_io_error(io, RS_ERR_NOMEM, "out of memory");
        return -1;
    }
    if (job->format == RS_FORMAT_FIELDS) {     /* the record's head counts them */
        uint32_t body;
        uint16_t count;
        memcpy(&body, io->out.ptr + start, 4);
        memcpy(&count, io->out.ptr + start + 4, 2);
        body += (uint32_t)tail_len;
        count = (uint16_t)(count + (verify ? 2 : 1));
        memcpy(io->out.ptr + start, &body, 4);
        memcpy(io->out.ptr + start + 4, &count, 2);
    }
    return rs_io_flush(io, (size_t)1 << 18);
}

/* Delivers every record in input order: the spilled ones, then those in memory. */
static int write_records(logs_job *job)
{
    rs_job_io *io = &job->job->io;
    const uint8_t *violation = job->violation;
    size_t i = 0;
    if (job->rec_spill) {
        char err[320] = "";
        if (rs_spill_rewind(job->rec_spill, err, sizeof err) != RS_OK) {
            rs_io_error(io, RS_ERR_IO, "%s", err[0] ? err : "cannot read back a temporary file");
            return -1;
        }
        char *buf = NULL;
        size_t cap = 0;
        for (; i < job->rec_base; i++) {
            unsigned char hdr[8];
            uint32_t len;
            rs_status st = rs_spill_read(job->rec_spill, hdr, sizeof hdr);
            if (st == RS_OK) {
                memcpy(&len, hdr, 4);
                if (len > cap) {
                    char *nb = rs_realloc(buf, len);
                    if (nb == NULL) st = RS_ERR_NOMEM;
                    else {
                        buf = nb;
                        cap = len;
                    }
                }
            }
            if (st == RS_OK && len) st = rs_spill_read(job->rec_spill, buf, len);
            if (st != RS_OK) {
                rs_free(buf);
                rs_io_error(io, st == RS_ERR_NOMEM ? st : RS_ERR_IO, "%s",
                            st == RS_ERR_NOMEM ? "out of memory" : "cannot read back a temporary file");
                return -1;
            }
            if (write_one(job, buf, len, violation[i], hdr[4], hdr[5]) != 0) {
                rs_free(buf);
                return -1;
            }
        }
        rs_free(buf);
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

/* ===== Summary data ===== */

static int bot_cmp(const void *a, const void *b)
{
    const rs_job_logs_bot *x = a, *y = b;
    if (x->hits != y->hits) return x->hits > y->hits ? -1 : 1;
    const size_t n = x->agent.len < y->agent.len ? x->agent.len : y->agent.len;
    const int c = memcmp(x->agent.ptr, y->agent.ptr, n);
    return c ? c : (x->agent.len > y->agent.len) - (x->agent.len < y->agent.len);
}

static int key_has_bot(rs_str key, rs_str bot)
{
    return key.len > bot.len && key.ptr[bot.len] == '\t' && memcmp(key.ptr, bot.ptr, bot.len) == 0;
}

static void fetch_time(char *dst, size_t cap, uint64_t stored)
{
    if (stored == 0) snprintf(dst, cap, "-");
    else format_time(dst, cap, (int64_t)stored - 1, 1);
}

/* The bot rows, most hits first. */
static rs_status make_bots(logs_job *job, const logs_acc *acc)
{
    const size_t n = rs_tally_size(acc->bots);
    job->bots = rs_calloc(n ? n : 1, sizeof *job->bots);
    RS_RETURN_IF(job->bots == NULL, RS_ERR_NOMEM);
    for (size_t i = 0; i < n; i++) {
        rs_job_logs_bot *b = &job->bots[i];
        const uint64_t *bc = rs_tally_counters_const(acc->bots, (uint32_t)i);
        b->agent = rs_tally_key(acc->bots, (uint32_t)i);
        b->hits = bc[B_HITS];
        b->disallowed = bc[B_DISALLOWED];
        b->robots_fetches = bc[B_ROBOTS_FETCHES];
        b->verified = bc[B_VERIFIED];
        b->unverified = bc[B_UNKNOWN];
        b->spoofed = bc[B_SPOOFED];
        b->spoofed_disallowed = bc[B_SPOOFED_DISALLOWED];
        b->has_first_fetch = bc[B_FIRST_FETCH] != 0;
        fetch_time(b->first_fetch, sizeof b->first_fetch, bc[B_FIRST_FETCH]);
        for (uint32_t k = 0; k < rs_tally_size(acc->paths); k++)
            b->distinct_paths += key_has_bot(rs_tally_key(acc->paths, k), b->agent);
    }
    /* Delay violations per bot: the delay keys are "bot\torigin". */
    for (uint32_t key = 0; key < rs_delay_keys(job->delay); key++) {
        const uint64_t kv = rs_delay_key_violations(job->delay, key);
        if (kv == 0) continue;
        const rs_str k = rs_delay_key(job->delay, key);
        for (size_t i = 0; i < n; i++)
            if (key_has_bot(k, job->bots[i].agent)) { job->bots[i].delay_violations += kv; break; }
    }
    qsort(job->bots, n, sizeof *job->bots, bot_cmp);
    job->sum.bots = job->bots;
    job->sum.n_bots = n;
    return RS_OK;
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
            RS_FORWARD(rs_tally_find(to->bots, key.ptr, key.len, &j));
            uint64_t *d = rs_tally_counters(to->bots, j);
            const uint64_t *s = rs_tally_counters_const(from->bots, k);
            for (int c = 0; c < B_COUNT; c++)
                if (c != B_FIRST_FETCH && c != B_LAST_FETCH) d[c] += s[c];
            if (s[B_FIRST_FETCH] && (d[B_FIRST_FETCH] == 0 || s[B_FIRST_FETCH] < d[B_FIRST_FETCH]))
                d[B_FIRST_FETCH] = s[B_FIRST_FETCH];
            if (s[B_LAST_FETCH] > d[B_LAST_FETCH]) d[B_LAST_FETCH] = s[B_LAST_FETCH];
        }
        RS_FORWARD(rs_tally_merge(to->paths, from->paths));
        RS_FORWARD(rs_tally_merge(to->rules, from->rules));
        RS_FORWARD(rs_tally_merge(to->hours, from->hours));
        RS_FORWARD(rs_tally_merge(to->days, from->days));
        if (to->sample.len + from->sample.len < 4 * SAMPLE_MAX)
            RS_FORWARD(rs_outbuf_append(&to->sample, from->sample.ptr, from->sample.len));
    }
    return RS_OK;
}

const rs_job_logs_summary *rs_job_logs_summary_get(rs_job *jb)
{
    if (jb == NULL || jb->kind != RS_JOB_LOGS || jb->impl == NULL) return NULL;
    logs_job *job = jb->impl;
    if (!job->pipe_inited) return NULL;
    const pipeline_totals *t = pipeline_totals_get(&job->pipe);
    const pipeline_counts *c = &t->counts;
    rs_job_logs_summary *s = &job->sum;
    s->lines = c->lines;
    s->bot_hits = c->urls;
    s->non_bot_hits = c->extra[X_NON_BOT];
    s->other_bot_hits = c->extra[X_FILTERED];
    s->malformed = c->malformed;
    s->blank = c->blank;
    s->spoofed = c->extra[X_SPOOFED];
    s->by_ip = c->extra[X_BY_IP];
    s->first_ok = c->extra[X_FIRST_OK];
    s->first_bad = c->extra[X_FIRST_BAD];
    s->verify = job->ranges != NULL;
    s->input_failed = t->input_failed;
    return s;
}

/* ===== The job ===== */

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

/* Reads at most @max bytes of @path into *@data (rs_free); *@over when it holds more. */
static rs_status read_ranges_file(rs_job_io *io, const char *path, size_t max, char **data, size_t *size, int *over)
{
    *data = NULL;
    *size = 0;
    *over = 0;
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        rs_io_error(io, RS_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        return RS_ERR_IO;
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        rs_io_error(io, RS_ERR_IO, "%s: cannot read: %s", path, strerror(EISDIR));
        close(fd);
        return RS_ERR_IO;
    }
    size_t cap = 65536, len = 0;
    char *buf = rs_malloc(cap);
    for (;;) {
        if (buf == NULL) {
            rs_io_error(io, RS_ERR_NOMEM, "%s: cannot read: out of memory", path);
            close(fd);
            return RS_ERR_NOMEM;
        }
        if (len == max + 1) break;
        if (len == cap) {
            cap *= 2;
            char *nb = rs_realloc(buf, cap);
            if (nb == NULL) rs_free(buf);
            buf = nb;
            continue;
        }
        size_t want = cap - len;
        if (want > max + 1 - len) want = max + 1 - len;
        const ssize_t n = read(fd, buf + len, want);
        if (n < 0) {
            if (errno == EINTR) continue;
            rs_io_error(io, RS_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
            rs_free(buf);
            close(fd);
            return RS_ERR_IO;
        }
        if (n == 0) break;
        len += (size_t)n;
    }
    close(fd);
    if (len > max) {
        len = max;
        *over = 1;
    }
    *data = buf;
    *size = len;
    return RS_OK;
}

/* The published ranges of RS_JOB_VERIFY ([TOKEN=]FILE each). Errors go on the io. */
static rs_status load_ranges(rs_job *jb, rs_ipranges **out)
{
    rs_job_io *io = &jb->io;
    *out = NULL;
    if (jb->n_verify == 0) return RS_OK;
    if (rs_ipranges_create(out) != RS_OK) {
        rs_io_error(io, RS_ERR_NOMEM, "out of memory");
        return RS_ERR_NOMEM;
    }
    for (size_t i = 0; i < jb->n_verify; i++) {
        const char *arg = jb->verify[i], *path = arg, *tokens = NULL;
        char tokbuf[256];
        const char *eq = strchr(arg, '=');
        if (eq != NULL && memchr(arg, '/', (size_t)(eq - arg)) == NULL && eq > arg) {
            if ((size_t)(eq - arg) >= sizeof tokbuf) {
                rs_io_error(io, RS_ERR_USAGE, "--verify: token list too long");
                return RS_ERR_USAGE;
            }
            memcpy(tokbuf, arg, (size_t)(eq - arg));
            tokbuf[eq - arg] = '\0';
            tokens = tokbuf;
            path = eq + 1;
        } else {
            const char *base = strrchr(path, '/');
            base = base ? base + 1 : path;
            for (size_t k = 0; k < sizeof GOOGLE_RANGE_FILES / sizeof GOOGLE_RANGE_FILES[0]; k++)
                if (strcmp(base, GOOGLE_RANGE_FILES[k].file) == 0) tokens = GOOGLE_RANGE_FILES[k].tokens;
            if (tokens == NULL) {
                rs_io_error(io, RS_ERR_USAGE, "--verify %s: whose ranges are these? Name the crawler: "
                            "--verify TOKEN=FILE (Google's googlebot.json, special-crawlers.json and "
                            "user-triggered-fetchers.json are known by name)", path);
                return RS_ERR_USAGE;
            }
        }
        char *data = NULL;
        size_t size = 0;
        int over = 0;
        RS_FORWARD(read_ranges_file(io, path, RANGES_MAX, &data, &size, &over));
        char err[160] = "";
        const rs_status st = over ? RS_ERR_LIMIT : rs_ipranges_add(*out, tokens, data, size, err, sizeof err, NULL);
        rs_free(data);
        if (st != RS_OK) {
            rs_io_error(io, RS_ERR_USAGE, "--verify %s: %s", path, st == RS_ERR_LIMIT ? "file over 64 MiB" : err);
            return RS_ERR_USAGE;
        }
    }
    return RS_OK;
}

static void logs_free(rs_job *jb);

static rs_status usage(rs_job *jb, const char *msg)
{
    rs_io_error(&jb->io, RS_ERR_USAGE, "%s", msg);
    return RS_ERR_USAGE;
}

static rs_status logs_start(rs_job *jb)
{
    logs_free(jb);  /* a start that failed before (rs_job_columns) */
    logs_job *job = rs_calloc(1, sizeof *job);
    RS_RETURN_IF(job == NULL, RS_ERR_NOMEM);
    jb->impl = job;
    job->job = jb;
    job->spec = jb->log_format ? jb->log_format : "combined";
    job->scheme = jb->scheme ? jb->scheme : "https";
    job->host = jb->host;
    if (strcmp(job->scheme, "http") && strcmp(job->scheme, "https")) return usage(jb, "the scheme is http or https");
    if (jb->n_robots == 0 && jb->sites == NULL) return usage(jb, "a logs job needs robots sources");
    char err[256] = "";
    rs_logparser *probe = NULL;
    if (rs_logparser_create(job->spec, strlen(job->spec), (const char *const *)jb->fields, jb->n_fields, err,
                            sizeof err, &probe) != RS_OK) {
        rs_io_error(&jb->io, RS_ERR_USAGE, "bad log format: %s", err[0] ? err : "cannot compile");
        return RS_ERR_USAGE;
    }
    const unsigned fields = rs_logparser_fields(probe);
    const int stateful = rs_logparser_stateful(probe);
    snprintf(job->format_name, sizeof job->format_name, "%s", rs_logparser_name(probe));
    rs_logparser_free(probe);
    if (!(fields & RS_LOGF_HOST) && job->host == NULL)
        return usage(jb, "this log format does not name the site: give the host (RS_JOB_HOST)");
    RS_FORWARD(load_ranges(jb, &job->ranges));
    if (!(fields & RS_LOGF_USER_AGENT) && job->ranges == NULL)
        return usage(jb, "this log format has no user agent: its hits can only be attributed to crawlers by "
                         "client IP, with published ranges (RS_JOB_VERIFY)");
    if (jb->sites == NULL) {
        rs_sites *sites = NULL;
        const rs_status st = rs_sites_create_opts((const char *const *)jb->robots, jb->n_robots, NULL, &sites);
        if (st != RS_OK) {
            rs_io_error(&jb->io, st, "%s", sites ? rs_sites_errmsg(sites) : rs_status_str(st));
            rs_sites_free(sites);
            return st;
        }
        jb->sites = sites;
        jb->own_sites = 1;
    }
    rs_sites_set_semantics(jb->sites, jb->semantics);
    job->sites = jb->sites;
    job->format = jb->format;
    job->quiet = jb->no_records;
    job->verbose = jb->verbose;
    job->only_violations = jb->only == 1;
    job->tallies = jb->tallies;
    job->input_line = jb->input_line || jb->format == RS_FORMAT_FIELDS; /* records carry their line */
    job->input_name = "(stdin)";
    job->budget = jb->memory_limit ? jb->memory_limit / 4 : UINT64_MAX;
    job_set_columns(jb, COLUMNS, job->ranges ? N_RENDERED + 2 : N_RENDERED + 1);
    if (rs_delay_create(job_spill_dir(jb), &job->delay) != RS_OK) {
        rs_io_error(&jb->io, RS_ERR_NOMEM, "out of memory");
        return RS_ERR_NOMEM;
    }

    pipeline_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.io = &jb->io;
    /* W3C `#Fields:` lines and `auto` detection are read in file order. */
    cfg.jobs = stateful ? 1 : jb->workers;
    cfg.write_header = !job->quiet && jb->header;
    cfg.format = job->format;
    cfg.process = process_block;
    cfg.ctx = job;
    cfg.state_new = worker_new;
    cfg.state_free = worker_free;
    cfg.user_new = acc_new;
    cfg.user_free = acc_free;
    cfg.in_order = keep_block;
    cfg.columns = jb->columns;
    cfg.n_columns = jb->n_columns;
    if (pipeline_init(&job->pipe, &cfg) != 0) {
        pipeline_free(&job->pipe);
        return RS_ERR_NOMEM;
    }
    job->pipe_inited = 1;
    return RS_OK;
}

static rs_status logs_run(rs_job *jb, const job_input *in)
{
    logs_job *job = jb->impl;
    job->input_name = in->name;
    return pipeline_run_input(&job->pipe, in, NULL, NULL) == 0 ? RS_OK : RS_ERR_IO;
}

/*
 * After the last input: the crawl-delay pass, the workers' tallies merged, the check that
 * the log was in the format given (SPEC 7: a log in another format is flagged, not read as
 * "nothing parsed"), then every record in input order.
 */
static rs_status logs_finish(rs_job *jb)
{
    logs_job *job = jb->impl;
    rs_job_io *io = &jb->io;
    if (job == NULL || !job->pipe_inited) return RS_OK;
    job->violation = rs_calloc(job->n_records ? job->n_records : 1, 1);
    uint64_t allowed_dv = 0;
    rs_status st = job->violation ? rs_delay_run(job->delay, job->violation, job->n_records, &allowed_dv)
                                  : RS_ERR_NOMEM;
    if (st != RS_OK) {
        rs_io_error(io, st, "crawl-delay pass failed (out of memory or a temporary file could not be read)");
        return st;
    }
    job->violations = job->n_disallowed + allowed_dv;
    int n_users = 0;
    void **users = pipeline_users(&job->pipe, &n_users);
    if (merge_accs(users, n_users) != RS_OK) {
        rs_io_error(io, RS_ERR_NOMEM, "out of memory");
        return RS_ERR_NOMEM;
    }
    const logs_acc *acc = users[0];
    const rs_job_logs_summary *sum = rs_job_logs_summary_get(jb);
    const uint64_t ok = sum->first_ok, bad = sum->first_bad;
    if (bad > 0 && bad * 2 > ok + bad) {
        job->sum.wrong_format = 1;
        job->sum.would = rs_log_detect(acc->sample.ptr ? acc->sample.ptr : "", acc->sample.len);
        rs_io_error(io, RS_ERR_USAGE, "%llu of the first %llu lines do not parse as log format '%s'",
                    (unsigned long long)bad, (unsigned long long)(ok + bad), job->spec);
        return RS_ERR_USAGE;
    }
    if ((st = make_bots(job, acc)) != RS_OK) {
        rs_io_error(io, st, "out of memory");
        return st;
    }
    if (!job->quiet && write_records(job) != 0) return io->status != RS_OK ? io->status : RS_ERR_IO;
    return RS_OK;
}

static void logs_totals(rs_job *jb, rs_job_totals *out)
{
    logs_job *job = jb->impl;
    if (job == NULL || !job->pipe_inited) return;
    const pipeline_totals *t = pipeline_totals_get(&job->pipe);
    const pipeline_counts *c = &t->counts;
    out->lines = c->lines;
    out->blank = c->blank;
    out->records = c->urls;
    out->malformed = c->malformed;
    out->skipped = c->extra[X_FILTERED];
    out->verdict[0] = c->verdict[0];
    out->verdict[1] = c->verdict[1];
    out->bytes_in = t->bytes_in;
    out->bytes_out = t->bytes_out;
    out->violations = job->violation ? job->violations : job->n_disallowed;
    out->reason[RS_REASON_NO_ROBOTS] = c->reason[RS_REASON_NO_ROBOTS];
}

/* Stats JSON (SPEC 12), by the library's mergeable-statistics writer (rs_stats_*):
 * schema_version 2; only sums, counts, min/max, keyed tallies and per-hour/day
 * histograms (tallies in key order or by count, so nothing depends on how the workers
 * split the work), so the stats of shards merge exactly. */
static rs_status logs_stats(rs_job *jb, rs_outbuf *out)
{
    logs_job *job = jb->impl;
    RS_RETURN_IF(job == NULL || job->bots == NULL, RS_ERR_USAGE);
    const rs_job_logs_summary *s = rs_job_logs_summary_get(jb);
    int n_users = 0;
    const logs_acc *acc = pipeline_users(&job->pipe, &n_users)[0];
    const pipeline_counts *c = &pipeline_totals_get(&job->pipe)->counts;
    rs_outbuf b = { 0 };
    rs_stats_writer w;
    rs_stats_begin(&w, &b, "logs", 2);
    rs_stats_label(&w, "log_format", job->format_name, strlen(job->format_name));
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
    for (size_t i = 0; i < s->n_bots; i++) {
        const rs_job_logs_bot *bot = &s->bots[i];
        uint32_t ix;
        RS_FORWARD(rs_tally_find(acc->bots, bot->agent.ptr, bot->agent.len, &ix));
        const uint64_t *bc = rs_tally_counters_const(acc->bots, ix);
        char first[40], last[40];
        fetch_time(first, sizeof first, bc[B_FIRST_FETCH]);
        fetch_time(last, sizeof last, bc[B_LAST_FETCH]);
        rs_stats_object(&w, NULL);
        rs_stats_label(&w, "agent", bot->agent.ptr, bot->agent.len);
        rs_stats_count(&w, "hits", bot->hits);
        rs_stats_count(&w, "violations", bot->disallowed);
        rs_stats_count(&w, "delay_violations", bot->delay_violations);
        rs_stats_count(&w, "distinct_violated_paths", bot->distinct_paths);
        rs_stats_count(&w, "robots_txt_fetches", bot->robots_fetches);
        rs_stats_bound(&w, "first_robots_txt_fetch", bc[B_FIRST_FETCH] ? first : NULL);
        rs_stats_bound(&w, "last_robots_txt_fetch", bc[B_LAST_FETCH] ? last : NULL);
        rs_stats_count(&w, "verified", bot->verified);
        rs_stats_count(&w, "unverified", bot->unverified);
        rs_stats_count(&w, "spoofed", bot->spoofed);
        rs_stats_count(&w, "spoofed_violations", bot->spoofed_disallowed);
        /* the 10 most violated rules of this bot: keys "bot\torigin\tline\trule" */
        const rs_stats_tally_opts top = { 0, bot->agent, 10 };
        rs_stats_tally(&w, "top_rules", acc->rules, RULE_KEY, 3, RULE_COUNTERS, 1, &top);
        rs_stats_end(&w);
    }
    rs_stats_end(&w);
    static const char *const HOUR_KEY[] = { "agent", "hour" }, *const DAY_KEY[] = { "agent", "day" };
    static const char *const PERIOD_COUNTERS[] = { "hits", "violations", "spoofed" };
    const rs_stats_tally_opts by_key = { 1, { NULL, 0 }, 0 };
    rs_stats_tally(&w, "hours", acc->hours, HOUR_KEY, 2, PERIOD_COUNTERS, 3, &by_key);
    rs_stats_tally(&w, "days", acc->days, DAY_KEY, 2, PERIOD_COUNTERS, 3, &by_key);
    rs_stats_seconds(&w, "seconds", jb->seconds);
    const rs_status st = rs_stats_finish(&w);
    if (st != RS_OK) {
        rs_outbuf_free(&b);
        return st;
    }
    *out = b;
    return RS_OK;
}

static void logs_free(rs_job *jb)
{
    logs_job *job = jb->impl;
    if (job == NULL) return;
    if (job->pipe_inited) pipeline_free(&job->pipe);
    rs_spill_close(job->rec_spill);
    rs_delay_free(job->delay);
    rs_ipranges_free(job->ranges);
    rs_outbuf_free(&job->records);
    rs_free(job->rec_end);
    rs_free(job->rec_disallowed);
    rs_free(job->rec_verified);
    rs_free(job->violation);
    rs_free(job->bots);
    rs_free(job);
    jb->impl = NULL;
}

const rs_job_ops rs_job_logs_ops = {
    .start = logs_start,
    .run = logs_run,
    .finish = logs_finish,
    .totals = logs_totals,
    .stats = logs_stats,
    .free = logs_free,
};
