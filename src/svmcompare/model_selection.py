"""Choosing a comparison model and its probability link by cross-validation.

:class:`SVMCompareCV` scores a grid (:func:`default_grid`, plus the
estimator's own setting) on K folds through the warm-started C paths of
:mod:`svmcompare.grid_search`, scores every probability link option on each
point's held-out rank gaps, picks the simplest point within one standard
error of the best (Breiman's rule; half of one with group folds, or the best
mean) and refits it on all pairs.
"""

from __future__ import annotations

import contextlib
import numbers
import warnings

import numpy as np
import pandas as pd
import scipy.sparse as sp
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.model_selection import check_cv
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ._problem import Standardizer, distinct_items, indicator_columns, one_hot_identities
from ._validation import (
    LABEL_WORDS,
    check_context,
    check_groups,
    check_labels,
    check_pairs_labels,
    check_sample_weight,
    take_rows,
)
from .calibration import StandardizedTieFeatures, fit_link, tie_features_for
from .calibration.held_out import calibrate_link
from .compare import SVMCompare
from .exceptions import NoRankingError, chosen_by_search, probabilities_follow
from .grid_search import (  # the engine's public functions, importable from here as before
    PATH_GRAM_BYTES,
    C_paths,
    best_index,
    check_progress,
    fit_C_path,
    grid_points,
    paper_grid,
    path_budget,
    search_grid,
    validation_search,
)
from .metrics import outcome_brier, outcome_log_loss, outcome_log_losses
from .ranking_function import ComparisonMixin, check_cost, copy_names, set_feature_names
from .sparse_pairs import SparsePairs

__all__ = ["SVMCompareCV", "default_grid", "fit_C_path", "paper_grid", "search_grid",
           "validation_search"]

SCORINGS = ("error", "auc", "log_loss")
LOSSES = ("auto", "hinge", "squared_hinge")
SELECTIONS = ("auto", "half_se", "one_se", "best")
# How many standard errors of the paired fold differences a simpler point may
# trail the best by and still be chosen.
_SE_MULTIPLES = {"half_se": 0.5, "one_se": 1.0}
# A grid point whose log-loss on the first folds trails the best point's by
# more than RACE_MARGIN and by more than RACE_Z standard errors is not scored
# on the other folds (``race=True``; how the rule was set: BENCHMARKS.md, "The
# recommended model's fit time", stop 45).
RACE_MARGIN = 0.03
RACE_Z = 4.0


# Past this many pairs the default grid's RBF points are fitted on a
# Nystroem approximation of the kernel (``solver="nystroem"``, the estimator's
# ``n_components``): on every fold, exact SMO on 16,000 club-football pairs
# (32,000 items, a kernel past what a path keeps) took 66 s a C path, and the
# first wave of a 20,000-pair search had not finished after 16 minutes; with
# Nystroem points (SVMCompare()'s own RBF point too) the whole search took
# 115 s, linear points 83 s of it (the same choice and test log-loss;
# BENCHMARKS.md "The recommended model's fit time").
SEARCH_NYSTROEM_PAIRS = 10_000


def rbf_by_nystroem(n_pairs=None, n_items=None, budget=PATH_GRAM_BYTES):
    """Whether the default grid's RBF points are Nystroem fits: past
    :data:`SEARCH_NYSTROEM_PAIRS` pairs, or when the kernel matrix of the
    ``n_items`` distinct items is larger than the ``budget`` in bytes a C path
    may keep (8,192 items at the default :data:`PATH_GRAM_BYTES`).  Past that
    an exact path computes every fold's item kernel, up to 800 MB a block, for
    points it seldom keeps: on 5,000 club-football pairs (9,991 items) those
    blocks were most of a 19 s search (10 s by Nystroem, the same linear point
    chosen; BENCHMARKS.md, "The recommended model's fit time")."""
    if n_pairs is not None and n_pairs > SEARCH_NYSTROEM_PAIRS:
        return True
    return n_items is not None and 8.0 * float(n_items) ** 2 > budget


def default_grid(n_features, indicators=False, n_pairs=None, n_items=None,
                 budget=PATH_GRAM_BYTES, loss="hinge"):
    """The grid :class:`SVMCompareCV` searches when given none.

    ``loss="squared_hinge"``: the linear points alone, each with the squared
    hinge (what ``SVMCompareCV(loss="squared_hinge")`` and ``fit --auto --loss
    squared_hinge`` search): the ratings of ids, whose solution is unique,
    where the hinge's search may choose a point without a ranking direction
    (BENCHMARKS.md, "Stop 52" and "A third new user's real data").

    Linear: C = 10^-6..10^2 (at C = 10^-6 every row is at its bound C but
    the few that balance beta, so u = C sum_t y_t d_t (eq. 17): the direction
    of the limit C -> 0, which smaller C would only repeat; the search chose
    it on five of ten real sets, BENCHMARKS.md "The public suite"),
    class_weight "balanced" and None, and with
    ``indicators`` (pairs with 0/1 features, e.g. one-hot identities)
    ``scale_indicators`` True and False (see :class:`SVMCompare`: which one
    serves new data depends on the data; BENCHMARKS.md, "The public suite",
    has both on every set, and the folds choose).  RBF: C =
    10^-2..10, gamma = 1/4, 1 and 4 divided by the number of features (on
    standardized features a typical squared distance is 2 n_features, so
    gamma = 1 / n_features gives kernel values around e^-2), class_weight
    "balanced".  The RBF points left out (class_weight None, C = 100) cost
    the most and were not chosen on the shared real data, and the
    standard-error rule prefers small C (BENCHMARKS.md, "The recommended
    model's fit time").  With ``n_pairs`` above :data:`SEARCH_NYSTROEM_PAIRS`,
    or ``n_items`` distinct items whose kernel a C path cannot keep in
    ``budget`` bytes (:func:`rbf_by_nystroem`), the RBF points take
    ``solver="nystroem"`` (and so does the refit of one chosen);
    :class:`SVMCompareCV` approximates the estimator's own RBF setting, which
    it adds, the same way.
    """
    n = max(int(n_features), 1)
    linear = {"kernel": ["linear"], "class_weight": ["balanced", None],
              "C": list(np.logspace(-6, 2, 9))}
    if indicators:
        linear = {**linear, "scale_indicators": [True, False]}
    if loss == "squared_hinge":
        return [{**linear, "loss": ["squared_hinge"]}]
    if loss != "hinge":
        raise ValueError(f"loss must be 'hinge' or 'squared_hinge'; got {loss!r}.")
    rbf = {"kernel": ["rbf"], "class_weight": ["balanced"],
           "gamma": [0.25 / n, 1.0 / n, 4.0 / n], "C": list(np.logspace(-2, 1, 4))}
    if rbf_by_nystroem(n_pairs, n_items, budget):
        rbf = _by_nystroem(rbf)
    return [linear, rbf]


