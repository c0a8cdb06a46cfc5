"""The SMO solver against an independent generic QP solver on small problems."""

import numpy as np
import pytest

from svmcompare._problem import BinaryProblem, flip_compare, flip_rank
from svmcompare.kernels import resolve_kernel
from svmcompare.solvers import solve_dual, solver_threads, threads

from ..reference.dense import (
    dual_objective,
    flipped_from_definition,
    kkt_violation,
    ktilde_from_definition,
    rbf,
    solve_dual_reference,
)


def _random_pairs(seed, n=30, p=3):
    rng = np.random.default_rng(seed)
    Xi = rng.normal(size=(n, p))
    Xip = Xi + rng.normal(scale=0.7, size=(n, p))
    d = (Xip**2).sum(1) - (Xi**2).sum(1) + rng.normal(scale=0.5, size=n)
    y = np.where(d > 1, 1, np.where(d < -1, -1, 0))
    return Xi, Xip, y


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_compare_dual_matches_generic_qp(seed, C):
    Xi, Xip, y = _random_pairs(seed)
    gamma = 0.5
    problem = flip_compare(np.stack([Xi, Xip], 1), y, C)
    ours = solve_dual(problem, resolve_kernel("rbf", gamma), bias=True, tol=1e-6)

    Xt, Xtp, yt = flipped_from_definition(Xi, Xip, y)
    Q = ktilde_from_definition(Xt, Xtp, rbf(gamma)) * np.outer(yt, yt)
    ref = solve_dual_reference(Q, yt, C, bias=True)

    assert ours.converged
    assert np.isclose(dual_objective(ours.alpha, Q), ours.objective, rtol=1e-9)
    assert ours.objective == pytest.approx(dual_objective(ref, Q), rel=1e-6)
    assert abs(yt @ ours.alpha) < 1e-9 * C * len(yt)
    assert ours.alpha.min() >= 0 and ours.alpha.max() <= C
    assert kkt_violation(ours.alpha, Q, yt, C, ours.bias) < 1e-6


@pytest.mark.parametrize("seed", range(3))
def test_default_tolerance_satisfies_kkt_to_tol(seed):
    Xi, Xip, y = _random_pairs(seed, n=60)
    problem = flip_compare(np.stack([Xi, Xip], 1), y, 5.0)
    ours = solve_dual(problem, resolve_kernel("rbf", 1.0), tol=1e-3)
    Xt, Xtp, yt = flipped_from_definition(Xi, Xip, y)
    Q = ktilde_from_definition(Xt, Xtp, rbf(1.0)) * np.outer(yt, yt)
    assert ours.kkt_violation < 1e-3
    assert kkt_violation(ours.alpha, Q, yt, 5.0, ours.bias) < 1e-3


@pytest.mark.parametrize("seed", range(4))
def test_rank_dual_without_bias_matches_generic_qp(seed):
    Xi, Xip, y = _random_pairs(seed)
    C = 2.0
    problem = flip_rank(np.stack([Xi, Xip], 1), y, C)
    ours = solve_dual(problem, resolve_kernel("rbf", 0.3), bias=False, tol=1e-7)

    ineq = y != 0
    worse = np.where((y == 1)[:, None], Xi, Xip)[ineq]
    better = np.where((y == 1)[:, None], Xip, Xi)[ineq]
    Q = ktilde_from_definition(worse, better, rbf(0.3))
    ref = solve_dual_reference(Q, np.ones(len(Q)), C, bias=False)
    assert ours.bias == 0.0
    assert ours.objective == pytest.approx(dual_objective(ref, Q), rel=1e-6)
    assert kkt_violation(ours.alpha, Q, np.ones(len(Q)), C, 0.0) < 1e-6


def test_per_row_costs_are_respected():
    Xi, Xip, y = _random_pairs(7)
    problem = flip_compare(np.stack([Xi, Xip], 1), y, 1.0, class_weight={1: 3.0, -1: 0.5})
    assert set(np.unique(problem.C)) == {3.0, 0.5}
    ours = solve_dual(problem, resolve_kernel("rbf", 1.0), tol=1e-6)
    Xt, Xtp, yt = flipped_from_definition(Xi, Xip, y)
    Q = ktilde_from_definition(Xt, Xtp, rbf(1.0)) * np.outer(yt, yt)
    ref = solve_dual_reference(Q, yt, problem.C, bias=True)
    assert np.all(ours.alpha <= problem.C + 1e-12)
    assert ours.objective == pytest.approx(dual_objective(ref, Q), rel=1e-6)


@pytest.mark.parametrize(
    "name, params, reference",
    [
        ("linear", {}, lambda A, B: A @ B.T),
        ("poly", {"gamma": 0.5, "degree": 2, "coef0": 1.0}, lambda A, B: (0.5 * A @ B.T + 1) ** 2),
        ("laplacian", {"gamma": 0.7},
         lambda A, B: np.exp(-0.7 * np.sqrt(((A[:, None] - B[None]) ** 2).sum(-1)))),
    ],
)
def test_other_kernels_match_generic_qp(name, params, reference):
    Xi, Xip, y = _random_pairs(11, n=25)
    problem = flip_compare(np.stack([Xi, Xip], 1), y, 1.0)
    ours = solve_dual(problem, resolve_kernel(name, **params), tol=1e-7)
    Xt, Xtp, yt = flipped_from_definition(Xi, Xip, y)
    Q = ktilde_from_definition(Xt, Xtp, reference) * np.outer(yt, yt)
    ref = solve_dual_reference(Q, yt, 1.0)
    assert ours.objective == pytest.approx(dual_objective(ref, Q), rel=1e-6)


