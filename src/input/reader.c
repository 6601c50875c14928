/*
 * reader.c - the streaming input reader: a file or stdin, plain, zstd or
 * gzip (detected from the first bytes), cut into large blocks of complete
 * lines.
 *
 * Layers:
 *   raw_read    read(2) on the descriptor, serving the sniffed magic bytes
 *               first; the only place (with open) that looks at errno
 *   src_read    decompressed bytes: plain = raw_read straight into the
 *               block buffer; zstd = ZSTD_decompressStream; gzip = inflate
 *               with 16+MAX_WBITS, reset after each member
 *   next_block  fills a block buffer with the carried partial line plus new
 *               bytes, cuts after the last '\n', carries the rest over
 *   map_block   a plain regular file is mapped instead (mmap): a block is a
 *               slice of the mapping, cut by the same rules, and no byte is
 *               copied (the copy was ~6% of a `urls --quiet` run, and on a
 *               core the -j 2 workers share). Asked for by rs_reader_opts.map
 *               (a file that shrinks while mapped raises SIGBUS); RS_READER=
 *               read turns it off.
 *
 * Does not: split lines (lines.c), interpret their content, seek, or use
 * threads. Trailing bytes after a zstd frame or gzip member that do not start
 * another one are corrupt input (as `zstd -d` says), not ignored.
 */
#include "common/common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#define IN_BUF_SIZE ((size_t)256 << 10)   /* compressed bytes per read(2) */
#define MAX_OPT     ((size_t)1 << 30)     /* largest block_size / max_line accepted */

struct rs_blockbuf {
    char  *data;     /* cap + RS_PADDING bytes */
    size_t cap;
    uint64_t *nl;    /* (cap + 63) / 64 words: the newline bitmap of its block (rs_block.nl_bits) */
    const char *mapped;     /* the slice of a mapped file it handed out last */
    size_t mapped_len;      /* (dropped from memory when the buffer comes back) */
};

struct rs_reader {
    int   fd;
    int   own_fd;               /* close on free */
    char *name;                 /* for messages */
    size_t block_size, max_line;
    size_t open_block_size;     /* block_size as opened (rs_reader_set_block_size) */
    int want_map;               /* rs_reader_opts.map */
    size_t cap;                 /* block buffer capacity: max(block_size, max_line + 1, 16) */
    rs_compression comp;

    unsigned char head[4];      /* magic bytes read while sniffing, served first */
    size_t head_len, head_pos;
    uint64_t raw_total;         /* bytes returned by raw_read (= bytes_in) */

    unsigned char *in;          /* compressed staging buffer */
    size_t in_pos, in_len;
    uint64_t in_base;           /* compressed offset of in[0] */
    int in_eof;
    ZSTD_DCtx *zd;
    size_t zret;                /* last ZSTD_decompressStream hint; 0 = between frames */
    size_t zfeed;               /* compressed bytes to offer next: about one block */
    int zfull;                  /* the last call filled its output: flush before feeding */
    z_stream zs;
    int zs_ready;               /* inflateInit2 done */
    int gz_between;             /* a member just ended */
    rs_status pend;             /* decoder failure held back while its last output is delivered */

    char *carry;                /* bytes read but not yet delivered (cap bytes) */
    size_t carry_len;
    uint64_t line;              /* number of the next line */
    uint64_t offset;            /* stream offset of carry[0] */
    int started;                /* BOM check done */
    int src_done;               /* source exhausted or failed */
    rs_status err;              /* sticky failure, delivered once the lines before it are */

    char *map;                  /* a mapped plain file (map_block), else NULL */
    size_t map_len;             /* the file's bytes at map */
    size_t map_size;            /* the mapping: whole pages, one zero page past the file */
    uintptr_t map_page;         /* the page size */

    rs_blockbuf own;            /* buffer of rs_reader_next_block (lazy) */
    rs_block cur;               /* rs_reader_next_line state */
    rs_lines it;
    int it_active;

