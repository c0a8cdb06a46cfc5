"""Time: results that age, and ratings that move.

:func:`time_decay` weights each comparison by its age (a half-life), for
``sample_weight``.  :func:`rolling_fit` replays a history period by period
(weeks, rounds, seasons): before each period it fits the model on every
earlier comparison (decayed by age when ``half_life`` is given) and
predicts that period's pairs with it, which is how a model is used on
results that keep coming and how it should be judged; with ``items`` it
also records each item's score before every period (a rating path).

Scores r(x) of two fits are on scales of their own (Lemma 1 scales each by
1 / (-beta)), so a rating path puts every fit's scores on the scale of the
fit before it: the positive factor and shift that put the mean and spread
of its scores of the items on the previous fit's (as
:class:`svmcompare.BootstrapCompare` aligns its replicates; a least-squares
map would shrink the path toward its mean at every step).  The path
shows how items move against each other, not changes of the spread.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time as _clock
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import clone
from tqdm.auto import tqdm

from ._increment import gives_fits_model
from ._validation import (
    check_context,
    check_pairs_labels,
    check_sample_weight,
    listed,
    plain_value,
    take_rows,
)
from .bootstrap import alignment
from .datasets.games import read_times, time_keys, warn_unix_clock
from .exceptions import outside_stacklevel
from .solvers.interrupt import bar_options
from .sparse_pairs import SparsePairs


def _as_number(times, name, at=None):
    """Times as float days (dates, as ``games_features`` reads them: YYYYMMDD
    integers too), as the numbers given, or for labels whose order is known
    (:func:`time_keys`) as seasons (2018-19: 2018) or months (2020-01) counted
    as numbers."""
    if isinstance(getattr(times, "dtype", None), pd.CategoricalDtype):
        # An ordered Categorical ages by its categories' positions (as
        # rolling_fit replays one); an unordered one is refused by time_keys.
        keys, kind = time_keys(times, name, at)
        return keys.to_numpy(dtype=float), kind
    times = np.asarray(times)
    if times.dtype.kind in "biuf" and times.dtype.kind != "b" \
            and not np.all(np.isfinite(times.astype(float))):
        raise ValueError(f"{name} contains NaN or infinity.")
    dates = read_times(times.ravel(), name, at) if times.size else None
    if dates is not None:
        if getattr(dates.dt, "tz", None) is not None:  # zoned: their instants, in UTC
            dates = dates.dt.tz_convert("UTC").dt.tz_localize(None)
        seconds = dates.to_numpy().astype("datetime64[s]").astype(np.int64)
        return seconds / 86_400.0, "days"
    if times.dtype.kind in "biuf" and times.dtype.kind != "b":
        return times.astype(float), None
    if times.dtype.kind in "OUS":
        try:
            keys, kind = time_keys(times.ravel(), name, at)
        except ValueError as error:
            raise TypeError(str(error)) from None
        if kind in ("seasons", "months"):
            return keys.to_numpy(dtype=float), kind
        if kind == "numbers":  # numbers held as objects or text ("9", "10")
            return keys.to_numpy(dtype=float), None
    raise TypeError(f"{name} must be numbers, dates (YYYY-MM-DD) or seasons (2018-19); got "
                    f"values like {times.ravel()[:1].tolist()}.")


def _read_times(moments, name):
    """``_as_number`` of ``moments``, naming the first missing, infinite or
    impossible time (20200230, 02/30/2021) rather than giving a weight of 0
    or pandas' message."""
    def at(k):
        return name if name == "now" else f"{name}[{k}]"

    missing = pd.isna(moments)
    if np.any(missing):
        fix = "give a time (or None for the latest)" if name == "now" \
            else "give every comparison a time"
        raise ValueError(f"{at(np.flatnonzero(missing)[0])} is missing (NaN, NaT or "
                         f"None): {fix}.")
    number = moments.dtype.kind in "iuf"
    if number and not np.all(np.isfinite(moments)):
        k = np.flatnonzero(~np.isfinite(moments))[0]
        raise ValueError(f"{at(k)} is {moments[k].item()!r}: times must be finite.")
    return _as_number(moments, name, at)