class _SplitLinks:
    """What every link fitted for one split needs, made once for all grid
    points: the rows it is fitted on (the other splits' validation pairs),
    their context and weights, their tie features standardized per band, and
    the split's own pairs' tie features as those links see them (standardizing
    16,000 x 392 tie features took 0.15-0.4 s, once per split and C path
    before)."""

    def __init__(self, splits, k, tie_features, context, sample_weight):
        val = splits[k][1]
        self.others = np.concatenate([splits[j][1] for j in range(len(splits)) if j != k])
        self.val = val
        self.context, self.weight = take_rows(context, self.others), \
            take_rows(sample_weight, self.others)
        self.val_context = take_rows(context, val)
        self.fitting = {band: StandardizedTieFeatures.of(features[self.others])
                        for band, features in tie_features.items()}
        self.scoring = {band: self.fitting[band].clipped(features[val])
                        for band, features in tie_features.items()}


def _path_link_scores(pooled, y, split, links):
    """Cross-fitted log-loss and Brier score of every link option (``links``:
    tie band x family) at each point of one C path on one split (a
    :class:`_SplitLinks`), from the points' held-out scores ``pooled`` (in
    increasing C; None for a point without them, whose rows stay NaN).

    A link is fitted on the other splits' held-out scores and evaluated on the
    split's own: each pair's probability comes from a model and a link that
    never saw it.  A point's options start from one constant ordered band
    fitted once, and their tie terms from the same option's link at the
    path's previous point (along C the tie term moves little).
    """
    others, val = split.others, split.val
    log_losses = np.full((len(pooled), len(links)), np.nan)
    briers = np.full((len(pooled), len(links)), np.nan)
    warm = {}
    for i, held_out in enumerate(pooled):
        if held_out is None:
            continue
        start = fit_link(held_out[others], y[others], np.zeros((others.size, 0)),
                         context=split.context, sample_weight=split.weight)
        for j, option in enumerate(links):
            band = option.get("tie_band", "constant")
            warm[j] = fit_link(held_out[others], y[others], split.fitting[band],
                               link=option.get("link", "ordered"), context=split.context,
                               sample_weight=split.weight, start=start, warm=warm.get(j))
            proba = warm[j].predict_proba(held_out[val], split.val_context, split.scoring[band])
            log_losses[i, j] = outcome_log_loss(y[val], proba)
            briers[i, j] = outcome_brier(y[val], proba)
    return log_losses, briers


def _pooled(per_fold, splits, n_pairs):
    """A point's validation rank gaps over all pairs (each from the fold that
    left it out; NaN where no split validates the pair), or None when the
    point failed on some fold or the race left it out."""
    if any(score["failed"] or score["pruned"] for score in per_fold):
        return None
    pooled = np.full(n_pairs, np.nan)  # NaN: a pair no split validates (e.g. TimeSeriesSplit)
    for (_, val), score in zip(splits, per_fold, strict=True):
        pooled[val] = score["held_out"]
    return pooled


class _Race:
    """Which points are worth scoring on the next folds (``SVMCompareCV(race=True)``).

    Called with the scores of the folds done so far (the first, then the
    first two), it keeps each point unless its log-loss on those folds'
    pairs trails the best point's by more than
    ``RACE_MARGIN`` and by more than ``RACE_Z`` standard errors of the paired
    per-pair differences.  A point's per-pair losses on a fold come from a
    constant ordered link fitted on that fold's own held-out rank gaps (three
    parameters on hundreds of pairs: the same small optimism for every
    point); the cross-fitted scores come later, for the points kept.
    """

    def __init__(self, y, splits, context, sample_weight):
        self.y, self.splits = y, splits
        self.context, self.sample_weight = context, sample_weight
        self._losses = {}  # (point, fold) -> per-pair losses, or None

    def __call__(self, points, done):
        if not all(self._judges(k) for k in range(len(done))):
            # A fold whose pairs cannot fit a link (one outcome: a season x'
            # always won, a single left-out pair; or no weight) judges nothing.
            return np.ones(len(points), dtype=bool)
        losses = [self._pooled(i, done) for i in range(len(points))]
        means = np.array([np.nan if loss is None else loss.mean() for loss in losses])
        if np.isnan(means).all():
            return np.ones(len(points), dtype=bool)
        reference = losses[int(np.nanargmin(means))]
        keep = np.ones(len(points), dtype=bool)
        for i, loss in enumerate(losses):
            if loss is None:  # failed, or left out before: no scores to come
                keep[i] = False
                continue
            keep[i] = not _trails(loss, reference)
        return keep

    def path_rule(self, k):
        """Where C paths end on fold ``k`` (:func:`search_grid`'s first
        wave): a :class:`_PathEnd`, or None when the fold judges nothing."""
        if not self._judges(k):
            return None
        return _PathEnd(self.y, self.splits[k], self.context, self.sample_weight)

    def _judges(self, k):
        """Whether fold ``k``'s validation pairs of positive weight hold two outcomes."""
        val = self.splits[k][1]
        weighted = val if self.sample_weight is None else val[self.sample_weight[val] > 0]
        return np.unique(self.y[weighted]).size >= 2

    def _pooled(self, i, done):
        parts = [self._fold_losses(i, k, fold[i]) for k, fold in enumerate(done)]
        return None if any(part is None for part in parts) else np.concatenate(parts)

    def _fold_losses(self, i, k, score):
        if (i, k) not in self._losses:
            # The path rule scored the first fold's points already.
            self._losses[i, k] = score["race_losses"] if "race_losses" in score else \
                _PathEnd(self.y, self.splits[k], self.context, self.sample_weight).losses(score)
        return self._losses[i, k]


class _PathEnd:
    """Where a C path ends on the race's first fold.

    Along a path (increasing C) a point's log-loss typically falls to the
    path's best and rises past it, the larger C values costing the most
    (tcec's linear paths: Newton's 120-260 steps at C >= 0.1 against
    coordinate descent's milliseconds below; sushi's exact RBF paths: SMO at
    C = 10 2.3 s of a 3.2 s path).  Once the newest point trails the path's
    best earlier point as the race's rule judges a point out (by more than
    ``RACE_MARGIN`` and ``RACE_Z`` standard errors), the path goes no further
    on this fold: the larger C values are presumed to trail at least as far,
    and the race finds them pruned.  A path ends only past a minimum (its
    best earlier point is not its first), and degenerate points (no
    direction: a class-weight-free fit on unbalanced pairs, whose loss jumps
    back once C is large enough, club football's C = 1e-3..1 then 10)
    neither end a path nor set its best.

    A heuristic, not a guarantee: a path with a second minimum at larger C
    loses it, and trailing the path's best by ``RACE_Z`` standard errors need
    not mean trailing the grid's best by as many (its mean loss is at least
    as low, so only the ``RACE_MARGIN`` part carries over; the differences to
    another kernel's point can be noisier).  On the suite's twelve sets at
    5,000 pairs and in full, and at 20,000 pairs, every point it left out was
    one the race drops (BENCHMARKS.md, "The recommended model's fit time",
    stop 68).
    """

    def __init__(self, y, split, context, sample_weight):
        self.y, self.split = y, split
        self.context, self.sample_weight = context, sample_weight

    def losses(self, score):
        """A point's per-pair log-losses on the fold (:func:`_in_fold_losses`),
        or None for a failed point."""
        if score["held_out"] is None:
            return None
        return _in_fold_losses(score["held_out"], self.y, self.split, self.context,
                               self.sample_weight)

    def ends(self, trail):
        """Whether a path whose points so far have the scores ``trail``
        (increasing C; each with its ``race_losses``) ends."""
        counted = [None if score["degenerate"] else score.get("race_losses")
                   for score in trail]
        last = counted[-1]
        earlier = [losses for losses in counted[:-1] if losses is not None]
        if last is None or len(earlier) < 2:
            return False
        best = int(np.argmin([losses.mean() for losses in earlier]))
        # Only past a minimum: a path whose best is its first counted point
        # has not fallen, and may still (sushi's class-weight-free linear
        # path without scale_indicators: 0.06-0.14 behind the grid's best at
        # C = 1e-6..10, then 0.004 at C = 100).
        return best > 0 and _trails(last, earlier[best])


