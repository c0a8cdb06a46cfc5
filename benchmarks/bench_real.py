"""Real pair data with ties: svmcompare's auto-tuned model against the usual peers.

Data (read from ../shared/data, never copied; a set whose folder is absent is
skipped): league football and college ice hockey (bradleyterry2/), Lichess
chess games (chess/lichess_kaggle_games/), SUSHI preferences (sushi/); and the
paper's simulated ||x||_1^2 and ||x||_inf^2 patterns (1,000 training pairs,
4,000 test pairs), where the kernel ranking should pay.
Splits leak nothing: games are split by time (the test games come after every
training game; features come from earlier periods only, via
``games_features``; with the goals' weighted means for ice hockey, which
records them), sushi by person (no person in both).

Models, all given the same features and pair context:

* ``freq``: the training class frequencies;
* ``elo+ologit`` (games only): the Elo rating difference at game time and the
  context in an ordered logit;
* ``mlogit``: multinomial logistic regression on [x' - x, context], trained on
  both orientations, C chosen by log-loss over the same group folds as ours
  (LogisticRegressionCV);
* ``hgb``: HistGradientBoostingClassifier, 3 classes, on [x, x', x' - x,
  context], trained on both orientations and averaged over both at prediction;
* ``svmcompare``: ``SVMCompareCV(probability=True)``, its default grid, on
  group folds (seasons, stretches of time, people) like the test split.

Prints per data set: test log-loss, Brier score, accuracy, comparison AUC
(score P(1) - P(-1) for peers, r(x') - r(x) + v^T context for ours), fit
seconds, and ours minus the best peer.  ``--quick`` runs small subsets (CI).

Usage: python benchmarks/bench_real.py [--quick] [--sets football icehockey chess sushi]
       [--csv results.csv]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegressionCV
from sklearn.model_selection import GroupKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from svmcompare import SVMCompareCV
from svmcompare.datasets import (
    GAME_FEATURES,
    games_features,
    load_chess_games,
    load_sushi,
    make_norm_pairs,
)
from svmcompare.metrics import comparison_auc, outcome_brier, outcome_log_loss
from svmcompare.ordered_logit import OrderedLogit

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
ELO = GAME_FEATURES.index("elo")


# -- data sets: (X, y, context, train mask, test mask, has_elo, groups) ----------
# ``groups`` label the folds of every tuned model's cross-validation so that a
# fold resembles the test set: a later season, a later stretch of time, new people.


def one_hot(first, second):
    teams = sorted(set(first) | set(second))
    index = {team: k for k, team in enumerate(teams)}
    eye = np.eye(len(teams))
    return np.stack([eye[[index[t] for t in first]], eye[[index[t] for t in second]]], axis=1)


def _with_identities(games, first, second, X):
    """Team identities (one-hot) next to the history features."""
    return np.concatenate([X, one_hot(games[first], games[second])], axis=2)


def _time_split(period, test_share=0.2):
    order = np.sort(period)
    cut = order[int(len(order) * (1 - test_share))]
    return period < cut, period >= cut


def _time_blocks(period, n_blocks=5):
    """Contiguous stretches of time with about equal numbers of games."""
    ranks = np.argsort(np.argsort(period, kind="stable"), kind="stable")
    return ranks * n_blocks // len(period)


def football(quick=False):
    games = pd.read_csv(DATA / "bradleyterry2" / "football.csv")
    X, y, context, info = games_features(games, first="home", second="away", result="result",
                                         outcome_map={1: -1, 0: 0, -1: 1}, time="season",
                                         advantage=-1)
    X = _with_identities(games, "home", "away", X)
    test = (games["season"] == games["season"].max()).to_numpy()
    train = ~test
    if quick:
        train &= (games["season"] >= "2010-11").to_numpy()
    return X, y, context, train, test, True, info["period"].to_numpy()


def icehockey(quick=False):
    games = pd.read_csv(DATA / "bradleyterry2" / "icehockey.csv")
    X, y, context, info = games_features(games, first="visitor", second="opponent",
                                         result="result", result_map="score", time="date",
                                         advantage="home.ice", points=("v_goals", "o_goals"))
    X = _with_identities(games, "visitor", "opponent", X)
    train, test = _time_split(info["period"].to_numpy())
    return X, y, context, train, test, True, _time_blocks(info["period"].to_numpy())


def chess(quick=False):
    games = load_chess_games(DATA / "chess" / "lichess_kaggle_games" / "games.csv")
    X, y, context, info = games_features(games, first="white", second="black", result="score",
                                         result_map="score", time="time", advantage=-1)
    site = np.stack([games["white_rating"], games["black_rating"]], axis=1)[:, :, None]
    X = np.concatenate([X, site.astype(float)], axis=2)
    keep = np.arange(len(games)) >= len(games) - (1500 if quick else 6000)
    period = info["period"].to_numpy()
    train, test = _time_split(period[keep])
    groups = np.full(len(games), -1)
    groups[keep] = _time_blocks(period[keep])
    at = np.flatnonzero(keep)
    return X, y, context, np.isin(np.arange(len(games)), at[train]), \
        np.isin(np.arange(len(games)), at[test]), True, groups


def sushi(quick=False):
    data = load_sushi(DATA / "sushi", random_state=0)
    people = np.unique(data.person)
    rng = np.random.default_rng(0)
    rng.shuffle(people)
    n_train, n_test = (150, 100) if quick else (800, 400)
    train = np.isin(data.person, people[:n_train])
    test = np.isin(data.person, people[n_train:n_train + n_test])
    return data.X, data.y, None, train, test, False, data.person


def _simulated(norm, quick):
    n_train = 300 if quick else 1000
    X, y = make_norm_pairs(n_train + 4000, norm, random_state=0)
    train = np.arange(len(y)) < n_train
    return X, y, None, train, ~train, False, np.arange(len(y)) % 5


def simulated_l1(quick=False):
    return _simulated("l1", quick)


def simulated_linf(quick=False):
    return _simulated("linf", quick)


SETS = {"football": (football, "bradleyterry2"), "icehockey": (icehockey, "bradleyterry2"),
        "chess": (chess, "chess/lichess_kaggle_games"), "sushi": (sushi, "sushi"),
        "simulated_l1": (simulated_l1, None), "simulated_linf": (simulated_linf, None)}


# -- models: fit on training pairs, return test probabilities and scores ----------


def _both(X, y, context):
    """Every pair in both orientations (swapped pair, negated context and label)."""
    c = np.zeros((len(y), 0)) if context is None else context
    return np.concatenate([X, X[:, ::-1]]), np.concatenate([y, -y]), np.concatenate([c, -c])


class GroupFolds(list):
    """Group folds of the training pairs (a list of (train, validation)
    indices, what the peers' searches take) with the splitter and groups that
    made them: ours takes the README's route, ``cv=GroupKFold(k)`` and
    ``fit(..., groups=...)``, the same splits."""

    def __init__(self, groups, k):
        self.splitter = GroupKFold(k)
        self.groups = groups
        super().__init__(self.splitter.split(groups, groups=groups))


def group_folds(groups):
    """Group folds (at most 5) of the training pairs."""
    return GroupFolds(groups, min(5, np.unique(groups).size))


def _doubled(folds, n):
    """The same folds over the pairs in both orientations (rows i and n + i)."""
    return [(np.r_[a, a + n], np.r_[b, b + n]) for a, b in folds]


def _freq(X, y, c, Xt, ct, has_elo, folds):
    p = np.bincount(y + 1, minlength=3) / len(y)
    return np.tile(p, (len(Xt), 1)), None


def _elo(X, y, c, Xt, ct, has_elo, folds):
    if not has_elo:
        return None, None

    def design(X, c):
        d = (X[:, 1, ELO] - X[:, 0, ELO])[:, None] / 400
        return d if c is None else np.hstack([d, c])

    Xb, yb, cb = _both(X, y, c)
    link = OrderedLogit(alpha=1e-6).fit(design(Xb, cb if c is not None else None), yb)
    return link.predict_proba(design(Xt, ct)), None


def _mlogit(X, y, c, Xt, ct, has_elo, folds):
    Xb, yb, cb = _both(X, y, c)
    model = make_pipeline(StandardScaler(), LogisticRegressionCV(
        Cs=np.logspace(-4, 2, 13), cv=_doubled(folds, len(y)), scoring="neg_log_loss",
        max_iter=5000))
    model.fit(np.hstack([Xb[:, 1] - Xb[:, 0], cb]), yb)
    ct = np.zeros((len(Xt), 0)) if ct is None else ct
    return model.predict_proba(np.hstack([Xt[:, 1] - Xt[:, 0], ct])), None


def _hgb(X, y, c, Xt, ct, has_elo, folds):
    Xb, yb, cb = _both(X, y, c)

    def design(X, c):
        return np.hstack([X[:, 0], X[:, 1], X[:, 1] - X[:, 0], c])

    model = HistGradientBoostingClassifier(learning_rate=0.05, max_iter=300,
                                           early_stopping=True, random_state=0)
    model.fit(design(Xb, cb), yb)
    ct = np.zeros((len(Xt), 0)) if ct is None else ct
    forward = model.predict_proba(design(Xt, ct))
    backward = model.predict_proba(design(Xt[:, ::-1], -ct))[:, ::-1]
    return (forward + backward) / 2, None


def _ours(X, y, c, Xt, ct, has_elo, folds):
    groups = getattr(folds, "groups", None)
    cv = folds if groups is None else folds.splitter
    # random_state: the Nystroem points' landmarks (past 10,000 pairs or 8,192
    # items) drawn the same every run, so that a run's choices can be repeated.
    model = SVMCompareCV(probability=True, cv=cv, n_jobs=2, random_state=0).fit(
        X, y, context=c, groups=groups)
    _ours.last = model
    return model.predict_proba(Xt, ct), model.decision_function(Xt, ct)


MODELS = {"freq": _freq, "elo+ologit": _elo, "mlogit": _mlogit, "hgb": _hgb,
          "svmcompare": _ours}


def scores(y, proba, score):
    if score is None:
        score = proba[:, 2] - proba[:, 0]
    return {"log_loss": outcome_log_loss(y, proba), "brier": outcome_brier(y, proba),
            "accuracy": float(np.mean(np.argmax(proba, axis=1) - 1 == y)),
            "auc": float(comparison_auc(y, score))}


def fitted_models(name, X, y, context, train, test, has_elo, folds, progress=False):
    """Each model of MODELS that applies, fitted on the training pairs: yields
    (model name, test probabilities, test scores or None, fit seconds, chosen
    grid point of ours or None)."""
    ctr = None if context is None else context[train]
    cte = None if context is None else context[test]
    for model_name, fit in MODELS.items():
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            proba, score = fit(X[train], y[train], ctr, X[test], cte, has_elo, folds)
        if proba is None:
            continue
        seconds = time.perf_counter() - start
        if progress:
            print(f"  {name:<16} {model_name:<11} log-loss "
                  f"{outcome_log_loss(y[test], proba):.4f} ({seconds:.1f} s)",
                  file=sys.stderr, flush=True)
        chosen = str(_ours.last.best_params_) if model_name == "svmcompare" else None
        yield model_name, proba, score, seconds, chosen


def table_lines(block):
    """The per-model lines of one data set's table (log-loss, Brier, accuracy, AUC, seconds)."""
    lines = [f"{'model':<12} {'log-loss':>9} {'Brier':>7} {'acc':>6} {'AUC':>6} {'fit s':>7}"]
    for _, row in block.iterrows():
        lines.append(f"{row.model:<12} {row.log_loss:>9.4f} {row.brier:>7.4f} "
                     f"{row.accuracy:>6.3f} {row.auc:>6.3f} {row.fit_s:>7.1f}")
    return lines


def run(names, quick=False, progress=False):
    rows = []
    for name in names:
        load, folder = SETS[name]
        if folder is not None and not (DATA / folder).is_dir():
            print(f"{name}: skipped, {DATA / folder} not found", file=sys.stderr)
            continue
        X, y, context, train, test, has_elo, groups = load(quick)
        folds = group_folds(groups[train])
        for model_name, proba, score, seconds, chosen in fitted_models(
                name, X, y, context, train, test, has_elo, folds, progress):
            rows.append({"data": name, "model": model_name, "n_train": int(train.sum()),
                         "n_test": int(test.sum()), "ties": float(np.mean(y == 0)),
                         **scores(y[test], proba, score), "fit_s": seconds, "chosen": chosen})
    return pd.DataFrame(rows)


def report(table):
    lines = []
    for name, block in table.groupby("data", sort=False):
        first = block.iloc[0]
        lines.append(f"\n{name}: {first.n_train} training pairs, {first.n_test} test pairs, "
                     f"{first.ties:.1%} ties")
        lines += table_lines(block)
        peers = block[~block.model.isin(["svmcompare", "freq"])]
        ours = block[block.model == "svmcompare"].iloc[0]
        best = peers.loc[peers.log_loss.idxmin()]
        lines.append(f"svmcompare - best peer ({best.model}): log-loss "
                     f"{ours.log_loss - best.log_loss:+.4f}, Brier {ours.brier - best.brier:+.4f}"
                     f"; chosen {ours.chosen}")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    parser.add_argument("--csv", type=Path)
    args = parser.parse_args(argv)
    table = run(args.sets, quick=args.quick, progress=True)
    print(report(table))
    if args.csv:
        table.to_csv(args.csv, index=False)


if __name__ == "__main__":
    main()
