/*
 * cmd_survey.c - `robotscan survey`: for every origin of the robots sources
 * and every agent, the class of what the agent may fetch (SPEC 10), with a
 * per-agent summary (text) and mergeable counts (--stats).
 *
 * Streams: rs_sites_each_digest hands out one document at a time; its
 * ruleset is parsed, classified for every agent (rs_survey_classify) and
 * freed, so memory is the sources' indexes plus one body, whatever the number
 * of sites. A body is reduced to a digest (the answers for every agent, a few
 * bytes): a WARC capture is digested while the library indexes the file, and
 * the library keeps the digest instead of decoding the capture again.
 */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

static const char HELP[] =
    "Usage: robotscan survey --robots SOURCE [--robots SOURCE...] [OPTIONS]\n"
    "\n"
    "For every origin of the robots sources (files, directories, *.tsv manifests,\n"
    "WARC files) and every agent: may the agent crawl the site?\n"
    "\n"
    "Options:\n"
    "  --agent TOKEN      an agent (repeatable); default: the built-in list of AI\n"
    "                     crawlers (data/ai-agents.txt) plus Googlebot, bingbot,\n"
    "                     Applebot, DuckDuckBot, YandexBot, Baiduspider\n"
    "  --agents FILE      agents, one per line ('#' comments)\n"
    "  --format FMT       tsv, csv, jsonl (records) or text (the summary per agent);\n"
    "                     default text on a terminal, else tsv\n"
    "  --stats FILE.json  counts per agent and class (mergeable: sums only)\n"
    "  --html FILE        the counts as a self-contained HTML page (robotscan report)\n"
    "  --keep-going       count and skip corrupt WARC records instead of failing\n"
    "  --help             this text\n"
    "\n"
    "Columns: origin, agent, class, group, crawl_delay, sitemaps\n"
    "  class  blocked      a disallow rule matches every path and no allow rule that can\n"
    "                      match some path has a pattern at least as long\n"
    "         open         no disallow rule can match any path\n"
    "         partial      the rest\n"
    "         unavailable  robots.txt fetch gave 3xx (unresolved) or 4xx\n"
    "         unreachable  5xx or a failed fetch\n"
    "  group  named (a group names the agent), star (the '*' groups), none\n"
    "  crawl_delay  the group's first numeric Crawl-delay, or empty\n"
    "  sitemaps     the number of Sitemap: lines of the file\n"
    "Directory entries serve http and https: their origin column is the host.\n"
    "Exit status: 0 ok, 2 usage or I/O error, or a damaged source (after the\n"
    "records before the damage were written).\n";

static const char *const ACCEPTED[] = {
    "--robots", "--agent", "--agents", "--format", "--stats", "--keep-going", "--help", NULL,
};

static const char *const COLS[] = { "origin", "agent", "class", "group", "crawl_delay", "sitemaps" };

/* Per agent: classes, groups, crawl-delay present. */
enum { C_CLASSES = RS_SURVEY_CLASS_COUNT, C_GROUPS = C_CLASSES + RS_SURVEY_GROUP_COUNT, C_DELAY = C_GROUPS,
       C_COUNT = C_DELAY + 1 };

typedef struct {
    rs_str *agents;
    size_t n;
    uint64_t (*counts)[C_COUNT];
    uint64_t every[C_COUNT];  /* text: counts every agent shares, added to counts by fold() */
    rs_survey_result *res;
    rs_survey_result star;    /* a digest's answer for the agents no group names */
    size_t *named;            /* ... and the agents a group names (their answers in res) */
    size_t n_named;
    rs_outbuf scratch;      /* a digest of a body handed out whole */
    rs_format format;
    int failed;
    uint64_t origins, rules, unavailable, unreachable, html, sitemaps_total;
} survey_ctx;

static rs_str cstr(const char *s)
{
    rs_str r = { s, strlen(s) };
    return r;
}

/* Adds (or, @sign -1, takes away: unsigned wrap-around, fold() makes it whole) an answer to a row of counts. */
static void tally(uint64_t *row, const rs_survey_result *r, uint64_t sign)
{
    row[r->cls] += sign;
    if (r->cls != RS_CLASS_UNAVAILABLE && r->cls != RS_CLASS_UNREACHABLE) {
        row[C_CLASSES + r->group] += sign;
        if (r->crawl_delay.len) row[C_DELAY] += sign;
    }
}

