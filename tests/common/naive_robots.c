/*
 * naive_robots.c - the differential oracle: SPEC section 2 written out as
 * Google's reference parser (robots.cc) does it, one step at a time.
 *
 * Does: re-parse the body for every query; copy each line into a
 * NUL-terminated buffer of 16,664 bytes (16,663 kept + NUL); strip comments
 * and whitespace with C string functions; emit user-agent / allow / disallow
 * to the reference's state machine (seen_global, seen_specific,
 * ever_seen_specific, seen_separator); match each pattern with the
 * reference's position set; keep the best allow/disallow per
 * specific/global by strictly greater priority.
 *
 * Does not: share anything with src/, compile anything, or care about speed
 * (O(lines * path * pattern) per query).
 */
#include "common/naive_robots.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define NAIVE_MAX_LINE 16663      /* kMaxLineLen - 1 bytes kept per line */
#define NAIVE_MAX_BODY 512000     /* the crawler's limit (SPEC 2.1.4) */

/* ===== URL -> path (GetPathParamsQuery) ===== */

/* std::string::find_first_of over [from, n) */
static size_t find_first_of(const char *s, size_t n, size_t from, const char *set, size_t set_len)
{
    for (size_t i = from; i < n; i++)
        for (size_t k = 0; k < set_len; k++)
            if (s[i] == set[k]) return i;
    return (size_t)-1;
}

static size_t find_str(const char *s, size_t n, size_t from, const char *needle, size_t nlen)
{
    for (size_t i = from; i + nlen <= n; i++)
        if (memcmp(s + i, needle, nlen) == 0) return i;
    return (size_t)-1;
}

size_t naive_url_path(const char *url, size_t n, char *dst)
{
    const size_t npos = (size_t)-1;
    size_t search_start = 0;
    if (n >= 2 && url[0] == '/' && url[1] == '/') search_start = 2;
    const size_t early_path = find_first_of(url, n, search_start, "/?;", 3);
    size_t protocol_end = find_str(url, n, search_start, "://", 3);
    if (early_path < protocol_end) protocol_end = npos;
    if (protocol_end == npos) protocol_end = search_start;
    else protocol_end += 3;

    size_t len = 0;
    const size_t path_start = find_first_of(url, n, protocol_end, "/?;", 3);
    if (path_start != npos) {
        const size_t hash_pos = find_first_of(url, n, search_start, "#", 1);
        if (hash_pos != npos && hash_pos < path_start) {
            dst[len++] = '/';
        } else {
            const size_t path_end = hash_pos == npos ? n : hash_pos;
            if (url[path_start] != '/') dst[len++] = '/';
            memcpy(dst + len, url + path_start, path_end - path_start);
            len += path_end - path_start;
        }
    } else {
        dst[len++] = '/';
    }
    dst[len] = '\0';
    return strlen(dst); /* path_.c_str(): a NUL ends it */
}

/* ===== Pattern escaping (MaybeEscapePattern) ===== */

size_t naive_canonicalize(const char *src, size_t n, char *dst)
{
    static const char hex_digits[] = "0123456789ABCDEF";
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        if (src[i] == '%' && i + 2 < n && isxdigit((unsigned char)src[i + 1])
            && isxdigit((unsigned char)src[i + 2])) {
            dst[j++] = src[i++];
            dst[j++] = (char)toupper((unsigned char)src[i++]);
            dst[j++] = (char)toupper((unsigned char)src[i]);
        } else if ((unsigned char)src[i] & 0x80) {
            dst[j++] = '%';
            dst[j++] = hex_digits[((unsigned char)src[i] >> 4) & 0xf];
            dst[j++] = hex_digits[(unsigned char)src[i] & 0xf];
        } else {
            dst[j++] = src[i];
        }
    }
    dst[j] = '\0';
    return j;
}

/* ===== Matching (RobotsMatchStrategy::Matches) ===== */

