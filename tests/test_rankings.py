"""matches_from_rankings: many-item results broken into their pairs, ties kept."""

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau

from svmcompare import SVMCompare, matches_from_rankings, pairs_from_frame


def _random_results(rng, n_events=12, n_items=9):
    rows = []
    for event in range(n_events):
        k = int(rng.integers(1, 7))
        for item in rng.choice(n_items, size=k, replace=False):
            rows.append({"race": f"r{event}", "who": f"i{item}",
                         "pos": float(rng.integers(1, 4))})  # few positions: ties
    return pd.DataFrame(rows).sample(frac=1.0, random_state=int(rng.integers(1000)))


def _by_hand(results):
    """Every pair of each event from a double loop: {(event, a, b): outcome}."""
    out = {}
    for event, block in results.groupby("race", sort=False):
        for (_, one), (_, two) in itertools.combinations(block.iterrows(), 2):
            a, b = sorted([one, two], key=lambda row: str(row["who"]))
            out[(event, a["who"], b["who"])] = int(np.sign(a["pos"] - b["pos"]))
    return out


@pytest.mark.parametrize("seed", range(5))
def test_every_pair_of_every_event_by_brute_force(seed):
    results = _random_results(np.random.default_rng(seed))
    table = matches_from_rankings(results, event="race", item="who", position="pos",
                                  weight="pair")
    got = {(e, a, b): o for e, a, b, o in
           table[["event", "item_a", "item_b", "y"]].itertuples(index=False)}
    assert len(got) == len(table)  # no pair twice
    assert got == _by_hand(results)
    assert (table["item_a"].astype(str) < table["item_b"].astype(str)).all()
    assert set(table["weight"]) <= {1.0}


def test_the_order_of_the_rows_does_not_matter():
    results = _random_results(np.random.default_rng(7))
    one = matches_from_rankings(results, event="race", item="who", position="pos")
    two = matches_from_rankings(results.iloc[::-1], event="race", item="who", position="pos")
    key = ["event", "item_a", "item_b"]
    pd.testing.assert_frame_equal(one.sort_values(key).reset_index(drop=True),
                                  two.sort_values(key).reset_index(drop=True))


def test_item_weights_give_each_item_one_unit_per_event():
    results = _random_results(np.random.default_rng(3), n_events=20)
    table = matches_from_rankings(results, event="race", item="who", position="pos")
    both = pd.concat([table[["event", "item_a", "weight"]].rename(columns={"item_a": "who"}),
                      table[["event", "item_b", "weight"]].rename(columns={"item_b": "who"})])
    totals = both.groupby(["event", "who"])["weight"].sum()
    np.testing.assert_allclose(totals.to_numpy(), 1.0)
    sizes = results.groupby("race").size()
    assert len(totals) == int(sizes[sizes > 1].sum())  # every item of a field of two or more


def test_unplaced_rows_last_dropped_or_refused():
    results = pd.DataFrame({"race": [1, 1, 1, 1], "who": ["a", "b", "c", "d"],
                            "pos": [2.0, np.nan, 1.0, np.nan]})
    with pytest.raises(ValueError, match="2 row.*without a position.*row 1"):
        matches_from_rankings(results, event="race", item="who", position="pos")
    last = matches_from_rankings(results, event="race", item="who", position="pos",
                                 unplaced="last").set_index(["item_a", "item_b"])["y"]
    assert last[("a", "b")] == -1 and last[("b", "c")] == 1 and last[("b", "d")] == 0
    assert last[("a", "d")] == -1 and last[("a", "c")] == 1
    dropped = matches_from_rankings(results, event="race", item="who", position="pos",
                                    unplaced="drop")
    assert dropped[["item_a", "item_b", "y"]].values.tolist() == [["a", "c", 1]]
    nobody = pd.DataFrame({"race": [1, 1], "who": ["a", "b"], "pos": [np.nan, np.nan]})
    tied = matches_from_rankings(nobody, event="race", item="who", position="pos",
                                 unplaced="last")
    assert tied["y"].tolist() == [0]


