#!/usr/bin/env bash
# CLI tests for `robotscan report` and --html on logs/urls, without a browser
# (tests/report/test_report.sh opens the pages in Chromium): every kind of
# page renders, holds no script and no external reference, --html equals
# report of the same --stats, escaping, empty runs, and bad input (exit 2).
# Usage: bash tests/cli/test_report.sh ./robotscan SHARED_DIR
set -u
BIN=${1:-./robotscan}
SHARED=${2:-build/testdata}
HERE=$(cd "$(dirname "$0")" && pwd)
ROB=$HERE/../logs
FIX=$HERE/../report/fixtures
LOG=$SHARED/data/logs/lnav-shop-access.log
. "$HERE/lib/helpers.sh"

self_contained() { # NAME FILE : no script, no external reference, no event handler
    grep -qi '<script' "$2" && fail "$1: has a <script>"
    grep -Eqi '(src|href|xlink:href)="(https?:)?//' "$2" && fail "$1: references an external URL"
    grep -Eqi '<link|@import|url\((https?:)?//' "$2" && fail "$1: external style or font"
    grep -Eqi ' on[a-z]+="' "$2" && fail "$1: has an event handler attribute"
    grep -q "default-src 'none'" "$2" || fail "$1: no Content-Security-Policy"
    tail -c 8 "$2" | grep -q '</html>' || fail "$1: page not complete"
}

# --- every kind renders; --help; usage errors
expect_run "report --help" 0 "$BIN" report --help
grep -q 'Usage: robotscan report' "$T/out" || fail "report --help text"
expect_run "no file" 2 "$BIN" report
expect_err "no file" 'needs at least one STATS.json'
expect_run "unknown option" 2 "$BIN" report --nope "$FIX/survey.json"
expect_run "-o without value" 2 "$BIN" report "$FIX/survey.json" -o
for f in survey survey-real diff diff-logs diff-logs-real logs-v2; do
    expect_run "report $f" 0 "$BIN" report "$FIX/$f.json" -o "$T/$f.html"
    self_contained "$f" "$T/$f.html"
done
grep -q 'Who is blocked where' "$T/survey.html" || fail "survey page lacks its chart"
grep -q 'Flips per origin' "$T/diff.html" || fail "diff page lacks its origin chart"
grep -q 'Hits that flip per bot' "$T/diff.html" && fail "diff of URLs has a hits chart"
grep -q 'Hits that flip per bot' "$T/diff-logs.html" || fail "diff of logs lacks its hits chart"
grep -q 'Spoofed hits per claimed bot' "$T/logs-v2.html" || fail "logs v2 page lacks spoofed hits"
grep -q 'Top violated paths' "$T/logs-v2.html" || fail "logs v2 page lacks violated paths"
grep -q 'per day' "$T/logs-v2.html" || fail "logs v2 page (6 days of hours) is not per day"
# hours over more than four days and no "days": summed per agent and day
python3 - "$FIX/logs-v2.json" "$T/nodays.json" <<'PY' || fail "making the no-days fixture"
import json, sys
d = json.load(open(sys.argv[1]))
del d["days"]
d["hours"].append({"agent": "Googlebot", "hour": "2024-03-01T05", "hits": 7, "violations": 1})
json.dump(d, open(sys.argv[2], "w"))
PY
expect_run "report no days" 0 "$BIN" report "$T/nodays.json" -o "$T/nodays.html"
grep -q 'Every bot per day (summed from the hourly counts)' "$T/nodays.html" || fail "no days: not summed per day"
grep -q '<th scope="row">Googlebot</th><td>2024-03-01</td><td class="n">507</td><td class="n">21</td>' "$T/nodays.html" \
    || fail "no days: Googlebot's 2024-03-01 is not 500+7 hits, 20+1 violations"
# stdout when no -o
expect_run "report to stdout" 0 "$BIN" report "$FIX/diff.json"
cmp -s "$T/out" "$T/diff.html" || fail "stdout page differs from -o page"

# --- strings are escaped: the fixture has <script> in a path and & " < > in an agent
grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "$T/logs-v2.html" || fail "path not escaped"
grep -q 'AhrefsBot &amp; &quot;friends&quot; &lt;x&gt;' "$T/logs-v2.html" || fail "agent not escaped"

# --- logs --html == report of the same --stats; --html without --stats works
expect_run "logs --html" 0 "$BIN" logs --robots "$ROB/zanbil.ir.robots.txt" --host zanbil.ir --quiet \
    --stats "$T/l.json" --html "$T/l1.html" "$LOG"
# (the statistics do not record --host and --robots: report --site/--robots say them)
expect_run "report l.json" 0 "$BIN" report --site zanbil.ir --robots "$ROB/zanbil.ir.robots.txt" "$T/l.json" -o "$T/l2.html"
cmp -s "$T/l1.html" "$T/l2.html" || fail "logs --html differs from report of its --stats"
self_contained "logs --html" "$T/l1.html"
expect_run "logs --html only" 0 "$BIN" logs --robots "$ROB/zanbil.ir.robots.txt" --host zanbil.ir --quiet \
    --html "$T/l3.html" "$LOG"
grep -q '<title>Crawler audit of zanbil.ir, 2019-01-22, against zanbil.ir.robots.txt</title>' "$T/l3.html" \
    || fail "--html without --stats: title: $(grep -o '<title>[^<]*' "$T/l3.html")"
