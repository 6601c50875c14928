/*
 * workload.c - the arena's workloads: generated reproducibly (a seed) from
 * the bundled test data, written as a plain folder, loaded back.
 *
 * A workload folder is what a peer sees, so anyone can run it without
 * robotscan (docs/bench.md):
 *   input.txt     the protocol input: `robots<TAB>robots/NNNNN.txt` lines, each
 *                 followed by `AGENT<TAB>URL` queries (paths relative to the folder)
 *   expected.txt  the reference verdict of each query, one `allow`/`disallow` a line
 *   robots/       the robots.txt files, bytes as found
 *   README.txt    what the files are and how the workload was made
 * Every query's verdict is robotscan's default semantics (which agree with
 * every conformance vector of Google's reference parser).
 *
 * Workloads: real (the ~4,000 real files, agents they name and common
 * crawlers, URLs drawn from their own rules and random paths), hard (the
 * conformance folders' files and queries: typos, BOMs, line ends, long
 * lines, %-escapes, index.html, odd agents), many-sites (100,000 sites in
 * random order, each loading one of the real files), big-file (one file near
 * the 500 KiB limit, many queries).
 * Deliberately not here: running peers (peer.c), checking (causes.c).
 */
#include "bench/bench.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ===== Small helpers ===== */

static void seterr(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void seterr(char *err, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
}

static uint64_t next_rand(uint64_t *s)   /* splitmix64 */
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static size_t pick(uint64_t *s, size_t n) { return n ? (size_t)(next_rand(s) % n) : 0; }

static int read_all(const char *path, char **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    const int fd = open(path, O_RDONLY);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) { close(fd); errno = EISDIR; return -1; }
    char *buf = rs_malloc((size_t)st.st_size + 1);
    if (buf == NULL) { close(fd); errno = ENOMEM; return -1; }
    size_t len = 0;
    while (len < (size_t)st.st_size) {
        const ssize_t n = read(fd, buf + len, (size_t)st.st_size - len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        len += (size_t)n;
    }
    close(fd);
    buf[len] = '\0';
    *data = buf;
    *size = len;
    return 0;
}

static int write_all(const char *path, const void *data, size_t size)
{
    const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return -1;
    const char *p = data;
    while (size) {
        const ssize_t n = write(fd, p, size);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) { const int e = errno; close(fd); errno = e; return -1; }
        p += n;
        size -= (size_t)n;
    }
    return close(fd);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The *.txt names of @dir, sorted (rs_malloc'd array of rs_malloc'd names). */
static char **list_txt(const char *dir, size_t *n)
{
    *n = 0;
    DIR *d = opendir(dir);
    if (d == NULL) return NULL;
    size_t cap = 0;
    char **v = NULL;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".txt")) continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 1024;
            char **nv = rs_realloc(v, cap * sizeof *v);
            if (nv == NULL) break;
            v = nv;
        }
        v[(*n)++] = rs_strdup(e->d_name);
    }
    closedir(d);
    if (v) qsort(v, *n, sizeof *v, cmp_str);
    return v;
}

static void free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++) rs_free(v[i]);
    rs_free(v);
}

static void shuffle(char **v, size_t n, uint64_t *s)
{
    for (size_t i = n; i > 1; i--) {
        const size_t j = pick(s, i);
        char *t = v[i - 1]; v[i - 1] = v[j]; v[j] = t;
    }
}

void rs_bw_remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL) return;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (unlink(path) != 0) rs_bw_remove_dir(path);
    }
    closedir(d);
    rmdir(dir);
}

/* ===== Generation ===== */

#define MAX_AGENTS 12

typedef struct {
    const char *dir;
    char *err; size_t err_cap;
    uint64_t rng;
    rs_outbuf input, expected;
    uint32_t n_files;
    uint64_t n_q;
    rs_status st;
    /* the current file */
    rs_ruleset *rs;
    struct { char name[64]; rs_matcher *m; } agents[MAX_AGENTS];
    int n_agents;
} gen;

static const char *const CRAWLERS[] = {
    "Googlebot", "Bingbot", "GPTBot", "CCBot", "Googlebot-Image", "Applebot", "YandexBot",
    "Baiduspider", "DuckDuckBot", "AhrefsBot", "Slurp", "FooBot",
};
#define N_CRAWLERS (sizeof CRAWLERS / sizeof CRAWLERS[0])

