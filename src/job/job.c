/*
 * job.c - the bulk job handle (robotscan.h, "Bulk jobs"): settings, callbacks,
 * errors on the handle, and the hand-off to the kind's engine (urls.c, logs.c).
 */
#include "job/job.h"
#include "common/common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

double job_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static rs_status fail(rs_job *job, rs_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static rs_status fail(rs_job *job, rs_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(job->errmsg, sizeof job->errmsg, fmt, ap);
    va_end(ap);
    return st;
}

/* ===== Records to the user ===== */

/* Records of fields (RS_FORMAT_FIELDS, format.c) back into rs_job_record arrays. */
static int deliver_records(rs_job *job, const char *p, size_t n)
{
    size_t nrec = 0, nfield = 0;
    for (size_t at = 0; at + 6 <= n;) {     /* count first: the arrays are sized once a write */
        uint32_t body;
        uint16_t count;
        memcpy(&body, p + at, 4);
        memcpy(&count, p + at + 4, 2);
        nrec++;
        nfield += count;
        at += 4 + (size_t)body;
    }
    if (nrec > job->recs_cap) {
        rs_job_record *r = rs_realloc(job->recs, nrec * sizeof *r);
        if (r == NULL) return -1;
        job->recs = r;
        job->recs_cap = nrec;
    }
    if (nfield > job->rec_fields_cap) {
        rs_str *f = rs_realloc(job->rec_fields, nfield * sizeof *f);
        if (f == NULL) return -1;
        job->rec_fields = f;
        job->rec_fields_cap = nfield;
    }
    size_t k = 0, at = 0;
    for (size_t i = 0; i < nrec; i++) {
        uint32_t body;
        uint16_t count;
        memcpy(&body, p + at, 4);
        memcpy(&count, p + at + 4, 2);
        const size_t end = at + 4 + body;
        at += 6;
        rs_str *fields = job->rec_fields + k;
        for (uint16_t c = 0; c < count; c++) {
            uint32_t len;
            memcpy(&len, p + at, 4);
            fields[c].ptr = p + at + 4;
            fields[c].len = len;
            at += 4 + len;
        }
        /* the input line is always the first field (urls.c, logs.c put it there) */
        uint64_t line = 0;
        for (size_t d = 0; d < fields[0].len; d++) line = line * 10 + (uint64_t)(fields[0].ptr[d] - '0');
        job->recs[i].input_line = line;
        job->recs[i].fields = job->input_line ? fields : fields + 1;
        k += count;
        at = end;
    }
    return job->records(job->output_user, job->recs, nrec);
}

static int io_write(void *ctx, const void *p, size_t n)
{
    rs_job *job = ctx;
    if (job->records) return deliver_records(job, p, n);
    if (job->output) return job->output(job->output_user, p, n);
    return 0;
}

static void io_diag(void *ctx, const char *p, size_t n)
{
    rs_job *job = ctx;
    if (job->diag) job->diag(job->diag_user, p, n);
}

static void io_progress(void *ctx, uint64_t lines, uint64_t bytes_in, uint64_t file_size, double seconds, int final)
{
    rs_job *job = ctx;
    const rs_job_progress pr = { lines, bytes_in, file_size, seconds, final };
    if (job->progress) job->progress(job->progress_user, &pr);
}

/* ===== Handle ===== */

rs_job *rs_job_create(rs_job_kind kind)
{
    const rs_job_ops *ops = kind == RS_JOB_URLS ? &rs_job_urls_ops : kind == RS_JOB_LOGS ? &rs_job_logs_ops
                            : kind == RS_JOB_DIFF ? &rs_job_diff_ops : NULL;
    if (ops == NULL) return NULL;
    rs_job *job = rs_calloc(1, sizeof *job);
    if (job == NULL) return NULL;
    job->kind = kind;
    job->ops = ops;
    job->workers = 1;
    job->memory_limit = JOB_DEFAULT_MEMORY_LIMIT;
    job->semantics = RS_SEMANTICS_GOOGLE;
    job->semantics_new = -1;
    job->missing = RS_MISSING_ALLOW;
    job->header = 1;
    job->tallies = 1;
    job->format = RS_FORMAT_TSV;
    job->io.write = io_write;
    job->io.diag = io_diag;
    job->io.progress = io_progress;
    job->io.ctx = job;
    return job;
}

static void free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++) rs_free(v[i]);
}

