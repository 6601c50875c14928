/*
 * cmd_urls.c - `robotscan urls`: options -> a urls job of the library
 * (robotscan.h, "Bulk jobs"; the engine is src/job/urls.c), its records on
 * stdout, its diagnostics on stderr, the summary and the statistics file.
 */
#include "cli/cli.h"
#include "cli/bulk.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char HELP[] =
    "Usage: robotscan urls --robots PATH [--robots PATH...] --agent TOKEN [--agent TOKEN...] [OPTIONS] [FILE...]\n"
    "\n"
    "Decides, for every URL of a list (one per line; plain, .zst or .gz, detected from\n"
    "the content; stdin when no FILE or FILE is -), whether crawler TOKEN may fetch it\n"
    "under its site's robots.txt. Blank lines and lines starting with # are skipped.\n"
    "\n"
    "Robots sources (--robots, repeatable, first that knows the origin wins):\n"
    "  FILE            one robots.txt for every URL\n"
    "  DIRECTORY       one file per host: HOST, HOST.txt, HOST:PORT[.txt], HOST/robots.txt\n"
    "  MANIFEST.tsv    lines ORIGIN<TAB>STATUS<TAB>FILE (STATUS: HTTP status or 'error')\n"
    "\n"
    "Options:\n"
    "  --agent TOKEN          the crawler's product token (required); repeatable: one record\n"
    "                         per URL per agent, a URL's records together in --agent order\n"
    "                         (text output then names the agent after the verdict)\n"
    "  --format FMT           text, tsv, csv or jsonl (default: text on a terminal, else tsv)\n"
    "  --only WHICH           print only 'allowed' or 'disallowed' records (or allow, disallow)\n"
    "  --quiet                print only the summary\n"
    "  --stats FILE.json      write counts by verdict, reason, origin and rule\n"
    "  --missing WHAT         origins no source knows: allow (default), disallow or skip\n"
    "  --encode-urls          percent-encode non-ASCII path bytes before matching\n"
    "  --semantics S          google (default) or first-match\n"
    "  -j, --jobs N           worker threads (default 1); output order is kept\n"
    "  --memory-limit SIZE    keep the loaded robots.txt under about SIZE (default 1G; e.g.\n"
    "                         512M, 2G; none: no limit). When the hosts of the input would\n"
    "                         not fit, the rest of it is partitioned by host into temporary\n"
    "                         zstd files in $TMPDIR (else /tmp), removed at exit, and the\n"
    "                         partitions are run by the -j workers, with the sites of some\n"
    "                         of them loaded at a time (half of SIZE); the output is the\n"
    "                         same, in input order\n"
    "  --verbose              report each malformed line with its line number (without it,\n"
    "                         one line at the end gives their count and the first of them)\n"
    "  --html FILE            also write the statistics as an HTML page (see robotscan report)\n"
    "  --progress, --no-progress   progress on stderr (default: when stderr is a terminal)\n"
    "  --fail-on-disallowed   exit 1 when any URL is disallowed\n"
    "  --input-line           an input_line column first (for robotscan merge --records)\n"
    "\n"
    "Columns: url, origin, agent, verdict, line, rule, reason\n"
    "  reason: matched, no-match, unavailable (3xx/4xx: allow all),\n"
    "          unreachable (5xx/error: disallow all), no-robots (no source knows the origin)\n"
    "Exit status: 0 ok; 1 with --fail-on-disallowed when a URL is disallowed; 2 usage or I/O error.\n";

static const char *const ACCEPTED[] = {
    "--robots", "--agent", "--format", "--only", "--quiet", "--stats", "--missing", "--encode-urls",
    "--semantics", "-j", "--jobs", "--verbose", "--progress", "--no-progress",
    "--fail-on-disallowed", "--memory-limit", "--input-line", "--help", NULL,
};

static void summary_text(rs_outbuf *o, const rs_job_totals *c)
{
    char line[512];
    snprintf(line, sizeof line,
             "lines %llu, URLs %llu: allowed %llu, disallowed %llu; malformed %llu, skipped %llu\n"
             "reasons: matched %llu, no-match %llu, unavailable %llu, unreachable %llu, no-robots %llu\n"
             "time %.3f s, %.0f URLs/s\n",
             (unsigned long long)c->lines, (unsigned long long)c->records,
             (unsigned long long)c->verdict[0], (unsigned long long)c->verdict[1],
             (unsigned long long)c->malformed, (unsigned long long)c->skipped,
             (unsigned long long)c->reason[RS_REASON_MATCHED], (unsigned long long)c->reason[RS_REASON_NO_MATCH],
             (unsigned long long)c->reason[RS_REASON_UNAVAILABLE], (unsigned long long)c->reason[RS_REASON_UNREACHABLE],
             (unsigned long long)c->reason[RS_REASON_NO_ROBOTS], c->seconds,
             c->seconds > 0 ? (double)c->records / c->seconds : 0.0);
    rs_outbuf_append(o, line, strlen(line));
}

