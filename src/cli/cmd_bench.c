/*
 * cmd_bench.c - `robotscan bench`, the matcher arena (SPEC 13, docs/bench.md):
 * options, then the library's rs_bench_* (src/bench/), then the leaderboard
 * on stdout (text or JSON) and --html. `--serve` makes robotscan itself a
 * peer of the protocol (rs_bench_serve).
 */
#include "cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char HELP[] =
    "Usage: robotscan bench [--workload NAME|DIR]... [--peer NAME=COMMAND]... [--builtin-peers]\n"
    "                       [--seconds S] [--format text|json] [--html FILE] [--save DIR]\n"
    "       robotscan bench --serve\n"
    "The matcher arena: runs robots.txt matchers of any language over a line protocol on\n"
    "standard workloads and reports their speed and their agreement with Google's reference.\n"
    "\n"
    "  --workload NAME    real, hard, many-sites, big-file (repeatable; default real), or a\n"
    "                     folder written by --save\n"
    "  --peer NAME=CMD    a matcher: CMD (run by /bin/sh) reads `robots<TAB>PATH` (load that\n"
    "                     robots.txt) and `AGENT<TAB>URL` lines (answer one `allow` or\n"
    "                     `disallow` line, flushed) until end of input\n"
    "  --builtin-peers    robotscan in-process, robotscan --serve, and the adapters of\n"
    "                     scripts/peers that are installed (the others are named)\n"
    "  --seconds S        time budget of one peer on one workload (the rest is not asked)\n"
    "  --timeout S        seconds a peer may take for one answer (default 10)\n"
    "  --queries N        queries of each generated workload (default: real 200000, hard\n"
    "                     50000, many-sites 200000, big-file 20000)\n"
    "  --seed N           workload generation seed (default 1)\n"
    "  --data DIR         the bundled test data (default build/testdata/data or ../shared/data)\n"
    "  --save DIR         write each workload as DIR/NAME (input.txt, expected.txt, robots/):\n"
    "                     plain files any matcher can run without robotscan\n"
    "  --format F         text (default) or json (every figure)\n"
    "  --html FILE        the leaderboard as a self-contained page (tables and bar charts)\n"
    "  --serve            answer the protocol on stdin/stdout with robotscan's matcher\n"
    "  --verbose          say what runs, on stderr\n"
    "Exit status: 0 ok, 1 some peer crashed, hung or answered garbage, 2 usage or I/O error.\n";

static const char *const ACCEPTED[] = {
    "--workload", "--peer", "--builtin-peers", "--seconds", "--timeout", "--queries", "--seed", "--data",
    "--save", "--format", "--html", "--serve", "--verbose", "--help", NULL,
};

static void on_note(void *user, const char *line)
{
    (void)user;
    fprintf(stderr, "robotscan bench: %s\n", line);
}

static int serve(void)
{
    char err[256] = "";
    const rs_status st = rs_bench_serve(STDIN_FILENO, STDOUT_FILENO, err, sizeof err);
    if (st == RS_OK) return 0;
    cli_error("bench --serve: %s", err[0] ? err : rs_status_str(st));
    return 2;
}

/* Fails (2) with the library's message, one line: "FILE: what failed: reason" for I/O
 * (the shape of every command), "bench: ..." for the rest (it names the peer or workload). */
static int fail(const rs_bench *b, rs_status st)
{
    if (st == RS_ERR_IO) cli_error("%s", rs_bench_errmsg(b));
    else cli_error("bench: %s", st == RS_ERR_NOMEM ? "out of memory" : rs_bench_errmsg(b));
    return 2;
}

static int setup(rs_bench *b, const struct cli_opts *o, const char *self)
{
    rs_status st;
    for (int i = 0; i < o->n_peers; i++) {
        char name[128];
        const char *eq = strchr(o->peers[i], '=');
        snprintf(name, sizeof name, "%.*s", (int)(eq - o->peers[i]), o->peers[i]);
        if ((st = rs_bench_add_peer(b, name, eq + 1)) != RS_OK) return fail(b, st);
    }
    if (o->builtin_peers) {
        char missing[1024];
        if ((st = rs_bench_add_builtin_peers(b, self, missing, sizeof missing)) != RS_OK) return fail(b, st);
        if (missing[0]) cli_warn("bench: not installed, not run: %s", missing);
    }
    if (o->n_peers == 0 && !o->builtin_peers)
        return cli_usage_error("bench", "no peer: give --peer NAME=COMMAND or --builtin-peers");
    const char *dflt = "real";
    const char *const *names = o->n_workloads ? o->workloads : &dflt;
    const int n = o->n_workloads ? o->n_workloads : 1;
    for (int i = 0; i < n; i++)
        if ((st = rs_bench_add_workload(b, names[i], o->save_dir)) != RS_OK) return fail(b, st);
    return 0;
}

int cmd_bench(int argc, char **argv)
{
    struct cli_opts o;
    int rc = cli_parse("bench", ACCEPTED, argc, argv, &o);
    if (rc) return rc;
    if (o.help) {
        if (rs_outbuf_append(cli_out(), HELP, sizeof HELP - 1) != RS_OK) return 2;
        return cli_out_finish() ? 2 : 0;
    }
    if (o.n_args) return cli_usage_error("bench", "unexpected argument '%s'", o.args[0]);
    if (o.serve) {
        if (o.n_peers || o.builtin_peers || o.n_workloads)
            return cli_usage_error("bench", "--serve takes no other option (it is a peer)");
        return serve();
    }
    if (o.html_path && cli_check_writable(o.html_path, "--html") != 0) return 2;
    const rs_bench_config cfg = {
        .data_dir = o.data_dir, .seed = o.seed, .queries = o.queries, .timeout = o.timeout, .seconds = o.seconds,
    };
    rs_bench *b = NULL;
    if (rs_bench_create(&cfg, &b) != RS_OK) {
        cli_error("bench: out of memory");
        return 2;
    }
    if (o.verbose) rs_bench_set_note(b, on_note, NULL);
    rc = setup(b, &o, "/proc/self/exe");
    rs_status st = RS_OK;
    if (rc == 0 && (st = rs_bench_run(b)) != RS_OK) rc = fail(b, st);
    if (rc == 0) {
        rs_outbuf *out = cli_out();
        st = o.format_json ? rs_bench_json(b, out) : rs_bench_text(b, out);
        if (st != RS_OK) rc = fail(b, st);
    }
    if (rc == 0 && o.html_path) {
        rs_outbuf page = {0};
        st = rs_bench_html(b, &page);
        if (st != RS_OK) rc = fail(b, st);
        else if (cli_write_file(o.html_path, page.ptr, page.len, "--html") != 0) rc = 2;
        rs_outbuf_free(&page);
    }
    if (rc == 0 && rs_bench_any_failed(b)) rc = 1;
    rs_bench_free(b);
    if (cli_out_finish() != 0) return 2;
    return rc;
}
