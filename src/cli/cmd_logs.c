/*
 * cmd_logs.c - `robotscan logs`: options -> a logs job of the library
 * (robotscan.h, "Bulk jobs"; the engine is src/job/logs.c, the crawl-delay
 * pass src/log/delay.c): its records on stdout, its diagnostics on stderr,
 * the per-bot summary, the statistics file and the exit status.
 */
#include "cli/cli.h"
#include "cli/bulk.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static const char HELP[] =
    "Usage: robotscan logs --robots PATH [--robots PATH...] [OPTIONS] [FILE...]\n"
    "\n"
    "Reads access logs (plain, .zst or .gz, detected from the content; stdin when no\n"
    "FILE or FILE is -), finds the hits of crawlers, and reports which ones broke the\n"
    "site's robots.txt (disallowed URL) or its Crawl-delay (came sooner than the delay\n"
    "after the same bot's previous hit on the same site, /robots.txt fetches included).\n"
    "\n"
    "Options:\n"
    "  --robots PATH        robots.txt file, directory of HOST[.txt] files, or manifest .tsv\n"
    "  --host HOST          the site, for logs whose lines do not name it: a host\n"
    "                       (example.com, example.com:8080) or an origin (https://example.com)\n"
    "  --scheme S           scheme of the site (default https; vhost logs: port 443 -> https,\n"
    "                       other ports -> http)\n"
    "  --log-format F       combined (default), common, vhost_combined, cloudfront, w3c (IIS,\n"
    "                       columns from #Fields: lines), alb, json, cloudflare, auto (picked\n"
    "                       from the first lines), an nginx log_format string\n"
    "                       ('$remote_addr - [$time_local] \"$request\" ...') or an Apache\n"
    "                       LogFormat string ('%h %l %u %t \"%r\" %>s %b \"%{User-Agent}i\"')\n"
    "  --field NAME=KEY     json: read NAME (time, client, host, port, scheme, method, url,\n"
    "                       request, protocol, status, bytes, referer, user_agent) from KEY, a\n"
    "                       dotted path into nested objects (repeatable); the defaults read\n"
    "                       Caddy and nginx escape=json logs\n"
    "  --verify [TOKEN=]FILE  published crawler IP ranges (repeatable): Google's googlebot.json,\n"
    "                       special-crawlers.json, user-triggered-fetchers.json, or a CIDR list\n"
    "                       for TOKEN; adds the verified column (yes/no/unknown), counts spoofed\n"
    "                       hits apart, and attributes hits without a user agent by client IP\n"
    "  --agent TOKEN        audit only this crawler (repeatable)\n"
    "  --format FMT         text, tsv, csv or jsonl (default: text on a terminal, else tsv)\n"
    "  --only violations    print only disallowed or crawl-delay-violating hits\n"
    "  --quiet              print only the per-bot summary (in the --format given, else text)\n"
    "  --stats FILE.json    per bot: hits, violations, distinct violated paths, top rules,\n"
    "                       crawl-delay violations, robots.txt fetches, verified/spoofed hits;\n"
    "                       per hour and per day counts; schema_version 2 (mergeable counts)\n"
    "  --semantics S        google (default) or first-match\n"
    "  -j, --jobs N         worker threads (default 1; w3c, cloudfront and auto read with 1)\n"
    "  --memory-limit SIZE  memory budget (default 1G): past a quarter of it, bot-hit records\n"
    "                       and crawl-delay entries spill to temporary zstd files in $TMPDIR\n"
    "                       (removed at exit); the output is the same\n"
    "  --verbose            report malformed lines with their line numbers (without it, their\n"
    "                       count is in the summary, or one line on stderr when the output has none)\n"
    "  --html FILE          also write the statistics as an HTML page (see robotscan report)\n"
    "  --progress, --no-progress\n"
    "  --fail-on-violation  exit 1 when any hit is a violation\n"
    "  --input-line         an input_line column first (for robotscan merge --records)\n"
    "\n"
    "Columns: time (ISO 8601 UTC), client, origin, agent, user_agent, method, url, status,\n"
    "         verdict, line, rule, reason, delay_violation, verified (with --verify)\n"
    "Hits on /robots.txt itself are never violations (reason robots-txt).\n"
    "When most of the first lines of a log do not parse, nothing is reported: exit 2 with\n"
    "the format that would read them.\n"
    "Exit status: 0 ok; 1 with --fail-on-violation when a violation was found; 2 usage or I/O\n"
    "error, or a log in another format.\n";

