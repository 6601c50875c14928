/*
 * naive_robots.h - a deliberately naive robots.txt matcher, the oracle of the
 * differential tests and fuzzers.
 *
 * Written straight from SPEC.md section 2 and the algorithm of Google's
 * reference parser (robots.cc): the whole file is re-parsed for every URL,
 * lines are copied into a NUL-terminated buffer and handled with C string
 * functions, and patterns are matched with the reference's position set.
 * It shares no code with src/ (it does not even include robotscan.h), so a
 * bug in the library's parser, trie or URL splitter shows up as a
 * disagreement. It is slow on purpose; use it on small inputs only.
 */
#ifndef RS_TESTS_NAIVE_ROBOTS_H
#define RS_TESTS_NAIVE_ROBOTS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    int      disallowed;  /* 1 = disallow */
    uint32_t line;        /* the reference's matching_line(); 0 when none */
} naive_verdict;

/*
 * The path the reference matches for @url (GetPathParamsQuery), then cut at
 * the first NUL as the reference hands it on as a C string.
 * Writes at most url_len + 2 bytes (incl. a terminating NUL) into @dst.
 * @return the path length.
 */
size_t naive_url_path(const char *url, size_t url_len, char *dst);

/*
 * Canonicalizes a pattern as MaybeEscapePattern does: %xx hex digits
 * upper-cased, bytes >= 0x80 written as %XX. @dst needs 3 * src_len + 1 bytes.
 * @return the length written (a NUL follows it).
 */
size_t naive_canonicalize(const char *src, size_t src_len, char *dst);

/*
 * The reference's Matches(): does @pattern match a prefix of @path?
 * (`*` any run, `$` at the very end anchors.)
 */
int naive_pattern_matches(const char *path, size_t path_len, const char *pattern, size_t pat_len);

/*
 * Decides @path (already a path, e.g. from naive_url_path) for @agent under
 * the robots.txt @body: parses the whole body (the first 512,000 bytes) and
 * runs the reference's state machine.
 */
void naive_robots_check_path(const void *body, size_t body_len, const char *agent,
                             size_t agent_len, const char *path, size_t path_len,
                             naive_verdict *out);

/* naive_url_path + naive_robots_check_path. */
void naive_robots_check_url(const void *body, size_t body_len, const char *agent,
                            size_t agent_len, const char *url, size_t url_len,
                            naive_verdict *out);

#endif /* RS_TESTS_NAIVE_ROBOTS_H */
