"""Bulk jobs: `robotscan urls` and `robotscan logs` from Python, over the library's job
API (robotscan.h "Bulk jobs", SPEC 8), with the records and statistics of the commands.

    job = robotscan.urls("urls.txt.zst", robots=["robots/"], agents=["Googlebot", "GPTBot"],
                         jobs=2, memory_limit="1G")
    for r in job:                  # UrlRecord(input_line, url, origin, agent, verdict, line, rule, reason)
        if r.verdict == "disallow":
            print(r.url, r.line, r.rule)
    job.stats                      # the `--stats` JSON as a dict, once the iteration ended
    job.totals                     # Totals(lines=..., records=..., partitions=..., ...)

    for b in robotscan.urls(data, robots=["robots/"], agents=["Googlebot"], batches=True):
        b.url, b.verdict           # a batch of columns: lists of str; array('Q') for the numbers

How it runs: the job runs on a thread of its own (the library delivers records through a
callback on the thread that runs it) and hands records over through a bounded queue, so
memory stays bounded whatever the input's size; the caller iterates. Leaving the loop
early (break, close(), or dropping the job) cancels the run, joins its thread and frees
the job: its worker threads end and its temporary files are gone. An exception in the
job's thread (a progress callback's, a conversion's) stops the run and is raised to the
caller; a failed run raises RobotscanError with the library's message, after the records
before the failure.

A BulkJob is consumed by one thread at a time. robotscan.bulk.supported("logs") says
whether this librobotscan runs logs jobs (robotscan.logs() raises RobotscanError if not).
"""
import json
import os
import queue
import threading
import weakref
from array import array
from collections import namedtuple
from ctypes import addressof, byref, c_size_t, c_uint64, c_void_p, sizeof, string_at
from itertools import repeat
from operator import add

from . import _lib
from ._lib import RobotscanError, lib

__all__ = ["urls", "logs", "BulkJob", "UrlRecord", "Totals", "parse_size", "supported"]


class UrlRecord(namedtuple("UrlRecord", "input_line url origin agent verdict line rule reason")):
    """One record of robotscan.urls(), the columns of `robotscan urls --input-line`:
      input_line  the line of its input (1-based);
      url, origin, agent  as the CLI writes them ("https://a.com/x", "https://a.com", "Googlebot");
      verdict     "allow" or "disallow" (an origin no source knows: as missing= says);
      line        the reported line of the robots.txt (int; 0: none);
      rule        the deciding rule ("disallow: /x") or "";
      reason      one of robotscan.REASONS."""
    __slots__ = ()


Totals = namedtuple("Totals", "lines blank records malformed skipped allowed disallowed reasons "
                              "bytes_in bytes_out violations seconds partitions")
Totals.__doc__ = """Counts over the job's runs (rs_job_totals): input lines (oversized ones included),
blank and comment lines, records (urls: URLs decided, agents apart; logs: bot hits), malformed
lines, skipped records, allowed and disallowed verdicts, reasons as a dict by name, input bytes
read and after decompression, violations (logs), wall seconds, and partitions (urls past the
memory limit; 0: none)."""

# Columns whose values are numbers in the commands' JSONL (the records API gives bytes).
_INT_COLUMNS = frozenset(("input_line", "line", "status", "delay_violation"))
_KINDS = {_lib.RS_JOB_URLS: "urls", _lib.RS_JOB_LOGS: "logs"}
_END = object()
_record_types = {}


def parse_size(size):
    """Bytes of a size: an int as is, or a string as --memory-limit reads it ("64M", "1G",
    "512MiB"; at least 1 MiB). None: 0 (no limit)."""
    if size is None:
        return 0
    if isinstance(size, int):
        return size
    out = c_uint64()
    text = size.encode() if isinstance(size, str) else bytes(size)
    if lib.rs_parse_size(text, byref(out)) != _lib.RS_OK:
        raise ValueError("bad size %r (e.g. 512M, 1G, 1073741824; at least 1 MiB)" % (size,))
    return out.value