static const char *const ACCEPTED[] = {
    "--robots", "--host", "--scheme", "--log-format", "--field", "--verify", "--agent", "--format", "--only", "--quiet",
    "--stats", "--semantics", "-j", "--jobs", "--verbose", "--progress", "--no-progress", "--memory-limit",
    "--fail-on-violation", "--input-line", "--help", NULL,
};

/* ===== Summary ===== */

static void put(rs_outbuf *b, const char *s) { rs_outbuf_append(b, s, strlen(s)); }

/* The per-bot summary: a text table, or rows in the --format given. */
static void summary(rs_outbuf *o, rs_format format, const rs_job_logs_summary *s)
{
    char line[768];
    const int verify = s->verify;
    if (format == RS_FORMAT_TEXT) {
        snprintf(line, sizeof line,
                 "lines %llu: bot hits %llu, non-bot hits %llu, other bots %llu, malformed %llu, blank %llu%s",
                 (unsigned long long)s->lines, (unsigned long long)s->bot_hits,
                 (unsigned long long)s->non_bot_hits, (unsigned long long)s->other_bot_hits,
                 (unsigned long long)s->malformed, (unsigned long long)s->blank, verify ? "" : "\n");
        put(o, line);
        if (verify) {
            snprintf(line, sizeof line, ", spoofed %llu, by client IP %llu\n",
                     (unsigned long long)s->spoofed, (unsigned long long)s->by_ip);
            put(o, line);
        }
        snprintf(line, sizeof line, "%-24s %9s %10s %11s %8s %9s  %-22s%s\n", "agent", "hits", "disallowed",
                 "crawl-delay", "paths", "robots.txt", "first robots.txt fetch",
                 verify ? "  verified  spoofed  spoofed-disallowed" : "");
        put(o, line);
    } else if (format == RS_FORMAT_JSONL) {
        snprintf(line, sizeof line,
                 "{\"lines\":%llu,\"bot_hits\":%llu,\"non_bot_hits\":%llu,\"other_bot_hits\":%llu,"
                 "\"malformed\":%llu,\"blank\":%llu,\"spoofed\":%llu}\n",
                 (unsigned long long)s->lines, (unsigned long long)s->bot_hits,
                 (unsigned long long)s->non_bot_hits, (unsigned long long)s->other_bot_hits,
                 (unsigned long long)s->malformed, (unsigned long long)s->blank, (unsigned long long)s->spoofed);
        put(o, line);
    } else {
        const char *sep = format == RS_FORMAT_CSV ? "," : "\t";
        snprintf(line, sizeof line, "agent%shits%sdisallowed%sdelay_violations%sdistinct_violated_paths%s"
                 "robots_txt_fetches%sfirst_robots_txt_fetch%sverified%sunverified%sspoofed%sspoofed_disallowed\n",
                 sep, sep, sep, sep, sep, sep, sep, sep, sep, sep);
        put(o, line);
    }
    for (size_t i = 0; i < s->n_bots; i++) {
        const rs_job_logs_bot *b = &s->bots[i];
        char first[40];
        snprintf(first, sizeof first, "%s", b->first_fetch);
        if (format == RS_FORMAT_JSONL) {   /* a JSON string, or null */
            char q[44];
            snprintf(q, sizeof q, b->has_first_fetch ? "\"%s\"" : "null", first);
            memcpy(first, q, strlen(q) + 1 < sizeof first ? strlen(q) + 1 : sizeof first);
            first[sizeof first - 1] = '\0';
        }
        if (format == RS_FORMAT_TEXT) {
            snprintf(line, sizeof line, "%-24.*s %9llu %10llu %11llu %8llu %9llu  %-22s", (int)b->agent.len,
                     b->agent.ptr, (unsigned long long)b->hits, (unsigned long long)b->disallowed,
                     (unsigned long long)b->delay_violations, (unsigned long long)b->distinct_paths,
                     (unsigned long long)b->robots_fetches, first);
            put(o, line);
            if (verify) {
                snprintf(line, sizeof line, "  %8llu %8llu %19llu", (unsigned long long)b->verified,
                         (unsigned long long)b->spoofed, (unsigned long long)b->spoofed_disallowed);
                put(o, line);
            }
            /* no trailing blanks */
            while (o->len && o->ptr[o->len - 1] == ' ') o->len--;
            put(o, "\n");
            continue;
        }
        if (format == RS_FORMAT_JSONL) {
            put(o, "{\"agent\":");
            rs_outbuf_json_string(o, b->agent.ptr, b->agent.len);
        } else {
            rs_outbuf_append(o, b->agent.ptr, b->agent.len);   /* tokens have no separators */
        }
#define ROW_ARGS (unsigned long long)b->hits, (unsigned long long)b->disallowed, \
                 (unsigned long long)b->delay_violations, (unsigned long long)b->distinct_paths, \
                 (unsigned long long)b->robots_fetches, first, (unsigned long long)b->verified, \
                 (unsigned long long)b->unverified, (unsigned long long)b->spoofed, \
                 (unsigned long long)b->spoofed_disallowed
        if (format == RS_FORMAT_JSONL)
            snprintf(line, sizeof line,
                     ",\"hits\":%llu,\"disallowed\":%llu,\"delay_violations\":%llu,\"distinct_violated_paths\":%llu,"
                     "\"robots_txt_fetches\":%llu,\"first_robots_txt_fetch\":%s,\"verified\":%llu,"
                     "\"unverified\":%llu,\"spoofed\":%llu,\"spoofed_disallowed\":%llu}\n", ROW_ARGS);
        else if (format == RS_FORMAT_CSV)
            snprintf(line, sizeof line, ",%llu,%llu,%llu,%llu,%llu,%s,%llu,%llu,%llu,%llu\n", ROW_ARGS);
        else
            snprintf(line, sizeof line, "\t%llu\t%llu\t%llu\t%llu\t%llu\t%s\t%llu\t%llu\t%llu\t%llu\n", ROW_ARGS);
#undef ROW_ARGS
        put(o, line);
    }
}

