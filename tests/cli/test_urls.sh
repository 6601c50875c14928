#!/usr/bin/env bash
# CLI tests for `robotscan urls`: outputs (SPEC 5), robots sources (SPEC 3), inputs and
# bad input (SPEC 4, 7), threads; then urls_vs_check.py (urls == check == conformance).
# Usage: bash tests/cli/test_urls.sh ./robotscan SHARED   (SHARED: build/testdata after `make testdata`, or ../shared)
set -u
BIN=${1:-./robotscan}
SHARED=${2:-build/testdata}
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
. "$(dirname "$0")/lib/helpers.sh"

# usage_error NAME CMD... : exit 2, nothing on stdout, one error line naming the command
# (plus the "Try ... --help" hint)
usage_error() {
    local name=$1; shift
    expect_run "$name" 2 "$@"
    [ -s "$T/out" ] && fail "$name: wrote to stdout"
    head -1 "$T/err" | grep -q '^robotscan urls: ' || fail "$name: first stderr line: $(head -1 "$T/err")"
    [ "$(grep -vc '^Try ' "$T/err")" = 1 ] || fail "$name: not one error line: $(cat "$T/err")"
}
# json_check FILE PYTHON_EXPR... : each expression over d = json.load(FILE) must be true
json_check() {
    local file=$1 msg; shift
    msg=$(python3 - "$file" "$@" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = [e for e in sys.argv[2:] if not eval(e, {"d": d})]
if bad:
    print("false: " + "; ".join(bad) + " in " + json.dumps(d)[:600])
    sys.exit(1)
PY
) || fail "stats $file: $msg"
}

cat >"$T/robots.txt" <<'R'
User-agent: *
Disallow: /private
Allow: /private/ok
Disallow:

User-agent: FooBot
Disallow: /
R
printf 'http://e.com/private/x\nhttps://E.com:443/private/ok\nhttp://e.com/a,b\t"q"\n' >"$T/u.txt"

# ===== Outputs (SPEC 5) =====

# --- TSV: header row, columns url, origin, agent, verdict, line, rule, reason
expect_run "tsv" 0 "$BIN" urls --robots "$T/robots.txt" --agent BarBot --format tsv "$T/u.txt"
expect_out "tsv" 'url	origin	agent	verdict	line	rule	reason
http://e.com/private/x	http://e.com	BarBot	disallow	2	disallow: /private	matched
https://E.com:443/private/ok	https://e.com	BarBot	allow	3	allow: /private/ok	matched
http://e.com/a,b\t"q"	http://e.com	BarBot	allow	4	disallow: 	matched
'
# --- default on a pipe is TSV
"$BIN" urls --robots "$T/robots.txt" --agent BarBot "$T/u.txt" 2>/dev/null | cat >"$T/pipe.out"
rc=${PIPESTATUS[0]}; [ "$rc" = 0 ] || fail "default format on a pipe: exit $rc"
cmp -s "$T/pipe.out" "$T/out" || fail "default format on a pipe is not tsv"

expect_run "csv" 0 "$BIN" urls --robots "$T/robots.txt" --agent BarBot --format csv "$T/u.txt"
expect_out "csv" 'url,origin,agent,verdict,line,rule,reason
http://e.com/private/x,http://e.com,BarBot,disallow,2,disallow: /private,matched
https://E.com:443/private/ok,https://e.com,BarBot,allow,3,allow: /private/ok,matched
"http://e.com/a,b	""q""",http://e.com,BarBot,allow,4,disallow: ,matched
'
expect_run "jsonl" 0 "$BIN" urls --robots "$T/robots.txt" --agent BarBot --format jsonl "$T/u.txt"
expect_out "jsonl" '{"url":"http://e.com/private/x","origin":"http://e.com","agent":"BarBot","verdict":"disallow","line":2,"rule":"disallow: /private","reason":"matched"}
{"url":"https://E.com:443/private/ok","origin":"https://e.com","agent":"BarBot","verdict":"allow","line":3,"rule":"allow: /private/ok","reason":"matched"}
{"url":"http://e.com/a,b\u0009\"q\"","origin":"http://e.com","agent":"BarBot","verdict":"allow","line":4,"rule":"disallow: ","reason":"matched"}
'
python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$T/out" || fail "jsonl: not JSON"
expect_run "text" 0 "$BIN" urls --robots "$T/robots.txt" --agent BarBot --format text "$T/u.txt"
expect_out "text" 'DISALLOWED  http://e.com/private/x  (line 2: disallow: /private)  [matched]
allowed     https://E.com:443/private/ok  (line 3: allow: /private/ok)  [matched]
allowed     http://e.com/a,b	"q"  (line 4: disallow: )  [matched]
'
# --- the FooBot group: one rule for everything; --format=VALUE
expect_run "named agent" 0 "$BIN" urls --robots "$T/robots.txt" --agent foobot --format=csv "$T/u.txt"
expect_out "named agent" 'url,origin,agent,verdict,line,rule,reason
http://e.com/private/x,http://e.com,foobot,disallow,7,disallow: /,matched
https://E.com:443/private/ok,https://e.com,foobot,disallow,7,disallow: /,matched
"http://e.com/a,b	""q""",http://e.com,foobot,disallow,7,disallow: /,matched
'

# --- --only
expect_run "only disallowed" 0 "$BIN" urls --robots "$T/robots.txt" --agent BarBot --only disallowed "$T/u.txt"
expect_out "only disallowed" 'url	origin	agent	verdict	line	rule	reason
http://e.com/private/x	http://e.com	BarBot	disallow	2	disallow: /private	matched
'
expect_run "only allowed" 0 "$BIN" urls --robots "$T/robots.txt" --agent BarBot --only allowed --format jsonl "$T/u.txt"
[ "$(grep -c '"verdict":"allow"' "$T/out")" = 2 ] && [ "$(wc -l <"$T/out")" = 2 ] || fail "only allowed: $(cat "$T/out")"
usage_error "only bogus" "$BIN" urls --robots "$T/robots.txt" --agent x --only maybe "$T/u.txt"

