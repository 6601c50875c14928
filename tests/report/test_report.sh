#!/usr/bin/env bash
# `robotscan report` in a real browser: pages made from the shared logs, from
# `urls` over the shared robots files, and from the survey/diff fixtures are
# opened in headless Chromium (tests/report/check_page.py: no console message,
# no network request, the JSON's numbers in the DOM, a screenshot that is not
# blank, a printable PDF). Negative controls prove the checks can fail.
# Six browser launches in all (Chromium is heavy on a shared 2-core machine): the site owner's page
# of `logs --html` is shot at 1400 and 700 px wide.
# Usage: bash tests/report/test_report.sh ./robotscan SHARED_DIR
#   REPORT_SCREENSHOT=FILE.png  also keeps the three-log page's screenshot there;
#   REPORT_SCREENSHOT_ELASTIC=docs/img/report-elastic.png  the elastic log's `logs --html` page's.
set -u
BIN=${1:-./robotscan}
SHARED=${2:-build/testdata}
HERE=$(cd "$(dirname "$0")" && pwd)
ROB=$HERE/../logs
FIX=$HERE/fixtures
. "$HERE/../cli/lib/helpers.sh"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
    echo "FAIL: no chromium (scripts/deps.sh installs Debian's chromium)"
    exit 1
fi
check() { # NAME PAGE STATS... : the browser checks must pass
    local name=$1 page=$2; shift 2
    python3 "$HERE/check_page.py" "$CHROMIUM" "$page" "$T/chk-$name" "$@" >"$T/chk-$name.log" 2>&1 \
        || fail "$name: $(grep -E '^FAIL' "$T/chk-$name.log" | head -5)"
    grep -q 'all checks passed' "$T/chk-$name.log" || fail "$name: checker did not finish: $(tail -3 "$T/chk-$name.log")"
}

# --- logs: the three shared logs, one page (one section each; the hackers log has no bots)
VERIFY=()
if "$BIN" logs --help | grep -q -- '--verify'; then  # spoofed hits against Google's published ranges
    for f in googlebot special-crawlers user-triggered-fetchers; do
        VERIFY+=(--verify "$SHARED/data/agents/ip-ranges/$f.json")
    done
else
    echo "note: this robotscan's logs has no --verify: the page shows no spoofed hits"
fi
LOGSTATS=()
for pair in "elastic-apache_logs semicomplete.com" "lnav-shop-access zanbil.ir" "logparser-hackers-access howto.basjes.nl"; do
    set -- $pair
    "$BIN" logs --robots "$ROB/$2.robots.txt" --host "$2" --quiet "${VERIFY[@]}" --stats "$T/$1.json" \
        "$SHARED/data/logs/$1.log" >/dev/null || fail "logs $1: exit $?"
    LOGSTATS+=("$T/$1.json")
done
# from inside $T, so the page names the files without the temporary directory
BIN_ABS=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
(cd "$T" && "$BIN_ABS" report elastic-apache_logs.json lnav-shop-access.json logparser-hackers-access.json \
    --title "robotscan report: three shared access logs" -o logs.html) || fail "report logs: exit $?"
[ -s "$T/logs.html" ] || fail "report logs: empty page"
check logs "$T/logs.html" "${LOGSTATS[@]}"
if [ -n "${REPORT_SCREENSHOT:-}" ] && [ -s "$T/chk-logs/screenshot.png" ]; then
    cp "$T/chk-logs/screenshot.png" "$REPORT_SCREENSHOT" && echo "screenshot kept in $REPORT_SCREENSHOT"
fi

# --- what a site owner reads first (issue 29 item 3): `logs --html` on the elastic log, checked in
# the browser at two widths, then its structure: the title names the site, the robots.txt and the
# period; the section opens with those facts and a crawler-only headline; user-triggered fetchers and
# HTTP libraries are charted apart; the run's internals come last, folded; no inner scroll boxes;
# hour labels that read as times
"$BIN" logs --robots "$ROB/semicomplete.com.robots.txt" --host semicomplete.com --quiet --stats "$T/owner.json" \
    --html "$T/owner.html" "$SHARED/data/logs/elastic-apache_logs.log" >/dev/null || fail "logs --html: exit $?"
