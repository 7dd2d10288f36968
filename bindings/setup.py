"""Packages weft for `pip install --no-build-isolation --no-index ./bindings`.

The C++ module is not compiled by setuptools: CMake builds it (the same target `make` builds). This
script takes `<build>/python/weft/_core*.so` from $WEFT_BUILD_DIR when set, else from ../build (what
`make` builds); when there is none it configures a CMake build in $WEFT_BUILD_DIR (default
../build-pip) and builds only the module target (a first build of the core takes minutes). The .so
must match the installing interpreter (Debian's python3.11)."""
import glob
import importlib.machinery
import os
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _suffix_ok(path):
    return any(path.endswith(s) for s in importlib.machinery.EXTENSION_SUFFIXES)


def _prebuilt():
    build = os.environ.get("WEFT_BUILD_DIR") or os.path.join(ROOT, "build")
    found = [p for p in glob.glob(os.path.join(build, "python", "weft", "_core*")) if _suffix_ok(p)]
    return found[0] if found else None


def _cmake_build():
    build = os.environ.get("WEFT_BUILD_DIR") or os.path.join(ROOT, "build-pip")
    python = getattr(sys, "_base_executable", sys.executable)
    subprocess.check_call(["cmake", "-S", ROOT, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                           "-DWEFT_BENCH=OFF", f"-DPython3_EXECUTABLE={python}"])
    subprocess.check_call(["cmake", "--build", build, "--target", "weft_python", "-j",
                           os.environ.get("WEFT_JOBS", str(os.cpu_count() or 1))])
    return _prebuilt() or sys.exit("setup.py: the CMake build made no weft/_core module")


class BuildPyWithCore(build_py):
    def run(self):
        super().run()
        module = _prebuilt() or _cmake_build()
        target = os.path.join(self.build_lib, "weft")
        os.makedirs(target, exist_ok=True)
        print(f"setup.py: weft._core from {module}")
        shutil.copy2(module, os.path.join(target, os.path.basename(module)))


class BinaryDistribution(Distribution):
    def has_ext_modules(self):  # a platform wheel: it carries a compiled module
        return True


setup(packages=["weft"], package_dir={"weft": "weft"}, cmdclass={"build_py": BuildPyWithCore},
      distclass=BinaryDistribution)