def _record_type(kind, columns):
    """The named tuple of a kind's records: UrlRecord for urls, else made from the columns."""
    key = (kind, columns)
    t = _record_types.get(key)
    if t is None:
        names = ("input_line",) + columns
        if names == UrlRecord._fields:
            t = UrlRecord
        else:
            name = {_lib.RS_JOB_URLS: "UrlRecord", _lib.RS_JOB_LOGS: "LogRecord"}.get(kind, "JobRecord")
            t = namedtuple(name, names, rename=True)
        _record_types[key] = t
    return t


def _batch_type(kind, columns):
    rt = _record_type(kind, columns)
    key = ("batch", kind, columns)
    t = _record_types.get(key)
    if t is None:
        base = namedtuple(rt.__name__.replace("Record", "Batch"), rt._fields)

        class Batch(base):
            __slots__ = ()
            __doc__ = ("A batch of %s: one column a field, in input order (lists of str; "
                       "array('Q') for numbers). len(b.input_line) records; records() "
                       "gives them as %s." % (rt.__name__ + "s", rt.__name__))

            def records(self):
                """The batch's records, an iterator."""
                return map(rt._make, zip(*self))

        Batch.__name__ = Batch.__qualname__ = base.__name__
        t = _record_types[key] = Batch
    return t


_GAP = 64      # bytes between two fields read across in one copy (less than a page: mapped)
_PTR64 = sizeof(c_void_p) == 8 and sizeof(_lib.RsJobRecord) == 16 and sizeof(_lib.RsStr) == 16


def _decode(blobs):
    return [b.decode("utf-8", "surrogateescape") for b in blobs]


def _ints(values, as_array):
    """A numeric column's str values -> ints (array('Q') for batches; a value that is not a
    number stays a str)."""
    try:
        out = list(map(int, values))
    except ValueError:
        return [_int_or_str(v) for v in values]
    return array("Q", out) if as_array else out


def _int_or_str(v):
    try:
        return int(v)
    except ValueError:
        return v


def _columns(recs, lo, hi, ncols):
    """Records lo..hi of a records callback -> (input lines, [column values as str]).
    Reading a field at a time through ctypes costs microseconds a field, so on 64-bit
    platforms the records' (pointer, length) pairs are copied out in one go, and the
    field bytes too when they lie one after the other (gaps under _GAP bytes, within
    the pages the fields are on: readable); else a record or a field at a time."""
    n = hi - lo
    if not _PTR64:
        lines = [recs[i].input_line for i in range(lo, hi)]
        colv = [[] for _ in range(ncols)]
        for i in range(lo, hi):
            f = recs[i].fields
            for c in range(ncols):
                colv[c].append(string_at(f[c].ptr, f[c].len).decode("utf-8", "surrogateescape")
                               if f[c].len else "")
        return lines, colv
    rec = array("Q", string_at(addressof(recs.contents) + 16 * lo, 16 * n))
    lines = rec[0::2]
    fptrs = rec[1::2]
    width = 16 * ncols
    # the records' field arrays: one copy when they follow each other closely
    if n and all(0 <= b - a - width <= _GAP and (b - a) % 8 == 0 for a, b in zip(fptrs, fptrs[1:])):
        span = array("Q", string_at(fptrs[0], fptrs[-1] - fptrs[0] + width))
        base = fptrs[0]
        pairs = array("Q")
        for a in fptrs:
            k = (a - base) // 8
            pairs.extend(span[k:k + 2 * ncols])
    else:
        pairs = array("Q")
        for a in fptrs:
            pairs.frombytes(string_at(a, width))
    ptrs, lens = pairs[0::2], pairs[1::2]
    ends = list(map(add, ptrs, lens))
    if len(ptrs) and all(0 <= b - e <= _GAP for e, b in zip(ends, ptrs[1:])):
        base = ptrs[0]
        blob = string_at(base, ends[-1] - base)
        if blob.isascii():
            text = blob.decode("ascii")
            vals = [text[p - base:e - base] for p, e in zip(ptrs, ends)]
        else:
            vals = _decode([blob[p - base:e - base] for p, e in zip(ptrs, ends)])
    else:
        vals = _decode([string_at(p, ln) if ln else b"" for p, ln in zip(ptrs, lens)])
    return lines, [vals[c::ncols] for c in range(ncols)]


def _path(p):
    if isinstance(p, bytes):
        return p
    return os.fsencode(p)


class _Failure:
    """What ended the run, on its way to the consumer."""
    __slots__ = ("error",)

    def __init__(self, error):
        self.error = error


