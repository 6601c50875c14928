/*
 * test_scan.c - the scan layer (src/scan): records in input order whatever
 * the grouping by site, multi-agent records, malformed and blank lines,
 * rs_site_check, and a differential test against the naive oracle
 * (tests/common/naive_robots.c) over real robots.txt files.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <signal.h>
#include <sys/wait.h>

#include "robotscan.h"
#include "common/fixture.h"
#include "common/naive_robots.h"
#include "scan/spill.h"

/* ===== Helpers ===== */

static void make_tmpdir(void) { fixture_mkdir("scan"); }

/* A block over @text (copied with 64 bytes of padding, as readers give them). */
typedef struct {
    char *buf;
    rs_block b;
} test_block;

static void block_make(test_block *t, const char *text, size_t len, uint64_t first_line)
{
    t->buf = calloc(1, len + 64);
    cr_assert_not_null(t->buf);
    memcpy(t->buf, text, len);
    memset(&t->b, 0, sizeof t->b);
    t->b.ptr = t->buf;
    t->b.len = len;
    t->b.first_line = first_line;
    uint64_t lines = 0;
    for (size_t i = 0; i < len; i++) lines += text[i] == '\n';
    if (len && text[len - 1] != '\n') lines++;
    t->b.lines = lines;
}

static rs_scanner *scanner_for(rs_sites *s, const char *const *agents, size_t n, rs_scan_missing missing)
{
    rs_scan_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.sites = s;
    cfg.agents = agents;
    cfg.n_agents = n;
    cfg.semantics = RS_SEMANTICS_GOOGLE;
    cfg.missing = missing;
    rs_scanner *sc = NULL;
    cr_assert_eq(rs_scanner_create(&cfg, &sc), RS_OK);
    return sc;
}

static rs_sites *open_dir(const char *dir)
{
    rs_sites *s = NULL;
    const char *paths[1] = { dir };
    cr_assert_eq(rs_sites_create(paths, 1, &s), RS_OK, "%s", rs_sites_errmsg(s));
    return s;
}

/* ===== Order, grouping, kinds ===== */

/* rs_scan_get_brief gives line @i's record @full but for what its site record holds
 * (origin empty, matcher NULL): the same site number (UINT32_MAX for a line decided alone),
 * kind, text and verdict. */
static void expect_brief(const rs_scanner *sc, size_t i, size_t agent, const rs_scan_record *full)
{
    rs_scan_record b;
    rs_scan_get_brief(sc, i, agent, &b);
    cr_assert_eq(b.kind, full->kind, "line %zu", i);
    cr_assert_eq(b.url.ptr, full->url.ptr, "line %zu", i);
    cr_assert_eq(b.url.len, full->url.len, "line %zu", i);
    cr_assert_eq(b.line_no, full->line_no, "line %zu", i);
    cr_assert_eq(b.oversized, full->oversized, "line %zu", i);
    cr_assert_eq(b.site, full->site, "line %zu: site %u, want %u", i, b.site, full->site);
    cr_assert_eq(b.agent, full->agent, "line %zu", i);
    cr_assert_eq(b.line, full->line, "line %zu", i);
    cr_assert_eq(b.rule, full->rule, "line %zu", i);
    cr_assert_eq(b.disallowed, full->disallowed, "line %zu", i);
    cr_assert_eq(b.reason, full->reason, "line %zu", i);
    cr_assert_eq(b.error, full->error, "line %zu", i);
    cr_assert_eq(b.origin.len, 0, "line %zu", i);
    cr_assert_null(b.matcher, "line %zu", i);
    rs_scan_prefetch_site(sc, i);   /* a hint: harmless on any line */
}

