# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""The compiled loops of the linear solvers (a C extension built by the install).

:mod:`.linear` (the primal Newton method on the smoothed hinge L_delta of
eq. 15, linear kernel) and :mod:`.dual_cd` (dual coordinate descent on the
dual 18) call these for their passes over the rows; numba compiled them on
the first linear fit after an install (3 s, 9 s of a first
``SVMCompareCV(probability=True)``).  The parallel reductions sum in a fixed
number of row chunks (each chunk's rows in order, then the chunks in order),
so that they give the same bits on any number of threads.
"""

from cython.parallel cimport prange
from libc.math cimport INFINITY, sqrt
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport free, malloc

import numpy as np

ctypedef int64_t i64

ctypedef fused real:
    float
    double

ctypedef fused index_t:
    int32_t
    int64_t

# Row chunks of the parallel reductions: a fixed number, so that the sums are
# the same on any number of threads (a prange reduction splits by thread).
cdef enum:
    N_CHUNKS = 16


cdef inline int _region(double w, double delta) noexcept nogil:
    """0: w >= 1 (no loss); 1: quadratic zone; 2: linear part of L_delta."""
    if w >= 1.0:
        return 0
    if w > 1.0 - delta:
        return 1
    return 2


cdef inline double _dloss(double w, double delta) noexcept nogil:
    """L'_delta(w): 0, -(1 - w) / delta or -1 by region."""
    cdef int r = _region(w, delta)
    if r == 0:
        return 0.0
    if r == 1:
        return -(1.0 - w) / delta
    return -1.0


cdef inline i64 _chunk_lo(i64 m, i64 k) noexcept nogil:
    return k * m // N_CHUNKS


cdef extern from "../_parallel.h":
    int _team "svmc_team"(int n_threads, i64 tasks) noexcept nogil


def _check_same(name, *arrays):
    size = arrays[0].shape[0]
    if any(array.shape[0] != size for array in arrays):
        raise ValueError(f"{name}: the arrays must have one entry per row")


def loss_sum(const double[::1] z, const double[::1] C, double delta, int n_threads):
    """sum_t C_t L_delta(z_t)."""
    _check_same("loss_sum", z, C)
    cdef i64 m = z.shape[0], k, t, lo, hi
    cdef double parts[N_CHUNKS]
    cdef double total, zt, out = 0.0
    for k in prange(N_CHUNKS, nogil=True, num_threads=_team(n_threads, N_CHUNKS),
                   schedule="static"):
        lo = _chunk_lo(m, k)
        hi = _chunk_lo(m, k + 1)
        total = 0.0
        for t in range(lo, hi):
            zt = z[t]
            if zt >= 1.0:
                continue
            if zt > 1.0 - delta:
                total = total + C[t] * (1.0 - zt) * (1.0 - zt) / (2.0 * delta)
            else:
                total = total + C[t] * (1.0 - zt - 0.5 * delta)
        parts[k] = total
    for k in range(N_CHUNKS):
        out += parts[k]
    return out


def line_terms(const double[::1] z, const double[::1] q, const double[::1] C, double s,
               double delta, int n_threads):
    """(sum_t C_t L'(z_t + s q_t) q_t, sum_t C_t L''(z_t + s q_t) q_t^2)."""
    _check_same("line_terms", z, q, C)
    cdef i64 m = z.shape[0], k, t, lo, hi
    cdef double p1[N_CHUNKS]
    cdef double p2[N_CHUNKS]
    cdef double d1, d2, w, o1 = 0.0, o2 = 0.0
    for k in prange(N_CHUNKS, nogil=True, num_threads=_team(n_threads, N_CHUNKS),
                   schedule="static"):
        lo = _chunk_lo(m, k)
        hi = _chunk_lo(m, k + 1)
        d1 = 0.0
        d2 = 0.0
        for t in range(lo, hi):
            w = z[t] + s * q[t]
            d1 = d1 + C[t] * _dloss(w, delta) * q[t]
            if _region(w, delta) == 1:
                d2 = d2 + C[t] / delta * q[t] * q[t]
        p1[k] = d1
        p2[k] = d2
    for k in range(N_CHUNKS):
        o1 += p1[k]
        o2 += p2[k]
    return o1, o2


def gradient_weights(const double[::1] z, const double[::1] y, const double[::1] C,
                     double delta, double[::1] coef, zone):
    """coef_t = dF/df_t (f_t = u^T d_t + beta) and the quadratic-zone mask
    ``zone`` (bool; rows with C_t = 0 add nothing to the Hessian and are left
    out of the zone)."""
    cdef uint8_t[::1] mask = zone.view(np.uint8)
    _check_same("gradient_weights", z, y, C, coef, mask)
    cdef i64 t
    with nogil:
        for t in range(z.shape[0]):
            coef[t] = C[t] * _dloss(z[t], delta) * y[t]
            mask[t] = _region(z[t], delta) == 1 and C[t] != 0.0


def matvec(const real[:, ::1] D, const double[::1] u, double[::1] out, int n_threads):
    """out = D u, rows in parallel (each row's sum in the same order on any thread)."""
    if D.shape[1] != u.shape[0] or D.shape[0] != out.shape[0]:
        raise ValueError("matvec: D is m x p, u has p entries and out m")
    cdef i64 m = D.shape[0], p = D.shape[1], t, i
    cdef double acc
    for t in prange(m, nogil=True, num_threads=_team(n_threads, m), schedule="static"):
        acc = 0.0
        for i in range(p):
            acc = acc + D[t, i] * u[i]
        out[t] = acc


def csr_matvec(const index_t[::1] indptr, const index_t[::1] indices,
               const double[::1] data, const double[::1] x, double[::1] out,
               int n_threads):
    """out = A x for the CSR matrix A (indptr, indices, data), rows in
    parallel; each row's sum runs over its non-zeros in order, as SciPy's
    single-threaded product does, so the bits are SciPy's on any number of
    threads.  The column indices must lie in 0..x.size - 1 (checked once by
    the caller, :class:`svmcompare.solvers.csr_products.ParallelCSR`, not here
    on every product)."""
    if out.shape[0] != indptr.shape[0] - 1 or indices.shape[0] != data.shape[0]:
        raise ValueError("csr_matvec: out needs one entry per row, indices one per datum")
    cdef i64 m = out.shape[0], t, j
    cdef double acc
    for t in prange(m, nogil=True, num_threads=_team(n_threads, m), schedule="static"):
        acc = 0.0
        for j in range(indptr[t], indptr[t + 1]):
            acc = acc + data[j] * x[indices[j]]
        out[t] = acc


def csr_rmatvec(const index_t[::1] indptr, const index_t[::1] indices,
                const double[::1] data, const double[::1] z, double[::1] out,
                int n_threads):
    """out = A^T z for the CSR matrix A: a fixed number of row chunks in
    parallel, each adding its rows into its own partial sums (the reads of z
    in order; a product through A^T's rows reads z at random, a cache miss a
    non-zero when z is long), then the chunks added in order: the same bits
    on any number of threads.  Column indices as :func:`csr_matvec`."""
    cdef i64 m = indptr.shape[0] - 1, p = out.shape[0], k, t, j, lo, hi
    if z.shape[0] != m or indices.shape[0] != data.shape[0]:
        raise ValueError("csr_rmatvec: z needs one entry per row, indices one per datum")
    parts_array = np.zeros((N_CHUNKS, p))
    cdef double[:, ::1] parts = parts_array
    cdef double c
    for k in prange(N_CHUNKS, nogil=True, num_threads=_team(n_threads, N_CHUNKS),
                   schedule="static"):
        lo = _chunk_lo(m, k)
        hi = _chunk_lo(m, k + 1)
        for t in range(lo, hi):
            c = z[t]
            if c != 0.0:
                for j in range(indptr[t], indptr[t + 1]):
                    parts[k, indices[j]] += c * data[j]
    _sum_chunks(parts, out)


cdef void _sum_chunks(const double[:, ::1] parts, double[::1] out) noexcept nogil:
    """out = the chunks' partial sums added in chunk order (the same bits on
    any number of threads)."""
    cdef i64 p = out.shape[0], k, i
    for i in range(p):
        out[i] = parts[0, i]
    for k in range(1, N_CHUNKS):
        for i in range(p):
            out[i] += parts[k, i]


def rmatvec(const real[:, ::1] D, const double[::1] coef, int n_threads):
    """D^T coef: per-chunk partial sums in parallel, added in chunk order."""
    if D.shape[0] != coef.shape[0]:
        raise ValueError("rmatvec: D is m x p and coef has m entries")
    cdef i64 m = D.shape[0], p = D.shape[1], k, t, i, lo, hi
    parts_array = np.zeros((N_CHUNKS, p))
    cdef double[:, ::1] parts = parts_array
    cdef double c
    for k in prange(N_CHUNKS, nogil=True, num_threads=_team(n_threads, N_CHUNKS),
                   schedule="static"):
        lo = _chunk_lo(m, k)
        hi = _chunk_lo(m, k + 1)
        for t in range(lo, hi):
            c = coef[t]
            if c != 0.0:
                for i in range(p):
                    parts[k, i] += c * D[t, i]
    out = np.empty(p)
    _sum_chunks(parts, out)
    return out


def differences(const real[:, ::1] items, const i64[::1] a, const i64[::1] b, int n_threads):
    """Rows items[b_t] - items[a_t] (the d_t of eq. 8), in one pass."""
    if a.shape[0] != b.shape[0]:
        raise ValueError("differences: a and b must have one entry per row")
    cdef i64 m = a.shape[0], p = items.shape[1], n = items.shape[0], t, k
    if m and (min(np.min(a), np.min(b)) < 0 or max(np.max(a), np.max(b)) >= n):
        raise ValueError("differences: a row names an item outside the items")
    out = np.empty((m, p))
    cdef double[:, ::1] D = out
    for t in prange(m, nogil=True, num_threads=_team(n_threads, m), schedule="static"):
        for k in range(p):
            D[t, k] = <double>items[b[t], k] - <double>items[a[t], k]
    return out


def _check_csr(indptr, indices, data, rows, n_columns, listed_only=False):
    """The rows' and column indices' ranges (the loops read and write by them
    unchecked).  ``listed_only``: the column indices of the listed rows only
    (a Newton step's zone rows: scanning every index of 20,000 rows was a
    tenth of the step)."""
    if indices.shape[0] != data.shape[0] or indptr.shape[0] < 1:
        raise ValueError("a CSR matrix needs indices and data of one length and indptr")
    if rows.shape[0] and (np.min(rows) < 0 or np.max(rows) >= indptr.shape[0] - 1):
        raise ValueError("a row index is outside the matrix")
    if listed_only:
        starts, ends = np.asarray(indptr)[rows], np.asarray(indptr)[np.asarray(rows) + 1]
        if np.any(starts > ends) or (ends.size and (np.min(starts) < 0
                                                    or np.max(ends) > indices.shape[0])):
            raise ValueError("a row's extent is outside the matrix")
        if not _listed_in_range(indptr, indices, rows, n_columns):
            raise ValueError("a column index is outside the matrix")
    elif indices.shape[0] and (np.min(indices) < 0 or np.max(indices) >= n_columns):
        raise ValueError("a column index is outside the matrix")


def _listed_in_range(const index_t[::1] indptr, const index_t[::1] indices, const i64[::1] rows,
                     i64 n_columns):
    """Whether the column indices of the listed rows lie in 0..n_columns - 1."""
    cdef i64 r, j
    cdef bint inside = True
    with nogil:
        for r in range(rows.shape[0]):
            for j in range(indptr[rows[r]], indptr[rows[r] + 1]):
                if indices[j] < 0 or indices[j] >= n_columns:
                    inside = False
    return inside


def add_zone_rows(const index_t[::1] indptr, const index_t[::1] indices,
                  const double[::1] data, const i64[::1] rows, const double[::1] w,
                  double[:, ::1] H, bint bias):
    """H += sum over the listed rows of w_k [d_t; 1][d_t; 1]^T (the bias
    column when ``bias``), each row's outer product of its non-zeros only."""
    cdef i64 p = H.shape[0] - 1 if bias else H.shape[0]
    _check_csr(indptr, indices, data, rows, p, listed_only=True)
    _check_same("add_zone_rows", rows, w)
    cdef i64 r, t, i, j, k
    cdef double weight, scaled, total = 0.0
    with nogil:
        for r in range(rows.shape[0]):
            t = rows[r]
            weight = w[r]
            total += weight
            for j in range(indptr[t], indptr[t + 1]):
                i = indices[j]
                scaled = weight * data[j]
                for k in range(indptr[t], indptr[t + 1]):
                    H[i, indices[k]] += scaled * data[k]
                if bias:
                    H[i, p] += scaled
        if bias:
            for i in range(p):
                H[p, i] = H[i, p]
            H[p, p] = total


def zone_diagonal(const index_t[::1] indptr, const index_t[::1] indices,
                  const double[::1] data, const i64[::1] rows, const double[::1] w,
                  double[::1] out, bint bias):
    """out += the diagonal of sum_k w_k [d_t; 1][d_t; 1]^T, less 1 on the bias
    (beta has no regularizer; ``out`` starts at 1)."""
    cdef i64 p = out.shape[0] - bias
    _check_csr(indptr, indices, data, rows, p)
    _check_same("zone_diagonal", rows, w)
    cdef i64 k, t, j
    with nogil:
        for k in range(rows.shape[0]):
            t = rows[k]
            for j in range(indptr[t], indptr[t + 1]):
                out[indices[j]] += w[k] * data[j] * data[j]
            if bias:
                out[p] += w[k]
        if bias:
            out[p] -= 1.0


cdef void _zone_product(const index_t* indptr, const index_t* indices, const double* data,
                        const i64* rows, i64 n_rows, const double* w, bint bias,
                        const double* ridge, const double* v, double* out,
                        i64 n) noexcept nogil:
    """out = (H + ridge) v."""
    cdef i64 p = n - bias, i, k, t, j
    cdef double f
    for i in range(p):
        out[i] = (1.0 + ridge[i]) * v[i]
    if bias:
        out[p] = ridge[p] * v[p]
    for k in range(n_rows):
        t = rows[k]
        f = v[p] if bias else 0.0
        for j in range(indptr[t], indptr[t + 1]):
            f += data[j] * v[indices[j]]
        f *= w[k]
        for j in range(indptr[t], indptr[t + 1]):
            out[indices[j]] += f * data[j]
        if bias:
            out[p] += f


cdef inline double _dot(const double* a, const double* b, i64 n) noexcept nogil:
    cdef double total = 0.0
    cdef i64 i
    for i in range(n):
        total += a[i] * b[i]
    return total


def zone_cg(const index_t[::1] indptr, const index_t[::1] indices, const double[::1] data,
            const i64[::1] rows, const double[::1] w, bint bias, const double[::1] ridge,
            const double[::1] diagonal, const double[::1] g, double rtol, i64 max_iter):
    """Jacobi-preconditioned conjugate gradients for (H + ridge) x = -g.
    Every iterate is a descent direction, so a solve cut at ``max_iter``
    still serves the exact line search."""
    cdef i64 n = g.shape[0]
    _check_csr(indptr, indices, data, rows, n - bias)
    _check_same("zone_cg", rows, w)
    _check_same("zone_cg", g, ridge, diagonal)
    x_array = np.zeros(n)
    cdef double[::1] x = x_array
    buffers = np.empty((4, max(n, 1)))
    cdef double[:, ::1] buf = buffers
    cdef double* r = &buf[0, 0]
    cdef double* z = &buf[1, 0]
    cdef double* d = &buf[2, 0]
    cdef double* Hd = &buf[3, 0]
    cdef i64 i, it
    cdef double rz, stop, curvature, step, previous
    if n == 0:
        return x_array
    with nogil:
        for i in range(n):
            r[i] = -g[i]
            z[i] = r[i] / diagonal[i]
            d[i] = z[i]
        rz = _dot(r, z, n)
        stop = rtol * sqrt(_dot(&g[0], &g[0], n))
        for it in range(max_iter):
            if sqrt(_dot(r, r, n)) <= stop:
                break
            _zone_product(&indptr[0], &indices[0] if indices.shape[0] else NULL,
                          &data[0] if data.shape[0] else NULL,
                          &rows[0] if rows.shape[0] else NULL, rows.shape[0],
                          &w[0] if w.shape[0] else NULL, bias, &ridge[0], d, Hd, n)
            curvature = _dot(d, Hd, n)
            if not curvature > 0.0:
                break
            step = rz / curvature
            for i in range(n):
                x[i] += step * d[i]
                r[i] -= step * Hd[i]
                z[i] = r[i] / diagonal[i]
            previous = rz
            rz = _dot(r, z, n)
            for i in range(n):
                d[i] = z[i] + (rz / previous) * d[i]
    return x_array


def piecewise_line_search(const double[::1] z, const double[::1] q, const double[::1] C,
                          double delta, double base1, double base2, double s_hi,
                          double d_lo, double d_hi):
    """Root of phi'(s) = base1 + s base2 + sum_t C_t L'(z_t + s q_t) q_t on [0, s_hi].

    d_lo = phi'(0) < 0 <= phi'(s_hi) = d_hi.  phi' is piecewise linear: along the
    line each row stays in one region of L_delta between kinks, and a row
    whose region is the same at both ends of the bracket contributes a fixed
    linear term A + B s.  Such rows are folded into (A, B) once; later
    evaluations scan only the rows still crossing a kink inside the bracket,
    and once none are left the root is exact: s = -(base1 + A) / (base2 + B).
    """
    _check_same("piecewise_line_search", z, q, C)
    cdef i64 m = z.shape[0], n_open = m, j, k, t, it
    cdef double A = 0.0, B = 0.0, lo = 0.0, hi = s_hi, s, d, slope
    cdef int side = 0, r_lo, r_hi
    cdef i64* idx = <i64*>malloc((m + 1) * sizeof(i64))
    if idx == NULL:
        raise MemoryError()
    cdef double result = -1.0
    with nogil:
        for j in range(m):
            idx[j] = j
        for it in range(200):
            # Fold the rows whose region no longer changes on [lo, hi].
            k = 0
            for j in range(n_open):
                t = idx[j]
                r_lo = _region(z[t] + lo * q[t], delta)
                r_hi = _region(z[t] + hi * q[t], delta)
                if r_lo == r_hi:
                    if r_lo == 1:
                        A += -C[t] * (1.0 - z[t]) * q[t] / delta
                        B += C[t] * q[t] * q[t] / delta
                    elif r_lo == 2:
                        A += -C[t] * q[t]
                else:
                    idx[k] = t
                    k += 1
            n_open = k
            if n_open == 0:
                slope = base2 + B
                if slope > 0.0:
                    s = -(base1 + A) / slope
                    result = min(max(s, lo), hi)
                else:
                    result = hi
                break
            # Illinois regula falsi inside the bracket.
            s = hi - d_hi * (hi - lo) / (d_hi - d_lo)
            if not (lo < s and s < hi):
                s = 0.5 * (lo + hi)
            d = base1 + s * base2 + A + B * s
            for j in range(n_open):
                t = idx[j]
                d += C[t] * _dloss(z[t] + s * q[t], delta) * q[t]
            if d < 0.0:
                lo = s
                d_lo = d
                if side == -1:
                    d_hi *= 0.5
                side = -1
            else:
                hi = s
                d_hi = d
                if side == 1:
                    d_lo *= 0.5
                side = 1
            if hi - lo <= 1e-15 * hi:
                break
    free(idx)
    if result >= 0.0:
        return result
    return 0.5 * (lo + hi)


# --- Dual coordinate descent (solvers/dual_cd.py) ------------------------------------
# The order of the coordinates in a pass is a fixed pseudo-random permutation
# (xorshift64*, seeded per round), so that fits are reproducible on any machine.

cdef double _UNIT = 1.0 / 9007199254740992.0  # 2^-53


cdef inline uint64_t _next(uint64_t* state) noexcept nogil:
    state[0] ^= state[0] >> 12
    state[0] ^= state[0] << 25
    state[0] ^= state[0] >> 27
    return (state[0] * <uint64_t>0x2545F4914F6CDD1D) >> 11


def dual_cd_round(const index_t[::1] indptr, const index_t[::1] indices,
                  const double[::1] data, const double[::1] y, const double[::1] C,
                  const double[::1] qdiag, const double[::1] diag, double[::1] alpha,
                  double[::1] u, double lam, double rho, double tol, i64 max_passes,
                  uint64_t seed, i64 max_entries=0):
    """One round of the method of multipliers: coordinate steps on the box
    [0, C_t] until every projected gradient is within ``tol``.  ``diag`` is
    the dual's extra diagonal (1 / (2 C_t) for the squared hinge, else 0).
    Updates ``alpha`` and ``u`` in place; returns (passes, s = y^T alpha,
    converged, entries): ``entries`` counts the stored entries of the rows
    visited (the round's work), and the round also ends after the pass in
    which they reach ``max_entries`` (> 0)."""
    cdef i64 m = y.shape[0]
    _check_same("dual_cd_round", y, C, qdiag, diag, alpha)
    if indptr.shape[0] != m + 1:
        raise ValueError("dual_cd_round: one CSR row per variable")
    _check_csr(indptr, indices, data, np.zeros(0, dtype=np.int64), u.shape[0])
    rows_array = np.flatnonzero(np.asarray(C) > 0.0).astype(np.int64)
    cdef i64[::1] active = rows_array.copy()
    cdef i64 n_rows = rows_array.shape[0], n_active = n_rows, passes = 0, k, j, t, q, swap
    cdef i64 entries = 0
    cdef double s = 0.0, upper_old = INFINITY, lower_old = -INFINITY, upper, lower
    cdef double score, a, g, pg, curvature, new, change
    cdef uint64_t state = seed, r
    cdef bint converged = False
    with nogil:
        for t in range(m):
            s += y[t] * alpha[t]
        # Rows with C_t = 0 (a fold's rows left out) are fixed at 0: never visited.
        # Shrinking (Hsieh et al., sec. 3.2): a variable at a bound whose
        # gradient points out of the box by more than the last pass's extreme
        # violation leaves the pass; all return for a final check.
        while passes < max_passes:
            passes += 1
            for k in range(n_active - 1, 0, -1):
                r = _next(&state)
                j = <i64>((<double>r) * _UNIT * <double>(k + 1))  # r < 2^53: j <= k
                swap = active[k]
                active[k] = active[j]
                active[j] = swap
            upper = -INFINITY
            lower = INFINITY
            k = 0
            while k < n_active:
                t = active[k]
                score = 0.0
                entries += indptr[t + 1] - indptr[t]
                for q in range(indptr[t], indptr[t + 1]):
                    score += u[indices[q]] * data[q]
                # Gradient of the augmented dual in alpha_t: y_t (u^T d_t + beta) - 1
                # (+ alpha_t / (2 C_t) for the squared hinge).
                a = alpha[t]
                g = y[t] * (score + lam + rho * s) - 1.0 + diag[t] * a
                pg = g
                if a <= 0.0:
                    if g > upper_old:
                        n_active -= 1
                        swap = active[k]
                        active[k] = active[n_active]
                        active[n_active] = swap
                        continue
                    pg = g if g < 0.0 else 0.0
                elif a >= C[t]:
                    if g < lower_old:
                        n_active -= 1
                        swap = active[k]
                        active[k] = active[n_active]
                        active[n_active] = swap
                        continue
                    pg = g if g > 0.0 else 0.0
                if pg > upper:
                    upper = pg
                if pg < lower:
                    lower = pg
                curvature = qdiag[t] + diag[t] + rho
                if pg != 0.0:
                    # A zero row (no bias term either) is linear in alpha_t: to the bound.
                    if curvature > 0.0:
                        new = a - g / curvature
                        new = new if new > 0.0 else 0.0
                        new = new if new < C[t] else C[t]
                    else:
                        new = C[t] if g < 0.0 else 0.0
                    change = (new - a) * y[t]
                    alpha[t] = new
                    s += change
                    for q in range(indptr[t], indptr[t + 1]):
                        u[indices[q]] += change * data[q]
                k += 1
            if upper - lower <= tol or n_active == 0:
                if n_active == n_rows:
                    converged = True
                    break
                n_active = n_rows  # a last pass over every variable confirms
                upper_old = INFINITY
                lower_old = -INFINITY
                continue
            upper_old = upper if upper > 0.0 else INFINITY
            lower_old = lower if lower < 0.0 else -INFINITY
            if max_entries > 0 and entries >= max_entries:
                break
    return passes, s, converged, entries
