/*
 * fuzz_reader.c - the input reader (src/input) and the newline kernels
 * (src/simd), against a plain re-statement of their contract.
 *
 * Input: byte 0 = mode, byte 1 = block size (1..64), byte 2 = max_line
 * (1..96), byte 3 = where to damage compressed data; the rest is the payload.
 *   mode % 5 == 0  payload as is (plain unless it starts with a magic number)
 *            == 1  payload compressed with zstd (checksummed), intact
 *            == 2  payload compressed with gzip, intact
 *            == 3  zstd, truncated at a point chosen by byte 3
 *            == 4  gzip, truncated likewise (or one byte flipped when mode & 8)
 * The bytes go through a memfd into rs_reader_open_fd with tiny blocks, so
 * block and buffer boundaries fall everywhere; a plain one is mapped when
 * mode & 32 (rs_reader_opts.map), else read. Checks:
 *   - intact/plain: the lines (blocks + rs_lines, or rs_reader_next_line when
 *     mode & 16) are exactly the payload split at '\n' (a leading BOM skipped,
 *     one '\r' before '\n' dropped, lines over max_line flagged oversized with
 *     their length), numbered from 1, then RS_ERR_EOF;
 *   - truncated: the lines delivered are a prefix of those, then an error
 *     whose message names the file and the offset;
 *   - flipped: no crash, errors name the file;
 *   - every block's 64 padding bytes are readable; block offsets are right;
 *   - every compiled-in kernel set agrees with the scalar one on the payload
 *     at every start offset up to 64.
 */
#include "fuzz.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "robotscan.h"

/* ===== The contract, written plainly ===== */

typedef struct {
    size_t off, len;        /* in the payload */
    uint64_t oversized;
} ref_line;

static size_t ref_split(const uint8_t *p, size_t n, size_t max_line, ref_line *out)
{
    size_t i = 0, k = 0;
    if (n >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF) i = 3;
    while (i < n) {
        size_t j = i;
        while (j < n && p[j] != '\n') j++;
        size_t len = j - i;
        out[k].off = i;
        out[k].oversized = len > max_line ? len : 0;
        if (!out[k].oversized && len && p[i + len - 1] == '\r') len--;
        out[k].len = out[k].oversized ? 0 : len;
        k++;
        i = j + 1;
    }
    return k;
}

/* ===== Compression ===== */

static size_t zstd_compress(const uint8_t *src, size_t n, uint8_t **dst)
{
    const size_t cap = ZSTD_compressBound(n);
    *dst = malloc(cap);
    FUZZ_CHECK(*dst != NULL);
    ZSTD_CCtx *c = ZSTD_createCCtx();
    FUZZ_CHECK(c != NULL);
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 1);
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
    const size_t z = ZSTD_compress2(c, *dst, cap, src, n);
    FUZZ_CHECK(!ZSTD_isError(z));
    ZSTD_freeCCtx(c);
    return z;
}

static size_t gzip_compress(const uint8_t *src, size_t n, uint8_t **dst)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    FUZZ_CHECK(deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
    const size_t cap = deflateBound(&zs, (uLong)n) + 64;
    *dst = malloc(cap);
    FUZZ_CHECK(*dst != NULL);
    zs.next_in = (Bytef *)(uintptr_t)src;
    zs.avail_in = (uInt)n;
    zs.next_out = *dst;
    zs.avail_out = (uInt)cap;
    FUZZ_CHECK(deflate(&zs, Z_FINISH) == Z_STREAM_END);
    const size_t z = cap - zs.avail_out;
    deflateEnd(&zs);
    return z;
}

/* ===== Kernels: every set against scalar ===== */

static void check_kernels(const uint8_t *p, size_t n, uint8_t sel)
{
    const rs_simd_kernels *scalar = rs_simd_get("scalar");
    FUZZ_CHECK(scalar != NULL);
    rs_byteset set;
    const char members[3] = { (char)sel, (char)(sel * 7 + 1), '\n' };
    FUZZ_CHECK(rs_byteset_init(&set, members, 1 + sel % 3) == RS_OK);
    for (size_t i = 0; rs_simd_impl_at(i) != NULL; i++) {
        const rs_simd_kernels *k = rs_simd_get(rs_simd_impl_at(i));
        if (k == NULL) continue; /* not runnable on this CPU */
        for (size_t start = 0; start <= n && start <= 64; start++) {
            const char *s = (const char *)p + start;
            const size_t m = n - start;
            FUZZ_CHECK(k->find_newline(s, m) == scalar->find_newline(s, m));
            FUZZ_CHECK(k->count_newlines(s, m) == scalar->count_newlines(s, m));
            FUZZ_CHECK(k->find_any(s, m, &set) == scalar->find_any(s, m, &set));
        }
    }
}

/* ===== The reader ===== */