def _trails(losses, reference):
    """The race's rule: per-pair ``losses`` trail the ``reference`` point's by
    more than ``RACE_MARGIN`` and by more than ``RACE_Z`` standard errors of
    the paired differences."""
    diff = losses - reference
    excess = diff.mean()
    se = diff.std(ddof=1) / np.sqrt(diff.size) if diff.size > 1 else 0.0
    return bool(excess > RACE_MARGIN and excess > RACE_Z * se)


def _in_fold_losses(gap, y, split, context, sample_weight):
    """Per-pair log-losses of a constant ordered link fitted and scored on one
    fold's held-out rank gaps."""
    val = split[1]
    labels, fold_context = y[val], take_rows(context, val)
    none = np.zeros((val.size, 0))
    link = fit_link(gap, labels, none, context=fold_context,
                    sample_weight=take_rows(sample_weight, val))
    return outcome_log_losses(labels, link.predict_proba(gap, fold_context, none))


def _all_link_scores(pooled_of, paths, links, y, splits, tie_features, context,
                     sample_weight, n_jobs):
    """Every link option's cross-fitted scores at every point that did not
    fail: per option, the log-loss on each split and the mean Brier score over
    the splits; None for a failed point.  ``paths``: the points' indices by C
    path, in increasing C (:func:`C_paths`); the (path, split) tasks run in
    parallel split by split, each split's longest paths first (a link fit is
    ~10-100 ms, and a grid has dozens of points times options times folds)."""
    longest_first = sorted(paths, key=len, reverse=True)
    tasks = [(path, k) for k in range(len(splits)) for path in longest_first]

    def calls():
        # One split's prepared features at a time (each is a few copies of the
        # tie features: all splits at once held 0.2 GB more at 20,000 x 400).
        for k in range(len(splits)):
            split = _SplitLinks(splits, k, tie_features, context, sample_weight)
            for path in longest_first:
                yield delayed(_path_link_scores)([pooled_of[i] for i in path], y, split, links)

    done = Parallel(n_jobs=n_jobs)(calls())
    log_losses = np.full((len(pooled_of), len(links), len(splits)), np.nan)
    briers = np.full_like(log_losses, np.nan)
    for (path, k), (losses, brier) in zip(tasks, done, strict=True):
        log_losses[path, :, k], briers[path, :, k] = losses, brier
    return [None if pooled_of[i] is None else
            [(log_losses[i, j], float(np.mean(briers[i, j]))) for j in range(len(links))]
            for i in range(len(pooled_of))]


def _with_own_point(grid, estimator, sparse=False):
    """The default grid plus the estimator's own setting of the grid's
    parameters, when it is not a grid point already: the search always weighs
    the model one would fit without it (``SVMCompare()``'s RBF with gamma = 1
    and C = 1 is in no default grid; issue 35).  Sparse pairs take linear
    kernels only, so an own RBF setting is left out there."""
    names = sorted({name for part in grid for name in part})
    params = estimator.get_params()
    own = {name: params[name] for name in names if name in params}
    if own.get("kernel") == "linear":
        own.pop("gamma", None)  # no kernel width for a linear model
    if sparse and own.get("kernel", "linear") != "linear":
        return grid
    # A point sets only its own names; the rest come from the estimator.
    if any(all(_same(value, own.get(name, params.get(name))) for name, value in point.items())
           for point in grid_points(grid)):
        return grid
    return [*grid, {name: [value] for name, value in own.items()}]


def _by_nystroem(part):
    """A grid part of nonlinear kernels whose solver is left to "auto", with
    ``solver="nystroem"`` instead."""
    kernels = part.get("kernel", [])
    if kernels and all(kernel != "linear" for kernel in kernels) \
            and list(part.get("solver", ["auto"])) == ["auto"]:
        return {**part, "solver": ["nystroem"]}
    return part


def _same(a, b):
    if isinstance(a, (int, float, np.number)) and isinstance(b, (int, float, np.number)) \
            and not isinstance(a, bool) and not isinstance(b, bool):
        return bool(np.isclose(float(a), float(b), rtol=1e-12, atol=0.0))
    return type(a) is type(b) and a == b


def _link_options(estimator):
    """The probability-link settings SVMCompareCV chooses among (tie band x
    link family), for the ones ``estimator`` has."""
    names = estimator.get_params()
    bands = ("constant", "pair") if "tie_band" in names else (None,)
    links = ("ordered", "davidson") if "link" in names else (None,)
    return [{name: value for name, value in (("tie_band", band), ("link", link))
             if value is not None} for band in bands for link in links]


