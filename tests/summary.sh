#!/usr/bin/env bash
# summary.sh - the end of `make test`: the slowest suites, skipped runs, failed suites with
# their logs, then the last line "N passed, N failed, N skipped" (suites passed and failed;
# SKIP lines), alone on its line.
# Usage: summary.sh RESULTS [START]   exit 1 when a suite failed or nothing ran
# START (seconds since the epoch): the run's start, to print its wall time.
set -u
r=$1
[ -f "$r" ] || { echo "summary: no results in $r"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
passed=$(grep -c '^PASS ' "$r")
failed=$(grep -c '^FAIL ' "$r")
skipped=$(grep -c '^SKIP ' "$r")
echo
echo "== summary ($r)"
if grep -q '^TIME ' "$r"; then
    echo "slowest suites (s):"
    grep '^TIME ' "$r" | sort -k2,2 -g -r | head -n 5 | awk '{ printf "  %7s  %s\n", $2, $3 }'
    grep '^TIME ' "$r" | awk '{ t += $2 } END { printf "  %7.1f  all %d suites, one after another\n", t, NR }'
fi
grep '^SKIP ' "$r"
[ -z "${2:-}" ] || echo "wall time: $(( $(date +%s) - $2 )) s"
grep '^FAIL ' "$r" | while IFS= read -r line; do
    name=${line#FAIL }; name=${name%% (exit*}
    log=$(awk -v n="$name" '$1 == "LOG" && $2 == n { print $3 }' "$r" | tail -n 1)
    echo "$line${log:+: log $log}"
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
