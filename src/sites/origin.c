/*
 * origin.c - URL -> canonical origin string "scheme://host[:port]" (SPEC 3).
 *
 * Does: split scheme / userinfo / host / port, canonicalise the host (case,
 * %XX, IDNA via libidn2, trailing dot, IPv4 and IPv6 literals), elide default
 * ports, write the result into a caller buffer. The ASCII path never
 * allocates and touches each byte of the authority about twice; libidn2 is
 * called only for a host with a byte >= 0x80.
 * Does not: look at the path (rs_url_path does), resolve names, or decide
 * anything about robots.txt.
 *
 * Decisions (documented in robotscan.h):
 *  - Scheme and authority are split by rs_url_split, the matcher's own
 *    split (SPEC 2.3.14): the authority starts after "scheme://" when "://"
 *    starts at the first '/', '?' or ';' (after a leading "//"), else after
 *    a leading "//", else at the start (scheme taken as http). It ends at
 *    the first '/', '?', '#' or ';'.
 *  - Input with neither "scheme://" nor a leading "//" may not carry userinfo
 *    or an empty port: `mailto:a@b.c` and `http:/x` are then malformed
 *    instead of becoming http://b.c and http://http.
 *  - Host %XX escapes are decoded once (as WHATWG does); a decoded byte must
 *    itself be a valid host byte (or >= 0x80, then IDNA applies).
 *  - One trailing dot is dropped: `example.com.` names the same DNS host as
 *    `example.com`, and a crawler fetches the same robots.txt for both.
 *  - Allowed ASCII host bytes are [a-z0-9-_.] (underscore appears in real
 *    host names); anything else (space, '~', '!', '\\', ...) is malformed.
 *  - Port 0 is malformed (nothing can be fetched from it).
 */
#include "common/common.h"

#include <arpa/inet.h>
#include <idn2.h>

#define SCHEME_MAX 32
#define HOST_MAX 253
#define LABEL_MAX 63
#define RAW_HOST_MAX 4096 /* raw (escaped, UTF-8) host bytes considered at all */

const char *rs_origin_error_str(rs_origin_error e)
{
    switch (e) {
    case RS_ORIGIN_OK:         return "ok";
    case RS_ORIGIN_NO_HOST:    return "no host";
    case RS_ORIGIN_BAD_SCHEME: return "bad scheme";
    case RS_ORIGIN_BAD_HOST:   return "bad host";
    case RS_ORIGIN_BAD_IDN:    return "bad internationalized host";
    case RS_ORIGIN_BAD_PORT:   return "bad port";
    case RS_ORIGIN_TOO_LONG:   return "host too long";
    }
    return "unknown origin error";
}

/* 1: [a-z0-9-_.], 2: upper-case ASCII letter, 3: '%', 4: byte >= 0x80, 0: invalid. */
static const unsigned char host_class[256] = {
    ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1,
    ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1,
    ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1,
    ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1,
    ['7'] = 1, ['8'] = 1, ['9'] = 1, ['-'] = 1, ['_'] = 1, ['.'] = 1,
    ['A'] = 2, ['B'] = 2, ['C'] = 2, ['D'] = 2, ['E'] = 2, ['F'] = 2, ['G'] = 2,
    ['H'] = 2, ['I'] = 2, ['J'] = 2, ['K'] = 2, ['L'] = 2, ['M'] = 2, ['N'] = 2,
    ['O'] = 2, ['P'] = 2, ['Q'] = 2, ['R'] = 2, ['S'] = 2, ['T'] = 2, ['U'] = 2,
    ['V'] = 2, ['W'] = 2, ['X'] = 2, ['Y'] = 2, ['Z'] = 2,
    ['%'] = 3,
#define R16(x) x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x
    [0x80] = R16(4), R16(4), R16(4), R16(4), R16(4), R16(4), R16(4), R16(4),
#undef R16
};

