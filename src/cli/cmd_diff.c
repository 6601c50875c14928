/*
 * cmd_diff.c - `robotscan diff`: the same URLs (or log hits) under two
 * robots.txt versions, or two semantics of one -> what flips (SPEC 9).
 *
 * Options, checks of the sides, the summary text and the files only: the
 * engine is the library's diff job (robotscan.h, "The diff job"; src/diff/run.c),
 * whose records go to stdout and diagnostics to stderr (cli_job_io).
 */
#include "cli/cli.h"
#include "cli/bulk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static const char HELP[] =
    "Usage: robotscan diff --old PATH --new PATH [OPTIONS] [FILE...]\n"
    "       robotscan diff --robots PATH --old-semantics S --new-semantics S [OPTIONS] [FILE...]\n"
    "\n"
    "Decides every URL of a list (one per line; plain, .zst or .gz; stdin when no FILE)\n"
    "under two sides and reports what flips: two versions of the robots.txt sources\n"
    "(--old, --new), or one source read with two semantics (--robots with\n"
    "--old-semantics and --new-semantics, e.g. google vs first-match). Both sides are\n"
    "decided in one pass over the input.\n"
    "\n"
    "Sides (each PATH as urls --robots takes it: a robots.txt FILE for every URL, a\n"
    "DIRECTORY of HOST[.txt] files, a MANIFEST.tsv, or a WARC of robots.txt captures):\n"
    "  --old PATH, --new PATH     the sources before and after (each repeatable, in priority order)\n"
    "  --robots PATH              one set of sources for both sides (repeatable)\n"
    "  --old-semantics S, --new-semantics S   google or first-match (default: --semantics)\n"
    "  --semantics S              both sides' semantics (default google)\n"
    "\n"
    "Options:\n"
    "  --agent TOKEN        compare for this crawler (repeatable, any number; default: '*',\n"
    "                       Googlebot, bingbot, where '*' is a crawler no group names, so\n"
    "                       only the 'User-agent: *' groups apply to it; records name it '*')\n"
    "  --agents FILE        the agents, one per line ('#' comments; e.g. data/ai-agents.txt);\n"
    "                       every agent is compared in the same one pass over the input\n"
    "  --logs               the inputs are access logs: each bot hit is a URL of weight 1,\n"
    "                       agents are the bots found (--agent keeps only those); records\n"
    "                       are per (bot, URL) with their hits, in first-seen order\n"
    "  --log-format F, --field NAME=KEY, --host HOST, --scheme S\n"
    "                       as for robotscan logs (with --logs; every format logs reads)\n"
    "  --all                print every compared record, not only flips\n"
    "  --rules              after the records, the rule-level diff per origin and agent\n"
    "  --format FMT         text, tsv, csv or jsonl (default: text on a terminal, else tsv)\n"
    "  --quiet              no records; the summary on stdout\n"
    "  --stats FILE.json    counts per agent and per (origin, agent); sums only (mergeable)\n"
    "  --html FILE          also write the statistics as an HTML page (see robotscan report)\n"
    "  --missing WHAT       origins a side does not know: allow (default), disallow, or skip\n"
    "                       (a pair with a skipped side is not compared)\n"
    "  --encode-urls        percent-encode non-ASCII path bytes before matching\n"
    "  -j, --jobs N         worker threads (default 1); output order is kept\n"
    "  --verbose            report malformed lines with their line numbers\n"
    "  --progress, --no-progress\n"
    "  --fail-on-change     exit 1 when anything flips\n"
    "\n"
    "Columns: url, origin, agent, old_verdict, old_line, old_rule, new_verdict, new_line,\n"
    "         new_rule, hits   (hits: 1 per URL line; with --logs the bot's hits on the URL)\n"
    "A flip is a verdict that differs (newly-disallowed, newly-allowed); the same verdict\n"
    "from another rule is not a flip. The summary (stderr; stdout with --quiet) gives per\n"
    "agent and per origin: compared, newly disallowed, newly allowed, unchanged.\n"
    "\n"
    "--rules rows: origin, agent, change, rule, old_line, new_line, probe, old_verdict,\n"
    "new_verdict (a line of 0: the rule is not on that side; the text format leaves it\n"
    "out). A rule is its type and canonical pattern (its line may move):\n"
    "  added            on the new side only (for that agent)\n"
    "  removed          on the old side only\n"
    "  changed-effect   on both sides, and its probe path gets a different verdict on the\n"
    "                   two sides; the probe is the shortest path the pattern names: every\n"
    "                   '*' removed, a final '$' dropped, '/' put in front if missing\n"
    "TSV/CSV: the rule rows follow the records after an empty line, with their own header;\n"
    "JSONL: objects with \"kind\":\"rule\"; only (origin, agent) pairs with a change.\n"
    "\n"
    "Bad input: one side missing (--old without --new), --robots mixed with --old/--new,\n"
    "--robots without two different semantics, or both sides the same sources (the same\n"
    "files, also by another name) with the same semantics: usage error, exit 2. A side\n"
    "that cannot be read: error naming it, exit 2. Sources of different kinds: a plain\n"
    "robots.txt FILE answers every origin while a DIRECTORY, MANIFEST or WARC answers per\n"
    "origin, so a side with a FILE and a side without one is a usage error (exit 2);\n"
    "per-origin kinds may be mixed (a directory vs a WARC): an origin one side does not\n"
    "know is no-robots there (--missing decides its verdict).\n"
    "Exit status: 0 ok; 1 with --fail-on-change when something flips; 2 usage or I/O error.\n";

