#!/usr/bin/env python3
"""`robotscan urls` must give the verdicts and lines of `robotscan check` (and of
the conformance vectors) for the same robots.txt and agent.

Usage: urls_vs_check.py BIN SHARED [conformance|ada|cache|all] [--full]

conformance: every google-semantics folder of SHARED/conformance, three ways.
  1. Per (case, agent) group, `urls --robots CASE.txt --agent A --format tsv
     --verbose` with the group's URLs on stdin: every group of the small
     folders, every 16th of reference-differential (all of them with --full).
  2. All URLs of a folder as written in one run: which have no origin.
  3. All cases of a folder in one run per agent, through a manifest: each
     case's URLs get the host cCASE.test (the path the matcher sees is
     unchanged) and the manifest maps those origins to CASE.txt.
  In each run, blank and '#' lines must be skipped silently; every other line
  is either decided (a row, in input order, url field equal to the input) or
  malformed (named with its line number on stderr, and counted in the
  summary). Decided rows must agree with cases.tsv, verdict and line, 100%.
  Every vector's URL has an origin: one called malformed is a failure.
ada: SHARED/data/urls/ada-url-kasztp.txt with --robots SHARED/data/robots, for
  several agents. The robots file serving each origin is derived here, from
  the directory's entry names, independently of robotscan (SPEC 3 naming:
  HOST, HOST.txt, HOST:PORT[.txt], HOST_PORT[.txt], HOST/robots.txt). An
  origin urls calls matched/no-match must have such a file, one it calls
  no-robots must not; for every origin with a file, `check --robots FILE`
  over its URLs must give the same verdict, line and rule for every URL. A URL
  called malformed must have no origin by the independent reading either.
cache: 20,000 tricky URLs must get the same origins whether or not a URL of
  another host comes before each (urls reuses the previous origin when the
  bytes up to the path agree).
Exit 0 when everything agrees; every disagreement is printed.
"""
import collections, concurrent.futures, os, re, subprocess, sys

# A robotscan run here takes well under a second (a few under ASan on a loaded machine):
# this limit is far past that, so only a hang trips it, and Python's TimeoutExpired
# ("timed out after N seconds") says it was time, not a wrong answer.
TIME_LIMIT = 600

FOLDERS = ["reference-differential", "google-spec-test-correctness", "google-spec-test-stress",
           "google-unittests", "seed-examples"]
AGENTS = ["Googlebot", "bingbot", "GPTBot", "NoSuchBot"]
DIAG = re.compile(rb"^\(stdin\):(\d+): ")
SUMMARY = re.compile(rb"^lines (\d+), URLs (\d+): allowed (\d+), disallowed (\d+); "
                     rb"malformed (\d+), skipped (\d+)$", re.M)

failures = []


def fail(msg):
    failures.append(msg)
    if len(failures) <= 40:
        print("FAIL: " + msg)


def untsv(field):
    if b"\\" not in field:
        return field
    out, i = bytearray(), 0
    while i < len(field):
        c = field[i:i + 1]
        if c == b"\\" and i + 1 < len(field):
            out += {b"t": b"\t", b"n": b"\n", b"r": b"\r", b"\\": b"\\"}.get(field[i + 1:i + 2], b"?")
            i += 2
        else:
            out += c
            i += 1
    return bytes(out)


def tsv_rows(data, want_header):
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if not lines or lines[0].split(b"\t") != want_header:
        return None
    return [[untsv(f) for f in ln.split(b"\t")] for ln in lines[1:]]


URLS_HEADER = [b"url", b"origin", b"agent", b"verdict", b"line", b"rule", b"reason"]


def skippable(url):
    """A blank or comment line as SPEC 4 says (leading blanks, then nothing or '#')."""
    s = url.lstrip(b" \t\r")
    return s == b"" or s.startswith(b"#")


