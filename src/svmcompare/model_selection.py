"""Hyper-parameter selection that reuses work across the grid.

Section 4 of the paper fits a 10 x 10 grid of models (C = 10^-3..10^3,
kernel width gamma = 2^-7..2^4, both log-spaced) on a training set and keeps
the one with the smallest validation zero-one error (Figure 4) or the largest
validation AUC (Figure 5).

For a fixed gamma, the fits along C share everything but the costs: the
pairs are validated, standardized and flipped once, the item kernel matrix is
computed once (when it fits in ``cache_size``), and each dual solve starts
from the previous one's solution scaled by C_new / C_old, which stays
feasible for the box [0, C_new] and the equality constraint of (18)
(alpha seeding).  :func:`fit_C_path` does this; :func:`validation_search`
(the paper's train/validation protocol) and :class:`SVMCompareCV`
(cross-validation) are built on it.  Every estimator also works unchanged in
scikit-learn's ``GridSearchCV``, which refits each grid point from scratch.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.model_selection import check_cv
from sklearn.utils.validation import check_is_fitted
from tqdm.auto import tqdm

from ._validation import check_C, check_pairs_labels
from .compare import SVMCompare
from .exceptions import NoRankingError
from .metrics import comparison_report

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


def fit_C_path(estimator, X, y, Cs):
    """Fit ``estimator`` at every C in ``Cs``, sharing work between the fits.

    Parameters
    ----------
    estimator : SVMCompare, SVMRank, SVMRank2 or SVMCompareLP
        Its other hyper-parameters (kernel, gamma, class_weight...) are used.
    X, y : pair array and labels
    Cs : sequence of float > 0

    Returns
    -------
    list
        One fitted estimator per C, in the order of ``Cs``; ``None`` where the
        fit has no ranking function (:class:`svmcompare.NoRankingError`).
    """
    Cs = [float(C) for C in Cs]
    for C in Cs:
        check_C(C)
    prepared = clone(estimator).set_params(C=1.0)._prepare(X, y)
    unit_cost = prepared.problem.C
    gram = None
    if prepared.solver in ("exact", "lp"):
        items = prepared.problem.items
        # SVMCompareLP has no cache_size: it builds the whole item kernel anyway.
        budget = getattr(estimator, "cache_size", np.inf) * 2**20 / 2
        if 8.0 * items.shape[0] ** 2 <= budget:
            gram = prepared.kernel.block(items, items)
    models = [None] * len(Cs)
    alpha, previous = None, None
    for i in np.argsort(Cs, kind="stable"):
        C = Cs[i]
        model = clone(estimator).set_params(C=C)
        step = replace(prepared, problem=replace(prepared.problem, C=unit_cost * C))
        # Alpha seeding: scaling keeps 0 <= alpha <= C and y^T alpha = 0.
        alpha0 = None if alpha is None else alpha * (C / previous)
        result, feature_map = model._solve(step, gram=gram, alpha0=alpha0)
        if prepared.solver == "exact":
            alpha, previous = result.alpha, C
        try:
            models[i] = model._store(step, result, feature_map)
        except NoRankingError:
            models[i] = None
    return models


def _scores(model, X_val, y_val):
    """Validation zero-one error and comparison AUC of a fitted model (NaN if none)."""
    if model is None:
        return {"error": np.nan, "auc": np.nan, "failed": True}
    report = comparison_report(y_val, model.decision_function(X_val), model.threshold_)
    return {"error": report["error_rate"], "auc": report["auc"], "failed": False}


def _path_on_split(estimator, Cs, X, y, split, keep_models):
    """Fit the C path on the split's training pairs, score on its validation pairs."""
    train, val = split
    models = fit_C_path(estimator, X[train], y[train], Cs)
    scores = [_scores(model, X[val], y[val]) for model in models]
    return models if keep_models else [None] * len(models), scores


