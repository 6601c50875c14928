/*
 * test_parse_split.c - the parser's line splitting (SIMD byte-class bitmap,
 * word-compared keys, values passed through when already canonical) against
 * the byte-at-a-time parser it replaced, kept here as the reference: every
 * event (line number, flags, directive, raw, key, value) must be the same on
 * random bodies built from the bytes that matter (line ends, NUL, '#', ':',
 * '%', spaces, bytes >= 0x80, key letters in both cases), on bodies longer
 * than the 4 KiB bitmap window, with lines longer than RS_ROBOTS_MAX_LINE and
 * past RS_ROBOTS_MAX_BODY. `make test` runs it with RS_SIMD=scalar too.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "robotscan.h"

#define REF_MIN(a, b) ((a) < (b) ? (a) : (b))

static int ref_lower(int c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }

static int ref_ieq(const char *a, size_t alen, const char *b, size_t blen)
{
    if (alen != blen) return 0;
    for (size_t i = 0; i < alen; i++)
        if (ref_lower((unsigned char)a[i]) != ref_lower((unsigned char)b[i])) return 0;
    return 1;
}

/* ----- the reference: src/robots/parse.c before the bitmap splitter ----- */

typedef struct {
    const char *prefix;
    uint8_t len;
    rs_directive directive;
    int typo;
} ref_key_form;

#define ref_FORM(s, d, t) { s, sizeof(s) - 1, d, t }

/* Order matters: user-agent, allow, disallow, sitemap (as the reference).
 * Every form starts with one of 'u', 'a', 'd', 's', and forms of different
 * first letters never compete, so a key is only tried against the forms of
 * its first letter, in this order. */
static const ref_key_form ref_KEY_FORMS[] = {
    ref_FORM("user-agent", RS_DIRECTIVE_USER_AGENT, 0),
    ref_FORM("useragent",  RS_DIRECTIVE_USER_AGENT, 1),
    ref_FORM("user agent", RS_DIRECTIVE_USER_AGENT, 1),
    ref_FORM("allow",      RS_DIRECTIVE_ALLOW,      0),
    ref_FORM("disallow",   RS_DIRECTIVE_DISALLOW,   0),
    ref_FORM("dissallow",  RS_DIRECTIVE_DISALLOW,   1),
    ref_FORM("dissalow",   RS_DIRECTIVE_DISALLOW,   1),
    ref_FORM("disalow",    RS_DIRECTIVE_DISALLOW,   1),
    ref_FORM("diasllow",   RS_DIRECTIVE_DISALLOW,   1),
    ref_FORM("disallaw",   RS_DIRECTIVE_DISALLOW,   1),
    ref_FORM("sitemap",    RS_DIRECTIVE_SITEMAP,    0),
    ref_FORM("site-map",   RS_DIRECTIVE_SITEMAP,    1),
};

static rs_directive ref_classify_key(const char *key, size_t len, uint32_t *flags)
{
    if (len == 0) return RS_DIRECTIVE_UNKNOWN;
    size_t from, to;        /* the forms starting with key[0], ref_KEY_FORMS[from, to) */
    switch (ref_lower((unsigned char)key[0])) {
    case 'u': from = 0; to = 3; break;
    case 'a': from = 3; to = 4; break;
    case 'd': from = 4; to = 10; break;
    case 's': from = 10; to = 12; break;
    default: return RS_DIRECTIVE_UNKNOWN;
    }
    for (size_t i = from; i < to; i++) {
        const ref_key_form *f = &ref_KEY_FORMS[i];
        if (len >= f->len && ref_ieq(key, f->len, f->prefix, f->len)) {
            if (f->typo) *flags |= RS_LINE_TYPO_KEY;
            return f->directive;
        }
    }
    return RS_DIRECTIVE_UNKNOWN;
}

