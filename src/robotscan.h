/*
 * robotscan.h - the public interface of librobotscan.
 *
 * librobotscan decides whether a crawler may fetch a URL under the Robots
 * Exclusion Protocol (RFC 9309) exactly as Google's reference parser does,
 * and does it at bulk scale: a robots.txt is parsed once, compiled per agent
 * into a matcher, and the matcher answers any number of paths without
 * touching the file again.
 *
 * Conventions
 *  - Functions that can fail return rs_status (RS_OK == 0).
 *  - Buffers travel as (ptr, size) pairs and are never assumed NUL-terminated.
 *  - Every _free() accepts NULL.
 *  - Objects are immutable after creation unless said otherwise and may be
 *    shared read-only across threads.
 *
 * Stable and static-only parts (zstd's ZSTD_STATIC_LINKING_ONLY pattern)
 *  - Everything before the "Static-linking-only API" banner is the stable API: RS_API
 *    functions, the only symbols librobotscan.so exports (soname
 *    librobotscan.so.RS_VERSION_MAJOR).
 *  - Define RS_STATIC_LINKING_ONLY before including this header for the
 *    rest: the parser's line events, SIMD kernels, the streaming reader,
 *    access-log parsing, bot identification and report writers. Those are
 *    RS_STATIC_API: they may change between minor versions and are linked
 *    from librobotscan.a only (the shared library hides them).
 *  - Linking: `pkg-config --cflags --libs robotscan` (shared), or add
 *    `--static` for librobotscan.a and its dependencies (libzstd, libxxhash,
 *    zlib, libidn2, pthread, m).
 */
#ifndef ROBOTSCAN_H
#define ROBOTSCAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* RS_API: exported from librobotscan.so (the library is built with
 * -fvisibility=hidden, so nothing else is). */
#if defined(__GNUC__) && __GNUC__ >= 4
#  define RS_API __attribute__((visibility("default")))
#else
#  define RS_API
#endif

#define RS_VERSION_MAJOR 0
#define RS_VERSION_MINOR 1
#define RS_VERSION_PATCH 0
#define RS_VERSION_NUMBER (RS_VERSION_MAJOR * 10000 + RS_VERSION_MINOR * 100 + RS_VERSION_PATCH)
#define RS_VERSION_STRING "0.1.0"

/** @return RS_VERSION_NUMBER of the library actually linked. */
RS_API unsigned rs_version_number(void);
/** @return RS_VERSION_STRING of the library actually linked. */
RS_API const char *rs_version_string(void);

/* ===== Status ===== */

typedef enum {
    RS_OK = 0,
    RS_ERR_NOMEM,     /* allocation failed */
    RS_ERR_IO,        /* read/write/open failure; detail in the errmsg */
    RS_ERR_CORRUPT,   /* damaged compressed input */
    RS_ERR_USAGE,     /* the caller broke an API contract */
    RS_ERR_LIMIT,     /* an input exceeds a hard limit */
    RS_ERR_EOF,       /* no more records (not a failure) */
    RS_ERR_CANCELED   /* stopped by rs_job_cancel or a callback */
} rs_status;

/** @return a static, human-readable name for a status. */
RS_API const char *rs_status_str(rs_status st);

/** A borrowed byte slice; never owns, never NUL-terminated by contract. */
typedef struct {
    const char *ptr;
    size_t len;
} rs_str;

/* ===== robots.txt parsing (src/robots) =====
 *
 * The parser turns bytes into one event per non-empty line, exactly as the
 * reference reads them (SPEC 2.1). It knows nothing about matching: the rule
 * compiler is one consumer of the events, lint is another.
 */

/** Bytes of one line that are kept; the rest of the line is ignored. */
#define RS_ROBOTS_MAX_LINE 16663
/** Bytes of a file that are read; the rest is ignored (the crawler's limit). */
#define RS_ROBOTS_MAX_BODY 512000

/**
 * Canonicalizes an allow/disallow pattern or a path (SPEC 2.1.8): upper-cases
 * the hex digits of %xx escapes and percent-encodes bytes >= 0x80.
 * @param dst_cap must be >= 3 * src_size for any input.
 * @return bytes written to @dst.
 */
RS_API size_t rs_canonicalize(const char *src, size_t src_size, char *dst, size_t dst_cap);

/**
 * The product token of a user-agent value (SPEC 2.2.11): its longest leading
 * run of [A-Za-z_-]. @return the token length (0 names nobody).
 */
RS_API size_t rs_agent_token(const char *value, size_t len);

/** @return 1 if a user-agent value is global (`*`, or `*` + whitespace + anything). */
RS_API int rs_agent_is_global(const char *value, size_t len);

/* ===== Rulesets and matchers (src/rules, src/match) =====
 *
 * rs_ruleset: one parsed robots.txt, agent-independent (groups, rules,
 * unknown keys such as crawl-delay). rs_matcher: the rules that apply to one
 * agent, compiled into a trie of literal prefixes with wildcard tails.
 */

typedef struct rs_ruleset rs_ruleset;
typedef struct rs_matcher rs_matcher;

typedef enum { RS_RULE_ALLOW = 1, RS_RULE_DISALLOW = 2 } rs_rule_type;

/** Matching semantics. */
typedef enum {
    RS_SEMANTICS_GOOGLE = 0,      /* RFC 9309 as the reference implements it */
    RS_SEMANTICS_FIRST_MATCH = 1  /* reserved: the older first-match tradition */
} rs_semantics;

/**
 * Parses @body (at most RS_ROBOTS_MAX_BODY bytes are read) into a ruleset.
 * The ruleset copies what it needs; @body may be freed afterwards.
 * @param out OUT: the new ruleset, owned by the caller (rs_ruleset_free).
 */
RS_API rs_status rs_ruleset_parse(const void *body, size_t size, rs_ruleset **out);
RS_API void rs_ruleset_free(rs_ruleset *rs);

/**
 * The product tokens the user-agent lines of @rs name (non-empty, not `*`),
 * in file order, each once (ASCII case-insensitively).
 * @param out   OUT: up to @cap slices into @rs, valid as long as @rs.
 * @return the number of distinct tokens (may exceed @cap).
 */
RS_API size_t rs_ruleset_tokens(const rs_ruleset *rs, rs_str *out, size_t cap);

/** @return 1 if some user-agent line of @rs names @agent (SPEC 2.2.13). */
RS_API int rs_ruleset_names_agent(const rs_ruleset *rs, const char *agent, size_t agent_len);

/**
 * The value of the first unknown-key line named @key (case-insensitive,
 * whole key) in the groups that apply to @agent, e.g. "crawl-delay".
 * @param value OUT: slice into @rs, valid as long as @rs.
 * @return 1 if found, 0 otherwise.
 */
RS_API int rs_ruleset_group_value(const rs_ruleset *rs, const char *agent, size_t agent_len,
                                  const char *key, rs_str *value);

/**
 * Compiles the rules that apply to @agent (compared whole, ASCII
 * case-insensitively with each group's product token; SPEC 2.2.12).
 * @param out OUT: the matcher, owned by the caller (rs_matcher_free); it does
 *            not reference @rs, which may be freed first.
 */
RS_API rs_status rs_matcher_create(const rs_ruleset *rs, const char *agent, size_t agent_len,
                                   rs_semantics semantics, rs_matcher **out);
RS_API void rs_matcher_free(rs_matcher *m);

/** A matcher that allows everything / disallows everything (fetch outcomes). */
RS_API rs_status rs_matcher_create_constant(int disallow_all, rs_matcher **out);

typedef struct {
    int      disallowed;  /* 1 = disallow, 0 = allow */
    uint32_t line;        /* the reported line (SPEC 2.4.19); 0 when none */
    int32_t  rule;        /* index of the rule on that line (rs_matcher_rule), -1 when none */
} rs_verdict;

/**
 * Decides a path (as produced by rs_url_path: starts with '/').
 * Never allocates; safe to call from many threads on one matcher.
 */
RS_API void rs_matcher_match(const rs_matcher *m, const char *path, size_t path_len,
                             rs_verdict *out);

typedef struct {
    rs_rule_type type;
    uint32_t line;
    rs_str pattern;       /* canonical pattern, valid as long as the matcher */
} rs_rule_info;

/** @return RS_OK and fills @out, or RS_ERR_USAGE for a bad index. */
RS_API rs_status rs_matcher_rule(const rs_matcher *m, int32_t rule, rs_rule_info *out);

/**
 * The rule as records show it: "allow: PATTERN" or "disallow: PATTERN" (the one
 * spelling of every command, binding and statistics file). Writes at most @cap
 * bytes at @dst, NUL-terminated when @cap > 0.
 * @return the length of the whole text (as snprintf: >= @cap means cut).
 */
RS_API size_t rs_rule_text(const rs_rule_info *rule, char *dst, size_t cap);

/** @return the number of rules compiled into @m. */
RS_API size_t rs_matcher_rule_count(const rs_matcher *m);

/* ===== URLs (src/url) ===== */

/**
 * The path the matcher sees for @url (SPEC 2.3.14): scheme and authority
 * dropped, fragment dropped, '/' prepended to a path starting with '?' or ';',
 * "/" when there is no path. Ends at a NUL byte as the reference does.
 * Writes into @scratch only when the result is not a slice of @url.
 * @param scratch_cap must be >= url_len + 1.
 */
RS_API rs_str rs_url_path(const char *url, size_t url_len, char *scratch, size_t scratch_cap);

/** Where a URL's parts start, as the matcher reads them (SPEC 2.3.14). */
typedef struct {
    size_t authority;      /* after "scheme://" (if before the first '/', '?', ';'), or a leading "//" */
    size_t authority_end;  /* the first '/', '?', ';' or '#' at or after @authority, or the length */
    int fragment_first;    /* a '#' comes before any path: the path is "/" */
} rs_url_parts;

/**
 * Splits @url once. Two URLs whose bytes agree up to and including
 * authority_end (or entirely, when it is the length) have the same origin,
 * which lets bulk callers skip repeated origin work.
 */
RS_API rs_url_parts rs_url_split(const char *url, size_t url_len);

/** rs_url_path for a URL already split by rs_url_split (same contract). */
RS_API rs_str rs_url_path_of(const char *url, size_t url_len, const rs_url_parts *parts,
                             char *scratch, size_t scratch_cap);

/**
 * Percent-encodes bytes >= 0x80 and upper-cases %xx escapes of a path (or a
 * whole URL), as patterns are (--encode-urls), so that a raw `/wiki/Käyttäjä:`
 * matches `Disallow: /wiki/Käyttäjä:`. Same contract as rs_canonicalize.
 * @param dst_cap must be >= 3 * src_size for any input.
 * @return bytes written to @dst.
 */
RS_API size_t rs_url_encode_path(const char *src, size_t src_size, char *dst, size_t dst_cap);

/* ===== One-call checks (src/check) =====
 *
 * The common case without managing objects: a robots.txt body in memory, an
 * agent and a URL give a verdict, the reported line and its rule (rs_check).
 * To answer many URLs against one body, compile once (rs_ruleset_parse,
 * rs_matcher_create) and call rs_matcher_check_url / rs_matcher_check_urls,
 * which take whole URLs (rs_url_path is applied for you).
 *
 *   rs_check_result r;
 *   char rule[256];
 *   if (rs_check(body, body_len, "Googlebot", 9, url, strlen(url), 0, &r, rule, sizeof rule) == RS_OK)
 *       printf("%s (line %u)\n", r.disallowed ? "disallowed" : "allowed", r.line);
 */

/* Flags of the check calls. */
#define RS_CHECK_ENCODE_URL 0x01u  /* percent-encode the path first (rs_url_encode_path, --encode-urls) */

typedef struct {
    int          disallowed;  /* 1 = disallow, 0 = allow */
    uint32_t     line;        /* the reported line (SPEC 2.4.19); 0 when none */
    rs_rule_type rule_type;   /* type of the rule on that line; 0 when there is none */
    size_t       rule_len;    /* length of that rule's canonical pattern (0 when none); the
                                 pattern was cut when this is >= the rule_cap passed */
} rs_check_result;

/**
 * Decides one URL against a robots.txt body for one agent: parse, compile,
 * match and free in one call (each call re-parses the body).
 * @param body       the robots.txt bytes (at most RS_ROBOTS_MAX_BODY are read); may be
 *                   NULL when @body_size is 0 (an empty file: everything allowed).
 * @param agent      a product token such as "Googlebot" (compared whole, ASCII
 *                   case-insensitively, with each group's token; SPEC 2.2.12).
 * @param url        an absolute URL or a path; only its path, params and query are matched.
 * @param flags      0 or RS_CHECK_ENCODE_URL.
 * @param out        OUT: the verdict.
 * @param rule       OUT: optional (NULL with @rule_cap 0): the canonical pattern of the
 *                   deciding rule, NUL-terminated and cut to @rule_cap - 1 bytes.
 * @return RS_OK, RS_ERR_NOMEM, or RS_ERR_USAGE (NULL @out, or a NULL pointer with a length).
 */
RS_API rs_status rs_check(const void *body, size_t body_size, const char *agent, size_t agent_len,
                          const char *url, size_t url_len, unsigned flags, rs_check_result *out,
                          char *rule, size_t rule_cap);

/**
 * Decides one URL with a compiled matcher (rs_url_path, then rs_matcher_match).
 * Thread-safe on a shared matcher; allocates only for URLs over 4 KiB.
 * @param flags 0 or RS_CHECK_ENCODE_URL.
 * @param out   OUT: the verdict; rs_matcher_rule(@m, out->rule, ...) gives the rule.
 * @return RS_OK, RS_ERR_NOMEM, or RS_ERR_USAGE (NULL @m or @out, or NULL @url with a length).
 */
RS_API rs_status rs_matcher_check_url(const rs_matcher *m, const char *url, size_t url_len,
                                      unsigned flags, rs_verdict *out);

/**
 * Decides @n URLs with one call, for bindings and batch callers. The URLs lie
 * back to back in @urls, without separators: URL i is
 * urls[ends[i - 1] .. ends[i]), with ends[-1] taken as 0 (a Python caller
 * joins its URLs with b"" and passes the running sums of their lengths).
 * @param disallowed OUT: n entries, 1 = disallow, 0 = allow.
 * @param lines      OUT: optional (NULL), n reported lines (0 when none).
 * @return RS_OK, RS_ERR_NOMEM, or RS_ERR_USAGE (NULL arguments with n > 0, or
 *         decreasing @ends). On failure the outputs are unspecified.
 */
RS_API rs_status rs_matcher_check_urls(const rs_matcher *m, const char *urls, const size_t *ends,
                                       size_t n, unsigned flags, int8_t *disallowed, uint32_t *lines);

/* ===== Origins and robots sources (src/sites) =====
 *
 * An origin (scheme, host, port: SPEC 3) is what one robots.txt governs.
 * rs_origin_parse() gives a URL's canonical origin "scheme://host[:port]":
 * two URLs share a robots.txt iff their origins are byte-equal. Malformed
 * input is not an error: RS_OK with rs_origin.error set. Robots sources are
 * a robots.txt file (every origin), a directory of HOST[.txt] /
 * HOST:PORT[.txt] / HOST/robots.txt entries, a manifest `*.tsv`
 * (ORIGIN<TAB>STATUS<TAB>FILE) or a WARC; the first source that knows an
 * origin wins. Bodies are read lazily, parsed once per file and compiled
 * once per (file, agent), cached until rs_sites_free() or rs_sites_release().
 * The canonicalisation and source rules in full: docs/origins.md.
 */

/** Bytes rs_origin_parse() may write: pass a dst of at least this size. */
#define RS_ORIGIN_MAX 320

typedef enum {
    RS_ORIGIN_OK = 0,
    RS_ORIGIN_NO_HOST,      /* empty line, `/just/a/path`, `http:///x` */
    RS_ORIGIN_BAD_SCHEME,   /* `1ttp://`, a scheme of more than 32 bytes */
    RS_ORIGIN_BAD_HOST,     /* a byte not allowed in a host, empty label, bad IP literal */
    RS_ORIGIN_BAD_IDN,      /* libidn2 rejected the non-ASCII host */
    RS_ORIGIN_BAD_PORT,     /* not 1..65535 */
    RS_ORIGIN_TOO_LONG      /* host over 253 bytes or a label over 63 */
} rs_origin_error;

/** @return a static name for an rs_origin_error ("ok", "no host", ...). */
RS_API const char *rs_origin_error_str(rs_origin_error e);

typedef struct {
    rs_origin_error error;  /* RS_ORIGIN_OK, or why the URL has no origin */
    rs_str   origin;        /* canonical "scheme://host[:port]", in dst */
    rs_str   scheme;        /* lower-case, in dst (a prefix of origin) */
    rs_str   host;          /* canonical host, IPv6 with brackets, in dst */
    uint32_t port;          /* effective port (80 for plain http); 0: unknown scheme, none given */
} rs_origin;

