"""Drop-ins for code written against Protego and urllib.robotparser, with Google's
semantics (RFC 9309 as the reference parser implements it) underneath.

    from robotscan.compat import Protego              # was: from protego import Protego
    rp = Protego.parse(text)
    rp.can_fetch("https://a.com/x", "mybot"); rp.crawl_delay("mybot"); list(rp.sitemaps)

    from robotscan.compat import RobotFileParser      # was: from urllib.robotparser import ...
    rp = RobotFileParser("https://a.com/robots.txt")
    rp.read()                                         # RFC 9309 status rules (see read())
    rp.can_fetch("mybot", "https://a.com/x")

What changes for both, and why (each is what Google's parser and RFC 9309 do):
  - Precedence: the longest matching pattern wins, allow winning ties; `*` and a final
    `$` are wildcards; patterns not starting with `/` or `*` match nothing (Protego and
    urllib prepend a `/`; urllib takes the first matching line of the file instead).
  - Paths are matched as given, after non-ASCII bytes are percent-encoded and %xx
    escapes upper-cased, as patterns are. Protego and urllib unquote and re-quote the
    URL first, so for them `/a%3Cb` equals `/a<b` and `$`, `<` may be re-encoded;
    here `/a%3Cb` and `/a<b` are different paths, as for Google.
  - Agents: a group names a crawler when its product token (the leading [A-Za-z_-]
    run of the user-agent line) equals the crawler's token, case-insensitively; the
    groups naming it are merged, else the `*` groups apply. Protego and urllib match
    the 1996 way, by substring ("bot" in "mybot"; urllib also takes the first group
    that matches). A full User-Agent header given as the agent is reduced to the token
    of a group of this file that occurs in it as a word ("Mozilla/5.0 (compatible;
    Googlebot/2.1)" -> "Googlebot"), else to its first product token (as
    robotscan.scrapy does); the reduction is documented here, so it does not warn.
  - Crawl-delay, Request-rate, Visit-time: the first value that reads among the
    groups that apply (Protego keeps the last). Host: the first Host: line (Yandex
    reads the first; Protego keeps the last).
"""
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import namedtuple

from . import RequestRate, Robots, VisitTime, user_agent_token

__all__ = ["Protego", "RobotFileParser", "RequestRate", "VisitTime", "ProtegoRequestRate"]

# Protego's shape of a request rate (protego.RequestRate).
ProtegoRequestRate = namedtuple("RequestRate", ["requests", "seconds", "start_time", "end_time"])


class _Tokens:
    """Full User-Agent strings -> the product token this file's groups know (cached)."""

    def __init__(self, robots):
        robots._quiet = True     # agents are reduced to tokens here, as documented
        self._names = robots.tokens()
        self._cache = {}

    def __call__(self, user_agent):
        t = self._cache.get(user_agent)
        if t is None:
            if len(self._cache) > 1024:
                self._cache.clear()
            t = user_agent_token(user_agent if user_agent is not None else "", self._names)
            if not t:
                t = "*"        # no token at all: only the `*` groups can apply
            self._cache[user_agent] = t
        return t


class Protego:
    """protego.Protego's interface over robotscan.Robots.

    Same calls and return types: parse(content) (str or bytes), can_fetch(url,
    user_agent) -> bool, crawl_delay(user_agent) -> float or None,
    request_rate(user_agent) -> RequestRate(requests, seconds, start_time, end_time) or
    None, visit_time(user_agent) -> VisitTime(start_time, end_time) or None, .sitemaps
    (an iterator over the Sitemap: URLs, as written, in file order) and .preferred_host.
    Differences from Protego (see the module's docstring for why):
      - verdicts follow Google's parser: longest match, `$` and `<` in paths are not
        re-encoded, patterns without a leading `/` or `*` match nothing, Allow/Disallow
        lines with an empty value are kept (an empty Disallow allows);
      - agents are matched by product token, not substring; a whole User-Agent header is
        reduced to its token;
      - request rates read "N/S" with an optional unit (s, m, h, d) and window
        ("1/5" is 1 per 5 s; Protego requires the unit); crawl delays read plain decimals
        only (Protego also takes "1e3", "inf"); the first value of the groups that apply
        counts (Protego keeps the last), and the first Host: line (Protego: the last).
    """

    def __init__(self, robots=None):
        self._robots = robots if robots is not None else Robots(b"", encode_urls=True)
        self._token = _Tokens(self._robots)

    @classmethod
    def parse(cls, content):
        """Parses a robots.txt (str or bytes; None reads as empty) into a new instance."""
        return cls(Robots(content if content is not None else b"", encode_urls=True))

    def can_fetch(self, url, user_agent):
        """True if the crawler named by @user_agent may fetch @url."""
        return self._robots.allowed(url, self._token(user_agent))

    def crawl_delay(self, user_agent):
        """The crawl delay for @user_agent in seconds (float), or None."""
        return self._robots.crawl_delay(self._token(user_agent))

    def request_rate(self, user_agent):
        """RequestRate(requests, seconds, start_time, end_time) for @user_agent, or None;
        start_time and end_time are datetime.time (UTC) or None."""
        r = self._robots._request_rate(self._robots._agent(self._token(user_agent)))
        if r is None:
            return None
        from . import _clock, _num
        return ProtegoRequestRate(r.requests, _num(r.seconds), _clock(r.start), _clock(r.end))

    def visit_time(self, user_agent):
        """VisitTime(start_time, end_time) (datetime.time, UTC) for @user_agent, or None."""
        return self._robots.visit_time(self._token(user_agent))

    @property
    def sitemaps(self):
        """An iterator over the Sitemap: URLs in file order, as written."""
        return iter(self._robots.sitemaps)

    @property
    def preferred_host(self):
        """The value of the first Host: line, or None."""
        return self._robots.host


