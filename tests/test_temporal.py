"""Time: decay weights (closed form) and the rolling refit (against fits made
by hand on the same earlier pairs)."""

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from svmcompare import SVMCompare
from svmcompare.temporal import rolling_fit, time_decay

from .test_bootstrap import id_games


def test_decay_halves_every_half_life():
    np.testing.assert_allclose(time_decay([0, 10, 20], 10), [0.25, 0.5, 1.0])
    np.testing.assert_allclose(time_decay([0, 10, 20], 10, now=30), [0.125, 0.25, 0.5])
    dates = np.array(["2024-01-01", "2024-01-15", "2024-01-29"], dtype="datetime64[D]")
    np.testing.assert_allclose(time_decay(dates, pd.Timedelta("14D")), [0.25, 0.5, 1.0])
    np.testing.assert_allclose(time_decay(dates, 28.0), [0.5, 2 ** -0.5, 1.0])  # days
    np.testing.assert_allclose(time_decay(["2024-01-01", "2024-01-15"], 14), [0.5, 1.0])
    np.testing.assert_allclose(time_decay(dates, 14, now=np.datetime64("2024-02-12")),
                               [0.125, 0.25, 0.5])
    # Dates as games_features reads them: YYYYMMDD integers and day-first text.
    np.testing.assert_allclose(time_decay([20240101, 20240115, 20240129], 14),
                               [0.25, 0.5, 1.0])
    np.testing.assert_allclose(time_decay(["01/01/2024", "15/01/2024", "29/01/2024"], 14),
                               [0.25, 0.5, 1.0])


def test_seasons_and_months_decay_by_their_count():
    # A season label counts by its first year, an ISO month by its number,
    # as games_features and rolling_fit order them.
    np.testing.assert_allclose(time_decay(["2008-9", "2009-10", "2010-11"], 1), [0.25, 0.5, 1])
    np.testing.assert_allclose(time_decay(["1999-2000", "2001-02"], 2), [0.5, 1.0])
    np.testing.assert_allclose(time_decay(["2019-11", "2020-01"], 2), [0.5, 1.0])
    np.testing.assert_allclose(time_decay(["2008-09", "2009-10"], 1, now="2010-11"), [0.25, 0.5])
    # A month is not a season: refused, not weights of 0.
    with pytest.raises(TypeError, match="times are seasons but now='2020-01' is a month"):
        time_decay(["2018-19", "2019-20"], 1, now="2020-01")
    with pytest.raises(TypeError, match="times are months but now='2019-20' is a season"):
        time_decay(["2019-11", "2020-01"], 1, now="2019-20")
    with pytest.raises(TypeError, match="needs dates as times; times are seasons"):
        time_decay(["2018-19", "2019-20"], pd.Timedelta("365D"))


@pytest.mark.parametrize("times, half_life, now, error, message", [
    ([0, 1, 2], 0, None, ValueError, "positive"),
    ([0, 1, 2], -3, None, ValueError, "positive"),
    ([0, 1, 2], "ten", None, ValueError, "positive"),
    ([0, 1, 2], pd.Timedelta("1D"), None, TypeError, "needs dates"),
    ([0, 1, 5], 1.0, 3, ValueError, "later than now"),
    ([0, np.nan], 1.0, None, ValueError, "NaN"),
    ([], 1.0, None, ValueError, "empty"),
    (["soon", "later"], 1.0, None, TypeError, "labels such as 'soon' whose order is not known"),
    (["2008-09", "2009-10", "2010-13"], 1.0, None, TypeError,
     r"times\[2\] = '2010-13' is not one of the seasons"),
    ([True, False], 1.0, None, TypeError, "numbers, dates .* or seasons"),
])
def test_bad_decay_inputs_are_named(times, half_life, now, error, message):
    with pytest.raises(error, match=message):
        time_decay(times, half_life, now=now)


def linear():
    return SVMCompare(kernel="linear", scale_indicators=False, probability=True,
                      random_state=0)


@pytest.fixture(scope="module")
def season():
    X, y, items, _ = id_games(players=8, n=480, seed=7)
    week = np.arange(480) // 80  # six weeks of 80 games
    return X, y, items, week


def test_each_week_is_predicted_by_the_fit_on_earlier_weeks(season):
    X, y, items, week = season
    context = np.ones((y.size, 1))
    result = rolling_fit(linear(), X, y, week, context=context, items=items, progress=False)
    assert not result.predicted[week == 0].any() and result.predicted[week > 0].all()
    assert np.isnan(result.proba[week == 0]).all()
    for w in (1, 4):
        by_hand = linear().fit(X[week < w], y[week < w], context=context[week < w])
        rows = week == w
        np.testing.assert_allclose(result.proba[rows], by_hand.predict_proba(X[rows],
                                                                              context[rows]))
        np.testing.assert_allclose(result.decision[rows],
                                   by_hand.decision_function(X[rows], context[rows]))
    assert result.ratings.shape == (5, 8) and list(result.ratings.index) == [1, 2, 3, 4, 5]
    first = linear().fit(X[week < 1], y[week < 1], context=context[week < 1])
    np.testing.assert_allclose(result.ratings.iloc[0], first.rank(items))  # the first scale
    assert len(result.fit_seconds) == 5 and (result.fit_seconds > 0).all()


