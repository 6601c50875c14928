/*
 * test_input.c - the streaming reader and the line iterator, checked against
 * a naive model of the same input (split on '\n', strip one '\r', BOM
 * dropped, long lines flagged), over plain, zstd and gzip data made here with
 * the libraries, at every block size of small inputs, and on damaged files.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "robotscan.h"

void rs_alloc_fail_after(unsigned long n);   /* src/common: allocation failure injection */

/* ===== Helpers ===== */

typedef struct {
    char  *p;
    size_t n, cap;
} buf_t;

static void buf_add(buf_t *b, const void *src, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        b->cap = (b->n + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        cr_assert_not_null(b->p);
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
}
static void buf_adds(buf_t *b, const char *s) { buf_add(b, s, strlen(s)); }

/* A line as seen by a consumer: text, or the length of an oversized line. */
typedef struct {
    char    *text;
    size_t   len;
    uint64_t number;
    uint64_t oversized;
} rec_t;

typedef struct {
    rec_t *r;
    size_t n, cap;
} recs_t;

static void recs_add(recs_t *rs, const char *t, size_t len, uint64_t number, uint64_t oversized)
{
    if (rs->n == rs->cap) {
        rs->cap = rs->cap ? rs->cap * 2 : 64;
        rs->r = realloc(rs->r, rs->cap * sizeof *rs->r);
        cr_assert_not_null(rs->r);
    }
    rec_t *r = &rs->r[rs->n++];
    r->text = malloc(len + 1);
    memcpy(r->text, t, len);
    r->len = len;
    r->number = number;
    r->oversized = oversized;
}

static void recs_free(recs_t *rs)
{
    for (size_t i = 0; i < rs->n; i++) free(rs->r[i].text);
    free(rs->r);
    memset(rs, 0, sizeof *rs);
}

/* The model: what the reader must deliver for decompressed bytes @s. */
static recs_t model(const char *s, size_t n, size_t max_line)
{
    recs_t out = {0};
    if (n >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) { s += 3; n -= 3; }
    uint64_t number = 1;
    size_t at = 0;
    while (at < n) {
        const char *nl = memchr(s + at, '\n', n - at);
        size_t len = nl ? (size_t)(nl - (s + at)) : n - at;
        if (len > max_line) recs_add(&out, "", 0, number, len);
        else {
            size_t tl = len;
            if (tl && s[at + tl - 1] == '\r') tl--;
            recs_add(&out, s + at, tl, number, 0);
        }
        number++;
        at += len + 1;
    }
    return out;
}

typedef struct {
    recs_t recs;
    rs_status st;            /* the status that ended the reading (RS_ERR_EOF when clean) */
    char msg[512];
    rs_reader_stats stats;
    uint64_t blocks;
} result_t;

/* Reads everything with rs_reader_next_block + rs_lines, checking block invariants. */
static result_t read_reader(rs_reader *r)
{
    result_t res = {0};
    rs_block b;
    uint64_t next_line = 1, offset = 0;
    int first = 1;
    while ((res.st = rs_reader_next_block(r, &b)) == RS_OK) {
        rs_reader_stats_get(r, &res.stats);
        if (first && res.stats.bom) offset = 3;
        first = 0;
        res.blocks++;
        cr_assert_eq(b.first_line, next_line, "block first_line %llu, want %llu",
                     (unsigned long long)b.first_line, (unsigned long long)next_line);
        cr_assert_eq(b.offset, offset, "block offset %llu, want %llu",
                     (unsigned long long)b.offset, (unsigned long long)offset);
        if (b.oversized) cr_assert_eq(b.len, 0);
        else cr_assert_gt(b.len, 0, "empty block");
        rs_lines it;
        rs_line ln;
        rs_lines_init(&it, &b);
        uint64_t n = 0;
        while (rs_line_next(&it, &ln)) {
            cr_assert_eq(ln.number, next_line + n);
            recs_add(&res.recs, ln.text.ptr, ln.text.len, ln.number, ln.oversized);
            n++;
        }
        cr_assert_eq(n, b.lines, "block says %llu lines, iterator gave %llu",
                     (unsigned long long)b.lines, (unsigned long long)n);
        /* The reader's newline bitmap splits as the newline kernel does. */
        rs_block plain = b;
        plain.nl_bits = NULL;
        rs_lines it2;
        rs_line ln2;
        rs_lines_init(&it2, &b);
        rs_lines_init(&it, &plain);
        while (rs_line_next(&it, &ln)) {
            cr_assert(rs_line_next(&it2, &ln2));
            cr_assert(ln.text.ptr == ln2.text.ptr && ln.text.len == ln2.text.len && ln.number == ln2.number &&
                      ln.oversized == ln2.oversized, "line %llu split differently", (unsigned long long)ln.number);
        }
        cr_assert_not(rs_line_next(&it2, &ln2));
        next_line += n;
        offset += b.oversized ? b.oversized + 1 : b.len;
    }
    snprintf(res.msg, sizeof res.msg, "%s", rs_reader_errmsg(r));
    rs_reader_stats_get(r, &res.stats);
    cr_assert_eq(rs_reader_next_block(r, &b), res.st, "the final status is sticky");
    return res;
}

static void result_free(result_t *res) { recs_free(&res->recs); }

/* @got must equal @want record for record (a prefix when @prefix_only). */
static void expect_recs(const recs_t *got, const recs_t *want, const char *what)
{
    cr_assert_eq(got->n, want->n, "%s: %zu lines, want %zu", what, got->n, want->n);
    for (size_t i = 0; i < want->n; i++) {
        const rec_t *g = &got->r[i], *w = &want->r[i];
        cr_assert_eq(g->number, w->number, "%s: line %zu number", what, i);
        cr_assert_eq(g->oversized, w->oversized, "%s: line %llu oversized %llu want %llu", what,
                     (unsigned long long)w->number, (unsigned long long)g->oversized,
                     (unsigned long long)w->oversized);
        cr_assert_eq(g->len, w->len, "%s: line %llu length %zu want %zu", what,
                     (unsigned long long)w->number, g->len, w->len);
        cr_assert(memcmp(g->text, w->text, w->len) == 0, "%s: line %llu text", what,
                  (unsigned long long)w->number);
    }
}

static char tmpdir[] = "/tmp/rs_test_input_XXXXXX";
static int tmpdir_made;

static void remove_tmpdir(void)
{
    if (!tmpdir_made) return;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) cr_log_warn("could not remove %s", tmpdir);
}