class _Runner:
    """The job's state shared by the consumer and the job's thread. It holds no reference
    to the BulkJob, so a BulkJob the caller dropped is collected and its finalizer stops
    the run."""

    def __init__(self, kind, job, inputs, keep, batches, batch_size, queue_size, progress):
        self.kind = kind
        self.job = job                    # rs_job *; freed by the thread once it started
        self.inputs = inputs
        self.keep = keep                  # objects the C side borrows (Sites)
        self.batches = batches
        self.batch_size = batch_size
        self.q = queue.Queue(queue_size)
        self.stop = threading.Event()
        self.error = None                 # an exception of the job's thread
        self.thread = None
        self.columns = None
        self.convert = None
        self.stats = None
        self.totals = None
        self.notes = []
        self.lock = threading.RLock()   # a finalizer may run on the job's thread
        self.freed = False
        # ctypes callbacks: referenced here for the job's life
        self._records_cb = _lib.RS_JOB_RECORDS_FN(self._on_records)
        self._diag_cb = _lib.RS_JOB_DIAG_FN(self._on_diag)
        self._progress_cb = _lib.RS_JOB_PROGRESS_FN(self._on_progress) if progress else None
        self._progress = progress
        lib.rs_job_set_records(job, self._records_cb, None)
        lib.rs_job_set_diag(job, self._diag_cb, None)
        if progress:
            lib.rs_job_set_progress(job, self._progress_cb, None)

    # ----- the job's thread -----

    def _put(self, item):
        """Into the queue, waiting while it is full; False once the consumer has gone."""
        while not self.stop.is_set():
            try:
                self.q.put(item, timeout=0.05)
                return True
            except queue.Full:
                pass
        return False

    def _setup_columns(self):
        n = c_size_t()
        arr = lib.rs_job_columns(self.job, byref(n))
        cols = tuple(arr[i].decode() for i in range(n.value))
        if cols and cols[0] == "input_line":
            cols = cols[1:]
        self.columns = cols
        ints = tuple(c in _INT_COLUMNS for c in cols)
        if self.batches:
            bt = _batch_type(self.kind, cols)

            def convert(recs, lo, hi):
                lines, colv = _columns(recs, lo, hi, len(cols))
                return bt(lines, *(_ints(v, True) if k else v for v, k in zip(colv, ints)))
        else:
            rt = _record_type(self.kind, cols)

            def convert(recs, lo, hi):
                lines, colv = _columns(recs, lo, hi, len(cols))
                colv = [_ints(v, False) if k else v for v, k in zip(colv, ints)]
                return list(map(tuple.__new__, repeat(rt), zip(lines, *colv)))
        self.convert = convert

    def _on_records(self, user, recs, n):
        try:
            if self.stop.is_set():
                return 1
            if self.convert is None:
                self._setup_columns()
            for lo in range(0, n, self.batch_size):
                if not self._put(self.convert(recs, lo, min(n, lo + self.batch_size))):
                    return 1
            return 0
        except BaseException as e:  # noqa: B902 - re-raised in the consumer
            if self.error is None:
                self.error = e
            return 1

    def _on_diag(self, user, text, n):
        try:
            self.notes.extend(string_at(text, n).decode("utf-8", "replace").splitlines())
        except BaseException as e:  # noqa: B902
            if self.error is None:
                self.error = e
            lib.rs_job_cancel(self.job)

    def _on_progress(self, user, p):
        try:
            c = p.contents
            self._progress({"lines": c.lines, "bytes_in": c.bytes_in, "file_size": c.file_size,
                            "seconds": c.seconds, "final": bool(c.final)})
        except BaseException as e:  # noqa: B902
            if self.error is None:
                self.error = e
            lib.rs_job_cancel(self.job)

    def _fail(self, st):
        if self.error is not None:
            return self.error
        return RobotscanError(st, lib.rs_job_errmsg(self.job).decode("utf-8", "replace"))

    def _totals(self):
        t = _lib.RsJobTotals()
        lib.rs_job_totals_get(self.job, byref(t))
        self.totals = Totals(t.lines, t.blank, t.records, t.malformed, t.skipped, t.verdict[0],
                             t.verdict[1], dict(zip(_lib.REASONS, t.reason)), t.bytes_in,
                             t.bytes_out, t.violations, t.seconds, t.partitions)

    def main(self):
        failure = None
        try:
            job = self.job
            st = _lib.RS_OK
            for inp in self.inputs:
                if isinstance(inp, (bytes, bytearray, memoryview)):
                    data = bytes(inp)
                    st = lib.rs_job_run_buffer(job, data, len(data), b"(buffer)")
                elif hasattr(inp, "fileno"):
                    name = getattr(inp, "name", None)
                    name = os.fsencode(name) if isinstance(name, (str, bytes)) else b"(descriptor)"
                    st = lib.rs_job_run_fd(job, inp.fileno(), name)
                else:
                    st = lib.rs_job_run(job, _path(inp))
                if st != _lib.RS_OK or self.error is not None or self.stop.is_set():
                    break
            if st == _lib.RS_OK and self.error is None and not self.stop.is_set():
                st = lib.rs_job_finish(job)
                if st == _lib.RS_OK and self.error is None:
                    js, size = c_void_p(), c_size_t()
                    st = lib.rs_job_stats_json(job, byref(js), byref(size))
                    if st == _lib.RS_OK:
                        self.stats = json.loads(string_at(js, size.value).decode("utf-8", "replace"))
            if self.convert is None and st == _lib.RS_OK and self.error is None:
                self._setup_columns()       # .columns also when no record came
            self._totals()
            if (st != _lib.RS_OK or self.error is not None) and not self.stop.is_set():
                failure = self._fail(st)
        except BaseException as e:  # noqa: B902
            failure = self.error or e
        finally:
            self._free()
        if failure is not None:
            self._put(_Failure(failure))
        self._put(_END)

    def _free(self):
        with self.lock:
            if not self.freed:
                self.freed = True
                lib.rs_job_free(self.job)
                self.job = None

    # ----- the consumer -----

    def start(self):
        self.thread = threading.Thread(target=self.main, name="robotscan-job", daemon=True)
        self.thread.start()

    def close(self):
        """Stops the run (if any), joins the job's thread and frees the job."""
        self.stop.set()
        with self.lock:
            if not self.freed:
                lib.rs_job_cancel(self.job)
        t = self.thread
        if t is None:
            self._free()
            return
        if t is threading.current_thread():
            return                      # collected on the job's own thread: it frees the job
        while t.is_alive():
            try:
                while True:
                    self.q.get_nowait()
            except queue.Empty:
                pass
            t.join(0.05)


