"""Features of any two-player games table from the past only (issue 16)."""

import numpy as np
import pandas as pd
import pytest

from svmcompare.datasets import GAME_FEATURES, POINTS_FEATURES, games_features, load_chess_games


def _league(n_games=300, seed=0):
    rng = np.random.default_rng(seed)
    teams = [f"T{k}" for k in range(8)]
    home = rng.choice(teams, n_games)
    away = np.array([rng.choice([t for t in teams if t != h]) for h in home])
    days = np.sort(rng.integers(0, 60, n_games))
    date = (pd.Timestamp("2024-01-01") + pd.to_timedelta(days, "D")).strftime("%Y%m%d")
    return pd.DataFrame({"date": date.astype(int), "home": home, "away": away,
                         "result": rng.choice(["H", "D", "A"], n_games),
                         "neutral": rng.random(n_games) < 0.2})


def test_nothing_from_the_future():
    games = _league()
    kwargs = dict(first="home", second="away", result="result", time="date",
                  result_map={"H": 1, "D": 0.5, "A": 0})
    X, y, _, info = games_features(games, **kwargs)
    # Changing every result from a day on leaves the features of that day and
    # earlier unchanged, and changes later ones.
    cut = int(np.median(info["period"]))
    changed = games.copy()
    later = info["period"].to_numpy() >= cut
    changed.loc[later, "result"] = "H"
    X2, _, _, _ = games_features(changed, **kwargs)
    upto = info["period"].to_numpy() <= cut
    np.testing.assert_array_equal(X[upto], X2[upto])
    assert not np.array_equal(X[~upto], X2[~upto])


def test_yyyymmdd_integers_are_dates_and_results_are_mapped_explicitly():
    games = _league(50)
    X, y, context, info = games_features(
        games, first="home", second="away", result="result", time="date",
        result_map={"H": 1, "D": 0.5, "A": 0}, advantage=-1)
    days = pd.to_datetime(games["date"].astype(str), format="%Y%m%d")
    np.testing.assert_array_equal(info["period"], (days - days.min()).dt.days)
    np.testing.assert_array_equal(y, games["result"].map({"H": -1, "D": 0, "A": 1}))
    assert X.shape == (50, 2, len(GAME_FEATURES)) and "moves_first" not in GAME_FEATURES
    np.testing.assert_array_equal(context, -np.ones((50, 1)))
    with pytest.raises(ValueError, match="never guessed"):
        games_features(games, first="home", second="away", result="result", result_map=None)
    with pytest.raises(ValueError, match="does not map"):
        games_features(games, first="home", second="away", result="result",
                       result_map={"H": 1, "A": 0})


def test_numeric_results_seasons_and_an_advantage_column():
    games = _league(80)
    games["sign"] = games["result"].map({"H": 1, "D": 0, "A": -1})
    games["season"] = np.where(np.arange(80) < 40, "2008-9", "2009-10")
    X, y, context, info = games_features(games, first="home", second="away", result="sign",
                                         outcome_map={1: -1, 0: 0, -1: 1}, time="season",
                                         advantage="neutral")
    np.testing.assert_array_equal(info["period"], np.r_[np.zeros(40), np.ones(40)])
    assert np.all(X[:40, :, GAME_FEATURES.index("games")] == 0)  # first season: no history
    np.testing.assert_array_equal(context[:, 0], games["neutral"].astype(float))
    np.testing.assert_array_equal(y, -games["sign"])


@pytest.mark.parametrize("advantage, message", [
    (np.inf, "advantage must be a finite number"), (np.nan, "advantage must be a finite number"),
    ("edge", "advantage of game 3 is inf")])
def test_an_advantage_must_be_finite(advantage, message):
    games = _league(20)
    games["edge"] = np.where(np.arange(20) == 3, np.inf, 1.0)
    with pytest.raises(ValueError, match=message):
        games_features(games, first="home", second="away", result="result",
                       outcome_map={"H": -1, "D": 0, "A": 1}, advantage=advantage)


