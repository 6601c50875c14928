/*
 * run.c - the diff job (RS_JOB_DIFF, robotscan.h "The diff job"; SPEC 9):
 * the same URLs (or log hits) under two sides, two robots.txt versions or
 * two semantics of one -> what flips.
 *
 * URL lists: every block is decided by two scanners (src/scan), old and new,
 * over the same block, so both sides cost one pass for every agent at once;
 * the records of the two are compared line by line and agent by agent and
 * classified and counted by diff.c. Access logs: each bot hit is identified
 * and decided on both sides (rs_log_auditor, rs_site_check) and hits are
 * summed per (bot, URL) in input order; their records come at the end
 * (rs_job_finish). The rule-level diff is rs_diff_rules over the two
 * matchers of every (origin, agent) compared, also at the end. Nothing here
 * prints: records, diagnostics and errors go to the job's io.
 */
#include "job/job.h"
#include "common/common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const COLUMNS[] = {
    "url", "origin", "agent", "old_verdict", "old_line", "old_rule",
    "new_verdict", "new_line", "new_rule", "hits",
};
#define N_COLUMNS 10

static const char *const RULE_COLUMNS[] = {
    "origin", "agent", "change", "rule", "old_line", "new_line", "probe", "old_verdict", "new_verdict",
};
#define N_RULE_COLUMNS 9

#define MIN_LEN(a, b) ((a) < (b) ? (a) : (b))

/* pipeline_counts.extra[] (1 and 2 are indexed by rs_flip) */
enum { X_NEWLY_DISALLOWED = 1, X_NEWLY_ALLOWED = 2, X_NON_BOT, X_ONE_SIDE_BOT, X_BOT_DIFFERS };

/* Rule-level diff counts of one (origin, agent) pair (for the statistics). */
typedef struct {
    uint32_t changes[3];
} rule_counts;

/* The merged (origin, agent) tally as rows, and sums per agent (rs_job_diff_summary). */
typedef struct {
    rs_job_diff_row *pairs;
    size_t n_pairs;
    rs_job_diff_row *agents;
    size_t n_agents;
    uint64_t total[RS_DIFF_COUNTERS];
} summary_data;

typedef struct {
    rs_job *jb;                  /* settings and io */
    rs_format format;
    int quiet, all, logs, verbose, encode_urls, input_line;
    rs_sites *sites[2];          /* the same handle twice for two semantics of one source */
    rs_semantics sem[2];
    const char **agents;         /* URL lists: the agents compared; logs: the bots kept (none: all) */
    size_t *agent_lens;
    size_t n_agents;
    int missing;                 /* rs_scan_missing */
    const char *input_name;
    /* logs */
    const char *spec;            /* the log format (rs_logparser: every format logs reads) */
    const char *host, *scheme;
    int stateful;
    rs_tally *hits;              /* "bot\turl" -> hits, in first-seen order */
    struct hit_meta {            /* per hits entry: the rest of its record, in meta_text */
        uint64_t line_no;        /* its first hit's input line */
        uint32_t origin_off, origin_len, rule_off[2], rule_len[2], line[2];
        uint8_t disallowed[2];
    } *meta;
    size_t cap_meta;
    rs_outbuf meta_text;
    /* the run */
    pipeline pipe;
    int pipe_inited;
    /* after rs_job_finish */
    summary_data sum;
    rule_counts *rules;          /* per sum.pairs entry, with RS_JOB_DIFF_RULES */
    int summarized;
} diff_job;

typedef struct {
    rs_scanner *sc[2];
    uint32_t *tally_ix;          /* per (scanner site, agent): origin tally index + 1 */
    size_t tally_cap;
    uint32_t *pc;                /* per (scanner site, agent): this block's counts (block_counts_grow) */
    uint32_t *touched;           /* slots counted in this block */
    size_t pc_cap, n_touched;
    rs_outbuf rule_text[2];
    rs_outbuf key;
    /* logs */
    rs_log_auditor *aud[2];      /* the per-hit decision of each side (src/log/audit.c) */
    rs_logparser *parser;        /* this worker's (formats with state see every line) */
} diff_worker;

static void *worker_new(void) { return rs_calloc(1, sizeof(diff_worker)); }

static void worker_free(void *p)
{
    diff_worker *w = p;
    if (w == NULL) return;
    for (int s = 0; s < 2; s++) {
        rs_scanner_free(w->sc[s]);
        rs_outbuf_free(&w->rule_text[s]);
        rs_log_auditor_free(w->aud[s]);
    }
    rs_free(w->tally_ix);
    rs_free(w->pc);
    rs_free(w->touched);
    rs_outbuf_free(&w->key);
    rs_logparser_free(w->parser);
    rs_free(w);
}

static rs_status put(rs_outbuf *b, const char *s) { return rs_outbuf_append(b, s, strlen(s)); }

/* "allow: /x" for rule @rule of @m, in @buf (empty when none). */
static rs_str rule_text(rs_outbuf *buf, const rs_matcher *m, int32_t rule)
{
    rs_str s = { "", 0 };
    rs_rule_info info;
    if (m == NULL || rule < 0 || rs_matcher_rule(m, rule, &info) != RS_OK) return s;
    const size_t need = rs_rule_text(&info, NULL, 0) + 1;
    buf->len = 0;
    if (rs_outbuf_reserve(buf, need) != RS_OK) return s;
    buf->len = rs_rule_text(&info, buf->ptr, need);
    s.ptr = buf->ptr;
    s.len = buf->len;
    return s;
}

/* One side of a record. */
typedef struct {
    int disallowed;
    uint32_t line;
    rs_str rule;
} side_verdict;

static rs_status format_record(const diff_job *job, rs_outbuf *out, rs_str url, rs_str origin, rs_str agent,
                               const side_verdict *v, uint64_t hits, uint64_t line_no)
{
    const rs_format fmt = job->format;
    if (fmt == RS_FORMAT_TEXT) {
        const rs_flip f = rs_diff_flip(v[0].disallowed, v[1].disallowed);
        static const char *const HEAD[RS_FLIP_COUNT] = {
            "unchanged         ", "NEWLY-DISALLOWED  ", "newly-allowed     " };
        char tmp[96];
        RS_FORWARD(put(out, HEAD[f]));
        RS_FORWARD(rs_outbuf_append(out, agent.ptr, agent.len));
        RS_FORWARD(rs_outbuf_append(out, "  ", 2));
        RS_FORWARD(rs_outbuf_append(out, url.ptr, url.len));
        for (int s = 0; s < 2; s++) {
            snprintf(tmp, sizeof tmp, "  %s %s", s ? "new" : "old", v[s].disallowed ? "disallow" : "allow");
            RS_FORWARD(put(out, tmp));
            if (v[s].line) {
                snprintf(tmp, sizeof tmp, " (line %u: ", v[s].line);
                RS_FORWARD(put(out, tmp));
                RS_FORWARD(rs_outbuf_append(out, v[s].rule.ptr, v[s].rule.len));
                RS_FORWARD(rs_outbuf_append(out, ")", 1));
            }
        }
        if (hits != 1) {
            snprintf(tmp, sizeof tmp, "  [%llu hits]", (unsigned long long)hits);
            RS_FORWARD(put(out, tmp));
        }
        return rs_outbuf_append(out, "\n", 1);
    }
    const rs_field f[N_COLUMNS] = {
        { url, 0, 0 },
        { origin, 0, 0 },
        { agent, 0, 0 },
        { { v[0].disallowed ? "disallow" : "allow", v[0].disallowed ? 8u : 5u }, 0, 0 },
        { { NULL, 0 }, v[0].line, 1 },
        { v[0].rule, 0, 0 },
        { { v[1].disallowed ? "disallow" : "allow", v[1].disallowed ? 8u : 5u }, 0, 0 },
        { { NULL, 0 }, v[1].line, 1 },
        { v[1].rule, 0, 0 },
        { { NULL, 0 }, hits, 1 },
    };
    const size_t start = out->len;
    RS_FORWARD(rs_format_record(out, fmt, COLUMNS, f, N_COLUMNS));
    return job->input_line ? rs_format_input_line(out, start, fmt, line_no) : RS_OK;
}

