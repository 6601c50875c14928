/*
 * sources.c - robots sources: a single robots.txt, a directory of per-host
 * files, a `*.tsv` manifest of fetch outcomes (SPEC 3).
 *
 * Does: classify a --robots path, index a directory by entry names (hosts
 * normalised with rs_host_canon, IDN included) and a manifest by canonical
 * origin, answer "which document serves this origin", read a body (capped
 * at RS_ROBOTS_MAX_BODY).
 * Does not: parse robots.txt, compile or cache matchers (table.c), lock
 * (callers hold the rs_sites lock after creation).
 *
 * Directory names (documented in robotscan.h): HOST, HOST.txt, HOST:PORT,
 * HOST:PORT.txt, HOST_PORT, HOST_PORT.txt and HOST/robots.txt. HOST is a
 * host name or a bracketed IPv6 literal. Keys in the index are the
 * canonical host ("example.com") for default ports and "example.com:8080"
 * for an explicit port. When two entries give the same key the name that
 * sorts first (strcmp) wins, so the result does not depend on readdir order.
 */
#include "sites/sites.h"
#include "warc/warc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

void rs_sites_seterr(rs_sites *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->errmsg, sizeof s->errmsg, fmt, ap);
    va_end(ap);
}

/* Whether @s ends with the lowercase string literal @lit, ASCII
 * case-insensitively (its length known at compile time: every directory
 * entry is tested four times). */
#define ends_with(s, len, lit) ends_with_n((s), (len), (lit), sizeof(lit) - 1)
static inline int ends_with_n(const char *s, size_t len, const char *lower, size_t n)
{
    if (len < n) return 0;
    s += len - n;
    for (size_t i = 0; i < n; i++)
        if (rs_ascii_lower((unsigned char)s[i]) != lower[i]) return 0;
    return 1;
}

/* @b (holding "dir/" in its first @prefix bytes) becomes "dir/name[tail]",
 * NUL-terminated (b->len excludes the NUL). */
static rs_status entry_path(rs_buf *b, size_t prefix, const char *name, size_t nl, const char *tail)
{
    const size_t tl = tail ? strlen(tail) : 0;
    b->len = prefix;
    RS_FORWARD(rs_buf_reserve(b, nl + tl + 1));
    char *p = b->ptr + prefix;
    memcpy(p, name, nl);
    if (tl) memcpy(p + nl, tail, tl);
    p[nl + tl] = '\0';
    b->len = prefix + nl + tl;
    return RS_OK;
}

/* A new document of @src, zeroed but for the fields given, in the source's arena;
 * @path (NULL: none) must be in that arena too. */
static rs_doc *doc_new(rs_source *src, uint32_t source, rs_reason outcome, uint32_t status, char *path)
{
    if (src->ndocs == src->capdocs) {
        const size_t cap = src->capdocs ? src->capdocs * 2 : 16;
        rs_doc **d = rs_realloc(src->docs, cap * sizeof *d);
        if (d == NULL) return NULL;
        src->docs = d;
        src->capdocs = cap;
    }
    rs_doc *doc = rs_arena_alloc(&src->arena, sizeof *doc);
    if (doc == NULL) return NULL;
    memset(doc, 0, sizeof *doc);
    doc->outcome = outcome;
    doc->http_status = status;
    doc->source = source;
    doc->path = path;
    atomic_init(&doc->agents, NULL);
    src->docs[src->ndocs++] = doc;
    return doc;
}

rs_doc *rs_source_add_doc(rs_source *src, uint32_t source, rs_reason outcome, uint32_t status, char *path)
{
    return doc_new(src, source, outcome, status, path);
}

/* Adds @doc to @src's index under @key and points it at the entry's copy of
 * the key (map entries never move). */
static rs_status doc_index(rs_source *src, rs_doc *doc, uint64_t h, const char *key, size_t len)
{
    rs_map_entry *e = NULL;
    RS_FORWARD(rs_map_insert_entry(&src->index, h, key, len, doc, &e));
    doc->key = e->key;
    doc->key_len = e->len;
    return RS_OK;
}

