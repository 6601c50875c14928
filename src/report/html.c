/*
 * html.c - --stats JSON documents -> one self-contained HTML page.
 *
 * The page needs nothing but itself: no scripts at all, no fonts, no external
 * styles or images; a Content-Security-Policy of default-src 'none' makes
 * the browser refuse any fetch that might slip in. Charts are inline SVG
 * drawn here (horizontal bars, stacked or overlaid, and time columns), each
 * beside a table of the same numbers (the text alternative), with fill
 * patterns and printed values so nothing depends on telling colours apart.
 * Numbers are printed exactly as the JSON holds them; the only computed
 * values are shares, totals of a row, and time buckets summed to days when
 * a log spans too many hours (labelled so).
 *
 * Reading is strict (jansson, duplicate keys refused): a field the page
 * uses must have its type, a document must name its command and a schema
 * version this code knows. Fields it does not use are ignored, so a newer
 * writer within the same schema version still renders.
 * Deliberately not here: file I/O (the CLI reads and writes), interactivity.
 */
#include "common/common.h"
#include "log/bots.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

/* ===== Page output and validation state ===== */

typedef struct {
    rs_outbuf *o;
    rs_status st;      /* first output failure (RS_ERR_NOMEM) */
    int bad;           /* a validation error was recorded in err */
    char *err;
    size_t err_cap;
    const char *doc;   /* name of the document being read */
    unsigned id;       /* element ids: unique in the page */
    int folded;        /* the open table sits in a closed <details> */
} page;

static void putn(page *p, const char *s, size_t n)
{
    if (p->st == RS_OK) p->st = rs_outbuf_append(p->o, s, n);
}

static void put(page *p, const char *s) { putn(p, s, strlen(s)); }

static void putf(page *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(page *p, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof buf) {
        putn(p, buf, (size_t)n);
        return;
    }
    char *big = rs_malloc((size_t)n + 1);
    if (big == NULL) {
        p->st = RS_ERR_NOMEM;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    putn(p, big, (size_t)n);
    rs_free(big);
}

/* HTML-escapes @s for text and quoted attributes; C0 controls become U+FFFD. */
static void esc(page *p, const char *s, size_t n)
{
    size_t from = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned char c = (unsigned char)s[i];
        const char *rep = NULL;
        switch (c) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = "&quot;"; break;
        case '\'': rep = "&#39;"; break;
        default:
            if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f) rep = "\xEF\xBF\xBD";
        }
        if (rep == NULL) continue;
        putn(p, s + from, i - from);
        put(p, rep);
        from = i + 1;
    }
    putn(p, s + from, n - from);
}

static void escs(page *p, const char *s) { esc(p, s, strlen(s)); }

/* Escapes at most @max characters (UTF-8 aware), with an ellipsis when cut. */
static void esc_cut(page *p, const char *s, size_t n, size_t max)
{
    size_t chars = 0, i = 0;
    for (; i < n; i++) {
        if (((unsigned char)s[i] & 0xC0) != 0x80) {
            if (chars == max) break;
            chars++;
        }
    }
    esc(p, s, i);
    if (i < n) put(p, "\xE2\x80\xA6");
}

static void put_u64(page *p, uint64_t v) { putf(p, "%llu", (unsigned long long)v); }

/* Records the first validation error as "DOC: message". */
static void fail(page *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(page *p, const char *fmt, ...)
{
    if (p->bad) return;
    p->bad = 1;
    if (p->err_cap == 0) return;
    int n = snprintf(p->err, p->err_cap, "%s: ", p->doc ? p->doc : "statistics");
    if (n < 0 || (size_t)n >= p->err_cap) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err + n, p->err_cap - (size_t)n, fmt, ap);
    va_end(ap);
}

/* ===== Strict field access ===== */

/* A non-negative integer field. @return 1 when present and valid; 0 when
 * absent (an error if @required) or invalid (an error). */
static int get_u64(page *p, const json_t *obj, const char *key, const char *where, int required, uint64_t *out)
{
    *out = 0;
    const json_t *v = json_object_get(obj, key);
    if (v == NULL) {
        if (required) fail(p, "%s%s\"%s\" is missing", where, *where ? ": " : "", key);
        return 0;
    }
    if (!json_is_integer(v) || json_integer_value(v) < 0) {
        fail(p, "%s%s\"%s\" is not a non-negative integer", where, *where ? ": " : "", key);
        return 0;
    }
    *out = (uint64_t)json_integer_value(v);
    return 1;
}

/* A string field (@nullable: null is accepted and gives NULL). */
static const char *get_str(page *p, const json_t *obj, const char *key, const char *where, int required,
                           int nullable, size_t *len)
{
    *len = 0;
    const json_t *v = json_object_get(obj, key);
    if (v == NULL) {
        if (required) fail(p, "%s%s\"%s\" is missing", where, *where ? ": " : "", key);
        return NULL;
    }
    if (nullable && json_is_null(v)) return NULL;
    if (!json_is_string(v)) {
        fail(p, "%s%s\"%s\" is not a string", where, *where ? ": " : "", key);
        return NULL;
    }
    *len = json_string_length(v);
    return json_string_value(v);
}

/* An array field whose elements must all be objects. */
static const json_t *get_objs(page *p, const json_t *obj, const char *key, int required)
{
    const json_t *v = json_object_get(obj, key);
    if (v == NULL) {
        if (required) fail(p, "\"%s\" is missing", key);
        return NULL;
    }
    if (!json_is_array(v)) {
        fail(p, "\"%s\" is not an array", key);
        return NULL;
    }
    for (size_t i = 0; i < json_array_size(v); i++)
        if (!json_is_object(json_array_get(v, i))) {
            fail(p, "%s[%zu] is not an object", key, i);
            return NULL;
        }
    return v;
}

/* A real number as the shortest text that reads back to the same double. */
static void put_real(page *p, double d)
{
    char buf[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, d);
        if (strtod(buf, NULL) == d) break;
    }
    put(p, buf);
}

/* ===== Charts ===== */

/* Fill styles: a colour and a pattern each, so print and colour-blind readers
 * still tell them apart (and every chart prints its numbers). */
enum { F_SOLID, F_HATCH, F_DOTS, F_CROSS, F_LINES, F_GREY, F_COUNT };
static const char *const FILL[F_COUNT] = {
    "#4e79a7", "url(#rsp-hatch)", "url(#rsp-dots)", "url(#rsp-cross)", "url(#rsp-lines)", "#d9d9d9",
};

static const char DEFS[] =
    "<svg class=\"defs\" width=\"0\" height=\"0\" aria-hidden=\"true\" focusable=\"false\"><defs>"
    "<pattern id=\"rsp-hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
    "<rect width=\"6\" height=\"6\" fill=\"#c0392b\"/><rect width=\"2\" height=\"6\" fill=\"#f5c6bf\"/></pattern>"
    "<pattern id=\"rsp-dots\" width=\"5\" height=\"5\" patternUnits=\"userSpaceOnUse\">"
    "<rect width=\"5\" height=\"5\" fill=\"#f0a030\"/><circle cx=\"2.5\" cy=\"2.5\" r=\"1.2\" fill=\"#5a3a00\"/></pattern>"
    "<pattern id=\"rsp-cross\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\">"
    "<rect width=\"6\" height=\"6\" fill=\"#bdbdbd\"/><path d=\"M0 0L6 6M6 0L0 6\" stroke=\"#555\" stroke-width=\"1\"/></pattern>"
    "<pattern id=\"rsp-lines\" width=\"6\" height=\"4\" patternUnits=\"userSpaceOnUse\">"
    "<rect width=\"6\" height=\"4\" fill=\"#8e6bb8\"/><rect width=\"6\" height=\"1.3\" fill=\"#f1eaf8\"/></pattern>"
    "</defs></svg>\n";

#define MAX_SERIES 6

typedef struct {
    const char *label;
    size_t len;
    uint64_t v[MAX_SERIES];
} bar_row;

typedef struct {
    const char *title;                /* the chart's accessible name */
    const char *const *series;        /* series names */
    const int *fill;                  /* F_* per series */
    int nseries;
    int stacked;                      /* 1: segments add up; 0: overlaid from 0 (later ones are subsets) */
} bar_spec;

static void swatch(page *p, int fill)
{
    putf(p, "<svg class=\"sw\" width=\"14\" height=\"14\" aria-hidden=\"true\"><rect width=\"14\" height=\"14\" "
            "fill=\"%s\" stroke=\"#333\" stroke-width=\"1\"/></svg>", FILL[fill]);
}

static void legend(page *p, const bar_spec *s)
{
    put(p, "<p class=\"legend\">");
    for (int k = 0; k < s->nseries; k++) {
        put(p, "<span>");
        swatch(p, s->fill[k]);
        escs(p, s->series[k]);
        put(p, "</span> ");
    }
    put(p, "</p>");
}

static void svg_open(page *p, const char *title, int w, int h)
{
    const unsigned id = ++p->id;
    putf(p, "<svg class=\"chart\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" "
            "aria-labelledby=\"c%u\" xmlns=\"http://www.w3.org/2000/svg\"><title id=\"c%u\">", w, h, w, h, id, id);
    escs(p, title);
    put(p, "</title>");
}

/* Horizontal bars, one row per entry, values printed at the bar's end. */
static void chart_hbars(page *p, const bar_spec *s, const bar_row *rows, size_t n)
{
    const int W = 820, LABEL = 250, X0 = 256, BARS = 300, ROW = 22, TOP = 4;
    uint64_t max = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t m = 0;
        for (int k = 0; k < s->nseries; k++) m = s->stacked ? m + rows[i].v[k] : RS_MAX(m, rows[i].v[k]);
        max = RS_MAX(max, m);
    }
    const int h = TOP * 2 + ROW * (int)n;
    svg_open(p, s->title, W, h);
    for (size_t i = 0; i < n; i++) {
        const bar_row *r = &rows[i];
        const int y = TOP + ROW * (int)i;
        put(p, "<g><title>");
        esc(p, r->label, r->len);
        for (int k = 0; k < s->nseries; k++) {
            putf(p, "%s", k ? ", " : ": ");
            escs(p, s->series[k]);
            putf(p, " %llu", (unsigned long long)r->v[k]);
        }
        put(p, "</title>");
        putf(p, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" class=\"lbl\">", LABEL, y + 15);
        esc_cut(p, r->label, r->len, 36);
        put(p, "</text>");
        double x = X0;
        double end = X0;
        for (int k = 0; k < s->nseries; k++) {
            const double wk = max ? (double)BARS * (double)r->v[k] / (double)max : 0;
            const double xk = s->stacked ? x : X0;
            if (r->v[k] > 0) {
                putf(p, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"16\" fill=\"%s\" stroke=\"#333\" "
                        "stroke-width=\"0.6\"/>", xk, y + 3, wk < 1 ? 1.0 : wk, FILL[s->fill[k]]);
                /* Numbers inside stacked segments when they fit. */
                char num[24];
                const int nl = snprintf(num, sizeof num, "%llu", (unsigned long long)r->v[k]);
                if (s->stacked && s->nseries > 1 && wk >= nl * 7.0 + 6)
                    putf(p, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" class=\"in\">%s</text>",
                         xk + wk / 2, y + 15, num);
            }
            if (s->stacked) x += wk;
            end = RS_MAX(end, xk + (wk < 1 && r->v[k] ? 1.0 : wk));
        }
        putf(p, "<text x=\"%.1f\" y=\"%d\" class=\"val\">", end + 6, y + 15);
        if (s->stacked && s->nseries > 1) {
            uint64_t total = 0;
            for (int k = 0; k < s->nseries; k++) total += r->v[k];
            for (int k = 0; k < s->nseries; k++) putf(p, "%s%llu", k ? " + " : "", (unsigned long long)r->v[k]);
            putf(p, " = %llu", (unsigned long long)total);
        } else {
            for (int k = 0; k < s->nseries; k++) {
                if (k) put(p, " \xC2\xB7 ");
                putf(p, "%llu ", (unsigned long long)r->v[k]);
                escs(p, s->series[k]);
            }
        }
        put(p, "</text></g>");
    }
    put(p, "</svg>");
    legend(p, s);
}

/* One time bucket: total hits and the violating subset. */
typedef struct {
    char label[16];    /* "YYYY-MM-DDTHH" or "YYYY-MM-DD" */
    uint64_t hits, viol;
} col_pt;

