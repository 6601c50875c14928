#!/usr/bin/env bash
# CLI tests for `robotscan lint`: text and jsonl output, --agent, exit codes 0/1/2, --help, usage errors.
# Usage: bash tests/cli/test_lint.sh ./robotscan SHARED   (SHARED: build/testdata after `make testdata`, or ../shared)
set -u
BIN=${1:-./robotscan}
SHARED=${2:-build/testdata}
# Absolute paths, then run from the repository root (tests/lint/ and data/ are relative to it).
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
SHARED=$(cd "$SHARED" 2>/dev/null && pwd || echo "$SHARED")
cd "$(dirname "$0")/../.." || exit 1
. tests/cli/lib/helpers.sh # (cwd is the repository root here)

cat >"$T/robots.txt" <<'R'
User-agent: *
Disallow: /private
Disalow: /tmp

User-agent: Googlebot/2.1
Disallow /x
Allow: fish/
Crawl-delay: 10
R
cat >"$T/clean.txt" <<'R'
User-agent: *
Disallow: /admin/
Allow: /admin/help/
Sitemap: https://www.example.com/sitemap.xml
R
printf 'User-agent: *\nDisallow: /\nCrawl-delay: 3\n' >"$T/info-only.txt"

# --- text, exit 1 when a warning is found
expect_run "text" 1 "$BIN" lint "$T/robots.txt"
F="$T/robots.txt"
expect_out "text" "$F:3: warning: \"Disalow\" read as disallow (accepted typo) [typo-key]
$F:5: info: \"Googlebot/2.1\" is read as the token \"Googlebot\" [user-agent-not-token]
$F:6: warning: \"Disallow /x\" has no colon; read as disallow: /x [missing-colon]
$F:7: warning: pattern \"fish/\" does not start with '/' or '*': it never matches (did you mean \"/fish/\"?) [pattern-never-matches]
$F:8: info: crawl-delay is not used for matching: Google ignores it (Bing and Yandex honour it) [unknown-key]
"
[ -s "$T/err" ] && fail "text: unexpected stderr: $(cat "$T/err")"

# --- jsonl: one object per finding with the five keys
expect_run "jsonl" 1 "$BIN" lint --format jsonl "$T/robots.txt"
[ "$(wc -l <"$T/out")" = 5 ] || fail "jsonl: want 5 lines, got $(wc -l <"$T/out")"
head -1 "$T/out" >"$T/first"
printf '%s\n' "{\"file\":\"$F\",\"line\":3,\"severity\":\"warning\",\"code\":\"typo-key\",\"message\":\"\\\"Disalow\\\" read as disallow (accepted typo)\"}" >"$T/want"
cmp -s "$T/first" "$T/want" || fail "jsonl: first line: $(cat "$T/first")"
python3 - "$T/out" <<'PY' || fail "jsonl: not 5 valid JSON lines with the keys file, line, severity, code, message"
import json, sys
n = 0
for l in open(sys.argv[1]):
    o = json.loads(l)
    assert list(o) == ["file", "line", "severity", "code", "message"], o
    assert o["severity"] in ("info", "warning", "error") and isinstance(o["line"], int)
    n += 1
assert n == 5, n
PY

