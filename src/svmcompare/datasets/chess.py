"""Chess games as labeled pairs of players, with features from past games only.

:func:`load_chess_games` reads a CSV of games (the Lichess games of
``shared/data/chess/lichess_kaggle_games`` or any table of time, white,
black, result); :func:`chess_features` turns the games into pairs
(x = white's features, x' = black's) the way section 5.1 of the paper does,
with every feature of a game computed from the games of earlier rating
periods (days by default) only.
"""

from __future__ import annotations

import numbers
from pathlib import Path

import numpy as np
import pandas as pd

from ..ratings import Elo, Glicko

# Lichess (Kaggle datasnaek/chess) column names -> ours.
_LICHESS = {"created_at": "time", "white_id": "white", "black_id": "black"}
_RESULTS = {"white": 1.0, "draw": 0.5, "black": 0.0, "1-0": 1.0, "1/2-1/2": 0.5, "0-1": 0.0,
            "1": 1.0, "0.5": 0.5, "0": 0.0, "1.0": 1.0, "0.0": 0.0, ".5": 0.5}

PLAYER_FEATURES = (
    "elo", "glicko", "glicko_rd", "moves_first", "games", "wins", "draws", "losses",
    "win_share", "draw_share", "loss_share", "upset_win_share", "upset_loss_share",
    "mean_opponent_elo", "mean_opponent_elo_gap", "periods_since_last_game",
)
RATING_FEATURES = ("elo", "glicko", "glicko_rd")


def _parse_time(values):
    """Milliseconds since the epoch (Lichess, possibly in 1.50421E+12 form) or dates."""
    numeric = pd.to_numeric(values, errors="coerce")
    if numeric.notna().all():
        return pd.to_datetime(numeric.astype(float), unit="ms")
    parsed = pd.to_datetime(values, errors="coerce")
    if parsed.isna().any():
        bad = int(np.flatnonzero(parsed.isna())[0])
        raise ValueError(f"time of game {bad} ({values.iloc[bad]!r}) is neither a date nor "
                         "milliseconds since 1970.")
    return parsed


def load_chess_games(path):
    """Read, clean and time-sort a CSV of two-player games.

    The CSV has columns ``time``, ``white``, ``black`` and ``result``
    (white's score: 1, 0.5, 0, or "1-0", "1/2-1/2", "0-1"), or the Lichess
    layout (``created_at`` in ms, ``white_id``, ``black_id``, ``winner`` in
    white / draw / black, plus ``id``, ``white_rating``, ``black_rating``).

    Cleaning: rows repeating a game ``id`` (or, without ids, a whole row) are
    dropped, as are games of a player against themself; games are sorted by
    time (stable: equal times keep the file order).

    Returns
    -------
    pandas.DataFrame
        ``time`` (datetime64), ``white``, ``black``, ``score`` (white's
        score) and, when present, ``id``, ``white_rating``, ``black_rating``
        (ratings of the site at game time).  ``attrs["dropped"]`` counts the
        dropped rows by reason.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"No games file at {path}.")
    games = pd.read_csv(path, dtype={"white_id": str, "black_id": str, "white": str,
                                     "black": str, "id": str})
    if "winner" in games.columns:
        games = games.rename(columns={**_LICHESS, "winner": "result"})
    missing = [c for c in ("time", "white", "black", "result") if c not in games.columns]
    if missing:
        raise ValueError(f"{path.name} has no column(s) {missing}; expected time, white, "
                         "black, result (or the Lichess layout created_at, white_id, "
                         "black_id, winner).")
    result = games["result"].astype(str).str.strip().str.lower()
    score = result.map(_RESULTS)
    if score.isna().any():
        bad = int(np.flatnonzero(score.isna())[0])
        raise ValueError(f"result of game {bad} is {games['result'].iloc[bad]!r}; expected "
                         "white / draw / black, 1-0 / 1/2-1/2 / 0-1 or 1 / 0.5 / 0.")
    games = games.assign(score=score.astype(float), time=_parse_time(games["time"]))
    n = len(games)
    games = games.drop_duplicates(subset="id" if "id" in games.columns else None)
    duplicates = n - len(games)
    self_games = games["white"] == games["black"]
    games = games[~self_games]
    keep = ["time", "white", "black", "score"] + [
        c for c in ("id", "white_rating", "black_rating") if c in games.columns]
    games = games.sort_values("time", kind="stable")[keep].reset_index(drop=True)
    games.attrs["dropped"] = {"duplicate": duplicates, "self_game": int(self_games.sum())}
    return games


def period_numbers(times, period):
    """Rating periods 0, 1, ... of datetimes grouped by a pandas offset alias.

    Parameters
    ----------
    times : pandas.Series of datetime64
    period : str
        A pandas offset alias, a multiple too ("D", "3D", "2W", "12h", "3M").

    Returns
    -------
    ndarray of int
        The period of each time, counted from the first time's period.

    Notes
    -----
    pandas numbers periods in the alias's base unit whatever its multiple
    (days for "3D"), so the numbers are divided by the multiple; the bins of
    a multiple are counted from 1970-01-01, so that a date falls in the same
    bin whatever the table's first game ("3M" gives calendar quarters).
    """
    periods = pd.Series(times).dt.to_period(period)
    ordinals = pd.PeriodIndex(periods).asi8 // periods.dt.freq.n
    return ordinals - ordinals.min()


def _long_format(games, elo_before, played=None):
    """One row per (game, player) with the outcome seen from that player; a
    fixture (``played`` False, score NaN) counts for nothing."""
    n = len(games)
    white_score = games["score"].to_numpy()
    counted = np.ones(2 * n) if played is None else np.tile(played, 2).astype(float)
    own = np.concatenate([elo_before["rating1"], elo_before["rating2"]])
    opponent = np.concatenate([elo_before["rating2"], elo_before["rating1"]]) * counted
    score = np.concatenate([white_score, 1 - white_score])
    return pd.DataFrame({
        "game": np.tile(np.arange(n), 2),
        "player": np.concatenate([games["white"].to_numpy(), games["black"].to_numpy()]),
        "period": np.tile(games["period"].to_numpy(), 2),
        "games": counted,
        "wins": (score == 1).astype(float),
        "draws": (score == 0.5).astype(float),
        "losses": (score == 0).astype(float),
        "upset_wins": ((score == 1) & (opponent > own)).astype(float),
        "upset_losses": ((score == 0) & (opponent < own)).astype(float),
        "opponent_elo": opponent,
        "opponent_gap": opponent - own * counted,
    })


_COUNTS = ("games", "wins", "draws", "losses", "upset_wins", "upset_losses", "opponent_elo",
           "opponent_gap")


def _history_before(long):
    """Per (game, player): sums of the player's rows in strictly earlier periods."""
    per_period = long.groupby(["player", "period"], sort=True)[list(_COUNTS)].sum()
    # Cumulative sums over a player's periods, shifted by one period: earlier periods only.
    before = per_period.groupby(level="player").cumsum() - per_period
    # The player's last earlier period with a game played (fixtures are no games).
    rows = per_period.reset_index()
    rows["played_period"] = rows["period"].where(rows["games"] > 0)
    last = rows.groupby("player")["played_period"].shift(1)
    before["last_period"] = last.groupby(rows["player"]).ffill().to_numpy()
    return long[["game", "player", "period"]].join(before, on=["player", "period"])


