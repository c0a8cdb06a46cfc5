"""The primal linear solver and the solver choice of the estimators."""

import numpy as np
import pytest

from svmcompare import NoRankingError, SVMCompare, SVMRank, SVMRank2
from svmcompare._problem import Standardizer, flip_compare, flip_rank
from svmcompare.datasets import make_norm_pairs
from svmcompare.kernels import resolve_kernel
from svmcompare.solvers import solve_dual, solve_linear
from svmcompare.solvers.linear import differences


def _primal(D, y, C, u, beta):
    return 0.5 * u @ u + C @ np.maximum(0.0, 1.0 - y * (D @ u + beta))


def _raw_linear_pairs(seed, n=400, p=4):
    """Pairs whose labels come from a noisy linear latent rank."""
    rng = np.random.default_rng(seed)
    Xi = rng.normal(size=(n, p))
    Xip = Xi + rng.normal(scale=0.5, size=(n, p))
    d = (Xip - Xi) @ rng.normal(size=p) * 2 + rng.normal(scale=0.5, size=n)
    y = np.where(d > 1, 1, np.where(d < -1, -1, 0))
    return np.stack([Xi, Xip], axis=1), y


def _linear_pairs(seed, n=400, p=4):
    X, y = _raw_linear_pairs(seed, n, p)
    return Standardizer.fit(X).transform_pairs(X), y


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("C", [0.01, 1.0, 100.0])
@pytest.mark.parametrize("bias", [True, False])
def test_primal_objective_matches_exact_dual_solver(seed, C, bias):
    """Strong duality: the exact SMO solution's primal value is the optimum."""
    Xs, y = _linear_pairs(seed)
    problem = flip_compare(Xs, y, C) if bias else flip_rank(Xs, y, C)
    D = differences(problem.items, problem.a, problem.b)
    exact = solve_dual(problem, resolve_kernel("linear"), bias=bias, tol=1e-8)
    u_exact = D.T @ (exact.alpha * problem.y)
    optimum = _primal(D, problem.y, problem.C, u_exact, exact.bias)
    ours = solve_linear(D, problem.y, problem.C, bias=bias)
    assert ours.converged
    assert ours.objective == pytest.approx(_primal(D, problem.y, problem.C, ours.u,
                                                          ours.bias))
    assert ours.objective == pytest.approx(optimum, rel=1e-6)
    # Never below the dual's value at SMO's feasible alpha (weak duality; the
    # crossover's exact optimum may be below SMO's primal value at tol 1e-8).
    assert ours.objective >= -exact.objective * (1 - 1e-12)
    assert np.all((ours.alpha >= 0) & (ours.alpha <= problem.C))
    if not bias:
        assert ours.bias == 0.0


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("C", [1.0, 100.0])
@pytest.mark.parametrize("bias", [True, False])
def test_crossover_returns_the_hinge_optimum_itself(seed, C, bias):
    """Past the smoothing levels' guess of the support vectors, the solution
    satisfies the KKT conditions of the hinge problem (15) exactly: u from
    its alphas (eq. 17), alphas in their box, each row's alpha set by its
    margin, and sum_t y_t alpha_t = 0 with a bias (eq. 18)."""
    Xs, y = _linear_pairs(seed, n=600, p=6)
    problem = flip_compare(Xs, y, C) if bias else flip_rank(Xs, y, C)
    D = differences(problem.items, problem.a, problem.b)
    yt, Ct = problem.y, problem.C
    ours = solve_linear(D, yt, Ct, bias=bias)
    assert ours.smoothing == 0.0 and ours.converged
    np.testing.assert_allclose(ours.u, D.T @ (ours.alpha * yt), rtol=0, atol=1e-9 * C)
    assert np.all((ours.alpha >= 0) & (ours.alpha <= Ct))
    z = yt * (D @ ours.u + ours.bias)
    tol = 1e-7
    assert np.all(ours.alpha[z < 1 - tol] == Ct[z < 1 - tol])  # inside the margin: at C
    assert np.all(ours.alpha[z > 1 + tol] == 0.0)  # beyond it: not a support vector
    free = (ours.alpha > 0) & (ours.alpha < Ct)
    assert free.any()
    np.testing.assert_allclose(z[free], 1.0, atol=tol)  # free rows sit on the margin
    if bias:
        assert abs(yt @ ours.alpha) <= 1e-9 * Ct.sum()
    # And it is the optimum: the dual's value at SMO's feasible alphas bounds it below.
    exact = solve_dual(problem, resolve_kernel("linear"), bias=bias, tol=1e-8)
    assert -exact.objective * (1 - 1e-12) <= ours.objective \
        <= _primal(D, yt, Ct, D.T @ (exact.alpha * yt), exact.bias)


