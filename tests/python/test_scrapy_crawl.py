"""A real crawl: Scrapy runs a spider (in a subprocess) against a local HTTP server on
127.0.0.1 that serves a robots.txt and pages, with ROBOTSTXT_PARSER set to
robotscan.scrapy.RobotScanParser; the test asserts which pages the server was asked
for and which requests Scrapy refused (its robotstxt/forbidden stat).
Plus unit tests of the parser class itself."""
import http.server
import json
import os
import subprocess
import sys
import threading

import pytest

from robotscan.scrapy import RobotScanParser

ROBOTS = """User-agent: *
Disallow: /private
Disalow: /typo
Disallow: /wiki/Käyttäjä:
Crawl-delay: 0.5

User-agent: OtherBot
Disallow: /
""".encode("utf-8")

# path -> links on the page. /typo.html is refused only under Google's semantics (the
# "Disalow" typo), /wiki/Käyttäjä:Foo only when the non-ASCII URL is encoded as the pattern is.
PAGES = {
    "/": ["/public.html", "/private/secret.html", "/typo.html", "/wiki/Käyttäjä:Foo",
          "/wiki/Main_Page"],
    "/public.html": ["/private/other.html", "/deep.html"],
    "/deep.html": [],
    "/wiki/Main_Page": [],
    "/private/secret.html": [], "/private/other.html": [], "/typo.html": [],
    "/wiki/K%C3%A4ytt%C3%A4j%C3%A4:Foo": [],
}

SPIDER = r'''
import json, sys
import scrapy

class Crawl(scrapy.Spider):
    name = "crawl"

    def __init__(self, start=None, out=None, **kw):
        super().__init__(**kw)
        self.start_urls = [start]
        self.out = out
        self.fetched = []

    def parse(self, response):
        self.fetched.append(response.url)
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href, self.parse)

    def closed(self, reason):
        stats = self.crawler.stats.get_stats()
        with open(self.out, "w") as f:
            json.dump({"fetched": sorted(self.fetched), "reason": reason,
                       "parser": self.crawler.settings.get("ROBOTSTXT_PARSER"),
                       "stats": {k: v for k, v in stats.items() if isinstance(v, (int, float, str))}}, f)
'''


class Handler(http.server.BaseHTTPRequestHandler):
    requested = []

    def do_GET(self):
        Handler.requested.append(self.path)
        if self.path == "/robots.txt":
            body, ctype = ROBOTS, "text/plain; charset=utf-8"
        elif self.path in PAGES:
            links = "".join('<a href="%s">x</a>' % h for h in PAGES[self.path])
            body, ctype = ("<html><body>%s</body></html>" % links).encode("utf-8"), "text/html; charset=utf-8"
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    Handler.requested = []
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)  # a free port
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield "http://127.0.0.1:%d" % srv.server_address[1]
    srv.shutdown()
    srv.server_close()
    t.join()


def crawl(root, tmp_path, base, user_agent):
    pytest.importorskip("scrapy", reason="Scrapy is not installed (Debian python3-scrapy)")
    spider = tmp_path / "spider.py"
    spider.write_text(SPIDER)
    out = tmp_path / "out.json"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(root, "python") + os.pathsep + env.get("PYTHONPATH", "")
    settings = {"ROBOTSTXT_OBEY": "True", "ROBOTSTXT_PARSER": "robotscan.scrapy.RobotScanParser",
                "USER_AGENT": user_agent, "TELNETCONSOLE_ENABLED": "False", "RETRY_ENABLED": "False",
                "LOG_LEVEL": "INFO", "DOWNLOAD_TIMEOUT": "20", "CONCURRENT_REQUESTS": "2",
                "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7", "CLOSESPIDER_TIMEOUT": "60"}
    cmd = [sys.executable, "-m", "scrapy", "runspider", str(spider), "-a", "start=%s/" % base,
           "-a", "out=%s" % out]
    for k, v in settings.items():
        cmd += ["-s", "%s=%s" % (k, v)]
    p = subprocess.run(cmd, cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=1200)
    assert p.returncode == 0, p.stderr[-3000:]
    assert out.exists(), p.stderr[-3000:]
    result = json.loads(out.read_text())
    assert result["parser"] == "robotscan.scrapy.RobotScanParser"
    return result, p.stderr


def test_crawl_obeys_robots_txt(root, tmp_path, server):
    result, log = crawl(root, tmp_path, server, "Mozilla/5.0 (compatible; TestBot/1.0; +http://x.test)")
    fetched = [u[len(server):] for u in result["fetched"]]
    assert fetched == ["/", "/deep.html", "/public.html", "/wiki/Main_Page"], log[-2000:]
    requested = sorted(set(Handler.requested))
    assert requested == ["/", "/deep.html", "/public.html", "/robots.txt", "/wiki/Main_Page"]
    # Refused: /private/secret.html, /private/other.html, /typo.html, /wiki/Käyttäjä:Foo.
    assert result["stats"].get("robotstxt/forbidden") == 4, result["stats"]


def test_crawl_user_agent_named_by_a_group(root, tmp_path, server):
    # The header's product token is "Mozilla", but the group naming OtherBot applies.
    result, log = crawl(root, tmp_path, server, "Mozilla/5.0 (compatible; OtherBot/2.0)")
    assert result["fetched"] == []
    assert sorted(set(Handler.requested)) == ["/robots.txt"]
    assert result["stats"].get("robotstxt/forbidden") == 1, result["stats"]


# ===== The parser class alone =====

def test_parser_interface():
    p = RobotScanParser.from_crawler(None, ROBOTS)
    ua = "Mozilla/5.0 (compatible; TestBot/1.0)"
    assert p.allowed("http://a.test/public.html", ua) is True
    assert p.allowed("http://a.test/private/x", ua) is False
    assert p.allowed("http://a.test/typo.html", ua) is False
    assert p.allowed(b"http://a.test/private/x", ua.encode()) is False
    assert p.allowed("http://a.test/x", "OtherBot/2.0") is False
    assert p.allowed("http://a.test/x", b"Mozilla/5.0 (compatible; OtherBot/2.0)") is False
    assert p.crawl_delay(ua) == 0.5
    assert p.crawl_delay("OtherBot") is None


@pytest.mark.parametrize("url", ["http://a.test/wiki/Käyttäjä:Foo",
                                 "http://a.test/wiki/K%C3%A4ytt%C3%A4j%C3%A4:Foo",
                                 "http://a.test/wiki/K%c3%a4ytt%c3%a4j%c3%a4:Foo",
                                 "http://a.test/wiki/Käyttäjä:Foo".encode("utf-8")])
def test_parser_non_ascii_urls(url):
    assert RobotScanParser(ROBOTS).allowed(url, "Scrapy/2.8 (+https://scrapy.org)") is False


@pytest.mark.parametrize("body", [None, b"", b"\x00\x01\x02\xff\xfe\xfd" * 50,
                                  b"<!DOCTYPE html><html><body>404</body></html>",
                                  "\ufffd\ufffd garbage", 12345])
def test_parser_garbage_allows_all(body):
    p = RobotScanParser.from_crawler(None, body)
    assert p.allowed("http://a.test/private/x", "Scrapy") is True
    assert p.crawl_delay("Scrapy") is None


def test_parser_with_a_crawler_object():
    class Crawler:
        spider = object()
    p = RobotScanParser.from_crawler(Crawler(), ROBOTS)
    assert p.spider is Crawler.spider