TestSuite(input, .fini = remove_tmpdir);

static const char *tmp_path(const char *name)
{
    static char path[256];
    if (!tmpdir_made) {
        cr_assert_not_null(mkdtemp(tmpdir));
        tmpdir_made = 1;
    }
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    return path;
}

static const char *write_file(const char *name, const void *data, size_t n)
{
    const char *path = tmp_path(name);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(data, 1, n, f), n);
    cr_assert_eq(fclose(f), 0);
    return path;
}

static buf_t zstd_frame(const void *src, size_t n, int checksum)
{
    buf_t out = {0};
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, checksum);
    out.cap = ZSTD_compressBound(n) + 1;
    out.p = malloc(out.cap);
    out.n = ZSTD_compress2(c, out.p, out.cap, src, n);
    cr_assert(!ZSTD_isError(out.n));
    ZSTD_freeCCtx(c);
    return out;
}

static buf_t gzip_member(const void *src, size_t n)
{
    buf_t out = {0};
    z_stream z = {0};
    cr_assert_eq(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    out.cap = deflateBound(&z, n) + 64;
    out.p = malloc(out.cap);
    z.next_in = (unsigned char *)(uintptr_t)src;
    z.avail_in = (uInt)n;
    z.next_out = (unsigned char *)out.p;
    z.avail_out = (uInt)out.cap;
    cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
    out.n = out.cap - z.avail_out;
    deflateEnd(&z);
    return out;
}

/* Plain files mapped, as the CLI reads them (check_file also reads them with RS_READER=read). */
static result_t read_path(const char *path, size_t block, size_t max_line)
{
    rs_reader_opts o = { block, max_line, 1 };
    rs_reader *r;
    const rs_status st = rs_reader_open(path, &o, &r);
    cr_assert_eq(st, RS_OK, "open %s: %s", path, r ? rs_reader_errmsg(r) : "?");
    result_t res = read_reader(r);
    rs_reader_free(r);
    return res;
}

/* Reads @data stored as @name and compares with the model, clean end expected;
 * twice: as the reader chooses (a plain file is mapped) and with RS_READER=read
 * (every file read and copied). */
static void check_file(const char *name, const void *stored, size_t stored_n,
                       const char *plain, size_t plain_n, size_t block, size_t max_line)
{
    const char *path = write_file(name, stored, stored_n);
    recs_t want = model(plain, plain_n, max_line ? max_line : RS_READER_DEFAULT_MAX_LINE);
    for (int copy = 0; copy < 2; copy++) {
        if (copy) setenv("RS_READER", "read", 1);
        result_t res = read_path(path, block, max_line);
        unsetenv("RS_READER");
        char what[160];
        snprintf(what, sizeof what, "%s block=%zu max_line=%zu (%s)", name, block, max_line,
                 res.stats.mapped ? "mapped" : "read");
        cr_assert_eq(res.st, RS_ERR_EOF, "%s: %s (%s)", what, rs_status_str(res.st), res.msg);
        cr_assert_eq(res.stats.mapped, !copy && plain == stored && plain_n > 0,
                     "%s: a plain file is mapped unless RS_READER=read", what);
        expect_recs(&res.recs, &want, what);
        cr_assert_eq(res.stats.bytes_out, plain_n, "%s: bytes_out", what);
        cr_assert_eq(res.stats.bytes_in, stored_n, "%s: bytes_in", what);
        result_free(&res);
    }
    recs_free(&want);
}

static const char SAMPLE[] =
    "\xEF\xBB\xBFhttps://www.sec.gov/edgar.shtml\n"
    "https://example.com/a?b=c\r\n"
    "\n"
    "\r\n"
    "#comment line\n"
    "http://\xc3\xbc.example/\xff\x00nul\n"
    "a\n"
    "https://example.org/some/longer/path/that/crosses/sixty-four/bytes/of/input.html\n"
    "\r\r\n"
    "last line without newline";

/* ===== Plain input ===== */

Test(input, plain_every_block_size)
{
    const size_t n = sizeof SAMPLE - 1;
    for (size_t block = 1; block <= n + 2; block++) check_file("sample.txt", SAMPLE, n, SAMPLE, n, block, 0);
}

Test(input, small_inputs)
{
    static const struct { const char *s; size_t n; uint64_t lines; } cases[] = {
#define C(lit, k) { lit, sizeof(lit) - 1, k }
        C("", 0), C("\n", 1), C("\n\n", 2), C("a", 1), C("a\n", 1), C("a\nb", 2), C("\r\n", 1),
        C("\r", 1), C("\xEF\xBB\xBF", 0), C("\xEF\xBB\xBF\n", 1), C("\xEF\xBB", 1), C("\xEF", 1),
        C("\xEF\xBB\xBF\xEF\xBB\xBF\n", 1), C("x\xEF\xBB\xBF", 1), C("\x1F", 1), C("\x28\xB5\x2F", 1),
#undef C
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t block = 1; block <= 8; block++) {
            check_file("small.txt", cases[c].s, cases[c].n, cases[c].s, cases[c].n, block, 0);
            result_t res = read_path(tmp_path("small.txt"), block, 0);
            cr_assert_eq(res.recs.n, cases[c].lines, "case %zu", c);
            result_free(&res);
        }
}

Test(input, bom_only_at_start)
{
    const char s[] = "\xEF\xBB\xBF" "a\n\xEF\xBB\xBF" "b\n";
    const char *path = write_file("bom.txt", s, sizeof s - 1);
    result_t res = read_path(path, 0, 0);
    cr_assert_eq(res.recs.n, 2);
    cr_assert_eq(res.recs.r[0].len, 1);
    cr_assert_eq(res.recs.r[1].len, 4, "a BOM after the start is content");
    cr_assert_eq(res.stats.bom, 1);
    result_free(&res);
}

/* Lines of length max_line - 1 .. max_line + 1 and far beyond, at every block size. */
Test(input, long_lines_every_block_size)
{
    buf_t b = {0};
    const size_t M = 20;
    char line[200];
    memset(line, 'L', sizeof line);
    const size_t lens[] = { 19, 20, 21, 0, 20, 45, 3, 199, 21, 1, 20 };
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        buf_add(&b, line, lens[i]);
        if (i == 4) buf_adds(&b, "\r");             /* 20 + '\r' = 21 bytes: oversized */
        buf_adds(&b, "\n");
    }
    buf_add(&b, line, 77);                          /* final oversized line, no newline */
    for (size_t block = 1; block <= b.n + 1; block++) check_file("long.txt", b.p, b.n, b.p, b.n, block, M);

    result_t res = read_path(tmp_path("long.txt"), 8, M);
    size_t oversized = 0;
    for (size_t i = 0; i < res.recs.n; i++) oversized += res.recs.r[i].oversized != 0;
    cr_assert_eq(oversized, 6, "21, 20+CR, 45, 199, 21, 77 are oversized");
    cr_assert_eq(res.recs.r[1].len, 20, "exactly max_line is delivered");
    cr_assert_eq(res.recs.r[7].oversized, 199);
    cr_assert_eq(res.recs.r[11].oversized, 77);
    cr_assert_leq(res.stats.oversized_lines, oversized, "skipped ones are among the flagged ones");
    free(b.p);
    result_free(&res);
}

