/*
 * warc_source.c - a WARC file as a robots source (SPEC 3): an index of the
 * file's captures, origins resolved through redirects, bodies re-read on use.
 *
 * Indexing reads the file once, record by record (src/warc). Every response
 * record with an http(s) target is a capture of its URI (canonical origin +
 * path); the latest WARC-Date wins, ties go to the later record. Then every
 * capture of a /robots.txt URI becomes its origin's document: 2xx rules
 * apply; 3xx is followed to the capture of its Location (at most 5 hops, any
 * origin), unavailable when there is none; 4xx unavailable; 5xx unreachable.
 *
 * Bodies are not kept. A capture remembers the file offset of its record
 * (a record that starts a gzip member or zstd frame, or any record of a
 * plain file) and is read again when used: one seek and one member to
 * decode, and memory stays at a few dozen bytes per capture whatever the
 * bodies weigh. A record that cannot be returned to that way (a zstd file
 * with one frame for many records) keeps its decoded body zstd-compressed
 * in memory instead (counted in bodies_in_memory).
 *
 * With a digest function (rs_sites_each_digest: survey), a /robots.txt 2xx
 * capture that is the latest of its URI so far is digested as indexing
 * decodes it, and only the digest is kept: each used capture is inflated
 * once, and memory grows by a few bytes per capture, not by its body.
 */
#include "sites/sites.h"
#include "warc/warc.h"

#include <stdio.h>
#include <zstd.h>

#define MAX_HOPS 5
#define DIGESTED    0x1u /* digest stands for the body (rs_sites_each_digest) */
#define DIGEST_HTML 0x2u /* ... whose body looks like an HTML page */

typedef struct {
    uint64_t off;        /* file offset (seekable) or offset in mem */
    uint32_t mem_len;    /* > 0: body zstd-compressed in mem */
    uint32_t raw_len;    /* decoded body length (mem only) */
    uint16_t status;
    uint8_t  robots;     /* path is /robots.txt */
    uint8_t  flags;      /* DIGESTED, DIGEST_HTML */
    char     date[35];
    char    *location;   /* resolved capture key of a 3xx Location, or NULL */
    const char *digest;  /* DIGESTED: a 4-byte length, then the digest (in x->digests) */
    const char *key;     /* in the caps map */
    uint32_t key_len;    /* (uint32_t: the record stays 88 bytes with the digest) */
    uint32_t origin_len; /* key[0..origin_len) is the origin */
} capture;

struct rs_warc_index {
    rs_warc *w;
    rs_map caps;         /* URI key -> capture* */
    capture **list;      /* first-appearance order */
    size_t n, cap;
    rs_buf mem;          /* compressed bodies of non-seekable records */
    rs_arena digests;    /* the captures' digests (a superseded one stays until the index goes) */
    rs_outbuf scratch;   /* a digest being made */
    rs_status deferred;  /* a damage found while indexing (defer_errors) */
};

void rs_warc_source_free(struct rs_warc_index *x)
{
    if (x == NULL) return;
    for (size_t i = 0; i < x->n; i++) {
        rs_free(x->list[i]->location);
        rs_free(x->list[i]);
    }
    rs_free(x->list);
    rs_map_free(&x->caps);
    rs_buf_free(&x->mem);
    rs_arena_free(&x->digests);
    rs_outbuf_free(&x->scratch);
    rs_warc_free(x->w);
    rs_free(x);
}

