"""The calibration folds' sub-problems of the full dual (solvers/folds.py).

Checked against cold solves of the same rows and K~ built by definition; the
estimator's folds that use them are tested in tests/calibration/test_held_out.py."""


import numpy as np
import pytest
from svmcompare.solvers._smo_core import q_product

from svmcompare._problem import flip_compare
from svmcompare.kernels import resolve_kernel
from svmcompare.solvers import solve_dual
from svmcompare.solvers._kernel_rows import kernel_pack
from svmcompare.solvers.folds import (
    refit_without,
    start_without,
    subproblem,
)
from svmcompare.solvers.loo import kernel_rows
from svmcompare.solvers.smo import RowCache

from .test_loo import _pairs
from .test_loo import _problems as problems_of

KERNEL = resolve_kernel("rbf", 0.5)
TOL = 1e-9


def _problems(seed=3):
    return problems_of(seed, n=120)


def _split(problem, n, seed=0):
    """Rows kept and the held-out pairs' first rows for one random fifth of the pairs."""
    held = np.zeros(n, dtype=bool)
    held[np.random.default_rng(seed).choice(n, n // 5, replace=False)] = True
    pair = problem.pair
    keep = np.flatnonzero(~held[pair])
    _, first = np.unique(pair, return_index=True)
    return keep, first[held[np.sort(np.unique(pair))]]


@pytest.mark.parametrize("name", list(_problems()))
def test_refit_without_solves_the_rows_kept_and_scores_the_rows_left_out(name):
    problem, bias, n = _problems()[name]
    full = solve_dual(problem, KERNEL, bias=bias, tol=TOL)
    keep, held_out = _split(problem, n)
    warm, fitted = refit_without(problem, KERNEL, full.alpha, full.gradient, keep, held_out,
                                 bias=bias, tol=TOL)
    cold = solve_dual(subproblem(problem, keep), KERNEL, bias=bias, tol=TOL)
    assert warm.converged
    assert warm.objective == pytest.approx(cold.objective, rel=1e-8)
    # The held-out rows' fitted values by K~ of their definition (eq. 18).
    block, _ = kernel_rows(problem, KERNEL)
    expected = block(held_out, keep) @ (problem.y[keep] * cold.alpha)
    np.testing.assert_allclose(fitted, expected, atol=1e-6 * np.abs(expected).max())
    # And the refit's own gradient is Q alpha - 1 on its rows.
    Q = block(keep, keep) * np.outer(problem.y[keep], problem.y[keep])
    np.testing.assert_allclose(warm.gradient, Q @ warm.alpha - 1.0, atol=1e-9)


def test_refit_without_takes_fewer_steps_than_a_cold_start():
    problem, bias, n = _problems(5)["compare, class weights, context, pair weights"]
    full = solve_dual(problem, KERNEL, bias=bias, tol=1e-3)
    keep, held_out = _split(problem, n, seed=1)
    warm, _ = refit_without(problem, KERNEL, full.alpha, full.gradient, keep, held_out,
                            bias=bias, tol=1e-3)
    cold = solve_dual(subproblem(problem, keep), KERNEL, bias=bias, tol=1e-3)
    assert warm.n_iter < cold.n_iter


def test_refit_without_with_a_callable_kernel_and_a_given_gram():
    problem, bias, n = _problems(4)["compare"]
    callable_kernel = resolve_kernel(lambda A, B: KERNEL.block(A, B))
    full = solve_dual(problem, KERNEL, bias=bias, tol=TOL)
    keep, held_out = _split(problem, n)
    reference = refit_without(problem, KERNEL, full.alpha, full.gradient, keep, held_out,
                              bias=bias, tol=TOL)
    gram = KERNEL.block(problem.items, problem.items)
    for kernel, given in ((callable_kernel, None), (KERNEL, gram)):
        result, fitted = refit_without(problem, kernel, full.alpha, full.gradient, keep,
                                       held_out, bias=bias, tol=TOL, gram=given)
        assert result.objective == pytest.approx(reference[0].objective, rel=1e-9)
        np.testing.assert_allclose(fitted, reference[1], rtol=1e-7, atol=1e-9)


def test_q_product_is_Q_times_a_signed_vector():
    problem, _, _ = _problems(6)["compare, class weights, context, pair weights"]
    rng = np.random.default_rng(0)
    delta = np.where(rng.random(problem.m) < 0.3, rng.normal(size=problem.m), 0.0)
    rows = np.sort(rng.choice(problem.m, 40, replace=False))
    pairs = (problem.a, problem.b, problem.y, problem.context)
    got = q_product(kernel_pack(problem.items, KERNEL), pairs, delta, rows,
                    RowCache.empty(problem.m).arrays())
    block, _ = kernel_rows(problem, KERNEL)
    everything = np.arange(problem.m)
    expected = problem.y[rows] * (block(rows, everything) @ (problem.y * delta))
    np.testing.assert_allclose(got, expected, atol=1e-12 * np.abs(expected).max())


def test_q_product_reads_the_whole_rows_a_solve_cached():
    problem, bias, _ = _problems(6)["compare, class weights, context, pair weights"]
    full = solve_dual(problem, KERNEL, bias=bias, tol=TOL, keep_rows=True)
    cached = full.rows
    whole = np.flatnonzero((cached.slot_of >= 0) & cached.full[np.maximum(cached.slot_of, 0)])
    assert whole.size > 10  # the test reads rows from the cache, not only items
    # Rows of Q by definition where the cache says they are whole.
    block, _ = kernel_rows(problem, KERNEL)
    everything = np.arange(problem.m)
    Q = block(whole, everything) * np.outer(problem.y[whole], problem.y)
    np.testing.assert_allclose(cached.data[cached.slot_of[whole]], Q, atol=1e-12)
    rng = np.random.default_rng(1)
    delta = np.where(rng.random(problem.m) < 0.3, rng.normal(size=problem.m), 0.0)
    rows = np.arange(problem.m)
    pairs = (problem.a, problem.b, problem.y, problem.context)
    kp = kernel_pack(problem.items, KERNEL)
    with_rows = q_product(kp, pairs, delta, rows, cached.arrays())
    without = q_product(kp, pairs, delta, rows, RowCache.empty(problem.m).arrays())
    expected = problem.y * (block(everything, everything) @ (problem.y * delta))
    np.testing.assert_allclose(with_rows, expected, atol=1e-12 * np.abs(expected).max())
    np.testing.assert_allclose(with_rows, without, atol=1e-12 * np.abs(expected).max())


def test_start_without_restores_the_balance_lowering_whole_variables_first():
    problem, bias, n = _problems(7)["compare, class weights, context, pair weights"]
    full = solve_dual(problem, KERNEL, bias=True, tol=1e-6)
    keep, _ = _split(problem, n, seed=2)
    start = start_without(full.alpha, full.gradient, problem.y, keep)
    y, C, old, G = problem.y[keep], problem.C[keep], full.alpha[keep], full.gradient[keep]
    assert np.all(start >= 0) and np.all(start <= C)
    assert abs(y @ start) <= 1e-12 * C.sum()
    changed = start != old
    assert changed.any()
    # Only the heavy side moved, downwards, and at most one variable not to 0.
    heavy = np.sign(y @ old)
    assert np.all(y[changed] == heavy) and np.all(start[changed] < old[changed])
    assert np.count_nonzero(start[changed] > 0) <= 1
    # Largest gradients first: no untouched support row of that side has a larger one.
    untouched = (~changed) & (y == heavy) & (old > 0)
    assert G[changed].min() >= G[untouched].max()
    # Without a bias there is nothing to restore.
    np.testing.assert_array_equal(
        start_without(full.alpha, full.gradient, problem.y, keep, bias=False), old)


def test_warm_started_shrinking_rebuilds_the_gradient_from_the_start():
    # A fold ~1,000 steps long shrinks from its first step: the rows set aside
    # get their gradient back from the start's gradient and the moves since.
    X, y = _pairs(8, 600)
    problem = flip_compare(X, y, 10.0, class_weight="balanced")
    full = solve_dual(problem, KERNEL, tol=1e-3)
    keep, held_out = _split(problem, y.size, seed=3)
    warm, _ = refit_without(problem, KERNEL, full.alpha, full.gradient, keep, held_out,
                            tol=1e-3)
    assert warm.max_shrunk > 0
    block, _ = kernel_rows(problem, KERNEL)
    Q = block(keep, keep) * np.outer(problem.y[keep], problem.y[keep])
    np.testing.assert_allclose(warm.gradient, Q @ warm.alpha - 1.0, atol=1e-8)
    cold = solve_dual(subproblem(problem, keep), KERNEL, tol=1e-3)
    assert warm.objective == pytest.approx(cold.objective, rel=1e-4)