/* The summary without records: a document's shared answer is counted once in c->every
 * (for every agent), a named agent's own answer in its row, less the shared one. */
static void tally_shared(survey_ctx *c, const rs_survey_result *every)
{
    tally(c->every, every, 1);
    for (size_t k = 0; k < c->n_named; k++) {
        const size_t a = c->named[k];
        tally(c->counts[a], &c->res[a], 1);
        tally(c->counts[a], every, (uint64_t)-1);
    }
}

/* After the last document: the shared counts into every agent's row. */
static void fold(survey_ctx *c)
{
    for (size_t a = 0; a < c->n; a++)
        for (size_t k = 0; k < C_COUNT; k++) c->counts[a][k] += c->every[k];
    memset(c->every, 0, sizeof c->every);
}

static int emit(survey_ctx *c, rs_str origin, size_t a, const rs_survey_result *r, uint64_t sitemaps)
{
    tally(c->counts[a], r, 1);

    const rs_field f[6] = {
        { origin, 0, 0 },
        { c->agents[a], 0, 0 },
        { cstr(rs_survey_class_str(r->cls)), 0, 0 },
        { cstr(rs_survey_group_str(r->group)), 0, 0 },
        { r->crawl_delay, 0, 0 },
        { { NULL, 0 }, sitemaps, 1 },
    };
    if (rs_format_record(cli_out(), c->format, COLS, f, 6) != RS_OK) {
        cli_error("out of memory");
        return -1;
    }
    return cli_out_flush(1 << 16);
}

/* ===== Digests: a body's answers for every agent =====
 * status byte (the parse's; nothing follows unless RS_OK), sitemaps (varint),
 * the answer of agents no group names (class | group << 4, crawl-delay),
 * then the named agents: count, and each: index, class, crawl-delay. A
 * crawl-delay is a varint length and its bytes. */

static rs_status put_varint(rs_outbuf *o, uint64_t v)
{
    unsigned char b[10];
    size_t n = 0;
    do {
        b[n++] = (unsigned char)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return rs_outbuf_append(o, b, n);
}

static rs_status put_answer(rs_outbuf *o, const rs_survey_result *r, int with_group)
{
    const unsigned char k = (unsigned char)(r->cls | (with_group ? (unsigned)r->group << 4 : 0));
    rs_status st = rs_outbuf_append(o, &k, 1);
    if (st == RS_OK) st = put_varint(o, r->crawl_delay.len);
    if (st == RS_OK) st = rs_outbuf_append(o, r->crawl_delay.ptr, r->crawl_delay.len);
    return st;
}

static rs_status digest_body(void *vctx, const char *body, size_t len, rs_outbuf *o)
{
    survey_ctx *c = vctx;
    rs_ruleset *rs = NULL;
    rs_status st = rs_ruleset_parse(body, len, &rs);
    if (st == RS_OK) st = rs_survey_classify(rs, c->agents, c->n, c->res);
    const unsigned char status = (unsigned char)st;
    rs_status w = rs_outbuf_append(o, &status, 1);
    if (st == RS_OK && w == RS_OK) w = put_varint(o, rs_ruleset_sitemap_count(rs));
    size_t named = 0, star = c->n;
    for (size_t a = 0; a < c->n && st == RS_OK; a++) {
        if (c->res[a].group == RS_GROUP_NAMED) named++;
        else if (star == c->n) star = a;
    }
    static const rs_survey_result nobody = { RS_CLASS_OPEN, RS_GROUP_NONE, { "", 0 } };
    if (st == RS_OK && w == RS_OK) w = put_answer(o, star < c->n ? &c->res[star] : &nobody, 1);
    if (st == RS_OK && w == RS_OK) w = put_varint(o, named);
    for (size_t a = 0; a < c->n && st == RS_OK && w == RS_OK; a++) {
        if (c->res[a].group != RS_GROUP_NAMED) continue;
        w = put_varint(o, a);
        if (w == RS_OK) w = put_answer(o, &c->res[a], 0);
    }
    rs_ruleset_free(rs);
    return w;
}

typedef struct { const unsigned char *p, *end; int bad; } reader;

static uint64_t get_varint(reader *r)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (r->p == r->end) break;
        const unsigned char b = *r->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) return v;
    }
    r->bad = 1;
    return 0;
}

