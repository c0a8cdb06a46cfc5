"""Rating systems for two-player games: Elo with FIDE rules, and Glicko.

Both keep per-player state and update it one rating period at a time from a
table of games (player1, player2, score of player1 in {1, 0.5, 0}, period):
within a period every expected score uses the ratings from the start of the
period, as in the FIDE and Glicko rules, so each period is one vectorized
step (``np.bincount`` over its games) and 1e6 games take seconds.

:meth:`Elo.update` and :meth:`Glicko.update` return the ratings each game
was played at (the start of its period): features that use no result of the
game's own period or later.

References: Elo, *The rating of chess players, past and present* (1978) and
the FIDE rating regulations (K-factors, 400-point rule); Glickman, "Parameter
estimation in large dynamic paired comparison experiments", Applied
Statistics 48 (1999).
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from ._validation import plain_value

GLICKO_Q = np.log(10) / 400  # q of Glickman (1999)


# -- pure period updates ------------------------------------------------------------


def elo_expected(r1, r2, cap=400.0):
    """Expected score of player 1: 1 / (1 + 10^(-d/400)), d = r1 - r2 capped at +-``cap``.

    FIDE counts a rating difference above 400 as 400 (``cap=None``: no cap).
    """
    d = np.asarray(r1, dtype=float) - np.asarray(r2, dtype=float)
    if cap is not None:
        d = np.clip(d, -cap, cap)
    return 1.0 / (1.0 + 10.0 ** (-d / 400.0))


def fide_k(rating, games, has_reached_2400):
    """FIDE K-factors: 40 for fewer than 30 games, 10 once 2400 was reached, else 20."""
    return np.where(games < 30, 40.0, np.where(has_reached_2400 | (rating >= 2400), 10.0, 20.0))


def elo_period(rating, k, i, j, score, cap=400.0):
    """Ratings after one period: r_p + K_p sum over p's games of (S - E).

    ``i``, ``j``: player indices of each game; ``score``: player i's score;
    ``k``: each player's K.  Every E uses the ratings at the start of the
    period (player j's score is 1 - S, its expectation 1 - E).
    """
    expected = elo_expected(rating[i], rating[j], cap)
    n = rating.shape[0]
    change = (np.bincount(i, weights=score - expected, minlength=n)
              + np.bincount(j, weights=expected - score, minlength=n))
    return rating + k * change


def glicko_g(rd):
    """g(RD) = 1 / sqrt(1 + 3 q^2 RD^2 / pi^2) (Glickman 1999)."""
    return 1.0 / np.sqrt(1.0 + 3.0 * GLICKO_Q ** 2 * np.asarray(rd, dtype=float) ** 2 / np.pi ** 2)


def glicko_expected(r1, rd1, r2, rd2):
    """Expected score of player 1 against player 2 (Glickman 1999, with both deviations).

    E = 1 / (1 + 10^(-g(sqrt(RD1^2 + RD2^2)) (r1 - r2) / 400)): the probability
    for a game between two uncertain ratings.  For one player's update, the
    formula uses g(RD2) alone (see :func:`glicko_period`).
    """
    g = glicko_g(np.sqrt(np.asarray(rd1, dtype=float) ** 2 + np.asarray(rd2, dtype=float) ** 2))
    return 1.0 / (1.0 + 10.0 ** (-g * (np.asarray(r1) - np.asarray(r2)) / 400.0))


def glicko_period(rating, rd, i, j, score):
    """Glicko ratings and deviations after one period (deviations already grown).

    For each player, over the games of the period:
    E = 1 / (1 + 10^(-g(RD_opp) (r - r_opp) / 400)),
    d^2 = 1 / (q^2 sum g(RD_opp)^2 E (1 - E)),
    r' = r + q / (1/RD^2 + 1/d^2) sum g(RD_opp) (s - E),
    RD' = sqrt(1 / (1/RD^2 + 1/d^2)).  Players without a game keep (r, RD).
    """
    n = rating.shape[0]
    gi, gj = glicko_g(rd[j]), glicko_g(rd[i])  # the opponent's g, seen from i and from j
    e_i = 1.0 / (1.0 + 10.0 ** (-gi * (rating[i] - rating[j]) / 400.0))
    e_j = 1.0 / (1.0 + 10.0 ** (-gj * (rating[j] - rating[i]) / 400.0))
    information = (np.bincount(i, weights=gi ** 2 * e_i * (1 - e_i), minlength=n)
                   + np.bincount(j, weights=gj ** 2 * e_j * (1 - e_j), minlength=n))
    surprise = (np.bincount(i, weights=gi * (score - e_i), minlength=n)
                + np.bincount(j, weights=gj * ((1 - score) - e_j), minlength=n))
    precision = 1.0 / rd ** 2 + GLICKO_Q ** 2 * information  # 1/RD^2 + 1/d^2
    return rating + GLICKO_Q / precision * surprise, np.sqrt(1.0 / precision)


# -- games table validation -----------------------------------------------------------


def _is_finite_number(value):
    """Whether ``value`` is one real, finite number (a bool is not)."""
    return (isinstance(value, numbers.Real) and not isinstance(value, bool)
            and bool(np.isfinite(value)))


def _player_codes(player1, player2):
    """Each game's two players as indices into one array of distinct ids (-1: missing).

    Ids are told apart as dict keys are (1 == 1.0, 1 != "1"): columns of
    different dtypes are compared as objects, since ``np.concatenate`` would
    turn 1 and "1" into one string.
    """
    if player1.dtype != player2.dtype:
        player1, player2 = player1.astype(object), player2.astype(object)
    codes, ids = pd.factorize(np.concatenate([player1, player2]))
    n = player1.shape[0]
    return codes[:n], codes[n:], ids


def check_games(player1, player2, score, period=None, played=None):
    """Validate a table of games (``played``: False marks a fixture, whose
    score is not read and may be NaN).

    Returns
    -------
    first, second : ndarray of int
        Each game's players as indices into ``ids``.
    ids : ndarray
        The distinct player ids.
    score, period : ndarray
    """
    player1, player2 = np.asarray(player1).ravel(), np.asarray(player2).ravel()
    score = np.asarray(score, dtype=float).ravel()
    n = player1.shape[0]
    if player2.shape[0] != n or score.shape[0] != n:
        raise ValueError(f"player1, player2 and score must have one entry per game; got "
                         f"{n}, {player2.shape[0]} and {score.shape[0]}.")
    first, second, ids = _player_codes(player1, player2)
    for name, codes in (("player1", first), ("player2", second)):
        if np.any(codes < 0):
            raise ValueError(f"{name} of game {np.flatnonzero(codes < 0)[0]} is missing "
                             "(NaN or None): every game needs both players' ids.")
    # A game against oneself carries no information, yet Glicko would count it
    # as evidence and shrink the deviation.
    alone = first == second
    if np.any(alone):
        game = np.flatnonzero(alone)[0]
        player = plain_value(ids[first[game]])
        raise ValueError(f"game {game} is player {player!r} against itself: "
                         "player1 and player2 must differ.")
    if played is not None:
        played = np.asarray(played).ravel()
        if played.dtype.kind != "b" or played.shape[0] != n:
            raise ValueError(f"played must be {n} booleans (False: a fixture not played yet); "
                             f"got {played.dtype} of shape {played.shape}.")
    bad = ~np.isin(score, (0.0, 0.5, 1.0)) & (True if played is None else played)
    if np.any(bad):
        raise ValueError(f"score must be 1 (player1 won), 0.5 (draw) or 0 (player1 lost); "
                         f"game {np.flatnonzero(bad)[0]} has {score[bad][0]!r}.")
    if period is None:
        period = np.zeros(n)
    period = np.asarray(period).ravel()
    if period.shape[0] != n:
        raise ValueError(f"period has {period.shape[0]} entries for {n} games.")
    if period.dtype.kind not in "biuf" or not np.all(np.isfinite(period)):
        raise TypeError("period must be finite numbers (e.g. day or month numbers).")
    return first, second, ids, score, period


def _period_slices(period):
    """Game order sorted by period (stable) and the (start, stop, value) of each
    period (none for no games)."""
    order = np.argsort(period, kind="stable")
    values, starts = np.unique(period[order], return_index=True)
    stops = np.append(starts[1:], order.size) if starts.size else starts
    return order, list(zip(starts, stops, values, strict=True))


def _period_players(i, j):
    """The players of one period's games and the games' players as positions
    among them: a period's step then costs its own players, not everyone's."""
    who, local = np.unique(np.concatenate([i, j]), return_inverse=True)
    return who, local[:i.size], local[i.size:]


class _RatingSystem:
    """Player registry and the period loop; subclasses define the state and step."""

    _state: tuple = ()

    def _index(self, players, create):
        if not hasattr(self, "players_"):
            self.players_ = {}
            self._now = np.nan  # the last processed period (NaN: none yet)
            self._grow(0)
        index = np.empty(len(players), dtype=np.int64)
        for k, player in enumerate(players):
            found = self.players_.get(player)
            if found is None:
                if not create:
                    index[k] = -1
                    continue
                found = self.players_[player] = len(self.players_)
            index[k] = found
        if create and len(self.players_) > self._size():
            self._grow(len(self.players_))
        return index

    def update(self, player1, player2, score, period=None, played=None):
        """Process games period by period (increasing ``period``; None: one period).

        May be called again with later games (online updates); a period before
        the last processed one is refused, since its games would be rated
        after later ones.  No games: nothing changes, and the result has no rows.

        Parameters
        ----------
        player1, player2 : array-like of shape (n_games,)
            Player ids (any hashable values; not missing, and a player never
        plays itself).
        score : array-like of shape (n_games,)
            Player 1's score: 1 win, 0.5 draw, 0 loss.
        period : array-like of numbers, optional
            Rating period of each game (e.g. the day number).
        played : array-like of bool, optional
            False marks a fixture not played yet: its players' states at the
            start of its period are returned as for any game, and it changes
            no rating (its score is not read and may be NaN).

        Returns
        -------
        pandas.DataFrame
            One row per game, in the input order: each player's state at the
            start of the game's period (see the subclass).
        """
        first, second, ids, score, period = check_games(player1, player2, score, period,
                                                        played)
        if period.size:  # before any player is registered
            self._check_order(period.min())
        played = None if played is None else np.asarray(played).ravel()
        index = self._index(ids, create=True)
        # New arrays for this update (each period then writes its players in
        # place): a reference kept from before, e.g. ``snapshot = elo.rating_``,
        # keeps its values.
        for name in self._arrays:
            setattr(self, name, getattr(self, name).copy())
        i, j = index[first], index[second]
        before = {f"{name}{side}": np.empty(score.size) for name in self._state
                  for side in (1, 2)}
        order, slices = _period_slices(period)
        for start, stop, value in slices:
            games = order[start:stop]
            results = games if played is None else games[played[games]]
            # Only the players of this period's games, before the period's step.
            for name, first, second in zip(self._state, self._state_of(i[games], value),
                                           self._state_of(j[games], value), strict=True):
                before[f"{name}1"][games] = first
                before[f"{name}2"][games] = second
            # A period of fixtures alone is read at its time without moving the
            # clock (later results of earlier periods can still come in).
            if results.size:
                self._step(i[results], j[results], score[results], value)
                self._now = value
        return pd.DataFrame(before)

    def _check_order(self, value):
        """Refuse a period before the last processed one."""
        now = getattr(self, "_now", np.nan)
        if not np.isnan(now) and value < now:
            raise ValueError(f"period {value} is before the last processed period {now}: "
                             "give games in time order (a later update, later periods).")

    def _size(self):
        return self.rating_.shape[0]

    def _known(self, players):
        """Rows of ``players`` in the state arrays (-1: not seen yet)."""
        if np.ndim(players) == 0:  # list("abc") would be three players
            raise TypeError(f"players must be a list of player ids; got {players!r} (for one "
                            "player: [id]).")
        players = list(players)
        missing = next((k for k, player in enumerate(players) if pd.isna(player) is True), None)
        if missing is not None:
            raise ValueError(f"players[{missing}] is missing (NaN or None): give player ids.")
        return self._index(players, create=False)

    @staticmethod
    def _of_known(index, values, default):
        """``values`` at ``index``, ``default`` where the index is -1 (also when
        ``values`` is still empty, before the first update)."""
        out = np.full(index.shape[0], default)
        known = index >= 0
        out[known] = values[index[known]]
        return out

    def ratings(self, players):
        """Current ratings (``initial_rating`` for players not seen yet, also
        before the first update)."""
        index = self._known(players)
        return self._of_known(index, self.rating_, self.initial_rating)


class Elo(_RatingSystem):
    """Elo ratings with FIDE rules, updated once per rating period.

    Parameters
    ----------
    initial_rating : float, default=1200.0
        Rating of a new player (the paper's choice).
    k_factor : "fide" or float, default="fide"
        "fide": K = 40 for a player's first 30 games, 10 once a player has
        reached 2400, otherwise 20.  A number: that K for everyone.
    cap : float or None, default=400.0
        FIDE's 400-point rule: a larger rating difference counts as 400 in
        the expected score.

    Attributes
    ----------
    players_ : dict
        Player id -> row of the state arrays.
    rating_, games_ : ndarray
        Current rating and number of rated games of each player.
    """

    _state = ("rating", "games")
    _arrays = ("rating_", "games_", "_reached_2400")  # what a period's step writes

    def __init__(self, initial_rating=1200.0, k_factor="fide", cap=400.0):
        # Infinite or NaN values would give infinite or NaN ratings, not an error.
        if not _is_finite_number(initial_rating):
            raise ValueError(f"initial_rating must be a finite number; got {initial_rating!r}.")
        if not (isinstance(k_factor, str) and k_factor == "fide") \
                and not (_is_finite_number(k_factor) and k_factor > 0):
            raise ValueError(f"k_factor must be 'fide' or a finite positive number; got "
                             f"{k_factor!r}.")
        if cap is not None and not (_is_finite_number(cap) and cap > 0):
            raise ValueError(f"cap must be a finite positive rating difference (FIDE: 400) or "
                             f"None for no cap; got {cap!r}.")
        self.initial_rating = float(initial_rating)
        self.k_factor = k_factor
        self.cap = cap

    def _grow(self, n):
        old = getattr(self, "rating_", np.zeros(0))
        extra = n - old.shape[0]
        self.rating_ = np.append(old, np.full(extra, self.initial_rating))
        self.games_ = np.append(getattr(self, "games_", np.zeros(0)), np.zeros(extra))
        # A player who starts at 2400 has reached it (FIDE's K of 10).
        self._reached_2400 = np.append(getattr(self, "_reached_2400", np.zeros(0, bool)),
                                       np.full(extra, self.initial_rating >= 2400))

    def _state_of(self, index, now):
        return self.rating_[index], self.games_[index]

    def _step(self, i, j, score, value):
        who, i, j = _period_players(i, j)
        rating = self.rating_[who]
        if self.k_factor == "fide":
            k = fide_k(rating, self.games_[who], self._reached_2400[who])
        else:
            k = np.full(who.size, float(self.k_factor))
        rating = elo_period(rating, k, i, j, score, self.cap)
        self.rating_[who] = rating
        self.games_[who] += np.bincount(np.concatenate([i, j]), minlength=who.size)
        self._reached_2400[who] |= rating >= 2400

    def expected_score(self, player1, player2):
        """Player 1's expected score against player 2 from the current ratings."""
        return elo_expected(self.ratings(player1), self.ratings(player2), self.cap)


class Glicko(_RatingSystem):
    """Glicko ratings (Glickman 1999): a rating and a rating deviation per player.

    At the start of each rating period a player's deviation grows to
    min(sqrt(RD^2 + c^2 t), ``initial_rd``), t the number of periods since
    the player's last period with a game (Glickman's step 1); then
    :func:`glicko_period` updates the players of the period (step 2).

    Parameters
    ----------
    initial_rating : float, default=1500.0
    initial_rd : float, default=350.0
        Deviation of a new player, and the ceiling of every deviation (> 0).
    c : float, default=15.0
        Growth of the deviation per period without games.

    Attributes
    ----------
    players_ : dict
    rating_, rd_ : ndarray
        Ratings and deviations, as of each player's last period (use
        :meth:`deviations` for the deviation grown to the current period).
    """

    _state = ("rating", "rd")
    _arrays = ("rating_", "rd_", "_last")  # what a period's step writes

    def __init__(self, initial_rating=1500.0, initial_rd=350.0, c=15.0):
        if not _is_finite_number(initial_rating):
            raise ValueError(f"initial_rating must be a finite number; got {initial_rating!r}.")
        # A deviation of 0 claims a rating known exactly: 1 / RD^2 divides by zero.
        if not (_is_finite_number(initial_rd) and initial_rd > 0):
            raise ValueError(f"initial_rd must be a finite number > 0; got {initial_rd!r}.")
        if not (_is_finite_number(c) and c >= 0):
            raise ValueError(f"c must be a finite number >= 0; got {c!r}.")
        self.initial_rating = float(initial_rating)
        self.initial_rd = float(initial_rd)
        self.c = float(c)

    def _grow(self, n):
        old = getattr(self, "rating_", np.zeros(0))
        extra = n - old.shape[0]
        self.rating_ = np.append(old, np.full(extra, self.initial_rating))
        self.rd_ = np.append(getattr(self, "rd_", np.zeros(0)), np.full(extra, self.initial_rd))
        self._last = np.append(getattr(self, "_last", np.zeros(0)), np.full(extra, np.nan))

    def _grown_rd(self, now, index=slice(None)):
        """Deviations of the players at ``index`` grown to period ``now``."""
        last = self._last[index]
        elapsed = np.where(np.isnan(last), 0.0, now - last)
        return np.minimum(np.sqrt(self.rd_[index] ** 2 + self.c ** 2 * elapsed),
                          self.initial_rd)

    def _state_of(self, index, now):
        return self.rating_[index], self._grown_rd(now, index)

    def _step(self, i, j, score, value):
        who, i, j = _period_players(i, j)
        rating, rd = glicko_period(self.rating_[who], self._grown_rd(value, who), i, j, score)
        self.rating_[who] = rating
        self.rd_[who] = rd
        self._last[who] = value

    def deviations(self, players, period=None):
        """Deviations grown to ``period`` (default: the last processed period);
        ``initial_rd`` for players not seen yet, also before the first update.

        ``period`` must be a finite number, not before the last processed
        period: deviations only grow with time, an earlier one would shrink them.
        """
        index = self._known(players)
        now = self._now if period is None else self._check_period(period)
        return self._of_known(index, self._grown_rd(now), self.initial_rd)

    def _check_period(self, period):
        if not _is_finite_number(period):
            raise ValueError(f"period must be a finite number (a period as given to update); "
                             f"got {period!r}.")
        if period < self._now:  # False before the first update (_now is NaN)
            raise ValueError(f"period {period} is before the last processed period "
                             f"{self._now}: deviations of earlier periods are no longer kept.")
        return period

    def expected_score(self, player1, player2, period=None):
        """Player 1's expected score against player 2 (:func:`glicko_expected`)."""
        return glicko_expected(self.ratings(player1), self.deviations(player1, period),
                               self.ratings(player2), self.deviations(player2, period))
