"""Loads librobotscan.so with ctypes and declares the stable C API it uses.

Where the library is looked for, first hit wins:
  1. $ROBOTSCAN_LIB (a path to the .so);
  2. build/librobotscan.so of the source tree this package sits in
     (python/robotscan/ -> ../../build/), so `PYTHONPATH=python` works after `make`;
  3. librobotscan.so.MAJOR inside the package (`pip install .` puts it there);
  4. the directory `make install` recorded in _config.py;
  5. the dynamic linker's search path (librobotscan.so.MAJOR).
"""
import ctypes
import os
from ctypes import (POINTER, Structure, c_char_p, c_double, c_int, c_int32, c_size_t, c_uint, c_uint32,
                    c_uint64, c_void_p)

SOVERSION_MAJOR = 0
SONAME = "librobotscan.so.%d" % SOVERSION_MAJOR

# Flags and values of robotscan.h
RS_OK = 0
RS_CHECK_ENCODE_URL = 0x01
RS_RULE_ALLOW = 1
RS_RULE_DISALLOW = 2
RS_VERDICT_NO_ROBOTS = -1
RS_VERDICT_MALFORMED = -2
REASONS = ("matched", "no-match", "unavailable", "unreachable", "no-robots")


class RsStr(Structure):
    _fields_ = [("ptr", c_void_p), ("len", c_size_t)]

    def bytes(self):
        return ctypes.string_at(self.ptr, self.len) if self.len else b""


class RsVerdict(Structure):
    _fields_ = [("disallowed", c_int), ("line", c_uint32), ("rule", c_int32)]


class RsRuleInfo(Structure):
    _fields_ = [("type", c_int), ("line", c_uint32), ("pattern", RsStr)]


class RsSitemapEntry(Structure):
    _fields_ = [("url", RsStr), ("line", c_uint32)]


class RsRequestRate(Structure):
    _fields_ = [("requests", c_uint32), ("seconds", c_double), ("start", c_int32),
                ("end", c_int32), ("line", c_uint32), ("value", RsStr)]


class RsVisitTime(Structure):
    _fields_ = [("start", c_int32), ("end", c_int32), ("line", c_uint32), ("value", RsStr)]


RS_ORIGIN_MAX = 320


class RsSiteVerdict(Structure):
    _fields_ = [("malformed", c_int), ("error", c_int), ("reason", c_int),
                ("verdict", RsVerdict), ("rule", RsRuleInfo),
                ("origin", ctypes.c_char * RS_ORIGIN_MAX)]


class RsCheckResult(Structure):
    _fields_ = [("disallowed", c_int), ("line", c_uint32), ("rule_type", c_int),
                ("rule_len", c_size_t)]


class RobotscanError(Exception):
    """A librobotscan call failed (out of memory, unreadable robots file, misuse)."""

    def __init__(self, status, message=""):
        self.status = status
        name = _lib.rs_status_str(status).decode() if _lib is not None else str(status)
        super().__init__("%s%s" % (name, ": " + message if message else ""))


def _candidates():
    env = os.environ.get("ROBOTSCAN_LIB")
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.normpath(os.path.join(here, os.pardir, os.pardir, "build", "librobotscan.so"))
    yield os.path.join(here, SONAME)
    try:
        from ._config import LIBDIR  # written by make install
        yield os.path.join(LIBDIR, SONAME)
    except ImportError:
        pass
    yield SONAME


def _load():
    errors = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            errors.append("%s: not found" % path)
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            errors.append(str(e))
    raise ImportError("robotscan: cannot load librobotscan (build it with `make`, install it with "
                      "`make install`, or set ROBOTSCAN_LIB): " + "; ".join(errors))


_lib = None
_lib, path = _load()
lib = _lib


def _fn(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)


_fn("rs_version_number", c_uint)
_fn("rs_version_string", c_char_p)
_fn("rs_status_str", c_char_p, c_int)
_fn("rs_agent_token", c_size_t, c_char_p, c_size_t)
_fn("rs_url_encode_path", c_size_t, c_char_p, c_size_t, c_void_p, c_size_t)
_fn("rs_ruleset_parse", c_int, c_char_p, c_size_t, POINTER(c_void_p))
_fn("rs_ruleset_free", None, c_void_p)
_fn("rs_ruleset_tokens", c_size_t, c_void_p, POINTER(RsStr), c_size_t)
_fn("rs_ruleset_group_value", c_int, c_void_p, c_char_p, c_size_t, c_char_p, POINTER(RsStr))
_fn("rs_matcher_create", c_int, c_void_p, c_char_p, c_size_t, c_int, POINTER(c_void_p))
_fn("rs_matcher_free", None, c_void_p)
_fn("rs_matcher_rule", c_int, c_void_p, c_int32, POINTER(RsRuleInfo))
_fn("rs_matcher_check_url", c_int, c_void_p, c_char_p, c_size_t, c_uint, POINTER(RsVerdict))
_fn("rs_matcher_check_urls", c_int, c_void_p, c_char_p, c_void_p, c_size_t, c_uint, c_void_p,
    c_void_p)
_fn("rs_check", c_int, c_char_p, c_size_t, c_char_p, c_size_t, c_char_p, c_size_t, c_uint,
    POINTER(RsCheckResult), c_char_p, c_size_t)
_fn("rs_sites_create", c_int, POINTER(c_char_p), c_size_t, POINTER(c_void_p))
_fn("rs_sites_create_empty", c_int, POINTER(c_void_p))
_fn("rs_sites_free", None, c_void_p)
_fn("rs_sites_errmsg", c_char_p, c_void_p)
_fn("rs_sites_add_body", c_int, c_void_p, c_char_p, c_size_t, c_uint32, c_char_p, c_size_t)
_fn("rs_site_check", c_int, c_void_p, c_char_p, c_size_t, c_char_p, c_size_t, c_int, c_int,
    POINTER(RsSiteVerdict))
