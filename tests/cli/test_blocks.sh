#!/usr/bin/env bash
# CLI test of `urls` block sizes (issue 9): when the robots sources know many sites, urls
# reads larger blocks (4 KiB of input a known site, 4-64 MiB, bounded by a quarter of the
# memory budget over the blocks in flight: src/job/urls.c, block_size_for), so that the
# scanner groups more URLs of each site. The records must not depend on where blocks end:
# over 3,000 sites, the same bytes with every block size below, in TSV and JSONL, plain and
# .zst, and equal to the rows `check` gives for each site on its own (urls_vs_check.py).
#   TSV,  no limit,  -j 1: 12 MiB blocks  (3,001 sites x 4 KiB; 256 MiB / (1 slot x 4 + 2))
#   TSV,  100M,      -j 1:  4 MiB         (25 MiB / 6 = 4.2 MiB)
#   TSV,  no limit,  -j 2:  9 MiB         (256 MiB / (6 slots x 4 + 2 x 2) = 9.1 MiB)
#   TSV,  100M,      -j 2:  4 MiB         (the minimum)
#   quiet, no limit, -j 1: 12 MiB, and --quiet counts equal the TSV rows
# the file mapped (the default) or read (RS_READER=read, and a pipe), the same records;
# and, with one agent, urls' fast TSV/CSV loop equals its general path (--stats takes it).
# Usage: bash tests/cli/test_blocks.sh ./robotscan build/testdata
set -u
BIN=${1:-./robotscan}
SHARED=${2:-build/testdata}
case $BIN in /*) ;; *) BIN=$PWD/$BIN ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
. "$(dirname "$0")/lib/helpers.sh"

for tool in zstd python3; do
    command -v $tool >/dev/null || { fail "$tool is not installed (scripts/deps.sh installs it)"; finish; }
done

python3 "$HERE/../../scripts/gen-bench-data" --sites 3000 --urls 400000 --order random \
    --robots "$SHARED/data/robots" --out "$T/data" >/dev/null || fail "gen-bench-data failed"
D=$T/data
[ "$(ls "$D/robots" | wc -l)" = 3000 ] || fail "gen-bench-data: $(ls "$D/robots" | wc -l) robots files, want 3000"
SIZE=$(wc -c <"$D/urls.txt")
[ "$SIZE" -gt $((12 << 20)) ] || fail "input has only $SIZE bytes (want > 12 MiB: more than one large block)"

BASE=("$BIN" urls --robots "$D/robots" --agent Googlebot --agent GPTBot)

run() {  # run NAME ARGS... : stdout in $T/NAME.out
    local name=$1; shift
    "${BASE[@]}" "$@" >"$T/$name.out" 2>"$T/$name.err"
    local rc=$?
    [ $rc = 0 ] || fail "$name: exit $rc: $(head -c 300 "$T/$name.err")"
    expect_nonempty "$name" "$T/$name.out"
}

run ref --memory-limit none -j 1 "$D/urls.txt"
for c in "lim_j1 --memory-limit 100M -j 1" "none_j2 --memory-limit none -j 2" "lim_j2 --memory-limit 100M -j 2" \
         "zst_j2 --memory-limit none -j 2 $D/urls.txt.zst"; do
    set -- $c
    name=$1; shift
    case "$*" in *.zst) run "$name" "$@" ;; *) run "$name" "$@" "$D/urls.txt" ;; esac
    cmp -s "$T/$name.out" "$T/ref.out" || fail "$name: records differ from the 12 MiB-block run"
done
# A plain file is mapped and its blocks are slices of the mapping (rs_reader_opts.map);
# RS_READER=read reads and copies it, as a pipe is read: the same records.
RS_READER=read run read_j1 --memory-limit none -j 1 "$D/urls.txt"
cmp -s "$T/read_j1.out" "$T/ref.out" || fail "RS_READER=read -j 1: records differ from the mapped run"
RS_READER=read run read_lim_j2 --memory-limit 100M -j 2 "$D/urls.txt"
cmp -s "$T/read_lim_j2.out" "$T/ref.out" || fail "RS_READER=read -j 2 100M: records differ from the mapped run"
run pipe_j2 --memory-limit none -j 2 - < <(cat "$D/urls.txt")
cmp -s "$T/pipe_j2.out" "$T/ref.out" || fail "stdin pipe -j 2: records differ from the mapped run"
rows=$(($(wc -l <"$T/ref.out") - 1))
[ "$rows" -ge 790000 ] || fail "ref: $rows records, want about 2 per URL"

run jref --memory-limit 100M -j 1 --format jsonl "$D/urls.txt"
run jbig --memory-limit none -j 2 --format jsonl "$D/urls.txt"
cmp -s "$T/jbig.out" "$T/jref.out" || fail "jsonl: records differ between block sizes"

# one agent: TSV and CSV take urls' fast loop (process_fast); --stats FILE takes the general
# one. Both must write the same bytes, and the fast loop's rows must be the two-agent run's
# Googlebot rows. Blank, comment and malformed lines are mixed in so it hands some over.
{ echo "# a comment"; head -50000 "$D/urls.txt"; echo; echo "not a url"; echo "   "; sed -n '50001,120000p' "$D/urls.txt"; } >"$T/mixed.txt"
BASE=("$BIN" urls --robots "$D/robots" --agent Googlebot)
for f in tsv csv; do
    for j in 1 2; do
        run "fast_${f}_$j" --format "$f" -j "$j" "$T/mixed.txt"
        run "gen_${f}_$j" --format "$f" -j "$j" --stats "$T/st_${f}_$j.json" "$T/mixed.txt"
        cmp -s "$T/fast_${f}_$j.out" "$T/gen_${f}_$j.out" || fail "$f -j $j: the fast loop's records differ from the general path's"
    done
done
run fast_all --memory-limit none -j 1 "$D/urls.txt"
awk -F'\t' 'NR == 1 || $3 == "Googlebot"' "$T/ref.out" >"$T/ref_g.out"
cmp -s "$T/fast_all.out" "$T/ref_g.out" || fail "one agent: rows differ from the two-agent run's Googlebot rows"
BASE=("$BIN" urls --robots "$D/robots" --agent Googlebot --agent GPTBot)

# --quiet over 12 MiB blocks counts what the TSV rows say
run quiet --memory-limit none -j 1 --quiet "$D/urls.txt"
got=$(sed -n 's/^lines [0-9]*, URLs \([0-9]*\): allowed \([0-9]*\), disallowed \([0-9]*\);.*/\1 \2 \3/p' "$T/quiet.out")
want=$(awk -F'\t' 'NR > 1 { n++; if ($4 == "disallow") d++; else a++ } END { print n, a, d }' "$T/ref.out")
[ -n "$got" ] || fail "quiet: no summary line: $(head -3 "$T/quiet.out")"
[ "$got" = "$want" ] || fail "quiet: counts '$got', the TSV rows say '$want'"