/* "origin/path" of a URL: its capture key. @return 0 if not an http(s) URL. */
static int uri_key(const char *uri, size_t len, char *key, size_t cap, size_t *key_len, size_t *olen)
{
    char odst[RS_ORIGIN_MAX];
    rs_origin o;
    if (rs_origin_parse(uri, len, odst, sizeof odst, &o) != RS_OK || o.error != RS_ORIGIN_OK) return 0;
    if (!(o.scheme.len == 4 && memcmp(o.scheme.ptr, "http", 4) == 0) &&
        !(o.scheme.len == 5 && memcmp(o.scheme.ptr, "https", 5) == 0))
        return 0;
    /* The URL must spell its scheme: a bare "a.com/x" is not a capture's URI. */
    if (len < o.scheme.len + 3) return 0;
    char scratch[4096];
    if (len + 1 > sizeof scratch) return 0;
    const rs_str path = rs_url_path(uri, len, scratch, sizeof scratch);
    if (o.origin.len + path.len > cap) return 0;
    memcpy(key, o.origin.ptr, o.origin.len);
    memcpy(key + o.origin.len, path.ptr, path.len);
    *key_len = o.origin.len + path.len;
    *olen = o.origin.len;
    return 1;
}

/* Resolves a Location against the capture's key into a capture key (malloc'd), or NULL. */
static char *resolve_location(const capture *c, rs_str loc)
{
    char url[8192];
    size_t n = 0;
    if (loc.len == 0 || loc.len > 4096) return NULL;
    int absolute = 0;
    for (size_t i = 0; i + 2 < loc.len && i < 12; i++)
        if (loc.ptr[i] == ':' ) { absolute = loc.ptr[i + 1] == '/' && loc.ptr[i + 2] == '/'; break; }
    if (absolute) {
        memcpy(url, loc.ptr, loc.len);
        n = loc.len;
    } else if (loc.len >= 2 && loc.ptr[0] == '/' && loc.ptr[1] == '/') {
        const char *colon = memchr(c->key, ':', c->origin_len);
        const size_t sl = colon ? (size_t)(colon - c->key) + 1 : 0;
        memcpy(url, c->key, sl);
        memcpy(url + sl, loc.ptr, loc.len);
        n = sl + loc.len;
    } else if (loc.ptr[0] == '/') {
        memcpy(url, c->key, c->origin_len);
        memcpy(url + c->origin_len, loc.ptr, loc.len);
        n = c->origin_len + loc.len;
    } else {
        /* Relative to the capture's directory. */
        size_t dir = c->key_len;
        while (dir > c->origin_len && c->key[dir - 1] != '/') dir--;
        memcpy(url, c->key, dir);
        memcpy(url + dir, loc.ptr, loc.len);
        n = dir + loc.len;
    }
    char key[RS_ORIGIN_MAX + 4200];
    size_t kl, ol;
    if (!uri_key(url, n, key, sizeof key, &kl, &ol)) return NULL;
    char *r = rs_malloc(kl + 1);
    if (r == NULL) return NULL;
    memcpy(r, key, kl);
    r[kl] = '\0';
    return r;
}

static rs_status keep_in_memory(struct rs_warc_index *x, capture *c, const rs_buf *body)
{
    const size_t bound = ZSTD_compressBound(body->len);
    RS_FORWARD(rs_buf_reserve(&x->mem, bound));
    const size_t z = ZSTD_compress(x->mem.ptr + x->mem.len, bound, body->len ? body->ptr : "", body->len, 1);
    RS_RETURN_IF(ZSTD_isError(z), RS_ERR_NOMEM);
    c->off = x->mem.len;
    c->mem_len = (uint32_t)z;
    c->raw_len = (uint32_t)body->len;
    x->mem.len += z;
    return RS_OK;
}

