"""Confidence intervals on every output by the bootstrap: item scores r(x),
rank positions, and win / tie / loss probabilities.

:class:`BootstrapCompare` fits a comparison model on all pairs (the point
estimate) and again on ``n_resamples`` bootstrap resamples of the pairs, or
of whole groups of pairs (seasons, judges, prompts) when ``groups`` is given:
a resample draws as many rows (groups) as there are, with replacement, and is
fitted as those rows weighted by how often they were drawn (``sample_weight``
times the count; rows never drawn are left out), which is the same problem
as the resample with its repeated rows written out.  An interval is the
percentile interval of the replicates' outputs (Efron & Tibshirani, *An
Introduction to the Bootstrap*, 1993, ch. 13): the (1 - confidence) / 2 and
(1 + confidence) / 2 quantiles.

Scores r(x) have no unit of their own: Lemma 1 scales them by 1 / (-beta),
so the tie band is +-1 in every fit, and beta moves from resample to
resample (it is near 0 when ties weigh little).  So each replicate's scores
are put on the point model's scale before their quantiles are taken: the
positive factor and shift that put the mean and spread of its r(x) over
the training pairs' items on the point model's (see :func:`alignment`: a
least-squares map would shrink every replicate toward the mean), fitted once at ``fit``
(``scales_``, ``offsets_``), as bootstrap replicates of a solution that is
unique only up to such a map are aligned first (Milan & Whittaker, Applied
Statistics 44, 1995).  Positions and probabilities need no alignment.

Every replicate repeats the fit of the model given; its probability link is
fitted on the pairs its resample left out (out of bag, about a third of
them) with the model's :meth:`~SVMCompare.calibrate`, instead of on five
folds of the resample: one fit a replicate instead of six, and closer to
nominal coverage in simulation (``calibration_`` says which was used).  For
a search (``SVMCompareCV``) the search runs once on all pairs and the
replicates refit its chosen model, so the intervals hold the choice fixed;
and as the search fitted its point's link on held-out scores of its folds
(models that never saw the validated season or judge), the chosen model is
refitted once without each fold, and each replicate's link is fitted on
those held-out scores of its resample's pairs (weighted by their counts).
The resamples are drawn up front from ``random_state``, so the intervals do
not depend on ``n_jobs``.
"""

from __future__ import annotations

import warnings

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from sklearn.base import BaseEstimator, clone
from sklearn.utils.validation import check_is_fitted
from tqdm.auto import tqdm

from ._problem import distinct_items
from ._validation import (
    LABEL_WORDS,
    check_context,
    check_groups,
    check_pairs_labels,
    check_positive,
    check_sample_weight,
    take_rows,
)
from .calibration.held_out import calibrate_link, cross_validated_scores
from .compare import SVMCompare
from .exceptions import (
    DegenerateWarning,
    NoRankingError,
    degenerate_warnings_silenced,
    outside_stacklevel,
)
from .ranking_function import check_context_names, copy_names
from .solvers.interrupt import bar_options

_CHUNK = 20_000  # pairs whose replicate probabilities are held at once
PROBA_INTERVALS = ("calibrated", "percentile")
# Nominal levels whose coverage the calibrated bootstrap measures.
PROBA_LEVELS = np.array([0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97, 0.98, 0.99, 0.995])
# Data sets drawn from the model's probabilities, each bootstrapped with the
# data's own number of replicates: a percentile interval's width depends on
# how many replicates it is read from (calibrated on a quarter of them, the
# levels chosen for 90% covered 0.94-0.95 in the draws when read from all).
_COVERAGE_DRAWS = 2
_COVERAGE_PAIRS = 2_000  # training pairs whose coverage is counted
_ALIGN_PAIRS = 10_000  # training pairs whose items align a replicate's scores


def resample_counts(n_rows, n_resamples, groups=None, random_state=None):
    """How often each row is drawn in each resample: an integer array of
    shape (n_resamples, n_rows).

    Without ``groups``, rows are drawn ``n_rows`` times with replacement;
    with ``groups``, the groups are drawn (as many as there are) and every
    row counts as often as its group was drawn.
    """
    rng = np.random.default_rng(random_state)
    if groups is None:
        return rng.multinomial(n_rows, np.full(n_rows, 1.0 / n_rows), size=n_resamples)
    _, member = np.unique(check_groups(groups, n_rows), return_inverse=True)
    n_groups = member.max() + 1
    if n_groups < 2:
        raise ValueError("groups has a single group: a bootstrap over groups needs at least "
                         "2 (better dozens).")
    drawn = rng.multinomial(n_groups, np.full(n_groups, 1.0 / n_groups), size=n_resamples)
    return drawn[:, member]


def percentile_interval(replicates, confidence, axis=0):
    """The percentile interval of ``replicates`` along ``axis``: (lower, upper)."""
    tail = (1.0 - confidence) / 2.0
    lower, upper = np.quantile(replicates, [tail, 1.0 - tail], axis=axis)
    return lower, upper


# Scores this close (relative to their range) are one score: items on the
# hinge's margin share a score up to the solver's rounding (2.36557287506{67,
# 31, 25, ...}: 1e-11 apart), and exact ranks ordered them by that noise.
POSITION_RTOL = 1e-8