_KINDS = {None: ("numbers", "a number"), "days": ("dates", "a date"),
          "seasons": ("seasons", "a season"), "months": ("months", "a month"),
          "order": ("an ordered Categorical's categories", "one of its categories")}


def _zone_of(times):
    """The time zone of zone-aware dates (a column or its Timestamps), else None."""
    zone = getattr(getattr(times, "dtype", None), "tz", None)
    if zone is None and isinstance(times, (list, tuple, np.ndarray, pd.Series)) and len(times):
        first = times.iloc[0] if isinstance(times, pd.Series) else times[0]
        zone = getattr(first, "tzinfo", None) if isinstance(first, pd.Timestamp) else None
    return zone


def _is_naive(moment):
    """Whether a date (text, datetime or Timestamp) carries no time zone."""
    try:
        return pd.Timestamp(moment).tzinfo is None
    except (ValueError, TypeError):
        return True


def time_decay(times, half_life, now=None):
    """Weights 2^(-(now - t) / half_life): 1 for a comparison at ``now``,
    1/2 for one a half-life older.

    Parameters
    ----------
    times : array-like of shape (n_pairs,)
        When each comparison took place: numbers (rounds, seasons), dates
        (numpy datetime64, pandas timestamps or date strings), season labels
        (2018-19, counted by their first year) or ISO months (2020-01,
        counted in months); none missing.
    half_life : float or timedelta-like
        In the units of ``times`` for numbers, seasons and months; for dates
        a number of days or a timedelta (``pd.Timedelta("180D")``,
        ``np.timedelta64(26, "W")``).
    now : number or date, optional
        The time the weights are for (the next prediction), of the kind of
        ``times`` (a number for numbers, a date for dates, a season or a
        month label for those); the latest of
        ``times`` when None.  Comparisons after ``now`` are refused.

    Returns
    -------
    ndarray of shape (n_pairs,)
    """

    zone = _zone_of(times)
    categories = None
    if isinstance(getattr(times, "dtype", None), pd.CategoricalDtype):
        times = pd.Categorical(times)
        categories = list(times.categories)
    else:
        times = np.asarray(times)
    if times.ndim != 1:
        raise ValueError(f"times must be 1-D (one time per comparison); got shape "
                         f"{times.shape}.")
    if times.size == 0:
        raise ValueError("times is empty.")
    values, unit = _read_times(times, "times")
    if unit is None:
        warn_unix_clock(values, "times")
    half_life = _half_life_in(half_life, unit)
    if now is None:
        reference = values.max()
    elif np.ndim(now) != 0:
        raise ValueError(f"now must be one time; got {now!r}.")
    elif unit == "order":
        if now not in categories:
            raise ValueError(f"times are an ordered Categorical; now={now!r} is not one of "
                             f"its categories ({categories[:3]}...).")
        reference = float(categories.index(now))
    elif unit is None and isinstance(now, (int, float, np.number)) \
            and not isinstance(now, bool):
        # A number for numbers, even one that reads as YYYYMMDD (round 20240101).
        if not np.isfinite(now):
            raise ValueError(f"now is {now!r}: give a finite time (or None for the latest).")
        reference = float(now)
    else:
        moment, now_unit = _read_times(np.asarray([now]), "now")
        if now_unit == "days" and zone is not None and _is_naive(now):
            # A clock time without a zone next to zoned times: on their clock
            # (read alone, it was taken as UTC, hours off).
            wall = pd.Timestamp(moment[0] * 86_400.0, unit="s")
            # (a clock time the zone skips or repeats: the later / standard one)
            moment = [(wall.tz_localize(zone, ambiguous=False, nonexistent="shift_forward")
                       .tz_convert("UTC").tz_localize(None)
                       - pd.Timestamp(0)) / pd.Timedelta(days=1)]
        if now_unit != unit:
            # Days since 1970 against round numbers, a season's year against
            # a month's count (or the reverse): weights of 0 or 1.
            raise TypeError(f"times are {_KINDS[unit][0]} but now={now!r} is "
                            f"{_KINDS[now_unit][1]}: both must be of one kind.")
        reference = moment[0]
    age = reference - values
    if np.any(age < -1e-9 * max(1.0, abs(reference))):
        raise ValueError("some comparisons are later than now: weights for a time are made "
                         "from earlier results only.")
    return np.exp2(-np.maximum(age, 0.0) / half_life)