def test_load_chess_games_reads_the_numeric_results_it_documents(tmp_path):
    path = tmp_path / "games.csv"
    pd.DataFrame({"time": ["2024-01-01", "2024-01-02", "2024-01-03"],
                  "white": ["a", "b", "a"], "black": ["b", "a", "c"],
                  "result": [1.0, 0.5, 0.0]}).to_csv(path, index=False)
    np.testing.assert_array_equal(load_chess_games(path)["score"], [1.0, 0.5, 0.0])


def _points_league(n_games=200, seed=1):
    games = _league(n_games, seed)
    rng = np.random.default_rng(seed)
    games["hg"], games["ag"] = rng.poisson(1.5, n_games), rng.poisson(1.1, n_games)
    games["result"] = np.sign(games["hg"] - games["ag"]).map({1: "H", 0: "D", -1: "A"})
    return games


_POINTS = dict(first="home", second="away", result="result", time="date",
               result_map={"H": 1, "D": 0.5, "A": 0}, points=("hg", "ag"))


def test_points_features_are_weighted_means_of_earlier_games_by_hand():
    games = pd.DataFrame({"day": [1, 2, 2, 3], "a": ["P", "P", "R", "Q"],
                          "b": ["Q", "R", "Q", "P"], "pa": [3, 1, 0, 2], "pb": [1, 1, 2, 2],
                          "r": ["W", "D", "L", "D"]})
    X, _, _, _ = games_features(games, first="a", second="b", result="r", time="day",
                                result_map={"W": 1, "D": 0.5, "L": 0}, points=("pa", "pb"),
                                half_life=1.0)
    form = X[:, :, len(GAME_FEATURES):]
    assert form.shape == (4, 2, len(POINTS_FEATURES))
    np.testing.assert_array_equal(form[0], 0.0)  # nobody has a past
    np.testing.assert_allclose(form[1, 0], [2, 3, 1])  # P's one game: 3-1
    np.testing.assert_array_equal(form[1, 1], 0.0)  # R: none before day 2
    np.testing.assert_allclose(form[2, 1], [-2, 1, 3])  # Q lost 1-3; day 2's games not yet
    # Day 3, Q: 1-3 (day 1) and 2-0 (day 2) with half-life 1 game: weights 1/2, 1.
    np.testing.assert_allclose(form[3, 0], [(-2 / 2 + 2) / 1.5, (1 / 2 + 2) / 1.5,
                                            (3 / 2 + 0) / 1.5])
    # P: 3-1 then 1-1.
    np.testing.assert_allclose(form[3, 1], [(2 / 2 + 0) / 1.5, (3 / 2 + 1) / 1.5,
                                            (1 / 2 + 1) / 1.5])


def test_points_features_take_nothing_from_the_future_and_skip_unscored_games():
    games = _points_league()
    X, _, _, info = games_features(games, **_POINTS)
    cut = int(np.median(info["period"]))
    later = info["period"].to_numpy() >= cut
    changed = games.copy()
    changed.loc[later, "hg"] += 3
    X2, _, _, _ = games_features(changed, **_POINTS)
    upto = info["period"].to_numpy() <= cut
    np.testing.assert_array_equal(X[upto], X2[upto])
    assert not np.array_equal(X[~upto], X2[~upto])
    # A game without points counts for nothing in the points features only.
    blank = games.copy()
    blank.loc[0, ["hg", "ag"]] = np.nan
    X3, _, _, _ = games_features(blank, **_POINTS)
    dropped = games.drop(index=0).reset_index(drop=True)
    # Without game 0 at all, the other games' points features are the same.
    X4, _, _, _ = games_features(dropped, **_POINTS)
    k = len(GAME_FEATURES)
    np.testing.assert_allclose(X3[1:, :, k:], X4[:, :, k:])
    np.testing.assert_array_equal(X3[:, :, :k], X[:, :, :k])


