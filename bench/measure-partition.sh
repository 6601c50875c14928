#!/bin/bash
# measure-partition.sh DIR LABEL ARGS... - one run of `./robotscan urls --robots DIR/robots
# --agent Googlebot --quiet --verbose ARGS` under /usr/bin/time (run from the top of a
# checkout after make): prints its wall and CPU time, URLs per CPU-second, max RSS and the
# --verbose "memory limit" line (where partitioning began, partitions, workers, evictions,
# bytes spilled, split/run/merge wall time). Used for bench/RESULTS.md (issue 9, item 2).
set -u
D=$1; shift; L=$1; shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/time -o "$tmp/time" -f "%e %U %S %M" ./robotscan urls --robots "$D/robots" --agent Googlebot \
    --quiet --verbose "$@" >"$tmp/out" 2>"$tmp/err"
rc=$?
read -r w u s m <"$tmp/time"
cpu=$(echo "$u + $s" | bc)
urls=$(sed -n 's/.*URLs \([0-9]*\):.*/\1/p' "$tmp/out")
ml=$(grep '^memory limit' "$tmp/err" | sed 's/.*bytes: //')
printf "%-28s rc=%s wall %6.2f s  cpu %6.2f s (%.2f M URLs/cpu-s)  rss %5d MB  %s\n" "$L" "$rc" "$w" "$cpu" \
    "$(echo "${urls:-0} / $cpu / 1000000" | bc -l)" $((m / 1024)) "$ml"