def test_callable_kernel_equals_builtin():
    Xi, Xip, y = _random_pairs(3)
    problem = flip_compare(np.stack([Xi, Xip], 1), y, 1.0)
    builtin = solve_dual(problem, resolve_kernel("rbf", 0.5), tol=1e-8)
    custom = solve_dual(problem, resolve_kernel(rbf(0.5)), tol=1e-8)
    assert custom.objective == pytest.approx(builtin.objective, rel=1e-10)
    assert custom.bias == pytest.approx(builtin.bias, abs=1e-6)


def test_tiny_row_cache_gives_the_same_solution():
    Xi, Xip, y = _random_pairs(5, n=80)
    problem = flip_compare(np.stack([Xi, Xip], 1), y, 3.0)
    kernel = resolve_kernel("rbf", 1.0)
    big = solve_dual(problem, kernel, tol=1e-6)
    # 1e-4 MB holds only the minimum of two rows: every other row is recomputed.
    tiny = solve_dual(problem, kernel, tol=1e-6, cache_size=1e-4)
    np.testing.assert_allclose(tiny.alpha, big.alpha, atol=1e-12)
    assert tiny.n_iter == big.n_iter


def test_a_gram_matrix_the_caller_holds_leaves_the_row_cache_its_budget():
    # cache_size bounds what the solver allocates: the Gram matrix it computes
    # for a callable kernel comes out of it, a C path's own (``gram=``) does
    # not.  Counted against it, a path's 512 MB item kernel left two rows of
    # cache and made every SMO step gather its rows from the Gram matrix again.
    Xi, Xip, y = _random_pairs(5, n=80)
    problem = flip_compare(np.stack([Xi, Xip], 1), y, 3.0)
    kernel = resolve_kernel("rbf", 1.0)
    gram = kernel.block(problem.items, problem.items)
    given = solve_dual(problem, kernel, tol=1e-8, cache_size=gram.nbytes / 2**20, gram=gram,
                       keep_rows=True)
    own = solve_dual(problem, resolve_kernel(rbf(1.0)), tol=1e-8,
                     cache_size=gram.nbytes / 2**20, keep_rows=True)
    assert given.rows.data.shape[0] == problem.m  # every row fits next to the caller's matrix
    assert own.rows.data.shape[0] == 2  # nothing left beside its own: the two-row minimum
    # The same optimum either way (the dual's alpha need not be unique).
    assert given.objective == pytest.approx(own.objective, rel=1e-8)


def test_warm_start_at_the_optimum_takes_no_step():
    Xi, Xip, y = _random_pairs(2)
    problem = flip_compare(np.stack([Xi, Xip], 1), y, 1.0)
    kernel = resolve_kernel("rbf", 1.0)
    cold = solve_dual(problem, kernel, tol=1e-5)
    warm = solve_dual(problem, kernel, tol=1e-5, alpha0=cold.alpha)
    assert warm.n_iter == 0
    assert warm.objective == pytest.approx(cold.objective, rel=1e-12)


def test_the_gradient_a_solve_returns_is_q_alpha_minus_one_and_seeds_a_c_path():
    from dataclasses import replace

    from svmcompare._problem import Standardizer

    Xi, Xip, y = _random_pairs(5)
    X = np.stack([Xi, Xip], 1)
    problem = flip_compare(Standardizer.fit(X).transform_pairs(X), y, 1.0)
    kernel = resolve_kernel("rbf", 0.5)
    first = solve_dual(problem, kernel, tol=1e-8)
    # Brute force: Q = diag(y) K~ diag(y) from the item kernel matrix.
    K = kernel.block(problem.items, problem.items)
    a, b = problem.a, problem.b
    Kt = K[np.ix_(b, b)] - K[np.ix_(b, a)] - K[np.ix_(a, b)] + K[np.ix_(a, a)]
    Q = problem.y[:, None] * Kt * problem.y[None, :]
    np.testing.assert_allclose(first.gradient, Q @ first.alpha - 1.0, atol=1e-9)
    # At C = 4 the scaled start's gradient is k (G + 1) - 1: the same solution
    # as when the solver computes it from the support vectors' rows (rounding
    # may order near-tied selections differently: a few steps more or less).
    bigger = replace(problem, C=problem.C * 4.0)
    alpha0 = first.alpha * 4.0
    computed = solve_dual(bigger, kernel, tol=1e-8, alpha0=alpha0)
    given = solve_dual(bigger, kernel, tol=1e-8, alpha0=alpha0,
                       gradient0=(first.gradient + 1.0) * 4.0 - 1.0)
    assert given.converged and computed.n_iter > 0
    assert abs(given.n_iter - computed.n_iter) <= 0.05 * computed.n_iter
    assert given.objective == pytest.approx(computed.objective, rel=1e-12)
    # (alpha need not be unique; the fitted values Q alpha, from the unique u, are.)
    np.testing.assert_allclose(given.gradient, computed.gradient, atol=1e-6)
    # A wrong gradient is taken as given: it must change the result.
    wrong = solve_dual(bigger, kernel, tol=1e-8, alpha0=alpha0,
                       gradient0=first.gradient)
    assert abs(wrong.objective - computed.objective) > 1e-6 * abs(computed.objective)
    with pytest.raises(ValueError, match="needs the alpha0"):
        solve_dual(bigger, kernel, gradient0=first.gradient)
    with pytest.raises(ValueError, match="finite values, one per row"):
        solve_dual(bigger, kernel, alpha0=alpha0, gradient0=first.gradient[:-1])


def test_max_iter_reached_warns():
    from sklearn.exceptions import ConvergenceWarning

    Xi, Xip, y = _random_pairs(4)
    problem = flip_compare(np.stack([Xi, Xip], 1), y, 10.0)
    with pytest.warns(ConvergenceWarning, match="max_iter=3"):
        result = solve_dual(problem, resolve_kernel("rbf", 1.0), max_iter=3)
    assert not result.converged and result.n_iter == 3


