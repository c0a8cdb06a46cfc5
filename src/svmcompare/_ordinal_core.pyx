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


# --- The pair tie band's links (calibration/links.py) --------------------------------
# Each row's terms of PairTieCalibrator's two objectives, given the row's predictor
# eta (the score and the context) and its tie term (a + b^T s): the loss and its
# derivatives in eta and in the tie term.  The products with the design and the tie
# features stay with the caller (BLAS).  As numpy passes these were about twenty
# sweeps of temporaries: 0.17-0.24 ms an evaluation at 4,000 rows, most of the time
# of the thousands of link fits an SVMCompareCV search makes.

cdef double _EXP30 = 10686474581524.463  # exp(30)


cdef double _band_rows(const double* eta, const double* tie, const long long* y,
                       const double* weight, double* d_eta, double* d_tie, double tiny,
                       Py_ssize_t first, Py_ssize_t stop) noexcept nogil:
    """The ordered link with a band of half-width theta = exp(tie) (clipped to
    [-30, 30] as the tie term goes in): P(y = -1) = sigma(lower), P(y = 1) = 1 -
    sigma(upper), P(0) the rest, lower = -theta - eta and upper = theta - eta."""
    cdef Py_ssize_t t, i, size
    cdef double s_lo, s_up, prob, g_lo, g_up, w, loss = 0.0
    cdef double lo[BLOCK]
    cdef double up[BLOCK]
    cdef double th[BLOCK]
    cdef double x_lo[BLOCK]
    cdef double x_up[BLOCK]
    cdef double e_lo[BLOCK]
    cdef double e_up[BLOCK]
    while first < stop:
        size = min(<Py_ssize_t>BLOCK, stop - first)
        for i in range(size):
            t = first + i
            x_lo[i] = tie[t]
            if x_lo[i] > 30.0:
                x_lo[i] = 30.0
            elif x_lo[i] < -30.0:
                x_lo[i] = -30.0
            x_lo[i] = x_lo[i] - 30.0  # exp(clipped - 30) exp(30): the argument <= 0
        exp_nonpositive_c(x_lo, size, th)
        for i in range(size):
            t = first + i
            th[i] = th[i] * _EXP30
            lo[i] = -th[i] - eta[t]
            up[i] = th[i] - eta[t]
            x_lo[i] = -fabs(lo[i])
            x_up[i] = -fabs(up[i])
        exp_nonpositive_c(x_lo, size, e_lo)
        exp_nonpositive_c(x_up, size, e_up)
        for i in range(size):
            t = first + i
            w = weight[t]
            if eta[t] != eta[t] or tie[t] != tie[t]:
                loss += NAN  # (the vectorized exp reads NaN as its floor)
            s_lo = _expit(lo[i], e_lo[i])
            s_up = _expit(up[i], e_up[i])
            # d(log P)/d lower and d(log P)/d upper (the floor of P left out of them).
            if y[t] < 0:
                prob = s_lo
                g_lo = 1.0 - s_lo
                g_up = 0.0
            elif y[t] > 0:
                prob = 1.0 - s_up
                g_lo = 0.0
                g_up = -s_up
            else:
                prob = s_up - s_lo
                if not prob >= tiny:
                    prob = tiny
                g_lo = -s_lo * (1.0 - s_lo) / prob
                g_up = s_up * (1.0 - s_up) / prob
            if not prob >= tiny:
                prob = tiny
            loss -= w * log(prob)
            d_eta[t] = w * (g_lo + g_up)  # d lower / d eta = d upper / d eta = -1
            d_tie[t] = -w * (g_up - g_lo) * th[i]
        first += size
    return loss


