/*
 * input_line.c - the header names of --input-line (the column itself is
 * rs_format_input_line): the record's line number in its input, first, so that `robotscan merge --records` can put
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
