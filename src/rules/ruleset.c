/*
 * ruleset.c - parser events -> groups, rules and unknown keys (SPEC 2.2).
 *
 * This is the rule compiler's parser handler. It records every user-agent
 * line with its product token, every allow/disallow line inside a group and
 * every unknown key and every Sitemap: line, so one parse serves any number
 * of agents and the file's metadata (src/rules/meta.c).
 */
#include "rules/ruleset.h"

/* A record list that starts in a buffer on the parser's stack and moves to
 * the heap only when that is full: most files fit, so parsing one makes no
 * allocation for its records until the final, exact one. */
typedef struct {
    char  *ptr;
    size_t len, cap;
    int    heap;           /* ptr was malloc'd */
} records;

static rs_status records_grow(records *r, size_t size)
{
    size_t cap = r->cap * 2;
    while (cap - r->len < size) cap *= 2;
    char *p = rs_malloc(cap);
    RS_RETURN_IF(p == NULL, RS_ERR_NOMEM);
    memcpy(p, r->ptr, r->len);
    if (r->heap) rs_free(r->ptr);
    r->ptr = p;
    r->cap = cap;
    r->heap = 1;
    return RS_OK;
}

static void records_free(records *r)
{
    if (r->heap) rs_free(r->ptr);
}

typedef struct {
    records agents, rules, extras, sitemaps;
    records text;          /* tokens, patterns, keys, values */
    uint32_t group;        /* current group, UINT32_MAX before the first user-agent */
    uint32_t n_groups;
    int saw_rule;          /* an allow/disallow since the last user-agent line */
    rs_status status;
} builder;

static inline __attribute__((always_inline)) rs_span add_text(builder *b, const char *p, size_t n)
{
    rs_span s = { (uint32_t)b->text.len, (uint32_t)n };
    records *t = &b->text;
    if (RS_LIKELY(t->cap - t->len >= n)) {
        memcpy(t->ptr + t->len, p, n);
        t->len += n;
    } else if (b->status == RS_OK && (b->status = records_grow(t, n)) == RS_OK) {
        memcpy(t->ptr + t->len, p, n);
        t->len += n;
    }
    return s;
}

static inline __attribute__((always_inline)) void add_record(builder *b, records *to, const void *rec, size_t size)
{
    if (b->status != RS_OK) return;
    if (RS_UNLIKELY(to->cap - to->len < size) && (b->status = records_grow(to, size)) != RS_OK) return;
    memcpy(to->ptr + to->len, rec, size);
    to->len += size;
}

/* The other lines than allow/disallow, out of line: the rule path, which
 * most lines take, then saves fewer registers. */
static __attribute__((noinline)) void on_agent(builder *b, const rs_robots_line *ev)
{
    if (b->group == UINT32_MAX || b->saw_rule) {
        b->group = b->n_groups++;
        b->saw_rule = 0;
    }
    rs_ua_record r;
    memset(&r, 0, sizeof r);
    r.group = b->group;
    r.line = ev->line;
    r.global = (uint8_t)rs_agent_is_global(ev->value.ptr, ev->value.len);
    r.token = add_text(b, ev->value.ptr, r.global ? 0 : rs_agent_token(ev->value.ptr, ev->value.len));
    add_record(b, &b->agents, &r, sizeof r);
}

static __attribute__((noinline)) void on_extra(builder *b, const rs_robots_line *ev)
{
    rs_extra_record r;
    memset(&r, 0, sizeof r);
    r.group = b->group;
    r.line = ev->line;
    r.key = add_text(b, ev->key.ptr, ev->key.len);
    r.value = add_text(b, ev->value.ptr, ev->value.len);
    add_record(b, &b->extras, &r, sizeof r);
}

static __attribute__((noinline)) void on_sitemap(builder *b, const rs_robots_line *ev)
{
    rs_sitemap_record r;
    memset(&r, 0, sizeof r);
    r.line = ev->line;
    r.value = add_text(b, ev->value.ptr, ev->value.len);
    add_record(b, &b->sitemaps, &r, sizeof r);
}

