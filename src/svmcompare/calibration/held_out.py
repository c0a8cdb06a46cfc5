"""The held-out rank gaps that ``probability=True`` fits its link on.

A fitted SVM's own rank gaps on its training pairs are optimistic: the link
must see gaps from models that did not see the pairs.  Three sources, by
``calibration`` and the solver: five calibration folds, each the fit's own
problem without the fold's rows, started from its solution (row folds; where
some pair has no row, five estimators refitted); leave-one-pair-out estimates
from the exact fit itself (``calibration="loo"``); or, for a linear fit with
many pairs per weight, its own gaps (``calibration="auto"``).  Each comes in
units of its model's training spread
(:func:`svmcompare.ranking_function.score_spread`), the link's input.  The
fitted link, ``predict_proba`` and ``calibrate`` (a link fitted on other
pairs) are here too: the parts of an estimator that has ``probability``.
"""

from __future__ import annotations

import contextlib
import sys

import numpy as np
from sklearn.base import clone
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from .._base import (
    fit_solution,
    gaps_from_gradient,
    primal_rows,
    training_spread,
)
from .._parallel import map_in_threads
from .._parameters import setting
from .._problem import oriented_gaps, restricted_start, rows_of_pairs
from .._validation import (
    check_context,
    check_labels,
    check_pairs,
    check_sample_weight,
    check_weighted_labels,
)
from ..exceptions import degenerate_warnings_silenced
from ..kernels import PRECOMPUTED
from ..ranking_function import (
    check_context_names,
    probabilities,
    rank_gap,
    score_spread,
    standardized_pairs,
)
from ..solvers.folds import fold_start, refit_from, refit_primal_without
from ..solvers.linear import row_scores
from ..solvers.loo import kernel_rows, loo_changes
from .links import fit_link, tie_features_for

# calibration="auto" takes a linear fit's own rank gaps from this many pairs per
# weight on: their optimism is then negligible (bench_ratings_scale.py ids: test
# log-loss 0.0002 from the folds' at 100 pairs a weight, 0.0014 at 50, 0.005 at 20).
IN_SAMPLE_PAIRS_PER_WEIGHT = 100


def overdetermined(prepared):
    """Whether a fit is linear in explicit features (no kernel expansion, no
    Nystroem map) with at least IN_SAMPLE_PAIRS_PER_WEIGHT pairs per weight."""
    if prepared.solver != "linear" or prepared.feature_map is not None:
        return False
    return prepared.y.size >= IN_SAMPLE_PAIRS_PER_WEIGHT * max(prepared.n_weights, 1)


# The largest free set whose |F| x |F| system the leave-one-out estimate of
# the calibration scores solves (about 1 s at 2,000 on two cores); past it,
# five calibration folds are refitted.
LOO_MAX_FREE = 2_000


