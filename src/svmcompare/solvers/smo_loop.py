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
Past two chunks of active rows, WSS2's two loops (and the coordinate
selection without a bias) run in fixed chunks on all threads, the chunk
winners combined by the serial loop's tie rule, so the steps do not depend
on the thread count; rows of Q over all items are computed in parallel
chunks as well (``_kernel_rows``).

The stopping rule is LIBSVM's: the maximal KKT violation
``max_{I_up} -y_t G_t + max_{I_low} y_t G_t`` (with a bias) or the largest
projected gradient (without) is below ``tol``.

Shrinking (LIBSVM's, Joachims 1999) sets aside variables at a bound whose
gradient would have to move by more than the current violation before they
could join a step.  Selection, gradient updates and new rows then cost
O(active rows), and a new row needs kernel values for the active rows' items
only.  Unlike LIBSVM no gradient of the set-aside rows is kept up to date
(that needs whole rows whenever a variable reaches or leaves C, which here
costs as much as the rows saved): it is rebuilt from the support items, or
from cached whole rows, when the violation on the active rows first falls
below 10 tol and again when they are optimal, and the whole problem is
checked before stopping.  Because that rebuild costs about one
kernel row per support vector, shrinking starts only once the number of
steps exceeds the number of support vectors, i.e. once steps revisit
variables and rows are reused.
"""


from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..kernels import PRECOMPUTED
from ._kernel_rows import item_kernel_row, items_of, position, q_diagonal, q_row

_TAU = 1e-12  # curvature floor for degenerate (duplicate) rows, as LIBSVM

# The functions of one SMO step (_select, _take_step, _row, ...) are inlined
# into the loop of _smo (numba's inline="always"): as separate calls they cost
# 15% of a step on small, fully cached problems, where a step is a few µs.


# --- Active set and row cache ------------------------------------------------
# ``act`` = (rows, items, size, gen): ``rows`` is a permutation of 0..m-1 whose
# first size[0] entries are the active rows (sorted), ``items[:size[1]]`` the
# items they use; gen[0] counts the times the active set grew (unshrinking).
# ``cache`` = (data, slot_of, owner, stamp, clock, full, slot_gen, work): an
# LRU cache of rows of Q.  A row is valid on the active rows if it was computed
# in the current generation (the active set only shrinks within one) and on
# all rows if ``full``.  clock[0] orders the slots by last use; clock[1] adds up
# the work of the rows and gradients computed (in units of about a nanosecond,
# see _row_work), which bounds the work done before handing the loop to a
# worker thread; clock[2] != 0 asks the loop to stop (Ctrl-C); clock[3] is
# numba's thread count for the loop (one thread: no chunked selection).


@njit(cache=True, inline="always")
def _row(s, kp, pairs, act, cache):
    """Slot of row s of Q in the cache, computing it if missing or too short."""
    rows, items, size, gen = act
    data, slot_of, owner, stamp, clock, full, slot_gen, work = cache[:8]
    m = rows.shape[0]
    clock[0] += 1
    slot = slot_of[s]
    if slot >= 0:
        stamp[slot] = clock[0]
        if full[slot] or slot_gen[slot] == gen[0]:
            return slot
    else:
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
    if size[0] == m:
        q_row(s, kp, pairs, None, m, items, kp[1].shape[0], work, data[slot])
        full[slot] = True
    else:
        q_row(s, kp, pairs, rows, size[0], items, size[1], work, data[slot])
        full[slot] = False
    slot_gen[slot] = gen[0]
    # A Gram matrix's values are read, not computed: no per-feature cost.
    clock[1] += _row_work(size[1], size[0], 0 if kp[0] == PRECOMPUTED else kp[1].shape[1])
    return slot


@njit(cache=True, inline="always")
def _row_work(n_items, n_rows, n_features):
    """Work of one row of Q: two kernel rows over the items and a gather over
    the rows.  Measured costs are about (p + 2) ns per kernel value and 2 ns per
    gathered entry; only the ratio to a step's 3 ns per active row matters."""
    return 2 * n_items * (n_features + 2) + 2 * n_rows


@njit(cache=True)
def _activate_all(act):
    """Make every row active again (unshrinking); rows computed before go stale."""
    rows, items, size, gen = act
    for t in range(rows.shape[0]):
        rows[t] = t
    for t in range(items.shape[0]):
        items[t] = t
    size[0] = rows.shape[0]
    size[1] = items.shape[0]
    gen[0] += 1


# --- Optimality and shrinking ------------------------------------------------


@njit(cache=True)
def _in_up(y_t, alpha_t, C_t):
    """A row may move in the direction that increases y_t alpha_t (LIBSVM's I_up).

    The helpers of the hot loops take scalars: passing arrays to a compiled
    function costs reference counting on every call, ten times the loop body.
    """
    return (y_t > 0 and alpha_t < C_t) or (y_t < 0 and alpha_t > 0.0)


@njit(cache=True)
def _in_low(y_t, alpha_t, C_t):
    """A row may move in the direction that decreases y_t alpha_t (I_low)."""
    return (y_t > 0 and alpha_t > 0.0) or (y_t < 0 and alpha_t < C_t)


@njit(cache=True)
def _projected_gradient(g, alpha_t, C_t):
    """The gradient component that can still decrease the objective in the box [0, C_t]."""
    if C_t <= 0.0:
        # A row of weight 0: its box is the point 0, nothing to move (read as
        # at 0 only, a negative gradient was a violation no step could
        # remove, and SVMRank(solver="exact") with weights of 0 never converged).
        return 0.0
    if alpha_t <= 0.0:
        return min(g, 0.0)
    if alpha_t >= C_t:
        return max(g, 0.0)
    return g


@njit(cache=True)
def _violation_bounds(rows, y, G, alpha, C, use_bias):
    """(max_{I_up} -y_t G_t, max_{I_low} y_t G_t) over ``rows``; their sum is the
    maximal KKT violation.  Without a bias: (max |projected gradient|, 0)."""
    g1 = -np.inf
    g2 = -np.inf
    if not use_bias:
        g1 = 0.0
        g2 = 0.0
    for k in range(rows.shape[0]):
        t = rows[k]
        if use_bias:
            if _in_up(y[t], alpha[t], C[t]):
                g1 = max(g1, -y[t] * G[t])
            if _in_low(y[t], alpha[t], C[t]):
                g2 = max(g2, y[t] * G[t])
        else:
            g1 = max(g1, abs(_projected_gradient(G[t], alpha[t], C[t])))
    return g1, g2


@njit(cache=True)
def _be_shrunk(y_t, G_t, alpha_t, C_t, g1, g2, use_bias):
    """Row t sits at a bound, and its gradient would have to move by more than
    the current violation before it could join a violating pair (LIBSVM's rule;
    without a bias the same idea on the projected gradient)."""
    if alpha_t >= C_t:
        if not use_bias:
            return -G_t > g1
        return -G_t > (g1 if y_t > 0 else g2)
    if alpha_t <= 0.0:
        if not use_bias:
            return G_t > g1
        return G_t > (g2 if y_t > 0 else g1)
    return False


@njit(cache=True)
def gradient_on(rows, kp, pairs, alpha, cache, G):
    """Set G_t = (Q alpha)_t - 1 for the listed rows (warm starts, unshrinking).

    A support row s whose whole row of Q is cached adds alpha_s Q_st directly.
    The others go through the items: their part of (Q alpha)_t is
    y_t (f(b_t) - f(a_t)) with f(z) = sum_i c_i k(z_i, z) and
    c = sum_s alpha_s y_s (e_{b_s} - e_{a_s}) (eqs. 17 and 19), one kernel row
    per item with a nonzero coefficient, over the items of the listed rows.
    """
    a, b, y, ctx = pairs
    data, slot_of, full, work = cache[0], cache[1], cache[5], cache[7]
    n_items = kp[1].shape[0]
    for t in rows:
        G[t] = -1.0
    coef = np.zeros(n_items)
    v = np.zeros(ctx.shape[1])  # sum_s alpha_s y_s c_s over the uncached rows
    for s in range(alpha.shape[0]):
        if alpha[s] == 0.0:
            continue
        slot = slot_of[s]
        if slot >= 0 and full[slot]:
            for t in rows:
                G[t] += alpha[s] * data[slot, t]
        else:
            coef[b[s]] += alpha[s] * y[s]
            coef[a[s]] -= alpha[s] * y[s]
            for f in range(v.shape[0]):
                v[f] += alpha[s] * y[s] * ctx[s, f]
    targets = np.empty(n_items, dtype=np.int64)
    n_targets = items_of(rows, pairs, n_items, targets)
    f = np.zeros(n_items)
    krow = work[0]
    for i in range(n_items):
        if coef[i] != 0.0:
            if cache[4][2] != 0:
                return  # interrupted: G is abandoned with the fit
            item_kernel_row(kp, i, targets, n_targets, krow, work)
            for k in range(n_targets):
                f[targets[k]] += coef[i] * krow[targets[k]]
            cache[4][1] += n_targets * (kp[1].shape[1] + 3)
    for t in rows:
        G[t] += y[t] * (f[b[t]] - f[a[t]])
        for k in range(v.shape[0]):
            G[t] += y[t] * v[k] * ctx[t, k]


@njit(cache=True)
def _shrink(kp, pairs, act, cache, G, alpha, C, use_bias, tol, unshrunk):
    """Set aside the rows that cannot take part in a step soon (LIBSVM's shrinking).

    The first time the violation on the active rows falls below 10 tol, every
    row comes back once (with its gradient reconstructed), so that the final
    iterations work on the whole problem.  Returns the updated ``unshrunk``.
    """
    rows, items, size, _ = act
    y = pairs[2]
    g1, g2 = _violation_bounds(rows[:size[0]], y, G, alpha, C, use_bias)
    if not unshrunk and g1 + g2 <= 10.0 * tol:
        unshrunk = True
        if size[0] < rows.shape[0]:
            _rebuild_gradient(rows[size[0]:], kp, pairs, alpha, cache, G)
            _activate_all(act)
            g1, g2 = _violation_bounds(rows, y, G, alpha, C, use_bias)
    n = size[0]
    m = rows.shape[0]
    drop = 0
    for k in range(n):
        t = rows[k]
        drop += _be_shrunk(y[t], G[t], alpha[t], C[t], g1, g2, use_bias)
    # Loops over a subset gather through ``rows`` at about 1.5x the cost per
    # row of loops over all rows: leaving the whole set pays only for a cut of
    # a quarter or more.
    if drop == 0 or (n == m and 4 * (n - drop) > 3 * m):
        return unshrunk
    shrunk = np.empty(drop, dtype=np.int64)
    keep = 0
    drop = 0
    for k in range(n):  # stable partition: kept rows stay sorted
        t = rows[k]
        if _be_shrunk(y[t], G[t], alpha[t], C[t], g1, g2, use_bias):
            shrunk[drop] = t
            drop += 1
        else:
            rows[keep] = t
            keep += 1
    for k in range(drop):  # not a slice assignment: see item_kernel_row
        rows[keep + k] = shrunk[k]
    size[0] = keep
    size[1] = items_of(rows[:keep], pairs, items.shape[0], items)
    return unshrunk


# --- Working-set selection and steps -----------------------------------------


_SELECT_CHUNK = 8192  # active rows per task of the parallel selection
_PARALLEL_SELECT = 2 * _SELECT_CHUNK
_UP, _LOW, _COORDINATE = 0, 1, 2  # the loops of _chunk_winners


@njit(cache=True)
def _up_winner(lo, hi, whole, rows, y, G, alpha, C):
    """(max -y_t G_t over I_up, its last row) over positions lo..hi-1."""
    gmax = -np.inf
    i = np.int64(-1)
    for k in range(lo, hi):
        t = k if whole else rows[k]
        if _in_up(y[t], alpha[t], C[t]):
            v = -y[t] * G[t]
            if v >= gmax:
                gmax = v
                i = t
    return gmax, 0.0, i


@njit(cache=True)
def _low_winner(lo, hi, whole, rows, i, gmax, y, G, alpha, C, QD, qi):
    """(the smallest WSS2 objective, max y_t G_t over I_low, the objective's
    last row) over positions lo..hi-1, ``qi`` row i of Q."""
    low = -np.inf
    gain = np.inf
    j = np.int64(-1)
    for k in range(lo, hi):
        t = k if whole else rows[k]
        if _in_low(y[t], alpha[t], C[t]):
            v = y[t] * G[t]
            if v >= low:
                low = v
            grad_diff = gmax + v
            if grad_diff > 0.0:
                quad = QD[i] + QD[t] - 2.0 * y[i] * y[t] * qi[t]
                if quad <= 0.0:
                    quad = _TAU
                obj = -(grad_diff * grad_diff) / quad
                if obj <= gain:
                    gain = obj
                    j = t
    return gain, low, j


@njit(cache=True)
def _coordinate_winner(lo, hi, whole, rows, G, alpha, C, QD):
    """(the largest gain pg^2 / Q_tt, the largest |pg|, the gain's first row)
    over positions lo..hi-1 (the dual without a bias)."""
    gain_max = -1.0
    violation = 0.0
    i = np.int64(-1)
    for k in range(lo, hi):
        t = k if whole else rows[k]
        pg = _projected_gradient(G[t], alpha[t], C[t])
        violation = max(violation, abs(pg))
        gain = pg * pg / max(QD[t], _TAU)
        if gain > gain_max:
            gain_max = gain
            i = t
    return gain_max, violation, i


@njit(cache=True, parallel=True)
def _chunk_winners(mode, rows, n, i, gmax, y, G, alpha, C, QD, qi):
    """One selection loop over rows[:n] (``mode``: _UP, _LOW or _COORDINATE,
    returning what :func:`_up_winner`, :func:`_low_winner` or
    :func:`_coordinate_winner` returns over them) in fixed chunks on all
    threads, the chunks' winners combined by the serial loop's tie rule, so
    the same row wins on any thread count.  One parallel function for the
    three loops, since numba compiles every parallel function apart (about a
    second each); pass ``mode`` as np.int64, not the constant: a literal
    compiles one copy per value."""
    n_chunks = (n + _SELECT_CHUNK - 1) // _SELECT_CHUNK
    whole = n == rows.shape[0]  # every row active: rows is the identity
    best = np.empty(n_chunks)
    top = np.empty(n_chunks)
    at = np.empty(n_chunks, dtype=np.int64)
    for c in prange(n_chunks):
        lo = c * _SELECT_CHUNK
        hi = min(n, lo + _SELECT_CHUNK)
        if mode == _UP:
            best[c], top[c], at[c] = _up_winner(lo, hi, whole, rows, y, G, alpha, C)
        elif mode == _LOW:
            best[c], top[c], at[c] = _low_winner(lo, hi, whole, rows, i, gmax, y, G, alpha,
                                                 C, QD, qi)
        else:
            best[c], top[c], at[c] = _coordinate_winner(lo, hi, whole, rows, G, alpha, C, QD)
    # The serial loops' starting values and tie rules: the last of the largest
    # (_UP), the last of the smallest (_LOW), the first of the largest.
    value = -np.inf if mode == _UP else (np.inf if mode == _LOW else -1.0)
    extra = -np.inf if mode == _LOW else 0.0
    win = np.int64(-1)
    for c in range(n_chunks):
        extra = max(extra, top[c])
        if at[c] < 0:
            continue
        if mode == _UP:
            better = best[c] >= value
        elif mode == _LOW:
            better = best[c] <= value
        else:
            better = best[c] > value
        if better:
            value = best[c]
            win = at[c]
    return value, extra, win


@njit(cache=True, inline="always")
def _select(kp, pairs, act, cache, G, alpha, C, QD, use_bias, active):
    """Working set on the active rows: (i, j, violation); j = -1 without a bias.

    ``active`` is act[0] while rows are set aside and None when all are active.
    """
    y = pairs[2]
    n = act[2][0]
    # The winners' indices start as np.int64(-1), not -1: a literal reaching
    # _row compiled it (and the kernel rows under it) once more, for the type
    # Literal[int](-1): ~4 s of a first fit.
    # Past two chunks of rows the loops run in chunks on all threads (the
    # same rows as one loop: the chunk winners are combined by its tie rule;
    # on one thread the chunks only cost time).
    chunked = n >= _PARALLEL_SELECT and cache[4][3] > 1
    rows = act[0]
    whole = active is None  # rows is then the identity
    if not use_bias:
        # Greedy coordinate descent: the largest second-order gain pg^2 / Q_tt.
        if chunked:
            _, violation, i = _chunk_winners(np.int64(_COORDINATE), rows, n, np.int64(-1), 0.0,
                                             G, G, alpha, C, QD, G)
        else:
            _, violation, i = _coordinate_winner(0, n, whole, rows, G, alpha, C, QD)
        return i, np.int64(-1), violation
    # WSS2 (Fan, Chen and Lin 2005): i maximizes -y_t G_t over I_up, then j
    # maximizes the decrease of the two-variable subproblem.
    if chunked:
        gmax, _, i = _chunk_winners(np.int64(_UP), rows, n, np.int64(-1), 0.0, y, G, alpha, C,
                                    G, G)
    else:
        gmax, _, i = _up_winner(0, n, whole, rows, y, G, alpha, C)
    gmax2 = -np.inf
    j = np.int64(-1)
    if i >= 0:
        si = _row(i, kp, pairs, act, cache)
        if chunked:
            _, gmax2, j = _chunk_winners(np.int64(_LOW), rows, n, i, gmax, y, G, alpha, C, QD,
                                         cache[0][si])
        else:
            _, gmax2, j = _low_winner(0, n, whole, rows, i, gmax, y, G, alpha, C, QD,
                                      cache[0][si])
    if j < 0:
        return i, j, -np.inf
    return i, j, gmax + gmax2


@njit(cache=True, inline="always")
def _pair_step(i, j, qij, y, C, QD, G, alpha):
    """Solve the two-variable subproblem on (i, j) analytically (LIBSVM's update)."""
    Ci = C[i]
    Cj = C[j]
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
        _clip_on_sum(alpha, i, j, total, Ci)
        _clip_on_sum(alpha, j, i, total, Cj)


@njit(cache=True, inline="always")
def _clip_on_sum(alpha, first, second, total, c_first):
    """Back into the box along a_first + a_second = total: a_first down to
    c_first when the sum allows it, else a_second up to 0 (LIBSVM's clipping
    for rows of one label, applied once from each side)."""
    if total > c_first:
        if alpha[first] > c_first:
            alpha[first] = c_first
            alpha[second] = total - c_first
    elif alpha[second] < 0.0:
        alpha[second] = 0.0
        alpha[first] = total


@njit(cache=True, inline="always")
def _coordinate_step(i, C, QD, G, alpha):
    """Minimize over alpha_i alone in [0, C_i] (the dual without a bias)."""
    if QD[i] > _TAU:
        new = alpha[i] - G[i] / QD[i]
    else:
        # A zero-length difference: the objective is linear in alpha_i.
        new = C[i] if G[i] < 0.0 else 0.0
    alpha[i] = min(max(new, 0.0), C[i])


@njit(cache=True, inline="always")
def _take_step(i, j, kp, pairs, act, cache, G, alpha, C, QD, use_bias, active):
    """Move alpha_i (and alpha_j), then update the gradient on the active rows
    (``active`` as in _select)."""
    size = act[2]
    data = cache[0]
    y = pairs[2]
    si = _row(i, kp, pairs, act, cache)
    old_i = alpha[i]
    if use_bias:
        sj = _row(j, kp, pairs, act, cache)
        old_j = alpha[j]
        _pair_step(i, j, data[si, j], y, C, QD, G, alpha)
        di = alpha[i] - old_i
        dj = alpha[j] - old_j
        for k in range(size[0]):
            t = position(active, k)
            G[t] += data[si, t] * di + data[sj, t] * dj
    else:
        _coordinate_step(i, C, QD, G, alpha)
        di = alpha[i] - old_i
        for k in range(size[0]):
            t = position(active, k)
            G[t] += data[si, t] * di


# --- The loop -----------------------------------------------------------------
# A compiled loop cannot see Ctrl-C: Python runs signal handlers only between
# bytecodes of the main thread.  The loop therefore runs a first, short slice
# of work in the calling thread (small problems end there, at no cost), then
# goes on in a worker thread that releases the GIL while the calling thread
# waits, and stops at the next step when that thread sets the stop flag.  Its
# state (gradient, active set, cache, counters) lives in arrays made by
# smo_start, so that both parts run the same loop.

# Fields of the int64 ``state`` array.
N_ITER, COUNTER, UNSHRUNK, MOST_SHRUNK, DONE, PERIOD = range(6)


@njit(cache=True)
def smo_start(kp, pairs, alpha, n_slots, gradient0):
    """Active set, row cache, diagonal of Q and gradient G = Q alpha - 1
    (``gradient0`` when it has m entries, else computed)."""
    m = alpha.shape[0]
    n_items = kp[1].shape[0]
    act = (np.arange(m), np.arange(n_items), np.array([m, n_items]),
           np.zeros(1, dtype=np.int64))
    cache = (np.empty((n_slots, m)), -np.ones(m, dtype=np.int64),
             -np.ones(n_slots, dtype=np.int64), np.zeros(n_slots, dtype=np.int64),
             np.zeros(4, dtype=np.int64), np.zeros(n_slots, dtype=np.bool_),
             np.zeros(n_slots, dtype=np.int64),
             (np.empty(n_items), np.empty(n_items), np.empty(n_items), np.empty(n_items),
              np.empty(n_items, dtype=np.int64)),
             (alpha.copy(), np.empty(m)))  # the start (alpha0, G0): see _rebuild_gradient
    QD = q_diagonal(kp, pairs)
    # A warm start needs the kernel rows of its support items.
    if gradient0.shape[0] == m:
        G = gradient0.copy()
    else:
        G = -np.ones(m)
        if np.any(alpha != 0.0):
            gradient_on(act[0], kp, pairs, alpha, cache, G)
    # Element by element, not ``G0[:] = G``: a slice assignment compiles
    # numba's shape-mismatch message (string formatting), 1.3 s of a first fit.
    G0 = cache[8][1]
    for t in range(m):
        G0[t] = G[t]
    return act, cache, QD, G


@njit(cache=True)
def _rebuild_gradient(rows, kp, pairs, alpha, cache, G):
    """G_t = (Q alpha)_t - 1 on the listed rows (set-aside rows coming back),
    as G0_t + (Q (alpha - alpha0))_t from the start (alpha0, G0): the kernel
    rows of the variables that moved since the start, not of every support
    vector, which is what a warm start near its optimum saves (a calibration
    fold moves a few hundred of thousands).  From a cold start (alpha0 = 0,
    G0 = -1) it is :func:`gradient_on` itself."""
    alpha0, G0 = cache[8]
    gradient_on(rows, kp, pairs, alpha - alpha0, cache, G)  # (Q change)_t - 1
    for t in rows:
        G[t] += G0[t] + 1.0


@njit(cache=True)
def _moved_since_start(alpha, cache):
    """How many variables differ from the start: the support rows whose
    kernel rows :func:`_rebuild_gradient` needs."""
    alpha0 = cache[8][0]
    moved = 0
    for t in range(alpha.shape[0]):  # a loop: np.count_nonzero compiles for 0.6 s
        moved += alpha[t] != alpha0[t]
    return moved


@njit(cache=True, nogil=True)
def smo_steps(kp, pairs, C, alpha, G, QD, act, cache, use_bias, tol, shrinking, state,
               stop, budget):
    """SMO steps until convergence (state[DONE] = 1), state[N_ITER] == stop, the
    stop flag (clock[2]), or the work since the call began (clock[1] and 3
    units per active row per step) exceeds ``budget``."""
    m = C.shape[0]
    work = cache[4]
    work_end = work[1] + budget
    n_iter = state[N_ITER]
    counter = state[COUNTER]
    unshrunk = state[UNSHRUNK] != 0
    most_shrunk = state[MOST_SHRUNK]
    size = act[2]
    while n_iter < stop and work[1] < work_end and work[2] == 0:
        work[1] += 3 * size[0]
        if shrinking:
            counter -= 1
            if counter == 0:
                counter = min(m, state[PERIOD])
                # Bringing shrunk rows back costs about one kernel row per
                # variable moved since the start; it pays only once steps
                # revisit variables.
                if n_iter >= _moved_since_start(alpha, cache):
                    unshrunk = _shrink(kp, pairs, act, cache, G, alpha, C, use_bias, tol,
                                       unshrunk)
                    most_shrunk = max(most_shrunk, m - size[0])
        if size[0] == m:
            i, j, violation = _select(kp, pairs, act, cache, G, alpha, C, QD, use_bias, None)
        else:
            i, j, violation = _select(kp, pairs, act, cache, G, alpha, C, QD, use_bias, act[0])
        if violation < tol:
            if size[0] == m:
                state[DONE] = 1
                break
            # Optimal on the active rows: check the whole problem before stopping,
            # by the selection at the top of the loop (one inlined copy of
            # _select fewer to compile).  counter = 2 shrinks again right after
            # that step, as the next step would: every step stays the same.
            _rebuild_gradient(act[0][size[0]:], kp, pairs, alpha, cache, G)
            _activate_all(act)
            counter = 2
            continue
        if size[0] == m:
            _take_step(i, j, kp, pairs, act, cache, G, alpha, C, QD, use_bias, None)
        else:
            _take_step(i, j, kp, pairs, act, cache, G, alpha, C, QD, use_bias, act[0])
        n_iter += 1
        state[N_ITER] = n_iter  # read by the progress line of the calling thread
    state[COUNTER] = counter
    state[UNSHRUNK] = unshrunk
    state[MOST_SHRUNK] = most_shrunk


@njit(cache=True)
def smo_finish(kp, pairs, C, alpha, G, act, cache, use_bias):
    """(KKT violation, dual objective) on the whole problem."""
    m = C.shape[0]
    size = act[2]
    if size[0] < m:  # stopped by max_iter while shrunk
        _rebuild_gradient(act[0][size[0]:], kp, pairs, alpha, cache, G)
    g1, g2 = _violation_bounds(np.arange(m), pairs[2], G, alpha, C, use_bias)
    objective = 0.0
    for t in range(m):
        objective += 0.5 * alpha[t] * (G[t] - 1.0)
    return max(g1 + g2, 0.0), objective


@njit(cache=True, nogil=True)  # calibration folds run it side by side in threads
def q_product(kp, pairs, delta, rows, cached):
    """(Q delta)_t for the listed rows t, Q_st = y_s y_t K~_st (eq. 18), as
    :func:`gradient_on` computes it: from the rows of Q in ``cached``
    (``RowCache.arrays()`` of a solve of this problem, read only) where they
    are whole, else by the item expansion (one kernel row per item of a row
    with delta_s != 0, over the items of the listed rows); ``delta`` may have
    either sign (the move from one solution to another)."""
    m = delta.shape[0]
    # np.int64(1), not 1: a literal compiles smo_start a second time (4 s).
    _, fresh, _, _ = smo_start(kp, pairs, delta, np.int64(1), np.zeros(m))
    # The cached rows with this call's own counters and scratch vectors.
    cache = (cached[0], cached[1], fresh[2], fresh[3], fresh[4], cached[2], fresh[6],
             fresh[7], fresh[8])
    out = np.zeros(m)
    gradient_on(rows, kp, pairs, delta, cache, out)  # (Q delta)_t - 1
    return out[rows] + 1.0
