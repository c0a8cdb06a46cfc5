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

* the linear region (L = 1 - z - delta/2) and the quadratic region
  (1 - delta < z < 1, L = (1 - z)^2 / (2 delta)) contribute through prefix
  sums of c, c f and c f^2 over the sorted blocks, and to the other end of
  the pairs through difference arrays: O(n) per pair of blocks.  Scores are
  centered per group first (pair gaps do not change), which keeps the
  cancellation in the expanded squares at the rounding of the group's spread.

A pass (value, gradient in f and beta, and optionally the Newton system's
per-item terms) costs O(n log n + K n) per group with K grades (plus O(n p)
for the blocks that have quadratic pairs when the Newton system is formed),
against O(n^2 p) for the materialized rows.  The Hessian in (u, beta) is
assembled from per-item terms: X^T diag(D) X - X^T S with S_a the weighted
sum of the x of a's partners in the quadratic region (a graph Laplacian,
``X^T L X``), over the items that have such partners only (few at small
delta).  Newton's method with a line search (to within 0.1% of the
decrease possible along the step) and the smoothing continuation of the
materialized solver then minimize the same F_delta, so both reach the same
(u, beta); beta is finally chosen in the interval of
exact-hinge minimizers as :func:`svmcompare.solvers._bias.choose_bias` does,
found by bisection on the right derivative (two-pointer counts).

Groups are independent: passes run in parallel over groups, each writing only
its own items, and per-group sums are added in a fixed order, so the result
has the same bits on any number of threads.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numba
import numpy as np
from numba import njit, prange
from sklearn.exceptions import ConvergenceWarning

from ._bias import choose_bias
from ._compile import announces_compilation
from .linear import newton_step, smoothing_levels
from .threads import threads_now

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
        strict, tie_rows = _pair_sums(np.diff(self.block_start).astype(np.float64),
                                      np.diff(self.block_start).astype(np.float64),
                                      self.group_start)
        return int(round(strict + (tie_rows / 2 if self.tie_weight > 0 else 0.0)))


def _pair_sums(block_w, block_w2, group_start):
    """sum of c_i c_j over strict pairs and over ordered tie pairs, from each
    block's sum of weights and of squared weights."""
    if block_w.size == 0:
        return 0.0, 0.0
    first = group_start[:-1]
    s1 = np.add.reduceat(block_w, first)
    s2 = np.add.reduceat(block_w ** 2, first)
    strict = float(((s1 ** 2 - s2) / 2).sum())
    return strict, float((block_w ** 2 - block_w2).sum())


def graded_problem(X, grades, groups, C, *, ties="keep", class_weight=None, weight=None):
    """Arrange items for the all-pairs solver and set the pair weights.

    ``class_weight`` is that of the flipped labels (None, "auto", "balanced"
    or ``{1: w, -1: w}``), counting rows as the materialized problem does:
    strict pairs and ordered tie pairs.
    """
    from .._problem import label_weights

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
    n_strict, n_tie_rows = _pair_sums(block_w, block_w2, group_start)
    if ties == "drop" or n_tie_rows == 0:
        kappa = {1: 1.0, -1: 0.0}
    else:
        kappa = label_weights(class_weight, n_strict, n_tie_rows)
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
def _center(values, lo, hi, out):
    """out[lo:hi] = values[lo:hi] minus their mean: a group's pair gaps do not
    change, and the expanded squares of the prefix sums lose fewer digits."""
    mean = 0.0
    for a in range(lo, hi):
        mean += values[a]
    mean /= hi - lo
    for a in range(lo, hi):
        out[a] = values[a] - mean


@njit(cache=True)
def _sort_group(f, c, blocks, b0, b1, perm, fl, cum):
    """Center f over the group (``fl``: pair gaps do not change, rounding
    shrinks), sort each block by it and prefix-sum c, c f, c f^2 in that order.

    ``perm`` holds the order of the previous pass, and f moves little from
    one pass to the next, so an insertion sort from it costs O(n + swaps);
    past 16 moves per item it hands over to a merge sort (O(n log n) for
    a group as large as all items, as in OrdinalSVM).  Both are stable, so
    the order is a function of the sequence of passes.
    """
    _center(f, blocks[b0], blocks[b1], fl)
    for k in range(b0, b1):
        s, e = blocks[k], blocks[k + 1]
        budget = 16 * (e - s)  # moves; past it the order changed too much
        for t in range(s + 1, e):
            item = perm[t]
            key = fl[item]
            u = t - 1
            while u >= s and fl[perm[u]] > key:
                perm[u + 1] = perm[u]
                u -= 1
            perm[u + 1] = item
            budget -= t - 1 - u
            if budget < 0:
                # A merge sort of the current order (stable: still a function
                # of the sequence of passes).
                keys = np.empty(e - s)
                for v in range(s, e):
                    keys[v - s] = fl[perm[v]]
                order = np.argsort(keys, kind="mergesort")
                current = perm[s:e].copy()
                for v in range(e - s):
                    perm[s + v] = current[order[v]]
                break
        r0 = r1 = r2 = 0.0
        for t in range(s, e):
            item = perm[t]
            ci, fi = c[item], fl[item]
            r0 += ci
            r1 += ci * fi
            r2 += ci * fi * fi
            cum[t, 0] = r0
            cum[t, 1] = r1
            cum[t, 2] = r2


