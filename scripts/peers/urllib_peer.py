#!/usr/bin/env python3
"""Peer of `robotscan bench` (docs/bench.md) for Python's urllib.robotparser.
Protocol: `robots<TAB>PATH` loads a robots.txt; `AGENT<TAB>URL` asks; one allow/disallow line answers.
Input is read in chunks and the answers of a chunk written at once (one write, not one per line)."""
import os, sys, urllib.robotparser

def load(path):
    with open(path, 'rb') as f:
        body = f.read().decode('utf-8', 'replace')   # read() decodes UTF-8 too
    rp = urllib.robotparser.RobotFileParser()
    rp.parse(body.splitlines())
    return rp

rp, pending = load(os.devnull), b''
while True:
    chunk = os.read(0, 1 << 16)
    if not chunk:
        break
    *lines, pending = (pending + chunk).split(b'\n')
    out = []
    for line in lines:
        key, _, value = line.decode('utf-8', 'replace').partition('\t')
        if key == 'robots':
            rp = load(value)
        else:
            out.append('allow\n' if rp.can_fetch(key, value) else 'disallow\n')
    if out:
        os.write(1, ''.join(out).encode())
