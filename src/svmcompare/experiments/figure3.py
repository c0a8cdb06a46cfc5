"""Figure 3: learned ranking functions on the simulated ||x||_1^2 pattern.

Train and validation sets of ``n_pairs`` pairs each (half equality by
default) and a test set of ``n_test`` pairs are drawn from
:func:`svmcompare.datasets.make_norm_pairs`.  Rank, rank2 and compare are
each selected on the validation set over the paper's grid (minimum zero-one
error) and evaluated on the test set.  The level curves of each learned r(x)
and of the latent r are evaluated on a grid over [-3, 3]^2.  This is also
what ``svmcompare demo`` runs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._threshold import labels_at_threshold
from ..datasets import latent_rank, make_norm_pairs
from ..grid_search import paper_grid, validation_search
from ..metrics import comparison_errors
from .protocol import MODELS


@dataclass
class Figure3Result:
    """Tidy outputs of :func:`run_figure3`.

    Attributes
    ----------
    errors : DataFrame
        One row per model and set ("train", "validation", "test") with the
        error rate (%) and its false positive / false negative / inversion
        counts, and the selected C and gamma.  Model "truth" is the latent r
        with threshold 1.
    levels : DataFrame
        Columns model, x1, x2, rank: r(x) - min r on the plotting grid.
    train_pairs : DataFrame
        Columns x1, x2, x1p, x2p, y of the training pairs.
    grid : DataFrame
        The validation search results of every model.
    """

    errors: pd.DataFrame
    levels: pd.DataFrame
    train_pairs: pd.DataFrame
    grid: pd.DataFrame


def _error_row(model_name, set_name, y_true, y_pred, params):
    e = comparison_errors(y_true, y_pred)
    return {
        "model": model_name,
        "set": set_name,
        "error_percent": 100.0 * e["error"] / e["count"],
        "false_positive": e["false_positive"],
        "false_negative": e["false_negative"],
        "inversion": e["inversion"],
        "count": e["count"],
        **params,
    }


def run_figure3(n_pairs=100, norm="l1", equality_fraction=0.5, random_state=1,
                n_test=10_000, grid=None, grid_points=60, n_jobs=None, progress=False):
    """Fit rank, rank2 and compare on one simulated data set.

    Parameters
    ----------
    n_pairs : int, default=100
        Pairs in each of the train and validation sets.
    norm : {"l1", "l2", "linf"}, default="l1"
    equality_fraction : float, default=0.5
    random_state : int, default=1
    n_test : int, default=10_000
        Pairs in the test set.  A large test set (as in the paper's 2018
        re-run) makes the test error an estimate of the generalization error
        rather than of the draw of 100 test pairs.
    grid : dict, optional
        Hyper-parameter grid; default :func:`svmcompare.grid_search.paper_grid`.
    grid_points : int, default=60
        Resolution of the level-curve grid per axis.
    n_jobs : int, optional
    progress : bool, default=False

    Returns
    -------
    Figure3Result
    """
    rng = np.random.RandomState(random_state)
    sizes = {"train": n_pairs, "validation": n_pairs, "test": n_test}
    sets = {
        name: make_norm_pairs(size, norm, equality_fraction, random_state=rng)
        for name, size in sizes.items()
    }
    grid = paper_grid() if grid is None else grid
    axis = np.linspace(-3, 3, grid_points)
    g1, g2 = np.meshgrid(axis, axis)
    Z = np.column_stack([g1.ravel(), g2.ravel()])

    error_rows, level_frames, grid_frames = [], [], []

    def add_levels(name, r):
        level_frames.append(pd.DataFrame(
            {"model": name, "x1": Z[:, 0], "x2": Z[:, 1], "rank": r - r.min()}
        ))

    for name, cls in MODELS.items():
        model, results = validation_search(
            cls(), grid, *sets["train"], *sets["validation"], scoring="error",
            n_jobs=n_jobs, progress=progress, description=name,
        )
        params = {"C": model.C, "gamma": model.gamma}
        for set_name, (X, y) in sets.items():
            error_rows.append(_error_row(name, set_name, y, model.predict(X), params))
        add_levels(name, model.rank(Z))
        grid_frames.append(results.assign(model=name))

    for set_name, (X, y) in sets.items():
        diff = latent_rank(X[:, 1], norm) - latent_rank(X[:, 0], norm)
        truth = labels_at_threshold(diff, 1.0)  # c_1 of eq. (5) with the latent r
        error_rows.append(_error_row("truth", set_name, y, truth, {"C": np.nan, "gamma": np.nan}))
    add_levels("latent", latent_rank(Z, norm))

    Xtr, ytr = sets["train"]
    train_pairs = pd.DataFrame({
        "x1": Xtr[:, 0, 0], "x2": Xtr[:, 0, 1], "x1p": Xtr[:, 1, 0], "x2p": Xtr[:, 1, 1],
        "y": ytr,
    })
    return Figure3Result(
        errors=pd.DataFrame(error_rows),
        levels=pd.concat(level_frames, ignore_index=True),
        train_pairs=train_pairs,
        grid=pd.concat(grid_frames, ignore_index=True),
    )
