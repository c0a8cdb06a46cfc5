"""The paper's experimental protocol (section 4), shared by Figures 4 and 5.

A *setting* is one point of a figure: a panel (a simulated pattern or the
sushi data), a number n of pairs, a fraction of equality pairs and a seed.
For each setting, train, validation and test sets of n pairs each are drawn;
rank, rank2 and compare are each fitted over the hyper-parameter grid on the
training set, the grid point with the best validation score is kept (minimum
zero-one error for Figure 4, maximum AUC for Figure 5), and it is scored on
the test set.  On the simulated panels, "truth" is the latent r with the
threshold 1 of the labels (c_1 of eq. 5), i.e. the error due to the noise.

Every (setting, model) is one task; tasks run in parallel through joblib,
the largest first, each fitting its grid sequentially.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from importlib import resources

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from tqdm.auto import tqdm

from ..baselines import SVMRank, SVMRank2
from ..compare import SVMCompare
from ..datasets import latent_rank, load_sushi, make_norm_pairs
from ..exceptions import NoRankingError
from ..grid_search import paper_grid, validation_search
from ..metrics import comparison_report

SIMULATED = ("l1", "l2", "linf")
PANELS = (*SIMULATED, "sushi")
def _paper_compare(**params):
    """SVMCompare as the paper has it: no class weights, NoRankingError when beta >= 0."""
    return SVMCompare(class_weight=None, on_degenerate="raise", **params)


MODELS = {"rank": SVMRank, "rank2": SVMRank2, "compare": _paper_compare}
SETS = ("train", "validation", "test")


@dataclass(frozen=True)
class Setting:
    """One point of a figure: which data, how many pairs, how many ties, which seed."""

    panel: str
    n_pairs: int
    equality_fraction: float
    seed: int


def _sample_pool(X, y, n_pairs, equality_fraction, rng):
    """Disjoint train, validation and test sets drawn without replacement from a pool."""
    n_eq = int(round(n_pairs * equality_fraction))
    n_ineq = n_pairs - n_eq
    eq = rng.permutation(np.flatnonzero(y == 0))
    ineq = rng.permutation(np.flatnonzero(y != 0))
    if eq.size < 3 * n_eq or ineq.size < 3 * n_ineq:
        raise ValueError(
            f"The pool has {eq.size} equality and {ineq.size} inequality pairs; three sets of "
            f"{n_pairs} pairs with {n_eq} equality pairs each need {3 * n_eq} and {3 * n_ineq}."
        )
    sets = {}
    for k, name in enumerate(SETS):
        index = np.concatenate([eq[k * n_eq:(k + 1) * n_eq], ineq[k * n_ineq:(k + 1) * n_ineq]])
        index = rng.permutation(index)
        sets[name] = (X[index], y[index])
    return sets


def draw_sets(setting, sushi=None):
    """Train, validation and test pair sets of ``setting.n_pairs`` pairs each.

    Parameters
    ----------
    setting : Setting
    sushi : tuple (X, y), optional
        The pool of sushi pairs (:func:`svmcompare.datasets.load_sushi`);
        required for the ``"sushi"`` panel.

    Returns
    -------
    dict
        ``{"train": (X, y), "validation": (X, y), "test": (X, y)}``.
    """
    rng = np.random.RandomState(setting.seed)
    if setting.panel == "sushi":
        if sushi is None:
            raise ValueError("The sushi panel needs the sushi pairs (load_sushi(path)).")
        return _sample_pool(*sushi, setting.n_pairs, setting.equality_fraction, rng)
    if setting.panel not in SIMULATED:
        raise ValueError(f"panel must be one of {PANELS}; got {setting.panel!r}.")
    return {
        name: make_norm_pairs(setting.n_pairs, setting.panel, setting.equality_fraction,
                              random_state=rng)
        for name in SETS
    }


def _test_scores(y, diff, tau):
    """Test error (%) with its kinds, and the comparison AUC, of scores r(x') - r(x)."""
    e = comparison_report(y, diff, tau)
    # The paper's scripts count inversions as true positives (see metrics).
    scripts_auc = comparison_report(y, diff, tau, inversions="true_positive")["auc"]
    return {"test_error": 100.0 * e["error_rate"], "test_auc": e["auc"],
            "test_auc_scripts": scripts_auc,
            "false_positive": e["false_positive"], "false_negative": e["false_negative"],
            "inversion": e["inversion"], "test_pairs": e["count"]}


def _fit_task(setting, model_name, sets, grid, scoring):
    """Select one model on validation over the grid and score it on the test set."""
    start = time.perf_counter()
    row = {**asdict(setting), "model": model_name}
    try:
        model, results = validation_search(MODELS[model_name](), grid, *sets["train"],
                                           *sets["validation"], scoring=scoring)
    except NoRankingError:
        return {**row, "failed": True, "seconds": time.perf_counter() - start}
    chosen = results[results["selected"]].iloc[0]
    X_test, y_test = sets["test"]
    scores = _test_scores(y_test, model.decision_function(X_test), model.threshold_)
    return {**row, "failed": False, "C": model.C, "gamma": model.gamma,
            "validation_error": 100.0 * chosen["error"], "validation_auc": chosen["auc"],
            **scores, "seconds": time.perf_counter() - start}


def _truth_row(setting, sets):
    """The latent r with threshold 1: the labels' own rule, without their noise."""
    X_test, y_test = sets["test"]
    diff = latent_rank(X_test[:, 1], setting.panel) - latent_rank(X_test[:, 0], setting.panel)
    return {**asdict(setting), "model": "truth", "failed": False,
            **_test_scores(y_test, diff, 1.0), "seconds": 0.0}


def run_settings(settings, *, scoring="error", grid=None, sushi_path=None, n_jobs=None,
                 progress=False, description="fits"):
    """Run the protocol on every setting; one row per (setting, model).

    Parameters
    ----------
    settings : sequence of Setting
    scoring : {"error", "auc"}
        Model selection on validation: minimum zero-one error or maximum AUC.
    grid : dict, optional
        Default :func:`svmcompare.grid_search.paper_grid`.
    sushi_path : str or Path, optional
        Folder of the sushi data, required when a setting uses that panel.
    n_jobs : int, optional
        Parallel tasks through joblib.
    progress : bool
        A progress bar over the fits.

    Returns
    -------
    pandas.DataFrame
        Columns of :class:`Setting`, ``model``, ``failed``, chosen ``C`` and
        ``gamma``, ``validation_error`` (%) and ``validation_auc`` at the
        chosen point, ``test_error`` (%) with its ``false_positive``,
        ``false_negative`` and ``inversion`` counts, ``test_auc`` (Table 3)
        and ``test_auc_scripts`` (inversions counted as true positives, as
        the paper's scripts do), ``test_pairs`` and ``seconds`` (fit time of the whole grid).
    """
    grid = paper_grid() if grid is None else grid
    settings = list(settings)
    sushi = None
    if any(s.panel == "sushi" for s in settings):
        if sushi_path is None:
            raise ValueError("The sushi panel needs sushi_path, the folder of the sushi data.")
        sushi = load_sushi(sushi_path, return_X_y=True)
    sets = {s: draw_sets(s, sushi) for s in settings}
    rows = [_truth_row(s, sets[s]) for s in settings if s.panel in SIMULATED]
    # Largest problems first, so that no long fit starts last.
    tasks = sorted(((s, m) for s in settings for m in MODELS), key=lambda t: -t[0].n_pairs)
    outputs = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
        delayed(_fit_task)(s, m, sets[s], grid, scoring) for s, m in tasks
    )
    rows += list(tqdm(outputs, total=len(tasks), desc=description, disable=not progress))
    order = ["panel", "n_pairs", "equality_fraction", "seed", "model"]
    return pd.DataFrame(rows).sort_values(order, kind="stable").reset_index(drop=True)


