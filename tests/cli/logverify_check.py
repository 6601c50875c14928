#!/usr/bin/env python3
"""Independent check of `robotscan logs --verify` (called by test_logverify.sh).

Usage: logverify_check.py RANGES_DIR TSV STATS_JSON
Loads Google's range files with Python's `ipaddress`, maps them to crawler tokens as
robotscan documents it (googlebot.json: Googlebot and its variants; special-crawlers.json:
AdsBot-Google, Mediapartners-Google, ...; user-triggered-fetchers.json: FeedFetcher-Google,
...), recomputes every row's `verified` (yes: the client is in a range of its claimed bot,
no: outside them, unknown: no ranges name the bot) and per-bot verified / unverified /
spoofed counts, and compares them with the TSV and the stats JSON.
"""
import collections, csv, ipaddress, json, os, sys

MAP = {
    "googlebot.json": "Googlebot Googlebot-Image Googlebot-News Googlebot-Video Googlebot-Mobile Storebot-Google "
                      "Google-InspectionTool GoogleOther GoogleOther-Image GoogleOther-Video Google-CloudVertexBot "
                      "Google-Extended",
    "special-crawlers.json": "AdsBot-Google AdsBot-Google-Mobile AdsBot-Google-Mobile-Apps Mediapartners-Google "
                             "APIs-Google Google-Safety",
    "user-triggered-fetchers.json": "FeedFetcher-Google GoogleProducer Google-Read-Aloud Google-Site-Verification "
                                    "Google-Favicon Google_Favicon GoogleMessages",
}
rdir, tsv, stats_path = sys.argv[1:4]
nets = collections.defaultdict(list)
for fname, toks in MAP.items():
    for p in json.load(open(os.path.join(rdir, fname)))["prefixes"]:
        net = ipaddress.ip_network(p.get("ipv4Prefix") or p.get("ipv6Prefix"))
        for t in toks.split():   # "Google_Favicon" stands for the table's token "Google Favicon"
            nets[t.replace("_", " ").lower()].append(net)

def verdict(agent, client):
    ns = nets.get(agent.lower())
    if not ns:
        return "unknown"
    try:
        ip = ipaddress.ip_address(client)
    except ValueError:
        return "no"
    return "yes" if any(ip.version == n.version and ip in n for n in ns) else "no"

rows = list(csv.DictReader(open(tsv, encoding="utf-8", errors="replace"), delimiter="\t", quoting=csv.QUOTE_NONE))
stats = {b["agent"]: b for b in json.load(open(stats_path))["bots"]}
fails = []
count = collections.defaultdict(collections.Counter)
for i, r in enumerate(rows):
    want = verdict(r["agent"], r["client"])
    count[r["agent"]][want] += 1
    if r["verified"] != want:
        fails.append("row %d (%s from %s): verified %s, ipaddress says %s" % (i, r["agent"], r["client"], r["verified"], want))
for agent, c in count.items():
    s = stats.get(agent)
    got = (s["verified"], s["unverified"], s["spoofed"]) if s else None
    if got != (c["yes"], c["unknown"], c["no"]):
        fails.append("%s: stats verified/unverified/spoofed %s, recomputed %s" % (agent, got, (c["yes"], c["unknown"], c["no"])))
for f in fails[:20]:
    print("FAIL:", f)
tot = sum(count.values(), collections.Counter())
print("logverify_check: %d rows, yes %d, no %d, unknown %d; per bot: %s" % (len(rows), tot["yes"], tot["no"], tot["unknown"],
      ", ".join("%s %d/%d" % (a, c["yes"], c["no"]) for a, c in sorted(count.items()) if c["yes"] or c["no"])))
if not tot["yes"] or not tot["no"]:
    print("FAIL: the sample should have both verified and spoofed hits")
    sys.exit(1)
sys.exit(1 if fails else 0)