class BulkJob:
    """An iterator over a bulk job's records (or batches), in input order. After the
    iteration ended: .stats (the `--stats` JSON as a dict; None after a failure or an
    early stop), .totals (a Totals), .notes (the end-of-job notes the CLI prints on
    stderr, e.g. "... 151 malformed lines skipped (first: ...)"), .columns. close() (or
    leaving a `with` block, or dropping the job) stops a run half-way and releases its
    thread, memory and temporary files."""

    def __init__(self, kind, settings, robots, sites, agents, inputs, batches, batch_size,
                 queue_size, progress, spill_dir):
        if isinstance(inputs, (str, bytes, bytearray, memoryview, os.PathLike)) \
                or hasattr(inputs, "fileno"):
            inputs = [inputs]
        else:
            inputs = list(inputs)
        if isinstance(robots, (str, bytes, os.PathLike)):
            robots = [robots]
        if isinstance(agents, (str, bytes)):
            agents = [agents]
        job = lib.rs_job_create(kind)
        if not job:
            raise RobotscanError(_lib.RS_ERR_USAGE if kind in _KINDS else _lib.RS_ERR_NOMEM,
                                 "this librobotscan has no %s jobs (rs_job_create returned NULL)"
                                 % _KINDS.get(kind, "such"))
        try:
            def check(st):
                if st != _lib.RS_OK:
                    raise RobotscanError(st, lib.rs_job_errmsg(job).decode("utf-8", "replace"))

            for p in robots or ():
                check(lib.rs_job_add_robots(job, _path(p)))
            if sites is not None:
                if not getattr(sites, "_s", None):
                    raise ValueError("sites: an open robotscan.Sites")
                check(lib.rs_job_use_sites(job, sites._s))
            for a in agents or ():
                check(lib.rs_job_add_agent(job, a.encode() if isinstance(a, str) else bytes(a)))
            for param, value in settings:
                if isinstance(value, (str, bytes)):
                    check(lib.rs_job_set_string(job, param, value.encode()
                                                if isinstance(value, str) else value))
                else:
                    check(lib.rs_job_set(job, param, int(value)))
            if spill_dir is not None:
                check(lib.rs_job_set_string(job, _lib.RS_JOB_SPILL_DIR, _path(spill_dir)))
            self._r = _Runner(kind, job, inputs, sites, batches, max(1, int(batch_size)),
                              max(1, int(queue_size)), progress)
        except BaseException:
            lib.rs_job_free(job)
            raise
        self._done = False
        self._finalizer = weakref.finalize(self, self._r.close)

    def __iter__(self):
        return self

    def __next__(self):
        chunk = self._chunk
        if chunk:
            return chunk.pop()
        if self._done:
            raise StopIteration
        r = self._r
        if r.thread is None:
            r.start()
        while True:
            try:
                item = r.q.get(timeout=0.1)
            except queue.Empty:
                # closed from another thread: the job's thread is gone without an end mark
                if r.stop.is_set() and not r.thread.is_alive() and r.q.empty():
                    self._done = True
                    raise StopIteration
                continue
            if item is _END:
                self._finish()
                raise StopIteration
            if isinstance(item, _Failure):
                self._finish()
                raise item.error
            if isinstance(item, list):
                if item:
                    item.reverse()
                    self._chunk = item
                    return item.pop()
            else:
                return item

    _chunk = None

    def _finish(self):
        self._done = True
        self._r.thread.join()

    def close(self):
        """Stops the job if it still runs and releases its thread and temporary files.
        Another thread may call it: the loop over the job then ends."""
        self._done = True
        self._chunk = None
        self._finalizer()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def stats(self):
        """The `--stats` JSON of the command as a dict, once the iteration ended; else None."""
        return self._r.stats if self._done else None

    @property
    def totals(self):
        """Totals of the runs, once the iteration ended (also after a failure); else None."""
        return self._r.totals if self._done else None

    @property
    def notes(self):
        """The end-of-job notes (what the command prints on stderr), once the iteration ended."""
        return list(self._r.notes)

    @property
    def columns(self):
        """The records' field names (input_line first), once the first record came."""
        c = self._r.columns
        return None if c is None else ("input_line",) + c


