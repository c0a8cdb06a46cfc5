"""Ids and outcomes are never silently changed (issue 31, items 4 and 7): ids are
text as written, outcome maps are checked, missing ids and self-pairs are
named, nullable and boolean columns read as numbers, repeated column names
refused, and model files keep no per-pair arrays."""

import os
import warnings

import numpy as np
import pandas as pd
import pytest

from svmcompare import SVMCompare, load_model, pairs_from_frame, save_model
from svmcompare.cli import main
from svmcompare.datasets import make_norm_pairs
from svmcompare.io import parse_outcome_map


def _ids_table(ids_a, ids_b, outcomes):
    return pd.DataFrame({"item_a": ids_a, "item_b": ids_b, "y": outcomes})


def test_numeric_looking_ids_stay_text_and_are_written_back_unchanged(tmp_path):
    rng = np.random.default_rng(0)
    names = ["01", "1", "002", "2", "10"]
    a = rng.integers(0, 5, 400)
    b = (a + rng.integers(1, 5, 400)) % 5
    strength = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    d = strength[b] - strength[a] + rng.normal(size=400)
    y = np.where(d > 0.7, 1, np.where(d < -0.7, -1, 0))
    frame = _ids_table([names[k] for k in a], [names[k] for k in b], y)
    frame.to_csv(tmp_path / "pairs.csv", index=False)
    model = tmp_path / "m.skops"
    assert main(["fit", str(tmp_path / "pairs.csv"), "--model", str(model),
                 "--kernel", "linear"]) == 0
    assert sorted(load_model(model).feature_names_in_) == sorted(f"is_{n}" for n in names)
    assert main(["predict", str(model), str(tmp_path / "pairs.csv"),
                 "-o", str(tmp_path / "out.csv")]) == 0
    written = pd.read_csv(tmp_path / "out.csv", dtype=str)
    assert list(written["item_a"]) == list(frame["item_a"])  # "01", "002" as written
    # Two teams that differ only by a leading zero are ranked apart.
    ranks = dict(zip(load_model(model).feature_names_in_, load_model(model).coef_, strict=True))
    assert ranks["is_01"] < ranks["is_1"] < ranks["is_002"] < ranks["is_2"]


def test_items_ids_are_text_too(tmp_path):
    pd.DataFrame({"id": ["007", "7"], "u": [0.0, 1.0]}).to_csv(tmp_path / "items.csv",
                                                               index=False)
    _ids_table(["007", "7"] * 20, ["7", "007"] * 20, [1, -1] * 19 + [0, 0]).to_csv(
        tmp_path / "pairs.csv", index=False)
    model = tmp_path / "m.skops"
    assert main(["fit", str(tmp_path / "pairs.csv"), "--items", str(tmp_path / "items.csv"),
                 "--model", str(model), "--kernel", "linear", "--model-type", "rank"]) == 0
    assert main(["rank", str(model), str(tmp_path / "items.csv"),
                 "-o", str(tmp_path / "r.csv")]) == 0
    assert list(pd.read_csv(tmp_path / "r.csv", dtype=str)["id"]) == ["007", "7"]


def test_a_repeated_outcome_map_key_is_refused():
    with pytest.raises(ValueError, match="'H' is given twice"):
        parse_outcome_map("H=-1,D=0,A=1,H=1")
    assert parse_outcome_map("H=-1,D=0,A=1") == {"H": -1, "D": 0, "A": 1}


@pytest.mark.parametrize("mapping,error,message", [
    ({"H": True, "D": False, "A": -1}, ValueError, r"outcome_map\['H'\] = True"),
    ({True: 1, False: 0}, TypeError, "keys must be text or numbers"),
    ({("H",): 1, "D": 0}, TypeError, "keys must be text or numbers"),
    ({"H": 1.0, "D": 0}, ValueError, "labels are the integers"),
    ({"H": 2, "D": 0}, ValueError, "labels are the integers"),
    ({}, ValueError, "outcome_map is empty"),
    (["H", "D"], TypeError, "outcome_map must be a dict"),
])
def test_outcome_maps_with_booleans_or_odd_values_are_refused(mapping, error, message):
    matches = pd.DataFrame({"home": ["A", "B"], "away": ["B", "A"], "result": ["H", "D"]})
    with pytest.raises(error, match=message):
        pairs_from_frame(matches, a="home", b="away", outcome="result", outcome_map=mapping)


