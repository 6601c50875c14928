"""pytest setup for the Python binding's tests (tests/python).

Environment (set by `make test-python`; defaults work from the repository root):
  RS_SHARED_DIR   the shared data directory (../shared's layout: conformance/, data/; default build/testdata, unpacked by make testdata);
                  tests that need it are skipped, with the reason, when it is absent
  ROBOTSCAN_BIN   the CLI to compare with (default ./robotscan)
  ROBOTSCAN_LIB   the librobotscan.so under test (default: the package's own search)
"""
import os
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))
PYDIR = os.path.join(ROOT, "python")
if PYDIR not in sys.path:
    sys.path.insert(0, PYDIR)


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def shared_dir():
    d = os.environ.get("RS_SHARED_DIR") or os.path.join(ROOT, "build", "testdata")
    if not os.path.isdir(os.path.join(d, "conformance")):
        pytest.skip("no shared data directory at %s (set RS_SHARED_DIR or SHARED=)" % d)
    return d


@pytest.fixture(scope="session")
def robotscan_bin():
    b = os.environ.get("ROBOTSCAN_BIN") or os.path.join(ROOT, "robotscan")
    b = os.path.abspath(b)
    if not os.access(b, os.X_OK):
        pytest.fail("no robotscan binary at %s (run make first)" % b)
    return b
