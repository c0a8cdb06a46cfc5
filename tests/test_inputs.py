"""Inputs that must fail clearly, for every estimator."""

import numpy as np
import pytest

from svmcompare import SVMCompare, SVMRank, SVMRank2
from svmcompare._problem import Standardizer

ESTIMATORS = [SVMCompare, SVMRank, SVMRank2]


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2, 3))
    y = np.tile([-1, 0, 1], 10)
    return X, y


@pytest.mark.parametrize("cls", ESTIMATORS)
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_non_finite_X(cls, data, value):
    X, y = data
    X[3, 1, 2] = value
    message = r"X contains NaN or infinity \(first at index \(3, 1, 2\)\)"
    with pytest.raises(ValueError, match=message):
        cls().fit(X, y)


@pytest.mark.parametrize("cls", ESTIMATORS)
@pytest.mark.parametrize("shape", [(30, 6), (30, 3, 2), (30, 1, 3), (2, 30, 3, 1)])
def test_wrong_shape_X(cls, data, shape):
    _, y = data
    with pytest.raises(ValueError, match=r"shape \(n_pairs, 2, n_features\)"):
        cls().fit(np.zeros(shape), y)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_non_numeric_X(cls, data):
    _, y = data
    with pytest.raises(TypeError, match="numeric"):
        cls().fit(np.full((30, 2, 3), "a"), y)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_length_mismatch(cls, data):
    X, y = data
    with pytest.raises(ValueError, match="y has 29 labels but X has 30 pairs"):
        cls().fit(X, y[:-1])


@pytest.mark.parametrize("cls", ESTIMATORS)
@pytest.mark.parametrize("bad, shown", [(0.5, "0.5"), (2, "2"), (-3, "-3")])
def test_labels_outside_the_label_set(cls, data, bad, shown):
    X, y = data
    y = y.astype(float)
    y[4] = bad
    with pytest.raises(ValueError, match=f"y contains {shown}; labels must be -1, 0 or 1"):
        cls().fit(X, y)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_string_labels(cls, data):
    X, _ = data
    with pytest.raises(TypeError, match="y must be numeric"):
        cls().fit(X, np.array(["a"] * 30))


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_predict_with_other_feature_count(cls, data):
    X, y = data
    model = cls().fit(X, y)
    message = "X has 2 features per item, but the model was fitted with 3"
    with pytest.raises(ValueError, match=message):
        model.predict(X[:, :, :2])
    with pytest.raises(ValueError, match="Z has 4 features, but the model was fitted with 3"):
        model.rank(np.zeros((5, 4)))


@pytest.mark.parametrize("cls", ESTIMATORS)
@pytest.mark.parametrize("param, value, error", [
    ("C", 0.0, ValueError), ("C", -1.0, ValueError), ("C", np.inf, ValueError),
    ("C", "1", TypeError), ("gamma", 0.0, ValueError), ("gamma", -2.0, ValueError),
    ("tol", 0.0, ValueError), ("max_iter", 0, ValueError), ("cache_size", -1, ValueError),
    ("kernel", "sigmoid", ValueError), ("degree", 0, ValueError),
    ("shrinking", "yes", TypeError),
])
def test_bad_hyper_parameters(cls, data, param, value, error):
    X, y = data
    params = {param: value}
    if param == "degree":
        params["kernel"] = "poly"
    with pytest.raises(error, match=param if param != "kernel" else "kernel must be"):
        cls(**params).fit(X, y)


def test_bad_class_weight(data):
    X, y = data
    with pytest.raises(ValueError, match="class_weight"):
        SVMCompare(class_weight="heavy").fit(X, y)
    with pytest.raises(ValueError, match="keys are the flipped labels"):
        SVMCompare(class_weight={0: 1.0}).fit(X, y)
    with pytest.raises(ValueError, match=r"class_weight\[1\] must be a positive number"):
        SVMCompare(class_weight={1: -1.0}).fit(X, y)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_unfitted_model(cls, data):
    from sklearn.exceptions import NotFittedError

    X, _ = data
    with pytest.raises(NotFittedError):
        cls().predict(X)


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_all_constant_features(cls, data):
    _, y = data
    with pytest.raises(ValueError, match="Every feature is constant"):
        cls().fit(np.ones((30, 2, 3)), y)


def test_standardizer_centers_and_scales_stacked_items():
    rng = np.random.default_rng(1)
    X = rng.normal(loc=5, scale=3, size=(40, 2, 3))
    X[:, :, 1] = 2.5  # constant feature
    s = Standardizer.fit(X)
    np.testing.assert_array_equal(s.keep, [True, False, True])
    Xs = s.transform_pairs(X)
    items = Xs.reshape(-1, 2)
    np.testing.assert_allclose(items.mean(0), 0, atol=1e-12)
    np.testing.assert_allclose(items.std(0, ddof=1), 1)


def test_extreme_feature_scales_give_the_same_model(data):
    X, y = data
    a = SVMCompare().fit(X, y)
    for scale in (1e-8, 1e8):
        b = SVMCompare().fit(X * scale, y)
        np.testing.assert_array_equal(b.predict(X * scale), a.predict(X))
