/*
 * output.c - buffered stdout: records accumulate in one buffer and go out in
 * large write()s. Write errors are reported once; a closed pipe ends the
 * process through SIGPIPE as usual for filters.
 */
#include "cli/cli.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

static rs_outbuf out_buf;
static int out_failed;

rs_outbuf *cli_out(void) { return &out_buf; }

int cli_out_flush(size_t threshold)
{
    if (out_failed) return -1;
    if (out_buf.len < threshold || out_buf.len == 0) return 0;
    size_t done = 0;
    while (done < out_buf.len) {
        const ssize_t n = write(STDOUT_FILENO, out_buf.ptr + done, out_buf.len - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            cli_error("error writing output: %s", strerror(errno));
            out_failed = 1;
            return -1;
        }
        done += (size_t)n;
    }
    out_buf.len = 0;
    return 0;
}

int cli_out_finish(void)
{
    const int rc = cli_out_flush(0);
    rs_outbuf_free(&out_buf);
    if (rc == 0 && close(STDOUT_FILENO) != 0 && errno != EBADF) {
        cli_error("error writing output: %s", strerror(errno));
        return -1;
    }
    return rc;
}

int cli_write_file(const char *path, const void *data, size_t len, const char *what)
{
    FILE *f = fopen(path, "w");
    int rc = 0;
    if (f == NULL || fwrite(data, 1, len, f) != len) rc = -1;
    if (f && fclose(f) != 0) rc = -1;
    if (rc) cli_error("cannot write %s to '%s'", what, path);
    return rc;
}
