#!/usr/bin/env bash
# CLI tests for `robotscan logs --memory-limit` (SPEC 7): past a quarter of the budget,
# bot-hit records and sorted runs of crawl-delay entries go to temporary zstd files; the
# output and stats are byte for byte those of an unlimited run, with -j 1 and -j 2, every
# output format, --only and --verify; no temporary file is left behind.
# Usage: bash tests/cli/test_logmemory.sh ./robotscan SHARED_DIR
set -u
BIN=${1:-./robotscan}
SHARED=${2:-build/testdata}
HERE=$(cd "$(dirname "$0")" && pwd)
LOG=$SHARED/data/logs/elastic-apache_logs.log
ROB=$HERE/../logs/semicomplete.com.robots.txt
. "$HERE/lib/helpers.sh"

# 20 copies: 200,000 lines, 42,560 bot hits (~13 MB of TSV records, ~1 MB of crawl-delay
# entries), so a 1 MiB budget spills records many times and writes several runs.
for _ in $(seq 20); do cat "$LOG"; done >"$T/big.log"
mkdir -p "$T/tmp"
A=(logs --robots "$ROB" --host semicomplete.com)
for fmt in tsv jsonl text; do
    for j in 1 2; do
        "$BIN" "${A[@]}" --format "$fmt" -j "$j" --stats "$T/u.json" "$T/big.log" >"$T/u.out" || fail "unlimited $fmt -j $j: exit $?"
        TMPDIR="$T/tmp" "$BIN" "${A[@]}" --format "$fmt" -j "$j" --memory-limit 1M --stats "$T/l.json" "$T/big.log" >"$T/l.out" \
            || fail "--memory-limit 1M $fmt -j $j: exit $?"
        [ "$(wc -l <"$T/u.out")" -gt 40000 ] || fail "$fmt: too few records"
        cmp -s "$T/u.out" "$T/l.out" || fail "$fmt -j $j: output under --memory-limit 1M differs"
        cmp -s <(sed 's/"seconds".*//' "$T/u.json") <(sed 's/"seconds".*//' "$T/l.json") || fail "$fmt -j $j: stats differ"
    done
done
grep -q '"delay_violations":[1-9]' "$T/u.json" || fail "no crawl-delay violations to compare"
for opt in "--only violations" "--quiet" "--verify $SHARED/data/agents/ip-ranges/googlebot.json"; do
    "$BIN" "${A[@]}" --format tsv $opt "$T/big.log" >"$T/u.out" || fail "unlimited $opt: exit $?"
    TMPDIR="$T/tmp" "$BIN" "${A[@]}" --format tsv $opt --memory-limit 2M "$T/big.log" >"$T/l.out" || fail "limited $opt: exit $?"
    cmp -s "$T/u.out" "$T/l.out" || fail "$opt: output under --memory-limit 2M differs"
done
[ -z "$(ls -A "$T/tmp")" ] || fail "temporary files left in TMPDIR: $(ls "$T/tmp" | head -3)"
expect_run "bad --memory-limit" 2 "$BIN" "${A[@]}" --memory-limit 12 "$LOG"
expect_err "bad --memory-limit message" "memory-limit"
expect_run "bad --memory-limit unit" 2 "$BIN" "${A[@]}" --memory-limit 5Q "$LOG"
TMPDIR="$T/none/such" expect_run "unwritable TMPDIR" 2 "$BIN" "${A[@]}" --memory-limit 1M --format tsv "$T/big.log"
expect_err "unwritable TMPDIR message" "temporary file"

finish
