"""The errors and warnings svmcompare raises beyond ValueError / TypeError (the errors
subclass ValueError)."""

import inspect
import os
import threading

from ._local import thread_setting

_SILENCED = threading.local()
_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


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


def degenerate_warnings_silenced():
    """No :class:`DegenerateWarning` from fits in this thread inside the block
    (a context manager): refits whose caller reports degeneracy itself (a C
    path records ``degenerate_`` per point; the calibration folds of a fit
    that has already warned).  Per thread, unlike ``warnings.catch_warnings``,
    so folds fitted side by side in threads do not race on the global filters."""
    return thread_setting(_SILENCED, "on", True)


def chosen_by_search(description, advice):
    """Fits in this thread inside the block are a search's choice (``description``:
    what it chose and by what): their degenerate-fit warnings say so and give
    ``advice`` (what to search instead) for the usual one, to try another C or
    class weight, which the search has weighed already (a context manager)."""
    return thread_setting(_SILENCED, "choice", (description, advice))


def fit_named(where):
    """Fits in this thread inside the block are ``where`` (a search's C, grid
    point and split): their solvers' ConvergenceWarnings say so (a context
    manager; nested blocks add up, the inner first).  Per thread, unlike
    ``warnings.catch_warnings``, whose global state paths running side by
    side in threads raced on."""
    outer = getattr(_SILENCED, "where", None)
    return thread_setting(_SILENCED, "where", where if outer is None else f"{where} {outer}")


def named_fit(message):
    """``message`` (a solver's warning) with the fit it is about, inside
    :func:`fit_named`: "stopped short" from a search named no grid point or
    split, and a refit of the chosen point did not reproduce it (a review)."""
    where = getattr(_SILENCED, "where", None)
    return message if where is None else f"{message.rstrip('.')} ({where})."


def search_found(found):
    """``found`` (what a fit found), after what the search chose when it is a search's choice."""
    choice = getattr(_SILENCED, "choice", None)
    return found if choice is None else f"{choice[0]}; fitted on all pairs, {found}"


def degenerate_advice(usual):
    """``usual`` (what to change), or for a search's choice what to search instead."""
    choice = getattr(_SILENCED, "choice", None)
    return usual if choice is None else choice[1]


def probabilities_follow():
    """Fits in this thread inside the block get a probability link afterwards
    (a search's refit, calibrated on its held-out scores), as ``probability=True``
    fits do: see :func:`svmcompare._base.lemma1_matters`."""
    return thread_setting(_SILENCED, "link", True)


def probabilities_follow_wanted():
    """True inside :func:`probabilities_follow` in this thread."""
    return bool(getattr(_SILENCED, "link", None))


def degenerate_warnings_wanted():
    """False inside :func:`degenerate_warnings_silenced` in this thread."""
    return not getattr(_SILENCED, "on", None)


def outside_stacklevel():
    """The ``stacklevel`` for a warning raised by the caller of this function
    that names the first frame outside svmcompare (the user's line), however
    deep inside the package the warning starts."""
    frame = inspect.currentframe().f_back  # the function that warns: stacklevel 1
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    return level