def test_rating_paths_are_on_one_scale(season):
    X, y, items, week = season
    ratings = rolling_fit(linear(), X, y, week, items=items, progress=False).ratings
    # Consecutive paths are aligned: no week's scores are a rescaled copy of the last's.
    for k in range(1, len(ratings)):
        previous, current = ratings.iloc[k - 1].to_numpy(), ratings.iloc[k].to_numpy()
        assert np.isclose(current.mean(), previous.mean())
    # The strongest simulated team (last) ends above the weakest (first).
    assert ratings.iloc[-1, 7] > ratings.iloc[-1, 0]


def test_an_id_has_no_rating_before_it_plays_and_does_not_move_the_others(season):
    X, y, items, week = season
    X = X.tocsr().astype(float)
    # Team 7 joins in week 3: its games before are dropped.
    late = (week < 3) & ((X[:, 7].toarray().ravel() != 0) | (X[:, 15].toarray().ravel() != 0))
    X, y, week = X[~late], y[~late], week[~late]
    ratings = rolling_fit(linear(), X, y, week, items=items, progress=False).ratings
    # The scores entering week 3 come from weeks 0-2: team 7 is rated from week 4.
    assert ratings.loc[[1, 2, 3], 7].isna().all() and ratings.loc[[4, 5], 7].notna().all()
    assert ratings.drop(columns=7).notna().all().all()
    # Week 4's map onto week 3's scale is fitted on the seven teams rated in both.
    raw = linear().fit(X[week < 4], y[week < 4]).rank(items)
    old = ratings.loc[3].to_numpy()[:7]
    new = ratings.loc[4].to_numpy()
    np.testing.assert_allclose(new[:7].mean(), old.mean())
    np.testing.assert_allclose(new[:7].std(), old.std())
    scale = new[:7].std() / raw[:7].std()
    np.testing.assert_allclose(new[7], raw[7] * scale + old.mean() - scale * raw[:7].mean())
    # Dense features rate every item: nothing is missing.
    dense = np.stack([X[:, :8].toarray(), X[:, 8:].toarray()], axis=1)
    dense_paths = rolling_fit(linear(), dense, y, week, items=items.toarray(),
                              progress=False).ratings
    assert dense_paths.loc[[1, 2, 3], 7].isna().all()
    features = np.concatenate([dense, np.ones(dense.shape[:2] + (1,))], axis=2)
    with_constant = rolling_fit(linear(), features, y, week, progress=False,
                                items=np.hstack([items.toarray(), np.ones((8, 1))])).ratings
    assert with_constant.notna().all().all()


def test_a_periods_warnings_name_the_period(season):
    from svmcompare.exceptions import DegenerateWarning

    X, y, items, week = season
    # class_weight None on identities with few ties: degenerate fits.
    model = SVMCompare(kernel="linear", scale_indicators=False, class_weight=None, C=10.0)
    with pytest.warns(DegenerateWarning) as caught:
        rolling_fit(model, X, y, week, first=4, progress=False)
    messages = [str(w.message) for w in caught if issubclass(w.category, DegenerateWarning)]
    assert messages and all(re.search(r"\(the fit before period [45]\)\.$", m) or
                            m.endswith("for the fits before period 5 (2 of 2 fits).")
                            for m in messages), messages
    assert all(w.filename == __file__ for w in caught)


def test_rating_paths_keep_their_spread_over_many_periods():
    # Forty weeks of few games: each week's fit is noisy, so its scores
    # correlate with last week's by well under 1.  A least-squares map onto
    # last week's scale shrank them by that correlation every week (a path's
    # spread 1.5 -> 0.00005 over 179 periods); a map that keeps the spread does not.
    X, y, items, _ = id_games(players=10, n=1200, seed=3)
    week = np.arange(1200) // 30
    model = SVMCompare(kernel="linear", scale_indicators=False, C=0.1)
    ratings = rolling_fit(model, X, y, week, first=4, items=items, progress=False).ratings
    spread = ratings.std(axis=1).to_numpy()
    np.testing.assert_allclose(spread, spread[0], rtol=1e-9)
    raw = [np.std(model.fit(X[week < w], y[week < w]).rank(items)) for w in (5, 39)]
    assert raw[1] / raw[0] < 0.9 or raw[1] / raw[0] > 1.1  # the fits' own scales move


def test_rating_paths_follow_a_reversal_of_the_order():
    # Four teams whose order reverses after the first period: with a short
    # half-life the second fit ranks them the other way round.  The map onto
    # the previous period's scale was a constant for a reversed order (as a
    # reversed bootstrap replicate is), and every later period, mapped onto a
    # reference without spread, stayed constant (review).
    import itertools

    import scipy.sparse as sp

    a, b, y, period = [], [], [], []
    for p in range(1, 6):
        strength = [3, 2, 1, 0] if p == 1 else [0, 1, 2, 3]
        for rep in range(6):
            for i, j in itertools.permutations(range(4), 2):
                diff = strength[j] - strength[i]
                a.append(i), b.append(j), period.append(p)
                y.append(0 if abs(diff) == 1 and rep % 3 == 0 else int(np.sign(diff)))
    rows = np.arange(len(a))
    X = sp.csr_matrix((np.ones(2 * len(a)), (np.r_[rows, rows], np.r_[a, 4 + np.array(b)])),
                      shape=(len(a), 8))  # x's id, then x''s
    model = SVMCompare(kernel="linear", scale_indicators=False, loss="squared_hinge")
    ratings = rolling_fit(model, X, np.array(y), np.array(period), half_life=0.2,
                          items=sp.identity(4, format="csr"), progress=False).ratings
    spread = ratings.std(axis=1).to_numpy()
    assert np.all(spread > 0.1 * spread[0])
    assert list(np.argsort(ratings.loc[2].to_numpy())) == [3, 2, 1, 0]  # period 1's order
    assert list(np.argsort(ratings.loc[5].to_numpy())) == [0, 1, 2, 3]  # reversed


