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
RS_API rs_status rs_logformat_create(const char *spec, size_t spec_len,
                                     char *err, size_t err_cap, rs_logformat **out);
RS_API void rs_logformat_free(rs_logformat *fmt);
/** @return the RS_LOGF_* fields @fmt provides. */
RS_API unsigned rs_logformat_fields(const rs_logformat *fmt);

/* Outcome of rs_logline_parse(). Anything but OK/EMPTY is a malformed line. */
typedef enum {
    RS_LOGLINE_OK = 0,
    RS_LOGLINE_EMPTY,        /* nothing but whitespace: not a record */
    RS_LOGLINE_BAD_LAYOUT,   /* literal text or a field missing (truncated line, wrong format) */
    RS_LOGLINE_BAD_TIME,     /* the timestamp does not parse */
    RS_LOGLINE_BAD_STATUS,   /* status is not `-` or 1..3 digits; bytes not `-` or digits */
    RS_LOGLINE_NOT_FIELD_END /* a quoted field is not followed by what the format says */
} rs_logline_status;

/** @return a static name for a rs_logline_status ("ok", "bad-layout", ...). */
RS_API const char *rs_logline_status_str(rs_logline_status st);

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
} rs_logrec;

/**
 * Parses one line (without its line end; a trailing CR is ignored). Never
 * allocates; @fmt may be shared by many threads. Text after the format's
 * last field is accepted when it starts with a space or tab (extra trailing
 * fields) and flagged RS_LOGREC_EXTRA_FIELDS.
 * @param out OUT: filled on every outcome (slices empty on failure).
 * @return RS_LOGLINE_OK, RS_LOGLINE_EMPTY, or the reason the line is malformed.
 */
RS_API rs_logline_status rs_logline_parse(const rs_logformat *fmt, const char *line, size_t len,
                                          rs_logrec *out);

/**
 * Parses an access-log timestamp: `17/May/2015:10:05:03 +0000` ($time_local,
 * %t without brackets), `2015-05-17T10:05:03+00:00` ($time_iso8601, `Z`
 * allowed) or `1431857103.123` ($msec). One-second resolution.
 * @param epoch OUT: UTC seconds since 1970-01-01.
 * @return 1 on success, 0 if @s is not such a timestamp.
 */
RS_API int rs_log_parse_time(const char *s, size_t len, int64_t *epoch);

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
RS_API rs_status rs_botid_create(const rs_str *candidates, size_t n, rs_botid **out);
RS_API void rs_botid_free(rs_botid *b);
/** @return the number of distinct tokens (bot ids) in @b. */
RS_API size_t rs_botid_count(const rs_botid *b);

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
RS_API int rs_bot_identify(const rs_botid *b, const char *ua, size_t ua_len, rs_bot *bot);

/**
 * The token whose robots.txt group a crawler follows (crawler families): the
 * bot's own token if a group names it, else the nearest ancestor in the
 * built-in family table that a group names (`Googlebot-Image` follows
 * `Googlebot`; `YandexImages` follows `Yandex`), else the bot's own token
 * (then the `*` groups apply, unless the bot has RS_BOT_IGNORES_STAR).
 * @return a slice valid as long as @b.
 */
RS_API rs_str rs_bot_group_agent(const rs_botid *b, const rs_bot *bot);

/**
 * @return 1 if @token (compared whole, ASCII case-insensitively) is a word
 * found in browser user agents (`Mozilla`, `Chrome`, `compatible`, `bot`,
 * ...) and so never identifies a crawler.
 */
RS_API int rs_bot_token_is_generic(const char *token, size_t len);

/** One row of the built-in known-crawler table. */
typedef struct {
    const char *token;    /* NUL-terminated product token */
    const char *parent;   /* token whose group applies when none names this one, or NULL */
    uint32_t    flags;    /* RS_BOT_IGNORES_STAR or 0 */
} rs_crawler_info;

/** The built-in table (static storage). @param n OUT: its number of rows. */
RS_API const rs_crawler_info *rs_crawler_table(size_t *n);


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


#ifdef __cplusplus
}
#endif
#endif /* ROBOTSCAN_H */
