/*
 * logline.c - access-log formats and line parsing.
 *
 * Does: compile a log layout once (a named format or an nginx log_format
 * string) into a list of literal texts and fields; split one line into
 * borrowed slices (client, host, port, time, request parts, status, bytes,
 * referer, user agent); parse timestamps with their zone offsets.
 *
 * Does not: read files or split lines (src/input), unescape anything (the
 * slices stay borrowed and raw), decode or normalise the request target
 * (src/url), identify bots (bots.c), or allocate per line.
 *
 * Matching a line against the layout walks the items left to right:
 *  - a literal must be found at the current position; each space in it
 *    matches a run of one or more spaces or tabs;
 *  - a quoted field (a variable with `"` right before and after it) ends at
 *    the first `"` not escaped by a backslash that is followed by the rest of
 *    the next literal (or, at the end of the format, by the end of the line or
 *    whitespace). A `"` inside a user agent that a server failed to escape is
 *    thereby skipped when what follows does not fit;
 *  - an unquoted field ends at the first byte of the next literal, except
 *    that a field followed by a space ends at the first space or tab (for
 *    $time_local, at the one after its zone offset), and one followed by `:`
 *    ends at the last `:` before the next whitespace (so `[2001:db8::1]:443`
 *    splits into host and port);
 *  - text left after the last item is accepted when it starts with
 *    whitespace (extra trailing fields) and flagged.
 */
#include "common/common.h"
#include "log/log_internal.h"

#include <stddef.h>
#include <stdio.h>

/* ===== Format compilation ===== */

enum field {
    F_SKIP = 0, F_CLIENT, F_USER, F_HOST, F_PORT, F_TIME_LOCAL, F_TIME_ISO, F_MSEC,
    F_REQUEST, F_METHOD, F_URI, F_PROTOCOL, F_STATUS, F_BYTES, F_REFERER, F_UA
};

static const struct {
    const char *name;
    enum field field;
    unsigned flag;
} variables[] = {
    {"remote_addr", F_CLIENT, RS_LOGF_CLIENT},
    {"remote_user", F_USER, RS_LOGF_USER},
    {"host", F_HOST, RS_LOGF_HOST},
    {"server_name", F_HOST, RS_LOGF_HOST},
    {"http_host", F_HOST, RS_LOGF_HOST},
    {"server_port", F_PORT, RS_LOGF_PORT},
    {"time_local", F_TIME_LOCAL, RS_LOGF_TIME},
    {"time_iso8601", F_TIME_ISO, RS_LOGF_TIME},
    {"msec", F_MSEC, RS_LOGF_TIME},
    {"request", F_REQUEST, RS_LOGF_REQUEST},
    {"request_method", F_METHOD, RS_LOGF_REQUEST},
    {"request_uri", F_URI, RS_LOGF_REQUEST},
    {"uri", F_URI, RS_LOGF_REQUEST},
    {"server_protocol", F_PROTOCOL, RS_LOGF_REQUEST},
    {"status", F_STATUS, RS_LOGF_STATUS},
    {"body_bytes_sent", F_BYTES, RS_LOGF_BYTES},
    {"bytes_sent", F_BYTES, RS_LOGF_BYTES},
    {"http_referer", F_REFERER, RS_LOGF_REFERER},
    {"http_user_agent", F_UA, RS_LOGF_USER_AGENT},
};

/* The named formats, written as nginx log_format strings. `$remote_ident`
 * (Apache's %l) is not an nginx variable: an unknown variable is skipped. */
static const struct {
    const char *name;
    const char *spec;
} named_formats[] = {
    {"combined", "$remote_addr $remote_ident $remote_user [$time_local] \"$request\" $status "
                 "$body_bytes_sent \"$http_referer\" \"$http_user_agent\""},
    {"common", "$remote_addr $remote_ident $remote_user [$time_local] \"$request\" $status "
               "$body_bytes_sent"},
    {"vhost_combined", "$host:$server_port $remote_addr $remote_ident $remote_user [$time_local] "
                       "\"$request\" $status $body_bytes_sent \"$http_referer\" \"$http_user_agent\""},
    /* AWS ALB access logs: type time elb client:port target:port three
     * processing times, elb and target status, received and sent bytes,
     * "request" "user_agent", then fields read as extra. */
    {"alb", "$alb_type $time_iso8601 $alb_elb $remote_addr:$remote_port $alb_target $alb_t1 $alb_t2 $alb_t3 "
            "$status $alb_target_status $alb_received $body_bytes_sent \"$request\" \"$http_user_agent\""},
};

typedef struct {
    uint32_t lit_off;     /* literal: offset into fmt->text; 0 for fields */
    uint32_t lit_len;     /* literal length; 0 marks a field */
    uint8_t  field;       /* enum field */
    uint8_t  quoted;      /* field between two `"` */
} item;

struct rs_logformat {
    item    *items;
    size_t   n_items;
    char    *text;        /* literal bytes of all items */
    unsigned fields;      /* RS_LOGF_* */
    int      combined;    /* exactly the combined layout: parse_combined_fast applies */
    int      alb;         /* exactly the alb layout: parse_alb_fast applies */
};

/* A layout's items: a field (lit NULL) or a literal (field F_SKIP). */
typedef struct {
    enum field field;
    const char *lit;
} layout_item;

/* The items of the combined layout (parse_combined_fast). */
static const layout_item combined_items[] = {
    {F_CLIENT, NULL}, {F_SKIP, " "}, {F_SKIP, NULL}, {F_SKIP, " "}, {F_USER, NULL}, {F_SKIP, " ["},
    {F_TIME_LOCAL, NULL}, {F_SKIP, "] \""}, {F_REQUEST, NULL}, {F_SKIP, "\" "}, {F_STATUS, NULL},
    {F_SKIP, " "}, {F_BYTES, NULL}, {F_SKIP, " \""}, {F_REFERER, NULL}, {F_SKIP, "\" \""}, {F_UA, NULL},
    {F_SKIP, "\""},
};

/* The items of the alb layout (parse_alb_fast): type time elb client:port
 * target t1 t2 t3 status target_status received bytes "request" "agent". */
static const layout_item alb_items[] = {
    {F_SKIP, NULL}, {F_SKIP, " "}, {F_TIME_ISO, NULL}, {F_SKIP, " "}, {F_SKIP, NULL}, {F_SKIP, " "},
    {F_CLIENT, NULL}, {F_SKIP, ":"}, {F_SKIP, NULL}, {F_SKIP, " "}, {F_SKIP, NULL}, {F_SKIP, " "},
    {F_SKIP, NULL}, {F_SKIP, " "}, {F_SKIP, NULL}, {F_SKIP, " "}, {F_SKIP, NULL}, {F_SKIP, " "},
    {F_STATUS, NULL}, {F_SKIP, " "}, {F_SKIP, NULL}, {F_SKIP, " "}, {F_SKIP, NULL}, {F_SKIP, " "},
    {F_BYTES, NULL}, {F_SKIP, " \""}, {F_REQUEST, NULL}, {F_SKIP, "\" \""}, {F_UA, NULL}, {F_SKIP, "\""},
};