@pytest.mark.parametrize("missing", [None, np.nan, pd.NA])
def test_a_missing_id_is_named_not_a_phantom_team(missing):
    matches = pd.DataFrame({"home": ["A", "B", missing, "C"], "away": ["B", "C", "A", "A"],
                            "result": ["H", "D", "A", "H"]})
    with pytest.raises(ValueError, match="matches row 2, column home: the id is missing"):
        pairs_from_frame(matches, a="home", b="away", outcome="result",
                         outcome_map={"H": -1, "D": 0, "A": 1})



def test_a_filtered_frame_s_row_is_named_by_its_label():
    """A test season taken from a bigger table keeps its index: "row 23" (a
    position) was no label .loc could find (a new user's row 7601)."""
    kwargs = dict(a="home", b="away", outcome="result", outcome_map={"H": -1, "D": 0, "A": 1})
    matches = pd.DataFrame({"home": ["A", "B", "C", "A", "D"], "away": ["B", "C", "A", "D", "A"],
                            "result": ["H", "D", "A", "H", "A"]}, index=[7597, 7598, 7599,
                                                                         7600, 7601])
    train = pairs_from_frame(matches.iloc[:3], **kwargs)
    with pytest.raises(ValueError, match=r"matches the row labelled 7601 \(position 1\), "
                                         "column home: item 'D' is not in ids"):
        pairs_from_frame(matches.iloc[3:], ids=train.ids, **kwargs)
    bad = matches.assign(result=["H", "D", "X", "H", "A"])
    with pytest.raises(ValueError, match=r"the row labelled 7599 \(position 2\): outcome 'X'"):
        pairs_from_frame(bad, **kwargs)
    with pytest.raises(ValueError, match="matches row 2: outcome 'X'"):
        pairs_from_frame(bad.reset_index(drop=True), **kwargs)

def test_an_empty_id_cell_in_a_file_names_its_line(tmp_path, capsys):
    (tmp_path / "pairs.csv").write_text("item_a,item_b,y\nA,B,1\nB,C,0\nC,A,-1\n,B,1\n")
    code = main(["fit", str(tmp_path / "pairs.csv"), "--model", str(tmp_path / "m.skops")])
    err = capsys.readouterr().err
    assert code == 2 and "pairs.csv, line 5, column item_a: empty id" in err


def test_an_item_against_itself_is_refused_unless_allowed(tmp_path, capsys):
    matches = pd.DataFrame({"home": ["A", "B", "C", "B"], "away": ["B", "C", "C", "A"],
                            "result": ["H", "D", "A", "H"]})
    kwargs = dict(a="home", b="away", outcome="result", outcome_map={"H": -1, "D": 0, "A": 1})
    with pytest.raises(ValueError, match="matches row 2: item 'C' is compared with itself"):
        pairs_from_frame(matches, **kwargs)
    assert pairs_from_frame(matches, allow_self=True, **kwargs).X.shape == (4, 2, 3)
    matches.to_csv(tmp_path / "m.csv", index=False)
    args = ["fit", str(tmp_path / "m.csv"), "--a", "home", "--b", "away", "--outcome", "result",
            "--outcome-map", "H=-1,D=0,A=1", "--model", str(tmp_path / "m.skops")]
    assert main(args) == 2
    assert "line 4: item 'C' is compared with itself" in capsys.readouterr().err
    assert main([*args, "--allow-self-pairs", "--kernel", "linear"]) == 0


def test_pandas_nullable_columns_are_numbers():
    X, y = make_norm_pairs(60, "l1", random_state=0)
    frame = pd.DataFrame({"a_u": X[:, 0, 0], "a_v": X[:, 0, 1], "b_u": X[:, 1, 0],
                          "b_v": X[:, 1, 1]})
    plain = SVMCompare(kernel="linear").fit(frame, y)
    nullable = SVMCompare(kernel="linear").fit(frame.convert_dtypes(), y)
    np.testing.assert_array_equal(nullable.coef_, plain.coef_)
    holes = frame.convert_dtypes()
    holes.iloc[3, 1] = pd.NA
    with pytest.raises(ValueError, match="NaN"):
        SVMCompare(kernel="linear").fit(holes, y)
    items = pd.DataFrame({"id": ["A", "B", "C"], "n": pd.array([1, 2, 3], dtype="Int64")})
    matches = pd.DataFrame({"a": ["A", "B"], "b": ["B", "C"]})
    np.testing.assert_array_equal(pairs_from_frame(matches, items, a="a", b="b").X[:, :, 0],
                                  [[1, 2], [2, 3]])