# --- --quiet: the summary only (no header, no records); counts cover filtered records too
printf '# a comment\n\nhttp://e.com/private/1\n/no/host\nhttp://e.com/x\n' >"$T/q.txt"
expect_run "quiet" 0 "$BIN" urls --robots "$T/robots.txt" --agent BarBot --quiet --only allowed "$T/q.txt"
head -2 "$T/out" >"$T/out2"; mv "$T/out2" "$T/out"
expect_out "quiet" 'lines 5, URLs 2: allowed 1, disallowed 1; malformed 1, skipped 0
reasons: matched 2, no-match 0, unavailable 0, unreachable 0, no-robots 0
'
expect_ok "quiet, all" "$BIN" urls --robots "$T/robots.txt" --agent BarBot --quiet "$T/q.txt"
sed -n 3p "$T/out" | grep -Eq '^time [0-9.]+ s, [0-9]+ URLs/s$' || fail "quiet: no time/rate line"
[ "$(wc -l <"$T/out")" = 3 ] || fail "quiet: more than the summary"

# --- --fail-on-disallowed
expect_run "fail-on-disallowed" 1 "$BIN" urls --robots "$T/robots.txt" --agent BarBot --fail-on-disallowed "$T/u.txt"
[ "$(wc -l <"$T/out")" = 4 ] || fail "fail-on-disallowed: records not all written"
printf 'http://e.com/public\n' >"$T/ok.txt"
expect_run "fail-on-disallowed, none" 0 "$BIN" urls --robots "$T/robots.txt" --agent BarBot --fail-on-disallowed "$T/ok.txt"
expect_run "disallowed without the flag" 0 "$BIN" urls --robots "$T/robots.txt" --agent BarBot "$T/u.txt"
expect_run "fail-on with --only allowed" 1 "$BIN" urls --robots "$T/robots.txt" --agent BarBot \
    --only allowed --fail-on-disallowed "$T/u.txt"

# --- --help, bad usage
expect_run "help" 0 "$BIN" urls --help
grep -q '^Usage: robotscan urls' "$T/out" || fail "help not on stdout"
[ -s "$T/err" ] && fail "help wrote to stderr"
for opt in --robots --agent --format --only --quiet --stats --missing --verbose --progress --no-progress \
           --fail-on-disallowed --jobs; do
    grep -q -- "$opt" "$T/out" || fail "help does not mention $opt"
done
usage_error "no robots" "$BIN" urls --agent x "$T/u.txt"
expect_err "no robots" -- '--robots'
usage_error "no agent" "$BIN" urls --robots "$T/robots.txt" "$T/u.txt"
expect_err "no agent" -- '--agent'
usage_error "unknown option" "$BIN" urls --robots "$T/robots.txt" --agent x --bogus "$T/u.txt"
expect_err "unknown option" 'bogus'
usage_error "bad format" "$BIN" urls --robots "$T/robots.txt" --agent x --format xml "$T/u.txt"
usage_error "bad missing" "$BIN" urls --robots "$T/robots.txt" --agent x --missing maybe "$T/u.txt"
usage_error "bad jobs" "$BIN" urls --robots "$T/robots.txt" --agent x -j 0 "$T/u.txt"
usage_error "value missing" "$BIN" urls --robots "$T/robots.txt" --agent

# --- --agent repeated: one record per URL per agent, a URL's records together in --agent
# order; the expectation is built from two single-agent runs interleaved line by line
for h in $(seq 1 60); do
    printf 'http://h%d.example/private/x\nhttps://h%d.example/private/ok\n\nhttp://h%d.example/a\n' "$h" "$h" "$h"
done >"$T/ma.txt"
printf 'not a url\n' >>"$T/ma.txt"
ma_urls=$((60 * 3))
for a in FooBot BarBot; do
    expect_run "one agent $a" 0 "$BIN" urls --robots "$T/robots.txt" --agent "$a" --format tsv "$T/ma.txt"
    tail -n +2 "$T/out" >"$T/ma.$a"
    [ "$(wc -l <"$T/ma.$a")" = "$ma_urls" ] || fail "one agent $a: $(wc -l <"$T/ma.$a") records, want $ma_urls"
