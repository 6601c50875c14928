/*
 * format.c - records as TSV, CSV, JSON lines or plain text, appended to a
 * growable buffer. No I/O here: callers decide when and where to write.
 */
#include "common/common.h"

int rs_format_parse(const char *name, rs_format *out)
{
    static const struct { const char *name; rs_format fmt; } NAMES[] = {
        { "text", RS_FORMAT_TEXT }, { "tsv", RS_FORMAT_TSV },
        { "csv", RS_FORMAT_CSV }, { "jsonl", RS_FORMAT_JSONL },
    };
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
        if (strcmp(name, NAMES[i].name) == 0) { *out = NAMES[i].fmt; return 0; }
    return -1;
}

void rs_outbuf_free(rs_outbuf *b)
{
    rs_free(b->ptr);
    b->ptr = NULL;
    b->len = b->cap = 0;
}

static rs_status reserve(rs_outbuf *b, size_t extra)
{
    if (RS_LIKELY(b->cap - b->len >= extra)) return RS_OK;
    size_t cap = b->cap ? b->cap * 2 : 4096;
    while (cap - b->len < extra) cap *= 2;
    char *p = rs_realloc(b->ptr, cap);
    RS_RETURN_IF(p == NULL, RS_ERR_NOMEM);
    b->ptr = p;
    b->cap = cap;
    return RS_OK;
}

rs_status rs_outbuf_reserve(rs_outbuf *b, size_t extra)
{
    return reserve(b, extra);
}

rs_status rs_outbuf_append(rs_outbuf *b, const void *src, size_t size)
{
    RS_FORWARD(reserve(b, size));
    if (size) memcpy(b->ptr + b->len, src, size);
    b->len += size;
    return RS_OK;
}

static void put(rs_outbuf *b, char c) { b->ptr[b->len++] = c; }

static void put_number(rs_outbuf *b, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do { tmp[n++] = (char)('0' + v % 10); v /= 10; } while (v);
    while (n) put(b, tmp[--n]);
}

/* The bytes TSV escapes, as rs_byteset_init builds them (constant: shared by threads). */
static const rs_byteset TSV_SPECIAL = {
    { (1ull << '\t') | (1ull << '\n') | (1ull << '\r'), 1ull << ('\\' - 64), 0, 0 },
    { '\\', '\t', '\n', '\r' }, 4,
};

/* A TSV escape for special byte c: "\\" "\t" "\n" "\r". */
static inline char *tsv_escape(char *d, char c)
{
    d[0] = '\\';
    d[1] = c == '\\' ? '\\' : c == '\t' ? 't' : c == '\n' ? 'n' : 'r';
    return d + 2;
}

static inline int tsv_special(unsigned char c) { return c == '\\' || c == '\t' || c == '\n' || c == '\r'; }

/*
 * Nonzero when some byte of the word x may need a TSV escape: a byte below
 * 14 or a backslash (a superset of the four; the byte loop then decides).
 * Bytewise SWAR tests whose yes/no answer is exact (borrows only add bits
 * above a byte that already qualifies) and independent of byte order.
 */
static inline uint64_t tsv_maybe_special(uint64_t x)
{
    const uint64_t ones = 0x0101010101010101ull, highs = ones << 7;
    const uint64_t bs = x ^ (ones * '\\');
    return (((x - ones * 14) & ~x) | ((bs - ones) & ~bs)) & highs;
}

typedef size_t (*find_any_fn)(const char *, size_t, const rs_byteset *);

/* put_tsv_at for the strings its word paths do not take. */
static __attribute__((noinline)) char *put_tsv_slow(char *d, rs_str s, find_any_fn find)
{
    const char *p = s.ptr, *const end = s.ptr + s.len;
    if (s.len < 16) {
        for (; p < end; p++) {
            if (RS_UNLIKELY(tsv_special((unsigned char)*p))) d = tsv_escape(d, *p);
            else *d++ = *p;
        }
        return d;
    }
    while (p < end) {
        const size_t run = find(p, (size_t)(end - p), &TSV_SPECIAL);
        memcpy(d, p, run);
        d += run;
        p += run;
        if (p == end) break;
        d = tsv_escape(d, *p++);
    }
    return d;
}

/*
 * s TSV-escaped at d (room for 2 * s.len bytes); returns the new end.
 *   4..15 bytes without a special byte: two overlapping word loads and stores
 *       (inline: most fields are short)
 *   16+ bytes: runs without special bytes found with the find_any kernel
 *       @find, copied whole
 *   otherwise (short with a special byte, or under 4 bytes): byte by byte
 * Reads only s[0, len).
 */
