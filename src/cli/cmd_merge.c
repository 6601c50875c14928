/*
 * cmd_merge.c - `robotscan merge`: options, then the library's
 * rs_merge_records (the outputs of shards back into input order) or
 * rs_merge_stats (--stats JSON files into the statistics of one run over
 * all the input), written to stdout (src/shard/merge.c, docs/scale-out.md).
 */
#include "cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char HELP[] =
    "Usage: robotscan merge --records --shards DIR [--format tsv|csv|jsonl] OUT_0 ... OUT_N-1\n"
    "       robotscan merge --stats [--shards DIR] A.json B.json ... > all.json\n"
    "--records: OUT_K is the output of shard K of DIR (robotscan shard) from `robotscan urls`\n"
    "or `robotscan logs` run with --input-line; the records are written to stdout in input\n"
    "order, without the input_line column: the output of one run over the whole input.\n"
    "--stats: merges the --stats files of runs over disjoint parts of an input (same\n"
    "command and schema_version): sums, minima, maxima and keyed lists as described in\n"
    "docs/scale-out.md. With --shards DIR (the stats of every shard of DIR, in any order),\n"
    "the #Fields: lines shard copied into W3C-style log shards are taken off lines and blank.\n";

/* Merges into stdout; the library's message on failure. @return the exit code. */
static int finish(rs_status st, const char *err)
{
    if (st != RS_OK) cli_error("%s", err[0] ? err : rs_status_str(st));
    if (fflush(stdout) != 0 && st == RS_OK) {
        cli_error("error writing output: %s", strerror(errno));
        st = RS_ERR_IO;
    }
    if (cli_out_finish() != 0) return 2;
    return st == RS_OK ? 0 : 2;
}

/* ===== Command ===== */

int cmd_merge(int argc, char **argv)
{
    int records = 0, stats = 0;
    const char *dir = NULL, *format = "tsv";
    char **files = calloc((size_t)argc + 1, sizeof *files);
    int n = 0;
    if (files == NULL) return 2;
    int rc = -1;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(HELP, stdout);
            rc = 0;
            goto done;
        } else if (!strcmp(a, "--records")) records = 1;
        else if (!strcmp(a, "--stats")) stats = 1;
        else if ((!strcmp(a, "--shards") || !strcmp(a, "--format")) && i + 1 < argc) {
            if (a[2] == 's') dir = argv[++i];
            else format = argv[++i];
        } else if (a[0] == '-' && a[1] != '\0') {
            rc = cli_usage_error("merge", "unknown option %s", a);
            goto done;
        } else files[n++] = argv[i];
    }
    if (records + stats != 1) {
        rc = cli_usage_error("merge", "give --records or --stats");
        goto done;
    }
    if (n == 0) {
        rc = cli_usage_error("merge", "no files to merge");
        goto done;
    }
    char err[1024] = "";
    if (stats) {
        rc = finish(rs_merge_stats((const char *const *)files, (size_t)n, dir, stdout, err, sizeof err), err);
        goto done;
    }
    rs_format fmt;
    if (rs_format_parse(format, &fmt) != 0 || fmt == RS_FORMAT_TEXT) {
        rc = cli_usage_error("merge", "--format takes tsv, csv or jsonl, not '%s'", format);
        goto done;
    }
    if (dir == NULL) {
        rc = cli_usage_error("merge", "--records needs --shards DIR (the robotscan shard output)");
        goto done;
    }
    rc = finish(rs_merge_records(dir, fmt, (const char *const *)files, (size_t)n, stdout, err, sizeof err), err);
done:
    free(files);
    return rc < 0 ? 2 : rc;
}
