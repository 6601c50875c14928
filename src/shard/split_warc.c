/*
 * split_warc.c - splitting a WARC robots source by site (rs_shard_split,
 * `robotscan shard --robots X.warc(.gz|.zst)`): one WARC per shard with only
 * the captures that shard's sites use.
 *
 * Pass 1 indexes the response records as the WARC source does (capture key
 * "origin/path" and Location resolution are the library's:
 * rs_warc_capture_key, rs_warc_location_key; the latest WARC-Date wins, ties
 * go to the later record). Every /robots.txt capture belongs to the shard of
 * its origin; a 3xx is followed (at most 5 hops, as indexing does) and every
 * capture on the way is needed by that shard too, whatever its origin. Pass 2
 * reads the file again and writes each needed response record (every version
 * of a needed key, so each shard picks the same latest capture) to the
 * shards that need it, each record its own gzip member (seekable, like Common
 * Crawl's files): DIR/robots-K/S<i>.warc.gz. A shard that needs nothing gets
 * a WARC with a warcinfo record only. Records other than responses, and
 * captures no robots.txt leads to, are left out, so the shards' files sum to
 * about the original's size (redirect targets shared by several shards are
 * the only copies).
 *
 * A WARC that is damaged (rs_warc_next fails) is not split: every shard gets
 * it whole, as before, with a warning.
 */
#include "shard/shard.h"
#include "sites/sites.h"
#include "warc/warc.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#define MAX_HOPS 5 /* src/sites/warc_source.c */

typedef struct {
    char     date[35];
    uint16_t status;
    uint8_t  robots;
    size_t   origin_len;
    char    *location;   /* capture key of a 3xx Location, or NULL */
    uint32_t *shards;    /* shards that need this key (sorted, unique) */
    uint32_t n_shards, cap_shards;
} key_info;

typedef struct {
    rs_tally *keys;      /* capture key -> index into info */
    key_info *info;
    size_t n, cap;
} warc_keys;

static void keys_free(warc_keys *k)
{
    for (size_t i = 0; i < k->n; i++) {
        rs_free(k->info[i].location);
        rs_free(k->info[i].shards);
    }
    rs_free(k->info);
    rs_tally_free(k->keys);
}

static int need(key_info *ki, uint32_t shard)
{
    for (uint32_t i = 0; i < ki->n_shards; i++)
        if (ki->shards[i] == shard) return 0;
    if (ki->n_shards == ki->cap_shards) {
        const uint32_t cap = ki->cap_shards ? ki->cap_shards * 2 : 2;
        uint32_t *s = rs_realloc(ki->shards, cap * sizeof *s);
        if (s == NULL) return -1;
        ki->shards = s;
        ki->cap_shards = cap;
    }
    ki->shards[ki->n_shards++] = shard;
    return 0;
}

/* The key of a response record, or 0 when it is no capture (not http(s)). */
static int record_key(const rs_warc_record *rec, char *key, size_t cap, size_t *kl, size_t *ol)
{
    if (!(rec->type.len == 8 && memcmp(rec->type.ptr, "response", 8) == 0)) return 0;
    return rs_warc_capture_key(rec->target_uri.ptr, rec->target_uri.len, key, cap, kl, ol);
}