@njit(cache=True)
def _prefix_q(q, c, blocks, b0, b1, perm, ql, cum):
    """Prefix sums of c q and c q^2 (q centered as f), for the curvature along
    a direction."""
    _center(q, blocks[b0], blocks[b1], ql)
    for k in range(b0, b1):
        r3 = r4 = 0.0
        for t in range(blocks[k], blocks[k + 1]):
            item = perm[t]
            r3 += c[item] * ql[item]
            r4 += c[item] * ql[item] * ql[item]
            cum[t, 3] = r3
            cum[t, 4] = r4


@njit(cache=True)
def _prefix_x(c, X, s, e, perm, cum_x):
    """Prefix sums of c x over the sorted positions s..e-1 of one block (the
    Newton system's neighbour sums; computed for blocks with quadratic pairs only)."""
    for t in range(s, e):
        item = perm[t]
        for d in range(X.shape[1]):
            cum_x[t, d] = (cum_x[t - 1, d] if t > s else 0.0) + c[item] * X[item, d]


@njit(cache=True)
def _run_sum(cum, col, A0, lo, hi):
    """Sum of column ``col`` over sorted positions lo..hi-1 of the block at A0."""
    if hi <= lo:
        return 0.0
    return cum[A0 + hi - 1, col] - (cum[A0 + lo - 1, col] if lo > 0 else 0.0)


@njit(cache=True)
def _range_add(add, col, A0, nA, lo, hi, value):
    """Add ``value`` to positions lo..hi-1 of a block's difference array."""
    if hi > lo:
        add[A0 + lo, col] += value
        if hi < nA:
            add[A0 + hi, col] -= value