/* The counters of (origin, agent) in this worker's tally; cached per scanner site. */
static rs_status pair_counters(diff_worker *w, pipeline_result *res, uint32_t site, size_t n_agents,
                               rs_str origin, rs_str agent, size_t a, uint64_t **out)
{
    const size_t slot = (size_t)site * n_agents + a;
    uint32_t ix;
    if (site != UINT32_MAX && slot < w->tally_cap && w->tally_ix[slot]) {
        *out = rs_tally_counters(res->origins, w->tally_ix[slot] - 1);
        return RS_OK;
    }
    rs_outbuf *k = &w->key;
    k->len = 0;
    RS_FORWARD(rs_outbuf_append(k, origin.ptr, origin.len));
    RS_FORWARD(rs_outbuf_append(k, "\t", 1));
    RS_FORWARD(rs_outbuf_append(k, agent.ptr, agent.len));
    RS_FORWARD(rs_tally_find(res->origins, k->ptr, k->len, &ix));
    *out = rs_tally_counters(res->origins, ix);
    if (site == UINT32_MAX) return RS_OK;
    if (slot >= w->tally_cap) {
        size_t cap = w->tally_cap ? w->tally_cap : 4096;
        while (cap <= slot) cap *= 2;
        uint32_t *t = rs_realloc(w->tally_ix, cap * sizeof *t);
        if (t == NULL) return RS_ERR_NOMEM;
        memset(t + w->tally_cap, 0, (cap - w->tally_cap) * sizeof *t);
        w->tally_ix = t;
        w->tally_cap = cap;
    }
    w->tally_ix[slot] = ix + 1;
    return RS_OK;
}

/* ===== URL lists: one block, two scanners ===== */

/* Room for slot @slot in the per-block counts (3 per slot: compared, newly disallowed, newly allowed). */
static rs_status block_counts_grow(diff_worker *w, size_t slot)
{
    if (slot < w->pc_cap) return RS_OK;
    size_t cap = w->pc_cap ? w->pc_cap : 4096;
    while (cap <= slot) cap *= 2;
    uint32_t *pc = rs_realloc(w->pc, cap * 3 * sizeof *pc);
    if (pc == NULL) return RS_ERR_NOMEM;
    memset(pc + 3 * w->pc_cap, 0, (cap - w->pc_cap) * 3 * sizeof *pc);
    w->pc = pc;
    uint32_t *t = rs_realloc(w->touched, cap * sizeof *t);
    if (t == NULL) return RS_ERR_NOMEM;
    w->touched = t;
    w->pc_cap = cap;
    return RS_OK;
}

/* Adds the block's compact counts into the worker's (origin, agent) tally and clears them. */
static void fold_block_counts(diff_worker *w, pipeline_result *res)
{
    for (size_t k = 0; k < w->n_touched; k++) {
        const uint32_t slot = w->touched[k];
        uint32_t *pc = &w->pc[3 * slot];
        uint64_t *c = rs_tally_counters(res->origins, w->tally_ix[slot] - 1);
        const uint64_t unchanged = (uint64_t)pc[0] - pc[RS_FLIP_NEWLY_DISALLOWED] - pc[RS_FLIP_NEWLY_ALLOWED];
        c[RS_DIFF_COMPARED] += pc[0];
        c[RS_DIFF_NEWLY_DISALLOWED] += pc[RS_FLIP_NEWLY_DISALLOWED];
        c[RS_DIFF_NEWLY_ALLOWED] += pc[RS_FLIP_NEWLY_ALLOWED];
        c[RS_DIFF_UNCHANGED] += unchanged;
        c[RS_DIFF_HITS] += pc[0];     /* a URL line weighs 1 */
        c[RS_DIFF_HITS_NEWLY_DISALLOWED] += pc[RS_FLIP_NEWLY_DISALLOWED];
        c[RS_DIFF_HITS_NEWLY_ALLOWED] += pc[RS_FLIP_NEWLY_ALLOWED];
        c[RS_DIFF_HITS_UNCHANGED] += unchanged;
        pc[0] = pc[1] = pc[2] = 0;
    }
    w->n_touched = 0;
}

static rs_status make_scanners(const diff_job *job, diff_worker *w)
{
    for (int s = 0; s < 2; s++) {
        rs_scan_config cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.sites = job->sites[s];
        cfg.agents = job->agents;
        cfg.agent_lens = job->agent_lens;
        cfg.n_agents = job->n_agents;
        cfg.semantics = job->sem[s];
        cfg.missing = (rs_scan_missing)job->missing;
        cfg.encode_urls = job->encode_urls;
        RS_FORWARD(rs_scanner_create(&cfg, &w->sc[s]));
    }
    return RS_OK;
}