class SVMCompareCV(ClassifierMixin, BaseEstimator):
    """Cross-validated comparison model: the one to start with on real data.

    For each fold and each value of the other parameters, the fits over C form
    one warm-started path (:func:`search_grid`); the grid point with the best
    mean validation score over the folds is refitted on all pairs.  With
    ``probability=True`` the held-out scores of the chosen point's folds also
    calibrate the refitted model's probabilities (no extra fits), and the
    tie band (constant or drawish pairs, ``SVMCompare(tie_band=...)``) is
    chosen with the rest.

    Parameters
    ----------
    estimator : estimator, default=None
        The model to tune; ``SVMCompare()`` when None.  ``SVMRank`` and
        ``SVMRank2`` work too.  Its other hyper-parameters are kept.
    param_grid : dict or list of dicts, default=None
        The grid (any hyper-parameters of the estimator).  None:
        :func:`default_grid` (kernel linear and rbf, C, gamma, class_weight;
        RBF points by a Nystroem approximation past 10,000 pairs or 8,192
        distinct items) for
        ``SVMCompare``; for another estimator, C = 10^-3..10^2 and, for a
        non-linear kernel, gamma as in :func:`default_grid`; either way plus
        the estimator's own setting of those parameters when it is not a grid
        point (``SVMCompare()``: RBF, gamma = 1, C = 1), so the model one
        would fit without the search is always a candidate.
    scoring : {"error", "auc", "log_loss"} or None, default=None
        Minimum mean validation zero-one error, maximum mean comparison AUC,
        or minimum mean log-loss of the calibrated probabilities (needs
        ``probability=True``).  None: "log_loss" when ``probability=True``,
        else "error".
    cv : int or cross-validation splitter, default=5
        As scikit-learn's ``cv`` (an int gives stratified folds on y, in the
        order of the pairs; pass a splitter to shuffle or to keep time order),
        except that an int with ``groups`` given to :meth:`fit` gives
        ``GroupKFold(min(cv, number of groups))``: folds that keep each group
        together, as the groups ask (scikit-learn's stratified folds would
        ignore them).
    probability : bool, default=False
        Calibrate win / tie / loss probabilities (:meth:`predict_proba`).
    selection : {"auto", "half_se", "one_se", "best"}, default="auto"
        "best": the grid point with the best mean score.  "one_se": the
        simplest point whose mean score is within one standard error of the
        best -- linear before RBF, smaller C first (Breiman's
        one-standard-error rule), then the probability link (``tie_band`` x
        ``link``) with the best mean score at that point.  "half_se": the
        same within half a standard error.  The standard error is that of
        the per-fold differences from the best point.  "auto": "half_se"
        when the folds keep groups together (``fit`` given ``groups`` and a
        group splitter such as ``GroupKFold``: such folds resemble new data,
        a later season, new people), else "one_se" (folds that share
        them flatter flexible models: on football and engine chess, plain
        five folds with half a standard error chose C = 10 and an RBF model,
        0.048 and 0.010 worse on later games).  On real data the best mean of
        dozens of noisy points is an optimistic pick (ice hockey: an RBF
        point 0.025 worse on later games than the linear one chosen), while
        a whole standard error of four or five season folds lets in C far
        below what later games want (BENCHMARKS.md, "The public suite").
    n_jobs : int or None
        Parallel (fold, path) fits through joblib.
    random_state : int or None
        Passed to the estimator (Nystroem landmarks) when not None.  Past
        10,000 pairs or 8,192 distinct items the default grid's RBF points
        are Nystroem fits: set it for a search that gives the same result
        every run.
    cost : array-like of shape (3, 3), default=None
        With ``probability=True``, the cost matrix of :meth:`predict`'s
        labels (see :class:`SVMCompare`); None: the most probable outcome.
    progress : bool or "auto", default="auto"
        A progress bar over the paths (with time left) on stderr: "auto"
        shows it once the search has run 2 seconds, True at once, False never.
    race : bool, default=True
        With ``scoring="log_loss"`` and three folds or more: score every
        point on the first fold, then the second, and after each leave out
        the points whose log-loss on those folds trails the best point's
        clearly (by more than 0.03 and by more than four standard errors of
        the per-pair differences): such points (large C, narrow kernels) cost
        the most; on ten real sets none of them was the best point or the
        one chosen without the race.  On the first fold a C path also stops
        once, past its minimum, a point trails the path's best earlier point
        so (degenerate points aside): the larger C values, presumed to trail
        further, are not fitted there either (a heuristic; on the suite's
        sets it left out only points the race drops).  Left out, they show
        ``n_pruned`` > 0 and no mean scores in ``cv_results_``.  False:
        every point on every fold.
    loss : {"auto", "hinge", "squared_hinge"}, default="auto"
        The loss of the default grid's points (no ``estimator`` and no
        ``param_grid`` given).  "squared_hinge": the linear points alone,
        each with the squared hinge (and ``SVMCompare(kernel="linear",
        loss="squared_hinge")``'s own setting): ratings of ids, where the
        hinge's exact solutions may have no ranking direction (scores at
        rounding level, ordered by where the solver stopped; BENCHMARKS.md,
        "Stop 52"); the squared hinge's solution is unique.  "auto": the
        squared hinge when every item is a one-hot identity and nothing else
        (as ``svmcompare fit --auto`` on a table of ids: better on three
        leagues' and a rugby competition's ids, level on LLM judgments,
        0.002 behind on engine games), the hinge otherwise; ``loss_`` says
        which.

    Attributes
    ----------
    best_params_ : dict
        The chosen grid point (with ``tie_band`` and ``link`` when
        ``probability=True``).
    best_score_ : float
        Its mean validation score as scikit-learn's searches give it, larger
        is better: ``cv_results_["mean_test_score"][best_index_]`` (minus the
        log-loss or the zero-one error, the AUC itself).
    best_index_ : int
        Its row of ``cv_results_``.
    selection_ : str
        The rule that chose it ("half_se", "one_se" or "best"; see
        ``selection``).
    scoring_ : str
        The criterion that chose it ("error", "auc" or "log_loss").
    loss_ : str
        The default grid's loss ("hinge" or "squared_hinge"; "hinge" with an
        ``estimator`` or a ``param_grid``, whose own loss counts).
    best_estimator_ : estimator
        Refitted on all pairs with ``best_params_``.
    cv_results_ : pandas.DataFrame
        One row per grid point (and link option): its parameters, ``mean_error``,
        ``std_error``, ``mean_auc``, ``std_auc``, ``mean_log_loss`` and
        ``mean_brier`` (with ``probability=True``), ``n_failed`` (folds where the
        fit had no ranking function; such a point gets no scores, NaN) and
        ``n_degenerate`` (folds fitted by the ``on_degenerate="fallback"`` path)
        and ``n_pruned`` (folds where ``race`` did not fit it); and as
        scikit-learn's searches name them, ``mean_test_score`` (the criterion,
        larger is better: the negative log-loss or error, the AUC),
        ``std_test_score`` and ``rank_test_score`` (1: the best mean; the
        chosen row is ``selected``, which the standard-error rule can make a
        simpler one), ``param_<name>`` columns and ``params`` (each row's
        parameters as a dict), as in scikit-learn.
    classes_, n_features_in_ : as the estimator's.
    """

    def __init__(self, estimator=None, *, param_grid=None, scoring=None, cv=5,
                 probability=False, selection="auto", cost=None, n_jobs=None,
                 random_state=None, progress="auto", race=True, loss="auto"):
        self.estimator = estimator
        self.selection = selection
        self.param_grid = param_grid
        self.scoring = scoring
        self.cv = cv
        self.probability = probability
        self.cost = cost
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.progress = progress
        self.race = race
        self.loss = loss

    def _scoring(self):
        scoring = self.scoring
        if scoring is None:
            scoring = "log_loss" if self.probability else "error"
        if scoring not in SCORINGS:
            raise ValueError(f"scoring must be one of {SCORINGS} or None; got {scoring!r}.")
        if scoring == "log_loss" and not self.probability:
            raise ValueError("scoring='log_loss' needs probability=True.")
        return scoring

    def _grid(self, base, X, loss, sparse=False):
        if self.param_grid is not None:
            return self.param_grid
        n_features = X.shape[2]
        if isinstance(base, SVMCompare) and self.estimator is None:
            n_items = None if sparse or loss != "hinge" or X.shape[0] > SEARCH_NYSTROEM_PAIRS \
                else distinct_items(X.reshape(-1, n_features) + 0.0)[0].shape[0]
            budget = path_budget(base)
            grid = default_grid(n_features, indicators=bool(indicator_columns(X).any()),
                                n_pairs=X.shape[0], n_items=n_items, budget=budget,
                                loss=loss)
            # Sparse pairs (identities) are fitted by the linear kernel only.
            grid = grid[:1] if sparse else grid
            searched = _with_own_point(grid, base, sparse)
            if rbf_by_nystroem(X.shape[0], n_items, budget):
                # SVMCompare()'s own RBF point too: exact, on every fold of
                # 20,000 club-football pairs, it made a 2-minute search 13.
                searched = [_by_nystroem(part) for part in searched]
            return searched
        else:
            if sparse:
                base.set_params(kernel="linear")
            grid = [{"C": list(np.logspace(-3, 2, 6))}]
            if getattr(base, "kernel", "linear") != "linear":
                grid[0]["gamma"] = [g / max(n_features, 1) for g in (0.25, 1.0, 4.0)]
        return _with_own_point(grid, base, sparse)

    def __getstate__(self):
        # A DataFrame is not plain data (skops cannot store it): cv_results_
        # travels as its columns, numeric ones as arrays, the rest as lists.
        state = dict(super().__getstate__())  # a copy: object's is the live __dict__
        results = state.get("cv_results_")
        if isinstance(results, pd.DataFrame):
            # "params" (dicts) is rebuilt from the param_<name> columns on load.
            state["cv_results_"] = {
                str(name): (column.to_numpy() if column.dtype.kind in "biuf" else column.tolist())
                for name, column in results.items() if name != "params"}
        return state

    def __setstate__(self, state):
        results = state.get("cv_results_")
        if isinstance(results, dict):
            lengths = {len(column) if isinstance(column, list) or getattr(column, "ndim", 0) == 1
                       else -1 for column in results.values()}
            if len(lengths) > 1 or -1 in lengths:
                raise ValueError("cv_results_ must be columns of one length (lists or 1-D "
                                 "arrays).")
            # A parameter set to None is a value: pandas would read it as missing.
            columns = {name: pd.Series(column, dtype=object)
                       if isinstance(column, list) and any(v is None for v in column)
                       else column for name, column in results.items()}
            frame = pd.DataFrame(columns)
            named = [name for name in frame.columns if str(name).startswith("param_")]
            if named and "params" not in frame:
                frame["params"] = [
                    {name[len("param_"):]: value for name, value in row.items()
                     if not (isinstance(value, float) and np.isnan(value))}
                    for row in frame[named].to_dict("records")]
            state = {**state, "cv_results_": frame}
        super().__setstate__(state)

    def fit(self, X, y, context=None, groups=None, sample_weight=None):
        """Choose the grid point by cross-validation, then refit on all pairs.

        Parameters
        ----------
        X, y : pairs and labels, as :meth:`SVMCompare.fit`.
        context : array of shape (n_pairs, q), optional
            The pair context, as :meth:`SVMCompare.fit`.
        groups : array of shape (n_pairs,), optional
            Group labels for a group splitter ``cv`` (e.g. ``GroupKFold`` by
            season, or by the person who judged the pair), so that folds
            resemble new data: a new season, a new person.
        sample_weight : array of shape (n_pairs,), optional
            Pair weights of every fit and of the probability link (the
            validation scores themselves are unweighted).
        """
        scoring = self._scoring()
        check_cost(self.cost)
        check_progress(self.progress)
        if self.selection not in SELECTIONS:
            raise ValueError(f"selection must be one of {SELECTIONS}; got {self.selection!r}.")
        if not isinstance(self.race, (bool, np.bool_)):
            raise TypeError(f"race must be True or False; got {self.race!r}.")
        if not isinstance(self.loss, str) or self.loss not in LOSSES:
            raise ValueError(f"loss must be one of {LOSSES}; got {self.loss!r}.")
        own_grid = self.estimator is not None or self.param_grid is not None
        if self.loss == "squared_hinge" and own_grid:
            raise ValueError("loss sets the default grid's loss: with an estimator or a "
                             "param_grid, set the loss there (SVMCompare(loss=...)).")
        # A wide DataFrame's feature names and a context DataFrame's column
        # names go to the fitted model.
        named, named_context = X, context
        X, y = check_pairs_labels(X, y)
        context = check_context(context, X.shape[0])
        sample_weight = check_sample_weight(sample_weight, X.shape[0])
        loss = self.loss
        if loss == "auto":
            loss = "squared_hinge" if not own_grid and one_hot_identities(X) else "hinge"
        base = clone(self.estimator) if self.estimator is not None else \
            SVMCompare() if loss == "hinge" else SVMCompare(kernel="linear", loss=loss)
        if self.random_state is not None and "random_state" in base.get_params():
            base.set_params(random_state=self.random_state)
        if groups is not None:  # missing or mixed labels named, as the bootstrap does
            groups = check_groups(groups, y.size)
        splitter = _splitter(self.cv, y, groups)
        splits = _checked_splits(splitter, y, groups)
        _check_split_labels(base, y, sample_weight, splits, groups)
        _check_split_features(X, splits, groups)
        if self.probability:
            _check_disjoint_validation(splits, y.size)
        # A split whose validation pairs are all ties (or none) has no AUC for
        # any point: the means are over the others (the same for every point).
        auc_folds = _auc_folds(y, splits) if scoring == "auc" else np.ones(len(splits), bool)
        if self.probability and len(splits) < 2:
            raise ValueError(f"cv gives {len(splits)} split; probability=True needs at least "
                             "two (each split's probability link is fitted on the other "
                             "splits' held-out scores).")
        if self.probability:
            _check_link_outcomes(y, splits, sample_weight)
        sparse = isinstance(X, SparsePairs)
        grid = self._grid(base, X, loss, sparse)
        if not grid_points(grid):
            raise ValueError(f"param_grid has no points: {grid!r}; give each parameter at "
                             "least one value.")
        if self.probability and "probability" not in base.get_params():
            # Found after the whole search before (an attack, stop 68).
            raise ValueError(f"{type(base).__name__} has no probability link: "
                             "SVMCompareCV(probability=True) needs an estimator with a "
                             "probability parameter (SVMCompare, SVMRank, SVMRank2).")
        if base.get_params().get("probability") and not self.probability:
            raise ValueError("estimator has probability=True, but SVMCompareCV(probability=False) "
                             "decides for the refitted model (which would have none): set "
                             "probability=True on SVMCompareCV.")
        if any("probability" in point for point in grid_points(grid)):
            raise ValueError("param_grid sets 'probability': SVMCompareCV(probability=...) "
                             "decides it for every point; leave it out of the grid.")
        # The race judges log-losses: with probability=True only.
        race = _Race(y, splits, context, sample_weight) \
            if self.race and scoring == "log_loss" else None
        points, scores, _ = search_grid(base, grid, X, y, splits,
                                        context=context, sample_weight=sample_weight,
                                        held_out=self.probability, n_jobs=self.n_jobs,
                                        progress=self.progress, description="SVMCompareCV",
                                        race=race)
        # The bar of the paths ends with them; the links' scores and the refit
        # (15% of a search, a review) get theirs.
        from tqdm.auto import tqdm

        from .solvers.interrupt import bar_options

        finishing = tqdm(total=2, desc="SVMCompareCV: links and refit", leave=False,
                         **bar_options(self.progress))
        rows, row_params, held_out = [], [], []
        links = _link_options(base) if self.probability else [{}]
        tie_features = {}  # per tie band, once for every grid point
        if self.probability:
            Xs = Standardizer.fit(X).transform_pairs(X)
            tie_features = {band: tie_features_for(Xs, band) for band in
                            {option.get("tie_band", "constant") for option in links}}
        per_point = [[fold[index] for fold in scores] for index in range(len(points))]
        pooled_of = [_pooled(per_fold, splits, y.size) if self.probability else None
                     for per_fold in per_point]
        link_scores = _all_link_scores(pooled_of, C_paths(points, base), links, y, splits,
                                       tie_features, context, sample_weight, self.n_jobs) \
            if self.probability else [None] * len(points)
        finishing.update(1)
        for point, per_fold, pooled, scored in zip(points, per_point, pooled_of, link_scores,
                                                   strict=True):
            failed = sum(score["failed"] for score in per_fold)
            pruned = sum(score["pruned"] for score in per_fold)
            errors = [score["error"] for score in per_fold]
            aucs = [score["auc"] for score in per_fold]
            row = {**point, "mean_error": np.mean(errors), "std_error": np.std(errors),
                   "mean_auc": np.mean(np.asarray(aucs)[auc_folds]),
                   "std_auc": np.std(np.asarray(aucs)[auc_folds]), "n_failed": failed,
                   "n_degenerate": sum(score["degenerate"] for score in per_fold),
                   "n_pruned": pruned,
                   **_split_columns("error", errors), **_split_columns("auc", aucs)}
            for k, option in enumerate(links):
                if any(name in point and str(point[name]) != value  # (np.str_ too)
                       for name, value in option.items()):
                    continue  # the grid fixed this link setting to another value
                banded = {**row, **option}
                if self.probability:
                    losses, brier = (np.full(len(splits), np.nan), np.nan) if scored is None \
                        else scored[k]
                    banded.update(mean_log_loss=np.mean(losses), std_log_loss=np.std(losses),
                                  mean_brier=brier, **_split_columns("log_loss", losses))
                if failed or pruned:  # scores on some folds only: no mean scores
                    banded.update(mean_error=np.nan, mean_auc=np.nan,
                                  **_split_columns("error", [np.nan] * len(splits)),
                                  **_split_columns("auc", [np.nan] * len(splits)))
                rows.append(banded)
                row_params.append({**point, **option})
                held_out.append(pooled)
        summary = pd.DataFrame(rows)
        for name in {name for params in row_params for name, v in params.items() if v is None}:
            # pandas reads None as missing (NaN); a parameter set to None is a value.
            summary[name] = pd.Series([params.get(name, np.nan) for params in row_params],
                                      dtype=object)
        column = "mean_" + scoring
        if summary[column].isna().all():
            finishing.close()  # not left drawn under the error
            raise NoRankingError(
                "Every grid point failed on some fold: beta >= 0. Use "
                "on_degenerate='fallback', or more weight on ties: class_weight='balanced' "
                "when ties are under a third of the pairs, else {1: 1, -1: w} with w > 1."
            )
        best = best_index(summary[column], scoring)
        rule = self.selection if self.selection != "auto" else \
            "half_se" if _folds_keep_groups(splitter, groups) else "one_se"
        if rule in _SE_MULTIPLES:
            # A row without a kernel has the estimator's (SVMCompare's RBF by
            # default), which the rule's "linear before RBF" must know.
            kernel = {name: value for name, value in base.get_params().items()
                      if name == "kernel"}
            best = _simplest_within_se(summary, [{**kernel, **params} for params in row_params],
                                       scoring, best, _SE_MULTIPLES[rule])
        summary["selected"] = np.arange(len(summary)) == best
        # scikit-learn's names too: the criterion, larger is better, and its rank.
        sign = 1.0 if scoring == "auc" else -1.0
        summary["mean_test_score"] = sign * summary[column]
        summary["std_test_score"] = summary[f"std_{column[len('mean_'):]}"]
        summary["rank_test_score"] = summary["mean_test_score"].rank(
            ascending=False, method="min", na_option="bottom").astype(np.int64)
        # scikit-learn's layout too: param_<name> columns and the params of each
        # row (last: a model file rebuilds "params" from the others).
        for name in dict.fromkeys(name for params in row_params for name in params):
            summary[f"param_{name}"] = summary[name]
        summary["params"] = row_params
        self.best_params_ = row_params[best]
        self.selection_ = rule
        self.scoring_ = scoring
        self.loss_ = loss
        self.cv_results_ = summary
        self.best_index_ = int(best)
        self.best_score_ = float(summary.loc[best, "mean_test_score"])
        model = clone(base).set_params(**self.best_params_, probability=False) \
            if "probability" in base.get_params() else clone(base).set_params(**self.best_params_)
        # A degenerate refit's warning says what the search chose, not "try
        # another C or class weight": the search has weighed those already.
        follow = probabilities_follow() if self.probability else contextlib.nullcontext()
        with chosen_by_search(*_choice(self.best_params_, scoring)), follow:
            model.fit(X, y, context=context, sample_weight=sample_weight)
        if self.probability:
            model.set_params(probability=True)
            if self.cost is not None and "cost" in model.get_params():
                model.set_params(cost=self.cost)
            # The link sees the pairs some split validated (a forward-chaining
            # splitter never validates its first block).
            seen = np.flatnonzero(~np.isnan(held_out[best]))
            calibrate_link(model, held_out[best][seen], y[seen],
                           model.scaler_.transform_pairs(take_rows(X, seen)),
                           take_rows(context, seen), take_rows(sample_weight, seen))
        if isinstance(model, ComparisonMixin):
            set_feature_names(model, named, named_context)
        finishing.update(1)
        finishing.close()
        self.best_estimator_ = model
        self.classes_ = model.classes_
        self.n_features_in_ = model.n_features_in_
        copy_names(model, self)
        return self

    def validation_splits(self, y, groups=None):
        """The (training, validation) splits of the pairs that :meth:`fit`
        validates on for labels ``y`` (and ``groups``): integer positions,
        one pair of arrays per split of ``cv`` (group folds when ``groups``
        is given and ``cv`` is an int or None).  A bootstrap of the search
        fits its replicates' links on these folds' held-out scores, as the
        search fitted its own."""
        y = check_labels(y)
        if groups is not None:
            groups = check_groups(groups, y.size)
        return _checked_splits(_splitter(self.cv, y, groups), y, groups)

    def _fitted(self):
        check_is_fitted(self)
        return self.best_estimator_

    def rank(self, Z):
        """r(z) of the refitted best model."""
        return self._fitted().rank(Z)

    def decision_function(self, X, context=None):
        """r(x') - r(x) (+ v^T context) of the refitted best model."""
        return self._fitted().decision_function(X, context)

    def predict(self, X, context=None):
        """Labels in {-1, 0, 1} by the refitted best model: with
        ``probability=True`` the label of least expected cost (``cost``; the
        most probable outcome by default), else the comparison rule."""
        return self._fitted().predict(X, context)

    def compare(self, X, context=None):
        """The comparison rule c_tau(x, x') of the refitted best model."""
        return self._fitted().compare(X, context)

    @available_if(lambda self: self.probability)
    def predict_proba(self, X, context=None):
        """P(y = -1), P(y = 0), P(y = 1) of each pair (``probability=True``)."""
        return self._fitted().predict_proba(X, context)

    @property
    def link_context_coef_(self):
        """The refitted best model's probability link's coefficients on the
        pair context (see :attr:`SVMCompare.link_context_coef_`)."""
        return self._fitted().link_context_coef_

    def context_effect(self, context):
        """The refitted best model's probabilities at equal scores under each
        row of ``context`` (see :meth:`SVMCompare.context_effect`)."""
        return self._fitted().context_effect(context)

    @available_if(lambda self: self.probability)
    def predict_log_proba(self, X, context=None):
        """log P(y = -1), log P(y = 0), log P(y = 1) of each pair (``probability=True``)."""
        return self._fitted().predict_log_proba(X, context)

    def score(self, X, y, sample_weight=None, context=None):
        """Fraction of pairs compared correctly by the refitted best model."""
        return self._fitted().score(X, y, sample_weight=sample_weight, context=context)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.three_d_array = True
        tags.input_tags.two_d_array = False
        return tags



