/*
 * args.c - command-line parsing into struct cli_opts, and the messages for
 * bad usage. Parsing only validates; nothing runs here.
 */
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cli_usage_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "robotscan %s: ", command);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'robotscan %s --help'.\n", command);
    return 2;
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    fputs("robotscan: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void cli_warn(const char *fmt, ...)
{
    va_list ap;
    fputs("robotscan: warning: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static int accepts(const char *const *accepted, const char *name)
{
    for (; *accepted; accepted++)
        if (strcmp(*accepted, name) == 0) return 1;
    return 0;
}

static int takes_value(const char *command, const char *name)
{
    if (!strcmp(command, "merge") && !strcmp(name, "--stats")) return 0;  /* merge --stats: what to merge */
    static const char *const VALUED[] = {
        "-n", "--by", "--out", "--shards", "-o", "--output", "--title", "--site",
        "--robots", "--agent", "--format", "--semantics", "--missing", "--only", "--stats",
        "-j", "--jobs", "--host", "--scheme", "--log-format", "--agents", "--html", "--field", "--verify",
        "--memory-limit", "--workload", "--peer", "--seconds", "--save", "--timeout", "--queries", "--seed",
        "--data", NULL,
    };
    return accepts(VALUED, name);
}

/* ===== Hints ===== */

/* Edit distance of two short strings (capped; for "did you mean"). */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 40 || lb > 40) return 99;
    size_t row[41];
    for (size_t j = 0; j <= lb; j++) row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            const size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* The accepted option closest to @name (a prefix of it, or at most 2 edits away), or NULL. */
static const char *closest_option(const char *const *accepted, const char *name)
{
    const char *best = NULL;
    size_t best_d = 3;
    const size_t nl = strlen(name);
    for (; *accepted; accepted++) {
        if (nl >= 3 && strncmp(*accepted, name, nl) == 0) return *accepted;
        const size_t d = edit_distance(name, *accepted);
        if (d < best_d) { best_d = d; best = *accepted; }
    }
    return best;
}

static int unknown_option(const char *command, const char *const *accepted, const char *name)
{
    const char *near = closest_option(accepted, name);
    if (near != NULL) return cli_usage_error(command, "unknown option %s; did you mean %s?", name, near);
    return cli_usage_error(command, "unknown option %s", name);
}

static int add_to_list(const char *command, const char **list, int *n, const char *v, const char *name)
{
    if (*n >= CLI_MAX_LIST) return cli_usage_error(command, "too many %s options (at most %d)", name, CLI_MAX_LIST);
    list[(*n)++] = v;
    return 0;
}

/* --agent: any number of them (diff compares hundreds); the list lives until the process
 * exits, reachable from here. */
static const char **agent_list;
static int agent_cap;

static int add_agent(struct cli_opts *o, const char *v)
{
    if (o->n_agents == agent_cap) {
        const int cap = agent_cap ? agent_cap * 2 : CLI_MAX_LIST;
        const char **l = realloc(agent_list, (size_t)cap * sizeof *l);
        if (l == NULL) {
            cli_error("out of memory");
            return 2;
        }
        agent_list = l;
        agent_cap = cap;
    }
    o->agents = agent_list;
    o->agents[o->n_agents++] = v;
    return 0;
}

static int set_option(struct cli_opts *o, const char *name, const char *v)
{
    const char *c = o->command;
    if (!strcmp(name, "--robots")) {
        if (strcmp(c, "report") && (!strncmp(v, "http://", 7) || !strncmp(v, "https://", 8)))
            return cli_usage_error(c, "--robots takes a file, directory or manifest, not a URL: "
                                      "robotscan does not fetch; save the file first "
                                      "(curl -o robots.txt '%s')", v);
        return add_to_list(c, o->robots, &o->n_robots, v, name);
    }
    if (!strcmp(name, "--agent")) return add_agent(o, v);
    if (!strcmp(name, "--format") && !strcmp(c, "bench")) {
        if (strcmp(v, "text") && strcmp(v, "json"))
            return cli_usage_error(c, "unknown --format '%s' (text or json)", v);
        o->format_json = !strcmp(v, "json");
        return 0;
    }
    if (!strcmp(name, "--format")) {
        if (rs_format_parse(v, &o->format) != 0)
            return cli_usage_error(c, "unknown --format '%s' (text, tsv, csv or jsonl)", v);
        o->format_given = 1;
        return 0;
    }
    if (!strcmp(name, "--semantics")) {
        if (!strcmp(v, "google")) o->semantics = RS_SEMANTICS_GOOGLE;
        else if (!strcmp(v, "first-match")) o->semantics = RS_SEMANTICS_FIRST_MATCH;
        else return cli_usage_error(c, "unknown --semantics '%s' (google or first-match)", v);
        return 0;
    }
    if (!strcmp(name, "--missing")) {
        if (strcmp(v, "allow") && strcmp(v, "disallow") && strcmp(v, "skip"))
            return cli_usage_error(c, "--missing takes allow, disallow or skip, not '%s'", v);
        o->missing = v;
        return 0;
    }
    if (!strcmp(name, "--only")) {
        /* The verdict column says allow/disallow: accept those words too. */
        o->only = !strcmp(v, "allow") ? "allowed" : !strcmp(v, "disallow") ? "disallowed" : v;
        return 0;
    }
    if (!strcmp(name, "--stats") && v == NULL) { o->merge_stats = 1; return 0; }
    if (!strcmp(name, "--stats")) {
        o->stats_path = v;
        return cli_check_writable(v, "--stats") ? 2 : 0;   /* fail before any work */
    }
    if (!strcmp(name, "--html")) { o->html_path = v; return 0; }
    if (!strcmp(name, "--host")) { o->host = v; return 0; }
    if (!strcmp(name, "--scheme")) { o->scheme = v; return 0; }
    if (!strcmp(name, "--log-format")) { o->log_format = v; return 0; }
    if (!strcmp(name, "--field")) return add_to_list(c, o->fields, &o->n_fields, v, name);
    if (!strcmp(name, "--verify")) return add_to_list(c, o->verify, &o->n_verify, v, name);
    if (!strcmp(name, "--memory-limit")) { o->memory_limit = v; return 0; }
    if (!strcmp(name, "-j") || !strcmp(name, "--jobs")) {
        char *end;
        errno = 0;
        const long n = strtol(v, &end, 10);
        if (errno || *end || n < 1 || n > 256)
            return cli_usage_error(c, "%s takes a number of threads from 1 to 256, not '%s'", name, v);
        o->jobs = (int)n;
        return 0;
    }
    if (!strcmp(name, "--help") || !strcmp(name, "-h")) { o->help = 1; return 0; }
    if (!strcmp(name, "--by")) { o->by = v; return 0; }
    if (!strcmp(name, "-n")) { o->shard_count = v; return 0; }
    if (!strcmp(name, "--out")) { o->out_dir = v; return 0; }
    if (!strcmp(name, "--logs")) { o->logs = 1; return 0; }
    if (!strcmp(name, "--records")) { o->records = 1; return 0; }
    if (!strcmp(name, "--shards")) { o->shards_dir = v; return 0; }
    if (!strcmp(name, "-o") || !strcmp(name, "--output")) { o->output = v; return 0; }
    if (!strcmp(name, "--title")) { o->title = v; return 0; }
    if (!strcmp(name, "--site")) { o->site = v; return 0; }
    if (!strcmp(name, "--workload")) return add_to_list(c, o->workloads, &o->n_workloads, v, name);
    if (!strcmp(name, "--peer")) {
        if (strchr(v, '=') == NULL || v[0] == '=')
            return cli_usage_error(c, "--peer takes NAME=COMMAND, not '%s'", v);
        return add_to_list(c, o->peers, &o->n_peers, v, name);
    }
    if (!strcmp(name, "--builtin-peers")) { o->builtin_peers = 1; return 0; }
    if (!strcmp(name, "--serve")) { o->serve = 1; return 0; }
    if (!strcmp(name, "--save")) { o->save_dir = v; return 0; }
    if (!strcmp(name, "--data")) { o->data_dir = v; return 0; }
    if (!strcmp(name, "--seconds") || !strcmp(name, "--timeout")) {
        char *end;
        const double d = strtod(v, &end);
        if (*end || end == v || !(d > 0) || d > 1e6)
            return cli_usage_error(c, "%s takes a number of seconds above 0, not '%s'", name, v);
        *(name[2] == 's' ? &o->seconds : &o->timeout) = d;
        return 0;
    }
    if (!strcmp(name, "--queries") || !strcmp(name, "--seed")) {
        char *end;
        errno = 0;
        const unsigned long long n = strtoull(v, &end, 10);
        if (errno || *end || end == v || v[0] == '-' || n < 1 || (name[2] == 'q' && n > 100000000ull))
            return cli_usage_error(c, "%s takes a whole number from 1%s, not '%s'", name,
                                   name[2] == 'q' ? " to 100000000" : "", v);
        *(name[2] == 'q' ? &o->queries : &o->seed) = n;
        return 0;
    }
    if (!strcmp(name, "--agents")) { o->agents_file = v; return 0; }
    if (!strcmp(name, "--keep-going")) { o->keep_going = 1; return 0; }
    if (!strcmp(name, "--encode-urls")) { o->encode_urls = 1; return 0; }
    if (!strcmp(name, "--quiet")) { o->quiet = 1; return 0; }
    if (!strcmp(name, "--verbose")) { o->verbose = 1; return 0; }
    if (!strcmp(name, "--input-line")) { o->input_line = 1; return 0; }
    if (!strcmp(name, "--progress")) { o->progress = 1; return 0; }
    if (!strcmp(name, "--no-progress")) { o->progress = 0; return 0; }
    if (!strcmp(name, "--fail-on-disallowed") || !strcmp(name, "--fail-on-violation")) {
        o->fail_on = 1;
        return 0;
    }
    return cli_usage_error(c, "unhandled option %s", name);
}

static int parse_all(const char *command, const char *const *accepted, int argc, char **argv,
                     struct cli_opts *o);

int cli_parse(const char *command, const char *const *accepted, int argc, char **argv,
              struct cli_opts *o)
{
    const int rc = parse_all(command, accepted, argc, argv, o);
    /* bench renders its own page from its results, not from --stats */
    return rc ? rc : strcmp(command, "bench") ? cli_html_prepare(o) : 0;
}

static int parse_all(const char *command, const char *const *accepted, int argc, char **argv,
                     struct cli_opts *o)
{
    memset(o, 0, sizeof *o);
    o->command = command;
    o->format = isatty(STDOUT_FILENO) ? RS_FORMAT_TEXT : RS_FORMAT_TSV;
    o->progress = -1;
    o->jobs = 1;
    o->missing = "allow";
    o->agents = agent_list;
    /* Positional arguments are compacted into argv itself: the write index
     * never passes the read index, and nothing needs freeing. */
    o->args = argv;
    int only_positional = 0;
    for (int i = 0; i < argc; i++) {
        char *a = argv[i];
        if (only_positional || a[0] != '-' || a[1] == '\0') {
            o->args[o->n_args++] = a;
            continue;
        }
        if (!strcmp(a, "--")) { only_positional = 1; continue; }
        if (a[1] == 'j' && a[2] != '\0') { /* -jN */
            if (!accepts(accepted, "-j")) return unknown_option(command, accepted, a);
            const int rc = set_option(o, "-j", a + 2);
            if (rc) return rc;
            continue;
        }
        char name[64];
        const char *value = NULL;
        const char *eq = strchr(a, '=');
        const size_t nlen = eq ? (size_t)(eq - a) : strlen(a);
        if (nlen >= sizeof name) return cli_usage_error(command, "unknown option %.40s...", a);
        memcpy(name, a, nlen);
        name[nlen] = '\0';
        /* --html FILE renders the --stats JSON (commands that call cli_write_html). */
        if (!accepts(accepted, name) && !(!strcmp(name, "--html") && cli_html_supported(command)))
            return unknown_option(command, accepted, name);
        if (takes_value(command, name)) {
            if (eq) value = eq + 1;
            else if (i + 1 < argc) value = argv[++i];
            else return cli_usage_error(command, "%s needs a value", name);
        } else if (eq) {
            return cli_usage_error(command, "%s takes no value", name);
        }
        const int rc = set_option(o, name, value);
        if (rc) return rc;
    }
    return 0;
}

int cli_read_file(const char *path, size_t max, char **data, size_t *size, int *truncated)
{
    *data = NULL;
    *size = 0;
    if (truncated) *truncated = 0;
    const int fd = open(path, O_RDONLY);
    if (fd < 0) {
        cli_error("%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        cli_error("%s: cannot read: %s", path, strerror(EISDIR));
        close(fd);
        return -1;
    }
    size_t cap = 65536, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (buf == NULL) { cli_error("%s: cannot read: out of memory", path); close(fd); return -1; }
        if (len == max + 1) break;
        if (len == cap) {
            cap *= 2;
            char *nb = realloc(buf, cap);
            if (nb == NULL) { free(buf); buf = NULL; continue; }
            buf = nb;
        }
        size_t want = cap - len;
        if (want > max + 1 - len) want = max + 1 - len;
        const ssize_t n = read(fd, buf + len, want);
        if (n < 0) {
            if (errno == EINTR) continue;
            cli_error("%s: cannot read: %s", path, strerror(errno));
            free(buf);
            close(fd);
            return -1;
        }
        if (n == 0) break;
        len += (size_t)n;
    }
    close(fd);
    if (len > max) {
        len = max;
        if (truncated) *truncated = 1;
    }
    *data = buf;
    *size = len;
    return 0;
}

/* Agents from --agents FILE: one per line, '#' comments, blanks skipped; each is cut out of
 * *@text in place (NUL-terminated). @return 0, or -1 after a message. */
int cli_read_agents(const char *path, char **text, const char ***list, size_t *n)
{
    size_t size;
    *list = NULL;
    *n = 0;
    if (cli_read_file(path, (size_t)64 << 20, text, &size, NULL) != 0) return -1;
    char *t = realloc(*text, size + 1);     /* room for the last token's NUL */
    if (t == NULL) {
        cli_error("out of memory reading '%s'", path);
        return -1;
    }
    *text = t;
    t[size] = '\0';
    size_t cap = 0;
    char *p = *text, *end = *text + size;
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *e = nl ? nl : end;
        char *s = p;
        p = nl ? nl + 1 : end;
        while (s < e && (*s == ' ' || *s == '\t')) s++;
        while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r')) e--;
        if (s == e || *s == '#') continue;
        if (*n == cap) {
            cap = cap ? cap * 2 : 64;
            const char **l = realloc(*list, cap * sizeof *l);
            if (l == NULL) {
                cli_error("out of memory reading '%s'", path);
                return -1;
            }
            *list = l;
        }
        *e = '\0';              /* the line's end: '\n', a blank, or the byte after the data */
        (*list)[(*n)++] = s;
    }
    if (*n == 0) {
        cli_error("no agent in '%s'", path);
        return -1;
    }
    return 0;
}

void cli_check_agent(const char *agent)
{
    const size_t len = strlen(agent);
    const size_t tok = rs_agent_token(agent, len);
    if (tok == len && len > 0) return;
    /* A whole User-Agent header: suggest the crawler token inside it (Googlebot, not Mozilla). */
    rs_botid *ids = NULL;
    rs_bot bot;
    if (strchr(agent, ' ') != NULL && rs_botid_create(NULL, 0, &ids) == RS_OK &&
        rs_bot_identify(ids, agent, len, &bot)) {
        cli_warn("--agent '%s' looks like a User-Agent header, not a product token: no group can "
                 "name it, so only '*' groups apply; did you mean '%.*s'?", agent,
                 (int)bot.token.len, bot.token.ptr);
        rs_botid_free(ids);
        return;
    }
    rs_botid_free(ids);
    if (tok > 0)
        cli_warn("--agent '%s' is not a product token: no group can name it, so only '*' groups "
                 "apply; did you mean '%.*s'?", agent, (int)tok, agent);
    else
        cli_warn("--agent '%s' is not a product token ([A-Za-z_-]+): no group can name it, so "
                 "only '*' groups apply", agent);
}
