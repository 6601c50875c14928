/*
 * report.c - the arena's leaderboard: text (a table per workload and the
 * disagreements by cause with one example each), JSON (every figure), and a
 * self-contained HTML page (the same tables, inline SVG bars, no scripts,
 * Content-Security-Policy default-src 'none', as src/report/html.c).
 * The three are rendered from the same figures (fig() below), so the page
 * and the JSON agree number for number.
 */
#include "bench/bench.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

typedef struct {
    double qps, fps;          /* 0: not measured */
    double agreement;         /* percent of the answered; -1 when none answered */
    uint64_t disagreements;
} figures;

static figures fig(const bp_result *r)
{
    figures f;
    f.qps = r->query_s > 0 && r->timed_queries ? (double)r->timed_queries / r->query_s : 0;
    f.fps = r->parse_s > 0 && r->parse_blocks ? (double)r->parse_blocks / r->parse_s : 0;
    f.agreement = r->answered ? 100.0 * (double)r->agreed / (double)r->answered : -1;
    f.disagreements = r->answered - r->agreed;
    return f;
}

typedef struct { rs_outbuf *o; rs_status st; } out;

static void put(out *o, const char *s, size_t n)
{
    if (o->st == RS_OK) o->st = rs_outbuf_append(o->o, s, n);
}

static void puts_(out *o, const char *s) { put(o, s, strlen(s)); }

static void putf(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(out *o, const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n >= sizeof buf) n = sizeof buf - 1;
    put(o, buf, (size_t)n);
}

/* 1234567 -> "1,234,567" */
static const char *grouped(char *dst, size_t cap, double v)
{
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%.0f", v);
    const size_t n = strlen(tmp);
    size_t k = 0;
    for (size_t i = 0; i < n && k + 2 < cap; i++) {
        if (i && (n - i) % 3 == 0) dst[k++] = ',';
        dst[k++] = tmp[i];
    }
    dst[k] = '\0';
    return dst;
}

static const char *rss_str(char *dst, size_t cap, uint64_t b)
{
    if (b == 0) snprintf(dst, cap, "-");
    else snprintf(dst, cap, "%.1f MiB", (double)b / 1048576.0);
    return dst;
}

static const char *agree_str(char *dst, size_t cap, double a)
{
    if (a < 0) snprintf(dst, cap, "-");
    else if (a < 100 && a >= 99.9995) snprintf(dst, cap, "99.999%%");   /* never rounded up to 100 */
    else snprintf(dst, cap, "%.3f%%", a);
    return dst;
}

/* ===== Text ===== */

rs_status rs_bench_text(const rs_bench *b, rs_outbuf *outb)
{
    out o = { outb, RS_OK };
    char g1[32], g2[32], g3[32], g4[32], g5[32];
    for (size_t wi = 0; wi < b->n_workloads && b->results; wi++) {
        const bw_workload *w = &b->workloads[wi];
        putf(&o, "%s== workload %s: %s files", wi ? "\n" : "", w->name, grouped(g1, sizeof g1, (double)w->n_files));
        if (w->n_blocks != w->n_files) putf(&o, " loaded %s times", grouped(g1, sizeof g1, (double)w->n_blocks));
        putf(&o, ", %s queries (seed %llu; %s)\n", grouped(g2, sizeof g2, (double)w->n_q),
             (unsigned long long)w->seed, w->temp ? "generated" : w->dir);
        putf(&o, "%-18s %-8s %12s %10s %10s %10s %13s\n", "peer", "status", "queries/s", "files/s",
             "peak RSS", "agreement", "disagreements");
        for (size_t pi = 0; pi < b->n_peers; pi++) {
            const bp_result *r = &b->results[wi * b->n_peers + pi];
            const figures f = fig(r);
            putf(&o, "%-18s %-8s %12s %10s %10s %10s %13s\n", b->peers[pi].name, rs_bench_status_str((int)r->status),
                 f.qps > 0 ? grouped(g1, sizeof g1, f.qps) : "-", f.fps > 0 ? grouped(g2, sizeof g2, f.fps) : "-",
                 rss_str(g3, sizeof g3, r->peak_rss), agree_str(g4, sizeof g4, f.agreement),
                 grouped(g5, sizeof g5, (double)f.disagreements));
        }
        for (size_t pi = 0; pi < b->n_peers; pi++) {
            const bp_result *r = &b->results[wi * b->n_peers + pi];
            if (r->status != BP_OK)
                putf(&o, "  %s: %s: %s (%llu of %zu queries answered)\n", b->peers[pi].name,
                     rs_bench_status_str((int)r->status), r->detail, (unsigned long long)r->answered, w->n_q);
            else if (r->detail[0]) putf(&o, "  %s: note: %s\n", b->peers[pi].name, r->detail);
        }
        for (size_t pi = 0; pi < b->n_peers; pi++) {
            const bp_result *r = &b->results[wi * b->n_peers + pi];
            const figures f = fig(r);
            if (f.disagreements == 0) continue;
            putf(&o, "  %s disagrees on %s queries:", b->peers[pi].name, grouped(g1, sizeof g1, (double)f.disagreements));
            int first = 1;
            for (int c = 0; c < BC_COUNT; c++)
                if (r->cause[c]) { putf(&o, "%s %s %llu", first ? "" : ",", rs_bench_cause_names[c],
                                        (unsigned long long)r->cause[c]); first = 0; }
            if (r->unclassified) putf(&o, " (%llu of them not classified, past the classification budget)",
                                      (unsigned long long)r->unclassified);
            puts_(&o, "\n");
            for (int c = 0; c < BC_COUNT; c++)
                if (r->example[c]) putf(&o, "    %s: %s\n", rs_bench_cause_names[c], r->example[c]);
        }
    }
    if (b->missing && b->missing[0]) putf(&o, "\nnot run (not installed): %s\n", b->missing);
    return o.st;
}

