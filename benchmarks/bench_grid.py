"""The paper's 10 x 10 grid (C x gamma) at n = 800 for rank, rank2 and compare.

Ours: validation_search, one warm-started C path per gamma (shared item Gram,
alpha seeding).  Peer in the same run: the same 300 fits, each cold, through
the same estimators (what GridSearchCV-style refitting costs).  Both report
the validation error of the chosen model and the total time.

Usage: python benchmarks/bench_grid.py [--pairs 800] [--repeats 3] [--n-jobs 1]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from svmcompare import SVMCompare
from svmcompare.datasets import make_norm_pairs
from svmcompare.experiments.protocol import MODELS as PAPER_MODELS
from svmcompare.grid_search import paper_grid, validation_search

# The paper's models as the reproductions fit them (compare: class_weight=None,
# NoRankingError when beta >= 0), not the library's defaults.
MODELS = PAPER_MODELS


def _cold_search(cls, grid, train, val):
    best = (np.inf, None)
    for gamma in grid["gamma"]:
        for C in grid["C"]:
            try:
                model = cls(C=C, gamma=gamma).fit(*train)
            except ValueError:
                continue
            error = np.mean(model.predict(val[0]) != val[1])
            best = min(best, (error, (C, gamma)), key=lambda e: e[0])
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=800)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-jobs", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.RandomState(1)
    train = make_norm_pairs(args.pairs, "l1", random_state=rng)
    val = make_norm_pairs(args.pairs, "l1", random_state=rng)
    grid = paper_grid()
    SVMCompare().fit(*make_norm_pairs(50, random_state=0))  # compile outside the timing

    ours, peer, errors = [], [], {}
    for _ in range(args.repeats):
        start = time.perf_counter()
        for name, cls in MODELS.items():
            _, results = validation_search(cls(), grid, *train, *val, n_jobs=args.n_jobs)
            errors[name] = results.loc[results["selected"], "error"].iloc[0]
        ours.append(time.perf_counter() - start)
    cold_errors = {}
    for _ in range(args.repeats):
        start = time.perf_counter()
        for name, cls in MODELS.items():
            cold_errors[name] = _cold_search(cls, grid, train, val)[0]
        peer.append(time.perf_counter() - start)
    t_ours, t_peer = statistics.median(ours), statistics.median(peer)
    print(f"n = {args.pairs}, 3 models x 100 grid points, n_jobs = {args.n_jobs}, "
          f"median of {args.repeats}")
    print(f"{'search':<28} {'seconds':>8} {'ratio':>7}   validation error of the chosen model")
    print(f"{'warm paths (ours)':<28} {t_ours:>8.2f} {1.0:>6.1f}x   "
          + "  ".join(f"{k} {100 * v:.2f}%" for k, v in errors.items()))
    print(f"{'300 cold fits':<28} {t_peer:>8.2f} {t_peer / t_ours:>6.1f}x   "
          + "  ".join(f"{k} {100 * v:.2f}%" for k, v in cold_errors.items()))


if __name__ == "__main__":
    main()
