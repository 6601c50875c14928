/*
 * warc.c - WARC records streamed from a plain, gzip or zstd file; the HTTP
 * response inside a record; decompression of robots.txt bodies (SPEC 3).
 *
 * Layers:
 *   more()      decompressed bytes appended to a window (buf[pos..len)); a
 *               gzip member or zstd frame is never continued in the same
 *               call that ended it, so the decompressed offset where each
 *               member starts is known (member_mark), and a record that
 *               starts there gets the member's file offset (seekable)
 *   rs_warc_next  version line, header fields up to CRLFCRLF, Content-Length
 *               bytes of block, the trailing CRLFCRLF; the window holds one
 *               record (blocks over RS_WARC_MAX_KEPT are cut and skipped)
 *   rs_http_*   status line, headers, chunked transfer coding, gzip
 *               Content-Encoding (zlib; no hand-written inflate)
 * A gzip file's members are inflated by libdeflate whole, one call each
 * (zlib takes a member that is not whole in the input or does not fit).
 *
 * Does not: decide what a record means for robots sources (sources.c).
 */
#include "warc/warc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include <libdeflate.h>
#include <zlib.h>
#include <zstd.h>

#define IN_SIZE     ((size_t)256 << 10)
#define CHUNK       ((size_t)64 << 10)
#define MAX_HEADER  ((size_t)1 << 20)

struct rs_warc {
    int fd;
    char *name;
    rs_compression comp;
    unsigned char *in;
    size_t in_pos, in_len;
    uint64_t in_base;          /* file offset of in[0] */
    int in_eof;
    z_stream zs;
    int zs_ready;
    struct libdeflate_decompressor *ld; /* a whole member at once (gzip files) */
    ZSTD_DCtx *zd;
    size_t zret;               /* last zstd hint; 0 = between frames */
    int between;               /* the decoder is between members/frames */
    rs_status dec_err;         /* sticky decoder failure */
    char dec_msg[256];
    int eof;                   /* no more decompressed bytes */
    char *buf;                 /* the window */
    size_t pos, len, cap;
    uint64_t out_off;          /* decompressed offset of buf[0] */
    uint64_t mark;             /* decompressed offset of the record being read */
    uint64_t mark_file;        /* file offset of the member that starts at mark */
    int mark_hit;
    uint64_t ms_decomp[4], ms_file[4]; /* the last member starts (ring) */
    unsigned ms_n;
    uint64_t nrec;             /* records read */
    uint64_t err_at;           /* decompressed offset of the record that failed */
    rs_buf big;                /* a cut block of a record over RS_WARC_MAX_KEPT */
    char errmsg[640];
};

__attribute__((format(printf, 3, 4)))
static rs_status fail(rs_warc *w, rs_status st, const char *fmt, ...)
{
    int n = snprintf(w->errmsg, sizeof w->errmsg, "%s: ", w->name ? w->name : "(warc)");
    if (n < 0 || (size_t)n >= sizeof w->errmsg) return st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->errmsg + n, sizeof w->errmsg - (size_t)n, fmt, ap);
    va_end(ap);
    return st;
}

const char *rs_warc_errmsg(const rs_warc *w) { return w ? w->errmsg : "out of memory"; }
rs_compression rs_warc_compression(const rs_warc *w) { return w->comp; }

rs_compression rs_sniff_compression(const void *p, size_t n)
{
    const unsigned char *h = p;
    if (n >= 2 && h[0] == 0x1f && h[1] == 0x8b) return RS_COMPRESSION_GZIP;
    if (n >= 4 && h[0] == 0x28 && h[1] == 0xb5 && h[2] == 0x2f && h[3] == 0xfd) return RS_COMPRESSION_ZSTD;
    return RS_COMPRESSION_NONE;
}

int rs_warc_sniff(const void *p, size_t n)
{
    const char *s = p;
    size_t i = 0;
    while (i < n && (s[i] == '\r' || s[i] == '\n')) i++;
    return n - i >= 6 && memcmp(s + i, "WARC/", 5) == 0 && s[i + 5] >= '0' && s[i + 5] <= '9';
}

/* ===== Compressed bytes ===== */

static rs_status refill(rs_warc *w)
{
    if (w->in_pos < w->in_len || w->in_eof) return RS_OK;
    w->in_base += w->in_len;
    w->in_pos = w->in_len = 0;
    ssize_t n;
    do n = read(w->fd, w->in, IN_SIZE);
    while (n < 0 && errno == EINTR);
    if (n < 0) return fail(w, RS_ERR_IO, "read error: %s", strerror(errno));
    if (n == 0) w->in_eof = 1;
    w->in_len = (size_t)n;
    return RS_OK;
}

/* Before a gzip member: at least half the input buffer's worth of input
 * ahead, or the file's end (the unread rest moved to the front), so that
 * libdeflate gets most members whole. */
