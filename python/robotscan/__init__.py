"""robotscan: may this crawler fetch this URL? robots.txt verdicts exactly as
Google's reference parser (RFC 9309), from Python, over librobotscan.so (ctypes,
standard library only).

    import robotscan
    r = robotscan.Robots(body)                       # bytes or str, parsed once
    r.allowed("https://a.com/x", "Googlebot")        # -> bool
    r.check("https://a.com/x", "Googlebot")          # -> Verdict("disallow", 3, "disallow: /x", "matched")
    dis, lines = r.check_many(urls, "Googlebot")     # -> array('b'), array('I')
    r.sitemaps, r.host                               # ['https://a.com/sitemap.xml'], 'a.com' or None
    r.crawl_delay("Googlebot"), r.request_rate("Googlebot"), r.visit_time("Googlebot")

    s = robotscan.Sites(["robots/"])                 # files, directories, manifests (SPEC 3)
    s.add("https://b.com/robots.txt", body)          # or bodies from memory
    dis, lines, reasons = s.check_many(urls, "Googlebot")

    job = robotscan.urls("urls.txt.zst", robots=["robots/"], agents=["Googlebot"], jobs=2)
    for rec in job: ...                              # UrlRecord(input_line, url, origin, agent,
    job.stats, job.totals                            #   verdict, line, rule, reason), input order
    robotscan.logs("access.log.gz", robots=["robots.txt"], host="a.com")   # LogRecord(...)

Agents are product tokens ("Googlebot"), compared whole and case-insensitively
with each group's token, as the reference does: a full User-Agent header given
as an agent ("Mozilla/5.0 (compatible; Googlebot/2.1)") is named by no group and
gets the `*` rules, so it raises an AgentWarning (as the CLI warns);
user_agent_token() reduces a header to its token. For Scrapy, see
robotscan.scrapy; for code written against Protego or urllib.robotparser, see
robotscan.compat.
"""
import datetime
import re
import threading
import warnings
from array import array
from collections import namedtuple
from ctypes import byref, c_char_p, c_double, c_void_p, create_string_buffer
from itertools import accumulate

from . import _lib
from ._lib import REASONS, RobotscanError, lib
from .bulk import BulkJob, Totals, UrlRecord, logs, parse_size, urls

__all__ = ["Robots", "Sites", "RobotscanError", "check", "encode_url", "user_agent_token",
           "Verdict", "RequestRate", "VisitTime", "AgentWarning", "REASONS", "__version__",
           "library_path", "urls", "logs", "BulkJob", "UrlRecord", "Totals", "parse_size"]


class Verdict(namedtuple("Verdict", "verdict line rule reason")):
    """The record of one decision, the same from Robots.check, Sites.check and
    robotscan.check (and the columns of `robotscan urls`):
      verdict  "allow" or "disallow" (Sites: None when no source knows the origin or the
               URL has none);
      line     the reported line (SPEC 2.4.19), 0 when none;
      rule     the rule on that line as the CLI prints it ("disallow: /search"), or "";
      reason   one of robotscan.REASONS: "matched" (a rule line decided), "no-match"
               (allowed, no rule line), "unavailable", "unreachable", "no-robots"."""
    __slots__ = ()


RequestRate = namedtuple("RequestRate", "requests seconds")
RequestRate.__doc__ = """A Request-rate: at most @requests requests per @seconds (int when whole,
else float), as urllib.robotparser's RequestRate."""

VisitTime = namedtuple("VisitTime", "start_time end_time")
VisitTime.__doc__ = """A Visit-time window: datetime.time values (UTC), as Protego's VisitTime."""


class AgentWarning(UserWarning):
    """An agent given where a product token is expected is not one (e.g. a whole
    User-Agent header): no group can name it, so only the `*` groups apply."""


# Product tokens of browsers and engines that a User-Agent header carries besides the
# crawler's own (skipped when suggesting the token a header probably meant).
_GENERIC_PRODUCTS = frozenset(s.lower() for s in (
    "Mozilla", "AppleWebKit", "KHTML", "Gecko", "Chrome", "Safari", "Mobile", "Version",
    "Firefox", "Edg", "Edge", "OPR", "Opera", "Trident", "MSIE", "Windows", "Linux", "Android",
    "Macintosh", "Intel", "like", "compatible", "X", "U", "CPU", "iPhone", "Nexus", "Build", "http",
    "https", "www", "Win", "WOW", "NT", "x"))


