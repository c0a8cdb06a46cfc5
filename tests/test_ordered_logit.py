"""Ordered logit against closed forms and scikit-learn's logistic regression."""

import numpy as np
import pytest
from scipy.optimize import check_grad
from sklearn.linear_model import LogisticRegression

from svmcompare.ordered_logit import OrderedLogit, _objective


def test_gradient_matches_finite_differences():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    k = rng.integers(0, 4, size=40)
    weight = rng.uniform(0.5, 2.0, size=40)
    params = rng.normal(size=3 + 3)

    def f(v):
        return _objective(v, X, k, 4, 0.7, weight)[0]

    def g(v):
        return _objective(v, X, k, 4, 0.7, weight)[1]

    assert check_grad(f, g, params) < 1e-5 * (1 + np.linalg.norm(g(params)))


def test_without_features_the_cut_points_are_the_cumulative_logits():
    y = np.repeat([0, 1, 2, 3], [10, 25, 5, 60])
    model = OrderedLogit().fit(np.zeros((100, 0)), y)
    share = np.cumsum([10, 25, 5])[:3] / 100
    np.testing.assert_allclose(model.thresholds_, np.log(share / (1 - share)), atol=1e-5)
    np.testing.assert_allclose(model.predict_proba(np.zeros((1, 0)))[0],
                               [0.10, 0.25, 0.05, 0.60], atol=1e-6)


def test_two_labels_is_logistic_regression():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 2))
    y = (X @ [1.5, -1.0] + rng.logistic(size=200) > 0.3).astype(int)
    ours = OrderedLogit(alpha=0.5).fit(X, y)
    ref = LogisticRegression(C=1 / 0.5, tol=1e-10, max_iter=10_000).fit(X, y)
    # P(y = 1) = sigma(w^T x - theta): sklearn's intercept is -theta.
    np.testing.assert_allclose(ours.coef_, ref.coef_.ravel(), atol=1e-4)
    np.testing.assert_allclose(ours.thresholds_, -ref.intercept_, atol=1e-4)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-5)


def test_recovers_a_proportional_odds_model_and_validates():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(4000, 2))
    eta = X @ [2.0, -1.0]
    y = np.digitize(eta + rng.logistic(size=4000), [-1.0, 0.5, 2.0]) * 10
    model = OrderedLogit(alpha=0.0).fit(X, y)
    np.testing.assert_array_equal(model.classes_, [0, 10, 20, 30])
    np.testing.assert_allclose(model.coef_, [2.0, -1.0], atol=0.15)
    np.testing.assert_allclose(model.thresholds_, [-1.0, 0.5, 2.0], atol=0.15)
    proba = model.predict_proba(X[:5])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert set(model.predict(X)) <= {0, 10, 20, 30}
    with pytest.raises(ValueError, match="two distinct labels"):
        OrderedLogit().fit(X, np.ones(4000))
    with pytest.raises(ValueError, match="alpha"):
        OrderedLogit(alpha=-1).fit(X, y)
    with pytest.raises(ValueError, match="NaN"):
        OrderedLogit().fit(np.where(X > 3, np.nan, X), y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :1])


def numpy_terms(eta, k, padded, weight, tiny=1e-300):
    """The rows' terms as numpy passes (the formulas of ordered_logit_terms)."""
    from scipy.special import expit

    s_up, s_lo = expit(padded[k + 1] - eta), expit(padded[k] - eta)
    prob = np.maximum(s_up - s_lo, tiny)
    g_up, g_lo = s_up * (1 - s_up), s_lo * (1 - s_lo)
    d_theta = np.zeros(padded.size)
    np.add.at(d_theta, k + 1, -weight * g_up / prob)
    np.add.at(d_theta, k, weight * g_lo / prob)
    return -np.sum(weight * np.log(prob)), weight * (g_up - g_lo) / prob, d_theta


