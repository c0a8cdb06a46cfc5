"""The scoring part of a model file, readable without scikit-learn or skops.

Importing scikit-learn takes about a second, skops most of another, so a
model file also holds what scoring pairs needs -- the ranking function, the
threshold and the probability link -- as one JSON member and NumPy arrays
(never pickles).  ``svmcompare predict`` reads only that part
(:func:`svmcompare.persistence.load_predictor`); Python's ``load_model``
reads the whole estimator.

Nothing read from a file is used before :func:`check_state` has checked it:
the names are known ones, every number is finite and every array has the
dtype and shape the others imply.  ``load_model`` checks an estimator's own
scoring state the same way, so a file edited to hold NaN weights is refused
by both readers, not scored as all ties by one of them.
"""

from __future__ import annotations

import functools
import math
import numbers

import numpy as np

from ._validation import first_repeated
from .kernels import MAX_DEGREE
from .ranking_function import ComparisonMixin, probabilities, set_ranking

JSON_MEMBER = "svmcompare-predictor.json"
ARRAY_PREFIX = "svmcompare-predictor/"

_META_KEYS = {"version", "estimator", "kernel", "gamma", "degree", "coef0", "threshold",
              "feature_names", "context", "calibrator", "cost"}
# Written since 0.3.1 when the model has them (a context DataFrame's column
# names); files without it load.
_OPTIONAL_META_KEYS = {"context_names"}
_LINK_KEYS = {"link", "band_intercept", "scale", "limit", "score_scale", "tie_band"}
_LINK_ARRAYS = ("link_coef", "band_coef", "feature_min", "feature_max", "feature_mean",
                "feature_scale", "class_prior")
_ESTIMATORS = ("SVMCompare", "SVMCompareLP", "SVMRank", "SVMRank2", "HardMarginLP",
               "HardMarginQP")
_KERNELS = ("linear", "poly", "rbf", "laplacian")


class BadPredictorError(ValueError):
    """A model file's scoring part that is malformed or inconsistent."""


def _calibrator_state(model):
    """(JSON, arrays) of the probability link as a PairTieCalibrator, or None
    for a link that has no exact such form (then the file has no predictor)."""
    from .calibration import PairTieCalibrator, ScoreCalibrator

    link = model.calibrator_
    if isinstance(link, ScoreCalibrator):
        cuts, classes = link.link_.thresholds_, link.link_.classes_
        # The symmetric ordered logit with all three outcomes is the ordered
        # PairTieCalibrator with no tie features: theta = exp(a) = -theta_1 = theta_2.
        if not (link.symmetric and len(classes) == 3 and cuts[1] > 0
                and np.isclose(cuts[0], -cuts[1], rtol=0, atol=1e-12 * abs(cuts[1]))):
            return None
        meta = {"link": "ordered", "band_intercept": float(np.log(cuts[1]))}
        arrays = {"link_coef": link.link_.coef_, "band_coef": np.zeros(0),
                  "feature_min": np.zeros(0), "feature_max": np.zeros(0),
                  "feature_mean": np.zeros(0), "feature_scale": np.zeros(0)}
    elif isinstance(link, PairTieCalibrator):
        meta = {"link": link.link, "band_intercept": link.band_intercept_}
        arrays = {"link_coef": link.coef_, "band_coef": link.band_coef_,
                  "feature_min": link.feature_min_, "feature_max": link.feature_max_,
                  "feature_mean": link.feature_mean_, "feature_scale": link.feature_scale_}
    else:
        return None
    meta.update(scale=link.scale_, limit=link.limit_, score_scale=model.score_scale_,
                tie_band=getattr(model, "tie_band", "constant"))
    arrays["class_prior"] = model.class_prior_
    return meta, arrays


def predictor_state(model, version):
    """(JSON, arrays) of what scoring pairs with ``model`` needs, or None when
    it cannot be written so (a graded-items model, a callable kernel, a
    Nystroem feature map); such files are scored through ``load_model``.
    An ``SVMCompareCV`` scores with its refitted ``best_estimator_``, a
    ``BootstrapCompare`` with its fit on all pairs (``estimator_``)."""
    if type(model).__name__ == "BootstrapCompare":  # the point estimate scores
        model = model.estimator_
    if type(model).__name__ == "SVMCompareCV":
        model = model.best_estimator_
    ranking = getattr(model, "ranking_", None)
    if ranking is None or ranking.kernel.func is not None or ranking.feature_map is not None:
        return None
    names = getattr(model, "feature_names_in_", None)
    context_names = getattr(model, "context_names_in_", None)
    meta = {"version": version, "estimator": type(model).__name__,
            "kernel": ranking.kernel.name, "gamma": ranking.kernel.gamma,
            "degree": ranking.kernel.degree, "coef0": ranking.kernel.coef0,
            "threshold": float(model.threshold_),
            "feature_names": None if names is None else [str(n) for n in names],
            "context": ranking.context_coef is not None, "calibrator": None,
            "cost": None if getattr(model, "cost", None) is None
            else np.asarray(model.cost, dtype=float).tolist()}
    if context_names is not None:
        # Only when there are names: files without them stay readable by 0.3.0.
        meta["context_names"] = [str(n) for n in context_names]
    arrays = {"mean": ranking.scaler.mean, "scale": ranking.scaler.scale,
              "keep": ranking.scaler.keep}
    if ranking.weights is not None:
        arrays["weights"] = ranking.weights
    else:
        arrays["items"], arrays["coef"] = ranking.items, ranking.coef
    if ranking.context_coef is not None:
        arrays["context_coef"] = ranking.context_coef
    if hasattr(model, "calibrator_"):
        link = _calibrator_state(model)
        if link is None:
            return None
        meta["calibrator"] = link[0]
        arrays.update(link[1])
    return meta, arrays


