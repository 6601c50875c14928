"""pip install --no-build-isolation .  ->  the robotscan Python package with its own
librobotscan.so (SPEC 8).

build_py runs `make so` in this directory (the C library, as `make` builds it: the
Makefile checks the build packages and stops with the apt-get line when one is
missing) and copies build/librobotscan.so.MAJOR.MINOR.PATCH into the package as
librobotscan.so.MAJOR, which robotscan/_lib.py loads from the package's own directory.
$MAKE names another make. setuptools' own scratch goes to build/python/.
"""
import os
import re
import shutil
import subprocess

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(ROOT, "src", "robotscan.h")) as f:
    VERSION = re.search(r'#define RS_VERSION_STRING "([^"]+)"', f.read()).group(1)
SONAME = "librobotscan.so." + VERSION.split(".")[0]


class BuildWithLibrary(build_py):
    def run(self):
        subprocess.check_call([os.environ.get("MAKE", "make"), "so"], cwd=ROOT)
        super().run()
        dst = os.path.join(self.build_lib, "robotscan")
        os.makedirs(dst, exist_ok=True)
        shutil.copy2(os.path.join(ROOT, "build", "librobotscan.so." + VERSION),
                     os.path.join(dst, SONAME))
        # a make-install record of this tree must not travel with the wheel
        cfg = os.path.join(dst, "_config.py")
        if os.path.exists(cfg):
            os.remove(cfg)


class BinaryDistribution(Distribution):
    """The wheel carries a shared library: tag it for this platform."""

    def has_ext_modules(self):
        return True


setup(
    name="robotscan",
    version=VERSION,
    description="robots.txt verdicts exactly as Google's reference parser (RFC 9309), at bulk "
                "scale: Python binding of librobotscan, with Protego and urllib.robotparser "
                "drop-ins and a Scrapy parser",
    license="see LICENSE",
    python_requires=">=3.7",
    package_dir={"": "python"},
    packages=["robotscan"],
    cmdclass={"build_py": BuildWithLibrary},
    distclass=BinaryDistribution,
    options={"build": {"build_base": "build/python"},
             "egg_info": {"egg_base": "build/python"},
             "bdist_wheel": {"bdist_dir": "build/python/bdist"}},
    zip_safe=False,
)
