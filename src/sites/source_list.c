/*
 * source_list.c - the entries of a robots directory as the directory source
 * indexes them (names read by the same rules, duplicates resolved the same
 * way), for splitting a source by site (robotscan shard).
 */
#include "sites/sites.h"

rs_status rs_robots_dir_list(const char *dir, int (*fn)(const char *key, size_t key_len, const char *path,
                                                        void *ctx),
                             void *ctx, char *err, size_t err_cap)
{
    if (dir == NULL || fn == NULL) return RS_ERR_USAGE;
    rs_sites *s = NULL;
    const char *paths[1] = { dir };
    rs_status st = rs_sites_create(paths, 1, &s);
    if (st != RS_OK) {
        if (err && err_cap) snprintf(err, err_cap, "%s", s ? rs_sites_errmsg(s) : "cannot open");
        rs_sites_free(s);
        return st;
    }
    if (s->nsources != 1 || s->sources[0].kind != RS_SOURCE_DIR) {
        if (err && err_cap) snprintf(err, err_cap, "%s: not a directory", dir);
        rs_sites_free(s);
        return RS_ERR_USAGE;
    }
    const rs_map_slots *sl = atomic_load(&s->sources[0].index.cur);
    for (size_t i = 0; sl && i <= sl->mask; i++) {
        const rs_map_entry *e = rs_map_slot_entry(sl, i);
        if (e == NULL) continue;
        const rs_doc *d = e->value;
        if (d == NULL || d->path == NULL) continue;
        if (fn(e->key, e->len, d->path, ctx) != 0) {
            st = RS_ERR_IO;
            break;
        }
    }
    rs_sites_free(s);
    return st;
}