Test(scan, interleaved_sites_keep_input_order, .init = make_tmpdir, .fini = remove_tmpdir)
{
    write_file("a.com.txt", "User-agent: *\nDisallow: /a\n");
    write_file("b.com.txt", "User-agent: *\nDisallow: /b\nAllow: /b/ok\n");
    write_file("c.com.txt", "User-agent: *\nDisallow: /\n");
    rs_sites *s = open_dir(tmpdir);
    const char *agents[1] = { "Googlebot" };
    rs_scanner *sc = scanner_for(s, agents, 1, RS_SCAN_MISSING_ALLOW);
    static const char text[] =
        "http://a.com/a\n"          /* 1 disallow */
        "http://b.com/a\n"          /* 2 allow */
        "http://c.com/x\n"          /* 3 disallow */
        "\n"                        /* 4 blank */
        "http://a.com/b\n"          /* 5 allow */
        "# comment\n"               /* 6 blank */
        "http://b.com/b/ok\n"       /* 7 allow (line 3) */
        "http://[bad/x\n"           /* 8 malformed */
        "https://c.com/\n"          /* 9 disallow */
        "http://b.com/b\n"          /* 10 disallow */
        "http://nobody.org/x\n"     /* 11 no-robots: allow */
        "  http://a.com/a\n"        /* 12 leading blanks: decided alone, disallow */
        "http://A.COM/a";           /* 13 another raw key for a.com, no final newline */
    test_block t;
    block_make(&t, text, sizeof text - 1, 1);
    size_t n = 0;
    cr_assert_eq(rs_scan_block(sc, &t.b, &n), RS_OK, "%s", rs_scanner_errmsg(sc));
    cr_assert_eq(n, 13);
    static const int kind[13] = { RS_SCAN_URL, RS_SCAN_URL, RS_SCAN_URL, RS_SCAN_BLANK, RS_SCAN_URL,
                                  RS_SCAN_BLANK, RS_SCAN_URL, RS_SCAN_MALFORMED, RS_SCAN_URL,
                                  RS_SCAN_URL, RS_SCAN_URL, RS_SCAN_URL, RS_SCAN_URL };
    static const int dis[13] = { 1, 0, 1, 0, 0, 0, 0, 0, 1, 1, 0, 1, 1 };
    static const char *const origin[13] = { "http://a.com", "http://b.com", "http://c.com", "",
                                            "http://a.com", "", "http://b.com", "", "https://c.com",
                                            "http://b.com", "http://nobody.org", "http://a.com",
                                            "http://a.com" };
    for (size_t i = 0; i < n; i++) {
        rs_scan_record r;
        rs_scan_get(sc, i, 0, &r);
        cr_assert_eq(r.line_no, i + 1);
        cr_assert_eq(r.kind, kind[i], "line %zu kind %d", i + 1, r.kind);
        cr_assert_eq(r.disallowed, dis[i], "line %zu", i + 1);
        cr_assert_eq(r.origin.len, strlen(origin[i]), "line %zu", i + 1);
        cr_assert_eq(memcmp(r.origin.ptr, origin[i], r.origin.len), 0, "line %zu", i + 1);
    }
    rs_scan_record r;
    rs_scan_get(sc, 6, 0, &r);
    cr_assert_eq(r.line, 3);
    cr_assert_eq(r.reason, RS_REASON_MATCHED);
    rs_rule_info info;
    cr_assert_eq(rs_matcher_rule(r.matcher, r.rule, &info), RS_OK);
    cr_assert_eq(info.type, RS_RULE_ALLOW);
    rs_scan_get(sc, 10, 0, &r);
    cr_assert_eq(r.reason, RS_REASON_NO_ROBOTS);
    cr_assert_null(r.matcher);
    rs_scan_get(sc, 11, 0, &r);
    cr_assert_eq(r.site, UINT32_MAX);  /* decided alone */
    /* one group per keyed raw origin in the block */
    rs_scan_stats st;
    rs_scanner_stats(sc, &st);
    cr_assert_eq(st.groups, 6, "groups %llu", (unsigned long long)st.groups);
    cr_assert_eq(st.urls, 10);
    free(t.buf);

    /* a second block reuses the scanner's sites: nothing is parsed again */
    const uint64_t misses = st.site_misses;
    block_make(&t, "http://b.com/b\nhttp://a.com/a\n", 30, 100);
    cr_assert_eq(rs_scan_block(sc, &t.b, &n), RS_OK);
    cr_assert_eq(n, 2);
    rs_scan_get(sc, 1, 0, &r);
    cr_assert_eq(r.line_no, 101);
    cr_assert_eq(r.disallowed, 1);
    rs_scanner_stats(sc, &st);
    cr_assert_eq(st.site_misses, misses);
    free(t.buf);
    rs_scanner_free(sc);
    rs_sites_free(s);
}

Test(scan, agents_and_missing_skip, .init = make_tmpdir, .fini = remove_tmpdir)
{
    write_file("a.com.txt", "User-agent: Googlebot\nDisallow: /g\n\nUser-agent: *\nDisallow: /\n");
    rs_sites *s = open_dir(tmpdir);
    const char *agents[2] = { "Googlebot", "OtherBot" };
    rs_scanner *sc = scanner_for(s, agents, 2, RS_SCAN_MISSING_SKIP);
    static const char text[] = "http://a.com/x\nhttp://none.com/\nnot a url at all://\nhttp://a.com/g\n";
    test_block t;
    block_make(&t, text, sizeof text - 1, 1);
    size_t n = 0;
    cr_assert_eq(rs_scan_block(sc, &t.b, &n), RS_OK);
    cr_assert_eq(n, 4);
    rs_scan_record r;
    rs_scan_get(sc, 0, 0, &r);
    cr_assert_eq(r.disallowed, 0);
    rs_scan_get(sc, 0, 1, &r);
    cr_assert_eq(r.disallowed, 1);
    cr_assert_eq(r.agent, 1);
    rs_scan_get(sc, 1, 1, &r);
    cr_assert_eq(r.kind, RS_SCAN_SKIPPED);
    rs_scan_get(sc, 2, 0, &r);
    cr_assert_eq(r.kind, RS_SCAN_MALFORMED);
    cr_assert_neq(r.error, RS_ORIGIN_OK);
    rs_scan_get(sc, 3, 0, &r);
    cr_assert_eq(r.disallowed, 1);
    cr_assert_eq(r.line, 2);
    rs_scan_get(sc, 3, 1, &r);
    cr_assert_eq(r.disallowed, 1);
    cr_assert_eq(r.line, 5);
    free(t.buf);
    rs_scanner_free(sc);
    rs_sites_free(s);
}