def run_urls(binp, robots, agent, urls, extra=()):
    inp = b"".join(u + b"\n" for u in urls)
    p = subprocess.run([binp, "urls", "--robots", robots, "--agent", agent, "--format", "tsv",
                        "--verbose", "--no-progress", *extra], input=inp, capture_output=True, timeout=TIME_LIMIT)
    return p


# ===== (a) conformance folders =====

def check_run(where, p, urls, expected, n_inputs=None):
    """Checks one `urls --verbose --format tsv` run over @urls (bytes, in input order)
    against @expected [(verdict, line)]. @return (decided, malformed line numbers)."""
    if p.returncode != 0:
        fail("%s: urls exit %d: %s" % (where, p.returncode, p.stderr[:300]))
        return 0, []
    rows = tsv_rows(p.stdout, URLS_HEADER)
    if rows is None:
        fail("%s: no TSV header: %r" % (where, p.stdout[:200]))
        return 0, []
    malformed = set()
    for ln in p.stderr.split(b"\n"):
        m = DIAG.match(ln)
        if m:
            malformed.add(int(m.group(1)))
    s = SUMMARY.search(p.stderr)
    if s is None:
        fail("%s: no summary on stderr under --verbose: %r" % (where, p.stderr[-300:]))
        return 0, []
    lines, n_urls, _, _, n_bad, n_skipped = (int(x) for x in s.groups())
    blank = {i + 1 for i, u in enumerate(urls) if skippable(u)}
    if lines != len(urls):
        fail("%s: summary counts %d lines, input has %d" % (where, lines, len(urls)))
    if n_bad != len(malformed):
        fail("%s: summary counts %d malformed, stderr names %d" % (where, n_bad, len(malformed)))
    if blank & malformed:
        fail("%s: blank/comment lines reported malformed: %s" % (where, sorted(blank & malformed)))
    if n_skipped != 0 or lines - n_urls - n_bad != len(blank):
        fail("%s: %d blank lines expected, summary implies %d" % (where, len(blank), lines - n_urls - n_bad))
    if malformed:
        fail("%s: %d URLs called malformed (every vector URL has an origin), e.g. %r"
             % (where, len(malformed), [urls[n - 1] for n in sorted(malformed)[:3] if n <= len(urls)]))
    decided = [i for i in range(len(urls)) if i + 1 not in malformed and i + 1 not in blank]
    if len(decided) != len(rows) or n_urls != len(rows):
        fail("%s: %d rows, %d URLs counted, %d expected" % (where, len(rows), n_urls, len(decided)))
        return 0, sorted(malformed)
    for i, row in zip(decided, rows):
        if expected is None:
            if row[0] != urls[i]:
                fail("%s line %d: url field %r != input %r" % (where, i + 1, row[0], urls[i]))
            continue
        want_v, want_l = expected[i]
        if row[0] != urls[i]:
            fail("%s line %d: url field %r != input %r" % (where, i + 1, row[0], urls[i]))
        elif row[6] not in (b"matched", b"no-match"):
            fail("%s url %r: reason %r (origin %r)" % (where, urls[i], row[6], row[1]))
        elif row[3].decode() != want_v or int(row[4]) != want_l:
            fail("%s url %r: urls says %s line %s, reference %s line %d"
                 % (where, urls[i], row[3].decode(), row[4].decode(), want_v, want_l))
    return len(rows), sorted(malformed)


def direct_group(binp, folder, case, agent, cases):
    """`urls --robots CASE.txt` over one (case, agent) group, as the vectors are meant."""
    urls = [u for u, _, _ in cases]
    p = run_urls(binp, os.path.join(folder, case + ".txt"), agent, urls)
    d, bad = check_run("%s case %s agent %s" % (os.path.basename(folder), case, agent), p, urls,
                       [(v, l) for _, v, l in cases])
    return d, [urls[n - 1] for n in bad]


# scheme:// or //, a host urls accepts, an optional port, then the path (kept byte for byte)
URL_RX = re.compile(rb"^(?:([A-Za-z][A-Za-z0-9+.-]*)://|//)?([A-Za-z0-9_.-]+)(?::([0-9]{1,5}))?(?=[/?;#]|$)", re.S)
DEFAULT_PORT = {b"http": 80, b"https": 443, b"ftp": 21}


