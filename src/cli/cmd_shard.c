/*
 * cmd_shard.c - `robotscan shard`: options, then the library's
 * rs_shard_split (src/shard/split.c), which splits URL lists or access logs
 * into N zstd shards by a stable hash of each line's site, with the input
 * position of each line and, with --robots, the robots sources of each shard
 * (SPEC 12, docs/scale-out.md; the files it writes are listed there).
 */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SHARDS RS_SHARD_MAX

static const char HELP[] =
    "Usage: robotscan shard --by site -n N --out DIR [--robots PATH]... [LOG OPTIONS] INPUT...\n"
    "Splits URL lists (default) or access logs into N zstd shards by a stable hash of the\n"
    "site (scheme, host, port): all of a site's URLs or hits land in one shard, K = 0..N-1\n"
    "written with four digits: DIR/shard-0000.zst, DIR/shard-0001.zst, ... Each line keeps\n"
    "its input position (DIR/shard-0000.pos, ...) for `robotscan merge --records`;\n"
    "DIR/shards.tsv records the split. On success one line on stderr says what was\n"
    "written and what to run next.\n"
    "\n"
    "  --by site          the only partitioning (the default)\n"
    "  -n N               number of shards (1..4096)\n"
    "  --out DIR          where the shards go (created; must be empty or new)\n"
    "  --robots PATH      also split these robots sources (directory, *.tsv manifest or WARC;\n"
    "                     a single robots.txt is given to every shard): DIR/shard-0000.robots, ...\n"
    "  --logs             the inputs are access logs (implied by the options below)\n"
    "  --log-format F     as for robotscan logs (every format; auto is settled once on the\n"
    "                     input and written to DIR/shards.tsv: run the shards with it; w3c\n"
    "                     and cloudfront shards get a copy of the #Fields: line they need,\n"
    "                     taken off again by `robotscan merge --stats --shards DIR`)\n"
    "  --field NAME=KEY   as for robotscan logs (json)\n"
    "  --host HOST        the site of a log that does not name it (all lines: one shard)\n"
    "  --scheme S         as for robotscan logs (default https)\n";

/* ===== Command ===== */

/* One line on stderr after a split: what DIR/shards.tsv records, and the next step. */
static void summary(const char *dir, long n)
{
    char path[4096], line[4096], kind[32] = "urls";
    unsigned long long lines = 0;
    snprintf(path, sizeof path, "%s/shards.tsv", dir);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f)) {
        if (sscanf(line, "kind\t%31s", kind) == 1) continue;
        (void)sscanf(line, "lines\t%llu", &lines);
    }
    if (f) fclose(f);
    snprintf(path, sizeof path, "%s/shard-0000.robots", dir);
    const int robots = access(path, F_OK) == 0;
    const int logs = strcmp(kind, "urls") != 0;
    fprintf(stderr, "robotscan shard: %llu %s into %ld shard%s in %s (shard-0000.zst .. shard-%04ld.zst, each with "
                    ".pos%s; shards.tsv); next: robotscan %s --input-line ... %s/shard-K.zst per shard, then "
                    "robotscan merge --records --shards %s OUT_0 .. OUT_%ld\n",
            lines, logs ? (lines == 1 ? "log line" : "log lines") : (lines == 1 ? "URL line" : "URL lines"), n,
            n == 1 ? "" : "s", dir, n - 1, robots ? " and .robots" : "", logs ? "logs" : "urls", dir, dir, n - 1);
}

/* The library's warnings (a WARC that cannot be split) on stderr. */
static void warn(void *ctx, const char *msg)
{
    (void)ctx;
    cli_warn("%s", msg);
}

static const char *const ACCEPTED[] = {
    "--by", "-n", "--out", "--log-format", "--host", "--scheme", "--logs", "--field", "--robots", "--help", "-h",
    NULL,
};

int cmd_shard(int argc, char **argv)
{
    struct cli_opts o;
    const int prc = cli_parse("shard", ACCEPTED, argc, argv, &o);
    if (prc) return prc;
    if (o.help) {
        fputs(HELP, stdout);
        return 0;
    }
    const char *by = o.by ? o.by : "site", *n_s = o.shard_count, *dir = o.out_dir;
    const char *log_format = o.log_format, *host = o.host, *scheme = o.scheme;
    const int logs = o.logs || log_format || host || scheme || o.n_fields;
    if (strcmp(by, "site")) return cli_usage_error("shard", "--by takes site, not '%s'", by);
    if (n_s == NULL) return cli_usage_error("shard", "needs -n N");
    char *end;
    const long n = strtol(n_s, &end, 10);
    if (*end || n < 1 || n > MAX_SHARDS) return cli_usage_error("shard", "-n takes 1..%d, not '%s'", MAX_SHARDS, n_s);
    if (dir == NULL) return cli_usage_error("shard", "needs --out DIR");
    if (scheme && strcmp(scheme, "http") && strcmp(scheme, "https"))
        return cli_usage_error("shard", "--scheme takes http or https, not '%s'", scheme);
    const rs_shard_config cfg = {
        .n = (uint32_t)n, .dir = dir, .logs = logs, .log_format = log_format, .fields = o.fields,
        .n_fields = (size_t)o.n_fields, .host = host, .scheme = scheme, .robots = o.robots,
        .n_robots = (size_t)o.n_robots, .warn = warn, .warn_ctx = NULL,
    };
    char err[1536] = "";
    const rs_status st = rs_shard_split(&cfg, (const char *const *)o.args, (size_t)o.n_args, err, sizeof err);
    if (st == RS_ERR_USAGE) return cli_usage_error("shard", "%s", err);
    if (st != RS_OK) cli_error("%s", err[0] ? err : rs_status_str(st));
    else summary(dir, n);
    return st == RS_OK ? 0 : 2;
}
