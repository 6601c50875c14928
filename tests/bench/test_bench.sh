#!/usr/bin/env bash
# test_bench.sh ROBOTSCAN SHARED_DIR: robotscan bench, the matcher arena (SPEC 13).
# A correct toy peer gets 100%; peers that ignore `$`, use first-match, crash, hang or
# print garbage get the agreement an independent count gives, or their failure; a saved
# workload re-run gives the same figures; --serve agrees everywhere; bad input is one
# line and exit 2; the built-in Python peers' figures equal the libraries called directly.
R=$(cd "$(dirname "${1:-./robotscan}")" && pwd)/$(basename "${1:-./robotscan}")
S=${2:-build/testdata}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../cli/lib/helpers.sh"
PY=/usr/bin/python3
TOY="$PY $here/toy_peer.py"
W=$here/toy-workload

# field WORKLOAD PEER KEY: a figure of the last JSON leaderboard ($T/out)
field() {
    $PY -c 'import json,sys
d = json.load(open(sys.argv[1]))
w = [w for w in d["workloads"] if w["name"] == sys.argv[2] or w["folder"] == sys.argv[2]][0]
p = [p for p in w["peers"] if p["name"] == sys.argv[3]][0]
print(p[sys.argv[4]])' "$T/out" "$1" "$2" "$3"
}
expect_field() { # NAME WORKLOAD PEER KEY WANT
    local got
    got=$(field "$2" "$3" "$4" 2>&1)
    [ "$got" = "$5" ] || fail "$1: $3 $4 is '$got', want '$5'"
}

# ===== The toy workload: every fault of a peer =====
expect_run "toy peers" 1 "$R" bench --workload "$W" --format json --timeout 1 \
    --peer toy="$TOY" --peer nodollar="$TOY --ignore-dollar" --peer first="$TOY --first-match" \
    --peer crash="$TOY --crash-after 7" --peer sleepy="$TOY --sleep-at 5" --peer garbage="$TOY --garbage-at 12" \
    --peer serve="$R bench --serve"
