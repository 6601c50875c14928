#!/usr/bin/env python3
"""Peer of `robotscan bench` (docs/bench.md) for robotscan's Python binding (python/robotscan,
found beside this script in a clone, else installed). URLs are passed as the bytes received.
Protocol: `robots<TAB>PATH` loads a robots.txt; `AGENT<TAB>URL` asks; one allow/disallow line answers."""
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'python'))
import robotscan

def load(path):
    with open(path, 'rb') as f:
        return robotscan.Robots(f.read())

rp, pending = load(os.devnull), b''
while True:
    chunk = os.read(0, 1 << 16)
    if not chunk:
        break
    *lines, pending = (pending + chunk).split(b'\n')
    out = []
    for line in lines:
        key, _, value = line.partition(b'\t')
        if key == b'robots':
            rp = load(value)
        else:
            out.append('allow\n' if rp.allowed(value, key.decode('utf-8', 'replace')) else 'disallow\n')
    if out:
        os.write(1, ''.join(out).encode())
