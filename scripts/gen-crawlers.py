#!/usr/bin/env python3
"""gen-crawlers.py - builds robotscan's built-in table of known crawlers.

Reads the crawler lists in ../shared/data/agents/ (or the directory given as
the first argument) and writes, deterministically:
  data/crawlers.tsv          token, parent, ignores_star, kind, sources
  src/log/crawlers_table.c   the same rows as C data (rs_crawler_table())

Standard library only; run from the repository root:  python3 scripts/gen-crawlers.py

Sources (all MIT licensed):
  monperrus/crawler-user-agents  crawler-user-agents.json   patterns + real UA strings
  ai-robots-txt/ai.robots.txt    robots.json                AI crawler product tokens
  commoncrawl/robotstxt-experiments  user-agents-frequent.csv  tokens named in robots.txt

How a token is chosen (the same word rules as rs_bot_identify() in src/log/bots.c):
  * A word starts at the start of the UA or after a byte that is not
    [A-Za-z0-9_./-], and ends before a byte that is not [A-Za-z0-9_-].
  * monperrus: for each real UA string ("instance") of an entry, the word that
    contains the start of the entry's regex match is taken (it may contain a
    `.` inside, like archive.org_bot, unless the part after the last `.` looks
    like a file or domain suffix: bingbot.htm, yandex.com). A version suffix
    (`-1.20-SNAPSHOT`, `_2.6.3`) is cut (the identifier finds a token followed
    by `-` or `_` when no whole-word token matches); words inside URLs (after `/`, `.`) are not word starts and
    are never taken. The casing kept is the most frequent among instances.
    Entries without instances contribute their pattern when it is a plain
    word containing bot/crawler/spider.
  * ai.robots.txt: every key, with a trailing version (`/2.0`, ` 1.0`) cut.
  * Common Crawl: a token named in >= 10,000 robots.txt files is added when it
    occurs as a word in some real UA string of monperrus (the casing is taken
    from there); otherwise it only annotates a token found elsewhere.
  * Dropped: tokens shorter than 3 bytes, without 2 letters, and generic
    words of browser user agents or plain English (GENERIC below; the C side
    refuses the same words as robots.txt candidates, rs_bot_token_is_generic).
Family rules and the ignores-`*` flag are not in any source: they are the
FAMILY and IGNORES_STAR lists below, each with the documentation it follows.

The `kind` of a token (what the HTML report groups bots by) comes from the
sources' own categories (kind_of() below):
  * crawlers, which robots.txt governs: search, ai, seo, archive, ads,
    academic, scanner, other (a crawler no source categorises);
  * fetcher: user-triggered fetchers (feed readers, link previews, uptime
    monitors, AI assistants fetching a page a user asked for), which do not
    read robots.txt (Google documents this for its own, USER_TRIGGERED);
  * library: HTTP libraries and browser automation (curl, python-requests).
monperrus tags map as TAG_KIND; ai.robots.txt's "AI Assistants/Agents"
functions are fetchers, its other entries ai.
"""
import csv
import json
import os
import re
import sys
from collections import Counter, OrderedDict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
AGENTS = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, '..', 'shared', 'data', 'agents')

