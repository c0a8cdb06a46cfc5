"""Estimators on graded items: RankSVM within query groups, and ordinal regression
by large-margin rank boundaries (Herbrich et al. 1999), each optionally learning
from the pairs with equal grades through SVMCompare."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from ._validation import check_pairs, check_positive
from .baselines import SVMRank
from .compare import SVMCompare
from .metrics import kendall_tau_per_group
from .pairs import check_items, pair_indices

_PAIR_PARAMS = ("C", "kernel", "gamma", "degree", "coef0", "tol", "solver")


def _pair_model(estimator, ties):
    """SVMRank on the strict pairs (ties dropped) or SVMCompare with ties kept."""
    params = {name: getattr(estimator, name) for name in _PAIR_PARAMS}
    if ties == "keep":
        # The paper's rule (NoRankingError when beta >= 0): a grid search over
        # these models skips such points, as the ordinal reproduction expects.
        return SVMCompare(class_weight=estimator.class_weight, on_degenerate="raise", **params)
    return SVMRank(**params)


def _fit_pairs(estimator, X, y, groups, max_pairs):
    X, y, groups = check_items(X, y, groups)
    first, second, labels = pair_indices(y, groups, estimator.ties, max_pairs,
                                         estimator.random_state)
    if labels.size == 0 or not np.any(labels != 0):
        raise ValueError(
            "No two items of the same group have different grades, so there is nothing to "
            "rank: every group needs at least two distinct grades."
        )
    model = _pair_model(estimator, estimator.ties)
    model.fit(np.stack([X[first], X[second]], axis=1), labels)
    return X, y, model


class GroupRankSVM(RegressorMixin, BaseEstimator):
    """RankSVM by the pairwise transform inside query groups (the tutorial's model).

    ``fit`` forms every pair of items of the same group
    (:func:`svmcompare.pairwise_transform`) and fits :class:`SVMRank` on the
    pairs with different grades (``ties="drop"``, the tutorial) or
    :class:`SVMCompare` on all of them, equal grades as y = 0
    (``ties="keep"``).  The learned r(x) scores items.

    Parameters
    ----------
    C, kernel, gamma, degree, coef0, tol, solver :
        Passed to the pair model (see :class:`SVMCompare`); the default
        kernel is linear, as in the tutorial.
    ties : {"drop", "keep"}, default="drop"
    class_weight : None, "balanced" or dict, default=None
        For ``ties="keep"`` (SVMCompare's class weights).
    max_pairs_per_group : int, optional
        Subsample the pairs of large groups.
    random_state : int or None
        Seed of that subsampling.

    Attributes
    ----------
    pair_model_ : SVMRank or SVMCompare
        The fitted pair model.
    coef_ : ndarray
        Ranking weights (linear kernel).

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
                 class_weight=None, max_pairs_per_group=None, tol=1e-3, solver="auto",
                 random_state=None):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.ties = ties
        self.class_weight = class_weight
        self.max_pairs_per_group = max_pairs_per_group
        self.tol = tol
        self.solver = solver
        self.random_state = random_state

    def fit(self, X, y, groups=None):
        """Fit on items ``X`` (n, p) with grades ``y`` and optional query ids ``groups``."""
        X, _, self.pair_model_ = _fit_pairs(self, X, y, groups, self.max_pairs_per_group)
        self.n_features_in_ = X.shape[1]
        return self

    def rank(self, X):
        """Scores r(x) of items: larger is better."""
        check_is_fitted(self)
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


def _midpoint_thresholds(r, ranks, q):
    """theta_k halfway between the closest utilities of ranks k and k+1 (Herbrich)."""
    return np.array([(r[ranks == k].max() + r[ranks == k + 1].min()) / 2 for k in range(q - 1)])


def _error_thresholds(r, ranks, q):
    """theta_k minimizing training errors of 'rank <= k' against 'rank > k'."""
    order = np.argsort(r, kind="stable")
    rs, ks = r[order], ranks[order]
    cuts = np.concatenate([[rs[0] - 1.0], (rs[:-1] + rs[1:]) / 2, [rs[-1] + 1.0]])
    thetas = []
    for k in range(q - 1):
        above = ks > k
        # Errors at cut c: items of rank > k below it plus items of rank <= k above it.
        errors = np.concatenate([[0], np.cumsum(above)]) + (
            np.count_nonzero(~above) - np.concatenate([[0], np.cumsum(~above)]))
        best = np.flatnonzero(errors == errors.min())
        thetas.append(cuts[best[len(best) // 2]])
    return np.array(thetas)


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
    C, kernel, gamma, degree, coef0, tol, solver, class_weight :
        As :class:`GroupRankSVM`.
    ties : {"drop", "keep"}, default="drop"
    thresholds : {"midpoint", "error"}, default="midpoint"
    max_pairs : int or None, default=20000
        Pairs are all two-item sets of the training data (O(n^2)); at most
        this many, drawn at random, are used.
    random_state : int or None
        Seed of the pair subsampling.

    Attributes
    ----------
    classes_ : ndarray
        The sorted ranks.
    thresholds_ : ndarray of shape (q - 1,)
    pair_model_ : SVMRank or SVMCompare
    """

    def __init__(self, *, C=1.0, kernel="linear", gamma=1.0, degree=3, coef0=1.0, ties="drop",
                 thresholds="midpoint", class_weight=None, max_pairs=20_000, tol=1e-3,
                 solver="auto", random_state=None):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.ties = ties
        self.thresholds = thresholds
        self.class_weight = class_weight
        self.max_pairs = max_pairs
        self.tol = tol
        self.solver = solver
        self.random_state = random_state

    def fit(self, X, y):
        """Fit on items ``X`` (n, p) with ordinal labels ``y`` (at least two levels)."""
        if self.thresholds not in THRESHOLDS:
            raise ValueError(f"thresholds must be one of {THRESHOLDS}; got {self.thresholds!r}.")
        check_positive(self.max_pairs, "max_pairs", integer=True, allow_none=True)
        self.classes_, ranks = np.unique(np.asarray(y), return_inverse=True)
        if self.classes_.size < 2:
            raise ValueError("OrdinalSVM needs at least two distinct ranks in y.")
        X, _, self.pair_model_ = _fit_pairs(self, X, ranks, None, self.max_pairs)
        r = self.pair_model_.rank(X)
        rule = _midpoint_thresholds if self.thresholds == "midpoint" else _error_thresholds
        self.thresholds_ = np.maximum.accumulate(rule(r, ranks, self.classes_.size))
        self.n_features_in_ = X.shape[1]
        return self

    def decision_function(self, X):
        """Utilities U(x) of items."""
        check_is_fitted(self)
        return self.pair_model_.rank(X)

    def predict(self, X):
        """Ordinal labels: the rank whose interval of U contains U(x)."""
        index = np.searchsorted(self.thresholds_, self.decision_function(X), side="left")
        return self.classes_[index]