def _half_life_in(half_life, unit):
    """``half_life`` as a number in the times' ``unit`` (a timedelta in days,
    for dates only), checked positive and finite."""
    if isinstance(half_life, (pd.Timedelta, np.timedelta64)) or hasattr(half_life, "days"):
        if unit != "days":
            raise TypeError(f"a timedelta half_life needs dates as times; times are "
                            f"{_KINDS[unit][0]}.")
        half_life = pd.Timedelta(half_life).total_seconds() / 86_400.0
    if isinstance(half_life, bool) or not isinstance(half_life, (int, float, np.number)) \
            or not np.isfinite(half_life) or half_life <= 0:
        raise ValueError(f"half_life must be a positive number (or a timedelta for dates); "
                         f"got {half_life!r}.")
    return float(half_life)


@dataclass
class RollingResult:
    """What :func:`rolling_fit` gives.

    Attributes
    ----------
    proba : ndarray of shape (n_pairs, 3)
        P(y = -1), P(y = 0), P(y = 1) of each pair from the model fitted on
        the periods before its own; NaN for pairs not predicted (the first
        periods).  None for a model without probabilities.
    decision : ndarray of shape (n_pairs,)
        r(x') - r(x) (+ v^T context) of that model; NaN where not predicted.
    predicted : ndarray of bool, shape (n_pairs,)
    ratings : pandas.DataFrame or None
        With ``items``: one row per predicted period (the scores entering
        it, on one scale), one column per item; NaN for an item not rated
        yet (an id that has not played before the period: none of its
        features occurs in the earlier pairs).
    fit_seconds : pandas.Series
        Seconds of each period's fit.
    """

    proba: np.ndarray | None
    decision: np.ndarray
    predicted: np.ndarray
    ratings: pd.DataFrame | None
    fit_seconds: pd.Series


def periods_before_first(periods, first=None):
    """Which pairs :func:`rolling_fit` fits on before the first period it
    predicts: those of every earlier period (a mask of shape (n_pairs,)).

    What a model chosen once for a replay may be chosen on (``svmcompare
    rolling --auto``): nothing from a predicted period.

    Parameters
    ----------
    periods, first : as :func:`rolling_fit`.
    """
    n = np.shape(periods)[0] if np.ndim(periods) else 0
    _, keys, _, order, _, start = _period_order(periods, n, first)
    return keys < order[start]


def _period_order(periods, n, first):
    """(periods as an array, each pair's key, their kind, the sorted distinct
    keys, each period as given, the position of the first to predict)."""
    given, periods = periods, np.asarray(periods)
    if periods.shape != (n,):
        raise ValueError(f"periods has shape {periods.shape}; expected ({n},).")
    missing = pd.isna(periods)
    if np.any(missing):
        raise ValueError(f"periods[{np.flatnonzero(missing)[0]}] is missing (NaN, NaT or None): "
                         "give every pair a period.")
    # np.asarray turns [1, "a", 2] into the text "1", "a", "2" (ordered as text),
    # and an object array of both cannot be sorted at all: refuse a mix either way.
    mixed = pd.api.types.infer_dtype(given, skipna=False) in ("mixed", "mixed-integer")
    if mixed:
        kinds = sorted({type(p).__name__ for p in np.asarray(given, dtype=object)})
        raise TypeError(f"periods must be all numbers, all dates or all sortable labels of one "
                        f"type (seasons such as 2019-20, an ordered Categorical); got "
                        f"{', '.join(kinds)}.")
    # In time's order, as games_features reads a time column: date strings as
    # dates, an ordered Categorical in its declared order, never text order.
    categorical = isinstance(getattr(given, "dtype", None), pd.CategoricalDtype)
    keys, kind = time_keys(given if categorical else periods, "periods",
                           at=lambda k: f"periods[{k}]")
    keys = keys.to_numpy()
    if kind == "numbers":  # each distinct second a refit
        warn_unix_clock(keys, "periods")
    order, where = np.unique(keys, return_index=True)
    labels = periods[where]  # each period as given, for ratings, fit_seconds and messages
    if order.size < 2:
        raise ValueError("periods has a single period: nothing earlier to fit on.")
    start = 1 if first is None else _first_position(first, order, labels, kind, periods)
    if start < 1 or start >= order.size:
        raise ValueError(f"first={first!r} leaves no earlier period to fit on or no period "
                         "to predict.")
    return periods, keys, kind, order, labels, start


