"""Figures 1 and 2 of the paper: the geometry of comparison data, and the
hard-margin LP (7) against the QP (9) on raw and standardized features.

Each function returns tidy DataFrames (points and fitted lines) and draws a
PNG; see :func:`plot_figure1` and :func:`plot_figure2`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._problem import Standardizer, flip_compare
from ..datasets import latent_rank, make_linear_pairs, make_norm_pairs
from ..hard_margin import HardMarginLP, HardMarginQP
from .plotting import draw_pairs, plt

_STYLE = {-1: ("tab:red", "x'<x"), 0: ("0.3", "equal"), 1: ("tab:blue", "x'>x")}
# A draw where the standardized QP finds the LP's margin and the raw QP does not.
FIGURE2_DATA = {"n_pairs": 30, "weights": (2.0, -1.0), "scales": (1.0, 0.02), "gap": 0.3,
                "random_state": 23}


def plot_figure1(path, n_pairs=20, random_state=2):
    """Figure 1: noiseless pairs for r(x) = ||x||_2^2 in three spaces.

    Input space (segments for ties, arrows to the better item, level curves
    of r); the feature space Phi(x) = (x1^2, x2^2) where r is linear; and the
    difference space Phi(x') - Phi(x) where the two lines w^T d = +-1 are
    the decision boundaries of c_1.

    Returns
    -------
    pandas.DataFrame
        The pairs: x1, x2, x1p, x2p, y.
    """
    X, y = make_norm_pairs(n_pairs, "l2", noise=0.0, random_state=random_state)
    phi = X ** 2  # r(x) = w^T Phi(x) with w = (1, 1)
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.2))
    grid = np.linspace(-3.2, 3.2, 200)
    g1, g2 = np.meshgrid(grid, grid)
    r = latent_rank(np.column_stack([g1.ravel(), g2.ravel()]), "l2").reshape(g1.shape)
    axes[0].contour(g1, g2, r, levels=[1, 2, 4, 6, 8, 10], colors="0.75")
    draw_pairs(axes[0], X[:, 0], X[:, 1], y)
    axes[0].set(title="input space: level curves of $||x||_2^2$", xlabel="$x_1$", ylabel="$x_2$")
    top = phi.max() * 1.05
    for level in (1, 2, 4, 6, 8, 10):
        axes[1].plot([0, level], [level, 0], color="0.75", lw=1)
    draw_pairs(axes[1], phi[:, 0], phi[:, 1], y)
    axes[1].set(title="feature space: $r = w^T \\Phi(x)$ is linear", xlabel="$x_1^2$",
                ylabel="$x_2^2$", xlim=(0, top), ylim=(0, top))
    D = phi[:, 1] - phi[:, 0]
    for label, (color, name) in _STYLE.items():
        mask = y == label
        axes[2].scatter(D[mask, 0], D[mask, 1], color=color, s=18, label=name)
    span = np.abs(D).max() * 1.1
    line = np.linspace(-span, span, 2)
    for c in (-1, 1):
        axes[2].plot(line, c - line, color="k", lw=1)
    axes[2].set(title="difference space: $w^T[\\Phi(x')-\\Phi(x)] = \\pm 1$",
                xlabel="$d_1$", ylabel="$d_2$", xlim=(-span, span), ylim=(-span, span))
    axes[2].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return pd.DataFrame({"x1": X[:, 0, 0], "x2": X[:, 0, 1], "x1p": X[:, 1, 0],
                         "x2p": X[:, 1, 1], "y": y})


def _lines(ax, normal, offsets, span, **style):
    """Lines normal . d = c for each c, drawn across a square of half-width span."""
    t = np.linspace(-span, span, 2)
    for c in offsets:
        if abs(normal[1]) > abs(normal[0]):
            ax.plot(t, (c - normal[0] * t) / normal[1], **style)
        else:
            ax.plot((c - normal[1] * t) / normal[0], t, **style)


def plot_figure2(path, data=None):
    """Figure 2: the LP (7) on difference vectors, and the QP (9) on flipped data.

    Left: difference vectors x' - x with the LP's decision lines w^T d = +-1
    and margin lines +-1 +- mu.  Middle: the flipped data of eq. (8) on the
    raw features, with the QP's separator beta + u^T d = 0 and margins +-1,
    and the LP's (Lemma 1 mapping) decision line: they differ.  Right: the
    same on standardized features, where the QP recovers the LP's margin.

    Returns
    -------
    pandas.DataFrame
        One row per problem ("LP", "QP raw", "QP standardized"): margin mu
        and the weights w (input units).
    """
    data = FIGURE2_DATA if data is None else data
    X, y = make_linear_pairs(**data)
    lp = HardMarginLP().fit(X, y)
    rows = [{"problem": "LP (7)", "margin": lp.margin_, "w1": lp.coef_[0], "w2": lp.coef_[1]}]
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.2))
    D = X[:, 1] - X[:, 0]
    for label, (color, name) in _STYLE.items():
        axes[0].scatter(D[y == label, 0], D[y == label, 1], color=color, s=18, label=name)
    span = np.abs(D).max() * 1.1
    _lines(axes[0], lp.coef_, (-1, 1), span, color="k", lw=1.2)
    _lines(axes[0], lp.coef_, (-1 - lp.margin_, -1 + lp.margin_, 1 - lp.margin_,
                               1 + lp.margin_), span, color="k", lw=0.8, ls="--")
    axes[0].set(title=f"LP (7) on $x'-x$: $\\mu$ = {lp.margin_:.3f}", xlabel="$d_1$",
                ylabel="$d_2$")
    axes[0].legend(fontsize=8)
    for ax, standardize in ((axes[1], False), (axes[2], True)):
        qp = HardMarginQP(standardize=standardize).fit(X, y)
        scaler = Standardizer.fit(X) if standardize else None
        Xs = scaler.transform_pairs(X) if standardize else X
        problem = flip_compare(Xs, y, 1.0)
        Dt = problem.items[problem.b] - problem.items[problem.a]
        for label, color in ((1, "tab:blue"), (-1, "0.3")):
            m = problem.y == label
            ax.scatter(Dt[m, 0], Dt[m, 1], color=color, s=18,
                       label=f"$\\tilde y = {label}$")
        span_t = np.abs(Dt).max() * 1.1
        _lines(ax, qp.u_, (-qp.intercept_,), span_t, color="k", lw=1.2)
        _lines(ax, qp.u_, (-qp.intercept_ - 1, -qp.intercept_ + 1), span_t, color="k",
               lw=0.8, ls="--")
        # By Lemma 1 the QP's separator beta + u^T d = 0 is w^T d = 1 with w = -u / beta;
        # the LP's own w, in the same feature units, shows where the LP puts it.
        w_lp = lp.coef_ * (scaler.scale if standardize else 1.0)
        _lines(ax, w_lp, (1.0,), span_t, color="tab:green", lw=1.5, ls=":")
        ax.plot([], [], color="tab:green", ls=":", label="LP (7): $w^T d = 1$")
        name = "standardized" if standardize else "raw"
        ax.set(title=f"QP (9), {name}: $\\mu = -1/\\beta$ = {qp.margin_:.3f}",
               xlabel="$\\tilde d_1$", ylabel="$\\tilde d_2$", xlim=(-span_t, span_t),
               ylim=(-span_t, span_t))
        ax.legend(fontsize=8)
        rows.append({"problem": f"QP (9) {name}", "margin": qp.margin_, "w1": qp.coef_[0],
                     "w2": qp.coef_[1]})
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return pd.DataFrame(rows)