class _FiveRedirects(urllib.request.HTTPRedirectHandler):
    # RFC 9309 2.3.1.2: follow at least five consecutive redirects; past five, the
    # robots.txt may be taken as unavailable (urllib then raises HTTPError 3xx).
    max_redirections = 5


class RobotFileParser:
    """urllib.robotparser.RobotFileParser's interface over robotscan.Robots.

    Same calls: RobotFileParser(url=""), set_url(url), read(), parse(lines),
    can_fetch(useragent, url), mtime(), modified(), crawl_delay(useragent),
    request_rate(useragent) -> RequestRate(requests, seconds), site_maps() -> list or
    None; attributes url, host, path, disallow_all, allow_all, last_checked.
    Differences from the standard library (see the module's docstring for why):
      - read() applies RFC 9309's status rules instead of "401/403: disallow all":
        2xx: the rules apply; 4xx (401 and 403 included), and more than 5 redirects:
        allow all; 5xx and network errors (refused, timeout, DNS): disallow all
        (urllib raises on network errors and allows everything on 5xx). The body is
        read as bytes (at most 500 KiB count), never decoded, so a body that is not
        UTF-8 does not raise;
      - verdicts follow Google's parser: longest match instead of the first matching
        line, `*` and `$` wildcards, the `*` groups merged, no unquoting of the URL;
      - agents are matched by product token (see the module); urllib compares the
        agent's part before "/" as a substring;
      - crawl_delay returns an int for whole values and a float otherwise ("0.5"; urllib
        ignores non-integer delays); request_rate also reads units and windows
        ("10/1m" -> RequestRate(10, 60)).
    As in urllib, can_fetch answers False and the others None until read() or parse()
    has run. Set the attribute timeout (seconds; None: the socket default) to bound
    read(); a fetch that times out is a network error (disallow all).
    """

    #: bytes of a robots.txt read() keeps (the crawler's limit, SPEC 2.1.4)
    max_bytes = 512000

    def __init__(self, url=""):
        self.disallow_all = False
        self.allow_all = False
        self.last_checked = 0
        self._robots = None
        self._token = None
        self.timeout = None
        self.set_url(url)

    def mtime(self):
        """When the robots.txt was last fetched or parsed (time.time()), 0 if never."""
        return self.last_checked

    def modified(self):
        """Sets the time the robots.txt was last fetched to now."""
        self.last_checked = time.time()

    def set_url(self, url):
        """Sets the URL of the robots.txt to read()."""
        self.url = url
        self.host, self.path = urllib.parse.urlparse(url)[1:3]

    def read(self):
        """Fetches the robots.txt at self.url (urllib.request) and applies RFC 9309's
        status rules: 2xx parses the body; 4xx and a redirect chain longer than 5 allow
        everything; 5xx and network failures disallow everything."""
        opener = urllib.request.build_opener(_FiveRedirects())
        self._set_rules(None)
        try:
            with opener.open(self.url, timeout=self.timeout) as f:
                raw = f.read(self.max_bytes)
                status = getattr(f, "status", None) or f.getcode() or 200
        except urllib.error.HTTPError as err:
            err.close()
            if 500 <= err.code:
                self.disallow_all = True
            else:                 # 3xx left over (too many redirects, no Location), 4xx
                self.allow_all = True
            self.modified()
            return
        except (urllib.error.URLError, OSError, ValueError) as err:
            if isinstance(err, ValueError) and not isinstance(err, UnicodeError):
                raise             # not a URL at all: a caller's error, as in urllib
            self.disallow_all = True
            self.modified()
            return
        except Exception:          # http.client.HTTPException and the like: unreachable
            self.disallow_all = True
            self.modified()
            return
        if 200 <= status < 300:
            self._parse_bytes(raw)
        elif 300 <= status < 500:
            self.allow_all = True
            self.modified()
        else:
            self.disallow_all = True
            self.modified()

    def _set_rules(self, robots):
        self._robots = robots
        self._token = _Tokens(robots) if robots is not None else None
        self.disallow_all = False
        self.allow_all = False

    def _parse_bytes(self, body):
        self._set_rules(Robots(body, encode_urls=True))
        self.modified()

    def parse(self, lines):
        """Parses the lines of a robots.txt (an iterable of str or bytes lines, without
        or with their line ends; a single str or bytes is read as the whole file)."""
        if isinstance(lines, (str, bytes, bytearray)):
            body = lines
        else:
            parts = []
            for line in lines:
                if isinstance(line, (bytes, bytearray)):
                    line = bytes(line).decode("utf-8", "surrogateescape")
                parts.append(line.rstrip("\r\n"))
            body = "\n".join(parts)
        self._parse_bytes(body)

    def can_fetch(self, useragent, url):
        """True if the crawler named by @useragent may fetch @url."""
        if self.disallow_all:
            return False
        if self.allow_all:
            return True
        if not self.last_checked or self._robots is None:
            return False
        return self._robots.allowed(url, self._token(useragent))

    def crawl_delay(self, useragent):
        """The Crawl-delay for @useragent (int when whole, else float), or None."""
        if not self.mtime() or self._robots is None:
            return None
        d = self._robots.crawl_delay(self._token(useragent))
        if d is None:
            return None
        return int(d) if d == int(d) else d

    def request_rate(self, useragent):
        """RequestRate(requests, seconds) for @useragent, or None."""
        if not self.mtime() or self._robots is None:
            return None
        return self._robots.request_rate(self._token(useragent))

    def site_maps(self):
        """The Sitemap: URLs in file order, or None when there are none."""
        if self._robots is None:
            return None
        return self._robots.sitemaps or None

    def __str__(self):
        return "<robotscan.compat.RobotFileParser %s>" % (self.url or "(no url)")
