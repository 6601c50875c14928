#!/usr/bin/env python3
"""Peer of `robotscan bench` (docs/bench.md) for Protego (Debian python3-protego), Scrapy's parser.
Protocol: `robots<TAB>PATH` loads a robots.txt; `AGENT<TAB>URL` asks; one allow/disallow line answers."""
import os, sys
from protego import Protego

def load(path):
    with open(path, 'rb') as f:
        return Protego.parse(f.read().decode('utf-8', 'replace'))

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
            out.append('allow\n' if rp.can_fetch(value, key) else 'disallow\n')
    if out:
        os.write(1, ''.join(out).encode())
