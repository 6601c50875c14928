/*
 * cmd_urls.c - `robotscan urls`: a URL list (plain, zstd, gzip or stdin)
 * against many sites' robots.txt -> a verdict stream and statistics.
 *
 * Pipeline: the main thread reads blocks of whole lines (src/input) into a
 * ring of slots; workers turn each block into formatted records, counters
 * and diagnostics of its own; the main thread writes finished slots strictly
 * in input order. With -j 1 the main thread does all of it in turn.
 */
#include "cli/cli.h"
#include "cli/pipeline.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char HELP[] =
    "Usage: robotscan urls --robots PATH [--robots PATH...] --agent TOKEN [OPTIONS] [FILE...]\n"
    "\n"
    "Decides, for every URL of a list (one per line; plain, .zst or .gz, detected from\n"
    "the content; stdin when no FILE or FILE is -), whether crawler TOKEN may fetch it\n"
    "under its site's robots.txt. Blank lines and lines starting with # are skipped.\n"
    "\n"
    "Robots sources (--robots, repeatable, first that knows the origin wins):\n"
    "  FILE            one robots.txt for every URL\n"
    "  DIRECTORY       one file per host: HOST, HOST.txt, HOST:PORT[.txt], HOST/robots.txt\n"
    "  MANIFEST.tsv    lines ORIGIN<TAB>STATUS<TAB>FILE (STATUS: HTTP status or 'error')\n"
    "\n"
    "Options:\n"
    "  --agent TOKEN          the crawler's product token (required)\n"
    "  --format FMT           text, tsv, csv or jsonl (default: text on a terminal, else tsv)\n"
    "  --only WHICH           print only 'allowed' or 'disallowed' records\n"
    "  --quiet                print only the summary\n"
    "  --stats FILE.json      write counts by verdict, reason, origin and rule\n"
    "  --missing WHAT         origins no source knows: allow (default), disallow or skip\n"
    "  --encode-urls          percent-encode non-ASCII path bytes before matching\n"
    "  --semantics S          google (default) or first-match\n"
    "  -j, --jobs N           worker threads (default 1); output order is kept\n"
    "  --verbose              report malformed lines with their line numbers\n"
    "  --html FILE            also write the statistics as an HTML page (see robotscan report)\n"
    "  --progress, --no-progress   progress on stderr (default: when stderr is a terminal)\n"
    "  --fail-on-disallowed   exit 1 when any URL is disallowed\n"
    "\n"
    "Columns: url, origin, agent, verdict, line, rule, reason\n"
    "  reason: matched, no-match, unavailable (3xx/4xx: allow all),\n"
    "          unreachable (5xx/error: disallow all), no-robots (no source knows the origin)\n"
    "Exit status: 0 ok; 1 with --fail-on-disallowed when a URL is disallowed; 2 usage or I/O error.\n";

static const char *const ACCEPTED[] = {
    "--robots", "--agent", "--format", "--only", "--quiet", "--stats", "--missing", "--encode-urls",
    "--semantics", "-j", "--jobs", "--verbose", "--progress", "--no-progress",
    "--fail-on-disallowed", "--help", NULL,
};

static const char *const COLUMNS[] = { "url", "origin", "agent", "verdict", "line", "rule", "reason" };
#define N_COLUMNS 7

/* Counters per origin in the statistics tally. */
enum { OC_ALLOW, OC_DISALLOW, OC_COUNT };

/* ===== Per-block work ===== */

typedef struct {
    const struct cli_opts *opts;
    rs_sites *sites;
    const char *agent;
    size_t agent_len;
    const char *input_name;
    int missing;              /* 0 allow, 1 disallow, 2 skip */
    int only;                 /* -1 all, 0 allowed, 1 disallowed */
    int want_tallies;
    rs_str reasons[RS_REASON_COUNT]; /* rs_reason_str() of each reason, with its length */
} urls_job;

