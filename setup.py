"""The SMO core is a C extension (Cython, OpenMP), compiled by the install:
nothing to compile on the first fit.  Everything else is in pyproject.toml."""

import sys

from Cython.Build import cythonize
from setuptools import Extension, setup

# OpenMP runs the SMO's parallel chunks; without it (Apple's clang) they run
# on one thread, with the same results.
openmp = [] if sys.platform == "darwin" else (["/openmp"] if sys.platform == "win32"
                                              else ["-fopenmp"])
optimize = ["/O2"] if sys.platform == "win32" else ["-O3"]
extension = Extension(
    "svmcompare.solvers._smo_core",
    ["src/svmcompare/solvers/_smo_core.pyx"],
    extra_compile_args=optimize + openmp,
    extra_link_args=[] if sys.platform == "win32" else openmp,
)
setup(ext_modules=cythonize([extension], language_level=3))