    rs_reader_stats stats;
    char errmsg[512];
};

const char *rs_compression_name(rs_compression c)
{
    switch (c) {
    case RS_COMPRESSION_NONE: return "none";
    case RS_COMPRESSION_GZIP: return "gzip";
    case RS_COMPRESSION_ZSTD: return "zstd";
    }
    return "unknown";
}

__attribute__((format(printf, 3, 4)))
static rs_status fail(rs_reader *r, rs_status st, const char *fmt, ...)
{
    int n = snprintf(r->errmsg, sizeof r->errmsg, "%s: ", r->name);
    if (n < 0 || (size_t)n >= sizeof r->errmsg) return st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->errmsg + n, sizeof r->errmsg - (size_t)n, fmt, ap);
    va_end(ap);
    return st;
}

static rs_status fail_errno(rs_reader *r, int e, const char *what)
{
    char tmp[128];
    const char *msg = strerror_r(e, tmp, sizeof tmp);   /* GNU: returns the message */
    return fail(r, e == ENOMEM ? RS_ERR_NOMEM : RS_ERR_IO, "%s: %s", what, msg);
}

/* ===== Raw bytes ===== */

/* Up to @want bytes from the descriptor (sniffed head first); *got = 0 at EOF. */
static rs_status raw_read(rs_reader *r, void *dst, size_t want, size_t *got)
{
    *got = 0;
    if (r->head_pos < r->head_len) {
        const size_t n = RS_MIN(want, r->head_len - r->head_pos);
        memcpy(dst, r->head + r->head_pos, n);
        r->head_pos += n;
        *got = n;
    } else {
        ssize_t n;
        do n = read(r->fd, dst, RS_MIN(want, (size_t)1 << 30));
        while (n < 0 && errno == EINTR);
        if (n < 0) return fail_errno(r, errno, "read error");
        *got = (size_t)n;
    }
    r->raw_total += *got;
    r->stats.bytes_in = r->raw_total;
    return RS_OK;
}

/* Refills the compressed staging buffer when it is empty. */
static rs_status refill(rs_reader *r)
{
    if (r->in_pos < r->in_len || r->in_eof) return RS_OK;
    r->in_base += r->in_len;
    r->in_pos = r->in_len = 0;
    size_t got;
    RS_FORWARD(raw_read(r, r->in, IN_BUF_SIZE, &got));
    r->in_len = got;
    if (got == 0) r->in_eof = 1;
    return RS_OK;
}

/* ===== Decompressed bytes ===== */

/*
 * libzstd does not report the output of a call that fails, so each call is
 * offered at most the input it asks for (its return value: the rest of the
 * current block plus the next block header), and new input only once the
 * previous output is flushed. A call then decodes at most one block and an
 * error loses only the damaged block: every line before it is delivered.
 * This also keeps zstd from its single-pass path, which decodes a whole
 * frame at once.
 */
#define ZSTD_FIRST_FEED 5   /* a frame header prefix; zstd asks for the rest */

static rs_status zstd_read(rs_reader *r, char *dst, size_t want, size_t *got)
{
    for (;;) {
        RS_FORWARD(refill(r));
        const int at_end = r->in_pos == r->in_len;       /* no compressed input left */
        if (at_end && r->zret == 0) return RS_OK;        /* clean end, between frames */
        const size_t feed = r->zfull ? 0 : RS_MIN(r->zfeed, r->in_len - r->in_pos);
        ZSTD_inBuffer ib = { r->in, r->in_pos + feed, r->in_pos };
        ZSTD_outBuffer ob = { dst, want, 0 };
        const size_t ret = ZSTD_decompressStream(r->zd, &ob, &ib);
        if (ZSTD_isError(ret)) {
            if (ZSTD_getErrorCode(ret) == ZSTD_error_memory_allocation)
                r->pend = fail(r, RS_ERR_NOMEM, "out of memory in zstd");
            else
                r->pend = fail(r, RS_ERR_CORRUPT, "corrupt zstd frame at offset %llu: %s",
                               (unsigned long long)(r->in_base + r->in_pos), ZSTD_getErrorName(ret));
            return r->pend;
        }
        const int was_flushing = r->zfull;
        r->in_pos = ib.pos;
        r->zret = ret;
        r->zfeed = ret ? ret : ZSTD_FIRST_FEED;
        r->zfull = ob.pos == ob.size;
        if (ob.pos > 0) {
            *got = ob.pos;
            return RS_OK;
        }
        if (at_end && !was_flushing)                     /* nothing flushed: frame cut short */
            return fail(r, RS_ERR_CORRUPT, "truncated zstd frame at offset %llu: "
                        "unexpected end of input", (unsigned long long)(r->in_base + r->in_len));
    }
}