/*
 * Origins by raw key ("scheme://authority/" as written), direct-mapped: URL
 * lists interleave sites, and a key seen before skips origin parsing and the
 * site lookup. Keys or origins longer than the slots are not cached.
 */
#define OCACHE_SIZE 1024           /* entries, a power of two */
#define OCACHE_KEY  64             /* longest raw key cached */
#define OCACHE_ORIGIN 80           /* longest canonical origin cached */

typedef struct {
    uint32_t key_len;              /* 0 = empty slot */
    uint32_t origin_len;
    uint32_t origin_tally;
    rs_site_result site;
    char key[OCACHE_KEY];
    char origin[OCACHE_ORIGIN];
} origin_entry;

/* What a worker keeps between blocks: caches and scratch, never shared. */
typedef struct {
    origin_entry cache[OCACHE_SIZE];
    char origin_buf[RS_ORIGIN_MAX];
    char last_key[RS_ORIGIN_MAX];  /* raw "scheme://authority/" bytes of the last URL */
    size_t last_key_len;           /* 0 = none */
    char last_origin[RS_ORIGIN_MAX];
    size_t last_origin_len;   /* 0 = no cached origin */
    rs_site_result last_site;
    uint32_t last_origin_tally;
    char *scratch;            /* path copies */
    size_t scratch_cap;
    rs_outbuf rule_text;
    const rs_matcher *rule_matcher; /* rule_text holds rule rule_index of this matcher */
    int32_t rule_index;
} worker_state;

static int scratch_grow(worker_state *w, size_t need)
{
    if (w->scratch_cap >= need) return 0;
    size_t cap = w->scratch_cap ? w->scratch_cap : 4096;
    while (cap < need) cap *= 2;
    char *p = realloc(w->scratch, cap);
    if (p == NULL) return -1;
    w->scratch = p;
    w->scratch_cap = cap;
    return 0;
}

static void worker_state_free(void *p)
{
    worker_state *w = p;
    if (w == NULL) return;
    free(w->scratch);
    rs_outbuf_free(&w->rule_text);
    free(w);
}

static void *worker_state_new(void)
{
    return calloc(1, sizeof(worker_state));
}

static inline int is_skippable(const char *p, size_t n)
{
    if (__builtin_expect(n > 0 && p[0] != ' ' && p[0] != '\t' && p[0] != '\r' && p[0] != '#', 1)) return 0;
    size_t i = 0;
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r')) i++;
    return i == n || p[i] == '#';
}

static rs_status decide(const urls_job *job, worker_state *w, pipeline_result *res,
                        const char *url, size_t len, const rs_url_parts *parts);

/* Formats "allow: /x" / "disallow: /x" for rule @rule of @m into w->rule_text (kept for the next URL). */
static rs_str rule_string(worker_state *w, const rs_matcher *m, int32_t rule)
{
    rs_str s = { "", 0 };
    if (m == NULL || rule < 0) return s;
    if (m == w->rule_matcher && rule == w->rule_index) {
        s.ptr = w->rule_text.ptr;
        s.len = w->rule_text.len;
        return s;
    }
    rs_rule_info info;
    w->rule_matcher = NULL;
    if (rs_matcher_rule(m, rule, &info) != RS_OK) return s;
    w->rule_text.len = 0;
    const char *kind = info.type == RS_RULE_ALLOW ? "allow: " : "disallow: ";
    if (rs_outbuf_append(&w->rule_text, kind, strlen(kind)) != RS_OK
        || rs_outbuf_append(&w->rule_text, info.pattern.ptr, info.pattern.len) != RS_OK)
        return s;
    w->rule_matcher = m;
    w->rule_index = rule;
    s.ptr = w->rule_text.ptr;
    s.len = w->rule_text.len;
    return s;
}