check owner-1400 "$T/owner.html" "$T/owner.json"
python3 "$HERE/check_page.py" --no-pdf --width 700 "$CHROMIUM" "$T/owner.html" "$T/chk-owner-700" "$T/owner.json" \
    >"$T/chk-owner-700.log" 2>&1 || fail "owner at 700 px: $(grep -E '^FAIL' "$T/chk-owner-700.log" | head -5)"
if [ -n "${REPORT_SCREENSHOT_ELASTIC:-}" ] && [ -s "$T/chk-owner-1400/screenshot.png" ]; then
    cp "$T/chk-owner-1400/screenshot.png" "$REPORT_SCREENSHOT_ELASTIC" && echo "screenshot kept in $REPORT_SCREENSHOT_ELASTIC"
fi
python3 - "$T/owner.html" <<'PY' || fail "the site owner's page: see above"
import re, sys
s = open(sys.argv[1], encoding="utf-8").read()
bad = []
title = re.search(r"<title>([^<]*)</title>", s).group(1)
for want in ("semicomplete.com", "2015-05-17", "2015-05-20", "semicomplete.com.robots.txt"):
    if want not in title:
        bad.append("the title %r lacks %r" % (title, want))
h2 = s.index("<h2")
facts = s.find('<dl class="facts">', h2)
first_chart = s.find('<svg class="chart"', h2)
if facts < 0 or facts > first_chart:
    bad.append("no facts (site, robots.txt, period) before the first chart")
else:
    f = s[facts:s.index("</dl>", facts)]
    for want in ("semicomplete.com", "semicomplete.com.robots.txt", "2015-05-17 10:00", "2015-05-20 21:59"):
        if want not in f:
            bad.append("the facts lack %r" % want)
glance = s.find('class="glance"', h2)
if glance < 0 or glance > first_chart:
    bad.append("no at-a-glance headline before the first chart")
else:
    g = s[glance:s.index("</section>", glance)]
    if "crawler hits broke robots.txt" not in g:
        bad.append("the headline does not count crawlers' violations")
    for other in ("Tiny Tiny RSS", "FeedBurner", "Feedbin", "Wget", "curl"):
        if ">%s<" % other in g:
            bad.append("the headline names %s (not a crawler)" % other)
run = s.find("Run details")
if run < 0 or run < s.rfind('<svg class="chart"') or s.find("schema_version") < run:
    bad.append("the run's internals (schema_version, seconds) are not last")
if not re.search(r'<details class="run">', s) or re.search(r'<details class="run" open', s):
    bad.append("the run details are not folded")
m = re.search(r'<svg class="chart"[^>]*><title id="c\d+">Crawlers: hits and violations per crawler</title>(.*?)</svg>', s)
if not m:
    bad.append("no crawler-only chart")
else:
    for other in ("Tiny Tiny RSS", "FeedBurner", "Feedfetcher-Google", "Wget", "curl", "python-requests"):
        if "<title>%s:" % other in m.group(1):
            bad.append("the crawler chart shows %s" % other)
for other in ("Tiny Tiny RSS", "Wget"):
    if not re.search(r"<title>%s: hits \d+, on disallowed paths \d+</title>" % re.escape(other), s):
        bad.append("%s is not shown apart" % other)
style = s[s.index("<style>"):s.index("</style>")]
if re.search(r"max-height|overflow(-y)?:\s*(auto|scroll)", style):
    bad.append("an inner scroll box in the style: %s" % re.search(r"[^{}]*\{[^}]*(max-height|overflow(-y)?:\s*(auto|scroll))[^}]*\}", style).group(0))
if not re.search(r'class="ax">\d\d:00</text>', s) or not re.search(r'class="ax day">\d{1,2} May</text>', s):
    bad.append("the hour axis has no HH:00 and day labels")
fs = re.search(r"svg text\.ax\{font-size:(\d+)px", style)
if not fs or int(fs.group(1)) < 13:
    bad.append("axis labels smaller than 13px")
for b in bad:
    print("FAIL: owner page: " + b)
sys.exit(1 if bad else 0)
PY

