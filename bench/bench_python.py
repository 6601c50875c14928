#!/usr/bin/env python3
"""Python binding vs Protego (Scrapy's default robots.txt parser), per URL.

Usage: PYTHONPATH=python /usr/bin/python3 bench/bench_python.py [ROBOTS_FILE] [--urls N] [--rounds R]
ROBOTS_FILE defaults to $RS_SHARED_DIR/data/robots/www.etsy.com.txt (RS_SHARED_DIR
defaults to ../shared). The URLs (N, default 200,000) are made here with a fixed seed:
half built from the file's own patterns (so rules match at many depths), half
ordinary shop paths. Every method answers the same URLs for the same agent; the
rounds are interleaved (robotscan, Protego, robotscan, ...) and the median per-URL
time of each is reported, with its ratio to Protego's. Not a test: prints numbers.
"""
import os
import random
import statistics
import sys
import time

from protego import Protego

import robotscan
from robotscan.scrapy import RobotScanParser


def make_urls(body, n, seed=1):
    rnd = random.Random(seed)
    patterns = []
    for line in body.decode("utf-8", "replace").splitlines():
        k, _, v = line.partition(":")
        if k.strip().lower() in ("allow", "disallow") and v.strip().startswith("/"):
            patterns.append(v.strip())
    words = ["listing", "shop", "c", "market", "search", "people", "teams", "your", "api", "cart",
             "gift-cards", "jewelry", "handmade", "vintage", "ring", "necklace", "ca", "uk", "de"]
    urls = []
    for i in range(n):
        if patterns and i % 2 == 0:
            p = rnd.choice(patterns).replace("$", "")
            while "*" in p:
                p = p.replace("*", rnd.choice(words) + str(rnd.randrange(1000)), 1)
            if rnd.random() < 0.5:
                p += rnd.choice(["", "x", "/" + rnd.choice(words), "?ref=" + str(rnd.randrange(99))])
        else:
            p = "/" + "/".join(rnd.choice(words) for _ in range(rnd.randrange(1, 5)))
            if rnd.random() < 0.3:
                p += "/%d" % rnd.randrange(10 ** 9)
            if rnd.random() < 0.3:
                p += "?q=%s&page=%d" % (rnd.choice(words), rnd.randrange(20))
        urls.append("https://www.etsy.com" + p)
    return urls


def per_url(fn, urls):
    t = time.perf_counter()
    fn(urls)
    return (time.perf_counter() - t) / len(urls)


def main():
    args = sys.argv[1:]
    n = int(args[args.index("--urls") + 1]) if "--urls" in args else 200000
    rounds = int(args[args.index("--rounds") + 1]) if "--rounds" in args else 3
    pos = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or not args[i - 1].startswith("--"))]
    shared = os.environ.get("RS_SHARED_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "shared"))
    path = pos[0] if pos else os.path.join(shared, "data", "robots", "www.etsy.com.txt")
    body = open(path, "rb").read()
    urls = make_urls(body, n)
    agent, ua = "Scrapy", "Scrapy/2.8.0 (+https://scrapy.org)"
    small = urls[: max(1, n // 10)]      # the per-URL Python loops run on a tenth

    rp = Protego.parse(body.decode("utf-8"))
    r = robotscan.Robots(body)
    sp = RobotScanParser(body)

    def protego(us):
        f = rp.can_fetch
        for u in us:
            f(u, ua)

    def batch(us):
        r.check_many(us, agent)

    def single(us):
        f = r.allowed
        for u in us:
            f(u, agent)

    def scrapy_parser(us):
        f = sp.allowed
        for u in us:
            f(u, ua)

    # Agreement, for the record (Protego is not Google's semantics).
    dis, _ = r.check_many(urls[:20000], agent)
    differ = sum(1 for u, d in zip(urls[:20000], dis) if rp.can_fetch(u, ua) == bool(d))
    methods = [("robotscan Robots.check_many (batch)", batch, urls),
               ("robotscan Robots.allowed (one call per URL)", single, small),
               ("robotscan.scrapy.RobotScanParser.allowed", scrapy_parser, small),
               ("Protego can_fetch (per URL)", protego, small)]
    times = {name: [] for name, _, _ in methods}
    for _ in range(rounds):
        for name, fn, us in methods:
            times[name].append(per_url(fn, us))
    base = statistics.median(times["Protego can_fetch (per URL)"])
    print("file: %s (%d bytes), %d URLs (%d for the per-URL loops), %d rounds, robotscan %s"
          % (path, len(body), n, len(small), rounds, robotscan.__version__))
    print("verdicts that differ from Protego's on the first 20,000 URLs: %d" % differ)
    print("%-46s %12s %12s" % ("method", "ns/URL", "x Protego"))
    for name, _, _ in methods:
        m = statistics.median(times[name])
        print("%-46s %12.1f %12.1f" % (name, m * 1e9, base / m))


if __name__ == "__main__":
    main()