static int has(const char *msg, const char *what) { return strstr(msg, what) != NULL; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4) return 0;
    const uint8_t mode = data[0];
    const size_t block = 1 + data[1] % 64;
    const size_t max_line = 1 + data[2] % 96;
    const uint8_t damage = data[3];
    const uint8_t *payload = data + 4;
    const size_t n = size - 4;
    check_kernels(payload, n, damage);

    uint8_t *packed = NULL;
    const uint8_t *bytes = payload;
    size_t len = n;
    int truncated = 0, flipped = 0;
    switch (mode % 5) {
    case 1: case 3: len = zstd_compress(payload, n, &packed); break;
    case 2: case 4: len = gzip_compress(payload, n, &packed); break;
    default: break;
    }
    if (packed) bytes = packed;
    if (mode % 5 >= 3) {
        if ((mode & 8) && mode % 5 == 4) {
            packed[10 + damage % (len - 10)] ^= (uint8_t)(1 + (damage >> 1));
            flipped = 1;
        } else {
            /* Cut strictly inside the stream, after the magic number. */
            const size_t cut = 4 + (size_t)damage * (len - 4) / 256;
            if (cut < len) { len = cut; truncated = 1; }
        }
    }

    const int fd = memfd_create("fuzz_reader", 0);
    FUZZ_CHECK(fd >= 0);
    FUZZ_CHECK(len == 0 || write(fd, bytes, len) == (ssize_t)len);
    FUZZ_CHECK(lseek(fd, 0, SEEK_SET) == 0);

    rs_reader_opts opts = { block, max_line, (mode & 32) != 0 };
    rs_reader *r = NULL;
    rs_status st = rs_reader_open_fd(fd, "fuzz.in", &opts, &r);
    FUZZ_CHECK(r != NULL);
    rs_reader_stats stats;
    rs_reader_stats_get(r, &stats);
    /* Plain only when nothing was compressed and the payload has no magic number. */
    const int plain = packed == NULL && stats.compression == RS_COMPRESSION_NONE;

    ref_line *ref = malloc((n + 1) * sizeof *ref);
    FUZZ_CHECK(ref != NULL);
    const size_t n_ref = ref_split(payload, n, max_line, ref);
    const int exact = plain || (packed && !truncated && !flipped);

    size_t got = 0;
    uint64_t want_next = 1;
    while (st == RS_OK) {
        rs_line ln;
        if (mode & 16) {
            st = rs_reader_next_line(r, &ln);
            if (st != RS_OK) break;
            FUZZ_CHECK(ln.number == want_next++);
            if (exact || truncated) {
                FUZZ_CHECK(got < n_ref);
                FUZZ_CHECK(ln.oversized == ref[got].oversized);
                FUZZ_CHECK(ln.text.len == ref[got].len);
                FUZZ_CHECK(memcmp(ln.text.ptr, payload + ref[got].off, ln.text.len) == 0);
            }
            got++;
            continue;
        }
        rs_block b;
        st = rs_reader_next_block(r, &b);
        if (st != RS_OK) break;
        if (b.len) {
            volatile char pad = b.ptr[b.len + 63]; /* the promised padding */
            (void)pad;
        }
        FUZZ_CHECK(b.first_line == want_next);
        if ((exact || truncated) && got < n_ref) FUZZ_CHECK(b.offset == ref[got].off);
        rs_lines it;
        rs_lines_init(&it, &b);
        uint64_t in_block = 0;
        while (rs_line_next(&it, &ln)) {
            FUZZ_CHECK(ln.number == want_next++);
            if (exact || truncated) {
                FUZZ_CHECK(got < n_ref);
                FUZZ_CHECK(ln.oversized == ref[got].oversized);
                FUZZ_CHECK(ln.text.len == ref[got].len);
                FUZZ_CHECK(memcmp(ln.text.ptr, payload + ref[got].off, ln.text.len) == 0);
            }
            got++;
            in_block++;
        }
        FUZZ_CHECK(in_block == b.lines);
    }
    if (exact) {
        FUZZ_CHECK(st == RS_ERR_EOF);
        FUZZ_CHECK(got == n_ref);
    } else if (truncated) {
        FUZZ_CHECK(st == RS_ERR_CORRUPT || st == RS_ERR_IO);
        FUZZ_CHECK(has(rs_reader_errmsg(r), "fuzz.in") && has(rs_reader_errmsg(r), "offset"));
    } else if (st != RS_ERR_EOF) {
        FUZZ_CHECK(has(rs_reader_errmsg(r), "fuzz.in"));
    }
    /* Errors are sticky. */
    if (st != RS_ERR_EOF) {
        rs_block b;
        FUZZ_CHECK(rs_reader_next_block(r, &b) == st);
    }
    rs_reader_free(r);
    close(fd);
    free(ref);
    free(packed);
    return 0;
}
