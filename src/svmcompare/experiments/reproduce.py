"""Regenerate the paper's Figures 1 to 5, the RankSVM tutorial's experiment and
the ordinal comparison on the SUSHI scores into a folder: CSV tables and plots.

``svmcompare reproduce`` calls :func:`reproduce`.  The full settings are the
papers'; ``quick=True`` shrinks the grid, sizes and seeds so that everything
runs in a few minutes (what CI runs).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..grid_search import paper_grid
from .figure3 import run_figure3
from .figure4 import N_PAIRS, SEEDS, run_figure4
from .figure5 import EQUALITY_FRACTIONS, run_figure5
from .figure6 import KERNEL_GRIDS, QUICK_KERNEL_GRIDS, plot_figure6, plot_reliability, run_figure6
from .figures12 import plot_figure1, plot_figure2
from .ordinal import KERNEL_GRID, QUICK_KERNEL_GRID, plot_ordinal, run_ordinal
from .plotting import plot_figure_panels, plot_level_curves
from .protocol import PANELS, SIMULATED
from .tutorial import plot_tutorial, run_tutorial

SUSHI_ENV = "SVMCOMPARE_SUSHI_PATH"
CHESS_ENV = "SVMCOMPARE_CHESS_PATH"

FULL = {"grid": (10, 10), "figure3_test": 10_000, "n_pairs": N_PAIRS, "seeds": SEEDS,
        "equality_fractions": EQUALITY_FRACTIONS, "figure5_pairs": 400,
        "tutorial_seeds": range(20), "ordinal_people": (200, 200, 1000),
        "ordinal_seeds": (1, 2, 3), "ordinal_grid": KERNEL_GRID,
        "chess_periods": 7, "chess_grids": KERNEL_GRIDS}
QUICK = {"grid": (5, 5), "figure3_test": 2_000, "n_pairs": (50, 100, 200), "seeds": (1, 2),
         "equality_fractions": (0.2, 0.5, 0.8), "figure5_pairs": 200,
         "tutorial_seeds": range(5), "ordinal_people": (40, 40, 100), "ordinal_seeds": (1,),
         "ordinal_grid": QUICK_KERNEL_GRID, "chess_periods": 2,
         "chess_grids": QUICK_KERNEL_GRIDS}


def _data_path(given, variable):
    """The argument, else the environment variable, else None."""
    if given is not None:
        return Path(given)
    from_env = os.environ.get(variable)
    return Path(from_env) if from_env else None


def sushi_folder(sushi_path=None):
    """The sushi folder: the argument, else ``$SVMCOMPARE_SUSHI_PATH``, else None."""
    return _data_path(sushi_path, SUSHI_ENV)


def chess_file(chess_path=None):
    """The games CSV: the argument, else ``$SVMCOMPARE_CHESS_PATH``, else None."""
    return _data_path(chess_path, CHESS_ENV)


def _figure1(out, log):
    plot_figure1(out / "figure1.png").to_csv(out / "figure1_pairs.csv", index=False)
    log("Figure 1: noiseless ||x||_2^2 pairs in the input, feature and difference spaces.")


def _figure2(out, log):
    margins = plot_figure2(out / "figure2.png")
    margins.to_csv(out / "figure2_margins.csv", index=False)
    log("Figure 2: margins of the LP (7) and of the QP (9) by Lemma 1:\n"
        + margins.round(4).to_string(index=False))


def write_figure3(result, folder):
    """Write a Figure3Result into ``folder`` (created): the three CSVs and figure3.png."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    result.errors.to_csv(folder / "errors.csv", index=False)
    result.levels.to_csv(folder / "level_curves.csv", index=False)
    result.grid.to_csv(folder / "validation_grid.csv", index=False)
    plot_level_curves(result, folder / "figure3.png")


def _figure3(out, config, n_jobs, progress, log):
    result = run_figure3(n_test=config["figure3_test"], grid=paper_grid(*config["grid"]),
                         n_jobs=n_jobs, progress=progress)
    write_figure3(result, out / "figure3")
    test = result.errors[result.errors["set"] == "test"]
    log("Figure 3 (l1, n = 100, seed 1) test error %: " + ", ".join(
        f"{r.model} {r.error_percent:.1f}" for r in test.itertuples()))


