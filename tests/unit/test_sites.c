/*
 * test_sites.c - robots sources (file, directory, manifest), the origin ->
 * ruleset table (growth, concurrency, caching) and end-to-end lookups.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "robotscan.h"
#include "common/fixture.h"
#include "sites/sites.h"

/* ===== Helpers ===== */

static void make_tmpdir(void) { fixture_mkdir("sites"); }

static char *tmp_path(const char *name)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    return path;
}

static rs_sites *open_sources(const char *const *paths, size_t n)
{
    rs_sites *s = NULL;
    const rs_status st = rs_sites_create(paths, n, &s);
    cr_assert_eq(st, RS_OK, "rs_sites_create: %s: %s", rs_status_str(st), rs_sites_errmsg(s));
    return s;
}

static rs_sites *open_one(const char *path)
{
    const char *paths[1] = {path};
    return open_sources(paths, 1);
}

/* Looks up the origin of @url for @agent; asserts success. */
static rs_site_result lookup(rs_sites *s, const char *url, const char *agent)
{
    char dst[RS_ORIGIN_MAX];
    rs_origin o;
    cr_assert_eq(rs_origin_parse(url, strlen(url), dst, sizeof dst, &o), RS_OK);
    cr_assert_eq(o.error, RS_ORIGIN_OK, "%s", url);
    rs_site_result r;
    const rs_status st = rs_site_lookup(s, &o, agent, strlen(agent), &r);
    cr_assert_eq(st, RS_OK, "lookup %s: %s: %s", url, rs_status_str(st), rs_sites_errmsg(s));
    return r;
}

/* The file name (last component, or "dir/robots.txt") that answered @url; "-" for none. */
static const char *answered_by(rs_sites *s, const char *url)
{
    const rs_site_result r = lookup(s, url, "Googlebot");
    if (r.reason == RS_REASON_NO_ROBOTS) {
        cr_assert_null(r.matcher);
        cr_assert_null(r.robots_path);
        return "-";
    }
    cr_assert_not_null(r.matcher);
    cr_assert_not_null(r.robots_path);
    const size_t n = strlen(tmpdir);
    if (strncmp(r.robots_path, tmpdir, n) == 0 && r.robots_path[n] == '/') return r.robots_path + n + 1;
    return r.robots_path;
}

/* Verdict for a full URL: lookup + match of its path. */
static rs_verdict verdict(rs_sites *s, const char *url, const char *agent, rs_reason *reason)
{
    const rs_site_result r = lookup(s, url, agent);
    rs_verdict v = {0, 0, -1};
    cr_assert_not_null(r.matcher, "%s has no robots", url);
    char scratch[2048];
    const rs_str path = rs_url_path(url, strlen(url), scratch, sizeof scratch);
    rs_matcher_match(r.matcher, path.ptr, path.len, &v);
    if (reason) *reason = rs_site_reason(&r, &v);
    return v;
}

/* ===== Names and reasons ===== */

Test(sites, reason_names)
{
    cr_expect_str_eq(rs_reason_str(RS_REASON_MATCHED), "matched");
    cr_expect_str_eq(rs_reason_str(RS_REASON_NO_MATCH), "no-match");
    cr_expect_str_eq(rs_reason_str(RS_REASON_UNAVAILABLE), "unavailable");
    cr_expect_str_eq(rs_reason_str(RS_REASON_UNREACHABLE), "unreachable");
    cr_expect_str_eq(rs_reason_str(RS_REASON_NO_ROBOTS), "no-robots");
    cr_expect_eq(RS_REASON_COUNT, 5);

    rs_site_result r = {.reason = RS_REASON_NO_MATCH};
    const rs_verdict hit = {1, 3, 0}, miss = {0, 0, -1}, empty_disallow = {0, 2, 1};
    cr_expect_eq(rs_site_reason(&r, &hit), RS_REASON_MATCHED);
    cr_expect_eq(rs_site_reason(&r, &miss), RS_REASON_NO_MATCH);
    cr_expect_eq(rs_site_reason(&r, &empty_disallow), RS_REASON_MATCHED);
    r.reason = RS_REASON_UNREACHABLE;
    cr_expect_eq(rs_site_reason(&r, &miss), RS_REASON_UNREACHABLE);
    r.reason = RS_REASON_NO_ROBOTS;
    cr_expect_eq(rs_site_reason(&r, NULL), RS_REASON_NO_ROBOTS);
}

/* ===== The string map ===== */

