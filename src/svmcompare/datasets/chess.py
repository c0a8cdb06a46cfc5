"""Chess games as labeled pairs of players, with features from past games only.

:func:`load_chess_games` reads a CSV of games (the Lichess games of
``shared/data/chess/lichess_kaggle_games`` or any table of time, white,
black, result); :func:`chess_features` turns the games into pairs
(x = white's features, x' = black's) the way section 5.1 of the paper does,
with every feature of a game computed from the games of earlier rating
periods (days by default) only.
"""

from __future__ import annotations

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


def _long_format(games, elo_before):
    """One row per (game, player) with the outcome seen from that player."""
    n = len(games)
    white_score = games["score"].to_numpy()
    own = np.concatenate([elo_before["rating1"], elo_before["rating2"]])
    opponent = np.concatenate([elo_before["rating2"], elo_before["rating1"]])
    score = np.concatenate([white_score, 1 - white_score])
    return pd.DataFrame({
        "game": np.tile(np.arange(n), 2),
        "player": np.concatenate([games["white"].to_numpy(), games["black"].to_numpy()]),
        "period": np.tile(games["period"].to_numpy(), 2),
        "games": 1.0,
        "wins": (score == 1).astype(float),
        "draws": (score == 0.5).astype(float),
        "losses": (score == 0).astype(float),
        "upset_wins": ((score == 1) & (opponent > own)).astype(float),
        "upset_losses": ((score == 0) & (opponent < own)).astype(float),
        "opponent_elo": opponent,
        "opponent_gap": opponent - own,
    })


_COUNTS = ("games", "wins", "draws", "losses", "upset_wins", "upset_losses", "opponent_elo",
           "opponent_gap")


def _history_before(long):
    """Per (game, player): sums of the player's rows in strictly earlier periods."""
    per_period = long.groupby(["player", "period"], sort=True)[list(_COUNTS)].sum()
    # Cumulative sums over a player's periods, shifted by one period: earlier periods only.
    before = per_period.groupby(level="player").cumsum() - per_period
    last = per_period.reset_index().groupby("player")["period"].shift(1).to_numpy()
    before["last_period"] = last
    return long[["game", "player", "period"]].join(before, on=["player", "period"])


def history_features(games, initial_elo=1200.0, glicko_c=15.0):
    """The ``PLAYER_FEATURES`` of both players of each game, from earlier periods only.

    ``games`` has columns ``white``, ``black`` (player ids), ``score``
    (white's: 1, 0.5, 0) and ``period`` (integers, non-decreasing); returns
    an array of shape (n_games, 2, 16), x = white's features.
    """
    white, black = games["white"].to_numpy(), games["black"].to_numpy()
    score, day = games["score"].to_numpy(), games["period"].to_numpy()
    elo_before = Elo(initial_rating=initial_elo).update(white, black, score, day)
    glicko_before = Glicko(c=glicko_c).update(white, black, score, day)
    history = _history_before(_long_format(games, elo_before))
    n = len(games)
    sides = []
    for side, index in ((1, slice(0, n)), (2, slice(n, 2 * n))):
        h = history.iloc[index]
        count = h["games"].to_numpy()
        safe = np.maximum(count, 1.0)
        last = h["last_period"].to_numpy(dtype=float)
        sides.append(np.column_stack([
            elo_before[f"rating{side}"], glicko_before[f"rating{side}"],
            glicko_before[f"rd{side}"], np.full(n, 1.0 if side == 1 else 0.0),
            count, h["wins"], h["draws"], h["losses"],
            h["wins"] / safe, h["draws"] / safe, h["losses"] / safe,
            h["upset_wins"] / safe, h["upset_losses"] / safe,
            np.where(count > 0, h["opponent_elo"] / safe, 0.0), h["opponent_gap"] / safe,
            np.where(np.isnan(last), 0.0, day - np.nan_to_num(last)),
        ]))
    return np.stack(sides, axis=1)


def chess_features(games, period="D", initial_elo=1200.0, glicko_c=15.0):
    """Features of white and black for each game, from earlier periods only.

    Per player (see ``PLAYER_FEATURES``): Elo (FIDE rules, start 1200) and
    Glicko rating and deviation at the start of the game's period; who moves
    first (1 for white); games, wins, draws, losses and their shares; the
    share of games won against a higher-rated and lost to a lower-rated
    opponent (Elo at game time); mean opponent Elo and mean opponent Elo
    minus own Elo; rating periods since the last game (0 for a first game).  Shares
    and means are 0 without earlier games.

    Parameters
    ----------
    games : DataFrame
        From :func:`load_chess_games` (time-sorted, with ``time``,
        ``white``, ``black``, ``score``).
    period : pandas offset alias, default="D"
        Rating period: ratings are updated once per period, and a game's
        features use the games of earlier periods only (never a game of its
        own period, so simultaneous games cannot leak into each other).

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
    ordinals = pd.PeriodIndex(games["time"].dt.to_period(period)).asi8
    games["period"] = ordinals - ordinals.min()
    score, day = games["score"].to_numpy(), games["period"].to_numpy()
    X = history_features(games, initial_elo, glicko_c)
    y = np.rint(1 - 2 * score).astype(np.int64)  # white's score 1 -> -1, 0.5 -> 0, 0 -> 1
    info = pd.DataFrame({"period": day, "white_games": X[:, 0, 4], "black_games": X[:, 1, 4]})
    return X, y, info
