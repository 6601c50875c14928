#!/usr/bin/env bash
# CLI tests for WARC sources, compressed robots files, `survey` and `sitemaps` (SPEC 3, 7, 10; issue 12).
# Fixtures come from tests/warc_fixtures.py (Common Crawl's robotstxt layout); the real-data part
# packs SHARED/data/robots into a WARC and checks it against a manifest of the same captures and
# against an independent Python computation (tests/cli/survey_oracle.py).
# Usage: bash tests/cli/test_warc.sh ./robotscan ../shared
set -u
BIN=${1:-./robotscan}
SHARED=${2:-build/testdata}
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
. "$(dirname "$0")/lib/helpers.sh"
FIX=$HERE/../warc_fixtures.py
ORACLE=$HERE/survey_oracle.py

python3 "$FIX" cases "$T/f" || fail "warc_fixtures.py cases failed"
cut -f1 "$T/f/expect.tsv" >"$T/urls.txt"
[ -s "$T/urls.txt" ] || fail "no fixture URLs"

# outcomes URL<TAB>verdict<TAB>reason of `urls` over a source must equal expect.tsv (SPEC 3)
check_outcomes() {
    local name=$1 src=$2
    expect_run "$name" 0 "$BIN" urls --robots "$src" --agent FooBot --format tsv "$T/urls.txt"
    tail -n +2 "$T/out" | cut -f1,4,7 >"$T/got.tsv"
    diff -u "$T/f/expect.tsv" "$T/got.tsv" >"$T/diff" || fail "$name: outcomes differ: $(cat "$T/diff")"
}

# ===== Every fixture case gives the SPEC 3 outcome: gzip per record, plain, zstd =====
check_outcomes "warc.gz" "$T/f/cases.warc.gz"
check_outcomes "plain warc" "$T/f/cases.warc"
if command -v zstd >/dev/null; then
    zstd -q "$T/f/cases.warc" -o "$T/f/cases.warc.zst"          # one frame for all records
    check_outcomes "warc.zst (one frame)" "$T/f/cases.warc.zst"
    : >"$T/f/frames.warc.zst"                                      # one frame per record
    python3 - "$T/f/cases.warc" "$T/f/rec" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
parts = data.split(b"\r\n\r\nWARC/1.0\r\n")
for i, p in enumerate(parts):
    if i: p = b"WARC/1.0\r\n" + p
    if i < len(parts) - 1: p += b"\r\n\r\n"
    open("%s.%05d" % (sys.argv[2], i), "wb").write(p)
PY
    for r in "$T"/f/rec.*; do zstd -q -c "$r" >>"$T/f/frames.warc.zst"; done
    check_outcomes "warc.zst (frame per record)" "$T/f/frames.warc.zst"
else
    skip "zstd WARC cases" "zstd command not found"
fi

# --- what the source saw: redirects, HTML, superseded captures (survey --stats)
expect_run "survey stats" 0 "$BIN" survey --robots "$T/f/cases.warc.gz" --agent FooBot --format tsv --stats "$T/s.json"
python3 - "$T/s.json" <<'PY' || fail "survey stats on fixtures: $(cat "$T/s.json")"
import json, sys
d = json.load(open(sys.argv[1]))
w = d["warc"]
assert d["schema_version"] == 1, d
assert d["html_bodies"] == 1, d                       # html.example
assert w["superseded"] == 2, w                        # twice.example, tie.example
assert w["redirects_followed"] == 7, w                # moved, rel, hop2..hop6 (5 hops max)
assert w["redirects_unresolved"] == 4, w              # loop, loop2, away, hop1
assert w["corrupt_skipped"] == 0, w
a = d["agents"]["FooBot"]
assert a["unavailable"] == 6 and a["unreachable"] == 2, a
PY
grep -q '^https://html.example	FooBot	open	none		0$' "$T/out" || fail "survey: html.example not open/none"
grep -q '^http://moved.example	FooBot	partial	star		0$' "$T/out" || fail "survey: moved.example does not get its target's rules"
grep -q '^https://down.example	FooBot	unreachable	none		0$' "$T/out" || fail "survey: 503 not unreachable"

