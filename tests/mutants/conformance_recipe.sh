#!/usr/bin/env bash
# conformance_recipe.sh - `make test-conformance` itself can fail (issue: it once piped into
# `tail -1` without pipefail and passed anything). Runs the recipe on the seed-examples
# vectors with fake binaries and a missing SHARED (each must make it fail), and with the real
# binary (must pass). Their expected FAIL lines are shown indented, under "| ".
# Usage: conformance_recipe.sh MAKE [VAR=VALUE...]   (run by `make test-mutants`)
set -u -o pipefail
make=$1; shift
W=$(mktemp -d "${TMPDIR:-/tmp}/rs-confrecipe.XXXXXX")
trap 'rm -rf "$W"' EXIT
bad=0

# fake NAME BODY : a fake robotscan (sh script) reading URLs on stdin
fake() { printf '#!/bin/sh\n%s\n' "$2" >"$W/$1"; chmod +x "$W/$1"; }
fake allow-all 'printf "url\tverdict\tline\trule\n"; while IFS= read -r u; do printf "%s\tallow\t0\t\n" "$u"; done'
fake exit-3 'cat >/dev/null; exit 3'
fake header-only 'cat >/dev/null; printf "url\tverdict\tline\trule\n"'

recipe() { "$make" --no-print-directory -s test-conformance "$@" CONFORMANCE=seed-examples RESULTS=/dev/null 2>&1; }

for f in allow-all exit-3 header-only; do
    if recipe "$@" CONFORMANCE_BIN="$W/$f" | sed 's/^/    | /'; then
        echo "FAIL: make test-conformance passed with a fake binary ($f)"; bad=1
    else
        echo "ok: make test-conformance fails with a fake binary ($f)"
    fi
done
if recipe "$@" SHARED=/nonexistent | sed 's/^/    | /'; then
    echo "FAIL: make test-conformance passed with SHARED=/nonexistent"; bad=1
else
    echo "ok: make test-conformance fails with SHARED=/nonexistent"
fi
if recipe "$@" | sed 's/^/    | /'; then
    echo "ok: make test-conformance passes with the real binary (control)"
else
    echo "FAIL: make test-conformance fails with the real binary"; bad=1
fi
exit $bad
