"""The hard-margin comparison problems of section 3.1: the LP (7) and the QP (9)/(12).

Both learn a linear ranking function r(x) = w^T x from separable pairs and
compare by c_1 (eq. 5).  The LP maximizes the margin mu measured in rank
units; the QP is a hard-margin binary SVM on the flipped data (8), whose
solution (u, beta) Lemma 1 turns into w = -u / beta and mu = -1 / beta,
feasible for the LP.  The LP is invariant to rescaling the features (w
rescales with them); the QP is not, which is why the two agree on
standardized data but not on raw data (the paper's Figure 2).
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from ._problem import Standardizer, flip_compare
from ._validation import check_compare_label_set, check_pairs_labels, check_positive
from .exceptions import NotSeparableError, outside_stacklevel
from .kernels import resolve_kernel
from .ranking_function import ComparisonMixin, set_ranking
from .solvers import solve_dual
from .solvers.lp import solve_margin_lp

SEPARABLE_TOL = 1e-9  # mu above this counts as a positive margin


def _scaler(X, standardize):
    if standardize:
        return Standardizer.fit(X)
    p = X.shape[2]
    return Standardizer(mean=np.zeros(p), scale=np.ones(p), keep=np.ones(p, dtype=bool))


class _LinearComparison(ComparisonMixin, ClassifierMixin, BaseEstimator):
    """Shared fitted state: r(z) = w^T z on (optionally) standardized items, c_1."""

    def _prepare_linear(self, X, y):
        if not isinstance(self.standardize, bool):
            raise TypeError(f"standardize must be True or False; got {self.standardize!r}.")
        X, y = check_pairs_labels(X, y)
        scaler = _scaler(X, self.standardize)
        return y, scaler, scaler.transform_pairs(X)


class HardMarginLP(_LinearComparison):
    """The max-margin comparison LP (7), solved by HiGHS.

    maximize mu over (mu, w) subject to mu <= 1 - |w^T(x'_i - x_i)| for
    equality pairs and mu <= -1 + y_i w^T(x'_i - x_i) for inequality pairs.
    mu is left free (the paper writes mu >= 0): the LP then always has a
    solution, and ``is_separable_`` says whether its margin is positive.
    When it is not, ``fit`` warns (a UserWarning) but returns the solution:
    on pairs that no linear r(x) orders, w = 0 and mu = -1, and every pair
    is predicted a tie.  (:class:`HardMarginQP`, which has no solution
    there, raises :class:`NotSeparableError`.)

    Parameters
    ----------
    standardize : bool, default=True
        Center and scale the features first (the optimal margin and the
        predictions do not change; ``coef_`` is always in input units).
    max_coef : float or None, default=None
        Bound |w_j| <= max_coef on standardized features.  Needed only
        without equality pairs, where the LP is unbounded for separable data.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features_in_,)
        w, in the units of the input features.
    margin_ : float
        The optimal mu (negative when the pairs are not separable).
    is_separable_ : bool
        mu > 1e-9: a linear r(x) compares every training pair correctly by c_1
        with a positive margin.
    """

    def __init__(self, *, standardize=True, max_coef=None):
        self.standardize = standardize
        self.max_coef = max_coef

    def fit(self, X, y):
        """Solve the LP (7) on labeled pairs ``X`` (n, 2, p), ``y`` in {-1, 0, 1}."""
        # (a text max_coef or tol met numpy's isfinite: an attack, stop 70)
        check_positive(self.max_coef, "max_coef", allow_none=True)
        y, scaler, Xs = self._prepare_linear(X, y)
        result = solve_margin_lp(Xs[:, 1] - Xs[:, 0], y, self.max_coef)
        set_ranking(self, scaler, resolve_kernel("linear"), "lp", weights=result.w)
        self.margin_ = result.mu
        self.threshold_ = 1.0  # c_1 of eq. (5)
        self.is_separable_ = bool(result.mu > SEPARABLE_TOL)
        if not self.is_separable_:
            _warn_not_separable(result.mu, not np.any(result.w), self.max_coef)
        return self


def _warn_not_separable(mu, zero, max_coef=None):
    """The LP (7) with mu free always has a solution (the documented contract,
    unlike the QP), but one without a positive margin is no hard-margin
    ranking; w = 0 (mu = -1) even predicts a tie for every pair.  Say so
    rather than return it silently."""
    what = (" Its optimal w is 0: every pair is predicted a tie." if zero else
            " No linear r(x) compares every training pair correctly with a positive margin.")
    if max_coef is not None:
        # (a tiny bound alone kept the margin of separable pairs at 0, and the
        # warning called them inseparable: an attack, stop 70)
        what += (f" (Within |w_j| <= max_coef = {max_coef:g}: a small bound can keep the "
                 "margin of separable pairs at 0; a larger max_coef lifts it.)")
    warnings.warn(
        f"The pairs are not linearly separable{' within max_coef' if max_coef else ''}: "
        f"the LP (7) margin is {mu:.3g} <= 0 "
        f"(is_separable_ = False).{what} HardMarginQP raises NotSeparableError on such "
        "data; SVMCompare(kernel='linear', C=...) allows margin violations (eq. 15).",
        UserWarning, stacklevel=outside_stacklevel())


class HardMarginQP(_LinearComparison):
    """The hard-margin comparison QP (9)/(12) on the flipped data (8), with Lemma 1.

    minimize u^T u over (u, beta) subject to
    y~_i (beta + u^T (x~'_i - x~_i)) >= 1 for every flipped pair (eq. 9),
    solved through its dual by the same SMO solver as SVMCompare (no upper
    bound on the dual variables).  Lemma 1 then gives the ranking weights
    w = -u / beta and the margin mu = -1 / beta, feasible for the LP (7).

    The QP has a solution only for separable pairs; this is checked first with
    the LP (7) (the QP is feasible exactly when the LP's margin is positive),
    and non-separable data raise :class:`NotSeparableError`.

    Parameters
    ----------
    standardize : bool, default=True
        Center and scale the features first.  Unlike the LP, the QP's
        solution depends on the feature scales (Figure 2 of the paper).
    tol : float, default=1e-9
        Stopping tolerance of the dual solver (maximal KKT violation).

    Attributes
    ----------
    u_ : ndarray
        u of eq. (9), on the (standardized) features used in the fit.
    intercept_ : float
        beta of eq. (9); negative.
    coef_ : ndarray of shape (n_features_in_,)
        Lemma 1's w = -u / beta, in input units.
    margin_ : float
        Lemma 1's mu = -1 / beta.
    n_iter_ : int
        Dual solver steps.
    converged_ : bool
        Whether the dual solver met ``tol`` (False comes with a ConvergenceWarning).
    """

    def __init__(self, *, standardize=True, tol=1e-9):
        self.standardize = standardize
        self.tol = tol

    def fit(self, X, y):
        """Solve the QP (9) on labeled pairs ``X`` (n, 2, p), ``y`` in {-1, 0, 1}."""
        check_positive(self.tol, "tol")
        y, scaler, Xs = self._prepare_linear(X, y)
        check_compare_label_set(y, "HardMarginQP")  # eq. (8) needs both kinds of pairs
        lp = solve_margin_lp(Xs[:, 1] - Xs[:, 0], y)
        if not lp.mu > SEPARABLE_TOL:
            raise NotSeparableError(
                f"The pairs are not linearly separable (the LP (7) margin is {lp.mu:.3g} <= 0), "
                "so the hard-margin QP (9) has no solution. Use SVMCompare(kernel='linear', C=...) "
                "with a finite C, which allows margin violations (eq. 15)."
            )
        problem = flip_compare(Xs, y, np.inf)  # hard margin: no upper bound on the duals
        result = solve_dual(problem, resolve_kernel("linear"), bias=True, tol=self.tol,
                            max_iter=None)
        # u = sum_t alpha_t y~_t (x~'_t - x~_t) (eq. 17 with a linear kernel).
        coef = result.alpha * problem.y
        u = problem.items[problem.b].T @ coef - problem.items[problem.a].T @ coef
        beta = float(result.bias)
        self.u_ = u
        self.intercept_ = beta
        self.n_iter_ = result.n_iter
        self.converged_ = bool(result.converged)
        # Lemma 1: w = -u / beta.
        set_ranking(self, scaler, resolve_kernel("linear"), "exact", weights=-u / beta)
        self.margin_ = -1.0 / beta
        self.threshold_ = 1.0  # c_1 of eq. (5)
        return self
