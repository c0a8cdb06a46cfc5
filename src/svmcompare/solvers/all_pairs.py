"""The linear pair SVM on *every* within-group pair of graded items, without forming pairs.

Graded items (x_i, g_i) in query groups give, in each group, the strict pairs
(i, j) with g_i < g_j (j better) and the tie pairs {i, j} with g_i = g_j.
With f_i = u^T x_i the flipped problem of eq. (8) has one row per strict
pair, margin z = beta + f_j - f_i, and one row per *ordered* tie pair (each
tie pair twice, as eq. 8 does), margin z = -beta + f_j - f_i.  The primal
(15) with a linear kernel is then

    F(u, beta) = 1/2 ||u||^2 + w_s sum_strict c_i c_j L(beta + f_j - f_i)
                             + w_t sum_ordered ties c_i c_j L(-beta + f_j - f_i)

with item weights c (``sample_weight``), w_s = C kappa_1 and w_t = C kappa_-1
the flipped labels' class weights (0 drops ties, as RankSVM does, eq. 3,
and then beta = 0).  A group of n items has O(n^2) pairs, but L depends on a
pair only through f_j - f_i: with the items of each (group, grade) block
sorted by f, the pairs (i, j) in a region of the Huber-smoothed hinge
L_delta (see :mod:`svmcompare.solvers.linear`) are, for each j, a contiguous
run of every lower block, found by two pointers that only move forward.

* the linear region (L = 1 - z - delta/2) contributes through prefix sums of
  c and c f over the sorted blocks, and to the other end of the pairs
  through a difference array: O(n) per pair of blocks;
* the quadratic region (1 - delta < z < 1) is visited pair by pair: it holds
  the pairs whose margins lie in a band of width delta around 1, so it is
  small at small delta, and summing it pair by pair avoids the cancellation
  of expanded squares.

A pass (value, gradient in f and beta, and optionally the Newton system's
per-item terms) costs O(n log n + K n + |quadratic pairs| p) per group with K
grades, against O(n^2 p) for the materialized rows.  The Hessian in (u, beta)
is assembled from per-item terms: X^T diag(D) X - X^T S with S_a the
weighted sum of the x of a's partners in the quadratic region (a graph
Laplacian, ``X^T L X``).  Newton's method with an exact line search and the
smoothing continuation of the materialized solver then minimize the same
F_delta, so both reach the same (u, beta); beta is finally chosen in the
interval of exact-hinge minimizers as :func:`svmcompare.solvers._bias.choose_bias`
does, found by bisection on the right derivative (two-pointer counts).

Groups are independent: passes run in parallel over groups, each writing only
its own items, and per-group sums are added in a fixed order, so the result
has the same bits on any number of threads.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from numba import njit, prange
from sklearn.exceptions import ConvergenceWarning

from ._bias import choose_bias
from ._compile import announces_compilation

# Per-group sums a pass accumulates (columns of its (n_groups, 5) array).
_VALUE, _GRAD_BETA, _CURVATURE, _H_BETA, _N_QUAD = range(5)


@dataclass(frozen=True)
class GradedProblem:
    """Graded items arranged for :func:`solve_all_pairs`.

    Items are stored sorted by (group, grade): block k holds the items
    ``block_start[k]:block_start[k + 1]`` (one grade of one group), and group
    g the blocks ``group_start[g]:group_start[g + 1]`` in increasing grade.

    Attributes
    ----------
    X : ndarray of shape (n, p)
        Item features, in block order.
    weight : ndarray of shape (n,)
        Item weights c_i (a pair weighs c_i c_j).
    block_start, group_start : ndarray of int64
    order : ndarray of int64
        ``X = X_input[order]``.
    strict_weight, tie_weight : float
        w_s and w_t above (C times the class weight; w_t = 0 drops ties).
    n_strict, n_tie_rows : float
        Weighted counts: sum of c_i c_j over strict pairs, over ordered tie pairs.
    """

    X: np.ndarray
    weight: np.ndarray
    block_start: np.ndarray
    group_start: np.ndarray
    order: np.ndarray
    strict_weight: float
    tie_weight: float
    n_strict: float
    n_tie_rows: float

    @property
    def n_pairs(self):
        """Pairs the problem sums over: strict pairs, plus tie pairs when kept."""
        sizes = np.diff(self.block_start)
        total = 0
        for g in range(self.group_start.size - 1):
            s = sizes[self.group_start[g]:self.group_start[g + 1]]
            strict = (s.sum() ** 2 - (s ** 2).sum()) // 2
            total += strict + (int((s * (s - 1)).sum()) // 2 if self.tie_weight > 0 else 0)
        return int(total)


def graded_problem(X, grades, groups, C, *, ties="keep", class_weight=None, weight=None):
    """Arrange items for the all-pairs solver and set the pair weights.

    ``class_weight`` is that of the flipped labels (None, "balanced" or
    ``{1: w, -1: w}``), with "balanced" counting rows as the materialized
    problem does: m / (2 * weighted rows of the label), m = strict pairs +
    ordered tie pairs.
    """
    from .._problem import flipped_class_weights

    n = X.shape[0]
    weight = np.ones(n) if weight is None else np.asarray(weight, dtype=np.float64)
    _, group_codes = np.unique(groups, return_inverse=True)
    _, grade_codes = np.unique(grades, return_inverse=True)
    order = np.lexsort((grade_codes, group_codes)).astype(np.int64)
    gc, kc = group_codes[order], grade_codes[order]
    new_block = np.ones(n, dtype=bool)
    new_block[1:] = (gc[1:] != gc[:-1]) | (kc[1:] != kc[:-1])
    block_start = np.append(np.flatnonzero(new_block), n).astype(np.int64)
    block_group = gc[block_start[:-1]]
    new_group = np.ones(block_group.size, dtype=bool)
    new_group[1:] = block_group[1:] != block_group[:-1]
    group_start = np.append(np.flatnonzero(new_group), block_group.size).astype(np.int64)
    w = weight[order]
    block_w = np.add.reduceat(w, block_start[:-1]) if n else np.zeros(0)
    block_w2 = np.add.reduceat(w * w, block_start[:-1]) if n else np.zeros(0)
    n_strict = n_tie_rows = 0.0
    for g in range(group_start.size - 1):
        s = block_w[group_start[g]:group_start[g + 1]]
        s2 = block_w2[group_start[g]:group_start[g + 1]]
        n_strict += (s.sum() ** 2 - (s ** 2).sum()) / 2
        n_tie_rows += (s ** 2 - s2).sum()
    if ties == "drop" or n_tie_rows == 0:
        kappa = {1: 1.0, -1: 0.0}
    elif class_weight == "balanced":
        # m / (2 * weighted rows of the label), m = all rows: flipped_class_weights.
        m = n_strict + n_tie_rows
        kappa = {1: m / (2.0 * n_strict), -1: m / (2.0 * n_tie_rows)}
    else:
        kappa = flipped_class_weights(np.array([1.0, -1.0]), class_weight)
    return GradedProblem(
        X=np.ascontiguousarray(X[order], dtype=np.float64), weight=np.ascontiguousarray(w),
        block_start=block_start, group_start=group_start, order=order,
        strict_weight=float(C) * kappa[1], tie_weight=float(C) * kappa[-1],
        n_strict=float(n_strict), n_tie_rows=float(n_tie_rows))


@dataclass(frozen=True)
class AllPairsResult:
    """Solution of the all-pairs problem (fields as :class:`LinearResult`, without
    per-row dual variables: there are no rows)."""

    u: np.ndarray
    bias: float
    objective: float
    smoothing: float
    n_iter: int
    converged: bool
    bias_noise: float
    n_pairs: int


@njit(cache=True)
def _sort_group(f, c, blocks, b0, b1, perm, cum_c, cum_cf):
    """Sort each block of the group by f and prefix-sum c and c f in that order.

    ``perm`` holds the order of the previous pass, and f moves little from
    one pass to the next, so an insertion sort from it costs O(n + swaps)
    (stable, hence the same order for the same sequence of passes).
    """
    for k in range(b0, b1):
        s, e = blocks[k], blocks[k + 1]
        for t in range(s + 1, e):
            item = perm[t]
            key = f[item]
            u = t - 1
            while u >= s and f[perm[u]] > key:
                perm[u + 1] = perm[u]
                u -= 1
            perm[u + 1] = item
        run_c = 0.0
        run_cf = 0.0
        for t in range(s, e):
            item = perm[t]
            run_c += c[item]
            run_cf += c[item] * f[item]
            cum_c[t] = run_c
            cum_cf[t] = run_cf


@njit(cache=True)
def _sweep(A0, A1, B0, B1, same, f, c, perm, cum_c, cum_cf, offset, w, sigma, delta,
           q, dbeta, Y, hess, curv, gamma, lin_add, D, E, S, acc):
    """All pairs (i in block A, j in block B) with margin z = offset + f_j - f_i.

    ``same``: A is B (ordered tie pairs, i != j).  Adds the smoothed loss, its
    derivatives in f_j (to ``gamma``), in f_i (quadratic pairs to ``gamma``,
    linear ones to the difference array ``lin_add``) and in beta (sigma =
    dz/dbeta), and with ``hess`` the Newton system's per-item terms, with
    ``curv`` the curvature along the direction (q, dbeta).
    """
    nA = A1 - A0
    tot_c = cum_c[A1 - 1]
    tot_cf = cum_cf[A1 - 1]
    pa = 0  # first position of A with z < 1 (loss > 0)
    pl = 0  # first position of A with z <= 1 - delta (linear region)
    r_dim = Y.shape[1]
    for tb in range(B1 - B0):
        j = perm[B0 + tb]
        fj = f[j]
        cj = c[j]
        # z falls as f_i rises (A is sorted), and rises with f_j: pointers only advance.
        while pa < nA and not offset + (fj - f[perm[A0 + pa]]) < 1.0:
            pa += 1
        if pl < pa:
            pl = pa
        while pl < nA and not offset + (fj - f[perm[A0 + pl]]) <= 1.0 - delta:
            pl += 1
        # Linear region, positions pl..nA-1: L = 1 - z - delta / 2, L' = -1.
        c0 = tot_c - (cum_c[A0 + pl - 1] if pl > 0 else 0.0)
        c1 = tot_cf - (cum_cf[A0 + pl - 1] if pl > 0 else 0.0)
        self_linear = same and tb >= pl
        if self_linear:
            c0 -= cj
            c1 -= cj * fj
        if pl < nA:
            acc[_VALUE] += w * cj * ((1.0 - 0.5 * delta - offset - fj) * c0 + c1)
            gamma[j] -= w * cj * c0
            acc[_GRAD_BETA] -= sigma * w * cj * c0
            lin_add[A0 + pl] += w * cj
            if self_linear:
                lin_add[A0 + tb] -= w * cj
                if tb + 1 < nA:
                    lin_add[A0 + tb + 1] += w * cj
        # Quadratic region, positions pa..pl-1: L = (1 - z)^2 / (2 delta).
        for ia in range(pa, pl):
            if same and ia == tb:
                continue
            i = perm[A0 + ia]
            slack = 1.0 - (offset + (fj - f[i]))
            ww = w * c[i] * cj
            acc[_VALUE] += ww * slack * slack / (2.0 * delta)
            g = -ww * slack / delta
            gamma[j] += g
            gamma[i] -= g
            acc[_GRAD_BETA] += sigma * g
            acc[_N_QUAD] += 1.0
            h = ww / delta
            if hess:
                D[i] += h
                D[j] += h
                E[j] += sigma * h
                E[i] -= sigma * h
                acc[_H_BETA] += h
                for k in range(r_dim):
                    S[j, k] += h * Y[i, k]
                    S[i, k] += h * Y[j, k]
            if curv:
                dq = q[j] - q[i] + sigma * dbeta
                acc[_CURVATURE] += h * dq * dq


@njit(cache=True, parallel=True)
def _pass(f, c, blocks, groups, beta, w_strict, w_tie, delta, q, dbeta, Y, hess, curv,
          gamma, D, E, S, perm, cum_c, cum_cf, lin_add, acc):
    """One pass over every pair of every group (see the module docstring)."""
    n_groups = groups.shape[0] - 1
    for g in prange(n_groups):
        b0, b1 = groups[g], groups[g + 1]
        lo, hi = blocks[b0], blocks[b1]
        for a in range(lo, hi):
            gamma[a] = 0.0
            lin_add[a] = 0.0
            if hess:
                D[a] = 0.0
                E[a] = 0.0
                for k in range(S.shape[1]):
                    S[a, k] = 0.0
        for k in range(acc.shape[1]):
            acc[g, k] = 0.0
        _sort_group(f, c, blocks, b0, b1, perm, cum_c, cum_cf)
        for kb in range(b0, b1):
            B0, B1 = blocks[kb], blocks[kb + 1]
            for ka in range(b0, kb):
                _sweep(blocks[ka], blocks[ka + 1], B0, B1, False, f, c, perm, cum_c, cum_cf,
                       beta, w_strict, 1.0, delta, q, dbeta, Y, hess, curv, gamma, lin_add,
                       D, E, S, acc[g])
            if w_tie > 0.0:
                _sweep(B0, B1, B0, B1, True, f, c, perm, cum_c, cum_cf, -beta, w_tie, -1.0,
                       delta, q, dbeta, Y, hess, curv, gamma, lin_add, D, E, S, acc[g])
        # The linear pairs' share of dF/df_i: prefix sums of the difference array.
        for k in range(b0, b1):
            run = 0.0
            for t in range(blocks[k], blocks[k + 1]):
                run += lin_add[t]
                item = perm[t]
                gamma[item] += c[item] * run


@njit(cache=True)
def _count_run(A0, A1, B0, B1, same, f, c, perm, cum_c, offset, inclusive):
    """sum of c_i c_j over (i in A, j in B, i != j if same) with z = offset + f_j - f_i
    below 1 (``inclusive``: at most 1); blocks sorted by f, ``cum_c`` their prefix sums."""
    nA = A1 - A0
    p = 0
    total = 0.0
    for tb in range(B1 - B0):
        j = perm[B0 + tb]
        fj = f[j]
        while p < nA:
            z = offset + (fj - f[perm[A0 + p]])
            if (z <= 1.0) if inclusive else (z < 1.0):
                break
            p += 1
        run = cum_c[A1 - 1] - (cum_c[A0 + p - 1] if p > 0 else 0.0)
        if same and tb >= p:
            run -= c[j]
        total += c[j] * run
    return total


@njit(cache=True, parallel=True)
def _bias_slope(f, c, blocks, groups, perm, cum_c, beta, w_strict, w_tie, out):
    """Per group, the right derivative in beta of the exact hinge sum (u fixed):
    -w_s (strict pairs with z < 1) + w_t (ordered tie pairs with z <= 1)."""
    for g in prange(groups.shape[0] - 1):
        b0, b1 = groups[g], groups[g + 1]
        total = 0.0
        for kb in range(b0, b1):
            for ka in range(b0, kb):
                total -= w_strict * _count_run(blocks[ka], blocks[ka + 1], blocks[kb],
                                               blocks[kb + 1], False, f, c, perm, cum_c, beta,
                                               False)
            if w_tie > 0.0:
                total += w_tie * _count_run(blocks[kb], blocks[kb + 1], blocks[kb],
                                            blocks[kb + 1], True, f, c, perm, cum_c, -beta,
                                            True)
        out[g] = total


@njit(cache=True, parallel=True)
def _sort_all(f, c, blocks, groups, perm, cum_c, cum_cf):
    for g in prange(groups.shape[0] - 1):
        _sort_group(f, c, blocks, groups[g], groups[g + 1], perm, cum_c, cum_cf)


class _Passes:
    """F_delta of a :class:`GradedProblem` and its derivatives, with work arrays."""

    def __init__(self, problem, bias):
        self.P = problem
        self.bias = bias
        n, p = problem.X.shape
        self.p = p
        self.gamma = np.empty(n)
        self.D = np.empty(n)
        self.E = np.empty(n)
        self.S = np.empty((n, p))
        self.perm = np.arange(n, dtype=np.int64)  # each block's order by f (kept across passes)
        self.cum_c = np.empty(n)
        self.cum_cf = np.empty(n)
        self.lin_add = np.empty(n)
        self.acc = np.empty((problem.group_start.size - 1, 5))
        self._no_q = np.zeros(0)
        self._no_Y = np.zeros((0, 0))

    def run(self, f, beta, delta, *, hess=False, q=None, dbeta=0.0):
        """Per-group sums, reduced in a fixed order; gamma = dF_loss/df."""
        P = self.P
        Y = P.X if hess else self._no_Y
        S = self.S if hess else self._no_Y
        _pass(f, P.weight, P.block_start, P.group_start, float(beta), P.strict_weight,
              P.tie_weight, float(delta), self._no_q if q is None else q, float(dbeta), Y,
              bool(hess), q is not None, self.gamma, self.D, self.E, S, self.perm,
              self.cum_c, self.cum_cf, self.lin_add, self.acc)
        return self.acc.sum(axis=0)

    def value(self, u, sums):
        return 0.5 * u @ u + sums[_VALUE]

    def gradient(self, u, sums):
        g = u + self.P.X.T @ self.gamma
        return np.append(g, sums[_GRAD_BETA]) if self.bias else g

    def hessian(self, sums):
        X = self.P.X
        # X^T L X for the Laplacian L of the quadratic pairs: X^T (diag(D) X - S).
        self.S *= -1.0
        self.S += self.D[:, None] * X
        H_uu = X.T @ self.S
        H_uu = 0.5 * (H_uu + H_uu.T)
        H_uu[np.diag_indices_from(H_uu)] += 1.0
        if not self.bias:
            return H_uu
        n = self.p + 1
        H = np.empty((n, n))
        H[:self.p, :self.p] = H_uu
        H[:self.p, self.p] = H[self.p, :self.p] = X.T @ self.E
        H[self.p, self.p] = sums[_H_BETA]
        return H


def _line_search(obj, v, f, step, q, delta, d0, phi0):
    """Minimize phi(s) = F_delta(v + s step) over s > 0, to within 0.1% of the
    decrease still possible, with safeguarded Newton steps on the monotone,
    piecewise linear phi' (each evaluation is one pass with the curvature).

    At small delta phi' is nearly a step function whose root sits on a kink;
    locating it to rounding takes dozens of passes and gains nothing, so the
    search stops once convexity bounds what is left: phi >= the larger of the
    tangents at the bracket's ends.  Returns (s, sums at s); s = 0 when no
    descent is found.
    """
    p = obj.p
    u, su = v[:p], step[:p]
    dbeta = step[p] if obj.bias else 0.0
    beta = v[p] if obj.bias else 0.0

    def evaluate(s):
        sums = obj.run(f + s * q, beta + s * dbeta, delta, q=q, dbeta=dbeta)
        w = u + s * su
        d1 = su @ w + q @ obj.gamma + dbeta * sums[_GRAD_BETA]
        d2 = su @ su + sums[_CURVATURE]
        return 0.5 * w @ w + sums[_VALUE], d1, d2, sums

    lo, phi_lo, d_lo, sums_lo = 0.0, phi0, d0, None
    hi = phi_hi = d_hi = sums_hi = None
    # First try the Newton step, or less if it moves some margin by more than 1:
    # a step from few quadratic pairs can be enormous (at u = 0 H is I).
    s = min(1.0, 1.0 / max(2.0 * np.abs(q).max() + abs(dbeta), 1e-300))
    side = 0  # which end the last two evaluations moved (Illinois' rule)
    for _ in range(200):
        phi, d1, d2, sums = evaluate(s)
        if abs(d1) <= 1e-12 * abs(d0):
            return s, sums
        moved = -1 if d1 < 0 else 1
        if d1 < 0:
            lo, phi_lo, d_lo, sums_lo = s, phi, d1, sums
        else:
            hi, phi_hi, d_hi, sums_hi = s, phi, d1, sums
        if hi is None:  # no bracket yet: extrapolate, at least 1.25x further
            newton = s - d1 / d2 if d2 > 0 else np.inf
            s = min(max(newton, 1.25 * s), 1e15) if np.isfinite(newton) else 2.0 * s
            if s >= 1e15:
                break
            continue
        best = min(phi_lo, phi_hi)
        # The tangents at lo and hi meet at the lowest value phi can have between them.
        cross = (phi_hi - phi_lo + d_lo * lo - d_hi * hi) / (d_lo - d_hi)
        bound = phi_lo + d_lo * (cross - lo)
        if best - bound <= 1e-3 * (phi0 - best) or hi - lo <= 1e-14 * hi:
            break
        # Newton's root of the current piece when it lies in the bracket, else
        # regula falsi with Illinois' halving of the end that stays put.
        newton = s - d1 / d2 if d2 > 0 else np.nan
        if lo < newton < hi:
            s = newton
        else:
            a_lo, a_hi = d_lo, d_hi
            if side == moved:
                if moved > 0:
                    a_lo = 0.5 * d_lo
                else:
                    a_hi = 0.5 * d_hi
            s = lo - a_lo * (hi - lo) / (a_hi - a_lo)
            if not lo < s < hi:
                s = 0.5 * (lo + hi)
        side = moved
    if hi is not None and phi_hi < phi_lo:
        return hi, sums_hi
    if sums_lo is None:
        return 0.0, None
    return lo, sums_lo


def _smoothing_levels(delta_min):
    deltas = [1.0]
    while deltas[-1] > delta_min * 1.0001:
        deltas.append(max(deltas[-1] / 10, delta_min))
    return deltas


def _bias_interval(obj, f, spread):
    """The interval of betas minimizing the exact hinge sum with u fixed
    (:func:`primal_bias_interval` over all pairs): bisection on the right
    derivative, a non-decreasing step function of beta."""
    P = obj.P
    _sort_all(f, P.weight, P.block_start, P.group_start, obj.perm, obj.cum_c, obj.cum_cf)
    out = np.empty(P.group_start.size - 1)

    def slope(beta):
        _bias_slope(f, P.weight, P.block_start, P.group_start, obj.perm, obj.cum_c, beta,
                    P.strict_weight, P.tie_weight, out)
        return out.sum()

    total = P.strict_weight * P.n_strict + P.tie_weight * P.n_tie_rows
    tol = 1e-12 * total

    def first(pred):
        lo, hi = -2.0 - 2.0 * spread, 2.0 + 2.0 * spread  # beyond every kink
        if pred(lo):
            return lo
        if not pred(hi):
            return np.inf
        while True:
            mid = 0.5 * (lo + hi)
            if mid <= lo or mid >= hi:
                return hi
            if pred(mid):
                hi = mid
            else:
                lo = mid

    low = first(lambda b: slope(b) >= -tol)
    if not np.isfinite(low) or abs(slope(low)) > tol:
        return low, low
    high = first(lambda b: slope(b) > tol)
    return low, high


@announces_compilation(_pass)
def solve_all_pairs(problem, *, bias=True, tol=1e-3, delta_min=1e-6, max_newton=50, v0=None):
    """Minimize F(u, beta) over all within-group pairs of a :class:`GradedProblem`.

    The same smoothed Newton method as :func:`svmcompare.solvers.solve_linear`
    (the same smoothing levels, stopping rule and final choice of beta), with
    every sum over pairs computed from sorted blocks instead of rows.

    Parameters
    ----------
    problem : GradedProblem
    bias : bool, default=True
        Learn beta (SVMCompare, eq. 9/15); False: beta = 0 (RankSVM, eq. 3).
    tol, delta_min, max_newton, v0 :
        As :func:`svmcompare.solvers.solve_linear`.

    Returns
    -------
    AllPairsResult
    """
    obj = _Passes(problem, bool(bias))
    X = problem.X
    p = X.shape[1]
    v = np.zeros(p + bool(bias)) if v0 is None else np.array(v0, dtype=np.float64)
    f = X @ v[:p]
    total = 0
    converged = True
    delta = 1.0
    for delta in _smoothing_levels(delta_min):
        level_done = False
        fval = None
        for _ in range(max_newton):
            beta = v[p] if bias else 0.0
            sums = obj.run(f, beta, delta, hess=True)
            fval = obj.value(v[:p], sums)
            g = obj.gradient(v[:p], sums)
            H = obj.hessian(sums)
            H[np.diag_indices_from(H)] += 1e-12 * (1.0 + np.abs(np.diag(H)))
            step = -np.linalg.solve(H, g)
            decrement = -(g @ step)
            if decrement <= tol * 1e-6 * (1.0 + abs(fval)):
                level_done = True
                break
            q = X @ step[:p]
            s, new_sums = _line_search(obj, v, f, step, q, delta, -decrement, fval)
            total += 1
            if new_sums is None:
                level_done = True
                break
            new_v = v + s * step
            new_fval = obj.value(new_v[:p], new_sums)
            if new_fval >= fval:
                level_done = True  # no decrease left at machine precision
                break
            v = new_v
            f = f + s * q
        converged &= level_done
    if not converged:
        warnings.warn(
            f"The all-pairs solver reached max_newton={max_newton} steps at some smoothing "
            "level; the solution may be inaccurate.", ConvergenceWarning, stacklevel=3)
    u = v[:p].copy()
    spread = _spread(f, problem)
    beta = 0.0
    if bias:
        beta = choose_bias(*_bias_interval(obj, f, spread))
    sums = obj.run(f, beta, 0.0)  # delta = 0: the exact hinge
    objective = float(0.5 * u @ u + sums[_VALUE])
    noise = max(delta, 1e-8) * max(1.0, spread)
    return AllPairsResult(u, float(beta), objective, delta, total, bool(converged), noise,
                          problem.n_pairs)


def _spread(f, problem):
    """max over groups of max f - min f: the largest |f_j - f_i| of any pair."""
    gs = problem.block_start[problem.group_start]
    if f.size == 0:
        return 0.0
    hi = np.maximum.reduceat(f, gs[:-1])
    lo = np.minimum.reduceat(f, gs[:-1])
    return float((hi - lo).max())
