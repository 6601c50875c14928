/*
 * cmd_check.c - `robotscan check`: one robots.txt, one agent, URLs from the
 * arguments or stdin -> one verdict per URL, in input order.
 */
#include "cli/cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char HELP[] =
    "Usage: robotscan check --robots FILE --agent TOKEN [--agent TOKEN...] [OPTIONS] [URL...]\n"
    "\n"
    "Decides for each URL whether the crawler TOKEN may fetch it under the robots.txt\n"
    "FILE, exactly as Google's reference parser. URLs come from the arguments, or from\n"
    "stdin one per line when none are given (CRLF accepted; every line is a URL).\n"
    "\n"
    "Options:\n"
    "  --robots FILE        the robots.txt to apply (required)\n"
    "  --agent TOKEN        the crawler's product token, e.g. Googlebot (required;\n"
    "                       repeatable: one record per URL per agent)\n"
    "  --format FMT         text, tsv, csv or jsonl (default: text on a terminal, else tsv)\n"
    "  --encode-urls        percent-encode non-ASCII bytes of the path and upper-case\n"
    "                       %xx escapes before matching, as patterns are\n"
    "  --semantics S        google (default) or first-match\n"
    "  --help               this text\n"
    "\n"
    "  --batch [FILE...]    instead of --robots and --agent: lines ROBOTS<TAB>AGENT<TAB>URL\n"
    "                       from the FILEs or stdin, each decided as by check --robots\n"
    "                       ROBOTS --agent AGENT URL (one process for many robots.txt;\n"
    "                       the conformance tests use it)\n"
    "\n"
    "Columns (tsv, csv, jsonl): url, verdict, line, rule; with several --agent, url,\n"
    "agent, verdict, line, rule; with --batch, robots, agent, url, verdict, line, rule.\n"
    "Exit status: 0 all allowed, 1 some URL disallowed, 2 usage or I/O error.\n";

static const char *const ACCEPTED[] = {
    "--robots", "--agent", "--format", "--encode-urls", "--semantics", "--help", NULL,
};

static const char *const COLUMNS[] = { "url", "verdict", "line", "rule" };
static const char *const COLUMNS_AGENTS[] = { "url", "agent", "verdict", "line", "rule" };
static const char *const COLUMNS_BATCH[] = { "robots", "agent", "url", "verdict", "line", "rule" };

typedef struct {
    rs_matcher *matcher;      /* owned */
    const char *agent;        /* printed only when several agents are checked */
    int multi;
    const char *robots;       /* --batch: the robots.txt path, printed first (else NULL) */
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

static int check_agent(checker *c, const char *url, size_t len)
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
        const size_t need = rs_rule_text(&info, NULL, 0) + 1;
        if (grow(&c->rule_text, &c->rule_cap, need) != 0) return -1;
        rule.ptr = c->rule_text;
        rule.len = rs_rule_text(&info, c->rule_text, need);
    }
    rs_outbuf *out = cli_out();
    const rs_str url_str = { url, len };
    if (c->format == RS_FORMAT_TEXT) {
        char head[96];
        const char *word = v.disallowed ? "DISALLOWED  " : "allowed     ";
        if (rs_outbuf_append(out, word, strlen(word)) != RS_OK) return out_of_memory(len);
        if (c->robots && (rs_outbuf_append(out, c->robots, strlen(c->robots)) != RS_OK ||
                          rs_outbuf_append(out, "  ", 2) != RS_OK))
            return out_of_memory(len);
        if (c->multi && (rs_outbuf_append(out, c->agent, strlen(c->agent)) != RS_OK ||
                         rs_outbuf_append(out, "  ", 2) != RS_OK))
            return out_of_memory(len);
        if (rs_outbuf_append(out, url, len) != RS_OK) return out_of_memory(len);
        if (v.line) snprintf(head, sizeof head, "  (line %u: ", v.line);
        else snprintf(head, sizeof head, "  (no matching rule)\n");
        if (rs_outbuf_append(out, head, strlen(head)) != RS_OK) return out_of_memory(len);
        if (v.line && (rs_outbuf_append(out, rule.ptr, rule.len) != RS_OK
                       || rs_outbuf_append(out, ")\n", 2) != RS_OK))
            return out_of_memory(len);
    } else {
        const rs_field fields[6] = {
            { url_str, 0, 0 },
            { { c->agent, strlen(c->agent) }, 0, 0 },
            { { v.disallowed ? "disallow" : "allow", v.disallowed ? 8u : 5u }, 0, 0 },
            { { NULL, 0 }, v.line, 1 },
            { rule, 0, 0 },
            { { c->robots, c->robots ? strlen(c->robots) : 0 }, 0, 0 },
        };
        /* One agent: url, verdict, line, rule (fields 0, 2, 3, 4). */
        const rs_field one[4] = { fields[0], fields[2], fields[3], fields[4] };
        /* --batch: robots, agent, url, verdict, line, rule. */
        const rs_field batch[6] = { fields[5], fields[1], fields[0], fields[2], fields[3], fields[4] };
        rs_status st;
        if (c->robots) st = rs_format_record(out, c->format, COLUMNS_BATCH, batch, 6);
        else if (c->multi) st = rs_format_record(out, c->format, COLUMNS_AGENTS, fields, 5);
        else st = rs_format_record(out, c->format, COLUMNS, one, 4);
        if (st != RS_OK) return out_of_memory(len);
    }
    return cli_out_flush(1 << 16);
}

