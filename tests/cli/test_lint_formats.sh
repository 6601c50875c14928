#!/usr/bin/env bash
# CLI tests for lint's machine formats: --format tsv/csv (a header row, one finding
# per row), JSONL numbers as JSON numbers (line, rank, and groups as an array).
# Usage: bash tests/cli/test_lint_formats.sh ./robotscan [SHARED]   (SHARED is not needed)
set -u
BIN=${1:-./robotscan}
. "$(dirname "$0")/lib/helpers.sh"

printf 'User-agent: a\nUser-agent: *\nDisalow: /x\n\nUser-agent: *\nAllow: /y\n' >"$T/r.txt"
printf 'User-agent: *\nDisallow: /\n' >"$T/clean.txt"

expect_run "tsv" 1 "$BIN" lint --format tsv "$T/r.txt" "$T/clean.txt"
expect_out "tsv" "file	line	severity	code	message
$T/r.txt	3	warning	typo-key	\"Disalow\" read as disallow (accepted typo)
"
expect_run "csv" 1 "$BIN" lint --format csv "$T/r.txt"
expect_out "csv" "file,line,severity,code,message
$T/r.txt,3,warning,typo-key,\"\"\"Disalow\"\" read as disallow (accepted typo)\"
"
expect_run "tsv clean" 0 "$BIN" lint --format tsv "$T/clean.txt"
expect_out "tsv clean" "file	line	severity	code	message
"
expect_run "tsv --agent" 2 "$BIN" lint --format tsv --agent x "$T/r.txt"
expect_err "tsv --agent" "use --format text or jsonl with --agent"

# JSONL: every line parses; line, rank are numbers; groups is an array of numbers.
expect_run "jsonl" 1 "$BIN" lint --format jsonl --agent zz "$T/r.txt"
python3 - "$T/out" <<'PY' || fail "jsonl: $(cat "$T/out")"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 3, rows
f, r1, r2 = rows
assert f["line"] == 3 and f["code"] == "typo-key", f
assert r1["groups"] == [1, 5] and r1["rank"] == 1 and r1["line"] == 6 and r1["rule"] == "allow: /y", r1
assert r2["rank"] == 2 and r2["line"] == 3 and r2["rule"] == "disallow: /x", r2
for r in rows:
    for k in ("line", "rank"):
        if k in r:
            assert type(r[k]) is int, (k, r)
PY
expect_run "jsonl none" 1 "$BIN" lint --format jsonl --agent zz /dev/null
python3 -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1])][-1]; assert r["groups"]==[] and r["rank"]==0, r' "$T/out" \
    || fail "jsonl none: $(cat "$T/out")"

finish
