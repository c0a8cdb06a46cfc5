"""Long compiled loops that Ctrl-C can stop and that show their progress.

A compiled loop releases the GIL and runs in a worker thread while the
calling thread waits in short joins (where Python delivers Ctrl-C) and
updates a progress line; a stop flag the loop reads at every step ends it.
Loops started in other threads join a group that :func:`stop_running_solves`
can stop.
"""

from __future__ import annotations

import sys
import threading
import time

from .._local import thread_setting
from .threads import solver_threads

PROGRESS_AFTER = 2.0  # seconds of solving before the progress line appears


def bar_options(progress):
    """tqdm's ``disable`` and ``delay`` for a ``progress`` setting: False none,
    True at once, "auto" after PROGRESS_AFTER seconds and only where the
    output is a terminal (a log file or a pipe would fill with its
    carriage-return frames; tqdm's notebook bar shows either way)."""
    if isinstance(progress, str) and progress == "auto":
        return {"disable": None, "delay": PROGRESS_AFTER}
    return {"disable": not progress, "delay": 0.0}


class StepsLine:
    """The steps so far on stderr, once a solve has run past PROGRESS_AFTER seconds
    (one line over the solve's successive worker threads)."""

    def __init__(self, steps):
        self.steps, self.started, self.bar = steps, time.perf_counter(), None

    def update(self):
        if self.bar is None and time.perf_counter() - self.started > PROGRESS_AFTER:
            from tqdm.auto import tqdm

            self.bar = tqdm(desc="SMO", unit=" steps", file=sys.stderr, leave=False,
                            initial=int(self.steps[0]))
        if self.bar is not None:
            self.bar.update(int(self.steps[0]) - self.bar.n)

    def close(self):
        if self.bar is not None:
            self.bar.close()


# The stop flags of the SMO loops running now, by group, so that a caller
# whose solves run in threads other than the main one (which alone receives
# Ctrl-C) can stop them: :func:`solve_group`, :func:`stop_running_solves`.
_RUNNING = {}  # a token per running loop -> (its group, its stop flag)
_RUNNING_LOCK = threading.Lock()
_GROUP = threading.local()


def solve_group(group):
    """The SMO loops this thread starts inside the block (a context manager)
    belong to ``group`` (any object) for :func:`stop_running_solves`."""
    return thread_setting(_GROUP, "group", group)


def stop_running_solves(group):
    """Ask the running SMO loops of ``group`` to return after their current
    step (their fits end unconverged; the caller discards them)."""
    with _RUNNING_LOCK:
        for owner, flag in _RUNNING.values():
            if owner is group:
                flag[0] = 1


def run_interruptible(function, args, stop_flag, n_threads, line=None):
    """Run a GIL-releasing compiled ``function(*args)`` in a worker thread.

    The calling thread waits in short timed joins, where Python delivers
    KeyboardInterrupt (or any exception a signal handler raises); it then sets
    ``stop_flag[0]``, which the compiled loop reads at every step, waits for
    the worker to return and re-raises.  ``line`` (a :class:`StepsLine`) is
    updated while it waits.
    """
    raised = []

    def target():
        try:
            with solver_threads(n_threads):  # numba's setting is per thread
                function(*args)
        except BaseException as exc:  # re-raised in the calling thread
            raised.append(exc)

    worker = threading.Thread(target=target, name="svmcompare-smo", daemon=True)
    token = object()
    with _RUNNING_LOCK:
        _RUNNING[token] = (getattr(_GROUP, "group", None), stop_flag)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.05)
            if line is not None:
                line.update()
    except BaseException:
        stop_flag[0] = 1
        worker.join()
        raise
    finally:
        with _RUNNING_LOCK:
            del _RUNNING[token]
    if raised:
        raise raised[0]


def running_solves(group=None):
    """How many compiled loops are running now (of ``group`` when given)."""
    with _RUNNING_LOCK:
        return sum(1 for owner, _ in _RUNNING.values() if group is None or owner is group)
