#!/bin/bash
# measure.sh DIR LABEL ARGS... : one run of robotscan urls --quiet --verbose; prints wall, cpu, rss, phases
D=$1; shift; L=$1; shift
/usr/bin/time -o /tmp/m.time -f "%e %U %S %M" ./robotscan urls --robots $D/robots --agent Googlebot --quiet --verbose "$@" >/tmp/m.out 2>/tmp/m.err
rc=$?
read w u s m < /tmp/m.time
cpu=$(echo "$u + $s" | bc)
urls=$(sed -n 's/.*URLs \([0-9]*\):.*/\1/p' /tmp/m.out)
ml=$(grep '^memory limit' /tmp/m.err | sed 's/.*bytes: //')
printf "%-28s rc=%s wall %6.2f s  cpu %6.2f s (%.2f M URLs/cpu-s)  rss %5d MB  %s\n" "$L" $rc $w $cpu $(echo "$urls / $cpu / 1000000" | bc -l) $((m/1024)) "$ml"