/* Whether @fmt has exactly the @n items of @want, whatever string compiled
 * it (`combined`, the nginx or the Apache spelling). */
static int same_items(const rs_logformat *fmt, const layout_item *want, size_t n)
{
    if (fmt->n_items != n) return 0;
    for (size_t k = 0; k < n; k++) {
        const item *it = &fmt->items[k];
        const char *lit = want[k].lit;
        if (lit == NULL) {
            if (it->lit_len != 0 || it->field != (uint8_t)want[k].field) return 0;
        } else if (it->lit_len != strlen(lit) || memcmp(fmt->text + it->lit_off, lit, it->lit_len) != 0) {
            return 0;
        }
    }
    return 1;
}

static void set_err(char *err, size_t err_cap, const char *msg, const char *name, size_t name_len)
{
    if (err == NULL || err_cap == 0) return;
    if (name != NULL)
        snprintf(err, err_cap, "%s: $%.*s", msg, (int)RS_MIN(name_len, 64), name);
    else
        snprintf(err, err_cap, "%s", msg);
}

static int is_var_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/*
 * A log_format copied from nginx.conf: single-quoted strings, concatenated,
 * optionally ending with `;` (`'$remote_addr - $remote_user ' '"$request"';`).
 * Writes the unquoted text to @dst (capacity >= len) with nginx's escapes
 * (\' \" \\ \t \r \n) resolved. @return its length, or -1 if @src is not
 * entirely such strings (then it is used as written).
 */
static ptrdiff_t unquote_nginx(const char *src, size_t len, char *dst)
{
    size_t i = 0, n = 0;
    int segments = 0;
    for (;;) {
        while (i < len && (src[i] == ' ' || src[i] == '\t' || src[i] == '\r' || src[i] == '\n')) i++;
        if (i == len || (src[i] == ';' && segments > 0)) break;
        if (src[i] != '\'') return -1;
        for (i++;; i++) {
            if (i >= len) return -1;
            if (src[i] == '\'') break;
            if (src[i] == '\\' && i + 1 < len) {
                const char c = src[++i];
                switch (c) {
                case 't': dst[n++] = '\t'; break;
                case 'r': dst[n++] = '\r'; break;
                case 'n': dst[n++] = '\n'; break;
                case '\'': case '"': case '\\': dst[n++] = c; break;
                default: dst[n++] = '\\'; dst[n++] = c; break;   /* kept as written */
                }
                continue;
            }
            dst[n++] = src[i];
        }
        i++;
        segments++;
    }
    if (i < len) {   /* a `;`: only whitespace may follow */
        for (i++; i < len; i++)
            if (src[i] != ' ' && src[i] != '\t' && src[i] != '\r' && src[i] != '\n') return -1;
    }
    return segments > 0 ? (ptrdiff_t)n : -1;
}

/*
 * An Apache LogFormat string (`%h %l %u %t "%r" %>s %b "%{Referer}i"
 * "%{User-Agent}i"`, as written in httpd.conf, outer quotes and \" allowed)
 * rewritten as the nginx log_format it means. %t brings its brackets.
 * @return the length written to @dst (capacity >= 8 * len + 16), or -1.
 */
static ptrdiff_t apache_to_nginx(const char *src, size_t len, char *dst, char *err, size_t err_cap)
{
    if (len >= 2 && src[0] == '"' && src[len - 1] == '"') {
        src++;
        len -= 2;
    }
    size_t n = 0;
#define PUT(s) do { const char *s_ = (s); size_t l_ = strlen(s_); memcpy(dst + n, s_, l_); n += l_; } while (0)
    for (size_t i = 0; i < len; i++) {
        const char c = src[i];
        if (c == '\\' && i + 1 < len) {
            const char e = src[++i];
            dst[n++] = e == 't' ? '\t' : e == 'n' ? '\n' : e;
            continue;
        }
        if (c != '%') { dst[n++] = c; continue; }
        if (++i >= len) goto bad;
        const char *arg = NULL;
        size_t arg_len = 0;
        while (i < len && (src[i] == '>' || src[i] == '<' || src[i] == '!' || src[i] == ',' ||
                           (src[i] >= '0' && src[i] <= '9')))
            i++;   /* modifiers: %>s, %<s, %!200,304u */
        if (i < len && src[i] == '{') {
            const char *close = memchr(src + i, '}', len - i);
            if (close == NULL) goto bad;
            arg = src + i + 1;
            arg_len = (size_t)(close - arg);
            i = (size_t)(close - src) + 1;
        }
        if (i >= len) goto bad;
        const char d = src[i];
        if (d == 'U' && i + 2 < len && src[i + 1] == '%' && src[i + 2] == 'q') { PUT("$request_uri"); i += 2; continue; }
        switch (d) {
        case '%': dst[n++] = '%'; break;
        case 'h': case 'a': PUT("$remote_addr"); break;
        case 'l': PUT("$remote_ident"); break;
        case 'u': PUT("$remote_user"); break;
        case 't':
            if (arg != NULL) {
                set_err(err, err_cap, "Apache %{FORMAT}t timestamps are not read; use %t", NULL, 0);
                return -1;
            }
            PUT("[$time_local]");
            break;
        case 'r': PUT("$request"); break;
        case 's': PUT("$status"); break;
        case 'b': case 'B': PUT("$body_bytes_sent"); break;
        case 'O': PUT("$bytes_sent"); break;
        case 'v': case 'V': PUT("$host"); break;
        case 'p': PUT("$server_port"); break;
        case 'm': PUT("$request_method"); break;
        case 'U': PUT("$uri"); break;
        case 'H': PUT("$server_protocol"); break;
        case 'i':
            if (arg != NULL && rs_ieq(arg, arg_len, "Referer", 7)) PUT("$http_referer");
            else if (arg != NULL && rs_ieq(arg, arg_len, "User-Agent", 10)) PUT("$http_user_agent");
            else if (arg != NULL && rs_ieq(arg, arg_len, "Host", 4)) PUT("$http_host");
            else PUT("$apache_header");
            break;
        default:
            if ((d >= 'a' && d <= 'z') || (d >= 'A' && d <= 'Z')) { PUT("$apache_"); dst[n++] = d; break; }
            goto bad;
        }
    }
#undef PUT
    return (ptrdiff_t)n;
bad:
    set_err(err, err_cap, "bad Apache LogFormat directive (a `%` not followed by a letter)", NULL, 0);
    return -1;
}

