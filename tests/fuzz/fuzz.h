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

#endif /* RS_TESTS_FUZZ_H */