int naive_pattern_matches(const char *path, size_t pathlen, const char *pattern, size_t patlen)
{
    size_t *pos = malloc((pathlen + 1) * sizeof *pos);
    if (pos == NULL) abort();
    size_t numpos = 1;
    pos[0] = 0;
    int result = 1;
    for (size_t p = 0; p < patlen; p++) {
        const char c = pattern[p];
        if (c == '$' && p + 1 == patlen) {
            result = pos[numpos - 1] == pathlen;
            break;
        }
        if (c == '*') {
            numpos = pathlen - pos[0] + 1;
            for (size_t i = 1; i < numpos; i++) pos[i] = pos[i - 1] + 1;
        } else {
            size_t newnumpos = 0;
            for (size_t i = 0; i < numpos; i++)
                if (pos[i] < pathlen && path[pos[i]] == c) pos[newnumpos++] = pos[i] + 1;
            numpos = newnumpos;
            if (numpos == 0) { result = 0; break; }
        }
    }
    free(pos);
    return result;
}

/* ===== The matcher's state (RobotsMatcher) ===== */

typedef struct { int priority; uint32_t line; } match;

typedef struct {
    const char *agent;
    size_t agent_len;
    const char *path;
    size_t path_len;
    match allow_global, allow_specific, disallow_global, disallow_specific;
    int seen_global, seen_specific, ever_seen_specific, seen_separator;
} state;

static int ascii_ieq(const char *a, size_t alen, const char *b, size_t blen)
{
    if (alen != blen) return 0;
    for (size_t i = 0; i < alen; i++)
        if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i])) return 0;
    return 1;
}

static void handle_user_agent(state *s, const char *ua)
{
    if (s->seen_separator) s->seen_specific = s->seen_global = s->seen_separator = 0;
    const size_t len = strlen(ua);
    if (len >= 1 && ua[0] == '*' && (len == 1 || isspace((unsigned char)ua[1]))) {
        s->seen_global = 1;
        return;
    }
    size_t tok = 0;
    while (isalpha((unsigned char)ua[tok]) || ua[tok] == '-' || ua[tok] == '_') tok++;
    /* SPEC 2.2.11: an empty token names nobody. (The reference would let it
     * name an empty queried agent, `--agent ''`; robotscan follows the SPEC,
     * see docs/hardening.md.) */
    if (tok > 0 && ascii_ieq(ua, tok, s->agent, s->agent_len))
        s->ever_seen_specific = s->seen_specific = 1;
}

static void record(state *s, match *specific, match *global, int priority, uint32_t line)
{
    match *m = s->seen_specific ? specific : global;
    if (m->priority < priority) {
        m->priority = priority;
        m->line = line;
    }
}

static void handle_allow(state *s, uint32_t line, const char *value, size_t len)
{
    if (!s->seen_global && !s->seen_specific) return;
    s->seen_separator = 1;
    if (naive_pattern_matches(s->path, s->path_len, value, len)) {
        record(s, &s->allow_specific, &s->allow_global, (int)len, line);
        return;
    }
    /* 'index.htm' and 'index.html' are normalized to '/'. */
    const char *slash = NULL;
    for (size_t i = 0; i < len; i++)
        if (value[i] == '/') slash = value + i;
    if (slash && (size_t)(value + len - slash) >= 10 && memcmp(slash, "/index.htm", 10) == 0) {
        const size_t cut = (size_t)(slash - value) + 1;
        char *np = malloc(cut + 1);
        if (np == NULL) abort();
        memcpy(np, value, cut);
        np[cut] = '$';
        handle_allow(s, line, np, cut + 1);
        free(np);
    }
}

static void handle_disallow(state *s, uint32_t line, const char *value, size_t len)
{
    if (!s->seen_global && !s->seen_specific) return;
    s->seen_separator = 1;
    if (naive_pattern_matches(s->path, s->path_len, value, len))
        record(s, &s->disallow_specific, &s->disallow_global, (int)len, line);
}

/* ===== Lines (RobotsTxtParser) ===== */

static int is_white(char c) { return isspace((unsigned char)c) != 0; }

static char *strip(char *s)
{
    while (*s && is_white(*s)) s++;
    size_t n = strlen(s);
    while (n && is_white(s[n - 1])) s[--n] = '\0';
    return s;
}

static int starts_icase(const char *s, const char *prefix)
{
    for (; *prefix; s++, prefix++)
        if (tolower((unsigned char)*s) != *prefix) return 0;
    return 1;
}