for n in 160 104 45 14 12; do grep -q "<td class=\"n\">$n</td>" "$T/l3.html" || fail "--html without --stats lacks $n"; done
ls /proc/self/fd >/dev/null 2>&1 || skip "memory file for --html without --stats" "no /proc"
expect_run "lint has no --html" 2 "$BIN" lint --html "$T/x.html" "$ROB/zanbil.ir.robots.txt"

# --- urls --html
expect_run "urls --html" 0 "$BIN" urls --robots "$SHARED/data/robots" --agent Googlebot --quiet \
    --stats "$T/u.json" --html "$T/u.html" "$SHARED/data/urls/protego-top-10000-websites.txt"
self_contained "urls --html" "$T/u.html"
python3 - "$T/u.json" "$T/u.html" <<'PY' || fail "urls page lacks reason counts"
import json, sys
d = json.load(open(sys.argv[1])); page = open(sys.argv[2]).read()
missing = [k for k, v in d["reasons"].items() if '<th scope="row">%s</th><td class="n">%d</td>' % (k, v) not in page]
print(missing) if missing else None
sys.exit(1 if missing or d["urls"] == 0 else 0)
PY

# --- several files: one page, a section each
expect_run "two files" 0 "$BIN" report "$T/l.json" "$FIX/survey.json" -o "$T/two.html"
[ "$(grep -c '<section class="doc"' "$T/two.html")" = 2 ] || fail "two files: not two sections"

# --- empty runs: a page that says there is nothing to show
: >"$T/empty.log"
expect_run "logs empty" 0 "$BIN" logs --robots "$ROB/zanbil.ir.robots.txt" --host zanbil.ir --quiet \
    --stats "$T/le.json" "$T/empty.log"
expect_run "report empty logs" 0 "$BIN" report "$T/le.json" -o "$T/le.html"
grep -q 'Nothing to show' "$T/le.html" || fail "empty logs run: no 'Nothing to show'"
: >"$T/empty.txt"
expect_run "urls empty" 0 "$BIN" urls --robots "$ROB/zanbil.ir.robots.txt" --agent Googlebot --quiet \
    --stats "$T/ue.json" "$T/empty.txt"
expect_run "report empty urls" 0 "$BIN" report "$T/ue.json" -o "$T/ue.html"
grep -q 'Nothing to show' "$T/ue.html" || fail "empty urls run: no 'Nothing to show'"

# --- bad input: exit 2, one clear message naming the file, no page written
bad() { # NAME REGEX FILE
    rm -f "$T/bad.html"
    expect_run "$1" 2 "$BIN" report "$3" -o "$T/bad.html"
    expect_err "$1" "$2"
    [ -e "$T/bad.html" ] && fail "$1: a page was written"
}
setkey() { # FILE KEY JSON-VALUE OUT : the stats with one top-level field set
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d[sys.argv[2]]=json.loads(sys.argv[3]); json.dump(d,open(sys.argv[4],"w"))' "$@" \
        || fail "setkey $2"
}
setkey "$T/l.json" schema_version 99 "$T/v99.json"
bad "unknown schema version" "v99.json: schema_version 99 is not supported" "$T/v99.json"
setkey "$T/l.json" schema_version '"1"' "$T/vs.json"
bad "schema version string" '"schema_version" is not an integer' "$T/vs.json"
head -c 300 "$T/l.json" >"$T/trunc.json"
bad "truncated JSON" 'trunc.json: not valid JSON \(truncated or damaged\?\): line 1' "$T/trunc.json"
: >"$T/zero.json"
bad "empty file" 'zero.json: empty file' "$T/zero.json"
echo '[1,2]' >"$T/arr.json"
bad "not an object" 'not a robotscan statistics file' "$T/arr.json"
echo '{"lines":3}' >"$T/nocmd.json"
bad "no command" 'no "command" field' "$T/nocmd.json"
echo '{"command":"lint"}' >"$T/lint.json"
bad "unknown command" 'unknown command "lint"' "$T/lint.json"
sed 's/"hits":160/"hits":"160"/' "$T/l.json" >"$T/type.json"
bad "wrong type" 'bots\[0\]: "hits" is not a non-negative integer' "$T/type.json"
sed 's/"hits":160/"hits":-160/' "$T/l.json" >"$T/neg.json"
bad "negative count" 'bots\[0\]: "hits" is not a non-negative integer' "$T/neg.json"
sed 's/"command":"logs"/"command":"logs","command":"urls"/' "$T/l.json" >"$T/dup.json"
bad "duplicate key" 'duplicate object key' "$T/dup.json"
sed 's/"hour":"2019-01-22T00"/"hour":"22\/Jan\/2019:00"/' "$T/l.json" >"$T/hour.json"
bad "bad hour" 'hours\[0\]: "hour" is not a UTC hour' "$T/hour.json"
echo '{"command":"survey","agents":[{"agent":"GPTBot","blocked":1}]}' >"$T/sv.json"
bad "survey missing class" 'agents\[0\]: "partial" is missing' "$T/sv.json"
bad "missing file" "$T/nope.json: cannot open: No such file" "$T/nope.json"
# a bad file among good ones fails the whole page
expect_run "bad among good" 2 "$BIN" report "$FIX/survey.json" "$T/trunc.json" -o "$T/bad.html"
[ -e "$T/bad.html" ] && fail "bad among good: a page was written"
# --html with unwritable output: exit 2
expect_run "--html unwritable" 2 "$BIN" logs --robots "$ROB/zanbil.ir.robots.txt" --host zanbil.ir --quiet \
    --html "$T/no/such/dir/x.html" "$LOG"
expect_err "--html unwritable" "cannot write the report"

finish