static rs_status process_urls(void *ctx, void *state, const rs_block *block, pipeline_result *res)
{
    const diff_job *job = ctx;
    diff_worker *w = state;
    if (w->sc[0] == NULL) RS_FORWARD(make_scanners(job, w));
    size_t n[2];
    for (int s = 0; s < 2; s++) {
        const rs_status st = rs_scan_block(w->sc[s], block, &n[s]);
        if (st != RS_OK) {
            pipeline_fail(res, st, "%s", rs_scanner_errmsg(w->sc[s]));
            return st;
        }
    }
    if (n[0] != n[1]) {
        pipeline_fail(res, RS_ERR_USAGE, "internal error: the two scanners split a block differently");
        return RS_ERR_USAGE;
    }
    res->counts.lines += n[0];
    const int quiet = job->quiet, all = job->all;
    for (size_t i = 0; i < n[0]; i++) {
        rs_scan_record r[2];
        rs_scan_get(w->sc[0], i, 0, &r[0]);
        if (r[0].kind == RS_SCAN_BLANK) { res->counts.blank++; continue; }
        if (r[0].kind == RS_SCAN_OVERSIZED || r[0].kind == RS_SCAN_MALFORMED) {
            res->counts.malformed++;
            if (job->verbose) {
                if (r[0].kind == RS_SCAN_OVERSIZED)
                    pipeline_diag(res, "%s:%llu: line of %llu bytes is too long for a URL, skipped",
                                  job->input_name, (unsigned long long)r[0].line_no,
                                  (unsigned long long)r[0].oversized);
                else
                    pipeline_diag(res, "%s:%llu: malformed URL (%s), skipped", job->input_name,
                                  (unsigned long long)r[0].line_no,
                                  rs_origin_error_str((rs_origin_error)r[0].error));
            }
            continue;
        }
        for (size_t a = 0; a < job->n_agents; a++) {
            if (a) rs_scan_get(w->sc[0], i, a, &r[0]);
            rs_scan_get(w->sc[1], i, a, &r[1]);
            if (r[0].kind == RS_SCAN_SKIPPED || r[1].kind == RS_SCAN_SKIPPED) {
                res->counts.skipped++;
                continue;
            }
            const rs_str agent = { job->agents[a], job->agent_lens[a] };
            rs_flip f;
            if (r[0].site != UINT32_MAX) {
                /* compact per-block counts, folded into the tally at the end of the block */
                const size_t slot = (size_t)r[0].site * job->n_agents + a;
                if (slot >= w->tally_cap || w->tally_ix[slot] == 0) {
                    uint64_t *unused;
                    RS_FORWARD(pair_counters(w, res, r[0].site, job->n_agents, r[0].origin, agent, a, &unused));
                }
                RS_FORWARD(block_counts_grow(w, slot));
                uint32_t *pc = &w->pc[3 * slot];
                if (pc[0]++ == 0) w->touched[w->n_touched++] = (uint32_t)slot;
                f = rs_diff_flip(r[0].disallowed, r[1].disallowed);
                pc[f] += f != RS_FLIP_UNCHANGED;
            } else {
                uint64_t *c;
                RS_FORWARD(pair_counters(w, res, r[0].site, job->n_agents, r[0].origin, agent, a, &c));
                f = rs_diff_count(c, r[0].disallowed, r[1].disallowed, 1);
            }
            res->counts.urls++;
            res->counts.extra[f]++;
            if (quiet || (f == RS_FLIP_UNCHANGED && !all)) continue;
            side_verdict v[2];
            for (int s = 0; s < 2; s++) {
                v[s].disallowed = r[s].disallowed;
                v[s].line = r[s].line;
                v[s].rule = rule_text(&w->rule_text[s], r[s].matcher, r[s].rule);
            }
            RS_FORWARD(format_record(job, &res->out, r[0].url, r[0].origin, agent, v, 1, r[0].line_no));
        }
    }
    fold_block_counts(w, res);
    return RS_OK;
}

/* ===== Log hits ===== */

/*
 * A log line -> (origin, URL, user agent) -> the bot on each side -> both
 * verdicts. The origin, the bot and its group are the auditor's of each side
 * (rs_log_auditor, as `robotscan logs` decides them: the built-in table plus
 * the tokens the side's robots.txt names; a crawler follows its family's
 * group), the verdict rs_site_check's under the side's semantics; hits on
 * /robots.txt are never disallowed; a crawler that ignores `*` groups and
 * has none of its own is allowed. The line's own scheme field is not read
 * (the origin's scheme is the job's RS_JOB_SCHEME, or the port's).
 */

static int wanted(const diff_job *job, rs_str token)
{
    if (job->n_agents == 0) return 1;
    for (size_t i = 0; i < job->n_agents; i++)
        if (job->agent_lens[i] == token.len && !strncasecmp(job->agents[i], token.ptr, token.len)) return 1;
    return 0;
}

/* A decided hit, for the in-order pass (followed by its strings, padded to 8). */
typedef struct {
    uint64_t line_no;
    uint32_t bot_len, url_len, origin_len, rule_len[2], line[2];
    uint8_t disallowed[2], pad[2];
} hit_rec;

static rs_status one_hit(const diff_job *job, diff_worker *w, pipeline_result *res, const rs_logrec *rec,
                         uint64_t line_no)
{
    for (int s = 0; s < 2; s++)
        if (w->aud[s] == NULL) {
            const rs_log_audit_config cfg = { job->sites[s], job->host, job->scheme, NULL, 0 };
            RS_FORWARD(rs_log_auditor_create(&cfg, &w->aud[s]));
        }
    rs_log_hit hit[2];
    for (int s = 0; s < 2; s++) {
        const rs_status st = rs_log_audit_bot(w->aud[s], rec, &hit[s]);
        if (st != RS_OK) {
            if (st != RS_ERR_NOMEM) pipeline_fail(res, st, "%s", rs_sites_errmsg(job->sites[s]));
            return st;
        }
        if (hit[s].kind == RS_LOGHIT_NO_SITE) {    /* the same origin on both sides */
            res->counts.malformed++;
            if (job->verbose)
                pipeline_diag(res, "%s:%llu: no valid site for this line (host '%.*s'), skipped",
                              job->input_name, (unsigned long long)line_no, (int)rec->host.len, rec->host.ptr);
            return RS_OK;
        }
    }
    const int is_bot[2] = { hit[0].kind == RS_LOGHIT_BOT, hit[1].kind == RS_LOGHIT_BOT };
    if (!is_bot[0] && !is_bot[1]) { res->counts.extra[X_NON_BOT]++; return RS_OK; }
    if (!is_bot[0] || !is_bot[1]) { res->counts.extra[X_ONE_SIDE_BOT]++; return RS_OK; }
    const rs_str token = hit[1].bot.token;   /* the bot as the new side names it */
    if (!wanted(job, token)) { res->counts.skipped++; return RS_OK; }
    if (hit[0].bot.token.len != token.len || strncasecmp(hit[0].bot.token.ptr, token.ptr, token.len))
        res->counts.extra[X_BOT_DIFFERS]++;

    rs_site_verdict v[2];
    side_verdict sv[2];
    for (int s = 0; s < 2; s++) RS_FORWARD(rs_log_audit_url(w->aud[s], rec, &hit[s]));
    const rs_str url = hit[1].url;           /* the same bytes on both sides */
    const rs_str origin = hit[1].origin->origin;
    const int robots_fetch = hit[1].robots_fetch;
    for (int s = 0; s < 2; s++) {
        memset(&v[s], 0, sizeof v[s]);
        const rs_str group = hit[s].group;
        sv[s].disallowed = 0;
        sv[s].line = 0;
        sv[s].rule = (rs_str){ "", 0 };
        if (robots_fetch || !hit[s].bound) continue;
        const rs_status st = rs_site_check(job->sites[s], hit[s].url.ptr, hit[s].url.len, group.ptr, group.len,
                                           job->sem[s], job->encode_urls, &v[s]);
        if (st != RS_OK) {
            pipeline_fail(res, st, "%s", rs_sites_errmsg(job->sites[s]));
            return st;
        }
        if (v[s].malformed) { res->counts.malformed++; return RS_OK; }
        if (v[s].reason == RS_REASON_NO_ROBOTS) {
            if (job->missing == RS_SCAN_MISSING_SKIP) { res->counts.skipped++; return RS_OK; }
            v[s].verdict.disallowed = job->missing == RS_SCAN_MISSING_DISALLOW;
        }
        sv[s].disallowed = v[s].verdict.disallowed;
        sv[s].line = v[s].verdict.line;
        if (v[s].verdict.rule >= 0) {
            rs_outbuf *b = &w->rule_text[s];
            const size_t need = rs_rule_text(&v[s].rule, NULL, 0) + 1;
            b->len = 0;
            RS_FORWARD(rs_outbuf_reserve(b, need));
            b->len = rs_rule_text(&v[s].rule, b->ptr, need);
            sv[s].rule = (rs_str){ b->ptr, b->len };
        }
    }
    uint64_t *c;
    RS_FORWARD(pair_counters(w, res, UINT32_MAX, 1, origin, token, 0, &c));
    const rs_flip f = rs_diff_count(c, sv[0].disallowed, sv[1].disallowed, 1);
    res->counts.urls++;
    res->counts.extra[f]++;
    if (job->quiet || (f == RS_FLIP_UNCHANGED && !job->all)) return RS_OK;

    hit_rec h;
    memset(&h, 0, sizeof h);
    h.line_no = line_no;
    h.bot_len = (uint32_t)token.len;
    h.url_len = (uint32_t)url.len;
    h.origin_len = (uint32_t)origin.len;
    for (int s = 0; s < 2; s++) {
        h.rule_len[s] = (uint32_t)sv[s].rule.len;
        h.line[s] = sv[s].line;
        h.disallowed[s] = (uint8_t)sv[s].disallowed;
    }
    static const char zeros[8] = { 0 };
    rs_outbuf *aux = &res->aux;
    const size_t start = aux->len;
    RS_FORWARD(rs_outbuf_append(aux, &h, sizeof h));
    RS_FORWARD(rs_outbuf_append(aux, token.ptr, token.len));
    RS_FORWARD(rs_outbuf_append(aux, url.ptr, url.len));
    RS_FORWARD(rs_outbuf_append(aux, origin.ptr, origin.len));
    RS_FORWARD(rs_outbuf_append(aux, sv[0].rule.ptr, sv[0].rule.len));
    RS_FORWARD(rs_outbuf_append(aux, sv[1].rule.ptr, sv[1].rule.len));
    return rs_outbuf_append(aux, zeros, (8 - (aux->len - start) % 8) % 8);
}

