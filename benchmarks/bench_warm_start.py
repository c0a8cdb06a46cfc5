"""A week of new results: the squared hinge refitted from the solution before
it, against a cold refit, on simulated identities (issue 32, item 2).

    python benchmarks/bench_warm_start.py [--players 10000] [--games 1000000]
        [--new 20000] [--repeats 3]

``bench_ratings_scale.py``'s games between ``players`` ids; the solver alone
(``solvers/newton_cg.py``, SciPy's trust-region Newton-CG on the flipped rows
of eq. 8, unit costs, free bias): the first ``games`` solved, then the
``games + new`` solved cold (from 0) and warm (from the first solution).
Prints seconds (best of ``repeats``), Newton steps, the warm / cold ratio and
the relative difference of the two objectives.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.sparse as sp

from bench_ratings_scale import simulate
from svmcompare.solvers.newton_cg import solve_squared_hinge_cg


def flipped_rows(a, b, y, n_players):
    """Rows d = e_b - e_a of eq. (8): strict pairs oriented toward the winner
    (label 1), each draw twice, once per orientation (label -1)."""
    m = a.size
    r = np.arange(m)
    D = sp.csr_matrix((np.r_[-np.ones(m), np.ones(m)], (np.r_[r, r], np.r_[a, b])),
                      shape=(m, n_players))
    strict = y != 0
    rows = sp.vstack([D[strict].multiply(y[strict][:, None]).tocsr(), D[~strict],
                      -D[~strict]]).tocsr()
    labels = np.r_[np.ones(strict.sum()), -np.ones(2 * (~strict).sum())]
    return rows, labels


def best_of(repeats, solve):
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = solve()
        times.append(time.perf_counter() - start)
    return min(times), result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--new", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    (a, b, y), _ = simulate(args.players, args.games + args.new)
    first = slice(0, args.games)
    D1, y1 = flipped_rows(a[first], b[first], y[first], args.players)
    D, labels = flipped_rows(a, b, y, args.players)
    before = solve_squared_hinge_cg(D1, y1, np.ones(y1.size))
    start = np.append(before.u, before.bias)
    costs = np.ones(labels.size)
    cold_s, cold = best_of(args.repeats, lambda: solve_squared_hinge_cg(D, labels, costs))
    warm_s, warm = best_of(args.repeats,
                           lambda: solve_squared_hinge_cg(D, labels, costs, v0=start))
    gap = abs(warm.objective - cold.objective) / abs(cold.objective)
    print(f"{args.players:,} ids, {args.games:,} games, then {args.new:,} more")
    print(f"{'start':>6} {'seconds':>8} {'Newton steps':>13}")
    print(f"{'cold':>6} {cold_s:>8.3f} {cold.n_iter:>13d}")
    print(f"{'warm':>6} {warm_s:>8.3f} {warm.n_iter:>13d}")
    print(f"warm / cold: {warm_s / cold_s:.2f}; objectives differ by {gap:.1e} (relative)")


if __name__ == "__main__":
    main()
