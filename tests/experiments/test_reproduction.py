"""The paper's claim on simulated data: with C and gamma chosen on a validation
set over the paper's grid, SVMCompare has a lower test error than SVMRank on
the ||x||_1^2 and ||x||_inf^2 patterns (half equality pairs)."""

import numpy as np
import pytest

from svmcompare import SVMCompare, SVMRank
from svmcompare.datasets import make_norm_pairs
from svmcompare.grid_search import paper_grid, validation_search


def _test_error(cls, norm, n, seed, grid):
    rng = np.random.RandomState(seed)
    train, val, test = (make_norm_pairs(n, norm, random_state=rng) for _ in range(3))
    model, _ = validation_search(cls(), grid, *train, *val)
    return 100 * np.mean(model.predict(test[0]) != test[1])


def _compare_vs_rank(norm, n, seeds, grid):
    compare = np.mean([_test_error(SVMCompare, norm, n, s, grid) for s in seeds])
    rank = np.mean([_test_error(SVMRank, norm, n, s, grid) for s in seeds])
    return compare, rank


@pytest.mark.parametrize("norm", ["l1", "linf"])
def test_compare_beats_rank_quick(norm):
    """Small version for every run: n = 200, a 5 x 5 grid, two seeds."""
    compare, rank = _compare_vs_rank(norm, 200, [1, 2], paper_grid(5, 5))
    assert compare < rank


@pytest.mark.slow
@pytest.mark.parametrize("norm", ["l1", "linf"])
def test_compare_beats_rank_paper_grid(norm):
    """Full 10 x 10 grid at n = 400, mean over 4 seeds (about a minute)."""
    compare, rank = _compare_vs_rank(norm, 400, [1, 2, 3, 4], paper_grid())
    assert compare < rank
    assert compare < 14.0  # the paper: 11.5 +- 3.1 (l1) and 10.8 +- 1.8 (linf) at n = 400
