"""Many-item results (races, multi-way comparisons) broken into pairs: does it rank well?

    python benchmarks/bench_rankings.py [--runners 50] [--field 8] [--races 100 300 1000]
        [--step 0.5] [--seeds 5]

Simulated races: ``runners`` with normal log-strengths s, each race a field of
``field`` runners drawn at random, finishing times -s + Gumbel noise (the
Plackett-Luce model) rounded to 0.2, so that close finishes are dead heats
(ties).  70% of the races train, 30% test.  ``matches_from_rankings`` breaks
each race into its k (k - 1) / 2 pairs, ties kept, and:

* ``ours pair`` / ``ours item``: ``SVMCompare(kernel="linear",
  scale_indicators=False, probability=True)`` on the runners' identities,
  every pair weighing 1 / each runner's pairs of a race weighing 1 in all
  (``weight="item"``);
* ``ours CV``: ``SVMCompareCV(probability=True)`` with race-group folds, item weights;
* ``choix PL``: the Plackett-Luce maximum-likelihood strengths of choix
  (``ilsr_rankings``, a benchmark-only extra; it takes strict orders, so
  dead heats are broken at random), a Davidson draw model (tie parameter and
  scale) fitted by likelihood on the training pairs;
* ``mean place``: each runner's mean finishing percentile, the same Davidson fit.

Prints Kendall's tau between the fitted and the true strengths, and the
win / draw / loss log-loss on the test races' pairs: means over ``seeds``
simulations (new strengths and races each), with their standard errors.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.stats import kendalltau
from sklearn.model_selection import GroupKFold

from bench_ratings_scale import davidson_proba, fit_davidson, log_loss
from svmcompare import SVMCompare, SVMCompareCV, matches_from_rankings


def simulate(runners, field, races, step, seed=0):
    rng = np.random.default_rng(seed)
    strength = rng.normal(size=runners)
    rows = []
    for race in range(races):
        who = rng.choice(runners, size=field, replace=False)
        time_ = np.round((-strength[who] + rng.gumbel(size=field)) / step) * step
        place = pd.Series(time_).rank(method="min").to_numpy()
        rows += [{"race": race, "runner": int(i), "place": p}
                 for i, p in zip(who, place, strict=True)]
    return pd.DataFrame(rows), strength


def _identities(table, runners):
    """Sparse one-hot rows (n, 2 runners): x's runner, then x''s (the same columns
    for train and test), as ``pairs_from_frame(..., sparse=True)`` gives them."""
    rows = np.arange(len(table))
    return sp.csr_matrix((np.ones(2 * rows.size), (np.r_[rows, rows], np.r_[
        table["item_a"].to_numpy(int), runners + table["item_b"].to_numpy(int)])),
        shape=(rows.size, 2 * runners))


def _davidson_scored(scores, train, test):
    diff = lambda t: scores[t["item_b"].to_numpy(int)] - scores[t["item_a"].to_numpy(int)]  # noqa: E731
    theta = fit_davidson(diff(train), train["y"].to_numpy())
    return davidson_proba(diff(test), theta)


def run(runners, field, races, step, seed=0):
    results, strength = simulate(runners, field, races, step, seed)
    test_races = results["race"] >= int(0.7 * races)
    rows = []
    for weight in ("pair", "item"):
        train = matches_from_rankings(results[~test_races], event="race", item="runner",
                                      position="place", weight=weight)
        test = matches_from_rankings(results[test_races], event="race", item="runner",
                                     position="place")
        rows.append(_ours(f"ours {weight}", SVMCompare(kernel="linear", scale_indicators=False,
                                                       probability=True),
                          train, test, runners, strength))
    search = SVMCompareCV(probability=True, cv=GroupKFold(5), progress=False)
    rows.append(_ours("ours CV", search, train, test, runners, strength,
                      groups=train["event"].to_numpy()))
    rows.append(_choix(results[~test_races], train, test, runners, strength, seed))
    start = time.perf_counter()
    placed = results[~test_races].assign(
        share=lambda f: (f["place"] - 1) / (f.groupby("race")["place"].transform("size") - 1))
    mean = placed.groupby("runner")["share"].mean().reindex(range(runners)).fillna(0.5)
    scores = -mean.to_numpy()
    proba = _davidson_scored(scores, train, test)
    rows.append({"model": "mean place", "tau": kendalltau(scores, strength).statistic,
                 "log_loss": log_loss(proba, test["y"].to_numpy()),
                 "fit_s": time.perf_counter() - start})
    ties = float(np.mean(train["y"] == 0))
    return rows, len(train), len(test), ties


def _ours(name, model, train, test, runners, strength, groups=None):
    X, y = _identities(train, runners), train["y"].to_numpy()
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = dict(sample_weight=train["weight"].to_numpy())
        if groups is not None:
            fit["groups"] = groups
        model.fit(X, y, **fit)
    seconds = time.perf_counter() - start
    scores = model.rank(sp.identity(runners, format="csr"))
    proba = model.predict_proba(_identities(test, runners))
    return {"model": name, "tau": kendalltau(scores, strength).statistic,
            "log_loss": log_loss(proba, test["y"].to_numpy()), "fit_s": seconds}


def _choix(results, train, test, runners, strength, seed):
    import choix

    rng = np.random.default_rng(seed + 1)
    start = time.perf_counter()
    # Strict orders: dead heats broken at random.
    jitter = results.assign(key=results["place"] + 0.5 * rng.random(len(results)))
    rankings = [block.sort_values("key")["runner"].tolist()
                for _, block in jitter.groupby("race", sort=False)]
    scores = choix.ilsr_rankings(runners, rankings, alpha=0.01)
    proba = _davidson_scored(scores, train, test)
    return {"model": "choix PL", "tau": kendalltau(scores, strength).statistic,
            "log_loss": log_loss(proba, test["y"].to_numpy()),
            "fit_s": time.perf_counter() - start}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runners", type=int, default=50)
    parser.add_argument("--field", type=int, default=8)
    parser.add_argument("--races", type=int, nargs="+", default=[100, 300, 1000])
    parser.add_argument("--step", type=float, default=0.5)
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args(argv)
    print(f"{args.runners} runners, fields of {args.field}, times rounded to {args.step}, "
          f"70% of the races train; means (standard errors) over {args.seeds} simulations")
    print(f"{'races':>6} {'train pairs':>11} {'ties':>5} {'model':<11} {'tau':>14} "
          f"{'test log-loss':>16} {'fit s':>6}")
    for races in args.races:
        runs = [run(args.runners, args.field, races, args.step, seed)
                for seed in range(args.seeds)]
        table = pd.DataFrame([r for rows, *_ in runs for r in rows])
        n_train, ties = runs[0][1], float(np.mean([r[3] for r in runs]))
        stats = table.groupby("model", sort=False).agg(["mean", "sem"])
        for model, r in stats.iterrows():
            print(f"{races:>6} {n_train:>11,} {ties:>5.1%} {model:<11} "
                  f"{r[('tau', 'mean')]:>6.3f} ({r[('tau', 'sem')]:.3f}) "
                  f"{r[('log_loss', 'mean')]:>7.4f} ({r[('log_loss', 'sem')]:.4f}) "
                  f"{r[('fit_s', 'mean')]:>6.2f}")


if __name__ == "__main__":
    main()