Test(sites, map_growth_and_lookup)
{
    rs_map m;
    cr_assert_eq(rs_map_init(&m, 4), RS_OK);
    char key[64];
    const int n = 50000;
    for (int i = 0; i < n; i++) {
        const int len = snprintf(key, sizeof key, "https://host%d.example", i);
        const uint64_t h = rs_map_hash(key, (size_t)len);
        cr_assert_null(rs_map_find(&m, h, key, (size_t)len));
        cr_assert_eq(rs_map_insert(&m, h, key, (size_t)len, (void *)(intptr_t)(i + 1)), RS_OK);
    }
    cr_expect_eq(m.count, (size_t)n);
    const rs_map_slots *sl = atomic_load(&m.cur);
    cr_expect((sl->mask + 1) * 7 >= (size_t)n * 10, "load above 70%%: %zu slots", sl->mask + 1);
    cr_expect((sl->mask + 1) <= (size_t)n * 4, "table grew too much: %zu slots", sl->mask + 1);
    for (int i = 0; i < n; i++) {
        const int len = snprintf(key, sizeof key, "https://host%d.example", i);
        const rs_map_entry *e = rs_map_find(&m, rs_map_hash(key, (size_t)len), key, (size_t)len);
        cr_assert_not_null(e, "%s", key);
        cr_assert_eq((intptr_t)e->value, i + 1);
        /* A prefix of a key is another key. */
        cr_assert_null(rs_map_find(&m, rs_map_hash(key, (size_t)len - 1), key, (size_t)len - 1));
    }
    rs_map_free(&m);
    rs_map_free(&m); /* idempotent */
}

/* ===== The arena under the map and the sources ===== */

Test(sites, arena_records_stay_put)
{
    rs_arena a = {0};
    enum { N = 20000 };
    static unsigned char *p[N];
    static size_t len[N];
    for (size_t i = 0; i < N; i++) {
        /* mostly small records, now and then one larger than a chunk's quarter; every
         * fifth on a cache line (the scanner's site records) */
        len[i] = i % 997 == 0 ? 20000 + i % 7 : 1 + (i * 7919) % 200;
        const size_t align = i % 5 == 0 ? 64 : i % 3 ? 8 : 1;
        p[i] = rs_arena_alloc_aligned(&a, len[i], align);
        cr_assert_not_null(p[i]);
        cr_assert_eq((uintptr_t)p[i] % align, 0, "record %zu not aligned to %zu", i, align);
        memset(p[i], (int)(i & 0xff), len[i]);
    }
    for (size_t i = 0; i < N; i++)     /* nothing overlapped or moved */
        for (size_t k = 0; k < len[i]; k++)
            cr_assert_eq(p[i][k], (unsigned char)(i & 0xff), "record %zu byte %zu", i, k);
    char *s = rs_arena_strndup(&a, "example.com/robots.txt", 11);
    cr_assert_str_eq(s, "example.com");
    /* reset keeps the newest chunk and hands its bytes out again */
    rs_arena_reset(&a);
    cr_assert_not_null(a.head);
    unsigned char *r = rs_arena_alloc(&a, 100);
    cr_assert_not_null(r);
    memset(r, 0xAB, 100);
    rs_arena_reset(&a);
    cr_assert_eq(rs_arena_alloc(&a, 100), (void *)r, "the kept chunk is reused from its start");
    rs_arena_free(&a);
    cr_expect_null(a.head);
    cr_assert_not_null(rs_arena_alloc(&a, 16));   /* usable again */
    rs_arena_free(&a);
    rs_arena_free(&a);                            /* idempotent */
}

/* ===== Directory sources ===== */

static const char *const ALLOW_ALL = "User-agent: *\nAllow: /\n";