/**
 * Finds the canonical origin of @url (SPEC 3). Never allocates for an ASCII
 * host (libidn2 allocates for IDN hosts). Safe from many threads.
 * @param dst     where the canonical strings are written; @dst_cap >= RS_ORIGIN_MAX.
 * @param out     OUT: slices into @dst; out->error says whether @url had an origin.
 * @return RS_OK (also for a malformed URL: see out->error), RS_ERR_USAGE when
 *         @dst_cap < RS_ORIGIN_MAX, RS_ERR_NOMEM when libidn2 ran out of memory.
 */
RS_API rs_status rs_origin_parse(const char *url, size_t len, char *dst, size_t dst_cap,
                                 rs_origin *out);

/**
 * Canonicalises a bare host (no scheme, userinfo or port) the way
 * rs_origin_parse() does; a bracketed IPv6 literal keeps its brackets.
 * @param out_len OUT: bytes written to @dst (@dst_cap >= RS_ORIGIN_MAX).
 * @return RS_ORIGIN_OK or why the host is invalid (nothing else is written).
 */
RS_API rs_origin_error rs_host_canon(const char *host, size_t len, char *dst, size_t dst_cap,
                                     size_t *out_len);

/** Why a URL got its verdict (the `reason` output field, SPEC 5). */
typedef enum {
    RS_REASON_MATCHED = 0,  /* the rules applied and a rule line decided (verdict.line > 0) */
    RS_REASON_NO_MATCH,     /* the rules applied, no rule line decided: allowed */
    RS_REASON_UNAVAILABLE,  /* robots.txt fetch gave 3xx/4xx: allow all */
    RS_REASON_UNREACHABLE,  /* robots.txt fetch gave 5xx or failed: disallow all */
    RS_REASON_NO_ROBOTS     /* no source knows the origin: the caller decides (--missing) */
} rs_reason;
#define RS_REASON_COUNT 5

/** @return "matched", "no-match", "unavailable", "unreachable" or "no-robots". */
RS_API const char *rs_reason_str(rs_reason r);

typedef struct rs_sites rs_sites;

/**
 * Opens robots sources, in priority order (each a file, directory or
 * `*.tsv` manifest). Directories and manifests are indexed now (names only;
 * no body is read).
 * @param out OUT: the handle. It is set even when the call fails (unless
 *            memory ran out before it existed, then NULL) so that
 *            rs_sites_errmsg() can say what failed; always rs_sites_free() it.
 * @return RS_OK; RS_ERR_IO (a path cannot be opened or read); RS_ERR_CORRUPT
 *         (a malformed manifest line); RS_ERR_USAGE (n == 0); RS_ERR_NOMEM.
 */
RS_API rs_status rs_sites_create(const char *const *paths, size_t n, rs_sites **out);

/** Frees the handle and every cached ruleset and matcher. Accepts NULL. */
RS_API void rs_sites_free(rs_sites *s);

/** @return the detail of the last failure ("" if none); valid until the next call on @s. */
RS_API const char *rs_sites_errmsg(const rs_sites *s);

/**
 * Semantics of the matchers returned from now on (default RS_SEMANTICS_GOOGLE;
 * matchers are cached per semantics). Not concurrently with rs_site_lookup.
 */
RS_API void rs_sites_set_semantics(rs_sites *s, rs_semantics semantics);

/**
 * The shared allow-all (@disallow_all == 0) or disallow-all matcher, the ones
 * lookups return for unavailable/unreachable origins; handy for --missing.
 * @return a matcher owned by @s, valid until rs_sites_free().
 */
RS_API const rs_matcher *rs_sites_constant_matcher(const rs_sites *s, int disallow_all);

typedef struct {
    rs_reason reason;           /* RS_REASON_NO_MATCH when rules apply (see rs_site_reason),
                                   UNAVAILABLE, UNREACHABLE or NO_ROBOTS */
    const rs_matcher *matcher;  /* the agent's matcher (constant for unavailable/unreachable);
                                   NULL for no-robots */
    const rs_ruleset *ruleset;  /* the parsed body (crawl-delay etc.); NULL unless rules apply */
    const char *robots_path;    /* the file that answered (NUL-terminated); NULL for no-robots,
                                   manifest lines without a file and bodies from memory */
    uint32_t http_status;       /* manifest status; 200 for file/directory sources; 0 for
                                   `error` and no-robots */
    uint32_t source;            /* index into the paths given to rs_sites_create; 0 for no-robots;
                                   RS_SOURCE_MEMORY for bodies from rs_sites_add_body */
} rs_site_result;

/**
 * The matcher for @agent at @origin (from rs_origin_parse; origin->error must
 * be RS_ORIGIN_OK). The first lookup of an origin resolves it through the
 * sources; the first lookup of a (robots file, agent) reads, parses and
 * compiles (under one mutex). Later lookups only hash (XXH3) and compare:
 * no lock, no allocation, no write to shared memory, so threads do not
 * contend. Safe to call from many threads at once. Pointers in @out live
 * until rs_sites_free(). Callers that see runs of URLs of one origin may skip
 * the call when the origin string equals the previous one.
 * @param out OUT: filled on RS_OK.
 * @return RS_OK; RS_ERR_IO (a robots file cannot be read; see
 *         rs_sites_errmsg); RS_ERR_NOMEM; RS_ERR_USAGE (a malformed origin).
 */
RS_API rs_status rs_site_lookup(rs_sites *s, const rs_origin *origin,
                                const char *agent, size_t agent_len, rs_site_result *out);

/**
 * The reason to report for a verdict: for rules, RS_REASON_MATCHED when
 * @v->line > 0, else RS_REASON_NO_MATCH; otherwise @r->reason. @v may be
 * NULL for no-robots.
 */
RS_API rs_reason rs_site_reason(const rs_site_result *r, const rs_verdict *v);

typedef struct {
    size_t sources;          /* paths given */
    size_t dir_entries;      /* directory entries indexed (all directories) */
    size_t dir_skipped;      /* directory entries whose name is not a host (or dot-file, *.tsv) */
    size_t dir_duplicates;   /* entries shadowed by another name for the same host and port */
    size_t manifest_lines;   /* manifest lines indexed */
    size_t origins;          /* distinct origins looked up so far */
    size_t bodies_parsed;    /* robots files read and parsed so far */
    size_t matchers;         /* (file, agent) matchers compiled so far */
} rs_sites_stats;

/** Fills @out with counters (consistent when no lookup runs concurrently). */
RS_API void rs_sites_get_stats(const rs_sites *s, rs_sites_stats *out);

/* ----- Robots bodies from memory, batch checks (src/sites/sources.c, src/check) ----- */

/** rs_site_result.source of an origin whose robots.txt was given by rs_sites_add_body. */
#define RS_SOURCE_MEMORY UINT32_MAX

/**
 * Creates a handle without path sources, for robots.txt bodies given from
 * memory with rs_sites_add_body (a crawler holds the bodies it fetched).
 * @param out OUT: the handle, owned by the caller (rs_sites_free).
 * @return RS_OK or RS_ERR_NOMEM.
 */
RS_API rs_status rs_sites_create_empty(rs_sites **out);

/**
 * Gives one origin's robots.txt from memory, on any handle. Bodies given this
 * way take precedence over every path source; a second call for the same
 * origin replaces the first (later lookups see the new one; matchers and
 * rulesets already returned stay valid until rs_sites_free). Not
 * concurrently with any other call on @s. rs_sites_each does not hand them
 * out (it walks the path sources).
 * @param url    names the origin: the robots.txt URL ("https://a.com/robots.txt"),
 *               the origin itself, or any URL of the site; canonicalised as by
 *               rs_origin_parse (so "HTTPS://A.com:443" is "https://a.com").
 * @param http_status the fetch outcome, read as in a manifest (SPEC 3):
 *               200..299 the rules of @body apply; 300..499 allow all
 *               (unavailable); 500..599, or 0 for a failed fetch, disallow all
 *               (unreachable).
 * @param body   the robots.txt bytes (at most RS_ROBOTS_MAX_BODY are read),
 *               parsed now and not retained; ignored unless @http_status is 2xx.
 * @return RS_OK; RS_ERR_USAGE (a URL without an origin, a status outside 0 and
 *         200..599, a NULL pointer with a length; rs_sites_errmsg says which);
 *         RS_ERR_NOMEM.
 */
RS_API rs_status rs_sites_add_body(rs_sites *s, const char *url, size_t url_len,
                                   uint32_t http_status, const void *body, size_t size);

/* rs_sites_check_urls verdicts besides 0 (allow) and 1 (disallow). */
#define RS_VERDICT_NO_ROBOTS (-1)  /* no source knows the origin: the caller decides */
#define RS_VERDICT_MALFORMED (-2)  /* the URL has no origin (see rs_origin_error) */

/**
 * Decides @n URLs for @agent, each against its own origin's robots.txt (the
 * work of `robotscan urls`, in one call). The URLs are laid out as for
 * rs_matcher_check_urls. Safe from many threads, as rs_site_lookup.
 * @param flags      0 or RS_CHECK_ENCODE_URL.
 * @param disallowed OUT: n entries: 1, 0, RS_VERDICT_NO_ROBOTS or RS_VERDICT_MALFORMED.
 * @param lines      OUT: optional (NULL), n reported lines (0 when none).
 * @param reasons    OUT: optional (NULL), n rs_reason values (RS_REASON_NO_ROBOTS
 *                   for malformed URLs too).
 * @return RS_OK; RS_ERR_IO (a robots file cannot be read: rs_sites_errmsg);
 *         RS_ERR_NOMEM; RS_ERR_USAGE (NULL arguments, decreasing @ends).
 */
RS_API rs_status rs_sites_check_urls(rs_sites *s, const char *agent, size_t agent_len,
                                     const char *urls, const size_t *ends, size_t n,
                                     unsigned flags, int8_t *disallowed, uint32_t *lines,
                                     uint8_t *reasons);

/* ----- One URL against the sites; releasing loaded sites (src/scan) ----- */

/** The verdict of one URL (rs_site_check). */
typedef struct {
    int        malformed;     /* 1: the URL has no origin (error says why); nothing else set */
    rs_origin_error error;
    rs_reason  reason;        /* as rs_site_reason gives it */
    rs_verdict verdict;       /* disallowed, line, rule */
    rs_rule_info rule;        /* the deciding rule when verdict.rule >= 0 (pattern valid as
                                 long as @sites) */
    char       origin[RS_ORIGIN_MAX]; /* canonical origin, NUL-terminated */
} rs_site_verdict;

/**
 * One URL, one agent, for bindings and single checks: origin, site, path and
 * match, exactly as rs_scan_block decides a URL line (a no-robots origin is
 * allowed, reason RS_REASON_NO_ROBOTS). Thread-safe like rs_site_lookup.
 * @return RS_OK (also for a malformed URL: see out->malformed); RS_ERR_IO,
 *         RS_ERR_NOMEM from the sites; RS_ERR_USAGE for NULL arguments.
 */
RS_API rs_status rs_site_check(rs_sites *s, const char *url, size_t url_len, const char *agent,
                               size_t agent_len, rs_semantics semantics, int encode_url,
                               rs_site_verdict *out);

/**
 * Frees every ruleset and matcher @s has loaded and forgets the origins it
 * resolved; the sources' indexes (directory listings, manifests) stay, and
 * later lookups load again (bodies given by rs_sites_add_body stay parsed).
 * For bulk runs in partitions (urls
 * --memory-limit): only the current partition's sites stay in memory.
 * Every pointer from earlier lookups (and every scanner over @s) becomes
 * invalid. Not concurrently with any other call on @s.
 * @return RS_OK, RS_ERR_NOMEM, RS_ERR_USAGE.
 */
RS_API rs_status rs_sites_release(rs_sites *s);

/** @return the bytes a compiled matcher occupies (its one allocation). */
RS_API size_t rs_matcher_memory(const rs_matcher *m);

/**
 * Lists the entries of robots directory @dir as a directory source uses them
 * (src/sites/source_list.c): @fn gets each entry's key, the canonical "host"
 * or "host:port" it serves over http and https, and its file, after
 * duplicates are resolved. A non-zero return from @fn stops (RS_ERR_IO).
 * @return RS_OK, RS_ERR_USAGE (not a directory), or the error of opening it
 *         (message in @err).
 */
RS_API rs_status rs_robots_dir_list(const char *dir,
                                    int (*fn)(const char *key, size_t key_len, const char *path, void *ctx),
                                    void *ctx, char *err, size_t err_cap);

/*
 * Shards (src/scan/shard.c, robotscan shard): the shard of a site is
 * XXH3_64bits(canonical origin, seed 0) mod n. This is stable across
 * machines and versions (XXH3's output is fixed by its specification, the
 * canonical origin is rs_origin_parse's), so shards written anywhere agree.
 */
/** @return the shard in [0, n) of canonical origin @origin (0 when n <= 1). */
RS_API uint32_t rs_shard_of_origin(const char *origin, size_t len, uint32_t n);
/** @return the shard of @url's canonical origin; 0 for a URL without one (malformed). */
RS_API uint32_t rs_shard_of_url(const char *url, size_t len, uint32_t n);

/*
 * WARC sources and compressed robots files (SPEC 3). A regular file whose
 * content (plain, gzip or zstd) starts with a WARC record is a WARC source:
 * each `WARC-Type: response` record whose target path is /robots.txt is a
 * fetch of its origin; 3xx captures are followed to the capture of their
 * Location in the same file (at most 5 hops, any origin), else unavailable;
 * the latest WARC-Date wins (ties: the later record). Bodies are not kept:
 * a capture is remembered by its file offset (a record starting a gzip
 * member or zstd frame, or any record of a plain file) and read again when
 * used; captures of a file that cannot be sought that way (one zstd frame
 * for many records) keep their body zstd-compressed in memory. A file named
 * *.warc, *.warc.gz or *.warc.zst that is not a WARC is an error. Robots
 * files of file, directory and manifest sources may be gzip- or
 * zstd-compressed (detected from the content).
 */
typedef struct {
    int keep_going;   /* count and skip corrupt WARC records instead of failing */
    int defer_errors; /* a damaged WARC is indexed up to the damage; rs_sites_each reports
                         the error after the documents before it */
    int stream;       /* for rs_sites_each only (no rs_site_lookup): a WARC source is indexed
                         when rs_sites_each reaches it and released after it, so memory is
                         that of the largest WARC file, not of all of them (plus 16 bytes per
                         origin to skip origins an earlier source served); implies defer_errors */
    int drop_rules;   /* keep only compiled matchers: a robots file's parsed rules are freed once
                         the matchers asked for are compiled (about a third of the memory of a
                         loaded site), so rs_site_result.ruleset is NULL for files, directories,
                         manifests and WARC captures, and a later agent re-reads the body */
} rs_sites_options;

/** rs_sites_create with options (@opts may be NULL: the defaults, all 0). */
RS_API rs_status rs_sites_create_opts(const char *const *paths, size_t n, const rs_sites_options *opts,
                                      rs_sites **out);

typedef struct {
    uint64_t warc_files;        /* sources that are WARC files */
    uint64_t records;           /* WARC records read while indexing */
    uint64_t responses;         /* response records with an http(s) target */
    uint64_t robots_captures;   /* ... whose path is /robots.txt */
    uint64_t superseded;        /* captures replaced by a later one of the same URI */
    uint64_t redirects_followed;/* origins whose 3xx led to a capture in the source */
    uint64_t redirects_unresolved; /* 3xx origins left unavailable (no capture, > 5 hops, loop) */
    uint64_t html_bodies;       /* bodies rs_sites_each handed out that look like an HTML page */
    uint64_t corrupt_skipped;   /* corrupt records skipped (keep_going) */
    uint64_t bodies_in_memory;  /* captures kept compressed in memory (not seekable) */
    uint64_t compressed_files;  /* gzip/zstd robots files decoded (file/dir/manifest) */
} rs_sites_warc_stats;

RS_API void rs_sites_get_warc_stats(const rs_sites *s, rs_sites_warc_stats *out);

/** One robots document of the sources, as rs_sites_each hands it out. */
typedef struct {
    rs_str      origin;     /* manifest/WARC: canonical origin; directory: the entry's host
                               ("a.com", "a.com:8080", it serves http and https); file: "*" */
    rs_reason   outcome;    /* RS_REASON_NO_MATCH (rules apply), UNAVAILABLE or UNREACHABLE */
    uint32_t    http_status;/* 0 for `error` */
    const char *body;       /* outcome NO_MATCH: at most RS_ROBOTS_MAX_BODY bytes, decoded */
    size_t      body_len;
    int         html;       /* the body looks like an HTML page (lint html-content) */
    const char *where;      /* the file the body came from ("X.warc.gz@OFFSET" for a WARC) */
    uint32_t    source;     /* index of the source */
} rs_site_doc;

/** @return 0 to go on, non-zero to stop rs_sites_each (which then returns RS_OK). */
typedef int (*rs_site_doc_cb)(void *ctx, const rs_site_doc *doc);

