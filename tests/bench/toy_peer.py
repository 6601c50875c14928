#!/usr/bin/env python3
"""A small robots.txt matcher speaking the arena's protocol (docs/bench.md), for
tests/bench: Google's rules for plain files (groups by product token, longest
match, Allow wins a tie, `*` and `$`), and deliberate faults by option:
  --ignore-dollar   `$` is dropped from patterns      --first-match   the first matching rule wins
  --crash-after N   exits (status 3) after N answers  --sleep-at N    hangs before answer N
  --garbage-at N    answer N is "maybe"
decide(body, agent, url, ignore_dollar, first_match) is also imported by the tests."""
import re, sys, time

def groups(body):
    rules, agents, last_was_agent, out = [], [], False, []
    for raw in re.split(r'\r\n|\r|\n', body):
        line = raw.split('#', 1)[0]
        if ':' not in line:
            continue
        key, value = (s.strip() for s in line.split(':', 1))
        key = key.lower()
        if key == 'user-agent':
            if not last_was_agent:
                agents, rules = [], []
                out.append((agents, rules))
            agents.append(re.match(r'[A-Za-z_-]*', value).group(0).lower() if value != '*' else '*')
            last_was_agent = True
        elif key in ('allow', 'disallow'):
            last_was_agent = False
            if out and (value or key == 'allow'):
                rules.append((key == 'allow', value))
    return out

def matches(pattern, path):
    rx = ''.join('.*' if c == '*' else re.escape(c) for c in pattern.rstrip('$'))
    return re.match(rx + ('$' if pattern.endswith('$') else ''), path, re.S) is not None

_cache = {}

def decide(body, agent, url, ignore_dollar=False, first_match=False):
    if body not in _cache:
        _cache.clear()
        _cache[body] = groups(body)
    gs = _cache[body]
    mine = [r for a, rs in gs if agent.lower() in a for r in rs]
    if not any(agent.lower() in a for a, _ in gs):
        mine = [r for a, rs in gs if '*' in a for r in rs]
    path = re.sub(r'^[a-z]+://[^/?#;]*', '', url).split('#')[0] or '/'
    if not path.startswith('/'):
        path = '/' + path
    best = None
    for allow, pat in mine:
        p = pat.replace('$', '') if ignore_dollar else pat
        if not matches(p, path):
            continue
        if first_match:
            return 'allow' if allow else 'disallow'
        if best is None or len(pat) > best[0] or (len(pat) == best[0] and allow):
            best = (len(pat), allow)
    return 'allow' if best is None or best[1] else 'disallow'

def main(argv):
    opt = {a: (argv[i + 1] if i + 1 < len(argv) else None) for i, a in enumerate(argv)}
    crash = int(opt.get('--crash-after') or 0) if '--crash-after' in opt else -1
    sleep_at = int(opt['--sleep-at']) if '--sleep-at' in opt else -1
    garbage_at = int(opt['--garbage-at']) if '--garbage-at' in opt else -1
    body, n = '', 0
    for line in sys.stdin.buffer:
        key, _, value = line.rstrip(b'\n').decode('utf-8', 'replace').partition('\t')
        if key == 'robots':
            with open(value, 'rb') as f:
                body = f.read().decode('utf-8', 'replace')
            continue
        n += 1
        if n == crash + 1:
            sys.exit(3)
        if n == sleep_at:
            time.sleep(60)
        answer = 'maybe' if n == garbage_at else decide(body, key, value, '--ignore-dollar' in opt,
                                                        '--first-match' in opt)
        sys.stdout.write(answer + '\n')
        sys.stdout.flush()

if __name__ == '__main__':
    main(sys.argv[1:])
