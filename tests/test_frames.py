"""From a table of matches (and of items) to pairs, labels and context (issue 17)."""

import numpy as np
import pandas as pd
import pytest

from svmcompare import SVMCompare, pairs_from_frame


def _matches():
    return pd.DataFrame({"home": ["ARS", "CHE", "LIV", "ARS", "CHE", "LIV"] * 20,
                         "away": ["CHE", "LIV", "ARS", "LIV", "ARS", "CHE"] * 20,
                         "result": ["H", "D", "A", "H", "H", "D"] * 20,
                         "neutral": [0, 0, 1, 0, 0, 0] * 20})


def test_identities_only_gives_one_hot_pairs_and_keeps_the_ids():
    matches = _matches()
    data = pairs_from_frame(matches, a="home", b="away", outcome="result",
                            outcome_map={"H": -1, "D": 0, "A": 1})
    assert data.feature_names == ["is_ARS", "is_CHE", "is_LIV"]
    np.testing.assert_array_equal(data.X[0], [[1, 0, 0], [0, 1, 0]])
    np.testing.assert_array_equal(data.y[:3], [-1, 0, 1])
    np.testing.assert_array_equal(data.a_ids, matches["home"])
    model = SVMCompare(kernel="linear").fit(data.X, data.y)
    assert model.predict(data.X).shape == (120,)


def test_an_items_table_and_context_columns():
    matches = _matches()
    items = pd.DataFrame({"id": ["LIV", "ARS", "CHE"], "attack": [1.0, 2.0, 3.0],
                          "defence": [0.5, 0.1, 0.9], "name": ["l", "a", "c"]})
    data = pairs_from_frame(matches, items, a="home", b="away", outcome="result",
                            outcome_map={"H": -1, "D": 0, "A": 1}, context="neutral")
    assert data.feature_names == ["attack", "defence"]
    np.testing.assert_array_equal(data.X[0], [[2.0, 0.1], [3.0, 0.9]])  # ARS v CHE
    assert data.context.shape == (120, 1)
    by_index = pairs_from_frame(matches, items.set_index("id"), a="home", b="away")
    np.testing.assert_array_equal(by_index.X, data.X)
    assert by_index.y is None


def test_frames_errors_name_the_problem():
    matches = _matches()
    with pytest.raises(ValueError, match="never guessed"):
        pairs_from_frame(matches, a="home", b="away", outcome="result")
    with pytest.raises(ValueError, match="outcome 'A' is not in outcome_map"):
        pairs_from_frame(matches, a="home", b="away", outcome="result",
                         outcome_map={"H": -1, "D": 0})
    with pytest.raises(ValueError, match="item 'LIV' is not in the items table"):
        pairs_from_frame(matches, pd.DataFrame({"id": ["ARS", "CHE"], "x": [1.0, 2.0]}),
                         a="home", b="away")
    with pytest.raises(ValueError, match="no column"):
        pairs_from_frame(matches, a="home", b="visitor")
    with pytest.raises(TypeError, match="DataFrame"):
        pairs_from_frame(matches.to_numpy(), a="home", b="away")


def test_per_period_item_features_take_each_match_s_own_period():
    from svmcompare import pairs_from_frame

    matches = pd.DataFrame({"home": ["a", "b", "a"], "away": ["b", "a", "b"],
                            "season": [2001, 2001, 2002], "res": ["H", "A", "D"]})
    items = pd.DataFrame({"id": ["a", "b", "a", "b"], "season": [2001, 2001, 2002, 2002],
                          "goals": [10.0, 5.0, 20.0, 7.0]})
    out = pairs_from_frame(matches, items, a="home", b="away", outcome="res",
                           outcome_map={"H": -1, "D": 0, "A": 1}, period="season")
    np.testing.assert_array_equal(out.X[:, :, 0], [[10, 5], [5, 10], [20, 7]])
    assert out.feature_names == ["goals"]  # the period is a key, not a feature
    with pytest.raises(ValueError, match="'a' is not in the items table for its season 2003"):
        pairs_from_frame(matches.assign(season=[2001, 2001, 2003]), items, a="home", b="away",
                         period="season")
    with pytest.raises(ValueError, match=r"repeats the \(id, period\)"):
        pairs_from_frame(matches, pd.concat([items, items.iloc[:1]]), a="home", b="away",
                         period="season")