static rs_status gzip_read(rs_reader *r, char *dst, size_t want, size_t *got)
{
    for (;;) {
        RS_FORWARD(refill(r));
        const int at_end = r->in_pos == r->in_len;
        if (at_end && r->gz_between) return RS_OK;       /* clean end, between members */
        if (r->gz_between) {                             /* another member follows */
            if (inflateReset(&r->zs) != Z_OK) return fail(r, RS_ERR_CORRUPT, "gzip reset failed");
            r->gz_between = 0;
        }
        r->zs.next_in = r->in + r->in_pos;
        r->zs.avail_in = (uInt)(r->in_len - r->in_pos);
        r->zs.next_out = (unsigned char *)dst;
        r->zs.avail_out = (uInt)RS_MIN(want, (size_t)1 << 30);
        const uInt out_before = r->zs.avail_out;
        const int ret = inflate(&r->zs, Z_NO_FLUSH);
        const size_t used = (r->in_len - r->in_pos) - r->zs.avail_in;
        const size_t produced = out_before - r->zs.avail_out;
        if (ret == Z_MEM_ERROR || (ret != Z_OK && ret != Z_STREAM_END && ret != Z_BUF_ERROR)) {
            if (ret == Z_MEM_ERROR)
                r->pend = fail(r, RS_ERR_NOMEM, "out of memory in zlib");
            else
                r->pend = fail(r, RS_ERR_CORRUPT, "corrupt gzip data at offset %llu: %s",
                               (unsigned long long)(r->in_base + r->in_pos + used),
                               r->zs.msg ? r->zs.msg : "inflate failed");
            *got = produced;                             /* deliver what came before the damage */
            return *got ? RS_OK : r->pend;
        }
        r->in_pos += used;
        if (ret == Z_STREAM_END) r->gz_between = 1;
        if (produced > 0) {
            *got = produced;
            return RS_OK;
        }
        if (at_end && !r->gz_between)                    /* nothing flushed: member cut short */
            return fail(r, RS_ERR_CORRUPT, "truncated gzip member at offset %llu: "
                        "unexpected end of input", (unsigned long long)(r->in_base + r->in_len));
    }
}

/* Up to @want (> 0) decompressed bytes into @dst; *got = 0 at the clean end. */
static rs_status src_read(rs_reader *r, char *dst, size_t want, size_t *got)
{
    assert(want > 0);
    *got = 0;
    if (r->pend) return r->pend;
    rs_status st;
    switch (r->comp) {
    case RS_COMPRESSION_ZSTD: st = zstd_read(r, dst, want, got); break;
    case RS_COMPRESSION_GZIP: st = gzip_read(r, dst, want, got); break;
    default:                  st = raw_read(r, dst, want, got); break;
    }
    r->stats.bytes_out += *got;
    return st;
}

/* ===== Opening ===== */

static int is_zstd_magic(const unsigned char *h, size_t n)
{
    if (n < 4) return 0;
    if (h[0] == 0x28 && h[1] == 0xB5 && h[2] == 0x2F && h[3] == 0xFD) return 1;
    return (h[0] & 0xF0) == 0x50 && h[1] == 0x2A && h[2] == 0x4D && h[3] == 0x18; /* skippable */
}