Test(scan, create_rejects_bad_config)
{
    rs_scanner *sc = (rs_scanner *)1;
    rs_scan_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cr_assert_eq(rs_scanner_create(&cfg, &sc), RS_ERR_USAGE);
    cr_assert_null(sc);
    cr_assert_eq(rs_scanner_create(NULL, &sc), RS_ERR_USAGE);
    rs_scanner_free(NULL);
}

Test(scan, site_check_one_url, .init = make_tmpdir, .fini = remove_tmpdir)
{
    write_file("a.com.txt", "User-agent: *\nDisallow: /private\nAllow: /private/ok$\n");
    rs_sites *s = open_dir(tmpdir);
    rs_site_verdict v;
    const char *u = "https://a.com/private/x?y#z";
    cr_assert_eq(rs_site_check(s, u, strlen(u), "Googlebot", 9, RS_SEMANTICS_GOOGLE, 0, &v), RS_OK);
    cr_assert_eq(v.malformed, 0);
    cr_assert_eq(v.verdict.disallowed, 1);
    cr_assert_eq(v.verdict.line, 2);
    cr_assert_eq(v.reason, RS_REASON_MATCHED);
    cr_assert_str_eq(v.origin, "https://a.com");
    cr_assert_eq(v.rule.type, RS_RULE_DISALLOW);
    cr_assert_eq(v.rule.pattern.len, 8);
    u = "http://a.com/private/ok";
    cr_assert_eq(rs_site_check(s, u, strlen(u), "Googlebot", 9, RS_SEMANTICS_GOOGLE, 0, &v), RS_OK);
    cr_assert_eq(v.verdict.disallowed, 0);
    cr_assert_eq(v.verdict.line, 3);
    u = "http://b.com/";
    cr_assert_eq(rs_site_check(s, u, strlen(u), "Googlebot", 9, RS_SEMANTICS_GOOGLE, 0, &v), RS_OK);
    cr_assert_eq(v.reason, RS_REASON_NO_ROBOTS);
    cr_assert_eq(v.verdict.disallowed, 0);
    u = "http://[::1/";
    cr_assert_eq(rs_site_check(s, u, strlen(u), "Googlebot", 9, RS_SEMANTICS_GOOGLE, 0, &v), RS_OK);
    cr_assert_eq(v.malformed, 1);
    cr_assert_eq(rs_site_check(NULL, u, strlen(u), "G", 1, RS_SEMANTICS_GOOGLE, 0, &v), RS_ERR_USAGE);
    rs_sites_free(s);
}

/* ===== Releasing the sites between partition runs ===== */

Test(scan, release_frees_and_reloads_same_verdicts, .init = make_tmpdir, .fini = remove_tmpdir)
{
    write_file("a.com.txt", "User-agent: *\nDisallow: /a\n");
    write_file("b.com.txt", "User-agent: *\nAllow: /b\nDisallow: /\n");
    rs_sites *s = open_dir(tmpdir);
    const char *agents[1] = { "Googlebot" };
    static const char text[] = "http://a.com/a\nhttp://b.com/b\nhttp://b.com/c\nhttp://a.com/z\n";
    int first[4];
    for (int round = 0; round < 3; round++) {
        rs_scanner *sc = scanner_for(s, agents, 1, RS_SCAN_MISSING_ALLOW);
        test_block t;
        block_make(&t, text, sizeof text - 1, 1);
        size_t n = 0;
        cr_assert_eq(rs_scan_block(sc, &t.b, &n), RS_OK);
        cr_assert_eq(n, 4);
        for (size_t i = 0; i < n; i++) {
            rs_scan_record r;
            rs_scan_get(sc, i, 0, &r);
            if (round == 0) first[i] = r.disallowed * 100 + (int)r.line;
            cr_assert_eq(r.disallowed * 100 + (int)r.line, first[i], "round %d line %zu", round, i);
        }
        rs_sites_stats st;
        rs_sites_get_stats(s, &st);
        cr_assert_eq(st.origins, 2);              /* only this run's origins are held */
        free(t.buf);
        rs_scanner_free(sc);
        cr_assert_eq(rs_sites_release(s), RS_OK);
        rs_sites_get_stats(s, &st);
        cr_assert_eq(st.origins, 0);
        cr_assert_eq(st.bodies_parsed, 2u * (unsigned)(round + 1)); /* loaded again each run */
    }
    cr_assert_eq(first[0], 102);
    cr_assert_eq(first[1], 2);
    cr_assert_eq(first[2], 103);
    rs_sites_free(s);
}

/* ===== Spill files ===== */

static size_t dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) n++;
    closedir(d);
    return n;
}

Test(scan, spill_roundtrip_leaves_no_file, .init = make_tmpdir, .fini = remove_tmpdir)
{
    rs_spill *sp = NULL;
    char err[256] = "";
    cr_assert_eq(rs_spill_open(tmpdir, &sp, err, sizeof err), RS_OK, "%s", err);
    cr_assert_eq(dir_entries(tmpdir), 0);     /* anonymous from the start */
    char buf[1000];
    for (int i = 0; i < 5000; i++) {
        memset(buf, 'a' + i % 26, sizeof buf);
        cr_assert_eq(rs_spill_write(sp, buf, (size_t)(i % 1000) + 1, err, sizeof err), RS_OK, "%s", err);
    }
    cr_assert_eq(rs_spill_rewind(sp, err, sizeof err), RS_OK, "%s", err);
    for (int i = 0; i < 5000; i++) {
        const size_t n = (size_t)(i % 1000) + 1;
        cr_assert_eq(rs_spill_read(sp, buf, n), RS_OK, "record %d", i);
        cr_assert_eq(buf[0], 'a' + i % 26);
        cr_assert_eq(buf[n - 1], 'a' + i % 26);
    }
    cr_assert_eq(rs_spill_read(sp, buf, 1), RS_ERR_EOF);
    cr_assert_gt(rs_spill_bytes(sp), 0);
    rs_spill_close(sp);
    cr_assert_eq(dir_entries(tmpdir), 0);
}

