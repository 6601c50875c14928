/*
 * spill.h - temporary zstd spill files for partitioned scans (internal).
 *
 * A spill is an anonymous file in a directory (usually $TMPDIR): it is
 * unlinked as soon as it is created, so nothing is left behind whatever
 * ends the process (exit, error, SIGINT, SIGTERM, even SIGKILL). It is
 * written once as one zstd stream (or stored, rs_spill_open_ex), then read
 * back from the start.
 */
#ifndef RS_SCAN_SPILL_H
#define RS_SCAN_SPILL_H

#include "common/common.h"

typedef struct rs_spill rs_spill;

/**
 * Creates a spill file in @dir. On failure @err (>= 256 bytes) names the
 * directory and the reason. @return RS_OK, RS_ERR_IO or RS_ERR_NOMEM.
 */
rs_status rs_spill_open(const char *dir, rs_spill **out, char *err, size_t err_cap);
/**
 * As rs_spill_open, with @stored set: the bytes are written as they are, not
 * compressed (for a spill read back soon when its directory has room: zstd at
 * level 1 cost a 1M-site urls job ~9 CPU-s of its ~50; bench/RESULTS.md).
 */
rs_status rs_spill_open_ex(const char *dir, int stored, rs_spill **out, char *err, size_t err_cap);
/** Appends bytes (compressed in memory, written in large chunks). */
rs_status rs_spill_write(rs_spill *s, const void *p, size_t n, char *err, size_t err_cap);
/** Ends writing (flushes the zstd frame, checks the write) and rewinds for reading. */
rs_status rs_spill_rewind(rs_spill *s, char *err, size_t err_cap);
/**
 * Reads exactly @n bytes. @return RS_OK, RS_ERR_EOF at the clean end (no
 * byte read), RS_ERR_CORRUPT / RS_ERR_IO otherwise.
 */
rs_status rs_spill_read(rs_spill *s, void *p, size_t n);
/** Bytes written to the file so far (compressed unless stored). */
uint64_t rs_spill_bytes(const rs_spill *s);
void rs_spill_close(rs_spill *s);

#endif /* RS_SCAN_SPILL_H */
