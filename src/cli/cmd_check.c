/*
 * cmd_check.c - `robotscan check`: one robots.txt, one agent, URLs from the
 * arguments or stdin -> one verdict per URL, in input order.
 */
#include "cli/cli.h"

#include <stdlib.h>
#include <string.h>

static const char HELP[] =
    "Usage: robotscan check --robots FILE --agent TOKEN [OPTIONS] [URL...]\n"
    "\n"
    "Decides for each URL whether the crawler TOKEN may fetch it under the robots.txt\n"
    "FILE, exactly as Google's reference parser. URLs come from the arguments, or from\n"
    "stdin one per line when none are given (CRLF accepted; every line is a URL).\n"
    "\n"
    "Options:\n"
    "  --robots FILE        the robots.txt to apply (required)\n"
    "  --agent TOKEN        the crawler's product token, e.g. Googlebot (required)\n"
    "  --format FMT         text, tsv, csv or jsonl (default: text on a terminal, else tsv)\n"
    "  --encode-urls        percent-encode non-ASCII bytes of the path and upper-case\n"
    "                       %xx escapes before matching, as patterns are\n"
    "  --semantics S        google (default) or first-match\n"
    "  --help               this text\n"
    "\n"
    "Columns (tsv, csv, jsonl): url, verdict, line, rule.\n"
    "Exit status: 0 all allowed, 1 some URL disallowed, 2 usage or I/O error.\n";

static const char *const ACCEPTED[] = {
    "--robots", "--agent", "--format", "--encode-urls", "--semantics", "--help", NULL,
};

static const char *const COLUMNS[] = { "url", "verdict", "line", "rule" };

typedef struct {
    const rs_matcher *matcher;
    rs_format format;
    int encode;
    char *scratch;            /* path copies: '/' prepended or --encode-urls */
    size_t scratch_cap;
    char *rule_text;
    size_t rule_cap;
    int any_disallowed;
} checker;

/* Prints the error (the caller then exits 2); @return -1. */
static int out_of_memory(size_t bytes)
{
    cli_error("out of memory (%zu bytes more)", bytes);
    return -1;
}

static int grow(char **buf, size_t *cap, size_t need)
{
    if (*cap >= need) return 0;
    char *p = realloc(*buf, need);
    if (p == NULL) return out_of_memory(need);
    *buf = p;
    *cap = need;
    return 0;
}

static int check_one(checker *c, const char *url, size_t len)
{
    /* The path copy (len + 1), then with --encode-urls its encoding (3 * len + 3). */
    if (grow(&c->scratch, &c->scratch_cap, (c->encode ? 4 * len : len) + 16) != 0) return -1;
    rs_str path = rs_url_path(url, len, c->scratch, c->scratch_cap);
    if (c->encode) {
        char *enc = c->scratch + len + 1; /* past any prepended copy */
        path.len = rs_url_encode_path(path.ptr, path.len, enc, 3 * len + 3);
        path.ptr = enc;
    }
    rs_verdict v;
    rs_matcher_match(c->matcher, path.ptr, path.len, &v);
    c->any_disallowed |= v.disallowed;

    rs_str rule = { "", 0 };
    rs_rule_info info;
    if (v.rule >= 0 && rs_matcher_rule(c->matcher, v.rule, &info) == RS_OK) {
        const char *kind = info.type == RS_RULE_ALLOW ? "allow: " : "disallow: ";
        const size_t klen = strlen(kind);
        if (grow(&c->rule_text, &c->rule_cap, klen + info.pattern.len + 1) != 0) return -1;
        memcpy(c->rule_text, kind, klen);
        if (info.pattern.len) memcpy(c->rule_text + klen, info.pattern.ptr, info.pattern.len);
        rule.ptr = c->rule_text;
        rule.len = klen + info.pattern.len;
    }
    rs_outbuf *out = cli_out();
    const rs_str url_str = { url, len };
    if (c->format == RS_FORMAT_TEXT) {
        char head[96];
        const char *word = v.disallowed ? "DISALLOWED  " : "allowed     ";
        if (rs_outbuf_append(out, word, strlen(word)) != RS_OK) return out_of_memory(len);
        if (rs_outbuf_append(out, url, len) != RS_OK) return out_of_memory(len);
        if (v.line) snprintf(head, sizeof head, "  (line %u: ", v.line);
        else snprintf(head, sizeof head, "  (no matching rule)\n");
        if (rs_outbuf_append(out, head, strlen(head)) != RS_OK) return out_of_memory(len);
        if (v.line && (rs_outbuf_append(out, rule.ptr, rule.len) != RS_OK
                       || rs_outbuf_append(out, ")\n", 2) != RS_OK))
            return out_of_memory(len);
    } else {
        const rs_field fields[4] = {
            { url_str, 0, 0 },
            { { v.disallowed ? "disallow" : "allow", v.disallowed ? 8u : 5u }, 0, 0 },
            { { NULL, 0 }, v.line, 1 },
            { rule, 0, 0 },
        };
        if (rs_format_record(out, c->format, COLUMNS, fields, 4) != RS_OK) return out_of_memory(len);
    }
    return cli_out_flush(1 << 16);
}

