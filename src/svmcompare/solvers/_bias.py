"""The bias beta of eq. (9) when it is not unique, for both solvers.

The SVM's u is unique (strictly convex in u), but beta is not when no dual
variable is free: every beta of an interval is then optimal.  Which one is
taken decides whether Lemma 1 applies (it needs beta < 0), so both solvers
compute the whole interval and take the same point of it (:func:`choose_bias`),
which makes the fit independent of the order of the pairs.
"""

from __future__ import annotations

import numpy as np


def dual_bias_interval(alpha, G, y, C):
    """The interval of optimal beta from the KKT conditions (LIBSVM's rho = -beta).

    A free variable t fixes beta = -y_t G_t (the interval is a point; the
    mean over free variables absorbs rounding).  With every variable at a
    bound, each beta in the returned interval is optimal: a variable at a
    bound only asks its margin y_t f_t to lie on one side of 1.
    """
    yG = y * G
    at_upper = alpha >= C
    at_lower = alpha <= 0
    free = ~(at_upper | at_lower)
    if free.any():
        beta = -float(yG[free].mean())
        return beta, beta
    ub_mask = (at_upper & (y < 0)) | (at_lower & (y > 0))  # rho <= y_t G_t
    lb_mask = (at_upper & (y > 0)) | (at_lower & (y < 0))  # rho >= y_t G_t
    rho_high = float(yG[ub_mask].min()) if ub_mask.any() else np.inf
    rho_low = float(yG[lb_mask].max()) if lb_mask.any() else -np.inf
    return -rho_high, -rho_low


def choose_bias(low, high):
    """One beta in the optimal interval [low, high], chosen for Lemma 1.

    Lemma 1 turns the SVM (9) into a ranking function only when beta < 0
    (r = u^T Phi / (-beta)).  The midpoint of the interval is LIBSVM's choice
    and is kept when it is negative.  When the interval reaches below 0 but
    its midpoint does not (or is within rounding of 0), the midpoint of its
    negative part, low / 2, is taken:
    as optimal as any other point, and as far from both the interval's end and
    the degenerate beta = 0 as the negative part allows.  An interval open on
    one side gives its finite end (LIBSVM's rule).
    """
    if low == high:
        return low
    if not np.isfinite(low) or not np.isfinite(high):
        return high if np.isfinite(high) else low
    middle = 0.5 * (low + high)
    # A midpoint within rounding of 0 (an interval symmetric about 0, whose
    # ends differ in their last bit) counts as 0, or its sign would decide.
    if middle < -1e-9 * (high - low) or low >= 0.0:
        return middle
    return 0.5 * low


def primal_bias_interval(scores, y, C):
    """The betas minimizing sum_t C_t max(0, 1 - y_t (beta + scores_t)) (eq. 15 with u fixed).

    The objective is convex and piecewise linear in beta: a row with y_t = 1
    adds slope -C_t below its kink 1 - scores_t, a row with y_t = -1 adds
    slope +C_t above its kink -1 - scores_t.  The right derivative, -sum of the
    C of rows with y = 1 plus the C of the kinks passed, first reaches 0 at the
    low end; if it is exactly 0 there (to rounding), the flat piece runs to the
    next kink.
    """
    kinks = np.where(y > 0, 1.0 - scores, -1.0 - scores)
    order = np.argsort(kinks, kind="stable")
    kinks, weights = kinks[order], C[order]
    positive = float(C[y > 0].sum())
    if positive == 0.0:
        return -np.inf, float(kinks[0])
    passed = np.cumsum(weights)
    slack = 1e-12 * float(passed[-1])
    k = int(np.searchsorted(passed, positive - slack))
    if k >= kinks.size:
        return float(kinks[-1]), np.inf
    low = float(kinks[k])
    if abs(passed[k] - positive) <= slack:
        return low, float(kinks[k + 1]) if k + 1 < kinks.size else np.inf
    return low, low