_LINK_PARAMS = ("tie_band", "link")


def _folds_keep_groups(splitter, groups):
    """Whether ``splitter``'s folds keep the ``groups`` together: groups were
    given and the splitter reads them (scikit-learn's group splitters say so
    through metadata routing; plain folds, and a list of splits, do not)."""
    if groups is None:
        return False
    from sklearn.utils.metadata_routing import get_routing_for_object

    return get_routing_for_object(splitter).split.requests.get("groups") is True


def _splitter(cv, y, groups):
    """The splitter of ``cv``: scikit-learn's, but an int (or None) with
    ``groups`` gives group folds, so that the groups are not silently ignored."""
    if groups is not None and (cv is None or isinstance(cv, numbers.Integral)):
        from sklearn.model_selection import GroupKFold

        n_groups = np.unique(groups).size
        if n_groups < 2:
            raise ValueError("groups has a single group: group folds need at least two.")
        # As the command line's --auto folds: no more folds than groups.
        return GroupKFold(n_splits=min(5 if cv is None else int(cv), n_groups))
    return check_cv(cv, y, classifier=True)


def _checked_splits(splitter, y, groups):
    """``splitter``'s (train, validation) splits of the pairs, each with both,
    as integer positions of the pairs."""
    splits = []
    try:
        drawn = list(splitter.split(np.zeros(len(y)), y, groups))
    except ValueError as exc:
        if groups is None and "groups" in str(exc):  # scikit-learn: "should not be None"
            raise ValueError(f"cv={splitter!r} splits by groups: pass fit(..., groups=...), "
                             "one label per pair (e.g. its season or judge).") from exc
        raise
    for k, (train, val) in enumerate(drawn):
        train, val = (_split_positions(part, len(y), k, what)
                      for part, what in ((train, "training"), (val, "validation")))
        if len(train) == 0 or len(val) == 0:
            raise ValueError(f"cv's split {k} has {len(train)} training and {len(val)} "
                             "validation pairs; every split needs both.")
        splits.append((train, val))
    return splits


