/*
 * spill.c - temporary zstd-compressed files for work past the memory budget
 * (SPEC 7, `logs --memory-limit`).
 *
 * A spill file is created in $TMPDIR (else /tmp) and unlinked at once, so it
 * disappears when closed or when the process ends, also on error, SIGINT or
 * SIGTERM. It is written once as one zstd stream, then rewound and read back
 * sequentially.
 */
#include "cli/spill.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

int spill_open(spill_file *s)
{
    memset(s, 0, sizeof *s);
    const char *dir = getenv("TMPDIR");
    if (dir == NULL || dir[0] == '\0') dir = "/tmp";
    char path[4096];
    snprintf(path, sizeof path, "%s/robotscan-spill-XXXXXX", dir);
    const int fd = mkstemp(path);
    if (fd < 0) return -1;
    unlink(path);
    s->f = fdopen(fd, "w+b");
    s->cs = ZSTD_createCStream();
    s->cap = ZSTD_CStreamOutSize();
    s->buf = malloc(s->cap);
    if (s->f == NULL || s->cs == NULL || s->buf == NULL) {
        if (s->f == NULL) close(fd);
        spill_close(s);
        return -1;
    }
    ZSTD_CCtx_setParameter(s->cs, ZSTD_c_compressionLevel, 1);
    return 0;
}

static int pump(spill_file *s, ZSTD_inBuffer *in, ZSTD_EndDirective end)
{
    for (;;) {
        ZSTD_outBuffer out = { s->buf, s->cap, 0 };
        const size_t left = ZSTD_compressStream2(s->cs, &out, in, end);
        if (ZSTD_isError(left)) return -1;
        if (out.pos && fwrite(s->buf, 1, out.pos, s->f) != out.pos) return -1;
        if (end == ZSTD_e_end ? left == 0 : in->pos == in->size) return 0;
    }
}

int spill_write(spill_file *s, const void *p, size_t n)
{
    ZSTD_inBuffer in = { p, n, 0 };
    s->raw_bytes += n;
    return n ? pump(s, &in, ZSTD_e_continue) : 0;
}

int spill_finish(spill_file *s)
{
    ZSTD_inBuffer in = { NULL, 0, 0 };
    if (pump(s, &in, ZSTD_e_end) != 0 || fflush(s->f) != 0 || fseek(s->f, 0, SEEK_SET) != 0) return -1;
    ZSTD_freeCStream(s->cs);
    s->cs = NULL;
    s->ds = ZSTD_createDStream();
    free(s->buf);
    s->cap = ZSTD_DStreamInSize();
    s->buf = malloc(s->cap);
    if (s->ds == NULL || s->buf == NULL) return -1;
    s->in_pos = s->in_len = 0;
    return 0;
}

int spill_read(spill_file *s, void *p, size_t n)
{
    ZSTD_outBuffer out = { p, n, 0 };
    while (out.pos < n) {
        if (s->in_pos == s->in_len) {
            s->in_len = fread(s->buf, 1, s->cap, s->f);
            s->in_pos = 0;
            if (s->in_len == 0) return out.pos == 0 && !ferror(s->f) ? 0 : -1;
        }
        ZSTD_inBuffer in = { s->buf, s->in_len, s->in_pos };
        const size_t r = ZSTD_decompressStream(s->ds, &out, &in);
        if (ZSTD_isError(r)) return -1;
        s->in_pos = in.pos;
    }
    return 1;
}

void spill_close(spill_file *s)
{
    if (s->f) fclose(s->f);
    ZSTD_freeCStream(s->cs);
    ZSTD_freeDStream(s->ds);
    free(s->buf);
    memset(s, 0, sizeof *s);
}

int spill_parse_size(const char *v, uint64_t *out)
{
    char *end;
    errno = 0;
    const double x = strtod(v, &end);
    if (errno || end == v || !(x > 0)) return -1;
    double mult = 1;
    switch (*end) {
    case '\0': break;
    case 'k': case 'K': mult = 1024.0; end++; break;
    case 'm': case 'M': mult = 1024.0 * 1024; end++; break;
    case 'g': case 'G': mult = 1024.0 * 1024 * 1024; end++; break;
    case 't': case 'T': mult = 1024.0 * 1024 * 1024 * 1024; end++; break;
    default: return -1;
    }
    if (*end == 'i' || *end == 'I') end++;
    if (*end == 'b' || *end == 'B') end++;
    if (*end != '\0' || x * mult < 1024 * 1024 || x * mult > 1e18) return -1;
    *out = (uint64_t)(x * mult);
    return 0;
}
