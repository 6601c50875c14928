"""Bulk jobs from Python (robotscan.urls, robotscan.logs; SPEC 8): the records and the
statistics equal the command's (`robotscan urls|logs --format jsonl --input-line --stats F`)
on the bundled data (build/testdata after `make testdata`, or RS_SHARED_DIR), with workers
and under a small memory limit (partitions); a job abandoned half-way releases its threads
and temporary files; failures raise with the library's message; callback exceptions
reach the caller; and the checker used here fails on a wrong answer.

The logs tests skip, with the reason, until the library has RS_JOB_LOGS
(rs_job_create(RS_JOB_LOGS) returns NULL before it lands)."""
import codecs
import gc
import gzip
import json
import os
import subprocess
import threading
import time
from array import array

import pytest

import robotscan
from robotscan import RobotscanError, UrlRecord
from robotscan import bulk

AGENTS = ["Googlebot", "GPTBot"]
URLS = "ada-url-kasztp.txt"         # 48,009 real URLs over 22,149 hosts
HOSTS = "protego-top-10000-websites.txt"
# Fields of the statistics that are timings: never equal between two runs.
TIMING = ("seconds",)
# A robots.txt for the logs tests: some hits of the bundled logs are disallowed, some
# come sooner than the delay.
LOG_ROBOTS = b"User-agent: *\nDisallow: /filter/\nDisallow: /images/\nCrawl-delay: 10\n"


# ===== Helpers: the command's answers, and the checkers =====

@pytest.fixture(scope="module")
def data(shared_dir):
    d = os.path.join(shared_dir, "data")
    if not os.path.isfile(os.path.join(d, "urls", URLS)):
        pytest.skip("no %s under %s/urls (make testdata)" % (URLS, d))
    return d


def run_cli(binp, command, args, inputs, tmp_path):
    """The command's records (JSONL, as dicts), statistics (dict) and stderr."""
    stats = tmp_path / ("cli-stats-%d.json" % time.monotonic_ns())
    p = subprocess.run([binp, command, "--format", "jsonl", "--input-line", "--stats", str(stats)]
                       + args + list(inputs), capture_output=True, timeout=300)
    assert p.returncode == 0, p.stderr.decode("utf-8", "replace")
    recs = [json.loads(line) for line in p.stdout.splitlines()]
    return recs, json.loads(stats.read_text()), p.stderr.decode("utf-8", "replace")


def _cli_bytes_error(e):
    """The CLI's JSON strings show a byte that is not UTF-8 as U+00XX."""
    return "".join(chr(b) for b in e.object[e.start:e.end]), e.end


codecs.register_error("robotscan-cli", _cli_bytes_error)


def as_cli(rec):
    """A record as the command's JSONL line reads back: a dict by column, bytes that are
    not UTF-8 (surrogate-escaped in Python's str) as the CLI's \\u00XX."""
    out = {}
    for k, v in rec._asdict().items():
        if isinstance(v, str):
            v = v.encode("utf-8", "surrogateescape").decode("utf-8", "robotscan-cli")
        out[k] = v
    return out


def assert_same_records(py, cli):
    """py (records from robotscan.urls/logs) equal cli (dicts from the JSONL), in order:
    the first difference is named."""
    for i, (p, c) in enumerate(zip(py, cli)):
        pd = as_cli(p)
        assert pd == c, "record %d differs:\n  python %r\n  cli    %r" % (i, pd, c)
        for k in c:   # numbers stay numbers, strings strings (1 != "1"; also True == 1)
            assert type(pd[k]) is type(c[k]), "record %d, %s: %r vs %r" % (i, k, pd[k], c[k])
    assert len(py) == len(cli), "python gave %d records, the command %d" % (len(py), len(cli))


def without_timing(v):
    if isinstance(v, dict):
        return {k: without_timing(x) for k, x in v.items()
                if k not in TIMING and not k.endswith("_per_second")}
    if isinstance(v, list):
        return [without_timing(x) for x in v]
    return v


