"""Model files: save a fitted estimator, load it back without running foreign code.

Files are written with skops (``skops.io``), which stores objects as data
instead of pickle byte code.  Loading trusts only the types svmcompare
itself defines (plus the NumPy / SciPy / scikit-learn types skops trusts by
default); a file that needs any other type is refused with the list of
those types, so a tampered or foreign file cannot make ``load_model`` run
code.  Every file records the svmcompare version that wrote it; a file from
another minor version is refused, since fitted attributes may differ.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import numpy as np

from .ranking_function import ComparisonMixin

FORMAT = "svmcompare-model"
_OWN_MODULE = "svmcompare."


def _minor(version):
    return tuple(str(version).split(".")[:2])


def _library_version():
    from . import __version__  # at call time: the package imports this module first

    return __version__


def _is_own_estimator(model):
    from sklearn.base import BaseEstimator

    return isinstance(model, BaseEstimator) and type(model).__module__.startswith(_OWN_MODULE)


def save_model(model, path):
    """Write a fitted estimator (and the library version) to ``path`` (skops format).

    The file is written under a temporary name in the same folder and renamed
    when complete, so an interrupted or failed write never leaves a partial
    model file at ``path`` (nor replaces an earlier one).
    """
    import skops.io as sio

    if not _is_own_estimator(model):
        raise TypeError(f"save_model writes svmcompare estimators; got {type(model).__name__}.")
    path = Path(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.part")
    # Created as open() would (0666 less the umask), unlike mkstemp's 0600,
    # which the rename would carry over; O_EXCL: never someone else's file.
    os.close(os.open(temporary, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
    try:
        sio.dump({"format": FORMAT, "version": _library_version(), "model": model},
                 temporary)
        _write_predictor(model, temporary)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def load_model(path):
    """Read a model file written by :func:`save_model`.

    Raises
    ------
    FileNotFoundError
        No file at ``path``.
    ValueError
        Not a model file, a file needing types outside svmcompare (refused
        without loading), or a file from an incompatible svmcompare version.
    """
    import skops.io as sio

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"No model file at {path}.")
    try:
        untrusted = sio.get_untrusted_types(file=path)
    except Exception as exc:  # skops raises several types for a non-skops file
        raise ValueError(f"{path} is not an svmcompare model file ({exc}).") from exc
    foreign = [name for name in untrusted if not name.startswith(_OWN_MODULE)]
    if foreign:
        raise ValueError(f"{path} needs types svmcompare does not trust: {foreign}; "
                         "refusing to load it.")
    content = sio.load(path, trusted=untrusted)
    if not isinstance(content, dict) or content.get("format") != FORMAT:
        raise ValueError(f"{path} is a skops file but not an svmcompare model file.")
    version = _library_version()
    if _minor(content.get("version")) != _minor(version):
        raise ValueError(f"{path} was written by svmcompare {content.get('version')}; this is "
                         f"{version}. Refit the model with this version.")
    model = content["model"]
    if not _is_own_estimator(model):
        raise ValueError(f"{path} holds a {type(model).__name__}, not a fitted svmcompare "
                         "estimator; write model files with 'svmcompare fit' or save_model.")
    return model


# -- the scoring part of a model file, readable without scikit-learn or skops --
#
# Importing scikit-learn takes about a second, skops most of another, so a
# model file also holds what scoring pairs needs -- the ranking function, the
# threshold and the probability link -- as JSON and NumPy arrays (never
# pickles).  ``svmcompare predict`` reads only that part (``load_predictor``);
# Python's ``load_model`` reads the whole estimator.

PREDICTOR_JSON = "svmcompare-predictor.json"
PREDICTOR_ARRAYS = "svmcompare-predictor.npz"


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


def predictor_state(model):
    """(JSON, arrays) of what scoring pairs with ``model`` needs, or None when
    it cannot be written so (a graded-items model, a callable kernel, a
    Nystroem feature map); such files are scored through :func:`load_model`."""
    ranking = getattr(model, "ranking_", None)
    if ranking is None or ranking.kernel.func is not None or ranking.feature_map is not None:
        return None
    names = getattr(model, "feature_names_in_", None)
    meta = {"version": _library_version(), "estimator": type(model).__name__,
            "kernel": ranking.kernel.name, "gamma": ranking.kernel.gamma,
            "degree": ranking.kernel.degree, "coef0": ranking.kernel.coef0,
            "threshold": float(model.threshold_),
            "feature_names": None if names is None else [str(n) for n in names],
            "context": ranking.context_coef is not None, "calibrator": None}
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


def _write_predictor(model, path):
    import io
    import json
    import zipfile

    state = predictor_state(model)
    if state is None:
        return
    meta, arrays = state
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    with zipfile.ZipFile(path, "a", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(PREDICTOR_JSON, json.dumps(meta))
        archive.writestr(PREDICTOR_ARRAYS, buffer.getvalue())


def load_predictor(path):
    """The scoring part of a model file as a :class:`Predictor`, or None when
    the file has none (graded-items models, callable kernels, Nystroem maps,
    files of other versions): then use :func:`load_model`."""
    import io
    import json
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            if PREDICTOR_JSON not in names or PREDICTOR_ARRAYS not in names:
                return None
            meta = json.loads(archive.read(PREDICTOR_JSON))
            with np.load(io.BytesIO(archive.read(PREDICTOR_ARRAYS)),
                         allow_pickle=False) as data:
                arrays = {name: data[name] for name in data.files}
    except (OSError, zipfile.BadZipFile, ValueError, KeyError):
        return None
    if _minor(meta.get("version")) != _minor(_library_version()):
        return None
    return Predictor(meta, arrays)


class Predictor(ComparisonMixin):
    """A model file's pair scorer: ``rank``, ``decision_function``, ``predict``
    (and ``predict_proba`` when the model has probabilities), the same numbers
    as the estimator's, from arrays alone."""

    def __init__(self, meta, arrays):
        from ._problem import Standardizer
        from .calibration import PairTieCalibrator
        from .kernels import resolve_kernel

        scaler = Standardizer(mean=arrays["mean"], scale=arrays["scale"], keep=arrays["keep"])
        kernel = resolve_kernel(meta["kernel"], meta["gamma"], meta["degree"], meta["coef0"])
        expansion = None if "weights" in arrays else (arrays["items"], arrays["coef"])
        self._set_ranking(scaler, kernel, "file", expansion=expansion,
                          weights=arrays.get("weights"),
                          context_coef=arrays.get("context_coef") if meta["context"] else None)
        self.estimator_name_ = meta["estimator"]
        self.threshold_ = meta["threshold"]
        if meta["feature_names"] is not None:
            self.feature_names_in_ = np.asarray(meta["feature_names"], dtype=object)
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
            self.tie_band = link["tie_band"]
            self.class_prior_ = arrays["class_prior"]

    def __getattr__(self, name):
        if name == "predict_proba" and "calibrator_" in vars(self):
            return self._probabilities
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}.")