def _write_tables(result, out, name):
    result.results.to_csv(out / f"{name}_results.csv", index=False)
    result.summary.to_csv(out / f"{name}_summary.csv", index=False)


def _plot(summary, out, name, xlabel, ylabel, **columns):
    for ext in ("png", "svg"):
        plot_figure_panels(summary, out / f"{name}.{ext}", xlabel, ylabel, **columns)


def _side_by_side(summary, x, columns=("mean", "sd", "paper_mean", "paper_sd")):
    rows = summary[summary["x"] == x].set_index(["panel", "model"])[list(columns)]
    return rows.round(3).to_string()


def _figure4(out, config, panels, sushi, n_jobs, progress, log):
    result = run_figure4(config["n_pairs"], panels, config["seeds"],
                         grid=paper_grid(*config["grid"]), sushi_path=sushi, n_jobs=n_jobs,
                         progress=progress)
    _write_tables(result, out, "figure4")
    _plot(result.summary, out, "figure4", "training pairs n", "test error (%)")
    largest = max(config["n_pairs"])
    log(f"Figure 4 ({result.seconds:.0f} s): test error % at n = {largest}, "
        f"mean and sd over {len(config['seeds'])} seeds, beside the paper's:\n"
        + _side_by_side(result.summary, largest))
    return result


def _figure5(out, config, panels, sushi, n_jobs, progress, log):
    result = run_figure5(config["equality_fractions"], panels, config["seeds"],
                         config["figure5_pairs"], grid=paper_grid(*config["grid"]),
                         sushi_path=sushi, n_jobs=n_jobs, progress=progress)
    _write_tables(result, out, "figure5")
    _plot(result.summary, out, "figure5", "fraction of equality pairs", "test AUC")
    _plot(result.summary, out, "figure5_scripts_auc", "fraction of equality pairs",
          "test AUC, inversions as true positives", mean="scripts_mean", sd="scripts_sd")
    log(f"Figure 5 ({result.seconds:.0f} s): test AUC at rho = 0.5 (Table 3; and as the "
        "paper's scripts count it), beside the paper's:\n"
        + _side_by_side(result.summary, 0.5, ("mean", "scripts_mean", "paper_mean", "paper_sd")))
    return result


def _figure6(out, config, chess, n_jobs, progress, log):
    if chess is None:
        log(f"Figure 6 skipped: it needs a CSV of chess games (--chess-path or ${CHESS_ENV}).")
        return None
    result = run_figure6(chess, n_periods=config["chess_periods"], grids=config["chess_grids"],
                         n_jobs=n_jobs, progress=progress)
    result.results.to_csv(out / "figure6_results.csv", index=False)
    result.summary.to_csv(out / "figure6_summary.csv", index=False)
    result.chosen.to_csv(out / "figure6_hyperparameters.csv", index=False)
    result.predictions.to_csv(out / "figure6_predictions.csv", index=False)
    for ext in ("png", "svg"):
        plot_figure6(result.results, out / f"figure6.{ext}")
        plot_reliability(result.predictions, out / f"figure6_reliability.{ext}")
    columns = ["model", "auc_mean", "log_loss_mean", "brier_mean", "accuracy_mean",
               "periods_auc_above_elo", "periods_auc_above_glicko"]
    log(f"Figure 6 ({result.seconds:.0f} s; {config['chess_periods']} test months): means "
        "over the months:\n" + result.summary[columns].round(3).to_string(index=False))
    return result


def _tutorial(out, config, log):
    result = run_tutorial(config["tutorial_seeds"])
    result.taus.to_csv(out / "tutorial_taus.csv", index=False)
    result.directions.to_csv(out / "tutorial_directions.csv", index=False)
    result.summary.to_csv(out / "tutorial_summary.csv", index=False)
    for ext in ("png", "svg"):
        plot_tutorial(result, out / f"tutorial.{ext}")
    seed0 = result.taus[result.taus["seed"] == 0].pivot(index="model", columns="block",
                                                         values="tau")
    log("RankSVM tutorial: Kendall tau per block on the test half, seed 0 (the tutorial's "
        "data):\n" + seed0.round(4).to_string()
        + f"\nmean over {len(result.directions) // 3} seeds, with the cosine of each "
        "direction to the true w:\n" + result.summary.round(4).to_string(index=False))
    return result