def assert_same_stats(py, cli):
    assert py is not None, "no statistics from the Python job"
    a, b = without_timing(py), without_timing(cli)
    for k in sorted(set(a) | set(b)):
        assert a.get(k) == b.get(k), "statistics differ at %r:\n  python %r\n  cli    %r" % (
            k, str(a.get(k))[:300], str(b.get(k))[:300])


def tasks():
    """The process's threads, the library's C worker threads included."""
    return len(os.listdir("/proc/self/task"))


def open_in(d):
    """Descriptors of this process open on files in @d (spill files, unlinked at once)."""
    d = os.path.realpath(str(d)) + os.sep
    out = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink("/proc/self/fd/" + fd)
        except OSError:
            continue
        if target.startswith(d):
            out.append(target)
    return out


def settle(baseline_threads, baseline_tasks, timeout=60):
    """Waits for thread counts to come back (at once when they do; up to 60 s on a loaded
    machine, where 5 s was seen to fail make test); returns them."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if threading.active_count() <= baseline_threads and tasks() <= baseline_tasks:
            break
        time.sleep(0.02)
    return threading.active_count(), tasks()


def assert_released(threads0, tasks0):
    """No more threads than before the job: a thread of an earlier test may still have been
    ending when the baseline was taken, so fewer is fine."""
    threads, tasks_now = settle(threads0, tasks0)
    assert threads <= threads0 and tasks_now <= tasks0, ((threads, tasks_now), (threads0, tasks0))


# ===== urls: equal to the command =====

@pytest.mark.parametrize("jobs,memory_limit,cli_limit,partitioned", [
    (1, "1G", "1G", False),
    (2, None, "none", False),
    (1, "1M", "1M", True),
    (2, "8M", "8M", True),
], ids=["j1", "j2-nolimit", "j1-1M", "j2-8M"])
def test_urls_equal_cli(data, robotscan_bin, tmp_path, jobs, memory_limit, cli_limit, partitioned):
    robots, inp = os.path.join(data, "robots"), os.path.join(data, "urls", URLS)
    job = robotscan.urls(inp, robots=[robots], agents=AGENTS, jobs=jobs, memory_limit=memory_limit,
                         spill_dir=tmp_path)
    assert job.stats is None and job.totals is None     # not before the iteration ended
    recs = list(job)
    args = ["--robots", robots, "--jobs", str(jobs), "--memory-limit", cli_limit]
    for a in AGENTS:
        args += ["--agent", a]
    cli_recs, cli_stats, cli_err = run_cli(robotscan_bin, "urls", args, [inp], tmp_path)
    assert len(recs) > 90000
    assert all(type(r) is UrlRecord for r in recs)
    assert_same_records(recs, cli_recs)
    assert_same_stats(job.stats, cli_stats)
    t = job.totals
    assert (t.records, t.allowed, t.disallowed, t.malformed) == (
        cli_stats["urls"], cli_stats["verdicts"]["allow"], cli_stats["verdicts"]["disallow"],
        cli_stats["malformed"])
    assert t.reasons == cli_stats["reasons"]
    assert (t.partitions > 0) == partitioned, t
    # the end-of-job note is the command's stderr line
    assert job.notes and job.notes[0] in cli_err
    assert os.listdir(tmp_path) == [p.name for p in tmp_path.glob("cli-stats-*")]


@pytest.mark.parametrize("kw,args", [
    ({"missing": "disallow", "only": "disallowed"}, ["--missing", "disallow", "--only", "disallowed"]),
    ({"missing": "skip", "only": "allowed", "encode_urls": True},
     ["--missing", "skip", "--only", "allowed", "--encode-urls"]),
], ids=["disallow-only-disallowed", "skip-only-allowed-encode"])
def test_urls_options_equal_cli(data, robotscan_bin, tmp_path, kw, args):
    robots, inp = os.path.join(data, "robots"), os.path.join(data, "urls", URLS)
    job = robotscan.urls(inp, robots=robots, agents="Googlebot", **kw)
    recs = list(job)
    cli_recs, cli_stats, _ = run_cli(robotscan_bin, "urls", ["--robots", robots, "--agent", "Googlebot"]
                                     + args, [inp], tmp_path)
    assert recs
    assert_same_records(recs, cli_recs)
    assert_same_stats(job.stats, cli_stats)


def test_urls_several_inputs_equal_cli(data, robotscan_bin, tmp_path):
    robots = os.path.join(data, "robots")
    inputs = [os.path.join(data, "urls", HOSTS), os.path.join(data, "urls", URLS)]
    job = robotscan.urls(inputs, robots=[robots], agents=["Googlebot"], jobs=2)
    recs = list(job)
    cli_recs, cli_stats, _ = run_cli(robotscan_bin, "urls", ["--robots", robots, "--agent", "Googlebot",
                                                             "-j", "2"], inputs, tmp_path)
    assert_same_records(recs, cli_recs)
    assert_same_stats(job.stats, cli_stats)
    assert job.stats["inputs"] == inputs


def test_batches_are_the_records_as_columns(data):
    robots, inp = os.path.join(data, "robots"), os.path.join(data, "urls", URLS)
    recs = list(robotscan.urls(inp, robots=[robots], agents=AGENTS))
    job = robotscan.urls(inp, robots=[robots], agents=AGENTS, batches=True, batch_size=1000,
                         memory_limit="1M")
    batches = list(job)
    assert len(batches) > 1 and all(0 < len(b.url) <= 1000 for b in batches)
    b = batches[0]
    assert b._fields == UrlRecord._fields
    assert isinstance(b.input_line, array) and isinstance(b.line, array)
    assert all(isinstance(x, list) for x in (b.url, b.origin, b.agent, b.verdict, b.rule, b.reason))
    assert all(len(col) == len(b.url) for col in b)
    assert [r for b in batches for r in b.records()] == recs
    assert job.totals.partitions > 0 and job.stats["urls"] == len(recs)


@pytest.mark.parametrize("gap,ptr64", [(-1, True), (64, False)], ids=["copy-per-field", "ctypes-per-field"])
def test_slow_conversion_paths_agree(data, monkeypatch, gap, ptr64):
    """The field copies that do not take the one-copy fast path give the same records."""
    robots, inp = os.path.join(data, "robots"), os.path.join(data, "urls", URLS)
    want = list(robotscan.urls(inp, robots=[robots], agents=AGENTS))
    monkeypatch.setattr(bulk, "_GAP", gap)
    monkeypatch.setattr(bulk, "_PTR64", ptr64)
    assert list(robotscan.urls(inp, robots=[robots], agents=AGENTS)) == want


def test_bytes_and_file_inputs(data, tmp_path):
    robots, inp = os.path.join(data, "robots"), os.path.join(data, "urls", URLS)
    with open(inp, "rb") as f:
        content = f.read()
    want = list(robotscan.urls(inp, robots=[robots], agents=["Googlebot"]))
    job = robotscan.urls(content, robots=[robots], agents=["Googlebot"])
    assert list(job) == want
    assert job.stats["inputs"] == ["(buffer)"]
    assert list(robotscan.urls(gzip.compress(content), robots=[robots], agents=["Googlebot"])) == want
    with open(inp, "rb") as f:
        assert list(robotscan.urls(f, robots=[robots], agents=["Googlebot"])) == want
    small = robotscan.urls(b"https://www.sec.gov/cgi-bin/x\n\n# note\nhttps://www.sec.gov/edgar.shtml\n",
                           robots=[robots], agents=["Googlebot"])
    assert list(small) == [
        UrlRecord(1, "https://www.sec.gov/cgi-bin/x", "https://www.sec.gov", "Googlebot", "disallow", 69,
                  "disallow: /cgi-bin", "matched"),
        UrlRecord(4, "https://www.sec.gov/edgar.shtml", "https://www.sec.gov", "Googlebot", "allow", 0, "",
                  "no-match")]
    assert small.totals.blank == 2


def test_bytes_not_utf8_equal_cli(data, robotscan_bin, tmp_path):
    """Bytes that are not UTF-8 come surrogate-escaped (str.encode("utf-8", "surrogateescape")
    gives them back); the command's JSONL shows them as \\u00XX."""
    robots = os.path.join(data, "robots")
    content = (b"https://www.sec.gov/caf\xe9/x\nhttps://www.sec.gov/cgi-bin/\xc3\xa9\xff\n"
               b"https://www.wikipedia.org/wiki/K\xc3\xa4ytt\xc3\xa4j\xc3\xa4:X\n")
    inp = tmp_path / "urls.txt"
    inp.write_bytes(content)
    for kw, args in (({}, []), ({"encode_urls": True}, ["--encode-urls"])):
        recs = list(robotscan.urls(content, robots=[robots], agents=["Googlebot"], **kw))
        cli_recs, _, _ = run_cli(robotscan_bin, "urls", ["--robots", robots, "--agent", "Googlebot"] + args,
                                 [str(inp)], tmp_path)
        assert_same_records(recs, cli_recs)
        assert recs[0].url.encode("utf-8", "surrogateescape") == b"https://www.sec.gov/caf\xe9/x"


