#!/usr/bin/env python3
"""Independent expectations for `robotscan diff`, from the other commands.

  compare_flips.py urls  BIN OLD NEW URLS AGENT...   `urls` once per side and agent
  compare_flips.py logs  BIN OLD NEW LOG HOST        `logs` once per side
  compare_flips.py check BIN DIR_OR_CASES URLS_OR_- AGENT...
                                                     `check` per file, agent and semantics

Each mode runs `robotscan diff` itself, computes the flips the other commands
imply (records paired by position), and compares record by record and count
by count (the --stats JSON). It fails (exit 1, the first differences printed)
on any mismatch, and also when there is nothing to compare or no flip at all,
so an empty run never passes. Prints one summary line on success.
"""
import collections, json, os, subprocess, sys, tempfile

FAILS = []


def fail(msg):
    FAILS.append(msg)


def run(args, stdin=None, ok=(0,)):
    p = subprocess.run(args, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode not in ok:
        sys.exit("FAIL: %s: exit %d: %s" % (" ".join(args[:4]), p.returncode, p.stderr.decode()[:400]))
    return p.stdout


def tsv(out):
    lines = out.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if not lines:
        sys.exit("FAIL: no header in output")
    head = lines[0].split(b"\t")
    return [dict(zip(head, ln.split(b"\t"))) for ln in lines[1:]]


def diff_rows(out):
    return [tuple(r[k] for k in (b"url", b"origin", b"agent", b"old_verdict", b"old_line", b"old_rule",
                                 b"new_verdict", b"new_line", b"new_rule", b"hits")) for r in tsv(out)]


def compare(name, want, got):
    if want != got:
        w, g = collections.Counter(want), collections.Counter(got)
        only_w = list((w - g).elements())[:5]
        only_g = list((g - w).elements())[:5]
        fail("%s: %d expected rows, %d from diff; expected only: %s; diff only: %s%s"
             % (name, len(want), len(got), only_w, only_g,
                "; same rows, other order" if w == g else ""))


def stats_of(bin_, args):
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        out = run([bin_, "diff", "--format", "tsv", "--stats", f.name] + args, ok=(0, 1))
        return out, json.load(open(f.name))


def mode_urls(bin_, old, new, urls, agents):
    side = {}
    for s, path in (("old", old), ("new", new)):
        for a in agents:
            side[s, a] = tsv(run([bin_, "urls", "--robots", path, "--agent", a, "--format", "tsv", urls]))
    n = len(side["old", agents[0]])
    for k, v in side.items():
        if len(v) != n:
            fail("urls %s: %d records, %d for the first" % (k, len(v), n))
    want, counts = [], collections.Counter()
    for i in range(n):
        for a in agents:
            o, w = side["old", a][i], side["new", a][i]
            if o[b"url"] != w[b"url"]:
                fail("line %d: urls records out of step" % i)
            flip = o[b"verdict"] != w[b"verdict"]
            counts[a, "compared"] += 1
            if flip:
                counts[a, "newly_disallowed" if w[b"verdict"] == b"disallow" else "newly_allowed"] += 1
                want.append((o[b"url"], o[b"origin"], a.encode(), o[b"verdict"], o[b"line"], o[b"rule"],
                             w[b"verdict"], w[b"line"], w[b"rule"], b"1"))
    ag = []
    for a in agents:
        ag += ["--agent", a]
    out, st = stats_of(bin_, ["--old", old, "--new", new] + ag + [urls])
    compare("urls flips", want, diff_rows(out))
    check_agent_stats(st, agents, counts)
    # --all: every compared pair once
    out_all = run([bin_, "diff", "--format", "tsv", "--all", "--old", old, "--new", new] + ag + [urls])
    if len(diff_rows(out_all)) != n * len(agents):
        fail("--all: %d rows, want %d" % (len(diff_rows(out_all)), n * len(agents)))
    return n * len(agents), len(want)


def check_agent_stats(st, agents, counts):
    if st.get("command") != "diff" or "schema_version" not in st:
        fail("stats: no command/schema_version")
    by = {a["agent"]: a for a in st["agents"]}
    for a in agents:
        for k in ("compared", "newly_disallowed", "newly_allowed"):
            if by.get(a, {}).get(k) != counts[a, k]:
                fail("stats agent %s %s: %s, want %d" % (a, k, by.get(a, {}).get(k), counts[a, k]))
    tot = sum(counts[a, "compared"] for a in agents)
    if st["total"]["compared"] != tot:
        fail("stats total compared %d, want %d" % (st["total"]["compared"], tot))
    if sum(o["compared"] for o in st["origins"]) != tot:
        fail("stats: origins do not sum to the total")


def mode_logs(bin_, old, new, log, host):
    rec = {s: tsv(run([bin_, "logs", "--robots", p, "--host", host, "--format", "tsv", log]))
           for s, p in (("old", old), ("new", new))}
    if len(rec["old"]) != len(rec["new"]):
        fail("logs: %d old records, %d new" % (len(rec["old"]), len(rec["new"])))
    agg = collections.OrderedDict()
    counts = collections.Counter()
    for o, w in zip(rec["old"], rec["new"]):
        if (o[b"agent"], o[b"url"]) != (w[b"agent"], w[b"url"]):
            fail("logs records out of step: %s / %s" % (o[b"url"], w[b"url"]))
        bot = o[b"agent"].decode()
        counts[bot, "hits"] += 1
        if o[b"verdict"] != w[b"verdict"]:
            counts[bot, "hits_newly_disallowed" if w[b"verdict"] == b"disallow" else "hits_newly_allowed"] += 1
            key = (o[b"url"], o[b"origin"], o[b"agent"], o[b"verdict"], o[b"line"], o[b"rule"],
                   w[b"verdict"], w[b"line"], w[b"rule"])
            agg[key] = agg.get(key, 0) + 1
    want = [k + (str(v).encode(),) for k, v in agg.items()]
    out, st = stats_of(bin_, ["--logs", "--old", old, "--new", new, "--host", host, log])
    compare("logs flips", want, diff_rows(out))
    by = {a["agent"]: a for a in st["agents"]}
    bots = sorted({b for b, _ in counts})
    for b in bots:
        for k in ("hits", "hits_newly_disallowed", "hits_newly_allowed"):
            if by.get(b, {}).get(k, 0) != counts[b, k]:
                fail("stats bot %s %s: %s, want %d" % (b, k, by.get(b, {}).get(k), counts[b, k]))
    if set(by) != set(bots):
        fail("stats bots %s, want %s" % (sorted(by), bots))
    flipped = sum(counts[b, "hits_newly_disallowed"] + counts[b, "hits_newly_allowed"] for b in bots)
    per_bot = ", ".join("%s %d/%d" % (b, counts[b, "hits_newly_disallowed"] + counts[b, "hits_newly_allowed"],
                                      counts[b, "hits"]) for b in bots
                        if counts[b, "hits_newly_disallowed"] + counts[b, "hits_newly_allowed"])
    print("logs per-bot flipped hits: " + per_bot)
    return len(rec["old"]), flipped


def check_side(bin_, robots, agent, sem, urls):
    out = run([bin_, "check", "--robots", robots, "--agent", agent, "--semantics", sem, "--format", "tsv"],
              stdin=b"\n".join(urls) + b"\n", ok=(0, 1))
    return tsv(out)


def mode_check(bin_, robots, urls_file, agents):
    """Semantics diff: google (old) vs first-match (new), against two `check` runs per file and agent."""
    want, groups = [], []   # groups: (robots file, agent, urls, diff args)
    if os.path.isfile(os.path.join(robots, "cases.tsv")):     # a conformance folder
        per = collections.OrderedDict()
        for ln in open(os.path.join(robots, "cases.tsv"), "rb").read().splitlines():
            f = ln.split(b"\t")
            per.setdefault((f[0].decode(), f[1].decode()), []).append(f[2])
        for (case, agent), urls in per.items():
            groups.append((os.path.join(robots, case + ".txt"), agent, urls))
    else:                                                     # a directory HOST.txt + a URL list
        by_host = collections.OrderedDict()
        for u in open(urls_file, "rb").read().splitlines():
            by_host.setdefault(u.split(b"://", 1)[1].split(b"/", 1)[0].decode(), []).append(u)
        for host, urls in by_host.items():
            for a in agents:
                groups.append((os.path.join(robots, host + ".txt"), a, urls))
    got, compared = [], 0
    for path, agent, urls in groups:
        g = check_side(bin_, path, agent, "google", urls)
        f = check_side(bin_, path, agent, "first-match", urls)
        if len(g) != len(urls) or len(f) != len(urls):
            fail("%s %s: check gave %d/%d records for %d URLs" % (path, agent, len(g), len(f), len(urls)))
        compared += len(urls)
        for o, w in zip(g, f):
            if o[b"verdict"] != w[b"verdict"]:
                want.append((o[b"url"], agent.encode(), o[b"verdict"], o[b"line"], o[b"rule"],
                             w[b"verdict"], w[b"line"], w[b"rule"]))
    if os.path.isfile(os.path.join(robots, "cases.tsv")):
        for path, agent, urls in groups:
            out = run([bin_, "diff", "--format", "tsv", "--robots", path, "--old-semantics", "google",
                       "--new-semantics", "first-match", "--agent", agent],
                      stdin=b"\n".join(urls) + b"\n", ok=(0, 1))
            got += [(r[0], r[2]) + r[3:9] for r in diff_rows(out)]
    else:
        ag = []
        for a in agents:
            ag += ["--agent", a]
        out = run([bin_, "diff", "--format", "tsv", "--robots", robots, "--old-semantics", "google",
                   "--new-semantics", "first-match"] + ag + [urls_file], ok=(0, 1))
        got = [(r[0], r[2]) + r[3:9] for r in diff_rows(out)]
        want.sort()
        got.sort()
    compare("semantics flips (%s)" % robots, want, got)
    return compared, len(want)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    mode, bin_, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
    if mode == "urls":
        compared, flips = mode_urls(bin_, rest[0], rest[1], rest[2], rest[3:])
    elif mode == "logs":
        compared, flips = mode_logs(bin_, rest[0], rest[1], rest[2], rest[3])
    elif mode == "check":
        compared, flips = mode_check(bin_, rest[0], rest[1], rest[2:])
    else:
        sys.exit("unknown mode " + mode)
    if compared == 0:
        fail("nothing compared")
    if flips == 0:
        fail("no flip at all: the test data does not exercise diff")
    for f in FAILS:
        print("FAIL: " + f)
    if FAILS:
        sys.exit(1)
    print("%s: %d compared, %d flips, all equal" % (mode, compared, flips))


if __name__ == "__main__":
    main()