done
cmp -s "$T/ma.FooBot" "$T/ma.BarBot" && fail "two agents: FooBot and BarBot agree on every URL (test data too weak)"
{ head -1 "$T/out"; paste -d '\n' "$T/ma.FooBot" "$T/ma.BarBot"; } >"$T/ma.want"
[ "$(wc -l <"$T/ma.want")" = $((2 * ma_urls + 1)) ] || fail "two agents: expectation has $(wc -l <"$T/ma.want") lines"
for v in "plain:" "memory-limit:--memory-limit 1M" "jobs:-j 2"; do
    name="two agents ${v%%:*}"
    # shellcheck disable=SC2086
    expect_run "$name" 0 "$BIN" urls --robots "$T/robots.txt" --agent FooBot --agent BarBot --format tsv \
        --stats "$T/ma-${v%%:*}.json" ${v#*:} "$T/ma.txt"
    cmp -s "$T/out" "$T/ma.want" || fail "$name: output is not the single runs interleaved: $(diff "$T/ma.want" "$T/out" | head -5)"
    json_check "$T/ma-${v%%:*}.json" 'd["agent"] == "FooBot"' 'd["agents"] == ["FooBot", "BarBot"]' \
        "d['urls'] == 2 * $ma_urls" "d['verdicts']['allow'] + d['verdicts']['disallow'] == 2 * $ma_urls" \
        "sum(o['allow'] + o['disallow'] for o in d['origins']) == 2 * $ma_urls" "d['malformed'] == 1"
done
python3 - "$T"/ma-plain.json "$T"/ma-memory-limit.json "$T"/ma-jobs.json <<'PY' || fail "two agents: --stats differ between plain, --memory-limit and -j 2"
import json, sys
ds = [json.load(open(f)) for f in sys.argv[1:]]
for d in ds:
    for k in ("seconds", "urls_per_second", "bytes_in", "bytes_out"):
        d.pop(k, None)
sys.exit(0 if ds[0] == ds[1] == ds[2] else 1)
PY
# text format names the agent of each record when there are several
expect_run "two agents text" 0 "$BIN" urls --robots "$T/robots.txt" --agent FooBot --agent BarBot --format text "$T/u.txt"
[ "$(grep -c '^DISALLOWED  FooBot  ' "$T/out")" = 3 ] || fail "two agents text: FooBot records: $(cat "$T/out")"
[ "$(grep -c 'BarBot  ' "$T/out")" = 3 ] || fail "two agents text: BarBot records: $(cat "$T/out")"

# --- malformed lines: one note on stderr at the end (count, first file:line, its first 80
# bytes), whatever the output options; none without malformed lines
printf 'http://e.com/a\n\nnot a url\nhttp://e.com/private/x\nhttp://[::1\n# c\nalso bad\n' >"$T/mf.txt"
mf_note='robotscan urls: 3 malformed lines skipped (first: '"$T"'/mf.txt:3: "not a url")'
for v in "plain:" "quiet:--quiet" "jsonl:--format jsonl" "only:--only disallowed" "verbose:--verbose" \
         "memory-limit:--memory-limit 1M" "jobs:-j 2" "stats:--stats $T/mf.json"; do
    name="malformed note ${v%%:*}"
    # shellcheck disable=SC2086
    expect_run "$name" 0 "$BIN" urls --robots "$T/robots.txt" --agent BarBot ${v#*:} "$T/mf.txt"
    [ "$(grep -c 'malformed lines\? skipped' "$T/err")" = 1 ] || fail "$name: not one note: $(cat "$T/err")"
    [ "$(tail -1 "$T/err")" = "$mf_note" ] \
        || fail "$name: last stderr line: $(tail -1 "$T/err"), want $mf_note"
done
# the first 80 bytes of a long line, escaped; the first line of the first input that has one
long=$(printf 'x%.0s' $(seq 1 100))
printf 'http://e.com/a\n"%s\n' "$long" >"$T/mf2.txt"
expect_run "malformed note long" 0 "$BIN" urls --robots "$T/robots.txt" --agent BarBot --quiet \
    "$T/u.txt" "$T/mf2.txt" "$T/mf.txt"
want="robotscan urls: 4 malformed lines skipped (first: $T/mf2.txt:2: \"\\\"$(printf 'x%.0s' $(seq 1 79))\"...)"
[ "$(tail -1 "$T/err")" = "$want" ] || fail "malformed note long: $(tail -1 "$T/err"), want $want"
# none without malformed lines (and the run did say something to check)
for v in "plain:" "quiet:--quiet" "memory-limit:--memory-limit 1M"; do
    name="no malformed note ${v%%:*}"
    # shellcheck disable=SC2086
    expect_run "$name" 0 "$BIN" urls --robots "$T/robots.txt" --agent BarBot ${v#*:} "$T/u.txt"
    expect_nonempty "$name" "$T/out"
    grep -q 'malformed' "$T/err" && fail "$name: a malformed note without malformed lines: $(cat "$T/err")"
done

# --- an agent that is not a product token: warned, globals apply
expect_run "agent not a token" 0 "$BIN" urls --robots "$T/robots.txt" --agent FooBot/2.1 "$T/u.txt"
expect_err "agent not a token" "did you mean 'FooBot'"
grep -q "disallow	2	disallow: /private" "$T/out" || fail "agent not a token: global rules not used"

# --- unreadable or missing input: exit 2, the file named; earlier inputs' records written
expect_run "missing input" 2 "$BIN" urls --robots "$T/robots.txt" --agent x "$T/nope.txt"
expect_err "missing input" "$T/nope.txt"
cp "$T/u.txt" "$T/unreadable.txt"; chmod 000 "$T/unreadable.txt"
if [ "$(id -u)" != 0 ] && ! cat "$T/unreadable.txt" >/dev/null 2>&1; then
    expect_run "unreadable input" 2 "$BIN" urls --robots "$T/robots.txt" --agent x "$T/unreadable.txt"
    expect_err "unreadable input" "$T/unreadable.txt"
else
    skip "urls: unreadable input (chmod 000)" "running as root: permissions do not block reads (test_badinput.sh covers a read error)"
fi
expect_run "directory input" 2 "$BIN" urls --robots "$T/robots.txt" --agent x "$T"
expect_err "directory input" "$T"
expect_run "second input missing" 2 "$BIN" urls --robots "$T/robots.txt" --agent BarBot "$T/u.txt" "$T/nope.txt"
expect_err "second input missing" "$T/nope.txt"
[ "$(wc -l <"$T/out")" = 4 ] || fail "second input missing: first input's records lost"
# --- a write error (full disk): exit 2 with a message, for one thread and several
if [ -w /dev/full ]; then
    for j in 1 2; do
        "$BIN" urls --robots "$T/robots.txt" --agent x -j $j "$T/u.txt" >/dev/full 2>"$T/err"
        rc=$?
        [ $rc = 2 ] || fail "write error -j $j: exit $rc"
        expect_err "write error -j $j" 'error writing output'
    done
else
    skip "urls: write error (> /dev/full)" "no writable /dev/full"
fi
# --- several inputs: one header, line numbers per file in diagnostics
expect_run "two inputs" 0 "$BIN" urls --robots "$T/robots.txt" --agent BarBot --verbose "$T/q.txt" "$T/u.txt"
[ "$(grep -c '^url	' "$T/out")" = 1 ] && [ "$(wc -l <"$T/out")" = 6 ] || fail "two inputs: $(cat "$T/out")"
expect_err "two inputs" "^$T/q.txt:4: malformed URL"
# --- empty input: the header only
: >"$T/empty.txt"
expect_run "empty input" 0 "$BIN" urls --robots "$T/robots.txt" --agent x "$T/empty.txt"
expect_out "empty input" 'url	origin	agent	verdict	line	rule	reason
'

# ===== Robots sources (SPEC 3) =====

# --- a missing source, a file serving every origin (any scheme, IP literals)
expect_run "missing source" 2 "$BIN" urls --robots "$T/no-such-dir" --agent x "$T/u.txt"
expect_err "missing source" "$T/no-such-dir"
[ -s "$T/out" ] && fail "missing source: wrote records"
printf 'ftp://x.org/private\nhttp://[::1]:8080/private\nhttp://127.0.0.1/private\nhttp://x.org:9/private\n' >"$T/any.txt"
expect_run "file serves all" 0 "$BIN" urls --robots "$T/robots.txt" --agent x --format csv "$T/any.txt"
expect_out "file serves all" 'url,origin,agent,verdict,line,rule,reason
ftp://x.org/private,ftp://x.org,x,disallow,2,disallow: /private,matched
http://[::1]:8080/private,http://[::1]:8080,x,disallow,2,disallow: /private,matched
http://127.0.0.1/private,http://127.0.0.1,x,disallow,2,disallow: /private,matched
http://x.org:9/private,http://x.org:9,x,disallow,2,disallow: /private,matched
'

# --- a directory: HOST, HOST.txt, HOST:PORT, HOST:PORT.txt, HOST_PORT.txt, HOST/robots.txt, IDN
D=$T/dir
mkdir -p "$D/e.com" "$D/xn--mller-kva.eu"
rules() { printf 'User-agent: *\nDisallow: /%s\n' "$1"; }
rules a >"$D/a.com"
rules b >"$D/b.com.txt"
rules c >"$D/c.com:8080"
rules d >"$D/d.com:8081.txt"
rules e >"$D/e.com/robots.txt"
rules f >"$D/F.COM.TXT"
rules g >"$D/g.com_8443.txt"
rules m >"$D/xn--mller-kva.eu/robots.txt"
rules s >"$D/straße.de.txt"
rules n >"$D/nürnberg.de"
rules one >"$D/h.com"          # "h.com" sorts before "h.com.txt": it wins
rules two >"$D/h.com.txt"
rules x >"$D/.hidden.com"
rules x >"$D/not a host.txt"
mkdir -p "$D/nobody.com"       # a directory without robots.txt serves nothing
cat >"$T/dir-urls.txt" <<'U'
http://a.com/a
https://a.com/a
http://a.com:80/a
https://a.com:443/a
http://a.com:8080/a
http://a.com:443/a
ftp://a.com/a
http://b.com/b
http://c.com:8080/c
https://c.com:8080/c
http://c.com/c
http://d.com:8081/d
https://d.com/d
http://e.com/e
http://f.com/f
https://g.com:8443/g
https://g.com/g
http://müller.eu/m
http://MÜLLER.EU./m
http://xn--mller-kva.eu/m
http://xn--strae-oqa.de/s
http://straße.de/s
http://xn--nrnberg-n2a.de/n
http://N%C3%BCrnberg.DE/n
http://h.com/one
http://h.com/two
http://hidden.com/x
http://nobody.com/x
U
expect_run "directory" 0 "$BIN" urls --robots "$D" --agent x --format tsv "$T/dir-urls.txt"
expect_out "directory" 'url	origin	agent	verdict	line	rule	reason
http://a.com/a	http://a.com	x	disallow	2	disallow: /a	matched
https://a.com/a	https://a.com	x	disallow	2	disallow: /a	matched
http://a.com:80/a	http://a.com	x	disallow	2	disallow: /a	matched
https://a.com:443/a	https://a.com	x	disallow	2	disallow: /a	matched
http://a.com:8080/a	http://a.com:8080	x	allow	0		no-robots
http://a.com:443/a	http://a.com:443	x	allow	0		no-robots
ftp://a.com/a	ftp://a.com	x	allow	0		no-robots
http://b.com/b	http://b.com	x	disallow	2	disallow: /b	matched
http://c.com:8080/c	http://c.com:8080	x	disallow	2	disallow: /c	matched
https://c.com:8080/c	https://c.com:8080	x	disallow	2	disallow: /c	matched
http://c.com/c	http://c.com	x	allow	0		no-robots
http://d.com:8081/d	http://d.com:8081	x	disallow	2	disallow: /d	matched
https://d.com/d	https://d.com	x	allow	0		no-robots
http://e.com/e	http://e.com	x	disallow	2	disallow: /e	matched
http://f.com/f	http://f.com	x	disallow	2	disallow: /f	matched
https://g.com:8443/g	https://g.com:8443	x	disallow	2	disallow: /g	matched
https://g.com/g	https://g.com	x	allow	0		no-robots
http://müller.eu/m	http://xn--mller-kva.eu	x	disallow	2	disallow: /m	matched
http://MÜLLER.EU./m	http://xn--mller-kva.eu	x	disallow	2	disallow: /m	matched
http://xn--mller-kva.eu/m	http://xn--mller-kva.eu	x	disallow	2	disallow: /m	matched
http://xn--strae-oqa.de/s	http://xn--strae-oqa.de	x	disallow	2	disallow: /s	matched
http://straße.de/s	http://xn--strae-oqa.de	x	disallow	2	disallow: /s	matched
http://xn--nrnberg-n2a.de/n	http://xn--nrnberg-n2a.de	x	disallow	2	disallow: /n	matched
http://N%C3%BCrnberg.DE/n	http://xn--nrnberg-n2a.de	x	disallow	2	disallow: /n	matched
http://h.com/one	http://h.com	x	disallow	2	disallow: /one	matched
http://h.com/two	http://h.com	x	allow	0		no-match
http://hidden.com/x	http://hidden.com	x	allow	0		no-robots
http://nobody.com/x	http://nobody.com	x	allow	0		no-robots
'
# --- IP literals in file names: canonical forms on both sides
mkdir -p "$T/ipdir"
rules v6 >"$T/ipdir/[::1]:8080.txt"
rules v6b >"$T/ipdir/[2001:DB8:0:0:0:0:0:1]"
rules v4 >"$T/ipdir/127.0.0.1.txt"
printf 'http://[0:0::1]:8080/v6\nhttp://[::1]/v6\nhttp://[2001:db8::1]/v6b\nhttp://0x7f.1/v4\nhttps://127.1/v4\n' >"$T/ip.txt"
expect_run "ip literals" 0 "$BIN" urls --robots "$T/ipdir" --agent x --format csv "$T/ip.txt"
expect_out "ip literals" 'url,origin,agent,verdict,line,rule,reason
http://[0:0::1]:8080/v6,http://[::1]:8080,x,disallow,2,disallow: /v6,matched
http://[::1]/v6,http://[::1],x,allow,0,,no-robots
http://[2001:db8::1]/v6b,http://[2001:db8::1],x,disallow,2,disallow: /v6b,matched
http://0x7f.1/v4,http://127.0.0.1,x,disallow,2,disallow: /v4,matched
https://127.1/v4,https://127.0.0.1,x,disallow,2,disallow: /v4,matched
'

# --- default port elision: the same record whichever way the port is written
for u in http://a.com/a http://a.com:80/a http://A.COM:080/a; do
    "$BIN" urls --robots "$D" --agent x --format tsv <<<"$u" >"$T/port1" || fail "default port elision $u: exit $?"
    cut -f2- "$T/port1" >>"$T/ports"
done
[ "$(wc -l <"$T/ports")" = 6 ] && [ "$(sort -u "$T/ports" | wc -l)" = 2 ] || fail "default port elision: $(cat "$T/ports")"

# --- --stats to a path that cannot be written: exit 2 before any work, the path named
expect_run "stats unwritable" 2 "$BIN" urls --robots "$T/robots.txt" --agent BarBot --stats "$T/no/such/s.json" "$T/u.txt"
expect_err "stats unwritable" "$T/no/such/s.json"
[ -s "$T/out" ] && fail "stats unwritable: records written before the check"

# --- several sources: the first that knows the origin wins; a file as the fallback
expect_run "source order" 0 "$BIN" urls --robots "$D" --robots "$T/robots.txt" --agent x --format tsv "$T/dir-urls.txt"
grep -q '^http://a.com:8080/a	http://a.com:8080	x	allow	4	disallow: 	matched$' "$T/out" \
    || fail "source order: fallback file not used"
grep -q '^http://a.com/a	http://a.com	x	disallow	2	disallow: /a	matched$' "$T/out" \
    || fail "source order: directory not first"
[ "$(grep -c 'no-robots' "$T/out")" = 0 ] || fail "source order: no-robots with a file fallback"

# --- a manifest: 200 / 301 / 404 / 500 / 503 / error, an absent origin, CRLF, comments,
#     ORIGIN as a robots.txt URL, a FILE relative to the manifest, the first line per origin wins
M=$T/man
mkdir -p "$M/bodies"
rules x >"$M/bodies/ok.txt"
{
    printf '# fetch outcomes\r\n\r\n'
    printf 'https://ok.com\t200\tbodies/ok.txt\r\n'
    printf 'http://ok.com:8080/robots.txt\t200\tbodies/ok.txt\n'
    printf 'https://moved.com\t301\t-\n'
    printf 'https://gone.com\t404\n'
    printf 'https://broken.com\t500\t\n'
    printf 'https://busy.com/\t503\t-\n'
    printf 'https://dns.com\terror\n'
    printf 'https://ok.com\t503\n'
    printf 'https://müller.eu\t200\tbodies/ok.txt\n'
} >"$M/manifest.tsv"
cat >"$T/man-urls.txt" <<'U'
https://ok.com/x
https://ok.com:443/y
http://ok.com/x
http://ok.com:8080/x
https://moved.com/x
https://gone.com/x
https://broken.com/x
https://busy.com/x
https://dns.com/x
https://absent.com/x
https://xn--mller-kva.eu/x
U
expect_run "manifest" 0 "$BIN" urls --robots "$M/manifest.tsv" --agent x --stats "$T/man.json" "$T/man-urls.txt"
expect_out "manifest" 'url	origin	agent	verdict	line	rule	reason
https://ok.com/x	https://ok.com	x	disallow	2	disallow: /x	matched
https://ok.com:443/y	https://ok.com	x	allow	0		no-match
http://ok.com/x	http://ok.com	x	allow	0		no-robots
http://ok.com:8080/x	http://ok.com:8080	x	disallow	2	disallow: /x	matched
https://moved.com/x	https://moved.com	x	allow	0		unavailable
https://gone.com/x	https://gone.com	x	allow	0		unavailable
https://broken.com/x	https://broken.com	x	disallow	0		unreachable
https://busy.com/x	https://busy.com	x	disallow	0		unreachable
https://dns.com/x	https://dns.com	x	disallow	0		unreachable
https://absent.com/x	https://absent.com	x	allow	0		no-robots
https://xn--mller-kva.eu/x	https://xn--mller-kva.eu	x	disallow	2	disallow: /x	matched
'
# --- --stats: counts by verdict, reason, origin and rule; malformed; rate
json_check "$T/man.json" \
    'd["command"] == "urls" and d["agent"] == "x" and d["inputs"][0].endswith("man-urls.txt")' \
    'd["lines"] == 11 and d["urls"] == 11 and d["malformed"] == 0 and d["blank"] == 0 and d["skipped"] == 0' \
    'd["verdicts"] == {"allow": 5, "disallow": 6}' \
    'd["reasons"] == {"matched": 3, "no-match": 1, "unavailable": 2, "unreachable": 3, "no-robots": 2}' \
    'sorted((o["origin"], o["allow"], o["disallow"]) for o in d["origins"]) == sorted([("https://ok.com", 1, 1), ("http://ok.com", 1, 0), ("http://ok.com:8080", 0, 1), ("https://moved.com", 1, 0), ("https://gone.com", 1, 0), ("https://broken.com", 0, 1), ("https://busy.com", 0, 1), ("https://dns.com", 0, 1), ("https://absent.com", 1, 0), ("https://xn--mller-kva.eu", 0, 1)])' \
    'sorted((r["origin"], r["line"], r["rule"], r["count"]) for r in d["rules"]) == sorted([("https://ok.com", 2, "disallow: /x", 1), ("http://ok.com:8080", 2, "disallow: /x", 1), ("https://xn--mller-kva.eu", 2, "disallow: /x", 1)])' \
    'type(d["seconds"]) in (int, float) and type(d["urls_per_second"]) in (int, float) and d["seconds"] >= 0' \
    'd["seconds"] == 0 or abs(d["urls_per_second"] - d["urls"] / d["seconds"]) <= 0.02 * d["urls"] / d["seconds"] + 1' \
    'd["bytes_in"] == d["bytes_out"] == sum(len(l) for l in open(d["inputs"][0], "rb"))'

# --- --missing: allow (default), disallow, skip
for m in allow disallow skip; do
    expect_run "missing $m" 0 "$BIN" urls --robots "$M/manifest.tsv" --agent x --missing $m --stats "$T/m.json" "$T/man-urls.txt"
    grep 'absent.com' "$T/out" >"$T/absent"
    case $m in
        allow) want='https://absent.com/x	https://absent.com	x	allow	0		no-robots' ;;
        disallow) want='https://absent.com/x	https://absent.com	x	disallow	0		no-robots' ;;
        skip) want='' ;;
    esac
    [ "$(cat "$T/absent")" = "$want" ] || fail "missing $m: absent origin row: $(cat "$T/absent")"
    case $m in
        allow) json_check "$T/m.json" 'd["urls"] == 11 and d["skipped"] == 0 and d["verdicts"]["allow"] == 5 and d["reasons"]["no-robots"] == 2' ;;
        disallow) json_check "$T/m.json" 'd["urls"] == 11 and d["skipped"] == 0 and d["verdicts"]["disallow"] == 8 and d["reasons"]["no-robots"] == 2' ;;
        skip) json_check "$T/m.json" 'd["urls"] == 9 and d["skipped"] == 2 and d["reasons"]["no-robots"] == 0'
              [ "$(wc -l <"$T/out")" = 10 ] || fail "missing skip: rows: $(cat "$T/out")" ;;
    esac
