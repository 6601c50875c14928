#!/usr/bin/env bash
# CLI tests for `robotscan logs` log formats (SPEC 4, 7): the three real logs of
# SHARED/data/logs rewritten by tests/logs_convert.py as cloudfront, w3c, alb, json
# (nginx escape=json), caddy, cloudflare, and read through an Apache LogFormat string,
# give the same records and stats as the originals; sample lines written from each
# format's documentation; --host; wrong formats; bad input; crawl-delay with
# /robots.txt fetches in the spacing.
# Usage: bash tests/cli/test_logformats.sh ./robotscan SHARED_DIR
set -u
BIN=${1:-./robotscan}
SHARED=${2:-build/testdata}
HERE=$(cd "$(dirname "$0")" && pwd)
LOGS=$SHARED/data/logs
ROB=$HERE/../logs
CONVERT=$HERE/../logs_convert.py
. "$HERE/lib/helpers.sh"

[ -f "$LOGS/elastic-apache_logs.log" ] || { fail "no logs in $LOGS"; finish; }

# same_stats A.json B.json : equal but for timing, the format's name, and lines/blank
# (W3C headers are lines of their own); lines - blank must agree.
same_stats() {
    python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
if a["lines"] - a["blank"] != b["lines"] - b["blank"]:
    sys.exit("records: %d vs %d" % (a["lines"] - a["blank"], b["lines"] - b["blank"]))
for d in (a, b):
    for k in ("seconds", "log_format", "lines", "blank"):
        d.pop(k)
if a != b:
    diff = [k for k in a if a[k] != b.get(k)]
    sys.exit("stats differ in %s" % diff)
if a["schema_version"] != 2:
    sys.exit("schema_version")
PY
}

# --- the real logs in every format: same records, same stats
for pair in "elastic-apache_logs semicomplete.com" "lnav-shop-access zanbil.ir" "logparser-hackers-access howto.basjes.nl"; do
    set -- $pair
    name=$1 host=$2
    "$BIN" logs --robots "$ROB/$host.robots.txt" --host "$host" --format tsv --stats "$T/$name.json" \
        "$LOGS/$name.log" >"$T/$name.tsv" || fail "$name: original exit $?"
    [ "$(wc -l <"$T/$name.tsv")" -ge 1 ] || fail "$name: no header"
    for f in cloudfront w3c alb json caddy cloudflare; do
        python3 "$CONVERT" "$LOGS/$name.log" "$host" "$f" "$T/$name.$f.log" || { fail "$name: convert $f"; continue; }
        lf=$f; [ "$f" = caddy ] && lf=json
        "$BIN" logs --robots "$ROB/$host.robots.txt" --host "$host" --log-format "$lf" --format tsv \
            --stats "$T/$name.$f.json" "$T/$name.$f.log" >"$T/$name.$f.tsv" 2>"$T/err" \
            || fail "$name $f: exit $? ($(head -c 200 "$T/err"))"
        cmp -s "$T/$name.tsv" "$T/$name.$f.tsv" || fail "$name $f: records differ: $(diff "$T/$name.tsv" "$T/$name.$f.tsv" | head -3)"
        msg=$(same_stats "$T/$name.json" "$T/$name.$f.json" 2>&1) || fail "$name $f: $msg"
    done
done
# the elastic log has bot hits, and converted hits are not all trivially zero
[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["bot_hits"])' "$T/elastic-apache_logs.json")" -gt 1000 ] \
    || fail "elastic: too few bot hits"

# --- formats that name the site need no --host; auto finds every format; -j 2
E=elastic-apache_logs
for f in cloudfront alb json caddy cloudflare w3c; do
    lf=$f; [ "$f" = caddy ] && lf=json
    "$BIN" logs --robots "$ROB/semicomplete.com.robots.txt" --log-format "$lf" --format tsv "$T/$E.$f.log" >"$T/nohost.tsv" \
        || fail "$f without --host: exit $?"
    cmp -s "$T/$E.tsv" "$T/nohost.tsv" || fail "$f without --host: records differ"
    "$BIN" logs --robots "$ROB/semicomplete.com.robots.txt" --log-format auto --format tsv "$T/$E.$f.log" >"$T/auto.tsv" \
        || fail "$f with auto: exit $?"
    cmp -s "$T/$E.tsv" "$T/auto.tsv" || fail "auto on $f: records differ"
    "$BIN" logs --robots "$ROB/semicomplete.com.robots.txt" --log-format "$lf" --format tsv -j 2 "$T/$E.$f.log" >"$T/j2.tsv" \
        || fail "$f -j 2: exit $?"
    cmp -s "$T/$E.tsv" "$T/j2.tsv" || fail "$f -j 2: records differ"