def test_wide_frames_record_feature_names_and_refuse_other_orders():
    from svmcompare import SVMCompareCV

    matches = _matches()
    teams = pd.DataFrame({"id": ["ARS", "CHE", "LIV"], "attack": [1.0, 0.2, -0.5],
                          "defence": [0.3, 0.9, -0.2]})
    data = pairs_from_frame(matches, teams, a="home", b="away", outcome="result",
                            outcome_map={"H": -1, "D": 0, "A": 1}, as_frame=True)
    assert list(data.X.columns) == ["a_attack", "a_defence", "b_attack", "b_defence"]
    model = SVMCompare(kernel="linear").fit(data.X, data.y)
    assert list(model.feature_names_in_) == ["attack", "defence"]
    # The same pairs as the array layout.
    array = pairs_from_frame(matches, teams, a="home", b="away")
    np.testing.assert_array_equal(model.decision_function(data.X),
                                  model.decision_function(array.X))
    swapped = data.X[["a_defence", "a_attack", "b_defence", "b_attack"]]
    with pytest.raises(ValueError, match="another order"):
        model.predict(swapped)
    with pytest.raises(ValueError, match="missing"):
        model.score(data.X.rename(columns={"a_attack": "a_x", "b_attack": "b_x"}), data.y)
    with pytest.raises(ValueError, match="same features in the same order"):
        model.predict(data.X[["a_attack", "a_defence", "b_defence", "b_attack"]])
    search = SVMCompareCV(param_grid={"kernel": ["linear"], "C": [1.0]}, cv=3).fit(
        data.X, data.y)
    assert list(search.feature_names_in_) == ["attack", "defence"]
    with pytest.raises(ValueError, match="another order"):
        search.predict(swapped)
    # An array refit forgets the names.
    assert not hasattr(SVMCompare(kernel="linear").fit(array.X, data.y), "feature_names_in_")


def test_pairs_to_predict_take_the_training_ids_columns():
    from svmcompare import SVMCompare, pairs_from_frame

    rng = np.random.default_rng(0)
    teams = [f"t{i}" for i in range(8)]
    home, away = rng.choice(teams, 300), rng.choice(teams, 300)
    keep = home != away
    train = pd.DataFrame({"h": home[keep], "a": away[keep],
                          "r": rng.choice([-1, 0, 1], keep.sum())})
    fit = pairs_from_frame(train, a="h", b="a", outcome="r", outcome_map={-1: -1, 0: 0, 1: 1})
    assert list(fit.ids) == teams and fit.feature_names == [f"is_{t}" for t in teams]
    # New fixtures among fewer teams, in another order: alone they get other columns.
    new = pd.DataFrame({"h": ["t7", "t5"], "a": ["t5", "t6"]})
    alone = pairs_from_frame(new, a="h", b="a")
    assert list(alone.ids) == ["t5", "t6", "t7"]
    shared = pairs_from_frame(new, a="h", b="a", ids=fit.ids)
    model = SVMCompare(kernel="linear").fit(fit.X, fit.y)
    by_name = pairs_from_frame(pd.concat([train, new]), a="h", b="a").X[-2:]
    np.testing.assert_allclose(model.decision_function(shared.X),
                               model.decision_function(by_name))
    with pytest.raises(ValueError, match=r"item 'zz' is not in ids .*unknown='mean'"):
        pairs_from_frame(pd.DataFrame({"h": ["zz"], "a": ["t1"]}), a="h", b="a", ids=fit.ids)
    with pytest.warns(UserWarning, match=r"2 id\(s\) not in ids scored as the mean item "
                                         r"\(unknown='mean'\): 'zz', 'yy'\.") as caught:
        mean = pairs_from_frame(pd.DataFrame({"h": ["zz", "t2"], "a": ["t1", "yy"]}), a="h",
                                b="a", ids=fit.ids, unknown="mean", sparse=True)
    assert all(w.filename == __file__ for w in caught)
    np.testing.assert_allclose(mean.X.toarray()[0, :8], 1 / 8)
    with pytest.raises(ValueError, match="repeats 't1'"):
        pairs_from_frame(new, a="h", b="a", ids=["t1", "t1", "t5", "t6", "t7"])
    with pytest.raises(ValueError, match="identities only"):
        pairs_from_frame(new, pd.DataFrame({"id": ["t5", "t6", "t7"], "f": [1, 2, 3]}),
                         a="h", b="a", ids=fit.ids)
    with pytest.raises(TypeError, match="sequence of ids"):
        pairs_from_frame(new, a="h", b="a", ids="t5")


