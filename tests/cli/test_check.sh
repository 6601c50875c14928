#!/usr/bin/env bash
# CLI tests for `robotscan check`: formats, stdin vs arguments, exit codes, usage errors.
# Usage: bash tests/cli/test_check.sh ./robotscan SHARED   (SHARED: build/testdata after `make testdata`, or ../shared)
set -u
BIN=${1:-./robotscan}
SHARED=${2:-build/testdata}
. "$(dirname "$0")/lib/helpers.sh"

cat >"$T/robots.txt" <<'R'
User-agent: *
Disallow: /private
Allow: /private/ok
Disallow:

User-agent: FooBot
Disallow: /
R

# --- arguments, TSV, exit 1 when any URL is disallowed
expect_run "tsv args" 1 "$BIN" check --robots "$T/robots.txt" --agent BarBot --format tsv \
    http://e.com/private/x http://e.com/private/ok http://e.com/public
expect_out "tsv args" 'url	verdict	line	rule
http://e.com/private/x	disallow	2	disallow: /private
http://e.com/private/ok	allow	3	allow: /private/ok
http://e.com/public	allow	4	disallow: 
'

# --- exit 0 when everything is allowed
expect_run "all allowed" 0 "$BIN" check --robots "$T/robots.txt" --agent BarBot --format tsv http://e.com/public

# --- stdin, CRLF, empty lines are URLs too, order kept
printf 'http://e.com/private\r\n\nhttp://e.com/a\n' >"$T/urls"
"$BIN" check --robots "$T/robots.txt" --agent foobot --format tsv <"$T/urls" >"$T/out" 2>"$T/err"
[ $? = 1 ] || fail "stdin: exit status"
expect_out "stdin" 'url	verdict	line	rule
http://e.com/private	disallow	7	disallow: /
	disallow	7	disallow: /
http://e.com/a	disallow	7	disallow: /
'

# --- stdin and arguments give the same rows
printf 'http://e.com/private/x\nhttp://e.com/public\n' >"$T/urls2"
"$BIN" check --robots "$T/robots.txt" --agent x --format csv <"$T/urls2" >"$T/stdin.csv"
rc=$?; [ $rc = 1 ] || fail "stdin csv: exit $rc, want 1"
"$BIN" check --robots "$T/robots.txt" --agent x --format csv http://e.com/private/x http://e.com/public >"$T/args.csv"
rc=$?; [ $rc = 1 ] || fail "args csv: exit $rc, want 1"
[ "$(wc -l <"$T/args.csv")" = 3 ] || fail "args csv: want a header and 2 rows: $(cat "$T/args.csv")"
cmp -s "$T/stdin.csv" "$T/args.csv" || fail "stdin and args differ"

# --- csv and jsonl
expect_run "csv" 1 "$BIN" check --robots "$T/robots.txt" --agent x --format csv 'http://e.com/private,x'
expect_out "csv" 'url,verdict,line,rule
"http://e.com/private,x",disallow,2,disallow: /private
'
expect_run "jsonl" 1 "$BIN" check --robots "$T/robots.txt" --agent x --format jsonl http://e.com/private
expect_out "jsonl" '{"url":"http://e.com/private","verdict":"disallow","line":2,"rule":"disallow: /private"}
'

# --- text for people
expect_run "text" 1 "$BIN" check --robots "$T/robots.txt" --agent x --format text http://e.com/private http://e.com/
grep -q '^DISALLOWED  http://e.com/private  (line 2: disallow: /private)$' "$T/out" || fail "text: disallowed row: $(cat "$T/out")"
grep -q '^allowed     http://e.com/  (line 4: disallow: )$' "$T/out" || fail "text: allowed row: $(cat "$T/out")"

# --- default format is tsv on a pipe
"$BIN" check --robots "$T/robots.txt" --agent x http://e.com/ | cat >"$T/pipe.out"
rc=${PIPESTATUS[0]}; [ "$rc" = 0 ] || fail "default format on a pipe: exit $rc"
[ "$(cat "$T/pipe.out")" = $'url\tverdict\tline\trule\nhttp://e.com/\tallow\t4\tdisallow: ' ] \
    || fail "default format on a pipe is not tsv: $(cat "$T/pipe.out")"

