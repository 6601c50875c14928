#!/usr/bin/env bash
# CLI tests for `robotscan diff` (SPEC 9): exact records on a small case, exit codes, bad input,
# then flips checked against independent computations (tests/diff/compare_flips.py):
#  - 200 real robots.txt files and mutated copies (tests/diff/mutate_robots.py) vs `urls` per side;
#  - --logs over the elastic sample with two robots.txt versions vs `logs` per side;
#  - google vs first-match over conformance/first-match and the real files vs `check` per side.
# Usage: bash tests/cli/test_diff.sh ./robotscan SHARED   (SHARED: build/testdata after `make testdata`, or ../shared)
set -u
BIN=${1:-./robotscan}
SHARED=${2:-build/testdata}
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
DIFFTESTS=$(cd "$HERE/../diff" && pwd)
. "$(dirname "$0")/lib/helpers.sh"

# usage_error NAME REGEX CMD... : exit 2, nothing on stdout, one "robotscan diff: " line matching REGEX
usage_error() {
    local name=$1 re=$2; shift 2
    expect_run "$name" 2 "$@"
    [ -s "$T/out" ] && fail "$name: wrote to stdout"
    head -1 "$T/err" | grep -q '^robotscan diff: ' || fail "$name: first stderr line: $(head -1 "$T/err")"
    expect_err "$name" "$re"
}

# ----- a small case, exact output -----
printf 'User-agent: *\nDisallow: /a\nAllow: /a/b\n' >"$T/old.txt"
printf 'User-agent: *\nDisallow: /a\nDisallow: /c\nUser-agent: Googlebot\nDisallow: /g\n' >"$T/new.txt"
cp "$T/old.txt" "$T/old-copy.txt"
printf 'https://x.com/a\nhttps://x.com/a/b\n\n# comment\nhttps://x.com/c\nnot a url\nhttps://x.com/g\n' >"$T/urls.txt"

TAB=$'\t'
expect_run "small: exit 0 without --fail-on-change" 0 "$BIN" diff --old "$T/old.txt" --new "$T/new.txt" --format tsv "$T/urls.txt"
expect_out "small: records" "url${TAB}origin${TAB}agent${TAB}old_verdict${TAB}old_line${TAB}old_rule${TAB}new_verdict${TAB}new_line${TAB}new_rule${TAB}hits
https://x.com/a${TAB}https://x.com${TAB}Googlebot${TAB}disallow${TAB}2${TAB}disallow: /a${TAB}allow${TAB}0${TAB}${TAB}1
https://x.com/a/b${TAB}https://x.com${TAB}*${TAB}allow${TAB}3${TAB}allow: /a/b${TAB}disallow${TAB}2${TAB}disallow: /a${TAB}1
https://x.com/a/b${TAB}https://x.com${TAB}bingbot${TAB}allow${TAB}3${TAB}allow: /a/b${TAB}disallow${TAB}2${TAB}disallow: /a${TAB}1
https://x.com/c${TAB}https://x.com${TAB}*${TAB}allow${TAB}0${TAB}${TAB}disallow${TAB}3${TAB}disallow: /c${TAB}1
https://x.com/c${TAB}https://x.com${TAB}bingbot${TAB}allow${TAB}0${TAB}${TAB}disallow${TAB}3${TAB}disallow: /c${TAB}1
https://x.com/g${TAB}https://x.com${TAB}Googlebot${TAB}allow${TAB}0${TAB}${TAB}disallow${TAB}5${TAB}disallow: /g${TAB}1
"
expect_err "small: summary" '^diff: 7 lines, 12 \(URL, agent\) pairs compared: 5 newly disallowed, 1 newly allowed, 6 unchanged; malformed 1'
expect_err "small: per agent" '^Googlebot +4 +1 +1 +2$'
expect_run "small: --fail-on-change exits 1" 1 "$BIN" diff --old "$T/old.txt" --new "$T/new.txt" --fail-on-change --quiet "$T/urls.txt"
grep -q '^diff: ' "$T/out" || fail "--quiet: summary not on stdout"
expect_run "no change: exit 0 with --fail-on-change" 0 "$BIN" diff --old "$T/old.txt" --new "$T/old-copy.txt" --fail-on-change --format tsv "$T/urls.txt"
[ "$(wc -l <"$T/out")" = 1 ] || fail "no change: records printed: $(cat "$T/out")"
expect_run "--all" 0 "$BIN" diff --old "$T/old.txt" --new "$T/new.txt" --all --format csv --agent Googlebot "$T/urls.txt"
[ "$(wc -l <"$T/out")" = 5 ] || fail "--all --agent Googlebot: want header + 4 rows: $(cat "$T/out")"
expect_run "jsonl" 0 "$BIN" diff --old "$T/old.txt" --new "$T/new.txt" --format jsonl --agent bingbot "$T/urls.txt"
python3 - "$T/out" <<'PY' || fail "jsonl records"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [(r["url"], r["old_verdict"], r["new_verdict"], r["new_rule"], r["hits"]) for r in rows] == [
    ("https://x.com/a/b", "allow", "disallow", "disallow: /a", 1),
    ("https://x.com/c", "allow", "disallow", "disallow: /c", 1)], rows
