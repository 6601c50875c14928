/*
 * spill.h - temporary zstd spill files for partitioned scans (internal).
 *
 * A spill is an anonymous file in a directory (usually $TMPDIR): it is
 * unlinked as soon as it is created, so nothing is left behind whatever
 * ends the process (exit, error, SIGINT, SIGTERM, even SIGKILL). It is
 * written once as one zstd stream or as zstd frames made apart
 * (rs_spill_frame; or stored, rs_spill_open_ex), then read
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
 * compressed (RS_SPILL=stored: benchmarks and tests; SPEC 7 spills zstd).
 */
rs_status rs_spill_open_ex(const char *dir, int stored, rs_spill **out, char *err, size_t err_cap);
/** Appends bytes (compressed in memory, written in large chunks). */
rs_status rs_spill_write(rs_spill *s, const void *p, size_t n, char *err, size_t err_cap);
/*
 * Frames: bytes compressed apart, by any thread, into zstd frames that a
 * spill then takes whole, in the order they are to be read back (the reader
 * decodes the frames one after the other as one stream). A spill is written
 * either by rs_spill_write or by rs_spill_write_frame, not both.
 */
/** A compression context for rs_spill_frame (a ZSTD_CCtx), or NULL (no memory). One thread at a time. */
void     *rs_spill_framer(void);
void      rs_spill_framer_free(void *framer);
/** Appends @n bytes of @p, compressed into one zstd frame, to @out. */
rs_status rs_spill_frame(void *framer, const void *p, size_t n, rs_buf *out, char *err, size_t err_cap);
/** Appends a frame made by rs_spill_frame to @s (not a stored spill). */
rs_status rs_spill_write_frame(rs_spill *s, const void *frame, size_t n, char *err, size_t err_cap);
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
