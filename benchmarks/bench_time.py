"""Ratings over time: a season predicted week by week, each week from every
earlier result, against a fit frozen before the season and against Elo and
Glicko updated daily.

    python benchmarks/bench_time.py [--sets football_odds germany_leagues] [--loss squared_hinge]
        [--incremental off]

Data: the public suite's league football (``python benchmarks/suite_data.py
fetch`` first; sets not fetched are skipped).  Identities only: the two
teams one-hot (sparse) and home advantage as context.  The test season is
the suite's; history starts three seasons before it.

Models, all on the same test games:

* ``static``: ``SVMCompare`` on the ids fitted once on the three seasons
  before (C, scale_indicators and link chosen by ``SVMCompareCV`` with
  season folds on those seasons; every ours below uses the same choice);
* ``weekly``: :func:`svmcompare.temporal.rolling_fit`, refitted before each
  week on every earlier game (with the squared hinge and unscaled ids, one
  model continued by ``partial_fit`` week by week: the same model; ``--incremental
  off`` refits a clone every week);
* ``weekly, half-life H``: the same with earlier games weighted by
  :func:`svmcompare.temporal.time_decay` (H days);
* ``elo+ologit``, ``glicko+ologit``: the rating difference at game time
  (``games_features``: updated every day, from earlier days only) with an
  ordered logit fitted on the three seasons before;
* ``market``: the bookmaker (1 / odds normalized), where the set has odds.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.model_selection import GroupKFold

import suite_data
from svmcompare import SVMCompare, SVMCompareCV
from svmcompare.datasets import GAME_FEATURES, games_features
from svmcompare.metrics import outcome_brier, outcome_log_loss
from svmcompare.ordered_logit import OrderedLogit
from svmcompare.temporal import rolling_fit

HALF_LIVES = (180, 365)


def id_pairs(games):
    ids = pd.Index(pd.unique(pd.concat([games["a"], games["b"]])))
    a, b = ids.get_indexer(games["a"]), ids.get_indexer(games["b"])
    rows = np.arange(len(games))
    p = ids.size
    X = sp.csr_matrix((np.ones(2 * rows.size), (np.r_[rows, rows], np.r_[a, p + b])),
                      shape=(rows.size, 2 * p))
    return X, ids


def choose(X, y, context, seasons, loss="hinge"):
    grid = {"kernel": ["linear"], "C": list(np.logspace(-3, 1, 5)),
            "scale_indicators": [False, True]}
    search = SVMCompareCV(SVMCompare(kernel="linear", loss=loss), param_grid=grid,
                          probability=True,
                          cv=GroupKFold(len(np.unique(seasons))), n_jobs=2,
                          progress=False).fit(X, y, context=context, groups=seasons)
    return search.best_params_


def rating_peer(games, before, test, column):
    X, y, context, _ = games_features(games, first="a", second="b", result="y",
                                      outcome_map={-1: -1, 0: 0, 1: 1}, time="time",
                                      advantage="advantage")
    k = GAME_FEATURES.index(column)
    d = (X[:, 1, k] - X[:, 0, k]) / 400.0

    def design(rows):
        return np.c_[d[rows], context[rows]]

    train = before
    # Both orientations: the link is symmetric in the pair.
    design_both = np.r_[design(train), -design(train)]
    link = OrderedLogit(alpha=1e-6).fit(design_both, np.r_[y[train], -y[train]])
    return link.predict_proba(design(test))


def run_set(name, loss="hinge", incremental="auto"):
    data = getattr(suite_data, f"load_{name}")()
    games = data.games
    test_season = int(games.loc[data.test, "group"].min())
    history = (games["group"] >= test_season - 3).to_numpy() & (
        games["group"] <= test_season).to_numpy()
    games = games[history].reset_index(drop=True)
    test = (games["group"] == test_season).to_numpy().copy()
    if "p_a" in games.columns:
        test &= games[["p_a", "p_tie", "p_b"]].notna().all(axis=1).to_numpy()
    X, ids = id_pairs(games)
    y = games["y"].to_numpy()
    context = games["advantage"].to_numpy(float)[:, None]
    times = pd.to_datetime(games["time"]).to_numpy()
    week = ((times - times.min()) // np.timedelta64(7, "D")).astype(int)
    before = ~(games["group"] == test_season).to_numpy()
    start = time.perf_counter()
    params = choose(X[before], y[before], context[before], games["group"].to_numpy()[before],
                    loss)
    choose_seconds = time.perf_counter() - start
    base = SVMCompare(kernel="linear", probability=True, random_state=0,
                      loss=loss).set_params(**params)
    rows = []

    def record(model, proba, seconds, refits=None):
        rows.append({"set": name, "model": model, "test games": int(test.sum()),
                     "log_loss": outcome_log_loss(y[test], proba[test]),
                     "brier": outcome_brier(y[test], proba[test]),
                     "fit s": seconds, "refits": refits})

    start = time.perf_counter()
    static = clone_fit(base, X[before], y[before], context[before])
    proba = np.full((y.size, 3), np.nan)
    proba[test] = static.predict_proba(X[test], context[test])
    record("static", proba, time.perf_counter() - start, 1)
    first_week = week[test].min()
    for half_life in (None, *HALF_LIVES):
        start = time.perf_counter()
        result = rolling_fit(base, X, y, week, context=context, first=first_week,
                             half_life=None if half_life is None else float(half_life),
                             times=times, progress=False, incremental=incremental)
        seconds = time.perf_counter() - start
        label = "weekly" if half_life is None else f"weekly, half-life {half_life} d"
        record(label, result.proba, seconds, len(result.fit_seconds))
        rows[-1]["s / refit"] = float(result.fit_seconds.mean())
    for column in ("elo", "glicko"):
        if column in GAME_FEATURES:
            start = time.perf_counter()
            proba = np.full((y.size, 3), np.nan)
            proba[test] = rating_peer(games, before, test, column)
            record(f"{column}+ologit", proba, time.perf_counter() - start)
    if "p_a" in games.columns:
        proba = games[["p_a", "p_tie", "p_b"]].to_numpy(float)
        record("market", proba, 0.0)
    print(f"\n{name}: {ids.size} teams, {len(games)} games, test season {test_season} "
          f"({int(test.sum())} games); chosen on the three seasons before "
          f"({choose_seconds:.1f} s): {params}")
    return rows


def clone_fit(base, X, y, context):
    from sklearn.base import clone

    return clone(base).fit(X, y, context=context)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", nargs="+", default=["football_odds", "germany_leagues",
                                                       "italy_1980s"])
    parser.add_argument("--loss", choices=["hinge", "squared_hinge"], default="hinge",
                        help="the loss of every ours (default: %(default)s)")
    parser.add_argument("--incremental", choices=["auto", "off"], default="auto",
                        help="rolling_fit's incremental: off refits every week")
    args = parser.parse_args(argv)
    incremental = "auto" if args.incremental == "auto" else False
    rows = []
    for name in args.sets:
        if not suite_data.available(name):
            print(f"{name}: not fetched (python benchmarks/suite_data.py fetch); skipped")
            continue
        rows += run_set(name, args.loss, incremental)
    table = pd.DataFrame(rows)
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        print(table.to_string(index=False, float_format=lambda v: f"{v:.4f}"))


if __name__ == "__main__":
    main()
