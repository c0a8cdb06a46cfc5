"""Tables given to pairs_from_frame, games_features and make_league: ids,
periods, feature and outcome columns read as meant, or refused by name."""

import warnings

import numpy as np
import pandas as pd
import pytest

from svmcompare import pairs_from_frame
from svmcompare.datasets import GAME_FEATURES, chess_features, games_features, make_league

OUTCOMES = {"H": -1, "D": 0, "A": 1}


def _ring():
    """Three teams, each at home once; strength 10 x the team's id."""
    matches = pd.DataFrame({"home": [0, 1, 2], "away": [1, 2, 0]})
    teams = pd.DataFrame({"team_id": [2, 0, 1], "strength": [30.0, 10.0, 20.0]})
    return matches, teams


def test_a_default_row_index_is_not_read_as_the_items_ids():
    # Row 0 is team 2: read as team 0 it gave team 0 team 2's strength.
    matches, teams = _ring()
    with pytest.raises(ValueError, match=r"no id column 'id' .*row numbers.*id_column="):
        pairs_from_frame(matches, teams, a="home", b="away")
    with pytest.raises(ValueError, match="row numbers"):  # a slice's row numbers too
        pairs_from_frame(matches.iloc[1:], teams.iloc[1:], a="home", b="away")
    by_column = pairs_from_frame(matches, teams, a="home", b="away", id_column="team_id")
    assert by_column.feature_names == ["strength"]
    np.testing.assert_array_equal(by_column.X[:, :, 0], [[10.0, 20.0], [20.0, 30.0],
                                                         [30.0, 10.0]])
    # Ids set as the index, by name or as an index of other values, are the ids.
    by_index = pairs_from_frame(matches, teams.set_index("team_id"), a="home", b="away")
    np.testing.assert_array_equal(by_index.X, by_column.X)
    named = teams.sort_values("team_id").reset_index(drop=True).rename_axis("team")
    np.testing.assert_array_equal(
        pairs_from_frame(matches, named[["strength"]], a="home", b="away").X, by_column.X)


def _seasons():
    matches = pd.DataFrame({"a": ["x", "y", "new"], "b": ["y", "x", "x"], "season": [1, 2, 1]})
    items = pd.DataFrame({"id": ["x", "y", "x", "y"], "season": [1, 1, 2, 2],
                          "f": [0.0, 2.0, 10.0, 20.0]})
    return matches, items


@pytest.mark.parametrize("sparse", [False, True])
def test_an_unknown_id_gets_the_mean_item_of_its_own_period(sparse):
    # A newcomer of season 1 was given the mean of both seasons (8), season 2's included.
    matches, items = _seasons()
    with pytest.warns(UserWarning, match="'new'"):
        X = pairs_from_frame(matches, items, a="a", b="b", period="season", unknown="mean",
                             sparse=sparse).X
    X = X.toarray() if sparse else X[:, 0]
    np.testing.assert_array_equal(X[:, 0], [0.0, 20.0, 1.0])  # x, y of season 2, the mean
    later = matches.assign(season=[1, 2, 2])
    with pytest.warns(UserWarning):
        X = pairs_from_frame(later, items, a="a", b="b", period="season", unknown="mean").X
    assert X[2, 0, 0] == 15.0


def test_a_period_without_items_has_no_mean_item():
    matches, items = _seasons()
    with warnings.catch_warnings(), pytest.raises(ValueError, match="no row of season 3"):
        warnings.simplefilter("ignore", UserWarning)
        pairs_from_frame(matches.assign(season=[1, 2, 3]), items, a="a", b="b",
                         period="season", unknown="mean")


def test_features_may_name_one_column_and_a_text_column_is_named():
    matches, teams = _ring()
    teams = teams.assign(name=["c", "a", "b"])
    one = pairs_from_frame(matches, teams, a="home", b="away", id_column="team_id",
                           features="strength")
    assert one.feature_names == ["strength"]  # not split into letters
    with pytest.raises(TypeError, match="items feature column 'name' must hold numbers"):
        pairs_from_frame(matches, teams, a="home", b="away", id_column="team_id",
                         features=["strength", "name"])


def test_a_true_false_outcome_column_is_told_how_to_read():
    matches, teams = _ring()
    won = matches.assign(home_won=[True, False, True])
    with pytest.raises(ValueError, match=r"outcome True is not in outcome_map .*"
                                         r"'home_won' holds True / False.*astype\(int\)"):
        pairs_from_frame(won, teams, a="home", b="away", id_column="team_id",
                         outcome="home_won", outcome_map={1: -1, 0: 1})
    games = won.assign(home=["a", "b", "c"], away=["b", "c", "a"])
    with pytest.raises(ValueError, match=r"'home_won' holds True / False.*astype\(int\)"):
        games_features(games, first="home", second="away", result="home_won",
                       outcome_map={1: -1, 0: 1})