# --- exit 0: a clean file prints nothing; info findings do not fail
expect_run "clean" 0 "$BIN" lint "$T/clean.txt"
expect_out "clean" ""
expect_run "info only" 0 "$BIN" lint "$T/info-only.txt"
grep -q '\[unknown-key\]' "$T/out" || fail "info only: the info finding is printed"
n_samples=0
for f in tests/lint/clean-*.txt data/example-robots.txt data/robots/*.txt; do
    [ -f "$f" ] || { fail "sample $f: no such file (a pattern matched nothing)"; continue; }
    expect_run "sample $f" 0 "$BIN" lint "$f"
    grep -q ': \(warning\|error\): ' "$T/out" && fail "sample $f has a warning: $(cat "$T/out")"
    n_samples=$((n_samples + 1))
done
[ $n_samples -ge 5 ] || fail "samples: only $n_samples files linted"

# --- one planted file per code: output as reviewed in tests/lint/planted/CODE.expected,
#     and the file's own code among the findings (file-too-large is generated below)
n_planted=0
for f in tests/lint/planted/*.txt; do
    code=$(basename "$f" .txt)
    "$BIN" lint "$f" >"$T/out" 2>"$T/err"
    rc=$?
    diff -u "${f%.txt}.expected" "$T/out" >"$T/diff" || fail "planted $code: output differs: $(cat "$T/diff")"
    grep -q "\[$code\]\$" "$T/out" || fail "planted $code: no $code finding"
    want=1
    grep -q ': \(warning\|error\): ' "${f%.txt}.expected" || want=0
    [ $rc = $want ] || fail "planted $code: exit $rc, want $want"
    n_planted=$((n_planted + 1))
done
# every code of docs/lint.md's table has its planted file (file-too-large is generated below)
n_codes=0
for code in $(sed -n 's/^| `\([a-z0-9-]*\)` | .*/\1/p' docs/lint.md); do
    n_codes=$((n_codes + 1))
    [ "$code" = file-too-large ] && continue
    [ -f "tests/lint/planted/$code.txt" ] && [ -f "tests/lint/planted/$code.expected" ] \
        || fail "planted: no tests/lint/planted/$code.txt/.expected for the code $code of docs/lint.md"
done
[ $n_codes -ge 19 ] || fail "planted: only $n_codes codes read from docs/lint.md"
[ $n_planted = $((n_codes - 1)) ] || fail "planted: $n_planted files for $n_codes codes (file-too-large generated)"

# --- several files; whole-file findings have no line number
printf 'Disallow: /x\n' >"$T/nogroup.txt"
expect_run "nogroup" 1 "$BIN" lint "$T/clean.txt" "$T/nogroup.txt"
expect_out "nogroup" "$T/nogroup.txt: warning: no user-agent line: every URL is allowed for every crawler [no-groups]
$T/nogroup.txt:1: warning: \"disallow: /x\" comes before any user-agent line: ignored [rule-outside-group]
"

# --- stdin as '-'
expect_run "stdin" 1 bash -c "printf 'User-agent: *\nDisalow: /x\n' | \"$BIN\" lint -"
grep -q '^-:2: warning: .*\[typo-key\]' "$T/out" || fail "stdin: $(cat "$T/out")"

# --- HTML error page: one error, not a warning per line
printf '<!DOCTYPE html>\n<html><head><title>404</title></head>\n<body>Not found: no such page</body></html>\n' >"$T/page.txt"
expect_run "html" 1 "$BIN" lint "$T/page.txt"
grep -q "^$T/page.txt:1: error: .*\[html-content\]" "$T/out" || fail "html: $(cat "$T/out")"
[ "$(grep -c 'ignored-line\|unknown-key' "$T/out")" = 0 ] || fail "html: per-line noise: $(cat "$T/out")"

# --- a file over 500 KiB: error at the line where the cut happens (line 1 is 14 bytes, then 100-byte lines)
python3 - "$T/big.txt" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("User-agent: *\n")
    for i in range(6000):
        f.write("Disallow: /" + "a" * 88 + "\n")
PY
expect_run "big" 1 "$BIN" lint "$T/big.txt"
expect_out "big" "$T/big.txt:5121: error: content past 512,000 bytes (500 KiB) is ignored: the file is cut in this line [file-too-large]
"

# --- unreadable file: named on stderr, exit 2, the other files are still linted
expect_run "missing file" 2 "$BIN" lint "$T/nope.txt" "$T/robots.txt"
grep -q "nope.txt" "$T/err" || fail "missing file: stderr does not name it: $(cat "$T/err")"
grep -q '\[typo-key\]' "$T/out" || fail "missing file: the other file was not linted"
# a directory: its files are linted (issue 29: as survey and urls take folders); an empty one is an error
mkdir -p "$T/lintdir" "$T/emptydir"
cp "$T/robots.txt" "$T/lintdir/a.example.txt"
expect_run "directory" 1 "$BIN" lint "$T/lintdir"
grep -q "lintdir/a.example.txt:.*\[typo-key\]" "$T/out" || fail "directory: its file was not linted: $(head -3 "$T/out")"
expect_run "empty directory" 2 "$BIN" lint "$T/emptydir"

