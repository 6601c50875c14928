/*
 * ipranges.c - published crawler IP ranges (bot verification, SPEC 4).
 *
 * Does: read Google's range files (`{"prefixes":[{"ipv4Prefix":"a.b.c.d/n"},
 * {"ipv6Prefix":"x::/n"}]}`) and plain CIDR lists (one per line, `#`
 * comments), each owned by a set of crawler tokens; answer "is this client
 * IP inside the ranges of this token" and "whose ranges hold this IP".
 * Every prefix becomes a closed interval of 128-bit addresses (IPv4 as
 * ::ffff:a.b.c.d); each set keeps its intervals sorted and merged, so a
 * lookup is one binary search.
 * Does not: resolve DNS (reverse-DNS verification is out of scope).
 */
#include "common/common.h"

#include <arpa/inet.h>
#include <stdio.h>

typedef struct {
    uint64_t hi, lo;
} u128;

typedef struct {
    u128 first, last;
} span;

typedef struct {
    char *tokens;           /* comma-separated, as given */
    span *spans;
    size_t n, cap;
    int sorted;
} rangeset;

struct rs_ipranges {
    rangeset *sets;
    size_t n_sets;
};

static int u_lt(u128 a, u128 b) { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo); }
static int u_le(u128 a, u128 b) { return !u_lt(b, a); }

static u128 u_inc(u128 a)
{
    a.lo++;
    if (a.lo == 0) a.hi++;
    return a;
}

/* Parses an IPv4 or IPv6 address (IPv6 in brackets too) into 128 bits. */
static int parse_ip(const char *s, size_t len, u128 *out)
{
    char tmp[64];
    if (len >= 2 && s[0] == '[' && s[len - 1] == ']') { s++; len -= 2; }
    if (len == 0 || len >= sizeof tmp) return 0;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    unsigned char b[16];
    if (inet_pton(AF_INET, tmp, b) == 1) {
        out->hi = 0;
        out->lo = 0xFFFF00000000ull | (uint64_t)b[0] << 24 | (uint64_t)b[1] << 16 | (uint64_t)b[2] << 8 | b[3];
        return 4;
    }
    if (inet_pton(AF_INET6, tmp, b) == 1) {
        out->hi = out->lo = 0;
        for (int i = 0; i < 8; i++) out->hi = out->hi << 8 | b[i];
        for (int i = 8; i < 16; i++) out->lo = out->lo << 8 | b[i];
        return 6;
    }
    return 0;
}

/* "a.b.c.d/n" or "x::/n" (a bare address is /32 or /128). */
static int parse_cidr(const char *s, size_t len, span *out)
{
    const char *slash = memchr(s, '/', len);
    u128 a;
    const int fam = parse_ip(s, slash ? (size_t)(slash - s) : len, &a);
    if (!fam) return 0;
    unsigned bits = fam == 4 ? 32 : 128;
    if (slash) {
        unsigned v = 0;
        size_t k = (size_t)(slash - s) + 1;
        if (k == len || len - k > 3) return 0;
        for (; k < len; k++) {
            if (s[k] < '0' || s[k] > '9') return 0;
            v = v * 10 + (unsigned)(s[k] - '0');
        }
        if (v > bits) return 0;
        bits = v;
    }
    const unsigned prefix = fam == 4 ? 96 + bits : bits;  /* of 128 */
    u128 mask;                                             /* host bits */
    if (prefix >= 128) { mask.hi = 0; mask.lo = 0; }
    else if (prefix >= 64) { mask.hi = 0; mask.lo = prefix == 64 ? ~0ull : (~0ull >> (prefix - 64)); }
    else { mask.hi = prefix == 0 ? ~0ull : (~0ull >> prefix); mask.lo = ~0ull; }
    out->first.hi = a.hi & ~mask.hi;
    out->first.lo = a.lo & ~mask.lo;
    out->last.hi = a.hi | mask.hi;
    out->last.lo = a.lo | mask.lo;
    return 1;
}

rs_status rs_ipranges_create(rs_ipranges **out)
{
    RS_RETURN_IF(out == NULL, RS_ERR_USAGE);
    *out = rs_calloc(1, sizeof **out);
    return *out ? RS_OK : RS_ERR_NOMEM;
}

void rs_ipranges_free(rs_ipranges *r)
{
    if (r == NULL) return;
    for (size_t i = 0; i < r->n_sets; i++) {
        rs_free(r->sets[i].tokens);
        rs_free(r->sets[i].spans);
    }
    rs_free(r->sets);
    rs_free(r);
}

static rs_status add_span(rangeset *s, span sp)
{
    if (s->n == s->cap) {
        const size_t cap = s->cap ? s->cap * 2 : 64;
        span *n = rs_realloc(s->spans, cap * sizeof *n);
        RS_RETURN_IF(n == NULL, RS_ERR_NOMEM);
        s->spans = n;
        s->cap = cap;
    }
    s->spans[s->n++] = sp;
    return RS_OK;
}

static int span_cmp(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return u_lt(x->first, y->first) ? -1 : u_lt(y->first, x->first) ? 1 : 0;
}

static void finish(rangeset *s)
{
    if (s->n == 0) return;
    qsort(s->spans, s->n, sizeof *s->spans, span_cmp);
    size_t w = 0;
    for (size_t i = 1; i < s->n; i++) {
        span *cur = &s->spans[w];
        const span nx = s->spans[i];
        /* overlapping or adjacent (last + 1 == first) */
        const int at_max = cur->last.hi == ~0ull && cur->last.lo == ~0ull;
        const u128 next = u_inc(cur->last);
        if (at_max || u_le(nx.first, cur->last) || (next.hi == nx.first.hi && next.lo == nx.first.lo)) {
            if (u_lt(cur->last, nx.last)) cur->last = nx.last;
        } else {
            s->spans[++w] = nx;
        }
    }
    s->n = w + 1;
}

