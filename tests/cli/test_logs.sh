#!/usr/bin/env bash
# CLI tests for `robotscan logs` on the three real logs of ../shared/data/logs.
# Usage: bash tests/cli/test_logs.sh ./robotscan SHARED   (SHARED: build/testdata after `make testdata`, or ../shared)
set -u
BIN=${1:-./robotscan}
SHARED=${2:-build/testdata}
HERE=$(cd "$(dirname "$0")" && pwd)
LOGS=$SHARED/data/logs
ROB=$HERE/../logs
. "$(dirname "$0")/lib/helpers.sh"

ELASTIC=$LOGS/elastic-apache_logs.log
# --- independent verification on every log: counts, verdicts via check, crawl-delay
for pair in "elastic-apache_logs semicomplete.com" "lnav-shop-access zanbil.ir" "logparser-hackers-access howto.basjes.nl"; do
    set -- $pair
    "$BIN" logs --robots "$ROB/$2.robots.txt" --host "$2" --format tsv --stats "$T/$1.json" "$LOGS/$1.log" >"$T/$1.tsv" \
        || fail "$1: exit status $?"
    nobots=; [ "$1" = logparser-hackers-access ] && nobots=--no-bots
    python3 "$HERE/logs_verify.py" "$BIN" "$ROB/$2.robots.txt" "$LOGS/$1.log" "$T/$1.tsv" "$T/$1.json" $nobots >"$T/verify" \
        || fail "$1: $(cat "$T/verify")"
done
# the hackers log has no real bots: every hit is a non-bot hit
python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); sys.exit(0 if s["bot_hits"]==0 and s["non_bot_hits"]==3456 else 1)' \
    "$T/logparser-hackers-access.json" || fail "hackers log: bot/non-bot counts"
# the lnav log's known crawlers
python3 - "$T/lnav-shop-access.json" <<'PY' || fail "lnav bot counts"
import json, sys
s = {b["agent"]: b["hits"] for b in json.load(open(sys.argv[1]))["bots"]}
want = {"Googlebot": 160, "Googlebot-Image": 14, "bingbot": 104, "AhrefsBot": 45, "Applebot": 12}
bad = {k: (s.get(k), v) for k, v in want.items() if s.get(k) != v}
print(bad) if bad else None
sys.exit(1 if bad else 0)
PY

# --- plain, .zst, .gz and stdin give identical records; -j 1 and -j 2 too
ARGS=(logs --robots "$ROB/semicomplete.com.robots.txt" --host semicomplete.com --format tsv)
zstd -q -c "$ELASTIC" >"$T/e.zst"; gzip -c "$ELASTIC" >"$T/e.gz"
"$BIN" "${ARGS[@]}" "$ELASTIC" >"$T/plain.tsv" || fail "plain exit"
"$BIN" "${ARGS[@]}" "$T/e.zst" >"$T/zst.tsv" || fail "zst exit"
"$BIN" "${ARGS[@]}" "$T/e.gz" >"$T/gz.tsv" || fail "gz exit"
"$BIN" "${ARGS[@]}" <"$ELASTIC" >"$T/stdin.tsv" || fail "stdin exit"
"$BIN" "${ARGS[@]}" -j 2 "$ELASTIC" >"$T/j2.tsv" || fail "-j 2 exit"
for f in zst gz stdin j2; do cmp -s "$T/plain.tsv" "$T/$f.tsv" || fail "$f output differs from plain"; done
[ "$(wc -l <"$T/plain.tsv")" -gt 1000 ] || fail "too few records"

# --- column order and formats
head -1 "$T/plain.tsv" | grep -qx $'time\tclient\torigin\tagent\tuser_agent\tmethod\turl\tstatus\tverdict\tline\trule\treason\tdelay_violation' \
    || fail "tsv header: $(head -1 "$T/plain.tsv")"
"$BIN" logs --robots "$ROB/semicomplete.com.robots.txt" --host semicomplete.com --format jsonl "$ELASTIC" >"$T/j.jsonl" \
    || fail "jsonl exit"
python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$T/j.jsonl" || fail "jsonl does not parse"
[ "$(wc -l <"$T/j.jsonl")" -eq "$(($(wc -l <"$T/plain.tsv") - 1))" ] || fail "jsonl and tsv record counts differ"
"$BIN" logs --robots "$ROB/semicomplete.com.robots.txt" --host semicomplete.com --format csv "$ELASTIC" >"$T/c.csv" \
    || fail "csv exit"