def _games(n=4):
    return pd.DataFrame({"h": ["A", "B", "C", "A"][:n], "a": ["B", "C", "A", "C"][:n],
                         "r": ["H", "D", "A", "H"][:n]})


def test_a_missing_boolean_advantage_is_named():
    games = _games().assign(adv=pd.array([True, None, False, True], dtype="boolean"))
    with pytest.raises(ValueError, match="advantage of game 1 is missing"):
        games_features(games, first="h", second="a", result="r", outcome_map=OUTCOMES,
                       advantage="adv")
    games["adv"] = games["adv"].fillna(False)
    context = games_features(games, first="h", second="a", result="r", outcome_map=OUTCOMES,
                             advantage="adv")[2]
    np.testing.assert_array_equal(context[:, 0], [1.0, 0.0, 0.0, 1.0])


def test_an_advantage_column_named_by_a_number_is_the_column():
    games = _games()
    games.columns = range(3)  # a table read without a header
    games[3] = [1, -1, 0, 1]
    context = games_features(games, first=0, second=1, result=2, outcome_map=OUTCOMES,
                             advantage=3)[2]
    np.testing.assert_array_equal(context[:, 0], [1.0, -1.0, 0.0, 1.0])
    # A number that names no column is still one advantage for every game.
    context = games_features(games, first=0, second=1, result=2, outcome_map=OUTCOMES,
                             advantage=-1)[2]
    np.testing.assert_array_equal(context[:, 0], [-1.0] * 4)


@pytest.mark.parametrize("period, times, expected", [
    # 3-day bins counted from 1970-01-01: 31 Dec - 2 Jan, 3 - 5 Jan, 6 - 8 Jan.
    ("3D", ["2020-01-01", "2020-01-02", "2020-01-03", "2020-01-06"], [0, 0, 1, 2]),
    ("12h", ["2020-01-01 01:00", "2020-01-01 11:00", "2020-01-01 13:00", "2020-01-02 02:00"],
     [0, 0, 1, 2]),
    ("2W", ["2020-01-13", "2020-01-20", "2020-01-27", "2020-02-10"], [0, 0, 1, 2]),
    ("3M", ["2020-01-15", "2020-03-31", "2020-04-01", "2020-12-01"], [0, 0, 1, 3]),
])
def test_a_multiple_of_a_period_groups_that_many(period, times, expected):
    # Each period was read as its base unit: "3D" as days.
    games = _games().assign(t=times)
    X, _, _, info = games_features(games, first="h", second="a", result="r",
                                   outcome_map=OUTCOMES, time="t", period=period)
    np.testing.assert_array_equal(info["period"], expected)
    # A game never sees another of its own period.
    assert X[1, 0, GAME_FEATURES.index("games")] == 0
    chess = pd.DataFrame({"time": pd.to_datetime(times), "white": games["h"],
                          "black": games["a"], "score": [1.0, 0.5, 0.0, 1.0]})
    np.testing.assert_array_equal(chess_features(chess, period=period)[2]["period"], expected)


def test_a_repeated_column_of_the_games_table_is_named():
    games = pd.concat([_games(), _games()[["r"]]], axis=1)
    with pytest.raises(ValueError, match="games repeats the column name 'r'; rename one"):
        games_features(games, first="h", second="a", result="r", outcome_map=OUTCOMES)


@pytest.mark.parametrize("kwargs, message", [
    ({"home_advantage": np.nan}, r"home_advantage must be a number in \[-5, 5\]; got nan"),
    ({"home_advantage": np.inf}, "home_advantage must be a number in"),
    ({"home_advantage": 1e6}, "home_advantage must be a number in"),
    ({"home_advantage": "0.3"}, "home_advantage must be a number in"),
    ({"n_teams": np.nan}, "n_teams must be an integer >= 2; got nan"),
    ({"n_teams": 2.5}, "n_teams must be an integer >= 2"),
    ({"n_teams": "16"}, "n_teams must be an integer >= 2"),
    ({"n_seasons": np.inf}, "n_seasons must be an integer >= 1; got inf"),
    ({"neutral_share": np.nan}, r"neutral_share must be a number in \[0, 1\]"),
])
def test_make_league_names_a_bad_argument(kwargs, message):
    with pytest.raises(ValueError, match=message):
        make_league(**kwargs)


def test_make_league_refuses_a_league_that_cannot_fit_in_memory():
    # Built first, 10 million teams filled the memory until the process was killed.
    from svmcompare._validation import available_memory

    if available_memory() is None:
        pytest.skip("the memory available is not known here")
    with pytest.raises(ValueError, match=r"10000000 teams over 4 season\(s\) "
                                         r"\(399,999,960,000,000 matches\) would take"):
        make_league(n_teams=10**7)


def test_make_league_takes_whole_numbers_of_any_type():
    matches, teams = make_league(n_teams=np.int64(4), n_seasons=2.0, home_advantage=-0.5,
                                 random_state=0)
    assert len(matches) == 4 * 3 * 2 and len(teams) == 4