def test_duplicate_items_with_zero_length_rows():
    # A pair whose two items are identical has K~_tt = 0; the solver must not divide by it.
    Xi = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [2.0, 2.0]])
    Xip = np.array([[0.0, 0.0], [1.5, 0.0], [0.0, 2.5], [2.0, 2.0]])
    y = np.array([0, 1, 1, 0])
    problem = BinaryProblem(*_items_from(Xi, Xip, y))
    result = solve_dual(problem, resolve_kernel("rbf", 1.0), tol=1e-6)
    assert result.converged and np.all(np.isfinite(result.alpha))


def _items_from(Xi, Xip, y):
    p = flip_compare(np.stack([Xi, Xip], 1), y, 1.0)
    return p.items, p.a, p.b, p.y, p.C


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("C", [10.0, 100.0])
@pytest.mark.parametrize("bias", [True, False])
def test_shrinking_reaches_the_generic_qp_optimum(seed, C, bias):
    # At these C the steps revisit variables, so rows are set aside and
    # their gradients rebuilt from the items before the final check.
    Xi, Xip, y = _random_pairs(seed, n=40)
    flip = flip_compare if bias else flip_rank
    problem = flip(np.stack([Xi, Xip], 1), y, C)
    kernel = resolve_kernel("rbf", 0.5)
    shrunk = solve_dual(problem, kernel, bias=bias, tol=1e-6)
    plain = solve_dual(problem, kernel, bias=bias, tol=1e-6, shrinking=False)
    assert shrunk.max_shrunk > 0 and plain.max_shrunk == 0

    if bias:
        Xt, Xtp, yt = flipped_from_definition(Xi, Xip, y)
        Q = ktilde_from_definition(Xt, Xtp, rbf(0.5)) * np.outer(yt, yt)
    else:
        ineq = y != 0
        worse = np.where((y == 1)[:, None], Xi, Xip)[ineq]
        better = np.where((y == 1)[:, None], Xip, Xi)[ineq]
        Q = ktilde_from_definition(worse, better, rbf(0.5))
        yt = np.ones(len(Q))
    ref = solve_dual_reference(Q, yt, C, bias=bias)
    assert shrunk.converged
    # The reported objective comes from the rebuilt gradient: it must equal the
    # objective recomputed from alpha alone.
    assert shrunk.objective == pytest.approx(dual_objective(shrunk.alpha, Q), rel=1e-9)
    assert shrunk.objective == pytest.approx(dual_objective(ref, Q), rel=1e-6)
    assert shrunk.objective == pytest.approx(plain.objective, rel=1e-7)
    assert kkt_violation(shrunk.alpha, Q, yt, C, shrunk.bias) < 1e-6
    if bias:
        assert shrunk.bias == pytest.approx(plain.bias, abs=1e-4)


@pytest.mark.parametrize("kernel", [resolve_kernel("laplacian", gamma=0.7),
                                    resolve_kernel("poly", gamma=0.5, degree=2, coef0=1.0),
                                    resolve_kernel(rbf(0.5))])
def test_shrinking_with_other_kernels_and_a_callable(kernel):
    # The callable kernel is served from the item Gram matrix, including the
    # rows over a subset of the items.
    Xi, Xip, y = _random_pairs(1, n=60)
    problem = flip_compare(np.stack([Xi, Xip], 1), y, 100.0)
    shrunk = solve_dual(problem, kernel, tol=1e-6)
    plain = solve_dual(problem, kernel, tol=1e-6, shrinking=False)
    assert shrunk.max_shrunk > 0
    assert shrunk.objective == pytest.approx(plain.objective, rel=1e-7)
    np.testing.assert_allclose(shrunk.alpha, plain.alpha, atol=1e-3 * 100.0)


def test_stopping_at_max_iter_while_shrunk_rebuilds_the_gradient():
    Xi, Xip, y = _random_pairs(0, n=60)
    problem = flip_compare(np.stack([Xi, Xip], 1), y, 100.0)
    Xt, Xtp, yt = flipped_from_definition(Xi, Xip, y)
    Q = ktilde_from_definition(Xt, Xtp, rbf(0.5)) * np.outer(yt, yt)
    with pytest.warns(Warning, match="max_iter"):
        result = solve_dual(problem, resolve_kernel("rbf", 0.5), tol=1e-9, max_iter=300)
    assert result.max_shrunk > 0 and not result.converged
    assert result.objective == pytest.approx(dual_objective(result.alpha, Q), rel=1e-9)
    # The maximal violating pair (LIBSVM's gap), from the dense gradient.
    G = Q @ result.alpha - 1.0
    up = ((yt > 0) & (result.alpha < 100.0)) | ((yt < 0) & (result.alpha > 0))
    low = ((yt > 0) & (result.alpha > 0)) | ((yt < 0) & (result.alpha < 100.0))
    gap = np.max(-yt[up] * G[up]) + np.max(yt[low] * G[low])
    assert result.kkt_violation == pytest.approx(gap, rel=1e-9)


def test_fast_exponential_matches_numpy_to_two_ulp():
    from svmcompare.solvers._smo_core import exp_nonpositive

    x = np.concatenate([-np.geomspace(1e-12, 708.3, 200_000), [0.0, -0.0],
                        np.linspace(-700, 0, 10_001), [-708.4, -745.2, -1e300, -np.inf]])
    out = exp_nonpositive(x)
    exact = np.exp(x)
    normal = exact >= np.finfo(float).tiny
    np.testing.assert_array_max_ulp(out[normal], exact[normal], maxulp=2)
    # Below 2^-1022 the kernel value is returned as exactly zero.
    assert np.all(out[~normal] == 0.0)