static int hexval(unsigned char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    c = (unsigned char)rs_ascii_lower(c);
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* ===== IP literals ===== */

/*
 * WHATWG IPv4 number: decimal, 0x-hex or 0-octal. Returns -1 if invalid,
 * else the value (capped at 2^32 + 1 so overflow stays detectable).
 */
static int64_t ipv4_number(const char *s, size_t len)
{
    int base = 10;
    if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) { base = 16; s += 2; len -= 2; }
    else if (len >= 2 && s[0] == '0') { base = 8; s++; len--; }
    if (len == 0) return 0; /* "0x" alone is 0 in WHATWG */
    int64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        int d = hexval((unsigned char)s[i]);
        if (d < 0 || d >= base) return -1;
        v = v * base + d;
        if (v > ((int64_t)1 << 32)) v = ((int64_t)1 << 32) + 1;
    }
    return v;
}

/* Does the (lower-case ASCII, no trailing dot) host end in a number (WHATWG)? */
static int ends_in_number(const char *h, size_t len)
{
    size_t start = len;
    while (start > 0 && h[start - 1] != '.') start--;
    const char *last = h + start;
    size_t n = len - start;
    if (n == 0) return 0;
    size_t i = 0;
    for (; i < n && last[i] >= '0' && last[i] <= '9'; i++) {}
    if (i == n) return 1;
    if (n >= 2 && last[0] == '0' && last[1] == 'x') {
        for (i = 2; i < n && hexval((unsigned char)last[i]) >= 0; i++) {}
        return i == n;
    }
    return 0;
}

/* Parses a WHATWG IPv4 host and writes it dotted-decimal. @return length, 0 if invalid. */
static size_t ipv4_canon(const char *h, size_t len, char *dst)
{
    int64_t parts[4];
    size_t nparts = 0, start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && h[i] != '.') continue;
        if (nparts == 4) return 0;
        int64_t v = ipv4_number(h + start, i - start);
        if (v < 0 || i == start) return 0;
        parts[nparts++] = v;
        start = i + 1;
    }
    for (size_t i = 0; i + 1 < nparts; i++)
        if (parts[i] > 255) return 0;
    uint64_t limit = (uint64_t)1 << (8 * (5 - nparts));
    if ((uint64_t)parts[nparts - 1] >= limit) return 0;
    uint64_t addr = (uint64_t)parts[nparts - 1];
    for (size_t i = 0; i + 1 < nparts; i++) addr += (uint64_t)parts[i] << (8 * (3 - i));
    size_t o = 0;
    for (int i = 3; i >= 0; i--) {
        unsigned b = (unsigned)(addr >> (8 * i)) & 0xff;
        if (b >= 100) dst[o++] = (char)('0' + b / 100);
        if (b >= 10) dst[o++] = (char)('0' + b / 10 % 10);
        dst[o++] = (char)('0' + b % 10);
        if (i) dst[o++] = '.';
    }
    return o;
}

/* "[...]" -> "[canonical]" (RFC 5952: lower-case, longest zero run as ::). @return length, 0 if invalid. */
static size_t ipv6_canon(const char *h, size_t len, char *dst)
{
    char tmp[64];
    unsigned char a[16];
    if (len < 4 || h[0] != '[' || h[len - 1] != ']' || len - 2 >= sizeof tmp) return 0;
    memcpy(tmp, h + 1, len - 2);
    tmp[len - 2] = '\0';
    if (memchr(tmp, '\0', len - 2) != NULL || inet_pton(AF_INET6, tmp, a) != 1) return 0;
    unsigned g[8];
    for (int i = 0; i < 8; i++) g[i] = (unsigned)a[2 * i] << 8 | a[2 * i + 1];
    int best = -1, best_len = 1; /* a single zero group is not compressed */
    for (int i = 0; i < 8;) {
        if (g[i] != 0) { i++; continue; }
        int j = i;
        while (j < 8 && g[j] == 0) j++;
        if (j - i > best_len) { best = i; best_len = j - i; }
        i = j;
    }
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    dst[o++] = '[';
    for (int i = 0; i < 8; i++) {
        if (i == best) {
            dst[o++] = ':';
            if (i == 0) dst[o++] = ':';
            i += best_len - 1;
            continue;
        }
        int started = 0;
        for (int sh = 12; sh >= 0; sh -= 4) {
            unsigned d = (g[i] >> sh) & 0xf;
            if (d || started || sh == 0) { dst[o++] = hex[d]; started = 1; }
        }
        if (i < 7) dst[o++] = ':';
    }
    dst[o++] = ']';
    return o;
}

/* ===== Host names ===== */