/* A spill written as frames compressed apart (two framers, as two splitting
 * threads would) reads back as the pieces end to end, across frame edges; a
 * spill takes one way of writing only. */
Test(scan, spill_frames_read_back_as_one_stream, .init = make_tmpdir, .fini = remove_tmpdir)
{
    rs_spill *sp = NULL;
    char err[256] = "";
    cr_assert_eq(rs_spill_open(tmpdir, &sp, err, sizeof err), RS_OK, "%s", err);
    void *fr[2] = { rs_spill_framer(), rs_spill_framer() };
    cr_assert(fr[0] != NULL && fr[1] != NULL);
    rs_buf frames[2] = { { 0 }, { 0 } };
    char piece[3000];
    size_t total = 0;
    for (int i = 0; i < 200; i++) {
        const size_t n = (size_t)(i * 37 % 3000) + (i % 7 == 0 ? 0 : 1);   /* empty ones too */
        for (size_t k = 0; k < n; k++) piece[k] = (char)('a' + (total + k) % 23);
        rs_buf *f = &frames[i % 2];
        f->len = 0;
        cr_assert_eq(rs_spill_frame(fr[i % 2], piece, n, f, err, sizeof err), RS_OK, "%s", err);
        cr_assert_eq(rs_spill_write_frame(sp, f->ptr, f->len, err, sizeof err), RS_OK, "%s", err);
        total += n;
    }
    cr_assert_eq(rs_spill_write(sp, "x", 1, err, sizeof err), RS_OK);      /* the stream, after frames: */
    cr_assert_eq(rs_spill_write_frame(sp, frames[0].ptr, frames[0].len, err, sizeof err), RS_ERR_USAGE);
    cr_assert_eq(rs_spill_rewind(sp, err, sizeof err), RS_OK, "%s", err);
    for (size_t at = 0; at < total;) {
        const size_t n = RS_MIN((size_t)1000, total - at);
        cr_assert_eq(rs_spill_read(sp, piece, n), RS_OK, "at %zu", at);
        for (size_t k = 0; k < n; k++) cr_assert_eq(piece[k], (char)('a' + (at + k) % 23), "byte %zu", at + k);
        at += n;
    }
    cr_assert_eq(rs_spill_read(sp, piece, 1), RS_OK);                      /* the streamed byte */
    cr_assert_eq(piece[0], 'x');
    cr_assert_eq(rs_spill_read(sp, piece, 1), RS_ERR_EOF);
    for (int i = 0; i < 2; i++) {
        rs_buf_free(&frames[i]);
        rs_spill_framer_free(fr[i]);
    }
    rs_spill_close(sp);
}

Test(scan, spill_bad_directory_names_it)
{
    rs_spill *sp = (rs_spill *)1;
    char err[256] = "";
    cr_assert_eq(rs_spill_open("/nonexistent/spill-dir", &sp, err, sizeof err), RS_ERR_IO);
    cr_assert_null(sp);
    cr_assert(strstr(err, "/nonexistent/spill-dir") != NULL, "%s", err);
}

Test(scan, spill_files_gone_after_sigterm, .init = make_tmpdir, .fini = remove_tmpdir)
{
    int ready[2];
    cr_assert_eq(pipe(ready), 0);
    const pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        rs_spill *sp[8];
        char err[256];
        for (int i = 0; i < 8; i++) {
            if (rs_spill_open(tmpdir, &sp[i], err, sizeof err) != RS_OK) _exit(3);
            if (rs_spill_write(sp[i], "data", 4, err, sizeof err) != RS_OK) _exit(4);
        }
        if (write(ready[1], "r", 1) != 1) _exit(5);
        for (;;) pause();
    }
    close(ready[1]);
    char c;
    cr_assert_eq(read(ready[0], &c, 1), 1, "the child could not open its spill files");
    cr_assert_eq(dir_entries(tmpdir), 0);
    char fdlink[64], target[512];
    snprintf(fdlink, sizeof fdlink, "/proc/%d/fd", (int)pid);
    size_t open_spills = 0;
    DIR *d = opendir(fdlink);
    if (d != NULL) {   /* the spill files exist, open and unlinked */
        struct dirent *de;
        while ((de = readdir(d)) != NULL) {
            char p[600];
            snprintf(p, sizeof p, "%s/%s", fdlink, de->d_name);
            const ssize_t n = readlink(p, target, sizeof target - 1);
            if (n > 0) {
                target[n] = '\0';
                if (strncmp(target, tmpdir, strlen(tmpdir)) == 0) open_spills++;
            }
        }
        closedir(d);
        cr_assert_eq(open_spills, 8);
    }
    cr_assert_eq(kill(pid, SIGTERM), 0);
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    cr_assert_eq(dir_entries(tmpdir), 0);
    close(ready[0]);
}