def search_grid(estimator, param_grid, X, y, splits, *, n_jobs=None, progress=False,
                description=None, keep_models=False):
    """Score every grid point on every (train, validation) split.

    The one search engine under :func:`validation_search` (one split) and
    :class:`SVMCompareCV` (K folds): the grid points that differ only in C
    form one warm-started path (:func:`fit_C_path`) per split, and the paths
    run in parallel through joblib.

    Parameters
    ----------
    estimator : estimator
        A comparison estimator; its other hyper-parameters are kept.
    param_grid : dict of name -> sequence
        The Cartesian product of the values, in ``itertools.product`` order.
    X, y : pair array and labels
    splits : list of (train indices, validation indices)
    n_jobs, progress, description : parallelism and the progress bar
    keep_models : bool, default=False
        Return the fitted models too (memory: one model per point and split).

    Returns
    -------
    points : list of dict
        The grid points.
    scores : list (per split) of list (per point) of dict
        ``error``, ``auc`` and ``failed`` (no ranking function) of each point.
    models : list (per split) of list (per point), or None
    """
    points, Cs, groups = _grouped_by_C(param_grid, estimator)
    tasks = [(k, others, indices) for k in range(len(splits))
             for others, indices in groups.items()]
    jobs = tqdm(tasks, desc=description or type(estimator).__name__, disable=not progress,
                leave=False)
    outputs = Parallel(n_jobs=n_jobs)(
        delayed(_path_on_split)(clone(estimator).set_params(**dict(others)), Cs, X, y,
                                splits[k], keep_models)
        for k, others, _ in jobs
    )
    scores = [[None] * len(points) for _ in splits]
    models = [[None] * len(points) for _ in splits]
    for (k, _, indices), (path_models, path_scores) in zip(tasks, outputs, strict=True):
        for index, model, score in zip(indices, path_models, path_scores, strict=True):
            scores[k][index] = score
            models[k][index] = model
    return points, scores, models if keep_models else None


def _grouped_by_C(param_grid, estimator):
    """Grid points grouped by everything but C: one warm-started path per group."""
    points = _grid_points(param_grid)
    Cs = list(param_grid["C"]) if "C" in param_grid else [estimator.C]
    groups = {}
    for index, point in enumerate(points):
        others = tuple((k, v) for k, v in point.items() if k != "C")
        groups.setdefault(others, []).append(index)
    return points, Cs, groups


def _best_index(values, scoring):
    values = np.asarray(values, dtype=float)
    worst = np.inf if scoring == "error" else -np.inf
    values = np.where(np.isnan(values), worst, values)
    return int(np.argmin(values) if scoring == "error" else np.argmax(values))


def validation_search(estimator, param_grid, X_train, y_train, X_val, y_val, *,
                      scoring="error", n_jobs=None, progress=False, description=None):
    """Fit every grid point on the training pairs; keep the best on validation.

    The fits along C for each value of the other parameters form one
    warm-started path (:func:`fit_C_path`); paths run in parallel.

    Parameters
    ----------
    estimator : estimator
        A comparison estimator (``SVMCompare``, ``SVMRank``, ``SVMRank2``).
    param_grid : dict of name -> sequence
        Grid points are the Cartesian product; the first best one wins ties,
        in the order of ``itertools.product`` over the dict's values.
    X_train, y_train, X_val, y_val : pair arrays and labels
    scoring : {"error", "auc"}
        Minimum validation zero-one error, or maximum validation AUC (Table 3).
    n_jobs : int or None
        Parallel paths through joblib.
    progress : bool
        Show a progress bar over the paths.

    Returns
    -------
    best : fitted estimator
    results : pandas.DataFrame
        One row per grid point: its parameters, validation ``error`` and
        ``auc``, and ``failed`` (beta >= 0 for SVMCompare: no ranking).
    """
    if scoring not in SCORINGS:
        raise ValueError(f"scoring must be one of {SCORINGS}; got {scoring!r}.")
    X_train, y_train = check_pairs_labels(X_train, y_train)
    X_val, y_val = check_pairs_labels(X_val, y_val)
    n_train = X_train.shape[0]
    split = (np.arange(n_train), np.arange(n_train, n_train + X_val.shape[0]))
    points, scores, models = search_grid(
        estimator, param_grid, np.concatenate([X_train, X_val]),
        np.concatenate([y_train, y_val]), [split], n_jobs=n_jobs, progress=progress,
        description=description, keep_models=True)
    results = pd.DataFrame([{**p, **score} for p, score in zip(points, scores[0],
                                                                strict=True)])
    if results["failed"].all():
        raise NoRankingError(
            f"Every grid point failed for {type(estimator).__name__}: beta >= 0 everywhere. "
            "Try class_weight='balanced'."
        )
    best_index = _best_index(results[scoring], scoring)
    results["selected"] = np.arange(len(results)) == best_index
    return models[0][best_index], results