/* ===== JSON ===== */

static void jstr(out *o, const char *s)
{
    if (o->st == RS_OK) o->st = rs_outbuf_json_string(o->o, s, strlen(s));
}

static void jnum(out *o, double v)
{
    if (!isfinite(v)) { puts_(o, "null"); return; }
    if (v == floor(v) && fabs(v) < 1e15) putf(o, "%.0f", v);
    else putf(o, "%.6g", v);
}

rs_status rs_bench_json(const rs_bench *b, rs_outbuf *outb)
{
    out o = { outb, RS_OK };
    putf(&o, "{\"command\":\"bench\",\"schema\":1,\"version\":");
    jstr(&o, rs_version_string());
    putf(&o, ",\"seed\":%llu,\"timeout_s\":", (unsigned long long)b->cfg.seed);
    jnum(&o, b->cfg.timeout);
    puts_(&o, ",\"seconds\":");
    jnum(&o, b->cfg.seconds);
    puts_(&o, ",\"causes\":[");
    for (int c = 0; c < BC_COUNT; c++) { if (c) puts_(&o, ","); jstr(&o, rs_bench_cause_names[c]); }
    puts_(&o, "],\"workloads\":[");
    for (size_t wi = 0; wi < b->n_workloads && b->results; wi++) {
        const bw_workload *w = &b->workloads[wi];
        if (wi) puts_(&o, ",");
        puts_(&o, "{\"name\":");
        jstr(&o, w->name);
        putf(&o, ",\"files\":%zu,\"blocks\":%zu,\"queries\":%zu,\"seed\":%llu,\"folder\":", w->n_files, w->n_blocks,
             w->n_q, (unsigned long long)w->seed);
        if (w->temp) puts_(&o, "null"); else jstr(&o, w->dir);
        puts_(&o, ",\"peers\":[");
        for (size_t pi = 0; pi < b->n_peers; pi++) {
            const bp_result *r = &b->results[wi * b->n_peers + pi];
            const figures f = fig(r);
            if (pi) puts_(&o, ",");
            puts_(&o, "{\"name\":");
            jstr(&o, b->peers[pi].name);
            puts_(&o, ",\"command\":");
            if (b->peers[pi].inprocess) puts_(&o, "null"); else jstr(&o, b->peers[pi].command);
            puts_(&o, ",\"status\":");
            jstr(&o, rs_bench_status_str((int)r->status));
            puts_(&o, ",\"detail\":");
            jstr(&o, r->detail);
            putf(&o, ",\"answered\":%llu,\"agreed\":%llu,\"disagreements\":%llu,\"agreement_pct\":",
                 (unsigned long long)r->answered, (unsigned long long)r->agreed, (unsigned long long)f.disagreements);
            if (f.agreement < 0) puts_(&o, "null"); else jnum(&o, f.agreement);
            puts_(&o, ",\"queries_per_s\":");
            if (f.qps > 0) jnum(&o, round(f.qps)); else puts_(&o, "null");
            puts_(&o, ",\"files_per_s\":");
            if (f.fps > 0) jnum(&o, round(f.fps)); else puts_(&o, "null");
            puts_(&o, ",\"peak_rss_bytes\":");
            if (r->peak_rss) jnum(&o, (double)r->peak_rss); else puts_(&o, "null");
            puts_(&o, ",\"startup_s\":");
            jnum(&o, r->startup_s);
            puts_(&o, ",\"parse_s\":");
            jnum(&o, r->parse_s);
            puts_(&o, ",\"query_s\":");
            jnum(&o, r->query_s);
            putf(&o, ",\"timed_files\":%llu,\"timed_queries\":%llu,\"unclassified\":%llu,\"causes\":{",
                 (unsigned long long)r->parse_blocks, (unsigned long long)r->timed_queries,
                 (unsigned long long)r->unclassified);
            int first = 1;
            for (int c = 0; c < BC_COUNT; c++) {
                if (!r->cause[c]) continue;
                if (!first) puts_(&o, ",");
                first = 0;
                jstr(&o, rs_bench_cause_names[c]);
                putf(&o, ":{\"count\":%llu,\"example\":", (unsigned long long)r->cause[c]);
                if (r->example[c]) jstr(&o, r->example[c]); else puts_(&o, "null");
                puts_(&o, "}");
            }
            puts_(&o, "}}");
        }
        puts_(&o, "]}");
    }
    puts_(&o, "],\"not_installed\":[");
    for (size_t i = 0; i < b->n_missing; i++) {
        puts_(&o, i ? ",{\"name\":" : "{\"name\":");
        jstr(&o, b->missing_name[i]);
        puts_(&o, ",\"package\":");
        jstr(&o, b->missing_why[i]);
        puts_(&o, "}");
    }
    puts_(&o, "]}\n");
    return o.st;
}