WD=$(cd "$W" && pwd -P)
expect_field "correct toy" "$WD" toy agreement_pct 100
expect_field "correct toy" "$WD" toy answered 28
expect_field "correct toy" "$WD" toy status ok
expect_field "serve" "$WD" serve agreement_pct 100
# the independent count: the toy's decide() against expected.txt, no arena involved
for v in nodollar:ignore_dollar first:first_match; do
    peer=${v%%:*} flag=${v##*:}
    want=$($PY -c 'import sys; sys.path.insert(0, sys.argv[1]); import toy_peer, os
os.chdir(sys.argv[2]); body = ""; n = ok = 0
exp = open("expected.txt").read().split()
for line in open("input.txt", encoding="utf-8"):
    k, _, v = line.rstrip("\n").partition("\t")
    if k == "robots": body = open(v, encoding="utf-8").read(); continue
    ok += toy_peer.decide(body, k, v, **{sys.argv[3]: True}) == exp[n]; n += 1
print(ok)' "$here" "$W" "$flag")
    expect_field "$peer agreed (independent count $want)" "$WD" "$peer" agreed "$want"
    [ "$want" -lt 28 ] || fail "$peer: the toy workload does not exercise it (agreed $want of 28)"
done
expect_field "ignoring \$ is cause \$" "$WD" nodollar causes "{'\$': {'count': 6, 'example': 'robots/00000.txt, agent Googlebot, https://example.com/doc.pdf?x=1: reference allow (no rule matches), peer disallow'}}"
# the toy counts the untimed start-up query: --crash-after 7 answers 6 of the workload
expect_field "crash" "$WD" crash status crashed
expect_field "crash" "$WD" crash answered 6
expect_field "crash" "$WD" crash agreement_pct 100
expect_field "sleep" "$WD" sleepy status timeout
expect_field "sleep" "$WD" sleepy answered 3
expect_field "garbage" "$WD" garbage status garbage
expect_field "garbage" "$WD" garbage answered 10
grep -q "exit status 3" "$T/out" || fail "crash: the exit status is not reported"
grep -q "'maybe'" "$T/out" || fail "garbage: the bad answer is not shown"
# text: the failures are said, the others go on
expect_run "toy text" 1 "$R" bench --workload "$W" --timeout 1 --peer crash="$TOY --crash-after 3" --peer toy="$TOY"
grep -Eq '^crash +crashed' "$T/out" || fail "text: crash not reported: $(cat "$T/out")"
grep -Eq '^toy +ok .* 100\.000%' "$T/out" || fail "text: the toy after a crash: $(cat "$T/out")"

# ===== Generated workloads, saved and re-run =====
if [ -d "$S/data/robots" ] && [ -d "$S/conformance" ]; then
    expect_ok "save" "$R" bench --data "$S/data" --workload real --workload hard \
        --queries 300 --save "$T/saved" --format json --peer toy="$TOY" --peer serve="$R bench --serve"
    cp "$T/out" "$T/first.json"
    for f in input.txt expected.txt README.txt robots/00000.txt; do
        [ -s "$T/saved/real/$f" ] || fail "save: $T/saved/real/$f missing"
    done
    # anyone can run it: the folder, a peer, diff
    (cd "$T/saved/hard" && $R bench --serve < input.txt > "$T/answers.txt") && \
        cmp -s "$T/answers.txt" "$T/saved/hard/expected.txt" || fail "saved hard: --serve's answers differ from expected.txt"
    expect_ok "re-run" "$R" bench --workload "$T/saved/real" --workload "$T/saved/hard" \
        --format json --peer toy="$TOY" --peer serve="$R bench --serve"
    $PY - "$T/first.json" "$T/out" <<'EOF' || fail "re-run of the saved workloads: other figures"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
def figs(d):
    return {(w["name"], p["name"]): (w["queries"], p["answered"], p["agreed"], sorted((k, v["count"]) for k, v in p["causes"].items()))
            for w in d["workloads"] for p in w["peers"]}
fa, fb = figs(a), figs(b)
assert fa == fb, (fa, fb)
for (w, p), f in fa.items():
    if p.startswith("robotscan") or p == "serve":
        assert f[1] == f[0] and f[2] == f[0], ("robotscan below 100%", w, p, f)
print("re-run: %d figures equal; robotscan 100%% on every workload" % len(fa))
EOF
    # many-sites: sites in random order, a few queries each; big-file: one file near 500 KiB
    expect_ok "many-sites, big-file" "$R" bench --data "$S/data" --workload many-sites --workload big-file \
        --queries 400 --format json --peer serve="$R bench --serve"
    for w in many-sites big-file; do
        expect_field "$w" $w serve agreement_pct 100
        expect_field "$w" $w serve answered 400
    done
    expect_field "big-file size" big-file serve timed_files 1
else
    skip "generated workloads" "$S/data/robots or $S/conformance missing (make testdata)"
fi

# ===== Built-in peers: every installed adapter; the Python ones confirmed directly =====
if [ -d "$S/data/robots" ] && [ -d "$S/conformance" ]; then
    "$R" bench --data "$S/data" --workload hard --queries 300 --save "$T/bp" --format json \
        --builtin-peers --timeout 20 --html "$T/bench.html" >"$T/out" 2>"$T/err"
    rc=$?
    [ "$rc" = 0 ] || fail "builtin peers: exit $rc: $(head -c 600 "$T/err"; grep -o '"detail":"[^"]*"' "$T/out" | grep -v '""' | head -5)"
    cp "$T/out" "$T/builtin.json"
    # the peers that cannot run here are named with their package, and reported as skipped
    $PY -c 'import json,sys
for m in json.load(open(sys.argv[1]))["not_installed"]: print("SKIP: bench peer %s: not run (%s)" % (m["name"], m["package"]))' "$T/builtin.json"
    for w in hard; do
        for p in robotscan robotscan-serve robotscan-python; do
            if grep -q "\"name\":\"$p\"" "$T/builtin.json"; then expect_field "$w: $p 100%" $w $p agreement_pct 100; fi
        done
        $PY "$here/python_direct.py" "$T/bp/$w" > "$T/direct.txt" || fail "python_direct.py $w"
        while read -r lib agreed n; do
            expect_field "$w: $lib agreed (direct: $agreed of $n)" $w "$lib" agreed "$agreed"
            expect_field "$w: $lib answered" $w "$lib" answered "$n"
            echo "$w: $lib agrees on $agreed of $n queries, the arena and the library called directly"
        done < "$T/direct.txt"
        grep -q '^protego ' "$T/direct.txt" || skip "$w: Protego confirmed directly" "python3-protego not installed (scripts/deps.sh)"
    done
    # --html: the same figures in headless Chromium (one launch)
    CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
    if [ -n "$CHROMIUM" ]; then
        $PY "$here/check_bench_page.py" "$CHROMIUM" "$T/bench.html" "$T/chk" "$T/builtin.json" >"$T/chk.log" 2>&1 \
            || fail "--html page: $(grep -E '^FAIL' "$T/chk.log" | head -5)"
        grep -q 'all checks passed' "$T/chk.log" || fail "--html page: checker did not finish: $(tail -3 "$T/chk.log")"
    else
        skip "--html in Chromium" "no chromium (scripts/deps.sh installs it)"
        $PY "$here/check_bench_page.py" --no-browser "$T/bench.html" "$T/chk" "$T/builtin.json" >/dev/null \
            || fail "--html page (DOM only)"
    fi
else
    skip "built-in peers" "$S/data/robots or $S/conformance missing (make testdata)"
fi

# a peer that cannot run is named with what brings it, and the others run
mkdir -p "$T/somepeers" && cp "$here/../../scripts/peers/urllib_peer.py" "$T/somepeers/"
RS_PEERS_DIR=$T/somepeers expect_ok "missing adapters" "$R" bench --workload "$W" --builtin-peers --format json
$PY -c 'import json,sys; d = json.load(open(sys.argv[1]))
names = [p["name"] for p in d["workloads"][0]["peers"]]
missing = {m["name"]: m["package"] for m in d["not_installed"]}
assert names == ["robotscan", "robotscan-serve", "urllib"], names
assert set(missing) == {"robotscan-python", "protego", "robots-parser", "www-robotrules", "webrobots"}, missing
assert all("adapter is missing" in v for v in missing.values()), missing' "$T/out" || fail "missing adapters: $(head -c 500 "$T/out")"
expect_err "missing adapters" "not installed, not run: robotscan-python"

# ===== Bad input: one line, exit 2 =====
one_line() { # NAME REGEX
    expect_err "$1" "$2"
    [ "$(wc -l < "$T/err")" = 1 ] || fail "$1: not one line: $(cat "$T/err")"
}
expect_run "missing peer command" 2 "$R" bench --workload "$W" --peer x="/nonexistent/matcher --fast"
one_line "missing peer command" "command not found: '/nonexistent/matcher'"
expect_run "missing peer on PATH" 2 "$R" bench --workload "$W" --peer x="no-such-matcher-xyz"
one_line "missing peer on PATH" "no-such-matcher-xyz"
expect_run "unknown workload" 2 "$R" bench --workload nosuch --peer toy="$TOY"
one_line "unknown workload" "unknown workload 'nosuch'"
mkdir -p "$T/ro" && chmod 555 "$T/ro"
if [ "$(id -u)" = 0 ] && touch "$T/ro/probe" 2>/dev/null; then
    rm -f "$T/ro/probe"; chmod 755 "$T/ro"
    # root writes anywhere: a --save path under a regular file cannot be created either
    : > "$T/file"
    expect_run "unwritable --save" 2 "$R" bench --data "$S/data" --workload hard --queries 10 --save "$T/file/sub" --peer toy="$TOY"
else
    expect_run "unwritable --save" 2 "$R" bench --data "$S/data" --workload hard --queries 10 --save "$T/ro/sub" --peer toy="$TOY"
fi
one_line "unwritable --save" "^robotscan: $T/(ro|file)/sub(/hard)?: cannot create: "
expect_run "bad --peer" 2 "$R" bench --peer nocommand
expect_err "bad --peer" "NAME=COMMAND"
expect_run "bad --timeout" 2 "$R" bench --peer toy="$TOY" --timeout 0
expect_err "bad --timeout" "--timeout takes"
expect_run "no peer" 2 "$R" bench --workload "$W"
expect_err "no peer" "no peer"
expect_ok "help" "$R" bench --help
grep -q -- "--builtin-peers" "$T/out" || fail "help: no --builtin-peers"

finish