def positions(scores, ties="min"):
    """Rank positions of items by score along the last axis: 1 for the
    largest score.  Tied scores share the best position among them
    (``ties="min"``: 1 + the number of items with a larger score) or the
    worst (``"max"``: the number of items with a score as large).  Scores
    within POSITION_RTOL of their range of each other in a run (sorted) are
    tied."""
    scores = np.asarray(scores, dtype=float)
    if scores.shape[-1] == 0:
        return np.zeros(scores.shape, dtype=np.int64)
    order = np.argsort(-scores, axis=-1, kind="stable")
    descending = np.take_along_axis(scores, order, axis=-1)
    finite = np.where(np.isfinite(scores), scores, np.nan)
    with np.errstate(over="ignore", invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a row without finite scores
        spread = np.nan_to_num(np.nanmax(finite, axis=-1, keepdims=True)
                               - np.nanmin(finite, axis=-1, keepdims=True),
                               nan=0.0, posinf=np.finfo(float).max)
        # A new position wherever the next score is not within the tolerance
        # (an infinite or NaN score is never tied with a finite one).
        gap = -np.diff(descending, axis=-1)
        drop = ~(gap <= POSITION_RTOL * spread) | (np.isinf(descending[..., 1:])
                                                    & ~np.isinf(descending[..., :-1]))
    edge = np.ones(scores.shape[:-1] + (1,), bool)
    place = np.arange(1, scores.shape[-1] + 1)
    if ties == "min":  # each run's first place, carried forward
        starts = np.concatenate([edge, drop], axis=-1)
        rank = np.maximum.accumulate(np.where(starts, place, 0), axis=-1)
    elif ties == "max":  # each run's last place, carried backward
        ends = np.concatenate([drop, edge], axis=-1)
        rank = np.flip(np.minimum.accumulate(
            np.flip(np.where(ends, place, scores.shape[-1] + 1), axis=-1), axis=-1), axis=-1)
    else:
        raise ValueError(f"ties must be 'min' or 'max'; got {ties!r}.")
    out = np.empty_like(rank)
    np.put_along_axis(out, order, rank, axis=-1)
    return out.astype(np.int64)


def point_model(model):
    """The model that scores: a :class:`BootstrapCompare`'s fit on all pairs
    (``estimator_``), else ``model`` itself; of a search (``SVMCompareCV``),
    its refitted choice (``best_estimator_``)."""
    model = model.estimator_ if isinstance(model, BootstrapCompare) else model
    return getattr(model, "best_estimator_", model)


def alignment(reference, replicate, *, reversed_to_constant=True):
    """(scale, offset) of the map ``scale * replicate + offset`` that puts one
    fit's scores on the scale of the ``reference`` scores of the same items:
    the same mean and the same spread (standard deviation), scale >= 0.

    A bootstrap replicate that ranks the items the other way round, or whose
    scores spread by less than 1e-9 of the reference's (no ranking: u = 0 up
    to rounding), is mapped to a constant (``reversed_to_constant``).
    Between the fits of successive periods
    (:func:`~svmcompare.temporal.rolling_fit`) a reversal is a real change of
    the ratings (two teams that swap places), so with
    ``reversed_to_constant=False`` the spread is matched whatever the order,
    and a fit or reference without spread is only moved to the reference's
    mean (scale 1): a constant map there made every later period constant.

    Not the least-squares map: its slope, corr * sd(reference) / sd(replicate),
    pulls every replicate toward the mean by their correlation, so intervals
    narrowed around the middle (an item's point score outside its own
    interval) and a chain of weekly maps shrank rating paths to a line.
    Scores have no unit of their own (Lemma 1's 1 / (-beta)); the spread
    over the same items is the unit both fits share.
    """
    reference, replicate = np.asarray(reference, float), np.asarray(replicate, float)
    centred = replicate - replicate.mean()
    target = reference - reference.mean()
    spread, target_spread = float(np.sqrt(centred @ centred)), float(np.sqrt(target @ target))
    # A fit whose scores spread by rounding noise next to the reference's (u = 0
    # up to 1e-16: a resample with no ranking) has no order to put on its scale;
    # blown up to the reference's spread, its noise became a ranking.
    ranks = spread > 1e-9 * target_spread
    if reversed_to_constant:
        agree = float(centred @ target) > 0.0
        scale = target_spread / spread if ranks and agree else 0.0
    else:
        scale = target_spread / spread if ranks and target_spread > 0.0 else 1.0
    return scale, float(reference.mean() - scale * replicate.mean())


def _training_items(X):
    """Items of (up to ``_ALIGN_PAIRS``, evenly spaced) training pairs, x rows
    then x' rows, as their distinct rows and the index among those of each:
    ``rank(distinct)[index]`` is ``rank`` of them all, at the cost of the
    distinct ones (ids: 20,000 items are a few hundred)."""
    rows = np.unique(np.linspace(0, X.shape[0] - 1, min(X.shape[0], _ALIGN_PAIRS)).astype(int))
    part = X[rows]
    items = part.items() if hasattr(part, "items") else \
        np.concatenate([part[:, 0], part[:, 1]])  # SparsePairs, or an array
    return distinct_items(items + 0.0)  # -0.0 is 0.0


def check_confidence(confidence):
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float, np.number)) \
            or not 0.0 < float(confidence) < 1.0:
        raise ValueError(f"confidence must be a number in (0, 1), e.g. 0.9; got {confidence!r}.")
    return float(confidence)