/* The reference uses isspace() here: space, \t, \n, \v, \f, \r. */
static int ref_is_space(unsigned char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

/* ===== Lines ===== */

static void ref_trim(const char **p, size_t *len)
{
    const char *s = *p;
    size_t n = *len;
    while (n && ref_is_space((unsigned char)s[0])) { s++; n--; }
    while (n && ref_is_space((unsigned char)s[n - 1])) n--;
    *p = s;
    *len = n;
}

static const char *ref_find_space_or_tab(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] == ' ' || s[i] == '\t') return s + i;
    return NULL;
}

/* One line's kept bytes -> one event (or none for an empty line). */
static void ref_emit_line(uint32_t line_no, const char *raw, size_t raw_len, uint32_t flags,
                      char *scratch, rs_robots_callback cb, void *ctx)
{
    rs_robots_line ev;
    memset(&ev, 0, sizeof ev);
    ev.line = line_no;
    ev.raw.ptr = raw;
    ev.raw.len = raw_len;
    /* Empty key/value slices still point somewhere (callers may memcpy them). */
    ev.key.ptr = ev.value.ptr = raw;

    /* The reference works on a C string: a NUL ends the content. */
    size_t len = raw_len;
    const char *nul = memchr(raw, '\0', raw_len);
    if (nul) {
        len = (size_t)(nul - raw);
        flags |= RS_LINE_HAS_NUL;
    }
    const char *hash = memchr(raw, '#', len);
    if (hash) len = (size_t)(hash - raw);

    const char *s = raw;
    ref_trim(&s, &len);
    if (len == 0) return;
    ev.flags = flags;

    const char *sep = memchr(s, ':', len);
    if (sep == NULL) {
        /* Whitespace in place of the colon, only for exactly two words. */
        sep = ref_find_space_or_tab(s, len);
        if (sep) {
            const char *val = sep;
            const char *end = s + len;
            while (val < end && (*val == ' ' || *val == '\t')) val++;
            if (ref_find_space_or_tab(val, (size_t)(end - val))) sep = NULL;
        }
        if (sep == NULL) {
            ev.directive = RS_DIRECTIVE_NONE;
            cb(ctx, &ev);
            return;
        }
        ev.flags |= RS_LINE_MISSING_COLON;
    }

    const char *key = s;
    size_t key_len = (size_t)(sep - s);
    ref_trim(&key, &key_len);
    if (key_len == 0) {
        ev.directive = RS_DIRECTIVE_NONE;
        ev.flags |= RS_LINE_EMPTY_KEY;
        cb(ctx, &ev);
        return;
    }
    const char *value = sep + 1;
    size_t value_len = (size_t)(s + len - value);
    ref_trim(&value, &value_len);

    ev.key.ptr = key;
    ev.key.len = key_len;
    ev.directive = ref_classify_key(key, key_len, &ev.flags);
    if (ev.directive == RS_DIRECTIVE_USER_AGENT || ev.directive == RS_DIRECTIVE_SITEMAP) {
        ev.value.ptr = value;
        ev.value.len = value_len;
    } else {
        ev.value.ptr = scratch;
        ev.value.len = rs_canonicalize(value, value_len, scratch, 3 * RS_ROBOTS_MAX_LINE);
    }
    cb(ctx, &ev);
}