rs_status rs_logformat_create(const char *spec, size_t spec_len, char *err, size_t err_cap,
                              rs_logformat **out)
{
    RS_RETURN_IF(out == NULL || (spec == NULL && spec_len > 0), RS_ERR_USAGE);
    *out = NULL;
    for (size_t i = 0; i < sizeof named_formats / sizeof named_formats[0]; i++) {
        if (rs_ieq(spec, spec_len, named_formats[i].name, strlen(named_formats[i].name))) {
            spec = named_formats[i].spec;
            spec_len = strlen(spec);
            break;
        }
    }
    RS_RETURN_IF(spec_len > UINT32_MAX / 8, RS_ERR_LIMIT);

    char *unquoted = NULL;
    if (memchr(spec, '%', spec_len) != NULL && memchr(spec, '$', spec_len) == NULL) {
        unquoted = rs_malloc(spec_len * 8 + 16);
        RS_RETURN_IF(unquoted == NULL, RS_ERR_NOMEM);
        const ptrdiff_t n = apache_to_nginx(spec, spec_len, unquoted, err, err_cap);
        if (n < 0) {
            rs_free(unquoted);
            return RS_ERR_USAGE;
        }
        spec = unquoted;
        spec_len = (size_t)n;
    } else
    {
        size_t k = 0;
        while (k < spec_len && (spec[k] == ' ' || spec[k] == '\t')) k++;
        if (k < spec_len && spec[k] == '\'') {
            unquoted = rs_malloc(spec_len);
            RS_RETURN_IF(unquoted == NULL, RS_ERR_NOMEM);
            const ptrdiff_t n = unquote_nginx(spec, spec_len, unquoted);
            if (n >= 0) {
                spec = unquoted;
                spec_len = (size_t)n;
            }
        }
    }

    rs_logformat *fmt = rs_calloc(1, sizeof *fmt);
    if (fmt == NULL) {
        rs_free(unquoted);
        return RS_ERR_NOMEM;
    }
    /* At most one item per spec byte plus one. */
    fmt->items = rs_calloc(spec_len + 1, sizeof *fmt->items);
    fmt->text = rs_malloc(spec_len + 1);
    rs_status st = RS_OK;
    if (fmt->items == NULL || fmt->text == NULL) { st = RS_ERR_NOMEM; goto out; }

    size_t text_len = 0, n = 0, n_fields = 0;
    size_t i = 0;
    while (i < spec_len) {
        const char *name = NULL;
        size_t name_len = 0, next = i;
        if (spec[i] == '$' && i + 1 < spec_len) {
            if (spec[i + 1] == '{') {
                const char *close = memchr(spec + i + 2, '}', spec_len - i - 2);
                if (close != NULL) {
                    name = spec + i + 2;
                    name_len = (size_t)(close - name);
                    next = (size_t)(close - spec) + 1;
                }
            } else if (is_var_char((unsigned char)spec[i + 1])) {
                name = spec + i + 1;
                next = i + 1;
                while (next < spec_len && is_var_char((unsigned char)spec[next])) next++;
                name_len = next - i - 1;
            }
        }
        if (name == NULL || name_len == 0) {          /* literal byte */
            if (n == 0 || fmt->items[n - 1].lit_len == 0) {
                fmt->items[n].lit_off = (uint32_t)text_len;
                n++;
            }
            fmt->text[text_len++] = spec[i];
            fmt->items[n - 1].lit_len++;
            i++;
            continue;
        }
        if (n > 0 && fmt->items[n - 1].lit_len == 0) {
            set_err(err, err_cap, "two variables with no text between them", name, name_len);
            st = RS_ERR_USAGE;
            goto out;
        }
        enum field f = F_SKIP;
        for (size_t k = 0; k < sizeof variables / sizeof variables[0]; k++) {
            if (strlen(variables[k].name) == name_len && memcmp(variables[k].name, name, name_len) == 0) {
                f = variables[k].field;
                fmt->fields |= variables[k].flag;
                break;
            }
        }
        fmt->items[n].field = (uint8_t)f;
        n++;
        n_fields++;
        i = next;
    }
    if (n_fields == 0) {
        /* most often a misspelt name (--log-format clodfront): say what is accepted */
        set_err(err, err_cap, "not a format name (combined, common, vhost_combined, alb, cloudfront, w3c, "
                "json, cloudflare, auto) nor a log_format string with $variables", NULL, 0);
        st = RS_ERR_USAGE;
        goto out;
    }
    for (size_t k = 0; k < n; k++) {
        item *it = &fmt->items[k];
        if (it->lit_len != 0 || k == 0 || k + 1 == n) continue;
        const item *prev = &fmt->items[k - 1], *nx = &fmt->items[k + 1];
        it->quoted = fmt->text[prev->lit_off + prev->lit_len - 1] == '"' && fmt->text[nx->lit_off] == '"';
    }
    fmt->n_items = n;
    fmt->combined = same_items(fmt, combined_items, sizeof combined_items / sizeof combined_items[0]);
    fmt->alb = same_items(fmt, alb_items, sizeof alb_items / sizeof alb_items[0]);
out:
    rs_free(unquoted);
    if (st != RS_OK) {
        rs_logformat_free(fmt);
        return st;
    }
    *out = fmt;
    return RS_OK;
}

void rs_logformat_free(rs_logformat *fmt)
{
    if (fmt == NULL) return;
    rs_free(fmt->items);
    rs_free(fmt->text);
    rs_free(fmt);
}

unsigned rs_logformat_fields(const rs_logformat *fmt) { return fmt->fields; }

const char *rs_logline_status_str(rs_logline_status st)
{
    switch (st) {
    case RS_LOGLINE_OK:            return "ok";
    case RS_LOGLINE_EMPTY:         return "empty";
    case RS_LOGLINE_BAD_LAYOUT:    return "bad-layout";
    case RS_LOGLINE_BAD_TIME:      return "bad-time";
    case RS_LOGLINE_BAD_STATUS:    return "bad-status";
    case RS_LOGLINE_NOT_FIELD_END: return "unterminated-field";
    case RS_LOGLINE_DIRECTIVE:     return "directive";
    case RS_LOGLINE_NO_FIELDS:     return "no-fields-header";
    case RS_LOGLINE_BAD_JSON:      return "bad-json";
    }
    return "unknown";
}

/* ===== Timestamps ===== */

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = (unsigned)(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

/* Reads exactly @n digits at s[*pos]. */
static int digits(const char *s, size_t len, size_t *pos, unsigned n, unsigned *val)
{
    unsigned v = 0;
    if (len - *pos < n) return 0;
    for (unsigned k = 0; k < n; k++) {
        unsigned char c = (unsigned char)s[*pos + k];
        if (c < '0' || c > '9') return 0;
        v = v * 10 + (c - '0');
    }
    *pos += n;
    *val = v;
    return 1;
}

static int expect(const char *s, size_t len, size_t *pos, char c)
{
    if (*pos >= len || s[*pos] != c) return 0;
    (*pos)++;
    return 1;
}

static int valid_date(unsigned y, unsigned mo, unsigned d, unsigned h, unsigned mi, unsigned sec)
{
    static const unsigned char mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1]) return 0;
    if (mo == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)) return 0;
    return h <= 23 && mi <= 59 && sec <= 60;   /* 60: a leap second, as written */
}

