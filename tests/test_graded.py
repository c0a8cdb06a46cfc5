"""Graded items: the pairwise transform against brute force, per-group metrics
against scipy/sklearn, RankSVM within groups, ordinal regression, LETOR I/O."""

import itertools

import numpy as np
import pytest
import sklearn
from scipy.stats import kendalltau
from sklearn.linear_model import Ridge
from sklearn.metrics import ndcg_score
from sklearn.model_selection import GridSearchCV, GroupKFold

from svmcompare import GroupRankSVM, OrdinalSVM, pairwise_transform
from svmcompare.datasets import make_graded_blocks
from svmcompare.experiments.ordinal import split_people
from svmcompare.io import dump_letor, load_letor
from svmcompare.metrics import kendall_tau_per_group, ndcg_at_k, ordinal_mae


def graded_blocks(n_per_grade=20, seed=0):
    """Two blocks (groups) of 2-D items graded 0, 1, 2 (the RankSVM tutorial's)."""
    return make_graded_blocks(n_per_grade, random_state=seed)


@pytest.mark.parametrize("ties", ["keep", "drop"])
def test_pairwise_transform_matches_brute_force(ties):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(17, 3))
    y = rng.integers(0, 3, size=17)
    groups = rng.choice(["a", "b", "c"], size=17)
    Xp, yp = pairwise_transform(X, y, groups, ties=ties)
    expected = []
    for i, j in itertools.combinations(range(17), 2):
        if groups[i] == groups[j] and (ties == "keep" or y[i] != y[j]):
            expected.append((tuple(X[i]), tuple(X[j]), int(np.sign(y[j] - y[i]))))
    got = [(tuple(a), tuple(b), int(label)) for (a, b), label in zip(Xp, yp, strict=True)]
    assert sorted(got) == sorted(expected)
    assert (0 in yp) == (ties == "keep")


def test_pairwise_transform_subsamples_and_validates():
    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(30, 2)), rng.integers(0, 4, size=30)
    groups = np.repeat([0, 1], 15)
    Xp, _ = pairwise_transform(X, y, groups, max_pairs_per_group=10, random_state=0)
    assert Xp.shape == (20, 2, 2)
    again, _ = pairwise_transform(X, y, groups, max_pairs_per_group=10, random_state=0)
    np.testing.assert_array_equal(Xp, again)
    with pytest.raises(ValueError, match="ties must be one of"):
        pairwise_transform(X, y, ties="maybe")
    with pytest.raises(ValueError, match="groups has 3 entries"):
        pairwise_transform(X, y, groups=[0, 1, 2])
    with pytest.raises(ValueError, match="NaN"):
        pairwise_transform(X, np.where(y > 2, np.nan, y))


def test_group_metrics_against_references():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, size=40)
    score = y + rng.normal(size=40)
    groups = np.repeat([5, 2, 9, 7], 10)
    mean, taus = kendall_tau_per_group(y, score, groups)
    for tau, g in zip(taus, sorted(set(groups)), strict=True):
        assert tau == pytest.approx(kendalltau(y[groups == g], score[groups == g]).statistic)
    assert mean == pytest.approx(np.mean(taus))
    assert ndcg_at_k(y, score, None, k=5) == pytest.approx(ndcg_score([y], [score], k=5))
    assert ordinal_mae([1, 3, 7, 7], [3, 3, 1, 7]) == pytest.approx((1 + 0 + 2 + 0) / 4)
    with pytest.raises(ValueError, match="labels \\[5\\]"):
        ordinal_mae([1, 3], [5, 3])


def test_ranksvm_beats_ridge_on_the_tutorial_blocks():
    X, y, groups, w = graded_blocks()
    train = np.arange(X.shape[0]) % 4 < 2
    test = ~train
    ridge = Ridge(1.0).fit(X[train], y[train])
    rank = GroupRankSVM().fit(X[train], y[train], groups[train])
    tau_ridge = kendall_tau_per_group(y[test], ridge.predict(X[test]), groups[test])[0]
    tau_rank = kendall_tau_per_group(y[test], rank.rank(X[test]), groups[test])[0]
    assert tau_rank > tau_ridge
    direction = rank.coef_ / np.linalg.norm(rank.coef_)
    assert direction @ w > 0.95  # the common direction of both blocks
    pairs, labels = pairwise_transform(X[test], y[test], groups[test], ties="drop")
    assert np.mean(rank.compare(pairs) == labels) > 0.9
    with pytest.raises(ValueError, match="gives the scores of items"):
        rank.compare(X[test])
    # The items it was fitted on (issue 17: predict refused them).
    np.testing.assert_array_equal(rank.predict(X[train]), rank.rank(X[train]))
    keep = GroupRankSVM(ties="keep", C=10.0).fit(X[train], y[train], groups[train])
    assert kendall_tau_per_group(y[test], keep.rank(X[test]), groups[test])[0] > tau_ridge


