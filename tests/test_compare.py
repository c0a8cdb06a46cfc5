"""SVMCompare: agreement with an SVC reference, eq. (19), invariances, failures."""

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import FitFailedWarning
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.svm import SVC

from svmcompare import NoRankingError, SVMCompare, make_pairs
from svmcompare.datasets import make_norm_pairs

from .reference.dense import flipped_from_definition, rbf


def _standardize(X):
    items = X.reshape(-1, X.shape[2])
    mean, sd = items.mean(0), items.std(0, ddof=1)
    return (X - mean) / sd


PAPER = {"class_weight": None, "on_degenerate": "raise"}  # the paper's problem


def _svc_reference(X, y, C, gamma, Xtest):
    """SVC on the precomputed K~ of the flipped data; ranking function by eq. (19)."""
    Xs = _standardize(X)
    Xt, Xtp, yt = flipped_from_definition(Xs[:, 0], Xs[:, 1], y)
    k = rbf(gamma)
    Kt = k(Xtp, Xtp) - k(Xtp, Xt) - k(Xt, Xtp) + k(Xt, Xt)
    svc = SVC(kernel="precomputed", C=C, tol=1e-3).fit(Kt, yt)
    alpha = np.zeros(len(yt))
    alpha[svc.support_] = np.abs(svc.dual_coef_[0])
    Q = Kt * np.outer(yt, yt)
    objective = 0.5 * alpha @ Q @ alpha - alpha.sum()
    beta = svc.intercept_[0]
    sv = svc.support_
    coef = svc.dual_coef_[0]  # y~_i v_i

    items = X.reshape(-1, X.shape[2])
    mean, sd = items.mean(0), items.std(0, ddof=1)

    def rank(Z):  # eq. (19)
        Zs = (Z - mean) / sd
        return (k(Zs, Xt[sv]) - k(Zs, Xtp[sv])) @ coef / beta

    diff = rank(Xtest[:, 1]) - rank(Xtest[:, 0])
    pred = np.where(diff > 1, 1, np.where(diff < -1, -1, 0))
    return objective, beta, pred


def test_matches_svc_on_precomputed_ktilde_at_paper_size():
    """The issue's acceptance check: n = 800 training pairs, half equality."""
    X, y = make_norm_pairs(800, "l1", random_state=10)
    Xtest, ytest = make_norm_pairs(2000, "l1", random_state=11)
    model = SVMCompare(C=1.0, gamma=1.0, class_weight=None).fit(X, y)  # SVC: no weights
    objective, beta, ref_pred = _svc_reference(X, y, 1.0, 1.0, Xtest)
    assert model.dual_objective_ == pytest.approx(objective, rel=1e-4)
    assert model.intercept_ == pytest.approx(beta, rel=5e-3)
    agreement = np.mean(model.predict(Xtest) == ref_pred)
    assert agreement >= 0.995


@pytest.mark.parametrize("C, gamma", [(0.1, 0.25), (10.0, 2.0), (1000.0, 1.0)])
@pytest.mark.parametrize("shrinking", [True, False])
def test_matches_svc_other_hyperparameters(C, gamma, shrinking):
    X, y = make_norm_pairs(200, "linf", random_state=3)
    Xtest, _ = make_norm_pairs(500, "linf", random_state=4)
    model = SVMCompare(C=C, gamma=gamma, shrinking=shrinking, class_weight=None).fit(X, y)
    objective, _, ref_pred = _svc_reference(X, y, C, gamma, Xtest)
    assert model.dual_objective_ == pytest.approx(objective, rel=1e-4)
    assert np.mean(model.predict(Xtest) == ref_pred) >= 0.99


def test_rank_is_eq19_from_fitted_attributes(norm_data):
    (X, y), (Xtest, _) = norm_data
    model = SVMCompare(C=3.0, gamma=0.5).fit(X, y)
    Xs = _standardize(X)
    Xt, Xtp, _ = flipped_from_definition(Xs[:, 0], Xs[:, 1], y)
    sv = model.support_
    items = X.reshape(-1, 2)
    Zs = (Xtest[:, 0] - items.mean(0)) / items.std(0, ddof=1)
    k = rbf(0.5)
    expected = (k(Zs, Xt[sv]) - k(Zs, Xtp[sv])) @ model.dual_coef_ / model.intercept_
    np.testing.assert_allclose(model.rank(Xtest[:, 0]), expected, rtol=1e-9, atol=1e-9)
    assert model.intercept_ < 0
    assert model.margin_ == pytest.approx(-1 / model.intercept_)
    assert model.n_support_.sum() == len(sv)


