"""Any two-player games table as labeled pairs, with features from past games only.

:func:`games_features` generalizes :func:`svmcompare.datasets.chess_features`
to the results of any sport or contest: football matches, ice hockey games,
chess games, head-to-head ratings.  Each game becomes a pair (x = the first
player's features, x' = the second's) whose features are computed from the
games of strictly earlier periods (ratings, counts and shares of results;
see ``GAME_FEATURES``), a label y in {-1, 0, 1}, and a pair context for a
positional advantage (home ground, the first move) that belongs to neither
player.
"""

from __future__ import annotations

import numbers
import time
import warnings
from collections.abc import Hashable

import numpy as np
import pandas as pd

from .._validation import (
    check_outcome_map,
    check_unique_columns,
    empty_cells,
    first_missing,
    plain_value,
)
from ..exceptions import outside_stacklevel
from ..pairs import check_id_spacing, id_text, true_false_advice
from .chess import PLAYER_FEATURES, check_prior_games, history_features, period_numbers

# The chess features without "moves_first": a position goes to the context.
_POSITION = PLAYER_FEATURES.index("moves_first")
GAME_FEATURES = tuple(f for f in PLAYER_FEATURES if f != "moves_first")

# With ``points``: exponentially weighted means of a side's earlier points
# margin, points for and points against (goals, runs, frames).
POINTS_FEATURES = ("form_margin", "form_for", "form_against")

_SCORE_OF_LABEL = {-1: 1.0, 0: 0.5, 1: 0.0}  # the pair's label -> the first player's score


def _scores(values, outcome_map, result_map):
    """The first player's score (1, 0.5, 0) from the result column, read by
    ``outcome_map`` (each value to the pair's label -1, 0, 1, as everywhere
    in svmcompare) or by ``result_map`` ("score", or each value to the first
    player's score)."""
    if (outcome_map is None) == (result_map is None):
        raise ValueError(
            "Give one of outcome_map and result_map (how results are read is never "
            "guessed): outcome_map maps each result value to the pair's label, -1 the first "
            "player better, 0 a draw, 1 the second better (as pairs_from_frame and "
            "--outcome-map), e.g. {'H': -1, 'D': 0, 'A': 1}; result_map='score' reads the "
            "first player's score 1 / 0.5 / 0.")
    if outcome_map is not None:
        mapping = {key: _SCORE_OF_LABEL[label]
                   for key, label in check_outcome_map(outcome_map).items()}
    elif isinstance(result_map, str) and result_map == "score":
        mapping = {1: 1.0, 0.5: 0.5, 0: 0.0}
    elif isinstance(result_map, str) and result_map == "sign":
        raise ValueError(
            "result_map='sign' (1 = the first player won) is the opposite of svmcompare's "
            "labels (1 = the second is better), and a column of labels read with it was "
            "silently inverted; use outcome_map: {1: -1, 0: 0, -1: 1} where 1 means the first "
            "player won, {-1: -1, 0: 0, 1: 1} where the column holds labels.")
    elif isinstance(result_map, dict):
        mapping = {key: float(value) for key, value in result_map.items()}
        bad = [v for v in mapping.values() if v not in (0.0, 0.5, 1.0)]
        if bad:
            raise ValueError(f"result_map values must be the first player's score 1, 0.5 "
                             f"or 0; got {bad[0]!r}.")
    else:
        raise ValueError(f"result_map must be 'score' or a dict; got {result_map!r}.")
    values = pd.Series(values)
    scores = values.map(mapping)
    if scores.isna().any():
        bad = int(np.flatnonzero(scores.isna().to_numpy())[0])
        raise ValueError(f"result of game {scores.index[bad]} is "
                         f"{plain_value(values.iloc[bad])!r}, which "
                         f"the map does not map (it maps {sorted(mapping, key=str)})"
                         f"{true_false_advice(values, values.name)}.")
    return scores.to_numpy(dtype=float)


def _yyyymmdd(numbers_):
    """Whether integers look like dates written YYYYMMDD (e.g. 20091008)."""
    values = np.asarray(numbers_)
    if values.dtype.kind not in "iu" and not (
            values.dtype.kind == "f" and np.all(np.abs(values) < 1e9)
            and np.all(values == np.round(values))):
        return False  # (inf, NaN and huge numbers are not eight digits: no cast)
    values = values.astype(np.int64)
    year, month, day = values // 10000, values // 100 % 100, values % 100
    # Eight digits of a year 1000-2999, mostly with a month and day: dates,
    # whose impossible ones (20200100) are then refused by name rather than
    # turning the whole column into plain numbers (31 Jan -> 1 Feb 70 apart).
    plausible = (month >= 1) & (month <= 12) & (day >= 1) & (day <= 31)
    return bool(values.size and np.all((year >= 1000) & (year <= 2999))
                and 2 * np.count_nonzero(plausible) > values.size)


