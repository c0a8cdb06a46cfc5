"""Exact RBF SVMCompare fit vs scikit-learn SVC on a precomputed K~ (same run).

Each measurement runs in a fresh process so that peak memory (ru_maxrss, less
the process's footprint after imports and data generation) belongs to one fit.
The peer's time includes building K~ = M^T K M from the item kernel, which it
needs and which is where the reference R package spends most of its time.

Ours is timed with and without shrinking; the peer is LIBSVM with its
default shrinking.

Usage: python benchmarks/bench_exact.py [--sizes 800 1600 3200] [--Cs 1 100]
       [--repeats 3] [--peer-max 6400] [--n-jobs 1]
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


def _ours(queue, n, C, shrinking, n_jobs=None):
    from svmcompare import SVMCompare

    X, y, Xtest = _data(n)
    SVMCompare().fit(X[:50], y[:50])  # compile outside the timing
    base = _rss_mb()
    start = time.perf_counter()
    # The peer (SVC on K~) has no class weights: the paper's problem on both sides.
    model = SVMCompare(C=C, gamma=1.0, shrinking=shrinking, class_weight=None,
                       solver="exact", n_jobs=n_jobs).fit(X, y)
    seconds = time.perf_counter() - start
    queue.put((seconds, _rss_mb() - base, model.dual_objective_, model.predict(Xtest)))


def _peer(queue, n, C):
    from sklearn.svm import SVC

    from svmcompare._problem import Standardizer, flip_compare
    from svmcompare.kernels import resolve_kernel

    X, y, Xtest = _data(n)
    base = _rss_mb()
    start = time.perf_counter()
    scaler = Standardizer.fit(X)
    problem = flip_compare(scaler.transform_pairs(X), y, C)
    K = resolve_kernel("rbf", 1.0).block(problem.items, problem.items)
    a, b = problem.a, problem.b
    Kt = K[np.ix_(b, b)] - K[np.ix_(b, a)] - K[np.ix_(a, b)] + K[np.ix_(a, a)]
    del K
    svc = SVC(kernel="precomputed", C=C, tol=1e-3, cache_size=200).fit(Kt, problem.y)
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
    parser.add_argument("--Cs", type=float, nargs="+", default=[1.0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--peer-max", type=int, default=6400,
                        help="largest n for the peer (it needs m^2 doubles)")
    parser.add_argument("--n-jobs", type=int, default=None,
                        help="threads of our solver (default: every core)")
    args = parser.parse_args()
    print(f"{'C':>6} {'n pairs':>8} {'ours s':>8} {'no-shrink s':>11} {'peer s':>8} "
          f"{'time ratio':>10} {'ours MB':>8} {'peer MB':>8} {'mem ratio':>9} "
          f"{'obj rel diff':>12} {'same pred':>9}")
    for C in args.Cs:
        for n in args.sizes:
            ours = [measure(_ours, n, C, True, args.n_jobs) for _ in range(args.repeats)]
            plain = [measure(_ours, n, C, False, args.n_jobs) for _ in range(args.repeats)]
            t_ours = statistics.median(r[0] for r in ours)
            t_plain = statistics.median(r[0] for r in plain)
            m_ours = statistics.median(r[1] for r in ours)
            row = f"{C:>6g} {n:>8} {t_ours:>8.3f} {t_plain:>11.3f} "
            if n > args.peer_max:
                rel = abs(ours[0][2] - plain[0][2]) / abs(plain[0][2])
                same = np.mean(ours[0][3] == plain[0][3])
                print(row + f"{'-':>8} {'-':>10} {m_ours:>8.1f} {'-':>8} {'-':>9} "
                      f"{rel:>12.2e} {100 * same:>8.2f}% (vs no-shrink)", flush=True)
                continue
            peer = [measure(_peer, n, C) for _ in range(args.repeats)]
            t_peer = statistics.median(r[0] for r in peer)
            m_peer = statistics.median(r[1] for r in peer)
            rel = abs(ours[0][2] - peer[0][2]) / abs(peer[0][2])
            same = np.mean(ours[0][3] == peer[0][3])
            print(row + f"{t_peer:>8.3f} {t_peer / t_ours:>9.1f}x {m_ours:>8.1f} {m_peer:>8.1f} "
                  f"{m_peer / max(m_ours, 0.1):>8.1f}x {rel:>12.2e} {100 * same:>8.2f}%",
                  flush=True)


if __name__ == "__main__":
    main()
