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


def _cut_jacobian(c):
    """d theta_j / d c_i: 1 for i = 0, exp(c_i) for 1 <= i <= j, else 0."""
    q1 = c.size
    steps = np.concatenate([[1.0], np.exp(c[1:])])
    return np.tril(np.ones((q1, q1))) * steps[None, :]


def class_probabilities(eta, theta):
    """P(y = r_k) for each row of ``eta`` (n,) under cut points ``theta`` (q - 1,)."""
    cumulative = expit(theta[None, :] - np.asarray(eta, dtype=np.float64)[:, None])
    n = cumulative.shape[0]
    cumulative = np.hstack([np.zeros((n, 1)), cumulative, np.ones((n, 1))])
    return np.maximum(np.diff(cumulative, axis=1), 0.0)


def _objective(params, X, k, q, alpha, sample_weight):
    """Penalized negative log-likelihood and its gradient in (w, c); the rows'
    terms in one C sweep (``_ordinal_core``)."""
    p = X.shape[1]
    w, c = params[:p], params[p:]
    padded = np.concatenate([[-np.inf], _cut_points(c), [np.inf]])
    d_eta = np.empty(k.size)
    grad_theta = np.zeros(q + 1)
    loss = ordered_logit_terms(np.ascontiguousarray(X @ w), k, padded, sample_weight, d_eta,
                               grad_theta, _TINY) + 0.5 * alpha * (w @ w)
    grad_w = X.T @ d_eta + alpha * w
    grad_c = grad_theta[1:q] @ _cut_jacobian(c)
    return loss, np.concatenate([grad_w, grad_c])


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

    def __init__(self, *, alpha=1.0, max_iter=1000, tol=1e-8):
        self.alpha = alpha
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, X, y, sample_weight=None):
        """Fit on features ``X`` (n, p) and ordered labels ``y`` (at least two levels)."""
        if not np.isfinite(self.alpha) or self.alpha < 0:
            raise ValueError(f"alpha must be a finite number >= 0; got {self.alpha}.")
        X = as_float_matrix(X, "X")
        check_finite(X, "X")
        y = np.asarray(y).ravel()
        if y.shape[0] != X.shape[0]:
            raise ValueError(f"y has {y.shape[0]} labels but X has {X.shape[0]} rows.")
        self.classes_, k = np.unique(y, return_inverse=True)
        q = self.classes_.size
        if q < 2:
            raise ValueError("OrderedLogit needs at least two distinct labels in y.")
        weight = np.ones(X.shape[0]) if sample_weight is None else np.asarray(
            sample_weight, dtype=np.float64).ravel()
        if weight.shape[0] != X.shape[0] or not np.all(np.isfinite(weight)) or np.any(weight < 0):
            raise ValueError("sample_weight must be finite, non-negative, one per row of X.")
        # Start at w = 0 with cut points at the logits of the cumulative label shares.
        share = np.clip(np.cumsum(np.bincount(k, weights=weight, minlength=q))[:-1]
                        / weight.sum(), 1e-6, 1 - 1e-6)
        theta0 = np.log(share / (1 - share))
        steps = np.maximum(np.diff(theta0), 1e-6)
        x0 = np.concatenate([np.zeros(X.shape[1]), theta0[:1], np.log(steps)])
        k = np.ascontiguousarray(k, dtype=np.int64)
        weight = np.ascontiguousarray(weight, dtype=np.float64)
        result = minimize(_objective, x0, args=(X, k, q, self.alpha, weight), jac=True,
                          method="L-BFGS-B",
                          options={"maxiter": self.max_iter, "gtol": self.tol})
        p = X.shape[1]
        self.coef_ = result.x[:p]
        self.thresholds_ = _cut_points(result.x[p:])
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
