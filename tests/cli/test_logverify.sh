#!/usr/bin/env bash
# CLI tests for `robotscan logs --verify` (SPEC 4): crawler IP ranges. The elastic sample
# with Google's range files (SHARED/data/agents/ip-ranges): every row's `verified` and the
# per-bot verified/spoofed counts equal an independent computation with Python's
# ipaddress (logverify_check.py); spoofed hits are not the real bot's violations; CIDR
# lists with TOKEN=FILE; a `common` log attributed by client IP.
# Usage: bash tests/cli/test_logverify.sh ./robotscan SHARED_DIR
set -u
BIN=${1:-./robotscan}
SHARED=${2:-build/testdata}
HERE=$(cd "$(dirname "$0")" && pwd)
LOG=$SHARED/data/logs/elastic-apache_logs.log
RANGES=$SHARED/data/agents/ip-ranges
ROB=$HERE/../logs/semicomplete.com.robots.txt
. "$HERE/lib/helpers.sh"

V=(--verify "$RANGES/googlebot.json" --verify "$RANGES/special-crawlers.json" --verify "$RANGES/user-triggered-fetchers.json")
expect_run "verify" 0 "$BIN" logs --robots "$ROB" --host semicomplete.com --format tsv --stats "$T/v.json" "${V[@]}" "$LOG"
cp "$T/out" "$T/v.tsv"
head -1 "$T/v.tsv" | grep -q $'\tdelay_violation\tverified$' || fail "verified column after delay_violation: $(head -1 "$T/v.tsv")"
python3 "$HERE/logverify_check.py" "$RANGES" "$T/v.tsv" "$T/v.json" >"$T/check" || fail "$(cat "$T/check")"
cat "$T/check"
# spoofed hits are counted apart: the bot's violations are those of its verified/unknown hits
python3 - "$T/v.tsv" "$T/v.json" <<'PY' || fail "spoofed hits mixed into violations"
import collections, csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], encoding="utf-8", errors="replace"), delimiter="\t", quoting=csv.QUOTE_NONE))
st = json.load(open(sys.argv[2]))
dis = collections.Counter(r["agent"] for r in rows if r["verdict"] == "disallow" and r["verified"] != "no")
sdis = collections.Counter(r["agent"] for r in rows if r["verdict"] == "disallow" and r["verified"] == "no")
bad = [b["agent"] for b in st["bots"] if b["violations"] != dis[b["agent"]] or b["spoofed_violations"] != sdis[b["agent"]]]
assert not bad, bad
assert st["spoofed_hits"] == sum(1 for r in rows if r["verified"] == "no")
PY
# the same with -j 2, and jsonl carries the column
expect_run "verify -j 2" 0 "$BIN" logs --robots "$ROB" --host semicomplete.com --format tsv -j 2 "${V[@]}" "$LOG"
cmp -s "$T/out" "$T/v.tsv" || fail "-j 2 differs"
expect_run "verify jsonl" 0 "$BIN" logs --robots "$ROB" --host semicomplete.com --format jsonl "${V[@]}" "$LOG"
python3 -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; sys.exit(0 if r and all(x["verified"] in ("yes","no","unknown") for x in r) else 1)' "$T/out" \
    || fail "jsonl verified"

# a CIDR list for a token; IPv4 and IPv6
printf '# our ranges\n66.249.64.0/19\n2001:db8::/32\n' >"$T/gb.txt"
expect_run "TOKEN=FILE" 0 "$BIN" logs --robots "$ROB" --host semicomplete.com --format tsv --verify "Googlebot=$T/gb.txt" "$LOG"
python3 - "$T/out" <<'PY' || fail "TOKEN=FILE verdicts"
import csv, ipaddress, sys
net = ipaddress.ip_network("66.249.64.0/19")
rows = list(csv.DictReader(open(sys.argv[1], encoding="utf-8", errors="replace"), delimiter="\t", quoting=csv.QUOTE_NONE))
for r in rows:
    want = "unknown" if r["agent"] != "Googlebot" else ("yes" if ipaddress.ip_address(r["client"]) in net else "no")
    assert r["verified"] == want, (r["agent"], r["client"], r["verified"])
assert any(r["verified"] == "yes" for r in rows)
PY
printf '2001:db8::1 - - [17/May/2015:10:05:03 +0000] "GET /a HTTP/1.1" 200 5 "-" "Googlebot/2.1"\n2001:db9::1 - - [17/May/2015:10:05:04 +0000] "GET /a HTTP/1.1" 200 5 "-" "Googlebot/2.1"\n' >"$T/v6.log"
expect_run "IPv6 clients" 0 "$BIN" logs --robots "$ROB" --host a.com --format tsv --verify "Googlebot=$T/gb.txt" "$T/v6.log"
[ "$(tail -n +2 "$T/out" | cut -f2,14 | tr '\t\n' ' ;')" = "2001:db8::1 yes;2001:db9::1 no;" ] || fail "IPv6 verdicts: $(cat "$T/out")"

# a common log (no user agent): hits attributed by client IP
expect_run "common + verify" 0 "$BIN" logs --robots "$ROB" --host semicomplete.com --log-format common --format tsv \
    --stats "$T/c.json" --verify "$RANGES/googlebot.json" "$LOG"
python3 - "$RANGES/googlebot.json" "$LOG" "$T/out" <<'PY' || fail "common + verify: attribution by IP"
import csv, ipaddress, json, sys
nets = [ipaddress.ip_network(p.get("ipv4Prefix") or p.get("ipv6Prefix")) for p in json.load(open(sys.argv[1]))["prefixes"]]
want = 0
for line in open(sys.argv[2], encoding="utf-8", errors="replace"):
    ip = ipaddress.ip_address(line.split(" ", 1)[0])
    want += any(ip.version == n.version and ip in n for n in nets)
rows = list(csv.DictReader(open(sys.argv[3], encoding="utf-8", errors="replace"), delimiter="\t", quoting=csv.QUOTE_NONE))
assert len(rows) == want > 0, (len(rows), want)
assert all(r["agent"] == "Googlebot" and r["verified"] == "yes" for r in rows)
PY

# bad range files and unknown files are usage errors
printf 'not a prefix\n' >"$T/bad.txt"
expect_run "bad CIDR list" 2 "$BIN" logs --robots "$ROB" --host a.com --verify "X=$T/bad.txt" "$LOG"
expect_err "bad CIDR message" "not an IP prefix"
cp "$T/gb.txt" "$T/mystery.json"
expect_run "unknown range file" 2 "$BIN" logs --robots "$ROB" --host a.com --verify "$T/mystery.json" "$LOG"
expect_err "unknown range file message" "TOKEN=FILE"
expect_run "missing range file" 2 "$BIN" logs --robots "$ROB" --host a.com --verify "X=$T/none.txt" "$LOG"

finish