def _choice(params, scoring):
    """What a search chose and by what, and what to search for a ranking with
    Lemma 1's scale should the choice be degenerate."""
    chosen = ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v!r}"
                       for k, v in params.items())
    criterion = {"log_loss": "log-loss", "error": "error"}.get(scoring, scoring)
    weigh = "more (param_grid with class_weight='balanced')" \
        if params.get("class_weight") != "balanced" else \
        "still more (param_grid with class_weight={1: 1, -1: w}, w above the balanced weight " \
        "of ties, -1 being the flipped label of a tie)"
    # The grid held the other class weights and they lost: what the search chose
    # is what the folds validated, and the advice is for the ranking alone.
    return (f"SVMCompareCV chose {chosen} by cross-validated {criterion}",
            f"Its {criterion} is what the folds validated; if the ranking itself matters (an "
            "order of the items, a leaderboard), search the squared hinge (loss="
            "'squared_hinge'; fit --auto --loss squared_hinge), whose solution is unique, or "
            f"only points that weigh ties {weigh}.")


def _check_disjoint_validation(splits, n_pairs):
    """Refuse splits that validate a pair twice (RepeatedKFold, ShuffleSplit):
    each split's probability link is fitted on the other splits' held-out
    pairs, which would then hold the split's own."""
    counts = np.zeros(n_pairs, dtype=np.int64)
    for _, val in splits:
        np.add.at(counts, val, 1)
    if counts.max(initial=0) > 1:
        twice = int(np.argmax(counts > 1))
        raise ValueError(f"cv validates pair {twice} in {counts[twice]} "
                         "splits (e.g. RepeatedKFold, ShuffleSplit): probability=True fits "
                         "each split's link on the other splits' held-out pairs, so every "
                         "pair must be held out once at most. Use KFold, GroupKFold or "
                         "TimeSeriesSplit.")


