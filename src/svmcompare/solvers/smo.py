"""SMO for the SVM duals of SVMcompare and SVMrank, on rows of K~ computed on demand.

The problem solved is the binary SVM dual, eq. (18) of the paper::

    minimize_v   1/2 v^T Q v - 1^T v
    subject to   y^T v = 0            (only with a bias; omitted for SVMrank)
                 0 <= v_t <= C_t

with ``Q_st = y_s y_t K~_st`` and ``K~ = M^T K M`` (eq. 18).  Row ``t`` of the
problem is the difference ``Phi(Z[b_t]) - Phi(Z[a_t])`` of two items, so

    K~_st = k(Z[b_s], Z[b_t]) - k(Z[b_s], Z[a_t]) - k(Z[a_s], Z[b_t]) + k(Z[a_s], Z[a_t])

and one row of K~ costs two kernel rows over the items.  Nothing of size
m x m is ever allocated: rows go through an LRU cache bounded in megabytes.
Only a user-supplied callable kernel, which cannot run inside the compiled
loop, is evaluated once on all items (an n_items x n_items matrix).

With a bias (SVMcompare), working pairs are chosen by the second-order rule
of Fan, Chen and Lin (2005) (LIBSVM's WSS2) and the two-variable subproblem
is solved analytically; the bias comes from the KKT conditions.  Without a
bias (SVMrank, eq. 3 kernelized), the dual has no equality constraint and is
solved by greedy coordinate descent with the same second-order gain.

The stopping rule is LIBSVM's: the maximal KKT violation
``max_{I_up} -y_t G_t + max_{I_low} y_t G_t`` (with a bias) or the largest
projected gradient (without) is below ``tol``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from numba import njit
from sklearn.exceptions import ConvergenceWarning

from ..kernels import PRECOMPUTED, KernelSpec

_TAU = 1e-12  # curvature floor for degenerate (duplicate) rows, as LIBSVM


@dataclass(frozen=True)
class DualResult:
    """Solution of the dual (18).

    Attributes
    ----------
    alpha : ndarray of shape (m,)
        Dual variables v of eq. (18).
    bias : float
        The intercept beta of eq. (9) (0 when solved without a bias).
    objective : float
        Dual objective 1/2 v^T Q v - 1^T v at ``alpha``.
    kkt_violation : float
        Maximal KKT violation at return (< tol when converged).
    n_iter : int
        Number of SMO steps.
    converged : bool
    """

    alpha: np.ndarray
    bias: float
    objective: float
    kkt_violation: float
    n_iter: int
    converged: bool


@njit(cache=True)
def _item_kernel_row(code, items, sqnorm, s, gamma, coef0, degree, gram, out):
    """out[t] = k(items[s], items[t]) for every item t."""
    if code == PRECOMPUTED:
        out[:] = gram[s]
        return
    dots = items @ items[s]
    n = items.shape[0]
    if code == 1:  # linear
        out[:] = dots
    elif code == 2:  # poly
        for t in range(n):
            out[t] = (gamma * dots[t] + coef0) ** degree
    elif code == 3:  # rbf
        for t in range(n):
            d2 = sqnorm[t] + sqnorm[s] - 2.0 * dots[t]
            out[t] = math.exp(-gamma * max(d2, 0.0))
    else:  # laplacian
        for t in range(n):
            d2 = sqnorm[t] + sqnorm[s] - 2.0 * dots[t]
            out[t] = math.exp(-gamma * math.sqrt(max(d2, 0.0)))


@njit(cache=True)
def _compute_q_row(s, code, items, sqnorm, gamma, coef0, degree, gram, a, b, y, ka, kb, out):
    """out[t] = Q_st = y_s y_t K~_st (eq. 18), from two kernel rows over the items."""
    _item_kernel_row(code, items, sqnorm, a[s], gamma, coef0, degree, gram, ka)
    _item_kernel_row(code, items, sqnorm, b[s], gamma, coef0, degree, gram, kb)
    ys = y[s]
    for t in range(a.shape[0]):
        out[t] = ys * y[t] * (kb[b[t]] - kb[a[t]] - ka[b[t]] + ka[a[t]])


@njit(cache=True)
def _q_diagonal(code, items, sqnorm, gamma, coef0, degree, gram, a, b):
    """QD_t = K~_tt = k(b, b) - 2 k(a, b) + k(a, a), without any kernel row."""
    m = a.shape[0]
    out = np.empty(m)
    p = items.shape[1]
    for t in range(m):
        ia = a[t]
        ib = b[t]
        if code == PRECOMPUTED:
            out[t] = gram[ib, ib] - 2.0 * gram[ia, ib] + gram[ia, ia]
            continue
        dab = 0.0
        for k in range(p):
            dab += items[ia, k] * items[ib, k]
        if code == 1:
            out[t] = sqnorm[ib] - 2.0 * dab + sqnorm[ia]
        elif code == 2:
            kab = (gamma * dab + coef0) ** degree
            kaa = (gamma * sqnorm[ia] + coef0) ** degree
            kbb = (gamma * sqnorm[ib] + coef0) ** degree
            out[t] = kbb - 2.0 * kab + kaa
        else:
            d2 = max(sqnorm[ia] + sqnorm[ib] - 2.0 * dab, 0.0)
            if code == 3:
                kab = math.exp(-gamma * d2)
            else:
                kab = math.exp(-gamma * math.sqrt(d2))
            out[t] = 2.0 - 2.0 * kab
    return out


@njit(cache=True)
def _cached_row(s, cache, slot_of, owner, stamp, clock, code, items, sqnorm, gamma,
                coef0, degree, gram, a, b, y, ka, kb):
    """Slot of row s in the LRU cache, computing the row on a miss."""
    slot = slot_of[s]
    clock[0] += 1
    if slot >= 0:
        stamp[slot] = clock[0]
        return slot
    # Evict the least recently used slot.
    slot = 0
    oldest = stamp[0]
    for k in range(1, owner.shape[0]):
        if stamp[k] < oldest:
            oldest = stamp[k]
            slot = k
    if owner[slot] >= 0:
        slot_of[owner[slot]] = -1
    owner[slot] = s
    slot_of[s] = slot
    stamp[slot] = clock[0]
    _compute_q_row(s, code, items, sqnorm, gamma, coef0, degree, gram, a, b, y, ka, kb,
                   cache[slot])
    return slot


@njit(cache=True)
def _projected_gradient(g, alpha_t, C_t):
    """The gradient component that can still decrease the objective in the box [0, C_t]."""
    if alpha_t <= 0.0:
        return min(g, 0.0)
    if alpha_t >= C_t:
        return max(g, 0.0)
    return g


@njit(cache=True)
def _smo(code, items, sqnorm, gamma, coef0, degree, gram, a, b, y, C, alpha, use_bias,
         tol, max_iter, n_slots):
    m = a.shape[0]
    n_items = items.shape[0]
    cache = np.empty((n_slots, m))
    slot_of = -np.ones(m, dtype=np.int64)
    owner = -np.ones(n_slots, dtype=np.int64)
    stamp = np.zeros(n_slots, dtype=np.int64)
    clock = np.zeros(1, dtype=np.int64)
    ka = np.empty(n_items)
    kb = np.empty(n_items)
    QD = _q_diagonal(code, items, sqnorm, gamma, coef0, degree, gram, a, b)

    # Gradient G = Q alpha - 1 (warm starts add the rows of nonzero alpha).
    G = -np.ones(m)
    for s in range(m):
        if alpha[s] != 0.0:
            slot = _cached_row(s, cache, slot_of, owner, stamp, clock, code, items, sqnorm,
                               gamma, coef0, degree, gram, a, b, y, ka, kb)
            for t in range(m):
                G[t] += alpha[s] * cache[slot, t]

    n_iter = 0
    violation = np.inf
    while n_iter < max_iter:
        if use_bias:
            # WSS2 (Fan, Chen and Lin 2005): i maximizes -y_t G_t over I_up.
            gmax = -np.inf
            i = -1
            for t in range(m):
                if (y[t] > 0 and alpha[t] < C[t]) or (y[t] < 0 and alpha[t] > 0.0):
                    v = -y[t] * G[t]
                    if v >= gmax:
                        gmax = v
                        i = t
            gmax2 = -np.inf
            j = -1
            if i >= 0:
                si = _cached_row(i, cache, slot_of, owner, stamp, clock, code, items, sqnorm,
                                 gamma, coef0, degree, gram, a, b, y, ka, kb)
                best = np.inf
                for t in range(m):
                    if (y[t] > 0 and alpha[t] > 0.0) or (y[t] < 0 and alpha[t] < C[t]):
                        v = y[t] * G[t]
                        if v >= gmax2:
                            gmax2 = v
                        grad_diff = gmax + v
                        if grad_diff > 0.0:
                            quad = QD[i] + QD[t] - 2.0 * y[i] * y[t] * cache[si, t]
                            if quad <= 0.0:
                                quad = _TAU
                            obj = -(grad_diff * grad_diff) / quad
                            if obj <= best:
                                best = obj
                                j = t
            violation = gmax + gmax2
            if violation < tol or j < 0:
                break
            si = _cached_row(i, cache, slot_of, owner, stamp, clock, code, items, sqnorm,
                             gamma, coef0, degree, gram, a, b, y, ka, kb)
            sj = _cached_row(j, cache, slot_of, owner, stamp, clock, code, items, sqnorm,
                             gamma, coef0, degree, gram, a, b, y, ka, kb)
            Ci = C[i]
            Cj = C[j]
            old_i = alpha[i]
            old_j = alpha[j]
            qij = cache[si, j]
            if y[i] != y[j]:
                # y_i a_i + y_j a_j fixed: a_i - a_j stays constant.
                quad = QD[i] + QD[j] + 2.0 * qij
                if quad <= 0.0:
                    quad = _TAU
                delta = (-G[i] - G[j]) / quad
                diff = alpha[i] - alpha[j]
                alpha[i] += delta
                alpha[j] += delta
                if diff > 0.0:
                    if alpha[j] < 0.0:
                        alpha[j] = 0.0
                        alpha[i] = diff
                else:
                    if alpha[i] < 0.0:
                        alpha[i] = 0.0
                        alpha[j] = -diff
                if diff > Ci - Cj:
                    if alpha[i] > Ci:
                        alpha[i] = Ci
                        alpha[j] = Ci - diff
                else:
                    if alpha[j] > Cj:
                        alpha[j] = Cj
                        alpha[i] = Cj + diff
            else:
                # a_i + a_j stays constant.
                quad = QD[i] + QD[j] - 2.0 * qij
                if quad <= 0.0:
                    quad = _TAU
                delta = (G[i] - G[j]) / quad
                total = alpha[i] + alpha[j]
                alpha[i] -= delta
                alpha[j] += delta
                if total > Ci:
                    if alpha[i] > Ci:
                        alpha[i] = Ci
                        alpha[j] = total - Ci
                else:
                    if alpha[j] < 0.0:
                        alpha[j] = 0.0
                        alpha[i] = total
                if total > Cj:
                    if alpha[j] > Cj:
                        alpha[j] = Cj
                        alpha[i] = total - Cj
                else:
                    if alpha[i] < 0.0:
                        alpha[i] = 0.0
                        alpha[j] = total
            di = alpha[i] - old_i
            dj = alpha[j] - old_j
            for t in range(m):
                G[t] += cache[si, t] * di + cache[sj, t] * dj
        else:
            # No bias: greedy coordinate descent, largest second-order gain.
            i = -1
            best = -1.0
            violation = 0.0
            for t in range(m):
                pg = _projected_gradient(G[t], alpha[t], C[t])
                apg = abs(pg)
                if apg > violation:
                    violation = apg
                gain = pg * pg / max(QD[t], _TAU)
                if gain > best:
                    best = gain
                    i = t
            if violation < tol:
                break
            si = _cached_row(i, cache, slot_of, owner, stamp, clock, code, items, sqnorm,
                             gamma, coef0, degree, gram, a, b, y, ka, kb)
            old_i = alpha[i]
            if QD[i] > _TAU:
                new = old_i - G[i] / QD[i]
            else:
                # A zero-length difference: the objective is linear in alpha_i.
                new = C[i] if G[i] < 0.0 else 0.0
            alpha[i] = min(max(new, 0.0), C[i])
            di = alpha[i] - old_i
            for t in range(m):
                G[t] += cache[si, t] * di
        n_iter += 1

    if not use_bias:
        violation = 0.0
        for t in range(m):
            violation = max(violation, abs(_projected_gradient(G[t], alpha[t], C[t])))
    objective = 0.0
    for t in range(m):
        objective += 0.5 * alpha[t] * (G[t] - 1.0)
    return alpha, G, n_iter, violation, objective


def _bias_from_kkt(alpha, G, y, C):
    """beta from complementary slackness (LIBSVM's rho, with beta = -rho).

    Free variables give y_t G_t = rho exactly; with none free, rho is the
    midpoint of the interval the bounded variables allow.
    """
    yG = y * G
    at_upper = alpha >= C
    at_lower = alpha <= 0
    free = ~(at_upper | at_lower)
    if free.any():
        rho = float(yG[free].mean())
    else:
        ub_mask = (at_upper & (y < 0)) | (at_lower & (y > 0))
        lb_mask = (at_upper & (y > 0)) | (at_lower & (y < 0))
        ub = yG[ub_mask].min() if ub_mask.any() else np.inf
        lb = yG[lb_mask].max() if lb_mask.any() else -np.inf
        rho = float((ub + lb) / 2.0) if np.isfinite(ub) and np.isfinite(lb) else float(
            ub if np.isfinite(ub) else lb
        )
    return -rho


def solve_dual(problem, kernel: KernelSpec, *, bias=True, tol=1e-3, max_iter=None,
               cache_size=200.0, alpha0=None, gram=None):
    """Solve the dual (18) (or the no-bias RankSVM dual) of a binary problem.

    Parameters
    ----------
    problem : svmcompare._pairs.BinaryProblem
        Items, the index pairs (a, b) of each row, labels and per-row C.
    kernel : KernelSpec
    bias : bool, default=True
        Whether the primal has an unregularized bias beta (SVMcompare, eq. 9);
        False drops the equality constraint (SVMrank, eq. 3).
    tol : float, default=1e-3
        Stopping tolerance on the maximal KKT violation.
    max_iter : int or None
        Maximum SMO steps; None means max(10_000_000, 100 m).
    cache_size : float, default=200
        Megabytes for the LRU cache of rows of Q (less the item Gram matrix
        of a callable kernel).
    alpha0 : ndarray of shape (m,), optional
        Feasible starting point (warm start).
    gram : ndarray of shape (n_items, n_items), optional
        The item kernel matrix k(items, items), when the caller has it (a
        path of fits over C shares it); rows of K~ are then gathered from it.

    Returns
    -------
    DualResult
    """
    items = np.ascontiguousarray(problem.items, dtype=np.float64)
    a = np.ascontiguousarray(problem.a, dtype=np.int64)
    b = np.ascontiguousarray(problem.b, dtype=np.int64)
    y = np.ascontiguousarray(problem.y, dtype=np.float64)
    C = np.ascontiguousarray(problem.C, dtype=np.float64)
    m = a.shape[0]
    budget = float(cache_size) * 2**20

    code = kernel.code
    if gram is not None:
        gram = np.ascontiguousarray(gram, dtype=np.float64)
        code = PRECOMPUTED
        budget = max(0.0, budget - gram.nbytes)
    elif kernel.code == PRECOMPUTED:
        # A Python callable cannot run inside the compiled loop: evaluate it
        # once on all items (n_items^2 memory, documented on the estimators).
        gram = np.ascontiguousarray(kernel.block(items, items))
        budget = max(0.0, budget - gram.nbytes)
    else:
        # Built-in kernels compute the rows SMO touches, and only those.
        gram = np.zeros((1, 1))
    n_slots = int(min(m, max(2, budget // (8.0 * m))))

    if alpha0 is None:
        alpha = np.zeros(m)
    else:
        alpha = np.clip(np.array(alpha0, dtype=np.float64), 0.0, C)
    if max_iter is None:
        max_iter = max(10_000_000, 100 * m)
    sqnorm = np.einsum("ij,ij->i", items, items)
    alpha, G, n_iter, violation, objective = _smo(
        code, items, sqnorm, kernel.gamma, kernel.coef0, int(kernel.degree), gram,
        a, b, y, C, alpha, bool(bias), float(tol), int(max_iter), n_slots,
    )
    converged = bool(violation < tol)
    if not converged:
        warnings.warn(
            f"SMO stopped after max_iter={max_iter} steps with KKT violation "
            f"{violation:.3g} > tol={tol}; increase max_iter.",
            ConvergenceWarning,
            stacklevel=3,
        )
    beta = _bias_from_kkt(alpha, G, y, C) if bias else 0.0
    return DualResult(alpha, beta, float(objective), float(violation), int(n_iter), converged)