static const char *const ACCEPTED[] = {
    "--robots", "--agent", "--format", "--quiet", "--stats", "--missing", "--encode-urls",
    "--semantics", "-j", "--jobs", "--verbose", "--progress", "--no-progress", "--help",
    "--host", "--scheme", "--log-format", "--field", "--html", "--agents", NULL,
};

/* ===== Options of diff itself (the rest go through cli_parse) ===== */

typedef struct {
    const char *paths[CLI_MAX_LIST];
    int n;
    rs_semantics sem;
    int sem_given;
} side_opts;

typedef struct {
    side_opts side[2];       /* [0] old, [1] new */
    int logs, all, rules, fail_on_change;
} diff_opts;

static int parse_semantics(const char *name, const char *v, rs_semantics *out)
{
    if (!strcmp(v, "google")) *out = RS_SEMANTICS_GOOGLE;
    else if (!strcmp(v, "first-match")) *out = RS_SEMANTICS_FIRST_MATCH;
    else return cli_usage_error("diff", "%s takes google or first-match, not '%s'", name, v);
    return 0;
}

/*
 * Takes diff's own options out of argv (into @d) and leaves the others, in
 * order, in @rest for cli_parse. Values of cli_parse's options are skipped
 * so that a value is never read as an option.
 */
static int extract_options(int argc, char **argv, diff_opts *d, char **rest, int *n_rest)
{
    static const char *const VALUED[] = {
        "--robots", "--agent", "--format", "--semantics", "--missing", "--stats", "-j", "--jobs",
        "--host", "--scheme", "--log-format", "--field", "--html", "--agents", NULL,
    };
    int n = 0, positional = 0;
    for (int i = 0; i < argc; i++) {
        char *a = argv[i];
        if (positional || a[0] != '-' || a[1] == '\0') { rest[n++] = a; continue; }
        if (!strcmp(a, "--")) { positional = 1; rest[n++] = a; continue; }
        const char *eq = strchr(a, '=');
        const size_t nlen = eq ? (size_t)(eq - a) : strlen(a);
        const char *value = eq ? eq + 1 : NULL;
#define IS(s) (nlen == strlen(s) && !strncmp(a, (s), nlen))
        if (IS("--old") || IS("--new") || IS("--old-semantics") || IS("--new-semantics")) {
            char name[32];
            snprintf(name, sizeof name, "%.*s", (int)nlen, a);
            if (value == NULL) {
                if (i + 1 >= argc) return cli_usage_error("diff", "%s needs a value", name);
                value = argv[++i];
            }
            side_opts *s = &d->side[name[2] == 'n'];
            if (strstr(name, "semantics")) {
                if (parse_semantics(name, value, &s->sem)) return 2;
                s->sem_given = 1;
            } else {
                if (s->n >= CLI_MAX_LIST) return cli_usage_error("diff", "too many %s options", name);
                s->paths[s->n++] = value;
            }
            continue;
        }
        int *flag = IS("--logs") ? &d->logs : IS("--all") ? &d->all : IS("--rules") ? &d->rules
                  : IS("--fail-on-change") ? &d->fail_on_change : NULL;
        if (flag) {
            if (value) return cli_usage_error("diff", "%.*s takes no value", (int)nlen, a);
            *flag = 1;
            continue;
        }
        rest[n++] = a;
        int valued = 0;
        for (const char *const *v = VALUED; *v; v++) valued |= IS(*v);
#undef IS
        if (valued && value == NULL && i + 1 < argc) rest[n++] = argv[++i];
    }
    *n_rest = n;
    return 0;
}

