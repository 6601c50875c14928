/*
 * test_shard_split.c - splitting into shards and merging back (src/shard:
 * rs_shard_split, rs_merge_records, rs_merge_stats) and the one site rule of
 * log lines (rs_log_origin_key, src/log/site_origin.c): every line in exactly
 * one shard, in order, in the shard of its site; the site the auditor gives
 * a hit is the site shard used; merged records and statistics equal one
 * run's; bad directories and inputs are errors, not crashes.
 */
#include <criterion/criterion.h>

#include "robotscan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void rs_alloc_fail_after(unsigned long n); /* src/common: allocation failure injection */

static char *tmpdir(void)
{
    static char dir[64];
    snprintf(dir, sizeof dir, "/tmp/rs-shard-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    return dir;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s", path);
    cr_assert_eq(fwrite(text, 1, strlen(text), f), strlen(text));
    cr_assert_eq(fclose(f), 0);
}

static void rm_rf(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

/* The lines of a text, as NUL-terminated copies (without "\n" or "\r\n"). */
typedef struct {
    char *lines[256];
    size_t n;
} line_list;

static void split_lines(const char *text, line_list *out)
{
    out->n = 0;
    while (*text) {
        const char *nl = strchr(text, '\n');
        size_t len = nl ? (size_t)(nl - text) : strlen(text);
        cr_assert_lt(out->n, 256);
        char *l = strndup(text, len);
        if (len && l[len - 1] == '\r') l[len - 1] = '\0';
        out->lines[out->n++] = l;
        text += len + (nl != NULL);
    }
}

static void free_lines(line_list *l)
{
    for (size_t i = 0; i < l->n; i++) free(l->lines[i]);
    l->n = 0;
}

/* Shard @k of @dir: its lines (decompressed) and their input positions. */
static void read_shard(const char *dir, uint32_t k, line_list *lines, uint64_t *pos, size_t *npos)
{
    char p[512];
    snprintf(p, sizeof p, "%s/shard-%04u.zst", dir, k);
    rs_reader *r = NULL;
    cr_assert_eq(rs_reader_open(p, NULL, &r), RS_OK, "%s", p);
    rs_line ln;
    lines->n = 0;
    rs_status st;
    while ((st = rs_reader_next_line(r, &ln)) == RS_OK) {
        cr_assert_lt(lines->n, 256);
        lines->lines[lines->n++] = strndup(ln.text.ptr, ln.text.len);
    }
    cr_assert_eq(st, RS_ERR_EOF);
    rs_reader_free(r);
    snprintf(p, sizeof p, "%s/shard-%04u.pos", dir, k);
    FILE *f = fopen(p, "rb");
    cr_assert_not_null(f, "%s", p);
    *npos = fread(pos, sizeof *pos, 256, f);
    fclose(f);
    cr_assert_eq(*npos, lines->n, "shard %u: %zu positions for %zu lines", k, *npos, lines->n);
}

/* Every input line in exactly one shard, in input order; @expect(i) gives line i's shard. */
static void check_split(const char *dir, uint32_t n, const line_list *in, const uint32_t *expect)
{
    int seen[256] = { 0 };
    for (uint32_t k = 0; k < n; k++) {
        line_list got;
        uint64_t pos[256];
        size_t npos;
        read_shard(dir, k, &got, pos, &npos);
        uint64_t prev = 0;
        for (size_t i = 0; i < npos; i++) {
            cr_assert(pos[i] >= 1 && pos[i] <= in->n, "shard %u: position %llu", k, (unsigned long long)pos[i]);
            cr_assert_gt(pos[i], prev, "shard %u: positions not increasing", k);
            prev = pos[i];
            const size_t line = pos[i] - 1;
            cr_assert_str_eq(got.lines[i], in->lines[line], "shard %u, input line %zu", k, line + 1);
            cr_assert_eq(expect[line], k, "input line %zu (%s) in shard %u, not %u", line + 1, in->lines[line], k,
                         expect[line]);
            seen[line]++;
        }
        free_lines(&got);
    }
    for (size_t i = 0; i < in->n; i++) cr_assert_eq(seen[i], 1, "input line %zu seen %d times", i + 1, seen[i]);
}

static const char URLS[] =
    "https://a.example/1\n"
    "http://b.example:8080/x\n"
    "\n"
    "# a comment\n"
    "not a url\r\n"
    "https://A.EXAMPLE:443/2?q\n"
    "https://m\xc3\xbcller.eu/x\n"
    "https://xn--mller-kva.eu/y\n"
    "http://c.example/\n"
    "https://d.example/d\n"
    "https://e.example/e\n"
    "http://b.example:8080/z\n";

Test(shard_split, urls_every_line_once_in_order_in_its_site_shard)
{
    char *dir = tmpdir();
    char in[600], out[600];
    snprintf(in, sizeof in, "%s/in.txt", dir);
    snprintf(out, sizeof out, "%s/sh", dir);
    write_file(in, URLS);
    line_list lines;
    split_lines(URLS, &lines);
    for (uint32_t n = 1; n <= 5; n += 2) {
        rm_rf(out);
        const rs_shard_config cfg = { .n = n, .dir = out };
        const char *inputs[] = { in };
        char err[512] = "x";
        cr_assert_eq(rs_shard_split(&cfg, inputs, 1, err, sizeof err), RS_OK, "%s", err);
        cr_assert_str_eq(err, "");
        uint32_t expect[256];
        for (size_t i = 0; i < lines.n; i++)
            expect[i] = rs_shard_of_url(lines.lines[i], strlen(lines.lines[i]), n); /* 0: no origin */
        check_split(out, n, &lines, expect);
        /* the IDN and its punycode are one site */
        cr_assert_eq(expect[6], expect[7]);
        char p[700];
        snprintf(p, sizeof p, "%s/shards.tsv", out);
        FILE *f = fopen(p, "r");
        cr_assert_not_null(f);
        char buf[512];
        size_t got = fread(buf, 1, sizeof buf - 1, f);
        buf[got] = '\0';
        fclose(f);
        char want[64];
        snprintf(want, sizeof want, "kind\turls\nn\t%u\nlines\t%zu\n", n, lines.n);
        cr_assert(strncmp(buf, want, strlen(want)) == 0, "%s", buf);
    }
    free_lines(&lines);
    rm_rf(dir);
}

/* ===== Logs: the site of a line as the auditor finds it ===== */

#define L(target) "66.249.66.1 - - [17/May/2015:10:05:03 +0000] \"GET " target " HTTP/1.1\" 200 1 \"-\" \"Googlebot\"\n"
static const char LOG[] =
    "garbage before any site\n"
    L("/a")
    L("https://b.example/x")
    L("http://b.example/x")
    L("HTTPS://C.example:443/x")
    L("http://c.example:443/x")
    L("https://d.example:80/x")
    L("http://e.example:8443/x")
    "malformed line\n"
    L("/again-the-host")
    L("https://[::1]:99999/bad-port")
    L("http://f.example/")
    "\n";

/* JSON lines name host, port and scheme (and absolute targets give them too) */
#define J(fields) "{\"remote_addr\":\"1.2.3.4\",\"request_method\":\"GET\",\"status\":200," \
                  "\"http_user_agent\":\"Googlebot\"," fields "}\n"
static const char JLOG[] =
    "not json\n"
    J("\"request_uri\":\"/no-host\"")
    J("\"host\":\"b.example\",\"request_uri\":\"/x\"")
    J("\"host\":\"b.example\",\"server_port\":\"443\",\"request_uri\":\"/x\"")
    J("\"host\":\"b.example\",\"server_port\":\"443\",\"scheme\":\"http\",\"request_uri\":\"/x\"")
    J("\"host\":\"B.example\",\"server_port\":\"80\",\"scheme\":\"HTTPS\",\"request_uri\":\"/x\"")
    J("\"host\":\"c.example\",\"server_port\":\"8080\",\"request_uri\":\"/x\"")
    J("\"host\":\"c.example\",\"server_port\":\"8080\",\"scheme\":\"ws\",\"request_uri\":\"/x\"")
    J("\"request_uri\":\"https://D.example:443/abs\"")
    J("\"request_uri\":\"http://d.example:443/abs\"")
    J("\"request_uri\":\"https://e.example:80/abs\"")
    J("\"host\":\"bad host\",\"request_uri\":\"/x\"")
    J("\"host\":\"f.example\",\"server_port\":\"8443\",\"request_uri\":\"/x\"")
    J("\"host\":\"f.example\",\"server_port\":\"8443\",\"scheme\":\"https\",\"request_uri\":\"/x\"");

/* The shard of each line of @text as the auditor sees it: the hit's origin, or the line
 * before's (a line without a site), or @host's at the start. */
static void audit_shards(const char *spec, const char *host, const char *scheme, uint32_t n, const line_list *lines,
                         uint32_t *out)
{
    rs_sites *s = NULL;
    cr_assert_eq(rs_sites_create_empty(&s), RS_OK);
    const rs_log_audit_config cfg = { s, host, scheme, NULL, 1 };
    rs_log_auditor *a = NULL;
    cr_assert_eq(rs_log_auditor_create(&cfg, &a), RS_OK);
    rs_logparser *p = NULL;
    char err[256];
    cr_assert_eq(rs_logparser_create(spec, strlen(spec), NULL, 0, err, sizeof err, &p), RS_OK, "%s", err);
    uint32_t last = 0;
    if (host) {
        char buf[RS_ORIGIN_MAX];
        rs_origin o;
        cr_assert(rs_log_origin(scheme, (rs_str){ "", 0 }, (rs_str){ host, strlen(host) }, (rs_str){ "", 0 }, buf,
                                sizeof buf, &o));
        last = rs_shard_of_origin(o.origin.ptr, o.origin.len, n);
    }
    for (size_t i = 0; i < lines->n; i++) {
        rs_logrec rec;
        if (rs_logparser_parse(p, lines->lines[i], strlen(lines->lines[i]), &rec) == RS_LOGLINE_OK) {
            rs_log_hit hit;
            cr_assert_eq(rs_log_audit_bot(a, &rec, &hit), RS_OK);
            if (hit.origin) last = rs_shard_of_origin(hit.origin->origin.ptr, hit.origin->origin.len, n);
        }
        out[i] = last;
    }
    rs_logparser_free(p);
    rs_log_auditor_free(a);
    rs_sites_free(s);
}

Test(shard_split, logs_land_in_the_shard_of_the_audited_site)
{
    char *dir = tmpdir();
    char in[600], out[600];
    snprintf(in, sizeof in, "%s/in.log", dir);
    snprintf(out, sizeof out, "%s/sh", dir);
    static const struct { const char *spec, *text; } logs[] = { { "combined", LOG }, { "json", JLOG } };
    static const char *const schemes[] = { "https", "http" };
    for (int li = 0; li < 2; li++) {
        write_file(in, logs[li].text);
        line_list lines;
        split_lines(logs[li].text, &lines);
        for (int si = 0; si < 2; si++)
            for (uint32_t n = 2; n <= 12; n += 5) {
                rm_rf(out);
                const rs_shard_config cfg = { .n = n, .dir = out, .logs = 1, .log_format = logs[li].spec,
                                              .host = "h.example", .scheme = schemes[si] };
                const char *inputs[] = { in };
                char err[512];
                cr_assert_eq(rs_shard_split(&cfg, inputs, 1, err, sizeof err), RS_OK, "%s", err);
                uint32_t expect[256];
                audit_shards(logs[li].spec, "h.example", schemes[si], n, &lines, expect);
                check_split(out, n, &lines, expect);
            }
        free_lines(&lines);
    }
    rm_rf(dir);
}

Test(shard_split, log_origin_rule)
{
    static const struct {
        const char *dflt, *scheme, *host, *port, *want;
    } cases[] = {
        { "https", "", "a.example", "", "https://a.example" },
        { "http", "", "a.example", "", "http://a.example" },
        { NULL, "", "a.example", "", "https://a.example" },
        { "http", "", "a.example", "443", "https://a.example:443" },
        { "https", "", "a.example", "8080", "http://a.example:8080" },
        { "https", "", "a.example", "80", "http://a.example:80" },
        { "http", "HTTPS", "a.example", "8443", "https://a.example:8443" },
        { "https", "http", "a.example", "443", "http://a.example:443" },
        { "https", "ws", "a.example", "", "https://a.example" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char key[RS_ORIGIN_MAX + 16];
        const rs_str sc = { cases[i].scheme, strlen(cases[i].scheme) }, h = { cases[i].host, strlen(cases[i].host) },
                     p = { cases[i].port, strlen(cases[i].port) };
        const size_t n = rs_log_origin_key(cases[i].dflt, sc, h, p, key, sizeof key);
        cr_assert_eq(n, strlen(cases[i].want), "case %zu", i);
        cr_assert_str_eq(key, cases[i].want, "case %zu", i);
    }
    char small[8];
    cr_assert_eq(rs_log_origin_key("https", (rs_str){ "", 0 }, (rs_str){ "a.example", 9 }, (rs_str){ "", 0 }, small,
                                   sizeof small),
                 0);
    char buf[RS_ORIGIN_MAX];
    rs_origin o;
    cr_assert(rs_log_origin("https", (rs_str){ "", 0 }, (rs_str){ "A.Example", 9 }, (rs_str){ "443", 3 }, buf,
                            sizeof buf, &o));
    cr_assert(o.origin.len == 17 && memcmp(o.origin.ptr, "https://a.example", 17) == 0, "%.*s", (int)o.origin.len,
              o.origin.ptr);
    cr_assert_not(rs_log_origin("https", (rs_str){ "", 0 }, (rs_str){ "bad host", 8 }, (rs_str){ "", 0 }, buf,
                                sizeof buf, &o));
}

/* ===== Merge ===== */

/* A "run" over shard @k: one record per line, "input_line\tline\tshard" (a record the
 * command would write), and --stats counting lines and characters. */
static void fake_run(const char *dir, uint32_t k, const char *rec_path, const char *stats_path, size_t *count,
                     size_t *chars)
{
    line_list got;
    uint64_t pos[256];
    size_t npos;
    read_shard(dir, k, &got, pos, &npos);
    FILE *f = fopen(rec_path, "w");
    cr_assert_not_null(f);
    fprintf(f, "input_line\tline\tlength\n");
    size_t c = 0;
    for (size_t i = 0; i < got.n; i++) {
        fprintf(f, "%zu\t[%s]\t%zu\n", i + 1, got.lines[i], strlen(got.lines[i]));
        c += strlen(got.lines[i]);
    }
    fclose(f);
    f = fopen(stats_path, "w");
    cr_assert_not_null(f);
    fprintf(f, "{\"command\":\"urls\",\"schema_version\":2,\"lines\":%zu,\"chars\":%zu,\"seconds\":0.5,"
               "\"lines_per_second\":%zu}\n", got.n, c, got.n * 2);
    fclose(f);
    *count = got.n;
    *chars = c;
    free_lines(&got);
}

static char *slurp(FILE *f, size_t *len)
{
    cr_assert_eq(fseek(f, 0, SEEK_END), 0);
    const long n = ftell(f);
    rewind(f);
    char *b = malloc((size_t)n + 1);
    cr_assert_eq(fread(b, 1, (size_t)n, f), (size_t)n);
    b[n] = '\0';
    *len = (size_t)n;
    return b;
}

Test(shard_merge, records_and_stats_equal_one_run)
{
    char *dir = tmpdir();
    char in[600], out[600];
    snprintf(in, sizeof in, "%s/in.txt", dir);
    snprintf(out, sizeof out, "%s/sh", dir);
    write_file(in, URLS);
    line_list lines;
    split_lines(URLS, &lines);
    enum { N = 4 };
    const rs_shard_config cfg = { .n = N, .dir = out };
    const char *inputs[] = { in };
    char err[512];
    cr_assert_eq(rs_shard_split(&cfg, inputs, 1, err, sizeof err), RS_OK, "%s", err);
    char recs[N][700], stats[N][700];
    const char *rp[N], *sp[N];
    size_t total = 0, chars = 0;
    for (uint32_t k = 0; k < N; k++) {
        snprintf(recs[k], sizeof recs[k], "%s/out-%u.tsv", dir, k);
        snprintf(stats[k], sizeof stats[k], "%s/stats-%u.json", dir, k);
        size_t c, ch;
        fake_run(out, k, recs[k], stats[k], &c, &ch);
        total += c;
        chars += ch;
        rp[k] = recs[k];
        sp[k] = stats[k];
    }
    /* the one run: every line in input order, without input_line */
    char single[8192] = "line\tlength\n";
    for (size_t i = 0; i < lines.n; i++) {
        const size_t at = strlen(single);
        snprintf(single + at, sizeof single - at, "[%s]\t%zu\n", lines.lines[i], strlen(lines.lines[i]));
    }
    FILE *f = tmpfile();
    cr_assert_eq(rs_merge_records(out, RS_FORMAT_TSV, rp, N, f, err, sizeof err), RS_OK, "%s", err);
    size_t len;
    char *got = slurp(f, &len);
    cr_assert_str_eq(got, single);
    free(got);
    fclose(f);

    f = tmpfile();
    cr_assert_eq(rs_merge_stats(sp, N, out, f, err, sizeof err), RS_OK, "%s", err);
    got = slurp(f, &len);
    char want[256];
    snprintf(want, sizeof want,
             "{\"command\":\"urls\",\"schema_version\":2,\"lines\":%zu,\"chars\":%zu,\"seconds\":0.5,"
             "\"lines_per_second\":%zu}\n", total, chars, (size_t)(total / 0.5)); /* a rate, recomputed, an integer as the inputs have it */
    cr_assert_eq(total, lines.n);
    cr_assert_str_eq(got, want);
    free(got);
    fclose(f);
    free_lines(&lines);
    rm_rf(dir);
}

/* ===== Errors ===== */

Test(shard_errors, bad_directories_and_inputs)
{
    char *dir = tmpdir();
    char in[600], p[700];
    snprintf(in, sizeof in, "%s/in.txt", dir);
    write_file(in, URLS);
    const char *inputs[] = { in };
    char err[512];

    /* a directory that cannot be made: below a regular file */
    snprintf(p, sizeof p, "%s/in.txt/sub", dir);
    rs_shard_config cfg = { .n = 2, .dir = p };
    cr_assert_eq(rs_shard_split(&cfg, inputs, 1, err, sizeof err), RS_ERR_IO);
    cr_assert(strstr(err, "in.txt/sub") != NULL, "%s", err);
    /* the out directory is a file */
    cfg.dir = in;
    cr_assert_neq(rs_shard_split(&cfg, inputs, 1, err, sizeof err), RS_OK);
    cr_assert(err[0] != '\0');
    /* a used out directory */
    snprintf(p, sizeof p, "%s/sh", dir);
    cfg.dir = p;
    cr_assert_eq(rs_shard_split(&cfg, inputs, 1, err, sizeof err), RS_OK, "%s", err);
    cr_assert_eq(rs_shard_split(&cfg, inputs, 1, err, sizeof err), RS_ERR_USAGE);
    cr_assert(strstr(err, "not empty") != NULL, "%s", err);
    /* an empty existing one is fine */
    snprintf(p, sizeof p, "%s/empty", dir);
    cr_assert_eq(mkdir(p, 0777), 0);
    cfg.dir = p;
    cr_assert_eq(rs_shard_split(&cfg, inputs, 1, err, sizeof err), RS_OK, "%s", err);
    /* a missing input, a missing robots source */
    const char *missing[] = { "/nonexistent/urls.txt" };
    snprintf(p, sizeof p, "%s/m1", dir);
    cfg.dir = p;
    cr_assert_neq(rs_shard_split(&cfg, missing, 1, err, sizeof err), RS_OK);
    cr_assert(strstr(err, "/nonexistent/urls.txt") != NULL, "%s", err);
    snprintf(p, sizeof p, "%s/m2", dir);
    const char *robots[] = { "/nonexistent/robots.txt" };
    cfg.robots = robots;
    cfg.n_robots = 1;
    cr_assert_eq(rs_shard_split(&cfg, inputs, 1, err, sizeof err), RS_ERR_IO);
    cr_assert(strstr(err, "/nonexistent/robots.txt") != NULL, "%s", err);
    cfg.robots = NULL;
    cfg.n_robots = 0;
    /* bad configurations */
    snprintf(p, sizeof p, "%s/m3", dir);
    cfg.n = 0;
    cr_assert_eq(rs_shard_split(&cfg, inputs, 1, err, sizeof err), RS_ERR_USAGE);
    cfg.n = 2;
    cfg.logs = 1;
    cr_assert_eq(rs_shard_split(&cfg, inputs, 1, err, sizeof err), RS_ERR_USAGE); /* combined: no host */
    cr_assert(strstr(err, "--host") != NULL, "%s", err);
    cfg.log_format = "%{nonsense";
    cr_assert_eq(rs_shard_split(&cfg, inputs, 1, err, sizeof err), RS_ERR_USAGE);
    cr_assert_eq(rs_shard_split(NULL, inputs, 1, err, sizeof err), RS_ERR_USAGE);

    /* merge: a shard count that does not match, no input_line column, not JSON */
    snprintf(p, sizeof p, "%s/sh", dir);
    const char *one[] = { in };
    FILE *f = tmpfile();
    cr_assert_eq(rs_merge_records(p, RS_FORMAT_TSV, one, 1, f, err, sizeof err), RS_ERR_USAGE);
    cr_assert(strstr(err, "2 shards") != NULL, "%s", err);
    const char *two[] = { in, in };
    cr_assert_eq(rs_merge_records(p, RS_FORMAT_TSV, two, 2, f, err, sizeof err), RS_ERR_CORRUPT);
    cr_assert(strstr(err, "input_line") != NULL, "%s", err);
    cr_assert_eq(rs_merge_stats(two, 2, NULL, f, err, sizeof err), RS_ERR_CORRUPT);
    cr_assert_eq(rs_merge_records("/nonexistent", RS_FORMAT_TSV, two, 2, f, err, sizeof err), RS_ERR_IO);
    cr_assert_eq(rs_merge_stats(two, 2, "/nonexistent", f, err, sizeof err), RS_ERR_IO);
    fclose(f);
    rm_rf(dir);
}

Test(shard_errors, allocation_failures_fail_cleanly)
{
    char *dir = tmpdir();
    char in[600], p[700], robots[700];
    snprintf(in, sizeof in, "%s/in.txt", dir);
    write_file(in, URLS);
    snprintf(robots, sizeof robots, "%s/r", dir);
    cr_assert_eq(mkdir(robots, 0777), 0);
    snprintf(p, sizeof p, "%s/r/a.example.txt", dir);
    write_file(p, "User-agent: *\nDisallow: /x\n");
    const char *inputs[] = { in };
    const char *srcs[] = { robots };
    int failed = 0, ok = 0;
    for (unsigned long n = 1; n < 200 && ok < 3; n++) {
        snprintf(p, sizeof p, "%s/sh%lu", dir, n);
        const rs_shard_config cfg = { .n = 3, .dir = p, .robots = srcs, .n_robots = 1 };
        char err[512];
        rs_alloc_fail_after(n);
        const rs_status st = rs_shard_split(&cfg, inputs, 1, err, sizeof err);
        rs_alloc_fail_after(0);
        if (st == RS_OK) ok++;
        else failed++;
        cr_assert(st == RS_OK || st == RS_ERR_NOMEM || st == RS_ERR_IO, "n=%lu: %s (%s)", n, rs_status_str(st), err);
    }
    cr_assert_gt(failed, 3, "allocation failures do not reach the split");
    cr_assert_gt(ok, 0);
    rm_rf(dir);
}
