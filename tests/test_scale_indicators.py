"""scale_indicators: 0/1 features (one-hot identities) centered, not scaled,
so that every identity is shrunk alike toward the mean (issue 35, cold starts)."""

import numpy as np
import pytest

from svmcompare import SVMCompare, SVMCompareCV
from svmcompare._problem import Standardizer, indicator_columns
from svmcompare.model_selection import default_grid
from svmcompare.sparse_pairs import SparsePairs


def _league(seed=0, n_games=400, n_teams=8, rare=7, rare_games=3):
    """Games between teams 0..n_teams-1 (one-hot ids plus a noisy skill
    feature); team ``rare`` plays only ``rare_games`` games and wins them."""
    rng = np.random.default_rng(seed)
    skill = np.linspace(-1, 1, n_teams)
    a = rng.integers(0, n_teams - 1, n_games)
    b = (a + 1 + rng.integers(0, n_teams - 2, n_games)) % (n_teams - 1)
    a[:rare_games], b[:rare_games] = rare, rng.integers(0, n_teams - 1, rare_games)
    gap = skill[b] - skill[a] + rng.normal(0, 0.7, n_games)
    y = np.where(gap > 0.4, 1, np.where(gap < -0.4, -1, 0))
    y[:rare_games] = -1  # the rare team (x) wins every game it plays
    eye = np.eye(n_teams)
    extra = rng.normal(size=(n_games, 2, 1))
    X = np.concatenate([np.stack([eye[a], eye[b]], axis=1), extra], axis=2)
    return X, y


def test_indicator_columns_by_brute_force():
    X, _ = _league()
    expected = [set(np.unique(X[:, :, j])) == {0.0, 1.0} for j in range(X.shape[2])]
    np.testing.assert_array_equal(indicator_columns(X), expected)
    X[0, 0, 2] = 2.0  # no longer 0/1
    assert not indicator_columns(X)[2]
    Xd, _ = _league()
    sparse = SparsePairs(Xd[:, 0], Xd[:, 1])
    np.testing.assert_array_equal(indicator_columns(sparse), indicator_columns(Xd))


def test_unscaled_indicators_keep_their_scale_and_nothing_else_changes():
    X, _ = _league()
    scaled = Standardizer.fit(X)
    centered = Standardizer.fit(X, scale_indicators=False)
    ind = indicator_columns(X)[scaled.keep]
    np.testing.assert_array_equal(centered.scale[ind], 1.0)
    np.testing.assert_array_equal(centered.scale[~ind], scaled.scale[~ind])
    np.testing.assert_array_equal(centered.mean, scaled.mean)
    assert np.all(scaled.scale[ind] < 0.5)  # standardized, each indicator grew


def test_a_rare_identity_is_shrunk_more_than_when_standardized():
    X, y = _league()
    items = np.concatenate([np.eye(8), np.zeros((8, 1))], axis=1)

    def ratings(scale_indicators):
        model = SVMCompare(kernel="linear", C=1.0, scale_indicators=scale_indicators)
        r = model.fit(X, y).rank(items)
        return r - r.mean()

    standardized, centered = ratings(True), ratings(False)
    spread_s, spread_c = np.std(standardized[:7]), np.std(centered[:7])
    # The rare team (3 games, 3 wins) relative to the spread of the regular teams.
    assert centered[7] / spread_c < standardized[7] / spread_s


def test_sparse_and_dense_identities_agree_unscaled():
    X, y = _league()
    X = X[:, :, :8]  # identities only
    sparse = SparsePairs(X[:, 0], X[:, 1])
    # Sparse ids take the dual coordinate descent (solvers/dual_cd.py), dense
    # pairs the primal Newton method: the same model to their tolerance.
    dense = SVMCompare(kernel="linear", scale_indicators=False, tol=1e-7).fit(X, y)
    light = SVMCompare(kernel="linear", scale_indicators=False, tol=1e-7).fit(sparse, y)
    np.testing.assert_allclose(light.decision_function(sparse), dense.decision_function(X),
                               rtol=1e-5, atol=1e-5)


def test_the_search_tries_both_only_when_there_are_indicators():
    assert "scale_indicators" not in default_grid(3)[0]
    assert default_grid(3, indicators=True)[0]["scale_indicators"] == [True, False]
    X, y = _league(n_games=150)
    grid_keys = set(SVMCompareCV(cv=3)._grid(SVMCompare(), X, "hinge")[0])
    assert "scale_indicators" in grid_keys
    Xc = X[:, :, 8:] + 0.5  # the continuous feature alone
    assert "scale_indicators" not in SVMCompareCV(cv=3)._grid(SVMCompare(), Xc, "hinge")[0]


def test_a_bad_value_is_refused_before_any_work():
    X, y = _league()
    with pytest.raises(TypeError, match="scale_indicators must be True or False"):
        SVMCompare(scale_indicators="no").fit(X, y)