def _suggest(agent, names=()):
    """The token a non-token agent probably meant: a name of the file that occurs in it,
    else its first word that looks like a crawler's (bot, crawl, spider, ...; browser and
    engine products skipped), else its first product token."""
    tok = user_agent_token(agent, names)
    if any(tok.lower() == _bytes(n).decode("utf-8", "replace").lower() for n in names):
        return tok
    text = _bytes(agent).decode("utf-8", "replace")
    for m in re.finditer(r"([A-Za-z_-]+)(?:/|\b)", text):
        w = m.group(1)
        if w.lower() not in _GENERIC_PRODUCTS and len(w) > 1 and re.search(
                r"bot|crawl|spider|slurp|fetch|scan|archiv|agent", w, re.I):
            return w
    return tok


def _check_agent(a, names=(), stacklevel=3):
    """Warns (AgentWarning) when the bytes @a are not a product token ([A-Za-z_-]+)."""
    n = lib.rs_agent_token(a, len(a))
    if n == len(a) and n > 0:
        return
    shown = a.decode("utf-8", "replace")
    hint = _suggest(a, names) if a.strip() else ""
    if b" " in a.strip() and hint:
        msg = ("agent %r looks like a User-Agent header, not a product token: no group can name "
               "it, so only '*' groups apply; did you mean %r?" % (shown, hint))
    elif hint:
        msg = ("agent %r is not a product token: no group can name it, so only '*' groups apply; "
               "did you mean %r?" % (shown, hint))
    else:
        msg = ("agent %r is not a product token ([A-Za-z_-]+): no group can name it, so only "
               "'*' groups apply" % shown)
    warnings.warn(msg, AgentWarning, stacklevel=stacklevel + 1)


def _reason(disallowed, line):
    return "matched" if line > 0 else "no-match"


__version__ = lib.rs_version_string().decode()
library_path = _lib.path

_SIZE_T = "Q" if array("Q").itemsize == 8 else "L"
assert array(_SIZE_T).itemsize == __import__("ctypes").sizeof(__import__("ctypes").c_size_t)


def _bytes(s, what="value"):
    """str (UTF-8; lone surrogates from decoded bytes map back) or bytes-like -> bytes."""
    if isinstance(s, bytes):
        return s
    if isinstance(s, str):
        return s.encode("utf-8", "surrogateescape")
    if s is None:
        return b""
    if isinstance(s, (bytearray, memoryview)):
        return bytes(s)
    raise TypeError("%s must be str or bytes, not %s" % (what, type(s).__name__))


def _layout(urls):
    """URLs -> (joined bytes, array of end offsets) for the C batch calls."""
    if not isinstance(urls, (list, tuple)):
        urls = list(urls)
    try:
        joined = "".join(urls)          # the common case: ASCII str URLs, no per-URL encode
        if joined.isascii():
            return joined.encode("ascii"), array(_SIZE_T, accumulate(map(len, urls)))
    except TypeError:
        pass
    bs = [u if isinstance(u, bytes) else _bytes(u, "url") for u in urls]
    return b"".join(bs), array(_SIZE_T, accumulate(map(len, bs)))


def _addr(a):
    return a.buffer_info()[0]


def _raise(st, message=""):
    if st != _lib.RS_OK:
        raise RobotscanError(st, message)


def encode_url(url):
    """Percent-encodes bytes >= 0x80 and upper-cases %xx escapes, as robots.txt patterns
    are (`--encode-urls`): a raw "/wiki/Käyttäjä:" becomes "/wiki/K%C3%A4ytt%C3%A4j%C3%A4:".
    Returns the type it was given (str or bytes)."""
    b = _bytes(url, "url")
    out = create_string_buffer(3 * len(b) + 1)
    n = lib.rs_url_encode_path(b, len(b), out, len(out))
    r = out.raw[:n]
    return r.decode("ascii") if isinstance(url, str) else r


def _rule_text(rtype, pattern):
    if rtype == _lib.RS_RULE_ALLOW:
        return "allow: " + pattern
    if rtype == _lib.RS_RULE_DISALLOW:
        return "disallow: " + pattern
    return ""