def _check_link_outcomes(y, splits, sample_weight):
    """Refuse, before any fit, a split whose probability link would be fitted
    on pairs of one outcome: each split's link is fitted on the other splits'
    validation pairs (of positive weight), and a link needs two outcomes
    (found after the whole search before: an attack, stop 70, with later
    blocks of a TimeSeriesSplit all won by x')."""
    weighs = np.ones(y.size, dtype=bool) if sample_weight is None else sample_weight > 0
    for k in range(len(splits)):
        others = np.concatenate([splits[j][1] for j in range(len(splits)) if j != k])
        outcomes = np.unique(y[others[weighs[others]]])
        if outcomes.size < 2:
            held = "no pair of positive sample_weight" if outcomes.size == 0 else \
                f"only the outcome {int(outcomes[0])}"
            raise ValueError(
                f"probability=True fits cv's split {k}'s probability link on the other "
                f"splits' validation pairs, which hold {held}: a link needs two outcomes. "
                "Use folds whose validation pairs mix outcomes (more or other groups, "
                "or shuffled folds where time does not matter).")


def _auc_folds(y, splits):
    """The splits whose validation pairs define the comparison AUC (both ties
    and non-ties: :func:`~svmcompare.metrics.comparison_report`), the same for
    every point; a ValueError when none does."""
    defined = np.array([0 < np.count_nonzero(y[val] == 0) < val.size for _, val in splits])
    if not defined.any():
        raise ValueError("scoring='auc' needs validation pairs with both ties and non-ties in "
                         "some split (the comparison AUC is undefined on pairs of one kind); "
                         "no split of cv has them. Use scoring='error', or folds that mix them.")
    return defined


