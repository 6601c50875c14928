/*
 * compile_rate.c - read + parse + compile throughput of robots.txt files and
 * the size of the compiled matchers (bench/RESULTS.md, issue 9).
 *
 * Usage: compile_rate DIR [AGENT [MAX]]   (every regular file or symlink in DIR,
 *        or the first MAX of them in directory order: a subset for callgrind)
 * Prints files/s for read+parse+compile on one thread, and the median, mean
 * and 90th percentile of rs_matcher_memory() per file.
 */
#include "robotscan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int cmp_size(const void *a, const void *b)
{
    const size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: compile_rate DIR [AGENT [MAX]]\n");
        return 2;
    }
    const char *agent = argc > 2 ? argv[2] : "Googlebot";
    const size_t max = argc > 3 ? (size_t)strtoull(argv[3], NULL, 10) : SIZE_MAX;
    DIR *d = opendir(argv[1]);
    if (d == NULL) { perror(argv[1]); return 2; }
    size_t cap = 1024, n = 0;
    char **names = malloc(cap * sizeof *names);
    struct dirent *de;
    while (n < max && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        if (n == cap) names = realloc(names, (cap *= 2) * sizeof *names);
        names[n++] = strdup(de->d_name);
    }
    closedir(d);
    size_t *sizes = malloc((n ? n : 1) * sizeof *sizes);
    char *buf = malloc(RS_ROBOTS_MAX_BODY);
    size_t done = 0;
    double bytes = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* Files are read as src/sites reads a directory source's (rs_read_doc_body):
     * openat on the directory with O_NOATIME, fstat, reads to the size fstat gave. */
    const int dfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) { perror(argv[1]); return 2; }
    int noatime = O_NOATIME;
    for (size_t i = 0; i < n; i++) {
        int fd = openat(dfd, names[i], O_RDONLY | O_CLOEXEC | noatime);
        if (fd < 0 && errno == EPERM && noatime) {
            noatime = 0;
            fd = openat(dfd, names[i], O_RDONLY | O_CLOEXEC);
        }
        if (fd < 0) continue;
        struct stat sb;
        const size_t known = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) ? (size_t)sb.st_size : SIZE_MAX;
        size_t len = 0;
        ssize_t r;
        while (len < RS_ROBOTS_MAX_BODY && (r = read(fd, buf + len, RS_ROBOTS_MAX_BODY - len)) > 0) {
            len += (size_t)r;
            if (len == known) break;   /* a short read of a regular file is its end */
        }
        close(fd);
        rs_ruleset *rs;
        rs_matcher *m;
        if (rs_ruleset_parse(buf, len, &rs) != RS_OK) continue;
        if (rs_matcher_create(rs, agent, strlen(agent), RS_SEMANTICS_GOOGLE, &m) == RS_OK) {
            sizes[done++] = rs_matcher_memory(m);
            rs_matcher_free(m);
        }
        rs_ruleset_free(rs);
        bytes += (double)len;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    qsort(sizes, done, sizeof *sizes, cmp_size);
    double sum = 0;
    for (size_t i = 0; i < done; i++) sum += (double)sizes[i];
    printf("files %zu, %.1f MB read, %.3f s: %.0f files/s (read+parse+compile, 1 thread)\n", done,
           bytes / 1e6, s, (double)done / s);
    if (done)
        printf("matcher bytes (agent %s): median %zu, mean %.0f, p90 %zu, max %zu\n", agent,
               sizes[done / 2], sum / (double)done, sizes[done * 9 / 10], sizes[done - 1]);
    close(dfd);
    return 0;
}
