/* test_format.c - record formats: TSV, CSV, JSON lines, text. */
#include <criterion/criterion.h>
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
