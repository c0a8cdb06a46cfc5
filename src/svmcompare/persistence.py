"""Model files: save a fitted estimator, load it back without running foreign code.

A model file is a zip archive, all members stored uncompressed, holding

- ``schema.json`` and ``.npy`` arrays: the estimator in skops' format
  (objects as data instead of pickle byte code);
- ``svmcompare-predictor.json`` and ``svmcompare-predictor/*.npy``: the
  scoring part (:mod:`svmcompare.predictor`), for models that have one.

Loading a file never trusts it:

1. only a regular file is read, once, into memory; every member must be
   stored uncompressed and every array header must match its bytes
   (:mod:`svmcompare._archive`), so a file cannot make a reader use more
   memory than its own size, nor hang on a FIFO or a device;
2. the schema is walked node by node against an explicit allow-list of
   classes and node kinds, and the file's svmcompare version is checked,
   before skops builds any object (:mod:`svmcompare._trusted`): no function,
   method or module attribute a file names is ever called;
3. the loaded estimator is checked to be a consistent fitted model: the
   parts scoring uses, finite numbers, known names and consistent shapes,
   kernels as a fit makes them (each code its name's), no attribute that
   would hide a method of its class (:mod:`svmcompare._fitted_state`), as
   the scoring part is.

Every refusal is a ``ValueError`` (``FileNotFoundError`` for a missing file)
whose one-line message names the file and the part at fault.
"""

from __future__ import annotations

import io
import json
import os
import secrets
import zipfile
from pathlib import Path

import numpy as np

from . import predictor as _predictor
from ._archive import Archive, read_npy, read_regular_file
from ._fitted_state import (
    check_fitted_model,
    fitted_estimators,
    is_own_estimator,
    parameter_fault,
)
from ._trusted import FORMAT, check_schema
from .predictor import BadPredictorError, Predictor, check_state, predictor_state

__all__ = ["FORMAT", "save_model", "load_model", "load_predictor", "Predictor",
           "BadPredictorError"]


def _minor(version):
    return tuple(str(version).split(".")[:2])


def _library_version():
    from . import __version__  # at call time: the package imports this module first

    return __version__