/* One URL for every agent, in --agent order. */
static int check_one(checker *cs, int n, const char *url, size_t len)
{
    for (int i = 0; i < n; i++) {
        const int rc = check_agent(&cs[i], url, len);
        if (rc != 0) return rc;
    }
    return 0;
}

/* --batch: the robots.txt of the current lines, parsed once while consecutive lines name it. */
typedef struct {
    char *path;               /* owned; NULL before the first line */
    rs_ruleset *rs;           /* owned */
    char *agent;              /* owned: the agent of c.matcher */
    checker c;
} batch_state;

/* Points b->c at a matcher for (robots, agent), reading and compiling only what changed.
 * @return 0, or -1 after printing the error. */
static int batch_select(batch_state *b, const struct cli_opts *o, const char *robots, const char *agent)
{
    if (b->path == NULL || strcmp(b->path, robots) != 0) {
        rs_ruleset_free(b->rs);
        b->rs = NULL;
        free(b->path);
        free(b->agent);
        b->agent = NULL;
        rs_matcher_free(b->c.matcher);
        b->c.matcher = NULL;
        b->path = strdup(robots);
        if (b->path == NULL) return out_of_memory(strlen(robots) + 1);
        char *body;
        size_t size;
        if (cli_read_robots(robots, RS_ROBOTS_MAX_BODY, &body, &size) != 0) return -1;
        const rs_status st = rs_ruleset_parse(body, size, &b->rs);
        free(body);
        if (st != RS_OK) {
            cli_error("%s: cannot parse: %s", robots, rs_status_str(st));
            return -1;
        }
    }
    if (b->agent == NULL || strcmp(b->agent, agent) != 0) {
        rs_matcher_free(b->c.matcher);
        b->c.matcher = NULL;
        free(b->agent);
        b->agent = strdup(agent);
        if (b->agent == NULL) return out_of_memory(strlen(agent) + 1);
        const rs_status st = rs_matcher_create(b->rs, agent, strlen(agent), o->semantics, &b->c.matcher);
        if (st != RS_OK) {
            cli_error("%s: cannot compile for %s: %s", robots, agent, rs_status_str(st));
            return -1;
        }
    }
    b->c.robots = b->path;
    b->c.agent = b->agent;
    return 0;
}

/* One input of --batch (a file, or stdin when name is NULL). @return 0 or -1. */
static int batch_input(batch_state *b, const struct cli_opts *o, const char *name)
{
    FILE *f = name ? fopen(name, "r") : stdin;
    if (f == NULL) {
        cli_error("cannot open %s: %s", name, strerror(errno));
        return -1;
    }
    const char *shown = name ? name : "stdin";
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t n;
    int rc = 0;
    while (rc == 0 && (n = getline(&line, &cap, f)) >= 0) {
        size_t len = (size_t)n;
        lineno++;
        if (len && line[len - 1] == '\n') len--;
        if (len && line[len - 1] == '\r') len--;
        char *tab1 = memchr(line, '\t', len);
        char *tab2 = tab1 ? memchr(tab1 + 1, '\t', len - (size_t)(tab1 + 1 - line)) : NULL;
        if (tab2 == NULL || tab1 == line) {
            cli_error("%s:%zu: not ROBOTS<TAB>AGENT<TAB>URL", shown, lineno);
            rc = -1;
            break;
        }
        *tab1 = '\0';
        *tab2 = '\0';
        rc = batch_select(b, o, line, tab1 + 1);
        if (rc == 0) rc = check_agent(&b->c, tab2 + 1, len - (size_t)(tab2 + 1 - line));
    }
    if (rc == 0 && ferror(f)) {
        cli_error("error reading %s", shown);
        rc = -1;
    }
    free(line);
    if (name) fclose(f);
    return rc;
}