def test_ranksvm_in_grid_search_with_routed_groups():
    X, y, groups, _ = graded_blocks(12)
    groups = groups + 2 * (np.arange(X.shape[0]) % 3)  # six groups for GroupKFold(3)
    with sklearn.config_context(enable_metadata_routing=True):
        model = GroupRankSVM().set_fit_request(groups=True).set_score_request(groups=True)
        search = GridSearchCV(model, {"C": [0.01, 1.0]}, cv=GroupKFold(3))
        search.fit(X, y, groups=groups)
    assert search.best_params_["C"] in (0.01, 1.0)
    assert search.best_score_ > 0.5


@pytest.mark.parametrize("ties", ["drop", "keep"])
@pytest.mark.parametrize("rule", ["midpoint", "error"])
def test_ordinal_svm_recovers_ranks(ties, rule):
    rng = np.random.default_rng(4)
    X = rng.uniform(-3, 3, size=(150, 2))
    u = X @ np.array([1.0, 0.5])
    y = np.digitize(u, [-1.5, 0.0, 1.5]) * 10  # ranks 0, 10, 20, 30
    X_test = rng.uniform(-3, 3, size=(300, 2))
    y_test = np.digitize(X_test @ np.array([1.0, 0.5]), [-1.5, 0.0, 1.5]) * 10
    model = OrdinalSVM(C=100.0, ties=ties, thresholds=rule, class_weight="balanced").fit(X, y)
    assert list(model.classes_) == [0, 10, 20, 30]
    assert np.all(np.diff(model.thresholds_) >= 0)
    assert np.mean(model.predict(X_test) == y_test) > 0.85
    assert ordinal_mae(y_test, model.predict(X_test)) < 0.2


def test_midpoint_thresholds_are_herbrichs_rule():
    rng = np.random.default_rng(5)
    X = rng.uniform(-3, 3, size=(80, 1))
    y = np.digitize(X[:, 0], [-1.0, 1.0])
    model = OrdinalSVM(C=1000.0).fit(X, y)
    u = model.decision_function(X)
    for k, theta in enumerate(model.thresholds_):
        assert theta == pytest.approx((u[y == k].max() + u[y == k + 1].min()) / 2)
    with pytest.raises(ValueError, match="two distinct ranks"):
        OrdinalSVM().fit(X, np.zeros(80))


def test_letor_round_trip(tmp_path):
    rng = np.random.default_rng(6)
    X = np.round(rng.normal(size=(12, 4)), 3)
    y = rng.integers(0, 3, size=12).astype(float)
    qid = np.repeat([3, 1, 2], 4)
    dump_letor(X, y, qid, tmp_path / "train.txt")
    assert "qid:1" in (tmp_path / "train.txt").read_text()
    X2, y2, q2 = load_letor(tmp_path / "train.txt", n_features=4)
    order = np.argsort(qid, kind="stable")
    np.testing.assert_allclose(X2, X[order])
    np.testing.assert_array_equal(y2, y[order])
    np.testing.assert_array_equal(q2, qid[order])
    (tmp_path / "bad.txt").write_text("1 qid:1 1:abc\n")
    with pytest.raises(ValueError, match="bad.txt"):
        load_letor(tmp_path / "bad.txt")


def test_graded_blocks_are_the_tutorials_draws():
    X, y, blocks, w = make_graded_blocks(random_state=0)
    legacy = np.random.RandomState(0)
    first = legacy.randn(20, 2)
    np.testing.assert_allclose(X[0], first[0] - [3.0, 7.0])  # even rows: block 0, shifted
    np.testing.assert_allclose(X[1], first[1])
    np.testing.assert_allclose(X[21], legacy.randn(20, 2)[1] + 4 * w)
    np.testing.assert_array_equal(np.bincount(y), [20, 20, 20])
    np.testing.assert_array_equal(blocks[:4], [0, 1, 0, 1])
    np.testing.assert_allclose(w, [np.sin(np.pi / 3), 0.5])
    with pytest.raises(ValueError, match="n_per_grade"):
        make_graded_blocks(0)


