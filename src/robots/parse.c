/*
 * parse.c - robots.txt bytes -> one event per line (SPEC 2.1).
 *
 * Reads exactly as Google's reference parser does: BOM prefix skipped, lines
 * end at LF, CR or CRLF, 16,663 bytes of a line kept, NUL ends a line's
 * content, '#' starts a comment, keys matched by prefix with known typos,
 * whitespace accepted in place of a missing colon when the line has exactly
 * two words, allow/disallow/unknown values canonicalized.
 *
 * It knows nothing about groups or matching: consumers (rule compiler, lint)
 * get the events through a callback.
 */
#include "common/common.h"

/* ===== Key recognition ===== */

typedef struct {
    char prefix[12];        /* NUL-padded: read as words (classify_key) */
    uint8_t len;
    rs_directive directive;
    int typo;
} key_form;

#define FORM(s, d, t) { s, sizeof(s) - 1, d, t }

/* Order matters: user-agent, allow, disallow, sitemap (as the reference).
 * Every form starts with one of 'u', 'a', 'd', 's', and forms of different
 * first letters never compete, so a key is only tried against the forms of
 * its first letter, in this order. */
static const key_form KEY_FORMS[] = {
    FORM("user-agent", RS_DIRECTIVE_USER_AGENT, 0),
    FORM("useragent",  RS_DIRECTIVE_USER_AGENT, 1),
    FORM("user agent", RS_DIRECTIVE_USER_AGENT, 1),
    FORM("allow",      RS_DIRECTIVE_ALLOW,      0),
    FORM("disallow",   RS_DIRECTIVE_DISALLOW,   0),
    FORM("dissallow",  RS_DIRECTIVE_DISALLOW,   1),
    FORM("dissalow",   RS_DIRECTIVE_DISALLOW,   1),
    FORM("disalow",    RS_DIRECTIVE_DISALLOW,   1),
    FORM("diasllow",   RS_DIRECTIVE_DISALLOW,   1),
    FORM("disallaw",   RS_DIRECTIVE_DISALLOW,   1),
    FORM("sitemap",    RS_DIRECTIVE_SITEMAP,    0),
    FORM("site-map",   RS_DIRECTIVE_SITEMAP,    1),
};

/* Keys of 8 bytes or more (most of them: disallow, user-agent) are compared
 * eight bytes at a time, each byte ORed with 0x20. That folds exactly the
 * ASCII case of letters; of the other bytes of the forms, '-' also takes
 * '\r' and ' ' also takes NUL, and neither can be in a key (lines end at
 * '\r', their content at NUL), so the result is rs_ieq's. */
/* @w0, @w1: the key's bytes 0-7 and 8-9, folded (see above). */
static inline int form_matches_folded(const key_form *f, uint64_t w0, uint32_t w1)
{
    const uint64_t fw = rs_load64le(f->prefix);
    if (f->len <= 8) {
        const uint64_t mask = f->len == 8 ? ~0ull : (1ull << (8 * f->len)) - 1;
        return ((w0 ^ fw) & mask) == 0;
    }
    const uint32_t ft = (uint32_t)(unsigned char)f->prefix[8] | (uint32_t)(unsigned char)f->prefix[9] << 8;
    const uint32_t tmask = (1u << (8 * (f->len - 8))) - 1;
    return w0 == fw && ((w1 ^ ft) & tmask) == 0;
}

