"""Errors and ROC curves for comparison predictions (Table 3 of the paper).

With true labels y and predictions y^ in {-1, 0, 1}:

* a **false positive** predicts a significant difference (y^ = +-1) for an
  equality pair (y = 0);
* a **false negative** predicts no difference (y^ = 0) for an inequality
  pair (y = +-1);
* an **inversion** predicts the opposite difference (y^ = -y != 0).

Table 3 counts inversions among the false negatives of its ROC analysis:
an inequality pair is a true positive only when its sign is right.  The ROC
curve here does the same (so it need not reach (1, 1)), while
:func:`comparison_errors` reports inversions separately.  Note that the
reference R code (``calc.roc``) counts only y^ = 0 as a false negative and
so counts inversions as true positives; our AUC is lower than or equal to
that one, which ``inversions="true_positive"`` reproduces.
"""

from __future__ import annotations

import numpy as np
from scipy.integrate import trapezoid

from ._validation import check_labels, check_vector
from .pairs import check_grades, group_members


def _check_scores(score, n):
    return check_vector(score, n, "score", lambda k: f"score has {k} values but y_true has {n}.")


def comparison_errors(y_true, y_pred):
    """Count the errors of comparison predictions by kind (Table 3).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_pairs,), values in {-1, 0, 1}

    Returns
    -------
    dict
        ``false_positive`` (true 0, predicted +-1), ``false_negative`` (true
        +-1, predicted 0), ``inversion`` (true +-1, predicted the opposite
        sign), ``error`` (their sum), ``equality`` and ``inequality`` (number
        of true 0 and +-1 labels) and ``count`` (number of pairs).
    """
    y_true = check_labels(y_true)
    y_pred = check_labels(y_pred, n_pairs=y_true.shape[0])
    eq = y_true == 0
    fp = int(np.count_nonzero(eq & (y_pred != 0)))
    fn = int(np.count_nonzero(~eq & (y_pred == 0)))
    inv = int(np.count_nonzero(~eq & (y_pred == -y_true)))
    return {
        "false_positive": fp,
        "false_negative": fn,
        "inversion": inv,
        "error": fp + fn + inv,
        "equality": int(np.count_nonzero(eq)),
        "inequality": int(np.count_nonzero(~eq)),
        "count": int(y_true.shape[0]),
    }


def zero_one_loss(y_true, y_pred):
    """Fraction of pairs compared incorrectly (eq. 2 divided by n)."""
    errors = comparison_errors(y_true, y_pred)
    return errors["error"] / errors["count"]


def pairwise_accuracy(y_true, y_pred):
    """Fraction of pairs compared correctly: 1 - :func:`zero_one_loss`."""
    return 1.0 - zero_one_loss(y_true, y_pred)


INVERSIONS = ("false_negative", "true_positive")


def comparison_roc_curve(y_true, score, inversions="false_negative"):
    """ROC curve of t_tau(score) as tau sweeps from infinity down to 0.

    For each tau, pairs are predicted by t_tau (eq. 4).  The false positive
    rate is FP / (number of equality pairs); the true positive rate is the
    fraction of inequality pairs predicted with the right sign, i.e.
    1 - FN / (number of inequality pairs) with Table 3's FN, which includes
    inversions.

    Parameters
    ----------
    y_true : array-like of shape (n_pairs,), values in {-1, 0, 1}
        Must hold at least one equality and one inequality pair.
    score : array-like of shape (n_pairs,)
        Rank differences r(x') - r(x).
    inversions : {"false_negative", "true_positive"}, default="false_negative"
        Table 3 counts an inversion as a false negative.  The paper's own
        scripts (``calc.roc``) count every inequality pair predicted as a
        difference, of either sign, as a true positive: pass
        ``"true_positive"`` to compare with the paper's plotted AUCs.

    Returns
    -------
    fpr, tpr : ndarray
        Non-decreasing; the first point is (0, 0) (tau = infinity) and the
        last is tau = 0.
    thresholds : ndarray
        The tau of each point, decreasing from ``inf`` to 0.
    """
    if inversions not in INVERSIONS:
        raise ValueError(f"inversions must be one of {INVERSIONS}; got {inversions!r}.")
    y_true = check_labels(y_true)
    score = _check_scores(score, y_true.shape[0])
    eq = y_true == 0
    n_eq = int(np.count_nonzero(eq))
    n_ineq = y_true.shape[0] - n_eq
    if n_eq == 0 or n_ineq == 0:
        raise ValueError(
            "The comparison ROC curve needs equality (y = 0) and inequality (y = +-1) "
            f"pairs; y_true has {n_eq} equality and {n_ineq} inequality pairs."
        )
    absd = np.abs(score)
    eq_abs = np.sort(absd[eq])
    positive = ~eq if inversions == "true_positive" else ~eq & (np.sign(score) == y_true)
    right_abs = np.sort(absd[positive])
    tau = np.concatenate([[np.inf], np.unique(np.concatenate([[0.0], absd]))[::-1]])
    fp = eq_abs.size - np.searchsorted(eq_abs, tau, side="right")
    tp = right_abs.size - np.searchsorted(right_abs, tau, side="right")
    return fp / n_eq, tp / n_ineq, tau


