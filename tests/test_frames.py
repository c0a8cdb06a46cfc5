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