def test_sites_from_memory():
    sites = robotscan.Sites(bodies={"https://a.com/robots.txt": b"User-agent: *\nDisallow: /x\n"})
    job = robotscan.urls(b"https://a.com/x\nhttps://a.com/y\nhttps://b.com/x\n", sites=sites,
                         agents=["Googlebot"], missing="skip")
    assert [(r.url, r.verdict, r.line, r.reason) for r in job] == [
        ("https://a.com/x", "disallow", 2, "matched"), ("https://a.com/y", "allow", 0, "no-match")]
    assert job.totals.skipped == 1


# ===== Abandoning a job =====

def _spilling_job(data, spill):
    return robotscan.urls(os.path.join(data, "urls", URLS), robots=[os.path.join(data, "robots")],
                          agents=AGENTS, jobs=2, memory_limit="1M", spill_dir=spill, batch_size=100,
                          queue_size=2)


@pytest.mark.parametrize("how", ["break-and-drop", "close", "with", "generator-close"])
def test_abandoned_job_releases_threads_and_files(data, tmp_path, how):
    spill = tmp_path / "spill"
    spill.mkdir()
    gc.collect()
    threads0, tasks0 = threading.active_count(), tasks()
    seen = []
    if how == "break-and-drop":
        job = _spilling_job(data, spill)
        for i, r in enumerate(job):
            if i == 5000:
                break
        seen = open_in(spill)
        del job, r
        gc.collect()
    elif how == "close":
        job = _spilling_job(data, spill)
        for _ in range(5000):
            next(job)
        seen = open_in(spill)
        job.close()
        with pytest.raises(StopIteration):
            next(job)
        assert job.stats is None
    elif how == "with":
        with _spilling_job(data, spill) as job:
            for _ in range(5000):
                next(job)
            seen = open_in(spill)
    else:
        def gen():
            yield from _spilling_job(data, spill)
        g = gen()
        for _ in range(5000):
            next(g)
        seen = open_in(spill)
        g.close()
    assert seen, "the job should have had spill files open in %s half-way" % spill
    assert threading.active_count() > 0
    assert_released(threads0, tasks0)
    assert open_in(spill) == []
    assert os.listdir(spill) == []


