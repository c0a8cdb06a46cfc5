"""Figure 4: test error against the number of training pairs (half ties).

For n in {50, 100, 200, 400, 800}, 4 seeds and each panel, train,
validation and test sets of n pairs (half equality) are drawn; rank, rank2
and compare are selected by minimum validation zero-one error over the
paper's 10 x 10 grid (RBF kernel) and scored on the test set.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import pandas as pd

from .protocol import PANELS, Setting, run_settings, summarize

N_PAIRS = (50, 100, 200, 400, 800)
SEEDS = (1, 2, 3, 4)


@dataclass
class FigureResult:
    """Tidy outputs of :func:`run_figure4` and :func:`svmcompare.experiments.run_figure5`.

    Attributes
    ----------
    results : DataFrame
        One row per setting and model (:func:`svmcompare.experiments.protocol.run_settings`).
    summary : DataFrame
        Mean and sd over seeds beside the paper's numbers
        (:func:`svmcompare.experiments.protocol.summarize`).
    seconds : float
        Wall time of the whole run.
    """

    results: pd.DataFrame
    summary: pd.DataFrame
    seconds: float


def run_figure4(n_pairs=N_PAIRS, panels=PANELS, seeds=SEEDS, equality_fraction=0.5, *,
                grid=None, sushi_path=None, n_jobs=None, progress=False):
    """Test error (%) vs the number of training pairs, models chosen by validation error.

    Parameters
    ----------
    n_pairs : sequence of int
        Pairs in each of the train, validation and test sets.
    panels : sequence of {"l1", "l2", "linf", "sushi"}
    seeds : sequence of int
    equality_fraction : float, default=0.5
    grid : dict, optional
        Default: the paper's 10 x 10 grid.
    sushi_path : str or Path, optional
        Required with the ``"sushi"`` panel.
    n_jobs : int, optional
    progress : bool

    Returns
    -------
    FigureResult
    """
    start = time.perf_counter()
    settings = [Setting(p, int(n), float(equality_fraction), int(s))
                for p in panels for n in n_pairs for s in seeds]
    results = run_settings(settings, scoring="error", grid=grid, sushi_path=sushi_path,
                           n_jobs=n_jobs, progress=progress, description="Figure 4 fits")
    summary = summarize(results, "n_pairs", "test_error", "fig4")
    return FigureResult(results, summary, time.perf_counter() - start)
