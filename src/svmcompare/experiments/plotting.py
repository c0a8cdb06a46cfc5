"""Figures drawn from the tidy results of the experiments (matplotlib, no display)."""

from __future__ import annotations

# No matplotlib.use(): choosing a backend at import would override the user's
# (a notebook's, say); without a display matplotlib falls back to Agg itself.
import matplotlib.pyplot as plt
import numpy as np

_PANELS = ("latent", "rank", "rank2", "compare")


def draw_pairs(ax, A, B, y, alpha=1.0):
    """Pairs (A[i], B[i]) in 2-D: ties as segments, others as arrows to the better item."""
    for a, b, label in zip(A, B, y, strict=True):
        if label == 0:
            ax.plot([a[0], b[0]], [a[1], b[1]], color="0.3", lw=0.8, alpha=alpha)
            continue
        start, end = (a, b) if label > 0 else (b, a)
        ax.annotate("", xy=end, xytext=start, alpha=alpha,
                    arrowprops={"arrowstyle": "->", "color": "tab:red", "lw": 0.8})


def _draw_train_pairs(ax, pairs, alpha=1.0):
    draw_pairs(ax, pairs[["x1", "x2"]].to_numpy(), pairs[["x1p", "x2p"]].to_numpy(),
               pairs["y"].to_numpy(), alpha)


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
    _draw_train_pairs(axes[0], result.train_pairs)
    test = result.errors[result.errors["set"] == "test"].set_index("model")
    for ax, name in zip(axes[1:], _PANELS, strict=True):
        levels = result.levels[result.levels["model"] == name]
        size = int(round(np.sqrt(len(levels))))
        x1 = levels["x1"].to_numpy().reshape(size, size)
        x2 = levels["x2"].to_numpy().reshape(size, size)
        r = levels["rank"].to_numpy().reshape(size, size)
        _draw_train_pairs(ax, result.train_pairs, alpha=0.25)
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


# The paper's colours (its colors.R): rank skyblue, rank2 blue, compare black, truth grey.
MODEL_COLORS = {"rank": "skyblue", "rank2": "blue", "compare": "black", "truth": "0.6"}


def plot_figure_panels(summary, path, xlabel, ylabel, mean="mean", sd="sd"):
    """Figures 4 and 5: one panel per data set, mean +- sd over seeds per model.

    Our means are solid lines over a shaded +- sd band; the paper's means
    (``paper_mean``) are dashed lines of the same colour.

    Parameters
    ----------
    summary : DataFrame
        From :func:`svmcompare.experiments.protocol.summarize`.
    path : str or Path
        Output file (PNG or SVG, from the extension).
    xlabel, ylabel : str
    mean, sd : str
        Columns of ``summary`` to draw as ours.
    """
    panels = list(dict.fromkeys(summary["panel"]))
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.6),
                             sharey=True, squeeze=False)
    for ax, panel in zip(axes[0], panels, strict=True):
        rows = summary[summary["panel"] == panel]
        for model, color in MODEL_COLORS.items():
            m = rows[rows["model"] == model].sort_values("x")
            if m.empty:
                continue
            x, y, s = m["x"].to_numpy(), m[mean].to_numpy(), m[sd].fillna(0).to_numpy()
            ax.plot(x, y, color=color, lw=2, label=model)
            ax.fill_between(x, y - s, y + s, color=color, alpha=0.2, lw=0)
            if m["paper_mean"].notna().any():
                ax.plot(x, m["paper_mean"], color=color, lw=1.2, ls="--")
        ax.set_title(panel)
        ax.set_xlabel(xlabel)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel(ylabel)
    axes[0][0].plot([], [], color="0.4", ls="--", label="paper (mean)")
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