/* ===== Sides: checks before opening ===== */

/* 1: a plain robots.txt file (answers every origin); 0: per-origin (directory, manifest, WARC). */
static int is_catch_all(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || S_ISDIR(st.st_mode)) return 0;
    const size_t n = strlen(path);
    if (n >= 4 && !strcasecmp(path + n - 4, ".tsv")) return 0;
    return !rs_is_warc_file(path);   /* a WARC, plain or compressed, answers per origin */
}

/* Every path of both sides can be opened for reading; 2 after naming the first that cannot. */
static int check_readable(const diff_opts *d)
{
    static const char *const NAME[2] = { "--old", "--new" };
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < d->side[s].n; i++) {
            const char *p = d->side[s].paths[i];
            const int fd = open(p, O_RDONLY);
            if (fd < 0) {
                cli_error("cannot read %s '%s': %s", NAME[s], p, strerror(errno));
                return 2;
            }
            close(fd);
        }
    return 0;
}

/* 1 when both sides name the same files (device and inode), in the same order. */
static int same_sources(const side_opts *a, const side_opts *b)
{
    if (a->n != b->n) return 0;
    for (int i = 0; i < a->n; i++) {
        struct stat x, y;
        if (stat(a->paths[i], &x) != 0 || stat(b->paths[i], &y) != 0) return 0;
        if (x.st_dev != y.st_dev || x.st_ino != y.st_ino) return 0;
    }
    return 1;
}

static int has_catch_all(const side_opts *s)
{
    for (int i = 0; i < s->n; i++)
        if (is_catch_all(s->paths[i])) return 1;
    return 0;
}

/* ===== Summary ===== */

static void put(rs_outbuf *b, const char *s) { rs_outbuf_append(b, s, strlen(s)); }

