#!/usr/bin/env python3
"""warc_fixtures.py - writes WARC files in Common Crawl's robotstxt layout (standard library only).

Layout, as Common Crawl publishes crawl-data/CC-MAIN-*/segments/*/robotstxt/*.warc.gz:
a warcinfo record, then for every fetch a request, a response and a metadata record, each
record its own gzip member (or plain). Response headers keep what the server sent except that
Content-Encoding / Transfer-Encoding / Content-Length are renamed X-Crawler-* and the body is
stored decoded; the fixtures also hold the cases a crawler might not normalise (a chunked
body, a body still gzip-encoded).

Usage:
  warc_fixtures.py cases OUTDIR
      OUTDIR/cases.warc.gz (gzip per record), OUTDIR/cases.warc (plain),
      OUTDIR/trunc.warc.gz (the same, then a last record whose gzip member is cut short),
      OUTDIR/trunc.warc (plain, last record cut), OUTDIR/badlen.warc (a wrong Content-Length),
      OUTDIR/expect.tsv: URL<TAB>verdict<TAB>reason for every case (SPEC 3 outcomes).
  warc_fixtures.py pack ROBOTS_DIR OUTDIR
      every ROBOTS_DIR/*.txt (host from SOURCES.tsv) as one 200 capture of https://HOST in
      OUTDIR/real.warc.gz, plus OUTDIR/real.tsv, a manifest of the same captures, and
      OUTDIR/real-urls.txt, URLs over those hosts (paths taken from the files' rules).
"""
import gzip
import io
import os
import re
import sys
import uuid

NS = uuid.UUID("6ba7b811-9dad-11d1-80b4-00c04fd430c8")


def rid(*parts):
    return "<urn:uuid:%s>" % uuid.uuid5(NS, "/".join(str(p) for p in parts))


def record(wtype, date, uri, block, extra=(), content_type="application/http; msgtype=response"):
    head = ["WARC/1.0", "WARC-Type: " + wtype, "WARC-Date: " + date,
            "WARC-Record-ID: " + rid(wtype, date, uri, len(block))]
    if uri:
        head.append("WARC-Target-URI: " + uri)
    head += list(extra)
    head += ["Content-Type: " + content_type, "Content-Length: %d" % len(block)]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + block + b"\r\n\r\n"


def warcinfo(name):
    block = (b"software: robotscan tests/warc_fixtures.py\r\nformat: WARC File Format 1.0\r\n"
             b"description: robots.txt captures in Common Crawl's robotstxt layout\r\n")
    return record("warcinfo", "2024-01-01T00:00:00Z", None, block, ["WARC-Filename: " + name],
                  "application/warc-fields")


def fetch(uri, date, status, reason, headers, body):
    """request + response + metadata records of one fetch."""
    host = re.match(r"https?://([^/]+)", uri).group(1)
    path = uri[uri.index("/", 8):]
    req = ("GET %s HTTP/1.1\r\nUser-Agent: CCBot/2.0 (https://commoncrawl.org/faq/)\r\n"
           "Accept: text/plain\r\nHost: %s\r\n\r\n" % (path, host)).encode()
    resp_head = "HTTP/1.1 %d %s\r\n" % (status, reason) + "".join("%s: %s\r\n" % h for h in headers) + "\r\n"
    resp = resp_head.encode() + body
    rec_id = rid("response", date, uri, len(resp))
    meta = ("fetchTimeMs: 42\r\n").encode()
    return [
        record("request", date, uri, req, ["WARC-IP-Address: 192.0.2.1"], "application/http; msgtype=request"),
        record("response", date, uri, resp, ["WARC-IP-Address: 192.0.2.1",
                                               "WARC-Payload-Digest: sha1:AAAA"]),
        record("metadata", date, uri, meta, ["WARC-Concurrent-To: " + rec_id], "application/warc-fields"),
    ]


def write(path, records, per_record_gzip):
    with open(path, "wb") as f:
        for r in records:
            f.write(gzip.compress(r, mtime=0) if per_record_gzip else r)


def chunk(data, size=7):
    out = b""
    for i in range(0, len(data), size):
        part = data[i:i + size]
        out += b"%x\r\n" % len(part) + part + b"\r\n"
    return out + b"0\r\n\r\n"


D1 = "2024-03-01T10:00:00Z"
TXT = [("Content-Type", "text/plain")]