done
"$BIN" logs --robots "$ROB/semicomplete.com.robots.txt" --host semicomplete.com --log-format auto --format tsv \
    "$LOGS/$E.log" >"$T/auto.tsv" || fail "auto on combined: exit $?"
cmp -s "$T/$E.tsv" "$T/auto.tsv" || fail "auto on combined: records differ"

# --- an Apache LogFormat string reads the same log as `combined`
"$BIN" logs --robots "$ROB/semicomplete.com.robots.txt" --host semicomplete.com --format tsv \
    --log-format '%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-Agent}i"' "$LOGS/$E.log" >"$T/apache.tsv" \
    || fail "Apache LogFormat: exit $?"
cmp -s "$T/$E.tsv" "$T/apache.tsv" || fail "Apache LogFormat: records differ from combined"
# vhost_combined as Apache writes it (%v:%p first)
awk '{print "semicomplete.com:443 " $0}' "$LOGS/$E.log" >"$T/vh.log"
"$BIN" logs --robots "$ROB/semicomplete.com.robots.txt" --format tsv \
    --log-format '"%v:%p %h %l %u %t \"%r\" %>s %O \"%{Referer}i\" \"%{User-Agent}i\""' "$T/vh.log" >"$T/vh.tsv" \
    || fail "Apache vhost LogFormat: exit $?"
cmp -s "$T/$E.tsv" "$T/vh.tsv" || fail "Apache vhost LogFormat: records differ"
expect_run "Apache %{...}t refused" 2 "$BIN" logs --robots "$ROB/semicomplete.com.robots.txt" --host a.com \
    --log-format '%h %{%Y}t "%r"' "$LOGS/$E.log"