def save_model(model, path):
    """Write a fitted estimator (and the library version) to ``path``.

    The file is written under a temporary name in the same folder and renamed
    when complete, so an interrupted or failed write never leaves a partial
    model file at ``path`` (nor replaces an earlier one).
    """
    import skops.io as sio

    if not is_own_estimator(model):
        raise TypeError(f"save_model writes svmcompare estimators; got {type(model).__name__}.")
    # load_model runs no code, so it refuses a file holding a function: refused
    # here, before writing a file that could never be read (an attack, stop 70).
    functions = sorted(name for name, value in model.get_params(deep=True).items()
                       if _holds_function(value))
    if functions:
        raise TypeError(f"save_model cannot write a model whose {', '.join(functions)} "
                        "is a function: model files hold no code, so load_model would refuse "
                        "the file. Use a named kernel ('rbf', 'linear', 'poly', 'laplacian'), "
                        "or keep the model with pickle (which runs code on load: only for "
                        "files you trust).")
    # Parameters set after the fit (set_params(kernel=...), gamma=-1) are
    # refused at load as an edited file's: refused here, before writing (a review).
    for estimator in fitted_estimators(model):
        fault = parameter_fault(estimator)
        if fault is not None:
            raise ValueError(f"save_model cannot write this model: {fault}, as set after its "
                             "fit; refit it, or set the parameter back.")
    path = Path(path)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.part")
    # Created as open() would (0666 less the umask), unlike mkstemp's 0600,
    # which the rename would carry over; O_EXCL: never someone else's file.
    os.close(os.open(temporary, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
    try:
        version = _library_version()
        sio.dump({"format": FORMAT, "version": version, "model": _for_file(model)}, temporary,
                 compression=zipfile.ZIP_STORED)
        state = predictor_state(model, version)
        if state is not None:
            _append_predictor(temporary, *state)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _holds_function(value):
    """Whether a parameter value is or holds (in a list, tuple or dict, e.g.
    a search's param_grid) a function, which no model file may hold."""
    if isinstance(value, (list, tuple)):
        return any(_holds_function(part) for part in value)
    if isinstance(value, dict):
        return any(_holds_function(part) for part in value.values())
    return callable(value) and not hasattr(value, "get_params") and not isinstance(value, type)


def _for_file(model):
    """A shallow copy of ``model`` (and of the estimators it holds) as a file
    keeps it: each estimator's ``compact_copy`` where it has one (no arrays
    of the training pairs); ``model`` itself is unchanged."""
    import copy

    copied = model.compact_copy() if hasattr(model, "compact_copy") else copy.copy(model)
    for name, value in list(vars(copied).items()):
        if name.endswith("_") and is_own_estimator(value):
            setattr(copied, name, _for_file(value))
        elif name.endswith("_") and isinstance(value, list) and value \
                and all(is_own_estimator(part) for part in value):  # a bootstrap's replicates
            setattr(copied, name, [_for_file(part) for part in value])
    return copied


def _append_predictor(path, meta, arrays):
    with zipfile.ZipFile(path, "a", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr(_predictor.JSON_MEMBER, json.dumps(meta))
        for name, value in arrays.items():
            buffer = io.BytesIO()
            np.save(buffer, np.ascontiguousarray(value), allow_pickle=False)
            archive.writestr(f"{_predictor.ARRAY_PREFIX}{name}.npy", buffer.getvalue())


def _version_check(path):
    def check(version):
        library = _library_version()
        if _minor(version) != _minor(library):
            raise ValueError(f"{path} was written by svmcompare {str(version)[:40]}; this is "
                             f"{library}. Refit the model with this version.")
    return check


def _parse_json(data, path, member):
    try:
        return json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"{path}: member {member!r} is not valid JSON "
                         f"({str(exc)[:120]}).") from None


def load_model(path):
    """Read a model file written by :func:`save_model`.

    Raises
    ------
    FileNotFoundError
        No file at ``path``.
    ValueError
        Not a regular file, not a model file, a file holding anything outside
        svmcompare's allow-list (refused before anything in it is built), a
        damaged or inconsistent file, or a file from another svmcompare minor
        version.
    """
    archive = Archive(read_regular_file(path), path)
    if "schema.json" not in archive.names:
        raise ValueError(f"{path} is not an svmcompare model file (no schema.json).")
    schema = _parse_json(archive.read("schema.json"), path, "schema.json")
    arrays = {name: header for name, header in archive.arrays.items() if "/" not in name}
    trusted = check_schema(schema, arrays, path, _version_check(path))
    model = _construct(archive.data, trusted, path)
    _check_loaded(model, path)
    _check_scoring_part(archive, path, model)
    return model


def _construct(data, trusted, path):
    import skops.io as sio

    try:
        content = sio.loads(data, trusted=trusted)
    except (MemoryError, KeyboardInterrupt):
        raise
    except Exception as exc:  # a well-formed tree can still hold values no class accepts
        raise ValueError(f"{path} is damaged: building its model failed "
                         f"({type(exc).__name__}: {str(exc)[:160]}).") from None
    return content["model"]


def _check_loaded(model, path):
    if not is_own_estimator(model):
        raise ValueError(f"{path} holds a {type(model).__name__}, not a fitted svmcompare "
                         "estimator; write model files with 'svmcompare fit' or save_model.")
    check_fitted_model(model, path, _library_version())


def load_predictor(path):
    """The scoring part of a model file as a :class:`Predictor`, or None when
    the file has none (graded-items models, Nystroem maps):
    then use :func:`load_model`.

    Raises
    ------
    ValueError
        The file is not a model file, or its scoring part is malformed,
        inconsistent or from another version than the rest of the file (a
        :class:`BadPredictorError`, naming the part).
    """
    archive = Archive(read_regular_file(path), path)
    part = _scoring_part(archive, path)
    return None if part is None else Predictor(*part)


def _scoring_part(archive, path):
    """The file's scoring part as checked (JSON, arrays), or None."""
    if _predictor.JSON_MEMBER not in archive.names:
        if any(name.startswith(_predictor.ARRAY_PREFIX) for name in archive.names):
            raise BadPredictorError(f"{path}: the scoring part has arrays but no "
                                    f"{_predictor.JSON_MEMBER}.")
        return None
    where = f"{path}: scoring part"
    meta = _parse_json(archive.read(_predictor.JSON_MEMBER), path, _predictor.JSON_MEMBER)
    arrays = {}
    for name in archive.names:
        if name.startswith(_predictor.ARRAY_PREFIX):
            key = name[len(_predictor.ARRAY_PREFIX):-len(".npy")]
            arrays[key] = read_npy(archive.read(name), f"{path}: {name}")
    check_state(meta, arrays, where)
    _version_check(path)(meta["version"])
    if meta["version"] != _schema_version(archive, path):
        raise BadPredictorError(f"{where} says version {str(meta['version'])[:40]} but the "
                                "rest of the file another: the file was edited or mixed.")
    return meta, arrays


def _check_scoring_part(archive, path, model):
    """The scoring part (what ``predict`` reads) must be the loaded model's
    own, as :func:`save_model` writes it: a file whose parts disagree scored
    one way on ``predict`` and another on ``evaluate`` (weights negated in the
    scoring part alone reversed every label)."""
    part = _scoring_part(archive, path)
    if part is None:
        # save_model writes one for every model that has one: a file without
        # it whose model has one was edited (its parts deleted, the class
        # swapped: an attack, stop 70, read an SVMCompare file as SVMRank).
        if predictor_state(model, _library_version()) is not None:
            raise BadPredictorError(f"{path}: the file lacks the scoring part its model "
                                    "has: the file was edited or mixed.")
        return
    # The state as this model's save wrote it (under the file's own version).
    own = predictor_state(model, part[0]["version"])
    if own is None:
        raise BadPredictorError(f"{path}: the file has a scoring part where its model has "
                                "none: the file was edited or mixed.")
    (meta, arrays), (own_meta, own_arrays) = part, own
    own_meta = json.loads(json.dumps(own_meta))  # as written
    differ = [k for k in sorted(own_meta.keys() | meta.keys())
              if own_meta.get(k) != meta.get(k)]
    differ += [k for k in sorted(own_arrays.keys() | arrays.keys())
               if k not in arrays or k not in own_arrays
               or not np.array_equal(np.asarray(own_arrays[k]), arrays[k])]
    if differ:
        raise BadPredictorError(f"{path}: the scoring part and the model disagree on "
                                f"{', '.join(differ[:5])}: the file was edited or mixed.")


def _schema_version(archive, path):
    """The svmcompare version the skops part records (read as data only)."""
    if "schema.json" not in archive.names:
        raise ValueError(f"{path} is not an svmcompare model file (no schema.json).")
    schema = _parse_json(archive.read("schema.json"), path, "schema.json")
    try:
        return json.loads(schema["content"]["version"]["content"])
    except (TypeError, KeyError, ValueError, RecursionError):
        raise ValueError(f"{path} is not an svmcompare model file (no version).") from None