done

# --- malformed manifests: named with the line; a 2xx body that cannot be read
printf 'https://a.com\t200\tbodies/ok.txt\nhttps://b.com 200 x\n' >"$M/bad1.tsv"
printf 'https://a.com\t200\tbodies/ok.txt\n\nhttps://b.com\t99\t-\n' >"$M/bad2.tsv"
printf 'https://a.com/x\t200\tbodies/ok.txt\n' >"$M/bad3.tsv"
printf 'https://a.com\t200\n' >"$M/bad4.tsv"
printf 'https://a.com\t200\tbodies/none.txt\n' >"$M/bad5.tsv"
expect_run "manifest fields" 2 "$BIN" urls --robots "$M/bad1.tsv" --agent x "$T/u.txt"
expect_err "manifest fields" "bad1.tsv:2: "
expect_run "manifest status" 2 "$BIN" urls --robots "$M/bad2.tsv" --agent x "$T/u.txt"
expect_err "manifest status" "bad2.tsv:3: .*STATUS"
expect_run "manifest origin" 2 "$BIN" urls --robots "$M/bad3.tsv" --agent x "$T/u.txt"
expect_err "manifest origin" "bad3.tsv:1: .*ORIGIN"
expect_run "manifest no file" 2 "$BIN" urls --robots "$M/bad4.tsv" --agent x "$T/u.txt"
expect_err "manifest no file" "bad4.tsv:1: "
printf 'https://a.com/x\n' >"$T/a.txt"
expect_run "manifest body missing" 2 "$BIN" urls --robots "$M/bad5.tsv" --agent x "$T/a.txt"
expect_err "manifest body missing" "bodies/none.txt"