def test_split_people_is_disjoint_and_sized():
    groups = np.repeat(np.arange(30), 10)
    masks = split_people(groups, (5, 7, 11), random_state=3)
    assert [np.unique(groups[m]).size for m in masks] == [5, 7, 11]
    assert not np.any(masks[0] & masks[1]) and not np.any(masks[1] & masks[2])
    again = split_people(groups, (5, 7, 11), random_state=3)
    assert all(np.array_equal(a, b) for a, b in zip(masks, again, strict=True))
    with pytest.raises(ValueError, match="31 people requested"):
        split_people(groups, (10, 10, 11), random_state=0)


def test_pair_indices_reads_array_likes_by_position():
    """Review r10: a Series (any index), lists and groups=None (one group, as
    pairwise_transform allows) give the array's pairs; other inputs a clear error."""
    import pandas as pd

    from svmcompare.pairs import pair_indices

    y = np.array([2.0, 1, 0, 1, 0, 2])
    g = np.array([1, 1, 1, 2, 2, 2])
    expected = pair_indices(y, g)
    for args in [(pd.Series(y), g), (pd.Series(y, index=range(10, 16)), pd.Series(g)),
                 (list(y), list(g)), (pd.Series(y, index=range(10, 16)),
                                      pd.Series(g, index=range(5, -1, -1)))]:
        for got, want in zip(pair_indices(*args), expected, strict=True):
            np.testing.assert_array_equal(got, want)
    one_group = pair_indices(y, None)
    np.testing.assert_array_equal(one_group[2], pair_indices(y, np.zeros(6))[2])
    assert one_group[2].size == 15
    with pytest.raises(ValueError, match="1-D"):
        pair_indices(y[:, None] * [1, 1], g)
    with pytest.raises(TypeError, match="must be numeric"):
        pair_indices(["a", "b"], None)
    with pytest.raises(ValueError, match="groups has 2 entries but X has 6 items"):
        pair_indices(y, [1, 2])
    with pytest.raises(ValueError, match="NaN"):
        pair_indices(np.where(y > 1, np.nan, y), g)
    with pytest.raises(ValueError, match="max_pairs_per_group"):
        pair_indices(y, g, max_pairs_per_group=True)


def test_query_ids_are_checked():
    """Review r11: NaN query ids merged the items of different queries into one
    group (np.unique puts every NaN together); None broke the sort."""
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 2)), rng.integers(0, 3, 40).astype(float)
    q = np.repeat([1.0, 2, 3, 4], 10)
    q[:20] = np.nan
    for fit in (lambda g: GroupRankSVM().fit(X, y, groups=g),
                lambda g: pairwise_transform(X, y, g),
                lambda g: kendall_tau_per_group(y, X[:, 0], g)):
        with pytest.raises(ValueError, match=r"groups has 20 missing value\(s\).*row 0.*every "
                                             "item a group"):
            fit(q)
    q2 = np.repeat([1, 2, 3, 4], 10).astype(object)
    q2[3] = None
    with pytest.raises(ValueError, match="missing value.*row 3"):
        pairwise_transform(X, y, q2)
    q2[3] = "1"
    with pytest.raises(TypeError, match="groups mixes"):
        pairwise_transform(X, y, q2)
    # Valid ids of any array-like: the same pairs as the integer array.
    ints = np.repeat([1, 2, 3, 4], 10)
    Xp, yp = pairwise_transform(X, y, ints)
    for same in (ints.astype(object), list(ints), ints.astype(str), ints[:, None]):
        Xq, yq = pairwise_transform(X, y, same)
        np.testing.assert_array_equal(Xq, Xp)
        np.testing.assert_array_equal(yq, yp)
    with pytest.raises(TypeError, match="one query id per item"):
        pairwise_transform(X, y, 5)