def rehost(url, host):
    """@url with its host replaced by @host and its canonical origin, or (url, None).
    The path the matcher sees is unchanged: it starts at the first '/', '?', ';' or
    '#' after the authority, and neither host has any of those."""
    m = URL_RX.match(url)
    if m is None or (url.startswith(b"/") and not url.startswith(b"//")):
        return url, None
    scheme = (m.group(1) or b"http").lower()
    port = m.group(3)
    if port is not None and not 1 <= int(port) <= 65535:
        return url, None
    new = url[:m.start(2)] + host + url[m.end(2):]
    origin = scheme + b"://" + host
    if port is not None and int(port) != DEFAULT_PORT.get(scheme):
        origin += b":%d" % int(port)
    return new, origin


def manifest_runs(binp, folder, groups, tmp, pool):
    """All groups of a folder in one run per agent: each case's URLs get the host
    cCASE.test, and a manifest maps every origin so made to CASE.txt (status 200)."""
    name = os.path.basename(folder)
    origins = collections.OrderedDict()
    per_agent = collections.OrderedDict()
    for (case, agent), cases in groups.items():
        host = b"c%s.test" % case.encode()
        lst = per_agent.setdefault(agent, [])
        for url, v, l in cases:
            new, origin = rehost(url, host)
            if origin is not None:
                origins[origin] = os.path.abspath(os.path.join(folder, case + ".txt"))
            lst.append((new, v, l))
    manifest = os.path.join(tmp, name + ".tsv")
    with open(manifest, "wb") as f:
        for o, path in origins.items():
            f.write(o + b"\t200\t" + path.encode() + b"\n")

    def one(agent, lst):
        urls = [u for u, _, _ in lst]
        p = run_urls(binp, manifest, agent, urls)
        return check_run("%s (manifest) agent %s" % (name, agent), p, urls, [(v, l) for _, v, l in lst])
    futs = [pool.submit(one, a, lst) for a, lst in per_agent.items()]
    decided = bad = 0
    for fu in futs:
        d, m = fu.result()
        decided += d
        bad += len(m)
    return len(per_agent), len(origins), decided, bad


def conformance(binp, shared, pool, full):
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        for name in FOLDERS:
            folder = os.path.join(shared, "conformance", name)
            groups = collections.OrderedDict()
            with open(os.path.join(folder, "cases.tsv"), "rb") as f:
                for row in f:
                    c, agent, url, verdict, line = row.rstrip(b"\n").split(b"\t")
                    groups.setdefault((c.decode(), agent.decode()), []).append((url, verdict.decode(), int(line)))
            total = sum(len(cs) for cs in groups.values())
            # 1. One process per (case, agent) with --robots CASE.txt: every group of the
            #    small folders, every 16th of reference-differential (31,079 groups) unless --full.
            step = 1 if full or len(groups) < 2000 else 16
            chosen = [(k, cs) for i, (k, cs) in enumerate(groups.items()) if i % step == 0]
            futs = [pool.submit(direct_group, binp, folder, c, a, cs) for (c, a), cs in chosen]
            decided = bad = 0
            samples = []
            for fu in futs:
                d, s = fu.result()
                decided += d
                bad += len(s)
                samples += s
            n = sum(len(cs) for _, cs in chosen)
            print("conformance %-28s --robots CASE.txt: %d/%d groups, %d cases: %d decided and compared, "
                  "%d malformed (skipped), %d blank%s" % (name, len(chosen), len(groups), n, decided, bad,
                                                          n - decided - bad, " e.g. %r" % samples[:3] if samples else ""))
            if decided == 0:
                fail("%s: nothing decided" % name)
            # 2. Which of the folder's URLs, as written, have no origin (urls would skip them
            #    as malformed): all of them in one run, any robots file (the verdicts do not
            #    matter here; the count and the line numbers must be consistent).
            all_urls = [u for cs in groups.values() for u, _, _ in cs]
            any_case = os.path.join(folder, next(iter(groups))[0] + ".txt")
            p = run_urls(binp, any_case, "x", all_urls)
            _, bad_lines = check_run("%s (all URLs, no verdicts)" % name, p, all_urls, None)
            print("conformance %-28s all %d URLs as written: %d without an origin%s"
                  % (name, len(all_urls), len(bad_lines),
                     " e.g. %r" % [all_urls[n - 1] for n in bad_lines[:3]] if bad_lines else ""))
            # 3. Every case through one manifest, one process per agent.
            runs, n_origins, decided, bad = manifest_runs(binp, folder, groups, tmp, pool)
            print("conformance %-28s manifest of %d origins, %d runs: %d/%d cases decided and compared, "
                  "%d malformed (skipped), %d blank" % (name, n_origins, runs, decided, total, bad,
                                                        total - decided - bad))