# Words of browser user agents and plain words that would misfire (`naver`:
# the NAVER app's in-app browser says `NAVER(inapp; ...)`; its crawler is
# Yeti). Written
# into crawlers_table.c too: rs_bot_token_is_generic() refuses them as
# robots.txt candidates.
GENERIC = sorted({
    'mozilla', 'compatible', 'applewebkit', 'khtml', 'like', 'gecko', 'chrome', 'chromium',
    'safari', 'firefox', 'opera', 'opr', 'edge', 'edg', 'msie', 'trident', 'version', 'mobile',
    'windows', 'win64', 'wow64', 'x64', 'linux', 'android', 'iphone', 'ipad', 'macintosh',
    'intel', 'cpu', 'ubuntu', 'build', 'browser', 'samsungbrowser', 'ucbrowser', 'yabrowser',
    'vivaldi', 'silk', 'electron', 'webview', 'profile', 'configuration', 'midp', 'cldc',
    'iemobile', 'touch', 'nokia', 'blackberry', 'http', 'https', 'www', 'com', 'org', 'net',
    'html', 'htm', 'bot', 'bots', 'robot', 'robots', 'crawler', 'spider', 'spyder', 'agent',
    'user', 'client', 'fetch', 'fetcher', 'code', 'cursor', 'operator', 'search', 'google',
    'yahoo', 'bing', 'amazon', 'apple', 'microsoft', 'facebook', 'domain', 'collection',
    'james', 'jamie', 'buck', 'sentry', 'newspaper', 'harvest', 'titan', 'cosmos', 'octopus',
    'widow', 'disco', 'takeout', 'zeus', 'crescent', 'spanner', 'riddler', 'the', 'and',
    'for', 'with', 'java', 'python', 'perl', 'php', 'ruby', 'test', 'unknown', 'null',
    'tool', 'app', 'web', 'site', 'page', 'link', 'links', 'news', 'image', 'video',
    'bad', 'better', 'crazy', 'critical', 'current', 'dark', 'dead', 'dow', 'download',
    'downloader', 'feed', 'friendly', 'ghost', 'hello', 'hype', 'known', 'magnet', 'generic',
    'website', 'webhook', 'speedy', 'fluid', 'anchor', 'accessible', 'adventurer', 'butterfly',
    'charlotte', 'hawaii', 'indy', 'centro', 'cert', 'ibm', 'b2b', 'dlc', 'idg', 'fdl',
    'let', 'library', 'make', 'optimizer', 'readable', 'uptime', 'screaming', 'sonic',
    'expanse', 'spectate', 'synapse', 'valve', 'verity', 'vigil', 'odin', 'rigor', 'notion',
    'trae', 'tumblr', 'viber', 'stripe', 'potions', 'golfe', 'determ', 'minoru', 'magellan',
    'mobile safari', 'monitor', 'ssl', 'tls', 'naver', 'checker', 'scanner', 'proxy', 'reader', 'parser', 'preview',
})

# Crawler families: a crawler without a robots.txt group of its own follows
# its parent's group (checked nearest first).
FAMILY = OrderedDict([
    # Google's crawler table / robots.txt specification ("Googlebot Images: no
    # googlebot-images group, so the more generic group is followed").
    ('Googlebot-Image', 'Googlebot'),
    ('Googlebot-News', 'Googlebot'),
    ('Googlebot-Video', 'Googlebot'),
    ('Googlebot-Mobile', 'Googlebot'),
    ('GoogleOther-Image', 'GoogleOther'),
    ('GoogleOther-Video', 'GoogleOther'),
    # Yandex's robots.txt help: `User-agent: Yandex` addresses all Yandex robots;
    # a group naming a specific robot takes precedence.
    ('YandexBot', 'Yandex'),
    ('YandexImages', 'Yandex'),
    ('YandexMobileBot', 'Yandex'),
    ('YandexDirect', 'Yandex'),
    ('YandexNews', 'Yandex'),
    ('YandexMetrika', 'Yandex'),
    ('YandexAdditional', 'Yandex'),
    ('YandexAdditionalBot', 'Yandex'),
])
FAMILY_SOURCE = {'Googlebot': 'google-spec', 'GoogleOther': 'google-crawlers', 'Yandex': 'yandex-help'}

# Google's special-case crawlers documented to ignore the global `*` group
# (developers.google.com, "List of Google's special-case crawlers").
IGNORES_STAR = ['APIs-Google', 'AdsBot-Google', 'AdsBot-Google-Mobile',
                'AdsBot-Google-Mobile-Apps', 'Mediapartners-Google']

# Google's user-triggered fetchers ("Google's user-triggered fetchers",
# developers.google.com/crawling/docs/crawlers-fetchers/google-user-triggered-fetchers):
# "they generally ignore robots.txt rules". Only annotates tokens the sources give.
USER_TRIGGERED = ['FeedFetcher-Google', 'Google-Read-Aloud', 'GoogleProducer', 'Google-Site-Verification',
                  'Google-CWS', 'Google-NotebookLM', 'Google-Pinpoint', 'Google Favicon']