static inline char *put_tsv_at(char *d, rs_str s, find_any_fn find)
{
    const size_t n = s.len;
    if (n >= 8 && n < 16) {
        uint64_t a, b;
        memcpy(&a, s.ptr, 8);
        memcpy(&b, s.ptr + n - 8, 8);
        if (!tsv_maybe_special(a) && !tsv_maybe_special(b)) {
            memcpy(d, &a, 8);
            memcpy(d + n - 8, &b, 8);
            return d + n;
        }
    } else if (n >= 4 && n < 8) {
        uint32_t a, b;
        memcpy(&a, s.ptr, 4);
        memcpy(&b, s.ptr + n - 4, 4);
        if (!tsv_maybe_special((uint64_t)a << 32 | b)) {
            memcpy(d, &a, 4);
            memcpy(d + n - 4, &b, 4);
            return d + n;
        }
    }
    return put_tsv_slow(d, s, find);
}

/*
 * s TSV-escaped at d, as put_tsv_at, for strings of any length: 8-byte words
 * without a special byte are copied as they are tested (the last one
 * overlapping), from the first word that may hold one on the slow path.
 * Reads only s[0, len).
 */
static inline char *put_tsv_words(char *d, rs_str s, find_any_fn find)
{
    const size_t n = s.len;
    if (n < 16) return put_tsv_at(d, s, find);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s.ptr + i, 8);
        if (RS_UNLIKELY(tsv_maybe_special(w))) goto slow;
        memcpy(d + i, &w, 8);
    }
    if (i < n) {
        uint64_t w;
        memcpy(&w, s.ptr + n - 8, 8);
        if (RS_UNLIKELY(tsv_maybe_special(w))) goto slow;
        memcpy(d + n - 8, &w, 8);
    }
    return d + n;
slow: {
        const rs_str rest = { s.ptr + i, n - i };
        return put_tsv_slow(d + i, rest, find);
    }
}

static void put_tsv(rs_outbuf *b, rs_str s)
{
    b->len = (size_t)(put_tsv_slow(b->ptr + b->len, s, rs_simd_active()->find_any) - b->ptr);
}

/* Decimal digits of v at d; returns the new end (at most 20 bytes). */
static char *put_digits(char *d, uint64_t v)
{
    char tmp[20];
    size_t n = sizeof tmp;
    do { tmp[--n] = (char)('0' + v % 10); v /= 10; } while (v);
    memcpy(d, tmp + n, sizeof tmp - n);
    return d + (sizeof tmp - n);
}

size_t rs_format_uint(char *dst, uint64_t v) { return (size_t)(put_digits(dst, v) - dst); }

/* The TSV record on its own path: the hot one of `urls` with full output. */
static rs_status record_tsv(rs_outbuf *out, const rs_field *fields, size_t n)
{
    /* One bound for the whole record: every string escaped to twice its length,
     * 20 digits per number, a separator after each field (numbers' strings
     * are counted too: an over-estimate is harmless). */
    size_t chars = 0;
    for (size_t i = 0; i < n; i++) chars += fields[i].str.len;
    RS_FORWARD(reserve(out, 2 * chars + 21 * n + 1));
    const find_any_fn find = rs_simd_active()->find_any;
    char *d = out->ptr + out->len;
    for (size_t i = 0; i < n; i++) {
        const rs_field *f = &fields[i];
        if (i) *d++ = '\t';
        d = f->is_number ? put_digits(d, f->number) : put_tsv_words(d, f->str, find);
    }
    *d++ = '\n';
    out->len = (size_t)(d - out->ptr);
    return RS_OK;
}

/* Nonzero when some byte of the word x is ',', '"', or below 14 (a superset of
 * the bytes that make a CSV field quoted: the byte loop then decides). */
static inline uint64_t csv_maybe_special(uint64_t x)
{
    const uint64_t ones = 0x0101010101010101ull, highs = ones << 7;
    const uint64_t cm = x ^ (ones * ','), qu = x ^ (ones * '"');
    return (((x - ones * 14) & ~x) | ((cm - ones) & ~cm) | ((qu - ones) & ~qu)) & highs;
}

static void put_csv(rs_outbuf *b, rs_str s)
{
    int quote = 0;
    size_t i = 0;
    for (; i + 8 <= s.len; i += 8) {
        uint64_t w;
        memcpy(&w, s.ptr + i, 8);
        if (csv_maybe_special(w)) break;
    }
    for (; i < s.len && !quote; i++)
        quote = s.ptr[i] == ',' || s.ptr[i] == '"' || s.ptr[i] == '\n' || s.ptr[i] == '\r';
    if (!quote) {
        memcpy(b->ptr + b->len, s.ptr, s.len);
        b->len += s.len;
        return;
    }
    put(b, '"');
    for (size_t k = 0; k < s.len; k++) {
        if (s.ptr[k] == '"') put(b, '"');
        put(b, s.ptr[k]);
    }
    put(b, '"');
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    const unsigned char c = s[0];
    size_t len;
    uint32_t cp;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) { len = 2; cp = c & 0x1F; }
    else if (c >= 0xE0 && c <= 0xEF) { len = 3; cp = c & 0x0F; }
    else if (c >= 0xF0 && c <= 0xF4) { len = 4; cp = c & 0x07; }
    else return 0;
    if (n < len) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    return len;
}

