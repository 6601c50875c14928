/*
 * shard_warc.h - splitting a WARC robots source by site for `robotscan shard`
 * (src/cli/shard_warc.c).
 */
#ifndef RS_CLI_SHARD_WARC_H
#define RS_CLI_SHARD_WARC_H

#include <stdint.h>
#include <stdio.h>

/* @return 1 when @path opens as a WARC file (plain, gzip or zstd). */
int shard_is_warc(const char *path);

/* Writes DIR/robots-K/S<src>.warc.gz for every shard K < @n (only the captures shard K's
 * sites use) and lists it in @lists[K]; a damaged WARC is listed whole instead.
 * @return 0, or -1 after a message. */
int shard_split_warc(const char *path, uint32_t n, const char *dir, int src, FILE **lists);

#endif
