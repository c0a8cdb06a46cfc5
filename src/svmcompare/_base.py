"""Machinery shared by the kernel comparison estimators.

Every estimator here learns a ranking function r(z) = sum_j c_j k(e_j, z) over
a set of expansion items e_j (standardized training items), then compares a
pair by the thresholded rank difference c_tau(x, x') = t_tau(r(x') - r(x))
(eqs. 4 and 5).  Subclasses say which binary problem to build from the pairs,
whether it has a bias, and how to turn its dual solution into the c_j and the
threshold tau.
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ._pairs import LABELS, Standardizer, check_labels, check_pairs, check_pairs_labels
from .kernels import resolve_kernel
from .solvers import solve_dual

_CHUNK_ELEMENTS = 1 << 22  # kernel block entries per chunk when evaluating r(z)


def check_positive(value, name, *, integer=False, allow_none=False):
    """Raise a clear error unless ``value`` is a positive finite number."""
    if value is None and allow_none:
        return
    kind = numbers.Integral if integer else numbers.Real
    if not isinstance(value, kind) or isinstance(value, bool):
        what = "a positive integer" if integer else "a positive number"
        raise TypeError(f"{name} must be {what}; got {value!r}.")
    if not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be positive and finite; got {value}.")


def threshold_compare(diff, tau):
    """t_tau of eq. (4) applied to rank differences r(x') - r(x)."""
    out = np.zeros(diff.shape, dtype=np.int64)
    out[diff > tau] = 1
    out[diff < -tau] = -1
    return out


def row_expansion(a, b, row_coef, n_items):
    """Item coefficients c of r(z) = sum_j c_j k(Z_j, z) from per-row coefficients.

    Row t is Phi(Z[b_t]) - Phi(Z[a_t]), so its coefficient adds to item b_t and
    subtracts from item a_t.  Returns the indices of the items with a nonzero
    coefficient and those coefficients.
    """
    c = np.zeros(n_items)
    np.add.at(c, b, row_coef)
    np.subtract.at(c, a, row_coef)
    nonzero = np.flatnonzero(c)
    return nonzero, c[nonzero]


class PairwiseKernelModel(ClassifierMixin, BaseEstimator):
    """Base class: fit a kernel ranking function from labeled pairs.

    Subclasses implement ``_check_label_set``, ``_binary_problem``,
    ``_finish_fit`` and may override ``_uses_bias``.
    """

    _uses_bias = False

    def _validate_params(self):
        check_positive(self.C, "C")
        check_positive(self.tol, "tol")
        check_positive(self.cache_size, "cache_size")
        check_positive(self.max_iter, "max_iter", integer=True, allow_none=True)
        return resolve_kernel(self.kernel, self.gamma, self.degree, self.coef0)

    def fit(self, X, y):
        """Fit the model on labeled pairs.

        Parameters
        ----------
        X : array-like of shape (n_pairs, 2, n_features)
            ``X[:, 0]`` holds x and ``X[:, 1]`` holds x'.
        y : array-like of shape (n_pairs,)
            Labels in {-1, 0, 1} (eq. 1): 1 if x' is better, -1 if x is
            better, 0 for no significant difference.

        Returns
        -------
        self
        """
        kernel = self._validate_params()
        X, y = check_pairs_labels(X, y)
        self._check_label_set(y)
        scaler = Standardizer.fit(X)
        Xs = scaler.transform_pairs(X)
        problem = self._binary_problem(Xs, y)
        result = solve_dual(
            problem, kernel, bias=self._uses_bias, tol=self.tol,
            max_iter=self.max_iter, cache_size=self.cache_size,
        )
        # May raise (SVMCompare with beta >= 0) before any fitted state is set.
        row_coef = self._row_coefficients(problem, result)
        sv = np.flatnonzero(result.alpha > 0)
        keep, coef = row_expansion(problem.a[sv], problem.b[sv], row_coef[sv],
                                   problem.items.shape[0])
        self.n_features_in_ = X.shape[2]
        self.classes_ = np.array(LABELS)
        self.scaler_ = scaler
        self.kernel_ = kernel
        self.dual_objective_ = result.objective
        self.kkt_violation_ = result.kkt_violation
        self.n_iter_ = result.n_iter
        self.support_ = sv
        self.dual_coef_ = problem.y[sv] * result.alpha[sv]
        self.n_support_ = np.array(
            [np.count_nonzero(problem.y[sv] < 0), np.count_nonzero(problem.y[sv] > 0)]
        )
        self.intercept_ = float(result.bias)
        self.expansion_items_ = problem.items[keep]
        self.expansion_coef_ = coef
        self._finish_fit(Xs, y)
        return self

    # -- the ranking function and what derives from it ---------------------

    def _rank_standardized(self, Zs):
        """r(z) on standardized items, evaluated in bounded-memory chunks."""
        E, c = self.expansion_items_, self.expansion_coef_
        out = np.zeros(Zs.shape[0])
        if c.size == 0:
            return out
        step = max(1, _CHUNK_ELEMENTS // c.size)
        for start in range(0, Zs.shape[0], step):
            block = self.kernel_.block(Zs[start:start + step], E)
            out[start:start + step] = block @ c
        return out

    def rank(self, Z):
        """The learned ranking function r(z): larger is better.

        Parameters
        ----------
        Z : array-like of shape (n_items, n_features)

        Returns
        -------
        r : ndarray of shape (n_items,)
        """
        check_is_fitted(self)
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
        return self._rank_standardized(self.scaler_.transform_items(Z))

    def decision_function(self, X):
        """Rank differences r(x') - r(x) of each pair.

        Parameters
        ----------
        X : array-like of shape (n_pairs, 2, n_features)

        Returns
        -------
        diff : ndarray of shape (n_pairs,)
        """
        check_is_fitted(self)
        X = check_pairs(X, n_features=self.n_features_in_)
        return self._decision_standardized(self.scaler_.transform_pairs(X))

    def _decision_standardized(self, Xs):
        n = Xs.shape[0]
        r = self._rank_standardized(np.concatenate([Xs[:, 0], Xs[:, 1]], axis=0))
        return r[n:] - r[:n]

    def predict(self, X):
        """Compare each pair: c_tau(x, x') = t_tau(r(x') - r(x)) (eqs. 4, 5).

        Returns
        -------
        y_pred : ndarray of shape (n_pairs,) with values in {-1, 0, 1}
        """
        return threshold_compare(self.decision_function(X), self._threshold())

    def score(self, X, y, sample_weight=None):
        """Fraction of pairs compared correctly (1 - zero-one loss, eq. 2)."""
        X = check_pairs(X)
        y = check_labels(y, n_pairs=X.shape[0])
        correct = self.predict(X) == y
        return float(np.average(correct, weights=sample_weight))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.three_d_array = True
        tags.input_tags.two_d_array = False
        return tags