static rs_status make_parser(const diff_job *job, rs_logparser **out, char *err, size_t err_cap)
{
    const rs_job *jb = job->jb;
    return rs_logparser_create(job->spec, strlen(job->spec), (const char *const *)jb->fields, jb->n_fields,
                               err, err_cap, out);
}

static rs_status process_logs(void *ctx, void *state, const rs_block *block, pipeline_result *res)
{
    const diff_job *job = ctx;
    diff_worker *w = state;
    if (w->parser == NULL) {
        char err[256] = "";
        const rs_status st = make_parser(job, &w->parser, err, sizeof err);
        if (st != RS_OK) {
            pipeline_fail(res, st, "bad --log-format: %s", err);
            return st;
        }
    }
    if (block->len) (void)rs_logparser_detect(w->parser, block->ptr, block->len); /* auto: settles */
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
        if (st == RS_LOGLINE_EMPTY) { res->counts.blank++; continue; }
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

/* In input order (calling thread): hits summed per (bot, URL), first-seen order kept. */
static rs_status keep_hits(void *ctx, pipeline_result *res)
{
    diff_job *job = ctx;
    size_t pos = 0;
    while (pos < res->aux.len) {
        hit_rec h;
        memcpy(&h, res->aux.ptr + pos, sizeof h);
        const char *p = res->aux.ptr + pos + sizeof h;
        const size_t len = sizeof h + h.bot_len + h.url_len + h.origin_len + h.rule_len[0] + h.rule_len[1];
        pos += len + (8 - len % 8) % 8;
        rs_outbuf *k = &res->scratch_key;
        k->len = 0;
        RS_FORWARD(rs_outbuf_append(k, p, h.bot_len));
        RS_FORWARD(rs_outbuf_append(k, "\t", 1));
        RS_FORWARD(rs_outbuf_append(k, p + h.bot_len, h.url_len));
        const uint32_t before = rs_tally_size(job->hits);
        uint32_t ix;
        RS_FORWARD(rs_tally_find(job->hits, k->ptr, k->len, &ix));
        rs_tally_counters(job->hits, ix)[0]++;
        if (ix < before) continue;
        if (ix >= job->cap_meta) {
            const size_t cap = job->cap_meta ? job->cap_meta * 2 : 1024;
            void *m = rs_realloc(job->meta, cap * sizeof *job->meta);
            if (m == NULL) return RS_ERR_NOMEM;
            job->meta = m;
            job->cap_meta = cap;
        }
        struct hit_meta *m = &job->meta[ix];
        const char *q = p + h.bot_len + h.url_len;
        m->line_no = h.line_no;
        m->origin_off = (uint32_t)job->meta_text.len;
        m->origin_len = h.origin_len;
        RS_FORWARD(rs_outbuf_append(&job->meta_text, q, h.origin_len));
        q += h.origin_len;
        for (int s = 0; s < 2; s++) {
            m->rule_off[s] = (uint32_t)job->meta_text.len;
            m->rule_len[s] = h.rule_len[s];
            RS_FORWARD(rs_outbuf_append(&job->meta_text, q, h.rule_len[s]));
            q += h.rule_len[s];
            m->line[s] = h.line[s];
            m->disallowed[s] = h.disallowed[s];
        }
        if (job->meta_text.len > UINT32_MAX) {
            pipeline_fail(res, RS_ERR_LIMIT, "more than 4 GiB of distinct flipped hits; use --quiet");
            return RS_ERR_LIMIT;
        }
    }
    return RS_OK;
}

/* The (bot, URL) records, in first-seen order, to the io. @return 0, or -1 with the error on it. */
static int write_hits(diff_job *job)
{
    rs_job_io *io = &job->jb->io;
    for (uint32_t i = 0; i < rs_tally_size(job->hits); i++) {
        const rs_str key = rs_tally_key(job->hits, i);
        const char *tab = memchr(key.ptr, '\t', key.len);
        const struct hit_meta *m = &job->meta[i];
        const char *t = job->meta_text.ptr;
        side_verdict v[2];
        for (int s = 0; s < 2; s++) {
            v[s].disallowed = m->disallowed[s];
            v[s].line = m->line[s];
            v[s].rule = (rs_str){ m->rule_len[s] ? t + m->rule_off[s] : "", m->rule_len[s] };
        }
        const rs_str bot = { key.ptr, (size_t)(tab - key.ptr) };
        const rs_str url = { tab + 1, key.len - bot.len - 1 };
        const rs_str origin = { m->origin_len ? t + m->origin_off : "", m->origin_len };
        const rs_status st = format_record(job, &io->out, url, origin, bot, v,
                                           rs_tally_counters_const(job->hits, i)[0], m->line_no);
        if (st != RS_OK) {
            rs_io_error(io, st, "%s", rs_status_str(st));
            return -1;
        }
        if (rs_io_flush(io, 1 << 18) != 0) return -1;
    }
    return 0;
}

/* ===== Summary ===== */

static int slice_cmp(rs_str a, rs_str b)
{
    const int c = MIN_LEN(a.len, b.len) ? memcmp(a.ptr, b.ptr, MIN_LEN(a.len, b.len)) : 0;
    if (c) return c;
    return a.len < b.len ? -1 : a.len > b.len;
}

/* Most flips first, then origin and agent bytes. */
static int pair_row_cmp(const void *pa, const void *pb)
{
    const rs_job_diff_row *a = pa, *b = pb;
    const uint64_t fa = a->c[RS_DIFF_NEWLY_DISALLOWED] + a->c[RS_DIFF_NEWLY_ALLOWED];
    const uint64_t fb = b->c[RS_DIFF_NEWLY_DISALLOWED] + b->c[RS_DIFF_NEWLY_ALLOWED];
    if (fa != fb) return fa > fb ? -1 : 1;
    const int c = slice_cmp(a->origin, b->origin);
    return c ? c : slice_cmp(a->agent, b->agent);
}

/* Logs: bots by hits, then by name. */
static int agent_row_cmp(const void *pa, const void *pb)
{
    const rs_job_diff_row *a = pa, *b = pb;
    if (a->c[RS_DIFF_HITS] != b->c[RS_DIFF_HITS]) return a->c[RS_DIFF_HITS] > b->c[RS_DIFF_HITS] ? -1 : 1;
    return slice_cmp(a->agent, b->agent);
}

static size_t slice_hash(rs_str s)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < s.len; i++) h = (h ^ (unsigned char)s.ptr[i]) * 1099511628211ull;
    return (size_t)(h ^ h >> 32);
}

