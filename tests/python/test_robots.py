"""Unit tests of each call of the robotscan Python package (python/robotscan).
Self-contained: every robots.txt is written here."""
import os
import subprocess
import sys
import threading
from array import array

import pytest

import robotscan
from robotscan import Robots, RobotscanError, Sites

BODY = ("User-agent: FooBot\n"          # 1
        "Disallow: /private\n"          # 2
        "Allow: /private/ok$\n"         # 3
        "Crawl-delay: 2.5\n"            # 4
        "\n"                            # 5
        "User-agent: *\n"               # 6
        "Disallow: /wiki/Käyttäjä:\n"   # 7
        "Disallow: /search\n"           # 8
        "Crawl-delay: soon\n")          # 9


def test_version_and_library(root):
    assert robotscan.__version__.count(".") == 2
    assert os.path.exists(robotscan.library_path)


def test_import_from_repository_root(root):
    env = dict(os.environ, PYTHONPATH="python")
    env.pop("ROBOTSCAN_LIB", None)
    p = subprocess.run([sys.executable, "-c", "import robotscan; print(robotscan.library_path)"],
                       cwd=root, env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == os.path.join(root, "build", "librobotscan.so")


def test_robotscan_lib_overrides(root):
    env = dict(os.environ, PYTHONPATH="python", ROBOTSCAN_LIB="/nonexistent/librobotscan.so")
    p = subprocess.run([sys.executable, "-c", "import robotscan"], cwd=root, env=env,
                       capture_output=True, text=True)
    assert p.returncode != 0
    assert "ROBOTSCAN_LIB" in p.stderr and "/nonexistent/librobotscan.so" in p.stderr


def test_allowed_and_check():
    r = Robots(BODY)
    assert r.allowed("https://a.com/private/x", "FooBot") is False
    assert r.allowed("https://a.com/private/ok", "foobot") is True
    assert r.check("https://a.com/private/x", "FooBot") == ("disallow", 2, "disallow: /private", "matched")
    assert r.check("https://a.com/private/ok", "FooBot") == ("allow", 3, "allow: /private/ok$", "matched")
    assert r.check("https://a.com/search?q=1", "Other") == ("disallow", 8, "disallow: /search", "matched")
    assert r.check("https://a.com/x", "Other") == ("allow", 0, "", "no-match")
    # An agent is a product token compared whole, as in the reference (and a warning says so).
    with pytest.warns(robotscan.AgentWarning, match="did you mean 'FooBot'"):
        assert r.allowed("/private", "FooBot/1.0") is True


def test_str_and_bytes_everywhere():
    r = Robots(BODY.encode())
    assert r.check(b"/private", b"FooBot") == r.check("/private", "FooBot")
    assert r.check(bytearray(b"/private"), "FooBot")[0] == "disallow"
    with pytest.raises(TypeError):
        r.allowed(42, "FooBot")


def test_non_ascii_urls():
    raw = "https://fi.wikipedia.org/wiki/Käyttäjä:Foo"
    plain = Robots(BODY)
    assert plain.allowed(raw, "x") is True          # the reference does not encode URLs
    assert plain.allowed(robotscan.encode_url(raw), "x") is False
    enc = Robots(BODY, encode_urls=True)
    assert enc.check(raw, "x") == ("disallow", 7, "disallow: /wiki/K%C3%A4ytt%C3%A4j%C3%A4:", "matched")
    assert enc.allowed(raw.encode("utf-8"), "x") is False
    assert enc.allowed("/wiki/K%c3%a4ytt%c3%a4j%c3%a4:Foo", "x") is False
    assert robotscan.encode_url("/wiki/Käyttäjä:") == "/wiki/K%C3%A4ytt%C3%A4j%C3%A4:"
    assert robotscan.encode_url(b"/a%2fb\xff") == b"/a%2Fb%FF"


def test_check_many_returns_arrays():
    r = Robots(BODY)
    urls = ["https://a.com/private/x", "https://a.com/private/ok", "", "/search", b"/private?x",
            "https://a.com/" + "p" * 10000]
    dis, lines = r.check_many(urls, "FooBot")
    assert isinstance(dis, array) and dis.typecode == "b"
    assert isinstance(lines, array) and lines.typecode == "I"
    assert list(dis) == [1, 0, 0, 0, 1, 0]
    assert list(lines) == [2, 3, 0, 0, 2, 0]
    for u, d, ln in zip(urls, dis, lines):
        v, line, _, _ = r.check(u, "FooBot")
        assert (v == "disallow") == bool(d) and line == ln
    assert r.allowed_many(urls[:2], "FooBot") == [False, True]
    assert r.check_many([], "FooBot") == (array("b"), array("I"))


def test_one_call_check():
    assert robotscan.check(BODY, "/private/x", "FooBot") == ("disallow", 2, "disallow: /private", "matched")
    assert robotscan.check(BODY, "/x", "FooBot") == ("allow", 0, "", "no-match")
    assert robotscan.check(BODY, "/wiki/Käyttäjä:", "x", encode_urls=True)[0] == "disallow"
    long_rule = "/" + "a" * 5000
    body = "User-agent: *\nDisallow: %s\n" % long_rule
    assert robotscan.check(body, long_rule, "x") == ("disallow", 2, "disallow: " + long_rule, "matched")


def test_crawl_delay_and_tokens():
    r = Robots(BODY)
    assert r.crawl_delay("FooBot") == 2.5
    assert r.crawl_delay("Other") is None            # "soon" is not a number
    assert Robots("User-agent: *\nCrawl-delay: 1\n").crawl_delay("x") == 1.0
    assert Robots("User-agent: *\nCrawl-delay: -1\n").crawl_delay("x") is None
    assert Robots("").crawl_delay("x") is None
    assert r.tokens() == ["FooBot"]
    assert Robots("").tokens() == []


@pytest.mark.parametrize("body", [None, b"", b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe garbage",
                                  "<html><body>Not found</body></html>", bytes(range(256)) * 4])
def test_garbage_bodies_allow_everything(body):
    r = Robots(body)
    assert r.allowed("https://a.com/anything", "x")
    assert r.check("/", "x") == ("allow", 0, "", "no-match")


def test_user_agent_token():
    t = robotscan.user_agent_token
    ua = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
    assert t(ua, ["Googlebot", "Bingbot"]) == "Googlebot"
    assert t(ua) == "Mozilla"
    assert t(ua.encode(), [b"googlebot"]) == "googlebot"
    assert t("Scrapy/2.8.0 (+https://scrapy.org)") == "Scrapy"
    assert t("Googlebot-Image/1.0", ["Googlebot"]) == "Googlebot"       # family fallback
    assert t("Googlebot-Image/1.0", ["Googlebot", "Googlebot-Image"]) == "Googlebot-Image"
    assert t("MyBot/1.0 (like Googlebot)", ["Googlebot", "MyBot"]) == "Googlebot"  # longest
    assert t("NotGooglebot/1.0", ["Googlebot"]) == "NotGooglebot"       # not a word there
    assert t("", []) == ""


def test_robots_shared_between_threads():
    r = Robots(BODY)
    errors = []

    def work():
        try:
            for _ in range(200):
                assert r.check("/private/x", "FooBot")[1] == 2
                assert list(r.check_many(["/search", "/x"], "Other")[0]) == [1, 0]
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors


def test_close_and_context_manager():
    with Robots(BODY) as r:
        assert not r.allowed("/private", "FooBot")
    with pytest.raises(ValueError):
        r.allowed("/private", "FooBot")
    r.close()  # twice is fine


# ===== Sites =====

def test_sites_from_paths(tmp_path):
    (tmp_path / "a.com.txt").write_text("User-agent: *\nDisallow: /a\n")
    (tmp_path / "b.com:8080").write_text("User-agent: *\nDisallow: /b\n")
    s = Sites([tmp_path])
    urls = ["https://a.com/a", "http://a.com/x", "http://b.com:8080/b", "http://b.com/b",
            "mailto:x@y.z", "https://c.com/"]
    dis, lines, reasons = s.check_many(urls, "bot")
    assert list(dis) == [1, 0, 1, -1, -2, -1]
    assert list(lines) == [2, 0, 2, 0, 0, 0]
    assert [robotscan.REASONS[i] for i in reasons] == [
        "matched", "no-match", "matched", "no-robots", "no-robots", "no-robots"]
    assert s.check("https://a.com/a", "bot") == ("disallow", 2, "disallow: /a", "matched")
    assert s.check("https://c.com/", "bot") == (None, 0, "", "no-robots")
    assert s.allowed("https://c.com/", "bot") is True
    assert s.allowed("https://c.com/", "bot", missing=False) is False


def test_sites_from_memory():
    s = Sites(bodies={"https://a.com/robots.txt": BODY})
    s.add("http://gone.com/robots.txt", b"", status=404)
    s.add("http://down.com", "", status=503)
    s.add("http://fail.com", "", status=0)
    assert s.check("https://a.com/private/x", "FooBot") == ("disallow", 2, "disallow: /private",
                                                           "matched")
    assert s.check("http://gone.com/x", "FooBot") == ("allow", 0, "", "unavailable")
    assert s.check("http://down.com/x", "FooBot") == ("disallow", 0, "", "unreachable")
    assert s.check("http://fail.com/x", "FooBot") == ("disallow", 0, "", "unreachable")
    s.add("https://a.com", "User-agent: *\nDisallow: /\n")         # replaces
    assert s.check("https://a.com/x", "FooBot") == ("disallow", 2, "disallow: /", "matched")
    with pytest.raises(RobotscanError, match="has no origin"):
        s.add("/just/a/path", "")
    with pytest.raises(RobotscanError, match="status"):
        s.add("https://a.com", "", status=100)


def test_sites_memory_before_files(tmp_path):
    f = tmp_path / "robots.txt"
    f.write_text("User-agent: *\nDisallow: /\n")
    s = Sites([str(f)])
    assert s.check("https://b.com/x", "bot")[0] == "disallow"
    s.add("https://b.com", "")
    assert s.check("https://b.com/x", "bot") == ("allow", 0, "", "no-match")
    assert s.check("https://a.com/x", "bot")[0] == "disallow"


def test_sites_errors(tmp_path):
    with pytest.raises(RobotscanError, match="no_such_dir"):
        Sites([tmp_path / "no_such_dir"])
    bad = tmp_path / "m.tsv"
    bad.write_text("not a manifest line\n")
    with pytest.raises(RobotscanError, match="m.tsv:1"):
        Sites([bad])


def test_agent_warnings():
    r = Robots("User-agent: *\nDisallow: /x\n")
    ua = "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)"
    with pytest.warns(robotscan.AgentWarning, match="looks like a User-Agent header.*'bingbot'"):
        assert r.check("/x", ua).verdict == "disallow"
    with pytest.warns(robotscan.AgentWarning, match="not a product token \\(\\[A-Za-z_-\\]\\+\\)"):
        robotscan.check("User-agent: *\n", "/", "42")
    s = Sites(bodies={"https://a.com/robots.txt": "User-agent: *\nDisallow: /x\n"})
    with pytest.warns(robotscan.AgentWarning, match="did you mean 'Googlebot'"):
        assert s.check("https://a.com/x", "Googlebot/2.1").verdict == "disallow"
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # product tokens never warn
        r.check("/x", "Googlebot"), r.crawl_delay("Google-Extended"), s.check_many(["/x"], "bot_x")
