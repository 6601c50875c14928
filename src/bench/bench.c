/*
 * bench.c - the matcher arena's handle: workloads and peers added, every
 * peer run on every workload, robotscan as a protocol peer (--serve).
 * The adapters of scripts/peers/ are found beside the program
 * (PROGRAM_DIR/scripts/peers, or $RS_PEERS_DIR); each is added only when
 * its interpreter and library are there, otherwise named with the package
 * that brings it.
 * Deliberately not here: workloads (workload.c), the protocol (peer.c),
 * causes (causes.c), output (report.c).
 */
#include "bench/bench.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void seterr(rs_bench *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void seterr(rs_bench *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->err, sizeof b->err, fmt, ap);
    va_end(ap);
}

static void note(rs_bench *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(rs_bench *b, const char *fmt, ...)
{
    if (b->note == NULL) return;
    char line[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    b->note(b->note_user, line);
}

rs_status rs_bench_create(const rs_bench_config *cfg, rs_bench **out)
{
    RS_RETURN_IF(out == NULL, RS_ERR_USAGE);
    rs_bench *b = rs_calloc(1, sizeof *b);
    RS_RETURN_IF(b == NULL, RS_ERR_NOMEM);
    if (cfg) b->cfg = *cfg;
    if (b->cfg.seed == 0) b->cfg.seed = 1;
    if (b->cfg.timeout <= 0) b->cfg.timeout = 10;
    if (cfg && cfg->data_dir) b->data_dir = rs_strdup(cfg->data_dir);
    else {
        static const char *const TRY[] = { "build/testdata/data", "../shared/data" };
        const char *env = getenv("RS_BENCH_DATA");
        if (env && *env) b->data_dir = rs_strdup(env);
        for (size_t i = 0; b->data_dir == NULL && i < sizeof TRY / sizeof TRY[0]; i++) {
            char p[512];
            struct stat st;
            snprintf(p, sizeof p, "%s/robots", TRY[i]);
            if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) b->data_dir = rs_strdup(TRY[i]);
        }
        if (b->data_dir == NULL) b->data_dir = rs_strdup("build/testdata/data");
    }
    b->cfg.data_dir = b->data_dir;
    *out = b;
    return RS_OK;
}

void rs_bench_free(rs_bench *b)
{
    if (b == NULL) return;
    for (size_t i = 0; i < b->n_workloads; i++) rs_bw_free(&b->workloads[i]);
    for (size_t i = 0; i < b->n_peers; i++) { rs_free(b->peers[i].name); rs_free(b->peers[i].command); }
    for (size_t i = 0; i < b->n_workloads * b->n_peers && b->results; i++)
        for (int c = 0; c < BC_COUNT; c++) rs_free(b->results[i].example[c]);
    rs_free(b->results);
    rs_free(b->data_dir);
    rs_free(b->missing);
    rs_free(b);
}

const char *rs_bench_errmsg(const rs_bench *b) { return b && b->err[0] ? b->err : "no error"; }

void rs_bench_set_note(rs_bench *b, rs_bench_note_fn fn, void *user)
{
    b->note = fn;
    b->note_user = user;
}

rs_status rs_bench_add_workload(rs_bench *b, const char *name, const char *save_dir)
{
    RS_RETURN_IF(b == NULL || name == NULL, RS_ERR_USAGE);
    if (b->n_workloads == RS_BENCH_MAX) { seterr(b, "too many workloads (at most %d)", RS_BENCH_MAX); return RS_ERR_USAGE; }
    bw_workload *w = &b->workloads[b->n_workloads];
    struct stat st;
    rs_status s;
    if (stat(name, &st) == 0 && S_ISDIR(st.st_mode)) {
        s = rs_bw_load(name, w, b->err, sizeof b->err);
    } else {
        char dir[4096];
        int temp = 0;
        if (save_dir) {
            if (mkdir(save_dir, 0755) != 0 && errno != EEXIST) {
                seterr(b, "%s: cannot create: %s", save_dir, strerror(errno));
                return RS_ERR_IO;
            }
            snprintf(dir, sizeof dir, "%s/%s", save_dir, name);
        } else {
            const char *tmp = getenv("TMPDIR");
            snprintf(dir, sizeof dir, "%s/robotscan-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
            if (strchr(name, '/') == NULL && mkdtemp(dir) == NULL) {
                seterr(b, "%s: cannot create a temporary folder: %s", dir, strerror(errno));
                return RS_ERR_IO;
            }
            temp = 1;
        }
        note(b, "generating workload %s%s%s", name, save_dir ? " into " : "", save_dir ? dir : "");
        s = rs_bw_generate(name, b->data_dir, b->cfg.seed, b->cfg.queries, dir, w, b->err, sizeof b->err);
        if (s != RS_OK && temp && strchr(name, '/') == NULL) rs_bw_remove_dir(dir);
        if (s == RS_OK) w->temp = temp;
    }
    if (s == RS_OK) b->n_workloads++;
    return s;
}

/* The first word of @command names an executable (a path, or a name on PATH). */
static int command_exists(const char *command, char *word, size_t cap)
{
    while (*command == ' ' || *command == '\t') command++;
    /* skip VAR=value prefixes */
    for (;;) {
        const char *sp = command + strcspn(command, " \t");
        const char *eq = memchr(command, '=', (size_t)(sp - command));
        if (eq == NULL || *sp == '\0') break;
        command = sp + strspn(sp, " \t");
    }
    const size_t n = strcspn(command, " \t");
    snprintf(word, cap, "%.*s", (int)n, command);
    if (word[0] == '\0') return 0;
    if (strchr(word, '/')) return access(word, X_OK) == 0;
    const char *path = getenv("PATH");
    if (path == NULL) path = "/usr/bin:/bin";
    while (*path) {
        const size_t l = strcspn(path, ":");
        char full[4096];
        snprintf(full, sizeof full, "%.*s/%s", (int)l, path, word);
        struct stat st;
        if (l && stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0) return 1;
        path += l + (path[l] == ':');
    }
    /* shell builtins a command may start with */
    return !strcmp(word, "exec") || !strcmp(word, "cd") || !strcmp(word, "env");
}

static rs_status add_peer(rs_bench *b, const char *name, const char *command, int inprocess)
{
    if (b->n_peers == RS_BENCH_MAX) { seterr(b, "too many peers (at most %d)", RS_BENCH_MAX); return RS_ERR_USAGE; }
    for (size_t i = 0; i < b->n_peers; i++)
        if (!strcmp(b->peers[i].name, name)) { seterr(b, "two peers named '%s'", name); return RS_ERR_USAGE; }
    bpeer *p = &b->peers[b->n_peers];
    p->name = rs_strdup(name);
    p->command = rs_strdup(command ? command : "");
    p->inprocess = inprocess;
    RS_RETURN_IF(p->name == NULL || p->command == NULL, RS_ERR_NOMEM);
    b->n_peers++;
    return RS_OK;
}

rs_status rs_bench_add_peer(rs_bench *b, const char *name, const char *command)
{
    RS_RETURN_IF(b == NULL || name == NULL || command == NULL, RS_ERR_USAGE);
    char word[512];
    if (!name[0]) { seterr(b, "--peer needs NAME=COMMAND, not '=%s'", command); return RS_ERR_USAGE; }
    if (!command_exists(command, word, sizeof word)) {
        seterr(b, "--peer %s: command not found: '%s'", name, word);
        return RS_ERR_USAGE;
    }
    return add_peer(b, name, command, 0);
}

rs_status rs_bench_add_inprocess(rs_bench *b) { return add_peer(b, "robotscan", NULL, 1); }

/* ===== Built-in peers (scripts/peers) ===== */

typedef struct {
    const char *name;
    const char *check;     /* shell test that the peer can run (@: the peers folder) */
    const char *command;   /* @: the peers folder */
    const char *package;   /* what brings it */
} builtin;

static const builtin BUILTINS[] = {
    { "robotscan-python", "PYTHONPATH=@/../../python /usr/bin/python3 -c 'import robotscan' 2>/dev/null",
      "/usr/bin/python3 @/robotscan_python.py", "make (build/librobotscan.so) and python3" },
    { "urllib", "/usr/bin/python3 -c 'import urllib.robotparser' 2>/dev/null",
      "/usr/bin/python3 @/urllib_peer.py", "python3" },
    { "protego", "/usr/bin/python3 -c 'import protego' 2>/dev/null",
      "/usr/bin/python3 @/protego_peer.py", "Debian python3-protego" },
    { "robots-parser", "command -v node >/dev/null && node @/robots_parser_peer.js --check 2>/dev/null",
      "node @/robots_parser_peer.js", "npm robots-parser (scripts/deps.sh puts it in build/peers) and nodejs" },
    { "www-robotrules", "perl -MWWW::RobotRules -e1 2>/dev/null",
      "perl @/robotrules_peer.pl", "Debian libwww-robotrules-perl" },
    { "webrobots", "command -v ruby >/dev/null && ruby -rwebrobots -e1 2>/dev/null",
      "ruby @/webrobots_peer.rb", "Debian ruby-webrobots" },
};

/* @tmpl with each '@' replaced by @dir. */
static void subst(char *dst, size_t cap, const char *tmpl, const char *dir)
{
    size_t n = 0;
    const size_t dl = strlen(dir);
    for (; *tmpl && n + 1 < cap; tmpl++) {
        if (*tmpl == '@' && n + dl + 1 < cap) { memcpy(dst + n, dir, dl); n += dl; }
        else if (*tmpl != '@') dst[n++] = *tmpl;
    }
    dst[n] = '\0';
}

static int peers_dir(const char *self, char *dir, size_t cap)
{
    const char *env = getenv("RS_PEERS_DIR");
    if (env && *env) { snprintf(dir, cap, "%s", env); return 0; }
    char exe[PATH_MAX];
    char *r = self ? realpath(self, exe) : NULL;
    if (r == NULL) {
        const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n <= 0) return -1;
        exe[n] = '\0';
    }
    char *slash = strrchr(exe, '/');
    if (slash) *slash = '\0';
    static const char *const REL[] = { "/scripts/peers", "/../scripts/peers", "/../share/robotscan/peers" };
    for (size_t i = 0; i < sizeof REL / sizeof REL[0]; i++) {
        char p[PATH_MAX + 64];
        snprintf(p, sizeof p, "%s%s", exe, REL[i]);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            char *abs = realpath(p, NULL);
            if (snprintf(dir, cap, "%s", abs ? abs : p) >= (int)cap) dir[0] = '\0';
            free(abs);
            return 0;
        }
    }
    return -1;
}