void rs_doc_unload(rs_doc *d)
{
    rs_agent_matcher *a = atomic_load_explicit(&d->agents, memory_order_relaxed);
    while (a) {
        rs_agent_matcher *next = a->next;
        if (!a->in_arena) {     /* else freed with the arena (rs_sites_release) */
            rs_matcher_free(a->matcher);
            rs_free(a);
        }
        a = next;
    }
    atomic_store_explicit(&d->agents, NULL, memory_order_relaxed);
    rs_ruleset_free(d->ruleset);
    d->ruleset = NULL;
    d->loaded = 0;
}

void rs_source_unload(rs_source *src)
{
    for (size_t i = 0; i < src->ndocs; i++) rs_doc_unload(src->docs[i]);
}

/* Frees what the documents own (matchers, rulesets), then the documents and
 * their paths at once (the arena). */
static void free_docs(rs_source *src)
{
    for (size_t i = 0; i < src->ndocs; i++) {
        rs_doc *d = src->docs[i];
        if (atomic_load_explicit(&d->agents, memory_order_relaxed) != NULL || d->ruleset != NULL)
            rs_doc_unload(d);
    }
    rs_free(src->docs);
    src->docs = NULL;
    src->ndocs = src->capdocs = 0;
    rs_arena_free(&src->arena);
}

void rs_source_close(rs_source *src)
{
    if (src == NULL) return;
    if (src->has_dirfd) close(src->dirfd);
    src->has_dirfd = 0;
    free_docs(src);
    rs_map_free(&src->index);
    rs_warc_source_free(src->warc);
    rs_free(src->path);
    memset(src, 0, sizeof *src);
}

void rs_source_release(rs_source *src)
{
    if (src->has_dirfd) close(src->dirfd);
    src->has_dirfd = 0;
    free_docs(src);
    rs_map_free(&src->index);
    rs_warc_source_free(src->warc);
    src->warc = NULL;
}

/* ===== Directories ===== */

/*
 * Splits a directory entry name (".txt" already removed) into a canonical
 * index key "host" or "host:port". @return 1 on success, 0 if not a host.
 */
static int dir_key(const char *name, size_t len, char *key, size_t *key_len)
{
    size_t host_len = len;
    const char *port = NULL;
    size_t port_len = 0;
    if (len > 0 && name[0] == '[') {
        const char *rb = memchr(name, ']', len);
        if (rb == NULL) return 0;
        host_len = (size_t)(rb - name) + 1;
        if (host_len < len) {
            if (name[host_len] != ':' && name[host_len] != '_') return 0;
            port = name + host_len + 1;
            port_len = len - host_len - 1;
        }
    } else {
        const char *colon = memchr(name, ':', len);
        if (colon != NULL) {
            host_len = (size_t)(colon - name);
            port = colon + 1;
            port_len = len - host_len - 1;
        } else {
            /* HOST_PORT: a trailing "_digits" (protego's test-data naming). */
            size_t i = len;
            while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') i--;
            if (i > 1 && i < len && name[i - 1] == '_') {
                host_len = i - 1;
                port = name + i;
                port_len = len - i;
            }
        }
    }
    uint32_t pv = 0;
    if (port != NULL) {
        if (port_len == 0 || port_len > 5) return 0;
        for (size_t i = 0; i < port_len; i++) {
            if (port[i] < '0' || port[i] > '9') return 0;
            pv = pv * 10 + (uint32_t)(port[i] - '0');
        }
        if (pv == 0 || pv > 65535) return 0;
    }
    size_t n = 0;
    if (rs_host_canon(name, host_len, key, RS_ORIGIN_MAX, &n) != RS_ORIGIN_OK) return 0;
    if (port != NULL) n += (size_t)snprintf(key + n, 8, ":%u", (unsigned)pv);
    *key_len = n;
    return 1;
}

