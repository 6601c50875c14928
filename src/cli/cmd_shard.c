/*
 * cmd_shard.c - `robotscan shard`: splits URL lists or access logs into N
 * zstd shards by a stable hash of each line's site (rs_shard_of_origin), so
 * that every URL or hit of a site lands in one shard, and writes beside each
 * shard the input position of each of its lines (SPEC 12, docs/scale-out.md).
 *
 * DIR/shard-K.zst     the lines of shard K (every input line goes to exactly
 *                     one shard: blank, comment and malformed lines to shard
 *                     0, so that the shards' counts add up to one run's)
 * DIR/shard-K.pos     one little-endian uint64 per line of shard K: its
 *                     position in the whole input (1-based, counting every
 *                     line of every INPUT in order)
 *                     URL lines without an origin go to shard 0; log lines
 *                     without a site (or --host) go with the line before them
 * DIR/shard-K.robots  with --robots: the --robots arguments for shard K, one
 *                     a line (a single file as given; a directory or a
 *                     manifest as a manifest DIR/robots-K/S<i>.tsv of only
 *                     shard K's sites, pointing at the original files; a
 *                     WARC as DIR/robots-K/S<i>.warc.gz with only the captures
 *                     shard K's sites use: shard_warc.c)
 * DIR/shards.tsv      kind, n, lines and the inputs
 */
#include "cli/cli.h"
#include "cli/shard_warc.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#define MAX_SHARDS 4096
#define FLUSH_AT ((size_t)1 << 20)

static const char HELP[] =
    "Usage: robotscan shard --by site -n N --out DIR [--robots PATH]... [LOG OPTIONS] INPUT...\n"
    "Splits URL lists (default) or access logs into N zstd shards by a stable hash of the\n"
    "site (scheme, host, port): all of a site's URLs or hits land in one shard. Each line\n"
    "keeps its input position (DIR/shard-K.pos) for `robotscan merge --records`.\n"
    "\n"
    "  --by site          the only partitioning (the default)\n"
    "  -n N               number of shards (1..4096)\n"
    "  --out DIR          where the shards go (created; must be empty or new)\n"
    "  --robots PATH      also split these robots sources (directory, *.tsv manifest or WARC;\n"
    "                     a single robots.txt is given to every shard): DIR/shard-K.robots\n"
    "  --logs             the inputs are access logs (implied by the options below)\n"
    "  --log-format F     as for robotscan logs (every format; auto is settled once on the\n"
    "                     input and written to DIR/shards.tsv: run the shards with it; w3c\n"
    "                     and cloudfront shards get a copy of the #Fields: line they need,\n"
    "                     taken off again by `robotscan merge --stats --shards DIR`)\n"
    "  --field NAME=KEY   as for robotscan logs (json)\n"
    "  --host HOST        the site of a log that does not name it (all lines: one shard)\n"
    "  --scheme S         as for robotscan logs (default https)\n";

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
} sharder;

#define NO_SITE UINT32_MAX /* log_shard_of: the line's host is no valid site */
static uint32_t log_shard_of(const sharder *sh, rs_str rscheme, rs_str host, rs_str port);

static int write_all(FILE *f, const void *p, size_t n, const char *what)
{
    if (n && fwrite(p, 1, n, f) != n) {
        cli_error("%s: write failed: %s", what, strerror(errno));
        return -1;
    }
    return 0;
}

static int shard_flush(sharder *sh, uint32_t k, int end)
{
    shard_out *o = &sh->s[k];
    ZSTD_inBuffer in = { o->buf.ptr, o->buf.len, 0 };
    const size_t cap = ZSTD_CStreamOutSize();
    if (o->zbuf.cap < cap) {
        o->zbuf.len = 0;
        if (rs_outbuf_append(&o->zbuf, "", 0) != RS_OK) return -1;
        if (o->zbuf.cap < cap) {
            char *p = realloc(o->zbuf.ptr, cap);
            if (p == NULL) return -1;
            o->zbuf.ptr = p;
            o->zbuf.cap = cap;
        }
    }
    for (;;) {
        ZSTD_outBuffer out = { o->zbuf.ptr, cap, 0 };
        const size_t r = ZSTD_compressStream2(o->cc, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);
        if (ZSTD_isError(r)) {
            cli_error("shard %u: zstd: %s", k, ZSTD_getErrorName(r));
            return -1;
        }
        if (write_all(o->data, o->zbuf.ptr, out.pos, sh->dir) != 0) return -1;
        if (end ? r == 0 : in.pos == in.size) break;
    }
    o->buf.len = 0;
    if (o->np) {
        if (fwrite(o->pbuf, sizeof *o->pbuf, o->np, o->pos) != o->np) {
            cli_error("%s: write failed: %s", sh->dir, strerror(errno));
            return -1;
        }
        o->np = 0;
    }
    return 0;
}

