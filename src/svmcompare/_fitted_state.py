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
  threshold is finite and consistently shaped otherwise;
- every object the file built holds data only under names its class does
  not define (an attribute ``predict = None`` or ``_has_probabilities =
  None`` would hide the method), a dataclass part exactly its fields, and
  every kernel (the model's, its ranking function's, a Nystroem map's) is
  one a fit makes: a known name with that name's solver code (scoring
  follows the code), no function, finite parameters;
- a bootstrap maps each replicate onto the point model's scale by a finite
  scale >= 0 and offset, as its fit does.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import numbers

import numpy as np

from .predictor import BadPredictorError, check_state, predictor_state

LABELS = np.array([-1, 0, 1])


def check_fitted_model(model, path, version):
    """Refuse ``model`` (read from ``path``) unless every estimator in it is a
    consistent fitted model; a ``ValueError`` naming the part at fault."""
    def fail(why):
        raise BadPredictorError(f"{path}: the model's {why}.")

    try:
        _check_objects(model, fail)  # first: the checks below call the model's methods
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


def _check_objects(model, fail):
    """Every object built from the file (the model, its parts, their parts):
    :func:`_check_attributes`, and :func:`_check_kernel` for each kernel."""
    from ._trusted import OBJECT_TYPES
    from .kernels import KernelSpec

    seen = set()
    stack = [(model, "")]  # each with where it sits: "", "ranking_.kernel", ...
    while stack:
        value, where = stack.pop()
        if id(value) in seen:
            continue
        if isinstance(value, list | tuple):
            seen.add(id(value))
            stack.extend((part, f"{where}[{k}]") for k, part in enumerate(value))
        elif isinstance(value, dict):
            seen.add(id(value))
            stack.extend((part, f"{where}[{str(key)[:40]!r}]") for key, part in value.items())
        elif f"{type(value).__module__}.{type(value).__qualname__}" in OBJECT_TYPES:
            seen.add(id(value))
            _check_attributes(value, where, fail)
            if type(value) is KernelSpec:
                _check_kernel(value, where, fail)
            stack.extend((part, f"{where}.{name}" if where else name)
                         for name, part in vars(value).items())


def _check_attributes(value, where, fail):
    """An object's attributes (its ``__dict__``) are data under names its
    class does not define: an instance attribute would hide the class's
    method or class attribute of that name (``predict = None``: predict
    fails with a TypeError, long after loading).  A dataclass part holds
    exactly its fields (a field with a default is a class attribute too)."""
    cls = type(value)
    label = f"{cls.__name__} at {where}" if where else cls.__name__
    names = set(vars(value))
    fields = set()
    if dataclasses.is_dataclass(cls):
        fields = {field.name for field in dataclasses.fields(cls)}
        if names != fields:
            odd = sorted(names ^ fields)[:4]
            fail(f"{label} has attributes {sorted(names)[:8]}, not its fields "
                 f"{sorted(fields)} (differing: {', '.join(n[:40] for n in odd)})")
    for name in sorted(names - fields):
        try:
            defined = inspect.getattr_static(cls, name)
        except AttributeError:
            continue
        what = "property" if isinstance(defined, property) else "method" if callable(defined) \
            or isinstance(defined, classmethod | staticmethod) else "class attribute"
        fail(f"{label} has an attribute {name[:60]!r} that would hide its "
             f"class's {what} of that name")


