#!/usr/bin/env bash
# CLI tests for the scan layer under `robotscan urls` (issue 9): the same bytes on stdout,
# the same diagnostics and statistics, unlimited or under a --memory-limit small enough to
# force many partition runs, with -j 1 / -j 2, from plain, .zst, .gz and stdin; a spill
# directory that cannot be used or fills up; no spill file left after SIGTERM.
# Usage: bash tests/cli/test_scan.sh ./robotscan ../shared
set -u
BIN=${1:-./robotscan}
SHARED=${2:-build/testdata}
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
. "$(dirname "$0")/lib/helpers.sh"

for tool in zstd gzip python3; do
    command -v $tool >/dev/null || { fail "$tool is not installed (scripts/deps.sh installs it)"; finish; }
done

# ----- data: 1,500 synthetic sites over the real files, random order, plus odd lines -----
python3 "$HERE/../../scripts/gen-bench-data" --sites 1500 --urls 60000 --order random \
    --robots "$SHARED/data/robots" --out "$T/data" >/dev/null || fail "gen-bench-data failed"
D=$T/data
ROB=$D/robots
[ "$(ls "$ROB" | wc -l)" = 1500 ] || fail "gen-bench-data: $(ls "$ROB" | wc -l) robots files, want 1500"
{
    head -20000 "$D/urls.txt"
    printf '\n# a comment\n   \nhttp://[bad/x\nnot a url\n  https://s00001.%s/leading-blank\n' \
        "$(ls "$ROB" | sed -n 2p | sed 's/^s[0-9]*\.//; s/\.txt$//')"
    printf 'https://unknown-host.example/x\nHTTPS://S00002.%s/UPPER\n' \
        "$(ls "$ROB" | sed -n 3p | sed 's/^s[0-9]*\.//; s/\.txt$//')"
    head -c 1100000 /dev/zero | tr '\0' a; echo
    tail -n +20001 "$D/urls.txt"
    printf 'http://last.example/no-newline'
} >"$D/in.txt"
zstd -q -f "$D/in.txt" -o "$D/in.txt.zst" || fail "zstd"
gzip -c "$D/in.txt" >"$D/in.txt.gz" || fail "gzip"
N=$(grep -c '' "$D/in.txt")
[ "$N" -gt 60000 ] || fail "input has $N lines"

BASE=("$BIN" urls --robots "$ROB" --agent Googlebot --missing disallow)

# run NAME ARGS... : runs urls with --verbose and --stats; stdout, diagnostics (without the
# timing line) and stats (without timings) into $T/NAME.{out,diag,json}
run() {
    local name=$1; shift
    "${BASE[@]}" --verbose --stats "$T/$name.json" "$@" >"$T/$name.out" 2>"$T/$name.err"
    local rc=$?
    [ $rc = 0 ] || fail "$name: exit $rc: $(head -c 300 "$T/$name.err")"
    grep -v '^time \|^memory limit ' "$T/$name.err" | sed -e 's/^[^ ]*:\([0-9]*\): /line \1: /' -e 's/(first: [^ ]*:\([0-9]*\): /(first: line \1: /' >"$T/$name.diag"
    python3 - "$T/$name.json" <<'PY' || fail "$name: stats unreadable"
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("seconds", "urls_per_second", "inputs", "bytes_in"):
    d.pop(k, None)
json.dump(d, open(sys.argv[1] + ".norm", "w"), sort_keys=True)
PY
}

same() {  # same NAME REF
    cmp -s "$T/$1.out" "$T/$2.out" || fail "$1: stdout differs from $2 ($(wc -c <"$T/$1.out") vs $(wc -c <"$T/$2.out") bytes)"
    cmp -s "$T/$1.diag" "$T/$2.diag" || fail "$1: diagnostics differ from $2: $(diff "$T/$1.diag" "$T/$2.diag" | head -5)"
    cmp -s "$T/$1.json.norm" "$T/$2.json.norm" || fail "$1: statistics differ from $2"
}

run ref --format tsv -j 1 "$D/in.txt"
[ "$(grep -c $'\t' "$T/ref.out")" -gt 59000 ] || fail "ref: only $(wc -l <"$T/ref.out") records"
grep -q 'too long for a URL' "$T/ref.diag" || fail "ref: the oversized line was not reported"
grep -q 'malformed URL' "$T/ref.diag" || fail "ref: no malformed line reported"
grep -q $'\tno-robots$' "$T/ref.out" || fail "ref: no no-robots record"

