"""robotscan: may this crawler fetch this URL? robots.txt verdicts exactly as
Google's reference parser (RFC 9309), from Python, over librobotscan.so (ctypes,
standard library only).

    import robotscan
    r = robotscan.Robots(body)                       # bytes or str, parsed once
    r.allowed("https://a.com/x", "Googlebot")        # -> bool
    r.check("https://a.com/x", "Googlebot")          # -> ("disallow", 3, "disallow: /x")
    dis, lines = r.check_many(urls, "Googlebot")     # -> array('b'), array('I')

    s = robotscan.Sites(["robots/"])                 # files, directories, manifests (SPEC 3)
    s.add("https://b.com/robots.txt", body)          # or bodies from memory
    dis, lines, reasons = s.check_many(urls, "Googlebot")

Agents are product tokens ("Googlebot"), compared whole and case-insensitively
with each group's token, as the reference does; user_agent_token() reduces a
full User-Agent header to one. For Scrapy, see robotscan.scrapy.
"""
import threading
from array import array
from ctypes import byref, c_char_p, c_void_p, create_string_buffer
from itertools import accumulate

from . import _lib
from ._lib import REASONS, RobotscanError, lib

__all__ = ["Robots", "Sites", "RobotscanError", "check", "encode_url", "user_agent_token",
           "REASONS", "__version__", "library_path"]

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
    """One call: body (bytes/str), URL, agent token -> (verdict, line, rule), e.g.
    ("disallow", 2, "disallow: /private") or ("allow", 0, ""). Re-parses the body each
    call; use Robots to answer many URLs."""
    b, u, a = _bytes(body, "body"), _bytes(url, "url"), _bytes(agent, "agent")
    res = _lib.RsCheckResult()
    rule = create_string_buffer(4096)
    _raise(lib.rs_check(b, len(b), a, len(a), u, len(u),
                        _lib.RS_CHECK_ENCODE_URL if encode_urls else 0, byref(res), rule, len(rule)))
    if res.rule_len >= len(rule):  # a very long pattern: ask again with room for it
        rule = create_string_buffer(res.rule_len + 1)
        _raise(lib.rs_check(b, len(b), a, len(a), u, len(u),
                            _lib.RS_CHECK_ENCODE_URL if encode_urls else 0, byref(res), rule,
                            len(rule)))
    return ("disallow" if res.disallowed else "allow", res.line,
            _rule_text(res.rule_type, rule.value.decode("utf-8", "replace")))


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

    def _matcher(self, agent):
        a = _bytes(agent, "agent")
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
        m = self._matcher(agent)
        _raise(lib.rs_matcher_check_url(m, u, len(u), self._flags, byref(v)))
        return m, v

    def allowed(self, url, agent):
        """True if @agent (a product token) may fetch @url (str or bytes)."""
        return not self._verdict(url, agent)[1].disallowed

    def check(self, url, agent):
        """(verdict, line, rule): ("allow"|"disallow", the reported line or 0, the rule on
        that line as the CLI prints it, e.g. "disallow: /search", or "")."""
        m, v = self._verdict(url, agent)
        rule = ""
        if v.rule >= 0:
            info = _lib.RsRuleInfo()
            _raise(lib.rs_matcher_rule(m, v.rule, byref(info)))
            rule = _rule_text(info.type, info.pattern.bytes().decode("utf-8", "replace"))
        return ("disallow" if v.disallowed else "allow", v.line, rule)

    def check_many(self, urls, agent):
        """Decides a list of URLs in one C call.
        Returns (disallowed, lines): array('b') of 1/0 and array('I') of reported lines."""
        buf, ends = _layout(urls)
        n = len(ends)
        dis = array("b", bytes(n))
        lines = array("I", bytes(4 * n))
        if n:
            _raise(lib.rs_matcher_check_urls(self._matcher(agent), buf, _addr(ends), n, self._flags,
                                             _addr(dis), _addr(lines)))
        return dis, lines

    def allowed_many(self, urls, agent):
        """[bool, ...] for a list of URLs (one C call)."""
        return [not d for d in self.check_many(urls, agent)[0]]

    def crawl_delay(self, agent):
        """The Crawl-delay of the groups that apply to @agent, in seconds (float), or None
        when there is none or it is not a non-negative number."""
        a = _bytes(agent, "agent")
        val = _lib.RsStr()
        if not self._rs or not lib.rs_ruleset_group_value(self._rs, a, len(a), b"crawl-delay",
                                                          byref(val)):
            return None
        try:
            d = float(val.bytes().decode("ascii").strip())
        except (UnicodeDecodeError, ValueError):
            return None
        return d if d >= 0 and d == d and d != float("inf") else None

    def tokens(self):
        """The product tokens the user-agent lines name (not "*"), in file order, each once."""
        n = lib.rs_ruleset_tokens(self._rs, None, 0)
        if n == 0:
            return []
        out = (_lib.RsStr * n)()
        lib.rs_ruleset_tokens(self._rs, out, n)
        return [s.bytes().decode("utf-8", "replace") for s in out]


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
        """(verdict, line, reason) for one URL: verdict "allow", "disallow", or None when no
        source knows the origin or the URL has none; reason one of robotscan.REASONS."""
        dis, lines, reasons = self.check_many([url], agent)
        d = dis[0]
        return ({1: "disallow", 0: "allow"}.get(d), lines[0], REASONS[reasons[0]])

    def allowed(self, url, agent, missing=True):
        """True if @agent may fetch @url; @missing is the answer for origins no source knows
        and for URLs without an origin."""
        d = self.check_many([url], agent)[0][0]
        return missing if d < 0 else not d