python3 -c 'import csv,sys; r=list(csv.reader(open(sys.argv[1]))); sys.exit(0 if r and r[0][0] == "time" and len(r) == int(sys.argv[2]) and all(len(x)==13 for x in r) else 1)' \
    "$T/c.csv" "$(wc -l <"$T/plain.tsv")" || fail "csv: not a header and one 13-field row per TSV row"

# --- --only violations, --agent, --fail-on-violation, --quiet
"$BIN" logs --robots "$ROB/semicomplete.com.robots.txt" --host semicomplete.com --format tsv --only violations "$ELASTIC" >"$T/v.tsv" \
    || fail "--only violations exit"
awk -F'\t' 'NR>1 && $9!="disallow" && $13!="1" {bad=1} END {exit bad}' "$T/v.tsv" || fail "--only violations kept a clean hit"
want=$(awk -F'\t' 'NR>1 && ($9=="disallow" || $13=="1")' "$T/plain.tsv" | wc -l)
[ "$want" -gt 100 ] || fail "--only violations: only $want violations in the full output"
[ "$(($(wc -l <"$T/v.tsv") - 1))" -eq "$want" ] || fail "--only violations count"
"$BIN" logs --robots "$ROB/semicomplete.com.robots.txt" --host semicomplete.com --format tsv --agent googlebot --agent MSNBOT "$ELASTIC" >"$T/a.tsv" \
    || fail "--agent exit"
[ "$(awk -F'\t' 'NR>1 && $4=="msnbot"' "$T/a.tsv" | wc -l)" -gt 0 ] || fail "--agent: no msnbot hits"
awk -F'\t' 'NR>1 && $4!="Googlebot" && $4!="msnbot" {bad=1} END {exit bad}' "$T/a.tsv" || fail "--agent let another bot through"
[ "$(awk -F'\t' 'NR>1 && $4=="Googlebot"' "$T/a.tsv" | wc -l)" -eq "$(awk -F'\t' 'NR>1 && $4=="Googlebot"' "$T/plain.tsv" | wc -l)" ] \
    && [ "$(awk -F'\t' 'NR>1 && $4=="Googlebot"' "$T/a.tsv" | wc -l)" -gt 0 ] \
    || fail "--agent changed Googlebot's hits"
"$BIN" logs --robots "$ROB/semicomplete.com.robots.txt" --host semicomplete.com --quiet --fail-on-violation "$ELASTIC" >"$T/q.txt"
[ $? = 1 ] || fail "--fail-on-violation should exit 1"
grep -q '^Googlebot ' "$T/q.txt" || fail "--quiet summary lacks Googlebot: $(head -3 "$T/q.txt")"
printf 'User-agent: *\nAllow: /\n' >"$T/open.txt"
"$BIN" logs --robots "$T/open.txt" --host semicomplete.com --quiet --fail-on-violation "$ELASTIC" >/dev/null \
    || fail "no violations should exit 0"

# --- malformed lines are reported with their numbers and neighbours survive
"$BIN" logs --robots "$ROB/semicomplete.com.robots.txt" --host semicomplete.com --quiet --verbose "$ELASTIC" >/dev/null 2>"$T/err" \
    || fail "--verbose exit"
grep -q 'elastic-apache_logs.log:8899: malformed log line' "$T/err" || fail "line 8899 not reported: $(head -3 "$T/err")"
grep -q 'malformed 1' "$T/q.txt" || fail "summary does not count the malformed line"

# --- vhost_combined gives the site per line; an nginx log_format with $host
awk '{print "semicomplete.com:443 " $0}' "$ELASTIC" >"$T/vhost.log"
"$BIN" logs --robots "$ROB/semicomplete.com.robots.txt" --log-format vhost_combined --format tsv "$T/vhost.log" >"$T/vh.tsv" \
    || fail "vhost_combined exit"