/**
 * Hands every document of the sources to @cb, one at a time, in source order
 * (a directory's entries sorted by name; a manifest's and a WARC's in the
 * order of first appearance). An origin an earlier source knows is skipped.
 * Each body is read, handed out and freed: memory does not grow with the
 * number of documents beyond the sources' indexes. Not concurrently with
 * rs_site_lookup.
 * @return RS_OK; RS_ERR_IO / RS_ERR_CORRUPT (a body cannot be read, or a
 *         deferred WARC error once the documents before it were handed out;
 *         see rs_sites_errmsg); RS_ERR_NOMEM.
 */
RS_API rs_status rs_sites_each(rs_sites *s, rs_site_doc_cb cb, void *ctx);

/** @return the number of `Sitemap:` lines of @rs. */
RS_API size_t rs_ruleset_sitemap_count(const rs_ruleset *rs);

/* ===== Bulk jobs (src/job, SPEC 8) =====
 *
 * A job runs what `robotscan urls`, `robotscan logs` and `robotscan diff` run, with
 * the same records and statistics: inputs of URLs (or access-log lines; plain, .zst
 * or .gz, detected from the content) decided against robots sources by
 * worker threads, records delivered in input order, counts and tallies
 * kept on the handle. The command-line tool is the first user of this API.
 *
 *   rs_job *job = rs_job_create(RS_JOB_URLS);
 *   rs_job_add_robots(job, "robots/");             (files, directories, manifests, WARC)
 *   rs_job_add_agent(job, "Googlebot");
 *   rs_job_set(job, RS_JOB_WORKERS, 2);
 *   rs_job_set(job, RS_JOB_MEMORY_LIMIT, 256 << 20);
 *   rs_job_set_records(job, on_records, ctx);      (or rs_job_set_output: TSV/CSV/JSONL bytes)
 *   if (rs_job_run(job, "urls.txt.zst") != RS_OK) puts(rs_job_errmsg(job));
 *   rs_job_finish(job);                            (end-of-job passes; statistics final)
 *   rs_job_stats_json(job, &json, &len);
 *   rs_job_free(job);
 *
 * Contracts
 *  - One thread drives a job (every call but rs_job_cancel); callbacks run on
 *    that thread, inside rs_job_run*, in input order. Worker threads are the
 *    job's own and end before rs_job_run* returns.
 *  - Errors sit on the handle: a failed call returns its status and
 *    rs_job_errmsg() says why (as sqlite3_errmsg). A failed run keeps every
 *    record before the failure delivered; later runs may follow.
 *  - Settings (rs_job_set*, rs_job_add_*) are taken before the first run;
 *    after it they return RS_ERR_USAGE.
 *  - Memory: the loaded robots.txt stay under about RS_JOB_MEMORY_LIMIT; past
 *    it a urls input is partitioned by host into temporary zstd files in
 *    RS_JOB_SPILL_DIR (unlinked at once: nothing is left behind whatever ends
 *    the process) and merged back in input order; logs spill records and
 *    crawl-delay entries. The records are the same with or without a limit.
 */

typedef struct rs_job rs_job;

typedef enum {
    RS_JOB_URLS = 1,        /* a URL a line -> url, origin, agent, verdict, line, rule, reason */
    RS_JOB_LOGS = 2,        /* access-log lines -> the bot hits and their violations; their records
                               come out of rs_job_finish (crawl-delay needs every input) */
    RS_JOB_DIFF = 3         /* two sides, old and new: URLs (or log hits) decided under both ->
                               what flips (SPEC 9; "The diff job" below) */
} rs_job_kind;

/** How records are written by rs_job_set_output (also the CLI's --format). */
typedef enum { RS_FORMAT_TEXT = 0, RS_FORMAT_TSV, RS_FORMAT_CSV, RS_FORMAT_JSONL } rs_format;

/** Origins no robots source knows (--missing). */
typedef enum { RS_MISSING_ALLOW = 0, RS_MISSING_DISALLOW, RS_MISSING_SKIP } rs_missing;

typedef enum {
    RS_JOB_WORKERS = 1,     /* threads deciding blocks, 1-256; 1 (default): all on the calling thread */
    RS_JOB_MEMORY_LIMIT,    /* bytes, at least 1 MiB; 0: no limit; default 1 GiB */
    RS_JOB_SEMANTICS,       /* rs_semantics (default RS_SEMANTICS_GOOGLE) */
    RS_JOB_MISSING,         /* rs_missing (urls; default RS_MISSING_ALLOW) */
    RS_JOB_ENCODE_URLS,     /* 1: percent-encode non-ASCII path bytes before matching (urls) */
    RS_JOB_ONLY,            /* urls: 0 every record (default), 1 allowed only, 2 disallowed only;
                               logs: 1 violations only */
    RS_JOB_FORMAT,          /* rs_format of rs_job_set_output (default RS_FORMAT_TSV) */
    RS_JOB_HEADER,          /* 1 (default): the header row first (TSV, CSV output) */
    RS_JOB_INPUT_LINE,      /* 1: an input_line column first in the output */
    RS_JOB_VERBOSE,         /* 1: a diagnostic line per malformed line (else one note at the end) */
    RS_JOB_NO_RECORDS,      /* 1: count only, deliver no record (--quiet) */
    RS_JOB_TALLIES,         /* 1 (default): tallies in the statistics (urls: by origin and rule;
                               logs: by rule, hour and day) */
    RS_JOB_SEMANTICS_NEW,   /* diff: rs_semantics of the new side (default: RS_JOB_SEMANTICS's) */
    RS_JOB_DIFF_ALL,        /* diff: 1: a record per compared pair, not only flips */
    RS_JOB_DIFF_RULES,      /* diff: 1: the rule-level diff per (origin, agent) at rs_job_finish */
    RS_JOB_DIFF_LOGS        /* diff: 1: the inputs are access logs (RS_JOB_LOG_FORMAT, HOST, SCHEME,
                               FIELD apply); a bot hit is a URL of weight 1 */
} rs_job_param;

typedef enum {
    RS_JOB_SPILL_DIR = 1,   /* directory of the temporary files (default $TMPDIR, else /tmp) */
    RS_JOB_LOG_FORMAT,      /* logs: combined (default), common, vhost_combined, cloudfront, w3c,
                               alb, json, cloudflare, auto, or an nginx/Apache format string */
    RS_JOB_HOST,            /* logs: the site of logs whose lines do not name it */
    RS_JOB_SCHEME,          /* logs: http or https (default https) */
    RS_JOB_FIELD,           /* logs, json formats: NAME=KEY (repeatable) */
    RS_JOB_VERIFY           /* logs: [TOKEN=]FILE of published crawler IP ranges (repeatable; Google's
                               files are known by name); read by the first run, which fails with
                               RS_ERR_USAGE for an unknown name or a malformed list */
} rs_job_sparam;

/** One record, delivered in input order: its fields in rs_job_columns() order, as raw
 *  bytes (not escaped; valid until the callback returns). */
typedef struct {
    uint64_t input_line;    /* the line of its input it came from (1-based) */
    const rs_str *fields;
} rs_job_record;

/** Takes @n bytes of whole formatted records. @return 0, or nonzero to stop the job. */
typedef int (*rs_job_output_fn)(void *user, const void *bytes, size_t n);
/** Takes @n records. @return 0, or nonzero to stop the job. */
typedef int (*rs_job_records_fn)(void *user, const rs_job_record *records, size_t n);
/** Takes diagnostic text (whole lines, each ending in '\n'). */
typedef void (*rs_job_diag_fn)(void *user, const char *text, size_t n);

typedef struct {
    uint64_t lines;         /* input lines so far */
    uint64_t bytes_in;      /* input bytes read (compressed) */
    uint64_t file_size;     /* the input's size; 0: unknown (a pipe) */
    double   seconds;       /* since the job's first run began */
    int      final;         /* the run's last call */
} rs_job_progress;
typedef void (*rs_job_progress_fn)(void *user, const rs_job_progress *p);

/** Totals over every run so far (rs_job_totals_get). */
typedef struct {
    uint64_t lines;         /* input lines, oversized ones included */
    uint64_t blank;         /* blank and comment lines */
    uint64_t records;       /* urls: URLs decided (one a URL, agents apart); logs: bot hits */
    uint64_t malformed;     /* lines that are not records */
    uint64_t skipped;       /* records skipped on purpose (RS_MISSING_SKIP, filters) */
    uint64_t verdict[2];    /* [0] allowed, [1] disallowed */
    uint64_t reason[RS_REASON_COUNT];
    uint64_t bytes_in, bytes_out;   /* input bytes read, and after decompression */
    uint64_t violations;    /* logs: disallowed or crawl-delay-violating hits */
    double   seconds;       /* wall time of the runs */
    unsigned partitions;    /* urls past the memory limit: partitions run (0: none) */
} rs_job_totals;

/** @return a new job of @kind, or NULL when memory ran out. */
RS_API rs_job *rs_job_create(rs_job_kind kind);
/** Ends the job's threads, removes its temporary files and frees it. NULL is fine. */
RS_API void rs_job_free(rs_job *job);
/** @return why the last failed call failed ("" when none did). */
RS_API const char *rs_job_errmsg(const rs_job *job);

RS_API rs_status rs_job_set(rs_job *job, rs_job_param param, int64_t value);
RS_API rs_status rs_job_set_string(rs_job *job, rs_job_sparam param, const char *value);
/** A robots source: a robots.txt file, a directory of HOST[.txt] files, a manifest .tsv or
 *  a WARC (as rs_sites_create); in the order given, the first that knows an origin wins. */
RS_API rs_status rs_job_add_robots(rs_job *job, const char *path);
/** Sites the caller built instead (e.g. bodies from memory: rs_sites_add_body); borrowed
 *  until rs_job_free, and used by one job at a time. Excludes rs_job_add_robots. A urls
 *  job lets the files' matchers it loads start as plain rule lists, turned into the
 *  compiled form once a site decides many URLs: lookups answer the same either way. */
RS_API rs_status rs_job_use_sites(rs_job *job, rs_sites *sites);
/** A crawler's product token (urls: one or more, at most 256, a URL's records in this
 *  order; logs: audit only these bots, default every known one; diff: any number, see
 *  "The diff job"). */
RS_API rs_status rs_job_add_agent(rs_job *job, const char *token);
/** Diff: a robots source of the new side (the old side's are rs_job_add_robots or
 *  rs_job_use_sites). With no new-side source the new side reads the old side's sources
 *  (then give the sides different semantics: RS_JOB_SEMANTICS_NEW). */
RS_API rs_status rs_job_add_robots_new(rs_job *job, const char *path);
/** Diff: the caller's sites as the new side (as rs_job_use_sites; may be the old side's
 *  handle). Excludes rs_job_add_robots_new. */
RS_API rs_status rs_job_use_sites_new(rs_job *job, rs_sites *sites);

/** Records as bytes in RS_JOB_FORMAT, header row first (RS_JOB_HEADER). */
RS_API rs_status rs_job_set_output(rs_job *job, rs_job_output_fn fn, void *user);
/** Records as fields (replaces rs_job_set_output). */
RS_API rs_status rs_job_set_records(rs_job *job, rs_job_records_fn fn, void *user);
/** The column names of the records, in field order; *n their count. Takes the settings
 *  as the first run does (0 columns when they fail: see rs_job_errmsg). */
RS_API const char *const *rs_job_columns(rs_job *job, size_t *n);
/** Diagnostics (malformed lines with RS_JOB_VERBOSE, the end-of-job note); default: dropped. */
RS_API rs_status rs_job_set_diag(rs_job *job, rs_job_diag_fn fn, void *user);
/** Progress, at most twice a second and once at the end of each run. */
RS_API rs_status rs_job_set_progress(rs_job *job, rs_job_progress_fn fn, void *user);

/** Runs one input to its end: a path, or NULL / "-" for stdin. */
RS_API rs_status rs_job_run(rs_job *job, const char *path);
/** Runs an open descriptor to its end (not closed); @name is used in messages. */
RS_API rs_status rs_job_run_fd(rs_job *job, int fd, const char *name);
/** Runs @size bytes in memory (plain, .zst or .gz) as one input. */
RS_API rs_status rs_job_run_buffer(rs_job *job, const void *data, size_t size, const char *name);
/** Stops a run as soon as possible: no record reaches the callbacks after it, and its
 *  rs_job_run* returns RS_ERR_CANCELED (as every later run of the job does). Any thread,
 *  any time (also from a callback). */
RS_API void rs_job_cancel(rs_job *job);
/** After the last run: the passes that need every input (logs: crawl-delay, whose records
 *  come out here), then the end-of-job note to the diag callback. Statistics are final. */
RS_API rs_status rs_job_finish(rs_job *job);
/** @return 1 when the last run failed at a damaged input (a read or decompression error):
 *  the records before the damage were delivered, and rs_job_finish still gives the
 *  statistics of what was read; 0 otherwise. */
RS_API int rs_job_input_failed(const rs_job *job);

RS_API rs_status rs_job_totals_get(rs_job *job, rs_job_totals *out);
/** The statistics (`--stats` JSON, schema_version 2) of the job, after rs_job_finish;
 *  valid until rs_job_free. */
RS_API rs_status rs_job_stats_json(rs_job *job, const char **json, size_t *size);

/** Parses a size: "64M", "1G", "512MiB", "1073741824" (at least 1 MiB). @return RS_OK or RS_ERR_USAGE. */
RS_API rs_status rs_parse_size(const char *text, uint64_t *out);

/* ===== Survey (src/survey, SPEC 10) ===== */

typedef enum {
    RS_CLASS_BLOCKED = 0,   /* a disallow matching every path beats every allow that can match */
    RS_CLASS_PARTIAL,       /* the rest */
    RS_CLASS_OPEN,          /* no disallow rule can match any path */
    RS_CLASS_UNAVAILABLE,   /* 3xx unresolved, 4xx */
    RS_CLASS_UNREACHABLE    /* 5xx, error */
} rs_survey_class;
#define RS_SURVEY_CLASS_COUNT 5

typedef enum { RS_GROUP_NAMED = 0, RS_GROUP_STAR, RS_GROUP_NONE } rs_survey_group;
#define RS_SURVEY_GROUP_COUNT 3

/** @return "blocked", "partial", "open", "unavailable", "unreachable". */
RS_API const char *rs_survey_class_str(rs_survey_class c);
/** @return "named", "star", "none". */
RS_API const char *rs_survey_group_str(rs_survey_group g);

typedef struct {
    rs_survey_class cls;
    rs_survey_group group;
    rs_str crawl_delay;     /* the applying groups' first numeric Crawl-delay as written; empty if none */
} rs_survey_result;

/**
 * Classifies one parsed robots.txt (2xx) for @n agents (product tokens,
 * compared as rs_matcher_create does): `blocked` when some disallow rule of
 * the agent's rules matches every path and no allow rule that can match some
 * path (index.htm-derived allows included) has a pattern at least as long
 * as that disallow's; `open` when no disallow rule can match any path;
 * `partial` otherwise. Slices in @out live as long as @rs.
 */
RS_API rs_status rs_survey_classify(const rs_ruleset *rs, const rs_str *agents, size_t n,
                                    rs_survey_result *out);

/** The default agents of survey (data/ai-agents.txt, built in). @param n OUT: how many. */
RS_API const char *const *rs_survey_default_agents(size_t *n);

/** @return 1 if a Sitemap value is an absolute http(s) URL with a valid host. */
RS_API int rs_sitemap_is_valid(const char *url, size_t len);

/* ===== WARC files and compressed bodies (src/warc) ===== */

/**
 * Reads a robots.txt body that may be gzip- or zstd-compressed (detected from
 * the content) into a new buffer of at most @max bytes.
 * @param out OUT: malloc'd, free() it; @out_len its length.
 * @return RS_OK, RS_ERR_CORRUPT (damaged compressed data), RS_ERR_NOMEM.
 */
RS_API rs_status rs_robots_decode(const void *in, size_t len, size_t max, char **out, size_t *out_len);

/** One response capture of a WARC file (rs_warc_each_capture). */
typedef struct {
    rs_str      uri;        /* WARC-Target-URI */
    rs_str      date;       /* WARC-Date */
    uint64_t    offset;     /* the record's offset */
    int         status;     /* HTTP status */
    const char *body;       /* 2xx: the body, decoded, at most RS_ROBOTS_MAX_BODY + 1 bytes */
    size_t      body_len;
} rs_warc_capture;

typedef int (*rs_warc_capture_cb)(void *ctx, const rs_warc_capture *c);

/**
 * Hands every response record of a WARC file to @cb in file order (every
 * capture, not only the latest per origin). With @keep_going, corrupt
 * records are counted in *@skipped and skipped.
 * @param errmsg OUT: a message naming the file and offset on failure.
 * @return RS_OK; RS_ERR_CORRUPT (not a WARC, damaged record) after the
 *         records before the damage were handed out; RS_ERR_IO; RS_ERR_NOMEM.
 */
RS_API rs_status rs_warc_each_capture(const char *path, int keep_going, rs_warc_capture_cb cb, void *ctx,
                                      uint64_t *skipped, char *errmsg, size_t errmsg_cap);

