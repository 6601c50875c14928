#!/usr/bin/env bash
# CLI tests of `urls` past its memory budget (issue 9, item 2): the run switches to partitions
# by itself (from the first block, or mid-input once the hosts seen would not fit), the
# partitions run on -j N workers, a partition with more hosts than the budget holds is run
# with evictions inside it; stdout, diagnostics and statistics are the same bytes as an
# unlimited run (--memory-limit none) whatever the path, -j and the input form
# (plain/.zst/.gz/stdin). Spill files are gone after an error and after SIGTERM during a
# partitioned -j 2 run. (tests/cli/test_scan.sh has the first checks of --memory-limit;
# these extend them.)
# Usage: bash tests/cli/test_partition.sh ./robotscan build/testdata
set -u
BIN=${1:-./robotscan}
SHARED=${2:-build/testdata}
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
. "$(dirname "$0")/lib/helpers.sh"

for tool in zstd gzip python3; do
    command -v $tool >/dev/null || { fail "$tool is not installed (scripts/deps.sh installs it)"; finish; }
done

# ----- data: 800 synthetic sites, random order; a sorted head over 5 hosts (> one 4 MiB
# block, so a gate admits it), then random URLs, 12,000 hosts no source knows, odd lines -----
python3 "$HERE/../../scripts/gen-bench-data" --sites 800 --urls 40000 --order random \
    --robots "$SHARED/data/robots" --out "$T/data" >/dev/null || fail "gen-bench-data failed"
D=$T/data
ROB=$D/robots
[ "$(ls "$ROB" | wc -l)" = 800 ] || fail "gen-bench-data: $(ls "$ROB" | wc -l) robots files, want 800"
H1=$(ls "$ROB" | sed -n 1p | sed 's/\.txt$//')
{
    for h in $(ls "$ROB" | head -5 | sed 's/\.txt$//'); do
        for i in $(seq 1 3); do sed "s#^https\?://[^/]*#https://$h#" "$D/urls.txt"; done
    done | head -110000
    printf '\n# a comment\nhttp://[bad/x\nnot a url\n  https://%s/leading-blank\nHTTPS://%s/UPPER\n' "$H1" "${H1^^}"
    cat "$D/urls.txt"
    awk 'BEGIN { for (i = 0; i < 12000; i++) printf "https://u%05d.unknown.example/p%d\n", i, i }'
    head -c 1100000 /dev/zero | tr '\0' a; echo
    tail -n 5000 "$D/urls.txt"
    printf 'http://last.example/no-newline'
} >"$D/in.txt"
zstd -q -f "$D/in.txt" -o "$D/in.txt.zst" || fail "zstd"
gzip -c "$D/in.txt" >"$D/in.txt.gz" || fail "gzip"
SIZE=$(wc -c <"$D/in.txt")
[ "$SIZE" -gt $((8 << 20)) ] || fail "input has only $SIZE bytes (want > 8 MiB: the gate must admit a block first)"

BASE=("$BIN" urls --robots "$ROB" --agent Googlebot --agent GPTBot --missing disallow)

# run NAME ARGS... : urls with --verbose --stats; $T/NAME.{out,diag,json.norm,mem}
run() {
    local name=$1; shift
    "${BASE[@]}" --verbose --stats "$T/$name.json" "$@" >"$T/$name.out" 2>"$T/$name.err"
    local rc=$?
    [ $rc = 0 ] || fail "$name: exit $rc: $(head -c 300 "$T/$name.err")"
    grep '^memory limit ' "$T/$name.err" >"$T/$name.mem"
    grep -v '^time \|^memory limit ' "$T/$name.err" \
        | sed -e 's/^[^ ]*:\([0-9]*\): /line \1: /' -e 's/(first: [^ ]*:\([0-9]*\): /(first: line \1: /' >"$T/$name.diag"
    python3 - "$T/$name.json" <<'PY' || fail "$name: stats unreadable"
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("seconds", "urls_per_second", "inputs", "bytes_in"):
    d.pop(k, None)
json.dump(d, open(sys.argv[1] + ".norm", "w"), sort_keys=True)
PY
}