static const char *const SEGMENTS[] = {
    "", "a", "x/y", "index.html", "index.htm", "foo.php", "search", "admin/", "wp-admin/",
    "%20", "%2F", "%7E", "\xc3\xbc", "p%C3%BCr", "?q=1", "?ref=a&b=2", ";jsessionid=1", "page/2",
    "cgi-bin/", "tmp", ".pdf", "file.PDF", "A/B", "*", "$",
};
#define N_SEGMENTS (sizeof SEGMENTS / sizeof SEGMENTS[0])

static void gen_out(gen *g, rs_outbuf *o, const char *s, size_t n)
{
    if (g->st == RS_OK) g->st = rs_outbuf_append(o, s, n);
}

static void gen_close_file(gen *g)
{
    for (int i = 0; i < g->n_agents; i++) rs_matcher_free(g->agents[i].m);
    g->n_agents = 0;
    rs_ruleset_free(g->rs);
    g->rs = NULL;
}

/* Writes @body as robots/NNNNN.txt and starts a block on it (`robots` line). */
static void gen_file(gen *g, const char *body, size_t size)
{
    gen_close_file(g);
    if (g->st != RS_OK) return;
    char rel[32], path[4096];
    snprintf(rel, sizeof rel, "robots/%05u.txt", g->n_files++);
    snprintf(path, sizeof path, "%s/%s", g->dir, rel);
    if (write_all(path, body, size) != 0) {
        seterr(g->err, g->err_cap, "%s: cannot write: %s", path, strerror(errno));
        g->st = RS_ERR_IO;
        return;
    }
    g->st = rs_ruleset_parse(body, size, &g->rs);
    gen_out(g, &g->input, "robots\t", 7);
    gen_out(g, &g->input, rel, strlen(rel));
    gen_out(g, &g->input, "\n", 1);
}

/* Starts another block on an already written file (many-sites). */
static void gen_reuse(gen *g, uint32_t file, const char *body, size_t size)
{
    gen_close_file(g);
    if (g->st != RS_OK) return;
    char line[48];
    const int n = snprintf(line, sizeof line, "robots\trobots/%05u.txt\n", file);
    gen_out(g, &g->input, line, (size_t)n);
    g->st = rs_ruleset_parse(body, size, &g->rs);
}

static rs_matcher *gen_matcher(gen *g, const char *agent)
{
    for (int i = 0; i < g->n_agents; i++)
        if (!strcmp(g->agents[i].name, agent)) return g->agents[i].m;
    if (g->st != RS_OK || g->rs == NULL) return NULL;
    if (g->n_agents == MAX_AGENTS) {
        rs_matcher_free(g->agents[0].m);
        memmove(g->agents, g->agents + 1, (MAX_AGENTS - 1) * sizeof g->agents[0]);
        g->n_agents--;
    }
    rs_matcher *m = NULL;
    g->st = rs_matcher_create(g->rs, agent, strlen(agent), RS_SEMANTICS_GOOGLE, &m);
    if (g->st != RS_OK) return NULL;
    snprintf(g->agents[g->n_agents].name, sizeof g->agents[0].name, "%s", agent);
    g->agents[g->n_agents++].m = m;
    return m;
}

static int query_ok(const char *s, size_t n)
{
    if (n == 0) return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\0') return 0;
    return 1;
}

/* One query with its reference verdict. Agents the protocol cannot carry are skipped. */
static void gen_query(gen *g, const char *agent, const char *url, size_t url_len)
{
    const size_t alen = strlen(agent);
    if (g->st != RS_OK || !query_ok(agent, alen) || !query_ok(url, url_len) || alen >= 64 ||
        !strcmp(agent, "robots"))
        return;
    rs_matcher *m = gen_matcher(g, agent);
    if (m == NULL) return;
    rs_verdict v;
    g->st = rs_matcher_check_url(m, url, url_len, 0, &v);
    gen_out(g, &g->input, agent, alen);
    gen_out(g, &g->input, "\t", 1);
    gen_out(g, &g->input, url, url_len);
    gen_out(g, &g->input, "\n", 1);
    gen_out(g, &g->expected, v.disallowed ? "disallow\n" : "allow\n", v.disallowed ? 9 : 6);
    g->n_q++;
}

