#!/usr/bin/python3
"""tests/scale/test_dask.py ROBOTSCAN SHARED_DIR: scripts/robotscan-dask on a
LocalCluster of 2 workers gives the single run's records byte for byte and its
statistics count for count, for urls and for logs (the elastic log of
SHARED_DIR/data/logs, also converted to W3C and read as auto); and a worker killed mid-job (the test's wrapper kills
the worker running the first shard) is retried with the same result."""
import os, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DASK = os.path.join(ROOT, "scripts", "robotscan-dask")
STATS_EQUAL = os.path.join(HERE, "stats_equal.py")
failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL:", msg)


def run(args, out_path):
    with open(out_path, "wb") as out:
        p = subprocess.run(args, stdout=out, stderr=subprocess.PIPE)
    if p.returncode != 0:
        fail(f"exit {p.returncode}: {' '.join(args)}\n{p.stderr.decode(errors='replace')}")
    return p.returncode


def compare(name, tmp, single_cmd, dask_opts, robotscan_cmd):
    """single run vs robotscan-dask: records and stats."""
    s_out, s_stats = os.path.join(tmp, name + ".single"), os.path.join(tmp, name + ".single.json")
    d_out, d_stats = os.path.join(tmp, name + ".dask"), os.path.join(tmp, name + ".dask.json")
    before = failures
    if run(single_cmd + ["--stats", s_stats], s_out) != 0:
        return
    if run([DASK, "--workers", "2", "--stats", d_stats] + dask_opts + ["--"] + robotscan_cmd, d_out) != 0:
        return
    a, b = open(s_out, "rb").read(), open(d_out, "rb").read()
    n = a.count(b"\n")
    if n < 100:
        fail(f"{name}: the single run wrote only {n} lines: the test input is too small")
    if a != b:
        fail(f"{name}: records differ ({len(a)} bytes single, {len(b)} bytes sharded)")
    p = subprocess.run([sys.executable, STATS_EQUAL, s_stats, d_stats], stdout=subprocess.PIPE, text=True)
    if p.returncode != 0:
        fail(f"{name}: {p.stdout.strip()}")
    if failures == before:
        print(f"ok {name}: {n} records and every count equal")


def main():
    robotscan, shared = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    data = os.path.join(shared, "data")
    robots = os.path.join(data, "robots")
    tmp = tempfile.mkdtemp(prefix="rs-test-dask-")
    try:
        # urls: the shared URL lists, plus a blank, a comment and a malformed line
        urls = os.path.join(tmp, "urls.txt")
        with open(urls, "wb") as f:
            for name in sorted(os.listdir(os.path.join(data, "urls"))):
                f.write(open(os.path.join(data, "urls", name), "rb").read())
            f.write(b"\n# comment\nnot a url\nhttps://shop.example.com/cart\r\n")
        cmd = [robotscan, "urls", "--robots", robots, "--agent", "Googlebot", "--format", "tsv", urls]
        compare("urls", tmp, cmd[:2] + ["-j", "2"] + cmd[2:], ["--shards", "5"], cmd)

        # logs: the elastic log as written (one site: --host) ...
        elastic = os.path.join(data, "logs", "elastic-apache_logs.log")
        cmd = [robotscan, "logs", "--robots", robots, "--host", "10times.com", "--format", "jsonl", elastic]
        compare("logs-host", tmp, cmd[:2] + ["-j", "2"] + cmd[2:], ["--shards", "3"], cmd)
        # ... and repeated over 8 sites (vhost_combined), so that the shards share the work
        hosts = sorted(n[:-4] for n in os.listdir(robots) if n.endswith(".txt"))[:8]
        vh = os.path.join(tmp, "vhost.log")
        lines = open(elastic, "rb").read().splitlines(keepends=True)
        with open(vh, "wb") as f:
            for i, h in enumerate(hosts):
                port = b"443" if i % 2 == 0 else b"80"
                f.writelines(h.encode() + b":" + port + b" " + ln for ln in lines)
        cmd = [robotscan, "logs", "--robots", robots, "--log-format", "vhost_combined", "--format", "csv", vh]
        compare("logs-vhost", tmp, cmd[:2] + ["-j", "2"] + cmd[2:], ["--shards", "4"], cmd)

        # ... and converted to W3C (tests/logs_convert.py) for 4 sites, one file after the other
        # (a #Fields: line at each), read as auto: shard settles auto and copies #Fields: lines
        w3c = os.path.join(tmp, "w3c.log")
        with open(w3c, "wb") as f:
            for h in hosts[:4]:
                part = os.path.join(tmp, h + ".w3c")
                subprocess.run([sys.executable, os.path.join(ROOT, "tests", "logs_convert.py"), elastic, h, "w3c",
                                part], check=True)
                f.write(open(part, "rb").read())
        cmd = [robotscan, "logs", "--robots", robots, "--log-format", "auto", "--format", "tsv", w3c]
        compare("logs-w3c-auto", tmp, cmd, ["--shards", "4"], cmd)

        # a worker killed mid-job: the wrapper kills the Dask worker that runs it, once
        marker = os.path.join(tmp, "killed")
        wrapper = os.path.join(tmp, "robotscan-killer")
        cmd = [robotscan, "urls", "--robots", robots, "--agent", "Googlebot", "--format", "tsv", urls]
        kcmd = [wrapper] + cmd[1:]
        # called as WRAPPER SUBCOMMAND ARGS: the first shard run kills its worker (once)
        with open(wrapper, "w") as f:
            f.write("#!/bin/sh\n"
                    "case \"$1\" in shard|merge) ;; *)\n"
                    f"  if mkdir '{marker}.lock' 2>/dev/null; then echo $PPID > '{marker}'; kill -9 $PPID; sleep 5; exit 3; fi;;\n"
                    "esac\n"
                    f"exec '{robotscan}' \"$@\"\n")
        os.chmod(wrapper, 0o755)
        compare("urls-worker-killed", tmp, cmd, ["--shards", "4"], kcmd)
        if not os.path.exists(marker):
            fail("urls-worker-killed: no worker was killed")
        else:
            pid = int(open(marker).read())
            try:
                os.kill(pid, 0)
                fail(f"urls-worker-killed: worker {pid} is still alive")
            except ProcessLookupError:
                print(f"ok urls-worker-killed: worker {pid} was killed mid-job, its shard retried")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print(f"{failures} failure(s)")
        return 1
    print("test_dask: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