/* ===== Differential test against the naive oracle ===== */

typedef struct {
    char host[256];
    char *body;
    size_t len;
    char **pats;               /* allow/disallow values as written */
    size_t n_pats;
} site_file;

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    char *b = malloc(RS_ROBOTS_MAX_BODY + 1);
    *len = fread(b, 1, RS_ROBOTS_MAX_BODY, f);
    fclose(f);
    return b;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

static void collect_patterns(site_file *sf)
{
    size_t cap = 16;
    sf->pats = malloc(cap * sizeof *sf->pats);
    const char *p = sf->body, *end = sf->body + sf->len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        const char *c = p;
        while (c < le && (*c == ' ' || *c == '\t')) c++;
        const size_t rest = (size_t)(le - c);
        const char *v = NULL;
        if (rest > 6 && !strncasecmp(c, "allow:", 6)) v = c + 6;
        else if (rest > 9 && !strncasecmp(c, "disallow:", 9)) v = c + 9;
        if (v) {
            while (v < le && (*v == ' ' || *v == '\t')) v++;
            size_t n = 0;
            while (v + n < le && v[n] != ' ' && v[n] != '\t' && v[n] != '\r' && v[n] != '#') n++;
            if (n && n < 200 && sf->n_pats < 400) {
                if (sf->n_pats == cap) sf->pats = realloc(sf->pats, (cap *= 2) * sizeof *sf->pats);
                sf->pats[sf->n_pats++] = strndup(v, n);
            }
        }
        p = le + 1;
    }
}

/* A path: a pattern with its wildcards filled in, or random bytes, with extras. */
static size_t make_path(const site_file *sf, char *out)
{
    static const char *const words[] = { "a", "index.html", "search", "x", "%2F", "%e9", "\xc3\xa9",
                                         "$", "?q=1", ";s", "*", "..", "admin", "page-2" };
    size_t n = 0;
    if (sf->n_pats && rnd(10) < 7) {
        const char *pat = sf->pats[rnd((uint32_t)sf->n_pats)];
        for (const char *c = pat; *c && n < 400; c++) {
            if (*c == '*') {
                const char *w = words[rnd(14)];
                memcpy(out + n, w, strlen(w));
                n += strlen(w);
            } else if (*c == '$' && c[1] == '\0') {
                break;
            } else {
                out[n++] = *c;
            }
        }
        if (n == 0 || out[0] != '/') {
            memmove(out + 1, out, n);
            out[0] = '/';
            n++;
        }
    } else {
        out[n++] = '/';
        for (uint32_t k = rnd(4); k > 0; k--) {
            const char *w = words[rnd(14)];
            memcpy(out + n, w, strlen(w));
            n += strlen(w);
            out[n++] = '/';
        }
    }
    if (rnd(4) == 0) {
        const char *w = words[rnd(14)];
        memcpy(out + n, w, strlen(w));
        n += strlen(w);
    }
    if (rnd(30) == 0) {
        memcpy(out + n, "#frag", 5);
        n += 5;
    }
    return n;
}

static int plain_host(const char *name, size_t len)
{
    if (len < 5 || strcmp(name + len - 4, ".txt") != 0) return 0;
    for (size_t i = 0; i + 4 < len; i++) {
        const char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-')) return 0;
    }
    return 1;
}