/* host_class bits seen in a host; NEED_SLOW: it has '%' or bytes >= 0x80. */
#define SEEN_INVALID (1u << 0)
#define SEEN_SLOW    ((1u << 3) | (1u << 4))
#define NEED_SLOW    ((rs_origin_error)100)

static unsigned classify(const char *h, size_t len)
{
    unsigned seen = 0;
    for (size_t i = 0; i < len; i++) seen |= 1u << host_class[(unsigned char)h[i]];
    return seen;
}

/*
 * The fast path, one pass: copies the host lower-cased into dst while
 * classifying its bytes and measuring its labels. @return NEED_SLOW when the
 * host has '%' or non-ASCII bytes (and no invalid one).
 */
static rs_origin_error ascii_host(const char *h, size_t len, char *dst, size_t *out_len)
{
    if (len > 0 && h[len - 1] == '.') len--; /* one trailing dot */
    if (len == 0) return RS_ORIGIN_BAD_HOST;
    if (len > HOST_MAX) {
        const unsigned seen = classify(h, len);
        return (seen & SEEN_INVALID) ? RS_ORIGIN_BAD_HOST : (seen & SEEN_SLOW) ? NEED_SLOW
                                                                              : RS_ORIGIN_TOO_LONG;
    }
    unsigned seen = 0, labels = 0; /* labels: 1 = an empty label, 2 = a label over 63 */
    size_t label_start = 0;
    for (size_t i = 0; i < len; i++) {
        const unsigned char c = (unsigned char)h[i];
        seen |= 1u << host_class[c];
        dst[i] = (char)(host_class[c] == 2 ? c + 32 : c);
        if (c == '.') {
            const size_t l = i - label_start;
            labels |= (l == 0) | (l > LABEL_MAX) << 1;
            label_start = i + 1;
        }
    }
    const size_t last = len - label_start;
    labels |= (last == 0) | (last > LABEL_MAX) << 1;
    if (seen & SEEN_INVALID) return RS_ORIGIN_BAD_HOST;
    if (seen & SEEN_SLOW) return NEED_SLOW;
    if (labels & 1) return RS_ORIGIN_BAD_HOST;
    if (labels & 2) return RS_ORIGIN_TOO_LONG;
    if (ends_in_number(dst, len)) {
        char tmp[16];
        const size_t n = ipv4_canon(dst, len, tmp);
        if (n == 0) return RS_ORIGIN_BAD_HOST;
        memcpy(dst, tmp, n);
        len = n;
    }
    *out_len = len;
    return RS_ORIGIN_OK;
}

/* Non-ASCII host (UTF-8) -> punycode through libidn2, then the ASCII rules. */
static rs_origin_error idn_host(const char *h, size_t len, char *dst, size_t *out_len, int *nomem)
{
    char in[RAW_HOST_MAX + 1];
    if (len > RAW_HOST_MAX) return RS_ORIGIN_TOO_LONG;
    memcpy(in, h, len);
    in[len] = '\0';
    if (memchr(in, '\0', len) != NULL) return RS_ORIGIN_BAD_HOST;
    uint8_t *ascii = NULL;
    int rc = idn2_lookup_u8((const uint8_t *)in, &ascii, IDN2_NONTRANSITIONAL | IDN2_NFC_INPUT);
    if (rc != IDN2_OK && rc != IDN2_MALLOC) {
        ascii = NULL;
        rc = idn2_lookup_u8((const uint8_t *)in, &ascii, IDN2_TRANSITIONAL | IDN2_NFC_INPUT);
    }
    if (rc == IDN2_MALLOC) { *nomem = 1; return RS_ORIGIN_BAD_IDN; }
    if (rc != IDN2_OK) return RS_ORIGIN_BAD_IDN;
    const size_t n = strlen((const char *)ascii);
    rs_origin_error e;
    if (n > HOST_MAX + 1) {
        e = RS_ORIGIN_TOO_LONG;
    } else {
        /* libidn2 output is ASCII; re-check it with the same rules as any host. */
        int ok = 1;
        for (size_t i = 0; i < n; i++)
            if (host_class[ascii[i]] != 1 && host_class[ascii[i]] != 2) ok = 0;
        e = ok ? ascii_host((const char *)ascii, n, dst, out_len) : RS_ORIGIN_BAD_HOST;
    }
    idn2_free(ascii);
    return e;
}

