"""Graded items, every within-group pair: the all-pairs solver vs formed pairs (same run).

LETOR-like data: groups of 100 items with 20 features and 5 grades (quintiles
of a linear score plus noise), ties kept, balanced class weights, C = 1.  Ours:
:func:`svmcompare.solvers.all_pairs.solve_all_pairs` through
``GroupRankSVM(pairs="all")``.  The peer solves the same problem by forming
the pairs: ``pairwise_transform`` on the same standardized items, the flipped
rows of eq. (8), and the linear solver on them (what ``pairs="materialize"``
does).  Both objectives are printed (they must agree), with the mean Kendall
tau per group on held-out groups and the peak memory of each process.  The
peer is skipped above ``--peer-max`` items (its rows need O(pairs x p) memory:
16 GB at 1,000,000 items).

Usage: python benchmarks/bench_all_pairs.py [--items 100000 1000000] [--repeats 1]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from _harness import measure, peak_rss_mb

GROUP_SIZE, P, GRADES = 100, 20, 5


def make_graded(n_items, seed=0):
    """Items, grades 0-4 (quintiles of a noisy linear score), groups of 100."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_items, P))
    score = X @ rng.normal(size=P) / np.sqrt(P) * 2 + rng.normal(size=n_items)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, GRADES + 1)[1:-1]))
    groups = np.repeat(np.arange(n_items // GROUP_SIZE), GROUP_SIZE)
    return X, y, groups


def _split(n_items):
    """Training items and held-out groups (a tenth as many, at least 20 groups)."""
    n_test = max(n_items // 10, 20 * GROUP_SIZE)
    X, y, groups = make_graded(n_items + n_test)
    train = slice(0, n_items)
    test = slice(n_items, None)
    return X[train], y[train], groups[train], (X[test], y[test], groups[test])


def _tau(model_rank, test):
    from svmcompare.metrics import kendall_tau_per_group

    Xt, yt, gt = test
    return kendall_tau_per_group(yt, model_rank(Xt), gt)[0]


def _ours(queue, n_items):
    from svmcompare import GroupRankSVM

    X, y, groups, test = _split(n_items)
    model = GroupRankSVM(pairs="all", ties="keep", class_weight="balanced", C=1.0)
    model.fit(X[:2_000], y[:2_000], groups[:2_000])  # load the compiled code before timing
    base = peak_rss_mb()
    start = time.perf_counter()
    model.fit(X, y, groups)
    seconds = time.perf_counter() - start
    mb = peak_rss_mb() - base
    pm = model.pair_model_
    queue.put((seconds, mb, pm.primal_objective_, _tau(model.rank, test), model.n_pairs_))


def _peer(queue, n_items):
    from svmcompare import pairwise_transform
    from svmcompare._problem import Standardizer, flip_compare
    from svmcompare.solvers import solve_linear, solver_threads
    from svmcompare.solvers.linear import differences

    X, y, groups, test = _split(n_items)
    # Ours standardizes as the formed pairs do, each item once per pair: 99 here.
    scaler = Standardizer.fit_items(X, np.full(X.shape[0], GROUP_SIZE - 1.0))
    Z = scaler.transform_items(X)

    def fit(Z, y, groups):
        pairs, labels = pairwise_transform(Z, y, groups, ties="keep")
        problem = flip_compare(pairs, labels, 1.0, "balanced")
        del pairs
        D = differences(problem.items, problem.a, problem.b)
        with solver_threads(None):
            return solve_linear(D, problem.y, problem.C, bias=True), labels.size

    fit(Z[:2_000], y[:2_000], groups[:2_000])  # load the compiled code before timing
    base = peak_rss_mb()
    start = time.perf_counter()
    result, n_pairs = fit(Z, y, groups)
    seconds = time.perf_counter() - start
    mb = peak_rss_mb() - base
    u = result.u

    def rank(Xt):
        return scaler.transform_items(Xt) @ u

    queue.put((seconds, mb, result.objective, _tau(rank, test), n_pairs))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--peer-max", type=int, default=100_000)
    args = parser.parse_args()
    measure(_ours, 2_000)  # compile (numba caches it) before timing
    header = (f"{'items':>9} {'pairs':>11} {'ours s':>8} {'peer s':>8} {'ratio':>6} "
              f"{'ours MB':>8} {'peer MB':>8} {'obj rel diff':>12} {'tau ours':>8} "
              f"{'tau peer':>8}")
    print(header)
    for n in args.items:
        ours = [measure(_ours, n) for _ in range(args.repeats)]
        t_ours = statistics.median(r[0] for r in ours)
        mb_ours = max(r[1] for r in ours)
        _, _, obj, tau, n_pairs = ours[0]
        row = f"{n:>9} {n_pairs:>11} {t_ours:>8.2f} "
        if n <= args.peer_max:
            peer = [measure(_peer, n) for _ in range(args.repeats)]
            t_peer = statistics.median(r[0] for r in peer)
            _, mb_peer, obj_peer, tau_peer, pairs_peer = peer[0]
            assert pairs_peer == n_pairs
            row += (f"{t_peer:>8.2f} {t_peer / t_ours:>5.1f}x {mb_ours:>8.0f} "
                    f"{max(r[1] for r in peer):>8.0f} {abs(obj - obj_peer) / obj_peer:>12.1e} "
                    f"{tau:>8.4f} {tau_peer:>8.4f}")
        else:
            row += f"{'-':>8} {'-':>6} {mb_ours:>8.0f} {'-':>8} {'-':>12} {tau:>8.4f} {'-':>8}"
        print(row, flush=True)


if __name__ == "__main__":
    main()
