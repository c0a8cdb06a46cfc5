"""Section 3.1: the hard-margin LP (7), the QP (9) and Lemma 1, against
independent references (an interior-point solve of the primal QP, a grid search
of the LP's piecewise-linear objective)."""

import numpy as np
import pytest

from svmcompare import HardMarginLP, HardMarginQP
from svmcompare.datasets import make_linear_pairs, make_norm_pairs
from svmcompare.exceptions import NotSeparableError

from .reference.dense import flipped_from_definition, solve_qp


def separable_pairs(n=300, seed=0, scales=(1.0, 1.0), gap=0.2):
    return make_linear_pairs(n, (2.0, -1.0), scales, gap, random_state=seed)


def lp_objective(w, D, y):
    """min over the constraints of (7) of their right-hand sides: the margin of w."""
    r = D @ w
    eq = y == 0
    return min(np.min(1 - np.abs(r[eq])), np.min(-1 + y[~eq] * r[~eq]))


def lemma1_violation(mu, w, D, y):
    """How much (mu, w) violates the constraints of (7) (<= 0 when feasible)."""
    return mu - lp_objective(w, D, y)


def test_lp_is_optimal_against_a_grid_search():
    X, y = separable_pairs(120, seed=1)
    D = X[:, 1] - X[:, 0]
    lp = HardMarginLP().fit(X, y)
    assert lp.is_separable_
    assert lp_objective(lp.coef_, D, y) == pytest.approx(lp.margin_, abs=1e-9)
    grid = np.linspace(-0.3, 0.3, 61)
    best = max(lp_objective(lp.coef_ + np.array([a, b]), D, y) for a in grid for b in grid)
    assert best <= lp.margin_ + 1e-9


def test_qp_matches_a_generic_solver_and_lemma1_holds():
    X, y = separable_pairs(80, seed=2)
    qp = HardMarginQP(standardize=False).fit(X, y)
    Xt, Xtp, yt = flipped_from_definition(X[:, 0], X[:, 1], y)
    Dt = Xtp - Xt
    # v = (u, beta): min u^T u subject to y~_t (beta + u^T d~_t) >= 1, eq. (9).
    G = -np.column_stack([yt[:, None] * Dt, yt])
    v = solve_qp(np.diag([2.0, 2.0, 0.0]), np.zeros(3), A_ineq=G, b_ineq=-np.ones(len(yt)))
    np.testing.assert_allclose(qp.u_, v[:2], rtol=1e-5, atol=1e-7)
    assert qp.intercept_ == pytest.approx(v[2], rel=1e-5)
    # Lemma 1: (mu, w) = (-1/beta, -u/beta) is feasible for the LP (7).
    assert qp.margin_ == pytest.approx(-1 / qp.intercept_)
    np.testing.assert_allclose(qp.coef_, -qp.u_ / qp.intercept_)
    assert lemma1_violation(qp.margin_, qp.coef_, X[:, 1] - X[:, 0], y) <= 1e-6


@pytest.mark.parametrize("seed", range(4))
def test_lemma1_on_standardized_and_raw_inputs(seed):
    X, y = separable_pairs(200, seed=seed, scales=(1.0, 20.0))
    D = X[:, 1] - X[:, 0]
    lp = HardMarginLP().fit(X, y)
    assert HardMarginLP(standardize=False).fit(X, y).margin_ == pytest.approx(lp.margin_)
    for standardize in (True, False):
        qp = HardMarginQP(standardize=standardize).fit(X, y)
        assert lemma1_violation(qp.margin_, qp.coef_, D, y) <= 1e-6
        assert 0 < qp.margin_ <= lp.margin_ + 1e-7  # the LP's margin is the largest


@pytest.mark.parametrize("seed", [1, 2])
def test_qp_margin_depends_on_scaling_the_lp_does_not(seed):
    """Figure 2: on raw features of very different scales the QP's margin is far
    below the LP's; standardizing brings it back close."""
    X, y = separable_pairs(20, seed=seed, scales=(1.0, 0.02), gap=0.4)
    lp = HardMarginLP().fit(X, y).margin_
    scaled = HardMarginQP(standardize=True).fit(X, y).margin_
    raw = HardMarginQP(standardize=False).fit(X, y).margin_
    assert raw < 0.3 * lp
    assert lp - scaled < 0.5 * (lp - raw)