def cases():
    """[(records...)], [(url, verdict, reason)]"""
    recs, exp = [], []

    def add(uri, status, reason, headers, body, date=D1):
        recs.extend(fetch(uri, date, status, reason, headers, body))

    # 200: the rules apply
    add("http://ok.example/robots.txt", 200, "OK", TXT, b"User-agent: *\nDisallow: /private\n")
    exp += [("http://ok.example/private/x", "disallow", "matched"), ("http://ok.example/open", "allow", "no-match"),
            ("https://ok.example/private/x", "allow", "no-robots")]
    # 404 with an HTML error page: allow all
    add("https://notfound.example/robots.txt", 404, "Not Found", [("Content-Type", "text/html")],
        b"<!DOCTYPE html><html><head><title>404</title></head><body>Disallow: /</body></html>\n")
    exp += [("https://notfound.example/anything", "allow", "unavailable")]
    # 503: disallow all
    add("https://down.example/robots.txt", 503, "Service Unavailable", TXT, b"User-agent: *\nAllow: /\n")
    exp += [("https://down.example/anything", "disallow", "unreachable")]
    # 301 to a captured target (another origin): the target's rules
    add("http://moved.example/robots.txt", 301, "Moved Permanently",
        [("Location", "https://www.moved.example/robots.txt")], b"")
    add("https://www.moved.example/robots.txt", 200, "OK", TXT, b"User-agent: *\nDisallow: /moved-rules\n")
    exp += [("http://moved.example/moved-rules/a", "disallow", "matched"),
            ("https://www.moved.example/moved-rules", "disallow", "matched"),
            ("http://moved.example/elsewhere", "allow", "no-match")]
    # relative Location to a captured non-robots path
    add("http://rel.example/robots.txt", 302, "Found", [("Location", "/robots-real.txt")], b"")
    add("http://rel.example/robots-real.txt", 200, "OK", TXT, b"User-agent: *\nDisallow: /rel\n")
    exp += [("http://rel.example/rel/1", "disallow", "matched")]
    # a redirect loop: unavailable
    add("http://loop.example/robots.txt", 301, "Moved", [("Location", "http://loop2.example/robots.txt")], b"")
    add("http://loop2.example/robots.txt", 302, "Found", [("Location", "http://loop.example/robots.txt")], b"")
    exp += [("http://loop.example/x", "allow", "unavailable"), ("http://loop2.example/x", "allow", "unavailable")]
    # a redirect to a capture the source does not hold: unavailable
    add("http://away.example/robots.txt", 301, "Moved", [("Location", "https://elsewhere.example/robots.txt")], b"")
    exp += [("http://away.example/x", "allow", "unavailable"), ("https://elsewhere.example/x", "allow", "no-robots")]
    # a chain: hop1 -> ... -> hop7 (200). hop2 is 5 hops away (followed), hop1 is 6 (not)
    for i in range(1, 7):
        add("http://hop%d.example/robots.txt" % i, 301, "Moved",
            [("Location", "http://hop%d.example/robots.txt" % (i + 1))], b"")
    add("http://hop7.example/robots.txt", 200, "OK", TXT, b"User-agent: *\nDisallow: /hop\n")
    exp += [("http://hop1.example/hop", "allow", "unavailable"), ("http://hop2.example/hop", "disallow", "matched")]
    # an HTML page served with 200: read as robots.txt (no rules), flagged
    add("https://html.example/robots.txt", 200, "OK", [("Content-Type", "text/html")],
        b"<!DOCTYPE html>\n<html>\n<head><title>Welcome</title></head>\n<body>Disallow: /</body>\n</html>\n")
    exp += [("https://html.example/private", "allow", "no-match")]
    # Common Crawl's renamed encoding header: body stored decoded
    add("https://xcce.example/robots.txt", 200, "OK",
        TXT + [("X-Crawler-Content-Encoding", "gzip"), ("X-Crawler-Content-Length", "40")],
        b"User-agent: *\nDisallow: /xcce\n")
    exp += [("https://xcce.example/xcce", "disallow", "matched")]
    # Content-Encoding: gzip still present: decoded
    add("https://gz.example/robots.txt", 200, "OK", TXT + [("Content-Encoding", "gzip")],
        gzip.compress(b"User-agent: *\nDisallow: /gz\n", mtime=0))
    exp += [("https://gz.example/gz", "disallow", "matched")]
    # chunked transfer coding
    add("https://chunked.example/robots.txt", 200, "OK", TXT + [("Transfer-Encoding", "chunked")],
        chunk(b"User-agent: *\nDisallow: /chunked\n"))
    exp += [("https://chunked.example/chunked", "disallow", "matched")]
    # two captures, the later date written first: the later date wins
    add("https://twice.example/robots.txt", 200, "OK", TXT, b"User-agent: *\nDisallow: /new\n", "2024-02-01T00:00:00Z")
    add("https://twice.example/robots.txt", 200, "OK", TXT, b"User-agent: *\nDisallow: /old\n", "2024-01-01T00:00:00Z")
    exp += [("https://twice.example/new", "disallow", "matched"), ("https://twice.example/old", "allow", "no-match")]
    # the same date twice: the later record wins
    add("https://tie.example/robots.txt", 200, "OK", TXT, b"User-agent: *\nDisallow: /first\n")
    add("https://tie.example/robots.txt", 200, "OK", TXT, b"User-agent: *\nDisallow: /second\n")
    exp += [("https://tie.example/second", "disallow", "matched"), ("https://tie.example/first", "allow", "no-match")]
    # a 200 with an empty body: no rules
    add("https://empty.example/robots.txt", 200, "OK", TXT, b"")
    exp += [("https://empty.example/x", "allow", "no-match")]
    # a 410 and a 500 on https with a port
    add("https://gone.example:8443/robots.txt", 410, "Gone", TXT, b"")
    add("http://err.example:8080/robots.txt", 500, "Internal Server Error", TXT, b"")
    exp += [("https://gone.example:8443/x", "allow", "unavailable"), ("http://err.example:8080/x", "disallow", "unreachable")]
    return recs, exp


