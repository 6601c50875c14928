#!/usr/bin/env bash
# test_badinput.sh - the bad-input contract of docs/hardening.md, one case per
# row: each runs the CLI on hostile or broken input and checks the exit code,
# the message (naming the file where there is one) and the output.
#
# Usage: bash tests/cli/test_badinput.sh ./robotscan SHARED   (SHARED: build/testdata after `make testdata`, or ../shared)
# Exits non-zero when any case fails. A case that cannot run here says SKIP
# loudly with the reason (none is skipped silently).
#
# Commands covered: check, urls, logs, lint (each section starts by checking that
# the command's --help works; a failing --help is a failure, not a skip).
# RS_TEST_FAIL_FAST=1: the first failure ends the script.
set -u
BIN=${1:-./robotscan}
SHARED=${2:-build/testdata}
case "$BIN" in /*) ;; *) BIN="$PWD/$BIN" ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/rs-badinput.XXXXXX")
trap 'chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"' EXIT
# Big inputs are smaller under sanitizers if asked (BADINPUT_BIG_MB).
BIG_MB=${BADINPUT_BIG_MB:-100}

fails=0 skips=0
pass() { printf '  ok    %s\n' "$1"; }
fail() {
    printf '  FAIL  %s\n' "$1"; [ -n "${2:-}" ] && printf '        %s\n' "$2"; fails=$((fails + 1))
    if [ -n "${RS_TEST_FAIL_FAST:-}" ]; then echo "test_badinput: stopped at the first failure"; exit 1; fi
}
skip() { printf 'SKIP: %s: %s\n' "$1" "$2"; skips=$((skips + 1)); }

# run NAME STDIN_FILE ARGS... : runs the binary, leaves $rc, $T/out, $T/err
run() {
    local in=$1; shift
    "$BIN" "$@" <"$in" >"$T/out" 2>"$T/err"
    rc=$?
}

# expect NAME WANT_RC [STDERR_REGEX] [STDOUT_LINES]
expect() {
    local name=$1 want=$2 re=${3:-} lines=${4:-}
    if [ "$rc" != "$want" ]; then
        fail "$name" "exit $rc, want $want; stderr: $(head -c 300 "$T/err")"; return
    fi
    if [ -n "$re" ] && ! grep -Eq -- "$re" "$T/err"; then
        fail "$name" "stderr does not match /$re/: $(head -c 300 "$T/err")"; return
    fi
    if [ -n "$lines" ]; then
        local got; got=$(wc -l <"$T/out")
        if [ "$got" != "$lines" ]; then fail "$name" "stdout has $got lines, want $lines"; return; fi
    fi
    pass "$name"
}

# Stderr must be empty apart from the agent warning.
quiet_stderr() {
    if grep -v 'warning: --agent' "$T/err" | grep -q .; then
        fail "$1" "unexpected stderr: $(head -c 300 "$T/err")"; return 1
    fi
    return 0
}

# seconds elapsed since $1 (date +%s%N), with 3 decimals: shown, never asserted
# (wall-clock limits are flaky under sanitizers and load; bench/ measures speed)
elapsed() { local now; now=$(date +%s%N); echo "$(( (now - $1) / 1000000 ))" | awk '{printf "%.3f", $1/1000}'; }

printf 'user-agent: *\ndisallow: /private\n' >"$T/robots.txt"
printf '/\n/private/x\n' >"$T/urls"
: >"$T/empty"

echo "-- files"
run "$T/urls" check --robots "$T/nope.txt" --agent Googlebot
expect "missing robots file: exit 2, names the file" 2 "nope\.txt"

mkdir -p "$T/adir"
run "$T/urls" check --robots "$T/adir" --agent Googlebot
expect "directory as robots file: exit 2, names it" 2 "adir.*directory"

printf 'user-agent: *\ndisallow: /\n' >"$T/locked.txt"
chmod 000 "$T/locked.txt"
if [ "$(id -u)" = 0 ] || cat "$T/locked.txt" >/dev/null 2>&1; then
    skip "unreadable robots file (chmod 000)" "running as root: permissions do not block reads; the read-error case below covers it"
else
    run "$T/urls" check --robots "$T/locked.txt" --agent Googlebot
    expect "unreadable robots file (chmod 000): exit 2, names it" 2 "locked\.txt.*(denied|ermission)"
fi
# A file that opens but fails to read (EIO at offset 0), also as root.
if [ -r /proc/self/mem ]; then
    run "$T/urls" check --robots /proc/self/mem --agent Googlebot
    expect "read error on robots file (/proc/self/mem): exit 2, names it" 2 "/proc/self/mem.*(error|rror)"
else
    skip "read error on robots file" "no /proc/self/mem"
fi

run "$T/urls" check --robots "$T/empty" --agent Googlebot
expect "empty robots file: everything allowed, exit 0" 0 "" 3

run "$T/empty" check --robots "$T/robots.txt" --agent Googlebot
expect "empty URL input: header only, exit 0" 0 "" 1

run "$T/urls" check --robots /dev/zero --agent Googlebot
expect "endless robots file (/dev/zero): first 500 KiB read, exit 0" 0 "" 3

echo "-- hostile robots.txt"
# Deterministic garbage: every byte value, NULs, lone CRs, huge lines.
python3 - "$T/garbage.txt" <<'EOF'
import random, sys
r = random.Random(7)
parts = [bytes(range(256)) * 4, b"\x00" * 1000, b"user-agent: *\r", b"disallow: /a\x00b\n",
         bytes(r.randrange(256) for _ in range(200000)), b"\ndisallow: /" + b"\xff" * 40000 + b"\n",
         b"allow: " + b"*" * 20000 + b"\n", b"\xef\xbb\xbfuser-agent: *\n", b"\r\r\r\n\n"]
open(sys.argv[1], "wb").write(b"".join(parts))
EOF
printf '/\n/a\n/a\0b\n/%%FF\n\377\376\n' >"$T/urls-nul"
run "$T/urls-nul" check --robots "$T/garbage.txt" --agent Googlebot --format tsv
if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then
    fail "binary garbage and NUL bytes in robots.txt" "exit $rc: $(head -c 300 "$T/err")"
elif [ "$(wc -l <"$T/out")" != 6 ]; then
    fail "binary garbage and NUL bytes in robots.txt" "$(wc -l <"$T/out") output lines, want a header and 5 rows"
elif quiet_stderr "garbage + NUL robots"; then
    pass "binary garbage and NUL bytes in robots.txt: a verdict per URL"
fi

# Invalid UTF-8 in robots.txt and URLs: JSONL output must still be valid JSON.
printf 'user-agent: *\ndisallow: /caf\351\ndisallow: /\300\257\n' >"$T/latin1.txt"
printf '/caf\351\n/caf%%E9\n/\300\257x\n' >"$T/urls-latin1"
run "$T/urls-latin1" check --robots "$T/latin1.txt" --agent Googlebot --format jsonl
if [ "$rc" = 1 ] && python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1], "rb").read().decode("utf-8").splitlines()]
assert [r["verdict"] for r in rows] == ["allow", "disallow", "allow"], rows
' "$T/out" 2>"$T/py"; then
    pass "invalid UTF-8 in robots.txt and URLs: valid JSONL, %XX canonical match"
else
    fail "invalid UTF-8 in robots.txt and URLs" "exit $rc; $(head -c 300 "$T/py")"
fi

# Over 500 KiB: a rule wholly past 512,000 bytes is ignored, one before it applies.
python3 - "$T/big.txt" <<'EOF'
import sys
head = b"user-agent: *\ndisallow: /early\n"
pad = (b"# " + b"x" * 97 + b"\n") * ((512000 - len(head)) // 100)
body = head + pad
body += b"#" * (512000 - len(body) - 1) + b"\n"
assert len(body) == 512000
body += b"disallow: /late\n" + b"# more\n" * 1000
open(sys.argv[1], "wb").write(body)
EOF
printf '/early\n/late\n' >"$T/urls-big"
run "$T/urls-big" check --robots "$T/big.txt" --agent Googlebot --format tsv
if [ "$rc" = 1 ] && [ "$(cut -f2,3 "$T/out" | tr '\t\n' '  ')" = "verdict line disallow 2 allow 0 " ]; then
    pass "robots.txt over 500 KiB: content past 512,000 bytes ignored"
else
    fail "robots.txt over 500 KiB" "exit $rc, out: $(head -c 200 "$T/out" | tr '\n' '|')"
fi

# 100,000 rules: the file is 1.9 MB, so the 500 KiB cap keeps the first ~27,000;
# the first and the last kept rule decide, a rule past the cap does not.
python3 - "$T/many-rules.txt" "$T/urls-rules" "$T/want-rules" <<'EOF'
import sys
lines = [b"user-agent: *"] + [b"disallow: /r%d/" % i for i in range(100000)]
body = b"\n".join(lines) + b"\n"
open(sys.argv[1], "wb").write(body)
end, last = 0, -1
for i, l in enumerate(lines):
    end += len(l) + 1
    if end > 512000: break
    last = i - 1          # rule index of a wholly kept line
open(sys.argv[2], "w").write("/r0/x\n/r%d/x\n/r%d/x\n/zzz\n" % (last, last + 2))
open(sys.argv[3], "w").write("verdict line disallow 2 disallow %d allow 0 allow 0 " % (last + 2))
EOF
t0=$(date +%s%N)
run "$T/urls-rules" check --robots "$T/many-rules.txt" --agent Googlebot --format tsv
secs=$(elapsed "$t0")
if [ "$rc" = 1 ] && [ "$(cut -f2,3 "$T/out" | tr '\t\n' '  ')" = "$(cat "$T/want-rules")" ]; then
    pass "100,000 rules (1.9 MB): cut at 500 KiB, compiled and matched (${secs} s)"
else
    fail "100,000 rules" "exit $rc, out: $(cut -f2,3 "$T/out" | tr '\n' '|'), want $(cat "$T/want-rules")"
fi

# 10,000 groups: the last one names the agent.
python3 - "$T/many-groups.txt" <<'EOF'
import sys
out = []
for i in range(10000):
    out += [b"user-agent: bot%d" % i, b"disallow: /g%d" % i]
out += [b"user-agent: TargetBot", b"disallow: /target", b"user-agent: *", b"disallow: /star"]
open(sys.argv[1], "wb").write(b"\n".join(out) + b"\n")
EOF
printf '/target\n/star\n/g5\n' >"$T/urls-groups"
run "$T/urls-groups" check --robots "$T/many-groups.txt" --agent TargetBot --format tsv
if [ "$rc" = 1 ] && [ "$(cut -f2,3 "$T/out" | tr '\t\n' '  ')" = "verdict line disallow 20002 allow 0 allow 0 " ]; then
    pass "10,000 groups: only the named group applies"
else
    fail "10,000 groups" "exit $rc, out: $(head -c 300 "$T/out" | tr '\n' '|')"
fi

# Hostile wildcards: '/' + 300 x '*a' + 'b' against a 100 KB path, both outcomes.
python3 - "$T/hostile.txt" "$T/urls-hostile" <<'EOF'
import sys
open(sys.argv[1], "wb").write(b"user-agent: *\ndisallow: /" + b"*a" * 300 + b"b\nallow: /\n")
p = b"/" + b"a" * 100000
open(sys.argv[2], "wb").write(p + b"\n" + p[:-1] + b"b\n" + (b"/" + b"ab" * 50000) + b"\n")
EOF
t0=$(date +%s%N)
run "$T/urls-hostile" check --robots "$T/hostile.txt" --agent Googlebot --format tsv
secs=$(elapsed "$t0")
if [ "$rc" = 1 ] && [ "$(cut -f2,3 "$T/out" | tr '\t\n' '  ')" = "verdict line allow 3 disallow 2 disallow 2 " ]; then
    pass "hostile wildcard /(*a)x300 b vs 100 KB paths: right answers (${secs} s, not asserted)"
else
    fail "hostile wildcard" "exit $rc in ${secs} s, out: $(cut -f2,3 "$T/out" | tr '\n' '|')"
fi

echo "-- hostile URL input"
# A 1 MiB URL line, then a normal line: both answered, in order.
{ printf '/private/'; head -c 1048576 /dev/zero | tr '\0' 'u'; printf '\n/ok\n'; } >"$T/urls-1m"
run "$T/urls-1m" check --robots "$T/robots.txt" --agent Googlebot --format tsv
if [ "$rc" = 1 ] && [ "$(cut -f2 "$T/out" | tr '\t\n' '  ')" = "verdict disallow allow " ]; then
    pass "1 MiB URL line: answered, next line processed"
else
    fail "1 MiB URL line" "exit $rc, out: $(cut -f2 "$T/out" | tr '\n' '|')"
fi

# A ${BIG_MB} MB line, then a line without a trailing newline.
t0=$(date +%s%N)
{ head -c $((BIG_MB * 1000000)) /dev/zero | tr '\0' 'v'; printf '\n/private/last'; } \
    | "$BIN" check --robots "$T/robots.txt" --agent Googlebot --format tsv 2>"$T/err" \
    | cut -f2 >"$T/out"
rc=${PIPESTATUS[1]}
secs=$(elapsed "$t0")
if [ "$rc" = 1 ] && [ "$(tr "\n" " " <"$T/out")" = "verdict allow disallow " ]; then
    pass "${BIG_MB} MB URL line: answered, last line without newline processed (${secs} s)"
else
    fail "${BIG_MB} MB URL line" "exit $rc, out: $(cut -f1,2 "$T/out" | tr '\n' '|'); $(head -c 200 "$T/err")"
fi

# CRLF and NUL bytes inside URL lines.
printf '/private\r\n/pub\0/private\r\n' >"$T/urls-crlf"
run "$T/urls-crlf" check --robots "$T/robots.txt" --agent Googlebot --format tsv
if [ "$rc" = 1 ] && [ "$(cut -f2 "$T/out" | tr '\t\n' '  ')" = "verdict disallow allow " ]; then
    pass "CRLF and NUL in URL lines: CR dropped, NUL ends the path"
else
    fail "CRLF and NUL in URL lines" "exit $rc, out: $(od -c "$T/out" | head -5 | tr '\n' '|')"
fi

echo "-- output"
# Reader gone early: no error spam, exit 0/1 or SIGPIPE (141).
head -c 3000000 /dev/zero | tr '\0' '\n' | sed 's|^|/private/|' >"$T/urls-many"
"$BIN" check --robots "$T/robots.txt" --agent Googlebot --format tsv <"$T/urls-many" 2>"$T/err" | head -1 >"$T/out"
rc=${PIPESTATUS[0]}
if { [ "$rc" = 0 ] || [ "$rc" = 1 ] || [ "$rc" = 141 ]; } && [ ! -s "$T/err" ] && [ "$(cat "$T/out")" = "$(printf 'url\tverdict\tline\trule')" ]; then
    pass "stdout closed early (| head -1): exit $rc, no stderr"
else
    fail "stdout closed early (| head -1)" "exit $rc, stderr: $(head -c 300 "$T/err")"
fi

if [ -w /dev/full ]; then
    "$BIN" check --robots "$T/robots.txt" --agent Googlebot --format tsv <"$T/urls" >/dev/full 2>"$T/err"
    rc=$?
    expect "write error on stdout (> /dev/full): exit 2" 2 "error writing output"
    "$BIN" check --robots "$T/robots.txt" --agent Googlebot --format tsv <"$T/urls-many" >/dev/full 2>"$T/err"
    rc=$?
    if [ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ]; then pass "write error on a large output: exit 2, one message"
    else fail "write error on a large output" "exit $rc, $(wc -l <"$T/err") stderr lines"; fi
else
    skip "write error on stdout" "no writable /dev/full"
fi

"$BIN" check --robots "$T/robots.txt" --agent Googlebot <&- >"$T/out" 2>"$T/err"
rc=$?
expect "stdin closed: exit 2, says so" 2 "stdin"

echo "-- usage"
run "$T/urls" check --robots "$T/robots.txt" --agent Googlebot --bogus
expect "unknown flag: exit 2 with a usage line" 2 "unknown option --bogus.*|Try 'robotscan check --help'"
run "$T/urls" check --agent Googlebot
expect "missing --robots: exit 2" 2 "--robots"
run "$T/urls" check --robots "$T/robots.txt"
expect "missing --agent: exit 2" 2 "--agent"
run "$T/urls" check --robots "$T/robots.txt" --agent
expect "--agent without a value: exit 2" 2 "needs a value"
run "$T/urls" check --robots "$T/robots.txt" --agent ''
expect "empty --agent: accepted with a warning (the compliance suite queries it)" 1 "warning: --agent ''" 3
run "$T/urls" check --robots "$T/robots.txt" --agent Googlebot --format xml
expect "unknown --format: exit 2" 2 "format"
run "$T/urls" frobnicate
expect "unknown command: exit 2" 2 "unknown command"
run "$T/urls"
expect "no command: exit 2 with usage" 2 "Usage"
run "$T/urls" check --help
expect "--help: exit 0" 0
grep -q '^Usage: robotscan check' "$T/out" || fail "check --help" "no usage on stdout: $(head -c 200 "$T/out")"

# ===== urls and logs =====
json_get() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2" 2>/dev/null; }

echo "-- urls"
run "$T/empty" urls --help
expect "urls --help: exit 0" 0
grep -q '^Usage: robotscan urls' "$T/out" || fail "urls --help" "no usage on stdout: $(head -c 200 "$T/out")"
{
    python3 - "$T/list.txt" <<'EOF'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(200000):
        f.write("http://a.com/private/%d\n" % i if i % 2 == 0 else "http://a.com/p%d\n" % i)
EOF
    zstd -q -c "$T/list.txt" >"$T/list.zst"
    gzip -c "$T/list.txt" >"$T/list.gz"
    head -c 50000 "$T/list.zst" >"$T/cut.zst"
    head -c 300000 "$T/list.gz" >"$T/cut.gz"
    python3 - "$T/list.zst" "$T/bad.zst" "$T/list.gz" "$T/bad.gz" <<'EOF'
import sys
for src, dst, at in ((sys.argv[1], sys.argv[2], 30000), (sys.argv[3], sys.argv[4], 300000)):
    b = bytearray(open(src, "rb").read()); b[at] ^= 0xFF; open(dst, "wb").write(b)
EOF
    URLS=(urls --robots "$T/robots.txt" --agent Googlebot --format tsv)

    run "$T/empty" "${URLS[@]}" "$T/missing.txt"
    expect "urls: missing input file: exit 2, names it" 2 "missing\.txt"
    run "$T/empty" "${URLS[@]}" "$T/adir"
    expect "urls: directory as input: exit 2, names it" 2 "adir"
    run "$T/empty" urls --robots "$T/nope.txt" --agent Googlebot "$T/list.txt"
    expect "urls: missing --robots file: exit 2, names it" 2 "nope\.txt"
    run "$T/empty" "${URLS[@]}" "$T/empty"
    expect "urls: empty input: header only, exit 0" 0 "" 1

    # Truncated / corrupt compressed input: the records before the damage, in
    # order, then exit 2 naming the file and the offset.
    for f in cut.zst cut.gz bad.zst; do
        run "$T/empty" "${URLS[@]}" "$T/$f"
        n=$(( $(wc -l <"$T/out") - 1 ))
        if [ "$rc" = 2 ] && grep -Eq "$f.*offset [0-9]+" "$T/err" && [ "$n" -gt 1000 ] \
           && tail -n +2 "$T/out" | cut -f1 | cmp -s - <(head -n "$n" "$T/list.txt"); then
            pass "urls: damaged $f: $n records before the damage written, then exit 2 ($(cut -c1-70 "$T/err"))"
        else
            fail "urls: damaged $f" "exit $rc, $n records, stderr: $(head -c 200 "$T/err")"
        fi
    done
    # gzip checks its CRC only at the end of a member: lines decoded from the
    # damaged deflate data can be written before the error (docs/hardening.md).
    run "$T/empty" "${URLS[@]}" "$T/bad.gz"
    if [ "$rc" = 2 ] && grep -Eq "bad\.gz.*offset [0-9]+" "$T/err"; then
        pass "urls: corrupt .gz: exit 2 naming the file and offset"
    else
        fail "urls: corrupt .gz" "exit $rc, stderr: $(head -c 200 "$T/err")"
    fi

    # Lines over 1 MiB and a ${BIG_MB} MB line: counted malformed, the next lines processed.
    { echo "http://a.com/private/1"; head -c 1048577 /dev/zero | tr '\0' u; printf '\nhttp://a.com/p2\n';
      head -c $((BIG_MB * 1000000)) /dev/zero | tr '\0' v; printf '\nhttp://a.com/private/3'; } >"$T/long.txt"
    run "$T/empty" "${URLS[@]}" --stats "$T/stats.json" "$T/long.txt"
    if [ "$rc" = 0 ] && [ "$(json_get "$T/stats.json" malformed)" = 2 ] && [ "$(json_get "$T/stats.json" urls)" = 3 ] \
       && [ "$(cut -f4 "$T/out" | tr '\n' ' ')" = "verdict disallow allow disallow " ]; then
        pass "urls: 1 MiB and ${BIG_MB} MB lines counted malformed, next lines processed"
    else
        fail "urls: long lines" "exit $rc, stats $(head -c 200 "$T/stats.json"), out $(cut -f4 "$T/out" | tr '\n' '|')"
    fi

    # Random bytes with NULs: every line counted, nothing crashes.
    python3 -c 'import random,sys; r=random.Random(3); sys.stdout.buffer.write(bytes(r.randrange(256) for _ in range(300000)))' >"$T/noise.bin"
    run "$T/empty" "${URLS[@]}" --stats "$T/stats.json" "$T/noise.bin"
    lines=$(json_get "$T/stats.json" lines); urls=$(json_get "$T/stats.json" urls)
    mal=$(json_get "$T/stats.json" malformed); blank=$(json_get "$T/stats.json" blank); skp=$(json_get "$T/stats.json" skipped)
    if [ "$rc" = 0 ] && [ -n "$lines" ] && [ $((urls + mal + blank + skp)) = "$lines" ]; then
        pass "urls: binary garbage: $lines lines = $urls URLs + $mal malformed + $blank blank + $skp skipped"
    else
        fail "urls: binary garbage" "exit $rc, $(head -c 300 "$T/stats.json")"
    fi

    "$BIN" "${URLS[@]}" "$T/list.txt" 2>"$T/err" | head -1 >/dev/null
    rc=${PIPESTATUS[0]}
    if { [ "$rc" = 0 ] || [ "$rc" = 141 ]; } && [ ! -s "$T/err" ]; then pass "urls: | head -1: exit $rc, no stderr"
    else fail "urls: | head -1" "exit $rc, stderr: $(head -c 200 "$T/err")"; fi
    if [ -w /dev/full ]; then
        "$BIN" "${URLS[@]}" "$T/list.txt" >/dev/full 2>"$T/err"; rc=$?
        if [ "$rc" = 2 ] && [ "$(wc -l <"$T/err")" = 1 ]; then pass "urls: > /dev/full: exit 2, one message"
        else fail "urls: > /dev/full" "exit $rc, stderr: $(head -c 200 "$T/err")"; fi
    else
        skip "urls: write error on stdout" "no writable /dev/full"
    fi
    run "$T/empty" urls --robots "$T/robots.txt" --agent Googlebot --frobnicate
    expect "urls: unknown flag: exit 2 with a usage line" 2 "unknown option.*|Try 'robotscan urls --help'"
    run "$T/empty" urls --robots "$T/robots.txt" "$T/list.txt"
    expect "urls: missing --agent: exit 2" 2 "--agent"
    run "$T/empty" urls --agent Googlebot "$T/list.txt"
    expect "urls: missing --robots: exit 2" 2 "--robots"

    # A plain input file is mapped (rs_reader_opts.map). One truncated while urls reads it
    # (a list rewritten in place, a log rotated by copytruncate) raises SIGBUS at the bytes
    # gone: exit 2 with a message, never a crash. The run is long (8M lines) and the file is
    # cut 0.2 s in; a run that ended first (exit 0) is tried again, cut sooner, up to 3 times.
    yes 'https://www.example.com/private/some/long/path/to/a/page.html' | head -n 8000000 >"$T/shrinking.txt"
    caught=0 crashed=0 attempt=0
    for cut_after in 0.2 0.1 0.05; do
        attempt=$((attempt + 1))
        cp "$T/shrinking.txt" "$T/shrink-run.txt"
        "$BIN" urls --robots "$T/robots.txt" --agent Googlebot --missing allow --quiet -j 1 \
            "$T/shrink-run.txt" >"$T/out" 2>"$T/err" &
        pid=$!
        sleep $cut_after
        truncate -s 4096 "$T/shrink-run.txt"
        wait $pid
        rc=$?
        if [ "$rc" = 2 ] && grep -q "shrank" "$T/err"; then caught=1; break; fi
        [ "$rc" = 0 ] || { crashed=1; break; }
    done
    if [ "$caught" = 1 ]; then pass "urls: input truncated while mapped: exit 2, says so (attempt $attempt)"
    elif [ "$crashed" = 1 ]; then fail "urls: input truncated while mapped" "exit $rc: $(head -c 300 "$T/err")"
    else fail "urls: input truncated while mapped" "every run ended before the file was cut (exit 0)"; fi
    rm -f "$T/shrinking.txt" "$T/shrink-run.txt"
}

echo "-- logs"
run "$T/empty" logs --help
expect "logs --help: exit 0" 0
grep -q '^Usage: robotscan logs' "$T/out" || fail "logs --help" "no usage on stdout: $(head -c 200 "$T/out")"
{
    LOG="$SHARED/data/logs/lnav-shop-access.log"
    LOGS=(logs --robots "$T/robots.txt" --host shop.example --format tsv)
    run "$T/empty" "${LOGS[@]}" "$T/missing.log"
    expect "logs: missing input file: exit 2, names it" 2 "missing\.log"
    run "$T/empty" "${LOGS[@]}" "$T/empty"
    expect "logs: empty input: exit 0" 0
    { for i in 1 2 3 4 5 6 7 8; do cat "$LOG"; done; } | gzip -c >"$T/log.gz"
    head -c 40000 "$T/log.gz" >"$T/cut-log.gz"
    "$BIN" "${LOGS[@]}" "$T/log.gz" >"$T/full.tsv" 2>"$T/err" || fail "logs: 8 copies of the lnav log (.gz)" "exit $?: $(head -c 200 "$T/err")"
    [ "$(wc -l <"$T/full.tsv")" -gt 1000 ] || fail "logs: 8 copies of the lnav log (.gz)" "only $(wc -l <"$T/full.tsv") rows"
    cut -f7 "$T/full.tsv" >"$T/full-urls"
    run "$T/empty" "${LOGS[@]}" --stats "$T/cut.json" "$T/cut-log.gz"
    n=$(json_get "$T/cut.json" lines); recs=$(( $(wc -l <"$T/out") - 1 ))
    if [ "$rc" = 2 ] && grep -Eq "cut-log\.gz.*offset [0-9]+" "$T/err" && [ "${n:-0}" -gt 100 ] && [ "$recs" -gt 10 ] \
       && cut -f7 "$T/out" | cmp -s - <(head -n $((recs + 1)) "$T/full-urls"); then
        pass "logs: truncated .gz: $n lines read, $recs hits written, then exit 2 naming the file and offset"
    else
        fail "logs: truncated .gz" "exit $rc, lines ${n:-?}, $recs hits, stderr: $(head -c 200 "$T/err")"
    fi
    { head -5 "$LOG"; head -c 1048577 /dev/zero | tr '\0' x; echo; printf 'garbage \0\377 line\n'; head -5 "$LOG"; } >"$T/mixed.log"
    run "$T/empty" "${LOGS[@]}" --stats "$T/mixed.json" "$T/mixed.log"
    if [ "$rc" = 0 ] && [ "$(json_get "$T/mixed.json" malformed)" = 2 ] && [ "$(json_get "$T/mixed.json" lines)" = 12 ]; then
        pass "logs: 1 MiB line and a garbage line counted malformed, the rest processed"
    else
        fail "logs: long/garbage lines" "exit $rc, $(head -c 300 "$T/mixed.json")"
    fi
    "$BIN" "${LOGS[@]}" "$T/log.gz" 2>"$T/err" | head -1 >/dev/null
    rc=${PIPESTATUS[0]}
    if { [ "$rc" = 0 ] || [ "$rc" = 141 ]; } && [ ! -s "$T/err" ]; then pass "logs: | head -1: exit $rc, no stderr"
    else fail "logs: | head -1" "exit $rc, stderr: $(head -c 200 "$T/err")"; fi
    if [ -w /dev/full ]; then
        "$BIN" "${LOGS[@]}" "$T/log.gz" >/dev/full 2>"$T/err"; rc=$?
        if [ "$rc" = 2 ] && grep -q "error writing" "$T/err"; then pass "logs: > /dev/full: exit 2"
        else fail "logs: > /dev/full" "exit $rc, stderr: $(head -c 200 "$T/err")"; fi
    else
        skip "logs: write error on stdout" "no writable /dev/full"
    fi
    run "$T/empty" logs --robots "$T/robots.txt" --bogus
    expect "logs: unknown flag: exit 2 with a usage line" 2 "unknown option.*|Try 'robotscan logs --help'"
    run "$T/empty" logs --host shop.example "$LOG"
    expect "logs: missing --robots: exit 2" 2 "--robots"
}

echo "-- lint"
run "$T/empty" lint --help
expect "lint --help: exit 0" 0
grep -q '^Usage: robotscan lint' "$T/out" || fail "lint --help" "no usage on stdout: $(head -c 200 "$T/out")"
{
    run "$T/empty" lint "$T/nope.txt"
    expect "lint: missing file: exit 2, names it" 2 "nope\.txt"
    run "$T/empty" lint "$T/adir" "$T/robots.txt"
    expect "lint: a directory among files: exit 2, names it" 2 "adir"
    run "$T/empty" lint "$T/empty"
    expect "lint: empty file: exit 1 (no-groups warning), no crash" 1 "" 1
    run "$T/empty" lint --format jsonl "$T/garbage.txt" "$T/latin1.txt" "$T/big.txt"
    if [ "$rc" = 1 ] && python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1], "rb").read().decode("utf-8").splitlines()]
codes = {r["code"] for r in rows}
assert {"nul-byte", "invalid-utf8", "file-too-large", "line-too-long"} <= codes, codes
' "$T/out" 2>"$T/py"; then
        pass "lint: garbage, invalid UTF-8, >500 KiB: valid JSONL naming nul-byte, invalid-utf8, file-too-large, line-too-long"
    else
        fail "lint: hostile files" "exit $rc; $(head -c 300 "$T/py") $(head -c 200 "$T/err")"
    fi
    run "$T/empty" lint "$T/many-rules.txt" "$T/many-groups.txt" "$T/hostile.txt"
    if [ "$rc" = 0 ] || [ "$rc" = 1 ]; then pass "lint: 100,000 rules, 10,000 groups, hostile wildcards: exit $rc"
    else fail "lint: big files" "exit $rc: $(head -c 200 "$T/err")"; fi
    if [ -w /dev/full ]; then
        "$BIN" lint "$T/garbage.txt" >/dev/full 2>"$T/err"; rc=$?
        expect "lint: > /dev/full: exit 2" 2 "error writing"
    else
        skip "lint: write error on stdout" "no writable /dev/full"
    fi
    run "$T/empty" lint --bogus "$T/robots.txt"
    expect "lint: unknown flag: exit 2 with a usage line" 2 "unknown option.*|Try 'robotscan lint --help'"
    run "$T/empty" lint
    expect "lint: no file: exit 2" 2 ""
}

if [ "$fails" -ne 0 ]; then
    echo "test_badinput: $fails case(s) failed, $skips skipped"
    exit 1
fi
echo "test_badinput: all cases passed, $skips skipped"
