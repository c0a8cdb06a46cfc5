"""The SMO core, the linear solvers' loops, the kernel blocks' finish and the
ordered logit's likelihood terms are C
extensions (Cython, OpenMP), compiled by the install: nothing to compile on a
first fit but the graded items' solver (numba).  Everything
else is in pyproject.toml.

Like numba, whose compiled loop it replaces, it is built for the machine that
installs it (``-march=native``: the kernel rows' exp runs in AVX2 lanes with
fused multiply-adds where the CPU has them, twice as fast as the portable
build).  ``SVMCOMPARE_PORTABLE=1`` builds for the architecture's baseline
instead (wheels for other machines).  ``-ffp-contract=off``: no product is
fused with a sum but the exp polynomial's own (explicit in the code), so that
native and portable builds round every other operation alike.
"""

import os
import sys

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


def _flags(compiler_type):
    if compiler_type == "msvc":
        return ["/O2", "/openmp"], []
    compile_args = ["-O3", "-fno-trapping-math", "-fno-math-errno", "-ffp-contract=off"]
    link_args = []
    # OpenMP runs the solvers' parallel chunks; without it (Apple's clang) they
    # run on one thread, with the same results.
    if sys.platform != "darwin":
        compile_args.append("-fopenmp")
        link_args.append("-fopenmp")
    if os.environ.get("SVMCOMPARE_PORTABLE", "") in ("", "0"):
        compile_args.append("-march=native")
    return compile_args, link_args


class BuildExt(build_ext):
    def build_extensions(self):
        compile_args, link_args = _flags(self.compiler.compiler_type)
        for extension in self.extensions:
            extension.extra_compile_args = compile_args
            extension.extra_link_args = link_args
        super().build_extensions()


extensions = [
    Extension("svmcompare.solvers._smo_core", ["src/svmcompare/solvers/_smo_core.pyx"],
              depends=["src/svmcompare/_exp.h", "src/svmcompare/_parallel.h"]),
    Extension("svmcompare._blocks", ["src/svmcompare/_blocks.pyx"],
              depends=["src/svmcompare/_exp.h"]),
    Extension("svmcompare.solvers._linear_core", ["src/svmcompare/solvers/_linear_core.pyx"],
              depends=["src/svmcompare/_parallel.h"]),
    Extension("svmcompare._ordinal_core", ["src/svmcompare/_ordinal_core.pyx"],
              depends=["src/svmcompare/_exp.h", "src/svmcompare/_parallel.h"]),
]
setup(ext_modules=cythonize(extensions, language_level=3), cmdclass={"build_ext": BuildExt})
