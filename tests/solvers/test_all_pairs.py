"""The all-pairs solver for graded items against formed pairs: the materialized
linear solver on the same rows, an interior-point QP on the dual (18), a
brute-force objective; and the graded estimators' pairs="all" path."""

import itertools

import numba
import numpy as np
import pytest
from sklearn.base import clone

from svmcompare import GroupRankSVM, OrdinalSVM, pairwise_transform
from svmcompare._problem import flipped_class_weights
from svmcompare.metrics import kendall_tau_per_group
from svmcompare.pairs import pair_indices, sample_pair_indices
from svmcompare.solvers import all_pairs, solve_linear, solver_threads
from svmcompare.solvers.all_pairs import graded_problem, solve_all_pairs
from tests.reference.dense import dual_objective, solve_dual_reference


def graded_items(n=150, p=4, n_groups=5, seed=0, n_grades=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    score = X @ rng.normal(size=p) + rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, n_grades + 1)[1:-1]))
    groups = rng.integers(0, n_groups, size=n)
    return X, y, groups


def formed_rows(X, y, groups, C, ties, class_weight, weight):
    """The flipped rows of eq. (8) of every within-group pair, written out."""
    rows_a, rows_b, labels = [], [], []
    for i, j in itertools.combinations(range(len(y)), 2):
        if groups[i] != groups[j]:
            continue
        if y[i] != y[j]:
            worse, better = (i, j) if y[i] < y[j] else (j, i)
            rows_a.append(worse), rows_b.append(better), labels.append(1.0)
        elif ties == "keep":
            rows_a += [i, j]
            rows_b += [j, i]
            labels += [-1.0, -1.0]
    a, b, yt = np.array(rows_a), np.array(rows_b), np.array(labels)
    pair_weight = weight[a] * weight[b]
    kappa = flipped_class_weights(yt, class_weight, pair_weight) if ties == "keep" \
        else {1: 1.0, -1: 1.0}
    Cvec = C * np.where(yt > 0, kappa[1], kappa[-1]) * pair_weight
    return X[b] - X[a], yt, Cvec


CASES = [("keep", None, False), ("keep", "balanced", True), ("drop", None, True),
         ("keep", {1: 3.0, -1: 0.5}, False), ("keep", "balanced", False), ("keep", "auto", True)]


@pytest.mark.parametrize("C", [0.03, 3.0])
@pytest.mark.parametrize("ties, class_weight, weighted", CASES)
def test_same_solution_as_the_formed_pairs(C, ties, class_weight, weighted):
    X, y, groups = graded_items(seed=int(C * 10))
    rng = np.random.default_rng(1)
    weight = rng.uniform(0.5, 2.0, size=y.size) if weighted else np.ones(y.size)
    D, yt, Cvec = formed_rows(X, y, groups, C, ties, class_weight, weight)
    bias = ties == "keep"
    ref = solve_linear(D, yt, Cvec, bias=bias)
    problem = graded_problem(X, y, groups, C, ties=ties, class_weight=class_weight,
                             weight=weight if weighted else None)
    got = solve_all_pairs(problem, bias=bias)
    assert got.n_pairs == np.count_nonzero(yt > 0) + np.count_nonzero(yt < 0) // 2
    assert got.objective == pytest.approx(ref.objective, rel=1e-6)
    # The reference minimizes the hinge itself (its crossover), the all-pairs
    # solver to its last smoothing level (margins within 1e-6): u and beta to
    # 1e-5 (where the exact optimum is u = 0, the smoothed one is 7e-7 off).
    scale = max(np.abs(ref.u).max(), 1.0)
    np.testing.assert_allclose(got.u, ref.u, rtol=0, atol=1e-5 * scale)
    assert got.bias == pytest.approx(ref.bias, rel=1e-5, abs=1e-5)
    # The objective it reports is the exact hinge objective at (u, beta), pair by pair.
    margins = yt * (D @ got.u + got.bias)
    brute = 0.5 * got.u @ got.u + Cvec @ np.maximum(0.0, 1.0 - margins)
    assert got.objective == pytest.approx(brute, rel=1e-12)