# monperrus tags -> kind, the first that applies wins (a search engine that
# also trains models stays search; a crawler tag beats a fetcher tag).
TAG_KIND = [('search-engine', 'search'), ('ai-crawler', 'ai'), ('archiver', 'archive'),
            ('academic', 'academic'), ('seo', 'seo'), ('advertising', 'ads'), ('scanner', 'scanner'),
            ('feed-reader', 'fetcher'), ('social-preview', 'fetcher'), ('monitoring', 'fetcher'),
            ('http-library', 'library'), ('browser-automation', 'library')]
AI_FETCHER_FUNCTIONS = re.compile(r'(?i)assistant|agents?\b|companion')
KINDS = ['search', 'ai', 'seo', 'archive', 'ads', 'academic', 'scanner', 'other', 'fetcher', 'library']


def kind_of(lo, tags, ai_function):
    if lo in {t.lower() for t in USER_TRIGGERED}:
        return 'fetcher'
    for tag, kind in TAG_KIND:
        if tag in tags:
            if kind == 'ai' and ai_function is not None and AI_FETCHER_FUNCTIONS.search(ai_function):
                return 'fetcher'
            return kind
    if ai_function is not None:
        return 'fetcher' if AI_FETCHER_FUNCTIONS.search(ai_function) else 'ai'
    return 'other'


# Tokens the table must have even if no source spells them (family parents).
REQUIRED = ['Googlebot', 'Yandex', 'GoogleOther']

WORD = re.compile(r'[A-Za-z0-9_-]')
LEFT_BAD = re.compile(r'[A-Za-z0-9_./-]')
SUFFIX_TLD = re.compile(r'(?i)^(com|org|net|ru|fr|de|uk|jp|cn|io|info|biz|html?|php|asp|aspx|jsp|cgi|pl|nl|be|it|es|ch|at|se|no|pl|cz|us|ca|co|br|in|eu|me|tv|cc|ai|app|dev)$')
VERSION = re.compile(r'^(.*?[A-Za-z])[-_ ]?v?\d+([.\-_]\w+)*$')


def plausible(tok):
    if len(tok) < 3 or len(re.findall(r'[A-Za-z]', tok)) < 3 or not re.match(r'[A-Za-z0-9]', tok):
        return False
    if tok.lower() in GENERIC:
        return False
    return True


def word_at(ua, start):
    """The word (per the module rules, `.` allowed inside) containing ua[start]."""
    s = start
    while s > 0 and (WORD.match(ua[s - 1]) or (ua[s - 1] == '.' and s > 1 and WORD.match(ua[s - 2]))):
        s -= 1
    e = start
    while e < len(ua) and (WORD.match(ua[e]) or (ua[e] == '.' and e + 1 < len(ua) and WORD.match(ua[e + 1]))):
        e += 1
    return s, e


def ends_word(ua, s, e):
    """rs_bot_identify's rule: ua[s:e] starts a word and ends one."""
    if s > 0 and LEFT_BAD.match(ua[s - 1]):
        return False
    return e == len(ua) or not WORD.match(ua[e])


MULTI = re.compile(r'[A-Za-z][A-Za-z0-9_.-]*( [A-Za-z0-9][A-Za-z0-9_.-]*){1,3}')


