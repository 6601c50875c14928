/*
 * cmd_lint.c - `robotscan lint`: per-line diagnostics for robots.txt files
 * (rs_lint), and with --agent what that crawler gets from each file
 * (rs_lint_agent). The library knows no file names; this adds them.
 *
 * Each file is read up to RS_ROBOTS_MAX_BODY + 1 bytes: one byte past the
 * limit is enough for rs_lint to see the cut and name the line where it
 * happens (file-too-large); the rest of a larger file is never read.
 */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

static const char HELP[] =
    "Usage: robotscan lint [--format text|jsonl] [--agent TOKEN] FILE...\n"
    "\n"
    "Reports, for each robots.txt FILE, lines that probably do not do what their\n"
    "author thinks, and what the parser (Google's semantics) will actually do.\n"
    "FILE '-' reads stdin. A gzip or zstd FILE is decoded. A WARC FILE (plain, gzip,\n"
    "zstd) has every 2xx robots.txt capture linted, named FILE@OFFSET:URI.\n"
    "\n"
    "Options:\n"
    "  --format FMT   text (default) or jsonl\n"
    "  --agent TOKEN  also show which groups apply to the crawler TOKEN and its\n"
    "                 effective rules, in precedence order\n"
    "  --keep-going   skip corrupt WARC records (counted) instead of stopping\n"
    "  --help         this text\n"
    "\n"
    "Text:  FILE:LINE: SEVERITY: MESSAGE [CODE]   (no LINE for whole-file findings)\n"
    "JSONL: {\"file\",\"line\",\"severity\",\"code\",\"message\"} per finding (line 0: whole file);\n"
    "       with --agent, {\"file\",\"agent\",\"applies\",\"groups\",\"rank\",\"line\",\"rule\",\"note\"}\n"
    "       per effective rule.\n"
    "Codes: typo-key missing-colon line-too-long rule-outside-group unknown-key\n"
    "       pattern-never-matches dollar-not-at-end conflicting-rules user-agent-not-token\n"
    "       empty-user-agent sitemap-not-absolute file-too-large bom invalid-utf8\n"
    "       html-content no-groups ignored-line misspelled-key nul-byte empty-group\n"
    "       (docs/lint.md)\n"
    "Exit status: 0 no warning or error, 1 some warning or error, 2 usage error or a\n"
    "file that cannot be read (the other files are still linted).\n";

static const char *const ACCEPTED[] = { "--format", "--agent", "--keep-going", "--help", NULL };

static const char *const FINDING_COLS[] = { "file", "line", "severity", "code", "message" };
static const char *const RULE_COLS[] = {
    "file", "agent", "applies", "groups", "rank", "line", "rule", "note",
};

typedef struct {
    const char *file;
    rs_format format;
    int findings;     /* warnings and errors */
    int failed;       /* output error */
} lint_ctx;

static rs_str cstr(const char *s)
{
    rs_str r = { s, strlen(s) };
    return r;
}

static void on_finding(void *vctx, const rs_lint_finding *f)
{
    lint_ctx *c = vctx;
    if (f->severity != RS_LINT_INFO) c->findings++;
    if (c->failed) return;
    rs_outbuf *out = cli_out();
    const char *sev = rs_lint_severity_name(f->severity);
    rs_status st;
    if (c->format == RS_FORMAT_JSONL) {
        const rs_field fields[5] = {
            { cstr(c->file), 0, 0 },
            { { NULL, 0 }, f->line, 1 },
            { cstr(sev), 0, 0 },
            { cstr(f->code_name), 0, 0 },
            { f->message, 0, 0 },
        };
        st = rs_format_record(out, RS_FORMAT_JSONL, FINDING_COLS, fields, 5);
    } else {
        char head[64];
        if (f->line) snprintf(head, sizeof head, ":%u: %s: ", f->line, sev);
        else snprintf(head, sizeof head, ": %s: ", sev);
        st = rs_outbuf_append(out, c->file, strlen(c->file));
        if (st == RS_OK) st = rs_outbuf_append(out, head, strlen(head));
        if (st == RS_OK) st = rs_outbuf_append(out, f->message.ptr, f->message.len);
        if (st == RS_OK) st = rs_outbuf_append(out, " [", 2);
        if (st == RS_OK) st = rs_outbuf_append(out, f->code_name, strlen(f->code_name));
        if (st == RS_OK) st = rs_outbuf_append(out, "]\n", 2);
    }
    if (st != RS_OK) {
        cli_error("out of memory");
        c->failed = 1;
    } else if (cli_out_flush(1 << 16) != 0) {
        c->failed = 1;
    }
}