def comparison_auc(y_true, score, inversions="false_negative"):
    """Area under :func:`comparison_roc_curve` (trapezoidal rule).

    Without ties among |score| the curve moves only horizontally or
    vertically, and the area equals that of the step function used in the
    paper's scripts; tied |score| values join their points by a straight line.
    The curve ends at tau = 0, not at (1, 1), so the area is at most the
    product of the false and true positive rates at tau = 0.  ``inversions``
    as in :func:`comparison_roc_curve`.
    """
    fpr, tpr, _ = comparison_roc_curve(y_true, score, inversions)
    # SciPy's rule: NumPy names it trapezoid only from 2.0 on (1.26 is allowed).
    return float(trapezoid(tpr, fpr))


# -- metrics of graded items (learning to rank, ordinal regression) ---------



def comparison_report(y_true, score, tau=1.0, inversions="false_negative", y_pred=None):
    """Errors of the thresholded comparison t_tau (eq. 4) (or of labels
    ``y_pred``) by kind, and the AUC of the scores.

    Parameters
    ----------
    y_true : array-like of shape (n_pairs,), values in {-1, 0, 1}
    score : array-like of shape (n_pairs,)
        Rank differences r(x') - r(x).
    tau : float, default=1.0
        The threshold (1 for SVMCompare, eq. 5; ``threshold_`` for the baselines).
    inversions : str
        As in :func:`comparison_roc_curve`.
    y_pred : array-like of shape (n_pairs,), optional
        Labels to count the errors of instead of ``t_tau(score)`` (e.g. a
        probability model's ``predict``).

    Returns
    -------
    dict
        :func:`comparison_errors` of ``t_tau(score)`` (or ``y_pred``), plus ``error_rate``
        (error / count) and ``auc`` (:func:`comparison_auc`; NaN unless
        ``y_true`` has both ties and non-ties, where it is undefined).
    """
    from ._threshold import labels_at_threshold

    y_true = check_labels(y_true)
    score = check_vector(score, y_true.shape[0], "score",
                         lambda k: f"score has {k} entries but y_true has {y_true.shape[0]}.")
    report = comparison_errors(y_true, labels_at_threshold(score, tau) if y_pred is None
                               else y_pred)
    report["error_rate"] = report["error"] / report["count"]
    both = 0 < report["equality"] < report["count"]
    report["auc"] = comparison_auc(y_true, score, inversions) if both else np.nan
    return report

def outcome_log_losses(y_true, proba):
    """Negative log-probability of each pair's observed outcome.

    ``proba`` (n, 3) holds P(-1), P(0), P(1) per pair (``predict_proba``);
    probabilities are clipped at 1e-15 so that a sure miss costs about 34.5.
    """
    y = check_labels(y_true)
    proba = _check_outcome_proba(proba, y.size)
    return -np.log(np.clip(proba[np.arange(y.size), y + 1], 1e-15, None))


def outcome_log_loss(y_true, proba):
    """Mean negative log-probability of the observed outcomes (the mean of
    :func:`outcome_log_losses`)."""
    return float(np.mean(outcome_log_losses(y_true, proba)))


def outcome_brier(y_true, proba):
    """Multi-class Brier score: mean squared distance of ``proba`` (n, 3) from
    the one-hot outcome (0 for sure hits, 2 for sure misses)."""
    y = check_labels(y_true)
    proba = _check_outcome_proba(proba, y.size)
    return float(np.mean(np.sum((proba - np.eye(3)[y + 1]) ** 2, axis=1)))


def _check_outcome_proba(proba, n):
    """``proba`` as an (n, 3) array of probability rows (each summing to 1
    within 0.01), or a ValueError: a value above 1 gave a negative log-loss,
    rows summing to 0.5 were scored as if they were probabilities."""
    proba = np.asarray(proba, dtype=np.float64)
    if proba.shape != (n, 3):
        raise ValueError(f"proba must have shape ({n}, 3): P(-1), P(0), P(1) for each of the "
                         f"{n} pairs; got {proba.shape}.")
    if not np.all(np.isfinite(proba)):
        raise ValueError("proba contains NaN or infinity.")
    if proba.min(initial=0.0) < -1e-9 or proba.max(initial=0.0) > 1.0 + 1e-9:
        raise ValueError("proba must hold probabilities in [0, 1]; got values from "
                         f"{proba.min():.6g} to {proba.max():.6g}.")
    sums = proba.sum(axis=1)
    worst = int(np.argmax(np.abs(sums - 1.0))) if n else 0
    # Probabilities read back from a file rounded to 3 decimals sum to 1 +- 0.002.
    if n and abs(sums[worst] - 1.0) > 0.01:
        raise ValueError(f"each row of proba must sum to 1; row {worst} sums to "
                         f"{sums[worst]:.6g}.")
    return proba


