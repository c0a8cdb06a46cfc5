"""Exact RBF SVMCompare fit vs scikit-learn SVC on a precomputed K~ (same run).

Each measurement runs in a fresh process so that peak memory (ru_maxrss, less
the process's footprint after imports and data generation) belongs to one fit.
The peer's time includes building K~ = M^T K M from the item kernel, which it
needs and which is where the reference R package spends most of its time.

Usage: python benchmarks/bench_exact.py [--sizes 800 1600 3200] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from _harness import measure
from _harness import peak_rss_mb as _rss_mb


def _data(n):
    from svmcompare.datasets import make_norm_pairs

    X, y = make_norm_pairs(n, "l1", random_state=0)
    Xtest, _ = make_norm_pairs(2000, "l1", random_state=1)
    return X, y, Xtest


def _ours(queue, n):
    from svmcompare import SVMCompare

    X, y, Xtest = _data(n)
    SVMCompare().fit(X[:50], y[:50])  # compile outside the timing
    base = _rss_mb()
    start = time.perf_counter()
    model = SVMCompare(C=1.0, gamma=1.0).fit(X, y)
    seconds = time.perf_counter() - start
    queue.put((seconds, _rss_mb() - base, model.dual_objective_, model.predict(Xtest)))


def _peer(queue, n):
    from sklearn.svm import SVC

    from svmcompare._pairs import Standardizer, flip_compare
    from svmcompare.kernels import resolve_kernel

    X, y, Xtest = _data(n)
    base = _rss_mb()
    start = time.perf_counter()
    scaler = Standardizer.fit(X)
    problem = flip_compare(scaler.transform_pairs(X), y, 1.0)
    K = resolve_kernel("rbf", 1.0).block(problem.items, problem.items)
    a, b = problem.a, problem.b
    Kt = K[np.ix_(b, b)] - K[np.ix_(b, a)] - K[np.ix_(a, b)] + K[np.ix_(a, a)]
    del K
    svc = SVC(kernel="precomputed", C=1.0, tol=1e-3, cache_size=200).fit(Kt, problem.y)
    seconds = time.perf_counter() - start
    alpha = np.zeros(problem.m)
    alpha[svc.support_] = np.abs(svc.dual_coef_[0])
    v = alpha * problem.y
    objective = 0.5 * v @ Kt @ v - alpha.sum()
    # Predictions by eq. (19) from the SVC solution.
    kernel = resolve_kernel("rbf", 1.0)
    sv = svc.support_
    coef = svc.dual_coef_[0] / svc.intercept_[0]
    Ea, Eb = problem.items[a[sv]], problem.items[b[sv]]

    def rank(Z):
        Zs = scaler.transform_items(Z)
        return (kernel.block(Zs, Ea) - kernel.block(Zs, Eb)) @ coef

    diff = rank(Xtest[:, 1]) - rank(Xtest[:, 0])
    pred = np.where(diff > 1, 1, np.where(diff < -1, -1, 0))
    queue.put((seconds, _rss_mb() - base, objective, pred))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[800, 1600, 3200])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"{'n pairs':>8} {'ours s':>8} {'peer s':>8} {'time ratio':>10} "
          f"{'ours MB':>8} {'peer MB':>8} {'mem ratio':>9} {'obj rel diff':>12} {'same pred':>9}")
    for n in args.sizes:
        ours = [measure(_ours, n) for _ in range(args.repeats)]
        peer = [measure(_peer, n) for _ in range(args.repeats)]
        t_ours = statistics.median(r[0] for r in ours)
        t_peer = statistics.median(r[0] for r in peer)
        m_ours = statistics.median(r[1] for r in ours)
        m_peer = statistics.median(r[1] for r in peer)
        rel = abs(ours[0][2] - peer[0][2]) / abs(peer[0][2])
        same = np.mean(ours[0][3] == peer[0][3])
        print(f"{n:>8} {t_ours:>8.3f} {t_peer:>8.3f} {t_peer / t_ours:>9.1f}x "
              f"{m_ours:>8.1f} {m_peer:>8.1f} {m_peer / max(m_ours, 0.1):>8.1f}x "
              f"{rel:>12.2e} {100 * same:>8.2f}%", flush=True)


if __name__ == "__main__":
    main()
