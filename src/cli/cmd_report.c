/*
 * cmd_report.c - `robotscan report STATS.json... -o report.html`: --stats
 * files of the bulk commands -> one self-contained HTML page (rs_report_html),
 * and the same for `--html FILE` on logs and urls, which renders the run's
 * own statistics (written to a memory file when no --stats was given).
 * Reading and writing files is here; the page itself is the library's.
 */
#include "cli/cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const char HELP[] =
    "Usage: robotscan report [OPTIONS] STATS.json [STATS.json...]\n"
    "\n"
    "Renders the --stats JSON of `robotscan logs`, `urls`, `survey`, `diff` or `sitemaps`\nas one "
    "self-contained HTML page: charts as inline SVG, each beside a table of the same\n"
    "numbers; no scripts and nothing fetched from the network, so it opens from disk\n"
    "and prints. Several files give one page with a section each. For logs, the page\n"
    "leads with the site, the period and the crawlers that broke robots.txt; user-\n"
    "triggered fetchers and HTTP libraries are shown apart (robots.txt governs crawlers).\n"
    "(`logs`, `urls`, `survey` and `diff` also take --html FILE for their own run.)\n"
    "\n"
    "Options:\n"
    "  -o, --output FILE   write the page to FILE (default: stdout)\n"
    "  --title TEXT        the page's title (default: the sites, the period, the robots.txt)\n"
    "  --site TEXT         the site(s) audited, as the page names them (default: the origins\n"
    "                      the statistics name)\n"
    "  --robots TEXT       the robots.txt the run used, as the page names it (a statistics\n"
    "                      file does not record it)\n"
    "\n"
    "Exit status: 0 ok; 2 usage error, unreadable file, or statistics that are not\n"
    "valid JSON, not robotscan's, or of a schema version this robotscan does not know.\n";

/* Statistics files are small; this bounds a mistaken argument (a log file). */
#define REPORT_MAX_INPUT ((size_t)1 << 30)

/* Renders @n files into @out_path (NULL or "-": stdout). @return 0 or 2 (after a message). */
static int render_files(const char *const *paths, const char *const *names, int n, const char *title,
                        const char *sites, const char *robots, const char *out_path)
{
    rs_report_input *in = calloc((size_t)n, sizeof *in);
    char **data = calloc((size_t)n, sizeof *data);
    int rc = 0;
    if (in == NULL || data == NULL) {
        cli_error("out of memory");
        rc = 2;
    }
    for (int i = 0; rc == 0 && i < n; i++) {
        size_t size;
        int truncated;
        if (cli_read_file(paths[i], REPORT_MAX_INPUT, &data[i], &size, &truncated) != 0) {
            rc = 2;
            break;
        }
        if (truncated) {
            cli_error("'%s' is larger than 1 GiB: not a statistics file", paths[i]);
            rc = 2;
            break;
        }
        in[i] = (rs_report_input){ names[i], data[i], size, sites, robots };
    }
    rs_outbuf page = { 0 };
    char err[512];
    if (rc == 0) {
        const rs_status st = rs_report_html(in, (size_t)n, title, &page, err, sizeof err);
        if (st == RS_ERR_CORRUPT) {
            cli_error("%s", err);
            rc = 2;
        } else if (st != RS_OK) {
            cli_error("cannot render the report: %s", rs_status_str(st));
            rc = 2;
        }
    }
    if (rc == 0) {
        if (out_path == NULL || strcmp(out_path, "-") == 0) {
            if (rs_outbuf_append(cli_out(), page.ptr, page.len) != RS_OK || cli_out_flush(0) != 0) rc = 2;
        } else if (cli_write_file(out_path, page.ptr, page.len, "the report") != 0) {
            rc = 2;
        }
    }
    rs_outbuf_free(&page);
    for (int i = 0; data && i < n; i++) free(data[i]);
    free(data);
    free(in);
    return rc;
}

static const char *const ACCEPTED[] = { "-o", "--output", "--title", "--site", "--robots", "--help", "-h", NULL };

int cmd_report(int argc, char **argv)
{
    struct cli_opts o;
    const int prc = cli_parse("report", ACCEPTED, argc, argv, &o);
    if (prc) return prc;
    if (o.help) {
        fputs(HELP, stdout);
        return 0;
    }
    if (o.n_args == 0) return cli_usage_error("report", "needs at least one STATS.json (written by --stats)");
    if (o.output && o.output[0] == '\0') return cli_usage_error("report", "-o needs a file name");
    if (o.n_robots > 1) return cli_usage_error("report", "--robots names the robots.txt once");
    const char *const *files = (const char *const *)o.args;
    int rc = render_files(files, files, o.n_args, o.title, o.site, o.n_robots ? o.robots[0] : NULL, o.output);
    if (cli_out_finish() != 0) rc = 2;
    return rc;
}

/* ===== --html on logs and urls ===== */

/* The commands whose cmd_*.c calls cli_write_html after writing --stats. Another
 * command gets --html by one line after its write_stats,
 *     if (rc == 0 && cli_write_html(&o) != 0) rc = 2;
 * and its name here (until then, --html is an unknown option for it). */
int cli_html_supported(const char *command)
{
    static const char *const WITH_HTML[] = { "logs", "urls", "survey", "diff" };
    for (size_t i = 0; i < sizeof WITH_HTML / sizeof WITH_HTML[0]; i++)
        if (!strcmp(command, WITH_HTML[i])) return 1;
    return 0;
}

static int stats_memfd = -1;
static char stats_memfd_path[64];

int cli_html_prepare(struct cli_opts *o)
{
    if (o->html_path == NULL || o->stats_path != NULL) return 0;
    /* No --stats: the run writes its statistics to a memory file instead. */
    stats_memfd = memfd_create("robotscan-stats", MFD_CLOEXEC);
    if (stats_memfd < 0) {
        cli_error("--html: cannot create a memory file for the statistics: %s", strerror(errno));
        return 2;
    }
    snprintf(stats_memfd_path, sizeof stats_memfd_path, "/proc/self/fd/%d", stats_memfd);
    o->stats_path = stats_memfd_path;
    return 0;
}

int cli_write_html(const struct cli_opts *o)
{
    if (o->html_path == NULL) return 0;
    const int own = o->stats_path == stats_memfd_path;
    const char *name = own ? "this run" : o->stats_path;
    /* What the run audited, which the statistics do not record: --host and --robots. */
    char robots[1024] = "";
    size_t len = 0;
    for (int i = 0; i < o->n_robots && len < sizeof robots; i++)
        len += (size_t)snprintf(robots + len, sizeof robots - len, "%s%s", i ? ", " : "", o->robots[i]);
    const int rc = render_files(&o->stats_path, &name, 1, NULL, o->host, robots[0] ? robots : NULL, o->html_path);
    if (own) {
        close(stats_memfd);
        stats_memfd = -1;
    }
    return rc ? -1 : 0;
}
