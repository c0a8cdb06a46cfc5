"""Elo and Glicko: games per second of the vectorized period updates, against a
per-game Python loop (the textbook implementation) measured in the same run.

    python benchmarks/bench_ratings.py [--sizes 10000 100000 1000000]

Games: random pairs among 20,000 players over 365 periods (days), scores
uniform over {0, 0.5, 1}.  The loop is only run up to 100,000 games.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from svmcompare.ratings import Elo, Glicko, elo_expected, fide_k


def games(n, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.integers(0, 20_000, n), rng.integers(0, 20_000, n),
            rng.choice([0.0, 0.5, 1.0], n), np.sort(rng.integers(0, 365, n)))


def loop_elo(a, b, s, p):
    """One game at a time, FIDE K, ratings frozen within a period."""
    rating, played, reached = {}, {}, {}
    start = 0
    while start < len(p):
        stop = start
        while stop < len(p) and p[stop] == p[start]:
            stop += 1
        frozen = dict(rating)
        change = {}
        for t in range(start, stop):
            ra, rb = frozen.get(a[t], 1200.0), frozen.get(b[t], 1200.0)
            e = float(elo_expected(ra, rb))
            change[a[t]] = change.get(a[t], 0.0) + s[t] - e
            change[b[t]] = change.get(b[t], 0.0) + e - s[t]
        for player, delta in change.items():
            r = frozen.get(player, 1200.0)
            k = float(fide_k(r, played.get(player, 0), reached.get(player, False)))
            rating[player] = r + k * delta
        for t in range(start, stop):
            played[a[t]] = played.get(a[t], 0) + 1
            played[b[t]] = played.get(b[t], 0) + 1
        start = stop
    return rating


def time_it(function, *args):
    start = time.perf_counter()
    function(*args)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    args = parser.parse_args()
    print(f"{'games':>10} {'Elo (s)':>9} {'Glicko (s)':>11} {'Elo loop (s)':>13} "
          f"{'loop / ours':>12}")
    for n in args.sizes:
        data = games(n)
        elo = time_it(lambda *g: Elo().update(*g), *data)
        glicko = time_it(lambda *g: Glicko().update(*g), *data)
        loop = time_it(loop_elo, *data) if n <= 100_000 else float("nan")
        print(f"{n:>10,} {elo:>9.2f} {glicko:>11.2f} {loop:>13.2f} {loop / elo:>12.1f}")


if __name__ == "__main__":
    main()
