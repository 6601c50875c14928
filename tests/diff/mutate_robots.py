#!/usr/bin/env python3
"""Test data for `robotscan diff`: real robots.txt files and mutated copies.

Usage: tests/diff/mutate_robots.py SHARED OUT [--count 200] [--seed 13]

Picks COUNT real files of SHARED/data/robots (those with at least 4 allow or
disallow lines; a seeded choice) and writes:
  OUT/old/HOST.txt   the file as it is
  OUT/new/HOST.txt   a mutated copy: a rule dropped, a rule added, a pattern
                     widened (cut to a shorter prefix), a group split (its
                     user-agent lines repeated before one of its rules) and a
                     `$` added to a pattern; each at a seeded random place
  OUT/urls.txt       URLs for those sites (http and https): every pattern of
                     the file with each `*` filled and `$` dropped (also with a
                     suffix), plus a few random paths
  OUT/mutations.tsv  HOST, mutation, line (1-based, in the old file)
Everything is deterministic for a seed. Bytes are kept as they are (line ends,
non-UTF-8); only whole lines are dropped, inserted or edited.
"""
import argparse, os, random, re, sys

RULE = re.compile(rb"^(\s*)((?:dis)?allow)(\s*:\s*)(\S*)(.*)$", re.I | re.S)
AGENT = re.compile(rb"^\s*user-agent\s*:", re.I)
WORDS = [b"a", b"admin", b"search", b"img", b"page", b"x", b"cart", b"login", b"api", b"tmp"]


def lines_of(body):
    return body.splitlines(keepends=True)


def ending(line):
    s = line.rstrip(b"\r\n")
    return s, line[len(s):] or b"\n"


def rule_lines(lines):
    out = []
    for i, ln in enumerate(lines):
        m = RULE.match(ending(ln)[0])
        if m:
            out.append(i)
    return out


def mutate(body, rnd):
    """Returns the mutated body and a list of (mutation, old line number)."""
    lines = lines_of(body)
    done = []
    edits = {}      # old index -> replacement list of lines ([] drops it)
    rules = rule_lines(lines)
    if len(rules) < 4:
        return None, None
    picks = rnd.sample(rules, 4)
    drop, widen, dollar, add_after = picks
    edits[drop] = []
    done.append(("drop", drop + 1))
    # widen: cut the pattern to a shorter prefix (at least "/")
    s, end = ending(lines[widen])
    m = RULE.match(s)
    pat = m.group(4)
    if len(pat) > 1:
        cut = rnd.randint(1, len(pat) - 1)
        new = pat[:cut]
        edits[widen] = [m.group(1) + m.group(2) + m.group(3) + new + m.group(5) + end]
        done.append(("widen", widen + 1))
    # $ added
    s, end = ending(lines[dollar])
    m = RULE.match(s)
    pat = m.group(4)
    if pat and not pat.endswith(b"$"):
        edits[dollar] = [m.group(1) + m.group(2) + m.group(3) + pat + b"$" + m.group(5) + end]
        done.append(("dollar", dollar + 1))
    # add: a new rule after a rule line, aimed at a neighbour of its pattern
    s, end = ending(lines[add_after])
    m = RULE.match(s)
    base = m.group(4).split(b"*")[0].rstrip(b"$") or b"/"
    if not base.startswith(b"/"):
        base = b"/" + base
    added = rnd.choice([b"Disallow: ", b"Allow: "]) + base + rnd.choice(WORDS)
    if rnd.random() < 0.3:
        added += b"*"
    edits.setdefault(add_after, [lines[add_after]])
    edits[add_after] = edits[add_after] + [added + end]
    done.append(("add", add_after + 1))
    # split a group: repeat its user-agent lines before one of its later rules
    groups, cur, agents_start = [], [], None
    for i, ln in enumerate(lines):
        if AGENT.match(ln):
            if cur and cur[-1][0] == "rule":
                groups.append(cur)
                cur = []
            cur.append(("agent", i))
        elif RULE.match(ending(ln)[0]) and cur:
            cur.append(("rule", i))
    if cur:
        groups.append(cur)
    cands = [g for g in groups if sum(1 for k, _ in g if k == "rule") >= 2]
    if cands:
        g = rnd.choice(cands)
        agent_idx = [i for k, i in g if k == "agent"]
        rule_idx = [i for k, i in g if k == "rule"][1:]
        at = rnd.choice(rule_idx)
        ua = []
        for i in agent_idx:
            s, end = ending(lines[i])
            ua.append(s + end)
        edits.setdefault(at, [lines[at]])
        edits[at] = ua + edits[at]
        done.append(("split", at + 1))
    out = []
    for i, ln in enumerate(lines):
        out.extend(edits.get(i, [ln]))
    return b"".join(out), done


def fill(pat, rnd):
    p = pat.rstrip(b"$")
    while b"*" in p:
        p = p.replace(b"*", rnd.choice([b"", b"x", b"abc/", b"q=1"]), 1)
    if not p.startswith(b"/"):
        p = b"/" + p
    return p


def urls_for(host, body, rnd):
    pats = []
    for ln in lines_of(body):
        m = RULE.match(ending(ln)[0])
        if m and m.group(4):
            pats.append(m.group(4))
    rnd.shuffle(pats)
    out = []
    for p in pats[:25]:
        path = fill(p, rnd)
        for suffix in (b"", rnd.choice([b"x", b"/index.html", b"?a=b", b"abc/"])):
            out.append(rnd.choice([b"https://", b"http://"]) + host + path + suffix)
    for _ in range(5):
        out.append(b"https://" + host + b"/" + b"/".join(rnd.choice(WORDS) for _ in range(rnd.randint(1, 3))))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("shared")
    ap.add_argument("out")
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seed", type=int, default=13)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    src = os.path.join(a.shared, "data", "robots")
    names = sorted(n for n in os.listdir(src) if n.endswith(".txt") and not n.startswith("."))
    rnd.shuffle(names)
    for d in ("old", "new"):
        os.makedirs(os.path.join(a.out, d), exist_ok=True)
    urls, log, chosen = [], [], 0
    for n in names:
        if chosen == a.count:
            break
        with open(os.path.join(src, n), "rb") as f:
            body = f.read()
        if len(body) > 400000 or b"\0" in body:
            continue
        new, done = mutate(body, rnd)
        if new is None or len(done) < 4:
            continue
        host = n[:-4].encode()
        with open(os.path.join(a.out, "old", n), "wb") as f:
            f.write(body)
        with open(os.path.join(a.out, "new", n), "wb") as f:
            f.write(new)
        urls.extend(urls_for(host, body, rnd))
        log.extend("%s\t%s\t%d\n" % (n[:-4], k, ln) for k, ln in done)
        chosen += 1
    if chosen < a.count:
        sys.exit("only %d usable files in %s" % (chosen, src))
    rnd.shuffle(urls)   # random host order, as in a real frontier
    with open(os.path.join(a.out, "urls.txt"), "wb") as f:
        f.write(b"\n".join(urls) + b"\n")
    with open(os.path.join(a.out, "mutations.tsv"), "w") as f:
        f.writelines(log)
    print("%d files, %d URLs, %d mutations" % (chosen, len(urls), len(log)))


if __name__ == "__main__":
    main()
