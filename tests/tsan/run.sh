#!/usr/bin/env bash
# ThreadSanitizer runs (make tsan): the job API with workers (job_threads.c: Criterion's
# forking runner cannot start under TSan), then urls, logs and diff
# with -j 2, with and without a memory limit small enough to partition or spill,
# on a ThreadSanitizer build. Any report fails the run (TSAN_OPTIONS halt_on_error,
# exitcode 66); outputs must equal the -j 1 run of the same binary.
# Usage: bash tests/tsan/run.sh BUILD_DIR BIN SHARED
set -uo pipefail
BUILD=$1 BIN=$2 SHARED=$3
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fails=0 runs=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
D=$SHARED/data
# URLs over many sites (the bundled robots files), so that a small limit partitions.
python3 - "$D/robots" >"$T/urls.txt" <<'PY'
import os, random, sys
hosts = sorted(f[:-4] for f in os.listdir(sys.argv[1]) if f.endswith(".txt"))
rnd = random.Random(7)
for i in range(60000):
    h = rnd.choice(hosts)
    print(f"https://{h}/{rnd.choice(['', 'search', 'admin/', 'a/b?x=1', 'wp-admin/x'])}{i % 97}")
PY
# Few sites, many URLs each: every block brings each site past the scanner's
# LIST_GROUP, so both workers turn the same rule lists into tries at once.
python3 - "$D/robots" >"$T/few.txt" <<'PY'
import os, random, sys
hosts = sorted(f[:-4] for f in os.listdir(sys.argv[1]) if f.endswith(".txt"))[:40]
rnd = random.Random(9)
for i in range(80000):
    print(f"https://{rnd.choice(hosts)}/{rnd.choice(['', 'search', 'admin/', 'a/b?x=1', 'wp-admin/x'])}{i % 89}")
PY
cmd() {  # NAME ARGS...: -j 2 must equal -j 1 and report nothing
    local name=$1; shift
    runs=$((runs + 1))
    "$BIN" "$@" -j 1 >"$T/one" 2>"$T/one.err"; local rc1=$?
    "$BIN" "$@" -j 2 >"$T/two" 2>"$T/two.err"; local rc2=$?
    if [ $rc2 = 66 ] || grep -q 'ThreadSanitizer' "$T/two.err"; then fail "$name: ThreadSanitizer report"; head -40 "$T/two.err"; return; fi
    [ $rc1 = $rc2 ] || { fail "$name: exit $rc1 with -j 1, $rc2 with -j 2"; return; }
    # the --quiet summary's time line differs run to run
    cmp -s <(grep -v '^time ' "$T/one") <(grep -v '^time ' "$T/two") || fail "$name: -j 2 output differs from -j 1"
}
cmd "urls" urls --robots "$D/robots" --agent Googlebot --agent GPTBot "$T/urls.txt"
cmd "urls, lists turned to tries on both workers" urls --robots "$D/robots" --agent Googlebot --agent bingbot "$T/few.txt"
cmd "urls --memory-limit 1M" urls --robots "$D/robots" --agent Googlebot --memory-limit 1M --verbose "$T/urls.txt"
cmd "urls --quiet --stats" urls --robots "$D/robots" --agent Googlebot --quiet --stats "$T/s.json" "$T/urls.txt"
for log in "$D"/logs/*; do
    cmd "logs $(basename "$log")" logs --robots "$D/robots" --host semicomplete.com "$log"
    cmd "logs --memory-limit 1M $(basename "$log")" logs --robots "$D/robots" --host semicomplete.com --memory-limit 1M "$log"
done
# the job API itself: urls (partitioned, canceled), logs (spilling), diff; 2 workers = 1
mkdir -p "$T/other"; for f in $(ls "$D/robots" | sed -n '1~3p'); do cp "$D/robots/$f" "$T/other/"; done
runs=$((runs + 1))
"$BUILD/tests/job_threads" "$D/robots" "$T/urls.txt" "$D/logs/elastic-apache_logs.log" semicomplete.com "$T/other" \
    >"$T/jt.log" 2>&1; rc=$?
if [ $rc = 66 ] || grep -q ThreadSanitizer "$T/jt.log"; then fail "job_threads: ThreadSanitizer report"; head -60 "$T/jt.log"
elif [ $rc != 0 ]; then fail "job_threads (exit $rc)"; cat "$T/jt.log"
else grep -c '^ok' "$T/jt.log" | sed 's/^/job_threads: /; s/$/ checks ok/'; fi
first=$(ls "$D/robots" | head -1); second=$(ls "$D/robots" | sed -n 2p)
cmd "diff" diff --old "$D/robots/$first" --new "$D/robots/$second" "$T/urls.txt"
echo "tsan: $((runs - fails)) passed, $fails failed"
[ $fails = 0 ]