def supported(kind):
    """True if this librobotscan runs jobs of @kind ("urls", "logs")."""
    k = {v: k for k, v in _KINDS.items()}.get(kind)
    if k is None:
        raise ValueError("kind: 'urls' or 'logs', not %r" % (kind,))
    job = lib.rs_job_create(k)
    lib.rs_job_free(job)
    return bool(job)


def _only_urls(only):
    if only in (None, "", 0):
        return 0
    v = {"allowed": 1, "allow": 1, "disallowed": 2, "disallow": 2}.get(only)
    if v is None:
        raise ValueError("only: None, 'allowed' or 'disallowed', not %r" % (only,))
    return v


def _common(jobs, memory_limit, semantics):
    if semantics not in _lib.RS_SEMANTICS:
        raise ValueError("semantics: 'google' or 'first-match', not %r" % (semantics,))
    return [(_lib.RS_JOB_WORKERS, jobs), (_lib.RS_JOB_MEMORY_LIMIT, parse_size(memory_limit)),
            (_lib.RS_JOB_SEMANTICS, _lib.RS_SEMANTICS[semantics])]


def urls(inputs, robots=(), agents=(), jobs=1, memory_limit="1G", missing="allow",
         encode_urls=False, only=None, semantics="google", spill_dir=None, batches=False,
         sites=None, batch_size=4096, queue_size=8, progress=None):
    """`robotscan urls` as an iterator of UrlRecord, in input order (or, with batches=True,
    of batches of columns): the records and the statistics of
    `robotscan urls --input-line --robots R... --agent A... -j JOBS --memory-limit M INPUT...`.

      inputs        a path (str or os.PathLike; "-" is stdin), an open file (its fileno()),
                    the input's content as bytes (plain, .zst or .gz), or a list of these
                    (run in turn as one job, as the command's FILE...)
      robots        robots sources: robots.txt files, directories of HOST[.txt] files,
                    manifests .tsv, WARC files (the first that knows an origin wins)
      sites         a robotscan.Sites instead of robots= (bodies from memory); used by one
                    job at a time, and kept open by the job
      agents        product tokens; a URL's records come in this order
      jobs          worker threads (--jobs)
      memory_limit  "1G" (default), "64M", bytes as int, or None for no limit; past it the
                    input is partitioned by host into temporary files in spill_dir
                    (default $TMPDIR, else /tmp), with the same records
      missing       origins no source knows: "allow", "disallow" or "skip"
      encode_urls   percent-encode non-ASCII path bytes before matching
      only          None (every record), "allowed" or "disallowed"
      semantics     "google" or "first-match"
      batches       yield batches of columns (UrlBatch: url, verdict, ... lists, input_line
                    and line array('Q')), up to batch_size records each
      queue_size    batches held between the job's thread and the caller (memory bound)
      progress      a callable given a dict (lines, bytes_in, file_size, seconds, final) at
                    most twice a second, on the job's thread

    The returned BulkJob has .stats, .totals and .notes once the iteration ended. Bad
    settings raise RobotscanError or ValueError here; a failing run (an unreadable robots
    source or input) raises RobotscanError, with the library's message, from the loop."""
    if missing not in _lib.RS_MISSING:
        raise ValueError("missing: 'allow', 'disallow' or 'skip', not %r" % (missing,))
    settings = _common(jobs, memory_limit, semantics) + [
        (_lib.RS_JOB_MISSING, _lib.RS_MISSING[missing]),
        (_lib.RS_JOB_ENCODE_URLS, 1 if encode_urls else 0),
        (_lib.RS_JOB_ONLY, _only_urls(only))]
    return BulkJob(_lib.RS_JOB_URLS, settings, robots, sites, agents, inputs, batches, batch_size,
                   queue_size, progress, spill_dir)