/* A path aimed at one of @m's rules (wildcards filled in, sometimes a suffix), or a random one. */
static size_t gen_path(gen *g, const rs_matcher *m, char *dst, size_t cap)
{
    size_t n = 0;
    const size_t rules = m ? rs_matcher_rule_count(m) : 0;
    rs_rule_info ri;
    if (rules && pick(&g->rng, 10) < 7 && rs_matcher_rule(m, (int32_t)pick(&g->rng, rules), &ri) == RS_OK &&
        ri.pattern.len < cap / 2) {
        if (ri.pattern.len == 0 || ri.pattern.ptr[0] != '/') dst[n++] = '/';
        for (size_t i = 0; i < ri.pattern.len && n + 32 < cap; i++) {
            const char c = ri.pattern.ptr[i];
            if (c == '*') {
                const char *s = SEGMENTS[pick(&g->rng, 8)];
                const size_t l = strlen(s);
                memcpy(dst + n, s, l);
                n += l;
            } else if (c == '$' && i + 1 == ri.pattern.len) {
                if (pick(&g->rng, 2) == 0) return n;   /* exactly the end */
            } else {
                dst[n++] = c;
            }
        }
    } else {
        dst[n++] = '/';
    }
    /* A suffix half the time: past a `$`, deeper, an index file, a query. */
    const int parts = (int)pick(&g->rng, 3);
    for (int k = 0; k < parts && n + 32 < cap; k++) {
        const char *s = SEGMENTS[pick(&g->rng, N_SEGMENTS)];
        const size_t l = strlen(s);
        memcpy(dst + n, s, l);
        n += l;
    }
    return n;
}

/* @nq queries on the current file: agents it names or common crawlers, paths from its rules. */
static void gen_queries(gen *g, const char *host, size_t nq)
{
    if (g->st != RS_OK || g->rs == NULL) return;
    rs_str tokens[16];
    size_t nt = rs_ruleset_tokens(g->rs, tokens, 16);
    if (nt > 16) nt = 16;
    for (size_t i = 0; i < nq && g->st == RS_OK; i++) {
        char agent[64];
        const size_t t = pick(&g->rng, 2);
        if (nt > 0 && t == 0) {
            const rs_str *tok = &tokens[pick(&g->rng, nt)];
            snprintf(agent, sizeof agent, "%.*s", (int)RS_MIN(tok->len, 63), tok->ptr);
        } else {
            snprintf(agent, sizeof agent, "%s", CRAWLERS[pick(&g->rng, N_CRAWLERS)]);
        }
        if (rs_agent_token(agent, strlen(agent)) != strlen(agent))   /* a product token only */
            snprintf(agent, sizeof agent, "%s", CRAWLERS[0]);
        rs_matcher *m = gen_matcher(g, agent);
        char url[2048];
        size_t n = (size_t)snprintf(url, sizeof url, "https://%s", host);
        n += gen_path(g, m, url + n, sizeof url - n);
        gen_query(g, agent, url, n);
    }
}

static char *host_of(const char *name)   /* "www.x.com.txt" -> "www.x.com" */
{
    char *h = rs_strdup(name);
    if (h) {
        const size_t l = strlen(h);
        if (l > 4) h[l - 4] = '\0';
    }
    return h;
}

