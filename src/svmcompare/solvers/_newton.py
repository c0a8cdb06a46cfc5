"""A Newton step on the free variables of the dual (18), taken between SMO steps.

SMO moves two variables at a time.  At large C on a smooth kernel the dual is
ill-conditioned and SMO needs tens of thousands of steps even when only a few
hundred variables are free (0 < v_t < C_t): at n = 800 pairs, C = 1000 and
gamma = 1.26 on the paper's simulations, 73,625 steps for 150 support vectors.
Once SMO has found which variables sit at a bound, the minimizer of (18) on
that face solves one linear system in the free variables F, the bounded ones
fixed (B):

    [ Q_FF  y_F ] [ d ]   [ -G_F ]
    [ y_F^T  0  ] [ b ] = [   0  ]      (with a bias; without one, Q_FF d = -G_F)

where G = Q v - 1 is SMO's gradient, so that G_F + Q_FF d + b y_F = 0 is the
stationarity of the face's Lagrangian and y^T v = 0 is kept (d is solved
from the inverse of Q_FF: d = x1 - b x2 with Q_FF x1 = -G_F, Q_FF x2 = y_F).
The step goes along d as far as the quadratic's minimum or the box [0, C_F]
allows.  Variables that reach a bound leave F, their rows and columns leave
the inverse by rank-one updates (no new factorization), and the next round
solves again, until a step reaches the minimum; SMO then goes on from the new
point (a bounded variable whose gradient says it should be free is its
business).  The objective only decreases, the point stays feasible, and
SMO's stopping rule is unchanged: the solution is the same optimum to the
same tolerance, reached in fewer steps.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg.blas
import scipy.linalg.lapack

_RIDGE = 1e-10  # relative to the largest Q_tt: duplicate rows make Q_FF singular
_MAX_ROUNDS = 50


def free_set_newton(problem_rows, item_kernel, alpha, G, C, use_bias, max_free,
                    max_rounds=_MAX_ROUNDS):
    """Move ``alpha`` in place toward the minimizer of (18) on its current face.

    Each round solves the system on the variables still free and steps along
    its solution as far as the quadratic's minimum or the box allows; a
    variable that reaches a bound leaves the free set and the next round
    solves without it (an active-set method that only drops variables:
    those that should join are SMO's).  Rounds end at a full step.

    Parameters
    ----------
    problem_rows : tuple (a, b, y, context)
        Each row's items, label and pair context (eq. 18: row t is
        Phi(items[b_t]) - Phi(items[a_t]) and c_t).
    item_kernel : callable
        ``item_kernel(index)`` -> k(items[index], items[index]).
    alpha, G : ndarray of shape (m,)
        A feasible point of (18) and its gradient Q alpha - 1 (read for the
        free rows only; the caller recomputes G after a move).
    C : ndarray of shape (m,)
    use_bias : bool
        Whether (18) has the equality constraint y^T alpha = 0.
    max_free : int
        No step with more free variables than this (an |F| x |F| system).
    max_rounds : int
        The most systems solved.

    Returns
    -------
    float
        The decrease of the dual objective (0.0 when ``alpha`` did not move).
    """
    a, b, y, context = problem_rows
    rows = np.flatnonzero((alpha > 0.0) & (alpha < C))
    if rows.size == 0 or rows.size > max_free:
        return 0.0
    Q = _free_block(a[rows], b[rows], y[rows], context[rows], item_kernel)
    inverse = _inverse(Q)
    if inverse is None:
        return 0.0
    g = G[rows]  # the gradient on the free rows, kept current
    active = np.ones(rows.size, dtype=bool)  # still free
    decrease = 0.0
    for _ in range(max_rounds):
        # Variables that left have zero rows and columns in ``inverse``: their
        # direction is 0 and they stay on their bound.
        direction = _newton_direction(inverse, y[rows], g, use_bias, active)
        if direction is None:
            break
        slope = float(g @ direction)
        Qd = Q @ direction
        curvature = float(direction @ Qd)
        if not slope < 0.0 or not curvature > 0.0:
            break
        full = -slope / curvature
        limit = step_limits(alpha[rows], C[rows], direction)
        step = min(full, float(limit.min()))
        if not step > 0.0:
            break
        moved = np.clip(alpha[rows] + step * direction, 0.0, C[rows])
        # The variables that stopped the step land on their bound exactly.
        stopped = np.flatnonzero(limit <= step * (1.0 + 1e-12))
        moved[stopped] = np.where(direction[stopped] > 0.0, C[rows[stopped]], 0.0)
        # G moves by Q (moved - alpha): step Q d, plus the rounding of the snaps.
        rest = moved - alpha[rows] - step * direction
        snapped = np.flatnonzero(rest)
        g = g + step * Qd + Q[:, snapped] @ rest[snapped]
        alpha[rows] = moved
        decrease -= step * slope + 0.5 * step * step * curvature
        if full <= step or stopped.size == 0:
            break
        # The stopped variables leave: the inverse of what remains of Q, one
        # rank-one update each (O(|F|^2), no new factorization).
        for k in stopped:
            column = inverse[:, k].copy()
            inverse = _rank_one_update(inverse, -1.0 / column[k], column)
            inverse[k, :] = 0.0
            inverse[:, k] = 0.0
        active[stopped] = False
        if not active.any():
            break
    return decrease


def _inverse(Q):
    """(Q + ridge I)^-1 by Cholesky (LAPACK potrf, potri: about |F|^3 flops), or
    None when that fails.  Fortran order: the rank-one updates write in place."""
    ridge = _RIDGE * max(float(np.max(np.diag(Q))), 1e-300)
    H = np.asfortranarray(Q + ridge * np.eye(Q.shape[0]))
    factor, info = scipy.linalg.lapack.dpotrf(H, lower=False, clean=True, overwrite_a=True)
    if info != 0:
        return None
    upper, info = scipy.linalg.lapack.dpotri(factor, lower=False, overwrite_c=True)
    if info != 0 or not np.all(np.isfinite(upper)):
        return None
    inverse = np.triu(upper)
    inverse += np.triu(upper, 1).T
    return np.asfortranarray(inverse)


def _rank_one_update(A, scale, v):
    """A + scale v v^T, in place (BLAS ger on a Fortran-ordered A)."""
    return scipy.linalg.blas.dger(scale, v, v, a=A, overwrite_a=True)


def _free_block(a, b, y, context, item_kernel):
    """Q_FF = y_s y_t K~_st on the free rows, K~ = M^T K M (eq. 18) from one
    kernel block over their items (plus the context block c_s . c_t)."""
    index, position = np.unique(np.concatenate([a, b]), return_inverse=True)
    pa, pb = position[:a.size], position[a.size:]
    K = item_kernel(index)
    Kt = K[np.ix_(pb, pb)] - K[np.ix_(pb, pa)] - K[np.ix_(pa, pb)] + K[np.ix_(pa, pa)]
    if context.shape[1]:
        Kt += context @ context.T
    return Kt * np.outer(y, y)


def _newton_direction(inverse, y, g, use_bias, active):
    """d with Q d + b y = -g and y^T d = 0 (with a bias) or Q d = -g on the
    ``active`` variables (0 elsewhere), from the inverse of Q; None when the
    constraint cannot be kept."""
    direction = -(inverse @ g)
    if use_bias:
        # d = x1 - b x2 with x1 = -Q^-1 g, x2 = Q^-1 y and b from y^T d = 0.
        x2 = inverse @ y
        denominator = float(y @ x2)
        if not denominator > 0.0:
            return None
        direction -= (float(y @ direction) / denominator) * x2
        # y^T d = 0 exactly, not to the inverse's accuracy (y_t^2 = 1): the
        # step must not move y^T alpha, which SMO keeps.
        direction[active] -= (y[active] @ direction[active]) / np.count_nonzero(active) \
            * y[active]
    direction[~active] = 0.0
    return direction if np.all(np.isfinite(direction)) else None


def step_limits(alpha, C, direction):
    """For each variable, the largest t with 0 <= alpha + t d <= C (inf where d = 0)."""
    limit = np.full(alpha.shape, np.inf)
    up = direction > 0.0
    down = direction < 0.0
    limit[up] = (C[up] - alpha[up]) / direction[up]
    limit[down] = -alpha[down] / direction[down]
    return limit