def test_half_life_weighs_earlier_weeks_as_time_decay_does(season):
    X, y, _, week = season
    result = rolling_fit(linear(), X, y, week, half_life=2.0, first=5, progress=False)
    assert result.predicted.sum() == 80
    weight = time_decay(week[week < 5], 2.0)  # as of the latest earlier week
    by_hand = linear().fit(X[week < 5], y[week < 5], sample_weight=weight)
    np.testing.assert_allclose(result.proba[week == 5], by_hand.predict_proba(X[week == 5]))


def test_time_decay_reads_what_rolling_fit_reads():
    # time_decay refused an ordered Categorical that its own message offered
    # and numbers held as objects or text, which rolling_fit reads (review).
    order = pd.Categorical(["late", "early", "mid"], categories=["early", "mid", "late"],
                           ordered=True)
    np.testing.assert_allclose(time_decay(order, 1.0), [1.0, 0.25, 0.5])
    np.testing.assert_allclose(time_decay(order[1:], 1.0, now="late"), [0.25, 0.5])
    with pytest.raises(ValueError, match="not one of its categories"):
        time_decay(order, 1.0, now="never")
    for numbers in (np.array([1, 2], dtype=object), ["9", "10"]):
        np.testing.assert_allclose(time_decay(numbers, 1.0), [0.5, 1.0])


def test_ordered_categorical_times_age_by_position_in_rolling_fit(season):
    # rolling_fit turned a Categorical of times into an array (its order lost,
    # "labels whose order is not known"); a timedelta half-life for one named
    # numbers instead of the Categorical (review).
    X, y, _, week = season
    names = [f"w{k}" for k in range(int(week.max()) + 1)]
    times = pd.Categorical([names[k] for k in week], categories=names, ordered=True)
    by_position = rolling_fit(linear(), X, y, week, times=times, half_life=2.0, first=5,
                              progress=False)
    by_number = rolling_fit(linear(), X, y, week, times=week.astype(float), half_life=2.0,
                            first=5, progress=False)
    np.testing.assert_allclose(by_position.proba, by_number.proba)
    with pytest.raises(TypeError, match="times are an ordered Categorical's categories"):
        rolling_fit(linear(), X, y, times, half_life=pd.Timedelta("2D"), progress=False)


def test_a_timedelta_half_life_weighs_date_periods_as_days(season):
    # rolling_fit read the dates as numbers of days and then refused the
    # timedelta the docstring allows (review).
    X, y, _, week = season
    dates = pd.Timestamp("2024-08-01") + pd.to_timedelta(7 * week, unit="D")
    in_days = rolling_fit(linear(), X, y, dates.to_numpy(), half_life=14.0, first=dates[-1],
                          progress=False)
    as_delta = rolling_fit(linear(), X, y, dates.to_numpy(), half_life=pd.Timedelta("2W"),
                           first=dates[-1], progress=False)
    np.testing.assert_array_equal(as_delta.proba, in_days.proba)
    with pytest.raises(TypeError, match="a timedelta half_life needs dates"):
        rolling_fit(linear(), X, y, week, half_life=pd.Timedelta("2W"), progress=False)
    # Times that run against the periods are named, with their period.
    times = week.astype(float)
    times[3] = 99.0
    with pytest.raises(ValueError, match=r"times\[3\] \(period 0\) is later than the first "
                                         r"time of period 1"):
        rolling_fit(linear(), X, y, week, half_life=2.0, times=times, progress=False)


def test_first_is_read_as_the_periods_are(season):
    # Text against number periods compared as text ('12' before '9'); a first
    # against time-zone-aware dates raised pandas' "Cannot compare tz-naive and
    # tz-aware timestamps"; a number against dates read as 1970 (review).
    X, y, _, week = season
    numbers = 3 * week + 6
    as_text = rolling_fit(linear(), X, y, numbers, first="9", progress=False)
    np.testing.assert_array_equal(as_text.predicted, numbers >= 9)  # not '9' > '12' as text
    text_periods = rolling_fit(linear(), X, y, numbers.astype(str), first="9", progress=False)
    np.testing.assert_array_equal(text_periods.predicted, numbers >= 9)
    with pytest.raises(ValueError, match="first='nine' is not a number; the periods are numbers"):
        rolling_fit(linear(), X, y, numbers, first="nine", progress=False)
    with pytest.raises(ValueError, match="is not a number"):
        rolling_fit(linear(), X, y, numbers, first=pd.Timestamp("2020-01-01"), progress=False)
    assert np.all(rolling_fit(linear(), X, y, numbers, first=9, progress=False).predicted
                  == (numbers >= 9))
    dates = pd.Timestamp("2024-08-01", tz="UTC") + pd.to_timedelta(7 * week, unit="D")
    expected = week >= 3
    for first in ("2024-08-20", pd.Timestamp("2024-08-20"),
                  pd.Timestamp("2024-08-20 02:00", tz="Europe/Paris")):
        result = rolling_fit(linear(), X, y, dates, first=first, progress=False)
        np.testing.assert_array_equal(result.predicted, expected)
    with pytest.raises(ValueError, match="first=2 is not a date; the periods are dates"):
        rolling_fit(linear(), X, y, dates.tz_localize(None), first=2, progress=False)


