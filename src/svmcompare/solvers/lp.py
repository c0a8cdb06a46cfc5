"""Linear programs of the comparison problem, solved by HiGHS (scipy.optimize.linprog).

* :func:`solve_margin_lp`: the hard-margin comparison LP (7) of section 3.1.
* :func:`solve_l1_svm`: a soft-margin linear-programming SVM with a bias,
  min ||a||_1 + sum_i C_i xi_i over rows of given features, which the kernel
  LP of :class:`svmcompare.SVMCompareLP` is an instance of.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.optimize import linprog

_OPTIMAL, _INFEASIBLE, _UNBOUNDED = 0, 2, 3


@dataclass(frozen=True)
class MarginLPResult:
    """Solution of the LP (7): ranking weights ``w`` and margin ``mu``."""

    w: np.ndarray
    mu: float


@dataclass(frozen=True)
class L1SVMResult:
    """Solution of :func:`solve_l1_svm`.

    ``a`` and ``bias`` (beta) are the primal solution, ``xi`` the slacks,
    ``objective`` the optimal value, ``dual`` the multipliers lambda_i >= 0 of
    the margin constraints (for optimality checks), ``n_iter`` HiGHS's
    iterations; the same field names as the other SVM solvers' results.
    """

    a: np.ndarray
    bias: float
    xi: np.ndarray
    objective: float
    dual: np.ndarray
    n_iter: int = 0
    converged: bool = True  # HiGHS reported an optimum (else an error is raised)


def _check_status(res, what):
    if res.status != _OPTIMAL:
        raise RuntimeError(f"HiGHS did not solve the {what} (status {res.status}): {res.message}")


def solve_margin_lp(D, y, max_coef=None):
    """The max-margin comparison LP (7) on difference vectors d_i = x'_i - x_i.

    maximize mu over (mu, w) subject to
    mu <= 1 - |w^T d_i| for i in I_0 (two linear rows: +-w^T d_i + mu <= 1) and
    mu <= -1 + y_i w^T d_i for i in I_1 u I_-1.

    The paper restricts mu >= 0, which makes the LP infeasible for data that
    are not linearly separable.  Here mu is free, so the LP is always feasible
    (w = 0, mu = -1) and its optimum tells both: mu > 0 iff the pairs are
    separable, and a negative mu measures by how much they are not.

    Parameters
    ----------
    D : ndarray of shape (n, p)
        Difference vectors x'_i - x_i.
    y : ndarray of shape (n,), values in {-1, 0, 1}
    max_coef : float or None
        Bound |w_j| <= max_coef.  Without equality pairs the LP is unbounded
        whenever the inequality pairs are separable (scale w up); a bound makes
        it bounded.

    Returns
    -------
    MarginLPResult

    Raises
    ------
    ValueError
        If the LP is unbounded (no equality pairs and no ``max_coef``).
    """
    n, p = D.shape
    eq = y == 0
    De, Di = D[eq], D[~eq] * y[~eq, None]
    # Rows over the variables [w, mu]; eq. (7) with the absolute value split in two.
    A = np.vstack([
        np.hstack([De, np.ones((De.shape[0], 1))]),
        np.hstack([-De, np.ones((De.shape[0], 1))]),
        np.hstack([-Di, np.ones((Di.shape[0], 1))]),
    ])
    b = np.concatenate([np.ones(2 * De.shape[0]), -np.ones(Di.shape[0])])
    cost = np.zeros(p + 1)
    cost[-1] = -1.0  # maximize mu
    bound = (None, None) if max_coef is None else (-float(max_coef), float(max_coef))
    res = linprog(cost, A_ub=A, b_ub=b, bounds=[bound] * p + [(None, None)], method="highs")
    if res.status == _UNBOUNDED:
        raise ValueError(
            "The margin LP (7) is unbounded: with no equality pairs, any w that orders the "
            "inequality pairs correctly can be scaled up without limit. Pass max_coef to bound "
            "|w_j|, or add equality pairs."
        )
    _check_status(res, "margin LP (7)")
    return MarginLPResult(w=res.x[:p].copy(), mu=float(res.x[p]))


def solve_l1_svm(G, ytilde, C):
    """A linear-programming SVM with an unregularized bias.

    minimize    sum_j |a_j| + sum_i C_i xi_i
    subject to  ytilde_i (beta + G_i a) >= 1 - xi_i,  xi_i >= 0,

    as an LP in (a+, a-, beta, xi) with a = a+ - a-, a+, a- >= 0.

    Parameters
    ----------
    G : ndarray of shape (m, N)
        Row features (for the kernel LP: G_ij = k(z_j, x~'_i) - k(z_j, x~_i)).
    ytilde : ndarray of shape (m,), values in {-1, 1}
    C : ndarray of shape (m,)
        Positive cost of each slack.

    Returns
    -------
    L1SVMResult
    """
    m, N = G.shape
    YG = sparse.csr_matrix(G * ytilde[:, None])
    A = sparse.hstack([-YG, YG, sparse.csr_matrix(-ytilde[:, None]), -sparse.eye(m)],
                      format="csc")
    cost = np.concatenate([np.ones(2 * N), [0.0], C])
    bounds = np.zeros((2 * N + 1 + m, 2))
    bounds[:, 1] = np.inf
    bounds[2 * N] = (-np.inf, np.inf)  # beta is free
    res = linprog(cost, A_ub=A, b_ub=-np.ones(m), bounds=bounds, method="highs")
    _check_status(res, "linear-programming SVM")
    x = res.x
    return L1SVMResult(a=x[:N] - x[N:2 * N], bias=float(x[2 * N]), xi=x[2 * N + 1:].copy(),
                       objective=float(res.fun), dual=-res.ineqlin.marginals,
                       n_iter=int(getattr(res, "nit", 0)))