/* Reads the magic bytes and sets up the decompressor. */
static rs_status sniff(rs_reader *r)
{
    while (r->head_len < sizeof r->head) {
        ssize_t n;
        do n = read(r->fd, r->head + r->head_len, sizeof r->head - r->head_len);
        while (n < 0 && errno == EINTR);
        if (n < 0) return fail_errno(r, errno, "read error");
        if (n == 0) break;
        r->head_len += (size_t)n;
    }
    if (is_zstd_magic(r->head, r->head_len)) r->comp = RS_COMPRESSION_ZSTD;
    else if (r->head_len >= 2 && r->head[0] == 0x1F && r->head[1] == 0x8B) r->comp = RS_COMPRESSION_GZIP;
    else r->comp = RS_COMPRESSION_NONE;
    r->stats.compression = r->comp;
    if (r->comp == RS_COMPRESSION_NONE) return RS_OK;

    r->in = rs_malloc(IN_BUF_SIZE);
    RS_RETURN_IF(r->in == NULL, RS_ERR_NOMEM);
    if (r->comp == RS_COMPRESSION_ZSTD) {
        r->zd = ZSTD_createDCtx();
        RS_RETURN_IF(r->zd == NULL, RS_ERR_NOMEM);
        r->zfeed = ZSTD_FIRST_FEED;
    } else {
        memset(&r->zs, 0, sizeof r->zs);
        const int ret = inflateInit2(&r->zs, 16 + MAX_WBITS);
        if (ret == Z_MEM_ERROR) return RS_ERR_NOMEM;
        if (ret != Z_OK) return fail(r, RS_ERR_CORRUPT, "cannot start gzip decoder");
        r->zs_ready = 1;
    }
    return RS_OK;
}

static rs_status reader_new(const char *name, const rs_reader_opts *opts, rs_reader **out)
{
    *out = NULL;
    const size_t block = opts && opts->block_size ? opts->block_size : RS_READER_DEFAULT_BLOCK;
    const size_t max_line = opts && opts->max_line ? opts->max_line : RS_READER_DEFAULT_MAX_LINE;
    RS_RETURN_IF(block > MAX_OPT || max_line > MAX_OPT, RS_ERR_USAGE);

    rs_reader *r = rs_calloc(1, sizeof *r);
    RS_RETURN_IF(r == NULL, RS_ERR_NOMEM);
    r->fd = -1;
    r->block_size = r->open_block_size = block;
    r->want_map = opts != NULL && opts->map;
    r->max_line = max_line;
    r->cap = RS_MAX(RS_MAX(block, max_line + 1), 16);   /* >= 3: the BOM look-ahead */
    r->line = 1;
    const size_t name_len = strlen(name);
    r->name = rs_malloc(name_len + 1);
    r->carry = rs_malloc(r->cap);
    if (r->name == NULL || r->carry == NULL) {
        rs_reader_free(r);
        return RS_ERR_NOMEM;
    }
    memcpy(r->name, name, name_len + 1);
    *out = r;
    return RS_OK;
}

/*
 * Maps a plain regular file of @size bytes read from its start (asked for by
 * rs_reader_opts.map): whole pages, then a page of zeros, so the 64 bytes
 * past any block are readable (rs_block). Not mapping is no error: the file
 * is read instead (RS_READER=read asks for that, so tests can compare the
 * two paths).
 */
