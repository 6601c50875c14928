#!/usr/bin/env python3
"""Independent checks of `robotscan logs` output (called by test_logs.sh).

Usage: logs_verify.py BIN ROBOTS LOG TSV STATS_JSON [--no-bots]
 - the stats count every line of the log (counted here): lines = bot hits +
   non-bot hits + other bots + malformed + blank; the per-hour counts add up
   to the bot hits;
 - the TSV has bot hits (with --no-bots: none, and every well-formed line is
   a non-bot hit) and a header; nothing passes on empty output;
 - per-bot hits and disallowed counts of the TSV equal the stats JSON;
 - every bot hit's verdict and line equal `robotscan check` for the group the
   bot follows (its own token if the robots.txt names it, Googlebot for the
   Googlebot-* family, else the '*' groups), /robots.txt hits excepted;
 - delay_violation equals a recomputation: per (agent, origin), all hits
   (/robots.txt fetches included) sorted by time; a gap shorter than the
   group's Crawl-delay before a hit that is not a /robots.txt fetch is a violation;
 - the number of Googlebot/2.1 hits found by a plain regex over the raw log
   equals the Googlebot rows.
"""
import collections, csv, datetime, io, json, re, subprocess, sys

binp, robots, log, tsv_path, stats_path = sys.argv[1:6]
no_bots = "--no-bots" in sys.argv[6:]
failures = []

def fail(msg):
    failures.append(msg)

HEADER = ["time", "client", "origin", "agent", "user_agent", "method", "url", "status", "verdict",
          "line", "rule", "reason", "delay_violation"]
with open(tsv_path, encoding="utf-8", errors="replace") as f:
    first = f.readline().rstrip("\n").split("\t")
if first != HEADER:
    print("FAIL: TSV header is %r" % first[:14])
    sys.exit(1)
rows = list(csv.DictReader(open(tsv_path, encoding="utf-8", errors="replace"), delimiter="\t",
                           quoting=csv.QUOTE_NONE))
stats = json.load(open(stats_path))

# 0. every line of the log is accounted for; empty output passes nothing
with open(log, "rb") as f:
    data = f.read()
n_lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
if n_lines == 0:
    fail("the log %s is empty" % log)
if stats["lines"] != n_lines:
    fail("stats count %d lines, the log has %d" % (stats["lines"], n_lines))
parts = stats["bot_hits"] + stats["non_bot_hits"] + stats["other_bot_hits"] + stats["malformed"] + stats["blank"]
if parts != stats["lines"]:
    fail("bot %d + non-bot %d + other %d + malformed %d + blank %d != %d lines" % (stats["bot_hits"],
         stats["non_bot_hits"], stats["other_bot_hits"], stats["malformed"], stats["blank"], stats["lines"]))
if sum(h["hits"] for h in stats["hours"]) != stats["bot_hits"]:
    fail("per-hour hits add up to %d, bot hits %d" % (sum(h["hits"] for h in stats["hours"]), stats["bot_hits"]))
if len(rows) != stats["bot_hits"]:
    fail("TSV has %d rows, stats %d bot hits" % (len(rows), stats["bot_hits"]))
if no_bots:
    if rows or stats["bot_hits"] or stats["non_bot_hits"] != n_lines - stats["malformed"] - stats["blank"]:
        fail("--no-bots: %d rows, %d bot hits, %d non-bot hits of %d lines" % (len(rows), stats["bot_hits"],
             stats["non_bot_hits"], n_lines))
elif not rows:
    fail("no bot hits in the TSV")

# 1. counts per bot
hits = collections.Counter(r["agent"] for r in rows)
dis = collections.Counter(r["agent"] for r in rows if r["verdict"] == "disallow")
for b in stats["bots"]:
    if hits[b["agent"]] != b["hits"]:
        fail("hits of %s: tsv %d, stats %d" % (b["agent"], hits[b["agent"]], b["hits"]))
    if dis[b["agent"]] != b["violations"]:
        fail("violations of %s: tsv %d, stats %d" % (b["agent"], dis[b["agent"]], b["violations"]))
if sum(hits.values()) != stats["bot_hits"]:
    fail("bot hits: tsv %d, stats %d" % (sum(hits.values()), stats["bot_hits"]))

