"""Robots.sitemaps / .host / .crawl_delay / .request_rate / .visit_time against an
independent reading of robots.txt files in Python over the raw lines (SPEC 2.1, 2.2),
on the bundled real files (data/robots, data/robots-variants) and on edge cases.

The reading here shares no code with the C parser: it follows the SPEC's text (line
ends, 16,663-byte lines, 500 KiB, NUL, comments, the two-word form, key prefixes,
canonical values of unknown keys, groups, agent selection) and the documented value
grammars of src/robotscan.h ("Robots.txt metadata"). test_checker_catches_wrong_answers
shows the comparison fails when an answer is wrong.
"""
import datetime
import math
import os
import re

import pytest

from robotscan import RequestRate, Robots, VisitTime

WS = b" \t\n\r\x0b\x0c"
UA_FORMS = (b"user-agent", b"useragent", b"user agent")
ALLOW_FORMS = (b"allow",)
DISALLOW_FORMS = (b"disallow", b"dissallow", b"dissalow", b"disalow", b"diasllow", b"disallaw")
SITEMAP_FORMS = (b"sitemap", b"site-map")


def canonical(v):
    """SPEC 2.1.8: %xx hex digits upper-cased, bytes >= 0x80 percent-encoded."""
    v = re.sub(rb"%([0-9a-fA-F]{2})", lambda m: b"%" + m.group(1).upper(), v)
    return b"".join(b"%%%02X" % c if c >= 0x80 else bytes([c]) for c in v)


def lines_of(body):
    """(line number, content) of each non-empty line, SPEC 2.1.1-5."""
    body = body[:512000]
    for bom in (b"\xef\xbb\xbf", b"\xef\xbb", b"\xef"):
        if body.startswith(bom):
            body = body[len(bom):]
            break
    for n, line in enumerate(re.split(rb"\r\n|\r|\n", body), 1):
        line = line[:16663].split(b"\0", 1)[0].split(b"#", 1)[0].strip(WS)
        if line:
            yield n, line


class Reading:
    """One robots.txt read independently: groups, unknown keys, sitemaps."""

    def __init__(self, body):
        self.sitemaps = []          # values as written
        self.extras = []            # (group or None, key lower, canonical value)
        self.agents = []            # (group, global, token)
        group, saw_rule, n_groups = None, False, 0
        for _n, line in lines_of(body):
            if b":" in line:
                k, v = line.split(b":", 1)
                k, v = k.strip(WS), v.strip(WS)
            else:
                parts = re.split(rb"[ \t]+", line)
                if len(parts) != 2:
                    continue
                k, v = parts
            if not k:
                continue
            kl = k.lower()
            if kl.startswith(UA_FORMS):
                if group is None or saw_rule:
                    group, saw_rule, n_groups = n_groups, False, n_groups + 1
                glob = v == b"*" or (v[:1] == b"*" and len(v) > 1 and v[1] in WS)
                tok = b"" if glob else re.match(rb"[A-Za-z_-]*", v).group(0)
                self.agents.append((group, glob, tok.lower()))
            elif kl.startswith(ALLOW_FORMS) or kl.startswith(DISALLOW_FORMS):
                if group is not None:
                    saw_rule = True
            elif kl.startswith(SITEMAP_FORMS):
                self.sitemaps.append(v)
            else:
                self.extras.append((group, kl, canonical(v)))

    def tokens(self):
        seen = []
        for _g, glob, tok in self.agents:
            if not glob and tok and tok not in seen:
                seen.append(tok)
        return seen

    def groups_for(self, agent):
        a = agent.lower().encode()
        named = {g for g, glob, tok in self.agents if not glob and tok and tok == a}
        return named or {g for g, glob, _t in self.agents if glob}

    def first(self, agent, keys, read):
        groups = self.groups_for(agent)
        for g, k, v in self.extras:
            if g is not None and g in groups and k in keys:
                r = read(v)
                if r is not None:
                    return r
        return None

    def host(self):
        for _g, k, v in self.extras:
            if k == b"host" and v:
                return v.decode("utf-8", "surrogateescape")
        return None


DEC = rb"(?:\d+\.?\d*|\.\d+)"
CLOCK = rb"([01]\d|2[0-3]):?([0-5]\d)"
WINDOW = CLOCK + rb"[ \t]*-[ \t]*" + CLOCK


def read_delay(v):
    return float(v) if re.fullmatch(DEC, v) else None


def read_rate(v):
    m = re.fullmatch(rb"(\d+)[ \t]*/[ \t]*(" + DEC + rb")([smhdSMHD]?)(?:[ \t]+" + WINDOW + rb")?", v)
    if not m or int(m.group(1)) > 2 ** 32 - 1:
        return None
    secs = float(m.group(2)) * {b"": 1, b"s": 1, b"m": 60, b"h": 3600, b"d": 86400}[m.group(3).lower()]
    return int(m.group(1)), secs