@pytest.mark.parametrize("kwargs, message", [
    ({"periods": np.zeros(480)}, "single period"),
    ({"periods": np.arange(10)}, "shape"),
    ({"first": 0}, "no earlier period"),
    ({"first": 99}, "no earlier period"),
    ({"progress": "sometimes"}, "progress"),
])
def test_bad_rolling_inputs_are_named(season, kwargs, message):
    X, y, _, week = season
    arguments = {"periods": week, **kwargs}
    with pytest.raises(ValueError, match=message):
        rolling_fit(linear(), X, y, arguments.pop("periods"), **arguments)


def test_cli_fit_weighs_results_by_age(tmp_path, capsys):
    from svmcompare import load_model
    from svmcompare.cli import main

    X, y, items, week = id_games(players=6, n=300, seed=2)
    names = np.array([f"t{k}" for k in range(6)], dtype=object)
    a, b = X[:, :6].nonzero()[1], X[:, 6:].nonzero()[1]
    dates = np.datetime64("2024-01-01") + np.arange(300) // 10 * np.timedelta64(7, "D")
    pd.DataFrame({"item_a": names[a], "item_b": names[b], "y": y,
                  "day": pd.to_datetime(dates).strftime("%Y-%m-%d")}).to_csv(
        tmp_path / "games.csv", index=False)
    model = tmp_path / "m.skops"
    assert main(["fit", str(tmp_path / "games.csv"), "--time", "day", "--half-life", "70",
                 "--kernel", "linear", "--model", str(model)]) == 0
    assert "halve every 70 days" in capsys.readouterr().out
    by_hand = SVMCompare(kernel="linear", scale_indicators=False, random_state=0,
                         loss="squared_hinge").fit(X, y, sample_weight=time_decay(dates, 70.0))
    np.testing.assert_allclose(load_model(model).rank(items.toarray()), by_hand.rank(items),
                               atol=1e-6)
    assert main(["fit", str(tmp_path / "games.csv"), "--half-life", "70",
                 "--model", str(model)]) == 2
    assert "go together" in capsys.readouterr().err


def test_rating_paths_are_plotted(season, tmp_path):
    pytest.importorskip("matplotlib")
    from svmcompare.temporal import plot_rating_paths

    X, y, items, week = season
    ratings = rolling_fit(linear(), X, y, week, items=items, item_ids=[f"t{k}" for k in range(8)],
                          progress=False).ratings
    fig = plot_rating_paths(ratings, top=3)
    lines = fig.axes[0].get_lines()
    assert len(lines) == 3
    best = ratings.iloc[-1].sort_values(ascending=False).index[:3].tolist()
    assert [line.get_label() for line in lines] == best
    np.testing.assert_allclose(lines[0].get_ydata(), ratings[best[0]].to_numpy())
    plot_rating_paths(ratings, tmp_path / "paths.png")
    assert (tmp_path / "paths.png").read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(ValueError, match="non-empty DataFrame"):
        plot_rating_paths(None)


def _league_files(tmp_path):
    from svmcompare.cli import main

    assert main(["league", "--out", str(tmp_path / "lg")]) == 0
    return tmp_path / "lg" / "matches.csv"


ROLLING = ["--a", "home", "--b", "away", "--outcome", "result", "--outcome-map",
           "H=-1,D=0,A=1", "--context", "home_adv", "--period", "season", "--no-progress"]


def test_cli_rolling_writes_what_rolling_fit_predicts(tmp_path, capsys):
    import scipy.sparse as sp

    from svmcompare.cli import main
    from svmcompare.io import PairColumns, identities_of, read_pair_extras, read_pairs

    matches = _league_files(tmp_path)
    out, paths, plot = tmp_path / "roll.csv", tmp_path / "paths.csv", tmp_path / "paths.png"
    assert main(["rolling", str(matches), *ROLLING, "--half-life", "1", "-o", str(out),
                 "--ratings", str(paths), "--plot", str(plot)]) == 0
    assert "3 periods replayed (720 games predicted" in capsys.readouterr().out
    # The same replay in Python, on the same pairs.
    columns = PairColumns(a="home", b="away", outcome="result",
                          outcome_map={"H": -1, "D": 0, "A": 1}, context=("home_adv",),
                          sparse_identities=True)
    X, y, features, context = read_pairs(matches, return_context=True, columns=columns)
    _, extras = read_pair_extras(matches, columns)
    ids = identities_of(features)
    # A table of ids: the command line's replay takes the squared hinge.
    expected = rolling_fit(SVMCompare(kernel="linear", probability=True, random_state=0,
                                      scale_indicators=False, loss="squared_hinge"),
                           X, y, extras["season"].to_numpy(dtype=float), context=context,
                           half_life=1.0,
                           items=sp.identity(len(ids), format="csr"), item_ids=ids,
                           progress=False)
    written = pd.read_csv(out)
    done = expected.predicted
    assert list(written["season"].unique()) == [2, 3, 4]
    # The file's own columns come first, its result and advantage included.
    source = pd.read_csv(matches)
    assert list(written.columns[:source.shape[1]]) == list(source.columns)
    pd.testing.assert_frame_equal(written[source.columns],
                                  source[source["season"] > 1].reset_index(drop=True))
    np.testing.assert_allclose(written[["p_x_better", "p_tie", "p_xprime_better"]],
                               expected.proba[done])
    np.testing.assert_array_equal(written["y"], y[done])
    ratings = pd.read_csv(paths, index_col="season")
    assert ratings.shape == (3, 16)
    np.testing.assert_allclose(ratings.to_numpy(), expected.ratings.to_numpy())
    assert plot.stat().st_size > 0
    # --first: only the last season predicted.  A --plot path without an
    # extension is written as .png, and the message names that file (review r14).
    capsys.readouterr()
    assert main(["rolling", str(matches), *ROLLING, "--first", "4", "-o", str(out),
                 "--plot", str(tmp_path / "last")]) == 0
    assert list(pd.read_csv(out)["season"].unique()) == [4]
    assert f"rating paths drawn to {tmp_path / 'last.png'}\n" in capsys.readouterr().out
    assert (tmp_path / "last.png").stat().st_size > 0 and not (tmp_path / "last").exists()