# 2. the robots.txt's groups, read the simple way this test's files are written
named, delays, current, seen_rule = set(), {}, [], False
for line in open(robots, encoding="utf-8"):
    line = line.split("#")[0].strip()
    if ":" not in line:
        continue
    k, v = [x.strip() for x in line.split(":", 1)]
    k = k.lower()
    if k == "user-agent":
        if seen_rule:
            current, seen_rule = [], False
        tok = "*" if v == "*" else re.match(r"[A-Za-z_-]*", v).group(0).lower()
        current.append(tok)
        if tok != "*":
            named.add(tok)
    elif k in ("allow", "disallow"):
        seen_rule = True
    elif k == "crawl-delay":
        for t in current:
            delays.setdefault(t, float(v))

def group_of(agent):
    a = agent.lower()
    if a in named:
        return a
    if a.startswith("googlebot-") and "googlebot" in named:
        return "googlebot"
    return "*"

def is_robots(url):
    p = re.sub(r"^[a-z]+://[^/?#;]*", "", url)
    return p == "/robots.txt" or p.startswith("/robots.txt?")

# 3. verdicts through check, per group
by_group = collections.defaultdict(list)
for i, r in enumerate(rows):
    if not is_robots(r["url"]):
        by_group[group_of(r["agent"])].append(i)
checked = 0
for g, idx in by_group.items():
    agent = g if g != "*" else "NoSuchBotZ"
    inp = "".join(rows[i]["url"] + "\n" for i in idx).encode()
    p = subprocess.run([binp, "check", "--robots", robots, "--agent", agent, "--format", "tsv"],
                       input=inp, capture_output=True)
    if p.returncode not in (0, 1):
        fail("check for %s: exit %d: %r" % (agent, p.returncode, p.stderr[:200]))
        continue
    out = list(csv.DictReader(io.StringIO(p.stdout.decode()), delimiter="\t", quoting=csv.QUOTE_NONE))
    if len(out) != len(idx):
        fail("check for %s returned %d rows for %d URLs" % (agent, len(out), len(idx)))
        continue
    for i, c in zip(idx, out):
        checked += 1
        if (rows[i]["verdict"], rows[i]["line"]) != (c["verdict"], c["line"]):
            fail("hit %d (%s %s): logs says %s/%s, check says %s/%s" % (i, rows[i]["agent"], rows[i]["url"],
                 rows[i]["verdict"], rows[i]["line"], c["verdict"], c["line"]))
for i, r in enumerate(rows):
    if is_robots(r["url"]) and (r["verdict"], r["reason"]) != ("allow", "robots-txt"):
        fail("robots.txt hit %d is %s/%s" % (i, r["verdict"], r["reason"]))

# 4. crawl-delay recomputed
def epoch(t):  # the time column is ISO 8601 UTC (SPEC 4)
    return datetime.datetime.strptime(t, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc).timestamp()

want = [0] * len(rows)
seq = collections.defaultdict(list)
for i, r in enumerate(rows):
    g = group_of(r["agent"])
    d = delays.get(g, 0) if g != "*" else delays.get("*", 0)
    if d > 0:  # /robots.txt fetches count in the spacing but are never flagged (SPEC 4)
        seq[(r["agent"], r["origin"])].append((epoch(r["time"]), i, d))
for s in seq.values():
    s.sort()
    for (t0, _, _), (t1, i, d) in zip(s, s[1:]):
        if t1 - t0 < d and not is_robots(rows[i]["url"]):
            want[i] = 1
for i, r in enumerate(rows):
    if int(r["delay_violation"]) != want[i]:
        fail("hit %d (%s at %s): delay_violation %s, recomputed %d" % (i, r["agent"], r["time"],
             r["delay_violation"], want[i]))
dv = collections.Counter(r["agent"] for r, w in zip(rows, want) if w)
for b in stats["bots"]:
    if dv[b["agent"]] != b["delay_violations"]:
        fail("delay violations of %s: recomputed %d, stats %d" % (b["agent"], dv[b["agent"]], b["delay_violations"]))

# 5. an independent count of one crawler
# combined: "request" status bytes "referer" "user agent" [more fields]
ua_re = re.compile(r'" \d{3} (?:\d+|-) "[^"]*" "([^"]*)"')
gb = 0
for line in open(log, encoding="utf-8", errors="replace"):
    m = ua_re.search(line)
    if m and re.search(r"\bGooglebot/2\.1\b", m.group(1)):
        gb += 1
if (gb or not no_bots) and hits["Googlebot"] != gb:
    fail("Googlebot/2.1 lines by regex: %d, Googlebot hits: %d" % (gb, hits["Googlebot"]))

for f in failures[:20]:
    print("FAIL:", f)
print("logs_verify: %d hits, %d re-checked through check, %d delay violations, %d Googlebot by regex, %d failures"
      % (len(rows), checked, sum(want), gb, len(failures)))
sys.exit(1 if failures else 0)
