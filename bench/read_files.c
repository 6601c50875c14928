/*
 * read_files.c - the per-site yardstick of SPEC 6: list a directory, then
 * open, read and close every file in it, in random order, without parsing
 * anything (what loading a --robots DIR costs before any robots.txt work).
 *
 * Usage: read_files DIR [SEED [THREADS]]
 * Each file costs three system calls: openat (relative to the directory's
 * descriptor), one read into a reused buffer (more only for a file larger
 * than it), close. The order is a fixed shuffle of the directory (as the
 * sites of a random-order URL list are met). Prints files, bytes and seconds.
 * THREADS (default 1) threads of one process share the files, 64 at a time:
 * the yardstick of loading on several workers (their openat and close share
 * the process's descriptor table, which separate processes do not).
 */
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BUF_SIZE (512 * 1024)

static char **names;
static size_t n_names;
static int dfd;
static atomic_size_t next_file;

typedef struct { size_t files; double bytes; } counts;

static void *reader(void *arg)
{
    counts *c = arg;
    char *buf = malloc(BUF_SIZE);
    for (;;) {
        const size_t from = atomic_fetch_add(&next_file, 64);
        if (from >= n_names) break;
        const size_t to = from + 64 < n_names ? from + 64 : n_names;
        for (size_t i = from; i < to; i++) {
            const int fd = openat(dfd, names[i], O_RDONLY | O_CLOEXEC);
            if (fd < 0) continue;
            ssize_t r;
            while ((r = read(fd, buf, BUF_SIZE)) == BUF_SIZE) c->bytes += (double)r;
            if (r > 0) c->bytes += (double)r;
            close(fd);
            c->files++;
        }
    }
    free(buf);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: read_files DIR [SEED]\n");
        return 2;
    }
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 42;
    const int threads = argc > 3 ? atoi(argv[3]) : 1;
    if (threads < 1 || threads > 64) { fprintf(stderr, "read_files: THREADS 1-64\n"); return 2; }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    dfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd < 0 ? NULL : fdopendir(dup(dfd));
    if (d == NULL) { perror(argv[1]); return 2; }
    size_t cap = 1024, n = 0;
    names = malloc(cap * sizeof *names);
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        if (n == cap) names = realloc(names, (cap *= 2) * sizeof *names);
        names[n++] = strdup(de->d_name);
    }
    closedir(d);
    for (size_t i = n; i > 1; i--) {          /* Fisher-Yates, xorshift64 */
        seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
        const size_t j = (size_t)(seed % i);
        char *t = names[i - 1]; names[i - 1] = names[j]; names[j] = t;
    }
    n_names = n;
    pthread_t tid[64];
    counts c[64];
    memset(c, 0, sizeof c);
    for (int t = 1; t < threads; t++) pthread_create(&tid[t], NULL, reader, &c[t]);
    reader(&c[0]);
    for (int t = 1; t < threads; t++) pthread_join(tid[t], NULL);
    size_t files = 0;
    double bytes = 0;
    for (int t = 0; t < threads; t++) { files += c[t].files; bytes += c[t].bytes; }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("files %zu, %.1f MB, %.3f s: %.0f files/s (list + open/read/close)\n", files, bytes / 1e6, s,
           (double)files / s);
    return 0;
}
