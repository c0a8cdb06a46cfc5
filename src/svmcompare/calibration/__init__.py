"""Win / tie / loss probabilities from comparison scores.

``links``: the link models from a score r(x') - r(x) (and the pair context)
to the three outcomes' probabilities, the ordered logit and Davidson's model
of ties, with a constant tie band or one that moves with the pair.
``held_out``: the held-out rank gaps a fitted SVM's link is fitted on
(calibration folds, leave-one-out, a linear fit's own gaps at many pairs per
weight) and the fold runner.
"""

from .links import (
    PairTieCalibrator,
    ScoreCalibrator,
    StandardizedTieFeatures,
    fit_link,
    pair_tie_features,
    tie_features_for,
)

__all__ = ["PairTieCalibrator", "ScoreCalibrator", "StandardizedTieFeatures", "fit_link",
           "pair_tie_features", "tie_features_for"]