# the verdicts themselves: a sample of sites, each URL checked alone against its own file
python3 - "$T" "$D" <<'PY' || fail "sample: could not build the per-site check"
import os, random, sys
t, d = sys.argv[1:3]
rows = [l.rstrip("\n").split("\t") for l in open(os.path.join(t, "ref.out"), encoding="utf-8", errors="surrogateescape")][1:]
hosts = sorted({r[1] for r in rows if r[6] in ("matched", "no-match")})
pick = set(random.Random(7).sample(hosts, 20))
with open(os.path.join(t, "sample.tsv"), "w", encoding="utf-8", errors="surrogateescape") as f:
    for r in rows:
        if r[1] in pick and r[2] == "Googlebot":
            f.write("\t".join(r) + "\n")
PY
# each URL against its site's file through `check --batch` (one process; test_check.sh
# proves it answers as `check` alone does), the first 10 also through `check` alone
n=0; bad=0
: >"$T/sample.batch"
while IFS=$'\t' read -r url origin agent verdict line rule reason; do
    host=${origin#*://}
    file=$D/robots/$host.txt
    [ -e "$file" ] || file=$D/robots/${host%%:*}.txt
    n=$((n + 1))
    printf '%s\tGooglebot\t%s\n' "$file" "$url" >>"$T/sample.batch"
    printf '%s\t%s\n' "$verdict" "$line" >>"$T/sample.want"
    if [ $n -le 10 ]; then
        "$BIN" check --robots "$file" --agent Googlebot --format tsv "$url" >"$T/one.out" 2>/dev/null
        rc=$?; [ $rc = 0 ] || [ $rc = 1 ] || fail "check $url: exit $rc"
        got=$(sed -n 2p "$T/one.out" | cut -f2,3)
        [ "$got" = "$verdict"$'\t'"$line" ] || fail "check $url: '$got', urls said '$verdict $line'"
    fi
done <"$T/sample.tsv"
"$BIN" check --batch --format tsv "$T/sample.batch" >"$T/sample.out" 2>"$T/err"
rc=$?; [ $rc = 0 ] || [ $rc = 1 ] || fail "check --batch: exit $rc: $(head -c 300 "$T/err")"
tail -n +2 "$T/sample.out" | cut -f3 >"$T/sample.urls"
cut -f3 "$T/sample.batch" | cmp -s - "$T/sample.urls" || fail "check --batch: not one row per URL in order"
tail -n +2 "$T/sample.out" | cut -f4,5 >"$T/sample.got"
if ! cmp -s "$T/sample.want" "$T/sample.got"; then
    bad=$(diff "$T/sample.want" "$T/sample.got" | grep -c '^<')
    fail "check --batch differs from urls on $bad URLs: $(diff "$T/sample.want" "$T/sample.got" | head -6)"
fi
[ "$n" -ge 500 ] || fail "sample: only $n URLs checked"
echo "sample: $n URLs of 20 sites checked against their own file, $bad differ"

finish