def test_separability_flag_and_errors():
    X, y = separable_pairs(150, seed=3)
    assert HardMarginLP().fit(X, y).is_separable_
    Xn, yn = make_norm_pairs(150, "l1", random_state=0)  # quadratic truth + noise
    with pytest.warns(UserWarning, match="not linearly separable"):
        lp = HardMarginLP().fit(Xn, yn)
    assert not lp.is_separable_ and lp.margin_ < 0
    assert lp.predict(Xn).shape == (150,)
    with pytest.raises(NotSeparableError, match="SVMCompare"):
        HardMarginQP().fit(Xn, yn)
    # A tiny coefficient bound alone keeps separable pairs' margin at 0: said
    # so (the warning called them inseparable: an attack, stop 70).
    with pytest.warns(UserWarning, match=r"not linearly separable within max_coef.*larger"):
        assert not HardMarginLP(max_coef=1e-9).fit(X, y).is_separable_


def test_lp_without_equality_pairs_is_unbounded_unless_bounded():
    X, y = separable_pairs(150, seed=4)
    X, y = X[y != 0], y[y != 0]
    with pytest.raises(ValueError, match="unbounded.*max_coef"):
        HardMarginLP().fit(X, y)
    lp = HardMarginLP(max_coef=10.0).fit(X, y)
    assert lp.is_separable_ and np.all(lp.predict(X) == y)
    with pytest.raises(ValueError, match="equality pairs"):
        HardMarginQP().fit(X, y)
    with pytest.raises(ValueError, match="max_coef"):
        HardMarginLP(max_coef=-1.0).fit(X, y)


def test_predictions_use_c1():
    X, y = separable_pairs(150, seed=5)
    for model in (HardMarginLP(), HardMarginQP()):
        model.fit(X, y)
        assert np.all(model.predict(X) == y)  # separable: every training pair right
        diff = model.decision_function(X)
        np.testing.assert_allclose(diff, model.rank(X[:, 1]) - model.rank(X[:, 0]))
        assert model.get_params()["standardize"] is True


def test_lp_warns_on_non_separable_pairs_as_the_qp_raises():
    """Review r13: on pairs no linear r(x) orders, the LP returned w = 0 (a tie
    predicted for every pair, margin -1) without a word, while HardMarginQP
    raised NotSeparableError.  The LP's documented contract (mu free: it always
    has a solution, is_separable_ says whether it is a hard margin) stays; it
    now warns, naming is_separable_ and what w = 0 means."""
    import warnings

    X, y = make_norm_pairs(200, norm="l1", random_state=0)
    with pytest.warns(UserWarning, match=r"margin is -1 <= 0 \(is_separable_ = False\)\. "
                                         "Its optimal w is 0: every pair is predicted a tie"):
        lp = HardMarginLP().fit(X, y)
    assert not lp.is_separable_ and lp.margin_ == pytest.approx(-1.0)
    assert set(lp.predict(X)) == {0}
    with pytest.raises(NotSeparableError):
        HardMarginQP().fit(X, y)
    # A negative margin with w != 0 warns too, without the w = 0 sentence.
    Xs, ys = separable_pairs(150, seed=3)
    D = Xs[:, 1] - Xs[:, 0]
    far = np.flatnonzero(np.abs(D @ np.array([2.0, -1.0])) > 3)[:1]
    ys = ys.copy()
    ys[far] = 0  # a pair far apart called a tie: no w keeps it within the tie band
    with pytest.warns(UserWarning, match="No linear r") as caught:
        lp = HardMarginLP().fit(Xs, ys)
    assert "optimal w is 0" not in str(caught[0].message) and np.any(lp.coef_ != 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert HardMarginLP().fit(*separable_pairs(150, seed=3)).is_separable_


def test_bad_settings_are_named():
    # An attack (stop 70): a text max_coef or tol met numpy's isfinite.
    X, y = separable_pairs(40, seed=1)
    with pytest.raises(TypeError, match="max_coef must be a positive number"):
        HardMarginLP(max_coef="x").fit(X, y)
    with pytest.raises(ValueError, match="max_coef must be positive and finite"):
        HardMarginLP(max_coef=0.0).fit(X, y)
    with pytest.raises(TypeError, match="tol must be a positive number"):
        HardMarginQP(tol="x").fit(X, y)
    with pytest.raises(ValueError, match="tol must be positive and finite"):
        HardMarginQP(tol=float("nan")).fit(X, y)


def test_a_tie_of_two_equal_items_leaves_no_numpy_warning():
    # An attack (stop 70): C = inf (the hard margin) times the zero row of Q
    # of a pair (x, x) leaked NumPy's "invalid value encountered in multiply".
    import warnings

    rng = np.random.default_rng(0)
    A = rng.normal(size=(40, 2))
    B = A + 2.0 * rng.normal(size=(40, 2))
    d = (B - A).sum(1)
    y = np.r_[np.where(d > 1, 1, np.where(d < -1, -1, 0)), 0]
    X = np.concatenate([np.stack([A, B], 1), np.stack([A[:1], A[:1]], 1)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = HardMarginQP().fit(X, y)
    assert model.predict(X[-1:])[0] == 0
