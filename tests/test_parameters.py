"""Every hyper-parameter declared once (issue 34): _parameters.CHECKS covers
every parameter of the kernel estimators, and each check refuses a bad value
at the start of fit, naming the parameter."""

import numpy as np
import pytest

from svmcompare import SVMCompare, SVMCompareLP, SVMRank, SVMRank2
from svmcompare._parameters import ABSENT, CHECKS, setting
from svmcompare.datasets import make_norm_pairs

ESTIMATORS = [SVMCompare, SVMRank, SVMRank2, SVMCompareLP]

BAD = {
    "C": -1.0, "class_weight": "heavy", "scale_indicators": "yes", "on_degenerate": "ignore",
    "loss": "log", "tol": 0.0, "max_iter": 2.5, "cache_size": -5, "shrinking": 1,
    "solver": "fast", "n_components": 0, "probability": "yes", "calibration": "holdout",
    "tie_band": "wide", "link": "probit", "cost": np.ones((2, 2)), "n_jobs": 0,
}


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: e.__name__)
def test_every_parameter_is_declared(estimator):
    assert set(estimator().get_params()) <= set(CHECKS)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: e.__name__)
def test_each_bad_value_is_refused_at_fit_naming_its_parameter(estimator):
    X, y = make_norm_pairs(40, "l1", random_state=0)
    for name in set(estimator().get_params()) & set(BAD):
        with pytest.raises((ValueError, TypeError), match=name):
            estimator(**{name: BAD[name]}).fit(X, y)


def test_a_missing_parameter_reads_as_its_absent_meaning():
    lp, compare = SVMCompareLP(), SVMCompare(probability=True)
    assert setting(lp, "probability") is False and setting(compare, "probability") is True
    assert setting(SVMRank(), "class_weight") is None
    assert set(ABSENT) <= set(CHECKS)


def test_a_subclass_s_own_parameters_are_its_own():
    class Weighted(SVMCompare):
        def __init__(self, *, C=1.0, kernel="linear", shrink_ties=0.5):
            super().__init__(C=C, kernel=kernel)
            self.shrink_ties = shrink_ties

    X, y = make_norm_pairs(60, "l1", random_state=0)
    assert Weighted().fit(X, y).predict(X).shape == (60,)


def test_a_polynomial_degree_past_what_model_files_hold_is_refused_at_fit():
    # An attack (stop 70): degree 101 fitted and saved, and the file could
    # never be read back (model files hold degrees 1..100).
    from svmcompare import SVMCompare
    from svmcompare.datasets import make_norm_pairs

    X, y = make_norm_pairs(40, "l1", random_state=0)
    with pytest.raises(ValueError, match=r"degree must be an integer in 1\.\.100; got 101"):
        SVMCompare(kernel="poly", degree=101, gamma=1e-3).fit(X, y)