static rs_status top_up(rs_warc *w)
{
    const size_t rest = w->in_len - w->in_pos;
    if (w->in_eof || rest >= IN_SIZE / 2) return RS_OK;
    memmove(w->in, w->in + w->in_pos, rest);
    w->in_base += w->in_pos;
    w->in_pos = 0;
    w->in_len = rest;
    while (w->in_len < IN_SIZE) {
        ssize_t n;
        do n = read(w->fd, w->in + w->in_len, IN_SIZE - w->in_len);
        while (n < 0 && errno == EINTR);
        if (n < 0) return fail(w, RS_ERR_IO, "read error: %s", strerror(errno));
        if (n == 0) { w->in_eof = 1; break; }
        w->in_len += (size_t)n;
    }
    return RS_OK;
}

/* A member/frame starts at decompressed offset @at, file offset @file. */
static void member_start(rs_warc *w, uint64_t at, uint64_t file)
{
    w->ms_decomp[w->ms_n & 3] = at;
    w->ms_file[w->ms_n & 3] = file;
    w->ms_n++;
    if (at == w->mark && !w->mark_hit) {
        w->mark_hit = 1;
        w->mark_file = file;
    }
}

static rs_status dec_fail(rs_warc *w, rs_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static rs_status dec_fail(rs_warc *w, rs_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->dec_msg, sizeof w->dec_msg, fmt, ap);
    va_end(ap);
    w->dec_err = st;
    return st;
}

/* Decodes into dst[0..cap); *got = 0 with w->eof at the end; 0 bytes without eof: try again. */
static rs_status decode(rs_warc *w, char *dst, size_t cap, size_t *got)
{
    *got = 0;
    if (w->dec_err) return w->dec_err;
    RS_FORWARD(refill(w));
    const uint64_t at = w->out_off + w->len;
    if (w->comp == RS_COMPRESSION_NONE) {
        const size_t n = RS_MIN(cap, w->in_len - w->in_pos);
        member_start(w, at, at);
        memcpy(dst, w->in + w->in_pos, n);
        w->in_pos += n;
        *got = n;
        if (n == 0 && w->in_eof) w->eof = 1;
        return RS_OK;
    }
    if (w->in_pos == w->in_len && w->in_eof) {
        if (w->between) { w->eof = 1; return RS_OK; }
        return dec_fail(w, RS_ERR_CORRUPT, "truncated %s %s at offset %llu: unexpected end of file",
                        rs_compression_name(w->comp), w->comp == RS_COMPRESSION_GZIP ? "member" : "frame",
                        (unsigned long long)(w->in_base + w->in_len));
    }
    if (w->between) {
        if (w->comp == RS_COMPRESSION_GZIP) RS_FORWARD(top_up(w));
        member_start(w, at, w->in_base + w->in_pos);
        w->between = 0;
        if (w->comp == RS_COMPRESSION_GZIP && w->ld != NULL) {
            /* The whole member in one call (a WARC.gz record is one member,
             * usually a few KiB): libdeflate, 1.5x zlib's speed on them. A
             * member not whole in the input, larger than @cap decompressed or
             * damaged goes to zlib from its start (zlib names the damage). */
            size_t used = 0, n = 0;
            const enum libdeflate_result r = libdeflate_gzip_decompress_ex(
                w->ld, w->in + w->in_pos, w->in_len - w->in_pos, dst, cap, &used, &n);
            if (r == LIBDEFLATE_SUCCESS) {
                w->in_pos += used;
                *got = n;
                w->between = 1;
                return RS_OK;
            }
        }
        if (w->comp == RS_COMPRESSION_GZIP && inflateReset(&w->zs) != Z_OK)
            return dec_fail(w, RS_ERR_CORRUPT, "gzip reset failed");
    }
    if (w->comp == RS_COMPRESSION_GZIP) {
        w->zs.next_in = w->in + w->in_pos;
        w->zs.avail_in = (uInt)(w->in_len - w->in_pos);
        w->zs.next_out = (unsigned char *)dst;
        w->zs.avail_out = (uInt)cap;
        const int ret = inflate(&w->zs, Z_NO_FLUSH);
        const size_t used = (w->in_len - w->in_pos) - w->zs.avail_in;
        if (ret == Z_MEM_ERROR) return dec_fail(w, RS_ERR_NOMEM, "out of memory in zlib");
        if (ret != Z_OK && ret != Z_STREAM_END && ret != Z_BUF_ERROR)
            return dec_fail(w, RS_ERR_CORRUPT, "corrupt gzip data at offset %llu: %s",
                            (unsigned long long)(w->in_base + w->in_pos + used),
                            w->zs.msg ? w->zs.msg : "inflate failed");
        w->in_pos += used;
        *got = cap - w->zs.avail_out;
        if (ret == Z_STREAM_END) w->between = 1;
        return RS_OK;
    }
    ZSTD_inBuffer ib = { w->in, w->in_len, w->in_pos };
    ZSTD_outBuffer ob = { dst, cap, 0 };
    const size_t ret = ZSTD_decompressStream(w->zd, &ob, &ib);
    if (ZSTD_isError(ret))
        return dec_fail(w, RS_ERR_CORRUPT, "corrupt zstd data at offset %llu: %s",
                        (unsigned long long)(w->in_base + w->in_pos), ZSTD_getErrorName(ret));
    w->in_pos = ib.pos;
    w->zret = ret;
    *got = ob.pos;
    if (ret == 0) w->between = 1;
    return RS_OK;
}