def test_the_crossover_mends_a_guess_that_missed_a_free_row():
    # The finest levels' zone can miss the optimum by a row; that row lands on
    # the wrong side of the margin, joins the free rows, and the second solve
    # is the optimum.  Each free row of the optimum is left out of a guess in
    # turn (taken for a row beyond the margin); where that is the only row the
    # first solve puts on the wrong side, the crossover must mend it.
    from svmcompare.solvers.linear import _crossover, _kkt_guess, _Smoothed

    Xs, y = _linear_pairs(2, n=600, p=6)
    problem = flip_compare(Xs, y, 1.0)
    D = differences(problem.items, problem.a, problem.b)
    yt, Ct = problem.y, problem.C
    exact = solve_linear(D, yt, Ct)
    assert exact.smoothing == 0.0
    z = yt * (D @ exact.u + exact.bias)
    delta, weighted = 1e-5, Ct != 0
    obj = _Smoothed(D, yt, Ct, True)
    free = (exact.alpha > 0) & (exact.alpha < Ct)
    mended = 0
    for missed in np.flatnonzero(free):
        guess = np.where(free, 1.0 - delta / 2, z)  # the free rows in the zone
        guess[missed] = 1.0 + delta
        first = _kkt_guess(obj, (guess > 1 - delta) & (guess < 1), guess <= 1 - delta, weighted)
        if first is None or np.flatnonzero(first[3]).tolist() != [missed]:
            continue
        v, _, alpha = _crossover(obj, guess, delta, weighted, 50)
        np.testing.assert_allclose(v[:-1], exact.u, rtol=0, atol=1e-9)
        assert v[-1] == pytest.approx(exact.bias, abs=1e-9)
        np.testing.assert_allclose(alpha, exact.alpha, rtol=0, atol=1e-8)
        mended += 1
    assert mended >= 1


def test_the_crossover_leaves_rows_without_cost_and_far_rows_alone():
    # No row with C_t > 0 (a calibration fold's weights all zero): u = 0 and
    # the levels' beta, no crossover (it crashed on the empty bias interval).
    rng = np.random.default_rng(0)
    D, y = rng.normal(size=(6, 2)), np.array([1.0, -1, 1, -1, 1, 1])
    empty = solve_linear(D, y, np.zeros(6), bias=True)
    assert np.all(empty.u == 0.0) and np.isfinite(empty.bias)
    X = rng.normal(size=(60, 2, 3))
    labels = rng.choice([-1, 0, 1], 60)
    weight = np.zeros(60)
    # One tie and one decided pair weigh something (the fewest a fit accepts);
    # a calibration fold without one of them has no row with C_t > 0.
    weight[[np.flatnonzero(labels == 0)[0], np.flatnonzero(labels != 0)[0]]] = 1.0
    SVMCompare(kernel="linear", probability=True).fit(X, labels, sample_weight=weight)
    # One row far out on its side (fitted value ~10^6) must not loosen the
    # others' KKT check: a crossover's result keeps each row's alpha where its
    # margin puts it (with one tolerance for all rows, 4 of 40 such problems
    # took a wrong guess of the support vectors, 2.4e-4 above the optimum).
    accepted = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        D, yt = rng.normal(size=(20, 2)), np.where(rng.random(20) < 0.5, 1.0, -1.0)
        Ct = np.full(20, 50.0)
        near = solve_linear(D, yt, Ct)
        far = 1e6 * near.u / np.linalg.norm(near.u)
        ours = solve_linear(np.vstack([D, far]), np.append(yt, 1.0), np.append(Ct, 50.0))
        if ours.smoothing != 0.0:
            continue
        accepted += 1
        z = yt * (D @ ours.u + ours.bias)
        alpha = ours.alpha[:20]
        assert np.all(alpha[z < 1 - 1e-6] == 50.0) and np.all(alpha[z > 1 + 1e-6] == 0.0)
        free = (alpha > 0) & (alpha < 50.0)
        np.testing.assert_allclose(z[free], 1.0, atol=1e-6)
        assert ours.objective <= near.objective * (1 + 1e-9) + 1e-9
    assert accepted >= 20