static void map_file(rs_reader *r, uint64_t size)
{
    const char *env = getenv("RS_READER");
    if (env != NULL && strcmp(env, "read") == 0) return;
    const long pg = sysconf(_SC_PAGESIZE);
    if (pg <= 0 || size == 0 || size > SIZE_MAX / 2) return;
    const size_t page = (size_t)pg, len = ((size_t)size + page - 1) / page * page;
    char *p = mmap(NULL, len + page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return;
    if (mmap(p, len, PROT_READ, MAP_PRIVATE | MAP_FIXED, r->fd, 0) == MAP_FAILED) {
        munmap(p, len + page);
        return;
    }
    r->map = p;
    r->map_len = (size_t)size;
    r->map_size = len + page;
    r->map_page = page;
    r->stats.mapped = 1;
}

/* After the descriptor is set: reject directories, note the size, sniff;
 * a plain regular file read from its start is mapped. */
static rs_status reader_start(rs_reader *r)
{
    struct stat sb;
    if (fstat(r->fd, &sb) != 0) return fail_errno(r, errno, "cannot stat");
    if (S_ISDIR(sb.st_mode)) return fail(r, RS_ERR_IO, "is a directory");
    if (S_ISREG(sb.st_mode)) {
        r->stats.file_size = (uint64_t)sb.st_size;
        (void)posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    }
    RS_FORWARD(sniff(r));
    if (r->want_map && S_ISREG(sb.st_mode) && r->comp == RS_COMPRESSION_NONE && sb.st_size > 0 &&
        lseek(r->fd, 0, SEEK_CUR) == (off_t)r->head_len)
        map_file(r, (uint64_t)sb.st_size);
    return RS_OK;
}

rs_status rs_reader_open_fd(int fd, const char *name, const rs_reader_opts *opts, rs_reader **out)
{
    RS_RETURN_IF(out == NULL, RS_ERR_USAGE);
    *out = NULL;
    RS_RETURN_IF(fd < 0, RS_ERR_USAGE);
    RS_FORWARD(reader_new(name ? name : "(input)", opts, out));
    (*out)->fd = fd;
    return reader_start(*out);
}

rs_status rs_reader_open(const char *path, const rs_reader_opts *opts, rs_reader **out)
{
    RS_RETURN_IF(out == NULL, RS_ERR_USAGE);
    *out = NULL;
    if (path == NULL || strcmp(path, "-") == 0) return rs_reader_open_fd(0, "(stdin)", opts, out);
    RS_FORWARD(reader_new(path, opts, out));
    rs_reader *r = *out;
    do r->fd = open(path, O_RDONLY | O_CLOEXEC);
    while (r->fd < 0 && errno == EINTR);
    if (r->fd < 0) return fail_errno(r, errno, "cannot open");
    r->own_fd = 1;
    return reader_start(r);
}

void rs_reader_free(rs_reader *r)
{
    if (r == NULL) return;
    if (r->own_fd && r->fd >= 0) close(r->fd);
    if (r->zd) ZSTD_freeDCtx(r->zd);
    if (r->zs_ready) inflateEnd(&r->zs);
    if (r->map) munmap(r->map, r->map_size);
    rs_free(r->in);
    rs_free(r->carry);
    rs_free(r->own.data);
    rs_free(r->own.nl);
    rs_free(r->name);
    rs_free(r);
}

const char *rs_reader_errmsg(const rs_reader *r) { return r ? r->errmsg : "no reader"; }

void rs_reader_stats_get(const rs_reader *r, rs_reader_stats *out) { *out = r->stats; }

/* ===== Blocks ===== */

static rs_status blockbuf_init(rs_blockbuf *b, size_t cap)
{
    b->data = rs_malloc(cap + RS_PADDING);
    RS_RETURN_IF(b->data == NULL, RS_ERR_NOMEM);
    b->nl = rs_malloc((cap + 63) / 64 * sizeof *b->nl);
    if (b->nl == NULL) {
        rs_free(b->data);
        b->data = NULL;
        return RS_ERR_NOMEM;
    }
    rs_advise_huge(b->data, cap + RS_PADDING);
    b->cap = cap;
    b->mapped = NULL;
    b->mapped_len = 0;
    return RS_OK;
}

rs_status rs_blockbuf_create(const rs_reader *r, rs_blockbuf **out)
{
    RS_RETURN_IF(r == NULL || out == NULL, RS_ERR_USAGE);
    *out = NULL;
    rs_blockbuf *b = rs_malloc(sizeof *b);
    RS_RETURN_IF(b == NULL, RS_ERR_NOMEM);
    if (blockbuf_init(b, r->cap) != RS_OK) {
        rs_free(b);
        return RS_ERR_NOMEM;
    }
    *out = b;
    return RS_OK;
}

void rs_blockbuf_free(rs_blockbuf *b)
{
    if (b == NULL) return;
    rs_free(b->data);
    rs_free(b->nl);
    rs_free(b);
}

/* Records a failure of the source: delivered after the lines before it. */
static void source_failed(rs_reader *r, rs_status st)
{
    r->err = st;
    r->src_done = 1;
}

/* Reads into buf[*filled ..) up to @want bytes; updates the last newline seen. */
static void fill_some(rs_reader *r, char *buf, size_t *filled, size_t want, size_t *last_nl)
{
    size_t got;
    const rs_status st = src_read(r, buf + *filled, want, &got);
    if (st != RS_OK) {
        source_failed(r, st);
        return;
    }
    if (got == 0) {
        r->src_done = 1;
        return;
    }
    const char *nl = memrchr(buf + *filled, '\n', got);
    if (nl) *last_nl = (size_t)(nl - buf);
    *filled += got;
}

/* Delivers one line of @len bytes, longer than max_line, as an oversized
 * block (its text not kept); @found: a '\n' ends it. */
static void oversized_block(rs_reader *r, const char *ptr, uint64_t len, int found, rs_block *out)
{
    out->ptr = ptr;
    out->len = 0;
    out->first_line = r->line;
    out->lines = 1;
    out->offset = r->offset;
    out->oversized = len;
    r->line += 1;
    r->offset += len + (uint64_t)found;
    r->stats.lines += 1;
    r->stats.oversized_lines += 1;
}

/*
 * The skip path of a line that does not fit in the buffer: @len bytes of it
 * (no '\n' among them) were read; read and discard the rest through @buf,
 * keeping what follows its '\n' as the carry.
 */
static rs_status skip_oversized(rs_reader *r, char *buf, uint64_t len, rs_block *out)
{
    int found = 0;
    r->carry_len = 0;
    while (!r->src_done) {
        size_t got;
        const rs_status st = src_read(r, buf, r->cap, &got);
        if (st != RS_OK) {
            source_failed(r, st);
            break;
        }
        if (got == 0) {
            r->src_done = 1;
            break;
        }
        const char *nl = memchr(buf, '\n', got);
        if (nl) {
            const size_t k = (size_t)(nl - buf);
            len += k;
            r->carry_len = got - k - 1;
            memcpy(r->carry, nl + 1, r->carry_len);
            found = 1;
            break;
        }
        len += got;
    }
    if (!found && r->err) return r->err;     /* damaged inside the line: it is incomplete */
    oversized_block(r, buf, len, found, out);
    return RS_OK;
}

/* The whole pages of p[0, len) leave memory (a mapped file's slice once
 * used: they stay in the page cache, so a huge input keeps a small RSS). */
static void map_drop(const rs_reader *r, const char *p, size_t len)
{
    const uintptr_t page = r->map_page;
    const uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1), b = ((uintptr_t)p + len) & ~(page - 1);
    if (b > a) (void)madvise((void *)a, b - a, MADV_DONTNEED);
}

