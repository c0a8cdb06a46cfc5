"""Linear kernel at scale: SVMCompare(kernel="linear") vs scikit-learn LinearSVC (same run).

Pairs of 16-feature items with a linear latent rank and about 29% ties, as in
the issue's measurement (about 1.29M flipped difference vectors for 1M pairs).
Peers run on the flipped difference vectors of eq. (8) with the same labels
and C: LinearSVC(loss="hinge") (dual coordinate descent, the paper's loss,
intercept_scaling=10 because LIBLINEAR regularizes its bias) and
LinearSVC(loss="squared_hinge", dual=False) (a different loss, for reference).
Every solution is scored with the paper's primal objective (15), bias
unregularized: F(u, beta) = 1/2 ||u||^2 + C sum_t max(0, 1 - y_t (beta + u^T d_t)).

Usage: python benchmarks/bench_linear.py [--pairs 1000000] [--repeats 3] [--skip-hinge]
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import numpy as np

from _harness import measure, peak_rss_mb

P = 16


def make_linear_pairs(n, seed=0):
    rng = np.random.default_rng(seed)
    w = rng.normal(size=P)
    Xi = rng.normal(size=(n, P))
    Xip = Xi + rng.normal(scale=0.5, size=(n, P))
    d = (Xip - Xi) @ w + rng.normal(scale=0.5, size=n)
    y = np.where(d > 0.75, 1, np.where(d < -0.75, -1, 0))
    return np.stack([Xi, Xip], axis=1), y


def _flipped(X, y):
    from svmcompare._problem import Standardizer, flip_compare

    problem = flip_compare(Standardizer.fit(X).transform_pairs(X), y, 1.0)
    return problem.items[problem.b] - problem.items[problem.a], problem.y


def _objective(D, yt, u, beta):
    return float(0.5 * u @ u + np.maximum(0.0, 1.0 - yt * (D @ u + beta)).sum())


def _ours(queue, n):
    from svmcompare import SVMCompare

    X, y = make_linear_pairs(n)
    base = peak_rss_mb()
    start = time.perf_counter()
    # LinearSVC solves the unweighted problem: so do we (not the balanced default).
    model = SVMCompare(kernel="linear", C=1.0, class_weight=None).fit(X, y)
    seconds = time.perf_counter() - start
    mb = peak_rss_mb() - base
    D, yt = _flipped(X, y)
    u = -model.intercept_ * model.weights_  # w = -u / beta (Lemma 1)
    queue.put((seconds, mb, _objective(D, yt, u, model.intercept_)))


def _peer(queue, n, loss):
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC

    X, y = make_linear_pairs(n)
    D, yt = _flipped(X, y)
    if loss == "hinge":
        svc = LinearSVC(loss="hinge", C=1.0, dual=True, intercept_scaling=10, max_iter=5000)
    else:
        svc = LinearSVC(loss="squared_hinge", C=1.0, dual=False)
    base = peak_rss_mb()
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        svc.fit(D, yt)
    seconds = time.perf_counter() - start
    converged = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
    objective = _objective(D, yt, svc.coef_[0], float(svc.intercept_[0]))
    queue.put((seconds, peak_rss_mb() - base, objective, converged))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-hinge", action="store_true",
                        help="skip LinearSVC(loss='hinge'), which takes minutes at 1M pairs")
    args = parser.parse_args()
    X, y = make_linear_pairs(args.pairs)
    m = args.pairs + int(np.count_nonzero(y == 0))
    print(f"{args.pairs:,} pairs, {m:,} flipped difference vectors x {P} features")
    ours = [measure(_ours, args.pairs) for _ in range(args.repeats)]
    t_ours = statistics.median(r[0] for r in ours)
    rows = [("svmcompare linear", t_ours, statistics.median(r[1] for r in ours), ours[0][2],
             True)]
    peers = ["squared_hinge"] + ([] if args.skip_hinge else ["hinge"])
    for loss in peers:
        runs = [measure(_peer, args.pairs, loss) for _ in range(1 if loss == "hinge" else
                                                                   args.repeats)]
        rows.append((f"LinearSVC {loss}", statistics.median(r[0] for r in runs),
                     statistics.median(r[1] for r in runs), runs[0][2], runs[0][3]))
    best = min(r[3] for r in rows)
    print(f"{'solver':<24} {'seconds':>8} {'vs ours':>8} {'peak MB':>8} "
          f"{'objective (15)':>16} {'rel. to best':>12} {'converged':>9}")
    for name, sec, mb, obj, conv in rows:
        print(f"{name:<24} {sec:>8.2f} {sec / t_ours:>7.1f}x {mb:>8.0f} {obj:>16.6f} "
              f"{(obj - best) / best:>12.2e} {conv!s:>9}")


if __name__ == "__main__":
    main()