# --- the 500 KiB cap: a rule past 512,000 bytes is ignored, by urls as by check
python3 - "$T/big.txt" <<'PY'
import sys
body = b"User-agent: *\nDisallow: /early\n"
body += b"# " + b"x" * (512000 - len(body) - 3 - 14) + b"\n"
body += b"Disallow: /straddle\n"           # cut at 512,000 bytes: becomes "Disallow: /str"
assert body.index(b"Disallow: /straddle") + 14 == 512000
body += b"Disallow: /late\n" + b"# pad\n" * 20
open(sys.argv[1], "wb").write(body)
PY
printf 'http://e.com/early\nhttp://e.com/late\nhttp://e.com/strange\nhttp://e.com/sta\n' >"$T/cap.txt"
"$BIN" urls --robots "$T/big.txt" --agent x --format tsv "$T/cap.txt" >"$T/cap.out" || fail "500 KiB cap: urls exit $?"
cut -f1,4,5,6 "$T/cap.out" >"$T/cap.urls"
"$BIN" check --robots "$T/big.txt" --agent x --format tsv <"$T/cap.txt" >"$T/cap.out"
rc=$?; [ $rc = 1 ] || fail "500 KiB cap: check exit $rc, want 1"
tail -n +2 "$T/cap.out" >"$T/cap.check"
tail -n +2 "$T/cap.urls" | diff - "$T/cap.check" >/dev/null || fail "500 KiB cap: urls and check differ"
grep -q '^http://e.com/late	allow' "$T/cap.check" || fail "500 KiB cap: a rule past the cap applied"
grep -q '^http://e.com/early	disallow	2' "$T/cap.check" || fail "500 KiB cap: early rule lost"
grep -q '^http://e.com/strange	disallow	4	disallow: /str$' "$T/cap.check" || fail "500 KiB cap: line cut at the cap"
[ "$(wc -l <"$T/cap.urls")" = 5 ] || fail "500 KiB cap: rows"

