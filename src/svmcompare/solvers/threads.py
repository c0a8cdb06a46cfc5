"""Thread settings of the compiled solvers: numba's thread count for their
parallel loops (per calling thread) and one process-wide BLAS thread while
any solve runs."""

from __future__ import annotations

import contextlib
import functools
import numbers
import threading

import numba


def thread_count(n_threads):
    """numba threads for ``n_threads`` (None or -1: all that numba has)."""
    most = numba.config.NUMBA_NUM_THREADS
    if n_threads is None or n_threads == -1:
        return most
    if not isinstance(n_threads, numbers.Integral) or isinstance(n_threads, bool) \
            or n_threads < 1:
        raise ValueError(f"n_jobs must be a positive integer, -1 or None; got {n_threads!r}.")
    return min(int(n_threads), most)


@contextlib.contextmanager
def solver_threads(n_jobs):
    """numba's thread count for the solvers' parallel loops, in this thread
    only (``n_jobs`` as :func:`thread_count` reads it), and one BLAS thread.

    The solvers' BLAS calls are small (p x p systems, n x p products); with
    BLAS's own thread pool the two pools' threads spin on the same cores
    after each call: the all-pairs solver's passes took twice as long
    (12 vs 6 ms at 100,000 items on two cores).
    """
    before = numba.get_num_threads()
    numba.set_num_threads(thread_count(n_jobs))
    try:
        with one_blas_thread():
            yield
    finally:
        numba.set_num_threads(before)


_BLAS_LOCK = threading.Lock()
_blas_holders = [0, None]  # solves inside solver_threads now, and the limiter to undo


@contextlib.contextmanager
def one_blas_thread():
    """BLAS limited to one thread while any solve runs.  The limit is
    process-wide: solves in concurrent threads (calibration folds) share one
    limiter, undone by the last to finish (nested limiters undone out of order
    would leave BLAS at one thread for good)."""
    with _BLAS_LOCK:
        if _blas_holders[0] == 0:
            _blas_holders[1] = _blas_controller().limit(limits=1, user_api="blas")
        _blas_holders[0] += 1
    try:
        yield
    finally:
        with _BLAS_LOCK:
            _blas_holders[0] -= 1
            if _blas_holders[0] == 0:
                _blas_holders[1].restore_original_limits()
                _blas_holders[1] = None


@functools.cache
def _blas_controller():
    """threadpoolctl's view of the loaded BLAS libraries, found once (a fresh
    ``threadpool_limits`` looks them up again: 1.2 ms, 0.4 s over a 300-fit grid)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()
