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

#define MAX_SHARDS RS_SHARD_MAX

static const char HELP[] =
    "Usage: robotscan shard --by site -n N --out DIR [--robots PATH]... [LOG OPTIONS] INPUT...\n"
    "Splits URL lists (default) or access logs into N zstd shards by a stable hash of the\n"
    "site (scheme, host, port): all of a site's URLs or hits land in one shard. Each line\n"
    "keeps its input position (DIR/shard-K.pos) for `robotscan merge --records`.\n"
    "\n"
    "  --by site          the only partitioning (the default)\n"
    "  -n N               number of shards (1..4096)\n"
    "  --out DIR          where the shards go (created; must be empty or new)\n"
    "  --robots PATH      also split these robots sources (directory, *.tsv manifest or WARC;\n"
    "                     a single robots.txt is given to every shard): DIR/shard-K.robots\n"
    "  --logs             the inputs are access logs (implied by the options below)\n"
    "  --log-format F     as for robotscan logs (every format; auto is settled once on the\n"
    "                     input and written to DIR/shards.tsv: run the shards with it; w3c\n"
    "                     and cloudfront shards get a copy of the #Fields: line they need,\n"
    "                     taken off again by `robotscan merge --stats --shards DIR`)\n"
    "  --field NAME=KEY   as for robotscan logs (json)\n"
    "  --host HOST        the site of a log that does not name it (all lines: one shard)\n"
    "  --scheme S         as for robotscan logs (default https)\n";

/* ===== Command ===== */

/* The library's warnings (a WARC that cannot be split) on stderr. */
static void warn(void *ctx, const char *msg)
{
    (void)ctx;
    cli_warn("%s", msg);
}

static int opt_value(int argc, char **argv, int *i, const char **out)
{
    if (*i + 1 >= argc) return cli_usage_error("shard", "%s needs a value", argv[*i]);
    *out = argv[++*i];
    return 0;
}

int cmd_shard(int argc, char **argv)
{
    const char *by = "site", *n_s = NULL, *dir = NULL, *log_format = NULL, *host = NULL, *scheme = NULL;
    const char *robots[CLI_MAX_LIST], *fields[CLI_MAX_LIST];
    const char *inputs[CLI_MAX_LIST * 16];
    int n_fields = 0;
    int n_robots = 0, n_inputs = 0, logs = 0, only_pos = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int rc = 0;
        if (only_pos || a[0] != '-' || a[1] == '\0') {
            if (n_inputs == (int)(sizeof inputs / sizeof inputs[0]))
                return cli_usage_error("shard", "too many inputs");
            inputs[n_inputs++] = a;
        } else if (!strcmp(a, "--")) only_pos = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(HELP, stdout);
            return 0;
        } else if (!strcmp(a, "--by")) rc = opt_value(argc, argv, &i, &by);
        else if (!strcmp(a, "-n")) rc = opt_value(argc, argv, &i, &n_s);
        else if (!strcmp(a, "--out")) rc = opt_value(argc, argv, &i, &dir);
        else if (!strcmp(a, "--log-format")) { rc = opt_value(argc, argv, &i, &log_format); logs = 1; }
        else if (!strcmp(a, "--host")) { rc = opt_value(argc, argv, &i, &host); logs = 1; }
        else if (!strcmp(a, "--scheme")) { rc = opt_value(argc, argv, &i, &scheme); logs = 1; }
        else if (!strcmp(a, "--logs")) logs = 1;
        else if (!strcmp(a, "--field")) {
            if (n_fields == CLI_MAX_LIST) return cli_usage_error("shard", "too many --field");
            rc = opt_value(argc, argv, &i, &fields[n_fields]);
            if (rc == 0) n_fields++;
            logs = 1;
        }
        else if (!strcmp(a, "--robots")) {
            if (n_robots == CLI_MAX_LIST) return cli_usage_error("shard", "too many --robots");
            rc = opt_value(argc, argv, &i, &robots[n_robots]);
            if (rc == 0) n_robots++;
        } else return cli_usage_error("shard", "unknown option %s", a);
        if (rc) return rc;
    }
    if (strcmp(by, "site")) return cli_usage_error("shard", "--by takes site, not '%s'", by);
    if (n_s == NULL) return cli_usage_error("shard", "needs -n N");
    char *end;
    const long n = strtol(n_s, &end, 10);
    if (*end || n < 1 || n > MAX_SHARDS) return cli_usage_error("shard", "-n takes 1..%d, not '%s'", MAX_SHARDS, n_s);
    if (dir == NULL) return cli_usage_error("shard", "needs --out DIR");
    if (scheme && strcmp(scheme, "http") && strcmp(scheme, "https"))
        return cli_usage_error("shard", "--scheme takes http or https, not '%s'", scheme);
    const rs_shard_config cfg = {
        .n = (uint32_t)n, .dir = dir, .logs = logs, .log_format = log_format, .fields = fields,
        .n_fields = (size_t)n_fields, .host = host, .scheme = scheme, .robots = robots,
        .n_robots = (size_t)n_robots, .warn = warn, .warn_ctx = NULL,
    };
    char err[1536] = "";
    const rs_status st = rs_shard_split(&cfg, inputs, (size_t)n_inputs, err, sizeof err);
    if (st == RS_ERR_USAGE) return cli_usage_error("shard", "%s", err);
    if (st != RS_OK) cli_error("%s", err[0] ? err : rs_status_str(st));
    return st == RS_OK ? 0 : 2;
}