def check_prior_games(prior_games):
    """A ``prior_games`` argument: None or a non-negative number (a clear error otherwise)."""
    if prior_games is None:
        return
    if isinstance(prior_games, bool) or not isinstance(prior_games, numbers.Real) \
            or not np.isfinite(prior_games) or prior_games < 0:
        raise ValueError(f"prior_games must be a non-negative number of games; got "
                         f"{prior_games!r}.")


# Per-game means of a side's history and what they are before any game at all.
_MEANS = ("wins", "draws", "losses", "upset_wins", "upset_losses", "opponent_elo",
          "opponent_gap")


def _population_before(long, initial_elo):
    """Per (game, player) row: the per-game means of *every* row of strictly
    earlier periods, the prior of a side with little history of its own (its
    expected share of wins, draws and losses, mean opponent rating, ...);
    neutral values before the first period (a third each, no upsets, the
    initial rating)."""
    per_period = long.groupby("period", sort=True)[list(_COUNTS)].sum()
    before = per_period.cumsum() - per_period
    count = before["games"].to_numpy()
    start = {"wins": 1 / 3, "draws": 1 / 3, "losses": 1 / 3, "upset_wins": 0.0,
             "upset_losses": 0.0, "opponent_elo": initial_elo, "opponent_gap": 0.0}
    means = pd.DataFrame({c: np.where(count > 0, before[c].to_numpy() / np.maximum(count, 1),
                                      start[c]) for c in _MEANS}, index=per_period.index)
    return means.loc[long["period"].to_numpy()].reset_index(drop=True)


def _side_mean(own, count, base, prior_games):
    """A side's per-game mean of a history sum ``own`` over its ``count`` games:
    with ``prior_games`` None its own mean, 0 without games (the features as
    they were); else a Bayesian mean, its games plus ``prior_games`` at the
    population's mean ``base``, which alone is the mean of a side without games."""
    if prior_games is None:
        return own / np.maximum(count, 1.0)
    pseudo = count + prior_games
    return np.divide(own + prior_games * base, pseudo, out=base.astype(np.float64, copy=True),
                     where=pseudo > 0)