# --- sample lines written from the formats' documentation
printf 'User-agent: *\nDisallow: /private/\nCrawl-delay: 10\n' >"$T/r.txt"
UA_GB='Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'
UA_ENC='Mozilla/5.0%20(compatible;%20Googlebot/2.1;%20+http://www.google.com/bot.html)'
{   # CloudFront standard log (legacy): #Version, #Fields, tab-separated, UA %-encoded
    printf '#Version: 1.0\n'
    printf '#Fields: date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status cs(Referer) cs(User-Agent) cs-uri-query cs(Cookie) x-edge-result-type x-edge-request-id x-host-header cs-protocol cs-bytes time-taken x-forwarded-for ssl-protocol ssl-cipher x-edge-response-result-type cs-protocol-version fle-status fle-encrypted-fields c-port time-to-first-byte x-edge-detailed-result-type sc-content-type sc-content-len sc-range-start sc-range-end\n'
    printf '2019-12-04\t21:02:31\tLAX1\t392\t192.0.2.100\tGET\td111111abcdef8.cloudfront.net\t/private/index.html\t200\t-\t%s\t-\t-\tHit\tSOX4xwn4XV6Q4rgb7XiVGOHms_BGlTAC4KyHmureZmBNrjGdRLiNIQ==\twww.example.com\thttps\t23\t0.001\t-\tTLSv1.2\tECDHE-RSA-AES128-GCM-SHA256\tHit\tHTTP/2.0\t-\t-\t11040\t0.001\tHit\ttext/html\t78\t-\t-\n' "$UA_ENC"
    printf '2019-12-04\t21:02:35\tLAX1\t392\t2001:db8::1\tGET\td111111abcdef8.cloudfront.net\t/index.html\t200\t-\t%s\tq=1\t-\tHit\tk7-CxF\twww.example.com\thttp\t23\t0.001\t-\t-\t-\tHit\tHTTP/1.1\t-\t-\t11040\t0.001\tHit\ttext/html\t78\t-\t-\n' "$UA_ENC"
} >"$T/cf.log"
expect_run "cloudfront doc sample" 0 "$BIN" logs --robots "$T/r.txt" --log-format cloudfront --format tsv "$T/cf.log"
cmp -s "$T/out" <(printf 'time\tclient\torigin\tagent\tuser_agent\tmethod\turl\tstatus\tverdict\tline\trule\treason\tdelay_violation\n2019-12-04T21:02:31Z\t192.0.2.100\thttps://www.example.com\tGooglebot\t%s\tGET\thttps://www.example.com/private/index.html\t200\tdisallow\t2\tdisallow: /private/\tmatched\t0\n2019-12-04T21:02:35Z\t2001:db8::1\thttp://www.example.com\tGooglebot\t%s\tGET\thttp://www.example.com/index.html?q=1\t200\tallow\t0\t\tno-match\t0\n' "$UA_GB" "$UA_GB") || fail "cloudfront doc sample: $(cat "$T/out")"
{   # IIS W3C extended: spaces separate, `+` for spaces; #Fields changes mid-file
    printf '#Software: Microsoft Internet Information Services 10.0\n#Version: 1.0\n#Date: 2019-12-04 21:00:00\n'
    printf '#Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs(User-Agent) cs(Referer) sc-status sc-substatus sc-win32-status time-taken\n'
    printf '2019-12-04 21:02:31 10.0.0.5 GET /private/a.html - 443 - 192.0.2.7 Mozilla/5.0+(compatible;+bingbot/2.0;++http://www.bing.com/bingbot.htm) - 200 0 0 15\n'
    printf '#Fields: time c-ip cs-method cs-uri-stem sc-status cs(User-Agent) date\n'
    printf '21:02:39 192.0.2.7 GET /b.html 404 Mozilla/5.0+(compatible;+bingbot/2.0;++http://www.bing.com/bingbot.htm) 2019-12-04\n'
    printf '2019-12-04 21:02:40 10.0.0.5 GET\n'
} >"$T/iis.log"
expect_run "w3c doc sample" 0 "$BIN" logs --robots "$T/r.txt" --host www.example.com --log-format w3c --format tsv --stats "$T/iis.json" "$T/iis.log"
[ "$(cut -f1,2,4,7,8,9 "$T/out" | tail -n +2)" = "$(printf '2019-12-04T21:02:31Z\t192.0.2.7\tbingbot\thttps://www.example.com/private/a.html\t200\tdisallow\n2019-12-04T21:02:39Z\t192.0.2.7\tbingbot\thttps://www.example.com/b.html\t404\tallow')" ] \
    || fail "w3c rows (#Fields changed mid-file): $(cat "$T/out")"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["malformed"]==1 and d["bot_hits"]==2 else 1)' "$T/iis.json" \
    || fail "w3c: the line with fewer values than #Fields is not counted malformed: $(cat "$T/iis.json" | head -c 300)"
