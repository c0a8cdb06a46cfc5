"""Ctrl-C stops a long fit promptly, from Python and from the command line, and
an interrupted fit leaves no model file behind."""

import os
import select
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from svmcompare import SVMCompare, load_model, persistence, save_model
from svmcompare.cli import main

# A badly conditioned problem (poly, gamma 16, C 1e5, exact SMO) that cannot finish in
# minutes at this tolerance: without interruption the fit would run far longer
# than the test waits.
LONG_FIT = textwrap.dedent("""
    import signal
    import time
    # Ctrl-C as in a terminal: started from a background job, the child would
    # inherit SIGINT ignored.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from svmcompare import SVMCompare
    from svmcompare.datasets import make_norm_pairs
    X, y = make_norm_pairs(1000, "l1", random_state=0)
    # Compile everything this fit runs (SMO, kernel rows, Newton steps) before the
    # clock starts: a Ctrl-C that lands in a first compile can be lost.
    model = SVMCompare(kernel="poly", gamma=16.0, degree=3, C=1e5, tol=1e-12, solver="exact",
                       max_iter=20_000)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X[:300], y[:300])
    model.set_params(max_iter=10**7)  # ~80 s: never finishes while the test waits
    print("fitting", flush=True)
    try:
        model.fit(X, y)
        print("finished", flush=True)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
""")


@pytest.mark.skipif(os.name != "posix", reason="sends SIGINT")
def test_ctrl_c_stops_a_long_fit_within_a_second():
    child = subprocess.Popen([sys.executable, "-c", LONG_FIT], stdout=subprocess.PIPE,
                             text=True)
    try:
        assert child.stdout.readline().strip() == "fitting"
        time.sleep(1.5)  # well inside the compiled loop, past the inline slice
        assert child.poll() is None
        sent = time.perf_counter()
        child.send_signal(signal.SIGINT)
        # Wait at most 10 s for the answer: a fit that ignores Ctrl-C fails here
        # instead of hanging the suite.
        ready, _, _ = select.select([child.stdout], [], [], 10.0)
        answer = child.stdout.readline().strip() if ready else "no answer in 10 s"
        latency = time.perf_counter() - sent
    finally:
        child.kill()
        child.wait()
    assert answer == "interrupted"
    assert latency < 1.0


def test_the_solver_state_is_usable_after_an_interrupted_fit(ctrl_c):
    # The stop flag belongs to one fit: the next fit in the same process runs
    # normally.  (Interrupt from a timer thread through the main thread.)
    import _thread
    import threading

    from svmcompare.datasets import make_norm_pairs

    X, y = make_norm_pairs(600, "l1", random_state=0)
    # 10^7 steps (~80 s): a lost interrupt fails the test instead of hanging the run.
    long = SVMCompare(kernel="poly", gamma=16.0, degree=3, C=1e5, tol=1e-12, max_iter=10**7,
                      solver="exact")
    _compile_first(long, X, y)
    timer = threading.Timer(0.5, _thread.interrupt_main)
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        long.fit(X, y)
    timer.join()
    model = SVMCompare(C=1.0, gamma=0.5).fit(X, y)
    assert model.kkt_violation_ < model.tol


def _compile_first(model, X, y):
    """Fit ``model``'s kind on a few pairs past its first Newton steps, so that
    no first compile (where a Ctrl-C can be lost) runs inside the timed fit."""
    import warnings

    from sklearn.base import clone

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clone(model).set_params(max_iter=20_000).fit(X[:300], y[:300])


def test_interrupted_save_leaves_no_file(tmp_path, monkeypatch):
    import skops.io as sio

    X = np.random.default_rng(0).normal(size=(30, 2, 2))
    y = np.tile([-1, 0, 1], 10)
    model = SVMCompare().fit(X, y)
    path = tmp_path / "model.skops"
    save_model(model, path)
    before = path.read_bytes()

    def dump_then_interrupt(obj, file, **options):
        with open(file, "wb") as handle:
            handle.write(b"PK\x03\x04 half a file")
        raise KeyboardInterrupt

    monkeypatch.setattr(sio, "dump", dump_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        save_model(model, path)
    # The earlier file is intact and no temporary file is left beside it.
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["model.skops"]
    monkeypatch.undo()
    assert isinstance(load_model(path), SVMCompare)
    assert persistence.FORMAT  # the module under test is the one monkeypatched


def test_saved_file_has_ordinary_permissions(tmp_path):
    X = np.random.default_rng(0).normal(size=(30, 2, 2))
    model = SVMCompare().fit(X, np.tile([-1, 0, 1], 10))
    umask = os.umask(0o022)
    try:
        save_model(model, tmp_path / "m.skops")
    finally:
        os.umask(umask)
    assert (tmp_path / "m.skops").stat().st_mode & 0o777 == 0o644


def test_cli_fit_interrupted_exits_130_without_a_model_file(tmp_path, capsys, monkeypatch):
    import pandas as pd

    from svmcompare.datasets import make_norm_pairs

    X, y = make_norm_pairs(60, "l1", random_state=0)
    frame = pd.DataFrame({"a_u": X[:, 0, 0], "a_v": X[:, 0, 1], "b_u": X[:, 1, 0],
                          "b_v": X[:, 1, 1], "y": y})
    frame.to_csv(tmp_path / "pairs.csv", index=False)

    def interrupted_fit(self, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(SVMCompare, "fit", interrupted_fit)
    code = main(["fit", str(tmp_path / "pairs.csv"), "--model", str(tmp_path / "m.skops")])
    assert code == 130
    assert "interrupted" in capsys.readouterr().err
    assert not (tmp_path / "m.skops").exists()