def token_from_instance(ua, pos, end):
    # A pattern of two to four words (`Dead Link Checker`) is the product name.
    text = re.match(r'[A-Za-z0-9_. -]*', ua[pos:end]).group().rstrip(' .')
    if ' ' in text and MULTI.fullmatch(text) and ends_word(ua, pos, pos + len(text)):
        return text
    s, e = word_at(ua, pos)
    if s == e or (s > 0 and LEFT_BAD.match(ua[s - 1])) or '.' in ua[s:pos] or ua[e:e + 1] == '@':
        return None  # inside a URL, a host name or an e-mail address
    tok = ua[s:e]
    if '.' in tok and SUFFIX_TLD.match(tok.rsplit('.', 1)[1]):
        return None  # a file name or a domain, not a product
    m = VERSION.match(tok)
    if m and re.search(r'[A-Za-z]{3,}', re.sub(r'(?i)snapshot|beta|alpha|dev', '', tok[len(m.group(1)):])):
        m = None   # `zebra-v2-bot`: what follows the digits is a word, not a version
    if m and (ends_word(ua, s, s + len(m.group(1))) or ua[s + len(m.group(1))] in '-_'):
        tok = m.group(1)
    if not ends_word(ua, s, s + len(tok)) and ua[s + len(tok)] not in '-_':
        return None
    return tok