# ALB access log entry (documentation example), an IPv6 client, and a truncated line
{
    printf 'https 2018-07-02T22:23:00.186641Z app/my-loadbalancer/50dc6c495c0c9188 192.168.131.39:2817 10.0.0.1:80 0.086 0.048 0.037 200 200 0 57 "GET https://www.example.com:443/private/x HTTP/1.1" "%s" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067 "Root=1-58337281-1d84f3d73c47ec4e58577259" "www.example.com" "arn:aws:acm:us-east-2:123456789012:certificate/12345678-1234-1234-1234-123456789012" 1 2018-07-02T22:22:48.364000Z "authenticate,forward" "-" "-" "10.0.0.1:80" "200" "-" "-" TID_123\n' "$UA_GB"
    printf 'http 2018-07-02T22:23:10.186641Z app/my-loadbalancer/50dc6c495c0c9188 2001:db8::7:4242 10.0.0.1:80 0.000 0.001 0.000 200 200 34 366 "GET http://www.example.com:80/ HTTP/1.1" "%s" - - arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067 "Root=1-58337262-36d228ad5d99923122bbe354" "-" "-" 0 2018-07-02T22:22:48.364000Z "forward" "-" "-" "10.0.0.1:80" "200" "-" "-" TID_456\n' "$UA_GB"
    printf 'https 2018-07-02T22:23:20.186641Z app/my-loadbalancer/50dc6c495c0c9188 192.168.131.39:2817 10.0.0.1:80 0.086 0.048 0.037 200 200 0 57 "GET https://www.example.com:443/y HTTP/1.1" "Mozilla/5.0 (compat\n'
} >"$T/alb.log"
expect_run "alb doc sample" 0 "$BIN" logs --robots "$T/r.txt" --log-format alb --format tsv --stats "$T/alb.json" "$T/alb.log"
[ "$(cut -f1,2,3,7,9 "$T/out" | tail -n +2)" = "$(printf '2018-07-02T22:23:00Z\t192.168.131.39\thttps://www.example.com\thttps://www.example.com/private/x\tdisallow\n2018-07-02T22:23:10Z\t2001:db8::7\thttp://www.example.com\thttp://www.example.com/\tallow')" ] \
    || fail "alb rows: $(cat "$T/out")"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["malformed"]==1 else 1)' "$T/alb.json" \
    || fail "alb: truncated line not counted malformed"
# Caddy (JSON, nested, User-Agent an array), nginx escape=json, Cloudflare; malformed JSON counted
{
    printf '{"level":"info","ts":1646861401.5241024,"logger":"http.log.access","msg":"handled request","request":{"remote_ip":"127.0.0.1","remote_port":"41342","client_ip":"127.0.0.1","proto":"HTTP/2.0","method":"GET","host":"www.example.com","uri":"/private/caddy","headers":{"User-Agent":["%s"],"Accept":["*/*"]}},"bytes_read":0,"user_id":"","duration":0.000929675,"size":10900,"status":200,"resp_headers":{"Server":["Caddy"]}}\n' "$UA_GB"
    printf '{"time_iso8601":"2022-03-09T22:30:11+01:00","remote_addr":"::1","host":"www.example.com","request":"GET /\\u00e9t\\u00e9?x=\\"1\\" HTTP/1.1","status":"200","http_user_agent":"Mozilla/5.0 (compatible; Googlebot/2.1; +http:\\/\\/www.google.com\\/bot.html)"}\n'
    printf '{"ClientIP":"192.0.2.1","ClientRequestHost":"www.example.com","ClientRequestMethod":"GET","ClientRequestURI":"/private/cf","ClientRequestScheme":"http","EdgeStartTimestamp":"2022-03-09T21:30:12Z","EdgeResponseStatus":200,"ClientRequestUserAgent":"%s"}\n' "$UA_GB"
    printf '{"ts":1646861401,"request":{"host":"www.example.com","uri":"/x","headers":{"User-Agent":["%s"]}},"status":200\n' "$UA_GB"
    printf '{"ts":1646861401,"request":{"host":"www.example.com","uri":"/x\\q"}}\n'
    printf 'not json at all\n'
} >"$T/j.log"
# the defaults read Caddy and nginx; --field adds Cloudflare's keys (a mapping replaces the
# defaults of its field, so list both where lines differ)
expect_run "json samples" 0 "$BIN" logs --robots "$T/r.txt" --log-format json --format tsv --stats "$T/j.json" \
    --field time=ts --field time=time_iso8601 --field time=EdgeStartTimestamp --field client=request.client_ip \
    --field client=remote_addr --field client=ClientIP --field host=request.host --field host=host \
    --field host=ClientRequestHost --field url=ClientRequestURI --field url=request.uri --field request=request \
    --field user_agent=request.headers.User-Agent --field user_agent=http_user_agent \
    --field user_agent=ClientRequestUserAgent --field scheme=ClientRequestScheme "$T/j.log"
