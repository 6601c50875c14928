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

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char HELP[] =
    "Usage: robotscan lint [--format text|tsv|csv|jsonl] [--agent TOKEN] FILE|DIR...\n"
    "\n"
    "Reports, for each robots.txt FILE, lines that probably do not do what their\n"
    "author thinks, and what the parser (Google's semantics) will actually do.\n"
    "FILE '-' reads stdin. A gzip or zstd FILE is decoded. A WARC FILE (plain, gzip,\n"
    "zstd) has every 2xx robots.txt capture linted, named FILE@OFFSET:URI.\n"
    "A DIR (as --robots of survey and urls take it) has each of its files linted, in\n"
    "name order, and each SUBDIR/robots.txt; names starting with '.' are skipped.\n"
    "\n"
    "Options:\n"
    "  --format FMT   text (default), tsv or csv (a header row, then file, line,\n"
    "                 severity, code, message per finding), or jsonl\n"
    "  --agent TOKEN  also show which groups apply to the crawler TOKEN and its\n"
    "                 effective rules, in precedence order\n"
    "  --keep-going   skip corrupt WARC records (counted) instead of stopping\n"
    "  --help         this text\n"
    "\n"
    "Text:  FILE:LINE: SEVERITY: MESSAGE [CODE]   (no LINE for whole-file findings)\n"
    "JSONL: {\"file\",\"line\",\"severity\",\"code\",\"message\"} per finding (line 0: whole file);\n"
    "       with --agent, {\"file\",\"agent\",\"applies\",\"groups\",\"rank\",\"line\",\"rule\",\"note\"}\n"
    "       per effective rule (groups: the applying groups' user-agent lines, an array).\n"
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
    if (c->format != RS_FORMAT_TEXT) {
        const rs_field fields[5] = {
            { cstr(c->file), 0, 0 },
            { { NULL, 0 }, f->line, 1 },
            { cstr(sev), 0, 0 },
            { cstr(f->code_name), 0, 0 },
            { f->message, 0, 0 },
        };
        st = rs_format_record(out, c->format, FINDING_COLS, fields, 5);
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
        /* "groups": the user-agent lines of the applying groups, a JSON array of numbers. */
        size_t j = 0;
        groups[j++] = '[';
        for (uint32_t i = 0; i < v->n_groups && j + 16 < sizeof groups; i++)
            j += (size_t)snprintf(groups + j, sizeof groups - j, "%s%u", i ? "," : "", v->group_lines[i]);
        groups[j++] = ']';
        for (size_t i = 0; st == RS_OK && (i < v->n_rules || (i == 0 && v->n_rules == 0)); i++) {
            const rs_lint_rule *r = v->n_rules ? &v->rules[i] : NULL;
            int n = 0;
            if (r)
                n = snprintf(line, sizeof line, "%s: %.*s", r->type == RS_RULE_ALLOW ? "allow" : "disallow",
                             (int)(r->pattern.len < sizeof line - 16 ? r->pattern.len : sizeof line - 16), r->pattern.ptr);
            const char *note = r ? rule_note(r) : "no rules: every URL is allowed";
            char rank[24], lno[16];
            snprintf(rank, sizeof rank, "%zu", r ? i + 1 : 0);
            snprintf(lno, sizeof lno, "%u", r ? r->line : 0u);
            /* RULE_COLS order; numbers and the groups array raw, the rest JSON strings. */
            const rs_str vals[8] = { cstr(file), cstr(agent), cstr(applies), { groups, j },
                                     cstr(rank), cstr(lno), { line, r ? (size_t)n : 0 }, cstr(note) };
            for (int k = 0; k < 8 && st == RS_OK; k++) {
                st = rs_outbuf_append(out, k ? ",\"" : "{\"", 2);
                if (st == RS_OK) st = rs_outbuf_append(out, RULE_COLS[k], strlen(RULE_COLS[k]));
                if (st == RS_OK) st = rs_outbuf_append(out, "\":", 2);
                if (st != RS_OK) break;
                if (k >= 3 && k <= 5) st = rs_outbuf_append(out, vals[k].ptr, vals[k].len);
                else st = rs_outbuf_json_string(out, vals[k].ptr, vals[k].len);
            }
            if (st == RS_OK) st = rs_outbuf_append(out, "}\n", 2);
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
        cli_error("%s: cannot lint: %s", file, rs_status_str(st));
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

typedef struct {
    const char *agent;
    rs_format format;
    int keep_going;
    int unreadable, findings, failed;
} lint_run;

/* Lints one FILE (a robots.txt, compressed or not, or a WARC). */
static void lint_file(lint_run *r, const char *file)
{
    const char *path = strcmp(file, "-") ? file : "/dev/stdin";
    if (strcmp(file, "-") && rs_is_warc_file(path)) {
        warc_lint w = { file, r->agent, r->format, 0, 0, 0 };
        char err[768];
        uint64_t skipped = 0;
        const rs_status st = rs_warc_each_capture(path, r->keep_going, on_capture, &w, &skipped, err, sizeof err);
        r->findings += w.findings;
        if (w.failed) r->failed = 1;
        else if (st != RS_OK) { cli_error("%s", err); r->unreadable = 1; }
        if (skipped) cli_warn("skipped %llu corrupt WARC record%s (--keep-going); the last: %s",
                              (unsigned long long)skipped, skipped > 1 ? "s" : "", err);
        return;
    }
    char *body;
    size_t size;
    if (cli_read_robots(path, RS_ROBOTS_MAX_BODY + 1, &body, &size) != 0) {
        r->unreadable = 1;
        return;
    }
    if (lint_one(file, body, size, r->agent, r->format, &r->findings) != 0) r->failed = 1;
    free(body);
}

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Lints each file of DIR in name order, and each DIR/SUB/robots.txt (the layouts a
 * robots directory has); a folder with none of them is an error naming it. */
static void lint_dir(lint_run *r, const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        cli_error("%s: cannot read the directory", dir);
        r->unreadable = 1;
        return;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    const struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **grown = realloc(names, cap * sizeof *names);
            if (grown == NULL) break;
            names = grown;
        }
        if ((names[n] = strdup(e->d_name)) != NULL) n++;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, name_cmp);
    const size_t dl = strlen(dir);
    const int slash = dl > 0 && dir[dl - 1] == '/';
    size_t linted = 0;
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s%s%s", dir, slash ? "" : "/", names[i]);
        if (!r->failed && stat(path, &st) == 0) {
            if (S_ISDIR(st.st_mode)) {
                const size_t pl = strlen(path);
                snprintf(path + pl, sizeof path - pl, "/robots.txt");
                if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                    lint_file(r, path);
                    linted++;
                }
            } else if (S_ISREG(st.st_mode)) {
                lint_file(r, path);
                linted++;
            }
        }
        free(names[i]);
    }
    free(names);
    if (linted == 0 && !r->failed) {
        cli_error("%s: cannot lint: a directory without robots.txt files", dir);
        fprintf(stderr, "hint: lint takes robots.txt files, WARCs, or a directory of HOST[.txt] or "
                        "HOST/robots.txt files\n");
        r->unreadable = 1;
    }
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
    if ((o.format == RS_FORMAT_TSV || o.format == RS_FORMAT_CSV) && o.n_agents) {
        return cli_usage_error("lint", "--agent rows have other columns than findings: use "
                                       "--format text or jsonl with --agent");
    }
    if (rs_format_header(cli_out(), o.format, FINDING_COLS, 5) != RS_OK) {
        cli_error("out of memory");
        return 2;
    }
    if (o.n_agents > 1) { return cli_usage_error("lint", "takes at most one --agent TOKEN"); }
    if (o.n_args == 0) { return cli_usage_error("lint", "needs at least one FILE"); }
    const char *agent = o.n_agents ? o.agents[0] : NULL;
    if (agent) cli_check_agent(agent);

    lint_run r = { agent, o.format, o.keep_going, 0, 0, 0 };
    for (int i = 0; i < o.n_args && !r.failed; i++) {
        const char *file = o.args[i];
        struct stat st;
        if (strcmp(file, "-") && stat(file, &st) == 0 && S_ISDIR(st.st_mode)) lint_dir(&r, file);
        else lint_file(&r, file);
    }
    if (cli_out_finish() != 0) r.failed = 1;
    if (r.failed || r.unreadable) return 2;
    return r.findings ? 1 : 0;
}