@pytest.mark.parametrize("change, match", [
    (dict(points=("hg", "nope")), "not in the games table"),
    (dict(points="hg"), "pair of column names"),
    (dict(half_life=0), "half_life"),
    (dict(half_life=float("nan")), "half_life"),
])
def test_points_bad_arguments_are_named(change, match):
    with pytest.raises((ValueError, TypeError), match=match):
        games_features(_points_league(30), **{**_POINTS, **change})


def test_points_bad_values_are_named():
    games = _points_league(30)
    games["hg"] = games["hg"].astype(object)
    games.loc[5, "hg"] = "two"
    with pytest.raises(ValueError, match="game 5.*'two'"):
        games_features(games, **_POINTS)
    games.loc[5, "hg"] = np.inf
    with pytest.raises(ValueError, match="infinite"):
        games_features(games, **_POINTS)


# -- cold starts: prior_games (issue 35) -------------------------------------------

_COLS = {name: GAME_FEATURES.index(name) for name in GAME_FEATURES}
_SHARES = ("win_share", "draw_share", "loss_share", "upset_win_share", "upset_loss_share",
           "mean_opponent_elo", "mean_opponent_elo_gap")


def test_prior_games_none_keeps_the_old_features_and_zeros_for_a_newcomer():
    games = _league(120)
    kwargs = dict(first="home", second="away", result="result", time="date",
                  result_map={"H": 1, "D": 0.5, "A": 0})
    X, _, _, info = games_features(games, **kwargs)
    X0, _, _, _ = games_features(games, **kwargs, prior_games=None)
    np.testing.assert_array_equal(X, X0)
    new = info["first_games"].to_numpy() == 0
    assert new.any()
    for name in _SHARES:
        np.testing.assert_array_equal(X[new, 0, _COLS[name]], 0.0)
    # A side with games: its own shares, the prior does not touch them at 0.
    X1, _, _, _ = games_features(games, **kwargs, prior_games=0)
    seen = ~new
    for name in _SHARES:
        np.testing.assert_allclose(X1[seen, 0, _COLS[name]], X[seen, 0, _COLS[name]])


def _by_hand_prior(games, k):
    """Bayesian shares of the first side by brute force over the table:
    (own sum + k x population's mean of all earlier games' sides) / (own games + k)."""
    out = []
    for g in range(len(games)):
        day, me = games["day"][g], games["a"][g]
        earlier = games[games["day"] < day]
        sides = []  # (player, won, drew, lost) of every side of every earlier game
        for _, row in earlier.iterrows():
            s = row["s"]  # a's score
            sides.append((row["a"], s == 1, s == 0.5, s == 0))
            sides.append((row["b"], s == 0, s == 0.5, s == 1))
        sides = np.array([(p == me, w, d, lo) for p, w, d, lo in sides], dtype=float)
        if len(sides):
            pop = sides[:, 1:].mean(axis=0)
            own = sides[sides[:, 0] == 1, 1:]
        else:
            pop, own = np.full(3, 1 / 3), np.zeros((0, 3))
        n = len(own)
        out.append(pop if n + k == 0 else (own.sum(axis=0) + k * pop) / (n + k))
    return np.array(out)


@pytest.mark.parametrize("k", [0.0, 2.0, 5.0])
def test_prior_games_shares_are_bayesian_means_by_brute_force(k):
    rng = np.random.default_rng(3)
    n = 40
    players = np.array(["P", "Q", "R", "S", "T", "U"])
    a = rng.choice(players, n)
    b = np.array([rng.choice(players[players != x]) for x in a])
    games = pd.DataFrame({"day": np.sort(rng.integers(0, 12, n)), "a": a, "b": b,
                          "s": rng.choice([1.0, 0.5, 0.0], n)})
    X, _, _, _ = games_features(games, first="a", second="b", result="s", time="day",
                                result_map="score", prior_games=k)
    got = X[:, 0, [_COLS["win_share"], _COLS["draw_share"], _COLS["loss_share"]]]
    np.testing.assert_allclose(got, _by_hand_prior(games, k), atol=1e-12)