def test_close_from_another_thread_ends_the_loop(data):
    job = _spilling_job(data, None)
    got = [next(job)]
    timer = threading.Timer(0.2, job.close)
    timer.start()
    for r in job:                # the consumer is slower than the job: it is waiting on it
        got.append(r)
        time.sleep(0.001)
    timer.join()
    assert 1 < len(got) < 95718 and job.stats is None
    assert [r.input_line for r in got] == sorted(r.input_line for r in got)


def test_slow_consumer_keeps_memory_bounded(data):
    """The job's thread waits for the caller: records held in Python stay within the queue."""
    job = robotscan.urls(os.path.join(data, "urls", URLS), robots=[os.path.join(data, "robots")],
                         agents=["Googlebot"], batch_size=100, queue_size=3)
    next(job)
    time.sleep(0.3)
    held = job._r.q.qsize()
    assert held <= 3
    assert job._r.thread.is_alive()      # blocked on the full queue, not run ahead
    job.close()
    assert not job._r.thread.is_alive()


# ===== Errors =====

def test_bad_robots_path_raises_library_message(data, robotscan_bin, tmp_path):
    missing = str(tmp_path / "no-such-robots")
    job = robotscan.urls(os.path.join(data, "urls", URLS), robots=[missing], agents=["Googlebot"])
    with pytest.raises(RobotscanError) as e:
        list(job)
    p = subprocess.run([robotscan_bin, "urls", "--robots", missing, "--agent", "Googlebot",
                        os.path.join(data, "urls", URLS)], capture_output=True, timeout=60)
    assert p.returncode == 2
    msg = p.stderr.decode().strip().split(": ", 1)[1]   # after "robotscan: "
    assert missing in str(e.value) and "cannot open robots source" in str(e.value)
    assert str(e.value).endswith(msg), (str(e.value), msg)
    assert job.stats is None


