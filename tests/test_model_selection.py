import numpy as np
import pytest

from svmcompare import NoRankingError, SVMCompare, SVMRank
from svmcompare.datasets import make_norm_pairs
from svmcompare.model_selection import paper_grid, validation_search


def test_paper_grid_values():
    grid = paper_grid()
    np.testing.assert_allclose(grid["C"][[0, -1]], [1e-3, 1e3])
    np.testing.assert_allclose(grid["gamma"][[0, -1]], [2**-7, 2**4])
    assert len(grid["C"]) == len(grid["gamma"]) == 10
    assert list(grid) == ["gamma", "C"]  # C varies fastest, as in the paper's scripts


@pytest.mark.parametrize("scoring", ["error", "auc"])
def test_selects_the_best_validation_point(norm_data, scoring):
    (X, y), (Xv, yv) = norm_data
    grid = {"gamma": [0.25, 1.0], "C": [0.01, 1.0, 100.0]}
    best, results = validation_search(SVMRank(), grid, X, y, Xv, yv, scoring=scoring)
    assert len(results) == 6 and results["selected"].sum() == 1
    chosen = results[results["selected"]].iloc[0]
    column = results[scoring]
    assert chosen[scoring] == (column.min() if scoring == "error" else column.max())
    assert (best.C, best.gamma) == (chosen["C"], chosen["gamma"])
    assert np.mean(best.predict(Xv) != yv) == pytest.approx(chosen["error"])


def test_failed_points_are_recorded():
    X, y = make_norm_pairs(200, "l2", equality_fraction=0.1, noise=1.0, random_state=0)
    Xv, yv = make_norm_pairs(200, "l2", equality_fraction=0.1, noise=1.0, random_state=1)
    grid = {"class_weight": [None, "balanced"]}
    best, results = validation_search(SVMCompare(), grid, X, y, Xv, yv)
    assert results["failed"].tolist() == [True, False]
    assert best.class_weight == "balanced"
    with pytest.raises(NoRankingError, match="Every grid point failed"):
        validation_search(SVMCompare(), {"class_weight": [None]}, X, y, Xv, yv)
