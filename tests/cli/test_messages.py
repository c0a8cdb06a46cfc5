"""Messages a user can act on (issue 36, item 4): command-line wording on the
command line, every unseen id named, what evaluate prints, log-loss as a
grid's criterion, and a degenerate-fit warning that says the model is usable."""

import numpy as np
import pandas as pd
import pytest

from svmcompare import SVMCompare
from svmcompare.cli import build_parser, main
from svmcompare.datasets import make_norm_pairs
from svmcompare.exceptions import DegenerateWarning


def _league(tmp_path, n=120, seed=0):
    rng = np.random.default_rng(seed)
    teams = [f"t{k}" for k in range(8)]
    a = rng.integers(0, 8, n)
    b = (a + rng.integers(1, 8, n)) % 8
    strength = np.linspace(-1, 1, 8)
    d = strength[b] - strength[a] - 0.3 + rng.logistic(size=n) * 0.5
    result = np.where(d > 0.5, "A", np.where(d < -0.5, "H", "D"))
    frame = pd.DataFrame({"home": np.array(teams)[a], "away": np.array(teams)[b],
                          "result": result, "adv": -1.0})
    frame.to_csv(tmp_path / "m.csv", index=False)
    items = pd.DataFrame({"id": teams, "u": strength + rng.normal(size=8) * 0.1,
                          "v": rng.normal(size=8)})
    items.to_csv(tmp_path / "items.csv", index=False)
    return ["--a", "home", "--b", "away"], ["--outcome", "result", "--outcome-map",
                                            "H=-1,D=0,A=1"]


def test_a_missing_context_is_asked_for_in_command_line_words(tmp_path, capsys):
    ids, outcome = _league(tmp_path)
    model = str(tmp_path / "m.skops")
    assert main(["fit", str(tmp_path / "m.csv"), *ids, *outcome, "--context", "adv",
                 "--model", model]) == 0
    capsys.readouterr()
    assert main(["predict", model, str(tmp_path / "m.csv"), *ids,
                 "-o", str(tmp_path / "p.csv")]) == 2
    err = capsys.readouterr().err
    assert "give them with --context COLUMNS" in err and "context=" not in err


def test_an_ids_file_without_items_for_an_items_model_says_add_items(tmp_path, capsys):
    ids, outcome = _league(tmp_path)
    model = str(tmp_path / "m.skops")
    assert main(["fit", str(tmp_path / "m.csv"), *ids, *outcome, "--items",
                 str(tmp_path / "items.csv"), "--kernel", "linear", "--model", model]) == 0
    capsys.readouterr()
    assert main(["predict", model, str(tmp_path / "m.csv"), *ids,
                 "-o", str(tmp_path / "p.csv")]) == 2
    assert "add --items ITEMS.csv" in capsys.readouterr().err


def test_every_unseen_id_is_named(tmp_path, capsys):
    ids, outcome = _league(tmp_path)
    model = str(tmp_path / "m.skops")
    assert main(["fit", str(tmp_path / "m.csv"), *ids, *outcome, "--model", model]) == 0
    capsys.readouterr()
    pd.DataFrame({"home": ["t1", "Fulham", "t2", "Leeds"],
                  "away": ["Sheffield", "t3", "Fulham", "t4"]}).to_csv(tmp_path / "new.csv",
                                                                        index=False)
    assert main(["predict", model, str(tmp_path / "new.csv"), *ids,
                 "-o", str(tmp_path / "p.csv")]) == 2
    err = capsys.readouterr().err
    assert "3 id(s) not in the items the model was fitted on: 'Fulham', 'Leeds', " \
        "'Sheffield' (first on line 2)" in err
    assert "refit with their games" in err


def test_evaluate_help_describes_its_output():
    parser = build_parser()
    evaluate = parser._subparsers._group_actions[0].choices["evaluate"]
    text = " ".join(evaluate.format_help().split()).replace("- ", "-")  # unwrapped
    assert "log-loss" in text and "training frequencies" in text and "most probable" in text
    # A new user compared two models' baselines, one fitted with --half-life: the
    # frequencies are the fit's weighted ones, and the help says so.
    assert "weighted as the fit weighed its pairs" in text