static int is_regular(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static rs_status index_dir(rs_sites *s, rs_source *src, uint32_t index)
{
    DIR *d = opendir(src->path);
    if (d == NULL) {
        rs_sites_seterr(s, "%s: cannot open robots directory: %s", src->path, strerror(errno));
        return RS_ERR_IO;
    }
    rs_status st = RS_OK;
    const size_t dir_len = strlen(src->path);
    rs_buf pb = {0};    /* "dir/" + the entry's name; copied into the source's arena when kept */
    if ((st = rs_buf_append(&pb, src->path, dir_len)) != RS_OK || (st = rs_buf_append(&pb, "/", 1)) != RS_OK)
        goto out;
    for (;;) {
        errno = 0;
        const struct dirent *de = readdir(d);
        if (de == NULL) break;
        const char *name = de->d_name;
        size_t len = strlen(name);
        if (name[0] == '.' || ends_with(name, len, ".tsv")) {
            if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0) s->stats.dir_skipped++;
            continue;
        }
        st = entry_path(&pb, dir_len + 1, name, len, NULL);
        if (st != RS_OK) goto out;
        struct stat sb;
        int usable;
#ifdef DT_REG
        if (de->d_type == DT_REG) {       /* a regular file: no stat (symlinks are followed below) */
            usable = 1;
            sb.st_mode = S_IFREG;
        } else
#endif
            usable = fstatat(dirfd(d), name, &sb, 0) == 0;
        if (usable && S_ISDIR(sb.st_mode)) {
            st = entry_path(&pb, dir_len + 1, name, len, "/robots.txt");
            if (st != RS_OK) goto out;
            usable = is_regular(pb.ptr);
        } else if (usable && !S_ISREG(sb.st_mode)) {
            usable = 0;
        } else {
            /* HOST.txt.gz, HOST.txt.zst (and HOST.gz, HOST.zst): compressed files. */
            if (ends_with(name, len, ".gz")) len -= 3;
            else if (ends_with(name, len, ".zst")) len -= 4;
            if (ends_with(name, len, ".txt")) len -= 4;
        }
        char key[RS_ORIGIN_MAX + 8];
        size_t key_len = 0;
        if (!usable || !dir_key(name, len, key, &key_len)) {
            s->stats.dir_skipped++;
            continue;
        }
        const uint64_t h = rs_map_hash(key, key_len);
        rs_map_entry *e = rs_map_find(&src->index, h, key, key_len);
        if (e != NULL) {
            /* Same host and port twice: the name that sorts first wins. */
            rs_doc *old = e->value;
            s->stats.dir_duplicates++;
            if (strcmp(pb.ptr + dir_len + 1, old->path + old->name_off) >= 0) continue;
            /* In place when it fits; else a new copy (the old one stays in the arena). */
            if (strlen(old->path) >= pb.len) {
                memcpy(old->path, pb.ptr, pb.len + 1);
            } else {
                char *path = rs_arena_strndup(&src->arena, pb.ptr, pb.len);
                if (path == NULL) { st = RS_ERR_NOMEM; goto out; }
                old->path = path;
            }
            continue;
        }
        char *path = rs_arena_strndup(&src->arena, pb.ptr, pb.len);
        if (path == NULL) { st = RS_ERR_NOMEM; goto out; }
        rs_doc *doc = doc_new(src, index, RS_REASON_NO_MATCH, 200, path);
        if (doc == NULL) { st = RS_ERR_NOMEM; goto out; }
        doc->name_off = dir_len + 1;
        doc->flags |= RS_DOC_REGULAR;   /* usable: a regular file (DT_REG, stat or is_regular) */
        st = doc_index(src, doc, h, key, key_len);
        if (st != RS_OK) goto out;
        s->stats.dir_entries++;
    }
    if (errno != 0) {
        rs_sites_seterr(s, "%s: cannot list robots directory: %s", src->path, strerror(errno));
        st = RS_ERR_IO;
    }
out:
    /* Kept for reading the files by name (openat: no walk of the directory's path). */
    if (st == RS_OK) {
        src->dirfd = open(src->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        src->has_dirfd = src->dirfd >= 0;
    }
    rs_buf_free(&pb);
    closedir(d);
    return st;
}

/* ===== Manifests ===== */

static rs_status read_all(rs_sites *s, const char *path, rs_buf *b)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        rs_sites_seterr(s, "%s: cannot open robots manifest: %s", path, strerror(errno));
        return RS_ERR_IO;
    }
    rs_status st = RS_OK;
    for (;;) {
        st = rs_buf_reserve(b, 65536);
        if (st != RS_OK) break;
        const size_t n = fread(b->ptr + b->len, 1, b->cap - b->len, f);
        b->len += n;
        if (n == 0) {
            if (ferror(f)) {
                rs_sites_seterr(s, "%s: cannot read robots manifest: %s", path, strerror(errno));
                st = RS_ERR_IO;
            }
            break;
        }
    }
    fclose(f);
    return st;
}

