"""Inputs that must fail clearly.

Every row of the README's bad-input table, and random small inputs (hypothesis):
every call succeeds with labels in {-1, 0, 1} and finite scores, or raises a
ValueError / TypeError with a message - nothing else, no hang, no NaN.  Then
the checks every estimator makes of its inputs."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import NotFittedError

from svmcompare import GroupRankSVM, OrdinalSVM, SVMCompare, SVMRank, SVMRank2
from svmcompare._problem import Standardizer
from svmcompare.datasets import make_norm_pairs

X, Y = make_norm_pairs(60, "l1", random_state=0)
TIES, NON_TIES = Y == 0, Y != 0

# (what the user passes, the call, the exception, words of its message): the README table.
BAD_INPUTS = [
    ("items (n, p) instead of pairs", lambda: SVMCompare().fit(X[:, 0], Y), ValueError,
     "must have shape (n_pairs, 2, n_features)"),
    ("labels of another length", lambda: SVMCompare().fit(X, Y[:-1]), ValueError,
     "y has 59 labels but X has 60 pairs"),
    ("NaN or infinity in X", lambda: SVMCompare().fit(np.where(X > 1, np.nan, X), Y),
     ValueError, "NaN or infinity (first at index"),
    ("a label outside {-1, 0, 1}", lambda: SVMCompare().fit(X, np.where(Y == 1, 2, Y)),
     ValueError, "y contains 2; labels must be -1, 0 or 1"),
    ("text in X", lambda: SVMCompare().fit(X.astype(str), Y), TypeError, "must be a numeric"),
    ("no pairs", lambda: SVMCompare().fit(X[:0], Y[:0]), ValueError, "X has no pairs"),
    ("SVMCompare without ties", lambda: SVMCompare().fit(X[NON_TIES], Y[NON_TIES]),
     ValueError, "Use SVMRank"),
    ("SVMCompare with only ties", lambda: SVMCompare().fit(X[TIES], Y[TIES]), ValueError,
     "only equality pairs"),
    ("SVMRank with only ties", lambda: SVMRank().fit(X[TIES], Y[TIES]), ValueError,
     "has none"),
    ("too few ties for C (beta >= 0)",
     lambda: SVMCompare(C=1e-3, class_weight=None, on_degenerate="raise").fit(
         X[NON_TIES | (np.cumsum(TIES) <= 1)],
                                    Y[NON_TIES | (np.cumsum(TIES) <= 1)]),
     ValueError, "class_weight='balanced'"),
    ("C <= 0", lambda: SVMCompare(C=-1).fit(X, Y), ValueError, "C must be positive"),
    ("gamma <= 0", lambda: SVMCompare(gamma=0).fit(X, Y), ValueError, "gamma must be"),
    ("unknown kernel", lambda: SVMCompare(kernel="sigmoid").fit(X, Y), ValueError,
     "kernel must be one of"),
    ("unknown solver", lambda: SVMCompare(solver="magic").fit(X, Y), ValueError,
     "solver must be one of"),
    ("unknown on_degenerate", lambda: SVMCompare(on_degenerate="maybe").fit(X, Y), ValueError,
     "on_degenerate must be one of"),
    ("bad class_weight", lambda: SVMCompare(class_weight="foo").fit(X, Y), ValueError,
     "class_weight must be"),
    ("predict with other features", lambda: SVMCompare().fit(X, Y).predict(X[:, :, :1]),
     ValueError, "fitted with 2"),
    ("predict before fit", lambda: SVMCompare().predict(X), NotFittedError, "not fitted"),
    ("groups of another length", lambda: GroupRankSVM().fit(X[:, 0], np.arange(60) % 3, [0, 1]),
     ValueError, "groups has 2 entries"),
    ("one grade only (ordinal)", lambda: OrdinalSVM().fit(X[:, 0], np.zeros(60)), ValueError,
     "at least two distinct ranks"),
    ("boolean labels", lambda: SVMCompare().fit(X, Y > 0), TypeError,
     "y is boolean, which would read False as a tie"),
    ("x == x' in every pair", lambda: SVMCompare().fit(X[:, [0, 0]], Y), ValueError,
     "x and x' are identical in every pair"),
    ("C beyond double precision", lambda: SVMCompare(C=1e300).fit(X, Y), ValueError,
     "C = 1e+300 is too large"),
    ("a kernel that overflows",
     lambda: SVMCompare(kernel="poly", degree=100, gamma=50.0).fit(X, Y),
     ValueError, "The poly kernel reaches"),
    ("beta numerically 0 (linear)", lambda: SVMCompare(
        kernel="linear", class_weight=None, on_degenerate="raise").fit(
        [[[0.010863617116851331], [-2.292418095744832]],
         [[-0.36785909997515115], [-2.0743352154981824]],
         [[-1.8527876671332573], [-0.330253513580876]],
         [[-2.7667809026409933], [1.338534532734223]],
         [[0.010863617116851331], [-2.292418095744832]]], [0, 1, -1, 0, 1]),
     ValueError, "numerically 0"),
]


@pytest.mark.parametrize("what, call, error, words", BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_each_bad_input_gets_its_message(what, call, error, words):
    with pytest.raises(error) as info:
        call()
    assert words in str(info.value)


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
@pytest.mark.parametrize("factor", [1e-200, 1e-12, 1e12, 1e200])
def test_features_at_extreme_scales_give_the_same_model(kernel, factor):
    # Standardization divides the scale out, exactly: x^2 of a feature at 1e200
    # overflowed and at 1e-200 underflowed (the feature was dropped as constant).
    reference = SVMCompare(kernel=kernel, class_weight="balanced").fit(X, Y)
    scaled = X.copy()
    scaled[:, :, 1] *= factor
    model = SVMCompare(kernel=kernel, class_weight="balanced").fit(scaled, Y)
    # The same problem to the last bits or so: an iterative solver stops where
    # its tolerance says (dual coordinate descent, linear: ~1e-6 relative).
    np.testing.assert_allclose(model.decision_function(scaled), reference.decision_function(X),
                               rtol=1e-4 if kernel == "linear" else 1e-6, atol=1e-8)


@pytest.mark.parametrize("convert", [
    lambda A: A.astype(np.float32), lambda A: np.asfortranarray(A),
    lambda A: np.repeat(A, 2, axis=2)[:, :, ::2], lambda A: A.tolist(),
    lambda A: np.require(A, requirements="W").copy().view(), ],
    ids=["float32", "fortran", "strided", "lists", "view"])
def test_dtypes_and_layouts_give_the_same_model(convert):
    Xc = convert(X)
    # float32 input is the float32-rounded data, exactly, after conversion.
    X64 = np.asarray(Xc, dtype=np.float64)
    reference = SVMCompare(class_weight="balanced").fit(X64, Y)
    if isinstance(Xc, np.ndarray):
        Xc.setflags(write=False)  # read-only input is never written to
    model = SVMCompare(class_weight="balanced").fit(Xc, list(Y))
    np.testing.assert_array_equal(model.decision_function(X64),
                                  reference.decision_function(X64))


def test_pandas_labels_and_integer_features_are_accepted():
    import pandas as pd

    Xi = np.round(X * 3).astype(int)
    a = SVMCompare(class_weight="balanced").fit(Xi, pd.Series(Y))
    b = SVMCompare(class_weight="balanced").fit(Xi.astype(float), Y)
    np.testing.assert_array_equal(a.decision_function(Xi), b.decision_function(Xi))


def test_huge_C_on_separable_data_is_the_hard_margin_not_zero():
    # Snapping alphas to their bounds must be relative to the alphas, not to a
    # C of 1e30 far above them (which set every alpha to 0 in a first version).
    big = SVMCompare(C=1e30).fit(X, Y)
    large = SVMCompare(C=1e10).fit(X, Y)
    np.testing.assert_allclose(big.decision_function(X), large.decision_function(X),
                               rtol=1e-9)
    assert np.ptp(big.decision_function(X)) > 1


@st.composite
def pair_sets(draw):
    n = draw(st.integers(2, 24))
    p = draw(st.integers(1, 3))
    scale = 10.0 ** draw(st.integers(-8, 8))
    values = draw(st.lists(st.floats(-3, 3), min_size=n * 2 * p, max_size=n * 2 * p))
    X = np.asarray(values).reshape(n, 2, p) * scale
    if draw(st.booleans()):
        X[:, :, 0] = 1.5 * scale  # a constant feature
    if draw(st.booleans()):
        X = np.concatenate([X, X[: n // 2]])  # duplicated pairs
    y = np.asarray(draw(st.lists(st.sampled_from([-1, 0, 1]), min_size=X.shape[0],
                                 max_size=X.shape[0])))
    return X, y


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=pair_sets(), which=st.sampled_from(["rbf", "linear", "rank"]))
def test_random_inputs_succeed_cleanly_or_raise_value_errors(data, which):
    X, y = data
    model = {"rbf": SVMCompare(C=1.0, max_iter=200_000),
             "linear": SVMCompare(kernel="linear"),
             "rank": SVMRank(max_iter=200_000)}[which]
    try:
        model.fit(X, y)
    except ValueError as exc:
        assert str(exc)
        return
    predicted = model.predict(X)
    assert set(np.unique(predicted)) <= {-1, 0, 1}
    assert np.all(np.isfinite(model.decision_function(X)))
    assert np.all(np.isfinite(model.rank(X[:, 0])))


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


def test_numbers_numpy_cannot_take_are_read_as_numbers():
    # C = 10**20 (allowed: at most 1e100), a Fraction, or gamma = 10**400 raised
    # numpy's "ufunc 'isfinite' not supported" naming no parameter; a float32 C
    # warned of an overflow in a cast.
    import warnings
    from fractions import Fraction

    from svmcompare.datasets import make_norm_pairs

    X, y = make_norm_pairs(60, "l1", random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for params in ({"C": 10**20}, {"C": Fraction(3, 2)}, {"C": np.float32(1.0)},
                       {"gamma": Fraction(1, 2)}):
            SVMCompare(**params).fit(X, y)
    for name in ("C", "gamma"):
        with pytest.raises(ValueError, match=f"{name} must be (a )?positive"):
            SVMCompare(**{name: 10**400}).fit(X, y)


def test_labels_re_encoded_by_cross_val_predict_are_explained():
    """cross_val_predict(method='predict_proba') passes y encoded as 0, 1, 2;
    the refusal says so (a new user's scikit-learn habit)."""
    from sklearn.model_selection import cross_val_predict

    X, y = make_norm_pairs(90, "l1", random_state=0)
    with pytest.raises(ValueError, match="If they come from scikit-learn's cross_val_predict"):
        cross_val_predict(SVMCompare(kernel="linear", probability=True), X, y, cv=3,
                          method="predict_proba")
    assert cross_val_predict(SVMCompare(kernel="linear"), X, y, cv=3).shape == y.shape