# --- --format=VALUE form and --encode-urls
printf 'User-agent: *\nDisallow: /caf%%C3%%A9\n' >"$T/enc.txt"
expect_run "no encode" 0 "$BIN" check --robots "$T/enc.txt" --agent x --format=tsv $'http://e.com/caf\xc3\xa9'
expect_run "encode" 1 "$BIN" check --robots "$T/enc.txt" --agent x --format=tsv --encode-urls $'http://e.com/caf\xc3\xa9'
expect_run "encode lowercase escape" 1 "$BIN" check --robots "$T/enc.txt" --agent x --encode-urls 'http://e.com/caf%c3%a9'

# --- an agent that is not a product token: accepted, warned, globals apply
expect_run "agent not a token" 0 "$BIN" check --robots "$T/robots.txt" --agent FooBot/2.1 --format tsv http://e.com/x
grep -q "did you mean 'FooBot'" "$T/err" || fail "no token suggestion: $(cat "$T/err")"

# --- semantics
printf 'User-agent: *\nDisallow: /\nAllow: /a\n' >"$T/fm.txt"
expect_run "first-match" 1 "$BIN" check --robots "$T/fm.txt" --agent x --semantics first-match http://e.com/a
expect_run "google" 0 "$BIN" check --robots "$T/fm.txt" --agent x --semantics google http://e.com/a

# --- help and version
expect_run "help" 0 "$BIN" check --help
grep -q '^Usage: robotscan check' "$T/out" || fail "check --help on stdout"
expect_run "top help" 0 "$BIN" --help
expect_run "version" 0 "$BIN" --version
grep -q '^robotscan [0-9]' "$T/out" || fail "version text"

# --- bad usage: exit 2, one clear line on stderr
expect_run "no robots" 2 "$BIN" check --agent x http://e.com/
grep -q -- '--robots' "$T/err" || fail "missing --robots not named"
expect_run "no agent" 2 "$BIN" check --robots "$T/robots.txt" http://e.com/
grep -q -- '--agent' "$T/err" || fail "missing --agent not named"
expect_run "unknown flag" 2 "$BIN" check --robots "$T/robots.txt" --agent x --bogus
grep -q 'unknown option --bogus' "$T/err" || fail "unknown flag message"
expect_run "bad format" 2 "$BIN" check --robots "$T/robots.txt" --agent x --format xml
expect_run "value missing" 2 "$BIN" check --robots "$T/robots.txt" --agent
expect_run "unknown command" 2 "$BIN" frobnicate
expect_run "no command" 2 "$BIN"

# --- unreadable robots file: exit 2, names the file
expect_run "missing file" 2 "$BIN" check --robots "$T/nope.txt" --agent x http://e.com/
grep -q "$T/nope.txt" "$T/err" || fail "missing file not named"
expect_run "directory" 2 "$BIN" check --robots "$T" --agent x http://e.com/
grep -q "is a directory" "$T/err" || fail "directory not reported"

# --- --batch: lines ROBOTS<TAB>AGENT<TAB>URL answered as one check per (robots, agent) would
printf 'User-agent: *\nDisallow: /b\n' >"$T/b.txt"
printf '%s\t%s\t%s\n' "$T/robots.txt" FooBot http://e.com/a "$T/robots.txt" BarBot http://e.com/private/x \
    "$T/b.txt" BarBot http://e.com/b "$T/robots.txt" BarBot http://e.com/public >"$T/batch.tsv"