/* Two rows of time labels under column @i at @x: hours ("06:00") on the first,
 * the day ("17 May", with the year on the first label) on the second, where
 * the day changes. Labels fall on whole steps (every 1, 2, 3, 4, 6 or 12
 * hours, or every k days) so that about ten fit whatever the span. */
static void axis_label(page *p, const col_pt *pts, size_t n, size_t i, double x, int y, int *last_day)
{
    static const char *const MON[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
    const char *lb = pts[i].label;
    const size_t ll = strlen(lb);
    if (ll < 10) return;
    const int hourly = ll >= 13;
    const int hour = hourly ? atoi(lb + 11) : 0;
    const int mon = atoi(lb + 5), day = atoi(lb + 8);
    const long daynum = (long)atoi(lb) * 372 + mon * 31 + day;   /* increases with the date; only compared */
    static const int HSTEP[] = { 1, 2, 3, 4, 6, 12 };
    int step = 0;                   /* hours (hourly axis) */
    for (size_t k = 0; k < sizeof HSTEP / sizeof HSTEP[0] && hourly; k++)
        if (n / (size_t)HSTEP[k] <= 10) {
            step = HSTEP[k];
            break;
        }
    size_t days = hourly ? n / 24 + 1 : n, dstep = 1;
    while (days / dstep > 10) dstep++;
    if (step) {
        if (hour % step) return;
    } else {
        if (hourly && hour != 0 && i != 0) return;
        /* every dstep-th day, counted from the first column */
        const size_t dayix = hourly ? (i + 24 - (size_t)hour) / 24 : i;
        if (dayix % dstep) return;
    }
    putf(p, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\"/>", x, y - 13, x, y - 9);
    if (step) putf(p, "<text x=\"%.1f\" y=\"%d\" class=\"ax\">%02d:00</text>", x, y + 2, hour);
    if (daynum != *last_day || !step) {
        putf(p, "<text x=\"%.1f\" y=\"%d\" class=\"ax day\">%d %s", x, step ? y + 18 : y + 2, day,
             mon >= 1 && mon <= 12 ? MON[mon - 1] : "?");
        if (mon == 1 && day == 1) putf(p, " %.4s", lb);   /* the first year is in the period above */
        put(p, "</text>");
        *last_day = (int)daynum;
    }
}

/* Columns over time: hits (solid) with violations (hatched) over them. */
static void chart_columns(page *p, const char *title, const col_pt *pts, size_t n, int height, int axis)
{
    const int W = 820, L = 56, R = 8, T = 8, B = axis ? 46 : 6;
    const int H = height, plot = H - T - B;
    uint64_t max = 0;
    for (size_t i = 0; i < n; i++) max = RS_MAX(max, pts[i].hits);
    svg_open(p, title, W, H);
    const double cw = n ? (double)(W - L - R) / (double)n : 0;
    putf(p, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>", L, T + plot, W - R, T + plot);
    putf(p, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" class=\"ax\">0</text>", L - 4, T + plot);
    putf(p, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" class=\"ax\">%llu</text>", L - 4, T + 10,
         (unsigned long long)max);
    putf(p, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ccc\" stroke-dasharray=\"3 3\"/>", L, T, W - R, T);
    int last_day = -1;
    for (size_t i = 0; i < n; i++) {
        const double x = L + cw * (double)i;
        const double hh = max ? (double)plot * (double)pts[i].hits / (double)max : 0;
        const double hv = max ? (double)plot * (double)pts[i].viol / (double)max : 0;
        const double bw = cw > 3 ? cw - 1 : cw;
        putf(p, "<g><title>%s: %llu hits, %llu violations</title>", pts[i].label,
             (unsigned long long)pts[i].hits, (unsigned long long)pts[i].viol);
        if (pts[i].hits)
            putf(p, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>", x, T + plot - hh, bw,
                 hh, FILL[F_SOLID]);
        if (pts[i].viol)
            putf(p, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"/>", x, T + plot - hv, bw,
                 hv < 1 ? 1.0 : hv, FILL[F_HATCH]);
        put(p, "</g>");
        if (axis) axis_label(p, pts, n, i, x, T + plot + 16, &last_day);
    }
    put(p, "</svg>");
}

/* ===== Tables and layout ===== */

/* Tables longer than this are folded: a closed <details> the reader opens
 * (the page has no inner scroll boxes; the rows stay in the page, so search,
 * print and screen readers find them). */
#define FOLD_ROWS 20

/* A table of @rows rows (0: unknown, never folded). */
static void table_open_rows(page *p, const char *caption, const char *const *heads, size_t n, unsigned numeric,
                            size_t rows)
{
    p->folded = rows > FOLD_ROWS;
    if (p->folded) {
        putf(p, "<details class=\"fold\"><summary>Show the table: all %zu rows (", rows);
        escs(p, caption);
        put(p, ")</summary>");
    }
    put(p, "<div class=\"tbl\"><table><caption>");
    escs(p, caption);
    put(p, "</caption><thead><tr>");
    for (size_t i = 0; i < n; i++) {
        put(p, numeric & (1u << i) ? "<th scope=\"col\" class=\"n\">" : "<th scope=\"col\">");
        escs(p, heads[i]);
        put(p, "</th>");
    }
    put(p, "</tr></thead><tbody>");
}

static void table_open(page *p, const char *caption, const char *const *heads, size_t n, unsigned numeric)
{
    table_open_rows(p, caption, heads, n, numeric, 0);
}

static void table_close(page *p)
{
    put(p, p->folded ? "</tbody></table></div></details>" : "</tbody></table></div>");
    p->folded = 0;
}

static void td_str(page *p, const char *s, size_t n)
{
    put(p, "<td>");
    esc(p, s, n);
    put(p, "</td>");
}

static void th_row(page *p, const char *s, size_t n)
{
    put(p, "<th scope=\"row\">");
    esc(p, s, n);
    put(p, "</th>");
}

static void td_u64(page *p, uint64_t v)
{
    put(p, "<td class=\"n\">");
    put_u64(p, v);
    put(p, "</td>");
}

/* A share in percent (computed, so marked as such by the column heading). */
static void td_pct(page *p, uint64_t part, uint64_t whole)
{
    const double pct = whole ? 100.0 * (double)part / (double)whole : 0;
    if (whole == 0) put(p, "<td class=\"n\">\xE2\x80\x93</td>");
    else if (part > 0 && pct < 0.05) put(p, "<td class=\"n\">&lt;0.1%</td>");
    else putf(p, "<td class=\"n\">%.1f%%</td>", pct);
}

/* A chart with its table beside it (@wide: below it, for tables of many columns). */
static void figure_open_as(page *p, const char *heading, int wide)
{
    put(p, "<section class=\"fig\"><h3>");
    escs(p, heading);
    put(p, wide ? "</h3><div class=\"pair wide\"><div class=\"plot\">" : "</h3><div class=\"pair\"><div class=\"plot\">");
}

static void figure_open(page *p, const char *heading) { figure_open_as(p, heading, 0); }

static void figure_mid(page *p) { put(p, "</div>"); }
static void figure_close(page *p) { put(p, "</div></section>\n"); }

static void note(page *p, const char *text)
{
    put(p, "<p class=\"note\">");
    escs(p, text);
    put(p, "</p>");
}

/* A non-empty array of strings only? */
static int strings_only(const json_t *a)
{
    for (size_t i = 0; i < json_array_size(a); i++)
        if (!json_is_string(json_array_get(a, i))) return 0;
    return json_array_size(a) > 0;
}

static void put_strings(page *p, const json_t *a)
{
    for (size_t i = 0; i < json_array_size(a); i++) {
        if (i) put(p, ", ");
        const json_t *e = json_array_get(a, i);
        esc(p, json_string_value(e), json_string_length(e));
    }
}

/* The run's scalar fields (and objects of scalars, as key.sub), in file order. */
static void run_table(page *p, json_t *d)
{
    put(p, "<details class=\"run\"><summary>Run details: every scalar field of the statistics file "
           "(format version, counters, timings)</summary>"
           "<div class=\"tbl run\"><table><caption>Run (every scalar field of the statistics file)</caption>"
           "<tbody>");
    const char *key;
    json_t *v;
    json_object_foreach(d, key, v) {
        json_t *sub = NULL;
        const char *sk;
        int nested = json_is_object(v);
        if (nested) {
            json_object_foreach(v, sk, sub) {
                if (json_is_object(sub) || (json_is_array(sub) && !strings_only(sub))) continue;
                put(p, "<tr><th scope=\"row\">");
                escs(p, key);
                put(p, ".");
                escs(p, sk);
                put(p, json_is_string(sub) || json_is_array(sub) ? "</th><td>" : "</th><td class=\"n\">");
                if (json_is_array(sub)) put_strings(p, sub);
                else if (json_is_integer(sub)) putf(p, "%" JSON_INTEGER_FORMAT, json_integer_value(sub));
                else if (json_is_real(sub)) put_real(p, json_real_value(sub));
                else if (json_is_string(sub)) esc(p, json_string_value(sub), json_string_length(sub));
                else put(p, json_is_true(sub) ? "true" : json_is_false(sub) ? "false" : "null");
                put(p, "</td></tr>");
            }
            continue;
        }
        if (json_is_array(v)) {
            /* Arrays of strings (inputs) are listed; arrays of objects are charted below. */
            if (!strings_only(v)) continue;
            put(p, "<tr><th scope=\"row\">");
            escs(p, key);
            put(p, "</th><td>");
            put_strings(p, v);
            put(p, "</td></tr>");
            continue;
        }
        put(p, "<tr><th scope=\"row\">");
        escs(p, key);
        put(p, json_is_string(v) ? "</th><td>" : "</th><td class=\"n\">");
        if (json_is_integer(v)) putf(p, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        else if (json_is_real(v)) put_real(p, json_real_value(v));
        else if (json_is_string(v)) esc(p, json_string_value(v), json_string_length(v));
        else put(p, json_is_true(v) ? "true" : json_is_false(v) ? "false" : "null");
        put(p, "</td></tr>");
    }
    put(p, "</tbody></table></div></details>\n");
}

/* Indexes 0..n-1 ordered by a key, largest first, ties in input order. */
typedef struct {
    uint64_t key;
    size_t index;
} ranked;

static int ranked_cmp(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->key != y->key) return x->key > y->key ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* ===== logs ===== */

typedef struct {
    const char *agent;
    size_t len;
    uint64_t hits, viol, delay, paths, fetches;
    uint64_t verified, unverified, spoofed, spoofed_viol;
    int has_verify;
    const char *first, *last;
    size_t first_len, last_len;
    const json_t *top_rules, *top_paths;
    int kind;          /* RS_KIND_* (the built-in crawler table; RS_KIND_OTHER when it lacks the name) */
} log_bot;

/* ===== Kinds of bots: crawlers apart from fetchers and libraries ===== */

static const char *const KIND_NAME[RS_KIND_COUNT] = {
    "search engine", "AI", "SEO", "archive", "advertising", "academic", "security scanner", "other crawler",
    "user-triggered fetcher", "HTTP library",
};

static int bot_kind(const char *agent, size_t len)
{
    const int k = rs_crawler_kind_of(agent, len);
    return k < 0 || k >= RS_KIND_COUNT ? RS_KIND_OTHER : k;
}

/* 0: crawlers (robots.txt governs them), 1: user-triggered fetchers, 2: HTTP libraries. */
static int kind_group(int kind) { return RS_KIND_IS_CRAWLER(kind) ? 0 : kind == RS_KIND_FETCHER ? 1 : 2; }

static const char *const GROUP_NAME[3] = {
    "Crawlers: robots.txt governs them",
    "User-triggered fetchers: they fetch what a person asked for (feed readers, link previews, monitors, "
    "AI assistants) and do not read robots.txt",
    "HTTP libraries and browser automation: tools anyone runs; robots.txt is not addressed to them",
};

typedef struct {
    const char *agent;
    size_t agent_len;
    const char *what;     /* rule or path */
    size_t what_len;
    const char *origin;
    size_t origin_len;
    uint64_t line;        /* rules only */
    uint64_t count;
    int crawler;          /* the bot is a crawler (robots.txt governs it) */
} log_top;

static int valid_bucket(const char *s, size_t len, int hourly)
{
    static const char HOUR[] = "dddd-dd-ddTdd", DAY[] = "dddd-dd-dd";
    const char *shape = hourly ? HOUR : DAY;
    if (len != strlen(shape)) return 0;
    for (size_t i = 0; i < len; i++) {
        if (shape[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != shape[i]) return 0;
    }
    return 1;
}

/* Seconds since the epoch of "YYYY-MM-DD[THH]" (validated already). */
static int64_t bucket_epoch(const char *s)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    tm.tm_year = atoi(s) - 1900;
    tm.tm_mon = (s[5] - '0') * 10 + (s[6] - '0') - 1;
    tm.tm_mday = (s[8] - '0') * 10 + (s[9] - '0');
    if (strlen(s) > 10) tm.tm_hour = (s[11] - '0') * 10 + (s[12] - '0');
    return (int64_t)timegm(&tm);
}

static void bucket_label(char *dst, size_t cap, int64_t epoch, int hourly)
{
    const time_t t = (time_t)epoch;
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(dst, cap, hourly ? "%Y-%m-%dT%H" : "%Y-%m-%d", &tm);
}

/* One row of hours/days: agent, bucket label, counts. */
typedef struct {
    const char *agent;
    size_t agent_len;
    char bucket[16];
    uint64_t hits, viol;
} time_row;

/* Reads the "hours" or "days" array into rows. @return count, or (size_t)-1 on error. */
static size_t read_time_rows(page *p, const json_t *arr, const char *field, int hourly, time_row **out)
{
    *out = NULL;
    const size_t n = json_array_size(arr);
    if (n == 0) return 0;
    time_row *rows = rs_calloc(n, sizeof *rows);
    if (rows == NULL) {
        p->st = RS_ERR_NOMEM;
        return (size_t)-1;
    }
    const char *name = hourly ? "hours" : "days";
    for (size_t i = 0; i < n && !p->bad; i++) {
        const json_t *e = json_array_get(arr, i);
        char where[48];
        snprintf(where, sizeof where, "%s[%zu]", name, i);
        size_t bl;
        rows[i].agent = get_str(p, e, "agent", where, 1, 0, &rows[i].agent_len);
        const char *b = get_str(p, e, field, where, 1, 0, &bl);
        get_u64(p, e, "hits", where, 1, &rows[i].hits);
        get_u64(p, e, "violations", where, 1, &rows[i].viol);
        if (b && !valid_bucket(b, bl, hourly))
            fail(p, "%s: \"%s\" is not a UTC %s (%s)", where, field, hourly ? "hour" : "day",
                 hourly ? "YYYY-MM-DDTHH" : "YYYY-MM-DD");
        else if (b)
            memcpy(rows[i].bucket, b, bl + 1);
    }
    if (p->bad) {
        rs_free(rows);
        return (size_t)-1;
    }
    *out = rows;
    return n;
}

static int col_cmp(const void *a, const void *b)
{
    return strcmp(((const col_pt *)a)->label, ((const col_pt *)b)->label);
}

/* Continuous buckets from the first to the last; NULL for none. A gap-free
 * axis only when it stays short; otherwise the buckets that occur. */
static col_pt *time_axis(page *p, const time_row *rows, size_t n, int hourly, size_t *n_out)
{
    *n_out = 0;
    if (n == 0) return NULL;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        const int64_t e = bucket_epoch(rows[i].bucket);
        lo = RS_MIN(lo, e);
        hi = RS_MAX(hi, e);
    }
    const int64_t step = hourly ? 3600 : 86400;
    const int64_t span = (hi - lo) / step + 1;
    if (span > 0 && span <= 2000) {
        col_pt *pts = rs_calloc((size_t)span, sizeof *pts);
        if (pts == NULL) {
            p->st = RS_ERR_NOMEM;
            return NULL;
        }
        for (int64_t k = 0; k < span; k++) bucket_label(pts[k].label, sizeof pts[k].label, lo + k * step, hourly);
        *n_out = (size_t)span;
        return pts;
    }
    /* Too long for one axis position per bucket: the distinct buckets, sorted. */
    col_pt *pts = rs_calloc(n, sizeof *pts);
    if (pts == NULL) {
        p->st = RS_ERR_NOMEM;
        return NULL;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = 0;
        while (j < m && strcmp(pts[j].label, rows[i].bucket)) j++;
        if (j == m) memcpy(pts[m++].label, rows[i].bucket, sizeof pts[0].label);
    }
    qsort(pts, m, sizeof *pts, col_cmp);
    *n_out = m;
    return pts;
}

static size_t axis_find(const col_pt *pts, size_t n, const char *bucket)
{
    /* Sorted labels: binary search. */
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        const int c = strcmp(pts[mid].label, bucket);
        if (c == 0) return mid;
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return (size_t)-1;
}

/* Rows of the per-bot time table at most (the chart uses them all). */
#define TIME_ROWS_MAX 10000

static int time_row_cmp(const void *a, const void *b)
{
    const time_row *x = a, *y = b;
    const int c = strcmp(x->bucket, y->bucket);
    if (c) return c;
    const int d = memcmp(x->agent, y->agent, RS_MIN(x->agent_len, y->agent_len));
    return d ? d : (x->agent_len > y->agent_len) - (x->agent_len < y->agent_len);
}

/* Sorts by (bucket, agent) and adds up rows that name the same pair. @return the rows left. */
static size_t merge_time_rows(time_row *rows, size_t n)
{
    qsort(rows, n, sizeof *rows, time_row_cmp);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && time_row_cmp(&rows[m - 1], &rows[i]) == 0) {
            rows[m - 1].hits += rows[i].hits;
            rows[m - 1].viol += rows[i].viol;
        } else {
            rows[m++] = rows[i];
        }
    }
    return m;
}

