/*
 * test_warc.c - the WARC reader (src/warc): record framing over plain, gzip
 * per record and zstd files, offsets and seeking, damage and resync; the HTTP
 * response inside (status, headers, chunked, gzip); compressed bodies; and
 * the survey classes (src/survey) on hand-made files.
 */
#include <criterion/criterion.h>

#include "robotscan.h"
#include "warc/warc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

static size_t rec(char *dst, const char *type, const char *uri, const char *date, const char *block)
{
    return (size_t)sprintf(dst, "WARC/1.0\r\nWARC-Type: %s\r\nWARC-Target-URI: %s\r\nWARC-Date: %s\r\n"
                                "Content-Length: %zu\r\n\r\n%s\r\n\r\n", type, uri, date, strlen(block), block);
}

static size_t gz(const char *src, size_t n, char *dst, size_t cap)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    cr_assert_eq(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    z.next_in = (unsigned char *)(uintptr_t)src;
    z.avail_in = (uInt)n;
    z.next_out = (unsigned char *)dst;
    z.avail_out = (uInt)cap;
    cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
    const size_t out = cap - z.avail_out;
    deflateEnd(&z);
    return out;
}

/* Writes @n bytes to a temporary file; @return its path (static). */
static const char *tmpfile_with(const void *data, size_t n)
{
    static char path[64];
    strcpy(path, "/tmp/test_warc_XXXXXX");
    const int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, data, n), (ssize_t)n);
    close(fd);
    return path;
}

static const char *R1 = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nUser-agent: *\nDisallow: /a\n";
static const char *R2 = "HTTP/1.1 301 Moved\r\nLocation:  https://b.example/robots.txt \r\n\r\n";

/* Three records: warcinfo, response, response. Per-record gzip when @mode == 1, zstd per record when 2. */
static const char *make_file(int mode, size_t *offs)
{
    static char buf[1 << 16];
    char r[3][2048];
    size_t rl[3];
    rl[0] = rec(r[0], "warcinfo", "", "2024-01-01T00:00:00Z", "software: test\r\n");
    rl[1] = rec(r[1], "response", "http://a.example/robots.txt", "2024-01-02T00:00:00Z", R1);
    rl[2] = rec(r[2], "response", "http://a.example:80/robots.txt", "2024-01-03T00:00:00Z", R2);
    size_t n = 0;
    for (int i = 0; i < 3; i++) {
        offs[i] = n;
        if (mode == 0) { memcpy(buf + n, r[i], rl[i]); n += rl[i]; }
        else if (mode == 1) n += gz(r[i], rl[i], buf + n, sizeof buf - n);
        else {
            const size_t z = ZSTD_compress(buf + n, sizeof buf - n, r[i], rl[i], 3);
            cr_assert(!ZSTD_isError(z));
            n += z;
        }
    }
    offs[3] = n;
    return tmpfile_with(buf, n);
}

Test(warc, records_offsets_and_seek)
{
    for (int mode = 0; mode < 3; mode++) {
        size_t offs[4];
        const char *path = make_file(mode, offs);
        rs_warc *w = NULL;
        cr_assert_eq(rs_warc_open(path, &w), RS_OK, "%s", rs_warc_errmsg(w));
        rs_warc_record r;
        char blocks[3][2048];
        for (int i = 0; i < 3; i++) {
            cr_assert_eq(rs_warc_next(w, &r), RS_OK, "mode %d rec %d: %s", mode, i, rs_warc_errmsg(w));
            cr_assert(r.seekable, "mode %d rec %d", mode, i);
            cr_assert_eq(r.offset, offs[i], "mode %d rec %d: offset %llu", mode, i, (unsigned long long)r.offset);
            cr_assert_eq(r.block_len, r.content_length);
            memcpy(blocks[i], r.block, r.block_len);
            blocks[i][r.block_len] = '\0';
        }
        cr_assert_eq(r.target_uri.len, strlen("http://a.example:80/robots.txt"));
        cr_assert(!memcmp(r.date.ptr, "2024-01-03T00:00:00Z", 20));
        cr_assert_eq(rs_warc_next(w, &r), RS_ERR_EOF);
        /* Seek back to the middle record. */
        cr_assert_eq(rs_warc_seek(w, offs[1]), RS_OK);
        cr_assert_eq(rs_warc_next(w, &r), RS_OK, "%s", rs_warc_errmsg(w));
        cr_assert_eq(r.block_len, strlen(R1));
        cr_assert(!memcmp(r.block, blocks[1], r.block_len));
        cr_assert(!memcmp(r.type.ptr, "response", 8));
        rs_warc_free(w);
        unlink(path);
    }
}

