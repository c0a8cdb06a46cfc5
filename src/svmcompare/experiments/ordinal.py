"""Ordinal regression and ranking on the SUSHI scores (Herbrich et al. 1999 style).

Items are (person, sushi) with the person's score 0..4 as the grade and the
14 features of :func:`svmcompare.datasets.load_sushi_scores`; people are
split into train, validation and test sets, so every test person is new.

Two families are compared on the test people:

* models of grades (fitted on items): ordinal regression by large-margin
  rank boundaries (:class:`~svmcompare.OrdinalSVM`, pairs of different ranks,
  and its variant with equal ranks kept as ties, class-balanced: unweighted,
  SVMCompare finds beta >= 0 on most of the grid, with a fifth of the pairs
  ties), one-vs-rest SVC, epsilon-SVR
  (rounded and clipped to 0..4) and the ordered logit
  (:class:`~svmcompare.ordered_logit.OrderedLogit`, linear);
* models of orders (fitted on pairs of items of the same person):
  :class:`~svmcompare.GroupRankSVM` with equal-score pairs dropped (the tutorial's
  transform) and with them kept as ties (SVMCompare).

Every model gets Kendall's tau per test person (on its continuous score; the
one-vs-rest SVC has none, so its predicted grade) and the pairwise test error
on all pairs of items of the same test person, ties included (a model of
grades compares two items by the sign of its predicted grade difference).
Models of grades also get the ordinal MAE and accuracy.  Each model's
hyper-parameters are chosen on the validation people: by MAE for models of
grades, by pairwise error for models of orders.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.multiclass import OneVsRestClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, SVR
from tqdm.auto import tqdm

from ..datasets import load_sushi_scores
from ..exceptions import NoRankingError
from ..graded import GroupRankSVM, OrdinalSVM
from ..metrics import comparison_errors, kendall_tau_per_group, ordinal_mae
from ..ordered_logit import OrderedLogit
from ..pairs import pair_indices
from .plotting import plt

GRADES = np.arange(5)
KERNEL_GRID = {"C": (0.1, 1.0, 10.0), "gamma": (0.01, 0.1)}
QUICK_KERNEL_GRID = {"C": (1.0, 10.0), "gamma": (0.01,)}
# OrdinalSVM pairs all training items (O(n^2) pairs); this many are drawn.
ORDINAL_PAIRS = 5_000
LOGIT_GRID = {"alpha": (0.1, 1.0, 10.0)}

# name -> (kind, factory(params)); kind "grades" fits items, "orders" fits pairs.
MODELS = {
    "ordered_logit": ("grades", lambda p: make_pipeline(StandardScaler(), OrderedLogit(**p))),
    "svc_ovr": ("grades", lambda p: make_pipeline(StandardScaler(),
                                                  OneVsRestClassifier(SVC(**p)))),
    "svr": ("grades", lambda p: make_pipeline(StandardScaler(), SVR(**p))),
    "ordinal_svm": ("grades", lambda p: OrdinalSVM(kernel="rbf", thresholds="error",
                                                   max_pairs=ORDINAL_PAIRS, random_state=0,
                                                   **p)),
    "ordinal_svm_ties": ("grades", lambda p: OrdinalSVM(kernel="rbf", ties="keep",
                                                        class_weight="balanced",
                                                        thresholds="error",
                                                        max_pairs=ORDINAL_PAIRS,
                                                        random_state=0, **p)),
    "ranksvm": ("orders", lambda p: GroupRankSVM(kernel="rbf", ties="drop", **p)),
    "compare_ties": ("orders", lambda p: GroupRankSVM(kernel="rbf", ties="keep", **p)),
}


@dataclass
class OrdinalResult:
    """``results``: one row per (seed, model, grid point) with validation and
    test metrics; ``chosen``: the row chosen on validation per (seed, model);
    ``summary``: mean and sd over seeds of the chosen rows' test metrics."""

    results: pd.DataFrame
    chosen: pd.DataFrame
    summary: pd.DataFrame
    seconds: float


def split_people(groups, sizes, random_state):
    """Disjoint random sets of people (train, validation, test) of the given sizes."""
    people = np.random.default_rng(random_state).permutation(np.unique(groups))
    if sum(sizes) > people.size:
        raise ValueError(f"{sum(sizes)} people requested; the data has {people.size}.")
    bounds = np.cumsum((0,) + tuple(sizes))
    return [np.isin(groups, people[a:b]) for a, b in itertools.pairwise(bounds)]


def _scores_and_grades(name, model, X):
    """A continuous score for tau (grade prediction for SVC) and predicted grades."""
    if name == "svr":
        raw = model.predict(X)
        return raw, np.clip(np.rint(raw), GRADES[0], GRADES[-1]).astype(int)
    grades = model.predict(X)
    if name == "svc_ovr":
        return grades.astype(float), grades
    return model.decision_function(X), grades