def rolling_fit(estimator, X, y, periods, *, context=None, sample_weight=None, half_life=None,
                times=None, first=None, items=None, item_ids=None, progress="auto",
                incremental="auto"):
    """Before each period, fit on all earlier pairs and predict the period's.

    Parameters
    ----------
    estimator : estimator
        A comparison model (cloned for every fit), e.g. ``SVMCompare(
        kernel="linear", probability=True)`` on identities.
    X, y : pairs and labels, as :meth:`SVMCompare.fit`.
    periods : array-like of shape (n_pairs,)
        The period of each pair, in time's order as ``games_features`` reads
        a time column: numbers (rounds, weeks), dates (datetimes, YYYYMMDD
        numbers, date strings such as 2024-08-23, 25/12/2024 or
        "Jan 04, 2024"), seasons ("2019-20") or an ordered pandas
        Categorical (in its declared order); other labels are refused, as
        their text order is not time's.
    context, sample_weight : optional, as :meth:`SVMCompare.fit`.
    half_life : float or timedelta-like, optional
        Weigh earlier pairs by :func:`time_decay` as of the latest of them
        (the newest weighs 1, so a break before the period predicted does not
        shrink them all); None: every earlier pair weighs the same.
    times : array-like of shape (n_pairs,), optional
        When each pair took place, for the decay; ``periods`` when None.
    first : optional
        The first period to predict (the first at or after it); by default
        the second period.
    items : array-like or sparse matrix of shape (n_items, n_features), optional
        Items whose scores are recorded before every predicted period.
    item_ids : sequence of length n_items, optional
        Their names (columns of ``ratings``).
    progress : bool or "auto", default="auto"
        A progress bar over the periods.
    incremental : {"auto", False}, default="auto"
        "auto": where :meth:`SVMCompare.partial_fit` gives the model a fit
        would (a linear squared-hinge model with ``scale_indicators=False``
        on identities: features of 0 and 1), each period's fit adds the
        period before it to one model instead of refitting a clone on every
        earlier pair (the same model to the solver's tolerance; faster on
        large histories, BENCHMARKS.md); False: a clone refitted every period.

    Returns
    -------
    RollingResult
    """
    from .grid_search import check_progress

    check_progress(progress)
    if incremental not in ("auto", False):
        raise ValueError(f"incremental must be 'auto' or False; got {incremental!r}.")
    X, y = check_pairs_labels(X, y)
    n = y.size
    context = check_context(context, n)
    sample_weight = check_sample_weight(sample_weight, n)
    periods, keys, kind, order, labels, start = _period_order(periods, n, first)
    moments = None
    if half_life is not None and times is None and kind == "order":
        moments = keys.astype(float)  # an ordered Categorical's periods: their positions
        half_life = _half_life_in(half_life, "order")
    elif half_life is not None:
        given = periods if times is None else times
        # An ordered Categorical keeps its dtype (its order); anything else an array.
        given = pd.Categorical(given) if isinstance(getattr(given, "dtype", None),
                                                    pd.CategoricalDtype) else np.asarray(given)
        if given.shape != (n,):
            raise ValueError(f"times has shape {given.shape}; expected ({n},).")
        # As time_decay reads them: a missing or impossible time named, never a
        # weight of 0; the half-life in their unit (a timedelta for dates).
        moments, unit = _read_times(given, "times")
        if unit is None and times is not None:  # (periods read as times were named above)
            warn_unix_clock(moments, "times")
        half_life = _half_life_in(half_life, unit)
    # One model that partial_fit continues, with what it has seen so far (the
    # periods before ``added``, and the latest time among them).
    continued = clone(estimator) if incremental == "auto" and gives_fits_model(estimator, X) \
        else None
    added, latest = np.zeros(n, dtype=bool), None
    decision = np.full(n, np.nan)
    proba = None
    predicted = np.zeros(n, dtype=bool)
    path, seconds, previous, said = [], {}, None, {}
    bar = tqdm(range(start, order.size), desc="periods", leave=False, **bar_options(progress))
    for position in bar:
        period = labels[position]
        train, test = keys < order[position], keys == order[position]
        weight = take_rows(sample_weight, train)
        if moments is not None:
            opening = moments[test].min()  # the period's first time
            if np.any(moments[train] - opening > 1e-9 * max(1.0, abs(opening))):
                age = opening - moments[train]
                late = np.flatnonzero(train)[np.argmin(age)]
                raise ValueError(f"times[{late}] (period {periods[late]}) is later than the "
                                 f"first time of period {period}: times must follow the "
                                 "periods' order (each period's results after the earlier "
                                 "periods').")
            # Ages from the latest earlier result, as time_decay's default and fit
            # --half-life: from the period's start, a break before it (a summer,
            # ten idle years) shrank every weight alike, a smaller C, down to a
            # model that knew nothing (scores of 1e-37; a review).
            age = moments[train].max() - moments[train]
            decay = np.exp2(-age / half_life)  # as time_decay weighs
            weight = decay if weight is None else weight * decay
        began = _clock.perf_counter()
        if continued is None:
            def fit(rows=train, weight=weight):
                return clone(estimator).fit(X[rows], y[rows], context=take_rows(context, rows),
                                            sample_weight=weight)
        else:
            new = train & ~added
            now = None if moments is None else moments[train].max()
            # The earlier pairs' decay moves on by the time the new ones add.
            earlier = 1.0 if latest is None or now is None else \
                float(np.exp2(-(now - latest) / half_life))
            weight_new = None if weight is None else weight[new[train]]

            def fit(rows=new, weight=weight_new, earlier=earlier):
                return continued.partial_fit(X[rows], y[rows], take_rows(context, rows),
                                             weight, earlier_weight=earlier)
            added, latest = train.copy(), now
        try:
            model = _fit_naming_period(period, fit, said)
        except ValueError as exc:
            # More results help a fit short of them, not one whose weights are all 0.
            hint = "" if "sample_weight" in str(exc) else \
                " (a later first period gives it more results)"
            raise ValueError(f"the fit on the results before period {period} failed: "
                             f"{str(exc).rstrip('.')}{hint}.") from exc
        seconds[period] = _clock.perf_counter() - began
        rows = np.flatnonzero(test)
        decision[rows] = model.decision_function(X[rows], take_rows(context, rows))
        if hasattr(model, "predict_proba"):
            if proba is None:
                proba = np.full((n, 3), np.nan)
            proba[rows] = model.predict_proba(X[rows], take_rows(context, rows))
        predicted[rows] = True
        if items is not None:
            scores = np.asarray(model.rank(items), dtype=float)
            if continued is not None:
                # partial_fit's ids are not centered as fit's are: its scores
                # sit a constant off a refit's (an attack, stop 70: -0.513 on
                # every rating of every period), which fit's centering removes.
                scores -= _mean_training_score(model, X[train], weight)
            scores[~_rated(items, X[train])] = np.nan
            # Items rated before and now anchor the map: an id's first score
            # (its rating so far, 0 on identities) must not move the others'.
            both = ~np.isnan(scores) if previous is None else \
                ~np.isnan(scores) & ~np.isnan(previous)
            if previous is not None and np.count_nonzero(both) >= 2:
                scale, offset = alignment(previous[both], scores[both],
                                          reversed_to_constant=False)
                scores = scale * scores + offset
            path.append(scores)
            previous = scores
    _say_repeats(said, len(seconds))  # after a replay that ran to its end
    ratings = None
    if items is not None:
        columns = None if item_ids is None else list(item_ids)
        ratings = pd.DataFrame(np.array(path), index=pd.Index(labels[start:], name="period"),
                               columns=columns)
    return RollingResult(proba=proba, decision=decision, predicted=predicted, ratings=ratings,
                         fit_seconds=pd.Series(seconds, name="fit_seconds"))


