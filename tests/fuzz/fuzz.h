/*
 * fuzz.h - the libFuzzer entry point every tests/fuzz/fuzz_*.c defines.
 * Built with -fsanitize=fuzzer by `make fuzz`, or linked with replay_main.c
 * (a plain main() that replays corpora) by `make test`.
 */
#ifndef RS_TESTS_FUZZ_H
#define RS_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A failed check: abort so libFuzzer (or the replay driver) reports the input. */
#define FUZZ_CHECK(cond) do { if (!(cond)) fuzz_fail(#cond, __FILE__, __LINE__); } while (0)

#include <stdio.h>

static inline __attribute__((noreturn)) void fuzz_fail(const char *what, const char *file, int line)
{
    fprintf(stderr, "fuzz check failed: %s (%s:%d)\n", what, file, line);
    abort();
}

/*
 * The input layout of the robots.txt targets: "AGENT\nURL\nURL...\n\nBODY".
 * Without a blank line the whole input is the body, the agent FooBot and
 * the URLs a fixed few.
 */
#include <string.h>

#define FUZZ_MAX_URLS 32

typedef struct {
    const char *agent;
    size_t agent_len;
    const char *urls[FUZZ_MAX_URLS];
    size_t url_lens[FUZZ_MAX_URLS];
    size_t n_urls;
    const uint8_t *body;
    size_t body_len;
} fuzz_robots_input;

static inline void fuzz_split_robots_input(const uint8_t *data, size_t size, fuzz_robots_input *in)
{
    static const char *const FIXED[] = { "/", "/a", "/index.html", "http://x.com/a/b?c#d" };
    in->agent = "FooBot";
    in->agent_len = 6;
    in->n_urls = 0;
    in->body = data;
    in->body_len = size;
    const uint8_t *sep = memmem(data, size, "\n\n", 2);
    if (sep != NULL) {
        const char *p = (const char *)data, *end = (const char *)sep;
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        in->agent = p;
        in->agent_len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        p = nl ? nl + 1 : end;
        while (p < end && in->n_urls < FUZZ_MAX_URLS) {
            nl = memchr(p, '\n', (size_t)(end - p));
            const char *e = nl ? nl : end;
            in->urls[in->n_urls] = p;
            in->url_lens[in->n_urls++] = (size_t)(e - p);
            p = nl ? nl + 1 : end;
        }
        in->body = sep + 2;
        in->body_len = size - (size_t)(in->body - data);
    }
    if (in->n_urls == 0) {
        for (; in->n_urls < sizeof FIXED / sizeof FIXED[0]; in->n_urls++) {
            in->urls[in->n_urls] = FIXED[in->n_urls];
            in->url_lens[in->n_urls] = strlen(FIXED[in->n_urls]);
        }
    }
}

#endif /* RS_TESTS_FUZZ_H */