#define MANIFEST_ERR(...) do { \
        rs_sites_seterr(s, __VA_ARGS__); st = RS_ERR_CORRUPT; goto out; } while (0)

static rs_status index_manifest(rs_sites *s, rs_source *src, uint32_t index)
{
    rs_buf b = {0};
    rs_status st = read_all(s, src->path, &b);
    if (st != RS_OK) goto out;
    const char *slash = strrchr(src->path, '/');
    const size_t dir_len = slash ? (size_t)(slash - src->path) : 1;
    const char *dir = slash ? src->path : ".";
    const char *mf = src->path;

    size_t pos = 0;
    uint32_t lineno = 0;
    while (pos < b.len) {
        const char *line = b.ptr + pos;
        const char *nl = memchr(line, '\n', b.len - pos);
        size_t len = nl ? (size_t)(nl - line) : b.len - pos;
        pos += len + (nl != NULL);
        lineno++;
        if (len > 0 && line[len - 1] == '\r') len--;
        size_t k = 0;
        while (k < len && (line[k] == ' ' || line[k] == '\t')) k++;
        if (k == len || line[k] == '#') continue;

        /* Fields: ORIGIN TAB STATUS [TAB FILE]. */
        const char *f[4];
        size_t fl[4], nf = 0, start = 0;
        for (size_t i = 0; i <= len; i++) {
            if (i < len && line[i] != '\t') continue;
            if (nf == 4) break;
            f[nf] = line + start;
            fl[nf] = i - start;
            nf++;
            start = i + 1;
        }
        if (nf < 2 || nf > 3)
            MANIFEST_ERR("%s:%u: expected ORIGIN<TAB>STATUS<TAB>FILE, got %zu field%s",
                         mf, lineno, nf, nf == 1 ? "" : "s");
        if (memchr(line, '\0', len) != NULL) MANIFEST_ERR("%s:%u: NUL byte in line", mf, lineno);

        /* ORIGIN: "scheme://host[:port]" with an optional "/" or "/robots.txt". */
        const char *sep = NULL;
        for (size_t i = 0; i + 3 <= fl[0]; i++)
            if (memcmp(f[0] + i, "://", 3) == 0) { sep = f[0] + i; break; }
        size_t tail = 0;
        if (sep != NULL) {
            tail = (size_t)(sep - f[0]) + 3;
            while (tail < fl[0] && f[0][tail] != '/' && f[0][tail] != '?' &&
                   f[0][tail] != '#' && f[0][tail] != ';')
                tail++;
        }
        const char *rest = f[0] + tail;
        const size_t rest_len = fl[0] - tail;
        if (sep == NULL || !(rest_len == 0 || (rest_len == 1 && rest[0] == '/') ||
                             (rest_len == 11 && memcmp(rest, "/robots.txt", 11) == 0)))
            MANIFEST_ERR("%s:%u: ORIGIN must be scheme://host[:port] (or its /robots.txt URL): '%.*s'",
                         mf, lineno, (int)RS_MIN(fl[0], 200), f[0]);
        char odst[RS_ORIGIN_MAX];
        rs_origin o;
        st = rs_origin_parse(f[0], fl[0], odst, sizeof odst, &o);
        if (st != RS_OK) goto out;
        if (o.error != RS_ORIGIN_OK)
            MANIFEST_ERR("%s:%u: bad origin '%.*s' (%s)", mf, lineno, (int)RS_MIN(fl[0], 200), f[0],
                         rs_origin_error_str(o.error));

        /* STATUS: 200..599 or "error". */
        uint32_t status = 0;
        rs_reason outcome;
        if (rs_ieq(f[1], fl[1], "error", 5)) {
            outcome = RS_REASON_UNREACHABLE;
        } else {
            int ok = fl[1] == 3;
            for (size_t i = 0; ok && i < 3; i++) {
                if (f[1][i] < '0' || f[1][i] > '9') ok = 0;
                else status = status * 10 + (uint32_t)(f[1][i] - '0');
            }
            if (!ok || status < 200 || status > 599)
                MANIFEST_ERR("%s:%u: bad STATUS '%.*s' (an HTTP status 200..599 or 'error')",
                             mf, lineno, (int)RS_MIN(fl[1], 50), f[1]);
            outcome = status < 300 ? RS_REASON_NO_MATCH
                    : status < 500 ? RS_REASON_UNAVAILABLE : RS_REASON_UNREACHABLE;
        }

        /* FILE: required for 2xx; optional ("" or "-") otherwise. */
        const int has_file = nf == 3 && fl[2] > 0 && !(fl[2] == 1 && f[2][0] == '-');
        if (outcome == RS_REASON_NO_MATCH && !has_file)
            MANIFEST_ERR("%s:%u: STATUS %u needs a FILE", mf, lineno, status);

        const uint64_t h = rs_map_hash(o.origin.ptr, o.origin.len);
        if (rs_map_find(&src->index, h, o.origin.ptr, o.origin.len) != NULL) continue; /* first wins */
        char *path = NULL;
        if (has_file) {
            char name[4096];
            if (fl[2] >= sizeof name) MANIFEST_ERR("%s:%u: FILE name too long", mf, lineno);
            memcpy(name, f[2], fl[2]);
            name[fl[2]] = '\0';
            if (name[0] == '/') {
                path = rs_arena_strndup(&src->arena, name, fl[2]);
            } else {
                path = rs_arena_alloc_aligned(&src->arena, dir_len + 1 + fl[2] + 1, 1);
                if (path != NULL) {
                    memcpy(path, dir, dir_len);
                    path[dir_len] = '/';
                    memcpy(path + dir_len + 1, name, fl[2] + 1);
                }
            }
            if (path == NULL) { st = RS_ERR_NOMEM; goto out; }
        }
        rs_doc *doc = doc_new(src, index, outcome, status, path);
        if (doc == NULL) { st = RS_ERR_NOMEM; goto out; }
        st = doc_index(src, doc, h, o.origin.ptr, o.origin.len);
        if (st != RS_OK) goto out;
        s->stats.manifest_lines++;
    }
out:
    rs_buf_free(&b);
    return st;
}