/* A 100 MB line without a newline streams through in bounded memory. */
Test(input, huge_line_bounded_memory)
{
    ZSTD_CCtx *c = ZSTD_createCCtx();
    buf_t z = {0};
    z.cap = 1 << 20;
    z.p = malloc(z.cap);
    static char chunk[1 << 20];
    memset(chunk, 'a', sizeof chunk);
    const size_t total = 100u << 20;
    for (size_t done = 0; done <= total; done += sizeof chunk) {
        const int last = done == total;
        ZSTD_inBuffer in = { last ? "\nafter\n" : chunk, last ? 7 : sizeof chunk, 0 };
        size_t rem;
        do {
            ZSTD_outBuffer out = { z.p + z.n, z.cap - z.n, 0 };
            rem = ZSTD_compressStream2(c, &out, &in, last ? ZSTD_e_end : ZSTD_e_continue);
            cr_assert(!ZSTD_isError(rem));
            z.n += out.pos;
            cr_assert_lt(z.n, z.cap);
        } while (last ? rem != 0 : in.pos < in.size);
    }
    ZSTD_freeCCtx(c);
    const char *path = write_file("huge.zst", z.p, z.n);
    free(z.p);

    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    const long before_kb = ru.ru_maxrss;
    result_t res = read_path(path, 0, 0);
    getrusage(RUSAGE_SELF, &ru);
    cr_assert_eq(res.st, RS_ERR_EOF, "%s", res.msg);
    cr_assert_eq(res.recs.n, 2);
    cr_assert_eq(res.recs.r[0].oversized, total);
    cr_assert_eq(res.recs.r[1].number, 2);
    cr_assert_eq(res.recs.r[1].len, 5);
    cr_assert(memcmp(res.recs.r[1].text, "after", 5) == 0);
    cr_assert_eq(res.stats.oversized_lines, 1);
    cr_log_info("max RSS %ld KiB before reading, %ld KiB after", before_kb, ru.ru_maxrss);
    cr_assert_lt(ru.ru_maxrss, 48 * 1024, "RSS grew to %ld KiB", ru.ru_maxrss);
    result_free(&res);
}

/* The same line in a plain file, which is mapped: its pages are let go as
 * the search for its end passes them. */
Test(input, huge_line_plain_file_bounded_memory)
{
    const char *path = tmp_path("huge.txt");
    FILE *f = fopen(path, "wb");
    cr_assert(f != NULL);
    static char chunk[1 << 20];
    memset(chunk, 'a', sizeof chunk);
    const size_t total = 100u << 20;
    for (size_t done = 0; done < total; done += sizeof chunk) cr_assert_eq(fwrite(chunk, 1, sizeof chunk, f), sizeof chunk);
    cr_assert_eq(fwrite("\nafter\n", 1, 7, f), 7);
    cr_assert_eq(fclose(f), 0);

    struct rusage ru;
    result_t res = read_path(path, 0, 0);
    getrusage(RUSAGE_SELF, &ru);
    cr_assert_eq(res.st, RS_ERR_EOF, "%s", res.msg);
    cr_assert_eq(res.stats.mapped, 1);
    cr_assert_eq(res.recs.n, 2);
    cr_assert_eq(res.recs.r[0].oversized, total);
    cr_assert_eq(res.recs.r[1].len, 5);
    cr_assert(memcmp(res.recs.r[1].text, "after", 5) == 0);
    cr_log_info("max RSS %ld KiB", ru.ru_maxrss);
    cr_assert_lt(ru.ru_maxrss, 48 * 1024, "RSS grew to %ld KiB", ru.ru_maxrss);
    result_free(&res);
}

