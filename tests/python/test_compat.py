"""robotscan.compat: code written for Protego and urllib.robotparser runs against the
drop-ins. The examples of each library's documentation (Protego's README, the
urllib.robotparser page of the Python docs) run as doctests with only the import (and,
for fetches, the robots.txt URL, served by a local http.server on 127.0.0.1) changed;
each is first run against the original library where it is installed, which shows the
example and its fixture are faithful. RobotFileParser.read() is checked against RFC
9309's status rules on the local server.
"""
import doctest
import http.server
import socket
import threading
import urllib.robotparser

import pytest

import robotscan
from robotscan.compat import Protego, RobotFileParser

# ===== A local server: path -> (status, body, headers) =====

ROUTES = {}


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        route = ROUTES.get(self.path)
        if route is None:
            route = (404, b"not found", {})
        status, body, headers = route
        if status == "garbage":
            self.wfile.write(b"THIS IS NOT HTTP\r\n\r\n")
            return
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    yield "http://127.0.0.1:%d" % httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()


def run_doctest(text, name, globs=None):
    test = doctest.DocTestParser().get_doctest(text, dict(globs or {}), name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    out = []
    runner.run(test, out=out.append)
    return runner.summarize(verbose=False), "".join(out)


# ===== Protego's README =====

PROTEGO_README = '''
   >>> from protego import Protego
   >>> robotstxt = """
   ... User-agent: *
   ... Disallow: /
   ... Allow: /about
   ... Allow: /account
   ... Disallow: /account/contact$
   ... Disallow: /account/*/profile
   ... Crawl-delay: 4
   ... Request-rate: 10/1m                 # 10 requests every 1 minute
   ... 
   ... Sitemap: http://example.com/sitemap-index.xml
   ... Host: http://example.co.in
   ... """
   >>> rp = Protego.parse(robotstxt)
   >>> rp.can_fetch("http://example.com/profiles", "mybot")
   False
   >>> rp.can_fetch("http://example.com/about", "mybot")
   True
   >>> rp.can_fetch("http://example.com/account", "mybot")
   True
   >>> rp.can_fetch("http://example.com/account/myuser/profile", "mybot")
   False
   >>> rp.can_fetch("http://example.com/account/contact", "mybot")
   False
   >>> rp.crawl_delay("mybot")
   4.0
   >>> rp.request_rate("mybot")
   RequestRate(requests=10, seconds=60, start_time=None, end_time=None)
   >>> list(rp.sitemaps)
   ['http://example.com/sitemap-index.xml']
   >>> rp.preferred_host
   'http://example.co.in'
'''

PROTEGO_REQUESTS = '''
   >>> from protego import Protego
   >>> import requests
   >>> r = requests.get("https://google.com/robots.txt")
   >>> rp = Protego.parse(r.text)
   >>> rp.can_fetch("https://google.com/search", "mybot")
   False
   >>> rp.can_fetch("https://google.com/search/about", "mybot")
   True
   >>> list(rp.sitemaps)
   ['https://www.google.com/sitemap.xml']
'''

# The start of google.com/robots.txt: enough for the README's answers.
GOOGLE_ROBOTS = (b"User-agent: *\nDisallow: /search\nAllow: /search/about\nAllow: /search/static\n"
                 b"Disallow: /sdch\nDisallow: /groups\n\nUser-agent: AdsBot-Google\nDisallow: /maps/api/js/\n"
                 b"\nSitemap: https://www.google.com/sitemap.xml\n")


def drop_in(text, old, new):
    assert old in text
    return text.replace(old, new)


def test_protego_readme_original():
    pytest.importorskip("protego")
    (failed, attempted), out = run_doctest(PROTEGO_README, "protego-readme")
    assert attempted >= 12 and failed == 0, out


def test_protego_readme_drop_in():
    text = drop_in(PROTEGO_README, "from protego import Protego", "from robotscan.compat import Protego")
    (failed, attempted), out = run_doctest(text, "protego-readme-robotscan")
    assert attempted >= 12 and failed == 0, out


@pytest.mark.parametrize("module", ["protego", "robotscan.compat"])
def test_protego_with_requests(module, server):
    pytest.importorskip("requests")
    if module == "protego":
        pytest.importorskip("protego")
    ROUTES["/google/robots.txt"] = (200, GOOGLE_ROBOTS, {"Content-Type": "text/plain"})
    text = drop_in(PROTEGO_REQUESTS, "https://google.com/robots.txt", server + "/google/robots.txt")
    text = text.replace("from protego import", "from %s import" % module)
    (failed, attempted), out = run_doctest(text, "protego-requests-" + module)
    assert attempted >= 7 and failed == 0, out


def test_protego_extras():
    rp = Protego.parse(b"User-agent: *\nDisallow: /x\nVisit-time: 0600-0845\n"
                       b"Request-rate: 1/10s 2200-0600\nUser-agent: FooBot\nDisallow: /\n")
    assert rp.visit_time("mybot") == robotscan.VisitTime(__import__("datetime").time(6, 0),
                                                         __import__("datetime").time(8, 45))
    rr = rp.request_rate("mybot")
    assert (rr.requests, rr.seconds, rr.start_time.hour, rr.end_time.hour) == (1, 10, 22, 6)
    assert rp.request_rate("FooBot") is None and rp.visit_time("FooBot") is None
    # a whole User-Agent header is reduced to the token of a group it names (no warning)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rp.can_fetch("https://a.com/p", "Mozilla/5.0 (compatible; FooBot/2.1; +http://f.b)") is False
        assert rp.can_fetch("https://a.com/p", "Scrapy/2.8 (+https://scrapy.org)") is True
        assert rp.can_fetch("https://a.com/p", "") is True
    assert Protego.parse(None).can_fetch("/x", "bot") is True
    assert Protego.parse("").preferred_host is None and list(Protego.parse("").sitemaps) == []


# Where Protego departs from Google's reference, the drop-in answers as Google does
# (robotscan.check, which the conformance vectors pin to the reference).
DIFFERENCES = [
    ("User-agent: *\nDisallow: /a%3Cb\n", "http://x/a<b", "bot"),      # no re-quoting of '<'
    ("User-agent: *\nDisallow: /a<b\n", "http://x/a%3Cb", "bot"),
    ("User-agent: *\nDisallow: /a%24b\n", "http://x/a$b", "bot"),      # nor of '$'
    ("User-agent: bot\nDisallow: /\n", "http://x/p", "mybot"),         # token, not substring
    ("User-agent: google\nDisallow: /\n", "http://x/p", "googlebot"),
    ("User-agent: *\nDisallow: fish/\n", "http://x/fish/", "bot"),     # no '/' prepended
]


@pytest.mark.parametrize("body,url,agent", DIFFERENCES)
def test_protego_differences_follow_google(body, url, agent):
    google = robotscan.check(body, url, agent, encode_urls=True).verdict == "allow"
    assert Protego.parse(body).can_fetch(url, agent) is google is True
    try:
        import protego
    except ImportError:
        return
    assert protego.Protego.parse(body).can_fetch(url, agent) is False   # the documented difference


# ===== urllib.robotparser (the Python documentation's example) =====

URLLIB_DOCS = '''
>>> import urllib.robotparser
>>> rp = urllib.robotparser.RobotFileParser()
>>> rp.set_url("http://www.musi-cal.com/robots.txt")
>>> rp.read()
>>> rrate = rp.request_rate("*")
>>> rrate.requests
3
>>> rrate.seconds
20
>>> rp.crawl_delay("*")
6
>>> rp.can_fetch("*", "http://www.musi-cal.com/cgi-bin/search?city=San+Francisco")
False
>>> rp.can_fetch("*", "http://www.musi-cal.com/")
True
'''

MUSICAL_ROBOTS = b"User-agent: *\nCrawl-delay: 6\nRequest-rate: 3/20\nDisallow: /cgi-bin/\n"


@pytest.mark.parametrize("module", ["urllib.robotparser", "robotscan.compat"])
def test_urllib_docs_example(module, server):
    ROUTES["/musi-cal/robots.txt"] = (200, MUSICAL_ROBOTS, {})
    text = drop_in(URLLIB_DOCS, "http://www.musi-cal.com/robots.txt", server + "/musi-cal/robots.txt")
    text = text.replace("urllib.robotparser", module)
    (failed, attempted), out = run_doctest(text, "urllib-docs-" + module)
    assert attempted >= 9 and failed == 0, out


def test_urllib_interface():
    rp = RobotFileParser("https://a.com/robots.txt")
    assert (rp.url, rp.host, rp.path) == ("https://a.com/robots.txt", "a.com", "/robots.txt")
    assert rp.can_fetch("bot", "https://a.com/") is False       # nothing read yet, as urllib
    assert rp.mtime() == 0 and rp.crawl_delay("bot") is None and rp.site_maps() is None
    rp.parse(["User-agent: *", "Disallow: /private", "Allow: /private/ok$", "Crawl-delay: 0.5",
              "Sitemap: https://a.com/s1.xml", "Sitemap: https://a.com/s2.xml"])
    assert rp.mtime() > 0
    assert rp.can_fetch("bot", "https://a.com/private/x") is False
    assert rp.can_fetch("bot", "https://a.com/private/ok") is True      # longest match wins
    assert rp.can_fetch("FooBot/1.0", "https://a.com/private/x") is False
    assert rp.crawl_delay("bot") == 0.5
    assert rp.request_rate("bot") is None
    assert rp.site_maps() == ["https://a.com/s1.xml", "https://a.com/s2.xml"]
    rp.parse(b"User-agent: FooBot\nDisallow: /\nCrawl-delay: 3\n")
    assert rp.can_fetch("FooBot/1.0", "/x") is False and rp.can_fetch("Other", "/x") is True
    assert rp.crawl_delay("FooBot") == 3 and isinstance(rp.crawl_delay("FooBot"), int)
    assert rp.site_maps() is None
    # the stdlib takes the first matching line; Google the longest
    std = urllib.robotparser.RobotFileParser()
    std.parse(["User-agent: *", "Disallow: /", "Allow: /public"])
    rp.parse(["User-agent: *", "Disallow: /", "Allow: /public"])
    assert std.can_fetch("bot", "/public/x") is False and rp.can_fetch("bot", "/public/x") is True


# ===== RobotFileParser.read(): RFC 9309 status rules =====

RULES = b"User-agent: *\nDisallow: /private\n"


def closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def redirect_chain(prefix, n):
    """/PREFIX/0 redirects to /PREFIX/1 ... /PREFIX/n serves RULES: n redirects."""
    for i in range(n):
        ROUTES["/%s/%d" % (prefix, i)] = (301, b"", {"Location": "/%s/%d" % (prefix, i + 1)})
    ROUTES["/%s/%d" % (prefix, n)] = (200, RULES, {})
    return "/%s/0" % prefix


@pytest.mark.parametrize("status,private,public", [
    (200, False, True),       # the rules apply
    (404, True, True),        # 4xx: allow all ...
    (410, True, True),
    (401, True, True),        # ... 401 and 403 too (urllib: disallow all)
    (403, True, True),
    (429, True, True),
    (500, False, False),      # 5xx: disallow all (urllib: allow all)
    (503, False, False),
])
def test_read_status(server, status, private, public):
    ROUTES["/s%d/robots.txt" % status] = (status, RULES, {})
    rp = RobotFileParser(server + "/s%d/robots.txt" % status)
    rp.read()
    assert rp.mtime() > 0
    assert rp.can_fetch("bot", server + "/private/x") is private
    assert rp.can_fetch("bot", server + "/x") is public


def test_read_redirects(server):
    rp = RobotFileParser(server + redirect_chain("five", 5))
    rp.read()                  # 5 redirects are followed: the rules apply
    assert rp.can_fetch("bot", "/private/x") is False and rp.can_fetch("bot", "/x") is True
    rp = RobotFileParser(server + redirect_chain("six", 6))
    rp.read()                  # more than 5: unavailable, allow all
    assert rp.allow_all and rp.can_fetch("bot", "/private/x") is True
    ROUTES["/noloc"] = (302, b"", {})
    rp = RobotFileParser(server + "/noloc")
    rp.read()                  # a redirect that goes nowhere: unavailable
    assert rp.can_fetch("bot", "/private/x") is True


def test_read_network_errors(server):
    rp = RobotFileParser("http://127.0.0.1:%d/robots.txt" % closed_port())
    rp.read()                  # connection refused: unreachable, disallow all
    assert rp.disallow_all and rp.can_fetch("bot", "/x") is False and rp.mtime() > 0
    ROUTES["/garbage"] = ("garbage", b"", {})
    rp = RobotFileParser(server + "/garbage")
    rp.read()                  # not an HTTP response: unreachable
    assert rp.can_fetch("bot", "/x") is False
    # a later successful read replaces the outcome
    ROUTES["/ok"] = (200, RULES, {})
    rp.set_url(server + "/ok")
    rp.read()
    assert not rp.disallow_all and rp.can_fetch("bot", "/x") is True


def test_read_body_not_utf8(server):
    ROUTES["/latin1"] = (200, b"User-agent: *\nDisallow: /caf\xe9\n", {})
    rp = RobotFileParser(server + "/latin1")
    rp.read()                  # urllib raises UnicodeDecodeError here
    assert rp.can_fetch("bot", "/caf%E9") is False and rp.can_fetch("bot", "/x") is True


def test_doctest_runner_catches_wrong_answers():
    """The README check fails when an answer differs (a wrong expectation stands in for
    a wrong answer)."""
    text = drop_in(PROTEGO_README, "from protego import Protego", "from robotscan.compat import Protego")
    wrong = drop_in(text, "   4.0\n", "   5.0\n")
    (failed, _), _ = run_doctest(wrong, "wrong")
    assert failed == 1
    wrong = drop_in(text, "'http://example.co.in'", "'http://example.com'")
    (failed, _), _ = run_doctest(wrong, "wrong")
    assert failed == 1


def test_read_timeout():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(1)                # connects, never answers
    try:
        rp = RobotFileParser("http://127.0.0.1:%d/robots.txt" % s.getsockname()[1])
        rp.timeout = 0.5
        rp.read()              # a timeout is a network error: disallow all
        assert rp.disallow_all and rp.can_fetch("bot", "/x") is False
    finally:
        s.close()