def test_columns_before_the_first_run(data, tmp_path):
    """rs_job_columns starts the job as a run does: a failing start gives no columns, puts
    its error on the handle and is undone (a later run starts afresh and fails the same way,
    leaking nothing: valgrind)."""
    from ctypes import byref, c_size_t
    from robotscan import _lib
    lib = _lib.lib
    n = c_size_t()
    for robots, ok in ((str(tmp_path / "nope"), False), (os.path.join(data, "robots"), True)):
        job = lib.rs_job_create(_lib.RS_JOB_URLS)
        try:
            assert lib.rs_job_add_robots(job, robots.encode()) == 0
            assert lib.rs_job_add_agent(job, b"Googlebot") == 0
            cols = lib.rs_job_columns(job, byref(n))
            assert [cols[i] for i in range(n.value)] == ([b"url", b"origin", b"agent", b"verdict", b"line",
                                                          b"rule", b"reason"] if ok else [])
            msg = lib.rs_job_errmsg(job).decode()
            assert ("cannot open robots source" in msg) == (not ok), msg
            for _ in range(2):
                st = lib.rs_job_run_buffer(job, b"https://a.com/\n", 15, None)
                assert (st == 0) == ok
                assert lib.rs_job_errmsg(job).decode() == ("" if ok else msg)
        finally:
            lib.rs_job_free(job)


def test_bad_input_raises_after_earlier_inputs(data):
    robots = os.path.join(data, "robots")
    job = robotscan.urls([b"https://a.com/1\nhttps://a.com/2\n", "/no/such/input.txt"], robots=[robots],
                         agents=["Googlebot"])
    got = []
    with pytest.raises(RobotscanError, match="/no/such/input.txt"):
        for r in job:
            got.append(r.url)
    assert got == ["https://a.com/1", "https://a.com/2"]
    assert job.totals.records == 2


def test_bad_settings_raise_at_once():
    with pytest.raises(RobotscanError, match="workers: 1 to 256"):
        robotscan.urls(b"", robots=["x"], agents=["Googlebot"], jobs=0)
    with pytest.raises(ValueError, match="bad size"):
        robotscan.urls(b"", robots=["x"], agents=["Googlebot"], memory_limit="12X")
    with pytest.raises(RobotscanError, match="at least 1 MiB"):
        robotscan.urls(b"", robots=["x"], agents=["Googlebot"], memory_limit=1000)
    with pytest.raises(ValueError, match="missing"):
        robotscan.urls(b"", robots=["x"], agents=["Googlebot"], missing="maybe")
    with pytest.raises(ValueError, match="only"):
        robotscan.urls(b"", robots=["x"], agents=["Googlebot"], only="some")
    with pytest.raises(RobotscanError, match="at least one agent"):
        list(robotscan.urls(b"https://a.com/\n", robots=["x"]))
    assert robotscan.parse_size("8M") == 8 << 20 and robotscan.parse_size(None) == 0


