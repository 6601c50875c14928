#!/usr/bin/env bash
# CLI tests: one error shape for files that cannot be used, in every command:
#   robotscan: FILE: what failed: reason   (the reason is the errno text)
# Usage: bash tests/cli/test_error_shape.sh ./robotscan [SHARED]   (SHARED is not needed)
set -u
BIN=${1:-./robotscan}
. "$(dirname "$0")/lib/helpers.sh"

N=$T/no-such-file
printf 'User-agent: *\nDisallow: /p\n' >"$T/robots.txt"
printf 'https://a.com/p\n' >"$T/urls.txt"
mkdir "$T/dir"

shape() { # NAME FILE WHAT REASON
    grep -Eq "^robotscan: $2: $3: $4\$" "$T/err" || fail "$1: stderr not 'robotscan: $2: $3: $4': $(cat "$T/err")"
}
expect_run "check robots" 2 "$BIN" check --robots "$N" --agent x /p
shape "check robots" "$N" "cannot open" "No such file or directory"
expect_run "urls robots" 2 "$BIN" urls --robots "$N" --agent x "$T/urls.txt"
shape "urls robots" "$N" "cannot open robots source" "No such file or directory"
expect_run "urls input" 2 "$BIN" urls --robots "$T/robots.txt" --agent x "$N"
shape "urls input" "$N" "cannot open" "No such file or directory"
expect_run "logs input" 2 "$BIN" logs --robots "$T/robots.txt" --host a.com "$N"
shape "logs input" "$N" "cannot open" "No such file or directory"
expect_run "lint file" 2 "$BIN" lint "$N"
shape "lint file" "$N" "cannot open" "No such file or directory"
expect_run "lint dir" 2 "$BIN" lint "$T/dir"
shape "lint dir" "$T/dir" "cannot lint" "a directory without robots.txt files"
expect_run "urls manifest" 2 "$BIN" urls --robots "$T/dir/m.tsv" --agent x "$T/urls.txt"
shape "urls manifest" "$T/dir/m.tsv" "cannot open robots source" "No such file or directory"
# a robots file named by a directory source that vanished after indexing is not reachable from
# the CLI in one run; a manifest naming a missing file is:
printf 'https://a.com\t200\tmissing.txt\n' >"$T/dir/m.tsv"
expect_run "manifest file" 2 "$BIN" urls --robots "$T/dir/m.tsv" --agent x "$T/urls.txt"
shape "manifest file" "$T/dir/missing.txt" "cannot open robots file" "No such file or directory"

finish
