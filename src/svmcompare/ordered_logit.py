"""Ordered logistic regression (the proportional-odds model, McCullagh 1980).

For ordered labels r_1 < ... < r_q and a linear predictor eta(x) = w^T x,

    P(y <= r_k | x) = sigma(theta_k - eta(x)),   k = 1 .. q - 1,

with sigma the logistic function and theta_1 < ... < theta_{q-1} cut
points; P(y = r_k | x) is the difference of consecutive cumulative
probabilities (theta_0 = -inf, theta_q = +inf).  The fit minimizes the
negative log-likelihood plus (alpha / 2) ||w||^2 with L-BFGS; the cut points
are parametrized as theta_1 = c_1, theta_k = theta_{k-1} + exp(c_k), so they
stay ordered without constraints.

It is the baseline "ordinal logistic regression" of the ordinal experiments,
and, on one feature (a rank difference), the link that turns comparison
scores into win / draw / loss probabilities.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ._ordinal_core import ordered_logit_terms
from ._validation import as_float_matrix, check_finite

_TINY = 1e-300


def _cut_points(c):
    """theta from the unconstrained parameters c (theta_1 = c_1, then exp steps)."""
    return np.cumsum(np.concatenate([c[:1], np.exp(c[1:])]))


def _cut_gradient(c, g_theta):
    """The gradient in c from the gradient in theta (d theta_j / d c_i: 1 for
    i = 0, exp(c_i) for 1 <= i <= j, else 0)."""
    tail = np.cumsum(g_theta[::-1])[::-1]  # sum over j >= i of g_theta_j
    return tail * np.concatenate([[1.0], np.exp(c[1:])])


def _mirrored_cut_points(c, q):
    """Cut points symmetric about 0 from unconstrained c: the positive ones
    delta = cumsum(exp(c)), their negatives below, and 0 between them when
    the number of cuts q - 1 is odd."""
    delta = np.cumsum(np.exp(c))
    middle = np.zeros((q - 1) % 2)
    return np.concatenate([-delta[::-1], middle, delta])


def _mirrored_cut_gradient(c, g_theta):
    """The gradient in c of :func:`_mirrored_cut_points` from that in theta."""
    m = c.size
    if m == 0:
        return np.zeros(0)
    g_delta = g_theta[g_theta.size - m:] - g_theta[:m][::-1]
    return np.exp(c) * np.cumsum(g_delta[::-1])[::-1]


def class_probabilities(eta, theta):
    """P(y = r_k) for each row of ``eta`` (n,) under cut points ``theta`` (q - 1,)."""
    cumulative = expit(theta[None, :] - np.asarray(eta, dtype=np.float64)[:, None])
    n = cumulative.shape[0]
    cumulative = np.hstack([np.zeros((n, 1)), cumulative, np.ones((n, 1))])
    return np.maximum(np.diff(cumulative, axis=1), 0.0)


# The work of a row of the likelihood's sweep in entries of a product (two
# exps, a log, three divisions): from 100,000 rows the sweep takes the
# threads a solve would (``threads.threads_for``).
ROW_WORK = 20


def sweep_threads(n_rows):
    """Threads for the sweep over ``n_rows`` rows."""
    from .solvers.threads import threads_for

    return threads_for(ROW_WORK * n_rows)


def _objective(params, X, k, q, alpha, sample_weight, mirrored=False):
    """Penalized negative log-likelihood and its gradient in (w, c); the rows'
    terms in one C sweep (``_ordinal_core``).  ``mirrored``: every row counts
    twice, itself and its mirror (-x, the mirrored label), which under cut
    points symmetric about 0 has the row's own likelihood."""
    p = X.shape[1]
    w, c = params[:p], params[p:]
    theta = _mirrored_cut_points(c, q) if mirrored else _cut_points(c)
    padded = np.concatenate([[-np.inf], theta, [np.inf]])
    d_eta = np.empty(k.size)
    grad_theta = np.zeros(q + 1)
    copies = 2.0 if mirrored else 1.0
    loss = copies * ordered_logit_terms(np.ascontiguousarray(X @ w), k, padded,
                                        sample_weight, d_eta, grad_theta, _TINY,
                                        sweep_threads(k.size))
    grad_w = copies * (X.T @ d_eta) + alpha * w
    cut_gradient = _mirrored_cut_gradient if mirrored else _cut_gradient
    grad_c = copies * cut_gradient(c, grad_theta[1:q])
    return loss + 0.5 * alpha * (w @ w), np.concatenate([grad_w, grad_c])


def _classes(y):
    """``np.unique(y, return_inverse=True)``; integers of a small range by
    counting (1,000,000 labels: 3 ms, not the 37 ms of a hash)."""
    if y.dtype.kind in "iu" and y.size:
        low, high = int(y.min()), int(y.max())
        width = high - low + 1
        if width <= 1024 and high <= np.iinfo(np.int64).max:
            shifted = (y.astype(np.int64) - low).astype(np.intp)  # (no int8 wrap)
            present = np.flatnonzero(np.bincount(shifted, minlength=width))
            index = np.zeros(width, dtype=np.intp)
            index[present] = np.arange(present.size)
            return (present + low).astype(y.dtype), index[shifted]
    return np.unique(y, return_inverse=True)