static int64_t to_epoch(unsigned y, unsigned mo, unsigned d, unsigned h, unsigned mi, unsigned sec,
                        int offset_min)
{
    return days_from_civil((int64_t)y, mo, d) * 86400 + (int64_t)h * 3600 + (int64_t)mi * 60 + sec
           - (int64_t)offset_min * 60;
}

/* `+hhmm`, `+hh:mm`, `-...`, or `Z` when @allow_z. */
static int zone(const char *s, size_t len, size_t *pos, int allow_z, int *offset_min)
{
    if (allow_z && *pos < len && (s[*pos] == 'Z' || s[*pos] == 'z')) {
        (*pos)++;
        *offset_min = 0;
        return 1;
    }
    if (*pos >= len || (s[*pos] != '+' && s[*pos] != '-')) return 0;
    const int neg = s[*pos] == '-';
    (*pos)++;
    unsigned hh, mm;
    if (!digits(s, len, pos, 2, &hh)) return 0;
    (void)expect(s, len, pos, ':');
    if (!digits(s, len, pos, 2, &mm)) return 0;
    if (hh > 23 || mm > 59) return 0;
    *offset_min = (neg ? -1 : 1) * (int)(hh * 60 + mm);
    return 1;
}

/* 17/May/2015:10:05:03 +0000 */
static int parse_time_local(const char *s, size_t len, int64_t *epoch)
{
    static const char months[] = "janfebmaraprmayjunjulaugsepoctnovdec";
    size_t pos = 0;
    unsigned d, mo = 0, y, h, mi, sec;
    if (!digits(s, len, &pos, 2, &d) || !expect(s, len, &pos, '/') || len - pos < 3) return 0;
    for (unsigned k = 0; k < 12; k++) {
        if (rs_ieq(s + pos, 3, months + 3 * k, 3)) { mo = k + 1; break; }
    }
    if (mo == 0) return 0;
    pos += 3;
    int off;
    if (!expect(s, len, &pos, '/') || !digits(s, len, &pos, 4, &y) || !expect(s, len, &pos, ':') ||
        !digits(s, len, &pos, 2, &h) || !expect(s, len, &pos, ':') || !digits(s, len, &pos, 2, &mi) ||
        !expect(s, len, &pos, ':') || !digits(s, len, &pos, 2, &sec) || !expect(s, len, &pos, ' ') ||
        !zone(s, len, &pos, 0, &off) || pos != len || !valid_date(y, mo, d, h, mi, sec))
        return 0;
    *epoch = to_epoch(y, mo, d, h, mi, sec, off);
    return 1;
}

/* 2015-05-17T10:05:03+00:00, optional .fraction, Z allowed */
static int parse_time_iso(const char *s, size_t len, int64_t *epoch)
{
    size_t pos = 0;
    unsigned y, mo, d, h, mi, sec;
    int off;
    if (!digits(s, len, &pos, 4, &y) || !expect(s, len, &pos, '-') || !digits(s, len, &pos, 2, &mo) ||
        !expect(s, len, &pos, '-') || !digits(s, len, &pos, 2, &d) ||
        !(expect(s, len, &pos, 'T') || expect(s, len, &pos, ' ')) || !digits(s, len, &pos, 2, &h) ||
        !expect(s, len, &pos, ':') || !digits(s, len, &pos, 2, &mi) || !expect(s, len, &pos, ':') ||
        !digits(s, len, &pos, 2, &sec))
        return 0;
    if (expect(s, len, &pos, '.')) {
        size_t start = pos;
        while (pos < len && s[pos] >= '0' && s[pos] <= '9') pos++;
        if (pos == start) return 0;
    }
    if (!zone(s, len, &pos, 1, &off) || pos != len || !valid_date(y, mo, d, h, mi, sec)) return 0;
    *epoch = to_epoch(y, mo, d, h, mi, sec, off);
    return 1;
}

/* 1431857103.123 (seconds, optional fraction; fractions are dropped) */
static int parse_msec(const char *s, size_t len, int64_t *epoch)
{
    size_t pos = 0;
    int64_t v = 0;
    while (pos < len && s[pos] >= '0' && s[pos] <= '9') {
        if (pos >= 15) return 0;  /* beyond year 30000000: not a timestamp */
        v = v * 10 + (s[pos] - '0');
        pos++;
    }
    if (pos == 0) return 0;
    if (pos < len) {
        if (s[pos] != '.' || pos + 1 == len) return 0;
        for (pos++; pos < len; pos++)
            if (s[pos] < '0' || s[pos] > '9') return 0;
    }
    *epoch = v;
    return 1;
}

int rs_log_parse_time(const char *s, size_t len, int64_t *epoch)
{
    if (s == NULL || len < 1) return 0;
    if (len >= 5 && s[2] == '/') return parse_time_local(s, len, epoch);
    if (len >= 5 && s[4] == '-') return parse_time_iso(s, len, epoch);
    return parse_msec(s, len, epoch);
}

/* ===== Line parsing ===== */

/* { '"', '\\' }: what ends or escapes inside a quoted field. */
static const rs_byteset quote_or_backslash = {
    {(1ull << '"'), (1ull << ('\\' - 64)), 0, 0}, {'"', '\\'}, 2
};

static int is_ws(char c) { return c == ' ' || c == '\t'; }

/* Matches literal @lit at line[*pos]; a space in the literal takes a run of
 * spaces/tabs. @return 1 and advances *pos, or 0. */
static int match_literal(const char *lit, size_t lit_len, const char *line, size_t len, size_t *pos)
{
    size_t p = *pos;
    for (size_t k = 0; k < lit_len; k++) {
        if (lit[k] == ' ') {
            if (p >= len || !is_ws(line[p])) return 0;
            while (p < len && is_ws(line[p])) p++;
        } else {
            if (p >= len || line[p] != lit[k]) return 0;
            p++;
        }
    }
    *pos = p;
    return 1;
}

static const char *find_ws(const char *p, const char *end)
{
    while (p < end && !is_ws(*p)) p++;
    return p;
}

static int parse_uint(rs_str s, unsigned max_digits, int64_t *v)
{
    if (s.len == 0 || s.len > max_digits) return 0;
    int64_t x = 0;
    for (size_t k = 0; k < s.len; k++) {
        unsigned char c = (unsigned char)s.ptr[k];
        if (c < '0' || c > '9') return 0;
        x = x * 10 + (c - '0');
    }
    *v = x;
    return 1;
}