# --- survey --html: the stats as a page (robotscan report)
expect_run "survey --html" 0 "$BIN" survey --robots "$T/f/cases.warc.gz" --agent GPTBot --format text --html "$T/s.html"
grep -q 'GPTBot' "$T/s.html" && grep -q '<svg' "$T/s.html" || fail "survey --html: no chart for GPTBot"
expect_run "survey tsv again" 0 "$BIN" survey --robots "$T/f/cases.warc.gz" --agent FooBot --format tsv

# --- several WARC sources (each indexed when reached, then released): the first that knows an origin wins
cp "$T/out" "$T/one.tsv"
expect_run "survey two sources" 0 "$BIN" survey --robots "$T/f/cases.warc.gz" --robots "$T/f/cases.warc" --agent FooBot --format tsv
cmp -s "$T/out" "$T/one.tsv" || fail "survey: an origin of the second WARC source was not shadowed by the first"
expect_run "survey warc + truncated warc" 0 "$BIN" survey --robots "$T/f/cases.warc" --robots "$T/f/trunc.warc.gz" --agent FooBot --format tsv --keep-going
[ "$(grep -c '^https://late.example' "$T/out")" = 0 ] || fail "survey: cut record used"
[ "$(cut -f1 "$T/out" | sort | uniq -d | wc -l)" = 0 ] || fail "survey over two sources: an origin twice"

# ===== Bad input: exit 2 naming file and offset; --keep-going counts and skips =====
bad_input() {
    local name=$1 file=$2 what=$3
    expect_run "$name: urls" 2 "$BIN" urls --robots "$file" --agent FooBot "$T/urls.txt"
    [ -s "$T/out" ] && fail "$name: urls wrote records"
    expect_err "$name: urls" "$(basename "$file").*$what.*offset [0-9]+"
}
bad_input "truncated gzip member" "$T/f/trunc.warc.gz" "truncated gzip member"
bad_input "truncated record" "$T/f/trunc.warc" "truncated WARC record"
bad_input "wrong Content-Length" "$T/f/badlen.warc" "Content-Length"
printf 'User-agent: *\nDisallow: /\n' >"$T/f/notwarc.warc.gz"
bad_input "non-WARC named .warc.gz" "$T/f/notwarc.warc.gz" "not a WARC file"
head -c 3000 "$T/f/cases.warc.gz" >"$T/f/cut.warc.gz"
bad_input "gzip member cut short" "$T/f/cut.warc.gz" "truncated gzip member"

# survey: the records before the damage are written, then exit 2
expect_run "survey truncated" 2 "$BIN" survey --robots "$T/f/trunc.warc.gz" --agent FooBot --format tsv
grep -q '^http://err.example:8080	FooBot	unreachable' "$T/out" || fail "survey truncated: records before the damage missing"
expect_err "survey truncated" "trunc.warc.gz: truncated gzip member.*offset [0-9]+"
expect_run "survey truncated --keep-going" 0 "$BIN" survey --robots "$T/f/trunc.warc.gz" --agent FooBot --format tsv --keep-going
expect_err "survey --keep-going" "skipped 1 corrupt WARC record"
grep -q '^https://late.example' "$T/out" && fail "survey --keep-going: the cut record was used"
expect_run "survey badlen --keep-going" 0 "$BIN" survey --robots "$T/f/badlen.warc" --agent FooBot --format tsv --keep-going
grep -q '^https://down.example' "$T/out" && fail "badlen --keep-going: the damaged record was used"
grep -q '^https://tie.example	FooBot	partial' "$T/out" || fail "badlen --keep-going: records after the damaged one lost"
expect_run "sitemaps truncated" 2 "$BIN" sitemaps --robots "$T/f/trunc.warc.gz"
expect_err "sitemaps truncated" "offset [0-9]+"
expect_run "lint truncated" 2 "$BIN" lint "$T/f/trunc.warc.gz"
expect_err "lint truncated" "trunc.warc.gz: truncated gzip member"