/* Pass 1. @return 0, 1 when the file cannot be split (damaged), -1 on error (in @d). */
static int index_keys(const char *path, warc_keys *k, rs_shard_diag *d)
{
    rs_warc *w = NULL;
    const rs_status ost = rs_warc_open(path, &w);
    if (ost != RS_OK) {
        rs_shard_fail(d, ost, "%s", w ? rs_warc_errmsg(w) : path);
        rs_warc_free(w);
        return -1;
    }
    int rc = rs_tally_create(1, &k->keys) == RS_OK ? 0 : -1;
    char key[RS_ORIGIN_MAX + 4200];
    while (rc == 0) {
        rs_warc_record rec;
        const rs_status st = rs_warc_next(w, &rec);
        if (st == RS_ERR_EOF) break;
        if (st != RS_OK) {
            rs_shard_warn(d, "%s: not split by site (%s): every shard reads it whole", path, rs_warc_errmsg(w));
            rc = 1;
            break;
        }
        size_t kl, ol;
        if (!record_key(&rec, key, sizeof key, &kl, &ol)) continue;
        rs_http_response r;
        if (rs_http_parse(rec.block, rec.block_len, &r) != RS_OK) {
            rs_shard_warn(d, "%s: not split by site (a bad HTTP response at offset %llu): every shard reads it whole",
                          path, (unsigned long long)rec.offset);
            rc = 1;
            break;
        }
        uint32_t ix;
        if (rs_tally_find(k->keys, key, kl, &ix) != RS_OK) { rc = -1; break; }
        if (ix == k->n) { /* a new key */
            if (k->n == k->cap) {
                const size_t cap = k->cap ? k->cap * 2 : 256;
                key_info *ni = rs_realloc(k->info, cap * sizeof *ni);
                if (ni == NULL) { rc = -1; break; }
                k->info = ni;
                k->cap = cap;
            }
            memset(&k->info[k->n], 0, sizeof *k->info);
            k->info[k->n].origin_len = ol;
            k->info[k->n].robots = kl - ol == 11 && memcmp(key + ol, "/robots.txt", 11) == 0;
            k->n++;
        } else {
            /* the latest WARC-Date wins; ties go to the later record (warc_source.c add_capture) */
            const key_info *c = &k->info[ix];
            const size_t dl = RS_MIN(rec.date.len, sizeof c->date - 1);
            const int cmp = strncmp(c->date, rec.date.ptr, dl);
            if (cmp > 0 || (cmp == 0 && strlen(c->date) > dl)) continue;
        }
        key_info *c = &k->info[ix];
        const size_t dl = RS_MIN(rec.date.len, sizeof c->date - 1);
        memcpy(c->date, rec.date.ptr, dl);
        c->date[dl] = '\0';
        c->status = (uint16_t)r.status;
        rs_free(c->location);
        c->location = r.status >= 300 && r.status < 400 ? rs_warc_location_key(key, kl, ol, r.location) : NULL;
    }
    rs_warc_free(w);
    if (rc < 0) rs_shard_fail(d, RS_ERR_NOMEM, "out of memory");
    return rc;
}

/* Every robots.txt key to its origin's shard, and the captures its redirects reach. */
static int assign(warc_keys *k, uint32_t n)
{
    for (size_t i = 0; i < k->n; i++) {
        if (!k->info[i].robots) continue;
        const rs_str key = rs_tally_key(k->keys, (uint32_t)i);
        const uint32_t shard = rs_shard_of_origin(key.ptr, k->info[i].origin_len, n);
        if (need(&k->info[i], shard) != 0) return -1;
        const key_info *f = &k->info[i];
        for (int hops = 0; f->status >= 300 && f->status < 400 && f->location && hops < MAX_HOPS; hops++) {
            uint32_t ix;
            const size_t ll = strlen(f->location);
            /* only keys the file holds (a key it does not hold is added, without info) */
            if (rs_tally_find(k->keys, f->location, ll, &ix) != RS_OK) return -1;
            if (ix >= k->n) break; /* not captured (a new entry: it has no info and is never written) */
            if (need(&k->info[ix], shard) != 0) return -1;
            f = &k->info[ix];
        }
    }
    return 0;
}

/* ----- Writing ----- */

static int gz_member(FILE *f, const char *a, size_t alen, const char *b, size_t blen, const char *c, size_t clen)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK) return -1;
    unsigned char out[65536];
    const char *parts[3] = { a, b, c };
    const size_t lens[3] = { alen, blen, clen };
    int rc = 0;
    for (int p = 0; p < 3 && rc == 0; p++) {
        z.next_in = (unsigned char *)(uintptr_t)parts[p];
        z.avail_in = (uInt)lens[p];
        const int flush = p == 2 ? Z_FINISH : Z_NO_FLUSH;
        int zs;
        do {
            z.next_out = out;
            z.avail_out = sizeof out;
            zs = deflate(&z, flush);
            if (zs == Z_STREAM_ERROR) { rc = -1; break; }
            const size_t got = sizeof out - z.avail_out;
            if (got && fwrite(out, 1, got, f) != got) { rc = -1; break; }
        } while (z.avail_out == 0 || (flush == Z_FINISH && zs != Z_STREAM_END));
    }
    deflateEnd(&z);
    return rc;
}

/* A response record with the original's target, date and block (cut blocks stay cut). */
static int write_record(FILE *f, const rs_warc_record *rec)
{
    char head[8192 + 512];
    const int n = snprintf(head, sizeof head,
                           "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: %.*s\r\nWARC-Date: %.*s\r\n"
                           "Content-Type: application/http; msgtype=response\r\nContent-Length: %zu\r\n\r\n",
                           (int)rec->target_uri.len, rec->target_uri.ptr, (int)rec->date.len, rec->date.ptr,
                           rec->block_len);
    if (n < 0 || (size_t)n >= sizeof head) return -1;
    return gz_member(f, head, (size_t)n, rec->block, rec->block_len, "\r\n\r\n", 4);
}