static void on_line(void *ctx, const rs_robots_line *ev)
{
    builder *b = ctx;
    switch (ev->directive) {
    case RS_DIRECTIVE_ALLOW:
    case RS_DIRECTIVE_DISALLOW: {
        if (b->group == UINT32_MAX) break; /* outside any group: ignored */
        b->saw_rule = 1;
        rs_rule_record r;
        memset(&r, 0, sizeof r);
        r.group = b->group;
        r.line = ev->line;
        r.type = ev->directive == RS_DIRECTIVE_ALLOW ? RS_RULE_ALLOW : RS_RULE_DISALLOW;
        r.pattern = add_text(b, ev->value.ptr, ev->value.len);
        add_record(b, &b->rules, &r, sizeof r);
        break;
    }
    case RS_DIRECTIVE_USER_AGENT:
        on_agent(b, ev);
        break;
    case RS_DIRECTIVE_UNKNOWN:
        on_extra(b, ev);
        break;
    case RS_DIRECTIVE_SITEMAP:
        on_sitemap(b, ev);
        break;
    case RS_DIRECTIVE_NONE:
        break;
    }
}

/* Records are 4-byte aligned; the arrays follow the header in one block. */
#define ALIGN8(n) (((n) + 7) & ~(size_t)7)

rs_status rs_ruleset_parse(const void *body, size_t size, rs_ruleset **out)
{
    RS_RETURN_IF(out == NULL || (body == NULL && size), RS_ERR_USAGE);
    *out = NULL;
    builder b;
    memset(&b, 0, sizeof b);
    b.group = UINT32_MAX;
    uint32_t agents_stack[1024 / 4], rules_stack[4096 / 4], extras_stack[1024 / 4];
    uint32_t sitemaps_stack[384 / 4];
    uint64_t text_stack[4096 / 8];
    b.agents.ptr = (char *)agents_stack;
    b.agents.cap = sizeof agents_stack;
    b.rules.ptr = (char *)rules_stack;
    b.rules.cap = sizeof rules_stack;
    b.extras.ptr = (char *)extras_stack;
    b.extras.cap = sizeof extras_stack;
    b.sitemaps.ptr = (char *)sitemaps_stack;
    b.sitemaps.cap = sizeof sitemaps_stack;
    /* The text takes at most the body's bytes but for canonical escapes:
     * the stack for most files, else one buffer of that size in one go. */
    rs_status st = RS_OK;
    b.text.ptr = (char *)text_stack;
    b.text.cap = sizeof text_stack;
    if (size + 1 > sizeof text_stack) {
        b.text.ptr = rs_malloc(size + 1);
        b.text.cap = size + 1;
        b.text.heap = 1;
        if (b.text.ptr == NULL) st = RS_ERR_NOMEM;
    }
    if (st == RS_OK) st = rs_robots_parse(body, size, on_line, &b, NULL);
    if (st == RS_OK) st = b.status;
    /* One block, exactly sized (rulesets are kept, at 100k sites too): the
     * header, the agent, rule and extra records, then the text if it was on
     * the stack (a heap one stays where it is: no copy of a large text). The
     * text is never NULL: spans of length 0 still point into it (NULL + 0 is UB). */
    const size_t off_agents = ALIGN8(sizeof(rs_ruleset));
    const size_t off_rules = off_agents + ALIGN8(b.agents.len);
    const size_t off_extras = off_rules + ALIGN8(b.rules.len);
    const size_t off_sitemaps = off_extras + b.extras.len;
    const size_t off_text = off_sitemaps + b.sitemaps.len;
    const size_t in_block = b.text.heap ? 0 : b.text.len + 1;
    rs_ruleset *rs = NULL;
    if (st == RS_OK) {
        rs = rs_malloc(off_text + in_block);
        if (rs == NULL) st = RS_ERR_NOMEM;
    }
    if (st == RS_OK) {
        char *base = (char *)rs;
        memset(rs, 0, sizeof *rs);
        if (b.agents.len) memcpy(base + off_agents, b.agents.ptr, b.agents.len);
        if (b.rules.len) memcpy(base + off_rules, b.rules.ptr, b.rules.len);
        if (b.extras.len) memcpy(base + off_extras, b.extras.ptr, b.extras.len);
        if (b.sitemaps.len) memcpy(base + off_sitemaps, b.sitemaps.ptr, b.sitemaps.len);
        rs->agents = (rs_ua_record *)(void *)(base + off_agents);
        rs->n_agents = (uint32_t)(b.agents.len / sizeof(rs_ua_record));
        rs->rules = (rs_rule_record *)(void *)(base + off_rules);
        rs->n_rules = (uint32_t)(b.rules.len / sizeof(rs_rule_record));
        rs->extras = (rs_extra_record *)(void *)(base + off_extras);
        rs->n_extras = (uint32_t)(b.extras.len / sizeof(rs_extra_record));
        rs->n_groups = b.n_groups;
        rs->sitemaps = (rs_sitemap_record *)(void *)(base + off_sitemaps);
        rs->n_sitemaps = (uint32_t)(b.sitemaps.len / sizeof(rs_sitemap_record));
        if (b.text.heap) {
            rs->text = rs->text_heap = b.text.ptr;
            b.text.heap = 0;   /* now the ruleset's */
        } else {
            if (b.text.len) memcpy(base + off_text, b.text.ptr, b.text.len);
            base[off_text + b.text.len] = '\0';
            rs->text = base + off_text;
        }
        rs->text_len = b.text.len;
    }
    records_free(&b.agents);
    records_free(&b.rules);
    records_free(&b.extras);
    records_free(&b.sitemaps);
    records_free(&b.text);
    if (st != RS_OK) return st;
    *out = rs;
    return RS_OK;
}

