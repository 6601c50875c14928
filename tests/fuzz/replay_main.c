/*
 * replay_main.c - a plain main() for the fuzz targets: feeds every file of
 * the given files/directories (recursively) to LLVMFuzzerTestOneInput once.
 * `make test` uses it to replay the committed regressions and a seed corpus
 * without libFuzzer. A missing path is an error, so nothing is skipped
 * silently.
 */
#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static int verbose; /* REPLAY_VERBOSE=1: name each input before running it */

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) { perror(path); return -1; }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (buf == NULL) { fclose(f); fprintf(stderr, "out of memory\n"); return -1; }
        if (len == cap) {
            uint8_t *nb = realloc(buf, cap *= 2);
            if (nb == NULL) { free(buf); buf = NULL; continue; }
            buf = nb;
        }
        const size_t n = fread(buf + len, 1, cap - len, f);
        if (n == 0) break;
        len += n;
    }
    const int err = ferror(f);
    fclose(f);
    if (err) { fprintf(stderr, "%s: read error\n", path); free(buf); return -1; }
    /* An exact-size copy, so ASan sees reads past the input's end. */
    uint8_t *exact = malloc(len ? len : 1);
    if (exact == NULL) { free(buf); return -1; }
    if (len) memcpy(exact, buf, len);
    free(buf);
    if (verbose) fprintf(stderr, "replay: %s\n", path);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

static int run_path(const char *path, unsigned long *count)
{
    struct stat st;
    if (stat(path, &st) != 0) { perror(path); return -1; }
    if (!S_ISDIR(st.st_mode)) {
        if (run_file(path) != 0) return -1;
        (*count)++;
        return 0;
    }
    DIR *d = opendir(path);
    if (d == NULL) { perror(path); return -1; }
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        const size_t n = strlen(path) + strlen(e->d_name) + 2;
        char *child = malloc(n);
        if (child == NULL) { rc = -1; break; }
        snprintf(child, n, "%s/%s", path, e->d_name);
        rc = run_path(child, count);
        free(child);
    }
    closedir(d);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE_OR_DIR...\n", argv[0]);
        return 2;
    }
    unsigned long count = 0;
    const char *v = getenv("REPLAY_VERBOSE");
    verbose = v != NULL && v[0] == '1';
    for (int i = 1; i < argc; i++)
        if (run_path(argv[i], &count) != 0) return 1;
    printf("replayed %lu inputs\n", count);
    if (count == 0) {
        fprintf(stderr, "replay: no inputs under the paths given\n");
        return 1;
    }
    return 0;
}