python3 - "$T/out" "$T/j.json" <<'PY' || fail "json samples: $(cat "$T/out")"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], encoding="utf-8"), delimiter="\t", quoting=csv.QUOTE_NONE))
st = json.load(open(sys.argv[2]))
want = [("2022-03-09T21:30:01Z", "127.0.0.1", "https://www.example.com/private/caddy", "disallow"),
        ("2022-03-09T21:30:11Z", "::1", "https://www.example.com/\u00e9t\u00e9?x=\"1\"", "allow"),
        ("2022-03-09T21:30:12Z", "192.0.2.1", "http://www.example.com/private/cf", "disallow")]
got = [(r["time"], r["client"], r["url"], r["verdict"]) for r in rows]
assert got == want, got
assert st["malformed"] == 3, st["malformed"]
PY
expect_run "cloudflare format" 0 "$BIN" logs --robots "$T/r.txt" --log-format cloudflare --format tsv "$T/j.log"
[ "$(tail -n +2 "$T/out" | cut -f7)" = "http://www.example.com/private/cf" ] || fail "cloudflare row: $(cat "$T/out")"
expect_run "bad --field" 2 "$BIN" logs --robots "$T/r.txt" --log-format json --field 'colour=x' "$T/j.log"
expect_run "--field on combined" 2 "$BIN" logs --robots "$T/r.txt" --host a.com --field 'time=t' "$T/j.log"

# timestamps without a zone are malformed (counted), not guessed
printf '{"time":"2022-03-09T22:30:11","host":"a.com","uri":"/","http_user_agent":"%s"}\n{"time":"2022-03-09T22:30:11Z","host":"a.com","uri":"/","http_user_agent":"%s"}\n' "$UA_GB" "$UA_GB" >"$T/nozone.log"
expect_run "no zone" 0 "$BIN" logs --robots "$T/r.txt" --log-format json --quiet --format jsonl "$T/nozone.log"
head -1 "$T/out" | grep -q '"malformed":1' || fail "time without zone not counted malformed: $(head -1 "$T/out")"
head -1 "$T/out" | grep -q '"bot_hits":1' || fail "time without zone: the good line lost"
# records without the summary: the malformed line is still reported (a note on stderr)
expect_run "no zone, tsv" 0 "$BIN" logs --robots "$T/r.txt" --log-format json --format tsv "$T/nozone.log"
expect_err "malformed note without the summary" "1 malformed line skipped"
expect_run "no zone, quiet tsv" 0 "$BIN" logs --robots "$T/r.txt" --log-format json --quiet --format tsv "$T/nozone.log"
expect_err "malformed note with a tsv summary (bot rows only)" "1 malformed line skipped"
expect_run "no zone, quiet jsonl" 0 "$BIN" logs --robots "$T/r.txt" --log-format json --quiet --format jsonl "$T/nozone.log"
grep -q malformed "$T/err" && fail "jsonl summary counts malformed lines: no note wanted: $(cat "$T/err")"

# --- --quiet is the summary alone, in the --format given
expect_run "quiet jsonl" 0 "$BIN" logs --robots "$ROB/semicomplete.com.robots.txt" --host semicomplete.com --quiet --format jsonl "$LOGS/$E.log"
python3 -c 'import json,sys; r=[json.loads(l) for l in open(sys.argv[1])]; sys.exit(0 if len(r)>3 and "lines" in r[0] and all("agent" in x for x in r[1:]) else 1)' "$T/out" \
    || fail "--quiet --format jsonl is not JSON summary lines: $(head -2 "$T/out")"
expect_run "quiet tsv" 0 "$BIN" logs --robots "$ROB/semicomplete.com.robots.txt" --host semicomplete.com --quiet --format tsv "$LOGS/$E.log"
head -1 "$T/out" | grep -q $'^agent\thits\tdisallowed' || fail "--quiet --format tsv header: $(head -1 "$T/out")"
grep -q $'^Googlebot\t509\t' "$T/out" || fail "--quiet --format tsv: Googlebot row"

# --- --host: a host or an origin, nothing else
for h in example.com example.com:8080 https://example.com http://example.com:8080/ '[2001:db8::1]:8443'; do
    expect_run "--host $h" 0 "$BIN" logs --robots "$T/r.txt" --host "$h" --quiet "$LOGS/$E.log"
