/*
 * cmd_diff.c - `robotscan diff`: the same URLs (or log hits) under two
 * robots.txt versions, or two semantics of one -> what flips (SPEC 9).
 *
 * Options and output only. URL lists: every block is decided by two
 * scanners (src/scan), old and new, over the same block, so both sides cost
 * one pass; records of the two are compared line by line and agent by agent
 * and classified and counted by src/diff. Access logs (--logs): each bot hit
 * is identified and decided on both sides with rs_site_check, and hits are
 * summed per (bot, URL); the log-specific part is the section "Log hits".
 * The rule-level diff (--rules) is rs_diff_rules over the two matchers of
 * every (origin, agent) seen.
 */
#include "cli/cli.h"
#include "cli/bulk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

static const char HELP[] =
    "Usage: robotscan diff --old PATH --new PATH [OPTIONS] [FILE...]\n"
    "       robotscan diff --robots PATH --old-semantics S --new-semantics S [OPTIONS] [FILE...]\n"
    "\n"
    "Decides every URL of a list (one per line; plain, .zst or .gz; stdin when no FILE)\n"
    "under two sides and reports what flips: two versions of the robots.txt sources\n"
    "(--old, --new), or one source read with two semantics (--robots with\n"
    "--old-semantics and --new-semantics, e.g. google vs first-match). Both sides are\n"
    "decided in one pass over the input.\n"
    "\n"
    "Sides (each PATH as urls --robots takes it: a robots.txt FILE for every URL, a\n"
    "DIRECTORY of HOST[.txt] files, a MANIFEST.tsv, or a WARC of robots.txt captures):\n"
    "  --old PATH, --new PATH     the sources before and after (each repeatable, in priority order)\n"
    "  --robots PATH              one set of sources for both sides (repeatable)\n"
    "  --old-semantics S, --new-semantics S   google or first-match (default: --semantics)\n"
    "  --semantics S              both sides' semantics (default google)\n"
    "\n"
    "Options:\n"
    "  --agent TOKEN        compare for this crawler (repeatable; default: '*', Googlebot,\n"
    "                       bingbot, where '*' is a crawler no group names, so only the\n"
    "                       'User-agent: *' groups apply to it; records name it '*')\n"
    "  --logs               the inputs are access logs: each bot hit is a URL of weight 1,\n"
    "                       agents are the bots found (--agent keeps only those); records\n"
    "                       are per (bot, URL) with their hits, in first-seen order\n"
    "  --log-format F, --field NAME=KEY, --host HOST, --scheme S\n"
    "                       as for robotscan logs (with --logs; every format logs reads)\n"
    "  --all                print every compared record, not only flips\n"
    "  --rules              after the records, the rule-level diff per origin and agent\n"
    "  --format FMT         text, tsv, csv or jsonl (default: text on a terminal, else tsv)\n"
    "  --quiet              no records; the summary on stdout\n"
    "  --stats FILE.json    counts per agent and per (origin, agent); sums only (mergeable)\n"
    "  --html FILE          also write the statistics as an HTML page (see robotscan report)\n"
    "  --missing WHAT       origins a side does not know: allow (default), disallow, or skip\n"
    "                       (a pair with a skipped side is not compared)\n"
    "  --encode-urls        percent-encode non-ASCII path bytes before matching\n"
    "  -j, --jobs N         worker threads (default 1); output order is kept\n"
    "  --verbose            report malformed lines with their line numbers\n"
    "  --progress, --no-progress\n"
    "  --fail-on-change     exit 1 when anything flips\n"
    "\n"
    "Columns: url, origin, agent, old_verdict, old_line, old_rule, new_verdict, new_line,\n"
    "         new_rule, hits   (hits: 1 per URL line; with --logs the bot's hits on the URL)\n"
    "A flip is a verdict that differs (newly-disallowed, newly-allowed); the same verdict\n"
    "from another rule is not a flip. The summary (stderr; stdout with --quiet) gives per\n"
    "agent and per origin: compared, newly disallowed, newly allowed, unchanged.\n"
    "\n"
    "--rules rows: origin, agent, change, rule, old_line, new_line, probe, old_verdict,\n"
    "new_verdict. A rule is its type and canonical pattern (its line may move):\n"
    "  added            on the new side only (for that agent)\n"
    "  removed          on the old side only\n"
    "  changed-effect   on both sides, and its probe path gets a different verdict on the\n"
    "                   two sides; the probe is the shortest path the pattern names: every\n"
    "                   '*' removed, a final '$' dropped, '/' put in front if missing\n"
    "TSV/CSV: the rule rows follow the records after an empty line, with their own header;\n"
    "JSONL: objects with \"kind\":\"rule\"; only (origin, agent) pairs with a change.\n"
    "\n"
    "Bad input: one side missing (--old without --new), --robots mixed with --old/--new,\n"
    "--robots without two different semantics, or both sides the same sources (the same\n"
    "files, also by another name) with the same semantics: usage error, exit 2. A side\n"
    "that cannot be read: error naming it, exit 2. Sources of different kinds: a plain\n"
    "robots.txt FILE answers every origin while a DIRECTORY, MANIFEST or WARC answers per\n"
    "origin, so a side with a FILE and a side without one is a usage error (exit 2);\n"
    "per-origin kinds may be mixed (a directory vs a WARC): an origin one side does not\n"
    "know is no-robots there (--missing decides its verdict).\n"
    "Exit status: 0 ok; 1 with --fail-on-change when something flips; 2 usage or I/O error.\n";

static const char *const ACCEPTED[] = {
    "--robots", "--agent", "--format", "--quiet", "--stats", "--missing", "--encode-urls",
    "--semantics", "-j", "--jobs", "--verbose", "--progress", "--no-progress", "--help",
    "--host", "--scheme", "--log-format", "--field", "--html", NULL,
};

static const char *const COLUMNS[] = {
    "url", "origin", "agent", "old_verdict", "old_line", "old_rule",
    "new_verdict", "new_line", "new_rule", "hits",
};
#define N_COLUMNS 10

static const char *const RULE_COLUMNS[] = {
    "origin", "agent", "change", "rule", "old_line", "new_line", "probe", "old_verdict", "new_verdict",
};
#define N_RULE_COLUMNS 9