def test_ordinal_svm_takes_the_order_of_an_ordered_categorical_and_refuses_unknown_orders():
    """Review r2: text labels were sorted alphabetically ("high" < "low" <
    "medium"), an ordered Categorical's order was dropped, and NaN became a top
    grade that predict returned."""
    import pandas as pd

    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 2))
    level = np.digitize(X @ [1, 0.5] + rng.normal(0, 0.3, 150), [-0.7, 0.7])
    names = np.array(["low", "medium", "high"])[level]
    numbers = OrdinalSVM().fit(X, level)
    for y in (pd.Categorical(names, categories=["low", "medium", "high"], ordered=True),
              pd.Series(pd.Categorical(names, categories=["none", "low", "medium", "high"],
                                       ordered=True))):
        model = OrdinalSVM().fit(X, y)
        assert list(model.classes_) == ["low", "medium", "high"]  # "none" is absent from y
        np.testing.assert_array_equal(model.thresholds_, numbers.thresholds_)
        np.testing.assert_array_equal(model.predict(X), model.classes_[numbers.predict(X)])
        assert model.score(X, names) == numbers.score(X, level) > 0.8
    for y in (names, list(names), names.astype(object), pd.Series(names),
              pd.Categorical(names)):
        with pytest.raises(TypeError, match="grades must be numbers or an ordered"):
            OrdinalSVM().fit(X, y)
    missing = level.astype(float)
    missing[[3, 7]] = np.nan
    with pytest.raises(ValueError, match=r"2 missing label\(s\).*position 3"):
        OrdinalSVM().fit(X, missing)
    with pytest.raises(ValueError, match="missing label"):
        OrdinalSVM().fit(X, pd.Categorical(np.where(missing == missing, names, None),
                                           categories=["low", "medium", "high"], ordered=True))
    with pytest.raises(ValueError, match="missing label"):
        OrdinalSVM().fit(X, pd.Series(missing).astype("Int64"))  # <NA> where NaN
    # Numbers in any container: the same model as the integer array.
    for y in (pd.Series(level).astype("Int64"), level.astype(object), list(level),
              level.astype(float)):
        np.testing.assert_array_equal(OrdinalSVM().fit(X, y).thresholds_, numbers.thresholds_)


def test_graded_models_record_and_check_dataframe_column_names():
    """Review r4: fitted on a DataFrame, GroupRankSVM ignored the column names (tau
    0.86, and -0.02 with the columns reordered at predict, no error)."""
    import pandas as pd

    rng = np.random.default_rng(0)
    items = pd.DataFrame(rng.normal(size=(120, 3)), columns=["price", "rating", "noise"])
    grade = np.round(1.5 * items.price + rng.normal(0, 0.3, 120)).clip(-1, 2)
    q = np.repeat(np.arange(12), 10)
    reordered = items[["noise", "rating", "price"]]
    renamed = items.set_axis(["price", "rating", "other"], axis=1)
    for model, fit_args, calls in (
            (GroupRankSVM(), (grade, q), ("rank", "predict", "decision_function")),
            (GroupRankSVM(pairs="materialize"), (grade, q), ("rank", "predict")),
            (OrdinalSVM(), (grade,), ("predict", "decision_function"))):
        model.fit(items, *fit_args)
        np.testing.assert_array_equal(model.feature_names_in_, ["price", "rating", "noise"])
        array_model = type(model)(**model.get_params()).fit(items.to_numpy(), *fit_args)
        assert not hasattr(array_model, "feature_names_in_")
        for call in calls:
            np.testing.assert_array_equal(getattr(model, call)(items),
                                          getattr(array_model, call)(items.to_numpy()))
            with pytest.raises(ValueError, match="same names in another order"):
                getattr(model, call)(reordered)
            with pytest.raises(ValueError, match=r"missing \['noise'\], unexpected \['other'\]"):
                getattr(model, call)(renamed)
        with pytest.raises(ValueError, match="another order"):
            model.score(reordered, *fit_args)
        model.fit(items.to_numpy(), *fit_args)  # a refit on an array keeps no stale names
        assert not hasattr(model, "feature_names_in_")
    ranker = GroupRankSVM().fit(items, grade, q)
    assert ranker.score(items, grade, q) > 0.8
    # Wide pairs name the same features: checked by the pair model.
    pairs = pd.DataFrame(np.hstack([items.to_numpy()[:5], items.to_numpy()[5:10]]),
                         columns=[f"{side}_{name}" for side in "ab" for name in items.columns])
    expected = ranker.compare(np.stack([items.to_numpy()[:5], items.to_numpy()[5:10]], axis=1))
    np.testing.assert_array_equal(ranker.compare(pairs), expected)
    with pytest.raises(ValueError, match="another order"):
        ranker.compare(pairs[[f"{side}_{name}" for side in "ab"
                              for name in ["noise", "rating", "price"]]])


def test_ordinal_svm_reads_numeric_grades_stored_as_categories():
    import pandas as pd

    from svmcompare import OrdinalSVM

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 2))
    grade = np.digitize(X @ np.array([1.0, -0.5]), [-0.5, 0.5]) + 1  # 1, 2, 3
    as_numbers = OrdinalSVM().fit(X, grade)
    as_categories = OrdinalSVM().fit(X, pd.Series(grade).astype("category"))
    np.testing.assert_array_equal(as_categories.classes_, [1, 2, 3])
    np.testing.assert_array_equal(as_categories.predict(X), as_numbers.predict(X))


