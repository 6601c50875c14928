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
 */
#ifndef ROBOTSCAN_H
#define ROBOTSCAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

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
    RS_ERR_EOF        /* no more records (not a failure) */
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
 * @return RS_OK, or RS_ERR_NOMEM.
 */
RS_API rs_status rs_robots_parse(const void *body, size_t size,
                                 rs_robots_callback cb, void *ctx,
                                 rs_robots_info *info);

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

/**
 * Percent-encodes bytes >= 0x80 and upper-cases %xx escapes of a path, as
 * patterns are (--encode-urls). Same contract as rs_canonicalize.
 */
#define rs_url_encode_path rs_canonicalize

/* ===== Input: readers and line splitting (src/input, src/simd) ===== */


/* ===== Origins and robots sources (src/sites) ===== */


/* ===== Access logs (src/log) ===== */


/* ===== Reports and writers (src/report) =====
 *
 * Record formatting shared by every command. Formatting appends to a caller
 * buffer so worker threads can render rows and a writer can emit them in
 * input order.
 */

typedef enum { RS_FORMAT_TEXT = 0, RS_FORMAT_TSV, RS_FORMAT_CSV, RS_FORMAT_JSONL } rs_format;

/** Parses "text", "tsv", "csv", "jsonl". @return 0 on success, -1 for an unknown name. */
RS_API int rs_format_parse(const char *name, rs_format *out);

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

RS_API void rs_outbuf_free(rs_outbuf *b);

/**
 * Appends a header row (TSV: names joined by tabs; CSV: quoted as needed;
 * JSONL and TEXT: nothing).
 */
RS_API rs_status rs_format_header(rs_outbuf *out, rs_format fmt, const char *const *names, size_t n);

/**
 * Appends one record. TSV escapes backslash, tab, CR and LF as \\ \t \r \n;
 * CSV follows RFC 4180; JSONL writes {"name":value,...} with strings escaped
 * (bytes that are not valid UTF-8 become \u00XX). TEXT joins fields with two
 * spaces (commands usually render text themselves).
 */
RS_API rs_status rs_format_record(rs_outbuf *out, rs_format fmt, const char *const *names,
                                  const rs_field *fields, size_t n);

/** Appends raw bytes. */
RS_API rs_status rs_outbuf_append(rs_outbuf *out, const void *src, size_t size);


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
 */
RS_API rs_status rs_lint_agent(const void *body, size_t size, const char *agent, size_t agent_len,
                               rs_lint_agent_view **out);
RS_API void rs_lint_agent_free(rs_lint_agent_view *view);



#ifdef __cplusplus
}
#endif
#endif /* ROBOTSCAN_H */