/* a[0, n) == b[0, n) for raw keys (usually 15-40 bytes): 8-byte words, the last one overlapping. */
static inline int same_key(const char *a, const char *b, size_t n)
{
    if (n < 8) return memcmp(a, b, n) == 0;
    uint64_t x, y, diff = 0;
    for (size_t i = 0; i + 8 < n; i += 8) {
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        diff |= x ^ y;
    }
    memcpy(&x, a + n - 8, 8);
    memcpy(&y, b + n - 8, 8);
    return (diff | (x ^ y)) == 0;
}

/* Slot of a raw key in the origin cache: a multiplicative hash of its 8-byte words. */
static size_t key_slot(const char *k, size_t n)
{
    uint64_t h = n;
    if (n >= 8) {
        size_t i = 0;
        for (; i + 8 < n; i += 8) {
            uint64_t x;
            memcpy(&x, k + i, 8);
            h = (h ^ x) * 0x9E3779B97F4A7C15ull;
        }
        uint64_t x;
        memcpy(&x, k + n - 8, 8);                  /* the last 8 bytes (may overlap) */
        h = (h ^ x) * 0x9E3779B97F4A7C15ull;
    } else {
        for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)k[i]) * 0x9E3779B97F4A7C15ull;
    }
    return (size_t)(h >> 40) & (OCACHE_SIZE - 1);
}

/* Makes @e's origin the current one (w->last_*), for the URL whose raw key is url[0, key). */
static void use_cached(worker_state *w, const origin_entry *e, const char *url, size_t key)
{
    memcpy(w->last_origin, e->origin, e->origin_len);
    w->last_origin_len = e->origin_len;
    w->last_site = e->site;
    w->last_origin_tally = e->origin_tally;
    memcpy(w->last_key, url, key);
    w->last_key_len = key;
}

static rs_status one_url(const urls_job *job, worker_state *w, pipeline_result *res,
                         const char *url, size_t len, uint64_t line_no)
{
    /* URLs agreeing up to the end of the authority have one origin: a run of
     * URLs of one site is parsed and looked up once. */
    const rs_url_parts parts = rs_url_split(url, len);
    const size_t key = parts.authority_end < len ? parts.authority_end + 1 : len;
    if (key == w->last_key_len && same_key(url, w->last_key, key))
        return decide(job, w, res, url, len, &parts);
    /* rs_origin_parse skips leading whitespace and a BOM, so for such a line the
     * origin may depend on bytes past the key ("  //a.com/" vs "  //b.com/"):
     * those lines are neither cached nor looked up. */
    const unsigned char c0 = len ? (unsigned char)url[0] : 0;
    const int keyed = c0 > 0x20 && c0 != 0xEF;
    origin_entry *e = NULL;
    if (keyed && key <= OCACHE_KEY) {
        e = &w->cache[key_slot(url, key)];
        if (e->key_len == key && same_key(e->key, url, key)) {
            use_cached(w, e, url, key);
            return decide(job, w, res, url, len, &parts);
        }
    }
    rs_origin origin;
    CLI_TRY(rs_origin_parse(url, len, w->origin_buf, sizeof w->origin_buf, &origin));
    if (origin.error != RS_ORIGIN_OK) {
        res->counts.malformed++;
        if (job->opts->verbose)
            pipeline_diag(res, "%s:%llu: malformed URL (%s), skipped", job->input_name,
                          (unsigned long long)line_no, rs_origin_error_str(origin.error));
        return RS_OK;
    }
    /* URL lists are usually grouped by host: reuse the last lookup. */
    if (origin.origin.len != w->last_origin_len
        || memcmp(origin.origin.ptr, w->last_origin, origin.origin.len) != 0) {
        rs_site_result site;
        const rs_status st = rs_site_lookup(job->sites, &origin, job->agent, job->agent_len, &site);
        if (st != RS_OK) {
            pipeline_fail(res, st, "%s", rs_sites_errmsg(job->sites));
            return st;
        }
        memcpy(w->last_origin, origin.origin.ptr, origin.origin.len);
        w->last_origin_len = origin.origin.len;
        w->last_site = site;
        if (job->want_tallies)
            CLI_TRY(rs_tally_find(res->origins, origin.origin.ptr, origin.origin.len,
                                     &w->last_origin_tally));
    }
    w->last_key_len = key <= sizeof w->last_key && keyed ? key : 0;
    memcpy(w->last_key, url, w->last_key_len);
    if (e && w->last_origin_len <= OCACHE_ORIGIN) {
        e->key_len = (uint32_t)key;
        memcpy(e->key, url, key);
        e->origin_len = (uint32_t)w->last_origin_len;
        memcpy(e->origin, w->last_origin, w->last_origin_len);
        e->site = w->last_site;
        e->origin_tally = w->last_origin_tally;
    }
    return decide(job, w, res, url, len, &parts);
}