/* Appends at least one decompressed byte to the window, or sets w->eof. */
static rs_status more(rs_warc *w)
{
    if (w->pos > 0 && (w->len == w->cap || w->pos >= w->cap / 2)) {
        memmove(w->buf, w->buf + w->pos, w->len - w->pos);
        w->out_off += w->pos;
        w->len -= w->pos;
        w->pos = 0;
    }
    if (w->cap - w->len < CHUNK / 4) {
        const size_t ncap = w->cap * 2;
        char *nb = rs_realloc(w->buf, ncap + RS_PADDING);
        if (nb == NULL) return RS_ERR_NOMEM;
        w->buf = nb;
        w->cap = ncap;
    }
    for (;;) {
        size_t got = 0;
        /* gzip: room for a whole member where the window has it (libdeflate) */
        const size_t room = w->comp == RS_COMPRESSION_GZIP && w->between ? w->cap - w->len
                          : RS_MIN(w->cap - w->len, CHUNK);
        RS_FORWARD(decode(w, w->buf + w->len, room, &got));
        w->len += got;
        if (got > 0 || w->eof) return RS_OK;
    }
}

/* Ensures @n unread bytes (fewer only at the end: check w->len - w->pos). */
static rs_status need(rs_warc *w, size_t n)
{
    while (w->len - w->pos < n && !w->eof) RS_FORWARD(more(w));
    return RS_OK;
}

/* ===== Opening and seeking ===== */

static rs_status reset_decoder(rs_warc *w)
{
    w->between = 1;
    w->zret = 0;
    w->dec_err = RS_OK;
    w->eof = 0;
    if (w->comp == RS_COMPRESSION_ZSTD) ZSTD_DCtx_reset(w->zd, ZSTD_reset_session_only);
    return RS_OK;
}

rs_status rs_warc_open(const char *path, rs_warc **out)
{
    *out = NULL;
    rs_warc *w = rs_calloc(1, sizeof *w);
    RS_RETURN_IF(w == NULL, RS_ERR_NOMEM);
    *out = w;
    w->fd = -1;
    w->name = rs_malloc(strlen(path) + 1);
    w->in = rs_malloc(IN_SIZE);
    w->cap = 4 * CHUNK;
    w->buf = rs_malloc(w->cap + RS_PADDING);
    RS_RETURN_IF(w->name == NULL || w->in == NULL || w->buf == NULL, RS_ERR_NOMEM);
    memcpy(w->name, path, strlen(path) + 1);
    w->fd = open(path, O_RDONLY);
    if (w->fd < 0) return fail(w, RS_ERR_IO, "cannot open: %s", strerror(errno));
    RS_FORWARD(refill(w));
    w->comp = rs_sniff_compression(w->in, w->in_len);
    if (w->comp == RS_COMPRESSION_GZIP) {
        if (inflateInit2(&w->zs, 16 + MAX_WBITS) != Z_OK) return RS_ERR_NOMEM;
        w->zs_ready = 1;
        w->ld = libdeflate_alloc_decompressor();
        RS_RETURN_IF(w->ld == NULL, RS_ERR_NOMEM);
    } else if (w->comp == RS_COMPRESSION_ZSTD) {
        w->zd = ZSTD_createDCtx();
        RS_RETURN_IF(w->zd == NULL, RS_ERR_NOMEM);
    }
    reset_decoder(w);
    rs_status st = need(w, 16);
    if (st == RS_ERR_CORRUPT)
        return fail(w, st, "not a WARC file: %s", w->dec_msg);
    RS_FORWARD(st);
    if (!rs_warc_sniff(w->buf + w->pos, w->len - w->pos))
        return fail(w, RS_ERR_CORRUPT, "not a WARC file (no 'WARC/' version line at offset 0)");
    return RS_OK;
}

void rs_warc_free(rs_warc *w)
{
    if (w == NULL) return;
    if (w->fd >= 0) close(w->fd);
    if (w->zs_ready) inflateEnd(&w->zs);
    if (w->ld != NULL) libdeflate_free_decompressor(w->ld);
    ZSTD_freeDCtx(w->zd);
    rs_buf_free(&w->big);
    rs_free(w->buf);
    rs_free(w->in);
    rs_free(w->name);
    rs_free(w);
}

