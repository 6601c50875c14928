/*
 * linecount.c - the floor for `robotscan urls`: read a file in 1 MiB blocks
 * and count its lines with memchr, nothing else (scripts/bench-urls times
 * it next to robotscan). Prints the count.
 *
 * Does not: decompress, look at line content.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: linecount FILE\n");
        return 2;
    }
    const int fd = open(argv[1], O_RDONLY);
    if (fd < 0) {
        perror(argv[1]);
        return 2;
    }
    static char buf[1 << 20];
    unsigned long long lines = 0;
    ssize_t got;
    while ((got = read(fd, buf, sizeof buf)) > 0) {
        const char *p = buf, *const end = buf + got;
        while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
            lines++;
            p++;
        }
    }
    if (got < 0) {
        perror(argv[1]);
        return 2;
    }
    close(fd);
    printf("%llu\n", lines);
    return 0;
}