/* The first '\n' in p[from, to), or NULL. The pages passed beyond p[keep]
 * are dropped as the search goes: those bytes belong to a line longer than
 * max_line, never used, so a 100 MB line costs no memory here either. */
static const char *map_line_end(const rs_reader *r, const char *p, size_t from, size_t to, size_t keep)
{
    const size_t STEP = (size_t)4 << 20;
    while (from < to) {
        const size_t n = RS_MIN(to - from, STEP);
        const char *e = memchr(p + from, '\n', n);
        if (e != NULL) return e;
        const size_t a = RS_MAX(from, keep);
        if (from + n > a) map_drop(r, p + a, from + n - a);
        from += n;
    }
    return NULL;
}

/* The newline bitmap of a block's p[0, len) into @bb, as the block's nl_bits;
 * @return its lines (the '\n's). The one pass over the bytes that both counts
 * the lines (for the numbers of the next block's) and splits them (rs_lines):
 * scanning twice was 8-15% of a logs run. */
static uint64_t newline_bits(const char *p, size_t len, rs_blockbuf *bb, rs_block *out)
{
    static const rs_byteset NL = { .bits = { (uint64_t)1 << '\n' }, .bytes = { '\n' }, .count = 1 };
    assert(len <= bb->cap);
    out->nl_bits = bb->nl;
    return rs_simd_mask_any(p, len, &NL, bb->nl);
}