rs_status ref_rs_robots_parse(const void *body, size_t size, rs_robots_callback cb, void *ctx,
                          rs_robots_info *info)
{
    static const unsigned char BOM[3] = { 0xEF, 0xBB, 0xBF };
    /* An empty body may come as NULL: point at a real empty string instead,
     * so no pointer arithmetic touches NULL and line slices are never NULL. */
    const unsigned char *p = body != NULL ? (const unsigned char *)body : (const unsigned char *)"";
    if (body == NULL && size > 0) return RS_ERR_USAGE;
    rs_robots_info local;
    if (info == NULL) info = &local;
    memset(info, 0, sizeof *info);
    if (size > RS_ROBOTS_MAX_BODY) {
        size = RS_ROBOTS_MAX_BODY;
        info->truncated = 1;
    }
    info->bytes_read = size;

    char *scratch = malloc(3 * RS_ROBOTS_MAX_LINE);
    if (scratch == NULL) return RS_ERR_NOMEM;

    /* Skip a BOM or a prefix of one, as the reference does. */
    size_t i = 0;
    while (i < size && i < 3 && p[i] == BOM[i]) i++;
    info->bom_bytes = (uint32_t)i;

    uint32_t line_no = 0;
    int last_was_cr = 0;
    size_t start = i;
    for (;;) {
        size_t end = start;
        while (end < size && p[end] != '\n' && p[end] != '\r') end++;
        const size_t len = end - start;
        uint32_t flags = len > RS_ROBOTS_MAX_LINE ? RS_LINE_TOO_LONG : 0;
        if (end == size) {
            /* The text after the last line end is a line too (possibly empty). */
            if (info->truncated) {
                flags |= RS_LINE_PAST_LIMIT;
                info->truncated_line = line_no + 1;
            }
            ref_emit_line(++line_no, (const char *)p + start, REF_MIN(len, RS_ROBOTS_MAX_LINE), flags,
                      scratch, cb, ctx);
            break;
        }
        const unsigned char ch = p[end];
        /* The LF of a CRLF does not make an empty line of its own. */
        if (!(len == 0 && last_was_cr && ch == '\n'))
            ref_emit_line(++line_no, (const char *)p + start, REF_MIN(len, RS_ROBOTS_MAX_LINE), flags,
                      scratch, cb, ctx);
        last_was_cr = (ch == '\r');
        start = end + 1;
    }
    info->lines = line_no;
    free(scratch);
    return RS_OK;
}

/* ----- event logs ----- */

typedef struct {
    char  *ptr;
    size_t len, cap;
} log_buf;

static void put(log_buf *b, const void *p, size_t n)
{
    if (b->cap - b->len < n) {
        while (b->cap - b->len < n) b->cap = b->cap ? b->cap * 2 : 4096;
        b->ptr = realloc(b->ptr, b->cap);
        cr_assert_not_null(b->ptr);
    }
    memcpy(b->ptr + b->len, p, n);
    b->len += n;
}

/* One record per event: its fields, then raw, key and value bytes (raw as an
 * offset into the body: both parsers must slice the same bytes). */
static const char *log_body;

static void log_event(void *ctx, const rs_robots_line *ev)
{
    log_buf *b = ctx;
    const uint64_t f[8] = { ev->line, ev->flags, (uint64_t)ev->directive,
                            (uint64_t)(ev->raw.ptr - log_body), ev->raw.len, ev->key.len,
                            ev->value.len, 0xfeed };
    put(b, f, sizeof f);
    put(b, ev->key.ptr, ev->key.len);
    put(b, ev->value.ptr, ev->value.len);
}

static void same_events(const char *body, size_t size)
{
    log_buf a = { 0 }, b = { 0 };
    rs_robots_info ia, ib;
    log_body = body;
    cr_assert_eq(rs_robots_parse(body, size, log_event, &a, &ia), RS_OK);
    cr_assert_eq(ref_rs_robots_parse(body, size, log_event, &b, &ib), RS_OK);
    cr_assert_eq(ia.lines, ib.lines, "lines %u vs %u (size %zu)", ia.lines, ib.lines, size);
    cr_assert_eq(ia.bom_bytes, ib.bom_bytes);
    cr_assert_eq(ia.truncated, ib.truncated);
    cr_assert_eq(ia.truncated_line, ib.truncated_line);
    cr_assert_eq(ia.bytes_read, ib.bytes_read);
    cr_assert_eq(a.len, b.len, "event logs differ in length (size %zu)", size);
    cr_assert(a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0, "event logs differ (size %zu)", size);
    free(a.ptr);
    free(b.ptr);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}