expect_run "batch tsv" 1 "$BIN" check --batch --format tsv "$T/batch.tsv"
expect_out "batch tsv" "robots	agent	url	verdict	line	rule
$T/robots.txt	FooBot	http://e.com/a	disallow	7	disallow: /
$T/robots.txt	BarBot	http://e.com/private/x	disallow	2	disallow: /private
$T/b.txt	BarBot	http://e.com/b	disallow	2	disallow: /b
$T/robots.txt	BarBot	http://e.com/public	allow	4	disallow: 
"
"$BIN" check --batch --format tsv <"$T/batch.tsv" >"$T/batch-stdin.tsv" 2>"$T/err"
rc=$?; [ $rc = 1 ] || fail "batch stdin: exit $rc, want 1"
cmp -s "$T/batch-stdin.tsv" "$T/out" || fail "batch: stdin and file differ"
printf '%s\tBarBot\thttp://e.com/public\r\n' "$T/robots.txt" >"$T/batch-ok.tsv"
expect_run "batch all allowed, CRLF" 0 "$BIN" check --batch --format jsonl "$T/batch-ok.tsv"
expect_out "batch jsonl" "{\"robots\":\"$T/robots.txt\",\"agent\":\"BarBot\",\"url\":\"http://e.com/public\",\"verdict\":\"allow\",\"line\":4,\"rule\":\"disallow: \"}
"
expect_run "batch with --robots" 2 "$BIN" check --batch --robots "$T/robots.txt" "$T/batch.tsv"
grep -q -- '--batch takes no --robots' "$T/err" || fail "batch with --robots: $(cat "$T/err")"
printf '%s\tBarBot\n' "$T/robots.txt" >"$T/batch-bad.tsv"
expect_run "batch line without a URL" 2 "$BIN" check --batch "$T/batch-bad.tsv"
expect_err "batch line without a URL" "batch-bad.tsv:1: not ROBOTS<TAB>AGENT<TAB>URL"
printf '%s\tBarBot\thttp://e.com/\n' "$T/nope.txt" >"$T/batch-missing.tsv"
expect_run "batch missing robots" 2 "$BIN" check --batch "$T/batch-missing.tsv"
grep -q "$T/nope.txt" "$T/err" || fail "batch: missing robots file not named: $(cat "$T/err")"
# every (case, agent) group of a conformance folder: --batch equals one check per group
if [ -f "$SHARED/conformance/seed-examples/cases.tsv" ]; then
    sx=$SHARED/conformance/seed-examples
    awk -F'\t' -v d="$sx" '{ print d "/" $1 ".txt\t" $2 "\t" $3 }' "$sx/cases.tsv" >"$T/seed-batch.tsv"
    "$BIN" check --batch --format tsv "$T/seed-batch.tsv" >"$T/seed-batch.out" 2>"$T/err"
    rc=$?; [ $rc = 0 ] || [ $rc = 1 ] || fail "batch seed-examples: exit $rc: $(head -c 300 "$T/err")"
    : >"$T/seed-groups.out"
    prev= n=0
    while IFS=$'\t' read -r c agent url _; do
        if [ "$c	$agent" != "$prev" ]; then
            if [ -n "$prev" ]; then
                "$BIN" check --robots "$sx/${prev%%	*}.txt" --agent "${prev#*	}" --format tsv <"$T/g.urls" >"$T/g.out" 2>/dev/null
                rc=$?; [ $rc = 0 ] || [ $rc = 1 ] || fail "check group ${prev%%	*}: exit $rc"
                tail -n +2 "$T/g.out" | awk -F'\t' -v OFS='\t' -v r="$sx/${prev%%	*}.txt" -v a="${prev#*	}" \
                    '{ print r, a, $0 }' >>"$T/seed-groups.out"
            fi
            prev="$c	$agent" n=$((n + 1)); : >"$T/g.urls"
        fi
        printf '%s\n' "$url" >>"$T/g.urls"
    done <"$sx/cases.tsv"
    "$BIN" check --robots "$sx/${prev%%	*}.txt" --agent "${prev#*	}" --format tsv <"$T/g.urls" >"$T/g.out" 2>/dev/null
    tail -n +2 "$T/g.out" | awk -F'\t' -v OFS='\t' -v r="$sx/${prev%%	*}.txt" -v a="${prev#*	}" \
        '{ print r, a, $0 }' >>"$T/seed-groups.out"
    [ "$(wc -l <"$T/seed-groups.out")" = "$(wc -l <"$sx/cases.tsv")" ] \
        || fail "batch vs groups: $(wc -l <"$T/seed-groups.out") group rows for $(wc -l <"$sx/cases.tsv") cases"
    [ "$n" -gt 10 ] || fail "batch vs groups: only $n groups"
    tail -n +2 "$T/seed-batch.out" | diff -u "$T/seed-groups.out" - >"$T/diff" \
        || fail "batch differs from one check per group: $(head -20 "$T/diff")"
