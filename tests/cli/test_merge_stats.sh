#!/usr/bin/env bash
# test_merge_stats.sh ROBOTSCAN SHARED_DIR: for every bulk command (urls, logs, survey,
# sitemaps, diff over URLs and over logs), `merge --stats` of the --stats of two halves of
# an input (split by site: `shard -n 2`, or the robots files split in two directories for
# survey and sitemaps) equals the --stats of one run over the whole input. The comparison
# is tests/scale/stats_equal.py (Python, independent of robotscan); it is shown to fail on
# a changed count once per command.
R=${1:-./robotscan}
S=${2:-build/testdata}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/helpers.sh"
EQ="/usr/bin/python3 $here/../scale/stats_equal.py"
D=$S/data

# equal NAME SINGLE.json MERGED.json: equal stats, and a changed count in MERGED is seen
equal() {
    local name=$1 single=$2 merged=$3
    $EQ "$single" "$merged" > "$T/eq" || fail "$name: merged stats differ from one run: $(cat "$T/eq")"
    /usr/bin/python3 - "$merged" "$T/broken.json" <<'PY' || fail "$name: no count to break"
import json, sys
d = json.load(open(sys.argv[1]))
def bump(v):  # the first non-zero count anywhere, + 1
    if isinstance(v, dict):
        for k, x in v.items():
            if isinstance(x, int) and x > 0 and k not in ("schema_version",):
                v[k] = x + 1
                return True
            if isinstance(x, (dict, list)) and bump(x):
                return True
    if isinstance(v, list):
        return any(bump(x) for x in v)
    return False
sys.exit(0 if bump(d) and json.dump(d, open(sys.argv[2], "w")) is None else 1)
PY
    $EQ "$single" "$T/broken.json" > /dev/null && fail "$name: stats_equal accepts a changed count"
}

# merged NAME OUT.json PART.json...: robotscan merge --stats
merged() {
    local name=$1 out=$2; shift 2
    expect_run "$name merge --stats" 0 "$R" merge --stats "$@"
    cp "$T/out" "$out"
    [ -s "$out" ] || fail "$name: merge wrote nothing"
}

# shard_run NAME INPUT_ARGS SHARD_ARGS -- CMD...: CMD over each of 2 shards, with the shard's --robots
# (the shard's input last), stats in $T/NAME-K.json
shard_run() {
    local name=$1 dir=$T/$1.sh; shift
    local sargs=() cmd=()
    while [ "$1" != -- ]; do sargs+=("$1"); shift; done
    shift
    cmd=("$@")
    expect_run "$name shard" 0 "$R" shard -n 2 --out "$dir" "${sargs[@]}"
    local k n=0
    for k in 0 1; do
        local f args=()
        f=$(printf '%s/shard-%04d' "$dir" "$k")
        while IFS= read -r line; do args+=(--robots "$line"); done < "$f.robots"
        expect_run "$name shard $k" 0 "${cmd[@]}" "${args[@]}" --stats "$T/$name-$k.json" "$f.zst"
        [ "$(zstd -dc "$f.zst" | wc -l)" -gt 0 ] && n=$((n + 1))
    done
    [ "$n" = 2 ] || fail "$name: a shard is empty: the halves do not split the work"
}

cat "$D"/urls/*.txt > "$T/urls.txt"
hosts=$(ls "$D/robots" | grep '\.txt$' | head -6 | sed 's/\.txt$//')
for h in $hosts; do sed "s/^/$h:443 /" "$D/logs/elastic-apache_logs.log"; done > "$T/vh.log"

# urls (two agents)
expect_run "urls single" 0 "$R" urls --robots "$D/robots" --agent Googlebot --agent bingbot --format tsv \
    --stats "$T/urls.json" "$T/urls.txt"
shard_run urls --robots "$D/robots" "$T/urls.txt" -- "$R" urls --agent Googlebot --agent bingbot --format tsv
merged urls "$T/urls-m.json" "$T/urls-0.json" "$T/urls-1.json"
equal urls "$T/urls.json" "$T/urls-m.json"

# logs
expect_run "logs single" 0 "$R" logs --robots "$D/robots" --log-format vhost_combined --format tsv \
    --stats "$T/logs.json" "$T/vh.log"
shard_run logs --log-format vhost_combined --robots "$D/robots" "$T/vh.log" -- \
    "$R" logs --log-format vhost_combined --format tsv
merged logs "$T/logs-m.json" "$T/logs-0.json" "$T/logs-1.json"
equal logs "$T/logs.json" "$T/logs-m.json"
grep -q '"top_rules":\[{' "$T/logs.json" || fail "logs: no top_rules: the check does not cover them"

# diff over URLs, with the rule-level counts
expect_run "diff single" 0 "$R" diff --robots "$D/robots" --old-semantics google --new-semantics first-match \
    --rules --format tsv --stats "$T/diff.json" "$T/urls.txt"
shard_run diff --robots "$D/robots" "$T/urls.txt" -- \
    "$R" diff --old-semantics google --new-semantics first-match --rules --format tsv
merged diff "$T/diff-m.json" "$T/diff-0.json" "$T/diff-1.json"
equal diff "$T/diff.json" "$T/diff-m.json"
grep -q '"newly_allowed":[1-9]' "$T/diff.json" || fail "diff: nothing flips: the check does not cover flips"

# diff over logs
expect_run "diff logs single" 0 "$R" diff --logs --log-format vhost_combined --robots "$D/robots" \
    --old-semantics google --new-semantics first-match --format tsv --stats "$T/dl.json" "$T/vh.log"
shard_run dl --log-format vhost_combined --robots "$D/robots" "$T/vh.log" -- \
    "$R" diff --logs --log-format vhost_combined --old-semantics google --new-semantics first-match --format tsv
merged "diff logs" "$T/dl-m.json" "$T/dl-0.json" "$T/dl-1.json"
equal "diff logs" "$T/dl.json" "$T/dl-m.json"

# survey and sitemaps: the robots files in two directories (sorted names, split in the middle)
mkdir -p "$T/h1" "$T/h2"
n=$(ls "$D/robots" | wc -l)
i=0
for f in $(ls "$D/robots"); do
    i=$((i + 1))
    if [ $((i * 2)) -le "$n" ]; then ln -s "$(cd "$D/robots" && pwd)/$f" "$T/h1/$f"
    else ln -s "$(cd "$D/robots" && pwd)/$f" "$T/h2/$f"; fi
done
for cmd in survey sitemaps; do
    expect_run "$cmd single" 0 "$R" $cmd --robots "$D/robots" --format tsv --stats "$T/$cmd.json"
    for h in 1 2; do
        expect_run "$cmd half $h" 0 "$R" $cmd --robots "$T/h$h" --format tsv --stats "$T/$cmd-$h.json"
    done
    merged $cmd "$T/$cmd-m.json" "$T/$cmd-1.json" "$T/$cmd-2.json"
    equal $cmd "$T/$cmd.json" "$T/$cmd-m.json"
done
grep -q '"agents":{"[^"]*":{"blocked":[1-9]' "$T/survey.json" || fail "survey: no per-agent counts"

finish
