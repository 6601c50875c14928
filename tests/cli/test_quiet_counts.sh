#!/usr/bin/env bash
# `urls --quiet` counts a block from the scanner's totals (rs_scan_summarize)
# without reading its records; these checks recount the same run from the
# TSV records (an independent count in Python) for several agents, --missing
# allow/skip, blank and malformed lines.
# Usage: bash tests/cli/test_quiet_counts.sh ./robotscan SHARED
set -u
BIN=${1:-./robotscan}
SHARED=${2:?usage: test_quiet_counts.sh BIN SHARED}
. "$(dirname "$0")/lib/helpers.sh"

{
    sed 's,^,https://,; s,$,/private/x,' "$SHARED/data/urls/protego-top-10000-websites.txt"
    printf '\n# a comment\nmailto:a@b.c\nhttp:/x\n  https://google.com/search\n'
    sed 's,^,http://,' "$SHARED/data/urls/protego-top-10000-websites.txt" | head -3000
} >"$T/urls.txt"

for missing in allow skip; do
    args=(urls --robots "$SHARED/data/robots" --agent Googlebot --agent bingbot --missing "$missing")
    expect_ok "quiet $missing" "$BIN" "${args[@]}" --quiet "$T/urls.txt"
    cp "$T/out" "$T/quiet.txt"
    cp "$T/err" "$T/quiet.err"
    expect_ok "tsv $missing" "$BIN" "${args[@]}" --format tsv "$T/urls.txt"
    expect_nonempty "tsv $missing" "$T/out"
    python3 - "$T/out" "$T/quiet.txt" "$T/quiet.err" "$T/urls.txt" <<'PY' || fail "quiet $missing: counts differ from the TSV records"
import collections, re, sys
tsv, quiet, qerr, urls = sys.argv[1:5]
rows = [l.rstrip('\n').split('\t') for l in open(tsv, encoding='utf-8', errors='replace')][1:]
verdict = collections.Counter(r[3] for r in rows)
reason = collections.Counter(r[6] for r in rows)
text = open(quiet).read()
m = re.search(r'lines (\d+), URLs (\d+): allowed (\d+), disallowed (\d+); malformed (\d+), skipped (\d+)', text)
assert m, text
lines, n, allowed, disallowed, malformed, skipped = map(int, m.groups())
assert n == len(rows) and n > 0, (n, len(rows))
assert (allowed, disallowed) == (verdict['allow'], verdict['disallow']), (allowed, disallowed, verdict)
for name, count in re.findall(r'(\S+) (\d+)', text.split('reasons:')[1].split('\n')[0]):
    name = name.rstrip(',')
    assert int(count) == reason.get(name, 0), (name, count, reason)
total = sum(1 for _ in open(urls, 'rb'))
assert lines == total, (lines, total)
note = re.search(r'(\d+) malformed lines? skipped', open(qerr).read())
assert note and int(note.group(1)) == malformed == 2, (note, malformed)
assert n + skipped == 2 * (total - 2 - 2), (n, skipped, total)   # 2 blank/comment, 2 malformed; 2 agents
PY
done
finish
