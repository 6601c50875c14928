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