def check_state(meta, arrays, where):
    """Refuse scoring state that is malformed: unknown names, non-finite
    numbers, arrays whose dtype or shape disagrees with the rest.

    Raises
    ------
    BadPredictorError
        Naming ``where`` and the first fault found.
    """
    def fail(why):
        raise BadPredictorError(f"{where}: {why}.")

    if not isinstance(meta, dict) or set(meta) - _OPTIONAL_META_KEYS != _META_KEYS:
        fail("its fields are not those of a scoring part "
             f"({sorted(meta) if isinstance(meta, dict) else type(meta).__name__})")
    if meta["estimator"] not in _ESTIMATORS:
        fail(f"unknown estimator {str(meta['estimator'])[:60]!r}")
    if meta["kernel"] not in _KERNELS:
        fail(f"unknown kernel {str(meta['kernel'])[:60]!r}")
    for name in ("gamma", "coef0", "threshold"):
        _finite_number(meta[name], name, fail)
    if meta["threshold"] < 0:  # eq. (6): a tie is |d| <= tau; a fit's tau is >= 0
        fail(f"threshold {meta['threshold']} is negative (a pair would be both x better and "
             "x' better)")
    if not isinstance(meta["degree"], int) or isinstance(meta["degree"], bool) \
            or not 1 <= meta["degree"] <= MAX_DEGREE:
        fail(f"degree {meta['degree']!r} is not an integer in 1..{MAX_DEGREE}")
    if meta["gamma"] <= 0:
        fail(f"gamma {meta['gamma']} is not positive")
    if not isinstance(meta["context"], bool):
        fail("'context' is not true or false")
    expected = {"mean", "scale", "keep"} | ({"weights"} if "weights" in arrays
                                             else {"items", "coef"})
    expected |= {"context_coef"} if meta["context"] else set()
    expected |= set(_LINK_ARRAYS) if meta["calibrator"] is not None else set()
    if set(arrays) != expected:
        fail(f"arrays {sorted(arrays)} are not {sorted(expected)}")
    keep = _array(arrays, "keep", 1, fail, dtype=bool)
    p, kept = keep.size, int(keep.sum())
    if kept == 0:
        fail("no feature is kept")
    _array(arrays, "mean", (kept,), fail)
    if not np.all(_array(arrays, "scale", (kept,), fail) > 0):
        fail("array 'scale' has a value <= 0")
    if "weights" in arrays:
        _array(arrays, "weights", (kept,), fail)
    else:
        items = _array(arrays, "items", 2, fail)
        if items.shape[1] != kept:
            fail(f"array 'items' has {items.shape[1]} features, not {kept}")
        _array(arrays, "coef", (items.shape[0],), fail)
    n_context = _array(arrays, "context_coef", 1, fail).size if meta["context"] else 0
    names = meta["feature_names"]
    if names is not None and (not isinstance(names, list) or len(names) != p
                              or not all(isinstance(n, str) for n in names)):
        fail(f"feature_names is not a list of {p} strings")
    # Columns are read by name: each once.
    if names is not None and (repeated := first_repeated(names)) is not None:
        fail(f"feature_names repeat a name ({repeated[:60]!r})")
    names = meta.get("context_names")
    if names is not None and (not isinstance(names, list) or len(names) != n_context
                              or not all(isinstance(n, str) for n in names)):
        fail(f"context_names is not a list of {n_context} strings")
    if names is not None and (repeated := first_repeated(names)) is not None:
        fail(f"context_names repeat a name ({repeated[:60]!r})")
    if meta["calibrator"] is not None:
        _check_link(meta["calibrator"], arrays, kept, n_context, fail)
    if meta["cost"] is not None:
        from .ranking_function import check_cost

        try:
            check_cost(meta["cost"])
        except (TypeError, ValueError) as exc:
            fail(f"the cost matrix is malformed ({exc})")