def test_whole_number_ids_read_as_floats_are_the_same_ids():
    from svmcompare import pairs_from_frame

    # pandas reads a column with a gap as float64: 1.0 is team 1, not a new team.
    m = pd.DataFrame({"a": [1, 2, 3, 1], "b": [2.0, 3.0, 1.0, 3.0], "r": [1, 0, -1, 1]})
    assert list(pairs_from_frame(m, a="a", b="b").ids) == ["1", "2", "3"]
    with pytest.raises(ValueError, match="item 1 is compared with itself"):
        pairs_from_frame(pd.DataFrame({"a": [1], "b": [1.0]}), a="a", b="b")
    # Each value on its own: a fraction elsewhere in the column changes nothing.
    mixed = pd.DataFrame({"a": [1.0, 1.5, 2.0], "b": [2.0, 1.0, 3.0]})
    assert list(pairs_from_frame(mixed, a="a", b="b").ids) == ["1", "1.5", "2", "3"]
    with pytest.raises(ValueError, match="compared with itself"):
        pairs_from_frame(pd.DataFrame({"a": [1.0, 1.5], "b": [1.0, 2.0]}), a="a", b="b")


def test_empty_tables_are_refused():
    from svmcompare import pairs_from_frame

    with pytest.raises(ValueError, match="matches has no rows"):
        pairs_from_frame(pd.DataFrame({"a": [], "b": []}), a="a", b="b")
    with pytest.raises(ValueError, match="items has no rows"):
        pairs_from_frame(pd.DataFrame({"a": ["x"], "b": ["y"]}), pd.DataFrame({"id": []}),
                         a="a", b="b", unknown="mean")


def test_a_and_b_columns_that_differ_are_named():
    """One b_ column missing of 21: the message listed the first eight names
    of each side, the same on both (a new user's MovieLens pairs)."""
    names = [f"f{k}" for k in range(21)]
    frame = pd.DataFrame(np.zeros((4, 42)), columns=[f"a_{n}" for n in names]
                         + [f"b_{n}" for n in names])
    with pytest.raises(ValueError, match=r"a_ only: \['f20'\]"):
        SVMCompare(kernel="linear").fit(frame.drop(columns="b_f20"), np.array([1, -1, 0, 1]))
    repeated = frame.drop(columns="a_f20").rename(columns={"a_f19": "a_f18"})
    with pytest.raises(ValueError, match="X repeats the column name 'a_f18'"):
        SVMCompare(kernel="linear").fit(repeated, np.array([1, -1, 0, 1]))
    swapped = frame.rename(columns={"b_f3": "b_f4", "b_f4": "b_f3"})
    with pytest.raises(ValueError, match="in another order from position 3: a_f3 against b_f4"):
        SVMCompare(kernel="linear").fit(swapped, np.array([1, -1, 0, 1]))
