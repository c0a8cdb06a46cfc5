"""Chess games: the loader's cleaning, and features that use only earlier periods."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from svmcompare.datasets import chess_features, load_chess_games
from svmcompare.datasets.chess import PLAYER_FEATURES

LICHESS = (Path(__file__).resolve().parents[3] / "shared" / "data" / "chess"
           / "lichess_kaggle_games" / "games.csv")


def random_games(n=300, n_players=12, n_days=40, seed=0):
    rng = np.random.default_rng(seed)
    white = rng.integers(0, n_players, n)
    black = (white + rng.integers(1, n_players, n)) % n_players
    day = np.sort(rng.integers(0, n_days, n))
    time = pd.Timestamp("2017-01-01") + pd.to_timedelta(day, unit="D") + pd.to_timedelta(
        rng.integers(0, 86_000, n), unit="s")
    return pd.DataFrame({"time": time, "white": [f"p{w}" for w in white],
                         "black": [f"p{b}" for b in black],
                         "score": rng.choice([0.0, 0.5, 1.0], n, p=[0.45, 0.1, 0.45])})


def test_loader_cleans_both_layouts(tmp_path):
    generic = tmp_path / "games.csv"
    generic.write_text("time,white,black,result\n2017-01-02,a,b,1-0\n2017-01-01,b,c,1/2-1/2\n"
                       "2017-01-03,c,c,0-1\n2017-01-01,b,c,1/2-1/2\n")
    games = load_chess_games(generic)
    assert list(games["white"]) == ["b", "a"]  # sorted by time; duplicate and self game gone
    assert list(games["score"]) == [0.5, 1.0]
    assert games.attrs["dropped"] == {"duplicate": 1, "self_game": 1}
    lichess = tmp_path / "lichess.csv"
    lichess.write_text("id,created_at,white_id,black_id,winner,white_rating,black_rating\n"
                       "x1,1.50421E+12,a,b,black,1500,1400\nx2,1504100000000,b,a,draw,1410,1490\n"
                       "x1,1.50421E+12,a,b,black,1500,1400\n")
    games = load_chess_games(lichess)
    assert list(games["id"]) == ["x2", "x1"] and list(games["score"]) == [0.5, 0.0]
    assert games["time"].iloc[1] == pd.Timestamp(1.50421e12, unit="ms")
    bad = tmp_path / "bad.csv"
    bad.write_text("time,white,black,result\n2017-01-02,a,b,2-0\n")
    with pytest.raises(ValueError, match="result of game 0 is '2-0'"):
        load_chess_games(bad)
    bad.write_text("when,white,black,result\n2017-01-02,a,b,1-0\n")
    with pytest.raises(ValueError, match=r"no column\(s\) \['time'\]"):
        load_chess_games(bad)
    with pytest.raises(FileNotFoundError):
        load_chess_games(tmp_path / "nothing.csv")


def test_features_count_only_earlier_periods():
    games = random_games()
    X, y, info = chess_features(games)
    assert X.shape == (300, 2, len(PLAYER_FEATURES)) and np.all(np.isfinite(X))
    np.testing.assert_array_equal(y, np.rint(1 - 2 * games["score"]))
    col = {name: k for k, name in enumerate(PLAYER_FEATURES)}
    day = info["period"].to_numpy()
    elo = X[:, :, col["elo"]]
    for g in range(0, 300, 7):  # brute force over every earlier game of both players
        for side, player in ((0, games["white"][g]), (1, games["black"][g])):
            wins = draws = losses = upsets = 0
            for h in np.flatnonzero(day < day[g]):
                if player not in (games["white"][h], games["black"][h]):
                    continue
                me = 0 if games["white"][h] == player else 1
                s = games["score"][h] if me == 0 else 1 - games["score"][h]
                wins, draws, losses = wins + (s == 1), draws + (s == 0.5), losses + (s == 0)
                upsets += s == 1 and elo[h, 1 - me] > elo[h, me]
            count = wins + draws + losses
            row = X[g, side]
            assert row[col["games"]] == count and row[col["wins"]] == wins
            assert row[col["draws"]] == draws and row[col["losses"]] == losses
            assert row[col["upset_win_share"]] == pytest.approx(upsets / max(count, 1))
            assert row[col["moves_first"]] == (side == 0)


def test_no_information_from_the_future():
    games = random_games(seed=1)
    X, _, info = chess_features(games)
    cut = 20
    changed = games.copy()
    future = info["period"].to_numpy() >= cut
    rng = np.random.default_rng(5)
    changed.loc[future, "score"] = rng.choice([0.0, 0.5, 1.0], future.sum())
    X2, _, _ = chess_features(changed)
    # Games up to and including period `cut` see nothing of period `cut` or later.
    np.testing.assert_array_equal(X[info["period"] <= cut], X2[info["period"] <= cut])
    assert not np.array_equal(X[info["period"] > cut], X2[info["period"] > cut])
    # A player's first game has the default features.
    first = ~games["white"].duplicated() & ~games["white"].isin(games["black"][:0])
    g = int(np.flatnonzero(first)[0])
    assert X[g, 0, 0] == 1200.0 and X[g, 0, 4] == 0


@pytest.mark.skipif(not LICHESS.is_file(), reason="the chess data is not beside the repository")
def test_real_lichess_counts():
    games = load_chess_games(LICHESS)
    assert len(games) == 19_111  # 20,058 rows - 945 repeated ids - 2 self games
    assert games["time"].is_monotonic_increasing
    assert (games["score"] == 0.5).sum() == 888