_CATCHING = threading.Lock()


def _fit_naming_period(period, fit, said):
    """``fit()``, the model fitted on the results before ``period``.  Each
    kind of its warnings (alike up to their numbers: each fit's beta, C) is
    said the first time, with its period, as it comes (an error filter stops
    the replay there); later ones of a kind are collected in ``said`` (kind ->
    (category, periods)) for :func:`_say_repeats`."""
    # catch_warnings changes the process's warning state: replays in threads
    # take turns, or they restore each other's filters and drop later warnings.
    try:
        with _CATCHING, warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            return fit()
    finally:
        for warning in caught:
            message = str(warning.message)
            kind = (warning.category, re.sub(r"[-+]?\d+(\.\d+)?(e[-+]?\d+)?", "#", message))
            if kind in said:
                said[kind][1].append(plain_value(period))
                continue
            said[kind] = (warning.category, [plain_value(period)], message)
            warnings.warn(f"{message.rstrip('.')} (the fit before period "
                          f"{plain_value(period)}).", warning.category,
                          stacklevel=outside_stacklevel())


def _say_repeats(said, n_fits):
    """One short line for each kind of warning that came again in later
    periods: a degenerate fit of every season was 900 characters six times."""
    for category, periods, message in said.values():
        if len(periods) < 2:
            continue
        shown = listed(periods[1:], limit=5)
        head = message if len(message) <= 60 else message[:57].rstrip() + "..."
        which = "period" if len(periods) == 2 else "periods"
        warnings.warn(f"The warning \"{head}\" of the fit before period {periods[0]} came "
                      f"again, alike but for its numbers, for the fits before {which} {shown} "
                      f"({len(periods)} of {n_fits} fits).", category,
                      stacklevel=outside_stacklevel())


