/*
 * spill.c - temporary zstd spill files (see spill.h): anonymous files,
 * unlinked at creation, written as one zstd stream with a small window
 * (so that many can be open at once) or as zstd frames compressed apart
 * (rs_spill_frame), or stored as written, read back sequentially.
 */
#include "scan/spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#define SPILL_BUF (64u << 10)

struct rs_spill {
    int fd;
    char *dir;
    ZSTD_CCtx *cc;             /* NULL when stored */
    ZSTD_DCtx *dc;
    char *buf;                 /* compressed bytes: write staging, then read buffer */
    size_t pos, len;           /* read: consumed / filled */
    char *plain;               /* read: decompressed bytes not yet returned */
    size_t ppos, plen;
    uint64_t written;
    int eof;
    int stored;                /* bytes as written: buf stages writes and reads, no zstd */
    int streamed;              /* rs_spill_write fed the stream (its frame is ended at rewind) */
};

/* Level and window of every spill: zstd's fast -5 (the 1M-site job: 36 CPU-s and
 * 1.50 GB spilled, against 40 CPU-s and 1.03 GB at level 1 and 31 CPU-s and 2.40 GB
 * stored), and a small window so that many spills decode at once. */
#define SPILL_LEVEL      -5
#define SPILL_WINDOW_LOG 17

static void seterr(char *err, size_t cap, const char *what, const char *dir, int e)
{
    if (err && cap) snprintf(err, cap, "cannot %s a spill file in %s: %s", what, dir, strerror(e));
}

rs_status rs_spill_open(const char *dir, rs_spill **out, char *err, size_t err_cap)
{
    return rs_spill_open_ex(dir, 0, out, err, err_cap);
}

rs_status rs_spill_open_ex(const char *dir, int stored, rs_spill **out, char *err, size_t err_cap)
{
    *out = NULL;
    if (dir == NULL || dir[0] == '\0') dir = "/tmp";
    int fd = -1;
#ifdef O_TMPFILE
    fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
    if (fd < 0) {
        /* no O_TMPFILE here: a named file, unlinked at once */
        const size_t n = strlen(dir);
        char *path = rs_malloc(n + 32);
        RS_RETURN_IF(path == NULL, RS_ERR_NOMEM);
        memcpy(path, dir, n);
        memcpy(path + n, "/robotscan-spill-XXXXXX", 24);
        fd = mkstemp(path);
        const int e = errno;
        if (fd >= 0) unlink(path);
        rs_free(path);
        if (fd < 0) {
            seterr(err, err_cap, "create", dir, e);
            return RS_ERR_IO;
        }
    }
    rs_spill *s = rs_calloc(1, sizeof *s);
    if (s == NULL) {
        close(fd);
        return RS_ERR_NOMEM;
    }
    s->fd = fd;
    s->stored = stored != 0;
    s->dir = rs_malloc(strlen(dir) + 1);
    s->buf = rs_malloc(SPILL_BUF);
    if (!s->stored) s->cc = ZSTD_createCCtx();
    if (s->dir == NULL || s->buf == NULL || (s->cc == NULL && !s->stored)) {
        rs_spill_close(s);
        return RS_ERR_NOMEM;
    }
    memcpy(s->dir, dir, strlen(dir) + 1);
    if (s->cc) {
        ZSTD_CCtx_setParameter(s->cc, ZSTD_c_compressionLevel, SPILL_LEVEL);
        ZSTD_CCtx_setParameter(s->cc, ZSTD_c_windowLog, SPILL_WINDOW_LOG);
    }
    *out = s;
    return RS_OK;
}

static rs_status flush_buf(rs_spill *s, char *err, size_t err_cap)
{
    size_t off = 0;
    while (off < s->pos) {
        const ssize_t w = write(s->fd, s->buf + off, s->pos - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            seterr(err, err_cap, "write", s->dir, w < 0 ? errno : ENOSPC);
            return RS_ERR_IO;
        }
        off += (size_t)w;
    }
    s->written += s->pos;
    s->pos = 0;
    return RS_OK;
}

static rs_status compress(rs_spill *s, const void *p, size_t n, ZSTD_EndDirective mode, char *err,
                          size_t err_cap)
{
    ZSTD_inBuffer in = { p, n, 0 };
    for (;;) {
        ZSTD_outBuffer o = { s->buf, SPILL_BUF, s->pos };
        const size_t left = ZSTD_compressStream2(s->cc, &o, &in, mode);
        if (ZSTD_isError(left)) {
            if (err && err_cap) snprintf(err, err_cap, "spill compression: %s", ZSTD_getErrorName(left));
            return RS_ERR_IO;
        }
        s->pos = o.pos;
        if (s->pos > SPILL_BUF / 2 || (mode == ZSTD_e_end && left == 0))
            RS_FORWARD(flush_buf(s, err, err_cap));
        if (mode == ZSTD_e_end ? left == 0 : in.pos == in.size) return RS_OK;
    }
}

/* Appends @n bytes to the file as they are (through s->buf). */
static rs_status put_raw(rs_spill *s, const void *p, size_t n, char *err, size_t err_cap)
{
    const char *q = p;
    while (n) {
        const size_t k = RS_MIN(n, SPILL_BUF - s->pos);
        memcpy(s->buf + s->pos, q, k);
        s->pos += k;
        q += k;
        n -= k;
        if (s->pos == SPILL_BUF) RS_FORWARD(flush_buf(s, err, err_cap));
    }
    return RS_OK;
}