def _check_split_features(X, splits, groups):
    """Refuse, before any fit, a split whose training pairs have no varying
    feature although all pairs have one: history features of a first season
    alone (every side without earlier games) failed inside the search with
    the estimator's message, which named no fold."""
    if isinstance(X, SparsePairs):
        def varies(rows):
            both = sp.vstack([X.first[rows], X.second[rows]])
            return bool(np.any(both.max(axis=0).toarray() > both.min(axis=0).toarray()))
    else:  # each pair's extremes once (n x p), not a copy of the pairs per split
        high, low = X.max(axis=1), X.min(axis=1)

        def varies(rows):
            return bool(np.any(high[rows].max(axis=0) > low[rows].min(axis=0)))

    if not varies(np.arange(X.shape[0])):
        return  # no pair can train: the fit says why, as without a search
    for k, (train, _) in enumerate(splits):
        if not varies(train):
            trained = np.unique(groups[train])[:5] if groups is not None else []
            where = f" (group(s) {', '.join(map(str, trained))})" if len(trained) else ""
            raise ValueError(f"cv's split {k} trains on {train.size} pairs{where} whose every "
                             "feature is constant (e.g. history features of a first season, "
                             "where no side has earlier games): no model can be fitted there. "
                             "Leave those pairs out or use folds that train on more of them.")


def _check_split_labels(base, y, sample_weight, splits, groups):
    """Refuse, before any fit, a split whose training pairs ``base`` cannot
    learn from although all of ``y`` could: the few ties of the data all in
    the pairs (the groups) that one split validates.  The estimator's own
    message would say that y has no ties."""
    check = getattr(getattr(base, "problem_kind", None), "check_labels", None)
    if check is None:
        return
    name = type(base).__name__
    weighs = np.ones(y.size, dtype=bool) if sample_weight is None else sample_weight > 0
    try:
        check(y[weighs], name)
    except ValueError:
        return  # all the pairs cannot train it either: the fit says why, as without a search
    for k, (train, val) in enumerate(splits):
        kept = y[train][weighs[train]]
        if kept.size == 0:
            raise ValueError(f"cv's split {k} trains on no pair of positive sample_weight "
                             f"(its {train.size} training pairs all weigh 0).")
        try:
            check(kept, name)
        except ValueError:
            needed = _labels_needed(check, name, kept, np.unique(y[weighs]))
            if not needed:
                raise
            counted = weighs & np.isin(y, needed)
            total, validated = int(np.count_nonzero(counted)), int(np.count_nonzero(counted[val]))
            held = np.unique(groups[val][counted[val]])[:5] if groups is not None else []
            where = f" (group(s) {', '.join(map(str, held))})" if len(held) else ""
            # A splitter need not cover every pair (a time series' first block).
            placed = f"all {total} of them are among the pairs it validates{where}" \
                if validated == total else \
                f"none of the data's {total} is among its training pairs ({validated} among " \
                f"the pairs it validates{where})"
            raise ValueError(
                f"cv's split {k} trains on no {_label_words(needed)}: {placed}, and {name} "
                "cannot learn without them. Give the folds groups that spread them (more, "
                "smaller groups), fewer folds, or more such pairs.") from None


def _labels_needed(check, name, kept, labels):
    """The labels whose pairs ``kept`` lacks and the check needs: each that,
    added back alone, satisfies it (either of -1 and 1 when it needs pairs
    with a winner)."""
    needed = []
    for label in labels:
        if np.any(kept == label):
            continue
        try:
            check(np.append(kept, label), name)
        except ValueError:
            continue
        needed.append(int(label))
    return needed


def _label_words(labels):
    if sorted(labels) == [-1, 1]:
        return "pairs with a winner (y = -1 or 1)"
    return " or ".join(LABEL_WORDS[label] for label in labels)


def _split_positions(part, n, k, what):
    """One side of a split as positions 0..n-1 (a boolean mask of length n too)."""
    part = np.asarray(part)
    if part.dtype == bool and part.shape == (n,):
        return np.flatnonzero(part)
    if part.ndim != 1 or not (part.size == 0 or np.issubdtype(part.dtype, np.integer)):
        raise ValueError(f"cv's split {k}: the {what} pairs must be integer positions; got "
                         f"an array of {part.dtype} with shape {part.shape}.")
    if part.size and (part.min() < 0 or part.max() >= n):
        outside = int(part.max()) if part.max() >= n else int(part.min())
        raise ValueError(f"cv's split {k}: {what} position {outside} is outside the {n} "
                         "pairs.")
    return part.astype(np.int64)


def _split_columns(metric, values):
    return {f"split{k}_{metric}": float(value) for k, value in enumerate(values)}


def _simplest_within_se(summary, row_params, scoring, best, multiple=1.0):
    """Index of the simplest model within ``multiple`` standard errors of
    ``best``, with the best probability link for that model.

    The standard error is that of the per-fold differences from ``best``
    (folds are shared, so a hard fold is hard for every point; the spread of
    one point's fold scores overstates the uncertainty of a difference: on
    chess it let C = 1e-4 in, 0.005 worse on the test games).  Simplest:
    linear before RBF, then the smallest C.  The link options (tie band, link
    family) are not ranked by simplicity: they are fitted on the same
    held-out scores and scored cross-fitted, so a model is within the rule
    when one of its links is, and the best of them at the chosen model is
    taken, which may itself be outside it (a noisy pair band in, its model's
    constant band returned: lower mean, smaller spread).  Judging each model
    by its best link's row instead was tried (stop 56): the suite chose as
    before, and on a new user's LLM judgments (6 prompt splits, 3 and 5
    folds) it was worse by 0.0046 and 0.0012 on average.
    """
    mean = summary[f"mean_{scoring}"].to_numpy(float)
    folds = summary.filter(regex=rf"^split\d+_{scoring}$").to_numpy(float)
    sign = -1.0 if scoring == "auc" else 1.0  # larger is better for AUC
    excess = sign * (folds - folds[best])  # >= 0 on average: worse than best
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows (failed points)
        k = np.sum(~np.isnan(excess), axis=1)
        se = np.nanstd(excess, axis=1, ddof=1) / np.sqrt(np.maximum(k, 1))
        near = np.nanmean(excess, axis=1) <= multiple * np.nan_to_num(se)
    candidates = np.flatnonzero(near & ~np.isnan(mean) & (k > 1))
    candidates = np.union1d(candidates, [best])

    def model(index):
        return {k: v for k, v in row_params[index].items() if k not in _LINK_PARAMS}

    def complexity(index):
        params = row_params[index]
        return (params.get("kernel", "linear") != "linear", float(params.get("C", 0.0)),
                sign * mean[index])

    chosen = model(min(candidates, key=complexity))
    same = [i for i in range(len(row_params)) if model(i) == chosen and not np.isnan(mean[i])]
    return same[best_index(mean[same], scoring)]