Test(scan, differential_vs_naive_oracle, .timeout = 1800)
{
    const char *dir = RS_SHARED_DIR "/data/robots";
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    size_t cap = 4096, n_sites = 0;
    site_file *sites = calloc(cap, sizeof *sites);
    struct dirent *de;
    while ((de = readdir(d)) != NULL && n_sites < cap) {
        const size_t len = strlen(de->d_name);
        if (!plain_host(de->d_name, len)) continue;
        site_file *sf = &sites[n_sites];
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        sf->body = read_all(path, &sf->len);
        if (sf->body == NULL) continue;
        snprintf(sf->host, sizeof sf->host, "%.*s", (int)(len - 4), de->d_name);
        collect_patterns(sf);
        n_sites++;
    }
    closedir(d);
    cr_assert_geq(n_sites, 1000, "only %zu sites", n_sites);

    rs_sites *s = open_dir(dir);
    const char *agents[2] = { "Googlebot", "bingbot" };
    rs_scanner *sc = scanner_for(s, agents, 2, RS_SCAN_MISSING_ALLOW);
    const size_t N = 120000, PER_BLOCK = 7000;
    size_t done = 0, checked = 0, one_url = 0;
    char *text = malloc(PER_BLOCK * 600);
    size_t *site_of = malloc(PER_BLOCK * sizeof *site_of);
    char path[1024];
    uint64_t line_no = 1;
    while (done < N) {
        size_t len = 0, lines = 0;
        for (; lines < PER_BLOCK && done + lines < N; lines++) {
            const size_t k = rnd((uint32_t)n_sites);
            site_of[lines] = k;
            const size_t pl = make_path(&sites[k], path);
            len += (size_t)sprintf(text + len, "%s://%s", rnd(5) ? "https" : "http", sites[k].host);
            memcpy(text + len, path, pl);
            len += pl;
            text[len++] = '\n';
        }
        test_block t;
        block_make(&t, text, len, line_no);
        size_t n = 0;
        cr_assert_eq(rs_scan_block(sc, &t.b, &n), RS_OK, "%s", rs_scanner_errmsg(sc));
        cr_assert_eq(n, lines);
        for (size_t i = 0; i < n; i++) {
            const site_file *sf = &sites[site_of[i]];
            for (size_t a = 0; a < 2; a++) {
                rs_scan_record r;
                rs_scan_get(sc, i, a, &r);
                expect_brief(sc, i, a, &r);
                cr_assert_eq(r.line_no, line_no + i);
                cr_assert_eq(r.kind, RS_SCAN_URL, "%.*s", (int)r.url.len, r.url.ptr);
                naive_verdict nv;
                naive_robots_check_url(sf->body, sf->len, agents[a], strlen(agents[a]), r.url.ptr,
                                       r.url.len, &nv);
                cr_assert_eq(r.disallowed, nv.disallowed, "%s: %.*s agent %s", sf->host,
                             (int)r.url.len, r.url.ptr, agents[a]);
                cr_assert_eq(r.line, nv.line, "%s: %.*s agent %s: line %u vs %u", sf->host,
                             (int)r.url.len, r.url.ptr, agents[a], r.line, nv.line);
                checked++;
                if (i % 50 == 0) { /* the one-URL call agrees with the scanner */
                    rs_site_verdict v;
                    cr_assert_eq(rs_site_check(s, r.url.ptr, r.url.len, agents[a], strlen(agents[a]),
                                               RS_SEMANTICS_GOOGLE, 0, &v), RS_OK);
                    cr_assert_eq(v.verdict.disallowed, r.disallowed);
                    cr_assert_eq(v.verdict.line, r.line);
                    cr_assert_eq(v.reason, r.reason);
                    cr_assert_eq(strlen(v.origin), r.origin.len);
                    one_url++;
                }
            }
        }
        free(t.buf);
        done += lines;
        line_no += lines;
    }
    cr_assert_geq(checked, 2 * N);
    cr_assert_gt(one_url, 1000);
    rs_scan_stats st;
    rs_scanner_stats(sc, &st);
    cr_assert_geq(st.sites, 1000);
    cr_assert_lt(st.groups, st.urls, "grouping by site happened");
    rs_scanner_free(sc);
    rs_sites_free(s);
    for (size_t i = 0; i < n_sites; i++) {
        for (size_t k = 0; k < sites[i].n_pats; k++) free(sites[i].pats[k]);
        free(sites[i].pats);
        free(sites[i].body);
    }
    free(sites);
    free(text);
    free(site_of);
}

/* The scanner finds lines from a newline bitmap (scan.c, pass_lines): it must
 * give rs_line_next's lines exactly: numbers, text, '\r' stripping, oversized
 * lines (small max_line) and a block's pending oversized record, with or
 * without a final newline, across 64-byte words. */
Test(scan, lines_from_the_bitmap_equal_rs_line_next, .init = make_tmpdir, .fini = remove_tmpdir)
{
    write_file("a.com.txt", "User-agent: *\nDisallow: /p\n");
    const char *src = tmpdir;
    rs_sites *s = NULL;
    cr_assert_eq(rs_sites_create(&src, 1, &s), RS_OK);
    const char *agents[] = { "Googlebot" };
    rs_scanner *sc = scanner_for(s, agents, 1, RS_SCAN_MISSING_ALLOW);
    static const char *const pieces[] = {
        "https://a.com/p", "https://a.com/q\r", "", "\r", "# c", "https://b.com/x",
        "https://a.com/a-rather-long-path-that-crosses-a-64-byte-word/and/more/of/it",
        "http://a.com/\rmid", "  https://a.com/p", "https://a.com/p\r\r",
    };
    const size_t np = sizeof pieces / sizeof *pieces;
    uint64_t seed = 12345;
    char text[4096];
    for (int round = 0; round < 400; round++) {
        size_t len = 0;
        const int n = (int)(seed % 40);
        for (int i = 0; i < n; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            const char *p = pieces[(seed >> 33) % np];
            memcpy(text + len, p, strlen(p));
            len += strlen(p);
            if (i + 1 < n || (seed >> 20) % 2) text[len++] = '\n';
        }
        test_block t;
        block_make(&t, text, len, 1 + (uint64_t)round);
        t.b.max_line = 20 + (size_t)(seed >> 40) % 60;  /* some lines are oversized */
        if (round % 7 == 3) t.b.oversized = 5000;
        t.b.lines += t.b.oversized != 0;
        size_t got = 0;
        cr_assert_eq(rs_scan_block(sc, &t.b, &got), RS_OK);
        rs_lines it;
        rs_line ln;
        rs_lines_init(&it, &t.b);
        size_t i = 0;
        for (; rs_line_next(&it, &ln); i++) {
            cr_assert_lt(i, got, "round %d: the scanner gave fewer lines", round);
            rs_scan_record r;
            rs_scan_get(sc, i, 0, &r);
            expect_brief(sc, i, 0, &r);
            cr_assert_eq(r.line_no, ln.number, "round %d line %zu", round, i);
            if (ln.oversized) {
                cr_assert_eq(r.kind, RS_SCAN_OVERSIZED, "round %d line %zu", round, i);
                cr_assert_eq(r.oversized, ln.oversized, "round %d line %zu", round, i);
            } else {
                cr_assert_neq(r.kind, RS_SCAN_OVERSIZED, "round %d line %zu", round, i);
                cr_assert_eq(r.url.len, ln.text.len, "round %d line %zu", round, i);
                cr_assert_eq(r.url.ptr, ln.text.ptr, "round %d line %zu", round, i);
            }
        }
        cr_assert_eq(i, got, "round %d: %zu lines, the scanner gave %zu", round, i, got);
        free(t.buf);
    }
    rs_scanner_free(sc);
    rs_sites_free(s);
}