#define MAX_AGENTS CLI_MAX_LIST
#define MIN_LEN(a, b) ((a) < (b) ? (a) : (b))

/* pipeline_counts.extra[] */
enum { X_NEWLY_DISALLOWED = 1, X_NEWLY_ALLOWED = 2, X_NON_BOT, X_ONE_SIDE_BOT, X_BOT_DIFFERS };

/* ===== Options of diff itself (the rest go through cli_parse) ===== */

typedef struct {
    const char *paths[CLI_MAX_LIST];
    int n;
    rs_semantics sem;
    int sem_given;
} side_opts;

typedef struct {
    side_opts side[2];       /* [0] old, [1] new */
    int logs, all, rules, fail_on_change;
} diff_opts;

static int parse_semantics(const char *name, const char *v, rs_semantics *out)
{
    if (!strcmp(v, "google")) *out = RS_SEMANTICS_GOOGLE;
    else if (!strcmp(v, "first-match")) *out = RS_SEMANTICS_FIRST_MATCH;
    else return cli_usage_error("diff", "%s takes google or first-match, not '%s'", name, v);
    return 0;
}

/*
 * Takes diff's own options out of argv (into @d) and leaves the others, in
 * order, in @rest for cli_parse. Values of cli_parse's options are skipped
 * so that a value is never read as an option.
 */
static int extract_options(int argc, char **argv, diff_opts *d, char **rest, int *n_rest)
{
    static const char *const VALUED[] = {
        "--robots", "--agent", "--format", "--semantics", "--missing", "--stats", "-j", "--jobs",
        "--host", "--scheme", "--log-format", "--field", "--html", NULL,
    };
    int n = 0, positional = 0;
    for (int i = 0; i < argc; i++) {
        char *a = argv[i];
        if (positional || a[0] != '-' || a[1] == '\0') { rest[n++] = a; continue; }
        if (!strcmp(a, "--")) { positional = 1; rest[n++] = a; continue; }
        const char *eq = strchr(a, '=');
        const size_t nlen = eq ? (size_t)(eq - a) : strlen(a);
        const char *value = eq ? eq + 1 : NULL;
#define IS(s) (nlen == strlen(s) && !strncmp(a, (s), nlen))
        if (IS("--old") || IS("--new") || IS("--old-semantics") || IS("--new-semantics")) {
            char name[32];
            snprintf(name, sizeof name, "%.*s", (int)nlen, a);
            if (value == NULL) {
                if (i + 1 >= argc) return cli_usage_error("diff", "%s needs a value", name);
                value = argv[++i];
            }
            side_opts *s = &d->side[name[2] == 'n'];
            if (strstr(name, "semantics")) {
                if (parse_semantics(name, value, &s->sem)) return 2;
                s->sem_given = 1;
            } else {
                if (s->n >= CLI_MAX_LIST) return cli_usage_error("diff", "too many %s options", name);
                s->paths[s->n++] = value;
            }
            continue;
        }
        int *flag = IS("--logs") ? &d->logs : IS("--all") ? &d->all : IS("--rules") ? &d->rules
                  : IS("--fail-on-change") ? &d->fail_on_change : NULL;
        if (flag) {
            if (value) return cli_usage_error("diff", "%.*s takes no value", (int)nlen, a);
            *flag = 1;
            continue;
        }
        rest[n++] = a;
        int valued = 0;
        for (const char *const *v = VALUED; *v; v++) valued |= IS(*v);
#undef IS
        if (valued && value == NULL && i + 1 < argc) rest[n++] = argv[++i];
    }
    *n_rest = n;
    return 0;
}

/* ===== Sides: checks before opening ===== */

/* 1: a plain robots.txt file (answers every origin); 0: per-origin (directory, manifest, WARC). */
static int is_catch_all(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || S_ISDIR(st.st_mode)) return 0;
    const size_t n = strlen(path);
    if (n >= 4 && !strcasecmp(path + n - 4, ".tsv")) return 0;
    return !rs_is_warc_file(path);   /* a WARC, plain or compressed, answers per origin */
}

/* Every path of both sides can be opened for reading; 2 after naming the first that cannot. */
static int check_readable(const diff_opts *d)
{
    static const char *const NAME[2] = { "--old", "--new" };
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < d->side[s].n; i++) {
            const char *p = d->side[s].paths[i];
            const int fd = open(p, O_RDONLY);
            if (fd < 0) {
                cli_error("cannot read %s '%s': %s", NAME[s], p, strerror(errno));
                return 2;
            }
            close(fd);
        }
    return 0;
}

/* 1 when both sides name the same files (device and inode), in the same order. */
static int same_sources(const side_opts *a, const side_opts *b)
{
    if (a->n != b->n) return 0;
    for (int i = 0; i < a->n; i++) {
        struct stat x, y;
        if (stat(a->paths[i], &x) != 0 || stat(b->paths[i], &y) != 0) return 0;
        if (x.st_dev != y.st_dev || x.st_ino != y.st_ino) return 0;
    }
    return 1;
}

static int has_catch_all(const side_opts *s)
{
    for (int i = 0; i < s->n; i++)
        if (is_catch_all(s->paths[i])) return 1;
    return 0;
}

/* ===== The job ===== */

typedef struct {
    const struct cli_opts *opts;
    const diff_opts *d;
    rs_sites *sites[2];          /* the same handle twice with --robots */
    rs_semantics sem[2];
    const char *agents[MAX_AGENTS];
    size_t agent_lens[MAX_AGENTS];
    size_t n_agents;
    int missing;                 /* rs_scan_missing */
    const char *input_name;
    /* --logs */
    const char *spec;            /* --log-format (rs_logparser: every format logs reads) */
    const char *host, *scheme;
    rs_tally *hits;              /* "bot\turl" -> hits, in first-seen order */
    struct hit_meta {            /* per hits entry: the rest of its record, in meta_text */
        uint32_t origin_off, origin_len, rule_off[2], rule_len[2], line[2];
        uint8_t disallowed[2];
    } *meta;
    size_t cap_meta;
    rs_outbuf meta_text;
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
    /* --logs */
    rs_log_auditor *aud[2];      /* the per-hit decision of each side (src/log/audit.c) */
    rs_logparser *parser;        /* --logs: this worker's (formats with state see every line) */
} diff_worker;

static void *worker_new(void) { return calloc(1, sizeof(diff_worker)); }

