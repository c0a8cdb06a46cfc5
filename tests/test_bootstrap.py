"""Bootstrap intervals (BootstrapCompare): resampling, the weighted fit of a
resample, intervals against brute force, reproducibility, model files and
bad input."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

from svmcompare import BootstrapCompare, SVMCompare, SVMCompareCV, load_model, save_model
from svmcompare._validation import check_pairs_labels
from svmcompare.bootstrap import (
    _fit_replicate,
    alignment,
    positions,
    resample_counts,
    search_held_out,
)


def id_games(players=12, n=600, seed=0):
    """Identities: sparse wide pairs, the one-hot items and labels."""
    rng = np.random.default_rng(seed)
    strength = np.linspace(-1.5, 1.5, players)
    a = rng.integers(0, players, n)
    b = (a + rng.integers(1, players, n)) % players
    d = strength[b] - strength[a] + rng.logistic(size=n)
    y = np.where(d > 0.8, 1, np.where(d < -0.8, -1, 0))
    rows = np.arange(n)
    X = sp.csr_matrix((np.ones(2 * n), (np.r_[rows, rows], np.r_[a, players + b])),
                      shape=(n, 2 * players))
    return X, y, sp.identity(players, format="csr"), strength


def linear(**params):
    return SVMCompare(kernel="linear", scale_indicators=False, **params)


@pytest.fixture(scope="module")
def fitted():
    X, y, items, _ = id_games()
    model = BootstrapCompare(linear(probability=True), n_resamples=40, random_state=0,
                             progress=False).fit(X, y)
    return model, X, y, items


def test_resample_counts_draw_n_rows_or_whole_groups():
    counts = resample_counts(50, 30, random_state=1)
    assert counts.shape == (30, 50) and (counts.sum(axis=1) == 50).all()
    assert np.array_equal(counts, resample_counts(50, 30, random_state=1))
    assert len({row.tobytes() for row in counts}) == 30  # every resample differs
    groups = np.repeat(["a", "b", "c", "d", "e"], [3, 7, 10, 5, 25])
    counts = resample_counts(50, 30, groups, random_state=2)
    for g in np.unique(groups):  # a group's rows are drawn together
        assert (counts[:, groups == g] == counts[:, groups == g][:, :1]).all()
    first = np.unique(groups, return_index=True)[1]
    assert (counts[:, first].sum(axis=1) == 5).all()  # 5 groups drawn per resample


def test_a_weighted_resample_is_the_resample_with_rows_repeated():
    X, y, items, _ = id_games(n=300)
    model = BootstrapCompare(linear(tol=1e-8), n_resamples=2, random_state=3,
                             progress=False).fit(X, y)
    counts = resample_counts(y.size, 2, random_state=3)[0]
    repeated = np.repeat(np.arange(y.size), counts)
    direct = linear(tol=1e-8).fit(X[repeated], y[repeated])
    np.testing.assert_allclose(model.replicates_[0].rank(items), direct.rank(items),
                               atol=1e-5)


def test_intervals_are_quantiles_of_the_replicates(fitted):
    model, X, y, items = fitted
    replicated = model.rank_replicates(items)
    assert replicated.shape == (40, items.shape[0])
    lower, upper = model.rank_interval(items, 0.8)
    np.testing.assert_allclose(lower, np.quantile(replicated, 0.1, axis=0))
    np.testing.assert_allclose(upper, np.quantile(replicated, 0.9, axis=0))
    wider = model.rank_interval(items, 0.95)
    assert (wider[0] <= lower + 1e-12).all() and (wider[1] >= upper - 1e-12).all()
    # Probabilities: at the nominal level the calibration found for 90%.
    level = model._proba_level(0.9)
    p_lower, p_upper = model.predict_proba_interval(X[:25])
    P = model.proba_replicates(X[:25])
    np.testing.assert_allclose(p_lower, np.quantile(P, (1 - level) / 2, axis=0))
    np.testing.assert_allclose(p_upper, np.quantile(P, (1 + level) / 2, axis=0))
    assert (0 <= p_lower).all() and (p_upper <= 1).all() and (p_lower <= p_upper).all()
    percentile = clone(model).set_params(proba_interval="percentile").fit(X, y)
    assert percentile.proba_levels_ is None and percentile.proba_coverage_ is None
    p_lower, p_upper = percentile.predict_proba_interval(X[:25])
    np.testing.assert_allclose(p_lower, np.quantile(P, 0.05, axis=0))
    np.testing.assert_allclose(p_upper, np.quantile(P, 0.95, axis=0))


def test_replicates_are_put_on_the_point_models_scale(fitted):
    model, X, _, items = fitted
    raw = np.stack([r.rank(items) for r in model.replicates_])
    aligned = model.rank_replicates(items)
    np.testing.assert_allclose(aligned, model.scales_[:, None] * raw + model.offsets_[:, None])
    assert (model.scales_ >= 0).all()
    # A replicate that is the point model times 3 plus 1 maps back onto it exactly.
    reference = model.rank(items)
    assert np.allclose(alignment(reference, 3 * reference + 1), (1 / 3, -1 / 3))
    assert alignment(reference, -reference)[0] == 0.0  # reversed: no positive scale


def test_a_noisy_replicate_keeps_the_spread_of_the_reference():
    # The least-squares slope would be corr * sd ratio, pulling the replicate's
    # scores toward the mean (intervals narrowed around the middle).
    rng = np.random.default_rng(0)
    reference = rng.normal(size=200)
    replicate = 5.0 * (reference + rng.normal(size=200)) - 2.0  # correlation ~0.7
    scale, offset = alignment(reference, replicate)
    mapped = scale * replicate + offset
    assert np.isclose(mapped.mean(), reference.mean())
    assert np.isclose(mapped.std(), reference.std())
    assert alignment(reference, np.zeros(200)) == (0.0, reference.mean())
    # Scores that spread by rounding noise (a resample with u = 0 up to 1e-16)
    # have no order to blow up to the reference's spread (a scale of 4e9 did).
    noise = 1e-16 * rng.normal(size=200)
    assert alignment(reference, noise)[0] == 0.0
    assert alignment(reference, noise, reversed_to_constant=False)[0] == 1.0


def test_positions_count_strictly_better_items():
    scores = np.array([0.5, 2.0, 0.5, -1.0, 2.0])
    expected = [1 + int(np.sum(scores > s)) for s in scores]
    assert positions(scores).tolist() == expected == [3, 1, 3, 5, 1]
    many = np.random.default_rng(0).normal(size=(7, 9))
    assert np.array_equal(positions(many), np.stack([positions(row) for row in many]))


def test_position_intervals_hold_the_strongest_and_weakest(fitted):
    model, _, _, items = fitted
    best, worst = model.rank_position_interval(items)
    point = model.rank_positions(items)
    assert (1 <= best).all() and (worst <= items.shape[0]).all() and (best <= worst).all()
    assert np.mean((best <= point) & (point <= worst)) > 0.8
    # The strongest simulated item (last) is near the top, the weakest near the bottom.
    assert best[-1] <= 3 and worst[0] >= items.shape[0] - 2


def test_intervals_shrink_like_one_over_root_n():
    widths = []
    for n in (500, 2000):
        X, y, items, _ = id_games(n=n, seed=n)
        # Weights 500 / n: the same objective at both sizes (C times the total weight).
        model = BootstrapCompare(linear(C=0.01), n_resamples=60, random_state=0,
                                 progress=False).fit(X, y, sample_weight=np.full(n, 500 / n))
        lower, upper = model.rank_interval(items)
        # On the scale of the point model's scores (Lemma 1's scale is its own).
        widths.append(np.mean(upper - lower) / np.std(model.rank(items)))
    assert 1.5 < widths[0] / widths[1] < 2.6  # sqrt(4) = 2


def test_same_intervals_whatever_n_jobs():
    X, y, items, _ = id_games(n=300)
    one = BootstrapCompare(linear(), n_resamples=6, random_state=5, n_jobs=1,
                           progress=False).fit(X, y)
    two = BootstrapCompare(linear(), n_resamples=6, random_state=5, n_jobs=2,
                           progress=False).fit(X, y)
    np.testing.assert_array_equal(one.rank_replicates(items), two.rank_replicates(items))
    other = BootstrapCompare(linear(), n_resamples=6, random_state=6, progress=False).fit(X, y)
    assert not np.array_equal(one.rank_replicates(items), other.rank_replicates(items))


def test_point_estimates_are_the_fit_on_all_pairs(fitted):
    model, X, y, items = fitted
    alone = linear(probability=True, random_state=0).fit(X, y)  # its calibration folds
    np.testing.assert_allclose(model.rank(items), alone.rank(items))
    np.testing.assert_allclose(model.predict_proba(X[:10]), alone.predict_proba(X[:10]))
    assert np.array_equal(model.predict(X[:10]), alone.predict(X[:10]))
    assert model.score(X, y) == alone.score(X, y)


def test_a_search_is_run_once_and_its_choice_refitted():
    X, y, items, _ = id_games(n=400)
    search = SVMCompareCV(param_grid={"kernel": ["linear"], "C": [0.01, 1.0]}, cv=3,
                          progress=False)
    model = BootstrapCompare(search, n_resamples=3, random_state=0, progress=False).fit(X, y)
    chosen = model.estimator_.best_params_["C"]
    assert all(type(r) is SVMCompare and r.C == chosen for r in model.replicates_)


def drifting_seasons(players=12, seasons=6, per=150, drift=3.0, seed=1):
    """Identities whose strengths move from season to season: a model that
    never saw a season forecasts it far less sharply than one that did."""
    rng = np.random.default_rng(seed)
    base = np.linspace(-1.5, 1.5, players)
    a, b, y = [], [], []
    for _ in range(seasons):
        strength = base + drift * rng.standard_normal(players)
        first = rng.integers(0, players, per)
        second = (first + rng.integers(1, players, per)) % players
        d = strength[second] - strength[first] + rng.logistic(size=per)
        a.append(first), b.append(second)
        y.append(np.where(d > 0.8, 1, np.where(d < -0.8, -1, 0)))
    a, b, y = map(np.concatenate, (a, b, y))
    rows = np.arange(y.size)
    X = sp.csr_matrix((np.ones(2 * y.size), (np.r_[rows, rows], np.r_[a, players + b])),
                      shape=(y.size, 2 * players))
    return X, y, np.repeat(np.arange(seasons), per)


def test_a_search_s_replicates_fit_their_links_as_the_search_fitted_the_point_s():
    # The search's point link is fitted on held-out scores of season folds;
    # replicates of the chosen model with out-of-bag links (models that saw
    # every season) were sharper, and left 46% of the point probabilities
    # outside their own 90% intervals here (12% on Test cricket by decade).
    X, y, seasons = drifting_seasons()
    grid = {"kernel": ["linear"], "scale_indicators": [False], "loss": ["squared_hinge"],
            "C": [0.01]}
    search = SVMCompareCV(param_grid=grid, probability=True, cv=3, progress=False)
    model = BootstrapCompare(search, n_resamples=30, proba_interval="percentile",
                             random_state=0, progress=False).fit(X, y, groups=seasons)
    assert model.calibration_ == "search folds"
    point = model.predict_proba(X)
    lower, upper = model.predict_proba_interval(X)
    assert np.mean((point < lower - 1e-12) | (point > upper + 1e-12)) < 0.01
    # The other procedure, on the same data, is what this test tells apart.
    alone = BootstrapCompare(clone(model.estimator_.best_estimator_), n_resamples=30,
                             proba_interval="percentile", random_state=0,
                             progress=False).fit(X, y)
    assert alone.calibration_ == "out-of-bag"
    lower, upper = alone.predict_proba_interval(X)
    assert np.mean((point < lower - 1e-12) | (point > upper + 1e-12)) > 0.2
    # A resample that draws every pair once is the search's point, its link
    # fitted on the same folds' held-out scores (refitted: the solver's
    # tolerance apart).
    pairs, y = check_pairs_labels(X, y)  # as fit gives them to the replicates
    held_out = search_held_out(model.estimator_, model.replicates_[0], pairs, y,
                               groups=seasons)
    assert np.isfinite(held_out).all()
    once = _fit_replicate(model.replicates_[0], pairs, y, None, None, np.ones(y.size, int),
                          held_out)
    np.testing.assert_allclose(once.predict_proba(X), point, atol=2e-3)


def test_group_resampling_and_its_checks():
    X, y, items, _ = id_games(n=300)
    groups = np.arange(300) // 10
    model = BootstrapCompare(linear(), n_resamples=4, resample="groups", random_state=0,
                             progress=False).fit(X, y, groups=groups)
    assert model.n_groups_ == 30
    with pytest.raises(ValueError, match="needs the groups"):
        BootstrapCompare(linear(), n_resamples=4, resample="groups").fit(X, y)
    with pytest.raises(ValueError, match="would be ignored"):
        BootstrapCompare(linear(), n_resamples=4).fit(X, y, groups=groups)
    with pytest.raises(ValueError, match="single group"):
        BootstrapCompare(linear(), n_resamples=4, resample="groups").fit(
            X, y, groups=np.zeros(300))
    with pytest.raises(ValueError, match="one group label per pair"):
        BootstrapCompare(linear(), n_resamples=4, resample="groups").fit(
            X, y, groups=np.arange(10))


@pytest.mark.parametrize("params, message", [
    ({"n_resamples": 1}, "at least 2"),
    ({"n_resamples": 0}, "n_resamples"),
    ({"n_resamples": 2.5}, "n_resamples"),
    ({"confidence": 1.0}, "confidence"),
    ({"confidence": "0.9"}, "confidence"),
    ({"resample": "rows"}, "resample"),
    ({"progress": "yes"}, "progress"),
])
def test_bad_parameters_are_named(params, message):
    X, y, _, _ = id_games(n=100)
    with pytest.raises((ValueError, TypeError), match=message):
        BootstrapCompare(linear(), **params).fit(X, y)


def test_probability_intervals_need_probabilities():
    X, y, _, _ = id_games(n=200)
    model = BootstrapCompare(linear(), n_resamples=2, progress=False).fit(X, y)
    with pytest.raises(AttributeError, match="probability=True"):
        model.predict_proba_interval(X[:3])
    with pytest.raises(ValueError, match="confidence"):
        model.rank_interval(sp.identity(12, format="csr"), confidence=0)


def test_clone_and_parameters():
    model = BootstrapCompare(linear(C=0.5), n_resamples=7, confidence=0.8)
    copy = clone(model)
    assert copy.get_params()["n_resamples"] == 7 and copy.get_params()["estimator__C"] == 0.5
    assert not hasattr(copy, "replicates_")


def test_model_file_keeps_the_replicates_compact(tmp_path, fitted):
    model, X, _, items = fitted
    path = tmp_path / "boot.skops"
    save_model(model, path)
    loaded = load_model(path)
    np.testing.assert_array_equal(loaded.rank_interval(items)[0], model.rank_interval(items)[0])
    np.testing.assert_allclose(loaded.predict_proba_interval(X[:5])[1],
                               model.predict_proba_interval(X[:5])[1])
    assert all(not hasattr(r, "dual_coef_") for r in loaded.replicates_)
    assert hasattr(model.replicates_[0], "dual_coef_")  # the fitted object is unchanged


def test_a_file_with_inconsistent_replicates_is_refused(tmp_path, fitted):
    model, *_ = fitted
    X, y, _, _ = id_games(players=5, n=100)
    odd = clone(model).set_params(n_resamples=2).fit(X, y)
    odd.replicates_ = [model.replicates_[0], odd.replicates_[0]]
    path = tmp_path / "odd.skops"
    save_model(odd, path)
    with pytest.raises(ValueError, match="replicates differ"):
        load_model(path)


def test_calibrate_fits_the_link_on_pairs_the_model_did_not_see():
    from svmcompare import SVMCompareLP
    from svmcompare.metrics import outcome_log_loss

    X, y, _, _ = id_games(n=900, seed=4)
    fit, held = slice(0, 600), slice(600, 900)
    own = linear(probability=True, random_state=0).fit(X[fit], y[fit])
    later = linear().fit(X[fit], y[fit]).calibrate(X[held], y[held])
    assert later.probability and later.calibrator_ is not None
    np.testing.assert_allclose(later.predict_proba(X[held]).sum(axis=1), 1.0)
    np.testing.assert_allclose(later.class_prior_,
                               np.bincount(y[held] + 1, minlength=3) / 300)
    # Fitted by likelihood on those pairs: no worse there than the fit's own folds.
    assert outcome_log_loss(y[held], later.predict_proba(X[held])) \
        <= outcome_log_loss(y[held], own.predict_proba(X[held])) + 1e-9
    np.testing.assert_array_equal(later.rank(X[:5, :12]),  # the ranking is kept
                                  linear().fit(X[fit], y[fit]).rank(X[:5, :12]))
    with pytest.raises(ValueError, match="labels"):
        linear().fit(X[fit], y[fit]).calibrate(X[held], y[:10])
    dense = np.stack([X[:200, :12].toarray(), X[:200, 12:].toarray()], axis=1)
    with pytest.raises(AttributeError, match="calibrate"):
        SVMCompareLP(kernel="linear").fit(dense, y[:200]).calibrate(dense, y[:200])


def test_replicates_calibrate_out_of_bag(fitted):
    model, *_ = fitted
    assert model.calibration_ == "out-of-bag"
    assert all(r.probability and hasattr(r, "calibrator_") for r in model.replicates_)
    X, y, _, _ = id_games(n=40, seed=9)  # resamples leave out too few pairs of a label
    small = BootstrapCompare(linear(probability=True), n_resamples=3, random_state=0,
                             progress=False).fit(X, y)
    assert small.calibration_ == "in each fit"


def test_auto_calibration_uses_a_large_linear_fits_own_gaps():
    from svmcompare.metrics import outcome_log_loss

    X, y, _, _ = id_games(players=6, n=1300, seed=11)  # 1,300 pairs, 6 weights: > 100 each
    auto = linear(probability=True, random_state=0).fit(X, y)
    assert auto.calibration_ == "in-sample"
    by_hand = linear().fit(X, y).calibrate(X, y)  # the fit's own pairs as the link's data
    np.testing.assert_allclose(auto.predict_proba(X[:50]), by_hand.predict_proba(X[:50]))
    folds = linear(probability=True, calibration="cv", random_state=0).fit(X, y)
    assert folds.calibration_ == "5-fold"
    X_new, y_new, _, _ = id_games(players=6, n=3000, seed=12)
    gap = outcome_log_loss(y_new, auto.predict_proba(X_new)) \
        - outcome_log_loss(y_new, folds.predict_proba(X_new))
    assert abs(gap) < 0.005
    few = linear(probability=True, random_state=0).fit(X[:500], y[:500])  # 83 per weight
    assert few.calibration_ == "5-fold"


@pytest.mark.parametrize("name, value", [("scales_", np.nan), ("offsets_", np.inf),
                                         ("scales_", None)])
def test_a_file_with_a_broken_alignment_is_refused(tmp_path, fitted, name, value):
    model, *_ = fitted
    broken = clone(model)
    broken.__dict__.update(model.__dict__)
    if value is None:
        setattr(broken, name, getattr(model, name)[:-1])
    else:
        setattr(broken, name, np.r_[getattr(model, name)[:-1], value])
    path = tmp_path / "broken.skops"
    save_model(broken, path)
    with pytest.raises(ValueError, match=name):
        load_model(path)


# -- bad input ------------------------------------------------------------------------------


def test_interval_checks_the_context_length_as_predict_proba_does():
    X, y, _, _ = id_games(players=4, n=200, seed=4)
    context = np.random.default_rng(4).normal(size=200)
    model = BootstrapCompare(linear(probability=True), n_resamples=3, random_state=0,
                             progress=False).fit(X, y, context=context)
    with pytest.raises(ValueError, match=r"context must have shape \(n_pairs, q\) = \(2, q\)"):
        model.predict_proba(X[:2], context=np.ones(7))
    with pytest.raises(ValueError, match=r"context must have shape \(n_pairs, q\) = \(2, q\)"):
        model.predict_proba_interval(X[:2], context=np.ones(7))  # took the first 2 rows
    lower, upper = model.predict_proba_interval(X[:2], context=context[:2])
    assert lower.shape == upper.shape == (2, 3)


def test_a_resample_without_the_rare_ties_is_explained():
    X, y, _, _ = id_games(players=4, n=60, seed=5)
    y = np.where(y == 0, 1, y)
    y[:2] = 0  # 2 ties in 60 pairs: a resample misses both with probability ~0.13
    with pytest.raises(ValueError, match=r"resample \d+ of 40 \(drawing pairs\) drew no ties") \
            as error:  # was "y has no equality pairs", which y has
        BootstrapCompare(linear(), n_resamples=40, random_state=0, progress=False).fit(X, y)
    message = str(error.value)
    assert "random_state does not fix" in message and 'resample="groups" is no help' in message
    assert "no bootstrap" in message and "SVMRank" in message


@pytest.mark.parametrize("groups, error, match", [
    ([1, "a"] * 100, TypeError, "groups mixes number"),
    ([1, None] * 100, ValueError, "groups has 100 missing"),
    (np.r_[np.nan, np.arange(199.0)], ValueError, "groups has 1 missing"),
])
def test_groups_of_mixed_types_or_missing_are_refused(groups, error, match):
    X, y, _, _ = id_games(players=4, n=200)
    with pytest.raises(error, match=match):  # was numpy's "'<' not supported"
        BootstrapCompare(linear(), n_resamples=3, resample="groups",
                         progress=False).fit(X, y, groups=groups)
    with pytest.raises(error, match=match):
        resample_counts(200, 3, groups)


def test_an_estimator_it_cannot_resample_is_refused_by_name():
    from svmcompare.hard_margin import HardMarginQP

    X, y, _, _ = id_games(players=4, n=100)
    with pytest.raises(TypeError, match="resamples SVMCompare, SVMCompareLP, SVMRank, SVMRank2 "
                                        "or SVMCompareCV; got HardMarginQP"):
        BootstrapCompare(HardMarginQP(), n_resamples=3, progress=False).fit(X, y)


def test_scores_equal_up_to_rounding_share_a_position():
    from scipy.stats import rankdata

    rng = np.random.default_rng(0)
    for _ in range(50):  # well separated scores: exact ranks, also per replicate row
        scores = rng.integers(0, 5, size=(3, 7)).astype(float)
        np.testing.assert_array_equal(positions(scores), rankdata(-scores, method="min", axis=-1))
        np.testing.assert_array_equal(positions(scores, "max"),
                                      rankdata(-scores, method="max", axis=-1))
    # Items on the hinge's margin: one score up to the solver's rounding.
    margin = 2.3655728750667 - np.array([0.0, 3.6e-12, 4.2e-12, 6.7e-12])
    scores = np.r_[margin, 1.0, -3.0]
    np.testing.assert_array_equal(positions(scores), [1, 1, 1, 1, 5, 6])
    np.testing.assert_array_equal(positions(scores, "max"), [4, 4, 4, 4, 5, 6])


def test_an_item_tied_in_every_replicate_spans_the_places_of_its_tie(fitted):
    model, _, _, items = fitted
    # Five items with one score in every replicate (copies of the first item):
    # their intervals run from the tie's best place to its worst.
    copies = np.repeat(items[:1].toarray(), 5, axis=0)
    best, worst = model.rank_position_interval(np.vstack([copies, items[1:].toarray()]))
    assert (worst[:5] - best[:5] >= 4).all()


def test_two_items_warn_that_score_intervals_have_no_width():
    # Two items: the alignment fixes both scores, every interval was the
    # point itself, silently.
    X, y, items, _ = id_games(players=2, n=100)
    model = SVMCompare(kernel="linear", scale_indicators=False)
    with pytest.warns(UserWarning, match="fewer than three distinct scores"):
        boot = BootstrapCompare(model, n_resamples=5, random_state=0, progress=False).fit(X, y)
    lower, upper = boot.rank_interval(items)
    np.testing.assert_allclose(lower, upper)  # what the warning says
    X, y, items, _ = id_games(players=4, n=200)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        BootstrapCompare(model, n_resamples=5, random_state=0, progress=False).fit(X, y)


def test_replicates_of_a_degenerate_model_do_not_repeat_its_warning():
    """A search's degenerate choice warned, then its bootstrap said "200 of 200
    replicates had beta >= 0 ... see on_degenerate" with advice its user had
    no say in (a review)."""
    import warnings

    from svmcompare.exceptions import DegenerateWarning

    X, y, _, _ = id_games(players=8, n=400, seed=7)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = BootstrapCompare(SVMCompare(kernel="linear", class_weight=None, C=100.0),
                                 n_resamples=8, random_state=0, progress=False).fit(X, y)
    assert model.estimator_.degenerate_ and model.n_degenerate_ > 0
    said = [str(w.message) for w in caught if issubclass(w.category, DegenerateWarning)]
    assert not any("bootstrap replicates" in m for m in said), said


def test_labels_drawn_from_probabilities_follow_them():
    from svmcompare.bootstrap import _drawn_labels

    proba = np.array([[0.2, 0.5, 0.3], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.1, 0.1, 0.8]])
    rng = np.random.default_rng(0)
    drawn = np.stack([_drawn_labels(proba, rng) for _ in range(20000)])
    shares = np.stack([(drawn == label).mean(axis=0) for label in (-1, 0, 1)], axis=1)
    np.testing.assert_allclose(shares, proba, atol=0.01)
    assert (drawn[:, 1] == -1).all() and (drawn[:, 2] == 1).all()


def test_the_calibrated_level_inverts_the_coverage_of_the_drawn_data(fitted):
    model = clone(fitted[0])
    model.estimator_, model.replicates_ = fitted[0].estimator_, fitted[0].replicates_
    model.proba_levels_ = np.array([0.5, 0.9, 0.99])
    model.proba_coverage_ = np.array([0.4, 0.8, 0.95])
    assert model._proba_level(0.8) == pytest.approx(0.9)
    assert model._proba_level(0.875) == pytest.approx(0.9 + 0.5 * 0.09)  # linear between
    with pytest.warns(UserWarning, match=r"the widest \(0.99\) covered 0.950"):
        assert model._proba_level(0.97) == pytest.approx(0.99)  # past the widest: the widest
    assert model._proba_level(0.2) == pytest.approx(0.25)  # below the narrowest: scaled
    # Asked for percentile intervals after the fit, or without the calibration
    # (proba_interval="percentile" at fit): the confidence asked for.
    model.set_params(proba_interval="percentile")
    assert model._proba_level(0.8) == 0.8
    model.set_params(proba_interval="calibrated")
    model.proba_levels_ = model.proba_coverage_ = None
    assert model._proba_level(0.9) == 0.9


def test_the_coverage_curve_is_measured_on_draws_and_reproducible(fitted):
    model, X, y, _ = fitted
    from svmcompare.bootstrap import PROBA_LEVELS

    np.testing.assert_array_equal(model.proba_levels_, PROBA_LEVELS)
    coverage = model.proba_coverage_
    assert coverage.shape == PROBA_LEVELS.shape
    assert (np.diff(coverage) >= 0).all() and (0 <= coverage).all() and (coverage <= 1).all()
    assert coverage[-1] > coverage[0]  # wider intervals cover more of the drawn truth
    again = clone(model).fit(X, y)
    np.testing.assert_array_equal(again.proba_coverage_, coverage)
    with pytest.raises(ValueError, match="proba_interval must be one of"):
        clone(model).set_params(proba_interval="basic").fit(X, y)
    # No probabilities, nothing to calibrate.
    plain = BootstrapCompare(linear(), n_resamples=4, random_state=0, progress=False).fit(X, y)
    assert plain.proba_levels_ is None and plain.proba_coverage_ is None


def test_the_calibration_skips_outcomes_no_fit_gives_and_names_a_draw_it_cannot_use():
    from svmcompare import SVMRank

    # Without ties SVMRank's P(tie) is 0 in every fit: [0, 0] would cover it
    # for free and make a third of every coverage count.
    X, y, _, _ = id_games(n=300, seed=4)
    y = np.where(y == 0, 1, y)
    model = BootstrapCompare(SVMRank(kernel="linear", probability=True), n_resamples=30,
                             random_state=0, progress=False).fit(X, y)
    assert model.proba_coverage_[0] < 0.6  # two outcomes at nominal 0.5, not 0.5 + 1/3


def test_a_draw_the_bootstrap_cannot_use_is_named_not_skipped(monkeypatch):
    import svmcompare.bootstrap as bootstrap

    # A draw with a single tie: some resample lacks it, and the model, which
    # learns ties, cannot be fitted there.  Averaging the other draw alone
    # would favour draws rich in ties: percentile intervals, said by name.
    def one_tie(proba, rng):
        labels = np.where(rng.uniform(size=proba.shape[0]) < 0.5, -1, 1)
        labels[0] = 0
        return labels

    monkeypatch.setattr(bootstrap, "_drawn_labels", one_tie)
    X, y, _, _ = id_games(n=300, seed=5)
    with pytest.warns(UserWarning, match="could not be bootstrapped"):
        model = BootstrapCompare(linear(probability=True), n_resamples=8, random_state=2,
                                 progress=False).fit(X, y)
    assert model.proba_coverage_ is None and model.proba_levels_ is None


def test_level_coverage_is_the_share_inside_each_level_s_percentile_interval():
    from svmcompare.bootstrap import PROBA_LEVELS, _level_coverage

    rng = np.random.default_rng(0)
    replicates, truth = rng.normal(size=(50, 40, 3)), rng.normal(size=(40, 3))
    expected = [np.mean((lo <= truth) & (truth <= hi))
                for lo, hi in (np.quantile(replicates, [(1 - level) / 2, (1 + level) / 2],
                                           axis=0) for level in PROBA_LEVELS)]
    np.testing.assert_allclose(_level_coverage(replicates, truth), expected)


def test_the_squared_hinge_s_score_intervals_are_calibrated_and_the_hinge_s_are_not():
    X, y, items, _ = id_games(n=400, seed=6)
    squared = BootstrapCompare(linear(probability=True, loss="squared_hinge"), n_resamples=20,
                               random_state=0, progress=False).fit(X, y)
    from svmcompare.bootstrap import PROBA_LEVELS, percentile_interval

    np.testing.assert_array_equal(squared.score_levels_, PROBA_LEVELS)
    coverage = squared.score_coverage_
    assert (np.diff(coverage) >= 0).all() and 0 <= coverage[0] and coverage[-1] <= 1
    assert coverage[-1] > coverage[0]
    level = squared._score_level(0.9)
    assert level != 0.9  # 20 replicates: the nominal level is not what covers 90%
    lower, upper = squared.rank_interval(items)
    expected = percentile_interval(squared.rank_replicates(items), level)
    np.testing.assert_allclose(lower, expected[0]), np.testing.assert_allclose(upper, expected[1])
    # The same draws as the probabilities': no extra bootstraps, reproducible.
    again = clone(squared).fit(X, y)
    np.testing.assert_array_equal(again.score_coverage_, coverage)
    np.testing.assert_array_equal(again.proba_coverage_, squared.proba_coverage_)
    hinge = BootstrapCompare(linear(probability=True), n_resamples=8, random_state=0,
                             progress=False).fit(X, y)
    assert hinge.proba_coverage_ is not None and hinge.score_coverage_ is None
    lower, _ = hinge.rank_interval(items)
    np.testing.assert_allclose(lower, percentile_interval(hinge.rank_replicates(items), 0.9)[0])
    # Asked for percentile intervals after the fit: the nominal level.
    squared.set_params(proba_interval="percentile")
    lower, _ = squared.rank_interval(items)
    np.testing.assert_allclose(lower,
                               percentile_interval(squared.rank_replicates(items), 0.9)[0])


def test_a_resample_with_one_pair_of_a_label_says_so():
    # An attack (stop 70): three ties in 300 pairs; a resample drew one of
    # them, and its replicate's calibration folds failed with "the rarest
    # label has 1", naming neither the bootstrap nor the three ties.
    from svmcompare import SVMCompare
    from svmcompare.bootstrap import BootstrapCompare

    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(300, 2)), rng.normal(size=(300, 2))
    y = np.where((B - A) @ [1.0, 0.5] + rng.normal(size=300) > 0, 1, -1)
    y[:3] = 0
    X = np.stack([A, B], 1)
    SVMCompare(kernel="linear", probability=True).fit(X, y)  # the point model fits
    with pytest.raises(ValueError, match=r"resample drew ties \(y = 0\) on a single distinct "
                                         r"pair \(y has 3 such pairs\)"):
        BootstrapCompare(SVMCompare(kernel="linear", probability=True), n_resamples=10,
                         random_state=0, progress=False).fit(X, y)