def test_all_pairs_and_formed_pairs_weigh_the_threshold_alike():
    # The all-pairs fit chose eq. (6)'s threshold on unweighted pairs, the
    # formed pairs' fit on weighted ones (0.0055 against 0.0213).
    import warnings

    from svmcompare import GroupRankSVM

    rng = np.random.default_rng(0)
    n = 120
    X = rng.normal(size=(n, 3))
    groups = np.repeat(np.arange(12), 10)
    y = np.clip(np.round(X[:, 0] + 0.8 * rng.normal(size=n)), -1, 2).astype(int) + 1
    weight = np.ones(n)
    weight[::3], weight[1::3] = 0.0, 3.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fits = [GroupRankSVM(pairs=pairs, C=1.0).fit(X, y, groups, sample_weight=weight)
                for pairs in ("all", "materialize")]
    assert fits[0].pair_model_.threshold_ == pytest.approx(fits[1].pair_model_.threshold_,
                                                           rel=1e-4)


def test_no_ranking_with_ties_kept_names_this_estimator_s_options():
    """Its pair model's advice named SVMCompare's on_degenerate and class_weight
    default 'auto', which the graded estimators do not have (a new user's
    ratings): the error names theirs."""
    from svmcompare import NoRankingError

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    grades = np.clip(np.round(X[:, 0] + rng.normal(size=200)) + 3, 1, 5)
    queries = np.repeat(np.arange(10), 20)
    for fit in (lambda cw: GroupRankSVM(ties="keep", class_weight=cw).fit(X, grades,
                                                                           groups=queries),
                lambda cw: OrdinalSVM(ties="keep", class_weight=cw).fit(X, grades)):
        with pytest.raises(NoRankingError, match=r"\(ties='keep', class_weight=None\) found no "
                                                 "ranking.*class_weight='auto' or 'balanced'"):
            fit(None)
        assert "on_degenerate" not in str(pytest.raises(NoRankingError, fit, None).value)
        fit("balanced")  # fits


@pytest.mark.parametrize("rule", ["midpoint", "error"])
def test_ordinal_thresholds_leave_out_items_of_weight_zero(rule):
    # An attack (stop 70): the pair model honoured sample_weight, the
    # thresholds counted every item (86% of predictions agreed).
    from svmcompare import OrdinalSVM

    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = np.digitize(X @ [1.0, -2.0, 0.5] + 0.5 * rng.normal(size=80), [-1, 0, 1])
    keep = np.random.default_rng(1).random(80) > 0.3
    weighted = OrdinalSVM(thresholds=rule).fit(X, y, sample_weight=keep.astype(float))
    subset = OrdinalSVM(thresholds=rule).fit(X[keep], y[keep])
    np.testing.assert_allclose(weighted.thresholds_, subset.thresholds_, rtol=1e-6)
    np.testing.assert_array_equal(weighted.predict(X), subset.predict(X))


@pytest.mark.parametrize("weight, message", [
    (np.r_[1e300, np.ones(119)], "C x that reaches 1e300, too large"),
    (np.full(120, 1e160), "C x that reaches 1e320, too large"),
    (np.full(120, 1e-300), "underflows in double precision"),
])
@pytest.mark.parametrize("pairs", ["all", "materialize"])
def test_pair_weights_past_double_precision_are_refused(weight, message, pairs):
    # An attack (stop 70): a pair weighs the product of its items' weights;
    # the all-pairs solver returned a zero model (1e300), an IndexError
    # (1e160 each) or "no two items ... have different grades" (1e-300 each).
    from svmcompare import GroupRankSVM

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3))
    y = np.digitize(X @ [1.0, -2.0, 0.5] + 0.3 * rng.normal(size=120), [-1, 0, 1])
    with pytest.raises(ValueError, match=message):
        GroupRankSVM(pairs=pairs).fit(X, y, np.repeat(np.arange(12), 10), sample_weight=weight)