# --- --agent: groups and effective rules in precedence order
cat >"$T/agent.txt" <<'R'
User-agent: *
Disallow: /

User-agent: Googlebot
Disallow: /private
Allow: /private/press

User-agent: googlebot
Allow: /p
Disallow:
R
expect_run "agent" 0 "$BIN" lint --agent Googlebot "$T/agent.txt"
A="$T/agent.txt"
expect_out "agent" "$A: agent Googlebot: named by the groups at user-agent lines 4, 8
$A: agent Googlebot: 4 effective rules; the first that matches a path decides (none: allowed):
$A:6:   allow: /private/press
$A:5:   disallow: /private
$A:9:   allow: /p
$A:10:   disallow:    (empty: disallows nothing)
"
expect_run "agent global" 0 "$BIN" lint --agent OtherBot "$T/agent.txt"
grep -q "no group names it; the '\*' group at user-agent line 1 applies" "$T/out" || fail "agent global: $(cat "$T/out")"
grep -q "^$A:2:   disallow: /$" "$T/out" || fail "agent global rule: $(cat "$T/out")"
expect_run "agent jsonl" 0 "$BIN" lint --format jsonl --agent Googlebot "$T/agent.txt"
[ "$(wc -l <"$T/out")" = 4 ] || fail "agent jsonl: want 4 records: $(cat "$T/out")"
head -1 "$T/out" >"$T/first"
printf '%s\n' "{\"file\":\"$A\",\"agent\":\"Googlebot\",\"applies\":\"named\",\"groups\":[4,8],\"rank\":1,\"line\":6,\"rule\":\"allow: /private/press\",\"note\":\"\"}" >"$T/want"
cmp -s "$T/first" "$T/want" || fail "agent jsonl: $(cat "$T/first")"
expect_run "agent not a token" 0 "$BIN" lint --agent Googlebot/2.1 "$T/agent.txt"
grep -q "not a product token" "$T/err" || fail "agent not a token: no warning on stderr"

# --- --help and usage errors
expect_run "help" 0 "$BIN" lint --help
grep -q '^Usage: robotscan lint' "$T/out" || fail "help: not on stdout"
# usage_error NAME ARGS... : exit 2, nothing on stdout, a message on stderr
usage_error() {
    local name=$1; shift
    expect_run "$name" 2 "$BIN" lint "$@"
    [ -s "$T/out" ] && fail "$name: usage error printed on stdout: $(head -c 200 "$T/out")"
    [ -s "$T/err" ] || fail "$name: no message on stderr"
}
usage_error "no file"
[ "$(head -1 "$T/err")" = "robotscan lint: needs at least one FILE" ] || fail "no file: $(cat "$T/err")"
usage_error "bad format" --format xml "$T/robots.txt"
usage_error "bad option" --robots "$T/robots.txt"
usage_error "two agents" --agent a --agent b "$T/robots.txt"

# --- the whole real corpus: no crash, exit 1 (it has warnings), every line well-formed
if [ -d "$SHARED/data/robots" ]; then
    "$BIN" lint "$SHARED"/data/robots/*.txt >"$T/out" 2>"$T/err"
    rc=$?
    [ $rc = 1 ] || fail "corpus: exit $rc, want 1 ($(head -c 300 "$T/err"))"
    [ "$(wc -l <"$T/out")" -gt 1000 ] || fail "corpus: only $(wc -l <"$T/out") findings"
    bad=$(grep -cv '^[^:]*:\([0-9]*:\)\? \(info\|warning\|error\): .* \[[a-z0-9-]*\]$' "$T/out")
    [ "$bad" = 0 ] || fail "corpus: $bad malformed lines, e.g. $(grep -v '^[^:]*:\([0-9]*:\)\? \(info\|warning\|error\): .* \[[a-z0-9-]*\]$' "$T/out" | head -2)"
else
    fail "corpus: no $SHARED/data/robots (SHARED is the test data directory)"
fi

finish
