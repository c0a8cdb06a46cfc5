"""The RankSVM tutorial's experiment: Ridge regression against RankSVM on two
query blocks of graded 2-D items, scored by Kendall's tau within each block.

A regression pools both blocks, although only orders inside a block mean
anything; the pairwise transform compares items of the same block only and
recovers the common direction w.  We add RankSVM with the equal-grade pairs
kept as ties (SVMCompare on the transformed pairs).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.linear_model import Ridge
from sklearn.model_selection import StratifiedShuffleSplit

from ..datasets import make_graded_blocks
from ..graded import GroupRankSVM
from ..metrics import kendall_tau_per_group
from .plotting import plt

# The tutorial's settings: Ridge(alpha=1) and a linear SVM with C = 0.1.
TUTORIAL_MODELS = {
    "ridge": lambda: Ridge(alpha=1.0),
    "ranksvm": lambda: GroupRankSVM(C=0.1),
    "ranksvm_ties": lambda: GroupRankSVM(C=0.1, ties="keep"),
}


@dataclass
class TutorialResult:
    """Kendall taus per (seed, model, block) and the unit directions per (seed, model)."""

    taus: pd.DataFrame
    directions: pd.DataFrame
    summary: pd.DataFrame


def _fit(name, X, y, blocks):
    """Ridge ignores the blocks; the RankSVMs pair items inside them."""
    model = TUTORIAL_MODELS[name]()
    return model.fit(X, y) if name == "ridge" else model.fit(X, y, blocks)


def run_tutorial(seeds=range(20), n_per_grade=20):
    """Fit the three models on half of the items (stratified by grade) per seed.

    Seed s draws the items with ``make_graded_blocks(random_state=s)`` (seed 0
    is the tutorial's data) and splits them with the same seed.

    Returns
    -------
    TutorialResult
        ``summary``: mean and sd over seeds of each model's tau per block and
        of the cosine between its direction and the true w.
    """
    taus, directions = [], []
    for seed in seeds:
        X, y, blocks, w = make_graded_blocks(n_per_grade, random_state=seed)
        split = StratifiedShuffleSplit(n_splits=1, test_size=0.5, random_state=seed)
        train, test = next(split.split(X, y))
        for name in TUTORIAL_MODELS:
            model = _fit(name, X[train], y[train], blocks[train])
            score = model.predict(X[test]) if name == "ridge" else model.rank(X[test])
            _, per_block = kendall_tau_per_group(y[test], score, blocks[test])
            for block, tau in enumerate(per_block):
                taus.append({"seed": seed, "model": name, "block": block, "tau": tau})
            unit = model.coef_ / np.linalg.norm(model.coef_)
            directions.append({"seed": seed, "model": name, "w1": unit[0], "w2": unit[1],
                               "cosine_to_w": float(unit @ w)})
    taus, directions = pd.DataFrame(taus), pd.DataFrame(directions)
    per_block = taus.pivot_table(index="model", columns="block", values="tau",
                                 aggfunc=["mean", "std"])
    per_block.columns = [f"tau_block{block}_{stat.replace('std', 'sd')}"
                         for stat, block in per_block.columns]
    cosine = directions.groupby("model")["cosine_to_w"].agg(cosine_mean="mean",
                                                            cosine_sd="std")
    summary = per_block.join(cosine).loc[list(TUTORIAL_MODELS)].reset_index()
    return TutorialResult(taus, directions, summary)


def plot_tutorial(result, path, seed=0, n_per_grade=20):
    """The training items of one seed with the Ridge and RankSVM directions.

    Two panels as in the tutorial (circles: block 1, triangles: block 0,
    shade: grade); the arrows start at each block's mean item.
    """
    X, y, blocks, w = make_graded_blocks(n_per_grade, random_state=seed)
    split = StratifiedShuffleSplit(n_splits=1, test_size=0.5, random_state=seed)
    train, _ = next(split.split(X, y))
    X, y, blocks = X[train], y[train], blocks[train]
    rows = result.directions[result.directions["seed"] == seed].set_index("model")
    taus = result.taus[result.taus["seed"] == seed]
    fig, axes = plt.subplots(1, 2, figsize=(10, 5.2), sharex=True, sharey=True)
    ends = [X]  # annotations do not widen the axes: collect arrow ends for the limits
    for ax, name, title in zip(axes, ("ridge", "ranksvm"), ("Ridge regression", "RankSVM"),
                               strict=True):
        for block, marker in ((0, "^"), (1, "o")):
            mask = blocks == block
            ax.scatter(X[mask, 0], X[mask, 1], c=y[mask], cmap="Blues", vmin=-1, vmax=2,
                       marker=marker, s=70, edgecolors="k", linewidths=0.5)
            start = X[mask].mean(axis=0) - 4 * w
            direction = rows.loc[name, ["w1", "w2"]].to_numpy(dtype=float)
            ax.annotate("", xy=start + 8 * direction, xytext=start,
                        arrowprops={"arrowstyle": "-|>", "color": "tab:red", "lw": 2})
            ax.annotate("", xy=start + 8 * w, xytext=start,
                        arrowprops={"arrowstyle": "-|>", "color": "0.5", "lw": 1, "ls": "--"})
            ends.append(np.array([start, start + 8 * direction, start + 8 * w]))
        mine = taus[taus["model"] == name].sort_values("block")["tau"].to_numpy()
        ax.set_title(f"{title}: Kendall tau {mine[0]:.3f} / {mine[1]:.3f} (blocks 0 / 1)",
                     fontsize=10)
        ax.set_aspect("equal")
        ax.set_xlabel("$x_1$")
    ends = np.concatenate(ends)
    low, high = ends.min(axis=0) - 1, ends.max(axis=0) + 1
    axes[0].set(xlim=(low[0], high[0]), ylim=(low[1], high[1]), ylabel="$x_2$")
    fig.suptitle("red: estimated direction; grey dashed: the true w (seed "
                 f"{seed}, training half)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