Test(warc, one_zstd_frame_is_not_seekable)
{
    char plain[8192], z[8192];
    size_t n = rec(plain, "response", "http://a.example/robots.txt", "d", R1);
    n += rec(plain + n, "response", "http://b.example/robots.txt", "d", R1);
    const size_t zn = ZSTD_compress(z, sizeof z, plain, n, 3);
    const char *path = tmpfile_with(z, zn);
    rs_warc *w = NULL;
    cr_assert_eq(rs_warc_open(path, &w), RS_OK);
    rs_warc_record r;
    cr_assert_eq(rs_warc_next(w, &r), RS_OK);
    cr_assert(r.seekable);                 /* the frame starts with the first record */
    cr_assert_eq(rs_warc_next(w, &r), RS_OK);
    cr_assert(!r.seekable);                /* the second is inside the frame */
    rs_warc_free(w);
    unlink(path);
}

Test(warc, damage_names_the_offset)
{
    char buf[8192];
    size_t a = rec(buf, "response", "http://a.example/robots.txt", "d", R1);
    size_t b = rec(buf + a, "response", "http://b.example/robots.txt", "d", R1);
    size_t c = rec(buf + a + b, "response", "http://c.example/robots.txt", "d", R1);
    /* Truncated: the second record cut short. */
    const char *path = tmpfile_with(buf, a + b - 10);
    rs_warc *w = NULL;
    rs_warc_record r;
    cr_assert_eq(rs_warc_open(path, &w), RS_OK);
    cr_assert_eq(rs_warc_next(w, &r), RS_OK);
    cr_assert_eq(rs_warc_next(w, &r), RS_ERR_CORRUPT);
    char want[64];
    snprintf(want, sizeof want, "at offset %zu", a);
    cr_assert(strstr(rs_warc_errmsg(w), want) != NULL, "%s", rs_warc_errmsg(w));
    cr_assert(strstr(rs_warc_errmsg(w), path) != NULL);
    rs_warc_free(w);
    unlink(path);
    /* Wrong Content-Length in the second record, then resync to the third. */
    char *cl = strstr(buf + a, "Content-Length: ");
    cl[16]++;
    path = tmpfile_with(buf, a + b + c);
    cr_assert_eq(rs_warc_open(path, &w), RS_OK);
    cr_assert_eq(rs_warc_next(w, &r), RS_OK);
    cr_assert_eq(rs_warc_next(w, &r), RS_ERR_CORRUPT);
    cr_assert(strstr(rs_warc_errmsg(w), "Content-Length") != NULL, "%s", rs_warc_errmsg(w));
    cr_assert_eq(rs_warc_resync(w), RS_OK);
    cr_assert_eq(rs_warc_next(w, &r), RS_OK, "%s", rs_warc_errmsg(w));
    cr_assert(!memcmp(r.target_uri.ptr, "http://c.example", 16));
    cr_assert_eq(rs_warc_next(w, &r), RS_ERR_EOF);
    rs_warc_free(w);
    unlink(path);
    /* Not a WARC. */
    path = tmpfile_with("User-agent: *\n", 14);
    cr_assert_eq(rs_warc_open(path, &w), RS_ERR_CORRUPT);
    cr_assert(strstr(rs_warc_errmsg(w), "not a WARC file") != NULL);
    rs_warc_free(w);
    unlink(path);
    /* A gzip member cut short. */
    char z[8192];
    const size_t zn = gz(buf, a, z, sizeof z);
    path = tmpfile_with(z, zn - 12);
    rs_warc_open(path, &w);
    const rs_status st = rs_warc_next(w, &r);
    cr_assert_eq(st, RS_ERR_CORRUPT);
    cr_assert(strstr(rs_warc_errmsg(w), "gzip") != NULL, "%s", rs_warc_errmsg(w));
    rs_warc_free(w);
    unlink(path);
}

