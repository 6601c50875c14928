/*
 * lint.c - robots.txt diagnostics: what the parser will actually do with
 * lines that probably do not mean what their author thinks (SPEC 2, google
 * semantics), and what one agent gets from a file (rs_lint_agent).
 *
 * It is a second handler of rs_robots_parse events (the rule compiler is the
 * first), so it sees lines exactly as matching does: same line numbers, same
 * keys, same canonical patterns. Per-line checks run in the event handler;
 * whole-file checks (BOM, size, HTML, groups, conflicting rules) run after
 * the parse. Findings are buffered, sorted by line and then delivered.
 *
 * It does not read files, know file names or format output: the CLI does.
 * Lines that produce no event (empty, or only a comment) have no effect on
 * matching and get no finding, not even for bytes that are not UTF-8.
 */
#include "common/common.h"
#include "rules/ruleset.h"

#include <stdarg.h>
#include <stdio.h>

/* Messages spell the limits out. */
_Static_assert(RS_ROBOTS_MAX_LINE == 16663 && RS_ROBOTS_MAX_BODY == 512000, "update the messages");

/* ===== Codes ===== */

static const struct {
    const char *name;
    rs_lint_severity severity;
} CODES[RS_LINT_CODE_COUNT] = {
    [RS_LINT_TYPO_KEY]              = { "typo-key",              RS_LINT_WARNING },
    [RS_LINT_MISSING_COLON]         = { "missing-colon",         RS_LINT_WARNING },
    [RS_LINT_LINE_TOO_LONG]         = { "line-too-long",         RS_LINT_WARNING },
    [RS_LINT_RULE_OUTSIDE_GROUP]    = { "rule-outside-group",    RS_LINT_WARNING },
    [RS_LINT_UNKNOWN_KEY]           = { "unknown-key",           RS_LINT_INFO },
    [RS_LINT_PATTERN_NEVER_MATCHES] = { "pattern-never-matches", RS_LINT_WARNING },
    [RS_LINT_DOLLAR_NOT_AT_END]     = { "dollar-not-at-end",     RS_LINT_WARNING },
    [RS_LINT_CONFLICTING_RULES]     = { "conflicting-rules",     RS_LINT_WARNING },
    [RS_LINT_USER_AGENT_NOT_TOKEN]  = { "user-agent-not-token",  RS_LINT_INFO },
    [RS_LINT_EMPTY_USER_AGENT]      = { "empty-user-agent",      RS_LINT_WARNING },
    [RS_LINT_SITEMAP_NOT_ABSOLUTE]  = { "sitemap-not-absolute",  RS_LINT_WARNING },
    [RS_LINT_FILE_TOO_LARGE]        = { "file-too-large",        RS_LINT_ERROR },
    [RS_LINT_BOM]                   = { "bom",                   RS_LINT_INFO },
    [RS_LINT_INVALID_UTF8]          = { "invalid-utf8",          RS_LINT_WARNING },
    [RS_LINT_HTML_CONTENT]          = { "html-content",          RS_LINT_ERROR },
    [RS_LINT_NO_GROUPS]             = { "no-groups",             RS_LINT_WARNING },
    [RS_LINT_IGNORED_LINE]          = { "ignored-line",          RS_LINT_WARNING },
    [RS_LINT_MISSPELLED_KEY]        = { "misspelled-key",        RS_LINT_WARNING },
    [RS_LINT_NUL_BYTE]              = { "nul-byte",              RS_LINT_WARNING },
    [RS_LINT_EMPTY_GROUP]           = { "empty-group",           RS_LINT_WARNING },
};

const char *rs_lint_code_name(rs_lint_code code)
{
    return (unsigned)code < RS_LINT_CODE_COUNT ? CODES[code].name : NULL;
}

rs_lint_severity rs_lint_code_severity(rs_lint_code code)
{
    return (unsigned)code < RS_LINT_CODE_COUNT ? CODES[code].severity : RS_LINT_ERROR;
}

const char *rs_lint_severity_name(rs_lint_severity sev)
{
    switch (sev) {
    case RS_LINT_INFO: return "info";
    case RS_LINT_WARNING: return "warning";
    case RS_LINT_ERROR: return "error";
    }
    return "error";
}

/* On an HTML page every line is noise of the same cause: these are dropped. */
#define HTML_SUPPRESSED ((1u << RS_LINT_IGNORED_LINE) | (1u << RS_LINT_UNKNOWN_KEY) \
                         | (1u << RS_LINT_MISSPELLED_KEY) | (1u << RS_LINT_MISSING_COLON))

/* ===== Byte helpers ===== */

static int is_space(unsigned char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

/* Length of the valid UTF-8 sequence at p (1..4), or 0 if invalid. *incomplete
 * is set when the bytes are a valid start cut short by the end of the buffer. */
static size_t utf8_seq(const unsigned char *p, size_t n, int *incomplete)
{
    *incomplete = 0;
    const unsigned char c = p[0];
    if (c < 0x80) return 1;
    size_t need;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) need = 1;
    else if (c == 0xE0) { need = 2; lo = 0xA0; }
    else if (c == 0xED) { need = 2; hi = 0x9F; }
    else if (c >= 0xE1 && c <= 0xEF) need = 2;
    else if (c == 0xF0) { need = 3; lo = 0x90; }
    else if (c == 0xF4) { need = 3; hi = 0x8F; }
    else if (c >= 0xF1 && c <= 0xF3) need = 3;
    else return 0;
    for (size_t k = 1; k <= need; k++) {
        if (k >= n) { *incomplete = 1; return 0; }
        const unsigned char b = p[k];
        if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return 0;
    }
    return need + 1;
}