class OrderedLogit(ClassifierMixin, BaseEstimator):
    """Ordinal logistic regression with cut points (proportional odds).

    Parameters
    ----------
    alpha : float, default=1.0
        L2 penalty (alpha / 2) ||w||^2 on the weights (not on the cut
        points).  ``alpha = 0`` is the maximum-likelihood fit, which diverges
        on separable data.
    max_iter : int, default=1000
        L-BFGS iterations.
    tol : float, default=1e-8
        L-BFGS gradient tolerance.
    mirrored : bool, default=False
        Fit as if every row (x, y) came with its mirror image (-x, -y) (a
        comparison seen from both sides; numeric labels, whose negatives
        join the classes): the fit on both, whose cut points are symmetric
        about 0, computed on the rows given (half the work).

    Attributes
    ----------
    classes_ : ndarray of shape (q,)
        The sorted labels.
    coef_ : ndarray of shape (n_features,)
        w of eta(x) = w^T x (larger eta: higher labels more likely).
    thresholds_ : ndarray of shape (q - 1,)
        The increasing cut points theta.
    n_iter_ : int
    """

    def __init__(self, *, alpha=1.0, max_iter=1000, tol=1e-8, mirrored=False):
        self.alpha = alpha
        self.max_iter = max_iter
        self.tol = tol
        self.mirrored = mirrored

    def fit(self, X, y, sample_weight=None):
        """Fit on features ``X`` (n, p) and ordered labels ``y`` (at least two levels)."""
        if not np.isfinite(self.alpha) or self.alpha < 0:
            raise ValueError(f"alpha must be a finite number >= 0; got {self.alpha}.")
        X = as_float_matrix(X, "X")
        check_finite(X, "X")
        y = np.asarray(y).ravel()
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"y has {y.shape[0]} labels but X has {X.shape[0]} rows.")
        mirrored = bool(self.mirrored)
        if mirrored and (y.dtype.kind not in "iuf" or not np.all(np.isfinite(y))):
            raise ValueError("mirrored=True needs numeric labels (their negatives are the "
                             f"mirror images'); got dtype {y.dtype}.")
        if mirrored and y.dtype.kind in "iu":
            # Negated in a type that holds the negatives (unsigned ones wrap).
            fits = y.size == 0 or (int(y.min()) > np.iinfo(np.int64).min
                                   and int(y.max()) <= np.iinfo(np.int64).max)
            y = y.astype(np.int64 if fits else np.float64)
        self.classes_, k = _classes(y)
        if mirrored:
            present = self.classes_
            self.classes_ = np.union1d(present, -present) + 0  # (+ 0: no -0.0)
            k = np.searchsorted(self.classes_, present)[k]
        q = self.classes_.size
        if q < 2:
            raise ValueError("OrderedLogit needs at least two distinct labels in y.")
        weight = np.ones(X.shape[0]) if sample_weight is None else np.asarray(
            sample_weight, dtype=np.float64).ravel()
        if weight.shape[0] != X.shape[0] or not np.all(np.isfinite(weight)) or np.any(weight < 0):
            raise ValueError("sample_weight must be finite, non-negative, one per row of X.")
        # Start at w = 0 with cut points at the logits of the cumulative label shares.
        counts = np.bincount(k, weights=weight, minlength=q)
        if mirrored:
            counts = counts + counts[::-1]  # class k's mirror is class q - 1 - k
        share = np.clip(np.cumsum(counts)[:-1] / counts.sum(), 1e-6, 1 - 1e-6)
        theta0 = np.log(share / (1 - share))
        if mirrored:
            positive = theta0[theta0.size - (q - 1) // 2:]
            c0 = np.log(np.maximum(np.diff(np.concatenate([[0.0], positive])), 1e-6))
        else:
            c0 = np.concatenate([theta0[:1], np.log(np.maximum(np.diff(theta0), 1e-6))])
        x0 = np.concatenate([np.zeros(X.shape[1]), c0])
        k = np.ascontiguousarray(k, dtype=np.int64)
        weight = np.ascontiguousarray(weight, dtype=np.float64)
        result = minimize(_objective, x0, args=(X, k, q, self.alpha, weight, mirrored),
                          jac=True, method="L-BFGS-B",
                          options={"maxiter": self.max_iter, "gtol": self.tol})
        p = X.shape[1]
        self.coef_ = result.x[:p]
        self.thresholds_ = _mirrored_cut_points(result.x[p:], q) if mirrored else \
            _cut_points(result.x[p:])
        self.n_iter_ = result.nit
        self.n_features_in_ = p
        return self

    def decision_function(self, X):
        """The linear predictor eta(x) = w^T x."""
        check_is_fitted(self)
        X = as_float_matrix(X, "X")
        check_finite(X, "X")
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features; the model was fitted on "
                             f"{self.n_features_in_}.")
        return X @ self.coef_

    def predict_proba(self, X):
        """P(y = r_k | x) in the order of ``classes_``."""
        return class_probabilities(self.decision_function(X), self.thresholds_)

    def predict(self, X):
        """The most probable label."""
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]
