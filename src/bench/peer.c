/*
 * peer.c - runs one matcher over one workload through the line protocol.
 *
 * The peer is `/bin/sh -c COMMAND` in its own process group, its stdin and
 * stdout one end of a socket pair (send() with MSG_NOSIGNAL: a peer that
 * dies never raises SIGPIPE here), its stderr a temporary file whose last
 * line explains a crash. Timing:
 *   start-up  a `robots<TAB>/dev/null` block with one query, answered before
 *             the clock starts (an interpreter's start, imports);
 *   parse     per block, its `robots` line and first query alone, from writing
 *             them to the answer (the file's parse, one query, one round trip);
 *   query     per block, the other nq - 1 queries, pipelined (written while
 *             answers are read) in chunks of CHUNK, from writing a chunk to its
 *             last answer; --seconds is checked between chunks.
 * The arena waits for the answers it asked for before it goes on, so a
 * peer must flush its answers before it waits for more input. A peer that gives no answer for
 * `timeout` seconds is killed (timeout), one whose output ends early crashed,
 * an answer that is not `allow`/`disallow` is garbage; each ends that peer's
 * run on that workload with the answers so far. Peak RSS is the largest
 * VmHWM of the peer's processes, read after its last answer.
 */
#include "bench/bench.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double rs_bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct {
    pid_t pid;
    int   fd;          /* our end of the socket pair */
    int   err_fd;      /* the peer's stderr (unlinked temporary file) */
    char  buf[1 << 16];
    size_t len;        /* bytes of an unfinished answer line in buf */
    int   reaped;
    int   wstatus;
    struct rusage ru;
} child;

static int spawn(const char *command, child *c, char *detail, size_t cap)
{
    memset(c, 0, sizeof *c);
    c->fd = c->err_fd = -1;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        snprintf(detail, cap, "cannot start: socketpair: %s", strerror(errno));
        return -1;
    }
    char tmpl[] = "/tmp/robotscan-bench-err-XXXXXX";
    c->err_fd = mkostemp(tmpl, O_CLOEXEC);
    if (c->err_fd >= 0) unlink(tmpl);
    c->pid = fork();
    if (c->pid < 0) {
        snprintf(detail, cap, "cannot start: fork: %s", strerror(errno));
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    if (c->pid == 0) {
        setpgid(0, 0);
        signal(SIGPIPE, SIG_DFL);
        dup2(sv[1], 0);
        dup2(sv[1], 1);
        if (c->err_fd >= 0) dup2(c->err_fd, 2);
        execl("/bin/sh", "sh", "-c", command, (char *)NULL);
        _exit(127);
    }
    setpgid(c->pid, c->pid);
    close(sv[1]);
    c->fd = sv[0];
    fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
    return 0;
}

static void kill_group(child *c)
{
    if (c->pid > 0 && !c->reaped) {
        kill(-c->pid, SIGKILL);
        kill(c->pid, SIGKILL);
    }
}

static void reap(child *c, double secs);

/* Calls @fn for each process of the peer's process group (pid, and its VmHWM in bytes). */
static void each_member(const child *c, void (*fn)(long pid, uint64_t hwm, void *ctx), void *ctx)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        const long pid = strtol(e->d_name, NULL, 10);
        if (pid <= 0) continue;
        char path[64], buf[4096];
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n <= 0) continue;
        buf[n] = '\0';
        const char *p = strrchr(buf, ')');
        int pgrp = 0, ppid;
        char state;
        if (p == NULL || sscanf(p + 1, " %c %d %d", &state, &ppid, &pgrp) != 3 || pgrp != c->pid) continue;
        uint64_t hwm = 0;
        snprintf(path, sizeof path, "/proc/%ld/status", pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            n = read(fd, buf, sizeof buf - 1);
            close(fd);
            if (n > 0) {
                buf[n] = '\0';
                const char *h = strstr(buf, "VmHWM:");
                if (h) hwm = strtoull(h + 6, NULL, 10) * 1024u;
            }
        }
        fn(pid, hwm, ctx);
    }
    if (d) closedir(d);
}

static void max_hwm(long pid, uint64_t hwm, void *ctx)
{
    (void)pid;
    uint64_t *m = ctx;
    if (hwm > *m) *m = hwm;
}

/* The peer's peak RSS: the largest VmHWM in its process group (read while it
 * lives: wait4's ru_maxrss would count the arena's own pages, which the
 * child held between fork and exec). */
static uint64_t peak_rss(const child *c)
{
    uint64_t m = 0;
    if (c->pid > 0 && !c->reaped) each_member(c, max_hwm, &m);
    return m;
}

static void kill_other(long pid, uint64_t hwm, void *ctx)
{
    (void)hwm;
    const child *c = ctx;
    if (pid != c->pid) kill((pid_t)pid, SIGKILL);
}