# ===== Input lines (SPEC 4, 7) =====

# --- BOM, CRLF, blank and '#' lines, leading blanks
printf '\xef\xbb\xbfhttp://e.com/private/1\r\n\r\n   \n# http://e.com/private/c\n  # indented comment\nhttp://e.com/x\r\n' >"$T/bom.txt"
expect_run "bom crlf" 0 "$BIN" urls --robots "$T/robots.txt" --agent BarBot --stats "$T/bom.json" "$T/bom.txt"
expect_out "bom crlf" 'url	origin	agent	verdict	line	rule	reason
http://e.com/private/1	http://e.com	BarBot	disallow	2	disallow: /private	matched
http://e.com/x	http://e.com	BarBot	allow	4	disallow: 	matched
'
json_check "$T/bom.json" 'd["lines"] == 6 and d["blank"] == 4 and d["urls"] == 2 and d["malformed"] == 0'

# --- lines with leading blanks or a BOM of their own get their own origin (a cache keyed
#     on the bytes before the path once gave "  //b.com/x" the origin of "  //a.com/x")
printf '  //a.com/x\n  //b.com/x\n\t//c.com/x\n\xef\xbb\xbf//a.com/x\n\xef\xbb\xbf//b.com/x\nhttp://a.com/x\nhttp://a.com.b.com/x\n' >"$T/lead.txt"
expect_ok "leading blanks" "$BIN" urls --robots "$T/robots.txt" --agent x --format tsv "$T/lead.txt"
cut -f2 "$T/out" | tail -n +2 | tr '\n' ' ' >"$T/out2"; mv "$T/out2" "$T/out"
expect_out "leading blanks" 'http://a.com http://b.com http://c.com http://a.com http://b.com http://a.com http://a.com.b.com '
for j in 1 2; do
    expect_ok "leading blanks -j $j" "$BIN" urls --robots "$D" --agent x -j $j "$T/lead.txt"
    cut -f2 "$T/out" | tr '\n' ' ' >"$T/out2"; mv "$T/out2" "$T/out"
    expect_out "leading blanks -j $j" 'origin http://a.com http://b.com http://c.com http://a.com http://b.com http://a.com http://a.com.b.com '
done

# --- malformed lines: no host, a line over 1 MiB, garbage bytes; counted, reported with
#     their numbers under --verbose, skipped; the neighbours decided
python3 - "$T/mal.txt" <<'PY'
import sys
with open(sys.argv[1], "wb") as f:
    f.write(b"http://e.com/private/1\n")
    f.write(b"http://e.com/" + b"x" * (1 << 20) + b"\n")      # line 2: over 1 MiB
    f.write(b"http://e.com/private/3\n")
    f.write(b"\xff\xfe\x00\x01gar bage\x80\n")                # line 4: garbage bytes
    f.write(b"http://e.com/private/5\n")
    f.write(b"/no/host\n")                                    # line 6: no host
    f.write(b"http://e.com/private/7\n")
    f.write(b"http://\n")                                     # line 8: no host
    f.write(b"http://e.com:99999/x\n")                        # line 9: bad port
    f.write(b"http://e.com/private/10")                       # no final newline