def test_callback_exceptions_reach_the_caller(data, monkeypatch):
    inp, robots = os.path.join(data, "urls", URLS), [os.path.join(data, "robots")]
    threads0, tasks0 = threading.active_count(), tasks()

    class Boom(Exception):
        pass

    def progress(p):
        raise Boom("from progress")
    with pytest.raises(Boom, match="from progress"):
        list(robotscan.urls(inp, robots=robots, agents=["Googlebot"], progress=progress))

    # a failure while converting records (in the records callback) stops the job and is
    # raised after the records before it
    real, calls = bulk._columns, []

    def failing(*a):
        calls.append(1)
        if len(calls) == 3:
            raise Boom("from the records callback")
        return real(*a)
    monkeypatch.setattr(bulk, "_columns", failing)
    n = 0
    with pytest.raises(Boom, match="records callback"):
        for _ in robotscan.urls(inp, robots=robots, agents=["Googlebot"], batch_size=100):
            n += 1
    assert n == 200
    assert_released(threads0, tasks0)


# ===== The checkers fail on a wrong answer =====

def test_checker_catches_a_wrong_record(data, robotscan_bin, tmp_path):
    robots, inp = os.path.join(data, "robots"), os.path.join(data, "urls", URLS)
    job = robotscan.urls(inp, robots=[robots], agents=["Googlebot"])
    recs = list(job)
    cli_recs, cli_stats, _ = run_cli(robotscan_bin, "urls", ["--robots", robots, "--agent", "Googlebot"],
                                     [inp], tmp_path)
    assert_same_records(recs, cli_recs)
    i = next(k for k, r in enumerate(recs) if r.verdict == "disallow")
    flipped = recs[i]._replace(verdict="allow")
    wrong = [
        recs[:i] + [flipped] + recs[i + 1:],                            # a verdict
        recs[:i] + [recs[i]._replace(line=recs[i].line + 1)] + recs[i + 1:],   # a line
        recs[:i] + [recs[i]._replace(line=str(recs[i].line))] + recs[i + 1:],  # a type
        recs[:i] + [recs[i + 1], recs[i]] + recs[i + 2:],                # the order
        recs[:-1],                                                       # one missing
        recs + [recs[-1]],                                               # one more
    ]
    for w in wrong:
        with pytest.raises(AssertionError):
            assert_same_records(w, cli_recs)
    bad = json.loads(json.dumps(job.stats))
    bad["verdicts"]["disallow"] += 1
    with pytest.raises(AssertionError):
        assert_same_stats(bad, cli_stats)
    bad = dict(job.stats, seconds=123.0)        # timings are not compared
    assert_same_stats(bad, cli_stats)


# ===== logs (RS_JOB_LOGS) =====

needs_logs = pytest.mark.skipif(
    not bulk.supported("logs"),
    reason="RS_JOB_LOGS is not in this librobotscan yet (rs_job_create(RS_JOB_LOGS) returned NULL)")


@pytest.fixture
def log_robots(tmp_path):
    p = tmp_path / "robots.txt"
    p.write_bytes(LOG_ROBOTS)
    return str(p)


def test_logs_supported():
    # the library has logs jobs since the logs engine moved in (src/job/logs.c)
    assert bulk.supported("logs")


@needs_logs
@pytest.mark.parametrize("log", ["lnav-shop-access.log", "elastic-apache_logs.log",
                                 "logparser-hackers-access.log"])
