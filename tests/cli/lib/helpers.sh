# helpers.sh - what the CLI test scripts share; sourced, not run (tests/cli/*.sh are the tests).
# Gives: $T (a temp dir removed on exit), fail, expect_run, expect_out, expect_err, finish.

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect_run NAME WANT_EXIT CMD... : runs CMD (stdin /dev/null), checks its exit status;
# output in $T/out, $T/err
expect_run() {
    local name=$1 want=$2; shift 2
    "$@" >"$T/out" 2>"$T/err" </dev/null
    local got=$?
    [ "$got" = "$want" ] || fail "$name: exit $got, want $want (stderr: $(head -c 300 "$T/err"))"
}

# expect_out NAME TEXT : $T/out must be exactly TEXT
expect_out() {
    diff -u <(printf '%s' "$2") "$T/out" >"$T/diff" || fail "$1: output differs: $(cat "$T/diff")"
}

# expect_err NAME REGEX : a line of $T/err matches REGEX (grep -E)
expect_err() {
    grep -Eq -- "$2" "$T/err" || fail "$1: stderr lacks /$2/: $(head -c 400 "$T/err")"
}

# finish : the script's verdict and exit status
finish() {
    local name
    name=$(basename "$0")
    if [ "$failures" -ne 0 ]; then
        echo "$name: $failures failure(s)"
        exit 1
    fi
    echo "$name: all passed"
}