def test_a_grid_can_choose_by_log_loss(tmp_path, capsys):
    X, y = make_norm_pairs(120, "l1", random_state=0)
    pd.DataFrame({"a_u": X[:, 0, 0], "a_v": X[:, 0, 1], "b_u": X[:, 1, 0], "b_v": X[:, 1, 1],
                  "y": y}).to_csv(tmp_path / "p.csv", index=False)
    args = ["fit", str(tmp_path / "p.csv"), "--model", str(tmp_path / "m.skops"), "--grid",
            "--kernel", "linear", "--no-progress", "--scoring", "log_loss"]
    assert main(args) == 2
    assert "--scoring log_loss scores probabilities: add --probability" in \
        capsys.readouterr().err
    assert main([*args, "--probability"]) == 0
    assert "chosen by 5-fold cross-validation (log_loss)" in capsys.readouterr().out


def test_the_degenerate_warning_says_the_model_is_usable_and_what_to_change():
    # A linear ranking of the ||x||_1^2 pattern with ties weighted down: no tie
    # band fits, beta ~ 0.
    X, y = make_norm_pairs(120, "l1", random_state=0)
    with pytest.warns(DegenerateWarning) as caught:
        model = SVMCompare(kernel="linear", class_weight="balanced").fit(X, y)
    message = str(caught[0].message)
    assert model.degenerate_
    assert "The model is usable" in message and "try a smaller C" in message


def test_unknown_ids_can_be_scored_as_the_mean_item(tmp_path, capsys):
    import scipy.sparse as sp

    from svmcompare import load_model, pairs_from_frame

    ids, outcome = _league(tmp_path)
    model_path = str(tmp_path / "m.skops")
    assert main(["fit", str(tmp_path / "m.csv"), *ids, *outcome, "--model", model_path]) == 0
    pd.DataFrame({"home": ["t1", "Fulham"], "away": ["Leeds", "t3"]}).to_csv(
        tmp_path / "new.csv", index=False)
    capsys.readouterr()
    assert main(["predict", model_path, str(tmp_path / "new.csv"), *ids, "--unknown", "mean",
                 "-o", str(tmp_path / "p.csv")]) == 0
    err = capsys.readouterr().err
    assert "2 id(s) not in the items the model was fitted on scored as the mean item" in err
    assert "narrower than a new item's own" in err  # its intervals are the mean rating's
    model = load_model(model_path)
    ratings = dict(zip([n[3:] for n in model.feature_names_in_],
                       model.rank(sp.identity(8, format="csr")), strict=True))
    mean = np.mean(list(ratings.values()))  # a linear model: r(mean item) = mean rating
    out = pd.read_csv(tmp_path / "p.csv")
    np.testing.assert_allclose(out["rank_difference"],
                               [mean - ratings["t1"], ratings["t3"] - mean], atol=1e-9)
    # In Python, with an items table.
    items = pd.DataFrame({"id": ["A", "B"], "u": [1.0, 3.0]})
    matches = pd.DataFrame({"a": ["A", "C"], "b": ["B", "A"]})
    with pytest.raises(ValueError, match="unknown='mean' scores them as the mean item"):
        pairs_from_frame(matches, items, a="a", b="b")
    X = pairs_from_frame(matches, items, a="a", b="b", unknown="mean").X
    np.testing.assert_array_equal(X[:, :, 0], [[1.0, 3.0], [2.0, 1.0]])


def test_an_ids_file_is_refused_for_a_model_that_records_no_ids(tmp_path, capsys):
    # Fitted in Python on arrays: its columns have no names, so the ids of a
    # file cannot be matched to them (columns from the file's own ids would
    # be other ids in another order, silently).
    from svmcompare import pairs_from_frame, save_model

    rng = np.random.default_rng(0)
    teams = np.array(["ann", "bob", "cy", "dee"])
    a, b = rng.integers(0, 4, 200), rng.integers(0, 4, 200)
    keep = a != b
    games = pd.DataFrame({"item_a": teams[a[keep]], "item_b": teams[b[keep]],
                          "y": rng.choice([-1, 0, 1], keep.sum())})
    pairs = pairs_from_frame(games, a="item_a", b="item_b", outcome="y",
                             outcome_map={-1: -1, 0: 0, 1: 1}, sparse=True)
    save_model(SVMCompare(kernel="linear").fit(pairs.X, pairs.y), tmp_path / "m.skops")
    games.to_csv(tmp_path / "games.csv", index=False)
    assert main(["predict", str(tmp_path / "m.skops"), str(tmp_path / "games.csv"),
                 "-o", str(tmp_path / "out.csv")]) == 2
    assert "records no feature names" in capsys.readouterr().err
    assert not (tmp_path / "out.csv").exists()


