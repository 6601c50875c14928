#!/usr/bin/env bash
# run.sh - `make test-mutants`: proves the CLI suites can fail. Each row of MATRIX names a
# broken wrapper of the real binary (tests/mutants/wrap.sh; "MUTANT@REGEX" breaks only the
# runs whose arguments match REGEX) and the suites that must fail on it. Suites run with
# RS_TEST_FAIL_FAST=1 (they stop at their first failure), two at a time. The control row
# ("pass", an unbroken wrapper) must pass every suite it names, so a catch is never an
# artefact of wrapping. docs/testing.md explains the table.
# Usage: tests/mutants/run.sh ./robotscan SHARED_DIR     exit 1 when a mutant is missed
set -u
BIN=$1
SHARED=$2
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
case $SHARED in /*) ;; *) SHARED=$PWD/$SHARED ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
CLI=$HERE/../cli
ALL="test_check.sh test_urls.sh test_logs.sh test_lint.sh test_badinput.sh conformance conformance-batch"
# MUTANT[@WHEN]                       suites that must fail on it ("conformance" = the runner
#                                     on the seed-examples vectors: 24 groups of up to 27 URLs;
#                                     "conformance-batch" = tests/conformance_batch.py on them:
#                                     one `check --batch` process)
MATRIX="
pass                                  $ALL
exit-nonzero                          $ALL
crash-first                           $ALL
drop-nth                              $ALL
swap-one                              test_check.sh test_urls.sh test_logs.sh test_badinput.sh conformance conformance-batch
header-only                           $ALL
help-exit1                            test_check.sh test_urls.sh test_logs.sh test_lint.sh test_badinput.sh
unordered-j                           test_urls.sh test_logs.sh
exit-nonzero@[.](zst|gz)[[:space:]]   test_urls.sh test_logs.sh
exit-nonzero@^[[:space:]]logs[[:space:]]   test_logs.sh test_badinput.sh
exit-nonzero@--format[[:space:]]csv   test_check.sh test_logs.sh test_urls.sh
help-exit1@^[[:space:]]logs[[:space:]]     test_logs.sh test_badinput.sh
drop-nth@^[[:space:]]check[[:space:]]      test_check.sh test_badinput.sh conformance conformance-batch
"
# A run that takes longer than this is stopped and reported as too slow (time, not a
# wrong answer and not a catch): about 10x the slowest control run on a loaded machine.
LIMIT=${MUTANT_TIME_LIMIT:-1800}
W=$(mktemp -d "${TMPDIR:-/tmp}/rs-mutants.XXXXXX")
trap 'rm -rf "$W"' EXIT

# one_run ID MUTANT WHEN SUITE : runs SUITE against the wrapper, leaves $W/ID.rc and $W/ID.log
one_run() {
    local id=$1 m=$2 when=$3 suite=$4 wrapper=$W/$1.bin
    {
        echo '#!/usr/bin/env bash'
        printf 'export MUTANT_WHEN=%q\n' "$when"
        printf 'exec bash %q %q %q "$@"\n' "$HERE/wrap.sh" "$m" "$BIN"
    } >"$wrapper"
    chmod +x "$wrapper"
    local t0=$SECONDS
    if [ "$suite" = conformance ]; then
        RS_TEST_FAIL_FAST=1 timeout "$LIMIT" python3 "$SHARED/tools/conformance_check.py" \
            "$SHARED/conformance/seed-examples" --bin "$wrapper" >"$W/$id.log" 2>&1
    elif [ "$suite" = conformance-batch ]; then
        RS_TEST_FAIL_FAST=1 timeout "$LIMIT" python3 "$HERE/../conformance_batch.py" \
            "$SHARED/conformance/seed-examples" --bin "$wrapper" >"$W/$id.log" 2>&1
    else
        RS_TEST_FAIL_FAST=1 timeout "$LIMIT" bash "$CLI/$suite" "$wrapper" "$SHARED" >"$W/$id.log" 2>&1
    fi
    echo $? >"$W/$id.rc"
    echo $((SECONDS - t0)) >"$W/$id.secs"
}

rows=() n=0
while read -r spec suites; do
    [ -n "$spec" ] || continue
    m=${spec%%@*} when=
    [ "$spec" != "$m" ] && when=${spec#*@}
    for s in $suites; do
        n=$((n + 1))
        rows+=("$n"$'\x1f'"$spec"$'\x1f'"$m"$'\x1f'"$when"$'\x1f'"$s")
    done
done <<<"$MATRIX"

start=$(date +%s)
running=0
for r in "${rows[@]}"; do
    IFS=$'\x1f' read -r id spec m when s <<<"$r"
    one_run "$id" "$m" "$when" "$s" &
    running=$((running + 1))
    if [ $running -ge 2 ]; then wait -n; running=$((running - 1)); fi
done
wait

caught=0 missed=0 control=0
printf '%-38s %-18s %5s  %s\n' "mutant" "suite" "s" "result (first failure)"
for r in "${rows[@]}"; do
    IFS=$'\x1f' read -r id spec m when s <<<"$r"
    rc=$(cat "$W/$id.rc" 2>/dev/null || echo "?")
    secs=$(cat "$W/$id.secs" 2>/dev/null || echo "?")
    first=$(grep -m1 -aE 'FAIL|^exit [0-9]|^no verdict|^verdict|^line|[0-9]+/[0-9]+ verdicts' "$W/$id.log" \
            | sed 's/output differs: .*/output differs/' | cut -c1-110)
    if [ "$rc" = 124 ]; then
        res="TOO SLOW: stopped after $LIMIT s (MUTANT_TIME_LIMIT): a time limit, not a wrong answer"
        missed=$((missed + 1))
    elif [ "$m" = pass ]; then
        if [ "$rc" = 0 ]; then res="passes (control)"; control=$((control + 1))
        else res="FAILED: the unbroken wrapper fails this suite (exit $rc): $first"; missed=$((missed + 1)); fi
    elif [ "$rc" = 0 ]; then
        res="MISSED: the suite passed"; missed=$((missed + 1))
    else
        res="caught: $first"; caught=$((caught + 1))
    fi
    printf '%-38s %-18s %5s  %s\n' "$spec" "$s" "$secs" "$res"
done
echo "mutants: $caught caught, $missed missed or failed, $control control runs passed ($(( $(date +%s) - start )) s)"
[ $missed = 0 ]