def test_prior_games_a_newcomer_gets_the_population_mean_opponent_rating_and_points():
    games = pd.DataFrame({"day": [1, 1, 2, 3], "a": ["P", "R", "P", "N"],
                          "b": ["Q", "S", "R", "P"], "pa": [3, 0, 1, 2], "pb": [1, 0, 1, 2],
                          "r": ["W", "D", "D", "L"]})
    kwargs = dict(first="a", second="b", result="r", time="day",
                  result_map={"W": 1, "D": 0.5, "L": 0}, points=("pa", "pb"), half_life=1.0)
    X, _, _, _ = games_features(games, **kwargs, prior_games=0)
    k = len(GAME_FEATURES)
    # N's first game (day 3): the mean opponent rating over every side of every
    # earlier game (day 1: four sides facing the initial 1200; day 2: P and R
    # facing each other at their day-2 ratings), not 0.
    elo = _COLS["elo"]
    expected = (4 * 1200.0 + X[2, 0, elo] + X[2, 1, elo]) / 6
    assert X[2, 0, elo] > 1200.0  # P won on day 1: the day-2 term is not the initial rating
    assert X[3, 0, _COLS["mean_opponent_elo"]] == pytest.approx(expected)
    assert X[3, 0, _COLS["mean_opponent_elo_gap"]] == pytest.approx(0.0, abs=1e-9)
    # Points: margin 0, for and against the mean points of a side in the
    # three earlier games ((3 + 1 + 0 + 0 + 1 + 1) / 6 = 1).
    np.testing.assert_allclose(X[3, 0, k:], [0.0, 1.0, 1.0])
    # Day 1: nothing earlier anywhere, neutral values.
    np.testing.assert_allclose(X[0, 0, [_COLS["win_share"], _COLS["draw_share"]]], 1 / 3)
    np.testing.assert_allclose(X[0, :, k:], 0.0)
    # P on day 3 has played: with prior_games=0 its own form (3-1, then 1-1).
    np.testing.assert_allclose(X[3, 1, k:], [(2 / 2 + 0) / 1.5, (3 / 2 + 1) / 1.5,
                                            (1 / 2 + 1) / 1.5])
    # With 2 pseudo-games the same form is pulled toward (0, 1, 1) of days 1-2.
    X2, _, _, _ = games_features(games, **kwargs, prior_games=2.0)
    own = np.array([(2 / 2 + 0), (3 / 2 + 1), (1 / 2 + 1)])
    np.testing.assert_allclose(X2[3, 1, k:], (own + 2 * np.array([0.0, 1.0, 1.0])) / 3.5)


@pytest.mark.parametrize("bad", [-1, float("nan"), float("inf"), True, "2"])
def test_prior_games_bad_values_are_named(bad):
    with pytest.raises(ValueError, match="prior_games"):
        games_features(_league(30), first="home", second="away", result="result",
                       time="date", result_map={"H": 1, "D": 0.5, "A": 0}, prior_games=bad)


def _weekly(n_weeks=20, seed=0):
    """Two games a week (A-B, C-D) from 2020-01-04, with the dates as datetimes."""
    rng = np.random.default_rng(seed)
    when = pd.Series(pd.date_range("2020-01-04", periods=n_weeks, freq="7D").repeat(2))
    return pd.DataFrame({"home": np.tile(["A", "C"], n_weeks),
                         "away": np.tile(["B", "D"], n_weeks),
                         "result": rng.choice(["H", "D", "A"], 2 * n_weeks), "when": when})


_WEEKLY = dict(first="home", second="away", result="result",
               outcome_map={"H": -1, "D": 0, "A": 1}, time="t")


