"""A week of new results: the squared hinge refitted from the solution before
it, against a full refit, on simulated identities (issue 32, item 2).

    python benchmarks/bench_warm_start.py [--players 10000] [--games 1000000]
        [--new 20000] [--repeats 3]

``bench_ratings_scale.py``'s games between ``players`` ids: the first ``games``
fitted, then ``new`` more.  The solver alone (unit costs, free bias, eq. 8's
flipped rows): a cold solve of every row by the trust-region Newton-CG of
``solvers/newton_cg.py``, the same started from the first solution (a warm
start), and ``solvers/incremental.py``'s update of its kept state.  Then the
estimator (``SVMCompare(kernel="linear", loss="squared_hinge",
scale_indicators=False, probability=True)`` with the home edge as context):
``fit`` on every game against ``partial_fit`` of the new games after a
``partial_fit`` of the first ones.  Prints seconds (best of ``repeats``; each
update from a copy of the state before it), the ratio to the full refit, and
how far the updated model is from the refitted one.  Last, a replay
(``rolling_fit``, a half-life of 20 weeks) of the ``--weeks`` weeks of ``new``
games after the first ``games``: refitted every week against continued by
``partial_fit`` (``incremental="auto"``), the mean seconds of a week after the
first.
"""

from __future__ import annotations

import argparse
import copy
import time

import numpy as np
import scipy.sparse as sp

from bench_ratings_scale import simulate, wide
from svmcompare import SVMCompare
from svmcompare.solvers.incremental import SquaredHingeIncrement
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


def solver_rows(a, b, y, n_players, n_games, repeats):
    first = slice(0, n_games)
    D1, y1 = flipped_rows(a[first], b[first], y[first], n_players)
    D2, y2 = flipped_rows(a[n_games:], b[n_games:], y[n_games:], n_players)
    D, labels = flipped_rows(a, b, y, n_players)
    costs = np.ones(labels.size)
    increment = SquaredHingeIncrement()
    before = increment.add(D1, y1, np.ones(y1.size))
    start = np.append(before.u, before.bias)
    cold_s, cold = best_of(repeats, lambda: solve_squared_hinge_cg(D, labels, costs))
    warm_s, warm = best_of(repeats, lambda: solve_squared_hinge_cg(D, labels, costs, v0=start))
    inc_s, inc = best_of(repeats, lambda: copy.deepcopy(increment).add(D2, y2,
                                                                       np.ones(y2.size)))
    rows = []
    for name, seconds, result in (("solver: cold, every row", cold_s, cold),
                                  ("solver: warm start", warm_s, warm),
                                  ("solver: incremental update", inc_s, inc)):
        gap = abs(result.objective - cold.objective) / abs(cold.objective)
        rows.append((name, seconds, seconds / cold_s, f"objective {gap:.1e} (relative)"))
    return rows


def timed(repeats, make, step):
    """Best seconds of ``step(make())`` (``make`` untimed) and its last result."""
    times, result = [], None
    for _ in range(repeats):
        subject = make()
        begin = time.perf_counter()
        result = step(subject)
        times.append(time.perf_counter() - begin)
    return min(times), result


def estimator_rows(a, b, y, n_players, n_games, repeats):
    X = wide(a, b, n_players)
    home = np.ones((y.size, 1))
    settings = dict(kernel="linear", loss="squared_hinge", scale_indicators=False,
                    probability=True, random_state=0)
    SVMCompare(**settings).fit(X[:500], y[:500], home[:500])  # imports, first calls
    first = SVMCompare(**settings).partial_fit(X[:n_games], y[:n_games], home[:n_games])
    full_s, full = timed(repeats, lambda: SVMCompare(**settings),
                         lambda model: model.fit(X, y, home))
    part_s, part = timed(repeats, lambda: copy.deepcopy(first),
                         lambda model: model.partial_fit(X[n_games:], y[n_games:],
                                                         home[n_games:]))
    gap = np.max(np.abs(part.decision_function(X, home) - full.decision_function(X, home)))
    spread = np.std(full.decision_function(X, home))
    proba = np.max(np.abs(part.predict_proba(X, home) - full.predict_proba(X, home)))
    return [("SVMCompare.fit, every game", full_s, 1.0, f"calibration {full.calibration_}"),
            ("SVMCompare.partial_fit, the new games", part_s, part_s / full_s,
             f"decision {gap / spread:.1e} of its spread, probabilities {proba:.1e}")]


def replay_rows(n_players, n_games, n_new, weeks):
    from svmcompare.temporal import rolling_fit

    (a, b, y), _ = simulate(n_players, n_games + weeks * n_new, seed=1)
    X = wide(a, b, n_players)
    home = np.ones((y.size, 1))
    week = np.r_[np.zeros(n_games, dtype=int), 1 + np.arange(weeks * n_new) // n_new]
    model = SVMCompare(kernel="linear", loss="squared_hinge", scale_indicators=False,
                       probability=True, random_state=0)
    runs = {mode: rolling_fit(model, X, y, week, context=home, half_life=20.0, first=1,
                              progress=False, incremental=mode) for mode in (False, "auto")}
    later = {mode: float(run.fit_seconds.iloc[1:].mean()) for mode, run in runs.items()}
    played = week > 0
    gap = np.max(np.abs(runs["auto"].proba[played] - runs[False].proba[played]))
    return [("rolling_fit, a week after the first, refits", later[False], 1.0, ""),
            ("rolling_fit, a week after the first, continued", later["auto"],
             later["auto"] / later[False], f"probabilities {gap:.1e}")]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--new", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--weeks", type=int, default=4)
    args = parser.parse_args(argv)
    (a, b, y), _ = simulate(args.players, args.games + args.new)
    rows = solver_rows(a, b, y, args.players, args.games, args.repeats) \
        + estimator_rows(a, b, y, args.players, args.games, args.repeats) \
        + replay_rows(args.players, args.games, args.new, args.weeks)
    print(f"{args.players:,} ids, {args.games:,} games, then {args.new:,} more")
    print(f"| {'what':<46} | {'seconds':>8} | {'/ full':>6} | difference to the full refit |")
    print(f"|{'-' * 48}|{'-' * 10}|{'-' * 8}|{'-' * 30}|")
    for name, seconds, ratio, note in rows:
        print(f"| {name:<46} | {seconds:>8.3f} | {ratio:>6.3f} | {note} |")


if __name__ == "__main__":
    main()