static rs_origin_error host_canon(const char *h, size_t len, char *dst, size_t *out_len, int *nomem)
{
    if (len == 0) return RS_ORIGIN_NO_HOST;
    if (h[0] == '[') {
        const size_t n = ipv6_canon(h, len, dst);
        if (n == 0) return RS_ORIGIN_BAD_HOST;
        *out_len = n;
        return RS_ORIGIN_OK;
    }
    const rs_origin_error fast = ascii_host(h, len, dst, out_len);
    if (RS_LIKELY(fast != NEED_SLOW)) return fast;
    const unsigned seen = classify(h, len);
    if (len > RAW_HOST_MAX) return RS_ORIGIN_TOO_LONG;
    if (seen & (1u << 3)) {
        /* Decode %XX once, then classify the decoded bytes like any host. */
        char dec[RAW_HOST_MAX];
        size_t n = 0;
        int high = 0;
        for (size_t i = 0; i < len; i++) {
            unsigned char c = (unsigned char)h[i];
            if (c == '%') {
                int hi, lo;
                if (i + 2 >= len) return RS_ORIGIN_BAD_HOST;
                hi = hexval((unsigned char)h[i + 1]);
                lo = hexval((unsigned char)h[i + 2]);
                if (hi < 0 || lo < 0) return RS_ORIGIN_BAD_HOST;
                c = (unsigned char)(hi << 4 | lo);
                i += 2;
                const unsigned cls = host_class[c];
                if (cls == 0 || cls == 3) return RS_ORIGIN_BAD_HOST; /* decoded once only */
            }
            if (c >= 0x80) high = 1;
            dec[n++] = (char)c;
        }
        return high ? idn_host(dec, n, dst, out_len, nomem) : ascii_host(dec, n, dst, out_len);
    }
    return idn_host(h, len, dst, out_len, nomem);
}

rs_origin_error rs_host_canon(const char *host, size_t len, char *dst, size_t dst_cap,
                              size_t *out_len)
{
    char tmp[RS_ORIGIN_MAX];
    size_t n = 0;
    int nomem = 0;
    if (dst_cap < RS_ORIGIN_MAX) return RS_ORIGIN_TOO_LONG;
    const rs_origin_error e = host_canon(host, len, tmp, &n, &nomem);
    if (e != RS_ORIGIN_OK) return e;
    memcpy(dst, tmp, n);
    *out_len = n;
    return RS_ORIGIN_OK;
}

/* ===== URLs ===== */

static uint32_t default_port(const char *scheme, size_t len)
{
    if (len == 4 && memcmp(scheme, "http", 4) == 0) return 80;
    if (len == 5 && memcmp(scheme, "https", 5) == 0) return 443;
    if (len == 3 && memcmp(scheme, "ftp", 3) == 0) return 21;
    return 0;
}

/* 1: ends the authority ('/', '?', '#', ';'), 2: '@'. */
static int is_ws(unsigned char c) { return c <= 0x20; }