def read_visit(v):
    m = re.fullmatch(WINDOW, v)
    if not m:
        return None
    h1, m1, h2, m2 = map(int, m.groups())
    return VisitTime(datetime.time(h1, m1), datetime.time(h2, m2))


def compare(body, robots, agents=None):
    """Mismatches between @robots (a Robots, or anything with its interface) and the
    independent reading of @body, for the file's tokens and a few others."""
    want = Reading(body)
    bad = []
    if list(robots.sitemaps) != [s.decode("utf-8", "surrogateescape") for s in want.sitemaps]:
        bad.append("sitemaps: %r != %r" % (robots.sitemaps, want.sitemaps))
    if robots.host != want.host():
        bad.append("host: %r != %r" % (robots.host, want.host()))
    if agents is None:
        agents = [t.decode("ascii") for t in want.tokens()][:8] + ["zzunnamedbot", "Googlebot", "Yandex"]
    for a in agents:
        d = want.first(a, (b"crawl-delay",), read_delay)
        got = robots.crawl_delay(a)
        if (d is None) != (got is None) or (d is not None and not math.isclose(d, got)):
            bad.append("crawl_delay(%s): %r != %r" % (a, got, d))
        r = want.first(a, (b"request-rate", b"request rate"), read_rate)
        got = robots.request_rate(a)
        if (r is None) != (got is None) or (r is not None and (
                got.requests != r[0] or not math.isclose(got.seconds, r[1]) or not isinstance(got, RequestRate))):
            bad.append("request_rate(%s): %r != %r" % (a, got, r))
        vt = want.first(a, (b"visit-time", b"visit time"), read_visit)
        got = robots.visit_time(a)
        if got != vt:
            bad.append("visit_time(%s): %r != %r" % (a, got, vt))
    return bad


def corpus(shared_dir):
    out = []
    for sub in ("robots", "robots-variants"):
        d = os.path.join(shared_dir, "data", sub)
        for name in sorted(os.listdir(d)):
            if name.endswith(".txt"):
                with open(os.path.join(d, name), "rb") as f:
                    out.append((sub + "/" + name, f.read()))
    return out


def test_real_files_agree(shared_dir):
    files = corpus(shared_dir)
    assert len(files) > 3000
    bad, seen = [], dict(sitemaps=0, host=0, delay=0, rate=0, visit=0)
    for name, body in files:
        r = Robots(body)
        for m in compare(body, r):
            bad.append("%s: %s" % (name, m))
        want = Reading(body)
        toks = [t.decode() for t in want.tokens()] + ["zzunnamedbot"]
        seen["sitemaps"] += bool(want.sitemaps)
        seen["host"] += want.host() is not None
        seen["delay"] += any(want.first(a, (b"crawl-delay",), read_delay) is not None for a in toks)
        seen["rate"] += any(want.first(a, (b"request-rate", b"request rate"), read_rate) for a in toks)
        seen["visit"] += any(want.first(a, (b"visit-time", b"visit time"), read_visit) for a in toks)
    print("%d files; files with: %r; %d mismatches" % (len(files), seen, len(bad)))
    # the corpus exercises every reader (else the agreement would say little)
    assert seen["sitemaps"] > 1000 and seen["host"] >= 20 and seen["delay"] > 100
    assert seen["rate"] >= 5 and seen["visit"] >= 5, seen
    assert not bad, "\n".join(bad[:20])