/* Offset of the first byte that is not valid UTF-8, or n. */
static size_t utf8_first_bad(const char *s, size_t n, int *incomplete)
{
    const unsigned char *p = (const unsigned char *)s;
    *incomplete = 0;
    for (size_t i = 0; i < n;) {
        const size_t k = utf8_seq(p + i, n - i, incomplete);
        if (k == 0) return i;
        i += k;
    }
    return n;
}

/*
 * A value for a message: at most ~60 bytes, in double quotes' worth of
 * escaping (\" \\ \xNN for control bytes and bytes that are not UTF-8),
 * "..." when cut. Always NUL-terminated; @cap >= 300.
 */
static const char *show(char *buf, size_t cap, const char *s, size_t n)
{
    size_t j = 0;
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        if (i >= 60 || j + 16 >= cap) {
            memcpy(buf + j, "...", 3);
            j += 3;
            break;
        }
        int inc;
        const size_t k = p[i] >= 0x80 ? utf8_seq(p + i, n - i, &inc) : 1;
        if (k > 1) {
            memcpy(buf + j, p + i, k);
            j += k;
            i += k;
            continue;
        }
        const unsigned char c = p[i++];
        if (c == '"' || c == '\\') {
            buf[j++] = '\\';
            buf[j++] = (char)c;
        } else if (c < 0x20 || c >= 0x7F) {
            j += (size_t)snprintf(buf + j, cap - j, "\\x%02X", c);
        } else {
            buf[j++] = (char)c;
        }
    }
    buf[j] = '\0';
    return buf;
}

static int lower(unsigned char c) { return rs_ascii_lower(c); }

/* Case-insensitive search for @needle (lower-case) in s[0..n). */
static const char *find_ci(const char *s, size_t n, const char *needle)
{
    const size_t m = strlen(needle);
    for (size_t i = 0; i + m <= n; i++) {
        size_t k = 0;
        while (k < m && lower((unsigned char)s[i + k]) == needle[k]) k++;
        if (k == m) return s + i;
    }
    return NULL;
}

