"""Dual coordinate descent on sparse difference rows (solvers/dual_cd.py),
against an interior-point solution of the dual (18) and the primal Newton solver."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from svmcompare import SVMCompare
from svmcompare.solvers import dual_cd, solve_linear, solve_linear_dual
from svmcompare.solvers.dual_cd import DUAL_CD_MAX_COST, dual_cd_suits, solve_linear_rows

from ..reference.dense import dual_objective, solve_dual_reference


def _id_rows(n_players, n_games, seed=0, context=False):
    """Flipped rows (eq. 8) of simulated games between ids: d_t = e_b - e_a
    (winner second), both orientations of a draw with label -1."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n_players, n_games)
    b = (a + rng.integers(1, n_players, n_games)) % n_players
    strength = rng.normal(size=n_players)
    d = strength[b] - strength[a] + 0.2 + rng.logistic(size=n_games)
    y = np.where(d > 0.8, 1, np.where(d < -0.8, -1, 0))
    win = y != 0
    first = np.r_[np.where(y == 1, a, b)[win], a[~win], b[~win]]
    second = np.r_[np.where(y == 1, b, a)[win], b[~win], a[~win]]
    labels = np.r_[np.ones(win.sum()), -np.ones(2 * (~win).sum())]
    m = first.size
    rows = np.arange(m)
    D = sp.csr_matrix((np.r_[np.ones(m), -np.ones(m)], (np.r_[rows, rows], np.r_[second, first])),
                      shape=(m, n_players))
    if context:  # a home-advantage column, +-1 by orientation
        D = sp.hstack([D, sp.csr_matrix(rng.choice([-1.0, 1.0], size=(m, 1)))], format="csr")
    return D, labels


def _primal(D, y, C, u, beta):
    return 0.5 * u @ u + C @ np.maximum(0.0, 1.0 - y * (D @ u + beta))


@pytest.mark.parametrize("C", [0.01, 1.0, 20.0])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("context", [False, True])
def test_reaches_the_interior_point_optimum_of_the_dual(C, bias, context):
    D, y = _id_rows(25, 150, seed=3, context=context)
    costs = np.random.default_rng(1).uniform(0.5, 2.0, size=y.size) * C
    Q = (y[:, None] * y[None, :]) * (D @ D.T).toarray()  # K~ of eq. (18), linear kernel
    reference = solve_dual_reference(Q, y, costs, bias=bias)
    optimum = -dual_objective(reference, Q)  # strong duality: the primal optimum
    ours = solve_linear_dual(D, y, costs, bias=bias, tol=1e-6)
    assert ours.converged
    assert np.all((ours.alpha >= 0) & (ours.alpha <= costs))
    # u = sum_t alpha_t y_t d_t (eq. 17), and the reported objective is F(u, beta).
    np.testing.assert_allclose(ours.u, D.T @ (ours.alpha * y), atol=1e-9)
    assert ours.objective == pytest.approx(_primal(D, y, costs, ours.u, ours.bias))
    assert ours.objective == pytest.approx(optimum, rel=1e-6)
    assert ours.objective >= optimum * (1 - 1e-9)
    u_reference = D.T @ (reference * y)
    np.testing.assert_allclose(ours.u, u_reference, atol=1e-4 * max(1.0, np.abs(u_reference).max()))
    if bias:
        assert abs(ours.alpha @ y) <= 1e-4 * costs.sum()
    else:
        assert ours.bias == 0.0


@pytest.mark.parametrize("C", [1e-4, 1.0, 50.0])
def test_the_default_tolerance_agrees_with_the_primal_newton_solver(C):
    D, y = _id_rows(200, 4000, seed=5)
    costs = np.full(y.size, C)
    newton = solve_linear(D, y, costs)
    ours = solve_linear_dual(D, y, costs)
    assert ours.converged
    scale = np.abs(newton.u).max()
    # tol = 1e-3 of margin violation, relative to the fitted values' scale
    # below 1; Newton's smoothing (delta = 1e-6) is 0.5% off the optimum's u at
    # C = 1e-4, where u ~ 1e-3.
    np.testing.assert_allclose(ours.u, newton.u, atol=1e-2 * scale)
    assert ours.objective == pytest.approx(newton.objective, rel=1e-4)