static void gen_real(gen *g, const char *data_dir, uint64_t queries, int many_sites)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/robots", data_dir);
    size_t n = 0;
    char **names = list_txt(dir, &n);
    if (n == 0) {
        seterr(g->err, g->err_cap, "%s: no robots.txt files (the bundled data: run `make testdata`, "
               "or give --data DIR)", dir);
        g->st = RS_ERR_USAGE;
        free_list(names, n);
        return;
    }
    shuffle(names, n, &g->rng);
    if (!many_sites) {
        const size_t per_file = 50;
        size_t files = (size_t)((queries + per_file - 1) / per_file);
        if (files > n) files = n;
        for (size_t i = 0; i < files && g->st == RS_OK; i++) {
            char path[4096], *body;
            size_t size;
            if (snprintf(path, sizeof path, "%s/%s", dir, names[i]) >= (int)sizeof path) continue;
            if (read_all(path, &body, &size) != 0) continue;
            gen_file(g, body, size);
            char *host = host_of(names[i]);
            const uint64_t left = queries - g->n_q;
            gen_queries(g, host ? host : "example.com", (size_t)RS_MIN(per_file, left));
            rs_free(host);
            rs_free(body);
        }
    } else {
        /* Sites: 2 queries each; each site loads one of the real files (written once). */
        const size_t sites = (size_t)((queries + 1) / 2);
        char **bodies = rs_calloc(n, sizeof *bodies);
        size_t *sizes = rs_calloc(n, sizeof *sizes);
        uint32_t *ids = rs_calloc(n, sizeof *ids);
        if (!bodies || !sizes || !ids) g->st = RS_ERR_NOMEM;
        for (size_t s = 0; s < sites && g->st == RS_OK; s++) {
            const size_t k = pick(&g->rng, n);
            if (bodies[k] == NULL) {
                char path[4096];
                if (snprintf(path, sizeof path, "%s/%s", dir, names[k]) >= (int)sizeof path) continue;
                if (read_all(path, &bodies[k], &sizes[k]) != 0) continue;
                ids[k] = g->n_files;
                gen_file(g, bodies[k], sizes[k]);
            } else {
                gen_reuse(g, ids[k], bodies[k], sizes[k]);
            }
            char host[64];
            snprintf(host, sizeof host, "s%08x.site%u.example", (unsigned)(next_rand(&g->rng) >> 32),
                     (unsigned)s);
            gen_queries(g, host, 2);
        }
        for (size_t k = 0; bodies && k < n; k++) rs_free(bodies[k]);
        rs_free(bodies);
        rs_free(sizes);
        rs_free(ids);
    }
    free_list(names, n);
}

/* The conformance folders' files and queries (their verdicts recomputed by robotscan). */
static void gen_hard(gen *g, const char *data_dir, uint64_t queries)
{
    static const char *const FOLDERS[] = {
        "reference-differential", "google-unittests", "google-spec-test-correctness", "seed-examples",
    };
    typedef struct { char *folder_case; char *agent; char *url; } hcase;
    hcase *cases = NULL;
    size_t n = 0, cap = 0;
    for (size_t f = 0; f < sizeof FOLDERS / sizeof FOLDERS[0]; f++) {
        char path[4096], *tsv;
        size_t size;
        snprintf(path, sizeof path, "%s/../conformance/%s/cases.tsv", data_dir, FOLDERS[f]);
        if (read_all(path, &tsv, &size) != 0) continue;
        char *line = tsv;
        while (line < tsv + size) {
            char *eol = memchr(line, '\n', (size_t)(tsv + size - line));
            if (eol == NULL) eol = tsv + size;
            *eol = '\0';
            char *c = line, *a = strchr(c, '\t'), *u = a ? strchr(a + 1, '\t') : NULL;
            char *v = u ? strchr(u + 1, '\t') : NULL;
            if (v && strcmp(c, "case")) {
                *a++ = *u++ = *v = '\0';
                if (n == cap) {
                    cap = cap ? 2 * cap : 4096;
                    hcase *nc = rs_realloc(cases, cap * sizeof *cases);
                    if (nc == NULL) { g->st = RS_ERR_NOMEM; break; }
                    cases = nc;
                }
                char fc[512];
                snprintf(fc, sizeof fc, "%s/%s", FOLDERS[f], c);
                cases[n].folder_case = rs_strdup(fc);
                cases[n].agent = rs_strdup(a);
                cases[n].url = rs_strdup(u);
                n++;
            }
            line = eol + 1;
        }
        rs_free(tsv);
    }
    if (n == 0 && g->st == RS_OK) {
        seterr(g->err, g->err_cap, "%s/../conformance: no conformance vectors (the bundled data: run "
               "`make testdata`, or give --data DIR)", data_dir);
        g->st = RS_ERR_USAGE;
    }
    /* The distinct files in a seeded order; each file's cases in their order. */
    size_t nf = 0;
    size_t *files = rs_calloc(n + 1, sizeof *files);   /* index of each file's first case */
    for (size_t i = 0; files && i < n; i++)
        if (i == 0 || strcmp(cases[i].folder_case, cases[i - 1].folder_case)) files[nf++] = i;
    for (size_t i = nf; i > 1; i--) {
        const size_t j = pick(&g->rng, i);
        const size_t t = files[i - 1]; files[i - 1] = files[j]; files[j] = t;
    }
    for (size_t k = 0; files && k < nf && g->n_q < queries && g->st == RS_OK; k++) {
        char path[4096], *body;
        size_t size;
        const char *fc = cases[files[k]].folder_case;
        snprintf(path, sizeof path, "%s/../conformance/%s.txt", data_dir, fc);
        if (read_all(path, &body, &size) != 0) continue;
        gen_file(g, body, size);
        /* the cases of one file are adjacent in cases.tsv */
        for (size_t i = files[k]; i < n && g->n_q < queries && !strcmp(cases[i].folder_case, fc); i++)
            gen_query(g, cases[i].agent, cases[i].url, strlen(cases[i].url));
        rs_free(body);
    }
    rs_free(files);
    for (size_t i = 0; i < n; i++) {
        rs_free(cases[i].folder_case);
        rs_free(cases[i].agent);
        rs_free(cases[i].url);
    }
    rs_free(cases);
}