def _fit_replicate(estimator, X, y, context, sample_weight, counts, link):
    """The model fitted on one resample (rows weighted by their counts), its
    probability link fitted as ``link`` says: None, by the estimator's own
    fit; "out-of-bag", on the pairs the resample left out; "none", not at
    all (scores only); an array (a search's held-out gaps of every pair,
    :func:`search_held_out`), on the resample's pairs' entries, weighted by
    their counts, as the search fitted the point's link on all of them."""
    rows, left_out = np.flatnonzero(counts), np.flatnonzero(counts == 0)
    weight = counts[rows].astype(float)
    if sample_weight is not None:
        weight = weight * sample_weight[rows]
    model = clone(estimator)
    if link is not None:
        model.set_params(probability=False)
    with degenerate_warnings_silenced():  # counted once by the caller
        try:
            model.fit(X[rows], y[rows], context=take_rows(context, rows), sample_weight=weight)
        except ValueError as exc:
            _explain_rare_label(exc, y, rows)
            raise
    if isinstance(link, str) and link == "out-of-bag":
        model.calibrate(X[left_out], y[left_out], context=take_rows(context, left_out),
                        sample_weight=take_rows(sample_weight, left_out))
    elif link is not None and not isinstance(link, str):
        seen = ~np.isnan(link[rows])  # a forward-chaining search never validates its first block
        kept = rows[seen]
        model.set_params(probability=True)
        calibrate_link(model, link[kept], y[kept],
                       model.scaler_.transform_pairs(take_rows(X, kept)),
                       take_rows(context, kept), weight[seen])
    return model


def _explain_rare_label(exc, y, rows):
    """Raise, from a replicate's failed fit ``exc``, what the resample did:
    drew a label of ``y`` on a single distinct pair, which the replicate's own
    calibration folds (two pairs of each label at least) cannot split (an
    attack, stop 70: three ties in 300 pairs failed with "the rarest label
    has 1", naming neither the bootstrap nor the data's three); else
    nothing (the caller re-raises ``exc``)."""
    labels, drawn = np.unique(y[rows], return_counts=True)
    if "calibration" not in str(exc) or drawn.min() >= 2:
        return
    label = int(labels[np.argmin(drawn)])
    count = int(np.count_nonzero(y == label))
    raise ValueError(
        f"A bootstrap resample drew {LABEL_WORDS[label]} on a single distinct pair (y has "
        f"{count} such pairs), and the replicate's probability link "
        "is calibrated by folds that need two pairs of each label: with so few of them, "
        "among many resamples some do. What works: more such pairs, a search (SVMCompareCV, "
        "whose replicates fit their links on its folds' held-out scores), or no "
        "probabilities in the replicates (probability=False: score and position "
        "intervals).") from exc


def search_held_out(search, model, X, y, context=None, sample_weight=None, groups=None,
                    n_jobs=None):
    """Held-out rank gaps of every pair (in units of their fold model's
    training spread; NaN for a pair no split validates) of ``model``, a
    search's chosen model, refitted on the training side of each of the
    search's splits for labels ``y`` (:meth:`SVMCompareCV.validation_splits`):
    what the search fitted its point's probability link on."""
    fold_model = clone(model)
    if "n_jobs" in fold_model.get_params():
        fold_model.set_params(n_jobs=n_jobs)  # the folds side by side
    scores, spreads = cross_validated_scores(
        fold_model, X, y, context=context, sample_weight=sample_weight,
        splits=search.validation_splits(y, groups))
    return scores / spreads


def _level_coverage(replicates, truth):
    """Share of ``truth`` inside the percentile interval of ``replicates``
    (along axis 0) at each level of :data:`PROBA_LEVELS`."""
    tails = (1.0 - PROBA_LEVELS) / 2.0
    bounds = np.quantile(replicates, np.r_[tails, 1.0 - tails], axis=0)
    m = PROBA_LEVELS.size
    inside = (bounds[:m] <= truth) & (truth <= bounds[m:])
    return inside.reshape(m, -1).mean(axis=1)


def _drawn_labels(proba, rng):
    """Labels -1, 0, 1 drawn from each row's probabilities (n, 3)."""
    u = rng.uniform(size=proba.shape[0])
    cumulative = np.cumsum(proba, axis=1)
    return (u[:, None] > cumulative[:, :2] / cumulative[:, 2:]).sum(axis=1) - 1


def _out_of_bag_ok(y, counts):
    """Whether every resample leaves out pairs of each label the data has
    (enough for a link fitted on them)."""
    labels = np.unique(y)
    return all(np.isin(labels, y[drawn == 0]).all() for drawn in counts) \
        and (counts == 0).sum(axis=1).min() >= 10 * labels.size