Test(sites, directory_naming_forms, .fini = remove_tmpdir)
{
    make_tmpdir();
    write_file("a.example", ALLOW_ALL);                 /* HOST */
    write_file("b.example.txt", ALLOW_ALL);             /* HOST.txt */
    write_file("c.example:8080", ALLOW_ALL);            /* HOST:PORT */
    write_file("d.example:8443.txt", ALLOW_ALL);        /* HOST:PORT.txt */
    write_file("e.example/robots.txt", ALLOW_ALL);      /* HOST/robots.txt */
    write_file("f.example_443.txt", ALLOW_ALL);         /* HOST_PORT.txt (protego) */
    write_file("Müller.EU.txt", ALLOW_ALL);             /* IDN, upper case */
    write_file("[2001:DB8:0::1].txt", ALLOW_ALL);       /* IPv6 */
    write_file("192.168.0.1:8080.txt", ALLOW_ALL);      /* IPv4 with port */
    write_file("h.example", ALLOW_ALL);                 /* duplicate: sorts first, wins */
    write_file("h.example.txt", ALLOW_ALL);
    write_file("i.example.txt", ALLOW_ALL);             /* duplicate: HOST.txt sorts before HOST/ */
    write_file("i.example/robots.txt", ALLOW_ALL);
    write_file("M.EXAMPLE.txt", ALLOW_ALL);             /* duplicate: the longer name sorts first */
    write_file("m.example", ALLOW_ALL);
    write_file("j.example:80.txt", ALLOW_ALL);
    /* Skipped: dot-file, manifest-like, not a host, subdirectory without robots.txt, bad port. */
    write_file(".hidden.txt", ALLOW_ALL);
    write_file("SOURCES.tsv", "x\n");
    write_file("bad name.txt", ALLOW_ALL);
    write_file("twitter.com~protego.txt", ALLOW_ALL);
    write_file("g.example/other.txt", ALLOW_ALL);
    write_file("k.example:99999.txt", ALLOW_ALL);
    write_file("l.example:x.txt", ALLOW_ALL);

    rs_sites *s = open_one(tmpdir);
    rs_sites_stats st;
    rs_sites_get_stats(s, &st);
    cr_expect_eq(st.sources, 1);
    cr_expect_eq(st.dir_entries, 13, "entries %zu", st.dir_entries);
    cr_expect_eq(st.dir_duplicates, 3);
    cr_expect_eq(st.dir_skipped, 7, "skipped %zu", st.dir_skipped);
    cr_expect_eq(st.bodies_parsed, 0, "bodies are read lazily");

    cr_expect_str_eq(answered_by(s, "http://a.example/x"), "a.example");
    cr_expect_str_eq(answered_by(s, "https://A.EXAMPLE/x"), "a.example");
    cr_expect_str_eq(answered_by(s, "https://a.example:443/"), "a.example");
    cr_expect_str_eq(answered_by(s, "http://a.example:8080/"), "-");
    cr_expect_str_eq(answered_by(s, "https://a.example:80/"), "-");
    cr_expect_str_eq(answered_by(s, "ftp://a.example/"), "-");
    cr_expect_str_eq(answered_by(s, "http://sub.a.example/"), "-");

    cr_expect_str_eq(answered_by(s, "http://b.example/"), "b.example.txt");
    cr_expect_str_eq(answered_by(s, "https://b.example/"), "b.example.txt");

    cr_expect_str_eq(answered_by(s, "http://c.example:8080/x"), "c.example:8080");
    cr_expect_str_eq(answered_by(s, "https://c.example:8080/x"), "c.example:8080");
    cr_expect_str_eq(answered_by(s, "http://c.example/x"), "-");

    cr_expect_str_eq(answered_by(s, "https://d.example:8443/"), "d.example:8443.txt");
    cr_expect_str_eq(answered_by(s, "https://d.example/"), "-");

    cr_expect_str_eq(answered_by(s, "http://e.example/"), "e.example/robots.txt");
    cr_expect_str_eq(answered_by(s, "https://e.example/"), "e.example/robots.txt");

    cr_expect_str_eq(answered_by(s, "https://f.example/"), "f.example_443.txt");
    cr_expect_str_eq(answered_by(s, "http://f.example:443/"), "f.example_443.txt");
    cr_expect_str_eq(answered_by(s, "http://f.example/"), "-");

    cr_expect_str_eq(answered_by(s, "http://müller.eu/"), "Müller.EU.txt");
    cr_expect_str_eq(answered_by(s, "https://xn--mller-kva.eu/"), "Müller.EU.txt");
    cr_expect_str_eq(answered_by(s, "http://muller.eu/"), "-");

    cr_expect_str_eq(answered_by(s, "http://[2001:db8::1]/"), "[2001:DB8:0::1].txt");
    cr_expect_str_eq(answered_by(s, "http://192.168.0.1:8080/"), "192.168.0.1:8080.txt");
    cr_expect_str_eq(answered_by(s, "http://192.168.0.1/"), "-");

    cr_expect_str_eq(answered_by(s, "http://h.example/"), "h.example");
    cr_expect_str_eq(answered_by(s, "http://i.example/"), "i.example.txt");
    cr_expect_str_eq(answered_by(s, "http://m.example/"), "M.EXAMPLE.txt");

    /* HOST:80 serves http on 80 and https on 80, not https on 443. */
    cr_expect_str_eq(answered_by(s, "http://j.example/"), "j.example:80.txt");
    cr_expect_str_eq(answered_by(s, "https://j.example:80/"), "j.example:80.txt");
    cr_expect_str_eq(answered_by(s, "https://j.example/"), "-");

    cr_expect_str_eq(answered_by(s, "http://twitter.com/"), "-");
    cr_expect_str_eq(answered_by(s, "http://sources.tsv/"), "-");
    cr_expect_str_eq(answered_by(s, "http://g.example/"), "-");

    const rs_site_result r = lookup(s, "http://a.example/", "Googlebot");
    cr_expect_eq(r.reason, RS_REASON_NO_MATCH);
    cr_expect_eq(r.http_status, 200);
    cr_expect_eq(r.source, 0);
    cr_expect_not_null(r.ruleset);
    rs_sites_free(s);
}

