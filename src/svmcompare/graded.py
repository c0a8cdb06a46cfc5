"""Estimators on graded items: RankSVM within query groups, and ordinal regression
by large-margin rank boundaries (Herbrich et al. 1999), each optionally learning
from the pairs with equal grades through SVMCompare."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from ._base import store_all_pairs
from ._parameters import check_parameters
from ._problem import Standardizer
from ._validation import (
    MAX_C,
    check_feature_names,
    check_pairs,
    check_positive,
    check_sample_weight,
    column_names,
)
from .baselines import SVMRank
from .compare import SVMCompare
from .exceptions import NoRankingError
from .kernels import LINEAR, resolve_kernel
from .metrics import kendall_tau_per_group
from .pairs import check_items, pair_indices, sample_pair_indices
from .solvers import solver_threads

_PAIR_PARAMS = ("C", "kernel", "gamma", "degree", "coef0", "tol", "solver", "n_jobs")
PAIRS = ("auto", "all", "materialize")
# An all-pairs fit forms no pairs; SVMRank's threshold tau (eq. 6) is chosen
# on at most this many training pairs, drawn at random.
THRESHOLD_PAIRS = 200_000


def _pair_model(estimator, ties):
    """SVMRank on the strict pairs (ties dropped) or SVMCompare with ties kept."""
    params = {name: getattr(estimator, name) for name in _PAIR_PARAMS}
    if ties == "keep":
        # The paper's rule (NoRankingError when beta >= 0): a grid search over
        # these models skips such points, as the ordinal reproduction expects.
        return SVMCompare(class_weight=estimator.class_weight, on_degenerate="raise", **params)
    return SVMRank(**params)


def _all_pairs(estimator, subsample):
    """Whether the fit takes the all-pairs solver (``pairs``; "auto": the linear
    kernel, unless the materialized pairs are to be subsampled)."""
    if estimator.pairs not in PAIRS:
        raise ValueError(f"pairs must be one of {PAIRS}; got {estimator.pairs!r}.")
    if estimator.pairs == "materialize":
        return False
    linear = resolve_kernel(estimator.kernel, estimator.gamma, estimator.degree,
                            estimator.coef0).code == LINEAR
    if estimator.pairs == "auto":
        return linear and estimator.solver in ("auto", "linear") and subsample is None
    if not linear or estimator.solver not in ("auto", "linear"):
        raise ValueError(
            "pairs='all' trains a linear ranking function on every within-group pair "
            "(kernel='linear' with solver 'auto' or 'linear'); got "
            f"kernel={estimator.kernel!r}, solver={estimator.solver!r}. Use pairs='materialize' "
            "(with max_pairs_per_group / max_pairs to bound the pairs) for other kernels."
        )
    if subsample is not None:  # (ignored silently before: an attack, stop 70)
        raise ValueError(f"pairs='all' trains on every within-group pair, so a cap of "
                         f"{subsample} pairs cannot apply; use pairs='materialize' (or 'auto') "
                         "to train on a sample of the pairs, or leave the cap out.")
    return True


def _item_feature_names(X):
    """The column names of a DataFrame of items when all are text (scikit-learn's
    rule for ``feature_names_in_``), else None."""
    columns = getattr(X, "columns", None)
    if columns is None or len(columns) == 0 or not all(isinstance(c, str) for c in columns):
        return None
    return np.asarray(column_names(X, "X"), dtype=object)  # (a repeated name refused)


def _record_feature_names(estimator, names):
    """``feature_names_in_`` of a fitted graded estimator and of its pair model,
    which then refuses items (and wide pairs) with other names or another
    order, as the pair estimators do; none after a fit on an array (a refit
    keeps no stale names)."""
    if names is None:
        vars(estimator).pop("feature_names_in_", None)
        return
    estimator.feature_names_in_ = names
    estimator.pair_model_.feature_names_in_ = names


def _check_item_names(estimator, X):
    """Refuse a DataFrame of items whose columns differ in name or order from
    those ``fit`` saw (a reordered frame would silently swap the weights)."""
    check_is_fitted(estimator)
    check_feature_names(getattr(estimator, "feature_names_in_", None), column_names(X), "X")


def _no_pairs_error():
    return ValueError(
        "No two items of the same group have different grades, so there is nothing to "
        "rank: every group needs at least two distinct grades."
    )


def _fit_pairs(estimator, X, y, groups, max_pairs, sample_weight=None):
    """Validate items and fit the pair model on their within-group pairs, formed
    (``pairs="materialize"``) or not (``pairs="all"``); sets ``n_pairs_``."""
    try:
        return _fit_pairs_of(estimator, X, y, groups, max_pairs, sample_weight)
    except NoRankingError as exc:
        # The pair model's advice names SVMCompare's options (on_degenerate, its
        # class_weight default 'auto'), which this estimator does not have.
        # The advice names what is not in use already (an attack, stop 70: it
        # suggested class_weight='auto' to a fit that had it).
        more = "class_weight='auto' or 'balanced'" if estimator.class_weight is None else \
            "class_weight={1: 1, -1: w} with w above the balanced weight of ties"
        raise NoRankingError(
            f"{type(estimator).__name__}(ties='keep', class_weight="
            f"{estimator.class_weight!r}) found no ranking: the pairs of equal grade weigh too "
            "little for the tie band to have a scale (beta >= 0, the paper's rule; a search "
            f"over C skips such points). Weigh them more ({more}), try another C, or leave "
            "them out (ties='drop').") from exc


def _check_pair_weights(sample_weight, C):
    """A pair weighs the product of its items' weights: refuse weights whose
    products overflow past what a solve takes (C x weight at most 10 MAX_C, as
    ``check_costs`` rules) or underflow to 0 (an attack, stop 70: one weight
    of 1e300 gave the all-pairs solver a zero model, 1e160 each an IndexError,
    1e-300 each "no two items ... have different grades")."""
    try:
        C = float(C)
    except (TypeError, ValueError):
        return  # the estimator's own check names a bad C
    if sample_weight is None or sample_weight.size < 2 or not np.any(sample_weight > 0):
        return
    second, first = np.partition(sample_weight, -2)[-2:]  # the heaviest pair's two weights
    log_cost = np.log10(first) + np.log10(max(second, 1e-320)) + np.log10(max(float(C), 1e-300))
    if log_cost > np.log10(10.0 * MAX_C):
        raise ValueError(
            f"sample_weight reaches {first:.3g} and {second:.3g}: a pair weighs the product "
            f"of its items' weights, and C x that reaches 1e{log_cost:.0f}, too large to "
            f"solve in double precision (at most {10 * MAX_C:g}); rescale sample_weight "
            "(only its ratios and C together matter).")
    if second > 0 and first * second < 1e-300:
        raise ValueError(
            f"sample_weight is at most {first:.3g}: a pair weighs the product of its "
            "items' weights, which underflows in double precision; rescale sample_weight "
            "(only its ratios matter).")


def _fit_pairs_of(estimator, X, y, groups, max_pairs, sample_weight):
    X, y, groups = check_items(X, y, groups)
    sample_weight = check_sample_weight(sample_weight, X.shape[0])
    _check_pair_weights(sample_weight, estimator.C)
    # OrdinalSVM's max_pairs caps formed pairs and does not decide "auto".
    if _all_pairs(estimator, getattr(estimator, "max_pairs_per_group", None)):
        return X, _fit_all_pairs(estimator, X, y, groups, sample_weight)
    first, second, labels = pair_indices(y, groups, estimator.ties, max_pairs,
                                         estimator.random_state)
    if labels.size == 0 or not np.any(labels != 0):
        raise _no_pairs_error()
    model = _pair_model(estimator, estimator.ties)
    pair_weight = None if sample_weight is None else sample_weight[first] * sample_weight[second]
    model.fit(np.stack([X[first], X[second]], axis=1), labels, sample_weight=pair_weight)
    estimator.n_pairs_ = int(labels.size)
    return X, model


def _pair_item_weights(y, groups, ties, sample_weight):
    """Each item's weight among the stacked items of the formed pairs: the sum
    of the weights of its pairs (a pair weighs the product of its items'
    weights), so without sample_weight its number of pairs.

    The formed pairs' fit standardizes over their 2 m stacked items, where an
    item of a large query, or with many items of other grades, counts once
    per pair; standardizing each item once instead changes the scales, hence
    the penalty and the solution.  O(items), no pair listed.
    """
    w = np.ones(y.size) if sample_weight is None else sample_weight
    group = np.unique(groups, return_inverse=True)[1].ravel()
    paired = np.bincount(group, weights=w)[group]
    if ties == "keep":
        paired -= w  # every other item of its group
    else:  # the items of its group with another grade
        grade = np.unique(y, return_inverse=True)[1].ravel()
        cell = np.unique(group * (int(grade.max()) + 1) + grade, return_inverse=True)[1].ravel()
        paired -= np.bincount(cell, weights=w)[cell]
    return w * np.maximum(paired, 0.0)


def _fit_all_pairs(estimator, X, y, groups, sample_weight):
    """The pair model fitted by the all-pairs solver on standardized items."""
    from .solvers.all_pairs import graded_problem, solve_all_pairs

    model = _pair_model(estimator, estimator.ties)
    kernel = check_parameters(model)
    item_weight = _pair_item_weights(y, groups, estimator.ties, sample_weight)
    if not np.any(item_weight > 0):
        raise _no_pairs_error()
    # The formed pairs' standardization (items weighted by their pairs, and as
    # many items as their 2 m stacked ones), so that both fits solve one
    # problem: the same objective and solution.
    present = None if sample_weight is None else (sample_weight > 0).astype(float)
    stacked = float(_pair_item_weights(y, groups, estimator.ties, present).sum())
    scaler = Standardizer.fit_items(X, item_weight, n_items=stacked)
    Z = scaler.transform_items(X)
    problem = graded_problem(Z, y, groups, float(estimator.C), ties=estimator.ties,
                             class_weight=estimator.class_weight, weight=sample_weight)
    if problem.n_strict == 0:
        raise _no_pairs_error()
    if estimator.ties == "keep" and problem.n_tie_rows == 0:
        raise ValueError(
            "ties='keep' learns from pairs of equal grade as well (SVMCompare needs both), "
            "and no two items of the same group share a grade; use ties='drop'."
        )
    # The pairs the model trains on (as the materialized fit's threshold sees them).
    # SVMCompare here raises rather than fall back, so its threshold is c_1 of
    # eq. (5) and needs no training pairs.
    if estimator.ties == "keep":
        first = second = labels = np.zeros(0, dtype=np.int64)
    elif problem.n_pairs <= THRESHOLD_PAIRS:
        first, second, labels = pair_indices(y, groups, estimator.ties)
    else:
        first, second, labels = sample_pair_indices(y, groups, THRESHOLD_PAIRS,
                                                    estimator.random_state)
        strict = labels != 0  # ties dropped: the model's pairs are the strict ones
        first, second, labels = first[strict], second[strict], labels[strict]
    sample = np.stack([Z[first], Z[second]], axis=1)
    del Z  # the problem holds its own copy, in block order
    with solver_threads(estimator.n_jobs):
        result = solve_all_pairs(problem, bias=estimator.ties == "keep", tol=estimator.tol)
    # Each sampled pair weighs as its formed pair does: the product of its items' weights.
    weight = None if sample_weight is None else np.asarray(sample_weight, dtype=float)
    pair_weight = None if weight is None else weight[first] * weight[second]
    store_all_pairs(model, scaler, kernel, result, sample, labels, pair_weight)
    estimator.n_pairs_ = problem.n_pairs
    return model


class GroupRankSVM(RegressorMixin, BaseEstimator):
    """RankSVM by the pairwise transform inside query groups (the tutorial's model).

    ``fit`` learns from every pair of items of the same group: :class:`SVMRank`
    on the pairs with different grades (``ties="drop"``, the tutorial) or
    :class:`SVMCompare` on all of them, equal grades as y = 0
    (``ties="keep"``).  The learned r(x) scores items.

    With the linear kernel the pairs are never formed (``pairs="all"``,
    :mod:`svmcompare.solvers.all_pairs`): the loss over a group's O(n^2)
    pairs is summed from its items sorted by score, so millions of items in
    groups of hundreds train in seconds to a minute, with the same
    objective and solution as the formed pairs (the features standardized
    as theirs: over the pairs' stacked items, an item once per pair it is
    in).  Other kernels form them (:func:`svmcompare.pairwise_transform`,
    ``pairs="materialize"``).

    Parameters
    ----------
    C, kernel, gamma, degree, coef0, tol, solver, n_jobs :
        Passed to the pair model (see :class:`SVMCompare`); the default
        kernel is linear, as in the tutorial.  ``n_jobs`` also sets the
        threads of the all-pairs solver (None: every core).
    ties : {"drop", "keep"}, default="drop"
    class_weight : None, "auto", "balanced" or dict, default=None
        For ``ties="keep"`` (SVMCompare's class weights).
    pairs : {"auto", "all", "materialize"}, default="auto"
        "all": train on every within-group pair without forming pairs
        (linear kernel only; time O(n log n + K n) per pass over a group of
        n items with K grades, memory O(n p)).  "materialize": form the
        pairs (any kernel; memory O(pairs x p)).  "auto": "all" for the
        linear kernel unless ``max_pairs_per_group`` asks for a subsample.
    max_pairs_per_group : int, optional
        Subsample the pairs of large groups (``pairs="materialize"``).
    random_state : int or None
        Seed of that subsampling (and of the training pairs drawn to choose
        SVMRank's threshold in an all-pairs fit with more than 200,000 pairs).

    Attributes
    ----------
    pair_model_ : SVMRank or SVMCompare
        The fitted pair model (``solver_ == "all-pairs"`` when the pairs were
        not formed; it then has no support vectors, and SVMRank's threshold
        of eq. (6) is chosen on at most 200,000 training pairs drawn at random).
    n_pairs_ : int
        Pairs trained on (strict pairs, plus the pairs of equal grade with
        ``ties="keep"``).
    coef_ : ndarray
        Ranking weights (linear kernel).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        The column names of ``X`` when ``fit`` got a DataFrame with text
        column names; ``rank`` / ``predict`` / ``score`` then refuse a
        DataFrame with other columns or another order.

    Notes
    -----
    ``groups`` is a fit parameter.  In ``GridSearchCV`` / ``cross_validate``
    with ``GroupKFold``, the ``groups`` passed to the search's ``fit`` go to
    the splitter only, unless metadata routing is enabled::

        sklearn.set_config(enable_metadata_routing=True)
        model = GroupRankSVM().set_fit_request(groups=True).set_score_request(groups=True)
        GridSearchCV(model, grid, cv=GroupKFold(3)).fit(X, y, groups=groups)

    Then each fit and each score (mean Kendall tau per group) sees the groups
    of its rows.  Without routing, each training fold is one group.
    """

    def __init__(self, *, C=1.0, kernel="linear", gamma=1.0, degree=3, coef0=1.0, ties="drop",
                 class_weight=None, pairs="auto", max_pairs_per_group=None, tol=1e-3,
                 solver="auto", n_jobs=None, random_state=None):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.ties = ties
        self.class_weight = class_weight
        self.pairs = pairs
        self.max_pairs_per_group = max_pairs_per_group
        self.tol = tol
        self.solver = solver
        self.n_jobs = n_jobs
        self.random_state = random_state

    def fit(self, X, y, groups=None, sample_weight=None):
        """Fit on items ``X`` (n, p) with grades ``y`` and optional query ids ``groups``.

        ``sample_weight`` (n,) weighs items: a pair weighs the product of its
        items' weights (with ``ties="drop"`` an integer weight k is k copies
        of the item; with ties kept, copies would also tie with each other).
        """
        names = _item_feature_names(X)
        X, self.pair_model_ = _fit_pairs(self, X, y, groups, self.max_pairs_per_group,
                                         sample_weight)
        self.n_features_in_ = X.shape[1]
        _record_feature_names(self, names)
        return self

    def rank(self, X):
        """Scores r(x) of items: larger is better.  A DataFrame must have the
        columns ``fit`` saw (``feature_names_in_``), in the same order."""
        _check_item_names(self, X)
        return self.pair_model_.rank(X)

    decision_function = rank

    def predict(self, X):
        """Scores r(x) of items ``X`` (n, p), as :meth:`rank`: the regressor's
        prediction (so ``cross_val_predict`` and the like work on items)."""
        return self.rank(X)

    def compare(self, X):
        """Order pairs of items: ``X`` of shape (n_pairs, 2, p) -> {-1, 0, 1}
        by the pair model's comparison c_tau (eq. 4)."""
        check_is_fitted(self)
        if hasattr(X, "columns"):
            # Wide pairs (a_<name>, b_<name>): the pair model checks the names.
            return self.pair_model_.predict(X)
        X = np.asarray(X)
        if X.ndim == 2:
            raise ValueError("compare orders pairs (an array of shape (n_pairs, 2, n_features)); "
                             "predict(X) or rank(X) gives the scores of items.")
        return self.pair_model_.predict(check_pairs(X))

    def score(self, X, y, groups=None):
        """Mean Kendall tau per group between grades ``y`` and the scores of ``X``."""
        return kendall_tau_per_group(y, self.rank(X), groups)[0]

    @property
    def coef_(self):
        """Ranking weights w with r(x) = w^T x + constant (linear kernel)."""
        check_is_fitted(self)
        return self.pair_model_.coef_


THRESHOLDS = ("midpoint", "error")


def _weighed(r, ranks, weight):
    """The items that weigh something (all without weights): an item of
    weight 0 is left out of the thresholds as of the pairs (an attack, stop
    70: the thresholds counted them, the pair model did not)."""
    if weight is None:
        return r, ranks, np.ones(r.size)
    on = weight > 0
    return r[on], ranks[on], weight[on]


def _midpoint_thresholds(r, ranks, q, weight=None):
    """theta_k halfway between the closest utilities of ranks k and k+1 (Herbrich),
    among the items that weigh something."""
    r, ranks, _ = _weighed(r, ranks, weight)
    return np.array([(r[ranks == k].max() + r[ranks == k + 1].min()) / 2 for k in range(q - 1)])


def _error_thresholds(r, ranks, q, weight=None):
    """theta_k minimizing the weighted training errors of 'rank <= k' against
    'rank > k' (an item of weight k counts as k items)."""
    r, ranks, w = _weighed(r, ranks, weight)
    order = np.argsort(r, kind="stable")
    rs, ks, ws = r[order], ranks[order], w[order]
    cuts = np.concatenate([[rs[0] - 1.0], (rs[:-1] + rs[1:]) / 2, [rs[-1] + 1.0]])
    thetas = []
    for k in range(q - 1):
        above = np.where(ks > k, ws, 0.0)
        below = ws - above
        # Errors at cut c: items of rank > k below it plus items of rank <= k
        # above it (a sum from the end: a total less a sum came out -1e-17,
        # and a relative tolerance on a negative minimum found no cut).
        errors = np.concatenate([[0.0], np.cumsum(above)]) + \
            np.concatenate([np.cumsum(below[::-1])[::-1], [0.0]])
        best = np.flatnonzero(errors <= errors.min() + 1e-12 * ws.sum())
        thetas.append(cuts[best[len(best) // 2]])
    return np.array(thetas)


def _ordinal_labels(y):
    """(classes_, ranks): the ordinal labels in their order and each item's
    rank 0, ..., q - 1 among them.

    The order must be known: numbers (sorted), or an ordered pandas
    Categorical (its categories' order; those absent from ``y`` are left
    out).  Text would be sorted alphabetically ("high" < "low" < "medium")
    and so is refused, as is a missing label: NaN would sort as a top grade
    of its own and be predicted.
    """
    import pandas as pd

    dtype = getattr(y, "dtype", None)
    if isinstance(dtype, pd.CategoricalDtype) and not dtype.ordered \
            and pd.api.types.is_numeric_dtype(dtype.categories.dtype):
        # Numbers stored as categories: their order is the numbers' own.
        _check_no_missing_label(np.asarray(pd.isna(y)).ravel())
        y, dtype = np.asarray(y, dtype=dtype.categories.dtype), None
    if isinstance(dtype, pd.CategoricalDtype):
        if not dtype.ordered:
            raise TypeError(
                "y is an unordered Categorical, so the order of its labels is not known; "
                "grades must be numbers or an ordered Categorical, e.g. pd.Categorical(y, "
                f"categories={list(dtype.categories)[:3]!r}, ordered=True) with the "
                "categories from lowest to highest.")
        codes = np.asarray(pd.Categorical(y).codes, dtype=np.int64).ravel()
        _check_no_missing_label(codes < 0)
        present, ranks = np.unique(codes, return_inverse=True)
        return np.asarray(dtype.categories[present]), ranks.ravel()
    if isinstance(dtype, pd.api.extensions.ExtensionDtype):  # nullable Int64, Float64, ...
        if pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype):
            _check_no_missing_label(np.asarray(pd.isna(y)).ravel())
            y = y.to_numpy(dtype=dtype.numpy_dtype)
    values = np.asarray(y)
    if values.dtype == object and values.size and all(
            isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values.ravel()):
        values = np.asarray(values.tolist())
    if values.dtype.kind not in "biuf":
        shown = list(dict.fromkeys(values.ravel().tolist()))[:3]
        raise TypeError(
            f"y holds labels of dtype {values.dtype} ({shown!r}...) whose order is not "
            "known (text would be sorted alphabetically); grades must be numbers or an "
            "ordered pandas Categorical, e.g. pd.Categorical(y, categories=[lowest, ..., "
            "highest], ordered=True).")
    if values.dtype.kind == "f":
        _check_no_missing_label(np.isnan(values).ravel())
        if np.isinf(values).any():
            raise ValueError("y contains infinity; ordinal labels must be finite numbers.")
    return np.unique(values, return_inverse=True)


def _check_no_missing_label(missing):
    if missing.any():
        raise ValueError(
            f"y has {int(missing.sum())} missing label(s) (NaN; the first at position "
            f"{int(np.flatnonzero(missing)[0])}); every training item needs a rank: leave "
            "the unlabeled items out of fit.")


class OrdinalSVM(ClassifierMixin, BaseEstimator):
    """Ordinal regression by large-margin rank boundaries (Herbrich et al. 1999).

    Herbrich et al. model ranks r_1 < ... < r_q as intervals of a utility
    U(x): ``fit`` learns U from pairs of items with different ranks (a
    RankSVM: :class:`SVMRank` on the pairs, ``ties="drop"``), or with the
    equal-rank pairs kept as ties (:class:`SVMCompare`, ``ties="keep"``), so
    that they pull the utilities of equally ranked items together.  Then
    q - 1 rank boundaries theta_1 <= ... <= theta_{q-1} are placed on U, and
    ``predict`` returns r_k for theta_{k-1} < U(x) <= theta_k.

    ``thresholds="midpoint"`` is Herbrich et al.'s rule: theta_k =
    (U(x_1) + U(x_2)) / 2 for the pair (x_1 of rank k, x_2 of rank k+1) with
    the smallest utility difference U(x_2) - U(x_1), i.e. halfway between
    the largest utility of rank k and the smallest of rank k+1 (on separable
    data, the middle of the margin).  ``"error"`` places each theta_k where
    it misclassifies the fewest training items as above or below rank k,
    which behaves better when the ranks overlap.  Either way, thresholds are
    then made non-decreasing (a running maximum).

    Parameters
    ----------
    C, kernel, gamma, degree, coef0, tol, solver, n_jobs, class_weight :
        As :class:`GroupRankSVM`.
    ties : {"drop", "keep"}, default="drop"
    thresholds : {"midpoint", "error"}, default="midpoint"
    pairs : {"auto", "all", "materialize"}, default="auto"
        As :class:`GroupRankSVM` (the items form one group): "all" trains on
        every pair of the training items without forming them (linear kernel;
        "auto" takes it for the linear kernel).
    max_pairs : int or None, default=20000
        With ``pairs="materialize"``: pairs are all two-item sets of the
        training data (O(n^2)); at most this many, drawn at random, are used.
    random_state : int or None
        Seed of the pair subsampling.

    Attributes
    ----------
    classes_ : ndarray
        The ranks from lowest to highest: the sorted numbers of ``y``, or the
        categories of an ordered pandas Categorical ``y`` in its order (those
        present in ``y``).
    thresholds_ : ndarray of shape (q - 1,)
    pair_model_ : SVMRank or SVMCompare
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        As :class:`GroupRankSVM`: set when fitted on a DataFrame, whose
        columns (names and order) ``predict`` then requires.
    """

    def __init__(self, *, C=1.0, kernel="linear", gamma=1.0, degree=3, coef0=1.0, ties="drop",
                 thresholds="midpoint", class_weight=None, pairs="auto", max_pairs=20_000,
                 tol=1e-3, solver="auto", n_jobs=None, random_state=None):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.ties = ties
        self.thresholds = thresholds
        self.class_weight = class_weight
        self.pairs = pairs
        self.max_pairs = max_pairs
        self.tol = tol
        self.solver = solver
        self.n_jobs = n_jobs
        self.random_state = random_state

    def fit(self, X, y, sample_weight=None):
        """Fit on items ``X`` (n, p) with ordinal labels ``y`` (at least two levels);
        ``sample_weight`` (n,) weighs items as in :class:`GroupRankSVM`.

        ``y`` holds numbers (larger is higher) or is an ordered pandas
        Categorical (its categories from lowest to highest); text or an
        unordered Categorical is refused (its order is not known), and so
        is a missing label.
        """
        if self.thresholds not in THRESHOLDS:
            raise ValueError(f"thresholds must be one of {THRESHOLDS}; got {self.thresholds!r}.")
        check_positive(self.max_pairs, "max_pairs", integer=True, allow_none=True)
        self.classes_, ranks = _ordinal_labels(y)
        if self.classes_.size < 2:
            raise ValueError("OrdinalSVM needs at least two distinct ranks in y.")
        # max_pairs caps formed pairs only: "auto" still takes every pair when
        # the kernel is linear.
        names = _item_feature_names(X)
        X, self.pair_model_ = _fit_pairs(self, X, ranks, None, self.max_pairs, sample_weight)
        r = self.pair_model_.rank(X)
        rule = _midpoint_thresholds if self.thresholds == "midpoint" else _error_thresholds
        weight = None if sample_weight is None else check_sample_weight(sample_weight, r.size)
        if weight is not None:
            unweighed = np.setdiff1d(np.arange(self.classes_.size), ranks[weight > 0])
            if unweighed.size:
                raise ValueError(f"y's level {self.classes_[unweighed[0]].item()!r} has no item of "
                                 "positive sample_weight: no threshold can be placed below or "
                                 "above it; give some of its items weight, or leave it out.")
        self.thresholds_ = np.maximum.accumulate(rule(r, ranks, self.classes_.size, weight))
        self.n_features_in_ = X.shape[1]
        _record_feature_names(self, names)
        return self

    def decision_function(self, X):
        """Utilities U(x) of items (a DataFrame: the columns ``fit`` saw, in order)."""
        _check_item_names(self, X)
        return self.pair_model_.rank(X)

    def predict(self, X):
        """Ordinal labels: the rank whose interval of U contains U(x)."""
        index = np.searchsorted(self.thresholds_, self.decision_function(X), side="left")
        return self.classes_[index]
