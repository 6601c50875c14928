/*
 * io.c - a job's results on their way to the user (io.h).
 */
#include "job/io.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int rs_io_flush(rs_job_io *io, size_t threshold)
{
    if (io->write_failed) return -1;
    if (io->out.len < threshold || io->out.len == 0) return 0;
    if (rs_io_canceled(io)) return -1;  /* nothing reaches the user after rs_job_cancel */
    if (io->write(io->ctx, io->out.ptr, io->out.len) != 0) {
        io->write_failed = 1;
        rs_io_error(io, RS_ERR_IO, "the output callback failed");
        return -1;
    }
    io->out.len = 0;
    return 0;
}

int rs_io_write(rs_job_io *io, const void *p, size_t len)
{
    if (rs_io_flush(io, 0) != 0) return -1;
    if (len == 0) return 0;
    if (rs_io_canceled(io)) return -1;
    if (io->write(io->ctx, p, len) != 0) {
        io->write_failed = 1;
        rs_io_error(io, RS_ERR_IO, "the output callback failed");
        return -1;
    }
    return 0;
}

void rs_io_diag(rs_job_io *io, const char *p, size_t len)
{
    if (io->diag && len) io->diag(io->ctx, p, len);
}

void rs_io_diagf(rs_job_io *io, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n > 0) rs_io_diag(io, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

void rs_io_error(rs_job_io *io, rs_status st, const char *fmt, ...)
{
    if (io->status != RS_OK) return;
    io->status = st == RS_OK ? RS_ERR_IO : st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(io->errmsg, sizeof io->errmsg, fmt, ap);
    va_end(ap);
}

void rs_io_free(rs_job_io *io)
{
    rs_outbuf_free(&io->out);
}

int rs_io_canceled(rs_job_io *io)
{
    if (!__atomic_load_n(&io->canceled, __ATOMIC_RELAXED)) return 0;
    rs_io_error(io, RS_ERR_CANCELED, "canceled");
    return 1;
}

rs_status rs_io_open_input(rs_job_io *io, const job_input *in, size_t block_size, rs_reader **out)
{
    rs_reader_opts ro;
    memset(&ro, 0, sizeof ro);
    ro.block_size = block_size;
    ro.map = 1;                 /* the CLI turns a shrinking file's SIGBUS into an error */
    rs_reader *r = NULL;
    rs_status st;
    if (in->path) st = rs_reader_open(in->path, &ro, &r);
    else if (in->fd >= 0) st = rs_reader_open_fd(in->fd, in->name, &ro, &r);
    else st = rs_reader_open(NULL, &ro, &r);
    if (st != RS_OK) {
        rs_io_error(io, st, "%s", r ? rs_reader_errmsg(r) : rs_status_str(st));
        rs_reader_free(r);
        r = NULL;
    }
    *out = r;
    return st;
}
