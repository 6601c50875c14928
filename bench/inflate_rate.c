/*
 * inflate_rate.c - the inflate libraries on a WARC.gz of one gzip member per
 * record (Common Crawl's layout): zlib (inflate with inflateReset per member)
 * against libdeflate (libdeflate_gzip_decompress_ex per member) and ISA-L
 * (isal_inflate with crc_flag ISAL_GZIP, reset per member), whole file
 * in memory, one thread (bench/RESULTS.md, issue 25).
 *
 * Build: cc -O2 bench/inflate_rate.c -lz -ldeflate -lisal -o build/bench/inflate_rate
 * Usage: inflate_rate FILE.warc.gz [ROUNDS]
 */
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: inflate_rate FILE.warc.gz [ROUNDS]\n"); return 2; }
    const int rounds = argc > 2 ? atoi(argv[2]) : 3;
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL) { perror(argv[1]); return 2; }
    fseek(f, 0, SEEK_END);
    const size_t n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *in = malloc(n);
    if (fread(in, 1, n, f) != n) { perror("read"); return 2; }
    fclose(f);
    size_t cap = (size_t)16 << 20;
    unsigned char *out = malloc(cap);
    for (int r = 0; r < rounds; r++) {
        /* zlib */
        double t0 = now();
        z_stream zs;
        memset(&zs, 0, sizeof zs);
        inflateInit2(&zs, 16 + MAX_WBITS);
        size_t pos = 0, total = 0, members = 0;
        while (pos < n) {
            inflateReset(&zs);
            zs.next_in = in + pos;
            zs.avail_in = (uInt)(n - pos);
            int ret;
            do {
                zs.next_out = out;
                zs.avail_out = (uInt)cap;
                ret = inflate(&zs, Z_NO_FLUSH);
                total += cap - zs.avail_out;
            } while (ret == Z_OK);
            if (ret != Z_STREAM_END) { fprintf(stderr, "zlib: %d at %zu\n", ret, pos); return 1; }
            pos = n - zs.avail_in;
            members++;
        }
        inflateEnd(&zs);
        const double tz = now() - t0;
        /* libdeflate */
        t0 = now();
        struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
        size_t total2 = 0;
        pos = 0;
        while (pos < n) {
            size_t used = 0, got = 0;
            const enum libdeflate_result res = libdeflate_gzip_decompress_ex(d, in + pos, n - pos, out, cap, &used, &got);
            if (res != LIBDEFLATE_SUCCESS) { fprintf(stderr, "libdeflate: %d at %zu\n", (int)res, pos); return 1; }
            pos += used;
            total2 += got;
        }
        libdeflate_free_decompressor(d);
        const double td = now() - t0;
        /* ISA-L */
        t0 = now();
        struct inflate_state *st = malloc(sizeof *st);
        size_t total3 = 0;
        pos = 0;
        while (pos < n) {
            isal_inflate_init(st);
            st->crc_flag = ISAL_GZIP;
            st->next_in = in + pos;
            st->avail_in = (uint32_t)(n - pos > 0xffffffffu ? 0xffffffffu : n - pos);
            do {
                st->next_out = out;
                st->avail_out = (uint32_t)cap;
                const int ret = isal_inflate(st);
                if (ret != ISAL_DECOMP_OK) { fprintf(stderr, "isal: %d at %zu\n", ret, pos); return 1; }
                total3 += cap - st->avail_out;
            } while (st->block_state != ISAL_BLOCK_FINISH);
            pos = (size_t)(st->next_in - in);
        }
        free(st);
        const double ti = now() - t0;
        printf("%zu members, %zu bytes out: zlib %.3f s (%.0f MB/s), libdeflate %.3f s (%.0f MB/s, %.2fx), "
               "isa-l %.3f s (%.0f MB/s, %.2fx)\n", members, total, tz, total / tz / 1e6, td,
               total2 / td / 1e6, td / tz, ti, total3 / ti / 1e6, ti / tz);
    }
    return 0;
}