/* The pairs of the merged tally @t as rows, summed per agent (rows of agents in the order
 * given, or by hits for logs). */
static rs_status summarize(const diff_job *job, const rs_tally *t, summary_data *s)
{
    memset(s, 0, sizeof *s);
    const uint32_t n = t ? rs_tally_size(t) : 0;
    const size_t max_agents = (size_t)n + job->n_agents;
    size_t cap = 16;
    while (cap < 2 * max_agents) cap *= 2;
    s->pairs = rs_calloc((size_t)n + 1, sizeof *s->pairs);
    s->agents = rs_calloc(max_agents + 1, sizeof *s->agents);
    uint32_t *index = rs_calloc(cap, sizeof *index);    /* agent -> row + 1, by its bytes */
    rs_status st = RS_OK;
    if (s->pairs == NULL || s->agents == NULL || index == NULL) { st = RS_ERR_NOMEM; goto out; }
    for (size_t a = 0; a < max_agents; a++) {
        rs_str name;
        const uint64_t *c = NULL;
        rs_job_diff_row *p = NULL;
        if (a < job->n_agents) {
            if (job->logs) continue;     /* logs: the bots of the tally, not the filter */
            name = (rs_str){ job->agents[a], job->agent_lens[a] };
        } else {
            const uint32_t i = (uint32_t)(a - job->n_agents);
            const rs_str k = rs_tally_key(t, i);
            const char *tab = memrchr(k.ptr, '\t', k.len);
            p = &s->pairs[s->n_pairs++];
            p->origin = (rs_str){ k.ptr, (size_t)(tab - k.ptr) };
            p->agent = (rs_str){ tab + 1, k.len - p->origin.len - 1 };
            c = rs_tally_counters_const(t, i);
            memcpy(p->c, c, sizeof p->c);
            name = p->agent;
        }
        /* a pair counts for the first row of its agent (an agent given twice has a second, empty row) */
        size_t h = slice_hash(name) & (cap - 1);
        rs_job_diff_row *ar = NULL;
        for (; index[h]; h = (h + 1) & (cap - 1))
            if (slice_cmp(s->agents[index[h] - 1].agent, name) == 0) {
                ar = &s->agents[index[h] - 1];
                break;
            }
        if (ar == NULL || c == NULL) {
            rs_job_diff_row *row = &s->agents[s->n_agents++];
            row->agent = name;
            if (ar == NULL) index[h] = (uint32_t)s->n_agents;
            if (ar == NULL) ar = row;
        }
        if (c == NULL) continue;
        for (int k = 0; k < RS_DIFF_COUNTERS; k++) {
            ar->c[k] += c[k];
            s->total[k] += c[k];
        }
    }
    qsort(s->pairs, s->n_pairs, sizeof *s->pairs, pair_row_cmp);
    if (job->logs) qsort(s->agents, s->n_agents, sizeof *s->agents, agent_row_cmp);
out:
    rs_free(index);
    return st;
}

/* ===== Rule-level diff ===== */

/* One (origin, agent) pair's rule-level diff: its changes, counted and formatted. */
typedef struct {
    const diff_job *job;
    rs_str origin, agent;
    rs_outbuf *out;
    uint32_t count[3];
    rs_status status;
} rules_ctx;