def history_features(games, initial_elo=1200.0, glicko_c=15.0, prior_games=None, played=None):
    """The ``PLAYER_FEATURES`` of both players of each game, from earlier periods only.

    ``games`` has columns ``white``, ``black`` (player ids), ``score``
    (white's: 1, 0.5, 0) and ``period`` (integers, non-decreasing); returns
    an array of shape (n_games, 2, 16), x = white's features.  With a number
    ``prior_games``, shares and means are shrunk toward the population's by
    that many pseudo-games (see :func:`chess_features`).  ``played`` (bools)
    False marks fixtures: they get their players' features as of their
    period and change no rating, count or share (score NaN).
    """
    white, black = games["white"].to_numpy(), games["black"].to_numpy()
    score, day = games["score"].to_numpy(), games["period"].to_numpy()
    if played is not None:  # a fixture's score, if any, is no result
        games = games.assign(score=np.where(played, score, np.nan))
        score = games["score"].to_numpy()
    elo_before = Elo(initial_rating=initial_elo).update(white, black, score, day, played)
    glicko_before = Glicko(c=glicko_c).update(white, black, score, day, played)
    long = _long_format(games, elo_before, played)
    history = _history_before(long)
    # The population's means only when asked for (the default features never read them).
    prior = None if prior_games is None else _population_before(long, initial_elo)
    n = len(games)
    sides = []
    for side, index in ((1, slice(0, n)), (2, slice(n, 2 * n))):
        h = history.iloc[index]
        p = None if prior is None else prior.iloc[index]
        count = h["games"].to_numpy()

        def mean(column, h=h, p=p, count=count):
            return _side_mean(h[column].to_numpy(), count,
                              None if p is None else p[column].to_numpy(), prior_games)

        last = h["last_period"].to_numpy(dtype=float)
        sides.append(np.column_stack([
            elo_before[f"rating{side}"], glicko_before[f"rating{side}"],
            glicko_before[f"rd{side}"], np.full(n, 1.0 if side == 1 else 0.0),
            count, h["wins"], h["draws"], h["losses"],
            mean("wins"), mean("draws"), mean("losses"),
            mean("upset_wins"), mean("upset_losses"),
            mean("opponent_elo"), mean("opponent_gap"),
            np.where(np.isnan(last), 0.0, day - np.nan_to_num(last)),
        ]))
    return np.stack(sides, axis=1)


def chess_features(games, period="D", initial_elo=1200.0, glicko_c=15.0, prior_games=None):
    """Features of white and black for each game, from earlier periods only.

    Per player (see ``PLAYER_FEATURES``): Elo (FIDE rules, start 1200) and
    Glicko rating and deviation at the start of the game's period; who moves
    first (1 for white); games, wins, draws, losses and their shares; the
    share of games won against a higher-rated and lost to a lower-rated
    opponent (Elo at game time); mean opponent Elo and mean opponent Elo
    minus own Elo; rating periods since the last game (0 for a first game).  Shares
    and means are 0 without earlier games, or with ``prior_games`` Bayesian: the
    player's own games plus that many pseudo-games at the population's mean
    (every game of earlier periods).

    Parameters
    ----------
    games : DataFrame
        From :func:`load_chess_games` (time-sorted, with ``time``,
        ``white``, ``black``, ``score``).
    period : pandas offset alias, default="D"
        Rating period: ratings are updated once per period, and a game's
        features use the games of earlier periods only (never a game of its
        own period, so simultaneous games cannot leak into each other).  A
        multiple ("3D", "2W") makes bins of that many base periods, counted
        from 1970-01-01.
    initial_elo : float, default=1200.0
        Everyone's Elo before a first game.
    glicko_c : float, default=15.0
        Glicko's growth of a rating deviation per idle period.
    prior_games : float or None, default=None
        Pseudo-games at the population's mean in every share and mean (0: the
        player's own means, the population's only without earlier games;
        None: zeros without earlier games).  See
        :func:`svmcompare.datasets.games_features`.

    Returns
    -------
    X : ndarray of shape (n_games, 2, 16)
        x = white's features, x' = black's.
    y : ndarray of shape (n_games,)
        -1 white won (x better), 0 draw, 1 black won.
    history : DataFrame
        Per game: ``period`` (int), and each player's number of earlier games
        (``white_games``, ``black_games``), for eligibility filters.
    """
    games = games.copy()
    games["period"] = period_numbers(games["time"], period)
    score, day = games["score"].to_numpy(), games["period"].to_numpy()
    check_prior_games(prior_games)
    X = history_features(games, initial_elo, glicko_c, prior_games)
    y = np.rint(1 - 2 * score).astype(np.int64)  # white's score 1 -> -1, 0.5 -> 0, 0 -> 1
    info = pd.DataFrame({"period": day, "white_games": X[:, 0, 4], "black_games": X[:, 1, 4]})
    return X, y, info
