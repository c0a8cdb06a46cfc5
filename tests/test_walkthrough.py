"""The README's command-line walk-through: from a match table alone to a
later season's log-loss, the numbers it quotes (issue 36, item 3)."""

import re
import shlex
from pathlib import Path

import numpy as np
import pytest

from svmcompare.cli import main

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_walkthrough_predicts_a_later_season_with_the_quoted_log_loss(tmp_path, capsys,
                                                                         monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = README.read_text()
    quoted = re.search(r"season-4 log-loss of (\d\.\d{4}) against (\d\.\d{4}) for the "
                       r"training frequencies", text)
    assert quoted, "the README no longer quotes the walk-through's log-loss"
    commands = [line for line in re.search(r"from the match table only.*?```bash\n(.*?)```",
                                           text, re.S).group(1).replace("\\\n", " ").splitlines()]
    ran = 0
    for line in commands:
        line = shlex.split(line.split("#")[0])
        if not line or line[0] != "svmcompare" or line[1] == "predict":
            continue
        if line[1] == "fit":
            line.append("--no-progress")
        assert main(line[1:]) == 0, line
        ran += 1
    assert ran == 4  # league, features, fit, evaluate
    out = capsys.readouterr().out
    model = re.search(r"^model\s+(\d\.\d{4})", out, re.M).group(1)
    frequencies = re.search(r"^training frequencies\s+(\d\.\d{4})", out, re.M).group(1)
    assert (model, frequencies) == quoted.groups()
    assert "pairs 240" in out  # season 4 only


def test_row_filters_and_the_features_command_say_what_is_wrong(tmp_path, capsys):
    import pandas as pd

    from svmcompare.datasets import make_league

    matches, _ = make_league(n_teams=6, n_seasons=3, random_state=0)
    matches.to_csv(tmp_path / "m.csv", index=False)
    features = str(tmp_path / "f.csv")
    assert main(["features", str(tmp_path / "m.csv"), "--a", "home", "--b", "away",
                 "--outcome", "result", "--outcome-map", "H=-1,D=0,A=1", "--time", "season",
                 "--advantage", "-1", "-o", features]) == 0
    written = pd.read_csv(features)
    assert (written["ctx_advantage"] == -1).all() and set(written["y"]) <= {-1, 0, 1}
    assert list(written["home"]) == list(matches["home"])  # the table's own columns first
    model = str(tmp_path / "m.skops")
    assert main(["fit", features, "--until", "season=2", "--kernel", "linear",
                 "--model", model]) == 0
    assert main(["predict", model, features, "--after", "season=2",
                 "-o", str(tmp_path / "p.csv")]) == 0
    predicted = pd.read_csv(tmp_path / "p.csv")
    assert (predicted["season"] == 3).all() and len(predicted) == (matches["season"] == 3).sum()
    capsys.readouterr()
    assert main(["evaluate", model, features, "--after", "season=9"]) == 2
    assert "keep no row" in capsys.readouterr().err
    assert main(["evaluate", model, features, "--until", "round=3"]) == 2
    assert "--until 'round=3': write COLUMN=VALUE with a time or period column of f.csv" in \
        capsys.readouterr().err


def test_the_features_command_adds_points_features(tmp_path, capsys, monkeypatch):
    import pandas as pd

    from svmcompare.datasets import POINTS_FEATURES

    monkeypatch.chdir(tmp_path)
    assert main(["league", "--out", "league"]) == 0
    matches = pd.read_csv("league/matches.csv")
    common = ["league/matches.csv", "--a", "home", "--b", "away", "--outcome", "result",
              "--outcome-map", "H=-1,D=0,A=1", "--time", "season", "--advantage", "home_adv"]
    out = str(tmp_path / "f.csv")
    assert main(["features", *common, "--points", "home_goals", "away_goals", "-o", out]) == 0
    written = pd.read_csv(out)
    for side in "ab":
        assert all(f"{side}_{name}" in written.columns for name in POINTS_FEATURES)
    later = matches["season"] > 1
    # From the second season on every side has earlier goals (zeros would mean none read).
    assert written.loc[later, "a_form_for"].gt(0).all()
    assert main(["features", *common, "--points", "home_goals", "nope", "-o", out]) == 2
    assert "no column 'nope'" in capsys.readouterr().err
    # The README's season-4 log-loss with --points.
    quoted = re.search(r"season 4 of the walk-through: (\d\.\d{4}) with `--points",
                       README.read_text())
    assert quoted, "the README no longer quotes the log-loss with --points"
    assert main(["fit", out, "--auto", "--probability", "--groups", "season", "--until",
                 "season=3", "--model", "m.skops", "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["evaluate", "m.skops", out, "--after", "season=3"]) == 0
    model = re.search(r"^model\s+(\d\.\d{4})", capsys.readouterr().out, re.M).group(1)
    assert model == quoted.group(1)


def test_the_features_command_takes_a_cold_start_prior(tmp_path, monkeypatch, capsys):
    import pandas as pd

    from svmcompare.datasets import games_features

    monkeypatch.chdir(tmp_path)
    assert main(["league", "--out", "league"]) == 0
    common = ["league/matches.csv", "--a", "home", "--b", "away", "--outcome", "result",
              "--outcome-map", "H=-1,D=0,A=1", "--time", "season", "--advantage", "home_adv",
              "--points", "home_goals", "away_goals"]
    assert main(["features", *common, "--prior-games", "2", "-o", "p.csv"]) == 0
    assert main(["features", *common, "-o", "f.csv"]) == 0
    with_prior, without = pd.read_csv("p.csv"), pd.read_csv("f.csv")
    # The first season: nobody has played, so without the prior every mean is 0
    # and with it the population's (neutral before any game: a third of each result).
    first = with_prior["season"] == with_prior["season"].min()
    assert (without.loc[first, "a_draw_share"] == 0).all()
    assert with_prior.loc[first, "a_draw_share"].iloc[0] == pytest.approx(1 / 3)
    # The file is what games_features(prior_games=2) gives.
    matches = pd.read_csv("league/matches.csv")
    X, _, _, _ = games_features(matches, first="home", second="away", result="result",
                                outcome_map={"H": -1, "D": 0, "A": 1}, time="season",
                                advantage="home_adv", points=("home_goals", "away_goals"),
                                prior_games=2.0)
    np.testing.assert_allclose(with_prior["a_win_share"], X[:, 0, 7])
    assert main(["features", *common, "--prior-games", "-1", "-o", "x.csv"]) == 2
    assert "prior_games" in capsys.readouterr().err