/* ===== Options ===== */

/*
 * --host: a host (`example.com`, `example.com:8080`, `[2001:db8::1]:8443`)
 * or an origin (`https://example.com`, a final `/` allowed). Writes the
 * host[:port] to @host and the origin's scheme (or NULL) to *scheme.
 * @return 0, or -1 when @v is neither.
 */
static int parse_host_option(const char *v, char *host, size_t cap, const char **scheme)
{
    *scheme = NULL;
    const char *p = v;
    if (strncasecmp(p, "https://", 8) == 0) { *scheme = "https"; p += 8; }
    else if (strncasecmp(p, "http://", 7) == 0) { *scheme = "http"; p += 7; }
    else if (strstr(p, "://") != NULL) return -1;
    size_t n = strlen(p);
    if (*scheme && n && p[n - 1] == '/') n--;
    if (n == 0 || n >= cap) return -1;
    size_t i = 0;
    if (p[0] == '[') {
        const char *close = memchr(p, ']', n);
        if (close == NULL || close == p + 1) return -1;
        for (const char *q = p + 1; q < close; q++)
            if (!(strchr("0123456789abcdefABCDEF:.", *q) && *q)) return -1;
        i = (size_t)(close - p) + 1;
    } else {
        for (; i < n && p[i] != ':'; i++) {
            const unsigned char c = (unsigned char)p[i];
            if (!(c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                  || c == '-' || c == '.' || c == '_'))
                return -1;
        }
        if (i == 0 || p[0] == '.' || p[0] == '-') return -1;
    }
    if (i < n) {   /* :port */
        if (p[i] != ':' || i + 1 == n || n - i - 1 > 5) return -1;
        long port = 0;
        for (size_t k = i + 1; k < n; k++) {
            if (p[k] < '0' || p[k] > '9') return -1;
            port = port * 10 + (p[k] - '0');
        }
        if (port < 1 || port > 65535) return -1;
    }
    memcpy(host, p, n);
    host[n] = '\0';
    return 0;
}

/* The job's settings from the options. @return 0, or 2 after a message. */
static int configure(rs_job *job, const struct cli_opts *o, const char *host, const char *scheme, uint64_t limit)
{
    rs_status st = RS_OK;
    for (int i = 0; i < o->n_robots && st == RS_OK; i++) st = rs_job_add_robots(job, o->robots[i]);
    for (int i = 0; i < o->n_agents && st == RS_OK; i++) st = rs_job_add_agent(job, o->agents[i]);
    for (int i = 0; i < o->n_fields && st == RS_OK; i++) st = rs_job_set_string(job, RS_JOB_FIELD, o->fields[i]);
    for (int i = 0; i < o->n_verify && st == RS_OK; i++) st = rs_job_set_string(job, RS_JOB_VERIFY, o->verify[i]);
    if (st == RS_OK && o->log_format) st = rs_job_set_string(job, RS_JOB_LOG_FORMAT, o->log_format);
    if (st == RS_OK && host) st = rs_job_set_string(job, RS_JOB_HOST, host);
    if (st == RS_OK) st = rs_job_set_string(job, RS_JOB_SCHEME, scheme);
    if (st == RS_OK) st = rs_job_set(job, RS_JOB_MEMORY_LIMIT, (int64_t)limit);
    if (st == RS_OK) st = rs_job_set(job, RS_JOB_SEMANTICS, o->semantics);
    if (st == RS_OK) st = rs_job_set(job, RS_JOB_ONLY, o->only ? 1 : 0);
    if (st == RS_OK) st = cli_job_common(job, o);
    if (st == RS_OK) return 0;
    cli_error("%s", rs_job_errmsg(job));
    return 2;
}