def test_differences_are_item_differences():
    items = np.arange(12.0).reshape(6, 2)
    a, b = np.array([0, 3, 5]), np.array([1, 1, 2])
    np.testing.assert_array_equal(differences(items, a, b), items[b] - items[a])


def test_zero_difference_rows_are_handled():
    D = np.array([[0.0, 0.0], [1.0, 0.5], [-1.0, 0.2], [0.1, 0.1]])
    y = np.array([-1.0, 1.0, 1.0, -1.0])
    result = solve_linear(D, y, np.ones(4))
    assert np.isfinite(result.objective) and result.converged


@pytest.mark.parametrize("cls", [SVMCompare, SVMRank, SVMRank2])
def test_linear_solver_equals_exact_solver_in_the_estimators(cls):
    X, y = _raw_linear_pairs(5, n=300)
    Xtest, _ = _raw_linear_pairs(6, n=500)
    exact = cls(kernel="linear", solver="exact", C=1.0, tol=1e-6).fit(X, y)
    linear = cls(kernel="linear", solver="auto", C=1.0).fit(X, y)
    assert linear.solver_ == "linear" and exact.solver_ == "exact"
    np.testing.assert_allclose(linear.coef_, exact.coef_, rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(linear.decision_function(Xtest), exact.decision_function(Xtest),
                               atol=1e-3 * np.abs(exact.decision_function(Xtest)).max())
    assert np.mean(linear.predict(Xtest) == exact.predict(Xtest)) >= 0.99


def test_coef_is_lemma1_weights_in_input_units():
    X, y = make_norm_pairs(300, "l1", random_state=1)
    X = X * np.array([10.0, 0.1]) + np.array([5.0, -3.0])
    model = SVMCompare(kernel="linear", C=1.0).fit(X, y)
    Z = np.random.default_rng(0).normal(size=(7, 2))
    diff = model.rank(Z) - model.rank(np.zeros((1, 2)))
    np.testing.assert_allclose(diff, Z @ model.coef_, atol=1e-9)
    assert model.intercept_ < 0


def test_coef_only_for_linear_kernels():
    X, y = make_norm_pairs(100, "l1", random_state=1)
    assert not hasattr(SVMCompare().fit(X, y), "coef_")


def test_linear_solver_refuses_nonlinear_kernels():
    X, y = make_norm_pairs(50, "l1", random_state=1)
    with pytest.raises(ValueError, match="solver='linear' needs kernel='linear'"):
        SVMCompare(solver="linear").fit(X, y)
    with pytest.raises(ValueError, match="solver must be one of"):
        SVMCompare(solver="newton").fit(X, y)


def test_linear_solver_reports_beta_nonnegative():
    X, y = make_norm_pairs(400, "l2", equality_fraction=0.05, noise=2.0, random_state=0)
    with pytest.raises(NoRankingError):
        SVMCompare(kernel="linear", C=1.0, class_weight=None, on_degenerate="raise").fit(X, y)


def test_nystroem_approximates_the_exact_rbf_model():
    X, y = make_norm_pairs(800, "l1", random_state=3)
    Xtest, ytest = make_norm_pairs(2000, "l1", random_state=4)
    exact = SVMCompare(C=1.0, gamma=0.5, solver="exact").fit(X, y)
    approx = SVMCompare(C=1.0, gamma=0.5, solver="nystroem", n_components=200,
                        random_state=0).fit(X, y)
    assert approx.solver_ == "nystroem"
    err_exact = np.mean(exact.predict(Xtest) != ytest)
    err_approx = np.mean(approx.predict(Xtest) != ytest)
    assert abs(err_approx - err_exact) < 0.02
    assert np.mean(exact.predict(Xtest) == approx.predict(Xtest)) > 0.95
    # Deterministic given random_state.
    again = SVMCompare(C=1.0, gamma=0.5, solver="nystroem", n_components=200,
                       random_state=0).fit(X, y)
    np.testing.assert_array_equal(again.decision_function(Xtest),
                                  approx.decision_function(Xtest))


def test_auto_solver_choice(monkeypatch):
    import svmcompare._base as base

    X, y = make_norm_pairs(120, "l1", random_state=2)
    assert SVMCompare().fit(X, y).solver_ == "exact"
    assert SVMCompare(kernel="linear").fit(X, y).solver_ == "linear"
    monkeypatch.setattr(base, "AUTO_NYSTROEM_PAIRS", 100)
    assert SVMCompare().fit(X, y).solver_ == "nystroem"


def test_auto_takes_the_dual_for_many_more_features_than_pairs():
    # The primal solver's (p + 1)^2 Hessian took 30 s and 677 MB at p = 5,000
    # with 50 pairs; the dual solves the same problem.
    from svmcompare import SVMCompare

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2, 1500))
    y = np.sign(X[:, 1, :5].sum(1) - X[:, 0, :5].sum(1)).astype(int)
    y[::4] = 0
    auto = SVMCompare(kernel="linear", class_weight="balanced", tol=1e-6).fit(X, y)
    primal = SVMCompare(kernel="linear", class_weight="balanced", solver="linear").fit(X, y)
    assert auto.solver_ == "exact" and primal.solver_ == "linear"
    np.testing.assert_allclose(auto.decision_function(X), primal.decision_function(X),
                               rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("seed", range(6))
def test_primal_bias_interval_against_a_brute_force_scan(seed):
    from svmcompare.solvers._bias import primal_bias_interval

    rng = np.random.default_rng(seed)
    m = 25
    scores = np.round(rng.normal(size=m), 1)  # rounding makes kinks coincide
    y = rng.choice([-1.0, 1.0], size=m)
    C = rng.choice([0.5, 1.0, 2.0], size=m) if seed % 2 else np.ones(m)
    low, high = primal_bias_interval(scores, y, C)

    def objective(beta):
        return float(C @ np.maximum(0.0, 1.0 - y * (beta + scores)))

    grid = np.linspace(-5, 5, 20_001)
    values = np.array([objective(b) for b in grid])
    best = values.min()
    assert objective(low) <= best + 1e-9 and objective(high) <= best + 1e-9
    optimal = grid[values <= best + 1e-9]
    assert optimal.min() >= low - 1e-3 and optimal.max() <= high + 1e-3


@pytest.mark.parametrize("solver", ["exact", "linear"])
def test_linear_fits_do_not_depend_on_the_order_of_the_pairs(solver):
    # Issue 19: with beta not unique, permuting the pairs moved decision values
    # by more than 0.1% or switched between a fit and NoRankingError (here, on
    # small sets with one conflicting duplicate pair: 9 of 800 fits before).
    import warnings

    from svmcompare import SVMCompare

    rng = np.random.default_rng(1)
    for _ in range(100):
        n = int(rng.integers(4, 12))
        X = rng.normal(size=(n, 2, 1))
        y = rng.integers(-1, 2, size=n)
        X = np.concatenate([X, X[:1]])
        y = np.concatenate([y, [(y[0] + 2) % 3 - 1]])  # the same pair, another label
        order = rng.permutation(y.size)
        for class_weight in (None, "balanced"):
            outcomes = []
            for Xo, yo in ((X, y), (X[order], y[order])):
                model = SVMCompare(kernel="linear", solver=solver, tol=1e-8,
                                   class_weight=class_weight)
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        outcomes.append(model.fit(Xo, yo).decision_function(X))
                except ValueError:
                    outcomes.append(None)
            assert (outcomes[0] is None) == (outcomes[1] is None)
            if outcomes[0] is not None:
                np.testing.assert_allclose(outcomes[0], outcomes[1], rtol=1e-3, atol=1e-6)


def test_nystroem_rows_are_the_feature_differences_in_float32(monkeypatch):
    """Rows formed chunk by chunk equal phi(z_b) - phi(z_a) (then the context) to
    float32 rounding, across chunk boundaries; exact polynomial maps keep float64."""
    from svmcompare import _problem
    from svmcompare.kernels import NystroemMap, exact_feature_map

    rng = np.random.default_rng(3)
    X, y = make_norm_pairs(300, "l1", random_state=3)
    context = rng.normal(size=(300, 2))
    Xs = Standardizer.fit(X).transform_pairs(X)
    problem = flip_compare(Xs, y, 1.0, "balanced", context)
    kernel = resolve_kernel("rbf", 0.5, 3, 1.0)
    feature_map = NystroemMap(kernel, 40, random_state=0).fit(problem.items)
    monkeypatch.setattr(_problem, "NYSTROEM_CHUNK", 40 * 7)  # chunks of 7 rows
    D = _problem.nystroem_rows(feature_map, problem)
    features = feature_map.transform(problem.items)
    expected = np.hstack([features[problem.b] - features[problem.a], problem.context])
    assert D.dtype == np.float32 and D.shape == expected.shape
    np.testing.assert_allclose(D, expected, rtol=1e-6, atol=1e-6)
    poly = resolve_kernel("poly", 0.5, 2, 1.0)
    assert exact_feature_map(poly, problem.items, problem.a.size).exact


def test_nystroem_ranking_scores_items_in_chunks_as_all_at_once(monkeypatch):
    """r(z) of an approximate feature map, a chunk of items at a time, equals
    phi(z)^T w over all items at once, across chunk boundaries."""
    from svmcompare import ranking_function

    X, y = make_norm_pairs(300, "l1", random_state=4)
    model = SVMCompare(solver="nystroem", n_components=30, random_state=0).fit(X, y)
    ranking = model.ranking_
    Zs = np.random.default_rng(4).normal(size=(101, 2))
    expected = ranking.feature_map.transform(Zs) @ ranking.weights
    monkeypatch.setattr(ranking_function, "_FEATURE_CHUNK_ELEMENTS", 30 * 8)  # 8 items
    np.testing.assert_allclose(ranking.rank_standardized(Zs), expected, rtol=1e-12,
                               atol=1e-12)


def _identity_pairs(seed, n_pairs=500, players=80, dense=3):
    """Standardized pairs of one-hot identities next to a few dense features:
    their difference rows are mostly zeros."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(size=players)
    first, second = rng.integers(0, players, n_pairs), rng.integers(0, players, n_pairs)
    eye = np.eye(players)
    features = rng.normal(size=(n_pairs, 2, dense))
    X = np.concatenate([features, np.stack([eye[first], eye[second]], axis=1)], axis=2)
    gap = strength[second] - strength[first] + features[:, 1, 0] - features[:, 0, 0]
    gap += rng.logistic(size=n_pairs)
    y = np.where(gap > 0.7, 1, np.where(gap < -0.7, -1, 0))
    return Standardizer.fit(X).transform_pairs(X), y


@pytest.mark.parametrize("bias", [True, False])
def test_the_zone_hessian_over_non_zeros_equals_the_dense_one(bias):
    from svmcompare.solvers import linear

    Xs, y = _identity_pairs(0)
    problem = flip_compare(Xs, y, 1.0)
    D = differences(problem.items, problem.a, problem.b)
    view = linear._sparse_view(D)
    assert view is not None and view.nnz < 0.1 * D.size
    zone = np.random.default_rng(1).random(D.shape[0]) < 0.3
    C = np.random.default_rng(2).uniform(0.5, 2.0, D.shape[0])
    np.testing.assert_allclose(linear._sparse_zone_hessian(view, zone, C, 0.1, bias),
                               linear._zone_hessian(D, zone, C, 0.1, bias),
                               rtol=1e-12, atol=1e-12)
    assert linear._sparse_view(np.ones((50, 20))) is None  # dense rows stay dense


@pytest.mark.parametrize("C", [0.01, 1.0, 100.0])
def test_mostly_zero_rows_reach_the_optimum_of_the_dense_method(C, monkeypatch):
    from svmcompare.solvers import linear

    Xs, y = _identity_pairs(3)
    problem = flip_compare(Xs, y, C)
    D = differences(problem.items, problem.a, problem.b)
    through_view = solve_linear(D, problem.y, problem.C)
    monkeypatch.setattr(linear, "_SPARSE_VIEW_DENSITY", 0.0)
    dense = solve_linear(D, problem.y, problem.C)
    assert through_view.converged and dense.converged
    assert through_view.objective == pytest.approx(dense.objective, rel=1e-9)
    assert through_view.objective == pytest.approx(
        _primal(D, problem.y, problem.C, through_view.u, through_view.bias))
    if C <= 1.0:  # SMO's reference (at C = 100 it crawls on the collinear one-hot)
        exact = solve_dual(problem, resolve_kernel("linear"), bias=True, tol=1e-8)
        optimum = _primal(D, problem.y, problem.C, D.T @ (exact.alpha * problem.y),
                          exact.bias)
        assert through_view.objective == pytest.approx(optimum, rel=1e-6)


def test_newton_step_solves_definite_and_indefinite_systems():
    """The dense Newton step by Cholesky, and by LU where H is not positive
    definite: -H^-1 g either way, with the decrement g^T H^-1 g."""
    from svmcompare.solvers.linear import newton_step

    rng = np.random.default_rng(0)
    A = rng.standard_normal((30, 6))
    g = rng.standard_normal(6)
    for H in (A.T @ A + np.eye(6), np.diag([1.0, -2.0, 3.0, 1.0, 1.0, 1.0])):
        expected = -np.linalg.solve(H, g)
        step, decrement, _ = newton_step(g, H.copy(), 1.0, 1e-3)
        np.testing.assert_allclose(step, expected, rtol=1e-10)
        assert decrement == pytest.approx(-(g @ expected), rel=1e-10)


def _identity_problem(seed, n_ids=25, n=900, C=10.0):
    """Pairs of one-hot ids next to three features: the rows' differences have
    rank 24 (+ 3), and the hinge optimum has far more free rows than that."""
    rng = np.random.default_rng(seed)
    strength, features = rng.normal(size=n_ids), rng.normal(size=(n_ids, 3))
    items = np.hstack([np.eye(n_ids), features])
    a = rng.integers(0, n_ids, n)
    b = (a + rng.integers(1, n_ids, n)) % n_ids
    gap = strength[b] - strength[a] + 0.3 * (features[b] - features[a]).sum(axis=1) \
        + rng.normal(scale=0.8, size=n)
    y = np.where(gap > 0.5, 1, np.where(gap < -0.5, -1, 0))
    return flip_compare(np.stack([items[a], items[b]], axis=1), y, C)


@pytest.mark.parametrize("seed", range(4))
def test_the_active_set_finds_the_hinge_optimum_where_the_guess_fails(seed, monkeypatch):
    # From the smoothed solution at delta = 1e-3 the zone's guess of the free
    # rows fails (collinear one-hot columns: more free rows than independent
    # ones); the active-set method must still end on the hinge optimum: its
    # KKT conditions hold and its objective is the dual's optimum (SMO at
    # tol 1e-9), below the smoothed solution's.
    from svmcompare.solvers import linear

    problem = _identity_problem(seed)
    D = differences(problem.items, problem.a, problem.b)
    yt, Ct = problem.y, problem.C
    with monkeypatch.context() as patch:
        patch.setattr(linear, "_crossover", lambda *args: None)
        smooth = solve_linear(D, yt, Ct, delta_min=1e-3)
    assert smooth.smoothing == 1e-3
    delta, weighted = 1e-3, Ct != 0
    z = yt * (D @ smooth.u + smooth.bias)
    obj = linear._Smoothed(D, yt, Ct, True)
    guess = linear._kkt_guess(obj, (z > 1 - delta) & (z < 1), z <= 1 - delta, weighted)
    assert guess is None or guess[3].any()  # the guess alone is not the optimum
    v, new_z, alpha = linear._active_set(obj, z, delta, weighted, 200)
    u, beta = v[:-1], v[-1]
    np.testing.assert_allclose(u, D.T @ (alpha * yt), rtol=0, atol=1e-9 * Ct.max())
    np.testing.assert_allclose(new_z, yt * (D @ u + beta), rtol=0, atol=1e-9)
    assert np.all((alpha >= 0) & (alpha <= Ct))
    assert abs(yt @ alpha) <= 1e-9 * Ct.sum()
    tol = 1e-7
    assert np.all(alpha[new_z < 1 - tol] == Ct[new_z < 1 - tol])
    assert np.all(alpha[new_z > 1 + tol] == 0.0)
    free = (alpha > 0) & (alpha < Ct)
    np.testing.assert_allclose(new_z[free], 1.0, atol=tol)
    exact = solve_dual(problem, resolve_kernel("linear"), bias=True, tol=1e-9)
    value = _primal(D, yt, Ct, u, beta)
    assert value == pytest.approx(-exact.objective, rel=1e-10)
    assert value < _primal(D, yt, Ct, smooth.u, smooth.bias)


def test_the_active_set_ends_the_levels_early_on_the_same_optimum(monkeypatch):
    # 3,000 pairs of 40 features at C = 10: the zone's guess fails after the
    # level 1e-3 and the active-set method finds the optimum there, so the
    # finer levels' Newton steps are not taken; without it the levels run on
    # to a later guess that holds.  Both end on the hinge optimum.
    from svmcompare.solvers import linear

    Xs, y = _linear_pairs(1, n=3000, p=40)
    problem = flip_compare(Xs, y, 10.0)
    D = differences(problem.items, problem.a, problem.b)
    with_it = solve_linear(D, problem.y, problem.C)
    monkeypatch.setattr(linear, "_ACTIVE_SET_DELTA", -1.0)  # never tried
    without = solve_linear(D, problem.y, problem.C)
    assert with_it.smoothing == without.smoothing == 0.0
    assert with_it.n_iter < without.n_iter
    assert with_it.objective == pytest.approx(without.objective, rel=1e-12)
    np.testing.assert_allclose(with_it.u, without.u, rtol=0, atol=1e-8)


@pytest.mark.parametrize("seed, m, offset, cost", [(10, 800, 3e4, 3.0), (7, 1000, 1e4, 1e3)])
def test_the_crossover_answers_only_with_a_duality_gap_certificate(seed, m, offset, cost):
    # Rows with a large common offset (which the bias absorbs: the optimum is
    # the centred rows'): the margins' check scales with |u| |d_t|, and points
    # above the optimum passed it (2.5e-5 from the active set with the first
    # rows, 1.5e-6 from the guess with the second).  Now the result is within
    # the levels' accuracy of the centred optimum, exact or not.
    rng = np.random.default_rng(seed)
    D0 = rng.normal(size=(m, 6))
    y = np.sign(D0 @ rng.normal(size=6) + rng.normal(size=m))
    C = np.full(m, cost)
    optimum = solve_linear(D0, y, C).objective
    shifted = solve_linear(D0 + offset, y, C)
    assert shifted.objective == pytest.approx(optimum, rel=1e-8)


def test_rows_entering_an_empty_face_together_reach_the_optimum():
    # With a bias one row alone on the face cannot move (y^T d = 0): it must
    # stay while the next violating row joins it, not hand over to another
    # lone row at every round until the rounds run out (review of stop 73:
    # that rule answered 21 of these 40 problems, this one 36).  Every answer
    # is the optimum.
    from svmcompare.solvers import linear

    answered = 0
    for seed in range(20):
        rng = np.random.default_rng(seed)
        D = rng.normal(size=(109, 2))
        y = np.sign(D @ rng.normal(size=2) + rng.normal(size=109))
        y[y == 0] = 1
        for cost in (100.0, 1e4):
            C = np.full(109, cost)
            smooth = _smoothed_at(D, y, C, 1e-3)
            z = y * (D @ smooth.u + smooth.bias)
            solved = linear._active_set(linear._Smoothed(D, y, C, True), z, 1e-3, C != 0, 100)
            if solved is None:
                continue
            answered += 1
            v = solved[0]
            assert _primal(D, y, C, v[:-1], v[-1]) == pytest.approx(
                solve_linear(D, y, C).objective, rel=1e-9)
    assert answered >= 32


def _smoothed_at(D, y, C, delta):
    """The smoothed problem's solution at ``delta`` (no crossover)."""
    from unittest import mock

    from svmcompare.solvers import linear

    with mock.patch.object(linear, "_crossover", lambda *args: None):
        return solve_linear(D, y, C, delta_min=delta)
