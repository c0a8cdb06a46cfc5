"""Rows of Q over the items, for the SMO solver (numba kernels, no solver state).

Row s of the dual (18) is ``Q_st = y_s y_t K~_st`` with
``K~_st = k(b_s, b_t) - k(b_s, a_t) - k(a_s, b_t) + k(a_s, a_t)``: two kernel
rows over the items, restricted to the items of the rows that are asked for.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange, types
from numba.extending import overload

from ..kernels import LAPLACIAN, LINEAR, POLY, PRECOMPUTED, RBF


def position(rows, k):
    """The row at position k of a loop: rows[k], or k itself when rows is None."""
    return k if rows is None else rows[k]


@overload(position)
def _position_compiled(rows, k):
    # Resolved at compile time: loops over all rows (rows=None) index directly,
    # without the gather that costs them half their speed.
    if isinstance(rows, types.NoneType):
        return lambda rows, k: k
    return lambda rows, k: rows[k]


# ``kp`` bundles the kernel and the items: (code, items, sqnorm, gamma, coef0,
# degree, gram); ``gram`` is the item kernel matrix for PRECOMPUTED, else unused.
# ``work`` = (ka, kb, arg, expd, bits) are scratch vectors over the items.

_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # ln 2 split in two (Cody and Waite)
_LN2_LO = 1.90821492927058770002e-10
_ROUND = 6755399441055744.0  # 1.5 * 2^52: adding and subtracting it rounds to an integer
_EXP_MIN = -708.39  # exp below this is under 2^-1022 and is returned as 0
_INV_FACT = tuple(1.0 / math.factorial(k) for k in range(14))


@njit(cache=True, fastmath={"contract"})
def exp_nonpositive(x, count, out, bits):
    """out[:count] = exp(x[:count]) for x <= 0, to about 1 ulp (x, out distinct).

    The compiled loop calls libm's exp once per value, which does not
    vectorize and made kernel rows cost 6 ns per item; this version is
    x = n ln 2 + r, exp(r) by its Taylor polynomial to degree 13 (|r| <= ln 2 / 2,
    truncation below 2e-16) and 2^n from the exponent bits, in SIMD lanes.
    """
    c = _INV_FACT
    for k in range(count):
        xk = max(x[k], _EXP_MIN)
        n = (xk * _LOG2E + _ROUND) - _ROUND
        # 2^n as the bits of a double; 0 bits (0.0) where exp(x) underflows.
        bits[k] = (np.int64(n) + 1023) << 52 if x[k] > _EXP_MIN else 0
        r = (xk - n * _LN2_HI) - n * _LN2_LO
        out[k] = 1.0 + r * (1.0 + r * (c[2] + r * (c[3] + r * (c[4] + r * (c[5] + r * (
            c[6] + r * (c[7] + r * (c[8] + r * (c[9] + r * (c[10] + r * (c[11] + r * (
                c[12] + r * c[13]))))))))))))
    scale = bits.view(np.float64)
    for k in range(count):
        out[k] *= scale[k]


@njit(cache=True)
def _kernel_pre(code, dot, sq_s, sq_t, gamma, coef0, degree):
    """k(z_s, z_t) from their inner product and squared norms, except that for
    the rbf and laplacian kernels the exponent is returned (see _exponential)."""
    if code == LINEAR:
        return dot
    if code == POLY:
        return (gamma * dot + coef0) ** degree
    d2 = max(sq_s + sq_t - 2.0 * dot, 0.0)
    if code == RBF:
        return -gamma * d2
    return -gamma * math.sqrt(d2)  # LAPLACIAN


@njit(cache=True)
def _near_duplicates(d2, sq_s, sq_t):
    """Whether ||a||^2 + ||b||^2 - 2 a.b = d2 keeps only the rounding of the
    norms, which the Laplacian kernel's square root magnifies (kernel errors of
    1e-6 at gamma = 16): such distances are summed from the differences."""
    return d2 < 1e-6 * (sq_s + sq_t)


@njit(cache=True)
def _squared_distance(items, s, t):
    d2 = 0.0
    for f in range(items.shape[1]):
        diff = items[s, f] - items[t, f]
        d2 += diff * diff
    return d2


@njit(cache=True)
def _laplacian_exponent(items, s, t, dot, sqnorm, gamma):
    """-gamma ||z_s - z_t||, exact for near duplicates."""
    d2 = max(sqnorm[s] + sqnorm[t] - 2.0 * dot, 0.0)
    if _near_duplicates(d2, sqnorm[s], sqnorm[t]):
        d2 = _squared_distance(items, s, t)
    return -gamma * math.sqrt(d2)


@njit(cache=True)
def _refine_laplacian(items, s, sqnorm, gamma, subset, n_subset, dense, arg):
    """Recompute the exponents -gamma ||z_s - z_t|| of near-duplicate items.

    A separate pass, so that the loops that fill ``arg`` stay vectorized; it
    reads the distance back from the exponent.  ``arg`` is indexed by item
    when ``dense``, else by position in ``subset``."""
    count = items.shape[0] if dense else n_subset
    for k in range(count):
        t = k if dense else subset[k]
        if _near_duplicates((arg[k] / gamma) ** 2, sqnorm[s], sqnorm[t]):
            arg[k] = -gamma * math.sqrt(_squared_distance(items, s, t))


@njit(cache=True)
def _exponential(code):
    return code == RBF or code == LAPLACIAN


@njit(cache=True)
def kernel_value(code, dot, sq_s, sq_t, gamma, coef0, degree):
    """k(z_s, z_t) from their inner product and squared norms."""
    v = _kernel_pre(code, dot, sq_s, sq_t, gamma, coef0, degree)
    return math.exp(v) if _exponential(code) else v


@njit(cache=True)
def _whole_row(n_subset, n_items):
    """Whether a row over n_subset of the items is computed over all of them
    instead (one BLAS product beats a gather past half the items)."""
    return 2 * n_subset > n_items


@njit(cache=True)
def item_kernel_row(kp, s, subset, n_subset, out, work):
    """out[t] = k(items[s], items[t]) for the items t in subset[:n_subset].

    When the subset covers more than half of the items, the whole row is
    computed with one BLAS product instead (the other entries are harmless).
    """
    code, items, sqnorm, gamma, coef0, degree, gram = kp
    _, _, arg, expd, bits = work
    n = items.shape[0]
    dense = _whole_row(n_subset, n)
    # Element loops instead of slice assignment: a broadcasting assignment
    # compiles numba's shape-mismatch error with its string formatting (about
    # 4 s of the first fit's compilation).
    if code == PRECOMPUTED:
        if dense:
            for t in range(n):
                out[t] = gram[s, t]
        else:
            for k in range(n_subset):
                out[subset[k]] = gram[s, subset[k]]
        return
    if dense:
        target = arg if _exponential(code) else out
        dots = items @ items[s]
        for t in range(n):
            target[t] = _kernel_pre(code, dots[t], sqnorm[s], sqnorm[t], gamma, coef0, degree)
        if code == LAPLACIAN:
            _refine_laplacian(items, s, sqnorm, gamma, subset, n_subset, dense, arg)
        if _exponential(code):
            exp_nonpositive(arg, n, out, bits)
        return
    p = items.shape[1]
    for k in range(n_subset):
        t = subset[k]
        dot = 0.0
        for f in range(p):
            dot += items[t, f] * items[s, f]
        arg[k] = _kernel_pre(code, dot, sqnorm[s], sqnorm[t], gamma, coef0, degree)
    if code == LAPLACIAN:
        _refine_laplacian(items, s, sqnorm, gamma, subset, n_subset, dense, arg)
    values = arg
    if _exponential(code):
        exp_nonpositive(arg, n_subset, expd, bits)
        values = expd
    for k in range(n_subset):
        out[subset[k]] = values[k]


_CHUNK = 2048  # items per task of the parallel rows


@njit(cache=True)
def _difference_chunk(kp, sa, sb, d, lo, size):
    """d[t] = k(z_sb, z_t) - k(z_sa, z_t) for the items t in lo..lo+size-1."""
    code, items, sqnorm, gamma, coef0, degree, gram = kp
    p = items.shape[1]
    arg_a, arg_b = np.empty(size), np.empty(size)
    for k in range(size):
        t = lo + k
        dot_a, dot_b = 0.0, 0.0
        for f in range(p):
            dot_a += items[t, f] * items[sa, f]
            dot_b += items[t, f] * items[sb, f]
        arg_a[k] = _kernel_pre(code, dot_a, sqnorm[sa], sqnorm[t], gamma, coef0, degree)
        arg_b[k] = _kernel_pre(code, dot_b, sqnorm[sb], sqnorm[t], gamma, coef0, degree)
    if code == LAPLACIAN:
        for k in range(size):
            t = lo + k
            for s, arg in ((sa, arg_a), (sb, arg_b)):
                if _near_duplicates((arg[k] / gamma) ** 2, sqnorm[s], sqnorm[t]):
                    arg[k] = -gamma * math.sqrt(_squared_distance(items, s, t))
    if _exponential(code):
        k_a, k_b, bits = np.empty(size), np.empty(size), np.empty(size, dtype=np.int64)
        exp_nonpositive(arg_a, size, k_a, bits)
        exp_nonpositive(arg_b, size, k_b, bits)
        for k in range(size):
            d[lo + k] = k_b[k] - k_a[k]
    else:
        for k in range(size):
            d[lo + k] = arg_b[k] - arg_a[k]


@njit(cache=True, parallel=True)
def dense_difference_row(kp, sa, sb, d):
    """d[t] = k(z_sb, z_t) - k(z_sa, z_t) for every item t, in parallel chunks.

    Each value is computed alone, by the same operations on any number of
    threads, so the row has the same bits on one core as on many.  Inner
    products are summed here rather than by BLAS, for that reason.  A row of
    one chunk is computed without a parallel region, which costs more than
    it saves there (300 cold fits of 800 pairs: 21 s on two threads, 12 s).
    """
    n = kp[1].shape[0]
    if n <= _CHUNK:
        # np.int64(0), not 0: a literal argument compiles _difference_chunk
        # once more, for Literal[int](0) (0.3 s of a first fit).
        _difference_chunk(kp, sa, sb, d, np.int64(0), n)
        return
    for c in prange((n + _CHUNK - 1) // _CHUNK):
        lo = c * _CHUNK
        _difference_chunk(kp, sa, sb, d, lo, min(n, lo + _CHUNK) - lo)


@njit(cache=True)
def q_row(s, kp, pairs, rows, n_rows, item_subset, n_item_subset, work, out):
    """out[t] = Q_st = y_s y_t K~_st (eq. 18) for the rows t in rows[:n_rows] (all
    rows when ``rows`` is None).

    K~_st = k(b_s, b_t) - k(b_s, a_t) - k(a_s, b_t) + k(a_s, a_t) = d(b_t) - d(a_t)
    with d = k(b_s, .) - k(a_s, .): two kernel rows, over the items of the
    listed rows only.  A pair context adds its linear block: K~_st += c_s . c_t.
    """
    a, b, y, ctx = pairs
    ka, d = work[0], work[1]
    whole = _whole_row(n_item_subset, d.shape[0])
    if whole and kp[0] != PRECOMPUTED:
        dense_difference_row(kp, a[s], b[s], d)
    else:
        item_kernel_row(kp, a[s], item_subset, n_item_subset, ka, work)
        item_kernel_row(kp, b[s], item_subset, n_item_subset, d, work)
    if whole:
        if kp[0] == PRECOMPUTED:
            for z in range(d.shape[0]):
                d[z] -= ka[z]
    else:
        for k in range(n_item_subset):
            d[item_subset[k]] -= ka[item_subset[k]]
    ys = y[s]
    for k in range(n_rows):
        t = position(rows, k)
        out[t] = ys * y[t] * (d[b[t]] - d[a[t]])
    if ctx.shape[1] > 0:  # a separate loop: the one above stays as fast without context
        for k in range(n_rows):
            t = position(rows, k)
            out[t] += ys * y[t] * context_dot(ctx, s, t)


@njit(cache=True, inline="always")
def context_dot(ctx, s, t):
    """c_s . c_t, the context block of K~."""
    total = 0.0
    for f in range(ctx.shape[1]):
        total += ctx[s, f] * ctx[t, f]
    return total


@njit(cache=True)
def items_of(rows, pairs, n_items, subset):
    """Write the items of ``rows`` into ``subset`` (sorted); return their number."""
    a, b = pairs[0], pairs[1]
    used = np.zeros(n_items, dtype=np.bool_)
    for k in range(rows.shape[0]):
        used[a[rows[k]]] = True
        used[b[rows[k]]] = True
    count = 0
    for t in range(n_items):
        if used[t]:
            subset[count] = t
            count += 1
    return count


@njit(cache=True)
def q_diagonal(kp, pairs):
    """QD_t = K~_tt = k(b, b) - 2 k(a, b) + k(a, a) (+ |c_t|^2), without any kernel row."""
    code, items, sqnorm, gamma, coef0, degree, gram = kp
    a, b, ctx = pairs[0], pairs[1], pairs[3]
    m = a.shape[0]
    out = np.empty(m)
    p = items.shape[1]
    for t in range(m):
        ia = a[t]
        ib = b[t]
        if code == PRECOMPUTED:
            out[t] = gram[ib, ib] - 2.0 * gram[ia, ib] + gram[ia, ia] + context_dot(ctx, t, t)
            continue
        dab = 0.0
        for k in range(p):
            dab += items[ia, k] * items[ib, k]
        if code == LAPLACIAN:
            kab = math.exp(_laplacian_exponent(items, ia, ib, dab, sqnorm, gamma))
        else:
            kab = kernel_value(code, dab, sqnorm[ia], sqnorm[ib], gamma, coef0, degree)
        kaa = kernel_value(code, sqnorm[ia], sqnorm[ia], sqnorm[ia], gamma, coef0, degree)
        kbb = kernel_value(code, sqnorm[ib], sqnorm[ib], sqnorm[ib], gamma, coef0, degree)
        out[t] = kbb - 2.0 * kab + kaa + context_dot(ctx, t, t)
    return out


def kernel_pack(items, kernel, gram=None):
    """The kernel as the compiled loops take it: (code, items, squared norms,
    gamma, coef0, degree, item Gram matrix or a 1 x 1 placeholder).

    ``gram`` (k(items, items), when the caller has it) makes the code
    PRECOMPUTED; a Python callable, which cannot run inside the compiled
    loops, is evaluated once on all items (n_items^2 memory, documented on
    the estimators); built-in kernels compute the values they need, and
    only those.
    """
    code = kernel.code
    if gram is not None:
        gram = np.ascontiguousarray(gram, dtype=np.float64)
        code = PRECOMPUTED
    elif code == PRECOMPUTED:
        gram = np.ascontiguousarray(kernel.block(items, items), dtype=np.float64)
    else:
        gram = np.zeros((1, 1))
    sqnorm = np.einsum("ij,ij->i", items, items)
    return (code, items, sqnorm, float(kernel.gamma), float(kernel.coef0), int(kernel.degree),
            gram)