static void parse_and_emit_line(state *s, uint32_t line_num, char *line)
{
    char *comment = strchr(line, '#');
    if (comment) *comment = '\0';
    line = strip(line);
    char *sep = strchr(line, ':');
    if (sep == NULL) {
        sep = strpbrk(line, " \t");
        if (sep) {
            const char *val = sep + strspn(sep, " \t");
            if (strpbrk(val, " \t")) return;
        }
    }
    if (sep == NULL) return;
    char *key = line;
    *sep = '\0';
    key = strip(key);
    if (strlen(key) == 0) return;
    char *value = strip(sep + 1);

    if (starts_icase(key, "user-agent") || starts_icase(key, "useragent")
        || starts_icase(key, "user agent")) {
        handle_user_agent(s, value);
        return;
    }
    int type;
    if (starts_icase(key, "allow")) type = 1;
    else if (starts_icase(key, "disallow") || starts_icase(key, "dissallow")
             || starts_icase(key, "dissalow") || starts_icase(key, "disalow")
             || starts_icase(key, "diasllow") || starts_icase(key, "disallaw")) type = 2;
    else return; /* sitemap and unknown keys: the matcher ignores them */

    const size_t vlen = strlen(value);
    char *esc = malloc(3 * vlen + 1);
    if (esc == NULL) abort();
    const size_t elen = naive_canonicalize(value, vlen, esc);
    if (type == 1) handle_allow(s, line_num, esc, elen);
    else handle_disallow(s, line_num, esc, elen);
    free(esc);
}

static const match *higher(const match *a, const match *b)
{
    return a->priority > b->priority ? a : b;
}

void naive_robots_check_path(const void *body_v, size_t body_len, const char *agent,
                             size_t agent_len, const char *path, size_t path_len,
                             naive_verdict *out)
{
    static const unsigned char utf_bom[3] = { 0xEF, 0xBB, 0xBF };
    const unsigned char *body = body_v;
    if (body_len > NAIVE_MAX_BODY) body_len = NAIVE_MAX_BODY;

    state s;
    memset(&s, 0, sizeof s);
    s.agent = agent;
    s.agent_len = agent_len;
    s.path = path;
    s.path_len = strnlen(path, path_len); /* path_ is a C string */
    s.allow_global.priority = s.allow_specific.priority = -1;
    s.disallow_global.priority = s.disallow_specific.priority = -1;

    char *line = malloc(NAIVE_MAX_LINE + 1);
    if (line == NULL) abort();
    size_t fill = 0;
    uint32_t line_num = 0;
    size_t bom_pos = 0;
    int last_was_cr = 0;
    for (size_t i = 0; i < body_len; i++) {
        const unsigned char ch = body[i];
        if (bom_pos < sizeof utf_bom && ch == utf_bom[bom_pos++]) continue;
        bom_pos = sizeof utf_bom;
        if (ch != '\n' && ch != '\r') {
            if (fill < NAIVE_MAX_LINE) line[fill++] = (char)ch;
        } else {
            line[fill] = '\0';
            const int crlf_continuation = fill == 0 && last_was_cr && ch == '\n';
            if (!crlf_continuation) parse_and_emit_line(&s, ++line_num, line);
            fill = 0;
            last_was_cr = ch == '\r';
        }
    }
    line[fill] = '\0';
    parse_and_emit_line(&s, ++line_num, line);
    free(line);

    /* disallow() */
    int dis;
    if (s.allow_specific.priority > 0 || s.disallow_specific.priority > 0)
        dis = s.disallow_specific.priority > s.allow_specific.priority;
    else if (s.ever_seen_specific)
        dis = 0;
    else if (s.disallow_global.priority > 0 || s.allow_global.priority > 0)
        dis = s.disallow_global.priority > s.allow_global.priority;
    else
        dis = 0;
    out->disallowed = dis;
    /* matching_line() */
    out->line = s.ever_seen_specific ? higher(&s.disallow_specific, &s.allow_specific)->line
                                     : higher(&s.disallow_global, &s.allow_global)->line;
}

void naive_robots_check_url(const void *body, size_t body_len, const char *agent,
                            size_t agent_len, const char *url, size_t url_len,
                            naive_verdict *out)
{
    char *path = malloc(url_len + 2);
    if (path == NULL) abort();
    const size_t plen = naive_url_path(url, url_len, path);
    naive_robots_check_path(body, body_len, agent, agent_len, path, plen, out);
    free(path);
}