# --- urls over the shared robots files, survey and diff fixtures, a schema_version 2 logs fixture (the shape of logs with --verify): one page
"$BIN" urls --robots "$SHARED/data/robots" --agent GPTBot --quiet --stats "$T/urls.json" \
    "$SHARED/data/urls/protego-top-10000-websites.txt" >/dev/null || fail "urls: exit $?"
# fixtures: the shapes survey and diff write (*-real.json: their output on the shared data, from the
# survey and diff branches of this session), hand-written ones, and logs stats of schema_version 2
"$BIN" sitemaps --robots "$SHARED/data/robots" --stats "$T/sitemaps.json" >/dev/null || fail "sitemaps: exit $?"
OTHER=("$T/sitemaps.json" "$T/urls.json" "$FIX/survey.json" "$FIX/survey-real.json" "$FIX/diff.json" "$FIX/diff-logs.json"
       "$FIX/diff-logs-real.json" "$FIX/logs-v2.json")
# the real robots files' survey and a diff of the shared log, once this robotscan has the commands
if "$BIN" survey --help >/dev/null 2>&1; then
    "$BIN" survey --robots "$SHARED/data/robots" --stats "$T/survey.json" >/dev/null || fail "survey: exit $?"
    OTHER+=("$T/survey.json")
else
    echo "note: this robotscan has no survey command: survey pages are checked on fixtures only"
fi
if "$BIN" diff --help >/dev/null 2>&1; then
    "$BIN" diff --robots "$ROB/semicomplete.com.robots.txt" --old-semantics google --new-semantics first-match \
        --logs --host semicomplete.com --quiet --stats "$T/diff.json" "$SHARED/data/logs/elastic-apache_logs.log" \
        >/dev/null || fail "diff: exit $?"
    OTHER+=("$T/diff.json")
else
    echo "note: this robotscan has no diff command: diff pages are checked on fixtures only"
fi
"$BIN" report "${OTHER[@]}" -o "$T/other.html" || fail "report urls/survey/diff: exit $?"
check other "$T/other.html" "${OTHER[@]}"

# --- negative controls: each planted fault must make the checker fail
python3 - "$T/logs.html" "$T" <<'PY' || fail "planting faults"
import re, sys
s = open(sys.argv[1], encoding="utf-8").read()
csp = re.search(r'<meta http-equiv="Content-Security-Policy"[^>]*>\n', s).group(0)
s = s.replace(csp, "")  # without the policy, so each check is tested on its own
open(sys.argv[2] + "/plant-net.html", "w").write(s.replace("</body>", '<script src="http://127.0.0.1:9/planted.js"></script></body>'))
open(sys.argv[2] + "/plant-js.html", "w").write(s.replace("</body>", "<script>plantedUndefinedFunction()</script></body>"))
n = re.subn(r'(<th scope="row">Googlebot</th><td class="n">)(\d+)', lambda m: m.group(1) + str(int(m.group(2)) + 1), s, count=1)
open(sys.argv[2] + "/plant-num.html", "w").write(n[0])
sys.exit(0 if n[1] == 1 else 1)
PY
planted() { # NAME WANT_REGEX CHECKER-ARGS...
    local name=$1 want=$2; shift 2
    python3 "$HERE/check_page.py" "$@" >"$T/plant-$name.log" 2>&1
    local rc=$?
    [ $rc = 1 ] || fail "planted $name: checker exit $rc, want 1"
    grep -Eq "$want" "$T/plant-$name.log" || fail "planted $name: checker did not report /$want/: $(head -c 300 "$T/plant-$name.log")"
}
planted net '^FAIL: network request by the page: http://127.0.0.1:9/planted.js' --no-pdf "$CHROMIUM" "$T/plant-net.html" "$T/chk-pn" "${LOGSTATS[@]}"
planted js '^FAIL: console: .*plantedUndefinedFunction' --no-pdf "$CHROMIUM" "$T/plant-js.html" "$T/chk-pj" "${LOGSTATS[@]}"
planted num "^FAIL: elastic-apache_logs.json: bot 'Googlebot': no table row" --no-browser "$T/plant-num.html" "$T/chk-pm" "${LOGSTATS[@]}"
planted blank '^FAIL: screenshot looks blank' --blank-png-selftest "$T/chk-pb"

finish