static const char *rule_note(const rs_lint_rule *r)
{
    if (r->derived) return "retry of the /index.htm* allow on this line";
    if (r->never_matches) return "never matches: does not start with '/' or '*'";
    if (r->pattern.len == 0)
        return r->type == RS_RULE_ALLOW ? "empty: matches every path" : "empty: disallows nothing";
    return "";
}

/* "5, 12" */
static void join_lines(char *buf, size_t cap, const rs_lint_agent_view *v, const char *sep)
{
    size_t j = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < v->n_groups && j + 24 < cap; i++)
        j += (size_t)snprintf(buf + j, cap - j, "%s%u", i ? sep : "", v->group_lines[i]);
    if (v->n_groups && j + 24 >= cap) snprintf(buf + j, cap - j, "%s...", sep);
}

static int print_agent(const char *file, const char *agent, const rs_lint_agent_view *v,
                       rs_format fmt)
{
    rs_outbuf *out = cli_out();
    char groups[4096], line[8192];
    const char *applies = v->specific ? "named" : v->n_groups ? "global" : "none";
    rs_status st = RS_OK;
    if (fmt == RS_FORMAT_JSONL) {
        join_lines(groups, sizeof groups, v, ",");
        for (size_t i = 0; i < v->n_rules || (i == 0 && v->n_rules == 0); i++) {
            const rs_lint_rule *r = v->n_rules ? &v->rules[i] : NULL;
            int n = 0;
            if (r)
                n = snprintf(line, sizeof line, "%s: %.*s", r->type == RS_RULE_ALLOW ? "allow" : "disallow",
                             (int)(r->pattern.len < sizeof line - 16 ? r->pattern.len : sizeof line - 16), r->pattern.ptr);
            const rs_field fields[8] = {
                { cstr(file), 0, 0 },
                { cstr(agent), 0, 0 },
                { cstr(applies), 0, 0 },
                { cstr(groups), 0, 0 },
                { { NULL, 0 }, r ? i + 1 : 0, 1 },
                { { NULL, 0 }, r ? r->line : 0, 1 },
                { { line, r ? (size_t)n : 0 }, 0, 0 },
                { cstr(r ? rule_note(r) : "no rules: every URL is allowed"), 0, 0 },
            };
            st = rs_format_record(out, RS_FORMAT_JSONL, RULE_COLS, fields, 8);
            if (st != RS_OK) break;
        }
    } else {
        join_lines(groups, sizeof groups, v, ", ");
        const int multi = v->n_groups > 1;
        if (v->specific)
            snprintf(line, sizeof line, "%s: agent %s: named by the group%s at user-agent line%s %s\n",
                     file, agent, multi ? "s" : "", multi ? "s" : "", groups);
        else if (v->n_groups)
            snprintf(line, sizeof line, "%s: agent %s: no group names it; the '*' group%s at user-agent "
                     "line%s %s appl%s\n", file, agent, multi ? "s" : "", multi ? "s" : "", groups,
                     multi ? "y" : "ies");
        else
            snprintf(line, sizeof line, "%s: agent %s: no group names it and there is no '*' group\n",
                     file, agent);
        st = rs_outbuf_append(out, line, strlen(line));
        if (v->n_rules == 0)
            snprintf(line, sizeof line, "%s: agent %s: no rules: every URL is allowed\n", file, agent);
        else
            snprintf(line, sizeof line, "%s: agent %s: %zu effective rule%s; the first that matches a "
                     "path decides (none: allowed):\n", file, agent, v->n_rules, v->n_rules > 1 ? "s" : "");
        if (st == RS_OK) st = rs_outbuf_append(out, line, strlen(line));
        for (size_t i = 0; i < v->n_rules && st == RS_OK; i++) {
            const rs_lint_rule *r = &v->rules[i];
            const char *note = rule_note(r);
            snprintf(line, sizeof line, "%s:%u:   %s: ", file, r->line,
                     r->type == RS_RULE_ALLOW ? "allow" : "disallow");
            st = rs_outbuf_append(out, line, strlen(line));
            if (st == RS_OK) st = rs_outbuf_append(out, r->pattern.ptr, r->pattern.len);
            if (st == RS_OK && *note) {
                snprintf(line, sizeof line, "   (%s)", note);
                st = rs_outbuf_append(out, line, strlen(line));
            }
            if (st == RS_OK) st = rs_outbuf_append(out, "\n", 1);
        }
    }
    if (st != RS_OK) {
        cli_error("out of memory");
        return -1;
    }
    return cli_out_flush(1 << 16);
}

