#!/usr/bin/env bash
# wrap.sh - a deliberately broken robotscan: runs the real binary and breaks its result in
# one way, so tests/mutants/run.sh can prove the CLI suites notice. Not a test by itself.
# Usage: wrap.sh MUTANT REAL_BINARY ARGS...
# MUTANT_WHEN (optional, an extended regex): break only runs whose " ARGS " match it;
# other runs are the real binary's.
#   pass          no change (the control: every suite must pass on it)
#   exit-nonzero  correct output, then exit 23 where the real exit is 0 or 1 (a late
#                 LeakSanitizer report after a success or a finding)
#   crash-first   stdout ends after the first record (after the header, if any), then SIGSEGV
#   drop-nth      every 4th line of stdout is lost; exit status kept
#   swap-one      the first record with a verdict gets the other one (allow <-> disallow)
#   header-only   only the first line of stdout; exit status kept
#   help-exit1    --help / -h exit 1 (output unchanged)
#   unordered-j   with -j/--jobs N > 1, records come out in reverse order (the header stays first)
set -u
m=$1 real=$2
shift 2
if [ -n "${MUTANT_WHEN:-}" ] && ! [[ " $* " =~ $MUTANT_WHEN ]]; then
    exec "$real" "$@"
fi
# Write errors (stdout on /dev/full) are the real binary's own path: a filter in between
# would report them in its own words, a difference that is not the mutant's.
[ "$(readlink /proc/$$/fd/1 2>/dev/null)" = /dev/full ] && exec "$real" "$@"
export LC_ALL=C
case $m in
pass)
    exec "$real" "$@" ;;
exit-nonzero)
    "$real" "$@"
    rc=$?
    case $rc in 0|1) exit 23 ;; esac
    exit $rc ;;
crash-first)
    "$real" "$@" | awk 'NR == 1 && /^(url|time)[\t,]/ { print; next } { print; exit }'
    kill -SEGV $$ ;;
drop-nth)
    "$real" "$@" | awk 'NR % 4 != 0'
    exit "${PIPESTATUS[0]}" ;;
swap-one)
    "$real" "$@" | awk '
        function sw(a, b,   i) {
            i = index($0, a)
            if (i == 0) return 0
            $0 = substr($0, 1, i - 1) b substr($0, i + length(a)); done = 1; return 1
        }
        !done {
            sw("\tdisallow\t", "\tallow\t") || sw("\tallow\t", "\tdisallow\t") ||
            sw("\"verdict\":\"disallow\"", "\"verdict\":\"allow\"") ||
            sw("\"verdict\":\"allow\"", "\"verdict\":\"disallow\"") ||
            sw(",disallow,", ",allow,") || sw(",allow,", ",disallow,") ||
            (substr($0, 1, 12) == "DISALLOWED  " && sw("DISALLOWED  ", "allowed     ")) ||
            (substr($0, 1, 12) == "allowed     " && sw("allowed     ", "DISALLOWED  "))
        }
        { print }'
    exit "${PIPESTATUS[0]}" ;;
header-only)
    "$real" "$@" | awk 'NR == 1'
    exit "${PIPESTATUS[0]}" ;;
help-exit1)
    for a in "$@"; do
        if [ "$a" = --help ] || [ "$a" = -h ]; then "$real" "$@"; exit 1; fi
    done
    exec "$real" "$@" ;;
unordered-j)
    par=0 prev=
    for a in "$@"; do
        case $prev in -j|--jobs) [ "$a" -gt 1 ] 2>/dev/null && par=1 ;; esac
        case $a in -j[2-9]*|--jobs=[2-9]*) par=1 ;; esac
        prev=$a
    done
    [ $par = 1 ] || exec "$real" "$@"
    "$real" "$@" | awk 'NR == 1 { print; next } { r[n++] = $0 } END { for (i = n - 1; i >= 0; i--) print r[i] }'
    exit "${PIPESTATUS[0]}" ;;
*)
    echo "wrap.sh: unknown mutant $m" >&2
    exit 99 ;;
esac