/* check --batch [FILE...]: many (robots.txt, agent, URL) lines in one process. */
static int run_batch(const struct cli_opts *o)
{
    if (o->n_robots || o->n_agents)
        return cli_usage_error("check", "--batch takes no --robots or --agent: each line names "
                                        "its robots.txt and agent (ROBOTS<TAB>AGENT<TAB>URL)");
    if (o->n_args == 0 && isatty(STDIN_FILENO))
        return cli_usage_error("check", "--batch without a FILE reads stdin, which is a terminal");
    batch_state b;
    memset(&b, 0, sizeof b);
    b.c.format = o->format;
    b.c.encode = o->encode_urls;
    int rc = 0;
    if (rs_format_header(cli_out(), o->format, COLUMNS_BATCH, 6) != RS_OK) rc = out_of_memory(64);
    if (o->n_args == 0) {
        if (rc == 0) rc = batch_input(&b, o, NULL);
    } else {
        for (int i = 0; i < o->n_args && rc == 0; i++) rc = batch_input(&b, o, o->args[i]);
    }
    if (cli_out_finish() != 0) rc = -1;
    rs_matcher_free(b.c.matcher);
    rs_ruleset_free(b.rs);
    free(b.path);
    free(b.agent);
    free(b.c.scratch);
    free(b.c.rule_text);
    if (rc != 0) return 2;
    return b.c.any_disallowed ? 1 : 0;
}

int cmd_check(int argc, char **argv)
{
    /* --batch is check's own flag: taken out before the shared parser sees the rest. */
    int batch = 0, kept = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--")) {
            while (i < argc) argv[kept++] = argv[i++];
            break;
        }
        if (!strcmp(argv[i], "--batch")) batch = 1;
        else argv[kept++] = argv[i];
    }
    argc = kept;
    struct cli_opts o;
    int rc = cli_parse("check", ACCEPTED, argc, argv, &o);
    if (rc) return rc;
    if (o.help) {
        fputs(HELP, stdout);
        return 0;
    }
    if (batch) return run_batch(&o);
    if (o.n_robots != 1) return cli_usage_error("check", "needs exactly one --robots FILE");
    if (o.n_agents < 1) return cli_usage_error("check", "needs at least one --agent TOKEN");
    if (o.n_agents > CLI_MAX_LIST)
        return cli_usage_error("check", "too many --agent options (at most %d)", CLI_MAX_LIST);
    for (int i = 0; i < o.n_agents; i++) cli_check_agent(o.agents[i]);
    struct stat sb;
    if (stat(o.robots[0], &sb) == 0 && S_ISDIR(sb.st_mode))
        return cli_usage_error("check", "--robots %s is a directory; check takes one robots.txt "
                                        "(for a directory of robots.txt files use 'robotscan urls')",
                               o.robots[0]);
    if (o.n_args == 0 && isatty(STDIN_FILENO))
        return cli_usage_error("check", "no URL given and stdin is a terminal: give URLs as "
                                        "arguments or pipe them in (one per line)");

    char *body;
    size_t size;
    if (rs_is_warc_file(o.robots[0])) {
        cli_error("'%s' is a WARC file, not one robots.txt: use 'robotscan urls --robots %s'", o.robots[0], o.robots[0]);
        return 2;
    }
    if (cli_read_robots(o.robots[0], RS_ROBOTS_MAX_BODY, &body, &size) != 0) return 2;
    rs_ruleset *rs = NULL;
    rs_status st = rs_ruleset_parse(body, size, &rs);
    free(body);
    checker cs[CLI_MAX_LIST];
    memset(cs, 0, sizeof cs);
    const int na = o.n_agents;
    for (int i = 0; i < na && st == RS_OK; i++) {
        rs_matcher *m = NULL;
        st = rs_matcher_create(rs, o.agents[i], strlen(o.agents[i]), o.semantics, &m);
        cs[i].matcher = m;
        cs[i].agent = o.agents[i];
        cs[i].multi = na > 1;
        cs[i].format = o.format;
        cs[i].encode = o.encode_urls;
    }
    rs_ruleset_free(rs);
    rc = 0;
    if (st != RS_OK) {
        cli_error("%s: cannot compile: %s", o.robots[0], rs_status_str(st));
        rc = -1;
    }
    if (rc == 0 && rs_format_header(cli_out(), o.format, na > 1 ? COLUMNS_AGENTS : COLUMNS,
                                    na > 1 ? 5 : 4) != RS_OK)
        rc = out_of_memory(64);
    if (rc == 0 && o.n_args > 0) {
        for (int i = 0; i < o.n_args && rc == 0; i++) rc = check_one(cs, na, o.args[i], strlen(o.args[i]));
    } else {
        char *line = NULL;
        size_t cap = 0;
        ssize_t n;
        while (rc == 0 && (n = getline(&line, &cap, stdin)) >= 0) {
            size_t len = (size_t)n;
            if (len && line[len - 1] == '\n') len--;
            if (len && line[len - 1] == '\r') len--;
            rc = check_one(cs, na, line, len);
        }
        if (rc == 0 && ferror(stdin)) {
            cli_error("error reading stdin");
            rc = -1;
        }
        free(line);
    }
    if (cli_out_finish() != 0) rc = -1;
    int any_disallowed = 0;
    for (int i = 0; i < na; i++) {
        any_disallowed |= cs[i].any_disallowed;
        free(cs[i].scratch);
        free(cs[i].rule_text);
        rs_matcher_free(cs[i].matcher);
    }
    if (rc != 0) return 2;
    return any_disallowed ? 1 : 0;
}