/* Kills the peer: the shell's children first, then the group. */
static void kill_child(child *c)
{
    if (c->pid <= 0 || c->reaped) return;
    each_member(c, kill_other, c);
    reap(c, 0.5);
    kill_group(c);
}

/* Waits for the child up to @secs (then kills it). */
static void reap(child *c, double secs)
{
    if (c->pid <= 0 || c->reaped) return;
    const double end = rs_bench_now() + secs;
    for (;;) {
        const pid_t r = wait4(c->pid, &c->wstatus, WNOHANG, &c->ru);
        if (r == c->pid) { c->reaped = 1; return; }
        if (r < 0 && errno != EINTR) { c->reaped = 1; return; }
        if (rs_bench_now() > end) {
            kill_group(c);
            while (wait4(c->pid, &c->wstatus, 0, &c->ru) < 0 && errno == EINTR) {}
            c->reaped = 1;
            return;
        }
        usleep(2000);
    }
}

/* The last non-empty line the peer wrote to stderr, for a failure's detail. */
static void last_stderr_line(const child *c, char *dst, size_t cap)
{
    dst[0] = '\0';
    if (c->err_fd < 0) return;
    char tail[512];
    const off_t end = lseek(c->err_fd, 0, SEEK_END);
    if (end <= 0) return;
    const off_t from = end > (off_t)sizeof tail - 1 ? end - (off_t)sizeof tail + 1 : 0;
    const ssize_t n = pread(c->err_fd, tail, (size_t)(end - from), from);
    if (n <= 0) return;
    size_t e = (size_t)n;
    while (e > 0 && (tail[e - 1] == '\n' || tail[e - 1] == '\r' || tail[e - 1] == ' ')) e--;
    size_t s = e;
    while (s > 0 && tail[s - 1] != '\n') s--;
    snprintf(dst, cap, "%.*s", (int)(e - s), tail + s);
}

static void describe_exit(child *c, char *dst, size_t cap)
{
    char err[160];
    last_stderr_line(c, err, sizeof err);
    int n;
    if (WIFSIGNALED(c->wstatus)) n = snprintf(dst, cap, "killed by signal %d", WTERMSIG(c->wstatus));
    else if (WIFEXITED(c->wstatus) && WEXITSTATUS(c->wstatus) == 127 && strstr(err, "not found"))
        n = snprintf(dst, cap, "exit status 127");
    else n = snprintf(dst, cap, "exit status %d", WIFEXITED(c->wstatus) ? WEXITSTATUS(c->wstatus) : -1);
    if (err[0] && n > 0 && (size_t)n < cap) snprintf(dst + n, cap - (size_t)n, "; stderr: %s", err);
}

/*
 * Writes @out while reading @want answer lines into @answers (may be NULL).
 * @return BP_OK, BP_CRASHED, BP_TIMEOUT or BP_GARBAGE (detail written), with
 * *got the answers read and *t_first / *t_last the times of the first and last.
 */
static bp_status exchange(child *c, const char *out, size_t out_len, size_t want, int8_t *answers,
                          double timeout, size_t *got, double *t_first, double *t_last,
                          char *detail, size_t cap)
{
    size_t sent = 0;
    *got = 0;
    double last_progress = rs_bench_now();
    *t_first = *t_last = last_progress;
    while (*got < want || sent < out_len) {
        struct pollfd p = { .fd = c->fd, .events = POLLIN | (sent < out_len ? POLLOUT : 0) };
        const double left = last_progress + timeout - rs_bench_now();
        if (left <= 0) {
            snprintf(detail, cap, "no answer within %g s", timeout);
            return BP_TIMEOUT;
        }
        const int r = poll(&p, 1, (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) continue;
        if (p.revents & POLLOUT) {
            const ssize_t n = send(c->fd, out + sent, out_len - sent, MSG_NOSIGNAL);
            if (n > 0) sent += (size_t)n;
            else if (n < 0 && errno != EAGAIN && errno != EINTR) {
                /* the peer closed its input: report it as the crash it is once its output ends */
                sent = out_len;
            }
        }
        if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
            const ssize_t n = recv(c->fd, c->buf + c->len, sizeof c->buf - c->len, 0);
            if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
            if (n <= 0) {
                reap(c, 2.0);
                char why[200];
                describe_exit(c, why, sizeof why);
                snprintf(detail, cap, "its output ended (%s)", why);
                return BP_CRASHED;
            }
            const double now = rs_bench_now();
            c->len += (size_t)n;
            size_t start = 0;
            for (;;) {
                char *nl = memchr(c->buf + start, '\n', c->len - start);
                if (nl == NULL) break;
                size_t l = (size_t)(nl - (c->buf + start));
                const char *s = c->buf + start;
                while (l > 0 && (s[l - 1] == '\r' || s[l - 1] == ' ' || s[l - 1] == '\t')) l--;
                const int v = l == 5 && !memcmp(s, "allow", 5) ? 0 : l == 8 && !memcmp(s, "disallow", 8) ? 1 : -1;
                if (v < 0 || *got >= want) {
                    if (v < 0) snprintf(detail, cap, "an answer is not allow or disallow: '%.*s'",
                                        (int)RS_MIN(l, 60), s);
                    else snprintf(detail, cap, "more answers than queries (an answer to a `robots` line?)");
                    return BP_GARBAGE;
                }
                if (answers) answers[*got] = (int8_t)v;
                if (*got == 0) *t_first = now;
                (*got)++;
                *t_last = now;
                start = (size_t)(nl - c->buf) + 1;
            }
            memmove(c->buf, c->buf + start, c->len - start);
            c->len -= start;
            if (c->len == sizeof c->buf) {
                snprintf(detail, cap, "an answer line longer than %zu bytes", sizeof c->buf);
                return BP_GARBAGE;
            }
            last_progress = now;
        }
    }
    if (c->len > 0) {
        snprintf(detail, cap, "more output than answers: '%.*s'", (int)RS_MIN(c->len, 60), c->buf);
        return BP_GARBAGE;
    }
    return BP_OK;
}