/** @return 1 if the file at @path is a WARC file (plain, gzip or zstd), 0 if not or unreadable. */
RS_API int rs_is_warc_file(const char *path);

/* ===== Lint (src/lint) ===== */

/*
 * rs_lint reads a robots.txt exactly as the parser does (it is a second
 * handler of rs_robots_parse events) and reports lines that probably do not
 * do what their author thinks, each with what the parser will actually do
 * under the default google semantics (SPEC 2). It knows no file names.
 */

typedef enum { RS_LINT_INFO = 0, RS_LINT_WARNING = 1, RS_LINT_ERROR = 2 } rs_lint_severity;

/* Stable codes; rs_lint_code_name() gives the names used in output ("typo-key"). */
typedef enum {
    RS_LINT_TYPO_KEY = 0,           /* warning: key accepted only as a known typo */
    RS_LINT_MISSING_COLON,          /* warning: key and value separated by whitespace */
    RS_LINT_LINE_TOO_LONG,          /* warning: bytes past 16,663 of a line ignored */
    RS_LINT_RULE_OUTSIDE_GROUP,     /* warning: allow/disallow before any user-agent */
    RS_LINT_UNKNOWN_KEY,            /* info: a key the matcher ignores */
    RS_LINT_PATTERN_NEVER_MATCHES,  /* warning: pattern not starting with '/' or '*' */
    RS_LINT_DOLLAR_NOT_AT_END,      /* warning: '$' inside a pattern is literal */
    RS_LINT_CONFLICTING_RULES,      /* warning: same pattern allowed and disallowed */
    RS_LINT_USER_AGENT_NOT_TOKEN,   /* info: user-agent value read as a shorter token */
    RS_LINT_EMPTY_USER_AGENT,       /* warning: a user-agent line naming nobody */
    RS_LINT_SITEMAP_NOT_ABSOLUTE,   /* warning: sitemap value not an absolute URL */
    RS_LINT_FILE_TOO_LARGE,         /* error: content past 500 KiB ignored */
    RS_LINT_BOM,                    /* info: a byte-order mark was skipped */
    RS_LINT_INVALID_UTF8,           /* warning: bytes that are not UTF-8 */
    RS_LINT_HTML_CONTENT,           /* error: the file looks like an HTML page */
    RS_LINT_NO_GROUPS,              /* warning: no user-agent line: everything allowed */
    RS_LINT_IGNORED_LINE,           /* warning: not a key/value line (or empty key): ignored */
    RS_LINT_MISSPELLED_KEY,         /* warning: unknown key close to a real one: ignored */
    RS_LINT_NUL_BYTE,               /* warning: a NUL byte ends the line early */
    RS_LINT_EMPTY_GROUP,            /* warning: last group has no rules: its agents get everything */
    RS_LINT_CODE_COUNT
} rs_lint_code;

/** @return the stable name of @code ("typo-key", ...), or NULL when out of range. */
RS_API const char *rs_lint_code_name(rs_lint_code code);
/** @return the severity every finding of @code has. */
RS_API rs_lint_severity rs_lint_code_severity(rs_lint_code code);
/** @return "info", "warning" or "error". */
RS_API const char *rs_lint_severity_name(rs_lint_severity sev);

typedef struct {
    uint32_t         line;      /* 1-based line (numbered as the parser does); 0 = whole file */
    rs_lint_severity severity;
    rs_lint_code     code;
    const char      *code_name; /* static */
    rs_str           message;   /* one line, no newline; valid only during the callback */
} rs_lint_finding;

typedef struct {
    uint32_t ignore;            /* bitmask of (1u << code): codes not to report */
} rs_lint_options;

typedef void (*rs_lint_callback)(void *ctx, const rs_lint_finding *finding);

/**
 * Lints a robots.txt body. Findings are delivered after the whole body was
 * read, ordered by line (line 0 first), then by the order they were found.
 * Only the first RS_ROBOTS_MAX_BODY bytes are read; pass at least one byte
 * more for file-too-large to be reported.
 * @param options may be NULL (report every code).
 * @return RS_OK, or RS_ERR_NOMEM (then no finding was delivered).
 */
RS_API rs_status rs_lint(const void *body, size_t size, const rs_lint_options *options,
                         rs_lint_callback cb, void *ctx);

/** One effective rule of an agent (rs_lint_agent). */
typedef struct {
    rs_rule_type type;
    uint32_t line;
    uint32_t priority;      /* canonical pattern length (SPEC 2.4.17) */
    int      derived;       /* 1: the "/dir/$" retry of a "/dir/index.htm*" allow (SPEC 2.4.20) */
    int      never_matches; /* 1: the pattern does not start with '/' or '*' */
    rs_str   pattern;       /* canonical */
} rs_lint_rule;

/** Which groups apply to an agent and the rules it gets, as a crawler sees them. */
typedef struct {
    int             specific;    /* 1: groups naming the agent apply; 0: the '*' groups (if any) */
    uint32_t        n_groups;    /* applying groups; 0: every URL is allowed */
    const uint32_t *group_lines; /* first user-agent line of each applying group, ascending */
    size_t          n_rules;
    const rs_lint_rule *rules;   /* precedence order: the first that matches a path decides
                                  * (an empty disallow disallows nothing; no match: allowed) */
} rs_lint_agent_view;

/**
 * Computes what @agent (compared whole, as rs_matcher_create does) gets from
 * a robots.txt body: applying groups and their merged rules.
 * @param out OUT: owned by the caller (rs_lint_agent_free); independent of @body.
 *            Its arrays and patterns live until rs_lint_agent_free.
 * @return RS_OK, RS_ERR_NOMEM, or RS_ERR_USAGE (out NULL, or agent NULL with a length).
 */
RS_API rs_status rs_lint_agent(const void *body, size_t size, const char *agent, size_t agent_len,
                               rs_lint_agent_view **out);
RS_API void rs_lint_agent_free(rs_lint_agent_view *view);


/* ===== Diff (src/diff) =====
 *
 * What changes between two sides: two robots.txt versions (two rs_sites), or
 * two semantics of one. Per (URL, agent), a flip is a verdict that differs;
 * per (origin, agent), the rule-level diff compares the two matchers' rules.
 * Callers decide both sides with two scanners over the same block
 * (rs_scan_block) and classify the pairs of records here.
 */

/** How a verdict changed from the old side to the new one. */
typedef enum {
    RS_FLIP_UNCHANGED = 0,
    RS_FLIP_NEWLY_DISALLOWED = 1,   /* allowed before, disallowed now */
    RS_FLIP_NEWLY_ALLOWED = 2       /* disallowed before, allowed now */
} rs_flip;
#define RS_FLIP_COUNT 3

/** @return the flip of a pair of verdicts (disallowed flags). */
RS_API rs_flip rs_diff_flip(int old_disallowed, int new_disallowed);
/** @return "unchanged", "newly-disallowed" or "newly-allowed". */
RS_API const char *rs_flip_str(rs_flip f);

/*
 * Diff counters, as rs_tally counters (RS_DIFF_COUNTERS per key) so per-thread
 * and per-shard tallies merge by addition: every one is a sum.
 */
enum {
    RS_DIFF_COMPARED = 0,           /* (URL, agent) pairs decided on both sides */
    RS_DIFF_NEWLY_DISALLOWED,
    RS_DIFF_NEWLY_ALLOWED,
    RS_DIFF_UNCHANGED,
    RS_DIFF_HITS,                   /* sums of the pairs' weights (log hits; 1 per URL line) */
    RS_DIFF_HITS_NEWLY_DISALLOWED,
    RS_DIFF_HITS_NEWLY_ALLOWED,
    RS_DIFF_HITS_UNCHANGED,
    RS_DIFF_COUNTERS
};

/** Adds one compared pair of weight @hits to @c (RS_DIFF_COUNTERS counters). @return its flip. */
RS_API rs_flip rs_diff_count(uint64_t *c, int old_disallowed, int new_disallowed, uint64_t hits);

/** What happened to one rule (rs_rule_change.change). */
typedef enum {
    RS_RULE_ADDED = 0,     /* on the new side only */
    RS_RULE_REMOVED,       /* on the old side only */
    RS_RULE_CHANGED_EFFECT /* on both sides, but its probe path gets another verdict */
} rs_rule_change_kind;

/** @return "added", "removed" or "changed-effect". */
RS_API const char *rs_rule_change_str(rs_rule_change_kind k);

/**
 * One change of the rule-level diff. A rule is identified by its type and
 * canonical pattern (its line may move). Its probe path is the shortest path
 * its pattern names: the pattern with every `*` removed and a final `$`
 * dropped, with `/` put in front when it does not start with one.
 */
typedef struct {
    rs_rule_change_kind change;
    rs_rule_type type;
    rs_str   pattern;      /* canonical; valid during the callback */
    uint32_t old_line;     /* first line of the rule on the old side; 0 when added */
    uint32_t new_line;     /* first line on the new side; 0 when removed */
    rs_str   probe;        /* the probe path; valid during the callback */
    rs_verdict old_verdict;/* the probe decided by each side (line, disallowed) */
    rs_verdict new_verdict;
} rs_rule_change;

typedef void (*rs_rule_change_callback)(void *ctx, const rs_rule_change *change);

/**
 * The rule-level diff of two matchers for one agent (each from
 * rs_matcher_create or a lookup, or NULL for "no rules": no-robots, or an
 * allow-all/disallow-all fetch outcome, which have no rules). Rules are
 * compared as sets of (type, canonical pattern); a rule written twice counts
 * once, at its first line. Changes are delivered removed (old file order),
 * then added (new file order), then changed in effect (new file order).
 * Changed in effect: a rule on both sides whose probe path gets a different
 * verdict from the old and the new matcher (another rule now overrides it, or
 * it now overrides another, or the semantics read it differently).
 * @return RS_OK or RS_ERR_NOMEM (no change delivered then).
 */
RS_API rs_status rs_diff_rules(const rs_matcher *old_m, const rs_matcher *new_m,
                               rs_rule_change_callback cb, void *ctx);

/*
 * The diff job (RS_JOB_DIFF, src/diff/run.c): what `robotscan diff` runs.
 *
 *   rs_job *job = rs_job_create(RS_JOB_DIFF);
 *   rs_job_add_robots(job, "old/");  rs_job_add_robots_new(job, "new/");
 *   rs_job_add_agent(job, "Googlebot");            (any number; none: '*', Googlebot, bingbot)
 *   rs_job_run(job, "urls.txt"); rs_job_finish(job);
 *   rs_job_diff_summary_get(job, &s);              (flips per agent and per (origin, agent))
 *
 * Sides: the old side is rs_job_add_robots / rs_job_use_sites under RS_JOB_SEMANTICS, the
 * new side rs_job_add_robots_new / rs_job_use_sites_new under RS_JOB_SEMANTICS_NEW; a new
 * side with no source of its own reads the old side's (two semantics of one source).
 * Both sides are decided in one pass over the input, for every agent at once.
 * Records: url, origin, agent, old_verdict, old_line, old_rule, new_verdict, new_line,
 * new_rule, hits; only flips unless RS_JOB_DIFF_ALL. URL lists: in input order, a URL's
 * records in agent order. Logs (RS_JOB_DIFF_LOGS): agents filter the bots found (none: every
 * bot); one record per (bot, URL) with its hits, in first-seen order, delivered by
 * rs_job_finish (the input line of a record: its first hit's). RS_JOB_DIFF_RULES: after
 * the records, rs_job_finish delivers the rule-level diff of every (origin, agent) pair
 * compared, in origin then agent order, pairs with a change only: as bytes, TSV/CSV rows
 * after an empty line and a header of their own (origin, agent, change, rule, old_line,
 * new_line, probe, old_verdict, new_verdict), JSONL objects with "kind":"rule" and those
 * fields, text under a heading; to the records callback, records with input_line 0 and
 * those nine fields. RS_JOB_NO_RECORDS: no flip record, but the rule rows still come.
 * Statistics: schema "diff" version 1, sums only (mergeable). Totals: records are the
 * (URL, agent) pairs (logs: bot hits) compared. RS_JOB_MEMORY_LIMIT, RS_JOB_ONLY and
 * RS_JOB_VERIFY do not apply (no partitions).
 */

/** Counts of one agent, or of one (origin, agent) pair. */
typedef struct {
    rs_str origin;                  /* empty in per-agent rows */
    rs_str agent;                   /* logs: the bot's token */
    uint64_t c[RS_DIFF_COUNTERS];
} rs_job_diff_row;

/** A diff job's results (rs_job_diff_summary_get); valid until rs_job_free. */
typedef struct {
    uint64_t total[RS_DIFF_COUNTERS];
    const rs_job_diff_row *agents;  /* URL lists: every agent, in the order given; logs: the bots
                                       compared, most hits first */
    size_t n_agents;
    const rs_job_diff_row *pairs;   /* every (origin, agent) compared: most flips first, then
                                       by origin and agent bytes */
    size_t n_pairs;
    uint64_t non_bot;               /* logs: lines of no bot on either side */
    uint64_t bot_one_side;          /* logs: a bot on one side only */
    uint64_t bot_named_differently; /* logs: the sides name the bot differently (counted as the new side's) */
} rs_job_diff_summary;

/** The summary of a diff job, after rs_job_finish. @return RS_OK, or RS_ERR_USAGE (not a
 *  finished diff job). */
RS_API rs_status rs_job_diff_summary_get(rs_job *job, rs_job_diff_summary *out);

/** One bot of a logs job (rs_job_logs_summary_get). */
typedef struct {
    rs_str agent;                   /* the bot's product token */
    uint64_t hits, disallowed, delay_violations, distinct_paths, robots_fetches;
    uint64_t verified, unverified, spoofed, spoofed_disallowed;
    int has_first_fetch;            /* a /robots.txt fetch with a time */
    char first_fetch[24];           /* its time, "YYYY-MM-DDTHH:MM:SSZ" ("-": none) */
} rs_job_logs_bot;

typedef struct {
    uint64_t lines, bot_hits, non_bot_hits, other_bot_hits, malformed, blank, spoofed, by_ip;
    int verify;                     /* ranges were given (RS_JOB_VERIFY) */
    const rs_job_logs_bot *bots;       /* after rs_job_finish: most hits first */
    size_t n_bots;
    int input_failed;               /* the last run stopped at damaged input (its hits are kept) */
    int wrong_format;               /* rs_job_finish failed: most of the first lines did not parse */
    uint64_t first_ok, first_bad;   /* the first lines of each input: parsed or not */
    const char *would;              /* with wrong_format: the format that reads them, or NULL */
} rs_job_logs_summary;

/** A logs job's counts so far and, after rs_job_finish, its bots (the per-bot summary of
 *  `robotscan logs`); valid until the next call on the job; NULL unless a started logs job. */
RS_API const rs_job_logs_summary *rs_job_logs_summary_get(rs_job *job);



#ifdef __cplusplus
}
#endif
#endif /* ROBOTSCAN_H */

/* ===== Robots.txt metadata: sitemaps, rates, host ===== */
/*
 * What a parsed robots.txt says besides its rules (src/rules/meta.c), read
 * from the ruleset that rs_ruleset_parse built from the parser's events (no
 * second parse). Stable API (RS_API); it sits outside the main include guard
 * with a guard of its own, so include robotscan.h as usual.
 *
 * Per-agent values come from the groups that apply to the agent as for the
 * rules (SPEC 2.2.13: the groups naming it, else the `*` groups); among their
 * lines of the key, the first in file order whose value reads wins, and lines
 * that do not read are skipped. Keys are matched whole, ASCII
 * case-insensitively. Values of unknown keys (crawl-delay, request-rate,
 * visit-time, host) are as the parser keeps them: trimmed, %xx escapes
 * upper-cased, bytes >= 0x80 percent-encoded (SPEC 2.1.8). Slices live as
 * long as the ruleset.
 */