def check(body, url, agent, encode_urls=False):
    """One call: body (bytes/str), URL, agent token -> Verdict(verdict, line, rule, reason),
    e.g. ("disallow", 2, "disallow: /private", "matched") or ("allow", 0, "", "no-match").
    Re-parses the body each call; use Robots to answer many URLs. An agent that is not a
    product token raises an AgentWarning."""
    b, u, a = _bytes(body, "body"), _bytes(url, "url"), _bytes(agent, "agent")
    _check_agent(a, stacklevel=2)
    res = _lib.RsCheckResult()
    rule = create_string_buffer(4096)
    _raise(lib.rs_check(b, len(b), a, len(a), u, len(u),
                        _lib.RS_CHECK_ENCODE_URL if encode_urls else 0, byref(res), rule, len(rule)))
    if res.rule_len >= len(rule):  # a very long pattern: ask again with room for it
        rule = create_string_buffer(res.rule_len + 1)
        _raise(lib.rs_check(b, len(b), a, len(a), u, len(u),
                            _lib.RS_CHECK_ENCODE_URL if encode_urls else 0, byref(res), rule,
                            len(rule)))
    return Verdict("disallow" if res.disallowed else "allow", res.line,
                   _rule_text(res.rule_type, rule.value.decode("utf-8", "replace")),
                   _reason(res.disallowed, res.line))


# Word bytes around a token in a User-Agent string (as rs_bot_identify reads them).
_BEFORE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./-")
_AFTER = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


def user_agent_token(user_agent, names=()):
    """Reduces a User-Agent header to the product token robots.txt groups know the
    crawler by. Among @names (the tokens a robots.txt names, e.g. Robots.tokens()), the
    longest that occurs in the header as a word (case-insensitively; earliest on ties)
    wins, so "Mozilla/5.0 (compatible; Googlebot/2.1; ...)" gives "Googlebot"; failing
    that, a name followed by "-" or "_" ("Googlebot-Image/1.0" follows a "Googlebot"
    group, as Google's crawlers do); failing that, the header's first product token
    (its leading run of [A-Za-z_-], "Scrapy" for "Scrapy/2.8 (+https://scrapy.org)").
    Returns str."""
    ua = _bytes(user_agent, "user_agent")
    low = ua.lower()
    best = weak = None
    for name in names:
        nb = _bytes(name, "name")
        n = nb.lower()
        if not n:
            continue
        i = low.find(n)
        while i >= 0:
            if i == 0 or low[i - 1] not in _BEFORE:
                end = i + len(n)
                if end == len(low) or low[end] not in _AFTER:
                    if best is None or len(n) > len(best[1]) or (len(n) == len(best[1]) and i < best[0]):
                        best = (i, nb)
                    break
                if low[end] in b"-_" and (weak is None or len(n) > len(weak[1])):
                    weak = (i, nb)
            i = low.find(n, i + 1)
    if best is None:
        best = weak
    if best is not None:
        return best[1].decode("utf-8", "replace")
    s = ua.strip()
    n = lib.rs_agent_token(s, len(s))
    return s[:n].decode("ascii")