static const char *const PIECES[] = {
    "\n", "\r", "\r\n", "\n\r", "\0", "#", ":", " ", "\t", "\v", "%", "%2f", "%2F", "%zz", "%a",
    "\xC3\xA4", "\xEF\xBB\xBF", "\xFF", "user-agent", "USER-AGENT", "useragent", "user agent",
    "User-Agent", "allow", "ALLOW", "disallow", "DisAllow", "dissallow", "dissalow", "disalow",
    "diasllow", "disallaw", "sitemap", "site-map", "SITEMAP", "crawl-delay", "u", "d", "s", "a",
    "/", "/path/to/x", "*", "$", "Googlebot", "abcdefghij", "user-agentx", "disallowed",
    "user\ragent", "user-agen", "disallo",
};

static size_t fill_random(char *buf, size_t target)
{
    const size_t npieces = sizeof PIECES / sizeof PIECES[0];
    size_t n = 0;
    while (n < target) {
        const char *p = PIECES[rnd() % npieces];
        const size_t len = p[0] == '\0' ? 1 : strlen(p);
        if (n + len > target) break;
        memcpy(buf + n, p, len);
        n += len;
    }
    return n;
}

Test(parse_split, random_bodies_match_reference)
{
    char *buf = malloc(20000);
    cr_assert_not_null(buf);
    for (int iter = 0; iter < 3000; iter++) {
        const size_t target = iter < 2000 ? rnd() % 200 : rnd() % 20000;
        const size_t n = fill_random(buf, target);
        same_events(buf, n);
    }
    free(buf);
}

Test(parse_split, words_of_keys_and_values)
{
    /* Every length of every key form and some neighbours, in both cases, with
     * values that are and are not canonical, around 8-byte word edges. */
    static const char *const keys[] = { "user-agent", "useragent", "user agent", "allow", "disallow",
                                        "dissallow", "dissalow", "disalow", "diasllow", "disallaw",
                                        "sitemap", "site-map" };
    static const char *const values[] = { "", "/", "/abcdefg", "/abcdefgh", "/abcdefghi", "/a%2fb",
                                          "/abcdefghijklmno%", "/\xC3\xA4" "bcdefghij", "/x y", "*" };
    char line[256];
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        for (size_t cut = 0; cut <= strlen(keys[k]) + 2; cut++)
            for (size_t v = 0; v < sizeof values / sizeof values[0]; v++)
                for (int upper = 0; upper < 2; upper++) {
                    size_t n = 0;
                    const size_t kl = strlen(keys[k]);
                    for (size_t i = 0; i < cut; i++) {
                        char c = i < kl ? keys[k][i] : 'x';
                        if (upper && c >= 'a' && c <= 'z') c = (char)(c - 32);
                        line[n++] = c;
                    }
                    line[n++] = ':';
                    memcpy(line + n, values[v], strlen(values[v]));
                    n += strlen(values[v]);
                    same_events(line, n);
                    line[n++] = '\n';
                    same_events(line, n);
                }
}

Test(parse_split, long_lines_and_truncated_bodies)
{
    const size_t size = (size_t)RS_ROBOTS_MAX_BODY + 5000;
    char *buf = malloc(size);
    cr_assert_not_null(buf);
    for (int iter = 0; iter < 6; iter++) {
        /* A line longer than RS_ROBOTS_MAX_LINE with a NUL, '#' or ':' past the
         * kept bytes, then random text up to and past the body limit. */
        size_t n = 0;
        memcpy(buf, "Disallow: /", 11);
        n = 11;
        const size_t long_len = RS_ROBOTS_MAX_LINE + 100 + (size_t)iter * 3000;
        memset(buf + n, 'a' + iter, long_len);
        buf[n + RS_ROBOTS_MAX_LINE + (size_t)iter] = "\0#:%\xC3:"[iter];
        n += long_len;
        buf[n++] = '\n';
        n += fill_random(buf + n, (iter % 2 ? size : 70000) - n);
        same_events(buf, n);
    }
    free(buf);
}
