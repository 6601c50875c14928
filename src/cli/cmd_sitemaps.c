/*
 * cmd_sitemaps.c - `robotscan sitemaps`: every `Sitemap:` line of the robots
 * sources' files, once per origin, with whether it is an absolute http(s)
 * URL (SPEC 10). Streams one document at a time (rs_sites_each); the
 * per-origin set of seen values is freed after each document.
 */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

static const char HELP[] =
    "Usage: robotscan sitemaps --robots SOURCE [--robots SOURCE...] [OPTIONS]\n"
    "\n"
    "Lists the Sitemap: URLs of every robots.txt of the sources (files, directories,\n"
    "*.tsv manifests, WARC files): one record per distinct value per origin.\n"
    "\n"
    "Options:\n"
    "  --format FMT       tsv, csv, jsonl or text (default text on a terminal, else tsv)\n"
    "  --stats FILE.json  counts (origins, files with sitemaps, lines, valid, invalid)\n"
    "  --keep-going       count and skip corrupt WARC records instead of failing\n"
    "  --help             this text\n"
    "\n"
    "Columns: origin, sitemap (the value as written), line (its first line in the\n"
    "file), valid (yes: an absolute http(s) URL; no: relative or not a URL)\n"
    "Exit status: 0 ok, 2 usage or I/O error, or a damaged source (after the\n"
    "records before the damage were written).\n";

static const char *const ACCEPTED[] = { "--robots", "--format", "--stats", "--keep-going", "--help", NULL };
static const char *const COLS[] = { "origin", "sitemap", "line", "valid" };

int cli_stream_sites_open(const struct cli_opts *o, rs_sites **out);
void cli_stream_sites_warn(rs_sites *sites);

typedef struct {
    uint64_t hash;
    uint32_t off, len;
} seen_slot;

typedef struct {
    rs_format format;
    int failed;
    rs_str origin;
    /* per document: the values seen (a hash set over an arena) */
    seen_slot *slots;
    size_t mask, used;
    rs_outbuf arena;
    uint64_t origins, with_sitemaps, lines, records, valid, invalid, duplicates;
} sm_ctx;

static uint64_t hash(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
    return h | 1;
}

/* @return 1 if new (and remembers it), 0 if seen, -1 out of memory. */
static int remember(sm_ctx *c, const char *p, size_t n)
{
    if ((c->used + 1) * 2 > c->mask + 1) {
        const size_t ncap = (c->mask + 1) * 2;
        seen_slot *ns = calloc(ncap, sizeof *ns);
        if (ns == NULL) return -1;
        for (size_t i = 0; i <= c->mask; i++) {
            if (!c->slots[i].hash) continue;
            size_t j = c->slots[i].hash & (ncap - 1);
            while (ns[j].hash) j = (j + 1) & (ncap - 1);
            ns[j] = c->slots[i];
        }
        free(c->slots);
        c->slots = ns;
        c->mask = ncap - 1;
    }
    const uint64_t h = hash(p, n);
    size_t j = h & c->mask;
    for (; c->slots[j].hash; j = (j + 1) & c->mask)
        if (c->slots[j].hash == h && c->slots[j].len == n && memcmp(c->arena.ptr + c->slots[j].off, p, n) == 0)
            return 0;
    c->slots[j].hash = h;
    c->slots[j].off = (uint32_t)c->arena.len;
    c->slots[j].len = (uint32_t)n;
    if (rs_outbuf_append(&c->arena, p, n) != RS_OK) return -1;
    c->used++;
    return 1;
}

