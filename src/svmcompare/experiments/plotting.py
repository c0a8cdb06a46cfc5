"""Figures drawn from the tidy results of the experiments (matplotlib, no display)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

_PANELS = ("latent", "rank", "rank2", "compare")


def _draw_pairs(ax, pairs, alpha=1.0):
    """Equality pairs as segments, inequality pairs as arrows to the better item."""
    for row in pairs.itertuples(index=False):
        start, end = (row.x1, row.x2), (row.x1p, row.x2p)
        if row.y == 0:
            ax.plot([start[0], end[0]], [start[1], end[1]], color="0.3", lw=0.8, alpha=alpha)
            continue
        if row.y < 0:
            start, end = end, start
        ax.annotate("", xy=end, xytext=start, alpha=alpha,
                    arrowprops={"arrowstyle": "->", "color": "tab:red", "lw": 0.8})


def plot_level_curves(result, path, test_errors=True):
    """Figure 3: training pairs and level curves of each learned ranking function.

    Parameters
    ----------
    result : svmcompare.experiments.figure3.Figure3Result
    path : str or Path
        Output file (PNG or SVG, from the extension).
    test_errors : bool
        Put each model's test error in its panel title.
    """
    fig, axes = plt.subplots(1, 1 + len(_PANELS), figsize=(17, 3.8), sharex=True, sharey=True)
    axes[0].set_title("training pairs")
    _draw_pairs(axes[0], result.train_pairs)
    test = result.errors[result.errors["set"] == "test"].set_index("model")
    for ax, name in zip(axes[1:], _PANELS, strict=True):
        levels = result.levels[result.levels["model"] == name]
        size = int(round(np.sqrt(len(levels))))
        x1 = levels["x1"].to_numpy().reshape(size, size)
        x2 = levels["x2"].to_numpy().reshape(size, size)
        r = levels["rank"].to_numpy().reshape(size, size)
        _draw_pairs(ax, result.train_pairs, alpha=0.25)
        contour = ax.contour(x1, x2, r, levels=10, cmap="viridis")
        ax.clabel(contour, fontsize=6, fmt="%.1f")
        title = name
        key = "truth" if name == "latent" else name
        if test_errors and key in test.index:
            title += f" (test error {test.loc[key, 'error_percent']:.1f}%)"
        ax.set_title(title, fontsize=10)
    for ax in axes:
        ax.set_xlim(-3, 3)
        ax.set_ylim(-3, 3)
        ax.set_aspect("equal")
        ax.set_xlabel("x1")
    axes[0].set_ylabel("x2")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