cdef double _davidson_rows(const double* eta, const double* nu, const long long* y,
                           const double* weight, double* d_eta, double* d_nu,
                           Py_ssize_t first, Py_ssize_t stop) noexcept nogil:
    """Davidson's link: P(y = -1, 0, 1) proportional to exp(-eta), exp(nu),
    exp(eta); each exp taken after subtracting the largest of the three."""
    cdef Py_ssize_t t, i, size
    cdef double total, share, w, sign, loss = 0.0
    cdef double top[BLOCK]
    cdef double x_loss[BLOCK]
    cdef double x_tie[BLOCK]
    cdef double x_win[BLOCK]
    cdef double e_loss[BLOCK]
    cdef double e_tie[BLOCK]
    cdef double e_win[BLOCK]
    while first < stop:
        size = min(<Py_ssize_t>BLOCK, stop - first)
        for i in range(size):
            t = first + i
            top[i] = fabs(eta[t])
            if nu[t] > top[i]:
                top[i] = nu[t]
            x_loss[i] = -eta[t] - top[i]
            x_tie[i] = nu[t] - top[i]
            x_win[i] = eta[t] - top[i]
        exp_nonpositive_c(x_loss, size, e_loss)
        exp_nonpositive_c(x_tie, size, e_tie)
        exp_nonpositive_c(x_win, size, e_win)
        for i in range(size):
            t = first + i
            w = weight[t]
            if eta[t] != eta[t] or nu[t] != nu[t]:
                loss += NAN
            total = e_loss[i] + e_tie[i] + e_win[i]
            sign = 0.0 if y[t] == 0 else (1.0 if y[t] > 0 else -1.0)
            # -log P_y = top + log(total) - logit_y, logit_y = sign eta + [y = 0] nu.
            loss += w * (top[i] + log(total) - sign * eta[t])
            share = w / total
            d_eta[t] = share * (e_win[i] - e_loss[i]) - w * sign
            d_nu[t] = share * e_tie[i]
            if y[t] == 0:
                loss -= w * nu[t]
                d_nu[t] -= w
        first += size
    return loss


def _pair_link_terms(bint davidson, const double[::1] eta, const double[::1] tie,
                     const long long[::1] y, const double[::1] weight, double[::1] d_eta,
                     double[::1] d_tie, double tiny, int n_threads):
    """Either link's rows in N_CHUNKS fixed chunks, the chunks' losses added in order."""
    cdef Py_ssize_t n = eta.shape[0]
    cdef int part
    if tie.shape[0] != n or y.shape[0] != n or weight.shape[0] != n or d_eta.shape[0] != n \
            or d_tie.shape[0] != n:
        raise ValueError("every array needs one entry per row of eta")
    if n == 0:
        return 0.0
    losses_array = np.zeros(N_CHUNKS)
    cdef double[::1] losses = losses_array
    for part in prange(N_CHUNKS, nogil=True, num_threads=_team(n_threads, N_CHUNKS),
                       schedule="static"):
        if davidson:
            losses[part] = _davidson_rows(&eta[0], &tie[0], &y[0], &weight[0], &d_eta[0],
                                          &d_tie[0], part * n // N_CHUNKS,
                                          (part + 1) * n // N_CHUNKS)
        else:
            losses[part] = _band_rows(&eta[0], &tie[0], &y[0], &weight[0], &d_eta[0],
                                      &d_tie[0], tiny, part * n // N_CHUNKS,
                                      (part + 1) * n // N_CHUNKS)
    return float(np.sum(losses_array))


def pair_band_terms(const double[::1] eta not None, const double[::1] tie not None,
                    const long long[::1] y not None, const double[::1] weight not None,
                    double[::1] d_eta not None, double[::1] d_tie not None, double tiny,
                    int n_threads=1):
    """The weighted negative log-likelihood of the ordered link with a
    pair-dependent band (``calibration.links._band_objective``): each row's
    predictor ``eta``, tie term ``tie`` (the band is exp(tie), tie clipped to
    [-30, 30]) and label in {-1, 0, 1}; the derivative of each row's term in
    its eta goes to ``d_eta``, in its tie term to ``d_tie``.  P is floored at
    ``tiny`` in the loss, not in the derivatives of a win or a loss.  Rows
    run in a fixed number of chunks: the same bits on any thread count."""
    return _pair_link_terms(False, eta, tie, y, weight, d_eta, d_tie, tiny, n_threads)


def davidson_terms(const double[::1] eta not None, const double[::1] nu not None,
                   const long long[::1] y not None, const double[::1] weight not None,
                   double[::1] d_eta not None, double[::1] d_nu not None, int n_threads=1):
    """The weighted negative log-likelihood of Davidson's link
    (``calibration.links._davidson_objective``): each row's predictor ``eta``,
    tie logit ``nu`` and label in {-1, 0, 1}; the derivative of each row's
    term in its eta goes to ``d_eta``, in its nu to ``d_nu``.  Rows run in a
    fixed number of chunks: the same bits on any thread count."""
    return _pair_link_terms(True, eta, nu, y, weight, d_eta, d_nu, 0.0, n_threads)