/* ===== HTML ===== */

static void hesc(out *o, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': puts_(o, "&lt;"); break;
        case '>': puts_(o, "&gt;"); break;
        case '&': puts_(o, "&amp;"); break;
        case '"': puts_(o, "&quot;"); break;
        default: put(o, s, 1);
        }
    }
}

/* Horizontal bars, one per peer; @log10 scale for rates. */
static void svg_bars(out *o, const rs_bench *b, size_t wi, int which, const char *title)
{
    const size_t n = b->n_peers;
    double v[RS_BENCH_MAX], max = 0;
    for (size_t pi = 0; pi < n; pi++) {
        const figures f = fig(&b->results[wi * n + pi]);
        v[pi] = which == 0 ? f.qps : which == 1 ? f.fps : f.agreement;
        if (v[pi] > max) max = v[pi];
    }
    const int log_scale = which != 2;
    const double lo = log_scale ? 1.0 : 0.0;   /* log10 of the left edge: 10/s */
    const double hi = log_scale ? (max > 10 ? log10(max) * 1.05 : 2.0) : 100.0;
    const int row = 22, left = 150, width = 420, h = (int)n * row + 30;
    putf(o, "<figure><figcaption>%s</figcaption><svg role=\"img\" aria-label=\"", title);
    hesc(o, title);
    putf(o, "\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\">",
         left + width + 120, h, left + width + 120, h);
    char g[32], a[32];
    for (size_t pi = 0; pi < n; pi++) {
        double x = v[pi];
        double frac = 0;
        if (x > 0) frac = log_scale ? (log10(x) - lo) / (hi - lo) : x / 100.0;
        if (frac < 0) frac = 0;
        if (frac > 1) frac = 1;
        const int y = (int)pi * row + 5;
        putf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-size=\"12\">", left - 6, y + 14);
        hesc(o, b->peers[pi].name);
        putf(o, "</text><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"16\" fill=\"#4a78b5\"><title>", left, y,
             (int)(frac * width));
        hesc(o, b->peers[pi].name);
        putf(o, ": %s</title></rect>", which == 2 ? agree_str(a, sizeof a, x) : x > 0 ? grouped(g, sizeof g, x) : "-");
        putf(o, "<text x=\"%d\" y=\"%d\" font-size=\"12\">%s</text>", left + (int)(frac * width) + 4, y + 13,
             which == 2 ? agree_str(a, sizeof a, x) : x > 0 ? grouped(g, sizeof g, x) : "-");
    }
    putf(o, "<text x=\"%d\" y=\"%d\" font-size=\"11\">%s</text></svg></figure>\n", left, h - 6,
         log_scale ? "log scale, from 10/s" : "0 to 100%");
}

