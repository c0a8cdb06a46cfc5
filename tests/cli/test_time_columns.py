"""Time columns on the command line: features, --until / --after and rolling
read times by the library's one rule (datasets.games.time_keys), name the
line of a value they cannot read, and never order text as text."""

import argparse

import numpy as np
import pandas as pd
import pytest

from svmcompare.cli import main
from svmcompare.cli.options import rows_of
from svmcompare.persistence import load_model

GAME = ["--a", "home", "--b", "away", "--outcome", "result", "--outcome-map", "H=-1,D=0,A=1"]


def _weekly(path, n_weeks=30, seed=0, **columns):
    """Two games a week from 2020-01-04 (A-B, C-D), with ``columns`` made
    from the dates; written to ``path``."""
    rng = np.random.default_rng(seed)
    days = pd.Series(pd.date_range("2020-01-04", periods=n_weeks, freq="7D").repeat(2))
    frame = pd.DataFrame({"home": np.tile(["A", "C"], n_weeks),
                          "away": np.tile(["B", "D"], n_weeks),
                          "result": rng.choice(["H", "D", "A"], 2 * n_weeks)})
    for name, make in columns.items():
        frame[name] = make(days)
    frame.to_csv(path, index=False)
    return frame, days


def _rows(frame, **options):
    args = argparse.Namespace(**{"until": None, "after": None, **options})
    return rows_of(args, frame, "g.csv")


def test_until_and_after_compare_dates_as_dates_in_the_columns_day_order(tmp_path, capsys):
    frame, days = _weekly(tmp_path / "g.csv", n_weeks=60,
                          date=lambda d: d.dt.strftime("%d/%m/%Y"))
    # As text "31/03/2020" is after every day below 31 of any month and year.
    np.testing.assert_array_equal(_rows(frame, until="date=31/03/2020"), days <= "2020-03-31")
    # 01/03/2020 alone could be either; the column's 25/01 says day first.
    np.testing.assert_array_equal(_rows(frame, after="date=01/03/2020"), days > "2020-03-01")
    assert main(["fit", str(tmp_path / "g.csv"), *GAME, "--until", "date=31/03/2020",
                 "--kernel", "linear", "--model", str(tmp_path / "m.skops")]) == 0
    assert capsys.readouterr().out.startswith("26 pairs")
    with pytest.raises(ValueError, match=r"--until date=31/02/2020: '31/02/2020' is not a "
                                         r"date written as the values of 'date' in g.csv are"):
        _rows(frame, until="date=31/02/2020")


