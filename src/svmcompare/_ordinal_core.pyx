# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""The ordered logit's likelihood terms in one C sweep over the rows (a C
extension built by the install).

``ordered_logit._objective`` needs, for every row, the two cumulative
probabilities sigma(theta_k - eta) and sigma(theta_{k-1} - eta), the log of
their difference and its derivatives: as numpy passes that was about fifteen
sweeps of temporaries over the rows (a probability link on the in-sample
scores of 1,000,000 games, both orientations: 0.2 s an evaluation, 2 s of a
2.7 s ``partial_fit``).  Here it is one sweep a block of rows with the same
formulas, the exps by the SMO core's vectorized exp (``_exp.h``, within 2 ulp
of libm's).
"""

from cython.parallel cimport prange
from libc.math cimport NAN, fabs, log
from libc.stdint cimport int64_t

import numpy as np

cdef extern from "_exp.h":
    void exp_nonpositive_c "svmc_exp_nonpositive"(const double* x, int64_t count,
                                                  double* out) noexcept nogil

cdef extern from "_parallel.h":
    int _team "svmc_team"(int n_threads, int64_t tasks) noexcept nogil

cdef enum:
    BLOCK = 512  # rows a block: six scratch arrays of 4 KB on the stack
    N_CHUNKS = 16  # row chunks (a fixed number: the same sums on any thread count)


cdef inline double _expit(double x, double e) noexcept nogil:
    # sigma(x) from e = exp(-|x|), without overflow (+-inf give 1, 0).
    if x >= 0.0:
        return 1.0 / (1.0 + e)
    return e / (1.0 + e)


cdef double _sweep(const double* eta, const long long* k, const double* padded,
                   Py_ssize_t q1, const double* weight, double* d_eta, double* d_theta,
                   double tiny, Py_ssize_t first, Py_ssize_t stop) noexcept nogil:
    """Rows first..stop - 1: their loss (returned), d_eta, and d_theta added."""
    cdef Py_ssize_t t, i, size
    cdef long long c
    cdef double s_up, s_lo, g_up, g_lo, prob, w, loss = 0.0
    cdef double up[BLOCK]
    cdef double lo[BLOCK]
    cdef double x_up[BLOCK]
    cdef double x_lo[BLOCK]
    cdef double e_up[BLOCK]
    cdef double e_lo[BLOCK]
    while first < stop:  # (a stepped range() needs the GIL in some Cython versions)
        size = min(<Py_ssize_t>BLOCK, stop - first)
        for i in range(size):
            t = first + i
            up[i] = padded[k[t] + 1] - eta[t]
            lo[i] = padded[k[t]] - eta[t]
            x_up[i] = -fabs(up[i])
            x_lo[i] = -fabs(lo[i])
        exp_nonpositive_c(x_up, size, e_up)
        exp_nonpositive_c(x_lo, size, e_lo)
        for i in range(size):
            t = first + i
            c = k[t]
            w = weight[t]
            if eta[t] != eta[t]:
                loss += NAN
            s_up = 1.0 if c + 2 == q1 else _expit(up[i], e_up[i])
            s_lo = 0.0 if c == 0 else _expit(lo[i], e_lo[i])
            prob = s_up - s_lo
            if not prob >= tiny:
                prob = tiny
            g_up = s_up * (1.0 - s_up)
            g_lo = s_lo * (1.0 - s_lo)
            loss -= w * log(prob)
            d_eta[t] = w * (g_up - g_lo) / prob
            d_theta[c + 1] -= w * g_up / prob
            d_theta[c] += w * g_lo / prob
        first += size
    return loss


def ordered_logit_terms(const double[::1] eta not None, const long long[::1] k not None,
                        const double[::1] padded not None, const double[::1] weight not None,
                        double[::1] d_eta not None, double[::1] d_theta not None,
                        double tiny, int n_threads=1):
    """The weighted negative log-likelihood sum_t w_t -log P(y_t | eta_t) of
    the proportional-odds model with cut points ``padded`` = (-inf, theta_1,
    ..., theta_{q-1}, +inf) and each row's class index ``k`` (0..q-1), its
    derivative in each eta_t (into ``d_eta``) and in each padded cut point
    (added into ``d_theta``, length q + 1).  P is floored at ``tiny``.

    P(y = k | eta) = sigma(padded[k + 1] - eta) - sigma(padded[k] - eta);
    d(-log P)/d eta = (g_up - g_lo) / P, d/d padded[k + 1] = -g_up / P and
    d/d padded[k] = g_lo / P, with g = sigma (1 - sigma) at each end.
    The outer cut points are taken as -inf and +inf whatever ``padded``
    holds there (sigma 0 and 1: an infinite eta gives the limits, not
    inf - inf); a NaN eta gives a NaN loss.

    The rows run in a fixed number of chunks (``n_threads`` at a time), whose
    sums are added in chunk order: the same bits on any number of threads.
    """
    cdef Py_ssize_t n = eta.shape[0], q1 = padded.shape[0], t, j
    cdef int part
    if k.shape[0] != n or weight.shape[0] != n or d_eta.shape[0] != n:
        raise ValueError("k, weight and d_eta need one entry per row of eta")
    if d_theta.shape[0] != q1:
        raise ValueError("d_theta needs one entry per padded cut point")
    for t in range(n):
        if k[t] < 0 or k[t] >= q1 - 1:  # (not k + 1 >= q1: k + 1 overflows at the top)
            raise ValueError("a class index outside the cut points")
    if q1 < 2:
        raise ValueError("padded needs at least the two outer cut points")
    if n == 0:
        return 0.0
    parts_array = np.zeros((N_CHUNKS, q1))
    losses_array = np.zeros(N_CHUNKS)
    cdef double[:, ::1] parts = parts_array
    cdef double[::1] losses = losses_array
    cdef double loss = 0.0
    for part in prange(N_CHUNKS, nogil=True, num_threads=_team(n_threads, N_CHUNKS),
                       schedule="static"):
        losses[part] = _sweep(&eta[0], &k[0], &padded[0], q1, &weight[0], &d_eta[0],
                              &parts[part, 0], tiny, part * n // N_CHUNKS,
                              (part + 1) * n // N_CHUNKS)
    for part in range(N_CHUNKS):
        loss += losses[part]
        for j in range(q1):
            d_theta[j] += parts[part, j]
    return loss