rs_status rs_bench_html(const rs_bench *b, rs_outbuf *outb)
{
    out o = { outb, RS_OK };
    puts_(&o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
              "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
              "<title>robotscan bench: matcher arena</title>\n<style>body{font:14px sans-serif;margin:2em}"
              "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;padding:3px 8px}"
              "td.n{text-align:right}figure{margin:1em 0}figcaption{font-weight:bold}</style></head><body>\n"
              "<h1>robotscan bench: the matcher arena</h1>\n");
    putf(&o, "<p>robotscan %s, seed %llu, per-query timeout %g s. Agreement is the share of answered queries "
             "whose verdict equals Google's reference (robotscan's default semantics).</p>\n",
         rs_version_string(), (unsigned long long)b->cfg.seed, b->cfg.timeout);
    char g1[32], g2[32], g3[32], g4[32], g5[32];
    for (size_t wi = 0; wi < b->n_workloads && b->results; wi++) {
        const bw_workload *w = &b->workloads[wi];
        puts_(&o, "<section><h2>Workload ");
        hesc(&o, w->name);
        putf(&o, "</h2><p>%s files (loaded %s times), %s queries.</p>\n", grouped(g1, sizeof g1, (double)w->n_files),
             grouped(g3, sizeof g3, (double)w->n_blocks), grouped(g2, sizeof g2, (double)w->n_q));
        puts_(&o, "<table class=\"leaderboard\"><caption>Leaderboard: ");
        hesc(&o, w->name);
        puts_(&o, "</caption><thead><tr><th>peer</th><th>status</th><th>queries/s</th>"
                  "<th>files/s</th><th>peak RSS</th><th>agreement</th><th>disagreements</th><th>by cause</th>"
                  "</tr></thead><tbody>\n");
        for (size_t pi = 0; pi < b->n_peers; pi++) {
            const bp_result *r = &b->results[wi * b->n_peers + pi];
            const figures f = fig(r);
            puts_(&o, "<tr><td>");
            hesc(&o, b->peers[pi].name);
            putf(&o, "</td><td title=\"");
            hesc(&o, r->detail);
            putf(&o, "\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
                     "<td class=\"n\">%s</td><td class=\"n\">%s</td><td>",
                 rs_bench_status_str((int)r->status), f.qps > 0 ? grouped(g1, sizeof g1, f.qps) : "-",
                 f.fps > 0 ? grouped(g2, sizeof g2, f.fps) : "-", rss_str(g3, sizeof g3, r->peak_rss),
                 agree_str(g4, sizeof g4, f.agreement), grouped(g5, sizeof g5, (double)f.disagreements));
            int first = 1;
            for (int c = 0; c < BC_COUNT; c++) {
                if (!r->cause[c]) continue;
                putf(&o, "%s<span title=\"", first ? "" : ", ");
                if (r->example[c]) hesc(&o, r->example[c]);
                putf(&o, "\">");
                hesc(&o, rs_bench_cause_names[c]);
                putf(&o, " %llu</span>", (unsigned long long)r->cause[c]);
                first = 0;
            }
            puts_(&o, "</td></tr>\n");
        }
        puts_(&o, "</tbody></table>\n");
        svg_bars(&o, b, wi, 0, "queries per second");
        svg_bars(&o, b, wi, 1, "files per second");
        svg_bars(&o, b, wi, 2, "agreement with the reference");
        puts_(&o, "<h3>One example per cause</h3><ul>\n");
        for (size_t pi = 0; pi < b->n_peers; pi++) {
            const bp_result *r = &b->results[wi * b->n_peers + pi];
            for (int c = 0; c < BC_COUNT; c++) {
                if (!r->example[c]) continue;
                puts_(&o, "<li>");
                hesc(&o, b->peers[pi].name);
                puts_(&o, ", ");
                hesc(&o, rs_bench_cause_names[c]);
                puts_(&o, ": <code>");
                hesc(&o, r->example[c]);
                puts_(&o, "</code></li>\n");
            }
            if (r->status != BP_OK) {
                puts_(&o, "<li>");
                hesc(&o, b->peers[pi].name);
                putf(&o, ": %s: ", rs_bench_status_str((int)r->status));
                hesc(&o, r->detail);
                puts_(&o, "</li>\n");
            }
        }
        puts_(&o, "</ul></section>\n");
    }
    if (b->missing && b->missing[0]) {
        puts_(&o, "<p>Not run (not installed): ");
        hesc(&o, b->missing);
        puts_(&o, "</p>\n");
    }
    puts_(&o, "</body></html>\n");
    return o.st;
}