PY
# stdin, and -j 2 gives the same records
"$BIN" diff --old "$T/old.txt" --new "$T/new.txt" --format tsv "$T/urls.txt" >"$T/a.tsv" 2>/dev/null
"$BIN" diff --old "$T/old.txt" --new "$T/new.txt" --format tsv -j 2 <"$T/urls.txt" >"$T/b.tsv" 2>/dev/null
cmp -s "$T/a.tsv" "$T/b.tsv" || fail "stdin with -j 2 differs from the file"

# compressed input (detected from the content) gives the same records
gzip -c "$T/urls.txt" >"$T/urls.gz"
"$BIN" diff --old "$T/old.txt" --new "$T/new.txt" --format tsv "$T/urls.gz" >"$T/c.tsv" 2>/dev/null
cmp -s "$T/a.tsv" "$T/c.tsv" || fail ".gz input differs from plain"
if command -v zstd >/dev/null; then
    zstd -q -c "$T/urls.txt" >"$T/urls.zst"
    "$BIN" diff --old "$T/old.txt" --new "$T/new.txt" --format tsv "$T/urls.zst" >"$T/c.tsv" 2>/dev/null
    cmp -s "$T/a.tsv" "$T/c.tsv" || fail ".zst input differs from plain"
else
    skip ".zst input" "no zstd command"
fi
[ "$(wc -l <"$T/a.tsv")" = 7 ] || fail "plain input: $(wc -l <"$T/a.tsv") lines, want 7"

# --rules: added, removed, changed in effect
expect_run "--rules" 0 "$BIN" diff --old "$T/old.txt" --new "$T/new.txt" --rules --quiet --format tsv --agent Googlebot "$T/urls.txt"
grep -q "^https://x.com${TAB}Googlebot${TAB}removed${TAB}disallow: /a${TAB}2${TAB}0${TAB}/a${TAB}disallow${TAB}allow$" "$T/out" \
    || fail "--rules: removed row: $(cat "$T/out")"
grep -q "^https://x.com${TAB}Googlebot${TAB}added${TAB}disallow: /g${TAB}0${TAB}5${TAB}/g${TAB}allow${TAB}disallow$" "$T/out" \
    || fail "--rules: added row: $(cat "$T/out")"
expect_run "--rules semantics" 0 "$BIN" diff --robots "$T/old.txt" --old-semantics google --new-semantics first-match \
    --rules --quiet --format tsv --agent Googlebot "$T/urls.txt"
grep -q "^https://x.com${TAB}Googlebot${TAB}changed-effect${TAB}allow: /a/b${TAB}3${TAB}3${TAB}/a/b${TAB}allow${TAB}disallow$" "$T/out" \
    || fail "--rules: changed-effect row: $(cat "$T/out")"