@pytest.mark.parametrize("extra, message", [
    (["--period", "round"], "no column 'round' for --period"),
    (["--time", "season"], "add --half-life"),
    (["--first", "late"], "--first 'late' is not a number"),
    (["--first", "9"], "first=9 leaves no earlier period to fit on or no period to predict"),
])
def test_cli_rolling_errors_name_the_option(tmp_path, capsys, extra, message):
    from svmcompare.cli import main

    matches = _league_files(tmp_path)
    assert main(["rolling", str(matches), *ROLLING, *extra, "-o", str(tmp_path / "r.csv")]) == 2
    assert message in capsys.readouterr().err


def test_cli_rolling_replays_the_rows_until_and_after_keep(tmp_path, capsys):
    # The kept rows' check of empty periods and-ed a read-only array (pandas'
    # to_numpy under copy-on-write): every --until / --after failed (review).
    from svmcompare.cli import main

    matches = _league_files(tmp_path)
    out = tmp_path / "r.csv"
    assert main(["rolling", str(matches), *ROLLING, "--until", "season=3", "-o", str(out)]) == 0
    assert list(pd.read_csv(out)["season"].unique()) == [2, 3]
    assert main(["rolling", str(matches), *ROLLING, "--after", "season=1", "-o", str(out)]) == 0
    assert list(pd.read_csv(out)["season"].unique()) == [3, 4]
    assert main(["rolling", str(matches), *ROLLING, "--until", "season=1", "-o", str(out)]) == 2
    assert "a single period: nothing earlier to fit on" in capsys.readouterr().err


def test_cli_rolling_fits_a_linear_model_unless_told_otherwise(tmp_path, capsys):
    # On history features the RBF default of fit overfits a replay (a new
    # user's rugby: 0.6732 against 0.6169) at 27x the time: rolling is linear.
    from svmcompare.cli import main

    matches = _league_files(tmp_path)
    features = tmp_path / "f.csv"
    assert main(["features", str(matches), "--a", "home", "--b", "away", "--outcome",
                 "result", "--outcome-map", "H=-1,D=0,A=1", "--time", "season",
                 "--advantage", "home_adv", "-o", str(features)]) == 0
    common = ["rolling", str(features), "--a", "home", "--b", "away", "--outcome", "result",
              "--outcome-map", "H=-1,D=0,A=1", "--context", "ctx_advantage", "--period",
              "season", "--first", "3", "--no-progress"]
    outputs = {}
    for name, extra in (("default", []), ("linear", ["--kernel", "linear"]),
                        ("rbf", ["--kernel", "rbf"])):
        assert main([*common, *extra, "-o", str(tmp_path / f"{name}.csv")]) == 0
        outputs[name] = pd.read_csv(tmp_path / f"{name}.csv")["p_tie"].to_numpy()
    np.testing.assert_array_equal(outputs["default"], outputs["linear"])
    assert not np.allclose(outputs["default"], outputs["rbf"])


def test_cli_rolling_names_a_result_without_a_period(tmp_path, capsys):
    from svmcompare.cli import main

    matches = _league_files(tmp_path)
    frame = pd.read_csv(matches).astype({"season": object})
    frame.loc[3, "season"] = None
    frame.to_csv(matches, index=False)
    assert main(["rolling", str(matches), *ROLLING, "-o", str(tmp_path / "r.csv")]) == 2
    assert "1 row(s) have no 'season' (first on line 5)" in capsys.readouterr().err


def test_cli_rolling_orders_dates_as_time_and_refuses_labels(tmp_path, capsys):
    from svmcompare.cli import main

    matches = _league_files(tmp_path)
    frame = pd.read_csv(matches)
    # Day-first dates whose text order is not their time order.
    frame["date"] = frame["season"].map({1: "20/12/2021", 2: "15/01/2022", 3: "16/02/2022",
                                         4: "10/03/2022"})
    frame["label"] = "Week " + frame["season"].astype(str)
    frame.to_csv(matches, index=False)
    by_season, by_date = tmp_path / "season.csv", tmp_path / "date.csv"
    assert main(["rolling", str(matches), *ROLLING, "-o", str(by_season)]) == 0
    dated = [arg if arg != "season" else "date" for arg in ROLLING]
    assert main(["rolling", str(matches), *dated, "-o", str(by_date), "--ratings",
                 str(tmp_path / "paths.csv"), "--first", "2022-02-16"]) == 0
    paths = pd.read_csv(tmp_path / "paths.csv")
    assert list(paths["date"]) == ["2022-02-16", "2022-03-10"]
    seasons, dates = pd.read_csv(by_season), pd.read_csv(by_date)
    later = seasons[seasons["season"] >= 3].reset_index(drop=True)
    np.testing.assert_allclose(dates["p_tie"], later["p_tie"])  # the same replay
    capsys.readouterr()
    labelled = [arg if arg != "season" else "label" for arg in ROLLING]
    assert main(["rolling", str(matches), *labelled, "-o", str(by_date)]) == 2
    assert "holds labels such as 'Week 1' whose order is not known" in capsys.readouterr().err


