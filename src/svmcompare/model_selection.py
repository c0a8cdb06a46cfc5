"""Hyper-parameter selection on a held-out validation set, as in the paper.

Section 4 fits a 10 x 10 grid of models (C = 10^-3..10^3, kernel width
gamma = 2^-7..2^4, both log-spaced) on a training set and keeps the one with
the smallest validation zero-one error (Figure 4) or the largest validation
AUC (Figure 5).  Every estimator here also works with scikit-learn's
``GridSearchCV``; this module is the train/validation protocol of the paper.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.base import clone
from tqdm.auto import tqdm

from .compare import NoRankingError
from .metrics import comparison_auc, comparison_errors

SCORINGS = ("error", "auc")


def paper_grid(n_C=10, n_gamma=10):
    """The paper's grid: C = 10^-3..10^3 and gamma = 2^-7..2^4, log-spaced.

    gamma comes first so that C varies fastest, as in the paper's scripts,
    which matters only for breaking ties between equally good grid points.
    """
    return {
        "gamma": np.logspace(-7, 4, n_gamma, base=2.0),
        "C": np.logspace(-3, 3, n_C),
    }


def _grid_points(param_grid):
    names = list(param_grid)
    combos = itertools.product(*param_grid.values())
    return [dict(zip(names, values, strict=True)) for values in combos]


def _fit_and_score(estimator, params, X_train, y_train, X_val, y_val):
    model = clone(estimator).set_params(**params)
    try:
        model.fit(X_train, y_train)
    except NoRankingError:
        return None, {"error": np.nan, "auc": np.nan, "failed": True}
    diff = model.decision_function(X_val)
    errors = comparison_errors(y_val, model.predict(X_val))
    has_both = 0 < errors["equality"] < errors["count"]
    auc = comparison_auc(y_val, diff) if has_both else np.nan
    return model, {"error": errors["error"] / errors["count"], "auc": auc, "failed": False}


def validation_search(estimator, param_grid, X_train, y_train, X_val, y_val, *,
                      scoring="error", n_jobs=None, progress=False, description=None):
    """Fit every grid point on the training pairs; keep the best on validation.

    Parameters
    ----------
    estimator : estimator
        A comparison estimator (``SVMCompare``, ``SVMRank``, ``SVMRank2``...).
    param_grid : dict of name -> sequence
        Grid points are the Cartesian product; the first best one wins ties,
        in the order of ``itertools.product`` over the dict's values.
    X_train, y_train, X_val, y_val : pair arrays and labels
    scoring : {"error", "auc"}
        Minimum validation zero-one error, or maximum validation AUC (Table 3).
    n_jobs : int or None
        Parallel fits through joblib.
    progress : bool
        Show a progress bar over the fits.

    Returns
    -------
    best : fitted estimator
    results : pandas.DataFrame
        One row per grid point: its parameters, validation ``error`` and
        ``auc``, and ``failed`` (beta >= 0 for SVMCompare: no ranking).
    """
    if scoring not in SCORINGS:
        raise ValueError(f"scoring must be one of {SCORINGS}; got {scoring!r}.")
    points = _grid_points(param_grid)
    iterator = tqdm(points, desc=description or type(estimator).__name__,
                    disable=not progress, leave=False)
    outputs = Parallel(n_jobs=n_jobs)(
        delayed(_fit_and_score)(estimator, p, X_train, y_train, X_val, y_val)
        for p in iterator
    )
    results = pd.DataFrame([{**p, **score} for p, (_, score) in zip(points, outputs, strict=True)])
    if results["failed"].all():
        raise NoRankingError(
            f"Every grid point failed for {type(estimator).__name__}: beta >= 0 everywhere. "
            "Try class_weight='balanced'."
        )
    values = results[scoring].to_numpy(dtype=float)
    values = np.where(np.isnan(values), np.inf if scoring == "error" else -np.inf, values)
    best_index = int(np.argmin(values) if scoring == "error" else np.argmax(values))
    results["selected"] = np.arange(len(results)) == best_index
    return outputs[best_index][0], results
