/*
 * robots_input.c - reading one robots.txt file for check and lint: plain,
 * or gzip/zstd-compressed (detected from the content, decoded up to the
 * limit), never a compressed or WARC file read as if it were text.
 */
#include "cli/cli.h"

#include <stdlib.h>

/* Compressed files are read whole up to this size, then decoded. */
#define MAX_COMPRESSED ((size_t)64 << 20)

int cli_read_robots(const char *path, size_t max, char **data, size_t *size)
{
    char *raw = NULL;
    size_t n = 0;
    int truncated = 0;
    if (cli_read_file(path, MAX_COMPRESSED, &raw, &n, &truncated) != 0) return -1;
    const unsigned char *h = (const unsigned char *)raw;
    const int gz = n >= 2 && h[0] == 0x1f && h[1] == 0x8b;
    const int zst = n >= 4 && h[0] == 0x28 && h[1] == 0xb5 && h[2] == 0x2f && h[3] == 0xfd;
    if (!gz && !zst) {
        if (n > max) n = max;
        *data = raw;
        *size = n;
        return 0;
    }
    char *out = NULL;
    size_t len = 0;
    const rs_status st = truncated ? RS_ERR_LIMIT : rs_robots_decode(raw, n, max, &out, &len);
    free(raw);
    if (st != RS_OK) {
        if (st == RS_ERR_LIMIT)
            cli_error("'%s': compressed file over 64 MiB", path);
        else
            cli_error("'%s': damaged or truncated %s data", path, gz ? "gzip" : "zstd");
        return -1;
    }
    *data = out;
    *size = len;
    return 0;
}