def test_rows_of_huge_norm_and_tiny_cost_do_not_stiffen_the_bias_steps():
    # Decay weights with standardized ids: an id last seen long ago has its
    # column scaled up a thousandfold, and its rows weigh next to nothing.  The
    # bias term's rho followed the plain mean of the rows' norms, which those
    # rows set: every step crawled (a new user's rugby fit: 1,000,000 passes,
    # unconverged, 20 s).  Weighted by the costs it converges, to the optimum.
    D, y = _id_rows(40, 2000, seed=7)
    costs = np.ones(y.size)
    old = np.isin(D.indices.reshape(-1, 2)[:, 0], [0, 1]) | \
        np.isin(D.indices.reshape(-1, 2)[:, 1], [0, 1])  # rows of ids 0 and 1
    D = sp.csr_matrix(D.multiply(np.where(old, 1000.0, 1.0)[:, None]))
    costs[old] = 1e-6
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        ours = solve_linear_dual(D, y, costs)
    assert ours.converged and ours.n_iter < 5_000
    newton = solve_linear(D, y, costs)
    assert ours.objective == pytest.approx(newton.objective, rel=1e-4)


def test_a_warm_start_with_rows_left_out_solves_the_smaller_problem():
    D, y = _id_rows(60, 900, seed=7)
    costs = np.ones(y.size)
    full = solve_linear_dual(D, y, costs)
    keep = np.random.default_rng(0).random(y.size) < 0.8
    fold_costs = np.where(keep, costs, 0.0)
    warm = solve_linear_dual(D, y, fold_costs, alpha0=full.alpha, bias0=full.bias, tol=1e-6)
    cold = solve_linear_dual(D[keep], y[keep], costs[keep], tol=1e-6)
    assert warm.converged
    assert np.all(warm.alpha[~keep] == 0.0)
    np.testing.assert_allclose(warm.u, cold.u, atol=1e-4)
    assert warm.objective == pytest.approx(cold.objective, rel=1e-7)