rs_status rs_warc_seek(rs_warc *w, uint64_t offset)
{
    /* Forward or backward within the compressed bytes already read: no system call. */
    if (w->comp != RS_COMPRESSION_NONE && offset >= w->in_base && offset < w->in_base + w->in_len) {
        w->in_pos = (size_t)(offset - w->in_base);
        w->pos = w->len = 0;
        w->ms_n = 0;
        w->out_off = 0;
        return reset_decoder(w);
    }
    if (lseek(w->fd, (off_t)offset, SEEK_SET) < 0)
        return fail(w, RS_ERR_IO, "cannot seek to offset %llu: %s", (unsigned long long)offset,
                    strerror(errno));
    w->in_base = offset;
    w->in_pos = w->in_len = 0;
    w->in_eof = 0;
    w->pos = w->len = 0;
    w->ms_n = 0;
    w->out_off = w->comp == RS_COMPRESSION_NONE ? offset : 0;
    return reset_decoder(w);
}

/* ===== Records ===== */

/* Did a member/frame already decoded start at decompressed offset w->mark? */
static void mark_known(rs_warc *w)
{
    if (w->mark_hit) return;
    for (unsigned i = 0; i < 4 && i < w->ms_n; i++) {
        const unsigned k = (w->ms_n - 1 - i) & 3;
        if (w->ms_decomp[k] == w->mark) {
            w->mark_hit = 1;
            w->mark_file = w->ms_file[k];
            return;
        }
    }
}

static int is_space(char c) { return c == ' ' || c == '\t'; }

static rs_str trim(const char *p, size_t n)
{
    while (n && is_space(*p)) { p++; n--; }
    while (n && (is_space(p[n - 1]) || p[n - 1] == '\r')) n--;
    rs_str s = { p, n };
    return s;
}

static const char *where(const rs_warc *w, char *tmp, size_t cap)
{
    if (w->mark_hit)
        snprintf(tmp, cap, "offset %llu", (unsigned long long)w->mark_file);
    else
        snprintf(tmp, cap, "decompressed offset %llu", (unsigned long long)w->mark);
    return tmp;
}

static rs_status record_fail(rs_warc *w, rs_status st, const char *what)
{
    char tmp[64];
    w->err_at = w->mark;
    if (w->dec_err)
        return fail(w, w->dec_err, "%s (in the record at %s)", w->dec_msg, where(w, tmp, sizeof tmp));
    return fail(w, st, "%s at %s", what, where(w, tmp, sizeof tmp));
}

/* The length of a header up to its first CRLFCRLF whose last LF is at @from or after
 * (0: none in p[0..avail)). Found by LF: a header is a few short lines. */
static size_t header_end(const char *p, size_t from, size_t avail)
{
    for (size_t i = from; i < avail;) {
        const char *q = memchr(p + i, '\n', avail - i);
        if (q == NULL) return 0;
        i = (size_t)(q - p);
        if (q[-1] == '\r' && q[-2] == '\n' && q[-3] == '\r') return i + 1;
        i++;
    }
    return 0;
}