@pytest.mark.parametrize("spelling", ["%b %d, %Y", "%d %b %Y", "%B %d, %Y", "%a %d %B %Y"])
def test_date_spellings_are_read_as_dates_not_sorted_as_text(spelling):
    games = _weekly()
    X, _, _, info = games_features(games.assign(t=games["when"]), **_WEEKLY)
    text = games["when"].dt.strftime(spelling)
    X2, _, _, info2 = games_features(games.assign(t=text), **_WEEKLY)
    # As text, "Apr 04, 2020" came first and the first game had 9 earlier ones.
    assert info2["first_games"].iloc[0] == 0
    np.testing.assert_array_equal(info2["period"], info["period"])
    np.testing.assert_array_equal(X2, X)


def test_a_column_of_mixed_month_spellings_is_read_date_by_date():
    games = _weekly(4)
    text = games["when"].dt.strftime("%b %d, %Y").where(np.arange(8) < 4,
                                                        games["when"].dt.strftime("%B %d, %Y"))
    _, _, _, info = games_features(games.assign(t=text), **_WEEKLY)
    np.testing.assert_array_equal(info["period"], np.repeat([0, 7, 14, 21], 2))


def test_an_ordered_categorical_time_keeps_its_declared_order():
    games = _weekly()
    months = games["when"].dt.strftime("%B %Y")
    ordered = pd.Categorical(months, categories=pd.unique(months), ordered=True)
    _, _, _, info = games_features(games.assign(t=ordered), **_WEEKLY)
    assert info["first_games"].iloc[0] == 0  # January first, not April ("A" sorts first)
    month = games["when"].dt.month.to_numpy()
    np.testing.assert_array_equal(info["period"], month - 1)
    # An unordered Categorical is read by its values: "January 2020" is a
    # date (its first day), "January" alone a label whose order is not known.
    _, _, _, info = games_features(games.assign(t=pd.Categorical(months)), **_WEEKLY)
    first_days = games["when"].dt.to_period("M").dt.start_time
    np.testing.assert_array_equal(info["period"], (first_days - first_days[0]).dt.days)
    names = games["when"].dt.strftime("%B")
    with pytest.raises(ValueError, match="'January' whose order is not known"):
        games_features(games.assign(t=pd.Categorical(names)), **_WEEKLY)


@pytest.mark.parametrize("bad, message", [
    ("02/30/2021", r"time of game 7 = '02/30/2021' is not a date.*'date'"),
    ("postponed", r"time of game 7 = 'postponed' is not a date, while the time column "
                  r"'date' holds dates"),
    ("31/01/2020", r"'31/01/2020' \(time of game 7\), a date only as day/month, and "
                   r"'01/18/2020' \(time of game 4\), one only as month/day"),
])
def test_one_value_that_is_no_date_is_named_not_sorted_as_text(bad, message):
    games = _weekly(4).assign(date=lambda g: g["when"].dt.strftime("%m/%d/%Y"))
    games.loc[7, "date"] = bad
    with pytest.raises(ValueError, match=message):
        games_features(games, **{**_WEEKLY, "time": "date"})


def test_one_date_among_seasons_is_the_value_named():
    # The column was read as dates when any value looked like one, so the
    # first season was blamed for not being a date (review).
    games = _weekly(4).assign(season="2018-19")
    games.loc[5, "season"] = "2019-08-01"
    with pytest.raises(ValueError, match=r"time of game 5 = '2019-08-01' is a date, while most "
                                         r"of the time column 'season' is not \(e.g. '2018-19'\)"):
        games_features(games, **{**_WEEKLY, "time": "season"})


def test_labels_of_an_unknown_order_are_refused_and_numbers_as_text_are_numbers():
    games = _weekly(12)
    weeks = np.repeat(np.arange(1, 13), 2)
    with pytest.raises(ValueError, match=r"the time column 't' holds labels such as 'Week 1' "
                                         r"whose order is not known \(time of game 0\)"):
        games_features(games.assign(t=[f"Week {w}" for w in weeks]), **_WEEKLY)
    # Week "10" comes after "9", not before "2".
    _, _, _, info = games_features(games.assign(t=weeks.astype(str).astype(object)),
                                   **_WEEKLY)
    np.testing.assert_array_equal(info["period"], weeks - 1)
    with pytest.raises(ValueError, match="could be day/month or month/day"):
        games_features(games.assign(t=games["when"].dt.strftime("%d/%m/%Y").str.replace(
            r"^\d\d", "01", regex=True)), **_WEEKLY)