# ===== (b) ada URL list against the shared robots directory =====

SIMPLE_RX = re.compile(rb"^([A-Za-z]+)://([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*[A-Za-z-][A-Za-z0-9-]*)\.?(?::([0-9]{1,5}))?(?:[/?#;]|$)")


def simple_origin(url):
    """The origin of a plain http(s)://host[:port] URL (ASCII host not ending in a number),
    worked out independently of robotscan; None for anything else."""
    m = SIMPLE_RX.match(url)
    if m is None:
        return None
    scheme, host, port = m.group(1).lower(), m.group(2).lower(), m.group(3)
    if scheme not in (b"http", b"https"):
        return None
    o = scheme + b"://" + host
    if port is not None and int(port) != (80 if scheme == b"http" else 443):
        o += b":%d" % int(port)
    return o


def host_canon(h):
    h = h.rstrip(".") if h.endswith(".") and not h.endswith("..") else h
    try:
        h.encode("ascii")
    except UnicodeEncodeError:
        try:
            h = h.encode("idna").decode("ascii")
        except UnicodeError:
            return None
    h = h.lower()
    if not h or not re.fullmatch(r"[a-z0-9._-]+", h) or ".." in h or h.startswith("."):
        return None
    return h


def dir_index(d):
    """key ("host" or "host:port") -> file, as SPEC 3 names a directory's entries."""
    cands = collections.defaultdict(list)
    for name in os.listdir(d):
        if name.startswith(".") or name.lower().endswith(".tsv"):
            continue
        full = os.path.join(d, name)
        if os.path.isdir(full):
            base, path, sortkey = name, os.path.join(full, "robots.txt"), name + "/robots.txt"
            if not os.path.isfile(path):
                continue
        elif os.path.isfile(full):
            base = name[:-4] if name.lower().endswith(".txt") else name
            path, sortkey = full, name
        else:
            continue
        m = re.fullmatch(r"(.+?)(?:[:_](\d{1,5}))?", base)
        host, port = m.group(1), m.group(2)
        if port is not None and not 1 <= int(port) <= 65535:
            continue
        h = host_canon(host)
        if h is None:
            continue
        key = h if port is None else "%s:%d" % (h, int(port))
        cands[key].append((sortkey.encode(), path))
    return {k: min(v)[1] for k, v in cands.items()}


def serving_file(index, origin):
    m = re.fullmatch(r"(https?)://([^:/]+)(?::(\d+))?", origin)
    if m is None:
        return None
    scheme, host, port = m.group(1), m.group(2), m.group(3)
    default = 80 if scheme == "http" else 443
    port = int(port) if port else default
    f = index.get("%s:%d" % (host, port))
    if f is None and port == default:
        f = index.get(host)
    return f