def _real(value):
    """Whether ``value`` is a finite real number (not a bool)."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)
    except (OverflowError, TypeError, ValueError):
        return False


def _check_kernel(kernel, where, fail):
    """A kernel as :func:`svmcompare.kernels.resolve_kernel` makes it: a known
    name, that name's solver code (``block`` follows the code), no function
    (a file holds none), finite parameters, gamma > 0 where the kernel uses
    it, an integer degree (>= 1 for poly)."""
    from .kernels import KERNEL_CODES, LINEAR, POLY

    name, code = kernel.name, kernel.code
    if not isinstance(name, str) or name not in KERNEL_CODES:
        fail(f"kernel at {where} is {str(name)[:40]!r}, not one of "
             f"{', '.join(sorted(KERNEL_CODES))}")
    if type(code) is not int or code != KERNEL_CODES[name]:
        fail(f"kernel at {where} has code {repr(code)[:20]}, not {name}'s code "
             f"{KERNEL_CODES[name]}")
    if kernel.func is not None:
        fail(f"kernel at {where} has a func ({type(kernel.func).__name__}); a model file's "
             "kernels are named ones")
    for field in ("gamma", "coef0"):
        if not _real(getattr(kernel, field)):
            fail(f"kernel at {where} has {field} {str(getattr(kernel, field))[:40]}, not a "
                 "finite number")
    if code != LINEAR and kernel.gamma <= 0:
        fail(f"kernel at {where} has gamma {kernel.gamma}, not positive")
    if type(kernel.degree) is not int or (code == POLY and kernel.degree < 1):
        fail(f"kernel at {where} has degree {str(kernel.degree)[:40]}, not an integer"
             f"{' >= 1' if code == POLY else ''}")


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
    _check_parameters(estimator, fail)
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
    else:  # what the scoring part cannot describe: checked here as check_state would
        _check_ranking(ranking, fail)
        if _finite(_float(estimator.threshold_, "threshold", fail), "threshold", fail) < 0:
            fail(f"threshold_ {estimator.threshold_} is negative (eq. 6: a fit's is >= 0)")
    if hasattr(estimator, "calibrator_"):  # its outcomes, which check_state does not read
        _check_link(estimator, fail)


def _check_parameters(estimator, fail):
    """Parameters that fit would refuse (C = inf, gamma = NaN, a text C) or
    that disagree with the fitted kernel: a file edited, not written so (an
    attack, stop 70: each loaded, and failed on the first refit)."""
    fault = parameter_fault(estimator)
    if fault is not None:
        fail(f"{fault}: the file was edited or damaged")


def parameter_fault(estimator):
    """What is wrong with a fitted kernel comparison estimator's parameters
    (ones its fit would refuse, or a kernel parameter that is not its fitted
    kernel: set after the fit, or edited in a file), or None."""
    from ._parameters import check_parameters

    if not hasattr(estimator, "kernel") or not hasattr(estimator, "gamma"):
        return None  # not a kernel comparison estimator: its fit checks its own
    kind = type(estimator).__name__
    try:
        kernel = check_parameters(estimator)
    except (ValueError, TypeError) as exc:
        return f"{kind}'s parameters are not ones it can be fitted with ({str(exc)[:160]})"
    fitted = getattr(estimator, "kernel_", None)
    if fitted is not None and (getattr(fitted, "name", None) != kernel.name
                               or getattr(fitted, "code", None) != kernel.code):
        return (f"{kind}'s kernel parameter ({kernel.name}) is not its fitted kernel's "
                f"({getattr(fitted, 'name', fitted)})")
    return None


def fitted_estimators(model):
    """``model`` and every svmcompare estimator among its fitted attributes."""
    return list(_estimators(model))


def _numbers(value, name, ndim, fail):
    """``value`` as a finite float64 array of ``ndim`` dimensions."""
    if not isinstance(value, np.ndarray) or value.dtype != np.float64 or value.ndim != ndim:
        fail(f"{name} is not a {ndim}-d array of float64 "
             f"({getattr(value, 'shape', type(value).__name__)})")
    return _finite(value, name, fail)


def _check_ranking(ranking, fail):
    """A ranking function scoring cannot write as a scoring part (a Nystroem
    map, a link with no such form): finite arrays whose shapes agree with
    each other and with the scaler's kept features, as check_state's."""
    scaler = ranking.scaler
    keep = scaler.keep
    if not isinstance(keep, np.ndarray) or keep.dtype != bool or keep.ndim != 1:
        fail("scaler keep is not a boolean mask")
    kept = int(keep.sum())
    if kept == 0:
        fail("scaler keeps no feature")
    for name in ("mean", "scale"):
        if _numbers(getattr(scaler, name), f"scaler {name}", 1, fail).shape != (kept,):
            fail(f"scaler {name} has shape {getattr(scaler, name).shape}, not ({kept},)")
    if not np.all(scaler.scale > 0):
        fail("scaler scale has a value <= 0")
    if (ranking.weights is None) == (ranking.items is None):
        fail("ranking function has both or neither of an expansion and weights")
    if ranking.weights is None:
        if ranking.feature_map is not None:
            fail("ranking function has an expansion and a Nystroem map")
        items = _numbers(ranking.items, "items", 2, fail)
        if items.shape[1] != kept:
            fail(f"expansion items have {items.shape[1]} features, not {kept}")
        if _numbers(ranking.coef, "coef", 1, fail).shape != (items.shape[0],):
            fail(f"expansion coef has {ranking.coef.size} values for {items.shape[0]} items")
    else:
        if ranking.coef is not None:
            fail("ranking function has weights and expansion coefficients")
        width = kept if ranking.feature_map is None else \
            _check_feature_map(ranking.feature_map, ranking.kernel, kept, fail)
        if _numbers(ranking.weights, "weights", 1, fail).shape != (width,):
            fail(f"weights have {ranking.weights.size} values, not one per feature of its "
                 f"{'scaler' if ranking.feature_map is None else 'Nystroem map'} ({width})")
    if ranking.context_coef is not None:
        _numbers(ranking.context_coef, "context_coef", 1, fail)


def _check_feature_map(feature_map, kernel, kept, fail):
    """A Nystroem map of the model's own kernel, ``landmarks_`` (m, kept) and
    ``projection_`` (m, k); returns k, the features it makes."""
    from .kernels import KernelSpec, NystroemMap

    if type(feature_map) is not NystroemMap:
        fail(f"feature map is a {type(feature_map).__name__}, not a Nystroem map")
    own = feature_map.kernel
    if type(own) is not KernelSpec or type(kernel) is not KernelSpec:
        fail("Nystroem map's or ranking function's kernel is not a kernel")
    if own != kernel:  # the fit builds the map with the model's kernel
        fail(f"Nystroem map's kernel ({own.name}, gamma {own.gamma:g}) is not the model's "
             f"({kernel.name}, gamma {kernel.gamma:g})")
    landmarks = _numbers(feature_map.landmarks_, "Nystroem landmarks", 2, fail)
    projection = _numbers(feature_map.projection_, "Nystroem projection", 2, fail)
    if landmarks.shape[0] == 0 or landmarks.shape[1] != kept:
        fail(f"Nystroem landmarks have shape {landmarks.shape}, not (landmarks, {kept} "
             "features)")
    if projection.shape[0] != landmarks.shape[0]:
        fail(f"Nystroem projection has {projection.shape[0]} rows, not one per landmark "
             f"({landmarks.shape[0]})")
    return projection.shape[1]


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
        value = getattr(estimator, name, None)
        if not isinstance(value, np.ndarray) or value.dtype != np.float64 \
                or value.shape != (len(replicates),) or not np.all(np.isfinite(value)):
            fail(f"bootstrap {name} is not one finite number per replicate")
    if np.any(estimator.scales_ < 0):  # alignment(): >= 0, a reversed replicate maps to 0
        fail(f"bootstrap scales_ has a negative value ({estimator.scales_.min():g}); a fit's "
             "are >= 0")
    _check_proba_coverage(estimator, fail)


def _check_proba_coverage(estimator, fail):
    """The calibrated bootstrap's method, levels and coverage: a method it
    knows; for probabilities and for scores, levels and coverage both
    absent (percentile intervals, no probabilities, or scores of the
    hinge), or the levels a fit measures with coverage in [0, 1] that never
    falls."""
    from .bootstrap import PROBA_INTERVALS, PROBA_LEVELS

    if not (isinstance(estimator.proba_interval, str)
            and estimator.proba_interval in PROBA_INTERVALS):
        fail(f"bootstrap proba_interval is {estimator.proba_interval!r}, not one of "
             f"{PROBA_INTERVALS}")
    for what in ("proba", "score"):
        levels = getattr(estimator, f"{what}_levels_", None)
        coverage = getattr(estimator, f"{what}_coverage_", None)
        if levels is None and coverage is None:
            continue
        for name, value in ((f"{what}_levels_", levels), (f"{what}_coverage_", coverage)):
            if not isinstance(value, np.ndarray) or value.dtype != np.float64 \
                    or value.ndim != 1 or value.size < 2 or not np.all(np.isfinite(value)):
                fail(f"bootstrap {name} is not an array of at least two finite numbers")
        if levels.shape != coverage.shape:
            fail(f"bootstrap {what}_levels_ and {what}_coverage_ differ in length")
        if not np.array_equal(levels, PROBA_LEVELS):
            fail(f"bootstrap {what}_levels_ are not the levels a fit measures")
        if np.any(np.diff(coverage) < 0) or coverage[0] < 0 or coverage[-1] > 1:
            fail(f"bootstrap {what}_coverage_ is not a non-decreasing share in [0, 1]")


def _check_link(estimator, fail):
    """Any probability link (the scoring part covers only those it can
    write): finite, positive scales, outcomes -1, 0, 1."""
    link = estimator.calibrator_
    for name in ("scale_", "limit_"):
        value = _float(getattr(link, name), f"probability link's {name}", fail)
        if not (np.isfinite(value) and value > 0):
            fail(f"probability link's {name} is {value}")
    score_scale = _float(estimator.score_scale_, "score_scale_", fail)
    if not (np.isfinite(score_scale) and score_scale > 0):
        fail(f"score_scale_ is {score_scale}")
    prior = _finite(estimator.class_prior_, "class_prior_", fail)
    if prior.shape != (3,) or np.any(prior < 0) or not np.isclose(prior.sum(), 1.0):
        fail("class_prior_ is not a probability vector of three outcomes")
    inner = getattr(link, "link_", None)
    if inner is not None:  # a ScoreCalibrator's ordered logit
        classes = np.asarray(inner.classes_)
        cuts = _finite(inner.thresholds_, "link thresholds", fail)
        coef = _finite(inner.coef_, "link coefficients", fail)
        # The score's weight, then the context's: (1 + q,), the score's >= 0
        # (the fit refits with w = 0 rather than keep a reversed one).
        context = estimator.ranking_.context_coef
        width = 1 + (0 if context is None else np.asarray(context).size)
        if coef is None or coef.shape != (width,) or coef[0] < 0:
            fail(f"probability link's coefficients are not one for the score and one per "
                 f"context column ({width}), the score's >= 0 (a negative one reverses every "
                 "probability)")
        if classes.ndim != 1 or classes.size < 2 or not np.all(np.isin(classes, LABELS)) \
                or np.any(np.diff(classes) <= 0) or cuts.shape != (classes.size - 1,) \
                or np.any(np.diff(cuts) < 0):
            fail("probability link's outcomes or cut points are inconsistent")
    else:
        for name in ("coef_", "band_coef_", "feature_min_", "feature_max_", "feature_mean_",
                     "feature_scale_"):
            _finite(getattr(link, name), f"probability link's {name}", fail)
        _finite(_float(link.band_intercept_, "probability link's band_intercept_", fail),
                "probability link's band_intercept_", fail)


def _check_ordinal(estimator, fail):
    classes = np.asarray(estimator.classes_)
    cuts = _finite(estimator.thresholds_, "thresholds_", fail)
    if classes.ndim != 1 or classes.size < 2 or cuts.shape != (classes.size - 1,) \
            or np.any(np.diff(cuts) < 0):
        fail("thresholds_ do not fit its classes_")
    # Grades each once (repeated ones predicted one grade for everything), in
    # any order: an ordered Categorical keeps its declared order (places 4, 3,
    # 2, 1 with 1 the best), numbers sorted otherwise.
    try:
        distinct = len(set(classes.tolist())) == classes.size
    except TypeError:  # unhashable
        distinct = False
    if not distinct or (classes.dtype.kind == "f" and not np.all(np.isfinite(classes))):
        fail("classes_ are not distinct grades")


def _float(value, name, fail):
    """``value`` as a float64, or a failure naming it (an integer past float's range)."""
    try:
        return np.float64(value)
    except (OverflowError, TypeError, ValueError):
        fail(f"{name} is {str(value)[:40]}, not a finite number")


def _finite(value, name, fail):
    if value is None:
        return None
    if not isinstance(value, np.ndarray | np.floating | float | int):
        fail(f"{name} is a {type(value).__name__}, not numbers")
    array = np.asarray(value)
    if array.dtype.kind not in "biuf" or not np.all(np.isfinite(array)):
        fail(f"{name} holds NaN, infinity or no numbers")
    return array
