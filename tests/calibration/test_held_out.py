"""The held-out rank gaps of probability=True (calibration/held_out.py).

The estimator's calibration folds as sub-problems of its own fit (the dual's
or the primal's rows without each fold's), their training spreads read off
the solver, starts from the full fit, threads, interruption and warnings.
Each shortcut must give what the plain computation gives."""

import _thread
import threading
import time
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold
from threadpoolctl import threadpool_info

from svmcompare import SVMCompare, SVMRank, SVMRank2
from svmcompare._base import fit_solution, prepare, primal_rows, solve, training_spread
from svmcompare._parallel import map_in_threads
from svmcompare._problem import Standardizer, flip_compare, flip_rank2, restricted_start
from svmcompare._threshold import fit_threshold
from svmcompare.calibration import held_out as held_out_gaps
from svmcompare.calibration.held_out import cross_validated_scores
from svmcompare.datasets import make_norm_pairs
from svmcompare.kernels import resolve_kernel
from svmcompare.ranking_function import rank_gap, score_spread, standardized_pairs
from svmcompare.solvers import interrupt, solve_dual, solve_linear
from svmcompare.solvers.dual_cd import solve_linear_rows
from svmcompare.solvers.folds import (
    fold_start,
    refit_primal_without,
    subproblem,
)
from svmcompare.solvers.loo import kernel_rows

from ..solvers.test_folds import _problems, _split
from ..solvers.test_loo import _pairs

KERNEL = resolve_kernel("rbf", 0.5)
TOL = 1e-9


def _repeated_items(seed, n, distinct=12, p=3):
    """Pairs of ``n`` comparisons among ``distinct`` items (as identities
    repeat): the binary problem keeps each item once."""
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(distinct, p))
    first = rng.integers(0, distinct, n)
    second = (first + rng.integers(1, distinct, n)) % distinct
    score = base @ np.array([1.0, -0.5, 0.3])
    d = score[second] - score[first] + rng.logistic(scale=0.3, size=n)
    return np.stack([base[first], base[second]], 1), np.where(d > 0.4, 1,
                                                              np.where(d < -0.4, -1, 0))


DATA = {"features": lambda seed, n: _pairs(seed, n), "repeated items": _repeated_items}