@pytest.mark.parametrize("jobs,memory_limit", [(1, "1G"), (2, "1M")], ids=["j1", "j2-1M"])
def test_logs_equal_cli(data, robotscan_bin, tmp_path, log_robots, log, jobs, memory_limit):
    inp = os.path.join(data, "logs", log)
    job = robotscan.logs(inp, robots=[log_robots], host="www.example.com", jobs=jobs,
                         memory_limit=memory_limit, spill_dir=tmp_path)
    recs = list(job)
    cli_recs, cli_stats, _ = run_cli(robotscan_bin, "logs", ["--robots", log_robots, "--host",
                                                             "www.example.com", "-j", str(jobs),
                                                             "--memory-limit", memory_limit],
                                     [inp], tmp_path)
    assert_same_records(recs, cli_recs)
    assert_same_stats(job.stats, cli_stats)
    if recs:
        assert type(recs[0]).__name__ == "LogRecord" and recs[0]._fields[0] == "input_line"
        assert job.columns == tuple(cli_recs[0])


@needs_logs
@pytest.mark.parametrize("kw,args", [
    ({"only_violations": True}, ["--only", "violations"]),
    ({"agents": ["Googlebot", "bingbot"], "scheme": "http"},
     ["--agent", "Googlebot", "--agent", "bingbot", "--scheme", "http"]),
    ({"log_format": "auto"}, ["--log-format", "auto"]),
], ids=["only-violations", "agents-scheme", "auto"])
def test_logs_options_equal_cli(data, robotscan_bin, tmp_path, log_robots, kw, args):
    inp = os.path.join(data, "logs", "lnav-shop-access.log")
    job = robotscan.logs(inp, robots=[log_robots], host="www.example.com", **kw)
    recs = list(job)
    cli_recs, cli_stats, _ = run_cli(robotscan_bin, "logs", ["--robots", log_robots, "--host",
                                                             "www.example.com"] + args, [inp], tmp_path)
    assert_same_records(recs, cli_recs)
    assert_same_stats(job.stats, cli_stats)


@needs_logs
def test_logs_verify_equal_cli(data, robotscan_bin, tmp_path, log_robots):
    inp = os.path.join(data, "logs", "elastic-apache_logs.log")
    ranges = os.path.join(data, "agents", "ip-ranges", "googlebot.json")
    job = robotscan.logs(inp, robots=[log_robots], host="www.example.com", verify=[ranges])
    recs = list(job)
    cli_recs, cli_stats, _ = run_cli(robotscan_bin, "logs", ["--robots", log_robots, "--host",
                                                             "www.example.com", "--verify", ranges],
                                     [inp], tmp_path)
    assert recs and "verified" in recs[0]._fields
    assert_same_records(recs, cli_recs)
    assert_same_stats(job.stats, cli_stats)


@needs_logs
def test_logs_batches_bytes_and_abandon(data, tmp_path, log_robots):
    inp = os.path.join(data, "logs", "elastic-apache_logs.log")
    with open(inp, "rb") as f:
        content = f.read()
    recs = list(robotscan.logs(inp, robots=[log_robots], host="www.example.com"))
    assert recs
    assert list(robotscan.logs(gzip.compress(content), robots=[log_robots], host="www.example.com")) == recs
    batches = list(robotscan.logs(inp, robots=[log_robots], host="www.example.com", batches=True,
                                  batch_size=500))
    assert [r for b in batches for r in b.records()] == recs
    assert isinstance(batches[0].status, array) and isinstance(batches[0].url, list)
    threads0, tasks0 = threading.active_count(), tasks()
    job = robotscan.logs(inp, robots=[log_robots], host="www.example.com", batch_size=10,
                         queue_size=1, spill_dir=tmp_path, memory_limit="1M", jobs=2)
    next(job)
    job.close()
    assert_released(threads0, tasks0)
    assert open_in(tmp_path) == [] and os.listdir(tmp_path) == ["robots.txt"]


@needs_logs
def test_logs_bad_robots_path_raises(data, tmp_path):
    job = robotscan.logs(os.path.join(data, "logs", "lnav-shop-access.log"),
                         robots=[str(tmp_path / "nope")], host="www.example.com")
    with pytest.raises(RobotscanError, match="cannot open robots source"):
        list(job)
