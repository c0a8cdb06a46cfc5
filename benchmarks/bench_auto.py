"""The recommended model's fit time next to the peers users time it against (issue 33).

``SVMCompareCV(probability=True, cv=group folds, n_jobs=2)`` against
``HistGradientBoostingClassifier`` (both orientations) and multinomial
logistic regression (``LogisticRegressionCV`` on [x' - x, context], both
orientations, the same folds), fitted on the same training pairs: at most
5,000 of each set of the suite and ``bench_real.py`` (the latest ones, so the
folds keep their seasons / groups), and 20,000 club-football pairs (every
season of football_odds before its test season).  Prints fit seconds, the
ratio of ours to gradient boosting's, and each model's test log-loss.

Usage: python benchmarks/bench_auto.py [--sets ...] [--pairs 5000] [--csv out.csv]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_real  # noqa: E402
import bench_suite  # noqa: E402
import suite_data  # noqa: E402
from svmcompare.metrics import outcome_log_loss  # noqa: E402

MODELS = ("svmcompare", "hgb", "mlogit")


def _latest(mask, n):
    """The last ``n`` True positions of ``mask`` (pairs are in time order)."""
    at = np.flatnonzero(mask)
    keep = np.zeros_like(mask)
    keep[at[-n:]] = True
    return keep


def _long_football():
    """football_odds trained on every earlier season (32,653 matches; the last
    20,000 are used)."""
    data = suite_data.LOADERS["football_odds"]()
    data.train = (~data.test) & (data.games["group"] < data.games.loc[data.test, "group"].min()
                                 ).to_numpy()
    return data


def _timed(name, X, y, context, train, test, has_elo, groups):
    folds = bench_real.group_folds(groups[train])
    row = {"data": name, "pairs": int(train.sum())}
    for model, proba, _, seconds, _ in bench_real.fitted_models(name, X, y, context, train, test,
                                                               has_elo, folds):
        if model in MODELS:
            row[f"{model}_s"] = seconds
            row[f"{model}_log_loss"] = outcome_log_loss(y[test], proba)
    row["ratio_to_hgb"] = row["svmcompare_s"] / row["hgb_s"]
    return row


def main(argv=None):
    names = [*suite_data.LOADERS, "football", "icehockey", "chess", "sushi", "football_20k"]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=names, choices=names)
    parser.add_argument("--pairs", type=int, default=5000)
    parser.add_argument("--csv", type=Path)
    args = parser.parse_args(argv)
    rows = []
    short = [name for name in args.sets if name != "football_20k"]
    for name, _, _, X, y, context, train, test, has_elo, groups in bench_suite.suite_sets(short):
        rows.append(_timed(name, X, y, context, _latest(train, args.pairs), test, has_elo,
                           groups))
        print(rows[-1], file=sys.stderr, flush=True)
    if "football_20k" in args.sets and suite_data.available("football_odds"):
        data = _long_football()
        X, y, context, has_elo = bench_suite.set_features(data)
        rows.append(_timed("football_20k", X, y, context, _latest(data.train, 20000),
                           data.test, has_elo, data.games["group"].to_numpy()))
    table = pd.DataFrame(rows)
    print(f"{'data':<16} {'pairs':>6} {'ours s':>7} {'hgb s':>6} {'logit s':>7} "
          f"{'ours/hgb':>8} {'ours':>7} {'hgb':>7} {'logit':>7}")
    for r in table.itertuples():
        print(f"{r.data:<16} {r.pairs:>6} {r.svmcompare_s:>7.1f} {r.hgb_s:>6.1f} "
              f"{r.mlogit_s:>7.1f} {r.ratio_to_hgb:>8.1f} {r.svmcompare_log_loss:>7.4f} "
              f"{r.hgb_log_loss:>7.4f} {r.mlogit_log_loss:>7.4f}")
    if args.csv:
        table.to_csv(args.csv, index=False)


if __name__ == "__main__":
    main()
