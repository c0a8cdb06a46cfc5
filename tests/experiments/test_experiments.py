"""The paper's protocol (Figures 4 and 5): data draws, selection, tables, and the
quick end-to-end `svmcompare reproduce all --quick` that CI runs."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from svmcompare.cli import main
from svmcompare.datasets import latent_rank
from svmcompare.experiments.protocol import (
    Setting,
    _sample_pool,
    draw_sets,
    paper_numbers,
    run_settings,
    summarize,
)
from svmcompare.grid_search import paper_grid

SUSHI = Path(__file__).resolve().parents[3] / "shared" / "data" / "sushi"
CHESS = SUSHI.parent / "chess" / "lichess_kaggle_games" / "games.csv"


def test_simulated_sets_have_the_requested_sizes_and_ties():
    sets = draw_sets(Setting("linf", 40, 0.25, 7))
    for X, y in sets.values():
        assert X.shape == (40, 2, 2) and np.sum(y == 0) == 10
    again = draw_sets(Setting("linf", 40, 0.25, 7))
    np.testing.assert_array_equal(again["test"][0], sets["test"][0])
    assert not np.array_equal(sets["train"][0], sets["test"][0])


def test_pool_sets_are_disjoint_with_exact_tie_counts():
    rng = np.random.RandomState(0)
    y = rng.choice([-1, 0, 1], size=600)
    X = np.arange(600, dtype=float).reshape(600, 1, 1).repeat(2, axis=1)  # row id as feature
    sets = _sample_pool(X, y, 50, 0.3, np.random.RandomState(1))
    ids = np.concatenate([Xs[:, 0, 0] for Xs, _ in sets.values()])
    assert ids.size == 150 and np.unique(ids).size == 150
    for Xs, ys in sets.values():
        assert np.sum(ys == 0) == 15
        np.testing.assert_array_equal(y[Xs[:, 0, 0].astype(int)], ys)
    with pytest.raises(ValueError, match="three sets of 300 pairs"):
        _sample_pool(X, y, 300, 0.5, np.random.RandomState(1))


def test_sushi_panel_needs_its_data():
    with pytest.raises(ValueError, match="sushi"):
        draw_sets(Setting("sushi", 40, 0.5, 1))
    with pytest.raises(ValueError, match="sushi_path"):
        run_settings([Setting("sushi", 40, 0.5, 1)])
    with pytest.raises(ValueError, match="panel must be one of"):
        draw_sets(Setting("l3", 40, 0.5, 1))


def test_run_settings_rows_match_direct_recomputation():
    setting = Setting("l1", 60, 0.5, 2)
    grid = paper_grid(3, 3)
    results = run_settings([setting], grid=grid, n_jobs=1)
    assert list(results["model"]) == ["compare", "rank", "rank2", "truth"]
    assert not results["failed"].any()
    X, y = draw_sets(setting)["test"]
    diff = latent_rank(X[:, 1], "l1") - latent_rank(X[:, 0], "l1")
    truth = results.set_index("model").loc["truth"]
    pred = np.where(diff > 1, 1, np.where(diff < -1, -1, 0))
    assert truth["test_error"] == pytest.approx(100 * np.mean(pred != y))
    for row in results.itertuples():
        assert row.test_error == pytest.approx(
            100 * (row.false_positive + row.false_negative + row.inversion) / 60)
        assert 0 <= row.test_auc <= row.test_auc_scripts <= 1
    chosen = results[results["model"] != "truth"]
    assert set(chosen["C"]) <= set(grid["C"]) and set(chosen["gamma"]) <= set(grid["gamma"])


def test_paper_numbers_and_summary():
    fig4, fig5 = paper_numbers("fig4"), paper_numbers("fig5")
    assert len(fig4) == 75 and len(fig5) == 108
    assert (fig4["paper_sd"] >= 0).all()
    row = fig4[(fig4.panel == "l1") & (fig4.model == "compare") & (fig4.x == 800)].iloc[0]
    assert row.paper_mean == pytest.approx(10.755) and row.paper_sd == pytest.approx(1.063)
    results = pd.DataFrame({"panel": "l1", "model": "compare", "n_pairs": 800,
                            "test_error": [10.0, 12.0, 14.0], "failed": [False] * 3})
    results.loc[3] = ["l1", "compare", 800, 99.0, True]  # failed fits are left out
    table = summarize(results, "n_pairs", "test_error", "fig4").iloc[0]
    assert table["mean"] == pytest.approx(12.0) and table["sd"] == pytest.approx(2.0)
    assert table["seeds"] == 3
    assert table["difference"] == pytest.approx(12.0 - 10.755)


@pytest.mark.skipif(not SUSHI.is_dir() or not CHESS.is_file(),
                    reason="the sushi and chess data are not beside the repository")
def test_reproduce_all_quick(tmp_path, capsys):
    """What CI runs: every figure, sushi included, with the quick settings."""
    code = main(["reproduce", "all", "--quick", "--out", str(tmp_path), "--sushi-path",
                 str(SUSHI), "--chess-path", str(CHESS), "--n-jobs", "2", "--no-progress"])
    assert code == 0
    for name in ("figure1.png", "figure2.png", "figure3/figure3.png", "figure4.png",
                 "figure4.svg", "figure5.png", "figure5_scripts_auc.png", "figure4_results.csv",
                 "figure5_summary.csv"):
        assert (tmp_path / name).stat().st_size > 1000, name
    timings = pd.read_csv(tmp_path / "timings.csv")
    assert list(timings["figure"]) == ["figure1", "figure2", "figure3", "figure4", "figure5",
                                       "figure6", "tutorial", "ordinal"]
    margins = pd.read_csv(tmp_path / "figure2_margins.csv").set_index("problem")["margin"]
    # Figure 2: the raw QP's margin is far below the LP's; standardized, they agree.
    assert margins["QP (9) raw"] < 0.5 * margins["LP (7)"]
    assert margins["QP (9) standardized"] == pytest.approx(margins["LP (7)"], rel=1e-4)
    fig4 = pd.read_csv(tmp_path / "figure4_summary.csv")
    assert set(fig4["panel"]) == {"l1", "l2", "linf", "sushi"}
    at = fig4[fig4["x"] == 200].set_index(["panel", "model"])["mean"]
    assert at["l1", "compare"] < at["l1", "rank"]
    assert at["l1", "truth"] < at["l1", "compare"]
    assert 20 < at["sushi", "compare"] < 45  # well below the trivial 50 %
    fig5 = pd.read_csv(tmp_path / "figure5_summary.csv")
    assert fig5["mean"].between(0.5, 1.0).all()
    fig6 = pd.read_csv(tmp_path / "figure6_summary.csv").set_index("model")
    assert {"compare_linear_all", "compare_rbf_ratings", "elo", "glicko", "lichess",
            "trivial"} <= set(fig6.index) and len(fig6) == 10
    assert fig6["auc_mean"].between(0.2, 0.6).all()
    assert (fig6["log_loss_mean"] < np.log(3)).all()  # every model beats 1/3 each
    assert fig6.loc["lichess", "log_loss_mean"] < fig6.loc["trivial", "log_loss_mean"]
    predictions = pd.read_csv(tmp_path / "figure6_predictions.csv")
    total = predictions[["p_white", "p_draw", "p_black"]].sum(axis=1)
    np.testing.assert_allclose(total, 1.0)
    for name in ("figure6.png", "figure6_reliability.png"):
        assert (tmp_path / name).stat().st_size > 1000, name
    tutorial = pd.read_csv(tmp_path / "tutorial_summary.csv").set_index("model")
    for block in (0, 1):  # the tutorial's claim: RankSVM ranks each block better than Ridge
        column = f"tau_block{block}_mean"
        assert tutorial.loc["ranksvm", column] > tutorial.loc["ridge", column]
    assert tutorial.loc["ranksvm", "cosine_mean"] > 0.95 > 0.8 > tutorial.loc["ridge",
                                                                              "cosine_mean"]
    ordinal = pd.read_csv(tmp_path / "ordinal_summary.csv").set_index("model")
    assert set(ordinal.index) == {"ordered_logit", "svc_ovr", "svr", "ordinal_svm",
                                  "ordinal_svm_ties", "ranksvm", "compare_ties"}
    assert ordinal["tau_mean"].between(0.15, 0.5).all()  # real, modest signal for new people
    # Predicting "tie" everywhere errs on about 2/3 of same-person pairs; all models do better.
    assert (ordinal["pair_error_percent_mean"] < 62).all()
    grades = ordinal.dropna(subset=["mae_mean"])
    assert len(grades) == 5 and grades["mae_mean"].between(0.7, 1.4).all()
    assert (tmp_path / "ordinal.png").stat().st_size > 1000
    assert (tmp_path / "tutorial.png").stat().st_size > 1000
    output = capsys.readouterr().out
    assert "Figure 5" in output and "RankSVM tutorial" in output and "SUSHI scores" in output
    assert "Figure 6" in output


def test_reproduce_rejects_a_missing_sushi_folder(tmp_path, capsys):
    code = main(["reproduce", "figure4", "--quick", "--out", str(tmp_path), "--sushi-path",
                 str(tmp_path / "nowhere"), "--no-progress"])
    assert code == 2
    assert "kamishima.net" in capsys.readouterr().err