#if !defined(ROBOTSCAN_H_META)
#define ROBOTSCAN_H_META
#ifdef __cplusplus
extern "C" {
#endif

/** One `Sitemap:` (or `Site-map:`) line. */
typedef struct {
    rs_str   url;         /* the value as written (trimmed, not canonicalized) */
    uint32_t line;        /* 1-based line */
} rs_sitemap_entry;

/**
 * The `Sitemap:` lines of @rs in file order, as written (duplicates kept;
 * anywhere in the file, inside or outside groups).
 * @param out OUT: up to @cap entries (may be NULL with @cap 0).
 * @return the number of Sitemap: lines (may exceed @cap).
 */
RS_API size_t rs_ruleset_sitemaps(const rs_ruleset *rs, rs_sitemap_entry *out, size_t cap);

/**
 * Yandex's preferred host: the value of the first non-empty `Host:` line
 * anywhere in the file (Yandex reads the first; the value is not checked).
 * @param value OUT: optional; @param line OUT: optional.
 * @return 1 if found, 0 otherwise.
 */
RS_API int rs_ruleset_host(const rs_ruleset *rs, rs_str *value, uint32_t *line);

/**
 * The Crawl-delay of the groups that apply to @agent: the first value that
 * is a plain decimal (`10`, `0.5`, `2.`), as survey reports it (SPEC 10).
 * @param seconds OUT: optional; @param line OUT: optional.
 * @return 1 if found, 0 otherwise.
 */
RS_API int rs_ruleset_crawl_delay(const rs_ruleset *rs, const char *agent, size_t agent_len,
                                  double *seconds, uint32_t *line);

/** A `Request-rate:` value: N/S[unit][ HHMM-HHMM]. */
typedef struct {
    uint32_t requests;    /* N: up to this many requests ... */
    double   seconds;     /* ... per this many seconds (S times its unit: s, m, h or d; s when none) */
    int32_t  start, end;  /* the optional window (UTC), minutes after 00:00; -1 when none */
    uint32_t line;
    rs_str   value;       /* the whole value, as kept */
} rs_request_rate;

/**
 * The Request-rate (key `request-rate` or `request rate`) of the groups that
 * apply to @agent. Reads `1/5`, `1/5s`, `10/1m`, `1/0.5h`, `1/10s 0600-0845`
 * (clock times HHMM or HH:MM); anything else is skipped.
 * @param out OUT: optional.
 * @return 1 if found, 0 otherwise.
 */
RS_API int rs_ruleset_request_rate(const rs_ruleset *rs, const char *agent, size_t agent_len,
                                   rs_request_rate *out);

/** A `Visit-time:` value: HHMM-HHMM (UTC). */
typedef struct {
    int32_t  start, end;  /* minutes after 00:00 UTC */
    uint32_t line;
    rs_str   value;
} rs_visit_time;

/**
 * The Visit-time (key `visit-time` or `visit time`) of the groups that apply
 * to @agent: `0600-0845` or `06:00-08:45` (spaces allowed around `-`).
 * @param out OUT: optional.
 * @return 1 if found, 0 otherwise.
 */
RS_API int rs_ruleset_visit_time(const rs_ruleset *rs, const char *agent, size_t agent_len,
                                 rs_visit_time *out);

#ifdef __cplusplus
}
#endif
#endif /* ROBOTSCAN_H_META */

/*
 * ===== Static-linking-only API =====
 *
 * Declarations below are RS_STATIC_API: present in librobotscan.a, hidden in
 * librobotscan.so, and free to change between minor versions. The CLI, the
 * tests and the benchmarks build with -DRS_STATIC_LINKING_ONLY.
 */
#if defined(RS_STATIC_LINKING_ONLY) && !defined(ROBOTSCAN_H_STATIC)
#define ROBOTSCAN_H_STATIC

/* Not exported from the shared library (see the top of this file). */
#define RS_STATIC_API