static void get_answer(reader *r, rs_survey_result *out, rs_survey_group group)
{
    if (r->p == r->end) { r->bad = 1; return; }
    const unsigned k = *r->p++;
    out->cls = (rs_survey_class)(k & 0xf);
    out->group = group == RS_GROUP_NAMED ? group : (rs_survey_group)(k >> 4);
    uint64_t n = get_varint(r);
    if (n > (uint64_t)(r->end - r->p)) { r->bad = 1; n = 0; }
    out->crawl_delay.ptr = (const char *)r->p;
    out->crawl_delay.len = (size_t)n;
    r->p += n;
}

/* Reads a digest into c->star, c->named and their c->res (crawl-delays point into the
 * digest). @return the parse's status. */
static rs_status undigest(survey_ctx *c, const void *digest, size_t len, uint64_t *sitemaps)
{
    reader r = { digest, (const unsigned char *)digest + len, 0 };
    c->n_named = 0;
    if (len == 0) return RS_ERR_CORRUPT;
    const rs_status st = (rs_status)*r.p++;
    if (st != RS_OK) return st;
    *sitemaps = get_varint(&r);
    get_answer(&r, &c->star, RS_GROUP_STAR);
    for (uint64_t k = get_varint(&r); k > 0 && !r.bad; k--) {
        const uint64_t a = get_varint(&r);
        if (a >= c->n || (c->n_named && a <= c->named[c->n_named - 1])) { r.bad = 1; break; }
        get_answer(&r, &c->res[a], RS_GROUP_NAMED);
        c->named[c->n_named++] = (size_t)a;
    }
    return r.bad ? RS_ERR_CORRUPT : RS_OK;
}

static int on_doc(void *vctx, const rs_site_doc *d, const void *digest, size_t digest_len)
{
    survey_ctx *c = vctx;
    c->origins++;
    if (d->outcome != RS_REASON_NO_MATCH) {
        rs_survey_result r;
        memset(&r, 0, sizeof r);
        r.cls = d->outcome == RS_REASON_UNAVAILABLE ? RS_CLASS_UNAVAILABLE : RS_CLASS_UNREACHABLE;
        r.group = RS_GROUP_NONE;
        r.crawl_delay = cstr("");
        if (d->outcome == RS_REASON_UNAVAILABLE) c->unavailable++;
        else c->unreachable++;
        if (c->format == RS_FORMAT_TEXT) {
            c->n_named = 0;
            tally_shared(c, &r);
            return 0;
        }
        for (size_t a = 0; a < c->n; a++)
            if (emit(c, d->origin, a, &r, 0) != 0) { c->failed = 1; return 1; }
        return 0;
    }
    c->rules++;
    if (d->html) c->html++;
    if (digest == NULL) {   /* a body, not digested while indexing: the same path */
        c->scratch.len = 0;
        if (digest_body(c, d->body, d->body_len, &c->scratch) != RS_OK) {
            cli_error("out of memory");
            c->failed = 1;
            return 1;
        }
        digest = c->scratch.ptr;
        digest_len = c->scratch.len;
    }
    uint64_t sm = 0;
    const rs_status st = undigest(c, digest, digest_len, &sm);
    if (st != RS_OK) {
        cli_error("cannot parse robots file %s: %s", d->where, rs_status_str(st));
        c->failed = 1;
        return 1;
    }
    c->sitemaps_total += sm;
    if (c->format == RS_FORMAT_TEXT) {
        tally_shared(c, &c->star);
        return 0;
    }
    /* Records: the named agents (c->named ascends) answer for themselves, the rest c->star. */
    size_t k = 0;
    for (size_t a = 0; a < c->n && !c->failed; a++) {
        const int own = k < c->n_named && c->named[k] == a;
        k += (size_t)own;
        if (emit(c, d->origin, a, own ? &c->res[a] : &c->star, sm) != 0) c->failed = 1;
    }
    return c->failed;
}

