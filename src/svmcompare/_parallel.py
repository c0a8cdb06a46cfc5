"""Work spread over threads of this process, interruptible from the console.

The solvers release the GIL, so independent fits (calibration folds) run
side by side in threads, sharing the data without copies.  Only the main
thread receives Ctrl-C; :func:`map_in_threads` waits in short timeouts there
and, when interrupted, stops the SMO loops of its threads instead of waiting
for them to converge.
"""

from __future__ import annotations

from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait

from .solvers.interrupt import solve_group, stop_running_solves

_POLL = 0.05  # seconds between checks for Ctrl-C while the threads work


def map_in_threads(function, items, n_workers, on_done=None):
    """``[function(item) for item in items]``, on up to ``n_workers`` threads.

    Results come in the order of ``items``; the first exception raised by a
    call is raised here after the other calls have ended (those not started
    are cancelled).  ``on_done(k)``, if given, runs in the calling thread
    when k calls have finished (a progress bar).
    """
    items = list(items)
    on_done = on_done or (lambda finished: None)
    if n_workers <= 1 or len(items) <= 1:
        results = []
        for item in items:
            results.append(function(item))
            on_done(len(results))
        return results
    group = object()  # these calls' solves, and no one else's

    def call(item):
        with solve_group(group):
            return function(item)

    with ThreadPoolExecutor(min(n_workers, len(items)),
                            thread_name_prefix="svmcompare") as pool:
        futures = [pool.submit(call, item) for item in items]
        try:
            finished = 0
            while True:
                done, pending = wait(futures, timeout=_POLL, return_when=FIRST_EXCEPTION)
                if len(done) > finished:
                    finished = len(done)
                    on_done(finished)
                failed = [f for f in futures if f in done and f.exception() is not None]
                if failed or not pending:
                    break
        except BaseException:
            _abandon(futures, group)
            raise
        if failed:
            _abandon(futures, group)
            raise failed[0].exception()
        return [f.result() for f in futures]


def _abandon(futures, group):
    """Cancel the calls not started and stop the running ones' SMO loops (a
    call may start a new solve after a stop: stop again until all are done)."""
    for future in futures:
        future.cancel()
    while wait(futures, timeout=_POLL).not_done:
        stop_running_solves(group)