/* A failed run: a bad --verify is a usage error, anything else the job's error. @return 2. */
static int run_error(rs_job *job, rs_status st)
{
    if (st == RS_ERR_USAGE) return cli_usage_error("logs", "%s", rs_job_errmsg(job));
    return cli_job_error(job);
}

/* Runs every input (stdin when none). @return 0, or 2 after the error (later inputs are not read). */
static int run_inputs(rs_job *job, const struct cli_opts *o)
{
    if (o->n_args == 0 && isatty(STDIN_FILENO))
        return cli_usage_error(o->command, "no input FILE given and stdin is a terminal: name a "
                                           "file, or pipe one in (- reads stdin)");
    const int n = o->n_args ? o->n_args : 1;
    for (int i = 0; i < n; i++) {
        const rs_status st = rs_job_run(job, o->n_args ? o->args[i] : NULL);
        if (st != RS_OK) return run_error(job, st);
    }
    return 0;
}

/* ===== Command ===== */

/* After "this log format has no user agent": when the first input's first lines read as
 * a format that has one (a combined log given --log-format common), say so, as the
 * wrong-format message does. */
static void hint_richer_format(const struct cli_opts *o)
{
    if (o->n_args == 0 || strcmp(o->args[0], "-") == 0) return;   /* stdin is not read twice */
    rs_reader_opts ro;
    memset(&ro, 0, sizeof ro);
    ro.block_size = (size_t)1 << 16;
    rs_reader *r = NULL;
    rs_block b;
    if (rs_reader_open(o->args[0], &ro, &r) == RS_OK && rs_reader_next_block(r, &b) == RS_OK) {
        const char *would = rs_log_detect(b.ptr, b.len);
        rs_logparser *p = NULL;
        char err[256];
        if (would && rs_logparser_create(would, strlen(would), NULL, 0, err, sizeof err, &p) == RS_OK
            && (rs_logparser_fields(p) & RS_LOGF_USER_AGENT))
            fprintf(stderr, "hint: %s reads as '%s', which has the user agent: try --log-format %s\n",
                    o->args[0], would, would);
        rs_logparser_free(p);
    }
    rs_reader_free(r);
}

