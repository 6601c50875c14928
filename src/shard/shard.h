/*
 * shard.h - what split.c, warc.c and merge.c share inside src/shard: the
 * error message of a call, and the WARC split. Not part of the public
 * interface (rs_shard_split and rs_merge_* are in robotscan.h).
 */
#ifndef RS_SHARD_H
#define RS_SHARD_H

#include "common/common.h"

#include <stdint.h>
#include <stdio.h>

/* Where a call's messages go: its first error into err, warnings to a callback. */
typedef struct {
    char     *err;
    size_t    err_cap;
    rs_status st;          /* the first error's status (RS_OK: none yet) */
    void (*warn)(void *ctx, const char *msg);
    void  *warn_ctx;
} rs_shard_diag;

/* Records the first error: its status, and its message in d->err. @return -1. */
int rs_shard_fail(rs_shard_diag *d, rs_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* rs_shard_fail for the library's entry points. @return the first error's status. */
rs_status rs_shard_error(rs_shard_diag *d, rs_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The first error's status; RS_ERR_IO when a failure left no message. */
rs_status rs_shard_status(const rs_shard_diag *d);
/* Passes a warning to d->warn (nothing without one). */
void rs_shard_warn(rs_shard_diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* @return 1 when @path opens as a WARC file (plain, gzip or zstd). */
int rs_shard_is_warc(const char *path);

/* Writes DIR/robots-K/S<src>.warc.gz for every shard K < @n (only the captures shard K's
 * sites use) and lists it in @lists[K]; a damaged WARC is listed whole instead (a warning).
 * @return RS_OK, or an error with its message in @d. */
rs_status rs_shard_split_warc(const char *path, uint32_t n, const char *dir, int src, FILE **lists,
                              rs_shard_diag *d);

#endif /* RS_SHARD_H */
