/*
 * cli.h - what the subcommands share: the parsed options, usage errors,
 * reading small files, and buffered stdout with error checking.
 * Only src/cli has main(), exit() and process-wide state.
 */
#ifndef RS_CLI_H
#define RS_CLI_H

#include "robotscan.h"

#define CLI_MAX_LIST 64

/* Returns a failed rs_status to the caller. */
#define CLI_TRY(expr) do { const rs_status cli_st_ = (expr); if (cli_st_ != RS_OK) return cli_st_; } while (0)

/* Options of every command; args.c fills and validates, nothing runs meanwhile. */
struct cli_opts {
    const char *command;                /* "check", "urls", ... */
    const char *robots[CLI_MAX_LIST];   /* --robots, repeatable */
    int         n_robots;
    const char **agents;                /* --agent, repeatable, any number (args.c keeps them) */
    int         n_agents;
    rs_format   format;                 /* --format (default: text on a tty, else tsv) */
    int         format_given;
    int         encode_urls;            /* --encode-urls */
    rs_semantics semantics;             /* --semantics google|first-match */
    const char *missing;                /* --missing allow|disallow|skip */
    const char *only;                   /* --only ... */
    const char *stats_path;             /* --stats FILE.json */
    const char *html_path;              /* --html FILE: the stats as a page (commands with --stats) */
    int         quiet;                  /* --quiet */
    int         verbose;                /* --verbose */
    int         progress;               /* --progress / --no-progress: 1 / 0; -1 = auto */
    int         jobs;                   /* -j N */
    int         fail_on;                /* --fail-on-disallowed / --fail-on-violation */
    const char *host;                   /* --host */
    const char *scheme;                 /* --scheme */
    const char *log_format;             /* --log-format */
    const char *fields[CLI_MAX_LIST];   /* --field NAME=KEY (logs, json formats) */
    int         n_fields;
    const char *verify[CLI_MAX_LIST];   /* --verify [TOKEN=]FILE (logs) */
    int         n_verify;
    const char *memory_limit;           /* --memory-limit SIZE (logs, urls) */
    int         help;                   /* --help */
    int         input_line;             /* --input-line: input line number as a first column */
    const char *agents_file;            /* --agents FILE (survey) */
    int         keep_going;             /* --keep-going: skip corrupt WARC records */
    /* bench (SPEC 13) */
    const char *workloads[CLI_MAX_LIST]; /* --workload NAME|DIR, repeatable */
    int         n_workloads;
    const char *peers[CLI_MAX_LIST];    /* --peer NAME=COMMAND, repeatable */
    int         n_peers;
    int         builtin_peers;          /* --builtin-peers */
    int         serve;                  /* --serve: answer the protocol on stdin/stdout */
    int         format_json;            /* --format json (bench) */
    const char *save_dir;               /* --save DIR */
    const char *data_dir;               /* --data DIR */
    double      seconds;                /* --seconds S (0: none) */
    double      timeout;                /* --timeout S (0: default) */
    uint64_t    queries;                /* --queries N (0: default) */
    uint64_t    seed;                   /* --seed N (0: default) */
    /* shard, merge, report */
    const char *by;                     /* --by site (shard) */
    const char *shard_count;            /* -n N (shard) */
    const char *out_dir;                /* --out DIR (shard) */
    int         logs;                   /* --logs (shard) */
    int         records;                /* --records (merge) */
    int         merge_stats;            /* --stats without a value (merge) */
    const char *shards_dir;             /* --shards DIR (merge) */
    const char *output;                 /* -o, --output FILE (report) */
    const char *title;                  /* --title TEXT (report) */
    const char *site;                   /* --site TEXT (report) */
    char      **args;                   /* positional arguments: argv compacted in place (not allocated) */
    int         n_args;
};

/* Which options a command accepts: a NULL-terminated list of long names. */
int cli_parse(const char *command, const char *const *accepted, int argc, char **argv,
              struct cli_opts *opts);

/* Prints "robotscan CMD: message" and a hint to stderr; returns 2 (exit code). */
int cli_usage_error(const char *command, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Prints "robotscan: message" to stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Reads at most @max bytes of a file (the rest is left unread; *truncated set).
 * On failure prints a message naming the file and returns -1. */
int cli_read_file(const char *path, size_t max, char **data, size_t *size, int *truncated);

/* Like cli_read_file for a robots.txt: gzip/zstd content is decoded (at most @max bytes
 * kept); damaged compressed data is an error naming the file. */
int cli_read_robots(const char *path, size_t max, char **data, size_t *size);

/* --agents FILE (diff, survey): one token a line, '#' comments and blanks skipped; each is
 * cut out of *@text in place (NUL-terminated; free *@text and *@list). @return 0, or -1
 * after a message (also when the file names no agent). */
int cli_read_agents(const char *path, char **text, const char ***list, size_t *n);

/* Warns when --agent is not a pure product token (SPEC 2.2.12). */
void cli_check_agent(const char *agent);

/* Buffered stdout. cli_out_flush writes when the buffer holds >= @threshold bytes.
 * @return 0, or -1 after printing an error (exit 2). */
rs_outbuf *cli_out(void);
int cli_out_flush(size_t threshold);
/* Writes what the buffer holds, then @len bytes at @p, with no copy (large blocks of records).
 * @return 0, or -1 after printing an error (exit 2). */
int cli_out_write(const void *p, size_t len);
/* Writes @len bytes to @path (a temporary file renamed over it); @what names it in the error message.
 * @return 0, or -1 after an error message. */
int cli_write_file(const char *path, const void *data, size_t len, const char *what);
/* Checks, before any work, that cli_write_file can write @path (its directory writable,
 * the file, if present, a writable non-directory). @return 0, or -1 after an error message. */
int cli_check_writable(const char *path, const char *what);
/* Final flush and close of stdout; @return 0 or -1 after an error message. */
int cli_out_finish(void);

int cmd_check(int argc, char **argv);
int cmd_urls(int argc, char **argv);
int cmd_logs(int argc, char **argv);
int cmd_lint(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_survey(int argc, char **argv);
int cmd_sitemaps(int argc, char **argv);
int cmd_report(int argc, char **argv);

/* --html (cmd_report.c), accepted by the commands cli_html_supported lists (those
 * that call cli_write_html). cli_parse calls cli_html_prepare: with --html and no
 * --stats it points stats_path at a memory file. After writing the stats, a
 * command calls cli_write_html, which renders them to html_path (no-op
 * without --html). @return 0, or 2 / -1 after an error message. */
int cli_html_supported(const char *command);
int cli_html_prepare(struct cli_opts *o);
int cli_write_html(const struct cli_opts *o);

int cmd_shard(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_merge(int argc, char **argv);

#endif /* RS_CLI_H */