/* ===== Paths from the block's delimiter bitmap, summaries counted in the passes ===== */

Test(scan, paths_and_summary_equal_one_url_checks, .init = make_tmpdir, .fini = remove_tmpdir)
{
    /* rules whose line tells where the path starts and ends */
    write_file("a.com.txt", "User-agent: *\nDisallow: /p\nAllow: /p/q\nDisallow: /*?\nDisallow: /*;\n"
                            "Allow: /*x$\nDisallow: /$\n");
    write_file("a-host-name-long-enough-to-cross-a-64-byte-word-of-the-bitmap.com.txt",
               "User-agent: *\nDisallow: /*x$\nAllow: /p\n");
    rs_sites *s = open_dir(tmpdir);
    const char *agents[] = { "Googlebot" };
    rs_scanner *sc = scanner_for(s, agents, 1, RS_SCAN_MISSING_ALLOW);
    /* a summary-only scanner (urls --quiet) over the same blocks: the same summary */
    rs_scan_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.sites = s;
    cfg.agents = agents;
    cfg.n_agents = 1;
    cfg.semantics = RS_SEMANTICS_GOOGLE;
    cfg.summary_only = 1;
    rs_scanner *counter = NULL;
    cr_assert_eq(rs_scanner_create(&cfg, &counter), RS_OK);
    static const char *const starts[] = {
        "http://a.com", "https://a.com", "https://a.com:443", "HTTP://a.com", "//a.com", "a.com",
        "http://a.com#", "https://a.com\0", "http://a-host-name-long-enough-to-cross-a-64-byte-word-of-the-bitmap.com",
        " http://a.com", "http:/", "https://", "ftp://a.com", "http://a.com?", "http://a.com;",
    };
    static const char *const bits[] = { "/", "?", ";", "#", "p", "q", "x", "/p", "/p/q", "\0", "%2F", "\r", "abcdefghij" };
    const size_t ns = sizeof starts / sizeof *starts, nb = sizeof bits / sizeof *bits;
    uint64_t seed = 777;
    char text[8192];
    size_t starts_len[sizeof starts / sizeof *starts];
    for (size_t i = 0; i < ns; i++) /* "https://a.com\0" holds its NUL */
        starts_len[i] = i == 7 ? 14 : strlen(starts[i]);
    for (int round = 0; round < 200; round++) {
        size_t len = 0;
        const int n = 1 + (int)(seed % 60);
        for (int i = 0; i < n; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            const size_t st = (seed >> 33) % ns;
            memcpy(text + len, starts[st], starts_len[st]);
            len += starts_len[st];
            const int k = (int)((seed >> 12) % 12);
            for (int j = 0; j < k; j++) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                const size_t b = (seed >> 33) % nb;
                const size_t bl = b == 9 ? 1 : strlen(bits[b]);
                memcpy(text + len, bits[b], bl);
                len += bl;
            }
            text[len++] = '\n';
        }
        test_block t;
        block_make(&t, text, len, 1);
        size_t got = 0;
        cr_assert_eq(rs_scan_block(sc, &t.b, &got), RS_OK);
        cr_assert_eq(got, (size_t)n);
        rs_scan_summary want, sum;
        memset(&want, 0, sizeof want);
        want.lines = got;
        for (size_t i = 0; i < got; i++) {
            rs_scan_record r;
            rs_scan_get(sc, i, 0, &r);
            if (r.kind == RS_SCAN_BLANK) { want.blank++; continue; }
            if (r.kind == RS_SCAN_MALFORMED) { want.malformed++; continue; }
            cr_assert_eq(r.kind, RS_SCAN_URL);
            want.verdict[r.disallowed]++;
            want.reason[r.reason]++;
            rs_site_verdict v;
            cr_assert_eq(rs_site_check(s, r.url.ptr, r.url.len, "Googlebot", 9, RS_SEMANTICS_GOOGLE, 0, &v),
                         RS_OK);
            cr_assert_eq(v.malformed, 0, "round %d line %zu", round, i);
            cr_assert_eq(r.disallowed, v.verdict.disallowed, "round %d line %zu", round, i);
            cr_assert_eq(r.line, v.verdict.line, "round %d line %zu: %u vs %u", round, i, r.line,
                         v.verdict.line);
            cr_assert_eq(r.reason, v.reason, "round %d line %zu", round, i);
        }
        want.urls = want.verdict[0] + want.verdict[1];
        rs_scan_summarize(sc, &sum);
        cr_assert_eq(memcmp(&sum, &want, sizeof sum), 0, "round %d: summary", round);
        cr_assert_eq(rs_scan_block(counter, &t.b, &got), RS_OK);
        cr_assert_eq(got, (size_t)n);
        rs_scan_summarize(counter, &sum);
        cr_assert_eq(memcmp(&sum, &want, sizeof sum), 0, "round %d: summary-only scanner's summary", round);
        for (size_t i = 0; i < got; i++) {   /* its records: each line's kind, no verdict */
            rs_scan_record r, full;
            rs_scan_get(counter, i, 0, &r);
            rs_scan_get(sc, i, 0, &full);
            cr_assert_eq(r.kind, full.kind, "round %d line %zu", round, i);
            cr_assert_eq(r.line_no, full.line_no);
            cr_assert(r.url.len == full.url.len && !memcmp(r.url.ptr, full.url.ptr, r.url.len));
            if (r.kind == RS_SCAN_URL) cr_assert(r.rule == -1 && r.line == 0 && r.disallowed == 0);
        }
        free(t.buf);
    }
    rs_scanner_free(counter);
    rs_scanner_free(sc);
    rs_sites_free(s);
}