rs_status rs_warc_next(rs_warc *w, rs_warc_record *rec)
{
    memset(rec, 0, sizeof *rec);
    if (w->dec_err && w->pos == w->len) return w->dec_err;
    w->mark = w->out_off + w->pos;
    w->mark_hit = w->comp == RS_COMPRESSION_NONE;
    w->mark_file = w->mark;
    if (!w->mark_hit && w->between && w->len == w->pos) member_start(w, w->mark, w->in_base + w->in_pos);
    mark_known(w);
    /* Blank lines between records are tolerated. */
    for (;;) {
        const rs_status st = need(w, 1);
        if (st != RS_OK && st != w->dec_err) return st;
        if (w->pos == w->len) {
            if (w->dec_err) {
                w->mark = w->out_off + w->pos;
                w->mark_hit = 0;
                return record_fail(w, w->dec_err, "");
            }
            return RS_ERR_EOF;
        }
        const char c = w->buf[w->pos];
        if (c != '\r' && c != '\n') break;
        w->pos++;
        w->mark = w->out_off + w->pos;
        w->mark_hit = w->comp == RS_COMPRESSION_NONE;
        w->mark_file = w->mark;
        mark_known(w);
    }

    /* Header: up to CRLFCRLF. */
    size_t scanned = 0, hlen = 0;
    for (;;) {
        const char *p = w->buf + w->pos;
        const size_t avail = w->len - w->pos;
        hlen = header_end(p, scanned + 3, avail);
        if (hlen) break;
        scanned = avail >= 3 ? avail - 3 : 0;
        if (avail > MAX_HEADER) return record_fail(w, RS_ERR_CORRUPT, "WARC header over 1 MiB (no CRLFCRLF)");
        if (w->eof || w->dec_err) return record_fail(w, RS_ERR_CORRUPT, "truncated WARC record (header cut short)");
        const rs_status st = more(w);
        if (st != RS_OK && st != RS_ERR_CORRUPT) return record_fail(w, st, "read error");
    }
    const char *h = w->buf + w->pos;
    if (!rs_warc_sniff(h, hlen))
        return record_fail(w, RS_ERR_CORRUPT, w->nrec ? "not a WARC record (no 'WARC/' version line)"
                                                      : "not a WARC file (no 'WARC/' version line)");
    int have_len = 0;
    uint64_t clen = 0;
    rs_str type = { h, 0 }, uri = { h, 0 }, date = { h, 0 };   /* slices of h, rebased below */
    for (size_t i = 0; i < hlen;) {
        const char *nl = memchr(h + i, '\n', hlen - i);
        const size_t end = nl ? (size_t)(nl - h) : hlen;
        const char *line = h + i;
        const size_t ll = end - i;
        i = end + 1;
        const char *colon = memchr(line, ':', ll);
        if (colon == NULL || line == h) continue;
        const rs_str name = trim(line, (size_t)(colon - line));
        /* Four of a record's dozen fields are read: lengths 9, 14 and 15 only. */
        if (name.len != 9 && name.len != 14 && name.len != 15) continue;
        const rs_str val = trim(colon + 1, ll - (size_t)(colon - line) - 1);
        if (rs_ieq(name.ptr, name.len, "Content-Length", 14)) {
            have_len = val.len > 0 && val.len <= 15;
            clen = 0;
            for (size_t k = 0; k < val.len && have_len; k++) {
                if (val.ptr[k] < '0' || val.ptr[k] > '9') have_len = 0;
                else clen = clen * 10 + (uint64_t)(val.ptr[k] - '0');
            }
            if (!have_len) return record_fail(w, RS_ERR_CORRUPT, "bad Content-Length in WARC record");
        } else if (rs_ieq(name.ptr, name.len, "WARC-Type", 9)) {
            type = val;
        } else if (rs_ieq(name.ptr, name.len, "WARC-Target-URI", 15)) {
            uri = val;
            if (uri.len >= 2 && uri.ptr[0] == '<' && uri.ptr[uri.len - 1] == '>') { uri.ptr++; uri.len -= 2; }
        } else if (rs_ieq(name.ptr, name.len, "WARC-Date", 9)) {
            date = val;
        }
    }
    if (!have_len) return record_fail(w, RS_ERR_CORRUPT, "WARC record without Content-Length");

    const size_t t_off = (size_t)(type.ptr - h), u_off = (size_t)(uri.ptr - h), d_off = (size_t)(date.ptr - h);
    rec->offset = w->mark_hit ? w->mark_file : w->mark;
    rec->seekable = w->mark_hit;
    rec->content_length = clen;
    if (clen <= RS_WARC_MAX_KEPT) {
        const size_t total = hlen + (size_t)clen + 4;
        const rs_status st = need(w, total);
        if (st != RS_OK && st != RS_ERR_CORRUPT) return record_fail(w, st, "read error");
        if (w->len - w->pos < total) {
            /* Cut short: a truncated last record, or a Content-Length past the end. */
            if (w->dec_err) return record_fail(w, w->dec_err, "");
            return record_fail(w, RS_ERR_CORRUPT, "truncated WARC record (Content-Length runs past the end of the file)");
        }
        const char *base = w->buf + w->pos;   /* need() may have moved the window */
        if (memcmp(base + hlen + clen, "\r\n\r\n", 4) != 0)
            return record_fail(w, RS_ERR_CORRUPT, "WARC record does not end with CRLFCRLF after its Content-Length (wrong Content-Length?)");
        rec->type.ptr = base + t_off; rec->type.len = type.len;
        rec->target_uri.ptr = base + u_off; rec->target_uri.len = uri.len;
        rec->date.ptr = base + d_off; rec->date.len = date.len;
        rec->block = base + hlen;
        rec->block_len = (size_t)clen;
        w->pos += total;
    } else {
        /* Oversized: keep the header and the first RS_WARC_MAX_KEPT bytes, skip the rest. */
        w->big.len = 0;
        RS_FORWARD(rs_buf_append(&w->big, h, hlen));
        const uint64_t total = clen + 4;
        uint64_t done = 0;
        size_t kept = 0, tail_n = 0;
        char tail[4];
        w->pos += hlen;
        while (done < total) {
            if (w->pos == w->len) {
                if (w->dec_err) return record_fail(w, w->dec_err, "");
                if (w->eof) return record_fail(w, RS_ERR_CORRUPT, "truncated WARC record (Content-Length runs past the end of the file)");
                const rs_status st = more(w);
                if (st != RS_OK && st != RS_ERR_CORRUPT) return record_fail(w, st, "read error");
                continue;
            }
            const size_t n = (size_t)RS_MIN((uint64_t)(w->len - w->pos), total - done);
            const char *p = w->buf + w->pos;
            size_t b = 0;
            if (done < clen) {
                b = (size_t)RS_MIN((uint64_t)n, clen - done);
                if (kept < RS_WARC_MAX_KEPT) {
                    const size_t k = RS_MIN(b, RS_WARC_MAX_KEPT - kept);
                    RS_FORWARD(rs_buf_append(&w->big, p, k));
                    kept += k;
                }
            }
            for (size_t k = b; k < n && tail_n < 4; k++) tail[tail_n++] = p[k];
            w->pos += n;
            done += n;
        }
        if (tail_n != 4 || memcmp(tail, "\r\n\r\n", 4) != 0)
            return record_fail(w, RS_ERR_CORRUPT, "WARC record does not end with CRLFCRLF after its Content-Length (wrong Content-Length?)");
        const char *nh = w->big.ptr;
        rec->type.ptr = nh + t_off; rec->type.len = type.len;
        rec->target_uri.ptr = nh + u_off; rec->target_uri.len = uri.len;
        rec->date.ptr = nh + d_off; rec->date.len = date.len;
        rec->block = nh + hlen;
        rec->block_len = kept;
    }
    w->nrec++;
    return RS_OK;
}