Test(warc, http_response)
{
    rs_http_response h;
    cr_assert_eq(rs_http_parse(R2, strlen(R2), &h), RS_OK);
    cr_assert_eq(h.status, 301);
    cr_assert_eq(h.location.len, strlen("https://b.example/robots.txt"));
    cr_assert_eq(h.body_len, 0);
    const char *ch = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\n\r\n";
    cr_assert_eq(rs_http_parse(ch, strlen(ch), &h), RS_OK);
    cr_assert(h.chunked);
    rs_buf b = {0};
    cr_assert_eq(rs_http_body(&h, 1000, &b), RS_OK);
    cr_assert_eq(b.len, 12);
    cr_assert(!memcmp(b.ptr, "hello, world", 12));
    b.len = 0;
    const char *bad = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n";
    cr_assert_eq(rs_http_parse(bad, strlen(bad), &h), RS_OK);
    cr_assert_eq(rs_http_body(&h, 1000, &b), RS_ERR_CORRUPT);
    /* gzip Content-Encoding, capped */
    char resp[512];
    size_t hn = (size_t)sprintf(resp, "HTTP/1.0 200 OK\nContent-Encoding: gzip\n\n");
    hn += gz("User-agent: *\nDisallow: /gz\n", 28, resp + hn, sizeof resp - hn);
    cr_assert_eq(rs_http_parse(resp, hn, &h), RS_OK);
    cr_assert(h.gzip);
    b.len = 0;
    cr_assert_eq(rs_http_body(&h, 10, &b), RS_OK);
    cr_assert_eq(b.len, 10);
    rs_buf_free(&b);
    cr_assert_eq(rs_http_parse("GET / HTTP/1.1\r\n\r\n", 18, &h), RS_ERR_CORRUPT);
}

Test(warc, compressed_bodies)
{
    const char *txt = "User-agent: *\nDisallow: /x\n";
    char z[256];
    const size_t zn = gz(txt, strlen(txt), z, sizeof z);
    char *out;
    size_t n;
    cr_assert_eq(rs_robots_decode(z, zn, 1000, &out, &n), RS_OK);
    cr_assert_eq(n, strlen(txt));
    cr_assert(!memcmp(out, txt, n));
    free(out);
    cr_assert_eq(rs_robots_decode(z, zn - 5, 1000, &out, &n), RS_ERR_CORRUPT);
    char zs[256];
    const size_t zsn = ZSTD_compress(zs, sizeof zs, txt, strlen(txt), 1);
    cr_assert_eq(rs_robots_decode(zs, zsn, 1000, &out, &n), RS_OK);
    cr_assert_eq(n, strlen(txt));
    free(out);
    cr_assert_eq(rs_robots_decode(zs, zsn - 3, 1000, &out, &n), RS_ERR_CORRUPT);
    cr_assert_eq(rs_robots_decode(txt, 5, 3, &out, &n), RS_OK);  /* plain: cut at max */
    cr_assert_eq(n, 3);
    free(out);
}

/* Survey class of @agent under @body. */
static const char *cls(const char *body, const char *agent, rs_survey_group *group, char *delay)
{
    rs_ruleset *rs = NULL;
    cr_assert_eq(rs_ruleset_parse(body, strlen(body), &rs), RS_OK);
    rs_str a = { agent, strlen(agent) };
    rs_survey_result r;
    cr_assert_eq(rs_survey_classify(rs, &a, 1, &r), RS_OK);
    if (group) *group = r.group;
    if (delay) { memcpy(delay, r.crawl_delay.ptr, r.crawl_delay.len); delay[r.crawl_delay.len] = '\0'; }
    rs_ruleset_free(rs);
    return rs_survey_class_str(r.cls);
}

