"""Identities at scale: SVMCompare on sparse id pairs against evalica's
Bradley-Terry, each in a fresh process, on the same simulated games.

    python benchmarks/bench_ratings_scale.py [--sizes 1000x20000 10000x1000000]

Games between ``players`` ids with normal strengths: a draw when the strength
difference plus a home edge (0.2) plus logistic noise is within 0.8 (about a
quarter draws); 100,000 test games of the same players.  Ours:
``SVMCompare(kernel="linear", scale_indicators=False, probability=True)`` with
the second side's edge as ``context`` (a column of ones: what the Davidson
model's home term sees; ``--without-context`` adds the fits without it)
(unscaled one-hot ids: a ridge prior on every id alike; sparse rows go to the
dual coordinate descent of ``solvers/dual_cd.py``), with the paper's hinge
and with ``loss="squared_hinge"``, timed with its
probabilities (the default ``calibration="auto"``: five calibration folds
below 100 games per player, the fit's own rank differences from there on);
"ours, no proba" is the fit alone.  evalica's Bradley-Terry
counts a draw as half a win and gives no probability of a draw: its scores
are turned into win/draw/loss probabilities by a Davidson model (a tie
parameter, a scale on the log-score difference and a home edge, fitted by
maximum likelihood on the training games; the fit's time is counted apart).
Peak memory is the process's peak RSS growth during the fit.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from _harness import measure, peak_rss_mb

N_TEST = 100_000


def simulate(n_players, n_games, seed=0):
    """(a, b, y) of n_games training games and N_TEST test games."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(size=n_players)

    def games(n):
        a = rng.integers(0, n_players, n)
        b = (a + rng.integers(1, n_players, n)) % n_players
        d = strength[b] - strength[a] + 0.2 + rng.logistic(size=n)
        return a, b, np.where(d > 0.8, 1, np.where(d < -0.8, -1, 0))
    return games(n_games), games(N_TEST)


def wide(a, b, n_players):
    import scipy.sparse as sp
    rows = np.arange(a.size)
    return sp.csr_matrix((np.ones(2 * a.size), (np.r_[rows, rows], np.r_[a, n_players + b])),
                         shape=(a.size, 2 * n_players))


def log_loss(P, y):
    return float(-np.mean(np.log(np.clip(P[np.arange(y.size), y + 1], 1e-15, 1.0))))


def davidson_proba(diff, theta):
    """Davidson (1970) probabilities of (first wins, draw, second wins) for a
    log-strength difference ``diff`` = second - first: pi_x = exp(-s diff / 2 - h / 2),
    pi_x' = exp(s diff / 2 + h / 2), draw weight nu sqrt(pi_x pi_x')."""
    scale, log_nu, home = theta
    half = 0.5 * (scale * diff + home)
    w = np.stack([-half, np.full_like(half, log_nu), half], axis=1)
    w -= w.max(axis=1, keepdims=True)
    P = np.exp(w)
    return P / P.sum(axis=1, keepdims=True)


def fit_davidson(diff, y):
    from scipy.optimize import minimize
    result = minimize(lambda t: log_loss(davidson_proba(diff, t), y), x0=[1.0, 0.0, 0.0],
                      method="Nelder-Mead", options={"xatol": 1e-6, "fatol": 1e-9})
    return result.x


def ours(queue, n_players, n_games, probability, loss="hinge", context=True):
    from svmcompare import SVMCompare
    (a, b, y), (ta, tb, ty) = simulate(n_players, n_games)
    X, Xt = wide(a, b, n_players), wide(ta, tb, n_players)
    # The second side's edge (the simulation's home edge of 0.2) as context,
    # as the Davidson model on evalica's scores has a home term.
    c = np.ones((a.size, 1)) if context else None
    ct = np.ones((ta.size, 1)) if context else None
    SVMCompare(kernel="linear", scale_indicators=False, probability=True,
               loss=loss).fit(X[:500], y[:500], context=None if c is None else c[:500])
    base = peak_rss_mb()
    start = time.perf_counter()
    model = SVMCompare(kernel="linear", scale_indicators=False, loss=loss,
                       probability=probability, random_state=0).fit(X, y, context=c)
    seconds = time.perf_counter() - start
    peak = peak_rss_mb() - base
    loss = log_loss(model.predict_proba(Xt, context=ct), ty) if probability else float("nan")
    queue.put((seconds, peak, loss, 0.0))


def evalica_bt(queue, n_players, n_games):
    import evalica
    import pandas as pd
    (a, b, y), (ta, tb, ty) = simulate(n_players, n_games)
    winner = np.array([evalica.Winner.X, evalica.Winner.Draw, evalica.Winner.Y],
                      dtype=object)[y + 1].tolist()
    evalica.bradley_terry(a[:500], b[:500], winner[:500])
    base = peak_rss_mb()
    start = time.perf_counter()
    result = evalica.bradley_terry(a, b, winner, index=pd.Index(np.arange(n_players)))
    seconds = time.perf_counter() - start
    peak = peak_rss_mb() - base
    log_score = np.log(np.maximum(result.scores.sort_index().to_numpy(), 1e-300))
    start = time.perf_counter()
    theta = fit_davidson(log_score[b] - log_score[a], y)
    davidson = time.perf_counter() - start
    loss = log_loss(davidson_proba(log_score[tb] - log_score[ta], theta), ty)
    queue.put((seconds, peak, loss, davidson))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000x20000,10000x1000000",
                        help="players x games, comma-separated")
    parser.add_argument("--evalica-up-to", type=int, default=2_000_000, metavar="GAMES",
                        help="run evalica up to this many games (its memory grows ~2.3 GB a "
                             "million games; default: %(default)s)")
    parser.add_argument("--without-context", action="store_true",
                        help="also fit ours without the home edge as context (the tables "
                             "before 2026-11-27)")
    args = parser.parse_args(argv)
    print(f"{'players':>8} {'games':>10} {'model':>18} {'fit s':>8} {'peak MB':>8} "
          f"{'test log-loss':>13} {'s / evalica':>11}")
    for size in args.sizes.split(","):
        n_players, n_games = (int(v) for v in size.split("x"))
        rows = []
        try:
            if n_games <= args.evalica_up_to:
                rows.append(("evalica+Davidson", measure(evalica_bt, n_players, n_games)))
            else:
                print(f"(evalica not run at {n_games:,} games: --evalica-up-to)")
        except ImportError:
            print("(evalica not installed: pip install evalica)")
        rows.append(("ours", measure(ours, n_players, n_games, True)))
        rows.append(("ours, no proba", measure(ours, n_players, n_games, False)))
        rows.append(("ours, sq. hinge", measure(ours, n_players, n_games, True,
                                                "squared_hinge")))
        if args.without_context:
            rows.append(("ours, no context", measure(ours, n_players, n_games, True, "hinge",
                                                     False)))
            rows.append(("sq. h., no context", measure(ours, n_players, n_games, True,
                                                       "squared_hinge", False)))
        reference = rows[0][1][0] if rows[0][0].startswith("evalica") else float("nan")
        for name, (seconds, peak, loss, extra) in rows:
            note = f"  (+{extra:.2f} s Davidson fit)" if extra else ""
            print(f"{n_players:>8} {n_games:>10,} {name:>18} {seconds:>8.2f} {peak:>8.0f} "
                  f"{loss:>13.4f} {seconds / reference:>11.1f}{note}", flush=True)


if __name__ == "__main__":
    main()
