/*
 * test_conformance.c - every conformance folder (but first-match, which has
 * its own semantics) through the library: verdict and line must agree for
 * every case. A mismatch names the folder, case, agent and URL.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robotscan.h"

#ifndef RS_SHARED_DIR
#define RS_SHARED_DIR "../shared"
#endif

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    cr_assert(fread(buf, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    buf[n] = '\0';
    *len = (size_t)n;
    return buf;
}

/* Runs one folder; @return the number of cases checked. */
static size_t run_folder(const char *folder, rs_semantics sem)
{
    char path[512];
    snprintf(path, sizeof path, "%s/conformance/%s/cases.tsv", RS_SHARED_DIR, folder);
    size_t tsv_len;
    char *tsv = slurp(path, &tsv_len);
    char cur_case[64] = "", cur_agent[256] = "";
    rs_matcher *m = NULL;
    size_t cases = 0, failures = 0;
    char *save = NULL;
    for (char *row = strtok_r(tsv, "\n", &save); row; row = strtok_r(NULL, "\n", &save)) {
        char *f[5];
        char *p = row;
        for (int i = 0; i < 5; i++) {
            f[i] = p;
            char *tab = strchr(p, '\t');
            if (i < 4) {
                cr_assert(tab != NULL, "bad row in %s: %s", path, row);
                *tab = '\0';
                p = tab + 1;
            }
        }
        if (strcmp(f[0], cur_case) || strcmp(f[1], cur_agent)) {
            rs_matcher_free(m);
            snprintf(cur_case, sizeof cur_case, "%s", f[0]);
            snprintf(cur_agent, sizeof cur_agent, "%s", f[1]);
            snprintf(path, sizeof path, "%s/conformance/%s/%s.txt", RS_SHARED_DIR, folder, f[0]);
            size_t body_len;
            char *body = slurp(path, &body_len);
            rs_ruleset *rs;
            cr_assert_eq(rs_ruleset_parse(body, body_len, &rs), RS_OK);
            cr_assert_eq(rs_matcher_create(rs, f[1], strlen(f[1]), sem, &m), RS_OK);
            rs_ruleset_free(rs);
            free(body);
        }
        const size_t ulen = strlen(f[2]);
        char *scratch = malloc(ulen + 2);
        const rs_str upath = rs_url_path(f[2], ulen, scratch, ulen + 2);
        rs_verdict v;
        rs_matcher_match(m, upath.ptr, upath.len, &v);
        free(scratch);
        const int want_dis = strcmp(f[3], "disallow") == 0;
        const unsigned want_line = (unsigned)strtoul(f[4], NULL, 10);
        if (v.disallowed != want_dis || v.line != want_line) {
            if (failures++ < 10)
                cr_log_error("%s case %s agent '%s' url '%s': got %s line %u, want %s line %u", folder,
                             f[0], f[1], f[2], v.disallowed ? "disallow" : "allow", v.line, f[3], want_line);
        }
        cases++;
    }
    rs_matcher_free(m);
    free(tsv);
    cr_expect_eq(failures, 0, "%s: %zu of %zu cases disagree", folder, failures, cases);
    return cases;
}

Test(conformance, reference_differential, .timeout = 1200) { cr_expect_eq(run_folder("reference-differential", RS_SEMANTICS_GOOGLE), 53848); }
Test(conformance, google_spec_test_correctness) { cr_expect_eq(run_folder("google-spec-test-correctness", RS_SEMANTICS_GOOGLE), 146); }
Test(conformance, google_spec_test_stress) { cr_expect_eq(run_folder("google-spec-test-stress", RS_SEMANTICS_GOOGLE), 254); }
Test(conformance, google_unittests) { cr_expect_eq(run_folder("google-unittests", RS_SEMANTICS_GOOGLE), 142); }
Test(conformance, seed_examples) { cr_expect_eq(run_folder("seed-examples", RS_SEMANTICS_GOOGLE), 254); }
Test(conformance, first_match) { cr_expect_eq(run_folder("first-match", RS_SEMANTICS_FIRST_MATCH), 44); }