static int write_warcinfo(FILE *f)
{
    static const char BODY[] = "software: robotscan shard\r\n";
    char head[256];
    const int n = snprintf(head, sizeof head,
                           "WARC/1.0\r\nWARC-Type: warcinfo\r\nWARC-Date: 1970-01-01T00:00:00Z\r\n"
                           "Content-Type: application/warc-fields\r\nContent-Length: %zu\r\n\r\n",
                           sizeof BODY - 1);
    return gz_member(f, head, (size_t)n, BODY, sizeof BODY - 1, "\r\n\r\n", 4);
}

/* Pass 2: the needed records into DIR/robots-K/S<src>.warc.gz. */
static int write_shards(const char *path, const warc_keys *k, uint32_t n, const char *dir, int src, FILE **lists,
                        rs_shard_diag *d)
{
    FILE **out = rs_calloc(n, sizeof *out);
    uint64_t *written = rs_calloc(n, sizeof *written);
    rs_warc *w = NULL;
    int rc = out && written ? 0 : -1;
    if (rc) rs_shard_fail(d, RS_ERR_NOMEM, "out of memory");
    char p[PATH_MAX], a[PATH_MAX];
    for (uint32_t s = 0; rc == 0 && s < n; s++) {
        snprintf(p, sizeof p, "%s/robots-%04u", dir, s);
        mkdir(p, 0777);
        snprintf(p, sizeof p, "%s/robots-%04u/S%d.warc.gz", dir, s, src);
        if ((out[s] = fopen(p, "wb")) == NULL) {
            rs_shard_fail(d, RS_ERR_IO, "%s: %s", p, strerror(errno));
            rc = -1;
        } else {
            fprintf(lists[s], "%s\n", realpath(p, a) ? a : p);
        }
    }
    if (rc == 0 && rs_warc_open(path, &w) != RS_OK) {
        rs_shard_fail(d, RS_ERR_IO, "%s", w ? rs_warc_errmsg(w) : path);
        rc = -1;
    }
    char key[RS_ORIGIN_MAX + 4200];
    while (rc == 0) {
        rs_warc_record rec;
        const rs_status st = rs_warc_next(w, &rec);
        if (st == RS_ERR_EOF) break;
        if (st != RS_OK) {
            rs_shard_fail(d, st, "%s", rs_warc_errmsg(w));
            rc = -1;
            break;
        }
        size_t kl, ol;
        if (!record_key(&rec, key, sizeof key, &kl, &ol)) continue;
        uint32_t ix;
        if (rs_tally_find(k->keys, key, kl, &ix) != RS_OK || ix >= k->n) continue;
        const key_info *ki = &k->info[ix];
        for (uint32_t j = 0; rc == 0 && j < ki->n_shards; j++) {
            if (write_record(out[ki->shards[j]], &rec) != 0) {
                rs_shard_fail(d, RS_ERR_IO, "%s: write failed: %s", dir, strerror(errno));
                rc = -1;
            }
            written[ki->shards[j]]++;
        }
    }
    for (uint32_t s = 0; out && s < n; s++) {
        if (out[s] == NULL) continue;
        if (rc == 0 && written[s] == 0 && write_warcinfo(out[s]) != 0) rc = -1; /* a WARC, if an empty one */
        if (fclose(out[s]) != 0) rc = -1;
    }
    if (rc) rs_shard_fail(d, RS_ERR_IO, "%s: write failed: %s", dir, strerror(errno));
    rs_warc_free(w);
    rs_free(out);
    rs_free(written);
    return rc;
}

rs_status rs_shard_split_warc(const char *path, uint32_t n, const char *dir, int src, FILE **lists,
                              rs_shard_diag *d)
{
    warc_keys k;
    memset(&k, 0, sizeof k);
    int rc = index_keys(path, &k, d);
    if (rc == 1) { /* damaged: given whole */
        char a[PATH_MAX];
        rc = realpath(path, a) ? 0 : rs_shard_fail(d, RS_ERR_IO, "%s: %s", path, strerror(errno));
        for (uint32_t s = 0; rc == 0 && s < n; s++) fprintf(lists[s], "%s\n", a);
    } else if (rc == 0) {
        rc = assign(&k, n) == 0 ? write_shards(path, &k, n, dir, src, lists, d)
                                : rs_shard_fail(d, RS_ERR_NOMEM, "out of memory");
    }
    keys_free(&k);
    return rc == 0 ? RS_OK : rs_shard_status(d);
}

int rs_shard_is_warc(const char *path)
{
    rs_warc *w = NULL;
    const int yes = rs_warc_open(path, &w) == RS_OK;
    rs_warc_free(w);
    return yes;
}