rs_status rs_bench_add_builtin_peers(rs_bench *b, const char *self, char *missing, size_t missing_cap)
{
    RS_RETURN_IF(b == NULL, RS_ERR_USAGE);
    if (missing && missing_cap) missing[0] = '\0';
    RS_FORWARD(rs_bench_add_inprocess(b));
    char exe[PATH_MAX];
    char *r = self ? realpath(self, exe) : NULL;
    if (r == NULL) {
        const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n > 0) exe[n] = '\0'; else snprintf(exe, sizeof exe, "robotscan");
    }
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "'%s' bench --serve", exe);
    RS_FORWARD(add_peer(b, "robotscan-serve", cmd, 0));
    char dir[PATH_MAX];
    const int have_dir = peers_dir(self, dir, sizeof dir) == 0;
    size_t ml = 0;
    b->n_missing = 0;
    for (size_t i = 0; i < sizeof BUILTINS / sizeof BUILTINS[0]; i++) {
        const builtin *bi = &BUILTINS[i];
        char check[PATH_MAX * 2];
        int ok = have_dir, script_ok = 1;
        if (ok) {
            char script[PATH_MAX + 64];
            subst(script, sizeof script, strrchr(bi->command, ' ') + 1, dir);
            ok = script_ok = access(script, R_OK) == 0;
        }
        if (ok) {
            subst(check, sizeof check, bi->check, dir);
            ok = system(check) == 0;
        }
        if (ok) {
            subst(cmd, sizeof cmd, bi->command, dir);
            RS_FORWARD(add_peer(b, bi->name, cmd, 0));
        } else {
            const char *why = !have_dir ? "scripts/peers not found beside the program" :
                              !script_ok ? "its adapter is missing from scripts/peers" : bi->package;
            b->missing_name[b->n_missing] = bi->name;
            b->missing_why[b->n_missing++] = why;
            if (missing == NULL || ml >= missing_cap) continue;
            const int n = snprintf(missing + ml, missing_cap - ml, "%s%s (%s)", ml ? ", " : "", bi->name, why);
            if (n > 0) ml += (size_t)n;
            if (ml >= missing_cap) ml = missing_cap - 1;
        }
    }
    rs_free(b->missing);
    b->missing = missing ? rs_strdup(missing) : NULL;
    return RS_OK;
}