def test_predict_is_threshold_one_of_rank_difference(norm_data):
    (X, y), (Xtest, _) = norm_data
    model = SVMCompare(C=1.0, gamma=1.0).fit(X, y)
    diff = model.rank(Xtest[:, 1]) - model.rank(Xtest[:, 0])
    np.testing.assert_allclose(model.decision_function(Xtest), diff, atol=1e-10)
    expected = np.where(diff > 1, 1, np.where(diff < -1, -1, 0))
    np.testing.assert_array_equal(model.predict(Xtest), expected)
    assert model.score(Xtest, expected) == 1.0


def test_swapping_items_negates_decision_and_prediction(norm_data):
    (X, y), (Xtest, _) = norm_data
    model = SVMCompare(C=1.0, gamma=1.0).fit(X, y)
    swapped = Xtest[:, ::-1]
    np.testing.assert_allclose(model.decision_function(swapped), -model.decision_function(Xtest),
                               atol=1e-10)
    np.testing.assert_array_equal(model.predict(swapped), -model.predict(Xtest))


def test_shuffling_training_pairs_does_not_change_predictions(norm_data):
    (X, y), (Xtest, _) = norm_data
    order = np.random.default_rng(0).permutation(len(y))
    a = SVMCompare(C=1.0, gamma=1.0, tol=1e-6).fit(X, y)
    b = SVMCompare(C=1.0, gamma=1.0, tol=1e-6).fit(X[order], y[order])
    assert b.dual_objective_ == pytest.approx(a.dual_objective_, rel=1e-6)
    np.testing.assert_allclose(b.decision_function(Xtest), a.decision_function(Xtest), atol=1e-3)
    assert np.mean(a.predict(Xtest) == b.predict(Xtest)) >= 0.99


def test_reoriented_training_pairs_give_the_same_model(norm_data):
    """Swapping x and x' of a training pair while negating its label changes nothing."""
    (X, y), (Xtest, _) = norm_data
    flip = np.random.default_rng(1).random(len(y)) < 0.5
    X2 = X.copy()
    X2[flip] = X[flip][:, ::-1]
    y2 = np.where(flip, -y, y)
    a = SVMCompare(C=1.0, gamma=1.0, tol=1e-6).fit(X, y)
    b = SVMCompare(C=1.0, gamma=1.0, tol=1e-6).fit(X2, y2)
    assert b.dual_objective_ == pytest.approx(a.dual_objective_, rel=1e-6)
    np.testing.assert_allclose(b.rank(Xtest[:, 0]), a.rank(Xtest[:, 0]), atol=1e-3)


def test_label_dtype_does_not_matter(norm_data):
    (X, y), (Xtest, _) = norm_data
    a = SVMCompare().fit(X, y)
    b = SVMCompare().fit(X, y.astype(float))
    np.testing.assert_array_equal(a.predict(Xtest), b.predict(Xtest))


def test_beta_nonnegative_raises_and_balanced_weights_cure_it():
    """Noisy data with 10% equality pairs: the paper's problem has no ranking."""
    X, y = make_norm_pairs(300, "l2", equality_fraction=0.1, noise=1.0, random_state=0)
    with pytest.raises(NoRankingError, match="class_weight='balanced'"):
        SVMCompare(C=1.0, gamma=1.0, **PAPER).fit(X, y)
    assert issubclass(NoRankingError, ValueError)
    model = SVMCompare(C=1.0, gamma=1.0, class_weight="balanced").fit(X, y)
    assert model.intercept_ < 0
    assert not hasattr(SVMCompare(), "support_")


def test_failed_fit_leaves_no_fitted_state():
    X, y = make_norm_pairs(300, "l2", equality_fraction=0.1, noise=1.0, random_state=0)
    model = SVMCompare(C=1.0, gamma=1.0, **PAPER)
    with pytest.raises(NoRankingError):
        model.fit(X, y)
    assert not hasattr(model, "n_features_in_") and not hasattr(model, "degenerate_")