/* Every file of the real directory is found by the host it was fetched from. */
Test(sites, real_directory_every_file_found)
{
    const char *dir = RS_SHARED_DIR "/data/robots";
    rs_sites *s = open_one(dir);
    FILE *f = fopen(RS_SHARED_DIR "/data/robots/SOURCES.tsv", "rb");
    cr_assert_not_null(f);
    char line[4096];
    size_t files = 0;
    cr_assert_not_null(fgets(line, sizeof line, f)); /* header */
    while (fgets(line, sizeof line, f)) {
        char *fields[4] = {0};
        char *p = line;
        for (int i = 0; i < 4 && p; i++) {
            fields[i] = p;
            p = strchr(p, '\t');
            if (p) *p++ = '\0';
        }
        if (strcmp(fields[1], "robots") != 0) continue; /* robots-variants/ */
        files++;
        char host[512], url[600], want[600];
        snprintf(host, sizeof host, "%s", fields[2]);
        const size_t hl = strlen(host);
        const int https_only = hl > 4 && strcmp(host + hl - 4, "_443") == 0;
        if (https_only) host[hl - 4] = '\0';
        snprintf(want, sizeof want, "%s/%s", dir, fields[0]);
        for (int scheme = https_only; scheme < 2; scheme++) {
            snprintf(url, sizeof url, "%s://%s/robots.txt", scheme ? "https" : "http", host);
            const rs_site_result r = lookup(s, url, "Googlebot");
            cr_assert_eq(r.reason, RS_REASON_NO_MATCH, "%s: %s", url, rs_reason_str(r.reason));
            cr_assert_str_eq(r.robots_path, want, "%s", url);
            cr_assert_not_null(r.matcher);
            cr_assert_not_null(r.ruleset);
        }
        if (https_only) {
            snprintf(url, sizeof url, "http://%s/", host);
            cr_assert_eq(lookup(s, url, "Googlebot").reason, RS_REASON_NO_ROBOTS, "%s", url);
        }
    }
    fclose(f);
    rs_sites_stats st;
    rs_sites_get_stats(s, &st);
    cr_expect_eq(files, 3962);
    cr_expect_eq(st.dir_entries, files, "indexed %zu of %zu", st.dir_entries, files);
    cr_expect_eq(st.dir_skipped, 1); /* SOURCES.tsv */
    cr_expect_eq(st.bodies_parsed, files);
    cr_expect_eq(st.matchers, files);
    rs_sites_free(s);
}

/* ===== Manifests ===== */

