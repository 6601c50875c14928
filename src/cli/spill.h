/*
 * spill.h - temporary zstd-compressed files for work past a memory budget
 * (spill.c): written once, then read back in order.
 */
#ifndef RS_CLI_SPILL_H
#define RS_CLI_SPILL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    FILE *f;
    void *cs, *ds;          /* ZSTD_CStream / ZSTD_DStream */
    char *buf;
    size_t cap, in_pos, in_len;
    uint64_t raw_bytes;     /* bytes written, before compression */
} spill_file;

/* Creates an unlinked temporary file in $TMPDIR. @return 0, or -1 (errno set). */
int spill_open(spill_file *s);
/* @return 0, or -1 on a write/compression error. */
int spill_write(spill_file *s, const void *p, size_t n);
/* Ends writing and rewinds for spill_read. @return 0 or -1. */
int spill_finish(spill_file *s);
/* Reads exactly @n bytes. @return 1, 0 at the clean end, -1 on error or a short read. */
int spill_read(spill_file *s, void *p, size_t n);
void spill_close(spill_file *s);
/* "64M", "1G", "512MiB", "1073741824" (at least 1 MiB). @return 0 or -1. */
int spill_parse_size(const char *v, uint64_t *out);

#endif /* RS_CLI_SPILL_H */