static int is_method_char(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/* METHOD SP TARGET [SP PROTOCOL]; a target may itself contain spaces. */
void rs_logline_split_request(rs_logrec *r)
{
    const char *s = r->request.ptr, *end = s + r->request.len;
    const char *sp = s;
    while (sp < end && *sp != ' ') {
        if (!is_method_char((unsigned char)*sp)) goto bad;
        sp++;
    }
    if (sp == s || sp == end) goto bad;
    const char *t = sp;
    while (t < end && *t == ' ') t++;
    const char *te = end;
    while (te > t && te[-1] == ' ') te--;
    if (t == te) goto bad;
    r->method = (rs_str){s, (size_t)(sp - s)};
    const char *last = te;
    while (last > t && last[-1] != ' ') last--;
    if (last > t && rs_istarts(last, (size_t)(te - last), "HTTP/")) {
        r->protocol = (rs_str){last, (size_t)(te - last)};
        te = last;
        while (te > t && te[-1] == ' ') te--;
    }
    r->target = (rs_str){t, (size_t)(te - t)};
    return;
bad:
    r->flags |= RS_LOGREC_BAD_REQUEST;
}

/* Stores a field value; `-` becomes empty. @return 0 on a bad value. */
static rs_logline_status store(rs_logrec *r, enum field f, rs_str v)
{
    const int dash = v.len == 1 && v.ptr[0] == '-';
    const rs_str val = dash ? (rs_str){v.ptr, 0} : v;
    int64_t x;
    switch (f) {
    case F_SKIP:     break;
    case F_CLIENT:   r->client = val; break;
    case F_USER:     r->user = val; break;
    case F_HOST:     r->host = val; break;
    case F_PORT:     r->port = val; break;
    case F_REQUEST:  r->request = val; break;
    case F_METHOD:   r->method = val; break;
    case F_URI:      r->target = val; break;
    case F_PROTOCOL: r->protocol = val; break;
    case F_REFERER:  r->referer = val; break;
    case F_UA:       r->user_agent = val; break;
    case F_TIME_LOCAL:
    case F_TIME_ISO:
    case F_MSEC: {
        r->time = v;
        int ok = f == F_TIME_LOCAL ? parse_time_local(v.ptr, v.len, &r->epoch)
               : f == F_TIME_ISO   ? parse_time_iso(v.ptr, v.len, &r->epoch)
                                   : parse_msec(v.ptr, v.len, &r->epoch);
        if (!ok) return RS_LOGLINE_BAD_TIME;
        r->flags |= RS_LOGREC_HAS_TIME;
        break;
    }
    case F_STATUS:
        if (dash) break;
        if (!parse_uint(v, 3, &x)) return RS_LOGLINE_BAD_STATUS;
        r->status = (int)x;
        break;
    case F_BYTES:
        if (dash) break;
        if (!parse_uint(v, 18, &x)) return RS_LOGLINE_BAD_STATUS;
        r->bytes = x;
        break;
    }
    return RS_LOGLINE_OK;
}

/* Every slice empty but pointing into the line, so callers may memcmp/memcpy
 * any of them without a NULL check. */
static void clear(rs_logrec *r, const char *line)
{
    memset(r, 0, sizeof *r);
    const rs_str none = {line, 0};
    r->client = r->user = r->host = r->port = r->time = r->request = none;
    r->method = r->target = r->protocol = r->referer = r->user_agent = r->scheme = none;
    r->bytes = -1;
}

/* ===== The combined layout in one pass =====
 *
 * Most logs are combined. parse_combined_fast() reads the usual shape of such
 * a line from one bitmap of its `"`, `\` and tab bytes (rs_simd_mask_any):
 * no backslash, no tab, exactly six quotes, each where the layout wants it.
 * Then every field ends where the item walk of rs_logline_parse would end it
 * (a quoted field at the first `"` followed by the rest of its literal, an
 * unquoted one at the first space), so the record is the same; any other
 * line (and every failure) goes to the item walk, which decides it. */

/* {'"', '\\', '\t'} */
static const rs_byteset quote_backslash_tab = {
    {(1ull << '"') | (1ull << '\t'), (1ull << ('\\' - 64)), 0, 0}, {'"', '\\', '\t'}, 3
};

#define FAST_MAX_LINE 4096   /* longer lines take the item walk */

/* parse_time_local through @tc: a line of the cached date and zone reads only
 * hh:mm:ss (the date was validated when cached; only the clock can be wrong). */
static inline uint32_t load32(const char *p)
{
    uint32_t x;
    memcpy(&x, p, 4);
    return x;
}

/* Whether the 8 bytes at @c read `dd:dd:dd` (SWAR: each digit lane minus '0'
 * must stay below 10 without borrowing; the colon lanes must be equal). */
static inline int is_clock(const char *c)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    for (int k = 0; k < 8; k++)
        if (k == 2 || k == 5 ? c[k] != ':' : (unsigned)((unsigned char)c[k] - '0') > 9) return 0;
    return 1;
#endif
    const uint64_t x = rs_load64(c);
    const uint64_t colons = 0x0000FF0000FF0000ull;           /* bytes 2 and 5 (little-endian lanes) */
    const uint64_t want = 0x00003A00003A0000ull;             /* ':' there */
    if (((x & colons) ^ want) != 0) return 0;
    const uint64_t d = (x & ~colons) | (0x3030303030303030ull & colons);   /* colons read as '0' */
    const uint64_t lo = d - 0x3030303030303030ull;           /* borrow into bit 7 when a byte < '0' */
    const uint64_t hi = d + 0x4646464646464646ull;           /* bit 7 set when a byte > '9' (0x39 + 0x46 = 0x7F) */
    return ((lo | hi | d) & 0x8080808080808080ull) == 0;
}

static int time_local_cached(rs_logtime_cache *tc, const char *s, size_t len, int64_t *epoch)
{
    if (tc != NULL && len == 26 && tc->valid && rs_load64(s) == rs_load64(tc->date) && load32(s + 8) == load32(tc->date + 8)
        && load32(s + 20) == load32(tc->zone) && s[24] == tc->zone[4] && s[25] == tc->zone[5]) {
        const unsigned char *c = (const unsigned char *)s + 12;
        if (!is_clock(s + 12)) return parse_time_local(s, len, epoch);
        const unsigned h = (c[0] - '0') * 10u + (c[1] - '0'), mi = (c[3] - '0') * 10u + (c[4] - '0'),
                       sec = (c[6] - '0') * 10u + (c[7] - '0');
        if (h > 23 || mi > 59 || sec > 60) return 0;
        *epoch = tc->base + (int64_t)h * 3600 + (int64_t)mi * 60 + sec;
        return 1;
    }
    if (!parse_time_local(s, len, epoch)) return 0;
    if (tc != NULL && len == 26) {
        const unsigned char *c = (const unsigned char *)s + 12;
        const int64_t clock = ((c[0] - '0') * 10 + (c[1] - '0')) * 3600 + ((c[3] - '0') * 10 + (c[4] - '0')) * 60
                              + (c[6] - '0') * 10 + (c[7] - '0');
        memcpy(tc->date, s, 12);
        memcpy(tc->zone, s + 20, 6);
        tc->base = *epoch - clock;
        tc->valid = 1;
    }
    return 1;
}

