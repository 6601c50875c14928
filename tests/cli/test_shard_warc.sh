#!/usr/bin/env bash
# test_shard_warc.sh ROBOTSCAN SHARED_DIR: `shard --robots X.warc(.gz|.zst)` gives each shard a
# WARC with only its sites' captures (and the redirect targets they reach, of any origin):
# shard + urls on each shard + merge equal one run (records byte for byte, stats count for
# count) for the SPEC 3 fixture cases (tests/warc_fixtures.py: redirects across origins,
# loops, 5 hops, superseded captures) in gzip-per-record, plain and one-frame zstd, and
# for the real robots files packed as a WARC; the shards' WARCs sum to about the
# original's size, not N times it.
R=${1:-./robotscan}
S=${2:-build/testdata}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/helpers.sh"
EQ="/usr/bin/python3 $here/../scale/stats_equal.py"
FIX=$here/../warc_fixtures.py
D=$S/data

python3 "$FIX" cases "$T/f" > /dev/null || fail "warc_fixtures.py cases"
python3 "$FIX" pack "$D/robots" "$T/real" > /dev/null || fail "warc_fixtures.py pack"
cut -f1 "$T/f/expect.tsv" > "$T/cases-urls.txt"
zstd -q "$T/f/cases.warc" -o "$T/f/cases.warc.zst" || fail "zstd"

# run NAME N WARC URLS REF: single vs shard + per-shard urls + merge; the shards' WARCs
# (gzip per record) must weigh at most 1.5 x REF (the same records, gzip per record)
run() {
    local name=$1 n=$2 warc=$3 urls=$4 ref=$5
    expect_run "$name single" 0 "$R" urls --robots "$warc" --agent FooBot --agent Googlebot --format tsv \
        --stats "$T/single.json" "$urls"
    cp "$T/out" "$T/single.tsv"
    [ "$(wc -l < "$T/single.tsv")" -gt 10 ] || fail "$name: single run too small"
    rm -rf "$T/sh"
    expect_run "$name shard" 0 "$R" shard -n "$n" --out "$T/sh" --robots "$warc" "$urls"
    local outs=() stats=() k size=0 nonempty=0
    for ((k = 0; k < n; k++)); do
        local p
        p=$(printf '%s/shard-%04d' "$T/sh" "$k")
        local w
        w=$(cat "$p.robots")
        case "$w" in *"/robots-$(printf %04d "$k")/S0.warc.gz") ;; *) fail "$name: shard $k reads $w, not its own WARC" ;; esac
        size=$((size + $(stat -c %s "$w")))
        expect_run "$name shard $k" 0 "$R" urls --robots "$w" --agent FooBot --agent Googlebot --format tsv \
            --input-line --stats "$p.json" "$p.zst"
        cp "$T/out" "$p.out"; outs+=("$p.out"); stats+=("$p.json")
        [ "$(tail -n +2 "$p.out" | wc -l)" -gt 0 ] && nonempty=$((nonempty + 1))
    done
    [ "$nonempty" -ge 2 ] || fail "$name: only $nonempty shards hold URLs: the test does not split the work"
    expect_run "$name merge --records" 0 "$R" merge --records --shards "$T/sh" --format tsv "${outs[@]}"
    cmp -s "$T/out" "$T/single.tsv" || fail "$name: merged records differ: $(diff "$T/single.tsv" "$T/out" | head -5)"
    expect_run "$name merge --stats" 0 "$R" merge --stats "${stats[@]}"
    $EQ "$T/single.json" "$T/out" > "$T/eq" || fail "$name: merged stats differ: $(cat "$T/eq")"
    local orig
    orig=$(stat -c %s "$ref")
    [ $((size * 10)) -le $((orig * 15)) ] || fail "$name: the shards' WARCs weigh $size bytes, the original $orig"
    echo "$name: $n shards, WARCs $size bytes in all vs $orig for the original (gzip per record)"
}
run "cases warc.gz" 4 "$T/f/cases.warc.gz" "$T/cases-urls.txt" "$T/f/cases.warc.gz"
run "cases plain" 3 "$T/f/cases.warc" "$T/cases-urls.txt" "$T/f/cases.warc.gz"
run "cases zstd" 5 "$T/f/cases.warc.zst" "$T/cases-urls.txt" "$T/f/cases.warc.gz"
run "real warc.gz" 4 "$T/real/real.warc.gz" "$T/real/real-urls.txt" "$T/real/real.warc.gz"

# the cross-origin redirect: moved.example's shard holds www.moved.example's capture
rm -rf "$T/sh"
expect_run "redirect shard" 0 "$R" shard -n 4 --out "$T/sh" --robots "$T/f/cases.warc.gz" "$T/cases-urls.txt"
k=$(for k in 0 1 2 3; do zstd -dc "$T/sh/shard-000$k.zst" | grep -q '^http://moved\.example/' && echo $k; done)
[ -n "$k" ] || fail "redirect: no shard holds moved.example"
zcat "$T/sh/robots-000$k/S0.warc.gz" | grep -q '^WARC-Target-URI: https://www.moved.example/robots.txt' \
    || fail "redirect: shard $k lacks the capture moved.example redirects to"

finish