/* The verdict for a URL whose site is w->last_site, counted and formatted. */
static rs_status decide(const urls_job *job, worker_state *w, pipeline_result *res,
                        const char *url, size_t len, const rs_url_parts *parts)
{
    const rs_site_result *site = &w->last_site;

    rs_verdict v = { 0, 0, -1 };
    if (site->matcher == NULL) { /* no-robots */
        if (job->missing == 2) {
            res->counts.skipped++;
            return RS_OK;
        }
        v.disallowed = job->missing == 1;
    } else {
        if (scratch_grow(w, 4 * len + 8) != 0) return RS_ERR_NOMEM;
        rs_str path = rs_url_path_of(url, len, parts, w->scratch, w->scratch_cap);
        if (job->opts->encode_urls) {
            char *enc = w->scratch + len + 2;
            path.len = rs_url_encode_path(path.ptr, path.len, enc, 3 * len + 3);
            path.ptr = enc;
        }
        rs_matcher_match(site->matcher, path.ptr, path.len, &v);
    }
    const rs_reason reason = rs_site_reason(site, site->matcher ? &v : NULL);
    res->counts.urls++;
    res->counts.verdict[v.disallowed]++;
    res->counts.reason[reason]++;

    if (job->want_tallies) {
        rs_tally_counters(res->origins, w->last_origin_tally)[v.disallowed ? OC_DISALLOW : OC_ALLOW]++;
        if (v.rule >= 0) {
            /* key: origin, TAB, rule text */
            const rs_str rule = rule_string(w, site->matcher, v.rule);
            char key[RS_ORIGIN_MAX + 64];
            const int n = snprintf(key, sizeof key, "%.*s\t%u\t", (int)w->last_origin_len,
                                   w->last_origin, v.line);
            uint32_t ix;
            rs_outbuf *k = &res->scratch_key;
            k->len = 0;
            CLI_TRY(rs_outbuf_append(k, key, (size_t)n));
            CLI_TRY(rs_outbuf_append(k, rule.ptr, rule.len));
            CLI_TRY(rs_tally_find(res->rules, k->ptr, k->len, &ix));
            rs_tally_counters(res->rules, ix)[0]++;
        }
    }

    if (job->opts->quiet || (job->only >= 0 && job->only != v.disallowed)) return RS_OK;
    const rs_str rule = rule_string(w, site->matcher, v.rule);
    const rs_str reason_s = job->reasons[reason];
    if (job->opts->format == RS_FORMAT_TEXT) {
        char tail[64];
        CLI_TRY(rs_outbuf_append(&res->out, v.disallowed ? "DISALLOWED  " : "allowed     ", 12));
        CLI_TRY(rs_outbuf_append(&res->out, url, len));
        if (v.line) {
            snprintf(tail, sizeof tail, "  (line %u: ", v.line);
            CLI_TRY(rs_outbuf_append(&res->out, tail, strlen(tail)));
            CLI_TRY(rs_outbuf_append(&res->out, rule.ptr, rule.len));
            CLI_TRY(rs_outbuf_append(&res->out, ")", 1));
        }
        snprintf(tail, sizeof tail, "  [%s]\n", reason_s.ptr);
        return rs_outbuf_append(&res->out, tail, strlen(tail));
    }
    const rs_field fields[N_COLUMNS] = {
        { { url, len }, 0, 0 },
        { { w->last_origin, w->last_origin_len }, 0, 0 },
        { { job->agent, job->agent_len }, 0, 0 },
        { { v.disallowed ? "disallow" : "allow", v.disallowed ? 8u : 5u }, 0, 0 },
        { { NULL, 0 }, v.line, 1 },
        { rule, 0, 0 },
        { reason_s, 0, 0 },
    };
    return rs_format_record(&res->out, job->opts->format, COLUMNS, fields, N_COLUMNS);
}

