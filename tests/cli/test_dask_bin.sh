#!/usr/bin/env bash
# scripts/robotscan-dask finds robotscan (issue 29 item 5): --bin, a path as the
# command's first word, the binary beside the script, then PATH; otherwise one
# line on stderr and exit 2, never a Python traceback. The runs here stop at
# `robotscan shard` (a missing input) or before it, so no Dask cluster starts.
# Usage: bash tests/cli/test_dask_bin.sh ./robotscan SHARED_DIR
set -u
BIN=${1:-./robotscan}
HERE=$(cd "$(dirname "$0")" && pwd)
DASK=$HERE/../../scripts/robotscan-dask
. "$HERE/lib/helpers.sh"
BIN_ABS=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
printf 'https://example.com/a\n' > "$T/urls.txt"
NOPATH=/usr/bin:/bin   # no robotscan here

no_traceback() { # NAME : stderr has no traceback and is one line
    grep -q Traceback "$T/err" && fail "$1: a Python traceback: $(head -c 300 "$T/err")"
    [ "$(wc -l < "$T/err")" = 1 ] || fail "$1: want one line on stderr, got: $(head -c 400 "$T/err")"
}

# a copy of the script alone in a folder, robotscan not on PATH: one line, exit 2
mkdir -p "$T/alone" && cp "$DASK" "$T/alone/robotscan-dask"
expect_run "not found" 2 env PATH=$NOPATH /usr/bin/python3 "$T/alone/robotscan-dask" -- robotscan urls "$T/urls.txt"
no_traceback "not found"
expect_err "not found" "robotscan-dask: cannot find 'robotscan'.*--bin"

# --bin that is not a program, a path that is not a program
expect_run "--bin missing" 2 env PATH=$NOPATH /usr/bin/python3 "$T/alone/robotscan-dask" --bin "$T/nope" -- robotscan urls "$T/urls.txt"
no_traceback "--bin missing"
expect_err "--bin missing" "--bin .*nope: not an executable file"
expect_run "path missing" 2 env PATH=$NOPATH /usr/bin/python3 "$T/alone/robotscan-dask" -- "$T/nope/robotscan" urls "$T/urls.txt"
no_traceback "path missing"

# found: --bin, beside the script (a symlink), on PATH. Each run reaches `robotscan
# shard`, which names the missing input (so the binary ran), exit 2.
found() { # NAME CMD... : robotscan shard ran and refused the missing input
    expect_run "$1" 2 "${@:2}"
    grep -q Traceback "$T/err" && fail "$1: a Python traceback: $(head -c 300 "$T/err")"
    grep -q "cannot find" "$T/err" && fail "$1: robotscan not found: $(cat "$T/err")"
    expect_err "$1" "no-such-input"
}
found "--bin" env PATH=$NOPATH /usr/bin/python3 "$T/alone/robotscan-dask" --bin "$BIN_ABS" -- robotscan urls "$T/no-such-input"
mkdir -p "$T/beside" && cp "$DASK" "$T/beside/robotscan-dask" && ln -s "$BIN_ABS" "$T/beside/robotscan"
found "beside" env PATH=$NOPATH /usr/bin/python3 "$T/beside/robotscan-dask" -- robotscan urls "$T/no-such-input"
mkdir -p "$T/onpath" && ln -s "$BIN_ABS" "$T/onpath/robotscan"
found "on PATH" env PATH=$T/onpath:$NOPATH /usr/bin/python3 "$T/alone/robotscan-dask" -- robotscan urls "$T/no-such-input"

# no Dask: one line, not a traceback (only checkable where python3-distributed is missing)
if /usr/bin/python3 -c 'import distributed' 2>/dev/null; then
    skip "no Dask" "python3-distributed is installed here"
else
    expect_run "no Dask" 2 env PATH=$NOPATH /usr/bin/python3 "$T/beside/robotscan-dask" -- robotscan urls "$T/urls.txt"
    no_traceback "no Dask"
    expect_err "no Dask" "python3-distributed"
fi
finish
