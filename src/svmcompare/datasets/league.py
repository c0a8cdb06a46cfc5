"""A simulated football league: a table of matches and a table of teams.

Real league results may not be redistributed, so the README's first example
and the CLI walk-through run on this simulation.  It has what real results
have and the paper's simulations lack: draws that come from goals (about a
quarter of the matches), a home advantage that belongs to the venue and not
to a team, and teams whose style makes their matches drawish.

Each season is a double round robin.  Goals are Poisson:

    home goals ~ Poisson(exp(mu + a_h - d_a + h v - s (style_h + style_a))),
    away goals ~ Poisson(exp(mu + a_a - d_h          - s (style_h + style_a))),

with attack a, defence d and a defensive style in [0, 1] per team, the
home advantage h and v = 1 at the home ground (0 on neutral ground, about
5% of the matches).  The teams table gives noisy views of a and d (as
scouting reports would) and the style; the matches table gives the result
as ``"H"``, ``"D"`` or ``"A"`` and the pair context ``home_adv`` (-1: the
first team, x, plays at home; 0: neutral ground).
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from sklearn.utils import check_random_state

from .._validation import check_allocation

_BASE_RATE = 0.25  # mu: about 1.3 goals per team and match
_STYLE_EFFECT = 0.6  # s: two fully defensive teams score exp(-1.2) as many goals
# |h| at most this: exp(5) already multiplies the home side's goals by 148, and
# beyond about 40 the Poisson draw fails ("lam value too large").
_MAX_HOME_ADVANTAGE = 5.0
_BYTES_PER_MATCH = 400  # peak memory of building one match row (measured: about 280)


def _check_count(value, name, least):
    """``value`` as an int, refused unless it is a whole number >= ``least``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) \
            or not np.isfinite(value) or int(value) != value or value < least:
        raise ValueError(f"{name} must be an integer >= {least}; got {value!r}.")
    return int(value)


def _check_real(value, name, low, high):
    """``value`` as a float, refused unless it is a number in [low, high]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) \
            or not low <= value <= high:
        raise ValueError(f"{name} must be a number in [{low:g}, {high:g}]; got {value!r}.")
    return float(value)


def make_league(n_teams=16, n_seasons=4, home_advantage=0.3, neutral_share=0.05,
                random_state=None):
    """Simulated league results with draws, home advantage and drawish teams.

    Parameters
    ----------
    n_teams : int, default=16
    n_seasons : int, default=4
        Double round robins: n_teams (n_teams - 1) matches each.
    home_advantage : float, default=0.3
        h, on the log scale of the home team's goals, in [-5, 5].
    neutral_share : float, default=0.05
        Share of matches on neutral ground.
    random_state : int, RandomState or None

    Returns
    -------
    matches : pandas.DataFrame
        Columns ``season`` (1, 2, ...), ``home``, ``away`` (team ids),
        ``home_goals``, ``away_goals``, ``result`` ("H", "D", "A") and
        ``home_adv`` (-1 at the home team's ground, 0 on neutral ground).
    teams : pandas.DataFrame
        Columns ``id``, ``attack``, ``defence`` (the true values plus noise
        of sd 0.3), ``style`` (0 attacking .. 1 defensive).

    Raises
    ------
    ValueError
        For an argument out of its range, and for more matches than the
        memory available now can hold (named with their number).
    """
    n_teams = _check_count(n_teams, "n_teams", 2)
    n_seasons = _check_count(n_seasons, "n_seasons", 1)
    home_advantage = _check_real(home_advantage, "home_advantage", -_MAX_HOME_ADVANTAGE,
                                 _MAX_HOME_ADVANTAGE)
    _check_real(neutral_share, "neutral_share", 0.0, 1.0)
    n_matches = n_seasons * n_teams * (n_teams - 1)
    check_allocation(n_matches * _BYTES_PER_MATCH,
                     f"a league of {n_teams} teams over {n_seasons} season(s) "
                     f"({n_matches:,} matches)", "choose fewer teams or seasons.")
    rng = check_random_state(random_state)
    ids = np.array([f"T{k + 1:02d}" for k in range(n_teams)])
    attack = rng.normal(0.0, 0.35, n_teams)
    defence = rng.normal(0.0, 0.35, n_teams)
    style = rng.uniform(0.0, 1.0, n_teams)
    home, away = np.nonzero(~np.eye(n_teams, dtype=bool))  # every ordered pair, home first
    season = np.repeat(np.arange(1, n_seasons + 1), home.size)
    home, away = np.tile(home, n_seasons), np.tile(away, n_seasons)
    venue = (rng.uniform(size=home.size) >= neutral_share).astype(float)
    calm = _STYLE_EFFECT * (style[home] + style[away])
    rate_home = np.exp(_BASE_RATE + attack[home] - defence[away] + home_advantage * venue - calm)
    rate_away = np.exp(_BASE_RATE + attack[away] - defence[home] - calm)
    home_goals, away_goals = rng.poisson(rate_home), rng.poisson(rate_away)
    result = np.where(home_goals > away_goals, "H", np.where(home_goals < away_goals, "A", "D"))
    matches = pd.DataFrame({"season": season, "home": ids[home], "away": ids[away],
                            "home_goals": home_goals, "away_goals": away_goals,
                            "result": result, "home_adv": -venue.astype(int)})
    teams = pd.DataFrame({"id": ids,
                          "attack": attack + rng.normal(0.0, 0.3, n_teams),
                          "defence": defence + rng.normal(0.0, 0.3, n_teams),
                          "style": style})
    return matches, teams