static rs_directive classify_key(const char *key, size_t len, uint32_t *flags)
{
    if (len == 0) return RS_DIRECTIVE_UNKNOWN;
    /* Most keys are "disallow", the first 'd' form: one compare. */
    if (len >= 8 && (rs_load64le(key) | 0x2020202020202020ull) == rs_load64le("disallow"))
        return RS_DIRECTIVE_DISALLOW;
    size_t from, to;        /* the forms starting with key[0], KEY_FORMS[from, to) */
    switch (rs_ascii_lower((unsigned char)key[0])) {
    case 'u': from = 0; to = 3; break;
    case 'a': from = 3; to = 4; break;
    case 'd': from = 4; to = 10; break;
    case 's': from = 10; to = 12; break;
    default: return RS_DIRECTIVE_UNKNOWN;
    }
    if (len >= 8) {
        const uint64_t w0 = rs_load64le(key) | 0x2020202020202020ull;
        uint32_t w1 = 0;
        if (len > 8) w1 |= (uint32_t)(unsigned char)key[8];
        if (len > 9) w1 |= (uint32_t)(unsigned char)key[9] << 8;
        w1 |= 0x2020u;
        for (size_t i = from; i < to; i++) {
            const key_form *f = &KEY_FORMS[i];
            if (len >= f->len && form_matches_folded(f, w0, w1)) {
                if (f->typo) *flags |= RS_LINE_TYPO_KEY;
                return f->directive;
            }
        }
        return RS_DIRECTIVE_UNKNOWN;
    }
    for (size_t i = from; i < to; i++) {
        const key_form *f = &KEY_FORMS[i];
        if (len >= f->len && rs_ieq(key, f->len, f->prefix, f->len)) {
            if (f->typo) *flags |= RS_LINE_TYPO_KEY;
            return f->directive;
        }
    }
    return RS_DIRECTIVE_UNKNOWN;
}

/* ===== Canonicalization ===== */

static int is_hex(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

size_t rs_canonicalize(const char *src, size_t src_size, char *dst, size_t dst_cap)
{
    static const char HEX[] = "0123456789ABCDEF";
    size_t j = 0;
    (void)dst_cap;
    assert(dst_cap >= 3 * src_size);
    const uint64_t ones = 0x0101010101010101ull, highs = ones << 7;
    for (size_t i = 0; i < src_size; i++) {
        /* Eight bytes with neither '%' nor a byte >= 0x80 are copied as they are. */
        while (i + 8 <= src_size) {
            uint64_t w;
            memcpy(&w, src + i, 8);
            const uint64_t pct = w ^ (ones * '%');
            if (((w | ((pct - ones) & ~pct)) & highs) != 0) break;
            memcpy(dst + j, &w, 8);
            i += 8;
            j += 8;
        }
        if (i == src_size) break;
        const unsigned char c = (unsigned char)src[i];
        if (c == '%' && i + 2 < src_size && is_hex((unsigned char)src[i + 1])
            && is_hex((unsigned char)src[i + 2])) {
            dst[j++] = '%';
            dst[j++] = (char)(src[i + 1] >= 'a' ? src[i + 1] - 32 : src[i + 1]);
            dst[j++] = (char)(src[i + 2] >= 'a' ? src[i + 2] - 32 : src[i + 2]);
            i += 2;
        } else if (c & 0x80) {
            dst[j++] = '%';
            dst[j++] = HEX[c >> 4];
            dst[j++] = HEX[c & 15];
        } else {
            dst[j++] = (char)c;
        }
    }
    return j;
}

/* Bytes >= 0x80 of @w, or whose byte is '%', have their high bit set (a
 * borrow can mark a byte after a '%' too, never when no '%' is in @w). */
static inline uint64_t pct_or_high(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ull;
    const uint64_t pct = w ^ (ones * '%');
    return w | ((pct - ones) & ~pct);
}

/* Does rs_canonicalize change @s (does it hold a '%' or a byte >= 0x80)?
 * Most values have neither: their words are ORed and tested once. */
static int needs_canonical(const char *s, size_t n)
{
    const uint64_t highs = 0x8080808080808080ull;
    uint64_t acc = 0, w;
    if (n >= 8) {
        /* Whole words, then the last eight bytes (overlapping: only a test). */
        for (size_t i = 0; i + 8 < n; i += 8) {
            memcpy(&w, s + i, 8);
            acc |= pct_or_high(w);
        }
        memcpy(&w, s + n - 8, 8);
        acc |= pct_or_high(w);
    } else if (n >= 4) {
        /* The first and the last four bytes (overlapping) as one word. */
        uint32_t lo, hi;
        memcpy(&lo, s, 4);
        memcpy(&hi, s + n - 4, 4);
        acc = pct_or_high((uint64_t)lo | (uint64_t)hi << 32);
    } else {
        for (size_t i = 0; i < n; i++)
            if (s[i] == '%' || (s[i] & 0x80)) return 1;
    }
    return (acc & highs) != 0;
}

/* ===== Agents ===== */

size_t rs_agent_token(const char *value, size_t len)
{
    size_t n = 0;
    while (n < len) {
        const unsigned char c = (unsigned char)value[n];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '_')) break;
        n++;
    }
    return n;
}

