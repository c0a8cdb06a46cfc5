"""Identities whose own draw rate varies (an LLM arena's judgments, a league's
defensive sides): sparse pairs against dense ones, next to the peers, in one run.

    python benchmarks/bench_arena.py [--sizes 5000 50000] [--suite]
        [--layouts sparse dense] [--no-peers]

Simulated judgments between 64 ids drawn with unequal popularity (a few ids
judged often, many rarely, as in an arena): strength s and draw propensity t
per id; the judgment is an ordered logit on s_b - s_a with a tie band of
half-width exp(t_a + t_b - 0.3) (about 43% ties).  The last fifth of the
judgments is the test set; folds group the judgments by 50 simulated prompts.
Ours is the README's call, ``SVMCompareCV(probability=True, cv=GroupKFold(5),
n_jobs=2)``, on sparse pairs (``pairs_from_frame(..., sparse=True)``) and on
dense one-hot pairs; the peers (bench_real.py's) see the dense one-hot:
multinomial logistic regression on [x' - x] and, as the issue's stronger logit,
on [x' - x, |x' - x|, x + x'] (which two ids meet), gradient boosting; "oracle"
is the generator's own probabilities.  ``--chain``: ids released over time,
judged mostly against their contemporaries (:func:`simulate_chain`);
``--folds time`` groups the folds by blocks of consecutive judgments instead
of by prompt; ``--history`` gives every model each side's history features
(``games_features``) instead of its identity.  ``--suite`` adds the suite's two
identity sets (llm_judgments, computer_chess) with ours on both layouts.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegressionCV
from sklearn.model_selection import GroupKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_real  # noqa: E402
from svmcompare import SVMCompareCV  # noqa: E402
from svmcompare.metrics import outcome_log_loss  # noqa: E402

N_IDS = 64


def simulate(n, seed=0):
    """Dense one-hot pairs (n, 2, 64), labels, prompts and the generator's
    probabilities of n judgments (self-pairs dropped, so a little fewer)."""
    rng = np.random.default_rng(seed)
    strength, drawish = rng.normal(0, 0.8, N_IDS), rng.normal(0, 0.6, N_IDS)
    popularity = rng.dirichlet(np.full(N_IDS, 0.7))
    a, b = rng.choice(N_IDS, n, p=popularity), rng.choice(N_IDS, n, p=popularity)
    a, b = a[a != b], b[a != b]
    d, band = strength[b] - strength[a], np.exp(drawish[a] + drawish[b] - 0.3)
    p_loss, p_win = 1 / (1 + np.exp(band + d)), 1 / (1 + np.exp(band - d))
    u = rng.uniform(size=a.size)
    y = np.where(u < p_loss, -1, np.where(u < p_loss + p_win, 1, 0))
    X = np.zeros((a.size, 2, N_IDS))
    X[np.arange(a.size), 0, a] = 1.0
    X[np.arange(a.size), 1, b] = 1.0
    return X, y, rng.integers(0, 50, a.size), np.column_stack([p_loss, 1 - p_loss - p_win,
                                                                 p_win])


def simulate_chain(n, seed=0):
    """As :func:`simulate`, but the ids arrive over time, newer ones stronger on
    average, and each judgment is between ids already released, mostly recent
    ones (an arena's models judged against their contemporaries): the graph of
    who met whom is a chain, and the test fifth holds the newest ids, with few
    judgments before it."""
    rng = np.random.default_rng(seed)
    release = np.sort(rng.uniform(0, 0.9, N_IDS))
    release[:2] = 0.0
    strength = 2.0 * release + rng.normal(0, 0.5, N_IDS)
    drawish = rng.normal(0, 0.6, N_IDS)
    popularity = rng.dirichlet(np.full(N_IDS, 0.7))
    times = np.sort(rng.uniform(0, 1, n))
    a, b = np.empty(n, dtype=int), np.empty(n, dtype=int)
    for i, t in enumerate(times):
        weight = np.where(release <= t, popularity * np.exp(-(t - release) / 0.15), 0.0)
        a[i], b[i] = rng.choice(N_IDS, 2, replace=False, p=weight / weight.sum())
    d, band = strength[b] - strength[a], np.exp(drawish[a] + drawish[b] - 0.3)
    p_loss, p_win = 1 / (1 + np.exp(band + d)), 1 / (1 + np.exp(band - d))
    u = rng.uniform(size=n)
    y = np.where(u < p_loss, -1, np.where(u < p_loss + p_win, 1, 0))
    X = np.zeros((n, 2, N_IDS))
    X[np.arange(n), 0, a] = 1.0
    X[np.arange(n), 1, b] = 1.0
    return X, y, rng.integers(0, 50, n), np.column_stack([p_loss, 1 - p_loss - p_win, p_win])


def history(X, y):
    """Each side's features from the judgments before it (``games_features``,
    the judgments in time order): Elo, Glicko, counts and shares of results."""
    import pandas as pd

    from svmcompare.datasets import games_features

    games = pd.DataFrame({"a": X[:, 0].argmax(1), "b": X[:, 1].argmax(1), "y": y,
                          "t": np.arange(y.size)})
    return games_features(games, first="a", second="b", result="y",
                          outcome_map={-1: -1, 0: 0, 1: 1}, time="t")[0]


def wide(X):
    """The sparse (n, 2 p) layout of dense pairs (n, 2, p)."""
    return sp.csr_matrix(np.hstack([X[:, 0], X[:, 1]]))


def _ours(X, y, context, groups):
    start = time.perf_counter()
    model = SVMCompareCV(probability=True, cv=GroupKFold(5), n_jobs=2,
                         progress=False).fit(X, y, context=context, groups=groups)
    return model, time.perf_counter() - start


def _pair_logit(X, y, c, Xt, ct, folds):
    """Multinomial logit on [x' - x, |x' - x|, x + x', context], both orientations."""
    def design(Z, c):
        return np.hstack([Z[:, 1] - Z[:, 0], np.abs(Z[:, 1] - Z[:, 0]), Z[:, 1] + Z[:, 0], c])

    Xb, yb, cb = bench_real._both(X, y, c)
    ct = np.zeros((len(Xt), 0)) if ct is None else ct
    model = make_pipeline(StandardScaler(), LogisticRegressionCV(
        Cs=np.logspace(-4, 2, 13), cv=bench_real._doubled(folds, len(y)),
        scoring="neg_log_loss", max_iter=5000)).fit(design(Xb, cb), yb)
    return (model.predict_proba(design(Xt, ct))
            + model.predict_proba(design(Xt[:, ::-1], -ct))[:, ::-1]) / 2


def _short(params):
    keep = ("C", "class_weight", "tie_band", "link")
    return ", ".join(f"{k}={params[k]:.0e}" if k == "C" else f"{k}={params[k]}"
                     for k in keep if k in params)


def run_set(name, X, y, context, groups, train, test, oracle=None,
            layouts=("sparse", "dense"), peers=True):
    rows = []
    ctr, cte = (None, None) if context is None else (context[train], context[test])
    folds = bench_real.group_folds(groups[train])
    for layout in layouts:
        pairs = wide(X) if layout == "sparse" else X
        model, seconds = _ours(pairs[train], y[train], ctr, groups[train])
        proba = model.predict_proba(pairs[test], cte)
        rows.append((f"ours ({layout})", outcome_log_loss(y[test], proba), seconds,
                     _short(model.best_params_)))
    for model_name in ("mlogit", "hgb") if peers else ():
        start = time.perf_counter()
        proba, _ = bench_real.MODELS[model_name](X[train], y[train], ctr, X[test], cte,
                                                 False, folds)
        rows.append((model_name, outcome_log_loss(y[test], proba), time.perf_counter() - start,
                     ""))
    if peers:
        start = time.perf_counter()
        proba = _pair_logit(X[train], y[train], ctr, X[test], cte, folds)
        rows.append(("mlogit [d, |d|, x + x']", outcome_log_loss(y[test], proba),
                     time.perf_counter() - start, ""))
    if oracle is not None:
        rows.append(("oracle", outcome_log_loss(y[test], oracle[test]), 0.0, ""))
    for model_name, loss, seconds, chosen in rows:
        print(f"| {name} | {int(train.sum()):,} | {model_name} | {loss:.4f} | {seconds:.1f} | "
              f"{chosen} |", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[5000, 50000])
    parser.add_argument("--suite", action="store_true")
    parser.add_argument("--layouts", nargs="+", default=["sparse", "dense"],
                        choices=["sparse", "dense"], help="ours on these pair layouts")
    parser.add_argument("--no-peers", action="store_true", help="ours only")
    parser.add_argument("--chain", action="store_true",
                        help="ids released over time, judged against contemporaries")
    parser.add_argument("--seeds", nargs="+", type=int, default=[0])
    parser.add_argument("--history", action="store_true",
                        help="each side's history features (games_features, judgments in "
                             "time order) instead of its identity")
    parser.add_argument("--folds", choices=["prompts", "time"], default="prompts",
                        help="group folds by simulated prompt (spread over time) or by ten "
                             "blocks of consecutive judgments")
    args = parser.parse_args(argv)
    print("| data | training pairs | model | test log-loss | fit s | chosen |")
    print("|---|---|---|---|---|---|")
    for n in args.sizes:
        for seed in args.seeds:
            X, y, groups, oracle = (simulate_chain if args.chain else simulate)(n, seed)
            if args.folds == "time":
                groups = np.arange(y.size) * 10 // y.size
            test = np.arange(y.size) >= int(0.8 * y.size)
            name = (f"{'chain ' if args.chain else ''}arena {N_IDS} ids, seed {seed}, "
                    f"{args.folds} folds{', history' if args.history else ''}")
            layouts = args.layouts
            if args.history:
                X, layouts = history(X, y), ["dense"]
            run_set(name, X, y, None, groups, ~test, test, oracle, layouts, not args.no_peers)
    if args.suite:
        import bench_suite

        for name, _, _, X, y, context, train, test, _, groups in bench_suite.suite_sets(
                ["llm_judgments", "computer_chess"]):
            run_set(name, X, y, context, groups, train, test, None, args.layouts,
                    not args.no_peers)


if __name__ == "__main__":
    main()
