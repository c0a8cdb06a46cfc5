"""The fitted ranking function r(z) and the comparisons every estimator derives from it.

Every pair estimator here ends its fit with one :class:`RankingFunction`
(``ranking_``): the state that scoring needs and nothing else, so that
:meth:`ComparisonMixin.rank`, ``decision_function``, ``predict`` and
``score`` are written once, whatever problem or solver produced r:

* an expansion r(z) = sum_j c_j k(e_j, z) over standardized items e_j (the
  kernel dual, eq. 17 with Lemma 1's scale; the kernel LP), or
* weights r(z) = w^T phi(z), phi the identity or a feature map (the primal
  linear solver, Nystroem, the hard-margin LP and QP),

on items standardized as at fit time, plus the coefficients v of the pair
context (d = r(x') - r(x) + v^T context).  Comparing a pair is then
c_tau(x, x') = t_tau(d) (eqs. 4 and 5) with the estimator's ``threshold_``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._threshold import labels_at_threshold
from ._validation import (
    LABELS,
    check_context,
    check_feature_names,
    check_labels,
    check_pairs,
    check_same_feature_names,
    column_names,
    pair_feature_names,
)
from .kernels import LINEAR
from .sparse_pairs import SparsePairs

# Entries of one dense block of sparse items ranked by a kernel model (64 MB).
_DENSE_BLOCK_ENTRIES = 8_000_000


def _check_fitted(estimator):
    """scikit-learn's NotFittedError before ``fit``; sklearn is imported only
    then, so that scoring a saved model (``svmcompare predict``) needs none."""
    if "ranking_" not in vars(estimator):
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(estimator, "ranking_")


def _ranking_part(name, doc):
    """A read-only attribute of the estimator that is ``ranking_.<name>``."""

    def get(estimator):
        _check_fitted(estimator)
        return getattr(estimator.ranking_, name)

    return property(get, doc=doc)


_FEATURE_CHUNK_ELEMENTS = 1 << 22  # feature-map entries held at once by rank_standardized


class RankingFunction:
    """r(z) on standardized items, with the pair context's coefficients.

    Parameters
    ----------
    scaler : Standardizer
        The fit's standardization of items.
    kernel : KernelSpec
    items, coef : ndarray, optional
        Expansion items (standardized) and their coefficients c_j.
    weights : ndarray, optional
        w of r(z) = w^T phi(z) (instead of an expansion).
    feature_map : NystroemMap, optional
        phi; the identity when None.
    context_coef : ndarray of shape (q,), optional
        v, when the fit had a pair context.
    """

    def __init__(self, scaler, kernel, *, items=None, coef=None, weights=None,
                 feature_map=None, context_coef=None):
        if (weights is None) == (items is None):
            raise ValueError("A ranking function has either an expansion or weights.")
        self.scaler = scaler
        self.kernel = kernel
        self.items = items
        self.coef = coef
        self.weights = weights
        self.feature_map = feature_map
        self.context_coef = context_coef

    @property
    def n_features_in(self):
        return self.scaler.keep.size

    @property
    def n_context(self):
        return 0 if self.context_coef is None else self.context_coef.size

    def rank_standardized(self, Zs):
        """r(z) of standardized items, in bounded-memory chunks."""
        # One memory layout: BLAS sums a Fortran-ordered block (pairs from a
        # DataFrame) in another order, and the same pairs would score
        # differently in the last bits.
        if sp.issparse(Zs):  # sparse items: a linear model (weights, no feature map)
            if self.weights is None or self.feature_map is not None:
                raise ValueError(
                    f"sparse pairs are scored by linear models only (kernel='linear' "
                    f"without Nystroem), as they are fitted; this model has kernel="
                    f"{self.kernel.name!r}"
                    + (" with a Nystroem feature map" if self.feature_map is not None else "")
                    + ": pass a dense array.")
            return np.asarray(Zs @ self.weights).ravel()
        Zs = np.ascontiguousarray(Zs)
        if self.weights is None:
            return self.kernel.block_dot(Zs, self.items, self.coef)
        if self.feature_map is None:
            return Zs @ self.weights
        # An approximate feature map's features, a chunk of items at a time:
        # all at once they were the peak of a probability fit (2,000,000
        # items x 100 landmarks, 1.6 GB, for the link's training spread).
        out = np.empty(Zs.shape[0])
        step = max(1, _FEATURE_CHUNK_ELEMENTS // max(self.weights.size, 1))
        for start in range(0, Zs.shape[0], step):
            rows = slice(start, start + step)
            out[rows] = self.feature_map.transform(Zs[rows]) @ self.weights
        return out

    def difference(self, Xs, context=None):
        """d = r(x') - r(x) (+ v^T context) of standardized pairs."""
        n = Xs.shape[0]
        if isinstance(Xs, SparsePairs):
            r = self.rank_standardized(Xs.items())
            d = r[n:] - r[:n]
        else:
            # The items interleaved (x_0, x'_0, x_1, ...): a view of C-ordered
            # pairs, where stacking the two sides copied every pair (75 MB a
            # call at 20,000 pairs of 237 features; 9 s of a 20,000-pair search).
            r = self.rank_standardized(Xs.reshape(2 * n, Xs.shape[2]))
            d = r[1::2] - r[::2]
        if context is not None:
            d = d + context @ self.context_coef
        return d

    def linear_coef(self):
        """w with r(z) = w^T z + constant in input units (linear kernel only);
        dropped constant features get weight 0."""
        if self.kernel.code != LINEAR or self.feature_map is not None:
            raise AttributeError("coef_ exists only for kernel='linear' without Nystroem.")
        w_std = self.weights if self.weights is not None else self.items.T @ self.coef
        coef = np.zeros(self.n_features_in)
        coef[self.scaler.keep] = w_std / self.scaler.scale
        return coef


def check_cost(cost):
    """``cost`` as a (3, 3) float array (rows: true label -1, 0, 1; columns:
    predicted label), or None."""
    if cost is None:
        return None
    try:
        matrix = np.asarray(cost, dtype=np.float64)
    except OverflowError:  # an integer past float's range
        raise ValueError("cost must be a finite 3 x 3 matrix; it holds a number too large for "
                         "a float.") from None
    except (TypeError, ValueError) as exc:
        raise TypeError(f"cost must be a 3 x 3 matrix of numbers; got {str(cost)[:200]}.") \
            from exc
    got = f"got shape {matrix.shape}" if matrix.shape != (3, 3) else \
        "got NaN or infinity in it"
    if matrix.shape != (3, 3) or not np.all(np.isfinite(matrix)):
        raise ValueError("cost must be a finite 3 x 3 matrix: cost[i, j] is the cost of "
                         "predicting labels[j] when the truth is labels[i] (labels -1, 0, 1); "
                         f"{got}.")
    return matrix


def least_cost_labels(proba, cost=None):
    """The labels -1, 0, 1 of least expected cost under ``proba`` (n, 3):
    argmin_j sum_i P(i) cost[i, j]; zero-one cost (None): the most probable."""
    expected = -proba if cost is None else proba @ check_cost(cost)
    labels = np.asarray(LABELS)[np.argmin(expected, axis=1)]
    if cost is not None:
        return labels  # a cost matrix says what each label costs, ties of costs too
    # x better and x' better equally good (a pair of equals on neutral ground,
    # up to rounding): argmin would take the first, -1, and break the swap
    # symmetry predict(x, x') = -predict(x', x); the tie is the symmetric answer.
    best = expected.min(axis=1)
    rounding = 1e-12 * np.maximum(np.abs(expected).max(axis=1), 1e-300)
    both = (expected[:, 0] - best <= rounding) & (expected[:, 2] - best <= rounding)
    labels[both] = 0
    return labels


def _finite_output(values, what):
    """``values``, or a ValueError when some are NaN or infinite: inputs or a
    model so extreme that double precision overflows (never silent NaN)."""
    if not np.all(np.isfinite(values)):
        raise ValueError(f"The model's {what} overflow to NaN or infinity on these inputs: "
                         "the inputs or the model hold values beyond double precision's range "
                         "(check for extreme features or a damaged model file).")
    return values


class ComparisonMixin:
    """``rank``, ``decision_function``, ``predict``, ``score`` and ``coef_`` of an
    estimator whose fit set ``ranking_`` (a :class:`RankingFunction`) and
    ``threshold_`` (through :func:`set_ranking`)."""

    # The ranking function's parts, under the names scikit-learn users look for.
    expansion_items_ = _ranking_part(
        "items", "Standardized expansion items e_j (None for a weight-vector model).")
    expansion_coef_ = _ranking_part("coef", "Their coefficients c_j.")
    weights_ = _ranking_part(
        "weights", "w of r(z) = w^T phi(z) on standardized items (None for an expansion).")
    feature_map_ = _ranking_part("feature_map", "phi of a Nystroem model (None: the identity).")
    context_coef_ = _ranking_part(
        "context_coef", "v of the pair context's term v^T context (None: fitted without one).")
    n_context_ = _ranking_part("n_context", "Columns of the pair context (0: none).")

    @property
    def coef_(self):
        """Ranking weights w with r(z) = w^T z + constant (linear kernel only).

        In the units of the input features (standardization undone); dropped
        constant features get weight 0.  For SVMCompare this is Lemma 1's
        w = -u / beta.
        """
        _check_fitted(self)
        return self.ranking_.linear_coef()

    def rank(self, Z):
        """The learned ranking function r(z): larger is better.

        Parameters
        ----------
        Z : array-like of shape (n_items, n_features)

        Returns
        -------
        r : ndarray of shape (n_items,)
        """
        _check_fitted(self)
        if sp.issparse(Z):
            return self._rank_sparse(Z)
        check_feature_names(getattr(self, "feature_names_in_", None),
                            [str(c) for c in Z.columns] if hasattr(Z, "columns") else None, "Z")
        Z = np.asarray(Z)
        if Z.dtype == object or Z.dtype.kind not in "biuf":
            raise TypeError(f"Z must be a numeric array; got dtype {Z.dtype}.")
        if Z.ndim != 2:
            raise ValueError(f"Z must be 2-D (n_items, n_features); got shape {Z.shape}.")
        if Z.shape[1] != self.n_features_in_:
            raise ValueError(
                f"Z has {Z.shape[1]} features, but the model was fitted with {self.n_features_in_}."
            )
        Z = Z.astype(np.float64)
        if not np.all(np.isfinite(Z)):
            raise ValueError("Z contains NaN or infinity.")
        return _finite_output(self.ranking_.rank_standardized(self.scaler_.transform_items(Z)),
                              "scores r(x)")

    def _rank_sparse(self, Z):
        """r(z) of sparse items (a linear model): the weights on the scaled
        features, less the mean's share, without centering Z."""
        if Z.ndim != 2 or Z.shape[1] != self.n_features_in_:
            raise ValueError(f"Z must have shape (n_items, {self.n_features_in_}); got {Z.shape}.")
        if self.ranking_.weights is None or self.ranking_.feature_map is not None:
            # A kernel (or Nystroem) model ranks dense rows: the sparse ones a
            # block at a time (a rolling replay of ids with --kernel rbf failed
            # here, telling a command-line user to pass a dense array).
            Z = sp.csr_matrix(Z)
            rows = max(1, _DENSE_BLOCK_ENTRIES // max(1, Z.shape[1]))
            return np.concatenate([np.zeros(0)] + [self.rank(Z[i:i + rows].toarray())
                                                   for i in range(0, Z.shape[0], rows)])
        Z = sp.csr_matrix(Z, dtype=np.float64)
        if not np.all(np.isfinite(Z.data)):
            raise ValueError("Z contains NaN or infinity.")
        scaler, weights = self.scaler_, self.ranking_.weights
        w = weights / scaler.scale
        return _finite_output(
            np.asarray(Z[:, np.flatnonzero(scaler.keep)] @ w).ravel() - scaler.mean @ w,
            "scores r(x)")

    def decision_function(self, X, context=None):
        """Rank differences r(x') - r(x) (+ v^T context) of each pair.

        Parameters
        ----------
        X : array-like of shape (n_pairs, 2, n_features)
        context : array-like of shape (n_pairs, q), optional
            Needed when the model was fitted with a context (see ``fit``).

        Returns
        -------
        diff : ndarray of shape (n_pairs,)
        """
        Xs = standardized_pairs(self, X)
        return _finite_output(
            self.ranking_.difference(Xs, self._checked_context(context, Xs.shape[0])),
            "rank differences")

    def _checked_context(self, context, n_pairs):
        """The validated context of n_pairs pairs: required iff the fit had one;
        a DataFrame's columns as at fit when the fit had named columns."""
        check_context_names(self, context)
        return check_context(context, n_pairs, self.ranking_.n_context)

    def compare(self, X, context=None):
        """The comparison rule c_tau(x, x') = t_tau(r(x') - r(x)) (eqs. 4, 5):
        a tie when the rank difference is within the threshold ``threshold_``.

        Returns
        -------
        y_pred : ndarray of shape (n_pairs,) with values in {-1, 0, 1}
        """
        return labels_at_threshold(self.decision_function(X, context), self.threshold_)

    def predict(self, X, context=None):
        """Labels -1, 0, 1 of each pair.

        A model with probabilities (fitted with ``probability=True``) gives
        the label of least expected cost under :meth:`predict_proba`: with
        ``cost=None``, the most probable outcome (zero-one cost), so that the
        labels agree with the probabilities; with a cost matrix, the label
        that minimizes sum_i P(i) cost[i, j].  Under zero-one cost, where x
        better and x' better are equally good (a decision of 0: a pair of equals, or items far from
        every training item of an RBF model), the tie, even when it is less
        probable than each: the one label that keeps predict(x', x) =
        -predict(x, x').  Without probabilities, the comparison rule
        :meth:`compare` (eqs. 4, 5), which stays available.

        Returns
        -------
        y_pred : ndarray of shape (n_pairs,) with values in {-1, 0, 1}
        """
        if self._has_probabilities():
            return least_cost_labels(probabilities(self, X, context),
                                     getattr(self, "cost", None))
        return self.compare(X, context)

    def _has_probabilities(self):
        """Fitted with probabilities (an estimator refitted without them keeps
        no stale link: ``probability`` says which fit made ``calibrator_``)."""
        return "calibrator_" in vars(self) and bool(getattr(self, "probability", True))

    @property
    def decision_rule_(self):
        """How :meth:`predict` labels pairs: "probability" (least expected
        cost) or "comparison" (t_tau of eq. 4)."""
        _check_fitted(self)
        return "probability" if self._has_probabilities() else "comparison"

    def score(self, X, y, sample_weight=None, context=None):
        """Fraction of pairs compared correctly (1 - zero-one loss, eq. 2)."""
        y_pred = self.predict(X, context)  # validates X (and its feature names)
        y = check_labels(y, n_pairs=y_pred.shape[0])
        correct = y_pred == y
        return float(np.average(correct, weights=sample_weight))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.three_d_array = True
        tags.input_tags.two_d_array = False
        return tags


def standardized_pairs(model, X):
    """Pairs ``X`` validated against a fitted comparison model and standardized
    as at its fit."""
    _check_fitted(model)
    check_same_feature_names(model, X)
    return model.scaler_.transform_pairs(check_pairs(X, n_features=model.n_features_in_))


def rank_gap(model, X):
    """r(x') - r(x) of a fitted model on pairs ``X``, without the context term
    (the input of the probability link)."""
    return model.ranking_.difference(standardized_pairs(model, X))


def score_spread(score):
    """Root mean square of scores (1 when they are all 0): the unit in which a
    model's scores reach the link, so that models whose scores differ only in
    scale (e.g. Lemma 1's 1 / (-beta) for beta near 0) share one link."""
    spread = float(np.sqrt(np.mean(np.square(score)))) if np.size(score) else 0.0
    return spread if spread > 0 and np.isfinite(spread) else 1.0


def set_feature_names(model, X, context=None):
    """Set ``feature_names_in_`` of ``model`` from a wide DataFrame of pairs,
    and ``context_names_in_`` from a context DataFrame; remove each for an
    array (a context's columns are matched by position, so a DataFrame
    with its columns in another order must be refused at prediction)."""
    set_names(model, pair_feature_names(X), column_names(context))


def set_names(model, feature_names, context_names):
    """Set (or, for None, remove) ``feature_names_in_`` and ``context_names_in_``."""
    for attribute, names in (("feature_names_in_", feature_names),
                             ("context_names_in_", context_names)):
        if names is not None:
            setattr(model, attribute, np.asarray(names, dtype=object))
        elif hasattr(model, attribute):
            delattr(model, attribute)


NAME_ATTRIBUTES = ("feature_names_in_", "context_names_in_")


def check_context_names(model, context):
    """Refuse a context DataFrame whose columns differ in name or order from
    those ``model`` was fitted on (``context_names_in_``): a context is read
    by position."""
    check_feature_names(getattr(model, "context_names_in_", None), column_names(context),
                        "context")


def copy_names(source, target):
    """``target`` records the feature and context names ``source`` recorded,
    and no others (a refit on arrays must not keep the names of an earlier fit)."""
    for attribute in NAME_ATTRIBUTES:
        if hasattr(source, attribute):
            setattr(target, attribute, getattr(source, attribute))
        elif hasattr(target, attribute):
            delattr(target, attribute)


def set_ranking(model, scaler, kernel, solver, *, expansion=None, weights=None,
                feature_map=None, context_coef=None):
    """Set ``ranking_`` of ``model`` and the state every comparison estimator shares.

    Either ``expansion = (items, coef)`` for r(z) = sum_j coef_j k(items_j, z), or
    ``weights`` for r(z) = weights^T phi(z) (phi the identity or ``feature_map``),
    on items standardized by ``scaler``.
    """
    items, coef = expansion or (None, None)
    model.ranking_ = RankingFunction(scaler, kernel, items=items, coef=coef,
                                     weights=weights, feature_map=feature_map,
                                     context_coef=context_coef)
    model.kernel_ = kernel
    model.scaler_ = scaler
    model.solver_ = solver
    model.n_features_in_ = scaler.keep.size
    model.classes_ = np.array(LABELS)


def probabilities(model, X, context=None):
    """P(y = -1), P(y = 0), P(y = 1) from the probability link ``calibrator_``
    of a fitted ``model`` on the rank gap r(x') - r(x) in units of
    ``score_scale_``."""
    Xs = standardized_pairs(model, X)
    context = model._checked_context(context, Xs.shape[0])
    gap = _finite_output(model.ranking_.difference(Xs), "rank differences") \
        / model.score_scale_
    link = model.calibrator_
    return _finite_output(link.predict_proba(gap, context, link.tie_features(Xs)),
                          "probabilities")