# Integer times from 1980 to a year from now in seconds or milliseconds since
# 1970 are, in practice, Unix clocks, not numbered periods.  (Later bounds read
# stamps such as 2020010112, YYYYMMDDHH, as seconds of 2034; earlier ones
# YYYYMMDDHHMM as milliseconds of 1976.)
_UNIX_CLOCKS = (("seconds", "s", 1.0), ("milliseconds", "ms", 1e3))
_CLOCK_START = 315_532_800.0  # 1980-01-01 in seconds since 1970


def warn_unix_clock(values, name="the time column"):
    """A UserWarning (at the caller's line outside svmcompare) when integer
    times look like a Unix clock.

    As numbers, every second (or millisecond) of such a clock is a period:
    Glicko's deviations, periods since a side's last game and half-lives
    then count seconds, silently (a deviation at its ceiling for everyone).
    """
    values = np.asarray(values, dtype=float)
    if values.size == 0 or not np.all(values == np.round(values)):
        return
    low, high = float(values.min()), float(values.max())
    end = time.time() + 366 * 86_400.0
    for unit, code, per_second in _UNIX_CLOCKS:
        if _CLOCK_START * per_second <= low and high <= end * per_second and high > low:
            first, last = (pd.Timestamp(v, unit=code).strftime("%Y-%m-%d") for v in (low, high))
            warnings.warn(
                f"{name} holds integers from {low:.0f} to {high:.0f}, which look like a Unix "
                f"clock ({unit} since 1970: {first} to {last}); as numbers every one of its "
                f"{unit} is a period (rating periods, periods since the last game and "
                f"half-lives count {unit}). If they are times, pass them as dates: "
                f"pd.to_datetime(column, unit={code!r}).", UserWarning,
                stacklevel=outside_stacklevel())
            return


def _row(k):
    """Where the k-th value of a column is, for callers that do not say."""
    return f"row {k}"


# A month written as a word ("Jan 04, 2020", "4 January 2020"), with a year.
_MONTH_NAME = r"(?i)\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b"
# Day and month as the first two digit groups (25/12/2018, 12.25.18).
_DAY_MONTH = r"^\s*(\d{1,2})[/.](\d{1,2})[/.]\d{2,4}"
_ISO_DAY = r"^\s*\d{4}-\d{1,2}-\d{1,2}"
# Three groups of one or two digits between dashes (20-01-04): year-month-day,
# day-month-year or month-day-year with a two-digit year (_short_dashed_dates).
_SHORT_DASHED = r"^\s*\d{1,2}-\d{1,2}-\d{1,2}(?:\s|$)"
# A season "2008-09", "2008-9", "2008/09" or "2008-2009": two years in a row.
_SEASON = r"^\s*(\d{4})\s*[-/]\s*(\d{1,4})\s*$"
_YEAR_MONTH = r"^\s*(\d{4})-(\d{2})\s*$"  # ISO 8601's month, 2020-01