def main():
    casing = {}            # lower -> Counter of spellings
    tags = {}              # lower -> set of monperrus tags
    ai_function = {}       # lower -> ai.robots.txt "function"
    sources = {}           # lower -> set of source names
    instances = []

    def add(tok, src, weight=1):
        lo = tok.lower()
        casing.setdefault(lo, Counter())[tok] += weight
        sources.setdefault(lo, set()).add(src)

    with open(os.path.join(AGENTS, 'monperrus_crawler-user-agents.json'), encoding='utf-8') as f:
        mon = json.load(f)
    for entry in mon:
        pat = entry['pattern']
        insts = entry.get('instances', [])
        instances.extend(insts)
        found = False
        for ua in insts:
            # The first occurrence that is a product token (not an e-mail or
            # URL), trying the pattern as written, then ignoring case.
            for m in list(re.finditer(pat, ua)) + list(re.finditer(pat, ua, re.I)):
                tok = token_from_instance(ua, m.start(), m.end())
                if tok and plausible(tok):
                    add(tok, 'monperrus')
                    tags.setdefault(tok.lower(), set()).update(entry.get('tags', []))
                    found = True
                    break
        if not found and not insts:
            lit = re.sub(r'\\(.)', r'\1', pat)
            if re.fullmatch(r'[A-Za-z][A-Za-z0-9_-]+', lit) and re.search(r'(?i)bot|crawler|spider', lit) \
                    and plausible(lit):
                add(lit, 'monperrus')
                tags.setdefault(lit.lower(), set()).update(entry.get('tags', []))

    with open(os.path.join(AGENTS, 'ai.robots.txt_robots.json'), encoding='utf-8') as f:
        ai = json.load(f)
    for key in ai:
        tok = re.sub(r'(/| )v?\d[\d.]*$', '', key.strip())
        if plausible(tok):
            add(tok, 'ai.robots.txt', 2)   # the project's own spelling wins ties
            ai_function.setdefault(tok.lower(), str(ai[key].get('function', '')))

    with open(os.path.join(AGENTS, 'commoncrawl_robotstxt-experiments_user-agents-frequent.csv'),
              encoding='utf-8') as f:
        rows = list(csv.reader(f))[1:]
    for row in rows:
        lo, cnt = row[0].strip().lower(), int(row[1])
        if lo in casing:
            sources[lo].add('commoncrawl')
            continue
        if cnt < 10000 or not re.fullmatch(r'[a-z0-9][a-z0-9_.-]*', lo) or not plausible(lo):
            continue
        spell = Counter()
        for ua in instances:
            for m in re.finditer(re.escape(lo), ua, re.I):
                if ends_word(ua, m.start(), m.end()):
                    spell[ua[m.start():m.end()]] += 1
        if spell:
            for tok, n in spell.items():
                add(tok, 'commoncrawl', n)

    for tok in list(FAMILY) + list(FAMILY.values()) + IGNORES_STAR + REQUIRED:
        if tok.lower() not in casing:
            add(tok, 'manual')
        else:
            casing[tok.lower()][tok] += 1000   # documented spelling

    rows = []
    family = {k.lower(): v for k, v in FAMILY.items()}
    star = {t.lower() for t in IGNORES_STAR}
    for lo in sorted(casing):
        tok = sorted(casing[lo].items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
        srcs = set(sources[lo])
        parent = family.get(lo, '')
        if parent:
            srcs.add(FAMILY_SOURCE[parent])
        if lo in star:
            srcs.add('google-special-crawlers')
        if lo in {t.lower() for t in USER_TRIGGERED}:
            srcs.add('google-user-triggered-fetchers')
        kind = kind_of(lo, tags.get(lo, set()), ai_function.get(lo))
        if kind == 'other' and parent in ('Googlebot', 'Yandex'):
            kind = 'search'   # a search engine's family member the sources do not categorise
        rows.append((tok, parent, 1 if lo in star else 0, kind, ','.join(sorted(srcs))))

    tsv = os.path.join(ROOT, 'data', 'crawlers.tsv')
    os.makedirs(os.path.dirname(tsv), exist_ok=True)
    with open(tsv, 'w', encoding='utf-8', newline='\n') as f:
        f.write('# Generated by scripts/gen-crawlers.py; do not edit. See data/README.md.\n')
        f.write('token\tparent\tignores_star\tkind\tsources\n')
        for r in rows:
            f.write('%s\t%s\t%d\t%s\t%s\n' % r)

    def cstr(s):
        return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'

    out = os.path.join(ROOT, 'src', 'log', 'crawlers_table.c')
    with open(out, 'w', encoding='utf-8', newline='\n') as f:
        f.write('/*\n * crawlers_table.c - the built-in table of known crawler product tokens.\n'
                ' *\n * GENERATED by scripts/gen-crawlers.py from ../shared/data/agents/; do not edit,\n'
                ' * re-run the script. The same rows are in data/crawlers.tsv.\n'
                ' *\n * Sources (MIT licence each):\n'
                ' *   monperrus/crawler-user-agents (crawler-user-agents.json), MIT\n'
                ' *   ai-robots-txt/ai.robots.txt (robots.json), MIT\n'
                ' *   commoncrawl/robotstxt-experiments (user-agents-frequent.csv), MIT\n'
                ' * Family and ignores-`*` rows follow Google\'s and Yandex\'s crawler documentation\n'
                ' * (see the script). Only data here; the matching is in bots.c.\n */\n')
        f.write('#include "log/bots.h"\n\n')
        f.write('const rs_crawler_info rs_crawlers_builtin[] = {\n')
        for tok, parent, st, _, _ in rows:
            f.write('    {%s, %s, %s},\n' % (cstr(tok), cstr(parent) if parent else 'NULL',
                                             'RS_BOT_IGNORES_STAR' if st else '0'))
        f.write('};\n\nconst size_t rs_crawlers_builtin_count = sizeof rs_crawlers_builtin / sizeof rs_crawlers_builtin[0];\n\n')
        f.write('/* The kind of each row of rs_crawlers_builtin (same order): rs_crawler_kind in bots.h. */\n')
        f.write('const unsigned char rs_crawlers_builtin_kind[] = {\n')
        for i in range(0, len(rows), 6):
            f.write('    ' + ', '.join('RS_KIND_' + r[3].upper() for r in rows[i:i + 6]) + ',\n')
        f.write('};\n_Static_assert(sizeof rs_crawlers_builtin_kind == sizeof rs_crawlers_builtin / '
                'sizeof rs_crawlers_builtin[0],\n               "one kind per row");\n\n')
        f.write('/* Generic words (lower case, sorted) that never identify a crawler. */\n')
        f.write('const char *const rs_crawlers_generic[] = {\n')
        for w in GENERIC:
            f.write('    %s,\n' % cstr(w))
        f.write('};\n\nconst size_t rs_crawlers_generic_count = sizeof rs_crawlers_generic / sizeof rs_crawlers_generic[0];\n')
    print('%d tokens -> %s, %s' % (len(rows), os.path.relpath(tsv, ROOT), os.path.relpath(out, ROOT)))


if __name__ == '__main__':
    main()