static void summary_text(rs_outbuf *o, int logs, const rs_job_diff_summary *s, const rs_job_totals *c)
{
    char line[512];
    snprintf(line, sizeof line,
             "diff: %llu lines, %llu %s compared: %llu newly disallowed, %llu newly allowed, %llu unchanged"
             "; malformed %llu, skipped %llu\n",
             (unsigned long long)c->lines, (unsigned long long)s->total[RS_DIFF_COMPARED],
             logs ? "bot hits" : "(URL, agent) pairs",
             (unsigned long long)s->total[RS_DIFF_NEWLY_DISALLOWED],
             (unsigned long long)s->total[RS_DIFF_NEWLY_ALLOWED],
             (unsigned long long)s->total[RS_DIFF_UNCHANGED], (unsigned long long)c->malformed,
             (unsigned long long)c->skipped);
    put(o, line);
    if (logs) {
        snprintf(line, sizeof line, "non-bot lines %llu; bot on one side only %llu; bot named differently %llu\n",
                 (unsigned long long)s->non_bot, (unsigned long long)s->bot_one_side,
                 (unsigned long long)s->bot_named_differently);
        put(o, line);
    }
    snprintf(line, sizeof line, "%-24s %10s %18s %18s %10s\n", logs ? "bot" : "agent",
             logs ? "hits" : "compared", "newly-disallowed", "newly-allowed", "unchanged");
    put(o, line);
    for (size_t a = 0; a < s->n_agents; a++) {
        const rs_job_diff_row *r = &s->agents[a];
        const uint64_t all = r->c[RS_DIFF_HITS];
        char nd[48], na[48];
        if (logs) {
            snprintf(nd, sizeof nd, "%llu (%.1f%%)", (unsigned long long)r->c[RS_DIFF_HITS_NEWLY_DISALLOWED],
                     all ? 100.0 * (double)r->c[RS_DIFF_HITS_NEWLY_DISALLOWED] / (double)all : 0.0);
            snprintf(na, sizeof na, "%llu (%.1f%%)", (unsigned long long)r->c[RS_DIFF_HITS_NEWLY_ALLOWED],
                     all ? 100.0 * (double)r->c[RS_DIFF_HITS_NEWLY_ALLOWED] / (double)all : 0.0);
        } else {
            snprintf(nd, sizeof nd, "%llu", (unsigned long long)r->c[RS_DIFF_NEWLY_DISALLOWED]);
            snprintf(na, sizeof na, "%llu", (unsigned long long)r->c[RS_DIFF_NEWLY_ALLOWED]);
        }
        snprintf(line, sizeof line, "%-24.*s %10llu %18s %18s %10llu\n", (int)r->agent.len, r->agent.ptr,
                 (unsigned long long)(logs ? all : r->c[RS_DIFF_COMPARED]), nd, na,
                 (unsigned long long)(logs ? r->c[RS_DIFF_HITS_UNCHANGED] : r->c[RS_DIFF_UNCHANGED]));
        put(o, line);
    }
    size_t flipped = 0;
    while (flipped < s->n_pairs && s->pairs[flipped].c[RS_DIFF_COMPARED] != s->pairs[flipped].c[RS_DIFF_UNCHANGED])
        flipped++;
    if (flipped == 0) return;
    snprintf(line, sizeof line, "origins with flips (%zu (origin, %s) pairs%s):\n", flipped,
             logs ? "bot" : "agent", flipped > 20 ? ", the 20 with most; all in --stats" : "");
    put(o, line);
    for (size_t i = 0; i < flipped && i < 20; i++) {
        const rs_job_diff_row *p = &s->pairs[i];
        snprintf(line, sizeof line, "  %.*s  %.*s  compared %llu, newly disallowed %llu, newly allowed %llu, unchanged %llu\n",
                 (int)p->origin.len, p->origin.ptr, (int)p->agent.len, p->agent.ptr,
                 (unsigned long long)p->c[RS_DIFF_COMPARED], (unsigned long long)p->c[RS_DIFF_NEWLY_DISALLOWED],
                 (unsigned long long)p->c[RS_DIFF_NEWLY_ALLOWED], (unsigned long long)p->c[RS_DIFF_UNCHANGED]);
        put(o, line);
    }
}

/* ===== Command ===== */

/* Validates the sides. @return 0, or 2 after a message. */
static int check_sides(const struct cli_opts *o, diff_opts *d)
{
    side_opts *old = &d->side[0], *nw = &d->side[1];
    for (int s = 0; s < 2; s++)
        if (!d->side[s].sem_given) d->side[s].sem = o->semantics;
    if (o->n_robots) {
        if (old->n || nw->n)
            return cli_usage_error("diff", "give either --robots (two semantics of one source) or --old and --new, not both");
        if (!old->sem_given || !nw->sem_given)
            return cli_usage_error("diff", "--robots compares two semantics of one source: give --old-semantics "
                                           "and --new-semantics (or --old PATH --new PATH for two versions)");
        if (old->sem == nw->sem)
            return cli_usage_error("diff", "--old-semantics and --new-semantics are the same: nothing can flip");
        for (int i = 0; i < o->n_robots; i++) old->paths[i] = nw->paths[i] = o->robots[i];
        old->n = nw->n = o->n_robots;
    } else {
        if (old->n == 0 && nw->n == 0)
            return cli_usage_error("diff", "needs --old PATH and --new PATH (or --robots PATH with "
                                           "--old-semantics and --new-semantics)");
        if (old->n == 0) return cli_usage_error("diff", "needs --old PATH too (the robots sources before the change)");
        if (nw->n == 0) return cli_usage_error("diff", "needs --new PATH too (the robots sources after the change)");
    }
    if (check_readable(d)) return 2;
    if (!o->n_robots && old->sem == nw->sem && same_sources(old, nw))
        return cli_usage_error("diff", "--old and --new are the same sources with the same semantics: nothing can "
                                       "flip (to compare semantics: --robots PATH --old-semantics S --new-semantics S)");
    if (!o->n_robots) {
        const int a = has_catch_all(old), b = has_catch_all(nw);
        if (a != b)
            return cli_usage_error("diff", "%s has a robots.txt file (one for every URL) and %s has only per-origin "
                                           "sources (directory, manifest, WARC): give sources of the same kind",
                                   a ? "--old" : "--new", a ? "--new" : "--old");
    }
    return 0;
}

