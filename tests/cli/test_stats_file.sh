#!/usr/bin/env bash
# CLI tests for --stats files: checked for writability before any work (exit 2,
# nothing on stdout), written to a temporary file and renamed (no partial file,
# no temporary left behind, an old file replaced whole).
# Usage: bash tests/cli/test_stats_file.sh ./robotscan [SHARED]   (SHARED is not needed)
set -u
BIN=${1:-./robotscan}
. "$(dirname "$0")/lib/helpers.sh"

printf 'User-agent: *\nDisallow: /p\n' >"$T/robots.txt"
printf 'https://a.com/p\nhttps://a.com/q\n' >"$T/urls.txt"
printf '1.2.3.4 - - [22/Nov/2026:10:00:02 +0000] "GET /p HTTP/1.1" 200 5 "-" "Googlebot/2.1"\n' >"$T/access.log"

for cmd in urls logs; do
    if [ $cmd = urls ]; then args=(urls --robots "$T/robots.txt" --agent x --format tsv "$T/urls.txt")
    else args=(logs --robots "$T/robots.txt" --host a.com --format tsv "$T/access.log"); fi

    expect_run "$cmd: missing dir" 2 "$BIN" "${args[@]}" --stats "$T/no/such/dir/s.json"
    expect_err "$cmd: missing dir" "^robotscan: $T/no/such/dir/s.json: cannot write --stats: directory .*No such file"
    [ -s "$T/out" ] && fail "$cmd: missing dir: output before the check: $(head -c 200 "$T/out")"

    expect_run "$cmd: a directory" 2 "$BIN" "${args[@]}" --stats "$T"
    expect_err "$cmd: a directory" "cannot write --stats: is a directory"
    [ -s "$T/out" ] && fail "$cmd: a directory: output before the check"

    printf 'old contents that are longer than any stats file would ever be %0500d\n' 0 >"$T/s.json"
    expect_run "$cmd: replace" 0 "$BIN" "${args[@]}" --stats "$T/s.json"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["command"]==sys.argv[2], d' \
        "$T/s.json" $cmd || fail "$cmd: replace: not a whole stats file: $(head -c 200 "$T/s.json")"
    ls "$T" | grep -q '\.tmp\.' && fail "$cmd: a temporary file was left: $(ls "$T")"
done

# every --stats document names its schema version (an integer) and its command
expect_run "urls schema" 0 "$BIN" urls --robots "$T/robots.txt" --agent x --quiet --stats "$T/u.json" "$T/urls.txt"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert type(d["schema_version"]) is int and d["command"]=="urls", d' \
    "$T/u.json" || fail "urls schema: $(head -c 200 "$T/u.json")"

# a special file is written in place (no temporary beside /dev/stdout)
expect_run "stats to stdout" 0 "$BIN" urls --robots "$T/robots.txt" --agent x --quiet --stats /dev/stdout "$T/urls.txt"
grep -q '"command":"urls","schema_version":[0-9]' "$T/out" || fail "stats to stdout: $(head -c 300 "$T/out")"

if [ "$(id -u)" = 0 ]; then
    skip "read-only --stats file" "root may write it anyway"
else
    : >"$T/ro.json"; chmod 444 "$T/ro.json"
    expect_run "read-only" 2 "$BIN" urls --robots "$T/robots.txt" --agent x "$T/urls.txt" --stats "$T/ro.json"
    expect_err "read-only" "cannot write --stats: Permission denied"
fi

finish
