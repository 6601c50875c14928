/* test_format.c - record formats: TSV, CSV, JSON lines, text. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "robotscan.h"

static const char *const NAMES[] = { "url", "line" };

static char *render(rs_format fmt, const char *url, size_t url_len, uint64_t line)
{
    static char out[512];
    rs_outbuf b = { 0 };
    const rs_field f[2] = { { { url, url_len }, 0, 0 }, { { NULL, 0 }, line, 1 } };
    cr_assert_eq(rs_format_header(&b, fmt, NAMES, 2), RS_OK);
    cr_assert_eq(rs_format_record(&b, fmt, NAMES, f, 2), RS_OK);
    cr_assert(b.len < sizeof out);
    memcpy(out, b.ptr, b.len);
    out[b.len] = '\0';
    rs_outbuf_free(&b);
    return out;
}

Test(format, tsv_escapes_separators)
{
    cr_expect_str_eq(render(RS_FORMAT_TSV, "a\tb\\c\nd\re", 9, 7), "url\tline\na\\tb\\\\c\\nd\\re\t7\n");
}

Test(format, csv_quotes_when_needed)
{
    cr_expect_str_eq(render(RS_FORMAT_CSV, "plain", 5, 1), "url,line\nplain,1\n");
    cr_expect_str_eq(render(RS_FORMAT_CSV, "a,\"b\"", 5, 12), "url,line\n\"a,\"\"b\"\"\",12\n");
}

Test(format, jsonl_escapes_and_keeps_utf8)
{
    cr_expect_str_eq(render(RS_FORMAT_JSONL, "a\"\\\x01\xc3\xa9", 6, 0),
                     "{\"url\":\"a\\\"\\\\\\u0001\xc3\xa9\",\"line\":0}\n");
}

Test(format, jsonl_invalid_utf8_stays_valid_json)
{
    cr_expect_str_eq(render(RS_FORMAT_JSONL, "\xff\xc3(", 3, 5),
                     "{\"url\":\"\\u00ff\\u00c3(\",\"line\":5}\n");
    cr_expect_str_eq(render(RS_FORMAT_JSONL, "\xed\xa0\x80", 3, 5), /* a surrogate */
                     "{\"url\":\"\\u00ed\\u00a0\\u0080\",\"line\":5}\n");
}

Test(format, text_has_no_header)
{
    cr_expect_str_eq(render(RS_FORMAT_TEXT, "u", 1, 3), "u  3\n");
}

Test(format, format_names)
{
    rs_format f;
    cr_expect_eq(rs_format_parse("csv", &f), 0);
    cr_expect_eq(f, RS_FORMAT_CSV);
    cr_expect_eq(rs_format_parse("xml", &f), -1);
}

/* The reference TSV escaping, byte by byte. */
static size_t naive_tsv(const char *s, size_t n, char *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case '\\': out[k++] = '\\'; out[k++] = '\\'; break;
        case '\t': out[k++] = '\\'; out[k++] = 't'; break;
        case '\n': out[k++] = '\\'; out[k++] = 'n'; break;
        case '\r': out[k++] = '\\'; out[k++] = 'r'; break;
        default: out[k++] = s[i];
        }
    }
    return k;
}

/*
 * TSV fields of every length 0..70 with one byte of interest at every
 * position (the four escaped bytes and near misses the word-at-a-time and
 * vector paths must pass through), followed by a number field, rendered from
 * an exact-size heap copy (ASan sees an over-read), under every kernel set.
 */
Test(format, tsv_every_length_and_position)
{
    static const char bytes[] = { '\\', '\t', '\n', '\r', 0x00, 0x0B, 0x0C, 0x0D + 1, 0x08,
                                  '[', ']', (char)0xDC, (char)0x8D, (char)0x89, 'z' };
    char src[70], want[200];
    for (size_t n = 0; n <= sizeof src; n++) {
        for (size_t pos = 0; pos <= n; pos++) {
            for (size_t b = 0; b < sizeof bytes; b++) {
                for (size_t i = 0; i < n; i++) src[i] = (char)('a' + i % 26);
                if (pos < n) src[pos] = bytes[b];
                if (pos + 3 < n && b % 2) src[n - 1] = bytes[(b + 1) % sizeof bytes]; /* a second one */
                char *exact = malloc(n ? n : 1);
                cr_assert_not_null(exact);
                memcpy(exact, src, n);
                size_t k = naive_tsv(src, n, want);
                memcpy(want + k, "\t42\n", 4);
                k += 4;
                const rs_field f[2] = { { { exact, n }, 0, 0 }, { { NULL, 0 }, 42, 1 } };
                rs_outbuf out = { 0 };
                cr_assert_eq(rs_format_record(&out, RS_FORMAT_TSV, NAMES, f, 2), RS_OK);
                cr_assert_eq(out.len, k, "n=%zu pos=%zu byte=%#x", n, pos, (unsigned)(unsigned char)bytes[b]);
                cr_assert(memcmp(out.ptr, want, k) == 0, "n=%zu pos=%zu byte=%#x", n, pos,
                          (unsigned)(unsigned char)bytes[b]);
                rs_outbuf_free(&out);
                free(exact);
                if (pos == n) break; /* no byte of interest: once is enough */
            }
        }
    }
}