PY
for j in 1 2; do
    expect_run "malformed -j $j" 0 "$BIN" urls --robots "$T/robots.txt" --agent x --verbose -j $j --stats "$T/mal.json" "$T/mal.txt"
    [ "$(tail -n +2 "$T/out" | cut -f1 | tr '\n' ' ')" = "http://e.com/private/1 http://e.com/private/3 http://e.com/private/5 http://e.com/private/7 http://e.com/private/10 " ] \
        || fail "malformed -j $j: neighbours: $(cut -f1 "$T/out" | head -c 300)"
    for n in 2 4 6 8 9; do expect_err "malformed -j $j line $n" "^$T/mal.txt:$n: "; done
    [ "$(grep -c "^$T/mal.txt:" "$T/err")" = 5 ] || fail "malformed -j $j: diagnostics: $(head -c 600 "$T/err")"
    expect_err "malformed -j $j summary" '^lines 10, URLs 5: allowed 0, disallowed 5; malformed 5, skipped 0$'
    json_check "$T/mal.json" 'd["lines"] == 10 and d["urls"] == 5 and d["malformed"] == 5 and d["verdicts"]["disallow"] == 5'
done
expect_run "malformed quiet" 0 "$BIN" urls --robots "$T/robots.txt" --agent x --quiet "$T/mal.txt"
grep -q 'malformed 5' "$T/out" || fail "malformed: not in the --quiet summary"
# without --verbose: only the note at the end (its first example: the oversized line 2)
[ "$(cat "$T/err")" = "robotscan urls: 5 malformed lines skipped (first: $T/mal.txt:2: line of 1048589 bytes is too long for a URL)" ] \
    || fail "malformed: stderr without --verbose is not the one note: $(head -c 300 "$T/err")"

# ===== Input forms and threads =====

if ! python3 "$HERE/../../scripts/gen-bench-data" --urls 150000 --hosts 300 --seed 7 --robots "$SHARED/data/robots" --out "$T/bench" >/dev/null; then
    fail "gen-bench-data failed"
fi
BU=$T/bench/urls.txt
{ printf '\xef\xbb\xbf'; head -3 "$BU"; printf '\n# comment\n/no-host\n'; tail -n +4 "$BU"; } >"$T/in.txt"
[ "$(wc -c <"$T/in.txt")" -gt 4000000 ] || fail "bench input too small: $(wc -c <"$T/in.txt")"
zstd -q -f -o "$T/in.zst" "$T/in.txt"
gzip -c "$T/in.txt" >"$T/in.gz"
cp "$T/in.zst" "$T/in-zst-named.txt"        # compression is detected from the content
RB=$SHARED/data/robots
run_bulk() { "$BIN" urls --robots "$RB" --agent Googlebot --no-progress "$@"; }
run_bulk -j 1 "$T/in.txt" >"$T/ref.tsv" 2>"$T/ref.err" || fail "bulk plain: exit $?: $(head -c 300 "$T/ref.err")"
[ "$(wc -l <"$T/ref.tsv")" -gt 140000 ] || fail "bulk: only $(wc -l <"$T/ref.tsv") rows"
grep -q 'disallow' "$T/ref.tsv" || fail "bulk: nothing disallowed"
# check_same NAME : the last run's exit status was 0 and its output is the plain -j 1 output
check_same() {
    local rc=$?
    [ $rc = 0 ] || fail "$1: exit $rc: $(head -c 300 "$T/got.err")"
    cmp -s "$T/ref.tsv" "$T/got.tsv" || fail "$1: output differs from plain -j 1"
}
run_bulk "$T/in.zst" >"$T/got.tsv" 2>"$T/got.err"; check_same "zstd"
run_bulk "$T/in.gz" >"$T/got.tsv" 2>"$T/got.err"; check_same "gzip"
run_bulk "$T/in-zst-named.txt" >"$T/got.tsv" 2>"$T/got.err"; check_same "zstd named .txt"
run_bulk <"$T/in.txt" >"$T/got.tsv" 2>"$T/got.err"; check_same "stdin"
run_bulk - <"$T/in.zst" >"$T/got.tsv" 2>"$T/got.err"; check_same "stdin zstd"
run_bulk <"$T/in.gz" >"$T/got.tsv" 2>"$T/got.err"; check_same "stdin gzip"
for j in 2 3; do
    run_bulk -j $j "$T/in.txt" >"$T/got.tsv" 2>"$T/got.err"; check_same "-j $j"
    run_bulk --jobs $j "$T/in.zst" >"$T/got.tsv" 2>"$T/got.err"; check_same "-j $j zstd"
done
# stats and --verbose diagnostics do not depend on the number of threads either
for j in 1 3; do
    run_bulk -j $j --quiet --verbose --stats "$T/s$j.json" "$T/in.txt" >/dev/null 2>"$T/v$j.err" \
        || fail "bulk --stats -j $j: exit $?: $(grep -v '^/' "$T/v$j.err" | head -c 300)"
    sed 's/"seconds".*//' "$T/s$j.json" >"$T/s$j.cut"
    grep -v '^time ' "$T/v$j.err" >"$T/v$j.cut"
done
expect_nonempty "bulk --stats, --verbose" "$T/s1.cut" "$T/v1.cut"
cmp -s "$T/s1.cut" "$T/s3.cut" || fail "stats differ between -j 1 and -j 3"
cmp -s "$T/v1.cut" "$T/v3.cut" || fail "diagnostics differ between -j 1 and -j 3"
grep -q "^$T/in.txt:6: malformed URL (no host)" "$T/v1.err" || fail "bulk: line 6 not reported: $(head -3 "$T/v1.err")"
json_check "$T/s1.json" "d['urls'] + d['malformed'] + d['blank'] == d['lines'] == $(wc -l <"$T/in.txt")" \
    "[o['allow'] + o['disallow'] for o in d['origins']] == sorted((o['allow'] + o['disallow'] for o in d['origins']), reverse=True)" \
    "[r['count'] for r in d['rules']] == sorted((r['count'] for r in d['rules']), reverse=True)" \
    "d['verdicts']['allow'] + d['verdicts']['disallow'] == d['urls'] == $(($(wc -l <"$T/ref.tsv") - 1))" \
    "sum(o['allow'] + o['disallow'] for o in d['origins']) == d['urls']" \
    "sum(r['count'] for r in d['rules']) == d['reasons']['matched']"