def read_times(values, name="the time column", at=None):
    """The dates of a time column as a datetime Series, or None when it holds
    no dates.

    Datetimes, YYYYMMDD integers (20091008), date strings with a day
    (2018-12-25, 25/12/2018, "Jan 04, 2020", "4 January 2020") and months
    written as words with a year ("January 2020": its first day) are dates;
    other numbers and labels such as seasons ("2009-10", which pandas would
    read as October 2009) are not.

    Parameters
    ----------
    values : array-like
        The column.
    name : str, default="the time column"
        The column as messages name it.
    at : callable, optional
        ``at(k)``: where the k-th value is, for messages (default "row k").

    Returns
    -------
    pandas.Series of datetime64 or None

    Raises
    ------
    ValueError
        When the column holds dates and a value is not one (an impossible
        date such as 02/30/2021 or 20200231, or text among dates): a column
        of dates is never read as text in its place, whose order is not time's.
    """
    at = _row if at is None else at
    values = pd.Series(values).reset_index(drop=True)
    if isinstance(values.dtype, pd.CategoricalDtype):
        values = pd.Series(np.asarray(values))
    if pd.api.types.is_bool_dtype(values):
        return None
    if pd.api.types.is_numeric_dtype(values):
        if not _yyyymmdd(values):
            return None
        times = pd.to_datetime(values.astype(np.int64).astype(str), format="%Y%m%d",
                               errors="coerce")
        if times.isna().any():
            k = int(np.flatnonzero(times.isna().to_numpy())[0])
            raise ValueError(f"{at(k)} = {int(values.iloc[k])} is not a date: YYYYMMDD numbers "
                             "need a real month and day.")
        return times
    if pd.api.types.is_datetime64_any_dtype(values):
        return values
    text = values.astype(str)
    # A date has a day (three groups of digits: a season "2009-10" has two),
    # or a month written as a word and a year.
    looks = (text.str.count(r"\d+").ge(3)
             | (text.str.contains(_MONTH_NAME) & text.str.contains(r"\d{4}"))).to_numpy()
    if not looks.any():
        return None
    if not looks.all():
        # The value that breaks the kind most values have is the one named.
        odd, usual = (~looks, looks) if 2 * np.count_nonzero(looks) >= looks.size \
            else (looks, ~looks)
        k, e = int(np.flatnonzero(odd)[0]), int(np.flatnonzero(usual)[0])
        if odd is looks:
            raise ValueError(f"{at(k)} = {text.iloc[k]!r} is a date, while most of {name} is "
                             f"not (e.g. {text.iloc[e]!r}): give every row one kind of time.")
        raise ValueError(f"{at(k)} = {text.iloc[k]!r} is not a date, while {name} holds dates "
                         f"(e.g. {text.iloc[e]!r}).")
    times = _parse_dates(text, name, at)
    bad = times.isna().to_numpy()
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        like = "" if bad.all() else \
            f", e.g. {text.iloc[int(np.flatnonzero(~bad)[0])]!r}"
        raise ValueError(f"{at(k)} = {text.iloc[k]!r} is not a date (no such day, or a "
                         f"spelling unlike the other dates of {name}{like}); correct it or "
                         "write the dates as YYYY-MM-DD.")
    return times


def _parse_dates(text, name, at):
    """Datetimes from date strings (NaT where a value does not parse).

    Day-first and month-first dates (25/12/2018, 12/25/2018) are told apart by
    a first or second field above 12; when every date could be either, the
    column is refused rather than guessed (pandas would guess month-first,
    and warn).  pandas reads the column in the spelling of its first date; the
    dates it could not read that way are read one by one where that cannot
    change a day into a month: ISO dates as ISO 8601, months written as words,
    and day/month dates in the column's order.
    """

    short = text.str.contains(_SHORT_DASHED).to_numpy()
    if short.any():
        return _short_dashed_dates(text, short, name, at)
    fields = text.str.extract(_DAY_MONTH)
    numeric = fields.notna().all(axis=1).to_numpy()
    dayfirst = False
    if numeric.any():
        first, second = fields[0][numeric].astype(int), fields[1][numeric].astype(int)
        if (first > 12).any() and (second > 12).any():
            a, b = first.index[first > 12][0], second.index[second > 12][0]
            raise ValueError(f"{name} holds {text.iloc[a]!r} ({at(a)}), a date only as "
                             f"day/month, and {text.iloc[b]!r} ({at(b)}), one only as "
                             "month/day; correct the wrong one (or write the dates as "
                             "YYYY-MM-DD).")
        if not (first > 12).any() and not (second > 12).any():
            raise ValueError(f"the dates of {name} (e.g. {text.iloc[first.index[0]]!r}) could "
                             "be day/month or month/day; write them as YYYY-MM-DD.")
        dayfirst = bool((first > 12).any())
    iso = text.str.contains(_ISO_DAY).to_numpy()
    with warnings.catch_warnings():
        # pandas warns while it infers a format; the day order is decided above.
        warnings.simplefilter("ignore", UserWarning)
        # Several UTC offsets in one column are one timeline: UTC's (pandas 2.1
        # parses them as objects with a FutureWarning, newer ones raise).
        warnings.simplefilter("ignore", FutureWarning)
        try:
            utc = False
            times = pd.to_datetime(text, errors="coerce", dayfirst=dayfirst)
        except ValueError:  # "Mixed timezones detected"
            times = None
        if times is None or times.dtype == object:
            utc = True
            times = pd.to_datetime(text, errors="coerce", dayfirst=dayfirst, utc=True)
        if isinstance(times.dtype, pd.DatetimeTZDtype):
            # Compared as naive times (a bound such as --until 2020-03-01 has
            # no offset): one offset's local times, several offsets' UTC times.
            times = times.dt.tz_localize(None)
        if dayfirst and iso.any():
            # An ISO date is year-month-day whatever the column's day order
            # (dayfirst read 2020-03-01 as the 3rd of January).
            times[iso] = pd.to_datetime(text[iso], errors="coerce", format="ISO8601",
                                        utc=utc).dt.tz_localize(None).to_numpy()
        failed = times.isna().to_numpy()
        if failed.any():
            retries = ((iso, {"format": "ISO8601"}),
                       (text.str.contains(_MONTH_NAME).to_numpy(), {"format": "mixed"}),
                       (numeric, {"format": "mixed", "dayfirst": dayfirst}))
            for kind, how in retries:
                redo = failed & kind
                if redo.any():
                    times[redo] = pd.to_datetime(text[redo], errors="coerce", utc=utc,
                                                 **how).dt.tz_localize(None).to_numpy()
                    failed = times.isna().to_numpy()
    return times