/* Queries [from, to) of block @b, after its `robots` line when @with_robots. */
static rs_status block_input(const bw_workload *w, const bw_block *b, int with_robots, uint32_t from, uint32_t to,
                             rs_outbuf *o)
{
    o->len = 0;
    if (with_robots) {
        const char *path = w->files[b->file].path;
        RS_FORWARD(rs_outbuf_append(o, "robots\t", 7));
        if (path[0] != '/') {
            RS_FORWARD(rs_outbuf_append(o, w->dir, strlen(w->dir)));
            RS_FORWARD(rs_outbuf_append(o, "/", 1));
        }
        RS_FORWARD(rs_outbuf_append(o, path, strlen(path)));
        RS_FORWARD(rs_outbuf_append(o, "\n", 1));
    }
    for (uint32_t i = from; i < to; i++) {
        const bw_query *q = &w->q[b->q0 + i];
        RS_FORWARD(rs_outbuf_append(o, q->agent, strlen(q->agent)));
        RS_FORWARD(rs_outbuf_append(o, "\t", 1));
        RS_FORWARD(rs_outbuf_append(o, q->url, strlen(q->url)));
        RS_FORWARD(rs_outbuf_append(o, "\n", 1));
    }
    return RS_OK;
}

/* Queries are pipelined in chunks of this many: --seconds is checked between them. */
#define CHUNK 512u

