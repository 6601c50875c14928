#!/usr/bin/env bash
# test_shard.sh ROBOTSCAN SHARED_DIR: robotscan shard + urls/logs --input-line + merge
# equal one run (records byte for byte in tsv, csv and jsonl; stats count for count),
# robots sources split per shard, the hash stable, and merge's errors.
R=${1:-./robotscan}
S=${2:-build/testdata}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/helpers.sh"
EQ="/usr/bin/python3 $here/../scale/stats_equal.py"
D=$S/data

# input: real URL lists plus a blank, a comment, a malformed, a CRLF and an IDN line
cat "$D"/urls/*.txt > "$T/in.txt"
printf '\n# comment\nnot a url\r\nhttps://M\xc3\xbcller.EU/x\r\nhttps://xn--mller-kva.eu:443/y\n' >> "$T/in.txt"
head -5000 "$T/in.txt" > "$T/in2.txt"
# a directory source with the HOST_PORT, HOST/robots.txt and compressed entry forms
mkdir -p "$T/d/sub.example" && printf 'User-agent: *\nDisallow: /p\n' > "$T/d/sub.example/robots.txt"
printf 'User-agent: Googlebot\nDisallow: /q\n' > "$T/d/port.example_8080.txt"
printf 'User-agent: *\nAllow: /r\nDisallow: /\n' | gzip > "$T/d/gz.example.txt.gz"
for u in http://sub.example/p https://sub.example/q http://port.example:8080/q https://port.example:8080/p \
         http://port.example/q https://gz.example/r https://gz.example/s; do echo "$u"; done >> "$T/in2.txt"

# a manifest source (relative FILE paths) besides the directory
mkdir -p "$T/m/bodies"
printf 'User-agent: *\nDisallow: /x\n' > "$T/m/bodies/muller.txt"
printf 'https://xn--mller-kva.eu\t200\tbodies/muller.txt\nhttps://tools.ietf.org\t503\tbodies/muller.txt\n' > "$T/m/fetches.tsv"

run_urls() { # NAME N FORMAT: single vs shard+merge
    local name=$1 n=$2 fmt=$3
    expect_run "$name single" 0 "$R" urls --robots "$T/m/fetches.tsv" --robots "$T/d" --robots "$D/robots" --agent Googlebot \
        --format "$fmt" --stats "$T/single.json" "$T/in.txt" "$T/in2.txt"
    cp "$T/out" "$T/single.out"
    rm -rf "$T/sh"
    expect_run "$name shard" 0 "$R" shard --by site -n "$n" --out "$T/sh" --robots "$T/m/fetches.tsv" \
        --robots "$T/d" --robots "$D/robots" "$T/in.txt" "$T/in2.txt"
    local outs=() stats=() k
    for ((k = 0; k < n; k++)); do
        local f
        f=$(printf '%s/shard-%04d' "$T/sh" "$k")
        local args=()
        while IFS= read -r line; do args+=(--robots "$line"); done < "$f.robots"
        [ "${#args[@]}" -eq 6 ] || fail "$name: shard $k has ${#args[@]} robots arguments, want 6"
        expect_run "$name shard $k" 0 "$R" urls "${args[@]}" --agent Googlebot --format "$fmt" --input-line \
            --stats "$f.json" "$f.zst"
        cp "$T/out" "$f.out"
        outs+=("$f.out"); stats+=("$f.json")
    done
    expect_run "$name merge --records" 0 "$R" merge --records --shards "$T/sh" --format "$fmt" "${outs[@]}"
    [ "$(wc -l < "$T/single.out")" -gt 50000 ] || fail "$name: single run too small"
    cmp -s "$T/out" "$T/single.out" || fail "$name: merged records differ from the single run"
    [ "$(grep -c -e 'sub\.example' -e 'port\.example' -e 'gz\.example' "$T/out")" = 7 ] || fail "$name: the directory-source URLs are missing"
    grep -c 'disallow' "$T/single.out" > /dev/null || fail "$name: nothing disallowed"
    expect_run "$name merge --stats" 0 "$R" merge --stats "${stats[@]}"
    cp "$T/out" "$T/merged.json"
    $EQ "$T/single.json" "$T/merged.json" > "$T/eq" || fail "$name: $(cat "$T/eq")"
}
run_urls "urls tsv" 3 tsv
run_urls "urls csv" 1 csv
run_urls "urls jsonl" 5 jsonl

# every line in exactly one shard, positions 1..lines, each once
total=$(( $(wc -l < "$T/in.txt") + $(wc -l < "$T/in2.txt") ))
grep -q "^lines	$total\$" "$T/sh/shards.tsv" || fail "shards.tsv: lines is not $total: $(head -3 "$T/sh/shards.tsv")"
/usr/bin/python3 - "$T/sh" "$total" > "$T/pos" <<'EOF' || fail "positions: $(cat "$T/pos")"
import glob, struct, sys
pos = []
for f in sorted(glob.glob(sys.argv[1] + "/shard-*.pos")):
    b = open(f, "rb").read()
    p = list(struct.unpack("<%dQ" % (len(b) // 8), b))
    if p != sorted(p): print(f, "not increasing"); sys.exit(1)
    pos += p
if sorted(pos) != list(range(1, int(sys.argv[2]) + 1)): print("not every line once"); sys.exit(1)
EOF

# an IDN host and its punycode form are one site: one shard
for k in 0 1 2 3 4; do
    f=$(printf '%s/shard-%04d.zst' "$T/sh" "$k")
    n=$(zstd -dc "$f" | grep -ci -e 'xn--mller-kva' -e 'M.*ller\.EU')
    [ "$n" = 0 ] || [ "$n" = 2 ] || fail "IDN: shard $k holds $n of the 2 lines of one site"
done

# the hash is stable: this origin's shard out of 7 is fixed forever (XXH3_64 mod 7)
printf 'https://www.example.com/a\n' > "$T/one.txt"
expect_run "stable hash" 0 "$R" shard -n 7 --out "$T/one" "$T/one.txt"
want=$(awk -F'\t' '$1=="shard" && $3==1 {print $2}' "$T/one/shards.tsv")
[ -n "$want" ] || fail "stable hash: no shard holds the line"
[ "$want" = 4 ] || fail "stable hash: https://www.example.com went to shard $want, not 4 (XXH3_64 mod 7)"

# logs: the elastic log over 6 sites (vhost_combined), and with --host (one shard)
hosts=$(ls "$D/robots" | grep '\.txt$' | head -6 | sed 's/\.txt$//')
for h in $hosts; do sed "s/^/$h:443 /" "$D/logs/elastic-apache_logs.log"; done > "$T/vh.log"
expect_run "logs single" 0 "$R" logs --robots "$D/robots" --log-format vhost_combined --format csv \
    --stats "$T/ls.json" "$T/vh.log"
cp "$T/out" "$T/ls.out"
expect_run "logs shard" 0 "$R" shard -n 4 --out "$T/lsh" --log-format vhost_combined --robots "$D/robots" "$T/vh.log"
outs=(); stats=()
for k in 0 1 2 3; do
    f=$(printf '%s/shard-%04d' "$T/lsh" "$k")
    expect_run "logs shard $k" 0 "$R" logs --robots "$(cat "$f.robots")" --log-format vhost_combined --format csv \
        --input-line --stats "$f.json" "$f.zst"
    cp "$T/out" "$f.out"; outs+=("$f.out"); stats+=("$f.json")
done
nonempty=$(awk -F'\t' '$1=="shard" && $3>0' "$T/lsh/shards.tsv" | wc -l)
[ "$nonempty" -ge 2 ] || fail "logs: only $nonempty non-empty shards: the test does not split the work"
expect_run "logs merge --records" 0 "$R" merge --records --shards "$T/lsh" --format csv "${outs[@]}"
[ "$(wc -l < "$T/ls.out")" -gt 1000 ] || fail "logs: single run too small"
cmp -s "$T/out" "$T/ls.out" || fail "logs: merged records differ from the single run"
expect_run "logs merge --stats" 0 "$R" merge --stats "${stats[@]}"
cp "$T/out" "$T/lm.json"
$EQ "$T/ls.json" "$T/lm.json" > "$T/eq" || fail "logs stats: $(cat "$T/eq")"
# the checker itself fails on a changed count
sed 's/"violations":\([0-9]*\)/"violations":1\1/' "$T/lm.json" > "$T/bad.json"
$EQ "$T/ls.json" "$T/bad.json" > /dev/null && fail "stats_equal accepts a changed count"

# merge errors: kinds, schema versions, outputs without input_line, wrong count
expect_run "merge urls+logs" 2 "$R" merge --stats "$T/single.json" "$T/ls.json"
expect_err "merge urls+logs" 'mismatched "command"'
sed 's/"schema_version":2/"schema_version":3/' "$T/single.json" > "$T/v3.json"
expect_run "merge schema versions" 2 "$R" merge --stats "$T/single.json" "$T/v3.json"
expect_err "merge schema versions" 'mismatched "schema_version"'
sed 's/"schema_version":2,//' "$T/single.json" > "$T/v0.json"
expect_run "merge no schema" 2 "$R" merge --stats "$T/single.json" "$T/v0.json"
expect_err "merge no schema" 'schema_version'
expect_run "merge records no input_line" 2 "$R" merge --records --shards "$T/lsh" --format csv \
    "$T/ls.out" "$T/ls.out" "$T/ls.out" "$T/ls.out"
expect_err "merge records no input_line" 'input_line'
expect_run "merge records count" 2 "$R" merge --records --shards "$T/lsh" --format csv "${outs[0]}"
expect_err "merge records count" '4 shards'
expect_run "shard -n 0" 2 "$R" shard -n 0 --out "$T/x" "$T/one.txt"
expect_run "shard --by" 2 "$R" shard --by url -n 2 --out "$T/x" "$T/one.txt"
expect_run "shard logs without host" 2 "$R" shard --logs -n 2 --out "$T/x" "$T/one.txt"
expect_err "shard logs without host" 'give --host'
expect_run "shard missing input" 2 "$R" shard -n 2 --out "$T/x" "$T/nonexistent"
expect_err "shard missing input" 'nonexistent'

finish
