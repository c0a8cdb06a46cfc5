"""Leave-one-pair-out estimates of the calibration scores (solvers/loo.py),
checked against refits without each pair."""

import numpy as np
import pytest

from svmcompare import SVMCompare, SVMRank2
from svmcompare._base import fit_solution
from svmcompare._problem import BinaryProblem, flip_compare, flip_rank2
from svmcompare.calibration.held_out import loo_gaps, training_gaps
from svmcompare.kernels import resolve_kernel
from svmcompare.solvers import solve_dual
from svmcompare.solvers.loo import kernel_rows, loo_changes

from .test_solver import _random_pairs

KERNEL = resolve_kernel("rbf", 0.5)
TOL = 1e-10


def _pairs(seed, n):
    Xi, Xip, y = _random_pairs(seed, n=n, p=2)
    return np.stack([Xi, Xip], 1), y


def _problems(seed=3, n=50):
    """Three binary problems of ``n`` pairs: compare plain; with class weights,
    a context and pair weights; rank2 (no bias).  Values: (problem, bias, n)."""
    X, y = _pairs(seed, n)
    rng = np.random.default_rng(seed + 1)
    context = rng.choice([-1.0, 0.0, 1.0], size=(y.size, 1))
    weight = rng.uniform(0.5, 2.0, size=y.size)
    return {
        "compare": (flip_compare(X, y, 3.0), True, y.size),
        "compare, class weights, context, pair weights": (
            flip_compare(X, y, 3.0, class_weight="balanced", context=context,
                         sample_weight=weight), True, y.size),
        "rank2 (no bias)": (flip_rank2(X, y, 3.0), False, y.size),
    }


def _fitted_values(problem, alpha, rows):
    """u^T (Phi(b_r) - Phi(a_r)) of ``rows`` (no bias, no context term), from a
    K~ built by definition."""
    K = KERNEL.block(problem.items, problem.items)
    a, b = problem.a, problem.b
    Kt = K[np.ix_(b[rows], b)] - K[np.ix_(b[rows], a)] - K[np.ix_(a[rows], b)] \
        + K[np.ix_(a[rows], a)]
    return Kt @ (problem.y * alpha)


def _status(alpha, C):
    """0 at the lower bound, 2 at the upper, 1 free (to the refits' tolerance)."""
    return np.where(alpha <= 1e-7 * C, 0, np.where(alpha >= C * (1 - 1e-7), 2, 1))


@pytest.mark.parametrize("name", list(_problems()))
def test_estimates_equal_refits_where_no_other_row_changes_its_bound(name):
    # With a bias, removing a pair moves some other row off its bound in most
    # refits: several data sets give enough refits where none moves.
    checked, errors_estimate, errors_training = 0, [], []
    for seed in (3, 4, 6, 7):
        problem, bias, n = _problems(seed)[name]
        full = solve_dual(problem, KERNEL, bias=bias, tol=TOL)
        pair = problem.pair
        block, diagonal = kernel_rows(problem, KERNEL)
        rows, change, n_free = loo_changes(block, diagonal, problem.y, problem.C, full.alpha,
                                           pair, problem.context, bias)
        assert n_free > 0
        # Every pair with a support vector has exactly one estimate.
        assert sorted(pair[rows]) == sorted(set(pair[full.alpha > 0]))
        before = _fitted_values(problem, full.alpha, rows)
        status = _status(full.alpha, problem.C)
        for row, fitted, delta in zip(rows, before, change, strict=True):
            keep = np.flatnonzero(pair != pair[row])
            sub = BinaryProblem(problem.items, problem.a[keep], problem.b[keep],
                                problem.y[keep], problem.C[keep], problem.context[keep])
            refit = solve_dual(sub, KERNEL, bias=bias, tol=TOL)
            alpha = np.zeros(problem.m)
            alpha[keep] = refit.alpha
            after = _fitted_values(problem, alpha, np.array([row]))[0]
            errors_estimate.append(abs(fitted + delta - after))
            errors_training.append(abs(fitted - after))
            if np.array_equal(_status(refit.alpha, problem.C[keep]), status[keep]):
                # Opper and Winther's assumption holds: the estimate is the refit.
                assert fitted + delta == pytest.approx(after, abs=1e-6 * (1 + abs(after)))
                checked += 1
    assert checked >= 5
    # Where it does not hold the estimate is still much closer than the fitted
    # value (measured: 3-20x closer).
    assert np.mean(errors_estimate) < 0.5 * np.mean(errors_training)


