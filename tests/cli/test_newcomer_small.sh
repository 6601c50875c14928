#!/usr/bin/env bash
# The smaller things a newcomer stumbled on (issue 29 item 6):
#  * `lint DIR` lints each robots.txt of a folder (survey, urls and sitemaps take
#    folders) instead of "cannot read: Is a directory"; a folder without any is
#    an error naming it;
#  * `shard` says in one line what it wrote and what to run next; its help names
#    the files as they are written (shard-0000.pos, not shard-K.pos);
#  * `merge --stats --shards DIR` lists the inputs shard split (not the shard
#    files the runs read) and keeps urls_per_second a whole number;
#  * survey's text summary has the `none` group beside named and star.
# Usage: bash tests/cli/test_newcomer_small.sh ./robotscan SHARED_DIR
set -u
BIN=${1:-./robotscan}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$HERE/lib/helpers.sh"

# --- lint DIR
mkdir -p "$T/robots/sub.example" "$T/robots/.hidden"
printf 'User-agent: *\nDisalow: /x\n' > "$T/robots/a.example.txt"
printf 'User-agent: *\nDisallow: /y\n' > "$T/robots/b.example.txt"
printf 'Useragent: *\nDisallow: /z\n' > "$T/robots/sub.example/robots.txt"
printf 'garbage without colon\n' > "$T/robots/.hidden/robots.txt"
expect_run "lint DIR" 1 "$BIN" lint --format tsv "$T/robots"
grep -q "Is a directory" "$T/err" && fail "lint DIR: $(cat "$T/err")"
cut -f1 "$T/out" | sed 1d | sort -u > "$T/files"
expect_out_file() { diff -u <(printf '%s\n' "$@") "$T/files" > "$T/diff" || fail "lint DIR files: $(cat "$T/diff")"; }
expect_out_file "$T/robots/a.example.txt" "$T/robots/sub.example/robots.txt"
grep -q "typo-key\|misspelled-key" "$T/out" || fail "lint DIR: no finding for 'Disalow': $(head -3 "$T/out")"
expect_run "lint DIR/ (clean file only)" 0 "$BIN" lint "$T/robots/b.example.txt"
# the same findings as each file alone
"$BIN" lint --format tsv "$T/robots/a.example.txt" "$T/robots/b.example.txt" "$T/robots/sub.example/robots.txt" \
    > "$T/each" 2>/dev/null
"$BIN" lint --format tsv "$T/robots" > "$T/dir" 2>/dev/null
cmp -s "$T/each" "$T/dir" || fail "lint DIR differs from linting its files: $(diff "$T/each" "$T/dir" | head -5)"
mkdir -p "$T/empty"
expect_run "lint empty DIR" 2 "$BIN" lint "$T/empty"
expect_err "lint empty DIR" "empty: cannot lint: a directory without robots.txt files"

# --- shard: one line on success; help names the real files
expect_run "shard" 0 "$BIN" shard -n 3 --out "$T/sh" "$ROOT/data/frontier.txt"
[ -s "$T/out" ] && fail "shard wrote to stdout: $(head -c 200 "$T/out")"
[ "$(wc -l < "$T/err")" = 1 ] || fail "shard: want one line on stderr, got: $(cat "$T/err")"
expect_err "shard summary" "^robotscan shard: 10 URL lines into 3 shards in .*/sh \\(shard-0000.zst .. shard-0002.zst"
expect_err "shard next step" "next: robotscan urls --input-line .* robotscan merge --records --shards"
for f in shard-0000.zst shard-0000.pos shard-0002.pos shards.tsv; do
    [ -f "$T/sh/$f" ] || fail "shard: no $f"
done
"$BIN" shard --help > "$T/help"
grep -q "shard-K.pos\|shard-K.robots" "$T/help" && fail "shard --help names shard-K files: $(grep 'shard-K' "$T/help")"
grep -q "shard-0000.pos" "$T/help" || fail "shard --help does not name shard-0000.pos"

# --- merge --stats --shards: inputs and rates as one run writes them
for k in 0 1 2; do
    "$BIN" urls --robots "$ROOT/data/robots" --agent Googlebot --quiet --input-line \
        --stats "$T/sh/s$k.json" "$T/sh/shard-000$k.zst" >/dev/null 2>&1
done
"$BIN" urls --robots "$ROOT/data/robots" --agent Googlebot --quiet --stats "$T/one.json" "$ROOT/data/frontier.txt" \
    >/dev/null 2>&1
expect_ok "merge --stats" "$BIN" merge --stats --shards "$T/sh" "$T/sh/s0.json" "$T/sh/s1.json" "$T/sh/s2.json"
python3 - "$T/out" "$T/one.json" <<'PY' || fail "merged stats: see above"
import json, sys
m, one = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
bad = []
if m.get("inputs") != one.get("inputs"):
    bad.append("inputs %r, one run: %r" % (m.get("inputs"), one.get("inputs")))
if type(m.get("urls_per_second")) is not type(one.get("urls_per_second")):
    bad.append("urls_per_second %r (%s), one run: %r (%s)" % (m.get("urls_per_second"), type(m.get("urls_per_second")).__name__,
               one.get("urls_per_second"), type(one.get("urls_per_second")).__name__))
for b in bad:
    print("FAIL: merged stats: " + b)
sys.exit(1 if bad else 0)
PY
# --- survey's summary counts the agents no group applies to (the `none` group)
mkdir -p "$T/srv"
printf 'User-agent: OtherBot\nDisallow: /\n' > "$T/srv/a.example.txt"
printf 'User-agent: *\nDisallow: /x\n' > "$T/srv/b.example.txt"
expect_ok "survey" "$BIN" survey --robots "$T/srv" --agent Googlebot --format text
grep -Eq '^agent .* named +star +none$' "$T/out" || fail "survey summary: no none column: $(head -3 "$T/out")"
grep -Eq '^Googlebot .* 0 +1 +1$' "$T/out" || fail "survey summary: Googlebot named 0, star 1, none 1: $(cat "$T/out")"
finish