/* Hits and violations per bot over time: all bots, then the busiest bots. */
static void logs_time(page *p, const json_t *d, const log_bot *bots, const ranked *order, size_t nb)
{
    const json_t *hours = get_objs(p, d, "hours", 0);
    const json_t *days = get_objs(p, d, "days", 0);
    if (p->bad) return;
    time_row *rows = NULL;
    size_t n = 0;
    int hourly = 1, summed = 0;
    if (hours && json_array_size(hours)) {
        n = read_time_rows(p, hours, "hour", 1, &rows);
        if (n == (size_t)-1) return;
    }
    /* More than four days of hours: one column per day. */
    size_t span_hours = 0;
    rs_free(time_axis(p, rows, n, 1, &span_hours));
    if (n == 0 || span_hours > 96) {
        if (days && json_array_size(days)) {
            rs_free(rows);
            n = read_time_rows(p, days, "day", 0, &rows);
            if (n == (size_t)-1) return;
            hourly = 0;
        } else if (n) {
            for (size_t i = 0; i < n; i++) rows[i].bucket[10] = '\0';
            n = merge_time_rows(rows, n);
            hourly = 0;
            summed = 1;
        }
    }
    const char *unit = hourly ? "hour" : "day";
    char head[96];
    snprintf(head, sizeof head, "Hits and violations per %s%s", unit, summed ? " (summed from the hourly counts)" : "");
    if (n == 0) {
        put(p, "<section class=\"fig\"><h3>Hits and violations over time</h3>");
        note(p, "These statistics hold no per-hour or per-day counts.");
        put(p, "</section>");
        return;
    }
    size_t na = 0;
    col_pt *all = time_axis(p, rows, n, hourly, &na);
    if (all == NULL) {
        rs_free(rows);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const size_t k = axis_find(all, na, rows[i].bucket);
        if (k == (size_t)-1) continue;
        all[k].hits += rows[i].hits;
        all[k].viol += rows[i].viol;
    }
    figure_open(p, head);
    char title[128];
    snprintf(title, sizeof title, "All bots: hits (solid) and violations (hatched) per %s", unit);
    chart_columns(p, title, all, na, 220, 1);
    {
        static const char *const S[] = { "hits", "violations" };
        static const int F[] = { F_SOLID, F_HATCH };
        const bar_spec s = { "", S, F, 2, 0 };
        legend(p, &s);
    }
    figure_mid(p);
    {
        const char *heads[] = { unit, "hits", "violations" };
        snprintf(title, sizeof title, "All bots per %s (%s with hits)", unit, hourly ? "hours" : "days");
        size_t with_hits = 0;
        for (size_t k = 0; k < na; k++) with_hits += all[k].hits || all[k].viol;
        table_open_rows(p, title, heads, 3, 6, with_hits);
        for (size_t k = 0; k < na; k++) {
            if (all[k].hits == 0 && all[k].viol == 0) continue;
            put(p, "<tr>");
            th_row(p, all[k].label, strlen(all[k].label));
            td_u64(p, all[k].hits);
            td_u64(p, all[k].viol);
            put(p, "</tr>");
        }
        table_close(p);
    }
    figure_close(p);

    /* The busiest bots, one small chart each on the same axis. */
    const size_t shown = RS_MIN(nb, (size_t)6);
    snprintf(head, sizeof head, "Per bot, per %s: the %zu bots with most hits", unit, shown);
    figure_open(p, head);
    col_pt *one = rs_calloc(na, sizeof *one);
    if (one == NULL) {
        p->st = RS_ERR_NOMEM;
        rs_free(all);
        rs_free(rows);
        return;
    }
    for (size_t b = 0; b < shown; b++) {
        const log_bot *bot = &bots[order[b].index];
        for (size_t k = 0; k < na; k++) {
            memcpy(one[k].label, all[k].label, sizeof one[k].label);
            one[k].hits = one[k].viol = 0;
        }
        for (size_t i = 0; i < n; i++) {
            if (rows[i].agent_len != bot->len || memcmp(rows[i].agent, bot->agent, bot->len)) continue;
            const size_t k = axis_find(all, na, rows[i].bucket);
            if (k == (size_t)-1) continue;
            one[k].hits += rows[i].hits;
            one[k].viol += rows[i].viol;
        }
        put(p, "<p class=\"small\">");
        esc(p, bot->agent, bot->len);
        putf(p, " (%llu hits, %llu violations)</p>", (unsigned long long)bot->hits, (unsigned long long)bot->viol);
        char t[160];
        snprintf(t, sizeof t, "%.*s per %s", (int)RS_MIN(bot->len, (size_t)100), bot->agent, unit);
        chart_columns(p, t, one, na, b + 1 == shown ? 110 : 80, b + 1 == shown);
    }
    rs_free(one);
    figure_mid(p);
    {
        const char *heads[] = { "agent", unit, "hits", "violations" };
        snprintf(title, sizeof title, "Every bot per %s%s", unit, summed ? " (summed from the hourly counts)" : "");
        table_open_rows(p, title, heads, 4, 12, RS_MIN(n, (size_t)TIME_ROWS_MAX));
        /* Rows as the file lists them (summed to days: merged per agent and day, by day). */
        const size_t listed = RS_MIN(n, (size_t)TIME_ROWS_MAX);
        for (size_t i = 0; i < listed; i++) {
            put(p, "<tr>");
            th_row(p, rows[i].agent, rows[i].agent_len);
            td_str(p, rows[i].bucket, strlen(rows[i].bucket));
            td_u64(p, rows[i].hits);
            td_u64(p, rows[i].viol);
            put(p, "</tr>");
        }
        table_close(p);
        if (n > listed) {
            char msg[128];
            snprintf(msg, sizeof msg, "The table lists the first %zu of %zu rows; the statistics file has them all.",
                     listed, n);
            note(p, msg);
        }
    }
    figure_close(p);
    rs_free(all);
    rs_free(rows);
}

/* Reads bots[i].top_rules or .top_paths into @tops (appending). */
static size_t logs_tops(page *p, const log_bot *bots, size_t nb, int paths, log_top **out)
{
    size_t n = 0;
    for (size_t b = 0; b < nb; b++) {
        const json_t *a = paths ? bots[b].top_paths : bots[b].top_rules;
        n += a ? json_array_size(a) : 0;
    }
    *out = NULL;
    if (n == 0) return 0;
    log_top *t = rs_calloc(n, sizeof *t);
    if (t == NULL) {
        p->st = RS_ERR_NOMEM;
        return 0;
    }
    size_t m = 0;
    for (size_t b = 0; b < nb && !p->bad; b++) {
        const json_t *a = paths ? bots[b].top_paths : bots[b].top_rules;
        for (size_t i = 0; a && i < json_array_size(a) && !p->bad; i++) {
            const json_t *e = json_array_get(a, i);
            char where[96];
            snprintf(where, sizeof where, "bots[%zu].%s[%zu]", b, paths ? "top_paths" : "top_rules", i);
            log_top *x = &t[m++];
            x->agent = bots[b].agent;
            x->agent_len = bots[b].len;
            x->crawler = RS_KIND_IS_CRAWLER(bots[b].kind);
            x->origin = get_str(p, e, "origin", where, !paths, 0, &x->origin_len);
            x->what = get_str(p, e, paths ? "path" : "rule", where, 1, 0, &x->what_len);
            if (!paths) get_u64(p, e, "line", where, 1, &x->line);
            get_u64(p, e, "count", where, 1, &x->count);
        }
    }
    *out = t;
    return m;
}