def test_boolean_item_columns_are_features_in_python_as_on_the_command_line(tmp_path):
    items = pd.DataFrame({"id": ["A", "B", "C"], "big": [True, False, True],
                          "u": [0.5, 1.0, 2.0]})
    matches = pd.DataFrame({"item_a": ["A", "B"], "item_b": ["B", "C"], "y": [1, 0]})
    data = pairs_from_frame(matches, items, a="item_a", b="item_b")
    assert data.feature_names == ["big", "u"]
    np.testing.assert_array_equal(data.X[0], [[1.0, 0.5], [0.0, 1.0]])
    items.to_csv(tmp_path / "items.csv", index=False)
    matches.to_csv(tmp_path / "pairs.csv", index=False)
    from svmcompare.io import read_pairs

    X, _, features = read_pairs(tmp_path / "pairs.csv", tmp_path / "items.csv")
    assert features == data.feature_names
    np.testing.assert_array_equal(X, data.X)


def test_repeated_column_names_are_named(tmp_path, capsys):
    (tmp_path / "pairs.csv").write_text("a_u,a_u,b_u,b_u,y\n1,2,3,4,1\n2,3,1,0,-1\n")
    assert main(["fit", str(tmp_path / "pairs.csv"), "--model", str(tmp_path / "m.skops")]) == 2
    assert "the header repeats the column name 'a_u'" in capsys.readouterr().err
    frame = pd.DataFrame([[1.0, 2.0, 3.0, 4.0]], columns=["a_u", "a_u", "b_u", "b_u"])
    with pytest.raises(ValueError, match="repeats the column name 'a_u'"):
        SVMCompare().fit(frame, [1])
    matches = pd.DataFrame([["A", "B", "C"]], columns=["a", "b", "b"])
    with pytest.raises(ValueError, match="matches repeats the column name 'b'"):
        pairs_from_frame(matches, a="a", b="b")


def test_a_linear_model_file_does_not_grow_with_the_pairs(tmp_path):
    sizes = []
    for n in (200, 20_000):
        X, y = make_norm_pairs(n, "l1", random_state=0)
        model = SVMCompare(kernel="linear").fit(X, y)
        assert model.dual_coef_.size > n / 4  # the fit has per-pair duals ...
        save_model(model, tmp_path / f"{n}.skops")
        sizes.append(os.path.getsize(tmp_path / f"{n}.skops"))
        loaded = load_model(tmp_path / f"{n}.skops")
        assert not hasattr(loaded, "dual_coef_")  # ... the file does not keep them
        assert hasattr(model, "dual_coef_")  # and saving left the model as it was
        np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    assert sizes[1] < 1.05 * sizes[0]


def test_an_interrupt_after_the_save_says_the_file_is_complete(tmp_path, capsys, monkeypatch):
    from svmcompare import cli
    from svmcompare._base import PairwiseKernelModel

    X, y = make_norm_pairs(60, "l1", random_state=0)
    pd.DataFrame({"a_u": X[:, 0, 0], "a_v": X[:, 0, 1], "b_u": X[:, 1, 0], "b_v": X[:, 1, 1],
                  "y": y}).to_csv(tmp_path / "pairs.csv", index=False)

    def interrupted_score(self, *args, **kwargs):  # runs right after the save
        raise KeyboardInterrupt

    monkeypatch.setattr(PairwiseKernelModel, "score", interrupted_score)
    code = cli.main(["fit", str(tmp_path / "pairs.csv"), "--model", str(tmp_path / "m.skops")])
    assert code == 130
    err = capsys.readouterr().err
    assert "interrupted after" in err and "m.skops was written (that file is complete)" in err
    monkeypatch.undo()
    assert isinstance(load_model(tmp_path / "m.skops"), SVMCompare)