def _reference_beta_interval(Q, yt, C):
    """The optimal beta interval from an interior-point solution of the dual,
    variables within 1e-7 C of a bound read as at the bound."""
    alpha = solve_dual_reference(Q, yt, C)
    G = Q @ alpha - 1.0
    yG = yt * G
    upper = alpha >= C * (1 - 1e-7)
    lower = alpha <= C * 1e-7
    free = ~(upper | lower)
    if free.any():
        beta = -float(np.median(yG[free]))
        return beta, beta
    high = -np.max(yG[(upper & (yt > 0)) | (lower & (yt < 0))], initial=-np.inf)
    low = -np.min(yG[(upper & (yt < 0)) | (lower & (yt > 0))], initial=np.inf)
    return low, high


def test_class_weights_leave_no_alpha_a_rounding_error_below_its_bound():
    # Issue 19's reproducer: every alpha at a bound, beta optimal anywhere in
    # [-0.997, 0.992]; an alpha at C (1 - 3e-15) read as free fixed beta = 0.992.
    from svmcompare import SVMCompare

    rng = np.random.default_rng(0)
    Xi = rng.normal(size=(40, 2))
    Xip = Xi + rng.normal(size=(40, 2))
    d = (Xip**2).sum(1) - (Xi**2).sum(1) + rng.normal(size=40)
    y = np.where(d > 1, 1, np.where(d < -1, -1, 0))
    X = np.stack([Xi, Xip], 1)
    model = SVMCompare(C=0.001, class_weight="balanced").fit(X, y)
    problem = flip_compare(model.scaler_.transform_pairs(X), y, 0.001, "balanced")
    result = solve_dual(problem, resolve_kernel("rbf", 1.0))
    assert np.all((result.alpha == 0) | (result.alpha == problem.C))
    low, high = result.bias_interval
    assert low < -0.9 and high > 0.9
    assert low <= model.intercept_ < 0


@pytest.mark.parametrize("low, high, expected", [
    (-3.0, 1.0, -1.0),      # midpoint negative: LIBSVM's choice
    (-1.0, 2.0, -0.5),      # midpoint >= 0: the middle of the negative part
    (0.5, 1.0, 0.75),       # no negative beta is optimal: the midpoint
    (-0.2, -0.2, -0.2),     # a free variable fixes beta
    (-np.inf, 2.0, 2.0),    # one side open: its finite end
    (-1.0, np.inf, -1.0),
])
def test_choose_bias(low, high, expected):
    from svmcompare.solvers._bias import choose_bias

    assert choose_bias(low, high) == expected


@pytest.mark.parametrize("seed", range(20))
def test_balanced_fits_find_a_negative_beta_whenever_one_is_optimal(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(20, 60))
    Xi = rng.normal(size=(n, 2))
    Xip = Xi + rng.normal(size=(n, 2))
    d = (Xip**2).sum(1) - (Xi**2).sum(1) + rng.normal(size=n)
    y = np.where(d > 1, 1, np.where(d < -1, -1, 0))
    if len(np.unique(y)) < 2 or not np.any(y == 0):
        pytest.skip("needs ties and non-ties")
    for C in (1e-3, 0.1):
        problem = flip_compare(np.stack([Xi, Xip], 1), y, C, class_weight="balanced")
        result = solve_dual(problem, resolve_kernel("rbf", 1.0), tol=1e-6)
        Xt, Xtp, yt = flipped_from_definition(Xi, Xip, y)
        Q = ktilde_from_definition(Xt, Xtp, rbf(1.0)) * np.outer(yt, yt)
        low, high = _reference_beta_interval(Q, yt, problem.C)
        if low < -1e-6 * max(1.0, abs(high)):
            assert result.bias < 0, (C, low, high, result.bias_interval)
        assert low - 1e-4 <= result.bias <= high + 1e-4


def test_laplacian_kernel_of_near_duplicate_items_is_accurate():
    # Through ||a||^2 + ||b||^2 - 2 a.b the distance of near duplicates keeps
    # only the norms' rounding, and sqrt magnifies it (errors of 2.7e-6 at
    # gamma = 16 before): the SMO rows and the prediction blocks must agree
    # with exp(-gamma ||a - b||) from the differences.
    rng = np.random.default_rng(3)
    base = rng.normal(size=(30, 4)) * 10.0
    items = np.concatenate([base, base + rng.normal(scale=1e-7, size=base.shape)])
    kernel = resolve_kernel("laplacian", gamma=16.0)
    exact = np.exp(-16.0 * np.sqrt(((items[:, None] - items[None]) ** 2).sum(-1)))
    np.testing.assert_allclose(kernel.block(items, items), exact, rtol=0, atol=1e-12)
    # Rows of K~ inside the solver: pairs (x, x') that are near duplicates.
    problem = BinaryProblem(items, np.arange(30), np.arange(30, 60), np.ones(30),
                            np.ones(30))
    result = solve_dual(problem, kernel, bias=False, tol=1e-10)
    Kt = ktilde_from_definition(items[:30], items[30:],
                                lambda A, B: np.exp(-16.0 * np.sqrt(((A[:, None] - B[None]) ** 2)
                                                                   .sum(-1))))
    assert kkt_violation(result.alpha, Kt, np.ones(30), 1.0, 0.0) < 1e-9


def test_choose_bias_ignores_the_rounding_of_a_symmetric_interval():
    from svmcompare.solvers._bias import choose_bias

    # The ends of [-a, a] computed in two orders of the rows differ in the
    # last bit: the midpoint's sign must not decide between two fits.
    a = 0.06259843409930665
    assert choose_bias(-a, a) == -a / 2
    assert choose_bias(-0.06259843409930677, a) == pytest.approx(-a / 2, rel=1e-12)