static void logs_top_figure(page *p, const log_top *t, size_t n, int paths)
{
    ranked *r = rs_calloc(n ? n : 1, sizeof *r);
    bar_row *rows = rs_calloc(RS_MIN(n, (size_t)15) + 1, sizeof *rows);
    char (*labels)[200] = rs_calloc(RS_MIN(n, (size_t)15) + 1, sizeof *labels);
    if (r == NULL || rows == NULL || labels == NULL) {
        p->st = RS_ERR_NOMEM;
        goto out;
    }
    /* The chart: crawlers' violations only; the table lists every bot's. */
    size_t nc = 0;
    for (size_t i = 0; i < n; i++)
        if (t[i].crawler) r[nc++] = (ranked){ t[i].count, i };
    qsort(r, nc, sizeof *r, ranked_cmp);
    const size_t shown = RS_MIN(nc, (size_t)15);
    for (size_t i = 0; i < shown; i++) {
        const log_top *x = &t[r[i].index];
        const int len = snprintf(labels[i], sizeof labels[i], "%.*s: %.*s", (int)RS_MIN(x->agent_len, (size_t)60),
                                 x->agent, (int)RS_MIN(x->what_len, (size_t)120), x->what);
        rows[i].label = labels[i];
        rows[i].len = RS_MIN((size_t)len, sizeof labels[i] - 1);
        rows[i].v[0] = x->count;
    }
    static const char *const S[] = { "violating hits" };
    static const int F[] = { F_HATCH };
    figure_open(p, paths ? "Top violated paths (crawlers)" : "Top violated rules (crawlers)");
    const bar_spec s = { paths ? "Crawlers' violating hits per crawler and path"
                               : "Crawlers' violating hits per crawler and rule", S, F, 1, 0 };
    if (shown) chart_hbars(p, &s, rows, shown);
    else note(p, "No crawler broke a rule.");
    if (n > shown) {
        char msg[160];
        snprintf(msg, sizeof msg, "The chart shows the %zu largest of the crawlers' %zu; the table lists all %zu, "
                 "fetchers' and libraries' too.", shown, nc, n);
        note(p, msg);
    }
    /* the table: every bot's, largest first */
    for (size_t i = 0; i < n; i++) r[i] = (ranked){ t[i].count, i };
    qsort(r, n, sizeof *r, ranked_cmp);
    figure_mid(p);
    if (paths) {
        const char *heads[] = { "agent", "origin", "path", "violating hits" };
        table_open_rows(p, "Violated paths per bot (as listed in the statistics)", heads, 4, 8, n);
    } else {
        const char *heads[] = { "agent", "origin", "line", "rule", "violating hits" };
        table_open_rows(p, "Violated rules per bot (each bot's top rules, as listed in the statistics)", heads, 5, 20, n);
    }
    for (size_t i = 0; i < n; i++) {
        const log_top *x = &t[r[i].index];
        put(p, "<tr>");
        th_row(p, x->agent, x->agent_len);
        td_str(p, x->origin ? x->origin : "", x->origin_len);
        if (!paths) td_u64(p, x->line);
        td_str(p, x->what, x->what_len);
        td_u64(p, x->count);
        put(p, "</tr>");
    }
    table_close(p);
    figure_close(p);
out:
    rs_free(r);
    rs_free(rows);
    rs_free(labels);
}

/* A one-number-per-bot figure over the bots where it is not zero. */
static void logs_bot_figure(page *p, const char *heading, const char *series, int fill, const log_bot *bots,
                            size_t nb, size_t field_offset, const char *none, int with_fetch_times)
{
    ranked *r = rs_calloc(nb ? nb : 1, sizeof *r);
    bar_row *rows = rs_calloc(nb ? nb : 1, sizeof *rows);
    if (r == NULL || rows == NULL) {
        p->st = RS_ERR_NOMEM;
        rs_free(r);
        rs_free(rows);
        return;
    }
    size_t m = 0;
    for (size_t b = 0; b < nb; b++) {
        const uint64_t v = *(const uint64_t *)(const void *)((const char *)&bots[b] + field_offset);
        if (v) r[m++] = (ranked){ v, b };
    }
    qsort(r, m, sizeof *r, ranked_cmp);
    put(p, "<section class=\"fig\"><h3>");
    escs(p, heading);
    put(p, "</h3>");
    if (m == 0) {
        note(p, none);
        put(p, "</section>\n");
        rs_free(r);
        rs_free(rows);
        return;
    }
    put(p, "<div class=\"pair\"><div class=\"plot\">");
    const size_t shown = RS_MIN(m, (size_t)25);
    for (size_t i = 0; i < shown; i++) {
        rows[i].label = bots[r[i].index].agent;
        rows[i].len = bots[r[i].index].len;
        rows[i].v[0] = r[i].key;
    }
    const char *S[] = { series };
    const int F[] = { fill };
    const bar_spec s = { heading, S, F, 1, 0 };
    chart_hbars(p, &s, rows, shown);
    figure_mid(p);
    if (with_fetch_times) {
        const char *heads[] = { "agent", series, "first fetch", "last fetch" };
        table_open_rows(p, heading, heads, 4, 2, m);
    } else {
        const char *heads[] = { "agent", series, "hits" };
        table_open_rows(p, heading, heads, 3, 6, m);
    }
    for (size_t i = 0; i < m; i++) {
        const log_bot *b = &bots[r[i].index];
        put(p, "<tr>");
        th_row(p, b->agent, b->len);
        td_u64(p, r[i].key);
        if (with_fetch_times) {
            td_str(p, b->first ? b->first : "-", b->first ? b->first_len : 1);
            td_str(p, b->last ? b->last : "-", b->last ? b->last_len : 1);
        } else {
            td_u64(p, b->hits);
        }
        put(p, "</tr>");
    }
    table_close(p);
    figure_close(p);
    rs_free(r);
    rs_free(rows);
}

/* Ranks bots of group @g (-1: crawlers and the rest) by violations, then hits. */
static size_t rank_group(const log_bot *bots, size_t nb, int g, ranked *r)
{
    size_t m = 0;
    for (size_t b = 0; b < nb; b++) {
        if (kind_group(bots[b].kind) != g) continue;
        /* violations above hits: a key that sorts by (violations, hits) */
        r[m++] = (ranked){ (bots[b].viol << 24) | RS_MIN(bots[b].hits, (uint64_t)0xffffff), b };
    }
    qsort(r, m, sizeof *r, ranked_cmp);
    return m;
}

/* One bar chart of hits and violations for the bots of a group. */
static void group_chart(page *p, const char *heading, const char *violations_name, const log_bot *bots,
                        const ranked *r, size_t m, bar_row *rows)
{
    const size_t shown = RS_MIN(m, (size_t)30);
    for (size_t i = 0; i < shown; i++) {
        const log_bot *b = &bots[r[i].index];
        rows[i] = (bar_row){ b->agent, b->len, { b->hits, b->viol } };
    }
    const char *S[] = { "hits", violations_name };
    static const int F[] = { F_SOLID, F_HATCH };
    const bar_spec s = { heading, S, F, 2, 0 };
    chart_hbars(p, &s, rows, shown);
    if (m > shown) {
        char msg[128];
        snprintf(msg, sizeof msg, "The chart shows the %zu with most violations; the table below lists all %zu.",
                 shown, m);
        note(p, msg);
    }
}

static void put_big(page *p, uint64_t v, const char *what)
{
    put(p, "<div class=\"big\"><b>");
    put_u64(p, v);
    put(p, "</b> ");
    escs(p, what);
    put(p, "</div>");
}