int cmd_check(int argc, char **argv)
{
    struct cli_opts o;
    int rc = cli_parse("check", ACCEPTED, argc, argv, &o);
    if (rc) return rc;
    if (o.help) {
        fputs(HELP, stdout);
        return 0;
    }
    if (o.n_robots != 1) return cli_usage_error("check", "needs exactly one --robots FILE");
    if (o.n_agents != 1) return cli_usage_error("check", "needs exactly one --agent TOKEN");
    cli_check_agent(o.agents[0]);

    char *body;
    size_t size;
    if (rs_is_warc_file(o.robots[0])) {
        cli_error("'%s' is a WARC file, not one robots.txt: use 'robotscan urls --robots %s'", o.robots[0], o.robots[0]);
        return 2;
    }
    if (cli_read_robots(o.robots[0], RS_ROBOTS_MAX_BODY, &body, &size) != 0) return 2;
    rs_ruleset *rs = NULL;
    rs_matcher *m = NULL;
    rs_status st = rs_ruleset_parse(body, size, &rs);
    free(body);
    if (st == RS_OK) st = rs_matcher_create(rs, o.agents[0], strlen(o.agents[0]), o.semantics, &m);
    rs_ruleset_free(rs);
    if (st != RS_OK) {
        cli_error("cannot compile '%s': %s", o.robots[0], rs_status_str(st));
        return 2;
    }

    checker c;
    memset(&c, 0, sizeof c);
    c.matcher = m;
    c.format = o.format;
    c.encode = o.encode_urls;
    rc = 0;
    if (rs_format_header(cli_out(), o.format, COLUMNS, 4) != RS_OK) rc = out_of_memory(64);
    if (o.n_args > 0) {
        for (int i = 0; i < o.n_args && rc == 0; i++) rc = check_one(&c, o.args[i], strlen(o.args[i]));
    } else {
        char *line = NULL;
        size_t cap = 0;
        ssize_t n;
        while (rc == 0 && (n = getline(&line, &cap, stdin)) >= 0) {
            size_t len = (size_t)n;
            if (len && line[len - 1] == '\n') len--;
            if (len && line[len - 1] == '\r') len--;
            rc = check_one(&c, line, len);
        }
        if (rc == 0 && ferror(stdin)) {
            cli_error("error reading stdin");
            rc = -1;
        }
        free(line);
    }
    if (cli_out_finish() != 0) rc = -1;
    free(c.scratch);
    free(c.rule_text);
    rs_matcher_free(m);
    if (rc != 0) return 2;
    return c.any_disallowed ? 1 : 0;
}