#ifdef __cplusplus
extern "C" {
#endif

/* ----- robots.txt line events (src/robots) -----
 *
 * The parser's event interface: one rs_robots_line per non-empty line
 * (rs_robots_parse). The rule compiler and lint are its consumers.
 */

typedef enum {
    RS_DIRECTIVE_NONE = 0,   /* content that is not a key/value line: ignored */
    RS_DIRECTIVE_USER_AGENT,
    RS_DIRECTIVE_ALLOW,
    RS_DIRECTIVE_DISALLOW,
    RS_DIRECTIVE_SITEMAP,
    RS_DIRECTIVE_UNKNOWN     /* a key the matcher ignores (crawl-delay, host, ...) */
} rs_directive;

/* Flags on a parsed line (rs_robots_line.flags). */
#define RS_LINE_TYPO_KEY      0x01u  /* key accepted only as a known typo */
#define RS_LINE_MISSING_COLON 0x02u  /* key and value separated by whitespace only */
#define RS_LINE_TOO_LONG      0x04u  /* bytes past RS_ROBOTS_MAX_LINE were dropped */
#define RS_LINE_HAS_NUL       0x08u  /* a NUL byte ended the content early */
#define RS_LINE_PAST_LIMIT    0x10u  /* the file was cut at RS_ROBOTS_MAX_BODY in this line */
#define RS_LINE_EMPTY_KEY     0x20u  /* "': value'": ignored */

typedef struct {
    rs_directive directive;
    uint32_t line;        /* 1-based line number; empty lines count */
    uint32_t flags;       /* RS_LINE_* */
    rs_str key;           /* the key as written, trimmed (empty for NONE) */
    rs_str value;         /* trimmed; canonical (SPEC 2.1.8) except for user-agent and sitemap */
    rs_str raw;           /* the kept bytes of the line, before comment stripping */
} rs_robots_line;

typedef struct {
    uint32_t bom_bytes;   /* 0..3 bytes of a leading (partial) UTF-8 BOM skipped */
    uint32_t lines;       /* number of lines, as the reference numbers them */
    size_t   bytes_read;  /* min(size, RS_ROBOTS_MAX_BODY) */
    int      truncated;   /* 1 when the body was longer than RS_ROBOTS_MAX_BODY */
    uint32_t truncated_line; /* the line in which the cut happened, else 0 */
} rs_robots_info;

/** Called once per non-empty line; the slices are valid only during the call. */
typedef void (*rs_robots_callback)(void *ctx, const rs_robots_line *line);

/**
 * Parses a robots.txt body and calls @cb for each non-empty line in order.
 * @param info  OUT: optional (may be NULL), facts about the whole file.
 * @return RS_OK, RS_ERR_NOMEM, or RS_ERR_USAGE (@body NULL with a non-zero @size).
 */
RS_STATIC_API rs_status rs_robots_parse(const void *body, size_t size,
                                        rs_robots_callback cb, void *ctx,
                                        rs_robots_info *info);


/* ===== Input: readers and line splitting (src/input, src/simd) =====
 *
 * Byte-class kernels (src/simd). Each has a plain-C scalar twin and vector
 * versions (sse2, avx2); one set is chosen per process: -DRS_SIMD_FORCE=name
 * at compile time, else env RS_SIMD=scalar|sse2|avx2, else the best the CPU
 * runs. Kernels read only p[0 .. n): no padding is required of callers.
 */

/** Most members a rs_byteset may have. */
#define RS_BYTESET_MAX 16

/** A small set of bytes to search for; fill it with rs_byteset_init(). */
typedef struct {
    uint64_t      bits[4];                 /* membership bitmap, bit c = byte c */
    unsigned char bytes[RS_BYTESET_MAX];   /* the distinct members */
    unsigned      count;                   /* number of distinct members */
} rs_byteset;

/**
 * Makes @set the set of the @n bytes at @members (duplicates allowed; NUL is
 * an ordinary member).
 * @return RS_OK, RS_ERR_LIMIT for more than RS_BYTESET_MAX distinct bytes,
 *         RS_ERR_USAGE for NULL arguments.
 */
RS_STATIC_API rs_status rs_byteset_init(rs_byteset *set, const char *members, size_t n);

/** One implementation of every kernel. Tables are static and immutable. */
typedef struct {
    const char *name;                                        /* "scalar", "sse2", "avx2" */
    size_t (*find_newline)(const char *p, size_t n);         /* index of first '\n', or n */
    size_t (*count_newlines)(const char *p, size_t n);       /* number of '\n' */
    size_t (*find_any)(const char *p, size_t n, const rs_byteset *set); /* first member, or n */
    size_t (*find_substr)(const char *h, size_t n, const char *s, size_t m); /* leftmost s, or n */
    size_t (*mask_any)(const char *p, size_t n, const rs_byteset *set, uint64_t *bits); /* see below */
} rs_simd_kernels;

/** @return the index of the first '\n' in p[0 .. n), or n if there is none. */
RS_STATIC_API size_t rs_simd_find_newline(const char *p, size_t n);
/** @return the number of '\n' bytes in p[0 .. n). */
RS_STATIC_API size_t rs_simd_count_newlines(const char *p, size_t n);
/** @return the index of the first byte of p[0 .. n) in @set, or n if none. */
RS_STATIC_API size_t rs_simd_find_any(const char *p, size_t n, const rs_byteset *set);
/**
 * @return the start of the leftmost occurrence of s[0 .. m) in h[0 .. n), or
 *         n if there is none (an empty s occurs at 0). Reads only h[0 .. n)
 *         and s[0 .. m); O(n * m) at worst.
 */
RS_STATIC_API size_t rs_simd_find_substr(const char *h, size_t n, const char *s, size_t m);
/**
 * The positions of @set's members in p[0 .. n) as a bitmap: bit j of
 * bits[k] is set when p[64 k + j] is in @set. Writes the (n + 63) / 64 words
 * bits[0 ..] (bits past n are 0), reads only p[0 .. n).
 * @return the number of members found (bits set).
 */
RS_STATIC_API size_t rs_simd_mask_any(const char *p, size_t n, const rs_byteset *set, uint64_t *bits);

/** @return the name of the kernel set in use ("scalar", "sse2", "avx2"). */
RS_STATIC_API const char *rs_simd_impl_name(void);
/** @return the kernel set in use (never NULL). */
RS_STATIC_API const rs_simd_kernels *rs_simd_active(void);
/**
 * A kernel set by name, for tests and benchmarks that compare them.
 * @param name "scalar", "sse2", "avx2", or NULL for the active set.
 * @return the static table, or NULL if unknown or this CPU cannot run it.
 */
RS_STATIC_API const rs_simd_kernels *rs_simd_get(const char *name);
/** @return the name of the i-th compiled-in set (0 = "scalar"), NULL past the last. */
RS_STATIC_API const char *rs_simd_impl_at(size_t i);

/*
 * Streaming reader (src/input). Reads a file or stdin, plain or compressed
 * (zstd and gzip, detected from the magic bytes, never from the name;
 * concatenated frames/members and zstd skippable frames are accepted), and
 * hands out large blocks of COMPLETE lines:
 *
 *  - A line ends at '\n'; the last line of the input may lack it. A leading
 *    UTF-8 BOM (EF BB BF) of the stream is skipped (it still counts in
 *    offsets). Line numbers are 1-based and count empty lines.
 *  - Lines longer than max_line bytes (counting everything before the '\n',
 *    a '\r' included) are never truncated and never merged with neighbours:
 *    the rs_lines iterator returns each as a record flagged `oversized` (its
 *    length, no text), in its place in line order, so a consumer can count it
 *    as malformed with its number and length. A long line that fits in the
 *    block buffer stays inside its block (the iterator flags it); one that
 *    does not is skipped while streaming and delivered as an OVERSIZED block
 *    (rs_block.oversized = its length, no text). So a 100 MB line without a
 *    newline costs no memory: the reader holds about
 *    2 x max(block_size, max_line + 1) bytes plus the decompressor's window.
 *    Consumers of raw blocks should use rs_lines (or check lengths) for this.
 *  - ptr[len .. len + 64) of a block is readable (unspecified bytes), so
 *    vector code may over-read the end of a block by up to 64 bytes.
 *  - Errors: a missing/unreadable file or a directory fails in
 *    rs_reader_open (RS_ERR_IO). A read error, or truncated/corrupt
 *    compressed data, is returned by the next_block call AFTER every complete
 *    line before the damage was delivered (the partial line at the damage is
 *    dropped); rs_reader_errmsg() then names the file and the compressed
 *    offset, e.g. "urls.zst: corrupt zstd frame at offset 1234: Unknown frame
 *    descriptor". Errors are sticky.
 *  - A reader is used by one thread at a time. For a producer thread and
 *    worker threads, give each block its own rs_blockbuf
 *    (rs_reader_next_block_into): a block lives as long as its buffer is not
 *    passed to the reader again, so workers can process block k while the
 *    producer fills block k+1.
 */

#define RS_READER_DEFAULT_BLOCK    ((size_t)4 << 20)   /* 4 MiB */
#define RS_READER_DEFAULT_MAX_LINE ((size_t)1 << 20)   /* 1 MiB */

typedef struct rs_reader rs_reader;
typedef struct rs_blockbuf rs_blockbuf;

typedef enum {
    RS_COMPRESSION_NONE = 0,
    RS_COMPRESSION_GZIP,
    RS_COMPRESSION_ZSTD
} rs_compression;

/** @return "none", "gzip" or "zstd". */
RS_STATIC_API const char *rs_compression_name(rs_compression c);

typedef struct {
    size_t block_size;   /* bytes a block aims for; 0 = RS_READER_DEFAULT_BLOCK. A block
                            is shorter at end of input and longer by at most one line */
    size_t max_line;     /* longest line delivered as text; 0 = RS_READER_DEFAULT_MAX_LINE */
    int    map;          /* 1: a plain regular file read from its start is mapped (mmap), and
                            blocks are slices of the mapping, not copies (faster; the caller
                            must expect SIGBUS if the file shrinks while it is read: the CLI
                            turns that into an error). The environment RS_READER=read turns it
                            off. 0: every file is read into the block buffers */
} rs_reader_opts;

/** A block of complete lines; see rs_reader_next_block(). */
typedef struct {
    const char *ptr;      /* the lines; each ends in '\n' except the final line of input */
    size_t      len;      /* bytes at ptr (0 for an oversized block) */
    uint64_t    first_line; /* 1-based number of the first line */
    uint64_t    lines;    /* number of lines in the block (1 for an oversized block) */
    uint64_t    offset;   /* offset of the first line in the decompressed stream */
    uint64_t    oversized; /* 0, or this block is ONE line longer than max_line, of this
                             many bytes (its '\n' excluded), whose bytes were skipped */
    size_t      max_line; /* the reader's max_line, for rs_lines_init (0 = the default) */
    const uint64_t *nl_bits; /* NULL, or the reader's newline bitmap of ptr[0, len) (bit j of
                             word k: ptr[64 k + j] is '\n'; bits past len are 0), which
                             rs_lines uses instead of scanning again; lives with ptr */
} rs_block;

/**
 * Opens @path for reading.
 * @param path a file, or "-" or NULL for stdin (not closed by rs_reader_free).
 * @param opts may be NULL (defaults). Copied.
 * @param out  OUT: the reader, owned by the caller (rs_reader_free). On
 *             failure *out is still set (unless RS_ERR_NOMEM or RS_ERR_USAGE)
 *             so the caller can read rs_reader_errmsg(), then free it.
 * @return RS_OK; RS_ERR_IO (missing, unreadable, a directory), RS_ERR_CORRUPT
 *         (a compressed header already fails), RS_ERR_NOMEM, RS_ERR_USAGE.
 */
RS_STATIC_API rs_status rs_reader_open(const char *path, const rs_reader_opts *opts, rs_reader **out);

/**
 * Like rs_reader_open over an already open descriptor, which the reader does
 * not close. @param name used in messages (e.g. "(stdin)"); copied; may be NULL.
 */
RS_STATIC_API rs_status rs_reader_open_fd(int fd, const char *name, const rs_reader_opts *opts,
                                          rs_reader **out);

/** Frees the reader and its internal buffer (closes the file it opened). NULL is fine. */
RS_STATIC_API void rs_reader_free(rs_reader *r);

/**
 * The next block, in a buffer internal to the reader.
 * @param out OUT: valid until the next call on @r or rs_reader_free.
 * @return RS_OK; RS_ERR_EOF after the last block (and on every later call);
 *         RS_ERR_IO / RS_ERR_CORRUPT (see above; sticky); RS_ERR_NOMEM.
 */
RS_STATIC_API rs_status rs_reader_next_block(rs_reader *r, rs_block *out);

/**
 * A block buffer owned by the caller, sized for @r's options; for several
 * blocks in flight at once. Usable with any reader with the same or smaller
 * block_size and max_line.
 * @param out OUT: free with rs_blockbuf_free (NULL is fine).
 */
RS_STATIC_API rs_status rs_blockbuf_create(const rs_reader *r, rs_blockbuf **out);
RS_STATIC_API void rs_blockbuf_free(rs_blockbuf *b);

/**
 * As rs_reader_next_block, but reads into @buf: @out points into @buf and is
 * valid until @buf is passed to the reader again or freed, whatever else
 * happens to @r. Not thread-safe per reader; @buf may be handed between threads.
 * @return as rs_reader_next_block; RS_ERR_USAGE if @buf is too small.
 */
RS_STATIC_API rs_status rs_reader_next_block_into(rs_reader *r, rs_blockbuf *buf, rs_block *out);

/**
 * The bytes the next blocks aim for, from now on: at most the block_size given at
 * open (the buffers' room); 0 restores it. Lets a caller cut the end of its input
 * finer, so that threads sharing the blocks finish together.
 */
RS_STATIC_API void rs_reader_set_block_size(rs_reader *r, size_t block_size);

/**
 * @return a message about the last failure ("" when none), naming the file
 *         and, for damaged compressed input, the compressed byte offset.
 *         Valid until the next call on @r.
 */
RS_STATIC_API const char *rs_reader_errmsg(const rs_reader *r);

typedef struct {
    rs_compression compression; /* detected from the magic bytes */
    uint64_t file_size;         /* size of a regular file, else 0 (progress/ETA) */
    uint64_t bytes_in;          /* bytes read from the file (compressed bytes) */
    uint64_t bytes_out;         /* decompressed bytes produced so far */
    uint64_t lines;             /* lines delivered so far, oversized ones included */
    uint64_t oversized_lines;   /* lines delivered as oversized blocks */
    int      bom;               /* 1 if a UTF-8 BOM was skipped */
    int      mapped;            /* 1 if the file is mapped (a plain regular file), not read */
} rs_reader_stats;

/** Fills @out with the counters so far. */
RS_STATIC_API void rs_reader_stats_get(const rs_reader *r, rs_reader_stats *out);

/*
 * Line iterator over one block: no allocation; uses the block's newline bitmap
 * when the reader made one, else the active newline kernel.
 *
 *   rs_lines it; rs_line ln;
 *   rs_lines_init(&it, &block);
 *   while (rs_line_next(&it, &ln)) {
 *       if (ln.oversized) count_malformed(ln.number, ln.oversized);
 *       else use(ln.text);
 *   }
 */
typedef struct {
    const char *p, *end;  /* the rest of the block */
    uint64_t next;        /* number of the next line */
    uint64_t oversized;   /* pending oversized length (oversized block), else 0 */
    size_t   max_line;    /* longer lines are flagged oversized */
    size_t (*find)(const char *p, size_t n); /* newline kernel, fixed at init */
    const uint64_t *bits; /* the block's nl_bits (then find is unused), or NULL */
    const char *base;     /* the block's ptr: bit 0 of bits[0] */
} rs_lines;

typedef struct {
    rs_str   text;        /* the line without its "\n" or "\r\n"; empty when oversized */
    uint64_t number;      /* 1-based line number in the input */
    uint64_t oversized;   /* 0, or the length of a line too long to deliver */
} rs_line;

/** Starts iterating @b (which must outlive the iteration). */
RS_STATIC_API void rs_lines_init(rs_lines *it, const rs_block *b);
/**
 * @param out OUT: the next line; text points into the block.
 * @return 1 if a line was produced, 0 at the end of the block.
 */
RS_STATIC_API int rs_line_next(rs_lines *it, rs_line *out);

/**
 * Convenience for single-threaded consumers: the next line of the input
 * (oversized lines included, flagged as in rs_line_next).
 * @param out OUT: valid until the next call on @r.
 * @return RS_OK, RS_ERR_EOF at the end, or an error as rs_reader_next_block.
 */
RS_STATIC_API rs_status rs_reader_next_line(rs_reader *r, rs_line *out);


/* ===== Bulk scanning (src/scan) =====
 *
 * A scanner decides blocks of URL lines against an rs_sites for one or more
 * agents, with its cost independent of the number of sites in the input:
 * inside a block every URL is split once, its origin resolved to a site
 * through a table private to the scanner (hashing the raw
 * "scheme://authority" bytes, so a known origin is never parsed again),
 * the URL positions are grouped by site, each site's URLs are matched back
 * to back with its matcher hot (the next site's matcher prefetched), and
 * the verdicts land in input order. A scanner is used by one thread at a
 * time; many scanners (one per worker thread) may share one rs_sites.
 */

typedef struct rs_scanner rs_scanner;

/** What to do with URLs of an origin no robots source knows. */
typedef enum {
    RS_SCAN_MISSING_ALLOW = 0,    /* verdict allow, reason no-robots */
    RS_SCAN_MISSING_DISALLOW = 1, /* verdict disallow, reason no-robots */
    RS_SCAN_MISSING_SKIP = 2      /* record kind RS_SCAN_SKIPPED */
} rs_scan_missing;

/** Everything a scanner decides with, fixed at rs_scanner_create (copied). */
typedef struct {
    rs_sites *sites;              /* shared; must outlive the scanner */
    const char *const *agents;    /* product tokens, @n_agents of them (>= 1); copied */
    const size_t *agent_lens;     /* their lengths, or NULL for NUL-terminated agents */
    size_t n_agents;
    rs_semantics semantics;
    rs_scan_missing missing;
    int encode_urls;              /* percent-encode non-ASCII path bytes (rs_url_encode_path) */
    int summary_only;             /* decide URLs into the block summary only (rs_scan_summarize),
                                     as for a count: rs_scan_get then gives a URL line's text,
                                     number and origin but no verdict (rule -1, line 0) */
} rs_scan_config;

/** What one record of a block is (rs_scan_record.kind). */
typedef enum {
    RS_SCAN_URL = 0,      /* a decided URL: one record per agent, agents in order */
    RS_SCAN_BLANK,        /* an empty line, whitespace only, or a '#' comment */
    RS_SCAN_MALFORMED,    /* no origin: see .error */
    RS_SCAN_OVERSIZED,    /* a line longer than the reader's max_line: see .oversized */
    RS_SCAN_SKIPPED       /* no-robots under RS_SCAN_MISSING_SKIP (one per agent) */
} rs_scan_kind;

/**
 * One verdict (or one non-URL line) of a block, filled by rs_scan_get.
 * Slices point into the block (url) or into the scanner (origin) and are
 * valid until the next rs_scan_block call on the scanner, or rs_scanner_free.
 */
typedef struct {
    rs_str   url;          /* the line without its line end (empty when oversized) */
    rs_str   origin;       /* canonical origin (URL and SKIPPED records), else empty */
    uint64_t line_no;      /* 1-based line number in the input */
    const rs_matcher *matcher; /* the matcher that decided (rs_matcher_rule); NULL for no-robots */
    uint64_t oversized;    /* OVERSIZED: the line's length */
    uint32_t site;         /* scanner-local site number, dense from 0, stable for the
                              scanner's life (per-origin tallies); UINT32_MAX for a line
                              decided alone (leading whitespace, very long origin) */
    uint32_t agent;        /* index into rs_scan_config.agents */
    uint32_t line;         /* robots.txt line of the deciding rule, 0 when none */
    int32_t  rule;         /* rule index for rs_matcher_rule, -1 when none */
    uint8_t  kind;         /* rs_scan_kind */
    uint8_t  disallowed;   /* 1 = disallow */
    uint8_t  reason;       /* rs_reason */
    uint8_t  error;        /* MALFORMED: rs_origin_error */
} rs_scan_record;

/**
 * Creates a scanner. Its lookups pass @cfg->semantics to @cfg->sites
 * explicitly (rs_sites_set_semantics is neither needed nor changed), so
 * scanners with different semantics may share one rs_sites.
 * @param out OUT: free with rs_scanner_free.
 * @return RS_OK, RS_ERR_NOMEM, RS_ERR_USAGE (no sites, no agent, bad enum).
 */
RS_STATIC_API rs_status rs_scanner_create(const rs_scan_config *cfg, rs_scanner **out);
RS_STATIC_API void rs_scanner_free(rs_scanner *sc);

/**
 * Decides every line of @block (from rs_reader_next_block*, or built by the
 * caller: whole lines, each ending in '\n' except possibly the last; at most
 * 4 GiB). Read the outcome with rs_scan_get.
 * @param n_lines OUT: the number of lines of the block (records per agent).
 * @return RS_OK; RS_ERR_IO / RS_ERR_NOMEM from the sites (a robots file that
 *         cannot be read; rs_scanner_errmsg says which), RS_ERR_LIMIT for a
 *         block over 4 GiB. After a failure no record of the block is valid.
 */
RS_STATIC_API rs_status rs_scan_block(rs_scanner *sc, const rs_block *block, size_t *n_lines);

/**
 * The record of line @i (0-based, input order) of the last block for agent
 * number @agent. Lines that are not URLs (kind BLANK, MALFORMED, OVERSIZED)
 * have one record, the same for every agent: read them with agent 0.
 */
RS_STATIC_API void rs_scan_get(const rs_scanner *sc, size_t i, size_t agent, rs_scan_record *out);

/**
 * rs_scan_get without what the line's site record holds: origin (empty) and
 * matcher (NULL). The rest (kind, text, number, verdict, site number) comes
 * from the block's own arrays, read in input order, while the site records
 * lie all over memory (at 100,000 sites reading one is a cache miss: most of
 * rs_scan_get's cost). A line of a site decided alone has site UINT32_MAX
 * here: read it with rs_scan_get. Pair with rs_scan_prefetch_site and
 * rs_scan_get for the records that need the origin or the matcher.
 */
RS_STATIC_API void rs_scan_get_brief(const rs_scanner *sc, size_t i, size_t agent, rs_scan_record *out);

/** Starts fetching the site record of line @i (a hint: rs_scan_get reads it later). */
RS_STATIC_API void rs_scan_prefetch_site(const rs_scanner *sc, size_t i);

/**
 * Starts fetching what rs_matcher_rule(@m, @rule) reads past the matcher's
 * header (its entry in the rule table); reads the header, so fetch that first
 * (a hint: a bad index does nothing).
 */
RS_STATIC_API void rs_matcher_prefetch_rule(const rs_matcher *m, int32_t rule);

/**
 * Starts fetching the pattern text rs_matcher_rule(@m, @rule) points to; reads
 * the rule's entry, so fetch that first (rs_matcher_prefetch_rule; a hint: a
 * bad index does nothing).
 */
RS_STATIC_API void rs_matcher_prefetch_pattern(const rs_matcher *m, int32_t rule);

/** The kind of line @i of the last block (RS_SCAN_URL for every URL line, whatever its agents' records). */
RS_STATIC_API rs_scan_kind rs_scan_line_kind(const rs_scanner *sc, size_t i);

/** The totals of the last block, for callers that count records without reading them. */
typedef struct {
    uint64_t lines;        /* lines of the block */
    uint64_t blank;        /* BLANK lines */
    uint64_t malformed;    /* MALFORMED lines */
    uint64_t oversized;    /* OVERSIZED lines */
    uint64_t urls;         /* URL records (line x agent) */
    uint64_t skipped;      /* SKIPPED records (line x agent) */
    uint64_t verdict[2];   /* URL records: [0] allowed, [1] disallowed */
    uint64_t reason[RS_REASON_COUNT]; /* URL records by rs_reason */
} rs_scan_summary;

/** Fills @out with the totals of the last block (what rs_scan_get would give, counted). */
RS_STATIC_API void rs_scan_summarize(const rs_scanner *sc, rs_scan_summary *out);

/** @return the detail of the last failure ("" if none). */
RS_STATIC_API const char *rs_scanner_errmsg(const rs_scanner *sc);

/** Counters of a scanner (rs_scanner_stats). */
typedef struct {
    uint64_t blocks, urls;    /* decided so far */
    uint64_t sites;           /* distinct raw origins known to the scanner */
    uint64_t site_misses;     /* origins parsed and looked up in the sites (first sight) */
    uint64_t groups;          /* (block, site) groups matched */
} rs_scan_stats;

RS_STATIC_API void rs_scanner_stats(const rs_scanner *sc, rs_scan_stats *out);

/* ===== Access logs (src/log) ===== */

/*
 * rs_logformat: a log layout compiled once from a named format or an nginx
 * log_format string; rs_logline_parse() splits one line into borrowed slices.
 * rs_botid: finds the crawler product token in a User-Agent string, from the
 * built-in known-crawler table plus the tokens a site's robots.txt names.
 */

typedef struct rs_logformat rs_logformat;

/* Fields a format provides (rs_logformat_fields()). */
#define RS_LOGF_CLIENT     0x001u  /* $remote_addr */
#define RS_LOGF_HOST       0x002u  /* $host, $server_name, $http_host; %v of vhost_combined */
#define RS_LOGF_PORT       0x004u  /* $server_port; %p of vhost_combined */
#define RS_LOGF_TIME       0x008u  /* $time_local, $time_iso8601 or $msec */
#define RS_LOGF_REQUEST    0x010u  /* $request, or $request_method / $request_uri */
#define RS_LOGF_STATUS     0x020u  /* $status */
#define RS_LOGF_BYTES      0x040u  /* $body_bytes_sent or $bytes_sent */
#define RS_LOGF_REFERER    0x080u  /* $http_referer */
#define RS_LOGF_USER_AGENT 0x100u  /* $http_user_agent */
#define RS_LOGF_USER       0x200u  /* $remote_user */

/**
 * Compiles a log format. @spec is either a name, `combined` (Apache/nginx
 * default), `common` or `vhost_combined` (`%v:%p` first), or an nginx
 * log_format string: literal text and `$name` / `${name}` variables. A
 * variable directly between two `"` is a quoted field (`\"` inside it does not
 * end it). Known variables are listed by the RS_LOGF_* flags plus
 * $request_method, $request_uri, $uri, $server_protocol; any other variable
 * is a field that is skipped. Two variables with no literal text between
 * them cannot be split and are refused. A spec starting with `'` is taken as
 * copied from nginx.conf: its single-quoted strings are concatenated (a final
 * `;` is allowed) and nginx's escapes (\' \" \\ \t \r \n) resolved.
 * @param err      OUT: optional (may be NULL), a one-line reason on failure.
 * @param out      OUT: the format, owned by the caller (rs_logformat_free);
 *                 @spec may be freed afterwards.
 * @return RS_OK, RS_ERR_USAGE for a bad spec, RS_ERR_NOMEM.
 */
RS_STATIC_API rs_status rs_logformat_create(const char *spec, size_t spec_len,
                                            char *err, size_t err_cap, rs_logformat **out);
RS_STATIC_API void rs_logformat_free(rs_logformat *fmt);
/** @return the RS_LOGF_* fields @fmt provides. */
RS_STATIC_API unsigned rs_logformat_fields(const rs_logformat *fmt);

/* Outcome of rs_logline_parse(). Anything but OK/EMPTY is a malformed line. */
typedef enum {
    RS_LOGLINE_OK = 0,
    RS_LOGLINE_EMPTY,        /* nothing but whitespace: not a record */
    RS_LOGLINE_BAD_LAYOUT,   /* literal text or a field missing (truncated line, wrong format) */
    RS_LOGLINE_BAD_TIME,     /* the timestamp does not parse */
    RS_LOGLINE_BAD_STATUS,   /* status is not `-` or 1..3 digits; bytes not `-` or digits */
    RS_LOGLINE_NOT_FIELD_END,/* a quoted field is not followed by what the format says */
    RS_LOGLINE_DIRECTIVE,    /* a W3C `#...` header line (rs_logparser): not a record */
    RS_LOGLINE_NO_FIELDS,    /* a W3C data line before any `#Fields:` line */
    RS_LOGLINE_BAD_JSON      /* not one well-formed JSON object */
} rs_logline_status;

/** @return a static name for a rs_logline_status ("ok", "bad-layout", ...). */
RS_STATIC_API const char *rs_logline_status_str(rs_logline_status st);

/* rs_logrec.flags */
#define RS_LOGREC_EXTRA_FIELDS 0x01u  /* text after the format's last field (ignored) */
#define RS_LOGREC_BAD_REQUEST  0x02u  /* the request line is not `METHOD SP TARGET [SP PROTOCOL]` */
#define RS_LOGREC_HAS_TIME     0x04u  /* epoch is valid */

/**
 * One parsed line. Every slice borrows from the line passed to
 * rs_logline_parse() and is valid as long as that buffer. Nothing is
 * unescaped: a quoted field keeps its `\"` and `\xNN` as written. A field
 * written as `-` (and a field the format lacks) is an empty slice; empty
 * slices still point into the line (never NULL unless the line is).
 */
typedef struct {
    rs_str   client;      /* $remote_addr: IPv4, IPv6 or host name */
    rs_str   user;        /* $remote_user */
    rs_str   host;        /* the virtual host ($host, %v) */
    rs_str   port;        /* $server_port, %p */
    rs_str   time;        /* the timestamp as written, without brackets */
    rs_str   request;     /* the whole request line ($request) */
    rs_str   method;      /* GET, POST, ... */
    rs_str   target;      /* request target as written (not decoded) */
    rs_str   protocol;    /* HTTP/1.1 ... (empty for HTTP/0.9 requests) */
    rs_str   referer;
    rs_str   user_agent;
    int64_t  epoch;       /* UTC seconds, zone offset applied; valid with RS_LOGREC_HAS_TIME */
    int64_t  bytes;       /* -1 when `-` or absent */
    int      status;      /* HTTP status; 0 when `-` or absent */
    uint32_t flags;       /* RS_LOGREC_* */
    size_t   error_offset;/* on failure: byte offset in the line where parsing stopped */
    rs_str   scheme;      /* http/https when the line says (rs_logparser formats), else empty */
} rs_logrec;

/**
 * Parses one line (without its line end; a trailing CR is ignored). Never
 * allocates; @fmt may be shared by many threads. Text after the format's
 * last field is accepted when it starts with a space or tab (extra trailing
 * fields) and flagged RS_LOGREC_EXTRA_FIELDS.
 * @param out OUT: filled on every outcome (slices empty on failure).
 * @return RS_LOGLINE_OK, RS_LOGLINE_EMPTY, or the reason the line is malformed.
 */
RS_STATIC_API rs_logline_status rs_logline_parse(const rs_logformat *fmt, const char *line, size_t len,
                                                 rs_logrec *out);

/**
 * Parses an access-log timestamp: `17/May/2015:10:05:03 +0000` ($time_local,
 * %t without brackets), `2015-05-17T10:05:03+00:00` ($time_iso8601, `Z`
 * allowed) or `1431857103.123` ($msec). One-second resolution.
 * @param epoch OUT: UTC seconds since 1970-01-01.
 * @return 1 on success, 0 if @s is not such a timestamp.
 */
RS_STATIC_API int rs_log_parse_time(const char *s, size_t len, int64_t *epoch);

/*
 * rs_logparser: every log format behind one call (src/log/logparse.c). It
 * wraps rs_logformat for line templates (named formats, nginx log_format and
 * Apache LogFormat strings, `alb`) and reads `w3c` (`#Fields:` header, which
 * may change mid-file), `cloudfront`, `json` (keys chosen by NAME=KEY
 * mappings, dotted paths into nested objects) and `cloudflare` (Logpush
 * JSON); `auto` settles on one of them from the first block of lines
 * (rs_logparser_detect). A parser has state (the W3C columns, a scratch
 * buffer for unescaped values): one per thread; for a stateful format
 * (rs_logparser_stateful) feed the lines of a file in order to one parser.
 * Slices of a record point into the line or into the parser's scratch,
 * valid until the next call.
 */
typedef struct rs_logparser rs_logparser;

/**
 * @param spec    format name, nginx log_format or Apache LogFormat string.
 * @param fields  `NAME=KEY` mappings for json (NAME: time, client, host, port,
 *                scheme, method, url, request, status, bytes, referer,
 *                user_agent; KEY a dotted path); may be NULL with n_fields 0.
 * @return RS_OK, RS_ERR_USAGE (message in @err), RS_ERR_NOMEM.
 */
RS_STATIC_API rs_status rs_logparser_create(const char *spec, size_t spec_len, const char *const *fields,
                                            size_t n_fields, char *err, size_t err_cap, rs_logparser **out);
RS_STATIC_API void rs_logparser_free(rs_logparser *p);
/** @return the RS_LOGF_* fields the format provides (all possible ones for w3c/json/auto). */
RS_STATIC_API unsigned rs_logparser_fields(const rs_logparser *p);
/** @return the format's name ("combined", "w3c", "json", "nginx", "apache"; "auto" until detected). */
RS_STATIC_API const char *rs_logparser_name(const rs_logparser *p);
/** @return 1 when lines must reach one parser in file order (w3c, cloudfront, auto). */
RS_STATIC_API int rs_logparser_stateful(const rs_logparser *p);
/** For `auto`: settles the format from these lines (no-op once settled). @return 1 if settled. */
RS_STATIC_API int rs_logparser_detect(rs_logparser *p, const char *text, size_t len);
RS_STATIC_API rs_logline_status rs_logparser_parse(rs_logparser *p, const char *line, size_t len, rs_logrec *out);
/**
 * The format that reads most of the lines in @text (`w3c`, `cloudfront`,
 * `cloudflare`, `json`, `alb`, `vhost_combined`, `combined`, `common`), or
 * NULL when none does.
 */
RS_STATIC_API const char *rs_log_detect(const char *text, size_t len);

/*
 * rs_ipranges: published crawler IP ranges (src/log/ipranges.c), each set
 * owned by a comma-separated list of crawler tokens. IPv4 and IPv6.
 */
typedef struct rs_ipranges rs_ipranges;
RS_STATIC_API rs_status rs_ipranges_create(rs_ipranges **out);
RS_STATIC_API void rs_ipranges_free(rs_ipranges *r);
/**
 * Adds the prefixes of @text: Google's JSON (`"ipv4Prefix"`/`"ipv6Prefix"`
 * values) or a plain list (one CIDR or address a line, `#` comments).
 * @return RS_OK, RS_ERR_CORRUPT (message in @err; nothing added), RS_ERR_NOMEM.
 */
RS_STATIC_API rs_status rs_ipranges_add(rs_ipranges *r, const char *tokens, const char *text, size_t len,
                                        char *err, size_t err_cap, size_t *n_prefixes);
/** @return 1 @ip is in a set of @token, 0 it is not (or is no IP), -1 no set names @token. */
RS_STATIC_API int rs_ipranges_check(const rs_ipranges *r, const char *token, size_t token_len, const char *ip,
                                    size_t ip_len);
/** @return 1 and the first token of the first set holding @ip, else 0. */
RS_STATIC_API int rs_ipranges_owner(const rs_ipranges *r, const char *ip, size_t ip_len, rs_str *token);

/* ----- Bot identification ----- */

typedef struct rs_botid rs_botid;

/* rs_bot.flags and rs_crawler_info.flags */
#define RS_BOT_BUILTIN      0x01u  /* the token is in the built-in known-crawler table */
#define RS_BOT_NAMED        0x02u  /* a robots.txt group names the token (a candidate) */
#define RS_BOT_IGNORES_STAR 0x04u  /* documented to ignore `User-agent: *` groups */
#define RS_BOT_GROUP_NAMED  0x08u  /* rs_bot only: a group names the bot or a family ancestor
                                      (rs_bot_group_agent); without it the `*` groups apply,
                                      or nothing at all with RS_BOT_IGNORES_STAR */

typedef struct {
    rs_str   token;       /* the product token as written in the table or robots.txt;
                             valid as long as the rs_botid */
    uint32_t id;          /* 0..rs_botid_count()-1, dense: index per-bot counters with it */
    uint32_t flags;       /* RS_BOT_* */
} rs_bot;

/**
 * Builds a bot identifier from the built-in table (src/log/crawlers_table.c,
 * generated from data/crawlers.tsv) and the product tokens that one site's
 * robots.txt groups name (as rs_agent_token() gives them). A candidate equal
 * (ASCII case-insensitively) to a built-in token marks that row RS_BOT_NAMED
 * and the table's spelling is reported; others are added as written.
 * Candidates shorter than 2 bytes, containing `*`, or generic words of
 * browser user agents (rs_bot_token_is_generic) are left out.
 * @param candidates may be NULL when @n is 0; copied, may be freed afterwards.
 * @param out OUT: owned by the caller (rs_botid_free); read-only afterwards,
 *            shareable across threads.
 * @return RS_OK or RS_ERR_NOMEM.
 */
RS_STATIC_API rs_status rs_botid_create(const rs_str *candidates, size_t n, rs_botid **out);
RS_STATIC_API void rs_botid_free(rs_botid *b);
/** @return the number of distinct tokens (bot ids) in @b. */
RS_STATIC_API size_t rs_botid_count(const rs_botid *b);

/**
 * Finds the crawler in a User-Agent string. A token matches ASCII
 * case-insensitively where it starts a word (preceded by the start or by a
 * byte other than [A-Za-z0-9_./-]) and ends one (followed by the end or a
 * byte other than [A-Za-z0-9_-]); the longest matching token wins, the
 * earliest on ties. Only if none matches, a token followed by `-` or `_`
 * (`msnbot-foo/1.0`) is taken. Never allocates.
 * @param bot OUT: the crawler; untouched when the result is 0.
 * @return 1 for a bot, 0 for "not a bot" (browsers and unknown clients).
 */
RS_STATIC_API int rs_bot_identify(const rs_botid *b, const char *ua, size_t ua_len, rs_bot *bot);

/**
 * The token whose robots.txt group a crawler follows (crawler families): the
 * bot's own token if a group names it, else the nearest ancestor in the
 * built-in family table that a group names (`Googlebot-Image` follows
 * `Googlebot`; `YandexImages` follows `Yandex`), else the bot's own token
 * (then the `*` groups apply, unless the bot has RS_BOT_IGNORES_STAR).
 * @return a slice valid as long as @b.
 */
RS_STATIC_API rs_str rs_bot_group_agent(const rs_botid *b, const rs_bot *bot);

/**
 * @return 1 if @token (compared whole, ASCII case-insensitively) is a word
 * found in browser user agents (`Mozilla`, `Chrome`, `compatible`, `bot`,
 * ...) and so never identifies a crawler.
 */
RS_STATIC_API int rs_bot_token_is_generic(const char *token, size_t len);

/** One row of the built-in known-crawler table. */
typedef struct {
    const char *token;    /* NUL-terminated product token */
    const char *parent;   /* token whose group applies when none names this one, or NULL */
    uint32_t    flags;    /* RS_BOT_IGNORES_STAR or 0 */
} rs_crawler_info;

/** The built-in table (static storage). @param n OUT: its number of rows. */
RS_STATIC_API const rs_crawler_info *rs_crawler_table(size_t *n);

/* ----- Auditing log hits (src/log/audit.c) -----
 *
 * The per-hit decision of `robotscan logs` and `diff --logs`: a parsed line
 * -> the origin of its site -> the crawler its User-Agent names (or, with
 * ranges and no user agent, its client IP), verified against the ranges ->
 * the URL and path -> the verdict of the group the crawler follows, the
 * deciding rule and the crawl-delay that binds the hit. Counting, filtering
 * by agent, the crawl-delay pass over all hits and output stay with the
 * caller. One auditor per thread; many share one rs_sites. Exact memos
 * (origin, identifier per ruleset, user agents, lookups per group agent,
 * crawl-delays) make repeated sites and agents cheap.
 */
typedef struct rs_log_auditor rs_log_auditor;

typedef struct {
    rs_sites          *sites;
    const char        *host;        /* the site of lines that name none (--host); NULL: none */
    const char        *scheme;      /* "http"/"https" for such lines; NULL: "https" */
    const rs_ipranges *ranges;      /* published ranges (--verify); NULL: hits are unverified */
    int                line_scheme; /* 1: the line's own scheme field (rs_logrec.scheme) decides */
} rs_log_audit_config;

/* rs_log_hit.kind */
enum { RS_LOGHIT_NO_SITE = 0, RS_LOGHIT_NOT_BOT, RS_LOGHIT_BOT };
/* rs_log_hit.verified */
enum { RS_VERIFIED_UNKNOWN = 0, RS_VERIFIED_YES, RS_VERIFIED_NO };

/** One hit. Slices and pointers are valid until the auditor's next call. */
typedef struct {
    int              kind;          /* RS_LOGHIT_*: the rest is set for RS_LOGHIT_BOT */
    rs_bot           bot;           /* the crawler (token, flags) */
    int              verified;      /* RS_VERIFIED_*: against cfg.ranges */
    int              by_ip;         /* no user agent: named by the client IP's range */
    const rs_origin *origin;        /* the line's site (also for RS_LOGHIT_NOT_BOT) */
    /* rs_log_audit_url, rs_log_audit_decide: */
    rs_str           url;           /* origin + target, or the absolute target */
    rs_str           path;          /* as rs_url_path gives it */
    rs_str           group;         /* the group agent the crawler follows */
    int              bound;         /* 0: it ignores `*` and no group names it: no rules apply */
    int              robots_fetch;  /* a fetch of /robots.txt: never disallowed */
    /* rs_log_audit_decide: */
    rs_site_result   site;          /* the lookup for group (when bound) */
    rs_verdict       verdict;       /* {0, 0, -1} when no rule decided */
    const rs_matcher *matcher;      /* the matcher used, NULL when none */
    const char      *reason;        /* "robots-txt", "no-match" or rs_reason_str() */
    rs_str           rule;          /* "allow: PATTERN"/"disallow: PATTERN" of verdict.rule, or "" */
    double           delay;         /* crawl-delay (seconds) of the group; 0: none or not bound */
} rs_log_hit;

RS_STATIC_API rs_status rs_log_auditor_create(const rs_log_audit_config *cfg, rs_log_auditor **out);
RS_STATIC_API void rs_log_auditor_free(rs_log_auditor *a);
/**
 * The site and the bot of @rec: hit->kind RS_LOGHIT_NO_SITE (no valid origin:
 * a malformed line for the caller), RS_LOGHIT_NOT_BOT, or RS_LOGHIT_BOT.
 * @return RS_OK; an error of rs_site_lookup (message: rs_sites_errmsg) or RS_ERR_NOMEM.
 */
RS_STATIC_API rs_status rs_log_audit_bot(rs_log_auditor *a, const rs_logrec *rec, rs_log_hit *hit);
/** For a RS_LOGHIT_BOT hit: its URL, path, group agent, bound and robots_fetch. */
RS_STATIC_API rs_status rs_log_audit_url(rs_log_auditor *a, const rs_logrec *rec, rs_log_hit *hit);
/**
 * For a RS_LOGHIT_BOT hit: rs_log_audit_url, then the verdict of the path
 * under the line's site for the group agent (rs_site_lookup, the sites'
 * semantics), the deciding rule, the reason and the crawl-delay.
 */
RS_STATIC_API rs_status rs_log_audit_decide(rs_log_auditor *a, const rs_logrec *rec, rs_log_hit *hit);


/* ===== Reports and writers (src/report) =====
 *
 * Record formatting shared by every command. Formatting appends to a caller
 * buffer so worker threads can render rows and a writer can emit them in
 * input order.
 */

/** Records as fields for rs_job_set_records (never a user's choice): see format.c. */
#define RS_FORMAT_FIELDS ((rs_format)16)

/** Parses "text", "tsv", "csv", "jsonl". @return 0 on success, -1 for an unknown name. */
RS_STATIC_API int rs_format_parse(const char *name, rs_format *out);

/** One field of a record: a string, or a number when is_number is set. */
typedef struct {
    rs_str   str;
    uint64_t number;
    int      is_number;
} rs_field;

/** An append-only output buffer (grows with rs_realloc; free with rs_outbuf_free). */
typedef struct {
    char  *ptr;
    size_t len;
    size_t cap;
} rs_outbuf;

RS_STATIC_API void rs_outbuf_free(rs_outbuf *b);

/**
 * Appends a header row (TSV: names joined by tabs; CSV: quoted as needed;
 * JSONL and TEXT: nothing).
 */
RS_STATIC_API rs_status rs_format_header(rs_outbuf *out, rs_format fmt, const char *const *names, size_t n);

/**
 * Appends one record. TSV escapes backslash, tab, CR and LF as \\ \t \r \n;
 * CSV follows RFC 4180; JSONL writes {"name":value,...} with strings escaped
 * (bytes that are not valid UTF-8 become \u00XX). TEXT joins fields with two
 * spaces (commands usually render text themselves).
 */
RS_STATIC_API rs_status rs_format_record(rs_outbuf *out, rs_format fmt, const char *const *names,
                                         const rs_field *fields, size_t n);

/**
 * Puts the input_line column (@line) first in the record that starts at @start
 * of @out (the last one appended), as rs_format_record would have written it.
 */
RS_STATIC_API rs_status rs_format_input_line(rs_outbuf *out, size_t start, rs_format fmt, uint64_t line);

/** Appends raw bytes. */
RS_STATIC_API rs_status rs_outbuf_append(rs_outbuf *out, const void *src, size_t size);

/** Makes room for @extra more bytes past out->len. @return RS_OK or RS_ERR_NOMEM. */
RS_STATIC_API rs_status rs_outbuf_reserve(rs_outbuf *out, size_t extra);

/** The most bytes rs_format_value writes for a string of @n bytes, in any format. */
#define RS_FORMAT_VALUE_BOUND(n) (6 * (size_t)(n) + 2)

/**
 * Writes @src as rs_format_record writes a string field of format @fmt, at
 * @dst (TSV escaped, CSV quoted when needed, JSONL a JSON string with its
 * quotes, TEXT as is): the piece that varies when a caller renders the rest of
 * a record once and reuses it.
 * @param dst_cap at least RS_FORMAT_VALUE_BOUND(src_size).
 * @return the bytes written.
 */
RS_STATIC_API size_t rs_format_value(char *dst, size_t dst_cap, rs_format fmt, const char *src, size_t src_size);

/** Writes @v in decimal at @dst (room for 20 bytes), as rs_format_record writes a
 * number field. @return the bytes written. */
RS_STATIC_API size_t rs_format_uint(char *dst, uint64_t v);

/** Appends @s as a JSON string (quotes included; invalid UTF-8 bytes as \\u00XX). */
RS_STATIC_API rs_status rs_outbuf_json_string(rs_outbuf *out, const char *s, size_t len);

/*
 * Tallies: string keys -> a fixed number of uint64 counters each, hashed
 * with XXH3. Per-thread tallies are merged at the end (and, later, across
 * shards), so statistics never need locks on the hot path. Entry indexes
 * are stable: callers may cache one to skip the hash on repeated keys.
 */
typedef struct rs_tally rs_tally;

/** @param counters counters per key (1..64). @param out OUT: free with rs_tally_free. */
RS_STATIC_API rs_status rs_tally_create(unsigned counters, rs_tally **out);
RS_STATIC_API void rs_tally_free(rs_tally *t);

/**
 * Finds or inserts @key. @param index OUT: the entry's stable index.
 * @return RS_OK or RS_ERR_NOMEM.
 */
RS_STATIC_API rs_status rs_tally_find(rs_tally *t, const char *key, size_t len, uint32_t *index);

/** The counters of entry @index (valid until the next insertion). */
RS_STATIC_API uint64_t *rs_tally_counters(rs_tally *t, uint32_t index);
RS_STATIC_API const uint64_t *rs_tally_counters_const(const rs_tally *t, uint32_t index);

/** @return the number of keys. */
RS_STATIC_API uint32_t rs_tally_size(const rs_tally *t);

/** The key of entry @index. */
RS_STATIC_API rs_str rs_tally_key(const rs_tally *t, uint32_t index);

/**
 * Appends @t as a JSON list of objects (src/report/stats_json.c), the form
 * every bulk command's --stats uses for keyed tallies (docs/scale-out.md):
 * one object per key, the key split at tabs into fields @key_names (a name
 * starting with '#' is written as a number, without the '#'), then the
 * counters named @counter_names (the first @n_counters counters). Order:
 * sum of those counters descending, then key bytes. Keys with fewer fields
 * than @n_keys are skipped.
 */
RS_STATIC_API rs_status rs_tally_json_list(rs_outbuf *out, const rs_tally *t, const char *const *key_names,
                                           size_t n_keys, const char *const *counter_names, size_t n_counters);

/** Adds every counter of @src into @dst (same counter count). */
RS_STATIC_API rs_status rs_tally_merge(rs_tally *dst, const rs_tally *src);

/*
 * Mergeable --stats documents (src/report/stats_json.c, docs/scale-out.md):
 * the one writer of every bulk command's statistics. Only values that
 * `robotscan merge --stats` combines exactly can be written, and each under a
 * name whose merge rule (rs_stats_rule_of) fits: counts (summed), labels
 * (equal everywhere, or the identity of a list element), minima/maxima,
 * timings, rates, and tallies as keyed lists. A misfit sets RS_ERR_USAGE,
 * returned by rs_stats_finish; after any error the writer writes nothing.
 */
typedef enum {
    RS_STATS_SUM,   /* counts: summed (strings: must be equal, or identify a list element) */
    RS_STATS_MIN,   /* first_*, *_min */
    RS_STATS_MAX,   /* last_*, *_max */
    RS_STATS_TIME,  /* seconds, *_seconds: the maximum (parts run side by side) */
    RS_STATS_RATE,  /* *_per_second: recomputed from a count and seconds */
    RS_STATS_SAME   /* command, schema_version, agent, ...: equal in every part */
} rs_stats_rule;

/** The merge rule of a --stats value named @name (docs/scale-out.md). */
RS_STATIC_API rs_stats_rule rs_stats_rule_of(const char *name);

typedef struct {
    rs_outbuf *out;
    rs_status  status;
    unsigned   depth;
    uint64_t   written;  /* bit d: the object or list at depth d has a value already */
    uint64_t   in_list;  /* bit d: depth d is a list */
} rs_stats_writer;

/** Keyed-list options: @by_key orders by key bytes (else total descending, then key);
 *  @prefix keeps only keys whose first field is @prefix (not written); @limit: 0 = all. */
typedef struct {
    int    by_key;
    rs_str prefix;
    size_t limit;
} rs_stats_tally_opts;

/** Starts a document on @out: `{"command":@command,"schema_version":@schema_version`. */
RS_STATIC_API void rs_stats_begin(rs_stats_writer *w, rs_outbuf *out, const char *command, unsigned schema_version);
/* In an object, @name names the value; in a list, @name is NULL. */
RS_STATIC_API void rs_stats_count(rs_stats_writer *w, const char *name, uint64_t v);
RS_STATIC_API void rs_stats_label(rs_stats_writer *w, const char *name, const char *s, size_t len);
/** A list of strings (merged: concatenated, each once). */
RS_STATIC_API void rs_stats_labels(rs_stats_writer *w, const char *name, const char *const *v, size_t n);
/** A minimum or maximum (@name first_*, last_*, *_min, *_max): a string (ISO 8601) or NULL (none). */
RS_STATIC_API void rs_stats_bound(rs_stats_writer *w, const char *name, const char *value);
RS_STATIC_API void rs_stats_seconds(rs_stats_writer *w, const char *name, double seconds);
RS_STATIC_API void rs_stats_rate(rs_stats_writer *w, const char *name, double per_second);
/** Opens an object or a list (closed by rs_stats_end). */
RS_STATIC_API void rs_stats_object(rs_stats_writer *w, const char *name);
/** An object named by a slice (a map keyed by data, e.g. survey's agents). */
RS_STATIC_API void rs_stats_object_n(rs_stats_writer *w, const char *name, size_t len);
RS_STATIC_API void rs_stats_list(rs_stats_writer *w, const char *name);
RS_STATIC_API void rs_stats_end(rs_stats_writer *w);
/** @t as a keyed list, as rs_tally_json_list (counter names must be summed names). @opts may be NULL. */
RS_STATIC_API void rs_stats_tally(rs_stats_writer *w, const char *name, const rs_tally *t,
                                  const char *const *key_names, size_t n_keys, const char *const *counter_names,
                                  size_t n_counters, const rs_stats_tally_opts *opts);
/** Closes the document (`}` and a newline). @return RS_OK or the first error. */
RS_STATIC_API rs_status rs_stats_finish(rs_stats_writer *w);

/*
 * HTML report (src/report/html.c): --stats JSON documents of the bulk
 * commands -> one self-contained HTML page (no scripts, no external fetches;
 * charts are inline SVG, each with a table of the same numbers beside it).
 * The kind of page follows each document's "command" field: logs, urls,
 * survey, diff, sitemaps. A document may carry "schema_version" (absent = 1, the
 * first shape; logs stats are 2 since they count verified and spoofed hits
 * and per-day histograms); versions above RS_REPORT_SCHEMA_MAX are refused.
 */
#define RS_REPORT_SCHEMA_MAX 2

/** One statistics document: @name is shown in the page and in errors. @sites
 * and @robots (optional, NULL: unknown) say what was audited when the caller
 * knows it (`logs --host`, `--robots`): the page's title and header show them;
 * without them the sites are taken from the origins the statistics name. */
typedef struct {
    const char *name;
    const char *json;
    size_t      json_len;
    const char *sites;      /* the site(s) audited, as text; NULL: from the statistics */
    const char *robots;     /* the robots.txt source(s) used, as text; NULL: not known */
} rs_report_input;

/**
 * Appends the page for @n documents to @out (one section each, in order).
 * @param title the page's <title> and heading; NULL for a default.
 * @param err OUT: on RS_ERR_CORRUPT, "NAME: what is wrong" (NUL-terminated).
 * @return RS_OK; RS_ERR_CORRUPT (not JSON, truncated, unknown command or
 *         schema version, a field of the wrong type); RS_ERR_USAGE (n == 0);
 *         RS_ERR_NOMEM. On failure @out may hold a partial page.
 */
RS_STATIC_API rs_status rs_report_html(const rs_report_input *in, size_t n, const char *title,
                                       rs_outbuf *out, char *err, size_t err_cap);


#ifdef __cplusplus
}
#endif
/* ===== Shard and merge (internal) =====
 *
 * `robotscan shard` and `robotscan merge` (SPEC 12, docs/scale-out.md) as
 * library calls (src/shard, src/log/site_origin.c). They print nothing: an error
 * is a returned status with a message in the caller's @err buffer
 * (NUL-terminated, cut to @err_cap), warnings go to a callback.
 */