def check_origin(binp, path, agent, rows):
    urls = [r[0] for r in rows]
    p = subprocess.run([binp, "check", "--robots", path, "--agent", agent, "--format", "tsv"],
                       input=b"".join(u + b"\n" for u in urls), capture_output=True, timeout=TIME_LIMIT)
    if p.returncode not in (0, 1):
        return ["check exit %d on %s: %r" % (p.returncode, path, p.stderr[:200])]
    got = tsv_rows(p.stdout, [b"url", b"verdict", b"line", b"rule"])
    if got is None or len(got) != len(rows):
        return ["check on %s: %s rows for %d URLs" % (path, None if got is None else len(got), len(rows))]
    errs = []
    for r, c in zip(rows, got):
        if (r[0], r[3], r[4], r[5]) != (c[0], c[1], c[2], c[3]):
            errs.append("%s agent %s: urls %r != check %r" % (path, agent, r[:1] + r[3:6], c))
    return errs


def ada(binp, shared, pool):
    urls_file = os.path.join(shared, "data", "urls", "ada-url-kasztp.txt")
    robots = os.path.join(shared, "data", "robots")
    index = dir_index(robots)
    for agent in AGENTS:
        p = subprocess.run([binp, "urls", "--robots", robots, "--agent", agent, "--format", "tsv",
                            "--verbose", "--no-progress", urls_file], capture_output=True, timeout=2 * TIME_LIMIT)
        if p.returncode != 0:
            fail("ada %s: urls exit %d: %r" % (agent, p.returncode, p.stderr[-300:]))
            continue
        rows = tsv_rows(p.stdout, URLS_HEADER)
        s = SUMMARY.search(p.stderr)
        n_diag = sum(1 for ln in p.stderr.split(b"\n") if ln.startswith(urls_file.encode() + b":"))
        if rows is None or s is None:
            fail("ada %s: no header or no summary" % agent)
            continue
        if int(s.group(5)) != n_diag or int(s.group(2)) != len(rows):
            fail("ada %s: summary %r vs %d rows, %d diagnostics" % (agent, s.group(0), len(rows), n_diag))
        # a URL called malformed has no origin by the independent reading either
        with open(urls_file, "rb") as f:
            lines = f.read().split(b"\n")
        diag_rx = re.compile(re.escape(urls_file.encode()) + rb":(\d+): ")
        bad_lines = [int(m.group(1)) for m in map(diag_rx.match, p.stderr.split(b"\n")) if m]
        for n in bad_lines:
            u = lines[n - 1].rstrip(b"\r") if n <= len(lines) else b""
            if n == 1 and u.startswith(b"\xef\xbb\xbf"):
                u = u[3:]
            if simple_origin(u) is not None:
                fail("ada %s: line %d %r called malformed, but its origin is %r" % (agent, n, u, simple_origin(u)))
        if n_diag and not bad_lines:
            fail("ada %s: %d diagnostics, none names a line" % (agent, n_diag))
        by_origin = collections.OrderedDict()
        simple = 0
        for r in rows:
            by_origin.setdefault(r[1].decode(), []).append(r)
            want = simple_origin(r[0])
            if want is not None:
                simple += 1
                if want != r[1]:
                    fail("ada %s: %r has origin %r, want %r" % (agent, r[0], r[1], want))
        if simple < len(rows) // 2:
            fail("ada %s: only %d of %d URLs had their origin checked" % (agent, simple, len(rows)))
        jobs, no_robots = [], 0
        for origin, rs in by_origin.items():
            reasons = {r[6] for r in rs}
            path = serving_file(index, origin)
            if reasons <= {b"matched", b"no-match"}:
                if path is None:
                    fail("ada %s: %s decided by rules but no file in %s serves it" % (agent, origin, robots))
                else:
                    jobs.append((origin, path, rs))
            elif reasons == {b"no-robots"}:
                no_robots += 1
                if path is not None:
                    fail("ada %s: %s called no-robots but %s serves it" % (agent, origin, path))
                if any(r[3] != b"allow" or r[4] != b"0" or r[5] != b"" for r in rs):
                    fail("ada %s: %s no-robots rows are not plain allows" % (agent, origin))
            else:
                fail("ada %s: %s has reasons %r" % (agent, origin, reasons))
        futs = [pool.submit(check_origin, binp, path, agent, rs) for _, path, rs in jobs]
        for fu in futs:
            for e in fu.result():
                fail("ada " + e)
        compared = sum(len(rs) for _, _, rs in jobs)
        disallowed = sum(1 for _, _, rs in jobs for r in rs if r[3] == b"disallow")
        print("ada %-10s %d URLs decided (%d origins re-derived), %d malformed: %d origins with a robots.txt "
              "(%d URLs, %d disallowed) compared with check; %d origins without"
              % (agent, len(rows), simple, n_diag, len(jobs), compared, disallowed, no_robots))
        if not jobs or disallowed == 0 and agent != "NoSuchBot":
            fail("ada %s: too little compared (%d origins, %d disallowed)" % (agent, len(jobs), disallowed))