done
for h in https://shop.example.com/path ftp://example.com 'exa mple.com' example.com:99999 example.com:x https:// ''; do
    expect_run "--host '$h'" 2 "$BIN" logs --robots "$T/r.txt" --host "$h" --quiet "$LOGS/$E.log"
    expect_err "--host '$h' message" 'host'
done
expect_run "--host origin" 0 "$BIN" logs --robots "$T/r.txt" --host https://shop.example.com --format tsv "$LOGS/$E.log"
[ "$(tail -n +2 "$T/out" | cut -f3 | sort -u)" = "https://shop.example.com" ] || fail "--host origin: origin column"
expect_run "--host http origin" 0 "$BIN" logs --robots "$T/r.txt" --host http://shop.example.com:8080 --format tsv "$LOGS/$E.log"
[ "$(tail -n +2 "$T/out" | cut -f3 | sort -u)" = "http://shop.example.com:8080" ] || fail "--host http origin: origin column"

# --- a log in another format: exit 2 with the format that reads it
expect_run "vhost_combined on combined" 2 "$BIN" logs --robots "$T/r.txt" --log-format vhost_combined --quiet "$LOGS/$E.log"
expect_err "vhost_combined hint" "try --log-format combined"
[ ! -s "$T/out" ] || fail "wrong format printed a summary anyway"
expect_run "combined on cloudfront" 2 "$BIN" logs --robots "$T/r.txt" --host a.com --quiet "$T/$E.cloudfront.log"
expect_err "cloudfront hint" "try --log-format cloudfront"
expect_run "combined on json" 2 "$BIN" logs --robots "$T/r.txt" --host a.com --quiet "$T/$E.json.log"
expect_err "json hint" "try --log-format json"
expect_run "json on alb" 2 "$BIN" logs --robots "$T/r.txt" --log-format json --quiet "$T/$E.alb.log"
expect_err "alb hint" "try --log-format alb"
# a misspelt format name: exit 2 naming the formats
expect_run "misspelt --log-format" 2 "$BIN" logs --robots "$T/r.txt" --host a.com --log-format clodfront "$LOGS/$E.log"
expect_err "misspelt --log-format names the formats" "cloudfront"
# common: no user agent, so without ranges it is refused with a hint
expect_run "common without --verify" 2 "$BIN" logs --robots "$T/r.txt" --host a.com --log-format common "$LOGS/$E.log"
expect_err "common hint" "--verify"
# an empty log is reported, not a silent zero
: >"$T/empty.log"
expect_run "empty log" 0 "$BIN" logs --robots "$T/r.txt" --host a.com --quiet "$T/empty.log"
expect_err "empty log warning" "no log lines"
grep -q '^lines 0:' "$T/out" || fail "empty log: summary"

# --- crawl-delay (SPEC 4): /robots.txt fetches count in the spacing, never flagged
cat >"$T/cd.log" <<L
1.2.3.4 - - [17/May/2015:10:00:00 +0000] "GET /a HTTP/1.1" 200 5 "-" "$UA_GB"
1.2.3.4 - - [17/May/2015:10:00:05 +0000] "GET /robots.txt HTTP/1.1" 200 5 "-" "$UA_GB"
1.2.3.4 - - [17/May/2015:10:00:12 +0000] "GET /b HTTP/1.1" 200 5 "-" "$UA_GB"
1.2.3.4 - - [17/May/2015:10:00:30 +0000] "GET /c HTTP/1.1" 200 5 "-" "$UA_GB"
1.2.3.4 - - [17/May/2015:10:00:32 +0000] "GET /robots.txt HTTP/1.1" 200 5 "-" "$UA_GB"
L
expect_run "crawl-delay" 0 "$BIN" logs --robots "$T/r.txt" --host a.com --format tsv "$T/cd.log"
[ "$(tail -n +2 "$T/out" | cut -f7,13 | tr '\t\n' ' ;')" = "https://a.com/a 0;https://a.com/robots.txt 0;https://a.com/b 1;https://a.com/c 0;https://a.com/robots.txt 0;" ] \
    || fail "crawl-delay with /robots.txt in the spacing: $(tail -n +2 "$T/out" | cut -f7,13 | tr '\t\n' ' ;')"

finish