void rs_bp_run(const char *command, const bw_workload *w, double timeout, double seconds,
               int8_t *answers, bp_result *r)
{
    for (size_t i = 0; i < w->n_q; i++) answers[i] = -1;
    child *c = rs_malloc(sizeof *c);
    if (c == NULL) {
        r->status = BP_FAILED;
        snprintf(r->detail, sizeof r->detail, "out of memory");
        return;
    }
    if (spawn(command, c, r->detail, sizeof r->detail) != 0) {
        r->status = BP_FAILED;
        rs_free(c);
        return;
    }
    rs_outbuf o = {0};
    size_t got;
    double t_first, t_last;
    /* Start-up: an empty robots.txt and one query, untimed. */
    static const char WARM[] = "robots\t/dev/null\nRobotscanBench\thttps://example.com/\n";
    const double t0 = rs_bench_now();
    bp_status st = exchange(c, WARM, sizeof WARM - 1, 1, NULL, RS_MAX(timeout, 30.0), &got, &t_first,
                            &t_last, r->detail, sizeof r->detail);
    r->startup_s = rs_bench_now() - t0;
    if (st != BP_OK) {
        const size_t l = strlen(r->detail);
        snprintf(r->detail + l, sizeof r->detail - l, " (at start-up)");
    }
    for (size_t bi = 0; bi < w->n_blocks && st == BP_OK; bi++) {
        const bw_block *b = &w->blocks[bi];
        /* The `robots` line and the first query, answered; then the others, pipelined in chunks. */
        for (uint32_t i = 0; i < b->nq && st == BP_OK;) {
            if (seconds > 0 && r->parse_s + r->query_s > seconds) {
                st = BP_PARTIAL;
                snprintf(r->detail, sizeof r->detail, "stopped after %g s (--seconds): %llu of %zu queries asked",
                         seconds, (unsigned long long)r->answered, w->n_q);
                break;
            }
            /* a chunk of about a quarter second at the rate so far (a slow peer must not run past --seconds) */
            uint32_t chunk = CHUNK;
            if (seconds > 0) {
                const double rate = r->query_s > 0 ? (double)r->timed_queries / r->query_s : 16.0;
                chunk = (uint32_t)RS_MAX(1.0, RS_MIN((double)CHUNK, rate / 4));
            }
            const uint32_t to = i == 0 ? 1 : RS_MIN(b->nq, i + chunk);
            if (block_input(w, b, i == 0, i, to, &o) != RS_OK) {
                st = BP_FAILED;
                snprintf(r->detail, sizeof r->detail, "out of memory");
                break;
            }
            const double start = rs_bench_now();
            st = exchange(c, o.ptr, o.len, to - i, answers + b->q0 + i, timeout, &got, &t_first, &t_last,
                          r->detail, sizeof r->detail);
            const double took = rs_bench_now() - start;
            r->answered += got;
            if (st == BP_OK && i == 0) {
                r->parse_s += took;
                r->parse_blocks++;
            } else if (st == BP_OK) {
                r->query_s += took;
                r->timed_queries += to - i;
            }
            if (st != BP_OK) {
                char where[120];
                snprintf(where, sizeof where, " at query %llu of %zu (%s)", (unsigned long long)r->answered + 1,
                         w->n_q, w->files[b->file].path);
                const size_t l = strlen(r->detail);
                snprintf(r->detail + l, sizeof r->detail - l, "%s", where);
            }
            i = to;
        }
    }
    rs_outbuf_free(&o);
    r->peak_rss = peak_rss(c);   /* 0 once it has died: unknown */
    if (st == BP_OK || st == BP_PARTIAL) {
        shutdown(c->fd, SHUT_WR);
        reap(c, RS_MAX(timeout, 5.0));
        if (st == BP_OK && (!WIFEXITED(c->wstatus) || WEXITSTATUS(c->wstatus) != 0)) {
            char why[200];
            describe_exit(c, why, sizeof why);
            snprintf(r->detail, sizeof r->detail, "every query answered, then %s", why);
        }
    } else {
        kill_child(c);
        reap(c, 5.0);
    }
    r->status = st;
    close(c->fd);
    if (c->err_fd >= 0) close(c->err_fd);
    rs_free(c);
}

/* ===== robotscan in-process ===== */

void rs_bp_inprocess(const bw_workload *w, double seconds, int8_t *answers, bp_result *r)
{
    for (size_t i = 0; i < w->n_q; i++) answers[i] = -1;
    enum { MAXA = 16 };
    struct { const char *agent; rs_matcher *m; } cache[MAXA];
    for (size_t bi = 0; bi < w->n_blocks; bi++) {
        if (seconds > 0 && r->parse_s + r->query_s > seconds) {
            r->status = BP_PARTIAL;
            snprintf(r->detail, sizeof r->detail, "stopped after %g s (--seconds)", seconds);
            break;
        }
        const bw_block *b = &w->blocks[bi];
        const bw_file *f = &w->files[b->file];
        const double t0 = rs_bench_now();
        rs_ruleset *rs = NULL;
        if (rs_ruleset_parse(f->body, f->size, &rs) != RS_OK) {
            r->status = BP_FAILED;
            snprintf(r->detail, sizeof r->detail, "out of memory parsing %s", f->path);
            break;
        }
        /* Timed as the protocol times a peer: the parse and the first query, then the others. */
        double t1 = rs_bench_now();
        int n = 0;
        for (uint32_t i = 0; i < b->nq; i++) {
            const bw_query *q = &w->q[b->q0 + i];
            rs_matcher *m = NULL;
            for (int k = 0; k < n; k++)
                if (!strcmp(cache[k].agent, q->agent)) { m = cache[k].m; break; }
            if (m == NULL) {
                if (n == MAXA) { rs_matcher_free(cache[--n].m); }
                if (rs_matcher_create(rs, q->agent, strlen(q->agent), RS_SEMANTICS_GOOGLE, &m) != RS_OK) break;
                cache[n].agent = q->agent;
                cache[n++].m = m;
            }
            rs_verdict v;
            if (rs_matcher_check_url(m, q->url, strlen(q->url), 0, &v) != RS_OK) break;
            answers[b->q0 + i] = (int8_t)v.disallowed;
            r->answered++;
            if (i == 0) t1 = rs_bench_now();
        }
        const double t2 = rs_bench_now();
        for (int k = 0; k < n; k++) rs_matcher_free(cache[k].m);
        rs_ruleset_free(rs);
        if (b->nq == 0) continue;
        r->parse_s += t1 - t0;
        r->parse_blocks++;
        if (b->nq > 1) {
            r->query_s += t2 - t1;
            r->timed_queries += b->nq - 1;
        }
    }
}