Test(sites, manifest_status_classes, .fini = remove_tmpdir)
{
    make_tmpdir();
    write_file("bodies/ok.txt", "User-agent: *\nDisallow: /private\n");
    write_file("bodies/other.txt", ALLOW_ALL);
    write_file("m.tsv",
               "# origin\tstatus\tfile\n"
               "\n"
               "https://ok.example\t200\tbodies/ok.txt\n"
               "http://ok.example:8080/robots.txt\t204\tbodies/other.txt\r\n"
               "https://moved.example\t301\t-\n"
               "https://gone.example\t404\n"
               "https://teapot.example\t418\t\n"
               "https://down.example\t500\t-\n"
               "https://busy.example\t503\tbodies/other.txt\n"
               "https://dns.example\terror\t-\n"
               "https://dns2.example/\tERROR\n"
               "   \n"
               "https://ok.example\t500\t-\n"     /* a second line for an origin: ignored */
               "HTTPS://OK.example:443/\t404\n"); /* the same origin written differently */
    rs_sites *s = open_one(tmp_path("m.tsv"));
    rs_sites_stats st;
    rs_sites_get_stats(s, &st);
    cr_expect_eq(st.manifest_lines, 9);

    rs_site_result r = lookup(s, "https://ok.example/x", "Googlebot");
    cr_expect_eq(r.reason, RS_REASON_NO_MATCH);
    cr_expect_eq(r.http_status, 200);
    cr_expect_str_eq(r.robots_path, tmp_path("bodies/ok.txt"));
    cr_expect_not_null(r.ruleset);

    r = lookup(s, "http://ok.example:8080/", "Googlebot");
    cr_expect_eq(r.reason, RS_REASON_NO_MATCH);
    cr_expect_eq(r.http_status, 204);
    cr_expect_eq(lookup(s, "http://ok.example/", "Googlebot").reason, RS_REASON_NO_ROBOTS);

    const struct { const char *url; rs_reason reason; uint32_t status; } cases[] = {
        {"https://moved.example/a", RS_REASON_UNAVAILABLE, 301},
        {"https://gone.example/a", RS_REASON_UNAVAILABLE, 404},
        {"https://teapot.example/a", RS_REASON_UNAVAILABLE, 418},
        {"https://down.example/a", RS_REASON_UNREACHABLE, 500},
        {"https://busy.example/a", RS_REASON_UNREACHABLE, 503},
        {"https://dns.example/a", RS_REASON_UNREACHABLE, 0},
        {"https://dns2.example/a", RS_REASON_UNREACHABLE, 0},
        {"http://gone.example/a", RS_REASON_NO_ROBOTS, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        r = lookup(s, cases[i].url, "Googlebot");
        cr_expect_eq(r.reason, cases[i].reason, "%s: %s", cases[i].url, rs_reason_str(r.reason));
        cr_expect_eq(r.http_status, cases[i].status, "%s", cases[i].url);
        cr_expect_null(r.ruleset, "%s", cases[i].url);
        if (cases[i].reason == RS_REASON_NO_ROBOTS) continue;
        /* Unavailable: everything allowed; unreachable: everything disallowed. */
        rs_reason why;
        const rs_verdict v = verdict(s, cases[i].url, "Googlebot", &why);
        cr_expect_eq(v.disallowed, cases[i].reason == RS_REASON_UNREACHABLE, "%s", cases[i].url);
        cr_expect_eq(why, cases[i].reason);
    }
    /* The constant matchers are shared, not compiled per origin. */
    cr_expect_eq(lookup(s, "https://moved.example/", "A").matcher,
                 lookup(s, "https://gone.example/", "B").matcher);
    cr_expect_eq(lookup(s, "https://down.example/", "A").matcher,
                 lookup(s, "https://dns.example/", "B").matcher);
    cr_expect_neq(lookup(s, "https://down.example/", "A").matcher,
                  lookup(s, "https://gone.example/", "A").matcher);
    cr_expect_eq(lookup(s, "https://down.example/", "A").matcher, rs_sites_constant_matcher(s, 1));
    cr_expect_eq(lookup(s, "https://gone.example/", "A").matcher, rs_sites_constant_matcher(s, 0));
    rs_sites_free(s);
}

/* Creates a manifest with @line after one good line; expects RS_ERR_CORRUPT naming line 2. */
static void expect_bad_manifest(const char *line, const char *why)
{
    char body[1024];
    snprintf(body, sizeof body, "https://good.example\t404\t-\n%s\nhttps://next.example\t404\n", line);
    write_file("bad.tsv", body);
    const char *paths[1] = {tmp_path("bad.tsv")};
    char want[1100];
    snprintf(want, sizeof want, "%s:2: ", paths[0]);
    rs_sites *s = NULL;
    const rs_status st = rs_sites_create(paths, 1, &s);
    cr_expect_eq(st, RS_ERR_CORRUPT, "line '%s' (%s) accepted", line, why);
    cr_assert_not_null(s);
    cr_expect(strstr(rs_sites_errmsg(s), want) != NULL, "errmsg '%s' lacks '%s'", rs_sites_errmsg(s), want);
    rs_sites_free(s);
}

Test(sites, manifest_malformed_lines, .fini = remove_tmpdir)
{
    make_tmpdir();
    expect_bad_manifest("https://a.example", "one field");
    expect_bad_manifest("https://a.example 200 x.txt", "spaces, not tabs");
    expect_bad_manifest("https://a.example\t200\tx.txt\textra", "four fields");
    expect_bad_manifest("https://a.example\tabc\tx.txt", "status not a number");
    expect_bad_manifest("https://a.example\t199\tx.txt", "1xx");
    expect_bad_manifest("https://a.example\t600\tx.txt", "status > 599");
    expect_bad_manifest("https://a.example\t2000\tx.txt", "four digits");
    expect_bad_manifest("https://a.example\t\tx.txt", "empty status");
    expect_bad_manifest("https://a.example\t200", "2xx without a file");
    expect_bad_manifest("https://a.example\t200\t-", "2xx with '-'");
    expect_bad_manifest("a.example\t404\t-", "no scheme");
    expect_bad_manifest("https://a.example/folder/robots.txt\t404\t-", "robots.txt not at the root");
    expect_bad_manifest("https://a.example/page\t404\t-", "a page URL");
    expect_bad_manifest("https://a b.example\t404\t-", "bad host");
    expect_bad_manifest("https://a.example:99999\t404\t-", "bad port");
    expect_bad_manifest("\t404\t-", "empty origin");
}

Test(sites, manifest_missing_body_is_io_error, .fini = remove_tmpdir)
{
    make_tmpdir();
    write_file("m.tsv", "https://a.example\t200\tnope.txt\n");
    rs_sites *s = open_one(tmp_path("m.tsv"));
    char dst[RS_ORIGIN_MAX];
    rs_origin o;
    cr_assert_eq(rs_origin_parse("https://a.example/", 19, dst, sizeof dst, &o), RS_OK);
    rs_site_result r;
    cr_expect_eq(rs_site_lookup(s, &o, "Googlebot", 9, &r), RS_ERR_IO);
    cr_expect(strstr(rs_sites_errmsg(s), tmp_path("nope.txt")) != NULL, "%s", rs_sites_errmsg(s));
    /* Still an error the second time (nothing half-cached). */
    cr_expect_eq(rs_site_lookup(s, &o, "Googlebot", 9, &r), RS_ERR_IO);
    rs_sites_free(s);
}

Test(sites, missing_source_is_io_error)
{
    const char *paths[2] = {RS_SHARED_DIR "/data/robots", "/nonexistent/robots-dir"};
    rs_sites *s = NULL;
    cr_expect_eq(rs_sites_create(paths, 2, &s), RS_ERR_IO);
    cr_assert_not_null(s);
    cr_expect(strstr(rs_sites_errmsg(s), "/nonexistent/robots-dir") != NULL, "%s", rs_sites_errmsg(s));
    rs_sites_free(s);
    const char *mf[1] = {"/nonexistent/m.tsv"};
    cr_expect_eq(rs_sites_create(mf, 1, &s), RS_ERR_IO);
    cr_expect(strstr(rs_sites_errmsg(s), "/nonexistent/m.tsv") != NULL, "%s", rs_sites_errmsg(s));
    rs_sites_free(s);
    cr_expect_eq(rs_sites_create(mf, 0, &s), RS_ERR_USAGE);
    rs_sites_free(s);
    rs_sites_free(NULL);
}

/* ===== Files and source order ===== */

Test(sites, single_file_serves_every_origin, .fini = remove_tmpdir)
{
    make_tmpdir();
    write_file("robots.txt", "User-agent: *\nDisallow: /private\n");
    rs_sites *s = open_one(tmp_path("robots.txt"));
    const char *urls[] = {"http://a.example/", "https://b.example:8443/", "ftp://c.example/",
                          "http://10.0.0.1/", "http://[::1]/", "gopher://d.example/"};
    const rs_matcher *m = NULL;
    for (size_t i = 0; i < sizeof urls / sizeof urls[0]; i++) {
        const rs_site_result r = lookup(s, urls[i], "Googlebot");
        cr_expect_eq(r.reason, RS_REASON_NO_MATCH, "%s", urls[i]);
        cr_expect_str_eq(r.robots_path, tmp_path("robots.txt"));
        if (m == NULL) m = r.matcher;
        cr_expect_eq(r.matcher, m, "one matcher for every origin");
    }
    rs_sites_stats st;
    rs_sites_get_stats(s, &st);
    cr_expect_eq(st.origins, 6);
    cr_expect_eq(st.bodies_parsed, 1);
    cr_expect_eq(st.matchers, 1);
    rs_sites_free(s);
}

Test(sites, first_source_that_knows_wins, .fini = remove_tmpdir)
{
    make_tmpdir();
    write_file("dir/a.example.txt", ALLOW_ALL);
    write_file("dir/b.example.txt", ALLOW_ALL);
    write_file("fallback.txt", ALLOW_ALL);
    write_file("m.tsv", "https://a.example\t503\t-\n");
    char dir[1100], fb[1100], mf[1100];
    snprintf(dir, sizeof dir, "%s", tmp_path("dir"));
    snprintf(fb, sizeof fb, "%s", tmp_path("fallback.txt"));
    snprintf(mf, sizeof mf, "%s", tmp_path("m.tsv"));
    const char *paths[3] = {mf, dir, fb};
    rs_sites *s = open_sources(paths, 3);
    rs_site_result r = lookup(s, "https://a.example/", "G");
    cr_expect_eq(r.reason, RS_REASON_UNREACHABLE);
    cr_expect_eq(r.source, 0);
    r = lookup(s, "http://a.example/", "G");
    cr_expect_eq(r.reason, RS_REASON_NO_MATCH);
    cr_expect_eq(r.source, 1);
    cr_expect_str_eq(answered_by(s, "http://a.example/"), "dir/a.example.txt");
    r = lookup(s, "https://b.example/", "G");
    cr_expect_eq(r.source, 1);
    r = lookup(s, "https://c.example/", "G");
    cr_expect_eq(r.source, 2);
    cr_expect_str_eq(answered_by(s, "https://c.example/"), "fallback.txt");
    rs_sites_free(s);

    /* Without the fallback file, c.example has no robots. */
    const char *two[2] = {mf, dir};
    s = open_sources(two, 2);
    cr_expect_eq(lookup(s, "https://c.example/", "G").reason, RS_REASON_NO_ROBOTS);
    rs_sites_free(s);
}

/* ===== Table: growth, caching, threads ===== */

Test(sites, table_growth_many_origins, .fini = remove_tmpdir)
{
    make_tmpdir();
    write_file("robots.txt", ALLOW_ALL);
    write_file("dir/host17.example.txt", ALLOW_ALL);
    char dir[1100], file[1100];
    snprintf(dir, sizeof dir, "%s", tmp_path("dir"));
    snprintf(file, sizeof file, "%s", tmp_path("robots.txt"));
    const char *paths[2] = {dir, file};
    rs_sites *s = open_sources(paths, 2);
    const int n = 20000;
    char url[128];
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < n; i++) {
            snprintf(url, sizeof url, "%s://host%d.example/p", i % 2 ? "https" : "http", i);
            const rs_site_result r = lookup(s, url, "Googlebot");
            cr_assert_eq(r.source, i == 17 ? 0u : 1u, "%s", url);
        }
        rs_sites_stats st;
        rs_sites_get_stats(s, &st);
        cr_expect_eq(st.origins, (size_t)n, "round %d: %zu origins", round, st.origins);
        cr_expect_eq(st.bodies_parsed, 2);
        cr_expect_eq(st.matchers, 2);
    }
    rs_sites_free(s);
}

