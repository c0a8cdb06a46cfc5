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