static void render_logs(page *p, const json_t *d)
{
    uint64_t lines = 0;
    get_u64(p, d, "lines", "", 1, &lines);
    const json_t *jb = get_objs(p, d, "bots", 1);
    if (p->bad) return;
    const size_t nb = json_array_size(jb);
    log_bot *bots = rs_calloc(nb ? nb : 1, sizeof *bots);
    ranked *order = rs_calloc(nb ? nb : 1, sizeof *order);
    bar_row *rows = rs_calloc(nb ? nb : 1, sizeof *rows);
    log_top *tops = NULL;
    if (bots == NULL || order == NULL || rows == NULL) {
        p->st = RS_ERR_NOMEM;
        goto out;
    }
    int any_verify = 0, any_paths = 0, any_spoofed_viol = 0, verified_any = 0;
    for (size_t i = 0; i < nb && !p->bad; i++) {
        const json_t *e = json_array_get(jb, i);
        char where[32];
        snprintf(where, sizeof where, "bots[%zu]", i);
        log_bot *b = &bots[i];
        b->agent = get_str(p, e, "agent", where, 1, 0, &b->len);
        get_u64(p, e, "hits", where, 1, &b->hits);
        get_u64(p, e, "violations", where, 1, &b->viol);
        get_u64(p, e, "delay_violations", where, 1, &b->delay);
        get_u64(p, e, "distinct_violated_paths", where, 1, &b->paths);
        get_u64(p, e, "robots_txt_fetches", where, 1, &b->fetches);
        b->first = get_str(p, e, "first_robots_txt_fetch", where, 0, 1, &b->first_len);
        b->last = get_str(p, e, "last_robots_txt_fetch", where, 0, 1, &b->last_len);
        /* Bot verification (logs --verify): all optional. */
        b->has_verify |= get_u64(p, e, "verified", where, 0, &b->verified);
        b->has_verify |= get_u64(p, e, "unverified", where, 0, &b->unverified);
        b->has_verify |= get_u64(p, e, "spoofed", where, 0, &b->spoofed);
        any_spoofed_viol |= get_u64(p, e, "spoofed_violations", where, 0, &b->spoofed_viol);
        any_verify |= b->has_verify;
        verified_any |= b->verified > 0 || b->spoofed > 0;
        const json_t *tr = json_object_get(e, "top_rules"), *tp = json_object_get(e, "top_paths");
        if (tr && !json_is_array(tr)) fail(p, "%s: \"top_rules\" is not an array", where);
        if (tp && !json_is_array(tp)) fail(p, "%s: \"top_paths\" is not an array", where);
        b->top_rules = tr;
        b->top_paths = tp;
        any_paths |= tp != NULL;
        order[i] = (ranked){ b->hits, i };
        if (b->agent) b->kind = bot_kind(b->agent, b->len);
    }
    if (p->bad) goto out;
    qsort(order, nb, sizeof *order, ranked_cmp);

    if (nb == 0) {
        char msg[160];
        snprintf(msg, sizeof msg, "Nothing to show: no crawler hits among the %llu lines read.",
                 (unsigned long long)lines);
        put(p, "<p class=\"empty\">");
        escs(p, msg);
        put(p, "</p>");
        goto out;
    }

    /* What a site owner asks first: which crawlers broke robots.txt. */
    uint64_t gh[3] = { 0 }, gv[3] = { 0 }, gdelay = 0;
    size_t gn[3] = { 0 }, gviolators[3] = { 0 };
    for (size_t i = 0; i < nb; i++) {
        const int g = kind_group(bots[i].kind);
        gh[g] += bots[i].hits;
        gv[g] += bots[i].viol;
        gn[g]++;
        gviolators[g] += bots[i].viol > 0;
        if (g == 0) gdelay += bots[i].delay;
    }
    {
        put(p, "<section class=\"glance\" aria-label=\"At a glance\"><div class=\"bigs\">");
        char what[200];
        snprintf(what, sizeof what, "crawler hits broke robots.txt (of %llu crawler hits, by %zu of %zu crawlers)",
                 (unsigned long long)gh[0], gviolators[0], gn[0]);
        put_big(p, gv[0], what);
        put_big(p, gdelay, "crawler hits came sooner than Crawl-delay allows");
        snprintf(what, sizeof what, "hits on disallowed paths by %zu user-triggered fetchers and %zu HTTP libraries "
                 "(robots.txt does not govern them; shown apart below)", gn[1], gn[2]);
        put(p, "<div class=\"big other\"><b>");
        put_u64(p, gv[1] + gv[2]);
        put(p, "</b> ");
        escs(p, what);
        put(p, "</div></div>");
        /* The crawlers with most violations, by name. */
        const size_t m = rank_group(bots, nb, 0, order);
        if (m && bots[order[0].index].viol) {
            put(p, "<p class=\"lead\">Most violations: ");
            for (size_t i = 0; i < RS_MIN(m, (size_t)5) && bots[order[i].index].viol; i++) {
                const log_bot *b = &bots[order[i].index];
                if (i) put(p, ", ");
                put(p, "<b>");
                esc(p, b->agent, b->len);
                putf(p, "</b> %llu (", (unsigned long long)b->viol);
                escs(p, KIND_NAME[b->kind]);
                put(p, ")");
            }
            put(p, "</p>");
        } else {
            put(p, "<p class=\"lead\">No crawler fetched a URL robots.txt disallows.</p>");
        }
        /* Crawlers by kind: violations, hits and how many crawlers, largest first. */
        uint64_t kh[RS_KIND_COUNT] = { 0 }, kv[RS_KIND_COUNT] = { 0 };
        size_t kn[RS_KIND_COUNT] = { 0 };
        for (size_t i = 0; i < nb; i++) {
            kh[bots[i].kind] += bots[i].hits;
            kv[bots[i].kind] += bots[i].viol;
            kn[bots[i].kind]++;
        }
        ranked kr[RS_KIND_COUNT];
        size_t nk = 0;
        for (int k = 0; k < RS_KIND_FETCHER; k++)
            if (kn[k]) kr[nk++] = (ranked){ (kv[k] << 24) | RS_MIN(kh[k], (uint64_t)0xffffff), (size_t)k };
        qsort(kr, nk, sizeof *kr, ranked_cmp);
        if (nk) {
            put(p, "<p class=\"lead\">Crawlers by kind: ");
            for (size_t i = 0; i < nk; i++) {
                const size_t k = kr[i].index;
                if (i) put(p, "; ");
                put(p, "<b>");
                escs(p, KIND_NAME[k]);
                putf(p, "</b> %llu violations of %llu hits (%zu crawler%s)", (unsigned long long)kv[k],
                     (unsigned long long)kh[k], kn[k], kn[k] == 1 ? "" : "s");
            }
            put(p, "</p>");
        }
        put(p, "</section>\n");
    }

    /* Crawlers, then the others apart. */
    put(p, "<section class=\"fig\"><h3>Crawlers: hits and violations (URLs robots.txt disallows)</h3>");
    {
        const size_t m = rank_group(bots, nb, 0, order);
        if (m) group_chart(p, "Crawlers: hits and violations per crawler", "violations", bots, order, m, rows);
        else note(p, "No crawler in these logs.");
    }
    put(p, "</section>\n");
    if (gn[1] + gn[2]) {
        put(p, "<section class=\"fig\"><h3>User-triggered fetchers and HTTP libraries, apart</h3>");
        note(p, "robots.txt governs crawlers. Fetchers act on a person's request (a feed reader polling a feed, a "
                "link preview, an AI assistant opening a page it was asked about) and, as Google documents for its "
                "own, generally ignore robots.txt; HTTP libraries are tools anyone runs. Their hits on disallowed "
                "paths are counted, not headlined.");
        for (int g = 1; g <= 2; g++) {
            const size_t m = rank_group(bots, nb, g, order);
            if (m == 0) continue;
            group_chart(p, g == 1 ? "User-triggered fetchers: hits and hits on disallowed paths"
                                  : "HTTP libraries: hits and hits on disallowed paths",
                        "on disallowed paths", bots, order, m, rows);
        }
        put(p, "</section>\n");
    }

    /* Every bot, grouped. */
    put(p, "<section class=\"fig\"><h3>Every bot</h3>");
    {
        const char *heads[] = { "agent", "hits", "violations", "crawl-delay violations", "distinct violated paths",
                                "robots.txt fetches", "verified", "unverified", "spoofed", "spoofed violations",
                                "kind" };
        const size_t nh = any_verify ? (any_spoofed_viol ? 10 : 9) : 6;
        const char *hv[11];
        memcpy(hv, heads, nh * sizeof *hv);
        hv[nh] = "kind";
        /* Long headings wrap; numbers never do. */
        table_open(p, "Every bot (violations: hits on URLs robots.txt disallows for that bot)", hv, nh + 1,
                   0x3fe & ((1u << nh) - 1));
        for (int g = 0; g < 3; g++) {
            const size_t m = rank_group(bots, nb, g, order);
            if (m == 0) continue;
            putf(p, "<tr class=\"grp\"><th colspan=\"%zu\" scope=\"rowgroup\">", nh + 1);
            escs(p, GROUP_NAME[g]);
            putf(p, " (%zu)</th></tr>", m);
            for (size_t i = 0; i < m; i++) {
                const log_bot *b = &bots[order[i].index];
                put(p, "<tr>");
                th_row(p, b->agent, b->len);
                td_u64(p, b->hits);
                td_u64(p, b->viol);
                td_u64(p, b->delay);
                td_u64(p, b->paths);
                td_u64(p, b->fetches);
                if (any_verify) {
                    td_u64(p, b->verified);
                    td_u64(p, b->unverified);
                    td_u64(p, b->spoofed);
                    if (any_spoofed_viol) td_u64(p, b->spoofed_viol);
                }
                put(p, "<td class=\"k\">");
                escs(p, KIND_NAME[b->kind]);
                put(p, "</td>");
                put(p, "</tr>");
            }
        }
        table_close(p);
    }
    put(p, "</section>\n");
    /* The time charts take the busiest bots first. */
    for (size_t i = 0; i < nb; i++) order[i] = (ranked){ bots[i].hits, i };
    qsort(order, nb, sizeof *order, ranked_cmp);

    logs_time(p, d, bots, order, nb);
    if (p->bad) goto out;

    size_t nt = logs_tops(p, bots, nb, 0, &tops);
    if (p->bad) goto out;
    if (nt) {
        logs_top_figure(p, tops, nt, 0);
    } else {
        put(p, "<section class=\"fig\"><h3>Top violated rules</h3>");
        note(p, "No hit was disallowed by a rule.");
        put(p, "</section>");
    }
    rs_free(tops);
    tops = NULL;
    if (any_paths) {
        nt = logs_tops(p, bots, nb, 1, &tops);
        if (p->bad) goto out;
        if (nt) logs_top_figure(p, tops, nt, 1);
    }
    if (!any_paths || nt == 0)
        logs_bot_figure(p, "Distinct violated paths per bot", "distinct violated paths", F_HATCH, bots, nb,
                        offsetof(log_bot, paths), "No path was violated.", 0);
    logs_bot_figure(p, "Crawl-delay violations per bot", "crawl-delay violations", F_DOTS, bots, nb,
                    offsetof(log_bot, delay), "No hit came sooner than its site's Crawl-delay allows.", 0);
    if (any_verify && verified_any)
        logs_bot_figure(p, "Spoofed hits per claimed bot", "spoofed hits", F_CROSS, bots, nb,
                        offsetof(log_bot, spoofed), "No hit claimed a bot's name from outside its published "
                        "address ranges.", 0);
    else {
        put(p, "<section class=\"fig\"><h3>Spoofed hits</h3>");
        note(p, any_verify ? "Not checked: no hit was verified or found spoofed (logs --verify checks client "
                             "addresses against the bots' published ranges)."
                           : "Not checked: these statistics hold no verification counts (logs --verify checks "
                             "client addresses against the bots' published ranges).");
        put(p, "</section>");
    }
    logs_bot_figure(p, "robots.txt fetches per bot", "robots.txt fetches", F_LINES, bots, nb,
                    offsetof(log_bot, fetches), "No bot fetched /robots.txt in these logs.", 1);
out:
    rs_free(tops);
    rs_free(bots);
    rs_free(order);
    rs_free(rows);
}

/* ===== urls ===== */

