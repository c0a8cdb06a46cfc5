"""One outcome convention everywhere (issue 36, item 2): the same table and
the same outcome map give the same labels through every entry point that
reads an outcome column, and the misreadable 'sign' shortcut is refused."""

import numpy as np
import pandas as pd
import pytest

from svmcompare import pairs_from_frame
from svmcompare.datasets import games_features
from svmcompare.io import PairColumns, parse_outcome_map, read_pairs


def _table():
    rng = np.random.default_rng(0)
    teams = np.array(["ARS", "CHE", "LIV", "TOT", "EVE"])
    a = rng.integers(0, 5, 60)
    b = (a + rng.integers(1, 5, 60)) % 5
    return pd.DataFrame({"day": np.arange(60), "home": teams[a], "away": teams[b],
                         "result": rng.choice(["H", "D", "A"], 60)})


def test_every_entry_point_reads_the_same_labels(tmp_path):
    games = _table()
    mapping = {"H": -1, "D": 0, "A": 1}  # x = the home team: a home win, x better
    expected = games["result"].map(mapping).to_numpy()
    from_frame = pairs_from_frame(games, a="home", b="away", outcome="result",
                                  outcome_map=mapping).y
    _, from_history, _, _ = games_features(games, first="home", second="away",
                                           result="result", outcome_map=mapping, time="day")
    games.to_csv(tmp_path / "g.csv", index=False)
    columns = PairColumns(a="home", b="away", outcome="result",
                          outcome_map=parse_outcome_map("H=-1,D=0,A=1"))
    _, from_file, _ = read_pairs(tmp_path / "g.csv", columns=columns)
    for labels in (from_frame, from_history, from_file):
        np.testing.assert_array_equal(labels, expected)
    # The older score map agrees: the first player's score 1 / 0.5 / 0 is label -1 / 0 / 1.
    _, from_scores, _, _ = games_features(games, first="home", second="away", result="result",
                                          result_map={"H": 1, "D": 0.5, "A": 0}, time="day")
    np.testing.assert_array_equal(from_scores, expected)


def test_the_sign_shortcut_and_an_unstated_map_are_refused():
    games = _table()
    games["sign"] = games["result"].map({"H": 1, "D": 0, "A": -1})
    with pytest.raises(ValueError, match="result_map='sign' .* is the opposite"):
        games_features(games, first="home", second="away", result="sign", result_map="sign")
    with pytest.raises(ValueError, match="Give one of outcome_map and result_map"):
        games_features(games, first="home", second="away", result="result")
    with pytest.raises(ValueError, match="Give one of outcome_map and result_map"):
        games_features(games, first="home", second="away", result="result",
                       outcome_map={"H": -1, "D": 0, "A": 1}, result_map="score")
    with pytest.raises(ValueError, match=r"outcome_map\['H'\] = True"):
        games_features(games, first="home", second="away", result="result",
                       outcome_map={"H": True, "D": 0, "A": -1})


def test_day_first_dates_are_read_without_warnings_and_ambiguous_ones_refused():
    import warnings

    games = _table().iloc[:4].copy()
    games["date"] = ["13/08/2016", "20/08/2016", "27/08/2016", "03/09/2016"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing leaks from pandas
        _, _, _, info = games_features(games, first="home", second="away", result="result",
                                       outcome_map={"H": -1, "D": 0, "A": 1}, time="date")
    np.testing.assert_array_equal(info["period"], [0, 7, 14, 21])  # days since the first
    games["date"] = ["01/02/2016", "02/03/2016", "03/04/2016", "04/05/2016"]
    with pytest.raises(ValueError, match="could be day/month or month/day; write them as "
                                         "YYYY-MM-DD"):
        games_features(games, first="home", second="away", result="result",
                       outcome_map={"H": -1, "D": 0, "A": 1}, time="date")


def test_a_game_with_a_missing_player_is_refused_not_played_by_nan():
    games = _table()
    games.loc[5, "away"] = None
    with pytest.raises(ValueError, match="game 5, column away: the player's id is missing"):
        games_features(games, first="home", second="away", result="result",
                       outcome_map={"H": -1, "D": 0, "A": 1}, time="day")
