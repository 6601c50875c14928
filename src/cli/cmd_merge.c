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

static const char *const ACCEPTED[] = { "--records", "--stats", "--shards", "--format", "--help", "-h", NULL };

int cmd_merge(int argc, char **argv)
{
    struct cli_opts o;
    const int prc = cli_parse("merge", ACCEPTED, argc, argv, &o);
    if (prc) return prc;
    if (o.help) {
        fputs(HELP, stdout);
        return 0;
    }
    if (o.records + o.merge_stats != 1) return cli_usage_error("merge", "give --records or --stats");
    if (o.n_args == 0) return cli_usage_error("merge", "no files to merge");
    const char *const *files = (const char *const *)o.args;
    char err[1024] = "";
    if (o.merge_stats) return finish(rs_merge_stats(files, (size_t)o.n_args, o.shards_dir, stdout, err, sizeof err), err);
    const rs_format fmt = o.format_given ? o.format : RS_FORMAT_TSV;
    if (fmt == RS_FORMAT_TEXT) return cli_usage_error("merge", "--format takes tsv, csv or jsonl, not 'text'");
    if (o.shards_dir == NULL)
        return cli_usage_error("merge", "--records needs --shards DIR (the robotscan shard output)");
    return finish(rs_merge_records(o.shards_dir, fmt, files, (size_t)o.n_args, stdout, err, sizeof err), err);
}
