#!/usr/bin/env python3
"""Opens a robotscan report in headless Chromium and checks it against the
--stats JSON it was made from. Standard library only.

One browser launch per page does everything: --dump-dom (the DOM after
loading), --screenshot, --print-to-pdf, Chromium's console log on stderr
(--enable-logging=stderr) and its network log (--log-net-log). Checks:
  * the page loads from file:// and the DOM comes back;
  * no console message at all (the page has no scripts: any message is an
    error, a refused fetch or a content-security-policy report);
  * no network request made on behalf of the page (the net log's URL
    requests whose initiator is the page; Chromium's own background
    traffic, initiator "not an origin", is listed but not the page's);
  * the DOM text holds the JSON's numbers: every bot's row (logs), every
    reason, origin and rule row (urls), every agent row (survey, diff),
    and the SVG titles of the charted bots;
  * the screenshot is a PNG that is not blank (decoded here with zlib:
    enough distinct colours and enough non-white pixels), the PDF has pages.

Usage: check_page.py [--no-pdf] CHROMIUM PAGE.html OUTDIR STATS.json [STATS.json...]
       check_page.py --no-browser PAGE.html OUTDIR STATS.json...  (DOM checks on the file itself:
                     the page has no scripts, so its DOM is its markup)
       check_page.py --blank-png-selftest OUTDIR  (the blank check must refuse a blank PNG)
Exit 0 when every check passes, 1 otherwise (each failure printed).
"""
import json
import os
import re
import struct
import subprocess
import sys
import zlib
from html.parser import HTMLParser

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


# ===== The browser =====

WIDTH = 1400   # --width W: the browser window's width (the screenshot test runs two)


def run_chromium(chromium, page, outdir, pdf_too=True):
    shot = os.path.join(outdir, "screenshot.png")
    pdf = os.path.join(outdir, "page.pdf")
    netlog = os.path.join(outdir, "netlog.json")
    for f in (shot, pdf, netlog):
        if os.path.exists(f):
            os.unlink(f)
    args = [chromium, "--headless", "--disable-gpu", "--hide-scrollbars", "--window-size=%d,2200" % WIDTH,
            "--enable-logging=stderr", "--v=0", "--log-net-log=" + netlog,
            "--disable-background-networking", "--disable-component-update", "--no-first-run",
            "--disable-sync", "--disable-extensions", "--no-default-browser-check",
            "--user-data-dir=" + os.path.join(outdir, "profile"),
            "--screenshot=" + shot, "--dump-dom", "file://" + os.path.abspath(page)]
    if pdf_too:  # printing costs several seconds: the negative controls skip it
        args[-2:-2] = ["--print-to-pdf=" + pdf, "--no-pdf-header-footer"]
    if os.geteuid() == 0:
        args.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its sandbox
    # A page takes seconds; the limit only stops a hung browser (TimeoutExpired says so).
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=1800)
    with open(os.path.join(outdir, "chromium-stderr.txt"), "wb") as f:
        f.write(p.stderr)
    if p.returncode != 0:
        fail("chromium exit status %d" % p.returncode)
    return p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"), shot, pdf, netlog


def console_messages(stderr):
    # Chromium logs page console output as "...:CONSOLE(line)] message" or ":CONSOLE:line] ..."
    return [l for l in stderr.splitlines() if re.search(r":CONSOLE[(:]", l)]


def page_requests(netlog):
    """URLs the page asked the network for, and Chromium's own requests."""
    try:
        with open(netlog) as f:
            text = f.read()
    except OSError:
        fail("no net log written")
        return [], []
    try:
        d = json.loads(text)
    except ValueError:  # a log cut short still has its events
        d = json.loads(text.rstrip().rstrip(",") + "]}")
    types = {v: k for k, v in d["constants"]["logEventTypes"].items()}
    page, own = [], []
    for e in d.get("events", []):
        if types.get(e.get("type")) != "URL_REQUEST_START_JOB":
            continue
        prm = e.get("params") or {}
        url = prm.get("url")
        if not url:
            continue
        if prm.get("initiator") == "not an origin" and "file://" not in prm.get("network_isolation_key", ""):
            own.append(url)
        else:
            page.append(url)
    return page, own


