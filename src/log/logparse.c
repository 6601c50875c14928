/*
 * logparse.c - every access-log format behind one parser (rs_logparser):
 * line templates (rs_logformat: combined, common, vhost_combined, alb, nginx
 * log_format and Apache LogFormat strings), W3C extended / IIS and CloudFront
 * (columns named by `#Fields:` lines), JSON lines (Caddy, nginx
 * `escape=json`, Cloudflare Logpush, or keys given as NAME=KEY) and `auto`.
 *
 * Does: split a line into a rs_logrec whose slices point into the line or,
 * for values that needed decoding (JSON escapes, %XX, W3C `+`, stem+query),
 * into the parser's scratch buffer; detect the format of a block of lines.
 * Does not: read files, allocate per line (the scratch grows to the longest
 * line once), identify bots.
 *
 * Sources: W3C "Extended Log File Format" (WD-logfile-960323: `#Version`,
 * `#Fields`, date/time in UTC, `c-ip`, `cs-method`, `cs-uri-stem`,
 * `cs(User-Agent)`...; IIS writes `+` for spaces); the CloudFront standard
 * log reference (33 tab-separated fields: date time x-edge-location sc-bytes
 * c-ip cs-method cs(Host) cs-uri-stem sc-status cs(Referer) cs(User-Agent)
 * cs-uri-query ... x-host-header cs-protocol ...; values URL-encoded); the
 * ALB access-log entry syntax; Cloudflare's http_requests Logpush fields
 * (EdgeStartTimestamp as RFC 3339, unix seconds or unix nanoseconds); Caddy's
 * JSON access log (`ts` float seconds, `request.{client_ip,remote_ip,host,
 * method,uri,proto,headers.User-Agent[0]}`, `status`, `size`).
 */
#include "common/common.h"
#include "log/log_internal.h"

#include <stdio.h>

#define RS_TRY(expr) do { const rs_status t_ = (expr); if (t_ != RS_OK) return t_; } while (0)

enum kind { K_TEMPLATE, K_W3C, K_CLOUDFRONT, K_JSON, K_AUTO };

/* Fields the W3C and JSON readers fill. */
enum jfield {
    J_TIME, J_DATE, J_CLIENT, J_HOST, J_PORT, J_SCHEME, J_METHOD, J_URL, J_QUERY, J_REQUEST,
    J_PROTOCOL, J_STATUS, J_BYTES, J_REFERER, J_UA, J_USER, J_COUNT, J_NONE = 255
};

static const char *const JFIELD_NAMES[J_COUNT] = {
    "time", "date", "client", "host", "port", "scheme", "method", "url", "query", "request",
    "protocol", "status", "bytes", "referer", "user_agent", "user",
};

/* A JSON key path wanted for a field; lower prio wins. */
typedef struct {
    char    *path;
    size_t   len;
    uint8_t  field;
    uint8_t  prio;
} jpath;

/* A node of the wanted paths' tree: a wanted path or a dot-prefix of one
 * ("a" and "a.b" of "a.b.c"), or the root "". */
typedef struct {
    const char *str;     /* borrowed from its jpath */
    uint16_t len;
    uint8_t  prefix;     /* some wanted path continues str + "." (the root: always) */
    uint16_t n_offers, offers;  /* its (field, prio)s: joffers[offers ..] */
} jnode;

typedef struct {
    uint8_t field, prio;
} joffer_to;

/* A slot of the (node, key) table: the node whose string is the parent's +
 * "." + key (the root's: key alone, as the walk joins paths). */
typedef struct {
    const char *key;     /* borrowed: the child's string after the parent's */
    uint16_t child;      /* 0: an empty slot (the root is nobody's child) */
    uint16_t parent;
    uint16_t klen;
} jedge;

/* The shape of a JSON line (json_replay): what lies between its strings (the
 * glue: structural bytes, whitespace, literals and at most one number), which
 * keys decide a node, and what each string or number is offered to. */
#define JSHAPES 4               /* shapes remembered, by their count of quotes */
#define JSHAPE_STR 96           /* strings a shape holds at most */
#define JSHAPE_KEYS 64          /* keys it compares, 32 bytes each at most */
#define JSHAPE_SLOTS 32         /* values offered to fields it keeps */
typedef struct {
    uint8_t pl, sl;             /* glue before the string: pre[0, pl), [a number,] post[0, sl) */
    uint8_t num;                /* a number between pre and post */
    uint8_t key;                /* the string is a key to compare (its object has a node) */
    uint8_t span;               /* a key read with the next string's start: kw[koff] holds the bytes from
                                   this glue's start to the next string's opening quote, span of them */
    uint16_t klen, koff;        /* ... its bytes: keys[koff, + klen) */
    uint8_t slot, nslot;        /* where the replay keeps the string value, the number (0xFF: not kept) */
    uint64_t pre[2], pcare[2];  /* pre's bytes, zero-padded, and 0xFF over them */
    uint64_t post, scare;       /* post's bytes at the END of 8 (the 8 before the string), 0xFF over them */
} jglue;

typedef struct {
    size_t quotes;              /* 2 x strings; 0: empty */
    uint32_t hits;              /* 1: a line was read against it since it was made */
    uint32_t skip;              /* lines of this slot still to read without shapes (json_parse's back-off) */
    uint32_t backoff;           /* the last skip given */
    size_t n_str;
    uint8_t wslot[J_COUNT];     /* each field's value: the slot that won its offers (0xFF: none) ... */
    uint8_t wprio[J_COUNT], wnum[J_COUNT];  /* ... at which prio, and whether a number */
    jglue g[JSHAPE_STR + 1];    /* g[n_str]: the glue after the last string, to the line's end */
    uint64_t kw[JSHAPE_KEYS][4], kcare[JSHAPE_KEYS][4];  /* each key's bytes, zero-padded, and 0xFF over them */
} jshape;

/* What the fast reader met, in order, while it records (json_shape_build). */
typedef struct {
    size_t a, b;                /* a string's quotes, or a number's [a, b) */
    uint16_t offers, n_offers;
    uint8_t type;               /* JEV_* */
} jev;
enum { JEV_KEY, JEV_KEY_CMP, JEV_STR, JEV_NUM };
#define JEV_MAX (2 * JSHAPE_STR + 8)

#define MAX_W3C_COLS 256
#define UA_MEMO_MAX 512     /* longer user agents are decoded every time */
#define JSON_MAX_DEPTH 32

struct rs_logparser {
    enum kind kind;
    int settled;             /* auto: format chosen */
    int cloudflare;
    char name[24];
    rs_logformat *tmpl;
    rs_logtime_cache tcache; /* combined-format times (rs_logline_parse_cached) */
    int alb;
    /* W3C */
    uint8_t cols[MAX_W3C_COLS];
    size_t n_cols;
    size_t wanted_cols;      /* 1 + the last column of a field (cols[k] != J_NONE), or 0 */
    int have_fields;
    char wdate[10];          /* the last W3C date read whole, "YYYY-MM-DD" (wdate_ok) ... */
    int64_t wday;            /* ... and the epoch of its midnight, UTC */
    int wdate_ok;
    /* The last user agent decoded (ua_decode): its text as logged and decoded */
    char ua_raw[UA_MEMO_MAX], ua_dec[UA_MEMO_MAX];
    size_t ua_raw_len, ua_dec_len;  /* ua_dec_len == SIZE_MAX: it had nothing to decode */
    int ua_plus;             /* the decode's @plus; -1: no memo yet */
    /* The last JSON time string rs_log_parse_time read as ISO 8601 (json_time) */
    char jtime[48];
    size_t jtime_len;        /* 0: none */
    int64_t jtime_day;       /* its epoch less its clock's seconds */
    /* JSON */
    jpath *paths;
    size_t n_paths;
    /* The paths as a tree (json_index): node 0 is the root "" */
    jnode *jnodes;
    size_t n_jnodes;
    joffer_to *joffers;      /* each node's (field, prio) wanting its value */
    jedge *jedges;           /* (node, key) -> child, open addressing */
    size_t jedge_mask;       /* slots - 1 */
    int json_walk;           /* tests: build every path, offer every value to every path */
    uint64_t *jmask;         /* the line's '"' and '\\' bytes, one bit each (rs_simd_mask_any) */
    size_t jmask_cap;        /* words */
    jshape *jshapes;         /* [JSHAPES], made on first use; NULL: none */
    int jshapes_off;         /* could not be made */
    jev jev[JEV_MAX];        /* the recorded line's events */
    char *user_fields;       /* the NAME=KEY overrides, kept for auto */
    const char **user_list;
    size_t n_user;
    /* scratch for decoded values */
    char *scratch;
    size_t scratch_cap, scratch_len;
    char pathbuf[1024];
};

/* ===== Helpers ===== */

/* 0x10 | the value of a hex digit, 0 for any other byte: both digits of an
 * escape are checked with one AND. */
static const unsigned char HEX[256] = {
    ['0'] = 0x10, ['1'] = 0x11, ['2'] = 0x12, ['3'] = 0x13, ['4'] = 0x14, ['5'] = 0x15, ['6'] = 0x16,
    ['7'] = 0x17, ['8'] = 0x18, ['9'] = 0x19, ['a'] = 0x1A, ['b'] = 0x1B, ['c'] = 0x1C, ['d'] = 0x1D,
    ['e'] = 0x1E, ['f'] = 0x1F, ['A'] = 0x1A, ['B'] = 0x1B, ['C'] = 0x1C, ['D'] = 0x1D, ['E'] = 0x1E,
    ['F'] = 0x1F,
};

