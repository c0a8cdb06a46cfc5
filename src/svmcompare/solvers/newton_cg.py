"""The squared hinge on sparse rows by a trust-region Newton method with
conjugate gradients (products only, no matrix formed).

The problem is eq. (15) with the squared hinge, on the rows d_t of the
flipped data (eq. 8):

    minimize_{u, beta}  F(u, beta) = 1/2 ||u||^2 + sum_t C_t max(0, 1 - y_t (beta + u^T d_t))^2.

F is smooth (its gradient is piecewise linear), so Newton's method with the
generalized Hessian I + 2 sum_{t active} C_t [d_t; 1][d_t; 1]^T (rows with
positive slack) converges in a handful of steps; each step's system is solved
by conjugate gradients from products with the rows, O(non-zeros) each (ids:
two a row), inside SciPy's trust region (``trust-ncg``, the method of
LIBLINEAR's TRON).  On simulated ids the whole solve takes 0.01-0.9 s from
1,000 x 20,000 to 3,000 x 300,000 (games) and 2.6 s at 10,000 x 1,000,000,
where dual coordinate descent needs 16-25 s (its passes in random order over
millions of rows miss the cache) and a sparse LU of the Hessian 2-8 s (fill-in
on random opponent graphs).
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize
from scipy.sparse.linalg import LinearOperator, cg
from sklearn.exceptions import ConvergenceWarning

from ..exceptions import named_fit
from .csr_products import ParallelCSR
from .linear import squared_hinge_result

MAX_NEWTON = 1_000


class _SquaredHinge:
    """F, its gradient and Hessian-vector products at w = (u, beta)."""

    def __init__(self, D, y, C, bias):
        rows = sp.csr_matrix(D, dtype=np.float64)
        if bias:
            rows = sp.hstack([rows, sp.csr_matrix(np.ones((rows.shape[0], 1)))], format="csr")
        self.rows = ParallelCSR(rows)
        self.y, self.C = y, C
        self.p = D.shape[1]
        self._at = None  # the point whose active rows are known, and its weights
        self._weights = None

    def _slack(self, w):
        slack = 1.0 - self.y * self.rows.dot(w)
        # 2 C_t on the rows with positive slack: the generalized Hessian's weights.
        self._at = w.copy()
        self._weights = np.where((slack > 0.0) & (self.C > 0.0), 2.0 * self.C, 0.0)
        return slack

    def value_gradient(self, w):
        slack = self._slack(w)
        positive = self._weights > 0.0
        u = w[:self.p]
        value = 0.5 * u @ u + 0.5 * self._weights[positive] @ (slack[positive] ** 2)
        gradient = self.rows.tdot(-self._weights * self.y * np.where(positive, slack, 0.0))
        gradient[:self.p] += u
        return value, gradient

    def hessian_product(self, w, v):
        if self._at is None or not np.array_equal(w, self._at):
            self._slack(w)  # a trust-region step may have moved the last point
        product = self.rows.tdot(self._weights * self.rows.dot(v))
        product[:self.p] += v[:self.p]
        return product


# SciPy's name for cg's relative tolerance: "rtol" from 1.12 on, "tol" before.
_CG_TOLERANCE = "rtol" if "rtol" in inspect.signature(cg).parameters else "tol"


def conjugate_gradients(operator, rhs, rtol, preconditioner=None, maxiter=None):
    """SciPy's conjugate gradients on ``operator`` x = ``rhs`` to the relative
    residual ``rtol`` (no absolute floor), with ``preconditioner`` the vector
    of an inverse diagonal when given; x (the last iterate)."""
    n = rhs.size
    M = None if preconditioner is None else LinearOperator(
        (n, n), matvec=lambda v: preconditioner * v, dtype=np.float64)
    x, _ = cg(operator, rhs, atol=0.0, M=M, maxiter=10 * n if maxiter is None else maxiter,
              **{_CG_TOLERANCE: rtol})
    return x


def _newton_finish(problem, x, gradient, goal, max_steps=20):
    """Full Newton steps from ``x`` (systems by conjugate gradients), each
    kept only if it lowers the gradient's norm, until the norm is at most
    ``goal``: (x, gradient).  F is convex and piecewise quadratic, so near its
    minimizer a full step lands on it up to the CG tolerance."""
    n = x.size
    for _ in range(max_steps):
        norm = float(np.linalg.norm(gradient))
        if norm <= goal:
            break
        problem.value_gradient(x)  # the active rows at x
        hessian = LinearOperator((n, n), matvec=lambda v, x=x: problem.hessian_product(x, v),
                                 dtype=np.float64)
        step = conjugate_gradients(hessian, -gradient, min(0.1, 0.1 * goal / norm))
        trial = x + step
        _, trial_gradient = problem.value_gradient(trial)
        if not float(np.linalg.norm(trial_gradient)) < norm:
            break
        x, gradient = trial, trial_gradient
    return x, gradient


def solve_squared_hinge_cg(D, y, C, *, bias=True, tol=1e-3, v0=None):
    """Minimize the squared-hinge problem above by trust-region Newton-CG.

    Parameters
    ----------
    D : sparse matrix of shape (m, p)
        Rows d_t (features, then the context columns).
    y : ndarray of shape (m,)
        Labels in {-1, 1}.
    C : ndarray of shape (m,)
        Per-row costs (0 leaves a row out).
    bias : bool, default=True
    tol : float, default=1e-3
        The steps stop when the gradient's norm is below ``1e-5 * tol`` times
        its norm at (u, beta) = 0.
    v0 : ndarray of shape (p,) or (p + 1,), optional
        A start (u, beta), e.g. the solution before a week of new results.

    Returns
    -------
    LinearResult
        ``alpha`` holds the dual variables 2 C_t max(0, slack_t); ``n_iter``
        the Newton steps; ``smoothing`` 0.
    """
    y = np.ascontiguousarray(y, dtype=np.float64)
    C = np.ascontiguousarray(C, dtype=np.float64)
    problem = _SquaredHinge(D, y, C, bool(bias))
    n = problem.p + bool(bias)
    start = np.zeros(n) if v0 is None else np.array(v0, dtype=np.float64)
    scale = float(np.linalg.norm(problem.value_gradient(np.zeros(n))[1]))
    if scale == 0.0:  # u = 0 (and any beta of zero slack) is optimal
        start = np.zeros(n)
    # The objective in units of its gradient at 0 (the same minimizer): SciPy's
    # trust-ncg solves each Newton system by conjugate gradients only to
    # min(0.5, sqrt(|g|)) |g|, an absolute |g|, so with gradients of size 1e3
    # every step was half a Newton step and the steps converged linearly.
    # Scaled, the forcing term is relative: 10,000 ids x 1,020,000 games,
    # 20 -> 14 steps cold and 9 -> 3 from the solution before a week of new
    # games, the same objective to 1e-14.  Only a large gradient is divided
    # down: where it is small (C m tiny) the absolute forcing term is already
    # tight, and a relative one left the badly conditioned steps of C = 1e-16
    # short of convergence (the review's case).
    unit = max(scale, 1.0)

    def value_gradient(v):
        value, gradient = problem.value_gradient(v)
        return value / unit, gradient / unit

    def hessian_product(v, direction):
        return problem.hessian_product(v, direction) / unit

    # At extreme C (1e-300) the trust region's ratio of actual to predicted
    # decrease is 0 / 0 near the end; SciPy then shrinks the region, which is
    # right, but says so in RuntimeWarnings: convergence is judged below.
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        result = minimize(value_gradient, start, jac=True, hess=None,
                          hessp=hessian_product, method="trust-ncg",
                          options={"gtol": max(1e-5 * float(tol) * scale / unit, 1e-300),
                                   "maxiter": MAX_NEWTON})
    goal = 1e-5 * float(tol) * scale / unit
    x, jac = result.x, result.jac
    if not result.success and scale > 0.0:
        # The trust region judges a step by the objective's decrease, which
        # near the end can be below the objective's rounding (C = 1e-6 on 500
        # games: a step's gain of 1e-17 of F): SciPy then stops with "a bad
        # approximation" while the gradient is still 100x its goal.  Newton's
        # own steps, judged by the gradient, finish it.
        x, jac = _newton_finish(problem, x, jac * unit, goal * unit)
        jac = jac / unit
    # The trust region can collapse on rounding just short of the tight goal
    # ("a bad approximation ..."): still converged within 1e-3 * tol.
    converged = bool(result.success) or scale == 0.0 \
        or float(np.linalg.norm(jac)) <= 100.0 * goal
    if not converged:
        warnings.warn(named_fit(f"The Newton-CG solver of the squared hinge stopped short "
                                f"of its tolerance ({result.message}); the solution may be "
                                "inaccurate."),
                      ConvergenceWarning, stacklevel=3)
    u = x[:problem.p].copy()
    beta = float(x[-1]) if bias else 0.0
    scores = np.asarray(D @ u).ravel()  # u^T d_t
    return squared_hinge_result(u, beta, scores, y, C, bias, int(result.nit), converged)