/* ===== Blocks of every length, exactly their size ===== */

/* The scanner's bitmaps (a sentinel newline bit at the block's end when its
 * last line has no newline, bit windows read a word ahead) at every block
 * length across three 64-byte words, with and without a final newline, the
 * last URL's path running to the block's end or cut by a '#': each record
 * equals rs_site_check's, and the block is a heap copy of exactly its size
 * (ASan sees a read past it). */
Test(scan, blocks_of_every_length_exact_size, .init = make_tmpdir, .fini = remove_tmpdir)
{
    write_file("a.com.txt", "User-agent: *\nDisallow: /p\nAllow: /*x$\n");
    rs_sites *s = open_dir(tmpdir);
    const char *agents[] = { "Googlebot" };
    rs_scanner *sc = scanner_for(s, agents, 1, RS_SCAN_MISSING_ALLOW);
    static const char fill[] = "pqxyx/p?x;x";
    char text[256];
    for (size_t len = 1; len <= 200; len++) {
        for (int variant = 0; variant < 4; variant++) {
            /* lines of 20-odd bytes, the last one cut to fit len */
            size_t n = 0;
            while (n < len) {
                static const char head[] = "https://a.com/";
                for (size_t i = 0; i < sizeof head - 1 && n < len; i++) text[n++] = head[i];
                for (size_t i = 0; n < len && i < 7 + (len + (size_t)variant) % 13; i++)
                    text[n++] = fill[(i + len) % (sizeof fill - 1)];
                if (n < len) text[n++] = '\n';
            }
            if (variant & 1) text[len - 1] = '\n';          /* a final newline */
            if (variant & 2 && len > 3) text[len - 3] = '#';    /* a fragment near the end */
            char *buf = malloc(len);
            cr_assert_not_null(buf);
            memcpy(buf, text, len);
            rs_block b;
            memset(&b, 0, sizeof b);
            b.ptr = buf;
            b.len = len;
            b.first_line = 1;
            for (size_t i = 0; i < len; i++) b.lines += buf[i] == '\n';
            b.lines += buf[len - 1] != '\n';
            size_t got = 0;
            cr_assert_eq(rs_scan_block(sc, &b, &got), RS_OK);
            cr_assert_eq(got, b.lines, "len %zu variant %d", len, variant);
            size_t at = 0;
            for (size_t i = 0; i < got; i++) {
                size_t end = at;
                while (end < len && buf[end] != '\n') end++;
                rs_scan_record r;
                rs_scan_get(sc, i, 0, &r);
                expect_brief(sc, i, 0, &r);
                cr_assert_eq(r.url.ptr, buf + at, "len %zu variant %d line %zu", len, variant, i);
                cr_assert_eq(r.url.len, end - at, "len %zu variant %d line %zu", len, variant, i);
                at = end + 1;
                const int blank = r.url.len == 0 || r.url.ptr[0] == '#';     /* empty, a comment */
                cr_assert_eq(r.kind == RS_SCAN_BLANK, blank, "len %zu variant %d line %zu", len, variant, i);
                if (blank) continue;
                rs_site_verdict v;
                cr_assert_eq(rs_site_check(s, r.url.ptr, r.url.len, "Googlebot", 9, RS_SEMANTICS_GOOGLE, 0, &v),
                             RS_OK);
                if (v.malformed) {
                    cr_assert_eq(r.kind, RS_SCAN_MALFORMED, "len %zu variant %d line %zu", len, variant, i);
                } else {
                    cr_assert_eq(r.kind, RS_SCAN_URL, "len %zu variant %d line %zu", len, variant, i);
                    cr_assert_eq(r.disallowed, v.verdict.disallowed, "len %zu variant %d line %zu", len, variant, i);
                    cr_assert_eq(r.line, v.verdict.line, "len %zu variant %d line %zu", len, variant, i);
                }
            }
            free(buf);
        }
    }
    rs_scanner_free(sc);
    rs_sites_free(s);
}
