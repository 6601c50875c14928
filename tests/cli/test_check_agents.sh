#!/usr/bin/env bash
# CLI tests for `robotscan check` with --agent repeated: one record per URL per
# agent (agents in --agent order), an agent column only then, exit 1 if any is
# disallowed. Usage: bash tests/cli/test_check_agents.sh ./robotscan [SHARED] (not needed)
set -u
BIN=${1:-./robotscan}
. "$(dirname "$0")/lib/helpers.sh"

cat >"$T/robots.txt" <<'R'
User-agent: *
Disallow: /private

User-agent: FooBot
Disallow: /
Allow: /ok
R

expect_run "two agents tsv" 1 "$BIN" check --robots "$T/robots.txt" --agent BarBot --agent FooBot \
    --format tsv http://e.com/ok http://e.com/private
expect_out "two agents tsv" 'url	agent	verdict	line	rule
http://e.com/ok	BarBot	allow	0	
http://e.com/ok	FooBot	allow	6	allow: /ok
http://e.com/private	BarBot	disallow	2	disallow: /private
http://e.com/private	FooBot	disallow	5	disallow: /
'
printf 'http://e.com/ok\n' | "$BIN" check --robots "$T/robots.txt" --agent foobot --agent BarBot \
    --format jsonl >"$T/out" 2>"$T/err"
[ $? = 0 ] || fail "stdin jsonl: exit status"
expect_out "stdin jsonl" '{"url":"http://e.com/ok","agent":"foobot","verdict":"allow","line":6,"rule":"allow: /ok"}
{"url":"http://e.com/ok","agent":"BarBot","verdict":"allow","line":0,"rule":""}
'
expect_run "two agents text" 1 "$BIN" check --robots "$T/robots.txt" --agent BarBot --agent FooBot \
    --format text http://e.com/x
expect_out "two agents text" 'allowed     BarBot  http://e.com/x  (no matching rule)
DISALLOWED  FooBot  http://e.com/x  (line 5: disallow: /)
'
# one agent: the columns stay url, verdict, line, rule
expect_run "one agent" 0 "$BIN" check --robots "$T/robots.txt" --agent BarBot --format tsv http://e.com/ok
expect_out "one agent" 'url	verdict	line	rule
http://e.com/ok	allow	0	
'
expect_run "no agent" 2 "$BIN" check --robots "$T/robots.txt" http://e.com/ok
expect_err "no agent" "needs at least one --agent"

finish
