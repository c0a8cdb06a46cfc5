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
    # A row with C_t = 0 (a pair of weight 0) is at both bounds and asks
    # nothing of beta; read as either bound it reversed the interval.
    weighted = C > 0
    at_upper = (alpha >= C) & weighted
    at_lower = (alpha <= 0) & weighted
    free = ~(at_upper | at_lower) & weighted
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


def _bias_near(start, kinks, positive, C):
    """The root of g (below) on the piece next to ``start`` on the side g
    points to, or None when it is not there (a kink in between, no active
    rows): one pass over the rows instead of a sort, for a ``start`` that a
    solver has already brought close (then the piece is nearly always it)."""
    # g(start), with the rows active just below or just above start: g is
    # continuous, so either side's rows give its value.
    active = np.where(positive, kinks > start, kinks < start)
    g = float(C[active] @ (start - kinks[active]))
    if g == 0.0:
        return None  # start may lie on a stretch of zero loss: its point is the sort's
    down = g > 0.0  # the root is below start
    # The rows active on the open stretch next to start in that direction.
    active = np.where(positive, kinks >= start, kinks < start) if down else \
        np.where(positive, kinks > start, kinks <= start)
    W = float(C[active].sum())
    if W <= 0.0:
        return None
    root = float(C[active] @ kinks[active]) / W
    # No kink between start and the root, nor on the root itself (rounding of
    # W at cost ratios of 1e16 can put it there): else the sort decides.
    inside = (kinks >= root) & (kinks < start) if down else (kinks > start) & (kinks <= root)
    if (down and root > start) or (not down and root < start) or np.any(inside):
        return None
    return root


def squared_hinge_bias(scores, y, C, start=None):
    """The beta minimizing sum_t C_t max(0, 1 - y_t (beta + scores_t))^2 (the
    squared hinge with u fixed).  ``start``: a solver's beta, where the root
    is first looked for on the piece next to it (no sort); the same root.

    Half the derivative, g(beta) = sum_t C_t (beta - k_t) over the active
    rows, is continuous, non-decreasing and linear between the kinks k_t
    (1 - scores_t for y_t = 1, active below it; -1 - scores_t for y_t = -1,
    active above it).  The root lies on the piece below the first kink where
    g >= 0: there g = W beta - S, W and S the active rows' sums of C_t and
    C_t k_t, and beta = S / W kept inside the piece.  A piece without active
    rows (every y = 1 kink below every y = -1 kink) is a stretch of zero
    loss: its point :func:`choose_bias` takes.  Rows with C_t = 0 do not
    count; with rows of one label only, the nearest beta of zero loss.
    """
    weighted = C > 0
    scores, y, C = scores[weighted], y[weighted], C[weighted]
    positive = y > 0
    kinks = np.where(positive, 1.0 - scores, -1.0 - scores)
    if not kinks.size:
        return 0.0
    if positive.all():
        return float(kinks.max())
    if not positive.any():
        return float(kinks.min())
    if start is not None and np.isfinite(start):
        near = _bias_near(float(start), kinks, positive, C)
        if near is not None:
            return near
    order = np.argsort(kinks, kind="stable")
    kinks, weights, up = kinks[order], C[order], positive[order]
    # Piece j (0..n) lies between kinks j - 1 and j; active on it: the y = 1
    # rows from j on and the y = -1 rows before j.
    tail_w = np.concatenate([np.cumsum((weights * up)[::-1])[::-1], [0.0]])
    tail_s = np.concatenate([np.cumsum((weights * kinks * up)[::-1])[::-1], [0.0]])
    head_w = np.concatenate([[0.0], np.cumsum(weights * ~up)])
    head_s = np.concatenate([[0.0], np.cumsum(weights * kinks * ~up)])
    W, S = tail_w + head_w, tail_s + head_s
    low = np.concatenate([[-np.inf], kinks])
    high = np.concatenate([kinks, [np.inf]])
    at_kink = W[:-1] * kinks - S[:-1]  # g at kink j, from the piece below it
    rising = np.flatnonzero(at_kink >= 0.0)
    j = int(rising[0]) if rising.size else kinks.size
    if W[j] <= 0.0:
        return float(choose_bias(low[j], high[j]))
    return float(np.clip(S[j] / W[j], low[j], high[j]))