@pytest.mark.parametrize("kernel", ["rbf", "laplacian", "poly"])
def test_one_thread_and_two_give_the_same_bits(kernel):
    # Issue 18: rows of K~ over all items are computed in parallel chunks,
    # each value alone, so the thread count cannot change the solution.
    from svmcompare import SVMCompare
    from svmcompare.datasets import make_norm_pairs

    X, y = make_norm_pairs(1200, "l1", random_state=3)  # 2,400 items: rows in 2 chunks
    fits = [SVMCompare(C=1.0, kernel=kernel, gamma=0.5, degree=2, solver="exact",
                       shrinking=False, n_jobs=n).fit(X, y) for n in (1, 2)]
    assert fits[0].dual_objective_ == fits[1].dual_objective_
    assert fits[0].n_iter_ == fits[1].n_iter_
    np.testing.assert_array_equal(fits[0].decision_function(X), fits[1].decision_function(X))


def test_n_jobs_is_checked_before_any_work():
    from svmcompare import SVMCompare
    from svmcompare.datasets import make_norm_pairs

    X, y = make_norm_pairs(40, "l1", random_state=0)
    for bad in (0, -2, 1.5, True):
        with pytest.raises(ValueError, match="n_jobs must be"):
            SVMCompare(n_jobs=bad).fit(X, y)


@pytest.mark.parametrize("solver", ["linear", "nystroem"])
def test_primal_solvers_give_the_same_bits_on_one_thread_and_two(solver):
    # Their sums over rows run in fixed chunks (margins, D^T coef), so the
    # thread count cannot change the solution either.
    from svmcompare import SVMCompare
    from svmcompare.datasets import make_norm_pairs

    X, y = make_norm_pairs(3000, "l1", random_state=4)
    kernel = "linear" if solver == "linear" else "rbf"
    fits = [SVMCompare(C=1.0, kernel=kernel, gamma=0.5, solver=solver, n_components=30,
                       random_state=0, n_jobs=n).fit(X, y) for n in (1, 2)]
    assert fits[0].primal_objective_ == fits[1].primal_objective_
    np.testing.assert_array_equal(fits[0].decision_function(X), fits[1].decision_function(X))


def test_solver_threads_runs_blas_on_one_thread_and_restores_it():
    # BLAS's idle threads and the solvers' spun against each other (BENCHMARKS.md).
    from threadpoolctl import threadpool_info


    def blas_threads():
        return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]

    before, threads_before = blas_threads(), threads.threads_now()
    with solver_threads(1):
        assert all(n == 1 for n in blas_threads())
        assert threads.threads_now() == 1
    assert blas_threads() == before and threads.threads_now() == threads_before


def test_verbose_shows_the_steps_of_a_long_exact_fit_and_changes_nothing(capsys, monkeypatch):
    from svmcompare import SVMCompare
    from svmcompare.datasets import make_norm_pairs
    from svmcompare.solvers import interrupt

    X, y = make_norm_pairs(1500, "l1", random_state=3)
    params = dict(C=300.0, gamma=4.0, solver="exact")
    quiet = SVMCompare(**params).fit(X, y)
    assert capsys.readouterr().err == ""
    # Past the first slice, the progress line appears at once with this delay.
    monkeypatch.setattr(interrupt, "PROGRESS_AFTER", 0.0)
    loud = SVMCompare(**params, verbose=True).fit(X, y)
    err = capsys.readouterr().err
    assert "SMO" in err and "steps" in err
    np.testing.assert_array_equal(loud.dual_coef_, quiet.dual_coef_)
    assert loud.n_iter_ == quiet.n_iter_


def _wss2_by_definition(rows, y, G, alpha, C, QD, qi_of):
    """WSS2 over ``rows`` as the serial loop reads it: i the last row of the
    largest -y G over I_up, j the last row of the smallest -(gmax + y G)^2 / quad
    over I_low with gmax + y G > 0, gmax2 the largest y G over I_low."""
    up = ((y > 0) & (alpha < C)) | ((y < 0) & (alpha > 0))
    low = ((y > 0) & (alpha > 0)) | ((y < 0) & (alpha < C))
    i, gmax = -1, -np.inf
    for t in rows:
        if up[t] and -y[t] * G[t] >= gmax:
            i, gmax = t, -y[t] * G[t]
    qi = qi_of(i)
    j, best, gmax2 = -1, np.inf, -np.inf
    for t in rows:
        if not low[t]:
            continue
        gmax2 = max(gmax2, y[t] * G[t])
        diff = gmax + y[t] * G[t]
        if diff > 0:
            quad = QD[i] + QD[t] - 2.0 * y[i] * y[t] * qi[t]
            quad = quad if quad > 0 else 1e-12
            if -(diff * diff) / quad <= best:
                j, best = t, -(diff * diff) / quad
    return i, gmax, j, gmax2


@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.parametrize("subset", [False, True])
def test_chunked_working_set_selection_is_the_serial_rule(n_threads, subset):
    # Issue 18: past two chunks of active rows, WSS2's two loops run in chunks
    # on all threads; ties must still go to the last row, as in one loop, or
    # one thread and two would take different steps.  Few distinct values
    # make ties in G and in the gain across chunk boundaries.
    from svmcompare.solvers import _smo_core as smo

    rng = np.random.default_rng(7)
    m = 2 * smo.SELECT_CHUNK + 5_000
    y = rng.choice([-1.0, 1.0], size=m)
    G = rng.integers(-3, 3, size=m).astype(float) / 4.0
    C = rng.choice([1.0, 2.0], size=m)
    alpha = np.where(rng.random(m) < 0.5, 0.0, np.where(rng.random(m) < 0.5, C, C / 2))
    QD = rng.integers(1, 4, size=m).astype(float)
    qi = rng.integers(-2, 3, size=m).astype(float) / 2.0
    rows = rng.permutation(m) if subset else np.arange(m)
    n = m - 1_000 if subset else m
    gmax, _, i = smo.chunk_winners(smo.UP, rows, n, -1, 0.0, y, G, alpha, C, QD, qi, n_threads)
    _, gmax2, j = smo.chunk_winners(smo.LOW, rows, n, i, gmax, y, G, alpha, C, QD, qi, n_threads)
    expected = _wss2_by_definition(rows[:n], y, G, alpha, C, QD, lambda i: qi)
    assert (i, gmax, j, gmax2) == expected
    # The ties are real: other rows share the chosen values.
    assert np.sum(-y[rows[:n]] * G[rows[:n]] == gmax) > 100
    # Without a bias: the first row of the largest gain pg^2 / Q_tt.
    _, violation, k = smo.chunk_winners(smo.COORDINATE, rows, n, -1, 0.0, y, G, alpha, C, QD,
                                        qi, n_threads)
    pg = np.where(alpha <= 0, np.minimum(G, 0), np.where(alpha >= C, np.maximum(G, 0), G))
    gain = (pg**2 / QD)[rows[:n]]
    assert k == rows[:n][np.argmax(gain)]  # argmax: the first of the largest
    assert violation == np.abs(pg[rows[:n]]).max()
    assert np.sum(gain == gain.max()) > 100