/* ===== Sources ===== */

rs_status rs_source_open(rs_sites *s, rs_source *src, uint32_t index, const char *path)
{
    memset(src, 0, sizeof *src);
    const size_t len = strlen(path);
    src->path = rs_malloc(len + 1);
    RS_RETURN_IF(src->path == NULL, RS_ERR_NOMEM);
    memcpy(src->path, path, len + 1);
    for (size_t n = len; n > 1 && src->path[n - 1] == '/'; n--) src->path[n - 1] = '\0';
    RS_FORWARD(rs_map_init(&src->index, 16));

    struct stat st;
    if (stat(path, &st) != 0) {
        rs_sites_seterr(s, "%s: cannot open robots source: %s", path, strerror(errno));
        return RS_ERR_IO;
    }
    if (S_ISDIR(st.st_mode)) {
        src->kind = RS_SOURCE_DIR;
        return index_dir(s, src, index);
    }
    if (ends_with(path, len, ".tsv") && S_ISREG(st.st_mode)) {
        src->kind = RS_SOURCE_MANIFEST;
        return index_manifest(s, src, index);
    }
    /* A WARC file, detected from the content; a *.warc[.gz|.zst] name must be one. */
    if (S_ISREG(st.st_mode)) {
        rs_warc *w = NULL;
        const rs_status ws = rs_warc_open(path, &w);
        if (ws == RS_OK) {
            src->kind = RS_SOURCE_WARC;
            if (s->opts.stream) {          /* indexed by rs_sites_each (each.c) */
                rs_warc_free(w);
                return RS_OK;
            }
            return rs_warc_source_index(s, src, index, w);
        }
        const int named = ends_with(path, len, ".warc") || ends_with(path, len, ".warc.gz") ||
                          ends_with(path, len, ".warc.zst");
        if (ws != RS_ERR_CORRUPT || named) {
            rs_sites_seterr(s, "robots source %s", rs_warc_errmsg(w));
            rs_warc_free(w);
            return ws == RS_OK ? RS_ERR_CORRUPT : ws;
        }
        rs_warc_free(w);
    }
    src->kind = RS_SOURCE_FILE;
    char *copy = rs_arena_strndup(&src->arena, path, len);
    RS_RETURN_IF(copy == NULL, RS_ERR_NOMEM);
    rs_doc *doc = doc_new(src, index, RS_REASON_NO_MATCH, 200, copy);
    RS_RETURN_IF(doc == NULL, RS_ERR_NOMEM);
    doc->key = "*";
    doc->key_len = 1;
    return RS_OK;
}

