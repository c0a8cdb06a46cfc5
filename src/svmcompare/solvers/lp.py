"""Linear programs of the comparison problem, solved by HiGHS (scipy.optimize.linprog).

* :func:`solve_margin_lp`: the hard-margin comparison LP (7) of section 3.1.
* :func:`solve_l1_svm`: a soft-margin linear-programming SVM with a bias,
  min ||a||_1 + sum_i C_i xi_i over rows of given features, which the kernel
  LP of :class:`svmcompare.SVMCompareLP` is an instance of.
* :func:`hinge_has_no_direction`: whether u = 0 solves the hinge problem (15)
  on given rows (a feasibility LP of its optimality conditions).
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


# A beta this close to +-1 is where the hinge problem's u = 0 solutions put it.
PINNED_BIAS = 1e-3


def hinge_has_no_direction(D, y, C, beta):
    """Whether u = 0 (with a bias) minimizes the hinge problem (15) on rows ``D``.

    At u = 0 the best bias is beta = +1 when the rows labeled 1 weigh more
    (sum of C_t) than those labeled -1, and -1 in the other case.  Then the
    rows of the heavier label sit on the margin, with a share lambda_t in
    [0, 1] of their cost, and the others are violated (lambda_t = 1); u = 0 is
    optimal iff some such shares make the subgradient vanish (the KKT
    conditions of eq. 15 at u = 0, i.e. a feasible alpha_t = lambda_t C_t of
    the dual (18) with sum_t alpha_t y_t d_t = 0):

        sum_t lambda_t C_t y_t d_t = 0  and  sum_t lambda_t C_t y_t = 0,

    a feasibility LP (HiGHS).  A solver stopped at its tolerance then returns a
    u near 0 whose direction is the path it came by, not a ranking: with few
    ties and ``class_weight=None`` every C of the ice hockey results (with
    ``games_features(prior_games=0)``) and of the Lichess games gave such a u,
    of a size that shrank with the tolerance (ice hockey) or stayed at 1e-7
    whatever C (chess), ranking the test games worse than chance on one.

    Parameters
    ----------
    D : ndarray or sparse matrix of shape (m, p)
        The rows d_t (features, then the context columns).
    y : ndarray of shape (m,)
        Labels in {-1, 1}.
    C : ndarray of shape (m,)
        Per-row costs (0 leaves a row out).
    beta : float
        The solver's bias: only a beta within :data:`PINNED_BIAS` of the
        heavier label's sign is checked (elsewhere u = 0 is not optimal).

    Returns
    -------
    bool
        True when the LP is feasible (u = 0 is a minimizer); False when it is
        not, or HiGHS gave no answer.
    """
    y = np.asarray(y, dtype=np.float64)
    C = np.asarray(C, dtype=np.float64)
    heavier = C[y > 0].sum() - C[y < 0].sum()
    sign = 1.0 if heavier > 0 else -1.0 if heavier < 0 else 0.0
    if sign == 0.0 or abs(float(beta) - sign) > PINNED_BIAS:
        return False
    on_margin = (y == sign) & (C > 0)
    violated = (y == -sign) & (C > 0)
    rows = sparse.csr_matrix(D, dtype=np.float64)
    weights = C * y
    # Columns: the margin rows' shares; rows of A: the p weights, then beta.
    A = sparse.vstack([rows[on_margin].T.multiply(weights[on_margin][None, :]),
                       sparse.csr_matrix(weights[on_margin][None, :])]).tocsr()
    b = -np.append(rows[violated].T @ weights[violated], weights[violated].sum())
    # Each equation in units of its largest term, so that HiGHS's absolute
    # feasibility tolerance (1e-7) is relative to the data's scale.
    size = np.maximum(abs(A).max(axis=1).toarray().ravel(), np.abs(b))
    size[size == 0] = 1.0
    A = sparse.diags(1.0 / size) @ A
    # The interior point: 0.7 s at 128,699 rows of 1,000 ids, where the dual
    # simplex took 43 s; 3 s at 50,000 rows of 30 dense features (simplex 10 s).
    res = linprog(np.zeros(A.shape[1]), A_eq=A, b_eq=b / size, bounds=(0.0, 1.0),
                  method="highs-ipm")
    return res.status == _OPTIMAL