def test_wide_features_all_named_like_identities_are_refused(tmp_path, capsys):
    pd.DataFrame({"a_is_home": [1, 0, 1], "a_is_rested": [0, 1, 1], "b_is_home": [0, 1, 0],
                  "b_is_rested": [1, 1, 0], "y": [-1, 0, 1]}).to_csv(tmp_path / "w.csv",
                                                                   index=False)
    assert main(["fit", str(tmp_path / "w.csv"), "--model", str(tmp_path / "m.skops")]) == 2
    assert "every feature is named is_<name>" in capsys.readouterr().err


def test_output_files_are_checked_before_any_work(tmp_path, capsys, monkeypatch):
    # "-" only for -o; two outputs naming one file; a figure format matplotlib
    # cannot write; features on its own output; a header without rows.
    monkeypatch.chdir(tmp_path)
    ids, outcome = _league(tmp_path)
    games = str(tmp_path / "m.csv")
    assert main(["fit", games, *ids, *outcome, "--kernel", "linear", "--model", "m.skops"]) == 0
    capsys.readouterr()
    cases = [
        (["fit", games, *ids, *outcome, "--model", "-"], "--model -: standard output is for -o"),
        (["evaluate", "m.skops", games, *ids, *outcome, "--plot", "-"], "--plot -: standard"),
        (["evaluate", "m.skops", games, *ids, *outcome, "--plot", "roc.csv"],
         "--plot roc.csv: matplotlib writes no 'csv' figures"),
        (["rolling", games, *ids, *outcome, "--period", "adv", "-o", "r.csv", "--ratings",
          "r.csv"], "-o and --ratings both name r.csv"),
        (["leaderboard", "m.skops", "-o", "b.csv", "./b.csv"], "both name ./b.csv"),
    ]
    for argv, message in cases:
        assert main(argv) == 2, argv
        assert message in capsys.readouterr().err, argv
    assert not (tmp_path / "-").exists() and not (tmp_path / "r.csv").exists()
    common = [games, *ids, *outcome]
    assert main(["features", *common, "-o", "f.csv"]) == 0
    assert main(["features", "f.csv", *ids, *outcome, "-o", "f2.csv"]) == 2
    assert "f.csv already has the columns the features would add (a_elo" \
        in capsys.readouterr().err
    (tmp_path / "empty.csv").write_text("home,away,result\n")
    assert main(["features", "empty.csv", *ids, *outcome, "-o", "f3.csv"]) == 2
    assert "empty.csv has a header and no rows" in capsys.readouterr().err


def test_warnings_read_as_the_commands_own_lines(tmp_path, capsys, monkeypatch):
    # Not Python's "path/svmcompare:8: DegenerateWarning: ..." and a source line.
    monkeypatch.chdir(tmp_path)
    assert main(["league", "--out", "league"]) == 0
    common = ["--a", "home", "--b", "away", "--outcome", "result", "--outcome-map",
              "H=-1,D=0,A=1"]
    assert main(["features", "league/matches.csv", *common, "--time", "season", "-o",
                 "f.csv"]) == 0
    capsys.readouterr()
    assert main(["rolling", "f.csv", "--period", "season", "--first", "3", "--kernel",
                 "linear", "--class-weight", "none", "-o", "r.csv"]) == 0
    err = capsys.readouterr().err
    assert "svmcompare rolling: warning: SVMCompare found beta" in err
    assert "DegenerateWarning" not in err and ".py:" not in err


def test_messages_show_values_not_numpy_reprs(tmp_path, capsys):
    frame = pd.DataFrame({"home": ["a", "b", "c"], "away": ["b", "c", "a"],
                          "score": [1.0, 0.5, 0.0], "adv": [-1.0, np.nan, -1.0]})
    frame.to_csv(tmp_path / "g.csv", index=False)
    base = ["features", str(tmp_path / "g.csv"), "--a", "home", "--b", "away", "--outcome",
            "score", "-o", str(tmp_path / "f.csv")]
    assert main([*base, "--outcome-map", "1=-1,0=1"]) == 2
    err = capsys.readouterr().err
    assert "outcome '0.5' is not in the outcome map" in err and "np." not in err
    assert main([*base, "--outcome-map", "1=-1,0.5=0,0=1", "--advantage", "adv"]) == 2
    err = capsys.readouterr().err
    assert "g.csv, line 3, column adv: empty cell" in err and "np." not in err