def _ordinal(out, config, sushi, n_jobs, progress, log):
    if sushi is None:
        log(f"Ordinal comparison skipped: it needs the SUSHI data (--sushi-path or "
            f"${SUSHI_ENV}).")
        return None
    result = run_ordinal(sushi, people=config["ordinal_people"], seeds=config["ordinal_seeds"],
                         kernel_grid=config["ordinal_grid"], n_jobs=n_jobs, progress=progress)
    result.results.to_csv(out / "ordinal_results.csv", index=False)
    result.summary.to_csv(out / "ordinal_summary.csv", index=False)
    for ext in ("png", "svg"):
        plot_ordinal(result.summary, out / f"ordinal.{ext}")
    log(f"Ordinal comparison on the SUSHI scores ({result.seconds:.0f} s; people train / "
        f"validation / test {config['ordinal_people']}, seeds {config['ordinal_seeds']}): "
        "test metrics of the models chosen on validation:\n"
        + result.summary.round(3).to_string(index=False))
    return result


@dataclass(frozen=True)
class _Run:
    """What every figure's step reads."""

    out: Path
    config: dict
    panels: tuple
    sushi: Path | None
    chess_path: object
    n_jobs: int | None
    progress: bool
    log: object


# Each figure 'svmcompare reproduce' knows, by name (the command line lists them
# in its own order, cli/research.py).
STEPS = {
    "figure1": lambda r: _figure1(r.out, r.log),
    "figure2": lambda r: _figure2(r.out, r.log),
    "figure3": lambda r: _figure3(r.out, r.config, r.n_jobs, r.progress, r.log),
    "figure4": lambda r: _figure4(r.out, r.config, r.panels, r.sushi, r.n_jobs, r.progress,
                                  r.log),
    "figure5": lambda r: _figure5(r.out, r.config, r.panels, r.sushi, r.n_jobs, r.progress,
                                  r.log),
    "figure6": lambda r: _figure6(r.out, r.config, chess_file(r.chess_path), r.n_jobs,
                                  r.progress, r.log),
    "tutorial": lambda r: _tutorial(r.out, r.config, r.log),
    "ordinal": lambda r: _ordinal(r.out, r.config, r.sushi, r.n_jobs, r.progress, r.log),
}


def reproduce(figures, out, *, quick=False, sushi_path=None, chess_path=None, n_jobs=None,
              progress=False, log=print):
    """Run the chosen figures and write their tables and plots into ``out``.

    Parameters
    ----------
    figures : sequence of {"figure1", ..., "figure6", "tutorial", "ordinal"}
    out : str or Path
        Output folder (created).
    quick : bool
        A 5 x 5 grid, n up to 200, 2 seeds, 3 equality fractions.
    sushi_path : str or Path, optional
        Folder of the sushi data (else ``$SVMCOMPARE_SUSHI_PATH``); without
        it the sushi panel and the ordinal comparison are skipped, and ``log``
        says so.
    chess_path : str or Path, optional
        CSV of chess games for Figure 6 (else ``$SVMCOMPARE_CHESS_PATH``;
        without it Figure 6 is skipped).
    n_jobs : int, optional
    progress : bool
    log : callable
        Receives one message per figure.

    Returns
    -------
    dict
        Figure name -> result (Figures 4 to 6, tutorial, ordinal).
    """
    unknown = set(figures) - set(STEPS)
    if unknown:
        raise ValueError(f"Unknown figure(s) {sorted(unknown)}; choose from {tuple(STEPS)}.")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    sushi = sushi_folder(sushi_path)
    if sushi is None and {"figure4", "figure5"} & set(figures):
        log(f"No sushi data given (--sushi-path or ${SUSHI_ENV}): the sushi panel is skipped.")
    run = _Run(out=out, config=QUICK if quick else FULL,
               panels=PANELS if sushi is not None else SIMULATED, sushi=sushi,
               chess_path=chess_path, n_jobs=n_jobs, progress=progress, log=log)
    results, timings = {}, []
    for figure in dict.fromkeys(figures):  # in the order given, once each
        start = time.perf_counter()
        result = STEPS[figure](run)
        if figure not in ("figure1", "figure2", "figure3"):  # their outputs are files only
            results[figure] = result
        timings.append({"figure": figure, "quick": quick, "n_jobs": n_jobs,
                        "seconds": time.perf_counter() - start})
    pd.DataFrame(timings).to_csv(out / "timings.csv", index=False)
    return results
