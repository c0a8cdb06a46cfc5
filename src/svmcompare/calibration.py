"""Win / tie / loss probabilities from comparison scores: an ordered-logit link.

A comparison model scores a pair by d = r(x') - r(x) (for ratings, the
rating difference).  The link models the three ordered outcomes
y in {-1, 0, 1} by the proportional-odds model on d (McCullagh 1980):

    P(y <= -1 | d) = sigma(theta_1 - w d),   P(y <= 0 | d) = sigma(theta_2 - w d),

so that

    P(y = -1) = sigma(theta_1 - w d),
    P(y =  0) = sigma(theta_2 - w d) - sigma(theta_1 - w d),
    P(y =  1) = 1 - sigma(theta_2 - w d),

with theta_1 < theta_2 and sigma the logistic function.  w, theta_1 and
theta_2 are fitted by maximum likelihood (:class:`OrderedLogit`, with a
negligible ridge on w so that separable scores stay finite).  The width
theta_2 - theta_1 sets how likely ties are.

By default the link is symmetric, theta_1 = -theta_2: swapping x and x'
negates d and swaps P(y = -1) and P(y = 1), as :meth:`predict` does with the
labels.  It is fitted on every pair in both orientations, (d, y) and
(-d, -y), whose likelihood is symmetric, so the maximum is.  ``symmetric=False``
lets |theta_1| and |theta_2| differ: an advantage of one side of the pair that
the scores do not carry (e.g. White's in chess, for rating differences).
The slope w is kept >= 0: scores that rank the outcomes backwards on the
calibration pairs give w = 0, the class frequencies, rather than probabilities
that fall as d grows.

For a fitted SVM the scores must be held out: :func:`cross_validated_scores`
refits clones of the model on K folds and scores each pair with the model
that did not see it (as scikit-learn's ``SVC(probability=True)`` does for
Platt scaling).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

from ._validation import LABELS
from .ordered_logit import OrderedLogit

# A ridge on w that only matters when the scores separate the outcomes.
_LINK_ALPHA = 1e-6


class ScoreCalibrator:
    """The ordered-logit link from scores d to P(y = -1), P(y = 0), P(y = 1).

    Scores are divided by their standard deviation before the fit (the
    optimizer's conditioning; the model is unchanged).  Outcomes absent from
    the training labels get probability 0.

    Parameters
    ----------
    symmetric : bool, default=True
        theta_1 = -theta_2 (see the module docstring).

    Attributes
    ----------
    link_ : OrderedLogit
    scale_ : float
    """

    def __init__(self, *, symmetric=True):
        self.symmetric = symmetric

    def fit(self, score, y):
        """Fit on scores (n,) and labels (n,) in {-1, 0, 1} (at least two distinct)."""
        score = np.asarray(score, dtype=np.float64).ravel()
        y = np.asarray(y).ravel()
        if score.shape != y.shape:
            raise ValueError(f"score has {score.size} entries but y has {y.size}.")
        if not np.all(np.isfinite(score)):
            raise ValueError("score contains NaN or infinity.")
        if not np.all(np.isin(y, LABELS)):
            raise ValueError("y must be in {-1, 0, 1}.")
        if np.unique(y).size < 2:
            raise ValueError("Calibrating probabilities needs at least two distinct outcomes.")
        if self.symmetric:
            score, y = np.concatenate([score, -score]), np.concatenate([y, -y])
        spread = score.std()
        self.scale_ = float(spread) if spread > 0 else 1.0
        self.link_ = OrderedLogit(alpha=_LINK_ALPHA).fit(score[:, None] / self.scale_, y)
        if self.link_.coef_[0] < 0:
            # No usable signal: w = 0 and the cut points of the class frequencies.
            self.link_ = OrderedLogit(alpha=_LINK_ALPHA).fit(np.zeros((y.size, 1)), y)
        if self.symmetric:
            # The optimum is symmetric; make it so beyond the optimizer's tolerance.
            cuts = self.link_.thresholds_
            self.link_.thresholds_ = (cuts - cuts[::-1]) / 2
        return self

    def predict_proba(self, score):
        """(n, 3) probabilities of -1, 0, 1 for scores (n,)."""
        score = np.asarray(score, dtype=np.float64).ravel()
        present = self.link_.predict_proba(score[:, None] / self.scale_)
        proba = np.zeros((score.size, len(LABELS)))
        proba[:, np.searchsorted(LABELS, self.link_.classes_)] = present
        return proba


def score_spread(score):
    """Root mean square of scores (1 when they are all 0): the unit in which a
    model's scores reach the link, so that models whose scores differ only in
    scale (e.g. Lemma 1's 1 / (-beta) for beta near 0) share one link."""
    spread = float(np.sqrt(np.mean(np.square(score)))) if np.size(score) else 0.0
    return spread if spread > 0 and np.isfinite(spread) else 1.0


def cross_validated_scores(estimator, X, y, cv=5, random_state=None, context=None):
    """Held-out decision values d of every pair by K-fold refits of ``estimator``.

    Folds are stratified by label and shuffled with ``random_state``; K is
    lowered to the size of the smallest label class if needed (at least 2).

    Returns
    -------
    scores : ndarray of shape (n_pairs,)
        Each pair's d from the fold model that did not see it.
    spreads : ndarray of shape (n_pairs,)
        The :func:`score_spread` of that fold model's d on its own training
        pairs: ``scores / spreads`` puts every fold on one scale, which a
        link needs (pooling folds whose scores differ by orders of magnitude
        gives probabilities that do not depend on the pair).
    """
    counts = np.unique(y, return_counts=True)[1]
    folds = min(cv, int(counts.min()))
    if folds < 2:
        raise ValueError(
            f"Probability calibration needs at least 2 pairs of every label for "
            f"cross-validation; the rarest label has {counts.min()}.")
    splitter = StratifiedKFold(folds, shuffle=True, random_state=random_state)
    scores = np.empty(y.shape[0])
    spreads = np.empty(y.shape[0])
    for train, test in splitter.split(np.zeros(y.shape[0]), y):
        model = clone(estimator).set_params(probability=False)
        fit_context = None if context is None else context[train]
        model.fit(X[train], y[train], context=fit_context)
        scores[test] = model.decision_function(
            X[test], context=None if context is None else context[test])
        spreads[test] = score_spread(model.decision_function(X[train], context=fit_context))
    return scores, spreads