static void render_urls(page *p, const json_t *d)
{
    uint64_t urls = 0, allow = 0, disallow = 0;
    get_u64(p, d, "urls", "", 1, &urls);
    const json_t *verdicts = json_object_get(d, "verdicts");
    json_t *reasons = json_object_get(d, "reasons");
    if (!json_is_object(verdicts)) fail(p, "\"verdicts\" is missing or not an object");
    if (!json_is_object(reasons)) fail(p, "\"reasons\" is missing or not an object");
    if (p->bad) return;
    get_u64(p, verdicts, "allow", "verdicts", 1, &allow);
    get_u64(p, verdicts, "disallow", "verdicts", 1, &disallow);
    const json_t *origins = get_objs(p, d, "origins", 1);
    const json_t *rules = get_objs(p, d, "rules", 1);
    if (p->bad) return;
    const size_t nr = json_object_size(reasons), no = json_array_size(origins), nu = json_array_size(rules);
    const size_t cap = RS_MAX(RS_MAX(nr, no), RS_MAX(nu, (size_t)2));
    bar_row *rows = rs_calloc(cap, sizeof *rows);
    ranked *r = rs_calloc(cap, sizeof *r);
    char (*labels)[200] = rs_calloc(cap, sizeof *labels);
    if (rows == NULL || r == NULL || labels == NULL) {
        p->st = RS_ERR_NOMEM;
        goto out;
    }
    /* Validate everything before drawing anything. */
    {
        const char *k;
        json_t *v;
        json_object_foreach(reasons, k, v) {
            if (!json_is_integer(v) || json_integer_value(v) < 0) fail(p, "reasons: \"%s\" is not a non-negative integer", k);
        }
    }
    for (size_t i = 0; i < no && !p->bad; i++) {
        char where[40];
        snprintf(where, sizeof where, "origins[%zu]", i);
        size_t l;
        uint64_t a, b;
        const json_t *e = json_array_get(origins, i);
        get_str(p, e, "origin", where, 1, 0, &l);
        get_u64(p, e, "allow", where, 1, &a);
        get_u64(p, e, "disallow", where, 1, &b);
        r[i] = (ranked){ a + b, i };
    }
    for (size_t i = 0; i < nu && !p->bad; i++) {
        char where[40];
        snprintf(where, sizeof where, "rules[%zu]", i);
        size_t l;
        uint64_t x;
        const json_t *e = json_array_get(rules, i);
        get_str(p, e, "origin", where, 1, 0, &l);
        get_str(p, e, "rule", where, 1, 0, &l);
        get_u64(p, e, "line", where, 1, &x);
        get_u64(p, e, "count", where, 1, &x);
    }
    if (p->bad) goto out;
    if (urls == 0) {
        put(p, "<p class=\"empty\">Nothing to show: this run checked no URLs.</p>");
        goto out;
    }

    /* Verdicts by reason. */
    figure_open(p, "Verdicts by reason");
    {
        size_t i = 0;
        const char *k;
        json_t *v;
        json_object_foreach(reasons, k, v) {
            rows[i] = (bar_row){ k, strlen(k), { (uint64_t)json_integer_value(v) } };
            i++;
        }
        static const char *const S[] = { "URLs" };
        static const int F[] = { F_SOLID };
        const bar_spec s = { "URLs per reason", S, F, 1, 0 };
        chart_hbars(p, &s, rows, nr);
        bar_row vr = { "all URLs", 8, { allow, disallow } };
        static const char *const S2[] = { "allow", "disallow" };
        static const int F2[] = { F_SOLID, F_HATCH };
        const bar_spec s2 = { "Allowed and disallowed URLs", S2, F2, 2, 1 };
        chart_hbars(p, &s2, &vr, 1);
    }
    figure_mid(p);
    {
        const char *heads[] = { "reason", "URLs", "share" };
        table_open(p, "URLs per reason", heads, 3, 6);
        const char *k;
        json_t *v;
        json_object_foreach(reasons, k, v) {
            put(p, "<tr>");
            th_row(p, k, strlen(k));
            td_u64(p, (uint64_t)json_integer_value(v));
            td_pct(p, (uint64_t)json_integer_value(v), urls);
            put(p, "</tr>");
        }
        table_close(p);
        const char *vh[] = { "verdict", "URLs", "share" };
        table_open(p, "URLs per verdict", vh, 3, 6);
        put(p, "<tr><th scope=\"row\">allow</th>");
        td_u64(p, allow);
        td_pct(p, allow, urls);
        put(p, "</tr><tr><th scope=\"row\">disallow</th>");
        td_u64(p, disallow);
        td_pct(p, disallow, urls);
        put(p, "</tr>");
        table_close(p);
    }
    figure_close(p);

    /* Top origins. */
    if (no) {
        qsort(r, no, sizeof *r, ranked_cmp);
        const size_t shown = RS_MIN(no, (size_t)20), listed = RS_MIN(no, (size_t)500);
        for (size_t i = 0; i < shown; i++) {
            const json_t *e = json_array_get(origins, r[i].index);
            const json_t *o = json_object_get(e, "origin");
            rows[i] = (bar_row){ json_string_value(o), json_string_length(o),
                                 { (uint64_t)json_integer_value(json_object_get(e, "allow")),
                                   (uint64_t)json_integer_value(json_object_get(e, "disallow")) } };
        }
        figure_open(p, "Top origins");
        static const char *const S[] = { "allow", "disallow" };
        static const int F[] = { F_SOLID, F_HATCH };
        const bar_spec s = { "Allowed and disallowed URLs of the origins with most URLs", S, F, 2, 1 };
        chart_hbars(p, &s, rows, shown);
        char msg[128];
        snprintf(msg, sizeof msg, "%zu origins; the chart shows the %zu with most URLs, the table %s.", no, shown,
                 listed < no ? "the first 500" : "all of them");
        note(p, msg);
        figure_mid(p);
        const char *heads[] = { "origin", "allow", "disallow", "disallowed share" };
        table_open_rows(p, "URLs per origin", heads, 4, 14, listed);
        for (size_t i = 0; i < listed; i++) {
            const json_t *e = json_array_get(origins, r[i].index);
            const json_t *o = json_object_get(e, "origin");
            const uint64_t a = (uint64_t)json_integer_value(json_object_get(e, "allow"));
            const uint64_t b = (uint64_t)json_integer_value(json_object_get(e, "disallow"));
            put(p, "<tr>");
            th_row(p, json_string_value(o), json_string_length(o));
            td_u64(p, a);
            td_u64(p, b);
            td_pct(p, b, a + b);
            put(p, "</tr>");
        }
        table_close(p);
        figure_close(p);
    }

    /* Top rules. */
    if (nu == 0) {
        put(p, "<section class=\"fig\"><h3>Top rules</h3>");
        note(p, "No URL was decided by a rule.");
        put(p, "</section>");
        goto out;
    }
    for (size_t i = 0; i < nu; i++)
        r[i] = (ranked){ (uint64_t)json_integer_value(json_object_get(json_array_get(rules, i), "count")), i };
    qsort(r, nu, sizeof *r, ranked_cmp);
    {
        const size_t shown = RS_MIN(nu, (size_t)20), listed = RS_MIN(nu, (size_t)500);
        for (size_t i = 0; i < shown; i++) {
            const json_t *e = json_array_get(rules, r[i].index);
            const int len = snprintf(labels[i], sizeof labels[i], "%s %s", json_string_value(json_object_get(e, "origin")),
                                     json_string_value(json_object_get(e, "rule")));
            rows[i] = (bar_row){ labels[i], RS_MIN((size_t)len, sizeof labels[i] - 1), { r[i].key } };
        }
        figure_open(p, "Top rules");
        static const char *const S[] = { "URLs" };
        static const int F[] = { F_DOTS };
        const bar_spec s = { "URLs decided by each rule (the rules that decided most URLs)", S, F, 1, 0 };
        chart_hbars(p, &s, rows, shown);
        char msg[128];
        snprintf(msg, sizeof msg, "%zu rules decided URLs; the chart shows %zu, the table %s.", nu, shown,
                 listed < nu ? "the first 500" : "all of them");
        note(p, msg);
        figure_mid(p);
        const char *heads[] = { "origin", "line", "rule", "URLs" };
        table_open_rows(p, "URLs per deciding rule", heads, 4, 10, listed);
        for (size_t i = 0; i < listed; i++) {
            const json_t *e = json_array_get(rules, r[i].index);
            const json_t *o = json_object_get(e, "origin"), *ru = json_object_get(e, "rule");
            put(p, "<tr>");
            th_row(p, json_string_value(o), json_string_length(o));
            td_u64(p, (uint64_t)json_integer_value(json_object_get(e, "line")));
            td_str(p, json_string_value(ru), json_string_length(ru));
            td_u64(p, r[i].key);
            put(p, "</tr>");
        }
        table_close(p);
        figure_close(p);
    }
out:
    rs_free(rows);
    rs_free(r);
    rs_free(labels);
}

/* ===== survey and diff: one row of counts per agent (or origin) ===== */

typedef struct {
    const char *key;       /* JSON field */
    const char *name;      /* column and series name */
    int fill;
    int charted;           /* part of the stacked bar */
    int required;
} count_col;

/* Reads @arr's entries (label field @label_key) with @cols counts each;
 * draws a stacked bar per entry (top @chart_max by @rank_cols) beside a table. */
static void counts_figure(page *p, const char *heading, const char *chart_title, const json_t *arr,
                          const char *arr_name, const char *label_key, const char *label2_key,
                          const count_col *cols, int ncols, unsigned rank_cols, size_t chart_max,
                          size_t table_max, const char *share_name, unsigned share_num, int share_den,
                          int skip_zero)
{
    size_t n = json_array_size(arr);
    const size_t n_all = n;
    uint64_t *v = rs_calloc(n * (size_t)ncols + 1, sizeof *v);
    uint8_t *has = rs_calloc(n * (size_t)ncols + 1, 1);
    ranked *r = rs_calloc(n + 1, sizeof *r);
    bar_row *rows = rs_calloc(RS_MIN(n, chart_max) + 1, sizeof *rows);
    char (*labels)[160] = rs_calloc(RS_MIN(n, chart_max) + 1, sizeof *labels);
    unsigned present = 0;
    if (v == NULL || has == NULL || r == NULL || rows == NULL || labels == NULL) {
        p->st = RS_ERR_NOMEM;
        goto out;
    }
    for (size_t i = 0; i < n && !p->bad; i++) {
        const json_t *e = json_array_get(arr, i);
        char where[48];
        snprintf(where, sizeof where, "%s[%zu]", arr_name, i);
        size_t l;
        get_str(p, e, label_key, where, 1, 0, &l);
        if (label2_key) get_str(p, e, label2_key, where, 0, 0, &l);
        uint64_t rank = 0;
        for (int c = 0; c < ncols; c++) {
            has[i * (size_t)ncols + (size_t)c] =
                (uint8_t)get_u64(p, e, cols[c].key, where, cols[c].required, &v[i * (size_t)ncols + (size_t)c]);
            if (has[i * (size_t)ncols + (size_t)c]) present |= 1u << c;
            if (rank_cols & (1u << c)) rank += v[i * (size_t)ncols + (size_t)c];
        }
        r[i] = (ranked){ rank, i };
    }
    if (p->bad) goto out;
    qsort(r, n, sizeof *r, ranked_cmp);
    /* @skip_zero: only the entries whose ranking counts are not all zero (sorted last). */
    while (skip_zero && n > 0 && r[n - 1].key == 0) n--;
    if (n == 0) {
        put(p, "<section class=\"fig\"><h3>");
        escs(p, heading);
        put(p, "</h3>");
        char msg[96];
        snprintf(msg, sizeof msg, "None of the %zu entries has any.", n_all);
        note(p, msg);
        put(p, "</section>\n");
        goto out;
    }
    figure_open_as(p, heading, 1);
    const char *S[MAX_SERIES];
    int F[MAX_SERIES], map[MAX_SERIES];
    int ns = 0;
    for (int c = 0; c < ncols && ns < MAX_SERIES; c++)
        if (cols[c].charted) {
            S[ns] = cols[c].name;
            F[ns] = cols[c].fill;
            map[ns++] = c;
        }
    const size_t shown = RS_MIN(n, chart_max);
    for (size_t i = 0; i < shown; i++) {
        const json_t *e = json_array_get(arr, r[i].index);
        const json_t *lab = json_object_get(e, label_key);
        const json_t *lab2 = label2_key ? json_object_get(e, label2_key) : NULL;
        int len = snprintf(labels[i], sizeof labels[i], "%s%s%s", json_string_value(lab), lab2 ? " " : "",
                           lab2 ? json_string_value(lab2) : "");
        rows[i].label = labels[i];
        rows[i].len = RS_MIN((size_t)len, sizeof labels[i] - 1);
        for (int k = 0; k < ns; k++) rows[i].v[k] = v[r[i].index * (size_t)ncols + (size_t)map[k]];
    }
    const bar_spec s = { chart_title, S, F, ns, 1 };
    chart_hbars(p, &s, rows, shown);
    if (n > shown || n < n_all) {
        char msg[200];
        snprintf(msg, sizeof msg, "The chart shows %zu of %zu; the table lists %s.%s", shown, n,
                 n > table_max ? "the largest ones" : "all of them",
                 n < n_all ? " Entries without any are left out." : "");
        note(p, msg);
    }
    figure_mid(p);
    const char *heads[MAX_SERIES * 2 + 3];
    int hn = 0, colix[MAX_SERIES * 2];
    heads[hn++] = label_key;
    if (label2_key) heads[hn++] = label2_key;
    const int first_num = hn;
    int nc = 0;
    for (int c = 0; c < ncols; c++)
        if (present & (1u << c) || cols[c].required) {
            heads[hn++] = cols[c].name;
            colix[nc++] = c;
        }
    if (share_name) heads[hn++] = share_name;
    unsigned numeric = 0;
    for (int h = first_num; h < hn; h++) numeric |= 1u << h;
    table_open_rows(p, heading, heads, (size_t)hn, numeric, RS_MIN(n, table_max));
    for (size_t i = 0; i < RS_MIN(n, table_max); i++) {
        const size_t x = r[i].index;
        const json_t *e = json_array_get(arr, x);
        const json_t *lab = json_object_get(e, label_key);
        put(p, "<tr>");
        th_row(p, json_string_value(lab), json_string_length(lab));
        if (label2_key) {
            const json_t *lab2 = json_object_get(e, label2_key);
            if (lab2) td_str(p, json_string_value(lab2), json_string_length(lab2));
            else td_str(p, "", 0);
        }
        uint64_t total = 0;
        for (int k = 0; k < ns; k++) total += v[x * (size_t)ncols + (size_t)map[k]];
        for (int c = 0; c < nc; c++) td_u64(p, v[x * (size_t)ncols + (size_t)colix[c]]);
        if (share_name) {
            uint64_t num = 0;
            for (int c = 0; c < ncols; c++)
                if (share_num & (1u << c)) num += v[x * (size_t)ncols + (size_t)c];
            td_pct(p, num, share_den < 0 ? total : v[x * (size_t)ncols + (size_t)share_den]);
        }
        put(p, "</tr>");
    }
    table_close(p);
    figure_close(p);
out:
    rs_free(v);
    rs_free(has);
    rs_free(r);
    rs_free(rows);
    rs_free(labels);
}

