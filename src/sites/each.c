/*
 * each.c - every document of the robots sources, one at a time (survey,
 * sitemaps): rs_sites_each reads a body, hands it to the caller and frees
 * it, so a pass over millions of sites holds one body at a time.
 *
 * Order: sources in the order given; a directory's entries sorted by key, a
 * manifest's lines and a WARC's captures in file order. A document whose
 * origin an earlier source already serves is skipped (the first source that
 * knows an origin wins, as for lookups).
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

rs_status rs_sites_each(rs_sites *s, rs_site_doc_cb cb, void *ctx)
{
    RS_RETURN_IF(s == NULL || cb == NULL, RS_ERR_USAGE);
    for (size_t i = 0; i < s->nsources; i++) {
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
            if (d->outcome == RS_REASON_NO_MATCH) {
                st = rs_doc_body(s, d, &body, &size);
                if (st != RS_OK) break;
                doc.body = body;
                doc.body_len = size;
                doc.html = rs_body_is_html(body, size);
                if (doc.html) s->wstats.html_bodies++;
            }
            stop = cb(ctx, &doc);
            rs_free(body);
        }
        rs_free(sorted);
        if (st != RS_OK) return st;
        if (stop) return RS_OK;
        if (src->kind == RS_SOURCE_WARC && rs_warc_source_deferred(src) != RS_OK)
            return rs_warc_source_deferred(src);
    }
    return RS_OK;
}
