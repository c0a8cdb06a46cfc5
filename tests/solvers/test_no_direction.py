"""Hinge problems whose minimizer has u = 0 (no ranking): the LP that tells
(:func:`solvers.lp.hinge_has_no_direction`), checked against an interior-point
solve of the dual, and SVMCompare's warning there."""

import warnings

import numpy as np
import pytest

from svmcompare import SVMCompare
from svmcompare.exceptions import DegenerateWarning, NoRankingError
from svmcompare.solvers.dual_cd import solve_linear_rows
from svmcompare.solvers.lp import hinge_has_no_direction
from tests.reference.dense import solve_dual_reference


def _rows(n_strict, n_ties, signal, seed):
    """Flipped rows of eq. (8): strict pairs toward the winner (label 1), each
    tie in both orientations (label -1); ``signal`` shifts the strict rows'
    first feature (a ranking exists when it is large)."""
    rng = np.random.default_rng(seed)
    strict = rng.normal(size=(n_strict, 3))
    strict[:, 0] += signal
    ties = rng.normal(size=(n_ties, 3))
    D = np.vstack([strict, ties, -ties])
    y = np.r_[np.ones(n_strict), -np.ones(2 * n_ties)]
    return D, y


def _reference_u(D, y, C):
    """u = sum_t alpha_t y_t d_t of the dual (18) solved by Clarabel."""
    Z = y[:, None] * D
    alpha = solve_dual_reference(Z @ Z.T, y, np.full(y.size, C))
    return Z.T @ alpha, alpha


@pytest.mark.parametrize("signal, none_expected", [(0.0, True), (3.0, False)])
def test_the_lp_agrees_with_an_interior_point_solve_of_the_dual(signal, none_expected):
    D, y = _rows(120, 10, signal, seed=1)
    C = 0.5
    u, alpha = _reference_u(D, y, C)
    scale = C * np.abs(D).sum()
    assert (np.linalg.norm(u) < 1e-6 * scale) == none_expected
    # beta = +1: the strict rows weigh more (120 C against 20 C).
    assert hinge_has_no_direction(D, y, np.full(y.size, C), 1.0) == none_expected


def test_a_beta_away_from_the_heavier_labels_sign_is_not_checked():
    D, y = _rows(120, 10, 0.0, seed=1)
    C = np.full(y.size, 0.5)
    assert not hinge_has_no_direction(D, y, C, 0.9)   # u = 0 puts beta at 1 exactly
    assert not hinge_has_no_direction(D, y, C, -1.0)  # the lighter label's side
    # Labels of equal weight: u = 0 leaves beta anywhere in [-1, 1], not checked.
    balanced = np.where(y > 0, 20 / 120, 1.0)
    assert not hinge_has_no_direction(D, y, balanced, 1.0)


def test_a_solver_stopped_at_its_tolerance_approaches_0_along_a_path():
    # What the LP certifies: where u = 0 is the minimizer, the u a solver
    # returns shrinks with its tolerance (a path to 0, not a ranking).
    D, y = _rows(200, 15, 0.0, seed=2)
    C = np.full(y.size, 1.0)
    assert hinge_has_no_direction(D, y, C, 1.0)
    loose, tight = (solve_linear_rows(D, y, C, tol=tol) for tol in (1e-3, 1e-8))
    assert np.linalg.norm(tight.u) < 1e-2 * np.linalg.norm(loose.u) + 1e-12
    D, y = _rows(200, 15, 3.0, seed=2)  # a ranking: u stays
    loose, tight = (solve_linear_rows(D, y, C, tol=tol) for tol in (1e-3, 1e-8))
    np.testing.assert_allclose(tight.u, loose.u, rtol=1e-2)


def _linear_pairs(n, seed):
    """Pairs of items whose utility is linear, outcomes with logistic noise and a
    narrow tie band (about 5% ties)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2, 4))
    gap = X[:, 1] @ np.array([1.0, -0.5, 0.25, 0.0]) - X[:, 0] @ np.array([1.0, -0.5, 0.25, 0.0])
    noisy = gap + rng.logistic(size=n)
    return X, np.where(noisy > 0.15, 1, np.where(noisy < -0.15, -1, 0))


def test_svmcompare_says_when_its_degenerate_direction_is_no_ranking():
    # Few ties and class_weight=None: the hinge's minimizer is u = 0, and the
    # warning says that the direction kept is the solver's (the LP's verdict).
    X, y = _linear_pairs(400, seed=0)
    with pytest.warns(DegenerateWarning, match="exact solution of its hinge problem here "
                                              "is u = 0") as caught:
        model = SVMCompare(kernel="linear", class_weight=None, C=1.0).fit(X, y)
    assert len([w for w in caught if issubclass(w.category, DegenerateWarning)]) == 1
    assert model.degenerate_ and all(w.filename == __file__ for w in caught)
    # RBF rows are implicit, not checked: the general warning.
    with pytest.warns(DegenerateWarning, match="The model is usable"):
        SVMCompare(class_weight=None, C=1.0).fit(X, y)
    # A search's points and calibration folds are not checked (no warning wanted).
    from svmcompare import SVMCompareCV
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        SVMCompareCV(param_grid={"kernel": ["linear"], "C": [0.1, 1.0], "class_weight": [None]},
                     cv=3).fit(X, y)
    messages = [str(w.message) for w in caught if issubclass(w.category, DegenerateWarning)]
    assert len(messages) == 1 and "is u = 0" in messages[0]  # the refit's alone
    # It says what the search chose, and not to try another class weight it weighed.
    assert messages[0].startswith("SVMCompareCV chose kernel='linear', C=")
    assert "by cross-validated error; fitted on all pairs, SVMCompare found beta" in messages[0]
    assert messages[0].endswith("(param_grid with class_weight='balanced').")


def test_the_papers_behaviour_still_raises():
    X, y = _linear_pairs(400, seed=0)
    with pytest.raises(NoRankingError):
        SVMCompare(kernel="linear", class_weight=None, C=1.0, on_degenerate="raise").fit(X, y)