void rs_job_free(rs_job *job)
{
    if (job == NULL) return;
    if (job->ops->free) job->ops->free(job);
    if (job->own_sites_new && job->sites_new != job->sites) rs_sites_free(job->sites_new);
    if (job->own_sites) rs_sites_free(job->sites);
    free_list(job->fields, job->n_fields);
    free_list(job->verify, job->n_verify);
    free_list(job->robots, job->n_robots);
    free_list(job->robots_new, job->n_robots_new);
    free_list(job->agents, job->n_agents);
    rs_free(job->agents);
    free_list(job->inputs, job->n_inputs);
    free_list(job->names, job->n_names);
    rs_free(job->names);
    rs_free(job->spill_dir);
    rs_free(job->log_format);
    rs_free(job->host);
    rs_free(job->scheme);
    rs_free(job->recs);
    rs_free(job->rec_fields);
    rs_outbuf_free(&job->stats);
    rs_io_free(&job->io);
    rs_free(job);
}

const char *rs_job_errmsg(const rs_job *job)
{
    return job ? job->errmsg : "no job (out of memory)";
}

static rs_status settable(rs_job *job)
{
    if (job->started) return fail(job, RS_ERR_USAGE, "settings are taken before the first run");
    return RS_OK;
}

rs_status rs_job_set(rs_job *job, rs_job_param param, int64_t v)
{
    RS_FORWARD(settable(job));
    switch (param) {
    case RS_JOB_WORKERS:
        if (v < 1 || v > SPILL_MAX_JOBS) return fail(job, RS_ERR_USAGE, "workers: 1 to %d, not %lld", SPILL_MAX_JOBS, (long long)v);
        job->workers = (int)v;
        return RS_OK;
    case RS_JOB_MEMORY_LIMIT:
        if (v != 0 && v < ((int64_t)1 << 20)) return fail(job, RS_ERR_USAGE, "memory limit: at least 1 MiB, or 0 for none");
        job->memory_limit = (uint64_t)v;
        return RS_OK;
    case RS_JOB_SEMANTICS:
        if (v != RS_SEMANTICS_GOOGLE && v != RS_SEMANTICS_FIRST_MATCH) return fail(job, RS_ERR_USAGE, "unknown semantics %lld", (long long)v);
        job->semantics = (rs_semantics)v;
        return RS_OK;
    case RS_JOB_MISSING:
        if (v < RS_MISSING_ALLOW || v > RS_MISSING_SKIP) return fail(job, RS_ERR_USAGE, "unknown missing-robots policy %lld", (long long)v);
        job->missing = (rs_missing)v;
        return RS_OK;
    case RS_JOB_FORMAT:
        if (v < RS_FORMAT_TEXT || v > RS_FORMAT_JSONL) return fail(job, RS_ERR_USAGE, "unknown format %lld", (long long)v);
        if (!job->records) job->format = (rs_format)v;
        return RS_OK;
    case RS_JOB_ONLY:
        if (v < 0 || v > 2) return fail(job, RS_ERR_USAGE, "only: 0, 1 or 2, not %lld", (long long)v);
        job->only = (int)v;
        return RS_OK;
    case RS_JOB_ENCODE_URLS: job->encode_urls = v != 0; return RS_OK;
    case RS_JOB_HEADER: job->header = v != 0; return RS_OK;
    case RS_JOB_INPUT_LINE: job->input_line = v != 0; return RS_OK;
    case RS_JOB_VERBOSE: job->verbose = v != 0; return RS_OK;
    case RS_JOB_NO_RECORDS: job->no_records = v != 0; return RS_OK;
    case RS_JOB_TALLIES: job->tallies = v != 0; return RS_OK;
    case RS_JOB_SEMANTICS_NEW:
        if (v != RS_SEMANTICS_GOOGLE && v != RS_SEMANTICS_FIRST_MATCH) return fail(job, RS_ERR_USAGE, "unknown semantics %lld", (long long)v);
        job->semantics_new = (int)v;
        return RS_OK;
    case RS_JOB_DIFF_ALL: job->diff_all = v != 0; return RS_OK;
    case RS_JOB_DIFF_RULES: job->diff_rules = v != 0; return RS_OK;
    case RS_JOB_DIFF_LOGS: job->diff_logs = v != 0; return RS_OK;
    }
    return fail(job, RS_ERR_USAGE, "unknown parameter %d", (int)param);
}