def test_a_cap_on_pairs_with_every_pair_is_refused():
    # An attack (stop 70): pairs="all" ignored max_pairs_per_group=5 silently
    # (400 pairs fitted).
    from svmcompare import GroupRankSVM

    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = np.digitize(X @ [1.0, -2.0, 0.5], [-1, 0, 1])
    with pytest.raises(ValueError, match="a cap of 5 pairs cannot apply"):
        GroupRankSVM(pairs="all", max_pairs_per_group=5).fit(X, y, np.repeat([0, 1], 30))
    capped = GroupRankSVM(max_pairs_per_group=5, random_state=0).fit(X, y, np.repeat([0, 1], 30))
    assert capped.n_pairs_ <= 10


@pytest.mark.parametrize("ties", ["drop", "keep"])
def test_a_cap_on_a_huge_group_draws_pairs_without_listing_them(ties):
    # An attack (stop 70): max_pairs_per_group listed every pair of a group
    # before drawing some (30,000 items: 3.4 GB).
    import tracemalloc

    from svmcompare.pairs import pair_indices

    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 6000)  # 18 million pairs: past the listing limit
    tracemalloc.start()
    first, second, labels = pair_indices(y, None, ties, max_pairs_per_group=500,
                                         random_state=0)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 20 * 2**20  # listing the pairs took 288 MB
    assert first.size == 500 and np.all(first < second)
    assert len(set(zip(first.tolist(), second.tolist(), strict=True))) == 500
    np.testing.assert_array_equal(labels, np.sign(y[second] - y[first]))
    assert ties == "keep" or np.all(labels != 0)
    again = pair_indices(y, None, ties, max_pairs_per_group=500, random_state=0)
    np.testing.assert_array_equal(again[0], first)
    np.testing.assert_array_equal(again[1], second)
    # Fewer eligible pairs than the cap: every one of them.
    few = np.zeros(6000, dtype=int)
    few[:2] = 1
    first, second, labels = pair_indices(few, None, "drop", max_pairs_per_group=20_000)
    assert first.size == 2 * 5998 and np.all(labels != 0)
    # Few eligible pairs, a cap near their number (one relevant item among
    # 6,000: a review found rounds of raw draws that ran for minutes).
    one = np.zeros(6000, dtype=int)
    one[0] = 1
    for cap in (5000, 5998):
        first, second, labels = pair_indices(one, None, "drop", max_pairs_per_group=cap,
                                             random_state=0)
        assert first.size == cap and np.all(labels != 0) and np.all(first == 0)
        assert np.unique(second).size == cap


@pytest.mark.parametrize("ties", ["drop", "keep"])
@pytest.mark.parametrize("grades", [[0] * 37 + [1, 2, 1], [0, 1, 2, 3] * 10, [5] * 39 + [4]])
def test_a_capped_group_past_the_listing_limit_draws_from_every_eligible_pair(
        monkeypatch, ties, grades):
    # Where at most twice the cap are eligible, the pairs are listed (from the
    # items outside the commonest grade, with ties dropped) and the cap drawn
    # from them: the pairs of a brute-force list, drawn the same way.
    from svmcompare import pairs

    monkeypatch.setattr(pairs, "_LISTED_PAIRS", 10)
    y = np.array(grades)
    i, j = np.triu_indices(y.size, k=1)
    if ties == "drop":
        i, j = i[y[i] != y[j]], j[y[i] != y[j]]
    for cap in (i.size, i.size // 2 + 1):
        first, second, _ = pairs.pair_indices(y, None, ties, max_pairs_per_group=cap,
                                              random_state=0)
        drawn = np.sort(np.random.RandomState(0).choice(i.size, size=cap, replace=False)) \
            if cap < i.size else np.arange(i.size)
        np.testing.assert_array_equal(first, i[drawn])
        np.testing.assert_array_equal(second, j[drawn])


def test_ordinal_error_thresholds_take_fractional_weights():
    # A review (stop 70): weighted error sums came out -1e-17 where 0 was
    # meant, and the relative tolerance found no cut (IndexError, 6 of 20 seeds).
    from svmcompare import OrdinalSVM

    for seed in range(20):
        rng = np.random.default_rng(seed)
        X = rng.normal(size=(60, 2))
        y = np.digitize(X @ [1.0, -2.0], [-1, 1])
        w = rng.choice([0.1, 0.2, 0.3, 0.7], size=60)
        model = OrdinalSVM(thresholds="error").fit(X, y, sample_weight=w)
        assert np.all(np.diff(model.thresholds_) >= 0)
    w = np.ones(60)
    w[y == 1] = 0.0
    with pytest.raises(ValueError, match="level 1 has no item of positive sample_weight"):
        OrdinalSVM().fit(X, y, sample_weight=w)