def test_event_columns_are_kept_and_checked():
    results = pd.DataFrame({"race": [1, 1, 2, 2], "who": ["a", "b", "a", "b"],
                            "pos": [1, 2, 2, 1], "day": ["mon", "mon", "tue", "tue"]})
    table = matches_from_rankings(results, event="race", item="who", position="pos",
                                  keep="day")
    assert table[["event", "day", "y"]].values.tolist() == [[1, "mon", -1], [2, "tue", 1]]
    results.loc[1, "day"] = "sun"
    with pytest.raises(ValueError, match="keep column 'day' has two values in event 1"):
        matches_from_rankings(results, event="race", item="who", position="pos", keep="day")
    with pytest.raises(ValueError, match="overwrite"):
        matches_from_rankings(results.rename(columns={"day": "weight"}), event="race",
                              item="who", position="pos", keep="weight")


def test_bad_tables_are_refused_by_name():
    good = pd.DataFrame({"race": [1, 1], "who": ["a", "b"], "pos": [1, 2]})
    call = dict(event="race", item="who", position="pos")
    with pytest.raises(TypeError, match="DataFrame"):
        matches_from_rankings(good.to_numpy(), **call)
    with pytest.raises(ValueError, match="no column"):
        matches_from_rankings(good, event="race", item="who", position="place")
    with pytest.raises(ValueError, match="appears twice in event 1"):
        matches_from_rankings(good.assign(who=["a", "a"]), **call)
    with pytest.raises(TypeError, match="must hold numbers"):
        matches_from_rankings(good.assign(pos=["1st", "2nd"]), **call)
    with pytest.raises(ValueError, match="not finite"):
        matches_from_rankings(good.assign(pos=[1.0, np.inf]), **call)
    with pytest.raises(ValueError, match="id is missing"):
        matches_from_rankings(good.assign(who=["a", None]), **call)
    with pytest.raises(ValueError, match="weight must be"):
        matches_from_rankings(good, weight="event", **call)
    with pytest.raises(ValueError, match="unplaced must be"):
        matches_from_rankings(good, unplaced="first", **call)
    for cap in (0, -1, 1.5, True):  # named as this function's parameter (an attack, stop 70)
        with pytest.raises(ValueError, match="max_pairs_per_event must be a positive integer"):
            matches_from_rankings(good, max_pairs_per_event=cap, **call)


def test_a_cap_on_pairs_per_event_is_reproducible():
    results = pd.DataFrame({"race": [1] * 10 + [2] * 3, "who": list("abcdefghij") + list("abc"),
                            "pos": list(range(10)) + [1, 1, 2]})
    one = matches_from_rankings(results, event="race", item="who", position="pos",
                                max_pairs_per_event=5, random_state=0)
    two = matches_from_rankings(results, event="race", item="who", position="pos",
                                max_pairs_per_event=5, random_state=0)
    pd.testing.assert_frame_equal(one, two)
    assert one.groupby("event").size().to_dict() == {1: 5, 2: 3}


def test_races_recover_the_runners_strengths():
    # Plackett-Luce races of 6 of 30 runners; finishing times rounded so
    # that close finishes are dead heats.
    rng = np.random.default_rng(0)
    strength = rng.normal(size=30)
    rows = []
    for race in range(400):
        field = rng.choice(30, size=6, replace=False)
        time = np.round(-strength[field] + rng.gumbel(size=6), 1)
        place = pd.Series(time).rank(method="min").to_numpy()
        rows += [{"race": race, "runner": f"r{i:02d}", "place": p}
                 for i, p in zip(field, place, strict=True)]
    table = matches_from_rankings(pd.DataFrame(rows), event="race", item="runner",
                                  position="place")
    assert (table["y"] == 0).any() and (table["y"] != 0).any()
    pairs = pairs_from_frame(table, a="item_a", b="item_b", outcome="y",
                             outcome_map={-1: -1, 0: 0, 1: 1})
    model = SVMCompare(kernel="linear", scale_indicators=False, C=1.0).fit(
        pairs.X, pairs.y, sample_weight=table["weight"].to_numpy())
    scores = model.rank(np.eye(30))
    names = [n.removeprefix("is_") for n in pairs.feature_names]
    truth = strength[[int(n[1:]) for n in names]]
    assert kendalltau(scores, truth).statistic > 0.8