typedef struct {
    rs_sites *s;
    const char *const *urls;
    size_t n;
    const rs_matcher **seen; /* OUT: matcher per URL */
    int failures;
} thread_job;

static void *lookup_all(void *arg)
{
    thread_job *j = arg;
    const char *agents[2] = {"Googlebot", "bingbot"};
    for (int round = 0; round < 3; round++) {
        for (size_t i = 0; i < j->n; i++) {
            char dst[RS_ORIGIN_MAX];
            rs_origin o;
            rs_site_result r;
            const char *agent = agents[i % 2];
            if (rs_origin_parse(j->urls[i], strlen(j->urls[i]), dst, sizeof dst, &o) != RS_OK ||
                rs_site_lookup(j->s, &o, agent, strlen(agent), &r) != RS_OK) {
                j->failures++;
                continue;
            }
            if (round == 0) j->seen[i] = r.matcher;
            else if (j->seen[i] != r.matcher) j->failures++;
        }
    }
    return NULL;
}

Test(sites, concurrent_lookups_same_origins)
{
    const char *dir = RS_SHARED_DIR "/data/robots";
    FILE *f = fopen(RS_SHARED_DIR "/data/urls/protego-top-10000-websites.txt", "rb");
    cr_assert_not_null(f);
    static char hosts[6000][128];
    static const char *urls[6000];
    size_t n = 0;
    char line[100];
    while (n < 6000 && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        snprintf(hosts[n], sizeof hosts[n], "https://%s/x", line);
        urls[n] = hosts[n];
        n++;
    }
    fclose(f);
    cr_assert_gt(n, 4000);
    for (int trial = 0; trial < 3; trial++) {
        rs_sites *s = open_one(dir);
        static const rs_matcher *seen[2][6000];
        thread_job jobs[2] = {{s, urls, n, seen[0], 0}, {s, urls, n, seen[1], 0}};
        pthread_t t[2];
        for (int i = 0; i < 2; i++) cr_assert_eq(pthread_create(&t[i], NULL, lookup_all, &jobs[i]), 0);
        for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
        cr_expect_eq(jobs[0].failures, 0);
        cr_expect_eq(jobs[1].failures, 0);
        size_t known = 0;
        for (size_t i = 0; i < n; i++) {
            cr_assert_eq(seen[0][i], seen[1][i], "%s: threads saw different matchers", urls[i]);
            known += seen[0][i] != NULL;
        }
        rs_sites_stats st;
        rs_sites_get_stats(s, &st);
        /* Each body parsed once and each (file, agent) compiled once despite the race. */
        cr_expect_leq(st.bodies_parsed, st.dir_entries);
        cr_expect_leq(st.matchers, 2 * st.bodies_parsed);
        cr_expect_geq(st.matchers, st.bodies_parsed);
        cr_expect_gt(known, 3000, "only %zu of %zu hosts had robots", known, n);
        rs_sites_free(s);
    }
}