def main_cases(out):
    os.makedirs(out, exist_ok=True)
    recs, exp = cases()
    all_recs = [warcinfo("cases.warc.gz")] + recs
    write(os.path.join(out, "cases.warc.gz"), all_recs, True)
    write(os.path.join(out, "cases.warc"), all_recs, False)
    # A truncated last record: one more fetch whose last record's member is cut in half.
    extra = fetch("https://late.example/robots.txt", D1, 200, "OK", TXT, b"User-agent: *\nDisallow: /late\n")
    with open(os.path.join(out, "trunc.warc.gz"), "wb") as f:
        for r in all_recs + extra[:1]:
            f.write(gzip.compress(r, mtime=0))
        z = gzip.compress(extra[1], mtime=0)
        f.write(z[:len(z) // 2])
    with open(os.path.join(out, "trunc.warc"), "wb") as f:
        for r in all_recs + extra[:1]:
            f.write(r)
        f.write(extra[1][:len(extra[1]) - 20])
    # A wrong Content-Length in the middle (one byte too short).
    bad = bytearray(b"".join(all_recs))
    i = bad.index(b"WARC-Target-URI: https://down.example/robots.txt")
    j = bad.index(b"Content-Length: ", bad.index(b"WARC-Type: response", i - 200))
    k = bad.index(b"\r\n", j)
    n = int(bad[j + 16:k])
    bad[j:k] = b"Content-Length: %d" % (n - 1)
    with open(os.path.join(out, "badlen.warc"), "wb") as f:
        f.write(bytes(bad))
    with open(os.path.join(out, "expect.tsv"), "w") as f:
        for u, v, r in exp:
            f.write("%s\t%s\t%s\n" % (u, v, r))


def main_pack(robots_dir, out):
    os.makedirs(out, exist_ok=True)
    hosts = {}
    with open(os.path.join(robots_dir, "SOURCES.tsv")) as f:
        head = f.readline().rstrip("\n").split("\t")
        for line in f:
            row = dict(zip(head, line.rstrip("\n").split("\t")))
            if row.get("dir") == "robots":
                hosts[row["file"]] = row["host"]
    names = sorted(n for n in os.listdir(robots_dir) if n.endswith(".txt") and n in hosts)
    with open(os.path.join(out, "real.warc.gz"), "wb") as w, open(os.path.join(out, "real.tsv"), "w") as m, \
            open(os.path.join(out, "real-urls.txt"), "w") as u:
        w.write(gzip.compress(warcinfo("real.warc.gz"), mtime=0))
        for i, name in enumerate(names):
            path = os.path.abspath(os.path.join(robots_dir, name))
            body = open(path, "rb").read()
            origin = "https://" + hosts[name]
            date = "2024-01-%02dT%02d:%02d:%02dZ" % (1 + i % 28, i % 24, i % 60, i % 60)
            for r in fetch(origin + "/robots.txt", date, 200, "OK", TXT, body):
                w.write(gzip.compress(r, mtime=1))
            m.write("%s\t200\t%s\n" % (origin, path))
            pats = re.findall(rb"(?im)^\s*(?:dis)?allow\s*:\s*(/[^\s#]*)", body)[:6]
            u.write(origin + "/\n")
            for p in pats:
                p = p.decode("latin-1").replace("*", "x").replace("$", "")
                u.write(origin + p + "\n")
                u.write(origin + p + "z/1.html\n")
    print("%d captures" % len(names))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "cases":
        main_cases(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "pack":
        main_pack(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