static rs_status process_block(void *ctx, void *state, const rs_block *block, pipeline_result *res)
{
    const urls_job *job = ctx;
    worker_state *w = state;
    rs_lines it;
    rs_line ln;
    rs_lines_init(&it, block);
    while (rs_line_next(&it, &ln)) {
        res->counts.lines++;
        if (ln.oversized) {
            res->counts.malformed++;
            if (job->opts->verbose)
                pipeline_diag(res, "%s:%llu: line of %llu bytes is too long for a URL, skipped",
                              job->input_name, (unsigned long long)ln.number,
                              (unsigned long long)ln.oversized);
            continue;
        }
        if (is_skippable(ln.text.ptr, ln.text.len)) {
            res->counts.blank++;
            continue;
        }
        CLI_TRY(one_url(job, w, res, ln.text.ptr, ln.text.len, ln.number));
    }
    return RS_OK;
}

/* ===== Summary and statistics ===== */

static void summary_text(rs_outbuf *o, const pipeline_counts *c, double seconds)
{
    char line[512];
    snprintf(line, sizeof line,
             "lines %llu, URLs %llu: allowed %llu, disallowed %llu; malformed %llu, skipped %llu\n"
             "reasons: matched %llu, no-match %llu, unavailable %llu, unreachable %llu, no-robots %llu\n"
             "time %.3f s, %.0f URLs/s\n",
             (unsigned long long)c->lines, (unsigned long long)c->urls,
             (unsigned long long)c->verdict[0], (unsigned long long)c->verdict[1],
             (unsigned long long)c->malformed, (unsigned long long)c->skipped,
             (unsigned long long)c->reason[RS_REASON_MATCHED], (unsigned long long)c->reason[RS_REASON_NO_MATCH],
             (unsigned long long)c->reason[RS_REASON_UNAVAILABLE], (unsigned long long)c->reason[RS_REASON_UNREACHABLE],
             (unsigned long long)c->reason[RS_REASON_NO_ROBOTS], seconds,
             seconds > 0 ? (double)c->urls / seconds : 0.0);
    rs_outbuf_append(o, line, strlen(line));
}

/* Stats entries in a fixed order (most counted first, then by key bytes), so that the
 * JSON does not depend on the number of threads or on which worker saw which block. */
typedef struct {
    rs_str key;
    uint64_t total;
    uint32_t index;
} stat_entry;

static int stat_entry_cmp(const void *pa, const void *pb)
{
    const stat_entry *a = pa, *b = pb;
    if (a->total != b->total) return a->total > b->total ? -1 : 1;
    const int c = memcmp(a->key.ptr, b->key.ptr, a->key.len < b->key.len ? a->key.len : b->key.len);
    if (c != 0) return c;
    return a->key.len < b->key.len ? -1 : a->key.len > b->key.len;
}