void rs_ruleset_free(rs_ruleset *rs)
{
    if (rs == NULL) return;
    rs_free(rs->text_heap);
    rs_free(rs);           /* the records, and the text but for a large one, share the block */
}

static int names(const rs_ruleset *rs, const rs_ua_record *ua, const char *agent, size_t agent_len)
{
    if (ua->global || ua->token.len == 0) return 0; /* an empty token names nobody */
    const rs_str tok = rs_ruleset_str(rs, ua->token);
    return rs_ieq(tok.ptr, tok.len, agent, agent_len);
}

int rs_ruleset_names_agent(const rs_ruleset *rs, const char *agent, size_t agent_len)
{
    for (uint32_t i = 0; i < rs->n_agents; i++)
        if (names(rs, &rs->agents[i], agent, agent_len)) return 1;
    return 0;
}

int rs_ruleset_select(const rs_ruleset *rs, const char *agent, size_t agent_len,
                      uint8_t *selected)
{
    memset(selected, 0, rs->n_groups);
    int specific = 0;
    for (uint32_t i = 0; i < rs->n_agents; i++) {
        if (names(rs, &rs->agents[i], agent, agent_len)) {
            if (!specific) memset(selected, 0, rs->n_groups);
            specific = 1;
            selected[rs->agents[i].group] = 1;
        } else if (!specific && rs->agents[i].global) {
            selected[rs->agents[i].group] = 1;
        }
    }
    return specific;
}

int rs_ruleset_group_value(const rs_ruleset *rs, const char *agent, size_t agent_len,
                           const char *key, rs_str *value)
{
    if (rs->n_groups == 0) return 0;
    uint8_t *selected = rs_malloc(rs->n_groups);
    if (selected == NULL) return 0;
    rs_ruleset_select(rs, agent, agent_len, selected);
    int found = 0;
    for (uint32_t i = 0; i < rs->n_extras && !found; i++) {
        const rs_extra_record *e = &rs->extras[i];
        if (e->group == UINT32_MAX || !selected[e->group]) continue;
        const rs_str k = rs_ruleset_str(rs, e->key);
        if (rs_ieq(k.ptr, k.len, key, strlen(key))) {
            *value = rs_ruleset_str(rs, e->value);
            found = 1;
        }
    }
    rs_free(selected);
    return found;
}

size_t rs_ruleset_tokens(const rs_ruleset *rs, rs_str *out, size_t cap)
{
    size_t n = 0;
    for (uint32_t i = 0; i < rs->n_agents; i++) {
        const rs_ua_record *ua = &rs->agents[i];
        if (ua->global || ua->token.len == 0) continue;
        const rs_str tok = rs_ruleset_str(rs, ua->token);
        int seen = 0;
        for (uint32_t j = 0; j < i && !seen; j++) {
            const rs_ua_record *u = &rs->agents[j];
            if (u->global || u->token.len == 0) continue;
            const rs_str t = rs_ruleset_str(rs, u->token);
            seen = rs_ieq(t.ptr, t.len, tok.ptr, tok.len);
        }
        if (seen) continue;
        if (n < cap) out[n] = tok;
        n++;
    }
    return n;
}

size_t rs_ruleset_sitemap_count(const rs_ruleset *rs) { return rs ? rs->n_sitemaps : 0; }