class Robots:
    """One robots.txt body, parsed once; compiled per agent on first use (cached).

    @body: bytes or str (None or b"" = an empty file: everything allowed). Any bytes
    are accepted: what is not a robots.txt line is ignored, as by the reference.
    @encode_urls: percent-encode non-ASCII bytes (and upper-case %xx) of each URL's
    path before matching, as patterns are (the CLI's --encode-urls); off by default,
    as in the reference. Instances are safe to share between threads.
    """

    def __init__(self, body, encode_urls=False):
        b = _bytes(body, "body")
        rs = c_void_p()
        _raise(lib.rs_ruleset_parse(b, len(b), byref(rs)))
        self._rs = rs
        self._matchers = {}
        self._lock = threading.Lock()
        self._flags = _lib.RS_CHECK_ENCODE_URL if encode_urls else 0
        self._free_rs = lib.rs_ruleset_free
        self._free_m = lib.rs_matcher_free
        self._checked = set()
        self._quiet = False      # set by wrappers that reduce agents to tokens themselves

    def close(self):
        """Frees the C objects now (also done when the object is collected)."""
        with self._lock:
            for m in self._matchers.values():
                self._free_m(m)
            self._matchers.clear()
            if self._rs:
                self._free_rs(self._rs)
                self._rs = None

    def __del__(self):
        if getattr(self, "_lock", None) is not None:
            self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _agent(self, agent, depth=1):
        """@agent -> bytes; warns once per agent when it is not a product token (@depth:
        frames between this call and the public method, for the warning's location)."""
        a = _bytes(agent, "agent")
        if not self._quiet and a not in self._checked:
            if len(self._checked) > 4096:
                self._checked.clear()
            self._checked.add(a)
            names = self.tokens() if self._rs else ()
            _check_agent(a, names, stacklevel=2 + depth)
        return a

    def _matcher(self, a):
        m = self._matchers.get(a)
        if m is not None:
            return m
        with self._lock:
            m = self._matchers.get(a)
            if m is None:
                if not self._rs:
                    raise ValueError("Robots object is closed")
                m = c_void_p()
                _raise(lib.rs_matcher_create(self._rs, a, len(a), 0, byref(m)))
                self._matchers[a] = m
            return m

    def _verdict(self, url, agent):
        u = _bytes(url, "url")
        v = _lib.RsVerdict()
        m = self._matcher(self._agent(agent, 2))
        _raise(lib.rs_matcher_check_url(m, u, len(u), self._flags, byref(v)))
        return m, v

    def allowed(self, url, agent):
        """True if @agent (a product token) may fetch @url (str or bytes)."""
        return not self._verdict(url, agent)[1].disallowed

    def check(self, url, agent):
        """Verdict(verdict, line, rule, reason): "allow"|"disallow", the reported line or 0,
        the rule on that line as the CLI prints it ("disallow: /search") or "", and
        "matched" (a rule line decided) or "no-match" (allowed by no rule line)."""
        m, v = self._verdict(url, agent)
        rule = ""
        if v.rule >= 0:
            info = _lib.RsRuleInfo()
            _raise(lib.rs_matcher_rule(m, v.rule, byref(info)))
            rule = _rule_text(info.type, info.pattern.bytes().decode("utf-8", "replace"))
        return Verdict("disallow" if v.disallowed else "allow", v.line, rule,
                       _reason(v.disallowed, v.line))

    def check_many(self, urls, agent):
        """Decides a list of URLs in one C call.
        Returns (disallowed, lines): array('b') of 1/0 and array('I') of reported lines."""
        buf, ends = _layout(urls)
        n = len(ends)
        dis = array("b", bytes(n))
        lines = array("I", bytes(4 * n))
        m = self._matcher(self._agent(agent))
        if n:
            _raise(lib.rs_matcher_check_urls(m, buf, _addr(ends), n, self._flags,
                                             _addr(dis), _addr(lines)))
        return dis, lines

    def allowed_many(self, urls, agent):
        """[bool, ...] for a list of URLs (one C call)."""
        return [not d for d in self.check_many(urls, agent)[0]]

    def _ruleset(self):
        if not self._rs:
            raise ValueError("Robots object is closed")
        return self._rs

    def crawl_delay(self, agent):
        """The Crawl-delay of the groups that apply to @agent, in seconds (float), or None.
        The first crawl-delay line of those groups whose value is a plain decimal
        ("10", "0.5") counts, as `robotscan survey` reads it; others are skipped."""
        a = self._agent(agent)
        d = c_double()
        if not lib.rs_ruleset_crawl_delay(self._ruleset(), a, len(a), byref(d), None):
            return None
        return d.value

    def _request_rate(self, a):
        r = _lib.RsRequestRate()
        if not lib.rs_ruleset_request_rate(self._ruleset(), a, len(a), byref(r)):
            return None
        return r

    def request_rate(self, agent):
        """The Request-rate of the groups that apply to @agent as RequestRate(requests,
        seconds), or None. Values read: N/S with an optional unit s, m, h or d after S
        ("1/5", "10/1m" = 10 per 60 s) and an optional window "0600-0845"; the first line
        that reads counts. seconds is an int when whole."""
        r = self._request_rate(self._agent(agent))
        if r is None:
            return None
        return RequestRate(r.requests, _num(r.seconds))

    def visit_time(self, agent):
        """The Visit-time of the groups that apply to @agent ("0600-0845", UTC) as
        VisitTime(start_time, end_time) of datetime.time, or None."""
        a = self._agent(agent)
        t = _lib.RsVisitTime()
        if not lib.rs_ruleset_visit_time(self._ruleset(), a, len(a), byref(t)):
            return None
        return VisitTime(_clock(t.start), _clock(t.end))

    @property
    def sitemaps(self):
        """The Sitemap: URLs in file order, as written (str; duplicates kept)."""
        rs = self._ruleset()
        n = lib.rs_ruleset_sitemaps(rs, None, 0)
        if n == 0:
            return []
        out = (_lib.RsSitemapEntry * n)()
        lib.rs_ruleset_sitemaps(rs, out, n)
        return [e.url.bytes().decode("utf-8", "surrogateescape") for e in out]

    @property
    def host(self):
        """Yandex's preferred host: the value of the first Host: line (str), or None."""
        v = _lib.RsStr()
        if not lib.rs_ruleset_host(self._ruleset(), byref(v), None):
            return None
        return v.bytes().decode("utf-8", "surrogateescape")

    def tokens(self):
        """The product tokens the user-agent lines name (not "*"), in file order, each once."""
        n = lib.rs_ruleset_tokens(self._rs, None, 0)
        if n == 0:
            return []
        out = (_lib.RsStr * n)()
        lib.rs_ruleset_tokens(self._rs, out, n)
        return [s.bytes().decode("utf-8", "replace") for s in out]


