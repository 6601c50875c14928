/*
 * split.c - rs_shard_split (`robotscan shard`): splits URL lists or access
 * logs into N zstd shards by a stable hash of each line's site
 * (rs_shard_of_origin), so that every URL or hit of a site lands in one
 * shard, and writes beside each shard the input position of each of its
 * lines (SPEC 12, docs/scale-out.md).
 *
 * DIR/shard-K.zst     the lines of shard K (every input line goes to exactly
 *                     one shard: blank, comment and malformed lines to shard
 *                     0, so that the shards' counts add up to one run's)
 * DIR/shard-K.pos     one little-endian uint64 per line of shard K: its
 *                     position in the whole input (1-based, counting every
 *                     line of every INPUT in order)
 *                     URL lines without an origin go to shard 0; log lines
 *                     without a site (or host) go with the line before them
 * DIR/shard-K.robots  with robots sources: the --robots arguments for shard
 *                     K, one a line (a single file as given; a directory or a
 *                     manifest as a manifest DIR/robots-K/S<i>.tsv of only
 *                     shard K's sites, pointing at the original files; a
 *                     WARC as DIR/robots-K/S<i>.warc.gz with only the captures
 *                     shard K's sites use: split_warc.c)
 * DIR/shards.tsv      kind, n, lines and the inputs
 *
 * The site of a log line is the one `robotscan logs` finds
 * (rs_log_origin_key, src/log/site_origin.c). Prints nothing: errors go to
 * the caller's buffer, warnings to its callback.
 */
#include "shard/shard.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <zstd.h>

#define FLUSH_AT ((size_t)1 << 20)

/* ===== Messages ===== */

static void record(rs_shard_diag *d, rs_status st, const char *fmt, va_list ap)
{
    if (d->st != RS_OK) return;
    d->st = st;
    if (d->err && d->err_cap) vsnprintf(d->err, d->err_cap, fmt, ap);
}

int rs_shard_fail(rs_shard_diag *d, rs_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    record(d, st, fmt, ap);
    va_end(ap);
    return -1;
}

rs_status rs_shard_error(rs_shard_diag *d, rs_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    record(d, st, fmt, ap);
    va_end(ap);
    return d->st;
}

rs_status rs_shard_status(const rs_shard_diag *d)
{
    return d->st != RS_OK ? d->st : RS_ERR_IO;
}