/* The reference uses isspace() here: space, \t, \n, \v, \f, \r. */
static int is_space(unsigned char c)
{
    /* one test of a bit set: bits 9-13 (\t..\r) and 32 (' ') */
    return c <= ' ' && (0x100003e00ull >> c) & 1;
}

int rs_agent_is_global(const char *value, size_t len)
{
    return len >= 1 && value[0] == '*' && (len == 1 || is_space((unsigned char)value[1]));
}

/* ===== Lines ===== */


static const char *find_space_or_tab(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] == ' ' || s[i] == '\t') return s + i;
    return NULL;
}

/* ===== Line splitting =====
 *
 * The bytes that end a line ('\n', '\r') or matter inside one ('\0', '#',
 * ':') are found with the SIMD byte-class kernel (rs_simd_mask_any, scalar
 * twin under RS_SIMD=scalar) as a bitmap over a window of the body, so
 * splitting a line costs a few bit operations instead of a pass per byte. */

#define WINDOW 4096     /* bytes per bitmap (64 words on the stack) */

typedef struct {
    const unsigned char *p;
    size_t size;
    size_t base, len;   /* the window p[base, base + len) that bits[] maps */
    size_t k, words;    /* the word being read, of bits[0, words) */
    uint64_t m;         /* its bits not yet returned */
    uint64_t bits[WINDOW / 64];
} specials;

static const rs_byteset SPECIAL_BYTES = {
    { (1ull << '\0') | (1ull << '\n') | (1ull << '\r') | (1ull << '#') | (1ull << ':'), 0, 0, 0 },
    { '\n', '\r', '\0', '#', ':' },
    5,
};

static void specials_init(specials *sp, const unsigned char *p, size_t size)
{
    sp->p = p;
    sp->size = size;
    sp->base = sp->len = sp->k = sp->words = 0;
    sp->m = 0;
}

/* The offset of the first special byte at or after @i, or sp->size. The
 * special bytes are returned in order, each once: a cursor over the bitmap
 * (bits before @i, such as the LF of a CRLF already skipped, are dropped). */
static inline size_t next_special(specials *sp, size_t i)
{
    for (;;) {
        while (sp->m == 0) {
            if (sp->k + 1 < sp->words) {
                sp->m = sp->bits[++sp->k];
                continue;
            }
            const size_t next = sp->base + sp->len;
            if (next >= sp->size) return sp->size;
            sp->base = next;
            sp->len = RS_MIN((size_t)WINDOW, sp->size - next);
            sp->words = (sp->len + 63) / 64;
            rs_simd_mask_any((const char *)sp->p + next, sp->len, &SPECIAL_BYTES, sp->bits);
            sp->k = 0;
            sp->m = sp->bits[0];
        }
        const size_t pos = sp->base + (sp->k << 6) + (size_t)__builtin_ctzll(sp->m);
        sp->m &= sp->m - 1;
        if (pos >= i) return pos;
    }
}

/* Where a line ends and what its content stops at. */
typedef struct {
    size_t end;        /* offset of the first '\n' or '\r' at or after the start, or size */
    size_t nul;        /* offset of the first NUL before end, or SIZE_MAX */
    size_t hash;       /* offset of the first '#' before end, or SIZE_MAX */
    size_t colon;      /* offset of the first ':' before end, or SIZE_MAX */
} line_scan;