def test_a_repeated_id_to_rank_and_results_without_rows_are_refused(tmp_path, capsys):
    ids, outcome = _league(tmp_path)
    model = str(tmp_path / "m.skops")
    assert main(["fit", str(tmp_path / "m.csv"), *ids, *outcome, "--kernel", "linear",
                 "--model", model]) == 0
    (tmp_path / "ids.csv").write_text("id\nt1\nt2\nt1\n")
    assert main(["rank", model, str(tmp_path / "ids.csv"), "-o", str(tmp_path / "r.csv")]) == 2
    assert "ids.csv: id 't1' is listed more than once" in capsys.readouterr().err
    (tmp_path / "results.csv").write_text("event,item,position\n")
    assert main(["rankings", str(tmp_path / "results.csv"), "--event", "event", "--item", "item",
                 "--position", "position", "-o", str(tmp_path / "p.csv")]) == 2
    assert "results.csv has a header and no rows" in capsys.readouterr().err
    assert not (tmp_path / "p.csv").exists()


@pytest.mark.parametrize("cell, shown", [("", "empty cell"), ("home", "'home'"),
                                         ("inf", "inf")])
def test_a_bad_advantage_cell_is_named_by_file_line_and_column(tmp_path, capsys, cell, shown):
    (tmp_path / "g.csv").write_text("date,home,away,result,adv\n2020-01-01,A,B,H,-1\n"
                                    f"2020-01-02,B,A,D,-1\n2020-01-03,A,B,A,{cell}\n")
    assert main(["features", str(tmp_path / "g.csv"), "--a", "home", "--b", "away",
                 "--outcome", "result", "--outcome-map", "H=-1,D=0,A=1", "--time", "date",
                 "--advantage", "adv", "-o", str(tmp_path / "f.csv")]) == 2
    assert f"g.csv, line 4, column adv: {shown} (1 row(s)); --advantage needs a number" \
        in capsys.readouterr().err


@pytest.mark.parametrize("value", ["inf", "-inf", "nan"])
def test_a_single_advantage_number_must_be_finite(tmp_path, capsys, value):
    # The column form refused inf; the single-number form wrote ctx_advantage
    # = inf (or left it blank for nan) into every row (review).
    (tmp_path / "g.csv").write_text("date,home,away,result\n2020-01-01,A,B,H\n"
                                    "2020-01-02,B,A,D\n")
    assert main(["features", str(tmp_path / "g.csv"), "--a", "home", "--b", "away",
                 "--outcome", "result", "--outcome-map", "H=-1,D=0,A=1", "--time", "date",
                 f"--advantage={value}", "-o", str(tmp_path / "f.csv")]) == 2
    assert "advantage must be a finite number" in capsys.readouterr().err
    assert not (tmp_path / "f.csv").exists()


def test_features_names_a_self_pair_by_file_and_line(tmp_path, capsys):
    # A new user's placeholder fixtures (TBC v TBC) were "game 10063" for line 10065.
    (tmp_path / "g.csv").write_text("date,home,away,result\n2020-01-01,A,B,H\n"
                                    "2020-01-02,B,A,D\n2020-01-03,TBC,TBC,\n")
    assert main(["features", str(tmp_path / "g.csv"), "--a", "home", "--b", "away",
                 "--outcome", "result", "--outcome-map", "H=-1,D=0,A=1", "--time", "date",
                 "--fixtures", "-o", str(tmp_path / "f.csv")]) == 2
    assert "g.csv, line 4: 'TBC' is in both --a home and --b away (1 such row(s))" \
        in capsys.readouterr().err


def test_an_infinite_bound_is_named_without_a_numpy_warning(tmp_path, capsys):
    # --until season=inf printed NumPy's "invalid value encountered in cast"
    # (a YYYYMMDD check cast inf to int64) before the message (review).
    assert main(["league", "--out", str(tmp_path / "lg")]) == 0
    capsys.readouterr()
    assert main(["fit", str(tmp_path / "lg" / "matches.csv"), "--a", "home", "--b", "away",
                 "--outcome", "result", "--outcome-map", "H=-1,D=0,A=1", "--until",
                 "season=inf", "--model", str(tmp_path / "m.skops")]) == 2
    err = capsys.readouterr().err
    assert "'inf' is not a number" in err and "warning" not in err