/* Lints one body under the name @file. @return 0, or -1 on an output/memory failure. */
static int lint_one(const char *file, const char *body, size_t size, const char *agent, rs_format format,
                    int *findings)
{
    lint_ctx c;
    memset(&c, 0, sizeof c);
    c.file = file;
    c.format = format;
    rs_status st = rs_lint(body, size, NULL, on_finding, &c);
    *findings += c.findings;
    int failed = c.failed;
    if (st == RS_OK && agent && !failed) {
        rs_lint_agent_view *v = NULL;
        st = rs_lint_agent(body, size, agent, strlen(agent), &v);
        if (st == RS_OK && print_agent(file, agent, v, format) != 0) failed = 1;
        rs_lint_agent_free(v);
    }
    if (st != RS_OK) {
        cli_error("cannot lint '%s': %s", file, rs_status_str(st));
        failed = 1;
    }
    return failed ? -1 : 0;
}

typedef struct {
    const char *file, *agent;
    rs_format format;
    int findings, failed;
    uint64_t captures;
} warc_lint;

/* Every 2xx capture of a WARC, named FILE@OFFSET:URI. */
static int on_capture(void *vctx, const rs_warc_capture *cap)
{
    warc_lint *w = vctx;
    if (cap->status < 200 || cap->status >= 300) return 0;
    w->captures++;
    char name[4096];
    snprintf(name, sizeof name, "%s@%llu:%.*s", w->file, (unsigned long long)cap->offset,
             (int)(cap->uri.len < 2048 ? cap->uri.len : 2048), cap->uri.ptr);
    if (lint_one(name, cap->body, cap->body_len, w->agent, w->format, &w->findings) != 0) w->failed = 1;
    return w->failed;
}

int cmd_lint(int argc, char **argv)
{
    struct cli_opts o;
    int rc = cli_parse("lint", ACCEPTED, argc, argv, &o);
    if (rc) return rc;
    if (o.help) {
        fputs(HELP, stdout);
        return 0;
    }
    if (!o.format_given) o.format = RS_FORMAT_TEXT;
    if (o.format != RS_FORMAT_TEXT && o.format != RS_FORMAT_JSONL) {
        return cli_usage_error("lint", "--format takes text or jsonl");
    }
    if (o.n_agents > 1) { return cli_usage_error("lint", "takes at most one --agent TOKEN"); }
    if (o.n_args == 0) { return cli_usage_error("lint", "needs at least one FILE"); }
    const char *agent = o.n_agents ? o.agents[0] : NULL;
    if (agent) cli_check_agent(agent);

    int unreadable = 0, findings = 0, failed = 0;
    for (int i = 0; i < o.n_args && !failed; i++) {
        const char *file = o.args[i];
        const char *path = strcmp(file, "-") ? file : "/dev/stdin";
        if (strcmp(file, "-") && rs_is_warc_file(path)) {
            warc_lint w = { file, agent, o.format, 0, 0, 0 };
            char err[768];
            uint64_t skipped = 0;
            const rs_status st = rs_warc_each_capture(path, o.keep_going, on_capture, &w, &skipped, err, sizeof err);
            findings += w.findings;
            if (w.failed) failed = 1;
            else if (st != RS_OK) { cli_error("%s", err); unreadable = 1; }
            if (skipped) cli_warn("skipped %llu corrupt WARC record%s (--keep-going); the last: %s",
                                  (unsigned long long)skipped, skipped > 1 ? "s" : "", err);
            continue;
        }
        char *body;
        size_t size;
        if (cli_read_robots(path, RS_ROBOTS_MAX_BODY + 1, &body, &size) != 0) {
            unreadable = 1;
            continue;
        }
        if (lint_one(file, body, size, agent, o.format, &findings) != 0) failed = 1;
        free(body);
    }
    if (cli_out_finish() != 0) failed = 1;
    if (failed || unreadable) return 2;
    return findings ? 1 : 0;
}