static void on_rule_change(void *p, const rs_rule_change *ch)
{
    rules_ctx *r = p;
    r->count[ch->change]++;
    if (r->out == NULL || r->status != RS_OK) return;
    char rule[64 + RS_ROBOTS_MAX_LINE];
    const rs_rule_info info = { .type = ch->type, .pattern = ch->pattern };
    rs_rule_text(&info, rule, sizeof rule);
    const rs_str change = { rs_rule_change_str(ch->change), strlen(rs_rule_change_str(ch->change)) };
    const int od = ch->old_verdict.disallowed, nd = ch->new_verdict.disallowed;
    const rs_format fmt = r->job->format;
    rs_status st;
    if (fmt == RS_FORMAT_TEXT) {
        /* line 0: the rule is not in that file (added or removed): not shown */
        char head[128], lines[64];
        if (ch->old_line == 0)
            snprintf(lines, sizeof lines, "new line %u", ch->new_line);
        else if (ch->new_line == 0)
            snprintf(lines, sizeof lines, "old line %u", ch->old_line);
        else
            snprintf(lines, sizeof lines, "old line %u, new line %u", ch->old_line, ch->new_line);
        st = put(r->out, "  ");
        snprintf(head, sizeof head, "%-15s ", change.ptr);
        if (st == RS_OK) st = put(r->out, head);
        if (st == RS_OK) st = put(r->out, rule);
        snprintf(head, sizeof head, " (%s); probe ", lines);
        if (st == RS_OK) st = put(r->out, head);
        if (st == RS_OK) st = rs_outbuf_append(r->out, ch->probe.ptr, ch->probe.len);
        snprintf(head, sizeof head, ": old %s, new %s\n", od ? "disallow" : "allow", nd ? "disallow" : "allow");
        if (st == RS_OK) st = put(r->out, head);
    } else {
        static const char *const NAMES[N_RULE_COLUMNS + 1] = {
            "kind", "origin", "agent", "change", "rule", "old_line", "new_line", "probe", "old_verdict", "new_verdict",
        };
        const rs_field f[N_RULE_COLUMNS + 1] = {
            { { "rule", 4 }, 0, 0 },
            { r->origin, 0, 0 },
            { r->agent, 0, 0 },
            { change, 0, 0 },
            { { rule, strlen(rule) }, 0, 0 },
            { { NULL, 0 }, ch->old_line, 1 },
            { { NULL, 0 }, ch->new_line, 1 },
            { ch->probe, 0, 0 },
            { { od ? "disallow" : "allow", od ? 8u : 5u }, 0, 0 },
            { { nd ? "disallow" : "allow", nd ? 8u : 5u }, 0, 0 },
        };
        /* JSONL rows say what they are; TSV/CSV rows follow their own header; records of
         * fields carry input line 0 */
        const int skip = fmt == RS_FORMAT_JSONL ? 0 : 1;
        const size_t start = r->out->len;
        st = rs_format_record(r->out, fmt, NAMES + skip, f + skip, N_RULE_COLUMNS + 1 - (size_t)skip);
        if (st == RS_OK && fmt == RS_FORMAT_FIELDS) st = rs_format_input_line(r->out, start, fmt, 0);
    }
    if (st != RS_OK) r->status = st;
}

/* The matcher side @s gives @agent at @origin (NULL: no rules); with logs @agent is a
 * bot token and its family's group applies. After the run. */
static rs_status side_matcher(const diff_job *job, int s, rs_str origin, rs_str agent, const rs_matcher **out)
{
    char buf[RS_ORIGIN_MAX];
    rs_origin o;
    *out = NULL;
    RS_FORWARD(rs_origin_parse(origin.ptr, origin.len, buf, sizeof buf, &o));
    if (o.error != RS_ORIGIN_OK) return RS_OK;
    rs_sites_set_semantics(job->sites[s], job->sem[s]);
    rs_site_result r;
    rs_botid *b = NULL;
    rs_status st = RS_OK;
    if (job->logs) {
        /* a bot follows its family's group, as its hits were decided (one_hit) */
        if ((st = rs_site_lookup(job->sites[s], &o, "", 0, &r)) != RS_OK) goto out;
        rs_str cands[256];
        const size_t n = r.ruleset ? rs_ruleset_tokens(r.ruleset, cands, 256) : 0;
        if ((st = rs_botid_create(cands, n < 256 ? n : 256, &b)) != RS_OK) goto out;
        rs_bot bot;
        if (rs_bot_identify(b, agent.ptr, agent.len, &bot)) {
            if ((bot.flags & RS_BOT_IGNORES_STAR) && !(bot.flags & RS_BOT_GROUP_NAMED)) goto out; /* no rules */
            agent = rs_bot_group_agent(b, &bot);
        }
    }
    if ((st = rs_site_lookup(job->sites[s], &o, agent.ptr, agent.len, &r)) != RS_OK) goto out;
    if (r.reason != RS_REASON_NO_ROBOTS) *out = r.matcher;
out:
    if (st != RS_OK) rs_io_error(&job->jb->io, st, "%s", rs_sites_errmsg(job->sites[s]));
    rs_botid_free(b);
    return st;
}

static int origin_order_cmp(const void *pa, const void *pb)
{
    const rs_job_diff_row *a = *(const rs_job_diff_row *const *)pa, *b = *(const rs_job_diff_row *const *)pb;
    const int c = slice_cmp(a->origin, b->origin);
    return c ? c : slice_cmp(a->agent, b->agent);
}

/*
 * The rule-level diff of every (origin, agent) pair compared, in origin order, to the
 * io; change counts per pair into @counts (indexed like s->pairs). @return 0, or -1
 * with the error on the io.
 */