def test_rank_and_leaderboard_note_a_degenerate_fit(tmp_path, capsys):
    # A new user's leaderboard of a degenerate fit read 4e-8 for the top team
    # with nothing said where the scores were shown.
    assert main(["league", "--out", str(tmp_path / "lg")]) == 0
    common = ["--a", "home", "--b", "away", "--outcome", "result", "--outcome-map",
              "H=-1,D=0,A=1", "--context", "home_adv", "--kernel", "linear"]
    matches = str(tmp_path / "lg" / "matches.csv")
    for name, extra in (("deg", ["--class-weight", "none", "--C", "100", "--loss", "hinge"]),
                        ("ok", ["--loss", "squared_hinge"])):
        assert main(["fit", matches, *common, *extra, "--model",
                     str(tmp_path / f"{name}.skops")]) == 0
    for name, noted in (("deg", True), ("ok", False)):
        capsys.readouterr()
        assert main(["rank", str(tmp_path / f"{name}.skops"), "-o", str(tmp_path / "r.csv")]) \
            == 0
        assert ("holds a degenerate fit" in capsys.readouterr().err) is noted
        assert main(["leaderboard", str(tmp_path / f"{name}.skops"), "-o",
                     str(tmp_path / "b.csv")]) == 0
        assert ("holds a degenerate fit" in capsys.readouterr().err) is noted


def test_a_pair_without_a_group_is_named_by_its_line(tmp_path, capsys):
    # The message said "row 4" (a position among the pairs) for line 6.
    assert main(["league", "--out", str(tmp_path / "lg")]) == 0
    frame = pd.read_csv(tmp_path / "lg" / "matches.csv").astype({"season": object})
    frame.loc[4, "season"] = None
    frame.to_csv(tmp_path / "m.csv", index=False)
    capsys.readouterr()
    assert main(["fit", str(tmp_path / "m.csv"), "--a", "home", "--b", "away", "--outcome",
                 "result", "--outcome-map", "H=-1,D=0,A=1", "--auto", "--groups", "season",
                 "--model", str(tmp_path / "x.skops")]) == 2
    assert "m.csv: 1 row(s) have no 'season' (first on line 6)" in capsys.readouterr().err


@pytest.mark.parametrize("model_type", ["rank", "rank2", "lp"])
def test_auto_with_another_model_type_is_refused(tmp_path, capsys, model_type):
    # --auto searched SVMCompare whatever --model-type said.
    assert main(["league", "--out", str(tmp_path / "lg")]) == 0
    capsys.readouterr()
    assert main(["fit", str(tmp_path / "lg" / "matches.csv"), "--a", "home", "--b", "away",
                 "--outcome", "result", "--outcome-map", "H=-1,D=0,A=1", "--auto",
                 "--model-type", model_type, "--model", str(tmp_path / "x.skops")]) == 2
    assert "--auto searches SVMCompare's grid; --model-type" in \
        (err := capsys.readouterr().err) and f"--model-type {model_type} applies" in err
    assert main(["fit", str(tmp_path / "lg" / "matches.csv"), "--a", "home", "--b", "away",
                 "--outcome", "result", "--outcome-map", "H=-1,D=0,A=1", "--auto",
                 "--kernel", "rbf", "--model", str(tmp_path / "x.skops")]) == 2
    assert "--auto searches linear points only here" in capsys.readouterr().err
    # C, gamma and the class weights were silently ignored (the search's own printed).
    for option in (["--C", "5"], ["--gamma", "3"], ["--class-weight", "none"], ["--tol", "1e-8"],
                   ["--calibration", "loo"]):
        assert main(["fit", str(tmp_path / "lg" / "matches.csv"), "--a", "home", "--b", "away",
                     "--outcome", "result", "--outcome-map", "H=-1,D=0,A=1", "--auto",
                     "--probability", *option, "--model", str(tmp_path / "x.skops")]) == 2
        err = capsys.readouterr().err
        assert f"{option[0]} " in err and "applies to a single fit" in err, err
    # Each says what --auto does instead, truly.
    for option, does in ((["--tol", "1e-8"], "--auto searches at the default tolerance"),
                         (["--degree", "2"], "--auto searches no polynomial kernel"),
                         (["--C", "5"], "--auto chooses C itself by cross-validation")):
        assert main(["fit", str(tmp_path / "lg" / "matches.csv"), "--a", "home", "--b", "away",
                     "--outcome", "result", "--outcome-map", "H=-1,D=0,A=1", "--auto",
                     *option, "--model", str(tmp_path / "x.skops")]) == 2
        assert does in capsys.readouterr().err