/* Writes ":PORT" (decimal, as snprintf "%u" would; at most 11 bytes), no NUL. @return its length. */
static size_t put_port(char *dst, uint32_t port)
{
    char digits[10];
    size_t n = 0;
    do {
        digits[n++] = (char)('0' + port % 10);
        port /= 10;
    } while (port != 0);
    dst[0] = ':';
    for (size_t i = 0; i < n; i++) dst[1 + i] = digits[n - 1 - i];
    return n + 1;
}

static rs_doc *find_doc(rs_source *src, const char *key, size_t len)
{
    const rs_map_entry *e = rs_map_find(&src->index, rs_map_hash(key, len), key, len);
    return e ? e->value : NULL;
}

rs_doc *rs_sources_resolve(rs_sites *s, const rs_origin *o)
{
    rs_doc *mem = rs_sources_resolve_memory(s, o);
    return mem != NULL ? mem : rs_sources_resolve_opened(s, o);
}

rs_doc *rs_sources_resolve_memory(rs_sites *s, const rs_origin *o)
{
    return find_doc(&s->memory, o->origin.ptr, o->origin.len);
}

rs_doc *rs_sources_resolve_opened(rs_sites *s, const rs_origin *o)
{
    const int http = (o->scheme.len == 4 && memcmp(o->scheme.ptr, "http", 4) == 0);
    const int https = (o->scheme.len == 5 && memcmp(o->scheme.ptr, "https", 5) == 0);
    for (size_t i = 0; i < s->nsources; i++) {
        rs_source *src = &s->sources[i];
        rs_doc *d = NULL;
        switch (src->kind) {
        case RS_SOURCE_FILE:
            d = src->docs[0];
            break;
        case RS_SOURCE_MANIFEST:
        case RS_SOURCE_WARC:
            d = find_doc(src, o->origin.ptr, o->origin.len);
            break;
        case RS_SOURCE_DIR:
            if (!http && !https) break;
            {
                char key[RS_ORIGIN_MAX + 8];
                memcpy(key, o->host.ptr, o->host.len);
                const size_t n = o->host.len + put_port(key + o->host.len, o->port);
                d = find_doc(src, key, n);
                if (d == NULL && o->port == (http ? 80u : 443u))
                    d = find_doc(src, o->host.ptr, o->host.len);
            }
            break;
        case RS_SOURCE_KIND_MEMORY:
            break;
        }
        if (d != NULL) return d;
    }
    return NULL;
}

/* Compressed robots files are read whole up to this size, then decoded. */
#define MAX_COMPRESSED_BODY ((size_t)64 << 20)

/* O_NOATIME skips the access-time update (and its check) on every read; it is
 * refused (EPERM) on files of another owner unless privileged: then it is
 * dropped for the rest of the process. */
#ifdef O_NOATIME
static _Atomic int noatime_refused;
#endif

static int open_body(int dirfd, const char *path)
{
    int flags = O_RDONLY | O_CLOEXEC;
#ifdef O_NOATIME
    if (!atomic_load_explicit(&noatime_refused, memory_order_relaxed)) {
        const int fd = openat(dirfd, path, flags | O_NOATIME);
        if (fd >= 0 || errno != EPERM) return fd;
        atomic_store_explicit(&noatime_refused, 1, memory_order_relaxed);
    }
#endif
    return openat(dirfd, path, flags);
}

/*
 * One read(2) loop, no stdio: a robots file is read once per site, and at
 * 100k sites every system call counts. A file known to be regular (a
 * directory entry, DT_REG or stat at indexing: RS_DOC_REGULAR) is read with
 * no fstat: into @buf (a caller's reused buffer, most files fit) by one
 * read, whose short count is the end of a regular file (open, read, close).
 * Else a regular file is sized by fstat: one exact buffer and, as a short
 * read of a regular file is its end, usually one read (open, fstat, read,
 * close). *body is @buf when the file fit in it, else a new buffer the
 * caller frees.
 */