def _short_dashed_dates(text, short, name, at):
    """Dates of three one- or two-digit groups between dashes (20-01-04):
    day-month-year, year-month-day or month-day-year, whichever reads every
    value as a day, and of several, the one that puts the rows in time order
    (a results table is written in time order; pandas guessed day-first and
    scrambled a year-month-day season).  Refused when nothing tells them apart."""
    if not short.all():
        k = int(np.flatnonzero(short)[0])
        raise ValueError(f"{name} holds {text.iloc[k]!r} ({at(k)}) among dates written "
                         "otherwise: with a two-digit year between dashes it could be "
                         "year-month-day or day-month-year; write the dates as YYYY-MM-DD.")
    readings = {}
    for spelling, fmt in (("day-month-year", "%d-%m-%y"), ("year-month-day", "%y-%m-%d"),
                          ("month-day-year", "%m-%d-%y")):
        times = pd.to_datetime(text.str.strip(), format=fmt, errors="coerce")
        if not times.isna().any():
            steps = np.diff(times.to_numpy().astype("datetime64[s]").astype(np.int64))
            readings[spelling] = (times, float(np.mean(steps >= 0)) if steps.size else 1.0)
    in_order = [s for s, (_, ordered) in readings.items() if ordered == 1.0]
    if len(readings) == 1 or len(in_order) == 1:
        return readings[next(iter(readings)) if len(readings) == 1 else in_order[0]][0]
    example = text.iloc[0]
    raise ValueError(f"{name} holds dates such as {example!r} ({at(0)}) with a two-digit year "
                     f"between dashes, which read as "
                     f"{' or '.join(readings) or 'no date'} and nothing tells which"
                     f"{' (the rows are in time order under none of them)' if readings else ''}"
                     "; write the dates as YYYY-MM-DD.")