/* The end of a run of spaces at p (no tabs: the caller saw none in the line). */
static inline const char *skip_spaces(const char *p, const char *end)
{
    while (p < end && *p == ' ') p++;
    return p;
}

/* The same from @e, a space: the usual single space costs one test. */
static inline const char *after_space(const char *e, const char *end)
{
    const char *p = e + 1;
    return p < end && *p == ' ' ? skip_spaces(p, end) : p;
}

/* The first space in [p, end), or NULL; 8 bytes at a time while they fit. */
static inline const char *find_space(const char *p, const char *end)
{
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_BIG_ENDIAN__
    for (; end - p >= 8; p += 8) {
        const uint64_t x = rs_load64(p) ^ 0x2020202020202020ull;   /* a space becomes 0 */
        const uint64_t z = (x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull;
        if (z) return p + (__builtin_ctzll(z) >> 3);   /* the lowest zero byte is exact */
    }
#endif
    for (; p < end; p++)
        if (*p == ' ') return p;
    return NULL;
}

/* A field value as store() keeps it: `-` is empty. */
static inline rs_str field(const char *p, const char *e)
{
    return e - p == 1 && *p == '-' ? (rs_str){p, 0} : (rs_str){p, (size_t)(e - p)};
}

/* Digits only, at most @max of them (`-` is handled by the caller). */
static inline int read_uint(const char *p, const char *e, size_t max, int64_t *v)
{
    if (p == e || (size_t)(e - p) > max) return 0;
    int64_t x = 0;
    for (; p < e; p++) {
        const unsigned d = (unsigned char)*p - (unsigned)'0';
        if (d > 9) return 0;
        x = x * 10 + d;
    }
    *v = x;
    return 1;
}

/* rs_logline_split_request for the usual `METHOD SP target SP HTTP/1.x`
 * (same slices); 0 for anything else, left to it. */
static inline int split_request_usual(rs_logrec *r)
{
    const char *s = r->request.ptr, *end = s + r->request.len, *sp = s;
    /* method bytes: A-Z a-z 0-9 - _ (is_method_char), as a bitmap of the low 128 */
    static const uint64_t method_bits[2] = { 0x03FF200000000000ull, 0x07FFFFFE87FFFFFEull };
    if (end - s > 4 && load32(s) == load32("GET ")) sp = s + 3;    /* most requests */
    else
        for (unsigned char c; sp < end && (c = (unsigned char)*sp) < 128 && (method_bits[c >> 6] >> (c & 63) & 1);)
            sp++;
    if (sp == s || sp == end || *sp != ' ') return 0;
    const char *t = skip_spaces(sp, end);
    if (end - t < 10 || end[-1] == ' ' || end[-9] != ' ' || load32(end - 8) != load32("HTTP")
        || end[-4] != '/' || end[-3] != '1' || end[-2] != '.')
        return 0;
    const char *te = end - 9;
    while (te > t && te[-1] == ' ') te--;
    r->method = (rs_str){s, (size_t)(sp - s)};
    r->protocol = (rs_str){end - 8, 8};
    r->target = (rs_str){t, (size_t)(te - t)};
    return 1;
}

/* @return 1 with *out filled as the item walk fills it, 0 to leave the line to
 * the item walk (*out is then unspecified). @line has no trailing '\r';
 * len > 0, line[0] not blank. */
static int parse_combined_fast(rs_logtime_cache *tc, const char *line, size_t len, rs_logrec *out)
{
    if (len > FAST_MAX_LINE) return 0;
    uint64_t bits[FAST_MAX_LINE / 64];
    if (rs_simd_mask_any(line, len, &quote_backslash_tab, bits) != 6) return 0;
    const char *q[6];
    size_t nq = 0;
    for (size_t w = 0; nq < 6; w++)
        for (uint64_t m = bits[w]; m; m &= m - 1) q[nq++] = line + w * 64 + (size_t)__builtin_ctzll(m);
    if ((*q[0] ^ '"') | (*q[1] ^ '"') | (*q[2] ^ '"') | (*q[3] ^ '"') | (*q[4] ^ '"') | (*q[5] ^ '"'))
        return 0;                                     /* a backslash or a tab */
    const char *const end = line + len;

    /* client SP ident SP user SP [time] SP " : all before q[0] */
    const char *p = line, *e, *c0, *c1, *u0, *u1;
    if ((e = find_space(p, q[0])) == NULL) return 0;
    c0 = p;
    c1 = e;
    p = after_space(e, q[0]);
    if ((e = find_space(p, q[0])) == NULL) return 0;   /* ident: skipped */
    p = after_space(e, q[0]);
    if ((e = find_space(p, q[0])) == NULL) return 0;
    u0 = p;
    u1 = e;
    p = after_space(e, q[0]);
    /* [dd/Mon/yyyy:hh:mm:ss +hhmm]: a time that parses has no `]`, so the
     * `]` after its 26 bytes is the first one, where the item walk ends it. */
    if (q[0] - p < 29 || p[0] != '[' || p[27] != ']' || p[28] != ' ') return 0;
    const rs_str time = {p + 1, 26};
    if (after_space(p + 28, q[0]) != q[0]) return 0;

    /* "request" SP status SP bytes SP "referer" SP "user agent" */
    if (q[1][1] != ' ') return 0;                     /* q[1] < q[5]: in the line */
    p = after_space(q[1] + 1, q[2]);
    const char *s0 = p;
    if ((e = find_space(p, q[2])) == NULL) return 0;
    const char *s1 = e;
    p = after_space(e, q[2]);
    const char *b0 = p;
    if ((e = find_space(p, q[2])) == NULL) return 0;
    const char *b1 = e;
    if (after_space(e, q[2]) != q[2]) return 0;
    if (q[3][1] != ' ' || after_space(q[3] + 1, q[4]) != q[4]) return 0;
    const int extra = q[5] + 1 < end;
    if (extra && q[5][1] != ' ') return 0;

    int64_t epoch, status = 0, bytes = -1;
    if (!time_local_cached(tc, time.ptr, time.len, &epoch)) return 0;
    if (!(s1 - s0 == 1 && *s0 == '-') && !read_uint(s0, s1, 3, &status)) return 0;
    if (!(b1 - b0 == 1 && *b0 == '-') && !read_uint(b0, b1, 18, &bytes)) return 0;
    const rs_str none = {line, 0};
    *out = (rs_logrec){
        .client = field(c0, c1), .user = field(u0, u1), .host = none, .port = none, .time = time,
        .request = field(q[0] + 1, q[1]), .method = none, .target = none, .protocol = none,
        .referer = field(q[2] + 1, q[3]), .user_agent = field(q[4] + 1, q[5]), .epoch = epoch,
        .bytes = bytes, .status = (int)status, .flags = RS_LOGREC_HAS_TIME | (extra ? RS_LOGREC_EXTRA_FIELDS : 0u),
        .error_offset = 0, .scheme = none,
    };
    if (out->request.len == 0) out->flags |= RS_LOGREC_BAD_REQUEST;
    else if (!split_request_usual(out)) rs_logline_split_request(out);
    return 1;
}

static rs_logline_status walk(const rs_logformat *fmt, const char *line, size_t len, rs_logrec *out, int vec);
static int parse_alb_fast(rs_logtime_cache *tc, const char *line, size_t len, rs_logrec *out);

rs_logline_status rs_logline_parse(const rs_logformat *fmt, const char *line, size_t len,
                                   rs_logrec *out)
{
    return rs_logline_parse_cached(fmt, NULL, line, len, out);
}

rs_logline_status rs_logline_parse_cached(const rs_logformat *fmt, rs_logtime_cache *tc, const char *line,
                                          size_t len, rs_logrec *out)
{
    if ((fmt->combined || fmt->alb) && len > 0) {
        const size_t n = line[len - 1] == '\r' ? len - 1 : len;
        if (n > 0 && !is_ws(line[0]) && line[0] != '\r' && line[0] != '\n') {
            if (fmt->combined ? parse_combined_fast(tc, line, n, out) : parse_alb_fast(tc, line, n, out))
                return RS_LOGLINE_OK;
        }
    }
    return walk(fmt, line, len, out, 1);
}

/* Spaces and tabs (and quotes, backslashes: one bitmap serves both), where
 * unquoted walk fields end. */
static const rs_byteset ws_quote_backslash = {
    {(1ull << ' ') | (1ull << '\t') | (1ull << '"'), 1ull << ('\\' - 64), 0, 0}, {' ', '\t', '"', '\\'}, 4};

/* find_ws(p, end) from @mask (bits of ws_quote_backslash over line[0, end - line)). */
static inline const char *mask_find_ws(const uint64_t *mask, const char *line, const char *p, const char *end)
{
    const size_t len = (size_t)(end - line), words = (len + 63) >> 6;
    size_t i = (size_t)(p - line);
    for (;;) {
        size_t w = i >> 6;
        if (w >= words) return end;
        uint64_t m = mask[w] & (~0ull << (i & 63));
        while (m == 0) {
            if (++w >= words) return end;
            m = mask[w];
        }
        i = (w << 6) + (size_t)__builtin_ctzll(m);
        if (i >= len) return end;
        if (is_ws(line[i])) return line + i;
        i++;
    }
}

/* ===== The ALB layout in one pass =====
 *
 * parse_alb_fast() reads the usual ALB line from one bitmap of its spaces,
 * tabs, quotes and backslashes: twelve fields each ended by one space, then
 * `"request" "user agent"` without a backslash or a tab, one space between
 * them, the agent's `"` followed by a space or the end. Each field then ends
 * where the item walk would end it (an unquoted field at its first blank,
 * client:port at the last ':' before it, a quoted one at the first `"`
 * followed by the rest of its literal), so the record is the same; any other
 * line (and every failure) goes to the item walk, which decides it. The walk
 * steps through 30 items: ~20% of an ALB run. */
/* Whether @t[0, n) is what may follow the clock of a UTC ISO time for
 * parse_time_iso: `Z` or `.` digits `Z` (`z` too). */
static inline int iso_tail_z(const char *t, size_t n)
{
    if (n == 0 || (t[n - 1] != 'Z' && t[n - 1] != 'z')) return 0;
    if (n == 1) return 1;
    if (n < 3 || t[0] != '.') return 0;
    for (size_t k = 1; k + 1 < n; k++)
        if ((unsigned)((unsigned char)t[k] - '0') > 9) return 0;
    return 1;
}

/* parse_time_iso through @tc (NULL: none) for `YYYY-MM-DDThh:mm:ss[.frac]Z`:
 * a line of the cached date reads only hh:mm:ss (the date was validated when
 * cached); anything else is parsed whole. */
static int time_iso_cached(rs_logtime_cache *tc, const char *s, size_t len, int64_t *epoch)
{
    if (tc == NULL || len < 20 || s[10] != 'T' || !is_clock(s + 11) || !iso_tail_z(s + 19, len - 19))
        return parse_time_iso(s, len, epoch);
    const unsigned char *c = (const unsigned char *)s + 11;
    const unsigned h = (c[0] - '0') * 10u + (c[1] - '0'), mi = (c[3] - '0') * 10u + (c[4] - '0'),
                   sec = (c[6] - '0') * 10u + (c[7] - '0');
    if (tc->iso_valid && rs_load64(s) == rs_load64(tc->iso_date) && s[8] == tc->iso_date[8] && s[9] == tc->iso_date[9]) {
        if (h > 23 || mi > 59 || sec > 60) return 0;
        *epoch = tc->iso_base + (int64_t)h * 3600 + (int64_t)mi * 60 + sec;
        return 1;
    }
    if (!parse_time_iso(s, len, epoch)) return 0;
    memcpy(tc->iso_date, s, 10);
    tc->iso_base = *epoch - ((int64_t)h * 3600 + (int64_t)mi * 60 + sec);
    tc->iso_valid = 1;
    return 1;
}

static int parse_alb_fast(rs_logtime_cache *tc, const char *line, size_t len, rs_logrec *out)
{
    if (len > FAST_MAX_LINE) return 0;
    uint64_t bits[FAST_MAX_LINE / 64];
    rs_simd_mask_any(line, len, &ws_quote_backslash, bits);
    const size_t words = (len + 63) >> 6;
    size_t w = 0;
    uint64_t m = bits[0];
    /* The next blank, quote or backslash (its position into at), or return 0. */
#define NEXT(at)                                                        \
    do {                                                                \
        while (m == 0) {                                                \
            if (++w >= words) return 0;                                 \
            m = bits[w];                                                \
        }                                                               \
        (at) = (w << 6) + (size_t)__builtin_ctzll(m);                   \
        m &= m - 1;                                                     \
    } while (0)
    size_t sep[12], at, start = 0;
    for (int k = 0; k < 12; k++) {       /* a field, then one space (not a run) */
        NEXT(at);
        if (line[at] != ' ' || at == start) return 0;
        sep[k] = at;
        start = at + 1;
    }
    NEXT(at);                            /* "request" */
    const size_t q0 = at;
    if (q0 != sep[11] + 1 || line[q0] != '"') return 0;
    do NEXT(at); while (line[at] == ' ');
    const size_t q1 = at;
    if (line[q1] != '"' || q1 + 2 >= len || line[q1 + 1] != ' ' || line[q1 + 2] != '"') return 0;
    NEXT(at);                            /* the space and the `"` after it */
    NEXT(at);
    do NEXT(at); while (line[at] == ' ');   /* "user agent" */
    const size_t q2 = at;
    if (line[q2] != '"' || (q2 + 1 < len && !is_ws(line[q2 + 1]))) return 0;
#undef NEXT
    const char *const c0 = line + sep[2] + 1, *const c1 = line + sep[3];
    const char *const colon = memrchr(c0, ':', (size_t)(c1 - c0));
    if (colon == NULL) return 0;
    const rs_str time = {line + sep[0] + 1, sep[1] - sep[0] - 1};
    int64_t epoch, status = 0, bytes = -1;
    if (!time_iso_cached(tc, time.ptr, time.len, &epoch)) return 0;
    const char *const s0 = line + sep[7] + 1, *const s1 = line + sep[8];
    if (!(s1 - s0 == 1 && *s0 == '-') && !read_uint(s0, s1, 3, &status)) return 0;
    const char *const b0 = line + sep[10] + 1, *const b1 = line + sep[11];
    if (!(b1 - b0 == 1 && *b0 == '-') && !read_uint(b0, b1, 18, &bytes)) return 0;
    const rs_str none = {line, 0};
    *out = (rs_logrec){
        .client = field(c0, colon), .user = none, .host = none, .port = none, .time = time,
        .request = field(line + q0 + 1, line + q1), .method = none, .target = none, .protocol = none,
        .referer = none, .user_agent = field(line + q1 + 3, line + q2), .epoch = epoch, .bytes = bytes,
        .status = (int)status, .flags = RS_LOGREC_HAS_TIME | (q2 + 1 < len ? RS_LOGREC_EXTRA_FIELDS : 0u),
        .error_offset = 0, .scheme = none,
    };
    if (out->request.len == 0) out->flags |= RS_LOGREC_BAD_REQUEST;
    else if (!split_request_usual(out)) rs_logline_split_request(out);
    return 1;
}

/* The item walk; @vec: find where unquoted fields end from one bitmap of the
 * line (rs_simd_mask_any) instead of byte by byte (same result). */
static rs_logline_status walk(const rs_logformat *fmt, const char *line, size_t len, rs_logrec *out, int vec)
{
    clear(out, line);
    if (len > 0 && line[len - 1] == '\r') len--;
    {
        size_t k = 0;
        while (k < len && (is_ws(line[k]) || line[k] == '\r' || line[k] == '\n')) k++;
        if (k == len) return RS_LOGLINE_EMPTY;
    }
    const char *const end = line + len;
    uint64_t bits[FAST_MAX_LINE / 64];
    const uint64_t *mask = NULL;
    if (vec && len <= FAST_MAX_LINE) {
        rs_simd_mask_any(line, len, &ws_quote_backslash, bits);
        mask = bits;
    }
#define FIND_WS(p_) (mask ? mask_find_ws(mask, line, (p_), end) : find_ws((p_), end))
    size_t pos = 0;
    rs_logline_status st = RS_LOGLINE_OK;

    for (size_t k = 0; k < fmt->n_items; k++) {
        const item *it = &fmt->items[k];
        if (it->lit_len != 0) {
            if (!match_literal(fmt->text + it->lit_off, it->lit_len, line, len, &pos)) {
                st = RS_LOGLINE_BAD_LAYOUT;
                goto fail;
            }
            continue;
        }
        const item *nx = k + 1 < fmt->n_items ? &fmt->items[k + 1] : NULL;
        const char *start = line + pos, *fend;
        if (nx == NULL) {
            fend = FIND_WS(start);
        } else if (it->quoted) {
            /* The next literal starts with '"'; the rest of it must follow. */
            const char *rest = fmt->text + nx->lit_off + 1;
            const size_t rest_len = nx->lit_len - 1;
            const int last = k + 2 == fmt->n_items;
            const char *p = start;
            fend = NULL;
            while (p < end) {
                /* Jump to the next `"` or `\` (vector kernel: user agents are long). */
                p += rs_simd_find_any(p, (size_t)(end - p), &quote_or_backslash);
                if (p >= end) break;
                if (*p == '\\') {            /* skip the escaped byte */
                    if (end - p < 2) break;
                    p += 2;
                    continue;
                }
                if (*p == '"') {
                    size_t after = (size_t)(p + 1 - line);
                    if (match_literal(rest, rest_len, line, len, &after) &&
                        (!last || after == len || is_ws(line[after]))) {
                        fend = p;
                        break;
                    }
                }
                p++;
            }
            if (fend == NULL) {
                st = RS_LOGLINE_NOT_FIELD_END;
                pos = len;
                goto fail;
            }
        } else {
            const char c = fmt->text[nx->lit_off];
            if (c == ' ' && it->field == F_TIME_LOCAL) {
                /* `17/May/2015:10:05:03 +0000` outside brackets: two words. */
                fend = FIND_WS(start);
                const char *z = fend;
                while (z < end && is_ws(*z)) z++;
                if (z < end && (*z == '+' || *z == '-')) fend = FIND_WS(z);
            } else if (c == ' ') {
                fend = FIND_WS(start);
            } else if (c == ':') {
                const char *ws = FIND_WS(start);
                fend = ws;
                while (fend > start && fend[-1] != ':') fend--;
                if (fend == start) { st = RS_LOGLINE_BAD_LAYOUT; goto fail; }
                fend--;
            } else {
                fend = memchr(start, c, (size_t)(end - start));
                if (fend == NULL) { st = RS_LOGLINE_BAD_LAYOUT; pos = len; goto fail; }
            }
        }
        st = store(out, (enum field)it->field, (rs_str){start, (size_t)(fend - start)});
        if (st != RS_LOGLINE_OK) goto fail;
        pos = (size_t)(fend - line);
    }
    if (pos < len) {
        if (!is_ws(line[pos])) { st = RS_LOGLINE_BAD_LAYOUT; goto fail; }
        out->flags |= RS_LOGREC_EXTRA_FIELDS;
    }
    if (out->request.len > 0) rs_logline_split_request(out);
    else if (fmt->fields & RS_LOGF_REQUEST && out->method.len == 0 && out->target.len == 0)
        out->flags |= RS_LOGREC_BAD_REQUEST;
    return RS_LOGLINE_OK;
fail:
    clear(out, line);
    out->error_offset = pos;
    return st;
#undef FIND_WS
}

rs_logline_status rs_logline_parse_walk(const rs_logformat *fmt, const char *line, size_t len, rs_logrec *out)
{
    return walk(fmt, line, len, out, 0);
}