/* The digest of a winning 2xx capture's body (@body: decoded, or NULL: the plain body in @r). */
static rs_status digest_capture(rs_sites *s, struct rs_warc_index *x, capture *c, const rs_http_response *r,
                                const rs_buf *body)
{
    const char *b = body ? body->ptr : r->body;
    const size_t n = body ? body->len : RS_MIN(r->body_len, (size_t)RS_ROBOTS_MAX_BODY);
    if (b == NULL) b = "";
    x->scratch.len = 0;
    RS_FORWARD(s->digest(s->digest_ctx, b, n, &x->scratch));
    RS_RETURN_IF(x->scratch.len > UINT32_MAX - 4, RS_ERR_NOMEM);
    const uint32_t len = (uint32_t)x->scratch.len;
    char *d = rs_arena_alloc_aligned(&x->digests, 4 + (size_t)len, 1);
    RS_RETURN_IF(d == NULL, RS_ERR_NOMEM);
    memcpy(d, &len, 4);
    if (len) memcpy(d + 4, x->scratch.ptr, len);
    c->digest = d;
    c->flags = (uint8_t)(DIGESTED | (rs_body_is_html(b, n) ? DIGEST_HTML : 0));
    return RS_OK;
}

/* One response record. */
static rs_status add_capture(rs_sites *s, struct rs_warc_index *x, const rs_warc_record *rec, rs_buf *body)
{
    char key[RS_ORIGIN_MAX + 4200];
    size_t kl, ol;
    if (!uri_key(rec->target_uri.ptr, rec->target_uri.len, key, sizeof key, &kl, &ol)) return RS_OK;
    rs_http_response r;
    if (rs_http_parse(rec->block, rec->block_len, &r) != RS_OK) return RS_ERR_CORRUPT;
    s->wstats.responses++;
    const int robots = kl - ol == 11 && memcmp(key + ol, "/robots.txt", 11) == 0;
    if (robots) s->wstats.robots_captures++;
    body->len = 0;
    int decoded = 0;
    /* A plain body of a seekable record is neither decoded nor checked now: it is read
     * when used (and checked for HTML then, by rs_sites_each). A coded one is decoded
     * now, so damage is found while indexing. */
    if (r.status >= 200 && r.status < 300 && (r.chunked || r.gzip || !rec->seekable)) {
        const rs_status st = rs_http_body(&r, RS_ROBOTS_MAX_BODY, body);
        if (st == RS_ERR_NOMEM) return st;
        if (st != RS_OK) return RS_ERR_CORRUPT;
        decoded = 1;
    }
    const uint64_t h = rs_map_hash(key, kl);
    rs_map_entry *e = rs_map_find(&x->caps, h, key, kl);
    capture *c;
    if (e != NULL) {
        c = e->value;
        /* Latest WARC-Date wins; ties go to the later record. */
        const size_t dl = RS_MIN(rec->date.len, sizeof c->date - 1);
        const int cmp = strncmp(c->date, rec->date.ptr, dl) ;
        const int older = cmp > 0 || (cmp == 0 && strlen(c->date) > dl);
        s->wstats.superseded++;
        if (older) return RS_OK;
        rs_free(c->location);
        c->location = NULL;
    } else {
        c = rs_calloc(1, sizeof *c);
        RS_RETURN_IF(c == NULL, RS_ERR_NOMEM);
        if (x->n == x->cap) {
            const size_t ncap = x->cap ? x->cap * 2 : 64;
            capture **nl = rs_realloc(x->list, ncap * sizeof *nl);
            if (nl == NULL) { rs_free(c); return RS_ERR_NOMEM; }
            x->list = nl;
            x->cap = ncap;
        }
        const rs_status st = rs_map_insert(&x->caps, h, key, kl, c);
        if (st != RS_OK) { rs_free(c); return st; }
        x->list[x->n++] = c;
        e = rs_map_find(&x->caps, h, key, kl);
        c->key = e->key;
        c->key_len = (uint32_t)kl;
        c->origin_len = (uint32_t)ol;
        c->robots = (uint8_t)robots;
    }
    const size_t dl = RS_MIN(rec->date.len, sizeof c->date - 1);
    memcpy(c->date, rec->date.ptr, dl);
    c->date[dl] = '\0';
    c->status = (uint16_t)r.status;
    c->mem_len = 0;
    c->off = rec->offset;
    c->flags = 0;
    if (s->digest != NULL && robots && r.status >= 200 && r.status < 300)
        RS_FORWARD(digest_capture(s, x, c, &r, decoded ? body : NULL));
    if (r.status >= 300 && r.status < 400) c->location = resolve_location(c, r.location);
    if (r.status >= 200 && r.status < 300 && !rec->seekable) {
        RS_FORWARD(keep_in_memory(x, c, body));
        s->wstats.bodies_in_memory++;
    }
    return RS_OK;
}

