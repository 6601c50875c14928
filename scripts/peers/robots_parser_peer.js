#!/usr/bin/env node
// Peer of `robotscan bench` (docs/bench.md) for robots-parser (npm), installed by scripts/deps.sh
// into build/peers/node_modules (or found on NODE_PATH). It answers only for URLs of the origin the
// robots.txt URL names, so the file is parsed again for each origin it is asked about.
// Protocol: `robots<TAB>PATH` loads a robots.txt; `AGENT<TAB>URL` asks; one allow/disallow line answers.
'use strict';
const fs = require('fs'), path = require('path');
let robotsParser;
try { robotsParser = require(path.join(__dirname, '..', '..', 'build', 'peers', 'node_modules', 'robots-parser')); }
catch (e) { robotsParser = require('robots-parser'); }
if (process.argv[2] === '--check') process.exit(0);
let body = '', parsed = null, origin = null, pending = '';
process.stdin.setEncoding('latin1');   // bytes as they come; UTF-8 decoded per line below
process.stdin.on('data', (chunk) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop();
    const out = [];
    for (const raw of lines) {
        const line = Buffer.from(raw, 'latin1').toString('utf8');
        const tab = line.indexOf('\t'), key = line.slice(0, tab), value = line.slice(tab + 1);
        if (key === 'robots') { body = fs.readFileSync(value, 'utf8'); parsed = null; continue; }
        let o;
        try { o = new URL(value).origin; } catch (e) { o = 'http://invalid.example'; }
        if (!parsed || o !== origin) { origin = o; parsed = robotsParser(o + '/robots.txt', body); }
        out.push(parsed.isDisallowed(value, key) ? 'disallow\n' : 'allow\n');
    }
    if (out.length) process.stdout.write(out.join(''));
});