class HeldOutCalibration:
    """The probabilities of an estimator with ``probability``: ``fit`` (the fit
    of :class:`~svmcompare._base.PairwiseKernelModel`, then, with
    ``probability=True``, its probability link fitted on :func:`held_out_gaps`),
    ``calibrate`` (the link fitted on other pairs) and ``predict_proba``."""

    def fit(self, X, y, context=None, sample_weight=None):
        """Fit the model on labeled pairs.

        Parameters
        ----------
        X : array-like of shape (n_pairs, 2, n_features)
            ``X[:, 0]`` holds x and ``X[:, 1]`` holds x'.
        y : array-like of shape (n_pairs,)
            Labels in {-1, 0, 1} (eq. 1): 1 if x' is better, -1 if x is
            better, 0 for no significant difference.
        context : array-like of shape (n_pairs, q), optional
            An advantage of x' over x that belongs to the positions in the
            pair, not to the items (e.g. +1 when x' plays at home, -1 when x
            does, 0 on neutral ground): swapping x and x' negates it.  The
            comparison becomes d = r(x') - r(x) + v^T context with v
            (``context_coef_``) learned jointly, as a linear block
            c_s^T c_t added to K~ (regularized with the ranking function).
            Then ``decision_function``, ``predict``, ``predict_proba`` and
            ``score`` need the context of their pairs too.
        sample_weight : array-like of shape (n_pairs,), optional
            Non-negative weight of each pair: multiplies C on the rows of
            the binary problem that the pair makes (as ``class_weight`` does
            per label), and weighs the pair in the probability link.

        Returns
        -------
        self
        """
        prepared, result, feature_map = fit_solution(self, X, y, context, sample_weight)
        if self.probability:
            calibrate_link(self, held_out_gaps(self, prepared, result, feature_map), prepared.y,
                           prepared.Xs, prepared.context, prepared.sample_weight)
        return self

    def calibrate(self, X, y, context=None, sample_weight=None):
        """Fit the probability link on pairs this model was not fitted on.

        Instead of the held-out folds of ``probability=True``, the link from
        r(x') - r(x) (and the context) to win / tie / loss probabilities is
        fitted on the pairs given: a later season, a validation set, the
        pairs a bootstrap resample left out.  The ranking function is kept;
        sets ``probability=True``, ``calibrator_``, ``score_scale_`` and
        ``class_prior_`` (the given pairs' label shares).

        Parameters
        ----------
        X, y : pairs and labels the model has not seen, as :meth:`fit`.
        context : array of shape (n_pairs, q), optional
            Required when the model was fitted with a context.
        sample_weight : array of shape (n_pairs,), optional

        Returns
        -------
        self
        """
        decision = self.decision_function(X, context)  # checks X and context
        y = check_labels(y, n_pairs=decision.size)
        context = check_context(context, y.size, self.ranking_.n_context)
        sample_weight = check_sample_weight(sample_weight, y.size)
        check_weighted_labels(_calibration_labels(self.problem_kind.check_labels), y,
                              sample_weight, type(self).__name__)
        gap = decision if context is None else decision - context @ self.context_coef_
        Xs = self.scaler_.transform_pairs(check_pairs(X, n_features=self.n_features_in_))
        # r(x') - r(x) in units of the fit's own spread, as the folds' gaps are.
        held_out = gap / training_spread(self, Xs)
        self.set_params(probability=True)
        return calibrate_link(self, held_out, y, Xs, context, sample_weight)

    @available_if(lambda self: _has_probabilities(self))  # defined below the class
    def predict_proba(self, X, context=None):
        """P(y = -1), P(y = 0), P(y = 1) of each pair, in the order of ``classes_``.

        The probability link of :mod:`svmcompare.calibration` on the rank
        difference r(x') - r(x), fitted on held-out folds of the training
        pairs (needs ``probability=True`` at fit time).

        Returns
        -------
        proba : ndarray of shape (n_pairs, 3)
        """
        check_is_fitted(self, "calibrator_")
        return probabilities(self, X, context)

    @property
    def link_context_coef_(self):
        """The probability link's own coefficients on the pair context (one
        per context column): the positional advantage (home ground, the
        answer shown first) as the probabilities use it, re-estimated by
        likelihood; ``context_coef_`` is the SVM's, which sets its tie band
        (on a review's LLM judgments -0.05 and of either sign over folds,
        where the link's read -0.10).  :meth:`context_effect` gives it on the
        probability scale."""
        return self._context_link().context_coef

    def context_effect(self, context):
        """P(x better), P(tie), P(x' better) of a pair of equal scores (and,
        with a pair tie band, of average tie features) under each row of
        ``context`` (n, q; a DataFrame's columns as at fit): what the
        advantage alone does, e.g. ``[[0], [1]]`` for neutral ground and for
        x' at home."""
        link = self._context_link()
        check_context_names(self, context)  # a DataFrame's columns as at fit
        return link.at_equal_scores(check_context(context, len(context),
                                                  self.ranking_.n_context))

    def _context_link(self):
        """The probability link of a model fitted with probabilities and a context."""
        check_is_fitted(self)
        if not hasattr(self, "calibrator_"):
            raise ValueError(f"This {type(self).__name__} has no probability link: fit it with "
                             "probability=True for the advantage the probabilities use "
                             "(context_coef_ is the SVM's).")
        if not self.ranking_.n_context:
            raise ValueError(f"This {type(self).__name__} was fitted without a pair context: "
                             "there is no advantage to show (fit(X, y, context=...)).")
        return self.calibrator_

    @available_if(lambda self: _has_probabilities(self))
    def predict_log_proba(self, X, context=None):
        """The natural logarithm of :meth:`predict_proba` (scikit-learn's
        classifier method): -inf where a probability is 0 (SVMRank's ties,
        or a probability below the smallest double), without a warning."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X, context))


def _has_probabilities(model):
    """``predict_proba`` exists with ``probability=True``; without it, say how
    to get it (hasattr stays False: the AttributeError is scikit-learn's way)."""
    if not setting(model, "probability"):
        raise AttributeError(
            f"This {type(model).__name__} has no predict_proba: fit it with probability=True "
            "(or call calibrate(X, y) on other pairs) for win / tie / loss probabilities.")
    return True


def _calibration_labels(check):
    """A label-set check for the pairs a link is fitted on: those of the
    model's own fit (SVMCompare: ties and decided pairs; SVMRank: decided
    pairs), so that no outcome the model predicts gets a probability of 0
    from pairs that lack it (an infinite log-loss on the first such pair)."""
    def calibration_check(y, model):
        try:
            check(y, model)
        except ValueError as exc:
            raise ValueError(f"{model}.calibrate: {exc}") from None
    return calibration_check


def held_out_gaps(model, prepared, result, feature_map):
    """Rank gaps of the training pairs from models that did not see them, in
    units of their model's training spread (the probability link's input):
    with ``calibration="loo"`` and the exact solver, approximate
    leave-one-pair-out gaps from this fit's solution (``solvers/loo.py``:
    one |F| x |F| system, no refit) when that system is small and well
    posed; with ``calibration="auto"``, a linear fit's own gaps when it has
    at least ``IN_SAMPLE_PAIRS_PER_WEIGHT`` pairs a weight; else five
    calibration folds, each this fit's problem without
    its pairs' rows started from this solution (:func:`row_fold_gaps`),
    or, where some pair has no row (SVMRank's ties), five estimators
    refitted (:func:`cross_validated_scores`)."""
    gaps = None
    calibration = setting(model, "calibration")
    if calibration == "auto" and overdetermined(prepared):
        model.calibration_ = "in-sample"
        return model.ranking_.difference(prepared.Xs) / training_spread(model, prepared.Xs)
    if calibration == "loo" and prepared.solver == "exact":
        gaps = loo_gaps(model, prepared, result)
    if gaps is not None:
        model.calibration_ = "leave-one-out"
        # One model for every pair: its own training spread is the unit.
        return gaps / training_spread(model, prepared.Xs)
    model.calibration_ = "5-fold"
    if rows_of_pairs(prepared.problem) is not None:
        held_out, scales = row_fold_gaps(model, prepared, result)
    else:
        held_out, scales = cross_validated_scores(
            model, prepared.X, prepared.y, context=prepared.context,
            sample_weight=prepared.sample_weight, random_state=model.random_state,
            start=refit_start(model, prepared, result, feature_map))
    return held_out / scales


def row_fold_gaps(model, prepared, result):
    """Held-out rank gaps and fold spreads (as
    :func:`cross_validated_scores` gives them) from five
    folds that solve this fit's problem without their test pairs' rows,
    started from its solution (:mod:`solvers.folds`): the folds keep this
    fit's standardization, per-row C and features (Nystroem landmarks
    included).

    Lemma 1's scale of a fold (1 / (-beta), > 0) multiplies its held-out
    gaps and its spread alike, so their ratio, the link's input, needs
    no bias: the gaps are taken in the SVM's own units u^T Phi."""
    problem, y, n = prepared.problem, prepared.y, prepared.y.size
    first_row = rows_of_pairs(problem)
    pair_of_row = problem.pair
    splits = calibration_splits(y, random_state=model.random_state)
    # Each fold: (its rows, the first rows of its test and training pairs).
    folds = []
    for train, test in splits:
        held = np.zeros(n, dtype=bool)
        held[test] = True
        folds.append((np.flatnonzero(~held[pair_of_row]), first_row[test], first_row[train]))
    workers, fold_params = fold_workers(model.get_params(), len(splits))
    threads = fold_params.get("n_jobs", setting(model, "n_jobs"))
    if prepared.solver == "exact":
        refit = dual_refit(model, prepared, result, folds, threads,
                                 fold_params.get("cache_size", model.cache_size), workers)
    else:
        refit = primal_refit(model, prepared, result, folds, threads)

    def fit_fold(k):
        _, test_rows, train_rows = folds[k]
        test_fitted, train_fitted, context_coef = refit(k)
        train_gaps = oriented_gaps(problem, train_rows, train_fitted, context_coef)
        return (oriented_gaps(problem, test_rows, test_fitted, context_coef),
                score_spread(train_gaps))

    return held_out_by_folds(fit_fold, splits, n, workers,
                             bool(setting(model, "verbose")))


def dual_refit(model, prepared, result, folds, threads, cache_size, workers):
    """The folds' refits of the exact solver (:mod:`solvers.folds`):
    ``refit(k)`` gives fold k's fitted values (eq. 17) on its test and
    training rows and its context weights.  Every fold's start is made
    here, reading the fit's cached rows of Q (``result.rows``), which are
    then released: the folds' own solves share ``cache_size``."""
    problem = prepared.problem
    options = {"tol": model.tol, "max_iter": model.max_iter, "shrinking": bool(model.shrinking),
               "cache_size": cache_size, "n_threads": threads}
    gram = prepared.gram
    if gram is None and prepared.kernel.code == PRECOMPUTED:
        gram = prepared.kernel.block(problem.items, problem.items)  # once for all folds
        # The folds' solvers do not count a Gram matrix they are given: this
        # one, made for them, comes out of their share of cache_size.
        options["cache_size"] = max(0.0, cache_size - gram.nbytes / 2**20 / max(workers, 1))

    def start(fold):
        keep, test_rows, _ = fold
        return fold_start(problem, prepared.kernel, result.alpha, result.gradient, keep,
                          test_rows, bias=model.problem_kind.bias, gram=gram, rows=result.rows)
    # Side by side as the folds (q_product releases the GIL).
    starts = map_in_threads(start, folds, workers)
    if result.rows is not None:
        result.rows.release()

    def refit(k):
        keep, _, train_rows = folds[k]
        fold, test_fitted = refit_from(problem, prepared.kernel, starts[k],
                                       bias=model.problem_kind.bias, gram=gram, **options)
        # v' = sum_t alpha'_t y_t c_t (eq. 17's context block) of the fold.
        context_coef = problem.context[keep].T @ (problem.y[keep] * fold.alpha)
        at = np.searchsorted(keep, train_rows)
        train_fitted = (fold.gradient[at] + 1.0) * problem.y[keep][at]
        return test_fitted, train_fitted, context_coef
    return refit


def primal_refit(model, prepared, result, folds, threads):
    """The folds' refits of the linear or Nystroem solver
    (:func:`solvers.folds.refit_primal_without`) on this fit's difference
    vectors, as :func:`dual_refit` gives them."""
    problem = prepared.problem
    D = primal_rows(prepared)
    v = np.append(result.u, result.bias) if model.problem_kind.bias else result.u
    q = problem.context.shape[1]

    def refit(k):
        keep, test_rows, train_rows = folds[k]
        fold = refit_primal_without(D, problem.y, problem.C, v, keep, alpha=result.alpha,
                                    bias=model.problem_kind.bias, tol=model.tol,
                                    n_threads=threads, loss=model.loss,
                                    try_dual=result.solver == "dual_cd")
        fitted = row_scores(D, fold.u)  # not D[rows] @ u: copies of D's rows
        return fitted[test_rows], fitted[train_rows], fold.u[fold.u.size - q:]
    return refit


def loo_gaps(model, prepared, result):
    """The training rank gaps r(x') - r(x), each moved by its pair's
    leave-one-out change (:func:`solvers.loo.loo_changes`); None when the
    free set is larger than ``LOO_MAX_FREE`` or its system too
    ill-conditioned for the estimate's digits (exact solver only)."""
    problem = prepared.problem
    block, diagonal = kernel_rows(problem, prepared.kernel)
    changes = loo_changes(block, diagonal, problem.y, problem.C, result.alpha,
                          problem.pair, problem.context, model.problem_kind.bias,
                          max_free=LOO_MAX_FREE)
    if changes is None:
        return None
    rows, change, _ = changes
    with degenerate_warnings_silenced():  # _store has warned already
        scale, _ = model.problem_kind.rank_scale(model, result.bias, result.bias_noise)
    gaps = training_gaps(model, prepared, result, scale)
    # A row (x', x) carries -(r(x') - r(x)).
    gaps[problem.pair[rows]] += scale * np.where(problem.flipped[rows], -change, change)
    return gaps


def refit_start(model, prepared, result, feature_map):
    """How a refit on some of these pairs (a calibration fold) starts its
    solver from this fit's solution: a function of the refit's prepared
    problem and the indices of its pairs here, giving ``_solve``'s keywords;
    None where the solutions do not carry over (Nystroem landmarks are
    drawn per fit)."""
    if prepared.solver == "exact":
        bias = model.problem_kind.bias

        def start(sub, pairs):
            return {"alpha0": restricted_start(result.alpha, prepared.problem,
                                               sub.problem, pairs, bias)}
        return start
    if feature_map is None or getattr(feature_map, "exact", False):
        # Same features in the refit (its standardization moves a little).
        v0 = np.append(result.u, result.bias) if model.problem_kind.bias else result.u

        def start(sub, pairs):
            return {"v0": v0}
        return start
    return None


def calibrate_link(model, held_out, y, Xs, context=None, sample_weight=None):
    """Fit the probability link on held-out rank gaps in units of their fold
    model's training spread (see :func:`cross_validated_scores`)
    and the pairs' context, for pairs ``Xs`` standardized by this model;
    sets ``calibrator_`` and ``score_scale_`` (this model's training spread)."""
    model.calibrator_ = fit_link(held_out, y, tie_features_for(Xs, setting(model, "tie_band")),
                                 link=setting(model, "link"), context=context,
                                 sample_weight=sample_weight)
    model.score_scale_ = training_spread(model, Xs)
    # The training shares of -1, 0, 1: the baseline every probability model
    # has to beat (``svmcompare evaluate`` prints its scores next to ours).
    counts = np.bincount(np.asarray(y, dtype=np.intp) + 1, weights=sample_weight, minlength=3)
    model.class_prior_ = counts / counts.sum()
    return model


def training_gaps(model, prepared, result, scale):
    """r(x') - r(x) of the training pairs (no context term) from the exact
    solver's result, off its dual gradient (``_store`` has v at hand and
    calls :func:`gaps_from_gradient` itself)."""
    sv = np.flatnonzero(result.alpha > 0)
    problem = prepared.problem
    context_coef = scale * (problem.context[sv].T @ (problem.y[sv] * result.alpha[sv]))
    return gaps_from_gradient(model, prepared, result, scale, context_coef)


def cross_validated_scores(estimator, X, y, cv=5, random_state=None, context=None,
                           sample_weight=None, start=None, splits=None):
    """Held-out rank gaps of every pair by K-fold refits of ``estimator``
    (folds of :func:`calibration_splits`, or the (train, test) ``splits``
    given: a search's folds, whose pairs validated by no split get NaN).

    ``start`` (from the estimator's fit on all pairs, see :func:`refit_start`)
    starts each fold's solver from that fit's solution: the folds reach the
    same optima (to the solver's tolerance) in fewer steps.

    Returns
    -------
    scores : ndarray of shape (n_pairs,)
        Each pair's rank gap r(x') - r(x) (without the context term, which
        the link re-estimates) from the fold model that did not see it.
    spreads : ndarray of shape (n_pairs,)
        The :func:`score_spread` of that fold model's d on its own training
        pairs: ``scores / spreads`` puts every fold on one scale, which a
        link needs (pooling folds whose scores differ by orders of magnitude
        gives probabilities that do not depend on the pair).
    """
    if splits is None:
        splits = calibration_splits(y, cv, random_state)
    params = estimator.get_params()
    workers, fold_params = fold_workers(params, len(splits))
    fold_params["probability"] = False

    def fit_fold(k):
        train, test = splits[k]
        model = clone(estimator).set_params(**fold_params)
        fit_context = None if context is None else context[train]
        fit_weight = None if sample_weight is None else sample_weight[train]
        # The fit on all pairs has said whether it is degenerate: five more
        # warnings about the folds would say nothing new.
        with degenerate_warnings_silenced():
            fit_solution(model, X[train], y[train], fit_context, fit_weight,
                         None if start is None else lambda prepared: start(prepared, train))
        return rank_gap(model, X[test]), training_spread(model, standardized_pairs(model, X[train]))

    return held_out_by_folds(fit_fold, splits, y.shape[0], workers,
                             bool(params.get("verbose", False)))


def calibration_splits(y, cv=5, random_state=None):
    """The (train, test) index arrays of the calibration folds: stratified by
    label, shuffled with ``random_state``; K is lowered to the size of the
    smallest label class if needed (at least 2)."""
    counts = np.unique(y, return_counts=True)[1]
    folds = min(cv, int(counts.min()))
    if folds < 2:
        raise ValueError(
            f"Probability calibration needs at least 2 pairs of every label for "
            f"cross-validation; the rarest label has {counts.min()}.")
    from sklearn.model_selection import StratifiedKFold

    return list(StratifiedKFold(folds, shuffle=True, random_state=random_state)
                .split(np.zeros(y.shape[0]), y))


def held_out_by_folds(fit_fold, splits, n_pairs, workers=1, verbose=False):
    """Run ``fit_fold(k)`` for every split k, on up to ``workers`` threads (a
    bar over the folds when ``verbose``), and gather what each returns,
    (scores of split k's test pairs, its training spread), into two arrays
    over the ``n_pairs`` pairs."""
    scores = np.full(n_pairs, np.nan)  # a pair no split tests: NaN
    spreads = np.full(n_pairs, np.nan)
    with _fold_progress(len(splits), verbose) as on_done:
        outputs = map_in_threads(fit_fold, range(len(splits)), workers, on_done)
    for (_, test), (score, spread) in zip(splits, outputs, strict=True):
        scores[test] = score
        spreads[test] = spread
    return scores, spreads


def fold_workers(params, folds):
    """Threads for ``folds`` calibration folds of an estimator with ``params``
    (its ``n_jobs``), and the parameters each fold's solver runs with: one
    thread each when folds run side by side, the kernel row cache shared out
    so that the fit keeps to ``cache_size`` in all, no progress lines of its
    own (they would interleave)."""
    from ..solvers.threads import thread_count

    workers = min(thread_count(params.get("n_jobs")), folds)
    fold_params = {}
    if "verbose" in params:
        fold_params["verbose"] = False
    if workers > 1:
        fold_params["n_jobs"] = 1
        if "cache_size" in params:
            fold_params["cache_size"] = params["cache_size"] / workers
    return workers, fold_params


@contextlib.contextmanager
def _fold_progress(folds, show):
    """A bar over the calibration folds on stderr when ``show`` (the folds'
    own SMO lines are off), drawn once they run past the SMO line's delay."""
    if not show:
        yield None
        return
    from tqdm.auto import tqdm

    from ..solvers.interrupt import PROGRESS_AFTER

    with tqdm(total=folds, desc="calibration folds", file=sys.stderr, leave=False,
              delay=PROGRESS_AFTER) as bar:
        yield lambda finished: bar.update(finished - bar.n)