def _check_link(link, arrays, kept, n_context, fail):
    from ._validation import LINKS, TIE_BANDS

    if not isinstance(link, dict) or set(link) != _LINK_KEYS:
        fail("the probability link's fields are not those of a link")
    if link["link"] not in LINKS:
        fail(f"unknown probability link {str(link['link'])[:60]!r}")
    if link["tie_band"] not in TIE_BANDS:
        fail(f"unknown tie band {str(link['tie_band'])[:60]!r}")
    for name in ("band_intercept", "scale", "limit", "score_scale"):
        _finite_number(link[name], name, fail)
        if name != "band_intercept" and link[name] <= 0:
            fail(f"{name} {link[name]} is not positive")
    coef = _array(arrays, "link_coef", (1 + n_context,), fail)
    if coef[0] < 0:
        fail("the link's score coefficient is negative")
    n_tie = 2 * kept if link["tie_band"] == "pair" else 0
    for name in ("band_coef", "feature_min", "feature_max", "feature_mean", "feature_scale"):
        _array(arrays, name, (n_tie,), fail)
    if not np.all(arrays["feature_scale"] > 0):
        fail("array 'feature_scale' has a value <= 0")
    prior = _array(arrays, "class_prior", (3,), fail)
    if np.any(prior < 0) or not np.isclose(prior.sum(), 1.0):
        fail("class_prior is not a probability vector")


def _finite_number(value, name, fail):
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        fail(f"{name} is {str(value)[:40]}, not a finite number")
    try:
        finite = math.isfinite(value)  # an int past float's range overflows here
    except OverflowError:
        finite = False
    if not finite:
        fail(f"{name} is {str(value)[:40]}, not a finite number")


def _array(arrays, name, shape, fail, dtype=np.float64):
    """``arrays[name]`` checked: dtype, rank (an int) or exact shape (a tuple),
    finite values."""
    value = arrays.get(name)
    if not isinstance(value, np.ndarray) or value.dtype != dtype:
        fail(f"array {name!r} is not of type {np.dtype(dtype)}")
    if (value.ndim != shape) if isinstance(shape, int) else (value.shape != shape):
        fail(f"array {name!r} has shape {value.shape}, expected "
             f"{shape if isinstance(shape, tuple) else f'{shape} dimensions'}")
    if dtype == np.float64 and not np.all(np.isfinite(value)):
        fail(f"array {name!r} holds NaN or infinity")
    return value


class Predictor(ComparisonMixin):
    """A model file's pair scorer: ``rank``, ``decision_function``, ``predict``
    (and ``predict_proba`` when the model has probabilities), the same numbers
    as the estimator's, from arrays alone.  Build it from state that passed
    :func:`check_state`."""

    def __init__(self, meta, arrays):
        from ._problem import Standardizer
        from .calibration import PairTieCalibrator
        from .kernels import resolve_kernel

        scaler = Standardizer(mean=arrays["mean"], scale=arrays["scale"], keep=arrays["keep"])
        kernel = resolve_kernel(meta["kernel"], meta["gamma"], meta["degree"], meta["coef0"])
        expansion = None if "weights" in arrays else (arrays["items"], arrays["coef"])
        set_ranking(self, scaler, kernel, "file", expansion=expansion,
                          weights=arrays.get("weights"),
                          context_coef=arrays.get("context_coef") if meta["context"] else None)
        self.estimator_name_ = meta["estimator"]
        self.threshold_ = meta["threshold"]
        self.cost = meta["cost"]
        if meta["feature_names"] is not None:
            self.feature_names_in_ = np.asarray(meta["feature_names"], dtype=object)
        if meta.get("context_names") is not None:
            self.context_names_in_ = np.asarray(meta["context_names"], dtype=object)
        link = meta["calibrator"]
        if link is not None:
            calibrator = PairTieCalibrator(link=link["link"])
            calibrator.coef_, calibrator.band_coef_ = arrays["link_coef"], arrays["band_coef"]
            calibrator.band_intercept_ = link["band_intercept"]
            calibrator.scale_, calibrator.limit_ = link["scale"], link["limit"]
            calibrator.feature_min_, calibrator.feature_max_ = (arrays["feature_min"],
                                                                arrays["feature_max"])
            calibrator.feature_mean_ = arrays["feature_mean"]
            calibrator.feature_scale_ = arrays["feature_scale"]
            self.calibrator_ = calibrator
            self.score_scale_ = link["score_scale"]
            self.class_prior_ = arrays["class_prior"]

    def __getattr__(self, name):
        if name == "predict_proba" and "calibrator_" in vars(self):
            return functools.partial(probabilities, self)
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}.")
