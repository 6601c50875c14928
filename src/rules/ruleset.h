/*
 * ruleset.h - the parsed, agent-independent form of one robots.txt.
 *
 * Groups follow SPEC 2.2.9: a user-agent line opens a new group when an
 * allow/disallow line has been seen since the previous user-agent line.
 * Rules before the first user-agent line belong to no group and are dropped.
 * All strings live in one text arena; records refer to it by offset.
 */
#ifndef RS_RULES_RULESET_H
#define RS_RULES_RULESET_H

#include "common/common.h"

typedef struct {
    uint32_t off, len;
} rs_span;

typedef struct {
    uint32_t group;
    uint32_t line;
    uint8_t  global;   /* `*` value */
    rs_span  token;    /* product token (may be empty: names nobody) */
} rs_ua_record;

typedef struct {
    uint32_t group;
    uint32_t line;
    rs_rule_type type;
    rs_span  pattern;  /* canonical */
} rs_rule_record;

typedef struct {
    uint32_t group;    /* UINT32_MAX before the first user-agent line */
    uint32_t line;
    rs_span  key;
    rs_span  value;
} rs_extra_record;     /* unknown keys (crawl-delay, host, ...) */

typedef struct {
    uint32_t line;
    rs_span  value;    /* as written (not canonicalized) */
} rs_sitemap_record;   /* Sitemap: lines, file order */

struct rs_ruleset {
    rs_ua_record    *agents;
    uint32_t         n_agents;
    rs_rule_record  *rules;
    uint32_t         n_rules;
    rs_extra_record *extras;
    uint32_t         n_extras;
    uint32_t         n_groups;
    rs_sitemap_record *sitemaps;
    uint32_t         n_sitemaps; /* Sitemap: lines */
    char            *text;     /* arena of tokens, patterns, keys, values */
    char            *text_heap; /* the text when it has its own allocation (a large body), else NULL */
    size_t           text_len;
};

static inline rs_str rs_ruleset_str(const rs_ruleset *rs, rs_span s)
{
    rs_str r = { rs->text + s.off, s.len };
    return r;
}

/*
 * Which groups apply to an agent (SPEC 2.2.13). @selected must hold
 * rs->n_groups bytes; it is set to 1 for the groups whose rules count.
 * @return 1 if a group names the agent (specific rules), 0 if the global
 * groups apply (possibly none).
 */
int rs_ruleset_select(const rs_ruleset *rs, const char *agent, size_t agent_len,
                      uint8_t *selected);

/*
 * rs_matcher_create with the matcher's one block from @alloc (8-aligned at
 * least; NULL: out of memory), e.g. an arena of many matchers (src/sites):
 * such a matcher is freed with its allocator, never by rs_matcher_free.
 */
rs_status rs_matcher_create_alloc(const rs_ruleset *rs, const char *agent, size_t agent_len,
                                  rs_semantics semantics, void *(*alloc)(void *ctx, size_t size),
                                  void *alloc_ctx, rs_matcher **out);

/*
 * rs_matcher_create_alloc, or with @list (Google semantics only) a rule-list
 * matcher: the applicable rules as they are, tried in turn by rs_matcher_match,
 * built for a fraction of the trie's cost and memory (for a site that decides
 * few URLs; src/scan turns to the trie when a site's URLs pass a count). More
 * than RS_MATCHER_LIST_MAX candidates make the trie at once: a bound on what one
 * URL's walk costs (~1 ms) before its site turns to the trie.
 */
#define RS_MATCHER_LIST_MAX ((uint32_t)1 << 20)
rs_status rs_matcher_create_ex(const rs_ruleset *rs, const char *agent, size_t agent_len,
                               rs_semantics semantics, int list, void *(*alloc)(void *ctx, size_t size),
                               void *alloc_ctx, rs_matcher **out);

/* Whether @m is a rule-list matcher (rs_matcher_create_ex). */
int rs_matcher_is_list(const rs_matcher *m);

/* The trie of rule list @m if some caller has built it (rs_matcher_compiled), else
 * NULL; @m itself when it is not a list. Any thread. */
const rs_matcher *rs_matcher_built(const rs_matcher *m);

/*
 * The trie matcher of @m: @m itself unless it is a rule-list matcher, whose
 * trie is built on the first call (with @alloc, as rs_matcher_create_alloc)
 * and kept with it for every caller and thread after. A rule-list matcher
 * made with rs_matcher_create_ex(..., alloc, ...) uses the same allocator.
 */
rs_status rs_matcher_compiled(const rs_matcher *m, void *(*alloc)(void *ctx, size_t size), void *alloc_ctx,
                              const rs_matcher **out);

/* Prefetches up to @max_bytes of a matcher whose first two cache lines are
 * already on their way (src/scan prefetches m and m + 64 first). */
void rs_matcher_prefetch(const rs_matcher *m, size_t max_bytes);

#endif /* RS_RULES_RULESET_H */