static inline __attribute__((always_inline)) void scan_line(specials *sp, size_t i, line_scan *ls)
{
    ls->nul = ls->hash = ls->colon = SIZE_MAX;
    for (;;) {
        i = next_special(sp, i);
        if (i == sp->size) break;
        const unsigned char c = sp->p[i];
        if (c == '\n' || c == '\r') break;
        if (c == '\0') { if (ls->nul == SIZE_MAX) ls->nul = i; }
        else if (c == '#') { if (ls->hash == SIZE_MAX) ls->hash = i; }
        else if (ls->colon == SIZE_MAX) ls->colon = i;
        i++;
    }
    ls->end = i;
}

/* Where canonical values are written: a buffer on the parser's stack, then
 * one of 3 * RS_ROBOTS_MAX_LINE bytes on the heap once a value needs it. */
typedef struct {
    char  *ptr;
    size_t cap;
    int    failed;     /* the heap buffer could not be had: RS_ERR_NOMEM */
} scratch_buf;

/* One line's kept bytes -> one event (or none for an empty line). @content:
 * the bytes before the first NUL or '#' (at most raw_len); @nul: a NUL is
 * among the kept bytes. */
static inline __attribute__((always_inline)) void emit_line(uint32_t line_no, const char *raw, size_t raw_len, size_t content,
                      int nul, const char *colon, uint32_t flags, scratch_buf *sc, rs_robots_callback cb, void *ctx)
{
    /* The reference works on a C string: a NUL ends the content. */
    if (nul) flags |= RS_LINE_HAS_NUL;
    size_t len = content;
    const char *s = raw;
    while (len && is_space((unsigned char)s[0])) { s++; len--; }
    while (len && is_space((unsigned char)s[len - 1])) len--;
    if (len == 0) return;

    rs_robots_line ev;
    memset(&ev, 0, sizeof ev);
    ev.line = line_no;
    ev.raw.ptr = raw;
    ev.raw.len = raw_len;
    /* Empty key/value slices still point somewhere (callers may memcpy them). */
    ev.key.ptr = ev.value.ptr = raw;
    ev.flags = flags;

    /* @colon: the line's first ':' (NULL: none); its first in the trimmed content if any. */
    const char *sep = colon != NULL && colon < s + len ? colon : NULL;
    if (sep == NULL) {
        /* Whitespace in place of the colon, only for exactly two words. */
        sep = find_space_or_tab(s, len);
        if (sep) {
            const char *val = sep;
            const char *end = s + len;
            while (val < end && (*val == ' ' || *val == '\t')) val++;
            if (find_space_or_tab(val, (size_t)(end - val))) sep = NULL;
        }
        if (sep == NULL) {
            ev.directive = RS_DIRECTIVE_NONE;
            cb(ctx, &ev);
            return;
        }
        ev.flags |= RS_LINE_MISSING_COLON;
    }

    /* The content is trimmed: the key starts, and the value ends, with no
     * space, so only the key's end and the value's start are trimmed. */
    const char *key = s;
    size_t key_len = (size_t)(sep - s);
    while (key_len && is_space((unsigned char)key[key_len - 1])) key_len--;
    if (key_len == 0) {
        ev.directive = RS_DIRECTIVE_NONE;
        ev.flags |= RS_LINE_EMPTY_KEY;
        cb(ctx, &ev);
        return;
    }
    const char *value = sep + 1;
    size_t value_len = (size_t)(s + len - value);
    while (value_len && is_space((unsigned char)value[0])) { value++; value_len--; }

    ev.key.ptr = key;
    ev.key.len = key_len;
    ev.directive = classify_key(key, key_len, &ev.flags);
    if (ev.directive == RS_DIRECTIVE_USER_AGENT || ev.directive == RS_DIRECTIVE_SITEMAP) {
        ev.value.ptr = value;
        ev.value.len = value_len;
    } else if (!needs_canonical(value, value_len)) {
        /* Already canonical (no '%', no byte >= 0x80): the line's own bytes. */
        ev.value.ptr = value;
        ev.value.len = value_len;
    } else {
        /* The caller's small buffer serves short values; a longer one gets the
         * heap buffer (allocated once per parse, for the longest line). */
        if (3 * value_len > sc->cap) {
            char *big = sc->failed ? NULL : rs_malloc(3 * RS_ROBOTS_MAX_LINE);
            if (big == NULL) {   /* no memory: the event is not delivered, the parse fails */
                sc->failed = 1;
                return;
            }
            sc->ptr = big;
            sc->cap = 3 * RS_ROBOTS_MAX_LINE;
        }
        ev.value.ptr = sc->ptr;
        ev.value.len = rs_canonicalize(value, value_len, sc->ptr, sc->cap);
    }
    cb(ctx, &ev);
}