# ===== Compressed robots files: check, directory entries, manifest entries =====
printf 'User-agent: *\nDisallow: /secret\n' >"$T/r.txt"
gzip -c "$T/r.txt" >"$T/r.txt.gz"
expect_run "check gzip" 1 "$BIN" check --robots "$T/r.txt.gz" --agent FooBot --format tsv http://a.com/secret http://a.com/ok
expect_out "check gzip" 'url	verdict	line	rule
http://a.com/secret	disallow	2	disallow: /secret
http://a.com/ok	allow	0	
'
head -c 20 "$T/r.txt.gz" >"$T/cut.txt.gz"
expect_run "check cut gzip" 2 "$BIN" check --robots "$T/cut.txt.gz" --agent FooBot http://a.com/secret
expect_err "check cut gzip" "cut.txt.gz.*(damaged|truncated)"
expect_run "check a WARC" 2 "$BIN" check --robots "$T/f/cases.warc.gz" --agent FooBot http://ok.example/
mkdir -p "$T/dir"
cp "$T/r.txt.gz" "$T/dir/gz.example.txt.gz"
printf 'User-agent: *\nDisallow: /zst\n' >"$T/dir/zst.example.txt"
if command -v zstd >/dev/null; then
    zstd -q --rm "$T/dir/zst.example.txt" -o "$T/dir/zst.example.txt.zst"
    expect_run "check zstd" 1 "$BIN" check --robots "$T/dir/zst.example.txt.zst" --agent FooBot http://a.com/zst
else
    skip "HOST.txt.zst entry" "zstd command not found (the entry is plain)"
fi
printf 'https://m.example\t200\tr.txt.gz\n' >"$T/m.tsv"
printf 'http://gz.example/secret\nhttps://zst.example/zst\nhttps://m.example/secret\nhttps://m.example/x\n' >"$T/u2.txt"
expect_run "compressed dir + manifest" 0 "$BIN" urls --robots "$T/dir" --robots "$T/m.tsv" --agent FooBot --format tsv "$T/u2.txt"
expect_out "compressed dir + manifest" 'url	origin	agent	verdict	line	rule	reason
http://gz.example/secret	http://gz.example	FooBot	disallow	2	disallow: /secret	matched
https://zst.example/zst	https://zst.example	FooBot	disallow	2	disallow: /zst	matched
https://m.example/secret	https://m.example	FooBot	disallow	2	disallow: /secret	matched
https://m.example/x	https://m.example	FooBot	allow	0		no-match
'
cp "$T/cut.txt.gz" "$T/dir/cut.example.txt.gz"
printf 'http://cut.example/x\n' >"$T/u3.txt"
expect_run "damaged entry" 2 "$BIN" urls --robots "$T/dir" --agent FooBot "$T/u3.txt"
expect_err "damaged entry" "cut.example.txt.gz.*(damaged|truncated)"

# ===== lint: every 2xx capture of a WARC =====
expect_run "lint warc" 1 "$BIN" lint "$T/f/cases.warc.gz"
grep -q 'cases.warc.gz@[0-9]*:https://html.example/robots.txt:1: error: .*\[html-content\]' "$T/out" \
    || fail "lint warc: html.example not flagged: $(head -c 400 "$T/out")"
[ "$(grep -c 'twice.example' "$T/out")" -ge 0 ] || true
expect_run "lint warc jsonl" 1 "$BIN" lint --format jsonl "$T/f/cases.warc"
grep -q '"code":"html-content"' "$T/out" || fail "lint warc jsonl: no html-content"

# ===== sitemaps on a small file =====
printf 'Sitemap: https://s.example/a.xml\nUser-agent: *\nsitemap: /rel.xml\nSitemap: https://s.example/a.xml\nSite-map: http://s.example/b.xml\n' >"$T/dir2.txt"
mkdir -p "$T/d2" && cp "$T/dir2.txt" "$T/d2/s.example.txt"
expect_run "sitemaps" 0 "$BIN" sitemaps --robots "$T/d2" --format tsv
expect_out "sitemaps" 'origin	sitemap	line	valid
s.example	https://s.example/a.xml	1	yes
s.example	/rel.xml	3	no
s.example	http://s.example/b.xml	5	yes
'
expect_run "sitemaps usage" 2 "$BIN" sitemaps
expect_run "survey usage" 2 "$BIN" survey --robots "$T/d2" extra

