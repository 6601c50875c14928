#!/usr/bin/env bash
# CLI tests for the usage hints (issue 11, part 4): a URL given to --robots, a
# directory given to check, "did you mean" for unknown options, a User-Agent header
# given to --agent, --only allow/disallow aliases, and a terminal on stdin.
# Usage: bash tests/cli/test_hints.sh ./robotscan [SHARED]   (SHARED is not needed)
set -u
BIN=${1:-./robotscan}
. "$(dirname "$0")/lib/helpers.sh"

cat >"$T/robots.txt" <<'R'
User-agent: *
Disallow: /private
R
mkdir -p "$T/dir"
cp "$T/robots.txt" "$T/dir/a.com.txt"
printf 'https://a.com/private\nhttps://a.com/public\n' >"$T/urls.txt"

# --robots https://... : robotscan does not fetch
expect_run "robots url" 2 "$BIN" check --robots https://a.com/robots.txt --agent x /
expect_err "robots url" "does not fetch; save the file first"
expect_run "robots url (urls)" 2 "$BIN" urls --robots http://a.com/robots.txt --agent x "$T/urls.txt"
expect_err "robots url (urls)" "not a URL"

# a directory given to check -> use urls
expect_run "check dir" 2 "$BIN" check --robots "$T/dir" --agent x /
expect_err "check dir" "is a directory.*robotscan urls"

# unknown option -> did you mean
expect_run "did you mean" 2 "$BIN" urls --robot "$T/dir" --agent x "$T/urls.txt"
expect_err "did you mean" "unknown option --robot; did you mean --robots\?"
expect_run "did you mean (typo)" 2 "$BIN" check --robots "$T/robots.txt" --agnet x /
expect_err "did you mean (typo)" "did you mean --agent\?"
expect_run "no suggestion" 2 "$BIN" lint --zzzzzzzz "$T/robots.txt"
expect_err "no suggestion" "^robotscan lint: unknown option --zzzzzzzz$"

# --log-format common on a combined log: the hit has no user agent in that format, and
# the lines read as combined, which has one -> the hint names it; a real common log: no hint
cat >"$T/combined.log" <<'L'
66.249.66.1 - - [17/May/2015:10:05:03 +0000] "GET /private HTTP/1.1" 200 5 "-" "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
66.249.66.1 - - [17/May/2015:10:05:04 +0000] "GET /public HTTP/1.1" 200 5 "-" "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
L
expect_run "common on combined" 2 "$BIN" logs --robots "$T/robots.txt" --host a.com --log-format common "$T/combined.log"
expect_err "common on combined" "hint: .*combined.log reads as 'combined', which has the user agent: try --log-format combined"
printf '1.2.3.4 - - [17/May/2015:10:05:03 +0000] "GET /x HTTP/1.1" 200 5\n' >"$T/common.log"
expect_run "common on common" 2 "$BIN" logs --robots "$T/robots.txt" --host a.com --log-format common "$T/common.log"
grep -q '^hint:' "$T/err" && fail "common on common: a hint for a log that is common: $(cat "$T/err")"

# a whole User-Agent header given to --agent -> the crawler token inside it
expect_run "ua header" 1 "$BIN" check --robots "$T/robots.txt" --format tsv \
    --agent 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' /private
expect_err "ua header" "looks like a User-Agent header.*did you mean 'Googlebot'\?"
expect_run "token/version" 0 "$BIN" check --robots "$T/robots.txt" --format tsv --agent Googlebot/2.1 /x
expect_err "token/version" "did you mean 'Googlebot'\?"

# --only allow / disallow are aliases of allowed / disallowed
for w in disallow disallowed; do
    expect_run "only $w" 0 "$BIN" urls --robots "$T/dir" --agent x --format tsv --only $w "$T/urls.txt"
    expect_out "only $w" 'url	origin	agent	verdict	line	rule	reason
https://a.com/private	https://a.com	x	disallow	2	disallow: /private	matched
'
done
expect_run "only allow" 0 "$BIN" urls --robots "$T/dir" --agent x --format tsv --only allow "$T/urls.txt"
expect_out "only allow" 'url	origin	agent	verdict	line	rule	reason
https://a.com/public	https://a.com	x	allow	0		no-match
'
expect_run "only bad" 2 "$BIN" urls --robots "$T/dir" --agent x --only maybe "$T/urls.txt"

# a terminal on stdin and no input: a usage hint instead of a silent wait
if command -v script >/dev/null 2>&1; then
    script -qec "'$BIN' check --robots '$T/robots.txt' --agent x; echo \"rc=\$?\"" /dev/null >"$T/tty" 2>&1
    grep -q "stdin is a terminal" "$T/tty" && grep -q "rc=2" "$T/tty" \
        || fail "check on a terminal: $(cat "$T/tty")"
    script -qec "'$BIN' urls --robots '$T/dir' --agent x; echo \"rc=\$?\"" /dev/null >"$T/tty" 2>&1
    grep -q "stdin is a terminal" "$T/tty" && grep -q "rc=2" "$T/tty" \
        || fail "urls on a terminal: $(cat "$T/tty")"
else
    skip "commands on a terminal" "no script(1) to give them one"
fi
# ... while a pipe still works
printf '/private\n' | "$BIN" check --robots "$T/robots.txt" --agent x --format tsv >"$T/out" 2>"$T/err"
[ $? = 1 ] || fail "check from a pipe: exit status"
grep -q "^/private	disallow	2" "$T/out" || fail "check from a pipe: $(cat "$T/out")"

finish