rs_status rs_robots_parse(const void *body, size_t size, rs_robots_callback cb, void *ctx,
                          rs_robots_info *info)
{
    static const unsigned char BOM[3] = { 0xEF, 0xBB, 0xBF };
    /* An empty body may come as NULL: point at a real empty string instead,
     * so no pointer arithmetic touches NULL and line slices are never NULL. */
    const unsigned char *p = body != NULL ? (const unsigned char *)body : (const unsigned char *)"";
    RS_RETURN_IF(body == NULL && size > 0, RS_ERR_USAGE);
    rs_robots_info local;
    if (info == NULL) info = &local;
    memset(info, 0, sizeof *info);
    if (size > RS_ROBOTS_MAX_BODY) {
        size = RS_ROBOTS_MAX_BODY;
        info->truncated = 1;
    }
    info->bytes_read = size;

    /* Canonical values of up to 512 bytes go to the stack; a longer one
     * switches to a heap buffer for the longest possible line. */
    char small[3 * 512];
    scratch_buf sc = { small, sizeof small, 0 };

    /* Skip a BOM or a prefix of one, as the reference does. */
    size_t i = 0;
    while (i < size && i < 3 && p[i] == BOM[i]) i++;
    info->bom_bytes = (uint32_t)i;

    uint32_t line_no = 0;
    size_t start = i;
    line_scan ls;
    specials sp;
    specials_init(&sp, p, size);
    for (;;) {
        scan_line(&sp, start, &ls);
        const size_t end = ls.end;
        const size_t len = end - start;
        const size_t kept = RS_MIN(len, RS_ROBOTS_MAX_LINE);
        const size_t stop = RS_MIN(ls.nul, ls.hash);
        const size_t content = stop == SIZE_MAX ? kept : RS_MIN(stop - start, kept);
        const int nul = ls.nul != SIZE_MAX && ls.nul - start < kept;
        const char *colon = ls.colon != SIZE_MAX && ls.colon - start < content
                            ? (const char *)p + ls.colon : NULL;
        uint32_t flags = len > RS_ROBOTS_MAX_LINE ? RS_LINE_TOO_LONG : 0;
        /* The text after the last line end is a line too (possibly empty). */
        const int last = end == size;
        if (last && info->truncated) {
            flags |= RS_LINE_PAST_LIMIT;
            info->truncated_line = line_no + 1;
        }
        emit_line(++line_no, (const char *)p + start, kept, content, nul, colon, flags, &sc, cb, ctx);
        if (last) break;
        start = end + 1;
        /* The LF of a CRLF ends the same line: it makes no empty line of its own. */
        if (p[end] == '\r' && start < size && p[start] == '\n') start++;
    }
    info->lines = line_no;
    if (sc.ptr != small) rs_free(sc.ptr);
    RS_RETURN_IF(sc.failed, RS_ERR_NOMEM);
    return RS_OK;
}
