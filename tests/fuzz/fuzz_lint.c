/*
 * fuzz_lint.c - fuzz entry for rs_lint and rs_lint_agent: no crash, findings
 * in line order within the file's lines, severities as documented, the
 * agent view in precedence order with the matcher's rules.
 *
 * libFuzzer:  clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc \
 *                 tests/fuzz/fuzz_lint.c src/common/common.c src/robots/parse.c \
 *                 src/rules/ruleset.c src/match/matcher.c src/lint/lint.c -o fuzz_lint
 * Replay:     cc -DRS_FUZZ_MAIN ... then ./fuzz_lint FILE...
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "robotscan.h"

typedef struct {
    uint32_t last_line, max_line;
} state;

static void on_finding(void *ctx, const rs_lint_finding *f)
{
    state *s = ctx;
    if (f->line < s->last_line) abort();
    if (f->severity != rs_lint_code_severity(f->code)) abort();
    if (f->message.len == 0 || memchr(f->message.ptr, '\n', f->message.len)) abort();
    s->last_line = f->line;
    if (f->line > s->max_line) s->max_line = f->line;
}

static void count_lines(void *ctx, const rs_robots_line *line)
{
    (void)ctx;
    (void)line;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    state s = { 0, 0 };
    rs_robots_info info;
    if (rs_robots_parse(data, size, count_lines, NULL, &info) != RS_OK) return 0;
    if (rs_lint(data, size, NULL, on_finding, &s) != RS_OK) return 0;
    if (s.max_line > info.lines) abort();

    /* The agent: the first line's first word, or a fixed one. */
    char agent[32] = "Googlebot";
    size_t alen = 9;
    if (size > 0 && data[0] < 0x20) {
        alen = 0;
        for (size_t i = 1; i < size && alen < sizeof agent && data[i] > ' '; i++) agent[alen++] = (char)data[i];
    }
    rs_lint_agent_view *v;
    if (rs_lint_agent(data, size, agent, alen, &v) != RS_OK) return 0;
    size_t originals = 0;
    for (size_t i = 0; i < v->n_rules; i++) {
        originals += !v->rules[i].derived;
        if (v->rules[i].priority != v->rules[i].pattern.len) abort();
        if (i && v->rules[i - 1].priority < v->rules[i].priority) abort();
    }
    rs_ruleset *rs;
    rs_matcher *m;
    if (rs_ruleset_parse(data, size, &rs) == RS_OK) {
        if (rs_matcher_create(rs, agent, alen, RS_SEMANTICS_GOOGLE, &m) == RS_OK) {
            if (rs_matcher_rule_count(m) != originals) abort();
            rs_matcher_free(m);
        }
        rs_ruleset_free(rs);
    }
    rs_lint_agent_free(v);
    return 0;
}

#ifdef RS_FUZZ_MAIN
int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (f == NULL) { perror(argv[i]); return 2; }
        size_t cap = 1 << 20, len = 0, n;
        uint8_t *buf = malloc(cap);
        while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0)
            if ((len += n) == cap) buf = realloc(buf, cap *= 2);
        fclose(f);
        if (buf == NULL) return 2;
        LLVMFuzzerTestOneInput(buf, len);
        free(buf);
    }
    printf("replayed %d inputs\n", argc - 1);
    return 0;
}
#endif