def test_pair_count():
    X, y, groups = graded_items(n=60)
    for ties in ("keep", "drop"):
        problem = graded_problem(X, y, groups, 1.0, ties=ties)
        first, _, labels = pair_indices(y, groups, ties)
        assert problem.n_pairs == first.size
        assert problem.n_strict == np.count_nonzero(labels)


def test_optimum_of_the_dual_qp():
    """Strong duality: the primal objective reached equals the optimum of the
    dual (18) of the formed rows, solved by an interior-point method."""
    X, y, groups = graded_items(n=40, p=3, n_groups=2, seed=4)
    D, yt, Cvec = formed_rows(X, y, groups, 0.5, "keep", "balanced", np.ones(y.size))
    problem = graded_problem(X, y, groups, 0.5, ties="keep", class_weight="balanced")
    got = solve_all_pairs(problem)
    Q = (yt[:, None] * D) @ (yt[:, None] * D).T
    alpha = solve_dual_reference(Q, yt, Cvec, bias=True)
    optimum = -dual_objective(alpha, Q)
    # Smoothing leaves at most (delta_min / 2) sum C above the optimum.
    assert optimum - 1e-7 <= got.objective <= optimum + 0.5e-6 * Cvec.sum() + 1e-7
    np.testing.assert_allclose(got.u, D.T @ (alpha * yt), atol=1e-4)


def test_same_bits_on_one_thread_and_two():
    X, y, groups = graded_items(n=400, n_groups=8, seed=5)
    problem = graded_problem(X, y, groups, 1.0, ties="keep", class_weight="balanced")
    before = numba.get_num_threads()
    with solver_threads(1):
        one = solve_all_pairs(problem)
    with solver_threads(2):
        two = solve_all_pairs(problem)
    # numba's own count is the caller's again after each solve.
    assert numba.get_num_threads() == before
    np.testing.assert_array_equal(one.u, two.u)
    assert one.bias == two.bias and one.objective == two.objective


def test_numba_loops_take_the_count_solver_threads_set(monkeypatch):
    # The solvers' thread count is svmcompare's own per-thread setting (numba
    # is imported by this solver alone); the solve hands it to numba's loops.
    X, y, groups = graded_items(n=60, n_groups=3, seed=2)
    problem = graded_problem(X, y, groups, 1.0, ties="keep")
    seen = []
    solve = all_pairs._solve

    def spy(*args):
        seen.append(numba.get_num_threads())
        return solve(*args)

    monkeypatch.setattr(all_pairs, "_solve", spy)
    most = numba.config.NUMBA_NUM_THREADS
    before = numba.get_num_threads()
    for n in (1, 2):
        with solver_threads(n):
            solve_all_pairs(problem)
    assert seen == [1, min(2, most)] and numba.get_num_threads() == before


def test_group_rank_svm_all_pairs_is_the_formed_problem():
    """The estimator's fit solves the formed pairs' problem on its standardized items
    and scales r by Lemma 1 (ties kept); without ties, r = u^T z (eq. 3)."""
    X, y, groups = graded_items(n=120, seed=6)
    for ties, cw in (("keep", "balanced"), ("drop", None)):
        model = GroupRankSVM(ties=ties, class_weight=cw, C=0.5, pairs="all").fit(X, y, groups)
        pm = model.pair_model_
        assert pm.solver_ == "all-pairs"
        Z = pm.scaler_.transform_items(X)
        D, yt, Cvec = formed_rows(Z, y, groups, 0.5, ties, cw, np.ones(y.size))
        ref = solve_linear(D, yt, Cvec, bias=ties == "keep")
        assert pm.primal_objective_ == pytest.approx(ref.objective, rel=1e-6)
        scale = 1.0 / -ref.bias if ties == "keep" else 1.0
        np.testing.assert_allclose(pm.weights_, scale * ref.u, rtol=1e-5, atol=1e-8)
        assert model.n_pairs_ == np.count_nonzero(yt > 0) + np.count_nonzero(yt < 0) // 2