/* By the library's mergeable-statistics writer (rs_stats_*): counts only. */
static int write_stats(const char *path, const survey_ctx *c, const rs_sites_warc_stats *ws)
{
    rs_outbuf b = {0};
    rs_stats_writer w;
    rs_stats_begin(&w, &b, "survey", 1);
    rs_stats_count(&w, "origins", c->origins);
    rs_stats_count(&w, "rules", c->rules);
    rs_stats_count(&w, "unavailable", c->unavailable);
    rs_stats_count(&w, "unreachable", c->unreachable);
    rs_stats_count(&w, "html_bodies", c->html);
    rs_stats_count(&w, "sitemap_lines", c->sitemaps_total);
    rs_stats_object(&w, "warc");
    rs_stats_count(&w, "files", ws->warc_files);
    rs_stats_count(&w, "records", ws->records);
    rs_stats_count(&w, "robots_captures", ws->robots_captures);
    rs_stats_count(&w, "superseded", ws->superseded);
    rs_stats_count(&w, "redirects_followed", ws->redirects_followed);
    rs_stats_count(&w, "redirects_unresolved", ws->redirects_unresolved);
    rs_stats_count(&w, "corrupt_skipped", ws->corrupt_skipped);
    rs_stats_end(&w);
    rs_stats_object(&w, "agents"); /* agent -> its counts: merged key by key */
    for (size_t a = 0; a < c->n; a++) {
        rs_stats_object_n(&w, c->agents[a].ptr, c->agents[a].len);
        for (int k = 0; k < RS_SURVEY_CLASS_COUNT; k++)
            rs_stats_count(&w, rs_survey_class_str((rs_survey_class)k), c->counts[a][k]);
        for (int g = 0; g < RS_SURVEY_GROUP_COUNT; g++)
            rs_stats_count(&w, rs_survey_group_str((rs_survey_group)g), c->counts[a][C_CLASSES + g]);
        rs_stats_count(&w, "crawl_delay", c->counts[a][C_DELAY]);
        rs_stats_end(&w);
    }
    rs_stats_end(&w);
    const rs_status st = rs_stats_finish(&w);
    int rc = st == RS_OK ? cli_write_file(path, b.ptr, b.len, "statistics") : -1;
    if (st != RS_OK) cli_error("statistics: %s", rs_status_str(st));
    rs_outbuf_free(&b);
    return rc;
}

static int print_summary(const survey_ctx *c)
{
    rs_outbuf *out = cli_out();
    char line[512];
    snprintf(line, sizeof line, "%llu origins: %llu with rules (%llu HTML pages), %llu unavailable, %llu unreachable\n",
             (unsigned long long)c->origins, (unsigned long long)c->rules, (unsigned long long)c->html,
             (unsigned long long)c->unavailable, (unsigned long long)c->unreachable);
    rs_outbuf_append(out, line, strlen(line));
    snprintf(line, sizeof line, "%-32s %15s %15s %15s %9s %9s %7s %7s %7s\n", "agent", "blocked", "partial", "open",
             "unavail.", "unreach.", "named", "star", "none");
    rs_outbuf_append(out, line, strlen(line));
    const double total = c->origins ? (double)c->origins : 1.0;
    for (size_t a = 0; a < c->n; a++) {
        const uint64_t *k = c->counts[a];
        char cell[3][40];
        for (int i = 0; i < 3; i++)
            snprintf(cell[i], sizeof cell[i], "%llu (%5.1f%%)", (unsigned long long)k[i], 100.0 * (double)k[i] / total);
        snprintf(line, sizeof line, "%-32.*s %15s %15s %15s %9llu %9llu %7llu %7llu %7llu\n",
                 (int)(c->agents[a].len < 32 ? c->agents[a].len : 32), c->agents[a].ptr, cell[0], cell[1], cell[2],
                 (unsigned long long)k[RS_CLASS_UNAVAILABLE], (unsigned long long)k[RS_CLASS_UNREACHABLE],
                 (unsigned long long)k[C_CLASSES + RS_GROUP_NAMED], (unsigned long long)k[C_CLASSES + RS_GROUP_STAR],
                 (unsigned long long)k[C_CLASSES + RS_GROUP_NONE]);
        if (rs_outbuf_append(out, line, strlen(line)) != RS_OK) return -1;
        if (cli_out_flush(1 << 16) != 0) return -1;
    }
    return 0;
}