Test(survey, classes)
{
    cr_assert_str_eq(cls("User-agent: *\nDisallow: /\n", "A", NULL, NULL), "blocked");
    cr_assert_str_eq(cls("User-agent: *\nDisallow: /*\nAllow: /\n", "A", NULL, NULL), "blocked");  /* 2 > 1 */
    cr_assert_str_eq(cls("User-agent: *\nDisallow: /\nAllow: /$\n", "A", NULL, NULL), "partial");  /* "/" allowed */
    cr_assert_str_eq(cls("User-agent: *\nDisallow: *$\n", "A", NULL, NULL), "blocked");
    cr_assert_str_eq(cls("User-agent: *\nDisallow: */\n", "A", NULL, NULL), "blocked");
    cr_assert_str_eq(cls("User-agent: *\nDisallow: /$\n", "A", NULL, NULL), "partial");
    cr_assert_str_eq(cls("User-agent: *\nDisallow: /x\n", "A", NULL, NULL), "partial");
    cr_assert_str_eq(cls("User-agent: *\nDisallow:\n", "A", NULL, NULL), "open");           /* disallows nothing */
    cr_assert_str_eq(cls("User-agent: *\nDisallow: x\n", "A", NULL, NULL), "open");         /* never matches */
    cr_assert_str_eq(cls("User-agent: *\nDisallow: /\nAllow: x/index.html\n", "A", NULL, NULL), "blocked");
    cr_assert_str_eq(cls("User-agent: *\nDisallow: /\nAllow: /index.html\n", "A", NULL, NULL), "partial");
    cr_assert_str_eq(cls("User-agent: *\nDisallow: /\nAllow: /p\n", "A", NULL, NULL), "partial");  /* tie: allow */
    rs_survey_group g;
    char d[32];
    const char *f = "User-agent: *\nCrawl-delay: abc\nCrawl-delay: 5\nDisallow: /\n\n"
                    "User-agent: GPTBot\nUser-agent: CCBot\nCrawl-delay: 0.5\nAllow: /\n";
    cr_assert_str_eq(cls(f, "gptbot", &g, d), "open");
    cr_assert_eq(g, RS_GROUP_NAMED);
    cr_assert_str_eq(d, "0.5");
    cr_assert_str_eq(cls(f, "Other", &g, d), "blocked");
    cr_assert_eq(g, RS_GROUP_STAR);
    cr_assert_str_eq(d, "5");
    cr_assert_str_eq(cls("User-agent: GPTBot\nDisallow: /\n", "Other", &g, NULL), "open");
    cr_assert_eq(g, RS_GROUP_NONE);
    /* "AI2Bot" is read as the token "AI": the agent AI2Bot is never named */
    cr_assert_str_eq(cls("User-agent: AI2Bot\nDisallow: /\n", "AI2Bot", &g, NULL), "open");
    cr_assert_eq(g, RS_GROUP_NONE);
}

Test(survey, sitemap_validity)
{
    cr_assert(rs_sitemap_is_valid("https://a.com/s.xml", 19));
    cr_assert(rs_sitemap_is_valid("HTTP://a.com:8080/s.xml", 23));
    cr_assert(!rs_sitemap_is_valid("/s.xml", 6));
    cr_assert(!rs_sitemap_is_valid("a.com/s.xml", 11));
    cr_assert(!rs_sitemap_is_valid("//a.com/s.xml", 13));
    cr_assert(!rs_sitemap_is_valid("ftp://a.com/s.xml", 17));
    cr_assert(!rs_sitemap_is_valid("https://https://a.com/s.xml", 27));
    cr_assert(!rs_sitemap_is_valid("https://a.com/s .xml", 20));
    cr_assert(!rs_sitemap_is_valid("https://", 8));
}

/* ===== rs_sites_each_digest: a digest made while indexing stands for the body ===== */

typedef struct {
    char out[4096];
    size_t len;
    int digested;        /* documents handed out with a digest */
} each_log;

static void log_doc(each_log *l, const rs_site_doc *d, const void *body, size_t n)
{
    l->len += (size_t)snprintf(l->out + l->len, sizeof l->out - l->len, "%.*s %d %u html=%d [%.*s]\n",
                               (int)d->origin.len, d->origin.ptr, (int)d->outcome, d->http_status, d->html,
                               (int)n, body ? (const char *)body : "");
}

static int on_body(void *ctx, const rs_site_doc *d)
{
    log_doc(ctx, d, d->body, d->body_len);
    return 0;
}

/* The digest is the body itself: the two passes must then hand out the same bytes. */
static rs_status digest_copy(void *ctx, const char *body, size_t n, rs_outbuf *out)
{
    (void)ctx;
    return rs_outbuf_append(out, body, n);
}

static int on_digest(void *ctx, const rs_site_doc *d, const void *digest, size_t n)
{
    each_log *l = ctx;
    if (digest != NULL) l->digested++;
    else cr_assert(d->outcome != RS_REASON_NO_MATCH || d->body != NULL);
    log_doc(l, d, digest ? digest : d->body, digest ? n : d->body_len);
    return 0;
}

