/*
 * main.c - the robotscan command: dispatch to a subcommand.
 */
#include "cli/cli.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command COMMANDS[] = {
    { "check", cmd_check, "one robots.txt, one agent, URLs -> a verdict per URL" },
    { "urls",  cmd_urls,  "a URL list + many sites' robots.txt -> verdict stream and statistics" },
    { "logs",  cmd_logs,  "access logs + robots.txt -> which bot hits broke robots.txt or crawl-delay" },
    { "lint",  cmd_lint,  "robots.txt files -> per-line diagnostics (typos, unsupported lines, size)" },
    { "diff",  cmd_diff,  "the same URLs or logs under two robots.txt versions or two semantics -> what flips" },
    { "survey", cmd_survey, "many sites' robots.txt x agents -> who is blocked where" },
    { "sitemaps", cmd_sitemaps, "many sites' robots.txt -> their Sitemap: URLs" },
    { "report", cmd_report, "--stats JSON files -> one self-contained HTML page with charts" },
    { "shard", cmd_shard, "split URL lists or logs by site into N zstd shards (for several machines)" },
    { "merge", cmd_merge, "merge shard outputs (--records) or --stats JSON files into one run's" },
    { "bench", cmd_bench, "the matcher arena: any matcher over a line protocol vs the reference -> speed, agreement" },
};

static void usage(FILE *f)
{
    fprintf(f, "robotscan %s - may this crawler fetch this URL? (RFC 9309, as Google's parser)\n\n"
               "Usage: robotscan COMMAND [OPTIONS] [ARGS]\n\nCommands:\n", rs_version_string());
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        fprintf(f, "  %-8s %s\n", COMMANDS[i].name, COMMANDS[i].summary);
    fprintf(f, "\nRun 'robotscan COMMAND --help' for a command's options.\n"
               "Exit status: 0 ok, 1 findings (check: a URL is disallowed), 2 usage or I/O error.\n");
}

/* Bulk commands read plain input files through a mapping (rs_reader_opts.map):
 * a file that shrinks while it is read (a log truncated in place by its
 * rotation, say) raises SIGBUS at the missing bytes. That is an I/O error
 * like any other: said on stderr, exit 2, never a crash. Spill files are
 * already unlinked, so nothing is left behind. */
static void on_sigbus(int sig)
{
    (void)sig;
    static const char msg[] = "robotscan: an input file shrank or could not be read while "
                              "it was being read (SIGBUS); the output is incomplete\n";
    ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)w;
    _exit(2);
}

int main(int argc, char **argv)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigbus;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);

    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("robotscan %s\n", rs_version_string());
        return 0;
    }
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (!strcmp(argv[1], COMMANDS[i].name)) return COMMANDS[i].run(argc - 2, argv + 2);
    fprintf(stderr, "robotscan: unknown command '%s'\nTry 'robotscan --help'.\n", argv[1]);
    return 2;
}
