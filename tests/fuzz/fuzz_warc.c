/*
 * fuzz_warc.c - the WARC reader (src/warc), the WARC robots source
 * (src/sites/warc_source.c) and the survey classes over whatever it yields.
 *
 * Input: byte 0 = mode, the rest is the payload.
 *   mode % 4 == 0  payload as is (plain unless it starts with a magic number)
 *            == 1  payload split at each "WARC/" line, each piece its own gzip member
 *            == 2  payload as one zstd frame
 *            == 3  like 1, then the last member cut in half
 *   mode & 4       --keep-going (rs_warc_resync after damage; sites keep_going)
 *   mode & 8       rs_sites_options.stream (the WARC indexed by rs_sites_each)
 * The bytes go through a memfd (/proc/self/fd/N for the path-based APIs). Checks:
 *   - every record's block is no longer than its Content-Length; errors name
 *     the file; the reader ends (EOF or error) within a bounded number of steps;
 *   - a seekable record read again after rs_warc_seek has the same block;
 *   - rs_http_parse/rs_http_body never read out of bounds (ASan);
 *   - rs_sites_create + rs_sites_each + rs_survey_classify run clean, and
 *     each document's class counts sum to the documents seen;
 *   - with stream, rs_sites_each_digest (the digest: the body itself) hands
 *     out the same documents, bytes and status as rs_sites_each.
 */
#include "fuzz.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "robotscan.h"
#include "warc/warc.h"

static size_t gz_member(const uint8_t *src, size_t n, uint8_t *dst, size_t cap)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) return 0;
    z.next_in = (unsigned char *)(uintptr_t)src;
    z.avail_in = (uInt)n;
    z.next_out = dst;
    z.avail_out = (uInt)cap;
    const int ret = deflate(&z, Z_FINISH);
    const size_t out = cap - z.avail_out;
    deflateEnd(&z);
    return ret == Z_STREAM_END ? out : 0;
}

typedef struct {
    uint64_t docs;
    uint64_t hash;       /* FNV-1a of every document handed out: origin, outcome, status, html, body */
} each_ctx;

static void mix(each_ctx *c, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) c->hash = (c->hash ^ b[i]) * 1099511628211u;
}

static void mix_doc(each_ctx *c, const rs_site_doc *d, const void *body, size_t n)
{
    const uint32_t head[4] = { (uint32_t)d->outcome, d->http_status, (uint32_t)d->html, (uint32_t)n };
    mix(c, d->origin.ptr, d->origin.len);
    mix(c, head, sizeof head);
    if (n) mix(c, body, n);
}

static rs_status digest_copy(void *ctx, const char *body, size_t n, rs_outbuf *out)
{
    (void)ctx;
    return rs_outbuf_append(out, body, n);
}

static int on_digest(void *vctx, const rs_site_doc *d, const void *digest, size_t n)
{
    each_ctx *c = vctx;
    c->docs++;
    mix_doc(c, d, digest ? digest : d->body, digest ? n : d->body_len);
    return 0;
}