static rs_status read_body_at(rs_sites *s, int dirfd, const char *rel, const char *path, int regular,
                              char *ubuf, size_t ucap, char **body, size_t *size, int *compressed)
{
    *compressed = 0;
    const int fd = open_body(dirfd, rel);
    if (fd < 0) {
        if (s) rs_sites_seterr(s, "%s: cannot open robots file: %s", path, strerror(errno));
        return RS_ERR_IO;
    }
    size_t cap = 4096, len = 0, limit = RS_ROBOTS_MAX_BODY;
    size_t known = SIZE_MAX;           /* a regular file's size (fstat), or unknown */
    char *buf = NULL;
    if (regular && ubuf != NULL && ucap > 0) {
        buf = ubuf;
        cap = RS_MIN(ucap, limit);
    } else {
        struct stat sb;
        if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size >= 0) {
            known = (size_t)sb.st_size;
            regular = 1;
            /* +1: a file that grew since is still read to its end; never more than
             * the limit (a longer file is cut there, as before: not one byte more). */
            cap = RS_MIN(known + 1, limit);
        } else {
            regular = 0;
        }
        if (ubuf != NULL && cap <= ucap) {
            buf = ubuf;
            cap = ucap;
        }
    }
    rs_status st = RS_OK;
    int sniffed = 0;
    rs_compression comp = RS_COMPRESSION_NONE;
    if (buf == NULL && (buf = rs_malloc(cap)) == NULL) { st = RS_ERR_NOMEM; goto out; }
    while (len < limit) {
        if (len == cap) {
            const size_t ncap = RS_MIN(cap * 4, limit);
            char *nb;
            if (buf == ubuf) {
                nb = rs_malloc(ncap);
                if (nb != NULL) memcpy(nb, buf, len);
            } else {
                nb = rs_realloc(buf, ncap);
            }
            if (nb == NULL) { st = RS_ERR_NOMEM; goto out; }
            buf = nb;
            cap = ncap;
        }
        const size_t want = RS_MIN(cap, limit) - len;
        const ssize_t n = read(fd, buf + len, want);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            if (s) rs_sites_seterr(s, "%s: cannot read robots file: %s", path, strerror(errno));
            st = RS_ERR_IO;
            break;
        }
        len += (size_t)n;
        if (!sniffed && (len >= 4 || n == 0)) {
            sniffed = 1;
            comp = rs_sniff_compression(buf, len);
            if (comp != RS_COMPRESSION_NONE) limit = MAX_COMPRESSED_BODY;
        }
        /* End of file: nothing read, a short read of a regular file, or (fstat)
         * a short read at the size it gave. */
        if (n == 0 || (regular && (size_t)n < want) || (len == known && len < cap)) break;
    }
    if (st == RS_OK && comp != RS_COMPRESSION_NONE) {
        rs_buf out = {0};
        st = rs_decompress(comp, buf, len, RS_ROBOTS_MAX_BODY, &out);
        if (buf != ubuf) rs_free(buf);
        buf = out.ptr;
        len = out.len;
        if (st == RS_ERR_CORRUPT && s)
            rs_sites_seterr(s, "robots file %s: damaged or truncated %s data", path, rs_compression_name(comp));
        if (st == RS_OK) {
            *compressed = 1;
            if (buf == NULL) buf = rs_malloc(1);
            if (buf == NULL) st = RS_ERR_NOMEM;
        }
    }
out:
    close(fd);
    if (st != RS_OK) {
        if (buf != ubuf) rs_free(buf);
        return st;
    }
    *body = buf;
    *size = len;
    return RS_OK;
}

rs_status rs_read_body_ex(rs_sites *s, const char *path, char **body, size_t *size, int *compressed)
{
    return read_body_at(s, AT_FDCWD, path, path, 0, NULL, 0, body, size, compressed);
}

rs_status rs_read_doc_body_buf(rs_sites *s, const rs_source *src, const rs_doc *d, char *buf,
                               size_t cap, char **body, size_t *size, int *compressed)
{
    const int regular = (d->flags & RS_DOC_REGULAR) != 0;
    if (src->kind == RS_SOURCE_DIR && src->has_dirfd && d->name_off > 0)
        return read_body_at(s, src->dirfd, d->path + d->name_off, d->path, regular, buf, cap, body,
                            size, compressed);
    return read_body_at(s, AT_FDCWD, d->path, d->path, regular, buf, cap, body, size, compressed);
}

