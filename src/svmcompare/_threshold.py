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


def fit_threshold(diff, y, sample_weight=None):
    """The threshold tau of eq. (6): minimize training zero-one loss of t_tau
    (each pair counted by its ``sample_weight``; a pair of weight 0 not at all).

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
    sample_weight : ndarray of shape (n_pairs,), optional
        Pair weights, as the fit's (an integer weight k counts as k copies).

    Returns
    -------
    tau : float
    """
    if sample_weight is not None:
        kept = np.asarray(sample_weight) > 0
        diff, y, sample_weight = diff[kept], y[kept], np.asarray(sample_weight)[kept]
    absd = np.abs(diff)
    observed = np.unique(absd)
    positive = observed[observed > 0]
    candidates = [np.zeros(1), observed, (observed[1:] + observed[:-1]) / 2]
    if positive.size:
        lo, hi = positive[0], positive[-1]
        candidates.append(np.geomspace(lo / 10, hi * 10, _N_LOG_GRID))
    tau = np.unique(np.concatenate(candidates))
    loss = zero_one_loss_by_threshold(diff, y, tau, sample_weight)
    best = np.flatnonzero(loss <= loss.min() * (1 + 1e-12))
    # The minimizing range runs from the first minimizer up to the next
    # candidate that is not one (the loss is right-continuous in tau).
    end = tau[best[-1] + 1] if best[-1] + 1 < tau.size else tau[best[-1]]
    middle = (tau[best[0]] + end) / 2
    minimizers = tau[best]
    return float(minimizers[np.argmin(np.abs(minimizers - middle))])


def zero_one_loss_by_threshold(diff, y, tau, sample_weight=None):
    """Number (total weight) of pairs misclassified by t_tau(diff) for each
    tau (sorted or not).

    Errors split as in Table 3: an equality pair with |diff| > tau (false
    positive), an inequality pair with |diff| <= tau (false negative), and
    an inequality pair with |diff| > tau on the wrong side (inversion).
    """
    absd = np.abs(diff)
    weight = np.ones(absd.size) if sample_weight is None else np.asarray(sample_weight, float)
    tau = np.asarray(tau, dtype=float)
    fp = _weight_above(absd, weight, y == 0, tau)
    fn = _weight_of(absd, weight, y != 0, tau, above=False)
    inv = _weight_above(absd, weight, (y != 0) & (np.sign(diff) != y), tau)
    if sample_weight is None:
        return (fp + fn + inv).round().astype(np.int64)  # counts, as integers
    return fp + fn + inv


def _weight_above(values, weight, mask, tau):
    return _weight_of(values, weight, mask, tau, above=True)


def _weight_of(values, weight, mask, tau, above):
    """Total weight of the masked values above each tau (or at most it)."""
    order = np.argsort(values[mask], kind="stable")
    ordered = values[mask][order]
    cumulative = np.concatenate([[0.0], np.cumsum(weight[mask][order])])
    at_most = cumulative[np.searchsorted(ordered, tau, side="right")]
    return cumulative[-1] - at_most if above else at_most