/* ===== End to end ===== */

Test(sites, e2e_paths_agents_and_reasons, .fini = remove_tmpdir)
{
    make_tmpdir();
    write_file("dir/shop.example.txt",
               "User-agent: *\n"
               "Disallow: /private\n"
               "\n"
               "User-agent: Googlebot\n"
               "Disallow: /nogoogle\n"
               "Crawl-delay: 5\n");
    write_file("dir/open.example.txt", "User-agent: *\nDisallow:\n");
    char dir[1100];
    snprintf(dir, sizeof dir, "%s", tmp_path("dir"));
    rs_sites *s = open_one(dir);
    rs_reason why;
    rs_verdict v = verdict(s, "https://shop.example/private/x", "bingbot", &why);
    cr_expect_eq(v.disallowed, 1);
    cr_expect_eq(v.line, 2);
    cr_expect_eq(why, RS_REASON_MATCHED);
    v = verdict(s, "https://shop.example/private/x", "Googlebot", &why);
    cr_expect_eq(v.disallowed, 0);
    cr_expect_eq(why, RS_REASON_NO_MATCH);
    v = verdict(s, "http://shop.example/nogoogle", "Googlebot", &why);
    cr_expect_eq(v.disallowed, 1);
    cr_expect_eq(v.line, 5);
    v = verdict(s, "http://shop.example/nogoogle", "bingbot", &why);
    cr_expect_eq(v.disallowed, 0);
    v = verdict(s, "http://open.example/anything", "bingbot", &why);
    cr_expect_eq(v.disallowed, 0);

    /* Crawl-delay through the ruleset of the lookup. */
    const rs_site_result r = lookup(s, "https://shop.example/", "Googlebot");
    rs_str delay;
    cr_assert_not_null(r.ruleset);
    cr_assert(rs_ruleset_group_value(r.ruleset, "Googlebot", 9, "crawl-delay", &delay));
    cr_expect(delay.len == 1 && delay.ptr[0] == '5');

    rs_sites_stats st;
    rs_sites_get_stats(s, &st);
    cr_expect_eq(st.bodies_parsed, 2);
    cr_expect_eq(st.matchers, 3); /* shop x {bingbot, Googlebot}, open x bingbot */
    rs_sites_free(s);
}