/* One robots.txt just under 500 KiB: groups of generated rules of every kind. */
static void gen_big(gen *g, uint64_t queries)
{
    rs_outbuf b = {0};
    static const char *const GROUPS[] = { "*", "Googlebot", "Bingbot", "GPTBot", "CCBot" };
    static const char *const STEMS[] = {
        "/dir@/", "/p/@/*.php$", "/*?session@=", "/cat@/*/item", "/file@.html$", "/a@/%7Euser",
        "/search/@", "/*/@/index.html", "/@*$", "/q@?x=*&y=",
    };
    char line[256];
    uint32_t k = 0;
    while (b.len < 500000 && g->st == RS_OK) {
        const size_t gi = (k / 2000) % (sizeof GROUPS / sizeof GROUPS[0]);
        if (k % 2000 == 0) {
            const int l = snprintf(line, sizeof line, "%sUser-agent: %s\n", k ? "\n" : "", GROUPS[gi]);
            g->st = rs_outbuf_append(&b, line, (size_t)l);
        }
        char pat[128], num[16];
        size_t pn = 0;
        snprintf(num, sizeof num, "%u", (unsigned)pick(&g->rng, 5000));
        for (const char *t = STEMS[pick(&g->rng, sizeof STEMS / sizeof STEMS[0])]; *t && pn + 16 < sizeof pat; t++) {
            if (*t == '@') { memcpy(pat + pn, num, strlen(num)); pn += strlen(num); }
            else pat[pn++] = *t;
        }
        pat[pn] = '\0';
        const int l = snprintf(line, sizeof line, "%s: %s\n", pick(&g->rng, 4) ? "Disallow" : "Allow", pat);
        if (b.len + (size_t)l > 500000) break;
        if (g->st == RS_OK) g->st = rs_outbuf_append(&b, line, (size_t)l);
        k++;
    }
    if (g->st == RS_OK) {
        gen_file(g, b.ptr, b.len);
        gen_queries(g, "big.example", (size_t)queries);
    }
    rs_outbuf_free(&b);
}

static const char *const NAMES[] = { "real", "hard", "many-sites", "big-file", NULL };

const char *const *rs_bench_workload_names(void) { return NAMES; }