# ===== Screenshot and PDF =====

def png_pixels(path):
    """(width, height, rows of bytes, bytes per pixel) of an 8-bit RGB/RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype = ihdr[0], ihdr[1], ihdr[2], ihdr[3]
    if depth != 8 or ctype not in (2, 6):
        raise ValueError("unexpected PNG type depth=%d colour=%d" % (depth, ctype))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        ft = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if ft == 1:
                line[x] = (line[x] + a) & 255
            elif ft == 2:
                line[x] = (line[x] + b) & 255
            elif ft == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif ft == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, rows, bpp


def check_screenshot(path):
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        fail("no screenshot written")
        return
    w, h, rows, bpp = png_pixels(path)
    colours, nonwhite, total = set(), 0, 0
    for r in rows[::4]:  # every 4th row and pixel is plenty
        for x in range(0, w * bpp, bpp * 4):
            px = r[x:x + 3]
            colours.add(px)
            total += 1
            nonwhite += px != b"\xff\xff\xff"
    share = nonwhite / max(total, 1)
    print("screenshot: %dx%d, %d distinct colours sampled, %.1f%% non-white" % (w, h, len(colours), 100 * share))
    if len(colours) < 16 or share < 0.02:
        fail("screenshot looks blank: %d colours, %.2f%% non-white" % (len(colours), 100 * share))


def check_pdf(path):
    if not os.path.exists(path):
        fail("no PDF written (print)")
        return
    with open(path, "rb") as f:
        data = f.read()
    pages = len(re.findall(rb"/Type\s*/Page[^s]", data))
    print("pdf: %d bytes, %d pages" % (len(data), pages))
    if not data.startswith(b"%PDF") or pages < 1:
        fail("the printed PDF has no pages")


# ===== The DOM =====

class Dom(HTMLParser):
    """Collects table rows (cell texts), table captions and SVG <title> texts."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables = []      # [caption, [rows]]
        self.svg_titles = []
        self.svg_at = []
        self.text = []
        self._cell = None
        self._row = None
        self._caption = None
        self._svg = 0
        self._title = None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append(["", []])
        elif tag == "caption":
            self._caption = []
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag == "svg":
            self._svg += 1
        elif tag == "title" and self._svg:
            self._title = []

    def handle_endtag(self, tag):
        if tag == "caption" and self._caption is not None:
            self.tables[-1][0] = "".join(self._caption).strip()
            self._caption = None
        elif tag in ("td", "th") and self._cell is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            if self.tables:
                self.tables[-1][1].append(self._row)
            self._row = None
        elif tag == "svg":
            self._svg -= 1
        elif tag == "title" and self._title is not None:
            self.svg_titles.append("".join(self._title))
            self.svg_at.append(len(self.tables))  # how many tables came before: the section it is in
            self._title = None

    def handle_data(self, data):
        self.text.append(data)
        for buf in (self._cell, self._caption, self._title):
            if buf is not None:
                buf.append(data)

    def table(self, caption_prefix, start=0):
        """Rows of the first table at or after @start whose caption starts with the prefix."""
        for i, (cap, rows) in enumerate(self.tables):
            if i >= start and cap.startswith(caption_prefix):
                return i, rows
        return -1, None


def has_row(rows, first, values):
    """A row whose first cell is @first and whose other cells hold every value."""
    want = [str(v) for v in values]
    for r in rows or []:
        if r and r[0] == first:
            cells = list(r[1:])
            ok = True
            for v in want:
                if v in cells:
                    cells.remove(v)
                else:
                    ok = False
                    break
            if ok:
                return True
    return False