grep -q "changed-effect${TAB}disallow: /a${TAB}" "$T/out" && fail "--rules: disallow: /a is not changed in effect"
# the text format names only the lines a rule has: no "line 0" for the side it is not on
expect_run "--rules text" 0 "$BIN" diff --old "$T/old.txt" --new "$T/new.txt" --rules --quiet --format text --agent Googlebot "$T/urls.txt"
grep -qx "  removed         disallow: /a (old line 2); probe /a: old disallow, new allow" "$T/out" \
    || fail "--rules text: removed row: $(cat "$T/out")"
grep -qx "  added           disallow: /g (new line 5); probe /g: old allow, new disallow" "$T/out" \
    || fail "--rules text: added row: $(cat "$T/out")"
grep -q "line 0" "$T/out" && fail "--rules text: shows a line 0: $(cat "$T/out")"
expect_run "--rules text semantics" 0 "$BIN" diff --robots "$T/old.txt" --old-semantics google --new-semantics first-match \
    --rules --quiet --format text --agent Googlebot "$T/urls.txt"
grep -qx "  changed-effect  allow: /a/b (old line 3, new line 3); probe /a/b: old allow, new disallow" "$T/out" \
    || fail "--rules text: changed-effect row: $(cat "$T/out")"

# --stats: command, schema version, sums only
expect_run "--stats" 0 "$BIN" diff --old "$T/old.txt" --new "$T/new.txt" --quiet --stats "$T/s.json" "$T/urls.txt"
python3 - "$T/s.json" <<'PY' || fail "stats JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["command"] == "diff" and d["schema_version"] == 1, d
assert d["total"]["compared"] == 12 and d["total"]["newly_disallowed"] == 5 and d["total"]["newly_allowed"] == 1, d
assert [a["agent"] for a in d["agents"]] == ["*", "Googlebot", "bingbot"], d["agents"]
assert d["malformed"] == 1 and d["lines"] == 7, d
assert "seconds" not in json.dumps(d), "timing is not mergeable"
PY

# --html: the report of the same statistics (robotscan report)
expect_run "--html" 0 "$BIN" diff --old "$T/old.txt" --new "$T/new.txt" --quiet --rules --stats "$T/h.json" \
    --html "$T/h1.html" "$T/urls.txt"
expect_run "report of diff stats" 0 "$BIN" report "$T/h.json" -o "$T/h2.html"
cmp -s "$T/h1.html" "$T/h2.html" || fail "diff --html differs from report of its --stats"
grep -q 'Flips per agent' "$T/h1.html" || fail "diff --html: no per-agent flips"