def _mean_training_score(model, X, weight):
    """The mean score r of the items of pairs ``X``, each pair's two items
    weighing its ``weight`` (None: 1): 0 for a model fitted by ``fit`` on them
    (its standardization centers the items so, and r is linear in them)."""
    sides = (X.first, X.second) if isinstance(X, SparsePairs) else (X[:, 0], X[:, 1])
    total = sum(np.asarray(model.rank(side), dtype=float) for side in sides)
    w = np.ones(total.size) if weight is None else weight
    return float(w @ total) / (2.0 * float(w.sum()))


def _rated(items, earlier):
    """Which items have a rating from the ``earlier`` pairs: a feature that
    some earlier item has (an id that has played; every item when the
    features are dense, such as history features)."""
    used = earlier.items().getnnz(axis=0) > 0 if hasattr(earlier, "items") \
        else np.any(earlier != 0, axis=(0, 1))
    if hasattr(items, "tocsr"):
        items = items.tocsr()
        return np.asarray((abs(items) @ used.astype(float)) > 0).ravel()
    return np.any((np.asarray(items) != 0) & used, axis=1)


def _first_position(first, order, labels, kind, periods):
    """Where the first period to predict is among the sorted period keys
    ``order`` (``labels``: each as given): the first period at or after
    ``first``, read as the periods are."""
    if kind == "numbers":
        number = None
        if isinstance(first, (int, float, np.number)) and not isinstance(first, bool):
            number = float(first)
        elif isinstance(first, str):  # written as the periods may be ("9", "10")
            with contextlib.suppress(ValueError):
                number = float(first)
        if number is None or not np.isfinite(number):
            raise ValueError(f"first={first!r} is not a number; the periods are numbers "
                             f"(e.g. {plain_value(periods[0])!r}).")
        return int(np.searchsorted(order, number))
    if isinstance(first, str) or kind == "order":  # a period as given: a label, a season
        for position, label in enumerate(labels):
            if plain_value(label) == first:
                return position
    if kind == "order":
        raise ValueError(f"first={first!r} is not one of the periods' categories.")
    if kind == "dates":
        return int(np.searchsorted(order, _date_key(first, periods, order)))
    # Read with the periods (seasons, months), as time_keys reads them.
    try:
        keys, first_kind = time_keys(np.append(np.asarray(periods, dtype=object), [first]))
    except (TypeError, ValueError):
        first_kind = None
    if first_kind != kind:
        raise ValueError(f"first={first!r} does not read as the periods do ({kind}, e.g. "
                         f"{plain_value(periods[0])!r}).")
    return int(np.searchsorted(order, keys.to_numpy()[-1]))