else
    fail "no $SHARED/conformance/seed-examples (SHARED is the test data directory)"
fi

# --- the real thing: a conformance folder through the binary
if [ -d "$SHARED/conformance/google-unittests" ]; then
    python3 "$SHARED/tools/conformance_check.py" "$SHARED/conformance/google-unittests" --bin "$BIN" >"$T/conf" \
        || fail "conformance: $(tail -3 "$T/conf")"
    grep -Eq '^([1-9][0-9]*)/\1 verdicts, \1/\1 lines agree, 0 runs failed$' "$T/conf" \
        || fail "conformance: $(tail -1 "$T/conf")"
    # the runner itself can fail: a binary that allows everything must not pass
    printf '#!/bin/sh\necho "url\tverdict\tline\trule"\nwhile IFS= read -r u; do printf "%%s\\tallow\\t0\\t\\n" "$u"; done\n' \
        >"$T/allow-all"
    chmod +x "$T/allow-all"
    "$T/allow-all" <<<"http://e.com/x" >"$T/aa.out"
    [ "$(cat "$T/aa.out")" = $'url\tverdict\tline\trule\nhttp://e.com/x\tallow\t0\t' ] || fail "allow-all fake: $(cat -A "$T/aa.out")"
    if python3 "$SHARED/tools/conformance_check.py" "$SHARED/conformance/google-unittests" --bin "$T/allow-all" >"$T/conf"; then
        fail "conformance runner passed a binary that allows everything: $(tail -1 "$T/conf")"
    fi
    # the batch runner (tests/conformance_batch.py, make test-conformance) too: the real
    # binary passes, one that allows everything in --batch's columns does not
    here=$(cd "$(dirname "$0")/.." && pwd)
    python3 "$here/conformance_batch.py" "$SHARED/conformance/google-unittests" --bin "$BIN" >"$T/confb" \
        || fail "batch conformance: $(tail -3 "$T/confb")"
    grep -Eq '^([1-9][0-9]*)/\1 verdicts, \1/\1 lines agree, 0 runs failed$' "$T/confb" \
        || fail "batch conformance: $(tail -1 "$T/confb")"
    printf '#!/bin/sh\nfor f; do :; done\nprintf "robots\\tagent\\turl\\tverdict\\tline\\trule\\n"\nawk -F"\\t" -v OFS="\\t" %s "$f"\n' \
        "'{ print \$1, \$2, \$3, \"allow\", 0, \"\" }'" >"$T/allow-all-batch"
    chmod +x "$T/allow-all-batch"
    printf 'r\ta\thttp://e.com/x\n' >"$T/aab.tsv"
    "$T/allow-all-batch" check --batch --format tsv "$T/aab.tsv" >"$T/aab.out"
    [ "$(cat "$T/aab.out")" = $'robots\tagent\turl\tverdict\tline\trule\nr\ta\thttp://e.com/x\tallow\t0\t' ] \
        || fail "allow-all batch fake: $(cat -A "$T/aab.out")"
    if python3 "$here/conformance_batch.py" "$SHARED/conformance/google-unittests" --bin "$T/allow-all-batch" >"$T/confb"; then
        fail "batch conformance runner passed a binary that allows everything: $(tail -1 "$T/confb")"
    fi
else
    fail "no $SHARED/conformance/google-unittests (SHARED is the test data directory)"
fi

finish
