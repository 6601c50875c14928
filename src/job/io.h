/*
 * io.h - where a job's results go (internal): records (formatted bytes,
 * gathered and written in large pieces), diagnostic lines, progress, and the
 * job's first error. The engine (pipeline, partitions) writes only here;
 * the job handle (job.c) connects it to the user's callbacks.
 */
#ifndef RS_JOB_IO_H
#define RS_JOB_IO_H

#include "robotscan.h"

/* One input of a run: a path, else an open descriptor; neither: stdin. */
typedef struct {
    const char *path;       /* NULL: fd */
    int fd;                 /* < 0 with no path: stdin */
    const char *name;       /* for messages: the path, "(stdin)", or the caller's name */
} job_input;

typedef struct rs_job_io {
    rs_outbuf out;                  /* records not yet handed to write */
    /* Takes @n bytes of whole records; @return 0, or nonzero to stop the job. */
    int (*write)(void *ctx, const void *p, size_t n);
    /* Takes diagnostic text (whole lines). May be NULL: dropped. */
    void (*diag)(void *ctx, const char *p, size_t n);
    /* Progress: lines so far, input bytes read, the input's size (0: unknown),
     * seconds since the job started, and whether this is the run's last call. */
    void (*progress)(void *ctx, uint64_t lines, uint64_t bytes_in, uint64_t file_size, double seconds,
                     int final);
    void *ctx;
    int want_progress;
    int canceled;                   /* rs_job_cancel (atomic): runs stop at the next block */
    int write_failed;               /* write refused: every later write fails */
    rs_status status;               /* the first error (RS_OK: none) */
    char errmsg[512];
} rs_job_io;

/* Writes what the buffer holds once it holds >= @threshold bytes. @return 0 or -1. */
int rs_io_flush(rs_job_io *io, size_t threshold);
/* Writes the buffer, then @len bytes at @p with no copy. @return 0 or -1. */
int rs_io_write(rs_job_io *io, const void *p, size_t len);
/* Hands diagnostic text to the user. */
void rs_io_diag(rs_job_io *io, const char *p, size_t len);
void rs_io_diagf(rs_job_io *io, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Records the job's error (the first one is kept). */
void rs_io_error(rs_job_io *io, rs_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void rs_io_free(rs_job_io *io);
/* @return nonzero once the job is canceled (the error is then on the io). */
int rs_io_canceled(rs_job_io *io);
/* Opens @in for blocks of @block_size (0: the default); maps files. Errors go on the io. */
rs_status rs_io_open_input(rs_job_io *io, const job_input *in, size_t block_size, rs_reader **out);

#endif /* RS_JOB_IO_H */
