"""Thread settings of the compiled solvers (the C extensions' OpenMP loops and
the graded items' numba loops): the thread count for their parallel loops (per
calling thread) and one process-wide BLAS thread while any solve runs.

The count is this module's own per-thread setting, not numba's: importing
numba costs a process 0.25-0.3 s (every worker of a search paid it, and only
the graded items' solver uses numba), so it is imported by that solver alone,
which hands it the count of the thread that calls it."""

from __future__ import annotations

import contextlib
import functools
import numbers
import os
import threading

# The fewest entries one parallel loop of a solver touches (rows x features of a
# pass, items x features of a kernel row) for it to run on more than one
# thread.  Each loop forks and joins numba's threads: microseconds on a quiet
# machine, where the solvers' many small loops still ran slower on two
# threads than on one (the league search of the README 3.3 -> 3.1 s, an RBF fit
# of 6,000 pairs 3.8 -> 3.5 s, a linear one of 100,000 x 50 no faster); and a
# scheduler time slice when other processes hold the cores, each join waiting
# for a thread that is not running: the same league search took 127-189 s
# instead of 5 s beside two busy processes (BENCHMARKS.md, "Under load").
PARALLEL_WORK = 2_000_000


@functools.cache
def most_threads():
    """The most threads a parallel loop takes: ``NUMBA_NUM_THREADS`` when the
    environment sets it, else the cores this process may run on (numba's own
    rule for its default, which these loops followed when numba counted
    them)."""
    setting = os.environ.get("NUMBA_NUM_THREADS", "").strip()
    if setting:
        try:
            count = int(setting)
        except ValueError:
            raise ValueError(f"NUMBA_NUM_THREADS must be a positive integer; got "
                             f"{setting!r}.") from None
        if count < 1:
            raise ValueError(f"NUMBA_NUM_THREADS must be a positive integer; got {count}.")
        return count
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # (no affinity on macOS and Windows)
        return max(1, os.cpu_count() or 1)


_SETTING = threading.local()  # .count: this thread's, as solver_threads set it


def thread_count(n_threads, work=None):
    """Threads for ``n_threads`` (None or -1: :func:`most_threads`), and one
    when ``work`` (entries a parallel loop touches) is under PARALLEL_WORK."""
    most = most_threads()
    if n_threads is None or n_threads == -1:
        count = most
    elif not isinstance(n_threads, numbers.Integral) or isinstance(n_threads, bool) \
            or n_threads < 1:
        raise ValueError(f"n_jobs must be a positive integer, -1 or None; got {n_threads!r}.")
    else:
        count = min(int(n_threads), most)
    return 1 if work is not None and work < PARALLEL_WORK else count


def threads_now():
    """The threads the compiled loops of a solve use in this thread: the count
    :func:`solver_threads` set, else :func:`most_threads` (as a new thread
    starts)."""
    return getattr(_SETTING, "count", None) or most_threads()


def threads_for(work):
    """The threads of a compiled loop over ``work`` entries run outside a
    solve's own setting (a probability link's sweep): this thread's setting
    (:func:`threads_now`), and one under PARALLEL_WORK, as
    :func:`thread_count` rules for a solve."""
    return 1 if work < PARALLEL_WORK else threads_now()


@contextlib.contextmanager
def solver_threads(n_jobs, work=None):
    """The thread count of the solvers' parallel loops, in this thread
    only (``n_jobs`` and ``work`` as :func:`thread_count` reads them), and one
    BLAS thread.

    The solvers' BLAS calls are small (p x p systems, n x p products); with
    BLAS's own thread pool the two pools' threads spin on the same cores
    after each call: the all-pairs solver's passes took twice as long
    (12 vs 6 ms at 100,000 items on two cores).
    """
    before = getattr(_SETTING, "count", None)
    _SETTING.count = thread_count(n_jobs, work)
    try:
        with one_blas_thread():
            yield
    finally:
        _SETTING.count = before


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