def test_integer_periods_keep_their_gaps_and_consecutive_ones_are_unchanged():
    games = pd.DataFrame({"home": ["A", "A", "A"], "away": ["B", "B", "B"],
                          "res": ["H", "D", "A"], "week": [1, 2, 10]})
    kwargs = dict(first="home", second="away", result="res",
                  outcome_map={"H": -1, "D": 0, "A": 1}, time="week")
    X, _, _, info = games_features(games, **kwargs)
    np.testing.assert_array_equal(info["period"], [0, 1, 9])
    since = GAME_FEATURES.index("periods_since_last_game")
    np.testing.assert_array_equal(X[:, 0, since], [0, 1, 8])
    # Glicko's deviation grows over the 8 idle weeks as over 8 idle days.
    dated = games.assign(week=pd.Timestamp("2024-01-01") + pd.to_timedelta(games["week"], "D"))
    X_days, _, _, _ = games_features(dated, **kwargs)
    np.testing.assert_array_equal(X, X_days)
    rd = GAME_FEATURES.index("glicko_rd")
    consecutive, _, _, _ = games_features(games.assign(week=[1, 2, 3]), **kwargs)
    assert X[2, 0, rd] > consecutive[2, 0, rd]
    # Consecutive seasons: the same features as numbers 0, 1, 2, ... and as
    # season labels (periods counted from the first, one a season).
    seasons = _league(90).assign(season=np.repeat([1978, 1979, 1980], 30))
    kwargs = dict(first="home", second="away", result="result",
                  result_map={"H": 1, "D": 0.5, "A": 0}, time="season")
    X, _, _, info = games_features(seasons, **kwargs)
    np.testing.assert_array_equal(info["period"], np.repeat([0, 1, 2], 30))
    labels = seasons["season"].map(lambda year: f"{year}-{year % 100 + 1:02d}")  # 1978-79
    for same in (seasons["season"] - 1978, labels):
        np.testing.assert_array_equal(games_features(seasons.assign(season=same), **kwargs)[0],
                                      X)


def test_an_int_id_and_the_same_id_as_a_float_are_one_player():
    games = pd.DataFrame({"home": [1, 2, 3, 1, 2, 3] * 5, "away": [2, 3, 1, 3, 1, 2] * 5,
                          "res": ["H", "D", "A", "H", "A", "D"] * 5,
                          "t": np.repeat(np.arange(10), 3)})
    kwargs = dict(first="home", second="away", result="res",
                  outcome_map={"H": -1, "D": 0, "A": 1}, time="t")
    X, _, _, info = games_features(games, **kwargs)
    X2, _, _, info2 = games_features(games.astype({"away": float}), **kwargs)
    assert info["first_games"].iloc[-1] == 18
    np.testing.assert_array_equal(X2, X)
    with pytest.raises(ValueError, match="on both sides .* a player cannot play itself"):
        games_features(games.assign(away=games["home"].astype(float)), **kwargs)


def test_fixtures_of_the_next_period_do_not_see_their_placeholder_results():
    # What the command line's message for games without a result promises: a
    # placeholder result of the next period's fixtures reaches none of them.
    import pandas as pd

    from svmcompare.datasets import games_features

    rng = np.random.default_rng(0)
    played = pd.DataFrame({"home": rng.choice(list("ABCD"), 40), "week": np.repeat(range(10), 4)})
    played["away"] = [{"A": "B", "B": "C", "C": "D", "D": "A"}[h] for h in played["home"]]
    played["result"] = rng.choice(["H", "D", "A"], 40)
    fixtures = pd.DataFrame({"home": ["A", "C"], "away": ["B", "D"], "week": [10, 10]})
    features = []
    for placeholder in ("H", "A"):
        games = pd.concat([played, fixtures.assign(result=placeholder)], ignore_index=True)
        X, *_ = games_features(games, first="home", second="away", result="result",
                               outcome_map={"H": -1, "D": 0, "A": 1}, time="week")
        features.append(X[-2:])
    np.testing.assert_array_equal(features[0], features[1])