def _num(x):
    return int(x) if x == int(x) and abs(x) < 2 ** 53 else x


def _clock(minutes):
    return datetime.time(minutes // 60, minutes % 60) if minutes >= 0 else None


class Sites:
    """Many sites' robots.txt: path sources (a file for every URL, a directory of
    HOST[.txt] files, a *.tsv manifest of fetch outcomes; the first that knows an origin
    wins) and bodies given from memory with add(), which take precedence. Each body is
    parsed once and compiled once per agent. check_many() is safe from many threads;
    add() must not run concurrently with other calls."""

    def __init__(self, sources=(), bodies=None, encode_urls=False):
        handle = c_void_p()
        paths = [_bytes(str(p) if not isinstance(p, (str, bytes)) else p, "source")
                 for p in sources]
        if paths:
            st = lib.rs_sites_create((c_char_p * len(paths))(*paths), len(paths), byref(handle))
        else:
            st = lib.rs_sites_create_empty(byref(handle))
        if st != _lib.RS_OK:
            msg = lib.rs_sites_errmsg(handle).decode("utf-8", "replace") if handle else ""
            lib.rs_sites_free(handle)
            raise RobotscanError(st, msg)
        self._s = handle
        self._flags = _lib.RS_CHECK_ENCODE_URL if encode_urls else 0
        self._free = lib.rs_sites_free
        for url, body in (bodies or {}).items():
            self.add(url, body)

    def close(self):
        if self._s:
            self._free(self._s)
            self._s = None

    def __del__(self):
        if getattr(self, "_s", None):
            self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _err(self, st):
        if st != _lib.RS_OK:
            raise RobotscanError(st, lib.rs_sites_errmsg(self._s).decode("utf-8", "replace"))

    def add(self, url, body, status=200):
        """Gives the robots.txt of @url's origin (e.g. "https://a.com/robots.txt") from
        memory. @status is the fetch's HTTP status: 2xx the rules apply, 3xx/4xx allow all,
        5xx or 0 (the fetch failed) disallow all. A later add() for the origin replaces it."""
        u, b = _bytes(url, "url"), _bytes(body, "body")
        self._err(lib.rs_sites_add_body(self._s, u, len(u), status, b, len(b)))

    def check_many(self, urls, agent):
        """Decides a list of URLs, each under its own origin's robots.txt, in one C call.
        Returns (disallowed, lines, reasons): array('b') of 1 (disallow), 0 (allow),
        -1 (no source knows the origin) or -2 (the URL has no origin); array('I') of
        reported lines; array('B') of indexes into robotscan.REASONS."""
        a = _bytes(agent, "agent")
        _check_agent(a, stacklevel=2)
        buf, ends = _layout(urls)
        n = len(ends)
        dis = array("b", bytes(n))
        lines = array("I", bytes(4 * n))
        reasons = array("B", bytes(n))
        if n:
            self._err(lib.rs_sites_check_urls(self._s, a, len(a), buf, _addr(ends), n, self._flags,
                                              _addr(dis), _addr(lines), _addr(reasons)))
        return dis, lines, reasons

    def check(self, url, agent):
        """Verdict(verdict, line, rule, reason) for one URL, the record Robots.check gives:
        verdict "allow", "disallow", or None when no source knows the origin (reason
        "no-robots") or the URL has none (reason "no-robots", line 0); rule the deciding
        rule as the CLI prints it, or ""; reason one of robotscan.REASONS."""
        a = _bytes(agent, "agent")
        _check_agent(a, stacklevel=2)
        u = _bytes(url, "url")
        out = _lib.RsSiteVerdict()
        self._err(lib.rs_site_check(self._s, u, len(u), a, len(a), 0,
                                    1 if self._flags & _lib.RS_CHECK_ENCODE_URL else 0, byref(out)))
        if out.malformed:
            return Verdict(None, 0, "", "no-robots")
        reason = REASONS[out.reason]
        if reason == "no-robots":
            return Verdict(None, 0, "", reason)
        v = out.verdict
        rule = ""
        if v.rule >= 0:
            rule = _rule_text(out.rule.type, out.rule.pattern.bytes().decode("utf-8", "replace"))
        return Verdict("disallow" if v.disallowed else "allow", v.line, rule, reason)

    def allowed(self, url, agent, missing=True):
        """True if @agent may fetch @url; @missing is the answer for origins no source knows
        and for URLs without an origin."""
        d = self.check_many([url], agent)[0][0]
        return missing if d < 0 else not d