static rs_status dup_into(rs_job *job, char **slot, const char *v)
{
    char *d = rs_strdup(v);
    if (d == NULL) return fail(job, RS_ERR_NOMEM, "out of memory");
    rs_free(*slot);
    *slot = d;
    return RS_OK;
}

static rs_status add_to(rs_job *job, char **list, size_t *n, size_t max, const char *v, const char *what)
{
    if (v == NULL) return fail(job, RS_ERR_USAGE, "%s: NULL", what);
    if (*n >= max) return fail(job, RS_ERR_LIMIT, "too many %s (at most %zu)", what, max);
    list[*n] = NULL;
    RS_FORWARD(dup_into(job, &list[*n], v));
    (*n)++;
    return RS_OK;
}

rs_status rs_job_set_string(rs_job *job, rs_job_sparam param, const char *v)
{
    RS_FORWARD(settable(job));
    if (v == NULL) return fail(job, RS_ERR_USAGE, "a NULL value");
    switch (param) {
    case RS_JOB_SPILL_DIR: return dup_into(job, &job->spill_dir, v);
    case RS_JOB_LOG_FORMAT: return dup_into(job, &job->log_format, v);
    case RS_JOB_HOST: return dup_into(job, &job->host, v);
    case RS_JOB_SCHEME: return dup_into(job, &job->scheme, v);
    case RS_JOB_FIELD: return add_to(job, job->fields, &job->n_fields, JOB_MAX_LIST, v, "fields");
    case RS_JOB_VERIFY: return add_to(job, job->verify, &job->n_verify, JOB_MAX_LIST, v, "verify files");
    }
    return fail(job, RS_ERR_USAGE, "unknown parameter %d", (int)param);
}

rs_status rs_job_add_robots(rs_job *job, const char *path)
{
    RS_FORWARD(settable(job));
    if (job->sites && !job->own_sites) return fail(job, RS_ERR_USAGE, "the job uses the caller's sites");
    return add_to(job, job->robots, &job->n_robots, JOB_MAX_LIST, path, "robots sources");
}

rs_status rs_job_use_sites(rs_job *job, rs_sites *sites)
{
    RS_FORWARD(settable(job));
    if (job->n_robots) return fail(job, RS_ERR_USAGE, "the job has robots sources of its own");
    job->sites = sites;
    job->own_sites = 0;
    return RS_OK;
}

rs_status rs_job_add_robots_new(rs_job *job, const char *path)
{
    RS_FORWARD(settable(job));
    if (job->kind != RS_JOB_DIFF) return fail(job, RS_ERR_USAGE, "a new side is for diff jobs");
    if (job->sites_new && !job->own_sites_new) return fail(job, RS_ERR_USAGE, "the new side uses the caller's sites");
    return add_to(job, job->robots_new, &job->n_robots_new, JOB_MAX_LIST, path, "robots sources");
}

rs_status rs_job_use_sites_new(rs_job *job, rs_sites *sites)
{
    RS_FORWARD(settable(job));
    if (job->kind != RS_JOB_DIFF) return fail(job, RS_ERR_USAGE, "a new side is for diff jobs");
    if (job->n_robots_new) return fail(job, RS_ERR_USAGE, "the new side has robots sources of its own");
    job->sites_new = sites;
    job->own_sites_new = 0;
    return RS_OK;
}

rs_status rs_job_add_agent(rs_job *job, const char *token)
{
    RS_FORWARD(settable(job));
    if (token == NULL) return fail(job, RS_ERR_USAGE, "a NULL agent");
    const size_t max = job->kind == RS_JOB_DIFF ? SIZE_MAX / sizeof *job->agents : JOB_MAX_AGENTS;
    if (job->n_agents == job->cap_agents && job->n_agents < max) {
        const size_t cap = job->cap_agents ? job->cap_agents * 2 : 16;
        char **a = rs_realloc(job->agents, (cap < max ? cap : max) * sizeof *a);
        if (a == NULL) return fail(job, RS_ERR_NOMEM, "out of memory");
        job->agents = a;
        job->cap_agents = cap < max ? cap : max;
    }
    return add_to(job, job->agents, &job->n_agents, job->cap_agents, token, "agents");
}