/* The log options are usable (with --logs), or absent (without). @return 0, or 2 after a message. */
static int check_log_options(const struct cli_opts *o, const diff_opts *d)
{
    if (!d->logs) {
        if (o->host || o->scheme || o->log_format || o->n_fields)
            return cli_usage_error("diff", "--host, --scheme, --log-format and --field go with --logs");
        return 0;
    }
    const char *scheme = o->scheme ? o->scheme : "https";
    if (strcmp(scheme, "http") && strcmp(scheme, "https"))
        return cli_usage_error("diff", "--scheme takes http or https, not '%s'", scheme);
    const char *spec = o->log_format ? o->log_format : "combined";
    char err[256] = "";
    rs_logparser *probe = NULL;
    if (rs_logparser_create(spec, strlen(spec), o->fields, (size_t)o->n_fields, err, sizeof err, &probe) != RS_OK)
        return cli_usage_error("diff", "bad --log-format: %s", err[0] ? err : "cannot compile");
    const unsigned fields = rs_logparser_fields(probe);
    rs_logparser_free(probe);
    if (!(fields & RS_LOGF_HOST) && o->host == NULL)
        return cli_usage_error("diff", "this log format does not name the site: give --host HOST");
    if (!(fields & RS_LOGF_USER_AGENT))
        return cli_usage_error("diff", "this log format has no user agent: bots cannot be found");
    return 0;
}

/* The job's settings from the options. @return 0, or 2 after a message. */
static int configure(rs_job *job, const struct cli_opts *o, const diff_opts *d, const char *const *agents,
                     size_t n_agents)
{
    const rs_missing missing = !strcmp(o->missing, "allow") ? RS_MISSING_ALLOW
                               : !strcmp(o->missing, "disallow") ? RS_MISSING_DISALLOW : RS_MISSING_SKIP;
    rs_status st = RS_OK;
    /* --robots: both sides read the same sources (the new side has none of its own) */
    for (int i = 0; i < d->side[0].n && st == RS_OK; i++) st = rs_job_add_robots(job, d->side[0].paths[i]);
    for (int i = 0; i < d->side[1].n && !o->n_robots && st == RS_OK; i++)
        st = rs_job_add_robots_new(job, d->side[1].paths[i]);
    for (size_t a = 0; a < n_agents && st == RS_OK; a++) st = rs_job_add_agent(job, agents[a]);
    if (st == RS_OK) st = rs_job_set(job, RS_JOB_SEMANTICS, d->side[0].sem);
    if (st == RS_OK) st = rs_job_set(job, RS_JOB_SEMANTICS_NEW, d->side[1].sem);
    if (st == RS_OK) st = rs_job_set(job, RS_JOB_WORKERS, o->jobs);
    if (st == RS_OK) st = rs_job_set(job, RS_JOB_MISSING, missing);
    if (st == RS_OK) st = rs_job_set(job, RS_JOB_ENCODE_URLS, o->encode_urls);
    if (st == RS_OK) st = rs_job_set(job, RS_JOB_FORMAT, o->format);
    if (st == RS_OK) st = rs_job_set(job, RS_JOB_VERBOSE, o->verbose);
    if (st == RS_OK) st = rs_job_set(job, RS_JOB_NO_RECORDS, o->quiet);
    if (st == RS_OK) st = rs_job_set(job, RS_JOB_DIFF_ALL, d->all);
    if (st == RS_OK) st = rs_job_set(job, RS_JOB_DIFF_RULES, d->rules);
    if (st == RS_OK) st = rs_job_set(job, RS_JOB_DIFF_LOGS, d->logs);
    if (st == RS_OK && o->log_format) st = rs_job_set_string(job, RS_JOB_LOG_FORMAT, o->log_format);
    if (st == RS_OK && o->host) st = rs_job_set_string(job, RS_JOB_HOST, o->host);
    if (st == RS_OK && o->scheme) st = rs_job_set_string(job, RS_JOB_SCHEME, o->scheme);
    for (int i = 0; i < o->n_fields && st == RS_OK; i++) st = rs_job_set_string(job, RS_JOB_FIELD, o->fields[i]);
    if (st == RS_OK) st = cli_job_io(job, o);
    if (st == RS_OK) return 0;
    cli_error("%s", rs_job_errmsg(job));
    return 2;
}