static void worker_free(void *p)
{
    diff_worker *w = p;
    if (w == NULL) return;
    for (int s = 0; s < 2; s++) {
        rs_scanner_free(w->sc[s]);
        rs_outbuf_free(&w->rule_text[s]);
    }
    for (int s = 0; s < 2; s++) rs_log_auditor_free(w->aud[s]);
    free(w->tally_ix);
    free(w->pc);
    free(w->touched);
    rs_outbuf_free(&w->key);
    rs_logparser_free(w->parser);
    free(w);
}

/* "allow: /x" for rule @rule of @m, in @buf (empty when none). */
static rs_str rule_text(rs_outbuf *buf, const rs_matcher *m, int32_t rule)
{
    rs_str s = { "", 0 };
    rs_rule_info info;
    if (m == NULL || rule < 0 || rs_matcher_rule(m, rule, &info) != RS_OK) return s;
    buf->len = 0;
    const char *kind = info.type == RS_RULE_ALLOW ? "allow: " : "disallow: ";
    if (rs_outbuf_append(buf, kind, strlen(kind)) != RS_OK
        || rs_outbuf_append(buf, info.pattern.ptr, info.pattern.len) != RS_OK)
        return s;
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

static rs_status format_record(rs_outbuf *out, rs_format fmt, rs_str url, rs_str origin, rs_str agent,
                               const side_verdict *v, uint64_t hits)
{
    if (fmt == RS_FORMAT_TEXT) {
        const rs_flip f = rs_diff_flip(v[0].disallowed, v[1].disallowed);
        static const char *const HEAD[RS_FLIP_COUNT] = {
            "unchanged         ", "NEWLY-DISALLOWED  ", "newly-allowed     " };
        char tmp[96];
        CLI_TRY(rs_outbuf_append(out, HEAD[f], strlen(HEAD[f])));
        CLI_TRY(rs_outbuf_append(out, agent.ptr, agent.len));
        CLI_TRY(rs_outbuf_append(out, "  ", 2));
        CLI_TRY(rs_outbuf_append(out, url.ptr, url.len));
        for (int s = 0; s < 2; s++) {
            snprintf(tmp, sizeof tmp, "  %s %s", s ? "new" : "old", v[s].disallowed ? "disallow" : "allow");
            CLI_TRY(rs_outbuf_append(out, tmp, strlen(tmp)));
            if (v[s].line) {
                snprintf(tmp, sizeof tmp, " (line %u: ", v[s].line);
                CLI_TRY(rs_outbuf_append(out, tmp, strlen(tmp)));
                CLI_TRY(rs_outbuf_append(out, v[s].rule.ptr, v[s].rule.len));
                CLI_TRY(rs_outbuf_append(out, ")", 1));
            }
        }
        if (hits != 1) {
            snprintf(tmp, sizeof tmp, "  [%llu hits]", (unsigned long long)hits);
            CLI_TRY(rs_outbuf_append(out, tmp, strlen(tmp)));
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
    return rs_format_record(out, fmt, COLUMNS, f, N_COLUMNS);
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
    CLI_TRY(rs_outbuf_append(k, origin.ptr, origin.len));
    CLI_TRY(rs_outbuf_append(k, "\t", 1));
    CLI_TRY(rs_outbuf_append(k, agent.ptr, agent.len));
    CLI_TRY(rs_tally_find(res->origins, k->ptr, k->len, &ix));
    *out = rs_tally_counters(res->origins, ix);
    if (site == UINT32_MAX) return RS_OK;
    if (slot >= w->tally_cap) {
        size_t cap = w->tally_cap ? w->tally_cap : 4096;
        while (cap <= slot) cap *= 2;
        uint32_t *t = realloc(w->tally_ix, cap * sizeof *t);
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
    uint32_t *pc = realloc(w->pc, cap * 3 * sizeof *pc);
    if (pc == NULL) return RS_ERR_NOMEM;
    memset(pc + 3 * w->pc_cap, 0, (cap - w->pc_cap) * 3 * sizeof *pc);
    w->pc = pc;
    uint32_t *t = realloc(w->touched, cap * sizeof *t);
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
        cfg.encode_urls = job->opts->encode_urls;
        CLI_TRY(rs_scanner_create(&cfg, &w->sc[s]));
    }
    return RS_OK;
}

static rs_status process_urls(void *ctx, void *state, const rs_block *block, pipeline_result *res)
{
    const diff_job *job = ctx;
    diff_worker *w = state;
    if (w->sc[0] == NULL) CLI_TRY(make_scanners(job, w));
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
    const int quiet = job->opts->quiet, all = job->d->all;
    for (size_t i = 0; i < n[0]; i++) {
        rs_scan_record r[2];
        rs_scan_get(w->sc[0], i, 0, &r[0]);
        if (r[0].kind == RS_SCAN_BLANK) { res->counts.blank++; continue; }
        if (r[0].kind == RS_SCAN_OVERSIZED || r[0].kind == RS_SCAN_MALFORMED) {
            res->counts.malformed++;
            if (job->opts->verbose) {
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
                    CLI_TRY(pair_counters(w, res, r[0].site, job->n_agents, r[0].origin, agent, a, &unused));
                }
                CLI_TRY(block_counts_grow(w, slot));
                uint32_t *pc = &w->pc[3 * slot];
                if (pc[0]++ == 0) w->touched[w->n_touched++] = (uint32_t)slot;
                f = rs_diff_flip(r[0].disallowed, r[1].disallowed);
                pc[f] += f != RS_FLIP_UNCHANGED;
            } else {
                uint64_t *c;
                CLI_TRY(pair_counters(w, res, r[0].site, job->n_agents, r[0].origin, agent, a, &c));
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
            CLI_TRY(format_record(&res->out, job->opts->format, r[0].url, r[0].origin, agent, v, 1));
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
 * (the origin's scheme is --scheme, or the port's).
 */

static int wanted(const diff_job *job, rs_str token)
{
    if (job->opts->n_agents == 0) return 1;
    for (int i = 0; i < job->opts->n_agents; i++)
        if (strlen(job->opts->agents[i]) == token.len
            && !strncasecmp(job->opts->agents[i], token.ptr, token.len))
            return 1;
    return 0;
}

/* A decided hit, for the in-order pass (followed by its strings, padded to 8). */
typedef struct {
    uint32_t bot_len, url_len, origin_len, rule_len[2], line[2];
    uint8_t disallowed[2], pad[2];
} hit_rec;

static rs_status one_hit(const diff_job *job, diff_worker *w, pipeline_result *res, const rs_logrec *rec,
                         uint64_t line_no)
{
    for (int s = 0; s < 2; s++)
        if (w->aud[s] == NULL) {
            const rs_log_audit_config cfg = { job->sites[s], job->host, job->scheme, NULL, 0 };
            CLI_TRY(rs_log_auditor_create(&cfg, &w->aud[s]));
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
            if (job->opts->verbose)
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
    for (int s = 0; s < 2; s++) CLI_TRY(rs_log_audit_url(w->aud[s], rec, &hit[s]));
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
                                           job->sem[s], job->opts->encode_urls, &v[s]);
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
            b->len = 0;
            const char *kind = v[s].rule.type == RS_RULE_ALLOW ? "allow: " : "disallow: ";
            CLI_TRY(rs_outbuf_append(b, kind, strlen(kind)));
            CLI_TRY(rs_outbuf_append(b, v[s].rule.pattern.ptr, v[s].rule.pattern.len));
            sv[s].rule = (rs_str){ b->ptr, b->len };
        }
    }
    uint64_t *c;
    CLI_TRY(pair_counters(w, res, UINT32_MAX, 1, origin, token, 0, &c));
    const rs_flip f = rs_diff_count(c, sv[0].disallowed, sv[1].disallowed, 1);
    res->counts.urls++;
    res->counts.extra[f]++;
    if (job->opts->quiet || (f == RS_FLIP_UNCHANGED && !job->d->all)) return RS_OK;

    hit_rec h;
    memset(&h, 0, sizeof h);
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
    CLI_TRY(rs_outbuf_append(aux, &h, sizeof h));
    CLI_TRY(rs_outbuf_append(aux, token.ptr, token.len));
    CLI_TRY(rs_outbuf_append(aux, url.ptr, url.len));
    CLI_TRY(rs_outbuf_append(aux, origin.ptr, origin.len));
    CLI_TRY(rs_outbuf_append(aux, sv[0].rule.ptr, sv[0].rule.len));
    CLI_TRY(rs_outbuf_append(aux, sv[1].rule.ptr, sv[1].rule.len));
    return rs_outbuf_append(aux, zeros, (8 - (aux->len - start) % 8) % 8);
}

static rs_status process_logs(void *ctx, void *state, const rs_block *block, pipeline_result *res)
{
    const diff_job *job = ctx;
    diff_worker *w = state;
    if (w->parser == NULL) {
        char err[256] = "";
        const rs_status st = rs_logparser_create(job->spec, strlen(job->spec), job->opts->fields,
                                                 (size_t)job->opts->n_fields, err, sizeof err, &w->parser);
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
            if (job->opts->verbose)
                pipeline_diag(res, "%s:%llu: line of %llu bytes is too long, skipped", job->input_name,
                              (unsigned long long)ln.number, (unsigned long long)ln.oversized);
            continue;
        }
        rs_logrec rec;
        const rs_logline_status st = rs_logparser_parse(w->parser, ln.text.ptr, ln.text.len, &rec);
        if (st == RS_LOGLINE_EMPTY) { res->counts.blank++; continue; }
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

/* In input order (main thread): hits summed per (bot, URL), first-seen order kept. */
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
        CLI_TRY(rs_outbuf_append(k, p, h.bot_len));
        CLI_TRY(rs_outbuf_append(k, "\t", 1));
        CLI_TRY(rs_outbuf_append(k, p + h.bot_len, h.url_len));
        const uint32_t before = rs_tally_size(job->hits);
        uint32_t ix;
        CLI_TRY(rs_tally_find(job->hits, k->ptr, k->len, &ix));
        rs_tally_counters(job->hits, ix)[0]++;
        if (ix < before) continue;
        if (ix >= job->cap_meta) {
            const size_t cap = job->cap_meta ? job->cap_meta * 2 : 1024;
            void *m = realloc(job->meta, cap * sizeof *job->meta);
            if (m == NULL) return RS_ERR_NOMEM;
            job->meta = m;
            job->cap_meta = cap;
        }
        struct hit_meta *m = &job->meta[ix];
        const char *q = p + h.bot_len + h.url_len;
        m->origin_off = (uint32_t)job->meta_text.len;
        m->origin_len = h.origin_len;
        CLI_TRY(rs_outbuf_append(&job->meta_text, q, h.origin_len));
        q += h.origin_len;
        for (int s = 0; s < 2; s++) {
            m->rule_off[s] = (uint32_t)job->meta_text.len;
            m->rule_len[s] = h.rule_len[s];
            CLI_TRY(rs_outbuf_append(&job->meta_text, q, h.rule_len[s]));
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

static int write_hits(const diff_job *job)
{
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
        if (format_record(cli_out(), job->opts->format, url, origin, bot, v,
                          rs_tally_counters_const(job->hits, i)[0]) != RS_OK)
            return -1;
        if (cli_out_flush(1 << 18) != 0) return -1;
    }
    return 0;
}

/* ===== Summary, statistics, rule diff ===== */

/* Rows of the merged (origin, agent) tally, and sums per agent. */
typedef struct {
    rs_str origin, agent;
    const uint64_t *c;
} pair_row;

typedef struct {
    rs_str agent;
    uint64_t c[RS_DIFF_COUNTERS];
} agent_row;

static int slice_cmp(rs_str a, rs_str b)
{
    const int c = MIN_LEN(a.len, b.len) ? memcmp(a.ptr, b.ptr, MIN_LEN(a.len, b.len)) : 0;
    if (c) return c;
    return a.len < b.len ? -1 : a.len > b.len;
}

static int pair_row_cmp(const void *pa, const void *pb)
{
    const pair_row *a = pa, *b = pb;
    const uint64_t fa = a->c[RS_DIFF_NEWLY_DISALLOWED] + a->c[RS_DIFF_NEWLY_ALLOWED];
    const uint64_t fb = b->c[RS_DIFF_NEWLY_DISALLOWED] + b->c[RS_DIFF_NEWLY_ALLOWED];
    if (fa != fb) return fa > fb ? -1 : 1;
    const int c = slice_cmp(a->origin, b->origin);
    return c ? c : slice_cmp(a->agent, b->agent);
}

typedef struct {
    pair_row *pairs;
    size_t n_pairs;
    agent_row *agents;
    size_t n_agents;
    uint64_t total[RS_DIFF_COUNTERS];
} summary_data;

static void summary_free(summary_data *s)
{
    free(s->pairs);
    free(s->agents);
}

/* Agents in the order of @job->agents (URL lists) or by hits (logs). */
static int agent_row_cmp(const void *pa, const void *pb)
{
    const agent_row *a = pa, *b = pb;
    if (a->c[RS_DIFF_HITS] != b->c[RS_DIFF_HITS]) return a->c[RS_DIFF_HITS] > b->c[RS_DIFF_HITS] ? -1 : 1;
    return slice_cmp(a->agent, b->agent);
}

static int summarize(const diff_job *job, const rs_tally *t, summary_data *s)
{
    memset(s, 0, sizeof *s);
    const uint32_t n = t ? rs_tally_size(t) : 0;
    s->pairs = calloc(n + 1, sizeof *s->pairs);
    s->agents = calloc(n + job->n_agents + 1, sizeof *s->agents);
    if (s->pairs == NULL || s->agents == NULL) return -1;
    if (!job->d->logs)
        for (size_t a = 0; a < job->n_agents; a++)
            s->agents[s->n_agents++].agent = (rs_str){ job->agents[a], job->agent_lens[a] };
    for (uint32_t i = 0; i < n; i++) {
        const rs_str k = rs_tally_key(t, i);
        const char *tab = memrchr(k.ptr, '\t', k.len);
        pair_row *p = &s->pairs[s->n_pairs++];
        p->origin = (rs_str){ k.ptr, (size_t)(tab - k.ptr) };
        p->agent = (rs_str){ tab + 1, k.len - p->origin.len - 1 };
        p->c = rs_tally_counters_const(t, i);
        agent_row *ar = NULL;
        for (size_t a = 0; a < s->n_agents && ar == NULL; a++)
            if (s->agents[a].agent.len == p->agent.len && !memcmp(s->agents[a].agent.ptr, p->agent.ptr, p->agent.len))
                ar = &s->agents[a];
        if (ar == NULL) {
            ar = &s->agents[s->n_agents++];
            ar->agent = p->agent;
        }
        for (int c = 0; c < RS_DIFF_COUNTERS; c++) {
            ar->c[c] += p->c[c];
            s->total[c] += p->c[c];
        }
    }
    qsort(s->pairs, s->n_pairs, sizeof *s->pairs, pair_row_cmp);
    if (job->d->logs) qsort(s->agents, s->n_agents, sizeof *s->agents, agent_row_cmp);
    return 0;
}

static void put(rs_outbuf *b, const char *s) { rs_outbuf_append(b, s, strlen(s)); }

static void summary_text(rs_outbuf *o, const diff_job *job, const summary_data *s, const pipeline_counts *c)
{
    char line[512];
    const int logs = job->d->logs;
    snprintf(line, sizeof line,
             "diff: %llu lines, %llu %s compared: %llu newly disallowed, %llu newly allowed, %llu unchanged"
             "; malformed %llu, skipped %llu\n",
             (unsigned long long)c->lines, (unsigned long long)s->total[RS_DIFF_COMPARED],
             logs ? "bot hits" : "(URL, agent) pairs",
             (unsigned long long)s->total[RS_DIFF_NEWLY_DISALLOWED],
             (unsigned long long)s->total[RS_DIFF_NEWLY_ALLOWED],
             (unsigned long long)s->total[RS_DIFF_UNCHANGED], (unsigned long long)c->malformed,
             (unsigned long long)c->skipped);
    put(o, line);
    if (logs) {
        snprintf(line, sizeof line, "non-bot lines %llu; bot on one side only %llu; bot named differently %llu\n",
                 (unsigned long long)c->extra[X_NON_BOT], (unsigned long long)c->extra[X_ONE_SIDE_BOT],
                 (unsigned long long)c->extra[X_BOT_DIFFERS]);
        put(o, line);
    }
    snprintf(line, sizeof line, "%-24s %10s %18s %18s %10s\n", logs ? "bot" : "agent",
             logs ? "hits" : "compared", "newly-disallowed", "newly-allowed", "unchanged");
    put(o, line);
    for (size_t a = 0; a < s->n_agents; a++) {
        const agent_row *r = &s->agents[a];
        const uint64_t all = r->c[RS_DIFF_HITS];
        char nd[48], na[48];
        if (logs) {
            snprintf(nd, sizeof nd, "%llu (%.1f%%)", (unsigned long long)r->c[RS_DIFF_HITS_NEWLY_DISALLOWED],
                     all ? 100.0 * (double)r->c[RS_DIFF_HITS_NEWLY_DISALLOWED] / (double)all : 0.0);
            snprintf(na, sizeof na, "%llu (%.1f%%)", (unsigned long long)r->c[RS_DIFF_HITS_NEWLY_ALLOWED],
                     all ? 100.0 * (double)r->c[RS_DIFF_HITS_NEWLY_ALLOWED] / (double)all : 0.0);
        } else {
            snprintf(nd, sizeof nd, "%llu", (unsigned long long)r->c[RS_DIFF_NEWLY_DISALLOWED]);
            snprintf(na, sizeof na, "%llu", (unsigned long long)r->c[RS_DIFF_NEWLY_ALLOWED]);
        }
        snprintf(line, sizeof line, "%-24.*s %10llu %18s %18s %10llu\n", (int)r->agent.len, r->agent.ptr,
                 (unsigned long long)(logs ? all : r->c[RS_DIFF_COMPARED]), nd, na,
                 (unsigned long long)(logs ? r->c[RS_DIFF_HITS_UNCHANGED] : r->c[RS_DIFF_UNCHANGED]));
        put(o, line);
    }
    size_t flipped = 0;
    while (flipped < s->n_pairs && s->pairs[flipped].c[RS_DIFF_COMPARED] != s->pairs[flipped].c[RS_DIFF_UNCHANGED])
        flipped++;
    if (flipped == 0) return;
    snprintf(line, sizeof line, "origins with flips (%zu (origin, %s) pairs%s):\n", flipped,
             logs ? "bot" : "agent", flipped > 20 ? ", the 20 with most; all in --stats" : "");
    put(o, line);
    for (size_t i = 0; i < flipped && i < 20; i++) {
        const pair_row *p = &s->pairs[i];
        snprintf(line, sizeof line, "  %.*s  %.*s  compared %llu, newly disallowed %llu, newly allowed %llu, unchanged %llu\n",
                 (int)p->origin.len, p->origin.ptr, (int)p->agent.len, p->agent.ptr,
                 (unsigned long long)p->c[RS_DIFF_COMPARED], (unsigned long long)p->c[RS_DIFF_NEWLY_DISALLOWED],
                 (unsigned long long)p->c[RS_DIFF_NEWLY_ALLOWED], (unsigned long long)p->c[RS_DIFF_UNCHANGED]);
        put(o, line);
    }
}

/* "compared":N,"newly_disallowed":N,... */
static void stats_counters(rs_stats_writer *w, const uint64_t *c)
{
    static const char *const NAMES[RS_DIFF_COUNTERS] = {
        "compared", "newly_disallowed", "newly_allowed", "unchanged",
        "hits", "hits_newly_disallowed", "hits_newly_allowed", "hits_unchanged",
    };
    for (int i = 0; i < RS_DIFF_COUNTERS; i++) rs_stats_count(w, NAMES[i], c[i]);
}

/* Rule-level diff counts of one (origin, agent) pair (for --stats). */
typedef struct {
    uint32_t changes[3];
} rule_counts;

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
    const char *kind = ch->type == RS_RULE_ALLOW ? "allow: " : "disallow: ";
    char rule[64 + RS_ROBOTS_MAX_LINE];
    snprintf(rule, sizeof rule, "%s%.*s", kind, (int)ch->pattern.len, ch->pattern.ptr);
    const rs_str change = { rs_rule_change_str(ch->change), strlen(rs_rule_change_str(ch->change)) };
    const int od = ch->old_verdict.disallowed, nd = ch->new_verdict.disallowed;
    const rs_format fmt = r->job->opts->format;
    rs_status st;
    if (fmt == RS_FORMAT_TEXT) {
        char head[128];
        snprintf(head, sizeof head, "  %-15s %s (old line %u, new line %u); probe ", change.ptr, rule,
                 ch->old_line, ch->new_line);
        st = rs_outbuf_append(r->out, head, strlen(head));
        if (st == RS_OK) st = rs_outbuf_append(r->out, ch->probe.ptr, ch->probe.len);
        snprintf(head, sizeof head, ": old %s, new %s\n", od ? "disallow" : "allow", nd ? "disallow" : "allow");
        if (st == RS_OK) st = rs_outbuf_append(r->out, head, strlen(head));
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
        /* JSONL rows say what they are; TSV/CSV rows follow their own header */
        const int skip = fmt == RS_FORMAT_JSONL ? 0 : 1;
        st = rs_format_record(r->out, fmt, NAMES + skip, f + skip, N_RULE_COLUMNS + 1 - (size_t)skip);
    }
    if (st != RS_OK) r->status = st;
}

/* The matcher side @s gives @agent at @origin (NULL: no rules); with --logs @agent is a
 * bot token and its family's group applies. Single-threaded (after the run). */
static rs_status side_matcher(const diff_job *job, int s, rs_str origin, rs_str agent, const rs_matcher **out)
{
    char buf[RS_ORIGIN_MAX];
    rs_origin o;
    *out = NULL;
    CLI_TRY(rs_origin_parse(origin.ptr, origin.len, buf, sizeof buf, &o));
    if (o.error != RS_ORIGIN_OK) return RS_OK;
    rs_sites_set_semantics(job->sites[s], job->sem[s]);
    rs_site_result r;
    rs_botid *b = NULL;
    rs_status st = RS_OK;
    if (job->d->logs) {
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
    if (st != RS_OK) cli_error("%s", rs_sites_errmsg(job->sites[s]));
    rs_botid_free(b);
    return st;
}

static const pair_row *sort_pairs; /* for origin_order_cmp (qsort has no context) */

static int origin_order_cmp(const void *pa, const void *pb)
{
    const pair_row *a = &sort_pairs[*(const size_t *)pa], *b = &sort_pairs[*(const size_t *)pb];
    const int c = slice_cmp(a->origin, b->origin);
    return c ? c : slice_cmp(a->agent, b->agent);
}

/*
 * The rule-level diff of every (origin, agent) pair compared, in origin
 * order; rows into @out when not NULL; change counts per pair into @counts
 * (indexed like s->pairs). @return 0, or -1 after an error message.
 */
static int rules_diff(const diff_job *job, const summary_data *s, rs_outbuf *out, rule_counts *counts)
{
    /* by origin, then agent, for the output */
    size_t *order = malloc((s->n_pairs + 1) * sizeof *order);
    if (order == NULL) { cli_error("out of memory"); return -1; }
    for (size_t i = 0; i < s->n_pairs; i++) order[i] = i;
    sort_pairs = s->pairs;
    qsort(order, s->n_pairs, sizeof *order, origin_order_cmp);
    const int text = job->opts->format == RS_FORMAT_TEXT;
    int rc = 0, any = 0;
    for (size_t k = 0; k < s->n_pairs && rc == 0; k++) {
        const pair_row *p = &s->pairs[order[k]];
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
        counts[order[k]].changes[0] = r.count[0];
        counts[order[k]].changes[1] = r.count[1];
        counts[order[k]].changes[2] = r.count[2];
        if (rc || out == NULL || r.count[0] + r.count[1] + r.count[2] == 0) continue;
        if (!any) {
            any = 1;
            if (text) put(out, job->opts->quiet ? "rule changes (origin, agent: change, rule, lines, probe):\n"
                                                : "\nrule changes (origin, agent: change, rule, lines, probe):\n");
            else if (job->opts->format != RS_FORMAT_JSONL && !job->opts->quiet) put(out, "\n");
            if (!text && rs_format_header(out, job->opts->format, RULE_COLUMNS, N_RULE_COLUMNS) != RS_OK) rc = -1;
        }
        if (text) {
            char head[RS_ORIGIN_MAX + 160];
            snprintf(head, sizeof head, "%.*s  %.*s: %u added, %u removed, %u changed in effect\n",
                     (int)p->origin.len, p->origin.ptr, (int)p->agent.len, p->agent.ptr,
                     r.count[RS_RULE_ADDED], r.count[RS_RULE_REMOVED], r.count[RS_RULE_CHANGED_EFFECT]);
            put(out, head);
        }
        memset(r.count, 0, sizeof r.count);
        r.out = out;
        if (rs_diff_rules(m[0], m[1], on_rule_change, &r) != RS_OK || r.status != RS_OK) rc = -1;
        if (rc == 0 && cli_out_flush(1 << 18) != 0) rc = -1;
    }
    if (rc) cli_error("out of memory or unreadable robots.txt in the rule diff");
    free(order);
    return rc;
}

/* By the library's mergeable-statistics writer (rs_stats_*): counts per agent and per
 * (origin, agent); lists of objects merged by their string fields. */
static int write_stats(const char *path, const diff_job *job, const summary_data *s, const pipeline_counts *c,
                       const rule_counts *rules)
{
    rs_outbuf b = { 0 };
    static const char *const SEM[2] = { "google", "first-match" };
    static const char *const SIDE[2] = { "old", "new" };
    const struct cli_opts *o = job->opts;
    rs_stats_writer w;
    rs_stats_begin(&w, &b, "diff", 1);
    const char *input = job->d->logs ? "logs" : "urls";
    rs_stats_label(&w, "input", input, strlen(input));
    for (int side = 0; side < 2; side++) {
        rs_stats_object(&w, SIDE[side]);
        rs_stats_label(&w, "semantics", SEM[job->sem[side]], strlen(SEM[job->sem[side]]));
        const int n = o->n_robots ? o->n_robots : job->d->side[side].n;
        rs_stats_list(&w, "robots");
        for (int i = 0; i < n; i++) {
            const char *p = o->n_robots ? o->robots[i] : job->d->side[side].paths[i];
            rs_stats_label(&w, NULL, p, strlen(p));
        }
        rs_stats_end(&w);
        rs_stats_end(&w);
    }
    rs_stats_labels(&w, "inputs", (const char *const *)o->args, (size_t)o->n_args);
    rs_stats_count(&w, "lines", c->lines);
    rs_stats_count(&w, "blank", c->blank);
    rs_stats_count(&w, "malformed", c->malformed);
    rs_stats_count(&w, "skipped", c->skipped);
    if (job->d->logs) {
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
        const pair_row *p = &s->pairs[i];
        rs_stats_object(&w, NULL);
        rs_stats_label(&w, "origin", p->origin.ptr, p->origin.len);
        rs_stats_label(&w, "agent", p->agent.ptr, p->agent.len);
        stats_counters(&w, p->c);
        if (rules) {
            rs_stats_count(&w, "rules_added", rules[i].changes[RS_RULE_ADDED]);
            rs_stats_count(&w, "rules_removed", rules[i].changes[RS_RULE_REMOVED]);
            rs_stats_count(&w, "rules_changed_effect", rules[i].changes[RS_RULE_CHANGED_EFFECT]);
        }
        rs_stats_end(&w);
    }
    rs_stats_end(&w);
    const rs_status st = rs_stats_finish(&w);
    const int rc = st == RS_OK ? cli_write_file(path, b.ptr, b.len, "statistics") : -1;
    if (st != RS_OK) cli_error("statistics: %s", rs_status_str(st));
    rs_outbuf_free(&b);
    return rc;
}

/* ===== Command ===== */

/* Validates the sides. @return 0, or 2 after a message. */
static int check_sides(const struct cli_opts *o, diff_opts *d)
{
    side_opts *old = &d->side[0], *nw = &d->side[1];
    for (int s = 0; s < 2; s++)
        if (!d->side[s].sem_given) d->side[s].sem = o->semantics;
    if (o->n_robots) {
        if (old->n || nw->n)
            return cli_usage_error("diff", "give either --robots (two semantics of one source) or --old and --new, not both");
        if (!old->sem_given || !nw->sem_given)
            return cli_usage_error("diff", "--robots compares two semantics of one source: give --old-semantics "
                                           "and --new-semantics (or --old PATH --new PATH for two versions)");
        if (old->sem == nw->sem)
            return cli_usage_error("diff", "--old-semantics and --new-semantics are the same: nothing can flip");
        for (int i = 0; i < o->n_robots; i++) old->paths[i] = nw->paths[i] = o->robots[i];
        old->n = nw->n = o->n_robots;
    } else {
        if (old->n == 0 && nw->n == 0)
            return cli_usage_error("diff", "needs --old PATH and --new PATH (or --robots PATH with "
                                           "--old-semantics and --new-semantics)");
        if (old->n == 0) return cli_usage_error("diff", "needs --old PATH too (the robots sources before the change)");
        if (nw->n == 0) return cli_usage_error("diff", "needs --new PATH too (the robots sources after the change)");
    }
    if (check_readable(d)) return 2;
    if (!o->n_robots && old->sem == nw->sem && same_sources(old, nw))
        return cli_usage_error("diff", "--old and --new are the same sources with the same semantics: nothing can "
                                       "flip (to compare semantics: --robots PATH --old-semantics S --new-semantics S)");
    if (!o->n_robots) {
        const int a = has_catch_all(old), b = has_catch_all(nw);
        if (a != b)
            return cli_usage_error("diff", "%s has a robots.txt file (one for every URL) and %s has only per-origin "
                                           "sources (directory, manifest, WARC): give sources of the same kind",
                                   a ? "--old" : "--new", a ? "--new" : "--old");
    }
    return 0;
}

static int open_side(const side_opts *s, rs_semantics sem, rs_sites **out)
{
    rs_sites *sites = NULL;
    const rs_status st = rs_sites_create(s->paths, (size_t)s->n, &sites);
    if (st != RS_OK) {
        cli_error("%s", sites ? rs_sites_errmsg(sites) : rs_status_str(st));
        rs_sites_free(sites);
        return 2;
    }
    rs_sites_set_semantics(sites, sem);
    *out = sites;
    return 0;
}

int cmd_diff(int argc, char **argv)
{
    diff_opts d;
    memset(&d, 0, sizeof d);
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (rest == NULL) { cli_error("out of memory"); return 2; }
    int n_rest = 0, rc = extract_options(argc, argv, &d, rest, &n_rest);
    struct cli_opts o;
    if (rc == 0) rc = cli_parse("diff", ACCEPTED, n_rest, rest, &o);
    if (rc) { free(rest); return rc; }
    if (o.help) {
        fputs(HELP, stdout);
        free(rest);
        return 0;
    }
    if ((rc = check_sides(&o, &d)) != 0) { free(rest); return rc; }

    diff_job job;
    memset(&job, 0, sizeof job);
    int flips = 0;
    job.opts = &o;
    job.d = &d;
    job.missing = !strcmp(o.missing, "allow") ? RS_SCAN_MISSING_ALLOW
                : !strcmp(o.missing, "disallow") ? RS_SCAN_MISSING_DISALLOW : RS_SCAN_MISSING_SKIP;
    job.sem[0] = d.side[0].sem;
    job.sem[1] = d.side[1].sem;
    int stateful = 0;
    if (d.logs) {
        job.host = o.host;
        job.scheme = o.scheme ? o.scheme : "https";
        if (strcmp(job.scheme, "http") && strcmp(job.scheme, "https")) {
            free(rest);
            return cli_usage_error("diff", "--scheme takes http or https, not '%s'", job.scheme);
        }
        job.spec = o.log_format ? o.log_format : "combined";
        char err[256] = "";
        rs_logparser *probe = NULL;
        if (rs_logparser_create(job.spec, strlen(job.spec), o.fields, (size_t)o.n_fields, err, sizeof err,
                                &probe) != RS_OK) {
            free(rest);
            return cli_usage_error("diff", "bad --log-format: %s", err[0] ? err : "cannot compile");
        }
        const unsigned fields = rs_logparser_fields(probe);
        stateful = rs_logparser_stateful(probe);
        rs_logparser_free(probe);
        if (!(fields & RS_LOGF_HOST) && o.host == NULL) {
            free(rest);
            return cli_usage_error("diff", "this log format does not name the site: give --host HOST");
        }
        if (!(fields & RS_LOGF_USER_AGENT)) {
            free(rest);
            return cli_usage_error("diff", "this log format has no user agent: bots cannot be found");
        }
        if (rs_tally_create(1, &job.hits) != RS_OK) { cli_error("out of memory"); rc = 2; goto done; }
        job.n_agents = 0; /* bots found; --agent filters */
    } else {
        if (o.host || o.scheme || o.log_format || o.n_fields) {
            free(rest);
            return cli_usage_error("diff", "--host, --scheme, --log-format and --field go with --logs");
        }
        static const char *const DEFAULT_AGENTS[] = { "*", "Googlebot", "bingbot" };
        const int n = o.n_agents ? o.n_agents : 3;
        for (int i = 0; i < n; i++) {
            const char *a = o.n_agents ? o.agents[i] : DEFAULT_AGENTS[i];
            if (strcmp(a, "*")) cli_check_agent(a);
            job.agents[job.n_agents] = a;
            job.agent_lens[job.n_agents++] = strlen(a);
        }
    }

    if (open_side(&d.side[0], job.sem[0], &job.sites[0]) != 0) { rc = 2; goto done; }
    if (o.n_robots) job.sites[1] = job.sites[0];
    else if (open_side(&d.side[1], job.sem[1], &job.sites[1]) != 0) { rc = 2; goto done; }

    pipeline p;
    pipeline_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cli_pipeline_defaults(&o, &cfg);
    cfg.process = d.logs ? process_logs : process_urls;
    if (!d.logs) cfg.block_size = (size_t)4 << 20; /* as urls: more URLs per site for the scanners */
    cfg.ctx = &job;
    cfg.state_new = worker_new;
    cfg.state_free = worker_free;
    cfg.tally_counters_origin = RS_DIFF_COUNTERS;
    if (d.logs) cfg.in_order = keep_hits;
    if (stateful) cfg.jobs = 1;   /* w3c, cloudfront, auto: one parser sees every line in order */
    cfg.columns = COLUMNS;
    cfg.n_columns = N_COLUMNS;
    cfg.write_header = !o.quiet;

    rc = pipeline_init(&p, &cfg);
    const int inited = rc == 0;
    if (rc == 0) rc = cli_run_inputs(&p, &o, &job.input_name);
    /* A damaged input (error already printed): the summary of what was read, then exit 2. */
    const int input_failed = inited && rc != 0 && pipeline_totals_get(&p)->input_failed;
    if (input_failed) rc = 0;
    const pipeline_totals *t = pipeline_totals_get(&p);
    summary_data s;
    rule_counts *rules = NULL;
    if (rc == 0 && summarize(&job, t->origins, &s) != 0) { cli_error("out of memory"); rc = 2; }
    if (rc == 0) {
        flips = s.total[RS_DIFF_NEWLY_DISALLOWED] + s.total[RS_DIFF_NEWLY_ALLOWED] > 0;
        if (d.logs && !o.quiet && write_hits(&job) != 0) rc = 2;
        if (rc == 0 && d.rules) {
            rules = calloc(s.n_pairs + 1, sizeof *rules);
            if (rules == NULL || rules_diff(&job, &s, cli_out(), rules) != 0) rc = 2;
        }
        rs_outbuf e = { 0 };
        summary_text(o.quiet ? cli_out() : &e, &job, &s, &t->counts);
        if (cli_out_flush(0) != 0) rc = 2;  /* records first, then the summary */
        if (e.len) fwrite(e.ptr, 1, e.len, stderr);
        rs_outbuf_free(&e);
        if (rc == 0 && o.stats_path && write_stats(o.stats_path, &job, &s, &t->counts, rules) != 0) rc = 2;
        if (rc == 0 && cli_write_html(&o) != 0) rc = 2;
        summary_free(&s);
    }
    free(rules);
    pipeline_free(&p);
    if (input_failed) rc = 2;
done:
    if (job.sites[1] != job.sites[0]) cli_sites_close(job.sites[1]);
    cli_sites_close(job.sites[0]);
    rs_tally_free(job.hits);
    free(job.meta);
    rs_outbuf_free(&job.meta_text);
    free(rest);
    if (cli_out_finish() != 0) rc = 2;
    if (rc) return 2;
    return d.fail_on_change && flips ? 1 : 0;
}
