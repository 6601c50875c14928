#!/usr/bin/env python3
"""conformance_batch.py - a conformance folder through ONE `robotscan check --batch` process.

Usage: conformance_batch.py VECTORS_DIR [--bin PATH] [--semantics NAME] [--robots-dir DIR]

Same vectors, same figure as SHARED/tools/conformance_check.py (which starts one
`robotscan check` per (case, agent) group: 31,079 processes for reference-differential),
but every (robots file, agent, URL) of cases.tsv goes in one batch file:
    robotscan check --batch --format tsv FILE   (lines ROBOTS<TAB>AGENT<TAB>URL)
and the TSV must give back, row for row, the same robots, agent and url (so no row is
lost, added or reordered) with the expected verdict and line. tests/cli/test_check.sh
proves --batch answers as one `check` per group does.
Exit 0 only when every verdict and line agrees and the exit status is 0 or 1.
Last line: "V/N verdicts, L/N lines agree, E runs failed".
"""
import csv, io, os, subprocess, sys, tempfile


def main():
    args = sys.argv[1:]
    vec = args[0]
    binp = args[args.index("--bin") + 1] if "--bin" in args else "./robotscan"
    sem = args[args.index("--semantics") + 1] if "--semantics" in args else None
    rdir = args[args.index("--robots-dir") + 1] if "--robots-dir" in args else vec
    cases = []
    with open(os.path.join(vec, "cases.tsv"), encoding="utf-8") as f:
        for row in f:
            c, agent, url, verdict, line = row.rstrip("\n").split("\t")
            cases.append((os.path.join(rdir, c + ".txt"), c, agent, url, verdict, int(line)))
    if not cases:
        print("no cases in %s" % vec)
        sys.exit(1)
    if not os.path.exists(binp):
        print("no binary at %s" % binp)
        sys.exit(1)
    with tempfile.NamedTemporaryFile("wb", suffix=".tsv", delete=False) as tf:
        for robots, _, agent, url, _, _ in cases:
            tf.write(("%s\t%s\t%s\n" % (robots, agent, url)).encode("utf-8"))
        batch = tf.name
    try:
        cmd = [binp, "check", "--batch", "--format", "tsv"]
        if sem:
            cmd += ["--semantics", sem]
        p = subprocess.run(cmd + [batch], stdin=subprocess.DEVNULL, capture_output=True)
    finally:
        os.unlink(batch)
    total = len(cases)
    if p.returncode not in (0, 1):
        print("exit %d: %s" % (p.returncode, p.stderr[:300].decode("utf-8", "replace")))
        print("0/%d verdicts, 0/%d lines agree, 1 runs failed" % (total, total))
        sys.exit(1)
    rows = list(csv.reader(io.StringIO(p.stdout.decode("utf-8", "replace")), delimiter="\t",
                           quoting=csv.QUOTE_NONE))
    hdr = [h.lstrip("#") for h in rows[0]] if rows else []
    body = rows[1:]
    try:
        ir, ia, iu, iv, il = (hdr.index(k) for k in ("robots", "agent", "url", "verdict", "line"))
    except ValueError:
        print("no robots/agent/url/verdict/line header in the output: %r" % (rows[:1],))
        print("0/%d verdicts, 0/%d lines agree, 1 runs failed" % (total, total))
        sys.exit(1)
    vok = lok = errors = shown = 0
    if len(body) != total:
        print("%d rows for %d cases" % (len(body), total))
        errors += 1
    for k, (robots, c, agent, url, verdict, line) in enumerate(cases):
        if k >= len(body):
            break
        r = body[k]
        if len(r) != len(hdr) or (r[ir], r[ia], r[iu]) != (robots, agent, url):
            errors += 1
            if shown < 8:
                print("row %d is not case %s agent %s url %s: %r" % (k + 1, c, agent, url, r[:3]))
                shown += 1
            continue
        if r[iv] == verdict:
            vok += 1
        elif shown < 8:
            print("verdict %s != %s: case %s agent %s url %s" % (r[iv], verdict, c, agent, url))
            shown += 1
        if r[il] == str(line):
            lok += 1
        elif shown < 8:
            print("line %s != %d: case %s agent %s url %s" % (r[il], line, c, agent, url))
            shown += 1
    print("%d/%d verdicts, %d/%d lines agree, %d runs failed" % (vok, total, lok, total, errors))
    sys.exit(0 if vok == total and lok == total and errors == 0 else 1)


main()