rs_status rs_bw_generate(const char *name, const char *data_dir, uint64_t seed, uint64_t queries,
                         const char *dir, bw_workload *w, char *err, size_t err_cap)
{
    int which = -1;
    for (int i = 0; NAMES[i]; i++)
        if (!strcmp(NAMES[i], name)) which = i;
    if (which < 0) {
        seterr(err, err_cap, "unknown workload '%s' (real, hard, many-sites, big-file, or a folder "
               "written by --save)", name);
        return RS_ERR_USAGE;
    }
    static const uint64_t DEFAULT_Q[] = { 200000, 50000, 200000, 20000 };
    if (queries == 0) queries = DEFAULT_Q[which];
    char sub[4096];
    snprintf(sub, sizeof sub, "%s/robots", dir);
    if ((mkdir(dir, 0755) != 0 && errno != EEXIST) || (mkdir(sub, 0755) != 0 && errno != EEXIST)) {
        seterr(err, err_cap, "%s: cannot create: %s", errno == EEXIST ? sub : dir, strerror(errno));
        return RS_ERR_IO;
    }
    gen g;
    memset(&g, 0, sizeof g);
    g.dir = dir;
    g.err = err;
    g.err_cap = err_cap;
    g.rng = seed * 0x100000001B3ull + (uint64_t)which;
    if (which == 0) gen_real(&g, data_dir, queries, 0);
    else if (which == 1) gen_hard(&g, data_dir, queries);
    else if (which == 2) gen_real(&g, data_dir, queries, 1);
    else gen_big(&g, queries);
    gen_close_file(&g);
    rs_status st = g.st;
    if (st == RS_OK) {
        char path[4096], readme[1024];
        const int rl = snprintf(readme, sizeof readme,
            "robotscan bench workload '%s' (seed %llu): %u robots.txt files, %llu queries.\n"
            "input.txt    the peer protocol input: `robots<TAB>PATH` loads robots/NNNNN.txt (relative to\n"
            "             this folder), each `AGENT<TAB>URL` line asks for one `allow`/`disallow` line\n"
            "expected.txt the reference verdict of each query, in order (Google's semantics, RFC 9309)\n"
            "Run a matcher on it from this folder:  my-peer < input.txt > answers.txt; diff answers.txt expected.txt\n"
            "or through the arena:  robotscan bench --workload THIS_FOLDER --peer NAME='COMMAND'\n",
            name, (unsigned long long)seed, g.n_files, (unsigned long long)g.n_q);
        const char *what[] = { "input.txt", "expected.txt", "README.txt" };
        const rs_outbuf *bufs[] = { &g.input, &g.expected, NULL };
        for (int i = 0; i < 3 && st == RS_OK; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, what[i]);
            const int r = bufs[i] ? write_all(path, bufs[i]->ptr ? bufs[i]->ptr : "", bufs[i]->len)
                                  : write_all(path, readme, (size_t)rl);
            if (r != 0) {
                seterr(err, err_cap, "%s: cannot write: %s", path, strerror(errno));
                st = RS_ERR_IO;
            }
        }
    } else if (st == RS_ERR_NOMEM) {
        seterr(err, err_cap, "out of memory generating workload '%s'", name);
    }
    rs_outbuf_free(&g.input);
    rs_outbuf_free(&g.expected);
    if (st != RS_OK) return st;
    st = rs_bw_load(dir, w, err, err_cap);
    if (st == RS_OK) {
        rs_free(w->name);
        w->name = rs_strdup(name);
        w->seed = seed;
    }
    return st;
}

/* ===== Loading a workload folder ===== */

typedef struct { const char *key; uint32_t val; } slot;

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