static int hexval(unsigned char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Appends to the scratch (capacity ensured per line). */
static char *scratch_put(rs_logparser *p, const char *s, size_t n)
{
    char *d = p->scratch + p->scratch_len;
    memcpy(d, s, n);
    p->scratch_len += n;
    return d;
}

/* Bytes of the 8 at x (little-endian order) equal to the byte of b (each of
 * b's bytes the same): the top bit of each such byte; exact up to the first
 * one (later bytes may be false hits, borrowed from it), which is all
 * url_decode takes. */
static inline uint64_t swar_eq(uint64_t x, uint64_t b)
{
    const uint64_t v = x ^ b;
    return (v - 0x0101010101010101ull) & ~v & 0x8080808080808080ull;
}

/* %XX (and `+` as a space when @plus) decoded into the scratch. The runs
 * between escapes (a CloudFront user agent has a %20 every ~8 bytes) are
 * copied 8 bytes a step, the escapes decoded one by one: byte by byte, this
 * was 20% of a CloudFront run. Writes stay inside d[0, v.len). */
static rs_str url_decode(rs_logparser *p, rs_str v, int plus)
{
    static const rs_byteset PCT = {{1ull << '%', 0, 0, 0}, {'%'}, 1};
    static const rs_byteset PCT_PLUS = {{(1ull << '%') | (1ull << '+'), 0, 0, 0}, {'%', '+'}, 2};
    const uint64_t PCT8 = 0x2525252525252525ull, PLUS8 = plus ? 0x2B2B2B2B2B2B2B2Bull : PCT8;
    const rs_byteset *set = plus ? &PCT_PLUS : &PCT;
    size_t i = rs_simd_find_any(v.ptr, v.len, set);
    if (i >= v.len) return v;
    char *d = p->scratch + p->scratch_len;
    memcpy(d, v.ptr, i);
    size_t n = i;
    if (p->json_walk) {            /* the reference (tests): byte by byte */
        for (; i < v.len; i++) {
            const unsigned char c = (unsigned char)v.ptr[i];
            int h, l;
            if (c == '%' && i + 2 < v.len && (h = hexval((unsigned char)v.ptr[i + 1])) >= 0 &&
                (l = hexval((unsigned char)v.ptr[i + 2])) >= 0) {
                d[n++] = (char)(h * 16 + l);
                i += 2;
            } else {
                d[n++] = c == '+' && plus ? ' ' : (char)c;
            }
        }
        p->scratch_len += n;
        return (rs_str){d, n};
    }
    while (i < v.len) {            /* v.ptr[i] is a '%' (or '+') */
        const unsigned char c = (unsigned char)v.ptr[i];
        unsigned h, l;
        if (c == '%' && i + 2 < v.len && ((h = HEX[(unsigned char)v.ptr[i + 1]]) &
                                          (l = HEX[(unsigned char)v.ptr[i + 2]]) & 0x10)) {
            d[n++] = (char)((h & 15) << 4 | (l & 15));
            i += 3;
        } else {
            d[n++] = c == '+' && plus ? ' ' : (char)c;
            i++;
        }
        /* The run up to the next '%' (or '+'). */
        for (;;) {
            if (i + 8 > v.len) {
                while (i < v.len && v.ptr[i] != '%' && !(plus && v.ptr[i] == '+')) d[n++] = v.ptr[i++];
                break;
            }
            uint64_t x;
            memcpy(&x, v.ptr + i, 8);
            memcpy(d + n, &x, 8);  /* n + 8 <= i + 8 <= v.len */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            x = __builtin_bswap64(x);  /* the first byte in the lowest bits */
#endif
            const uint64_t hit = swar_eq(x, PCT8) | swar_eq(x, PLUS8);
            if (hit) {
                const size_t k = (size_t)__builtin_ctzll(hit) >> 3;
                i += k;
                n += k;
                break;
            }
            i += 8;
            n += 8;
        }
    }
    p->scratch_len += n;
    return (rs_str){d, n};
}

/* url_decode of a user agent through a memo of the last one: a client's
 * lines come in runs (58% of the shared log's lines repeat the agent before
 * them), and a CloudFront agent has an escape every ~8 bytes. The walk
 * decodes every time. */
static rs_str ua_decode(rs_logparser *p, rs_str v, int plus)
{
    if (p->json_walk || v.len > UA_MEMO_MAX || v.len == 0) return url_decode(p, v, plus);
    if (p->ua_plus == plus && p->ua_raw_len == v.len && memcmp(p->ua_raw, v.ptr, v.len) == 0) {
        if (p->ua_dec_len == SIZE_MAX) return v;
        return (rs_str){scratch_put(p, p->ua_dec, p->ua_dec_len), p->ua_dec_len};
    }
    const rs_str d = url_decode(p, v, plus);
    memcpy(p->ua_raw, v.ptr, v.len);
    p->ua_raw_len = v.len;
    p->ua_plus = plus;
    if (d.ptr == v.ptr) {
        p->ua_dec_len = SIZE_MAX;
    } else {
        memcpy(p->ua_dec, d.ptr, d.len);       /* d.len <= v.len */
        p->ua_dec_len = d.len;
    }
    return d;
}

/* `host:port` (not an IPv6 literal) split in two. */
static void split_host_port(rs_logrec *r)
{
    const char *h = r->host.ptr;
    size_t n = r->host.len;
    if (n == 0) return;
    const char *colon = NULL;
    if (h[0] == '[') {
        const char *close = memchr(h, ']', n);
        if (close && close + 1 < h + n && close[1] == ':') colon = close + 1;
    } else {
        colon = memchr(h, ':', n);
        if (colon && memchr(colon + 1, ':', (size_t)(h + n - colon - 1))) colon = NULL; /* bare IPv6 */
    }
    if (colon == NULL || r->port.len) return;
    for (const char *q = colon + 1; q < h + n; q++)
        if (*q < '0' || *q > '9') return;
    r->port = (rs_str){colon + 1, (size_t)(h + n - colon - 1)};
    r->host.len = (size_t)(colon - h);
}

/* An absolute target (`https://host:443/path`) gives scheme, host, port. */
static void split_absolute(rs_logrec *r)
{
    const rs_str t = r->target;
    size_t sl;
    if (rs_istarts(t.ptr, t.len, "http://")) sl = 4;
    else if (rs_istarts(t.ptr, t.len, "https://")) sl = 5;
    else return;
    const char *h = t.ptr + sl + 3, *end = t.ptr + t.len;
    const char *slash = h;
    while (slash < end && *slash != '/' && *slash != '?' && *slash != '#') slash++;
    if (slash == h) return;
    r->scheme = (rs_str){t.ptr, sl};
    r->host = (rs_str){h, (size_t)(slash - h)};
    r->port = (rs_str){h, 0};
    split_host_port(r);
    r->target = slash < end ? (rs_str){slash, (size_t)(end - slash)} : (rs_str){"/", 1};
}

static void clear_rec(rs_logrec *r, const char *line)
{
    memset(r, 0, sizeof *r);
    const rs_str none = {line, 0};
    r->client = r->user = r->host = r->port = r->time = r->request = none;
    r->method = r->target = r->protocol = r->referer = r->user_agent = r->scheme = none;
    r->bytes = -1;
}

static int parse_digits(rs_str s, unsigned max, int64_t *v)
{
    if (s.len == 0 || s.len > max) return 0;
    int64_t x = 0;
    for (size_t i = 0; i < s.len; i++) {
        if (s.ptr[i] < '0' || s.ptr[i] > '9') return 0;
        x = x * 10 + (s.ptr[i] - '0');
    }
    *v = x;
    return 1;
}

/* The value of the 8 ASCII digits at p (simdjson's parse_eight_digits_unrolled). */
static inline uint64_t digits8(const char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    v = (v & 0x0F0F0F0F0F0F0F0Full) * 2561 >> 8;
    v = (v & 0x00FF00FF00FF00FFull) * 6553601 >> 16;
    return (v & 0x0000FFFF0000FFFFull) * 42949672960001ull >> 32;
}

/* Bytes of the 8 at x (little-endian order) that are not ASCII digits: the
 * top bit of each; exact up to the first one. */
static inline uint64_t swar_nondigit(uint64_t x)
{
    const uint64_t t = x ^ 0x3030303030303030ull;       /* digits: 0..9 */
    return (t | (t + 0x7676767676767676ull)) & 0x8080808080808080ull;
}

/* s[0, n) are all ASCII digits (16 <= n <= 24): a false hit of swar_nondigit
 * follows a byte that is not a digit, so "none" is exact. */
static inline int all_digits(const char *s, size_t n)
{
    return (swar_nondigit(rs_load64le(s)) | swar_nondigit(rs_load64le(s + 8))
            | swar_nondigit(rs_load64le(s + n - 8))) == 0;
}

/* A JSON number of seconds, or an integer of ms/us/ns since the epoch;
 * @walk: digit by digit only (the reference of the tests). */
static int epoch_number(rs_str s, int64_t *epoch, int walk)
{
    size_t i = 0;
    int64_t v = 0;
    if (s.len == 0 || s.len > 40) return 0;
    if (!walk && s.len >= 16 && s.len <= 19 && all_digits(s.ptr, s.len)) {
        /* an integer of 16-19 digits (Cloudflare's nanoseconds): the loop's value (modulo 2^64 as the
         * loop's), 8 digits a step */
        uint64_t x = digits8(s.ptr) * 100000000ull + digits8(s.ptr + 8);
        for (size_t k = 16; k < s.len; k++) x = x * 10 + (uint64_t)(s.ptr[k] - '0');
        v = (int64_t)x;
        if (v >= 100000000000000000LL) v /= 1000000000;      /* ns */
        else if (v >= 100000000000000LL) v /= 1000000;       /* us */
        else if (v >= 100000000000LL) v /= 1000;             /* ms */
        *epoch = v;
        return 1;
    }
    while (i < s.len && s.ptr[i] >= '0' && s.ptr[i] <= '9') {
        if (i >= 19) return 0;
        v = (int64_t)((uint64_t)v * 10 + (uint64_t)(s.ptr[i] - '0'));   /* past 2^63: wraps, as it always did, without UB */
        i++;
    }
    if (i == 0) return 0;
    const int integer = i == s.len;
    if (!integer) {
        if (s.ptr[i] != '.') return 0;
        for (i++; i < s.len; i++)
            if ((s.ptr[i] < '0' || s.ptr[i] > '9') && s.ptr[i] != 'e' && s.ptr[i] != 'E' && s.ptr[i] != '+'
                && s.ptr[i] != '-')
                return 0;
    }
    if (integer) {
        if (v >= 100000000000000000LL) v /= 1000000000;      /* ns */
        else if (v >= 100000000000000LL) v /= 1000000;       /* us */
        else if (v >= 100000000000LL) v /= 1000;             /* ms */
    }
    *epoch = v;
    return 1;
}

/* A time value from W3C/JSON: a timestamp rs_log_parse_time reads (a zone is
 * required), or a number. */
static int set_time(rs_logrec *r, rs_str v, int number, int walk)
{
    r->time = v;
    int64_t e;
    int ok = number ? epoch_number(v, &e, walk) : rs_log_parse_time(v.ptr, v.len, &e);
    if (!ok && !number) ok = epoch_number(v, &e, walk);  /* "1431857103.123" as a string */
    if (!ok) return 0;
    r->epoch = e;
    r->flags |= RS_LOGREC_HAS_TIME;
    return 1;
}

/* ===== Line bitmaps ===== */

/* One bit per byte of line[0, len) that is in @set (rs_simd_mask_any) into
 * the parser's bitmap; NULL when walking for the tests or out of memory
 * (the callers then search with memchr / rs_simd_find_any). */
static const uint64_t *line_mask(rs_logparser *p, const char *line, size_t len, const rs_byteset *set,
                                 size_t *count /* OUT: the bits set, or NULL */)
{
    if (p->json_walk) return NULL;
    const size_t words = (len + 63) / 64;
    if (p->jmask_cap < words) {
        uint64_t *m = rs_realloc(p->jmask, words * 2 * sizeof *m);
        if (m == NULL) return NULL;
        p->jmask = m;
        p->jmask_cap = words * 2;
    }
    const size_t n = rs_simd_mask_any(line, len, set, p->jmask);
    if (count) *count = n;
    return p->jmask;
}

/* The first position >= i of a set bit of @mask (bits past len are 0), or len. */
static inline size_t mask_next(const uint64_t *mask, size_t i, size_t len)
{
    const size_t words = (len + 63) >> 6;
    size_t w = i >> 6;
    if (w >= words) return len;
    uint64_t m = mask[w] & (~0ull << (i & 63));
    while (m == 0) {
        if (++w >= words) return len;
        m = mask[w];
    }
    return (w << 6) + (size_t)__builtin_ctzll(m);
}

/* memchr(line + i, c, len - i) as a position (len: none), from @mask (which
 * holds every c of the line, and maybe other bytes) when there is one. */
static inline size_t find_byte(const uint64_t *mask, const char *line, size_t i, size_t len, char c)
{
    if (mask == NULL) {
        const char *q = i < len ? memchr(line + i, c, len - i) : NULL;
        return q ? (size_t)(q - line) : len;
    }
    for (;;) {
        i = mask_next(mask, i, len);
        if (i >= len || line[i] == c) return i;
        i++;
    }
}

/* ===== W3C / CloudFront ===== */

static uint8_t w3c_field(const char *s, size_t n)
{
    static const struct { const char *name; uint8_t f; } map[] = {
        {"date", J_DATE}, {"time", J_TIME}, {"c-ip", J_CLIENT}, {"cs-method", J_METHOD},
        {"cs-uri-stem", J_URL}, {"cs-uri-query", J_QUERY}, {"cs-uri", J_URL}, {"sc-status", J_STATUS},
        {"cs(user-agent)", J_UA}, {"cs(referer)", J_REFERER}, {"cs-host", J_HOST}, {"cs(host)", J_HOST},
        {"x-host-header", J_HOST}, {"s-port", J_PORT}, {"cs-protocol", J_SCHEME},
        {"cs-version", J_PROTOCOL}, {"cs-protocol-version", J_PROTOCOL}, {"sc-bytes", J_BYTES},
        {"cs-username", J_USER},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (rs_ieq(s, n, map[i].name, strlen(map[i].name))) return map[i].f;
    return J_NONE;
}

static void w3c_set_fields(rs_logparser *p, const char *s, size_t n)
{
    /* CloudFront logs both cs(Host) (the distribution's domain) and
     * x-host-header (what the viewer asked for): the latter wins. */
    size_t xhost = MAX_W3C_COLS;
    p->n_cols = 0;
    size_t i = 0;
    while (i < n && p->n_cols < MAX_W3C_COLS) {
        while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
        const size_t st = i;
        while (i < n && s[i] != ' ' && s[i] != '\t') i++;
        if (i == st) continue;
        if (rs_ieq(s + st, i - st, "x-host-header", 13)) xhost = p->n_cols;
        p->cols[p->n_cols++] = w3c_field(s + st, i - st);
    }
    if (xhost < MAX_W3C_COLS)
        for (size_t k = 0; k < p->n_cols; k++)
            if (p->cols[k] == J_HOST && k != xhost) p->cols[k] = J_NONE;
    p->wanted_cols = 0;
    for (size_t k = 0; k < p->n_cols; k++)
        if (p->cols[k] != J_NONE) p->wanted_cols = k + 1;
    p->have_fields = 1;
}

static const char CLOUDFRONT_FIELDS[] =
    "date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status cs(Referer) "
    "cs(User-Agent) cs-uri-query cs(Cookie) x-edge-result-type x-edge-request-id x-host-header "
    "cs-protocol cs-bytes time-taken x-forwarded-for ssl-protocol ssl-cipher x-edge-response-result-type "
    "cs-protocol-version fle-status fle-encrypted-fields c-port time-to-first-byte "
    "x-edge-detailed-result-type sc-content-type sc-content-len sc-range-start sc-range-end";

/* A W3C time "hh:mm:ss" (h <= 23, m <= 59, s <= 60, as parse_time_iso
 * takes them) as seconds into its day. A log's lines share their date:
 * the day's epoch is kept (wdate, wday) and only the clock read, where the
 * whole timestamp was ~5% of a CloudFront run. */
static inline int w3c_clock(rs_str t, unsigned *secs)
{
    if (t.len != 8 || t.ptr[2] != ':' || t.ptr[5] != ':') return 0;
    unsigned v[6];
    static const unsigned char at[6] = {0, 1, 3, 4, 6, 7};
    for (int k = 0; k < 6; k++) {
        v[k] = (unsigned)(unsigned char)t.ptr[at[k]] - '0';
        if (v[k] > 9) return 0;
    }
    const unsigned h = v[0] * 10 + v[1], m = v[2] * 10 + v[3], s = v[4] * 10 + v[5];
    if (h > 23 || m > 59 || s > 60) return 0;
    *secs = h * 3600 + m * 60 + s;
    return 1;
}

static rs_logline_status w3c_parse(rs_logparser *p, const char *line, size_t len, rs_logrec *r)
{
    if (line[0] == '#') {
        if (len >= 8 && rs_istarts(line, len, "#Fields:")) w3c_set_fields(p, line + 8, len - 8);
        return RS_LOGLINE_DIRECTIVE;
    }
    if (!p->have_fields) return RS_LOGLINE_NO_FIELDS;
    /* Tabs, spaces and quotes: where fields end, found in one bitmap. */
    static const rs_byteset W3C_SEP = {{(1ull << '\t') | (1ull << ' ') | (1ull << '"'), 0, 0, 0}, {'\t', ' ', '"'}, 3};
    static const rs_byteset TAB = {{1ull << '\t', 0, 0, 0}, {'\t'}, 1};
    const uint64_t *mask = line_mask(p, line, len, p->kind == K_CLOUDFRONT ? &TAB : &W3C_SEP, NULL);
    const int tabs = p->kind == K_CLOUDFRONT || memchr(line, '\t', len) != NULL;
    rs_str v[J_COUNT];
    uint32_t seen = 0;
    size_t i = 0, col = 0;
    if (mask != NULL && p->kind == K_CLOUDFRONT) {
        /* Tabs alone in the bitmap: each field ends at the next set bit
         * (the loop below, without its searches). */
        const size_t words = (len + 63) >> 6;
        size_t w = 0;
        uint64_t m = mask[0];
        while (col < p->wanted_cols) {
            while (m == 0 && ++w < words) m = mask[w];
            const size_t en = m ? (w << 6) + (size_t)__builtin_ctzll(m) : len;
            m &= m - 1;
            const uint8_t f = p->cols[col];
            if (f != J_NONE && !(seen >> f & 1)) {
                v[f] = (rs_str){line + i, en - i};
                seen |= 1u << f;
            }
            col++;
            if (en >= len) { i = len + 1; break; }
            i = en + 1;
        }
        /* The columns after the last wanted one (9 of CloudFront's 33) only
         * count: the tabs left say whether the line has all of them, and
         * more. With t tabs left, the line has t + 1 more fields. */
        if (col == p->wanted_cols && col < p->n_cols && i <= len) {
            size_t t = (size_t)__builtin_popcountll(m), last = m ? (w << 6) + 63 - (size_t)__builtin_clzll(m) : 0;
            for (size_t k = w + 1; k < words; k++)
                if (mask[k]) {
                    t += (size_t)__builtin_popcountll(mask[k]);
                    last = (k << 6) + 63 - (size_t)__builtin_clzll(mask[k]);
                }
            const size_t rest = p->n_cols - col;      /* fields still to read */
            if (t + 1 < rest) {                       /* too few: as the loop, which ends at the line's end */
                col += t + 1;
                i = len + 1;
            } else if (t + 1 == rest) {               /* exactly: the last ends the line */
                col = p->n_cols;
                i = len + 1;
            } else {                                  /* more: the loop stops after the rest-th tab */
                col = p->n_cols;
                i = t > rest || last + 1 < len ? 0 : len;   /* i < len: EXTRA_FIELDS (i is not read again) */
            }
        }
    }
    while (i <= len && col < p->n_cols) {
        if (!tabs) while (i < len && line[i] == ' ') i++;
        if (i >= len && !(tabs && i == len && col > 0)) break;
        size_t st = i, en;
        if (!tabs && line[i] == '"') {          /* a quoted W3C string */
            const size_t q = find_byte(mask, line, i + 1, len, '"');
            if (q >= len) return RS_LOGLINE_NOT_FIELD_END;
            st = i + 1;
            en = q;
            i = en + 1;
        } else {
            en = find_byte(mask, line, i, len, tabs ? '\t' : ' ');
            i = en;
        }
        const uint8_t f = p->cols[col];
        if (f != J_NONE && !(seen >> f & 1)) {
            v[f] = (rs_str){line + st, en - st};
            seen |= 1u << f;
        }
        col++;
        if (i < len) i++;               /* the separator */
        else { i = len + 1; }
    }
    if (col < p->n_cols) {
        r->error_offset = len;
        return RS_LOGLINE_BAD_LAYOUT;   /* truncated: fewer values than #Fields */
    }
    if (i < len) r->flags |= RS_LOGREC_EXTRA_FIELDS;
#define DASH(x) ((x).len == 1 && (x).ptr[0] == '-')
#define GET(f) ((seen >> (f) & 1) && !DASH(v[f]) ? v[f] : (rs_str){line, 0})
    const int plus = p->kind == K_W3C;
    r->client = GET(J_CLIENT);
    r->user = GET(J_USER);
    r->host = GET(J_HOST);
    r->port = GET(J_PORT);
    r->method = GET(J_METHOD);
    r->protocol = GET(J_PROTOCOL);
    r->referer = url_decode(p, GET(J_REFERER), plus);
    r->user_agent = ua_decode(p, GET(J_UA), plus);
    r->scheme = GET(J_SCHEME);
    if (!(rs_ieq(r->scheme.ptr, r->scheme.len, "http", 4) || rs_ieq(r->scheme.ptr, r->scheme.len, "https", 5)))
        r->scheme.len = 0;                  /* ws, wss */
    const rs_str stem = GET(J_URL), query = GET(J_QUERY);
    if (query.len) {
        char *d = scratch_put(p, stem.ptr, stem.len);
        scratch_put(p, "?", 1);
        scratch_put(p, query.ptr, query.len);
        r->target = (rs_str){d, stem.len + 1 + query.len};
    } else {
        r->target = stem;
    }
    int64_t x;
    const rs_str st = GET(J_STATUS);
    if (st.len) {
        if (!parse_digits(st, 3, &x)) return RS_LOGLINE_BAD_STATUS;
        r->status = (int)x;
    }
    const rs_str by = GET(J_BYTES);
    if (by.len && parse_digits(by, 18, &x)) r->bytes = x;
    /* date + time, UTC by the W3C definition */
    const rs_str d = GET(J_DATE), t = GET(J_TIME);
    if (d.len || t.len) {
        if (d.len == 0 || t.len == 0 || d.len + t.len + 2 > 64) return RS_LOGLINE_BAD_TIME;
        char *buf = scratch_put(p, d.ptr, d.len);
        scratch_put(p, "T", 1);
        scratch_put(p, t.ptr, t.len);
        const int has_zone = t.ptr[t.len - 1] == 'Z' || memchr(t.ptr, '+', t.len) != NULL;
        if (!has_zone) scratch_put(p, "Z", 1);
        const rs_str whole = {buf, d.len + 1 + t.len + (has_zone ? 0 : 1)};
        unsigned secs;
        const int clock = !p->json_walk && d.len == 10 && w3c_clock(t, &secs);
        if (clock && p->wdate_ok && memcmp(d.ptr, p->wdate, 10) == 0) {
            r->time = whole;                    /* what set_time would find: the same day */
            r->epoch = p->wday + secs;
            r->flags |= RS_LOGREC_HAS_TIME;
        } else {
            if (!set_time(r, whole, 0, p->json_walk)) return RS_LOGLINE_BAD_TIME;
            if (clock) {
                memcpy(p->wdate, d.ptr, 10);
                p->wday = r->epoch - secs;
                p->wdate_ok = 1;
            }
        }
    }
    if (r->method.len == 0 || r->target.len == 0) r->flags |= RS_LOGREC_BAD_REQUEST;
#undef GET
#undef DASH
    return RS_LOGLINE_OK;
}

/* ===== JSON ===== */

/* Defaults: nginx escape=json variable names, Caddy's nested keys, common names. */
static const struct { const char *path; uint8_t field; } JSON_DEFAULTS[] = {
    {"time_iso8601", J_TIME}, {"time_local", J_TIME}, {"ts", J_TIME}, {"time", J_TIME},
    {"timestamp", J_TIME}, {"@timestamp", J_TIME}, {"msec", J_TIME},
    {"remote_addr", J_CLIENT}, {"request.client_ip", J_CLIENT}, {"request.remote_ip", J_CLIENT},
    {"client_ip", J_CLIENT}, {"client", J_CLIENT},
    {"host", J_HOST}, {"http_host", J_HOST}, {"request.host", J_HOST}, {"server_name", J_HOST},
    {"server_port", J_PORT}, {"scheme", J_SCHEME},
    {"request_method", J_METHOD}, {"request.method", J_METHOD}, {"method", J_METHOD},
    {"request_uri", J_URL}, {"request.uri", J_URL}, {"uri", J_URL}, {"url", J_URL},
    {"request", J_REQUEST},
    {"server_protocol", J_PROTOCOL}, {"request.proto", J_PROTOCOL}, {"protocol", J_PROTOCOL},
    {"status", J_STATUS},
    {"body_bytes_sent", J_BYTES}, {"size", J_BYTES}, {"bytes_sent", J_BYTES},
    {"http_referer", J_REFERER}, {"request.headers.Referer", J_REFERER}, {"referer", J_REFERER},
    {"http_user_agent", J_UA}, {"request.headers.User-Agent", J_UA}, {"user_agent", J_UA},
    {"remote_user", J_USER},
};

static const struct { const char *path; uint8_t field; } CLOUDFLARE_DEFAULTS[] = {
    {"EdgeStartTimestamp", J_TIME}, {"ClientIP", J_CLIENT}, {"ClientRequestHost", J_HOST},
    {"ClientRequestMethod", J_METHOD}, {"ClientRequestURI", J_URL}, {"ClientRequestScheme", J_SCHEME},
    {"ClientRequestProtocol", J_PROTOCOL}, {"EdgeResponseStatus", J_STATUS},
    {"EdgeResponseBytes", J_BYTES}, {"ClientRequestReferer", J_REFERER},
    {"ClientRequestUserAgent", J_UA},
};

static rs_status add_path(rs_logparser *p, const char *path, size_t len, uint8_t field, uint8_t prio)
{
    jpath *np = rs_realloc(p->paths, (p->n_paths + 1) * sizeof *np);
    RS_RETURN_IF(np == NULL, RS_ERR_NOMEM);
    p->paths = np;
    char *s = rs_malloc(len + 1);
    RS_RETURN_IF(s == NULL, RS_ERR_NOMEM);
    memcpy(s, path, len);
    s[len] = '\0';
    np[p->n_paths++] = (jpath){s, len, field, prio};
    return RS_OK;
}

/* The table slot of (@parent, key[0, n)): O(1) whatever the key's length
 * (its first and last bytes, up to 8 each, and n). */
static inline size_t jedge_hash(unsigned parent, const char *key, size_t n)
{
    uint64_t a = 0, b = 0;
    if (n >= 8) {
        memcpy(&a, key, 8);
        memcpy(&b, key + n - 8, 8);
    } else if (n >= 4) {
        uint32_t x, y;
        memcpy(&x, key, 4);
        memcpy(&y, key + n - 4, 4);
        a = x;
        b = y;
    } else if (n > 0) {
        a = (uint64_t)(unsigned char)key[0] | (uint64_t)(unsigned char)key[n / 2] << 8 |
            (uint64_t)(unsigned char)key[n - 1] << 16;
    }
    uint64_t h = a * 0x9E3779B97F4A7C15ull ^ (b + n) * 0xC2B2AE3D27D4EB4Full ^ (uint64_t)parent * 0x165667B19E3779F9ull;
    return (size_t)(h ^ h >> 29 ^ h >> 47);
}

/* The node of string s[0, n), or -1 (build time: a linear search). */
static int jnode_find(const rs_logparser *p, const char *s, size_t n)
{
    for (size_t i = 0; i < p->n_jnodes; i++)
        if (p->jnodes[i].len == n && memcmp(p->jnodes[i].str, s, n) == 0) return (int)i;
    return -1;
}

/* The node of string s[0, n), found or added; -1 when out of memory. */
static int jnode_add(rs_logparser *p, const char *s, size_t n, size_t *cap)
{
    const int found = jnode_find(p, s, n);
    if (found >= 0) return found;
    if (p->n_jnodes >= 65535) return -1;
    if (p->n_jnodes == *cap) {
        jnode *nn = rs_realloc(p->jnodes, (*cap * 2 + 8) * sizeof *nn);
        if (nn == NULL) return -1;
        p->jnodes = nn;
        *cap = *cap * 2 + 8;
    }
    p->jnodes[p->n_jnodes] = (jnode){s, (uint16_t)n, 0, 0, 0};
    return (int)p->n_jnodes++;
}

/*
 * The tree of the wanted paths: a node for the root, each path and each of
 * its dot-prefixes; for each node, the (field, prio)s of the paths equal to
 * it; and an edge (parent, key) -> node for every way the walk can join a
 * node's string: the root's child by the whole string, and the node of each
 * dot-prefix "a" of "a.b.c" (or "a.b") by the rest ("b.c", or "c"), since a
 * key may hold dots. The fast reader then goes from node to node, a probe a
 * key, and reaches exactly the paths the walk builds and compares.
 */
static rs_status json_index(rs_logparser *p)
{
    rs_free(p->jnodes);
    rs_free(p->joffers);
    rs_free(p->jedges);
    p->jnodes = NULL;
    p->joffers = NULL;
    p->jedges = NULL;
    p->n_jnodes = 0;
    if (p->jshapes) for (size_t k = 0; k < JSHAPES; k++) p->jshapes[k].quotes = 0;    /* node offers change */
    size_t cap = 0, n_edges = 0;
    RS_RETURN_IF(p->n_paths >= 65535, RS_ERR_NOMEM);
    RS_RETURN_IF(jnode_add(p, "", 0, &cap) != 0, RS_ERR_NOMEM);
    p->jnodes[0].prefix = 1;
    for (size_t k = 0; k < p->n_paths; k++) {
        const jpath *w = &p->paths[k];
        if (w->len == 0) continue;                     /* offered nowhere (as the walk: no value at "") */
        for (size_t e = 1; e < w->len; e++) {
            if (w->path[e] != '.') continue;
            const int i = jnode_add(p, w->path, e, &cap);
            RS_RETURN_IF(i < 0, RS_ERR_NOMEM);
            p->jnodes[i].prefix = 1;
        }
        RS_RETURN_IF(jnode_add(p, w->path, w->len, &cap) < 0, RS_ERR_NOMEM);
    }
    p->joffers = rs_malloc((p->n_paths + 1) * sizeof *p->joffers);
    RS_RETURN_IF(p->joffers == NULL, RS_ERR_NOMEM);
    size_t n_off = 0;
    for (size_t i = 1; i < p->n_jnodes; i++) {
        jnode *nd = &p->jnodes[i];
        nd->offers = (uint16_t)n_off;
        for (size_t k = 0; k < p->n_paths; k++)
            if (p->paths[k].len == nd->len && memcmp(p->paths[k].path, nd->str, nd->len) == 0)
                p->joffers[n_off++] = (joffer_to){p->paths[k].field, p->paths[k].prio};
        nd->n_offers = (uint16_t)(n_off - nd->offers);
        n_edges++;
        for (size_t e = 1; e < nd->len; e++) n_edges += nd->str[e] == '.';
    }
    size_t slots = 64;
    while (slots < 2 * n_edges) slots *= 2;
    p->jedges = rs_calloc(slots, sizeof *p->jedges);
    RS_RETURN_IF(p->jedges == NULL, RS_ERR_NOMEM);
    p->jedge_mask = slots - 1;
    for (size_t i = 1; i < p->n_jnodes; i++) {
        const jnode *nd = &p->jnodes[i];
        for (size_t e = 0; e < nd->len; e++) {
            if (e > 0 && nd->str[e] != '.') continue;
            /* e == 0: the root's child by the whole string; else the prefix's by the rest */
            const int parent = e == 0 ? 0 : jnode_find(p, nd->str, e);
            const size_t from = e == 0 ? 0 : e + 1;
            assert(parent >= 0 && (e == 0 || parent > 0));   /* every dot-prefix is a node */
            size_t h = jedge_hash((unsigned)parent, nd->str + from, nd->len - from) & p->jedge_mask;
            while (p->jedges[h].child != 0) h = (h + 1) & p->jedge_mask;
            p->jedges[h] = (jedge){nd->str + from, (uint16_t)i, (uint16_t)parent, (uint16_t)(nd->len - from)};
        }
    }
    return RS_OK;
}

static rs_status json_setup(rs_logparser *p, int cloudflare, char *err, size_t err_cap)
{
    for (size_t i = 0; i < p->n_paths; i++) rs_free(p->paths[i].path);
    p->n_paths = 0;
    /* User mappings first, in the order given: they replace the defaults of their field. */
    uint32_t overridden = 0;
    for (size_t i = 0; i < p->n_user; i++) {
        const char *m = p->user_list[i];
        const char *eq = strchr(m, '=');
        uint8_t f = J_NONE;
        if (eq != NULL)
            for (uint8_t k = 0; k < J_COUNT; k++)
                if ((size_t)(eq - m) == strlen(JFIELD_NAMES[k]) && memcmp(m, JFIELD_NAMES[k], (size_t)(eq - m)) == 0)
                    f = k;
        if (f == J_NONE || eq[1] == '\0' || strlen(eq + 1) >= 512) {
            if (err && err_cap)
                snprintf(err, err_cap, "--field takes NAME=KEY with NAME one of time, client, host, port, "
                         "scheme, method, url, request, protocol, status, bytes, referer, user_agent, user; not '%.60s'", m);
            return RS_ERR_USAGE;
        }
        RS_TRY(add_path(p, eq + 1, strlen(eq + 1), f, (uint8_t)(i < 200 ? i : 200)));   /* first given wins */
        overridden |= 1u << f;
    }
    if (cloudflare) {
        for (size_t i = 0; i < sizeof CLOUDFLARE_DEFAULTS / sizeof CLOUDFLARE_DEFAULTS[0]; i++)
            if (!(overridden >> CLOUDFLARE_DEFAULTS[i].field & 1))
                RS_TRY(add_path(p, CLOUDFLARE_DEFAULTS[i].path, strlen(CLOUDFLARE_DEFAULTS[i].path),
                                CLOUDFLARE_DEFAULTS[i].field, 1));
    } else {
        for (size_t i = 0; i < sizeof JSON_DEFAULTS / sizeof JSON_DEFAULTS[0]; i++)
            if (!(overridden >> JSON_DEFAULTS[i].field & 1))
                RS_TRY(add_path(p, JSON_DEFAULTS[i].path, strlen(JSON_DEFAULTS[i].path), JSON_DEFAULTS[i].field,
                                (uint8_t)(1 + i)));
    }
    return json_index(p);
}

typedef struct {
    rs_logparser *p;
    const char *s;
    size_t len, pos;
    size_t path_len;
    rs_str val[J_COUNT];
    uint8_t prio[J_COUNT];
    uint8_t num[J_COUNT];      /* the value was a JSON number */
    const uint64_t *mask;      /* JSON_STOP bytes of s[0, len) (NULL: search with rs_simd_find_any) */
    size_t n_ev;               /* events recorded in p->jev; > JEV_MAX: too many, or one not recordable */
    int rec;                   /* the fast reader records events */
} jscan;

static inline void jws(jscan *j)
{
    if (j->pos < j->len && (unsigned char)j->s[j->pos] > ' ') return;
    while (j->pos < j->len && (j->s[j->pos] == ' ' || j->s[j->pos] == '\t' || j->s[j->pos] == '\r' ||
                               j->s[j->pos] == '\n'))
        j->pos++;
}

static size_t utf8_put(char *d, uint32_t cp)
{
    if (cp < 0x80) { d[0] = (char)cp; return 1; }
    if (cp < 0x800) { d[0] = (char)(0xC0 | cp >> 6); d[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        d[0] = (char)(0xE0 | cp >> 12); d[1] = (char)(0x80 | (cp >> 6 & 0x3F)); d[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    d[0] = (char)(0xF0 | cp >> 18); d[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    d[2] = (char)(0x80 | (cp >> 6 & 0x3F)); d[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

static int hex4(const char *s, uint32_t *v)
{
    uint32_t x = 0;
    for (int i = 0; i < 4; i++) {
        const int h = hexval((unsigned char)s[i]);
        if (h < 0) return 0;
        x = x * 16 + (uint32_t)h;
    }
    *v = x;
    return 1;
}

/* { '"', '\\' }: what ends or escapes a JSON string. */
static const rs_byteset JSON_STOP = {{(1ull << '"'), (1ull << ('\\' - 64)), 0, 0}, {'"', '\\'}, 2};

#define JFAIL SIZE_MAX

/* A string at @pos of s[0, len) (on the opening quote), @mask its JSON_STOP
 * bitmap or NULL: @return the position after the closing quote, or JFAIL;
 * *raw is the text between the quotes, *escaped whether it has escapes
 * (checked valid here). Raw control bytes are accepted (a log line cannot
 * hold a newline anyway). */
static inline __attribute__((always_inline)) size_t jstring_at(const char *s, size_t len, const uint64_t *mask,
                                                              size_t pos, rs_str *raw, int *escaped)
{
    size_t i = pos + 1;
    const size_t start = i;
    *escaped = 0;
    for (;;) {
        if (mask) i = mask_next(mask, i, len);
        else i += rs_simd_find_any(s + i, len - i, &JSON_STOP);
        if (i >= len) return JFAIL;
        if (s[i] == '"') break;
        if (i + 1 >= len) return JFAIL;         /* a backslash */
        *escaped = 1;
        const char e = s[i + 1];
        if (e == 'u') {
            uint32_t v;
            if (i + 6 > len || !hex4(s + i + 2, &v)) return JFAIL;
            i += 6;
            continue;
        }
        if (e == '\0' || !strchr("\"\\/bfnrt", e)) return JFAIL;
        i += 2;
    }
    *raw = (rs_str){s + start, i - start};
    return i + 1;
}

/* jstring_at at j->pos, which it moves past the string (1), or leaves (0). */
static inline __attribute__((always_inline)) int jstring(jscan *j, rs_str *raw, int *escaped)
{
    const size_t e = jstring_at(j->s, j->len, j->mask, j->pos, raw, escaped);
    if (e == JFAIL) return 0;
    j->pos = e;
    return 1;
}

/* Unescapes a string jstring() accepted, into the scratch. */
static rs_str junescape(jscan *j, rs_str raw)
{
    const char *s = raw.ptr;
    const size_t n_raw = raw.len;
    char *d = j->p->scratch + j->p->scratch_len;
    size_t n = 0;
    for (size_t k = 0; k < n_raw; k++) {
        if (s[k] != '\\') { d[n++] = s[k]; continue; }
        const char e = s[++k];
        switch (e) {
        case 'b': d[n++] = '\b'; break;
        case 'f': d[n++] = '\f'; break;
        case 'n': d[n++] = '\n'; break;
        case 'r': d[n++] = '\r'; break;
        case 't': d[n++] = '\t'; break;
        case 'u': {
            uint32_t v, lo;
            hex4(s + k + 1, &v);
            k += 4;
            if (v >= 0xD800 && v < 0xDC00 && k + 6 < n_raw && s[k + 1] == '\\' && s[k + 2] == 'u' &&
                hex4(s + k + 3, &lo) && lo >= 0xDC00 && lo < 0xE000) {
                v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
                k += 6;
            } else if (v >= 0xD800 && v < 0xE000) {
                v = 0xFFFD;                         /* lone surrogate */
            }
            n += utf8_put(d + n, v);
            break;
        }
        default: d[n++] = e; break;                 /* " \ / */
        }
    }
    j->p->scratch_len += n;
    return (rs_str){d, n};
}

/* The bytes a JSON number is read as: digits, '-', '+', '.', 'e', 'E'. */
static const uint8_t JNUM[256] = {
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1,
    ['-'] = 1, ['+'] = 1, ['.'] = 1, ['e'] = 1, ['E'] = 1,
};

/* A number or true/false/null at j->pos: @return 0 if none, else 1 with
 * *num the number's text (len 0 for a literal: no value). */
static inline int jscalar(jscan *j, rs_str *num)
{
    const size_t st = j->pos;
    while (j->pos < j->len && JNUM[(unsigned char)j->s[j->pos]]) j->pos++;
    *num = (rs_str){j->s + st, j->pos - st};
    if (j->pos > st) return 1;
    const size_t left = j->len - j->pos;
    const char *w = j->s + j->pos;
    if (left >= 4 && (memcmp(w, "true", 4) == 0 || memcmp(w, "null", 4) == 0)) {
        j->pos += 4;                                   /* null: no value */
        return 1;
    }
    if (left >= 5 && memcmp(w, "false", 5) == 0) {
        j->pos += 5;
        return 1;
    }
    return 0;
}

/* Gives value @v (a string is unescaped once, and only when some field
 * takes it) to each (field, prio) of @to[0, n) whose field has no value of a
 * lower prio yet: the first value wins among equals. */
static inline void jgive(jscan *j, const joffer_to *to, size_t n, rs_str v, int number, int escaped)
{
    int decoded = !escaped;
    for (size_t k = 0; k < n; k++) {
        if (j->prio[to[k].field] <= to[k].prio) continue;
        if (!decoded) {
            v = junescape(j, v);
            decoded = 1;
        }
        j->val[to[k].field] = v;
        j->prio[to[k].field] = to[k].prio;
        j->num[to[k].field] = (uint8_t)number;
    }
}

/* ===== JSON, the walk (the reference of the tests) =====
 * Builds the path of every value (pathbuf[0, path_len): keys joined by '.',
 * the root's without one) and offers each scalar to every wanted path. */

static int jvalue(jscan *j, int depth, int first_in_array);

static void joffer(jscan *j, rs_str v, int number, int escaped)
{
    const rs_logparser *p = j->p;
    const size_t pl = j->path_len;
    if (pl == 0 || pl >= sizeof p->pathbuf) return;
    int decoded = !escaped;
    for (size_t k = 0; k < p->n_paths; k++) {
        const jpath *w = &p->paths[k];
        if (w->len != pl || !rs_short_eq(w->path, p->pathbuf, pl) || j->prio[w->field] <= w->prio) continue;
        if (!decoded) {
            v = junescape(j, v);
            decoded = 1;
        }
        j->val[w->field] = v;
        j->prio[w->field] = w->prio;
        j->num[w->field] = (uint8_t)number;
    }
}

static int jobject(jscan *j, int depth)
{
    j->pos++;   /* { */
    jws(j);
    if (j->pos < j->len && j->s[j->pos] == '}') { j->pos++; return 1; }
    const size_t base = j->path_len;
    for (;;) {
        jws(j);
        if (j->pos >= j->len || j->s[j->pos] != '"') return 0;
        rs_str key;
        int kesc;
        if (!jstring(j, &key, &kesc)) return 0;
        jws(j);
        if (j->pos >= j->len || j->s[j->pos] != ':') return 0;
        j->pos++;
        /* path = base [+ "."] + key (too long: matches nothing) */
        size_t pl = base;
        if (base + 1 + key.len < sizeof j->p->pathbuf) {
            if (base) j->p->pathbuf[pl++] = '.';
            memcpy(j->p->pathbuf + pl, key.ptr, key.len);
            pl += key.len;
        } else {
            pl = sizeof j->p->pathbuf;   /* never equal to a wanted path (< 512) */
        }
        j->path_len = pl;
        if (!jvalue(j, depth + 1, 0)) return 0;
        j->path_len = base;
        jws(j);
        if (j->pos >= j->len) return 0;
        if (j->s[j->pos] == ',') { j->pos++; continue; }
        if (j->s[j->pos] == '}') { j->pos++; return 1; }
        return 0;
    }
}

static int jarray(jscan *j, int depth)
{
    j->pos++;   /* [ */
    jws(j);
    if (j->pos < j->len && j->s[j->pos] == ']') { j->pos++; return 1; }
    for (int first = 1;; first = 0) {
        if (!jvalue(j, depth + 1, first ? 1 : 2)) return 0;
        jws(j);
        if (j->pos >= j->len) return 0;
        if (j->s[j->pos] == ',') { j->pos++; continue; }
        if (j->s[j->pos] == ']') { j->pos++; return 1; }
        return 0;
    }
}

/* @in_array: 0 no, 1 first element (offered at the array's path), 2 later ones. */
static int jvalue(jscan *j, int depth, int in_array)
{
    if (depth > JSON_MAX_DEPTH) return 0;
    jws(j);
    if (j->pos >= j->len) return 0;
    const char c = j->s[j->pos];
    const size_t saved = j->path_len;
    if (in_array == 2) j->path_len = sizeof j->p->pathbuf;   /* matches nothing */
    int ok;
    if (c == '{') {
        if (in_array) j->path_len = sizeof j->p->pathbuf;    /* nothing inside is wanted */
        ok = jobject(j, depth);
    } else if (c == '[') {
        ok = jarray(j, depth);
    } else if (c == '"') {
        rs_str v;
        int esc;
        ok = jstring(j, &v, &esc);
        if (ok) joffer(j, v, 0, esc);
    } else {
        rs_str num;
        ok = jscalar(j, &num);
        if (ok && num.len) joffer(j, num, 1, 0);
    }
    j->path_len = saved;
    return ok;
}

/* ===== JSON, the fast reader =====
 * The same parse (the same positions, so the same errors), but it carries
 * the node of the path so far instead of the path: -1 where no wanted path
 * goes. A key costs one probe of the (node, key) table, and a value only
 * the (field, prio)s of its node; objects under no prefix node are parsed
 * without a probe. Lines like an earlier one are not parsed here at all but
 * read against its shape (json_replay, below). */

/* The child of @node by @key: the node of path node + "." + key (the root:
 * key), or -1. The walk's overflow (a path of 1023 bytes or more) matches
 * nothing; no node is that long. */
static inline int jchild(const rs_logparser *p, int node, rs_str key)
{
    if (node == 0 && key.len == 0) return 0;      /* "" joined to the root is the root */
    size_t h = jedge_hash((unsigned)node, key.ptr, key.len) & p->jedge_mask;
    for (;; h = (h + 1) & p->jedge_mask) {
        const jedge *e = &p->jedges[h];
        if (e->child == 0) return -1;
        if (e->parent == node && e->klen == key.len && rs_short_eq(e->key, key.ptr, key.len)) return e->child;
    }
}

/* The fast reader carries the position in a local (its functions take it
 * and return the next, or JFAIL having left the error's position in j->pos,
 * where the walk stops): through j->pos, each token stored and reloaded it,
 * and every byte written (prio, the scratch) made the compiler reload it. */

static inline size_t jws_at(const char *s, size_t len, size_t pos)
{
    if (RS_LIKELY(pos < len && (unsigned char)s[pos] > ' ')) return pos;
    while (pos < len && (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\r' || s[pos] == '\n')) pos++;
    return pos;
}

static inline size_t jfail(jscan *j, size_t pos)
{
    j->pos = pos;
    return JFAIL;
}

/* jscalar at @pos: @return the position after the number or literal, or
 * JFAIL (nothing there); *num as jscalar's. Digits 8 at a time. */
static inline size_t jscalar_at(const char *s, size_t len, size_t pos, rs_str *num)
{
    const size_t st = pos;
    for (;;) {
        while (pos + 8 <= len) {
            uint64_t x;
            memcpy(&x, s + pos, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            x = __builtin_bswap64(x);
#endif
            const uint64_t nd = swar_nondigit(x);
            if (nd == 0) {
                pos += 8;
                continue;
            }
            pos += (size_t)__builtin_ctzll(nd) >> 3;
            break;
        }
        if (pos + 8 <= len) {                   /* on a byte not a digit */
            if (!JNUM[(unsigned char)s[pos]]) break;
            pos++;                              /* '.', 'e', a sign: digits may follow */
            continue;
        }
        while (pos < len && JNUM[(unsigned char)s[pos]]) pos++;
        break;
    }
    *num = (rs_str){s + st, pos - st};
    if (pos > st) return pos;
    const size_t left = len - pos;
    const char *w = s + pos;
    if (left >= 4 && (memcmp(w, "true", 4) == 0 || memcmp(w, "null", 4) == 0)) return pos + 4;  /* null: no value */
    if (left >= 5 && memcmp(w, "false", 5) == 0) return pos + 5;
    return JFAIL;
}

/* An event of the fast reader, for json_shape_build (type JEV_MAX: one no
 * shape can hold, an escaped string). */
static inline void jrecord(jscan *j, size_t a, size_t b, unsigned type, unsigned offers, unsigned n_offers)
{
    if (type >= JEV_MAX || j->n_ev >= JEV_MAX) {
        j->n_ev = JEV_MAX + 1;
        j->rec = 0;
        return;
    }
    j->p->jev[j->n_ev++] = (jev){a, b, (uint16_t)offers, (uint16_t)n_offers, (uint8_t)type};
}

static size_t jvalue_at(jscan *j, int node, int depth, int in_array, size_t pos);

/* An object at @pos (its '{') whose keys are children of @node (a prefix
 * node, or -1): @return the position after its '}'. */
static size_t jobject_at(jscan *j, int node, int depth, size_t pos)
{
    const char *const s = j->s;
    const size_t len = j->len;
    pos = jws_at(s, len, pos + 1);
    if (pos < len && s[pos] == '}') return pos + 1;
    for (;;) {
        pos = jws_at(s, len, pos);
        if (pos >= len || s[pos] != '"') return jfail(j, pos);
        rs_str key;
        int kesc;
        const size_t e = jstring_at(s, len, j->mask, pos, &key, &kesc);
        if (e == JFAIL) return jfail(j, pos);
        if (j->rec) jrecord(j, pos, e - 1, kesc ? JEV_MAX : node >= 0 ? JEV_KEY_CMP : JEV_KEY, 0, 0);
        pos = jws_at(s, len, e);
        if (pos >= len || s[pos] != ':') return jfail(j, pos);
        pos = jvalue_at(j, node < 0 ? -1 : jchild(j->p, node, key), depth + 1, 0, pos + 1);
        if (pos == JFAIL) return JFAIL;
        pos = jws_at(s, len, pos);
        if (pos >= len) return jfail(j, pos);
        if (s[pos] == ',') { pos++; continue; }
        if (s[pos] == '}') return pos + 1;
        return jfail(j, pos);
    }
}

static size_t jarray_at(jscan *j, int node, int depth, size_t pos)
{
    const char *const s = j->s;
    const size_t len = j->len;
    pos = jws_at(s, len, pos + 1);
    if (pos < len && s[pos] == ']') return pos + 1;
    for (int first = 1;; first = 0) {
        pos = jvalue_at(j, node, depth + 1, first ? 1 : 2, pos);
        if (pos == JFAIL) return JFAIL;
        pos = jws_at(s, len, pos);
        if (pos >= len) return jfail(j, pos);
        if (s[pos] == ',') { pos++; continue; }
        if (s[pos] == ']') return pos + 1;
        return jfail(j, pos);
    }
}

/* jvalue at @node (-1: none) and @pos: @return the position after it. */
static size_t jvalue_at(jscan *j, int node, int depth, int in_array, size_t pos)
{
    if (depth > JSON_MAX_DEPTH) return jfail(j, pos);
    const char *const s = j->s;
    const size_t len = j->len;
    pos = jws_at(s, len, pos);
    if (pos >= len) return jfail(j, pos);
    const char c = s[pos];
    if (in_array == 2) node = -1;                    /* matches nothing */
    const jnode *nd = node >= 0 ? &j->p->jnodes[node] : NULL;
    if (c == '{') return jobject_at(j, in_array || nd == NULL || !nd->prefix ? -1 : node, depth, pos);
    if (c == '[') return jarray_at(j, node, depth, pos);
    if (c == '"') {
        rs_str v;
        int esc;
        const size_t e = jstring_at(s, len, j->mask, pos, &v, &esc);
        if (e == JFAIL) return jfail(j, pos);
        if (j->rec) jrecord(j, pos, e - 1, esc ? JEV_MAX : JEV_STR, nd ? nd->offers : 0, nd ? nd->n_offers : 0);
        if (nd != NULL && nd->n_offers) jgive(j, j->p->joffers + nd->offers, nd->n_offers, v, 0, esc);
        return e;
    }
    rs_str num;
    const size_t e = jscalar_at(s, len, pos, &num);
    if (e == JFAIL) return jfail(j, pos);
    if (j->rec && num.len) jrecord(j, pos, e, JEV_NUM, nd ? nd->offers : 0, nd ? nd->n_offers : 0);
    if (num.len && nd != NULL && nd->n_offers) jgive(j, j->p->joffers + nd->offers, nd->n_offers, num, 1, 0);
    return e;
}

/* set_time of a JSON time, through a memo of the last ISO 8601 string
 * ("YYYY-MM-DDThh:mm:ss[.f]zone", parse_time_iso): a string with the same
 * bytes but for a valid clock hh:mm:ss has the same date, fraction and
 * zone, so its epoch is the memo's day plus its clock (parse_time_iso's epoch
 * is linear in h, m, s; w3c_clock takes what it takes). The walk parses
 * every time. */
static int json_time(rs_logparser *p, rs_logrec *r, rs_str v, int number)
{
    unsigned secs;
    if (number || p->json_walk || v.len < 19 || v.len > sizeof p->jtime || v.ptr[2] == '/' || v.ptr[4] != '-' ||
        !w3c_clock((rs_str){v.ptr + 11, 8}, &secs))
        return set_time(r, v, number, p->json_walk);
    int64_t e;
    if (p->jtime_len == v.len && memcmp(v.ptr, p->jtime, 11) == 0 && memcmp(v.ptr + 19, p->jtime + 19, v.len - 19) == 0) {
        e = p->jtime_day + secs;
    } else {
        if (!rs_log_parse_time(v.ptr, v.len, &e)) return set_time(r, v, number, p->json_walk);
        memcpy(p->jtime, v.ptr, v.len);
        p->jtime_len = v.len;
        p->jtime_day = e - secs;
    }
    r->time = v;                            /* as set_time */
    r->epoch = e;
    r->flags |= RS_LOGREC_HAS_TIME;
    return 1;
}

/* ===== JSON, shapes =====
 * The lines of a log are alike: the same keys in the same order, with the
 * same bytes between the strings but for numbers. A line the fast reader
 * accepted, with no backslash, is kept as a shape (json_shape_build): for
 * each string, the glue before it (the bytes since the last string, with at
 * most one number abstracted), whether it is a key whose bytes chose a node
 * (the keys of objects no wanted path enters choose nothing), and what its
 * value and the number were offered to. A later line with as many quotes is
 * first read against it (json_replay): its strings are its quote bits in
 * pairs, and if every glue has the same bytes (the number: any run of number
 * bytes), every compared key is the same and no string holds a backslash,
 * the fast reader would take the same steps on it -- the grammar sees only
 * the glue and where strings begin and end, the nodes only the compared
 * keys -- and make the same offers in the same order, which the replay
 * makes. Else the line is read as before (and may become the shape). */

/* The glue s[a, b) (with the number @num in it, or NULL) fits a jglue. */
static inline int glue_fits(size_t a, size_t b, const jev *num)
{
    const size_t pa = num ? num->a : b, sb = num ? num->b : b;
    return pa - a <= 16 && b - sb <= 8;
}

static void glue_make(jglue *g, const char *s, size_t a, size_t b, const jev *num)
{
    const size_t pa = num ? num->a : b, sb = num ? num->b : b;
    assert(glue_fits(a, b, num));
    g->pl = (uint8_t)(pa - a);
    g->sl = (uint8_t)(b - sb);
    char pre[16] = {0}, pcare[16] = {0}, post[8] = {0}, scare[8] = {0};
    memcpy(pre, s + a, g->pl);
    memset(pcare, 0xFF, g->pl);
    memcpy(post + 8 - g->sl, s + sb, g->sl);
    memset(scare + 8 - g->sl, 0xFF, g->sl);
    memcpy(g->pre, pre, 16);
    memcpy(g->pcare, pcare, 16);
    memcpy(&g->post, post, 8);
    memcpy(&g->scare, scare, 8);
    g->num = num != NULL;
    g->key = g->span = 0;
    g->klen = g->koff = 0;
    g->slot = g->nslot = 0xFF;
}

/* The line j just read (its events) makes a shape: no escaped string, at
 * most one number between strings, glue and compared keys that fit. */
static int json_shape_fits(const jscan *j, size_t quotes)
{
    const jev *ev = j->p->jev;
    size_t end = 0, n = 0, keys = 0, slots = 0;
    const jev *num = NULL;
    if (j->n_ev > JEV_MAX) return 0;
    for (size_t k = 0; k < j->n_ev; k++) {
        const jev *e = &ev[k];
        if (e->n_offers && ++slots > JSHAPE_SLOTS) return 0;
        if (e->type == JEV_NUM) {
            if (num != NULL) return 0;                  /* two numbers between strings */
            num = e;
            continue;
        }
        if (n++ >= JSHAPE_STR || !glue_fits(end, e->a, num)) return 0;
        if (e->type == JEV_KEY_CMP && (keys++ >= JSHAPE_KEYS || e->b - e->a - 1 > 32)) return 0;
        num = NULL;
        end = e->b + 1;
    }
    return glue_fits(end, j->len, num) && 2 * n == quotes;
}

/* The shape of the line j just read, into @sh (json_shape_fits said it has one). */
static void json_shape_build(const jscan *j, size_t quotes, jshape *sh)
{
    const jev *ev = j->p->jev;
    const char *s = j->s;
    size_t end = 0, n = 0, keys = 0, slots = 0;
    const jev *num = NULL;
    uint8_t num_slot = 0xFF;
    memset(sh->wslot, 0xFF, sizeof sh->wslot);
    memset(sh->wprio, 0xFF, sizeof sh->wprio);
    for (size_t k = 0; k < j->n_ev; k++) {
        const jev *e = &ev[k];
        /* jgive's choice, made once: the offers come in this order on every
         * line of the shape, and which one wins a field depends on the
         * prios only */
        uint8_t slot = 0xFF;
        if (e->n_offers) {
            slot = (uint8_t)slots++;
            const joffer_to *to = j->p->joffers + e->offers;
            for (size_t o = 0; o < e->n_offers; o++) {
                if (sh->wprio[to[o].field] <= to[o].prio) continue;
                sh->wslot[to[o].field] = slot;
                sh->wprio[to[o].field] = to[o].prio;
                sh->wnum[to[o].field] = e->type == JEV_NUM;
            }
        }
        if (e->type == JEV_NUM) {
            num = e;
            num_slot = slot;
            continue;
        }
        jglue *g = &sh->g[n++];
        glue_make(g, s, end, e->a, num);
        g->nslot = num ? num_slot : 0xFF;
        num = NULL;
        if (e->type == JEV_KEY_CMP) {
            const size_t kl = e->b - e->a - 1;
            char kw[32] = {0}, kc[32] = {0};
            /* Followed by a string that is no key to compare, with no number
             * between: the bytes from this glue to that string's opening
             * quote at once, when 32 or fewer. */
            const jev *nx = k + 1 < j->n_ev ? &ev[k + 1] : NULL;
            if (!g->num && nx != NULL && (nx->type == JEV_KEY || nx->type == JEV_STR) && nx->a + 1 - end <= 32) {
                g->span = (uint8_t)(nx->a + 1 - end);
                memcpy(kw, s + end, g->span);
                memset(kc, 0xFF, g->span);
            } else {
                memcpy(kw, s + e->a + 1, kl);
                memset(kc, 0xFF, kl);
            }
            memcpy(sh->kw[keys], kw, 32);
            memcpy(sh->kcare[keys], kc, 32);
            g->key = 1;
            g->klen = (uint16_t)kl;
            g->koff = (uint16_t)keys++;
        } else if (e->type == JEV_STR) {
            g->slot = slot;
        }
        end = e->b + 1;
    }
    glue_make(&sh->g[n], s, end, j->len, num);
    sh->g[n].nslot = num ? num_slot : 0xFF;
    assert(2 * n == quotes);
    sh->n_str = n;
    sh->quotes = quotes;
    sh->hits = 0;
}

/* (Words are read with rs_load64: one load; a 16-byte copy split in two
 * words went through the stack, its halves reloaded, which cost more than
 * the compare.) */
/* s[a, a + pl) == g's pre (a + pl <= len). */
static inline __attribute__((always_inline)) int glue_pre(const jscan *j, const jglue *g, size_t a)
{
    const char *s = j->s;
    if (RS_LIKELY(a + 16 <= j->len)) {
        if (g->pl <= 8) return ((rs_load64(s + a) ^ g->pre[0]) & g->pcare[0]) == 0;
        return (((rs_load64(s + a) ^ g->pre[0]) & g->pcare[0]) | ((rs_load64(s + a + 8) ^ g->pre[1]) & g->pcare[1])) == 0;
    }
    char pre[16];
    memcpy(pre, g->pre, 16);
    for (size_t k = 0; k < g->pl; k++)
        if (s[a + k] != pre[k]) return 0;
    return 1;
}

/* s[b - sl, b) == g's post (sl <= b). */
static inline int glue_post(const jscan *j, const jglue *g, size_t b)
{
    const char *s = j->s;
    if (RS_LIKELY(b >= 8)) {
        return ((rs_load64(s + b - 8) ^ g->post) & g->scare) == 0;
    }
    char post[8];
    memcpy(post, &g->post, 8);
    for (size_t k = 8 - g->sl; k < 8; k++)
        if (s[b - 8 + k] != post[k]) return 0;
    return 1;
}

/* Every byte of s[a, b) (a < b) is a number byte (JNUM): digits 8 at a time
 * (swar_nondigit's false hits, after a byte not a digit, only send a word to
 * the byte loop), anything else byte by byte. */
static inline int jnum_all(const char *s, size_t a, size_t b)
{
    const size_t n = b - a;
    if (b >= 8) {
        uint64_t nd = 0;
        if (n < 8) {                /* the word ending at b, the bytes before a shifted out */
            nd = swar_nondigit(rs_load64le(s + b - 8)) >> (8 * (8 - n));
        } else {
            for (size_t k = a; k + 8 < b; k += 8) nd |= swar_nondigit(rs_load64le(s + k));
            nd |= swar_nondigit(rs_load64le(s + b - 8));
        }
        if (nd == 0) return 1;
    }
    unsigned ok = 1;
    for (size_t k = a; k < b; k++) ok &= JNUM[(unsigned char)s[k]];
    return ok;
}

/* s[a, b) is the glue @g; a number in it is kept in sv[g->nslot]. */
static inline __attribute__((always_inline)) int glue_same(const jscan *j, const jglue *g, size_t a, size_t b,
                                                           rs_str *sv)
{
    const char *s = j->s;
    if (!g->num) return b - a == g->pl && glue_pre(j, g, a);
    if (b - a <= (size_t)g->pl + g->sl || !glue_pre(j, g, a) || !glue_post(j, g, b)) return 0;
    const size_t na = a + g->pl, nb = b - g->sl;
    if (!jnum_all(s, na, nb)) return 0;
    if (g->nslot != 0xFF) sv[g->nslot] = (rs_str){s + na, nb - na};
    return 1;
}

/* s[a, a + n) is the shape's key k (a + n <= len): with 32 bytes readable,
 * four masked words and no branch on the length. */
static inline int jshape_key(const jscan *j, const jshape *sh, size_t k, size_t a, size_t n)
{
    const uint64_t *w = sh->kw[k], *c = sh->kcare[k];
    if (RS_LIKELY(a + 32 <= j->len)) {
        const char *p = j->s + a;
        uint64_t d = (rs_load64(p) ^ w[0]) & c[0];
        if (n > 8) {
            d |= (rs_load64(p + 8) ^ w[1]) & c[1];
            if (n > 16) d |= ((rs_load64(p + 16) ^ w[2]) & c[2]) | ((rs_load64(p + 24) ^ w[3]) & c[3]);
        }
        return d == 0;
    }
    char kw[32];
    memcpy(kw, w, 32);
    return rs_short_eq(j->s + a, kw, n);
}

/* The line read against shape @sh (1, the fields given), or not (0, nothing given). */
static int json_replay(jscan *j, const jshape *sh)
{
    const char *s = j->s;
    const uint64_t *m = j->mask;
    size_t w = 0, end = 0;
    rs_str sv[JSHAPE_SLOTS];
    uint64_t cur = m[0];
#define NEXT_BIT(q) do { while (cur == 0) cur = m[++w]; (q) = (w << 6) + (size_t)__builtin_ctzll(cur); cur &= cur - 1; } while (0)
    for (size_t n = 0; n < sh->n_str; n++) {
        size_t q[2];
        NEXT_BIT(q[0]);                         /* the quote count matched: the bits are there */
        NEXT_BIT(q[1]);
        const jglue *g = &sh->g[n];
        if (g->span) {
            /* glue, "key", glue and the next string's '"' in one compare. Bits
             * are taken in order, every one before @end was, and the bitmap
             * holds exactly the quotes and backslashes: with these bytes
             * equal, q[0], q[1] and v[0] are their three quotes. */
            size_t v[2];
            NEXT_BIT(v[0]);
            if (!jshape_key(j, sh, g->koff, end, g->span)) return 0;
            NEXT_BIT(v[1]);
            if (s[v[1]] != '"') return 0;
            g++;
            n++;
            if (g->slot != 0xFF) sv[g->slot] = (rs_str){s + v[0] + 1, v[1] - v[0] - 1};
            end = v[1] + 1;
            continue;
        }
        if (s[q[0]] != '"' || s[q[1]] != '"' || !glue_same(j, g, end, q[0], sv)) return 0;
        if (g->key && (q[1] - q[0] - 1 != g->klen || !jshape_key(j, sh, g->koff, q[0] + 1, g->klen))) return 0;
        if (g->slot != 0xFF) sv[g->slot] = (rs_str){s + q[0] + 1, q[1] - q[0] - 1};
        end = q[1] + 1;
    }
#undef NEXT_BIT
    if (!glue_same(j, &sh->g[sh->n_str], end, j->len, sv)) return 0;
    for (size_t f = 0; f < J_COUNT; f++) {
        if (sh->wslot[f] == 0xFF) continue;
        j->val[f] = sv[sh->wslot[f]];
        j->prio[f] = sh->wprio[f];
        j->num[f] = sh->wnum[f];
    }
    return 1;
}

static rs_logline_status json_parse(rs_logparser *p, const char *line, size_t len, rs_logrec *r)
{
    jscan j;                    /* val[f], num[f] are read only once prio[f] is set */
    j.p = p;
    j.s = line;
    j.len = len;
    j.pos = j.path_len = j.n_ev = 0;
    j.rec = 0;
    memset(j.prio, 0xFF, sizeof j.prio);
    size_t quotes = 0;
    j.mask = line_mask(p, line, len, &JSON_STOP, &quotes);
    jshape *sh = NULL;
    if (j.mask != NULL && quotes > 0 && (quotes & 1) == 0) {
        if (p->jshapes == NULL && !p->jshapes_off) {
            p->jshapes = rs_calloc(JSHAPES, sizeof *p->jshapes);
            p->jshapes_off = p->jshapes == NULL;
        }
        if (p->jshapes != NULL) {
            sh = &p->jshapes[(quotes >> 1) % JSHAPES];
            if (sh->skip) {
                sh->skip--;
                sh = NULL;
            } else {
                if (sh->quotes == quotes) {
                    if (json_replay(&j, sh)) {
                        if (RS_UNLIKELY(sh->hits == 0)) {       /* it paid: no more back-off */
                            sh->hits = 1;
                            sh->backoff = 0;
                        }
                        j.pos = len;
                        goto fields;
                    }
                    memset(j.prio, 0xFF, sizeof j.prio);    /* the offers it made */
                }
                j.rec = 1;
            }
        }
    }
    jws(&j);
    if (j.pos >= len || line[j.pos] != '{') {
        r->error_offset = j.pos;
        return RS_LOGLINE_BAD_JSON;
    }
    if (p->json_walk) {
        if (!jobject(&j, 0)) {
            r->error_offset = j.pos;
            return RS_LOGLINE_BAD_JSON;
        }
    } else {
        const size_t e = jobject_at(&j, 0, 0, j.pos);
        if (e == JFAIL) {
            r->error_offset = j.pos;
            return RS_LOGLINE_BAD_JSON;
        }
        j.pos = e;
    }
    jws(&j);
    if (j.pos != len) {
        r->error_offset = j.pos;
        return RS_LOGLINE_BAD_JSON;
    }
    if (j.rec) {
        /* A shape replaced before any line was read against it (lines of
         * this slot vary: a key's name, a number of strings), or lines that
         * make none in a slot without one (two numbers between strings):
         * recording and making shapes cost more than they save. The slot
         * then rests for 1, 3, 7 ... 1023 lines, until a shape is used
         * again. A line that makes no shape (one with an escape) leaves the
         * slot's shape as it is. */
        const int fits = json_shape_fits(&j, quotes);
        if (fits ? sh->quotes != 0 && sh->hits == 0 : sh->quotes == 0) {
            sh->backoff = RS_MIN(sh->backoff * 2 + 1, 1023u);
            sh->skip = sh->backoff;
            sh->quotes = 0;
        } else if (fits) {
            json_shape_build(&j, quotes, sh);
        }
    }
fields:
#define HAVE(f) (j.prio[f] != 0xFF)
#define VAL(f) (HAVE(f) && !(j.val[f].len == 1 && j.val[f].ptr[0] == '-') ? j.val[f] : (rs_str){line, 0})
    r->client = VAL(J_CLIENT);
    r->user = VAL(J_USER);
    r->host = VAL(J_HOST);
    r->port = VAL(J_PORT);
    r->scheme = VAL(J_SCHEME);
    r->protocol = VAL(J_PROTOCOL);
    r->referer = VAL(J_REFERER);
    r->user_agent = VAL(J_UA);
    if (HAVE(J_REQUEST) && !HAVE(J_URL)) {
        r->request = VAL(J_REQUEST);
        if (r->request.len) rs_logline_split_request(r);
        else r->flags |= RS_LOGREC_BAD_REQUEST;
    } else {
        r->method = VAL(J_METHOD);
        r->target = VAL(J_URL);
        if (r->target.len == 0) r->flags |= RS_LOGREC_BAD_REQUEST;
    }
    if (!(rs_ieq(r->scheme.ptr, r->scheme.len, "http", 4) || rs_ieq(r->scheme.ptr, r->scheme.len, "https", 5)))
        r->scheme.len = 0;
    split_host_port(r);
    split_absolute(r);
    int64_t x;
    const rs_str st = VAL(J_STATUS);
    if (st.len) {
        if (!parse_digits(st, 3, &x)) return RS_LOGLINE_BAD_STATUS;
        r->status = (int)x;
    }
    if (VAL(J_BYTES).len && parse_digits(VAL(J_BYTES), 18, &x)) r->bytes = x;
    if (HAVE(J_TIME) && !json_time(p, r, j.val[J_TIME], j.num[J_TIME])) return RS_LOGLINE_BAD_TIME;
#undef VAL
#undef HAVE
    return RS_LOGLINE_OK;
}

/* ===== The parser ===== */

static rs_status settle(rs_logparser *p, const char *spec, size_t spec_len, char *err, size_t err_cap)
{
    p->kind = K_TEMPLATE;
    p->alb = 0;
    p->cloudflare = 0;
    p->have_fields = 0;
    rs_logformat_free(p->tmpl);
    p->tmpl = NULL;
    if (rs_ieq(spec, spec_len, "w3c", 3)) {
        p->kind = K_W3C;
    } else if (rs_ieq(spec, spec_len, "cloudfront", 10)) {
        p->kind = K_CLOUDFRONT;
        w3c_set_fields(p, CLOUDFRONT_FIELDS, strlen(CLOUDFRONT_FIELDS));
    } else if (rs_ieq(spec, spec_len, "json", 4) || rs_ieq(spec, spec_len, "cloudflare", 10)) {
        p->kind = K_JSON;
        p->cloudflare = spec_len == 10;
        RS_TRY(json_setup(p, p->cloudflare, err, err_cap));
    } else {
        RS_TRY(rs_logformat_create(spec, spec_len, err, err_cap, &p->tmpl));
        p->alb = rs_ieq(spec, spec_len, "alb", 3);
    }
    size_t n = spec_len;
    const char *name = spec;
    if (p->kind == K_TEMPLATE && !p->alb && !rs_ieq(spec, spec_len, "combined", 8) &&
        !rs_ieq(spec, spec_len, "common", 6) && !rs_ieq(spec, spec_len, "vhost_combined", 14)) {
        name = memchr(spec, '$', spec_len) ? "nginx" : "apache";
        n = strlen(name);
    }
    if (n >= sizeof p->name) n = sizeof p->name - 1;
    for (size_t i = 0; i < n; i++) p->name[i] = (char)(name[i] | (name == spec ? 0x20 : 0));
    p->name[n] = '\0';
    p->settled = 1;
    return RS_OK;
}

rs_status rs_logparser_create(const char *spec, size_t spec_len, const char *const *fields, size_t n_fields,
                              char *err, size_t err_cap, rs_logparser **out)
{
    RS_RETURN_IF(out == NULL || (spec == NULL && spec_len > 0) || (fields == NULL && n_fields > 0), RS_ERR_USAGE);
    *out = NULL;
    rs_logparser *p = rs_calloc(1, sizeof *p);
    RS_RETURN_IF(p == NULL, RS_ERR_NOMEM);
    p->ua_plus = -1;
    if (n_fields) {
        p->user_list = rs_calloc(n_fields, sizeof *p->user_list);
        size_t total = 0;
        for (size_t i = 0; i < n_fields; i++) total += strlen(fields[i]) + 1;
        p->user_fields = rs_malloc(total);
        if (p->user_list == NULL || p->user_fields == NULL) {
            rs_logparser_free(p);
            return RS_ERR_NOMEM;
        }
        char *d = p->user_fields;
        for (size_t i = 0; i < n_fields; i++) {
            const size_t l = strlen(fields[i]) + 1;
            memcpy(d, fields[i], l);
            p->user_list[i] = d;
            d += l;
        }
        p->n_user = n_fields;
    }
    rs_status st;
    if (rs_ieq(spec, spec_len, "auto", 4)) {
        p->kind = K_AUTO;
        strcpy(p->name, "auto");
        /* Validate the mappings now. */
        st = json_setup(p, 0, err, err_cap);
    } else {
        st = settle(p, spec, spec_len, err, err_cap);
        if (st == RS_OK && n_fields && p->kind != K_JSON) {
            if (err && err_cap) snprintf(err, err_cap, "--field applies to the json and cloudflare formats only");
            st = RS_ERR_USAGE;
        }
    }
    if (st != RS_OK) {
        rs_logparser_free(p);
        return st;
    }
    *out = p;
    return RS_OK;
}

void rs_logparser_free(rs_logparser *p)
{
    if (p == NULL) return;
    rs_logformat_free(p->tmpl);
    for (size_t i = 0; i < p->n_paths; i++) rs_free(p->paths[i].path);
    rs_free(p->paths);
    rs_free(p->jnodes);
    rs_free(p->joffers);
    rs_free(p->jedges);
    rs_free(p->jmask);
    rs_free(p->jshapes);
    rs_free(p->user_fields);
    rs_free(p->user_list);
    rs_free(p->scratch);
    rs_free(p);
}

unsigned rs_logparser_fields(const rs_logparser *p)
{
    if (p->kind == K_TEMPLATE) return rs_logformat_fields(p->tmpl) | (p->alb ? RS_LOGF_HOST | RS_LOGF_PORT : 0);
    return RS_LOGF_CLIENT | RS_LOGF_HOST | RS_LOGF_PORT | RS_LOGF_TIME | RS_LOGF_REQUEST | RS_LOGF_STATUS
           | RS_LOGF_BYTES | RS_LOGF_REFERER | RS_LOGF_USER_AGENT | RS_LOGF_USER;
}

const char *rs_logparser_name(const rs_logparser *p) { return p->name; }

void rs_logparser_set_walk(rs_logparser *p, int walk) { p->json_walk = walk; }

int rs_logparser_stateful(const rs_logparser *p)
{
    return p->kind == K_AUTO || p->kind == K_W3C || p->kind == K_CLOUDFRONT;
}

int rs_logparser_detect(rs_logparser *p, const char *text, size_t len)
{
    if (p->kind != K_AUTO) return 1;
    const char *name = rs_log_detect(text, len);
    if (name == NULL) return 0;
    return settle(p, name, strlen(name), NULL, 0) == RS_OK;
}

rs_logline_status rs_logparser_parse(rs_logparser *p, const char *line, size_t len, rs_logrec *out)
{
    if (p->kind == K_TEMPLATE) {
        const rs_logline_status st = p->json_walk ? rs_logline_parse_walk(p->tmpl, line, len, out)
                                                  : rs_logline_parse_cached(p->tmpl, &p->tcache, line, len, out);
        out->scheme = (rs_str){line, 0};
        if (st == RS_LOGLINE_OK && p->alb) split_absolute(out);
        return st;
    }
    clear_rec(out, line);
    if (len > 0 && line[len - 1] == '\r') len--;
    size_t k = 0;
    while (k < len && (line[k] == ' ' || line[k] == '\t')) k++;
    if (k == len) return RS_LOGLINE_EMPTY;
    if (p->kind == K_AUTO) {          /* not settled: read nothing */
        out->error_offset = 0;
        return RS_LOGLINE_BAD_LAYOUT;
    }
    /* Decoded values never outgrow the line (+ a few bytes of glue). */
    if (p->scratch_cap < len + 80) {
        char *s = rs_realloc(p->scratch, len * 2 + 80);
        if (s == NULL) return RS_LOGLINE_BAD_LAYOUT;
        p->scratch = s;
        p->scratch_cap = len * 2 + 80;
    }
    p->scratch_len = 0;
    rs_logline_status st = p->kind == K_JSON ? json_parse(p, line + k, len - k, out)
                                             : w3c_parse(p, line + k, len - k, out);
    if (st != RS_LOGLINE_OK) {
        const size_t off = out->error_offset;
        clear_rec(out, line);
        out->error_offset = off;
    }
    return st;
}

/* ===== Detection ===== */

const char *rs_log_detect(const char *text, size_t len)
{
    static const char *const templates[] = {"alb", "vhost_combined", "combined", "common"};
    size_t ok[4] = {0}, n_lines = 0;
    rs_logformat *f[4] = {0};
    const char *found = NULL;
    int w3c = 0, cloudfront = 0;
    size_t json = 0, cloudflare = 0;
    for (int i = 0; i < 4; i++) rs_logformat_create(templates[i], strlen(templates[i]), NULL, 0, &f[i]);
    size_t pos = 0;
    while (pos < len && n_lines < 50) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        const size_t e = nl ? (size_t)(nl - text) : len;
        const char *l = text + pos;
        size_t ll = e - pos;
        pos = e + 1;
        while (ll && (l[0] == ' ' || l[0] == '\t')) { l++; ll--; }
        if (ll && l[ll - 1] == '\r') ll--;
        if (ll == 0) continue;
        if (l[0] == '#') {
            if (rs_istarts(l, ll, "#Fields:")) {
                w3c = 1;
                for (size_t k = 0; k + 15 <= ll; k++)
                    if (memcmp(l + k, "x-edge-location", 15) == 0) cloudfront = 1;
            } else if (rs_istarts(l, ll, "#Version:") || rs_istarts(l, ll, "#Software:")) {
                w3c = 1;
            }
            continue;
        }
        n_lines++;
        if (l[0] == '{') {
            json++;
            for (size_t k = 0; k + 20 <= ll; k++)
                if (memcmp(l + k, "\"ClientRequestHost\"", 19) == 0 || memcmp(l + k, "\"EdgeStartTimestamp\"", 20) == 0) {
                    cloudflare++;
                    break;
                }
            continue;
        }
        for (int i = 0; i < 4; i++) {
            rs_logrec r;
            if (f[i] && rs_logline_parse(f[i], l, ll, &r) == RS_LOGLINE_OK) ok[i]++;
        }
    }
    if (cloudfront) found = "cloudfront";
    else if (w3c) found = "w3c";
    else if (n_lines && cloudflare * 2 > n_lines) found = "cloudflare";
    else if (n_lines && json * 2 > n_lines) found = "json";
    else
        for (int i = 0; i < 4 && !found; i++)
            if (n_lines && ok[i] * 2 > n_lines) found = templates[i];
    for (int i = 0; i < 4; i++) rs_logformat_free(f[i]);
    return found;
}