def time_keys(values, name="the time column", at=None):
    """Keys whose order is the time order of a time column: one rule for
    every reader of times (``games_features``, ``rolling_fit``, the command
    line's ``--period``, ``--time``, ``--until`` and ``--after``).

    Parameters
    ----------
    values : array-like or pandas.Series
        The column; a pandas Categorical is kept (its declared order).
    name : str, default="the time column"
        The column as messages name it.
    at : callable, optional
        ``at(k)``: where the k-th value is, for messages (default "row k").

    Returns
    -------
    keys : pandas.Series
        Datetimes for dates (see :func:`read_times`), the numbers for
        numbers (also numbers written as text), else integers: a season's
        first year ("2008-09": 2008), a month's number (2020-01: 2020 * 12),
        an ordered Categorical's position in its categories.
    kind : {"dates", "numbers", "seasons", "months", "order"}

    Raises
    ------
    ValueError
        For a missing or infinite value, a value that is no date among dates,
        and labels whose order is not known (text is never sorted as text:
        "10" before "9", "Apr" before "Jan").
    """
    at = _row if at is None else at
    values = pd.Series(values).reset_index(drop=True)
    missing = pd.isna(values).to_numpy()
    if missing.any():
        raise ValueError(f"{at(int(np.flatnonzero(missing)[0]))} is missing: every value of "
                         f"{name} needs a time.")
    if isinstance(values.dtype, pd.CategoricalDtype):
        if values.cat.ordered:
            return pd.Series(values.cat.codes.to_numpy(dtype=np.int64)), "order"
        values = pd.Series(np.asarray(values))
    dates = read_times(values, name, at)
    if dates is not None:
        return dates, "dates"
    if pd.api.types.is_numeric_dtype(values):
        finite = np.isfinite(values.to_numpy(dtype=float))
        if not finite.all():
            k = int(np.flatnonzero(~finite)[0])
            raise ValueError(f"{at(k)} = {plain_value(values.iloc[k])!r}: times must be "
                             "finite.")
        return (values.astype(np.int64) if pd.api.types.is_bool_dtype(values) else values), \
            "numbers"
    text = values.astype(str)
    numbers = pd.to_numeric(text, errors="coerce")
    if numbers.notna().all():  # numbers written as text: 10 after 9, not before
        return time_keys(numbers, name, at)
    season = text.str.extract(_SEASON)
    start = pd.to_numeric(season[0], errors="coerce")
    end = pd.to_numeric(season[1], errors="coerce")
    # 2018-19 and 1999-2000: the second year follows the first, in its digits.
    seasons = (end == (start + 1) % 10.0 ** season[1].str.len()).to_numpy()
    if seasons.all():
        return start.astype(np.int64), "seasons"
    month = text.str.extract(_YEAR_MONTH)
    months = pd.to_numeric(month[1], errors="coerce").between(1, 12).to_numpy()
    if months.all():
        return month[0].astype(np.int64) * 12 + month[1].astype(np.int64) - 1, "months"
    # Name the first value that breaks the kind most values have ("4a" among
    # numbers, 2018-20 among seasons), not the first row.
    kinds = {"numbers": numbers.notna().to_numpy(), "seasons": seasons, "months": months}
    kind = max(kinds, key=lambda k: np.count_nonzero(kinds[k]))
    if kinds[kind].any():
        k = int(np.flatnonzero(~kinds[kind])[0])
        example = text.iloc[int(np.flatnonzero(kinds[kind])[0])]
        raise ValueError(f"{at(k)} = {text.iloc[k]!r} is not one of the {kind} that {name} "
                         f"holds (e.g. {example!r}), so the order of its values is not known; "
                         "correct it.")
    raise ValueError(f"{name} holds labels such as {text.iloc[0]!r} whose order is not known "
                     f"({at(0)}); give numbers (1, 2, ...), dates (2024-08-23) or seasons "
                     "(2024-25) (in Python also an ordered pandas Categorical).")


def _periods(values, period, played=None):
    """Integer rating periods (0, 1, ...) from a time column, in the order of
    :func:`time_keys`.

    Datetimes (or strings that parse as dates, or YYYYMMDD integers) are
    grouped by the pandas offset alias ``period``; integers are used as they
    are, gaps kept (weeks 1, 2, 10: periods 0, 1, 9), and so are seasons'
    years, ISO months and the positions of an ordered Categorical's
    categories; other numbers are ordered, each distinct value of a played
    game a period (``played``: False for fixtures, which take the period of
    the first played value at or after theirs and so add none).
    """
    values = pd.Series(values).reset_index(drop=True)
    if values.isna().any():
        raise ValueError(f"time of game {int(np.flatnonzero(values.isna())[0])} is missing.")
    name = "the time column" if values.name is None else f"the time column {values.name!r}"
    keys, kind = time_keys(values, name, at=lambda k: f"time of game {k}")
    if kind == "dates":
        return period_numbers(keys, period)
    keys = keys.to_numpy()
    if kind == "numbers" and not (np.all(keys == np.round(keys))
                                  and np.all(np.abs(keys) < 2.0**53)):
        levels = np.unique(keys if played is None else keys[played])
        return np.searchsorted(levels, keys, side="left").astype(np.int64)
    keys = keys.astype(np.int64)
    if kind == "numbers":
        warn_unix_clock(keys, name)
    # As given: a period without games still passes (Glicko's deviations
    # grow over it, periods_since_last_game counts it), as days do for dates.
    return keys - keys.min()


def _check_points(games, points):
    """The two points columns as floats (NaN: not recorded), or an error naming the problem."""
    if not (isinstance(points, (tuple, list)) and len(points) == 2):
        raise TypeError(f"points must be a pair of column names (first's, second's); got "
                        f"{points!r}.")
    columns = []
    for name in points:
        if name not in games.columns:
            raise ValueError(f"points column {name!r} is not in the games table.")
        values = pd.to_numeric(games[name], errors="coerce")
        bad = values.isna() & games[name].notna()
        if bad.any():
            at = int(np.flatnonzero(bad.to_numpy())[0])
            raise ValueError(f"points of game {at}, column {name!r}: {games[name].iloc[at]!r} "
                             "is not a number.")
        if not np.isfinite(values.dropna()).all():
            raise ValueError(f"points column {name!r} holds an infinite value.")
        columns.append(values.to_numpy(dtype=float))
    return np.column_stack(columns)