static rs_origin_error parse(const char *url, size_t len, char *dst, rs_origin *out, int *nomem)
{
    if (len >= 3 && memcmp(url, "\xEF\xBB\xBF", 3) == 0) { url += 3; len -= 3; } /* first line of a file */
    while (len > 0 && is_ws((unsigned char)url[0])) { url++; len--; }
    while (len > 0 && is_ws((unsigned char)url[len - 1])) len--;
    if (len == 0) return RS_ORIGIN_NO_HOST; /* also keeps a NULL url out of pointer arithmetic */

    /* Scheme and authority exactly where the matcher's split puts them
     * (rs_url_split, SPEC 2.3.14): "scheme://" when "://" starts at the first
     * '/', '?' or ';' (after a leading "//"), else a leading "//", else the
     * start; the authority ends at the first '/', '?', '#' or ';'. One split
     * for both, so a URL's origin and its path never disagree. */
    const rs_url_parts parts = rs_url_split(url, len);
    const size_t a = parts.authority, e = parts.authority_end;
    const size_t start = len >= 2 && url[0] == '/' && url[1] == '/' ? 2 : 0;
    const char *scheme = "http";
    size_t scheme_len = 4;
    const int explicit_authority = a > 0; /* "scheme://" or "//": userinfo and an empty port are fine */
    if (a > start) {
        scheme = url + start;
        scheme_len = a - 3 - start;
        if (scheme_len == 0 || scheme_len > SCHEME_MAX) return RS_ORIGIN_BAD_SCHEME;
        unsigned char c0 = (unsigned char)rs_ascii_lower((unsigned char)scheme[0]);
        if (c0 < 'a' || c0 > 'z') return RS_ORIGIN_BAD_SCHEME;
        for (size_t i = 0; i < scheme_len; i++) {
            const unsigned char c = (unsigned char)rs_ascii_lower((unsigned char)scheme[i]);
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'))
                return RS_ORIGIN_BAD_SCHEME;
            dst[i] = (char)c;
        }
    } else {
        memcpy(dst, scheme, scheme_len);
    }

    /* The last '@' of the authority ends the userinfo. */
    const char *at = NULL;
    for (size_t i = e; i > a; i--)
        if (url[i - 1] == '@') { at = url + i - 1; break; }
    const char *auth = url + a;
    size_t auth_len = e - a;
    if (at != NULL) {
        if (!explicit_authority) return RS_ORIGIN_BAD_HOST;
        auth_len -= (size_t)(at + 1 - auth);
        auth = at + 1;
    }
    if (auth_len == 0) return RS_ORIGIN_NO_HOST;

    /* Host and port. */
    size_t host_len;
    if (auth[0] == '[') {
        const char *rb = memchr(auth, ']', auth_len);
        if (rb == NULL) return RS_ORIGIN_BAD_HOST;
        host_len = (size_t)(rb - auth) + 1;
        if (host_len < auth_len && auth[host_len] != ':') return RS_ORIGIN_BAD_HOST;
    } else {
        const char *colon = memchr(auth, ':', auth_len);
        host_len = colon ? (size_t)(colon - auth) : auth_len;
    }
    uint32_t port = 0;
    int has_port = 0;
    if (host_len < auth_len) { /* auth[host_len] == ':' */
        const char *ps = auth + host_len + 1;
        const size_t pl = auth_len - host_len - 1;
        if (pl == 0) {
            if (!explicit_authority) return RS_ORIGIN_BAD_PORT;
        } else {
            for (size_t i = 0; i < pl; i++) {
                if (ps[i] < '0' || ps[i] > '9') return RS_ORIGIN_BAD_PORT;
                port = port * 10 + (uint32_t)(ps[i] - '0');
                if (port > 65535) return RS_ORIGIN_BAD_PORT;
            }
            if (port == 0) return RS_ORIGIN_BAD_PORT;
            has_port = 1;
        }
    }
    if (host_len == 0) return RS_ORIGIN_NO_HOST;

    size_t o = scheme_len;
    memcpy(dst + o, "://", 3);
    o += 3;
    size_t hn = 0;
    const rs_origin_error he = host_canon(auth, host_len, dst + o, &hn, nomem);
    if (he != RS_ORIGIN_OK) return he;

    const uint32_t def = default_port(dst, scheme_len);
    out->scheme = (rs_str){dst, scheme_len};
    out->host = (rs_str){dst + o, hn};
    o += hn;
    if (has_port && port != def) {
        char digits[8];
        size_t nd = 0;
        for (uint32_t v = port; v; v /= 10) digits[nd++] = (char)('0' + v % 10);
        dst[o++] = ':';
        while (nd) dst[o++] = digits[--nd];
    }
    out->port = has_port ? port : def;
    out->origin = (rs_str){dst, o};
    return RS_ORIGIN_OK;
}

rs_status rs_origin_parse(const char *url, size_t len, char *dst, size_t dst_cap, rs_origin *out)
{
    RS_RETURN_IF(dst_cap < RS_ORIGIN_MAX || out == NULL || (url == NULL && len > 0), RS_ERR_USAGE);
    int nomem = 0;
    memset(out, 0, sizeof *out);
    out->error = parse(url, len, dst, out, &nomem);
    if (out->error != RS_ORIGIN_OK) {
        const rs_origin_error keep = out->error;
        memset(out, 0, sizeof *out);
        out->error = keep;
    }
    return nomem ? RS_ERR_NOMEM : RS_OK;
}