def paper_numbers(figure):
    """Means and sds read off the paper's Figure 4 (``"fig4"``) or 5 (``"fig5"``).

    Returns
    -------
    pandas.DataFrame
        Columns panel, model, x (n or the equality fraction), paper_mean and
        paper_sd; the paper's ribbons are mean +- sd over 4 seeds.
    """
    with resources.files(__package__).joinpath("paper_figures.csv").open() as f:
        table = pd.read_csv(f)
    table = table[table["figure"] == figure]
    return pd.DataFrame({"panel": table["panel"], "model": table["model"], "x": table["x"],
                         "paper_mean": table["mean"],
                         "paper_sd": (table["upper"] - table["lower"]) / 2}).reset_index(drop=True)


def summarize(results, x, value, figure):
    """Mean and sd over seeds of ``value`` per panel, model and ``x``, beside the paper's.

    Parameters
    ----------
    results : DataFrame from :func:`run_settings`
    x : {"n_pairs", "equality_fraction"}
    value : {"test_error", "test_auc"}
    figure : {"fig4", "fig5"}

    Returns
    -------
    pandas.DataFrame
        panel, model, x, mean, sd, seeds (number of successful fits),
        paper_mean, paper_sd, and ``difference`` = mean - paper_mean.
    """
    ok = results[~results["failed"]]
    table = ok.groupby(["panel", "model", x], sort=False)[value].agg(
        mean="mean", sd="std", seeds="count").reset_index().rename(columns={x: "x"})
    paper = paper_numbers(figure)
    table["x"] = table["x"].astype(float).round(6)
    paper["x"] = paper["x"].astype(float).round(6)
    table = table.merge(paper, on=["panel", "model", "x"], how="left")
    table["difference"] = table["mean"] - table["paper_mean"]
    return table