/* The job's settings from the options. @return 0, or 2 after a message. */
static int configure(rs_job *job, const struct cli_opts *o, rs_sites *sites, uint64_t limit)
{
    int only = 0;
    if (o->only) only = !strcmp(o->only, "allowed") ? 1 : 2;
    const rs_missing missing = !strcmp(o->missing, "allow") ? RS_MISSING_ALLOW
                               : !strcmp(o->missing, "disallow") ? RS_MISSING_DISALLOW : RS_MISSING_SKIP;
    rs_status st = rs_job_use_sites(job, sites);
    for (int a = 0; a < o->n_agents && st == RS_OK; a++) st = rs_job_add_agent(job, o->agents[a]);
    if (st == RS_OK) st = rs_job_set(job, RS_JOB_MEMORY_LIMIT, (int64_t)limit);
    if (st == RS_OK) st = rs_job_set(job, RS_JOB_SEMANTICS, o->semantics);
    if (st == RS_OK) st = rs_job_set(job, RS_JOB_MISSING, missing);
    if (st == RS_OK) st = rs_job_set(job, RS_JOB_ENCODE_URLS, o->encode_urls);
    if (st == RS_OK) st = rs_job_set(job, RS_JOB_ONLY, only);
    if (st == RS_OK) st = cli_job_common(job, o);
    if (st == RS_OK) return 0;
    cli_error("%s", rs_job_errmsg(job));
    return 2;
}

/* Summary, end-of-job notes, statistics and exit status. */
static int finish(const struct cli_opts *o, rs_job *job, int rc)
{
    rs_job_totals t;
    rs_job_totals_get(job, &t);
    if (o->quiet && rc == 0) {
        summary_text(cli_out(), &t);
        if (cli_out_flush(0) != 0) rc = 2;
    } else if (o->verbose) {
        if (cli_out_flush(0) != 0) rc = 2; /* records first, then the summary */
        rs_outbuf e = { 0 };
        summary_text(&e, &t);
        fwrite(e.ptr, 1, e.len, stderr);
        rs_outbuf_free(&e);
    }
    if (cli_out_flush(0) != 0) rc = 2; /* the records, then the notes */
    if (rs_job_finish(job) != RS_OK) rc = cli_job_error(job);
    if (rc == 0 && o->stats_path && cli_job_stats(job, o->stats_path) != 0) rc = 2;
    if (rc == 0 && cli_write_html(o) != 0) rc = 2;
    if (cli_out_finish() != 0) rc = 2;
    if (rc) return 2;
    return o->fail_on && t.verdict[1] > 0 ? 1 : 0;
}

int cmd_urls(int argc, char **argv)
{
    struct cli_opts o;
    int rc = cli_parse("urls", ACCEPTED, argc, argv, &o);
    if (rc) return rc;
    if (o.help) {
        fputs(HELP, stdout);
        return 0;
    }
    if (o.n_robots < 1) return cli_usage_error("urls", "needs at least one --robots PATH");
    if (o.n_agents < 1) return cli_usage_error("urls", "needs at least one --agent TOKEN");
    if (o.only && strcmp(o.only, "allowed") && strcmp(o.only, "disallowed"))
        return cli_usage_error("urls", "--only takes allowed or disallowed, not '%s'", o.only);
    for (int a = 0; a < o.n_agents; a++) cli_check_agent(o.agents[a]);

    rs_sites *sites = NULL;
    /* urls reports verdicts only: matchers are all a loaded site needs to keep. */
    const rs_sites_options so = { .drop_rules = 1 };
    if (cli_sites_open_opts(&o, &so, &sites) != 0) return 2;
    uint64_t limit = (uint64_t)1 << 30;
    if (o.memory_limit && strcmp(o.memory_limit, "none") == 0) limit = 0;
    else if (o.memory_limit && rs_parse_size(o.memory_limit, &limit) != RS_OK) {
        rs_sites_free(sites);
        return cli_usage_error("urls", "--memory-limit takes a size of at least 1M (e.g. 512M, 2G) or none, "
                               "not '%s'", o.memory_limit);
    }
    rs_job *job = rs_job_create(RS_JOB_URLS);
    if (job == NULL) {
        rs_sites_free(sites);
        cli_error("out of memory");
        return 2;
    }
    rc = configure(job, &o, sites, limit);
    if (rc == 0) rc = cli_job_run_inputs(job, &o);
    rc = finish(&o, job, rc);
    rs_job_free(job);
    cli_sites_close(sites);
    return rc;
}
