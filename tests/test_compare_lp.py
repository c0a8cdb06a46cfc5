"""SVMCompareLP: optimality by an LP duality certificate, Lemma 1 for the
linear kernel, sparsity, and the estimator conventions."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV

from svmcompare import NoRankingError, SVMCompare, SVMCompareLP
from svmcompare.datasets import make_norm_pairs
from svmcompare.kernels import resolve_kernel
from svmcompare.solvers.lp import solve_l1_svm

from .test_hard_margin import lemma1_violation, separable_pairs


@pytest.mark.parametrize("seed", range(3))
def test_l1_svm_duality_certificate(seed):
    """Dual of min |a|_1 + C^T xi: max 1^T lam s.t. |G^T (y lam)|_inf <= 1,
    y^T lam = 0, 0 <= lam <= C; equal optimal values and complementary slackness."""
    rng = np.random.default_rng(seed)
    m, N = 40, 25
    G = rng.normal(size=(m, N))
    yt = rng.choice([-1.0, 1.0], size=m)
    C = rng.uniform(0.5, 2.0, size=m)
    res = solve_l1_svm(G, yt, C)
    lam = res.dual
    assert np.all(lam >= -1e-9) and np.all(lam <= C + 1e-9)
    assert abs(yt @ lam) < 1e-8
    assert np.max(np.abs(G.T @ (yt * lam))) <= 1 + 1e-8
    assert lam.sum() == pytest.approx(res.objective, rel=1e-8)
    assert res.objective == pytest.approx(np.abs(res.a).sum() + C @ res.xi, rel=1e-9)
    margins = yt * (res.bias + G @ res.a)
    assert np.all(margins >= 1 - res.xi - 1e-8) and np.all(res.xi >= -1e-12)
    assert np.all(lam * (margins - 1 + res.xi) < 1e-7)


def test_linear_kernel_on_separable_data_satisfies_lemma1():
    X, y = separable_pairs(200, seed=0)
    model = SVMCompareLP(C=1e4, kernel="linear").fit(X, y)
    assert model.intercept_ < 0 and model.margin_ == pytest.approx(-1 / model.intercept_)
    assert lemma1_violation(model.margin_, model.coef_, X[:, 1] - X[:, 0], y) <= 1e-6
    assert np.all(model.predict(X) == y)


def test_rank_is_the_sparse_kernel_expansion():
    (X, y), (Xt, yt) = (make_norm_pairs(n, "l1", random_state=s) for n, s in ((200, 0), (500, 1)))
    lp = SVMCompareLP(C=1.0, gamma=1.0).fit(X, y)
    svm = SVMCompare(C=1.0, gamma=1.0).fit(X, y)
    assert lp.n_nonzero_ == lp.expansion_coef_.size < svm.support_.size
    Z = lp.scaler_.transform_items(Xt[:, 0])
    K = resolve_kernel("rbf", 1.0).block(Z, lp.expansion_items_)
    np.testing.assert_allclose(lp.rank(Xt[:, 0]), K @ lp.expansion_coef_)
    assert np.mean(lp.predict(Xt) != yt) < 0.3


def test_no_ranking_and_bad_params():
    X, y = make_norm_pairs(100, "l2", equality_fraction=0.1, noise=1.0, random_state=0)
    with pytest.raises(NoRankingError, match="beta"):
        SVMCompareLP(C=0.01, class_weight=None, on_degenerate="raise").fit(X, y)
    with pytest.raises(ValueError, match="C must be positive"):
        SVMCompareLP(C=-1).fit(X, y)
    with pytest.raises(ValueError, match="no equality pairs"):
        SVMCompareLP().fit(X[y != 0], y[y != 0])


def test_sklearn_conventions():
    X, y = make_norm_pairs(120, "l1", random_state=3)
    model = SVMCompareLP(C=3.0, gamma=0.5, class_weight="balanced")
    assert clone(model).get_params() == model.get_params()
    search = GridSearchCV(SVMCompareLP(), {"C": [0.1, 10.0], "gamma": [0.5]}, cv=3).fit(X, y)
    assert search.best_params_["C"] in (0.1, 10.0)


@pytest.mark.parametrize("class_weight", ["auto", "balanced"])
def test_C_path_shares_the_kernel_and_equals_single_fits(class_weight):
    # "balanced" (y^T C = 0): the exact solver's corner start is not the LP's.
    from svmcompare.grid_search import fit_C_path

    X, y = make_norm_pairs(100, "linf", random_state=5)
    Xt, _ = make_norm_pairs(200, "linf", random_state=6)
    path = fit_C_path(SVMCompareLP(gamma=0.5, class_weight=class_weight), X, y, [0.1, 10.0])
    for C, model in zip([0.1, 10.0], path, strict=True):
        single = SVMCompareLP(C=C, gamma=0.5, class_weight=class_weight).fit(X, y)
        assert model.objective_ == pytest.approx(single.objective_, rel=1e-9)
        np.testing.assert_allclose(model.decision_function(Xt), single.decision_function(Xt),
                                   atol=1e-7)


def test_a_pair_of_weight_zero_is_left_out():
    # Its items stayed in the LP's expansion basis: the fit moved by 0.34.
    from svmcompare.datasets import make_norm_pairs

    X, y = make_norm_pairs(40, "l1", equality_fraction=0.3, random_state=0)
    weight = np.ones(40)
    weight[::5] = 0.0
    kept = weight > 0
    with_zeros = SVMCompareLP(C=1.0, gamma=0.5).fit(X, y, sample_weight=weight)
    without = SVMCompareLP(C=1.0, gamma=0.5).fit(X[kept], y[kept])
    np.testing.assert_allclose(with_zeros.decision_function(X), without.decision_function(X),
                               atol=1e-9)