/* The reference CSV field: quoted when it holds ',', '"', '\n' or '\r', quotes doubled. */
static size_t naive_csv(const char *s, size_t n, char *out)
{
    int quote = 0;
    for (size_t i = 0; i < n; i++) quote |= s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
    if (!quote) {
        memcpy(out, s, n);
        return n;
    }
    size_t k = 0;
    out[k++] = '"';
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"') out[k++] = '"';
        out[k++] = s[i];
    }
    out[k++] = '"';
    return k;
}

/* Length of the well-formed UTF-8 sequence at s (shortest form, no surrogates, at most
 * U+10FFFF), or 0. */
static size_t naive_utf8(const unsigned char *s, size_t n)
{
    size_t len;
    uint32_t cp;
    if (s[0] < 0x80) return 1;
    if ((s[0] & 0xE0) == 0xC0) { len = 2; cp = s[0] & 0x1Fu; }
    else if ((s[0] & 0xF0) == 0xE0) { len = 3; cp = s[0] & 0x0Fu; }
    else if ((s[0] & 0xF8) == 0xF0) { len = 4; cp = s[0] & 0x07u; }
    else return 0;
    if (n < len) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = cp << 6 | (s[i] & 0x3Fu);
    }
    static const uint32_t MIN[5] = { 0, 0, 0x80, 0x800, 0x10000 };
    if (cp < MIN[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return len;
}

/* The reference JSON string: quotes, \" \\, \u00XX for controls, DEL and bytes that
 * are not well-formed UTF-8. */
static size_t naive_json(const char *s, size_t n, char *out)
{
    static const char HEX[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    size_t k = 0;
    out[k++] = '"';
    for (size_t i = 0; i < n;) {
        const size_t u = naive_utf8(p + i, n - i);
        if (p[i] == '"' || p[i] == '\\') {
            out[k++] = '\\';
            out[k++] = (char)p[i++];
        } else if (p[i] < 0x20 || p[i] == 0x7F || u == 0) {
            k += (size_t)sprintf(out + k, "\\u00%c%c", HEX[p[i] >> 4], HEX[p[i] & 15]);
            i++;
        } else {
            memcpy(out + k, p + i, u);
            k += u;
            i += u;
        }
    }
    out[k++] = '"';
    return k;
}

/*
 * rs_format_value (what `urls` writes around its cached columns) against the
 * references, for every format, lengths 0..70 and a byte of interest (or a
 * UTF-8 sequence) at every position, from an exact-size heap copy; and the
 * same bytes as the field of a one-column rs_format_record.
 */
Test(format, value_every_length_and_position)
{
    static const char *const bits[] = { "\\", "\t", "\n", "\r", ",", "\"", "\x7f", "\x1f", " ", "\x80",
                                        "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xed\xa0\x80",
                                        "\xc3", "\xff", "\x0e", "]" };
    static const rs_format FMTS[] = { RS_FORMAT_TSV, RS_FORMAT_CSV, RS_FORMAT_JSONL };
    static const char *const ONE[] = { "url" };
    char src[80], want[600], got[600];
    for (size_t n = 0; n <= 70; n++) {
        for (size_t pos = 0; pos <= n; pos++) {
            for (size_t b = 0; b < sizeof bits / sizeof bits[0]; b++) {
                for (size_t i = 0; i < n; i++) src[i] = (char)('a' + i % 26);
                size_t len = n;
                if (pos < n) {
                    const size_t bl = strlen(bits[b]);
                    memmove(src + pos + bl, src + pos, n - pos);
                    memcpy(src + pos, bits[b], bl);
                    len += bl;
                }
                char *exact = malloc(len ? len : 1);
                cr_assert_not_null(exact);
                memcpy(exact, src, len);
                for (size_t f = 0; f < 3; f++) {
                    const size_t k = FMTS[f] == RS_FORMAT_TSV ? naive_tsv(src, len, want)
                                     : FMTS[f] == RS_FORMAT_CSV ? naive_csv(src, len, want)
                                                                : naive_json(src, len, want);
                    const size_t g = rs_format_value(got, RS_FORMAT_VALUE_BOUND(len), FMTS[f], exact, len);
                    cr_assert(g == k && memcmp(got, want, k) == 0, "fmt=%d n=%zu pos=%zu bit=%zu", (int)FMTS[f],
                              n, pos, b);
                    const rs_field fl = { { exact, len }, 0, 0 };
                    rs_outbuf out = { 0 };
                    cr_assert_eq(rs_format_record(&out, FMTS[f], ONE, &fl, 1), RS_OK);
                    const size_t head = FMTS[f] == RS_FORMAT_JSONL ? 7 : 0, tail = FMTS[f] == RS_FORMAT_JSONL ? 2 : 1;
                    cr_assert(out.len == head + k + tail && memcmp(out.ptr + head, want, k) == 0,
                              "record: fmt=%d n=%zu pos=%zu bit=%zu", (int)FMTS[f], n, pos, b);
                    rs_outbuf_free(&out);
                }
                free(exact);
                if (pos == n) break; /* no byte of interest: once is enough */
            }
        }
    }
}