_fn("rs_ruleset_sitemaps", c_size_t, c_void_p, POINTER(RsSitemapEntry), c_size_t)
_fn("rs_ruleset_host", c_int, c_void_p, POINTER(RsStr), POINTER(c_uint32))
_fn("rs_ruleset_crawl_delay", c_int, c_void_p, c_char_p, c_size_t, POINTER(c_double),
    POINTER(c_uint32))
_fn("rs_ruleset_request_rate", c_int, c_void_p, c_char_p, c_size_t, POINTER(RsRequestRate))
_fn("rs_ruleset_visit_time", c_int, c_void_p, c_char_p, c_size_t, POINTER(RsVisitTime))
_fn("rs_sites_check_urls", c_int, c_void_p, c_char_p, c_size_t, c_char_p, c_void_p, c_size_t,
    c_uint, c_void_p, c_void_p, c_void_p)

# Bulk jobs (robotscan.h "Bulk jobs", SPEC 8): robotscan.urls() and robotscan.logs() in bulk.py
RS_ERR_NOMEM, RS_ERR_IO, RS_ERR_CORRUPT, RS_ERR_USAGE, RS_ERR_LIMIT, RS_ERR_EOF, RS_ERR_CANCELED = range(1, 8)
RS_REASON_COUNT = 5
RS_JOB_URLS, RS_JOB_LOGS = 1, 2
(RS_JOB_WORKERS, RS_JOB_MEMORY_LIMIT, RS_JOB_SEMANTICS, RS_JOB_MISSING, RS_JOB_ENCODE_URLS, RS_JOB_ONLY,
 RS_JOB_FORMAT, RS_JOB_HEADER, RS_JOB_INPUT_LINE, RS_JOB_VERBOSE, RS_JOB_NO_RECORDS,
 RS_JOB_TALLIES) = range(1, 13)
(RS_JOB_SPILL_DIR, RS_JOB_LOG_FORMAT, RS_JOB_HOST, RS_JOB_SCHEME, RS_JOB_FIELD,
 RS_JOB_VERIFY) = range(1, 7)
RS_SEMANTICS = {"google": 0, "first-match": 1}
RS_MISSING = {"allow": 0, "disallow": 1, "skip": 2}


class RsJobRecord(Structure):
    _fields_ = [("input_line", c_uint64), ("fields", POINTER(RsStr))]


class RsJobProgress(Structure):
    _fields_ = [("lines", c_uint64), ("bytes_in", c_uint64), ("file_size", c_uint64),
                ("seconds", c_double), ("final", c_int)]


class RsJobTotals(Structure):
    _fields_ = [("lines", c_uint64), ("blank", c_uint64), ("records", c_uint64),
                ("malformed", c_uint64), ("skipped", c_uint64), ("verdict", c_uint64 * 2),
                ("reason", c_uint64 * RS_REASON_COUNT), ("bytes_in", c_uint64),
                ("bytes_out", c_uint64), ("violations", c_uint64), ("seconds", c_double),
                ("partitions", c_uint)]


RS_JOB_RECORDS_FN = ctypes.CFUNCTYPE(c_int, c_void_p, POINTER(RsJobRecord), c_size_t)
RS_JOB_DIAG_FN = ctypes.CFUNCTYPE(None, c_void_p, c_void_p, c_size_t)
RS_JOB_PROGRESS_FN = ctypes.CFUNCTYPE(None, c_void_p, POINTER(RsJobProgress))

_fn("rs_job_create", c_void_p, c_int)
_fn("rs_job_free", None, c_void_p)
_fn("rs_job_errmsg", c_char_p, c_void_p)
_fn("rs_job_set", c_int, c_void_p, c_int, ctypes.c_int64)
_fn("rs_job_set_string", c_int, c_void_p, c_int, c_char_p)
_fn("rs_job_add_robots", c_int, c_void_p, c_char_p)
_fn("rs_job_use_sites", c_int, c_void_p, c_void_p)
_fn("rs_job_add_agent", c_int, c_void_p, c_char_p)
_fn("rs_job_set_records", c_int, c_void_p, RS_JOB_RECORDS_FN, c_void_p)
_fn("rs_job_columns", POINTER(c_char_p), c_void_p, POINTER(c_size_t))
_fn("rs_job_set_diag", c_int, c_void_p, RS_JOB_DIAG_FN, c_void_p)
_fn("rs_job_set_progress", c_int, c_void_p, RS_JOB_PROGRESS_FN, c_void_p)
_fn("rs_job_run", c_int, c_void_p, c_char_p)
_fn("rs_job_run_fd", c_int, c_void_p, c_int, c_char_p)
_fn("rs_job_run_buffer", c_int, c_void_p, c_char_p, c_size_t, c_char_p)
_fn("rs_job_cancel", None, c_void_p)
_fn("rs_job_finish", c_int, c_void_p)
_fn("rs_job_totals_get", c_int, c_void_p, POINTER(RsJobTotals))
_fn("rs_job_stats_json", c_int, c_void_p, POINTER(ctypes.c_void_p), POINTER(c_size_t))
_fn("rs_parse_size", c_int, c_char_p, POINTER(c_uint64))

if lib.rs_version_number() // 10000 != SOVERSION_MAJOR:
    raise ImportError("robotscan: %s is version %s; this package needs %d.x"
                      % (path, lib.rs_version_string().decode(), SOVERSION_MAJOR))