def test_lines_are_counted_after_blank_lines_and_multi_line_cells(tmp_path, capsys):
    # pandas skips blank lines and reads a quoted cell over two lines as one row,
    # so messages that counted rows named a line too early (review).
    from svmcompare.io import data_row_lines, read_table

    text = ('season,home,away,result,note\n2018,A,B,H,\n\n2018,B,A,D,"two\nlines"\n\n'
            '2018,A,B,,\n')
    path = tmp_path / "m.csv"
    path.write_text(text)
    np.testing.assert_array_equal(data_row_lines(path), [2, 4, 7])
    assert list(read_table(path).index + 2) == [2, 4, 7]
    plain = tmp_path / "plain.csv"
    plain.write_text("season,home,away,result\n2018,A,B,H\n2018,B,A,D\n")
    assert data_row_lines(plain) is None
    assert isinstance(read_table(plain).index, pd.RangeIndex)
    assert main(["fit", str(path), "--a", "home", "--b", "away", "--outcome", "result",
                 "--outcome-map", "H=-1,D=0,A=1", "--kernel", "linear", "--model",
                 str(tmp_path / "x.skops")]) == 0
    assert "1 pair(s) without a label (column result, e.g. line 7" in capsys.readouterr().err
    (tmp_path / "g.csv").write_text("date,home,away,result\n2020-01-01,A,B,H\n\n"
                                    "2020-01-02,B,A,D\n\n2020-01-03,C,C,H\n")
    assert main(["features", str(tmp_path / "g.csv"), "--a", "home", "--b", "away",
                 "--outcome", "result", "--outcome-map", "H=-1,D=0,A=1", "--time", "date",
                 "-o", str(tmp_path / "f.csv")]) == 2
    assert "g.csv, line 6: 'C' is in both" in capsys.readouterr().err


def test_the_line_map_survives_long_cells_fixtures_and_dropped_rows(tmp_path, capsys):
    # Review of the line map: a cell over csv's 128 KB limit beside a blank line
    # crashed every command; a fixture without a group was refused by --groups;
    # an empty id pair was called a self-pair; rows dropped before a bad time
    # or period moved its line.
    from svmcompare.io import read_table

    long = tmp_path / "long.csv"
    long.write_text("a_u,b_u,y,note\n0.1,0.2,1," + "x" * 200_000 + "\n\n0.3,0.1,-1,\n")
    assert list(read_table(long).index + 2) == [2, 4]
    assert main(["league", "--out", str(tmp_path / "lg")]) == 0
    frame = pd.read_csv(tmp_path / "lg" / "matches.csv")
    fixture = frame.iloc[[0]].assign(result=None, season=None)
    pd.concat([frame, fixture]).to_csv(tmp_path / "fx.csv", index=False)
    common = ["--a", "home", "--b", "away", "--outcome", "result", "--outcome-map",
              "H=-1,D=0,A=1"]
    capsys.readouterr()
    assert main(["fit", str(tmp_path / "fx.csv"), *common, "--auto", "--groups", "season",
                 "--model", str(tmp_path / "x.skops"), "--no-progress"]) == 0
    (tmp_path / "e.csv").write_text("home,away,result\nA,B,H\nB,A,D\n,,H\n")
    assert main(["features", str(tmp_path / "e.csv"), *common, "-o",
                 str(tmp_path / "f.csv")]) == 2
    assert "e.csv, line 4, column home: empty id" in capsys.readouterr().err
    # A fixture (no result) on line 3, then a bad date on line 5.
    (tmp_path / "d.csv").write_text("date,home,away,result\n2020-01-01,A,B,H\n2020-01-02,B,A,\n"
                                    "2020-01-03,A,B,D\n2020-01-0x,B,A,A\n2020-01-05,A,B,H\n")
    assert main(["fit", str(tmp_path / "d.csv"), *common, "--kernel", "linear", "--time",
                 "date", "--half-life", "30", "--model", str(tmp_path / "x.skops")]) == 2
    assert "d.csv, line 5: date = '2020-01-0x'" in capsys.readouterr().err
    (tmp_path / "w.csv").write_text("week,home,away,result\n1,A,B,H\n2,B,A,\n2,A,B,D\n"
                                    "x3,B,A,A\n3,A,B,H\n")
    assert main(["rolling", str(tmp_path / "w.csv"), *common, "--period", "week", "-o",
                 str(tmp_path / "r.csv"), "--no-progress"]) == 2
    assert "w.csv, line 5: week = 'x3'" in capsys.readouterr().err