# ----- bad input (SPEC 9: clear behaviour, exit 2) -----
usage_error "only --old" 'needs --new PATH' "$BIN" diff --old "$T/old.txt" "$T/urls.txt"
usage_error "only --new" 'needs --old PATH' "$BIN" diff --new "$T/new.txt" "$T/urls.txt"
usage_error "no side" 'needs --old PATH and --new PATH' "$BIN" diff "$T/urls.txt"
usage_error "same path twice" 'same sources' "$BIN" diff --old "$T/old.txt" --new "$T/old.txt" "$T/urls.txt"
usage_error "same file, two names" 'same sources' "$BIN" diff --old "$T/old.txt" --new "$T/../$(basename "$T")/old.txt" "$T/urls.txt"
usage_error "--robots and --old" 'either --robots' "$BIN" diff --robots "$T/old.txt" --old "$T/old.txt" --new "$T/new.txt"
usage_error "--robots without semantics" 'old-semantics' "$BIN" diff --robots "$T/old.txt" "$T/urls.txt"
usage_error "--robots, same semantics" 'are the same' "$BIN" diff --robots "$T/old.txt" --old-semantics google --new-semantics google "$T/urls.txt"
usage_error "bad semantics" 'google or first-match' "$BIN" diff --robots "$T/old.txt" --old-semantics google --new-semantics longest "$T/urls.txt"
usage_error "--host without --logs" 'go with --logs' "$BIN" diff --old "$T/old.txt" --new "$T/new.txt" --host a.com "$T/urls.txt"
usage_error "unknown option" 'unknown option' "$BIN" diff --old "$T/old.txt" --new "$T/new.txt" --bogus "$T/urls.txt"
mkdir -p "$T/dir" && cp "$T/new.txt" "$T/dir/x.com.txt"
usage_error "file vs directory" 'same kind' "$BIN" diff --old "$T/old.txt" --new "$T/dir" "$T/urls.txt"
printf 'https://x.com\t200\tdir/x.com.txt\n' >"$T/m.tsv"
expect_run "directory vs manifest (both per origin)" 0 "$BIN" diff --old "$T/dir" --new "$T/m.tsv" --fail-on-change "$T/urls.txt"
# an origin only one side knows: no-robots there (--missing decides), here 503 = unreachable
printf 'https://x.com\t200\tdir/x.com.txt\nhttps://y.com\t503\t-\n' >"$T/m2.tsv"
printf 'https://y.com/p\nhttps://x.com/c\n' >"$T/urls-y.txt"
expect_run "origin on one side only" 0 "$BIN" diff --old "$T/dir" --new "$T/m2.tsv" --agent Googlebot --format tsv "$T/urls-y.txt"
expect_out "origin on one side only: records" "url${TAB}origin${TAB}agent${TAB}old_verdict${TAB}old_line${TAB}old_rule${TAB}new_verdict${TAB}new_line${TAB}new_rule${TAB}hits
https://y.com/p${TAB}https://y.com${TAB}Googlebot${TAB}allow${TAB}0${TAB}${TAB}disallow${TAB}0${TAB}${TAB}1
"
expect_run "origin on one side only, --missing skip" 0 "$BIN" diff --old "$T/dir" --new "$T/m2.tsv" --agent Googlebot \
    --missing skip --quiet "$T/urls-y.txt"
grep -q '^diff: 2 lines, 1 (URL, agent) pairs compared: 0 newly disallowed, 0 newly allowed, 1 unchanged; malformed 0, skipped 1$' "$T/out" \
    || fail "--missing skip: $(head -1 "$T/out")"
# a directory vs a WARC (both per origin): accepted; a file vs a WARC: usage error
python3 - "$T/x.warc" <<'PY'
import sys
body = b"User-agent: *\nDisallow: /c\n"
http = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n" % len(body) + body
rec = (b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Record-ID: <urn:uuid:1>\r\n"
       b"WARC-Target-URI: https://x.com/robots.txt\r\nContent-Type: application/http; msgtype=response\r\n"
       b"Content-Length: %d\r\n\r\n" % len(http)) + http + b"\r\n\r\n"
open(sys.argv[1], "wb").write(rec)
PY
gzip -c "$T/x.warc" >"$T/x.warc.gz"
mkdir -p "$T/xdir" && cp "$T/old.txt" "$T/xdir/x.com.txt"
printf 'https://x.com/c\nhttps://x.com/a\nhttps://x.com/a/b\n' >"$T/urls-x.txt"
expect_run "directory vs WARC" 0 "$BIN" diff --old "$T/xdir" --new "$T/x.warc.gz" --agent Googlebot --format tsv "$T/urls-x.txt"
expect_out "directory vs WARC: records" "url${TAB}origin${TAB}agent${TAB}old_verdict${TAB}old_line${TAB}old_rule${TAB}new_verdict${TAB}new_line${TAB}new_rule${TAB}hits
https://x.com/c${TAB}https://x.com${TAB}Googlebot${TAB}allow${TAB}0${TAB}${TAB}disallow${TAB}2${TAB}disallow: /c${TAB}1
https://x.com/a${TAB}https://x.com${TAB}Googlebot${TAB}disallow${TAB}2${TAB}disallow: /a${TAB}allow${TAB}0${TAB}${TAB}1
"
usage_error "file vs WARC" 'same kind' "$BIN" diff --old "$T/old.txt" --new "$T/x.warc" "$T/urls-x.txt"
expect_run "missing side" 2 "$BIN" diff --old "$T/old.txt" --new "$T/nope.txt" "$T/urls.txt"
expect_err "missing side: named" "cannot read --new '.*nope.txt'"
if [ "$(id -u)" != 0 ]; then
    cp "$T/new.txt" "$T/locked.txt" && chmod 000 "$T/locked.txt"
    expect_run "unreadable side" 2 "$BIN" diff --old "$T/old.txt" --new "$T/locked.txt" "$T/urls.txt"
    expect_err "unreadable side: named" "cannot read --new '.*locked.txt'"
