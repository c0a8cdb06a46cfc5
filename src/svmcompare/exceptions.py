"""The errors and warnings svmcompare raises beyond ValueError / TypeError (the errors
subclass ValueError)."""


class NoRankingError(ValueError):
    """The comparison SVM returned a bias beta >= 0, so no ranking function exists.

    Lemma 1 turns the SVM solution (u, beta) into the ranking function
    r(x) = u^T Phi(x) / (-beta), which requires beta < 0.  A subclass of
    ``ValueError`` so that scikit-learn's model selection records the grid
    point as a failed fit and moves on.
    """


class NotSeparableError(ValueError):
    """The pairs admit no linear ranking function with a positive margin."""


class DegenerateWarning(UserWarning):
    """SVMCompare's beta was >= 0 or numerically 0, so Lemma 1's ranking scale
    does not exist; the fit fell back to the SVM's direction with the tie
    threshold of eq. (6) (``on_degenerate="fallback"``, ``degenerate_ = True``)."""
