"""class_weight="auto", the default: "balanced" when ties are few, the paper's
problem when they are many (issue 36, item 6; benchmarks/bench_class_weight.py)."""

import numpy as np
import pytest

from svmcompare import SVMCompare, SVMCompareLP
from svmcompare._problem import flipped_class_weights
from svmcompare.datasets import make_norm_pairs
from svmcompare.exceptions import DegenerateWarning


def _labels(n_pairs, n_ties):
    y = np.ones(n_pairs)
    y[:n_ties] = 0
    return y


def _flipped(y):
    """Flipped labels of eq. (8): one 1 per decided pair, two -1 per tie."""
    return np.concatenate([np.ones(int(np.sum(y != 0))), -np.ones(2 * int(np.sum(y == 0)))])


@pytest.mark.parametrize("n_ties", [1, 10, 30, 33])
def test_auto_is_balanced_while_ties_are_under_a_third(n_ties):
    yt = _flipped(_labels(100, n_ties))
    auto = flipped_class_weights(yt, "auto")
    balanced = flipped_class_weights(yt, "balanced")
    assert auto == pytest.approx(balanced)
    assert auto[-1] > auto[1]  # ties are weighted up
    # Brute force: both labels carry the same total weight.
    assert auto[1] * np.sum(yt == 1) == pytest.approx(auto[-1] * np.sum(yt == -1))


@pytest.mark.parametrize("n_ties", [34, 50, 90])
def test_auto_never_weights_ties_down(n_ties):
    yt = _flipped(_labels(100, n_ties))
    assert flipped_class_weights(yt, "auto") == {1: 1.0, -1: 1.0}
    assert flipped_class_weights(yt, "balanced")[-1] < 1.0  # what "balanced" would do


def test_auto_is_continuous_where_it_switches():
    # 100 pairs, 1/3 ties in rows: 50 decided and 25 ties give 50 rows each.
    yt = _flipped(np.r_[np.zeros(25), np.ones(50)])
    assert flipped_class_weights(yt, "balanced") == pytest.approx({1: 1.0, -1: 1.0})


def test_the_default_fits_the_paper_s_problem_at_the_paper_s_half_ties():
    X, y = make_norm_pairs(200, "l2", equality_fraction=0.5, random_state=0)
    Xt, _ = make_norm_pairs(300, "l2", random_state=1)
    default = SVMCompare(C=10.0, gamma=0.5).fit(X, y)
    paper = SVMCompare(C=10.0, gamma=0.5, class_weight=None).fit(X, y)
    balanced = SVMCompare(C=10.0, gamma=0.5, class_weight="balanced").fit(X, y)
    np.testing.assert_allclose(default.decision_function(Xt), paper.decision_function(Xt))
    assert not np.allclose(default.decision_function(Xt), balanced.decision_function(Xt))


def test_the_default_weights_rare_ties_up_and_keeps_the_tie_band():
    X, y = make_norm_pairs(300, "l2", equality_fraction=0.1, random_state=0)
    Xt, _ = make_norm_pairs(300, "l2", random_state=1)
    default = SVMCompare(kernel="linear", C=1.0).fit(X, y)
    balanced = SVMCompare(kernel="linear", C=1.0, class_weight="balanced").fit(X, y)
    np.testing.assert_allclose(default.decision_function(Xt), balanced.decision_function(Xt))
    # The paper's problem loses Lemma 1's tie band here; the default keeps it.
    with pytest.warns(DegenerateWarning):
        assert SVMCompare(kernel="linear", C=1.0, class_weight=None).fit(X, y).degenerate_
    assert not default.degenerate_


def test_every_comparison_machine_defaults_to_auto():
    assert SVMCompare().get_params()["class_weight"] == "auto"
    assert SVMCompareLP().get_params()["class_weight"] == "auto"


def test_a_bad_class_weight_fails_before_any_work():
    X, y = make_norm_pairs(50, "l2", random_state=0)
    with pytest.raises(ValueError, match="None, 'auto', 'balanced' or a dict"):
        SVMCompare(class_weight="Balanced").fit(X[:0], y[:0])  # refused before the empty X
