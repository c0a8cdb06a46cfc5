"""Thresholded comparisons: c_tau of eq. (4) and the threshold of eq. (6).

A ranking function r compares a pair by t_tau(r(x') - r(x)): a difference
within [-tau, tau] predicts a tie.  SVMCompare's tau is 1 (c_1, eq. 5); the
RankSVM baselines learn tau on their training pairs (eq. 6).
"""

from __future__ import annotations

import numpy as np


def labels_at_threshold(diff, tau):
    """t_tau of eq. (4) applied to rank differences r(x') - r(x)."""
    out = np.zeros(diff.shape, dtype=np.int64)
    out[diff > tau] = 1
    out[diff < -tau] = -1
    return out


_N_LOG_GRID = 100


def fit_threshold(diff, y):
    """The threshold tau of eq. (6): minimize training zero-one loss of t_tau.

    Candidates are 0, every observed |r(x') - r(x)|, the midpoints between
    consecutive observed values, and a log grid spanning them.  The loss only
    changes at observed values, so the candidates contain every attainable
    loss.  Among minimizers, the one closest to the middle of the minimizing
    range is returned, so a tie does not push tau onto the edge of a pair.

    Parameters
    ----------
    diff : ndarray of shape (n_pairs,)
        Rank differences r(x') - r(x) on the training pairs.
    y : ndarray of shape (n_pairs,)
        Labels in {-1, 0, 1}.

    Returns
    -------
    tau : float
    """
    absd = np.abs(diff)
    observed = np.unique(absd)
    positive = observed[observed > 0]
    candidates = [np.zeros(1), observed, (observed[1:] + observed[:-1]) / 2]
    if positive.size:
        lo, hi = positive[0], positive[-1]
        candidates.append(np.geomspace(lo / 10, hi * 10, _N_LOG_GRID))
    tau = np.unique(np.concatenate(candidates))
    loss = zero_one_loss_by_threshold(diff, y, tau)
    best = np.flatnonzero(loss == loss.min())
    # The minimizing range runs from the first minimizer up to the next
    # candidate that is not one (the loss is right-continuous in tau).
    end = tau[best[-1] + 1] if best[-1] + 1 < tau.size else tau[best[-1]]
    middle = (tau[best[0]] + end) / 2
    minimizers = tau[best]
    return float(minimizers[np.argmin(np.abs(minimizers - middle))])


def zero_one_loss_by_threshold(diff, y, tau):
    """Number of pairs misclassified by t_tau(diff) for each tau (sorted or not).

    Errors split as in Table 3: an equality pair with |diff| > tau (false
    positive), an inequality pair with |diff| <= tau (false negative), and
    an inequality pair with |diff| > tau on the wrong side (inversion).
    """
    absd = np.abs(diff)
    eq = np.sort(absd[y == 0])
    ineq = np.sort(absd[y != 0])
    wrong = np.sort(absd[(y != 0) & (np.sign(diff) != y)])
    fp = eq.size - np.searchsorted(eq, tau, side="right")
    fn = np.searchsorted(ineq, tau, side="right")
    inv = wrong.size - np.searchsorted(wrong, tau, side="right")
    return fp + fn + inv