def test_large_solve_takes_the_same_steps_on_one_thread_and_two(monkeypatch):
    # Above two chunks of active rows (here every row: no shrinking) the
    # working-set selection runs in parallel chunks; a solve cut at the same
    # step on one thread (the serial loops) and on two ends on the same bits,
    # with a bias (SVMCompare) and without (SVMRank).
    from svmcompare.solvers import _smo_core as smo

    if threads.most_threads() < 2:
        pytest.skip("one thread here: nothing runs in chunks")
    # A problem this small runs on one thread whatever n_threads says
    # (threads.PARALLEL_WORK); the chunks are what is tested here.
    monkeypatch.setattr(threads, "PARALLEL_WORK", 0)
    rng = np.random.default_rng(5)
    n = 2 * smo.SELECT_CHUNK + 500  # pairs (rows: the strict ones, ties twice)
    X = rng.normal(size=(n, 2, 2))
    d = (X[:, 1] ** 2).sum(1) - (X[:, 0] ** 2).sum(1)
    y = np.where(d > 0.5, 1, np.where(d < -0.5, -1, 0))
    problem = flip_compare(X, y, 1.0)
    assert problem.y.size >= 2 * smo.SELECT_CHUNK
    for bias in (True, False):
        results = []
        for n_threads in (1, 2):
            with pytest.warns(Warning, match="max_iter"):
                results.append(solve_dual(problem, resolve_kernel("rbf", 1.0), bias=bias,
                                          max_iter=300, shrinking=False, n_threads=n_threads))
        np.testing.assert_array_equal(results[0].alpha, results[1].alpha)
        np.testing.assert_array_equal(results[0].gradient, results[1].gradient)


def _identity_pairs(seed, players=6, games=60):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, players, games)
    b = (a + rng.integers(1, players, games)) % players
    strength = rng.normal(size=players)
    d = strength[b] - strength[a] + rng.logistic(scale=0.5, size=games)
    y = np.where(d > 0.7, 1, np.where(d < -0.7, -1, 0))
    eye = np.eye(players)
    return eye[a], eye[b], y


def test_repeated_items_are_stored_once_and_rows_keep_their_differences():
    Xi, Xip, y = _identity_pairs(0)
    problem = flip_compare(np.stack([Xi, Xip], 1), y, 1.0)
    Xt, Xtp, _ = flipped_from_definition(Xi, Xip, y)
    assert problem.items.shape[0] == 6  # the players, not 2 x 60 rows
    assert np.array_equal(problem.items[problem.a], Xt)
    assert np.array_equal(problem.items[problem.b], Xtp)
    pairs = np.stack([Xi, Xip], 1)
    x, x2 = problem.pair_items[problem.pair].T
    assert np.array_equal(problem.items[x], pairs[problem.pair, 0])
    assert np.array_equal(problem.items[x2], pairs[problem.pair, 1])
    assert np.array_equal(problem.a, np.where(problem.flipped, x2, x))


@pytest.mark.parametrize("C", [0.1, 10.0])
def test_identity_pairs_dual_matches_generic_qp(C):
    Xi, Xip, y = _identity_pairs(1)
    problem = flip_compare(np.stack([Xi, Xip], 1), y, C)
    ours = solve_dual(problem, resolve_kernel("rbf", 0.5), bias=True, tol=1e-6)
    Xt, Xtp, yt = flipped_from_definition(Xi, Xip, y)
    Q = ktilde_from_definition(Xt, Xtp, rbf(0.5)) * np.outer(yt, yt)
    ref = solve_dual_reference(Q, yt, C, bias=True)
    assert ours.objective == pytest.approx(dual_objective(ref, Q), rel=1e-6)
    assert kkt_violation(ours.alpha, Q, yt, C, ours.bias) < 1e-6


def test_distinct_items_keep_first_appearance_order_and_find_every_duplicate():
    from svmcompare._problem import distinct_items

    rows = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 1.0], [2.0, 2.0], [1.0, 0.0]])
    items, index = distinct_items(rows)
    assert np.array_equal(items, rows[[0, 1, 3]])
    assert np.array_equal(index, [0, 1, 0, 2, 1])
    distinct = np.arange(6.0).reshape(3, 2)
    same, identity = distinct_items(distinct)
    assert same is distinct and np.array_equal(identity, [0, 1, 2])
    # Wide rows, repeated far apart: every copy found (a BLAS projection of
    # identical rows need not give identical keys at this width).
    rng = np.random.default_rng(0)
    base = rng.normal(size=(50, 130))
    picks = rng.integers(0, 50, 20_000)
    items, index = distinct_items(base[picks])
    assert items.shape[0] == np.unique(picks).size
    np.testing.assert_array_equal(items[index], base[picks])


