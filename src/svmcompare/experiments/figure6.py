"""Figure 6 of the paper on the Lichess games: SVMCompare against Elo and Glicko.

The paper's Chessmetrics games are no longer obtainable; the Lichess games
(``shared/data/chess/lichess_kaggle_games``) are far sparser (15,635
players for 19,111 games; 4.6% draws), so section 5.1's protocol is adapted:

* features (:func:`svmcompare.datasets.chess_features`) come from all
  earlier days of the file, for every game;
* a game is kept when both players have at least ``min_games`` earlier
  games (the paper: 10 in the training window; here that leaves 99 games
  in the whole file, so the default is 1: 2,359 games, 126 draws);
* periods: each of the last ``n_periods`` months with data is a test set,
  and the model is trained on every kept game before that month (an
  expanding window instead of the paper's 4 + 8 months of one year);
* hyper-parameters are chosen once, on the kept games before the first
  test month (the early months, as in section 5.2): the first 75% in time
  train, the last 25% validate, maximum validation AUC (Table 3);
* draws are rare, so SVMCompare uses ``class_weight="balanced"`` (unweighted,
  it finds beta >= 0 on most of the grid: no ranking).

Models: SVMCompare with linear, polynomial and Gaussian kernels on all 16
features of each player and on the rating features only (Elo, Glicko and
its deviation); Elo alone, Glicko alone, and the site's own pre-game Lichess
ratings (score: black's rating minus white's, the r(x') - r(x) of x =
white); and the trivial model of eq. (20).  Each gets win / draw / loss
probabilities from the ordered-logit link (:mod:`svmcompare.calibration`):
SVMCompare through ``probability=True``, the ratings through the link
fitted on their training games' rating differences, the trivial model from
the training outcome shares.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.metrics import log_loss
from tqdm.auto import tqdm

from .._validation import LABELS
from ..calibration import ScoreCalibrator
from ..compare import SVMCompare
from ..datasets import chess_features, load_chess_games
from ..datasets.chess import PLAYER_FEATURES, RATING_FEATURES
from ..exceptions import NoRankingError
from ..grid_search import validation_search
from ..metrics import comparison_report
from .plotting import plt

KERNEL_GRIDS = {
    "linear": {"C": (0.01, 0.1, 1.0, 10.0)},
    "poly": {"C": (0.01, 0.1, 1.0, 10.0), "degree": (2, 3)},
    "rbf": {"C": (0.01, 0.1, 1.0, 10.0), "gamma": (0.01, 0.1, 1.0)},
}
QUICK_KERNEL_GRIDS = {
    "linear": {"C": (0.01, 1.0)},
    "poly": {"C": (0.01, 1.0), "degree": (2,)},
    "rbf": {"C": (0.1, 1.0), "gamma": (0.1,)},
}
FEATURE_SETS = {"all": PLAYER_FEATURES, "ratings": RATING_FEATURES}
RATING_MODELS = ("elo", "glicko", "lichess")


@dataclass
class ChessSets:
    """Kept games: pairs X (n, 2, 16), labels y, month of each game, rating scores."""

    X: np.ndarray
    y: np.ndarray
    month: pd.PeriodIndex
    ratings: dict


@dataclass
class Figure6Result:
    """``results``: one row per (period, model); ``chosen``: the selected
    hyper-parameters; ``predictions``: pooled test probabilities per model."""

    results: pd.DataFrame
    summary: pd.DataFrame
    chosen: pd.DataFrame
    predictions: pd.DataFrame
    seconds: float


def prepare_chess(path, min_games=1):
    """Load the games, compute features, keep games of players with history."""
    games = load_chess_games(path)
    X, y, info = chess_features(games)
    keep = ((info["white_games"] >= min_games) & (info["black_games"] >= min_games)).to_numpy()
    col = {name: k for k, name in enumerate(PLAYER_FEATURES)}
    ratings = {"elo": X[:, 1, col["elo"]] - X[:, 0, col["elo"]],
               "glicko": X[:, 1, col["glicko"]] - X[:, 0, col["glicko"]]}
    if {"white_rating", "black_rating"} <= set(games.columns):
        ratings["lichess"] = (games["black_rating"] - games["white_rating"]).to_numpy(float)
    month = pd.PeriodIndex(games["time"].dt.to_period("M"))
    return ChessSets(X[keep], y[keep], month[keep], {k: v[keep] for k, v in ratings.items()})


def _columns(features):
    return [PLAYER_FEATURES.index(name) for name in FEATURE_SETS[features]]


def _model(kernel, features, **params):
    """SVMCompare, class-balanced; the polynomial kernel (gamma <x, x'> + 1)^degree
    with gamma = 1 / n_features, which keeps SMO fast on standardized counts."""
    if kernel == "poly":
        params.setdefault("gamma", 1.0 / len(FEATURE_SETS[features]))
    return SVMCompare(kernel=kernel, class_weight="balanced", on_degenerate="raise", **params)


def _select(sets, kernel, features, grid, n_jobs):
    """Hyper-parameters on the early games: time-ordered 75% / 25%, validation AUC."""
    X = sets.X[:, :, _columns(features)]
    cut = int(0.75 * len(sets.y))
    model = _model(kernel, features)
    best, table = validation_search(model, grid, X[:cut], sets.y[:cut], X[cut:], sets.y[cut:],
                                    scoring="auc", n_jobs=n_jobs)
    return {name: best.get_params()[name] for name in grid}, table


def _brier(y, proba):
    onehot = (y[:, None] == np.asarray(LABELS)[None, :]).astype(float)
    return float(np.mean(np.sum((proba - onehot) ** 2, axis=1)))


def _metrics(y, score, proba):
    return {
        "auc": comparison_report(y, score)["auc"],
        "log_loss": log_loss(y, np.clip(proba, 1e-12, 1), labels=list(LABELS)),
        "brier": _brier(y, proba),
        "accuracy": float(np.mean(np.asarray(LABELS)[np.argmax(proba, axis=1)] == y)),
    }


def _period_rows(sets, train, test, chosen, period):
    """Fit and score every model on one period; returns rows and pooled predictions."""
    rows, predictions = [], []
    y_train, y_test = sets.y[train], sets.y[test]

    def row(model, failed):
        return {"period": str(period), "model": model, "n_train": int(train.sum()),
                "n_test": int(test.sum()), "test_draws": int(np.sum(y_test == 0)),
                "failed": failed}

    def record(model, score, proba):
        rows.append({**row(model, False), **_metrics(y_test, score, proba)})
        predictions.append(pd.DataFrame({"period": str(period), "model": model, "y": y_test,
                                         "score": score, "p_white": proba[:, 0],
                                         "p_draw": proba[:, 1], "p_black": proba[:, 2]}))

    for (kernel, features), params in chosen.items():
        columns = _columns(features)
        model = _model(kernel, features, probability=True, random_state=0, **params)
        try:
            model.fit(sets.X[train][:, :, columns], y_train)
        except NoRankingError:
            # beta >= 0 on this period's training games (or a calibration fold): no model.
            rows.append(row(f"compare_{kernel}_{features}", True))
            continue
        X_test = sets.X[test][:, :, columns]
        record(f"compare_{kernel}_{features}", model.decision_function(X_test),
               model.predict_proba(X_test))
    for name, difference in sets.ratings.items():
        # White's advantage is not in the rating difference: an asymmetric link.
        link = ScoreCalibrator(symmetric=False).fit(difference[train], y_train)
        record(name, difference[test], link.predict_proba(difference[test]))
    # Eq. (20): always the more frequent of the two wins; probabilities = training shares.
    common = 1 if np.sum(y_train == 1) > np.sum(y_train == -1) else -1
    shares = np.bincount(y_train + 1, minlength=3) / y_train.size
    record("trivial", np.full(test.sum(), float(common)), np.tile(shares, (test.sum(), 1)))
    return rows, predictions


def run_figure6(path, *, n_periods=7, min_games=1, grids=None, n_jobs=None, progress=False):
    """Select hyper-parameters on the early months, then fit and test every period.

    Parameters
    ----------
    path : str or Path
        CSV of games (:func:`svmcompare.datasets.load_chess_games`).
    n_periods : int
        Test months: the last ``n_periods`` months with kept games.
    min_games : int
        Earlier games both players need for a game to be kept.
    grids : dict, optional
        kernel -> parameter grid (default :data:`KERNEL_GRIDS`).
    n_jobs : int, optional
    progress : bool

    Returns
    -------
    Figure6Result
    """
    start = time.perf_counter()
    grids = KERNEL_GRIDS if grids is None else grids
    sets = prepare_chess(path, min_games)
    months = np.unique(sets.month)
    if months.size <= n_periods:
        raise ValueError(f"{months.size} months of kept games; n_periods={n_periods} leaves no "
                         "early months to choose hyper-parameters on.")
    test_months = months[-n_periods:]
    early = sets.month < test_months[0]
    early_sets = ChessSets(sets.X[early], sets.y[early], sets.month[early], {})
    chosen, chosen_rows = {}, []
    tasks = [(kernel, features) for kernel in grids for features in FEATURE_SETS]
    for kernel, features in tqdm(tasks, desc="figure 6 grids", disable=not progress):
        params, table = _select(early_sets, kernel, features, grids[kernel], n_jobs)
        chosen[kernel, features] = params
        chosen_rows.append({"kernel": kernel, "features": features, **params,
                            "validation_auc": table["auc"].max()})
    rows, predictions = [], []
    for month in tqdm(test_months, desc="figure 6 periods", disable=not progress):
        period_rows, period_predictions = _period_rows(sets, sets.month < month,
                                                       sets.month == month, chosen, month)
        rows += period_rows
        predictions += period_predictions
    results = pd.DataFrame(rows)
    predictions = pd.concat(predictions, ignore_index=True)
    return Figure6Result(results, summarize_figure6(results, predictions),
                         pd.DataFrame(chosen_rows), predictions, time.perf_counter() - start)


def summarize_figure6(results, predictions):
    """Per model: mean over periods, periods beating Elo and Glicko on AUC, pooled metrics."""
    by_period = results.pivot(index="period", columns="model", values="auc")
    rows = []
    for model, group in results.groupby("model", sort=False):
        pooled = predictions[predictions["model"] == model]
        proba = pooled[["p_white", "p_draw", "p_black"]].to_numpy()
        metrics = (_metrics(pooled["y"].to_numpy(), pooled["score"].to_numpy(), proba)
                   if len(pooled) else dict.fromkeys(("auc", "log_loss", "brier", "accuracy"),
                                                     np.nan))
        rows.append({
            "model": model, "failed_periods": int(group["failed"].sum()),
            "auc_mean": group["auc"].mean(), "auc_sd": group["auc"].std(),
            "log_loss_mean": group["log_loss"].mean(), "brier_mean": group["brier"].mean(),
            "accuracy_mean": group["accuracy"].mean(),
            "periods_auc_above_elo": int((by_period[model] > by_period["elo"]).sum()),
            "periods_auc_above_glicko": int((by_period[model] > by_period["glicko"]).sum()),
            **{f"pooled_{k}": v for k, v in metrics.items()},
        })
    return pd.DataFrame(rows)


def plot_figure6(results, path):
    """Test AUC (Table 3) and log-loss per period (dots) and their mean (bar) per model."""
    models = list(dict.fromkeys(results["model"]))
    colors = {m: "white" if m.endswith("_all") else "lightsteelblue" if m.startswith("compare")
              else "black" if m == "trivial" else "navy" for m in models}
    fig, axes = plt.subplots(1, 2, figsize=(12, 0.45 * len(models) + 1.6), sharey=True)
    for ax, metric, label in ((axes[0], "auc", "test AUC (Table 3)"),
                              (axes[1], "log_loss", "test log-loss (win/draw/loss)")):
        for k, model in enumerate(models):
            values = results.loc[results["model"] == model, metric].to_numpy()
            ax.barh(k, np.nanmean(values), color=colors[model], edgecolor="k", height=0.6,
                    alpha=0.8)
            ax.scatter(values, np.full(values.size, k), color="tab:orange", s=14, zorder=3)
        ax.set_xlabel(label)
        low = np.nanmin(results[metric])
        ax.set_xlim(left=0.9 * low)
    axes[0].set_yticks(range(len(models)), models)
    axes[0].invert_yaxis()
    fig.suptitle("Lichess games: SVMCompare vs ratings, one dot per test month", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_reliability(predictions, path, models=("compare_linear_all", "elo", "glicko",
                                                 "lichess"), n_bins=8):
    """Calibration of the pooled test probabilities: observed share vs predicted, per outcome."""
    outcomes = (("p_white", -1, "white wins"), ("p_draw", 0, "draw"), ("p_black", 1, "black wins"))
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.2))
    for ax, (column, label, title) in zip(axes, outcomes, strict=True):
        for model in models:
            rows = predictions[predictions["model"] == model]
            if rows.empty:
                continue
            p, hit = rows[column].to_numpy(), (rows["y"].to_numpy() == label)
            edges = np.unique(np.quantile(p, np.linspace(0, 1, n_bins + 1)))
            bins = np.clip(np.searchsorted(edges, p, side="right") - 1, 0, edges.size - 2)
            mean_p = [p[bins == b].mean() for b in range(edges.size - 1) if np.any(bins == b)]
            share = [hit[bins == b].mean() for b in range(edges.size - 1) if np.any(bins == b)]
            ax.plot(mean_p, share, marker="o", label=model)
        top = max(ax.get_xlim()[1], ax.get_ylim()[1])
        ax.plot([0, top], [0, top], color="0.6", ls="--", lw=1)
        ax.set(title=title, xlabel="predicted probability", ylabel="observed share")
    axes[0].legend(fontsize=8)
    fig.suptitle("Reliability of win / draw / loss probabilities (pooled test months, "
                 f"{n_bins} quantile bins)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
