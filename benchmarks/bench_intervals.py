"""Do 90% bootstrap intervals cover 90% of the time?  And what does a
bootstrap cost at 100,000 games?

    python benchmarks/bench_intervals.py [--repeats 40] [--resamples 200] [--loss squared_hinge]
    python benchmarks/bench_intervals.py --search --loss squared_hinge
    python benchmarks/bench_intervals.py --timing-only

Coverage, by simulation: games between ``players`` ids with normal
strengths s, y from s_b - s_a + logistic noise (a draw within 0.8 of 0);
each repeat draws a new training set from the same players and fits
``BootstrapCompare(SVMCompare(kernel="linear", scale_indicators=False,
probability=True, C=C))``.  The target of an interval is what the same
procedure estimates with unlimited data: the model fitted on 50 times as
many games, each weighted 1/50 (the same objective): its rank positions
(a tie of items counted covered when the interval reaches one of its places),
win / draw / loss probabilities of 300 fixed pairs and scores r(x).  Scores
have no unit of their own (Lemma 1 scales them by 1 / (-beta)), so the
replicates are put on the point model's scale (``BootstrapCompare``'s
alignment) and so is the target, by the same least-squares map.  The
generator's own probabilities and positions are reported too (the model is
not the generator, so they need not be covered at nominal rates).

``--search``: the model is a search instead, ``SVMCompareCV`` over the
same single point (it chooses the probability link: tie band and family)
with group folds over 20 "seasons" of consecutive games, bootstrapped by
``BootstrapCompare(search).fit(X, y, groups=seasons)`` (each replicate's
link fitted on the search's folds' held-out scores); the target is the same
search on 50 times the games (20 seasons of them).

Probability intervals are ``BootstrapCompare``'s default, the calibrated
bootstrap; "P pct", "true pct" and "w pct" are the plain percentile
intervals of the same replicates' probabilities.

Widths: the mean interval width of a score over the spread (standard deviation)
of the point scores, and of a probability.

Timing: 200 resamples of 1,000 players x 100,000 games, ``n_jobs=2``,
with and without probabilities, against one fit of the same model.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import scipy.sparse as sp
from sklearn.model_selection import GroupKFold

from svmcompare import BootstrapCompare, SVMCompare, SVMCompareCV
from svmcompare.bootstrap import alignment, percentile_interval, positions

DRAW = 0.8


def games(strength, n, rng):
    players = strength.size
    a = rng.integers(0, players, n)
    b = (a + rng.integers(1, players, n)) % players
    d = strength[b] - strength[a] + rng.logistic(size=n)
    return a, b, np.where(d > DRAW, 1, np.where(d < -DRAW, -1, 0))


def wide(a, b, players):
    rows = np.arange(a.size)
    return sp.csr_matrix((np.ones(2 * a.size), (np.r_[rows, rows], np.r_[a, players + b])),
                         shape=(a.size, 2 * players))


def true_proba(strength, a, b):
    def above(t):
        return 1.0 / (1.0 + np.exp(-(strength[b] - strength[a] - t)))
    win_b, not_win_a = above(DRAW), above(-DRAW)
    return np.c_[1.0 - not_win_a, not_win_a - win_b, win_b]


SEASONS = 20


def model(C, loss="hinge", search=False):
    if search:
        grid = {"kernel": ["linear"], "scale_indicators": [False], "loss": [loss], "C": [C]}
        return SVMCompareCV(param_grid=grid, probability=True, cv=GroupKFold(5),
                            progress=False)
    return SVMCompare(kernel="linear", scale_indicators=False, probability=True, C=C, loss=loss)


def seasons(n_games, search):
    """Consecutive blocks of games (the search's folds and nothing else)."""
    return np.arange(n_games) * SEASONS // n_games if search else None


def coverage(players, n_games, C, repeats, resamples, confidence, seed=0, loss="hinge",
             search=False):
    rng = np.random.default_rng(seed)
    strength = rng.normal(size=players)
    items = sp.identity(players, format="csr")
    pa, pb, _ = games(strength, 300, rng)
    pairs = wide(pa, pb, players)
    big = 50
    a, b, y = games(strength, big * n_games, rng)
    population = model(C, loss, search).fit(wide(a, b, players), y,
                                            sample_weight=np.full(y.size, 1.0 / big),
                                            **_groups(seasons(y.size, search)))
    target = {"score": population.rank(items), "proba": population.predict_proba(pairs)}
    # A tie of the target (items on the hinge's margin share a score) holds
    # every place from its best to its worst: an interval covers it when it
    # reaches any of them.
    target["position"] = positions(target["score"])
    target["position_worst"] = positions(target["score"], "max")
    truth = {"proba": true_proba(strength, pa, pb), "position": positions(strength)}
    hits = {name: [] for name in ("score", "position", "proba", "true position", "true proba",
                                  "proba pct", "true proba pct")}
    widths = {"score": [], "proba": [], "proba pct": []}
    start = time.perf_counter()
    for _ in range(repeats):
        a, b, y = games(strength, n_games, rng)
        boot = BootstrapCompare(model(C, loss, search), n_resamples=resamples,
                                confidence=confidence, n_jobs=2,
                                random_state=int(rng.integers(2**31)), progress=False
                                ).fit(wide(a, b, players), y, **_groups(seasons(y.size, search)))
        lo, hi = boot.rank_interval(items)
        scale, offset = alignment(boot.rank(items), target["score"])
        aligned = scale * target["score"] + offset
        hits["score"].append((lo <= aligned) & (aligned <= hi))
        widths["score"].append(np.mean(hi - lo) / np.std(boot.rank(items)))
        best, worst = boot.rank_position_interval(items)
        hits["position"].append((best <= target["position_worst"])
                                & (target["position"] <= worst))
        hits["true position"].append((best <= truth["position"])
                                     & (truth["position"] <= worst))
        lo, hi = boot.predict_proba_interval(pairs)  # the calibrated bootstrap's
        hits["proba"].append(((lo <= target["proba"]) & (target["proba"] <= hi)).ravel())
        hits["true proba"].append(((lo <= truth["proba"]) & (truth["proba"] <= hi)).ravel())
        widths["proba"].append(np.mean(hi - lo))
        lo, hi = percentile_interval(boot.proba_replicates(pairs), confidence)
        hits["proba pct"].append(((lo <= target["proba"]) & (target["proba"] <= hi)).ravel())
        hits["true proba pct"].append(((lo <= truth["proba"]) & (truth["proba"] <= hi)).ravel())
        widths["proba pct"].append(np.mean(hi - lo))
    seconds = (time.perf_counter() - start) / repeats
    return ({name: float(np.mean(np.concatenate(v))) for name, v in hits.items()},
            {name: float(np.mean(v)) for name, v in widths.items()}, seconds)


def _groups(groups):
    return {} if groups is None else {"groups": groups}


def timing(players=1000, n_games=100_000, resamples=200, loss="hinge"):
    rng = np.random.default_rng(1)
    strength = rng.normal(size=players)
    a, b, y = games(strength, n_games, rng)
    X = wide(a, b, players)
    rows = []
    for probability in (False, True):
        estimator = SVMCompare(kernel="linear", scale_indicators=False, probability=probability,
                               loss=loss)
        start = time.perf_counter()
        estimator.fit(X, y)
        one = time.perf_counter() - start
        start = time.perf_counter()
        BootstrapCompare(estimator, n_resamples=resamples, n_jobs=2, random_state=0,
                         progress=False).fit(X, y)
        rows.append((probability, one, time.perf_counter() - start))
    print(f"\n{resamples} resamples of {players:,} players x {n_games:,} games, loss {loss}, "
          "n_jobs=2:")
    print(f"{'probabilities':>13} {'one fit s':>10} {'bootstrap s':>12} {'/ one fit':>10}")
    for probability, one, total in rows:
        print(f"{str(probability):>13} {one:>10.2f} {total:>12.1f} {total / one:>10.0f}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=40)
    parser.add_argument("--resamples", type=int, default=200)
    parser.add_argument("--confidence", type=float, default=0.9)
    parser.add_argument("--timing-only", action="store_true")
    parser.add_argument("--loss", choices=["hinge", "squared_hinge"], default="hinge")
    parser.add_argument("--search", action="store_true",
                        help="bootstrap a search with group folds (see above)")
    parser.add_argument("--sizes", default="30x1000x1,30x1000x0.01,100x5000x1,100x5000x0.01",
                        help="players x games x C, comma-separated")
    args = parser.parse_args(argv)
    if not args.timing_only:
        what = "a search with group folds" if args.search else "one model"
        print(f"coverage of {100 * args.confidence:g}% intervals, {args.repeats} repeats x "
              f"{args.resamples} resamples, loss {args.loss}, {what}")
        print(f"{'players':>7} {'games':>7} {'C':>6} {'score':>6} {'position':>8} {'proba':>6} "
              f"{'true pos':>8} {'true P':>6} {'w r/sd':>7} {'width P':>7} {'P pct':>6} "
              f"{'true pct':>8} {'w pct':>6} {'s/repeat':>8}")
        for size in args.sizes.split(","):
            players, n_games, C = (float(v) for v in size.split("x"))
            players, n_games = int(players), int(n_games)
            hit, width, seconds = coverage(players, n_games, C, args.repeats, args.resamples,
                                           args.confidence, loss=args.loss,
                                           search=args.search)
            print(f"{players:>7} {n_games:>7} {C:>6g} {hit['score']:>6.3f} "
                  f"{hit['position']:>8.3f} {hit['proba']:>6.3f} {hit['true position']:>8.3f} "
                  f"{hit['true proba']:>6.3f} {width['score']:>7.3f} {width['proba']:>7.3f} "
                  f"{hit['proba pct']:>6.3f} {hit['true proba pct']:>8.3f} "
                  f"{width['proba pct']:>6.3f} {seconds:>8.1f}", flush=True)
    timing(loss=args.loss)


if __name__ == "__main__":
    main()