/* A mapped block's 64 bytes past its end are readable (rs_block), also when
 * the file ends on a page boundary (a page of zeros follows the mapping). */
Test(input, mapped_block_padding_at_page_end)
{
    const long page = sysconf(_SC_PAGESIZE);
    cr_assert_gt(page, 0);
    char *data = malloc((size_t)page);
    for (long i = 0; i < page; i++) data[i] = (i % 32 == 31) ? '\n' : 'x';
    const char *path = write_file("page.txt", data, (size_t)page);
    for (size_t block = 1; block <= 64; block *= 2) {
        rs_reader_opts o = { block, 0, 1 };
        rs_reader *r;
        cr_assert_eq(rs_reader_open(path, &o, &r), RS_OK);
        rs_block b;
        unsigned sum = 0;
        uint64_t lines = 0;
        while (rs_reader_next_block(r, &b) == RS_OK) {
            for (size_t i = 0; i < b.len + 64; i++) sum += (unsigned char)b.ptr[i];
            lines += b.lines;
        }
        rs_reader_stats st;
        rs_reader_stats_get(r, &st);
        cr_assert_eq(st.mapped, 1);
        cr_assert_eq(lines, (uint64_t)page / 32);
        cr_assert_gt(sum, 0);
        rs_reader_free(r);
    }
    free(data);
}

/* The library's default reads and copies: a caller that did not ask for a
 * mapping never meets SIGBUS. */
Test(input, mapping_is_asked_for)
{
    const char *path = write_file("ask.txt", "a\nb\n", 4);
    for (int map = 0; map < 2; map++) {
        rs_reader_opts o = { 0, 0, map };
        rs_reader *r;
        cr_assert_eq(rs_reader_open(path, &o, &r), RS_OK);
        rs_block b;
        cr_assert_eq(rs_reader_next_block(r, &b), RS_OK);
        cr_assert_eq(b.lines, 2);
        rs_reader_stats st;
        rs_reader_stats_get(r, &st);
        cr_assert_eq(st.mapped, map);
        rs_reader_free(r);
    }
}

/* ===== Compressed input ===== */

static buf_t many_lines(size_t count)
{
    buf_t b = {0};
    char line[128];
    for (size_t i = 0; i < count; i++) {
        const int n = snprintf(line, sizeof line, "https://host%zu.example/path/%zu?q=%zu%s\n", i % 97, i,
                               i * 7919, i % 5 == 0 ? "&crlf\r" : "");
        buf_add(&b, line, (size_t)n);
    }
    return b;
}

Test(input, zstd_and_gzip_every_block_size)
{
    const size_t n = sizeof SAMPLE - 1;
    buf_t z = zstd_frame(SAMPLE, n, 1), g = gzip_member(SAMPLE, n);
    for (size_t block = 1; block <= n + 2; block += 3) {
        check_file("sample.zst", z.p, z.n, SAMPLE, n, block, 0);
        check_file("sample.gz", g.p, g.n, SAMPLE, n, block, 0);
    }
    result_t res = read_path(tmp_path("sample.gz"), 0, 0);
    cr_assert_eq(res.stats.compression, RS_COMPRESSION_GZIP);
    cr_assert_eq(res.stats.bom, 1);
    result_free(&res);
    res = read_path(tmp_path("sample.zst"), 0, 0);
    cr_assert_eq(res.stats.compression, RS_COMPRESSION_ZSTD);
    cr_assert_str_eq(rs_compression_name(res.stats.compression), "zstd");
    result_free(&res);
    free(z.p);
    free(g.p);
}

/* Frames / members cut in the middle of lines; an empty frame; a skippable frame. */
Test(input, concatenated_frames_and_members)
{
    buf_t plain = many_lines(5000);
    const size_t cuts[] = { 0, 1000, 1000, 77777, 150000, plain.n };   /* 1000..1000: empty part */
    buf_t zs = {0}, gz = {0};
    const unsigned char skippable[] = { 0x5A, 0x2A, 0x4D, 0x18, 5, 0, 0, 0, 'h', 'e', 'l', 'l', 'o' };
    buf_add(&zs, skippable, sizeof skippable);               /* the file even starts with one */
    for (size_t i = 0; i + 1 < sizeof cuts / sizeof cuts[0]; i++) {
        buf_t z = zstd_frame(plain.p + cuts[i], cuts[i + 1] - cuts[i], (int)(i & 1));
        buf_t g = gzip_member(plain.p + cuts[i], cuts[i + 1] - cuts[i]);
        buf_add(&zs, z.p, z.n);
        buf_add(&gz, g.p, g.n);
        if (i == 2) buf_add(&zs, skippable, sizeof skippable);
        free(z.p);
        free(g.p);
    }
    const size_t blocks[] = { 1000, 4096, 65536, 0 };
    for (size_t i = 0; i < 4; i++) {
        check_file("multi.zst", zs.p, zs.n, plain.p, plain.n, blocks[i], 0);
        check_file("multi.gz", gz.p, gz.n, plain.p, plain.n, blocks[i], 0);
    }
    free(plain.p);
    free(zs.p);
    free(gz.p);
}

/* ===== Damaged input ===== */

/*
 * What a streaming decoder gets out of damaged data before it fails: the
 * reference for "every complete line before the damage was delivered".
 */
