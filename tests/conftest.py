import numpy as np
import pytest

from svmcompare.datasets import make_norm_pairs


@pytest.fixture
def norm_data():
    """Small simulated train and test sets (||x||_1^2, half equality)."""
    rng = np.random.RandomState(0)
    train = make_norm_pairs(120, "l1", random_state=rng)
    test = make_norm_pairs(300, "l1", random_state=rng)
    return train, test


@pytest.fixture
def ctrl_c():
    """Python's own Ctrl-C handler for the test: a process started in the
    background of a non-interactive shell (``cmd &``, as CI scripts do)
    inherits SIGINT ignored, and then ``_thread.interrupt_main`` does nothing
    and a test of what Ctrl-C stops runs its long fit to the end instead."""
    import signal

    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