def logs(inputs, robots=(), agents=(), jobs=1, memory_limit="1G", log_format=None, host=None,
         scheme=None, fields=None, verify=(), only_violations=False, semantics="google",
         spill_dir=None, batches=False, sites=None, batch_size=4096, queue_size=8,
         progress=None):
    """`robotscan logs` as an iterator of LogRecord (input_line, then the command's columns:
    time, client, origin, agent, user_agent, method, url, status, verdict, line, rule,
    reason, delay_violation, and verified with verify=), in input order, or batches of
    columns; the records and statistics of `robotscan logs --input-line ...`.

      inputs, robots, sites, jobs, memory_limit, semantics, spill_dir, batches ...: as urls()
      agents           audit only these bots (default: every known one)
      log_format       combined (default), common, vhost_combined, cloudfront, w3c, alb,
                       json, cloudflare, auto, or an nginx/Apache format string
      host, scheme     the site of logs whose lines do not name it; http or https
      fields           json logs: {NAME: KEY} or ["NAME=KEY", ...]
      verify           [TOKEN=]FILE of published crawler IP ranges (repeatable)
      only_violations  only disallowed or crawl-delay-violating hits

    Crawl-delay violations are known once the whole input is read: records come as the
    job finishes, so the loop may wait for the whole input before its first record."""
    settings = _common(jobs, memory_limit, semantics)
    if only_violations:
        settings.append((_lib.RS_JOB_ONLY, 1))
    for param, value in ((_lib.RS_JOB_LOG_FORMAT, log_format), (_lib.RS_JOB_HOST, host),
                         (_lib.RS_JOB_SCHEME, scheme)):
        if value is not None:
            settings.append((param, value))
    if isinstance(fields, dict):
        fields = ["%s=%s" % kv for kv in fields.items()]
    for f in fields or ():
        settings.append((_lib.RS_JOB_FIELD, f))
    if isinstance(verify, (str, bytes, os.PathLike)):
        verify = [verify]
    for v in verify or ():
        settings.append((_lib.RS_JOB_VERIFY, os.fsdecode(v)))
    return BulkJob(_lib.RS_JOB_LOGS, settings, robots, sites, agents, inputs, batches, batch_size,
                   queue_size, progress, spill_dir)