def _season_with_goals(seed=0):
    rng = np.random.default_rng(seed)
    teams = list("ABCDEF")
    rows = [(week, h, a) for week, order in ((w, rng.permutation(teams)) for w in range(12))
            for h, a in zip(order[:3], order[3:], strict=True)]
    games = pd.DataFrame(rows, columns=["week", "home", "away"])
    games["hg"], games["ag"] = rng.poisson(1.4, len(games)), rng.poisson(1.1, len(games))
    games["result"] = np.where(games["hg"] > games["ag"], "H",
                               np.where(games["hg"] < games["ag"], "A", "D"))
    games["adv"] = -1.0
    return games


FIXTURE_ARGS = dict(first="home", second="away", result="result", time="week",
                    outcome_map={"H": -1, "D": 0, "A": 1}, advantage="adv",
                    points=("hg", "ag"), prior_games=2)


@pytest.mark.parametrize("time", ["week", "fractional", None])
def test_fixtures_of_several_periods_get_features_from_played_games_only(time):
    # The rest of a season: weeks 8-11 not played yet (a postponed game of
    # week 5 too).  Each fixture's features are those of a game of its week
    # featured from the played games before it alone (brute force, one
    # fixture at a time, last in its table); played games are unchanged,
    # also where periods are ranks of times (fractional) or rows (None).
    games = _season_with_goals()
    games["fractional"] = games["week"] + 0.25 * (np.arange(len(games)) % 3)
    args = {**FIXTURE_ARGS, "time": time}
    fixture = (games["week"] >= 8).to_numpy().copy()
    fixture[15] = True  # week 5
    table = games.copy()
    table.loc[fixture, ["result", "hg", "ag"]] = [None, np.nan, np.nan]
    X, y, context, info = games_features(table, unplayed="fixtures", **args)
    assert np.isnan(y[fixture]).all() and set(y[~fixture]) <= {-1.0, 0.0, 1.0}
    np.testing.assert_array_equal(info["played"], ~fixture)
    played = games[~fixture]
    Xp, yp, _, _ = games_features(played, **args)
    np.testing.assert_array_equal(X[~fixture], Xp)
    np.testing.assert_array_equal(y[~fixture], yp)
    for k in np.flatnonzero(fixture):
        before = played.index < k if time is None else played[time] < games.loc[k, time]
        alone = pd.concat([played[before], games.loc[[k]]], ignore_index=True)
        Xk, *_ = games_features(alone, **args)
        np.testing.assert_allclose(X[k], Xk[-1], rtol=0, atol=1e-12, err_msg=str(k))
    # Placeholder results in the fixtures' cells would have reached later weeks.
    filled = games_features(games, **args)[0]
    assert not np.array_equal(filled[fixture], X[fixture])


def test_a_missing_result_is_named_unless_fixtures_are_asked_for():
    games = _season_with_goals()
    games.loc[7, "result"] = ""
    with pytest.raises(ValueError, match="game 7 has no result.*unplayed='fixtures'"):
        games_features(games, **FIXTURE_ARGS)
    with pytest.raises(ValueError, match="unplayed must be"):
        games_features(games, unplayed="skip", **FIXTURE_ARGS)
    games.loc[7, "result"] = "X"  # present but unmapped: named by its game
    with pytest.raises(ValueError, match="result of game 7 is 'X'"):
        games_features(games, unplayed="fixtures", **FIXTURE_ARGS)


