/*
 * output.c - buffered stdout: records accumulate in one buffer and go out in
 * large write()s. Write errors are reported once; a closed pipe ends the
 * process through SIGPIPE as usual for filters.
 */
#include "cli/cli.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static rs_outbuf out_buf;
static int out_failed;

rs_outbuf *cli_out(void) { return &out_buf; }

/* Writes p[0, len) to stdout; the first error is reported, and every later write fails. */
static int write_all(const char *p, size_t len)
{
    if (out_failed) return -1;
    size_t done = 0;
    while (done < len) {
        const ssize_t n = write(STDOUT_FILENO, p + done, len - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            cli_error("error writing output: %s", strerror(errno));
            out_failed = 1;
            return -1;
        }
        done += (size_t)n;
    }
    return 0;
}

int cli_out_flush(size_t threshold)
{
    if (out_failed) return -1;
    if (out_buf.len < threshold || out_buf.len == 0) return 0;
    if (write_all(out_buf.ptr, out_buf.len) != 0) return -1;
    out_buf.len = 0;
    return 0;
}

int cli_out_write(const void *p, size_t len)
{
    if (cli_out_flush(0) != 0) return -1;
    return write_all(p, len);
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
    /* A temporary file beside @path, renamed over it: readers never see half a file,
     * and a failed run leaves an older file intact. Special files (/dev/stdout, the
     * memory file of --html under /proc/self/fd) are written in place. */
    struct stat st;
    if (!strncmp(path, "/proc/", 6) || !strncmp(path, "/dev/", 5) ||
        (stat(path, &st) == 0 && !S_ISREG(st.st_mode))) {
        FILE *f = fopen(path, "w");
        int err = 0;
        if (f == NULL || fwrite(data, 1, len, f) != len) err = errno ? errno : EIO;
        if (f && fclose(f) != 0 && !err) err = errno ? errno : EIO;
        if (err) cli_error("%s: cannot write %s: %s", path, what, strerror(err));
        return err ? -1 : 0;
    }
    char tmp[4096];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= sizeof tmp) {
        cli_error("%s: cannot write %s: path too long", path, what);
        return -1;
    }
    FILE *f = fopen(tmp, "w");
    int err = 0;
    if (f == NULL || fwrite(data, 1, len, f) != len) err = errno ? errno : EIO;
    if (f && fclose(f) != 0 && !err) err = errno ? errno : EIO;
    if (!err && rename(tmp, path) != 0) err = errno;
    if (err) {
        if (f) unlink(tmp);
        cli_error("%s: cannot write %s: %s", path, what, strerror(err));
        return -1;
    }
    return 0;
}

int cli_check_writable(const char *path, const char *what)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            cli_error("%s: cannot write %s: is a directory", path, what);
            return -1;
        }
        if (access(path, W_OK) != 0) {
            cli_error("%s: cannot write %s: %s", path, what, strerror(errno));
            return -1;
        }
        if (!S_ISREG(st.st_mode)) return 0;  /* /dev/stdout, a pipe: written in place */
    }
    /* The file is written as a temporary beside it, then renamed: the directory must be writable. */
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (slash == NULL) snprintf(dir, sizeof dir, ".");
    else if (slash == path) snprintf(dir, sizeof dir, "/");
    else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (access(dir, W_OK | X_OK) != 0) {
        cli_error("%s: cannot write %s: directory %s: %s", path, what, dir, strerror(errno));
        return -1;
    }
    return 0;
}
