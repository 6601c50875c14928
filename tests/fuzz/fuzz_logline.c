/*
 * fuzz_logline.c - fuzzes log-format compilation, line parsing and bot
 * identification (src/log).
 *
 * Input: byte 0 picks the format (combined, common, vhost_combined, or the
 * input itself up to the first newline as an nginx log_format); the rest is
 * one log line. Every parsed record's slices must lie inside the line; the
 * user agent then goes through rs_bot_identify.
 *
 * With libFuzzer:  clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc -D_GNU_SOURCE \
 *                      tests/fuzz/fuzz_logline.c src/log/[a-z]*.c src/common/common.c -o fuzz_logline
 * Without (replays files given as arguments, e.g. a corpus):
 *                  cc -DRS_FUZZ_MAIN -Isrc -D_GNU_SOURCE tests/fuzz/fuzz_logline.c src/log/[a-z]*.c \
 *                      src/common/common.c -o fuzz_logline_replay
 */
#include "robotscan.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_inside(rs_str s, const char *line, size_t len)
{
    if (s.len > 0 && (s.ptr < line || s.ptr + s.len > line + len)) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static rs_botid *bots;
    if (bots == NULL && rs_botid_create(NULL, 0, &bots) != RS_OK) abort();
    if (size == 0) return 0;
    static const char *const names[] = {"combined", "common", "vhost_combined"};
    const char *in = (const char *)data + 1;
    size_t len = size - 1;
    rs_logformat *fmt = NULL;
    if (data[0] % 4 < 3) {
        if (rs_logformat_create(names[data[0] % 4], strlen(names[data[0] % 4]), NULL, 0, &fmt) != RS_OK) abort();
    } else {
        const char *nl = memchr(in, '\n', len);
        if (nl == NULL) return 0;
        char err[64];
        if (rs_logformat_create(in, (size_t)(nl - in), err, sizeof err, &fmt) != RS_OK) return 0;
        len -= (size_t)(nl + 1 - in);
        in = nl + 1;
    }
    /* Copy to an exact-size buffer so ASan sees any over-read. */
    char *line = malloc(len ? len : 1);
    if (line == NULL) abort();
    memcpy(line, in, len);
    rs_logrec r;
    if (rs_logline_parse(fmt, line, len, &r) == RS_LOGLINE_OK) {
        const rs_str all[] = {r.client, r.user, r.host, r.port, r.time, r.request, r.method,
                              r.target, r.protocol, r.referer, r.user_agent};
        for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) check_inside(all[i], line, len);
        rs_bot bot;
        if (rs_bot_identify(bots, r.user_agent.ptr, r.user_agent.len, &bot) &&
            bot.id >= rs_botid_count(bots))
            abort();
    }
    rs_bot bot;
    (void)rs_bot_identify(bots, line, len, &bot);
    free(line);
    rs_logformat_free(fmt);
    return 0;
}

#ifdef RS_FUZZ_MAIN
int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        FILE *fp = fopen(argv[i], "rb");
        if (fp == NULL) { perror(argv[i]); return 2; }
        static uint8_t buf[1 << 20];
        size_t n = fread(buf, 1, sizeof buf, fp);
        fclose(fp);
        LLVMFuzzerTestOneInput(buf, n);
    }
    return 0;
}
#endif