same() {  # same NAME REF
    expect_nonempty "$1" "$T/$1.out" "$T/$1.diag"
    cmp -s "$T/$1.out" "$T/$2.out" || fail "$1: stdout differs from $2 ($(wc -c <"$T/$1.out") vs $(wc -c <"$T/$2.out") bytes)"
    cmp -s "$T/$1.diag" "$T/$2.diag" || fail "$1: diagnostics differ from $2: $(diff "$T/$1.diag" "$T/$2.diag" | head -5)"
    cmp -s "$T/$1.json.norm" "$T/$2.json.norm" || fail "$1: statistics differ from $2"
}

# mem NAME FIELD : a number of the "memory limit" line (partitioned from FILE:LINE, N partitions, ...)
mem() {
    case $2 in
    line) sed -n 's/.*partitioned from [^ ]*:\([0-9]*\) on.*/\1/p' "$T/$1.mem" ;;
    *) sed -n "s/.* \\([0-9]*\\) $2.*/\\1/p" "$T/$1.mem" ;;
    esac
}

# partitioned NAME : the run went to partitions
partitioned() { [ -s "$T/$1.mem" ] || fail "$1: not partitioned (no 'memory limit' line)"; }

# ----- the reference: unlimited (no gate, no partitions) -----
run ref --format tsv --memory-limit none -j 1 "$D/in.txt"
[ -s "$T/ref.mem" ] && fail "ref: --memory-limit none partitioned: $(cat "$T/ref.mem")"
[ "$(grep -c $'\t' "$T/ref.out")" -gt 300000 ] || fail "ref: only $(wc -l <"$T/ref.out") records"
grep -q $'\tGPTBot\t' "$T/ref.out" || fail "ref: no GPTBot record"
grep -q 'too long for a URL' "$T/ref.diag" || fail "ref: the oversized line was not reported"
grep -q 'malformed URL' "$T/ref.diag" || fail "ref: no malformed line reported"
grep -q $'\tno-robots$' "$T/ref.out" || fail "ref: no no-robots record"

# ----- the default budget (1 GiB) holds 800 sites: no gate, no partitions -----
run default --format tsv -j 2 "$D/in.txt";                        same default ref
[ -s "$T/default.mem" ] && fail "default: 800 sites were partitioned: $(cat "$T/default.mem")"

# ----- a budget the first block fits and a later one does not: switched mid-input -----
for j in 1 2; do
    run mid_j$j --format tsv -j $j --memory-limit 2M "$D/in.txt";   same mid_j$j ref
    partitioned mid_j$j
    l=$(mem mid_j$j line)
    [ "${l:-0}" -gt 1 ] || fail "mid_j$j: switched at line '${l:-}', want past the first block: $(cat "$T/mid_j$j.mem")"
done
w=$(mem mid_j2 workers)
[ "${w:-0}" = 2 ] || fail "mid_j2: ${w:-?} workers, want 2: $(cat "$T/mid_j2.mem")"

# ----- a budget of 1 MiB: partitioned from line 1, evictions inside partitions too big for a share -----
for j in 1 2; do
    run small_j$j --format tsv -j $j --memory-limit 1M "$D/in.txt";   same small_j$j ref
    partitioned small_j$j
    p=$(mem small_j$j partitions); e=$(mem small_j$j evictions)
    [ "${e:-0}" -gt "${p:-0}" ] || fail "small_j$j: ${e:-?} evictions for ${p:-?} partitions: none inside a partition"
done

# spills zstd-compressed by default (frames from every splitting thread); stored as
# written with RS_SPILL=stored (benchmarks): both give the reference's output
grep -q '(zstd)' "$T/small_j2.mem" || fail "small_j2: spills not zstd: $(cat "$T/small_j2.mem")"
RS_SPILL=stored run stored_j2 --format tsv -j 2 --memory-limit 1M "$D/in.txt";   same stored_j2 ref
grep -q '(stored)' "$T/stored_j2.mem" || fail "stored_j2: spills not stored: $(cat "$T/stored_j2.mem")"

# a random first block over 800 hosts does not fit 1 MiB: partitioned from line 1
run rnd_ref --format tsv --memory-limit none "$D/urls.txt"
run rnd --format tsv -j 2 --memory-limit 1M "$D/urls.txt";        same rnd rnd_ref
[ "$(mem rnd line)" = 1 ] || fail "rnd: not partitioned from line 1: $(cat "$T/rnd.mem")"