rs_status rs_bw_load(const char *dir, bw_workload *w, char *err, size_t err_cap)
{
    memset(w, 0, sizeof *w);
    char path[4096], *input = NULL, *expected = NULL;
    size_t in_size, ex_size;
    rs_status st = RS_OK;
    slot *map = NULL;
    size_t map_cap = 0;
    snprintf(path, sizeof path, "%s/input.txt", dir);
    if (read_all(path, &input, &in_size) != 0) {
        seterr(err, err_cap, "%s: cannot read: %s (a workload folder holds input.txt, expected.txt "
               "and robots/)", path, strerror(errno));
        return RS_ERR_IO;
    }
    snprintf(path, sizeof path, "%s/expected.txt", dir);
    if (read_all(path, &expected, &ex_size) != 0) {
        seterr(err, err_cap, "%s: cannot read: %s", path, strerror(errno));
        rs_free(input);
        return RS_ERR_IO;
    }
    char *abs = realpath(dir, NULL);
    w->dir = abs ? rs_strdup(abs) : rs_strdup(dir);
    free(abs);
    w->name = rs_strdup(dir);
    size_t lines = 1;
    for (size_t i = 0; i < in_size; i++) lines += input[i] == '\n';
    w->q = rs_calloc(lines, sizeof *w->q);
    w->blocks = rs_calloc(lines, sizeof *w->blocks);
    w->files = rs_calloc(lines, sizeof *w->files);
    map_cap = 64;
    while (map_cap < 2 * lines) map_cap *= 2;
    map = rs_calloc(map_cap, sizeof *map);
    if (!w->q || !w->blocks || !w->files || !map || !w->dir || !w->name) { st = RS_ERR_NOMEM; goto out; }
    char *ex = expected;
    const char *ex_end = expected + ex_size;
    size_t lineno = 0;
    for (char *line = input; line < input + in_size && st == RS_OK;) {
        char *eol = memchr(line, '\n', (size_t)(input + in_size - line));
        if (eol == NULL) eol = input + in_size;
        *eol = '\0';
        lineno++;
        char *tab = strchr(line, '\t');
        if (tab == NULL) {
            seterr(err, err_cap, "%s/input.txt:%zu: not `robots<TAB>PATH` nor `AGENT<TAB>URL`", dir, lineno);
            st = RS_ERR_IO;
            break;
        }
        *tab = '\0';
        if (!strcmp(line, "robots")) {
            const char *rel = tab + 1;
            uint64_t h = hash_str(rel);
            size_t i = h & (map_cap - 1);
            while (map[i].key && strcmp(map[i].key, rel)) i = (i + 1) & (map_cap - 1);
            if (map[i].key == NULL) {
                bw_file *f = &w->files[w->n_files];
                f->path = rs_strdup(rel);
                snprintf(path, sizeof path, "%s/%s", dir, rel);
                if (f->path == NULL || read_all(path, &f->body, &f->size) != 0) {
                    seterr(err, err_cap, "%s: cannot read: %s", path, strerror(errno));
                    st = RS_ERR_IO;
                    rs_free(f->path);
                    break;
                }
                map[i].key = f->path;
                map[i].val = (uint32_t)w->n_files++;
            }
            w->blocks[w->n_blocks].file = map[i].val;
            w->blocks[w->n_blocks].q0 = (uint32_t)w->n_q;
            w->n_blocks++;
        } else {
            if (w->n_blocks == 0) {
                seterr(err, err_cap, "%s/input.txt:%zu: a query before any `robots` line", dir, lineno);
                st = RS_ERR_IO;
                break;
            }
            char *exl = memchr(ex, '\n', (size_t)(ex_end - ex));
            if (ex >= ex_end || exl == NULL) {
                seterr(err, err_cap, "%s/expected.txt: fewer lines than the queries of input.txt", dir);
                st = RS_ERR_IO;
                break;
            }
            const size_t el = (size_t)(exl - ex);
            bw_query *q = &w->q[w->n_q++];
            q->expect = el == 8 && !memcmp(ex, "disallow", 8) ? 1 : el == 5 && !memcmp(ex, "allow", 5) ? 0 : -1;
            if (q->expect < 0) {
                seterr(err, err_cap, "%s/expected.txt:%zu: not allow or disallow", dir, (size_t)w->n_q);
                st = RS_ERR_IO;
                break;
            }
            ex = exl + 1;
            q->agent = rs_strdup(line);
            q->url = rs_strdup(tab + 1);
            if (!q->agent || !q->url) st = RS_ERR_NOMEM;
            w->blocks[w->n_blocks - 1].nq++;
        }
        line = eol + 1;
    }
    /* The name and seed of a generated workload, from its README.txt (a hand-made folder has none). */
    snprintf(path, sizeof path, "%s/README.txt", dir);
    char *readme;
    size_t rsize;
    if (st == RS_OK && read_all(path, &readme, &rsize) == 0) {
        char name[64];
        unsigned long long seed;
        if (sscanf(readme, "robotscan bench workload '%63[^']' (seed %llu)", name, &seed) == 2) {
            rs_free(w->name);
            w->name = rs_strdup(name);
            w->seed = seed;
        }
        rs_free(readme);
    }
    if (st == RS_OK && ex < ex_end) {
        seterr(err, err_cap, "%s/expected.txt: more lines than the queries of input.txt", dir);
        st = RS_ERR_IO;
    }
out:
    if (st == RS_ERR_NOMEM) seterr(err, err_cap, "out of memory loading %s", dir);
    rs_free(map);
    rs_free(input);
    rs_free(expected);
    if (st != RS_OK) rs_bw_free(w);
    return st;
}

void rs_bw_free(bw_workload *w)
{
    if (w == NULL) return;
    for (size_t i = 0; i < w->n_files; i++) { rs_free(w->files[i].path); rs_free(w->files[i].body); }
    for (size_t i = 0; i < w->n_q; i++) { rs_free(w->q[i].agent); rs_free(w->q[i].url); }
    rs_free(w->files);
    rs_free(w->blocks);
    rs_free(w->q);
    if (w->temp && w->dir) rs_bw_remove_dir(w->dir);
    rs_free(w->dir);
    rs_free(w->name);
    memset(w, 0, sizeof *w);
}
