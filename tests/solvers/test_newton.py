"""Newton steps on the free variables between SMO steps (solvers/_newton.py)."""

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from svmcompare._problem import flip_compare, flip_rank
from svmcompare.kernels import resolve_kernel
from svmcompare.solvers import solve_dual
from svmcompare.solvers._newton import free_set_newton

from ..reference.dense import dual_objective, kkt_violation, solve_dual_reference
from .test_solver import _random_pairs


def _pairs(seed, n=120):
    Xi, Xip, y = _random_pairs(seed, n=n, p=2)
    return np.stack([Xi, Xip], 1), y


def _dense_q(problem, kernel):
    """Q = y y^T * K~ (eq. 18) with K~ = M^T K M + the context block, by definition."""
    K = kernel.block(problem.items, problem.items)
    a, b = problem.a, problem.b
    Kt = K[np.ix_(b, b)] - K[np.ix_(b, a)] - K[np.ix_(a, b)] + K[np.ix_(a, a)]
    Kt = Kt + problem.context @ problem.context.T
    return Kt * np.outer(problem.y, problem.y)


def _problems():
    X, y = _pairs(0)
    rng = np.random.default_rng(1)
    context = rng.choice([-1.0, 0.0, 1.0], size=(y.size, 1))
    weight = rng.uniform(0.5, 2.0, size=y.size)
    return {
        "compare": (flip_compare(X, y, 300.0), True),
        "compare, class weights, context, pair weights": (
            flip_compare(X, y, 300.0, class_weight="balanced", context=context,
                         sample_weight=weight), True),
        # Without its equal pairs the rank problem needs more pairs to be slow.
        "rank (no bias)": (flip_rank(*_pairs(0, n=400), 300.0), False),
    }


@pytest.mark.parametrize("name", list(_problems()))
def test_newton_steps_reach_the_generic_qp_optimum_in_fewer_steps(name):
    problem, bias = _problems()[name]
    kernel = resolve_kernel("rbf", 1.0)
    with_newton = solve_dual(problem, kernel, bias=bias, tol=1e-6)
    smo_only = solve_dual(problem, kernel, bias=bias, tol=1e-6, newton=False)
    assert with_newton.n_newton > 0 and smo_only.n_newton == 0
    assert with_newton.n_iter < smo_only.n_iter

    Q = _dense_q(problem, kernel)
    reference = solve_dual_reference(Q, problem.y, problem.C, bias=bias)
    assert with_newton.converged
    assert with_newton.objective == pytest.approx(dual_objective(with_newton.alpha, Q),
                                                  rel=1e-9)
    assert with_newton.objective == pytest.approx(dual_objective(reference, Q), rel=1e-6)
    assert with_newton.objective == pytest.approx(smo_only.objective, rel=1e-7)
    assert kkt_violation(with_newton.alpha, Q, problem.y, problem.C, with_newton.bias) < 1e-5
    np.testing.assert_allclose(with_newton.gradient, Q @ with_newton.alpha - 1.0,
                               rtol=1e-9, atol=1e-9)
    assert np.all((with_newton.alpha >= 0.0) & (with_newton.alpha <= problem.C))
    if bias:
        assert abs(problem.y @ with_newton.alpha) < 1e-9 * problem.C.sum()


@pytest.mark.parametrize("bias", [True, False])
def test_a_newton_step_only_descends_and_stays_feasible(bias):
    X, y = _pairs(2, n=60)
    problem = (flip_compare if bias else flip_rank)(X, y, 50.0)
    kernel = resolve_kernel("rbf", 1.0)
    Q = _dense_q(problem, kernel)
    rows = (problem.a, problem.b, problem.y, problem.context)

    def item_kernel(index):
        return kernel.block(problem.items[index], problem.items[index])

    # Feasible starting points: early SMO iterates.
    for steps in (20, 60, 200):
        with pytest.warns(ConvergenceWarning):  # stopped early on purpose
            start = solve_dual(problem, kernel, bias=bias, max_iter=steps, newton=False,
                               tol=1e-12)
        alpha = start.alpha.copy()
        before = dual_objective(alpha, Q)
        decrease = free_set_newton(rows, item_kernel, alpha, Q @ alpha - 1.0, problem.C,
                                   bias, max_free=1000)
        after = dual_objective(alpha, Q)
        assert decrease >= 0.0
        assert after == pytest.approx(before - decrease, rel=1e-9, abs=1e-9)
        assert np.all((alpha >= 0.0) & (alpha <= problem.C))
        if bias:
            assert problem.y @ alpha == pytest.approx(problem.y @ start.alpha, abs=1e-9)


def test_on_the_optimal_face_one_call_lands_on_the_optimum():
    X, y = _pairs(3, n=60)
    problem = flip_compare(X, y, 50.0)
    kernel = resolve_kernel("rbf", 1.0)
    Q = _dense_q(problem, kernel)
    best = solve_dual(problem, kernel, tol=1e-10, newton=False)
    free = np.flatnonzero((best.alpha > 0) & (best.alpha < problem.C))
    assert free.size > 5
    # Move the free variables off the optimum along y^T d = 0, staying inside.
    rng = np.random.default_rng(0)
    d = rng.normal(size=free.size)
    d -= (problem.y[free] @ d) / free.size * problem.y[free]
    room = np.minimum(best.alpha[free], problem.C[free] - best.alpha[free]).min()
    alpha = best.alpha.copy()
    alpha[free] += 0.5 * room * d / np.abs(d).max()
    rows = (problem.a, problem.b, problem.y, problem.context)
    free_set_newton(rows, lambda i: kernel.block(problem.items[i], problem.items[i]), alpha,
                    Q @ alpha - 1.0, problem.C, True, max_free=1000)
    assert dual_objective(alpha, Q) == pytest.approx(best.objective, rel=1e-12)
    np.testing.assert_allclose(alpha, best.alpha, atol=1e-6 * problem.C.max())
    # Past max_free nothing moves.
    moved = best.alpha.copy()
    moved[free] += 0.5 * room * d / np.abs(d).max()
    kept = moved.copy()
    assert free_set_newton(rows, lambda i: kernel.block(problem.items[i], problem.items[i]),
                           moved, Q @ moved - 1.0, problem.C, True, max_free=free.size - 1) == 0
    np.testing.assert_array_equal(moved, kept)


def test_a_newton_step_waits_until_the_smo_work_since_the_last_pays_for_it():
    from svmcompare.solvers.smo import _newton_pays

    C = np.full(6, 2.0)
    alpha = np.array([0.0, 1.0, 1.5, 2.0, 0.5, 0.0])  # three free variables
    assert _newton_pays(alpha, C, work=27 / 4.0)
    assert not _newton_pays(alpha, C, work=26 / 4.0)
    assert _newton_pays(np.zeros(6), C, work=0)