/* Optimal-string-alignment distance, ASCII case-insensitive; > @max gives max + 1. */
static size_t edit_distance(const char *a, size_t an, const char *b, size_t bn, size_t max)
{
    if (an > bn + max || bn > an + max || an > 32 || bn > 32) return max + 1;
    size_t d[33][33];
    for (size_t i = 0; i <= an; i++) d[i][0] = i;
    for (size_t j = 0; j <= bn; j++) d[0][j] = j;
    for (size_t i = 1; i <= an; i++) {
        for (size_t j = 1; j <= bn; j++) {
            const int same = lower((unsigned char)a[i - 1]) == lower((unsigned char)b[j - 1]);
            size_t v = d[i - 1][j - 1] + !same;
            if (d[i - 1][j] + 1 < v) v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && lower((unsigned char)a[i - 1]) == lower((unsigned char)b[j - 2])
                && lower((unsigned char)a[i - 2]) == lower((unsigned char)b[j - 1])
                && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    }
    return d[an][bn];
}

/* ===== The event handler ===== */

typedef struct {
    uint32_t line, seq, code, msg_off, msg_len;
} finding_rec;

typedef struct {
    uint32_t group, line, type, pat_off, pat_len;
} rule_rec;

typedef struct {
    uint32_t group, global, tok_off, tok_len, line;
} member_rec;

typedef struct {
    rs_buf findings, text, rules, members;
    uint32_t n_findings;
    uint32_t group;          /* current group, UINT32_MAX before the first user-agent line */
    uint32_t n_groups;
    int saw_rule;            /* an allow/disallow since the last user-agent line */
    uint32_t ua_lines;
    int seen_content;
    int html_start;          /* the first content starts with an HTML marker */
    unsigned html_markers;   /* bit per distinct marker seen */
    uint32_t html_line;      /* line of the first marker */
    rs_status status;
} linter;

static uint32_t add_text(linter *l, const char *p, size_t n)
{
    const uint32_t off = (uint32_t)l->text.len;
    if (l->status == RS_OK) l->status = rs_buf_append(&l->text, p, n);
    return off;
}

static void add(linter *l, uint32_t line, rs_lint_code code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void add(linter *l, uint32_t line, rs_lint_code code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0;
    if ((size_t)n >= sizeof msg) n = (int)sizeof msg - 1;
    finding_rec f;
    f.line = line;
    f.seq = l->n_findings++;
    f.code = (uint32_t)code;
    f.msg_len = (uint32_t)n;
    f.msg_off = add_text(l, msg, (size_t)n);
    if (l->status == RS_OK) l->status = rs_buf_append(&l->findings, &f, sizeof f);
}

static const char *directive_name(rs_directive d)
{
    switch (d) {
    case RS_DIRECTIVE_USER_AGENT: return "user-agent";
    case RS_DIRECTIVE_ALLOW: return "allow";
    case RS_DIRECTIVE_DISALLOW: return "disallow";
    case RS_DIRECTIVE_SITEMAP: return "sitemap";
    case RS_DIRECTIVE_UNKNOWN:
    case RS_DIRECTIVE_NONE: break;
    }
    return NULL;
}

/* The line's content as the parser reads it: up to a NUL or '#', trimmed. */
static rs_str line_content(const rs_robots_line *ev)
{
    const char *s = ev->raw.ptr;
    size_t n = ev->raw.len;
    const char *nul = memchr(s, '\0', n);
    if (nul) n = (size_t)(nul - s);
    const char *hash = memchr(s, '#', n);
    if (hash) n = (size_t)(hash - s);
    while (n && is_space((unsigned char)s[0])) { s++; n--; }
    while (n && is_space((unsigned char)s[n - 1])) n--;
    rs_str r = { s, n };
    return r;
}

/*
 * HTML: a page served as robots.txt (an error or login page). Conservative
 * rule: the first content of the file starts with one of the markers below,
 * or at least two distinct markers occur in the content of the file. A
 * robots.txt that merely mentions "<html>" in one line, or has "<!-- -->"
 * lines, is not flagged.
 */
static const char *const HTML_MARKERS[] = { "<!doctype html", "<html", "<head", "<body" };

static int marker_at(const char *p, const char *end, const char *marker)
{
    const size_t m = strlen(marker);
    if ((size_t)(end - p) < m) return 0;
    for (size_t k = 0; k < m; k++)
        if (lower((unsigned char)p[k]) != marker[k]) return 0;
    /* A tag boundary must follow: "<header" is not "<head", "<html5" is not "<html". */
    return p + m == end || p[m] == '>' || p[m] == '/' || is_space((unsigned char)p[m]);
}

static void html_scan(linter *l, uint32_t line, rs_str c)
{
    const char *end = c.ptr + c.len;
    for (size_t k = 0; k < sizeof HTML_MARKERS / sizeof HTML_MARKERS[0]; k++) {
        const char *p = c.ptr;
        for (;;) {
            const char *hit = find_ci(p, (size_t)(end - p), HTML_MARKERS[k]);
            if (hit == NULL) break;
            if (marker_at(hit, end, HTML_MARKERS[k])) {
                if (!l->seen_content && hit == c.ptr) l->html_start = 1;
                if (l->html_markers == 0) l->html_line = line;
                l->html_markers |= 1u << k;
                break;
            }
            p = hit + 1;
        }
    }
}

static void check_utf8(linter *l, const rs_robots_line *ev, rs_str c)
{
    int incomplete;
    const size_t bad = utf8_first_bad(c.ptr, c.len, &incomplete);
    if (bad == c.len) return;
    /* A character cut by the line or file limit is a limit artifact, reported as such. */
    if (incomplete && c.ptr + c.len == ev->raw.ptr + ev->raw.len
        && (ev->flags & (RS_LINE_TOO_LONG | RS_LINE_PAST_LIMIT)))
        return;
    const unsigned byte = (unsigned char)c.ptr[bad];
    const size_t col = (size_t)(c.ptr - ev->raw.ptr) + bad + 1;
    if (ev->directive == RS_DIRECTIVE_ALLOW || ev->directive == RS_DIRECTIVE_DISALLOW)
        add(l, ev->line, RS_LINT_INVALID_UTF8,
            "byte 0x%02X at column %zu is not UTF-8: the pattern keeps it as %%%02X, "
            "which a UTF-8 URL never contains", byte, col, byte);
    else
        add(l, ev->line, RS_LINT_INVALID_UTF8,
            "byte 0x%02X at column %zu is not UTF-8 (robots.txt is read as UTF-8)", byte, col);
}

static void on_user_agent(linter *l, const rs_robots_line *ev)
{
    char b1[320], b2[320];
    if (l->group == UINT32_MAX || l->saw_rule) {
        l->group = l->n_groups++;
        l->saw_rule = 0;
    }
    l->ua_lines++;
    const rs_str v = ev->value;
    const int global = rs_agent_is_global(v.ptr, v.len);
    const size_t tok = global ? 0 : rs_agent_token(v.ptr, v.len);
    member_rec m;
    m.group = l->group;
    m.global = (uint32_t)global;
    m.tok_len = (uint32_t)tok;
    m.tok_off = add_text(l, v.ptr, tok);
    m.line = ev->line;
    if ((global || tok) && l->status == RS_OK) l->status = rs_buf_append(&l->members, &m, sizeof m);
    if (global) return;
    if (v.len == 0)
        add(l, ev->line, RS_LINT_EMPTY_USER_AGENT,
            "user-agent line without a value names no crawler");
    else if (tok == 0)
        add(l, ev->line, RS_LINT_EMPTY_USER_AGENT,
            "\"%s\" does not start with a product token ([A-Za-z_-]+): it names no crawler",
            show(b1, sizeof b1, v.ptr, v.len));
    else if (tok < v.len)
        add(l, ev->line, RS_LINT_USER_AGENT_NOT_TOKEN, "\"%s\" is read as the token \"%s\"",
            show(b1, sizeof b1, v.ptr, v.len), show(b2, sizeof b2, v.ptr, tok));
}

static void on_rule(linter *l, const rs_robots_line *ev)
{
    char b1[320], b2[320];
    const char *kind = directive_name(ev->directive);
    const rs_str v = ev->value;
    if (l->group == UINT32_MAX) {
        add(l, ev->line, RS_LINT_RULE_OUTSIDE_GROUP,
            "\"%s: %s\" comes before any user-agent line: ignored", kind,
            show(b1, sizeof b1, v.ptr, v.len));
    } else {
        l->saw_rule = 1;
        if (v.len) {
            rule_rec r;
            r.group = l->group;
            r.line = ev->line;
            r.type = ev->directive == RS_DIRECTIVE_ALLOW ? RS_RULE_ALLOW : RS_RULE_DISALLOW;
            r.pat_len = (uint32_t)v.len;
            r.pat_off = add_text(l, v.ptr, v.len);
            if (l->status == RS_OK) l->status = rs_buf_append(&l->rules, &r, sizeof r);
        }
    }
    if (v.len && v.ptr[0] != '/' && v.ptr[0] != '*') {
        /* Suggest the path: after "scheme://host" for a URL, else with a '/' in front. */
        const char *hint = v.ptr;
        size_t hint_len = v.len;
        const char *sep = find_ci(v.ptr, v.len, "://");
        if (sep) {
            const char *slash = memchr(sep + 3, '/', (size_t)(v.ptr + v.len - (sep + 3)));
            hint = slash ? slash : "/";
            hint_len = slash ? (size_t)(v.ptr + v.len - slash) : 1;
            show(b2, sizeof b2, hint, hint_len);
        } else {
            b2[0] = '/';
            show(b2 + 1, sizeof b2 - 1, hint, hint_len);
        }
        add(l, ev->line, RS_LINT_PATTERN_NEVER_MATCHES,
            "pattern \"%s\" does not start with '/' or '*': it never matches (did you mean \"%s\"?)",
            show(b1, sizeof b1, v.ptr, v.len), b2);
    }
    const char *dollar = v.len > 1 ? memchr(v.ptr, '$', v.len - 1) : NULL;
    if (dollar)
        add(l, ev->line, RS_LINT_DOLLAR_NOT_AT_END,
            "'$' inside pattern \"%s\" is a literal '$' (only a final '$' anchors the end)",
            show(b1, sizeof b1, v.ptr, v.len));
}

static int is_absolute_url(const char *s, size_t n)
{
    size_t i = 0;
    if (n == 0 || !((s[0] | 0x20) >= 'a' && (s[0] | 0x20) <= 'z')) return 0;
    while (i < n && (((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'z') || (s[i] >= '0' && s[i] <= '9')
                     || s[i] == '+' || s[i] == '-' || s[i] == '.'))
        i++;
    return n - i > 3 && memcmp(s + i, "://", 3) == 0 && s[i + 3] != '/'
           && !is_space((unsigned char)s[i + 3]);
}

static void on_unknown(linter *l, const rs_robots_line *ev)
{
    static const struct { const char *key, *why; } KNOWN[] = {
        { "crawl-delay", "Google ignores it (Bing and Yandex honour it)" },
        { "host", "a Yandex extension; Google ignores it" },
        { "clean-param", "a Yandex extension; Google ignores it" },
        { "noindex", "Google stopped reading noindex in robots.txt in 2019; use a meta tag or header" },
        { "nofollow", "not a robots.txt rule; Google ignores it" },
        { "request-rate", "non-standard; Google ignores it" },
        { "visit-time", "non-standard; Google ignores it" },
    };
    static const char *const REAL[] = { "user-agent", "allow", "disallow", "sitemap" };
    char b1[320];
    const rs_str k = ev->key;
    for (size_t i = 0; i < sizeof KNOWN / sizeof KNOWN[0]; i++)
        if (rs_ieq(k.ptr, k.len, KNOWN[i].key, strlen(KNOWN[i].key))) {
            add(l, ev->line, RS_LINT_UNKNOWN_KEY, "%s is not used for matching: %s",
                KNOWN[i].key, KNOWN[i].why);
            return;
        }
    for (size_t i = 0; i < sizeof REAL / sizeof REAL[0]; i++) {
        const size_t max = strlen(REAL[i]) <= 5 ? 1 : 2;
        if (edit_distance(k.ptr, k.len, REAL[i], strlen(REAL[i]), max) <= max) {
            add(l, ev->line, RS_LINT_MISSPELLED_KEY,
                "unknown key \"%s\" (did you mean %s?): the line is ignored",
                show(b1, sizeof b1, k.ptr, k.len), REAL[i]);
            return;
        }
    }
    add(l, ev->line, RS_LINT_UNKNOWN_KEY, "unknown key \"%s\": not used for matching, ignored",
        show(b1, sizeof b1, k.ptr, k.len));
}

static void on_line(void *ctx, const rs_robots_line *ev)
{
    linter *l = ctx;
    char b1[320], b2[320], b3[320];
    const rs_str c = line_content(ev);
    html_scan(l, ev->line, c);
    l->seen_content = 1;

    if (ev->flags & RS_LINE_TOO_LONG)
        add(l, ev->line, RS_LINT_LINE_TOO_LONG,
            "line is longer than 16,663 bytes: only the first 16,663 are read, the rest is ignored");
    if (ev->flags & RS_LINE_HAS_NUL) {
        const char *nul = memchr(ev->raw.ptr, '\0', ev->raw.len);
        add(l, ev->line, RS_LINT_NUL_BYTE, "a NUL byte at column %zu ends the line: the rest is ignored",
            (size_t)(nul - ev->raw.ptr) + 1);
    }
    check_utf8(l, ev, c);

    if (ev->directive == RS_DIRECTIVE_NONE) {
        if (ev->flags & RS_LINE_EMPTY_KEY)
            add(l, ev->line, RS_LINT_IGNORED_LINE, "\"%s\" has an empty key: ignored",
                show(b1, sizeof b1, c.ptr, c.len));
        else
            add(l, ev->line, RS_LINT_IGNORED_LINE,
                "\"%s\" is neither \"key: value\" nor two words: ignored",
                show(b1, sizeof b1, c.ptr, c.len));
        return;
    }
    const char *name = directive_name(ev->directive);
    if (ev->flags & RS_LINE_TYPO_KEY)
        add(l, ev->line, RS_LINT_TYPO_KEY, "\"%s\" read as %s (accepted typo)",
            show(b1, sizeof b1, ev->key.ptr, ev->key.len), name);
    if (ev->flags & RS_LINE_MISSING_COLON) {
        show(b1, sizeof b1, c.ptr, c.len);
        if (name)
            add(l, ev->line, RS_LINT_MISSING_COLON, "\"%s\" has no colon; read as %s: %s", b1, name,
                show(b2, sizeof b2, ev->value.ptr, ev->value.len));
        else
            add(l, ev->line, RS_LINT_MISSING_COLON, "\"%s\" has no colon; read as %s: %s", b1,
                show(b2, sizeof b2, ev->key.ptr, ev->key.len),
                show(b3, sizeof b3, ev->value.ptr, ev->value.len));
    }
    switch (ev->directive) {
    case RS_DIRECTIVE_USER_AGENT: on_user_agent(l, ev); break;
    case RS_DIRECTIVE_ALLOW:
    case RS_DIRECTIVE_DISALLOW: on_rule(l, ev); break;
    case RS_DIRECTIVE_SITEMAP:
        if (!is_absolute_url(ev->value.ptr, ev->value.len))
            add(l, ev->line, RS_LINT_SITEMAP_NOT_ABSOLUTE,
                "sitemap \"%s\" is not an absolute URL (scheme://host/path): crawlers ignore it",
                show(b1, sizeof b1, ev->value.ptr, ev->value.len));
        break;
    case RS_DIRECTIVE_UNKNOWN: on_unknown(l, ev); break;
    case RS_DIRECTIVE_NONE: break;
    }
}

/* ===== Conflicting rules =====
 *
 * "The same agent". Under SPEC 2.2.13 an agent gets the merged rules of every
 * group naming its token, or, when no group names it, the merged rules of
 * every '*' group. So the agents of the world fall into disjoint classes:
 * one class per distinct token named in the file (case-insensitive), and one
 * class "named by no group" that gets the '*' groups. A group applies to the
 * classes of its user-agent lines: its tokens, plus the unnamed class when it
 * has a '*' line (a group with both `User-agent: *` and `User-agent: Foo`
 * applies to both). Two rules apply to a same agent iff their groups share a
 * class: always within one group, across groups naming the same token, and
 * across '*' groups; never between a '*' group and a group naming only Foo
 * (Foo does not get the '*' rules). A group naming nobody (empty tokens
 * only) applies to no agent, so its rules conflict with nothing.
 *
 * Algorithm: classes are interned; rules are sorted by (pattern, line); in a
 * run of one pattern holding both types, rules are visited in line order and,
 * per class, the first allow and first disallow line seen are kept. A rule
 * conflicts with the earliest opposite rule of any of its classes; it is
 * reported at its own (the later) line. Cost: the sum over such rules of
 * their group's class count; memory: linear.
 */

typedef struct {
    const char *ptr;
    uint32_t len, global, idx, group;
} member_key;

static int member_cmp(const void *a, const void *b);

/* mk[i] = the user-agent member i, sorted into classes ('*' first, then by token). */
static void sort_members(const linter *l, const member_rec *mem, uint32_t n_mem, member_key *mk)
{
    for (uint32_t i = 0; i < n_mem; i++) {
        mk[i].ptr = mem[i].tok_len ? l->text.ptr + mem[i].tok_off : "";
        mk[i].len = mem[i].tok_len;
        mk[i].global = mem[i].global;
        mk[i].idx = i;
        mk[i].group = mem[i].group;
    }
    qsort(mk, n_mem, sizeof *mk, member_cmp);
}

/* Whether two sorted members name the same class. */
static int same_class(const member_key *a, const member_key *b)
{
    return a->global == b->global && a->len == b->len && rs_ieq(a->ptr, a->len, b->ptr, b->len);
}

static int member_cmp(const void *a, const void *b)
{
    const member_key *x = a, *y = b;
    if (x->global != y->global) return x->global ? -1 : 1;
    const size_t n = RS_MIN(x->len, y->len);
    for (size_t i = 0; i < n; i++) {
        const int d = lower((unsigned char)x->ptr[i]) - lower((unsigned char)y->ptr[i]);
        if (d) return d;
    }
    if (x->len != y->len) return x->len < y->len ? -1 : 1;
    return x->idx < y->idx ? -1 : (x->idx > y->idx);
}

typedef struct {
    uint32_t group, cls;
} group_cls;

static int group_cls_cmp(const void *a, const void *b)
{
    const group_cls *x = a, *y = b;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    return x->cls < y->cls ? -1 : (x->cls > y->cls);
}

typedef struct {
    const char *ptr;           /* into l->text: valid until the next add() */
    uint32_t off, len, line, type, group;
    uint32_t partner, partner_cls;   /* OUT: earliest opposite line (0: none) and its class */
} rule_key;

static int rule_cmp(const void *a, const void *b)
{
    const rule_key *x = a, *y = b;
    const int c = memcmp(x->ptr, y->ptr, RS_MIN(x->len, y->len));
    if (c) return c;
    if (x->len != y->len) return x->len < y->len ? -1 : 1;
    return x->line < y->line ? -1 : (x->line > y->line);
}

static void find_conflicts(linter *l)
{
    const member_rec *mem = (const member_rec *)(void *)l->members.ptr;
    const uint32_t n_mem = (uint32_t)(l->members.len / sizeof(member_rec));
    const rule_rec *rules = (const rule_rec *)(void *)l->rules.ptr;
    const uint32_t n_rules = (uint32_t)(l->rules.len / sizeof(rule_rec));
    if (n_mem == 0 || n_rules < 2) return;

    member_key *mk = rs_malloc(n_mem * sizeof *mk);
    group_cls *gc = rs_malloc(n_mem * sizeof *gc);
    uint32_t *cls_name = rs_malloc(n_mem * sizeof *cls_name);   /* member index naming the class */
    uint32_t *gstart = rs_calloc((size_t)l->n_groups + 1, sizeof *gstart);
    rule_key *rk = rs_malloc(n_rules * sizeof *rk);
    uint32_t *first = rs_calloc(2 * (size_t)n_mem, sizeof *first); /* [cls*2 + (type-1)] */
    uint32_t *touched = rs_malloc(n_mem * sizeof *touched);
    char b1[320], b2[320];
    if (!mk || !gc || !cls_name || !gstart || !rk || !first || !touched) {
        l->status = RS_ERR_NOMEM;
        goto out;
    }

    /* Intern classes: the '*' class first, then each distinct token. */
    sort_members(l, mem, n_mem, mk);
    uint32_t n_cls = 0;
    for (uint32_t i = 0; i < n_mem; i++) {
        const int same = i > 0 && same_class(&mk[i - 1], &mk[i]);
        if (!same) cls_name[n_cls++] = mk[i].idx;  /* sorted by idx within a class: the earliest */
        gc[i].group = mk[i].group;
        gc[i].cls = n_cls - 1;
    }
    /* Classes of each group, deduplicated: gc[gstart[g] .. gstart[g+1]). */
    qsort(gc, n_mem, sizeof *gc, group_cls_cmp);
    uint32_t n_gc = 0;
    for (uint32_t i = 0; i < n_mem; i++)
        if (n_gc == 0 || gc[n_gc - 1].group != gc[i].group || gc[n_gc - 1].cls != gc[i].cls)
            gc[n_gc++] = gc[i];
    for (uint32_t i = 0; i < n_gc; i++) gstart[gc[i].group + 1]++;
    for (uint32_t g = 0; g < l->n_groups; g++) gstart[g + 1] += gstart[g];

    for (uint32_t i = 0; i < n_rules; i++) {
        rk[i].ptr = l->text.ptr + rules[i].pat_off;
        rk[i].off = rules[i].pat_off;
        rk[i].partner = 0;
        rk[i].len = rules[i].pat_len;
        rk[i].line = rules[i].line;
        rk[i].type = rules[i].type;
        rk[i].group = rules[i].group;
    }
    qsort(rk, n_rules, sizeof *rk, rule_cmp);
    for (uint32_t a = 0; a < n_rules;) {
        uint32_t e = a + 1;
        unsigned types = 1u << rk[a].type;
        while (e < n_rules && rk[e].len == rk[a].len && memcmp(rk[e].ptr, rk[a].ptr, rk[a].len) == 0) {
            types |= 1u << rk[e].type;
            e++;
        }
        if (types == ((1u << RS_RULE_ALLOW) | (1u << RS_RULE_DISALLOW))) {
            uint32_t n_touched = 0;
            for (uint32_t i = a; i < e; i++) {
                const uint32_t t = rk[i].type - 1, o = 1 - t;
                uint32_t partner = 0, partner_cls = 0;
                for (uint32_t k = gstart[rk[i].group]; k < gstart[rk[i].group + 1]; k++) {
                    const uint32_t c = gc[k].cls;
                    const uint32_t opp = first[2 * c + o];
                    if (opp && (partner == 0 || opp < partner)) { partner = opp; partner_cls = c; }
                    if (first[2 * c + t] == 0) {
                        if (first[2 * c + o] == 0) touched[n_touched++] = c;
                        first[2 * c + t] = rk[i].line;
                    }
                }
                rk[i].partner = partner;
                rk[i].partner_cls = partner_cls;
            }
            for (uint32_t k = 0; k < n_touched; k++)
                first[2 * touched[k]] = first[2 * touched[k] + 1] = 0;
        }
        a = e;
    }
    /* Messages last: add() grows l->text, which moves the patterns rk[].ptr point to. */
    for (uint32_t i = 0; i < n_rules; i++) {
        if (rk[i].partner == 0) continue;
        const member_rec *nm = &mem[cls_name[rk[i].partner_cls]];
        if (nm->global) strcpy(b2, "*");
        else show(b2, sizeof b2, l->text.ptr + nm->tok_off, nm->tok_len);
        show(b1, sizeof b1, l->text.ptr + rk[i].off, rk[i].len);
        if (rk[i].type == RS_RULE_DISALLOW)
            add(l, rk[i].line, RS_LINT_CONFLICTING_RULES,
                "\"%s\" is also allowed by line %u for user-agent %s; allow wins ties, "
                "so this disallow has no effect", b1, rk[i].partner, b2);
        else
            add(l, rk[i].line, RS_LINT_CONFLICTING_RULES,
                "\"%s\" is also disallowed by line %u for user-agent %s; allow wins ties, "
                "so line %u has no effect", b1, rk[i].partner, b2, rk[i].partner);
    }
out:
    rs_free(mk);
    rs_free(gc);
    rs_free(cls_name);
    rs_free(gstart);
    rs_free(rk);
    rs_free(first);
    rs_free(touched);
}

/* ===== A last group without rules =====
 *
 * A user-agent line opens a group only after a rule, so every group but the
 * last has rules, and the last one has none when no allow/disallow follows
 * its user-agent lines (end of file, or only sitemap/unknown lines). A token
 * named there and in no earlier group then gets no rules at all: it may fetch
 * everything instead of getting the rules of the earlier '*' groups. Without
 * an earlier '*' group it would get everything anyway, and an empty '*' group
 * changes nothing (unnamed crawlers get everything without it too): neither
 * is reported. Tokens also named earlier get those groups' rules.
 */

static int u32_cmp(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : (x > y);
}

static void find_empty_group(linter *l)
{
    if (l->group == UINT32_MAX || l->saw_rule) return;
    const member_rec *mem = (const member_rec *)(void *)l->members.ptr;
    const uint32_t n_mem = (uint32_t)(l->members.len / sizeof(member_rec));
    uint32_t n_earlier = 0;   /* members are in file order: the last group's come last */
    while (n_earlier < n_mem && mem[n_earlier].group != l->group) n_earlier++;
    if (n_earlier == n_mem) return;   /* the group names nobody: empty-user-agent says so */
    int earlier_global = 0;
    for (uint32_t i = 0; i < n_earlier && !earlier_global; i++) earlier_global = (int)mem[i].global;
    if (!earlier_global) return;

    /* Sorted by (class, file order): a class is new in the last group iff the
     * first member of its run belongs to it. */
    member_key *mk = rs_malloc(n_mem * sizeof *mk);
    uint32_t *fresh = rs_malloc(n_mem * sizeof *fresh);
    if (mk == NULL || fresh == NULL) {
        l->status = RS_ERR_NOMEM;
        goto out;
    }
    sort_members(l, mem, n_mem, mk);
    uint32_t n_fresh = 0;
    for (uint32_t i = 0; i < n_mem; i++) {
        const int same = i > 0 && same_class(&mk[i - 1], &mk[i]);
        if (!same && !mk[i].global && mk[i].idx >= n_earlier) fresh[n_fresh++] = mk[i].idx;
    }
    if (n_fresh == 0) goto out;
    qsort(fresh, n_fresh, sizeof *fresh, u32_cmp);
    char b1[320], names[1100];
    size_t names_len = 0;
    for (uint32_t k = 0; k < n_fresh && k < 3; k++) {
        const member_rec *m = &mem[fresh[k]];
        show(b1, sizeof b1, l->text.ptr + m->tok_off, m->tok_len);
        names_len += (size_t)snprintf(names + names_len, sizeof names - names_len, "%s%s",
                                      k ? ", " : "", b1);
    }
    if (n_fresh > 3)
        snprintf(names + names_len, sizeof names - names_len, " and %u more", n_fresh - 3);
    /* Once per group, at the first such user-agent line. */
    add(l, mem[fresh[0]].line, RS_LINT_EMPTY_GROUP,
        "no allow or disallow line follows: %s %s no rules and may fetch everything "
        "(instead of getting the '*' rules)", names, n_fresh > 1 ? "get" : "gets");
out:
    rs_free(mk);
    rs_free(fresh);
}

/* ===== Driver ===== */

static int finding_cmp(const void *a, const void *b)
{
    const finding_rec *x = a, *y = b;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    return x->seq < y->seq ? -1 : (x->seq > y->seq);
}

static int popcount(unsigned v)
{
    int n = 0;
    for (; v; v &= v - 1) n++;
    return n;
}

rs_status rs_lint(const void *body, size_t size, const rs_lint_options *options,
                  rs_lint_callback cb, void *ctx)
{
    RS_RETURN_IF(cb == NULL || (body == NULL && size), RS_ERR_USAGE);
    linter l;
    memset(&l, 0, sizeof l);
    l.group = UINT32_MAX;
    rs_robots_info info;
    rs_status st = rs_robots_parse(body, size, on_line, &l, &info);
    if (st == RS_OK && l.status == RS_OK) {
        if (info.bom_bytes == 3)
            add(&l, 1, RS_LINT_BOM, "a UTF-8 byte-order mark was skipped");
        else if (info.bom_bytes)
            add(&l, 1, RS_LINT_BOM, "a partial byte-order mark (%u of its 3 bytes) was skipped",
                info.bom_bytes);
        if (info.truncated)
            add(&l, info.truncated_line, RS_LINT_FILE_TOO_LARGE,
                "content past 512,000 bytes (500 KiB) is ignored: the file is cut in this line");
        if (l.html_start || popcount(l.html_markers) >= 2)
            add(&l, l.html_line, RS_LINT_HTML_CONTENT,
                "the file looks like an HTML page (an error page served as robots.txt?): "
                "its lines are read as robots.txt lines and mean nothing");
        if (l.ua_lines == 0)
            add(&l, 0, RS_LINT_NO_GROUPS, "no user-agent line: every URL is allowed for every crawler");
        find_conflicts(&l);
        find_empty_group(&l);
    }
    if (st == RS_OK) st = l.status;
    if (st == RS_OK) {
        finding_rec *f = (finding_rec *)(void *)l.findings.ptr;
        const size_t n = l.findings.len / sizeof *f;
        if (n > 1) qsort(f, n, sizeof *f, finding_cmp);
        uint32_t skip = options ? options->ignore : 0;
        if (l.html_start || popcount(l.html_markers) >= 2) skip |= HTML_SUPPRESSED;
        for (size_t i = 0; i < n; i++) {
            if (skip & (1u << f[i].code)) continue;
            rs_lint_finding out;
            out.line = f[i].line;
            out.code = (rs_lint_code)f[i].code;
            out.severity = CODES[f[i].code].severity;
            out.code_name = CODES[f[i].code].name;
            out.message.ptr = l.text.ptr + f[i].msg_off;
            out.message.len = f[i].msg_len;
            cb(ctx, &out);
        }
    }
    rs_buf_free(&l.findings);
    rs_buf_free(&l.text);
    rs_buf_free(&l.rules);
    rs_buf_free(&l.members);
    return st;
}

/* ===== What one agent gets ===== */

typedef struct {
    rs_lint_agent_view pub;   /* first: rs_lint_agent_free casts back */
    uint32_t *group_lines;
    rs_lint_rule *rules;
    char *text;
} agent_view;

/* Same retry as the matcher's (SPEC 2.4.20): the cut length, or 0. */
static size_t index_htm_cut(const char *pat, size_t len)
{
    for (size_t i = len; i > 0; i--) {
        if (pat[i - 1] != '/') continue;
        const size_t rest = len - (i - 1);
        return rest >= 10 && memcmp(pat + i - 1, "/index.htm", 10) == 0 ? i : 0;
    }
    return 0;
}

static int lint_rule_cmp(const void *a, const void *b)
{
    const rs_lint_rule *x = a, *y = b;
    if (x->priority != y->priority) return x->priority > y->priority ? -1 : 1;
    if (x->type != y->type) return x->type == RS_RULE_ALLOW ? -1 : 1;  /* allow wins ties */
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    return x->derived - y->derived;
}

rs_status rs_lint_agent(const void *body, size_t size, const char *agent, size_t agent_len,
                        rs_lint_agent_view **out)
{
    RS_RETURN_IF(out == NULL || (agent == NULL && agent_len), RS_ERR_USAGE);
    *out = NULL;
    rs_ruleset *rs = NULL;
    RS_FORWARD(rs_ruleset_parse(body, size, &rs));
    rs_status st = RS_OK;
    agent_view *v = rs_calloc(1, sizeof *v);
    uint8_t *selected = rs_malloc(rs->n_groups + 1);
    if (v == NULL || selected == NULL) { st = RS_ERR_NOMEM; goto out; }
    v->pub.specific = rs_ruleset_select(rs, agent, agent_len, selected);

    v->group_lines = rs_malloc((rs->n_groups + 1) * sizeof *v->group_lines);
    v->rules = rs_malloc((2 * (size_t)rs->n_rules + 1) * sizeof *v->rules);
    /* Room for every pattern twice (the original and a shorter derived one) plus its '$'. */
    v->text = rs_malloc(2 * rs->text_len + rs->n_rules + 1);
    if (!v->group_lines || !v->rules || !v->text) { st = RS_ERR_NOMEM; goto out; }

    /* ua records are in file order: the first of each group opens it. */
    uint32_t last_group = UINT32_MAX;
    for (uint32_t i = 0; i < rs->n_agents; i++) {
        const rs_ua_record *ua = &rs->agents[i];
        if (ua->group == last_group || !selected[ua->group]) continue;
        last_group = ua->group;
        v->group_lines[v->pub.n_groups++] = ua->line;
    }
    size_t tl = 0, nr = 0;
    for (uint32_t i = 0; i < rs->n_rules; i++) {
        const rs_rule_record *r = &rs->rules[i];
        if (!selected[r->group]) continue;
        static const rs_str EMPTY = { "", 0 };
        const rs_str p = r->pattern.len ? rs_ruleset_str(rs, r->pattern) : EMPTY;
        rs_lint_rule *e = &v->rules[nr++];
        memset(e, 0, sizeof *e);
        e->type = r->type;
        e->line = r->line;
        e->priority = (uint32_t)p.len;
        e->never_matches = p.len && p.ptr[0] != '/' && p.ptr[0] != '*';
        e->pattern.ptr = v->text + tl;   /* text is not reallocated: pointers stay valid */
        e->pattern.len = p.len;
        if (p.len) memcpy(v->text + tl, p.ptr, p.len);
        tl += p.len;
        const size_t cut = r->type == RS_RULE_ALLOW ? index_htm_cut(p.ptr, p.len) : 0;
        if (cut && !e->never_matches) {
            rs_lint_rule *d = &v->rules[nr++];
            *d = *e;
            d->derived = 1;
            d->pattern.ptr = v->text + tl;
            d->pattern.len = cut + 1;
            d->priority = (uint32_t)(cut + 1);
            memcpy(v->text + tl, p.ptr, cut);
            v->text[tl + cut] = '$';
            tl += cut + 1;
        }
    }
    assert(tl <= 2 * rs->text_len + rs->n_rules);
    if (nr > 1) qsort(v->rules, nr, sizeof *v->rules, lint_rule_cmp);
    v->pub.n_rules = nr;
    v->pub.rules = v->rules;
    v->pub.group_lines = v->group_lines;
out:
    rs_free(selected);
    rs_ruleset_free(rs);
    if (st != RS_OK) {
        rs_lint_agent_free(v ? &v->pub : NULL);
        return st;
    }
    *out = &v->pub;
    return RS_OK;
}

void rs_lint_agent_free(rs_lint_agent_view *view)
{
    if (view == NULL) return;
    agent_view *v = (agent_view *)(void *)view;
    rs_free(v->group_lines);
    rs_free(v->rules);
    rs_free(v->text);
    rs_free(v);
}