@njit(cache=True)
def _sweep(A0, A1, B0, B1, same, fl, c, perm, cum, offset, w, sigma, delta, ql, dbeta, X,
           cum_x, hess, curv, gamma, add, add_x, D, E, S, acc, x_flag):
    """All pairs (i in block A, j in block B) with margin z = offset + f_j - f_i.

    ``same``: A is B (ordered tie pairs, i != j).  For each j the pairs in
    each region of L_delta are a run of A's sorted positions (two pointers);
    their sums come from A's prefix sums, and their share of the derivatives
    in f_i from difference arrays over A (``add``: columns const, slope,
    sigma * slope (dF/df_i = c_i (const + slope f_i)), and the count of open
    quadratic ranges; ``add_x``: the
    Newton system's neighbour sums; ``x_flag`` [0]: A's prefix sums of c x are
    computed, [1]: ``add_x`` holds entries on A).  Adds the smoothed loss and its
    derivatives in f_j and beta (sigma = dz/dbeta), with ``hess`` the Newton
    system's per-item terms, with ``curv`` the curvature along (q, dbeta).
    """
    nA = A1 - A0
    pa = 0  # first position of A with z < 1 (loss > 0)
    pl = 0  # first position of A with z <= 1 - delta (linear region)
    p = X.shape[1]
    for tb in range(B1 - B0):
        j = perm[B0 + tb]
        fj = fl[j]
        cj = c[j]
        # z falls as f_i rises (A is sorted), and rises with f_j: pointers only advance.
        while pa < nA and not offset + (fj - fl[perm[A0 + pa]]) < 1.0:
            pa += 1
        if pl < pa:
            pl = pa
        while pl < nA and not offset + (fj - fl[perm[A0 + pl]]) <= 1.0 - delta:
            pl += 1
        # Linear region, positions pl..nA-1: L = 1 - z - delta / 2, L' = -1.
        self_linear = same and tb >= pl
        if pl < nA:
            c0 = _run_sum(cum, 0, A0, pl, nA)
            c1 = _run_sum(cum, 1, A0, pl, nA)
            if self_linear:
                c0 -= cj
                c1 -= cj * fj
            acc[_VALUE] += w * cj * ((1.0 - 0.5 * delta - offset - fj) * c0 + c1)
            gamma[j] -= w * cj * c0
            acc[_GRAD_BETA] -= sigma * w * cj * c0
            _range_add(add, 0, A0, nA, pl, nA, w * cj)
            if self_linear:
                _range_add(add, 0, A0, nA, tb, tb + 1, -w * cj)
        if pa == pl:
            continue
        # Quadratic region, positions pa..pl-1: L = s^2 / (2 delta) with the
        # slack s = 1 - z = r_j + f_i, r_j = 1 - offset - f_j.
        self_quad = same and pa <= tb < pl
        q0 = _run_sum(cum, 0, A0, pa, pl)
        q1 = _run_sum(cum, 1, A0, pa, pl)
        q2 = _run_sum(cum, 2, A0, pa, pl)
        if self_quad:
            q0 -= cj
            q1 -= cj * fj
            q2 -= cj * fj * fj
        r = 1.0 - offset - fj
        h = w * cj / delta
        acc[_VALUE] += 0.5 * h * (r * r * q0 + 2.0 * r * q1 + q2)
        slack = r * q0 + q1  # sum of c_i s_ij
        gamma[j] -= h * slack
        acc[_GRAD_BETA] -= sigma * h * slack
        acc[_N_QUAD] += pl - pa - (1 if self_quad else 0)
        _range_add(add, 0, A0, nA, pa, pl, h * r)
        _range_add(add, 1, A0, nA, pa, pl, h)
        _range_add(add, 3, A0, nA, pa, pl, 1.0)  # open ranges: exact zeros outside
        if self_quad:
            _range_add(add, 0, A0, nA, tb, tb + 1, -h * r)
            _range_add(add, 1, A0, nA, tb, tb + 1, -h)
        if hess:
            D[j] += h * q0
            E[j] += sigma * h * q0
            acc[_H_BETA] += h * q0
            _range_add(add, 2, A0, nA, pa, pl, sigma * h)
            if self_quad:
                _range_add(add, 2, A0, nA, tb, tb + 1, -sigma * h)
            if x_flag[0] == 0:
                _prefix_x(c, X, A0, A1, perm, cum_x)
                x_flag[0] = 1
            x_flag[1] = 1
            for d in range(p):
                sx = _run_sum(cum_x, d, A0, pa, pl)
                if self_quad:
                    sx -= cj * X[j, d]
                S[j, d] += h * sx
                _range_add(add_x, d, A0, nA, pa, pl, h * X[j, d])
                if self_quad:
                    _range_add(add_x, d, A0, nA, tb, tb + 1, -h * X[j, d])
        if curv:
            qa = ql[j] + sigma * dbeta
            m1 = _run_sum(cum, 3, A0, pa, pl)
            m2 = _run_sum(cum, 4, A0, pa, pl)
            if self_quad:
                m1 -= cj * ql[j]
                m2 -= cj * ql[j] * ql[j]
            acc[_CURVATURE] += h * (qa * qa * q0 - 2.0 * qa * m1 + m2)


