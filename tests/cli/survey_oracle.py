#!/usr/bin/env python3
"""survey_oracle.py - an independent computation of `robotscan survey` records (standard library only).

Written from the text of SPEC 2.1-2.2 (reading a robots.txt: lines, keys, groups, agents) and
issue 12's class definitions; it shares no code with src/ and decides "matches every path" by
matching probe paths with a regular expression, not by looking at the pattern's bytes.

Usage: survey_oracle.py MANIFEST.tsv AGENTS_FILE SURVEY.tsv
       survey_oracle.py --sitemaps MANIFEST.tsv SITEMAPS.tsv
  MANIFEST.tsv: ORIGIN<TAB>STATUS<TAB>FILE lines (FILE absolute or relative to the manifest);
  AGENTS_FILE: one agent per line ('#' comments); SURVEY.tsv: `robotscan survey --format tsv`
  output over the same captures. Prints per-agent class counts, exits 1 on any difference.

Class of an agent at an origin whose robots.txt was fetched with 2xx (issue 12):
  blocked: some disallow rule of the agent's rules matches every path, and no allow rule that
           can match some path (index.htm-derived allows included) has a pattern at least as
           long as that disallow's (allow wins ties);
  open:    no disallow rule can match any path;
  partial: the rest.
A rule with an empty pattern decides nothing (SPEC 2.4.18: a disallow needs priority > 0), so
an empty Disallow is not a disallow rule here. 3xx/4xx -> unavailable; 5xx, error -> unreachable.
"""
import collections
import os
import re
import sys

MAX_BODY = 512000
MAX_LINE = 16663
DISALLOW_KEYS = (b"disallow", b"dissallow", b"dissalow", b"disalow", b"diasllow", b"disallaw")
PROBES = ["/", "/a", "/index.html", "/x/y/z.php?q=1&r=%20", "/robots.txt"]


def lines_of(body):
    body = body[:MAX_BODY]
    for bom in (b"\xef\xbb\xbf", b"\xef\xbb", b"\xef"):
        if body.startswith(bom):
            body = body[len(bom):]
            break
    return re.split(rb"\r\n|\r|\n", body)


def canon(v):
    v = re.sub(rb"%([0-9a-fA-F]{2})", lambda m: b"%" + m.group(1).upper(), v)
    return b"".join(b"%%%02X" % c if c >= 0x80 else bytes([c]) for c in v)


def parse(body):
    """[(kind, group, value)] for ua/rule lines + extras, as SPEC 2.1-2.2 reads them."""
    groups = []          # per group: {"tokens": [...], "global": bool, "rules": [(type, pat)], "extras": [(k, v)]}
    sitemaps = 0
    cur = None
    rule_seen = False
    for raw in lines_of(body):
        line = raw[:MAX_LINE]
        line = line.split(b"\0", 1)[0].split(b"#", 1)[0].strip()
        if not line:
            continue
        if b":" in line:
            key, value = line.split(b":", 1)
            key, value = key.strip(), value.strip()
        else:
            words = re.split(rb"[ \t]+", line)
            if len(words) != 2:
                continue
            key, value = words
        if not key:
            continue
        k = key.lower()
        if k.startswith(b"user-agent") or k.startswith(b"useragent") or k.startswith(b"user agent"):
            if cur is None or rule_seen:
                cur = {"tokens": [], "global": False, "rules": [], "extras": []}
                groups.append(cur)
                rule_seen = False
            if value == b"*" or re.match(rb"\*[ \t]", value):
                cur["global"] = True
            else:
                tok = re.match(rb"[A-Za-z_-]*", value).group(0)
                if tok:
                    cur["tokens"].append(tok.lower())
        elif k.startswith(b"allow") or k.startswith(DISALLOW_KEYS):
            if cur is None:
                continue
            rule_seen = True
            cur["rules"].append(("allow" if k.startswith(b"allow") else "disallow", canon(value)))
        elif k.startswith(b"sitemap") or k.startswith(b"site-map"):
            sitemaps += 1
        else:
            if cur is not None:
                cur["extras"].append((k, value))
    return groups, sitemaps


def to_regex(pat):
    s = pat.decode("latin-1")
    anchored = s.endswith("$")
    if anchored:
        s = s[:-1]
    rx = "".join(".*" if ch == "*" else re.escape(ch) for ch in s)
    return re.compile(rx + (r"\Z" if anchored else ""), re.S)


def can_match(pat):
    return len(pat) > 0 and pat[:1] in (b"/", b"*")


def matches_every_path(pat):
    if not can_match(pat):
        return False
    rx = to_regex(pat)
    return all(rx.match(p) for p in PROBES)


def derived_len(pat):
    i = pat.rfind(b"/")
    if i >= 0 and pat[i:].startswith(b"/index.htm"):
        return i + 2       # "/dir/" + "$"
    return 0


def classify(rules):
    dis = [p for t, p in rules if t == "disallow" and can_match(p)]
    if not dis:
        return "open"
    allows = [p for t, p in rules if t == "allow" and can_match(p)]
    longest_allow = max([len(p) for p in allows] + [derived_len(p) for p in allows] + [0])
    for d in dis:
        if matches_every_path(d) and not longest_allow >= len(d):
            return "blocked"
    return "partial"


