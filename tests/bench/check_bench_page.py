#!/usr/bin/env python3
"""check_bench_page.py CHROMIUM PAGE.html OUTDIR LEADERBOARD.json: opens a `robotscan bench --html`
page in headless Chromium (tests/report/check_page.py's launch: no console message, no network
request by the page, a screenshot that is not blank) and checks that its tables hold the JSON's
figures, peer by peer, and that each peer has its bars. --no-browser: the DOM checks on the file."""
import json, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'report'))
import check_page as cp

def grouped(v):
    return '-' if v is None else '{:,}'.format(int(v))

def agreement(a):
    if a is None:
        return '-'
    return '99.999%' if 99.9995 <= a < 100 else '%.3f%%' % a

def main(argv):
    browser = argv[0] != '--no-browser'
    chromium, page, outdir, js = argv[:4]
    os.makedirs(outdir, exist_ok=True)
    if browser:
        dom_text, stderr, shot, _, netlog = cp.run_chromium(chromium, page, outdir, pdf_too=False)
        for m in cp.console_messages(stderr):
            cp.fail('console: ' + m[:300])
        for u in cp.page_requests(netlog)[0]:
            cp.fail('network request by the page: ' + u[:200])
    else:
        dom_text = open(page, encoding='utf-8').read()
    dom = cp.Dom()
    dom.feed(dom_text)
    doc = json.load(open(js))
    n = 0
    for w in doc['workloads']:
        _, rows = dom.table('Leaderboard: ' + w['name'])
        if rows is None:
            cp.fail('no leaderboard table for ' + w['name'])
            continue
        for p in w['peers']:
            want = [p['name'], p['status'], grouped(p['queries_per_s']), grouped(p['files_per_s'])]
            want += [agreement(p['agreement_pct']), grouped(p['disagreements'])]
            got = [r for r in rows if r and r[0] == p['name']]
            if not got or [got[0][i] for i in (0, 1, 2, 3, 5, 6)] != want:
                cp.fail('%s: row %s, want %s' % (w['name'], got[:1], want))
            n += 1
            for what in ('queries per second', 'agreement with the reference'):
                if not any(t.startswith(p['name'] + ': ') for t in dom.svg_titles):
                    cp.fail('%s: no bar for %s (%s)' % (w['name'], p['name'], what))
    if browser:
        cp.check_screenshot(shot)
    print('%d peer rows checked; %s' % (n, '%d failure(s)' % len(cp.failures) if cp.failures else 'all checks passed'))
    return 1 if cp.failures else 0

sys.exit(main(sys.argv[1:]))