def test_a_period_whose_fit_fails_is_named():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2, 3))
    y = np.r_[np.ones(10, dtype=int), np.tile([-1, 0, 1], 10)]  # period 1: one label only
    periods = np.r_[np.ones(10), np.repeat([2, 3], 15)]
    with pytest.raises(ValueError, match="before period 2.0 failed"):
        rolling_fit(SVMCompare(kernel="linear", probability=True), X, y, periods,
                    progress=False)


def test_cli_fit_reads_time_as_rolling_does(tmp_path, capsys):
    from svmcompare.cli import main

    matches = _league_files(tmp_path)
    frame = pd.read_csv(matches)
    frame["day"] = 20240101 + frame["season"]  # YYYYMMDD numbers are dates
    frame["label"] = "S" + frame["season"].astype(str)
    frame.to_csv(matches, index=False)
    base = ["fit", str(matches), "--a", "home", "--b", "away", "--outcome", "result",
            "--outcome-map", "H=-1,D=0,A=1", "--model", str(tmp_path / "m.skops"),
            "--half-life", "1", "--no-progress"]
    assert main([*base, "--time", "day"]) == 0
    assert "weights halve every 1 days" in capsys.readouterr().out
    frame["campaign"] = (2017 + frame["season"]).astype(str) + "-" + \
        (18 + frame["season"]).astype(str)  # 2018-19, ...
    frame.to_csv(matches, index=False)
    assert main([*base, "--time", "campaign", "--kernel", "linear"]) == 0
    assert "weights halve every 1 seasons" in capsys.readouterr().out
    by_number = tmp_path / "n.skops"
    assert main([*base[:-5], "--model", str(by_number), "--half-life", "1", "--no-progress",
                 "--time", "season", "--kernel", "linear"]) == 0
    capsys.readouterr()
    from svmcompare import load_model

    np.testing.assert_allclose(load_model(tmp_path / "m.skops").coef_,
                               load_model(by_number).coef_)
    assert main([*base, "--time", "label"]) == 2
    assert "the --time column 'label' holds labels such as 'S1'" in capsys.readouterr().err


@pytest.mark.parametrize("times, now, error, message", [
    (pd.to_datetime(["2020-01-01", None]), None, ValueError, r"times\[1\] is missing"),
    (["2020-01-01", None, "2020-01-03"], None, ValueError, r"times\[1\] is missing"),
    ([1, np.inf], None, ValueError, r"times\[1\] is inf"),
    ([1, 2, 3], "2020-01-01", TypeError, "times are numbers but now='2020-01-01' is a date"),
    (["2020-01-01"], 5, TypeError, "times are dates but now=5 is a number"),
    (["2020-01-01"], pd.NaT, ValueError, "now is missing"),
    ([1, 2], [3], ValueError, "now must be one time"),
    ([[1, 2], [3, 4]], None, ValueError, r"1-D .* shape \(2, 2\)"),
    ([20200101, 20200230, 20200301], None, ValueError,
     r"^times\[1\] = 20200230 is not a date: YYYYMMDD numbers need a real month and day\.$"),
])
def test_bad_decay_times_are_named_with_their_position(times, now, error, message):
    with pytest.raises(error, match=message):
        time_decay(times, 30, now=now)


def test_a_numeric_now_for_numbers_is_a_number_and_for_dates_a_date():
    # Round 20240101 is a number when times are numbers, a date when they are dates.
    np.testing.assert_allclose(time_decay([20240100, 20240101], 1, now=20240101), [0.5, 1.0])
    np.testing.assert_allclose(time_decay(["2024-01-01"], 1, now=20240102), [0.5])


@pytest.mark.parametrize("periods, error, message", [
    (np.r_[np.zeros(240), np.nan, np.ones(239)], ValueError, r"periods\[240\] is missing"),
    ([0] * 240 + [None] + [1] * 239, ValueError, r"periods\[240\] is missing"),
    ([0] * 240 + ["a"] + [1] * 239, TypeError, "all numbers, all dates or all sortable labels"),
    (np.array([0] * 240 + ["a"] + [1] * 239, dtype=object), TypeError, "got int, str"),
])
def test_missing_and_mixed_periods_are_refused_up_front(season, periods, error, message):
    X, y, _, _ = season
    with pytest.raises(error, match=message):
        rolling_fit(linear(), X, y, periods, progress=False)


def test_rolling_times_are_read_as_time_decay_reads_them(season):
    X, y, items, week = season
    days = pd.Series(pd.date_range("2024-01-01", periods=y.size, freq="h"))
    days.iloc[5] = pd.NaT
    with pytest.raises(ValueError, match=r"times\[5\] is missing"):
        rolling_fit(linear(), X, y, week, times=days.to_numpy(), half_life=30, progress=False)


_MONTHS = ["June", "July", "August", "September", "October", "November"]  # not in text order


def test_an_ordered_categorical_ages_by_its_declared_order(season):
    X, y, _, week = season
    names = np.array(["pre", "opening", "early", "mid", "late", "final"])
    periods = pd.Categorical(names[week], categories=list(names), ordered=True)
    result = rolling_fit(linear(), X, y, periods, half_life=2.0, first="final", progress=False)
    weight = time_decay(week[week < 5], 2.0)  # positions 0..4 of the categories: as of 4
    by_hand = linear().fit(X[week < 5], y[week < 5], sample_weight=weight)
    np.testing.assert_allclose(result.proba[week == 5], by_hand.predict_proba(X[week == 5]))