/* The page tables of p[0, len) filled in one call (not a fault every 16
 * pages) by the reading thread, before the first pass over those bytes. */
static void map_populate(const rs_reader *r, const char *p, size_t len)
{
#ifdef MADV_POPULATE_READ
    const uintptr_t a = (uintptr_t)p & ~(r->map_page - 1);
    (void)madvise((void *)a, (uintptr_t)p + len - a, MADV_POPULATE_READ);
#else
    (void)r, (void)p, (void)len;
#endif
}

/* Delivers p[0, len), @lines whole lines of the mapping, as a block. */
static void map_text_block(rs_reader *r, const char *p, size_t len, uint64_t lines, rs_block *out)
{
    out->ptr = p;
    out->len = len;
    out->first_line = r->line;
    out->lines = lines;
    out->offset = r->offset;
    r->line += lines;
    r->offset += len;
    r->stats.lines += lines;
}

/*
 * rs_reader_next_block_into for a mapped file: a slice of the mapping, cut
 * as the copying path cuts (after the last '\n' within block_size bytes, or
 * after the one long line that starts the block; the last line of the input
 * without '\n' and a line longer than max_line that starts a block are
 * blocks of their own, the latter oversized). Its page tables are filled
 * here, by the reading thread, in one call before its bytes are first read
 * (after, each 16 pages faulted in the first pass: ~4% of a logs run).
 * r->offset, the stream offset of
 * the next block, is its place in the mapping.
 */
static rs_status map_block(rs_reader *r, rs_blockbuf *bb, rs_block *out)
{
    if (bb->mapped_len) {       /* its last block is no longer in use */
        map_drop(r, bb->mapped, bb->mapped_len);
        bb->mapped_len = 0;
    }
    if (!r->started) {
        r->started = 1;
        if (r->map_len >= 3 && memcmp(r->map, "\xEF\xBB\xBF", 3) == 0) {
            r->offset = 3;
            r->stats.bom = 1;
            r->stats.bytes_in = r->stats.bytes_out = r->offset;
        }
    }
    const size_t pos = (size_t)r->offset;
    if (pos == r->map_len) return RS_ERR_EOF;
    const char *const p = r->map + pos;
    const size_t rest = r->map_len - pos, T = r->block_size;
    map_populate(r, p, RS_MIN(T, rest));
    const char *nl = memrchr(p, '\n', RS_MIN(T, rest));
    size_t len;                 /* the block's bytes, or the oversized line's */
    if (nl != NULL) {
        len = (size_t)(nl - p) + 1;
        map_text_block(r, p, len, newline_bits(p, len, bb, out), out);
    } else {                    /* the block starts with a line of T bytes or more, or the last line */
        const char *e = rest > T ? map_line_end(r, p, T, rest, r->max_line + 1) : NULL;
        len = e ? (size_t)(e - p) : rest;
        if (len > r->max_line) oversized_block(r, p, len, e != NULL, out);
        else map_text_block(r, p, len + (e != NULL), 1, out);
    }
    bb->mapped = p;
    bb->mapped_len = len;
    r->stats.bytes_in = r->stats.bytes_out = r->offset;
    return RS_OK;
}