def test_all_pairs_ranks_as_well_as_formed_pairs():
    X, y, groups = graded_items(n=600, n_groups=12, seed=7)
    train = groups < 8
    taus = {}
    for mode in ("all", "materialize"):
        model = GroupRankSVM(pairs=mode, ties="keep", class_weight="balanced", C=0.1)
        model.fit(X[train], y[train], groups[train])
        taus[mode] = kendall_tau_per_group(y[~train], model.rank(X[~train]), groups[~train])[0]
    assert taus["all"] >= taus["materialize"] - 0.01
    assert taus["all"] > 0.5


def test_auto_takes_all_pairs_for_the_linear_kernel_only():
    X, y, groups = graded_items(n=80, seed=8)
    assert GroupRankSVM().fit(X, y, groups).pair_model_.solver_ == "all-pairs"
    assert GroupRankSVM(max_pairs_per_group=50).fit(X, y, groups).pair_model_.solver_ \
        == "linear"
    rbf = GroupRankSVM(kernel="rbf", gamma=0.1).fit(X, y, groups)
    assert rbf.pair_model_.solver_ == "exact"
    assert OrdinalSVM().fit(X, y).pair_model_.solver_ == "all-pairs"
    assert OrdinalSVM(pairs="materialize").fit(X, y).pair_model_.solver_ == "linear"


def test_item_weights_are_copies_when_ties_are_dropped():
    X, y, groups = graded_items(n=70, seed=9)
    k = np.random.default_rng(0).integers(1, 4, size=y.size)
    weighted = GroupRankSVM(C=0.3).fit(X, y, groups, sample_weight=k)
    rep = np.repeat(np.arange(y.size), k)
    copies = GroupRankSVM(C=0.3).fit(X[rep], y[rep], groups[rep])
    np.testing.assert_allclose(weighted.rank(X), copies.rank(X), rtol=1e-6, atol=1e-9)
    # A zero weight removes the item.
    w = np.ones(y.size)
    w[:10] = 0
    dropped = GroupRankSVM(C=0.3).fit(X[10:], y[10:], groups[10:])
    np.testing.assert_allclose(GroupRankSVM(C=0.3).fit(X, y, groups, sample_weight=w).rank(X),
                               dropped.rank(X), rtol=1e-6, atol=1e-9)


def test_ordinal_svm_all_pairs():
    X, y, _ = graded_items(n=300, n_groups=1, seed=10, n_grades=4)
    model = OrdinalSVM(ties="keep", C=0.1, thresholds="error").fit(X[:200], y[:200])
    assert model.pair_model_.solver_ == "all-pairs"
    assert model.n_pairs_ == 200 * 199 // 2
    assert np.mean(np.abs(model.predict(X[200:]) - y[200:])) < 0.6


def test_clear_errors():
    X, y, groups = graded_items(n=40, seed=11)
    with pytest.raises(ValueError, match="pairs must be one of"):
        GroupRankSVM(pairs="some").fit(X, y, groups)
    with pytest.raises(ValueError, match="kernel='linear'"):
        GroupRankSVM(pairs="all", kernel="rbf").fit(X, y, groups)
    with pytest.raises(ValueError, match="kernel='linear'"):
        GroupRankSVM(pairs="all", solver="exact").fit(X, y, groups)
    distinct = np.arange(y.size)  # every grade differs: no tie pairs
    with pytest.raises(ValueError, match="share a grade"):
        GroupRankSVM(pairs="all", ties="keep").fit(X, distinct, groups)
    with pytest.raises(ValueError, match="nothing to rank"):
        GroupRankSVM(pairs="all").fit(X, np.zeros(y.size), groups)
    with pytest.raises(ValueError, match="sample_weight"):
        GroupRankSVM().fit(X, y, groups, sample_weight=np.ones(3))
    assert clone(GroupRankSVM(pairs="all")).get_params()["pairs"] == "all"