rs_status rs_warc_resync(rs_warc *w)
{
    if (w->dec_err) return w->dec_err;
    /* From just after the damaged record's start, find "\nWARC/" (a line that starts a record). */
    if (w->out_off + w->pos <= w->err_at) {
        const uint64_t skip = w->err_at + 1 - (w->out_off + w->pos);
        RS_FORWARD(need(w, (size_t)RS_MIN(skip, (uint64_t)SIZE_MAX)));
        w->pos += (size_t)RS_MIN(skip, (uint64_t)(w->len - w->pos));
    }
    for (;;) {
        const char *p = w->buf + w->pos;
        const size_t avail = w->len - w->pos;
        for (size_t i = 0; i + 6 <= avail; i++) {
            if (p[i] == '\n' && memcmp(p + i + 1, "WARC/", 5) == 0) {
                w->pos += i + 1;
                return RS_OK;
            }
        }
        if (w->eof) { w->pos = w->len; return RS_OK; }
        if (avail > 6) w->pos += avail - 6;
        const rs_status st = more(w);
        if (st != RS_OK) return st;
    }
}

/* ===== HTTP responses ===== */

rs_status rs_http_parse(const char *block, size_t len, rs_http_response *out)
{
    memset(out, 0, sizeof *out);
    out->location.ptr = block;
    out->body = block + len;
    if (len < 12 || memcmp(block, "HTTP/", 5) != 0) return RS_ERR_CORRUPT;
    size_t i = 5;
    while (i < len && block[i] != ' ') i++;
    while (i < len && block[i] == ' ') i++;
    int status = 0, digits = 0;
    while (i < len && block[i] >= '0' && block[i] <= '9' && digits < 3) {
        status = status * 10 + (block[i] - '0');
        digits++;
        i++;
    }
    if (digits != 3 || status < 100) return RS_ERR_CORRUPT;
    out->status = status;
    /* Header lines until an empty line (CRLF or LF). */
    const char *nl = memchr(block + i, '\n', len - i);
    if (nl == NULL) return RS_OK;
    i = (size_t)(nl - block) + 1;
    while (i < len) {
        nl = memchr(block + i, '\n', len - i);
        const size_t end = nl ? (size_t)(nl - block) : len;
        size_t ll = end - i;
        const char *line = block + i;
        i = nl ? end + 1 : len;
        if (ll > 0 && line[ll - 1] == '\r') ll--;
        if (ll == 0) {
            out->body = block + i;
            out->body_len = len - i;
            return RS_OK;
        }
        const char *colon = memchr(line, ':', ll);
        if (colon == NULL) continue;
        const rs_str name = trim(line, (size_t)(colon - line));
        const rs_str val = trim(colon + 1, ll - (size_t)(colon - line) - 1);
        if (rs_ieq(name.ptr, name.len, "Location", 8)) {
            out->location = val;
        } else if (rs_ieq(name.ptr, name.len, "Transfer-Encoding", 17)) {
            for (size_t k = 0; k + 7 <= val.len; k++)
                if (rs_ieq(val.ptr + k, 7, "chunked", 7)) out->chunked = 1;
        } else if (rs_ieq(name.ptr, name.len, "Content-Encoding", 16)) {
            if (rs_ieq(val.ptr, val.len, "gzip", 4) || rs_ieq(val.ptr, val.len, "x-gzip", 6)) out->gzip = 1;
        } else if (rs_ieq(name.ptr, name.len, "Content-Type", 12)) {
            if (rs_istarts(val.ptr, val.len, "text/html")) out->html_type = 1;
        }
    }
    out->body = block + len;   /* headers without an end: no body */
    out->body_len = 0;
    return RS_OK;
}

