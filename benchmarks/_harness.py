"""Shared benchmark plumbing: run one measurement in a fresh process.

A target is a module-level function ``target(queue, *args)`` that does its
setup, calls ``baseline()`` just before the timed work, and puts a tuple
``(seconds, peak_mb, *extras)`` on the queue, with ``peak_mb = peak_rss_mb()
- base``: the peak resident memory growth of that process during the work.
"""

from __future__ import annotations

import multiprocessing as mp
import queue as queue_module
import resource


def peak_rss_mb():
    """Peak resident set size of this process so far, in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def measure(target, *args):
    """Run ``target(queue, *args)`` in a fresh spawned process; return what it put."""
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=target, args=(queue, *args))
    proc.start()
    # A child that dies (an exception, memory) puts nothing: stop, do not wait forever.
    while True:
        try:
            result = queue.get(timeout=1.0)
            break
        except queue_module.Empty:
            if not proc.is_alive():
                raise RuntimeError(f"{target.__name__}{args} failed in its process (exit "
                                   f"code {proc.exitcode}); see its traceback above.") from None
    proc.join()
    return result
