/*
 * fuzz_report_html.c - --stats JSON -> HTML page (rs_report_html).
 * Input: one statistics document, any bytes.
 * Checks: the result is RS_OK or RS_ERR_CORRUPT (with a message); a page is
 * complete (doctype ... </html>), holds no <script (strings from the JSON
 * are escaped), and the same input renders the same page twice.
 */
#include "fuzz.h"

#include <string.h>

#include "robotscan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const rs_report_input in = { "fuzz.json", (const char *)data, size, NULL, NULL };
    rs_outbuf out = { 0 }, again = { 0 };
    char err[256];
    const rs_status st = rs_report_html(&in, 1, NULL, &out, err, sizeof err);
    FUZZ_CHECK(st == RS_OK || st == RS_ERR_CORRUPT);
    if (st == RS_ERR_CORRUPT) {
        FUZZ_CHECK(strncmp(err, "fuzz.json: ", 11) == 0 && strlen(err) > 11);
    } else {
        static const char HEAD[] = "<!DOCTYPE html>\n", TAIL[] = "</html>\n";
        FUZZ_CHECK(out.len > sizeof HEAD && memcmp(out.ptr, HEAD, sizeof HEAD - 1) == 0);
        FUZZ_CHECK(memcmp(out.ptr + out.len - (sizeof TAIL - 1), TAIL, sizeof TAIL - 1) == 0);
        FUZZ_CHECK(memmem(out.ptr, out.len, "<script", 7) == NULL);
        FUZZ_CHECK(rs_report_html(&in, 1, NULL, &again, err, sizeof err) == RS_OK);
        FUZZ_CHECK(again.len == out.len && memcmp(again.ptr, out.ptr, out.len) == 0);
    }
    rs_outbuf_free(&out);
    rs_outbuf_free(&again);
    return 0;
}