Test(sites, e2e_body_capped_at_500k, .fini = remove_tmpdir)
{
    make_tmpdir();
    const size_t big = RS_ROBOTS_MAX_BODY + 4096;
    char *body = malloc(big + 1);
    cr_assert_not_null(body);
    size_t o = (size_t)sprintf(body, "User-agent: *\nDisallow: /early\n");
    while (o < RS_ROBOTS_MAX_BODY + 100) o += (size_t)sprintf(body + o, "# padding padding padding\n");
    sprintf(body + o, "Disallow: /late\n");
    write_file("big.txt", body);
    free(body);
    rs_sites *s = open_one(tmp_path("big.txt"));
    cr_expect_eq(verdict(s, "http://a.example/early", "G", NULL).disallowed, 1);
    cr_expect_eq(verdict(s, "http://a.example/late", "G", NULL).disallowed, 0);
    rs_sites_free(s);
}

/* Allocation failures anywhere in create/lookup: an error, never a crash or a leak (ASan). */
Test(sites, allocation_failures, .fini = remove_tmpdir)
{
    make_tmpdir();
    write_file("dir/a.example.txt", "User-agent: *\nDisallow: /x\n");
    write_file("m.tsv", "https://b.example\t200\tdir/a.example.txt\nhttps://c.example\t503\n");
    char dir[1100], mf[1100];
    snprintf(dir, sizeof dir, "%s", tmp_path("dir"));
    snprintf(mf, sizeof mf, "%s", tmp_path("m.tsv"));
    const char *paths[2] = {mf, dir};
    int completed = 0;
    for (unsigned long k = 1; k < 400 && !completed; k++) {
        rs_alloc_fail_after(k);
        rs_sites *s = NULL;
        rs_status st = rs_sites_create(paths, 2, &s);
        const char *urls[] = {"https://a.example/x", "https://b.example/x", "https://c.example/",
                              "https://d.example/"};
        for (size_t i = 0; st == RS_OK && i < 4; i++) {
            char dst[RS_ORIGIN_MAX];
            rs_origin org;
            rs_site_result r;
            cr_assert_eq(rs_origin_parse(urls[i], strlen(urls[i]), dst, sizeof dst, &org), RS_OK);
            st = rs_site_lookup(s, &org, "G", 1, &r);
        }
        cr_assert(st == RS_OK || st == RS_ERR_NOMEM, "k=%lu: %s", k, rs_status_str(st));
        completed = st == RS_OK;
        rs_alloc_fail_after(0);
        rs_sites_free(s);
    }
    cr_expect(completed, "never got through without a failure");
}

/* Matchers are cached per semantics: switching gives the other semantics' answers. */
Test(sites, semantics_switch, .fini = remove_tmpdir)
{
    make_tmpdir();
    write_file("robots.txt", "User-agent: *\nDisallow: html$\n");
    rs_sites *s = open_one(tmp_path("robots.txt"));
    /* Google: a pattern not starting with '/' or '*' matches nothing. */
    cr_expect_eq(verdict(s, "http://a.example/tmpa.html", "G", NULL).disallowed, 0);
    const rs_matcher *google = lookup(s, "http://a.example/", "G").matcher;
    rs_sites_set_semantics(s, RS_SEMANTICS_FIRST_MATCH);
    /* First-match: such a pattern matches anywhere in the path (SPEC 2.5). */
    cr_expect_eq(verdict(s, "http://a.example/tmpa.html", "G", NULL).disallowed, 1);
    cr_expect_neq(lookup(s, "http://a.example/", "G").matcher, google);
    rs_sites_set_semantics(s, RS_SEMANTICS_GOOGLE);
    cr_expect_eq(lookup(s, "http://a.example/", "G").matcher, google);
    rs_sites_stats st;
    rs_sites_get_stats(s, &st);
    cr_expect_eq(st.bodies_parsed, 1);
    cr_expect_eq(st.matchers, 2);
    rs_sites_free(s);
}