/* Nonzero when some byte of the word x is not printable ASCII or is '"' or
 * '\\' (exact per byte: each test's borrows stay above a qualifying byte). */
static inline uint64_t json_maybe_special(uint64_t x)
{
    const uint64_t ones = 0x0101010101010101ull, highs = ones << 7;
    const uint64_t qu = x ^ (ones * '"'), bs = x ^ (ones * '\\'), del = x ^ (ones * 0x7f);
    return (x | ((x - ones * 0x20) & ~x) | ((qu - ones) & ~qu) | ((bs - ones) & ~bs) | ((del - ones) & ~del))
           & highs;
}

static void put_json_string(rs_outbuf *b, rs_str s)
{
    static const char HEX[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s.ptr;
    put(b, '"');
    size_t i = 0;
    /* words of printable ASCII other than '"' and '\\' are copied as they are */
    for (; i + 8 <= s.len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        if (json_maybe_special(w)) break;
        memcpy(b->ptr + b->len, &w, 8);
        b->len += 8;
    }
    while (i < s.len) {
        const unsigned char c = p[i];
        if (c == '"' || c == '\\') { put(b, '\\'); put(b, (char)c); i++; continue; }
        if (c < 0x20 || c == 0x7F) {
            put(b, '\\'); put(b, 'u'); put(b, '0'); put(b, '0');
            put(b, HEX[c >> 4]); put(b, HEX[c & 15]);
            i++;
            continue;
        }
        const size_t n = utf8_len(p + i, s.len - i);
        if (n == 0) { /* not UTF-8: keep the byte's value visible */
            put(b, '\\'); put(b, 'u'); put(b, '0'); put(b, '0');
            put(b, HEX[c >> 4]); put(b, HEX[c & 15]);
            i++;
            continue;
        }
        memcpy(b->ptr + b->len, p + i, n);
        b->len += n;
        i += n;
    }
    put(b, '"');
}

/* Worst-case bytes one field can take in any format. */
static size_t field_bound(const rs_field *f)
{
    return f->is_number ? 24 : 6 * f->str.len + 4;
}

rs_status rs_format_header(rs_outbuf *out, rs_format fmt, const char *const *names, size_t n)
{
    if (fmt != RS_FORMAT_TSV && fmt != RS_FORMAT_CSV) return RS_OK;
    for (size_t i = 0; i < n; i++) {
        rs_field f = { { names[i], strlen(names[i]) }, 0, 0 };
        RS_FORWARD(reserve(out, field_bound(&f) + 2));
        if (i) put(out, fmt == RS_FORMAT_TSV ? '\t' : ',');
        if (fmt == RS_FORMAT_TSV) put_tsv(out, f.str);
        else put_csv(out, f.str);
    }
    RS_FORWARD(reserve(out, 1));
    put(out, '\n');
    return RS_OK;
}

/* RS_FORMAT_FIELDS: u32 bytes that follow, u16 field count, then each field as u32
 * length and its raw bytes (numbers in decimal); host byte order, read back by the job
 * in the same process (job.c). */
static rs_status record_fields(rs_outbuf *out, const rs_field *fields, size_t n)
{
    size_t bound = 6;
    for (size_t i = 0; i < n; i++) bound += 4 + (fields[i].is_number ? 20 : fields[i].str.len);
    RS_FORWARD(reserve(out, bound));
    char *const start = out->ptr + out->len, *d = start + 6;
    for (size_t i = 0; i < n; i++) {
        char num[24];
        rs_str v = fields[i].str;
        if (fields[i].is_number) {
            v.ptr = num;
            v.len = rs_format_uint(num, fields[i].number);
        }
        const uint32_t len = (uint32_t)v.len;
        memcpy(d, &len, 4);
        if (v.len) memcpy(d + 4, v.ptr, v.len);
        d += 4 + v.len;
    }
    const uint32_t body = (uint32_t)(d - start - 4);
    const uint16_t count = (uint16_t)n;
    memcpy(start, &body, 4);
    memcpy(start + 4, &count, 2);
    out->len += (size_t)(d - start);
    return RS_OK;
}

rs_status rs_format_input_line(rs_outbuf *out, size_t start, rs_format fmt, uint64_t line)
{
    char num[48];
    size_t k, at = start;
    if (start > out->len) return RS_ERR_USAGE;
    if (fmt == RS_FORMAT_FIELDS) {  /* a first field, after the record's head */
        char d[20];
        const uint32_t len = (uint32_t)rs_format_uint(d, line);
        memcpy(num, &len, 4);
        memcpy(num + 4, d, len);
        k = 4 + len;
        at = start + 6;
        if (at > out->len) return RS_ERR_USAGE;
        uint32_t body;
        uint16_t count;
        memcpy(&body, out->ptr + start, 4);
        memcpy(&count, out->ptr + start + 4, 2);
        body += (uint32_t)k;
        count++;
        memcpy(out->ptr + start, &body, 4);
        memcpy(out->ptr + start + 4, &count, 2);
    } else if (fmt == RS_FORMAT_JSONL) {
        k = (size_t)snprintf(num, sizeof num, "\"input_line\":%llu,", (unsigned long long)line);
        at = start + 1; /* after the record's '{' */
    } else if (fmt == RS_FORMAT_CSV) {
        k = (size_t)snprintf(num, sizeof num, "%llu,", (unsigned long long)line);
    } else {
        k = (size_t)snprintf(num, sizeof num, "%llu\t", (unsigned long long)line);
    }
    const size_t tail = out->len - at;
    RS_FORWARD(rs_outbuf_append(out, num, k)); /* grows the buffer */
    memmove(out->ptr + at + k, out->ptr + at, tail);
    memcpy(out->ptr + at, num, k);
    return RS_OK;
}

rs_status rs_format_record(rs_outbuf *out, rs_format fmt, const char *const *names,
                           const rs_field *fields, size_t n)
{
    if (fmt == RS_FORMAT_TSV) return record_tsv(out, fields, n);
    if (fmt == RS_FORMAT_FIELDS) return record_fields(out, fields, n);
    size_t bound = 4;
    for (size_t i = 0; i < n; i++)
        bound += field_bound(&fields[i]) + (fmt == RS_FORMAT_JSONL ? 6 * strlen(names[i]) + 8 : 2);
    RS_FORWARD(reserve(out, bound));
    if (fmt == RS_FORMAT_JSONL) put(out, '{');
    for (size_t i = 0; i < n; i++) {
        const rs_field *f = &fields[i];
        switch (fmt) {
        case RS_FORMAT_JSONL: {
            if (i) put(out, ',');
            rs_str name = { names[i], strlen(names[i]) };
            put_json_string(out, name);
            put(out, ':');
            if (f->is_number) put_number(out, f->number);
            else put_json_string(out, f->str);
            break;
        }
        case RS_FORMAT_TSV:
        case RS_FORMAT_CSV:
        case RS_FORMAT_TEXT:
            if (i) {
                if (fmt == RS_FORMAT_TEXT) put(out, ' ');
                put(out, fmt == RS_FORMAT_TSV ? '\t' : fmt == RS_FORMAT_CSV ? ',' : ' ');
            }
            if (f->is_number) put_number(out, f->number);
            else if (fmt == RS_FORMAT_TSV) put_tsv(out, f->str);
            else if (fmt == RS_FORMAT_CSV) put_csv(out, f->str);
            else { memcpy(out->ptr + out->len, f->str.ptr, f->str.len); out->len += f->str.len; }
            break;
        }
    }
    if (fmt == RS_FORMAT_JSONL) put(out, '}');
    put(out, '\n');
    return RS_OK;
}

rs_status rs_outbuf_json_string(rs_outbuf *out, const char *s, size_t len)
{
    RS_FORWARD(reserve(out, 6 * len + 2));
    const rs_str str = { s, len };
    put_json_string(out, str);
    return RS_OK;
}

size_t rs_format_value(char *dst, size_t dst_cap, rs_format fmt, const char *src, size_t src_size)
{
    assert(dst_cap >= RS_FORMAT_VALUE_BOUND(src_size));
    (void)dst_cap;
    const rs_str s = { src, src_size };
    if (fmt == RS_FORMAT_TSV) return (size_t)(put_tsv_words(dst, s, rs_simd_active()->find_any) - dst);
    rs_outbuf b = { dst, 0, dst_cap };
    if (fmt == RS_FORMAT_CSV) put_csv(&b, s);
    else if (fmt == RS_FORMAT_JSONL) put_json_string(&b, s);
    else if (fmt == RS_FORMAT_FIELDS) return 0;    /* records of fields are never rendered in pieces */
    else {
        memcpy(dst, src, src_size);
        b.len = src_size;
    }
    return b.len;
}