@pytest.mark.parametrize("C", [1e-7, 1e-6, 1e-4])
def test_small_c_with_unbalanced_labels_converges_cold_and_warm(C):
    # At small C every row violates its margin and the hinge's beta is set by
    # the labels' balance: near -1 or 1 on unbalanced rows (and on a fold of
    # balanced ones).  The multipliers crawled there from 0 or from the full
    # solution's beta and stalled (ConvergenceWarning, ~10^6 passes).
    D, y = _id_rows(20, 600, seed=4, context=True)
    costs = np.full(y.size, C)
    full = solve_linear_dual(D, y, costs)
    keep = np.random.default_rng(1).random(y.size) < 0.8
    assert abs(y[keep].sum()) > 10  # the fold's labels are unbalanced
    fold_costs = np.where(keep, costs, 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        warm = solve_linear_dual(D, y, fold_costs, alpha0=full.alpha, bias0=full.bias)
        cold = solve_linear_dual(D[keep], y[keep], costs[keep])
    assert warm.converged and warm.n_iter < 200 and cold.converged and cold.n_iter < 300
    assert warm.objective == pytest.approx(cold.objective, rel=1e-6)
    assert 0.9 < abs(warm.bias) <= 1.0
    # The optimum, from the primal side: no beta does better with this u.
    betas = warm.bias + np.linspace(-1e-3, 1e-3, 41)
    assert warm.objective <= min(_primal(D[keep], y[keep], costs[keep], warm.u, b)
                                 for b in betas) * (1 + 1e-12)


def test_probabilities_of_sparse_ids_at_small_c_converge():
    from svmcompare.datasets import make_league
    from svmcompare.pairs import pairs_from_frame

    matches, _ = make_league(random_state=0)
    data = pairs_from_frame(matches, a="home", b="away", outcome="result",
                            outcome_map={"H": -1, "D": 0, "A": 1}, context=["home_adv"],
                            sparse=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = SVMCompare(kernel="linear", C=1e-6, probability=True).fit(
            data.X, data.y, context=data.context)
    proba = model.predict_proba(data.X[:50], context=data.context[:50])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.all(np.isfinite(proba))


def test_the_same_rows_give_the_same_solution_bit_for_bit():
    D, y = _id_rows(50, 600, seed=2)
    first = solve_linear_dual(D, y, np.ones(y.size))
    second = solve_linear_dual(D, y, np.ones(y.size))
    np.testing.assert_array_equal(first.u, second.u)
    assert first.bias == second.bias


def test_a_budget_too_small_is_reported():
    D, y = _id_rows(50, 600, seed=2)
    with pytest.warns(ConvergenceWarning, match="did not reach tol"):
        result = solve_linear_dual(D, y, np.full(y.size, 100.0), max_passes=2, max_rounds=2)
    assert not result.converged


def test_the_solver_choice_follows_the_cost_of_a_step():
    D, y = _id_rows(50, 600, seed=2)  # ||d_t||^2 = 2
    assert dual_cd_suits(D, np.full(y.size, DUAL_CD_MAX_COST / 2))
    assert not dual_cd_suits(D, np.full(y.size, DUAL_CD_MAX_COST))
    # Dense rows follow the same cost.
    assert dual_cd_suits(D.toarray(), np.full(y.size, DUAL_CD_MAX_COST / 2))
    assert not dual_cd_suits(D.toarray(), np.full(y.size, DUAL_CD_MAX_COST))
    # Rows left out (C = 0) do not count.
    costs = np.zeros(y.size)
    costs[:10] = 1.0
    assert dual_cd_suits(D, costs)
    assert not dual_cd_suits(D, np.zeros(y.size))


def test_unscaled_ids_fit_by_it_inside_the_estimator(monkeypatch):
    """The estimator on id pairs (scale_indicators=False: ||d_t||^2 = 2),
    sparse or dense, takes the dual solver: the same model as the primal
    Newton method's, within the tolerance."""
    rng = np.random.default_rng(4)
    n_players, n_games = 40, 1200
    a = rng.integers(0, n_players, n_games)
    b = (a + rng.integers(1, n_players, n_games)) % n_players
    d = rng.normal(size=n_players)[b] - rng.normal(size=n_players)[a] + rng.logistic(size=n_games)
    y = np.where(d > 0.7, 1, np.where(d < -0.7, -1, 0))
    rows = np.arange(n_games)
    wide = sp.csr_matrix((np.ones(2 * n_games), (np.r_[rows, rows], np.r_[a, n_players + b])),
                         shape=(n_games, 2 * n_players))
    dense = np.stack([wide[:, :n_players].toarray(), wide[:, n_players:].toarray()], axis=1)
    calls = []

    def counted(*args, **kwargs):
        calls.append(1)
        return solve_linear_dual(*args, **kwargs)
    monkeypatch.setattr(dual_cd, "solve_linear_dual", counted)
    on_sparse = SVMCompare(kernel="linear", scale_indicators=False).fit(wide, y)
    assert calls == [1]
    # The dense one-hot pairs take it too (the same cost of a step) ...
    SVMCompare(kernel="linear", scale_indicators=False).fit(dense, y)
    assert calls == [1, 1]
    # ... and the primal Newton method is the independent reference.
    monkeypatch.setattr(dual_cd, "dual_cd_suits", lambda D, C: False)
    dense_fit = SVMCompare(kernel="linear", scale_indicators=False).fit(dense, y)
    assert calls == [1, 1]
    scores_sparse = on_sparse.rank(sp.identity(n_players, format="csr"))
    scores_dense = dense_fit.rank(np.eye(n_players))
    spread = np.ptp(scores_dense)
    np.testing.assert_allclose(scores_sparse - scores_sparse.mean(),
                               scores_dense - scores_dense.mean(), atol=5e-3 * spread)


def _squared_primal(D, y, C, u, beta):
    return 0.5 * u @ u + C @ np.maximum(0.0, 1.0 - y * (D @ u + beta)) ** 2


def _squared_hinge_reference(D, y, C, bias):
    """The squared-hinge primal as a QP for Clarabel: min 1/2 |u|^2 + sum C xi^2
    s.t. xi_t >= 1 - y_t (u^T d_t + beta) (xi may go negative: its square
    would then not be minimal, so xi_t = max(0, .) at the optimum)."""
    from ..reference.dense import solve_qp

    Dd = D.toarray()
    m, p = Dd.shape
    k = p + bias  # u, beta, then xi
    P = np.zeros((k + m, k + m))
    P[:p, :p] = np.eye(p)
    P[k:, k:] = np.diag(2.0 * C)
    # -xi_t - y_t (u^T d_t + beta) <= -1 and -xi_t <= 0
    A = np.zeros((2 * m, k + m))
    A[:m, :p] = -y[:, None] * Dd
    if bias:
        A[:m, p] = -y
    A[:m, k:] = -np.eye(m)
    A[m:, k:] = -np.eye(m)
    b = np.concatenate([-np.ones(m), np.zeros(m)])
    x = solve_qp(P, np.zeros(k + m), A_ineq=A, b_ineq=b)
    return x[:p], (x[p] if bias else 0.0)


@pytest.mark.parametrize("C", [0.05, 1.0, 20.0])
@pytest.mark.parametrize("bias", [True, False])
def test_squared_hinge_reaches_the_interior_point_optimum_of_its_primal(C, bias):
    D, y = _id_rows(20, 120, seed=4, context=True)
    costs = np.random.default_rng(2).uniform(0.5, 2.0, size=y.size) * C
    u_ref, beta_ref = _squared_hinge_reference(D, y, costs, bias)
    optimum = _squared_primal(D, y, costs, u_ref, beta_ref)
    ours = solve_linear_dual(D, y, costs, bias=bias, tol=1e-7, loss="squared_hinge")
    assert ours.converged
    # The primal Newton method (dense rows, or sparse ones) and the
    # trust-region Newton-CG of sparse rows reach the same optimum.
    from svmcompare.solvers.newton_cg import solve_squared_hinge_cg

    for newton in (solve_linear(D, y, costs, bias=bias, loss="squared_hinge"),
                   solve_linear(D.toarray(), y, costs, bias=bias, loss="squared_hinge"),
                   solve_squared_hinge_cg(D, y, costs, bias=bias)):
        assert newton.objective == pytest.approx(optimum, rel=1e-7)
        np.testing.assert_allclose(newton.u, u_ref, atol=1e-5 * max(1.0, np.abs(u_ref).max()))
        assert newton.bias == pytest.approx(beta_ref, abs=1e-5 * max(1.0, abs(beta_ref)))
        margin = np.maximum(0.0, 1.0 - y * (D @ newton.u + newton.bias))
        np.testing.assert_allclose(newton.alpha, 2.0 * costs * margin, atol=1e-8)
    assert np.all(ours.alpha >= 0)
    np.testing.assert_allclose(ours.u, D.T @ (ours.alpha * y), atol=1e-9)
    assert ours.objective == pytest.approx(_squared_primal(D, y, costs, ours.u, ours.bias))
    assert ours.objective == pytest.approx(optimum, rel=1e-6)
    np.testing.assert_allclose(ours.u, u_ref, atol=1e-4 * max(1.0, np.abs(u_ref).max()))
    assert ours.bias == pytest.approx(beta_ref, abs=1e-4 * max(1.0, abs(beta_ref)))
    # alpha_t = 2 C_t max(0, 1 - y_t f_t): the dual-primal link of the L2 loss.
    margin = np.maximum(0.0, 1.0 - y * (D @ ours.u + ours.bias))
    np.testing.assert_allclose(ours.alpha, 2.0 * costs * margin,
                               atol=1e-4 * max(1.0, ours.alpha.max()))


def test_squared_hinge_bias_is_the_brute_force_minimizer():
    from svmcompare.solvers._bias import squared_hinge_bias

    rng = np.random.default_rng(0)
    for _ in range(20):
        m = int(rng.integers(2, 30))
        scores, C = rng.normal(size=m), rng.uniform(0.1, 3.0, size=m)
        y = rng.choice([-1.0, 1.0], size=m)
        beta = squared_hinge_bias(scores, y, C)
        grid = np.linspace(beta - 3, beta + 3, 20001)
        losses = (C * np.maximum(0.0, 1.0 - y * (scores + grid[:, None])) ** 2).sum(axis=1)
        at_beta = C @ np.maximum(0.0, 1.0 - y * (scores + beta)) ** 2
        assert at_beta <= losses.min() + 1e-12
    assert squared_hinge_bias(np.array([0.0, 2.0]), np.array([1.0, 1.0]),
                              np.ones(2)) == 1.0  # all rows y = 1: loss 0 from beta = 1 on
    # A stretch of zero loss between the labels' kinks (-6 .. 3.9): a point of it,
    # not an error; rows with C = 0 do not count.
    beta = squared_hinge_bias(np.array([-2.9, -7.0]), np.array([1.0, -1.0]), np.full(2, 0.7))
    assert -6.0 <= beta <= 3.9
    assert squared_hinge_bias(np.array([0.1, 0.3]), np.array([1.0, -1.0]),
                              np.array([0.3, 0.0])) == pytest.approx(0.9)
    for _ in range(400):  # random zero-loss gaps and unweighted rows
        m = int(rng.integers(2, 8))
        scores, y = rng.normal(scale=4.0, size=m), rng.choice([-1.0, 1.0], size=m)
        C = np.where(rng.random(m) < 0.3, 0.0, rng.uniform(0.1, 2.0, size=m))
        beta = squared_hinge_bias(scores, y, C)
        grid = np.linspace(beta - 10, beta + 10, 4001)
        losses = (C * np.maximum(0.0, 1.0 - y * (scores + grid[:, None])) ** 2).sum(axis=1)
        at_beta = C @ np.maximum(0.0, 1.0 - y * (scores + beta)) ** 2
        assert at_beta <= losses.min() + 1e-9


def test_squared_hinge_bias_from_a_start_is_the_same_root():
    # From a solver's beta the root is looked for on the piece next to it
    # without sorting the kinks; wherever the start is (near, far, on a kink),
    # the answer is the sorted method's.
    from svmcompare.solvers._bias import squared_hinge_bias

    rng = np.random.default_rng(1)
    shortcut = 0
    for _ in range(300):
        m = int(rng.integers(2, 40))
        scores, y = rng.normal(size=m), rng.choice([-1.0, 1.0], size=m)
        C = np.where(rng.random(m) < 0.2, 0.0, rng.uniform(0.1, 3.0, size=m))
        exact = squared_hinge_bias(scores, y, C)
        kinks = np.where(y > 0, 1.0 - scores, -1.0 - scores)
        for start in (exact + rng.normal(scale=1e-3), exact + rng.normal(scale=2.0),
                      float(rng.choice(kinks)), exact):
            got = squared_hinge_bias(scores, y, C, start=start)
            at_got, at_exact = (C @ np.maximum(0.0, 1.0 - y * (scores + b)) ** 2
                                for b in (got, exact))
            assert at_got <= at_exact + 1e-12 * max(1.0, at_exact)
            if C.any() and (y[C > 0] > 0).any() and (y[C > 0] < 0).any():
                shortcut += abs(got - exact) <= 1e-12 * max(1.0, abs(exact))
    assert shortcut > 300  # the same root, not merely as low a loss, in most cases
    # The review's cases: a start on a stretch of zero loss gets the sort's point
    # of it (not the start: that turned a ranking into beta >= 0), and a root
    # that rounding puts on a kink at a cost ratio of 1e60 is left to the sort.
    scores, y = np.array([2.5, -1.5]), np.array([1.0, -1.0])
    assert squared_hinge_bias(scores, y, np.ones(2), start=0.2) == \
        squared_hinge_bias(scores, y, np.ones(2))
    C, scores, y = np.array([0.5, 1e-30, 1e30]), np.array([2.0, -3.0, 1.0]), \
        np.array([-1.0, 1.0, -1.0])
    assert squared_hinge_bias(scores, y, C, start=4.0) == squared_hinge_bias(scores, y, C)


def test_newton_cg_converges_at_tiny_costs_cold_and_warm():
    # Dividing the objective by its gradient at 0 left the badly conditioned
    # steps of C = 1e-16 short (the review's case); only large gradients are.
    import scipy.sparse as sp

    from svmcompare.solvers.newton_cg import solve_squared_hinge_cg

    rng = np.random.default_rng(0)
    m, p = 200, 30
    a = rng.integers(0, p, m)
    b = (a + rng.integers(1, p, m)) % p
    r = np.arange(m)
    D = sp.csr_matrix((np.r_[-np.ones(m), np.ones(m)], (np.r_[r, r], np.r_[a, b])),
                      shape=(m, p))
    y = rng.choice([-1.0, 1.0], m, p=[0.3, 0.7])
    for C, v0 in ((1e-16, None), (1e-12, np.random.default_rng(1).normal(size=p + 1))):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            result = solve_squared_hinge_cg(D, y, np.full(m, C), v0=v0)
        slack = np.maximum(0.0, 1.0 - y * (result.bias + D @ result.u))
        u_star = 2.0 * C * (D.T @ (y * slack))  # stationarity in u given beta
        assert result.converged
        assert np.linalg.norm(result.u - u_star) <= 1e-9 * np.linalg.norm(u_star)


def _id_game_rows(seed, players=8, n=330):
    """Flipped rows of eq. (8) of :func:`id_games`' games: each decided game
    toward its winner (label 1), each draw both ways (label -1)."""
    from ..test_bootstrap import id_games

    wide, label, _, _ = id_games(players, n, seed)
    a = np.asarray(wide[:, :players].argmax(axis=1)).ravel()  # each side's one id
    b = np.asarray(wide[:, players:].argmax(axis=1)).ravel()
    won = label != 0
    loser = np.where(label[won] > 0, a[won], b[won])
    winner = np.where(label[won] > 0, b[won], a[won])
    first = np.r_[loser, a[~won], b[~won]]
    second = np.r_[winner, b[~won], a[~won]]
    m, r = first.size, np.arange(first.size)
    D = sp.csr_matrix((np.r_[-np.ones(m), np.ones(m)], (np.r_[r, r], np.r_[first, second])),
                      shape=(m, players))
    return D, np.r_[np.ones(won.sum()), -np.ones(2 * (~won).sum())]


def test_newton_cg_finishes_where_the_objective_cannot_measure_a_step():
    # C = 1e-6: the last steps' gains are below the objective's rounding, and
    # SciPy's trust region stopped ("a bad approximation") with the gradient
    # 100x its goal, a ConvergenceWarning on 7 of 40 such sets (an
    # SVMCompareCV of ids warned); Newton's steps judged by the gradient finish.
    from svmcompare.solvers.newton_cg import solve_squared_hinge_cg

    for seed in (4, 7, 26):
        D, y = _id_game_rows(seed)
        C = np.full(y.size, 1e-6)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            result = solve_squared_hinge_cg(D, y, C)
        assert result.converged
        slack = np.maximum(0.0, 1.0 - y * (result.bias + D @ result.u))
        u_star = D.T @ (2.0 * C * y * slack)  # stationarity in u
        beta_gradient = -np.sum(2.0 * C * y * slack)  # and in beta
        scale = np.hypot(np.linalg.norm(D.T @ (2.0 * C * y)), np.sum(2.0 * C * y))  # at 0
        assert np.linalg.norm(result.u - u_star) <= 1e-7 * scale
        assert abs(beta_gradient) <= 1e-7 * scale


def test_svmcompare_with_the_squared_hinge_solves_its_primal_on_dense_pairs():
    from svmcompare._problem import flip_compare

    rng = np.random.default_rng(7)
    X = rng.normal(size=(60, 2, 3))
    d = (X[:, 1] - X[:, 0]) @ np.array([1.0, -0.5, 0.3]) + rng.logistic(scale=0.3, size=60)
    y = np.where(d > 0.6, 1, np.where(d < -0.6, -1, 0))
    model = SVMCompare(kernel="linear", loss="squared_hinge", class_weight=None, C=0.5,
                       tol=1e-8).fit(X, y)
    problem = flip_compare(model.scaler_.transform_pairs(X), y, 0.5)
    D = sp.csr_matrix(problem.items[problem.b] - problem.items[problem.a])
    u_ref, beta_ref = _squared_hinge_reference(D, problem.y, problem.C, bias=True)
    assert model.intercept_ == pytest.approx(beta_ref, abs=1e-5)
    assert not model.degenerate_  # beta < 0: Lemma 1's r = u^T x / (-beta)
    np.testing.assert_allclose(model.ranking_.weights * -model.intercept_, u_ref, atol=1e-5)
    assert model.primal_objective_ == pytest.approx(
        _squared_primal(D, problem.y, problem.C, u_ref, beta_ref), rel=1e-7)


def test_the_squared_hinge_needs_a_primal_solver():
    X = np.random.default_rng(0).normal(size=(30, 2, 2))
    y = np.tile([-1, 0, 1], 10)
    for params in ({"kernel": "rbf"}, {"kernel": "linear", "solver": "exact"},
                   {"kernel": "linear", "loss": "squared"}):
        with pytest.raises(ValueError, match="loss"):
            SVMCompare(**{"loss": "squared_hinge", **params}).fit(X, y)
    # The Nystroem map gives explicit features: a primal problem.
    SVMCompare(kernel="rbf", solver="nystroem", n_components=10, loss="squared_hinge").fit(X, y)


def test_squared_hinge_on_identities_ranks_and_calibrates():
    from scipy.stats import spearmanr

    from svmcompare.metrics import outcome_log_loss

    rng = np.random.default_rng(3)
    strength = rng.normal(size=30)

    def games(n):
        a = rng.integers(0, 30, n)
        b = (a + rng.integers(1, 30, n)) % 30
        diff = strength[b] - strength[a] + rng.logistic(size=n)
        rows = np.arange(n)
        X = sp.csr_matrix((np.ones(2 * n), (np.r_[rows, rows], np.r_[a, 30 + b])),
                          shape=(n, 60))
        return X, np.where(diff > 0.8, 1, np.where(diff < -0.8, -1, 0))

    (X, y), (Xt, yt) = games(1500), games(3000)
    model = SVMCompare(kernel="linear", scale_indicators=False, probability=True,
                       loss="squared_hinge", random_state=0).fit(X, y)
    assert model.calibration_ == "5-fold"  # 25 games a player: refitted folds
    ids = sp.csr_matrix(np.eye(30))
    assert spearmanr(model.rank(ids), strength).statistic > 0.9
    proba = model.predict_proba(Xt)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    frequencies = np.bincount(y + 1, minlength=3) / y.size
    baseline = outcome_log_loss(yt, np.tile(frequencies, (yt.size, 1)))
    assert outcome_log_loss(yt, proba) < baseline - 0.05


def test_wide_dense_rows_take_coordinate_steps_for_the_squared_hinge():
    from svmcompare.solvers.dual_cd import solve_linear_rows

    rng = np.random.default_rng(5)
    D = rng.normal(size=(30, 200))  # more features than rows
    y = np.where(rng.random(30) < 0.5, 1.0, -1.0)
    C = np.full(30, 0.3)
    rows = solve_linear_rows(D, y, C, loss="squared_hinge", tol=1e-8)
    assert rows.n_iter > 0 and rows.smoothing == 0.0
    newton = solve_linear(D, y, C, loss="squared_hinge")
    assert rows.objective == pytest.approx(newton.objective, rel=1e-6)
    np.testing.assert_allclose(rows.u, newton.u, atol=1e-5)


def test_a_small_beta_of_a_small_c_is_not_noise_for_either_solver():
    # The same id pairs, dense (primal Newton) and sparse (dual coordinate
    # descent): the same beta (~C), and neither calls it numerically 0.
    from svmcompare.datasets import make_league
    from svmcompare.pairs import pairs_from_frame

    matches, _ = make_league(random_state=0)
    fits = []
    for sparse in (False, True):
        data = pairs_from_frame(matches, a="home", b="away", outcome="result",
                                outcome_map={"H": -1, "D": 0, "A": 1}, context=["home_adv"],
                                sparse=sparse)
        fits.append(SVMCompare(kernel="linear", C=1e-4, scale_indicators=False).fit(
            data.X, data.y, context=data.context))
    dense, sparse = fits
    assert sparse.intercept_ == pytest.approx(dense.intercept_, rel=1e-3)
    assert -1e-2 < dense.intercept_ < 0
    assert not dense.degenerate_ and not sparse.degenerate_


@pytest.mark.parametrize("bias", [True, False])
def test_zero_rows_go_to_their_bound_and_converge(bias):
    # A row d_t = 0 is linear in its alpha (no curvature without a bias term):
    # it steps straight to the bound its gradient points to.
    D = sp.csr_matrix(np.zeros((4, 3)))
    y = np.array([1.0, -1.0, 1.0, 1.0])
    costs = np.full(4, 1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        cold = solve_linear_dual(D, y, costs, bias=bias)
        warm = solve_linear_dual(D, y, costs, bias=bias, alpha0=np.zeros(4))
    for fit in (cold, warm):
        assert fit.converged and fit.n_iter < 100
        assert fit.objective == pytest.approx(_primal(D, y, costs, fit.u, fit.bias))
    if not bias:
        np.testing.assert_array_equal(cold.alpha, costs)  # every margin violated


@pytest.mark.parametrize("C", [1e-6, 0.5, 50.0])
def test_sparse_squared_hinge_rows_take_newton_steps_to_the_same_optimum(C):
    # Smooth loss: a few dozen trust-region Newton steps (conjugate gradients
    # on the sparse rows) reach what coordinate descent reaches in many passes;
    # a warm start after more games takes fewer.
    D, y = _id_rows(200, 4000, seed=6, context=True)
    costs = np.full(y.size, C)
    rows = solve_linear_rows(D, y, costs, loss="squared_hinge")
    coordinate = solve_linear_dual(D, y, costs, loss="squared_hinge", tol=1e-8)
    assert rows.converged and rows.n_iter <= 40
    assert rows.objective == pytest.approx(coordinate.objective, rel=1e-8)
    np.testing.assert_allclose(rows.u, coordinate.u, atol=1e-5 * max(1.0, np.abs(rows.u).max()))
    more, y_more = _id_rows(200, 200, seed=7, context=True)
    D2, y2 = sp.vstack([D, more], format="csr"), np.r_[y, y_more]
    C2 = np.full(y2.size, C)
    cold = solve_linear_rows(D2, y2, C2, loss="squared_hinge")
    warm = solve_linear_rows(D2, y2, C2, loss="squared_hinge", v0=np.append(rows.u, rows.bias))
    assert warm.objective == pytest.approx(cold.objective, rel=1e-9)
    assert warm.n_iter <= cold.n_iter


@pytest.mark.parametrize("C", [1e-300, 1e100])
def test_the_squared_hinge_on_sparse_rows_at_extreme_costs_is_quiet_and_finite(C):
    D, y = _id_rows(30, 600, seed=8, context=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = solve_linear_rows(D, y, np.full(y.size, C), loss="squared_hinge")
    assert fit.converged and np.all(np.isfinite(fit.u)) and np.isfinite(fit.bias)


def test_a_pass_budget_stops_quietly_and_dense_rows_fall_back_to_newton(monkeypatch):
    D, y = _id_rows(50, 600, seed=3)
    C = np.full(y.size, 10.0)  # C ||d||^2 = 20: within the cost rule
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # the budget says nothing
        short = solve_linear_dual(D, y, C, pass_budget=2)
    assert not short.converged and short.n_iter <= 3
    dense = D.toarray()
    newton = solve_linear(dense, y, C)
    calls = []

    def counted(*args, **kwargs):
        result = solve_linear_dual(*args, **kwargs)
        calls.append(result.converged)
        return result

    monkeypatch.setattr(dual_cd, "solve_linear_dual", counted)
    # Within its budget coordinate descent gives the answer...
    within = solve_linear_rows(dense, y, C)
    assert calls == [True]
    np.testing.assert_allclose(within.objective, newton.objective, rtol=1e-5)
    # ... past it (no pass allowed) the Newton method does, with no warning.
    monkeypatch.setattr(dual_cd, "DENSE_CD_PASSES_PER_COLUMN", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        fallback = solve_linear_rows(dense, y, C)
    assert calls == [True, False]
    # The same optimum (from another start the active-set crossover may reach it
    # by other rounds: equal to rounding, not to the bit).
    np.testing.assert_allclose(fallback.u, newton.u, rtol=1e-10, atol=1e-12)
    assert fallback.objective == pytest.approx(newton.objective, rel=1e-12)


def test_a_work_budget_stops_quietly_and_dense_rows_fall_back_to_newton(monkeypatch):
    # The work budget counts the stored entries of the rows visited: one full
    # pass's worth ends the solve after its first pass, unconverged and quiet.
    D, y = _id_rows(50, 600, seed=3)
    C = np.full(y.size, 10.0)
    full = solve_linear_dual(D, y, C)
    assert full.converged and full.n_iter > 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        short = solve_linear_dual(D, y, C, work_budget=1)
    assert not short.converged and short.n_iter == 1
    # Ample work (and passes) leaves the solve as it was, bit for bit.
    ample = solve_linear_dual(D, y, C, work_budget=10**6, pass_budget=10**9)
    assert ample.converged and ample.n_iter == full.n_iter
    np.testing.assert_array_equal(ample.alpha, full.alpha)
    # Dense rows get DENSE_CD_FULL_PASSES full passes' work; past it (none
    # here) the Newton method answers, with no warning.
    dense = D.toarray()
    budgets = []

    def counted(*args, **kwargs):
        budgets.append(kwargs.get("work_budget"))
        return solve_linear_dual(*args, **kwargs)

    monkeypatch.setattr(dual_cd, "solve_linear_dual", counted)
    solve_linear_rows(dense, y, C)
    assert budgets == [dual_cd.DENSE_CD_FULL_PASSES]
    monkeypatch.setattr(dual_cd, "DENSE_CD_FULL_PASSES", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        fallback = solve_linear_rows(dense, y, C)
    newton = solve_linear(dense, y, C)
    np.testing.assert_allclose(fallback.u, newton.u, rtol=1e-10, atol=1e-12)
    assert fallback.objective == pytest.approx(newton.objective, rel=1e-12)


@pytest.mark.parametrize("name", ["pass_budget", "work_budget"])
@pytest.mark.parametrize("value", [-1, 1.5, float("nan"), True, "10"])
def test_a_budget_that_is_not_a_whole_number_is_refused_by_name(name, value):
    D, y = _id_rows(10, 60, seed=2)
    with pytest.raises(ValueError, match=name):
        solve_linear_dual(D, y, np.ones(y.size), **{name: value})


@pytest.mark.parametrize("zeros", [0.0, 0.0004, 0.3, 0.9, 1.0])
def test_dense_rows_give_scipys_csr_and_solution_bit_for_bit(zeros):
    # Dense rows (Nystroem features) go to CSR by one masked pass, not
    # SciPy's conversion: the same arrays, so the same solve bit for bit.
    rng = np.random.default_rng(3)
    D = rng.normal(size=(400, 12))
    D[rng.uniform(size=D.shape) < zeros] = 0.0
    y = np.where(rng.uniform(size=400) < 0.5, -1.0, 1.0)
    C = np.full(400, 0.5)
    for given in (D, np.asfortranarray(D), D[:0]):
        stored, reference = dual_cd._csr(given), sp.csr_matrix(given)
        assert stored.has_canonical_format and stored.shape == reference.shape
        np.testing.assert_array_equal(stored.indptr, reference.indptr)
        np.testing.assert_array_equal(stored.indices, reference.indices)
        np.testing.assert_array_equal(stored.data, reference.data)
    ours = solve_linear_dual(D, y, C, tol=1e-6)
    scipys = solve_linear_dual(sp.csr_matrix(D), y, C, tol=1e-6)
    np.testing.assert_array_equal(ours.u, scipys.u)
    np.testing.assert_array_equal(ours.alpha, scipys.alpha)
    assert ours.bias == scipys.bias