def test_distinct_items_agree_with_sorting_the_rows_bytes_even_when_keys_collide():
    from svmcompare._problem import distinct_items

    def by_bytes(rows):  # the reference: rows as byte strings, first appearances
        seen = {}
        index = np.array([seen.setdefault(row.tobytes(), len(seen)) for row in rows])
        firsts = [int(np.flatnonzero(index == k)[0]) for k in range(len(seen))]
        return rows[firsts], index

    rng = np.random.default_rng(1)
    rows = rng.integers(-2, 3, size=(400, 7)).astype(np.float64)
    rows[::7, 0] = -0.0  # -0.0 and 0.0 differ in their bytes, and stay apart
    items, index = distinct_items(rows)
    expected_items, expected_index = by_bytes(rows)
    np.testing.assert_array_equal(index, expected_index)
    assert items.tobytes() == expected_items.tobytes()
    # Two different rows whose keys collide (the hash's own multipliers,
    # crossed): told apart by the check, as the byte sort tells them.
    m = np.random.default_rng(0).integers(1, 2**63, size=2, dtype=np.uint64) | 1
    first = np.array([5, 7], dtype=np.uint64)
    with np.errstate(over="ignore"):
        second = np.array([first[0] + m[1], first[1] - m[0]], dtype=np.uint64)
        assert first @ m == second @ m
    colliding = np.stack([first, second, first]).view(np.float64)
    items, index = distinct_items(colliding)
    np.testing.assert_array_equal(index, [0, 1, 0])
    assert items.tobytes() == colliding[[0, 1]].tobytes()


def test_stack_items_merges_negative_and_positive_zero():
    from svmcompare._problem import stack_items

    Xs = np.array([[[0.0, 1.0], [1.0, 2.0]], [[-0.0, 1.0], [1.0, 2.0]]])
    items, first, second = stack_items(Xs)
    assert items.shape[0] == 2
    np.testing.assert_array_equal(first, [0, 0])
    np.testing.assert_array_equal(second, [1, 1])
    assert Xs[1, 0, 0] == 0.0 and np.signbit(Xs[1, 0, 0])  # the caller's pairs untouched


@pytest.mark.parametrize("C", [0.1, 10.0])
def test_repeated_rows_are_solved_once_to_the_optimum_of_every_row(C):
    # Identities only: 6 items, 120 pairs, so most rows repeat another; the
    # merged dual must be an optimum of the original one, row by row.
    from svmcompare.solvers import smo

    rng = np.random.default_rng(4)
    items = rng.normal(size=(6, 3))
    first, second = rng.integers(0, 6, 120), rng.integers(0, 6, 120)
    keep = first != second
    Xi, Xip = items[first[keep]], items[second[keep]]
    d = (Xip ** 2).sum(1) - (Xi ** 2).sum(1) + rng.logistic(size=Xi.shape[0])
    y = np.where(d > 1, 1, np.where(d < -1, -1, 0))
    weight = rng.uniform(0.5, 2.0, size=y.size)  # rows of a group with different C
    problem = flip_compare(np.stack([Xi, Xip], 1), y, C, sample_weight=weight)
    assert smo._duplicate_groups(problem) is not None
    kernel = resolve_kernel("rbf", 0.5)
    ours = solve_dual(problem, kernel, bias=True, tol=1e-8)

    Q = ktilde_from_definition(problem.items[problem.a], problem.items[problem.b],
                               rbf(0.5)) * np.outer(problem.y, problem.y)
    ref = solve_dual_reference(Q, problem.y, problem.C, bias=True)
    assert ours.converged
    assert np.isclose(dual_objective(ours.alpha, Q), ours.objective, rtol=1e-9)
    assert ours.objective == pytest.approx(dual_objective(ref, Q), rel=1e-6)
    assert abs(problem.y @ ours.alpha) < 1e-9 * problem.C.sum()
    assert np.all(ours.alpha >= 0) and np.all(ours.alpha <= problem.C)
    assert kkt_violation(ours.alpha, Q, problem.y, problem.C, ours.bias) < 1e-6
    np.testing.assert_allclose(ours.gradient, Q @ ours.alpha - 1.0, atol=1e-8)
    # A warm start (a C path's scaled alphas and gradient) lands there too.
    scaled = solve_dual(problem, kernel, bias=True, tol=1e-8, alpha0=ours.alpha * 0.5,
                        gradient0=(ours.gradient + 1.0) * 0.5 - 1.0)
    assert scaled.objective == pytest.approx(ours.objective, rel=1e-6)
    # keep_rows keeps the original rows (their cache is indexed by them).
    kept = solve_dual(problem, kernel, bias=True, tol=1e-8, keep_rows=True)
    assert kept.rows is not None and kept.objective == pytest.approx(ours.objective, rel=1e-6)



def test_a_groups_alpha_fills_its_rows_in_turn():
    from svmcompare.solvers.smo import _filled

    inverse = np.array([1, 0, 1, 1, 0, 2])
    C = np.array([1.0, 2.0, 1.0, 1.0, 2.0, np.inf])
    alpha = _filled(np.array([3.0, 1.5, 4.0]), inverse, C)
    # Group 0 (rows 1, 4): 3 = 2 + 1; group 1 (rows 0, 2, 3): 1.5 = 1 + 0.5 + 0;
    # group 2: an infinite C takes it all.
    np.testing.assert_array_equal(alpha, [1.0, 2.0, 0.5, 0.0, 1.0, 4.0])


def test_hard_margin_on_repeated_rows_solves_as_unmerged(monkeypatch):
    # C = inf (the hard margin) on repeated rows: alpha filled, never inf / inf.
    from svmcompare import HardMarginQP
    from svmcompare.solvers import smo

    rng = np.random.default_rng(0)
    items = rng.normal(size=(5, 3))
    u = np.array([1.0, -2.0, 0.5])
    first, second = rng.integers(0, 5, 200), rng.integers(0, 5, 200)
    keep = first != second
    X = np.stack([items[first[keep]], items[second[keep]]], axis=1)
    gap = (X[:, 1] - X[:, 0]) @ u
    y = np.where(gap > 1.0, 1, np.where(gap < -1.0, -1, 0))
    model = HardMarginQP().fit(X, y)
    monkeypatch.setattr(smo, "_MERGE_SHARE", 0.0)
    unmerged = HardMarginQP().fit(X, y)
    assert np.all(np.isfinite(model.u_))
    np.testing.assert_allclose(model.u_, unmerged.u_, rtol=1e-3)
    assert model.intercept_ == pytest.approx(unmerged.intercept_, rel=1e-3)