static rs_status dechunk(const char *p, size_t n, rs_buf *out)
{
    size_t i = 0;
    for (;;) {
        uint64_t size = 0;
        int digits = 0;
        while (i < n) {
            const char c = p[i];
            const int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                        : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (v < 0) break;
            if (++digits > 15) return RS_ERR_CORRUPT;
            size = size * 16 + (uint64_t)v;
            i++;
        }
        if (digits == 0) return RS_ERR_CORRUPT;
        const char *nl = memchr(p + i, '\n', n - i);   /* chunk extensions are ignored */
        if (nl == NULL) return RS_ERR_CORRUPT;
        i = (size_t)(nl - p) + 1;
        if (size == 0) return RS_OK;                     /* trailers are ignored */
        if (size > n - i) return RS_ERR_CORRUPT;
        RS_FORWARD(rs_buf_append(out, p + i, (size_t)size));
        i += (size_t)size;
        if (i < n && p[i] == '\r') i++;
        if (i < n && p[i] == '\n') i++;
        else return RS_ERR_CORRUPT;
    }
}

rs_status rs_http_body(const rs_http_response *r, size_t max, rs_buf *out)
{
    const char *p = r->body;
    size_t n = r->body_len;
    rs_buf tmp = {0};
    rs_status st = RS_OK;
    if (r->chunked) {
        st = dechunk(p, n, &tmp);
        if (st != RS_OK) goto out;
        p = tmp.ptr ? tmp.ptr : "";
        n = tmp.len;
    }
    if (r->gzip) st = rs_decompress(RS_COMPRESSION_GZIP, p, n, max, out);
    else st = rs_buf_append(out, p, RS_MIN(n, max));
out:
    rs_buf_free(&tmp);
    return st;
}

/* ===== Compressed bodies ===== */

rs_status rs_decompress(rs_compression c, const void *in, size_t len, size_t max, rs_buf *out)
{
    const size_t start = out->len;
    if (c == RS_COMPRESSION_NONE) return rs_buf_append(out, in, RS_MIN(len, max));
    if (c == RS_COMPRESSION_GZIP) {
        z_stream zs;
        memset(&zs, 0, sizeof zs);
        if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) return RS_ERR_NOMEM;
        rs_status st = RS_OK;
        zs.next_in = (unsigned char *)(uintptr_t)in;
        zs.avail_in = (uInt)len;
        int ended = 0;
        while (out->len - start < max) {
            if (ended) {
                if (zs.avail_in == 0) break;
                if (inflateReset(&zs) != Z_OK) { st = RS_ERR_CORRUPT; break; }
                ended = 0;
            }
            st = rs_buf_reserve(out, RS_MIN(max - (out->len - start), CHUNK));
            if (st != RS_OK) break;
            zs.next_out = (unsigned char *)out->ptr + out->len;
            zs.avail_out = (uInt)RS_MIN(out->cap - out->len, max - (out->len - start));
            const uInt before = zs.avail_out;
            const int ret = inflate(&zs, Z_NO_FLUSH);
            out->len += before - zs.avail_out;
            if (ret == Z_STREAM_END) { ended = 1; continue; }
            if (ret == Z_MEM_ERROR) { st = RS_ERR_NOMEM; break; }
            if (ret != Z_OK && !(ret == Z_BUF_ERROR && zs.avail_out == 0)) { st = RS_ERR_CORRUPT; break; }
            if (ret == Z_OK && zs.avail_in == 0 && zs.avail_out > 0) { st = RS_ERR_CORRUPT; break; } /* cut short */
        }
        inflateEnd(&zs);
        return st;
    }
    ZSTD_DCtx *d = ZSTD_createDCtx();
    RS_RETURN_IF(d == NULL, RS_ERR_NOMEM);
    ZSTD_inBuffer ib = { in, len, 0 };
    rs_status st = RS_OK;
    size_t ret = 0;
    while (out->len - start < max) {
        st = rs_buf_reserve(out, RS_MIN(max - (out->len - start), CHUNK));
        if (st != RS_OK) break;
        ZSTD_outBuffer ob = { out->ptr + out->len, RS_MIN(out->cap - out->len, max - (out->len - start)), 0 };
        ret = ZSTD_decompressStream(d, &ob, &ib);
        if (ZSTD_isError(ret)) { st = RS_ERR_CORRUPT; break; }
        out->len += ob.pos;
        if (ib.pos == ib.size && ob.pos < ob.size) {
            if (ret != 0) st = RS_ERR_CORRUPT;   /* a frame cut short */
            break;
        }
    }
    ZSTD_freeDCtx(d);
    return st;
}

typedef struct { int html; } html_ctx;

static void on_html(void *ctx, const rs_lint_finding *f)
{
    if (f->code == RS_LINT_HTML_CONTENT) ((html_ctx *)ctx)->html = 1;
}