def _check_resample_labels(model, y, counts, member=None):
    """Refuse, before any replicate is fitted, a resample whose labels
    ``model`` cannot learn from although all of ``y`` could (a label held
    by a few pairs, rare ties, is left out of some resample).

    ``member`` is the group of each pair when whole groups were drawn.  A
    redraw would hide it and bias the intervals (only resamples that happen
    to hold the rare label), so this names the cause instead.
    """
    check = getattr(getattr(model, "problem_kind", None), "check_labels", None)
    if check is None:
        return
    name = type(model).__name__
    for k, drawn in enumerate(counts):
        kept = y[drawn > 0]
        try:
            check(kept, name)
        except ValueError as exc:
            missing = [label for label in np.unique(y) if not np.any(kept == label)]
            if not missing:
                raise
            label = int(missing[0])
            what = LABEL_WORDS[label]
            unit = "pair" if member is None else "group"
            total = y.size if member is None else int(member.max()) + 1
            held = int(np.count_nonzero(y == label)) if member is None else \
                int(np.unique(member[y == label]).size)
            chance = (1.0 - held / total) ** total  # one resample draws none of them
            need = int(np.ceil(np.log(counts.shape[0]) + np.log(100.0)))  # all: 99%
            example = " (e.g. leave the few ties out and fit SVMRank, which learns from " \
                "wins and losses only)" if label == 0 else ""
            count, n = int(np.count_nonzero(y == label)), counts.shape[0]
            where = f"among its {total} pairs" if member is None else \
                f"in {held} of its {total} groups"
            other = 'resample="groups" is no help (fewer groups hold them)' if member is None \
                else "resampling pairs instead would ignore the groups"
            raise ValueError(
                f"bootstrap resample {k + 1} of {n} (drawing {unit}s) drew no {what}, although "
                f"y has {count} {where}: {name} cannot be fitted on it. Each resample leaves "
                f"them all out with probability {chance:.2g}, so among {n} resamples some do: "
                f"another random_state does not fix that reliably, and {other}. What works: "
                f"more of them (about {need} {unit}s or more holding some, for {n} "
                "resamples), no rare "
                f"label{example}, or no bootstrap (the estimator alone, without "
                "intervals).") from exc