static rs_status make_docs(rs_sites *s, rs_source *src, uint32_t index, struct rs_warc_index *x)
{
    for (size_t i = 0; i < x->n; i++) {
        capture *c = x->list[i];
        if (!c->robots) continue;
        capture *f = c;
        int hops = 0;
        while (f->status >= 300 && f->status < 400 && f->location != NULL && hops < MAX_HOPS) {
            const size_t ll = strlen(f->location);
            const rs_map_entry *e = rs_map_find(&x->caps, rs_map_hash(f->location, ll), f->location, ll);
            if (e == NULL) break;
            f = e->value;
            hops++;
        }
        rs_reason outcome;
        if (f->status >= 300 && f->status < 400) {
            outcome = RS_REASON_UNAVAILABLE;
            s->wstats.redirects_unresolved++;
        } else {
            if (hops) s->wstats.redirects_followed++;
            outcome = f->status >= 200 && f->status < 300 ? RS_REASON_NO_MATCH
                    : f->status >= 400 && f->status < 500 ? RS_REASON_UNAVAILABLE : RS_REASON_UNREACHABLE;
        }
        char where[64];
        const int wl = f->mem_len ? snprintf(where, sizeof where, "@memory")
                                  : snprintf(where, sizeof where, "@%llu", (unsigned long long)f->off);
        const size_t pl = strlen(src->path);
        char *path = rs_arena_alloc_aligned(&src->arena, pl + (size_t)wl + 1, 1);
        RS_RETURN_IF(path == NULL, RS_ERR_NOMEM);
        memcpy(path, src->path, pl);
        memcpy(path + pl, where, (size_t)wl + 1);
        rs_doc *d = rs_source_add_doc(src, index, outcome, f->status, path);
        RS_RETURN_IF(d == NULL, RS_ERR_NOMEM);
        d->capture = f;
        const uint64_t h = rs_map_hash(c->key, c->origin_len);
        RS_FORWARD(rs_map_insert(&src->index, h, c->key, c->origin_len, d));
        const rs_map_entry *e = rs_map_find(&src->index, h, c->key, c->origin_len);
        d->key = e->key;
        d->key_len = e->len;
    }
    return RS_OK;
}

rs_status rs_warc_source_index(rs_sites *s, rs_source *src, uint32_t index, rs_warc *w)
{
    struct rs_warc_index *x = rs_calloc(1, sizeof *x);
    if (x == NULL) { rs_warc_free(w); return RS_ERR_NOMEM; }
    x->w = w;
    src->warc = x;
    RS_FORWARD(rs_map_init(&x->caps, 64));
    s->wstats.warc_files++;
    rs_buf body = {0};
    rs_status st = RS_OK;
    for (;;) {
        rs_warc_record rec;
        st = rs_warc_next(w, &rec);
        if (st == RS_ERR_EOF) { st = RS_OK; break; }
        const char *what = rs_warc_errmsg(w);
        char msg[700];
        if (st == RS_OK) {
            s->wstats.records++;
            if (!(rec.type.len == 8 && memcmp(rec.type.ptr, "response", 8) == 0)) continue;
            st = add_capture(s, x, &rec, &body);
            if (st == RS_OK) continue;
            if (st != RS_ERR_CORRUPT) break;
            snprintf(msg, sizeof msg, "%s: the response record at offset %llu has a %s", src->path,
                     (unsigned long long)rec.offset,
                     "bad HTTP response (status line, chunked coding or gzip body)");
            what = msg;
        } else if (st != RS_ERR_CORRUPT) {
            rs_sites_seterr(s, "robots source %s", what);
            break;
        }
        /* A damaged record. */
        if (s->opts.keep_going) {
            s->wstats.corrupt_skipped++;
            rs_sites_seterr(s, "robots source %s", what);   /* the last one, for a warning */
            if (st == RS_ERR_CORRUPT && what == msg) { st = RS_OK; continue; }
            if (rs_warc_resync(w) != RS_OK) { st = RS_OK; break; }
            st = RS_OK;
            continue;
        }
        rs_sites_seterr(s, "robots source %s", what);
        break;
    }
    rs_buf_free(&body);
    if (st == RS_ERR_CORRUPT && (s->opts.defer_errors || s->opts.stream)) {
        x->deferred = st;                       /* errmsg kept; rs_sites_each reports it */
        st = RS_OK;
    }
    if (st != RS_OK) return st;
    return make_docs(s, src, index, x);
}

