"""The sushi loader on small synthetic files in the real layout (the real data
may not be copied), and on the real folder when it is beside the repository."""

from pathlib import Path

import numpy as np
import pytest

from svmcompare.datasets import load_sushi, load_sushi_scores

REAL = Path(__file__).resolve().parents[3] / "shared" / "data" / "sushi"


def _write_fake(folder, scores, rng):
    n_people, n_items = scores.shape
    folder.mkdir(exist_ok=True)
    np.savetxt(folder / "sushi3b.5000.10.score", scores, fmt="%d", delimiter=" ")
    with open(folder / "sushi3.idata", "w") as f:
        for i in range(n_items):
            values = [i, f"item{i}", i % 2, 0, i % 12, 10 + i, 2.0, 1.5 + i, 0.5]
            f.write("\t".join(map(str, values)) + "\n")
    with open(folder / "sushi3.udata", "w") as f:
        for u in range(n_people):
            values = [100 + u, u % 2, u % 6, 300 + u, u % 3, 0, 0, (u + 1) % 3, 0, 0, 1]
            f.write("\t".join(map(str, values)) + "\n")
    (folder / "prefectures").mkdir(exist_ok=True)
    rows = ["sushi_code,latitude,longitude"] + [f"{c},{30 + c},{130 + c}" for c in range(3)]
    (folder / "prefectures" / "sushi_prefecture_coords.csv").write_text("\n".join(rows) + "\n")


def _fake_scores(rng, n_people=4, n_items=14):
    scores = -np.ones((n_people, n_items), dtype=int)
    for u in range(n_people):
        rated = rng.choice(n_items, size=10, replace=False)
        scores[u, rated] = rng.integers(0, 5, size=10)
    return scores


def test_pairs_follow_the_paper(tmp_path):
    rng = np.random.default_rng(0)
    scores = _fake_scores(rng)
    _write_fake(tmp_path, scores, rng)
    data = load_sushi(tmp_path, random_state=3)
    assert data.X.shape == (20, 2, 14) and len(data.feature_names) == 14
    for k in range(20):
        u, a, b = data.person[k], data.item_a[k], data.item_b[k]
        assert scores[u, a] >= 0 and scores[u, b] >= 0
        assert data.y[k] == np.sign(scores[u, b] - scores[u, a])
        assert data.X[k, 0, 0] == a % 2 and data.X[k, 1, 5] == 1.5 + b  # style, price
        # Person features: gender, age, time, lat/lon until 15 and now, same in x and x'.
        expected = [u % 2, u % 6, 300 + u, 30 + u % 3, 130 + u % 3, 30 + (u + 1) % 3,
                    130 + (u + 1) % 3]
        np.testing.assert_array_equal(data.X[k, 0, 7:], expected)
        np.testing.assert_array_equal(data.X[k, 1, 7:], expected)
    for u in range(4):
        # 5 disjoint pairs cover the 10 rated items; taken from the lowest scores up.
        mine = data.person == u
        a, b = data.item_a[mine], data.item_b[mine]
        assert sorted(np.concatenate([a, b])) == sorted(np.flatnonzero(scores[u] >= 0))
        low = np.minimum(scores[u, a], scores[u, b])
        high = np.maximum(scores[u, a], scores[u, b])
        assert np.all(high[np.argsort(low)][:-1] <= np.sort(low)[1:])
    # The orientation is random (both signs occur) and reproducible.
    again = load_sushi(tmp_path, random_state=3)
    np.testing.assert_array_equal(again.y, data.y)
    X, y = load_sushi(tmp_path, random_state=4, return_X_y=True)
    assert np.any(y != data.y)


def test_scores_as_graded_items(tmp_path):
    rng = np.random.default_rng(5)
    scores = _fake_scores(rng)
    _write_fake(tmp_path, scores, rng)
    data = load_sushi_scores(tmp_path)
    assert data.X.shape == (40, 14)
    np.testing.assert_array_equal(np.bincount(data.person), [10, 10, 10, 10])
    np.testing.assert_array_equal(data.y, scores[data.person, data.item])
    assert np.all(data.y >= 0)
    np.testing.assert_array_equal(data.X[:, 5], 1.5 + data.item)  # the sushi's price
    np.testing.assert_array_equal(data.X[:, 8], data.person % 6)  # the person's age group
    X, y, groups = load_sushi_scores(tmp_path, return_X_y=True)
    np.testing.assert_array_equal(groups, data.person)


def test_missing_data_says_where_to_download(tmp_path):
    with pytest.raises(FileNotFoundError, match="kamishima.net/sushi"):
        load_sushi(tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError, match="sushi3b.5000.10.score"):
        load_sushi(tmp_path)


def test_a_person_without_ten_ratings_is_reported(tmp_path):
    rng = np.random.default_rng(1)
    scores = _fake_scores(rng)
    scores[2, np.flatnonzero(scores[2] >= 0)[0]] = -1
    _write_fake(tmp_path, scores, rng)
    with pytest.raises(ValueError, match="row 3 has 9 rated items"):
        load_sushi(tmp_path)


@pytest.mark.skipif(not REAL.is_dir(), reason="the sushi data is not beside the repository")
def test_real_data_counts():
    data = load_sushi(REAL)
    assert data.X.shape == (25_000, 2, 14)
    counts = {v: int(np.sum(data.y == v)) for v in (-1, 0, 1)}
    assert counts[0] == 17_832 and counts[-1] + counts[1] == 7_168
    assert 3_300 < counts[1] < 3_900  # random orientation
    assert np.all(np.isfinite(data.X))
    X, y, groups = load_sushi_scores(REAL, return_X_y=True)
    assert X.shape == (50_000, 14) and set(np.unique(y)) == {0, 1, 2, 3, 4}
    assert np.unique(groups).size == 5_000