def test_ids_that_differ_from_the_items_only_by_type_are_named():
    """Items read with text ids, matches with numbers: every id was 'not in the
    items table', and the hint (unknown='mean') scored all as the mean item."""
    items = pd.DataFrame({"id": ["1", "2", "3"], "drama": [1, 0, 1]})
    matches = pd.DataFrame({"a": [1, 2], "b": [2, 3], "y": [1, 0]})
    for unknown in ("error", "mean"):
        with pytest.raises(ValueError, match=r"matches column a holds 1 \(int\) where the items "
                                             r"table's id holds '1' \(str\)"):
            pairs_from_frame(matches, items, a="a", b="b", outcome="y",
                             outcome_map={-1: -1, 0: 0, 1: 1}, unknown=unknown)
    # One new id beside them (a promoted side) does not hide the mismatch, nor do periods.
    promoted = pd.DataFrame({"a": [1, 4], "b": [2, 3], "y": [1, 0]})
    with pytest.raises(ValueError, match=r"holds 1 \(int\) where the items table's id holds"):
        pairs_from_frame(promoted, items, a="a", b="b", outcome="y",
                         outcome_map={-1: -1, 0: 0, 1: 1}, unknown="mean")
    seasons = pd.DataFrame({"id": ["1", "2", "3"] * 2, "season": [1, 1, 1, 2, 2, 2],
                            "drama": [1, 0, 1, 1, 0, 1]})
    with pytest.raises(ValueError, match=r"holds 1 \(int\) where the items table's id holds"):
        pairs_from_frame(matches.assign(season=[1, 2]), seasons, a="a", b="b", outcome="y",
                         outcome_map={-1: -1, 0: 0, 1: 1}, period="season", unknown="mean")
    # A genuinely new id among known ones is still what unknown= decides.
    new = pd.DataFrame({"a": ["1", "4"], "b": ["2", "3"], "y": [1, 0]})
    with pytest.raises(ValueError, match="item '4' is not in the items table"):
        pairs_from_frame(new, items, a="a", b="b", outcome="y", outcome_map={-1: -1, 0: 0, 1: 1})


def test_an_id_of_a_megabyte_is_refused_not_allocated_for_every_row():
    """Ids' text forms are as wide as the longest: one id of 5 MB among 960
    games took 19 GB in games_features (a review)."""
    from svmcompare.datasets import games_features
    from svmcompare.pairs import MAX_ID_CHARS

    games = pd.DataFrame({"a": ["A", "B", "C", "A"], "b": ["B", "C", "A", "C"],
                          "r": ["H", "D", "A", "H"]})
    games.loc[2, "a"] = "T" + "x" * MAX_ID_CHARS
    with pytest.raises(ValueError, match=r"an id of 1,001 characters \('Txxx"):
        games_features(games, first="a", second="b", result="r",
                       outcome_map={"H": -1, "D": 0, "A": 1})


def test_ids_that_differ_only_in_spaces_are_refused_wherever_ids_are_read():
    """'Arsenal' and 'Arsenal ' (a spreadsheet's trailing space) were two teams,
    each with part of the games, in the identities, the items table and the
    history features alike."""
    from svmcompare.datasets import games_features

    outcome_map = {"H": -1, "D": 0, "A": 1}
    games = pd.DataFrame({"home": ["Arsenal", "Chelsea", "Arsenal ", "Real  Madrid"],
                          "away": ["Chelsea", "Arsenal", "Spurs", "Real Madrid"],
                          "result": ["H", "D", "A", "H"]})
    with pytest.raises(ValueError, match=r"matches columns home and away: the ids 'Arsenal' and "
                                         r"'Arsenal ' differ only in spaces"):
        pairs_from_frame(games, a="home", b="away", outcome="result", outcome_map=outcome_map)
    with pytest.raises(ValueError, match=r"games columns home and away: the ids 'Arsenal' and "
                                         r"'Arsenal ' differ only in spaces"):
        games_features(games, first="home", second="away", result="result",
                       outcome_map=outcome_map)
    clean = games.assign(home=games["home"].str.strip())
    with pytest.raises(ValueError, match=r"the ids 'Real  Madrid' and 'Real Madrid'"):
        pairs_from_frame(clean, a="home", b="away", outcome="result", outcome_map=outcome_map)
    items = pd.DataFrame({"id": ["Arsenal", "Chelsea", "Spurs", "Spurs\u00a0"], "f": [1., 2, 3, 4]})
    with pytest.raises(ValueError, match=r"items column id: the ids 'Spurs' and 'Spurs\\xa0'"):
        pairs_from_frame(clean[:3], items, a="home", b="away", outcome="result",
                         outcome_map=outcome_map)
    # Ids that differ in more than spaces are distinct items, as before.
    data = pairs_from_frame(clean[:3], a="home", b="away", outcome="result",
                            outcome_map=outcome_map)
    assert list(data.ids) == ["Arsenal", "Chelsea", "Spurs"]