rs_status rs_spill_write(rs_spill *s, const void *p, size_t n, char *err, size_t err_cap)
{
    if (n == 0) return RS_OK;
    if (s->stored) return put_raw(s, p, n, err, err_cap);
    s->streamed = 1;
    return compress(s, p, n, ZSTD_e_continue, err, err_cap);
}

void *rs_spill_framer(void)
{
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    if (cc == NULL) return NULL;
    ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, SPILL_LEVEL);
    ZSTD_CCtx_setParameter(cc, ZSTD_c_windowLog, SPILL_WINDOW_LOG);
    return cc;
}

void rs_spill_framer_free(void *framer)
{
    ZSTD_freeCCtx(framer);
}

rs_status rs_spill_frame(void *framer, const void *p, size_t n, rs_buf *out, char *err, size_t err_cap)
{
    const size_t bound = ZSTD_compressBound(n);
    RS_FORWARD(rs_buf_reserve(out, bound));
    const size_t z = ZSTD_compress2(framer, out->ptr + out->len, bound, p, n);
    if (ZSTD_isError(z)) {
        if (err && err_cap) snprintf(err, err_cap, "spill compression: %s", ZSTD_getErrorName(z));
        return RS_ERR_IO;
    }
    out->len += z;
    return RS_OK;
}

rs_status rs_spill_write_frame(rs_spill *s, const void *frame, size_t n, char *err, size_t err_cap)
{
    if (s->streamed || s->stored) {   /* never: a spill is written one way */
        if (err && err_cap) snprintf(err, err_cap, "spill written both as a stream and as frames");
        return RS_ERR_USAGE;
    }
    return put_raw(s, frame, n, err, err_cap);
}

rs_status rs_spill_rewind(rs_spill *s, char *err, size_t err_cap)
{
    if (s->streamed) RS_FORWARD(compress(s, "", 0, ZSTD_e_end, err, err_cap));
    RS_FORWARD(flush_buf(s, err, err_cap));
    if (lseek(s->fd, 0, SEEK_SET) != 0) {
        seterr(err, err_cap, "rewind", s->dir, errno);
        return RS_ERR_IO;
    }
    s->pos = s->len = s->ppos = s->plen = 0;
    if (s->stored) return RS_OK;
    ZSTD_freeCCtx(s->cc);
    s->cc = NULL;
    s->dc = ZSTD_createDCtx();
    s->plain = rs_malloc(SPILL_BUF);
    RS_RETURN_IF(s->dc == NULL || s->plain == NULL, RS_ERR_NOMEM);
    return RS_OK;
}

/* Reads a stored spill: the file's bytes through s->buf. */
static rs_status read_stored(rs_spill *s, char *dst, size_t n)
{
    size_t got = 0;
    while (got < n) {
        if (s->pos == s->len) {
            ssize_t r;
            do r = read(s->fd, s->buf, SPILL_BUF); while (r < 0 && errno == EINTR);
            if (r < 0) return RS_ERR_IO;
            if (r == 0) return got == 0 ? RS_ERR_EOF : RS_ERR_CORRUPT;
            s->pos = 0;
            s->len = (size_t)r;
        }
        const size_t k = RS_MIN(n - got, s->len - s->pos);
        memcpy(dst + got, s->buf + s->pos, k);
        s->pos += k;
        got += k;
    }
    return RS_OK;
}

rs_status rs_spill_read(rs_spill *s, void *p, size_t n)
{
    char *dst = p;
    if (s->stored) return read_stored(s, dst, n);
    size_t got = 0;
    while (got < n) {
        if (s->ppos < s->plen) {
            const size_t k = RS_MIN(n - got, s->plen - s->ppos);
            memcpy(dst + got, s->plain + s->ppos, k);
            s->ppos += k;
            got += k;
            continue;
        }
        if (s->pos == s->len && !s->eof) {
            ssize_t r;
            do r = read(s->fd, s->buf, SPILL_BUF); while (r < 0 && errno == EINTR);
            if (r < 0) return RS_ERR_IO;
            if (r == 0) s->eof = 1;
            s->pos = 0;
            s->len = (size_t)r;
        }
        ZSTD_inBuffer in = { s->buf, s->len, s->pos };
        ZSTD_outBuffer o = { s->plain, SPILL_BUF, 0 };
        const size_t z = ZSTD_decompressStream(s->dc, &o, &in);
        if (ZSTD_isError(z)) return RS_ERR_CORRUPT;
        s->pos = in.pos;
        s->ppos = 0;
        s->plen = o.pos;
        if (o.pos == 0 && s->eof && s->pos == s->len) return got == 0 ? RS_ERR_EOF : RS_ERR_CORRUPT;
    }
    return RS_OK;
}

uint64_t rs_spill_bytes(const rs_spill *s) { return s->written + s->pos; }

void rs_spill_close(rs_spill *s)
{
    if (s == NULL) return;
    if (s->fd >= 0) close(s->fd);
    ZSTD_freeCCtx(s->cc);
    ZSTD_freeDCtx(s->dc);
    rs_free(s->buf);
    rs_free(s->plain);
    rs_free(s->dir);
    rs_free(s);
}