@njit(cache=True, parallel=True)
def _pass(f, c, blocks, groups, beta, w_strict, w_tie, delta, q, dbeta, X, hess, curv,
          gamma, D, E, S, perm, fl, ql, cum, cum_x, add, add_x, x_flags, acc):
    """One pass over every pair of every group (see the module docstring).

    With ``hess``, S must be zero on entry (the caller zeroes the rows it
    read) and ``add_x`` is left zero: at small delta few items have
    quadratic pairs, and only their blocks pay for the p-vector sums.
    """
    n_groups = groups.shape[0] - 1
    p = X.shape[1]
    for g in prange(n_groups):
        b0, b1 = groups[g], groups[g + 1]
        lo, hi = blocks[b0], blocks[b1]
        for a in range(lo, hi):
            gamma[a] = 0.0
            for k in range(4):
                add[a, k] = 0.0
            if hess:
                D[a] = 0.0
                E[a] = 0.0
        for k in range(acc.shape[1]):
            acc[g, k] = 0.0
        for k in range(b0, b1):
            x_flags[k, 0] = 0
            x_flags[k, 1] = 0
        _sort_group(f, c, blocks, b0, b1, perm, fl, cum)
        if curv:
            _prefix_q(q, c, blocks, b0, b1, perm, ql, cum)
        for kb in range(b0, b1):
            B0, B1 = blocks[kb], blocks[kb + 1]
            for ka in range(b0, kb):
                _sweep(blocks[ka], blocks[ka + 1], B0, B1, False, fl, c, perm, cum, beta,
                       w_strict, 1.0, delta, ql, dbeta, X, cum_x, hess, curv, gamma, add,
                       add_x, D, E, S, acc[g], x_flags[ka])
            if w_tie > 0.0:
                _sweep(B0, B1, B0, B1, True, fl, c, perm, cum, -beta, w_tie, -1.0, delta, ql,
                       dbeta, X, cum_x, hess, curv, gamma, add, add_x, D, E, S, acc[g],
                       x_flags[kb])
        # Each item's share as the i of its pairs: prefix sums of the difference arrays.
        run_x = np.zeros(p) if hess else np.zeros(0)
        for k in range(b0, b1):
            r0 = r1 = r2 = 0.0
            vector = hess and x_flags[k, 1] == 1
            if vector:
                for d in range(p):
                    run_x[d] = 0.0
            n_open = 0.0
            for t in range(blocks[k], blocks[k + 1]):
                r0 += add[t, 0]
                r1 += add[t, 1]
                r2 += add[t, 2]
                n_open += add[t, 3]
                outside = n_open == 0.0
                if outside:
                    # Outside every quadratic range: what the sums hold is
                    # rounding, which would make D nonzero on every item.
                    r1 = r2 = 0.0
                item = perm[t]
                ci = c[item]
                gamma[item] += ci * (r0 + r1 * fl[item])
                if hess:
                    D[item] += ci * r1
                    E[item] -= ci * r2
                if vector:
                    for d in range(p):
                        run_x[d] += add_x[t, d]
                        add_x[t, d] = 0.0
                        if outside:
                            run_x[d] = 0.0
                        S[item, d] += ci * run_x[d]


@njit(cache=True)
def _count_run(A0, A1, B0, B1, same, fl, c, perm, cum, offset, inclusive):
    """sum of c_i c_j over (i in A, j in B, i != j if same) with z = offset + f_j - f_i
    below 1 (``inclusive``: at most 1); blocks sorted by f, ``cum`` their prefix sums."""
    nA = A1 - A0
    p = 0
    total = 0.0
    for tb in range(B1 - B0):
        j = perm[B0 + tb]
        fj = fl[j]
        while p < nA:
            z = offset + (fj - fl[perm[A0 + p]])
            if (z <= 1.0) if inclusive else (z < 1.0):
                break
            p += 1
        run = _run_sum(cum, 0, A0, p, nA)
        if same and tb >= p:
            run -= c[j]
        total += c[j] * run
    return total


@njit(cache=True, parallel=True)
def _bias_slope(fl, c, blocks, groups, perm, cum, beta, w_strict, w_tie, out):
    """Per group, the right derivative in beta of the exact hinge sum (u fixed):
    -w_s (strict pairs with z < 1) + w_t (ordered tie pairs with z <= 1)."""
    for g in prange(groups.shape[0] - 1):
        b0, b1 = groups[g], groups[g + 1]
        total = 0.0
        for kb in range(b0, b1):
            for ka in range(b0, kb):
                total -= w_strict * _count_run(blocks[ka], blocks[ka + 1], blocks[kb],
                                               blocks[kb + 1], False, fl, c, perm, cum, beta,
                                               False)
            if w_tie > 0.0:
                total += w_tie * _count_run(blocks[kb], blocks[kb + 1], blocks[kb],
                                            blocks[kb + 1], True, fl, c, perm, cum, -beta,
                                            True)
        out[g] = total