def _date_key(first, periods, order):
    """``first`` as a key comparable with the date periods' keys ``order``:
    read with the periods (01/03/2020 in their day order, 20200103 as their
    YYYYMMDD numbers), in their time zone when they have one."""
    stamp = None
    if isinstance(first, (np.datetime64, pd.Timestamp)) \
            or hasattr(first, "year") and hasattr(first, "day"):
        stamp = pd.Timestamp(first)
    elif not isinstance(first, bool):
        try:
            keys, first_kind = time_keys(np.append(np.asarray(periods, dtype=object), [first]))
            if first_kind == "dates":
                stamp = pd.Timestamp(keys.to_numpy()[-1])
        except (TypeError, ValueError):  # e.g. text beside time-zone-aware periods
            if isinstance(first, str):
                with contextlib.suppress(TypeError, ValueError):
                    stamp = pd.Timestamp(first)
    if stamp is None or pd.isna(stamp):
        raise ValueError(f"first={first!r} is not a date; the periods are dates (e.g. "
                         f"{plain_value(periods[0])!r}).")
    zone = getattr(order[0], "tz", None)
    if zone is not None:  # aware periods: a naive first is a time of their zone
        return stamp.tz_localize(zone) if stamp.tz is None else stamp.tz_convert(zone)
    if stamp.tz is not None:  # naive periods: an aware first in UTC, as pandas reads them
        stamp = stamp.tz_convert("UTC").tz_localize(None)
    return np.datetime64(stamp, "us").astype(order.dtype)


def plot_rating_paths(ratings, path=None, top=10, title="Rating paths"):
    """Lines of the ``top`` items' scores over the periods (``rolling_fit``'s
    ``ratings``), best by their last score first; saved to ``path`` (PNG or
    SVG) when given.  Returns the matplotlib figure."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ValueError('a rating path figure needs matplotlib: pip install '
                         '"svmcompare[experiments]" (or write ratings.to_csv)') from exc
    if not isinstance(ratings, pd.DataFrame) or ratings.empty:
        raise ValueError("ratings must be rolling_fit's non-empty DataFrame (fit with items=).")
    # Best by their latest rating (an item not rated in the last period by its last one).
    latest = ratings.ffill().iloc[-1]
    shown = ratings[latest.sort_values(ascending=False, na_position="last").index[:top]]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for name in shown.columns:
        ax.plot(shown.index, shown[name], label=str(name))
    ax.set(xlabel=str(ratings.index.name or "period"), ylabel="score r(x), one scale",
           title=title)
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize=8)
    ax.grid(color="0.9")
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=120)
        plt.close(fig)
    return fig