int rs_warc_source_digest(const rs_doc *d, const void **digest, size_t *len, int *html)
{
    const capture *c = d->capture;
    if (c == NULL || !(c->flags & DIGESTED)) return 0;
    uint32_t n;
    memcpy(&n, c->digest, 4);
    *digest = c->digest + 4;
    *len = n;
    *html = (c->flags & DIGEST_HTML) != 0;
    return 1;
}

rs_status rs_warc_source_deferred(const rs_source *src)
{
    return src->warc ? src->warc->deferred : RS_OK;
}

rs_status rs_warc_source_body(rs_sites *s, const rs_source *src, const rs_doc *d, char **body, size_t *size)
{
    const struct rs_warc_index *x = src->warc;
    const capture *c = d->capture;
    rs_buf out = {0};
    rs_status st;
    if (c->mem_len) {
        st = rs_buf_reserve(&out, (size_t)c->raw_len + 1);
        if (st != RS_OK) return st;
        const size_t z = ZSTD_decompress(out.ptr, c->raw_len + 1, x->mem.ptr + c->off, c->mem_len);
        if (ZSTD_isError(z)) { rs_buf_free(&out); return RS_ERR_CORRUPT; }
        out.len = z;
    } else {
        rs_warc_record rec;
        st = rs_warc_seek(x->w, c->off);
        if (st == RS_OK) st = rs_warc_next(x->w, &rec);
        if (st != RS_OK) {
            rs_sites_seterr(s, "cannot read robots capture %s: %s", d->path, rs_warc_errmsg(x->w));
            return st == RS_ERR_EOF ? RS_ERR_CORRUPT : st;
        }
        rs_http_response r;
        st = rs_http_parse(rec.block, rec.block_len, &r);
        if (st == RS_OK) st = rs_http_body(&r, RS_ROBOTS_MAX_BODY, &out);
        if (st != RS_OK) {
            rs_buf_free(&out);
            rs_sites_seterr(s, "cannot decode robots capture %s", d->path);
            return st;
        }
    }
    if (out.ptr == NULL) {
        out.ptr = rs_malloc(1);
        if (out.ptr == NULL) return RS_ERR_NOMEM;
    }
    *body = out.ptr;
    *size = out.len;
    return RS_OK;
}

/* ===== Capture keys for `robotscan shard` (src/shard/split_warc.c) ===== */

int rs_warc_capture_key(const char *uri, size_t len, char *key, size_t cap, size_t *key_len, size_t *origin_len)
{
    return uri_key(uri, len, key, cap, key_len, origin_len);
}

char *rs_warc_location_key(const char *key, size_t key_len, size_t origin_len, rs_str location)
{
    capture c;
    memset(&c, 0, sizeof c);
    c.key = key;
    if (key_len > UINT32_MAX) return NULL;
    c.key_len = (uint32_t)key_len;
    c.origin_len = (uint32_t)origin_len;
    return resolve_location(&c, location);
}