def test_pairs_without_support_vectors_and_no_free_rows():
    problem, bias, n = _problems()["compare"]
    full = solve_dual(problem, KERNEL, bias=bias, tol=TOL)
    block, diagonal = kernel_rows(problem, KERNEL)
    # With every variable bounded (none free) only each pair's own terms go.
    alpha = np.where(full.alpha > 0, problem.C, 0.0)
    rows, change, n_free = loo_changes(block, diagonal, problem.y, problem.C, alpha,
                                       problem.pair, problem.context, bias)
    assert n_free == 0
    own = np.array([_fitted_values(problem, np.where(problem.pair == problem.pair[r],
                                                     alpha, 0.0), np.array([r]))[0]
                    for r in rows])
    np.testing.assert_allclose(change, -own, rtol=1e-10, atol=1e-12)


def test_kernel_rows_equal_ktilde_by_definition():
    problem, _, _ = _problems()["compare, class weights, context, pair weights"]
    block, diagonal = kernel_rows(problem, KERNEL)
    K = KERNEL.block(problem.items, problem.items)
    a, b = problem.a, problem.b
    Kt = K[np.ix_(b, b)] - K[np.ix_(b, a)] - K[np.ix_(a, b)] + K[np.ix_(a, a)] \
        + problem.context @ problem.context.T
    R, S = np.array([3, 0, 7, 7]), np.arange(0, problem.m, 3)
    np.testing.assert_allclose(block(R, S), Kt[np.ix_(R, S)], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(diagonal(R), np.diag(Kt)[R], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("estimator", [SVMCompare, SVMRank2])
def test_probability_fits_use_the_estimate_and_match_five_folds(estimator):
    X, y = _pairs(5, 400)
    Xt, yt = _pairs(6, 2000)
    loo = estimator(C=3.0, gamma=0.5, probability=True, calibration="loo",
                    random_state=0).fit(X, y)
    folds = estimator(C=3.0, gamma=0.5, probability=True, random_state=0).fit(X, y)
    assert loo.calibration_ == "leave-one-out" and folds.calibration_ == "5-fold"
    # Same ranking function; the links are fitted on different held-out gaps.
    np.testing.assert_allclose(loo.decision_function(Xt), folds.decision_function(Xt))
    index = np.searchsorted([-1, 0, 1], yt)
    loss = [-np.mean(np.log(m.predict_proba(Xt)[np.arange(yt.size), index]))
            for m in (loo, folds)]
    assert loss[0] <= loss[1] + 0.01
    # Calibrated on held-out gaps, not on the training fit's own (closer) gaps.
    prepared, result, _ = fit_solution(loo, X, y)
    training = training_gaps(loo, prepared, result, 1.0 if estimator is SVMRank2
                                  else 1.0 / -result.bias)
    held_out = loo_gaps(loo, prepared, result)
    sign = np.sign(y)
    assert np.mean(sign * held_out) < np.mean(sign * training)


def test_duplicate_pairs_still_give_pair_dependent_probabilities():
    # Q_FF is singular (the ridge picks one of the solutions, which all move u
    # alike); the dual solution is not unique, so there is no refit to compare.
    X, y = _pairs(7, 150)
    X, y = np.concatenate([X, X]), np.concatenate([y, y])  # Q_FF singular
    model = SVMCompare(C=3.0, gamma=0.5, probability=True, calibration="loo",
                       random_state=0).fit(X, y)
    assert model.calibration_ == "leave-one-out"
    proba = model.predict_proba(X)
    assert np.all(np.isfinite(proba)) and proba[:, 1].std() > 0.05


@pytest.mark.parametrize("kernel, expected, default", [
    ("linear", "5-fold", "in-sample"),  # 150 pairs per weight: "auto" takes the fit's own gaps
    ("rbf", "leave-one-out", "5-fold")])
def test_only_the_exact_solver_takes_the_estimate(kernel, expected, default):
    X, y = _pairs(8, 300)
    model = SVMCompare(kernel=kernel, probability=True, calibration="loo",
                       random_state=0).fit(X, y)
    assert model.calibration_ == expected
    assert SVMCompare(kernel=kernel, probability=True).fit(X, y).calibration_ == default
    assert SVMCompare(kernel=kernel, probability=True, calibration="cv").fit(
        X, y).calibration_ == "5-fold"


@pytest.mark.parametrize("value", ["folds", None, 5])
def test_bad_calibration_is_refused(value):
    X, y = _pairs(8, 60)
    with pytest.raises(ValueError, match="calibration must be one of"):
        SVMCompare(probability=True, calibration=value).fit(X, y)


def test_no_estimate_past_max_free():
    problem, bias, n = _problems()["compare"]
    full = solve_dual(problem, KERNEL, bias=bias, tol=TOL)
    block, diagonal = kernel_rows(problem, KERNEL)
    args = (block, diagonal, problem.y, problem.C, full.alpha, problem.pair,
            problem.context, bias)
    n_free = loo_changes(*args)[2]
    assert loo_changes(*args, max_free=n_free - 1) is None
    assert loo_changes(*args, max_free=n_free)[2] == n_free
