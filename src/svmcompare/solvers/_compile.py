"""A one-line notice while numba compiles a solver for the first time.

Only the graded items' all-pairs solver is compiled by numba now (the SMO
core and the linear solvers' loops are C extensions the install compiles).
The compiled code is cached next to the sources (numba's ``cache=True``), so
only its first fit after an install pays for compilation (a few seconds,
with nothing on screen otherwise).  Whether a solver's cache exists is read from
numba's cache index file; should numba not say where it is, a timer stands in:
the notice then appears when the first call of a process runs longer than
:data:`NOTICE_AFTER` seconds.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading

NOTICE_AFTER = 3.0
_MESSAGE = ("svmcompare: compiling its numerical solvers for this machine (once after an "
            "install, cached afterwards; a few seconds) ...")
_noticed = []  # the dispatchers already announced or checked (kept alive: no id reuse)


def _cached(dispatcher):
    """Whether numba has this function's compiled code on disk (None: unknown).

    numba names a function's cache index ``<module>.<qualname>-<first line>.py<XY><abi
    flags>.nbi`` in the folder its compile statistics give (``dispatcher.stats.cache_path``)."""
    try:
        folder = dispatcher.stats.cache_path
        code = dispatcher.py_func.__code__
        qualname = dispatcher.py_func.__qualname__
    except AttributeError:
        return None
    if not folder:
        return None
    module = os.path.splitext(os.path.basename(code.co_filename))[0]
    index = (f"{module}.{qualname}-{code.co_firstlineno}"
             f".py{sys.version_info[0]}{sys.version_info[1]}{getattr(sys, 'abiflags', '')}.nbi")
    return os.path.exists(os.path.join(folder, index))


def _notice():
    print(_MESSAGE, file=sys.stderr, flush=True)


@contextlib.contextmanager
def compile_notice(dispatcher):
    """Around the first call of a solver in this process whose compiled
    ``dispatcher`` (its main loop) may still have to be compiled."""
    if any(seen is dispatcher for seen in _noticed) or dispatcher.signatures:
        yield
        return
    _noticed.append(dispatcher)
    cached = _cached(dispatcher)
    if cached:
        yield
        return
    if cached is False:
        _notice()
        yield
        return
    timer = threading.Timer(NOTICE_AFTER, _notice)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def announces_compilation(dispatcher):
    """Decorate a solver whose first call compiles ``dispatcher`` (and its kin)."""
    import functools

    def decorate(solver):
        @functools.wraps(solver)
        def wrapper(*args, **kwargs):
            with compile_notice(dispatcher):
                return solver(*args, **kwargs)
        return wrapper
    return decorate