rs_status rs_reader_next_block_into(rs_reader *r, rs_blockbuf *bb, rs_block *out)
{
    RS_RETURN_IF(r == NULL || bb == NULL || out == NULL, RS_ERR_USAGE);
    memset(out, 0, sizeof *out);
    out->max_line = r->max_line;
    RS_RETURN_IF(bb->cap < r->cap, RS_ERR_USAGE);
    if (r->map != NULL) return map_block(r, bb, out);
    if (r->src_done && r->carry_len == 0) return r->err ? r->err : RS_ERR_EOF;

    char *const buf = bb->data;
    const size_t T = r->block_size, M = r->max_line, cap = r->cap;
    size_t filled = r->carry_len;
    memcpy(buf, r->carry, filled);
    r->carry_len = 0;
    const size_t NONE = (size_t)-1;
    size_t last_nl = NONE;
    if (filled) {
        const char *nl = memrchr(buf, '\n', filled);
        if (nl) last_nl = (size_t)(nl - buf);
    }

    if (!r->started) {                       /* a BOM needs its 3 bytes before anything */
        while (filled < 3 && !r->src_done) fill_some(r, buf, &filled, 3 - filled, &last_nl);
        r->started = 1;
        if (filled >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) {
            memmove(buf, buf + 3, filled - 3);
            filled -= 3;
            r->offset += 3;
            r->stats.bom = 1;
            if (last_nl != NONE) last_nl -= 3;
        }
    }

    /* Read until the block is big enough and holds a line end, or the partial
       line (no '\n' at all) is already longer than max_line. */
    for (;;) {
        if (r->src_done) break;
        if (last_nl == NONE && filled > M) break;
        if (filled >= T && last_nl != NONE) break;
        const size_t want = filled < T ? T - filled : RS_MIN(T, cap - filled);
        fill_some(r, buf, &filled, want, &last_nl);
    }

    if (last_nl != NONE) {
        const size_t len = last_nl + 1;
        r->carry_len = filled - len;
        memcpy(r->carry, buf + len, r->carry_len);
        out->ptr = buf;
        out->len = len;
        out->first_line = r->line;
        out->lines = newline_bits(buf, len, bb, out);
        out->offset = r->offset;
        r->line += out->lines;
        r->offset += len;
        r->stats.lines += out->lines;
        return RS_OK;
    }
    if (r->src_done && r->err) return r->err;     /* the partial line at the damage is dropped */
    if (filled > M) return skip_oversized(r, buf, filled, out);
    assert(r->src_done);
    if (filled == 0) return RS_ERR_EOF;
    out->ptr = buf;                               /* the final line, without '\n' */
    out->len = filled;
    out->first_line = r->line;
    out->lines = 1;
    out->offset = r->offset;
    r->line += 1;
    r->offset += filled;
    r->stats.lines += 1;
    return RS_OK;
}

void rs_reader_set_block_size(rs_reader *r, size_t block_size)
{
    if (r == NULL) return;
    r->block_size = block_size == 0 || block_size > r->open_block_size ? r->open_block_size : block_size;
}

rs_status rs_reader_next_block(rs_reader *r, rs_block *out)
{
    RS_RETURN_IF(r == NULL || out == NULL, RS_ERR_USAGE);
    if (r->own.data == NULL) RS_FORWARD(blockbuf_init(&r->own, r->cap));
    return rs_reader_next_block_into(r, &r->own, out);
}

rs_status rs_reader_next_line(rs_reader *r, rs_line *out)
{
    RS_RETURN_IF(r == NULL || out == NULL, RS_ERR_USAGE);
    for (;;) {
        if (r->it_active && rs_line_next(&r->it, out)) return RS_OK;
        r->it_active = 0;
        RS_FORWARD(rs_reader_next_block(r, &r->cur));
        rs_lines_init(&r->it, &r->cur);
        r->it_active = 1;
    }
}
