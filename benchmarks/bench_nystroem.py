"""Nystroem RBF at scale, and its accuracy against the exact solver.

Accuracy: on an n_exact-pair training set of the simulated ||x||_1^2 pattern
(half equality), the exact SMO fit and the Nystroem fit (same C, gamma) are
scored on the same large test set.  Scale: the Nystroem fit on n_large pairs
from the same distribution, time and peak memory in a fresh process.

Usage: python benchmarks/bench_nystroem.py [--exact-pairs 20000] [--large-pairs 1000000]
       [--components 100]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from _harness import measure, peak_rss_mb

C, GAMMA = 1.0, 1.0


def _fit(queue, n, solver, components):
    from svmcompare import SVMCompare
    from svmcompare.datasets import make_norm_pairs

    X, y = make_norm_pairs(n, "l1", random_state=0)
    Xtest, ytest = make_norm_pairs(50_000, "l1", random_state=1)
    SVMCompare().fit(X[:50], y[:50])  # compile outside the timing
    base = peak_rss_mb()
    start = time.perf_counter()
    model = SVMCompare(C=C, gamma=GAMMA, solver=solver, n_components=components,
                       class_weight=None, random_state=0).fit(X, y)
    seconds = time.perf_counter() - start
    mb = peak_rss_mb() - base
    pred = model.predict(Xtest)
    queue.put((seconds, mb, float(np.mean(pred != ytest)), pred))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exact-pairs", type=int, default=20_000)
    parser.add_argument("--large-pairs", type=int, default=1_000_000)
    parser.add_argument("--components", type=int, default=100)
    args = parser.parse_args()
    rows = [
        ("exact (SMO)", args.exact_pairs, measure(_fit, args.exact_pairs, "exact",
                                                  args.components)),
        ("nystroem", args.exact_pairs, measure(_fit, args.exact_pairs, "nystroem",
                                               args.components)),
        ("nystroem", args.large_pairs, measure(_fit, args.large_pairs, "nystroem",
                                               args.components)),
    ]
    exact_pred = rows[0][2][3]
    print(f"RBF C={C} gamma={GAMMA}, n_components={args.components}; "
          "test error on 50,000 test pairs")
    print(f"{'solver':<14} {'n pairs':>10} {'seconds':>8} {'peak MB':>8} {'test error':>10} "
          f"{'vs exact':>9} {'same pred':>9}")
    exact_err = rows[0][2][2]
    for name, n, (sec, mb, err, pred) in rows:
        print(f"{name:<14} {n:>10,} {sec:>8.1f} {mb:>8.0f} {100 * err:>9.2f}% "
              f"{100 * (err - exact_err):>+8.2f}pp {100 * np.mean(pred == exact_pred):>8.2f}%")


if __name__ == "__main__":
    main()