#ifdef __cplusplus
extern "C" {
#endif

/**
 * The origin key of an access-log line's site, "SCHEME://HOST[:PORT]" (not
 * yet canonical: rs_origin_parse it): the one rule of rs_log_auditor and
 * rs_shard_split. SCHEME is @line_scheme when it is http or https (any case),
 * else https for port 443 and http for another port, else @default_scheme
 * (NULL: "https"). @host is the line's host, or the configured one (--host)
 * when the line names none.
 * @return the key's length (written to @key, NUL-terminated), or 0 when it
 *         does not fit @cap (the line has no site).
 */
RS_STATIC_API size_t rs_log_origin_key(const char *default_scheme, rs_str line_scheme, rs_str host, rs_str port,
                                       char *key, size_t cap);
/**
 * rs_log_origin_key, then rs_origin_parse into @buf (@buf_cap >= RS_ORIGIN_MAX).
 * @return 1 and *out when the line names a valid site, else 0.
 */
RS_STATIC_API int rs_log_origin(const char *default_scheme, rs_str line_scheme, rs_str host, rs_str port,
                                char *buf, size_t buf_cap, rs_origin *out);

#define RS_SHARD_MAX 4096

/** What rs_shard_split splits, and how. Pointers are borrowed for the call. */
typedef struct {
    uint32_t           n;            /* shards, 1..RS_SHARD_MAX */
    const char        *dir;          /* output directory: created, or an existing empty one */
    int                logs;         /* 1: the inputs are access logs; 0: URL lists */
    const char        *log_format;   /* logs: rs_logparser_create's spec; NULL: "combined" */
    const char *const *fields;       /* logs: NAME=KEY (json formats) */
    size_t             n_fields;
    const char        *host;         /* logs: the site of lines that name none; NULL: none */
    const char        *scheme;       /* logs: "http"/"https" for such lines; NULL: "https" */
    const char *const *robots;       /* robots sources to split per shard (directory, *.tsv
                                      * manifest, WARC; another file is given to every shard) */
    size_t             n_robots;
    void             (*warn)(void *ctx, const char *msg); /* warnings (a WARC not split); may be NULL */
    void              *warn_ctx;
} rs_shard_config;

/**
 * Splits @inputs (paths, "-" for stdin; none: stdin) into cfg->n shards by
 * the site of each line (rs_shard_of_url / rs_log_origin_key), writing
 * DIR/shard-K.zst (the lines), DIR/shard-K.pos (each line's 1-based input
 * position, little-endian uint64; 0 for a #Fields: line copied in), with
 * robots sources DIR/shard-K.robots and DIR/robots-K/, and DIR/shards.tsv.
 * @param err OUT: the message of a failure.
 * @return RS_OK; RS_ERR_USAGE (a bad config: n, log format, no host for a
 *         format without one, DIR not empty, a big-endian machine);
 *         RS_ERR_IO (an input or output cannot be opened, read or written);
 *         RS_ERR_CORRUPT (a damaged compressed input); RS_ERR_NOMEM.
 */
RS_STATIC_API rs_status rs_shard_split(const rs_shard_config *cfg, const char *const *inputs, size_t n_inputs,
                                       char *err, size_t err_cap);

/**
 * `merge --records`: the outputs @outs[K] of `urls`/`logs --input-line` on
 * shard K of @dir (rs_shard_split), in format @fmt (tsv, csv, jsonl), written
 * to @out in input order without their input_line column.
 * @return RS_OK; RS_ERR_USAGE (n is not the shard count, a bad format);
 *         RS_ERR_CORRUPT (no input_line column, records out of order, a line
 *         number outside its shard); RS_ERR_IO; RS_ERR_NOMEM.
 */
RS_STATIC_API rs_status rs_merge_records(const char *dir, rs_format fmt, const char *const *outs, size_t n,
                                         FILE *out, char *err, size_t err_cap);

/**
 * `merge --stats`: merges the --stats JSON @files of runs over disjoint parts
 * of an input into one document (one line on @out): sums, minima, maxima and
 * keyed lists (docs/scale-out.md). With @dir (NULL: none), the statistics of
 * every shard of @dir: the #Fields: lines shard copied are taken off.
 * @return RS_OK; RS_ERR_CORRUPT (not JSON, not mergeable, mismatched labels);
 *         RS_ERR_USAGE (n is not @dir's shard count); RS_ERR_IO; RS_ERR_NOMEM.
 */
RS_STATIC_API rs_status rs_merge_stats(const char *const *files, size_t n, const char *dir, FILE *out,
                                       char *err, size_t err_cap);

/* ===== Matcher arena (internal) =====
 *
 * `robotscan bench` (SPEC 13, docs/bench.md): standard workloads generated
 * from the bundled test data with the reference verdict of every query,
 * matchers of any language run as child processes over a line protocol
 * (`robots<TAB>PATH` loads, `AGENT<TAB>URL` asks, one `allow`/`disallow`
 * line answers), every answer checked, disagreements grouped by cause, and
 * the leaderboard as text, JSON or a self-contained HTML page
 * (src/bench/). Errors sit on the handle (rs_bench_errmsg).
 */
typedef struct rs_bench rs_bench;

typedef struct {
    const char *data_dir;  /* the bundled data (robots/ and ../conformance/); NULL: looked up */
    uint64_t seed;         /* workload generation seed (0: 1) */
    uint64_t queries;      /* queries per generated workload (0: each workload's default) */
    double   timeout;      /* seconds a peer may take for one answer (0: 10) */
    double   seconds;      /* time budget of one peer on one workload (0: none); the rest is not asked */
} rs_bench_config;

/** Progress and notes (a peer started, a peer failed), one line each. */
typedef void (*rs_bench_note_fn)(void *user, const char *line);

RS_STATIC_API rs_status rs_bench_create(const rs_bench_config *cfg, rs_bench **out);
RS_STATIC_API void rs_bench_free(rs_bench *b);
/** The last error's message (names the file, peer or workload). */
RS_STATIC_API const char *rs_bench_errmsg(const rs_bench *b);
RS_STATIC_API void rs_bench_set_note(rs_bench *b, rs_bench_note_fn fn, void *user);

/** The names of the generated workloads (real, hard, many-sites, big-file), NULL-terminated. */
RS_STATIC_API const char *const *rs_bench_workload_names(void);

/**
 * Adds a workload: a generated one by @name, or a saved one when @name is a
 * directory written by --save. With @save_dir the workload's files are
 * written there (DIR/NAME for each workload; a plain folder anyone can run),
 * otherwise in a temporary folder removed by rs_bench_free.
 * @return RS_OK; RS_ERR_USAGE (unknown name, no bundled data); RS_ERR_IO
 *         (cannot write @save_dir, a bad saved workload); RS_ERR_NOMEM.
 */
RS_STATIC_API rs_status rs_bench_add_workload(rs_bench *b, const char *name, const char *save_dir);

/**
 * Adds a peer: @command is run by /bin/sh. Its first word must name an
 * executable (a path, or a name found on PATH): RS_ERR_USAGE otherwise.
 */
RS_STATIC_API rs_status rs_bench_add_peer(rs_bench *b, const char *name, const char *command);

/**
 * Adds robotscan in-process and the adapters of scripts/peers that can run
 * here; @self is this program's path (for `robotscan bench --serve`).
 * @param missing OUT: "name (package), ..." of those that cannot run ("" when none).
 */
RS_STATIC_API rs_status rs_bench_add_builtin_peers(rs_bench *b, const char *self, char *missing,
                                                   size_t missing_cap);

/** Adds robotscan itself, in-process (no child process). */
RS_STATIC_API rs_status rs_bench_add_inprocess(rs_bench *b);

/** Runs every peer on every workload. A peer that fails is reported, not an error. */
RS_STATIC_API rs_status rs_bench_run(rs_bench *b);

/** The leaderboard: text (a table per workload), JSON (one document), or an HTML page. */
RS_STATIC_API rs_status rs_bench_text(const rs_bench *b, rs_outbuf *out);
RS_STATIC_API rs_status rs_bench_json(const rs_bench *b, rs_outbuf *out);
RS_STATIC_API rs_status rs_bench_html(const rs_bench *b, rs_outbuf *out);

/** 1 when some peer failed (crashed, hung, answered garbage) on some workload. */
RS_STATIC_API int rs_bench_any_failed(const rs_bench *b);

/**
 * `robotscan bench --serve`: robotscan as a peer of the protocol, reading
 * @in_fd and answering on @out_fd until end of input.
 * @return RS_OK, RS_ERR_IO (with a message in @err).
 */
RS_STATIC_API rs_status rs_bench_serve(int in_fd, int out_fd, char *err, size_t err_cap);

/* ----- Documents by digest (survey) ----- */

/**
 * Writes what a consumer needs of a 2xx robots.txt body (its "digest",
 * e.g. survey's answers for its agents) to @out. @return RS_OK, or a
 * status that stops rs_sites_each_digest (RS_ERR_NOMEM).
 */
typedef rs_status (*rs_site_digest_fn)(void *ctx, const char *body, size_t body_len, rs_outbuf *out);

/** As rs_site_doc_cb; @digest (valid during the call) is NULL when @doc carries its body instead. */
typedef int (*rs_site_digest_cb)(void *ctx, const rs_site_doc *doc, const void *digest, size_t digest_len);

/**
 * rs_sites_each for a consumer that needs a digest of each body, not the
 * body: while a WARC source is indexed in streaming mode (opts.stream),
 * @digest runs on the decoded body of each /robots.txt 2xx capture that is
 * the latest of its URI so far, and the bytes it writes are kept with the
 * capture (a few bytes each, not the body), so the capture is not decoded a
 * second time when its document is handed out. Documents without a digest
 * (other sources, a redirect to a capture of another path) are handed out
 * with their body and @digest NULL. Same order, skips and errors as
 * rs_sites_each.
 */
RS_STATIC_API rs_status rs_sites_each_digest(rs_sites *s, rs_site_digest_fn digest, rs_site_digest_cb cb,
                                             void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* RS_STATIC_LINKING_ONLY */