static void render_survey(page *p, const json_t *d)
{
    static const count_col COLS[] = {
        { "blocked", "blocked", F_HATCH, 1, 1 },         { "partial", "partial", F_DOTS, 1, 1 },
        { "open", "open", F_SOLID, 1, 1 },               { "unavailable", "unavailable", F_CROSS, 1, 1 },
        { "unreachable", "unreachable", F_LINES, 1, 1 }, { "named", "named group", 0, 0, 0 },
        { "star", "falls to *", 0, 0, 0 },               { "none", "no group", 0, 0, 0 },
        { "crawl_delay", "with crawl-delay", 0, 0, 0 },
    };
    /* "agents": {"GPTBot": {counts}, ...} (what survey writes) or [{"agent": "GPTBot", counts}, ...]. */
    json_t *given = json_object_get(d, "agents");
    json_t *agents = NULL;
    if (json_is_object(given)) {
        agents = json_array();
        const char *k;
        json_t *v;
        json_object_foreach(given, k, v) {
            json_t *row = json_is_object(v) ? json_copy(v) : NULL;
            if (row == NULL || agents == NULL) {
                if (!json_is_object(v)) fail(p, "agents: \"%s\" is not an object", k);
                else p->st = RS_ERR_NOMEM;
                json_decref(row);
                break;
            }
            if (json_object_set_new(row, "agent", json_string(k)) != 0 || json_array_append_new(agents, row) != 0) {
                p->st = RS_ERR_NOMEM;
                break;
            }
        }
    } else {
        if (get_objs(p, d, "agents", 1) != NULL) agents = json_incref(given);
    }
    if (p->bad || p->st != RS_OK || agents == NULL) {
        if (agents == NULL && !p->bad) p->st = RS_ERR_NOMEM;
        json_decref(agents);
        return;
    }
    uint64_t total = 0;
    for (size_t i = 0; i < json_array_size(agents); i++)
        for (int c = 0; c < 5; c++) {
            const json_t *x = json_object_get(json_array_get(agents, i), COLS[c].key);
            if (json_is_integer(x) && json_integer_value(x) > 0) total += (uint64_t)json_integer_value(x);
        }
    if (json_array_size(agents) == 0 || total == 0) {
        /* Still validate what is there. */
        for (size_t i = 0; i < json_array_size(agents) && !p->bad; i++) {
            char where[32];
            snprintf(where, sizeof where, "agents[%zu]", i);
            size_t l;
            uint64_t x;
            get_str(p, json_array_get(agents, i), "agent", where, 1, 0, &l);
            for (int c = 0; c < 5; c++) get_u64(p, json_array_get(agents, i), COLS[c].key, where, 1, &x);
        }
        if (!p->bad) put(p, "<p class=\"empty\">Nothing to show: this survey classified no site.</p>");
        json_decref(agents);
        return;
    }
    counts_figure(p, "Who is blocked where: sites per class, per agent",
                  "Sites per agent: blocked, partial, open, unavailable, unreachable", agents, "agents", "agent", NULL,
                  COLS, 9, 1, 60, 1000, "blocked share", 1, -1, 0);
    json_decref(agents);
}

static void render_diff(page *p, const json_t *d)
{
    /* Counts of URLs (each listed URL once) and, for diffs of logs, of hits. */
    static const count_col COLS[] = {
        { "newly_disallowed", "newly disallowed", F_HATCH, 1, 1 },
        { "newly_allowed", "newly allowed", F_SOLID, 1, 1 },
        { "unchanged", "unchanged", F_GREY, 0, 1 },
        { "compared", "compared", 0, 0, 1 },
        { "rules_added", "rules added", 0, 0, 0 },
        { "rules_removed", "rules removed", 0, 0, 0 },
        { "rules_changed_effect", "rules changed in effect", 0, 0, 0 },
    };
    static const count_col HITS[] = {
        { "hits_newly_disallowed", "hits newly disallowed", F_HATCH, 1, 1 },
        { "hits_newly_allowed", "hits newly allowed", F_SOLID, 1, 1 },
        { "hits_unchanged", "hits unchanged", F_GREY, 0, 1 },
        { "hits", "hits", 0, 0, 1 },
    };
    const json_t *agents = get_objs(p, d, "agents", 1);
    const json_t *origins = get_objs(p, d, "origins", 0);
    if (p->bad) return;
    if (json_array_size(agents) == 0) {
        put(p, "<p class=\"empty\">Nothing to show: this diff compared no URLs.</p>");
        return;
    }
    /* A diff of logs weighs each URL by its hits: the hits are what a site owner loses. */
    const json_t *input = json_object_get(d, "input");
    if (json_is_string(input) && !strcmp(json_string_value(input), "logs")) {
        counts_figure(p, "Hits that flip per bot", "Hits that flip per bot: newly disallowed and newly allowed",
                      agents, "agents", "agent", NULL, HITS, 4, 3, 60, 1000, "flipped share of hits", 3, 3, 0);
        if (p->bad) return;
    }
    counts_figure(p, "Flips per agent", "URLs that flip per agent: newly disallowed and newly allowed", agents,
                  "agents", "agent", NULL, COLS, 4, 3, 60, 1000, "flipped share of compared", 3, 3, 0);
    if (p->bad) return;
    if (origins && json_array_size(origins))
        counts_figure(p, "Flips per origin", "URLs that flip per origin (origins with most flips)", origins,
                      "origins", "origin", "agent", COLS, 7, 3, 25, 500, "flipped share of compared", 3, 3, 1);
    else if (origins) note(p, "No origin in this diff.");
}

/* ===== sitemaps ===== */

static void render_sitemaps(page *p, const json_t *d)
{
    static const char *const F[] = { "origins", "origins_with_sitemaps", "sitemap_lines", "records", "valid",
                                     "invalid", "duplicates" };
    uint64_t v[7] = { 0 };
    for (size_t i = 0; i < 7; i++) get_u64(p, d, F[i], "", 1, &v[i]);
    if (p->bad) return;
    if (v[0] == 0) {
        put(p, "<p class=\"empty\">Nothing to show: no robots.txt was read.</p>");
        return;
    }
    figure_open(p, "Sites with Sitemap: lines, and the lines' URLs");
    {
        bar_row r1 = { "sites", 5, { v[1], v[0] - RS_MIN(v[1], v[0]) } };
        static const char *const S1[] = { "with sitemaps", "without" };
        static const int F1[] = { F_SOLID, F_GREY };
        const bar_spec s1 = { "Sites with and without Sitemap: lines", S1, F1, 2, 1 };
        chart_hbars(p, &s1, &r1, 1);
        bar_row r2 = { "sitemap records", 15, { v[4], v[5] } };
        static const char *const S2[] = { "valid", "invalid" };
        static const int F2[] = { F_SOLID, F_HATCH };
        const bar_spec s2 = { "Sitemap records: valid absolute http(s) URLs and the rest", S2, F2, 2, 1 };
        chart_hbars(p, &s2, &r2, 1);
    }
    figure_mid(p);
    {
        const char *heads[] = { "count", "number", "share" };
        table_open(p, "Sitemap counts", heads, 3, 6);
        static const char *const LABEL[] = { "sites read", "sites with Sitemap: lines", "Sitemap: lines",
                                             "records (deduplicated per site)", "valid URLs", "invalid URLs",
                                             "duplicate lines dropped" };
        const uint64_t den[] = { 0, v[0], 0, v[2], v[3], v[3], v[2] };
        for (size_t i = 0; i < 7; i++) {
            put(p, "<tr>");
            th_row(p, LABEL[i], strlen(LABEL[i]));
            td_u64(p, v[i]);
            if (den[i]) td_pct(p, v[i], den[i]);
            else put(p, "<td></td>");
            put(p, "</tr>");
        }
        table_close(p);
    }
    figure_close(p);
}

/* ===== What was audited: sites, robots.txt, period ===== */

/* The first and last time bucket of "hours" (else "days"): "2015-05-17 10:00"
 * and "2015-05-20 21:59" (UTC), or days. @return 0 when there are none. */
static int doc_period(const json_t *d, char *first, char *last, size_t cap)
{
    for (int hourly = 1; hourly >= 0; hourly--) {
        const json_t *a = json_object_get(d, hourly ? "hours" : "days");
        const char *lo = NULL, *hi = NULL;
        for (size_t i = 0; json_is_array(a) && i < json_array_size(a); i++) {
            const json_t *b = json_object_get(json_array_get(a, i), hourly ? "hour" : "day");
            if (!json_is_string(b) || !valid_bucket(json_string_value(b), json_string_length(b), hourly)) continue;
            const char *v = json_string_value(b);
            if (lo == NULL || strcmp(v, lo) < 0) lo = v;
            if (hi == NULL || strcmp(v, hi) > 0) hi = v;
        }
        if (lo == NULL) continue;
        if (hourly) {
            snprintf(first, cap, "%.10s %.2s:00", lo, lo + 11);
            snprintf(last, cap, "%.10s %.2s:59", hi, hi + 11);
        } else {
            snprintf(first, cap, "%.10s", lo);
            snprintf(last, cap, "%.10s", hi);
        }
        return 1;
    }
    return 0;
}

/* Appends @s (at most @n bytes) to @buf unless already listed. @return 1 if added. */
static int list_add(char *buf, size_t cap, const char *s, size_t n, size_t *count)
{
    if (!strncmp(s, "https://", 8)) s += 8, n -= 8;
    else if (!strncmp(s, "http://", 7)) s += 7, n -= 7;
    if (n == 0) return 0;
    for (const char *q = buf; *q;) {
        const char *e = strstr(q, ", ");
        const size_t l = e ? (size_t)(e - q) : strlen(q);
        if (l == n && !memcmp(q, s, n)) return 0;
        if (!e) break;
        q = e + 2;
    }
    (*count)++;
    if (*count > 4) return 1;
    const size_t len = strlen(buf);
    snprintf(buf + len, cap - len, "%s%.*s", len ? ", " : "", (int)RS_MIN(n, (size_t)80), s);
    return 1;
}

/* The sites a document names: the caller's, else the origins of its rules and paths. */
static void doc_sites(const rs_report_input *in, const json_t *d, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (in->sites && in->sites[0]) {
        snprintf(buf, cap, "%s", in->sites);
        return;
    }
    size_t count = 0;
    const json_t *bots = json_object_get(d, "bots");
    for (size_t b = 0; json_is_array(bots) && b < json_array_size(bots); b++) {
        for (int t = 0; t < 2; t++) {
            const json_t *a = json_object_get(json_array_get(bots, b), t ? "top_paths" : "top_rules");
            for (size_t i = 0; json_is_array(a) && i < json_array_size(a); i++) {
                const json_t *o = json_object_get(json_array_get(a, i), "origin");
                if (json_is_string(o)) list_add(buf, cap, json_string_value(o), json_string_length(o), &count);
            }
        }
    }
    const json_t *origins = json_object_get(d, "origins");
    if (json_is_array(origins) && count == 0) {
        for (size_t i = 0; i < json_array_size(origins); i++) {
            const json_t *o = json_object_get(json_array_get(origins, i), "origin");
            if (json_is_string(o)) list_add(buf, cap, json_string_value(o), json_string_length(o), &count);
        }
    }
    if (count > 4) {
        const size_t len = strlen(buf);
        snprintf(buf + len, cap - len, " and %zu more", count - 4);
    }
}

/* The facts line at the top of a section: what was audited, against what, when. */
static void doc_facts(page *p, const rs_report_input *in, const json_t *d, const char *cmd)
{
    char sites[512], first[32], last[32];
    doc_sites(in, d, sites, sizeof sites);
    put(p, "<dl class=\"facts\">");
    if (sites[0]) {
        put(p, "<div><dt>Site</dt><dd>");
        escs(p, sites);
        put(p, "</dd></div>");
    }
    if (!strcmp(cmd, "logs") || !strcmp(cmd, "urls") || !strcmp(cmd, "diff")) {
        put(p, "<div><dt>robots.txt</dt><dd>");
        if (in->robots && in->robots[0]) escs(p, in->robots);
        else put(p, "<span class=\"note\">not recorded in the statistics file</span>");
        put(p, "</dd></div>");
    }
    if (doc_period(d, first, last, sizeof first)) {
        put(p, "<div><dt>Period (UTC)</dt><dd>");
        escs(p, first);
        put(p, " to ");
        escs(p, last);
        put(p, "</dd></div>");
    }
    static const struct { const char *cmd, *key, *label; } N[] = {
        { "logs", "lines", "Log lines read" }, { "logs", "bot_hits", "Bot hits" },
        { "urls", "urls", "URLs checked" }, { "survey", "origins", "Sites" }, { "sitemaps", "origins", "Sites" },
    };
    for (size_t k = 0; k < sizeof N / sizeof N[0]; k++) {
        const json_t *v = json_object_get(d, N[k].key);
        if (strcmp(cmd, N[k].cmd) || !json_is_integer(v)) continue;
        putf(p, "<div><dt>%s</dt><dd>%" JSON_INTEGER_FORMAT "</dd></div>", N[k].label, json_integer_value(v));
    }
    put(p, "</dl>\n");
}