def check_run_table(dom, doc, start, name):
    i, rows = dom.table("Run", start)
    if rows is None:
        fail("%s: no run table" % name)
        return start
    for k, v in doc.items():
        if isinstance(v, bool) or v is None or isinstance(v, (dict, list)):
            continue
        if isinstance(v, float):
            continue  # printed as the shortest text of the same double; not compared textually
        if not has_row(rows, k, [v]):
            fail("%s: run table lacks %s = %s" % (name, k, v))
    return i


def check_logs(dom, doc, start, name, end=None):
    bots = doc["bots"]
    if not bots:
        if "Nothing to show" not in "".join(dom.text):
            fail("%s: an empty run without 'Nothing to show'" % name)
        return
    _, rows = dom.table("Every bot", start)
    for b in bots:
        vals = [b["hits"], b["violations"], b["delay_violations"], b["distinct_violated_paths"],
                b["robots_txt_fetches"]] + [b[k] for k in ("verified", "unverified", "spoofed", "spoofed_violations") if k in b]
        if not has_row(rows, b["agent"], vals):
            fail("%s: bot %r: no table row with %s" % (name, b["agent"], vals))
        for r in b.get("top_rules", []):
            _, rr = dom.table("Violated rules per bot", start)
            if not has_row(rr, b["agent"], [r["origin"], r["line"], r["rule"], r["count"]]):
                fail("%s: bot %r: rule %r (%d) missing" % (name, b["agent"], r["rule"], r["count"]))
        if b["delay_violations"]:
            _, dr = dom.table("Crawl-delay violations per bot", start)
            if not has_row(dr, b["agent"], [b["delay_violations"], b["hits"]]):
                fail("%s: bot %r: crawl-delay row missing" % (name, b["agent"]))
        if b["robots_txt_fetches"]:
            _, fr = dom.table("robots.txt fetches per bot", start)
            if not has_row(fr, b["agent"], [b["robots_txt_fetches"], b["first_robots_txt_fetch"],
                                            b["last_robots_txt_fetch"]]):
                fail("%s: bot %r: robots.txt fetch row missing" % (name, b["agent"]))
    # The charts (crawlers; fetchers and libraries apart, each by violations, 30 at most):
    # the bots with most violations each have a bar titled with their numbers, and
    # every bar of a bot shows that bot's numbers.
    titles = set(t for t, at in zip(dom.svg_titles, dom.svg_at) if at >= start and (end is None or at <= end))
    viol = sorted((b["violations"] for b in bots), reverse=True)
    cut = viol[29] if len(viol) >= 30 else 0
    by_agent = {b["agent"]: b for b in bots}
    for b in bots:
        if b["violations"] > cut or (cut == 0 and len(bots) <= 30):
            t1 = "%s: hits %d, violations %d" % (b["agent"], b["hits"], b["violations"])
            t2 = "%s: hits %d, on disallowed paths %d" % (b["agent"], b["hits"], b["violations"])
            if t1 not in titles and t2 not in titles:
                fail("%s: no chart bar %r" % (name, t1))
    for t in titles:
        m = re.match(r"^(.*): hits (\d+), (?:violations|on disallowed paths) (\d+)$", t)
        if m and m.group(1) in by_agent:
            b = by_agent[m.group(1)]
            if (int(m.group(2)), int(m.group(3))) != (b["hits"], b["violations"]):
                fail("%s: chart bar %r differs from the file (%d, %d)" % (name, t, b["hits"], b["violations"]))
    # Over time: every (agent, hour) of the file when the page is hourly.
    _, hr = dom.table("Every bot per hour", start)
    if hr is not None:
        for h in doc.get("hours", []):
            if not has_row(hr, h["agent"], [h["hour"], h["hits"], h["violations"]]):
                fail("%s: hour row %s %s missing" % (name, h["agent"], h["hour"]))
    else:
        _, dr = dom.table("Every bot per day", start)
        if dr is None:
            fail("%s: no per-hour or per-day table" % name)
        elif "days" in doc:
            for h in doc["days"]:
                if not has_row(dr, h["agent"], [h["day"], h["hits"], h["violations"]]):
                    fail("%s: day row %s %s missing" % (name, h["agent"], h["day"]))