int cmd_logs(int argc, char **argv)
{
    struct cli_opts o;
    int rc = cli_parse("logs", ACCEPTED, argc, argv, &o);
    if (rc) return rc;
    if (o.help) {
        fputs(HELP, stdout);
        return 0;
    }
    if (o.n_robots < 1) return cli_usage_error("logs", "needs at least one --robots PATH");
    const char *scheme = o.scheme ? o.scheme : "https";
    if (strcmp(scheme, "http") && strcmp(scheme, "https"))
        return cli_usage_error("logs", "--scheme takes http or https, not '%s'", scheme);
    char host_buf[RS_ORIGIN_MAX];
    const char *host = NULL;
    if (o.host) {
        const char *hs;
        if (parse_host_option(o.host, host_buf, sizeof host_buf, &hs) != 0)
            return cli_usage_error("logs", "--host takes a host (example.com, example.com:8080) or an origin "
                                   "(https://example.com), not '%s'", o.host);
        if (hs && o.scheme && strcmp(hs, o.scheme))
            return cli_usage_error("logs", "--host %s and --scheme %s disagree", o.host, o.scheme);
        if (hs) scheme = hs;
        host = host_buf;
    }
    uint64_t limit = (uint64_t)1 << 30;
    if (o.memory_limit && rs_parse_size(o.memory_limit, &limit) != RS_OK)
        return cli_usage_error("logs", "--memory-limit takes a size of at least 1M (64M, 1G, ...), not '%s'",
                               o.memory_limit);
    if (o.only && strcmp(o.only, "violations"))
        return cli_usage_error("logs", "--only takes violations, not '%s'", o.only);
    const char *spec = o.log_format ? o.log_format : "combined";
    char err[256] = "";
    rs_logparser *probe = NULL;
    if (rs_logparser_create(spec, strlen(spec), o.fields, (size_t)o.n_fields, err, sizeof err, &probe) != RS_OK)
        return cli_usage_error("logs", "bad --log-format: %s", err[0] ? err : "cannot compile");
    const unsigned fields = rs_logparser_fields(probe);
    rs_logparser_free(probe);
    if (!(fields & RS_LOGF_HOST) && host == NULL)
        return cli_usage_error("logs", "this log format does not name the site: give --host HOST");
    /* (the --verify files are read by the job: their errors come from its first run) */
    if (!(fields & RS_LOGF_USER_AGENT) && o.n_verify == 0) {
        cli_usage_error("logs", "this log format has no user agent: its hits can only be attributed to "
                        "crawlers by client IP, with published ranges (--verify googlebot.json, "
                        "--verify TOKEN=CIDR-LIST)");
        hint_richer_format(&o);
        return 2;
    }
    rs_job *job = rs_job_create(RS_JOB_LOGS);
    if (job == NULL) {
        cli_error("out of memory");
        return 2;
    }
    rc = configure(job, &o, host, scheme, limit);
    if (rc == 0) rc = run_inputs(job, &o);
    /* A damaged input (error already printed): report the hits read before
     * the damage, then exit 2 (SPEC 7). */
    const rs_job_logs_summary *sum = rs_job_logs_summary_get(job);
    const int input_failed = rc != 0 && sum != NULL && sum->input_failed;
    if (input_failed) rc = 0;
    if (rc == 0 && rs_job_finish(job) != RS_OK) {
        if (sum->wrong_format) {   /* SPEC 7: a log in another format is flagged, not read as "nothing parsed" */
            cli_error("%llu of the first %llu lines do not parse as --log-format %s%s%s%s",
                      (unsigned long long)sum->first_bad, (unsigned long long)(sum->first_ok + sum->first_bad),
                      o.log_format ? "'" : "", spec, o.log_format ? "'" : "", o.log_format ? "" : " (the default)");
            if (sum->would != NULL && strcmp(sum->would, spec) != 0)
                fprintf(stderr, "hint: they read as '%s': try --log-format %s (or --log-format auto)\n", sum->would,
                        sum->would);
            else
                fprintf(stderr, "hint: no known format reads them; give the server's log_format/LogFormat string "
                                "with --log-format\n");
            rc = 2;
        } else {
            rc = cli_job_error(job);
        }
    }
    if (rc == 0 && sum->lines == 0) cli_warn("no log lines in the input");
    /* --quiet: the summary alone, in the --format asked for (text when none was). */
    const rs_format sum_fmt = o.quiet && o.format_given ? o.format : RS_FORMAT_TEXT;
    rs_job_totals t;
    rs_job_totals_get(job, &t);
    /* Hits on sites no --robots source knows are not judged (reason no-robots): say so, or
     * "0 disallowed" reads as an all-clear (SPEC 7: no silent guesses). */
    const uint64_t unjudged = t.reason[RS_REASON_NO_ROBOTS];
    if (rc == 0 && unjudged)
        cli_warn("%s%llu of %llu bot hits are on sites that no --robots source knows (reason no-robots): "
                 "they were not judged; give those sites' robots.txt", unjudged == t.records ? "all " : "",
                 (unsigned long long)unjudged, (unsigned long long)t.records);
    if (rc == 0) {
        if (o.quiet || o.format == RS_FORMAT_TEXT) {
            if (!o.quiet) put(cli_out(), "\n");
            summary(cli_out(), sum_fmt, sum);
            if (cli_out_flush(0) != 0) rc = 2;
        }
        if (rc == 0 && o.stats_path && cli_job_stats(job, o.stats_path) != 0) rc = 2;
        if (rc == 0 && cli_write_html(&o) != 0) rc = 2;
    }
    /* Malformed lines are never silent: the text and jsonl summaries count them; otherwise
     * (records only, or a tsv/csv summary of bot rows alone) a note at the end, as urls gives. */
    const int counted = (o.quiet || o.format == RS_FORMAT_TEXT) && (sum_fmt == RS_FORMAT_TEXT || sum_fmt == RS_FORMAT_JSONL);
    if (rc == 0 && t.malformed && !o.verbose && !counted)
        fprintf(stderr, "robotscan logs: %llu malformed line%s skipped (--verbose names them)\n",
                (unsigned long long)t.malformed, t.malformed == 1 ? "" : "s");
    if (o.verbose) {
        fprintf(stderr, "robotscan: %llu lines in %.3f s (%.0f lines/s)\n", (unsigned long long)t.lines,
                t.seconds, t.seconds > 0 ? (double)t.lines / t.seconds : 0.0);
    }
    rs_job_free(job);
    if (cli_out_finish() != 0) rc = 2;
    if (rc || input_failed) return 2;
    return o.fail_on && t.violations ? 1 : 0;
}