run j2 --format tsv -j 2 "$D/in.txt";                         same j2 ref
run lim --format tsv -j 1 --memory-limit 1M "$D/in.txt";      same lim ref
ev=$(sed -n 's/.* \([0-9]*\) evictions.*/\1/p' "$T/lim.err")
[ "${ev:-0}" -gt 1 ] || fail "lim: --memory-limit 1M did not force evictions: $(grep 'memory limit' "$T/lim.err")"
run lim_j2 --format tsv -j 2 --memory-limit 1M "$D/in.txt";   same lim_j2 ref
run zst --format tsv -j 2 "$D/in.txt.zst";                    same zst ref
run zst_lim --format tsv --memory-limit 2M "$D/in.txt.zst";   same zst_lim ref
run gz --format tsv "$D/in.txt.gz";                           same gz ref
run gz_lim --format tsv --memory-limit 1M "$D/in.txt.gz";     same gz_lim ref
run stdin --format tsv - <"$D/in.txt";                        same stdin ref
"${BASE[@]}" --verbose --stats "$T/stdin_lim.json" --format tsv --memory-limit 1M <"$D/in.txt" \
    >"$T/stdin_lim.out" 2>"$T/stdin_lim.err" || fail "stdin_lim: exit $?"
grep -v '^time \|^memory limit ' "$T/stdin_lim.err" >"$T/stdin_lim.diag"
cmp -s "$T/stdin_lim.out" "$T/ref.out" || fail "stdin_lim: stdout differs"
run jref --format jsonl "$D/in.txt"
run jlim --format jsonl --memory-limit 1M "$D/in.txt";        same jlim jref
run qref --quiet "$D/in.txt"
grep -v '^time ' "$T/qref.out" >"$T/qref.out2"; mv "$T/qref.out2" "$T/qref.out"
run qlim --quiet --memory-limit 1M "$D/in.txt"
grep -v '^time ' "$T/qlim.out" >"$T/qlim.out2"; mv "$T/qlim.out2" "$T/qlim.out"
same qlim qref
# two inputs in one run: output of the first, then the second
run two --format tsv "$D/in.txt" "$D/in.txt.zst"
run two_lim --format tsv --memory-limit 1M "$D/in.txt" "$D/in.txt.zst"; same two_lim two

# ----- bad spill directory: exit 2 naming it, nothing on stdout -----
expect_run "TMPDIR missing" 2 env TMPDIR="$T/nonexistent" "${BASE[@]}" --memory-limit 1M "$D/in.txt"
expect_err "TMPDIR missing" "spill file in $T/nonexistent"
[ -s "$T/out" ] && fail "TMPDIR missing: wrote to stdout"
: >"$T/plainfile"
expect_run "TMPDIR a file" 2 env TMPDIR="$T/plainfile" "${BASE[@]}" --memory-limit 1M "$D/in.txt"
expect_err "TMPDIR a file" "spill file in $T/plainfile"
# a spill directory that fills up: a file size limit (SIGXFSZ ignored, so writes fail)
mkdir -p "$T/full"
( trap '' XFSZ; ulimit -f 2; exec env TMPDIR="$T/full" "${BASE[@]}" --format tsv --memory-limit 1M "$D/in.txt" ) \
    >/dev/null 2>"$T/full.err"
rc=$?
[ $rc = 2 ] || fail "full spill dir: exit $rc, want 2 ($(head -c 300 "$T/full.err"))"
grep -q "cannot write a spill file in $T/full" "$T/full.err" || fail "full spill dir: stderr: $(head -c 300 "$T/full.err")"
[ -z "$(ls -A "$T/full")" ] || fail "full spill dir: files left: $(ls -A "$T/full")"

# ----- SIGTERM while spilling: the spill files exist (open, unlinked) and vanish with the process -----
mkdir -p "$T/spill"
mkfifo "$T/fifo"
env TMPDIR="$T/spill" "${BASE[@]}" --quiet --memory-limit 1M "$T/fifo" >/dev/null 2>&1 &
pid=$!
exec 7>"$T/fifo"
cat "$D/in.txt" "$D/in.txt" >&7   # more than a 4 MiB block: the run has gone on to partitions
sleep 0.5
nspill=$(ls -l /proc/$pid/fd 2>/dev/null | grep -c "$T/spill")
[ "$nspill" -ge 16 ] || fail "SIGTERM: $nspill spill files open in $T/spill, want >= 16"
[ -z "$(ls -A "$T/spill")" ] || fail "SIGTERM: spill files visible while running: $(ls -A "$T/spill")"
kill -TERM $pid
exec 7>&-
wait $pid 2>/dev/null
[ -z "$(ls -A "$T/spill")" ] || fail "SIGTERM: spill files left: $(ls -A "$T/spill")"

# ----- option parsing -----
expect_run "bad --memory-limit" 2 "${BASE[@]}" --memory-limit 12x "$D/in.txt"
expect_err "bad --memory-limit" "memory-limit"
expect_run "too small --memory-limit" 2 "${BASE[@]}" --memory-limit 1000 "$D/in.txt"

finish