EDGE = [
    b"Sitemap: https://a.com/1.xml\nUser-agent: *\nSITE-MAP:   https://a.com/2.xml  \n"
    b"sitemaps: /rel\nsitemap https://a.com/3.xml\nSitemap: https://a.com/1.xml\n",
    b"\xef\xbb\xbfHost: first.example\nHost: second.example\nUser-agent: *\nDisallow: /\n",
    b"User-agent: *\nHost:\nhost example.org\n",
    b"Host: xn--e1afmkfd.xn--p1ai\nHost: \xd0\xbf\xd1\x80\xd0\xb8\n",
    b"Host: caf\xc3\xa9.example\n",
    b"User-agent: a\nCrawl-delay: soon\nCrawl-delay: 2.5\nUser-agent: b\nDisallow: /\n"
    b"Crawl-delay: 7\nUser-agent: *\nCrawl-delay: .5\n",
    b"Crawl-delay: 9\nUser-agent: *\nCrawl-delay: 1e3\nCrawl-delay: -1\nCrawl-delay: 5.\n",
    b"User-agent: *\nDisallow: /z\nRequest-rate: 1/5\nUser-agent: GoogleBot\nDisallow: /x\nRequest-rate: 10/1m\n"
    b"User-agent: Yandex\nDisallow: /y\nRequest-rate: 1/10s 0600-0845\nVisit-time: 0600-0845\n",
    b"User-agent: *\nRequest-rate: x/5\nRequest-rate: 1/5x\nRequest-rate: 1/5s0600-0700\n"
    b"Request-rate: 1 / 0.5h\nRequest rate: 3/20\n",
    b"User-agent: *\nRequest-rate: 99999999999/1\nRequest-rate: 4294967295/2d 23:59-00:00\n",
    b"User-agent: *\nVisit-time: 2400-0100\nVisit-time: 06:00 - 08:45\nVisit time: 0100-0200\n",
    b"User-agent: *\nVisit-time: 0600-0860\nVisit-time: 0600\nvisit-time: 1200-1300 # noon\n",
    b"User-agent: a\nUser-agent: b\nCrawl-delay: 3\nDisallow: /\nUser-agent: a\nCrawl-delay: 4\n",
    # a non-rule line does not close a group: b joins the `*` group and gets its rate
    b"User-agent: *\nRequest-rate: 1/5\nUser-agent: b\nDisallow: /x\nRequest-rate: 10/1m\n",
    b"User-agent: *\r\nCrawl-delay: 1\rRequest-rate: 2/3\r\nVisit-time: 0000-2359",
    b"User-agent: *\nCrawl-delay: 1\x00\nRequest-rate: 2/3\x00 0100-0200\n",
    b"",
    b"not a robots file at all \x00\xff\xfe\n<html>Host: x</html>\n",
]


@pytest.mark.parametrize("body", EDGE)
def test_edge_cases_agree(body):
    assert compare(body, Robots(body), ["a", "b", "Googlebot", "yandex", "zz"]) == []


def test_values():
    r = Robots(EDGE[7])
    assert r.request_rate("zz") == RequestRate(1, 5)
    assert r.request_rate("Googlebot") == RequestRate(10, 60)
    assert r.request_rate("Yandex") == RequestRate(1, 10)
    assert r.visit_time("yandex") == VisitTime(datetime.time(6, 0), datetime.time(8, 45))
    assert r.visit_time("zz") is None
    assert Robots(EDGE[8]).request_rate("x") == RequestRate(1, 1800)
    # "sitemap https://..." splits at its first ':' (key "sitemap https"), as the reference does
    assert Robots(EDGE[0]).sitemaps == ["https://a.com/1.xml", "https://a.com/2.xml", "/rel",
                                        "//a.com/3.xml", "https://a.com/1.xml"]
    assert Robots(EDGE[1]).host == "first.example"
    assert Robots(EDGE[2]).host == "example.org"
    # a and b share one group (no rule between their user-agent lines): its first decimal
    assert Robots(EDGE[5]).crawl_delay("a") == 2.5 and Robots(EDGE[5]).crawl_delay("b") == 2.5
    assert Robots(EDGE[5]).crawl_delay("other") == 0.5
    assert Robots(EDGE[6]).crawl_delay("x") == 5.0      # 9 is outside any group; 1e3, -1 skipped
    assert Robots(b"").sitemaps == [] and Robots(b"").host is None
    joined = Robots(b"User-agent: *\nRequest-rate: 1/5\nUser-agent: b\nDisallow: /x\nRequest-rate: 10/1m\n")
    assert joined.request_rate("b") == RequestRate(1, 5)


class _Wrong:
    """A Robots whose answers are each off in one way."""

    def __init__(self, robots, what):
        self._r, self._what = robots, what

    @property
    def sitemaps(self):
        s = list(self._r.sitemaps)
        return s[::-1] if self._what == "sitemaps" else s

    @property
    def host(self):
        return "wrong.example" if self._what == "host" else self._r.host

    def crawl_delay(self, a):
        d = self._r.crawl_delay(a)
        return (d or 0) + 1 if self._what == "delay" else d

    def request_rate(self, a):
        r = self._r.request_rate(a)
        return RequestRate(r.requests, r.seconds * 60) if self._what == "rate" and r else r

    def visit_time(self, a):
        v = self._r.visit_time(a)
        return VisitTime(v.end_time, v.start_time) if self._what == "visit" and v else v


@pytest.mark.parametrize("what", ["sitemaps", "host", "delay", "rate", "visit"])
def test_checker_catches_wrong_answers(what):
    body = (b"Host: h.example\nUser-agent: *\nCrawl-delay: 2\nRequest-rate: 1/5\n"
            b"Visit-time: 0100-0200\nSitemap: https://a/1\nSitemap: https://a/2\n")
    assert compare(body, Robots(body)) == []
    assert compare(body, _Wrong(Robots(body), what)) != []