/* Opens the sources for a streaming command (survey, sitemaps): damage is reported after use. */
int cli_stream_sites_open(const struct cli_opts *o, rs_sites **out);
int cli_stream_sites_open(const struct cli_opts *o, rs_sites **out)
{
    rs_sites_options so = { .keep_going = o->keep_going, .defer_errors = 1, .stream = 1 };
    rs_sites *sites = NULL;
    const rs_status st = rs_sites_create_opts(o->robots, (size_t)o->n_robots, &so, &sites);
    if (st != RS_OK) {
        cli_error("%s", sites ? rs_sites_errmsg(sites) : rs_status_str(st));
        rs_sites_free(sites);
        *out = NULL;
        return 2;
    }
    *out = sites;
    return 0;
}

/* After rs_sites_each: the corrupt records --keep-going skipped, if any. */
void cli_stream_sites_warn(rs_sites *sites);
void cli_stream_sites_warn(rs_sites *sites)
{
    rs_sites_warc_stats ws;
    rs_sites_get_warc_stats(sites, &ws);
    if (ws.corrupt_skipped)
        cli_warn("skipped %llu corrupt WARC record%s (--keep-going); the last: %s",
                 (unsigned long long)ws.corrupt_skipped, ws.corrupt_skipped > 1 ? "s" : "", rs_sites_errmsg(sites));
}

int cmd_survey(int argc, char **argv)
{
    struct cli_opts o;
    int rc = cli_parse("survey", ACCEPTED, argc, argv, &o);
    if (rc) return rc;
    if (o.help) {
        fputs(HELP, stdout);
        return 0;
    }
    if (o.n_robots == 0) return cli_usage_error("survey", "needs --robots SOURCE");
    if (o.n_args) return cli_usage_error("survey", "takes no positional argument ('%s')", o.args[0]);
    if (o.n_agents && o.agents_file) return cli_usage_error("survey", "give --agent or --agents, not both");

    survey_ctx c;
    memset(&c, 0, sizeof c);
    c.format = o.format;
    char *agents_text = NULL;
    const char **file_agents = NULL;
    size_t n_file = 0;
    if (o.agents_file && cli_read_agents(o.agents_file, &agents_text, &file_agents, &n_file) != 0) {
        free(agents_text);
        free(file_agents);
        return 2;
    }
    size_t nd = 0;
    const char *const *def = o.agents_file || o.n_agents ? NULL : rs_survey_default_agents(&nd);
    const char *const *names = o.agents_file ? file_agents : o.n_agents ? (const char *const *)o.agents : def;
    c.n = o.agents_file ? n_file : o.n_agents ? (size_t)o.n_agents : nd;
    c.agents = malloc(c.n * sizeof *c.agents);
    if (c.agents == NULL) {
        free(agents_text);
        free(file_agents);
        cli_error("out of memory");
        return 2;
    }
    for (size_t a = 0; a < c.n; a++) c.agents[a] = cstr(names[a]);
    free(file_agents);      /* c.agents points into agents_text */
    for (int a = 0; a < o.n_agents; a++) cli_check_agent(o.agents[a]);
    c.counts = calloc(c.n, sizeof *c.counts);
    c.res = calloc(c.n, sizeof *c.res);
    c.named = calloc(c.n ? c.n : 1, sizeof *c.named);
    rs_sites *sites = NULL;
    rc = (c.counts && c.res && c.named) ? cli_stream_sites_open(&o, &sites) : 2;
    if (rc == 0) {
        if (c.format != RS_FORMAT_TEXT && rs_format_header(cli_out(), c.format, COLS, 6) != RS_OK) rc = 2;
        const rs_status st = rc ? RS_OK : rs_sites_each_digest(sites, digest_body, on_doc, &c);
        fold(&c);
        if (st == RS_OK) cli_stream_sites_warn(sites);
        if (c.failed) rc = 2;
        else if (st != RS_OK) {
            cli_error("%s", rs_sites_errmsg(sites));
            rc = 2;
        }
        if (!c.failed && c.format == RS_FORMAT_TEXT && print_summary(&c) != 0) rc = 2;
        if (o.stats_path) {
            rs_sites_warc_stats ws;
            rs_sites_get_warc_stats(sites, &ws);
            if (write_stats(o.stats_path, &c, &ws) != 0) rc = 2;
            else if (cli_write_html(&o) != 0) rc = 2;
        }
    }
    if (cli_out_finish() != 0) rc = 2;
    rs_sites_free(sites);
    free(c.counts);
    free(c.res);
    free(c.named);
    rs_outbuf_free(&c.scratch);
    free(c.agents);
    free(agents_text);
    return rc;
}