else
    skip "unreadable side" "running as root: every file is readable"
fi
printf 'https://x.com\tnot-a-status\tdir/x.com.txt\n' >"$T/bad.tsv"
expect_run "corrupt manifest side" 2 "$BIN" diff --old "$T/dir" --new "$T/bad.tsv" "$T/urls.txt"
expect_err "corrupt manifest side: named" 'bad.tsv'
expect_run "missing input" 2 "$BIN" diff --old "$T/old.txt" --new "$T/new.txt" "$T/nope-urls.txt"
expect_err "missing input: named" 'nope-urls.txt'
expect_run "--help" 0 "$BIN" diff --help
grep -q 'changed-effect' "$T/out" && grep -q 'same kind\|Sources of different kinds' "$T/out" || fail "--help lacks rules/kinds"

# ----- 200 real files and mutated copies vs two `urls` runs -----
python3 "$DIFFTESTS/mutate_robots.py" "$SHARED" "$T/m" >"$T/mutate.log" || fail "mutate_robots.py: $(cat "$T/mutate.log")"
grep -q '^200 files' "$T/mutate.log" || fail "mutate_robots.py: $(cat "$T/mutate.log")"
python3 "$DIFFTESTS/compare_flips.py" urls "$BIN" "$T/m/old" "$T/m/new" "$T/m/urls.txt" '*' Googlebot bingbot \
    || fail "mutated files: flips differ from two urls runs"

