#!/usr/bin/env bash
# run-step.sh - runs one test suite for `make test` and records its outcome in RESULTS:
# "PASS NAME", "FAIL NAME (exit N)", "TIME SECONDS NAME", "LOG NAME PATH", and one
# "SKIP NAME: LINE" per SKIP line the suite printed (a line starting, after blanks, with
# "SKIP:" or "SKIP ", or pytest's "SKIPPED [").
# The suite's output (stdout and stderr: expected error messages included) goes to its log,
# LOGDIR/NAME.log (LOGDIR: RS_TEST_LOGDIR, else RESULTS less .txt plus -logs, e.g.
# build/test-results-logs/cli/test_urls.sh.log; a temporary one for /dev/null); the terminal
# gets one line per suite with its time, its SKIP lines, and on failure the log's last
# lines and its path. RS_TEST_VERBOSE=1 also copies the whole output to the terminal.
# No time limit: a slow or shared machine makes a suite slow, never failed.
# Usage: run-step.sh RESULTS NAME CMD...      exit status: CMD's
#        run-step.sh RESULTS --skip NAME REASON   records and prints one skipped run
# tests/summary.sh RESULTS prints the counts.
set -u
if [ "${2:-}" = --skip ]; then
    printf '  SKIP  %s: %s\n' "$3" "$4"
    printf 'SKIP %s: %s\n' "$3" "$4" >>"$1"
    exit 0
fi
results=$1 name=$2; shift 2
tmpdir=
if [ -n "${RS_TEST_LOGDIR:-}" ]; then
    logdir=$RS_TEST_LOGDIR
elif [ "$results" != /dev/null ]; then
    logdir=${results%.txt}-logs
else
    tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/rs-step.XXXXXX")
    logdir=$tmpdir
    trap 'rm -rf "$tmpdir"' EXIT
fi
mkdir -p "$(dirname "$results")" "$(dirname "$logdir/$name.log")"
log=$logdir/$name.log
start=$EPOCHREALTIME
if [ -n "${RS_TEST_VERBOSE:-}" ]; then
    "$@" </dev/null 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
else
    "$@" </dev/null >"$log" 2>&1
    rc=$?
fi
end=$EPOCHREALTIME
secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
# SKIP lines: "SKIP: ...", "SKIP ..." (tests/cli/lib/helpers.sh, the C tests' stderr) and
# pytest -rs's "SKIPPED [N] ..."
skips=$(grep -aE '^[[:space:]]*SKIP(:|[[:space:]])|^SKIPPED \[' "$log" | sed -E 's/^[[:space:]]*SKIP(PED)?:?[[:space:]]*//')
if [ -n "$skips" ]; then
    while IFS= read -r s; do
        printf 'SKIP %s: %s\n' "$name" "$s" >>"$results"
        printf '  SKIP  %s: %s\n' "$name" "$s"
    done <<<"$skips"
fi
printf 'TIME %s %s\n' "$secs" "$name" >>"$results"
[ -n "$tmpdir" ] || printf 'LOG %s %s\n' "$name" "$log" >>"$results"
if [ "$rc" = 0 ]; then
    echo "PASS $name" >>"$results"
    printf '  ok    %-48s %7s s\n' "$name" "$secs"
else
    echo "FAIL $name (exit $rc)" >>"$results"
    printf '  FAIL  %-48s %7s s   (exit %s)\n' "$name" "$secs" "$rc"
    if [ -z "${RS_TEST_VERBOSE:-}" ]; then
        { grep -a -m 10 -E '(^|[^A-Za-z])FAIL' "$log" || tail -n 15 "$log"; } | cut -c1-300 | sed 's/^/      | /'
        [ -n "$tmpdir" ] || echo "      log: $log"
    fi
fi
exit "$rc"