/* @return the entries of @t sorted, or NULL when out of memory (freed by the caller). */
static stat_entry *stat_sorted(const rs_tally *t, unsigned counters)
{
    const uint32_t n = rs_tally_size(t);
    stat_entry *e = malloc((n ? n : 1) * sizeof *e);
    if (e == NULL) return NULL;
    for (uint32_t i = 0; i < n; i++) {
        const uint64_t *v = rs_tally_counters_const(t, i);
        e[i].key = rs_tally_key(t, i);
        e[i].total = 0;
        for (unsigned c = 0; c < counters; c++) e[i].total += v[c];
        e[i].index = i;
    }
    qsort(e, n, sizeof *e, stat_entry_cmp);
    return e;
}

static int write_stats(const char *path, const struct cli_opts *o, const pipeline_totals *t, double seconds)
{
    rs_outbuf b = { 0 };
    char tmp[256];
    const pipeline_counts *c = &t->counts;
#define PUT(s) rs_outbuf_append(&b, (s), strlen(s))
    PUT("{\"command\":\"urls\",\"agent\":");
    rs_outbuf_json_string(&b, o->agents[0], strlen(o->agents[0]));
    PUT(",\"inputs\":[");
    for (int i = 0; i < o->n_args; i++) {
        if (i) PUT(",");
        rs_outbuf_json_string(&b, o->args[i], strlen(o->args[i]));
    }
    snprintf(tmp, sizeof tmp,
             "],\"lines\":%llu,\"urls\":%llu,\"blank\":%llu,\"malformed\":%llu,\"skipped\":%llu,"
             "\"verdicts\":{\"allow\":%llu,\"disallow\":%llu},\"reasons\":{",
             (unsigned long long)c->lines, (unsigned long long)c->urls, (unsigned long long)c->blank,
             (unsigned long long)c->malformed, (unsigned long long)c->skipped,
             (unsigned long long)c->verdict[0], (unsigned long long)c->verdict[1]);
    PUT(tmp);
    for (int r = 0; r < RS_REASON_COUNT; r++) {
        snprintf(tmp, sizeof tmp, "%s\"%s\":%llu", r ? "," : "", rs_reason_str((rs_reason)r),
                 (unsigned long long)c->reason[r]);
        PUT(tmp);
    }
    stat_entry *origins = stat_sorted(t->origins, OC_COUNT);
    stat_entry *rules = stat_sorted(t->rules, 1);
    if (origins == NULL || rules == NULL) {
        free(origins);
        free(rules);
        rs_outbuf_free(&b);
        cli_error("out of memory");
        return -1;
    }
    PUT("},\"origins\":[");
    for (uint32_t i = 0; i < rs_tally_size(t->origins); i++) {
        const rs_str k = origins[i].key;
        const uint64_t *v = rs_tally_counters_const(t->origins, origins[i].index);
        PUT(i ? ",{\"origin\":" : "{\"origin\":");
        rs_outbuf_json_string(&b, k.ptr, k.len);
        snprintf(tmp, sizeof tmp, ",\"allow\":%llu,\"disallow\":%llu}", (unsigned long long)v[OC_ALLOW],
                 (unsigned long long)v[OC_DISALLOW]);
        PUT(tmp);
    }
    PUT("],\"rules\":[");
    for (uint32_t i = 0; i < rs_tally_size(t->rules); i++) {
        const rs_str k = rules[i].key;
        const char *tab1 = memchr(k.ptr, '\t', k.len);
        const char *tab2 = tab1 ? memchr(tab1 + 1, '\t', k.len - (size_t)(tab1 + 1 - k.ptr)) : NULL;
        if (tab2 == NULL) continue;
        PUT(i ? ",{\"origin\":" : "{\"origin\":");
        rs_outbuf_json_string(&b, k.ptr, (size_t)(tab1 - k.ptr));
        snprintf(tmp, sizeof tmp, ",\"line\":%.*s,\"rule\":", (int)(tab2 - tab1 - 1), tab1 + 1);
        PUT(tmp);
        rs_outbuf_json_string(&b, tab2 + 1, k.len - (size_t)(tab2 + 1 - k.ptr));
        snprintf(tmp, sizeof tmp, ",\"count\":%llu}", (unsigned long long)rules[i].total);
        PUT(tmp);
    }
    free(origins);
    free(rules);
    snprintf(tmp, sizeof tmp, "],\"bytes_in\":%llu,\"bytes_out\":%llu,\"seconds\":%.6f,\"urls_per_second\":%.0f}\n",
             (unsigned long long)t->bytes_in, (unsigned long long)t->bytes_out, seconds,
             seconds > 0 ? (double)c->urls / seconds : 0.0);
    PUT(tmp);
#undef PUT
    const int rc = cli_write_file(path, b.ptr, b.len, "statistics");
    rs_outbuf_free(&b);
    return rc;
}