@njit(cache=True, parallel=True)
def _sort_all(f, c, blocks, groups, perm, fl, cum):
    for g in prange(groups.shape[0] - 1):
        _sort_group(f, c, blocks, groups[g], groups[g + 1], perm, fl, cum)


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
        self.S = np.zeros((n, p))  # zero between passes (see _pass)
        self.perm = np.arange(n, dtype=np.int64)  # each block's order by f (kept across passes)
        self.fl = np.empty(n)
        self.ql = np.empty(n)
        self.cum = np.empty((n, 5))
        self.cum_x = np.empty((n, p))
        self.add = np.empty((n, 4))
        self.add_x = np.zeros((n, p))  # zero between passes (see _pass)
        self.x_flags = np.zeros((problem.block_start.size - 1, 2), dtype=np.int8)
        self.acc = np.empty((problem.group_start.size - 1, 5))
        self._no_q = np.zeros(0)  # read only with a direction

    def run(self, f, beta, delta, *, hess=False, q=None, dbeta=0.0):
        """Per-group sums, reduced in a fixed order; gamma = dF_loss/df."""
        P = self.P
        _pass(f, P.weight, P.block_start, P.group_start, float(beta), P.strict_weight,
              P.tie_weight, float(delta), self._no_q if q is None else q, float(dbeta), P.X,
              bool(hess), q is not None, self.gamma, self.D, self.E, self.S, self.perm,
              self.fl, self.ql, self.cum, self.cum_x, self.add, self.add_x, self.x_flags,
              self.acc)
        return self.acc.sum(axis=0)

    def value(self, u, sums):
        return 0.5 * u @ u + sums[_VALUE]

    def gradient(self, u, sums):
        g = u + self.P.X.T @ self.gamma
        return np.append(g, sums[_GRAD_BETA]) if self.bias else g

    def hessian(self, sums):
        """The Newton system in (u, beta) from the last pass with ``hess``; only
        items in quadratic pairs (D > 0) contribute, and their S rows are
        zeroed for the next pass."""
        X = self.P.X
        rows = np.flatnonzero(self.D)
        Xq = X[rows]
        # X^T L X for the Laplacian L of the quadratic pairs: X^T (diag(D) X - S).
        M = self.D[rows, None] * Xq - self.S[rows]
        self.S[rows] = 0.0
        H_uu = Xq.T @ M
        H_uu = 0.5 * (H_uu + H_uu.T)
        H_uu[np.diag_indices_from(H_uu)] += 1.0
        if not self.bias:
            return H_uu
        n = self.p + 1
        H = np.empty((n, n))
        H[:self.p, :self.p] = H_uu
        H[:self.p, self.p] = H[self.p, :self.p] = Xq.T @ self.E[rows]
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


def _bias_interval(obj, f, spread, guess, width):
    """The interval of betas minimizing the exact hinge sum with u fixed
    (:func:`primal_bias_interval` over all pairs): bisection on the right
    derivative, a non-decreasing step function of beta, from a bracket of
    ``width`` around the smoothed problem's ``guess`` (widened as needed,
    never past the kinks' range)."""
    P = obj.P
    _sort_all(f, P.weight, P.block_start, P.group_start, obj.perm, obj.fl, obj.cum)
    out = np.empty(P.group_start.size - 1)

    def slope(beta):
        _bias_slope(obj.fl, P.weight, P.block_start, P.group_start, obj.perm, obj.cum, beta,
                    P.strict_weight, P.tie_weight, out)
        return out.sum()

    total = P.strict_weight * P.n_strict + P.tie_weight * P.n_tie_rows
    tol = 1e-12 * total
    edge = 2.0 + 2.0 * spread  # every kink lies within [-edge, edge]

    def first(pred, start):
        """The smallest beta (to rounding) where pred turns True."""
        step = width
        lo = hi = start
        while pred(lo) and lo > -edge:
            lo, step = max(start - step, -edge), 2.0 * step
        if pred(lo):
            return lo
        step = width
        while not pred(hi) and hi < edge:
            hi, step = min(max(lo, start) + step, edge), 2.0 * step
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

    low = first(lambda b: slope(b) >= -tol, guess)
    if not np.isfinite(low) or abs(slope(low)) > tol:
        return low, low
    high = first(lambda b: slope(b) > tol, low)
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
    # numba's loops take the count solver_threads set for this thread (numba
    # keeps its own per-thread count, which nothing else sets).
    before = numba.get_num_threads()
    numba.set_num_threads(min(threads_now(), numba.config.NUMBA_NUM_THREADS))
    try:
        return _solve(problem, bias, tol, delta_min, max_newton, v0)
    finally:
        numba.set_num_threads(before)


def _solve(problem, bias, tol, delta_min, max_newton, v0):
    obj = _Passes(problem, bool(bias))
    X = problem.X
    p = X.shape[1]
    v = np.zeros(p + bool(bias)) if v0 is None else np.array(v0, dtype=np.float64)
    f = X @ v[:p]
    total = 0
    converged = True
    delta = 1.0
    for delta in smoothing_levels(delta_min):
        level_done = False
        fval = None
        for _ in range(max_newton):
            beta = v[p] if bias else 0.0
            sums = obj.run(f, beta, delta, hess=True)
            fval = obj.value(v[:p], sums)
            g = obj.gradient(v[:p], sums)
            step, decrement, level_done = newton_step(g, obj.hessian(sums), fval, tol)
            if level_done:
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
            "level; the solution may be inaccurate.", ConvergenceWarning, stacklevel=4)
    u = v[:p].copy()
    spread = _spread(f, problem)
    beta = 0.0
    if bias:
        beta = choose_bias(*_bias_interval(obj, f, spread, v[p], max(delta, 1e-8) * 4))
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
