"""Figure 6's metrics: Brier score, the trivial model's AUC (eq. 20), failed fits."""

import numpy as np
import pandas as pd
import pytest

from svmcompare.experiments.figure6 import _brier, _metrics, summarize_figure6


def test_brier_and_trivial_auc_closed_forms():
    rng = np.random.default_rng(0)
    y = rng.choice([-1, 0, 1], size=200, p=[0.5, 0.1, 0.4])
    proba = rng.dirichlet([1, 1, 1], size=200)
    expected = np.mean([sum((proba[i, k] - (y[i] == label)) ** 2
                            for k, label in enumerate((-1, 0, 1))) for i in range(200)])
    assert _brier(y, proba) == pytest.approx(expected)
    # Eq. (20): predict the commoner win for all: FPR 1 and TPR = its share of the
    # non-ties, reached in one step from (0, 0), so the area is TPR / 2.
    common = -1 if np.sum(y == -1) > np.sum(y == 1) else 1
    metrics = _metrics(y, np.full(200, float(common)), np.tile([0.5, 0.1, 0.4], (200, 1)))
    share = np.sum(y == common) / np.sum(y != 0)
    assert metrics["auc"] == pytest.approx(share / 2)
    assert metrics["accuracy"] == pytest.approx(np.mean(y == -1))


def test_summary_counts_failed_periods_and_wins_over_ratings():
    results = pd.DataFrame([
        {"period": "p1", "model": "elo", "auc": 0.30, "log_loss": 0.9, "brier": 0.5,
         "accuracy": 0.5, "failed": False},
        {"period": "p2", "model": "elo", "auc": 0.32, "log_loss": 0.9, "brier": 0.5,
         "accuracy": 0.5, "failed": False},
        {"period": "p1", "model": "glicko", "auc": 0.31, "log_loss": 0.9, "brier": 0.5,
         "accuracy": 0.5, "failed": False},
        {"period": "p2", "model": "glicko", "auc": 0.30, "log_loss": 0.9, "brier": 0.5,
         "accuracy": 0.5, "failed": False},
        {"period": "p1", "model": "compare_linear_all", "auc": 0.35, "log_loss": 0.8,
         "brier": 0.4, "accuracy": 0.6, "failed": False},
        {"period": "p2", "model": "compare_linear_all", "failed": True},
    ])
    y = np.array([-1, 0, 1, 1])
    predictions = pd.concat([pd.DataFrame({"model": m, "y": y, "score": [-1.0, 0.0, 1.0, 2.0],
                                           "p_white": 0.4, "p_draw": 0.2, "p_black": 0.4})
                             for m in ("elo", "glicko", "compare_linear_all")])
    summary = summarize_figure6(results, predictions).set_index("model")
    assert summary.loc["compare_linear_all", "failed_periods"] == 1
    assert summary.loc["compare_linear_all", "periods_auc_above_elo"] == 1
    assert summary.loc["glicko", "periods_auc_above_elo"] == 1
    assert summary.loc["compare_linear_all", "auc_mean"] == pytest.approx(0.35)