def test_until_reads_numbers_as_numbers_and_names_the_line_of_a_blank(tmp_path, capsys):
    rounds = pd.DataFrame({"round": ["1", "2", "9", "10", "11"]})
    np.testing.assert_array_equal(_rows(rounds, until="round=9"), [1, 1, 1, 0, 0])
    with pytest.raises(ValueError, match="labels such as 'Week 1' whose order is not known"):
        _rows(pd.DataFrame({"round": ["Week 1", "Week 2"]}), until="round=Week 1")
    frame, _ = _weekly(tmp_path / "g.csv", round=lambda d: np.arange(len(d)) // 2 + 1)
    frame = frame.astype({"round": object})
    frame.loc[7, "round"] = ""
    frame.to_csv(tmp_path / "g.csv", index=False)
    assert main(["fit", str(tmp_path / "g.csv"), *GAME, "--until", "round=9",
                 "--model", str(tmp_path / "m.skops")]) == 2
    assert "g.csv, line 9: no 'round' (1 row(s) without one), which --until needs in every " \
           "row" in capsys.readouterr().err


def test_features_reads_a_numeric_outcome_mapped_on_the_command_line(tmp_path, capsys):
    frame, _ = _weekly(tmp_path / "g.csv", week=lambda d: np.arange(len(d)) // 2)
    frame["res"] = frame["result"].map({"H": 1, "D": 0, "A": -1})  # 1: a home win
    frame.to_csv(tmp_path / "g.csv", index=False)
    out = tmp_path / "f.csv"
    assert main(["features", str(tmp_path / "g.csv"), "--a", "home", "--b", "away",
                 "--outcome", "res", "--outcome-map", "1=-1,0=0,-1=1", "--time", "week",
                 "-o", str(out)]) == 0
    written = pd.read_csv(out)
    np.testing.assert_array_equal(written["y"], -frame["res"])
    np.testing.assert_array_equal(written["res"], frame["res"])  # the column as it was


def test_features_names_the_line_of_an_impossible_date_and_of_a_game_without_result(
        tmp_path, capsys):
    frame, _ = _weekly(tmp_path / "g.csv", ymd=lambda d: d.dt.strftime("%Y%m%d"))
    frame.loc[10, "ymd"] = "20200231"
    frame.to_csv(tmp_path / "g.csv", index=False)
    command = ["features", str(tmp_path / "g.csv"), *GAME, "--time", "ymd",
               "-o", str(tmp_path / "f.csv")]
    assert main(command) == 2
    assert capsys.readouterr().err.strip() == (
        "svmcompare features: error: g.csv, line 12: ymd = 20200231 is not a date: YYYYMMDD "
        "numbers need a real month and day.")
    frame.loc[10, "ymd"] = "20200229"
    frame.loc[58:, "result"] = ""  # fixtures not played yet
    frame.to_csv(tmp_path / "g.csv", index=False)
    assert main(command) == 2
    err = capsys.readouterr().err
    assert "g.csv, line 60, column result: no result (2 row(s) without one" in err
    assert "--fixtures gives them features from the games played before them" in err


def test_features_reads_date_spellings_as_dates_and_refuses_labels(tmp_path, capsys):
    _weekly(tmp_path / "g.csv", date=lambda d: d.dt.strftime("%b %d, %Y"),
            week=lambda d: [f"Week {k}" for k in np.arange(len(d)) // 2 + 1])
    out = tmp_path / "f.csv"
    assert main(["features", str(tmp_path / "g.csv"), *GAME, "--time", "date",
                 "-o", str(out)]) == 0
    written = pd.read_csv(out)
    # As text, "Apr 04, 2020" came first: the first week had 12 earlier games.
    np.testing.assert_array_equal(written["a_games"], np.arange(60) // 2)
    capsys.readouterr()
    assert main(["features", str(tmp_path / "g.csv"), *GAME, "--time", "week",
                 "-o", str(out)]) == 2
    assert "the --time column 'week' holds labels such as 'Week 1' whose order is not known " \
           "(g.csv, line 2: week)" in capsys.readouterr().err


def test_rolling_orders_seasons_by_their_years(tmp_path, capsys):
    assert main(["league", "--out", str(tmp_path / "lg")]) == 0
    matches = pd.read_csv(tmp_path / "lg" / "matches.csv")
    # Seasons are read by their first year, not refused as labels of an unknown order.
    matches["label"] = matches["season"].map({1: "2008-09", 2: "2009-10", 3: "2010-11",
                                              4: "2011-12"})
    matches.to_csv(tmp_path / "m.csv", index=False)
    base = ["rolling", str(tmp_path / "m.csv"), *GAME, "--context", "home_adv", "--no-progress"]
    capsys.readouterr()
    assert main([*base, "--period", "season", "--first", "3", "-o", str(tmp_path / "a.csv")]) == 0
    assert main([*base, "--period", "label", "--first", "2010-11", "-o", str(tmp_path / "b.csv"),
                 "--ratings", str(tmp_path / "paths.csv")]) == 0
    by_season, by_label = pd.read_csv(tmp_path / "a.csv"), pd.read_csv(tmp_path / "b.csv")
    np.testing.assert_allclose(by_label["p_tie"], by_season["p_tie"])
    assert list(pd.read_csv(tmp_path / "paths.csv")["label"]) == ["2010-11", "2011-12"]


def test_review_fixes_of_the_time_rule(tmp_path, capsys):
    """The value that breaks a column's kind is named (not the first row); one
    impossible YYYYMMDD among dates is refused (it turned the column into
    plain numbers); a bound written otherwise than the column's dates is
    still a date; rolling's --first reads a date in the column's day order."""
    from svmcompare.datasets.games import time_keys

    with pytest.raises(ValueError, match="row 3 = '4a' is not one of the numbers"):
        time_keys(pd.Series(["1", "2", "3", "4a", "5"]))
    with pytest.raises(ValueError, match="row 3 = 20200100 is not a date"):
        time_keys(pd.Series([20200101, 20200131, 20200201, 20200100]))
    _weekly(tmp_path / "g.csv", ymd=lambda d: d.dt.strftime("%Y%m%d").astype(int),
            date=lambda d: d.dt.strftime("%d/%m/%Y"))
    capsys.readouterr()
    assert main(["fit", str(tmp_path / "g.csv"), *GAME, "--until", "ymd=2020-02-01",
                 "--model", str(tmp_path / "m.skops")]) == 0
    assert "10 pairs" in capsys.readouterr().out  # 4, 11, 18, 25 Jan, 1 Feb: 2 games each
    assert main(["rolling", str(tmp_path / "g.csv"), *GAME, "--period", "date",
                 "--first", "07/03/2020", "--no-progress", "-o", str(tmp_path / "r.csv")]) == 0
    replay = pd.read_csv(tmp_path / "r.csv")
    assert replay["date"].iloc[0] == "07/03/2020"  # the 7th of March, not the 3rd of July


def test_fixtures_of_the_rest_of_a_season_are_featured_fitted_around_and_predicted(
        tmp_path, capsys):
    # features --fixtures: the games without a result get features from the
    # played games and an empty y; fit keeps the played ones (--until) and
    # names a fixture it is given; predict --after reads the fixtures.
    frame, days = _weekly(tmp_path / "g.csv", n_weeks=40, week=lambda d: d.dt.isocalendar().week
                          + 53 * (d.dt.year - 2020))
    frame.loc[70:, "result"] = ""  # the last five weeks
    frame.to_csv(tmp_path / "g.csv", index=False)
    pairs, model = tmp_path / "f.csv", tmp_path / "m.skops"
    assert main(["features", str(tmp_path / "g.csv"), *GAME, "--time", "week", "--fixtures",
                 "-o", str(pairs)]) == 0
    assert "10 fixtures without a result (y empty)" in capsys.readouterr().out
    written = pd.read_csv(pairs)
    assert written["y"].isna().sum() == 10 and written["y"].iloc[:70].notna().all()
    last_played = int(frame.loc[69, "week"])
    assert main(["fit", str(pairs), "--kernel", "linear", "--probability",
                 "--model", str(model)]) == 0
    assert "note: 10 pair(s) without a label (column y, e.g. line 72: fixtures not played " \
        "yet) left out" in capsys.readouterr().err
    fitted = load_model(model)
    assert main(["fit", str(pairs), "--kernel", "linear", "--probability", "--until",
                 f"week={last_played}", "--model", str(model)]) == 0
    assert "without a label" not in capsys.readouterr().err
    # The same played pairs either way: the same model (to rounding: the kept
    # rows are read alone, the others filtered after reading).
    np.testing.assert_allclose(load_model(model).coef_, fitted.coef_, rtol=1e-10, atol=1e-14)
    for command in (["evaluate", str(model), str(pairs)],
                    ["rolling", str(pairs), "--period", "week", "--kernel", "linear",
                     "--first", str(last_played - 5), "-o", str(tmp_path / "r.csv")]):
        assert main(command) == 0, command
        assert "10 pair(s) without a label" in capsys.readouterr().err
    assert main(["predict", str(model), str(pairs), "--proba", "--after", f"week={last_played}",
                 "-o", str(tmp_path / "p.csv")]) == 0
    predicted = pd.read_csv(tmp_path / "p.csv")
    assert len(predicted) == 10
    np.testing.assert_allclose(predicted[["p_x_better", "p_tie", "p_xprime_better"]].sum(axis=1),
                               1.0, atol=1e-9)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_until_leaves_ids_of_later_rows_out_of_an_identities_model(tmp_path, capsys, kernel):
    # A team met only after --until gets no column: as a file of the kept rows alone.
    rng = np.random.default_rng(1)
    rows = [(s, *rng.choice(list("ABCDEF"), 2, replace=False), rng.choice(["H", "D", "A"]))
            for s in (1, 2, 3) for _ in range(60)]
    frame = pd.DataFrame(rows + [(4, "NEWCOMER", "A", "A")],
                         columns=["season", "home", "away", "result"])
    frame.to_csv(tmp_path / "all.csv", index=False)
    frame[frame["season"] <= 3].to_csv(tmp_path / "kept.csv", index=False)
    fitted = {}
    for name, extra in (("all", ["--until", "season=3"]), ("kept", [])):
        model = tmp_path / f"{name}.skops"
        assert main(["fit", str(tmp_path / f"{name}.csv"), *GAME, *extra, "--kernel", kernel,
                     "--class-weight", "balanced", "--model", str(model)]) == 0
        fitted[name] = load_model(model)
    assert list(fitted["all"].feature_names_in_) == [f"is_{t}" for t in "ABCDEF"]
    Z = np.eye(6)
    np.testing.assert_allclose(fitted["all"].rank(Z), fitted["kept"].rank(Z))
    capsys.readouterr()
    assert main(["predict", str(tmp_path / "all.skops"), str(tmp_path / "all.csv"), *GAME[:4],
                 "--after", "season=3", "-o", "-"]) == 2
    assert "'NEWCOMER'" in capsys.readouterr().err
    # The rows the fit kept are predicted and evaluated alone: the later id is not checked.
    for command in (["predict", str(tmp_path / "all.skops"), str(tmp_path / "all.csv"),
                     *GAME[:4], "--until", "season=3", "-o", str(tmp_path / "p.csv")],
                    ["evaluate", str(tmp_path / "all.skops"), str(tmp_path / "all.csv"), *GAME,
                     "--until", "season=3"]):
        assert main(command) == 0, command
    assert len(pd.read_csv(tmp_path / "p.csv")) == 180
    assert "pairs 180" in capsys.readouterr().out


def test_an_items_table_keeps_every_feature_whatever_the_kept_rows_use(tmp_path, capsys):
    # Features named like identities (is_...) of an --items table are features.
    rng = np.random.default_rng(2)
    teams = list("ABCDEF")
    pd.DataFrame({"id": teams, "is_big": [1, 0, 1, 0, 1, 0], "is_red": [0, 0, 1, 1, 0, 1],
                  "is_new": [0, 0, 0, 0, 0, 1]}).to_csv(tmp_path / "items.csv", index=False)
    rows = [(*rng.choice(teams[:5], 2, replace=False), rng.choice(["H", "D", "A"]))
            for _ in range(120)]
    pd.DataFrame(rows, columns=["home", "away", "result"]).to_csv(tmp_path / "m.csv",
                                                                  index=False)
    model = tmp_path / "m.skops"
    assert main(["fit", str(tmp_path / "m.csv"), "--items", str(tmp_path / "items.csv"), *GAME,
                 "--kernel", "linear", "--model", str(model)]) == 0
    assert list(load_model(model).feature_names_in_) == ["is_big", "is_red", "is_new"]


def test_rolling_auto_chooses_once_on_the_periods_before_the_first(tmp_path, capsys,
                                                                   monkeypatch):
    """rolling's default (linear, C = 1) is not what fit --auto would choose
    (a new user's replay: 1.0442 against 1.0403 with the choice carried over
    by hand); --auto chooses it on the earlier periods only and refits it."""
    from sklearn.base import clone
    from sklearn.model_selection import GroupKFold

    from svmcompare import SVMCompareCV, pairs_from_frame
    from svmcompare.datasets import make_league
    from svmcompare.temporal import periods_before_first, rolling_fit

    assert main(["league", "--out", str(tmp_path / "lg")]) == 0
    capsys.readouterr()
    base = ["rolling", str(tmp_path / "lg" / "matches.csv"), *GAME, "--context", "home_adv",
            "--period", "season", "--no-progress", "--auto"]
    assert main([*base, "--kernel", "rbf", "-o", str(tmp_path / "x.csv")]) == 2
    assert "--auto searches linear points only here" in capsys.readouterr().err
    assert main([*base, "--first", "2", "-o", str(tmp_path / "x.csv")]) == 2
    assert "which hold one period: folds need two" in capsys.readouterr().err
    for option in (["--tie-band", "pair"], ["--tol", "1e-8"], ["--link", "davidson"],
                   ["--C", "7"], ["--class-weight", "none"], ["--gamma", "2"]):
        assert main([*base, "--first", "3", *option, "-o", str(tmp_path / "x.csv")]) == 2
        assert f"{option[0]} " in (err := capsys.readouterr().err) and "applies without it" in err
    assert main([*base, "--first", "3", "-o", str(tmp_path / "auto.csv")]) == 0
    printed = capsys.readouterr().err
    assert "chosen once on the 480 results before the first predicted period" in printed
    # The same in Python: the search on seasons 1-2, its choice refitted each season.
    matches, _ = make_league(random_state=0)
    data = pairs_from_frame(matches, a="home", b="away", outcome="result",
                            outcome_map={"H": -1, "D": 0, "A": 1}, context="home_adv",
                            sparse=True)
    seasons = matches["season"].to_numpy()
    earlier = periods_before_first(seasons, 3)
    assert earlier.sum() == 480 and set(seasons[earlier]) == {1, 2}
    search = SVMCompareCV(probability=True, cv=GroupKFold(2), random_state=0).fit(
        data.X[earlier], data.y[earlier], context=data.context[earlier],
        groups=seasons[earlier])
    replay = rolling_fit(clone(search.best_estimator_), data.X, data.y, seasons,
                         context=data.context, first=3, progress=False)
    written = pd.read_csv(tmp_path / "auto.csv")
    np.testing.assert_allclose(written["p_tie"], replay.proba[replay.predicted][:, 1],
                               atol=1e-9)
    # With --half-life the search weighs the results as the refits do (a review:
    # it chose on unweighted results, then refitted under decay).
    seen = {}
    fit = SVMCompareCV.fit

    def recording(self, X, y, context=None, groups=None, sample_weight=None):
        seen["weight"] = sample_weight
        return fit(self, X, y, context=context, groups=groups, sample_weight=sample_weight)

    monkeypatch.setattr(SVMCompareCV, "fit", recording)
    assert main([*base, "--first", "3", "--half-life", "1", "-o", str(tmp_path / "d.csv")]) == 0
    np.testing.assert_allclose(np.unique(seen["weight"]), [0.5, 1.0])  # seasons 1 and 2


def test_rolling_ratings_of_a_features_table_is_refused_before_the_replay(tmp_path, capsys):
    """--ratings FILE on pairs of features wrote no file, said so in a note and
    exited 0 after the whole replay (a review)."""
    assert main(["league", "--out", str(tmp_path / "lg")]) == 0
    features = tmp_path / "f.csv"
    assert main(["features", str(tmp_path / "lg" / "matches.csv"), *GAME, "--time", "season",
                 "--advantage", "home_adv", "-o", str(features)]) == 0
    capsys.readouterr()
    for flag, out in (("--ratings", "r.csv"), ("--plot", "p.png")):
        assert main(["rolling", str(features), "--period", "season", "--no-progress",
                     flag, str(tmp_path / out), "-o", str(tmp_path / "x.csv")]) == 2
        err = capsys.readouterr().err
        assert f"{flag} follows items' ratings" in err and "rating paths need pairs of item " \
            "ids" in err
        assert not (tmp_path / "x.csv").exists()  # refused before the replay
    # --auto whose first fold trains on a first season (no history): the advice
    # is the command line's (a review followed the Python one and could not).
    assert main(["rolling", str(features), "--period", "season", "--no-progress", "--auto",
                 "--first", "3", "-o", str(tmp_path / "x.csv")]) == 2
    assert "every feature is constant" in (err := capsys.readouterr().err) and \
        "On the command line: give --first a later period" in err


def test_numeric_groups_are_read_as_numbers_as_python_holds_them():
    """GroupKFold deals groups to folds by size, then order: read as text ("10"
    before "9") the command line's folds, and its choice, differed from Python's
    on the same table (a review)."""
    from svmcompare.cli.options import groups_of

    extras = pd.DataFrame({"question": ["9", "10", "9", "1"], "judge": ["a", "b", "a", "c"]})
    args = argparse.Namespace(groups="question", auto=True, pairs="p.csv")
    groups = groups_of(args, extras)
    assert groups.tolist() == [9, 10, 9, 1] and groups.dtype.kind in "iuf"
    args.groups = "judge"
    assert groups_of(args, extras).tolist() == ["a", "b", "a", "c"]
