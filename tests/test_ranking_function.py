"""The fitted ranking function every estimator holds (ranking_function.py)."""

import numpy as np
import pytest

from svmcompare import SVMCompare
from svmcompare._problem import Standardizer
from svmcompare.datasets import make_norm_pairs
from svmcompare.kernels import resolve_kernel
from svmcompare.ranking_function import RankingFunction


def _scaler(p):
    return Standardizer(mean=np.zeros(p), scale=np.ones(p), keep=np.ones(p, dtype=bool))


def test_an_expansion_and_its_weights_agree_for_the_linear_kernel():
    rng = np.random.default_rng(0)
    items, coef = rng.normal(size=(7, 3)), rng.normal(size=7)
    expansion = RankingFunction(_scaler(3), resolve_kernel("linear"), items=items, coef=coef)
    weights = RankingFunction(_scaler(3), resolve_kernel("linear"), weights=items.T @ coef)
    Z = rng.normal(size=(20, 3))
    np.testing.assert_allclose(expansion.rank_standardized(Z), Z @ (items.T @ coef))
    np.testing.assert_allclose(weights.rank_standardized(Z), expansion.rank_standardized(Z))
    np.testing.assert_allclose(expansion.linear_coef(), weights.linear_coef())


def test_difference_is_antisymmetric_and_adds_the_context_term():
    rng = np.random.default_rng(1)
    items, coef = rng.normal(size=(5, 2)), rng.normal(size=5)
    ranking = RankingFunction(_scaler(2), resolve_kernel("rbf", gamma=0.5), items=items,
                              coef=coef, context_coef=np.array([0.7]))
    X, context = rng.normal(size=(9, 2, 2)), rng.choice([-1.0, 1.0], size=(9, 1))
    d = ranking.difference(X, context)
    r = ranking.rank_standardized
    np.testing.assert_allclose(d, r(X[:, 1]) - r(X[:, 0]) + 0.7 * context[:, 0])
    np.testing.assert_allclose(ranking.difference(X[:, ::-1], -context), -d)
    assert ranking.n_context == 1 and ranking.n_features_in == 2
    with pytest.raises(AttributeError, match="linear"):
        ranking.linear_coef()
    with pytest.raises(ValueError, match="either an expansion or weights"):
        RankingFunction(_scaler(2), resolve_kernel("linear"))


def test_estimators_score_through_their_ranking_function():
    X, y = make_norm_pairs(100, "l1", random_state=0)
    model = SVMCompare(C=1.0, gamma=0.5).fit(X, y)
    Xs = model.scaler_.transform_pairs(X)
    np.testing.assert_allclose(model.decision_function(X), model.ranking_.difference(Xs))
    np.testing.assert_array_equal(model.expansion_items_, model.ranking_.items)