static int on_doc(void *vctx, const rs_site_doc *d)
{
    each_ctx *c = vctx;
    c->docs++;
    mix_doc(c, d, d->body, d->body_len);
    FUZZ_CHECK(d->origin.len > 0);
    if (d->outcome != RS_REASON_NO_MATCH) return 0;
    FUZZ_CHECK(d->body_len <= RS_ROBOTS_MAX_BODY);
    rs_ruleset *rs = NULL;
    if (rs_ruleset_parse(d->body, d->body_len, &rs) != RS_OK) return 0;
    static const rs_str agents[3] = { { "GPTBot", 6 }, { "Googlebot", 9 }, { "AI2Bot", 6 } };
    rs_survey_result r[3];
    FUZZ_CHECK(rs_survey_classify(rs, agents, 3, r) == RS_OK);
    for (int i = 0; i < 3; i++) FUZZ_CHECK(r[i].cls <= RS_CLASS_OPEN && r[i].group <= RS_GROUP_NONE);
    rs_ruleset_free(rs);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1u << 20)) return 0;
    const int mode = data[0] & 3, keep = (data[0] & 4) != 0;
    const uint8_t *p = data + 1;
    const size_t n = size - 1;
    uint8_t *packed = NULL;
    size_t plen = n;
    if (mode == 1 || mode == 3) {
        const size_t cap = n * 2 + 64 * (n / 5 + 2);
        packed = malloc(cap);
        FUZZ_CHECK(packed != NULL);
        plen = 0;
        size_t start = 0, last = 0;
        for (size_t i = 1; i <= n; i++) {
            if (i < n && !(i + 5 <= n && memcmp(p + i, "WARC/", 5) == 0)) continue;
            last = plen;
            plen += gz_member(p + start, i - start, packed + plen, cap - plen);
            start = i;
        }
        if (mode == 3 && plen > last) plen = last + (plen - last) / 2;
    } else if (mode == 2) {
        const size_t cap = ZSTD_compressBound(n);
        packed = malloc(cap ? cap : 1);
        FUZZ_CHECK(packed != NULL);
        plen = ZSTD_compress(packed, cap, p, n, 1);
        FUZZ_CHECK(!ZSTD_isError(plen));
    }
    const int fd = memfd_create("fuzz_warc", 0);
    FUZZ_CHECK(fd >= 0);
    const uint8_t *bytes = packed ? packed : p;
    FUZZ_CHECK(plen == 0 || write(fd, bytes, plen) == (ssize_t)plen);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);

    rs_warc *w = NULL;
    rs_status st = rs_warc_open(path, &w);
    if (st == RS_OK) {
        rs_buf body = {0};
        for (int steps = 0; steps < 10000; steps++) {
            rs_warc_record r;
            st = rs_warc_next(w, &r);
            if (st == RS_ERR_EOF) break;
            if (st != RS_OK) {
                FUZZ_CHECK(strstr(rs_warc_errmsg(w), path) != NULL);
                if (!keep || rs_warc_resync(w) != RS_OK) break;
                continue;
            }
            FUZZ_CHECK(r.block_len <= r.content_length);
            rs_http_response h;
            if (rs_http_parse(r.block, r.block_len, &h) == RS_OK) {
                FUZZ_CHECK(h.body >= r.block && h.body + h.body_len <= r.block + r.block_len);
                body.len = 0;
                (void)rs_http_body(&h, RS_ROBOTS_MAX_BODY, &body);
                FUZZ_CHECK(body.len <= RS_ROBOTS_MAX_BODY);
            }
            if (r.seekable && r.block_len < 65536) {
                uint8_t *copy = malloc(r.block_len + 1);
                FUZZ_CHECK(copy != NULL);
                memcpy(copy, r.block, r.block_len);
                const size_t cl = r.block_len;
                rs_warc *w2 = NULL;
                FUZZ_CHECK(rs_warc_open(path, &w2) == RS_OK);
                rs_warc_record r2;
                FUZZ_CHECK(rs_warc_seek(w2, r.offset) == RS_OK);
                FUZZ_CHECK(rs_warc_next(w2, &r2) == RS_OK);
                FUZZ_CHECK(r2.block_len == cl && memcmp(r2.block, copy, cl) == 0);
                rs_warc_free(w2);
                free(copy);
            }
        }
        rs_buf_free(&body);
    }
    rs_warc_free(w);

    const char *paths[1] = { path };
    rs_sites_options so = { .keep_going = keep, .defer_errors = 1, .stream = (data[0] >> 3) & 1 };
    rs_sites *s = NULL;
    if (rs_sites_create_opts(paths, 1, &so, &s) == RS_OK) {
        each_ctx c = { 0, 14695981039346656037u };
        const rs_status st1 = rs_sites_each(s, on_doc, &c);
        if (so.stream) {
            rs_sites_warc_stats w1, w2;
            rs_sites_get_warc_stats(s, &w1);
            rs_sites_free(s);
            s = NULL;
            FUZZ_CHECK(rs_sites_create_opts(paths, 1, &so, &s) == RS_OK);
            each_ctx c2 = { 0, 14695981039346656037u };
            const rs_status st2 = rs_sites_each_digest(s, digest_copy, on_digest, &c2);
            rs_sites_get_warc_stats(s, &w2);
            FUZZ_CHECK(st1 == st2 && c.docs == c2.docs && c.hash == c2.hash);
            FUZZ_CHECK(w1.html_bodies == w2.html_bodies && w1.corrupt_skipped == w2.corrupt_skipped);
        }
    } else {
        FUZZ_CHECK(s == NULL || rs_sites_errmsg(s)[0] != '\0');
    }
    rs_sites_free(s);
    close(fd);
    free(packed);
    return 0;
}