static int rules_diff(diff_job *job, const summary_data *s, rule_counts *counts)
{
    rs_job_io *io = &job->jb->io;
    rs_outbuf *out = &io->out;
    const rs_job_diff_row **order = rs_malloc((s->n_pairs + 1) * sizeof *order);
    if (order == NULL) {
        rs_io_error(io, RS_ERR_NOMEM, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < s->n_pairs; i++) order[i] = &s->pairs[i];
    qsort(order, s->n_pairs, sizeof *order, origin_order_cmp);
    const int text = job->format == RS_FORMAT_TEXT;
    int rc = 0, any = 0;
    for (size_t k = 0; k < s->n_pairs && rc == 0; k++) {
        const rs_job_diff_row *p = order[k];
        const size_t ix = (size_t)(p - s->pairs);
        const rs_matcher *m[2];
        if (side_matcher(job, 0, p->origin, p->agent, &m[0]) != RS_OK
            || side_matcher(job, 1, p->origin, p->agent, &m[1]) != RS_OK) {
            rc = -1;
            break;
        }
        rules_ctx r;
        memset(&r, 0, sizeof r);
        r.job = job;
        r.origin = p->origin;
        r.agent = p->agent;
        /* count first; write only pairs with a change (text needs a heading first) */
        if (rs_diff_rules(m[0], m[1], on_rule_change, &r) != RS_OK) rc = -1;
        counts[ix].changes[0] = r.count[0];
        counts[ix].changes[1] = r.count[1];
        counts[ix].changes[2] = r.count[2];
        if (rc || r.count[0] + r.count[1] + r.count[2] == 0) continue;
        if (!any) {
            any = 1;
            if (text) {
                if (put(out, job->quiet ? "rule changes (origin, agent: change, rule, lines, probe):\n"
                                        : "\nrule changes (origin, agent: change, rule, lines, probe):\n") != RS_OK)
                    rc = -1;
            } else if (job->format != RS_FORMAT_FIELDS) {
                if (job->format != RS_FORMAT_JSONL && !job->quiet && put(out, "\n") != RS_OK) rc = -1;
                if (rs_format_header(out, job->format, RULE_COLUMNS, N_RULE_COLUMNS) != RS_OK) rc = -1;
            }
        }
        if (text) {
            char head[RS_ORIGIN_MAX + 160];
            snprintf(head, sizeof head, "%.*s  %.*s: %u added, %u removed, %u changed in effect\n",
                     (int)p->origin.len, p->origin.ptr, (int)p->agent.len, p->agent.ptr,
                     r.count[RS_RULE_ADDED], r.count[RS_RULE_REMOVED], r.count[RS_RULE_CHANGED_EFFECT]);
            if (put(out, head) != RS_OK) rc = -1;
        }
        memset(r.count, 0, sizeof r.count);
        r.out = out;
        if (rs_diff_rules(m[0], m[1], on_rule_change, &r) != RS_OK || r.status != RS_OK) rc = -1;
        if (rc == 0 && rs_io_flush(io, 1 << 18) != 0) rc = -1;
    }
    if (rc) rs_io_error(io, RS_ERR_NOMEM, "out of memory or unreadable robots.txt in the rule diff");
    rs_free(order);
    return rc;
}

/* ===== Statistics ===== */

/* "compared":N,"newly_disallowed":N,... */
static void stats_counters(rs_stats_writer *w, const uint64_t *c)
{
    static const char *const NAMES[RS_DIFF_COUNTERS] = {
        "compared", "newly_disallowed", "newly_allowed", "unchanged",
        "hits", "hits_newly_disallowed", "hits_newly_allowed", "hits_unchanged",
    };
    for (int i = 0; i < RS_DIFF_COUNTERS; i++) rs_stats_count(w, NAMES[i], c[i]);
}

/* By the library's mergeable-statistics writer (rs_stats_*): counts per agent and per
 * (origin, agent); lists of objects merged by their string fields. */
static rs_status diff_stats(rs_job *jb, rs_outbuf *out)
{
    diff_job *job = jb->impl;
    if (job == NULL || !job->summarized) return RS_ERR_USAGE;
    const summary_data *s = &job->sum;
    const pipeline_counts *c = &pipeline_totals_get(&job->pipe)->counts;
    rs_outbuf b = { 0 };
    static const char *const SEM[2] = { "google", "first-match" };
    static const char *const SIDE[2] = { "old", "new" };
    rs_stats_writer w;
    rs_stats_begin(&w, &b, "diff", 1);
    const char *input = job->logs ? "logs" : "urls";
    rs_stats_label(&w, "input", input, strlen(input));
    for (int side = 0; side < 2; side++) {
        rs_stats_object(&w, SIDE[side]);
        rs_stats_label(&w, "semantics", SEM[job->sem[side]], strlen(SEM[job->sem[side]]));
        /* a new side with no sources of its own reads the old side's */
        const int own = side == 0 || jb->n_robots_new || jb->sites_new;
        char *const *paths = own && side ? jb->robots_new : jb->robots;
        const size_t n = own && side ? jb->n_robots_new : jb->n_robots;
        rs_stats_list(&w, "robots");
        for (size_t i = 0; i < n; i++) rs_stats_label(&w, NULL, paths[i], strlen(paths[i]));
        rs_stats_end(&w);
        rs_stats_end(&w);
    }
    rs_stats_labels(&w, "inputs", (const char *const *)jb->inputs, jb->n_inputs);
    rs_stats_count(&w, "lines", c->lines);
    rs_stats_count(&w, "blank", c->blank);
    rs_stats_count(&w, "malformed", c->malformed);
    rs_stats_count(&w, "skipped", c->skipped);
    if (job->logs) {
        rs_stats_count(&w, "non_bot", c->extra[X_NON_BOT]);
        rs_stats_count(&w, "bot_one_side", c->extra[X_ONE_SIDE_BOT]);
        rs_stats_count(&w, "bot_named_differently", c->extra[X_BOT_DIFFERS]);
    }
    rs_stats_object(&w, "total");
    stats_counters(&w, s->total);
    rs_stats_end(&w);
    rs_stats_list(&w, "agents");
    for (size_t a = 0; a < s->n_agents; a++) {
        rs_stats_object(&w, NULL);
        rs_stats_label(&w, "agent", s->agents[a].agent.ptr, s->agents[a].agent.len);
        stats_counters(&w, s->agents[a].c);
        rs_stats_end(&w);
    }
    rs_stats_end(&w);
    rs_stats_list(&w, "origins");
    for (size_t i = 0; i < s->n_pairs; i++) {
        const rs_job_diff_row *p = &s->pairs[i];
        rs_stats_object(&w, NULL);
        rs_stats_label(&w, "origin", p->origin.ptr, p->origin.len);
        rs_stats_label(&w, "agent", p->agent.ptr, p->agent.len);
        stats_counters(&w, p->c);
        if (job->rules) {
            rs_stats_count(&w, "rules_added", job->rules[i].changes[RS_RULE_ADDED]);
            rs_stats_count(&w, "rules_removed", job->rules[i].changes[RS_RULE_REMOVED]);
            rs_stats_count(&w, "rules_changed_effect", job->rules[i].changes[RS_RULE_CHANGED_EFFECT]);
        }
        rs_stats_end(&w);
    }
    rs_stats_end(&w);
    const rs_status st = rs_stats_finish(&w);
    if (st != RS_OK) {
        rs_outbuf_free(&b);
        return st;
    }
    *out = b;
    return RS_OK;
}

rs_status rs_job_diff_summary_get(rs_job *jb, rs_job_diff_summary *out)
{
    memset(out, 0, sizeof *out);
    if (jb == NULL || jb->kind != RS_JOB_DIFF || !jb->finished || jb->impl == NULL) return RS_ERR_USAGE;
    diff_job *job = jb->impl;
    if (!job->summarized) return RS_ERR_USAGE;
    const pipeline_counts *c = &pipeline_totals_get(&job->pipe)->counts;
    memcpy(out->total, job->sum.total, sizeof out->total);
    out->agents = job->sum.agents;
    out->n_agents = job->sum.n_agents;
    out->pairs = job->sum.pairs;
    out->n_pairs = job->sum.n_pairs;
    out->non_bot = c->extra[X_NON_BOT];
    out->bot_one_side = c->extra[X_ONE_SIDE_BOT];
    out->bot_named_differently = c->extra[X_BOT_DIFFERS];
    return RS_OK;
}

/* ===== The job ===== */

/* A side's sites: the caller's, or opened from its paths. @return RS_OK, or the error on the io. */
static rs_status open_side(rs_job *jb, char *const *paths, size_t n, rs_sites **out)
{
    rs_sites *sites = NULL;
    const rs_status st = rs_sites_create((const char *const *)paths, n, &sites);
    if (st != RS_OK) {
        rs_io_error(&jb->io, st, "%s", sites ? rs_sites_errmsg(sites) : rs_status_str(st));
        rs_sites_free(sites);
        return st;
    }
    *out = sites;
    return RS_OK;
}

static void diff_free(rs_job *jb);

static const char *const DEFAULT_AGENTS[] = { "*", "Googlebot", "bingbot" };

static rs_status diff_start(rs_job *jb)
{
    rs_job_io *io = &jb->io;
    diff_free(jb);      /* a start that failed before */
    diff_job *job = rs_calloc(1, sizeof *job);
    if (job == NULL) return RS_ERR_NOMEM;
    jb->impl = job;
    job->jb = jb;
    job_set_columns(jb, COLUMNS, N_COLUMNS);
    job->format = jb->format;
    job->quiet = jb->no_records;
    job->all = jb->diff_all;
    job->logs = jb->diff_logs;
    job->verbose = jb->verbose;
    job->encode_urls = jb->encode_urls;
    job->input_line = jb->input_line || jb->format == RS_FORMAT_FIELDS; /* records carry their line */
    job->missing = (int)jb->missing;
    job->sem[0] = jb->semantics;
    job->sem[1] = jb->semantics_new < 0 ? jb->semantics : (rs_semantics)jb->semantics_new;
    job->input_name = "(stdin)";

    /* agents: URL lists compare these (by default '*', Googlebot, bingbot); logs keep these bots */
    const int defaults = jb->n_agents == 0 && !job->logs;
    const size_t na = defaults ? 3 : jb->n_agents;
    job->agents = rs_calloc(na + 1, sizeof *job->agents);
    job->agent_lens = rs_calloc(na + 1, sizeof *job->agent_lens);
    if (job->agents == NULL || job->agent_lens == NULL) return RS_ERR_NOMEM;
    for (size_t a = 0; a < na; a++) {
        job->agents[a] = defaults ? DEFAULT_AGENTS[a] : jb->agents[a];
        job->agent_lens[a] = strlen(job->agents[a]);
    }
    job->n_agents = na;

    if (job->logs) {
        job->host = jb->host;
        job->scheme = jb->scheme ? jb->scheme : "https";
        if (strcmp(job->scheme, "http") && strcmp(job->scheme, "https")) {
            rs_io_error(io, RS_ERR_USAGE, "the scheme is http or https, not '%s'", job->scheme);
            return RS_ERR_USAGE;
        }
        job->spec = jb->log_format ? jb->log_format : "combined";
        char err[256] = "";
        rs_logparser *probe = NULL;
        if (make_parser(job, &probe, err, sizeof err) != RS_OK) {
            rs_io_error(io, RS_ERR_USAGE, "bad log format: %s", err[0] ? err : "cannot compile");
            return RS_ERR_USAGE;
        }
        const unsigned fields = rs_logparser_fields(probe);
        job->stateful = rs_logparser_stateful(probe);
        rs_logparser_free(probe);
        if (!(fields & RS_LOGF_HOST) && job->host == NULL) {
            rs_io_error(io, RS_ERR_USAGE, "this log format does not name the site: give a host");
            return RS_ERR_USAGE;
        }
        if (!(fields & RS_LOGF_USER_AGENT)) {
            rs_io_error(io, RS_ERR_USAGE, "this log format has no user agent: bots cannot be found");
            return RS_ERR_USAGE;
        }
        RS_FORWARD(rs_tally_create(1, &job->hits));
    }

    /* the sides: the old side's sources, then the new side's (or the old side's again) */
    if (jb->sites == NULL) {
        RS_FORWARD(open_side(jb, jb->robots, jb->n_robots, &jb->sites));
        jb->own_sites = 1;
    }
    if (jb->sites_new == NULL && jb->n_robots_new) {
        RS_FORWARD(open_side(jb, jb->robots_new, jb->n_robots_new, &jb->sites_new));
        jb->own_sites_new = 1;
    }
    job->sites[0] = jb->sites;
    job->sites[1] = jb->sites_new ? jb->sites_new : jb->sites;
    rs_sites_set_semantics(job->sites[0], job->sem[0]);
    if (job->sites[1] != job->sites[0]) rs_sites_set_semantics(job->sites[1], job->sem[1]);

    pipeline_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.io = io;
    cfg.jobs = job->logs && job->stateful ? 1 : jb->workers; /* w3c, cloudfront, auto: one parser sees every line */
    cfg.write_header = !job->quiet && jb->header;
    cfg.format = job->format;
    cfg.process = job->logs ? process_logs : process_urls;
    if (!job->logs) cfg.block_size = (size_t)4 << 20; /* as urls: more URLs per site for the scanners */
    cfg.ctx = job;
    cfg.state_new = worker_new;
    cfg.state_free = worker_free;
    cfg.tally_counters_origin = RS_DIFF_COUNTERS;
    if (job->logs) cfg.in_order = keep_hits;
    cfg.columns = jb->columns;
    cfg.n_columns = jb->n_columns;
    if (pipeline_init(&job->pipe, &cfg) != 0) {
        pipeline_free(&job->pipe);
        return RS_ERR_NOMEM;
    }
    job->pipe_inited = 1;
    return RS_OK;
}

static rs_status diff_run(rs_job *jb, const job_input *in)
{
    diff_job *job = jb->impl;
    job->input_name = in->name;
    return pipeline_run_input(&job->pipe, in, NULL, NULL) ? RS_ERR_IO : RS_OK;
}

/* After the last input: the summary, the log records, the rule-level diff. */
static rs_status diff_finish(rs_job *jb)
{
    diff_job *job = jb->impl;
    if (job == NULL || !job->pipe_inited) return RS_OK;
    const pipeline_totals *t = pipeline_totals_get(&job->pipe);
    if (summarize(job, t->origins, &job->sum) != RS_OK) {
        rs_io_error(&jb->io, RS_ERR_NOMEM, "out of memory");
        return RS_ERR_NOMEM;
    }
    job->summarized = 1;
    if (job->logs && !job->quiet && write_hits(job) != 0) return RS_ERR_IO;
    if (jb->diff_rules) {
        job->rules = rs_calloc(job->sum.n_pairs + 1, sizeof *job->rules);
        if (job->rules == NULL) {
            rs_io_error(&jb->io, RS_ERR_NOMEM, "out of memory");
            return RS_ERR_NOMEM;
        }
        if (rules_diff(job, &job->sum, job->rules) != 0) return RS_ERR_IO;
    }
    return RS_OK;
}

static void diff_totals(rs_job *jb, rs_job_totals *out)
{
    diff_job *job = jb->impl;
    if (job == NULL || !job->pipe_inited) return;
    const pipeline_totals *t = pipeline_totals_get(&job->pipe);
    const pipeline_counts *c = &t->counts;
    out->lines = c->lines;
    out->blank = c->blank;
    out->records = c->urls;
    out->malformed = c->malformed;
    out->skipped = c->skipped;
    out->bytes_in = t->bytes_in;
    out->bytes_out = t->bytes_out;
}

static int diff_input_failed(const rs_job *jb)
{
    diff_job *job = jb->impl;   /* the handle is const, its engine is not */
    return job && job->pipe_inited && pipeline_totals_get(&job->pipe)->input_failed;
}

static void diff_free(rs_job *jb)
{
    diff_job *job = jb->impl;
    if (job == NULL) return;
    if (job->pipe_inited) pipeline_free(&job->pipe);
    rs_tally_free(job->hits);
    rs_free(job->meta);
    rs_outbuf_free(&job->meta_text);
    rs_free(job->sum.pairs);
    rs_free(job->sum.agents);
    rs_free(job->rules);
    rs_free(job->agents);
    rs_free(job->agent_lens);
    rs_free(job);
    jb->impl = NULL;
}

const rs_job_ops rs_job_diff_ops = {
    .start = diff_start,
    .run = diff_run,
    .finish = diff_finish,
    .totals = diff_totals,
    .stats = diff_stats,
    .free = diff_free,
    .input_failed = diff_input_failed,
};
