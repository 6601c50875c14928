#!/usr/bin/env bash
# test_shard_w3c.sh ROBOTSCAN SHARED_DIR: `shard` over W3C-style logs (w3c, cloudfront, and
# both read as auto): the elastic log converted (tests/logs_convert.py) for six sites,
# interleaved line by line (4 shards), with the #Fields: line changed mid-file (columns reordered);
# shard + logs on each shard + merge equal one run: records byte for byte, stats count for
# count (tests/scale/stats_equal.py), the #Fields: copies taken off by merge --stats --shards.
R=${1:-./robotscan}
S=${2:-build/testdata}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/helpers.sh"
EQ="/usr/bin/python3 $here/../scale/stats_equal.py"
CONVERT=$here/../logs_convert.py
D=$S/data

hosts=$(ls "$D/robots" | grep '\.txt$' | head -6 | sed 's/\.txt$//')
for f in w3c cloudfront; do
    for h in $hosts; do
        python3 "$CONVERT" "$D/logs/elastic-apache_logs.log" "$h" "$f" "$T/$h.$f" || fail "convert $f $h"
    done
    # interleave the sites' records under the first header; at the middle, a #Fields: line
    # with the columns in reverse order, and the records after it rewritten to match
    /usr/bin/python3 - "$f" "$T/in.$f" $(for h in $hosts; do echo "$T/$h.$f"; done) <<'PY' || fail "build $f input"
import sys
fmt, out, srcs = sys.argv[1], sys.argv[2], sys.argv[3:]
sep = "\t" if fmt == "cloudfront" else " "
heads, bodies = [], []
for s in srcs:
    lines = open(s, encoding="utf-8", errors="surrogateescape").read().split("\n")
    if lines and lines[-1] == "": lines.pop()
    heads.append([l for l in lines if l.startswith("#")])
    bodies.append([l for l in lines if not l.startswith("#")])
fields = [l for l in heads[0] if l.startswith("#Fields:")][0]
cols = fields[len("#Fields:"):].split()
rows = [l for group in zip(*bodies) for l in group]
half = len(rows) // 2
res = heads[0] + rows[:half] + ["#Version: 1.0", "#Fields: " + " ".join(reversed(cols))]
for l in rows[half:]:
    v = l.split(sep)
    res.append(sep.join(reversed(v)) if len(v) == len(cols) else l)  # a truncated line stays bad
open(out, "w", encoding="utf-8", errors="surrogateescape").write("\n".join(res) + "\n")
PY
    for lf in $f auto; do
        name="$f as $lf"
        expect_run "$name single" 0 "$R" logs --robots "$D/robots" --log-format "$lf" --format tsv \
            --stats "$T/single.json" "$T/in.$f"
        cp "$T/out" "$T/single.tsv"
        [ "$(wc -l < "$T/single.tsv")" -gt 1000 ] || fail "$name: single run too small"
        # both halves are read (the reordered one too): 6 x 2128 bot hits, few malformed lines
        /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not (d["bot_hits"] == 6 * 2128 and d["malformed"] < 50))' \
            "$T/single.json" || fail "$name: the run did not read every record: $(head -c 300 "$T/single.json")"
        rm -rf "$T/sh"
        expect_run "$name shard" 0 "$R" shard -n 4 --out "$T/sh" --log-format "$lf" --robots "$D/robots" "$T/in.$f"
        resolved=$(awk -F'\t' '$1=="log_format" {print $2}' "$T/sh/shards.tsv")
        [ "$resolved" = "$f" ] || fail "$name: shards.tsv log_format is '$resolved', not $f"
        copies=$(awk -F'\t' '$1=="header_copies" {print $2}' "$T/sh/shards.tsv")
        [ "${copies:-0}" -ge 4 ] || fail "$name: only '${copies}' #Fields: copies: the test does not exercise them"
        outs=(); stats=()
        for k in 0 1 2 3; do
            p=$(printf '%s/shard-%04d' "$T/sh" "$k")
            [ "$(zstd -dc "$p.zst" | grep -vc '^#')" -gt 1000 ] || fail "$name: shard $k holds too few records"
            expect_run "$name shard $k" 0 "$R" logs --robots "$(cat "$p.robots")" --log-format "$resolved" \
                --format tsv --input-line --stats "$p.json" "$p.zst"
            cp "$T/out" "$p.out"; outs+=("$p.out"); stats+=("$p.json")
        done
        expect_run "$name merge --records" 0 "$R" merge --records --shards "$T/sh" --format tsv "${outs[@]}"
        cmp -s "$T/out" "$T/single.tsv" || fail "$name: merged records differ: $(diff "$T/single.tsv" "$T/out" | head -3)"
        expect_run "$name merge --stats" 0 "$R" merge --stats --shards "$T/sh" "${stats[@]}"
        # one run with auto names the format auto; the shards ran with what shard settled
        sed "s/\"log_format\":\"$lf\"/\"log_format\":\"$resolved\"/" "$T/single.json" > "$T/single-n.json"
        $EQ "$T/single-n.json" "$T/out" > "$T/eq" || fail "$name: merged stats differ: $(cat "$T/eq")"
        # without --shards the copies stay counted: the check sees it
        expect_run "$name merge --stats (no --shards)" 0 "$R" merge --stats "${stats[@]}"
        $EQ "$T/single-n.json" "$T/out" > /dev/null && fail "$name: the #Fields: copies make no difference"
        grep -q '"violations":[1-9]' "$T/single.json" || fail "$name: no violations in the run"
    done
done
finish
