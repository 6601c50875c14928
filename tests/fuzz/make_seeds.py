#!/usr/bin/env python3
"""Builds seed corpora for the fuzz targets from SHARED_DIR (../shared's layout; `make test`
passes the unpacked tests/data/shared.tar.zst) at run time; not committed.

Usage: make_seeds.py SHARED_DIR OUT_DIR [--small]
Exits 1 when a target gets no seeds (a replay of nothing proves nothing).
Writes OUT_DIR/<target>/NNNNNN for every target in tests/fuzz/fuzz_*.c.
--small keeps `make test` quick (a sample); without it, everything usable.
Input formats follow each target's header comment.
"""
import collections, glob, os, random, sys

def main():
    shared, out = sys.argv[1], sys.argv[2]
    small = "--small" in sys.argv[3:]
    here = os.path.dirname(os.path.abspath(__file__))
    targets = sorted(os.path.basename(p)[:-2] for p in glob.glob(os.path.join(here, "fuzz_*.c")))
    rnd = random.Random(1)
    seeds = collections.defaultdict(list)
    conf = os.path.join(shared, "conformance")
    folders = ["google-unittests", "google-spec-test-correctness", "seed-examples",
               "reference-differential", "google-spec-test-stress"]
    all_urls = []
    for folder in folders:
        groups = collections.OrderedDict()
        with open(os.path.join(conf, folder, "cases.tsv"), "rb") as f:
            for row in f:
                c, agent, url, _verdict, _line = row.rstrip(b"\n").split(b"\t")
                groups.setdefault((c, agent), []).append(url)
                all_urls.append(url)
        items = list(groups.items())
        if small and folder == "reference-differential":
            items = items[::25]
        if small and folder == "google-spec-test-stress":
            items = items[::8]
        for (c, agent), urls in items:
            with open(os.path.join(conf, folder, c.decode() + ".txt"), "rb") as f:
                body = f.read()
            for k in range(0, len(urls), 32):
                seeds["fuzz_robots_match"].append(agent + b"\n" + b"\n".join(urls[k:k + 32]) + b"\n\n" + body)
    if not small:
        for p in sorted(glob.glob(os.path.join(shared, "data", "robots", "*.txt"))):
            if os.path.getsize(p) <= 65536:
                with open(p, "rb") as f:
                    seeds["fuzz_robots_match"].append(b"Googlebot\n/\n/index.html\n\n" + f.read())
    seeds["fuzz_lint"] = seeds["fuzz_robots_match"]  # same input format
    urls = sorted(set(all_urls))
    lst = os.path.join(shared, "data", "urls", "ada-url-kasztp.txt")
    with open(lst, "rb") as f:
        real = [l.rstrip(b"\r\n") for l in f]
    urls += rnd.sample(real, 300 if small else 5000)
    if small:
        urls = rnd.sample(urls, min(len(urls), 1500))
    seeds["fuzz_url_path"] = urls
    seeds["fuzz_origin"] = urls
    # Access-log lines (one per seed) and whole small log files for the reader.
    logs = sorted(glob.glob(os.path.join(shared, "data", "logs", "*.log")))
    # fuzz_logline: byte 0 picks the format (0 combined, 1 common, 2 vhost_combined,
    # 3 = an nginx log_format on the first line), the rest is one line.
    nginx = b'$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"'
    for p in logs:
        with open(p, "rb") as f:
            lines = f.read().split(b"\n")
        for i, l in enumerate(lines[: (100 if small else 3000)]):
            seeds["fuzz_logline"].append(bytes([i % 3]) + l)
            if i % 10 == 0:
                seeds["fuzz_logline"].append(b"\x03" + nginx + b"\n" + l)
        # fuzz_logjson / fuzz_logw3c: byte 0 picks the format; lines of the same log as
        # nginx escape=json objects and as W3C records under a #Fields header.
        import json as _json
        js, w3, alb = [], [b"#Fields: date time c-ip cs-method cs-uri-stem sc-status cs(User-Agent)"], []
        for l in lines[: (40 if small else 400)]:
            f = l.split(b'"')
            if len(f) < 6:
                continue
            head = f[0].split(b" ")
            req = f[1].split(b" ")
            js.append(_json.dumps({"remote_addr": head[0].decode("latin-1"), "time_local": l[l.find(b"[") + 1:l.find(b"]")].decode("latin-1"),
                                   "request": f[1].decode("latin-1"), "http_user_agent": f[5].decode("latin-1"),
                                   "nested": {"a": [1, {"b": "\u00e9"}]}}).encode())
            w3.append(b"2015-05-17 10:05:03 " + head[0] + b" " + req[0] + b" " + (req[1] if len(req) > 1 else b"-") +
                      b" 200 " + f[5].replace(b" ", b"+"))
            # ALB (format byte 3): its one-pass reader in src/log/logline.c
            alb.append(b"https 2015-05-17T10:05:03.000000Z app/lb/50dc6c495c0c9188 " + head[0] + b":1025 10.0.0.1:80 "
                       b"0.000 0.001 0.000 200 200 34 2326 \"" + f[1] + b"\" \"" + f[5] + b"\" ECDHE-RSA TLSv1.2")
        for k in range(0, len(js), 8):
            seeds["fuzz_logjson"].append(bytes([k % 4]) + b"\n".join(js[k:k + 8]))
            seeds["fuzz_logw3c"].append(bytes([k % 4]) + b"\n".join(w3[:1] + w3[1 + k:9 + k]))
            seeds["fuzz_logw3c"].append(b"\x03" + b"\n".join(alb[k:k + 8]))
        # fuzz_reader: mode, block size, max_line, damage point, payload.
        chunk = b"\n".join(lines[:40])
        for mode in range(5):
            seeds["fuzz_reader"].append(bytes([mode, 7 * mode + 3, 60 + mode, 40 * mode + 9]) + chunk)
    for i, s in enumerate([b"", b"\n", b"a", b"a\r\nb\n\nc", b"x" * 200 + b"\n" + b"y" * 70,
                           b"\xef\xbb\xbfbom\r\n\r\n", b"\r\r\n\n", b"\x28\xb5\x2f\xfd", b"\x1f\x8b"]):
        for mode in (0, 1, 2, 3, 4, 12, 16, 17):
            seeds["fuzz_reader"].append(bytes([mode, i, 3 + i, 128]) + s)
    # fuzz_report_html: --stats JSON documents (the report fixtures), whole and cut short.
    for p in sorted(glob.glob(os.path.join(here, "..", "report", "fixtures", "*.json"))):
        with open(p, "rb") as f:
            doc = f.read()
        seeds["fuzz_report_html"].append(doc)
        for k in (2, 3, 5):
            seeds["fuzz_report_html"].append(doc[: len(doc) * (k - 1) // k])
    # fuzz_warc: mode byte (fuzz_warc.c), then WARC records of a few real robots.txt files.
    robots = sorted(glob.glob(os.path.join(shared, "data", "robots", "*.txt")))[: (8 if small else 200)]
    for i in range(0, len(robots), 2):
        warc = b""
        for p in robots[i:i + 2]:
            with open(p, "rb") as f:
                body = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n" + f.read(4096)
            host = os.path.basename(p)[:-4].encode()
            warc += (b"WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: https://" + host +
                     b"/robots.txt\r\nWARC-Date: 2024-01-01T00:00:00Z\r\nContent-Length: %d\r\n\r\n" % len(body)
                     + body + b"\r\n\r\n")
        seeds["fuzz_warc"].append(bytes([i % 8]) + warc)
    empty = [t for t in targets if not seeds.get(t)]
    for t in targets:
        d = os.path.join(out, t)
        os.makedirs(d, exist_ok=True)
        got = seeds.get(t, [])
        if not got:
            print("make_seeds: FAIL: no seeds for %s (give it some in make_seeds.py)" % t, file=sys.stderr)
        for i, s in enumerate(got):
            with open(os.path.join(d, "%06d" % i), "wb") as f:
                f.write(s)
    print("seeds: " + ", ".join("%s %d" % (t, len(seeds.get(t, []))) for t in targets))
    if empty or not targets:
        sys.exit(1)

if __name__ == "__main__":
    main()