rs_status rs_ipranges_add(rs_ipranges *r, const char *tokens, const char *text, size_t len, char *err,
                          size_t err_cap, size_t *n_prefixes)
{
    RS_RETURN_IF(r == NULL || tokens == NULL || (text == NULL && len > 0), RS_ERR_USAGE);
    rangeset s;
    memset(&s, 0, sizeof s);
    size_t count = 0;
    size_t i = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n')) i++;
    const int json = i < len && text[i] == '{';
    rs_status st = RS_OK;
    if (json) {
        /* Every "ipv4Prefix"/"ipv6Prefix": "..." pair, wherever it is. */
        for (size_t k = i; k + 12 < len && st == RS_OK; k++) {
            if (text[k] != '"' || memcmp(text + k + 1, "ipv", 3) != 0 || memcmp(text + k + 5, "Prefix\"", 7) != 0)
                continue;
            size_t v = k + 12;
            while (v < len && (text[v] == ' ' || text[v] == ':' || text[v] == '\t' || text[v] == '\n' || text[v] == '\r')) v++;
            if (v >= len || text[v] != '"') continue;
            const char *q = memchr(text + v + 1, '"', len - v - 1);
            if (q == NULL) break;
            span sp;
            if (!parse_cidr(text + v + 1, (size_t)(q - text - v - 1), &sp)) {
                if (err && err_cap) snprintf(err, err_cap, "bad prefix '%.*s'", (int)RS_MIN((size_t)(q - text - v - 1), 60), text + v + 1);
                st = RS_ERR_CORRUPT;
                break;
            }
            st = add_span(&s, sp);
            count++;
            k = (size_t)(q - text);
        }
    } else {
        size_t line_no = 0;
        while (i <= len && st == RS_OK && i < len) {
            const char *nl = memchr(text + i, '\n', len - i);
            const size_t e = nl ? (size_t)(nl - text) : len;
            size_t a = i, b = e;
            line_no++;
            const char *hash = memchr(text + a, '#', b - a);
            if (hash) b = (size_t)(hash - text);
            while (a < b && (text[a] == ' ' || text[a] == '\t' || text[a] == ',')) a++;
            while (b > a && (text[b - 1] == ' ' || text[b - 1] == '\t' || text[b - 1] == '\r' || text[b - 1] == ',')) b--;
            if (b > a) {
                span sp;
                if (!parse_cidr(text + a, b - a, &sp)) {
                    if (err && err_cap) snprintf(err, err_cap, "line %zu: not an IP prefix: '%.*s'", line_no + 0, (int)RS_MIN(b - a, 60), text + a);
                    st = RS_ERR_CORRUPT;
                    break;
                }
                st = add_span(&s, sp);
                count++;
            }
            i = e + 1;
        }
    }
    if (st == RS_OK && count == 0) {
        if (err && err_cap) snprintf(err, err_cap, "no IP prefixes in it");
        st = RS_ERR_CORRUPT;
    }
    if (st == RS_OK) {
        s.tokens = rs_malloc(strlen(tokens) + 1);
        rangeset *ns = rs_realloc(r->sets, (r->n_sets + 1) * sizeof *ns);
        if (s.tokens == NULL || ns == NULL) {
            rs_free(s.tokens);
            if (ns) r->sets = ns;
            st = RS_ERR_NOMEM;
        } else {
            strcpy(s.tokens, tokens);
            finish(&s);
            r->sets = ns;
            r->sets[r->n_sets++] = s;
            if (n_prefixes) *n_prefixes = count;
            return RS_OK;
        }
    }
    rs_free(s.spans);
    return st;
}

static int token_in(const char *list, const char *tok, size_t len)
{
    const char *p = list;
    while (*p) {
        const char *c = strchr(p, ',');
        const size_t n = c ? (size_t)(c - p) : strlen(p);
        if (rs_ieq(p, n, tok, len)) return 1;
        if (c == NULL) break;
        p = c + 1;
    }
    return 0;
}

static int in_set(const rangeset *s, u128 a)
{
    size_t lo = 0, hi = s->n;   /* first span with first > a */
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (u_le(s->spans[mid].first, a)) lo = mid + 1;
        else hi = mid;
    }
    return lo > 0 && u_le(a, s->spans[lo - 1].last);
}

int rs_ipranges_check(const rs_ipranges *r, const char *token, size_t token_len, const char *ip, size_t ip_len)
{
    if (r == NULL) return -1;
    int have = 0;
    u128 a;
    int ok_ip = -1;
    for (size_t i = 0; i < r->n_sets; i++) {
        if (!token_in(r->sets[i].tokens, token, token_len)) continue;
        have = 1;
        if (ok_ip < 0) ok_ip = parse_ip(ip, ip_len, &a) != 0;
        if (ok_ip && in_set(&r->sets[i], a)) return 1;
    }
    return have ? 0 : -1;
}

int rs_ipranges_owner(const rs_ipranges *r, const char *ip, size_t ip_len, rs_str *token)
{
    u128 a;
    if (r == NULL || !parse_ip(ip, ip_len, &a)) return 0;
    for (size_t i = 0; i < r->n_sets; i++) {
        if (!in_set(&r->sets[i], a)) continue;
        const char *t = r->sets[i].tokens;
        const char *c = strchr(t, ',');
        *token = (rs_str){t, c ? (size_t)(c - t) : strlen(t)};
        return 1;
    }
    return 0;
}
