#!/usr/bin/env bash
# run-step.sh - runs one test suite for `make test`, shows its output, and records the
# outcome in RESULTS: "PASS NAME", "FAIL NAME (exit N)", and one "SKIP NAME: LINE" per
# SKIP line the suite printed (a line starting, after blanks, with "SKIP:" or "SKIP ").
# Usage: run-step.sh RESULTS NAME CMD...      exit status: CMD's
#        run-step.sh RESULTS --skip NAME REASON   records and prints one skipped run
# tests/summary.sh RESULTS prints the counts.
set -u
if [ "${2:-}" = --skip ]; then
    printf 'SKIP: %s: %s\n' "$3" "$4"
    printf 'SKIP %s: %s\n' "$3" "$4" >>"$1"
    exit 0
fi
results=$1 name=$2; shift 2
mkdir -p "$(dirname "$results")"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
grep -aE '^[[:space:]]*SKIP(:|[[:space:]])' "$log" | sed -E "s/^[[:space:]]*SKIP:?[[:space:]]*/SKIP $(printf '%s' "$name" | sed 's/[&/\]/\\&/g'): /" >>"$results"
if [ "$rc" = 0 ]; then
    echo "PASS $name" >>"$results"
else
    echo "FAIL $name (exit $rc)" >>"$results"
    echo "FAIL: $name (exit $rc)"
fi
exit "$rc"
