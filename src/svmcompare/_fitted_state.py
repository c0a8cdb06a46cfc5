"""Checks of a fitted estimator read from a model file, before anyone uses it.

The allow-list (:mod:`svmcompare._trusted`) guarantees that a file builds
only data; this module guarantees that the data is a consistent fitted
model, so that a crafted or damaged file is refused at load instead of
predicting NaN, all ties, or crashing later with an IndexError:

- every svmcompare estimator the model holds (a search's refit, a graded
  model's pair model) is fitted and checked;
- a pair model's parts are the ones scoring uses: ``scaler_`` and
  ``kernel_`` are its ranking function's own (the fit sets them so),
  ``n_features_in_`` and ``classes_`` agree with them;
- the scoring state passes :func:`svmcompare.predictor.check_state` when it
  has that form, and any probability link, Nystroem map or ordinal
  threshold is finite and consistently shaped otherwise.
"""

from __future__ import annotations

import inspect

import numpy as np

from .predictor import BadPredictorError, check_state, predictor_state

LABELS = np.array([-1, 0, 1])


def check_fitted_model(model, path, version):
    """Refuse ``model`` (read from ``path``) unless every estimator in it is a
    consistent fitted model; a ``ValueError`` naming the part at fault."""
    def fail(why):
        raise BadPredictorError(f"{path}: the model's {why}.")

    try:
        for estimator in _estimators(model):
            _check_one(estimator, version, path, fail)
    except BadPredictorError:
        raise
    except Exception as exc:  # attributes of the wrong type or missing
        raise ValueError(f"{path} is damaged: its model's fitted state is incomplete "
                         f"({type(exc).__name__}: {str(exc)[:160]}).") from None


def is_own_estimator(value):
    """Whether ``value`` is an estimator svmcompare defines."""
    from sklearn.base import BaseEstimator

    return isinstance(value, BaseEstimator) and type(value).__module__.startswith("svmcompare.")


def _estimators(model):
    """``model`` and the svmcompare estimators among its fitted attributes
    (one estimator, or a list of them: a bootstrap's replicates)."""
    yield model
    for name, value in vars(model).items():
        if not name.endswith("_"):
            continue
        for part in (value if isinstance(value, list) else [value]):
            if is_own_estimator(part):
                yield from _estimators(part)


def _check_one(estimator, version, path, fail):
    kind = type(estimator).__name__
    # A file written before a parameter existed cannot say its value.
    parameters = inspect.signature(type(estimator).__init__).parameters
    missing = [name for name, p in parameters.items()
               if name != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
               and name not in vars(estimator)]
    if missing:
        fail(f"{kind} lacks the parameter(s) {', '.join(missing)}: the file was written by "
             "an earlier svmcompare; refit the model")
    if kind == "SVMCompareCV":
        if not is_own_estimator(getattr(estimator, "best_estimator_", None)):
            fail("search has no refitted best_estimator_ (not fitted)")
        return
    if kind == "BootstrapCompare":
        _check_bootstrap(estimator, fail)
        return
    if kind in ("GroupRankSVM", "OrdinalSVM"):
        if not is_own_estimator(getattr(estimator, "pair_model_", None)):
            fail(f"{kind} has no pair_model_ (not fitted)")
        if estimator.n_features_in_ != estimator.pair_model_.n_features_in_:
            fail("n_features_in_ differs from its pair model's")
        if kind == "OrdinalSVM":
            _check_ordinal(estimator, fail)
        return
    ranking = getattr(estimator, "ranking_", None)
    if ranking is None or not hasattr(estimator, "threshold_"):
        fail(f"{kind} has no ranking function (not fitted)")
    if estimator.scaler_ is not ranking.scaler or estimator.kernel_ is not ranking.kernel:
        fail("scaler_ or kernel_ is not its ranking function's own")
    if estimator.n_features_in_ != ranking.scaler.keep.size:
        fail(f"n_features_in_ ({estimator.n_features_in_}) differs from its scaler's "
             f"({ranking.scaler.keep.size})")
    if not np.array_equal(np.asarray(estimator.classes_), LABELS):
        fail("classes_ are not -1, 0, 1")
    state = predictor_state(estimator, version)
    if state is not None:  # the ranking function, threshold and a symmetric link
        check_state(*state, f"{path}: the model")
    else:  # what the scoring part cannot describe: only finite numbers here
        _finite(ranking.scaler.mean, "scaler mean", fail)
        _finite(ranking.scaler.scale, "scaler scale", fail)
        for name in ("weights", "items", "coef", "context_coef"):
            _finite(getattr(ranking, name), name, fail)
        if ranking.feature_map is not None:
            _finite(ranking.feature_map.landmarks_, "Nystroem landmarks", fail)
            _finite(ranking.feature_map.projection_, "Nystroem projection", fail)
        _finite(np.float64(estimator.threshold_), "threshold", fail)
    if hasattr(estimator, "calibrator_"):  # its outcomes, which check_state does not read
        _check_link(estimator, fail)