def test_an_ordered_categorical_is_replayed_in_its_declared_order(season):
    X, y, items, week = season
    by_week = rolling_fit(linear(), X, y, week, first=3, items=items, progress=False)
    months = pd.Series(pd.Categorical(np.array(_MONTHS)[week], categories=_MONTHS,
                                      ordered=True))
    by_month = rolling_fit(linear(), X, y, months, first="September", items=items,
                           progress=False)
    np.testing.assert_array_equal(by_month.predicted, week >= 3)
    np.testing.assert_allclose(by_month.proba, by_week.proba)
    assert list(by_month.ratings.index) == ["September", "October", "November"]
    assert list(by_month.fit_seconds.index) == ["September", "October", "November"]
    with pytest.raises(ValueError, match="not one of the periods' categories"):
        rolling_fit(linear(), X, y, months, first="May", progress=False)


def test_periods_written_as_dates_or_seasons_are_replayed_in_time_order(season):
    X, y, _, week = season
    expected = rolling_fit(linear(), X, y, week, first=4, progress=False).proba
    days = pd.Timestamp("2020-01-04") + pd.to_timedelta(week * 7, "D")  # Jan 04 ... Feb 08
    for periods, first in ((days.strftime("%b %d, %Y").to_numpy(), "Feb 01, 2020"),
                           (days.strftime("%b %d, %Y").to_numpy(), "2020-01-30"),
                           (days.strftime("%d/%m/%Y").to_numpy(), "01/02/2020"),
                           (np.array([f"{2019 + w}-{20 + w}" for w in week]), "2023-24")):
        result = rolling_fit(linear(), X, y, periods, first=first, progress=False)
        np.testing.assert_allclose(result.proba, expected)
    assert list(result.fit_seconds.index) == ["2023-24", "2024-25"]
    with pytest.raises(ValueError, match=r"labels such as 'Week 0' whose order is not known "
                                         r"\(periods\[0\]\)"):
        rolling_fit(linear(), X, y, np.array([f"Week {w}" for w in week]), progress=False)
    bad = days.strftime("%m/%d/%Y").to_numpy().copy()
    bad[100] = "02/30/2020"
    with pytest.raises(ValueError, match=r"periods\[100\] = '02/30/2020' is not a date"):
        rolling_fit(linear(), X, y, bad, progress=False)


def test_time_decay_reads_date_spellings_and_names_an_impossible_date():
    np.testing.assert_allclose(time_decay(["Jan 01, 2024", "Jan 15, 2024", "29 January 2024"],
                                          14), [0.25, 0.5, 1.0])
    with pytest.raises(ValueError, match=r"^times\[1\] = '02/30/2024' is not a date"):
        time_decay(["01/13/2024", "02/30/2024", "03/01/2024"], 14)


