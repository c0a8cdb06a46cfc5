"""Figure 5: test AUC against the fraction of equality pairs (n = 400).

For each equality fraction rho in {0.1, ..., 0.9}, 4 seeds and each panel,
train, validation and test sets of 400 pairs are drawn; rank, rank2 and
compare are selected by maximum validation AUC (Table 3) over the paper's
10 x 10 grid and scored by their test AUC.
"""

from __future__ import annotations

import time

import numpy as np

from .figure4 import SEEDS, FigureResult
from .protocol import PANELS, Setting, run_settings, summarize

EQUALITY_FRACTIONS = tuple(np.round(np.arange(1, 10) / 10, 1))


def run_figure5(equality_fractions=EQUALITY_FRACTIONS, panels=PANELS, seeds=SEEDS,
                n_pairs=400, *, grid=None, sushi_path=None, n_jobs=None, progress=False):
    """Test AUC vs the fraction of equality pairs, models chosen by validation AUC.

    Parameters
    ----------
    equality_fractions : sequence of float in (0, 1)
    panels : sequence of {"l1", "l2", "linf", "sushi"}
    seeds : sequence of int
    n_pairs : int, default=400
        Pairs in each of the train, validation and test sets.
    grid, sushi_path, n_jobs, progress :
        As :func:`svmcompare.experiments.run_figure4`.

    Returns
    -------
    FigureResult
        The summary has the Table 3 AUC (``mean``, ``sd``) and the AUC as the
        paper's scripts computed it, inversions counted as true positives
        (``scripts_mean``, ``scripts_sd``), which is what the paper plotted.
    """
    start = time.perf_counter()
    settings = [Setting(p, int(n_pairs), float(rho), int(s))
                for p in panels for rho in equality_fractions for s in seeds]
    results = run_settings(settings, scoring="auc", grid=grid, sushi_path=sushi_path,
                           n_jobs=n_jobs, progress=progress, description="Figure 5 fits")
    results = results[results["model"] != "truth"].reset_index(drop=True)
    summary = summarize(results, "equality_fraction", "test_auc", "fig5")
    scripts = summarize(results, "equality_fraction", "test_auc_scripts", "fig5")
    summary["scripts_mean"] = scripts["mean"].to_numpy()
    summary["scripts_sd"] = scripts["sd"].to_numpy()
    return FigureResult(results, summary, time.perf_counter() - start)