def _check_bootstrap(estimator, fail):
    """A bootstrap's point model and replicates: fitted estimators of one
    kind, as many replicates as resamples (each is checked on its own)."""
    point = getattr(estimator, "estimator_", None)
    replicates = getattr(estimator, "replicates_", None)
    if not is_own_estimator(point) or not isinstance(replicates, list) or len(replicates) < 2:
        fail("bootstrap has no fitted estimator_ and replicates_ (not fitted)")
    refit = point.best_estimator_ if type(point).__name__ == "SVMCompareCV" else point
    if any(type(model) is not type(refit) for model in replicates):
        fail("bootstrap replicates are not all of the point model's kind")
    if any(model.n_features_in_ != point.n_features_in_ for model in replicates):
        fail("bootstrap replicates differ from the point model in their features")
    for name in ("scales_", "offsets_"):  # the map of each replicate onto the point's scale
        value = np.asarray(getattr(estimator, name, None), dtype=object)
        if value.shape != (len(replicates),) or not np.all(np.isfinite(value.astype(float))):
            fail(f"bootstrap {name} is not one finite number per replicate")


def _check_link(estimator, fail):
    """Any probability link (the scoring part covers only those it can
    write): finite, positive scales, outcomes -1, 0, 1."""
    link = estimator.calibrator_
    for name in ("scale_", "limit_"):
        value = np.float64(getattr(link, name))
        if not (np.isfinite(value) and value > 0):
            fail(f"probability link's {name} is {value}")
    score_scale = np.float64(estimator.score_scale_)
    if not (np.isfinite(score_scale) and score_scale > 0):
        fail(f"score_scale_ is {score_scale}")
    prior = _finite(estimator.class_prior_, "class_prior_", fail)
    if prior.shape != (3,) or np.any(prior < 0) or not np.isclose(prior.sum(), 1.0):
        fail("class_prior_ is not a probability vector of three outcomes")
    inner = getattr(link, "link_", None)
    if inner is not None:  # a ScoreCalibrator's ordered logit
        classes = np.asarray(inner.classes_)
        cuts = _finite(inner.thresholds_, "link thresholds", fail)
        _finite(inner.coef_, "link coefficients", fail)
        if classes.ndim != 1 or classes.size < 2 or not np.all(np.isin(classes, LABELS)) \
                or np.any(np.diff(classes) <= 0) or cuts.shape != (classes.size - 1,) \
                or np.any(np.diff(cuts) < 0):
            fail("probability link's outcomes or cut points are inconsistent")
    else:
        for name in ("coef_", "band_coef_", "feature_min_", "feature_max_", "feature_mean_",
                     "feature_scale_"):
            _finite(getattr(link, name), f"probability link's {name}", fail)
        _finite(np.float64(link.band_intercept_), "probability link's band_intercept_", fail)


def _check_ordinal(estimator, fail):
    classes = np.asarray(estimator.classes_)
    cuts = _finite(estimator.thresholds_, "thresholds_", fail)
    if classes.ndim != 1 or classes.size < 2 or cuts.shape != (classes.size - 1,) \
            or np.any(np.diff(cuts) < 0):
        fail("thresholds_ do not fit its classes_")


def _finite(value, name, fail):
    if value is None:
        return None
    if not isinstance(value, np.ndarray | np.floating | float | int):
        fail(f"{name} is a {type(value).__name__}, not numbers")
    array = np.asarray(value)
    if array.dtype.kind not in "biuf" or not np.all(np.isfinite(array)):
        fail(f"{name} holds NaN, infinity or no numbers")
    return array