# ===== Real files: WARC == manifest; survey and sitemaps against an independent computation =====
if [ ! -d "$SHARED/data/robots" ]; then
    skip "real-data checks" "$SHARED/data/robots not found"
    finish
    exit
fi
python3 "$FIX" pack "$SHARED/data/robots" "$T/real" >/dev/null || fail "warc_fixtures.py pack failed"
n=$(wc -l <"$T/real/real.tsv")
[ "$n" -ge 3900 ] || fail "packed only $n captures"
"$BIN" urls --robots "$T/real/real.warc.gz" --agent Googlebot "$T/real/real-urls.txt" >"$T/a.tsv" 2>"$T/err" \
    || fail "urls over the WARC failed: $(head -c 300 "$T/err")"
"$BIN" urls --robots "$T/real/real.tsv" --agent Googlebot "$T/real/real-urls.txt" >"$T/b.tsv" 2>"$T/err" \
    || fail "urls over the manifest failed: $(head -c 300 "$T/err")"
[ "$(wc -l <"$T/a.tsv")" -gt 40000 ] || fail "urls over the WARC: only $(wc -l <"$T/a.tsv") records"
cmp -s "$T/a.tsv" "$T/b.tsv" || fail "urls: WARC and manifest records differ"
[ "$(cut -f7 "$T/a.tsv" | grep -c '^matched$')" -gt 10000 ] || fail "urls over the WARC: few matched records"

expect_run "survey real" 0 "$BIN" survey --robots "$T/real/real.warc.gz" --format tsv --stats "$T/real/s.json"
cp "$T/out" "$T/real/survey.tsv"
# default agents = data/ai-agents.txt
grep -v '^#' "$HERE/../../data/ai-agents.txt" >"$T/agents.txt"
[ "$(tail -n +2 "$T/real/survey.tsv" | wc -l)" = "$((n * $(wc -l <"$T/agents.txt")))" ] \
    || fail "survey real: not one record per origin and default agent"
python3 "$ORACLE" "$T/real/real.tsv" "$T/agents.txt" "$T/real/survey.tsv" >"$T/oracle.out" \
    || fail "survey vs independent oracle: $(head -20 "$T/oracle.out")"
# the oracle can fail: one tampered record must be caught
awk -F'\t' 'BEGIN{OFS="\t"} NR==2{$3=($3=="blocked"?"open":"blocked")} {print}' "$T/real/survey.tsv" >"$T/real/tampered.tsv"
python3 "$ORACLE" "$T/real/real.tsv" "$T/agents.txt" "$T/real/tampered.tsv" >/dev/null \
    && fail "oracle did not catch a tampered survey record"
python3 - "$T/real/s.json" "$n" <<'PY' || fail "survey real stats"
import json, sys
d = json.load(open(sys.argv[1])); n = int(sys.argv[2])
assert d["schema_version"] == 1 and d["origins"] == n, d
for a, c in d["agents"].items():
    assert sum(c[k] for k in ("blocked", "partial", "open", "unavailable", "unreachable")) == n, (a, c)
    assert c["named"] + c["star"] + c["none"] == n, (a, c)
assert d["agents"]["Googlebot"]["named"] > 100 and d["agents"]["CCBot"]["named"] > 10, d["agents"]["Googlebot"]
PY
# the same survey from a directory of the files and from the manifest
"$BIN" survey --robots "$T/real/real.tsv" --format tsv >"$T/real/survey2.tsv" || fail "survey over the manifest failed"
cmp -s "$T/real/survey.tsv" "$T/real/survey2.tsv" || fail "survey: WARC and manifest differ"

expect_run "sitemaps real" 0 "$BIN" sitemaps --robots "$T/real/real.warc.gz" --format tsv
python3 "$ORACLE" --sitemaps "$T/real/real.tsv" "$T/out" >"$T/oracle.out" \
    || fail "sitemaps vs independent oracle: $(head -12 "$T/oracle.out")"
finish