cut -f1,2,4- "$T/vh.tsv" >"$T/vh.cut"; cut -f1,2,4- "$T/plain.tsv" >"$T/plain.cut"
sed 's#https://semicomplete.com#X#' "$T/vh.cut" >"$T/a1"; sed 's#https://semicomplete.com#X#' "$T/plain.cut" >"$T/a2"
cmp -s "$T/a1" "$T/a2" || fail "vhost_combined records differ from --host records"
cat >"$T/nginx.log" <<'L'
10.0.0.1 semicomplete.com [17/May/2015:10:05:03 +0000] "GET /files/x.zip HTTP/1.1" 200 5 "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)"
10.0.0.1 other.example [17/May/2015:10:05:04 +0000] "GET /files/x.zip HTTP/1.1" 200 5 "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)"
L
mkdir -p "$T/dir"; cp "$ROB/semicomplete.com.robots.txt" "$T/dir/semicomplete.com.txt"
"$BIN" logs --robots "$T/dir" --log-format '$remote_addr $host [$time_local] "$request" $status $body_bytes_sent "$http_user_agent"' \
    --format tsv "$T/nginx.log" >"$T/ng.tsv" || fail "nginx log_format exit"
awk -F'\t' 'NR==2 {ok = ($3=="https://semicomplete.com" && $9=="disallow" && $12=="matched")} END {exit !(ok && NR==3)}' "$T/ng.tsv" \
    || fail "nginx \$host row 1: $(sed -n 2p "$T/ng.tsv")"
awk -F'\t' 'NR==3 {ok = ($3=="https://other.example" && $9=="allow" && $12=="no-robots")} END {exit !ok}' "$T/ng.tsv" \
    || fail "nginx \$host row 2: $(sed -n 3p "$T/ng.tsv")"

# --- damaged input: records before the damage, then exit 2 naming the file
head -c 30000 "$T/e.zst" >"$T/trunc.zst"
"$BIN" "${ARGS[@]}" "$T/trunc.zst" >"$T/trunc.tsv" 2>"$T/err"
[ $? = 2 ] || fail "truncated zst: exit status"
grep -q 'trunc.zst' "$T/err" || fail "truncated zst: message does not name the file: $(cat "$T/err")"

# --- usage errors
"$BIN" logs --robots "$T/open.txt" "$ELASTIC" >/dev/null 2>"$T/err"; [ $? = 2 ] || fail "no --host should be exit 2"
grep -q -- '--host' "$T/err" || fail "no --host message"
"$BIN" logs --host a.com "$ELASTIC" >/dev/null 2>&1; [ $? = 2 ] || fail "no --robots should be exit 2"
"$BIN" logs --robots "$T/open.txt" --host a.com --log-format '$remote_addr$status' "$ELASTIC" >/dev/null 2>&1
[ $? = 2 ] || fail "bad --log-format should be exit 2"
"$BIN" logs --robots "$T/open.txt" --host a.com --only bogus "$ELASTIC" >/dev/null 2>&1; [ $? = 2 ] || fail "bad --only"
"$BIN" logs --robots "$T/open.txt" --host a.com "$T/missing.log" >/dev/null 2>"$T/err"; [ $? = 2 ] || fail "missing log exit"
grep -q 'missing.log' "$T/err" || fail "missing log not named"
# --- no silent all-clear (issue 29): hits on a site no --robots source knows are not judged;
# the warning gives their count, checked against the records' reason column; none when every
# hit has a robots.txt
mkdir -p "$T/other"; cp "$ROB/zanbil.ir.robots.txt" "$T/other/zanbil.ir.txt"
"$BIN" logs --robots "$T/other" --host semicomplete.com --format tsv "$ELASTIC" >"$T/nr.tsv" 2>"$T/nr.err" \
    || fail "no-robots run: exit $?"
unjudged=$(awk -F'\t' 'NR > 1 && $12 == "no-robots"' "$T/nr.tsv" | wc -l)
hits=$(($(wc -l <"$T/nr.tsv") - 1))
[ "$unjudged" -gt 0 ] || fail "no-robots run: no record has reason no-robots"
all=; [ "$unjudged" = "$hits" ] && all="all "
grep -q "warning: $all$unjudged of $hits bot hits are on sites that no --robots source knows" "$T/nr.err" \
    || fail "no-robots run: the warning is missing or miscounts ($unjudged of $hits): $(cat "$T/nr.err")"
"$BIN" logs --robots "$ROB/semicomplete.com.robots.txt" --host semicomplete.com --quiet "$ELASTIC" >/dev/null 2>"$T/r.err" \
    || fail "judged run: exit $?"
grep -q 'no --robots source knows' "$T/r.err" && fail "judged run: a no-robots warning: $(cat "$T/r.err")"

"$BIN" logs --help >"$T/help" 2>"$T/err" || fail "logs --help: exit $?"
grep -q '^Usage: robotscan logs' "$T/help" || fail "logs --help: no usage on stdout"

finish
