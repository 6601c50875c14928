/*
 * test_evict.c - evicting loaded sites (rs_sites_release) and rebuilding
 * them: what `urls` does under a memory budget (src/job/partition.c).
 * Verdicts after any number of evictions equal those of a handle that never
 * evicts; a release frees exactly the documents loaded since the last one
 * (they are parsed again when used, the others are not); bodies given from
 * memory stay; releasing twice or with nothing loaded is harmless.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robotscan.h"
#include "common/fixture.h"
#include "sites/sites.h"

#define NSITES 120

static void make_sites(void)
{
    fixture_mkdir("evict");
    for (int i = 0; i < NSITES; i++) {
        char name[64], body[128];
        snprintf(name, sizeof name, "s%03d.example.com.txt", i);
        /* each site blocks a different prefix; every third one allows a deeper path */
        snprintf(body, sizeof body, "User-agent: *\nDisallow: /p%d\n%s", i % 7, i % 3 == 0 ? "Allow: /p0/ok\n" : "");
        write_file(name, body);
    }
}

static void remove_sites(void) { remove_tmpdir(); }

static rs_sites *open_sites(void)
{
    rs_sites *s = NULL;
    const char *paths[1] = { tmpdir };
    cr_assert_eq(rs_sites_create(paths, 1, &s), RS_OK, "%s", rs_sites_errmsg(s));
    return s;
}

/* The verdict of URL @i of a fixed pseudo-random sequence: disallowed * 1000 + line. */
static int verdict_of(rs_sites *s, unsigned i)
{
    char url[128];
    const unsigned site = (i * 2654435761u) % (NSITES + 5);   /* a few sites no file knows */
    snprintf(url, sizeof url, "https://s%03u.example.com/p%u%s", site, i % 7, i % 5 == 0 ? "/ok" : "/x");
    rs_site_verdict v;
    cr_assert_eq(rs_site_check(s, url, strlen(url), "Googlebot", 9, RS_SEMANTICS_GOOGLE, 0, &v), RS_OK);
    return (int)v.verdict.disallowed * 1000 + (int)v.verdict.line;
}

Test(evict, verdicts_survive_any_number_of_evictions, .init = make_sites, .fini = remove_sites)
{
    rs_sites *ref = open_sites(), *ev = open_sites();
    unsigned evictions = 0;
    for (unsigned i = 0; i < 5000; i++) {
        cr_assert_eq(verdict_of(ev, i), verdict_of(ref, i), "URL %u", i);
        if (i % 37 == 36) {         /* a tiny budget: evict every 37 URLs */
            cr_assert_eq(rs_sites_release(ev), RS_OK);
            evictions++;
        }
    }
    rs_sites_stats a, b;
    rs_sites_get_stats(ref, &a);
    rs_sites_get_stats(ev, &b);
    cr_assert_eq(a.bodies_parsed, NSITES, "the reference parses each file once (%zu)", a.bodies_parsed);
    cr_assert_gt(b.bodies_parsed, 10 * NSITES, "evicted sites are parsed again (%zu)", b.bodies_parsed);
    cr_assert_gt(evictions, 100);
    rs_sites_free(ref);
    rs_sites_free(ev);
}

/* rs_sites_recycle (partition.c's evictions) keeps the matcher arena's chunks and
 * fills them again; mixed with releases, and with a matcher too large to share a
 * chunk (a chunk of its own, freed), verdicts stay those of a handle that never evicts. */
Test(evict, verdicts_survive_recycled_arenas, .init = make_sites, .fini = remove_sites)
{
    static char big[6000 * 40];
    size_t n = (size_t)snprintf(big, sizeof big, "User-agent: *\n");
    for (int i = 0; i < 6000; i++)
        n += (size_t)snprintf(big + n, sizeof big - n, "Disallow: /p%d/deep/%d/*.x$\n", i % 7, i);
    write_file("big.example.com.txt", big);
    rs_sites *ref = open_sites(), *ev = open_sites();
    unsigned evictions = 0;
    for (unsigned i = 0; i < 5000; i++) {
        cr_assert_eq(verdict_of(ev, i), verdict_of(ref, i), "URL %u", i);
        char url[64];
        snprintf(url, sizeof url, "https://big.example.com/p%u/deep/%u/a.x", i % 7, i % 6000);
        rs_site_verdict a, b;
        cr_assert_eq(rs_site_check(ev, url, strlen(url), "Googlebot", 9, RS_SEMANTICS_GOOGLE, 0, &a), RS_OK);
        cr_assert_eq(rs_site_check(ref, url, strlen(url), "Googlebot", 9, RS_SEMANTICS_GOOGLE, 0, &b), RS_OK);
        cr_assert_eq(a.verdict.disallowed, b.verdict.disallowed, "URL %s", url);
        cr_assert_eq(a.verdict.line, b.verdict.line, "URL %s", url);
        if (i % 37 == 36) {
            cr_assert_eq(evictions % 5 == 4 ? rs_sites_release(ev) : rs_sites_recycle(ev), RS_OK);
            evictions++;
        }
    }
    cr_assert_gt(evictions, 100);
    rs_sites_free(ref);
    rs_sites_free(ev);
}

Test(evict, release_frees_what_was_loaded_since_the_last, .init = make_sites, .fini = remove_sites)
{
    rs_sites *s = open_sites();
    rs_sites_stats st;
    cr_assert_eq(rs_sites_release(s), RS_OK);       /* nothing loaded yet */
    const int v0 = verdict_of(s, 0), v1 = verdict_of(s, 1);
    rs_sites_get_stats(s, &st);
    cr_assert_eq(st.bodies_parsed, 2);
    cr_assert_eq(rs_sites_release(s), RS_OK);
    cr_assert_eq(rs_sites_release(s), RS_OK);       /* twice: harmless */
    /* URL 1's site again: parsed again (it was freed), same verdict */
    cr_assert_eq(verdict_of(s, 1), v1);
    rs_sites_get_stats(s, &st);
    cr_assert_eq(st.bodies_parsed, 3);
    cr_assert_eq(st.origins, 1);
    /* URL 0's site once more, then both again: each parsed once more, not twice */
    cr_assert_eq(verdict_of(s, 0), v0);
    cr_assert_eq(verdict_of(s, 0), v0);
    cr_assert_eq(verdict_of(s, 1), v1);
    rs_sites_get_stats(s, &st);
    cr_assert_eq(st.bodies_parsed, 4);
    rs_sites_free(s);
}

Test(evict, bodies_from_memory_stay, .init = make_sites, .fini = remove_sites)
{
    rs_sites *s = open_sites();
    static const char body[] = "User-agent: *\nDisallow: /mem\n";
    cr_assert_eq(rs_sites_add_body(s, "https://mem.example.org", 23, 200, body, sizeof body - 1), RS_OK,
                 "%s", rs_sites_errmsg(s));
    for (int round = 0; round < 3; round++) {
        rs_site_verdict v;
        cr_assert_eq(rs_site_check(s, "https://mem.example.org/mem/x", 29, "Googlebot", 9,
                                   RS_SEMANTICS_GOOGLE, 0, &v), RS_OK);
        cr_assert_eq(v.verdict.disallowed, 1, "round %d", round);
        cr_assert_eq(v.verdict.line, 2, "round %d", round);
        cr_assert_eq(verdict_of(s, (unsigned)round), verdict_of(s, (unsigned)round));
        cr_assert_eq(rs_sites_release(s), RS_OK);
    }
    rs_sites_free(s);
}