static void on_line(void *vctx, const rs_robots_line *ln)
{
    sm_ctx *c = vctx;
    if (c->failed || ln->directive != RS_DIRECTIVE_SITEMAP) return;
    c->lines++;
    const int r = remember(c, ln->value.ptr, ln->value.len);
    if (r < 0) { cli_error("out of memory"); c->failed = 1; return; }
    if (r == 0) { c->duplicates++; return; }
    const int valid = rs_sitemap_is_valid(ln->value.ptr, ln->value.len);
    if (valid) c->valid++;
    else c->invalid++;
    c->records++;
    rs_outbuf *out = cli_out();
    rs_status st;
    if (c->format == RS_FORMAT_TEXT) {
        char num[96];
        snprintf(num, sizeof num, "  line %u%s\n", ln->line, valid ? "" : "  [invalid: not an absolute http(s) URL]");
        st = rs_outbuf_append(out, c->origin.ptr, c->origin.len);
        if (st == RS_OK) st = rs_outbuf_append(out, "  ", 2);
        if (st == RS_OK) st = rs_outbuf_append(out, ln->value.ptr, ln->value.len);
        if (st == RS_OK) st = rs_outbuf_append(out, num, strlen(num));
    } else {
        const rs_field f[4] = {
            { c->origin, 0, 0 },
            { ln->value, 0, 0 },
            { { NULL, 0 }, ln->line, 1 },
            { { valid ? "yes" : "no", valid ? 3u : 2u }, 0, 0 },
        };
        st = rs_format_record(out, c->format, COLS, f, 4);
    }
    if (st != RS_OK) { cli_error("out of memory"); c->failed = 1; return; }
    if (cli_out_flush(1 << 16) != 0) c->failed = 1;
}

static int on_doc(void *vctx, const rs_site_doc *d)
{
    sm_ctx *c = vctx;
    c->origins++;
    if (d->outcome != RS_REASON_NO_MATCH) return 0;
    c->origin = d->origin;
    memset(c->slots, 0, (c->mask + 1) * sizeof *c->slots);
    c->used = 0;
    c->arena.len = 0;
    const uint64_t before = c->records;
    const rs_status st = rs_robots_parse(d->body, d->body_len, on_line, c, NULL);
    if (st != RS_OK) { cli_error("cannot parse robots file %s: %s", d->where, rs_status_str(st)); c->failed = 1; }
    if (c->records > before) c->with_sitemaps++;
    /* A document with very many sitemaps does not keep its table for the next ones. */
    if (c->mask > 1023) {
        free(c->slots);
        c->mask = 63;
        c->slots = calloc(c->mask + 1, sizeof *c->slots);
        rs_outbuf_free(&c->arena);
        if (c->slots == NULL) { cli_error("out of memory"); c->failed = 1; }
    }
    return c->failed;
}

int cmd_sitemaps(int argc, char **argv)
{
    struct cli_opts o;
    int rc = cli_parse("sitemaps", ACCEPTED, argc, argv, &o);
    if (rc) return rc;
    if (o.help) {
        fputs(HELP, stdout);
        return 0;
    }
    if (o.n_robots == 0) return cli_usage_error("sitemaps", "needs --robots SOURCE");
    if (o.n_args) return cli_usage_error("sitemaps", "takes no positional argument ('%s')", o.args[0]);
    sm_ctx c;
    memset(&c, 0, sizeof c);
    c.format = o.format;
    c.mask = 63;
    c.slots = calloc(c.mask + 1, sizeof *c.slots);
    rs_sites *sites = NULL;
    rc = c.slots ? cli_stream_sites_open(&o, &sites) : 2;
    if (rc == 0) {
        if (c.format != RS_FORMAT_TEXT && rs_format_header(cli_out(), c.format, COLS, 4) != RS_OK) rc = 2;
        const rs_status st = rc ? RS_OK : rs_sites_each(sites, on_doc, &c);
        if (st == RS_OK) cli_stream_sites_warn(sites);
        if (c.failed) rc = 2;
        else if (st != RS_OK) {
            cli_error("%s", rs_sites_errmsg(sites));
            rc = 2;
        }
        if (o.stats_path) {
            rs_outbuf b = { 0 };
            rs_stats_writer w;
            rs_stats_begin(&w, &b, "sitemaps", 1);
            rs_stats_count(&w, "origins", c.origins);
            rs_stats_count(&w, "origins_with_sitemaps", c.with_sitemaps);
            rs_stats_count(&w, "sitemap_lines", c.lines);
            rs_stats_count(&w, "records", c.records);
            rs_stats_count(&w, "valid", c.valid);
            rs_stats_count(&w, "invalid", c.invalid);
            rs_stats_count(&w, "duplicates", c.duplicates);
            if (rs_stats_finish(&w) != RS_OK || cli_write_file(o.stats_path, b.ptr, b.len, "statistics") != 0) rc = 2;
            rs_outbuf_free(&b);
        }
    }
    if (cli_out_finish() != 0) rc = 2;
    rs_sites_free(sites);
    free(c.slots);
    rs_outbuf_free(&c.arena);
    return rc;
}