/* The page's default title from what the documents say. */
static void default_title(const rs_report_input *in, json_t *const *docs, const char *const *cmds, size_t n,
                          char *t, size_t cap)
{
    char sites[512] = "", one[512], first[32], last[32], lo[32] = "", hi[32] = "";
    int all_logs = 1;
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        all_logs &= !strcmp(cmds[i], "logs");
        doc_sites(&in[i], docs[i], one, sizeof one);
        if (one[0]) list_add(sites, sizeof sites, one, strlen(one), &count);
        if (doc_period(docs[i], first, last, sizeof first)) {
            if (!lo[0] || strcmp(first, lo) < 0) memcpy(lo, first, sizeof lo);
            if (!hi[0] || strcmp(last, hi) > 0) memcpy(hi, last, sizeof hi);
        }
    }
    if (all_logs) {
        size_t len = (size_t)snprintf(t, cap, "Crawler audit of %s", sites[0] ? sites : n == 1 && in[0].name ? in[0].name : "access logs");
        if (lo[0] && len < cap) {
            if (!memcmp(lo, hi, 10)) len += (size_t)snprintf(t + len, cap - len, ", %.10s", lo);
            else len += (size_t)snprintf(t + len, cap - len, ", %.10s to %.10s", lo, hi);
        }
        if (n == 1 && in[0].robots && in[0].robots[0] && len < cap) {
            const char *r = in[0].robots, *slash = strrchr(r, '/');
            if (slash && slash[1] && !strchr(r, ',')) r = slash + 1;
            snprintf(t + len, cap - len, ", against %s", r);
        }
        return;
    }
    if (n == 1 && !strcmp(cmds[0], "sitemaps"))
        snprintf(t, cap, "Sitemap: lines of robots.txt files (%s)", in[0].name ? in[0].name : "statistics");
    else if (n == 1)
        snprintf(t, cap, "robotscan report: %s (%s)%s%s", cmds[0], in[0].name ? in[0].name : "statistics",
                 sites[0] ? ": " : "", sites);
    else
        snprintf(t, cap, "robotscan report: %zu statistics files", n);
}

/* ===== Page ===== */

static const char STYLE[] =
    "<style>\n"
    ":root{color-scheme:light}\n"
    "body{font:15px/1.45 system-ui,-apple-system,\"Segoe UI\",Roboto,\"Helvetica Neue\",Arial,sans-serif;"
    "margin:0;color:#1d1d1d;background:#fff}\n"
    "header,main,footer{max-width:1500px;margin:0 auto;padding:0 20px}\n"
    "header{border-bottom:3px solid #4e79a7;padding-bottom:8px}\n"
    "h1{font-size:1.6em;margin:16px 0 4px}h2{font-size:1.3em;margin:28px 0 8px;border-bottom:1px solid #ccc}\n"
    "h3{font-size:1.05em;margin:18px 0 6px}\n"
    ".pair{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:20px;align-items:start}\n"
    ".pair.wide{grid-template-columns:minmax(0,1fr)}.pair.wide .tbl{max-width:1100px}\n"
    "@media (max-width:1000px){.pair{grid-template-columns:1fr}}\n"
    "svg.chart{width:100%;height:auto;max-width:820px;display:block}\n"
    "svg.defs{position:absolute}\n"
    "svg text{font:13px system-ui,sans-serif;fill:#1d1d1d}svg text.in{fill:#000;font-weight:600;"
    "paint-order:stroke;stroke:#fff;stroke-width:3px}svg text.ax{font-size:14px;fill:#333}"
    "svg text.ax.day{font-weight:600}\n"
    ".tbl{border:1px solid #ddd;margin:0 0 8px;overflow-x:auto}td.k{white-space:nowrap}\n"
    ".tbl.run{display:inline-block;border:0}\n"
    "tr.grp th{background:#eef3f8;font-weight:600;padding-top:6px}\n"
    "details{margin:6px 0}details>summary{cursor:pointer;color:#2c5d8f;font-size:14px}\n"
    "details.run{margin-top:24px;border-top:1px solid #ccc;padding-top:6px}\n"
    "dl.facts{display:flex;flex-wrap:wrap;gap:6px 28px;margin:8px 0 12px}dl.facts div{min-width:0}"
    "dl.facts dt{font-size:12px;color:#555;text-transform:uppercase;letter-spacing:.04em}"
    "dl.facts dd{margin:0;font-size:1.1em;font-weight:600;overflow-wrap:anywhere}\n"
    ".bigs{display:grid;grid-template-columns:repeat(auto-fit,minmax(240px,1fr));gap:12px;margin:8px 0}\n"
    ".big{border:1px solid #ccc;border-left:6px solid #c0392b;padding:8px 12px;background:#fcf7f6}"
    ".big b{display:block;font-size:2em;line-height:1.1}.big.other{border-left-color:#999;background:#f7f7f7}\n"
    ".lead{font-size:1.05em;margin:6px 0 0}\n"
    "table{border-collapse:collapse;font-size:13px;width:100%}caption{text-align:left;font-weight:600;"
    "padding:4px 6px;background:#f4f4f4}\n"
    "th,td{padding:2px 8px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}"
    "thead th{position:sticky;top:0;background:#fafafa;border-bottom:1px solid #bbb}\n"
    ".n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}thead th.n{white-space:normal}td,th{overflow-wrap:break-word}\n"
    ".legend span{margin-right:14px;white-space:nowrap}.legend svg{vertical-align:-2px;margin-right:4px}\n"
    ".note{color:#555;font-size:13px}.small{margin:8px 0 0;font-size:13px;font-weight:600}\n"
    ".empty{font-size:1.1em;padding:12px;border:2px dashed #999;background:#fafafa}\n"
    "nav ul{margin:4px 0;padding-left:20px}footer{color:#666;font-size:12px;margin-top:30px;"
    "border-top:1px solid #ccc;padding-top:8px;padding-bottom:20px}\n"
    "@media print{body{font-size:10pt}header,main,footer{max-width:none;padding:0}"
    ".tbl{border:0}thead th{position:static}nav{display:none}"
    ".pair{grid-template-columns:1fr}section.fig{break-inside:avoid-page}h2{break-before:page}"
    "h2:first-of-type{break-before:auto}*{-webkit-print-color-adjust:exact;print-color-adjust:exact}}\n"
    "@media (max-width:800px){header,main,footer{padding:0 8px}table{font-size:11px}th,td{padding:2px 2px}"
    "td.k{white-space:normal}}\n"
    "</style>\n";

/* Parses one document and checks the fields every kind shares. */
static json_t *load(page *p, const rs_report_input *in, const char **command)
{
    *command = NULL;
    if (in->json_len == 0) {
        fail(p, "empty file: no statistics");
        return NULL;
    }
    json_error_t je;
    json_t *d = json_loadb(in->json, in->json_len, JSON_REJECT_DUPLICATES, &je);
    if (d == NULL) {
        fail(p, "not valid JSON (truncated or damaged?): line %d, column %d: %s", je.line, je.column, je.text);
        return NULL;
    }
    if (!json_is_object(d)) {
        fail(p, "not a robotscan statistics file (the JSON is not an object)");
        json_decref(d);
        return NULL;
    }
    const json_t *cmd = json_object_get(d, "command");
    if (!json_is_string(cmd)) {
        fail(p, "not a robotscan statistics file (no \"command\" field naming logs, urls, survey, diff or sitemaps)");
        json_decref(d);
        return NULL;
    }
    const json_t *sv = json_object_get(d, "schema_version");
    if (sv && (!json_is_integer(sv) || json_integer_value(sv) < 1 || json_integer_value(sv) > RS_REPORT_SCHEMA_MAX)) {
        if (json_is_integer(sv))
            fail(p, "schema_version %" JSON_INTEGER_FORMAT " is not supported (this robotscan reads schema "
                    "version %d and older; was it written by a newer robotscan?)", json_integer_value(sv), RS_REPORT_SCHEMA_MAX);
        else
            fail(p, "\"schema_version\" is not an integer");
        json_decref(d);
        return NULL;
    }
    const char *c = json_string_value(cmd);
    if (strcmp(c, "logs") && strcmp(c, "urls") && strcmp(c, "survey") && strcmp(c, "diff") && strcmp(c, "sitemaps")) {
        fail(p, "unknown command \"%s\" (a report is made from logs, urls, survey, diff or sitemaps statistics)", c);
        json_decref(d);
        return NULL;
    }
    *command = c;
    return d;
}

rs_status rs_report_html(const rs_report_input *in, size_t n, const char *title, rs_outbuf *out, char *err,
                         size_t err_cap)
{
    if (err && err_cap) err[0] = '\0';
    RS_RETURN_IF(in == NULL || n == 0 || out == NULL, RS_ERR_USAGE);
    page pg = { out, RS_OK, 0, err, err ? err_cap : 0, NULL, 0, 0 };
    page *p = &pg;
    json_t **docs = rs_calloc(n, sizeof *docs);
    const char **cmds = rs_calloc(n, sizeof *cmds);
    if (docs == NULL || cmds == NULL) {
        rs_free(docs);
        rs_free(cmds);
        return RS_ERR_NOMEM;
    }
    /* Every document must load before anything is written. */
    for (size_t i = 0; i < n && !p->bad; i++) {
        p->doc = in[i].name;
        docs[i] = load(p, &in[i], &cmds[i]);
    }
    if (!p->bad) {
        char deftitle[600];
        if (title == NULL) {
            default_title(in, docs, cmds, n, deftitle, sizeof deftitle);
            title = deftitle;
        }
        put(p, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
               "style-src 'unsafe-inline'; img-src data:\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
               "<meta name=\"generator\" content=\"robotscan ");
        put(p, rs_version_string());
        put(p, "\">\n<title>");
        escs(p, title);
        put(p, "</title>\n");
        put(p, STYLE);
        put(p, "</head>\n<body>\n");
        put(p, DEFS);
        put(p, "<header><h1>");
        escs(p, title);
        put(p, "</h1>");
        if (n > 1) {
            put(p, "<nav aria-label=\"Contents\"><ul>");
            for (size_t i = 0; i < n; i++) {
                putf(p, "<li><a href=\"#doc%zu\">%s: ", i + 1, cmds[i]);
                escs(p, in[i].name ? in[i].name : "statistics");
                put(p, "</a></li>");
            }
            put(p, "</ul></nav>");
        }
        put(p, "</header>\n<main>\n");
    }
    for (size_t i = 0; i < n && !p->bad && p->st == RS_OK; i++) {
        p->doc = in[i].name;
        static const struct { const char *cmd, *what; } KINDS[] = {
            { "logs", "crawler hits in access logs" },
            { "urls", "URL verdicts" },
            { "survey", "robots.txt survey: who is blocked where" },
            { "diff", "what flips between two robots.txt versions" },
            { "sitemaps", "Sitemap: lines of robots.txt files" },
        };
        const char *what = "";
        for (size_t k = 0; k < sizeof KINDS / sizeof KINDS[0]; k++)
            if (!strcmp(KINDS[k].cmd, cmds[i])) what = KINDS[k].what;
        putf(p, "<section class=\"doc\" id=\"doc%zu\" aria-labelledby=\"doc%zu-h\"><h2 id=\"doc%zu-h\">%s: ", i + 1,
             i + 1, i + 1, what);
        escs(p, in[i].name ? in[i].name : "statistics");
        put(p, "</h2>\n");
        doc_facts(p, &in[i], docs[i], cmds[i]);
        if (!strcmp(cmds[i], "logs")) render_logs(p, docs[i]);
        else if (!strcmp(cmds[i], "urls")) render_urls(p, docs[i]);
        else if (!strcmp(cmds[i], "survey")) render_survey(p, docs[i]);
        else if (!strcmp(cmds[i], "sitemaps")) render_sitemaps(p, docs[i]);
        else render_diff(p, docs[i]);
        /* The run's internals last, folded: what a reader wants comes first. */
        if (!p->bad) run_table(p, docs[i]);
        put(p, "</section>\n");
    }
    if (!p->bad) {
        put(p, "</main>\n<footer><p>Made by robotscan ");
        put(p, rs_version_string());
        put(p, " from its --stats output. Every count is printed as the statistics file holds it; shares "
               "(%) and row totals are computed from those counts. Charts show the largest entries; the table "
               "beside each chart is its text version.</p></footer>\n</body>\n</html>\n");
    }
    for (size_t i = 0; i < n; i++) json_decref(docs[i]);
    rs_free(docs);
    rs_free(cmds);
    if (pg.st != RS_OK) return pg.st;
    return pg.bad ? RS_ERR_CORRUPT : RS_OK;
}
