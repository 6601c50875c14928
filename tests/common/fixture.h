/*
 * fixture.h - a temporary directory of small files for the Criterion unit
 * tests that open robots sources (test_scan.c, test_sites.c, test_evict.c).
 * Header-only and static: the .c files of tests/common are also linked into the fuzz
 * replays, which have no Criterion.
 */
#ifndef RS_TESTS_FIXTURE_H
#define RS_TESTS_FIXTURE_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char tmpdir[256];

/* Creates tmpdir as /tmp/rs_@prefix_XXXXXX. */
static inline void fixture_mkdir(const char *prefix)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/rs_%s_XXXXXX", prefix);
    cr_assert_not_null(mkdtemp(tmpdir));
}

/* Removes tmpdir and everything in it (a .fini of the tests that made one). */
static inline void remove_tmpdir(void)
{
    char cmd[300];
    if (tmpdir[0] == '\0') return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    cr_assert_eq(system(cmd), 0);
    tmpdir[0] = '\0';
}

/* Writes @body to tmpdir/@name (creating one level of subdirectory if @name has a '/'). */
static inline void write_file(const char *name, const char *body)
{
    char path[1024];
    const char *slash = strchr(name, '/');
    if (slash != NULL) {
        snprintf(path, sizeof path, "%s/%.*s", tmpdir, (int)(slash - name), name);
        mkdir(path, 0755);
    }
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s", path);
    cr_assert_eq(fwrite(body, 1, strlen(body), f), strlen(body));
    cr_assert_eq(fclose(f), 0);
}

#endif /* RS_TESTS_FIXTURE_H */