static int shard_put(sharder *sh, uint32_t k, const char *p, size_t n, uint64_t position)
{
    shard_out *o = &sh->s[k];
    if (rs_outbuf_append(&o->buf, p, n) != RS_OK || rs_outbuf_append(&o->buf, "\n", 1) != RS_OK) {
        cli_error("out of memory");
        return -1;
    }
    o->pbuf[o->np++] = position; /* little-endian machines only: checked in cmd_shard */
    o->lines++;
    if (o->buf.len >= FLUSH_AT || o->np == FLUSH_AT / 8) return shard_flush(sh, k, 0);
    return 0;
}

/* The shard of a log line: its site as `robotscan logs` finds it (cmd_logs.c line_origin). */
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

static uint32_t log_shard_of(const sharder *sh, rs_str rscheme, rs_str host, rs_str port)
{
    const char *scheme = sh->scheme;
    if (port.len == 3 && memcmp(port.ptr, "443", 3) == 0) scheme = "https";
    else if (port.len) scheme = "http";
    if (rscheme.len == 5 && strncasecmp(rscheme.ptr, "https", 5) == 0) scheme = "https";
    else if (rscheme.len == 4 && strncasecmp(rscheme.ptr, "http", 4) == 0) scheme = "http";
    char key[RS_ORIGIN_MAX + 16], buf[RS_ORIGIN_MAX];
    const int n = snprintf(key, sizeof key, "%s://%.*s%s%.*s", scheme, (int)host.len, host.ptr,
                           port.len ? ":" : "", (int)port.len, port.ptr);
    if (n < 0 || (size_t)n >= sizeof key) return NO_SITE;
    rs_origin o;
    if (rs_origin_parse(key, (size_t)n, buf, sizeof buf, &o) != RS_OK || o.error != RS_ORIGIN_OK) return NO_SITE;
    return rs_shard_of_origin(o.origin.ptr, o.origin.len, sh->n);
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
        if (rs_outbuf_append(&sh->fields, line, len) != RS_OK) {
            cli_error("out of memory");
            return -1;
        }
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
    if (rs_reader_open(path, NULL, &r) != RS_OK) {
        cli_error("%s", r ? rs_reader_errmsg(r) : path);
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
                char *big = malloc(ln.oversized);
                if (big == NULL) { cli_error("out of memory"); rc = -1; break; }
                memset(big, 'x', ln.oversized);
                rc = shard_put(sh, 0, big, ln.oversized, pos);
                free(big);
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
    if (rc == 0 && st != RS_ERR_EOF) {
        cli_error("%s", rs_reader_errmsg(r));
        rc = -1;
    }
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

static char *abs_path(const char *p)
{
    char *r = realpath(p, NULL);
    if (r == NULL) cli_error("%s: %s", p, strerror(errno));
    return r;
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
        if (out[k] == NULL) {
            cli_error("%s: %s", p, strerror(errno));
            return -1;
        }
        fprintf(lists[k], "%s\n", p);
    }
    return 0;
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
    char *root = abs_path(path);
    if (root == NULL) return -1;
    FILE **out = calloc(sh->n, sizeof *out);
    int rc = out ? open_manifests(sh, src, lists, out) : -1;
    if (rc == 0) {
        dir_split ds = { sh, out };
        char err[1100] = "";
        if (rs_robots_dir_list(root, dir_entry, &ds, err, sizeof err) != RS_OK) {
            cli_error("%s", err);
            rc = -1;
        }
    }
    for (uint32_t k = 0; out && k < sh->n; k++)
        if (out[k] && fclose(out[k]) != 0) rc = -1;
    free(out);
    free(root);
    return rc;
}

/* A manifest: DIR/robots-K/S<i>.tsv with shard K's lines, FILE made absolute. */
static int split_manifest(const sharder *sh, int src, const char *path, FILE **lists)
{
    char *data = NULL;
    size_t size = 0;
    int trunc = 0;
    if (cli_read_file(path, (size_t)1 << 34, &data, &size, &trunc) != 0) return -1;
    char *root = abs_path(path);
    if (root == NULL) {
        free(data);
        return -1;
    }
    char *slash = strrchr(root, '/');
    if (slash) *slash = '\0';
    FILE **out = calloc(sh->n, sizeof *out);
    int rc = out ? open_manifests(sh, src, lists, out) : -1;
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
    for (uint32_t k = 0; out && k < sh->n; k++)
        if (out[k] && fclose(out[k]) != 0) rc = -1;
    free(out);
    free(root);
    free(data);
    return rc;
}

static int split_robots(const sharder *sh, const char *const *robots, int n_robots)
{
    FILE **lists = calloc(sh->n, sizeof *lists);
    if (lists == NULL) return -1;
    int rc = 0;
    char p[PATH_MAX];
    for (uint32_t k = 0; rc == 0 && k < sh->n; k++) {
        snprintf(p, sizeof p, "%s/shard-%04u.robots", sh->dir, k);
        if ((lists[k] = fopen(p, "w")) == NULL) {
            cli_error("%s: %s", p, strerror(errno));
            rc = -1;
        }
    }
    for (int i = 0; rc == 0 && i < n_robots; i++) {
        if (is_dir(robots[i])) {
            rc = split_dir(sh, i, robots[i], lists);
        } else if (ends_with(robots[i], ".tsv")) {
            rc = split_manifest(sh, i, robots[i], lists);
        } else if (shard_is_warc(robots[i])) {
            rc = shard_split_warc(robots[i], sh->n, sh->dir, i, lists);
        } else {
            /* one robots.txt for every URL: every shard reads it as given */
            char *a = abs_path(robots[i]);
            if (a == NULL) rc = -1;
            for (uint32_t k = 0; a && k < sh->n; k++) fprintf(lists[k], "%s\n", a);
            free(a);
        }
    }
    for (uint32_t k = 0; k < sh->n; k++)
        if (lists[k] && fclose(lists[k]) != 0) rc = -1;
    free(lists);
    return rc;
}

/* ===== Command ===== */

static int opt_value(int argc, char **argv, int *i, const char **out)
{
    if (*i + 1 >= argc) return cli_usage_error("shard", "%s needs a value", argv[*i]);
    *out = argv[++*i];
    return 0;
}

int cmd_shard(int argc, char **argv)
{
    const char *by = "site", *n_s = NULL, *dir = NULL, *log_format = NULL, *host = NULL, *scheme = NULL;
    const char *robots[CLI_MAX_LIST], *fields[CLI_MAX_LIST];
    const char *inputs[CLI_MAX_LIST * 16];
    int n_fields = 0;
    int n_robots = 0, n_inputs = 0, logs = 0, only_pos = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int rc = 0;
        if (only_pos || a[0] != '-' || a[1] == '\0') {
            if (n_inputs == (int)(sizeof inputs / sizeof inputs[0]))
                return cli_usage_error("shard", "too many inputs");
            inputs[n_inputs++] = a;
        } else if (!strcmp(a, "--")) only_pos = 1;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(HELP, stdout);
            return 0;
        } else if (!strcmp(a, "--by")) rc = opt_value(argc, argv, &i, &by);
        else if (!strcmp(a, "-n")) rc = opt_value(argc, argv, &i, &n_s);
        else if (!strcmp(a, "--out")) rc = opt_value(argc, argv, &i, &dir);
        else if (!strcmp(a, "--log-format")) { rc = opt_value(argc, argv, &i, &log_format); logs = 1; }
        else if (!strcmp(a, "--host")) { rc = opt_value(argc, argv, &i, &host); logs = 1; }
        else if (!strcmp(a, "--scheme")) { rc = opt_value(argc, argv, &i, &scheme); logs = 1; }
        else if (!strcmp(a, "--logs")) logs = 1;
        else if (!strcmp(a, "--field")) {
            if (n_fields == CLI_MAX_LIST) return cli_usage_error("shard", "too many --field");
            rc = opt_value(argc, argv, &i, &fields[n_fields]);
            if (rc == 0) n_fields++;
            logs = 1;
        }
        else if (!strcmp(a, "--robots")) {
            if (n_robots == CLI_MAX_LIST) return cli_usage_error("shard", "too many --robots");
            rc = opt_value(argc, argv, &i, &robots[n_robots]);
            if (rc == 0) n_robots++;
        } else return cli_usage_error("shard", "unknown option %s", a);
        if (rc) return rc;
    }
    if (strcmp(by, "site")) return cli_usage_error("shard", "--by takes site, not '%s'", by);
    if (n_s == NULL) return cli_usage_error("shard", "needs -n N");
    char *end;
    const long n = strtol(n_s, &end, 10);
    if (*end || n < 1 || n > MAX_SHARDS) return cli_usage_error("shard", "-n takes 1..%d, not '%s'", MAX_SHARDS, n_s);
    if (dir == NULL) return cli_usage_error("shard", "needs --out DIR");
    if (scheme && strcmp(scheme, "http") && strcmp(scheme, "https"))
        return cli_usage_error("shard", "--scheme takes http or https, not '%s'", scheme);
    const uint16_t probe = 1;
    if (*(const uint8_t *)&probe != 1) {
        cli_error("shard: positions are written little-endian; this machine is big-endian");
        return 2;
    }

    sharder sh;
    memset(&sh, 0, sizeof sh);
    sh.n = (uint32_t)n;
    sh.dir = dir;
    sh.logs = logs;
    sh.host = host;
    sh.scheme = scheme ? scheme : "https";
    if (logs) {
        const char *spec = log_format ? log_format : "combined";
        char err[256] = "";
        if (rs_logparser_create(spec, strlen(spec), fields, (size_t)n_fields, err, sizeof err, &sh.parser) != RS_OK)
            return cli_usage_error("shard", "bad --log-format: %s", err[0] ? err : "cannot compile");
        sh.stateful = rs_logparser_stateful(sh.parser);
        if (!(rs_logparser_fields(sh.parser) & RS_LOGF_HOST) && host == NULL) {
            rs_logparser_free(sh.parser);
            return cli_usage_error("shard", "this log format does not name the site: give --host HOST");
        }
        sh.last_site = NO_SITE;
        if (host) { /* lines before the first with a site go to --host's shard */
            const uint32_t k = log_shard_of(&sh, (rs_str){ "", 0 }, (rs_str){ host, strlen(host) }, (rs_str){ "", 0 });
            if (k != NO_SITE) sh.last_shard = k;
        }
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        cli_error("%s: %s", dir, strerror(errno));
        rs_logparser_free(sh.parser);
        return 2;
    }
    int rc = 0;
    sh.s = calloc(sh.n, sizeof *sh.s);
    if (sh.s == NULL) rc = -1;
    char p[PATH_MAX];
    for (uint32_t k = 0; rc == 0 && k < sh.n; k++) {
        shard_out *o = &sh.s[k];
        snprintf(p, sizeof p, "%s/shard-%04u.zst", dir, k);
        o->data = fopen(p, "wb");
        snprintf(p, sizeof p, "%s/shard-%04u.pos", dir, k);
        o->pos = fopen(p, "wb");
        o->cc = ZSTD_createCCtx();
        o->pbuf = malloc(FLUSH_AT);
        if (o->data == NULL || o->pos == NULL) {
            cli_error("%s: %s", p, strerror(errno));
            rc = -1;
        } else if (o->cc == NULL || o->pbuf == NULL) {
            cli_error("out of memory");
            rc = -1;
        } else {
            ZSTD_CCtx_setParameter(o->cc, ZSTD_c_compressionLevel, 1);
            ZSTD_CCtx_setParameter(o->cc, ZSTD_c_windowLog, 20);
        }
    }
    uint64_t position = 0;
    for (int i = 0; rc == 0 && i < (n_inputs ? n_inputs : 1); i++)
        rc = shard_input(&sh, n_inputs ? inputs[i] : "-", &position);
    for (uint32_t k = 0; sh.s && k < sh.n; k++) {
        shard_out *o = &sh.s[k];
        if (rc == 0) rc = shard_flush(&sh, k, 1);
        if (o->data && fclose(o->data) != 0) rc = -1;
        if (o->pos && fclose(o->pos) != 0) rc = -1;
        ZSTD_freeCCtx(o->cc);
        rs_outbuf_free(&o->buf);
        rs_outbuf_free(&o->zbuf);
        free(o->pbuf);
    }
    if (rc == 0 && n_robots) rc = split_robots(&sh, robots, n_robots);
    if (rc == 0) {
        snprintf(p, sizeof p, "%s/shards.tsv", dir);
        FILE *f = fopen(p, "w");
        if (f == NULL) {
            cli_error("%s: %s", p, strerror(errno));
            rc = -1;
        } else {
            fprintf(f, "kind\t%s\nn\t%u\nlines\t%llu\n", logs ? "logs" : "urls", sh.n,
                    (unsigned long long)position);
            uint64_t copies = 0;
            for (uint32_t k = 0; k < sh.n; k++) {
                fprintf(f, "shard\t%u\t%llu\n", k, (unsigned long long)sh.s[k].lines);
                copies += sh.s[k].copies;
            }
            if (logs) {
                /* auto as settled on the input (still "auto" when nothing settled it) */
                fprintf(f, "log_format\t%s\n", rs_logparser_name(sh.parser));
                fprintf(f, "header_copies\t%llu\n", (unsigned long long)copies);
            }
            for (int i = 0; i < n_inputs; i++) fprintf(f, "input\t%s\n", inputs[i]);
            if (fclose(f) != 0) rc = -1;
        }
    }
    free(sh.s);
    rs_outbuf_free(&sh.fields);
    rs_logparser_free(sh.parser);
    return rc ? 2 : 0;
}