/* Does a tag lint's html-content check looks for ("<!doctype html", "<html", "<head",
 * "<body", any case) start somewhere in @body? Without one, linting the body is no use:
 * robots files with a '<' in a comment or a pattern are common, HTML pages are not. */
static int has_html_tag(const char *body, size_t len)
{
    static const char *const tags[] = { "!doctype html", "html", "head", "body" };
    for (const char *p = memchr(body, '<', len); p != NULL; p = memchr(p + 1, '<', len - (size_t)(p + 1 - body))) {
        const size_t rest = len - (size_t)(p + 1 - body);
        for (size_t k = 0; k < sizeof tags / sizeof tags[0]; k++) {
            const size_t m = strlen(tags[k]);
            if (rest >= m && rs_istarts(p + 1, m, tags[k])) return 1;
        }
    }
    return 0;
}

int rs_body_is_html(const char *body, size_t len)
{
    if (len == 0 || !has_html_tag(body, len)) return 0;
    rs_lint_options o = { ~(1u << RS_LINT_HTML_CONTENT) };
    html_ctx c = { 0 };
    if (rs_lint(body, len, &o, on_html, &c) != RS_OK) return 0;
    return c.html;
}

/* ===== Public helpers ===== */

rs_status rs_robots_decode(const void *in, size_t len, size_t max, char **out, size_t *out_len)
{
    RS_RETURN_IF(out == NULL || out_len == NULL || (in == NULL && len), RS_ERR_USAGE);
    *out = NULL;
    *out_len = 0;
    rs_buf b = {0};
    const rs_status st = rs_decompress(rs_sniff_compression(in, len), in, len, max, &b);
    if (st != RS_OK) { rs_buf_free(&b); return st; }
    char *r = malloc(b.len + 1);
    if (r == NULL) { rs_buf_free(&b); return RS_ERR_NOMEM; }
    if (b.len) memcpy(r, b.ptr, b.len);
    r[b.len] = '\0';
    *out = r;
    *out_len = b.len;
    rs_buf_free(&b);
    return RS_OK;
}

int rs_is_warc_file(const char *path)
{
    rs_warc *w = NULL;
    const rs_status st = rs_warc_open(path, &w);
    rs_warc_free(w);
    return st == RS_OK;
}

rs_status rs_warc_each_capture(const char *path, int keep_going, rs_warc_capture_cb cb, void *ctx,
                               uint64_t *skipped, char *errmsg, size_t errmsg_cap)
{
    rs_warc *w = NULL;
    rs_status st = rs_warc_open(path, &w);
    rs_buf body = {0};
    if (skipped) *skipped = 0;
    if (errmsg && errmsg_cap) errmsg[0] = '\0';
    while (st == RS_OK) {
        rs_warc_record rec;
        st = rs_warc_next(w, &rec);
        if (st == RS_ERR_EOF) { st = RS_OK; break; }
        if (st == RS_ERR_CORRUPT && keep_going) {
            if (skipped) (*skipped)++;
            if (errmsg && errmsg_cap) snprintf(errmsg, errmsg_cap, "%s", rs_warc_errmsg(w));
            st = rs_warc_resync(w);
            if (st != RS_OK) { st = RS_OK; break; }
            continue;
        }
        if (st != RS_OK) break;
        if (!(rec.type.len == 8 && memcmp(rec.type.ptr, "response", 8) == 0)) continue;
        rs_http_response r;
        if (rs_http_parse(rec.block, rec.block_len, &r) != RS_OK) continue;
        rs_warc_capture c;
        memset(&c, 0, sizeof c);
        c.uri = rec.target_uri;
        c.date = rec.date;
        c.offset = rec.offset;
        c.status = r.status;
        body.len = 0;
        if (r.status >= 200 && r.status < 300) {
            const rs_status bs = rs_http_body(&r, RS_ROBOTS_MAX_BODY + 1, &body);
            if (bs == RS_ERR_NOMEM) { st = bs; break; }
            if (bs != RS_OK) {
                fail(w, RS_ERR_CORRUPT, "the response record at offset %llu has a bad body (chunked coding or gzip)",
                     (unsigned long long)rec.offset);
                if (keep_going) {
                    if (skipped) (*skipped)++;
                    if (errmsg && errmsg_cap) snprintf(errmsg, errmsg_cap, "%s", rs_warc_errmsg(w));
                    continue;
                }
                st = RS_ERR_CORRUPT;
                break;
            }
            c.body = body.ptr ? body.ptr : "";
            c.body_len = body.len;
        }
        if (cb(ctx, &c)) break;
    }
    if (st != RS_OK && errmsg && errmsg_cap) snprintf(errmsg, errmsg_cap, "%s", rs_warc_errmsg(w));
    rs_buf_free(&body);
    rs_warc_free(w);
    return st;
}