rs_status rs_job_set_output(rs_job *job, rs_job_output_fn fn, void *user)
{
    RS_FORWARD(settable(job));
    job->output = fn;
    job->records = NULL;
    job->output_user = user;
    if (job->format == RS_FORMAT_FIELDS) job->format = RS_FORMAT_TSV;
    return RS_OK;
}

rs_status rs_job_set_records(rs_job *job, rs_job_records_fn fn, void *user)
{
    RS_FORWARD(settable(job));
    job->records = fn;
    job->output = NULL;
    job->output_user = user;
    job->format = RS_FORMAT_FIELDS;
    return RS_OK;
}

rs_status rs_job_set_diag(rs_job *job, rs_job_diag_fn fn, void *user)
{
    job->diag = fn;
    job->diag_user = user;
    return RS_OK;
}

rs_status rs_job_set_progress(rs_job *job, rs_job_progress_fn fn, void *user)
{
    job->progress = fn;
    job->progress_user = user;
    job->io.want_progress = fn != NULL;
    return RS_OK;
}

void job_set_columns(rs_job *job, const char *const *names, size_t n)
{
    const size_t max = sizeof job->columns / sizeof *job->columns - 1;
    if (n > max) n = max;
    size_t k = 0;
    if (job->input_line) job->columns[k++] = "input_line";
    for (size_t i = 0; i < n; i++) job->columns[k++] = names[i];
    job->columns[k] = NULL;
    job->n_columns = k;
}

const char *job_spill_dir(const rs_job *job)
{
    if (job->spill_dir) return job->spill_dir;
    const char *d = getenv("TMPDIR");
    return d && d[0] ? d : "/tmp";
}

/* ===== Running ===== */

/* The io's first error, as the result of a call. */
static rs_status io_result(rs_job *job, rs_status st)
{
    rs_job_io *io = &job->io;
    if (__atomic_load_n(&io->canceled, __ATOMIC_RELAXED)) {
        io->status = RS_OK;
        return fail(job, RS_ERR_CANCELED, "canceled");
    }
    if (io->status != RS_OK) {
        const rs_status s = io->status;
        /* some sources fail without a message (rs_sites_errmsg after out of memory) */
        snprintf(job->errmsg, sizeof job->errmsg, "%s", io->errmsg[0] ? io->errmsg : rs_status_str(s));
        io->status = RS_OK;
        io->errmsg[0] = '\0';
        return s;
    }
    if (st != RS_OK && job->errmsg[0] == '\0') return fail(job, st, "%s", rs_status_str(st));
    return st;
}

static rs_status start(rs_job *job)
{
    if (job->started) return RS_OK;
    job->errmsg[0] = '\0';
    job->t_start = job_now();
    if (job->impl && job->ops->free) job->ops->free(job);  /* what a failed start left */
    const rs_status st = job->ops->start(job);
    if (st != RS_OK) {
        if (job->ops->free) job->ops->free(job);    /* what it set up: a later call starts afresh, leaking nothing */
        return io_result(job, st);
    }
    job->started = 1;
    return RS_OK;
}

const char *const *rs_job_columns(rs_job *job, size_t *n)
{
    *n = 0;
    if (start(job) != RS_OK) return job->columns;  /* an empty list; the error is on the handle */
    *n = job->n_columns;
    return job->columns;
}

static rs_status run(rs_job *job, const job_input *in, const char *record_name)
{
    if (job->finished) return fail(job, RS_ERR_USAGE, "the job is finished");
    RS_FORWARD(start(job));
    job->errmsg[0] = '\0';
    if (record_name && job->n_inputs < JOB_MAX_LIST) {
        char *d = rs_strdup(record_name);
        if (d == NULL) return fail(job, RS_ERR_NOMEM, "out of memory");
        job->inputs[job->n_inputs++] = d;
    }
    /* the name stays valid while the job lives: the engine keeps it in notes */
    char **names = rs_realloc(job->names, (job->n_names + 1) * sizeof *names);
    if (names == NULL) return fail(job, RS_ERR_NOMEM, "out of memory");
    job->names = names;
    if ((names[job->n_names] = rs_strdup(in->name ? in->name : "(input)")) == NULL)
        return fail(job, RS_ERR_NOMEM, "out of memory");
    const job_input named = { in->path, in->fd, names[job->n_names++] };
    const double t0 = job_now();
    rs_status st = job->ops->run(job, &named);
    if (rs_io_flush(&job->io, 0) != 0 && st == RS_OK) st = RS_ERR_IO;
    job->seconds += job_now() - t0;
    return io_result(job, st);
}