def test_a_naive_now_is_read_on_the_clock_of_zoned_times():
    # now="2020-01-03" next to New York times was taken as UTC (weights off
    # by five hours; now="2020-01-02" was refused as earlier than a game),
    # with a pandas warning about time zones on the way.
    import warnings

    times = pd.Series(pd.to_datetime(["2020-01-01", "2020-01-02"]).tz_localize(
        "America/New_York"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(time_decay(times, 1, now="2020-01-03"), [0.25, 0.5])
        np.testing.assert_allclose(time_decay(times, 1, now="2020-01-02"), [0.5, 1.0])
        np.testing.assert_allclose(time_decay(list(times), 1, now="2020-01-03"), [0.25, 0.5])
        # A zoned now is its own instant: 05:00 UTC is midnight in New York.
        np.testing.assert_allclose(time_decay(times, 1, now="2020-01-03T05:00:00+00:00"),
                                   [0.25, 0.5])
        np.testing.assert_allclose(time_decay(times, 1), [0.5, 1.0])


def test_a_naive_now_the_zone_skips_or_repeats_is_read():
    # 02:30 on the night clocks go forward does not exist in Berlin, and on
    # the night they go back it happens twice: pandas' own errors came out.
    for day, now in (("2024-03-30", "2024-03-31 02:30"), ("2024-10-26", "2024-10-27 02:30")):
        times = pd.Series(pd.to_datetime([f"{day} 02:30"]).tz_localize("Europe/Berlin"))
        weight = time_decay(times, 1, now=now)[0]
        assert 0.47 < weight < 0.53  # a day (give or take the hour the clocks move)


def test_a_unix_clock_read_as_numbers_is_named():
    """Seconds since 1970 as numbers: every second a period and a half-life in
    seconds, silently; the warning names the clock and the fix, and the
    values stay numbers (the user may mean them)."""
    seconds = 1_600_000_000 + 86_400 * np.arange(4)
    with pytest.warns(UserWarning, match=r"Unix clock \(seconds since 1970: 2020-09-13 to "
                                         r"2020-09-16\).*unit='s'"):
        weights = time_decay(seconds, 86_400)
    np.testing.assert_allclose(weights, [0.125, 0.25, 0.5, 1.0])
    with pytest.warns(UserWarning, match=r"milliseconds since 1970.*unit='ms'"):
        time_decay(1000 * seconds, 86_400_000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        time_decay([1, 2, 3], 1)  # rounds
        time_decay([20240101, 20240115], 14)  # YYYYMMDD dates
        time_decay(np.array([1.6e9 + 0.5, 1.6e9 + 1]), 1)  # not integers
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # stamps, not clocks: YYYYMMDDHH, YYYYMMDDHHMM
        time_decay([2020010112, 2020010118], 6)
        time_decay([202001011230, 202001011830], 6)
    X, y, _, _ = id_games(players=6, n=40, seed=0)
    with pytest.warns(UserWarning, match="periods holds integers"):
        rolling_fit(SVMCompare(kernel="linear"), X, y,
                    1_600_000_000 + 86_400 * np.repeat(np.arange(4), 10))
    # Rounds as periods, a Unix clock as the times that age them: named too.
    with pytest.warns(UserWarning, match="times holds integers"):
        rolling_fit(SVMCompare(kernel="linear"), X, y, np.repeat(np.arange(4), 10),
                    times=1_600_000_000 + 86_400 * np.arange(40), half_life=30 * 86_400)


def test_a_break_before_the_period_predicted_does_not_shrink_the_weights(season):
    """Ages were measured from the predicted period's start: ten idle years
    before it shrank every weight alike (a far smaller C) to a model of
    scores near 1e-37 (a review). Now as of the latest earlier result."""
    X, y, _, week = season
    days = 7.0 * week
    later = np.where(week == 5, days + 3650.0, days)
    near = rolling_fit(linear(), X, y, week, times=days, half_life=30.0, first=5,
                       progress=False)
    far = rolling_fit(linear(), X, y, week, times=later, half_life=30.0, first=5,
                      progress=False)
    np.testing.assert_allclose(far.decision, near.decision)
    assert np.nanmax(np.abs(far.decision)) > 0.1


def test_a_warning_of_every_periods_fit_is_said_once_with_its_periods(season):
    """A degenerate fit of every season printed the same 900 characters six
    times (a review's replay)."""
    import warnings

    from svmcompare.exceptions import DegenerateWarning

    X, y, _, week = season
    degenerate = SVMCompare(kernel="linear", class_weight=None, C=100.0, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rolling_fit(degenerate, X, y, week, first=2, progress=False)
    said = [w for w in caught if issubclass(w.category, DegenerateWarning)]
    assert said, "the fits were expected to be degenerate"
    messages = [str(w.message) for w in said]
    # Each kind said in full once, as it comes (with its period), and a kind
    # that came again one short line at the end; every fit counted once.
    full = [m for m in messages if m.startswith("SVMCompare found beta")]
    again = [m for m in messages if "came again" in m]
    # A summary says which warning came again (two kinds of one period were one line).
    assert all(m.startswith('The warning "SVMCompare found beta = ') for m in again)
    assert len(full) + len(again) == len(messages) and len(full) <= 2, messages
    assert all(len(m) < 250 for m in again) and again, messages
    counted = len(full) + sum(int(re.search(r"\((\d+) of 4 fits\)\.$", m).group(1)) - 1
                              for m in again)
    assert counted == 4, messages


def test_replays_in_threads_leave_the_warnings_machinery_as_it_was(season):
    """Each period's fit records its warnings (catch_warnings, process-wide):
    replays in threads restored each other's filters and every later warning
    of the process was dropped (a review)."""
    import threading
    import warnings

    X, y, _, week = season
    degenerate = SVMCompare(kernel="linear", class_weight=None, C=100.0, random_state=0)
    filters = list(warnings.filters)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        inner = list(warnings.filters)
        threads = [threading.Thread(target=rolling_fit, args=(degenerate, X, y, week),
                                    kwargs={"first": 2, "progress": False}) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert warnings.filters == inner
        warnings.warn("probe", UserWarning, stacklevel=1)
    assert any(str(w.message) == "probe" for w in caught)
    assert warnings.filters == filters


@pytest.mark.parametrize("half_life, dense", [(None, False), (2.0, False), (3.0, True)])
def test_a_replay_of_ids_continues_one_model_as_refits_would(season, half_life, dense,
                                                             monkeypatch):
    """incremental="auto": partial_fit adds each week to one squared-hinge model
    of ids; its predictions and rating paths are the refits' (tol 1e-8; the
    paths were a constant apart until stop 70: partial_fit's ids are not
    centered as fit's are)."""
    X, y, items, week = season
    calls, partial_fit = [], SVMCompare.partial_fit
    monkeypatch.setattr(SVMCompare, "partial_fit",
                        lambda self, *a, **k: calls.append(len(a[1])) or partial_fit(self, *a, **k))
    if dense:
        X = X.toarray().reshape(-1, 2, 8)
    context = np.ones((y.size, 1))
    model = SVMCompare(kernel="linear", loss="squared_hinge", scale_indicators=False,
                       probability=True, random_state=0, tol=1e-8)
    runs = {mode: rolling_fit(model, X, y, week, context=context, items=items,
                              half_life=half_life, progress=False, incremental=mode)
            for mode in ("auto", False)}
    continued, refitted = runs["auto"], runs[False]
    assert calls == [80] * 5  # each week added once, the first week's fit included
    np.testing.assert_allclose(continued.proba[week > 0], refitted.proba[week > 0], atol=1e-7)
    np.testing.assert_allclose(continued.decision[week > 0], refitted.decision[week > 0],
                               atol=1e-7)
    np.testing.assert_allclose(continued.ratings.to_numpy(), refitted.ratings.to_numpy(),
                               atol=1e-6)


def test_a_replay_that_partial_fit_cannot_give_refits(season, monkeypatch):
    """Features standardized by fit (scale_indicators=True) are refitted."""
    X, y, _, week = season
    calls = []
    monkeypatch.setattr(SVMCompare, "partial_fit",
                        lambda self, *a, **k: calls.append(1) or self)
    model = SVMCompare(kernel="linear", loss="squared_hinge", probability=True)
    rolling_fit(model, X, y, week, progress=False)
    assert not calls
    with pytest.raises(ValueError, match="incremental"):
        rolling_fit(model, X, y, week, progress=False, incremental=True)