def test_a_negative_weight_names_its_line(tmp_path, capsys):
    """A weight of -1 was refused as 'sample_weight must be finite and
    non-negative', naming no line (a review of the command line)."""
    (tmp_path / "w.csv").write_text("item_a,item_b,y,weight\nA,B,1,1\nB,C,0,-1\nC,A,-1,1\n")
    assert main(["fit", str(tmp_path / "w.csv"), "--model", str(tmp_path / "m.skops")]) == 2
    assert "w.csv, line 3, column weight: -1 is negative" in capsys.readouterr().err


def test_a_model_without_feature_names_says_it_reads_columns_by_position(tmp_path, capsys):
    """A model fitted on arrays scored a file's columns by position: the same
    named columns in another order gave other predictions, silently."""
    from svmcompare import SVMCompare, save_model
    from svmcompare.datasets import make_norm_pairs

    X, y = make_norm_pairs(100, "l1", 0.3, random_state=0)
    save_model(SVMCompare(kernel="linear").fit(X, y), tmp_path / "m.skops")
    pd.DataFrame({"a_v": X[:, 0, 1], "a_u": X[:, 0, 0], "b_v": X[:, 1, 1],
                  "b_u": X[:, 1, 0], "y": y}).to_csv(tmp_path / "p.csv", index=False)
    capsys.readouterr()
    assert main(["predict", str(tmp_path / "m.skops"), str(tmp_path / "p.csv"), "-o",
                 str(tmp_path / "o.csv")]) == 0
    assert "note: the model records no feature names (it was fitted on arrays in Python), " \
           "so p.csv's features are taken in their column order: v, u" in capsys.readouterr().err


def test_features_says_how_the_advantage_reads(tmp_path, capsys):
    """A True / False "neutral" column passed as --advantage read as "the second
    side at home" in every neutral game, and nothing showed it (a review)."""
    assert main(["league", "--out", str(tmp_path / "lg")]) == 0
    games = pd.read_csv(tmp_path / "lg" / "matches.csv")
    games.assign(neutral=games["home_adv"] == 0).to_csv(tmp_path / "m.csv", index=False)
    game = ["--a", "home", "--b", "away", "--outcome", "result", "--outcome-map", "H=-1,D=0,A=1",
            "--time", "season"]
    capsys.readouterr()
    assert main(["features", str(tmp_path / "m.csv"), *game, "--advantage", "home_adv", "-o",
                 str(tmp_path / "f.csv")]) == 0
    assert "--advantage home_adv: 913 games -1 (the first side (--a) has it), 47 games 0 " \
           "(neither)" in capsys.readouterr().out
    assert main(["features", str(tmp_path / "m.csv"), *game, "--advantage", "neutral", "-o",
                 str(tmp_path / "g.csv")]) == 0
    assert "--advantage neutral: 913 games 0 (neither), 47 games +1 (the second side (--b) " \
           "has it)" in capsys.readouterr().out


def test_auto_on_a_table_of_ids_says_it_searches_linear_points_only(tmp_path, capsys):
    """--auto --gamma on a table of ids said "chooses gamma itself" where only
    the squared hinge's linear points are searched (a review)."""
    assert main(["league", "--out", str(tmp_path / "lg")]) == 0
    capsys.readouterr()
    for option in (["--gamma", "0.5"], ["--kernel", "rbf"]):
        assert main(["fit", str(tmp_path / "lg" / "matches.csv"), "--a", "home", "--b", "away",
                     "--outcome", "result", "--outcome-map", "H=-1,D=0,A=1", "--auto",
                     *option, "--model", str(tmp_path / "x.skops")]) == 2
        assert "--auto searches linear points only here (the squared hinge's grid); " \
               f"{option[0]} " in capsys.readouterr().err