def check_urls(dom, doc, start, name):
    if doc["urls"] == 0:
        if "Nothing to show" not in "".join(dom.text):
            fail("%s: an empty run without 'Nothing to show'" % name)
        return
    _, rr = dom.table("URLs per reason", start)
    for k, v in doc["reasons"].items():
        if not has_row(rr, k, [v]):
            fail("%s: reason %s = %d missing" % (name, k, v))
    _, vr = dom.table("URLs per verdict", start)
    for k, v in doc["verdicts"].items():
        if not has_row(vr, k, [v]):
            fail("%s: verdict %s = %d missing" % (name, k, v))
    byorigin = {o["origin"]: o for o in doc["origins"]}
    _, orows = dom.table("URLs per origin", start)
    if orows is None:
        fail("%s: no origin table" % name)
        orows = []
    if len(orows) - 1 != min(500, len(byorigin)):
        fail("%s: origin table has %d rows, want %d" % (name, len(orows) - 1, min(500, len(byorigin))))
    listed = set()
    for r in orows[1:]:
        o = byorigin.get(r[0])
        if o is None or r[1:3] != [str(o["allow"]), str(o["disallow"])]:
            fail("%s: origin row %r does not match the JSON" % (name, r))
        listed.add(r[0])
    biggest = sorted(doc["origins"], key=lambda o: -(o["allow"] + o["disallow"]))
    cut = biggest[min(len(biggest), 500) - 1]["allow"] + biggest[min(len(biggest), 500) - 1]["disallow"]
    for o in biggest:
        if o["allow"] + o["disallow"] > cut and o["origin"] not in listed:
            fail("%s: origin %s (%d URLs) not listed" % (name, o["origin"], o["allow"] + o["disallow"]))
    _, rrows = dom.table("URLs per deciding rule", start)
    for r in doc["rules"][:500] if len(doc["rules"]) <= 500 else []:
        if not has_row(rrows, r["origin"], [r["line"], r["rule"], r["count"]]):
            fail("%s: rule row %s %s missing" % (name, r["origin"], r["rule"]))


def check_counts(dom, doc, start, name, caption, key, fields, label2=None, cap=None, rank=None, skip_zero=False):
    """Every entry of doc[key] has its row; past @cap rows (the page lists the @cap
    largest by @rank) every listed row matches an entry and the larger ones are listed."""
    label = key[:-1]
    if skip_zero and not any(rank(a) > 0 for a in doc[key]):
        return
    _, rows = dom.table(caption, start)
    if rows is None:
        fail("%s: no table %r" % (name, caption))
        return
    entries = doc[key]
    if skip_zero:  # the page lists only the entries whose ranking counts are not zero
        entries = [a for a in entries if rank(a) > 0]

    def vals(a):
        return [a[f] for f in fields if f in a] + ([a[label2]] if label2 and label2 in a else [])
    if cap is None or len(entries) <= cap:
        for a in entries:
            if not has_row(rows, a[label], vals(a)):
                fail("%s: %s %r: no row with %s" % (name, label, a[label], vals(a)))
        return
    body = rows[1:]
    if len(body) != cap:
        fail("%s: %s table has %d rows, want the %d largest" % (name, label, len(body), cap))
    for r in body:
        if not any(has_row([r], a[label], vals(a)) for a in entries if a[label] == r[0]):
            fail("%s: %s row %r matches no entry of the JSON" % (name, label, r))
    ranked = sorted(entries, key=rank, reverse=True)
    cut = rank(ranked[cap - 1])
    for a in ranked:
        if rank(a) > cut and not has_row(rows, a[label], vals(a)):
            fail("%s: %s %r (one of the largest) not listed" % (name, label, a[label]))