def test_sample_pair_indices_are_uniform_within_groups():
    y = np.array([0, 1, 2, 0, 1, 0, 0])
    groups = np.array([0, 0, 0, 1, 1, 1, 2])  # group 2 has one item: no pairs
    first, second, labels = sample_pair_indices(y, groups, 60_000, random_state=0)
    assert np.all(groups[first] == groups[second]) and np.all(first != second)
    np.testing.assert_array_equal(labels, np.sign(y[second] - y[first]))
    # 3 + 3 unordered pairs, each drawn in either order: 12 ordered pairs, 1/12 each.
    counts = np.unique(first * 10 + second, return_counts=True)[1]
    assert counts.size == 12
    assert np.all(np.abs(counts / 60_000 - 1 / 12) < 0.01)


def test_pairwise_transform_agrees_with_pair_count():
    X, y, groups = graded_items(n=50, seed=12)
    Xp, _ = pairwise_transform(X, y, groups, ties="keep")
    assert graded_problem(X, y, groups, 1.0, ties="keep").n_pairs == Xp.shape[0]


@pytest.mark.parametrize("ties, class_weight, weighted",
                         [("drop", None, False), ("drop", None, True),
                          ("keep", "balanced", False), ("keep", "balanced", True),
                          ("drop", None, "fractional"), ("keep", None, "fractional")])
def test_all_pairs_and_formed_pairs_are_one_model_with_unequal_queries(ties, class_weight,
                                                                      weighted):
    """Review r9: with queries of unequal size, pairs="all" standardized each item
    once and pairs="materialize" each item once per pair, so the penalty and the
    models differed (coef_ 0.93 / 0.08 / 0.16 against 0.88 / 0.07 / 0.08); the
    docs say they share the objective and the solution."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 3)) * [1, 5, 0.2] + [0, 3, 0]
    groups = rng.integers(0, 12, 120)  # unequal query sizes
    y = np.round(X @ [1, 0.1, 0] + rng.normal(0, 0.3, 120)).clip(-1, 2)
    # Fractional weights too: the variance's correction must count the formed
    # pairs' 2 m stacked items, not the distinct ones (review: scales 0.36% apart).
    weight = rng.uniform(0.05, 0.3, 120) if weighted == "fractional" else \
        rng.integers(1, 4, 120).astype(float) if weighted else None
    fits = {mode: GroupRankSVM(pairs=mode, C=0.01, ties=ties, class_weight=class_weight,
                               tol=1e-6).fit(X, y, groups, sample_weight=weight)
            for mode in ("all", "materialize")}
    scalers = [fits[mode].pair_model_.scaler_ for mode in ("all", "materialize")]
    np.testing.assert_allclose(scalers[0].mean, scalers[1].mean, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(scalers[0].scale, scalers[1].scale, rtol=1e-12)
    np.testing.assert_allclose(fits["all"].coef_, fits["materialize"].coef_, rtol=1e-4,
                               atol=1e-6 * np.abs(fits["materialize"].coef_).max())
    assert fits["all"].n_pairs_ == fits["materialize"].n_pairs_


def test_ordinal_svm_all_pairs_is_the_formed_pairs_model():
    X, y, _ = graded_items(n=150, n_groups=1, seed=13, n_grades=4)
    fits = [OrdinalSVM(pairs=mode, max_pairs=None, C=0.1).fit(X, y)
            for mode in ("all", "materialize")]
    np.testing.assert_allclose(fits[0].pair_model_.scaler_.scale,
                               fits[1].pair_model_.scaler_.scale, rtol=1e-12)
    np.testing.assert_allclose(fits[0].pair_model_.coef_, fits[1].pair_model_.coef_,
                               rtol=1e-4)
    np.testing.assert_array_equal(fits[0].predict(X), fits[1].predict(X))
