"""Same random_state, same numbers: across processes, and whatever n_jobs."""

import subprocess
import sys
import textwrap

import numpy as np

from svmcompare import SVMCompare, SVMCompareCV
from svmcompare.datasets import make_norm_pairs

FIT = textwrap.dedent("""
    import numpy as np
    from svmcompare import SVMCompare
    from svmcompare.datasets import make_norm_pairs
    X, y = make_norm_pairs(150, "l1", random_state=0)
    model = SVMCompare(C=3.0, gamma=0.5, probability=True, random_state=7).fit(X, y)
    out = np.concatenate([model.decision_function(X), model.predict_proba(X).ravel()])
    print(out.tobytes().hex())
""")


def test_bit_identical_predictions_and_probabilities_across_processes():
    runs = {subprocess.run([sys.executable, "-c", FIT], capture_output=True, text=True,
                           check=True).stdout.strip() for _ in range(2)}
    assert len(runs) == 1
    # This process has run other tests (thread pools, BLAS state): the same
    # numbers to rounding, not necessarily to the bit (with NumPy 1.26's
    # OpenBLAS the probabilities differed in the last bit).
    X, y = make_norm_pairs(150, "l1", random_state=0)
    model = SVMCompare(C=3.0, gamma=0.5, probability=True, random_state=7).fit(X, y)
    here = np.concatenate([model.decision_function(X), model.predict_proba(X).ravel()])
    np.testing.assert_allclose(here, np.frombuffer(bytes.fromhex(runs.pop())), rtol=1e-9,
                               atol=1e-12)


def test_n_jobs_does_not_change_the_search():
    X, y = make_norm_pairs(120, "l1", random_state=1)
    grid = {"param_grid": {"gamma": [0.5, 2.0], "C": [0.1, 1.0, 10.0]}}
    one = SVMCompareCV(n_jobs=1, **grid).fit(X, y)
    two = SVMCompareCV(n_jobs=2, **grid).fit(X, y)
    assert one.best_params_ == two.best_params_
    np.testing.assert_array_equal(one.cv_results_.to_numpy(), two.cv_results_.to_numpy())
    np.testing.assert_array_equal(one.decision_function(X), two.decision_function(X))
    # Fewer splits than workers (one validation split; three folds on four
    # workers): the paths run apart there and one after another serially,
    # the same search either way.
    from svmcompare.grid_search import validation_search

    Xv, yv = make_norm_pairs(80, "l1", random_state=2)
    serial = validation_search(SVMCompare(), grid["param_grid"], X, y, Xv, yv, n_jobs=1)
    parallel = validation_search(SVMCompare(), grid["param_grid"], X, y, Xv, yv, n_jobs=2)
    assert serial[1].equals(parallel[1])
    np.testing.assert_array_equal(serial[0].decision_function(Xv),
                                  parallel[0].decision_function(Xv))
    three = SVMCompareCV(n_jobs=4, cv=3, **grid).fit(X, y)
    np.testing.assert_array_equal(SVMCompareCV(n_jobs=1, cv=3, **grid).fit(X, y)
                                  .cv_results_.to_numpy(), three.cv_results_.to_numpy())


def test_the_layout_of_x_does_not_change_the_fit():
    # A wide DataFrame (read into a strided array) took another solver path
    # than the same pairs as an array: decisions apart by up to 3e-3.
    import pandas as pd

    from svmcompare import make_pairs

    rng = np.random.default_rng(0)
    first, second = rng.normal(size=(60, 3)), rng.normal(size=(60, 3))
    d = (second - first) @ np.arange(1, 4) + 0.8 * rng.normal(size=60)
    y = np.where(d > 1, 1, np.where(d < -1, -1, 0))
    X = make_pairs(first, second)
    wide = pd.DataFrame(np.hstack([first, second]),
                        columns=[f"{side}_f{k}" for side in "ab" for k in range(3)])
    for params in ({}, {"kernel": "linear", "solver": "exact"}):
        reference = SVMCompare(n_jobs=1, **params).fit(X, y).decision_function(X)
        for layout in (wide, np.asfortranarray(X)):
            np.testing.assert_array_equal(
                SVMCompare(n_jobs=1, **params).fit(layout, y).decision_function(X), reference)