rs_status rs_read_doc_body(rs_sites *s, const rs_source *src, const rs_doc *d, char **body,
                           size_t *size, int *compressed)
{
    return rs_read_doc_body_buf(s, src, d, NULL, 0, body, size, compressed);
}

rs_status rs_read_body(rs_sites *s, const char *path, char **body, size_t *size)
{
    int compressed;
    RS_FORWARD(rs_read_body_ex(s, path, body, size, &compressed));
    if (compressed) s->wstats.compressed_files++;
    return RS_OK;
}

/* ===== Bodies from memory ===== */

rs_status rs_memory_source_init(rs_source *src)
{
    memset(src, 0, sizeof *src);
    src->kind = RS_SOURCE_KIND_MEMORY;
    return rs_map_init(&src->index, 16);
}

rs_status rs_sites_add_body(rs_sites *s, const char *url, size_t url_len, uint32_t http_status,
                            const void *body, size_t size)
{
    RS_RETURN_IF(s == NULL, RS_ERR_USAGE);
    if ((url == NULL && url_len > 0) || (body == NULL && size > 0)) {
        rs_sites_seterr(s, "rs_sites_add_body: NULL pointer with a length");
        return RS_ERR_USAGE;
    }
    if (http_status != 0 && (http_status < 200 || http_status > 599)) {
        rs_sites_seterr(s, "rs_sites_add_body: HTTP status %u is not 0 or 200..599",
                        (unsigned)http_status);
        return RS_ERR_USAGE;
    }
    char odst[RS_ORIGIN_MAX];
    rs_origin o;
    RS_FORWARD(rs_origin_parse(url ? url : "", url_len, odst, sizeof odst, &o));
    if (o.error != RS_ORIGIN_OK) {
        rs_sites_seterr(s, "rs_sites_add_body: '%.*s' has no origin (%s)", (int)RS_MIN(url_len, 200),
                        url ? url : "", rs_origin_error_str(o.error));
        return RS_ERR_USAGE;
    }
    const rs_reason outcome = http_status >= 200 && http_status < 300 ? RS_REASON_NO_MATCH
                            : http_status >= 300 && http_status < 500 ? RS_REASON_UNAVAILABLE
                            : RS_REASON_UNREACHABLE;
    rs_ruleset *rules = NULL;
    if (outcome == RS_REASON_NO_MATCH)
        RS_FORWARD(rs_ruleset_parse(body, size, &rules));

    pthread_mutex_lock(&s->lock);
    rs_status st = RS_OK;
    rs_doc *doc = doc_new(&s->memory, RS_SOURCE_MEMORY, outcome, http_status, NULL);
    if (doc == NULL) {
        rs_ruleset_free(rules);
        st = RS_ERR_NOMEM;
        goto out;
    }
    doc->ruleset = rules;
    doc->loaded = 1;
    if (rules != NULL) s->stats.bodies_parsed++;
    const uint64_t h = rs_map_hash(o.origin.ptr, o.origin.len);
    rs_map_entry *e = rs_map_find(&s->memory.index, h, o.origin.ptr, o.origin.len);
    if (e != NULL) {
        e->value = doc;   /* the old document stays owned by s->memory until rs_sites_free */
    } else {
        st = rs_map_insert(&s->memory.index, h, o.origin.ptr, o.origin.len, doc);
        if (st != RS_OK) goto out;  /* doc is owned by s->memory: freed with it */
    }
    /* An origin already looked up keeps its cached document: point it here. */
    rs_map_entry *c = rs_map_find(&s->origins, h, o.origin.ptr, o.origin.len);
    if (c != NULL) c->value = doc;
out:
    pthread_mutex_unlock(&s->lock);
    return st;
}

rs_status rs_doc_body(rs_sites *s, const rs_doc *d, char **body, size_t *size)
{
    if (d->source >= s->nsources) {  /* RS_SOURCE_MEMORY: parsed when added, no body kept */
        rs_sites_seterr(s, "rs_doc_body: a body from memory is not kept");
        return RS_ERR_USAGE;
    }
    const rs_source *src = &s->sources[d->source];
    if (src->kind == RS_SOURCE_WARC) return rs_warc_source_body(s, src, d, body, size);
    int compressed;
    RS_FORWARD(rs_read_doc_body(s, src, d, body, size, &compressed));
    if (compressed) s->wstats.compressed_files++;
    return RS_OK;
}