class SVMCompareCV(ClassifierMixin, BaseEstimator):
    """Cross-validated choice of hyper-parameters with warm-started C paths.

    For each fold and each value of the other parameters, the fits over C form
    one warm-started path (:func:`search_grid`); the grid point with the best
    mean validation score over the folds is refitted on all pairs.

    Parameters
    ----------
    estimator : estimator, default=None
        The model to tune; ``SVMCompare()`` when None.  ``SVMRank`` and
        ``SVMRank2`` work too.  Its other hyper-parameters are kept.
    param_grid : dict of name -> sequence, default=None
        The grid (any hyper-parameters of the estimator).  None: the paper's
        C = 10^-3..10^3 and gamma = 2^-7..2^4 (10 values each; C alone for
        the linear kernel).
    scoring : {"error", "auc"}, default="error"
        Minimum mean validation zero-one error or maximum mean comparison AUC.
    cv : int or cross-validation splitter, default=5
        As scikit-learn's ``cv`` (an int gives stratified folds on y).
    n_jobs : int or None
        Parallel (fold, gamma) paths through joblib.
    progress : bool, default=False
        Show a progress bar over the paths.

    Attributes
    ----------
    best_params_ : dict
        The chosen grid point.
    best_score_ : float
        Its mean validation error or AUC.
    best_estimator_ : estimator
        Refitted on all pairs with ``best_params_``.
    cv_results_ : pandas.DataFrame
        One row per grid point: its parameters, ``mean_error``,
        ``std_error``, ``mean_auc``, ``std_auc``, ``n_failed`` (folds where
        the fit had no ranking function; such a point gets no mean score).
    classes_, n_features_in_ : as the estimator's.
    """

    def __init__(self, estimator=None, *, param_grid=None, scoring="error", cv=5,
                 n_jobs=None, progress=False):
        self.estimator = estimator
        self.param_grid = param_grid
        self.scoring = scoring
        self.cv = cv
        self.n_jobs = n_jobs
        self.progress = progress

    def fit(self, X, y):
        """Choose the grid point by cross-validation, then refit on all pairs."""
        if self.scoring not in SCORINGS:
            raise ValueError(f"scoring must be one of {SCORINGS}; got {self.scoring!r}.")
        X, y = check_pairs_labels(X, y)
        base = SVMCompare() if self.estimator is None else self.estimator
        grid = self.param_grid
        if grid is None:
            grid = paper_grid()
            if base.kernel == "linear":
                grid = {"C": grid["C"]}
        splits = list(check_cv(self.cv, y, classifier=True).split(np.zeros(len(y)), y))
        points, scores, _ = search_grid(base, grid, X, y, splits, n_jobs=self.n_jobs,
                                        progress=self.progress, description="SVMCompareCV")
        # Grouped by the point's index: parameter values may be None or dicts.
        per_fold = pd.DataFrame([{"point": index, **score} for fold_scores in scores
                                 for index, score in enumerate(fold_scores)])
        statistics = per_fold.groupby("point", sort=True).agg(
            mean_error=("error", "mean"), std_error=("error", "std"),
            mean_auc=("auc", "mean"), std_auc=("auc", "std"), n_failed=("failed", "sum"),
        ).reset_index(drop=True)
        summary = pd.concat([pd.DataFrame(points), statistics], axis=1)
        # A grid point that fails on any fold has no mean score.
        column = "mean_error" if self.scoring == "error" else "mean_auc"
        summary.loc[summary["n_failed"] > 0, column] = np.nan
        if summary[column].isna().all():
            raise NoRankingError(
                "Every grid point failed on some fold: beta >= 0. Try class_weight='balanced'."
            )
        best = _best_index(summary[column], self.scoring)
        self.cv_results_ = summary
        self.best_params_ = dict(points[best])
        self.best_score_ = float(summary.loc[best, column])
        self.best_estimator_ = clone(base).set_params(**self.best_params_).fit(X, y)
        self.classes_ = self.best_estimator_.classes_
        self.n_features_in_ = self.best_estimator_.n_features_in_
        return self

    def _fitted(self):
        check_is_fitted(self)
        return self.best_estimator_

    def rank(self, Z):
        """r(z) of the refitted best model."""
        return self._fitted().rank(Z)

    def decision_function(self, X):
        """r(x') - r(x) of the refitted best model."""
        return self._fitted().decision_function(X)

    def predict(self, X):
        """Comparisons in {-1, 0, 1} by the refitted best model."""
        return self._fitted().predict(X)

    def score(self, X, y, sample_weight=None):
        """Fraction of pairs compared correctly by the refitted best model."""
        return self._fitted().score(X, y, sample_weight=sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.three_d_array = True
        tags.input_tags.two_d_array = False
        return tags
