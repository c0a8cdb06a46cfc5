"""Shared benchmark plumbing: run one measurement in a fresh process.

A target is a module-level function ``target(queue, *args)`` that does its
setup, calls ``baseline()`` just before the timed work, and puts a tuple
``(seconds, peak_mb, *extras)`` on the queue, with ``peak_mb = peak_rss_mb()
- base``: the peak resident memory growth of that process during the work.
"""

from __future__ import annotations

import multiprocessing as mp
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
    result = queue.get()
    proc.join()
    return result