class BootstrapCompare(BaseEstimator):
    """A comparison model with bootstrap confidence intervals on its outputs.

    Parameters
    ----------
    estimator : estimator, default=None
        The comparison model: ``SVMCompare``, ``SVMCompareLP``, ``SVMRank``,
        ``SVMRank2`` (or ``SVMCompareCV``, whose chosen model the replicates
        refit); others are refused at :meth:`fit` (TypeError).  None:
        ``SVMCompare(probability=True)``.  Probability intervals need a model
        with probabilities.
    n_resamples : int, default=200
        Bootstrap replicates.  Percentile intervals at 90% need about 200;
        the tails of 95% and above need more.
    resample : {"pairs", "groups"}, default="pairs"
        Draw single pairs, or whole groups of pairs (the ``groups`` given
        to :meth:`fit`: the judge, the prompt, the tournament of each pair).
        Pairs of one group are not independent draws, and intervals that
        ignore that are too narrow; but a few groups (seasons) make a poor
        bootstrap sample: resample groups when there are dozens.
    confidence : float, default=0.9
        The coverage of the intervals the ``*_interval`` methods return when
        they are not given one.
    proba_interval : {"calibrated", "percentile"}, default="calibrated"
        How :meth:`predict_proba_interval` reads the replicates.
        "percentile": their quantiles at the confidence asked for.  Those
        cover too rarely: a link calibrated on held-out scores pulls each
        probability toward the middle by about as much as the replicates
        spread (90% intervals covered 79-83%; BENCHMARKS.md, "Intervals").
        "calibrated" (the calibrated bootstrap, Beran's prepivoting by a
        parametric second level): :meth:`fit` also draws two data sets of
        labels from the model's own probabilities on the training pairs,
        bootstraps each with ``n_resamples`` replicates (three times the
        fits in all), and records how often intervals of each nominal
        level cover the probabilities that drew them
        (``proba_coverage_``); an interval for confidence c is then the
        percentile interval of the nominal level that covered c there (the
        widest measured, with a warning, when none did).  With the squared
        hinge (``loss="squared_hinge"``, the ratings model), the same draws
        calibrate :meth:`rank_interval`'s score intervals too (90%
        percentile intervals of scores covered 84-88% in simulation; the
        hinge's keep their percentile intervals).
    n_jobs : int or None, default=None
        Replicates fitted in parallel through joblib.
    random_state : int or None, default=None
        Seed of the resamples; when not None, also the estimator's
        ``random_state`` (its calibration folds, Nystroem landmarks).
    progress : bool or "auto", default="auto"
        A progress bar over the replicates (with time left) on stderr:
        "auto" shows it once they have run 2 seconds.

    Attributes
    ----------
    estimator_ : estimator
        The model fitted on all pairs: the point estimates
        (:meth:`predict`, :meth:`predict_proba`, :meth:`rank`).
    replicates_ : list of estimator
        The model fitted on each resample (what a model file keeps of them).
    calibration_ : str or None
        How the replicates' probabilities were calibrated: "out-of-bag" (the
        link of each fitted on the pairs its resample left out), "in each
        fit" (the estimator's own folds, when some resample leaves out too
        few pairs of a label), "search folds" (a search: the link of each
        fitted on its resample's pairs' held-out scores by the search's
        folds, as the search fitted the point's), or None (no probabilities).
    n_degenerate_ : int
        Replicates fitted with beta >= 0 (``degenerate_``; one warning for all
        when they differ in that from the model on all pairs, which warns,
        if at all, on its own).
    scales_, offsets_ : arrays of shape (n_resamples,)
        The map of each replicate's scores onto the point model's scale.
    n_groups_ : int or None
        Groups resampled (None: pairs were resampled).
    proba_levels_, proba_coverage_ : arrays of shape (n_levels,) or None
        With ``proba_interval="calibrated"`` and probabilities: nominal
        levels of percentile intervals and how often they covered the
        probabilities of the simulated data sets (None otherwise).
    score_levels_, score_coverage_ : arrays of shape (n_levels,) or None
        The same for the scores r(x) of the squared hinge (None otherwise).
    classes_, n_features_in_, feature_names_in_ : as the estimator's.

    Examples
    --------
    >>> from svmcompare import BootstrapCompare, SVMCompare
    >>> from svmcompare.datasets import make_norm_pairs
    >>> X, y = make_norm_pairs(n_pairs=200, random_state=0)
    >>> model = BootstrapCompare(SVMCompare(kernel="linear"), n_resamples=30,
    ...                          random_state=0, progress=False).fit(X, y)
    >>> lower, upper = model.rank_interval(X[:5, 0])
    >>> bool((lower <= upper).all())
    True
    """

    def __init__(self, estimator=None, *, n_resamples=200, resample="pairs", confidence=0.9,
                 proba_interval="calibrated", n_jobs=None, random_state=None, progress="auto"):
        self.estimator = estimator
        self.n_resamples = n_resamples
        self.resample = resample
        self.confidence = confidence
        self.proba_interval = proba_interval
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.progress = progress

    def fit(self, X, y, context=None, groups=None, sample_weight=None):
        """Fit the model on all pairs, then on ``n_resamples`` resamples.

        Parameters
        ----------
        X, y : pairs and labels, as :meth:`SVMCompare.fit`.
        context : array of shape (n_pairs, q), optional
        groups : array of shape (n_pairs,), optional
            The group of each pair (all text or all numbers, none missing):
            what ``resample="groups"`` draws, and the folds of a search
            (``SVMCompareCV`` with a group splitter).
        sample_weight : array of shape (n_pairs,), optional
        """
        from ._base import PairwiseKernelModel
        from .grid_search import check_progress
        from .model_selection import SVMCompareCV

        # Replicates are fitted with context= and sample_weight= (the counts)
        # and scored by rank(): the kernel comparison models and their search.
        if self.estimator is not None \
                and not isinstance(self.estimator, (PairwiseKernelModel, SVMCompareCV)):
            given = f"the class {self.estimator.__name__} (pass an instance)" \
                if isinstance(self.estimator, type) else type(self.estimator).__name__
            hint = " For a hard margin, use SVMCompare with a large C (e.g. C=1e6)." \
                if given.startswith("HardMargin") else ""
            raise TypeError("BootstrapCompare resamples SVMCompare, SVMCompareLP, SVMRank, "
                            f"SVMRank2 or SVMCompareCV; got {given}.{hint}")
        check_positive(self.n_resamples, "n_resamples", integer=True)
        if self.n_resamples < 2:
            raise ValueError(f"n_resamples must be at least 2; got {self.n_resamples}.")
        check_confidence(self.confidence)
        check_progress(self.progress)
        if self.resample not in ("pairs", "groups"):
            raise ValueError(f'resample must be "pairs" or "groups"; got {self.resample!r}.')
        if not isinstance(self.proba_interval, str) \
                or self.proba_interval not in PROBA_INTERVALS:
            raise ValueError(f"proba_interval must be one of {PROBA_INTERVALS}; got "
                             f"{self.proba_interval!r}.")
        search = isinstance(self.estimator, SVMCompareCV)
        if self.resample == "groups" and groups is None:
            raise ValueError('resample="groups" needs the groups of the pairs: '
                             "fit(X, y, groups=...).")
        if groups is not None and self.resample == "pairs" and not search:
            raise ValueError('groups are used by resample="groups" (or by a search\'s group '
                             "folds); with resample=\"pairs\" they would be ignored.")
        named, named_context = X, context  # the point model records their names
        X, y = check_pairs_labels(X, y)
        context = check_context(context, X.shape[0])
        sample_weight = check_sample_weight(sample_weight, X.shape[0])
        checked = member = None
        if groups is not None:  # also a search's folds: refused here by name
            checked = check_groups(groups, y.size)
            _, member = np.unique(checked, return_inverse=True)
        counts = resample_counts(y.size, self.n_resamples,
                                 checked if self.resample == "groups" else None,
                                 self.random_state)
        base = SVMCompare(probability=True) if self.estimator is None else clone(self.estimator)
        if self.random_state is not None and "random_state" in base.get_params():
            base.set_params(random_state=self.random_state)  # calibration folds, landmarks
        if search:
            self.estimator_ = base.fit(named, y, context=named_context, groups=groups,
                                       sample_weight=sample_weight)
            model = clone(self.estimator_.best_estimator_)
        else:
            self.estimator_ = base.fit(named, y, context=named_context,
                                       sample_weight=sample_weight)
            model = clone(base)
        if "n_jobs" in model.get_params() and effective_n_jobs(self.n_jobs) > 1:
            model.set_params(n_jobs=1)  # replicates side by side, one thread each
        if "verbose" in model.get_params():
            model.set_params(verbose=False)
        # A replicate's link is fitted on the pairs its resample left out (a
        # third of them), not on folds of the resample: cheaper (one fit, not
        # six), and its 90% intervals covered the probabilities of the model
        # fitted on 50x the games 79-83% of the time, against 75-78% with the
        # folds (benchmarks/bench_intervals.py, BENCHMARKS.md "Intervals").
        # A search's point link was fitted on its folds' held-out scores
        # (models that never saw the validated group): out-of-bag links,
        # from models that saw the same groups, were another procedure, and
        # put 12% of a search's point probabilities outside their own 90%
        # intervals (Test cricket by decade folds, BENCHMARKS.md).
        probability = bool(model.get_params().get("probability", False))
        self.calibration_ = None if not probability else "search folds" if search else \
            "out-of-bag" if hasattr(model, "calibrate") and _out_of_bag_ok(y, counts) \
            else "in each fit"
        _check_resample_labels(model, y, counts, member if self.resample == "groups" else None)
        link = self._replicate_link(model, X, y, context, sample_weight, checked, counts)
        self.replicates_ = self._replicates(model, X, y, context, sample_weight, counts,
                                            link, "bootstrap")
        self.n_degenerate_ = sum(bool(getattr(m, "degenerate_", False))
                                 for m in self.replicates_)
        # Replicates as degenerate as the point model are no news (a degenerate
        # point has said so itself: "200 of 200 replicates" repeated a search's
        # choice with advice its user had no say in); a mix of both kinds is.
        point_degenerate = bool(getattr(point_model(self), "degenerate_", False))
        unlike = self.n_resamples - self.n_degenerate_ if point_degenerate \
            else self.n_degenerate_
        if unlike:
            kind = "did not have beta >= 0 where the model on all pairs did" \
                if point_degenerate else "had beta >= 0 where the model on all pairs did not"
            warnings.warn(f"{unlike} of {self.n_resamples} bootstrap replicates {kind} "
                          "(degenerate_: the tie band has no scale at this C; see "
                          "SVMCompare's on_degenerate): the intervals mix fits of two kinds.",
                          DegenerateWarning, stacklevel=outside_stacklevel())
        items, index = _training_items(X)
        reference = point_model(self).rank(items)
        self.scales_, self.offsets_ = (np.array(v) for v in zip(
            *(alignment(reference[index], model.rank(items)[index])
              for model in self.replicates_), strict=True))
        if np.unique(reference).size < 3:
            warnings.warn("The training items have fewer than three distinct scores: each "
                          "replicate is put on the point model's scale by their mean and "
                          "spread, which two scores fix, so score intervals (rank_interval) "
                          "have no width; read rank_position_interval and "
                          "predict_proba_interval instead.", UserWarning,
                          stacklevel=outside_stacklevel())
        self.n_groups_ = None if self.resample == "pairs" else int(member.max()) + 1
        self.proba_levels_ = self.proba_coverage_ = None
        self.score_levels_ = self.score_coverage_ = None
        if self.calibration_ is not None and self.proba_interval == "calibrated":
            proba, score = self._coverage_in_draws(model, X, context, sample_weight, checked,
                                                   member, items, index, reference)
            if proba is not None:
                self.proba_levels_, self.proba_coverage_ = PROBA_LEVELS.copy(), proba
            if score is not None:
                self.score_levels_, self.score_coverage_ = PROBA_LEVELS.copy(), score
        self.classes_ = self.estimator_.classes_
        self.n_features_in_ = self.estimator_.n_features_in_
        copy_names(self.estimator_, self)
        return self

    def _replicate_link(self, model, X, y, context, sample_weight, groups, counts):
        """How each replicate's link is fitted for labels ``y`` (the ``link``
        of :func:`_fit_replicate`), as ``calibration_`` says: a search's
        held-out gaps by its folds; "out-of-bag" where every resample of
        ``counts`` leaves out enough of each label (else None, the
        estimator's own folds); None without probabilities."""
        if self.calibration_ == "search folds":
            return search_held_out(self.estimator_, model, X, y, context, sample_weight,
                                   groups, self.n_jobs)
        if self.calibration_ == "out-of-bag" and _out_of_bag_ok(y, counts):
            return "out-of-bag"
        return None

    def _replicates(self, model, X, y, context, sample_weight, counts, link, what):
        jobs = tqdm(counts, desc=what, leave=False, **bar_options(self.progress))
        return Parallel(n_jobs=self.n_jobs)(
            delayed(_fit_replicate)(model, X, y, context, sample_weight, drawn, link)
            for drawn in jobs)

    def _coverage_in_draws(self, model, X, context, sample_weight, groups, member, items,
                           index, reference):
        """The second level of the calibrated bootstrap: labels drawn from the
        point model's probabilities on the training pairs (a world whose
        true probabilities are known), each draw bootstrapped as the data
        were, and the share of the draws' percentile intervals of each level
        in :data:`PROBA_LEVELS` that cover those probabilities (over up to
        :data:`_COVERAGE_PAIRS` of the pairs, and the outcomes the model
        gives a chance: a tie column that is 0 in every fit is covered by
        [0, 0] for free).

        With the squared hinge, the same draws measure the score intervals'
        coverage too: each draw is also fitted on all its pairs, the drawn
        world's true scores are the point's (``reference`` on ``items``, the
        training items' distinct rows, ``index`` giving each training item's)
        put on that fit's scale by :func:`alignment`, and
        its replicates are aligned to that fit as the data's are to the
        point (up to :data:`_COVERAGE_PAIRS` distinct items counted).  The
        hinge keeps percentile score intervals: its solutions move in steps
        between resamples (items sharing a margin), and its drawn worlds'
        score intervals over-covered.

        Returns (probability coverage, score coverage), each None when not
        measured; both None, with a warning, when a draw cannot be
        bootstrapped: an average over the draws that could would favour
        draws richer in the rare label."""
        rng = np.random.default_rng(self.random_state)
        truth_all = self.estimator_.predict_proba(X, context)
        n = truth_all.shape[0]
        scored = np.sort(rng.choice(n, size=min(n, _COVERAGE_PAIRS), replace=False))
        outcomes = np.flatnonzero(truth_all.max(axis=0) > 0.0)
        truth = truth_all[np.ix_(scored, outcomes)]
        covered = np.zeros(PROBA_LEVELS.size)
        scores = model.get_params().get("loss") == "squared_hinge"
        if scores:
            counted = np.sort(rng.choice(reference.size, replace=False,
                                         size=min(reference.size, _COVERAGE_PAIRS)))
            covered_scores = np.zeros(PROBA_LEVELS.size)
        for _ in range(_COVERAGE_DRAWS):
            labels = _drawn_labels(truth_all, rng)
            counts = resample_counts(n, self.n_resamples,
                                     groups if self.resample == "groups" else None,
                                     int(rng.integers(2**31)))
            try:
                _check_resample_labels(model, labels, counts,
                                       member if self.resample == "groups" else None)
                # As the data's replicates: a search's folds refitted on the
                # drawn labels; out-of-bag links where every resample allows one.
                link = self._replicate_link(model, X, labels, context, sample_weight, groups,
                                            counts)
                replicates = self._replicates(model, X, labels, context, sample_weight,
                                              counts, link, "calibrating intervals")
                drawn_fit = _fit_replicate(model, X, labels, context, sample_weight,
                                           np.ones(n, dtype=np.int64), "none") \
                    if scores else None
            except (ValueError, NoRankingError) as error:
                warnings.warn("proba_interval='calibrated': a data set drawn from the model's "
                              f"probabilities could not be bootstrapped ({error}), so the "
                              "intervals are percentile intervals, which cover too rarely; "
                              "more pairs of the rarest outcome, or more resamples, let it "
                              "work.", UserWarning, stacklevel=outside_stacklevel())
                return None, None
            proba = np.stack([m.predict_proba(X[scored], take_rows(context, scored))
                              for m in replicates])[:, :, outcomes]
            covered += _level_coverage(proba, truth)
            if scores:
                # The drawn world's scale is its own fit's (the data's
                # replicates are put on the point's); its truth, the point's
                # scores, mapped onto it.
                drawn_scale = drawn_fit.rank(items)[index]
                scale, offset = alignment(drawn_scale, reference[index])
                aligned = []
                for replicate in replicates:
                    ranks = replicate.rank(items)
                    a, b = alignment(drawn_scale, ranks[index])
                    aligned.append(a * ranks[counted] + b)
                covered_scores += _level_coverage(np.stack(aligned),
                                                  scale * reference[counted] + offset)
        # Coverage grows with the level; sampling noise may not.
        return (np.maximum.accumulate(covered / _COVERAGE_DRAWS),
                np.maximum.accumulate(covered_scores / _COVERAGE_DRAWS) if scores else None)

    def _proba_level(self, confidence):
        """The nominal level whose percentile intervals covered ``confidence``
        of the simulated probabilities (:meth:`_calibrated_level`)."""
        return self._calibrated_level(confidence, getattr(self, "proba_levels_", None),
                                      getattr(self, "proba_coverage_", None), "probabilities")

    def _score_level(self, confidence):
        """The nominal level whose percentile intervals covered ``confidence``
        of the drawn worlds' scores (squared hinge; else ``confidence``)."""
        return self._calibrated_level(confidence, getattr(self, "score_levels_", None),
                                      getattr(self, "score_coverage_", None), "scores")

    def _calibrated_level(self, confidence, levels, coverage, what):
        """The nominal level whose percentile intervals covered ``confidence``
        in the drawn worlds (linear between :data:`PROBA_LEVELS`;
        ``confidence`` itself without a calibration)."""
        if levels is None or coverage is None or self.proba_interval == "percentile":
            return confidence
        if confidence > coverage[-1]:
            warnings.warn(f"No measured level of the replicates' intervals covered "
                          f"{confidence:g} of the drawn {what}: the widest "
                          f"({levels[-1]:g}) covered {coverage[-1]:.3f}, and is what these "
                          "intervals are (more resamples, or more groups with "
                          'resample="groups", widen what they can reach).', UserWarning,
                          stacklevel=outside_stacklevel())
            return float(levels[-1])
        if confidence <= coverage[0]:
            return float(levels[0] * confidence / max(coverage[0], 1e-12))
        # The first level covering at least ``confidence``, and the one below it.
        above = int(np.searchsorted(coverage, confidence, side="left"))
        low, high = coverage[above - 1], coverage[above]
        share = 0.0 if high <= low else (confidence - low) / (high - low)
        return float(levels[above - 1] + share * (levels[above] - levels[above - 1]))

    # -- point estimates: the model fitted on all pairs -----------------------------

    def rank(self, Z):
        """r(z) of the model fitted on all pairs."""
        check_is_fitted(self)
        return self.estimator_.rank(Z)

    def decision_function(self, X, context=None):
        """r(x') - r(x) (+ v^T context) of the model fitted on all pairs."""
        check_is_fitted(self)
        return self.estimator_.decision_function(X, context)

    def predict(self, X, context=None):
        """Labels in {-1, 0, 1} of the model fitted on all pairs."""
        check_is_fitted(self)
        return self.estimator_.predict(X, context)

    def predict_proba(self, X, context=None):
        """P(y = -1), P(y = 0), P(y = 1) of the model fitted on all pairs."""
        check_is_fitted(self)
        self._check_probabilities()
        return self.estimator_.predict_proba(X, context)

    @property
    def link_context_coef_(self):
        """The model on all pairs' probability link's coefficients on the pair
        context (see :attr:`SVMCompare.link_context_coef_`)."""
        check_is_fitted(self)
        return self.estimator_.link_context_coef_

    def context_effect(self, context):
        """The model on all pairs' probabilities at equal scores under each row
        of ``context`` (see :meth:`SVMCompare.context_effect`)."""
        check_is_fitted(self)
        return self.estimator_.context_effect(context)

    def predict_log_proba(self, X, context=None):
        """log P(y = -1), log P(y = 0), log P(y = 1) of the model fitted on all pairs."""
        check_is_fitted(self)
        self._check_probabilities()
        return self.estimator_.predict_log_proba(X, context)

    def score(self, X, y, sample_weight=None, context=None):
        """Fraction of pairs compared correctly by the model fitted on all pairs."""
        check_is_fitted(self)
        return self.estimator_.score(X, y, sample_weight=sample_weight, context=context)

    # -- replicates and intervals ------------------------------------------------------

    def rank_replicates(self, Z):
        """r(z) of every replicate on the point model's scale (``scales_``,
        ``offsets_``): shape (n_resamples, n_items)."""
        check_is_fitted(self)
        return np.stack([scale * model.rank(Z) + offset for model, scale, offset
                         in zip(self.replicates_, self.scales_, self.offsets_, strict=True)])

    def rank_interval(self, Z, confidence=None):
        """Percentile interval of r(z) for each item: (lower, upper); with the
        squared hinge and ``proba_interval="calibrated"``, at the level that
        covered ``confidence`` of the drawn worlds' scores
        (``score_coverage_``).

        Two items' intervals may overlap while one is better in nearly every
        replicate (their scores move together); to compare items, use
        :meth:`rank_position_interval` or the probabilities' intervals.
        """
        return percentile_interval(self.rank_replicates(Z),
                                   self._score_level(self._confidence(confidence)))

    def rank_positions(self, Z):
        """Rank positions of the items of ``Z`` among themselves by the model
        fitted on all pairs: 1 for the best."""
        return positions(self.rank(Z))

    def rank_position_interval(self, Z, confidence=None):
        """Interval of each item's rank position among the items of ``Z``
        (1 = best): the replicates' positions, lower and upper quantiles
        rounded outward to whole positions (an item tied in a replicate holds
        every place of its tie: the best counts toward the lower end, the
        worst toward the upper)."""
        confidence = self._confidence(confidence)
        replicated = self.rank_replicates(Z)
        tail = (1.0 - confidence) / 2.0
        # An item tied with others in a replicate could hold any place of the
        # tie: its best place counts toward the lower end, its worst toward the upper.
        lower = np.quantile(positions(replicated, "min"), tail, axis=0, method="lower")
        upper = np.quantile(positions(replicated, "max"), 1.0 - tail, axis=0, method="higher")
        return lower.astype(int), upper.astype(int)

    def proba_replicates(self, X, context=None):
        """P(y = -1), P(y = 0), P(y = 1) of every replicate: shape
        (n_resamples, n_pairs, 3)."""
        check_is_fitted(self)
        self._check_probabilities()
        check_context_names(self, context)
        return np.stack([model.predict_proba(X, context) for model in self.replicates_])

    def predict_proba_interval(self, X, context=None, confidence=None):
        """Intervals of the three probabilities of each pair: (lower, upper),
        each of shape (n_pairs, 3): the replicates' percentile interval at
        the level that covered ``confidence`` in the calibration
        (``proba_interval``), else at ``confidence``."""
        check_is_fitted(self)
        self._check_probabilities()
        confidence = self._proba_level(self._confidence(confidence))
        if not hasattr(X, "shape"):
            X = np.asarray(X, dtype=float)
        n = X.shape[0]
        # The whole context against the whole X, as predict_proba checks it:
        # each chunk's slice alone would let extra rows pass unnoticed.
        check_context_names(self, context)
        context = check_context(context, n)
        frame = hasattr(X, "iloc")
        lower, upper = np.empty((n, 3)), np.empty((n, 3))
        for start in range(0, n, _CHUNK):  # (replicates x chunk x 3) at a time
            rows = slice(start, min(start + _CHUNK, n))
            part = self.proba_replicates(X.iloc[rows] if frame else X[rows],
                                         None if context is None
                                         else np.asarray(context)[rows])
            lower[rows], upper[rows] = percentile_interval(part, confidence)
        return lower, upper

    def _confidence(self, confidence):
        return check_confidence(self.confidence if confidence is None else confidence)

    def _check_probabilities(self):
        if not hasattr(self.estimator_, "predict_proba"):
            raise AttributeError(f"{type(self.estimator_).__name__} was fitted without "
                                 "probabilities: set probability=True on the estimator.")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.three_d_array = True
        tags.input_tags.two_d_array = False
        return tags
