/*
 * each.c - every document of the robots sources, one at a time (survey,
 * sitemaps): rs_sites_each reads a body, hands it to the caller and frees
 * it, so a pass over millions of sites holds one body at a time.
 *
 * Order: sources in the order given; a directory's entries sorted by key, a
 * manifest's lines and a WARC's captures in file order. A document whose
 * origin an earlier source already serves is skipped (the first source that
 * knows an origin wins, as for lookups).
 *
 * rs_sites_each_digest: a WARC document whose capture was digested while
 * the source was indexed (warc_source.c) is handed out with its digest and
 * no body; the others as by rs_sites_each.
 */
#include "sites/sites.h"
#include "warc/warc.h"

#include <stdio.h>

static int by_key(const void *a, const void *b)
{
    const rs_doc *x = *(const rs_doc *const *)a, *y = *(const rs_doc *const *)b;
    const size_t n = RS_MIN(x->key_len, y->key_len);
    const int c = memcmp(x->key, y->key, n);
    return c ? c : (x->key_len > y->key_len) - (x->key_len < y->key_len);
}

/* Does a source before @upto serve the document's origin? */
static int shadowed(rs_sites *s, size_t upto, const rs_source *src, const rs_doc *d)
{
    if (upto == 0) return 0;
    char url[RS_ORIGIN_MAX + 16];
    char odst[RS_ORIGIN_MAX];
    rs_origin o;
    const size_t n = RS_MIN(d->key_len, (size_t)RS_ORIGIN_MAX);
    int tries = 1;
    if (src->kind == RS_SOURCE_DIR) {
        /* A host entry serves http and https: shadowed if either is served before. */
        tries = 2;
    }
    for (int t = 0; t < tries; t++) {
        size_t len = 0;
        if (src->kind == RS_SOURCE_DIR) {
            len = (size_t)snprintf(url, sizeof url, "%s://%.*s", t ? "http" : "https", (int)n, d->key);
        } else {
            memcpy(url, d->key, n);
            len = n;
        }
        if (rs_origin_parse(url, len, odst, sizeof odst, &o) != RS_OK || o.error != RS_ORIGIN_OK) continue;
        const size_t saved = s->nsources;
        s->nsources = upto;
        const rs_doc *hit = rs_sources_resolve(s, &o);
        s->nsources = saved;
        if (hit != NULL) return 1;
    }
    return 0;
}

/* ===== Streaming mode: origins of released WARC sources, as 64-bit hashes ===== */

typedef struct {
    uint64_t *slot;      /* 0 = empty */
    size_t mask, used;
} hash_set;

static rs_status set_add(hash_set *h, uint64_t v)
{
    v |= 1;
    if ((h->used + 1) * 2 > h->mask + 1 || h->slot == NULL) {
        const size_t cap = h->slot ? (h->mask + 1) * 2 : 1024;
        uint64_t *n = rs_calloc(cap, sizeof *n);
        RS_RETURN_IF(n == NULL, RS_ERR_NOMEM);
        for (size_t i = 0; h->slot && i <= h->mask; i++) {
            if (!h->slot[i]) continue;
            size_t j = h->slot[i] & (cap - 1);
            while (n[j]) j = (j + 1) & (cap - 1);
            n[j] = h->slot[i];
        }
        rs_free(h->slot);
        h->slot = n;
        h->mask = cap - 1;
    }
    size_t j = v & h->mask;
    for (; h->slot[j]; j = (j + 1) & h->mask)
        if (h->slot[j] == v) return RS_OK;
    h->slot[j] = v;
    h->used++;
    return RS_OK;
}

static int set_has(const hash_set *h, uint64_t v)
{
    if (h->slot == NULL) return 0;
    v |= 1;
    for (size_t j = v & h->mask; h->slot[j]; j = (j + 1) & h->mask)
        if (h->slot[j] == v) return 1;
    return 0;
}

/* The consumer: one of the two callbacks. */
typedef struct {
    rs_site_doc_cb doc;
    rs_site_digest_cb digested;
    void *ctx;
} consumer;

static rs_status each_source(rs_sites *s, size_t i, hash_set *released, const consumer *cb, int *stop);
static rs_status each(rs_sites *s, const consumer *cb);

rs_status rs_sites_each(rs_sites *s, rs_site_doc_cb cb, void *ctx)
{
    RS_RETURN_IF(s == NULL || cb == NULL, RS_ERR_USAGE);
    const consumer c = { cb, NULL, ctx };
    return each(s, &c);
}