def test_a_fixtures_score_if_given_is_not_read():
    from svmcompare.datasets.chess import history_features

    table = pd.DataFrame({"white": list("abab"), "black": list("bcca"),
                          "score": [1.0, 0.5, 1.0, 0.0], "period": [0, 1, 2, 3]})
    played = np.array([True, True, False, True])
    blank = table.assign(score=np.where(played, table["score"], np.nan))
    np.testing.assert_array_equal(history_features(table, played=played),
                                  history_features(blank, played=played))


def test_iso_dates_among_day_first_dates_and_two_digit_dashed_dates():
    from svmcompare.datasets.games import read_times

    days = pd.date_range("2020-01-04", periods=12, freq="7D")
    # An ISO date in a day-first column (an --until bound read with it) stays ISO.
    column = pd.Series(list(days.strftime("%d/%m/%y")) + ["2020-03-01"])
    times = read_times(column)
    np.testing.assert_array_equal(times.iloc[:-1], days)
    assert times.iloc[-1] == pd.Timestamp("2020-03-01")
    # 20-01-04: 4 January 2020 or 20 January 2004: the reading that puts the
    # rows in time order (pandas read day-first and scrambled the season).
    for spelling in ("%y-%m-%d", "%d-%m-%y"):
        np.testing.assert_array_equal(read_times(pd.Series(days.strftime(spelling))), days)
    shuffled = pd.Series(days.strftime("%y-%m-%d")[[3, 0, 5, 1, 2, 4, 6, 7, 8, 9, 10, 11]])
    with pytest.raises(ValueError, match="read as day-month-year or year-month-day and "
                                         "nothing tells which"):
        read_times(shuffled)
    with pytest.raises(ValueError, match="among dates written otherwise"):
        read_times(pd.Series(["20-01-04", "2020-01-11"]))


def test_dates_with_utc_offsets_are_local_times_or_utc_when_mixed():
    from svmcompare.datasets.games import read_times

    # One offset: its local times (an --until bound without an offset reads alike).
    one = read_times(pd.Series(["2020-01-04T00:00:00+01:00", "2020-01-11T00:00:00+01:00",
                                "2020-03-01"]))
    assert list(one) == [pd.Timestamp("2020-01-04"), pd.Timestamp("2020-01-11"),
                         pd.Timestamp("2020-03-01")]
    # Several offsets: one timeline, UTC's (pandas refused the column).
    mixed = read_times(pd.Series(["2020-01-04T10:00:00Z", "2020-01-04T12:00:00+01:00"]))
    assert list(mixed) == [pd.Timestamp("2020-01-04 10:00"), pd.Timestamp("2020-01-04 11:00")]


def test_a_unix_clock_as_game_times_is_named():
    """Every second a rating period: Glicko's deviations at their ceiling for
    everyone; the warning says so and how to pass dates."""
    games = pd.DataFrame({"a": [0, 1, 2, 0], "b": [1, 2, 0, 2], "r": ["H", "D", "A", "H"],
                          "t": 1_600_000_000 + 86_400 * np.arange(4)})
    with pytest.warns(UserWarning, match=r"the time column 't' holds integers.*Unix clock"):
        games_features(games, first="a", second="b", result="r",
                       outcome_map={"H": -1, "D": 0, "A": 1}, time="t")


def test_an_advantage_given_as_values_not_a_column_name_is_named():
    """A Series for advantage was printed whole as if it were a column name."""
    games = pd.DataFrame({"a": ["x", "y"], "b": ["y", "x"], "r": [1.0, 0.5],
                          "home": [1, -1]})
    for advantage in (games["home"], games["home"].to_numpy(), [1, -1]):
        with pytest.raises(TypeError, match="advantage must name a column of games .* got a "
                                            f"{type(advantage).__name__}: add it to the table"):
            games_features(games, first="a", second="b", result="r", result_map="score",
                           advantage=advantage)
    X, y, context, _ = games_features(games, first="a", second="b", result="r",
                                      result_map="score", advantage="home")
    assert context[:, 0].tolist() == [1.0, -1.0]