def points_history(first, second, points, period, half_life, prior_games=None):
    """Per game and side, from earlier periods only: the exponentially weighted
    means of the side's points margin, points for and points against over its
    earlier games (``POINTS_FEATURES``).  With a number ``prior_games``, each is
    shrunk toward the population's (margin 0, points for and against the mean
    points of a side in every earlier game) by that many pseudo-games, and a
    side without earlier points gets the population's; with None, 0 before a
    side's first game with points.  The own games' weights decay, so their sum
    levels off near 1 / (1 - 2^(-1 / half_life)) (about 15 games at 10) and
    the prior keeps a share of ``prior_games`` / (``prior_games`` + 15) there.

    ``first``, ``second``: integer player codes; ``points``: (n, 2) floats, NaN
    where a game's points were not recorded (it then counts for nothing);
    ``period``: non-decreasing integers; ``half_life``: in the side's games.
    """
    n = len(first)
    decay = 0.5 ** (1.0 / half_life)
    players = int(max(first.max(initial=-1), second.max(initial=-1))) + 1
    sums = np.zeros((players, 3))
    weight = np.zeros(players)
    out = np.zeros((n, 2, 3))
    total, sides = 0.0, 0  # every earlier game's points and sides: the population's mean
    k = 0.0 if prior_games is None else float(prior_games)  # pseudo-games
    start = 0
    while start < n:  # one period at a time: read every game's state, then update
        stop = start + int(np.searchsorted(period[start:], period[start], side="right"))
        mean = total / sides if sides and prior_games is not None else 0.0
        prior = np.array([0.0, mean, mean])
        for side, who in ((0, first), (1, second)):
            ids = who[start:stop]
            pseudo = weight[ids] + k
            seen = pseudo > 0
            out[start:stop, side] = prior
            out[start:stop, side][seen] = (sums[ids[seen]] + k * prior) / pseudo[seen, None]
        for g in range(start, stop):
            own, other = points[g]
            if np.isnan(own) or np.isnan(other):
                continue
            total += own + other
            sides += 2
            for who, f, a in ((first[g], own, other), (second[g], other, own)):
                sums[who] = decay * sums[who] + (f - a, f, a)
                weight[who] = decay * weight[who] + 1.0
        start = stop
    return out


def _advantage(games, advantage):
    """The pair context (n_games, 1) from ``advantage``: a column of the games
    table (a name that is a column, a number too, is that column: the columns
    of a header-less table are numbers), else one finite number for every game."""
    if advantage is None:
        return None
    if not isinstance(advantage, (str, numbers.Real)) and \
            not (isinstance(advantage, Hashable) and advantage in games.columns):
        raise TypeError(f"advantage must name a column of games (or be one number for every "
                        f"game); got a {type(advantage).__name__}: add it to the table as a "
                        "column (games['advantage'] = ...) and pass its name.")
    is_column = isinstance(advantage, Hashable) and advantage in games.columns
    if not is_column and isinstance(advantage, numbers.Real) \
            and not isinstance(advantage, bool):
        if not np.isfinite(float(advantage)):
            raise ValueError(f"advantage must be a finite number (+1: the second player has "
                             f"it, -1: the first, 0: neither) or a column; got {advantage!r}.")
        return np.full((len(games), 1), float(advantage))
    if not is_column:
        raise ValueError(f"advantage column {advantage!r} is not in the games table.")
    column = games[advantage]
    # A nullable boolean's NA must reach the missing-value check, not become NaN.
    numeric = column.astype("Float64") if pd.api.types.is_bool_dtype(column) \
        else pd.to_numeric(column, errors="coerce")
    values = numeric.to_numpy(dtype=float, na_value=np.nan)
    wrong = ~np.isfinite(values)  # missing, text or infinite
    if wrong.any():
        bad = int(np.flatnonzero(wrong)[0])
        value = column.iloc[bad]
        what = "missing" if pd.isna(value) else repr(plain_value(value))
        raise ValueError(f"advantage of game {bad} is {what}; expected numbers or True / "
                         "False.")
    return values[:, None]


