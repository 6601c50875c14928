"""`pip install --no-build-isolation .` from a clone (SPEC 8): a copy of the tracked
tree (no build/ directory: the C library is built from scratch by setup.py's `make so`)
installs into a fresh venv (--system-site-packages, for Debian's setuptools and
wheel; --no-index: no network), and `import robotscan, robotscan.compat` works there
without PYTHONPATH, ROBOTSCAN_LIB or `make install`, loading the library the package
carries. Takes about a minute (the library's build).
"""
import importlib.util
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))


def tracked_files():
    p = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", "--cached", "--others",
                        "--exclude-standard"], capture_output=True)
    if p.returncode != 0:
        return None
    return [f for f in p.stdout.decode().split("\0") if f and os.path.isfile(os.path.join(ROOT, f))]


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "ROBOTSCAN_LIB", "MAKEFLAGS", "MFLAGS", "MAKELEVEL",
                        "PYTHONDONTWRITEBYTECODE")}
    env.update(extra)
    return env


def test_pip_install_from_clone(tmp_path):
    for mod in ("venv", "pip", "setuptools", "wheel"):
        if importlib.util.find_spec(mod) is None:
            pytest.skip("python3 module %s missing (scripts/deps.sh installs it)" % mod)
    files = tracked_files()
    if files is None:
        pytest.skip("not a git checkout: cannot list the clone's files")
    clone = tmp_path / "clone"
    for f in files:
        if f.startswith(("tests/data/", "data/", "bench/", "docs/")):
            continue          # large and not needed to build the package
        dst = clone / f
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(os.path.join(ROOT, f), dst)
    assert not (clone / "build").exists()

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip",
                    str(venv)], check=True, timeout=1200)
    py = str(venv / "bin" / "python")
    p = subprocess.run([py, "-m", "pip", "install", "--no-build-isolation", "--no-index",
                        "--no-cache-dir", "--disable-pip-version-check", "."],
                       cwd=clone, env=clean_env(MAKEFLAGS="-j2"), capture_output=True,
                       timeout=1200)
    out = (p.stdout + p.stderr).decode("utf-8", "replace")
    assert p.returncode == 0, out[-4000:]
    assert (clone / "build" / "librobotscan.so").exists(), "setup.py did not run make so"

    # Import from elsewhere, so neither the clone's python/ nor its build/ is on any path.
    shutil.rmtree(clone)
    script = textwrap.dedent("""
        import os, sys, warnings
        import robotscan, robotscan.compat, robotscan.scrapy
        assert robotscan.library_path.startswith(sys.prefix), robotscan.library_path
        r = robotscan.Robots("User-agent: *\\nDisallow: /x\\nSitemap: https://a.com/s.xml\\n")
        assert r.check("/x", "bot") == ("disallow", 2, "disallow: /x", "matched")
        assert r.sitemaps == ["https://a.com/s.xml"]
        assert robotscan.compat.Protego.parse("User-agent: *\\nDisallow: /").can_fetch("/a", "b") is False
        print("ok", robotscan.__version__, robotscan.library_path)
    """)
    p = subprocess.run([py, "-c", script], cwd=tmp_path, env=clean_env(), capture_output=True,
                       timeout=1200)
    assert p.returncode == 0, (p.stdout + p.stderr).decode("utf-8", "replace")
    assert p.stdout.startswith(b"ok ")