void rs_shard_warn(rs_shard_diag *d, const char *fmt, ...)
{
    if (d->warn == NULL) return;
    char msg[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    d->warn(d->warn_ctx, msg);
}

/* ===== Lines into shards ===== */

typedef struct {
    FILE *data, *pos;
    ZSTD_CCtx *cc;
    rs_outbuf buf;     /* lines not yet compressed */
    rs_outbuf zbuf;    /* compressed staging */
    uint64_t *pbuf;
    size_t np;
    uint64_t lines;
    uint64_t fields_gen;  /* the #Fields: line this shard's lines are read under (w3c) */
    uint64_t copies;      /* #Fields: lines copied into this shard (position 0) */
} shard_out;

typedef struct {
    uint32_t n;
    const char *dir;
    shard_out *s;
    int logs;
    rs_logparser *parser;
    const char *host, *scheme;
    char last[320];           /* "SCHEME HOST PORT" of the last log line, and its shard */
    size_t last_len;
    uint32_t last_site;       /* shard of the cached key, or NO_SITE */
    uint32_t last_shard;      /* shard of the last line with a site */
    int stateful;             /* w3c, cloudfront, auto: in-band #Fields: lines */
    rs_outbuf fields;         /* the current #Fields: line, as it was in the input */
    uint64_t fields_gen;      /* how many #Fields: lines so far */
    rs_shard_diag *d;
} sharder;

#define NO_SITE UINT32_MAX /* log_shard_of: the line's host is no valid site */

static int shard_flush(sharder *sh, uint32_t k, int end)
{
    shard_out *o = &sh->s[k];
    ZSTD_inBuffer in = { o->buf.ptr, o->buf.len, 0 };
    const size_t cap = ZSTD_CStreamOutSize();
    if (o->zbuf.cap < cap) {
        o->zbuf.len = 0;
        if (rs_outbuf_reserve(&o->zbuf, cap) != RS_OK) return rs_shard_fail(sh->d, RS_ERR_NOMEM, "out of memory");
    }
    for (;;) {
        ZSTD_outBuffer out = { o->zbuf.ptr, cap, 0 };
        const size_t r = ZSTD_compressStream2(o->cc, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);
        if (ZSTD_isError(r)) return rs_shard_fail(sh->d, RS_ERR_IO, "shard %u: zstd: %s", k, ZSTD_getErrorName(r));
        if (out.pos && fwrite(o->zbuf.ptr, 1, out.pos, o->data) != out.pos)
            return rs_shard_fail(sh->d, RS_ERR_IO, "%s: write failed: %s", sh->dir, strerror(errno));
        if (end ? r == 0 : in.pos == in.size) break;
    }
    o->buf.len = 0;
    if (o->np) {
        if (fwrite(o->pbuf, sizeof *o->pbuf, o->np, o->pos) != o->np)
            return rs_shard_fail(sh->d, RS_ERR_IO, "%s: write failed: %s", sh->dir, strerror(errno));
        o->np = 0;
    }
    return 0;
}

static int shard_put(sharder *sh, uint32_t k, const char *p, size_t n, uint64_t position)
{
    shard_out *o = &sh->s[k];
    if (rs_outbuf_append(&o->buf, p, n) != RS_OK || rs_outbuf_append(&o->buf, "\n", 1) != RS_OK)
        return rs_shard_fail(sh->d, RS_ERR_NOMEM, "out of memory");
    o->pbuf[o->np++] = position; /* little-endian machines only: checked in rs_shard_split */
    o->lines++;
    if (o->buf.len >= FLUSH_AT || o->np == FLUSH_AT / 8) return shard_flush(sh, k, 0);
    return 0;
}

/* The shard of a log site: its origin as `robotscan logs` finds it (rs_log_origin_key). */
static uint32_t log_shard_of(const sharder *sh, rs_str scheme, rs_str host, rs_str port)
{
    char buf[RS_ORIGIN_MAX];
    rs_origin o;
    if (!rs_log_origin(sh->scheme, scheme, host, port, buf, sizeof buf, &o)) return NO_SITE;
    return rs_shard_of_origin(o.origin.ptr, o.origin.len, sh->n);
}

/* The shard of a log line. */
static uint32_t log_shard(sharder *sh, const char *line, size_t len)
{
    rs_logrec rec;
    /* A line without a site (blank, malformed) goes with the line before it: logs
     * judges a file's format by its first lines, so a shard must not start with
     * a run of bad lines that were scattered in the input. */
    if (rs_logparser_parse(sh->parser, line, len, &rec) != RS_LOGLINE_OK) return sh->last_shard;
    rs_str host = rec.host;
    if (host.len == 0 && sh->host) host = (rs_str){ sh->host, strlen(sh->host) };
    if (host.len == 0) return sh->last_shard;
    const rs_str port = rec.port, scheme = rec.scheme;
    /* most lines repeat the previous line's "scheme host port" */
    const size_t kl = scheme.len + host.len + port.len + 2;
    if (sh->last_len && kl == sh->last_len && memcmp(sh->last, scheme.ptr, scheme.len) == 0
        && memcmp(sh->last + scheme.len + 1, host.ptr, host.len) == 0
        && memcmp(sh->last + scheme.len + host.len + 2, port.ptr, port.len) == 0)
        return sh->last_site == NO_SITE ? sh->last_shard : (sh->last_shard = sh->last_site);
    const uint32_t k = log_shard_of(sh, scheme, host, port);
    sh->last_site = k;
    if (k != NO_SITE) sh->last_shard = k;
    if (kl <= sizeof sh->last) {
        memcpy(sh->last, scheme.ptr, scheme.len);
        sh->last[scheme.len] = ' ';
        memcpy(sh->last + scheme.len + 1, host.ptr, host.len);
        sh->last[scheme.len + 1 + host.len] = ' ';
        memcpy(sh->last + scheme.len + host.len + 2, port.ptr, port.len);
        sh->last_len = kl;
    } else {
        sh->last_len = 0;
    }
    return sh->last_shard;
}

/* W3C-style logs (w3c, cloudfront, auto): a line is read under the last `#Fields:` line
 * before it. Before any other line goes to shard @k, the current #Fields: line is copied
 * into @k unless @k already holds it (position 0 in the .pos file: no record comes from
 * it); a #Fields: line itself goes where log_shard sends it and counts as held there.
 * `logs` on each shard then reads every line with the columns one run reads it with. The
 * copies are counted in shards.tsv (`header_copies`): `merge --stats --shards DIR` takes
 * them off `lines` and `blank`, where a run counts a header line. */
static int fields_before(sharder *sh, uint32_t k, const char *line, size_t len)
{
    size_t i = 0;
    while (i < len && (line[i] == ' ' || line[i] == '\t')) i++;
    if (len - i >= 8 && strncasecmp(line + i, "#Fields:", 8) == 0) {
        sh->fields.len = 0;
        if (rs_outbuf_append(&sh->fields, line, len) != RS_OK)
            return rs_shard_fail(sh->d, RS_ERR_NOMEM, "out of memory");
        sh->s[k].fields_gen = ++sh->fields_gen;
        return 0;
    }
    if (i < len && line[i] == '#') return 0; /* #Version, #Date...: read as directives anywhere */
    shard_out *o = &sh->s[k];
    if (o->fields_gen == sh->fields_gen) return 0;
    o->fields_gen = sh->fields_gen;
    o->copies++;
    return shard_put(sh, k, sh->fields.ptr, sh->fields.len, 0);
}

/* Splits one input; @position: lines of the inputs before it. */
static int shard_input(sharder *sh, const char *path, uint64_t *position)
{
    rs_reader *r = NULL;
    const rs_status ost = rs_reader_open(path, NULL, &r);
    if (ost != RS_OK) {
        rs_shard_fail(sh->d, ost, "%s", r ? rs_reader_errmsg(r) : path);
        rs_reader_free(r);
        return -1;
    }
    rs_block b;
    rs_status st;
    uint64_t last = 0;
    int rc = 0;
    while (rc == 0 && (st = rs_reader_next_block(r, &b)) == RS_OK) {
        rs_lines it;
        rs_line ln;
        /* auto: settled once, on the original input, as `logs` does (its first block) */
        if (sh->parser && b.len) (void)rs_logparser_detect(sh->parser, b.ptr, b.len);
        rs_lines_init(&it, &b);
        while (rc == 0 && rs_line_next(&it, &ln)) {
            const uint64_t pos = *position + ln.number;
            last = ln.number;
            if (ln.oversized) {
                /* kept as an oversized line, so the shard's run counts it as malformed */
                char *big = rs_malloc(ln.oversized);
                if (big == NULL) { rc = rs_shard_fail(sh->d, RS_ERR_NOMEM, "out of memory"); break; }
                memset(big, 'x', ln.oversized);
                rc = shard_put(sh, 0, big, ln.oversized, pos);
                rs_free(big);
                continue;
            }
            size_t len = ln.text.len;
            const uint32_t k = sh->logs ? log_shard(sh, ln.text.ptr, len)
                                        : rs_shard_of_url(ln.text.ptr, len, sh->n);
            if (sh->stateful) rc = fields_before(sh, k, ln.text.ptr, len);
            if (rc == 0) rc = shard_put(sh, k, ln.text.ptr, len, pos);
        }
    }
    *position += last;
    if (rc == 0 && st != RS_ERR_EOF) rc = rs_shard_fail(sh->d, st, "%s", rs_reader_errmsg(r));
    rs_reader_free(r);
    return rc;
}

/* ===== Robots sources ===== */

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int ends_with(const char *s, const char *suf)
{
    const size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

/* @p made absolute into @out (PATH_MAX bytes). @return 0, or an error in @d. */
static int abs_path(rs_shard_diag *d, const char *p, char *out)
{
    if (realpath(p, out) == NULL) return rs_shard_fail(d, RS_ERR_IO, "%s: %s", p, strerror(errno));
    return 0;
}

/* Opens DIR/robots-K/S<src>.tsv for every shard K and lists it in lists[K]. */
static int open_manifests(const sharder *sh, int src, FILE **lists, FILE **out)
{
    char p[PATH_MAX];
    for (uint32_t k = 0; k < sh->n; k++) {
        snprintf(p, sizeof p, "%s/robots-%04u", sh->dir, k);
        mkdir(p, 0777);
        snprintf(p, sizeof p, "%s/robots-%04u/S%d.tsv", sh->dir, k, src);
        out[k] = fopen(p, "w");
        if (out[k] == NULL) return rs_shard_fail(sh->d, RS_ERR_IO, "%s: %s", p, strerror(errno));
        fprintf(lists[k], "%s\n", p);
    }
    return 0;
}

/* Closes the @n files of @out (NULL entries skipped) and frees the array. */
static int close_all(const sharder *sh, FILE **out, int rc)
{
    for (uint32_t k = 0; out && k < sh->n; k++)
        if (out[k] && fclose(out[k]) != 0 && rc == 0)
            rc = rs_shard_fail(sh->d, RS_ERR_IO, "%s: write failed: %s", sh->dir, strerror(errno));
    rs_free(out);
    return rc;
}

typedef struct {
    const sharder *sh;
    FILE **out;
} dir_split;

/* One directory entry (its key serves http and https): a 200 line in its origins' shards. */
static int dir_entry(const char *key, size_t key_len, const char *path, void *ctx)
{
    const dir_split *ds = ctx;
    static const char *const SCHEMES[] = { "http", "https" };
    for (int j = 0; j < 2; j++) {
        char url[RS_ORIGIN_MAX + 16], buf[RS_ORIGIN_MAX];
        const int n = snprintf(url, sizeof url, "%s://%.*s/", SCHEMES[j], (int)key_len, key);
        rs_origin o;
        if (n < 0 || (size_t)n >= sizeof url || rs_origin_parse(url, (size_t)n, buf, sizeof buf, &o) != RS_OK
            || o.error != RS_ORIGIN_OK)
            continue;
        const uint32_t k = rs_shard_of_origin(o.origin.ptr, o.origin.len, ds->sh->n);
        fprintf(ds->out[k], "%.*s\t200\t%s\n", (int)o.origin.len, o.origin.ptr, path);
    }
    return 0;
}

/*
 * A directory source: DIR/robots-K/S<i>.tsv, a manifest with a 200 line per
 * origin of shard K that an entry serves (an entry serves http and https),
 * the entries listed by the library as the directory source reads them.
 */
static int split_dir(const sharder *sh, int src, const char *path, FILE **lists)
{
    char root[PATH_MAX];
    if (abs_path(sh->d, path, root) != 0) return -1;
    FILE **out = rs_calloc(sh->n, sizeof *out);
    int rc = out ? open_manifests(sh, src, lists, out) : rs_shard_fail(sh->d, RS_ERR_NOMEM, "out of memory");
    if (rc == 0) {
        dir_split ds = { sh, out };
        char err[1100] = "";
        const rs_status st = rs_robots_dir_list(root, dir_entry, &ds, err, sizeof err);
        if (st != RS_OK) rc = rs_shard_fail(sh->d, st, "%s", err);
    }
    return close_all(sh, out, rc);
}

/* The whole of a (manifest) file, in @data (rs_free). */
static int read_all(rs_shard_diag *d, const char *path, char **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL) return rs_shard_fail(d, RS_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 0;
    int rc = 0;
    for (;;) {
        if (*size == cap) {
            cap = cap ? cap * 2 : 65536;
            char *p = rs_realloc(*data, cap);
            if (p == NULL) { rc = rs_shard_fail(d, RS_ERR_NOMEM, "%s: cannot read: out of memory", path); break; }
            *data = p;
        }
        const size_t got = fread(*data + *size, 1, cap - *size, f);
        *size += got;
        if (got == 0) {
            if (ferror(f)) rc = rs_shard_fail(d, RS_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
            break;
        }
    }
    fclose(f);
    return rc;
}

/* A manifest: DIR/robots-K/S<i>.tsv with shard K's lines, FILE made absolute. */
static int split_manifest(const sharder *sh, int src, const char *path, FILE **lists)
{
    char *data = NULL;
    size_t size = 0;
    if (read_all(sh->d, path, &data, &size) != 0) {
        rs_free(data);
        return -1;
    }
    char root[PATH_MAX];
    if (abs_path(sh->d, path, root) != 0) {
        rs_free(data);
        return -1;
    }
    char *slash = strrchr(root, '/');
    if (slash) *slash = '\0';
    FILE **out = rs_calloc(sh->n, sizeof *out);
    int rc = out ? open_manifests(sh, src, lists, out) : rs_shard_fail(sh->d, RS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && i < size;) {
        const char *line = data + i;
        const char *nl = memchr(line, '\n', size - i);
        const size_t len = nl ? (size_t)(nl - line) : size - i;
        i += len + 1;
        const char *t1 = memchr(line, '\t', len);
        const char *t2 = t1 ? memchr(t1 + 1, '\t', len - (size_t)(t1 + 1 - line)) : NULL;
        uint32_t k = 0;
        char buf[RS_ORIGIN_MAX];
        rs_origin o;
        if (t1 && rs_origin_parse(line, (size_t)(t1 - line), buf, sizeof buf, &o) == RS_OK
            && o.error == RS_ORIGIN_OK)
            k = rs_shard_of_origin(o.origin.ptr, o.origin.len, sh->n);
        if (t2 && t2[1] != '/') {
            size_t fl = len - (size_t)(t2 + 1 - line);
            if (fl && t2[fl] == '\r') fl--;
            fprintf(out[k], "%.*s%s/%.*s\n", (int)(t2 + 1 - line), line, root, (int)fl, t2 + 1);
        } else {
            fprintf(out[k], "%.*s\n", (int)len, line);
        }
    }
    rs_free(data);
    return close_all(sh, out, rc);
}

static int split_robots(const sharder *sh, const char *const *robots, size_t n_robots)
{
    FILE **lists = rs_calloc(sh->n, sizeof *lists);
    if (lists == NULL) return rs_shard_fail(sh->d, RS_ERR_NOMEM, "out of memory");
    int rc = 0;
    char p[PATH_MAX];
    for (uint32_t k = 0; rc == 0 && k < sh->n; k++) {
        snprintf(p, sizeof p, "%s/shard-%04u.robots", sh->dir, k);
        if ((lists[k] = fopen(p, "w")) == NULL) rc = rs_shard_fail(sh->d, RS_ERR_IO, "%s: %s", p, strerror(errno));
    }
    for (size_t i = 0; rc == 0 && i < n_robots; i++) {
        if (is_dir(robots[i])) {
            rc = split_dir(sh, (int)i, robots[i], lists);
        } else if (ends_with(robots[i], ".tsv")) {
            rc = split_manifest(sh, (int)i, robots[i], lists);
        } else if (rs_shard_is_warc(robots[i])) {
            rc = rs_shard_split_warc(robots[i], sh->n, sh->dir, (int)i, lists, sh->d);
        } else {
            /* one robots.txt for every URL: every shard reads it as given */
            char a[PATH_MAX];
            rc = abs_path(sh->d, robots[i], a);
            for (uint32_t k = 0; rc == 0 && k < sh->n; k++) fprintf(lists[k], "%s\n", a);
        }
    }
    return close_all(sh, lists, rc);
}

/* ===== The split ===== */

/* DIR: created, or an existing empty directory (never a used one: its shards would mix). */
static int make_dir(rs_shard_diag *d, const char *dir)
{
    if (mkdir(dir, 0777) == 0) return 0;
    if (errno != EEXIST) return rs_shard_fail(d, RS_ERR_IO, "%s: %s", dir, strerror(errno));
    DIR *dp = opendir(dir);
    if (dp == NULL) return rs_shard_fail(d, RS_ERR_IO, "%s: %s", dir, strerror(errno));
    const struct dirent *e;
    int used = 0;
    while (!used && (e = readdir(dp)) != NULL)
        used = strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(dp);
    if (used) return rs_shard_fail(d, RS_ERR_USAGE, "%s: not empty: give a new or empty directory", dir);
    return 0;
}

static int write_index(const sharder *sh, const char *const *inputs, size_t n_inputs, uint64_t lines)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/shards.tsv", sh->dir);
    FILE *f = fopen(p, "w");
    if (f == NULL) return rs_shard_fail(sh->d, RS_ERR_IO, "%s: %s", p, strerror(errno));
    fprintf(f, "kind\t%s\nn\t%u\nlines\t%llu\n", sh->logs ? "logs" : "urls", sh->n, (unsigned long long)lines);
    uint64_t copies = 0;
    for (uint32_t k = 0; k < sh->n; k++) {
        fprintf(f, "shard\t%u\t%llu\n", k, (unsigned long long)sh->s[k].lines);
        copies += sh->s[k].copies;
    }
    if (sh->logs) {
        /* auto as settled on the input (still "auto" when nothing settled it) */
        fprintf(f, "log_format\t%s\n", rs_logparser_name(sh->parser));
        fprintf(f, "header_copies\t%llu\n", (unsigned long long)copies);
    }
    for (size_t i = 0; i < n_inputs; i++) fprintf(f, "input\t%s\n", inputs[i]);
    if (fclose(f) != 0) return rs_shard_fail(sh->d, RS_ERR_IO, "%s: write failed: %s", p, strerror(errno));
    return 0;
}

/* The log parser, and where lines before the first with a site go. */
static int logs_setup(sharder *sh, const rs_shard_config *cfg)
{
    const char *spec = cfg->log_format ? cfg->log_format : "combined";
    char err[256] = "";
    if (rs_logparser_create(spec, strlen(spec), cfg->fields, cfg->n_fields, err, sizeof err, &sh->parser) != RS_OK)
        return rs_shard_fail(sh->d, RS_ERR_USAGE, "bad --log-format: %s", err[0] ? err : "cannot compile");
    sh->stateful = rs_logparser_stateful(sh->parser);
    if (!(rs_logparser_fields(sh->parser) & RS_LOGF_HOST) && cfg->host == NULL)
        return rs_shard_fail(sh->d, RS_ERR_USAGE, "this log format does not name the site: give --host HOST");
    sh->last_site = NO_SITE;
    if (cfg->host) { /* lines before the first with a site go to the host's shard */
        const uint32_t k = log_shard_of(sh, (rs_str){ "", 0 }, (rs_str){ cfg->host, strlen(cfg->host) },
                                        (rs_str){ "", 0 });
        if (k != NO_SITE) sh->last_shard = k;
    }
    return 0;
}

static int open_shards(sharder *sh)
{
    sh->s = rs_calloc(sh->n, sizeof *sh->s);
    if (sh->s == NULL) return rs_shard_fail(sh->d, RS_ERR_NOMEM, "out of memory");
    char p[PATH_MAX];
    for (uint32_t k = 0; k < sh->n; k++) {
        shard_out *o = &sh->s[k];
        snprintf(p, sizeof p, "%s/shard-%04u.zst", sh->dir, k);
        o->data = fopen(p, "wb");
        snprintf(p, sizeof p, "%s/shard-%04u.pos", sh->dir, k);
        o->pos = fopen(p, "wb");
        o->cc = ZSTD_createCCtx();
        o->pbuf = rs_malloc(FLUSH_AT);
        if (o->data == NULL || o->pos == NULL) return rs_shard_fail(sh->d, RS_ERR_IO, "%s: %s", p, strerror(errno));
        if (o->cc == NULL || o->pbuf == NULL) return rs_shard_fail(sh->d, RS_ERR_NOMEM, "out of memory");
        ZSTD_CCtx_setParameter(o->cc, ZSTD_c_compressionLevel, 1);
        ZSTD_CCtx_setParameter(o->cc, ZSTD_c_windowLog, 20);
    }
    return 0;
}

/* Ends every shard's stream (when @rc is 0) and closes its files. */
static int close_shards(sharder *sh, int rc)
{
    for (uint32_t k = 0; sh->s && k < sh->n; k++) {
        shard_out *o = &sh->s[k];
        if (rc == 0) rc = shard_flush(sh, k, 1);
        if (o->data && fclose(o->data) != 0 && rc == 0)
            rc = rs_shard_fail(sh->d, RS_ERR_IO, "%s: write failed: %s", sh->dir, strerror(errno));
        if (o->pos && fclose(o->pos) != 0 && rc == 0)
            rc = rs_shard_fail(sh->d, RS_ERR_IO, "%s: write failed: %s", sh->dir, strerror(errno));
        o->data = o->pos = NULL;
        ZSTD_freeCCtx(o->cc);
        o->cc = NULL;
        rs_outbuf_free(&o->buf);
        rs_outbuf_free(&o->zbuf);
        rs_free(o->pbuf);
        o->pbuf = NULL;
    }
    return rc;
}

rs_status rs_shard_split(const rs_shard_config *cfg, const char *const *inputs, size_t n_inputs, char *err,
                         size_t err_cap)
{
    rs_shard_diag d = { err, err_cap, RS_OK, cfg ? cfg->warn : NULL, cfg ? cfg->warn_ctx : NULL };
    if (err && err_cap) err[0] = '\0';
    if (cfg == NULL || cfg->dir == NULL || (n_inputs && inputs == NULL) || (cfg->n_robots && cfg->robots == NULL))
        return rs_shard_error(&d, RS_ERR_USAGE, "rs_shard_split: missing arguments");
    if (cfg->n < 1 || cfg->n > RS_SHARD_MAX)
        return rs_shard_error(&d, RS_ERR_USAGE, "the shard count takes 1..%d, not %u", RS_SHARD_MAX, cfg->n);
    if (cfg->scheme && strcmp(cfg->scheme, "http") && strcmp(cfg->scheme, "https"))
        return rs_shard_error(&d, RS_ERR_USAGE, "the scheme takes http or https, not '%s'", cfg->scheme);
    const uint16_t probe = 1;
    if (*(const uint8_t *)&probe != 1)
        return rs_shard_error(&d, RS_ERR_USAGE, "positions are written little-endian; this machine is big-endian");

    sharder sh;
    memset(&sh, 0, sizeof sh);
    sh.n = cfg->n;
    sh.dir = cfg->dir;
    sh.logs = cfg->logs;
    sh.host = cfg->host;
    sh.scheme = cfg->scheme ? cfg->scheme : "https";
    sh.d = &d;
    int rc = cfg->logs ? logs_setup(&sh, cfg) : 0;
    if (rc == 0) rc = make_dir(&d, cfg->dir);
    if (rc == 0) rc = open_shards(&sh);
    uint64_t position = 0;
    for (size_t i = 0; rc == 0 && i < (n_inputs ? n_inputs : 1); i++)
        rc = shard_input(&sh, n_inputs ? inputs[i] : "-", &position);
    rc = close_shards(&sh, rc);
    if (rc == 0 && cfg->n_robots) rc = split_robots(&sh, cfg->robots, cfg->n_robots);
    if (rc == 0) rc = write_index(&sh, inputs, n_inputs, position);
    rs_free(sh.s);
    rs_outbuf_free(&sh.fields);
    rs_logparser_free(sh.parser);
    return rc == 0 ? RS_OK : rs_shard_status(&d);
}