# --- damaged compressed input: the records before the damage written, exit 2, file and offset named
head -c $(($(wc -c <"$T/in.zst") * 2 / 3)) "$T/in.zst" >"$T/trunc.zst"
python3 - "$T/in.txt" "$T/bad.gz" "$T/intact.txt" <<'PY'
import gzip, sys
data = open(sys.argv[1], "rb").read()
cut = data.index(b"\n", len(data) // 3) + 1     # an intact member, then a corrupt one
open(sys.argv[2], "wb").write(gzip.compress(data[:cut]) + b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xff\xff garbage")
open(sys.argv[3], "wb").write(data[:cut])
PY
for j in 1 2; do
    for f in trunc.zst bad.gz; do
        run_bulk -j $j "$T/$f" >"$T/got.tsv" 2>"$T/err"
        rc=$?
        [ $rc = 2 ] || fail "$f -j $j: exit $rc, want 2"
        expect_err "$f -j $j" "$T/$f: .*offset [0-9]+"
        n=$(wc -l <"$T/got.tsv")
        [ "$n" -gt 20000 ] || fail "$f -j $j: only $n records before the damage"
        head -n "$n" "$T/ref.tsv" | cmp -s - "$T/got.tsv" || fail "$f -j $j: output is not a prefix of the full output"
    done
done
# the gzip case: every record of the intact member is there
run_bulk "$T/intact.txt" >"$T/intact.tsv" || fail "intact member: exit $?"
[ "$(wc -l <"$T/intact.tsv")" -gt 20000 ] || fail "intact member: only $(wc -l <"$T/intact.tsv") rows"
cmp -s "$T/intact.tsv" "$T/got.tsv" || fail "bad.gz: records of the intact member lost"

# ===== Progress on stderr =====
expect_run "progress forced" 0 "$BIN" urls --robots "$T/robots.txt" --agent x --progress --quiet "$T/u.txt"
expect_err "progress forced" 'robotscan: [0-9]+ lines'
expect_run "no progress on a pipe" 0 "$BIN" urls --robots "$T/robots.txt" --agent x "$T/u.txt"
[ -s "$T/err" ] && fail "progress on a pipe without --progress: $(cat "$T/err")"
if command -v script >/dev/null; then
    script -qec "'$BIN' urls --robots '$T/robots.txt' --agent x '$T/u.txt' >/dev/null" /dev/null >"$T/tty" 2>&1 \
        || fail "progress on a terminal: exit $?"
    grep -q 'robotscan: [0-9]* lines' "$T/tty" || fail "no progress when stderr is a terminal: $(cat -A "$T/tty")"
    script -qec "'$BIN' urls --robots '$T/robots.txt' --agent x --no-progress '$T/u.txt' >/dev/null" /dev/null >"$T/tty" 2>&1 \
        || fail "--no-progress on a terminal: exit $?"
    [ -s "$T/tty" ] && fail "--no-progress on a terminal: $(cat -A "$T/tty")"
    script -qec "'$BIN' urls --robots '$T/robots.txt' --agent BarBot '$T/u.txt' 2>/dev/null" /dev/null >"$T/tty" \
        || fail "text on a terminal: exit $?"
    grep -q '^DISALLOWED  http://e.com/private/x' "$T/tty" || fail "default format on a terminal is not text"
else
    skip "urls: progress and text format on a terminal" "no 'script' command (Debian bsdutils)"
fi

# ===== Options that change matching: same as check =====
printf 'User-agent: *\nDisallow: /caf%%C3%%A9\nDisallow: /\nAllow: /a\n' >"$T/enc.txt"
printf 'http://e.com/caf\xc3\xa9\nhttp://e.com/caf%%c3%%a9\nhttp://e.com/a\n' >"$T/enc-urls.txt"
for args in "" "--encode-urls" "--semantics first-match"; do
    # shellcheck disable=SC2086
    "$BIN" urls --robots "$T/enc.txt" --agent x --format tsv $args "$T/enc-urls.txt" >"$T/a.out" || fail "urls $args: exit $?"
    cut -f1,4,5,6 "$T/a.out" >"$T/a.tsv"
    # shellcheck disable=SC2086
    "$BIN" check --robots "$T/enc.txt" --agent x --format tsv $args <"$T/enc-urls.txt" >"$T/b.tsv"
    rc=$?; [ $rc = 1 ] || fail "check $args: exit $rc, want 1"
    [ "$(wc -l <"$T/b.tsv")" = 4 ] || fail "check $args: want a header and 3 rows: $(cat "$T/b.tsv")"
    diff "$T/a.tsv" "$T/b.tsv" >/dev/null || fail "urls $args differs from check: $(diff "$T/a.tsv" "$T/b.tsv")"
done

# ===== urls == check == the conformance vectors =====
if [ -d "$SHARED/conformance" ] && [ -d "$SHARED/data/robots" ]; then
    python3 "$HERE/urls_vs_check.py" "$BIN" "$SHARED" >"$T/vs" 2>&1 || fail "urls_vs_check.py: $(grep -v '^conformance\|^ada\|^cache' "$T/vs" | head -20)"
    grep '^conformance\|^ada\|^cache' "$T/vs" | cut -c1-150
else
    fail "no $SHARED/conformance or $SHARED/data/robots"
fi

# --- -jN is -j N
printf 'https://a.example/x\nhttps://b.example/y\n' >"$T/jn.txt"
printf 'User-agent: *\nDisallow: /x\n' >"$T/jn-robots.txt"
"$BIN" urls --robots "$T/jn-robots.txt" --agent x --format tsv -j2 "$T/jn.txt" >"$T/jn1" || fail "-j2: exit status"
"$BIN" urls --robots "$T/jn-robots.txt" --agent x --format tsv -j 2 "$T/jn.txt" >"$T/jn2" || fail "-j 2: exit status"
[ "$(cat "$T/jn1")" = 'url	origin	agent	verdict	line	rule	reason
https://a.example/x	https://a.example	x	disallow	2	disallow: /x	matched
https://b.example/y	https://b.example	x	allow	0		no-match' ] || fail "-j2: $(cat "$T/jn1")"
cmp -s "$T/jn1" "$T/jn2" || fail "-j2 and -j 2 differ"
"$BIN" urls --robots "$T/jn-robots.txt" --agent x -jx "$T/jn.txt" >/dev/null 2>&1
[ $? = 2 ] || fail "-jx should be a usage error"

finish
