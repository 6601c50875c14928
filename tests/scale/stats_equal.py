#!/usr/bin/python3
"""stats_equal.py A.json B.json: exit 0 when two robotscan --stats files hold the
same counts (docs/scale-out.md): timing and I/O fields (seconds, *_per_second,
bytes_in, bytes_out) and the names of the inputs and robots sources (a shard's
sources are per-shard manifests) are left out, keyed lists compared as
sets, top-k lists by their counts (ties may pick different members). Prints the
first difference otherwise (exit 1)."""
import json, sys

IGNORED = {"seconds", "bytes_in", "bytes_out", "inputs", "robots"}

def norm(v, name=""):
    if isinstance(v, dict):
        return {k: norm(x, k) for k, x in v.items()
                if k not in IGNORED and not k.endswith("_per_second")}
    if isinstance(v, list):
        items = [norm(x, name) for x in v]
        if name.startswith("top_"):
            return sorted(json.dumps(x.get("count") if isinstance(x, dict) else x) for x in items)
        return sorted(json.dumps(x, sort_keys=True) for x in items)
    return v

def diff(a, b, path="$"):
    if type(a) != type(b):
        return f"{path}: {a!r} != {b!r}"
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}.{k}: only in {'second' if k in b else 'first'}"
            d = diff(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} elements != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return f"{path}[{i}]: {x} != {y}"
        return None
    return None if a == b else f"{path}: {a!r} != {b!r}"

def main():
    a, b = (json.load(open(p)) for p in sys.argv[1:3])
    for name, s in (("first", a), ("second", b)):
        if not isinstance(s, dict) or "schema_version" not in s or "command" not in s:
            print(f"stats_equal: {name} file is not robotscan statistics")
            return 1
    d = diff(norm(a), norm(b))
    if d:
        print("stats differ:", d)
        return 1
    return 0

sys.exit(main())
