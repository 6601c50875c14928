/*
 * input_line.c - the --input-line column of urls and logs: the record's line
 * number in its input, first, so that `robotscan merge --records` can put
 * shard outputs back into input order (docs/scale-out.md).
 */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

#define MAX_COLUMNS 32

const char *const *cli_input_line_columns(const char *const *columns, size_t n)
{
    static const char *names[MAX_COLUMNS + 1];
    if (n > MAX_COLUMNS) n = MAX_COLUMNS;
    names[0] = "input_line";
    for (size_t i = 0; i < n; i++) names[i + 1] = columns[i];
    return names;
}

rs_status cli_input_line_put(rs_outbuf *out, size_t start, rs_format fmt, uint64_t line)
{
    char num[48];
    int k;
    size_t at = start;
    if (fmt == RS_FORMAT_JSONL) {
        k = snprintf(num, sizeof num, "\"input_line\":%llu,", (unsigned long long)line);
        at = start + 1; /* after the record's '{' */
    } else if (fmt == RS_FORMAT_CSV) {
        k = snprintf(num, sizeof num, "%llu,", (unsigned long long)line);
    } else {
        k = snprintf(num, sizeof num, "%llu\t", (unsigned long long)line);
    }
    if (at > out->len) return RS_ERR_USAGE;
    const size_t tail = out->len - at;
    CLI_TRY(rs_outbuf_append(out, num, (size_t)k)); /* grows the buffer */
    memmove(out->ptr + at + (size_t)k, out->ptr + at, tail);
    memcpy(out->ptr + at, num, (size_t)k);
    return RS_OK;
}