/* After the inputs (all read, or the last one damaged): the log records and the rule diff
 * (rs_job_finish), the summary, the statistics. @return 0 or 2; *@flips: something flipped. */
static int finish(rs_job *job, const struct cli_opts *o, const diff_opts *d, int *flips)
{
    int rc = 0;
    if (rs_job_finish(job) != RS_OK) rc = cli_job_error(job);
    rs_job_diff_summary s;
    if (rs_job_diff_summary_get(job, &s) != RS_OK) return 2;    /* the error was printed */
    *flips = s.total[RS_DIFF_NEWLY_DISALLOWED] + s.total[RS_DIFF_NEWLY_ALLOWED] > 0;
    rs_job_totals t;
    rs_job_totals_get(job, &t);
    rs_outbuf e = { 0 };
    summary_text(o->quiet ? cli_out() : &e, d->logs, &s, &t);
    if (cli_out_flush(0) != 0) rc = 2;  /* records first, then the summary */
    if (e.len) fwrite(e.ptr, 1, e.len, stderr);
    rs_outbuf_free(&e);
    if (rc == 0 && o->stats_path && cli_job_stats(job, o->stats_path) != 0) rc = 2;
    if (rc == 0 && cli_write_html(o) != 0) rc = 2;
    return rc;
}

int cmd_diff(int argc, char **argv)
{
    diff_opts d;
    memset(&d, 0, sizeof d);
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    if (rest == NULL) { cli_error("out of memory"); return 2; }
    int n_rest = 0, rc = extract_options(argc, argv, &d, rest, &n_rest);
    struct cli_opts o;
    if (rc == 0) rc = cli_parse("diff", ACCEPTED, n_rest, rest, &o);
    if (rc == 0 && o.help) fputs(HELP, stdout);
    if (rc == 0 && !o.help) rc = check_sides(&o, &d);
    if (rc == 0 && !o.help) rc = check_log_options(&o, &d);
    if (rc == 0 && !o.help && o.n_agents && o.agents_file)
        rc = cli_usage_error("diff", "give --agent or --agents, not both");
    if (rc || o.help) {
        free(rest);
        return rc;
    }

    /* agents: --agent, --agents FILE, or the job's default ('*', Googlebot, bingbot) */
    char *agents_text = NULL;
    const char **file_agents = NULL;
    size_t n_file_agents = 0;
    if (o.agents_file && cli_read_agents(o.agents_file, &agents_text, &file_agents, &n_file_agents) != 0) rc = 2;
    if (rc == 0 && !d.logs)
        for (int i = 0; i < o.n_agents; i++)
            if (strcmp(o.agents[i], "*")) cli_check_agent(o.agents[i]);
    const char *const *agents = o.agents_file ? file_agents : o.agents;
    const size_t n_agents = o.agents_file ? n_file_agents : (size_t)o.n_agents;

    int flips = 0;
    rs_job *job = rc ? NULL : rs_job_create(RS_JOB_DIFF);
    if (rc == 0 && job == NULL) { cli_error("out of memory"); rc = 2; }
    if (rc == 0) rc = configure(job, &o, &d, agents, n_agents);
    if (rc == 0) {
        rc = cli_job_run_inputs(job, &o);
        /* a damaged input (its error printed): the summary of what was read, then exit 2 */
        const int input_failed = rc != 0 && rs_job_input_failed(job);
        if (rc == 0 || input_failed) {
            const int frc = finish(job, &o, &d, &flips);
            if (frc) rc = frc;
        }
    }
    cli_job_close(job);     /* the sides' sites go with the process (cli_sites_close) */
    free(file_agents);
    free(agents_text);
    free(rest);
    if (cli_out_finish() != 0) rc = 2;
    if (rc) return 2;
    return d.fail_on_change && flips ? 1 : 0;
}
