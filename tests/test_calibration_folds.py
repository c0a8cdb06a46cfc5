"""The calibration folds of ``probability=True``: training spreads read off the
solver, folds started from the full solution and run side by side in threads.
Each shortcut must give what the plain computation gives."""

import _thread
import threading
import time
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from threadpoolctl import threadpool_info

from svmcompare import SVMCompare, SVMRank, SVMRank2
from svmcompare._parallel import map_in_threads
from svmcompare._problem import Standardizer, flip_compare, flip_rank2, restricted_start
from svmcompare._threshold import fit_threshold
from svmcompare.calibration import cross_validated_scores, score_spread
from svmcompare.datasets import make_norm_pairs
from svmcompare.solvers import interrupt


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
    assert model._fit_spread == pytest.approx(score_spread(model._rank_gap(X)), rel=1e-10)
    # With its signs, the same gaps (plus the context term) choose the threshold
    # of eq. (6) for the baselines and for a degenerate comparison machine.
    if isinstance(model, (SVMRank, SVMRank2)) or model.degenerate_:
        decision = model.decision_function(X, kwargs.get("context"))
        assert model.threshold_ == pytest.approx(fit_threshold(decision, y), rel=1e-9)


def test_primal_fits_have_no_solver_spread_and_compute_it():
    X, y, _, _ = _data()
    model = SVMCompare(kernel="linear").fit(X, y)
    assert model._fit_spread is None
    Xs = model._standardized_pairs(X)
    assert model._training_spread(Xs) == score_spread(model._rank_gap(X))


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
    n, n_sub = 200, 150
    for t in range(sub.m):
        pair, flipped = train[sub.a[t] % n_sub], sub.a[t] >= n_sub
        (match,) = np.flatnonzero((full.a % n == pair) & ((full.a >= n) == flipped))
        assert full.y[match] == sub.y[t]
        assert start[t] <= alpha[match] + 1e-15
    assert np.all(start >= 0) and np.all(start <= sub.C)
    taken = np.minimum(alpha[[np.flatnonzero((full.a % n == train[sub.a[t] % n_sub])
                                             & ((full.a >= n) == (sub.a[t] >= n_sub)))[0]
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
    full = clone(estimator).fit(X, y, context=context, sample_weight=weight)
    prepared = full._prepare(X, y, context, weight)
    result, feature_map = full._solve(prepared)
    start = full._refit_start(prepared, result, feature_map)
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


def test_ctrl_c_stops_the_solves_running_in_fold_threads():
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
