/*
 * test_bench.c - the matcher arena (src/bench): robotscan as a protocol peer
 * (rs_bench_serve), a workload folder loaded and its errors, the in-process
 * peer, and the causes given to disagreements ($, wildcard, group, other).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "robotscan.h"
#include "bench/bench.h"

static void put_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

/* A workload folder: one file, the queries and expected verdicts given. */
static char *make_folder(const char *robots, const char *queries, const char *expected)
{
    char tmpl[] = "/tmp/rs-test-bench-XXXXXX";
    char *dir = mkdtemp(tmpl);
    cr_assert_not_null(dir);
    dir = strdup(dir);
    char sub[512];
    snprintf(sub, sizeof sub, "%s/robots", dir);
    mkdir(sub, 0755);
    put_file(dir, "robots/00000.txt", robots);
    char input[4096];
    snprintf(input, sizeof input, "robots\trobots/00000.txt\n%s", queries);
    put_file(dir, "input.txt", input);
    put_file(dir, "expected.txt", expected);
    return dir;
}

static const char ROBOTS[] = "User-agent: *\nDisallow: /*.pdf$\nDisallow: /a*b\nAllow: /p\nDisallow: /p/q\n"
                             "\nUser-agent: FooBot\nDisallow: /\n";

Test(bench, serve_answers_the_protocol)
{
    char *dir = make_folder(ROBOTS, "", "");
    int in[2], out[2];
    cr_assert_eq(pipe(in), 0);
    cr_assert_eq(pipe(out), 0);
    char req[1024];
    const int n = snprintf(req, sizeof req,
                           "robots\t%s/robots/00000.txt\nGooglebot\thttps://x.com/a.pdf\nGooglebot\thttps://x.com/a.pdfx\n"
                           "FooBot\thttps://x.com/p\nGooglebot\thttps://x.com/p/q\r\nrobots\t/nonexistent\nFooBot\t/x\n",
                           dir);
    cr_assert_eq(write(in[1], req, (size_t)n), n);
    close(in[1]);
    char err[128] = "";
    cr_assert_eq(rs_bench_serve(in[0], out[1], err, sizeof err), RS_OK, "%s", err);
    close(out[1]);
    char got[256] = "";
    const ssize_t r = read(out[0], got, sizeof got - 1);
    cr_assert_gt(r, 0);
    got[r] = '\0';
    /* an unreadable robots.txt is an empty one: everything allowed */
    cr_assert_str_eq(got, "disallow\nallow\ndisallow\ndisallow\nallow\n");
    close(in[0]);
    close(out[0]);
    rs_bw_remove_dir(dir);
    free(dir);
}

Test(bench, folder_loads_and_inprocess_agrees)
{
    char *dir = make_folder(ROBOTS, "Googlebot\thttps://x.com/a.pdf\nFooBot\thttps://x.com/ok\nGooglebot\t/p\n",
                            "disallow\ndisallow\nallow\n");
    bw_workload w;
    char err[256];
    cr_assert_eq(rs_bw_load(dir, &w, err, sizeof err), RS_OK, "%s", err);
    cr_assert_eq(w.n_files, 1);
    cr_assert_eq(w.n_blocks, 1);
    cr_assert_eq(w.n_q, 3);
    int8_t answers[3];
    bp_result r;
    memset(&r, 0, sizeof r);
    rs_bp_inprocess(&w, 0, answers, &r);
    rs_bp_check(&w, answers, &r);
    cr_assert_eq(r.answered, 3);
    cr_assert_eq(r.agreed, 3);
    rs_bw_free(&w);
    rs_bw_remove_dir(dir);
    free(dir);
}

Test(bench, folder_errors_name_the_file)
{
    char *dir = make_folder(ROBOTS, "Googlebot\thttps://x.com/a\n", "");
    bw_workload w;
    char err[512];
    cr_assert_eq(rs_bw_load(dir, &w, err, sizeof err), RS_ERR_IO);
    cr_assert(strstr(err, "expected.txt") != NULL, "%s", err);
    put_file(dir, "expected.txt", "perhaps\n");
    cr_assert_eq(rs_bw_load(dir, &w, err, sizeof err), RS_ERR_IO);
    cr_assert(strstr(err, "not allow or disallow") != NULL, "%s", err);
    cr_assert_eq(rs_bw_load("/nonexistent-rs-bench", &w, err, sizeof err), RS_ERR_IO);
    cr_assert(strstr(err, "input.txt") != NULL, "%s", err);
    rs_bw_remove_dir(dir);
    free(dir);
}

/* The causes: answers flipped on purpose, one per kind of rule. */
Test(bench, causes)
{
    char *dir = make_folder(ROBOTS,
                            "Googlebot\thttps://x.com/a.pdf\n"     /* agreed */
                            "Googlebot\thttps://x.com/b.pdf?x\n"   /* $: with `$` stripped it is disallowed */
                            "Googlebot\thttps://x.com/a*b\n"       /* agreed */
                            "Googlebot\thttps://x.com/axxb\n"      /* wildcard: with `*` literal it is allowed */
                            "FooBot\thttps://x.com/z\n"            /* group selection: the `*` group allows */
                            "Googlebot\thttps://x.com/p/q\n",      /* other: a first-match peer allows (/p first) */
                            "disallow\nallow\ndisallow\ndisallow\ndisallow\ndisallow\n");
    bw_workload w;
    char err[256];
    cr_assert_eq(rs_bw_load(dir, &w, err, sizeof err), RS_OK, "%s", err);
    const int8_t answers[6] = { 1, 1, 1, 0, 0, 0 };
    bp_result r;
    memset(&r, 0, sizeof r);
    r.answered = 6;
    rs_bp_check(&w, answers, &r);
    cr_assert_eq(r.agreed, 2);
    cr_assert_eq(r.cause[BC_DOLLAR], 1);
    cr_assert_eq(r.cause[BC_WILDCARD], 1);
    cr_assert_eq(r.cause[BC_GROUP], 1);
    cr_assert_not_null(r.example[BC_DOLLAR]);
    cr_assert(strstr(r.example[BC_DOLLAR], "reference allow") != NULL, "%s", r.example[BC_DOLLAR]);
    cr_assert_eq(r.cause[BC_OTHER], 1);
    cr_assert(strstr(r.example[BC_OTHER], "line 5: disallow: /p/q") != NULL, "%s", r.example[BC_OTHER]);
    for (int c = 0; c < BC_COUNT; c++) free(r.example[c]);
    rs_bw_free(&w);
    rs_bw_remove_dir(dir);
    free(dir);
}
