#!/usr/bin/env bash
# summary.sh - the end of `make test`: failed suites, skipped runs, then the last line
# "N passed, N failed, N skipped" (suites passed and failed; SKIP lines).
# Usage: summary.sh RESULTS        exit 1 when a suite failed or nothing ran
set -u
r=$1
[ -f "$r" ] || { echo "summary: no results in $r"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
passed=$(grep -c '^PASS ' "$r")
failed=$(grep -c '^FAIL ' "$r")
skipped=$(grep -c '^SKIP ' "$r")
echo
echo "== summary ($r)"
grep '^FAIL ' "$r"
grep '^SKIP ' "$r"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
