#!/usr/bin/env python3
"""python_direct.py WORKLOAD_DIR: the agreement of urllib.robotparser and Protego with a saved
workload's expected.txt, computed by calling the libraries directly (no arena, no protocol):
prints `NAME AGREED QUERIES` per library (Protego: only when installed)."""
import os, sys, urllib.robotparser

def main(folder):
    expected = open(os.path.join(folder, 'expected.txt')).read().split('\n')[:-1]
    libs = {'urllib': lambda body: (lambda rp: (rp.parse(body.splitlines()), rp)[1])(urllib.robotparser.RobotFileParser())}
    ask = {'urllib': lambda rp, agent, url: rp.can_fetch(agent, url)}
    try:
        from protego import Protego
        libs['protego'] = Protego.parse
        ask['protego'] = lambda rp, agent, url: rp.can_fetch(url, agent)
    except ImportError:
        pass
    for name in libs:
        parsed, n, agreed = None, 0, 0
        with open(os.path.join(folder, 'input.txt'), 'rb') as f:
            for raw in f:
                key, _, value = raw.rstrip(b'\n').decode('utf-8', 'replace').partition('\t')
                if key == 'robots':
                    with open(os.path.join(folder, value), 'rb') as r:
                        parsed = libs[name](r.read().decode('utf-8', 'replace'))
                    continue
                verdict = 'allow' if ask[name](parsed, key, value) else 'disallow'
                agreed += verdict == expected[n]
                n += 1
        print(name, agreed, n)

main(sys.argv[1])