/* ===== Running ===== */

static const char *const STATUS[] = { "ok", "partial", "crashed", "timeout", "garbage", "failed" };

const char *rs_bench_status_str(int st) { return st >= 0 && st <= BP_FAILED ? STATUS[st] : "?"; }

rs_status rs_bench_run(rs_bench *b)
{
    RS_RETURN_IF(b == NULL, RS_ERR_USAGE);
    if (b->n_workloads == 0 || b->n_peers == 0) {
        seterr(b, "%s", b->n_workloads == 0 ? "no workload (--workload NAME)" :
                        "no peer (--peer NAME=COMMAND or --builtin-peers)");
        return RS_ERR_USAGE;
    }
    rs_free(b->results);
    b->results = rs_calloc(b->n_workloads * b->n_peers, sizeof *b->results);
    RS_RETURN_IF(b->results == NULL, RS_ERR_NOMEM);
    for (size_t wi = 0; wi < b->n_workloads; wi++) {
        const bw_workload *w = &b->workloads[wi];
        int8_t *answers = rs_malloc(w->n_q + 1);
        RS_RETURN_IF(answers == NULL, RS_ERR_NOMEM);
        for (size_t pi = 0; pi < b->n_peers; pi++) {
            const bpeer *p = &b->peers[pi];
            bp_result *r = &b->results[wi * b->n_peers + pi];
            note(b, "%s: %s (%zu queries)", w->name, p->name, w->n_q);
            if (p->inprocess) rs_bp_inprocess(w, b->cfg.seconds, answers, r);
            else rs_bp_run(p->command, w, b->cfg.timeout, b->cfg.seconds, answers, r);
            rs_bp_check(w, answers, r);
            if (r->status != BP_OK) note(b, "%s: %s: %s: %s", w->name, p->name, STATUS[r->status], r->detail);
        }
        rs_free(answers);
    }
    return RS_OK;
}

