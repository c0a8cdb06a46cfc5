"""The public suite's loaders (benchmarks/suite_data.py): splits leak nothing,
labels and odds are well formed.  Sets not fetched into the cache are skipped."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import suite_data  # noqa: E402


def test_pgn_headers_become_one_row_per_game():
    pgn = (b'[Event "TCEC Season 9"]\n[White "A"]\n[Black "B"]\n[Result "1-0"]\n\n1. e4 *\n'
           b'[Event "TCEC Season 9"]\n[White "B"]\n[Black "A"]\n[Result "1/2-1/2"]\n\n1. d4 *\n')
    import io

    import pandas as pd

    frame = pd.read_csv(io.BytesIO(suite_data.pgn_headers("x.pgn", pgn)))
    assert frame[["White", "Black", "Result"]].values.tolist() == [["A", "B", "1-0"],
                                                                   ["B", "A", "1/2-1/2"]]


def test_davidson_gradient_is_the_derivative_of_its_likelihood():
    from scipy.optimize import check_grad

    from bench_suite import _davidson_nll

    rng = np.random.default_rng(0)
    n, m = 5, 40
    a = rng.integers(0, n, m)
    b = (a + 1 + rng.integers(0, n - 1, m)) % n
    adv, y = rng.choice([-1.0, 0.0, 1.0], m), rng.choice([-1, 0, 1], m)
    value = lambda p: _davidson_nll(p, a, b, adv, y, n, 0.3)[0]  # noqa: E731
    grad = lambda p: _davidson_nll(p, a, b, adv, y, n, 0.3)[1]  # noqa: E731
    assert check_grad(value, grad, rng.normal(size=n + 2)) < 1e-5


@pytest.mark.parametrize("name", sorted(suite_data.LOADERS))
def test_a_suite_set_splits_without_leaks(name):
    if not suite_data.available(name):
        pytest.skip(f"{name} is not in {suite_data.CACHE}: python benchmarks/suite_data.py fetch")
    data = suite_data.LOADERS[name]()
    games = data.games
    assert set(np.unique(games["y"])) <= {-1, 0, 1} and np.any(games["y"] == 0)
    assert data.train.sum() > 0 and data.test.sum() > 0 and not np.any(data.train & data.test)
    assert not np.any(games["a"] == games["b"])
    train_groups = set(games["group"][data.train])
    test_groups = set(games["group"][data.test])
    assert not train_groups & test_groups  # a season or a prompt is on one side only
    if data.history:  # split by time: every test game after every training game
        assert games["time"][data.test].min() > games["time"][data.train].max()
    if "p_a" in games.columns:
        p = games.loc[data.test, ["p_a", "p_tie", "p_b"]].to_numpy()
        np.testing.assert_allclose(p.sum(axis=1), 1.0)
        assert np.all(p > 0)


def test_young_games_counts_each_side_s_earlier_games_by_brute_force():
    import pandas as pd

    from bench_suite import YOUNG, young_games

    rng = np.random.default_rng(1)
    a = rng.integers(0, 6, 200)
    b = (a + 1 + rng.integers(0, 5, 200)) % 6
    games = pd.DataFrame({"a": a.astype(str), "b": b.astype(str)})
    earlier = [min(np.sum((a[:i] == a[i]) | (b[:i] == a[i])),
                   np.sum((a[:i] == b[i]) | (b[:i] == b[i]))) for i in range(200)]
    np.testing.assert_array_equal(young_games(games), np.array(earlier) < YOUNG)
