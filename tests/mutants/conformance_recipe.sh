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
# With --batch (tests/conformance_batch.py) they read the batch file (the last argument)
# and answer in --batch's columns.
fake allow-all 'case " $* " in *" --batch "*)
    for f; do :; done; printf "robots\tagent\turl\tverdict\tline\trule\n"
    awk -F"\t" -v OFS="\t" "{ print \$1, \$2, \$3, \"allow\", 0, \"\" }" "$f"; exit 0 ;; esac
printf "url\tverdict\tline\trule\n"; while IFS= read -r u; do printf "%s\tallow\t0\t\n" "$u"; done'
fake exit-3 'cat >/dev/null; exit 3'
fake header-only 'case " $* " in *" --batch "*) printf "robots\tagent\turl\tverdict\tline\trule\n"; exit 0 ;; esac
cat >/dev/null; printf "url\tverdict\tline\trule\n"'
printf 'x\ty\thttp://e.com/\n' >"$W/one.tsv"
[ "$("$W/allow-all" check --batch --format tsv "$W/one.tsv")" = $'robots\tagent\turl\tverdict\tline\trule\nx\ty\thttp://e.com/\tallow\t0\t' ] \
    || { echo "FAIL: the allow-all fake's --batch output"; bad=1; }

# The recipe's two runners, each alone on seed-examples: one --batch process per folder
# (CONFORMANCE), one check per group (CONFORMANCE_GROUPS).
recipe() { "$make" --no-print-directory -s test-conformance "$@" RESULTS=/dev/null 2>&1; }
for runner in "batch:CONFORMANCE=seed-examples CONFORMANCE_GROUPS= CONFORMANCE_FM=" \
              "groups:CONFORMANCE= CONFORMANCE_GROUPS=seed-examples CONFORMANCE_FM="; do
    what=${runner%%:*}
    read -r -a sel <<<"${runner#*:}"
    for f in allow-all exit-3 header-only; do
        if recipe "$@" "${sel[@]}" CONFORMANCE_BIN="$W/$f" | sed 's/^/    | /'; then
            echo "FAIL: make test-conformance ($what) passed with a fake binary ($f)"; bad=1
        else
            echo "ok: make test-conformance ($what) fails with a fake binary ($f)"
        fi
    done
    if recipe "$@" "${sel[@]}" SHARED=/nonexistent | sed 's/^/    | /'; then
        echo "FAIL: make test-conformance ($what) passed with SHARED=/nonexistent"; bad=1
    else
        echo "ok: make test-conformance ($what) fails with SHARED=/nonexistent"
    fi
    if recipe "$@" "${sel[@]}" | sed 's/^/    | /'; then
        echo "ok: make test-conformance ($what) passes with the real binary (control)"
    else
        echo "FAIL: make test-conformance ($what) fails with the real binary"; bad=1
    fi
done
exit $bad
