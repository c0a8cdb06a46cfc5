"""Approximate leave-one-pair-out fitted values of the dual (18), without refits.

A probability link needs scores of pairs that the model did not see.  K-fold
refits give them at the cost of K more fits.  Opper and Winther (2000, "Gaussian
processes and SVM: mean field results and leave-one-out") give the change of
an SVM's solution when one example leaves, under one assumption: every other
example keeps its place (bounded rows stay at their bound, rows outside the
margin stay at 0, free rows stay on the margin).  Removing the rows S of one
pair (its support vectors, alpha_S > 0) then moves only the free rows
F' = F \\ S and the bias, by the solution (delta, delta_b) of

    [ Q_F'F'  y_F' ] [ delta   ]   [ Q_F'S alpha_S ]
    [ y_F'^T   0   ] [ delta_b ] = [ y_S^T alpha_S ]        (bias; without
                                                             one Q_F'F' delta = Q_F'S alpha_S)

which keeps the margins y_t f_t = 1 of F' (eq. 18's stationarity on the free
rows) and y^T alpha = 0 (its equality constraint).  The fitted value of a row r
of the removed pair moves by

    f_r' - f_r = sum_{s in F'} y_s K~_rs delta_s - sum_{s in S} y_s K~_rs alpha_s,

the expansion u = sum_t alpha_t y_t (Phi(b_t) - Phi(a_t)) of eq. (17) with
the pair's terms gone and the free terms moved.  With B = the bordered matrix
of the full free set F and P = B^-1, the system on F' = F \\ T (T = the free
rows of the pair) is solved for every pair at once: z = P r, then
z <- z - P_:T (P_TT)^-1 z_T (the inverse with T's rows and columns removed,
block elimination), which needs one |F| x |F| factorization for all pairs.
Pairs without support vectors keep their fitted values exactly (the solution
does not change when a row with alpha = 0 leaves).

The estimate is exact when the assumption holds and otherwise an
approximation that Opper and Winther found accurate; what matters here is that
the link fitted on it predicts as well as the K-fold scores, which
``benchmarks/bench_calibration.py`` checks on simulated and real data.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

# A ridge on Q_FF, relative to its largest diagonal entry.  Where the system
# is singular it is still consistent and every solution moves u alike (a null
# vector (delta, 0) has Q delta = 0, so sum_s y_s delta_s Phi_s = 0), and the
# ridge picks one: duplicate pairs, two tie pairs with both rows free (then
# beta = -1 and moving weight between their row sums changes nothing).  The
# null directions then hold entries ~1 / _RIDGE that cancel in K~ delta,
# leaving ~1e-8 relative rounding; the ridge itself moves the rest by ~1e-8.
_RIDGE = 1e-8
# Past this 1-norm condition number of the bordered matrix (with the ridge)
# rounding could reach the estimates' leading digits: no estimate.
MAX_CONDITION = 1e12
_CHUNK_ELEMENTS = 1 << 22  # entries of a free-rows x pairs block held at once


def loo_changes(block, diagonal, y, C, alpha, pair, context, use_bias, max_free=None):
    """Change of each pair's fitted value when that pair leaves the training set.

    Parameters
    ----------
    block : callable
        ``block(R, S)`` -> K~ between rows R and S (eq. 18, context block
        included), an ndarray of shape (len(R), len(S)).
    diagonal : callable
        ``diagonal(R)`` -> K~_rr of the rows R.
    y, C, alpha : ndarray of shape (m,)
        Labels, box bounds and the solution of (18).
    pair : ndarray of shape (m,)
        The pair each row comes from.  The rows of one pair are one difference
        in both orientations (eq. 8's tie rows): K~ between them is -K~_rr.
    context : ndarray of shape (m, q)
        Each row's pair context (q = 0 without one): its block c_r . c_s is
        part of K~ but not of the rank gap.
    use_bias : bool
        Whether (18) has the equality constraint y^T alpha = 0.
    max_free : int, optional
        No estimate (None) past this many free rows (the system is |F| x |F|).

    Returns
    -------
    None when more than ``max_free`` rows are free or the system is too
    ill-conditioned (``MAX_CONDITION``); else the tuple (rows, change, free):

    rows : ndarray of int
        One support-vector row of each pair that has one.
    change : ndarray of float
        For each of ``rows``, the change of u^T (Phi(b_r) - Phi(a_r)) (the
        fitted value without bias and context term) when its pair leaves.
    free : int
        The number of free rows, |F| (the size of the system factorized).
    """
    sv = np.flatnonzero(alpha > 0.0)
    sv = sv[np.argsort(pair[sv], kind="stable")]
    starts = np.flatnonzero(np.r_[True, pair[sv][1:] != pair[sv][:-1]])
    rows = sv[starts]
    free = np.flatnonzero((alpha > 0.0) & (alpha < C))
    n_free = free.size
    if max_free is not None and n_free > max_free:
        return None
    if rows.size == 0:
        return rows, np.zeros(0), n_free
    # Each pair's own terms: sum_{s in S} y_s K~_rs alpha_s with K~_rs = +-K~_rr.
    same = np.repeat(rows, np.diff(np.r_[starts, sv.size]))
    sign = np.where(sv == same, 1.0, -1.0)
    own_item = _item_diagonal(diagonal, rows, context)
    own = np.add.reduceat(sign * y[sv] * alpha[sv], starts) * own_item
    if n_free == 0:
        return rows, -own, 0
    inverse = _bordered_inverse(block(free, free) * np.outer(y[free], y[free]), y[free],
                                use_bias)
    if inverse is None:
        return None
    # The column of each free row's pair among ``rows`` (sorted by pair).
    free_col = np.searchsorted(pair[rows], pair[free])
    change = np.empty(rows.size)
    step = max(1, _CHUNK_ELEMENTS // max(n_free, 1))
    for lo in range(0, rows.size, step):
        hi = min(lo + step, rows.size)
        first, last = starts[lo], starts[hi] if hi < rows.size else sv.size
        change[lo:hi] = _moved_free_terms(
            block, inverse, free, y, alpha, sv[first:last], starts[lo:hi] - first,
            rows[lo:hi], context, free_col - lo, use_bias) - own[lo:hi]
    return rows, change, n_free


def _item_diagonal(diagonal, rows, context):
    """K~_rr without the context block: ||Phi(b_r) - Phi(a_r)||^2."""
    return diagonal(rows) - np.einsum("ij,ij->i", context[rows], context[rows])


def _bordered_inverse(Q, y, use_bias):
    """The inverse of B = [[Q, y], [y^T, 0]] (or of Q without a bias), Q + the
    ridge; None when B's condition number exceeds ``MAX_CONDITION``.

    Q alone is singular where B need not be: a tie pair with both rows free
    (beta = -1 exactly, u on its difference 0) has rows Q_r = -Q_r', while the
    border keeps B's rows r, r' independent; so B is what is checked.
    """
    n = Q.shape[0]
    ridge = _RIDGE * max(float(np.max(np.diag(Q))), 1e-300)
    B = np.zeros((n + use_bias, n + use_bias))
    B[:n, :n] = Q + ridge * np.eye(n)
    if use_bias:
        B[:n, n] = y
        B[n, :n] = y
    try:
        inverse = scipy.linalg.inv(B, check_finite=False)
    except (np.linalg.LinAlgError, ValueError):
        return None
    if not np.all(np.isfinite(inverse)):
        return None
    condition = np.abs(B).sum(axis=0).max() * np.abs(inverse).sum(axis=0).max()  # 1-norms
    return inverse if condition <= MAX_CONDITION else None


def _moved_free_terms(block, inverse, free, y, alpha, sv, starts, rows, context, free_col,
                      use_bias):
    """sum_{s in F'} y_s K~_rs delta_s (context block removed) for the pairs whose
    support-vector rows are ``sv`` (grouped by pair from ``starts``), ``rows``
    their representative rows; ``free_col[k]`` is the column of free row k's
    pair in this chunk (outside [0, len(rows)) when its pair is elsewhere)."""
    n_free = free.size
    K = block(free, sv)  # f x |sv|
    # r = sum_{s in S} alpha_s [Q_Fs; y_s] for each pair.
    weighted = K * (y[free][:, None] * (y[sv] * alpha[sv])[None, :])
    r = np.add.reduceat(weighted, starts, axis=1)
    if use_bias:
        r = np.vstack([r, np.add.reduceat(y[sv] * alpha[sv], starts)[None, :]])
    z = inverse @ r
    # Pairs with free rows T: remove T's rows and columns from the inverse.
    inside = np.flatnonzero((free_col >= 0) & (free_col < rows.size))
    columns, counts = np.unique(free_col[inside], return_counts=True)
    single = np.isin(free_col[inside], columns[counts == 1])
    k1 = inside[single]
    c1 = free_col[k1]
    z[:, c1] -= inverse[:, k1] * (z[k1, c1] / inverse[k1, k1])
    for c in columns[counts > 1]:
        T = inside[free_col[inside] == c]
        z[:, c] -= inverse[:, T] @ np.linalg.solve(inverse[np.ix_(T, T)], z[T, c])
    delta = z[:n_free]
    # K~_rF for the representative rows: the column of r among ``sv``.
    K_rows = K[:, starts] - context[free] @ context[rows].T
    return np.einsum("fc,fc->c", K_rows, y[free][:, None] * delta)


def kernel_rows(problem, kernel):
    """``block`` and ``diagonal`` for :func:`loo_changes` from the items of
    ``problem`` (a BinaryProblem) and ``kernel``: K~ = M^T K M (eq. 18) plus the
    context block."""
    items, a, b, context = problem.items, problem.a, problem.b, problem.context

    def block(R, S):
        index_r, pos_r = np.unique(np.concatenate([a[R], b[R]]), return_inverse=True)
        index_s, pos_s = np.unique(np.concatenate([a[S], b[S]]), return_inverse=True)
        K = kernel.block(items[index_r], items[index_s])
        ra, rb = pos_r[:R.size], pos_r[R.size:]
        sa, sb = pos_s[:S.size], pos_s[S.size:]
        out = K[np.ix_(rb, sb)] - K[np.ix_(rb, sa)] - K[np.ix_(ra, sb)] + K[np.ix_(ra, sa)]
        if context.shape[1]:
            out += context[R] @ context[S].T
        return out

    def diagonal(R):
        A, B = items[a[R]], items[b[R]]
        out = kernel.paired(A, A) + kernel.paired(B, B) - 2.0 * kernel.paired(A, B)
        return out + np.einsum("ij,ij->i", context[R], context[R])

    return block, diagonal