# ===== (c) the origin of a URL does not depend on the URL before it =====

def cache_order(binp, shared):
    """urls reuses the previous URL's origin when the bytes up to the path agree. Each of
    20,000 tricky URLs (blanks, BOMs, userinfo, ports, IDN, dots, no scheme) must get the
    origin (or the malformed verdict) it gets when a URL of another host precedes it."""
    import json, random
    r = random.Random(9309)
    pre = ["", " ", "\t", "\xef\xbb\xbf", "//", " //", "http://", "HTTP://", "https://", "ftp://",
           "http:/", "http:", "//u@", "http://u:p@", "x://"]
    hosts = ["a.com", "a.co", "a.com.b", "A.COM", "a.com.", "b.com", "xn--mller-kva.eu",
             "m\xc3\xbcller.eu", "1.2.3.4", "0x7f.1", "[::1]", "a.com:80", "a.com:8080", "a.com:",
             "a.com:0", "a%2ecom", "a..com", "", "a_b.com"]
    suf = ["", "/", "/x", "?q", "#f", "/x#y", ";p", "/a/b?c#d", ":80/x", ".evil/x", "@b.com/x", " ",
           "/ ", "\r"]
    urls = [(r.choice(pre) + r.choice(hosts) + r.choice(suf)).encode("latin-1") for _ in range(20000)]
    robots = os.path.join(shared, "conformance", "seed-examples", "00000.txt")
    sep = b"http://reset.invalid/"

    def origins(lines):
        p = subprocess.run([binp, "urls", "--robots", robots, "--agent", "x", "--format", "jsonl",
                            "--no-progress"], input=b"\n".join(lines) + b"\n", capture_output=True, timeout=TIME_LIMIT)
        if p.returncode != 0:
            fail("cache order: urls exit %d: %r" % (p.returncode, p.stderr[:300]))
        return [(d["url"], d["origin"]) for d in map(json.loads, p.stdout.decode().splitlines())]
    seq = origins(urls)
    alone = [o for o in origins([x for u in urls for x in (u, sep)]) if o[0] != sep.decode()]
    if seq != alone:
        diff = next((i for i, (a, b) in enumerate(zip(seq, alone)) if a != b), min(len(seq), len(alone)))
        fail("cache order: %d vs %d URLs decided; first difference at record %d: %r vs %r"
             % (len(seq), len(alone), diff, seq[diff:diff + 1], alone[diff:diff + 1]))
    if len(seq) < len(urls) // 2:
        fail("cache order: only %d of %d URLs decided" % (len(seq), len(urls)))
    print("cache order: %d of %d tricky URLs decided, same origins whatever precedes them"
          % (len(seq), len(urls)))


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        sys.exit(2)
    binp, shared = sys.argv[1], sys.argv[2]
    what = sys.argv[3] if len(sys.argv) > 3 else "all"
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        if what in ("conformance", "all"):
            conformance(binp, shared, pool, "--full" in sys.argv)
        if what in ("ada", "all"):
            ada(binp, shared, pool)
        if what in ("cache", "all"):
            cache_order(binp, shared)
    if failures:
        print("urls_vs_check.py: %d failure(s)" % len(failures))
        sys.exit(1)
    print("urls_vs_check.py: all agree")


main()
