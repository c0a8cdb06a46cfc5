"""What probability=True costs over a plain fit, ours and a peer's, in one run.

Ours: ``SVMCompare(probability=True)`` (five calibration folds, each the
fit's own problem without its pairs' rows started from the full solution,
``solvers/folds.py``, run side by side in threads) against the same
estimator without probabilities; the same with ``calibration="loo"``
(leave-one-out estimates from the fit, no refits, where the exact solver's
free set allows; else the folds); and, as the earliest scheme in the same
run, five estimators refitted cold one after another (row folds and
``refit_start`` off, one fold at a time) with its test log-loss.  Peer: the
usual way to get probabilities from an SVM, scikit-learn's own five-fold
Platt scaling on the same binary problem (eq. 8): ``SVC(kernel="precomputed",
probability=True)`` on K~ for RBF, ``CalibratedClassifierCV(LinearSVC(), cv=5)``
on the difference vectors for the linear kernel, each against the same
estimator without calibration.

Each fit runs in a fresh process (peak memory: growth of that process during
the fit).  Scenarios: simulated RBF (6,400 pairs), simulated linear (100,000
pairs), SUSHI preferences (4,000 pairs of 800 people, RBF at the defaults;
skipped when ../shared/data/sushi is absent).

Usage: python benchmarks/bench_probability.py [--repeats 3] [--scenarios rbf linear sushi]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from _harness import measure
from _harness import peak_rss_mb as _rss_mb

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def _data(scenario):
    from svmcompare.datasets import make_norm_pairs

    if scenario == "sushi":
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from bench_real import sushi

        X, y, _, train, test, _, _ = sushi()
        return X[train], y[train], X[test], y[test], {"kernel": "rbf"}
    n = 6_400 if scenario == "rbf" else 100_000
    X, y = make_norm_pairs(n, "l1", random_state=0)
    Xt, yt = make_norm_pairs(4_000, "l1", random_state=1)
    return X, y, Xt, yt, {"kernel": "rbf" if scenario == "rbf" else "linear"}


def _ours(queue, scenario, mode):
    from sklearn.metrics import log_loss

    from svmcompare import SVMCompare

    warnings.simplefilter("ignore")
    X, y, Xt, yt, params = _data(scenario)
    SVMCompare(probability=True, **params).fit(X[:200], y[:200])  # compile outside the timing
    # Weights as when BENCHMARKS.md's table was measured (the default until 0.2);
    # the weighting itself is measured by bench_class_weight.py.
    model = SVMCompare(probability=mode != "plain", random_state=0, class_weight="balanced",
                       **params)
    if mode == "loo":
        model.set_params(calibration="loo")
    if mode == "cold serial folds":
        import svmcompare.calibration.held_out as base

        model.set_params(n_jobs=1)
        base.rows_of_pairs = lambda *args: None  # estimators refitted, not row folds
        base.refit_start = lambda *args: None
    base = _rss_mb()
    start = time.perf_counter()
    model.fit(X, y)
    seconds = time.perf_counter() - start
    if mode == "cold serial folds":
        model.set_params(n_jobs=None)  # predict as the default model does
    loss = log_loss(yt, model.predict_proba(Xt), labels=[-1, 0, 1]) if model.probability \
        else np.nan
    queue.put((seconds, _rss_mb() - base, loss))


def _peer(queue, scenario, calibrated):
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.svm import SVC, LinearSVC

    from svmcompare._problem import Standardizer, flip_compare
    from svmcompare.kernels import resolve_kernel
    from svmcompare.solvers.linear import differences

    warnings.simplefilter("ignore")
    X, y, _, _, params = _data(scenario)
    base = _rss_mb()
    start = time.perf_counter()
    problem = flip_compare(Standardizer.fit(X).transform_pairs(X), y, 1.0, "balanced")
    if params["kernel"] == "linear":
        D = differences(problem.items, problem.a, problem.b)
        model = LinearSVC(C=1.0, dual="auto")
        if calibrated:
            model = CalibratedClassifierCV(model, cv=5)
        model.fit(D, problem.y)
    else:
        K = resolve_kernel("rbf", 1.0).block(problem.items, problem.items)
        a, b = problem.a, problem.b
        Kt = K[np.ix_(b, b)] - K[np.ix_(b, a)] - K[np.ix_(a, b)] + K[np.ix_(a, a)]
        del K
        SVC(kernel="precomputed", C=1.0, probability=calibrated, random_state=0).fit(
            Kt, problem.y)
    queue.put((time.perf_counter() - start, _rss_mb() - base, np.nan))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--scenarios", nargs="+", default=["rbf", "linear", "sushi"])
    args = parser.parse_args()
    print(f"{'scenario':<8} {'fit':<34} {'seconds':>8} {'x plain':>8} {'peak MB':>8} "
          f"{'test log-loss':>13}")
    for scenario in args.scenarios:
        if scenario == "sushi" and not (DATA / "sushi").is_dir():
            print(f"{'sushi':<8} skipped: {DATA / 'sushi'} is absent")
            continue
        rows = [("ours, plain", _ours, "plain"), ("ours, probability=True", _ours, "prob"),
                ("ours, calibration='loo'", _ours, "loo"),
                ("ours, folds cold, one at a time", _ours, "cold serial folds"),
                ("peer, plain", _peer, False), ("peer, five-fold Platt", _peer, True)]
        plain = {}
        for label, target, mode in rows:
            runs = [measure(target, scenario, mode) for _ in range(args.repeats)]
            seconds = statistics.median(r[0] for r in runs)
            memory = statistics.median(r[1] for r in runs)
            loss = statistics.median(r[2] for r in runs)
            who = label.split(",")[0]
            plain.setdefault(who, seconds)
            loss_text = "-" if np.isnan(loss) else f"{loss:.5f}"
            print(f"{scenario:<8} {label:<34} {seconds:>8.2f} {seconds / plain[who]:>7.2f}x "
                  f"{memory:>8.0f} {loss_text:>13}", flush=True)


if __name__ == "__main__":
    main()