def blank_png(path, w=64, h=48):
    raw = b"".join(b"\x00" + b"\xff" * (w * 3) for _ in range(h))

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "--blank-png-selftest":
        os.makedirs(sys.argv[2], exist_ok=True)
        path = os.path.join(sys.argv[2], "blank.png")
        blank_png(path)
        check_screenshot(path)
        return 1 if failures else 0
    global WIDTH
    pdf_too = True
    while len(sys.argv) > 1 and sys.argv[1] in ("--no-pdf", "--width"):
        if sys.argv[1] == "--no-pdf":
            pdf_too = False
            del sys.argv[1]
        else:
            WIDTH = int(sys.argv[2])
            del sys.argv[1:3]
    if len(sys.argv) < 5:
        print(__doc__)
        return 2
    browser = sys.argv[1] != "--no-browser"
    chromium, page, outdir = sys.argv[1:4]
    stats = sys.argv[4:]
    os.makedirs(outdir, exist_ok=True)
    if browser:
        dom_text, stderr, shot, pdf, netlog = run_chromium(chromium, page, outdir, pdf_too)
        if "</html>" not in dom_text or "<body" not in dom_text:
            fail("no DOM dumped (the page did not load)")
        msgs = console_messages(stderr)
        for m in msgs:
            fail("console: " + m[:300])
        page_urls, own = page_requests(netlog)
        for u in page_urls:
            fail("network request by the page: " + u[:200])
        print("console messages: %d; page network requests: %d (Chromium's own, ignored: %d)"
              % (len(msgs), len(page_urls), len(own)))
    else:
        with open(page, encoding="utf-8") as f:
            dom_text = f.read()
    dom = Dom()
    dom.feed(dom_text)
    if not re.search(r'<html[^>]* lang="en"', dom_text) or "<title>" not in dom_text:
        fail("no lang or <title>")
    # Sections follow the files' order; each ends with its (folded) run table.
    start = 0
    for path in stats:
        with open(path) as f:
            doc = json.load(f)
        name = os.path.basename(path)
        run_i = check_run_table(dom, doc, start, name)
        cmd = doc["command"]
        if cmd == "logs":
            check_logs(dom, doc, start, name, run_i)
        elif cmd == "urls":
            check_urls(dom, doc, start, name)
        elif cmd == "survey":
            if isinstance(doc["agents"], dict):  # {"GPTBot": {counts}} as survey writes it
                doc = dict(doc, agents=[dict(v, agent=k) for k, v in doc["agents"].items()])
            check_counts(dom, doc, start, name, "Who is blocked where", "agents",
                         ["blocked", "partial", "open", "unavailable", "unreachable", "named", "star", "none",
                          "crawl_delay"], cap=1000, rank=lambda a: a["blocked"])
        elif cmd == "diff":
            f = ["newly_disallowed", "newly_allowed", "unchanged", "compared"]
            if doc.get("input") == "logs":
                check_counts(dom, doc, start, name, "Hits that flip per bot", "agents",
                             ["hits_newly_disallowed", "hits_newly_allowed", "hits_unchanged", "hits"],
                             cap=1000, rank=lambda a: a["hits_newly_disallowed"] + a["hits_newly_allowed"])
            check_counts(dom, doc, start, name, "Flips per agent", "agents", f,
                         cap=1000, rank=lambda a: a["newly_disallowed"] + a["newly_allowed"])
            check_counts(dom, doc, start, name, "Flips per origin", "origins",
                         f + ["rules_added", "rules_removed", "rules_changed_effect"], label2="agent",
                         cap=500, rank=lambda a: a["newly_disallowed"] + a["newly_allowed"], skip_zero=True)
        elif cmd == "sitemaps":
            _, rows = dom.table("Sitemap counts", start)
            for k, label in (("origins", "sites read"), ("valid", "valid URLs"), ("invalid", "invalid URLs")):
                if not has_row(rows, label, [doc[k]]):
                    fail("%s: sitemaps: no row %r = %s" % (name, label, doc[k]))
        start = run_i + 1
    if browser:
        check_screenshot(shot)
        if pdf_too:
            check_pdf(pdf)
    print("%s: %s" % (os.path.basename(page), "%d failure(s)" % len(failures) if failures else "all checks passed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