def comparison_auc_chance():
    """The comparison AUC of a score that knows nothing: 0.25, not 0.5.

    :func:`comparison_auc` counts an inequality pair as found (a true
    positive) only when the score calls it different *with the right sign*.
    A score drawn independently of the labels, symmetric about 0, calls a
    pair different at threshold t with the same probability q(t) whatever
    its label, and with the right sign half of those times: FPR = q(t),
    TPR = q(t) / 2 for every t, so the ROC curve is the line TPR = FPR / 2
    and its area is 1/4, whatever the share of ties.  A football model
    with an AUC of 0.48 is far above chance.
    """
    return 0.25


def outcome_accuracy(y_true, proba):
    """Share of pairs whose most probable outcome (``proba`` (n, 3) over -1,
    0, 1) is the observed one: the labels ``predict`` gives a model with
    probabilities, so a tie where x and x' are equally likely to win (the
    swap-symmetric label; an argmax took -1 there, and ``svmcompare
    evaluate`` printed an accuracy and a zero-one error that disagreed)."""
    from .ranking_function import least_cost_labels

    y = check_labels(y_true)
    proba = _check_outcome_proba(proba, y.size)
    return float(np.mean(least_cost_labels(proba) == y))


def reliability_table(y_true, proba, n_bins=10):
    """Calibration per outcome: predicted probability against observed share.

    For each outcome (-1, 0, 1) the pairs are put into ``n_bins`` bins of
    equal width of its predicted probability; each non-empty bin gives the
    mean predicted probability, the share of its pairs with that outcome and
    its size.  A calibrated model's points lie near the diagonal.

    Returns
    -------
    pandas.DataFrame
        Columns ``outcome``, ``predicted``, ``observed``, ``count``.
    """
    import pandas as pd

    y = check_labels(y_true)
    proba = _check_outcome_proba(proba, y.size)
    rows = []
    for column, outcome in enumerate((-1, 0, 1)):
        p = proba[:, column]
        bins = np.minimum((p * n_bins).astype(int), n_bins - 1)
        for b in np.unique(bins):
            inside = bins == b
            rows.append({"outcome": outcome, "predicted": float(p[inside].mean()),
                         "observed": float(np.mean(y[inside] == outcome)),
                         "count": int(inside.sum())})
    return pd.DataFrame(rows, columns=["outcome", "predicted", "observed", "count"])


def _per_group(y_true, score, groups):
    """(grades, scores) of each group, groups in sorted order."""
    score = _check_scores(score, np.asarray(y_true).ravel().shape[0])
    y_true, groups = check_grades(y_true, score.shape[0], groups)
    return [(y_true[m], score[m]) for m in group_members(groups)]


def kendall_tau_per_group(y_true, score, groups=None):
    """Kendall's tau between grades and scores in each group, and their mean.

    As in the RankSVM tutorial: tau-b (ties in either ranking are handled as
    :func:`scipy.stats.kendalltau` does), computed per query group; groups
    where tau is undefined (a single item, or all grades or scores equal)
    are left out of the mean.

    Parameters
    ----------
    y_true : array-like of shape (n_items,)
        Grades.
    score : array-like of shape (n_items,)
        Predicted scores r(x).
    groups : array-like of shape (n_items,), optional

    Returns
    -------
    mean_tau : float
        NaN if no group has a defined tau.
    taus : ndarray
        One tau per group (NaN where undefined), groups in sorted order.
    """
    from scipy.stats import kendalltau

    taus = []
    for yt, s in _per_group(y_true, score, groups):
        if yt.size < 2 or np.all(yt == yt[0]) or np.all(s == s[0]):
            taus.append(np.nan)
        else:
            taus.append(kendalltau(yt, s).statistic)
    taus = np.asarray(taus, dtype=float)
    mean = float(np.nanmean(taus)) if np.any(np.isfinite(taus)) else np.nan
    return mean, taus


def ndcg_at_k(y_true, score, groups=None, k=10):
    """Mean NDCG@k over groups (gains = grades, scikit-learn's ``ndcg_score``).

    Groups with a single item or no positive grade are left out.  Grades
    must be non-negative.
    """
    from sklearn.metrics import ndcg_score

    values = []
    for yt, s in _per_group(y_true, score, groups):
        if np.any(yt < 0):
            raise ValueError("NDCG needs non-negative grades (gains).")
        if yt.size > 1 and np.any(yt > 0):
            values.append(ndcg_score(yt[None, :], s[None, :], k=k))
    return float(np.mean(values)) if values else np.nan


def ordinal_mae(y_true, y_pred):
    """Mean absolute error between ordinal labels, counted in rank steps.

    Both label vectors are mapped to positions in the sorted set of the
    labels of ``y_true`` (so grades {1, 3, 7} are steps 0, 1, 2); a
    predicted label outside that set raises ValueError.
    """
    y_true = np.asarray(y_true).ravel()
    y_pred = np.asarray(y_pred).ravel()
    if y_true.shape != y_pred.shape:
        raise ValueError(f"y_true has {y_true.size} labels but y_pred has {y_pred.size}.")
    levels = np.unique(y_true)
    unknown = np.setdiff1d(y_pred, levels)
    if unknown.size:
        raise ValueError(f"y_pred has labels {unknown.tolist()} that y_true does not have.")
    return float(np.mean(np.abs(np.searchsorted(levels, y_true)
                                - np.searchsorted(levels, y_pred))))