/* ===== Command ===== */

int cmd_urls(int argc, char **argv)
{
    struct cli_opts o;
    int rc = cli_parse("urls", ACCEPTED, argc, argv, &o);
    if (rc) return rc;
    if (o.help) {
        fputs(HELP, stdout);
        return 0;
    }
    if (o.n_robots < 1) return cli_usage_error("urls", "needs at least one --robots PATH");
    if (o.n_agents != 1) return cli_usage_error("urls", "needs exactly one --agent TOKEN");
    urls_job job;
    memset(&job, 0, sizeof job);
    job.only = -1;
    if (o.only) {
        if (!strcmp(o.only, "allowed")) job.only = 0;
        else if (!strcmp(o.only, "disallowed")) job.only = 1;
        else return cli_usage_error("urls", "--only takes allowed or disallowed, not '%s'", o.only);
    }
    job.missing = !strcmp(o.missing, "allow") ? 0 : !strcmp(o.missing, "disallow") ? 1 : 2;
    cli_check_agent(o.agents[0]);

    rs_sites *sites = NULL;
    if (cli_sites_open(&o, &sites) != 0) return 2;
    job.opts = &o;
    job.sites = sites;
    job.agent = o.agents[0];
    job.agent_len = strlen(o.agents[0]);
    job.want_tallies = o.stats_path != NULL;
    for (int r = 0; r < RS_REASON_COUNT; r++) {
        job.reasons[r].ptr = rs_reason_str((rs_reason)r);
        job.reasons[r].len = strlen(job.reasons[r].ptr);
    }

    pipeline p;
    pipeline_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cli_pipeline_defaults(&o, &cfg);
    cfg.process = process_block;
    cfg.ctx = &job;
    cfg.state_new = worker_state_new;
    cfg.state_free = worker_state_free;
    cfg.tally_counters_origin = OC_COUNT;
    cfg.columns = COLUMNS;
    cfg.n_columns = N_COLUMNS;

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rc = pipeline_init(&p, &cfg);
    if (rc == 0) rc = cli_run_inputs(&p, &o, &job.input_name);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const double seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    const pipeline_totals *t = pipeline_totals_get(&p);
    if (o.quiet && rc == 0) {
        summary_text(cli_out(), &t->counts, seconds);
        if (cli_out_flush(0) != 0) rc = 2;
    } else if (o.verbose) {
        if (cli_out_flush(0) != 0) rc = 2; /* records first, then the summary */
        rs_outbuf e = { 0 };
        summary_text(&e, &t->counts, seconds);
        fwrite(e.ptr, 1, e.len, stderr);
        rs_outbuf_free(&e);
    }
    if (rc == 0 && o.stats_path && write_stats(o.stats_path, &o, t, seconds) != 0) rc = 2;
    if (rc == 0 && cli_write_html(&o) != 0) rc = 2;
    const int disallowed = t->counts.verdict[1] > 0;
    pipeline_free(&p);
    rs_sites_free(sites);
    if (cli_out_finish() != 0) rc = 2;
    if (rc) return 2;
    return o.fail_on && disallowed ? 1 : 0;
}
