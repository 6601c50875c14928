# helpers.sh - what the CLI test scripts share; sourced, not run (tests/cli/*.sh are the tests).
# Gives: $T (a temp dir removed on exit), fail, skip, expect_run, expect_ok, expect_out,
# expect_err, expect_nonempty, finish.
# RS_TEST_FAIL_FAST=1 (set by tests/mutants/run.sh): the first failure ends the script (exit 1).

T=$(mktemp -d)
trap 'chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"' EXIT
failures=0
skips=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
    if [ -n "${RS_TEST_FAIL_FAST:-}" ]; then
        echo "$(basename "$0"): stopped at the first failure (RS_TEST_FAIL_FAST)"
        exit 1
    fi
}

# skip WHAT REASON : a check that cannot run here, said out loud (counted by make test)
skip() { echo "SKIP: $1: $2"; skips=$((skips + 1)); }

# expect_run NAME WANT_EXIT CMD... : runs CMD (stdin /dev/null), checks its exit status;
# output in $T/out, $T/err
expect_run() {
    local name=$1 want=$2; shift 2
    "$@" >"$T/out" 2>"$T/err" </dev/null
    local got=$?
    [ "$got" = "$want" ] || fail "$name: exit $got, want $want (stderr: $(head -c 300 "$T/err"))"
}

# expect_ok NAME CMD... : expect_run NAME 0 CMD...
expect_ok() { local name=$1; shift; expect_run "$name" 0 "$@"; }

# expect_out NAME TEXT : $T/out must be exactly TEXT
expect_out() {
    diff -u <(printf '%s' "$2") "$T/out" >"$T/diff" || fail "$1: output differs: $(cat "$T/diff")"
}

# expect_err NAME REGEX : a line of $T/err matches REGEX (grep -E)
expect_err() {
    grep -Eq -- "$2" "$T/err" || fail "$1: stderr lacks /$2/: $(head -c 400 "$T/err")"
}

# expect_nonempty NAME FILE... : each FILE exists and has at least one byte
# (a comparison of two empty outputs proves nothing)
expect_nonempty() {
    local name=$1 f; shift
    for f in "$@"; do [ -s "$f" ] || fail "$name: $f is empty"; done
}

# finish : the script's verdict and exit status
finish() {
    local name
    name=$(basename "$0")
    if [ "$failures" -ne 0 ]; then
        echo "$name: $failures failure(s), $skips skipped"
        exit 1
    fi
    echo "$name: all passed, $skips skipped"
}