rs_status rs_job_run(rs_job *job, const char *path)
{
    const int std = path == NULL || strcmp(path, "-") == 0;
    const job_input in = { std ? NULL : path, -1, std ? "(stdin)" : path };
    return run(job, &in, path);
}

rs_status rs_job_run_fd(rs_job *job, int fd, const char *name)
{
    if (fd < 0) return fail(job, RS_ERR_USAGE, "a negative descriptor");
    const job_input in = { NULL, fd, name ? name : "(descriptor)" };
    return run(job, &in, name);
}

rs_status rs_job_run_buffer(rs_job *job, const void *data, size_t size, const char *name)
{
    /* an anonymous in-memory file: the reader detects and decompresses it as any input */
    const int fd = memfd_create("robotscan-input", MFD_CLOEXEC);
    if (fd < 0) return fail(job, RS_ERR_IO, "cannot create an in-memory file: %s", strerror(errno));
    for (size_t done = 0; done < size;) {
        const ssize_t n = write(fd, (const char *)data + done, size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            close(fd);
            return fail(job, RS_ERR_IO, "cannot fill an in-memory file: %s", strerror(errno));
        }
        done += (size_t)n;
    }
    if (lseek(fd, 0, SEEK_SET) != 0) {
        close(fd);
        return fail(job, RS_ERR_IO, "cannot rewind an in-memory file: %s", strerror(errno));
    }
    const rs_status st = rs_job_run_fd(job, fd, name ? name : "(buffer)");
    close(fd);
    return st;
}

void rs_job_cancel(rs_job *job)
{
    if (job) __atomic_store_n(&job->io.canceled, 1, __ATOMIC_RELAXED);
}

rs_status rs_job_finish(rs_job *job)
{
    if (job->finished) return RS_OK;
    RS_FORWARD(start(job));
    job->errmsg[0] = '\0';
    job->finished = 1;
    const double t0 = job_now();
    rs_status st = job->ops->finish ? job->ops->finish(job) : RS_OK;
    if (rs_io_flush(&job->io, 0) != 0 && st == RS_OK) st = RS_ERR_IO;
    job->seconds += job_now() - t0;
    return io_result(job, st);
}

int rs_job_input_failed(const rs_job *job)
{
    return job && job->started && job->ops->input_failed ? job->ops->input_failed(job) : 0;
}

rs_status rs_job_totals_get(rs_job *job, rs_job_totals *out)
{
    memset(out, 0, sizeof *out);
    if (job->started) job->ops->totals(job, out);
    out->seconds = job->seconds;
    return RS_OK;
}

rs_status rs_job_stats_json(rs_job *job, const char **json, size_t *size)
{
    if (!job->finished) return fail(job, RS_ERR_USAGE, "statistics come after rs_job_finish");
    if (job->stats.len == 0) {
        const rs_status st = job->ops->stats(job, &job->stats);
        if (st != RS_OK) {
            job->stats.len = 0;
            return fail(job, st, "statistics: %s", rs_status_str(st));
        }
    }
    *json = job->stats.ptr;
    *size = job->stats.len;
    return RS_OK;
}

rs_status rs_parse_size(const char *v, uint64_t *out)
{
    if (v == NULL) return RS_ERR_USAGE;
    char *end;
    errno = 0;
    const double x = strtod(v, &end);
    if (errno || end == v || !(x > 0)) return RS_ERR_USAGE;
    double mult = 1;
    switch (*end) {
    case '\0': break;
    case 'k': case 'K': mult = 1024.0; end++; break;
    case 'm': case 'M': mult = 1024.0 * 1024; end++; break;
    case 'g': case 'G': mult = 1024.0 * 1024 * 1024; end++; break;
    case 't': case 'T': mult = 1024.0 * 1024 * 1024 * 1024; end++; break;
    default: return RS_ERR_USAGE;
    }
    if (*end == 'i' || *end == 'I') end++;
    if (*end == 'b' || *end == 'B') end++;
    if (*end != '\0' || x * mult < 1024 * 1024 || x * mult > 1e18) return RS_ERR_USAGE;
    *out = (uint64_t)(x * mult);
    return RS_OK;
}