def test_rows_without_weight_ask_nothing_of_the_bias():
    from svmcompare.solvers._bias import dual_bias_interval

    # Every weighted row at a bound; a row with C = 0 sits at both bounds and,
    # read as either, used to reverse the interval.
    y = np.array([1.0, -1.0, 1.0, -1.0])
    G = np.array([-2.0, 0.5, 1.5, -0.5])
    C = np.array([1.0, 1.0, 0.0, 0.0])
    alpha = np.array([1.0, 0.0, 0.0, 0.0])
    low, high = dual_bias_interval(alpha, G, y, C)
    weighted = dual_bias_interval(alpha[:2], G[:2], y[:2], C[:2])
    assert (low, high) == weighted and low <= high


def test_small_work_runs_on_one_thread_whatever_n_jobs_says():
    # Each parallel loop forks and joins numba's threads: for small loops that
    # cost more than it saved, and beside busy processes each join waited for
    # a descheduled thread (a 3 s search took 2-3 minutes).
    most = threads.most_threads()
    assert threads.thread_count(None, work=threads.PARALLEL_WORK - 1) == 1
    assert threads.thread_count(None, work=threads.PARALLEL_WORK) == most
    assert threads.thread_count(None) == most and threads.thread_count(1) == 1
    with solver_threads(-1, work=10):
        assert threads.threads_now() == 1
    with pytest.raises(ValueError, match="n_jobs must be"):
        threads.thread_count(0, work=10)


def test_most_threads_follows_numba_s_rule_and_its_variable(monkeypatch):
    # The solvers count their threads without importing numba, by numba's
    # rule: NUMBA_NUM_THREADS when set, else the cores the process may use.
    import os

    def most(value):
        if value is None:
            monkeypatch.delenv("NUMBA_NUM_THREADS", raising=False)
        else:
            monkeypatch.setenv("NUMBA_NUM_THREADS", value)
        threads.most_threads.cache_clear()
        try:
            return threads.most_threads()
        finally:
            threads.most_threads.cache_clear()

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert most(None) == cores
    assert most("3") == 3 and most(" 1 ") == 1
    for bad in ("0", "-2", "two"):
        with pytest.raises(ValueError, match="NUMBA_NUM_THREADS must be a positive integer"):
            most(bad)


def test_each_thread_has_its_own_count():
    # Calibration folds solve in threads, each under its own solver_threads.
    import threading

    seen = {}

    def worker():
        seen["new thread"] = threads.threads_now()
        with solver_threads(1):
            seen["inside"] = threads.threads_now()

    with solver_threads(1):
        other = threading.Thread(target=worker)
        other.start()
        other.join()
        seen["caller"] = threads.threads_now()
    assert seen == {"new thread": threads.most_threads(), "inside": 1, "caller": 1}


@pytest.mark.parametrize("sparse", [False, True])
def test_distinct_items_of_dense_or_sparse_rows_name_each_row_s_first_copy(sparse):
    # The bootstrap aligns replicates on the training items' distinct rows,
    # sparse for identities.
    import scipy.sparse as sp

    from svmcompare._problem import distinct_items

    rng = np.random.default_rng(1)
    rows = rng.integers(0, 2, size=(300, 4)).astype(float) * rng.choice([1.0, -0.0], (300, 4))
    items, index = distinct_items((sp.csr_matrix(rows) if sparse else rows) + 0.0)
    seen, first = {}, []
    for i, row in enumerate(rows + 0.0):
        if tuple(row) not in seen:
            first.append(i)
        seen.setdefault(tuple(row), len(seen))
    np.testing.assert_array_equal(index, [seen[tuple(row)] for row in rows + 0.0])
    items = items.toarray() if sparse else items
    # Numbered as they first appear, each distinct row its first copy.
    assert items.shape[0] == len(seen)
    np.testing.assert_array_equal(items, rows[first] + 0.0)
    np.testing.assert_array_equal(items[index], rows + 0.0)


def test_a_beta_inside_the_kkt_violation_counts_as_noise():
    # beta is pinned down to the solve's KKT violation: a Lemma 1 scale
    # 1 / (-beta) from a beta inside it would come from the tolerance.
    from svmcompare.datasets import make_norm_pairs

    X, y = make_norm_pairs(150, "l1", random_state=3)
    problem = flip_compare(X, y, 10.0)
    for tol in (1e-1, 1e-3):
        result = solve_dual(problem, resolve_kernel("rbf", 1.0), tol=tol)
        assert result.bias_noise >= result.kkt_violation > 0
        assert result.bias_noise > 1e-8 * np.max(np.abs(result.gradient + 1.0))


def test_an_unconverged_solve_s_violation_does_not_make_beta_noise():
    # A review (stop 70): an unconverged solve's O(1) violation made nearly
    # every beta "numerically 0": NoRankingError on 11 of 15 short fits.
    import warnings

    from svmcompare import NoRankingError, SVMCompare
    from svmcompare.datasets import make_norm_pairs

    raised = 0
    for seed in range(5):
        X, y = make_norm_pairs(150, "l1", 0.4, random_state=seed)
        for max_iter in (30, 100, 300):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    SVMCompare(C=100, gamma=4, solver="exact", max_iter=max_iter,
                               on_degenerate="raise", class_weight=None).fit(X, y)
                except NoRankingError:
                    raised += 1
    assert raised == 0