int rs_bench_any_failed(const rs_bench *b)
{
    for (size_t i = 0; b->results && i < b->n_workloads * b->n_peers; i++)
        if (b->results[i].status >= BP_CRASHED) return 1;
    return 0;
}

/* ===== robotscan as a peer ===== */

typedef struct {
    int fd;
    rs_outbuf out;
    char *err; size_t err_cap;
    rs_status st;
} serve_out;

static void serve_flush(serve_out *o)
{
    size_t done = 0;
    while (done < o->out.len && o->st == RS_OK) {
        const ssize_t n = write(o->fd, o->out.ptr + done, o->out.len - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            snprintf(o->err, o->err_cap, "cannot write answers: %s", strerror(errno));
            o->st = RS_ERR_IO;
        } else done += (size_t)n;
    }
    o->out.len = 0;
}

rs_status rs_bench_serve(int in_fd, int out_fd, char *err, size_t err_cap)
{
    enum { MAXA = 16 };
    struct { char agent[256]; rs_matcher *m; } cache[MAXA];
    int n_cache = 0;
    rs_ruleset *rs = NULL;
    serve_out o = { out_fd, { 0 }, err, err_cap, RS_OK };
    size_t cap = 1 << 16, len = 0;
    char *buf = rs_malloc(cap);
    RS_RETURN_IF(buf == NULL, RS_ERR_NOMEM);
    int eof = 0;
    while (o.st == RS_OK && !eof) {
        if (len == cap) {
            char *nb = rs_realloc(buf, cap * 2);
            if (nb == NULL) { o.st = RS_ERR_NOMEM; break; }
            buf = nb;
            cap *= 2;
        }
        serve_flush(&o);   /* before blocking on input: the answers so far go out */
        const ssize_t n = read(in_fd, buf + len, cap - len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) { snprintf(err, err_cap, "cannot read queries: %s", strerror(errno)); o.st = RS_ERR_IO; break; }
        if (n == 0) { eof = 1; if (len && buf[len - 1] != '\n') buf[len++] = '\n'; }
        else len += (size_t)n;
        size_t start = 0;
        char *nl;
        while (o.st == RS_OK && (nl = memchr(buf + start, '\n', len - start)) != NULL) {
            char *line = buf + start;
            size_t l = (size_t)(nl - line);
            if (l && line[l - 1] == '\r') l--;
            char *tab = memchr(line, '\t', l);
            start = (size_t)(nl - buf) + 1;
            if (tab == NULL) continue;
            const size_t kl = (size_t)(tab - line);
            if (kl == 6 && !memcmp(line, "robots", 6)) {
                for (int k = 0; k < n_cache; k++) rs_matcher_free(cache[k].m);
                n_cache = 0;
                rs_ruleset_free(rs);
                rs = NULL;
                char path[4096], *body = NULL;
                snprintf(path, sizeof path, "%.*s", (int)(l - kl - 1), tab + 1);
                size_t size = 0;
                FILE *f = fopen(path, "rb");
                if (f) {
                    body = rs_malloc(RS_ROBOTS_MAX_BODY);
                    if (body) size = fread(body, 1, RS_ROBOTS_MAX_BODY, f);
                    fclose(f);
                }
                o.st = rs_ruleset_parse(body, size, &rs);   /* unreadable: an empty file */
                rs_free(body);
                continue;
            }
            if (kl >= sizeof cache[0].agent) continue;
            rs_matcher *m = NULL;
            for (int k = 0; k < n_cache; k++)
                if (strlen(cache[k].agent) == kl && !memcmp(cache[k].agent, line, kl)) { m = cache[k].m; break; }
            if (m == NULL) {
                if (n_cache == MAXA) rs_matcher_free(cache[--n_cache].m);
                if (rs == NULL && (o.st = rs_ruleset_parse(NULL, 0, &rs)) != RS_OK) break;
                if ((o.st = rs_matcher_create(rs, line, kl, RS_SEMANTICS_GOOGLE, &m)) != RS_OK) break;
                memcpy(cache[n_cache].agent, line, kl);
                cache[n_cache].agent[kl] = '\0';
                cache[n_cache++].m = m;
            }
            rs_verdict v;
            const size_t ul = l - kl - 1;
            if ((o.st = rs_matcher_check_url(m, tab + 1, ul, 0, &v)) != RS_OK) break;
            o.st = rs_outbuf_append(&o.out, v.disallowed ? "disallow\n" : "allow\n", v.disallowed ? 9 : 6);
        }
        memmove(buf, buf + start, len - start);
        len -= start;
    }
    if (o.st == RS_OK) serve_flush(&o);
    for (int k = 0; k < n_cache; k++) rs_matcher_free(cache[k].m);
    rs_ruleset_free(rs);
    rs_free(buf);
    rs_outbuf_free(&o.out);
    if (o.st == RS_ERR_NOMEM) snprintf(err, err_cap, "out of memory");
    return o.st;
}