def _linear_signal(seed, n, p=3):
    """Pairs of distinct items whose labels follow a linear rank (``_pairs``'
    labels are noise: a linear fit's u is 0 there, and its gaps rounding)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2, p))
    d = (X[:, 1] - X[:, 0]) @ np.array([1.0, -0.5, 0.3]) + rng.logistic(scale=0.3, size=n)
    return X, np.where(d > 0.4, 1, np.where(d < -0.4, -1, 0))


# The primal solvers' folds: data with a linear signal.
PRIMAL_DATA = {"features": _linear_signal, "repeated items": _repeated_items}


@pytest.mark.parametrize("data", list(DATA))
@pytest.mark.parametrize("estimator", [SVMCompare(tol=1e-9), SVMRank2(tol=1e-9)],
                         ids=["compare", "rank2"])
def test_probability_folds_are_the_fits_dual_without_each_folds_rows(estimator, data):
    X, y = DATA[data](9, 150)
    context = np.random.default_rng(9).choice([-1.0, 0.0, 1.0], size=(y.size, 1))
    model = estimator.set_params(random_state=0, n_jobs=2)
    prepared, result, _ = fit_solution(model, X, y, context)
    held, spreads = held_out_gaps.row_fold_gaps(model, prepared, result)
    problem, n = prepared.problem, y.size
    assert problem.items.shape[0] == (12 if data == "repeated items" else 2 * n)
    block, _ = kernel_rows(problem, prepared.kernel)
    pair = problem.pair
    _, first = np.unique(pair, return_index=True)
    for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
        # The plain computation: a cold solve of the rows of the training
        # pairs, then r(x') - r(x) of every pair by K~ (less the context term).
        keep = np.flatnonzero(np.isin(pair, train))
        fold = solve_dual(subproblem(problem, keep), prepared.kernel,
                          bias=model.problem_kind.bias, tol=1e-9)
        coef = problem.y[keep] * fold.alpha
        v = problem.context[keep].T @ coef
        rows = first[np.arange(n)]
        gap = block(rows, keep) @ coef - problem.context[rows] @ v
        gap = np.where(problem.flipped[rows], -gap, gap)
        tolerance = 1e-6 * np.abs(gap).max()
        np.testing.assert_allclose(held[test], gap[test], atol=tolerance)
        spread = np.sqrt(np.mean(gap[train] ** 2))
        np.testing.assert_allclose(spreads[test], spread, rtol=1e-6)


def test_svmrank_with_ties_refits_its_folds(monkeypatch):
    # SVMRank has no row for a tie pair: its folds are refitted estimators.
    X, y = _pairs(10, 150)
    assert np.any(y == 0)

    def no_row_folds(*args):
        raise AssertionError("SVMRank's tie pairs have no rows to leave out")

    monkeypatch.setattr(held_out_gaps, "row_fold_gaps", no_row_folds)
    model = SVMRank(probability=True, random_state=0).fit(X, y)
    assert model.calibration_ == "5-fold"
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.ptp(proba[:, 2]) > 0.05  # probabilities that depend on the pair


@pytest.mark.parametrize("params", [{"kernel": "linear"},
                                    {"kernel": "rbf", "solver": "nystroem", "n_components": 30}],
                         ids=["linear", "nystroem"])
@pytest.mark.parametrize("data", list(PRIMAL_DATA))
def test_primal_probability_folds_are_the_fits_problem_without_each_folds_rows(params, data):
    X, y = PRIMAL_DATA[data](11, 300)
    context = np.random.default_rng(11).choice([-1.0, 0.0, 1.0], size=(y.size, 1))
    model = SVMCompare(tol=1e-6, random_state=0, n_jobs=2, **params)
    prepared, result, _ = fit_solution(model, X, y, context)
    held, spreads = held_out_gaps.row_fold_gaps(model, prepared, result)
    problem = prepared.problem
    D = primal_rows(prepared)  # the fit's features: Nystroem's landmarks kept
    pair = problem.pair
    _, first = np.unique(pair, return_index=True)
    for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
        # The plain computation: a cold solve of the rows of the training
        # pairs (by the solver the fit itself takes for such rows), then u^T d
        # of each pair's first row less the context term, signed by the row's
        # orientation.
        keep = np.flatnonzero(np.isin(pair, train))
        fold = solve_linear_rows(D[keep], problem.y[keep], problem.C[keep], tol=1e-6)
        gap = D[first] @ fold.u - problem.context[first] @ fold.u[-1:]
        gap = np.where(problem.flipped[first], -gap, gap)
        tolerance = 1e-4 * np.abs(gap).max()
        np.testing.assert_allclose(held[test], gap[test], atol=tolerance)
        spread = np.sqrt(np.mean(gap[train] ** 2))
        np.testing.assert_allclose(spreads[test], spread, rtol=1e-4)


def test_primal_folds_reach_the_cold_optimum_in_fewer_steps():
    X, y = _pairs(12, 2000)
    model = SVMCompare(kernel="linear", random_state=0)
    prepared, result, _ = fit_solution(model, X, y)
    problem = prepared.problem
    D = primal_rows(prepared)
    keep = np.flatnonzero(np.random.default_rng(0).random(problem.y.size) < 0.8)
    v = np.append(result.u, result.bias)
    warm = refit_primal_without(D, problem.y, problem.C, v, keep)
    cold = solve_linear(D[keep], problem.y[keep], problem.C[keep])
    assert warm.objective == pytest.approx(cold.objective, rel=1e-7)
    assert warm.n_iter < cold.n_iter


def test_fold_starts_read_the_fits_rows_and_release_them(monkeypatch):
    problem, bias, n = _problems(8)["compare, class weights, context, pair weights"]
    full = solve_dual(problem, KERNEL, bias=bias, tol=TOL, keep_rows=True)
    keep, held_out = _split(problem, n, seed=3)
    read = fold_start(problem, KERNEL, full.alpha, full.gradient, keep, held_out, bias=bias,
                      rows=full.rows)
    computed = fold_start(problem, KERNEL, full.alpha, full.gradient, keep, held_out,
                          bias=bias)
    np.testing.assert_array_equal(read.alpha0, computed.alpha0)
    scale = np.abs(computed.gradient0).max()
    np.testing.assert_allclose(read.gradient0, computed.gradient0, atol=1e-12 * scale)
    np.testing.assert_allclose(read.held_out_base, computed.held_out_base, atol=1e-12 * scale)
    full.rows.release()
    assert full.rows.data is None
    after = fold_start(problem, KERNEL, full.alpha, full.gradient, keep, held_out, bias=bias,
                       rows=full.rows)  # released: computed from the items again
    np.testing.assert_array_equal(after.gradient0, computed.gradient0)
    # A probability fit keeps its rows for the folds' starts and then drops them.
    model = SVMCompare(probability=True, random_state=0)
    kept = []
    original = held_out_gaps.dual_refit

    def spy(model, prepared, result, *args):
        refit = original(model, prepared, result, *args)
        kept.append(result.rows)
        return refit
    monkeypatch.setattr(held_out_gaps, "dual_refit", spy)
    X, y = _pairs(8, 150)
    model.fit(X, y)
    assert len(kept) == 1 and kept[0] is not None and kept[0].data is None
    # Fits whose folds do not read them keep no rows: plain, leave-one-out.
    for plain in (SVMCompare(), SVMCompare(probability=True, calibration="loo")):
        prepared, result, _ = fit_solution(plain, X, y)
        assert result.rows is None


def _data(n=300, seed=0):
    X, y = make_norm_pairs(n, "l1", random_state=seed)
    rng = np.random.default_rng(seed)
    return X, y, rng.choice([-1.0, 0.0, 1.0], size=(n, 1)), rng.uniform(0.5, 2.0, n)


@pytest.mark.parametrize("estimator", [
    SVMCompare(), SVMCompare(C=100.0, class_weight=None), SVMRank(), SVMRank2(),
    SVMCompare(kernel="poly", degree=2, solver="exact"),
], ids=["compare", "compare-C100-unweighted", "rank", "rank2", "poly-exact"])
@pytest.mark.parametrize("extra", ["none", "context", "weights"])
def test_training_spread_from_the_gradient_equals_the_rank_gaps(estimator, extra):
    X, y, context, weight = _data()
    kwargs = {"none": {}, "context": {"context": context},
              "weights": {"sample_weight": weight}}[extra]
    model = clone(estimator).fit(X, y, **kwargs)
    assert model._fit_spread is not None  # the exact solver's shortcut was taken
    # The plain computation: kernel blocks of every training pair (SVMRank's
    # equality pairs have no row and are computed in both).
    assert model._fit_spread == pytest.approx(score_spread(rank_gap(model, X)), rel=1e-10)
    # With its signs, the same gaps (plus the context term) choose the threshold
    # of eq. (6) for the baselines and for a degenerate comparison machine.
    if isinstance(model, (SVMRank, SVMRank2)) or model.degenerate_:
        decision = model.decision_function(X, kwargs.get("context"))
        assert model.threshold_ == pytest.approx(
            fit_threshold(decision, y, kwargs.get("sample_weight")), rel=1e-9)


def test_primal_fits_have_no_solver_spread_and_compute_it():
    X, y, _, _ = _data()
    model = SVMCompare(kernel="linear").fit(X, y)
    assert model._fit_spread is None
    Xs = standardized_pairs(model, X)
    assert training_spread(model, Xs) == score_spread(rank_gap(model, X))


@pytest.mark.parametrize("build", [flip_compare, flip_rank2])
def test_restricted_start_takes_each_rows_alpha_and_is_feasible(build):
    X, y, _, _ = _data(200)
    rng = np.random.default_rng(1)
    full = build(Standardizer.fit(X).transform_pairs(X), y, 1.0)
    alpha = rng.uniform(0.0, 1.0, full.m) * full.C
    train = np.sort(rng.choice(200, 150, replace=False))
    sub = build(Standardizer.fit(X[train]).transform_pairs(X[train]), y[train], 1.0)
    bias = build is flip_compare  # rank2's RankSVM has no bias, no y^T alpha = 0
    start = restricted_start(alpha, full, sub, train, bias)
    # Brute force: the full row with the same pair and the same orientation.
    for t in range(sub.m):
        pair, flipped = train[sub.pair[t]], sub.flipped[t]
        (match,) = np.flatnonzero((full.pair == pair) & (full.flipped == flipped))
        assert full.y[match] == sub.y[t]
        assert start[t] <= alpha[match] + 1e-15
    assert np.all(start >= 0) and np.all(start <= sub.C)
    taken = np.minimum(alpha[[np.flatnonzero((full.pair == train[sub.pair[t]])
                                             & (full.flipped == sub.flipped[t]))[0]
                              for t in range(sub.m)]], sub.C)
    if not bias:
        np.testing.assert_array_equal(start, taken)
        return
    assert start.sum() > 0
    assert abs(sub.y @ start) < 1e-9 * start.sum()
    # Only the heavy side of y^T alpha = 0 moved, the light side kept its alphas.
    kept = np.isclose(start, taken, rtol=0, atol=0)
    assert np.all(kept[sub.y > 0]) or np.all(kept[sub.y < 0])


@pytest.mark.parametrize("estimator", [
    SVMCompare(tol=1e-8), SVMRank(tol=1e-8), SVMCompare(kernel="linear", tol=1e-8)])
def test_started_folds_in_threads_match_cold_serial_folds(estimator):
    X, y, context, weight = _data(400, seed=2)
    if estimator.kernel == "linear":  # a squared-norm rank has no linear part: u = 0
        X, y = _linear_signal(2, 400)
    full = clone(estimator).fit(X, y, context=context, sample_weight=weight)
    prepared = prepare(full, X, y, context, weight)
    result, feature_map = solve(full, prepared)
    start = held_out_gaps.refit_start(full, prepared, result, feature_map)
    assert start is not None
    cold, cold_spreads = cross_validated_scores(
        clone(estimator).set_params(n_jobs=1), X, y, random_state=0, context=context,
        sample_weight=weight)
    warm, warm_spreads = cross_validated_scores(
        clone(estimator).set_params(n_jobs=2), X, y, random_state=0, context=context,
        sample_weight=weight, start=start)
    # The same fold optima, reached from another start (to the solvers' tolerance).
    np.testing.assert_allclose(warm, cold, rtol=1e-5, atol=1e-6 * np.abs(cold).max())
    np.testing.assert_allclose(warm_spreads, cold_spreads, rtol=1e-5)


def test_fold_threads_do_not_change_the_probabilities():
    X, y, context, _ = _data(400, seed=4)
    one = SVMCompare(probability=True, calibration="cv", n_jobs=1,
                     random_state=0).fit(X, y, context=context)
    two = SVMCompare(probability=True, calibration="cv", n_jobs=2,
                     random_state=0).fit(X, y, context=context)
    # Every fold is the same computation on either number of threads.
    np.testing.assert_array_equal(one.predict_proba(X, context), two.predict_proba(X, context))


def test_blas_threads_are_restored_after_folds_in_threads():
    before = [info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"]
    X, y, _, _ = _data(300)
    SVMCompare(kernel="linear", probability=True, n_jobs=2).fit(X, y)
    SVMCompare(probability=True, calibration="cv", n_jobs=2).fit(X, y)
    after = [info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"]
    assert after == before


def test_map_in_threads_keeps_order_and_raises_the_first_error():
    assert map_in_threads(lambda k: k * k, range(7), 3) == [k * k for k in range(7)]

    def fails_on_three(k):
        if k == 3:
            raise ValueError("three")
        return k

    with pytest.raises(ValueError, match="three"):
        map_in_threads(fails_on_three, range(6), 2)


def test_ctrl_c_stops_the_solves_running_in_fold_threads(ctrl_c):
    # Two fits that would run for minutes (see test_interrupt.py), in threads;
    # Ctrl-C reaches the main thread only, which must stop both SMO loops.
    X, y = make_norm_pairs(600, "l1", random_state=0)
    # 10^7 steps (~80 s): uninterrupted, the test fails instead of hanging the run.
    long = SVMCompare(kernel="poly", gamma=16.0, degree=3, C=1e5, tol=1e-12,
                      max_iter=10**7, solver="exact", n_jobs=1)
    with warnings.catch_warnings():  # compiled first (Newton steps too): a Ctrl-C that
        warnings.simplefilter("ignore")  # lands in a first compile can be lost
        clone(long).set_params(max_iter=20_000).fit(X[:300], y[:300])
    timer = threading.Timer(1.0, _thread.interrupt_main)
    started = time.perf_counter()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        map_in_threads(lambda seed: clone(long).fit(X, y), [0, 1], 2)
    timer.join()
    assert time.perf_counter() - started < 30.0  # uninterrupted: many minutes
    assert interrupt.running_solves() == 0  # no loop left behind


@pytest.mark.parametrize("stopped", ["another group", "its group"])
def test_stopping_a_group_stops_only_its_solves(stopped):
    # A solve started outside map_in_threads (group None: another user's fit in
    # their own thread) runs on when another group is stopped.
    from sklearn.exceptions import ConvergenceWarning

    X, y = make_norm_pairs(300, "l1", random_state=0)
    steps = 400_000
    model = SVMCompare(kernel="poly", gamma=16.0, degree=3, C=1e5, tol=1e-12, max_iter=steps,
                       solver="exact", n_jobs=1)
    thread = threading.Thread(target=lambda: model.fit(X, y))
    with pytest.warns(ConvergenceWarning):  # (raised in the thread, recorded here)
        thread.start()
        deadline = time.perf_counter() + 30.0
        while (not interrupt.running_solves() and thread.is_alive()
               and time.perf_counter() < deadline):
            time.sleep(0.001)
        assert interrupt.running_solves(), "the fit never reached its worker thread"
        interrupt.stop_running_solves(object() if stopped == "another group" else None)
        thread.join()
    if stopped == "another group":
        assert model.n_iter_ == steps
    else:
        assert model.n_iter_ < steps


@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("calibration", ["loo", "cv"])
def test_a_degenerate_probability_fit_warns_once_not_once_per_fold(n_jobs, calibration):
    import warnings

    from svmcompare.exceptions import DegenerateWarning

    # The data of test_compare's degenerate case: beta >= 0 without class weights.
    X, y = make_norm_pairs(300, "l2", equality_fraction=0.1, noise=1.0, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = SVMCompare(class_weight=None, probability=True, calibration=calibration,
                           n_jobs=n_jobs, random_state=0).fit(X, y)
    degenerate = [w for w in caught if issubclass(w.category, DegenerateWarning)]
    assert model.degenerate_ and len(degenerate) == 1
    assert degenerate[0].filename == __file__  # points at the caller's line
    # The silencing was per thread and is over: a plain degenerate fit warns.
    with pytest.warns(DegenerateWarning):
        SVMCompare(class_weight=None).fit(X, y)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_verbose_shows_the_calibration_folds_and_changes_nothing(capsys, monkeypatch, n_jobs):
    X, y, _, _ = _data(300)
    quiet = SVMCompare(probability=True, calibration="cv", n_jobs=n_jobs,
                       random_state=0).fit(X, y)
    assert "calibration folds" not in capsys.readouterr().err
    monkeypatch.setattr(interrupt, "PROGRESS_AFTER", 0.0)  # draw at once
    loud = SVMCompare(probability=True, calibration="cv", n_jobs=n_jobs, random_state=0,
                      verbose=True).fit(X, y)
    err = capsys.readouterr().err
    assert "calibration folds" in err and "/5 " in err  # a bar over the five folds
    np.testing.assert_array_equal(loud.predict_proba(X), quiet.predict_proba(X))


def test_map_in_threads_reports_each_finished_call():
    for workers in (1, 3):
        seen = []
        map_in_threads(lambda k: time.sleep(0.01 * k), range(4), workers, seen.append)
        assert seen == sorted(set(seen)) and seen[-1] == 4


def test_the_folds_gram_matrix_of_a_callable_kernel_comes_out_of_cache_size(monkeypatch):
    # The folds' solvers do not count a Gram matrix they are given; the one the
    # folds share for a callable kernel is counted against their cache_size
    # instead, so that the fit keeps to cache_size in all.
    X, y = make_norm_pairs(120, "l2", random_state=0)
    seen = []
    original = held_out_gaps.refit_from

    def recording(*args, **kwargs):
        seen.append((kwargs["cache_size"], kwargs["gram"].nbytes / 2**20))
        return original(*args, **kwargs)

    monkeypatch.setattr(held_out_gaps, "refit_from", recording)

    def kernel(A, B):
        return np.exp(-0.5 * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))

    cache = 2.0
    SVMCompare(kernel=kernel, probability=True, calibration="cv", n_jobs=1,
               cache_size=cache).fit(X, y)
    assert len(seen) == 5
    for fold_cache, gram_mb in seen:
        assert fold_cache == pytest.approx(max(0.0, cache - gram_mb))
        assert fold_cache < cache


def test_folds_skip_coordinate_descent_where_the_full_fit_needed_newton(monkeypatch):
    """A linear fit whose coordinate descent failed (Newton's method solved it)
    refits its calibration folds by Newton's method directly: no fold tries
    the passes again, and the probabilities are those of folds that tried
    them first (their failed result was thrown away)."""
    from svmcompare.solvers import dual_cd, folds

    X, y = make_norm_pairs(400, "l1", equality_fraction=0.3, noise=0.5, random_state=3)
    original = dual_cd.solve_linear_dual
    attempts = []

    def counted(*args, **kwargs):
        result = original(*args, **kwargs)
        attempts.append(result.converged)
        return result

    monkeypatch.setattr(dual_cd, "solve_linear_dual", counted)
    settings = dict(kernel="linear", solver="linear", C=100.0, probability=True,
                    calibration="cv", random_state=0)  # folds, not in-sample gaps
    model = SVMCompare(**settings).fit(X, y)
    assert attempts == [False], "the full fit tries coordinate descent once, then Newton"
    # The old way: every fold tries coordinate descent first.
    always = folds.solve_linear_rows
    monkeypatch.setattr(folds, "solve_linear_rows",
                        lambda *args, **kwargs: always(*args, **{**kwargs, "try_dual": True}))
    attempts.clear()
    tried = SVMCompare(**settings).fit(X, y)
    assert len(attempts) > 1 and not any(attempts)
    Xtest, _ = make_norm_pairs(200, "l1", random_state=4)
    np.testing.assert_array_equal(model.predict_proba(Xtest), tried.predict_proba(Xtest))