# ----- any number of agents (--agent repeated, --agents FILE): 200 in one pass flip as chunks of 60 -----
{ grep -v '^#' "$HERE/../../data/ai-agents.txt"
  sed -n 's/^[Uu]ser-agent: *\([A-Za-z_-][A-Za-z_-]*\).*/\1/p' "$T"/m/old/*.txt; } \
    | grep . | awk '!seen[tolower($0)]++' | head -200 >"$T/agents200.txt"
[ "$(wc -l <"$T/agents200.txt")" = 200 ] || fail "200 agents: only $(wc -l <"$T/agents200.txt") in the list"
expect_run "--agents FILE, 200 agents" 0 "$BIN" diff --old "$T/m/old" --new "$T/m/new" --agents "$T/agents200.txt" \
    --format tsv --stats "$T/a200.json" "$T/m/urls.txt"
tail -n +2 "$T/out" | sort >"$T/flips200.tsv"
[ "$(wc -l <"$T/flips200.tsv")" -gt 1000 ] || fail "200 agents: only $(wc -l <"$T/flips200.tsv") flips"
split -l 60 "$T/agents200.txt" "$T/agents-chunk."
for c in "$T"/agents-chunk.*; do
    "$BIN" diff --old "$T/m/old" --new "$T/m/new" --agents "$c" --format tsv "$T/m/urls.txt" 2>/dev/null | tail -n +2
done | sort >"$T/flips-chunks.tsv"
cmp -s "$T/flips200.tsv" "$T/flips-chunks.tsv" || fail "200 agents in one pass: flips differ from 60-agent chunks"
python3 - "$T/a200.json" "$T/agents200.txt" <<'PY' || fail "200 agents: stats"
import json, sys
d = json.load(open(sys.argv[1]))
want = [l.strip() for l in open(sys.argv[2])]
assert [a["agent"] for a in d["agents"]] == want, "agents in file order"
assert d["total"]["compared"] == sum(a["compared"] for a in d["agents"]) > 0, d["total"]
PY
# --agent repeated past the old limit of 64 gives the records of the same list from a file
head -70 "$T/agents200.txt" >"$T/agents70.txt"
mapfile -t A70 <"$T/agents70.txt"
AGENT_ARGS=(); for a in "${A70[@]}"; do AGENT_ARGS+=(--agent "$a"); done
"$BIN" diff --old "$T/m/old" --new "$T/m/new" "${AGENT_ARGS[@]}" --format tsv "$T/m/urls.txt" >"$T/a70-args.tsv" 2>/dev/null \
    || fail "70 --agent options: exit $?"
"$BIN" diff --old "$T/m/old" --new "$T/m/new" --agents "$T/agents70.txt" --format tsv "$T/m/urls.txt" >"$T/a70-file.tsv" 2>/dev/null
cmp -s "$T/a70-args.tsv" "$T/a70-file.tsv" || fail "70 agents: --agent options and --agents FILE differ"
usage_error "--agent and --agents" 'not both' "$BIN" diff --old "$T/old.txt" --new "$T/new.txt" --agent x --agents "$T/agents70.txt" "$T/urls.txt"
printf '# nothing\n\n' >"$T/agents-none.txt"
expect_run "--agents FILE without agents" 2 "$BIN" diff --old "$T/old.txt" --new "$T/new.txt" --agents "$T/agents-none.txt" "$T/urls.txt"
expect_err "--agents FILE without agents: named" "no agent in '.*agents-none.txt'"

# ----- --logs over the elastic sample, two robots.txt versions vs two `logs` runs -----
LOG=$SHARED/data/logs/elastic-apache_logs.log
cp "$SHARED/data/robots/9gag.com.txt" "$T/log-old.txt"
{ cat "$T/log-old.txt"; printf '\nUser-agent: *\nDisallow: /blog/tags/\nDisallow: /*.png$\nAllow: /static/\n'
  printf 'User-agent: Googlebot\nDisallow: /presentations/\n'; } >"$T/log-new.txt"
python3 "$DIFFTESTS/compare_flips.py" logs "$BIN" "$T/log-old.txt" "$T/log-new.txt" "$LOG" semicomplete.com \
    || fail "--logs: flips differ from two logs runs"

"$BIN" diff --logs --old "$T/log-old.txt" --new "$T/log-new.txt" --host semicomplete.com --all "$LOG" >"$T/l1" 2>/dev/null
"$BIN" diff --logs --old "$T/log-old.txt" --new "$T/log-new.txt" --host semicomplete.com --all -j 2 "$LOG" >"$T/l2" 2>/dev/null
[ "$(wc -l <"$T/l1")" -gt 100 ] && cmp -s "$T/l1" "$T/l2" || fail "--logs --all: -j 2 differs from -j 1, or too few records"

"$BIN" diff --logs --old "$T/log-old.txt" --new "$T/log-new.txt" --host semicomplete.com --all --log-format auto "$LOG" >"$T/l3" 2>/dev/null
cmp -s "$T/l1" "$T/l3" || fail "--logs --log-format auto differs from combined"

# --rules with --logs: a bot follows its family's group (Googlebot-Image -> Googlebot)
expect_run "--logs --rules" 0 "$BIN" diff --logs --old "$T/log-old.txt" --new "$T/log-new.txt" --host semicomplete.com \
    --quiet --rules --format tsv "$LOG"
grep -q "^https://semicomplete.com${TAB}Googlebot-Image${TAB}added${TAB}disallow: /presentations/${TAB}" "$T/out" \
    || fail "--logs --rules: Googlebot-Image does not follow the Googlebot group: $(grep -c . "$T/out") lines"
grep -q "^Googlebot  *509  *21 (4.1%)  *69 (13.6%)  *419$" "$T/out" || fail "--logs summary: Googlebot row"

# ----- google vs first-match vs two `check` runs -----
python3 "$DIFFTESTS/compare_flips.py" check "$BIN" "$SHARED/conformance/first-match" - SomeBot \
    || fail "first-match conformance: flips differ from two check runs"
python3 "$DIFFTESTS/compare_flips.py" check "$BIN" "$T/m/old" "$T/m/urls.txt" '*' Googlebot bingbot \
    || fail "real files, two semantics: flips differ from two check runs"

finish