def games_features(games, *, first, second, result, outcome_map=None, result_map=None,
                   time=None, period="D", advantage=None, points=None, half_life=10.0,
                   prior_games=None, initial_elo=1200.0, glicko_c=15.0, unplayed="error"):
    """Pairs, labels and context from a table of two-player games.

    Every feature of a game comes from games of strictly earlier periods, so
    nothing from the game itself or the future leaks into it.  With
    ``unplayed="fixtures"`` the table may also hold games not played yet (no
    result): the rest of a season to predict.

    Parameters
    ----------
    games : pandas.DataFrame
        One row per game.
    first, second : str
        Columns of the two players' ids; x is the first player's features,
        x' the second's.
    result : str
        Column of the result.
    outcome_map : dict, optional
        How to read ``result``, as everywhere in svmcompare (``pairs_from_frame``,
        ``--outcome-map``): each value to the pair's label, -1 the first player
        better, 0 a draw, 1 the second better, e.g. ``{"H": -1, "D": 0, "A": 1}``
        when the first player is at home.
    result_map : "score" or dict, optional
        Instead of ``outcome_map``: "score", the column holds the first
        player's score 1 / 0.5 / 0; or a dict from each value to that score.
        One of the two is required (never guessed).
    time : str or None
        Column of the game's time, read in time's order (:func:`time_keys`):
        datetimes, date strings (2018-12-25, 25/12/2018 or 12/25/2018 told
        apart by a field above 12, "Jan 04, 2020", "4 January 2020") and
        YYYYMMDD integers are dates; other integers are periods as given,
        gaps kept (weeks 1, 2, 10: the third game comes 8 periods after the
        second, for ``periods_since_last_game`` and Glicko's deviations, as
        days without games count for dates); seasons ("2008-09") count by
        their first year, ISO months (2020-01) by month, an ordered pandas
        Categorical by its declared order; other numbers are ordered, each
        value a period.  A value that is not a date among dates, or labels
        of an unknown order, are refused (text order is not time's).  None:
        the row order, each game its own period (only right when the rows
        are in time order).
    period : pandas offset alias, default="D"
        Rating period for dates: features use earlier periods only.  A
        multiple ("3D", "2W", "12h") makes bins of that many base periods,
        counted from 1970-01-01 ("3M": calendar quarters).
    advantage : str, number or None
        The pair context: a column (or one number for every game) that is
        positive when the *second* player has the positional advantage (+1:
        second at home, -1: first at home or moving first, 0: neutral).
        True / False columns read as 1 / 0.  A number that names a column (as
        in a table read without a header) is that column.
    points : (str, str) or None
        Columns of each side's points in the game (goals, runs, frames won),
        the first player's then the second's; empty cells are games without a
        score.  Adds ``POINTS_FEATURES`` per side: exponentially weighted means
        of its earlier margins, points for and points against, so the model
        sees by how much sides won, not only whether.
    half_life : float, default=10.0
        With ``points``: a game ``half_life`` games older than a side's last
        weighs half as much in its points features.
    prior_games : float or None, default=None
        A cold-start prior.  A number: every per-game mean of a side (shares
        of wins, draws and losses, of upsets, mean opponent rating and mean
        rating gap, and with ``points`` its forms) is shrunk toward the
        population's mean of all earlier games by this many pseudo-games, so
        that a side new to the table gets the population's values instead of
        zeros (a mean opponent rating of 0 where everyone else's is near
        ``initial_elo``) and one or two games do not make a share of 0 or 1;
        0 keeps a side's own means once it has played.  None: the side's own
        means, zeros without earlier games (the features of svmcompare 0.3).
        Worth trying where many sides are new (a league new to the table,
        promoted sides): BENCHMARKS.md, "Cold starts".
    initial_elo, glicko_c : as :func:`svmcompare.datasets.chess_features`.
    unplayed : {"error", "fixtures"}, default="error"
        A game whose result is missing (NaN, None or an empty cell): an error
        naming it, or "fixtures": a game not played yet, which gets its
        players' features as of its period from the games played before it
        and changes nothing (no rating, count, share or points feature of a
        later game sees it), so the fixtures of several periods ahead are
        featured as the table stands today; its label is NaN.

    Returns
    -------
    X : ndarray of shape (n_games, 2, 15) or (n_games, 2, 18)
        The ``GAME_FEATURES`` of the first and the second player, then their
        ``POINTS_FEATURES`` when ``points`` is given.
    y : ndarray of shape (n_games,)
        -1 the first player won, 0 draw, 1 the second won (integers); with
        fixtures, floats with NaN at the fixtures (fit on ``~np.isnan(y)``).
    context : ndarray of shape (n_games, 1) or None
        From ``advantage``.
    info : pandas.DataFrame
        Per game (in the input's row order): ``period``, each player's
        number of earlier games (``first_games``, ``second_games``) and
        ``played`` (False for a fixture).
    """
    if not isinstance(games, pd.DataFrame):
        raise TypeError(f"games must be a pandas DataFrame; got {type(games).__name__}.")
    check_unique_columns(games, "games")
    if len(games) == 0:
        raise ValueError("games has no rows: there are no games to make features of.")
    missing = [c for c in (first, second, result) + ((time,) if time else ())
               if c not in games.columns]
    if missing:
        raise ValueError(f"The games table has no column(s) {missing}; it has "
                         f"{list(games.columns)}.")
    missing = first_missing(games, (first, second))
    if missing is not None:  # else a phantom player "nan" would play the game
        raise ValueError(f"game {missing[0]}, column {missing[1]}: the player's id is missing.")
    if unplayed not in ("error", "fixtures"):
        raise ValueError(f"unplayed must be 'error' or 'fixtures'; got {unplayed!r}.")
    results = games[result].reset_index(drop=True)
    played = ~empty_cells(results)
    if unplayed == "error" and not played.all():
        at = int(np.flatnonzero(~played)[0])
        raise ValueError(f"game {at} has no result (column {result!r}; {int((~played).sum())} "
                         "game(s) without one). Games not played yet: unplayed='fixtures' "
                         "gives them features from the games played before them (the rest "
                         "of a season to predict); else remove them.")
    score = np.full(len(games), np.nan)
    score[played] = _scores(results[played], outcome_map, result_map)
    if points is not None:
        points = _check_points(games, points)
        points[~played] = np.nan  # a fixture's points (if any) are no result
        if not (isinstance(half_life, numbers.Real) and np.isfinite(half_life)
                and half_life > 0):
            raise ValueError(f"half_life must be a positive number of games; got {half_life!r}.")
    check_prior_games(prior_games)
    if time is None:
        # Each played game its own period; a fixture shares the next one's
        # (it adds no period that later games would count).
        day = np.cumsum(played) - played
    else:
        day = _periods(games[time], period, played)
    # Ids keyed as pairs_from_frame keys them: 1 and 1.0 (an int column and a
    # float one, e.g. after a merge left a gap) are one player, not two.
    table = pd.DataFrame({"white": id_text(games[first].to_numpy()),
                          "black": id_text(games[second].to_numpy()),
                          "score": score, "period": day})
    check_id_spacing(pd.unique(np.concatenate([table["white"].to_numpy(),
                                               table["black"].to_numpy()])),
                     f"games columns {first} and {second}")
    same = (table["white"] == table["black"]).to_numpy()
    if same.any():
        bad = int(np.flatnonzero(same)[0])
        raise ValueError(f"game {bad} (counting from 0) has {table['white'].iloc[bad]!r} on "
                         f"both sides ({int(same.sum())} such game(s)); a player cannot play "
                         "itself: remove those rows (placeholders of fixtures not drawn yet, "
                         "such as 'TBC', are often the cause).")
    # The rating systems walk the periods in order; the output keeps the input's.
    order = np.argsort(day, kind="stable")
    features = np.empty((len(games), 2, len(PLAYER_FEATURES)))
    features[order] = history_features(table.iloc[order].reset_index(drop=True),
                                       initial_elo, glicko_c, prior_games,
                                       None if played.all() else played[order])
    X = np.delete(features, _POSITION, axis=2)
    if points is not None:
        codes = pd.factorize(np.concatenate([table["white"], table["black"]]))[0]
        first_code, second_code = codes[:len(table)], codes[len(table):]
        form = np.empty((len(games), 2, len(POINTS_FEATURES)))
        form[order] = points_history(first_code[order], second_code[order], points[order],
                                     day[order], float(half_life), prior_games)
        X = np.concatenate([X, form], axis=2)
    y = np.rint(1 - 2 * score)  # first's score 1 -> -1, 0.5 -> 0, 0 -> 1
    if played.all():
        y = y.astype(np.int64)
    games_column = GAME_FEATURES.index("games")
    info = pd.DataFrame({"period": day, "first_games": X[:, 0, games_column],
                         "second_games": X[:, 1, games_column], "played": played})
    return X, y, _advantage(games, advantage), info