# ----- input forms, output formats, several inputs -----
run zst_j2 --format tsv -j 2 --memory-limit 2M "$D/in.txt.zst";    same zst_j2 ref;  partitioned zst_j2
run gz_j1 --format tsv -j 1 --memory-limit 1M "$D/in.txt.gz";      same gz_j1 ref;   partitioned gz_j1
"${BASE[@]}" --verbose --stats "$T/stdin_j2.json" --format tsv -j 2 --memory-limit 2M - <"$D/in.txt" \
    >"$T/stdin_j2.out" 2>"$T/stdin_j2.err" || fail "stdin_j2: exit $?"
cmp -s "$T/stdin_j2.out" "$T/ref.out" || fail "stdin_j2: stdout differs from ref"
grep -q '^memory limit .*partitioned from (stdin):' "$T/stdin_j2.err" || fail "stdin_j2: not partitioned"
run jref --format jsonl --memory-limit none "$D/in.txt"
run jlim --format jsonl -j 2 --memory-limit 2M "$D/in.txt";        same jlim jref;   partitioned jlim
run qref --quiet --memory-limit none "$D/in.txt"
run qlim --quiet -j 2 --memory-limit 1M "$D/in.txt";               partitioned qlim
for n in qref qlim; do grep -v '^time ' "$T/$n.out" >"$T/$n.o2"; mv "$T/$n.o2" "$T/$n.out"; done
same qlim qref
# two inputs: the second runs in partitions from its start once the first switched
run two --format tsv --memory-limit none "$D/in.txt" "$D/in.txt.zst"
run two_lim --format tsv -j 2 --memory-limit 2M "$D/in.txt" "$D/in.txt.zst"; same two_lim two

# ----- spill directory errors after the switch: exit 2 naming it, no summary, nothing left -----
mkdir -p "$T/full"
( trap '' XFSZ; ulimit -f 16; exec env TMPDIR="$T/full" "${BASE[@]}" --quiet -j 2 --memory-limit 2M "$D/in.txt" ) \
    >"$T/full.out" 2>"$T/full.err"
rc=$?
[ $rc = 2 ] || fail "full spill dir: exit $rc, want 2 ($(head -c 300 "$T/full.err"))"
grep -q "spill file in $T/full" "$T/full.err" || fail "full spill dir: stderr: $(head -c 300 "$T/full.err")"
grep -q '^lines ' "$T/full.out" && fail "full spill dir: a summary was printed: $(head -2 "$T/full.out")"
[ -z "$(ls -A "$T/full")" ] || fail "full spill dir: files left: $(ls -A "$T/full")"
expect_run "TMPDIR missing, mid-input" 2 env TMPDIR="$T/nonexistent" "${BASE[@]}" --quiet --memory-limit 2M "$D/in.txt"
expect_err "TMPDIR missing, mid-input" "spill file in $T/nonexistent"
grep -q '^lines ' "$T/out" && fail "TMPDIR missing, mid-input: a summary was printed"

# ----- SIGTERM during a partitioned -j 2 run (its spill files open): no spill file left -----
mkdir -p "$T/spill"
env TMPDIR="$T/spill" "${BASE[@]}" --quiet -j 2 --memory-limit 1M "$D/in.txt" "$D/in.txt" "$D/in.txt" \
    >/dev/null 2>&1 &
pid=$!
seen=0
for _ in $(seq 1 100); do      # until spill files are open (the partitions exist)
    n=$(ls -l /proc/$pid/fd 2>/dev/null | grep -c "$T/spill")
    [ "$n" -ge 16 ] && { seen=1; break; }
    sleep 0.05
done
[ $seen = 1 ] || fail "SIGTERM: no spill files open in $T/spill"
[ -z "$(ls -A "$T/spill")" ] || fail "SIGTERM: spill files visible while running: $(ls -A "$T/spill")"
kill -TERM $pid 2>/dev/null
wait $pid 2>/dev/null
rc=$?
[ $rc = 143 ] || fail "SIGTERM: exit $rc, want 143 (it had ended before the signal?)"
[ -z "$(ls -A "$T/spill")" ] || fail "SIGTERM: spill files left: $(ls -A "$T/spill")"

# ----- options -----
expect_run "--memory-limit 0" 2 "${BASE[@]}" --memory-limit 0 "$D/in.txt"
expect_err "--memory-limit 0" "memory-limit .*none"
expect_ok "--help" "$BIN" urls --help
grep -q 'default 1G' "$T/out" || fail "--help does not give the default budget"

finish