@pytest.mark.parametrize("q", [2, 3, 5])
def test_the_c_sweep_is_the_numpy_formulas(q):
    from svmcompare._ordinal_core import ordered_logit_terms

    rng = np.random.default_rng(q)
    n = 2000
    eta = rng.normal(scale=3.0, size=n)
    eta[:5] = [800.0, -800.0, 40.0, -40.0, 0.0]  # probabilities at the floor, saturated ends
    k = rng.integers(0, q, n)
    padded = np.r_[-np.inf, np.sort(rng.normal(size=q - 1)), np.inf]
    weight = rng.uniform(0.0, 2.0, n)
    d_eta, d_theta = np.empty(n), np.zeros(q + 1)
    loss = ordered_logit_terms(eta, k, padded, weight, d_eta, d_theta, 1e-300)
    want_loss, want_d_eta, want_d_theta = numpy_terms(eta, k, padded, weight)
    assert loss == pytest.approx(want_loss, rel=1e-12)
    np.testing.assert_allclose(d_eta, want_d_eta, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(d_theta, want_d_theta, rtol=1e-11, atol=1e-12)
    with pytest.raises(ValueError, match="class index"):
        ordered_logit_terms(eta, np.full(n, q), padded, weight, d_eta, d_theta, 1e-300)
    with pytest.raises(ValueError, match="one entry per row"):
        ordered_logit_terms(eta, k[:-1], padded, weight, d_eta, d_theta, 1e-300)


def test_the_c_sweep_at_infinite_and_missing_scores_and_hostile_indices():
    """An infinite score gives the limits (the top class certain at eta = +inf:
    loss 0, not -log of inf - inf's floor); a NaN score a NaN loss (the fit's
    line search then backs off, never a finite loss from garbage); the largest
    int64 index is refused (k + 1 overflowed past the bounds check); None is
    refused by type."""
    from svmcompare._ordinal_core import ordered_logit_terms

    padded = np.array([-np.inf, -1.0, 1.0, np.inf])

    def terms(eta, k):
        d_eta, d_theta = np.empty(len(eta)), np.zeros(padded.size)
        loss = ordered_logit_terms(np.asarray(eta, dtype=float), np.asarray(k, dtype=np.int64),
                                   padded, np.ones(len(eta)), d_eta, d_theta, 1e-300)
        return loss, d_eta, d_theta

    assert terms([np.inf], [2])[0] == 0.0
    assert terms([-np.inf], [0])[0] == 0.0
    assert terms([np.inf], [0])[0] == pytest.approx(-np.log(1e-300))  # the floor
    assert np.isnan(terms([0.0, np.nan], [1, 1])[0])
    with pytest.raises(ValueError, match="class index"):
        terms([0.0], [np.iinfo(np.int64).max])
    with pytest.raises(TypeError):
        ordered_logit_terms(None, np.zeros(1, dtype=np.int64), padded, np.ones(1),
                            np.empty(1), np.zeros(4), 1e-300)


@pytest.mark.parametrize("labels", [[-1, 0, 1], [-1, 1], [-2, -1, 0, 1, 2], [-2, -1, 1, 2]])
def test_the_mirrored_fit_is_the_fit_on_both_orientations(labels):
    """mirrored=True on the rows given = the plain fit on the rows and their
    mirrors (-x, -y): same coefficients and cut points (symmetric about 0),
    its objective no higher; its gradient (the mirrored cut points' chain
    rule) against finite differences."""
    from scipy.optimize import check_grad

    from svmcompare.ordered_logit import _objective

    rng = np.random.default_rng(len(labels))
    n = 3000
    X = rng.normal(size=(n, 2))
    labels = np.asarray(labels)
    cuts = np.linspace(-1.0, 1.0, labels.size - 1)
    y = labels[np.searchsorted(cuts, X @ [1.5, -0.5] + rng.logistic(size=n))]
    w = rng.uniform(0.0, 2.0, n)
    mirrored = OrderedLogit(alpha=0.3, mirrored=True).fit(X, y, w)
    both = OrderedLogit(alpha=0.3).fit(np.vstack([X, -X]), np.r_[y, -y], np.r_[w, w])
    np.testing.assert_array_equal(mirrored.classes_, both.classes_)
    np.testing.assert_allclose(mirrored.thresholds_, -mirrored.thresholds_[::-1], atol=1e-15)
    np.testing.assert_allclose(mirrored.coef_, both.coef_, atol=2e-4)
    np.testing.assert_allclose(mirrored.thresholds_, both.thresholds_, atol=2e-4)

    def objective(model):
        P = model.predict_proba(np.vstack([X, -X]))
        k = np.searchsorted(model.classes_, np.r_[y, -y])
        return -np.sum(np.r_[w, w] * np.log(P[np.arange(2 * n), k])) \
            + 0.15 * model.coef_ @ model.coef_

    assert objective(mirrored) <= objective(both) * (1 + 1e-9)  # to the optimizers' tolerance
    q = mirrored.classes_.size
    k = np.searchsorted(mirrored.classes_, y).astype(np.int64)
    point = rng.normal(size=2 + (q - 1) // 2)
    error = check_grad(lambda v: _objective(v, X, k, q, 0.3, w, True)[0],
                       lambda v: _objective(v, X, k, q, 0.3, w, True)[1], point)
    assert error < 1e-4 * max(1.0, np.linalg.norm(_objective(point, X, k, q, 0.3, w, True)[1]))


def test_the_mirrored_fit_needs_numeric_labels():
    with pytest.raises(ValueError, match="numeric labels"):
        OrderedLogit(mirrored=True).fit(np.ones((4, 1)), np.array(["a", "b", "a", "b"]))


@pytest.mark.parametrize("y", [np.array([3, -1, 3, 0, -1, 7]), np.array([5, 5, 2], dtype=np.uint8),
                               np.array([-5000, 4, 4000]), np.array([0.5, -1.0, 0.5])])
def test_classes_by_counting_are_unique_with_inverse(y):
    from svmcompare.ordered_logit import _classes

    classes, inverse = _classes(y)
    want_classes, want_inverse = np.unique(y, return_inverse=True)
    np.testing.assert_array_equal(classes, want_classes)
    assert classes.dtype == want_classes.dtype
    np.testing.assert_array_equal(inverse, want_inverse)


def test_labels_of_narrow_and_unsigned_types():
    """int8 labels 200 apart (their difference wraps in int8) and unsigned
    labels mirrored (their negatives wrap) give the classes and fit of the
    same labels as int64."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 2))
    y = np.where(X[:, 0] + rng.logistic(size=400) > 0, 100, -100)
    wide = OrderedLogit().fit(X, y)
    narrow = OrderedLogit().fit(X, y.astype(np.int8))
    np.testing.assert_array_equal(narrow.classes_, [-100, 100])
    np.testing.assert_allclose(narrow.coef_, wide.coef_)
    grades = np.digitize(X[:, 0] + rng.logistic(size=400), [-0.5, 0.5])  # 0, 1, 2
    signed = OrderedLogit(mirrored=True).fit(X, grades.astype(np.int64))
    unsigned = OrderedLogit(mirrored=True).fit(X, grades.astype(np.uint8))
    np.testing.assert_array_equal(unsigned.classes_, [-2, -1, 0, 1, 2])
    np.testing.assert_allclose(unsigned.thresholds_, signed.thresholds_)


def test_the_sweep_gives_the_same_bits_on_one_thread_and_two():
    from svmcompare._ordinal_core import ordered_logit_terms

    rng = np.random.default_rng(5)
    n = 50_000
    eta, k = rng.normal(scale=2.0, size=n), rng.integers(0, 3, n)
    padded, weight = np.array([-np.inf, -0.4, 0.7, np.inf]), rng.uniform(0.0, 2.0, n)
    results = []
    for threads in (1, 2):
        d_eta, d_theta = np.empty(n), np.zeros(4)
        loss = ordered_logit_terms(eta, k, padded, weight, d_eta, d_theta, 1e-300, threads)
        results.append((loss, d_eta, d_theta))
    assert results[0][0] == results[1][0]
    np.testing.assert_array_equal(results[0][1], results[1][1])
    np.testing.assert_array_equal(results[0][2], results[1][2])
    want = numpy_terms(eta, k, padded, weight)
    assert results[0][0] == pytest.approx(want[0], rel=1e-12)