def _evaluate(name, model, X, y, groups):
    kind = MODELS[name][0]
    first, second, labels = pair_indices(y, groups, "keep")
    row = {}
    if kind == "grades":
        score, grades = _scores_and_grades(name, model, X)
        row["mae"] = ordinal_mae(y, grades)
        row["accuracy"] = float(np.mean(grades == y))
        compared = np.sign(grades[second] - grades[first]).astype(int)
    else:
        score = model.rank(X)
        compared = model.compare(np.stack([X[first], X[second]], axis=1))
    errors = comparison_errors(labels, compared)
    row["pair_error_percent"] = 100 * errors["error"] / errors["count"]
    row["false_positive"] = errors["false_positive"]
    row["false_negative"] = errors["false_negative"]
    row["inversion"] = errors["inversion"]
    row["tau"] = kendall_tau_per_group(y, score, groups)[0]
    return row


def _task(seed, name, params, data, masks):
    train, validation, test = masks
    X, y, groups = data
    kind, factory = MODELS[name]
    model = factory(params)
    start = time.perf_counter()
    row = {"seed": seed, "model": name, "kind": kind, **params}
    try:
        if kind == "grades":
            model.fit(X[train], y[train])
        else:
            model.fit(X[train], y[train], groups[train])
    except NoRankingError:
        # A grid point where SVMCompare has beta >= 0: no ranking, never chosen.
        return {**row, "fit_seconds": time.perf_counter() - start, "criterion": np.inf,
                "failed": True}
    row["fit_seconds"] = time.perf_counter() - start
    val = _evaluate(name, model, X[validation], y[validation], groups[validation])
    out = _evaluate(name, model, X[test], y[test], groups[test])
    row["criterion"] = val["mae"] if kind == "grades" else val["pair_error_percent"]
    row["failed"] = False
    row.update({f"test_{key}": value for key, value in out.items()})
    return row


def _grid(name, kernel_grid):
    grid = LOGIT_GRID if name == "ordered_logit" else kernel_grid
    keys = list(grid)
    return [dict(zip(keys, values, strict=True)) for values in itertools.product(*grid.values())]


def run_ordinal(sushi_path, *, people=(200, 200, 1000), seeds=(1, 2, 3), models=None,
                kernel_grid=None, n_jobs=None, progress=False):
    """Fit every model on every grid point per seed; choose on validation; summarize.

    Parameters
    ----------
    sushi_path : str or Path
        The SUSHI folder (read, never copied).
    people : (int, int, int)
        Numbers of train, validation and test people (10 items each).
    seeds : sequence of int
        Each seed draws a new split of the people.
    models : sequence of str, optional
        Subset of :data:`MODELS`.
    kernel_grid : dict, optional
        ``{"C": ..., "gamma": ...}`` for the kernel models
        (default :data:`KERNEL_GRID`); the ordered logit uses :data:`LOGIT_GRID`.
    n_jobs : int, optional
        Parallel (seed, model, grid point) tasks through joblib.
    progress : bool

    Returns
    -------
    OrdinalResult
    """
    start = time.perf_counter()
    names = list(MODELS) if models is None else list(models)
    unknown = set(names) - set(MODELS)
    if unknown:
        raise ValueError(f"Unknown model(s) {sorted(unknown)}; choose from {list(MODELS)}.")
    data = load_sushi_scores(sushi_path, return_X_y=True)
    tasks = [(seed, name, params, split_people(data[2], people, seed))
             for seed in seeds for name in names
             for params in _grid(name, kernel_grid or KERNEL_GRID)]
    outputs = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
        delayed(_task)(seed, name, params, data, masks) for seed, name, params, masks in tasks)
    rows = list(tqdm(outputs, total=len(tasks), desc="sushi ordinal", disable=not progress))
    results, chosen, summary = summarize_ordinal(pd.DataFrame(rows), names)
    return OrdinalResult(results, chosen, summary, time.perf_counter() - start)


def summarize_ordinal(results, names=None):
    """The grid point chosen on validation per (seed, model), and test means over seeds."""
    names = list(MODELS) if names is None else list(names)
    results = results.sort_values(["seed", "model", "criterion"], kind="stable")
    chosen = results.groupby(["seed", "model"], sort=False).head(1)
    metrics = ["test_mae", "test_accuracy", "test_tau", "test_pair_error_percent"]
    summary = chosen.groupby("model")[metrics].agg(["mean", "std"])
    summary.columns = [f"{metric[5:]}_{stat.replace('std', 'sd')}"
                       for metric, stat in summary.columns]
    summary = summary.loc[[n for n in names if n in summary.index]].reset_index()
    return results.reset_index(drop=True), chosen.reset_index(drop=True), summary


def plot_ordinal(summary, path):
    """Bars of test MAE, Kendall tau per person and pairwise error (mean +- sd)."""
    panels = (("mae", "ordinal MAE (grade steps)"), ("tau", "Kendall tau per person"),
              ("pair_error_percent", "pairwise error incl. ties (%)"))
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.2))
    for ax, (metric, title) in zip(axes, panels, strict=True):
        rows = summary.dropna(subset=[f"{metric}_mean"])
        colors = ["tab:blue" if MODELS[m][0] == "grades" else "tab:orange" for m in rows["model"]]
        ax.barh(rows["model"], rows[f"{metric}_mean"], xerr=rows[f"{metric}_sd"].fillna(0),
                color=colors)
        ax.invert_yaxis()
        ax.set_title(title, fontsize=10)
        low = rows[f"{metric}_mean"].min()
        ax.set_xlim(left=0.9 * low if metric != "tau" else 0)
    fig.suptitle("SUSHI scores, new test people (blue: models of grades; orange: of orders)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