static buf_t reference_prefix(const buf_t *data, int gzip)
{
    buf_t out = {0};
    static char tmp[1 << 16];
    if (gzip) {
        z_stream z = {0};
        cr_assert_eq(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
        size_t pos = 0;
        for (;;) {
            z.next_in = (unsigned char *)data->p + pos;
            z.avail_in = (uInt)(data->n - pos);
            z.next_out = (unsigned char *)tmp;
            z.avail_out = sizeof tmp;
            const int ret = inflate(&z, Z_NO_FLUSH);
            pos = data->n - z.avail_in;
            buf_add(&out, tmp, sizeof tmp - z.avail_out);
            if (ret == Z_STREAM_END && pos < data->n) { inflateReset(&z); continue; }
            if (ret != Z_OK || (z.avail_out != 0 && pos == data->n)) break;
        }
        inflateEnd(&z);
    } else {
        /* one byte of output per call: libzstd then never holds decoded bytes
           back when it meets the damage, so this is all that can be had */
        ZSTD_DCtx *d = ZSTD_createDCtx();
        ZSTD_inBuffer in = { data->p, data->n, 0 };
        for (;;) {
            ZSTD_outBuffer o = { tmp, 1, 0 };
            const size_t ret = ZSTD_decompressStream(d, &o, &in);
            if (ZSTD_isError(ret)) break;
            buf_add(&out, tmp, o.pos);
            if (o.pos < o.size && in.pos == in.size) break;
        }
        ZSTD_freeDCtx(d);
    }
    /* only complete lines count */
    while (out.n && out.p[out.n - 1] != '\n') out.n--;
    return out;
}

/*
 * Damaged @data (compressed @plain) must give every complete line the
 * reference decoder gets before the damage (the same bytes, even if the
 * damage went unnoticed up to there), may give more lines only if they are
 * intact lines of @plain (e.g. a bad checksum after a good last block), and
 * must end in RS_ERR_CORRUPT with a message naming the file.
 */
static void check_damaged(const char *name, const buf_t *data, int gzip, size_t block,
                          const char *want_in_msg, const buf_t *plain)
{
    const char *path = write_file(name, data->p, data->n);
    result_t res = read_path(path, block, 0);
    cr_assert_eq(res.st, RS_ERR_CORRUPT, "%s block=%zu: %s", name, block, rs_status_str(res.st));
    cr_assert(strstr(res.msg, path) == res.msg, "message names the file: %s", res.msg);
    cr_assert(strstr(res.msg, want_in_msg), "message '%s' lacks '%s'", res.msg, want_in_msg);
    buf_t ref = reference_prefix(data, gzip);
    recs_t want = model(ref.p, ref.n, RS_READER_DEFAULT_MAX_LINE);
    recs_t full = model(plain->p, plain->n, RS_READER_DEFAULT_MAX_LINE);
    cr_assert_geq(res.recs.n, want.n, "%s: %zu lines delivered, %zu decodable", res.msg, res.recs.n, want.n);
    cr_assert_leq(res.recs.n, full.n);
    recs_t head = { res.recs.r, want.n, 0 };
    expect_recs(&head, &want, res.msg);
    for (size_t i = want.n; i < res.recs.n; i++) {
        const rec_t *g = &res.recs.r[i], *w = &full.r[i];
        cr_assert(g->number == w->number && g->len == w->len && memcmp(g->text, w->text, w->len) == 0,
                  "%s: line %zu past the decodable part is not intact", res.msg, i + 1);
    }
    recs_free(&want);
    recs_free(&full);
    free(ref.p);
    result_free(&res);
}

Test(input, truncated_zstd_and_gzip)
{
    buf_t plain = many_lines(20000);
    buf_t z = zstd_frame(plain.p, plain.n, 1), g = gzip_member(plain.p, plain.n);
    const double fracs[] = { 0.0001, 0.3, 0.5, 0.9, 0.999 };
    for (size_t i = 0; i < sizeof fracs / sizeof fracs[0]; i++) {
        buf_t zt = { z.p, (size_t)((double)z.n * fracs[i]) + 4, 0 };
        buf_t gt = { g.p, (size_t)((double)g.n * fracs[i]) + 2, 0 };
        check_damaged("cut.zst", &zt, 0, 0, "truncated zstd frame at offset", &plain);
        check_damaged("cut.gz", &gt, 1, 0, "truncated gzip member at offset", &plain);
        check_damaged("cut.zst", &zt, 0, 3000, "truncated zstd frame at offset", &plain);
        check_damaged("cut.gz", &gt, 1, 3000, "truncated gzip member at offset", &plain);
    }
    buf_t zt = { z.p, z.n - 1, 0 }, gt = { g.p, g.n - 1, 0 };   /* only the trailer is cut */
    check_damaged("cut.zst", &zt, 0, 0, "truncated zstd frame", &plain);
    check_damaged("cut.gz", &gt, 1, 0, "truncated gzip member", &plain);
    free(plain.p);
    free(z.p);
    free(g.p);
}

Test(input, corrupt_second_frame_reports_its_offset)
{
    buf_t plain = many_lines(3000);
    buf_t z1 = zstd_frame(plain.p, plain.n / 2, 0), z2 = zstd_frame(plain.p + plain.n / 2, plain.n - plain.n / 2, 0);
    buf_t zs = {0};
    buf_add(&zs, z1.p, z1.n);
    buf_add(&zs, z2.p, z2.n);
    zs.p[z1.n] ^= 0x55;                                    /* damage the second frame's magic */
    char want[64];
    snprintf(want, sizeof want, "corrupt zstd frame at offset %zu: ", z1.n);
    check_damaged("bad.zst", &zs, 0, 0, want, &plain);

    buf_t g1 = gzip_member(plain.p, plain.n / 2), g2 = gzip_member(plain.p + plain.n / 2, plain.n - plain.n / 2);
    buf_t gz = {0};
    buf_add(&gz, g1.p, g1.n);
    buf_add(&gz, g2.p, g2.n);
    gz.p[g1.n - 6] ^= 0x01;                                /* the CRC-32 of the first member */
    check_damaged("bad.gz", &gz, 1, 0, "corrupt gzip data at offset", &plain);
    gz.p[g1.n - 6] ^= 0x01;
    gz.p[g1.n + 1] ^= 0x01;                                /* the second member's magic */
    check_damaged("bad.gz", &gz, 1, 0, "corrupt gzip data at offset", &plain);

    buf_t trail = {0};                                     /* garbage after a good frame */
    buf_add(&trail, z1.p, z1.n);
    buf_adds(&trail, "garbage!");
    snprintf(want, sizeof want, "corrupt zstd frame at offset %zu", z1.n);
    check_damaged("trail.zst", &trail, 0, 0, want, &plain);
    free(plain.p); free(z1.p); free(z2.p); free(zs.p); free(g1.p); free(g2.p); free(gz.p); free(trail.p);
}

Test(input, corrupt_zstd_block_data)
{
    buf_t plain = many_lines(20000);
    buf_t z = zstd_frame(plain.p, plain.n, 1);
    for (size_t at = z.n / 4; at < z.n; at += z.n / 4) {
        buf_t bad = {0};
        buf_add(&bad, z.p, z.n);
        for (size_t k = 0; k < 64 && at + k < bad.n; k++) bad.p[at + k] = (char)0xA5;
        check_damaged("damaged.zst", &bad, 0, 0, "corrupt zstd frame at offset", &plain);
        free(bad.p);
    }
    free(plain.p);
    free(z.p);
}

/* ===== Files, descriptors, stdin ===== */

Test(input, missing_file_and_directory)
{
    rs_reader *r;
    cr_assert_eq(rs_reader_open("/nonexistent/dir/urls.txt", NULL, &r), RS_ERR_IO);
    cr_assert_not_null(r);
    cr_assert(strstr(rs_reader_errmsg(r), "/nonexistent/dir/urls.txt: cannot open: "), "%s", rs_reader_errmsg(r));
    rs_reader_free(r);
    cr_assert_eq(rs_reader_open("/tmp", NULL, &r), RS_ERR_IO);
    cr_assert_str_eq(rs_reader_errmsg(r), "/tmp: is a directory");
    rs_reader_free(r);
    rs_reader_free(NULL);
    rs_reader_opts bad = { (size_t)1 << 40, 0, 0 };
    cr_assert_eq(rs_reader_open("/dev/null", &bad, &r), RS_ERR_USAGE);
    cr_assert_null(r);
}

Test(input, unreadable_file)
{
    if (geteuid() == 0) {
        /* Criterion does not show skipped tests: say it where make test counts it. */
        fprintf(stderr, "SKIP: input::unreadable_file: running as root: permissions do not apply\n");
        cr_skip_test("running as root: permissions do not apply");
    }
    const char *path = write_file("secret.txt", "x\n", 2);
    cr_assert_eq(chmod(path, 0), 0);
    rs_reader *r;
    cr_assert_eq(rs_reader_open(path, NULL, &r), RS_ERR_IO);
    cr_assert(strstr(rs_reader_errmsg(r), "Permission denied"), "%s", rs_reader_errmsg(r));
    rs_reader_free(r);
}

Test(input, stdin_via_pipe)
{
    buf_t plain = many_lines(200);
    buf_t g = gzip_member(plain.p, plain.n);
    cr_assert_lt(g.n, 60000, "fits in a pipe");
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    cr_assert_eq(write(fds[1], g.p, g.n), (ssize_t)g.n);
    close(fds[1]);
    cr_assert_eq(dup2(fds[0], 0), 0);
    close(fds[0]);
    rs_reader *r;
    cr_assert_eq(rs_reader_open("-", NULL, &r), RS_OK);
    result_t res = read_reader(r);
    rs_reader_free(r);
    cr_assert_eq(res.st, RS_ERR_EOF, "%s", res.msg);
    cr_assert_eq(res.stats.compression, RS_COMPRESSION_GZIP);
    cr_assert_eq(res.stats.file_size, 0);
    recs_t want = model(plain.p, plain.n, RS_READER_DEFAULT_MAX_LINE);
    expect_recs(&res.recs, &want, "stdin");
    cr_assert_eq(fcntl(0, F_GETFD), 0, "stdin is not closed by rs_reader_free");
    recs_free(&want);
    result_free(&res);
    free(plain.p);
    free(g.p);
}

/* Many small writes into a pipe: short reads, the magic arriving in pieces. */
typedef struct { const buf_t *data; int fd; } writer_t;

static void *slow_writer(void *arg)
{
    const writer_t *w = arg;
    const buf_t *b = w->data;
    for (size_t i = 0; i < b->n; i += 3) {
        const size_t k = b->n - i < 3 ? b->n - i : 3;
        if (write(w->fd, b->p + i, k) != (ssize_t)k) break;
        if (i < 64) usleep(1000);
    }
    close(w->fd);
    return NULL;
}

Test(input, fd_with_short_reads)
{
    buf_t plain = many_lines(3000);
    buf_t z = zstd_frame(plain.p, plain.n, 1);
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    writer_t w = { &z, fds[1] };
    pthread_t th;
    cr_assert_eq(pthread_create(&th, NULL, slow_writer, &w), 0);
    rs_reader *r;
    rs_reader_opts o = { 777, 0, 0 };
    cr_assert_eq(rs_reader_open_fd(fds[0], "pipe", &o, &r), RS_OK);
    result_t res = read_reader(r);
    rs_reader_free(r);
    pthread_join(th, NULL);
    close(fds[0]);
    cr_assert_eq(res.st, RS_ERR_EOF, "%s", res.msg);
    recs_t want = model(plain.p, plain.n, RS_READER_DEFAULT_MAX_LINE);
    expect_recs(&res.recs, &want, "pipe");
    recs_free(&want);
    result_free(&res);
    free(plain.p);
    free(z.p);
}

/* ===== Block buffers, next_line, real data, allocation failures ===== */

static void caller_owned_block_buffers_stay_valid_(int map)
{
    buf_t plain = many_lines(2000);
    const char *path = write_file("bufs.txt", plain.p, plain.n);
    rs_reader_opts o = { 4096, 100, map };
    rs_reader *r;
    cr_assert_eq(rs_reader_open(path, &o, &r), RS_OK);
    rs_blockbuf *bufs[3];
    for (int i = 0; i < 3; i++) cr_assert_eq(rs_blockbuf_create(r, &bufs[i]), RS_OK);
    rs_block blocks[3];
    size_t at = 0;            /* bytes of plain checked so far */
    int k = 0;
    rs_status st;
    /* keep three blocks alive at once, check the oldest after two more reads */
    uint64_t produced = 0;
    while ((st = rs_reader_next_block_into(r, bufs[k % 3], &blocks[k % 3])) == RS_OK) {
        produced++;
        if (produced >= 3) {
            const rs_block *old = &blocks[(k + 1) % 3];
            cr_assert(memcmp(old->ptr, plain.p + old->offset, old->len) == 0, "block at %llu overwritten",
                      (unsigned long long)old->offset);
            at = old->offset + old->len;
        }
        k++;
    }
    cr_assert_eq(st, RS_ERR_EOF);
    cr_assert_gt(at, plain.n / 2);
    rs_reader_opts big = { 8192, 100, map };
    rs_reader *r2;
    cr_assert_eq(rs_reader_open(path, &big, &r2), RS_OK);
    rs_block b;
    cr_assert_eq(rs_reader_next_block_into(r2, bufs[0], &b), RS_ERR_USAGE, "buffer too small");
    rs_reader_free(r2);
    for (int i = 0; i < 3; i++) rs_blockbuf_free(bufs[i]);
    rs_blockbuf_free(NULL);
    rs_reader_free(r);
    free(plain.p);
}

Test(input, caller_owned_block_buffers_stay_valid)
{
    caller_owned_block_buffers_stay_valid_(0);
    caller_owned_block_buffers_stay_valid_(1);   /* blocks as slices of the mapping */
}

/* rs_reader_set_block_size: blocks aim for the new size (never past the size at open,
 * 0 restores it), and the lines read are the same, in order, whatever the sizes. */
static void block_size_changed_while_reading_(int map)
{
    buf_t plain = many_lines(4000);
    const char *path = write_file("resize.txt", plain.p, plain.n);
    rs_reader_opts o = { 16384, 100, map };
    rs_reader *r;
    cr_assert_eq(rs_reader_open(path, &o, &r), RS_OK);
    rs_blockbuf *buf;
    cr_assert_eq(rs_blockbuf_create(r, &buf), RS_OK);
    const size_t sizes[] = { 0, 1000, 16384 * 4, 300, 0, 5000 };
    size_t at = 0, k = 0, small = 0;
    rs_block b;
    rs_status st;
    for (;;) {
        const size_t want = sizes[k++ % (sizeof sizes / sizeof sizes[0])];
        rs_reader_set_block_size(r, want);
        if ((st = rs_reader_next_block_into(r, buf, &b)) != RS_OK) break;
        const size_t aim = want == 0 || want > 16384 ? 16384 : want;
        cr_assert_eq(b.offset, at, "blocks are contiguous");
        cr_assert(memcmp(b.ptr, plain.p + at, b.len) == 0, "block at %zu", at);
        cr_assert(b.ptr[b.len - 1] == '\n' || at + b.len == plain.n, "a block ends at a line end");
        if (at + b.len < plain.n) cr_assert_leq(b.len, aim + 100, "block of %zu bytes aiming at %zu", b.len, aim);
        if (aim < 16384 && b.len < 16384 / 2) small++;
        at += b.len;
    }
    cr_assert_eq(st, RS_ERR_EOF);
    cr_assert_eq(at, plain.n, "every byte delivered once");
    cr_assert_gt(small, 3, "the smaller sizes were used");
    rs_blockbuf_free(buf);
    rs_reader_free(r);
    free(plain.p);
}

Test(input, block_size_changed_while_reading)
{
    block_size_changed_while_reading_(0);
    block_size_changed_while_reading_(1);   /* blocks as slices of the mapping */
}

Test(input, next_line_convenience)
{
    const size_t n = sizeof SAMPLE - 1;
    const char *path = write_file("lines.txt", SAMPLE, n);
    rs_reader_opts o = { 16, 30, 0 };
    rs_reader *r;
    cr_assert_eq(rs_reader_open(path, &o, &r), RS_OK);
    recs_t got = {0};
    rs_line ln;
    rs_status st;
    while ((st = rs_reader_next_line(r, &ln)) == RS_OK) recs_add(&got, ln.text.ptr, ln.text.len, ln.number, ln.oversized);
    cr_assert_eq(st, RS_ERR_EOF);
    recs_t want = model(SAMPLE, n, 30);
    expect_recs(&got, &want, "next_line");
    rs_reader_stats stats;
    rs_reader_stats_get(r, &stats);
    cr_assert_eq(stats.lines, want.n);
    cr_assert_eq(stats.file_size, n);
    rs_reader_free(r);
    recs_free(&got);
    recs_free(&want);
}

Test(input, real_url_list)
{
    const char *path = RS_SHARED_DIR "/data/urls/ada-url-kasztp.txt";
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s not present (RS_SHARED_DIR is the test data directory)", path);
    buf_t all = {0};
    char tmp[65536];
    size_t k;
    while ((k = fread(tmp, 1, sizeof tmp, f)) > 0) buf_add(&all, tmp, k);
    fclose(f);
    result_t res = read_path(path, 65536, 0);
    cr_assert_eq(res.st, RS_ERR_EOF);
    cr_assert_eq(res.recs.n, 48010, "48,009 newlines, the last line has none");
    cr_assert_eq(res.stats.bom, 1);
    cr_assert_eq(res.recs.r[0].len, strlen("https://www.sec.gov/edgar.shtml"));
    recs_t want = model(all.p, all.n, RS_READER_DEFAULT_MAX_LINE);
    expect_recs(&res.recs, &want, "kasztp");
    recs_free(&want);
    result_free(&res);
    free(all.p);
}

Test(input, allocation_failures_are_clean)
{
    buf_t plain = many_lines(500);
    buf_t z = zstd_frame(plain.p, plain.n, 0);
    const char *path = write_file("alloc.zst", z.p, z.n);
    int saw_nomem = 0, saw_ok = 0;
    for (unsigned long fail = 1; fail < 12; fail++) {
        rs_alloc_fail_after(fail);
        rs_reader *r = NULL;
        rs_status st = rs_reader_open(path, NULL, &r);
        if (st == RS_OK) {
            rs_block b;
            while ((st = rs_reader_next_block(r, &b)) == RS_OK) {}
        }
        rs_alloc_fail_after(0);
        cr_assert(st == RS_ERR_NOMEM || st == RS_ERR_EOF, "fail=%lu: %s", fail, rs_status_str(st));
        saw_nomem |= st == RS_ERR_NOMEM;
        saw_ok |= st == RS_ERR_EOF;
        rs_reader_free(r);
    }
    cr_assert(saw_nomem && saw_ok);
    free(plain.p);
    free(z.p);
}

/* ===== A producer thread and worker threads sharing block buffers ===== */

#define RING 3

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    rs_blockbuf *bufs[RING];
    rs_block blocks[RING];
    int state[RING];               /* 0 free, 1 filled, 2 taken by a worker */
    int done;
    uint64_t lines, bytes, checksum;
} ring_t;