rs_status rs_sites_each_digest(rs_sites *s, rs_site_digest_fn digest, rs_site_digest_cb cb, void *ctx)
{
    RS_RETURN_IF(s == NULL || digest == NULL || cb == NULL, RS_ERR_USAGE);
    const consumer c = { NULL, cb, ctx };
    s->digest = digest;
    s->digest_ctx = ctx;
    const rs_status st = each(s, &c);
    s->digest = NULL;
    s->digest_ctx = NULL;
    return st;
}

static rs_status each(rs_sites *s, const consumer *cb)
{
    hash_set released = { NULL, 0, 0 };
    rs_status st = RS_OK;
    int stop = 0;
    for (size_t i = 0; i < s->nsources && st == RS_OK && !stop; i++) {
        rs_source *src = &s->sources[i];
        const int lazy = src->kind == RS_SOURCE_WARC && src->warc == NULL && s->opts.stream;
        if (lazy) {
            rs_warc *w = NULL;
            st = rs_warc_open(src->path, &w);
            if (st != RS_OK) {
                rs_sites_seterr(s, "robots source %s", rs_warc_errmsg(w));
                rs_warc_free(w);
                break;
            }
            st = rs_warc_source_index(s, src, (uint32_t)i, w);
            if (st != RS_OK) break;
        }
        st = each_source(s, i, &released, cb, &stop);
        if (lazy) {
            /* Remember its origins (for shadowing), then let it go. */
            for (size_t k = 0; k < src->ndocs && st == RS_OK; k++)
                st = set_add(&released, rs_map_hash(src->docs[k]->key, src->docs[k]->key_len));
            const rs_status deferred = rs_warc_source_deferred(src);
            rs_source_release(src);
            if (st == RS_OK) st = rs_map_init(&src->index, 16);
            if (st == RS_OK && !stop) st = deferred;
        }
    }
    rs_free(released.slot);
    return st;
}

static rs_status each_source(rs_sites *s, size_t i, hash_set *released, const consumer *cb, int *stopped)
{
    {
        rs_source *src = &s->sources[i];
        rs_doc **order = src->docs;
        rs_doc **sorted = NULL;
        if (src->kind == RS_SOURCE_DIR && src->ndocs > 1) {
            sorted = rs_malloc(src->ndocs * sizeof *sorted);
            RS_RETURN_IF(sorted == NULL, RS_ERR_NOMEM);
            memcpy(sorted, src->docs, src->ndocs * sizeof *sorted);
            qsort(sorted, src->ndocs, sizeof *sorted, by_key);
            order = sorted;
        }
        rs_status st = RS_OK;
        int stop = 0;
        for (size_t k = 0; k < src->ndocs && !stop; k++) {
            const rs_doc *d = order[k];
            if (src->kind != RS_SOURCE_FILE && shadowed(s, i, src, d)) continue;
            if (released->used && src->kind != RS_SOURCE_FILE && src->kind != RS_SOURCE_DIR &&
                set_has(released, rs_map_hash(d->key, d->key_len)))
                continue;
            if (src->kind == RS_SOURCE_FILE && i > 0) continue;  /* every origin is served before */
            rs_site_doc doc;
            memset(&doc, 0, sizeof doc);
            doc.origin.ptr = d->key;
            doc.origin.len = d->key_len;
            doc.outcome = d->outcome;
            doc.http_status = d->http_status;
            doc.where = d->path ? d->path : src->path;
            doc.source = (uint32_t)i;
            char *body = NULL;
            size_t size = 0;
            const void *digest = NULL;
            size_t digest_len = 0;
            int html = 0;
            if (d->outcome == RS_REASON_NO_MATCH && cb->digested != NULL && src->kind == RS_SOURCE_WARC &&
                rs_warc_source_digest(d, &digest, &digest_len, &html)) {
                doc.html = html;
                if (html) s->wstats.html_bodies++;
            } else if (d->outcome == RS_REASON_NO_MATCH) {
                st = rs_doc_body(s, d, &body, &size);
                if (st != RS_OK) break;
                doc.body = body;
                doc.body_len = size;
                doc.html = rs_body_is_html(body, size);
                if (doc.html) s->wstats.html_bodies++;
            }
            stop = cb->doc ? cb->doc(cb->ctx, &doc) : cb->digested(cb->ctx, &doc, digest, digest_len);
            rs_free(body);
        }
        rs_free(sorted);
        *stopped = stop;
        if (st != RS_OK) return st;
        if (stop) return RS_OK;
        if (src->kind == RS_SOURCE_WARC && !s->opts.stream && rs_warc_source_deferred(src) != RS_OK)
            return rs_warc_source_deferred(src);
    }
    return RS_OK;
}