def test_the_readme_example_runs():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    start = readme.index("Results of more than two items at once")
    code = readme[start:].split("```python\n", 1)[1].split("```", 1)[0]
    scope = {}
    exec(compile(code, "README.md", "exec"), scope)  # noqa: S102 - our own README
    model, pairs, matches = scope["model"], scope["pairs"], scope["matches"]
    assert len(matches) == 60 * 10 and set(matches["y"]) == {-1, 0, 1}
    proba = model.predict_proba(pairs.X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    names = [n.removeprefix("is_") for n in pairs.feature_names]
    import scipy.sparse as sp

    scores = dict(zip(names, model.rank(sp.identity(len(names), format="csr")), strict=True))
    order = sorted(scores, key=scores.get, reverse=True)
    assert order[0] in "ab" and order[-1] in "gh"  # the fastest first, the slowest last


def _races_csv(path, rng, races=60, unplaced=0.0):
    rows = []
    for race in range(races):
        field = rng.choice(list("abcdefgh"), size=5, replace=False)
        time = np.round([ord(h) + rng.normal(0, 3) for h in field])
        for h, p in zip(field, pd.Series(time).rank(method="min"), strict=True):
            rows.append({"race": race, "day": race // 10, "horse": h,
                         "place": "" if rng.random() < unplaced else int(p)})
    pd.DataFrame(rows).to_csv(path, index=False)


def test_the_command_line_from_results_to_a_fitted_ranking(tmp_path, capsys):
    from svmcompare.cli import main
    from svmcompare.persistence import load_model

    rng = np.random.default_rng(2)
    _races_csv(tmp_path / "races.csv", rng, unplaced=0.05)
    call = ["rankings", str(tmp_path / "races.csv"), "--event", "race", "--item", "horse",
            "--position", "place", "-o", str(tmp_path / "pairs.csv")]
    assert main(call) == 2  # a usage error
    err = capsys.readouterr().err
    assert "without a position (first on line" in err and "--unplaced last" in err
    assert main([*call, "--unplaced", "last", "--keep", "day"]) == 0
    pairs = pd.read_csv(tmp_path / "pairs.csv")
    assert list(pairs.columns) == ["event", "item_a", "item_b", "y", "weight", "day"]
    assert len(pairs) == 60 * 10
    model = str(tmp_path / "m.skops")
    assert main(["fit", str(tmp_path / "pairs.csv"), "--model", model, "--kernel", "linear",
                 "--C", "0.1"]) == 0
    fitted = load_model(model)
    names = [n.removeprefix("is_") for n in fitted.feature_names_in_]
    scores = dict(zip(names, fitted.rank(np.eye(len(names))), strict=True))
    assert sorted(scores, key=scores.get, reverse=True)[0] in "ab"


def test_the_command_line_names_a_position_that_is_not_a_number(tmp_path, capsys):
    from svmcompare.cli import main

    pd.DataFrame({"race": [1, 1], "horse": ["a", "b"], "place": ["1", "DNF"]}).to_csv(
        tmp_path / "r.csv", index=False)
    assert main(["rankings", str(tmp_path / "r.csv"), "--event", "race", "--item", "horse",
                 "--position", "place", "-o", str(tmp_path / "o.csv")]) == 2
    assert "line 3, column place: 'DNF' is not a number" in capsys.readouterr().err


def test_the_command_line_refuses_results_without_a_pair(tmp_path, capsys):
    from svmcompare.cli import main

    # An attack (stop 70): events of one runner each wrote an empty table and
    # exited 0 ("0 events, 0 pairs").
    pd.DataFrame({"race": [1, 2], "horse": ["a", "b"], "place": [1, 1]}).to_csv(
        tmp_path / "r.csv", index=False)
    assert main(["rankings", str(tmp_path / "r.csv"), "--event", "race", "--item", "horse",
                 "--position", "place", "-o", str(tmp_path / "pairs.csv")]) == 2
    assert "no event has two or more items" in capsys.readouterr().err
    assert not (tmp_path / "pairs.csv").exists()