def test_groups_of_ids_that_never_meet_are_named_where_ids_are_read(tmp_path, capsys):
    """Three regional sides that only played each other were rated on the
    world's scale without a word (a review's national teams)."""
    outcome_map = {"H": -1, "D": 0, "A": 1}
    games = pd.DataFrame({"home": ["A", "B", "C", "X1", "X2", "A"],
                          "away": ["B", "C", "A", "X2", "X3", "C"],
                          "result": ["H", "D", "A", "H", "H", "D"]})
    with pytest.warns(UserWarning, match=r"matches columns home and away: 3 of 6 ids never meet "
                                         r"the main group, not even through others: X1, X2, X3"):
        pairs_from_frame(games, a="home", b="away", outcome="result", outcome_map=outcome_map)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        train = pairs_from_frame(games[:3], a="home", b="away", outcome="result",
                                 outcome_map=outcome_map)
        # New pairs in a fit's columns are not a fit's games: C never meets A or B here.
        pairs_from_frame(games[:1], a="home", b="away", ids=train.ids)
        # Pairs to predict (no outcome) are not results to fit on.
        pairs_from_frame(games, a="home", b="away")
    path = tmp_path / "m.csv"
    games.to_csv(path, index=False)
    fit = ["fit", str(path), "--a", "home", "--b", "away", "--outcome", "result",
           "--outcome-map", "H=-1,D=0,A=1", "--model", str(tmp_path / "m.skops")]
    assert main(fit) == 0
    assert "m.csv, columns home and away: 3 of 6 ids never meet the main group" \
        in capsys.readouterr().err
    # The pairs fitted decide, not the file's rows: a fixture joining the groups
    # (no result) hides nothing, and one of two new ids adds no group.
    fixtures = pd.concat([games, pd.DataFrame({"home": ["X1", "Y1"], "away": ["A", "Y2"],
                                               "result": [None, None]})])
    fixtures.to_csv(path, index=False)
    assert main(fit) == 0
    err = capsys.readouterr().err
    assert "3 of 6 ids never meet the main group" in err and "Y1" not in err


def test_an_items_file_of_ids_that_differ_only_in_spaces_is_refused(tmp_path, capsys):
    """pairs_from_frame refused an items table of 'B' and 'B '; fit --items took
    the same file as two items (a review)."""
    pd.DataFrame({"id": ["A", "B", "B "], "f": [1.0, 2.0, 3.0]}).to_csv(tmp_path / "i.csv",
                                                                       index=False)
    pd.DataFrame({"item_a": ["A", "B", "A"], "item_b": ["B", "A", "B"],
                  "y": [1, 0, -1]}).to_csv(tmp_path / "m.csv", index=False)
    assert main(["fit", str(tmp_path / "m.csv"), "--items", str(tmp_path / "i.csv"),
                 "--model", str(tmp_path / "m.skops")]) == 2
    assert "i.csv, column id: the ids 'B' and 'B ' differ only in spaces" \
        in capsys.readouterr().err


def test_ids_of_a_str_subclass_keep_their_text():
    """Enum members that are str: the fast conversion of text ids cut them
    short by their value's length and merged two teams (a review)."""
    import enum

    from svmcompare.pairs import id_text

    class Team(str, enum.Enum):  # noqa: UP042 (str() is "Team.X", unlike a StrEnum)
        MAN_UTD = "Man Utd"
        MAN_CTY = "Man Cty"
        LIV = "Liverpool"

    keys = id_text(np.array([Team.MAN_UTD, Team.MAN_CTY, Team.LIV], dtype=object))
    assert list(keys) == [str(Team.MAN_UTD), str(Team.MAN_CTY), str(Team.LIV)]
    assert len(set(keys)) == 3


def test_probability_true_fits_the_same_ranking_on_repeated_games_of_ids():
    # An attack (stop 70): with probability=True the exact solve kept its rows
    # for the calibration folds, which turned off the merging of equal rows,
    # and ended at another optimum of the (non-unique) dual, with beta -2e-5
    # inside its KKT violation (3e-4) read as Lemma 1's scale: scores of 2e4.
    import random

    from svmcompare import SVMCompare

    random.seed(0)
    ids = np.eye(6)
    pairs, y = [], []
    for _ in range(120):
        a, b = random.sample(range(6), 2)
        pairs.append([ids[a], ids[b]])
        y.append(random.choice([-1, 0, 1]))
    X, y = np.array(pairs), np.array(y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = SVMCompare(kernel="rbf", random_state=0).fit(X, y)
        proba = SVMCompare(kernel="rbf", probability=True, random_state=0).fit(X, y)
    assert plain.degenerate_ and proba.degenerate_
    np.testing.assert_array_equal(proba.rank(ids), plain.rank(ids))
    np.testing.assert_array_equal(proba.compare(X), plain.compare(X))
    assert np.max(np.abs(proba.rank(ids))) < 1.0
    assert np.allclose(proba.predict_proba(X).sum(axis=1), 1.0)