def crawl_delay(groups):
    for g in groups:
        for k, v in g["extras"]:
            if k == b"crawl-delay" and re.fullmatch(rb"[0-9]+(\.[0-9]*)?|\.[0-9]+", v):
                return v.decode("latin-1")
    return ""


def survey_file(body, agents):
    groups, sitemaps = parse(body)
    out, memo = {}, {}
    for a in agents:
        named = [i for i, g in enumerate(groups) if a.lower().encode("latin-1") in g["tokens"]]
        if named:
            sel, grp = named, "named"
        else:
            sel = [i for i, g in enumerate(groups) if g["global"]]
            grp = "star" if sel else "none"
        key = (grp, tuple(sel))
        if key not in memo:
            chosen = [groups[i] for i in sel]
            rules = [r for g in chosen for r in g["rules"]]
            memo[key] = (classify(rules), grp, crawl_delay(chosen), str(sitemaps))
        out[a] = memo[key]
    return out


def sitemap_lines(body):
    """[(line number, value)] of the Sitemap lines, as SPEC 2.1 reads them."""
    out = []
    for n, raw in enumerate(lines_of(body), 1):
        line = raw[:MAX_LINE].split(b"\0", 1)[0].split(b"#", 1)[0].strip()
        if b":" in line:
            key, value = (x.strip() for x in line.split(b":", 1))
        else:
            words = re.split(rb"[ \t]+", line)
            if len(words) != 2:
                continue
            key, value = words
        if key.lower().startswith((b"sitemap", b"site-map")):
            out.append((n, value))
    return out


def sitemap_valid(v):
    """An absolute http(s) URL: scheme, '//', a host of letters, digits, '-', '.', '_' (an optional port)."""
    return re.fullmatch(rb"(?i)https?://[A-Za-z0-9._\x80-\xff-]*[A-Za-z0-9\x80-\xff](:[0-9]{1,5})?([/?#][\x21-\x7e\x80-\xff]*)?", v) is not None


def main_sitemaps(manifest, got_file):
    base = os.path.dirname(os.path.abspath(manifest))
    expect = []
    for line in open(manifest, encoding="utf-8"):
        f = line.rstrip("\n").split("\t")
        if len(f) < 3 or line.startswith("#") or not f[1].startswith("2"):
            continue
        seen = set()
        for n, v in sitemap_lines(open(os.path.join(base, f[2]), "rb").read(MAX_BODY)):
            if v in seen:
                continue
            seen.add(v)
            expect.append((f[0].encode(), v, str(n).encode(), b"yes" if sitemap_valid(v) else b"no"))
    got = []
    with open(got_file, "rb") as f:
        if f.readline() != b"origin\tsitemap\tline\tvalid\n":
            sys.exit("bad header")
        for line in f:
            got.append(tuple(line.rstrip(b"\n").split(b"\t")))
    bad = [(e, g) for e, g in zip(expect, got) if e != g]
    for e, g in bad[:10]:
        print("DIFF oracle %r, sitemaps %r" % (e, g))
    print("%d records expected, %d written, %d differ, %d invalid" %
          (len(expect), len(got), len(bad), sum(1 for e in expect if e[3] == b"no")))
    sys.exit(1 if bad or len(expect) != len(got) or not expect else 0)


def main():
    if sys.argv[1] == "--sitemaps":
        return main_sitemaps(sys.argv[2], sys.argv[3])
    manifest, agents_file, survey = sys.argv[1:4]
    agents = [l.strip() for l in open(agents_file, encoding="utf-8") if l.strip() and not l.startswith("#")]
    base = os.path.dirname(os.path.abspath(manifest))
    expect = {}
    for line in open(manifest, encoding="utf-8"):
        f = line.rstrip("\n").split("\t")
        if len(f) < 2 or line.startswith("#"):
            continue
        origin, status = f[0], f[1]
        if status == "error" or int(status) >= 500:
            for a in agents:
                expect[(origin, a)] = ("unreachable", "none", "", "0")
        elif int(status) >= 300:
            for a in agents:
                expect[(origin, a)] = ("unavailable", "none", "", "0")
        else:
            body = open(os.path.join(base, f[2]), "rb").read(MAX_BODY)
            for a, r in survey_file(body, agents).items():
                expect[(origin, a)] = r
    got = {}
    with open(survey, encoding="utf-8", errors="surrogateescape") as f:
        head = f.readline().rstrip("\n").split("\t")
        if head != ["origin", "agent", "class", "group", "crawl_delay", "sitemaps"]:
            sys.exit("bad header: %r" % head)
        for line in f:
            c = line.rstrip("\n").split("\t")
            got[(c[0], c[1])] = tuple(c[2:6])
    bad = 0
    for k in sorted(set(expect) | set(got)):
        if expect.get(k) != got.get(k):
            bad += 1
            if bad <= 10:
                print("DIFF %s %s: oracle %s, survey %s" % (k[0], k[1], expect.get(k), got.get(k)))
    counts = collections.defaultdict(collections.Counter)
    for (o, a), r in expect.items():
        counts[a][r[0]] += 1
    for a in agents[:3] + agents[-6:]:
        print("%-16s %s" % (a, dict(sorted(counts[a].items()))))
    print("%d records compared, %d differ" % (len(set(expect) | set(got)), bad))
    sys.exit(1 if bad or not expect else 0)


if __name__ == "__main__":
    main()