def test_degenerate_beta_falls_back_to_the_svm_direction_and_an_eq6_threshold():
    # Issue 16: the default fit must work where the paper's problem has beta >= 0.
    from svmcompare._threshold import fit_threshold

    X, y = make_norm_pairs(300, "l2", equality_fraction=0.1, noise=1.0, random_state=0)
    with pytest.warns(UserWarning, match="The model is usable: .* tie threshold of its comparison"):
        model = SVMCompare(C=1.0, gamma=1.0, class_weight=None).fit(X, y)
    assert model.degenerate_ and model.intercept_ >= 0 and np.isnan(model.margin_)
    diff = model.decision_function(X)
    # (The fit reads its training d off the solver's gradient: equal to rounding.)
    assert model.threshold_ == pytest.approx(fit_threshold(diff, y), rel=1e-12)
    assert model.threshold_ > 0
    # r is the SVM's own u^T Phi (scale 1): a tighter solve gives the same scores.
    tight = SVMCompare(C=1.0, gamma=1.0, class_weight=None, tol=1e-7)
    with pytest.warns(UserWarning):
        tight.fit(X, y)
    np.testing.assert_allclose(tight.decision_function(X), diff, atol=1e-2 * np.ptp(diff))
    # c_tau with the fallback threshold, and better than calling every pair different.
    expected = np.sign(diff) * (np.abs(diff) > model.threshold_)
    np.testing.assert_array_equal(model.predict(X), expected)
    # The defaults (balanced) fit without any warning here.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not SVMCompare(C=1.0, gamma=1.0).fit(X, y).degenerate_


@pytest.mark.parametrize("labels, match", [
    (np.ones(20), "no equality pairs.*SVMRank"),
    (-np.ones(20), "no equality pairs.*SVMRank"),
    (np.zeros(20), "only equality pairs"),
])
def test_label_sets_that_cannot_train(labels, match):
    X = np.random.default_rng(0).normal(size=(20, 2, 2))
    with pytest.raises(ValueError, match=match):
        SVMCompare().fit(X, labels)


def test_constant_features_are_dropped():
    X, y = make_norm_pairs(100, "l1", random_state=2)
    Xc = np.concatenate([X, np.full((100, 2, 1), 7.0)], axis=2)
    a = SVMCompare().fit(X, y)
    b = SVMCompare().fit(Xc, y)
    assert b.n_features_in_ == 3
    np.testing.assert_allclose(b.decision_function(Xc), a.decision_function(X), atol=1e-8)


def test_sklearn_clone_gridsearch_and_cross_val_score(norm_data):
    (X, y), _ = norm_data
    model = SVMCompare(C=2.0, gamma=0.5, class_weight="balanced")
    copy = clone(model)
    assert copy.get_params() == model.get_params()
    scores = cross_val_score(SVMCompare(), X, y, cv=3)
    assert scores.shape == (3,) and np.all((scores > 0.3) & (scores <= 1))
    search = GridSearchCV(SVMCompare(), {"C": [0.1, 1.0, 10.0], "gamma": [0.5, 2.0]}, cv=3)
    search.fit(X, y)
    assert search.best_params_["C"] in (0.1, 1.0, 10.0)
    assert search.best_estimator_.predict(X).shape == y.shape


def test_gridsearch_records_failed_grid_points_and_moves_on():
    X, y = make_norm_pairs(240, "l2", equality_fraction=0.1, noise=1.0, random_state=0)
    grid = {"class_weight": [None, "balanced"]}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        search = GridSearchCV(SVMCompare(on_degenerate="raise"), grid, cv=3).fit(X, y)
    assert any(issubclass(w.category, FitFailedWarning) for w in caught)
    scores = search.cv_results_["mean_test_score"]
    assert np.isnan(scores[0]) and np.isfinite(scores[1])
    assert search.best_params_ == {"class_weight": "balanced"}


def test_make_pairs_roundtrip():
    Xi = np.arange(6.0).reshape(3, 2)
    Xip = Xi + 10
    X = make_pairs(Xi, Xip)
    assert X.shape == (3, 2, 2)
    np.testing.assert_array_equal(X[:, 0], Xi)
    np.testing.assert_array_equal(X[:, 1], Xip)


def test_degenerate_warnings_point_at_the_callers_line_from_every_entry():
    # The warning names the first frame outside svmcompare however deep the
    # fit that warns: SVMCompare, SVMCompareLP and a search's refit.
    from svmcompare import SVMCompareCV, SVMCompareLP
    from svmcompare.exceptions import DegenerateWarning

    X, y = make_norm_pairs(120, "l2", equality_fraction=0.1, noise=1.0, random_state=0)
    entries = [lambda: SVMCompare(class_weight=None).fit(X, y),
               lambda: SVMCompareLP(class_weight=None, C=10.0).fit(X, y),
               lambda: SVMCompareCV(param_grid={"C": [1.0], "class_weight": [None]},
                                    cv=3).fit(X, y)]
    for fit in entries:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fit()
        degenerate = [w for w in caught if issubclass(w.category, DegenerateWarning)]
        assert degenerate, fit
        assert all(w.filename == __file__ for w in degenerate), [w.filename for w in degenerate]


