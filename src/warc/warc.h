/*
 * warc.h - a streaming WARC reader (ISO 28500 record framing), the HTTP
 * response inside a record, and decoding of compressed robots.txt bodies.
 * Internal to the library (sources.c, survey); not part of the public
 * interface.
 *
 * A WARC file is plain, one gzip member per record (Common Crawl), or zstd
 * (one frame per record, or any framing); the compression is detected from
 * the content. Records are read one at a time into a window that holds one
 * record; the file is never loaded whole. A record that starts where a gzip
 * member or zstd frame starts (or any record of a plain file) has a file
 * offset that rs_warc_seek() can return to later.
 */
#ifndef RS_WARC_H
#define RS_WARC_H

#include "common/common.h"

typedef struct rs_warc rs_warc;

/* Records whose block is longer than this are skipped through, their block cut. */
#define RS_WARC_MAX_KEPT ((size_t)8 << 20)

typedef struct {
    uint64_t offset;      /* file offset of the record (seekable) or decompressed offset */
    int      seekable;    /* rs_warc_seek(offset) returns to this record */
    rs_str   type;        /* WARC-Type ("response", "request", ...) */
    rs_str   target_uri;  /* WARC-Target-URI (angle brackets removed) */
    rs_str   date;        /* WARC-Date as written (ISO 8601: compares as a string) */
    uint64_t content_length;
    const char *block;    /* the record block; valid until the next call on the reader */
    size_t   block_len;   /* bytes at block (< content_length when cut) */
} rs_warc_record;

/*
 * Opens @path and checks that it starts with a WARC record.
 * @param out OUT: set even on failure (unless RS_ERR_NOMEM) so rs_warc_errmsg() works.
 * @return RS_OK; RS_ERR_IO; RS_ERR_CORRUPT (not a WARC file: the message says why).
 */
rs_status rs_warc_open(const char *path, rs_warc **out);
void      rs_warc_free(rs_warc *w);

/*
 * The next record.
 * @return RS_OK; RS_ERR_EOF after the last one; RS_ERR_CORRUPT (truncated
 *         record, Content-Length that does not end at the record's end,
 *         damaged or cut compressed data: the message names the file and the
 *         offset of the record); RS_ERR_IO; RS_ERR_NOMEM.
 */
rs_status rs_warc_next(rs_warc *w, rs_warc_record *rec);

/*
 * After RS_ERR_CORRUPT from rs_warc_next: skips to the next record that can
 * be found (the next "WARC/" line after the damaged record's start). Damaged
 * compressed data cannot be resynchronised: then the rest of the file is lost.
 * @return RS_OK (rs_warc_next may be called again) or the error again.
 */
rs_status rs_warc_resync(rs_warc *w);

/* Returns to a seekable record's offset (rec.offset with rec.seekable). */
rs_status rs_warc_seek(rs_warc *w, uint64_t offset);

/* "FILE: what at offset N" for the last failure. */
const char *rs_warc_errmsg(const rs_warc *w);
rs_compression rs_warc_compression(const rs_warc *w);

/* @return 1 if @p (decompressed bytes of a file's start) begins a WARC record. */
int rs_warc_sniff(const void *p, size_t n);

/* ----- The HTTP response in a record's block ----- */

typedef struct {
    int      status;      /* 100..999 */
    rs_str   location;    /* Location header value, trimmed (empty when none) */
    int      chunked;     /* Transfer-Encoding: chunked */
    int      gzip;        /* Content-Encoding: gzip / x-gzip still present */
    int      html_type;   /* Content-Type text/html */
    const char *body;     /* the body as stored (before de-chunking/decoding) */
    size_t   body_len;
} rs_http_response;

/* @return RS_OK, or RS_ERR_CORRUPT when @block is not an HTTP response. */
rs_status rs_http_parse(const char *block, size_t len, rs_http_response *out);

/*
 * The usable body of a parsed response: de-chunked and gzip-decoded as its
 * headers say, at most @max bytes, appended to @out.
 * @return RS_OK, RS_ERR_CORRUPT (bad chunking or gzip data), RS_ERR_NOMEM.
 */
rs_status rs_http_body(const rs_http_response *r, size_t max, rs_buf *out);

/* ----- Compressed robots.txt files ----- */

/* @return the compression of @p by its magic bytes (gzip 1f 8b, zstd 28 b5 2f fd). */
rs_compression rs_sniff_compression(const void *p, size_t n);

/*
 * Decompresses gzip (members concatenated) or zstd data into @out, at most
 * @max bytes (the rest is not decoded).
 * @return RS_OK; RS_ERR_CORRUPT for damaged or truncated data (also cut at
 *         @max is fine); RS_ERR_NOMEM.
 */
rs_status rs_decompress(rs_compression c, const void *in, size_t len, size_t max, rs_buf *out);

/* @return 1 if a robots.txt body looks like an HTML page (lint's html-content check). */
int rs_body_is_html(const char *body, size_t len);

#endif /* RS_WARC_H */