Test(warc, each_digest_matches_bodies)
{
    static const char *const RESP[][3] = {
        /* uri, date, HTTP response */
        { "http://a.example/robots.txt", "2024-01-02T00:00:00Z", "HTTP/1.1 200 OK\r\n\r\nUser-agent: *\nDisallow: /new\n" },
        { "http://a.example/robots.txt", "2024-01-01T00:00:00Z", "HTTP/1.1 200 OK\r\n\r\nUser-agent: *\nDisallow: /old\n" },
        { "http://t.example/robots.txt", "2024-01-01T00:00:00Z", "HTTP/1.1 200 OK\r\n\r\nDisallow: /first\n" },
        { "http://t.example/robots.txt", "2024-01-01T00:00:00Z", "HTTP/1.1 200 OK\r\n\r\nDisallow: /second\n" },
        { "http://b.example/robots.txt", "2024-01-01T00:00:00Z", "HTTP/1.1 301 Moved\r\nLocation: http://c.example/robots.txt\r\n\r\n" },
        { "http://c.example/robots.txt", "2024-01-01T00:00:00Z", "HTTP/1.1 200 OK\r\n\r\nUser-agent: *\nDisallow: /c\n" },
        { "http://d.example/robots.txt", "2024-01-01T00:00:00Z", "HTTP/1.1 302 Found\r\nLocation: /real.txt\r\n\r\n" },
        { "http://d.example/real.txt", "2024-01-01T00:00:00Z", "HTTP/1.1 200 OK\r\n\r\nUser-agent: *\nDisallow: /d\n" },
        { "http://e.example/robots.txt", "2024-01-01T00:00:00Z",
          "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7\r\n<html>\n\r\n7\r\n<body>\n\r\n0\r\n\r\n" },
        { "http://f.example/robots.txt", "2024-01-01T00:00:00Z", "HTTP/1.1 200 OK\r\n\r\n" },
        { "http://g.example/robots.txt", "2024-01-01T00:00:00Z", "HTTP/1.1 404 Not Found\r\n\r\n<html>\n" },
        { "http://h.example/robots.txt", "2024-01-03T00:00:00Z", "HTTP/1.1 503 Down\r\n\r\n" },
        { "http://h.example/robots.txt", "2024-01-02T00:00:00Z", "HTTP/1.1 200 OK\r\n\r\nDisallow: /h\n" },
    };
    static char file[1 << 16];
    size_t n = 0;
    char r[2048];
    size_t rl = rec(r, "warcinfo", "", "2024-01-01T00:00:00Z", "software: test\r\n");
    n += gz(r, rl, file + n, sizeof file - n);
    for (size_t i = 0; i < sizeof RESP / sizeof RESP[0]; i++) {
        rl = rec(r, "response", RESP[i][0], RESP[i][1], RESP[i][2]);
        n += gz(r, rl, file + n, sizeof file - n);
    }
    const char *tmp = tmpfile_with(file, n);
    char path[80];
    snprintf(path, sizeof path, "%s.warc.gz", tmp);
    cr_assert_eq(rename(tmp, path), 0);

    const char *paths[] = { path };
    const rs_sites_options so = { .defer_errors = 1, .stream = 1 };
    each_log plain, dig;
    memset(&plain, 0, sizeof plain);
    memset(&dig, 0, sizeof dig);
    rs_sites_warc_stats ws1, ws2;
    rs_sites *s = NULL;
    cr_assert_eq(rs_sites_create_opts(paths, 1, &so, &s), RS_OK);
    cr_assert_eq(rs_sites_each(s, on_body, &plain), RS_OK, "%s", rs_sites_errmsg(s));
    rs_sites_get_warc_stats(s, &ws1);
    rs_sites_free(s);
    cr_assert_eq(rs_sites_create_opts(paths, 1, &so, &s), RS_OK);
    cr_assert_eq(rs_sites_each_digest(s, digest_copy, on_digest, &dig), RS_OK, "%s", rs_sites_errmsg(s));
    rs_sites_get_warc_stats(s, &ws2);
    rs_sites_free(s);
    unlink(path);

    cr_assert_str_eq(dig.out, plain.out);
    cr_assert(strstr(plain.out, "[User-agent: *\nDisallow: /new\n]") != NULL, "%s", plain.out);
    cr_assert(strstr(plain.out, "[Disallow: /second\n]") != NULL, "%s", plain.out);
    cr_assert(strstr(plain.out, "http://e.example 1 200 html=1") != NULL, "%s", plain.out);
    /* a, t, b (c's capture), c, e, f; h's later capture is a 503; d's redirect to a
     * capture of another path comes with its body */
    cr_assert_eq(dig.digested, 6, "%d digested:\n%s", dig.digested, dig.out);
    cr_assert_eq(ws1.html_bodies, ws2.html_bodies);
    cr_assert_eq(ws1.superseded, ws2.superseded);
}