def test_a_refit_keeps_no_attribute_of_the_fit_before():
    # A linear refit after an exact fit kept dual_objective_; a refit without
    # probabilities kept calibrator_, which set_params(probability=True) then used.
    from svmcompare.datasets import make_norm_pairs

    X, y = make_norm_pairs(80, "l1", equality_fraction=0.3, random_state=0)
    model = SVMCompare(kernel="linear", solver="exact", probability=True, C=0.1).fit(X, y)
    assert hasattr(model, "dual_objective_") and hasattr(model, "calibrator_")
    model.set_params(solver="linear", probability=False).fit(X, y)
    assert not hasattr(model, "dual_objective_") and not hasattr(model, "calibrator_")
    model.set_params(probability=True)
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        model.predict_proba(X[:2])  # no link of an earlier fit


def test_a_refused_refit_leaves_the_fit_before_whole():
    # The refit's attributes were cleared before it could be refused: a
    # model with its old ranking and no probability link.
    from svmcompare import NoRankingError
    from svmcompare.datasets import make_norm_pairs

    X0, y0 = make_norm_pairs(300, "l2", random_state=1)
    X, y = make_norm_pairs(300, "l2", equality_fraction=0.1, noise=1.0, random_state=0)
    model = SVMCompare(C=1.0, gamma=1.0, class_weight=None, on_degenerate="raise",
                       probability=True, random_state=0).fit(X0, y0)
    expected = model.predict_proba(X0[:4])
    with pytest.raises(NoRankingError):
        model.fit(X, y)
    np.testing.assert_array_equal(model.predict_proba(X0[:4]), expected)


def test_a_degenerate_fits_advice_fits_its_settings():
    """With 'auto' already balanced the warning advised class_weight='balanced',
    spoke of probabilities the fit did not have and never of the squared hinge
    (a review)."""
    import warnings

    import pandas as pd

    from svmcompare import pairs_from_frame
    from svmcompare.exceptions import DegenerateWarning

    rng = np.random.default_rng(0)
    a = rng.integers(0, 5, 1000)
    b = (a + rng.integers(1, 5, 1000)) % 5
    d = (b - a) * 0.3 + rng.logistic(size=1000)
    y = np.where(np.abs(d) < 0.1, 0, np.sign(d)).astype(int)  # ~5% ties
    frame = pd.DataFrame({"a": [f"m{i}" for i in a], "b": [f"m{j}" for j in b], "y": y})
    pairs = pairs_from_frame(frame, a="a", b="b", outcome="y",
                             outcome_map={-1: -1, 0: 0, 1: 1}, sparse=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = SVMCompare(kernel="linear").fit(pairs.X, pairs.y)
    said = [str(w.message) for w in caught if issubclass(w.category, DegenerateWarning)]
    assert model.degenerate_ and said
    assert "class_weight='balanced' (what the default" not in said[0]
    assert "more weight on ties than now" in said[0] and "loss='squared_hinge'" in said[0]
    assert "with probability=True its probabilities are fitted as usual" in said[0]


def test_a_degenerate_fits_advice_offers_only_what_the_model_has_and_lacks():
    """The squared hinge's fit was advised the squared hinge; the LP, which has
    neither, probabilities and the squared hinge (a review)."""
    import warnings

    from svmcompare import SVMCompareLP
    from svmcompare.exceptions import DegenerateWarning

    from .test_bootstrap import id_games

    X, y, _, _ = id_games(players=8, n=400, seed=7)
    dense = X.toarray().reshape(len(y), 2, 8)
    for model in (SVMCompare(kernel="linear", loss="squared_hinge", class_weight=None, C=1.0),
                  SVMCompareLP(kernel="linear", class_weight=None, C=0.1)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model.fit(dense, y)
        said = [str(w.message) for w in caught if issubclass(w.category, DegenerateWarning)]
        assert model.degenerate_ and said, type(model).__name__
        assert "loss='squared_hinge'" not in said[0] and "class_weight='balanced'" in said[0]
        assert ("probability=True" in said[0]) is isinstance(model, SVMCompare)