static void *worker(void *arg)
{
    ring_t *q = arg;
    for (;;) {
        pthread_mutex_lock(&q->mu);
        int k = -1;
        while (k < 0) {
            for (int i = 0; i < RING; i++) if (q->state[i] == 1) { k = i; break; }
            if (k >= 0) break;
            if (q->done) { pthread_mutex_unlock(&q->mu); return NULL; }
            pthread_cond_wait(&q->cv, &q->mu);
        }
        q->state[k] = 2;
        pthread_mutex_unlock(&q->mu);

        rs_lines it;
        rs_line ln;
        uint64_t lines = 0, bytes = 0, sum = 0;
        rs_lines_init(&it, &q->blocks[k]);
        while (rs_line_next(&it, &ln)) {
            lines++;
            bytes += ln.text.len;
            for (size_t i = 0; i < ln.text.len; i++) sum += (unsigned char)ln.text.ptr[i] * ln.number;
        }
        pthread_mutex_lock(&q->mu);
        q->lines += lines;
        q->bytes += bytes;
        q->checksum += sum;
        q->state[k] = 0;
        pthread_cond_broadcast(&q->cv);
        pthread_mutex_unlock(&q->mu);
    }
}

Test(input, producer_and_workers)
{
    buf_t plain = many_lines(30000);
    buf_t z = zstd_frame(plain.p, plain.n, 1);
    const char *path = write_file("mt.zst", z.p, z.n);
    recs_t want = model(plain.p, plain.n, RS_READER_DEFAULT_MAX_LINE);
    uint64_t want_bytes = 0, want_sum = 0;
    for (size_t i = 0; i < want.n; i++) {
        want_bytes += want.r[i].len;
        for (size_t j = 0; j < want.r[i].len; j++) want_sum += (unsigned char)want.r[i].text[j] * want.r[i].number;
    }

    rs_reader_opts o = { 32768, 0, 1 };
    rs_reader *r;
    cr_assert_eq(rs_reader_open(path, &o, &r), RS_OK);
    ring_t q = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };
    for (int i = 0; i < RING; i++) cr_assert_eq(rs_blockbuf_create(r, &q.bufs[i]), RS_OK);
    pthread_t th[2];
    for (int i = 0; i < 2; i++) cr_assert_eq(pthread_create(&th[i], NULL, worker, &q), 0);
    rs_status st;
    for (;;) {                                   /* the producer: fill a free buffer */
        pthread_mutex_lock(&q.mu);
        int k = -1;
        while (k < 0) {
            for (int i = 0; i < RING; i++) if (q.state[i] == 0) { k = i; break; }
            if (k < 0) pthread_cond_wait(&q.cv, &q.mu);
        }
        pthread_mutex_unlock(&q.mu);
        rs_block b;
        st = rs_reader_next_block_into(r, q.bufs[k], &b);
        if (st != RS_OK) break;
        pthread_mutex_lock(&q.mu);
        q.blocks[k] = b;
        q.state[k] = 1;
        pthread_cond_broadcast(&q.cv);
        pthread_mutex_unlock(&q.mu);
    }
    pthread_mutex_lock(&q.mu);
    q.done = 1;
    pthread_cond_broadcast(&q.cv);
    pthread_mutex_unlock(&q.mu);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    cr_assert_eq(st, RS_ERR_EOF, "%s", rs_reader_errmsg(r));
    cr_assert_eq(q.lines, want.n);
    cr_assert_eq(q.bytes, want_bytes);
    cr_assert_eq(q.checksum, want_sum);
    for (int i = 0; i < RING; i++) rs_blockbuf_free(q.bufs[i]);
    rs_reader_free(r);
    recs_free(&want);
    free(plain.p);
    free(z.p);
}
